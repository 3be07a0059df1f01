import { describe, expect, it, vi } from 'vitest';

import { renderRun } from '../src/render';
import verdicts from '../../z3sandbox_kernel/protocol/verdicts.json';
import { candidate, expand, run, texts } from './fixtures';

describe('renderRun', () => {
  it('renders one row per candidate with its verdict label', () => {
    const doc = run([
      candidate({
        index: 0,
        verdict: 'sat',
        model: { x: 4, r: { fraction: [1, 2] } }
      }),
      candidate({
        index: 1,
        verdict: 'timeout',
        kill: 'wall',
        reason: 'wall limit 10 s',
        model: null
      }),
      candidate({ index: 2, verdict: 'sat' }),
      candidate({
        index: 3,
        verdict: 'runtime_error',
        reason: 'ZeroDivisionError',
        model: null
      })
    ]);
    const node = renderRun(doc);
    expect(node.querySelectorAll('.jp-Z3Run-row')).toHaveLength(4);
    expect(texts(node, '.jp-Z3Run-row .jp-Z3Run-verdict')).toEqual([
      'sat',
      'timeout',
      'sat',
      'runtime_error'
    ]);
    const badge = node.querySelector<HTMLElement>(
      '.jp-Z3Run-verdict[data-verdict="timeout"]'
    )!;
    expect(badge.style.getPropertyValue('--jp-z3run-badge-bg-light')).toBe(
      verdicts.verdicts.timeout.light.background
    );
    expect(texts(node, '.jp-Z3Run-preview')[0]).toBe('r=1/2, x=4');
    expect(texts(node, '.jp-Z3Run-kill')[1]).toBe('wall');
  });

  it('shows the vote, the counts and the isolation summary', () => {
    const node = renderRun(
      run([candidate(), candidate({ index: 1, verdict: 'unsat' })])
    );
    expect(
      node.querySelector('.jp-Z3Run-summary .jp-Z3Run-verdict')!.textContent
    ).toBe('sat');
    expect(node.querySelector('.jp-Z3Run-counts')!.textContent).toContain(
      '1 sat, 1 unsat'
    );
    const settings = node.querySelector('.jp-Z3Run-settings')!.textContent!;
    expect(settings).toContain('kernel: userns; missing: landlock');
    expect(settings).toContain('timeout5 s');
    expect(settings).toContain(
      'landlock: missing (not supported by this kernel)'
    );
  });

  it('reads a run of prove() calls in their words: the vote and the tie', () => {
    const doc = {
      ...run([
        candidate({ verdict: 'unsat', shown: 'proved' }),
        candidate({ index: 1, verdict: 'sat', shown: 'counterexample' })
      ]),
      verdict: 'sat',
      vote: 'counterexample',
      tie: {
        sat: 1,
        unsat: 1,
        winner: 'sat',
        rule: 'both answers are confirmed; a verified model is a certificate, so counterexample wins',
        words: { sat: 'counterexample', unsat: 'proved' }
      }
    };
    const node = renderRun(doc);
    const vote = node.querySelector<HTMLElement>(
      '.jp-Z3Run-summary > .jp-Z3Run-verdict'
    )!;
    expect(vote.textContent).toBe('counterexample');
    expect(vote.dataset.verdict).toBe('sat');
    expect(node.querySelector('.jp-Z3Run-tie')!.textContent).toContain(
      '1 counterexample / 1 proved → counterexample: both answers are confirmed'
    );
  });

  it("draws the kernel's cell texts, limits and isolation summary", () => {
    const node = renderRun({
      ...run([
        candidate({
          cells: {
            model: '3 models: x=1',
            reason: 'as the kernel says',
            kill: ''
          },
          further_models: ['model 2: x=2', 'model 3: x=3'],
          objective: 'maximize x = 1'
        })
      ]),
      isolation_summary: 'kernel: userns; missing: netns',
      limits_shown: [['memory', '512 MB']]
    });
    expect(texts(node, '.jp-Z3Run-preview')[0]).toBe('3 models: x=1');
    expect(texts(node, '.jp-Z3Run-reason')[0]).toContain('as the kernel says');
    expect(texts(node, '.jp-Z3Run-reason')[0]).toContain(
      'objective: maximize x = 1'
    );
    const settings = node.querySelector('.jp-Z3Run-settings')!.textContent!;
    expect(settings).toContain('kernel: userns; missing: netns');
    expect(settings).toContain('memory512 MB');
  });

  it('expands a candidate into a hex dump with offsets and ASCII', () => {
    const hex =
      Array.from({ length: 20 }, (_, i) => (0x41 + i).toString(16)).join('') +
      '00ff';
    const node = renderRun(run([candidate({ payload_hex: hex })]));
    const detail = expand(node, 0);
    expect(detail.hidden).toBe(false);
    const lines = detail
      .querySelector('.jp-Z3Run-hexdump')!
      .textContent!.split('\n');
    expect(lines[0]).toBe(
      '00000000  41 42 43 44 45 46 47 48  49 4a 4b 4c 4d 4e 4f 50  |ABCDEFGHIJKLMNOP|'
    );
    expect(lines[1].startsWith('00000010  51 52 53 54 00 ff')).toBe(true);
    expect(lines[1].endsWith('|QRST..|')).toBe(true);
    expect(detail.textContent).toContain('Payload (22 bytes)');
  });

  it('shows unsat core lines, streams and the full reason in the detail', () => {
    const long =
      'a reason that is much longer than the sixty characters the table column shows';
    const node = renderRun(
      run([
        candidate({
          verdict: 'unsat',
          model: null,
          reason: long,
          unsat_core: [
            [3, 's.add(x > 2)'],
            [4, 's.add(x < 1)']
          ],
          stdout: 'hello',
          stderr: 'warning',
          stderr_truncated: true
        })
      ])
    );
    // A document older than `cells`: its reason as the kernel says it (an unsat nobody
    // confirmed says so), whole: a message is never cut at 60 characters.
    expect(
      node.querySelector('.jp-Z3Run-reason .jp-Z3Run-reasonShort')!.textContent
    ).toBe(`unconfirmed: no checker confirmed it; ${long}`);
    expect(texts(node, 'td.jp-Z3Run-reason .jp-Z3Run-coreInline')).toEqual([
      'core: line 3: s.add(x > 2); line 4: s.add(x < 1)'
    ]);
    const detail = expand(node, 0);
    expect(texts(detail, '.jp-Z3Run-core li')).toEqual([
      'line 3s.add(x > 2)',
      'line 4s.add(x < 1)'
    ]);
    expect(detail.querySelector('.jp-Z3Run-stdout')!.textContent).toBe('hello');
    expect(detail.querySelector('.jp-Z3Run-stderr')!.textContent).toContain(
      'was cut at the output limit'
    );
    expect(detail.textContent).toContain(long);
  });

  it('shows timings from the output metadata when present', () => {
    const metadata = {
      elapsed_s: 1.5,
      timings: [{ index: 0, wall_s: 0.25, cpu_s: 0.125, peak_rss_mb: 61.5 }]
    };
    const node = renderRun(run([candidate()]), metadata);
    expect(texts(node, 'thead th')).toContain('wall');
    expect(texts(node, '.jp-Z3Run-num')).toEqual([
      '0.25 s',
      '0.125 s',
      '61.5 MB'
    ]);
    expect(node.querySelector('.jp-Z3Run-counts')!.textContent).toContain(
      '1.5 s elapsed'
    );
    expect(texts(renderRun(run([candidate()])), 'thead th')).not.toContain(
      'wall'
    );
  });

  it('says when there were no candidates', () => {
    const node = renderRun(run([]));
    expect(node.querySelector('.jp-Z3Run-empty')!.textContent).toBe(
      'No candidates were run.'
    );
    expect(node.querySelector('.jp-Z3Run-summary')!.textContent).toContain(
      '0 candidates'
    );
  });

  it('names an unsupported schema version instead of rendering nothing', () => {
    const node = renderRun({ ...run([candidate()]), version: 7 });
    expect(node.querySelector('.jp-Z3Run-message')!.textContent).toBe(
      'z3sandbox: unsupported result schema version 7; update z3sandbox-kernel'
    );
    expect(renderRun('nonsense').textContent).toContain('not a JSON object');
    expect(renderRun({ schema: 'other' }).textContent).toContain(
      'unsupported result schema other'
    );
  });

  it('writes untrusted text as text, never as markup', () => {
    const node = renderRun(
      run([candidate({ reason: '<img src=x onerror=alert(1)>' })])
    );
    expect(node.querySelector('img')).toBeNull();
    expect(node.querySelector('.jp-Z3Run-reason')!.textContent).toContain(
      '<img'
    );
  });

  it("shows a single candidate's stdout and a failed row's inline, not a quiet one's", () => {
    const alone = renderRun(
      run([candidate({ stdout: 'sat\n[x = 4]\n', show_output: true })])
    );
    expect(texts(alone, '.jp-Z3Run-inlineOutput')).toEqual(['sat\n[x = 4]']);
    expect(alone.querySelector('.jp-Z3Run-filter')).toBeNull(); // no K-way controls
    expect(alone.querySelector('.jp-Z3Run-summary')!.textContent).toContain(
      'verdict'
    );
    const several = renderRun(
      run([
        candidate({ stdout: 'quiet' }),
        candidate({
          index: 1,
          verdict: 'runtime_error',
          stdout: 'step 1',
          show_output: true
        })
      ])
    );
    expect(texts(several, '.jp-Z3Run-inlineOutput')).toEqual(['step 1']);
  });

  it('shows prove() and a payload error by what they mean', () => {
    const node = renderRun(
      run([
        candidate({ verdict: 'unsat', shown: 'proved' }),
        candidate({
          index: 1,
          shown: 'sat · no payload',
          payload_error: 'byte_0 > 255'
        })
      ])
    );
    expect(texts(node, '.jp-Z3Run-row .jp-Z3Run-verdict')).toEqual([
      'proved',
      'sat · no payload'
    ]);
    const proved = node.querySelector<HTMLElement>(
      '.jp-Z3Run-row .jp-Z3Run-verdict'
    )!;
    expect(proved.dataset.verdict).toBe('unsat');
  });

  it('offers every distinct payload in one download', () => {
    const node = renderRun(
      run([
        candidate({ payload_hex: '4142' }),
        candidate({ index: 1, payload_hex: '4142' }),
        candidate({ index: 2, payload_hex: '4344' })
      ])
    );
    expect(texts(node, '.jp-Z3Run-downloadAll')).toEqual([
      'Download all payloads (2)'
    ]);
  });

  it("zips every payload of the kernel's list, further models and checks too", async () => {
    const blobs: Blob[] = [];
    vi.stubGlobal('URL', {
      createObjectURL: (blob: Blob) => {
        blobs.push(blob);
        return 'blob:test';
      },
      revokeObjectURL: () => undefined
    });
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(
      () => undefined
    );
    const further = (hex: string) => ({
      model: {},
      payload_hex: hex,
      payload_error: null,
      verified: true
    });
    const node = renderRun(
      run(
        [
          candidate({
            payload_hex: '4142',
            more_models: [further('4143'), further('4144')]
          }),
          candidate({
            index: 1,
            payload_hex: '4142',
            more_models: [further('4145'), further('4146')],
            checks: [
              {
                verdict: 'sat',
                line: 3,
                model: {},
                payload_hex: '4147',
                payload_error: null,
                verified: true
              }
            ]
          })
        ],
        {
          payload_files: [
            {
              name: 'payload-seed_0-sha256:1.bin',
              index: 0,
              at: 'payload_hex'
            },
            {
              name: 'payload-seed_0-model-2-sha256:2.bin',
              index: 0,
              at: 'more_models/0'
            },
            {
              name: 'payload-seed_0-model-3-sha256:3.bin',
              index: 0,
              at: 'more_models/1'
            },
            {
              name: 'payload-seed_1-model-2-sha256:4.bin',
              index: 1,
              at: 'more_models/0'
            },
            {
              name: 'payload-seed_1-model-3-sha256:5.bin',
              index: 1,
              at: 'more_models/1'
            },
            {
              name: 'payload-seed_1-check-1-sha256:6.bin',
              index: 1,
              at: 'checks/0'
            }
          ]
        }
      )
    );
    const button = node.querySelector<HTMLButtonElement>(
      '.jp-Z3Run-downloadAll'
    )!;
    expect(button.textContent).toBe('Download all payloads (6)');
    button.click();
    await vi.waitFor(() => expect(blobs).toHaveLength(1));
    const zip = new Uint8Array(await blobs[0].arrayBuffer());
    const text = new TextDecoder('latin1').decode(zip);
    expect(text.match(/payload-seed_\d[-\w:]*?\.bin/g)!.slice(0, 6)).toEqual([
      'payload-seed_0-sha256:1.bin',
      'payload-seed_0-model-2-sha256:2.bin',
      'payload-seed_0-model-3-sha256:3.bin',
      'payload-seed_1-model-2-sha256:4.bin',
      'payload-seed_1-model-3-sha256:5.bin',
      'payload-seed_1-check-1-sha256:6.bin'
    ]);
    expect(text).toContain('AG'); // the check's payload, 0x41 0x47
    vi.restoreAllMocks();
    vi.unstubAllGlobals();
  });

  it('shows the payload before a long model, folded', () => {
    const model = Object.fromEntries(
      Array.from({ length: 40 }, (_, n) => [`byte_${n}`, n])
    );
    const node = renderRun(run([candidate({ model, payload_hex: '00' })]));
    const detail = expand(node, 0);
    const titles = texts(detail, '.jp-Z3Run-sectionTitle');
    expect(titles.indexOf('Payload (1 bytes)')).toBeLessThan(
      titles.indexOf('Model (40)')
    );
    const names = texts(detail, '.jp-Z3Run-model th');
    expect(names.slice(0, 3)).toEqual(['byte_0', 'byte_1', 'byte_2']);
    expect(names).toHaveLength(16);
  });

  it('says who confirmed an answer, or why it is disputed, in the detail', () => {
    const node = renderRun(
      run([
        candidate({ confirmed_by: ['z3', 'cvc5'], reason: '' }),
        candidate({
          index: 1,
          verdict: 'unsat',
          model: null,
          disputed: 'cvc5 found a model'
        })
      ])
    );
    const facts = (index: number) =>
      texts(expand(node, index), '.jp-Z3Run-facts tr');
    // "verified" said once: with who confirmed it, not in a row of its own too
    expect(facts(0)).toContain('confirmedby z3, cvc5 (model verified)');
    expect(facts(0).filter(row => row.includes('verified'))).toHaveLength(1);
    expect(facts(0).some(row => row.startsWith('disputed'))).toBe(false);
    expect(facts(1)).toContain('disputedcvc5 found a model');
    expect(facts(1).some(row => row.startsWith('confirmed'))).toBe(false);
  });

  it("shows an SMT-LIB script's own core answer in its detail", () => {
    const node = renderRun(
      run([candidate({ verdict: 'unsat', core_answer: '(a1 a3)' })])
    );
    const detail = expand(node, 0);
    expect(texts(detail, '.jp-Z3Run-sectionTitle')).toContain('Unsat core');
    expect(detail.textContent).toContain('(a1 a3)');
  });
});

