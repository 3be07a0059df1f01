/**
 * What the Z3 Sandbox kernel says about itself.  Its kernel_info reply carries a
 * top-level key next to the standard ones:
 *
 *     "z3sandbox": {"isolation": "<one-line summary>", "level": "kernel" | "process",
 *                   "version": "x.y.z"}
 */

import type { KernelMessage } from '@jupyterlab/services';

export const KERNEL_SPEC_NAME = 'z3sandbox';
export const IMPLEMENTATION = 'z3sandbox';

export interface IZ3SandboxInfo {
  isolation?: string;
  level?: string;
  version?: string;
}

export type Z3InfoReply = KernelMessage.IInfoReply & {
  z3sandbox?: IZ3SandboxInfo;
};

/** A Z3 Sandbox kernel, told by its kernel spec name or, failing that, its implementation. */
export function isZ3SandboxKernel(
  specName: string,
  reply?: KernelMessage.IInfoReply
): boolean {
  return (
    specName === KERNEL_SPEC_NAME || reply?.implementation === IMPLEMENTATION
  );
}

export function sandboxInfo(reply?: KernelMessage.IInfoReply): IZ3SandboxInfo {
  const info = (reply as Z3InfoReply | undefined)?.z3sandbox;
  return typeof info === 'object' && info !== null ? info : {};
}

/** The status-bar text while the kernel starts and probes its sandbox (no reply yet). */
export const CHECKING_TEXT = 'isolation: checking…';

/** The status-bar text, e.g. "isolation: kernel (userns, netns, seccomp)". */
export function isolationText(reply?: KernelMessage.IInfoReply): string {
  const isolation = sandboxInfo(reply).isolation;
  return `isolation: ${typeof isolation === 'string' && isolation ? isolation : 'none'}`;
}

/** The tooltip: the whole summary (the item may be cut short), the level and the version. */
export function isolationTitle(reply?: KernelMessage.IInfoReply): string {
  const info = sandboxInfo(reply);
  const about = ['Z3 Sandbox kernel'];
  if (info.version) {
    about.push(`version ${info.version}`);
  }
  about.push(
    info.level ? `isolation level: ${info.level}` : 'isolation level unknown'
  );
  return `${isolationText(reply)}\n${about.join(' · ')}`;
}

/** The DOM event a result's Stop button raises; the plugin sends it to the notebook's kernel. */
export const STOP_EVENT = 'z3sandbox-stop';

/** What the stop request names: the live document's `control` id and the candidate. */
export interface IStopRequest {
  control: string;
  index: number;
}
