/**
 * The `application/vnd.z3sandbox.run+json` document.  Its types are generated from the Python
 * types that the kernel builds it with (`z3sandbox_kernel/protocol/document.py`, through
 * src/run-schema.generated.json: `python tools/sync_docs.py`, then any build or test), so they
 * cannot drift from what the kernel writes.  Only the schema name and version are checked
 * strictly: a field of the wrong type is shown as it is rather than hiding the whole result.
 */

import type {
  IDocumentCandidate,
  IDocumentColumn,
  IDocumentPayloadFile,
  IDocumentProgress,
  IDocumentTie,
  IDocumentTiming,
  IIsolationReport,
  ILayerReport,
  IModelDict,
  IRunDocument,
  IRunMetadata
} from './run-schema.generated';
import { printable } from './printable';
import words from './presentation.generated.json';
import { upgradeOlder } from './upgrade';
import { VERDICT_ORDER } from './verdicts';

export type {
  ICandidateError,
  IKill,
  IObjective,
  IRunMetadata
} from './run-schema.generated';

export const MIME_TYPE = 'application/vnd.z3sandbox.run+json';
export const SCHEMA_NAME: IRunDocument['schema'] = 'z3sandbox.run';
export const SCHEMA_VERSION: IRunDocument['version'] = 1;

/** The names the views use for the generated types. */
export type IRun = IRunDocument;
export type ICandidate = IDocumentCandidate;
export type IFoundModel = IModelDict;
export type IColumnSpec = IDocumentColumn;
export type IPayloadFile = IDocumentPayloadFile;
export type IProgress = IDocumentProgress;
export type ITie = IDocumentTie;
export type ITiming = IDocumentTiming;
export type ILayer = ILayerReport;
export type IIsolation = IIsolationReport;
/** A model value: JSON scalars, or an exact rational as `{fraction: [n, d]}`. */
export type ModelValue = IModelDict['model'][string];

export type ParseResult =
  { ok: true; run: IRun } | { ok: false; message: string };

type JSONish = { [key: string]: unknown };

function isObject(value: unknown): value is JSONish {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  return typeof value === 'string'
    ? value
    : (JSON.stringify(value) ?? String(value));
}

/**
 * Check the schema name and version; fill in missing containers so that the
 * renderer can rely on arrays and objects being there.
 */
export function parseRun(data: unknown): ParseResult {
  if (!isObject(data)) {
    return {
      ok: false,
      message:
        'z3sandbox: the result is not a JSON object; update z3sandbox-kernel'
    };
  }
  if (data.schema !== SCHEMA_NAME) {
    return {
      ok: false,
      message: `z3sandbox: unsupported result schema ${describe(data.schema)}; update z3sandbox-kernel`
    };
  }
  if (data.version !== SCHEMA_VERSION) {
    return {
      ok: false,
      message: `z3sandbox: unsupported result schema version ${describe(data.version)}; update z3sandbox-kernel`
    };
  }
  return { ok: true, run: upgradeOlder(validRun(data)) };
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.map(String) : [];
}

function numbers(value: unknown): Record<string, number> {
  return isObject(value)
    ? Object.fromEntries(
        Object.entries(value).filter(
          (entry): entry is [string, number] => typeof entry[1] === 'number'
        )
      )
    : {};
}

function stringPairs(value: unknown): [string, string][] | undefined {
  return Array.isArray(value)
    ? value.filter(
        (pair): pair is [string, string] =>
          Array.isArray(pair) &&
          pair.length === 2 &&
          pair.every(part => typeof part === 'string')
      )
    : undefined;
}

/** A candidate needs its index; its other fields are shown as they are. */
function isCandidate(value: unknown): value is ICandidate {
  return isObject(value) && typeof value.index === 'number';
}

function isIsolation(value: unknown): value is IIsolation {
  return (
    isObject(value) &&
    typeof value.level === 'string' &&
    Array.isArray(value.layers) &&
    value.layers.every(isObject)
  );
}

function isTie(value: unknown): value is ITie {
  return isObject(value) && typeof value.rule === 'string';
}

function isVerdict(value: unknown): value is IRun['verdict'] {
  return typeof value === 'string' && VERDICT_ORDER.includes(value);
}

