/**
 * The one place an older saved document is brought up to the current one (still version 1:
 * additive changes, protocol/document.py).  A document written before the kernel spelled out a
 * field the views show gets that field here, made as the kernel makes it
 * (presentation/phrases.py), so that the views only draw what the document says:
 *
 * - `isolation_summary` (before it: made from `isolation`, as phrases.isolation_summary does);
 * - `isolation_shortfall` (before it: the summary, as such documents always showed it);
 * - `limits_shown` (before it: each limit under its flag name and unit, from
 *   presentation.generated.json, which tools/sync_docs.py writes from the Python limits);
 * - a candidate's `source_preview` (before it: `preview`) and `core_places` (before it: the
 *   core's script lines, "line N").
 */

import words from './presentation.generated.json';
import type {
  IDocumentCandidate,
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

function upgradeCandidate(
  candidate: IDocumentCandidate & { preview?: unknown }
): void {
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

/** Fill in, in place, what a document older than these fields lacks (see the list above). */
export function upgradeOlder(run: IRunDocument): IRunDocument {
  run.isolation_summary ??= isolationSummaryOf(run.isolation);
  run.isolation_shortfall ??= run.isolation_summary;
  run.limits_shown ??= limitsShownOf(run.limits);
  run.candidates.forEach(upgradeCandidate);
  return run;
}
