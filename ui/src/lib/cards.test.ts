import { describe, expect, it } from "vitest";
import { cardFace, handTotal } from "./cards";

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