describe('claims and what is said once', () => {
  it('outlines an answer nobody confirmed and says why in its row and detail', () => {
    const node = renderRun(
      run([
        candidate({
          verdict: 'unsat',
          model: null,
          reason: '',
          reason_shown: 'unconfirmed: no checker confirmed it',
          unconfirmed: 'no checker confirmed it',
          cells: {
            reason: 'unconfirmed: no checker confirmed it',
            kill: '',
            model: ''
          }
        }),
        candidate({
          index: 1,
          confirmed_by: ['z3'],
          reason_shown: 'confirmed by z3',
          cells: { reason: 'confirmed by z3', kill: '', model: 'x=4' }
        })
      ])
    );
    const badges = node.querySelectorAll('.jp-Z3Run-row .jp-Z3Run-verdict');
    expect(badges[0].classList.contains('jp-Z3Run-unconfirmed')).toBe(true);
    expect(badges[0].getAttribute('title')).toBe(
      'unconfirmed: no checker confirmed it'
    );
    expect(badges[1].classList.contains('jp-Z3Run-unconfirmed')).toBe(false);
    expect(texts(node, 'td.jp-Z3Run-reason .jp-Z3Run-reasonShort')).toEqual([
      'unconfirmed: no checker confirmed it',
      'confirmed by z3'
    ]);
    const facts = expand(node, 0).querySelector('.jp-Z3Run-facts')!;
    expect(facts.textContent).toContain(
      'reasonunconfirmed: no checker confirmed it'
    );
    expect(facts.textContent).not.toContain('—');
  });

  it('says a clause every answer shares once, in the summary', () => {
    const said =
      'all 2 answers: the script never called check(): the sandbox checked its assertions';
    const node = renderRun(
      run([candidate(), candidate({ index: 1 })], { said_once: said })
    );
    expect(
      node.querySelector('.jp-Z3Run-summary .jp-Z3Run-saidOnce')!.textContent
    ).toBe(said);
  });
});

