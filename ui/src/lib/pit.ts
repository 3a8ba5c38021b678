// Pure view logic for the pit overview: labels, ordering and filtering of table tiles.
import type { LinkStatus, Protocol, TableTile } from "./bindings";
import { gameLabel } from "../games";

export const PROTOCOL_LABEL: Record<Protocol, string> = {
  "angel-eye": "Angel Eye II-EX",
  barcode: "Barcode shoe",
  pitwatch: "Pitwatch protocol",
};

/** Status text and a glyph, so that state never relies on colour alone. */
export const STATUS: Record<LinkStatus, { label: string; glyph: string; rank: number }> = {
  error: { label: "Device error", glyph: "⚠", rank: 0 },
  reconnecting: { label: "Reconnecting", glyph: "↻", rank: 1 },
  not_monitored: { label: "Not monitored", glyph: "○", rank: 2 },
  connected: { label: "Connected", glyph: "●", rank: 3 },
};

/** How urgently a table's open incidents need a look: the most severe weigh the most. */
export function attention(t: TableTile): number {
  const i = t.incidents;
  return i.critical * 1000 + i.high * 100 + i.medium * 10 + i.low;
}

export type SortKey = "pit" | "name" | "status";

/**
 * Orders tiles for display. "pit" keeps the pit definition's order; "status" puts the tables that
 * need attention first, keeping the pit order among equals (the sort is stable).
 */
export function sortTables(tables: readonly TableTile[], by: SortKey): TableTile[] {
  const copy = [...tables];
  switch (by) {
    case "pit":
      return copy;
    case "name":
      return copy.sort((a, b) => a.name.localeCompare(b.name, undefined, { numeric: true }));
    case "status":
      return copy.sort((a, b) => STATUS[a.status].rank - STATUS[b.status].rank || attention(b) - attention(a));
  }
}

/** Tables whose name, game, rule book or link contains the query (case-insensitive). */
export function filterTables(tables: readonly TableTile[], query: string): TableTile[] {
  const q = query.trim().toLowerCase();
  if (q === "") return [...tables];
  return tables.filter((t) =>
    [t.name, gameLabel(t.game), t.ruleBook, t.link, PROTOCOL_LABEL[t.protocol]].some((field) =>
      field.toLowerCase().includes(q),
    ),
  );
}

/** Counts of tables per status, for the header summary. */
export function statusCounts(tables: readonly TableTile[]): Record<LinkStatus, number> {
  const counts: Record<LinkStatus, number> = {
    connected: 0,
    reconnecting: 0,
    error: 0,
    not_monitored: 0,
  };
  for (const t of tables) counts[t.status] += 1;
  return counts;
}

/** How long ago, in words short enough for a tile: "now", "4 s", "2 min", "3 h". */
export function ageLabel(thenMs: number | null, nowMs: number): string {
  if (thenMs === null) return "no frame yet";
  const s = Math.max(0, Math.round((nowMs - thenMs) / 1000));
  if (s < 2) return "now";
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  return `${Math.floor(s / 3600)} h ago`;
}

/** Replaces the tile of the same name (keeping the pit order); unknown tables are ignored. */
export function replaceTable(tables: readonly TableTile[], tile: TableTile): TableTile[] {
  return tables.map((t) => (t.name === tile.name ? tile : t));
}

/** Unresolved incidents at a table, all severities. */
export function openIncidents(t: TableTile): number {
  return t.incidents.critical + t.incidents.high + t.incidents.medium + t.incidents.low;
}

/**
 * Why a table's device is not connected, for the tile: what the link or the device last said
 * (a port that cannot be opened, a dropped connection, a card jam), with a capital first letter.
 * Null when the device is connected (its detail is then only the port) or nothing was said.
 */
export function statusReason(t: TableTile): string | null {
  if (t.status === "connected" || t.status === "not_monitored") return null;
  const detail = t.statusDetail.trim();
  if (detail === "") return null;
  return detail.charAt(0).toUpperCase() + detail.slice(1);
}
