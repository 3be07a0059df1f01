/**
 * The MIME renderer extension for `application/vnd.z3sandbox.run+json`.  It
 * needs no kernel, so a saved notebook shows the same table when reopened.
 *
 * A live run updates this output in place; the renderer is kept across updates, and so are
 * the user's choices (sort, filter, open rows) and the run (live.ts: `LiveRun`): a refresh
 * marked `delta` carries only the rows that changed, merged there into those already known,
 * and each refresh is parsed once.  A live output that has
 * not been refreshed for `STALE_MS` (the kernel refreshes it every second while the run goes)
 * stopped: saved mid-run, or its kernel is gone; it is then marked "incomplete".  Between
 * refreshes the renderer ticks the progress line itself (elapsed time, rate, time left), counting
 * from the run's start as the last refresh gave it.
 */

import { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { Widget } from '@lumino/widgets';

import { IRunView, LiveRun } from './live';
import { progressText } from './progress';
import { renderView } from './render';
import { IRun, IRunMetadata, MIME_TYPE } from './schema';
import { IViewState, newViewState } from './view';

/** A live output with no refresh for this long is shown as incomplete. */
export const STALE_MS = 5000;
/** How often the progress line's elapsed time moves between refreshes. */
export const TICK_MS = 250;

export class RunRenderer extends Widget implements IRenderMime.IRenderer {
  constructor(options: IRenderMime.IRendererOptions) {
    super();
    this._mimeType = options.mimeType;
    this.addClass('jp-Z3RunRenderer');
  }

  renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    // Merged and parsed once: the drawing, the ticks and the stale mark below all read it.
    const view = this._run.update(
      model.data[this._mimeType],
      model.metadata[this._mimeType]
    );
    this._state.stale = false;
    this._draw(view);
    window.clearTimeout(this._timer);
    this._tick(this._run.live ? view : null);
    if (this._run.live) {
      this._timer = window.setTimeout(() => {
        this._state.stale = true;
        this._tick(null);
        this._draw(view);
      }, STALE_MS);
    }
    return Promise.resolve();
  }

  dispose(): void {
    window.clearTimeout(this._timer);
    this._tick(null);
    super.dispose();
  }

  /** Tick the progress line of the live run `view` between refreshes (null: stop). */
  private _tick(view: IRunView | null): void {
    window.clearInterval(this._ticker);
    this._ticker = 0;
    if (view === null || !view.parsed.ok) {
      return;
    }
    const run: IRun = view.parsed.run;
    const meta: IRunMetadata = view.metadata;
    if (meta.elapsed_s === undefined) {
      return;
    }
    const started = performance.now() - meta.elapsed_s * 1000;
    this._ticker = window.setInterval(() => {
      const line = this.node.querySelector('.jp-Z3Run-progressText');
      if (line) {
        const elapsed_s = (performance.now() - started) / 1000;
        line.textContent = progressText(
          run,
          { ...meta, elapsed_s },
          this._state.eta
        );
      }
    }, TICK_MS);
  }

  private _draw(view: IRunView): void {
    // A live run updates this output in place (same display): keep the user's choices.
    this.node.replaceChildren(renderView(view, this._state));
  }

  private _mimeType: string;
  private _state: IViewState = newViewState();
  private _run = new LiveRun();
  private _timer = 0;
  private _ticker = 0;
}

export const rendererFactory: IRenderMime.IRendererFactory = {
  // Everything is written with textContent, so untrusted notebooks render too.
  safe: true,
  mimeTypes: [MIME_TYPE],
  createRenderer: options => new RunRenderer(options)
};

const extension: IRenderMime.IExtension = {
  id: 'z3sandbox-kernel:run-renderer',
  description:
    'Renders z3sandbox run results (verdict table, payloads, isolation).',
  rendererFactory,
  // Ahead of text/html (rank 50), which the same output carries as a fallback.
  rank: 0,
  dataType: 'json'
};

export default extension;
