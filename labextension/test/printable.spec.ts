import { describe, expect, it, vi } from 'vitest';

import { printable } from '../src/printable';
import { renderRun } from '../src/render';
import { candidate, expand, run } from './fixtures';
// As text, then JSON.parse: Vite's JSON import refuses a lone surrogate, which is one of the cases.
import sharedText from '../../tests/data/printable_cases.json?raw';

const shared = JSON.parse(sharedText) as {
  cases: { text: string; keep: string; shown: string }[];
};

describe('printable', () => {
  it('shows each shared case as the Python rule does', () => {
    expect(shared.cases.length).toBeGreaterThan(10);
    for (const { text, keep, shown } of shared.cases) {
      expect(printable(text, keep)).toBe(shown);
    }
  });
});

/** Every character the rule escapes, raw: none may reach the page or the clipboard. */
const RAW = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cs}\p{Cn}]/u;
const EVIL = 'a\u202edesrever\u2066\x1b]52;c;ZXZpbA==\x07\u200b\x85\u2028z';

function visibleText(node: Element): string {
  // Newlines and tabs of <pre> blocks are the view's own; any other raw character is not.
  return (node.textContent ?? '').replace(/[\n\t]/g, '');
}

describe('what a candidate wrote, in every part of the view', () => {
  it('is shown escaped in the row, the inline stdout and the detail', () => {
    const evil = candidate({
      index: 0,
      verdict: 'runtime_error',
      label: EVIL,
      source_preview: EVIL,
      reason: `ValueError: ${EVIL}`,
      kill: null,
      model: { [EVIL]: EVIL },
      stdout: `reversed\n${EVIL}\n`,
      stderr: EVIL,
      show_output: true,
      unsat_core: [[2, EVIL]],
      core_answer: EVIL,
      payload_error: EVIL,
      disputed: EVIL,
      further_models: [EVIL],
      objective: EVIL
    });
    const node = renderRun(
      run([evil, candidate({ index: 1 })], { notes: [EVIL] })
    );
    expand(node, 0);
    expect(visibleText(node)).not.toMatch(RAW);
    const titles = Array.from(node.querySelectorAll('[title]')).map(
      n => n.getAttribute('title') ?? ''
    );
    expect(titles.join('')).not.toMatch(RAW);
    expect(node.querySelector('.jp-Z3Run-inlineOutput')!.textContent).toContain(
      'a\\u202edesrever'
    );
  });

  it('goes to the clipboard as JSON escapes that read back to the same model', async () => {
    const writeText = vi.fn((text: string) => Promise.resolve());
    vi.stubGlobal('navigator', { clipboard: { writeText } });
    const model = { [`n\u202eame`]: `v\u202ealue\x7f\x9b\u{e0041}` };
    const node = renderRun(run([candidate({ model })]));
    const button = expand(node, 0).querySelector<HTMLButtonElement>(
      '.jp-Z3Run-copyModel'
    )!;
    button.click();
    await vi.waitFor(() => expect(button.textContent).toBe('Copied'));
    const copied = writeText.mock.calls[0][0];
    expect(copied.replace(/[\n]/g, '')).not.toMatch(RAW);
    expect(copied).toContain('n\\u202eame');
    expect(JSON.parse(copied)).toEqual(model);
  });
});
