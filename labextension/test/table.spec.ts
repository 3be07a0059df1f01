import { afterEach, describe, expect, it, vi } from 'vitest';

import type { ITie } from '../src/schema';
import { groupLabel } from '../src/group';
import { nextEta, progressText } from '../src/progress';
import { renderRun } from '../src/render';
import { newViewState } from '../src/view';
import { candidate, expand, run, texts } from './fixtures';

function shownIndices(root: Element): number[] {
  return Array.from(
    root.querySelectorAll<HTMLElement>('tbody .jp-Z3Run-row')
  ).map(r => Number(r.dataset.index));
}

function sortBy(root: Element, key: string): void {
  root
    .querySelector<HTMLButtonElement>(`.jp-Z3Run-sort[data-sort="${key}"]`)!
    .click();
}

function filterBy(root: Element, verdict: string): void {
  const select = root.querySelector<HTMLSelectElement>('.jp-Z3Run-filter')!;
  select.value = verdict;
  select.dispatchEvent(new Event('change'));
}

const FOUR = [
  candidate({ index: 0, verdict: 'timeout', kill: 'wall', model: null }),
  candidate({ index: 1, verdict: 'sat', model: { x: 4 } }),
  candidate({ index: 2, verdict: 'runtime_error', model: null }),
  candidate({ index: 3, verdict: 'sat', model: { x: 4 } })
];
const TIMINGS = {
  elapsed_s: 2,
  timings: [
    { index: 0, wall_s: 10, cpu_s: 2.5, peak_rss_mb: 300 },
    { index: 1, wall_s: 0.5, cpu_s: 0.25, peak_rss_mb: 61 },
    { index: 2, wall_s: 0.25, cpu_s: 0.125, peak_rss_mb: 45 },
    { index: 3, wall_s: 0.75, cpu_s: 0.5, peak_rss_mb: 70 }
  ]
};

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

describe('sorting', () => {
  it('sorts by verdict in the order of verdicts.json, then reverses on a second click', () => {
    const node = renderRun(run(FOUR), TIMINGS);
    expect(shownIndices(node)).toEqual([0, 1, 2, 3]);
    sortBy(node, 'verdict');
    expect(texts(node, 'tbody .jp-Z3Run-row .jp-Z3Run-verdict')).toEqual([
      'sat',
      'sat',
      'timeout',
      'runtime_error'
    ]);
    expect(node.querySelector('th[aria-sort]')!.getAttribute('aria-sort')).toBe(
      'ascending'
    );
    sortBy(node, 'verdict');
    expect(shownIndices(node)).toEqual([2, 0, 3, 1]);
    expect(node.querySelector('th[aria-sort]')!.getAttribute('aria-sort')).toBe(
      'descending'
    );
  });

  it('sorts by time and by memory, largest first', () => {
    const node = renderRun(run(FOUR), TIMINGS);
    sortBy(node, 'wall');
    expect(shownIndices(node)).toEqual([0, 3, 1, 2]);
    sortBy(node, 'memory');
    expect(texts(node, 'tbody .jp-Z3Run-memory')).toEqual([
      '300 MB',
      '70 MB',
      '61 MB',
      '45 MB'
    ]);
    sortBy(node, 'memory');
    expect(shownIndices(node)).toEqual([2, 1, 3, 0]);
  });

  it('puts candidates without figures last, whichever the direction', () => {
    const node = renderRun(run(FOUR), { timings: TIMINGS.timings.slice(1) });
    sortBy(node, 'cpu');
    expect(shownIndices(node)).toEqual([3, 1, 2, 0]);
    sortBy(node, 'cpu');
    expect(shownIndices(node)).toEqual([2, 1, 3, 0]);
  });

  it('offers no time or memory sort without timings', () => {
    const node = renderRun(run(FOUR));
    expect(node.querySelector('.jp-Z3Run-sort[data-sort="wall"]')).toBeNull();
    expect(
      node.querySelector('.jp-Z3Run-sort[data-sort="verdict"]')
    ).not.toBeNull();
  });
});

describe('filtering', () => {
  it('shows only the chosen verdict, with counts in the choices', () => {
    const node = renderRun(run(FOUR), TIMINGS);
    expect(texts(node, '.jp-Z3Run-filter option')).toEqual([
      'all verdicts (4)',
      'sat (2)',
      'timeout (1)',
      'runtime_error (1)'
    ]);
    filterBy(node, 'sat');
    expect(shownIndices(node)).toEqual([1, 3]);
    expect(node.querySelector('.jp-Z3Run-shown')!.textContent).toBe(
      '2 rows, 2 of 4 candidates'
    );
    filterBy(node, '');
    expect(shownIndices(node)).toEqual([0, 1, 2, 3]);
  });
});