describe('one line-number rule', () => {
  it("shows a core's places as the kernel counts them in the cell", () => {
    const node = renderRun(
      run([
        candidate({
          verdict: 'unsat',
          model: null,
          unsat_core: [
            [3, 's.add(x > 2)'],
            [4, 's.add(x < 1)']
          ],
          core_places: [
            'line 11 [candidate line 3]',
            'line 12 [candidate line 4]'
          ]
        })
      ])
    );
    expect(texts(node, 'td.jp-Z3Run-reason .jp-Z3Run-coreInline')).toEqual([
      'core: line 11 [candidate line 3]: s.add(x > 2); line 12 [candidate line 4]: s.add(x < 1)'
    ]);
    expect(texts(expand(node, 0), '.jp-Z3Run-core li')).toEqual([
      'line 11 [candidate line 3]s.add(x > 2)',
      'line 12 [candidate line 4]s.add(x < 1)'
    ]);
  });
});

describe('the texts the document carries', () => {
  it('are drawn as they are, not made again from the fields beside them', () => {
    const tie = { sat: 1, unsat: 1, winner: 'sat' as const, rule: 'r' };
    const node = renderRun(
      run(
        [
          candidate({
            cells: { core: 'CORE TEXT', reason: '' },
            confirmation: ['confirmed', 'BY WHOM'],
            unsat_core: [[3, 'x > 2']],
            core_places: ['line 3']
          }),
          candidate({ index: 1, verdict: 'unsat' })
        ],
        {
          counts_shown: 'COUNTS TEXT',
          tie,
          tie_shown: 'TIE TEXT',
          isolation: {
            level: 'kernel',
            layers: [{ name: 'netns', active: false, detail: 'x' }]
          },
          isolation_layers: ['LAYER TEXT']
        }
      )
    );
    expect(node.querySelector('.jp-Z3Run-counts')!.textContent).toContain(
      '2 candidates · COUNTS TEXT'
    );
    expect(node.querySelector('.jp-Z3Run-tie')!.textContent).toContain(
      'TIE TEXT'
    );
    expect(texts(node, '.jp-Z3Run-layers li')).toEqual(['LAYER TEXT']);
    expect(node.querySelector('.jp-Z3Run-layerOff')).not.toBeNull();
    expect(node.textContent).toContain('CORE TEXT');
    expect(expand(node, 0).textContent).toContain('BY WHOM');
  });
});
