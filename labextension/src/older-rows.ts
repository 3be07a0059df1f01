/**
 * A row of an older document, spelled out as the kernel spells it now (upgrade.ts calls these):
 * each function is the twin of the Python one it names, in z3sandbox_kernel/presentation
 * (reasons.py, row_details.py, phrases.py), so that an older document shows the same text as
 * the kernel shows it.  The words they use come from presentation.generated.json, which
 * tools/sync_docs.py writes from the Python.
 */

import { printable, pythonText } from './printable';
import words from './presentation.generated.json';
import type { IDocumentCandidate } from './run-schema.generated';

type Row = IDocumentCandidate;

/** reasons.SEPARATOR: the clauses of a reason. */
const SEPARATOR = '; ';
/** reasons._NOT_CONFIRMED: a verifier's words on an answer it could not confirm. */
const NOT_CONFIRMED = ['not confirmed: ', 'not confirmed ('];
/** reasons._EXCERPT: where an error is, and the source line there: " (line 12, column 4: `src`)". */
const EXCERPT =
  / \(line \d+(?: \[candidate line \d+\])?(?:, column \d+)?(?=: `.*`\))/;
/** reasons._EXCERPT_MIN: a cut source line keeps at least this many characters, or goes. */
const EXCERPT_MIN = 12;
/** row_details._QUIET_VERDICTS: rows with these verdicts show their stdout only alone. */
const QUIET = ['sat', 'unsat', 'cancelled'];
/** row_details._SMT2_CORE: an SMT-LIB (get-unsat-core) answer. */
const SMT2_CORE = /^\((?:[^()\s",]+(?: [^()\s",]+)*)?\)$/;
const PROVE_WORDS: Record<string, string> = words.prove_words;

/** Python's len(): code points, not UTF-16 units. */
function length(text: string): number {
  return Array.from(text).length;
}

/** row_details.state_label (a row of a document older than `state` with no verdict yet was
 * waiting: upgrade.ts gives it its state). */
export function stateOf(row: Row): string {
  return row.verdict ?? row.state ?? 'queued';
}

function decisive(row: Row): boolean {
  return row.verdict === 'sat' || row.verdict === 'unsat';
}

/** Python's str.splitlines() line ends (\x1c-\x1e, the file, group and record separators, too). */
// eslint-disable-next-line no-control-regex
const LINE_END = /\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/;

function stdoutLines(row: Row): string[] {
  return (row.stdout ?? '').split(LINE_END).map(line => line.trim());
}

/** vote.confirmed: a solver confirmed it (or, before `confirmed_by`, its model was verified). */
function confirmed(row: Row): boolean {
  return (
    Boolean(row.confirmed_by?.length) ||
    (row.verdict === 'sat' && row.verified === true)
  );
}

/** reasons.unconfirmed_why. */
export function unconfirmedWhy(row: Row): string | null {
  if (!decisive(row) || row.disputed || confirmed(row)) {
    return null;
  }
  const notes = (row.reason ?? '')
    .split(SEPARATOR)
    .filter(clause => NOT_CONFIRMED.some(start => clause.startsWith(start)));
  const why = notes
    .map(note =>
      note.startsWith('not confirmed: ')
        ? note.slice('not confirmed: '.length)
        : note
    )
    .join(SEPARATOR);
  return why || words.not_checked;
}

/** reasons.reason_text: who confirmed the answer, then the reason, then its payload error. */
export function reasonText(row: Row): string {
  let reason = row.reason ?? '';
  if (row.payload_error) {
    reason = `${reason} (payload: ${row.payload_error})`.trim();
  }
  if (row.confirmed_by?.length && !row.disputed) {
    return [`confirmed by ${row.confirmed_by.join(', ')}`, reason]
      .filter(Boolean)
      .join(SEPARATOR);
  }
  const why = unconfirmedWhy(row);
  if (why === null) {
    return reason;
  }
  const rest = reason
    .split(SEPARATOR)
    .filter(
      clause => clause && !NOT_CONFIRMED.some(start => clause.startsWith(start))
    );
  return [`unconfirmed: ${why}`, ...rest].join(SEPARATOR);
}