describe('identical models', () => {
  it('marks a repeated model and folds the group into one row on demand', () => {
    const node = renderRun(run(FOUR), TIMINGS);
    expect(
      node.querySelector('.jp-Z3Run-row[data-index="3"] .jp-Z3Run-group')!
        .textContent
    ).toBe(' same as #1');
    const box = node.querySelector<HTMLInputElement>(
      '.jp-Z3Run-groupToggle input'
    )!;
    expect(box.parentElement!.textContent).toBe(
      ' group identical results (3 rows)'
    );
    box.checked = true;
    box.dispatchEvent(new Event('change'));
    expect(shownIndices(node)).toEqual([0, 1, 2]);
    expect(
      node.querySelector('.jp-Z3Run-row[data-index="1"] .jp-Z3Run-group')!
        .textContent
    ).toBe(' ×2');
    expect(node.querySelector('.jp-Z3Run-shown')!.textContent).toBe(
      '3 rows, 4 of 4 candidates'
    );
  });

  it('groups sat candidates by model and payload, others by verdict and reason', () => {
    const node = renderRun(
      run([
        candidate({ index: 0, payload_hex: '4142' }),
        candidate({ index: 1, payload_hex: '41 42' }),
        candidate({ index: 2, payload_hex: '4143' }),
        candidate({ index: 3, verdict: 'unsat', model: null }),
        candidate({ index: 4, verdict: 'unsat', model: null }),
        candidate({ index: 5, verdict: 'invalid_model', model: { x: 4 } })
      ])
    );
    expect(node.querySelector('.jp-Z3Run-groupToggle')!.textContent).toContain(
      '(4 rows)'
    );
    // "same as #N" only beside a model: the second unsat row has none to share.
    expect(texts(node, 'tbody .jp-Z3Run-group')).toEqual([
      '',
      ' same as #0',
      '',
      '',
      '',
      ''
    ]);
    expect(
      renderRun(run(FOUR.slice(0, 3))).querySelector('.jp-Z3Run-groupToggle')
    ).toBeNull();
  });
});

describe('a grouped row', () => {
  it('names its seeds and shows the median of their times, with their range', () => {
    const many = Array.from({ length: 200 }, (_, index) =>
      candidate({ index, label: `seed ${index}`, model: { x: 1 } })
    );
    const timings = many.map(c => ({
      index: c.index,
      wall_s: c.index < 100 ? 0.1 : 0.3,
      cpu_s: 0.05,
      peak_rss_mb: 40 + c.index
    }));
    const node = renderRun(run(many), { elapsed_s: 3, timings });
    expect(texts(node, '.jp-Z3Run-row .jp-Z3Run-candidateLabel')).toEqual([
      'seeds 0–199 (200)'
    ]);
    const wall = node.querySelector<HTMLElement>(
      '.jp-Z3Run-row .jp-Z3Run-wall'
    )!;
    expect(wall.textContent).toBe('0.2 s');
    expect(wall.title).toBe('median of 200; range 0.1–0.3 s');
    expect(
      node.querySelector('.jp-Z3Run-row .jp-Z3Run-memory')!.textContent
    ).toBe('140 MB');
    const box = node.querySelector<HTMLInputElement>(
      '.jp-Z3Run-groupToggle input'
    )!;
    box.checked = false;
    box.dispatchEvent(new Event('change'));
    expect(
      texts(node, '.jp-Z3Run-row .jp-Z3Run-candidateLabel').slice(0, 2)
    ).toEqual(['seed 0', 'seed 1']);
    expect(
      node.querySelector('.jp-Z3Run-row .jp-Z3Run-wall')!.textContent
    ).toBe('0.1 s');
  });

  it('names gaps in its seeds, and other labels by their first ones', () => {
    const seeds = [0, 1, 2, 5, 6, 9].map(index =>
      candidate({ index, label: `header.py seed ${index}` })
    );
    const named = ['alice', 'bob', 'carol', 'dan'].map((label, index) =>
      candidate({ index, label })
    );
    expect(groupLabel(seeds)).toBe('header.py seeds 0–2, 5–6, 9 (6)');
    expect(groupLabel(named)).toBe('alice, bob, carol, … (4)');
  });
});

