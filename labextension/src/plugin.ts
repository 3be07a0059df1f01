/** The front-end plugin: registers the isolation status-bar item. */

import {
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { INotebookTracker } from '@jupyterlab/notebook';
import { IStatusBar } from '@jupyterlab/statusbar';

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
