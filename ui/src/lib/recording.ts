// Whether everything received is being recorded, as a banner every screen shows: what the
// monitor reports (`RecordingStatus`) in words, while recording is degraded and for a short while
// after it has recovered.
import type { RecordingStatus } from "./bindings";

/** How long the "recovered" banner stays after the backlog is written. */
export const RECOVERED_SHOWN_MS = 30_000;

export type RecordingBanner = {
  /** `degraded` while anything waits; `recovered` once it is written. */
  tone: "degraded" | "recovered";
  title: string;
  detail: string;
};

/** A byte count for people: 512 B, 3.4 KB, 12 MB. */
export function bytes(n: number): string {
  if (n < 1000) return `${n} B`;
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)} KB`;
  if (n < 1_000_000_000) return `${(n / 1_000_000).toFixed(n < 10_000_000 ? 1 : 0)} MB`;
  return `${(n / 1_000_000_000).toFixed(1)} GB`;
}

/** A duration for people: 12 s, 3 min 5 s, 2 h 4 min. */
export function duration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${s % 60} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

/**
 * The banner for `status` at `nowMs` (`receivedMs`: when the status arrived), or `null` when
 * there is nothing to say.
 */
export function recordingBanner(
  status: RecordingStatus | null,
  receivedMs: number,
  nowMs: number,
): RecordingBanner | null {
  if (!status) return null;
  const since = status.sinceMs === null ? "" : ` for ${duration(nowMs - status.sinceMs)}`;
  const dropped =
    status.droppedBytes > 0
      ? ` ${bytes(status.droppedBytes)} could not be kept: each loss is an incident.`
      : "";
  if (status.degraded) {
    return {
      tone: "degraded",
      title: `RECORDING DEGRADED${since}`,
      detail:
        `${status.reason}. ${bytes(status.backlogBytes)} (${status.backlogInputs} ${status.backlogInputs === 1 ? "read" : "reads"}) waiting to be written; ` +
        `what the tables show is not up to date.${dropped}`,
    };
  }
  if (nowMs - receivedMs > RECOVERED_SHOWN_MS) return null;
  return {
    tone: "recovered",
    title: "Recording recovered",
    detail: `Everything that waited is on record (it was: ${status.reason}).${dropped}`,
  };
}
