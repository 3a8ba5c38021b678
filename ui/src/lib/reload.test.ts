import { describe, expect, it } from "vitest";
import type { PitReload } from "./bindings";
import { linkDraft, linkTestCounts, newLinkForm, newTableForm, reloadSummary, renameProblem, retireWarning, portChoices, portsLine, serialLine, tableDraft, variantChoices } from "./reload";

const none: PitReload = { file: "/etc/pitwatch/pit.toml", added: [], removed: [], disabled: [], changed: [], unchanged: 0, atRestart: [], problems: [] };

describe("reloadSummary", () => {
  it("says what happened to each table, changes first", () => {
    const lines = reloadSummary({
      ...none,
      added: ["BAC-9"],
      removed: ["BJ-2", "BJ-3"],
      changed: [{ name: "BAC-1", what: ["rules", "devices"] }],
      disabled: ["PON-1"],
      unchanged: 1,
      atRestart: ["site"],
      problems: ["table SIM-1: simulated tables run only in the demo pit"],
    });
    expect(lines.map((l) => l.kind)).toEqual(["started", "stopped", "restarted", "disabled", "kept", "later", "problem"]);
    expect(lines[0]?.text).toBe("Started: BAC-9");
    expect(lines[1]?.text).toBe("Stopped (no longer in the file): BJ-2, BJ-3");
    expect(lines[2]?.text).toBe("Restarted BAC-1 (changed: rules, devices)");
    expect(lines[4]?.text).toBe("1 table keeps recording untouched");
    expect(lines[5]?.text).toBe("Applies at the next start: site");
  });

  it("says so when nothing changed", () => {
    const lines = reloadSummary({ ...none, unchanged: 4 });
    expect(lines.map((l) => l.text)).toEqual(["Nothing to apply: every table is defined as it runs.", "4 tables keep recording untouched"]);
  });
});

describe("tableDraft", () => {
  it("builds a serial table's draft from the form", () => {
    const form = { ...newTableForm(), name: " BAC-9 ", path: "/dev/ttyUSB3", baud: 19200 };
    expect(tableDraft(form)).toEqual({ draft: { name: "BAC-9", game: "baccarat", rules: "nz-baccarat", protocol: "angel-eye", link: { kind: "serial", path: "/dev/ttyUSB3", baud: 19200 } } });
  });

  it("builds a device server's draft, and says what is missing", () => {
    const tcp = { ...newTableForm(), name: "BJ-4", game: "blackjack", rules: "nz-blackjack", protocol: "pitwatch" as const, linkKind: "tcp" as const, address: "10.0.4.21:4001" };
    expect(tableDraft(tcp)).toEqual({ draft: { name: "BJ-4", game: "blackjack", rules: "nz-blackjack", protocol: "pitwatch", link: { kind: "tcp", address: "10.0.4.21:4001" } } });
    expect(tableDraft({ ...tcp, address: "10.0.4.21" })).toEqual({ missing: "Give its shoe's device server as host:port, e.g. 10.0.4.21:4001." });
    expect(tableDraft({ ...tcp, name: " " })).toEqual({ missing: "Give the table a name." });
    expect(tableDraft({ ...newTableForm(), name: "X" })).toEqual({ missing: "Choose the serial port its shoe is on." });
  });

  it("says a framing other than 8N1, the decks and a shuffler beside the shoe", () => {
    const form = { ...newTableForm(), name: "BAC-9", path: "/dev/ttyUSB3", baud: 4800, framing: "7E1", flow: "hardware" as const, decks: "6" };
    const shuffler = { ...newLinkForm(), linkKind: "tcp" as const, address: "10.0.4.22:4001" };
    expect(tableDraft({ ...form, withShuffler: true, shuffler })).toEqual({
      draft: {
        name: "BAC-9", game: "baccarat", rules: "nz-baccarat", protocol: "angel-eye", decks: 6,
        link: { kind: "serial", path: "/dev/ttyUSB3", baud: 4800, line: { dataBits: 7, parity: "even", stopBits: 1, flowControl: "hardware" } },
        shuffler: { kind: "tcp", address: "10.0.4.22:4001" },
      },
    });
    // A shuffler asked for but not said where is missing; one not asked for is not sent.
    expect(tableDraft({ ...form, withShuffler: true })).toEqual({ missing: "Choose the serial port the shuffler is on." });
    expect(tableDraft({ ...form, shuffler })).not.toHaveProperty("draft.shuffler");
    expect(tableDraft({ ...form, framing: "9X3" })).toEqual({ missing: "Give its shoe's framing as data bits, parity and stop bits, e.g. 8N1 or 7E1." });
  });
});

