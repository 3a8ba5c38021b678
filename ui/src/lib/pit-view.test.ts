import { describe, expect, it } from "vitest";
import type { IncidentRow, Severity, TableTile } from "./bindings";
import {
  emptyMessage,
  hiddenSummary,
  loadLayout,
  loadSort,
  LAYOUT_KEY,
  needsAttention,
  saveChoice,
  shownTables,
  SORT_KEY,
  unacknowledgedByTable,
  type AttentionSource,
} from "./pit-view";

function tile(name: string, status: TableTile["status"], unresolved = 0): TableTile {
  return {
    name,
    game: "baccarat",
    ruleBook: "nz-baccarat",
    protocol: "angel-eye",
    link: "simulated",
    status,
    statusDetail: "",
    devices: [],
    lastFrameMs: null,
    framesAccepted: 0,
    framesRejected: 0,
    lastEventAtMs: null,
    oldestUnsentAtMs: null,
    shoe: 1,
    cardsDealt: 0,
    cardsLeft: 416,
    cuttingCardOut: false,
    play: { game: "baccarat", burnDue: true, burnDone: false, current: { round: 0, player: [], banker: [], result: null }, rounds: [] },
    incidents: { critical: 0, high: unresolved, medium: 0, low: 0 },
    lastShuffle: null,
    shuffleSteps: [],
    alarm: null,
    disabled: null,
  };
}

let nextId = 1;
function row(table: string, severity: Severity, status: IncidentRow["status"] = "open"): IncidentRow {
  return {
    id: nextId++,
    table,
    code: "MISSING_THIRD_CARD",
    severity,
    rule: "12.1",
    shoe: 1,
    round: 3,
    seq: 10,
    message: "m",
    openedAt: "2026-01-01T00:00:00Z",
    status,
  };
}

function source(rows: IncidentRow[], complete = true): AttentionSource {
  return { unacknowledged: unacknowledgedByTable(rows), complete };
}

/** The pit: 30 tables, most with acknowledged incidents only, three needing attention. */
function pit30(): { tables: TableTile[]; src: AttentionSource } {
  const tables = Array.from({ length: 30 }, (_, i) => tile(`BAC-${i + 1}`, "connected", i < 19 ? 4 : 0));
  tables[29] = tile("BAC-30", "reconnecting");
  const rows = [row("BAC-3", "high"), row("BAC-7", "critical"), row("BAC-3", "critical"), row("BAC-1", "low", "acknowledged")];
  return { tables, src: source(rows) };
}

describe("attention", () => {
  it("counts only what nobody has acknowledged, by table, with the most severe", () => {
    const u = unacknowledgedByTable([row("A", "low"), row("A", "high"), row("B", "medium", "acknowledged"), row("C", "low", "resolved")]);
    expect([...u.entries()]).toEqual([["A", { count: 2, worst: "high" }]]);
  });

  it("means an unacknowledged incident or a device not connected, not an acknowledged one", () => {
    const { tables, src } = pit30();
    const needing = tables.filter((t) => needsAttention(t, src)).map((t) => t.name);
    // 19 tables have unresolved incidents, but only two have one nobody acknowledged.
    expect(needing).toEqual(["BAC-3", "BAC-7", "BAC-30"]);
  });

  it("never hides a table whose incidents the window has not all loaded", () => {
    const t = tile("X", "connected", 2);
    expect(needsAttention(t, source([], true))).toBe(false);
    expect(needsAttention(t, source([], false))).toBe(true);
    expect(needsAttention(tile("Y", "connected"), source([], false))).toBe(false);
  });

  it("puts the tables needing attention first, the disconnected one included, then the rest in pit order", () => {
    const { tables, src } = pit30();
    const order = shownTables(tables, { query: "", sort: "status", onlyAttention: false }, src).map((t) => t.name);
    expect(order.slice(0, 4)).toEqual(["BAC-3", "BAC-7", "BAC-30", "BAC-1"]);
    expect(order.slice(3)).toEqual(tables.filter((t) => !["BAC-3", "BAC-7", "BAC-30"].includes(t.name)).map((t) => t.name));
  });

  it("orders by the worst of the unacknowledged severity and the link, a device error like a high incident", () => {
    const tables = [tile("LOW", "connected", 1), tile("ERR", "error"), tile("CRIT", "connected", 1), tile("OFF", "not_monitored"), tile("RC", "reconnecting")];
    const src = source([row("LOW", "low"), row("CRIT", "critical")]);
    const order = shownTables(tables, { query: "", sort: "status", onlyAttention: true }, src).map((t) => t.name);
    expect(order).toEqual(["CRIT", "ERR", "RC", "LOW", "OFF"]);
  });

  it("keeps the pit order when asked, whatever needs attention", () => {
    const { tables, src } = pit30();
    const order = shownTables(tables, { query: "", sort: "pit", onlyAttention: true }, src).map((t) => t.name);
    expect(order).toEqual(["BAC-3", "BAC-7", "BAC-30"]);
  });
});

