/**
 * The whole result view, built as plain DOM so that it can be tested without
 * JupyterLab: the vote and counts, the verdict table, limits and isolation, notes.
 */

import { actionButton, downloadBytes } from './actions';
import { IRunView, LiveRun } from './live';
import { el, formatNumber, keyValueTable } from './dom';
import { candidateDetail } from './candidate';
import { candidateBadge } from './columns';
import { hexToBytes } from './hexdump';
import { printable } from './printable';
import { zipStore } from './zip';
import {
  IPayloadFile,
  IRun,
  candidateLabel,
  shownStyle,
  IRunMetadata
} from './schema';
import { progressBar } from './progress';
import { verdictTable } from './table';
import { verdictBadge } from './verdicts';
import { IViewState, newViewState } from './view';

/** The bytes a `payload_files` entry points at: its candidate's `payload_hex`, or a further
 * model's (`more_models/N`) or a check's (`checks/N`). */
function payloadAt(run: IRun, file: IPayloadFile): Uint8Array | null {
  const candidate = run.candidates.find(c => c.index === file.index);
  const [where, at] = file.at.split('/');
  const entry =
    where === 'more_models'
      ? candidate?.more_models?.[Number(at)]
      : where === 'checks'
        ? candidate?.checks?.[Number(at)]
        : candidate;
  const hex = entry?.payload_hex;
  return typeof hex === 'string' ? hexToBytes(hex) : null;
}

/**
 * Every payload to zip: the kernel's list (`payload_files`, what `save_payloads` writes: further
 * models and the models read at checks too, each distinct payload once, under its file name; an
 * older document's: upgrade.ts).
 */
function payloadFiles(run: IRun): [string, Uint8Array][] {
  return (run.payload_files ?? []).flatMap(file => {
    const bytes = payloadAt(run, file);
    return bytes ? [[printable(file.name), bytes] as [string, Uint8Array]] : [];
  });
}

/** "Download all payloads": every payload of the run (`payloadFiles`) in one ZIP file. */
function downloadAll(run: IRun): HTMLElement | null {
  const files = payloadFiles(run);
  if (files.length < 2) {
    return null; // one payload: its row's Download button
  }
  const button = actionButton(
    `Download all payloads (${files.length})`,
    'jp-Z3Run-downloadAll',
    () => {
      downloadBytes(zipStore(files), 'payloads.zip');
      return true;
    },
    'Downloaded'
  );
  button.title =
    'Save every distinct payload (further models and checks too), one file each, in payloads.zip, named as save_payloads names them';
  return button;
}

/** "incomplete": a live output that stopped updating (saved mid-run, or its kernel is gone). */
function incompleteBadge(): HTMLElement {
  const badge = verdictBadge('incomplete');
  badge.classList.add('jp-Z3Run-incomplete');
  return badge;
}

function summary(
  run: IRun,
  metadata: IRunMetadata,
  stale: boolean
): HTMLElement {
  const node = el('div', 'jp-Z3Run-summary');
  if (run.candidates.length === 1 && run.finished) {
    // One candidate: its verdict, no vote or counts.
    node.appendChild(el('span', 'jp-Z3Run-label', 'verdict'));
    node.appendChild(candidateBadge(run.candidates[0]));
    if (metadata.elapsed_s !== undefined) {
      node.appendChild(
        el(
          'span',
          'jp-Z3Run-counts',
          `${String(run.language ?? '')} · ${formatNumber(metadata.elapsed_s, 's')} elapsed`
        )
      );
    }
    return node;
  }
  node.appendChild(el('span', 'jp-Z3Run-label', 'vote'));
  // A run of prove() calls votes in its words: "proved", "counterexample", "disputed".
  const vote = run.finished ? (run.vote ?? '') : 'pending';
  node.appendChild(verdictBadge(vote, shownStyle(vote)));
  if (!run.finished && stale) {
    node.appendChild(incompleteBadge());
  }
  // As the kernel's captions count them (`counts_shown`; an older document's: upgrade.ts): "2
  // sat, 1 timeout, 5 running", in prove()'s words for a run of prove() calls.
  const parts = [
    `${run.candidates.length} candidate${run.candidates.length === 1 ? '' : 's'}`
  ];
  if (run.counts_shown) {
    parts.push(printable(run.counts_shown));
  }
  parts.push(String(run.language ?? ''));
  if (run.finished && metadata.elapsed_s !== undefined) {
    parts.push(`${formatNumber(metadata.elapsed_s, 's')} elapsed`);
  }
  node.appendChild(
    el('span', 'jp-Z3Run-counts', parts.filter(Boolean).join(' · '))
  );
  if (run.tie && run.tie_shown) {
    node.appendChild(tieNote(run.tie_shown));
  }
  if (typeof run.said_once === 'string' && run.said_once) {
    // A clause every answer shares, said here once rather than on every row.
    node.appendChild(el('span', 'jp-Z3Run-saidOnce', printable(run.said_once)));
  }
  if (run.interrupted) {
    const badge = verdictBadge('interrupted');
    badge.classList.add('jp-Z3Run-interrupted');
    node.appendChild(badge);
  }
  const all = run.finished ? downloadAll(run) : null;
  if (all) {
    node.appendChild(all);
  }
  return node;
}

