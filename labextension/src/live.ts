/**
 * A run's state as one output shows it, kept from one refresh to the next: the model of the
 * renderer's model/view split (mime.ts draws it; render.ts, table.ts and progress.ts read it).
 *
 * A live run refreshes its output in place.  A refresh marked `delta`
 * (z3sandbox_kernel/presentation/live.py) carries only the rows that changed since the previous
 * one, and its metadata only their timings: `LiveRun` merges them into the rows and timings it
 * holds, parses the result once (schema.ts, which upgrades an older document), and keeps what
 * the run accumulates across refreshes: whether it finished, its control id (for a row's Stop
 * button), the smoothed rate of its estimate of the time left, when its elapsed time was last
 * given, and whether it went stale (no refresh for `STALE_MS`: saved mid-run, or its kernel is
 * gone).  Each change is announced on `changed`.
 */

import { ISignal, Signal } from '@lumino/signaling';

import { IEta, nextEta } from './progress';
import {
  IRun,
  IRunMetadata,
  ParseResult,
  parseMetadata,
  parseRun
} from './schema';

/** A live output with no refresh for this long is shown as incomplete. */
export const STALE_MS = 5000;

type JSONish = { [key: string]: unknown };

function isObject(value: unknown): value is JSONish {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What the views read of a run (a `LiveRun`, or a document shown once). */
export interface IRunView {
  /** The document as merged (what is shown raw when it cannot be read). */
  readonly data: unknown;
  readonly parsed: ParseResult;
  readonly metadata: IRunMetadata;
  /** A live run that stopped refreshing: saved mid-run, or its kernel is gone. */
  readonly stale: boolean;
  /** The smoothed rate of the estimate of the time left (progress.ts), live runs only. */
  readonly eta: IEta | undefined;
}

/** One output's run: rows and timings by candidate index, merged from one refresh to the next. */
export class LiveRun implements IRunView {
  /** A run drawn once (`renderRun`): no refresh follows, so no stale timer is left running. */
  static of(data: unknown, metadata?: unknown): LiveRun {
    const run = new LiveRun();
    run.update(data, metadata);
    run.dispose();
    return run;
  }

  /** Emitted after each refresh, and when the run goes stale. */
  get changed(): ISignal<this, void> {
    return this._changed;
  }

  get data(): unknown {
    return this._data;
  }

  get parsed(): ParseResult {
    return this._parsed;
  }

  get metadata(): IRunMetadata {
    return this._metadata;
  }

  /** The run, when its document could be read. */
  get run(): IRun | null {
    return this._parsed.ok ? this._parsed.run : null;
  }

  /** The last refresh is of a run still going. */
  get live(): boolean {
    return this.run !== null && !this.run.finished;
  }

  get stale(): boolean {
    return this._stale;
  }

  get eta(): IEta | undefined {
    return this._eta;
  }

  /**
   * The run's elapsed time at `now` (a `performance.now()`), counted from the elapsed time the
   * last refresh gave; undefined when it gave none.
   */
  elapsedAt(now: number): number | undefined {
    const given = this._metadata.elapsed_s;
    return given === undefined
      ? undefined
      : given + (now - this._givenAt) / 1000;
  }

  /**
   * Take a refresh: a `delta` refresh's rows replace those of the same index, any other
   * document replaces them all; rows never received are "queued" (or "incomplete" when this
   * model never saw the whole document: a delta saved mid-run and reopened).  The result is
   * parsed here, once; a live run goes stale unless refreshed within `STALE_MS`.
   */
  update(data: unknown, metadata: unknown): void {
    const [merged, mergedMetadata] = this._merge(data, metadata);
    this._data = merged;
    this._parsed = parseRun(merged);
    this._metadata = parseMetadata(mergedMetadata);
    this._givenAt = performance.now();
    this._stale = false;
    const run = this.run;
    if (run !== null && !run.finished) {
      this._eta = nextEta(this._eta, run, this._metadata);
    }
    this._watch();
    this._changed.emit();
  }

  /** Stop the stale timer: the output is gone. */
  dispose(): void {
    window.clearTimeout(this._timer);
    Signal.clearData(this);
  }

  private _watch(): void {
    window.clearTimeout(this._timer);
    if (this.live) {
      this._timer = window.setTimeout(() => {
        this._stale = true;
        this._changed.emit();
      }, STALE_MS);
    }
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

  private _changed = new Signal<this, void>(this);
  private _data: unknown = null;
  private _parsed: ParseResult = { ok: false, message: '' };
  private _metadata: IRunMetadata = {};
  private _givenAt = 0;
  private _stale = false;
  private _eta: IEta | undefined = undefined;
  private _timer = 0;
  private _rows = new Map<number, JSONish>();
  private _timings = new Map<number, JSONish>();
  private _whole = false;
}
