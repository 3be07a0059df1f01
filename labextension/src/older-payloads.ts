/**
 * An older document's `payload_files`: every distinct payload of a finished run, under the name
 * `RunResult.save_payloads` gives its file, as render.add_payload_files lists them (the twin of
 * contracts/payload_files.run_files and CandidateResult.named_payloads).  A file's name holds the
 * first 16 hex digits of its payload's SHA-256 (@noble/hashes: the browser's own digest is
 * asynchronous, and a document is upgraded when it is read).
 */

import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';

import { hexToBytes } from './hexdump';
import type {
  IDocumentCandidate,
  IDocumentPayloadFile
} from './run-schema.generated';

/** A payload of a candidate: its name ("", "model-2", "check-1"), where it is, its hex. */
type Named = [string, string, string | null | undefined];

/** payload_files.digest: the first 16 hex digits of the payload's SHA-256. */
function digest(bytes: Uint8Array): string {
  return bytesToHex(sha256(bytes)).slice(0, 16);
}

/** payload_files.file_name: `payload-NAME-sha256:HASH.bin`, safe characters only. */
function fileName(name: string, bytes: Uint8Array): string {
  const safe =
    name.replace(/[^A-Za-z0-9_.-]+/g, '_').replace(/^[._]+|[._]+$/g, '') ||
    'payload';
  return `payload-${safe}-sha256:${digest(bytes)}.bin`;
}

/** CandidateResult.named_payloads: each payload once (one that failed verification: none). */
function namedPayloads(candidate: IDocumentCandidate): Named[] {
  let named: Named[] = [];
  if (candidate.verdict === 'sat') {
    named.push(['', 'payload_hex', candidate.payload_hex]);
    (candidate.more_models ?? []).forEach((found, at) => {
      if (found.verified !== false) {
        named.push([`model-${at + 2}`, `more_models/${at}`, found.payload_hex]);
      }
    });
  }
  (candidate.checks ?? []).forEach((check, at) => {
    if (check.verified !== false) {
      named.push([`check-${at + 1}`, `checks/${at}`, check.payload_hex]);
    }
  });
  // A payload is there when its hex is (an empty one too: b'' is a payload).
  named = named.filter(
    ([, , hex]) => typeof hex === 'string' && hexToBytes(hex) !== null
  );
  const kept = new Map<string, Named>();
  for (const entry of named) {
    const key = String(entry[2]).replace(/\s+/g, '').toLowerCase();
    if (!kept.has(key)) {
      kept.set(key, entry);
    }
  }
  return [...kept.values()];
}

/** payload_files.run_files, as the document lists them. */
export function payloadFilesOf(
  candidates: IDocumentCandidate[]
): IDocumentPayloadFile[] {
  const files = new Map<string, IDocumentPayloadFile>();
  for (const candidate of candidates) {
    for (const [name, at, hex] of namedPayloads(candidate)) {
      const bytes = hexToBytes(String(hex)) as Uint8Array;
      const label = [candidate.label || `candidate-${candidate.index}`, name]
        .filter(Boolean)
        .join('-');
      const key = digest(bytes);
      if (!files.has(key)) {
        files.set(key, {
          name: fileName(label, bytes),
          index: candidate.index,
          at
        });
      }
    }
  }
  return [...files.values()];
}
