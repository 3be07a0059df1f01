/**
 * What the user chose in a result's table (sort, filter, grouping, open rows), and the pure
 * function that turns it into the rows to show.  The state outlives one rendering: a live run
 * re-renders its output on every update, and the user's choices must survive that.
 */

import { ICandidate, ITiming, stateLabel, candidateLabel } from './schema';
import { verdictRank } from './verdicts';

export type SortKey =
  'index' | 'candidate' | 'verdict' | 'wall' | 'cpu' | 'memory';

export interface IViewState {
  sort: SortKey;
  descending: boolean;
  /** Show only this verdict (or live state); '' shows all. */
  filter: string;
  /** One row per distinct model or payload. */
  grouped: boolean;
  /** Candidates whose detail row is open. */
  open: Set<number>;
  /** `${index}:stdout` / `${index}:stderr` streams shown in full. */
  fullStreams: Set<string>;
  /** Every row drawn, not only the first page. */
  showAll: boolean;
  /** A live output that stopped updating: saved mid-run, or its kernel is gone. */
  stale: boolean;
}

export function newViewState(): IViewState {
  return {
    sort: 'index',
    descending: false,
    filter: '',
    grouped: false,
    open: new Set(),
    fullStreams: new Set(),
    showAll: false,
    stale: false
  };
}

/** A shown row: the candidate, and the others with the same model folded into it. */
export interface IShownRow {
  candidate: ICandidate;
  members: ICandidate[];
}

/**
 * The key two sat candidates with the same model and payload share (as
 * `RunResult.model_groups()` groups them in Python); null for any other verdict, never grouped.
 */
export function modelKey(candidate: ICandidate): string | null {
  if (candidate.verdict !== 'sat') {
    return null;
  }
  const model =
    candidate.model && typeof candidate.model === 'object'
      ? candidate.model
      : null;
  const sorted = model
    ? Object.keys(model)
        .sort()
        .map(name => [name, model[name]])
    : null;
  const payload =
    typeof candidate.payload_hex === 'string'
      ? candidate.payload_hex.replace(/\s+/g, '').toLowerCase()
      : null;
  return JSON.stringify([sorted, payload]);
}

/** Candidates by model key, for keys shared by two candidates or more. */
export function sharedModels(
  candidates: ICandidate[]
): Map<string, ICandidate[]> {
  const byKey = new Map<string, ICandidate[]>();
  for (const candidate of candidates) {
    const key = modelKey(candidate);
    if (key !== null) {
      byKey.set(key, [...(byKey.get(key) ?? []), candidate]);
    }
  }
  return new Map([...byKey].filter(([, members]) => members.length > 1));
}

function figure(timing: ITiming | undefined, key: SortKey): number | undefined {
  const value =
    key === 'wall'
      ? timing?.wall_s
      : key === 'cpu'
        ? timing?.cpu_s
        : key === 'memory'
          ? timing?.peak_rss_mb
          : undefined;
  return typeof value === 'number' && Number.isFinite(value)
    ? value
    : undefined;
}

function comparator(
  state: IViewState,
  timings: Map<number, ITiming>
): (a: ICandidate, b: ICandidate) => number {
  const sign = state.descending ? -1 : 1;
  return (a, b) => {
    let order = 0;
    if (state.sort === 'verdict') {
      order = verdictRank(stateLabel(a)) - verdictRank(stateLabel(b));
    } else if (state.sort === 'candidate') {
      order = candidateLabel(a).localeCompare(candidateLabel(b), undefined, {
        numeric: true
      });
    } else if (state.sort !== 'index') {
      const x = figure(timings.get(a.index), state.sort);
      const y = figure(timings.get(b.index), state.sort);
      if (x === undefined || y === undefined) {
        // Candidates without the figure (not done yet) go last either way.
        order = x === y ? 0 : x === undefined ? 1 : -1;
        return order !== 0 ? order : a.index - b.index;
      }
      order = x - y;
    }
    return order !== 0 ? sign * order : sign * (a.index - b.index);
  };
}

/** The rows to show, in order: filtered by verdict, sorted, then folded by model if asked. */
export function shownRows(
  candidates: ICandidate[],
  timings: Map<number, ITiming>,
  state: IViewState
): IShownRow[] {
  const kept = candidates.filter(
    c => !state.filter || stateLabel(c) === state.filter
  );
  const sorted = [...kept].sort(comparator(state, timings));
  if (!state.grouped) {
    return sorted.map(candidate => ({ candidate, members: [candidate] }));
  }
  const rows: IShownRow[] = [];
  const byKey = new Map<string, IShownRow>();
  for (const candidate of sorted) {
    const key = modelKey(candidate);
    const row = key === null ? undefined : byKey.get(key);
    if (row) {
      row.members.push(candidate);
    } else {
      const fresh = { candidate, members: [candidate] };
      rows.push(fresh);
      if (key !== null) {
        byKey.set(key, fresh);
      }
    }
  }
  return rows;
}
