import { afterEach, describe, expect, it, vi } from 'vitest';

import { IStopRequest, STOP_EVENT, stopButton } from '../src/control';
import { LiveRun, STALE_MS } from '../src/live';
import type { IRun } from '../src/schema';
import { crc32, zipStore } from '../src/zip';
import { candidate, run } from './fixtures';

describe('LiveRun', () => {
  it('merges a delta refresh into the rows it holds, and parses the result', () => {
    const live = new LiveRun();
    const queued = (index: number) =>
      candidate({ index, verdict: null, state: 'queued' });
    const whole = run([queued(0), queued(1), queued(2)], {
      finished: false,
      progress: { done: 0, total: 3 }
    });
    live.update(whole, { timings: [] });
    expect(live.live).toBe(true);
    const delta = {
      ...run([candidate({ index: 1 })], { finished: false }),
      delta: true,
      progress: { done: 1, total: 3 }
    };
    live.update(delta, {
      timings: [{ index: 2, running_s: 1.5 }]
    });
    expect(live.parsed.ok).toBe(true);
    const parsed = live.parsed as { ok: true; run: IRun };
    expect(parsed.run.candidates.map(c => c.verdict)).toEqual([
      null,
      'sat',
      null
    ]);
    expect(live.metadata.timings).toEqual([{ index: 2, running_s: 1.5 }]);
    live.update(run([candidate({ index: 0 })]), {});
    expect(live.live).toBe(false); // a final document replaces every row
  });

  it('marks rows it never received as incomplete', () => {
    const view = LiveRun.of(
      {
        ...run([candidate({ index: 1 })], { finished: false }),
        delta: true,
        progress: { done: 1, total: 2 }
      },
      {}
    );
    const parsed = view.parsed as { ok: true; run: IRun };
    expect(parsed.run.candidates[0].state).toBe('incomplete');
  });

  it('keeps a document it cannot read as it is, to show it raw', () => {
    const view = LiveRun.of({ schema: 'other' }, null);
    expect(view.parsed.ok).toBe(false);
    expect(view.data).toEqual({ schema: 'other' });
  });
});

describe('LiveRun between refreshes', () => {
  afterEach(() => {
    vi.useRealTimers();
  });
  const going = (done: number) =>
    run(
      [
        candidate({ index: 0, verdict: done > 0 ? 'sat' : null }),
        candidate({ index: 1, verdict: done > 1 ? 'sat' : null })
      ],
      { finished: false, progress: { done, total: 2 } }
    );

  it('goes stale with no refresh for STALE_MS, and says so once', () => {
    vi.useFakeTimers();
    const live = new LiveRun();
    const changes: boolean[] = [];
    live.changed.connect(() => changes.push(live.stale));
    live.update(going(1), { elapsed_s: 1 });
    vi.advanceTimersByTime(STALE_MS - 1);
    expect(live.stale).toBe(false);
    live.update(going(1), { elapsed_s: 2 }); // a refresh starts the wait again
    vi.advanceTimersByTime(STALE_MS - 1);
    expect(live.stale).toBe(false);
    vi.advanceTimersByTime(1);
    expect(live.stale).toBe(true);
    vi.advanceTimersByTime(10 * STALE_MS);
    expect(changes).toEqual([false, false, true]);
    live.update(going(2), {}); // a refresh is fresh again
    expect(live.stale).toBe(false);
    live.dispose();
  });

  it('never goes stale once finished', () => {
    vi.useFakeTimers();
    const live = LiveRun.of(run([candidate()]), {});
    vi.advanceTimersByTime(2 * STALE_MS);
    expect(live.stale).toBe(false);
    expect(live.live).toBe(false);
  });

  it('keeps the smoothed rate and counts the elapsed time on from the last refresh', () => {
    vi.useFakeTimers();
    const live = new LiveRun();
    live.update(going(1), { elapsed_s: 2 });
    expect(live.eta).toEqual({ done: 1, rate: 0.5 });
    expect(live.elapsedAt(performance.now() + 1500)).toBeCloseTo(3.5);
    live.update(going(2), { elapsed_s: 3 });
    expect(live.eta?.done).toBe(2);
    expect(live.eta!.rate).toBeCloseTo(0.5 + 0.3 * (2 / 3 - 0.5));
    expect(LiveRun.of(going(1), {}).elapsedAt(0)).toBeUndefined();
    live.dispose();
  });
});

describe('zipStore', () => {
  it('stores whole files with their CRC-32', () => {
    expect(crc32(new TextEncoder().encode('123456789'))).toBe(0xcbf43926);
    const archive = zipStore([['a.bin', new Uint8Array([65, 66])]]);
    const view = new DataView(archive.buffer);
    expect(view.getUint32(0, true)).toBe(0x04034b50);
    expect(view.getUint32(archive.length - 22, true)).toBe(0x06054b50);
    expect(archive.length).toBe(30 + 5 + 2 + 46 + 5 + 22);
  });
});

describe('stopButton', () => {
  it('raises a stop event for a running row of a live run, and nothing else', () => {
    const running = candidate({ index: 2, verdict: null, state: 'running' });
    expect(stopButton(candidate(), 'display-1')).toBeNull(); // done
    expect(stopButton(running, null)).toBeNull(); // no control: a saved output
    const button = stopButton(running, 'display-1')!;
    const seen: IStopRequest[] = [];
    document.body.appendChild(button);
    document.body.addEventListener(STOP_EVENT, event =>
      seen.push((event as CustomEvent<IStopRequest>).detail)
    );
    button.click();
    expect(seen).toEqual([{ control: 'display-1', index: 2 }]);
    expect(button.disabled).toBe(true);
  });
});
