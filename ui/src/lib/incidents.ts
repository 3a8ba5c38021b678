// Pure view logic for incidents and alerts: labels, filters, and which alert comes next.
import type { IncidentPage, IncidentQuery, IncidentRow, IncidentStatus, ResolutionKind, Severity, SeverityCounts } from "./bindings";
import { IRREGULARITY_WORDS, RESOLUTION_WORDS } from "./bindings";
import { getSiteZone, parseWall, type Zone } from "./time";

/** Severity with a word and a shape, so it never relies on colour alone. */
export const SEVERITY: Record<Severity, { label: string; short: string; glyph: string; rank: number }> = {
  critical: { label: "Critical", short: "CRIT", glyph: "◆", rank: 0 },
  high: { label: "High", short: "HIGH", glyph: "▲", rank: 1 },
  medium: { label: "Medium", short: "MED", glyph: "●", rank: 2 },
  low: { label: "Low", short: "LOW", glyph: "○", rank: 3 },
};

export const SEVERITIES: Severity[] = ["critical", "high", "medium", "low"];

export const STATUS_LABEL: Record<IncidentStatus, string> = {
  open: "Open",
  acknowledged: "Acknowledged",
  resolved: "Resolved",
};

/**
 * An irregularity code as a person reads it, the code kept beside the words for search:
 * "Missing third card (MISSING_THIRD_CARD)" (the words are pitwatch-report's, shared with the
 * reports). A code without words (from a newer workstation) is shown as it is.
 */
export function codeLabel(code: string): string {
  const words = Object.prototype.hasOwnProperty.call(IRREGULARITY_WORDS, code) ? IRREGULARITY_WORDS[code] : undefined;
  return words === undefined ? code : `${words} (${code})`;
}

/** A replay step's irregularity, as the desk gives it ("CODE: message"), with the code in words. */
export function irregularityLine(line: string): string {
  const m = /^([A-Z][A-Z0-9_]*): ([\s\S]*)$/.exec(line);
  return m && m[1] !== undefined && m[2] !== undefined ? `${codeLabel(m[1])}: ${m[2]}` : line;
}

/** An incident's step in words ("opened" → "Opened"); a step this window does not know is shown as it is. */
export function historyLabel(what: string): string {
  const words: Record<string, string> = { opened: "Opened", acknowledged: "Acknowledged", resolved: "Resolved", reopened: "Reopened", note: "Note" };
  return Object.prototype.hasOwnProperty.call(words, what) ? (words[what] ?? what) : what;
}

/**
 * The incident list's filters. All but `text` are applied by the store (server-side, over the whole
 * record); `text` narrows the pages already loaded. `since` and `until` are the site's wall-clock times as a
 * `datetime-local` input gives them ("2026-11-30T09:00"), empty for no bound.
 */
export interface IncidentFilter {
  table: string;
  status: IncidentStatus | "unresolved" | "all";
  severity: Severity | "all";
  code: string;
  since: string;
  until: string;
  text: string;
}

export const NO_FILTER: IncidentFilter = { table: "", status: "all", severity: "all", code: "", since: "", until: "", text: "" };

/** Incidents per page of the list. */
export const PAGE_SIZE = 100;

/** `ms` as RFC 3339 in UTC, its milliseconds only when it has some. */
function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(".000Z", "Z");
}

/**
 * "2026-11-30T09:00" (from a datetime-local input, the site's wall clock: `lib/time.ts`) → RFC 3339
 * in UTC, or null when empty or invalid. A time with its own offset ("…Z", "…+13:00") is taken as it says.
 */
export function siteTime(value: string, zone: Zone = getSiteZone()): string | null {
  const v = value.trim();
  if (v === "") return null;
  if (/(Z|[+-]\d{2}:\d{2})$/.test(v)) {
    const ms = Date.parse(v);
    return Number.isNaN(ms) ? null : rfc3339(ms);
  }
  const ms = parseWall(v, zone);
  return ms === null ? null : rfc3339(ms);
}