describe("variantChoices", () => {
  it("offers the book's own variant first, then the others by name, and sends only another", () => {
    const book = {
      variants: [
        { id: "draw", name: "Draw" },
        { id: "stud", name: "Seven Card Stud" },
        { id: "holdem", name: "Hold'em" },
      ],
      defaultVariant: "holdem",
    };
    expect(variantChoices(book)).toEqual([
      { value: "", label: "Hold'em (the rule book's own)" },
      { value: "draw", label: "Draw" },
      { value: "stud", label: "Seven Card Stud" },
    ]);
    expect(variantChoices({ variants: [], defaultVariant: null })).toEqual([]);
    const form = { ...newTableForm(), name: "T-1", path: "/dev/ttyUSB0" };
    expect(tableDraft(form)).not.toHaveProperty("draft.variant");
    expect(tableDraft({ ...form, variant: "stud" })).toHaveProperty("draft.variant", "stud");
  });
});

describe("serialLine", () => {
  it("reads a framing as device manuals write it", () => {
    expect(serialLine("8N1", "none")).toEqual({ dataBits: 8, parity: "none", stopBits: 1, flowControl: "none" });
    expect(serialLine("7o2", "software")).toEqual({ dataBits: 7, parity: "odd", stopBits: 2, flowControl: "software" });
    expect(serialLine("9N1", "none")).toBeNull();
    expect(serialLine("8N", "none")).toBeNull();
  });
});

describe("the connection test", () => {
  it("needs a port or a host:port before it opens anything", () => {
    const form = { ...newTableForm(), linkKind: "tcp" as const, address: "no port" };
    expect(linkDraft(form)).toEqual({ missing: "Give its shoe's device server as host:port, e.g. 10.0.4.21:4001." });
    expect(linkDraft({ ...form, address: " 10.0.4.21:4001 " })).toEqual({ link: { kind: "tcp", address: "10.0.4.21:4001" } });
    expect(linkDraft({ ...newTableForm(), path: "/dev/ttyUSB0", baud: 4800 })).toEqual({ link: { kind: "serial", path: "/dev/ttyUSB0", baud: 4800 } });
  });

  it("counts what arrived, or says the link did not open", () => {
    const seen = { link: "tcp 127.0.0.1:4001", connected: true, problems: [], bytes: 12, accepted: 2, rejected: 1, frames: [], listenedMs: 5004, verdict: "" };
    expect(linkTestCounts(seen)).toBe("tcp 127.0.0.1:4001: 12 bytes in 5.0 s, 2 frames accepted, 1 rejected");
    expect(linkTestCounts({ ...seen, bytes: 1, accepted: 1, rejected: 0 })).toBe("tcp 127.0.0.1:4001: 1 byte in 5.0 s, 1 frame accepted, 0 rejected");
    expect(linkTestCounts({ ...seen, connected: false })).toBe("tcp 127.0.0.1:4001: not opened");
  });
});

describe("renaming and retiring a table", () => {
  it("refuses an empty, unchanged or taken name before asking", () => {
    const names = ["BAC-1", "BJ-1"];
    expect(renameProblem("BAC-1", "  ", names)).toBe("Give the table's new name.");
    expect(renameProblem("BAC-1", "BAC-1 ", names)).toBe("The table is already named BAC-1.");
    expect(renameProblem("BAC-1", "BJ-1", names)).toBe("A table named BJ-1 is already in the pit.");
    expect(renameProblem("BAC-1", " BAC-01 ", names)).toBeNull();
  });

  it("says what retiring does before it is confirmed", () => {
    const warning = retireWarning("BJ-2", "/etc/pitwatch/pit.toml");
    expect(warning).toMatch(/^Retire BJ-2\? It stops recording now/);
    expect(warning).toContain("/etc/pitwatch/pit.toml.bak");
    expect(warning).toContain("stays in the record under its name");
  });
});

describe("the ports found", () => {
  const usb = { path: "/dev/ttyUSB1", kind: "usb", usb: "0403:6001 FTDI FT232R USB UART, serial A10K", stablePath: "/dev/serial/by-id/usb-FTDI_FT232R_USB_UART_A10K-if00-port0" };
  const pty = { path: "/dev/pts/3", kind: "unknown", usb: "", stablePath: "" };
  it("offers a USB adapter's stable name first, then every port as named now", () => {
    expect(portChoices([pty, usb]).map((c) => c.value)).toEqual([usb.stablePath, "/dev/pts/3", "/dev/ttyUSB1"]);
    expect(portChoices([usb])[0]?.label).toBe("0403:6001 FTDI FT232R USB UART, serial A10K: stays when plugged in again (now /dev/ttyUSB1)");
  });
  it("says them in a line", () => {
    expect(portsLine([])).toBe("No serial port found on this workstation.");
    expect(portsLine([usb, pty])).toBe(
      "Ports found: /dev/ttyUSB1 (0403:6001 FTDI FT232R USB UART, serial A10K), also /dev/serial/by-id/usb-FTDI_FT232R_USB_UART_A10K-if00-port0, a name that stays when it is plugged in again; /dev/pts/3",
    );
  });
});
