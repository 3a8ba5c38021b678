import { describe, expect, it } from "vitest";
import type { CentralIncidents, CentralPit, IncidentRow, RoundResult } from "./bindings";
import { copyState, isWorkstation, mergeIncidents, resultLabel, totalIncidents } from "./surveillance";

const pit = (over: Partial<CentralPit> = {}): CentralPit => ({
  site: "sky",
  workstation: "sky/north",
  siteName: "Sky City",
  checkpoint: 4,
  checkpointAt: "2026-12-01T03:00:00Z",
  lastDelivery: "2026-12-01T03:00:01Z",
  rowsBehind: 0,
  msBehind: 0,
  refused: 0,
  problem: null,
  openIncidents: 0,
  tables: [],
  ...over,
});

const incident = (id: number, openedAt: string): IncidentRow => ({
  id,
  table: "BAC-1",
  code: "BURN_COUNT_MISMATCH",
  severity: "high",
  rule: "7.7(b)",
  shoe: 1,
  round: null,
  seq: 4,
  message: "two cards burnt, three due",
  openedAt,
  status: "open",
});

const group = (workstation: string, rows: IncidentRow[], total = rows.length): CentralIncidents => ({
  workstation,
  page: { incidents: rows, next: null, total },
});

describe("the surveillance view", () => {
  it("says how far behind each copy is, and what is wrong first", () => {
    expect(copyState(pit())).toEqual({ text: "✔ up to date", tone: "ok" });
    expect(copyState(pit({ rowsBehind: 120, msBehind: 14_000 }))).toEqual({ text: "⚠ 120 rows · 14 s behind", tone: "warn" });
    expect(copyState(pit({ rowsBehind: 1, msBehind: 5_400_000 })).text).toBe("⚠ 1 row · 90 min behind");
    expect(copyState(pit({ lastDelivery: null })).tone).toBe("warn");
    expect(copyState(pit({ refused: 1, rowsBehind: 3 }))).toEqual({ text: "✖ 1 row refused (changed after replication)", tone: "bad" });
    expect(copyState(pit({ problem: "the central copy of sky/north is refused", refused: 1 })).text).toBe(
      "✖ the central copy of sky/north is refused",
    );
  });

  it("merges every workstation's incidents into one list, newest first", () => {
    const merged = mergeIncidents([
      group("sky/north", [incident(2, "2026-12-01T02:00:00Z"), incident(1, "2026-12-01T01:00:00Z")], 7),
      group("sky/south", [incident(1, "2026-12-01T01:30:00Z")]),
    ]);
    expect(merged.map((r) => `${r.workstation}#${r.id}`)).toEqual(["sky/north#2", "sky/south#1", "sky/north#1"]);
    expect(totalIncidents([group("a/b", [], 7), group("c/d", [], 1)])).toBe(8);
    expect(mergeIncidents([])).toEqual([]);
  });

  it("names workstations as SITE/NAME", () => {
    expect(isWorkstation("sky/north")).toBe(true);
    expect(isWorkstation(" sky/pit-3 ")).toBe(true);
    expect(isWorkstation("north")).toBe(false);
    expect(isWorkstation("/north")).toBe(false);
    expect(isWorkstation("sky/")).toBe(false);
  });

  it("labels a round's result", () => {
    const r = (outcome: RoundResult["outcome"], p: number | null, b: number | null): RoundResult => ({
      shoe: 1,
      round: 3,
      player: [],
      banker: [],
      playerTotal: p,
      bankerTotal: b,
      outcome,
      playerPair: false,
      bankerPair: false,
      firstSeq: 1,
      lastSeq: 9,
    });
    expect(resultLabel(r("banker", 5, 7))).toBe("Banker (P 5 · B 7)");
    expect(resultLabel(r("tie", 6, 6))).toBe("Tie (P 6 · B 6)");
    expect(resultLabel(r("void", null, null))).toBe("Void");
    expect(resultLabel(r(null, null, null))).toBe("");
    expect(resultLabel(null)).toBe("");
  });
});
