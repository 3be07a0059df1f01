import type { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { describe, expect, it, vi } from 'vitest';

import { MIME_TYPE } from '../src/schema';
import { candidate, run } from './fixtures';

function model(data: unknown, metadata: unknown = {}): IRenderMime.IMimeModel {
  return {
    trusted: false,
    data: { [MIME_TYPE]: data },
    metadata: { [MIME_TYPE]: metadata },
    setData: () => undefined
  } as unknown as IRenderMime.IMimeModel;
}

describe('RunRenderer', () => {
  it("keeps the user's filter when the same output is updated in place", async () => {
    // @lumino/dragdrop (loaded by @lumino/widgets) needs DragEvent, which jsdom lacks.
    (globalThis as Record<string, unknown>).DragEvent ??= class extends (
      MouseEvent
    ) {};
    const { RunRenderer } = await import('../src/mime');
    const renderer = new RunRenderer({
      mimeType: MIME_TYPE,
      sanitizer: {},
      resolver: null,
      linkHandler: null,
      latexTypesetter: null
    } as unknown as IRenderMime.IRendererOptions);
    const live = run(
      [
        candidate({ index: 0, verdict: 'sat' }),
        candidate({ index: 1, verdict: null, state: 'running', model: null })
      ],
      { finished: false }
    );
    await renderer.renderModel(model(live, { elapsed_s: 0.5 }));
    expect(
      renderer.node.querySelector('.jp-Z3Run-progressText')!.textContent
    ).toBe('1/2 done · 1 running · 0.5 s elapsed · 2.0/s · about 1 s left');
    const select =
      renderer.node.querySelector<HTMLSelectElement>('.jp-Z3Run-filter')!;
    select.value = 'sat';
    select.dispatchEvent(new Event('change'));

    const final = run([
      candidate({ index: 0, verdict: 'sat' }),
      candidate({ index: 1, verdict: 'unsat', model: null })
    ]);
    await renderer.renderModel(model(final));
    expect(renderer.node.querySelectorAll('.jp-Z3Run')).toHaveLength(1);
    expect(renderer.node.querySelector('.jp-Z3Run-progress')).toBeNull();
    const rows = renderer.node.querySelectorAll<HTMLElement>(
      'tbody .jp-Z3Run-row'
    );
    expect(Array.from(rows).map(r => r.dataset.index)).toEqual(['0']);
    renderer.dispose();
  });
});

describe('a live run between refreshes', () => {
  it('ticks the elapsed time, rate and time left from the run start', async () => {
    (globalThis as Record<string, unknown>).DragEvent ??= class extends (
      MouseEvent
    ) {};
    vi.useFakeTimers();
    try {
      const { RunRenderer, TICK_MS } = await import('../src/mime');
      const renderer = new RunRenderer({
        mimeType: MIME_TYPE
      } as unknown as IRenderMime.IRendererOptions);
      const live = run(
        [
          candidate({ index: 0, verdict: 'sat' }),
          candidate({ index: 1, verdict: null, state: 'running', model: null })
        ],
        { finished: false }
      );
      await renderer.renderModel(model(live, { elapsed_s: 2 }));
      const line = (): string =>
        renderer.node.querySelector('.jp-Z3Run-progressText')!.textContent!;
      expect(line()).toBe(
        '1/2 done · 1 running · 2.0 s elapsed · 0.50/s · about 2 s left'
      );
      vi.advanceTimersByTime(8 * TICK_MS); // no refresh from the kernel meanwhile
      expect(line()).toBe(
        '1/2 done · 1 running · 4.0 s elapsed · 0.25/s · about 4 s left'
      );
      await renderer.renderModel(model(run(live.candidates), {}));
      vi.advanceTimersByTime(8 * TICK_MS);
      expect(renderer.node.querySelector('.jp-Z3Run-progressText')).toBeNull();
      renderer.dispose();
    } finally {
      vi.useRealTimers();
    }
  });
});
