// Pure view logic for incidents and alerts: labels, filters, and which alert comes next.
import type { IncidentRow, IncidentStatus, Severity, SeverityCounts } from "./bindings";

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

/** "burn_miscount" → "Burn miscount". */
export function codeLabel(code: string): string {
  const words = code.replace(/_/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export interface IncidentFilter {
  table: string;
  status: IncidentStatus | "unresolved" | "all";
  severity: Severity | "all";
  text: string;
}

export const NO_FILTER: IncidentFilter = { table: "", status: "all", severity: "all", text: "" };

export function filterIncidents(rows: readonly IncidentRow[], f: IncidentFilter): IncidentRow[] {
  const text = f.text.trim().toLowerCase();
  return rows.filter(
    (r) =>
      (f.table === "" || r.table === f.table) &&
      (f.status === "all" || (f.status === "unresolved" ? r.status !== "resolved" : r.status === f.status)) &&
      (f.severity === "all" || r.severity === f.severity) &&
      (text === "" || [r.code, codeLabel(r.code), r.message, r.rule, r.table].some((s) => s.toLowerCase().includes(text))),
  );
}

/** Newest first; a row that changed replaces the old one, a new one is added. */
export function upsertIncident(rows: readonly IncidentRow[], row: IncidentRow): IncidentRow[] {
  const rest = rows.filter((r) => r.id !== row.id);
  return [row, ...rest].sort((a, b) => b.id - a.id);
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
