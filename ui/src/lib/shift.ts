// The shift handover screen's logic: the period a report covers, read and written to the minute
// on the site's wall clock ("2026-11-30 06:00", `lib/time.ts`; UTC without a zone), and the checks made before asking the desk (which checks
// again).

import type { HandoverSummary, LinkStatus, ShiftQuery, SignOffRow } from "./bindings";
import { formatAt, getSiteZone, parseWall, zoneName, type Zone } from "./time";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** `ms` as "YYYY-MM-DD HH:MM" on the site's wall clock (`lib/time.ts`; UTC without a zone). */
export function formatMinute(ms: number, zone: Zone = getSiteZone()): string {
  return formatAt(ms, { seconds: false, zone: false }, zone);
}

/**
 * A time typed as "YYYY-MM-DD HH:MM" (or with seconds, or "T" between), read on the site's wall
 * clock, or as UTC when it says "Z" or "UTC"; null when it is not one.
 */
export function parseMinute(text: string, zone: Zone = getSiteZone()): number | null {
  const utc = /^(.*\d)\s*(?:Z|UTC)\s*$/i.exec(text);
  return utc ? parseWall(utc[1] ?? "", null) : parseWall(text, zone);
}

/** The shift of `hours` ending at the last whole minute before `nowMs`. */
export function shiftEndingNow(nowMs: number, hours: number): { from: string; to: string } {
  const to = Math.floor(nowMs / MINUTE) * MINUTE;
  return { from: formatMinute(to - hours * HOUR), to: formatMinute(to) };
}

/** The query for the desk, or what is wrong with the fields. */
export function shiftQuery(from: string, to: string, table: string): ShiftQuery | string {
  const start = parseMinute(from);
  if (start === null) return `The start "${from}" is not a time like 2026-11-30 06:00 (${zoneName()}).`;
  const end = parseMinute(to);
  if (end === null) return `The end "${to}" is not a time like 2026-11-30 18:00 (${zoneName()}).`;
  if (end <= start) return "The shift must end after it starts.";
  return {
    from: new Date(start).toISOString(),
    to: new Date(end).toISOString(),
    table: table === "" ? null : table,
  };
}

/** How long a shift is, in words ("12 h", "7 h 30 min"). */
export function shiftLength(from: string, to: string): string | null {
  const start = parseMinute(from);
  const end = parseMinute(to);
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
  const at = (text: string) => formatAt(text, { seconds: false });
  const scope = row.table === null ? "every table" : row.table;
  const accepted = row.acceptedBy === null ? "not accepted by an incoming supervisor" : `accepted by ${row.acceptedBy}`;
  return `${row.user} signed off ${at(row.from)} to ${at(row.to)} (${scope}) at ${at(row.at)}, ${accepted}.`;
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
