import { describe, expect, it } from 'vitest';

import { IStopRequest, STOP_EVENT, stopButton } from '../src/control';
import { LiveRun } from '../src/live';
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
    const view = live.update(delta, {
      timings: [{ index: 2, running_s: 1.5 }]
    });
    expect(view).toBe(live.view);
    expect(view.parsed.ok).toBe(true);
    const parsed = view.parsed as { ok: true; run: IRun };
    expect(parsed.run.candidates.map(c => c.verdict)).toEqual([
      null,
      'sat',
      null
    ]);
    expect(view.metadata.timings).toEqual([{ index: 2, running_s: 1.5 }]);
    live.update(run([candidate({ index: 0 })]), {});
    expect(live.live).toBe(false); // a final document replaces every row
  });

  it('marks rows it never received as incomplete', () => {
    const view = new LiveRun().update(
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
    const view = new LiveRun().update({ schema: 'other' }, null);
    expect(view.parsed.ok).toBe(false);
    expect(view.data).toEqual({ schema: 'other' });
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