/** reasons.said_once: the clauses every answer of a finished run shares (two answers at least). */
export function saidOnce(rows: Row[]): string[] {
  if (rows.some(row => row.verdict === null || row.verdict === undefined)) {
    return [];
  }
  const answers = rows
    .filter(decisive)
    .map(row => reasonText(row).split(SEPARATOR));
  if (answers.length < 2) {
    return [];
  }
  const shared = answers
    .slice(1)
    .reduce(
      (kept, clauses) =>
        kept.filter(clause => clauses.slice(1).includes(clause)),
      answers[0].slice(1)
    );
  return answers[0].filter(clause => shared.includes(clause));
}

/** reasons.said_once_caption. */
export function saidOnceCaption(rows: Row[], shared: string[]): string {
  const answers = rows.filter(decisive).length;
  return shared.length
    ? printable(`all ${answers} answers: ${shared.join(SEPARATOR)}`)
    : '';
}

/** reasons.row_reason: `reasonText` less the clauses the caption says. */
export function rowReason(row: Row, shared: string[]): string {
  const text = reasonText(row);
  if (!shared.length || !decisive(row)) {
    return text;
  }
  return text
    .split(SEPARATOR)
    .filter(clause => !shared.includes(clause))
    .join(SEPARATOR);
}

/** reasons.headline: the first line, its white space folded, printable. */
function headline(text: string): string {
  const first = text.trim().split('\n')[0];
  return printable(first.split(/\s+/).filter(Boolean).join(' '));
}

/**
 * reasons.fit_reason: the reason's first line in `width` characters if it can be: its quoted
 * source line cut, or dropped (its place, "(line N", kept); never its message.
 */
export function fitReason(text: string, width: number): string {
  const line = headline(text);
  const place = EXCERPT.exec(line);
  if (length(line) <= width || place === null) {
    return line;
  }
  const start = place.index + place[0].length + ': `'.length;
  const end = line.lastIndexOf('`)');
  const source = line.slice(start, end);
  const keep = length(source) - (length(line) - width) - 1;
  if (keep >= EXCERPT_MIN) {
    return `${line.slice(0, start)}${Array.from(source).slice(0, keep).join('')}…${line.slice(end)}`;
  }
  return `${line.slice(0, place.index)}${place[0]}${line.slice(end + 1)}`;
}

/** phrases.shorten: white space folded, printable, cut to `width` with "…". */
function shorten(text: string, width: number): string {
  const flat = Array.from(
    printable(text.split(/\s+/).filter(Boolean).join(' '))
  );
  return flat.length <= width
    ? flat.join('')
    : flat.slice(0, width - 1).join('') + '…';
}

/** row_details.natural_key's order: `byte_2` before `byte_10`. */
export function natural(a: string, b: string): number {
  return a.localeCompare(b, 'en', { numeric: true });
}

/** row_details.model_count: its own model, the further ones, and those read at its checks. */
/** Present: neither null nor undefined (Python's `is not None` of an optional field). */
export function given(value: unknown): boolean {
  return value !== null && value !== undefined;
}

function modelCount(row: Row): number {
  const own = given(row.model) || given(row.payload_hex) ? 1 : 0;
  const checks =
    (row.checks_made ?? 0) <= 1
      ? []
      : (row.checks ?? []).filter(
          check =>
            (given(check.model) || given(check.payload_hex)) &&
            (!given(row.model) ||
              JSON.stringify(check.model) !== JSON.stringify(row.model))
        );
  return own + (row.more_models?.length ?? 0) + checks.length;
}

/** phrases.model_text with `max_bytes`: the payload in hex, else the model's pairs. */
function modelText(row: Row, maxBytes: number): string {
  if (typeof row.payload_hex === 'string') {
    const bytes = row.payload_hex.replace(/\s+/g, '').match(/../g) ?? [];
    const more = bytes.length > maxBytes ? ` … (${bytes.length} bytes)` : '';
    return bytes.slice(0, maxBytes).join(' ').toLowerCase() + more;
  }
  const pairs = Object.entries(row.model ?? {})
    .sort(([a], [b]) => natural(a, b))
    .map(([name, value]) => `${name}=${pythonText(value)}`)
    .join(', ');
  return (
    pairs +
    (row.model_omitted ? `, … ${row.model_omitted} more entries not kept` : '')
  );
}

