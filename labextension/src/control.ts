/**
 * Stop one candidate while its run goes.  The result view (a MIME renderer, which has no
 * kernel) raises a `z3sandbox-stop` DOM event from the row's button; the plugin, which knows
 * each notebook's kernel, turns it into a `z3sandbox_stop_request` on the control channel
 * (jupyter/kernel.py), which ipykernel serves while the cell still runs.
 */

import type { Kernel, KernelMessage } from '@jupyterlab/services';

import { control } from './dom';
import { ICandidate, stateLabel } from './schema';

import { IStopRequest, STOP_EVENT } from './kernelinfo';

export { IStopRequest, STOP_EVENT };

/** The row's Stop (running) or Skip (queued) button, or null when there is nothing to stop. */
export function stopButton(
  candidate: ICandidate,
  controlId: string | null | undefined
): HTMLButtonElement | null {
  const state = stateLabel(candidate);
  if (!controlId || (state !== 'running' && state !== 'queued')) {
    return null;
  }
  const running = state === 'running';
  const button = control(
    'button',
    'jp-Z3Run-action jp-Z3Run-stop',
    running ? 'Stop' : 'Skip'
  );
  button.title = running
    ? 'Stop this candidate; the others go on'
    : 'Do not run this candidate; the others go on';
  button.addEventListener('click', () => {
    button.disabled = true;
    button.textContent = running ? 'Stopping…' : 'Skipping…';
    const detail: IStopRequest = { control: controlId, index: candidate.index };
    button.dispatchEvent(
      new CustomEvent<IStopRequest>(STOP_EVENT, { bubbles: true, detail })
    );
  });
  return button;
}

/** Send the stop request to `kernel` on its control channel. */
export function sendStop(
  kernel: Kernel.IKernelConnection,
  request: IStopRequest
): void {
  const message = {
    channel: 'control',
    content: { ...request },
    header: {
      date: new Date().toISOString(),
      msg_id: `z3sandbox-stop-${Date.now()}-${request.index}`,
      msg_type: 'z3sandbox_stop_request',
      session: kernel.clientId,
      username: kernel.username,
      version: '5.3'
    },
    metadata: {},
    parent_header: {}
  } as unknown as KernelMessage.IControlMessage<'debug_request'>;
  // The kernel publishes no idle status for this request (a Stop must not show the kernel Idle
  // while its cell runs: jupyter/kernel.py), so the request ends with its reply.
  const future = kernel.sendControlMessage(message, true, false);
  future.onReply = () => future.dispose();
}