/** The store's query for `f`: one page of `limit` incidents older than `before` (null: the first). */
export function toQuery(f: IncidentFilter, before: number | null = null, limit: number = PAGE_SIZE): IncidentQuery {
  return {
    table: f.table === "" ? null : f.table,
    status: f.status === "all" || f.status === "unresolved" ? null : f.status,
    unresolved: f.status === "unresolved",
    severity: f.severity === "all" ? null : f.severity,
    code: f.code.trim() === "" ? null : f.code.trim(),
    since: siteTime(f.since),
    until: siteTime(f.until),
    before,
    limit,
  };
}

/** Whether `a` and `b` ask the store the same (they differ at most in the text search). */
export function sameQuery(a: IncidentFilter, b: IncidentFilter): boolean {
  return JSON.stringify(toQuery(a)) === JSON.stringify(toQuery(b));
}

/** Whether `row` matches the store-side part of `f` (the same test the store applies). */
export function matchesQuery(row: IncidentRow, f: IncidentFilter): boolean {
  const at = Date.parse(row.openedAt);
  const since = siteTime(f.since);
  const until = siteTime(f.until);
  return (
    (f.table === "" || row.table === f.table) &&
    (f.status === "all" || (f.status === "unresolved" ? row.status !== "resolved" : row.status === f.status)) &&
    (f.severity === "all" || row.severity === f.severity) &&
    (f.code.trim() === "" || row.code === f.code.trim()) &&
    (since === null || at >= Date.parse(since)) &&
    (until === null || at < Date.parse(until))
  );
}

/** The loaded text search over rows already on screen (code, rule, message, table). */
export function searchLoaded(rows: readonly IncidentRow[], text: string): IncidentRow[] {
  const t = text.trim().toLowerCase();
  if (t === "") return [...rows];
  return rows.filter((r) => [r.code, codeLabel(r.code), r.message, r.rule, r.table].some((s) => s.toLowerCase().includes(t)));
}

/** Every filter at once, over rows in memory (the store's part and the text search). */
export function filterIncidents(rows: readonly IncidentRow[], f: IncidentFilter): IncidentRow[] {
  return searchLoaded(
    rows.filter((r) => matchesQuery(r, f)),
    f.text,
  );
}

/**
 * The pages of the list loaded so far: rows newest first, the cursor for the next page (the last
 * row's id; null when every match is loaded), and how many match in all.
 */
export interface IncidentList {
  rows: IncidentRow[];
  next: number | null;
  total: number;
}

export const EMPTY_LIST: IncidentList = { rows: [], next: null, total: 0 };

/** Newest first; a row that changed replaces the old one, a new one is added. */
export function upsertIncident(rows: readonly IncidentRow[], row: IncidentRow): IncidentRow[] {
  const rest = rows.filter((r) => r.id !== row.id);
  return [row, ...rest].sort((a, b) => b.id - a.id);
}

/** The first page of a list. */
export function firstPage(page: IncidentPage): IncidentList {
  return { rows: [...page.incidents].sort((a, b) => b.id - a.id), next: page.next, total: page.total };
}

/** `list` with the next page appended (a row already shown, e.g. one that arrived live, once). */
export function appendPage(list: IncidentList, page: IncidentPage): IncidentList {
  let rows = list.rows;
  for (const row of page.incidents) {
    if (!rows.some((r) => r.id === row.id)) rows = [...rows, row];
  }
  return { rows: [...rows].sort((a, b) => b.id - a.id), next: page.next, total: page.total };
}

/** Whether `id` falls among the pages loaded (newer than the cursor, or every page is loaded). */
function inLoadedRange(list: IncidentList, id: number): boolean {
  return list.next === null || id > list.next;
}

/**
 * A live change to `list` (filtered by `f`): a new or changed incident is added, replaced or taken
 * out as it now matches, and the total follows. `recount` is true when the change may have moved
 * the total in a way the list cannot know (an incident not loaded that may have stopped matching):
 * ask the store for the total again.
 */
