/**
 * What a grouped row says of the candidates folded into it (table.ts): who they are ("seeds
 * 0–199 (200)") in its name cell, and their times as a median with their range, in its figure
 * cells; and, ungrouped, "same as #N" beside a model another row found first.
 */

import { formatNumber } from './dom';
import { ICandidate, ITiming, candidateLabel } from './schema';

const SEED = /^(.*?)\bseed (\d+)$/;
/** A grouped row names at most this many runs of seeds or labels, then "…". */
const NAMED = 3;

/** Consecutive numbers as runs: `0–24, 26–49`. */
function runs(numbers: number[]): string[] {
  const sorted = [...new Set(numbers)].sort((a, b) => a - b);
  const parts: string[] = [];
  let start = sorted[0];
  for (let i = 1; i <= sorted.length; i++) {
    if (i === sorted.length || sorted[i] !== sorted[i - 1] + 1) {
      const end = sorted[i - 1];
      parts.push(start === end ? `${start}` : `${start}–${end}`);
      start = sorted[i];
    }
  }
  return parts;
}

/**
 * The name of a grouped row: `seeds 0–199 (200)` when its members are one script's seeds (`-k`),
 * else its first members' names: `alice, bob, … (5)`.
 */
export function groupLabel(members: ICandidate[]): string {
  const labels = members.map(m => candidateLabel(m));
  const seeds = labels.map(label => SEED.exec(label));
  const prefix = seeds[0]?.[1] ?? null;
  if (seeds.every(match => match !== null && match[1] === prefix)) {
    const parts = runs(seeds.map(match => Number(match![2])));
    const shown =
      parts.slice(0, NAMED).join(', ') + (parts.length > NAMED ? ', …' : '');
    return `${prefix ?? ''}seeds ${shown} (${members.length})`;
  }
  const named = labels.slice(0, NAMED).join(', ');
  return `${named}${labels.length > NAMED ? ', …' : ''} (${members.length})`;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? sorted[middle]
    : (sorted[middle - 1] + sorted[middle]) / 2;
}

/**
 * A grouped row's figure: the median of its members' (`pick`), and the tooltip with their range;
 * null when none of them has the figure.
 */
export function groupFigure(
  members: ICandidate[],
  timings: Map<number, ITiming>,
  pick: (timing: ITiming) => number | undefined,
  unit: string
): { text: string; title: string } | null {
  const values = members
    .map(m => timings.get(m.index))
    .map(t => (t ? pick(t) : undefined))
    .filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  if (values.length === 0) {
    return null;
  }
  const low = Math.min(...values);
  const high = Math.max(...values);
  return {
    text: formatNumber(median(values), unit),
    title: `median of ${values.length}; range ${formatNumber(low)}–${formatNumber(high, unit)}`
  };
}

/** Whether a row found a model (or payload): only those say "same as #N". */
export function hasModel(candidate: ICandidate): boolean {
  const model = candidate.model;
  return (
    candidate.verdict === 'sat' &&
    (typeof candidate.payload_hex === 'string' ||
      (typeof model === 'object' &&
        model !== null &&
        Object.keys(model).length > 0))
  );
}
