/** The front-end plugin: registers the isolation status-bar item. */

import {
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { INotebookTracker } from '@jupyterlab/notebook';
import { IStatusBar } from '@jupyterlab/statusbar';

import { IStopRequest, STOP_EVENT } from './kernelinfo';
import { IsolationStatus } from './status';

const statusPlugin: JupyterFrontEndPlugin<void> = {
  id: 'z3sandbox-kernel:isolation-status',
  description:
    'Shows the isolation of the current Z3 Sandbox kernel in the status bar.',
  autoStart: true,
  requires: [INotebookTracker],
  optional: [IStatusBar],
  activate: (
    _app: JupyterFrontEnd,
    tracker: INotebookTracker,
    statusBar: IStatusBar | null
  ) => {
    // A result's Stop button: to the kernel of the notebook it is in.
    document.body.addEventListener(STOP_EVENT, event => {
      const target = event.target as Node;
      const panel = tracker.find(p => p.node.contains(target));
      const kernel = panel?.sessionContext.session?.kernel;
      if (kernel) {
        const detail = (event as CustomEvent<IStopRequest>).detail;
        void import('./control').then(({ sendStop }) =>
          sendStop(kernel, detail)
        );
      }
    });
    if (!statusBar) {
      return; // e.g. a front end without a status bar
    }
    const item = new IsolationStatus();
    statusBar.registerStatusItem(statusPlugin.id, {
      item,
      align: 'left',
      rank: 4,
      isActive: () => item.active,
      activeStateChanged: item.activeChanged
    });
    tracker.currentChanged.connect((_, panel) =>
      item.watch(panel?.sessionContext ?? null)
    );
    item.watch(tracker.currentWidget?.sessionContext ?? null);
  }
};

export default [statusPlugin];
