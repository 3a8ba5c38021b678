import { describe, expect, it } from "vitest";
import type { RoundOutcome, RoundResult } from "../../lib/bindings";
import { beadPlate, bigRoad, derivedRoad, roadWidth, ROAD_LEGEND, streaks, tally } from "./roads";
import { baccaratResult, OUTCOME_WORD } from "./result";

function shoe(letters: string): RoundResult[] {
  const map: Record<string, RoundOutcome> = { P: "player", B: "banker", T: "tie", V: "void" };
  return [...letters].map((l, i) => ({
    shoe: 1,
    round: i + 1,
    player: [],
    banker: [],
    playerTotal: null,
    bankerTotal: null,
    outcome: map[l] ?? null,
    playerPair: l === "P" && i === 0,
    bankerPair: false,
    firstSeq: i * 6,
    lastSeq: i * 6 + 5,
  }));
}

const cells = (rs: RoundResult[]) => bigRoad(rs).map((c) => [c.col, c.row, c.outcome[0], c.ties]);

describe("beadPlate", () => {
  it("fills columns of six top to bottom, every round including ties", () => {
    const bead = beadPlate(shoe("PBTPPBBP"));
    expect(bead.map((c) => [c.col, c.row])).toEqual([[0, 0], [0, 1], [0, 2], [0, 3], [0, 4], [0, 5], [1, 0], [1, 1]]);
    expect(bead[2]?.outcome).toBe("tie");
    expect(bead[0]?.playerPair).toBe(true);
  });
});

describe("bigRoad", () => {
  it("starts a column per streak", () => {
    expect(cells(shoe("PPBBBP"))).toEqual([
      [0, 0, "p", 0], [0, 1, "p", 0],
      [1, 0, "b", 0], [1, 1, "b", 0], [1, 2, "b", 0],
      [2, 0, "p", 0],
    ]);
  });

  it("marks ties on the cell before them and does not give them a cell", () => {
    expect(cells(shoe("PTTBT"))).toEqual([[0, 0, "p", 2], [1, 0, "b", 1]]);
  });

  it("puts ties before the first decision on the first cell", () => {
    expect(cells(shoe("TTB"))).toEqual([[0, 0, "b", 2]]);
  });

  it("turns a streak longer than six right along the bottom row (dragon tail)", () => {
    const road = cells(shoe("BBBBBBBBP"));
    expect(road.slice(0, 6).map(([c, r]) => [c, r])).toEqual([[0, 0], [0, 1], [0, 2], [0, 3], [0, 4], [0, 5]]);
    expect(road.slice(6, 8).map(([c, r]) => [c, r])).toEqual([[1, 5], [2, 5]]);
    expect(road[8]).toEqual([1, 0, "p", 0]);
  });

  it("turns early when the cell below is taken by an earlier tail", () => {
    // Banker tail occupies (1,5) and (2,5); the next streak in column 1 can only go down to row 4.
    const road = cells(shoe("BBBBBBBB" + "PPPPPPP"));
    const players = road.filter(([, , o]) => o === "p").map(([c, r]) => [c, r]);
    expect(players).toEqual([[1, 0], [1, 1], [1, 2], [1, 3], [1, 4], [2, 4], [3, 4]]);
  });

  it("leaves out void rounds and rounds with no outcome", () => {
    expect(cells(shoe("PV?P"))).toEqual([[0, 0, "p", 0], [0, 1, "p", 0]]);
  });

  it("is empty for an empty shoe but the grid keeps its width", () => {
    expect(bigRoad([])).toEqual([]);
    expect(roadWidth([], 12)).toBe(12);
    expect(roadWidth(bigRoad(shoe("PBPBPBPBPBPBPB")), 12)).toBe(14);
  });
});

describe("tally", () => {
  it("counts wins per outcome", () => {
    expect(tally(shoe("PPBTV"))).toEqual({ player: 2, banker: 1, tie: 1 });
  });
});

