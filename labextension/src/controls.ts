/**
 * The table's controls: the sortable column headers, the verdict filter, the grouping toggle and
 * the "show all rows" button.  Each changes the user's choice in the view state and redraws.
 */

import { IColumn } from './columns';
import { control, el } from './dom';
import { ICandidate, IRun, answerWord, stateLabel } from './schema';
import { verdictRank } from './verdicts';
import { IViewState } from './view';

export function sortHeader(
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

export function filterSelect(
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

export function groupToggle(
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

export function markSorted(head: HTMLTableRowElement, state: IViewState): void {
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

export function moreButton(
  state: IViewState,
  refresh: () => void
): HTMLButtonElement {
  const button = control('button', 'jp-Z3Run-action jp-Z3Run-more');
  button.addEventListener('click', () => {
    state.showAll = !state.showAll;
    refresh();
  });
  return button;
}