describe('a run of prove() calls', () => {
  it('counts and filters in its words', () => {
    const node = renderRun(
      run(
        [
          candidate({ verdict: 'unsat', model: null, shown: 'proved' }),
          candidate({ index: 1, shown: 'counterexample' })
        ],
        { words: { sat: 'counterexample', unsat: 'proved' } }
      )
    );
    // As the kernel's captions count them: most common first, the earliest row's first.
    expect(node.querySelector('.jp-Z3Run-counts')!.textContent).toContain(
      '1 proved, 1 counterexample'
    );
    expect(texts(node, '.jp-Z3Run-filter option')).toEqual([
      'all verdicts (2)',
      'counterexample (1)',
      'proved (1)'
    ]);
  });
});

describe('labels and source previews', () => {
  it('shows a candidate column when the document has labels', () => {
    const node = renderRun(
      run([
        candidate({ index: 0, label: 'gpt', source_preview: 's.add(x > 3)' }),
        candidate({ index: 1, label: null })
      ])
    );
    expect(texts(node, 'thead th')).toContain('candidate');
    expect(texts(node, '.jp-Z3Run-candidateLabel')).toEqual(['gpt', '#1']);
    expect(texts(node, '.jp-Z3Run-source')).toEqual(['s.add(x > 3)']);
    expect(expand(node, 0).textContent).toContain('sources.add(x > 3)');
  });

  it('leaves the column out for documents without labels', () => {
    expect(texts(renderRun(run(FOUR)), 'thead th')).not.toContain('candidate');
  });
});

describe('a run still going', () => {
  const live = () =>
    run(
      [
        candidate({ index: 0, verdict: 'sat' }),
        candidate({ index: 1, verdict: null, state: 'running', model: null }),
        candidate({ index: 2, verdict: null, state: 'queued', model: null })
      ],
      { finished: false }
    );

  it('shows done/total, the running count, the elapsed time and a bar', () => {
    const node = renderRun(live(), { elapsed_s: 1.5 });
    const bar = node.querySelector('[role="progressbar"]')!;
    expect(bar.getAttribute('aria-valuenow')).toBe('1');
    expect(bar.getAttribute('aria-valuemax')).toBe('3');
    expect(node.querySelector('.jp-Z3Run-progressText')!.textContent).toBe(
      '1/3 done · 1 running · 1.5 s elapsed · 0.67/s · about 3 s left'
    );
    expect(
      node.querySelector('.jp-Z3Run-summary .jp-Z3Run-verdict')!.textContent
    ).toBe('pending');
    expect(texts(node, 'tbody .jp-Z3Run-verdict')).toEqual([
      'sat',
      'running',
      'queued'
    ]);
  });

  it('reads an explicit progress field, and shows no bar once finished', () => {
    const node = renderRun({ ...live(), progress: { done: 2, total: 3 } });
    expect(
      node.querySelector('[role="progressbar"]')!.getAttribute('aria-valuenow')
    ).toBe('2');
    expect(renderRun(run(FOUR)).querySelector('.jp-Z3Run-progress')).toBeNull();
    expect(
      renderRun({ ...run(FOUR), finished: undefined }).querySelector(
        '.jp-Z3Run-progress'
      )
    ).toBeNull();
  });

  it("keeps the user's filter, sort and open rows across updates of the same output", () => {
    const state = newViewState();
    const first = renderRun(live(), {}, state);
    filterBy(first, 'sat');
    sortBy(first, 'verdict');
    expand(first, 0);
    const second = renderRun(run(FOUR), TIMINGS, state);
    expect(shownIndices(second)).toEqual([1, 3]);
    expect(second.querySelector('.jp-Z3Run-filter')!).toHaveProperty(
      'value',
      'sat'
    );
    expect(second.querySelector('th[aria-sort]')!.textContent).toBe('verdict');
    filterBy(second, '');
    expect(
      (
        second.querySelector('.jp-Z3Run-row[data-index="0"]')!
          .nextElementSibling as HTMLElement
      ).hidden
    ).toBe(false);
  });
});

