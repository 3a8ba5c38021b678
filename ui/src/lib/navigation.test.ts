import { describe, expect, it } from "vitest";
import { keyCommand, navActive, startupLines } from "./navigation";

describe("the keys", () => {
  it("work the alert banner, either case", () => {
    expect(["a", "A", "n", "N", "o", "O", "m", "M", "r", "R", "Escape"].map((k) => keyCommand(k, null, false, "supervisor"))).toEqual([
      "acknowledge", "acknowledge", "next", "next", "open", "open", "mute", "mute", "replay", "replay", "pit",
    ]);
    expect(keyCommand("x", null, false, "supervisor")).toBeNull();
  });

  it("do nothing the user's role may not do: no refusal for a button never shown", () => {
    expect(["a", "A", "n", "o", "m", "r", "Escape"].map((k) => keyCommand(k, null, false, "surveillance"))).toEqual([
      null, null, "next", "open", "mute", "replay", "pit",
    ]);
    expect(keyCommand("a", null, false, "admin")).toBe("acknowledge");
    expect(keyCommand("a", null, false, "croupier")).toBeNull();
  });

  it("mute only for someone logged in; A without anyone asks to log in", () => {
    expect(["m", "M"].map((k) => keyCommand(k, null, false, null))).toEqual([null, null]);
    expect(keyCommand("a", null, false, null)).toBe("acknowledge");
    expect(keyCommand("n", null, false, null)).toBe("next");
  });

  it("are text in a field", () => {
    for (const tag of ["INPUT", "SELECT", "TEXTAREA"]) expect(keyCommand("a", tag, false, "supervisor")).toBeNull();
    expect(keyCommand("a", "BUTTON", false, "supervisor")).toBe("acknowledge");
  });

  it("only move on while locked: no mute on the lock screen", () => {
    expect(["a", "n", "o", "m", "M", "r", "Escape"].map((k) => keyCommand(k, null, true))).toEqual([null, "next", null, null, null, null, null]);
  });
});

describe("the screens", () => {
  it("light the pit's button on a table's screen", () => {
    expect(navActive({ name: "table", table: "BAC-1" }, "pit")).toBe(true);
    expect(navActive({ name: "pit" }, "pit")).toBe(true);
    expect(navActive({ name: "replay", table: "BAC-1", shoe: null, seq: null }, "replay")).toBe(true);
    expect(navActive({ name: "incidents" }, "pit")).toBe(false);
  });

  it("list a start-up error's problems under its first line", () => {
    expect(startupLines("The pit definition has 2 problems:\n  - table BAC-1: no device\n\n  - rule book missing\n")).toEqual({
      lead: "The pit definition has 2 problems:",
      problems: ["table BAC-1: no device", "rule book missing"],
    });
    expect(startupLines("")).toEqual({ lead: "", problems: [] });
  });
});
