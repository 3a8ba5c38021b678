import { describe, expect, it } from "vitest";
import type { IncidentPage, IncidentQuery, IncidentRow } from "./bindings";
import { IncidentLists, OPEN } from "./incident-lists.svelte";
import { NO_FILTER } from "./incidents";

function row(id: number, extra: Partial<IncidentRow> = {}): IncidentRow {
  return { id, table: "BAC-1", code: "NOT_SHUFFLED", severity: "high", rule: "3.1", shoe: 1, round: 2, seq: id * 10, message: "m", openedAt: "2026-11-30T09:00:00Z", status: "open", ...extra };
}

/** A store of incidents that answers queries as the desk's does: filtered, newest first, paged. */
function store(rows: IncidentRow[], slow: string | null = null) {
  const asked: IncidentQuery[] = [];
  let failNext = false;
  const fetch = async (q: IncidentQuery): Promise<IncidentPage> => {
    asked.push(q);
    // The slow table's answer comes after any asked later.
    if (q.table !== null && q.table === slow) await new Promise((done) => setTimeout(done, 20));
    if (failNext) {
      failNext = false;
      throw { code: "internal", message: "database is locked" };
    }
    const matching = rows
      .filter((r) => (q.table === null || r.table === q.table) && (q.status === null || r.status === q.status) && (!q.unresolved || r.status !== "resolved"))
      .sort((a, b) => b.id - a.id);
    const after = matching.filter((r) => q.before === null || r.id < q.before);
    const page = after.slice(0, q.limit ?? 100);
    const next = after.length > page.length ? (page.at(-1)?.id ?? null) : null;
    return { incidents: page, next, total: matching.length };
  };
  return { fetch, asked, failOnce: () => (failNext = true) };
}

describe("the incident lists", () => {
  it("load the alerts and the first page at start-up", async () => {
    const s = store([row(1), row(2, { status: "acknowledged" }), row(3, { table: "BJ-1" })]);
    const lists = new IncidentLists(s.fetch);
    await lists.loadFirst();
    expect(lists.open.rows.map((r) => r.id)).toEqual([3, 1]);
    expect(lists.list.rows.map((r) => r.id)).toEqual([3, 2, 1]);
    expect(s.asked[0]).toMatchObject({ status: "open", limit: 500 });
  });

  it("merge a live incident into every list it matches", async () => {
    const s = store([row(1)]);
    const lists = new IncidentLists(s.fetch);
    await lists.loadFirst();
    await lists.loadTable("BAC-1");
    lists.live(row(2), true);
    lists.live(row(3, { table: "BJ-1" }), true);
    expect(lists.open.rows.map((r) => r.id)).toEqual([3, 2, 1]);
    expect(lists.table.rows.map((r) => r.id)).toEqual([2, 1]);
    expect(lists.open.total).toBe(3);
    // Acknowledged, it leaves the alerts and stays in the others.
    lists.live(row(2, { status: "acknowledged" }), false);
    expect(lists.open.rows.map((r) => r.id)).toEqual([3, 1]);
    expect(lists.list.rows.find((r) => r.id === 2)?.status).toBe("acknowledged");
  });

  it("page the incident screen's list and keep the latest filter's answer", async () => {
    const rows = Array.from({ length: 150 }, (_, i) => row(i + 1, { status: i % 2 === 0 ? "open" : "resolved" }));
    const s = store(rows);
    const lists = new IncidentLists(s.fetch);
    await lists.load({ ...NO_FILTER, status: "resolved" });
    expect(lists.list.total).toBe(75);
    expect(lists.list.rows).toHaveLength(75);
    await lists.load({ ...NO_FILTER });
    expect(lists.list.rows).toHaveLength(100);
    await lists.more();
    expect(lists.list.rows).toHaveLength(150);
    expect(lists.list.next).toBeNull();
    // Only the text search changed: the store is not asked again.
    const before = s.asked.length;
    await lists.load({ ...NO_FILTER, text: "shuffled" });
    expect(s.asked.length).toBe(before);
    expect(lists.filter.text).toBe("shuffled");
  });

  it("drop an answer to an older filter and show a failure", async () => {
    const s = store([row(1, { table: "BJ-1" }), row(2)], "BJ-1");
    const lists = new IncidentLists(s.fetch);
    const first = lists.load({ ...NO_FILTER, table: "BJ-1" });
    const second = lists.load({ ...NO_FILTER, table: "BAC-1" });
    await Promise.all([first, second]);
    expect(lists.list.rows.map((r) => r.table)).toEqual(["BAC-1"]);
    s.failOnce();
    await lists.load({ ...NO_FILTER, status: "open" });
    expect(lists.failure).toEqual({ code: "internal", message: "database is locked" });
  });

  it("reveal an alert's incident in the incident screen's list without counting it", async () => {
    const s = store([row(7), row(8, { status: "resolved" })]);
    const lists = new IncidentLists(s.fetch);
    await lists.loadFirst();
    await lists.load({ ...NO_FILTER, status: "resolved" });
    lists.reveal(7);
    expect(lists.list.rows.map((r) => r.id)).toEqual([8]);
    await lists.load({ ...NO_FILTER });
    lists.list = { rows: [], next: 3, total: 2 };
    lists.reveal(7);
    expect(lists.list.rows.map((r) => r.id)).toEqual([7]);
    expect(lists.list.total).toBe(2);
    expect(OPEN.status).toBe("open");
  });
});
