import { describe, expect, it } from "vitest";
import type { TableTile } from "./bindings";
import { ageLabel, filterTables, openIncidents, replaceTable, sortTables, statusCounts, statusReason } from "./pit";

function tile(name: string, status: TableTile["status"], extra: Partial<TableTile> = {}): TableTile {
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
    incidents: { critical: 0, high: 0, medium: 0, low: 0 },
    lastShuffle: null,
    shuffleSteps: [],
    alarm: null,
    disabled: null,
    ...extra,
  };
}

const pit = [
  tile("BAC-10", "connected"),
  tile("BAC-2", "error"),
  tile("MINI-1", "not_monitored", { protocol: "barcode", link: "/dev/ttyUSB3 @ 9600 baud" }),
  tile("BAC-1", "reconnecting"),
  tile("BAC-3", "error"),
];

describe("sortTables", () => {
  it("keeps the pit order by default", () => {
    expect(sortTables(pit, "pit").map((t) => t.name)).toEqual(["BAC-10", "BAC-2", "MINI-1", "BAC-1", "BAC-3"]);
  });

  it("sorts names numerically", () => {
    expect(sortTables(pit, "name").map((t) => t.name)).toEqual(["BAC-1", "BAC-2", "BAC-3", "BAC-10", "MINI-1"]);
  });

  it("puts tables that need attention first, stable among equals", () => {
    expect(sortTables(pit, "status").map((t) => t.name)).toEqual(["BAC-2", "BAC-3", "BAC-1", "MINI-1", "BAC-10"]);
  });

  it("puts tables with the most severe open incidents first among equal statuses", () => {
    const some = [
      tile("A", "connected", { incidents: { critical: 0, high: 3, medium: 0, low: 0 } }),
      tile("B", "connected", { incidents: { critical: 1, high: 0, medium: 0, low: 0 } }),
      tile("C", "connected"),
      tile("D", "error"),
    ];
    expect(sortTables(some, "status").map((t) => t.name)).toEqual(["D", "B", "A", "C"]);
  });

  it("does not reorder the input", () => {
    sortTables(pit, "name");
    expect(pit[0]?.name).toBe("BAC-10");
  });
});

describe("filterTables", () => {
  it("matches name, protocol and link, ignoring case", () => {
    expect(filterTables(pit, "mini").map((t) => t.name)).toEqual(["MINI-1"]);
    expect(filterTables(pit, "barcode").map((t) => t.name)).toEqual(["MINI-1"]);
    expect(filterTables(pit, "ttyUSB3").map((t) => t.name)).toEqual(["MINI-1"]);
    expect(filterTables(pit, "  ").length).toBe(5);
    expect(filterTables(pit, "roulette")).toEqual([]);
  });
});

describe("statusCounts", () => {
  it("counts every status", () => {
    expect(statusCounts(pit)).toEqual({ connected: 1, reconnecting: 1, error: 2, not_monitored: 1 });
  });
});

describe("live tiles", () => {
  it("word the age of the last frame", () => {
    expect(ageLabel(null, 1000)).toBe("no frame yet");
    expect(ageLabel(1000, 1500)).toBe("now");
    expect(ageLabel(0, 42_000)).toBe("42 s ago");
    expect(ageLabel(0, 180_000)).toBe("3 min ago");
    expect(ageLabel(0, 7_300_000)).toBe("2 h ago");
  });

  it("replace a tile in place and ignore unknown tables", () => {
    const changed = replaceTable(pit, tile("BAC-2", "connected", { cardsDealt: 9 }));
    expect(changed.map((t) => t.name)).toEqual(pit.map((t) => t.name));
    expect(changed[1]?.cardsDealt).toBe(9);
    expect(replaceTable(pit, tile("BAC-99", "connected"))).toEqual(pit);
  });

  it("count open incidents over every severity", () => {
    expect(openIncidents(tile("X", "connected", { incidents: { critical: 1, high: 2, medium: 0, low: 3 } }))).toBe(6);
  });
});

describe("statusReason", () => {
  it("says why a device is in error or reconnecting, starting with a capital", () => {
    expect(statusReason(tile("T", "error", { statusDetail: "card jam at elevator (device error JAM)" }))).toBe(
      "Card jam at elevator (device error JAM)",
    );
    expect(
      statusReason(tile("T", "reconnecting", { statusDetail: "cannot open /dev/ttyUSB7: No such file or directory" })),
    ).toBe("Cannot open /dev/ttyUSB7: No such file or directory");
  });

  it("says nothing for a connected device, whose detail is only its port, or when nothing was said", () => {
    expect(statusReason(tile("T", "connected", { statusDetail: "serial /dev/pts/0 9600 8N1" }))).toBeNull();
    expect(statusReason(tile("T", "error", { statusDetail: "  " }))).toBeNull();
    expect(statusReason(tile("T", "not_monitored", { statusDetail: "x" }))).toBeNull();
  });
});
