import { describe, expect, it } from "vitest";
import type { DeckCheckView, DeviceAlarmView, DeviceTile, TableTile } from "./bindings";
import { alarmLabel, clockLabel, countersLabel, deckCheckBadge, identityLines, linkAndDetail, linkWords, otherDevices, ROLE_LABEL, withoutClearedLiveness } from "./devices";

describe("countersLabel", () => {
  it("says each counter the shuffler keeps, in words", () => {
    expect(countersLabel({ cycles: 1042, recognitionErrors: 3, malfunctions: 1 })).toBe(
      "1,042 shuffles · 3 recognition errors · 1 malfunction",
    );
    expect(countersLabel({ cycles: 1, recognitionErrors: null, malfunctions: null })).toBe("1 shuffle");
  });
});

const check = (over: Partial<DeckCheckView> = {}): DeckCheckView => ({
  decks: 8,
  cards: 416,
  expected: 416,
  missing: 0,
  extra: 0,
  foreign: 0,
  passed: true,
  atMs: 1_000,
  seq: 12,
  ...over,
});

describe("deckCheckBadge", () => {
  it("says when no shuffle has been seen", () => {
    expect(deckCheckBadge(null, 0)).toMatchObject({ text: "no shuffle yet", tone: "muted" });
  });
  it("shows a passed check quietly, with its age in the title", () => {
    const badge = deckCheckBadge(check(), 31_000);
    expect(badge).toMatchObject({ text: "✓ 416 cards", tone: "ok" });
    expect(badge.title).toContain("30 s ago");
    expect(badge.title).toContain("8 decks");
  });
  it("shows a failed check with what was wrong", () => {
    const badge = deckCheckBadge(check({ cards: 415, missing: 2, extra: 1, passed: false, atMs: null }), 0);
    expect(badge.tone).toBe("bad");
    expect(badge.text).toBe("⚠ 415 of 416 (2 missing, 1 extra)");
    expect(badge.title).toContain("must not be dealt");
    expect(badge.title).not.toContain("ago");
  });
  it("flags a check that is wrong only by its count", () => {
    expect(deckCheckBadge(check({ cards: 417, passed: false }), 0).text).toBe("⚠ 417 of 416");
  });
});

describe("otherDevices", () => {
  it("leaves out the main device", () => {
    const device = (role: DeviceTile["role"]): DeviceTile => ({
      role,
      protocol: "pitwatch",
      link: "simulated",
      status: "connected",
      statusDetail: "",
      lastCheck: null,
      shuffling: false,
      counters: null,
      alarm: null,
      identity: null,
    });
    expect(otherDevices([device("shoe"), device("shuffler")]).map((d) => ROLE_LABEL[d.role])).toEqual(["Shuffler"]);
    expect(otherDevices([device("shoe")])).toEqual([]);
  });
});

describe("a device's liveness alarm", () => {
  const alarm = (kind: DeviceAlarmView["kind"], incident: number | null = 7): DeviceAlarmView => ({
    kind,
    sinceMs: Date.UTC(2026, 11, 2, 14, 2, 11),
    device: 0,
    incident,
  });

  it("says since when, in UTC, or that it never connected", () => {
    expect(clockLabel(Date.UTC(2026, 11, 2, 4, 5, 6))).toBe("04:05:06 UTC");
    expect(clockLabel(Date.UTC(2026, 11, 2, 4, 5, 6), "Pacific/Auckland")).toBe("17:05:06 NZDT");
    expect(alarmLabel(alarm("offline"))).toBe("offline since 14:02:11 UTC");
    expect(alarmLabel(alarm("silent"))).toBe("silent since 14:02:11 UTC");
    expect(alarmLabel(alarm("never_connected"))).toBe("never connected");
    expect(alarmLabel(null)).toBeNull();
  });

  it("is an alert only while it stands: back, its incident stays but the alert clears", () => {
    const rows = [
      { id: 7, code: "DEVICE_OFFLINE" },
      { id: 8, code: "DEVICE_SILENT" },
      { id: 9, code: "CARD_COUNT" },
    ];
    const tables = (a: DeviceAlarmView | null) => [{ alarm: a, devices: [{ alarm: a }] }] as unknown as TableTile[];
    expect(withoutClearedLiveness(rows, tables(alarm("offline"))).map((r) => r.id)).toEqual([7, 9]);
    expect(withoutClearedLiveness(rows, tables(null)).map((r) => r.id)).toEqual([9]);
  });
});

describe("identityLines", () => {
  const identity = { make: "Pitwatch", model: "Shoe-1", serial: "SN-0042", firmware: "2.1.0", saidAt: null, usb: "" };
  it("says what the device reports and the adapter it is reached through", () => {
    expect(identityLines(identity)).toEqual({ device: "Pitwatch Shoe-1 · serial number SN-0042 · firmware 2.1.0", usb: null, said: null });
    expect(identityLines({ ...identity, make: "", model: "", serial: "", firmware: "", usb: "FT232R USB UART serial number A10K on /dev/ttyUSB0" })).toEqual({
      device: null,
      usb: "via FT232R USB UART serial number A10K on /dev/ttyUSB0",
      said: null,
    });
    expect(identityLines({ ...identity, saidAt: "2026-12-03T10:00:00Z" })?.said).toMatch(/^as it said at 2026-12-03 10:00:00/);
  });

  it("says nothing when nothing is known", () => {
    expect(identityLines(null)).toBeNull();
    expect(identityLines({ ...identity, make: " ", model: "", serial: "", firmware: "" })).toBeNull();
  });
});

describe("a link in words", () => {
  it("says a serial port and a device server, never a bare serial", () => {
    expect(linkWords("serial /dev/ttyUSB0 9600 8N1")).toBe("serial port /dev/ttyUSB0 · 9600 8N1");
    expect(linkWords("serial /dev/pts/3 4800 7E1 xon/xoff")).toBe("serial port /dev/pts/3 · 4800 7E1 xon/xoff");
    expect(linkWords("tcp 10.0.0.5:4001")).toBe("device server 10.0.0.5:4001");
    expect(linkWords("simulated")).toBe("simulated");
  });

  it("says the link once on the device panel", () => {
    expect(linkAndDetail("serial /dev/ttyUSB0 9600 8N1", "serial /dev/ttyUSB0 9600 8N1")).toEqual({ link: "serial port /dev/ttyUSB0 · 9600 8N1", detail: "" });
    expect(linkAndDetail("simulated", "serial /dev/pts/1 9600 8N1")).toEqual({ link: "simulated, on serial port /dev/pts/1 · 9600 8N1", detail: "" });
    expect(linkAndDetail("tcp 10.0.0.5:4001", "cannot open 10.0.0.5:4001: connection refused")).toEqual({
      link: "device server 10.0.0.5:4001",
      detail: "cannot open 10.0.0.5:4001: connection refused",
    });
    expect(linkAndDetail("serial /dev/ttyUSB0 9600 8N1", "")).toEqual({ link: "serial port /dev/ttyUSB0 · 9600 8N1", detail: "" });
  });
});