describe('actions in the detail', () => {
  it('copies the model as JSON', async () => {
    const writeText = vi.fn((text: string) => Promise.resolve());
    vi.stubGlobal('navigator', { clipboard: { writeText } });
    const node = renderRun(
      run([candidate({ model: { x: 4, r: { fraction: [1, 2] } } })])
    );
    const button = expand(node, 0).querySelector<HTMLButtonElement>(
      '.jp-Z3Run-copyModel'
    )!;
    button.click();
    await vi.waitFor(() => expect(button.textContent).toBe('Copied'));
    expect(JSON.parse(writeText.mock.calls[0][0])).toEqual({
      x: 4,
      r: { fraction: [1, 2] }
    });
  });

  it('downloads the payload as a file named after the candidate', async () => {
    const blobs: Blob[] = [];
    const names: string[] = [];
    vi.stubGlobal('URL', {
      createObjectURL: (blob: Blob) => {
        blobs.push(blob);
        return 'blob:test';
      },
      revokeObjectURL: () => undefined
    });
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (
      this: HTMLAnchorElement
    ) {
      names.push(this.download);
    });
    const node = renderRun(
      run([candidate({ label: 'answers[2]', payload_hex: '00ff41' })])
    );
    const button = expand(node, 0).querySelector<HTMLButtonElement>(
      '.jp-Z3Run-downloadPayload'
    )!;
    button.click();
    await vi.waitFor(() => expect(button.textContent).toBe('Downloaded'));
    expect(names).toEqual(['payload-answers_2.bin']);
    expect(Array.from(new Uint8Array(await blobs[0].arrayBuffer()))).toEqual([
      0, 255, 65
    ]);
  });

  it('folds a long stderr and shows all of it on request', () => {
    const stderr = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join(
      '\n'
    );
    const node = renderRun(
      run([candidate({ verdict: 'runtime_error', stderr })])
    );
    const detail = expand(node, 0);
    const pre = detail.querySelector('.jp-Z3Run-stderr')!;
    expect(pre.textContent).not.toContain('line 30');
    const button = detail.querySelector<HTMLButtonElement>(
      '.jp-Z3Run-expandStream'
    )!;
    expect(button.textContent).toBe('Show all 30 lines');
    button.click();
    expect(pre.textContent).toBe(stderr);
    expect(button.getAttribute('aria-expanded')).toBe('true');
  });

  it('puts the payload error in the reason column', () => {
    const node = renderRun(
      run([
        candidate({
          reason: '',
          payload_error: 'payload() returned str, not bytes'
        })
      ])
    );
    expect(node.querySelector('.jp-Z3Run-reason')!.textContent).toBe(
      '(payload: payload() returned str, not bytes)'
    );
  });
});

describe('what the document says about itself', () => {
  it("follows the document's columns, order and titles", () => {
    const columns = [
      { key: 'index', title: '#' },
      { key: 'verdict', title: 'verdict' },
      { key: 'peak_rss_mb', title: 'memory' },
      { key: 'reason', title: 'why' },
      { key: 'something_new', title: 'later' }
    ];
    const node = renderRun(run(FOUR, { columns }), TIMINGS);
    expect(texts(node, 'thead th')).toEqual(['#', 'verdict', 'memory', 'why']);
    expect(
      node.querySelectorAll('.jp-Z3Run-row[data-index="0"] td')
    ).toHaveLength(4);
  });

  it('shows no figures for a candidate not done yet', () => {
    const doc = run(
      [
        candidate({ index: 0, verdict: 'sat' }),
        candidate({ index: 1, verdict: null, state: 'queued', model: null })
      ],
      { finished: false }
    );
    const timings = [
      { index: 0, wall_s: 0.5, cpu_s: 0.25, peak_rss_mb: 61 },
      { index: 1, wall_s: 0, cpu_s: 0, peak_rss_mb: 0 }
    ];
    const node = renderRun(doc, { timings });
    expect(texts(node, '.jp-Z3Run-wall')).toEqual(['0.5 s', '']);
  });

  it('shows a tie as a tie, with its rule', () => {
    const tie: ITie = {
      sat: 1,
      unsat: 1,
      winner: 'sat',
      rule: 'the first decisive answer wins'
    };
    const node = renderRun(run(FOUR.slice(0, 2), { tie }));
    expect(node.querySelector('.jp-Z3Run-tie')!.textContent).toBe(
      'tie 1 sat / 1 unsat → sat: the first decisive answer wins'
    );
  });

  it('shows a candidate displayed alone as that candidate, not as a vote', () => {
    const alone = run([candidate({ index: 1, label: 'b', stderr: 'oops' })], {
      view: 'candidate'
    });
    const node = renderRun(alone);
    expect(node.querySelector('.jp-Z3Run-summary')!.textContent).toBe(
      'candidatebsat'
    );
    expect(node.querySelector('.jp-Z3Run-table')).toBeNull();
    expect(node.querySelector('.jp-Z3Run-stderr')!.textContent).toBe('oops');
  });
});

