/**
 * The MIME renderer extension for `application/vnd.z3sandbox.run+json`.  It
 * needs no kernel, so a saved notebook shows the same table when reopened.
 */

import { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { Widget } from '@lumino/widgets';

import { renderRun } from './render';
import { MIME_TYPE } from './schema';
import { IViewState, newViewState } from './view';

export class RunRenderer extends Widget implements IRenderMime.IRenderer {
  constructor(options: IRenderMime.IRendererOptions) {
    super();
    this._mimeType = options.mimeType;
    this.addClass('jp-Z3RunRenderer');
  }

  renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    const metadata = model.metadata[this._mimeType];
    // A live run updates this output in place (same display): keep the user's choices.
    this.node.replaceChildren(
      renderRun(model.data[this._mimeType], metadata, this._state)
    );
    return Promise.resolve();
  }

  private _mimeType: string;
  private _state: IViewState = newViewState();
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
