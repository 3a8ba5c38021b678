// The shift handover screen's logic: the period a report covers, read and written as UTC times
// to the minute ("2026-11-30 06:00"), and the checks made before asking the desk (which checks
// again).

import type { HandoverSummary, LinkStatus, ShiftQuery, SignOffRow } from "./bindings";

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

const LINK_WORDS: Record<LinkStatus, string> = {
  not_monitored: "not monitored",
  connected: "connected",
  reconnecting: "reconnecting",
  error: "device error",
};

/** `n` things, singular or plural ("1 device", "3 devices"). */
function count(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * What a shift hands over, in lines for the summary shown before signing: the open incidents by
 * severity (and how many nobody acknowledged), the devices not connected, the tables closed or
 * disabled.
 */
export function summaryLines(summary: HandoverSummary): { incidents: string; devices: string[]; tables: string[] } {
  const c = summary.openIncidents;
  const total = c.critical + c.high + c.medium + c.low;
  const parts = (
    [
      ["critical", c.critical],
      ["high", c.high],
      ["medium", c.medium],
      ["low", c.low],
    ] as const
  )
    .filter(([, n]) => n > 0)
    .map(([name, n]) => `${n} ${name}`);
  const incidents =
    total === 0
      ? "No open incident."
      : `${count(total, "open incident", "open incidents")}: ${parts.join(", ")}` +
        (summary.unacknowledged > 0 ? ` (${summary.unacknowledged} not acknowledged).` : " (all acknowledged).");
  const devices = summary.devicesDown.map(
    (d) => `${d.table}: ${d.device} ${LINK_WORDS[d.status]}${d.detail.trim() === "" ? "" : ` (${d.detail.trim()})`}`,
  );
  const tables = summary.tablesDown.map((t) => `${t.table}: ${t.why}`);
  return { incidents, devices, tables };
}

/** A sign-off on record in words: who, when, the period, who accepted it. */
export function signOffLine(row: SignOffRow): string {
  const at = (text: string) => formatUtc(Date.parse(text));
  const scope = row.table === null ? "every table" : row.table;
  const accepted = row.acceptedBy === null ? "not accepted by an incoming supervisor" : `accepted by ${row.acceptedBy}`;
  return `${row.user} signed off ${at(row.from)} to ${at(row.to)} UTC (${scope}) at ${at(row.at)} UTC, ${accepted}.`;
}

/**
 * What is missing before a sign-off can be asked for, or null: the user's password, the incoming
 * supervisor (someone other than `self`) and their password; and no sign-off of the period on record.
 */
export function signOffProblem(
  self: string | null,
  password: string,
  incoming: string,
  incomingPassword: string,
  summary: HandoverSummary | null,
): string | null {
  const signed = summary?.signed[0];
  if (signed) return `This period is already signed off: ${signOffLine(signed)} A period is signed off once.`;
  if (password === "") return "Enter your password to sign off.";
  if (incoming.trim() === "") return "The incoming supervisor accepts the handover: enter their user name.";
  if (self !== null && incoming.trim() === self) return "The incoming supervisor must be someone else.";
  if (incomingPassword === "") return "The incoming supervisor enters their password to accept.";
  return null;
}
