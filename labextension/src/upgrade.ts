/**
 * The one place an older saved document is brought up to the current one (still version 1:
 * additive changes, protocol/document.py).  A document written before the kernel spelled out a
 * field the views show gets that field here, made as the kernel makes it (the Python function
 * named beside each), so that the views only draw what the document says:
 *
 * - `isolation_summary` (phrases.isolation_summary), `isolation_shortfall` (the summary, as
 *   such documents always showed it), `limits_shown` (phrases.limits_shown);
 * - `columns` (phrases.TABLE_COLUMNS), `progress` (phrases.progress), `words` and `vote` (a run
 *   of prove() calls: vote.vote_word), `said_once` (reasons.said_once_caption);
 * - each candidate's `reason_shown` (reasons.row_reason), `unconfirmed`, `cells` (the kill,
 *   model and reason columns' text: phrases.TABLE_COLUMNS, reasons.fit_reason keeps an error's
 *   "(line N" place), `shown`, `show_output`, `core_answer` (older-rows.ts), `source_preview`
 *   (before it: `preview`) and `core_places` (before it: "line N");
 * - a finished run's `payload_files` (older-payloads.ts: render.add_payload_files);
 * - the texts the views draw as they are: `counts_shown` (phrases.counts_summary), `tie_shown`
 *   (phrases.tie_summary), `isolation_layers` (phrases.isolation_layers), and each row's
 *   `cells.core` (row_details.core_summary) and `confirmation` (row_details.confirmation),
 *   `objective` and `further_models` (older-models.ts);
 * - a row with no verdict and no `state` (a live row of a document older than states) waits:
 *   `state` "queued", as row_details.state_label says it.
 *
 * The Python names, units and words come from presentation.generated.json, which
 * tools/sync_docs.py writes from the Python.
 */

import {
  confirmationOf,
  coreSummary,
  counts,
  fitReason,
  killText,
  modelPreview,
  proveWord,
  rowReason,
  saidOnce,
  saidOnceCaption,
  shownVerdict,
  showsOutput,
  smt2CoreAnswer,
  stateOf,
  unconfirmedWhy
} from './older-rows';
import { furtherModels, objectiveSummary } from './older-models';
import { payloadFilesOf } from './older-payloads';
import { printable } from './printable';
import words from './presentation.generated.json';
import type {
  IDocumentCandidate,
  IDocumentColumn,
  IDocumentTie,
  IIsolationReport,
  IRunDocument
} from './run-schema.generated';

const ABI = /^ABI \d+/;
/** [field name, shown name, unit] of each limit, in the model's order. */
const LIMITS: readonly (readonly string[])[] = words.limits;

/** phrases.number: whole numbers in full, else the shortest form. */
function limitNumber(value: number): string {
  return Number.isInteger(value)
    ? String(value)
    : String(Number(value.toPrecision(6)));
}

/** phrases.isolation_summary: "kernel: userns netns landlock(ABI 7) seccomp; missing: netns". */
export function isolationSummaryOf(report: IIsolationReport | null): string {
  if (!report) {
    return 'unknown';
  }
  const layers = Array.isArray(report.layers) ? report.layers : [];
  const active = layers
    .filter(layer => layer.active)
    .map(layer => {
      const version = ABI.exec(String(layer.detail ?? ''));
      return version ? `${layer.name}(${version[0]})` : String(layer.name);
    });
  const missing = layers
    .filter(layer => !layer.active)
    .map(layer => String(layer.name));
  const text = `${report.level ?? '?'}: ${active.join(' ') || 'no layers'}`;
  return missing.length ? `${text}; missing: ${missing.join(' ')}` : text;
}

/** phrases.isolation_layers: each layer in one line, "landlock: active (ABI 7)", "netns: missing
 * (its error, else its detail)". */
export function isolationLayersOf(report: IIsolationReport | null): string[] {
  const layers = Array.isArray(report?.layers) ? report.layers : [];
  return layers.map(layer => {
    const extra = layer.active ? layer.detail : layer.error || layer.detail;
    const status = layer.active ? 'active' : 'missing';
    return printable(
      `${layer.name ?? '?'}: ${status}${extra ? ` (${extra})` : ''}`
    );
  });
}

/** phrases.counts_summary: each label's number (a row's verdict or state, in the run's words),
 * most common first, the earliest row's first among equals. */
export function countsSummaryOf(run: IRunDocument): string {
  const counted = new Map<string, number>();
  for (const row of run.candidates) {
    const label = stateOf(row);
    const word = run.words?.[label] ?? label;
    counted.set(word, (counted.get(word) ?? 0) + 1);
  }
  return (
    [...counted]
      .sort(([, a], [, b]) => b - a)
      .map(([label, n]) => `${n} ${label}`)
      .join(', ') || 'no candidates'
  );
}

/** phrases.tie_summary: "1 sat / 1 unsat → sat: RULE", in the tie's words. */
export function tieSummaryOf(tie: IDocumentTie): string {
  const words: Record<string, string> = tie.words ?? {};
  const say = (answer: string): string => words[answer] ?? answer;
  return `${tie.sat} ${say('sat')} / ${tie.unsat} ${say('unsat')} → ${say(tie.winner)}: ${tie.rule}`;
}

