import { describe, expect, it } from "vitest";
import type { BlackjackHand, BlackjackRound } from "../../lib/bindings";
import {
  boxesNet,
  boxLabel,
  dealerLabel,
  handLabel,
  outcomeCounts,
  OUTCOME_LEGEND,
  OUTCOME_LETTER,
  paysLabel,
  paysTone,
  roundChip,
  roundState,
  sideBetLabel,
  totalLabel,
  winningSideBets,
} from "./blackjack";

function hand(cards: (string | null)[], total: number | null, extra: Partial<BlackjackHand> = {}): BlackjackHand {
  return { cards, total, soft: false, doubled: false, split: false, outcome: null, pays: null, rule: null, ...extra };
}

function round(extra: Partial<BlackjackRound> = {}): BlackjackRound {
  return {
    shoe: 1,
    round: 4,
    dealer: ["TS", "7H"],
    dealerTotal: 17,
    dealerSoft: false,
    dealerBlackjack: false,
    boxes: [],
    complete: true,
    firstSeq: 10,
    lastSeq: 20,
    ...extra,
  };
}

describe("totals", () => {
  it("read as a supervisor says them", () => {
    expect(totalLabel([], null, false)).toBe("–");
    expect(totalLabel(["AS", "6D"], 17, true)).toBe("soft 17");
    expect(totalLabel(["TS", "9D", "5C"], 24, false)).toBe("bust 24");
    expect(totalLabel(["TS", null], null, false)).toBe("?");
    expect(handLabel(hand(["TS", "AH"], 21))).toBe("21");
  });

  it("say a dealer's natural", () => {
    expect(dealerLabel(round({ dealer: ["AS", "KD"], dealerTotal: 21, dealerSoft: true, dealerBlackjack: true }))).toBe("Blackjack");
    expect(dealerLabel(round({ dealer: ["AS", "6D"], dealerTotal: 17, dealerSoft: true }))).toBe("soft 17");
  });
});

describe("payouts", () => {
  it("have a tone and a cashier's label", () => {
    expect(paysTone("+1.5")).toBe("win");
    expect(paysTone("-2")).toBe("lose");
    expect(paysTone("0")).toBe("push");
    expect(paysTone(null)).toBe("unknown");
    expect(paysTone("nonsense")).toBe("unknown");
    expect(paysLabel("+1.5")).toBe("+1.5×");
    expect(paysLabel("-2")).toBe("−2×");
    expect(paysLabel("0")).toBe("0");
    expect(paysLabel(null)).toBe("?");
  });

  it("add up to the boxes' net once every hand is settled", () => {
    const settled = round({
      boxes: [
        { number: 1, hands: [hand(["TS", "AH"], 21, { outcome: "blackjack", pays: "+1.5" })], sideBets: [] },
        {
          number: 3,
          hands: [
            hand(["8S", "3H", "KD"], 21, { split: true, outcome: "win", pays: "+1" }),
            hand(["8C", "TD"], 18, { split: true, doubled: true, outcome: "lose", pays: "-2" }),
          ],
          sideBets: [],
        },
      ],
    });
    expect(boxesNet(settled)).toBe(0.5);
    expect(outcomeCounts(settled)).toEqual([
      { outcome: "blackjack", count: 1 },
      { outcome: "win", count: 1 },
      { outcome: "lose", count: 1 },
    ]);
    const dealing = round({ complete: false, boxes: [{ number: 2, hands: [hand(["9S"], 9)], sideBets: [] }] });
    expect(boxesNet(dealing)).toBeNull();
    expect(roundState(dealing)).toBe("dealing…");
    expect(roundState(settled)).toBe("dealer 17");
    expect(roundState(null)).toBe("waiting for the first round…");
  });

  it("chip a round by its net, and a round not seen whole as such, never as a loss", () => {
    const settled = round({
      round: 7,
      boxes: [{ number: 1, hands: [hand(["TS", "AH"], 21, { outcome: "blackjack", pays: "+1.5" })], sideBets: [] }],
    });
    expect(roundChip(settled)).toEqual({ text: "+1.5", tone: "win", title: "Round 7: BJ" });
    const lost = round({ boxes: [{ number: 1, hands: [hand(["TS", "6H", "9D"], 25, { outcome: "lose", pays: "-1" })], sideBets: [] }] });
    expect(roundChip(lost).tone).toBe("lose");
    const unknown = round({ boxes: [{ number: 1, hands: [hand(["TS", "7H"], 17, { outcome: "win", pays: null })], sideBets: [] }] });
    expect(roundChip(unknown)).toMatchObject({ text: "?", tone: "unknown" });
    // Cut off by a restart (or joined part-way after one): marked, not judged, whatever it holds.
    const cut = round({ round: 3, complete: false, boxes: [{ number: 2, hands: [hand(["9S", "TD", "8C"], 27, { outcome: "lose", pays: "-1" })], sideBets: [] }] });
    const chip = roundChip(cut);
    expect(chip.text).toBe("part");
    expect(chip.tone).toBe("unknown");
    expect(chip.title).toMatch(/^Round 3: not seen whole .*joined part-way.*not judged$/);
  });
});

describe("side bets and boxes", () => {
  it("name the side bet and show only those the cards won", () => {
    const won = { bet: "super_sevens", sevens: 2, suited: true, pays: "+50" };
    const lost = { bet: "super_sevens", sevens: 0, suited: false, pays: "-1" };
    expect(sideBetLabel(won)).toBe("Super Sevens: 2 sevens suited +50×");
    expect(sideBetLabel({ bet: "insurance", sevens: null, suited: null, pays: "+2" })).toBe("Insurance: +2×");
    expect(winningSideBets([won, lost])).toEqual([won]);
  });

  it("label a split box's hands", () => {
    expect(boxLabel(3, 0, 1)).toBe("Box 3");
    expect(boxLabel(3, 1, 2)).toBe("Box 3 · 2");
  });
});

describe("the legend", () => {
  it("explains every letter the history and the tile show", () => {
    const marks = OUTCOME_LEGEND.map((l) => l.mark);
    for (const letter of Object.values(OUTCOME_LETTER)) expect(marks).toContain(letter);
  });
});
