import { describe, expect, it } from 'vitest';

import { parseRun } from '../src/schema';

// A document written before the kernel spelled out these fields (its limits and isolation only).
const OLDER = {
  schema: 'z3sandbox.run',
  version: 1,
  verdict: 'sat',
  counts: { sat: 1 },
  language: 'python',
  limits: { timeout_s: 5, wall_s: 10, cpu_s: 8, memory_mb: 512 },
  isolation: {
    level: 'kernel',
    layers: [
      { name: 'userns', active: true, detail: '' },
      { name: 'landlock', active: true, detail: 'ABI 7 (fs)' },
      { name: 'netns', active: false, detail: '' }
    ]
  },
  notes: [],
  interrupted: false,
  candidates: [
    {
      index: 0,
      verdict: 'unsat',
      preview: 's.add(x > 1)',
      unsat_core: [[4, 'x > 1']]
    }
  ]
};

describe('an older document', () => {
  const parsed = parseRun(OLDER);
  const run = parsed.ok ? parsed.run : null;

  it('gets the words the kernel writes now (presentation/phrases.py)', () => {
    // What phrases.isolation_summary and phrases.limits_shown say of the same values.
    expect(run?.isolation_summary).toBe(
      'kernel: userns landlock(ABI 7); missing: netns'
    );
    expect(run?.isolation_shortfall).toBe(run?.isolation_summary);
    expect(run?.limits_shown?.slice(0, 4)).toEqual([
      ['timeout', '5 s'],
      ['wall', '10 s'],
      ['cpu', '8 s'],
      ['memory', '512 MB']
    ]);
  });

  it("keeps its candidate's preview and core lines", () => {
    expect(run?.candidates[0].source_preview).toBe('s.add(x > 1)');
    expect(run?.candidates[0].core_places).toEqual(['line 4']);
  });

  it('is read with a wrong-typed field left at its default, not taken as it is', () => {
    const odd = parseRun({
      ...OLDER,
      verdict: 42,
      counts: { sat: 'one' },
      isolation: 'kernel'
    });
    expect(odd.ok && odd.run.verdict).toBe('unknown');
    expect(odd.ok && odd.run.counts).toEqual({});
    expect(odd.ok && odd.run.isolation_summary).toBe('unknown');
  });
});
