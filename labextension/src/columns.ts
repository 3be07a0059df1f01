/**
 * The table's columns: every column this view can draw, keyed as the run document's `columns`
 * (render.TABLE_COLUMNS) key them, and the choice of those to show for one run.
 */

import { shorten } from './candidate';
import { stopButton } from './control';
import { el, formatNumber } from './dom';
import { printable } from './printable';
import { kernelCell, reasonLine } from './reason';
import {
  ICandidate,
  IColumnSpec,
  IRun,
  ITiming,
  candidateLabel,
  neverRan,
  shownLabel,
  shownStyle,
  sourcePreview
} from './schema';
import { verdictBadge } from './verdicts';
import { SortKey } from './view';

/** The source preview's width in the table (the tooltip has all of it). */
const PREVIEW_WIDTH = 40;

export interface IColumn {
  key: string;
  title: string;
  sort?: SortKey;
  /** Sorting by it starts with the largest first (times, memory). */
  largestFirst?: boolean;
  /** A measured figure's unit, shown in the header when the cells leave it out. */
  unit?: string;
  cell: (
    candidate: ICandidate,
    timing: ITiming | undefined,
    group: HTMLElement,
    run: IRun
  ) => HTMLElement;
}

/**
 * The row's verdict badge ("proved", "sat · no payload", ...); an answer nobody confirmed is
 * outlined, not filled (style/base.css), and its tooltip says why.
 */
export function candidateBadge(candidate: ICandidate): HTMLElement {
  const label = shownLabel(candidate);
  const badge = verdictBadge(label, shownStyle(label));
  if (typeof candidate.unconfirmed === 'string') {
    badge.classList.add('jp-Z3Run-unconfirmed');
    badge.title = `unconfirmed: ${printable(candidate.unconfirmed)}`;
  }
  return badge;
}

function labelCell(candidate: ICandidate): HTMLTableCellElement {
  const cell = el('td', 'jp-Z3Run-candidate');
  const label = el(
    'span',
    'jp-Z3Run-candidateLabel',
    candidateLabel(candidate)
  );
  label.title = candidateLabel(candidate);
  cell.appendChild(label);
  const preview = sourcePreview(candidate);
  if (preview) {
    const code = el('code', 'jp-Z3Run-source', shorten(preview, PREVIEW_WIDTH));
    code.title = preview;
    cell.appendChild(code);
  }
  return cell;
}

function figureColumn(
  key: string,
  title: string,
  sort: SortKey,
  pick: (t: ITiming) => number | undefined,
  unit: string
): IColumn {
  return {
    key,
    title,
    sort,
    largestFirst: true,
    unit,
    cell: (candidate, timing) => {
      const value = timing ? pick(timing) : undefined;
      const cell = el('td', `jp-Z3Run-num jp-Z3Run-${sort}`);
      if (neverRan(candidate, value)) {
        cell.textContent = '—';
        cell.title = 'never ran';
      } else if (typeof value === 'number') {
        // The unit in its own span: a narrow table shows it once, in the header.
        cell.append(
          formatNumber(value),
          el('span', 'jp-Z3Run-unit', ` ${unit}`)
        );
      }
      // A running candidate: its time so far in the wall column, updated at each refresh.
      if (key === 'wall_s' && typeof timing?.running_s === 'number') {
        cell.textContent = `${formatNumber(timing.running_s, 's')}…`;
        cell.classList.add('jp-Z3Run-elapsed');
        cell.title = 'running for this long so far';
      }
      return cell;
    }
  };
}

/**
 * What a row says beyond its short cells, one line each: the reason (when `withReason`), the
 * unsat core, the objective and the further models (models=N).  The reason cell holds them in a
 * wide table; a narrow one shows them on a full-width line under the row instead.
 */
