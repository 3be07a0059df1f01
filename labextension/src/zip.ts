/**
 * A ZIP archive of whole files, stored (no compression): "Download all payloads" saves one file
 * instead of K downloads, which browsers throttle or block.  PKWARE APPNOTE 6.3: a local header
 * and the data per file, then the central directory and its end record; CRC-32 of each file.
 */

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) {
      c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    }
    table[n] = c >>> 0;
  }
  return table;
})();

export function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc = CRC_TABLE[(crc ^ byte) & 0xff] ^ (crc >>> 8);
  }
  return (crc ^ 0xffffffff) >>> 0;
}

function header(size: number, fields: [number, number][]): Uint8Array {
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  let at = 0;
  for (const [width, value] of fields) {
    if (width === 4) {
      view.setUint32(at, value, true);
    } else {
      view.setUint16(at, value, true);
    }
    at += width;
  }
  return out;
}

/** The archive of `files` (name, bytes), names in UTF-8, dated 1980-01-01. */
export function zipStore(files: [string, Uint8Array][]): Uint8Array {
  const parts: Uint8Array[] = [];
  const central: Uint8Array[] = [];
  let offset = 0;
  const encoder = new TextEncoder();
  for (const [name, data] of files) {
    const nameBytes = encoder.encode(name);
    const crc = crc32(data);
    // version, flags (bit 11: UTF-8 names), method 0 (stored), time, date, crc, sizes, name length
    const common: [number, number][] = [
      [2, 20],
      [2, 0x0800],
      [2, 0],
      [2, 0],
      [2, 0x21],
      [4, crc],
      [4, data.length],
      [4, data.length],
      [2, nameBytes.length],
      [2, 0]
    ];
    const local = header(30, [[4, 0x04034b50], ...common]);
    parts.push(local, nameBytes, data);
    central.push(
      header(46, [
        [4, 0x02014b50],
        [2, 20],
        ...common,
        [2, 0],
        [2, 0],
        [2, 0],
        [4, 0],
        [4, offset]
      ]),
      nameBytes
    );
    offset += local.length + nameBytes.length + data.length;
  }
  const directorySize = central.reduce((n, part) => n + part.length, 0);
  const end = header(22, [
    [4, 0x06054b50],
    [2, 0],
    [2, 0],
    [2, files.length],
    [2, files.length],
    [4, directorySize],
    [4, offset],
    [2, 0]
  ]);
  const all = [...parts, ...central, end];
  const out = new Uint8Array(all.reduce((n, part) => n + part.length, 0));
  let at = 0;
  for (const part of all) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
