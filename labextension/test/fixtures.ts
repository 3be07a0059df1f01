/** Run documents as `z3sandbox_kernel/presentation/render.py` writes them. */

import type { ICandidate, IRun } from '../src/schema';

export function candidate(overrides: Partial<ICandidate> = {}): ICandidate {
  return {
    index: 0,
    verdict: 'sat',
    reason: '',
    model: { x: 4 },
    payload_hex: null,
    payload_error: null,
    unsat_core: null,
    stdout: '',
    stderr: '',
    stdout_truncated: false,
    stderr_truncated: false,
    kill: null,
    exit_code: 0,
    signal: null,
    verified: true,
    ...overrides
  };
}

export function run(
  candidates: ICandidate[],
  overrides: Partial<IRun> = {}
): IRun {
  const counts: Record<string, number> = {};
  for (const c of candidates) {
    if (c.verdict !== null) {
      counts[c.verdict] = (counts[c.verdict] ?? 0) + 1;
    }
  }
  return {
    schema: 'z3sandbox.run',
    version: 1,
    verdict: candidates[0]?.verdict ?? 'unknown',
    counts,
    language: 'python',
    limits: {
      timeout_s: 5,
      wall_s: 10,
      memory_mb: 512,
      payload_max_bytes: 1048576
    },
    isolation: {
      level: 'kernel',
      layers: [
        { name: 'userns', active: true, detail: 'uid 1000 -> 0' },
        {
          name: 'landlock',
          active: false,
          error: 'not supported by this kernel'
        }
      ]
    },
    notes: [],
    interrupted: false,
    finished: true,
    candidates,
    ...overrides
  };
}

/** The text of every node matching `selector`. */
export function texts(root: Element, selector: string): string[] {
  return Array.from(root.querySelectorAll(selector)).map(
    n => n.textContent ?? ''
  );
}

/** Open a candidate's detail row by its toggle; the detail row. */
export function expand(root: Element, index: number): HTMLElement {
  const row = root.querySelector(`.jp-Z3Run-row[data-index="${index}"]`)!;
  (row.querySelector('.jp-Z3Run-toggle') as HTMLButtonElement).click();
  let next = row.nextElementSibling;
  while (next && !next.classList.contains('jp-Z3Run-detailRow')) {
    next = next.nextElementSibling;
  }
  return next as HTMLElement;
}
