import { describe, expect, it } from "vitest";
import type { DeckCheckView, DeviceTile } from "./bindings";
import { countersLabel, deckCheckBadge, otherDevices, ROLE_LABEL } from "./devices";

describe("countersLabel", () => {
  it("says each counter the shuffler keeps, in words", () => {
    expect(countersLabel({ cycles: 1042, recognitionErrors: 3, malfunctions: 1 })).toBe(
      "1,042 shuffles · 3 recognition errors · 1 malfunction",
    );
    expect(countersLabel({ cycles: 1, recognitionErrors: null, malfunctions: null })).toBe("1 shuffle");
  });
});

const check = (over: Partial<DeckCheckView> = {}): DeckCheckView => ({
  decks: 8,
  cards: 416,
  expected: 416,
  missing: 0,
  extra: 0,
  foreign: 0,
  passed: true,
  atMs: 1_000,
  seq: 12,
  ...over,
});

describe("deckCheckBadge", () => {
  it("says when no shuffle has been seen", () => {
    expect(deckCheckBadge(null, 0)).toMatchObject({ text: "no shuffle yet", tone: "muted" });
  });
  it("shows a passed check quietly, with its age in the title", () => {
    const badge = deckCheckBadge(check(), 31_000);
    expect(badge).toMatchObject({ text: "✓ 416 cards", tone: "ok" });
    expect(badge.title).toContain("30 s ago");
    expect(badge.title).toContain("8 decks");
  });
  it("shows a failed check with what was wrong", () => {
    const badge = deckCheckBadge(check({ cards: 415, missing: 2, extra: 1, passed: false, atMs: null }), 0);
    expect(badge.tone).toBe("bad");
    expect(badge.text).toBe("⚠ 415 of 416 (2 missing, 1 extra)");
    expect(badge.title).toContain("must not be dealt");
    expect(badge.title).not.toContain("ago");
  });
  it("flags a check that is wrong only by its count", () => {
    expect(deckCheckBadge(check({ cards: 417, passed: false }), 0).text).toBe("⚠ 417 of 416");
  });
});

describe("otherDevices", () => {
  it("leaves out the main device", () => {
    const device = (role: DeviceTile["role"]): DeviceTile => ({
      role,
      protocol: "pitwatch",
      link: "simulated",
      status: "connected",
      statusDetail: "",
      lastCheck: null,
      shuffling: false,
      counters: null,
    });
    expect(otherDevices([device("shoe"), device("shuffler")]).map((d) => ROLE_LABEL[d.role])).toEqual(["Shuffler"]);
    expect(otherDevices([device("shoe")])).toEqual([]);
  });
});
