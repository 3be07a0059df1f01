/**
 * The verdict table: one row per candidate, each with a toggle that opens a
 * detail row below it.
 */

import { candidateDetail, modelPreview, shorten } from './candidate';
import { el, formatNumber } from './dom';
import { ICandidate, IRunMetadata, ITiming } from './schema';
import { verdictBadge } from './verdicts';

function timingsByIndex(metadata: IRunMetadata): Map<number, ITiming> {
  return new Map((metadata.timings ?? []).map(t => [t.index, t]));
}

function headerRow(withTimings: boolean): HTMLTableSectionElement {
  const head = el('thead');
  const tr = el('tr');
  const names = ['#', 'verdict', 'kill', 'model / payload', 'reason'];
  if (withTimings) {
    names.push('wall', 'cpu', 'peak RSS');
  }
  for (const name of names) {
    tr.appendChild(el('th', undefined, name));
  }
  head.appendChild(tr);
  return head;
}

function toggleButton(
  candidate: ICandidate,
  detailRow: HTMLTableRowElement,
  timing?: ITiming
) {
  const button = el('button', 'jp-Z3Run-toggle', `${candidate.index}`);
  button.type = 'button';
  button.title = "Show or hide this candidate's details";
  button.setAttribute('aria-expanded', 'false');
  button.addEventListener('click', () => {
    const cell = detailRow.firstElementChild as HTMLTableCellElement;
    if (!cell.hasChildNodes()) {
      cell.appendChild(candidateDetail(candidate, timing));
    }
    const open = detailRow.hidden;
    detailRow.hidden = !open;
    button.setAttribute('aria-expanded', String(open));
  });
  return button;
}

function candidateRows(
  candidate: ICandidate,
  columns: number,
  timing?: ITiming
): HTMLTableRowElement[] {
  const row = el('tr', 'jp-Z3Run-row');
  row.dataset.index = String(candidate.index);
  const detailRow = el('tr', 'jp-Z3Run-detailRow');
  detailRow.hidden = true;
  const detailCell = el('td');
  detailCell.colSpan = columns;
  detailRow.appendChild(detailCell);

  const first = el('td', 'jp-Z3Run-index');
  first.appendChild(toggleButton(candidate, detailRow, timing));
  row.appendChild(first);
  const verdictCell = el('td');
  verdictCell.appendChild(verdictBadge(String(candidate.verdict)));
  row.appendChild(verdictCell);
  row.appendChild(el('td', 'jp-Z3Run-kill', candidate.kill ?? ''));
  row.appendChild(el('td', 'jp-Z3Run-preview', modelPreview(candidate)));
  const reason = el('td', 'jp-Z3Run-reason', shorten(candidate.reason));
  reason.title = String(candidate.reason ?? '');
  row.appendChild(reason);
  if (columns > 5) {
    row.appendChild(
      el('td', 'jp-Z3Run-num', formatNumber(timing?.wall_s, 's'))
    );
    row.appendChild(el('td', 'jp-Z3Run-num', formatNumber(timing?.cpu_s, 's')));
    row.appendChild(
      el('td', 'jp-Z3Run-num', formatNumber(timing?.peak_rss_mb, 'MB'))
    );
  }
  return [row, detailRow];
}

export function verdictTable(
  candidates: ICandidate[],
  metadata: IRunMetadata
): HTMLElement {
  if (candidates.length === 0) {
    return el('p', 'jp-Z3Run-empty', 'No candidates were run.');
  }
  const timings = timingsByIndex(metadata);
  const withTimings = timings.size > 0;
  const columns = withTimings ? 8 : 5;
  const table = el('table', 'jp-Z3Run-table');
  table.appendChild(headerRow(withTimings));
  const body = el('tbody');
  for (const candidate of candidates) {
    body.append(
      ...candidateRows(candidate, columns, timings.get(candidate.index))
    );
  }
  table.appendChild(body);
  return table;
}