/** The document's fields, each checked for the type the views rely on (a wrong one: its default). */
function validRun(data: JSONish): IRun {
  return {
    schema: SCHEMA_NAME,
    version: SCHEMA_VERSION,
    verdict: isVerdict(data.verdict) ? data.verdict : 'unknown',
    vote: typeof data.vote === 'string' ? data.vote : undefined,
    language: typeof data.language === 'string' ? data.language : 'python',
    counts: numbers(data.counts),
    limits: numbers(data.limits),
    isolation: isIsolation(data.isolation) ? data.isolation : null,
    notes: strings(data.notes),
    interrupted: data.interrupted === true,
    finished: data.finished !== false,
    delta: data.delta === true,
    control: typeof data.control === 'string' ? data.control : undefined,
    progress: parseProgress(data.progress),
    tie: isTie(data.tie) ? data.tie : null,
    view: data.view === 'candidate' ? 'candidate' : 'run',
    words: isObject(data.words)
      ? (data.words as Record<string, string>)
      : undefined,
    said_once: typeof data.said_once === 'string' ? data.said_once : undefined,
    isolation_summary:
      typeof data.isolation_summary === 'string'
        ? data.isolation_summary
        : undefined,
    isolation_shortfall:
      typeof data.isolation_shortfall === 'string'
        ? data.isolation_shortfall
        : undefined,
    limits_shown: stringPairs(data.limits_shown),
    isolation_layers: Array.isArray(data.isolation_layers)
      ? strings(data.isolation_layers)
      : undefined,
    counts_shown:
      typeof data.counts_shown === 'string' ? data.counts_shown : undefined,
    tie_shown: typeof data.tie_shown === 'string' ? data.tie_shown : undefined,
    columns: Array.isArray(data.columns)
      ? data.columns.filter(
          (c): c is IColumnSpec => isObject(c) && typeof c.key === 'string'
        )
      : undefined,
    payload_files: Array.isArray(data.payload_files)
      ? data.payload_files.filter(
          (f): f is IPayloadFile =>
            isObject(f) &&
            typeof f.name === 'string' &&
            typeof f.at === 'string'
        )
      : undefined,
    // Copies: the upgrade fills in what an older row lacks, never the output's own data.
    candidates: Array.isArray(data.candidates)
      ? data.candidates.filter(isCandidate).map(c => ({ ...c }))
      : []
  };
}

function parseProgress(value: unknown): IProgress | undefined {
  if (
    isObject(value) &&
    typeof value.done === 'number' &&
    typeof value.total === 'number'
  ) {
    return { done: value.done, total: value.total };
  }
  return undefined;
}

/** done/total, as the document says (an older document's: upgrade.ts). */
export function progressOf(run: IRun): IProgress {
  return run.progress ?? { done: 0, total: 0 };
}

/** The label a candidate is shown under: its own, or `#index`. */
export function candidateLabel(candidate: ICandidate): string {
  return typeof candidate.label === 'string' && candidate.label
    ? printable(candidate.label)
    : `#${candidate.index}`;
}

/** The one-line source preview, when the document has one. */
export function sourcePreview(candidate: ICandidate): string {
  return typeof candidate.source_preview === 'string'
    ? printable(candidate.source_preview)
    : '';
}

/** A cancelled candidate with no figure (or 0): it never started, or never got to run. */
export function neverRan(candidate: ICandidate, value: unknown): boolean {
  return (
    candidate.verdict === 'cancelled' &&
    (typeof value !== 'number' || value === 0)
  );
}

/** Where an unsat core entry is, as the kernel says it ("line 12 [candidate line 3]":
 * presentation/row_details.line_place; an older document's: upgrade.ts). */
export function corePlace(candidate: ICandidate, at: number): string {
  const place = candidate.core_places?.[at];
  return typeof place === 'string' ? printable(place) : '';
}

/** How the run says an answer: prove()'s word ("proved") for a run of prove() calls. */
export function answerWord(run: IRun, verdict: string): string {
  const word = run.words?.[verdict];
  return typeof word === 'string' ? printable(word) : verdict;
}

/** The verdict, or the live state ("queued", "running") of a candidate not done yet (a
 * document leaves out a state at its default, "done"; an older live row's: upgrade.ts). */
export function stateLabel(candidate: ICandidate): string {
  if (typeof candidate.verdict === 'string') {
    return candidate.verdict;
  }
  return candidate.state ?? 'done';
}

/** The verdict as the row shows it (`shown`; an older document's: upgrade.ts). */
export function shownLabel(candidate: ICandidate): string {
  return printable(candidate.shown ?? '');
}

/** The verdicts.json entry that colours a shown label: row_details.SHOWN_STYLES, generated. */
const SHOWN_STYLES: Record<string, string> = words.shown_styles;

export function shownStyle(label: string): string {
  return SHOWN_STYLES[label] ?? label;
}

/** Sorts `byte_2` before `byte_10`: digits compare as numbers. */
export function naturalCompare(a: string, b: string): number {
  return a.localeCompare(b, undefined, { numeric: true });
}

/** The metadata is optional and volatile: anything unexpected is ignored. */
export function parseMetadata(metadata: unknown): IRunMetadata {
  if (!isObject(metadata)) {
    return {};
  }
  const result: IRunMetadata = {};
  if (typeof metadata.elapsed_s === 'number') {
    result.elapsed_s = metadata.elapsed_s;
  }
  if (Array.isArray(metadata.timings)) {
    result.timings = metadata.timings.filter(
      (t): t is ITiming => isObject(t) && typeof t.index === 'number'
    );
  }
  return result;
}
