// How long a live event takes to reach the screen: from the host's receive time of the latest
// event on a tile (its `at`, in `lastEventAtMs`) to the moment the DOM shows that tile. The app
// records one lag per new event time and exposes them on `window.__pitwatchLatency`, which a
// script or an e2e test reads through WebDriver `execute` (scripts/measure-desktop-latency.mjs).

/** The debug hook installed on `window`. */
export interface LatencyHook {
  /** The last `n` lags in milliseconds (all kept, up to the capacity, when `n` is omitted). */
  lags(n?: number): number[];
  /** Forgets every lag recorded so far. */
  clear(): void;
}

declare global {
  interface Window {
    __pitwatchLatency?: LatencyHook;
  }
}

/** Keeps the most recent lags, one per new event time per table. */
export class LagRecorder implements LatencyHook {
  private values: number[] = [];
  private latest = new Map<string, number>();

  constructor(private readonly capacity = 20000) {}

  /** Whether `at` is a newer event time for `table` than any recorded (so worth measuring). */
  fresh(table: string, at: number | null): at is number {
    if (at === null) return false;
    const last = this.latest.get(table);
    return last === undefined || at > last;
  }

  /** Records that the event received at `at` was shown at `shownAt` (both Unix milliseconds). */
  record(table: string, at: number, shownAt: number): void {
    const last = this.latest.get(table);
    if (last !== undefined && at <= last) return;
    this.latest.set(table, at);
    this.values.push(shownAt - at);
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
