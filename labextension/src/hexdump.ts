/**
 * A classic hex dump: offset, 16 bytes in hex (two groups of 8), and the
 * printable ASCII, e.g.
 *
 *     00000000  41 42 43 0a                                       |ABC.|
 */

export const BYTES_PER_LINE = 16;

/** Bytes from a hex string; `null` when it is not hex of whole bytes. */
export function hexToBytes(hex: string): Uint8Array | null {
  const clean = hex.replace(/\s+/g, '');
  if (clean.length % 2 !== 0 || /[^0-9a-fA-F]/.test(clean)) {
    return null;
  }
  const bytes = new Uint8Array(clean.length / 2);
  for (let i = 0; i < bytes.length; i++) {
    bytes[i] = parseInt(clean.slice(2 * i, 2 * i + 2), 16);
  }
  return bytes;
}

function hexLine(bytes: Uint8Array, start: number): string {
  const cells: string[] = [];
  let ascii = '';
  for (let i = 0; i < BYTES_PER_LINE; i++) {
    const at = start + i;
    if (at < bytes.length) {
      const byte = bytes[at];
      cells.push(byte.toString(16).padStart(2, '0'));
      ascii += byte >= 0x20 && byte < 0x7f ? String.fromCharCode(byte) : '.';
    } else {
      cells.push('  ');
    }
    if (i === 7) {
      cells.push('');
    }
  }
  const offset = start.toString(16).padStart(8, '0');
  return `${offset}  ${cells.join(' ')}  |${ascii}|`;
}

/**
 * The dump of at most `maxBytes` bytes, one string per line; when bytes are
 * left out, a last line says how many.
 */
export function hexDump(bytes: Uint8Array, maxBytes = 64 * 1024): string[] {
  const shown = Math.min(bytes.length, maxBytes);
  const lines: string[] = [];
  for (let start = 0; start < shown; start += BYTES_PER_LINE) {
    lines.push(hexLine(bytes.subarray(0, shown), start));
  }
  if (shown < bytes.length) {
    lines.push(
      `… ${bytes.length - shown} more bytes not shown (${bytes.length} in all)`
    );
  }
  return lines;
}
