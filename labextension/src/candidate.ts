/**
 * One candidate's detail, shown when its row is opened: the outcome, the model (with a copy
 * button), the payload's hex dump (with a download button), the unsat core, and the streams
 * (long ones folded, one click to show them in full).
 */

import { actionButton, copyText, downloadBytes, safeFileName } from './actions';
import { control, el, formatNumber, keyValueTable } from './dom';
import { hexDump, hexToBytes } from './hexdump';
import words from './presentation.generated.json';
import {
  printable,
  printableJson,
  printableLines,
  pythonText
} from './printable';
import { wholeReason } from './reason';
import {
  ICandidate,
  ITiming,
  ModelValue,
  candidateLabel,
  corePlace,
  naturalCompare,
  neverRan,
  sourcePreview
} from './schema';
import { IViewState } from './view';

/** A stream longer than this many lines is folded to its first lines. */
export const STREAM_PREVIEW_LINES = 12;

/** The model's entries in natural order (`byte_2` before `byte_10`). */
export function modelEntries(candidate: ICandidate): [string, ModelValue][] {
  const model = candidate.model;
  if (!model || typeof model !== 'object') {
    return [];
  }
  return Object.entries(model)
    .sort(([a], [b]) => naturalCompare(a, b))
    .map(([name, value]) => [printable(name), value]);
}

/** A model with more entries than this shows its first ones; one click shows all. */
export const MODEL_PREVIEW_ROWS = 16;

export function shorten(text: unknown, width = 60): string {
  const flat = String(text ?? '')
    .split(/\s+/)
    .filter(Boolean)
    .join(' ');
  return flat.length <= width ? flat : flat.slice(0, width - 1) + '…';
}

/**
 * The model as JSON, the way the run document holds it (fractions as `{fraction: [n, d]}`), with
 * no character in it that a terminal or an editor would obey (a bidi override is `\u202e`).
 */
export function modelJson(candidate: ICandidate): string {
  return printableJson(JSON.stringify(candidate.model, null, 2));
}

/** The file name a payload downloads as, e.g. `payload-answers_2.bin`. */
export function payloadFileName(candidate: ICandidate): string {
  const base =
    typeof candidate.label === 'string' && candidate.label
      ? safeFileName(candidate.label, `candidate-${candidate.index}`)
      : `candidate-${candidate.index}`;
  return `payload-${base}.bin`;
}

function section(
  title: string,
  body: Node,
  ...actions: HTMLElement[]
): HTMLElement {
  const node = el('section', 'jp-Z3Run-section');
  const head = el('div', 'jp-Z3Run-sectionHead');
  head.appendChild(el('h4', 'jp-Z3Run-sectionTitle', title));
  head.append(...actions);
  node.appendChild(head);
  node.appendChild(body);
  return node;
}

function pre(text: string, className = 'jp-Z3Run-pre'): HTMLPreElement {
  return el('pre', className, text);
}

/** A "Show all" button: `show(all)` draws the folded or the whole body; the choice is kept. */
function foldToggle(
  toggle: HTMLButtonElement,
  state: IViewState,
  key: string,
  show: (all: boolean) => void
): void {
  const draw = (all: boolean): void => {
    show(all);
    toggle.setAttribute('aria-expanded', String(all));
  };
  toggle.addEventListener('click', () => {
    const all = !state.fullStreams.has(key);
    if (all) {
      state.fullStreams.add(key);
    } else {
      state.fullStreams.delete(key);
    }
    draw(all);
  });
  draw(state.fullStreams.has(key));
}

