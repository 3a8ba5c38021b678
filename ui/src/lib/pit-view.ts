// Pure view logic of the pit screen as a whole: which tables need a supervisor (an incident nobody
// has acknowledged, or a device not connected), their order, what the filters hide, the empty
// state's words, and the tile size the supervisor chose (remembered in the window's storage).
import type { IncidentRow, Severity, TableTile } from "./bindings";
import { SEVERITY } from "./incidents";
import { filterTables, openIncidents, sortTables, STATUS, type SortKey } from "./pit";

/** The pit's tiles: large (every detail) or compact (30-60 tables on one 1920x1080 screen). */
export type PitLayout = "large" | "compact";

export const LAYOUTS: readonly { value: PitLayout; label: string }[] = [
  { value: "large", label: "Large tiles" },
  { value: "compact", label: "Compact tiles" },
];

/** Where the window keeps the supervisor's choices for the pit screen. */
export const LAYOUT_KEY = "pitwatch.pit.layout";
export const SORT_KEY = "pitwatch.pit.sort";

const SORTS: readonly SortKey[] = ["pit", "status", "name"];

/** The storage the choices are kept in (the window's localStorage), or null where there is none. */
export type ChoiceStore = Pick<Storage, "getItem" | "setItem">;

/** The layout kept in `store`; large when none (or an unknown one) was kept. */
export function loadLayout(store: ChoiceStore | null): PitLayout {
  const v = readChoice(store, LAYOUT_KEY);
  return v === "compact" || v === "large" ? v : "large";
}

/** The sort kept in `store`; the pit's order when none (or an unknown one) was kept. */
export function loadSort(store: ChoiceStore | null): SortKey {
  const v = readChoice(store, SORT_KEY);
  return SORTS.find((s) => s === v) ?? "pit";
}

/** Keeps a choice; a store that refuses (full, private mode) only loses the memory of it. */
export function saveChoice(store: ChoiceStore | null, key: string, value: string): void {
  try {
    store?.setItem(key, value);
  } catch {
    // The choice holds for this window; it is not remembered.
  }
}

function readChoice(store: ChoiceStore | null, key: string): string | null {
  try {
    return store?.getItem(key) ?? null;
  } catch {
    return null;
  }
}

/** A table's incidents nobody has acknowledged yet: how many, and the most severe. */
export type Unacknowledged = { count: number; worst: Severity };

/**
 * What nobody has acknowledged, by table, from the open incidents the window holds (the alerts).
 * `complete` says whether those are all of them (the window loads a page of them): when they are
 * not, a table with unresolved incidents and none among the loaded ones may still have one.
 */
export type AttentionSource = { unacknowledged: ReadonlyMap<string, Unacknowledged>; complete: boolean };

/** Counts the open (unacknowledged) rows of `rows` by table; acknowledged or resolved are left out. */
export function unacknowledgedByTable(rows: readonly IncidentRow[]): Map<string, Unacknowledged> {
  const out = new Map<string, Unacknowledged>();
  for (const r of rows) {
    if (r.status !== "open") continue;
    const seen = out.get(r.table);
    if (!seen) out.set(r.table, { count: 1, worst: r.severity });
    else {
      seen.count += 1;
      if (SEVERITY[r.severity].rank < SEVERITY[seen.worst].rank) seen.worst = r.severity;
    }
  }
  return out;
}

/** Whether a table's device is anything but connected (link down, reconnecting, device error, not monitored). */
export function disconnected(t: TableTile): boolean {
  return t.status !== "connected";
}

/**
 * Whether a table has an incident nobody has acknowledged. Where the window holds only some of
 * the open incidents, a table with unresolved ones it cannot rule out counts (never hidden).
 */
export function hasUnacknowledged(t: TableTile, src: AttentionSource): boolean {
  if (src.unacknowledged.has(t.name)) return true;
  return !src.complete && openIncidents(t) > 0;
}

/** A table needs a supervisor when it has an unacknowledged incident or its device is not connected. */
export function needsAttention(t: TableTile, src: AttentionSource): boolean {
  return disconnected(t) || hasUnacknowledged(t, src);
}

