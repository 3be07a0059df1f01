/**
 * A row's reason: the kernel's text for it (`cells.reason`: its message whole, wrapping in the
 * room, only its quoted source line cut; presentation/reasons.py decides), with the whole reason
 * (`reason_shown`: "confirmed by z3; ..." or "unconfirmed: why", a traceback too) one click away.
 * A document older than these fields shows its own reason, whole.
 */

import { control, el } from './dom';
import { printable } from './printable';
import { ICandidate } from './schema';

/** The kernel's text for a column of this row (a document older than `cells`: undefined). */
export function kernelCell(
  candidate: ICandidate,
  key: string
): string | undefined {
  const text = candidate.cells?.[key];
  return typeof text === 'string' ? printable(text) : undefined;
}

/** An older document's reason: the candidate's own, then its payload error. */
function reasonText(candidate: ICandidate): string {
  const reason = String(candidate.reason ?? '');
  return printable(
    candidate.payload_error
      ? `${reason} (payload: ${candidate.payload_error})`.trim()
      : reason,
    '\n\t'
  );
}

/** The whole reason as the kernel says it (`reason_shown`); an older document's own reason. */
export function wholeReason(candidate: ICandidate): string {
  return typeof candidate.reason_shown === 'string'
    ? printable(candidate.reason_shown.trim(), '\n\t')
    : reasonText(candidate).trim();
}

/** `text` on one line: its white space folded. */
function flat(text: string): string {
  return text.split(/\s+/).filter(Boolean).join(' ');
}

/**
 * The row's reason, and a "more" toggle to the whole reason when the row's text leaves some of
 * it out; null when there is no reason.
 */
export function reasonLine(candidate: ICandidate): HTMLElement | null {
  const whole = wholeReason(candidate);
  const short = kernelCell(candidate, 'reason') ?? flat(whole.split('\n')[0]);
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
