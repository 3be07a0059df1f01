/**
 * Progress of a run that is still going: done/total, the candidates running, the elapsed time
 * and a bar.  Shown only while the document says `finished: false`; the kernel refreshes the
 * output in place, so each refresh brings new figures.
 */

import { el, formatNumber } from './dom';
import { IRun, IRunMetadata, progressOf, stateLabel } from './schema';

export function progressText(run: IRun, metadata: IRunMetadata): string {
  const { done, total } = progressOf(run);
  const parts = [`${done}/${total} done`];
  const running = run.candidates.filter(
    c => stateLabel(c) === 'running'
  ).length;
  if (running > 0) {
    parts.push(`${running} running`);
  }
  if (metadata.elapsed_s !== undefined) {
    parts.push(`${formatNumber(metadata.elapsed_s, 's')} elapsed`);
  }
  return parts.join(' · ');
}

export function progressBar(run: IRun, metadata: IRunMetadata): HTMLElement {
  const { done, total } = progressOf(run);
  const node = el('div', 'jp-Z3Run-progress');
  const bar = el('div', 'jp-Z3Run-progressBar');
  bar.setAttribute('role', 'progressbar');
  bar.setAttribute('aria-label', 'candidates done');
  bar.setAttribute('aria-valuemin', '0');
  bar.setAttribute('aria-valuemax', String(total));
  bar.setAttribute('aria-valuenow', String(done));
  const fill = el('div', 'jp-Z3Run-progressFill');
  fill.style.width = `${total > 0 ? Math.min(100, (100 * done) / total) : 0}%`;
  bar.appendChild(fill);
  node.appendChild(bar);
  node.appendChild(
    el('span', 'jp-Z3Run-progressText', progressText(run, metadata))
  );
  return node;
}
