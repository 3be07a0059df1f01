/**
 * The verdict table you can work with: sort by a column header (verdict, time, memory ...),
 * filter by verdict, fold identical results into one row (by default from GROUP_FROM
 * candidates on); each row opens a detail row below it.  Rows are built once per rendering and
 * only re-ordered, so open details stay open.  The table never scrolls sideways while it can
 * help it (fit.ts); its headers, filter and toggles are in controls.ts.
 */

import { STREAM_PREVIEW_LINES, candidateDetail } from './candidate';
import {
  filterSelect,
  groupToggle,
  markSorted,
  moreButton,
  sortHeader
} from './controls';
import { fitWhenResized } from './fit';
import { IColumn, columnsFor, rowExtras } from './columns';
import { control, el } from './dom';
import { groupFigure, groupLabel, hasModel } from './group';
import { printableLines } from './printable';
import {
  ICandidate,
  IRun,
  IRunMetadata,
  ITiming,
  candidateLabel,
  shownLabel,
  stateLabel
} from './schema';
import {
  GROUP_FROM,
  IShownRow,
  IViewState,
  sharedResults,
  shownRows
} from './view';

interface IRowPair {
  row: HTMLTableRowElement;
  detail: HTMLTableRowElement;
  group: HTMLElement;
  output: HTMLTableRowElement | null;
  /** The reason, core, objective and further models on a line of their own (narrow tables). */
  extras: HTMLTableRowElement | null;
}

function extrasRow(
  candidate: ICandidate,
  columns: IColumn[]
): HTMLTableRowElement | null {
  if (!columns.some(c => c.key === 'reason')) {
    return null;
  }
  const lines = rowExtras(candidate, true);
  if (lines.length === 0) {
    return null;
  }
  const row = el('tr', 'jp-Z3Run-extrasRow');
  row.appendChild(el('td'));
  const cell = el('td', 'jp-Z3Run-extras');
  cell.colSpan = Math.max(1, columns.length - 1);
  cell.append(...lines);
  row.appendChild(cell);
  return row;
}

/**
 * The volatile figures of a candidate that is done, and the time so far (`running_s`) of one
 * that runs; a queued one has none yet.
 */
function timingsByIndex(
  candidates: ICandidate[],
  metadata: IRunMetadata
): Map<number, ITiming> {
  const done = new Set(
    candidates.filter(c => typeof c.verdict === 'string').map(c => c.index)
  );
  const running = new Set(
    candidates.filter(c => stateLabel(c) === 'running').map(c => c.index)
  );
  return new Map(
    (metadata.timings ?? [])
      .filter(t =>
        typeof t.running_s === 'number'
          ? running.has(t.index)
          : done.has(t.index)
      )
      .map(t => [t.index, t])
  );
}

/** The row under a candidate's row that shows its stdout without a click. */
function outputRow(
  candidate: ICandidate,
  columns: number
): HTMLTableRowElement | null {
  const text = typeof candidate.stdout === 'string' ? candidate.stdout : '';
  if (candidate.show_output !== true || !text.trim()) {
    return null;
  }
  const row = el('tr', 'jp-Z3Run-outputRow');
  row.appendChild(el('td'));
  const cell = el('td');
  cell.colSpan = Math.max(1, columns - 1);
  const lines = printableLines(text.replace(/\n$/, '')).split('\n');
  const shown = lines.slice(0, STREAM_PREVIEW_LINES);
  if (lines.length > shown.length) {
    shown.push(`… (${lines.length - shown.length} more lines: open the row)`);
  }
  const pre = el('pre', 'jp-Z3Run-pre jp-Z3Run-inlineOutput', shown.join('\n'));
  pre.title = 'stdout';
  cell.appendChild(pre);
  row.appendChild(cell);
  return row;
}

