import type { KernelMessage } from '@jupyterlab/services';
import { describe, expect, it } from 'vitest';

import {
  isolationText,
  isolationTitle,
  isZ3SandboxKernel
} from '../src/kernelinfo';

function reply(
  extra: object,
  implementation = 'z3sandbox'
): KernelMessage.IInfoReply {
  return {
    status: 'ok',
    protocol_version: '5.4',
    implementation,
    implementation_version: '0.1.0',
    language_info: { name: 'python', version: '3.11' },
    banner: '',
    help_links: [],
    ...extra
  } as KernelMessage.IInfoReply;
}

describe('kernel info', () => {
  it('recognises the kernel by spec name or implementation', () => {
    expect(isZ3SandboxKernel('z3sandbox')).toBe(true);
    expect(isZ3SandboxKernel('python3', reply({}))).toBe(true);
    expect(isZ3SandboxKernel('python3', reply({}, 'ipython'))).toBe(false);
    expect(isZ3SandboxKernel('python3')).toBe(false);
  });

  it('shows the summary the kernel reports, or none', () => {
    const info = {
      z3sandbox: {
        isolation: 'kernel: userns, seccomp',
        level: 'kernel',
        version: '0.1.0'
      }
    };
    expect(isolationText(reply(info))).toBe(
      'isolation: kernel: userns, seccomp'
    );
    expect(isolationTitle(reply(info))).toBe(
      'isolation: kernel: userns, seccomp\nZ3 Sandbox kernel · version 0.1.0 · isolation level: kernel'
    );
    expect(isolationText(reply({}))).toBe('isolation: none');
    expect(isolationText()).toBe('isolation: none');
  });
});
