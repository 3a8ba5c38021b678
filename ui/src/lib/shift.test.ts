import { describe, expect, it } from "vitest";
import { formatUtc, parseUtc, shiftEndingNow, shiftLength, shiftQuery } from "./shift";

const T = Date.UTC(2026, 10, 30, 18, 0, 0);

describe("parseUtc and formatUtc", () => {
  it("read and write UTC times to the minute", () => {
    expect(formatUtc(T)).toBe("2026-11-30 18:00");
    expect(parseUtc("2026-11-30 18:00")).toBe(T);
    expect(parseUtc("2026-11-30T18:00:00Z")).toBe(T);
    expect(parseUtc(" 2026-11-30 18:00 UTC ")).toBe(T);
  });

  it("refuse what is not a time", () => {
    expect(parseUtc("yesterday")).toBeNull();
    expect(parseUtc("2026-02-30 10:00")).toBeNull();
    expect(parseUtc("2026-11-30 24:00")).toBeNull();
    expect(parseUtc("2026-11-30 18:00+13:00")).toBeNull();
  });
});

describe("shiftEndingNow", () => {
  it("ends at the last whole minute and starts the hours before", () => {
    expect(shiftEndingNow(T + 59_999, 12)).toEqual({ from: "2026-11-30 06:00", to: "2026-11-30 18:00" });
    expect(shiftEndingNow(T, 8)).toEqual({ from: "2026-11-30 10:00", to: "2026-11-30 18:00" });
  });
});

describe("shiftQuery", () => {
  it("gives the desk RFC 3339 times and the table or null for all", () => {
    expect(shiftQuery("2026-11-30 06:00", "2026-11-30 18:00", "")).toEqual({
      from: "2026-11-30T06:00:00.000Z",
      to: "2026-11-30T18:00:00.000Z",
      table: null,
    });
    expect(shiftQuery("2026-11-30 06:00", "2026-11-30 18:00", "BAC-1")).toMatchObject({ table: "BAC-1" });
  });

  it("names what is wrong", () => {
    expect(shiftQuery("06:00", "2026-11-30 18:00", "")).toMatch(/start/);
    expect(shiftQuery("2026-11-30 06:00", "soon", "")).toMatch(/end/);
    expect(shiftQuery("2026-11-30 18:00", "2026-11-30 06:00", "")).toMatch(/end after it starts/);
  });
});

describe("shiftLength", () => {
  it("says how long the shift is", () => {
    expect(shiftLength("2026-11-30 06:00", "2026-11-30 18:00")).toBe("12 h");
    expect(shiftLength("2026-11-30 06:00", "2026-11-30 13:30")).toBe("7 h 30 min");
    expect(shiftLength("2026-11-30 06:00", "2026-11-30 06:45")).toBe("45 min");
    expect(shiftLength("2026-11-30 06:00", "2026-11-30 05:00")).toBeNull();
  });
});
