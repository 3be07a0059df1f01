/**
 * The verdict table you can work with: sort by a column header (verdict, time, memory ...),
 * filter by verdict, fold identical results into one row (by default from GROUP_FROM
 * candidates on); each row opens a detail row below it.  Rows are built once per rendering and
 * only re-ordered, so open details stay open.
 *
 * The table never scrolls sideways while it can help it (`fit`): when it is wider than its
 * output, the timing columns shrink first (their unit goes to the header), then the reason,
 * core, objective and further models move to a full-width line under each row, then a
 * candidate's name and source preview stack.
 */

import { STREAM_PREVIEW_LINES, candidateDetail } from './candidate';
import { IColumn, columnsFor, rowExtras } from './columns';
import { control, el } from './dom';
import { groupFigure, groupLabel, hasModel } from './group';
import { printableLines } from './printable';
import {
  ICandidate,
  IRun,
  IRunMetadata,
  ITiming,
  answerWord,
  candidateLabel,
  shownLabel,
  stateLabel
} from './schema';
import { verdictRank } from './verdicts';
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

/** The layouts `fit` tries in turn, narrower each time: classes on the table's view. */
const LAYOUTS: string[][] = [
  [],
  ['jp-Z3Run-compact'],
  ['jp-Z3Run-compact', 'jp-Z3Run-narrow'],
  ['jp-Z3Run-compact', 'jp-Z3Run-narrow', 'jp-Z3Run-stacked']
];
const LAYOUT_CLASSES = [...new Set(LAYOUTS.flat())];

/** The first layout whose reasons are on a line of their own, under their rows. */
const NARROW = 2;

/** Whether a reason in its column would take more than one line (a wide table's reason cells). */
function reasonsWrap(view: HTMLElement): boolean {
  const shown = view.querySelectorAll<HTMLElement>(
    'td.jp-Z3Run-reason > .jp-Z3Run-reasonText > .jp-Z3Run-reasonShort'
  );
  return Array.from(shown).some(text => text.getClientRects().length > 1);
}

/**
 * The first layout in which the table is no wider than its view, kept for the next rendering;
 * and at least the narrow one (each reason on a full-width line under its row) when a reason
 * would wrap in its column: a reason is read whole, not a word a line.
 */
function fit(view: HTMLElement, state: IViewState): void {
  for (let level = 0; level < LAYOUTS.length; level++) {
    view.classList.remove(...LAYOUT_CLASSES);
    view.classList.add(...LAYOUTS[level]);
    state.layout = level;
    if (view.scrollWidth > view.clientWidth) {
      continue;
    }
    if (level < NARROW && reasonsWrap(view)) {
      level = NARROW - 1; // the next turn tries the narrow layout
      continue;
    }
    return;
  }
}

/**
 * Fit the table now and whenever its width or its view's changes: the output is resized, or the
 * table's own content is (a web font that loads late, a row that opens).  Fitting waits for the
 * next frame: done in the observer's own callback, the height it changes would be a resize
 * notified in the same frame again (a "ResizeObserver loop" error).  A fit is deterministic, so
 * the table's width after a second fit is the same, and the observer goes quiet.
 */
function fitWhenResized(
  view: HTMLElement,
  table: HTMLElement,
  state: IViewState
): () => void {
  const widths = new Map<Element, number>();
  let pending = 0;
  const later = (): void => {
    if (!pending) {
      pending = requestAnimationFrame(() => {
        pending = 0;
        if (view.isConnected) {
          fit(view, state);
        }
      });
    }
  };
  if (typeof ResizeObserver === 'function') {
    const observer = new ResizeObserver(entries => {
      let changed = false;
      for (const entry of entries) {
        changed ||= widths.get(entry.target) !== entry.contentRect.width;
        widths.set(entry.target, entry.contentRect.width);
      }
      if (changed) {
        later();
      }
    });
    observer.observe(view);
    observer.observe(table);
  }
  view.classList.add(...LAYOUTS[state.layout ?? 0]); // the last fit, until measured again
  return () => {
    if (view.isConnected && typeof requestAnimationFrame === 'function') {
      later();
    }
  };
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

function sortHeader(
  column: IColumn,
  state: IViewState,
  refresh: () => void
): HTMLElement {
  const th = el('th', `jp-Z3Run-col-${column.key}`);
  if (column.unit) {
    // Shown when the table is narrow and the figures drop their units (LAYOUTS).
    th.dataset.unit = column.unit;
  }
  if (!column.sort) {
    th.textContent = column.title;
    return th;
  }
  const key = column.sort;
  const button = control('button', 'jp-Z3Run-sort', column.title);
  button.dataset.sort = key;
  button.title = `Sort by ${column.title}`;
  button.addEventListener('click', () => {
    if (state.sort === key) {
      state.descending = !state.descending;
    } else {
      state.sort = key;
      state.descending = column.largestFirst === true;
    }
    refresh();
  });
  th.appendChild(button);
  return th;
}

function filterSelect(
  run: IRun,
  candidates: ICandidate[],
  state: IViewState,
  refresh: () => void
): HTMLSelectElement {
  const counts = new Map<string, number>();
  for (const candidate of candidates) {
    const label = stateLabel(candidate);
    counts.set(label, (counts.get(label) ?? 0) + 1);
  }
  if (state.filter && !counts.has(state.filter)) {
    counts.set(state.filter, 0); // a live run: keep the user's choice while none is there yet
  }
  const select = control('select', 'jp-Z3Run-filter');
  select.title = 'Show only the candidates with this verdict';
  select.appendChild(new Option(`all verdicts (${candidates.length})`, ''));
  const names = [...counts.keys()].sort(
    (a, b) => verdictRank(a) - verdictRank(b)
  );
  for (const name of names) {
    select.appendChild(
      new Option(`${answerWord(run, name)} (${counts.get(name)})`, name)
    );
  }
  select.value = state.filter;
  select.addEventListener('change', () => {
    state.filter = select.value;
    refresh();
  });
  return select;
}

function groupToggle(
  state: IViewState,
  refresh: () => void
): [HTMLElement, (rows: number) => void] {
  const label = el('label', 'jp-Z3Run-groupToggle');
  const box = control('input');
  box.type = 'checkbox';
  box.checked = state.grouped === true;
  box.addEventListener('change', () => {
    state.grouped = box.checked;
    refresh();
  });
  const text = el('span');
  label.append(box, text);
  // The count is the rows grouping shows (with the current filter), as the table will.
  const count = (rows: number): void => {
    text.textContent = ` group identical results (${rows} row${rows === 1 ? '' : 's'})`;
  };
  return [label, count];
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

function markSorted(head: HTMLTableRowElement, state: IViewState): void {
  for (const th of Array.from(head.children)) {
    const key = (th.firstElementChild as HTMLElement | null)?.dataset?.sort;
    if (key === state.sort) {
      th.setAttribute(
        'aria-sort',
        state.descending ? 'descending' : 'ascending'
      );
    } else {
      th.removeAttribute('aria-sort');
    }
  }
}

function moreButton(state: IViewState, refresh: () => void): HTMLButtonElement {
  const button = control('button', 'jp-Z3Run-action jp-Z3Run-more');
  button.addEventListener('click', () => {
    state.showAll = !state.showAll;
    refresh();
  });
  return button;
}

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
