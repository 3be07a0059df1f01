/**
 * Older documents read as the kernel writes them now: each document of the saved notebooks
 * (written by the kernel, notebooks/*.ipynb) is made older by removing every field a version
 * before it lacked, and upgrade.ts must put each back as the kernel wrote it, so that the older
 * document renders the same text as the kernel's own.  So is each document of a few runs the
 * notebooks do not show (a tie, missing layers, each way an answer is confirmed, cores, a live
 * run), which tools/sync_docs.py writes (documents.generated.json, from tools/document_examples.py).
 */

import { describe, expect, it } from 'vitest';

import { renderRun } from '../src/render';
import { parseRun } from '../src/schema';
import quickstart from '../../notebooks/01-quickstart.ipynb?raw';
import kCandidates from '../../notebooks/02-k-candidates.ipynb?raw';
import bytePayloads from '../../notebooks/03-byte-payloads.ipynb?raw';
import unsatCores from '../../notebooks/04-unsat-cores.ipynb?raw';
import containment from '../../notebooks/05-containment.ipynb?raw';
import smtlib from '../../notebooks/06-smtlib.ipynb?raw';
import repair from '../../notebooks/07-repair.ipynb?raw';
import examples from './documents.generated.json';

const MIME_TYPE = 'application/vnd.z3sandbox.run+json';
const NOTEBOOKS: Record<string, string> = {
  quickstart,
  kCandidates,
  bytePayloads,
  unsatCores,
  containment,
  smtlib,
  repair
};
/** The fields a version-1 document may lack, each filled by upgrade.ts as the kernel fills it.
 * (`isolation_shortfall` is left: an older document always named its isolation.) */
const RUN_FIELDS = [
  'isolation_summary',
  'limits_shown',
  'columns',
  'progress',
  'words',
  'vote',
  'said_once',
  'payload_files',
  'counts_shown',
  'tie_shown',
  'isolation_layers'
];
const CANDIDATE_FIELDS = [
  'reason_shown',
  'unconfirmed',
  'cells',
  'shown',
  'show_output',
  'core_answer',
  'confirmation',
  'objective',
  'further_models'
];

type Doc = Record<string, unknown> & { candidates: Record<string, unknown>[] };

/** Every run document the notebook's outputs hold, with its output's metadata. */
function documents(text: string): [Doc, unknown][] {
  const notebook = JSON.parse(text) as {
    cells: {
      outputs?: {
        data?: Record<string, unknown>;
        metadata?: Record<string, unknown>;
      }[];
    }[];
  };
  return notebook.cells.flatMap(cell =>
    (cell.outputs ?? []).flatMap(output =>
      output.data?.[MIME_TYPE]
        ? [
            [output.data[MIME_TYPE] as Doc, output.metadata?.[MIME_TYPE]] as [
              Doc,
              unknown
            ]
          ]
        : []
    )
  );
}

/** The document as a version before these fields wrote it. */
function older(doc: Doc): Doc {
  const copy = structuredClone(doc);
  RUN_FIELDS.forEach(field => delete copy[field]);
  for (const candidate of copy.candidates) {
    CANDIDATE_FIELDS.forEach(field => delete candidate[field]);
    candidate.preview = candidate.source_preview;
    delete candidate.source_preview;
  }
  return copy;
}

function pick(
  value: Record<string, unknown>,
  fields: string[]
): Record<string, unknown> {
  return Object.fromEntries(fields.map(field => [field, value[field] ?? null]));
}

/** Each source's documents, with their outputs' metadata. */
const SOURCES: [string, [Doc, unknown][]][] = [
  ...Object.entries(NOTEBOOKS).map(
    ([name, text]) =>
      [`the ${name} notebook`, documents(text)] as [string, [Doc, unknown][]]
  ),
  [
    'the examples',
    (examples as Doc[]).map(doc => [doc, undefined] as [Doc, unknown])
  ]
];

describe.each(SOURCES)('%s, made older', (_, docs) => {
  it('has documents to make older', () => {
    expect(docs.length).toBeGreaterThan(0);
  });

  it.each(docs.map((doc, at) => [at, doc] as const))(
    'document %i gets back what the kernel wrote',
    (_, [doc]) => {
      const upgraded = parseRun(older(doc));
      const current = parseRun(structuredClone(doc));
      expect(upgraded.ok && current.ok).toBe(true);
      if (!upgraded.ok || !current.ok) {
        return;
      }
      const run = upgraded.run as unknown as Doc;
      // A field the kernel leaves out when empty (said_once, words) is null in both.
      expect(pick(run, RUN_FIELDS)).toEqual(pick(doc, RUN_FIELDS));
      run.candidates.forEach((candidate, at) =>
        expect(pick(candidate, CANDIDATE_FIELDS)).toEqual(
          pick(doc.candidates[at], CANDIDATE_FIELDS)
        )
      );
    }
  );

  it.each(docs.map((doc, at) => [at, doc] as const))(
    'document %i renders the same text as the kernel wrote it',
    (_, [doc, metadata]) => {
      const shown = renderRun(older(doc), metadata).textContent;
      expect(shown).toBe(renderRun(structuredClone(doc), metadata).textContent);
    }
  );
});
