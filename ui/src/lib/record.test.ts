import { describe, expect, it } from "vitest";
import type { RecordStatus } from "./bindings";
import { buildSummary, checkpointSummary, fileName, recordAlerts, replicationSummary, verifyCommand } from "./record";

const CHECKPOINT =
  "pitwatch-checkpoint:1:00112233445566778899aabbccddeeff:42:2026-11-30T10:00:00.250Z:" +
  "ab".repeat(32) +
  ":3f2a-91bc-0000-1111-2222-3333-4444-5555";

function status(over: Partial<RecordStatus> = {}): RecordStatus {
  return {
    path: "/var/lib/pitwatch/pit.db",
    recordId: "00112233445566778899aabbccddeeff",
    keyFingerprint: "3f2a-91bc-0000-1111-2222-3333-4444-5555",
    latestCheckpoint: CHECKPOINT,
    journals: ["/var/lib/pitwatch/pit.db.checkpoints"],
    alerts: [],
    replication: null,
    ...over,
  };
}

describe("recordAlerts", () => {
  it("puts the critical first and keeps the desk's order within a severity", () => {
    const alerts = recordAlerts(
      status({
        alerts: [
          { severity: "high", message: "journal" },
          { severity: "critical", message: "segment 1" },
          { severity: "critical", message: "segment 2" },
        ],
      }),
    );
    expect(alerts.map((a) => a.message)).toEqual(["segment 1", "segment 2", "journal"]);
  });

  it("is empty without a record", () => {
    expect(recordAlerts(null)).toEqual([]);
    expect(recordAlerts(status())).toEqual([]);
  });
});

describe("verifyCommand", () => {
  it("checks against the latest checkpoint, by the file's name", () => {
    expect(verifyCommand(status())).toBe(`pitwatch verify --db pit.db --checkpoint '${CHECKPOINT}'`);
  });

  it("is the plain check before the first checkpoint", () => {
    expect(verifyCommand(status({ latestCheckpoint: null }))).toBe("pitwatch verify --db pit.db");
  });
});

describe("checkpointSummary", () => {
  it("reads the number and the time, whose colons stay", () => {
    expect(checkpointSummary(CHECKPOINT)).toEqual({ id: 42, at: "2026-11-30T10:00:00.250Z" });
  });

  it("gives nothing for text that is not a checkpoint", () => {
    expect(checkpointSummary(null)).toBeNull();
    expect(checkpointSummary("nonsense")).toBeNull();
  });
});

describe("fileName", () => {
  it("takes the last part of a path on either system", () => {
    expect(fileName("/a/b/pit.db")).toBe("pit.db");
    expect(fileName("C:\\pit\\pit.db")).toBe("pit.db");
    expect(fileName("pit.db")).toBe("pit.db");
  });
});

describe("replicationSummary", () => {
  const state = {
    workstation: "sky/pit-3",
    connected: true,
    error: null,
    rowsBehind: 0,
    secondsBehind: 0,
    alertAfterS: 60,
    refused: [] as string[],
    behind: [] as string[],
  };
  it("says up to date, how far behind, or that the link is down", () => {
    expect(replicationSummary(state)).toEqual({ text: "up to date", alert: false });
    expect(replicationSummary({ ...state, rowsBehind: 40, secondsBehind: 2 })).toEqual({ text: "40 rows, 2 s behind", alert: false });
    const down = replicationSummary({ ...state, connected: false, error: "connection refused", secondsBehind: 90 });
    expect(down.alert).toBe(true);
    expect(down.text).toMatch(/^link down \(connection refused\)/);
  });
  it("is an alert when the server refused a row, however small the lag", () => {
    expect(replicationSummary({ ...state, refused: ["events row 7"] }).alert).toBe(true);
  });
});

describe("the version and build", () => {
  it("names the version and the commit the reports print", () => {
    expect(buildSummary({ version: "0.1.0", commit: "6929b7d1c2e3", label: "Pitwatch 0.1.0 (build 6929b7d1c2e3)" })).toEqual({
      version: "0.1.0",
      commit: "6929b7d1c2e3",
      printed: "Pitwatch 0.1.0 (build 6929b7d1c2e3)",
    });
  });

  it("says so when the build did not know its commit", () => {
    const summary = buildSummary({ version: "0.1.0", commit: null, label: "Pitwatch 0.1.0 (build commit not recorded)" });
    expect(summary.commit).toBe("not recorded (built outside a git checkout)");
    expect(summary.printed).toBe("Pitwatch 0.1.0 (build commit not recorded)");
  });
});