function modelSection(
  candidate: ICandidate,
  state: IViewState
): HTMLElement | null {
  const rows: [string, string][] = modelEntries(candidate).map(
    ([name, value]) => [name, printable(pythonText(value))]
  );
  if (rows.length === 0) {
    return null;
  }
  const copy = actionButton(
    'Copy as JSON',
    'jp-Z3Run-copyModel',
    () => copyText(modelJson(candidate)),
    'Copied'
  );
  copy.title = 'Copy this model to the clipboard as JSON';
  const title = `Model (${rows.length})`;
  if (rows.length <= MODEL_PREVIEW_ROWS) {
    return section(title, keyValueTable(rows, 'jp-Z3Run-model'), copy);
  }
  // A long model (a 1500-byte payload's byte_N) is folded: the payload above says it all.
  const body = el('div');
  const toggle = control('button', 'jp-Z3Run-action jp-Z3Run-expandModel');
  foldToggle(toggle, state, `${candidate.index}:model`, all => {
    body.replaceChildren(
      keyValueTable(
        all ? rows : rows.slice(0, MODEL_PREVIEW_ROWS),
        'jp-Z3Run-model'
      )
    );
    toggle.textContent = all ? 'Show less' : `Show all ${rows.length}`;
  });
  return section(title, body, copy, toggle);
}

function payloadSection(candidate: ICandidate): HTMLElement | null {
  if (typeof candidate.payload_hex !== 'string') {
    return candidate.payload_error
      ? section(
          'Payload',
          pre(`no payload: ${printable(candidate.payload_error)}`)
        )
      : null;
  }
  const bytes = hexToBytes(candidate.payload_hex);
  if (!bytes) {
    return section(
      'Payload',
      pre(`not hex: ${printable(candidate.payload_hex)}`)
    );
  }
  const name = payloadFileName(candidate);
  const download = actionButton(
    'Download',
    'jp-Z3Run-downloadPayload',
    () => {
      downloadBytes(bytes, name);
      return true;
    },
    'Downloaded'
  );
  download.title = `Save the payload as ${name}`;
  const dump = pre(hexDump(bytes).join('\n'), 'jp-Z3Run-pre jp-Z3Run-hexdump');
  return section(`Payload (${bytes.length} bytes)`, dump, download);
}

function coreSection(candidate: ICandidate): HTMLElement | null {
  if (
    !Array.isArray(candidate.unsat_core) ||
    candidate.unsat_core.length === 0
  ) {
    // An SMT-LIB script's own (get-unsat-core) answer, found in its stdout.
    return typeof candidate.core_answer === 'string' && candidate.core_answer
      ? section('Unsat core', pre(printable(candidate.core_answer)))
      : null;
  }
  const list = el('ol', 'jp-Z3Run-core');
  for (const [at, entry] of candidate.unsat_core.entries()) {
    const text = Array.isArray(entry) ? entry[1] : entry;
    const item = el('li');
    item.appendChild(el('span', 'jp-Z3Run-coreLine', corePlace(candidate, at)));
    item.appendChild(el('code', undefined, printable(text)));
    list.appendChild(item);
  }
  return section(`Unsat core (${candidate.unsat_core.length})`, list);
}

/** A sat Optimize check's objectives and their values, as the kernel wrote them. */
function objectiveSection(candidate: ICandidate): HTMLElement | null {
  if (typeof candidate.objective !== 'string' || !candidate.objective) {
    return null;
  }
  const count = Array.isArray(candidate.objectives)
    ? candidate.objectives.length
    : 1;
  return section(`Objectives (${count})`, pre(printable(candidate.objective)));
}

/** models=N: the further models, one line each, as the kernel wrote them. */
function furtherModelsSection(candidate: ICandidate): HTMLElement | null {
  const further = candidate.further_models;
  if (!Array.isArray(further) || further.length === 0) {
    return null;
  }
  return section(
    `Further models (${further.length})`,
    pre(printable(further.join('\n'), '\n'))
  );
}

