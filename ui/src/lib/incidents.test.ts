import { describe, expect, it } from "vitest";
import type { IncidentRow } from "./bindings";
import { setSiteZone } from "./time";
import {
  siteTime,
  alerts,
  appendPage,
  applyLive,
  codeLabel,
  historyLabel,
  recordedResolution,
  reopenProblem,
  RESOLUTIONS,
  resolveProblem,
  irregularityLine,
  filterIncidents,
  firstPage,
  matchesQuery,
  nextAlert,
  NO_FILTER,
  PAGE_SIZE,
  reveal,
  sameQuery,
  severityBadges,
  toQuery,
  upsertIncident,
} from "./incidents";

function row(id: number, extra: Partial<IncidentRow> = {}): IncidentRow {
  return {
    id,
    table: "BAC-1",
    code: "BURN_COUNT_MISMATCH",
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
  row(2, { table: "MINI-1", severity: "critical", code: "EXCESS_CARD", status: "acknowledged" }),
  row(3, { severity: "low", code: "CARD_EXPOSED" }),
  row(4, { table: "BAC-2", severity: "critical" }),
];

describe("filterIncidents", () => {
  it("filters by table, status, severity and text together", () => {
    expect(filterIncidents(rows, NO_FILTER).map((r) => r.id)).toEqual([1, 2, 3, 4]);
    expect(filterIncidents(rows, { ...NO_FILTER, table: "BAC-1" }).map((r) => r.id)).toEqual([1, 3]);
    expect(filterIncidents(rows, { ...NO_FILTER, status: "unresolved" }).map((r) => r.id)).toEqual([2, 3, 4]);
    expect(filterIncidents(rows, { ...NO_FILTER, status: "open", severity: "critical" }).map((r) => r.id)).toEqual([4]);
    expect(filterIncidents(rows, { ...NO_FILTER, text: "Foreign or duplicate" }).map((r) => r.id)).toEqual([2]);
    expect(filterIncidents(rows, { ...NO_FILTER, text: "excess_card" }).map((r) => r.id)).toEqual([2]);
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
    expect(codeLabel("MISSING_THIRD_CARD")).toBe("Missing third card (MISSING_THIRD_CARD)");
    expect(codeLabel("EXCESS_CARD")).toBe("Foreign or duplicate card (EXCESS_CARD)");
    // A code without words (a newer workstation's) is shown as it is, never guessed at.
    expect(codeLabel("SOMETHING_NEW")).toBe("SOMETHING_NEW");
    expect(codeLabel("constructor")).toBe("constructor");
    expect(irregularityLine("MISSING_THIRD_CARD: The Player's hand of 5 draws a third card (12.1)")).toBe(
      "Missing third card (MISSING_THIRD_CARD): The Player's hand of 5 draws a third card (12.1)",
    );
    expect(irregularityLine("not a code line")).toBe("not a code line");
    expect(historyLabel("acknowledged")).toBe("Acknowledged");
    expect(historyLabel("reopened")).toBe("Reopened");
    expect(historyLabel("escalated")).toBe("escalated");
    expect(severityBadges({ critical: 0, high: 2, medium: 0, low: 1 })).toEqual([
      { severity: "high", count: 2 },
      { severity: "low", count: 1 },
    ]);
  });
});

function page(ids: number[], next: number | null, total: number, extra: Partial<IncidentRow> = {}) {
  return { incidents: ids.map((id) => row(id, extra)), next, total };
}

describe("toQuery", () => {
  it("asks the store for exactly the filters set, a page at a time", () => {
    expect(toQuery(NO_FILTER)).toEqual({
      table: null, status: null, unresolved: false, severity: null, code: null, since: null, until: null, before: null, limit: PAGE_SIZE,
    });
    const f = { ...NO_FILTER, table: "BAC-2", status: "unresolved" as const, severity: "critical" as const, code: " FOREIGN_CARD ", since: "2026-11-30T09:00", until: "2026-11-30T10:30:15" };
    expect(toQuery(f, 42, 10)).toEqual({
      table: "BAC-2", status: null, unresolved: true, severity: "critical", code: "FOREIGN_CARD",
      since: "2026-11-30T09:00:00Z", until: "2026-11-30T10:30:15Z", before: 42, limit: 10,
    });
    expect(toQuery({ ...NO_FILTER, status: "acknowledged" }).status).toBe("acknowledged");
    expect(toQuery({ ...NO_FILTER, since: "not a time" }).since).toBeNull();
  });

  it("reads the filter's times in the site's zone", () => {
    expect(siteTime("2026-11-30T22:00", "Pacific/Auckland")).toBe("2026-11-30T09:00:00Z");
    expect(siteTime("2026-06-30T12:00:30", "Pacific/Auckland")).toBe("2026-06-30T00:00:30Z");
    expect(siteTime("2026-11-30T09:00", null)).toBe("2026-11-30T09:00:00Z");
    expect(siteTime("2026-11-30T22:00:00+13:00", null)).toBe("2026-11-30T09:00:00Z");
    expect(siteTime("2026-02-30T10:00", "Pacific/Auckland")).toBeNull();
    expect(siteTime("  ", "Pacific/Auckland")).toBeNull();
    setSiteZone("Pacific/Auckland");
    try {
      expect(toQuery({ ...NO_FILTER, since: "2026-11-30T22:00" }).since).toBe("2026-11-30T09:00:00Z");
    } finally {
      setSiteZone(null);
    }
  });

  it("is the same for filters that differ only in the search of the rows loaded", () => {
    expect(sameQuery(NO_FILTER, { ...NO_FILTER, text: "burn" })).toBe(true);
    expect(sameQuery(NO_FILTER, { ...NO_FILTER, code: "X" })).toBe(false);
  });
});

describe("matchesQuery", () => {
  it("applies the store's filters, the time range from inclusive to exclusive", () => {
    const r = row(5, { openedAt: "2026-11-30T09:00:00.250Z", code: "FOREIGN_CARD", status: "acknowledged" });
    expect(matchesQuery(r, NO_FILTER)).toBe(true);
    expect(matchesQuery(r, { ...NO_FILTER, status: "unresolved" })).toBe(true);
    expect(matchesQuery(r, { ...NO_FILTER, status: "open" })).toBe(false);
    expect(matchesQuery(r, { ...NO_FILTER, code: "FOREIGN_CARD" })).toBe(true);
    expect(matchesQuery(r, { ...NO_FILTER, code: "NOT_SHUFFLED" })).toBe(false);
    expect(matchesQuery(r, { ...NO_FILTER, since: "2026-11-30T09:00" })).toBe(true);
    expect(matchesQuery(r, { ...NO_FILTER, since: "2026-11-30T09:00:01" })).toBe(false);
    expect(matchesQuery(r, { ...NO_FILTER, until: "2026-11-30T09:00" })).toBe(false);
    expect(matchesQuery(r, { ...NO_FILTER, until: "2026-11-30T09:01" })).toBe(true);
  });
});

describe("paging", () => {
  it("appends older pages newest first, each row once, with the store's cursor and total", () => {
    let list = firstPage(page([10, 9, 8], 8, 7));
    expect(list).toMatchObject({ next: 8, total: 7 });
    // A new incident arrived live before the next page: shown once, and counted.
    list = applyLive(list, row(11), NO_FILTER, true).list;
    expect(list.total).toBe(8);
    list = appendPage(list, page([7, 6, 5], 5, 8));
    list = appendPage(list, page([4, 5], null, 8));
    expect(list.rows.map((r) => r.id)).toEqual([11, 10, 9, 8, 7, 6, 5, 4]);
    expect(list.next).toBeNull();
  });

  it("follows live changes: in when it matches, out when it stops, the total with it", () => {
    const open = { ...NO_FILTER, status: "open" as const };
    let list = firstPage(page([10, 9, 8], 8, 5));
    // A new open incident joins an open list; a new resolved one does not.
    let step = applyLive(list, row(12), open, true);
    expect(step).toMatchObject({ recount: false });
    list = step.list;
    expect(list.rows.map((r) => r.id)).toEqual([12, 10, 9, 8]);
    expect(applyLive(list, row(13, { status: "resolved" }), open, true)).toEqual({ list, recount: false });
    // Acknowledged: it leaves the open list, which counts one fewer.
    step = applyLive(list, row(9, { status: "acknowledged" }), open, false);
    expect(step.list.rows.map((r) => r.id)).toEqual([12, 10, 8]);
    expect(step.list.total).toBe(5);
    expect(step.recount).toBe(false);
    // In the same list with no filter it stays, changed.
    const all = applyLive(firstPage(page([10, 9, 8], 8, 5)), row(9, { status: "acknowledged" }), NO_FILTER, false).list;
    expect(all.rows.find((r) => r.id === 9)?.status).toBe("acknowledged");
    expect(all.total).toBe(5);
  });

  it("asks for a recount only when an incident not loaded changed", () => {
    const acknowledged = { ...NO_FILTER, status: "acknowledged" as const };
    const list = firstPage(page([10, 9, 8], 8, 5, { status: "acknowledged" }));
    // Incident 3 is older than the pages loaded: it may or may not have been counted.
    expect(applyLive(list, row(3, { status: "resolved" }), acknowledged, false).recount).toBe(true);
    const joined = applyLive(list, row(3, { status: "acknowledged" }), acknowledged, false);
    expect(joined.recount).toBe(true);
    expect(joined.list.rows.map((r) => r.id)).toEqual([10, 9, 8]);
    // Incident 11 is newer than the cursor, among the pages loaded: a change there is exact.
    const within = applyLive(list, row(11, { status: "acknowledged" }), acknowledged, false);
    expect(within).toMatchObject({ recount: false });
    expect(within.list.total).toBe(6);
  });

  it("reveals the incident an alert opens without counting it twice", () => {
    const list = firstPage(page([10, 9], 9, 4));
    const shown = reveal(list, row(3), NO_FILTER);
    expect(shown.rows.map((r) => r.id)).toEqual([10, 9, 3]);
    expect(shown.total).toBe(4);
    expect(reveal(shown, row(3), NO_FILTER)).toBe(shown);
    expect(reveal(list, row(3, { status: "resolved" }), { ...NO_FILTER, status: "open" })).toBe(list);
    // Loading the page that holds it later shows it once.
    expect(appendPage(shown, page([8, 3], null, 4)).rows.map((r) => r.id)).toEqual([10, 9, 8, 3]);
  });
});

describe("resolving and reopening", () => {
  it("lists the desk's resolutions and records them as the desk does", () => {
    expect(RESOLUTIONS.map((r) => r.kind)).toEqual(["confirmed", "false_alarm", "duplicate", "other"]);
    expect(RESOLUTIONS[0]?.words).toBe("Confirmed irregularity — handled per procedure");
    expect(recordedResolution("false_alarm", " ")).toBe("False alarm — device misread");
    expect(recordedResolution("confirmed", " reshuffled ")).toBe("Confirmed irregularity — handled per procedure: reshuffled");
    expect(recordedResolution("other", "Shoe reshuffled")).toBe("Shoe reshuffled");
    expect(recordedResolution("other", "  ")).toBeNull();
  });

  it("asks for the acknowledgement first and text for Other", () => {
    expect(resolveProblem(7, "open", "duplicate", "")).toMatch(/^Acknowledge incident #7 first/);
    expect(resolveProblem(7, "acknowledged", "other", " ")).toMatch(/"Other" needs written text/);
    expect(resolveProblem(7, "resolved", "duplicate", "")).toMatch(/already resolved/);
    expect(resolveProblem(7, "acknowledged", "duplicate", "")).toBeNull();
  });

  it("reopens only a resolved incident, with a reason", () => {
    expect(reopenProblem(3, "acknowledged", "why")).toMatch(/not resolved/);
    expect(reopenProblem(3, "resolved", "  ")).toMatch(/Say why/);
    expect(reopenProblem(3, "resolved", "camera 4")).toBeNull();
  });
});
