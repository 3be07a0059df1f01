/**
 * A live run's state, kept by the renderer from one refresh to the next (`LiveRun`): the rows
 * and timings merged from refreshes (a refresh marked `delta`,
 * z3sandbox_kernel/presentation/live.py, carries only the rows that changed since the previous
 * one), and the document they make, parsed once per refresh: drawing it, ticking its progress
 * line and marking it stale all read that one parsed view.
 */

import { IRunMetadata, ParseResult, parseMetadata, parseRun } from './schema';

type JSONish = { [key: string]: unknown };

function isObject(value: unknown): value is JSONish {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A refresh's document with every row known so far, parsed once. */
export interface IRunView {
  /** The document as merged (what is shown raw when it cannot be read). */
  data: unknown;
  parsed: ParseResult;
  metadata: IRunMetadata;
}

/** Rows and timings by candidate index, merged from one refresh to the next. */
export class LiveRun {
  /**
   * Take a refresh: a `delta` refresh's rows replace those of the same index, any other
   * document replaces them all; rows never received are "queued" (or "incomplete" when this
   * renderer never saw the whole document: a delta saved mid-run and reopened).  The result is
   * parsed here, once, and kept as `view`.
   */
  update(data: unknown, metadata: unknown): IRunView {
    const [merged, mergedMetadata] = this._merge(data, metadata);
    this._view = {
      data: merged,
      parsed: parseRun(merged),
      metadata: parseMetadata(mergedMetadata)
    };
    return this._view;
  }

  /** The last refresh, merged and parsed. */
  get view(): IRunView | null {
    return this._view;
  }

  /** The last refresh is of a run still going. */
  get live(): boolean {
    return this._view?.parsed.ok === true && !this._view.parsed.run.finished;
  }

  private _merge(data: unknown, metadata: unknown): [unknown, unknown] {
    if (!isObject(data) || !Array.isArray(data.candidates)) {
      return [data, metadata];
    }
    const timings =
      isObject(metadata) && Array.isArray(metadata.timings)
        ? metadata.timings.filter(isObject)
        : [];
    if (data.delta !== true) {
      this._rows = new Map();
      this._timings = new Map();
      this._whole = true;
    }
    for (const row of data.candidates.filter(isObject)) {
      this._rows.set(Number(row.index), row);
    }
    for (const timing of timings) {
      this._timings.set(Number(timing.index), timing);
    }
    if (data.delta !== true) {
      return [data, metadata];
    }
    const total = isObject(data.progress) ? Number(data.progress.total) : 0;
    const count = Math.max(
      total || 0,
      ...[...this._rows.keys()].map(i => i + 1)
    );
    const candidates = Array.from(
      { length: count },
      (_, index) =>
        this._rows.get(index) ?? {
          index,
          verdict: null,
          state: this._whole ? 'queued' : 'incomplete'
        }
    );
    return [
      { ...data, candidates },
      {
        ...(isObject(metadata) ? metadata : {}),
        timings: [...this._timings.values()]
      }
    ];
  }

  private _rows = new Map<number, JSONish>();
  private _timings = new Map<number, JSONish>();
  private _whole = false;
  private _view: IRunView | null = null;
}
