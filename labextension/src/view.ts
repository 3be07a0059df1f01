/**
 * What the user chose in a result's table (sort, filter, grouping, open rows), and the pure
 * function that turns it into the rows to show.  The state outlives one rendering: a live run
 * re-renders its output on every update, and the user's choices must survive that.  It holds
 * the view's choices only; what the run accumulates is its model's (live.ts: `LiveRun`).
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
  /** One row per distinct result; undefined until the first rendering decides (GROUP_FROM). */
  grouped?: boolean;
  /** Candidates whose detail row is open. */
  open: Set<number>;
  /** `${index}:stdout` / `${index}:stderr` streams shown in full. */
  fullStreams: Set<string>;
  /** Every row drawn, not only the first page. */
  showAll: boolean;
  /** The table's last layout (table.ts LAYOUTS), so that a refresh starts from it. */
  layout?: number;
}

export function newViewState(): IViewState {
  return {
    sort: 'index',
    descending: false,
    filter: '',
    grouped: undefined,
    open: new Set(),
    fullStreams: new Set(),
    showAll: false
  };
}

/** A shown row: the candidate, and the others with the same result folded into it. */
export interface IShownRow {
  candidate: ICandidate;
  members: ICandidate[];
}

/** From this many candidates on, identical results are grouped until the user says otherwise. */
export const GROUP_FROM = 20;

/**
 * The key two finished candidates with the same result share: for sat, the same model and
 * payload (as `RunResult.model_groups()` groups them in Python); for any other verdict, the
 * same shown verdict, reason, core and objective.  Null for one not finished: never grouped.
 */
export function resultKey(candidate: ICandidate): string | null {
  if (typeof candidate.verdict !== 'string') {
    return null;
  }
  if (candidate.verdict !== 'sat') {
    return JSON.stringify([
      candidate.verdict,
      candidate.shown ?? null,
      candidate.reason ?? '',
      candidate.unsat_core ?? null,
      candidate.core_answer ?? null,
      candidate.objective ?? null
    ]);
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
  return JSON.stringify([
    sorted,
    payload,
    candidate.shown ?? null,
    candidate.further_models ?? null
  ]);
}

/** Candidates by result key, for keys shared by two candidates or more. */
export function sharedResults(
  candidates: ICandidate[]
): Map<string, ICandidate[]> {
  const byKey = new Map<string, ICandidate[]>();
  for (const candidate of candidates) {
    const key = resultKey(candidate);
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

/**
 * The rows to show, in order: filtered by verdict, sorted, then folded by result when
 * `grouped` (the user's choice by default).
 */
export function shownRows(
  candidates: ICandidate[],
  timings: Map<number, ITiming>,
  state: IViewState,
  grouped = state.grouped === true
): IShownRow[] {
  const kept = candidates.filter(
    c => !state.filter || stateLabel(c) === state.filter
  );
  const sorted = [...kept].sort(comparator(state, timings));
  if (!grouped) {
    return sorted.map(candidate => ({ candidate, members: [candidate] }));
  }
  const rows: IShownRow[] = [];
  const byKey = new Map<string, IShownRow>();
  for (const candidate of sorted) {
    const key = resultKey(candidate);
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
