/**
 * The table never scrolls sideways while it can help it (`fit`): when it is wider than its
 * output, the timing columns shrink first (their unit goes to the header), then the reason,
 * core, objective and further models move to a full-width line under each row, then a
 * candidate's name and source preview stack.  Each layout is a set of classes on the table's
 * view (style/base.css); the last one is kept in the view state for the next rendering.
 */

import { IViewState } from './view';

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
export function fitWhenResized(
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
