/**
 * Progress of a run that is still going: done/total, the candidates running, the elapsed time,
 * the rate and an estimate of the time left, and a bar.  Shown only while the document says
 * `finished: false`.  The kernel refreshes the output about once a second at least; between
 * refreshes the renderer (mime.ts) ticks the elapsed time, rate and estimate itself, counting from
 * the run's start as the last refresh gave it (`elapsed_s`).
 */

import { el } from './dom';
import { IRun, IRunMetadata, progressOf, stateLabel } from './schema';

/** `8.4 s`, `2 min 05 s`, `1 h 02 min`: a duration as a person reads it. */
export function formatDuration(seconds: number, decimals = 0): string {
  if (!Number.isFinite(seconds) || seconds < 0) {
    return '';
  }
  if (seconds < 60) {
    return `${seconds.toFixed(seconds < 10 ? decimals : 0)} s`;
  }
  const whole = Math.round(seconds);
  const pad = (n: number): string => String(n).padStart(2, '0');
  if (whole < 3600) {
    return `${Math.floor(whole / 60)} min ${pad(whole % 60)} s`;
  }
  return `${Math.floor(whole / 3600)} h ${pad(Math.floor(whole / 60) % 60)} min`;
}

/** `12/200 done · 4 running · 3.1 s elapsed · 3.9/s · about 48 s left`. */
export function progressText(run: IRun, metadata: IRunMetadata): string {
  const { done, total } = progressOf(run);
  const parts = [`${done}/${total} done`];
  const running = run.candidates.filter(
    c => stateLabel(c) === 'running'
  ).length;
  if (running > 0) {
    parts.push(`${running} running`);
  }
  const elapsed = metadata.elapsed_s;
  if (elapsed !== undefined && Number.isFinite(elapsed)) {
    parts.push(`${formatDuration(elapsed, 1)} elapsed`);
    if (done > 0 && elapsed > 0) {
      const rate = done / elapsed;
      parts.push(`${rate >= 10 ? rate.toFixed(0) : rate.toPrecision(2)}/s`);
      if (done < total) {
        parts.push(`about ${formatDuration((total - done) / rate)} left`);
      }
    }
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
