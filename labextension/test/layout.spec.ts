import { describe, expect, it } from 'vitest';

import { renderRun } from '../src/render';
import { candidate, run, texts } from './fixtures';

describe('a large run', () => {
  it('opens grouped from 20 candidates on, the toggle counting the rows it shows', () => {
    const many = Array.from({ length: 200 }, (_, index) =>
      candidate({
        index,
        label: `seed ${index}`,
        verdict: index % 10 === 0 ? 'timeout' : 'sat',
        reason: index % 10 === 0 ? 'wall-clock limit of 10 s' : '',
        model: { x: index % 7 }
      })
    );
    const node = renderRun(run(many));
    const rows = node.querySelectorAll('tbody .jp-Z3Run-row');
    expect(rows).toHaveLength(8); // 7 models, 1 timeout
    expect(node.querySelector('.jp-Z3Run-groupToggle')!.textContent).toBe(
      ' group identical results (8 rows)'
    );
    expect(node.querySelector('.jp-Z3Run-shown')!.textContent).toBe(
      '8 rows, 200 of 200 candidates'
    );
    const small = renderRun(run(many.slice(0, 19)));
    expect(small.querySelectorAll('tbody .jp-Z3Run-row')).toHaveLength(19);
  });
});

describe('what a row shows', () => {
  it('lists every model of models=N in the row, under its reason', () => {
    const node = renderRun(
      run([
        candidate({
          model: { x: 1 },
          further_models: ['model 2: x=2', 'model 3: x=3'],
          cells: { model: '3 models: x=1', reason: '', kill: '' }
        }),
        candidate({ index: 1, verdict: 'unsat', model: null })
      ])
    );
    expect(texts(node, 'td.jp-Z3Run-reason .jp-Z3Run-furtherModel')).toEqual([
      'model 2: x=2',
      'model 3: x=3'
    ]);
    // The same lines on a full-width line under the row, shown when the table is narrow.
    expect(texts(node, '.jp-Z3Run-extrasRow .jp-Z3Run-furtherModel')).toEqual([
      'model 2: x=2',
      'model 3: x=3'
    ]);
    expect(texts(node, 'thead th')).toContain('reason');
  });

  it('shows a dash, not zeros, for a candidate that never ran', () => {
    const node = renderRun(
      run([
        candidate({ index: 0, verdict: 'sat' }),
        candidate({
          index: 1,
          verdict: 'cancelled',
          model: null,
          reason: 'interrupt before it started',
          cells: { model: '', reason: 'interrupt before it started', kill: '' }
        })
      ]),
      {
        timings: [
          { index: 0, wall_s: 0.5, cpu_s: 0.25, peak_rss_mb: 60 },
          { index: 1, wall_s: 0, cpu_s: 0, peak_rss_mb: 0 }
        ]
      }
    );
    const figures = (index: number): string[] =>
      texts(node, `.jp-Z3Run-row[data-index="${index}"] .jp-Z3Run-num`);
    expect(figures(0)).toEqual(['0.5 s', '0.25 s', '60 MB']);
    expect(figures(1)).toEqual(['—', '—', '—']);
    expect(
      node.querySelector('.jp-Z3Run-row[data-index="1"] .jp-Z3Run-kill')!
        .textContent
    ).toBe('');
  });

  it('names the isolation only when the kernel says a layer is missing', () => {
    const summary = (shortfall: string): string =>
      renderRun(
        run([candidate()], { isolation_shortfall: shortfall })
      ).querySelector('.jp-Z3Run-settings > summary')!.textContent!;
    expect(summary('')).toBe('Limits and isolation');
    expect(summary('process: rlimits; missing: userns')).toBe(
      'Limits and isolation — process: rlimits; missing: userns'
    );
  });
});