export function rowExtras(
  candidate: ICandidate,
  withReason: boolean
): HTMLElement[] {
  const lines: HTMLElement[] = [];
  if (withReason) {
    const line = reasonLine(candidate);
    if (line) {
      lines.push(line);
    }
  }
  const labelled = (label: string, text: string, className = ''): void => {
    const line = el('div', `jp-Z3Run-coreInline ${className}`.trim());
    line.append(el('span', 'jp-Z3Run-coreLabel', label));
    line.append(el('code', undefined, printable(text)));
    lines.push(line);
  };
  // The core under the row, as the kernel's tables show it (`cells.core`; older: upgrade.ts).
  const core = kernelCell(candidate, 'core');
  if (core) {
    labelled('core: ', core);
  }
  if (typeof candidate.objective === 'string' && candidate.objective) {
    labelled('objective: ', candidate.objective, 'jp-Z3Run-objective');
  }
  if (Array.isArray(candidate.further_models)) {
    for (const line of candidate.further_models) {
      const node = el('div', 'jp-Z3Run-coreInline jp-Z3Run-furtherModel');
      node.append(el('code', undefined, printable(line)));
      lines.push(node);
    }
  }
  return lines;
}

/** Every column this view can draw, by the key the run document's `columns` use. */
const COLUMNS: Record<string, IColumn> = {
  index: {
    key: 'index',
    title: '#',
    sort: 'index',
    cell: () => el('td', 'jp-Z3Run-index')
  },
  label: {
    key: 'label',
    title: 'candidate',
    sort: 'candidate',
    cell: labelCell
  },
  verdict: {
    key: 'verdict',
    title: 'verdict',
    sort: 'verdict',
    cell: (candidate, _t, _g, run) => {
      const cell = el('td', 'jp-Z3Run-verdictCell');
      cell.appendChild(candidateBadge(candidate));
      const stop = run.finished ? null : stopButton(candidate, run.control);
      if (stop) {
        cell.append(' ', stop);
      }
      return cell;
    }
  },
  kill: {
    key: 'kill',
    title: 'kill',
    cell: c => el('td', 'jp-Z3Run-kill', kernelCell(c, 'kill'))
  },
  model: {
    key: 'model',
    title: 'model / payload',
    cell: (candidate, _t, group) => {
      const cell = el('td', 'jp-Z3Run-preview');
      const text = kernelCell(candidate, 'model');
      const preview = el('span', 'jp-Z3Run-previewText', text);
      preview.title = text;
      cell.append(preview, group);
      return cell;
    }
  },
  wall_s: figureColumn('wall_s', 'wall', 'wall', t => t.wall_s, 's'),
  cpu_s: figureColumn('cpu_s', 'cpu', 'cpu', t => t.cpu_s, 's'),
  peak_rss_mb: figureColumn(
    'peak_rss_mb',
    'memory',
    'memory',
    t => t.peak_rss_mb,
    'MB'
  ),
  reason: {
    key: 'reason',
    title: 'reason',
    cell: candidate => {
      const cell = el('td', 'jp-Z3Run-reason');
      cell.append(...rowExtras(candidate, true));
      return cell;
    }
  }
};
const FIGURES = new Set(['wall_s', 'cpu_s', 'peak_rss_mb']);

/**
 * The document's columns in its order (titles too), less those with nothing to show: no
 * labels or previews at all, no timings at all (a document with no metadata).  The timing
 * columns are there from the start of a live run, so the table does not jump when the first
 * candidate ends.  Keys this version does not know are left out.
 */
export function columnsFor(run: IRun, withTimings: boolean): IColumn[] {
  const specs: IColumnSpec[] = run.columns ?? []; // an older document's: upgrade.ts
  const withLabels = run.candidates.some(
    c => Boolean(c.label) || Boolean(sourcePreview(c))
  );
  return specs
    .filter(spec => spec.key in COLUMNS)
    .filter(spec => spec.key !== 'label' || withLabels)
    .filter(spec => !FIGURES.has(spec.key) || withTimings)
    .map(spec => ({
      ...(FIGURES.has(spec.key) && spec.unit
        ? figureColumn(
            spec.key,
            COLUMNS[spec.key].title,
            COLUMNS[spec.key].sort as SortKey,
            t => t[spec.key as 'wall_s' | 'cpu_s' | 'peak_rss_mb'],
            spec.unit // the kernel's unit, not one guessed here
          )
        : COLUMNS[spec.key]),
      title: String(spec.title || COLUMNS[spec.key].title)
    }));
}
