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
  const candidates = Array.isArray(data.candidates)
    ? data.candidates.filter(isObject)
    : [];
  const run = {
    ...data,
    verdict: typeof data.verdict === 'string' ? data.verdict : 'unknown',
    counts: isObject(data.counts) ? data.counts : {},
    limits: isObject(data.limits) ? data.limits : {},
    isolation: isObject(data.isolation) ? data.isolation : null,
    notes: Array.isArray(data.notes) ? data.notes.map(String) : [],
    interrupted: data.interrupted === true,
    finished: data.finished !== false,
    progress: parseProgress(data.progress),
    tie: isObject(data.tie) ? data.tie : null,
    view: typeof data.view === 'string' ? data.view : 'run',
    isolation_summary:
      typeof data.isolation_summary === 'string'
        ? data.isolation_summary
        : undefined,
    isolation_shortfall:
      typeof data.isolation_shortfall === 'string'
        ? data.isolation_shortfall
        : undefined,
    limits_shown: Array.isArray(data.limits_shown)
      ? data.limits_shown.filter(
          (pair): pair is [string, string] =>
            Array.isArray(pair) &&
            pair.length === 2 &&
            pair.every(part => typeof part === 'string')
        )
      : undefined,
    columns: Array.isArray(data.columns)
      ? data.columns.filter(
          (c): c is JSONish => isObject(c) && typeof c.key === 'string'
        )
      : undefined,
    candidates
  } as unknown as IRun;
  return { ok: true, run };
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

/** done/total: the document's own `progress` when it has one, else counted from the verdicts. */
export function progressOf(run: IRun): IProgress {
  if (run.progress) {
    return run.progress;
  }
  const done = run.candidates.filter(
    c => c.verdict !== null && c.verdict !== undefined
  ).length;
  return { done, total: run.candidates.length };
}

/** The label a candidate is shown under: its own, or `#index`. */
export function candidateLabel(candidate: ICandidate): string {
  return typeof candidate.label === 'string' && candidate.label
    ? printable(candidate.label)
    : `#${candidate.index}`;
}

/** The one-line source preview, when the document has one. */
export function sourcePreview(candidate: ICandidate): string {
  const raw = candidate as unknown as JSONish;
  const text = candidate.source_preview ?? raw.preview;
  return typeof text === 'string' ? printable(text) : '';
}

/** A cancelled candidate with no figure (or 0): it never started, or never got to run. */
export function neverRan(candidate: ICandidate, value: unknown): boolean {
  return (
    candidate.verdict === 'cancelled' &&
    (typeof value !== 'number' || value === 0)
  );
}

/**
 * Where an unsat core entry is, as the kernel says it ("line 12 [candidate line 3]": the cell's
 * line, presentation/row_details.line_place); an older document's script line.
 */
export function corePlace(candidate: ICandidate, at: number): string {
  const place = candidate.core_places?.[at];
  if (typeof place === 'string') {
    return printable(place);
  }
  const entry = candidate.unsat_core?.[at];
  return Array.isArray(entry) ? `line ${entry[0]}` : '';
}

/** How the run says an answer: prove()'s word ("proved") for a run of prove() calls. */
export function answerWord(run: IRun, verdict: string): string {
  const word = run.words?.[verdict];
  return typeof word === 'string' ? printable(word) : verdict;
}

/** The verdict, or the live state ("queued", "running") of a candidate not done yet. */
export function stateLabel(candidate: ICandidate): string {
  if (typeof candidate.verdict === 'string') {
    return candidate.verdict;
  }
  return typeof candidate.state === 'string' && candidate.state
    ? candidate.state
    : 'queued';
}

/** The shown verdict (`shown`), else the verdict or live state. */
export function shownLabel(candidate: ICandidate): string {
  return typeof candidate.shown === 'string' && candidate.shown
    ? printable(candidate.shown)
    : stateLabel(candidate);
}

/** The verdicts.json entry that colours a shown label (SHOWN_STYLES in presentation/row_details.py). */
const SHOWN_STYLES: Record<string, string> = {
  proved: 'unsat',
  counterexample: 'sat',
  'sat · no payload': 'no_payload',
  disputed: 'invalid_model'
};

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
