import { describe, expect, it } from "vitest";
import type { RecordingStatus } from "./bindings";
import { bytes, duration, recordingBanner, RECOVERED_SHOWN_MS } from "./recording";

const degraded: RecordingStatus = {
  degraded: true,
  reason: "the disk is full: database error: database or disk is full",
  sinceMs: 1_000,
  backlogBytes: 2_345_678,
  backlogInputs: 812,
  droppedBytes: 0,
};

describe("recordingBanner", () => {
  it("says nothing before the monitor has reported trouble", () => {
    expect(recordingBanner(null, 0, 5_000)).toBeNull();
  });

  it("says recording is degraded, why, since when and how much waits", () => {
    const banner = recordingBanner(degraded, 2_000, 66_000)!;
    expect(banner.tone).toBe("degraded");
    expect(banner.title).toBe("RECORDING DEGRADED for 1 min 5 s");
    expect(banner.detail).toContain("the disk is full");
    expect(banner.detail).toContain("2.3 MB (812 reads) waiting");
    expect(banner.detail).not.toContain("could not be kept");
  });

  it("counts one read as one read", () => {
    const banner = recordingBanner({ ...degraded, backlogBytes: 72, backlogInputs: 1 }, 2_000, 3_000)!;
    expect(banner.detail).toContain("72 B (1 read) waiting");
  });

  it("says what was dropped", () => {
    const banner = recordingBanner({ ...degraded, droppedBytes: 4_200 }, 2_000, 3_000)!;
    expect(banner.detail).toContain("4.2 KB could not be kept: each loss is an incident.");
  });

  it("says it recovered, then clears itself", () => {
    const recovered = { ...degraded, degraded: false, backlogBytes: 0, backlogInputs: 0 };
    const banner = recordingBanner(recovered, 10_000, 12_000)!;
    expect(banner.tone).toBe("recovered");
    expect(banner.detail).toContain("it was: the disk is full");
    expect(recordingBanner(recovered, 10_000, 10_000 + RECOVERED_SHOWN_MS + 1)).toBeNull();
  });
});

describe("words", () => {
  it("puts sizes and durations the way people read them", () => {
    expect([bytes(999), bytes(1_500), bytes(25_000), bytes(7_300_000), bytes(3e9)]).toEqual([
      "999 B",
      "1.5 KB",
      "25 KB",
      "7.3 MB",
      "3.0 GB",
    ]);
    expect([duration(0), duration(59_999), duration(61_000), duration(7_500_000)]).toEqual([
      "0 s",
      "59 s",
      "1 min 1 s",
      "2 h 5 min",
    ]);
  });
});