describe("derived roads", () => {
  it("measure the big road's streaks", () => {
    expect(streaks(shoe("PPBTBBPV"))).toEqual([2, 3, 1]);
  });

  it("big eye boy compares with the column before and marks repetition red", () => {
    // P P | B | P P: column 2 row 0 compares columns 1 (1) and 0 (2): blue; row 1: column 1 has
    // no row 1 but has the row above it: blue.
    expect(derivedRoad(shoe("PPBPP"), 1).map((c) => c.colour)).toEqual(["blue", "blue"]);
    // P | B | P: at column 2 row 0 compare columns 1 and 0: both length 1 → red.
    expect(derivedRoad(shoe("PBP"), 1).map((c) => c.colour)).toEqual(["red"]);
    // P P | B | P: column 2 row 0 compares column 1 (1) and column 0 (2) → blue.
    expect(derivedRoad(shoe("PPBP"), 1).map((c) => c.colour)).toEqual(["blue"]);
    // PP | BB: column 1 row 1 — column 0 has a row 1 → red.
    expect(derivedRoad(shoe("PPBB"), 1).map((c) => c.colour)).toEqual(["red"]);
    // P | BBB: row 1: column 0 length 1 === 1 → blue; row 2: column 0 lacks rows 1 and 2 → red.
    expect(derivedRoad(shoe("PBBB"), 1).map((c) => c.colour)).toEqual(["blue", "red"]);
  });

  it("small road and cockroach pig look two and three columns back", () => {
    expect(derivedRoad(shoe("PBP"), 2)).toEqual([]);
    expect(derivedRoad(shoe("PBPB"), 2).map((c) => c.colour)).toEqual(["red"]);
    expect(derivedRoad(shoe("PBPBP"), 3).map((c) => c.colour)).toEqual(["red"]);
    expect(derivedRoad(shoe("PPBPBP"), 3).map((c) => c.colour)).toEqual(["blue"]);
  });

  it("lays marks out in streaks of one colour", () => {
    const road = derivedRoad(shoe("PBPBPBPPBB"), 1);
    // Streaks 1,1,1,1,1,1,2,2 give red ×5, then blue (row 1 of column 6), blue (column 7 top:
    // 2 ≠ 1), red (column 7 row 1: column 6 has a row 1).
    expect(road.map((c) => [c.col, c.row, c.colour[0]])).toEqual([
      [0, 0, "r"], [0, 1, "r"], [0, 2, "r"], [0, 3, "r"], [0, 4, "r"], [1, 0, "b"], [1, 1, "b"], [2, 0, "r"],
    ]);
  });
});

describe("the roads' legend", () => {
  it("explains the bead plate's letters and the derived roads' colours", () => {
    const text = ROAD_LEGEND.map((l) => `${l.mark} ${l.words}`).join(" ");
    for (const word of ["Player", "Banker", "Tie", "pair", "big eye boy", "small road", "cockroach pig", "red", "blue"]) expect(text).toContain(word);
  });
});

describe("a round's result in words", () => {
  it("names the winner with the points, the winner's first", () => {
    const r = { shoe: 1, round: 4, player: ["TD", "5S"], banker: ["KH", "7C"], playerTotal: 5, bankerTotal: 7, outcome: "banker" as const, playerPair: false, bankerPair: false, firstSeq: 1, lastSeq: 6 };
    expect(baccaratResult(r)).toBe("Banker 7 to 5");
    expect(baccaratResult({ ...r, outcome: "player", playerTotal: 8, bankerTotal: 4 })).toBe("Player 8 to 4");
    expect(baccaratResult({ ...r, outcome: "tie", playerTotal: 6, bankerTotal: 6 })).toBe("Tie 6 to 6");
    expect(baccaratResult({ ...r, playerTotal: null })).toBe("Banker");
    expect(baccaratResult({ ...r, outcome: null })).toBe("result unknown");
    expect(OUTCOME_WORD.void).toBe("Void");
  });
});
