import { describe, expect, it } from "vitest";
import type { IncidentRow } from "./bindings";
import { alerts, codeLabel, filterIncidents, nextAlert, NO_FILTER, severityBadges, upsertIncident } from "./incidents";

function row(id: number, extra: Partial<IncidentRow> = {}): IncidentRow {
  return {
    id,
    table: "BAC-1",
    code: "burn_miscount",
    severity: "high",
    rule: "7.7(b)",
    shoe: 1,
    round: null,
    seq: id * 10,
    message: "Burned 3 cards, the first card says 4",
    openedAt: "2026-11-30T09:00:00Z",
    status: "open",
    ...extra,
  };
}

const rows = [
  row(1, { status: "resolved" }),
  row(2, { table: "MINI-1", severity: "critical", code: "foreign_card", status: "acknowledged" }),
  row(3, { severity: "low", code: "card_exposed" }),
  row(4, { table: "BAC-2", severity: "critical" }),
];

describe("filterIncidents", () => {
  it("filters by table, status, severity and text together", () => {
    expect(filterIncidents(rows, NO_FILTER).map((r) => r.id)).toEqual([1, 2, 3, 4]);
    expect(filterIncidents(rows, { ...NO_FILTER, table: "BAC-1" }).map((r) => r.id)).toEqual([1, 3]);
    expect(filterIncidents(rows, { ...NO_FILTER, status: "unresolved" }).map((r) => r.id)).toEqual([2, 3, 4]);
    expect(filterIncidents(rows, { ...NO_FILTER, status: "open", severity: "critical" }).map((r) => r.id)).toEqual([4]);
    expect(filterIncidents(rows, { ...NO_FILTER, text: "Foreign card" }).map((r) => r.id)).toEqual([2]);
    expect(filterIncidents(rows, { ...NO_FILTER, text: "7.7" }).length).toBe(4);
  });
});

describe("alerts", () => {
  it("are the open incidents, most severe first, then newest", () => {
    expect(alerts(rows).map((r) => r.id)).toEqual([4, 3]);
    expect(alerts([row(5), row(6), row(7, { severity: "critical" })]).map((r) => r.id)).toEqual([7, 6, 5]);
  });

  it("step to the next alert, wrapping, and start at the first", () => {
    const list = alerts([row(5), row(6), row(7, { severity: "critical" })]);
    expect(nextAlert(list, null)?.id).toBe(7);
    expect(nextAlert(list, 7)?.id).toBe(6);
    expect(nextAlert(list, 5)?.id).toBe(7);
    expect(nextAlert([], 5)).toBeNull();
  });
});

describe("upsertIncident", () => {
  it("replaces a changed row and keeps newest first", () => {
    const updated = upsertIncident(rows, row(3, { status: "acknowledged" }));
    expect(updated.map((r) => r.id)).toEqual([4, 3, 2, 1]);
    expect(updated.find((r) => r.id === 3)?.status).toBe("acknowledged");
    expect(upsertIncident(updated, row(9)).map((r) => r.id)).toEqual([9, 4, 3, 2, 1]);
  });
});

describe("labels", () => {
  it("words codes and lists severities that have a count, most severe first", () => {
    expect(codeLabel("out_of_order_card")).toBe("Out of order card");
    expect(severityBadges({ critical: 0, high: 2, medium: 0, low: 1 })).toEqual([
      { severity: "high", count: 2 },
      { severity: "low", count: 1 },
    ]);
  });
});
