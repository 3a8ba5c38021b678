import { describe, expect, it } from "vitest";
import type { DealerFiguresView, PaceAlertView, PaceTargetView } from "./bindings";
import { belowLine, errorsText, ofTarget, paceAlertKey, paceAlertText, perHour, unseenPaceAlerts } from "./pace";

const slow: PaceAlertView = {
  table: "BAC-1",
  code: "PACE_BELOW_TARGET",
  words: "Pace below target",
  shoe: 2,
  round: 31,
  dealer: "Mere\u202eTāne",
  measured: 41.2,
  threshold: 56,
  message: "The last 20 rounds were dealt at 41.2 an hour, under 56.0 (80% of the target of 70)",
  atMs: 1,
};
const burst: PaceAlertView = { ...slow, code: "ERROR_BURST", words: "Error burst", dealer: null };
const target: PaceTargetView = { roundsPerHour: 70, alertBelow: 56, windowRounds: 20, burstErrors: 3, burstRounds: 10 };
const figures: DealerFiguresView = {
  dealer: "Mere",
  rounds: 40,
  roundsExcused: 1,
  roundsPerHour: 42,
  errorsPer100Rounds: 5,
  irregularities: [{ code: "RESULT_MISMATCH", count: 2 }],
};

describe("pace alerts", () => {
  it("are told apart by table, kind and round, and a seen one leaves the banner", () => {
    expect(paceAlertKey(slow)).not.toBe(paceAlertKey(burst));
    expect(paceAlertKey(slow)).not.toBe(paceAlertKey({ ...slow, round: 32 }));
    expect(unseenPaceAlerts([slow, burst], new Set([paceAlertKey(slow)]))).toEqual([burst]);
  });

  it("say the table, the alert and the dealer, a hidden character in the name made visible", () => {
    const text = paceAlertText(slow);
    expect(text).toContain("BAC-1: Pace below target (dealer Mere<U+202E>Tāne, shoe 2 round 31)");
    expect(text).not.toContain("\u202e");
    expect(paceAlertText(burst)).toContain("no dealer signed in");
  });
});

describe("a dealer's figures", () => {
  it("against the target, under the line, and their errors in words", () => {
    expect(perHour(42)).toBe("42.0");
    expect(perHour(null)).toBe("—");
    expect(ofTarget(figures, target)).toBe("60%");
    expect(ofTarget(figures, null)).toBe("—");
    expect(belowLine(figures, target)).toBe(true);
    expect(belowLine({ ...figures, roundsPerHour: 60 }, target)).toBe(false);
    expect(errorsText(figures)).toMatch(/^.+ \(RESULT_MISMATCH\) × 2$/);
    expect(errorsText({ ...figures, irregularities: [] })).toBe("none");
  });
});
