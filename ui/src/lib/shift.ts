// The shift handover screen's logic: the period a report covers, read and written as UTC times
// to the minute ("2026-11-30 06:00"), and the checks made before asking the desk (which checks
// again).

import type { ShiftQuery } from "./bindings";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** `ms` as "YYYY-MM-DD HH:MM", in UTC. */
export function formatUtc(ms: number): string {
  return new Date(ms).toISOString().slice(0, 16).replace("T", " ");
}

/**
 * A time typed as "YYYY-MM-DD HH:MM" (or with seconds, or "T" between), read as UTC; null when it
 * is not one.
 */
export function parseUtc(text: string): number | null {
  const m = /^\s*(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2}))?\s*(?:Z|UTC)?\s*$/i.exec(text);
  if (!m) return null;
  const num = (i: number): number => Number(m[i] ?? 0);
  const [year, month, day, hour, minute, second] = [num(1), num(2), num(3), num(4), num(5), num(6)];
  const ms = Date.UTC(year, month - 1, day, hour, minute, second);
  const back = new Date(ms);
  // Date.UTC rolls 2026-02-30 over to March: such a date is not one.
  if (back.getUTCMonth() !== month - 1 || back.getUTCDate() !== day || hour > 23 || minute > 59 || second > 59) {
    return null;
  }
  return ms;
}

/** The shift of `hours` ending at the last whole minute before `nowMs`. */
export function shiftEndingNow(nowMs: number, hours: number): { from: string; to: string } {
  const to = Math.floor(nowMs / MINUTE) * MINUTE;
  return { from: formatUtc(to - hours * HOUR), to: formatUtc(to) };
}

/** The query for the desk, or what is wrong with the fields. */
export function shiftQuery(from: string, to: string, table: string): ShiftQuery | string {
  const start = parseUtc(from);
  if (start === null) return `The start "${from}" is not a time like 2026-11-30 06:00 (UTC).`;
  const end = parseUtc(to);
  if (end === null) return `The end "${to}" is not a time like 2026-11-30 18:00 (UTC).`;
  if (end <= start) return "The shift must end after it starts.";
  return {
    from: new Date(start).toISOString(),
    to: new Date(end).toISOString(),
    table: table === "" ? null : table,
  };
}

/** How long a shift is, in words ("12 h", "7 h 30 min"). */
export function shiftLength(from: string, to: string): string | null {
  const start = parseUtc(from);
  const end = parseUtc(to);
  if (start === null || end === null || end <= start) return null;
  const minutes = Math.round((end - start) / MINUTE);
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return m === 0 ? `${h} h` : h === 0 ? `${m} min` : `${h} h ${m} min`;
}
