import { describe, expect, it } from "vitest";
import type { PokerHand } from "../../lib/bindings";
import { MISDEAL_REASONS, declaredLabel, handOutcome, parseSeats, seatLabel, variantLabel } from "./poker";

const hand = (over: Partial<PokerHand> = {}): PokerHand => ({
  variant: "texas_holdem",
  hand: 3,
  shoe: 3,
  round: 1,
  seats: [],
  misdeal: null,
  declared: [],
  substantialActionSeq: null,
  defectiveDeck: false,
  complete: true,
  firstSeq: 10,
  lastSeq: 14,
  ...over,
});

describe("poker view logic", () => {
  it("offers every lettered misdeal reason once, in order", () => {
    expect(MISDEAL_REASONS.map((r) => r.letter).join("")).toBe("abcdefghijkl");
  });

  it("reads seats typed at the console, refusing what is not a seat", () => {
    expect(parseSeats("4, 2 4;7")).toEqual([2, 4, 7]);
    expect(parseSeats("")).toEqual([]);
    expect(parseSeats("0")).toBeNull();
    expect(parseSeats("11")).toBeNull();
    expect(parseSeats("two")).toBeNull();
  });

  it("says how a hand ended, a misdeal first", () => {
    expect(handOutcome(hand({ misdeal: "h", defectiveDeck: true }))).toEqual({ text: "misdeal (h)", tone: "bad" });
    expect(handOutcome(hand({ defectiveDeck: true }))).toEqual({ text: "defective deck", tone: "bad" });
    expect(handOutcome(hand({ complete: false }), true).text).toBe("being dealt");
    expect(handOutcome(hand({ complete: false })).text).toBe("cut off");
    expect(handOutcome(hand()).text).toBe("no play seen");
    const seat = { seat: 1, cards: 2, faceUp: 0, acted: true, folded: false, ruled: null };
    expect(handOutcome(hand({ seats: [seat] }))).toEqual({ text: "dealt", tone: "ok" });
  });

  it("labels seats, declarations and variants as people say them", () => {
    expect(seatLabel({ seat: 3, cards: 2, faceUp: 0, acted: true, folded: false, ruled: null })).toBe("3: 2 cards · acted");
    expect(seatLabel({ seat: 5, cards: 1, faceUp: 1, acted: false, folded: true, ruled: null })).toBe("5: 1 card, 1 up · folded");
    expect(seatLabel({ seat: 2, cards: 0, faceUp: 0, acted: false, folded: true, ruled: null })).toBe("seat 2 · folded");
    expect(seatLabel({ seat: 4, cards: 3, faceUp: 0, acted: true, folded: false, ruled: "dead_hand" })).toBe("4: 3 cards · acted · dead hand");
    expect(seatLabel({ seat: 6, cards: 2, faceUp: 0, acted: false, folded: false, ruled: "void_hand" })).toBe("6: 2 cards · void hand");
    expect(declaredLabel({ reason: "d", seats: [2, 4], ruling: "misdeal" })).toBe("(d) misdeal, seats 2, 4");
    expect(declaredLabel({ reason: "f", seats: [], ruling: "dead_hand" })).toBe("(f) dead hand, whole hand");
    expect(variantLabel("seven_card_stud")).toBe("Seven Card Stud");
    expect(variantLabel("omaha_hi")).toBe("omaha hi");
  });
});
