// How long a live event takes to reach the screen: from the host's receive time of the oldest new
// event a tile update carries (`oldestUnsentAtMs`: it waited longest for the desk's flush) to the
// moment the DOM shows that tile, and to the moment the frame with it has been painted. The app records one lag per new event time and
// exposes them on `window.__pitwatchLatency`, which a script or an e2e test reads through
// WebDriver `execute` (scripts/measure-desktop-latency.mjs).

/** The debug hook installed on `window`. */
export interface LatencyHook {
  /**
   * The last `n` lags to the DOM update in milliseconds (all kept, up to the capacity, when `n`
   * is omitted).
   */
  lags(n?: number): number[];
  /** The same, to the end of the first frame painted after the DOM update. */
  painted(n?: number): number[];
  /** The same, to the moment the window's script received the update (before the DOM work). */
  received(n?: number): number[];
  /** Forgets every lag recorded so far. */
  clear(): void;
}

declare global {
  interface Window {
    __pitwatchLatency?: LatencyHook;
  }
}

/** Keeps the most recent lags, one per new event time per table. */
export class LagRecorder {
  private values: number[] = [];
  private latest = new Map<string, number>();

  constructor(private readonly capacity = 20000) {}

  /** Whether `at` is a newer event time for `table` than any recorded (so worth measuring). */
  fresh(table: string, at: number | null): at is number {
    if (at === null) return false;
    const last = this.latest.get(table);
    return last === undefined || at > last;
  }

  /**
   * Records that the update whose newest event was received at `at` was shown at `shownAt`, its
   * lag counted from `from` (its oldest new event's receive time; `at` by default). All Unix
   * milliseconds.
   */
  record(table: string, at: number, shownAt: number, from: number = at): void {
    const last = this.latest.get(table);
    if (last !== undefined && at <= last) return;
    this.latest.set(table, at);
    this.values.push(shownAt - Math.min(from, at));
    if (this.values.length > this.capacity) this.values.splice(0, this.values.length - this.capacity);
  }

  lags(n?: number): number[] {
    return n === undefined ? [...this.values] : this.values.slice(-n);
  }

  clear(): void {
    this.values = [];
  }
}

/** The `p`-th percentile (0–100, nearest rank) of `values`, or null when there are none. */
export function percentile(values: number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((Math.min(Math.max(p, 0), 100) / 100) * sorted.length);
  return sorted[Math.max(rank - 1, 0)] ?? null;
}

/** Runs `then` once the browser has painted the next frame (a frame callback, then a task). */
export function afterNextPaint(then: () => void): void {
  requestAnimationFrame(() => setTimeout(then, 0));
}

/**
 * The two lags of each new event: to the DOM, and to the painted frame. `shown` is called once the
 * DOM shows the tile's state; `paint` schedules the second reading (injectable for tests).
 */
export class LatencyProbe implements LatencyHook {
  readonly arrival: LagRecorder;
  readonly dom: LagRecorder;
  readonly paint: LagRecorder;

  constructor(
    private readonly onPaint: (then: () => void) => void = afterNextPaint,
    private readonly clock: () => number = Date.now,
    capacity = 20000,
  ) {
    this.arrival = new LagRecorder(capacity);
    this.dom = new LagRecorder(capacity);
    this.paint = new LagRecorder(capacity);
  }

  /**
   * The update with `table`'s events received from `from` to `at` has reached the window's
   * script. Each lag is the update's worst: counted from its oldest new event.
   */
  arrived(table: string, at: number, from: number = at): void {
    this.arrival.record(table, at, this.clock(), from);
  }

  /** Whether `at` is a newer event time for `table` than any measured. */
  fresh(table: string, at: number | null): at is number {
    return this.dom.fresh(table, at);
  }

  /** The DOM now shows `table`'s events received from `from` to `at`: record, wait for the paint. */
  shown(table: string, at: number, from: number = at): void {
    this.dom.record(table, at, this.clock(), from);
    this.onPaint(() => this.paint.record(table, at, this.clock(), from));
  }

  lags(n?: number): number[] {
    return this.dom.lags(n);
  }

  painted(n?: number): number[] {
    return this.paint.lags(n);
  }

  received(n?: number): number[] {
    return this.arrival.lags(n);
  }

  clear(): void {
    this.arrival.clear();
    this.dom.clear();
    this.paint.clear();
  }
}
