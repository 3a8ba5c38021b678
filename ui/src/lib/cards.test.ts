import { describe, expect, it } from "vitest";
import { cardFace, handTotal, pickedCard, RANK_CHOICES, SUIT_CHOICES } from "./cards";

describe("cardFace", () => {
  it("reads the project's card codes", () => {
    expect(cardFace("TD")).toMatchObject({ rank: "10", symbol: "♦", red: true, name: "10 of diamonds" });
    expect(cardFace("AS")).toMatchObject({ rank: "A", symbol: "♠", red: false });
    expect(cardFace("kh")?.rank).toBe("K");
  });

  it("gives null for unreadable or malformed codes", () => {
    for (const bad of [null, undefined, "", "1S", "TX", "TDX"]) expect(cardFace(bad)).toBeNull();
  });
});

describe("handTotal", () => {
  it("counts baccarat points modulo ten", () => {
    expect(handTotal(["9S", "8H"])).toBe(7);
    expect(handTotal(["KS", "TD", "AC"])).toBe(1);
    expect(handTotal([])).toBe(0);
    expect(handTotal(["9S", null])).toBeNull();
  });
});

describe("the card picker", () => {
  it("makes a code from a rank and a suit, or none until both are chosen", () => {
    expect(pickedCard("T", "D")).toBe("TD");
    expect(pickedCard("Q", "S")).toBe("QS");
    expect(pickedCard("T", "")).toBe("");
    expect(pickedCard("", "H")).toBe("");
    expect(pickedCard("X", "H")).toBe("");
  });

  it("offers the thirteen ranks and four suits, each a code the desk reads", () => {
    expect(RANK_CHOICES.map((r) => r.label)).toEqual(["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]);
    expect(SUIT_CHOICES.map((s) => s.label)).toEqual(["♠ spades", "♥ hearts", "♦ diamonds", "♣ clubs"]);
    for (const r of RANK_CHOICES) for (const s of SUIT_CHOICES) expect(cardFace(pickedCard(r.code, s.code))?.rank).toBe(r.label);
  });
});
