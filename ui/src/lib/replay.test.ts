import { describe, expect, it } from "vitest";
import type { BlackjackRound, ReplayStep, ShoeRow } from "./bindings";
import { completedUpTo, indexOfRound, indexOfSeq, markers, nextIrregularity, nextRound, playDelay, previousRound, roundOnTable, shoeLabel, shoeOptions, stepBy } from "./replay";

function step(seq: number, round: number, completes = false, irregularity = ""): ReplayStep {
  return {
    seq,
    at: null,
    what: `event ${seq}`,
    cardsDealt: seq,
    cardsLeft: 416 - seq,
    cuttingCardOut: false,
    play: {
      game: "baccarat",
      round,
      player: [],
      banker: [],
      burnDue: true,
      burnDone: seq > 1,
      completed: completes
        ? { shoe: 1, round, player: ["9S", "KH"], banker: ["2C", "3D"], playerTotal: 9, bankerTotal: 5, outcome: "player", playerPair: false, bankerPair: false, firstSeq: seq - 3, lastSeq: seq }
        : null,
    },
    irregularities: irregularity ? [irregularity] : [],
  };
}

// Shuffle, burn, round 1 (3 cards, completes at seq 6), round 2 (completes at 10, flagged at 9).
const steps = [
  step(1, 0), step(2, 0), step(3, 1), step(4, 1), step(5, 1), step(6, 1, true),
  step(7, 2), step(8, 2), step(9, 2, false, "out_of_order_card: P, P, B, B"), step(10, 2, true),
];

describe("stepping", () => {
  it("moves event by event inside the shoe", () => {
    expect(stepBy(steps, 0, 1)).toBe(1);
    expect(stepBy(steps, 0, -1)).toBe(0);
    expect(stepBy(steps, 9, 1)).toBe(9);
    expect(stepBy([], 0, 1)).toBe(0);
  });

  it("moves round by round", () => {
    expect(nextRound(steps, 0)).toBe(5);
    expect(nextRound(steps, 5)).toBe(9);
    expect(nextRound(steps, 9)).toBe(9);
    expect(previousRound(steps, 9)).toBe(5);
    expect(previousRound(steps, 5)).toBe(0);
  });

  it("finds irregularities, events and rounds", () => {
    expect(nextIrregularity(steps, 0)).toBe(8);
    expect(nextIrregularity(steps, 8)).toBeNull();
    expect(indexOfSeq(steps, 9)).toBe(8);
    expect(indexOfSeq(steps, 100)).toBe(9);
    expect(indexOfSeq(steps, 0)).toBe(0);
    expect(indexOfRound(steps, 2)).toBe(9);
    expect(indexOfRound(steps, 3)).toBeNull();
  });

  it("gives the rounds completed by a step, for the roads at that instant", () => {
    expect(completedUpTo(steps, 4)).toEqual([]);
    expect(completedUpTo(steps, 5).map((r) => r.round)).toEqual([1]);
    expect(completedUpTo(steps, 9).map((r) => r.round)).toEqual([1, 2]);
  });

  it("marks every round end and irregularity on the timeline", () => {
    expect(markers(steps).map((m) => [m.index, m.kind])).toEqual([[5, "round"], [8, "irregularity"], [9, "round"]]);
  });

  it("plays faster at a higher speed, never absurdly fast", () => {
    expect(playDelay(1)).toBe(800);
    expect(playDelay(4)).toBe(200);
    expect(playDelay(1000)).toBe(30);
  });
});

describe("the shoe picker", () => {
  const shoe = (n: number, extra: Partial<ShoeRow> = {}): ShoeRow => ({
    shoe: n,
    startedAt: "2026-11-30T09:14:03Z",
    endedAt: "2026-11-30T10:02:55Z",
    rounds: 71,
    incidents: 0,
    shuffle: null,
    ...extra,
  });

  it("offers the shoes listed, newest first, and the one shown even if it is older", () => {
    expect(shoeOptions([shoe(9), shoe(8)], 8).map((s) => s.shoe)).toEqual([9, 8]);
    expect(shoeOptions([shoe(9), shoe(8)], 3).map((s) => s.shoe)).toEqual([9, 8, 3]);
    expect(shoeOptions([], 5).map((s) => s.shoe)).toEqual([5]);
    expect(shoeOptions([shoe(2)], null).map((s) => s.shoe)).toEqual([2]);
  });

  it("labels a shoe with its times, rounds and incidents", () => {
    expect(shoeLabel(shoe(12, { incidents: 2 }))).toBe("Shoe 12 · 11-30 09:14–10:02 UTC · 71 rounds · 2 incidents");
    expect(shoeLabel(shoe(3, { endedAt: "2026-12-01T00:10:00Z", rounds: 1 }))).toBe("Shoe 3 · 11-30 09:14–12-01 00:10 UTC · 1 round");
    expect(shoeLabel(shoe(12, { incidents: 2 }), "Pacific/Auckland")).toBe("Shoe 12 · 11-30 22:14–23:02 NZDT · 71 rounds · 2 incidents");
    expect(shoeLabel({ shoe: 4, startedAt: null, endedAt: null, rounds: 0, incidents: 0, shuffle: null })).toBe("Shoe 4");
  });

  it("adds the shoe's shuffle quality once it was compared", () => {
    const suspect = { verdict: "suspect", label: "suspect: a block of 20 cards kept", provisional: false, detail: "…" } as const;
    expect(shoeLabel(shoe(7, { shuffle: suspect }))).toBe("Shoe 7 · 11-30 09:14–10:02 UTC · 71 rounds · ⚠ suspect: a block of 20 cards kept");
    const first = { verdict: "not_compared", label: "not compared", provisional: false, detail: "not compared" } as const;
    expect(shoeLabel(shoe(1, { shuffle: first }))).toBe("Shoe 1 · 11-30 09:14–10:02 UTC · 71 rounds");
  });
});

describe("a Blackjack shoe", () => {
  function bj(round: number, complete: boolean): BlackjackRound {
    return {
      shoe: 1,
      round,
      dealer: ["TS"],
      dealerTotal: 10,
      dealerSoft: false,
      dealerBlackjack: false,
      boxes: [],
      complete,
      firstSeq: 1,
      lastSeq: 2,
    };
  }
  function bjStep(seq: number, round: number | null, completes = false): ReplayStep {
    return {
      seq,
      at: null,
      what: `event ${seq}`,
      cardsDealt: seq,
      cardsLeft: null,
      cuttingCardOut: false,
      play: { game: "blackjack", round: round === null ? null : bj(round, completes), completed: completes && round !== null ? bj(round, true) : null },
      irregularities: [],
    };
  }
  const shoe = [bjStep(1, null), bjStep(2, 1), bjStep(3, 1, true), bjStep(4, 2), bjStep(5, 2, true)];

  it("steps round by round and collects its own rounds", () => {
    expect(nextRound(shoe, 0)).toBe(2);
    expect(nextRound(shoe, 2)).toBe(4);
    expect(previousRound(shoe, 4)).toBe(2);
    expect(indexOfRound(shoe, 2)).toBe(4);
    expect(roundOnTable(shoe[0]!)).toBe(0);
    expect(roundOnTable(shoe[3]!)).toBe(2);
    expect(completedUpTo(shoe, 3).map((r) => r.round)).toEqual([1]);
    expect(completedUpTo(shoe, 4)).toEqual([bj(1, true), bj(2, true)]);
    expect(markers(shoe).map((m) => m.label)).toEqual(["Round 1", "Round 2"]);
  });
});