function toggleButton(
  candidate: ICandidate,
  detailRow: HTMLTableRowElement,
  state: IViewState,
  timing?: ITiming
): HTMLButtonElement {
  const button = control('button', 'jp-Z3Run-toggle', `${candidate.index}`);
  button.title = "Show or hide this candidate's details";
  const show = (open: boolean): void => {
    const cell = detailRow.firstElementChild as HTMLTableCellElement;
    if (open && !cell.hasChildNodes()) {
      cell.appendChild(candidateDetail(candidate, state, timing));
    }
    detailRow.hidden = !open;
    button.setAttribute('aria-expanded', String(open));
  };
  button.addEventListener('click', () => {
    const open = detailRow.hidden;
    if (open) {
      state.open.add(candidate.index);
    } else {
      state.open.delete(candidate.index);
    }
    show(open);
  });
  show(state.open.has(candidate.index));
  return button;
}

function rowPair(
  candidate: ICandidate,
  columns: IColumn[],
  state: IViewState,
  run: IRun,
  timing?: ITiming
): IRowPair {
  const row = el('tr', 'jp-Z3Run-row');
  row.dataset.index = String(candidate.index);
  row.dataset.verdict = stateLabel(candidate);
  row.dataset.shown = shownLabel(candidate);
  const detail = el('tr', 'jp-Z3Run-detailRow');
  const detailCell = el('td');
  detailCell.colSpan = columns.length;
  detail.appendChild(detailCell);
  const group = el('span', 'jp-Z3Run-group');
  const toggle = toggleButton(candidate, detail, state, timing);
  for (const column of columns) {
    const cell = column.cell(candidate, timing, group, run);
    if (column.key === 'index') {
      cell.appendChild(toggle);
    }
    row.appendChild(cell);
  }
  if (!columns.some(c => c.key === 'index')) {
    row.firstElementChild?.prepend(toggle);
  }
  return {
    row,
    detail,
    group,
    output: outputRow(candidate, columns.length),
    extras: extrasRow(candidate, columns)
  };
}

/** The figure cells of a row, by the key their values are read with. */
const FIGURE_CELLS: [string, (t: ITiming) => number | undefined, string][] = [
  ['wall', t => t.wall_s, 's'],
  ['cpu', t => t.cpu_s, 's'],
  ['memory', t => t.peak_rss_mb, 'MB']
];

/**
 * A row as grouping shows it: folded, it names its members ("seeds 0–199 (200)") and shows the
 * median of their times (their range in the tooltip); alone, "same as #N" beside a model that
 * row N found first.  Called at each refresh: what grouping changed is put back when ungrouped.
 */
function markGroup(
  shown: IShownRow,
  pair: IRowPair,
  leaders: Map<number, number>,
  timings: Map<number, ITiming>
): void {
  const { candidate, members } = shown;
  const grouped = members.length > 1;
  const label = pair.row.querySelector<HTMLElement>('.jp-Z3Run-candidateLabel');
  if (label) {
    label.textContent = grouped
      ? groupLabel(members)
      : candidateLabel(candidate);
    label.title = label.textContent;
  }
  for (const [key, pick, unit] of FIGURE_CELLS) {
    const cell = pair.row.querySelector<HTMLElement>(`.jp-Z3Run-${key}`);
    if (!cell) {
      continue;
    }
    cell.dataset.original ??= cell.innerHTML;
    cell.dataset.originalTitle ??= cell.title;
    const figure = grouped ? groupFigure(members, timings, pick, unit) : null;
    if (figure) {
      cell.textContent = figure.text;
      cell.title = figure.title;
      cell.classList.add('jp-Z3Run-median');
    } else if (cell.classList.contains('jp-Z3Run-median')) {
      cell.innerHTML = cell.dataset.original;
      cell.title = cell.dataset.originalTitle;
      cell.classList.remove('jp-Z3Run-median');
    }
  }
  if (grouped) {
    pair.group.textContent = label ? '' : ` ×${members.length}`;
    pair.group.title = `the same result as ${members
      .slice(1)
      .map(m => candidateLabel(m))
      .join(', ')}`;
  } else {
    const leader = leaders.get(candidate.index);
    pair.group.textContent = leader === undefined ? '' : ` same as #${leader}`;
    pair.group.title =
      leader === undefined ? '' : `the same model as candidate #${leader}`;
  }
}

