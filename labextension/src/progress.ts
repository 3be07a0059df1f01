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

/** The rate the estimate of the time left uses, smoothed over the refreshes of one output. */
export interface IEta {
  /** Candidates done when it was last updated. */
  done: number;
  /** Candidates a second, smoothed. */
  rate: number;
}

/** How much of each new measured rate the smoothed rate takes. */
const SMOOTHING = 0.3;

/**
 * The smoothed rate after a refresh, updated when more candidates are done: a burst (two
 * candidates that finish together) moves the estimate a part of the way, not all of it.
 */
export function nextEta(
  eta: IEta | undefined,
  run: IRun,
  metadata: IRunMetadata
): IEta | undefined {
  const { done } = progressOf(run);
  const elapsed = metadata.elapsed_s;
  if (elapsed === undefined || !(elapsed > 0) || done === 0) {
    return eta;
  }
  const measured = done / elapsed;
  if (eta === undefined || done < eta.done) {
    return { done, rate: measured }; // the first estimate, or another run in this output
  }
  if (done === eta.done) {
    return eta;
  }
  return { done, rate: eta.rate + SMOOTHING * (measured - eta.rate) };
}

/**
 * `12/200 done · 4 running · 3.1 s elapsed · 3.9/s · about 48 s left`.  With `eta`, the rate is
 * the smoothed one, or the measured one when that is slower (no candidate done for a while: the
 * estimate grows at once); a faster one only moves the smoothed rate (`nextEta`).
 */
export function progressText(
  run: IRun,
  metadata: IRunMetadata,
  eta?: IEta
): string {
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
      const rate = Math.min(eta?.rate ?? Infinity, done / elapsed);
      parts.push(`${rate >= 10 ? rate.toFixed(0) : rate.toPrecision(2)}/s`);
      if (done < total) {
        parts.push(`about ${formatDuration((total - done) / rate)} left`);
      }
    }
  }
  return parts.join(' · ');
}

export function progressBar(
  run: IRun,
  metadata: IRunMetadata,
  eta?: IEta
): HTMLElement {
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
    el('span', 'jp-Z3Run-progressText', progressText(run, metadata, eta))
  );
  return node;
}