export function applyLive(
  list: IncidentList,
  row: IncidentRow,
  f: IncidentFilter,
  isNew: boolean,
): { list: IncidentList; recount: boolean } {
  const present = list.rows.some((r) => r.id === row.id);
  const matches = matchesQuery(row, f);
  if (present && matches) return { list: { ...list, rows: upsertIncident(list.rows, row) }, recount: false };
  if (present) return { list: { ...list, rows: list.rows.filter((r) => r.id !== row.id), total: Math.max(list.total - 1, 0) }, recount: false };
  if (matches) {
    const total = list.total + 1;
    // An older incident that now matches is counted; its page shows it when it is loaded.
    const rows = inLoadedRange(list, row.id) ? upsertIncident(list.rows, row) : list.rows;
    // Among the pages loaded every match is shown, so a changed one shown nowhere did not match
    // before; an older one not loaded yet may have (and so be counted already).
    return { list: { ...list, rows, total }, recount: !isNew && !inLoadedRange(list, row.id) };
  }
  // Not shown and not matching: a new one is simply not for this list; a changed one not loaded
  // may have matched before.
  return { list, recount: !isNew && !inLoadedRange(list, row.id) };
}

/** Puts `row` in the list if it matches (e.g. the incident an alert opens), without counting it. */
export function reveal(list: IncidentList, row: IncidentRow, f: IncidentFilter): IncidentList {
  if (!matchesQuery(row, f) || list.rows.some((r) => r.id === row.id)) return list;
  return { ...list, rows: upsertIncident(list.rows, row) };
}

/** Alerts: incidents nobody has acknowledged, most severe first, then newest. */
export function alerts(rows: readonly IncidentRow[]): IncidentRow[] {
  return rows
    .filter((r) => r.status === "open")
    .sort((a, b) => SEVERITY[a.severity].rank - SEVERITY[b.severity].rank || b.id - a.id);
}

/** The alert after `current` (wrapping), or the first if `current` is not an alert. */
export function nextAlert(list: readonly IncidentRow[], current: number | null): IncidentRow | null {
  if (list.length === 0) return null;
  const i = list.findIndex((r) => r.id === current);
  return list[(i + 1) % list.length] ?? null;
}

/** The severities with a count, most severe first. */
export function severityBadges(counts: SeverityCounts): { severity: Severity; count: number }[] {
  return SEVERITIES.map((severity) => ({ severity, count: counts[severity] })).filter((b) => b.count > 0);
}

/** The resolutions a supervisor chooses from, in the desk's order, with its words. */
export const RESOLUTIONS: { kind: ResolutionKind; words: string }[] = (["confirmed", "false_alarm", "duplicate", "other"] as const).map(
  (kind) => ({ kind, words: RESOLUTION_WORDS[kind] ?? kind }),
);

/**
 * The resolution as the record will keep it (the desk's `ResolutionKind::recorded`): the words,
 * then the written text after a colon; for "other" the text alone, which it requires (null without).
 */
export function recordedResolution(kind: ResolutionKind, text: string): string | null {
  const written = text.trim();
  const words = RESOLUTION_WORDS[kind] ?? kind;
  if (kind === "other") return written === "" ? null : written;
  return written === "" ? words : `${words}: ${written}`;
}

/**
 * Why incident `id` in `status` cannot be resolved as `kind` with `text` yet, or null when it can
 * (the desk checks again): acknowledgement comes first, and "Other" needs written text.
 */
export function resolveProblem(id: number, status: IncidentStatus, kind: ResolutionKind, text: string): string | null {
  if (status === "resolved") return `Incident #${id} is already resolved.`;
  if (status === "open") return `Acknowledge incident #${id} first: an incident is resolved only once acknowledged.`;
  if (recordedResolution(kind, text) === null) return `"Other" needs written text saying how incident #${id} was resolved.`;
  return null;
}

/** Why incident `id` in `status` cannot be reopened with `reason`, or null when it can. */
export function reopenProblem(id: number, status: IncidentStatus, reason: string): string | null {
  if (status !== "resolved") return `Incident #${id} is not resolved: only a resolved incident is reopened.`;
  if (reason.trim() === "") return `Say why incident #${id} is reopened.`;
  return null;
}
