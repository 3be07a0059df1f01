/**
 * The one rule for showing text a candidate wrote: shown, never obeyed.  The twin of
 * z3sandbox_kernel/presentation/printable.py, tested against the same cases
 * (tests/data/printable_cases.json): control characters (C0, DEL, C1), format characters (bidi
 * overrides and isolates, zero-width ones), line and paragraph separators, private-use, surrogate
 * and unassigned code points are shown as escapes (`\x1b`, `\u202e`, `\U000e0041`).  Applied to
 * every text of a candidate this view shows (the table, the details, the inline stdout) and to
 * what "Copy as JSON" puts in the clipboard: a right-to-left override is never obeyed.
 */

const ESCAPED = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cs}\p{Cn}]/gu;

/** One code point as its escape: `\xNN` below U+0100, `\uNNNN`, else `\UNNNNNNNN`. */
export function escapeChar(ch: string): string {
  const code = ch.codePointAt(0) ?? 0;
  const hex = code.toString(16);
  if (code < 0x100) {
    return `\\x${hex.padStart(2, '0')}`;
  }
  return code < 0x10000
    ? `\\u${hex.padStart(4, '0')}`
    : `\\U${hex.padStart(8, '0')}`;
}

/** `text` with every character the rule escapes shown as its escape, except those in `keep`. */
export function printable(text: unknown, keep = ''): string {
  return String(text ?? '').replace(ESCAPED, ch =>
    keep.includes(ch) ? ch : escapeChar(ch)
  );
}

/** Multi-line text (stdout): newlines and tabs kept, a CR and the rest shown escaped. */
export function printableLines(text: unknown): string {
  return printable(text, '\n\t');
}

/**
 * JSON text (`JSON.stringify`'s) with every character the rule escapes written as a JSON escape
 * (`\u202e`, a surrogate pair for an astral one): still valid JSON that reads back to the same
 * value, with nothing in it that a terminal or an editor would obey once pasted.
 */
export function printableJson(json: string): string {
  // A raw newline can only be the layout's (JSON.stringify escapes those in strings).
  return json.replace(ESCAPED, ch =>
    ch === '\n'
      ? ch
      : Array.from(
          { length: ch.length },
          (_, i) => `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`
        ).join('')
  );
}

/**
 * A model value as Python's str() writes its decoded value (protocol/wire.py decode_value): the
 * one way every view, the kernel's and this one, shows a value of the run document's model.
 */
export function pythonText(value: unknown): string {
  if (value === null || value === undefined) {
    return 'None';
  }
  if (typeof value === 'boolean') {
    return value ? 'True' : 'False';
  }
  if (typeof value === 'object' && 'fraction' in value) {
    const [n, d] = (value as { fraction: [number, number] }).fraction;
    return d === 1 ? String(n) : `${n}/${d}`; // str(Fraction(2, 1)) is "2"
  }
  return String(value);
}
