import { describe, expect, it } from 'vitest';

import { IStopRequest, STOP_EVENT, stopButton } from '../src/control';
import { LiveRows } from '../src/live';
import { crc32, zipStore } from '../src/zip';
import { candidate, run } from './fixtures';

describe('LiveRows', () => {
  it('merges a delta refresh into the rows it holds', () => {
    const rows = new LiveRows();
    const queued = (index: number) =>
      candidate({ index, verdict: null, state: 'queued' });
    const whole = run([queued(0), queued(1), queued(2)], {
      finished: false,
      progress: { done: 0, total: 3 }
    });
    rows.merge(whole, { timings: [] });
    const delta = {
      ...run([candidate({ index: 1 })], { finished: false }),
      delta: true,
      progress: { done: 1, total: 3 }
    };
    const [data, metadata] = rows.merge(delta, {
      timings: [{ index: 2, running_s: 1.5 }]
    }) as [
      { candidates: { verdict: string | null }[] },
      { timings: unknown[] }
    ];
    expect(data.candidates.map(c => c.verdict)).toEqual([null, 'sat', null]);
    expect(metadata.timings).toEqual([{ index: 2, running_s: 1.5 }]);
  });

  it('marks rows it never received as incomplete', () => {
    const [data] = new LiveRows().merge(
      {
        ...run([candidate({ index: 1 })], { finished: false }),
        delta: true,
        progress: { done: 1, total: 2 }
      },
      {}
    ) as [{ candidates: { state?: string | null }[] }, unknown];
    expect(data.candidates[0].state).toBe('incomplete');
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