/** At first only this many rows are drawn; one click shows all (a run of K = 1000 stays short). */
export const PAGE_ROWS = 50;

/** The table and its controls; `state` carries the user's choices across renderings. */
export function verdictTable(
  run: IRun,
  metadata: IRunMetadata,
  state: IViewState
): HTMLElement {
  const candidates = run.candidates;
  if (candidates.length === 0) {
    return el('p', 'jp-Z3Run-empty', 'No candidates were run.');
  }
  const timings = timingsByIndex(candidates, metadata);
  const columns = columnsFor(
    run,
    timings.size > 0 || !run.finished || metadata.timings !== undefined
  );
  const pairs = new Map<number, IRowPair>(); // built when first shown
  const pairOf = (c: ICandidate): IRowPair => {
    let pair = pairs.get(c.index);
    if (!pair) {
      pair = rowPair(c, columns, state, run, timings.get(c.index));
      pairs.set(c.index, pair);
    }
    return pair;
  };
  const shared = sharedResults(candidates);
  if (state.grouped === undefined && run.finished) {
    // A large run opens grouped (decided once, on the final table: live rows keep their order).
    state.grouped = candidates.length >= GROUP_FROM;
  }
  // "same as #N" only beside a model: a cancelled row, a race's loser, shares no result.
  const leaders = new Map<number, number>();
  for (const members of shared.values()) {
    members
      .slice(1)
      .filter(hasModel)
      .forEach(m => leaders.set(m.index, members[0].index));
  }

  const view = el('div', 'jp-Z3Run-tableView');
  const controls = el('div', 'jp-Z3Run-controls');
  const shownCount = el('span', 'jp-Z3Run-shown');
  const table = el('table', 'jp-Z3Run-table');
  const head = el('tr');
  const body = el('tbody');
  let countGroups = (_rows: number): void => undefined;
  let refit = (): void => undefined;
  const refresh = (): void => {
    const rows = shownRows(candidates, timings, state);
    const drawn = state.showAll ? rows : rows.slice(0, PAGE_ROWS);
    body.replaceChildren(
      ...drawn.flatMap(shown => {
        const pair = pairOf(shown.candidate);
        markGroup(shown, pair, state.grouped ? new Map() : leaders, timings);
        return [pair.row, pair.extras, pair.output, pair.detail].filter(
          (row): row is HTMLTableRowElement => row !== null
        );
      })
    );
    countGroups(
      state.grouped
        ? rows.length
        : shownRows(candidates, timings, state, true).length
    );
    refit();
    const shownCandidates = rows.reduce((n, r) => n + r.members.length, 0);
    shownCount.textContent = `${rows.length} row${rows.length === 1 ? '' : 's'}, ${shownCandidates} of ${candidates.length} candidates`;
    more.hidden = rows.length <= PAGE_ROWS;
    more.textContent = state.showAll
      ? `Show the first ${PAGE_ROWS} rows`
      : `Show all ${rows.length} rows (${rows.length - PAGE_ROWS} more)`;
    markSorted(head, state);
  };
  const more = moreButton(state, refresh);
  if (candidates.length > 1) {
    // One candidate: no K-way controls (filter, grouping, counts).
    controls.appendChild(filterSelect(run, candidates, state, refresh));
    if (shared.size > 0) {
      const [toggle, count] = groupToggle(state, refresh);
      controls.appendChild(toggle);
      countGroups = count;
    }
    controls.appendChild(shownCount);
  }
  head.append(...columns.map(column => sortHeader(column, state, refresh)));
  const thead = el('thead');
  thead.appendChild(head);
  table.append(thead, body);
  refit = fitWhenResized(view, table, state);
  refresh();
  view.append(controls, table, more);
  return view;
}