function streamSection(
  name: 'stdout' | 'stderr',
  candidate: ICandidate,
  state: IViewState
): HTMLElement | null {
  const text = candidate[name];
  const truncated = candidate[`${name}_truncated`] === true;
  if (typeof text !== 'string' || (text === '' && !truncated)) {
    return null;
  }
  const shown = printableLines(text);
  const full = truncated
    ? `${shown}\n${words.stream_cut.replace('{stream}', name)}`
    : shown;
  const lines = full.split('\n');
  const body = pre(full);
  body.classList.add(`jp-Z3Run-${name}`);
  if (lines.length <= STREAM_PREVIEW_LINES) {
    return section(name, body);
  }
  const folded = `${lines.slice(0, STREAM_PREVIEW_LINES).join('\n')}\n…`;
  const toggle = control('button', 'jp-Z3Run-action jp-Z3Run-expandStream');
  foldToggle(toggle, state, `${candidate.index}:${name}`, all => {
    body.textContent = all ? full : folded;
    body.classList.toggle('jp-Z3Run-full', all);
    toggle.textContent = all ? 'Show less' : `Show all ${lines.length} lines`;
  });
  return section(`${name} (${lines.length} lines)`, body, toggle);
}

/**
 * The reason, and who stands behind the answer, each said once: "confirmed by z3 (model
 * verified)" (`confirmation`, as the kernel says it; an older document's: upgrade.ts) with the
 * candidate's own reason; or the whole reason as the views say it ("unconfirmed: why", never an
 * empty "—" for an answer) and whether its model was verified.
 */
function confirmation(candidate: ICandidate): [string, string][] {
  const rows: [string, string][] = [];
  const said = Array.isArray(candidate.confirmation)
    ? candidate.confirmation.map(String)
    : null;
  const confirmed = said?.[0] === 'confirmed';
  const reason = confirmed
    ? printable(String(candidate.reason ?? '').trim(), '\n\t')
    : wholeReason(candidate);
  if (reason || !confirmed) {
    rows.push(['reason', reason || '—']);
  }
  if (said?.length === 2) {
    rows.push([printable(said[0]), printable(said[1])]);
  }
  return rows;
}

function factsSection(candidate: ICandidate, timing?: ITiming): HTMLElement {
  const rows: [string, string][] = [];
  if (typeof candidate.label === 'string' && candidate.label) {
    rows.push(['candidate', candidateLabel(candidate)]);
  }
  const preview = sourcePreview(candidate);
  if (preview) {
    rows.push(['source', preview]);
  }
  rows.push(...confirmation(candidate));
  const optional: [string, unknown][] = [
    ['kill', candidate.kill],
    ['exit code', candidate.exit_code],
    ['signal', candidate.signal]
  ];
  for (const [name, value] of optional) {
    if (value !== null && value !== undefined) {
      rows.push([name, printable(value)]);
    }
  }
  if (candidate.disputed) {
    rows.push(['disputed', printable(candidate.disputed)]);
  }
  if (timing) {
    const figures: [string, number | undefined, string][] = [
      ['wall', timing.wall_s, 's'],
      ['cpu', timing.cpu_s, 's'],
      ['peak RSS', timing.peak_rss_mb, 'MB']
    ];
    for (const [name, value, unit] of figures) {
      rows.push([
        name,
        neverRan(candidate, value) ? '—' : formatNumber(value, unit)
      ]);
    }
  }
  return section('Outcome', keyValueTable(rows, 'jp-Z3Run-facts'));
}

/** Everything known about one candidate; built only when its row is first opened. */
export function candidateDetail(
  candidate: ICandidate,
  state: IViewState,
  timing?: ITiming
): HTMLElement {
  const detail = el('div', 'jp-Z3Run-detail');
  const sections = [
    factsSection(candidate, timing),
    payloadSection(candidate), // the payload first: for a fuzzer, it is the answer
    modelSection(candidate, state),
    furtherModelsSection(candidate),
    coreSection(candidate),
    objectiveSection(candidate),
    streamSection('stdout', candidate, state),
    streamSection('stderr', candidate, state)
  ];
  for (const node of sections) {
    if (node) {
      detail.appendChild(node);
    }
  }
  return detail;
}