describe("what the filters hide", () => {
  it("says nothing when every table is shown", () => {
    const { tables, src } = pit30();
    expect(hiddenSummary(tables, { query: "", onlyAttention: false }, src)).toBeNull();
  });

  it("says how many the filter and the attention box each hide", () => {
    const { tables, src } = pit30();
    expect(hiddenSummary(tables, { query: "BAC-3", onlyAttention: true }, src)).toBe("Showing 2 of 30 tables: the filter “BAC-3” hides 28.");
    expect(hiddenSummary(tables, { query: "", onlyAttention: true }, src)).toBe(
      "Showing 3 of 30 tables: 27 need no attention (connected, nothing unacknowledged).",
    );
  });

  it("empty with the attention box: says the acknowledged incidents are still unresolved, never that none is open", () => {
    const tables = [tile("A", "connected", 40), tile("B", "connected", 32), tile("C", "connected")];
    const src = source([row("A", "high", "acknowledged")]);
    expect(emptyMessage(tables, { query: "", onlyAttention: true }, src)).toBe(
      "All 3 tables are connected, with no incident unacknowledged; 72 acknowledged incidents are still unresolved (see Incidents).",
    );
    expect(emptyMessage([tile("A", "connected")], { query: "", onlyAttention: true }, source([]))).toBe(
      "All 1 table is connected, with no incident unresolved.",
    );
  });

  it("empty with a filter and the attention box: says what the filter hides", () => {
    const tables = [tile("BAC-1", "connected", 2), tile("BAC-2", "connected"), tile("MINI-1", "error")];
    const src = source([]);
    expect(emptyMessage(tables, { query: "BAC-", onlyAttention: true }, src)).toBe(
      "The 2 tables matching “BAC-” are connected, with no incident unacknowledged; 2 acknowledged incidents are still unresolved (see Incidents). The filter hides 1 table needing attention.",
    );
    expect(emptyMessage(tables, { query: "xyz", onlyAttention: true }, src)).toBe("No table matches “xyz”.");
    expect(emptyMessage(tables, { query: "xyz", onlyAttention: false }, src)).toBe("No table matches “xyz”.");
    expect(emptyMessage([], { query: "", onlyAttention: false }, src)).toBe("This pit has no tables.");
  });
});

describe("the supervisor's choices", () => {
  function memory(): Storage {
    const m = new Map<string, string>();
    return {
      getItem: (k: string) => m.get(k) ?? null,
      setItem: (k: string, v: string) => void m.set(k, v),
      removeItem: (k: string) => void m.delete(k),
      clear: () => m.clear(),
      key: () => null,
      get length() {
        return m.size;
      },
    };
  }

  it("remembers the tile size and the order, and falls back on the large tiles in pit order", () => {
    const store = memory();
    expect(loadLayout(store)).toBe("large");
    expect(loadSort(store)).toBe("pit");
    saveChoice(store, LAYOUT_KEY, "compact");
    saveChoice(store, SORT_KEY, "status");
    expect(loadLayout(store)).toBe("compact");
    expect(loadSort(store)).toBe("status");
    store.setItem(LAYOUT_KEY, "tiny");
    store.setItem(SORT_KEY, "random");
    expect(loadLayout(store)).toBe("large");
    expect(loadSort(store)).toBe("pit");
    expect(loadLayout(null)).toBe("large");
  });

  it("keeps working when the store refuses", () => {
    const refusing = {
      getItem: () => {
        throw new Error("denied");
      },
      setItem: () => {
        throw new Error("full");
      },
    };
    expect(() => saveChoice(refusing, LAYOUT_KEY, "compact")).not.toThrow();
    expect(loadLayout(refusing)).toBe("large");
  });
});
