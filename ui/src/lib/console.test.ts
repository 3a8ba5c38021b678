import { describe, expect, it } from "vitest";
import { consoleEntry, newConsoleForm } from "./console";

const seats = (text: string) => (/^[\d ,]*$/.test(text) ? text.split(/[ ,]+/).filter((p) => p !== "").map(Number) : null);

describe("the console form", () => {
  it("starts on a declared misdeal only where the game has misdeals", () => {
    expect(newConsoleForm(true).kind).toBe("misdeal");
    expect(newConsoleForm(false).kind).toBe("card_exposed");
  });

  it("turns its fields into the entry the desk records", () => {
    const form = newConsoleForm(false);
    expect(consoleEntry({ ...form, card: " TD " , during: "dealing" }, null)).toEqual({ entry: { kind: "card_exposed", card: "TD", during: "dealing" } });
    expect(consoleEntry({ ...form, card: "  " }, null)).toEqual({ entry: { kind: "card_exposed", card: null, during: "cutting" } });
    expect(consoleEntry({ ...form, kind: "cut", position: 57 }, null)).toEqual({ entry: { kind: "cut", position: 57 } });
    expect(consoleEntry({ ...form, kind: "cards_replaced" }, null)).toEqual({ entry: { kind: "cards_replaced" } });
    expect(consoleEntry({ ...form, kind: "table_vacant" }, null)).toEqual({ entry: { kind: "table_vacant" } });
    expect(consoleEntry({ ...form, kind: "shuffle_step", step: "riffle" }, null)).toEqual({ entry: { kind: "shuffle_step", step: "riffle" } });
  });

  it("signs a dealer in or out by their name as typed, and refuses a blank one", () => {
    const form = { ...newConsoleForm(false), dealer: " Mere Te Whatu" };
    expect(consoleEntry({ ...form, kind: "dealer_signed_in" }, null)).toEqual({ entry: { kind: "dealer_signed_in", dealer: " Mere Te Whatu" } });
    expect(consoleEntry({ ...form, kind: "dealer_signed_out" }, null)).toEqual({ entry: { kind: "dealer_signed_out", dealer: " Mere Te Whatu" } });
    expect(consoleEntry({ ...form, kind: "dealer_signed_in", dealer: "  " }, null)).toEqual({ error: { code: "invalid_input", message: "Type the dealer's name." } });
  });

  it("declares a misdeal with its seats, and refuses seats that are not numbers", () => {
    const form = { ...newConsoleForm(true), reason: "d", seats: "2, 4" };
    expect(consoleEntry(form, seats)).toEqual({ entry: { kind: "misdeal", reason: "d", seats: [2, 4], ruling: "misdeal" } });
    expect(consoleEntry({ ...form, seats: "two" }, seats)).toEqual({ error: { code: "invalid_input", message: '"two" is not a list of seat numbers 1 to 10.' } });
    expect("error" in consoleEntry(form, null)).toBe(true);
  });
});
