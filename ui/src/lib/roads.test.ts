import { describe, expect, it } from "vitest";
import type { RoundOutcome, RoundResult } from "./bindings";
import { beadPlate, bigRoad, roadWidth, tally } from "./roads";

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
