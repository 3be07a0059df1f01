import type { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { MIME_TYPE } from '../src/schema';
import { candidate, run } from './fixtures';

// parseRun as it is, counted: each refresh's document is parsed once (live.ts), whatever the
// renderer then does with it (draw, tick, mark stale).
vi.mock('../src/schema', async original => {
  const schema = await original<typeof import('../src/schema')>();
  return { ...schema, parseRun: vi.fn(schema.parseRun) };
});

function model(data: unknown, metadata: unknown = {}): IRenderMime.IMimeModel {
  return {
    trusted: false,
    data: { [MIME_TYPE]: data },
    metadata: { [MIME_TYPE]: metadata },
    setData: () => undefined
  } as unknown as IRenderMime.IMimeModel;
}

describe('a live run', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('is parsed once a refresh: drawn, ticked and marked stale from that one parse', async () => {
    (globalThis as Record<string, unknown>).DragEvent ??= class extends (
      MouseEvent
    ) {};
    vi.useFakeTimers();
    const schema = await import('../src/schema');
    const parseRun = vi.mocked(schema.parseRun);
    const { RunRenderer, STALE_MS, TICK_MS } = await import('../src/mime');
    const renderer = new RunRenderer({
      mimeType: MIME_TYPE
    } as unknown as IRenderMime.IRendererOptions);
    const rows = [0, 1, 2].map(index =>
      candidate({ index, verdict: null, state: 'queued', model: null })
    );
    const whole = run(rows, {
      finished: false,
      progress: { done: 0, total: 3 }
    });
    parseRun.mockClear();
    await renderer.renderModel(model(whole, { elapsed_s: 1 }));
    expect(parseRun).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(8 * TICK_MS); // the progress line ticks
    expect(parseRun).toHaveBeenCalledTimes(1);
    const delta = {
      ...run([candidate({ index: 1 })], { finished: false }),
      delta: true,
      progress: { done: 1, total: 3 }
    };
    await renderer.renderModel(model(delta, { elapsed_s: 2 }));
    expect(parseRun).toHaveBeenCalledTimes(2);
    vi.advanceTimersByTime(STALE_MS + TICK_MS); // no refresh: drawn again, as incomplete
    expect(renderer.node.querySelector('.jp-Z3Run-incomplete')).not.toBeNull();
    expect(parseRun).toHaveBeenCalledTimes(2);
    const shown = renderer.node.querySelectorAll<HTMLElement>(
      'tbody .jp-Z3Run-row'
    );
    expect(shown).toHaveLength(3); // the delta's row merged into the three kept
    renderer.dispose();
  });
});