/** A row's texts of a document older than them (the row's other fields made first). */
function upgradeTexts(candidate: IDocumentCandidate): void {
  const core = coreSummary(candidate);
  if (core && candidate.cells?.core === undefined) {
    candidate.cells = { ...candidate.cells, core };
  }
  const confirmation = confirmationOf(candidate);
  if (confirmation && candidate.confirmation === undefined) {
    candidate.confirmation = confirmation;
  }
  if (candidate.objectives?.length) {
    candidate.objective ??= objectiveSummary(candidate);
  }
  const further = furtherModels(candidate);
  if (further.length) {
    candidate.further_models ??= further;
  }
}

/** phrases.limits_shown: each limit the document has, as [shown name, value with its unit]. */
export function limitsShownOf(
  limits: IRunDocument['limits']
): [string, string][] {
  return LIMITS.flatMap(([name, shown, unit]) => {
    const value = limits[name];
    return typeof value === 'number'
      ? [
          [
            shown,
            unit ? `${limitNumber(value)} ${unit}` : limitNumber(value)
          ] as [string, string]
        ]
      : [];
  });
}

/** phrases.TABLE_COLUMNS: the table's columns, as the kernel lists them. */
const COLUMNS: IDocumentColumn[] = words.columns;
/** phrases.REASON_WIDTH: the reason's room in a row. */
const REASON_WIDTH: number = words.reason_width;
/** The model column's width in the text table (phrases.TABLE_COLUMNS). */
const MODEL_WIDTH = 30;

/** A row's reason and its cells; `shared`: the clauses the caption says once. */
function upgradeReason(candidate: IDocumentCandidate, shared: string[]): void {
  if (candidate.reason_shown === undefined) {
    candidate.reason_shown = rowReason(candidate, shared);
    const why = unconfirmedWhy(candidate);
    if (why !== null) {
      candidate.unconfirmed ??= why;
    }
  }
  const cells = { ...candidate.cells }; // a copy: the output's own data stays as it was saved
  cells.kill ??= killText(candidate);
  cells.model ??= modelPreview(candidate, MODEL_WIDTH);
  cells.reason ??= fitReason(candidate.reason_shown, REASON_WIDTH);
  candidate.cells = cells;
}

function upgradeCandidate(
  candidate: IDocumentCandidate & { preview?: unknown },
  alone: boolean,
  finished: boolean
): void {
  if ((candidate.verdict ?? null) === null && candidate.state === undefined) {
    candidate.state = 'queued';
  }
  candidate.shown ??= shownVerdict(candidate);
  candidate.show_output ??= finished && showsOutput(candidate, alone);
  if (candidate.core_answer === undefined) {
    candidate.core_answer = smt2CoreAnswer(candidate);
  }
  if (
    candidate.source_preview === undefined &&
    typeof candidate.preview === 'string'
  ) {
    candidate.source_preview = candidate.preview;
  }
  if (
    candidate.core_places === undefined &&
    Array.isArray(candidate.unsat_core)
  ) {
    candidate.core_places = candidate.unsat_core.map(entry =>
      Array.isArray(entry) ? `line ${entry[0]}` : ''
    );
  }
}

/** vote.proves and vote.vote_word: a run of prove() calls says its answers in their words. */
function upgradeWords(run: IRunDocument): void {
  const decisive = run.candidates.filter(
    c => c.verdict === 'sat' || c.verdict === 'unsat'
  );
  const proves =
    decisive.length > 0 && decisive.every(c => proveWord(c) !== null);
  if (proves) {
    run.words ??= { ...words.prove_words };
  }
  if (run.vote === undefined) {
    const counted = run.candidates.some(counts);
    run.vote = !proves
      ? run.verdict
      : (run.words?.[run.verdict] ?? (counted ? run.verdict : words.disputed));
  }
}

/** Fill in, in place, what a document older than these fields lacks (see the list above). */
export function upgradeOlder(run: IRunDocument): IRunDocument {
  run.isolation_summary ??= isolationSummaryOf(run.isolation);
  run.isolation_shortfall ??= run.isolation_summary;
  run.limits_shown ??= limitsShownOf(run.limits);
  if (!run.columns?.length) {
    run.columns = COLUMNS.map(column => ({ ...column }));
  }
  run.progress ??= {
    done: run.candidates.filter(
      c => c.verdict !== null && c.verdict !== undefined
    ).length,
    total: run.candidates.length
  };
  upgradeWords(run);
  const finished = run.finished !== false;
  if (finished && run.payload_files === undefined) {
    const files = payloadFilesOf(run.candidates);
    run.payload_files = files.length ? files : undefined;
  }
  const older = run.candidates.every(c => c.reason_shown === undefined);
  const shared =
    older && run.said_once === undefined ? saidOnce(run.candidates) : [];
  if (shared.length) {
    run.said_once = saidOnceCaption(run.candidates, shared);
  }
  const untold = run.counts_shown === undefined; // older than the texts the views draw
  for (const candidate of run.candidates) {
    // A row older than its cells is older than the texts beside them too.
    const older = untold || candidate.cells === undefined;
    upgradeCandidate(candidate, run.candidates.length === 1, finished);
    upgradeReason(candidate, shared);
    if (older) {
      upgradeTexts(candidate);
    }
  }
  run.counts_shown ??= countsSummaryOf(run);
  if (run.tie) {
    run.tie_shown ??= tieSummaryOf(run.tie);
  }
  run.isolation_layers ??= isolationLayersOf(run.isolation);
  return run;
}
