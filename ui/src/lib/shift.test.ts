import { describe, expect, it } from "vitest";
import type { HandoverSummary, SignOffRow } from "./bindings";
import { formatMinute, parseMinute, shiftEndingNow, shiftLength, shiftQuery, signOffLine, signOffProblem, summaryLines } from "./shift";

const T = Date.UTC(2026, 10, 30, 18, 0, 0);

describe("parseMinute and formatMinute", () => {
  it("read and write UTC times to the minute", () => {
    expect(formatMinute(T)).toBe("2026-11-30 18:00");
    expect(parseMinute("2026-11-30 18:00")).toBe(T);
    expect(parseMinute("2026-11-30T18:00:00Z")).toBe(T);
    expect(parseMinute(" 2026-11-30 18:00 UTC ")).toBe(T);
  });

  it("refuse what is not a time", () => {
    expect(parseMinute("yesterday")).toBeNull();
    expect(parseMinute("2026-02-30 10:00")).toBeNull();
    expect(parseMinute("2026-11-30 24:00")).toBeNull();
    expect(parseMinute("2026-11-30 18:00+13:00")).toBeNull();
  });

  it("read and write the site's wall clock when it has a zone (UTC when the text says so)", () => {
    expect(formatMinute(T, "Pacific/Auckland")).toBe("2026-12-01 07:00");
    expect(parseMinute("2026-12-01 07:00", "Pacific/Auckland")).toBe(T);
    expect(parseMinute("2026-11-30 18:00 UTC", "Pacific/Auckland")).toBe(T);
    expect(parseMinute("2026-11-30T18:00:00Z", "Pacific/Auckland")).toBe(T);
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

const SIGNED: SignOffRow = {
  user: "ana",
  at: "2026-11-30T18:02:00Z",
  from: "2026-11-30T06:00:00Z",
  to: "2026-11-30T18:00:00Z",
  table: null,
  note: "camera 14 checked",
  workstation: "pit-ws-3",
  acceptedBy: "ben",
  acceptedAt: "2026-11-30T18:02:00Z",
};

const SUMMARY: HandoverSummary = {
  openIncidents: { critical: 1, high: 2, medium: 0, low: 0 },
  unacknowledged: 2,
  devicesDown: [{ table: "BAC-3", device: "shoe", status: "reconnecting", detail: "connection refused" }],
  tablesDown: [{ table: "BAC-9", state: "closed", why: "closed (its last recorded state)" }],
  signed: [],
};

describe("the handover summary", () => {
  it("says what is handed over", () => {
    const lines = summaryLines(SUMMARY);
    expect(lines.incidents).toBe("3 open incidents: 1 critical, 2 high (2 not acknowledged).");
    expect(lines.devices).toEqual(["BAC-3: shoe reconnecting (connection refused)"]);
    expect(lines.tables).toEqual(["BAC-9: closed (its last recorded state)"]);
    const calm = summaryLines({ ...SUMMARY, openIncidents: { critical: 0, high: 0, medium: 0, low: 1 }, unacknowledged: 0 });
    expect(calm.incidents).toBe("1 open incident: 1 low (all acknowledged).");
    expect(summaryLines({ ...SUMMARY, openIncidents: { critical: 0, high: 0, medium: 0, low: 0 } }).incidents).toBe("No open incident.");
  });

  it("writes a sign-off with its acceptance", () => {
    expect(signOffLine(SIGNED)).toBe(
      "ana signed off 2026-11-30 06:00 UTC to 2026-11-30 18:00 UTC (every table) at 2026-11-30 18:02 UTC, accepted by ben.",
    );
    expect(signOffLine({ ...SIGNED, table: "BAC-1", acceptedBy: null })).toMatch(/\(BAC-1\).*not accepted/);
  });

  it("asks for both passwords and someone else, and refuses a period already signed", () => {
    expect(signOffProblem("ana", "", "ben", "pw", SUMMARY)).toBe("Enter your password to sign off.");
    expect(signOffProblem("ana", "pw", " ", "pw", SUMMARY)).toMatch(/enter their user name/);
    expect(signOffProblem("ana", "pw", "ana", "pw", SUMMARY)).toBe("The incoming supervisor must be someone else.");
    expect(signOffProblem("ana", "pw", "ben", "", SUMMARY)).toMatch(/their password/);
    expect(signOffProblem("ana", "pw", "ben", "pw", SUMMARY)).toBeNull();
    expect(signOffProblem("ana", "pw", "ben", "pw", { ...SUMMARY, signed: [SIGNED] })).toMatch(/^This period is already signed off: ana signed off/);
  });
});
