import { describe, expect, it } from 'vitest';

import { renderRun } from '../src/render';
import { candidate, expand, run, texts } from './fixtures';

describe("a candidate's detail shows what the kernel's views show", () => {
  it("shows each model value as Python's str() of its decoded value", () => {
    // The kernel's model text for this model (presentation/phrases.model_text) reads
    // "b=True, f=False, h=1/3, n=None, s=hi, t=2, x=7": str() of each decoded value.
    const model = {
      x: 7,
      b: true,
      f: false,
      h: { fraction: [1, 3] as [number, number] },
      t: { fraction: [2, 1] as [number, number] },
      n: null,
      s: 'hi'
    };
    const node = renderRun(run([candidate({ model })]));
    const detail = expand(node, 0);
    const names = texts(detail, '.jp-Z3Run-model th');
    const values = texts(detail, '.jp-Z3Run-model td');
    expect(
      Object.fromEntries(names.map((name, at) => [name, values[at]]))
    ).toEqual({
      b: 'True',
      f: 'False',
      h: '1/3',
      n: 'None',
      s: 'hi',
      t: '2',
      x: '7'
    });
  });

  it('says a stream was cut at the output limit in the words of the text view', () => {
    // presentation/row_details.STREAM_CUT, as inline_output says it of stdout.
    const node = renderRun(
      run([
        candidate({
          verdict: 'runtime_error',
          stdout: 'head',
          stdout_truncated: true,
          stderr: 'tail',
          stderr_truncated: true
        })
      ])
    );
    const detail = expand(node, 0);
    const streams = texts(detail, '.jp-Z3Run-stdout, .jp-Z3Run-stderr');
    expect(streams).toEqual([
      'head\n… (stdout was cut at the output limit)',
      'tail\n… (stderr was cut at the output limit)'
    ]);
  });
});
