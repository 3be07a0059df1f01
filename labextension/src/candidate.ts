/**
 * One candidate: its summary cells in the verdict table, and the detail shown
 * when its row is expanded (model, payload hex dump, unsat core, output, reason).
 */

import { el, formatNumber, keyValueTable } from './dom';
import { hexDump, hexToBytes } from './hexdump';
import { ICandidate, ITiming, ModelValue } from './schema';

export function formatModelValue(value: ModelValue | unknown): string {
  if (
    typeof value === 'object' &&
    value !== null &&
    'fraction' in value &&
    Array.isArray(value.fraction) &&
    value.fraction.length === 2
  ) {
    const [numerator, denominator] = value.fraction as [unknown, unknown];
    return `${numerator}/${denominator}`;
  }
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The short text of the "model / payload" column. */
export function modelPreview(candidate: ICandidate, width = 40): string {
  let text = '';
  if (typeof candidate.payload_hex === 'string') {
    text = (candidate.payload_hex.match(/../g) ?? []).join(' ');
  } else if (candidate.model && typeof candidate.model === 'object') {
    text = Object.entries(candidate.model)
      .map(([name, value]) => `${name}=${formatModelValue(value)}`)
      .join(', ');
  }
  return shorten(text, width);
}

export function shorten(text: unknown, width = 60): string {
  const flat = String(text ?? '')
    .split(/\s+/)
    .filter(Boolean)
    .join(' ');
  return flat.length <= width ? flat : flat.slice(0, width - 1) + '…';
}

function section(title: string, body: Node): HTMLElement {
  const node = el('section', 'jp-Z3Run-section');
  node.appendChild(el('h4', 'jp-Z3Run-sectionTitle', title));
  node.appendChild(body);
  return node;
}

function pre(text: string, className = 'jp-Z3Run-pre'): HTMLPreElement {
  return el('pre', className, text);
}

function modelSection(candidate: ICandidate): HTMLElement | null {
  const model = candidate.model;
  if (!model || typeof model !== 'object' || Object.keys(model).length === 0) {
    return null;
  }
  const rows: [string, string][] = Object.entries(model).map(
    ([name, value]) => [name, formatModelValue(value)]
  );
  return section('Model', keyValueTable(rows, 'jp-Z3Run-model'));
}

function payloadSection(candidate: ICandidate): HTMLElement | null {
  if (typeof candidate.payload_hex !== 'string') {
    return candidate.payload_error
      ? section('Payload', pre(`no payload: ${candidate.payload_error}`))
      : null;
  }
  const bytes = hexToBytes(candidate.payload_hex);
  const body = bytes
    ? pre(hexDump(bytes).join('\n'), 'jp-Z3Run-pre jp-Z3Run-hexdump')
    : pre(`not hex: ${candidate.payload_hex}`);
  const title = bytes ? `Payload (${bytes.length} bytes)` : 'Payload';
  return section(title, body);
}

function coreSection(candidate: ICandidate): HTMLElement | null {
  if (
    !Array.isArray(candidate.unsat_core) ||
    candidate.unsat_core.length === 0
  ) {
    return null;
  }
  const list = el('ol', 'jp-Z3Run-core');
  for (const entry of candidate.unsat_core) {
    const [line, text] = Array.isArray(entry) ? entry : [null, entry];
    const item = el('li');
    item.appendChild(
      el('span', 'jp-Z3Run-coreLine', line === null ? '' : `line ${line}`)
    );
    item.appendChild(el('code', undefined, String(text)));
    list.appendChild(item);
  }
  return section(`Unsat core (${candidate.unsat_core.length})`, list);
}

function streamSection(
  name: 'stdout' | 'stderr',
  candidate: ICandidate
): HTMLElement | null {
  const text = candidate[name];
  const truncated = candidate[`${name}_truncated`] === true;
  if (typeof text !== 'string' || (text === '' && !truncated)) {
    return null;
  }
  const body = pre(
    truncated ? `${text}\n… (${name} was truncated at the output limit)` : text
  );
  body.classList.add(`jp-Z3Run-${name}`);
  return section(name, body);
}

function factsSection(candidate: ICandidate, timing?: ITiming): HTMLElement {
  const rows: [string, string][] = [
    ['reason', String(candidate.reason || '—')]
  ];
  const optional: [string, unknown][] = [
    ['kill', candidate.kill],
    ['exit code', candidate.exit_code],
    ['signal', candidate.signal],
    ['verified', candidate.verified]
  ];
  for (const [name, value] of optional) {
    if (value !== null && value !== undefined) {
      rows.push([name, String(value)]);
    }
  }
  if (timing) {
    rows.push(['wall', formatNumber(timing.wall_s, 's')]);
    rows.push(['cpu', formatNumber(timing.cpu_s, 's')]);
    rows.push(['peak RSS', formatNumber(timing.peak_rss_mb, 'MB')]);
  }
  return section('Outcome', keyValueTable(rows, 'jp-Z3Run-facts'));
}

/** Everything known about one candidate; built only when its row is first opened. */
export function candidateDetail(
  candidate: ICandidate,
  timing?: ITiming
): HTMLElement {
  const detail = el('div', 'jp-Z3Run-detail');
  const sections = [
    factsSection(candidate, timing),
    modelSection(candidate),
    payloadSection(candidate),
    coreSection(candidate),
    streamSection('stdout', candidate),
    streamSection('stderr', candidate)
  ];
  for (const node of sections) {
    if (node) {
      detail.appendChild(node);
    }
  }
  return detail;
}
