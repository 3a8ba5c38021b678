import { afterEach, describe, expect, it } from "vitest";
import { abbreviation, formatAt, getSiteZone, knownZone, parseWall, setSiteZone, wallInput, zoneName } from "./time";

const AKL = "Pacific/Auckland";

afterEach(() => setSiteZone(null));

describe("times in the site's zone", () => {
  it("without a zone shows UTC and says so", () => {
    expect(formatAt("2026-11-30T09:14:05.120Z", {}, null)).toBe("2026-11-30 09:14:05 UTC");
    expect(zoneName(null)).toBe("UTC");
  });

  it("shows the wall clock of the site's zone with the abbreviation of that instant", () => {
    expect(formatAt("2026-11-30T09:14:05Z", {}, AKL)).toBe("2026-11-30 22:14:05 NZDT");
    expect(formatAt("2026-06-30T00:00:00Z", {}, AKL)).toBe("2026-06-30 12:00:00 NZST");
    // Past midnight there: the date is the site's, not UTC's.
    expect(formatAt("2026-11-30T12:00:00Z", {}, AKL)).toBe("2026-12-01 01:00:00 NZDT");
    expect(formatAt(Date.parse("2026-11-30T09:14:05Z"), { date: false }, AKL)).toBe("22:14:05 NZDT");
    expect(formatAt("2026-11-30T09:14:05.007Z", { millis: true, date: false }, AKL)).toBe("22:14:05.007 NZDT");
    expect(formatAt("2026-11-30T09:14:05Z", { seconds: false, zone: false }, AKL)).toBe("2026-11-30 22:14");
  });

  it("uses the zone set for the site when none is given, and UTC for an unknown name", () => {
    setSiteZone(AKL);
    expect(getSiteZone()).toBe(AKL);
    expect(formatAt("2026-11-30T09:14:05Z")).toBe("2026-11-30 22:14:05 NZDT");
    expect(zoneName()).toBe(AKL);
    setSiteZone("Mars/Olympus_Mons");
    expect(getSiteZone()).toBeNull();
    expect(formatAt("2026-11-30T09:14:05Z")).toBe("2026-11-30 09:14:05 UTC");
    expect(knownZone(undefined)).toBeNull();
  });

  it("names the zone even when the user's locale knows only its offset", () => {
    expect(abbreviation(Date.parse("2026-11-30T09:00:00Z"), AKL, "en-US")).toBe("NZDT");
    expect(abbreviation(Date.parse("2026-11-30T09:00:00Z"), "Australia/Sydney", "en-GB")).toBe("AEDT");
    // A zone no English locale names: its offset.
    expect(abbreviation(Date.parse("2026-11-30T09:00:00Z"), "Asia/Macau", "en-US")).toBe("GMT+8");
  });

  it("says nothing for no time and gives unreadable text back", () => {
    expect(formatAt(null)).toBe("—");
    expect(formatAt("")).toBe("—");
    expect(formatAt("not a time")).toBe("not a time");
  });
});

describe("times typed in the site's zone", () => {
  it("reads a wall time as the instant it names there", () => {
    expect(parseWall("2026-11-30T22:00", AKL)).toBe(Date.parse("2026-11-30T09:00:00Z"));
    expect(parseWall("2026-06-30 12:00:30", AKL)).toBe(Date.parse("2026-06-30T00:00:30Z"));
    expect(parseWall("2026-11-30T09:00", null)).toBe(Date.parse("2026-11-30T09:00:00Z"));
    // Just after the clocks went forward (27 Sep 2026, 02:00 NZST → 03:00 NZDT).
    expect(parseWall("2026-09-27T04:00", AKL)).toBe(Date.parse("2026-09-26T15:00:00Z"));
  });

  it("reads a skipped time with the offset before, and a doubled one as the first", () => {
    expect(parseWall("2026-09-27T02:30", AKL)).toBe(Date.parse("2026-09-26T14:30:00Z"));
    expect(parseWall("2026-04-05T02:30", AKL)).toBe(Date.parse("2026-04-04T13:30:00Z"));
  });

  it("refuses what is not a time or not a date", () => {
    expect(parseWall("", AKL)).toBeNull();
    expect(parseWall("yesterday", AKL)).toBeNull();
    expect(parseWall("2026-02-30T10:00", AKL)).toBeNull();
    expect(parseWall("2026-11-30T24:00", AKL)).toBeNull();
  });

  it("shows an instant as a datetime-local input in the zone, the inverse of reading it", () => {
    const ms = Date.parse("2026-11-30T09:00:00Z");
    expect(wallInput(ms, AKL)).toBe("2026-11-30T22:00");
    expect(parseWall(wallInput(ms, AKL), AKL)).toBe(ms);
  });
});