describe('the reason column', () => {
  it('never cuts a message or a limit, whatever its length', () => {
    const reason =
      'MemoryError while building a very large list of integer terms for the solver (memory limit 512 MB)';
    const node = renderRun(
      run([candidate({ verdict: 'memory_limit', reason })])
    );
    const cell = node.querySelector('.jp-Z3Run-reason .jp-Z3Run-reasonText')!;
    expect(cell.textContent).toBe(reason);
    expect(cell.getAttribute('title')).toBe(reason);
    expect(cell.querySelector('.jp-Z3Run-reasonMore')).toBeNull();
  });

  it("shows the kernel's cut, the whole reason one click away", () => {
    const whole =
      "NameError: name 'zz' is not defined (line 4: `print(zz + a_rather_long_expression_of_the_script)`)\nScript traceback, innermost last:\n  line 4 in <module>";
    const short =
      "NameError: name 'zz' is not defined (line 4: `print(zz + a…`)";
    const node = renderRun(
      run([
        candidate({
          verdict: 'runtime_error',
          reason: whole,
          reason_shown: whole,
          cells: { reason: short, kill: '', model: '' }
        })
      ])
    );
    const line = node.querySelector('td.jp-Z3Run-reason .jp-Z3Run-reasonText')!;
    const text = line.querySelector('.jp-Z3Run-reasonShort')!;
    expect(text.textContent).toBe(short);
    const more = line.querySelector<HTMLButtonElement>('.jp-Z3Run-reasonMore')!;
    more.click();
    expect(text.textContent).toBe(whole);
    expect(more.getAttribute('aria-expanded')).toBe('true');
    more.click();
    expect(text.textContent).toBe(short);
  });
});

describe('a long run', () => {
  it('draws the first page of rows, and all of them on request', () => {
    const many = Array.from({ length: 120 }, (_, index) =>
      candidate({
        index,
        verdict: index % 3 === 0 ? 'unsat' : 'sat',
        model: { x: index }
      })
    );
    const state = newViewState();
    state.grouped = false;
    const node = renderRun(run(many), undefined, state);
    expect(node.querySelectorAll('tbody .jp-Z3Run-row')).toHaveLength(50);
    const more = node.querySelector<HTMLButtonElement>('.jp-Z3Run-more')!;
    expect(more.textContent).toBe('Show all 120 rows (70 more)');
    more.click();
    expect(node.querySelectorAll('tbody .jp-Z3Run-row')).toHaveLength(120);
    filterBy(node, 'unsat');
    expect(node.querySelectorAll('tbody .jp-Z3Run-row')).toHaveLength(40);
    expect(more.hidden).toBe(true);
    expect(
      renderRun(run(many.slice(0, 3))).querySelector<HTMLElement>(
        '.jp-Z3Run-more'
      )!.hidden
    ).toBe(true);
  });
});

describe('keyboard', () => {
  it("keeps a control's plain keys from the notebook's shortcuts, not Ctrl+S or Escape", () => {
    const node = renderRun(run(FOUR), TIMINGS);
    document.body.appendChild(node);
    expand(node, 1);
    const seen: string[] = [];
    const listener = (event: KeyboardEvent): void => {
      seen.push(`${event.ctrlKey ? 'Ctrl+' : ''}${event.key}`);
    };
    document.addEventListener('keydown', listener);
    const controls = Array.from(
      node.querySelectorAll<HTMLElement>('button, select, input')
    );
    expect(controls.length).toBeGreaterThan(8);
    for (const control of controls) {
      for (const init of [
        { key: 'ArrowDown' },
        { key: 'a' },
        { key: 's', ctrlKey: true },
        { key: 'Escape' }
      ]) {
        control.dispatchEvent(
          new KeyboardEvent('keydown', { ...init, bubbles: true })
        );
      }
    }
    document.removeEventListener('keydown', listener);
    node.remove();
    expect(seen).toEqual(controls.flatMap(() => ['Ctrl+s', 'Escape']));
  });
});

describe('the estimate of the time left', () => {
  it('is smoothed when two candidates finish together, and grows at once when none does', () => {
    const doc = (done: number) =>
      run(
        Array.from({ length: 10 }, (_, index) =>
          index < done
            ? candidate({ index })
            : candidate({ index, verdict: null, state: 'running', model: null })
        ),
        { finished: false, progress: { done, total: 10 } }
      );
    const first = nextEta(undefined, doc(2), { elapsed_s: 10 });
    expect(progressText(doc(2), { elapsed_s: 10 }, first)).toContain(
      'about 40 s left'
    );
    const burst = nextEta(first, doc(4), { elapsed_s: 11 });
    // measured: 4 in 11 s, 16 s left; smoothed: 24 s, not a jump from 40 to 16
    expect(progressText(doc(4), { elapsed_s: 11 }, burst)).toContain(
      'about 24 s left'
    );
    expect(progressText(doc(4), { elapsed_s: 40 }, burst)).toContain(
      'about 1 min 00 s left'
    );
    expect(nextEta(burst, doc(4), { elapsed_s: 12 })).toBe(burst);
  });
});
