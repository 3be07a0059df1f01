/**
 * The status-bar item: while the current notebook runs a Z3 Sandbox kernel, it
 * shows the isolation that kernel reports in its kernel_info reply.
 */

import type { ISessionContext } from '@jupyterlab/apputils';
import type { Kernel, KernelMessage } from '@jupyterlab/services';
import { ISignal, Signal } from '@lumino/signaling';
import { Widget } from '@lumino/widgets';

import {
  CHECKING_TEXT,
  isolationText,
  isolationTitle,
  isZ3SandboxKernel
} from './kernelinfo';

/** Statuses after which the kernel_info reply is read again. */
const RESTARTING: ReadonlySet<Kernel.Status> = new Set([
  'restarting',
  'autorestarting',
  'starting'
]);

export class IsolationStatus extends Widget {
  constructor() {
    super();
    this.addClass('jp-Z3SandboxStatus');
    this.node.textContent = isolationText();
  }

  get active(): boolean {
    return this._active;
  }

  get activeChanged(): ISignal<this, void> {
    return this._activeChanged;
  }

  /** Follow another notebook's session, or none. */
  watch(context: ISessionContext | null): void {
    if (this._context) {
      this._context.kernelChanged.disconnect(this._onKernelChanged, this);
      this._context.statusChanged.disconnect(this._onStatus, this);
    }
    this._context = context;
    if (context) {
      context.kernelChanged.connect(this._onKernelChanged, this);
      context.statusChanged.connect(this._onStatus, this);
    }
    void this._refresh(false);
  }

  dispose(): void {
    this.watch(null);
    super.dispose();
  }

  private _onKernelChanged(): void {
    void this._refresh(false);
  }

  private _onStatus(_: ISessionContext, status: Kernel.Status): void {
    if (RESTARTING.has(status)) {
      this._stale = true;
      if (this._active) {
        this.node.textContent = CHECKING_TEXT;
      }
    } else if (status === 'idle' && this._stale) {
      this._stale = false;
      void this._refresh(true);
    }
  }

  /** Read the reply; after a restart ask again, since `kernel.info` keeps the first one. */
  private async _refresh(ask: boolean): Promise<void> {
    const generation = ++this._generation;
    const kernel = this._context?.session?.kernel ?? null;
    if (!kernel) {
      this._show(false);
      return;
    }
    if (isZ3SandboxKernel(kernel.name)) {
      this._show(true);
      this.node.textContent = CHECKING_TEXT; // not "none" while the kernel probes
    }
    let reply: KernelMessage.IInfoReply | undefined;
    try {
      if (ask) {
        const content = (await kernel.requestKernelInfo())?.content;
        reply = content?.status === 'ok' ? content : undefined;
      } else {
        reply = await kernel.info;
      }
    } catch {
      reply = undefined; // a dead kernel: the spec name alone decides
    }
    if (generation === this._generation) {
      this._show(isZ3SandboxKernel(kernel.name, reply), reply);
    }
  }

  private _show(active: boolean, reply?: KernelMessage.IInfoReply): void {
    this.node.textContent = isolationText(reply);
    this.node.title = isolationTitle(reply);
    if (active !== this._active) {
      this._active = active;
      this._activeChanged.emit();
    }
  }

  private _active = false;
  private _activeChanged = new Signal<this, void>(this);
  private _context: ISessionContext | null = null;
  private _generation = 0;
  private _stale = false;
}
