import { describe, expect, it } from "vitest";
import type { ExposureAlert, ExposureFigure, ExposureRound, ShoeExposure, TableExposure } from "./bindings";
import { alertKey, alertText, edgeText, figureText, roundAt, roundsBehind, tableSummary, unseenAlerts, wagerColumns } from "./exposure";

const wager = (name: string, value: number): ExposureFigure => ({ name, value, wager: true, houseBehind: value < 0, cite: "10.2" });
const round = (n: number, afterSeq: number, figures: ExposureFigure[]): ExposureRound => ({ round: n, afterSeq, atMs: null, cardsLeft: 416 - 5 * n, figures });

describe("exposure", () => {
  it("says an edge with its sign, the house behind as a minus", () => {
    expect(edgeText(1.0579)).toBe("+1.06%");
    expect(edgeText(-0.4212)).toBe("−0.42%");
    expect(edgeText(0)).toBe("+0.00%");
  });

  it("says a count as a number, a wager as an edge", () => {
    expect(figureText({ name: "Hi-Lo running count", value: 7, wager: false, houseBehind: false, cite: "" })).toBe("7");
    expect(figureText({ name: "Hi-Lo true count", value: 2.345, wager: false, houseBehind: true, cite: "" })).toBe("2.35");
    expect(figureText(wager("Dragon 7 (40 to 1)", -3.2))).toBe("−3.20%");
  });

  it("says what a table's row stands for", () => {
    const base: TableExposure = { table: "BAC-1", game: "baccarat", shoe: 2, next: null, worst: null, roundsBehind: 0, problem: null };
    expect(tableSummary({ ...base, game: null })).toBe("not dealt yet");
    expect(tableSummary(base)).toBe("waiting for the shoe's first round");
    expect(tableSummary({ ...base, problem: "BAC-1: the shoe cannot be read" })).toBe("BAC-1: the shoe cannot be read");
    const next = round(3, 20, [wager("Banker", 1.05), wager("Panda 8 (25 to 1)", -0.8)]);
    expect(tableSummary({ ...base, next, worst: next.figures[1] ?? null })).toBe("Panda 8 (25 to 1) −0.80%");
  });

  it("lays a shoe out by the book's wagers and finds the rounds behind", () => {
    const shoe: ShoeExposure = {
      table: "BAC-1",
      game: "baccarat",
      shoe: 1,
      rounds: [round(1, 1, [wager("Player", 1.2), wager("Tie (8 to 1)", 14.3)]), round(2, 9, [wager("Player", -0.1), wager("Tie (8 to 1)", 14)])],
      behind: [{ wager: "Player", rounds: 1 }],
    };
    expect(wagerColumns(shoe)).toEqual(["Player", "Tie (8 to 1)"]);
    expect(roundsBehind(shoe)).toEqual([2]);
    expect(wagerColumns({ ...shoe, rounds: [] })).toEqual([]);
  });

  it("gives a replay step the figures before the round it shows, never figures from later", () => {
    const rounds = [round(1, 1, []), round(2, 9, []), round(3, 15, [])];
    expect(roundAt(rounds, 1, 0)).toBeNull();
    expect(roundAt(rounds, 1, 1)?.afterSeq).toBe(1);
    // The step that completes round 2 still shows round 2's figures, not round 3's.
    expect(roundAt(rounds, 2, 15)?.afterSeq).toBe(9);
    expect(roundAt(rounds, 3, 16)?.afterSeq).toBe(15);
    expect(roundAt(rounds, 4, 100)).toBeNull();
  });

  it("says an alert in words and tells seen ones by table, shoe and wager", () => {
    const a: ExposureAlert = { table: "BAC-1", shoe: 3, round: 12, wager: "Dragon 7 (40 to 1)", roundsBehind: 3, houseEdge: -2.5, atMs: 1 };
    expect(alertText(a)).toBe("BAC-1, shoe 3: Dragon 7 (40 to 1) has favoured the players for 3 rounds (house edge −2.50% before round 12)");
    expect(alertText({ ...a, roundsBehind: 1 })).toContain("for 1 round (");
    const nextShoe = { ...a, shoe: 4 };
    expect(alertKey(nextShoe)).not.toBe(alertKey(a));
    expect(unseenAlerts([nextShoe, a], new Set([alertKey(a)]))).toEqual([nextShoe]);
  });
});
