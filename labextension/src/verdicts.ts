/**
 * How each verdict and live state looks.  Names, descriptions and badge colours come from
 * `z3sandbox_kernel/protocol/verdicts.json`, the one source the Python HTML reads too (copied next to
 * the sources by `scripts/sync-verdicts.mjs`).  Each badge is the verdict's name as text on its
 * colour, at >= 4.5:1 contrast in the light and the dark theme; the colour only repeats the text.
 */

import source from './verdicts.generated.json';

export interface IBadgeColours {
  background: string;
  text: string;
}

export interface IVerdictStyle {
  label: string;
  description: string;
  group?: string;
  light: IBadgeColours;
  dark: IBadgeColours;
}

const VERDICTS: Record<string, IVerdictStyle> = source.verdicts;
const STATES: Record<string, IVerdictStyle> = source.states;
const FALLBACK = 'cancelled'; // grey: a verdict this version does not know

/** The verdicts in the order of verdicts.json (decisive first): the verdict column sorts by it. */
export const VERDICT_ORDER: readonly string[] = Object.keys(VERDICTS);

export function verdictStyle(name: string): IVerdictStyle {
  return VERDICTS[name] ?? STATES[name] ?? VERDICTS[FALLBACK];
}

/** Where a verdict sorts: known verdicts in file order, then unknown names, then live states. */
export function verdictRank(name: string | null | undefined): number {
  const at = name ? VERDICT_ORDER.indexOf(name) : -1;
  if (at >= 0) {
    return at;
  }
  return name && !(name in STATES)
    ? VERDICT_ORDER.length
    : VERDICT_ORDER.length + 1;
}

/**
 * A badge carrying the verdict's (or state's) name as text, its description as the tooltip;
 * `styleName` colours a shown label that is not a verdict itself ("proved": unsat's colours).
 */
export function verdictBadge(name: string, styleName = name): HTMLElement {
  const style = verdictStyle(styleName);
  const badge = document.createElement('span');
  badge.className = 'jp-Z3Run-verdict';
  badge.dataset.verdict = styleName;
  badge.textContent = name;
  if (VERDICTS[styleName] || STATES[styleName]) {
    badge.title =
      styleName === name
        ? style.description
        : `${styleName}: ${style.description}`;
  }
  // Both themes' colours ride along; style/base.css picks one by the body's theme attribute.
  badge.style.setProperty('--jp-z3run-badge-bg-light', style.light.background);
  badge.style.setProperty('--jp-z3run-badge-fg-light', style.light.text);
  badge.style.setProperty('--jp-z3run-badge-bg-dark', style.dark.background);
  badge.style.setProperty('--jp-z3run-badge-fg-dark', style.dark.text);
  return badge;
}
