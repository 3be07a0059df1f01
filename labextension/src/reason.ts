/**
 * A row's reason: the kernel's text for it (`cells.reason`: its message whole, wrapping in the
 * room, only its quoted source line cut; presentation/reasons.py decides), with the whole reason
 * (`reason_shown`: "confirmed by z3; ..." or "unconfirmed: why", a traceback too) one click away.
 * An older document gets both from upgrade.ts, made as the kernel makes them.
 */

import { control, el } from './dom';
import { printable } from './printable';
import { ICandidate } from './schema';

/** The kernel's text for a column of this row (`cells`; an older document's: upgrade.ts). */
export function kernelCell(candidate: ICandidate, key: string): string {
  return printable(candidate.cells?.[key] ?? '');
}

/** The whole reason as the kernel says it (`reason_shown`; an older document's: upgrade.ts). */
export function wholeReason(candidate: ICandidate): string {
  return printable((candidate.reason_shown ?? '').trim(), '\n\t');
}

/** `text` on one line: its white space folded (to tell whether the row's text is all of it). */
function flat(text: string): string {
  return text.split(/\s+/).filter(Boolean).join(' ');
}

/**
 * The row's reason, and a "more" toggle to the whole reason when the row's text leaves some of
 * it out; null when there is no reason.
 */
export function reasonLine(candidate: ICandidate): HTMLElement | null {
  const whole = wholeReason(candidate);
  const short = kernelCell(candidate, 'reason');
  if (!short) {
    return null;
  }
  const line = el('div', 'jp-Z3Run-reasonText');
  const text = el('span', 'jp-Z3Run-reasonShort', short);
  line.append(text);
  line.title = whole;
  if (flat(whole) !== short) {
    const more = control('button', 'jp-Z3Run-reasonMore', 'more');
    more.title = 'Show the whole reason';
    more.setAttribute('aria-expanded', 'false');
    more.addEventListener('click', () => {
      const open = more.getAttribute('aria-expanded') !== 'true';
      text.textContent = open ? whole : short;
      line.classList.toggle('jp-Z3Run-reasonWhole', open);
      more.textContent = open ? 'less' : 'more';
      more.setAttribute('aria-expanded', String(open));
    });
    line.append(' ', more);
  }
  return line;
}
