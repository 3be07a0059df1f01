/**
 * The `application/vnd.z3sandbox.run+json` document, as written by
 * `z3sandbox_kernel/presentation/render.py` (`run_json`, `run_metadata`).  That module's
 * docstring is the reference; these types mirror it.  Only the schema name and
 * version are checked strictly: a field of the wrong type is shown as it is
 * rather than hiding the whole result.
 */

export const MIME_TYPE = 'application/vnd.z3sandbox.run+json';
export const SCHEMA_NAME = 'z3sandbox.run';
export const SCHEMA_VERSION = 1;

/** A model value: JSON scalars, or an exact rational as `{fraction: [n, d]}`. */
export type ModelValue =
  string | number | boolean | null | { fraction: [number, number] };

export interface ILayer {
  name: string;
  active: boolean;
  detail?: string;
  error?: string;
}

export interface IIsolation {
  level: 'kernel' | 'process' | string;
  layers: ILayer[];
}

export interface ICandidate {
  index: number;
  /** null only in a document shown while the run is still going (see `state`). */
  verdict: string | null;
  reason: string;
  model: Record<string, ModelValue> | null;
  payload_hex: string | null;
  payload_error: string | null;
  unsat_core: [number, string][] | null;
  stdout: string;
  stderr: string;
  stdout_truncated: boolean;
  stderr_truncated: boolean;
  kill: string | null;
  exit_code: number | null;
  signal: number | null;
  verified: boolean | null;
  /** The candidate's name: its `# %% candidate NAME` header, dict key or file name. */
  label?: string | null;
  /** One line of the candidate's source. */
  source_preview?: string | null;
  /** "queued" or "running" while `verdict` is null. */
  state?: string | null;
  /** The verdict as the row shows it: "proved", "counterexample", "sat · no payload", ... */
  shown?: string | null;
  /** An SMT-LIB (get-unsat-core) answer found in stdout, e.g. "(a1 a3)". */
  core_answer?: string | null;
  /** The row shows its stdout inline (the run's only candidate, or a failed one). */
  show_output?: boolean;
  /** A sat Optimize check's objectives and the values z3 found. */
  objectives?: IObjective[];
  /** The objectives as the row shows them, e.g. "maximize x + y = 13" (made by the kernel). */
  objective?: string | null;
  /** models=N: the further models (each verified like the first). */
  more_models?: IFoundModel[];
  /** The further models as the kernel shows them, one line each: "model 2: x=2". */
  further_models?: string[];
  /** Each saved column's text as the kernel's text table shows it, by column key. */
  cells?: Record<string, string>;
}

export interface IFoundModel {
  model: Record<string, ModelValue>;
  payload_hex: string | null;
  payload_error: string | null;
  verified: boolean | null;
}

export interface IObjective {
  term: string;
  /** "maximize", "minimize", "soft", or "" when not known. */
  direction: string;
  value: ModelValue;
}

export interface IRun {
  schema: typeof SCHEMA_NAME;
  version: typeof SCHEMA_VERSION;
  verdict: string;
  counts: Record<string, number>;
  language: string;
  limits: Record<string, number>;
  isolation: IIsolation | null;
  notes: string[];
  interrupted: boolean;
  candidates: ICandidate[];
  /** false only while the run is still going: the view then shows its progress. */
  finished: boolean;
  progress?: IProgress;
  /** As many sat as unsat: how the vote was decided. */
  tie?: ITie | null;
  /** "candidate": one candidate displayed alone (`_z3[1]`), not a run. */
  view?: string;
  /** The table's columns, in order (render.TABLE_COLUMNS). */
  columns?: IColumnSpec[];
  /** A live refresh: `candidates` holds only the rows that changed since the previous one. */
  delta?: boolean;
  /** A live run that can stop one candidate: the id the kernel's stop request names. */
  control?: string | null;
  /** The kernel's one-line isolation summary ("kernel: userns ...; missing: netns"). */
  isolation_summary?: string;
  /** Each limit as [name, value with its unit], as the kernel writes it. */
  limits_shown?: [string, string][];
  /** The isolation summary when a layer of the best isolation is missing, else "". */
  isolation_shortfall?: string;
}

export interface ITie {
  sat: number;
  unsat: number;
  winner: string;
  rule: string;
}

export interface IColumnSpec {
  key: string;
  title: string;
  /** A measured figure's unit ("s", "MB"). */
  unit?: string;
}

export interface IProgress {
  done: number;
  total: number;
}

/** The volatile figures, kept in the output metadata under `MIME_TYPE`. */
export interface ITiming {
  index: number;
  wall_s?: number;
  cpu_s?: number;
  peak_rss_mb?: number;
  /** A running candidate's time so far (live refreshes only). */
  running_s?: number;
}

export interface IRunMetadata {
  elapsed_s?: number;
  timings?: ITiming[];
}

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
    ? candidate.label
    : `#${candidate.index}`;
}

/** The one-line source preview, when the document has one. */
export function sourcePreview(candidate: ICandidate): string {
  const raw = candidate as unknown as JSONish;
  const text = candidate.source_preview ?? raw.preview;
  return typeof text === 'string' ? text : '';
}

/** A cancelled candidate with no figure (or 0): it never started, or never got to run. */
export function neverRan(candidate: ICandidate, value: unknown): boolean {
  return (
    candidate.verdict === 'cancelled' &&
    (typeof value !== 'number' || value === 0)
  );
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
    ? candidate.shown
    : stateLabel(candidate);
}

/** The verdicts.json entry that colours a shown label (SHOWN_STYLES in presentation/shown.py). */
const SHOWN_STYLES: Record<string, string> = {
  proved: 'unsat',
  counterexample: 'sat',
  'sat · no payload': 'no_payload'
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