/** "tie: 1 sat / 1 unsat → sat: rule" (`tie_shown`, in prove()'s words for a run of prove()
 * calls; an older document's: upgrade.ts): a tie is shown as one, with the rule that broke it. */
function tieNote(shown: string): HTMLElement {
  const node = el('span', 'jp-Z3Run-tie');
  node.appendChild(verdictBadge('tie'));
  node.append(` ${printable(shown)}`);
  return node;
}

/** One candidate displayed alone (`_z3[1]`): the candidate and its detail, no vote. */
function candidateAlone(
  run: IRun,
  metadata: IRunMetadata,
  state: IViewState
): HTMLElement {
  const candidate = run.candidates[0];
  const node = el('div', 'jp-Z3Run jp-Z3Run-alone');
  const head = el('div', 'jp-Z3Run-summary');
  head.appendChild(el('span', 'jp-Z3Run-label', 'candidate'));
  head.appendChild(
    el('span', 'jp-Z3Run-candidateLabel', candidateLabel(candidate))
  );
  head.appendChild(candidateBadge(candidate));
  node.appendChild(head);
  const timing = metadata.timings?.find(t => t.index === candidate.index);
  node.appendChild(candidateDetail(candidate, state, timing));
  node.appendChild(settings(run));
  return node;
}

/** Each layer's line as the kernel wrote it (`isolation_layers`; an older document's:
 * upgrade.ts), marked active or missing as the report says. */
function isolationDetail(run: IRun): Node {
  const layers = run.isolation?.layers;
  const lines = run.isolation_layers ?? [];
  if (!Array.isArray(layers) || lines.length === 0) {
    return el('p', undefined, 'No isolation was reported for this run.');
  }
  const list = el('ul', 'jp-Z3Run-layers');
  lines.forEach((line, at) => {
    const on = layers[at]?.active === true;
    list.appendChild(
      el('li', on ? 'jp-Z3Run-layerOn' : 'jp-Z3Run-layerOff', printable(line))
    );
  });
  return list;
}

function settings(run: IRun): HTMLElement {
  const details = el('details', 'jp-Z3Run-settings');
  // The isolation in the summary only when a layer of the best isolation is missing (the kernel
  // says which: isolation_shortfall); a document older than that field always names it.
  const shortfall = run.isolation_shortfall;
  details.appendChild(
    el(
      'summary',
      undefined,
      shortfall ? `Limits and isolation — ${shortfall}` : 'Limits and isolation'
    )
  );
  // The kernel's names and units (phrases.limits_shown; an older document's: upgrade.ts).
  details.appendChild(keyValueTable(run.limits_shown ?? [], 'jp-Z3Run-limits'));
  details.appendChild(isolationDetail(run));
  return details;
}

function notes(run: IRun): HTMLElement | null {
  if (run.notes.length === 0) {
    return null;
  }
  const list = el('ul', 'jp-Z3Run-notes');
  for (const note of run.notes) {
    list.appendChild(el('li', undefined, `note: ${printable(note)}`));
  }
  return list;
}

/** The message shown instead of a result this version cannot read. */
export function unsupported(message: string, data: unknown): HTMLElement {
  const node = el('div', 'jp-Z3Run jp-Z3Run-unsupported');
  node.appendChild(el('p', 'jp-Z3Run-message', message));
  const raw = el('details');
  raw.appendChild(el('summary', undefined, 'raw result'));
  raw.appendChild(
    el(
      'pre',
      'jp-Z3Run-pre',
      printable(JSON.stringify(data, null, 2) ?? String(data), '\n')
    )
  );
  node.appendChild(raw);
  return node;
}

/**
 * The view of one `application/vnd.z3sandbox.run+json` output; never empty.  `state` keeps
 * the user's sort, filter and open rows from one rendering of the same output to the next.
 */
export function renderRun(
  data: unknown,
  metadata?: unknown,
  state: IViewState = newViewState()
): HTMLElement {
  return renderView(LiveRun.of(data, metadata), state);
}

/** The view of a run's model (live.ts: a live run's, merged and parsed once a refresh). */
export function renderView(
  view: IRunView,
  state: IViewState = newViewState()
): HTMLElement {
  const { parsed, metadata: meta } = view;
  if (!parsed.ok) {
    return unsupported(parsed.message, view.data);
  }
  try {
    if (parsed.run.view === 'candidate' && parsed.run.candidates.length === 1) {
      return candidateAlone(parsed.run, meta, state);
    }
    const node = el('div', 'jp-Z3Run');
    node.appendChild(summary(parsed.run, meta, view.stale));
    if (!parsed.run.finished) {
      node.classList.add('jp-Z3Run-live');
      node.appendChild(progressBar(parsed.run, meta, view.eta));
    }
    node.appendChild(verdictTable(parsed.run, meta, state));
    node.appendChild(settings(parsed.run));
    const notesNode = notes(parsed.run);
    if (notesNode) {
      node.appendChild(notesNode);
    }
    return node;
  } catch (error) {
    return unsupported(
      `z3sandbox: could not render this result (${String(error)})`,
      view.data
    );
  }
}
