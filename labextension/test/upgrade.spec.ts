import { describe, expect, it } from 'vitest';

import { fitReason } from '../src/older-rows';
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

  it("leaves the output's own data as it was saved", () => {
    const saved = structuredClone(OLDER);
    parseRun(saved);
    expect(saved).toEqual(OLDER);
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

describe("an older row's reason, fitted as reasons.fit_reason fits it", () => {
  // Expected: what z3sandbox_kernel.presentation.reasons.fit_reason returns for the same text.
  const error =
    "NameError: name 'an_undefined_name_that_is_long' is not defined (line 12 [candidate line 2], column 4: `print(an_undefined_name_that_is_long + x.as_long() + y)`)";
  const place =
    "NameError: name 'an_undefined_name_that_is_long' is not defined (line 12 [candidate line 2], column 4";

  it('cuts the quoted source line first, keeping its place', () => {
    expect(fitReason(error, 130)).toBe(
      `${place}: \`print(an_undefined_name…\`)`
    );
    expect(fitReason(error, 150)).toBe(
      `${place}: \`print(an_undefined_name_that_is_long + x.as…\`)`
    );
  });

  it('drops a source line too short to keep, never the "(line N" place nor the message', () => {
    expect(fitReason(error, 60)).toBe(`${place})`);
    expect(
      fitReason(
        'SyntaxError: \'(\' was never closed (line 1, column 12: `x, y = Ints("x y"`) and the message goes on for quite a while longer',
        60
      )
    ).toBe(
      "SyntaxError: '(' was never closed (line 1, column 12) and the message goes on for quite a while longer"
    );
  });

  it('leaves a reason that fits as it is', () => {
    expect(fitReason('ValueError: short (line 3: `x`)', 60)).toBe(
      'ValueError: short (line 3: `x`)'
    );
  });

  it('is the cell an older document gets, the whole reason one click away', () => {
    const parsed = parseRun({
      ...OLDER,
      candidates: [
        { index: 0, verdict: 'runtime_error', reason: error, kill: null }
      ]
    });
    const row = parsed.ok ? parsed.run.candidates[0] : null;
    expect(row?.cells?.reason).toBe(`${place})`);
    expect(row?.reason_shown).toBe(error);
    expect(row?.shown).toBe('runtime_error');
  });
});

describe('a live row of a document older than states', () => {
  it('waits: its state is "queued", as row_details.state_label says', () => {
    const parsed = parseRun({
      ...OLDER,
      finished: false,
      candidates: [{ ...OLDER.candidates[0], verdict: null }]
    });
    const row = parsed.ok ? parsed.run.candidates[0] : null;
    expect(row?.state).toBe('queued');
    expect(row?.shown).toBe('queued');
  });
});

describe('a row older than its cells, in a run that has its texts', () => {
  it('gets the texts beside its cells too (its core)', () => {
    const parsed = parseRun({ ...OLDER, counts_shown: '1 unsat' });
    const row = parsed.ok ? parsed.run.candidates[0] : null;
    expect(row?.cells?.core).toBe('line 4: x > 1');
    expect(parsed.ok && parsed.run.counts_shown).toBe('1 unsat');
  });
});