/** phrases.model_preview: the model cell's text. */
export function modelPreview(row: Row, width: number): string {
  let text = modelText(row, width);
  const count = modelCount(row);
  if (count > 1 || (count && !text)) {
    text = text
      ? `${count} models: ${text}`
      : `${count} model${count > 1 ? 's' : ''} at its checks`;
  }
  return text ? shorten(text, width) : '';
}

/** phrases.kill_text: the kill, unless a cancelled row's reason already says it. */
export function killText(row: Row): string {
  const kill = printable(row.kill ?? '');
  return stateOf(row) === 'cancelled' && (row.reason ?? '').includes(kill)
    ? ''
    : kill;
}

/** vote.counts: whether its answer counts in the vote. */
export function counts(row: Row): boolean {
  if (!decisive(row) || row.disputed) {
    return false;
  }
  return !(
    row.verdict === 'sat' &&
    (row.verified === null || row.verified === undefined) &&
    (row.reason ?? '').startsWith(words.unverified_reason)
  );
}

/** vote.prove_word: "proved" / "counterexample" for a prove() call (its stdout says so). */
export function proveWord(row: Row): string | null {
  const word = PROVE_WORDS[row.verdict ?? ''];
  if (word === undefined || !stdoutLines(row).includes(word)) {
    return null;
  }
  return row.disputed ? words.disputed : word;
}

/** row_details.shown_verdict. */
export function shownVerdict(row: Row): string {
  const label = stateOf(row);
  if (row.verdict === null || row.verdict === undefined) {
    return label;
  }
  if (row.disputed && decisive(row)) {
    return words.disputed;
  }
  if (label === 'sat' && row.payload_error) {
    return words.no_payload;
  }
  return proveWord(row) ?? label;
}

/** row_details.shows_output: the run's only candidate, or a failed one, shows its stdout. */
export function showsOutput(row: Row, alone: boolean): boolean {
  if (!(row.stdout || row.stdout_truncated) || !row.verdict) {
    return false;
  }
  return alone || !QUIET.includes(row.verdict);
}

/** row_details.smt2_core_answer: an unsat script's (get-unsat-core) answer in its stdout. */
export function smt2CoreAnswer(row: Row): string | null {
  if (stateOf(row) !== 'unsat' || row.unsat_core?.length) {
    return null;
  }
  const lines = stdoutLines(row);
  for (let at = 1; at < lines.length; at++) {
    if (lines[at - 1] === 'unsat' && SMT2_CORE.test(lines[at])) {
      return printable(lines[at]);
    }
  }
  return null;
}

/** row_details.core_summary: the unsat core under its row, "line 3: x > 2; line 4: ...", or an
 * SMT-LIB (get-unsat-core) answer (`core_places` and `core_answer` made first). */
export function coreSummary(row: Row): string {
  if (row.unsat_core?.length) {
    return row.unsat_core
      .map(
        (entry, at) => `${row.core_places?.[at] ?? ''}: ${printable(entry[1])}`
      )
      .join('; ');
  }
  return row.core_answer ?? '';
}

const VERIFIED: Record<string, string> = {
  true: 'model verified',
  false: 'model failed verification'
};

/** row_details.confirmation: ["confirmed", "by z3 (model verified)"], else whether its model
 * was verified, else null. */
export function confirmationOf(row: Row): [string, string] | null {
  const model =
    typeof row.verified === 'boolean' ? VERIFIED[String(row.verified)] : '';
  if (row.confirmed_by?.length && !row.disputed) {
    const by = printable(row.confirmed_by.join(', '));
    return ['confirmed', `by ${by}${model ? ` (${model})` : ''}`];
  }
  return model ? ['verified', model] : null;
}
