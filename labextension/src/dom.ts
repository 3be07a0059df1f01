/** Small DOM helpers.  Text is always set with textContent: results are untrusted data. */

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className?: string,
  text?: string
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) {
    node.className = className;
  }
  if (text !== undefined) {
    node.textContent = text;
  }
  return node;
}

/** A `<dl>`-like two-column table of labels and values. */
export function keyValueTable(
  rows: [string, string | Node][],
  className: string
): HTMLTableElement {
  const table = el('table', className);
  const body = el('tbody');
  for (const [key, value] of rows) {
    const tr = el('tr');
    tr.appendChild(el('th', undefined, key));
    const td = el('td');
    td.append(value);
    tr.appendChild(td);
    body.appendChild(tr);
  }
  table.appendChild(body);
  return table;
}

/** Seconds, megabytes and the like with a unit, shortened sensibly. */
export function formatNumber(value: unknown, unit = ''): string {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    return '';
  }
  let text: string;
  if (Number.isInteger(value)) {
    text = String(value);
  } else if (Math.abs(value) >= 100) {
    text = value.toFixed(0);
  } else {
    text = String(Number(value.toPrecision(3)));
  }
  return unit ? `${text} ${unit}` : text;
}

/** Keys a control leaves to JupyterLab even while it has the focus. */
const PASSED_ON = new Set(['Escape', 'Tab']);

/**
 * A control (select, checkbox, button) whose plain keys are its own: JupyterLab handles keydown
 * on the document, in the bubbling phase, so without this an arrow key in the filter runs the
 * notebook's command-mode shortcut and moves to another cell.  Keys with a modifier (Ctrl+S,
 * Shift+Enter), Escape and Tab still reach JupyterLab.
 */
export function control<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className?: string,
  text?: string
): HTMLElementTagNameMap[K] {
  const node = el(tag, className, text);
  (node as HTMLElement).addEventListener('keydown', event => {
    const modified =
      event.ctrlKey || event.metaKey || event.altKey || event.shiftKey;
    if (!modified && !PASSED_ON.has(event.key)) {
      event.stopPropagation();
    }
  });
  if (node instanceof HTMLButtonElement) {
    node.type = 'button';
  }
  return node;
}