/**
 * How urgent a table is, lower first: its most severe unacknowledged incident (critical 0 … low 3)
 * or its link, whichever is worse, a device error weighing as a high incident, reconnecting as a
 * medium one and a table not monitored as a low one; ties go to the other of the two.
 */
function urgency(t: TableTile, src: AttentionSource): number {
  const u = src.unacknowledged.get(t.name);
  const incident = u ? SEVERITY[u.worst].rank : hasUnacknowledged(t, src) ? 3.5 : 9;
  const link = disconnected(t) ? STATUS[t.status].rank + 1 : 9;
  return Math.min(incident, link) * 100 + Math.max(incident, link);
}

/**
 * The tables shown, in order: filtered by `query`, then (with `onlyAttention`) only those needing
 * attention. Sorted "status", tables needing attention come first (the most severe unacknowledged
 * incident or the worst link state first), then the rest in pit order; otherwise the chosen order.
 */
export function shownTables(
  tables: readonly TableTile[],
  opts: { query: string; sort: SortKey; onlyAttention: boolean },
  src: AttentionSource,
): TableTile[] {
  const matched = filterTables(tables, opts.query);
  const kept = opts.onlyAttention ? matched.filter((t) => needsAttention(t, src)) : matched;
  if (opts.sort !== "status") return sortTables(kept, opts.sort);
  const rank = (t: TableTile) => (needsAttention(t, src) ? urgency(t, src) : 1000);
  return [...kept].sort((a, b) => rank(a) - rank(b));
}

/**
 * What the filters hide, in words, or null when every table is shown: "Showing 8 of 30 tables:
 * the filter “BAC” hides 20; 2 match but need no attention."
 */
export function hiddenSummary(
  tables: readonly TableTile[],
  opts: { query: string; onlyAttention: boolean },
  src: AttentionSource,
): string | null {
  const matched = filterTables(tables, opts.query);
  const shown = opts.onlyAttention ? matched.filter((t) => needsAttention(t, src)).length : matched.length;
  if (shown === tables.length) return null;
  const parts: string[] = [];
  const byQuery = tables.length - matched.length;
  if (byQuery > 0) parts.push(`the filter “${opts.query.trim()}” hides ${byQuery}`);
  const calm = matched.length - shown;
  if (calm > 0) parts.push(`${calm} ${calm === 1 ? "needs" : "need"} no attention (connected, nothing unacknowledged)`);
  return `Showing ${shown} of ${plural(tables.length, "table")}: ${parts.join("; ")}.`;
}

/**
 * The empty state: why no tile is shown, saying what the filters hide. `unresolved` is the number
 * of unresolved incidents in the pit (open or acknowledged), so an empty attention list never
 * reads as "nothing open" while acknowledged incidents are still unresolved.
 */
export function emptyMessage(
  tables: readonly TableTile[],
  opts: { query: string; onlyAttention: boolean },
  src: AttentionSource,
): string {
  if (tables.length === 0) return "This pit has no tables.";
  const q = opts.query.trim();
  const matched = filterTables(tables, opts.query);
  if (q !== "" && matched.length === 0) return `No table matches “${q}”.`;
  const unresolved = matched.reduce((n, t) => n + openIncidents(t), 0);
  const where = q === "" ? `All ${plural(matched.length, "table")}` : `The ${plural(matched.length, "table")} matching “${q}”`;
  const still =
    unresolved === 0
      ? "with no incident unresolved."
      : `with no incident unacknowledged; ${plural(unresolved, "acknowledged incident")} ${unresolved === 1 ? "is" : "are"} still unresolved (see Incidents).`;
  const elsewhere = q === "" ? 0 : tables.filter((t) => !matched.includes(t) && needsAttention(t, src)).length;
  const hidden = elsewhere > 0 ? ` The filter hides ${plural(elsewhere, "table")} needing attention.` : "";
  return `${where} ${matched.length === 1 ? "is" : "are"} connected, ${still}${hidden}`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}
