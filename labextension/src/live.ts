/**
 * A live run's rows, kept by the renderer from one refresh to the next: a refresh marked
 * `delta` (z3sandbox_kernel/presentation/live.py) carries only the rows that changed since the previous one.
 */

type JSONish = { [key: string]: unknown };

function isObject(value: unknown): value is JSONish {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Rows and timings by candidate index, merged from one refresh to the next. */
export class LiveRows {
  /**
   * The document with every row known so far: a `delta` refresh's rows replace those of the
   * same index; rows never received are "queued" (or "incomplete" when this renderer never saw
   * the whole document: a delta saved mid-run and reopened).
   */
  merge(data: unknown, metadata: unknown): [unknown, unknown] {
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
}
