/**
 * How each verdict looks.  The names are those of `z3sandbox_kernel.verdicts.Verdict`;
 * the colour is a hint only, the text label is always shown next to it.
 */

export type VerdictTone =
  'good' | 'info' | 'warn' | 'bad' | 'blocked' | 'muted';

const TONES: Record<string, VerdictTone> = {
  sat: 'good',
  unsat: 'info',
  unknown: 'warn',
  timeout: 'warn',
  cpu_limit: 'warn',
  memory_limit: 'warn',
  output_limit: 'warn',
  no_check: 'muted',
  cancelled: 'muted',
  syntax_error: 'bad',
  runtime_error: 'bad',
  crashed: 'bad',
  invalid_model: 'bad',
  internal_error: 'bad',
  blocked: 'blocked'
};

export function verdictTone(verdict: string): VerdictTone {
  return TONES[verdict] ?? 'muted';
}

/** A coloured badge carrying the verdict's name as text. */
export function verdictBadge(verdict: string): HTMLElement {
  const badge = document.createElement('span');
  badge.className = `jp-Z3Run-verdict jp-Z3Run-tone-${verdictTone(verdict)}`;
  badge.dataset.verdict = verdict;
  badge.textContent = verdict;
  return badge;
}
