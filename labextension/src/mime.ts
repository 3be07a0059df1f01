/**
 * The MIME renderer extension for `application/vnd.z3sandbox.run+json`.  It
 * needs no kernel, so a saved notebook shows the same table when reopened.
 *
 * The renderer is the view of a `LiveRun` (live.ts), its model: a live run updates this output
 * in place, the renderer hands each refresh to the model and draws what the model says when it
 * changes (a refresh, or the run gone stale).  The user's choices (sort, filter, open rows) are
 * the view's own and outlive the refreshes.  Between refreshes the renderer ticks the progress
 * line (elapsed time, rate, time left) from the model's elapsed time.
 */

import { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { Widget } from '@lumino/widgets';

import { LiveRun } from './live';
import { progressText } from './progress';
import { renderView } from './render';
import { MIME_TYPE } from './schema';
import { IViewState, newViewState } from './view';

export { STALE_MS } from './live';
/** How often the progress line's elapsed time moves between refreshes. */
export const TICK_MS = 250;

export class RunRenderer extends Widget implements IRenderMime.IRenderer {
  constructor(options: IRenderMime.IRendererOptions) {
    super();
    this._mimeType = options.mimeType;
    this.addClass('jp-Z3RunRenderer');
    this._run.changed.connect(this._draw, this);
  }

  renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    this._run.update(
      model.data[this._mimeType],
      model.metadata[this._mimeType]
    );
    return Promise.resolve();
  }

  dispose(): void {
    window.clearInterval(this._ticker);
    this._run.dispose();
    super.dispose();
  }

  /** Draw the run as the model has it; tick its progress line while it is live and fresh. */
  private _draw(run: LiveRun): void {
    // A live run updates this output in place (same display): keep the user's choices.
    this.node.replaceChildren(renderView(run, this._state));
    window.clearInterval(this._ticker);
    this._ticker = 0;
    const shown = run.run;
    if (shown === null || !run.live || run.stale) {
      return;
    }
    this._ticker = window.setInterval(() => {
      const line = this.node.querySelector('.jp-Z3Run-progressText');
      const elapsed_s = run.elapsedAt(performance.now());
      if (line && elapsed_s !== undefined) {
        line.textContent = progressText(
          shown,
          { ...run.metadata, elapsed_s },
          run.eta
        );
      }
    }, TICK_MS);
  }

  private _mimeType: string;
  private _state: IViewState = newViewState();
  private _run = new LiveRun();
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
