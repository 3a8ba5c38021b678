import { describe, expect, it } from "vitest";
import type { DeviceHealthView } from "./bindings";
import { boardOrder, deviceLine, errorsLine, framesLine, sessionsLine, uptimeLine } from "./health";

const row: DeviceHealthView = {
  table: "BAC-3", protocol: "pitwatch", device: "Pitwatch Simulated shuffler", serial: "SIM-S1", firmware: "1", via: "", port: "/dev/pts/3",
  sessions: 1, firstAt: "2026-12-03T06:00:00Z", lastEndAt: null, connectedMs: 3_600_000, offlineMs: 0,
  framesAccepted: 1204, framesRejected: 0, retransmissions: 0, errors: 0, errorCodes: [], standsOut: [],
};

describe("a device's health in words", () => {
  it("names the device and how it served", () => {
    expect(deviceLine(row)).toBe("Pitwatch Simulated shuffler (Pitwatch protocol) · serial number SIM-S1 · firmware 1 · /dev/pts/3");
    expect(deviceLine({ ...row, protocol: "barcode", device: "", serial: "", firmware: "", port: "serial /dev/pts/0 9600 8N1" })).toBe(
      "Barcode shoe · serial port /dev/pts/0 · 9600 8N1",
    );
    expect(deviceLine({ ...row, protocol: "angel-eye", device: "", serial: "", firmware: "", port: "tcp 10.0.4.21:4001" })).toBe(
      "Angel Eye II-EX · device server 10.0.4.21:4001",
    );
    expect(deviceLine({ ...row, protocol: "morse", device: "", serial: "", firmware: "" })).toBe("morse · /dev/pts/3");
    expect(deviceLine({ ...row, via: "FTDI FT232R USB UART serial number A1", port: "serial /dev/ttyUSB0 9600 8N1" })).toBe(
      "Pitwatch Simulated shuffler (Pitwatch protocol) · serial number SIM-S1 · firmware 1 · via FTDI FT232R USB UART serial number A1 on serial port /dev/ttyUSB0 · 9600 8N1",
    );
    expect(uptimeLine(row)).toBe("1 h 0 min connected, never lost");
    expect(uptimeLine({ ...row, connectedMs: 99_000, offlineMs: 1_000 })).toBe("1 min 39 s connected, 1 s not (99.0%)");
    expect(framesLine(row)).toBe("1,204 accepted · 0 rejected");
    expect(framesLine({ ...row, framesAccepted: 997, framesRejected: 3 })).toBe("997 accepted · 3 rejected (0.3%)");
    expect(framesLine({ ...row, framesRejected: 1, retransmissions: 1 })).toBe("1,204 accepted · 1 rejected (0.1%) · 1 card sent again");
    expect(framesLine({ ...row, retransmissions: 2 })).toBe("1,204 accepted · 0 rejected · 2 cards sent again");
    expect(sessionsLine(row)).toBe("1 connection");
    expect(sessionsLine({ ...row, sessions: 4 })).toBe("4 connections (3 reconnects)");
    expect(errorsLine(row)).toBe("none");
    expect(errorsLine({ ...row, errors: 2, errorCodes: ["9", "E4"] })).toBe("2 (codes 9, E4)");
  });
});

describe("the board's order", () => {
  it("lists tables as a floor numbers them, each table's devices as they served it", () => {
    const at = (table: string, port: string) => ({ ...row, table, port });
    const rows = [at("BAC-10", "a"), at("BAC-2", "b"), at("BJ-1", "c"), at("BAC-2", "d"), at("BAC-1", "e")];
    expect(boardOrder(rows).map((r) => `${r.table} ${r.port}`)).toEqual(["BAC-1 e", "BAC-2 b", "BAC-2 d", "BAC-10 a", "BJ-1 c"]);
  });
});
