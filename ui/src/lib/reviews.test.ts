import { describe, expect, it } from "vitest";
import type { ReviewStatus } from "./bindings";
import { commentProblem, proposedLogPeriod, reviewAlertsFor, statusLabel } from "./reviews";
import { may } from "./access";
import { ROLES, mayLabel } from "./users";

function status(overrides: Partial<ReviewStatus> = {}): ReviewStatus {
  return {
    lastAccess: null,
    accessEveryDays: 90,
    accessDue: "2026-12-01T00:00:00Z",
    lastLog: null,
    logEveryDays: 7,
    logDue: "2026-12-01T00:00:00Z",
    logFrom: null,
    alerts: [
      { kind: "access", message: "no access review has been signed yet" },
      { kind: "log", message: "no audit log review has been signed yet" },
    ],
    ...overrides,
  };
}

describe("reviewAlertsFor", () => {
  it("alerts each role to the reviews it signs", () => {
    expect(reviewAlertsFor("admin", status())).toEqual(["no access review has been signed yet"]);
    expect(reviewAlertsFor("surveillance", status())).toEqual(["no audit log review has been signed yet"]);
    expect(reviewAlertsFor("inspector", status())).toHaveLength(2);
    expect(reviewAlertsFor("supervisor", status())).toEqual([]);
    expect(reviewAlertsFor(null, status())).toEqual([]);
    expect(reviewAlertsFor("admin", null)).toEqual([]);
    expect(reviewAlertsFor("admin", status({ alerts: [] }))).toEqual([]);
  });
});

describe("the inspector", () => {
  it("reads and exports but changes nothing, and signs both reviews", () => {
    for (const action of ["export", "audit", "exposure", "access", "review_access", "review_log"] as const) {
      expect(may("inspector", action)).toBe(true);
    }
    for (const action of ["acknowledge", "resolve", "reopen", "note", "console", "sign_off", "users", "configure_pit", "mute"] as const) {
      expect(may("inspector", action)).toBe(false);
    }
    // The log review is independent of the administrators.
    expect(may("admin", "review_log")).toBe(false);
    expect(may("surveillance", "review_log")).toBe(true);
    expect(may("surveillance", "access")).toBe(false);
  });

  it("can be chosen when adding a user, and its commands have words", () => {
    expect(ROLES.map((r) => r.role)).toContain("inspector");
    expect(mayLabel(["access_listing", "review_access", "review_log"])).toBe(
      "read the access listing, sign the access review, sign the audit log's review",
    );
  });
});

describe("statusLabel", () => {
  it("says each status in words, and an unknown one as it is", () => {
    expect(statusLabel("active")).toBe("Active");
    expect(statusLabel("disabled")).toBe("Deactivated");
    expect(statusLabel("locked")).toMatch(/Locked/);
    expect(statusLabel("password_expired")).toBe("Password expired");
    expect(statusLabel("odd")).toBe("odd");
  });
});

describe("proposedLogPeriod", () => {
  it("starts where the last review ended, else a period back, and ends now", () => {
    const now = Date.parse("2026-12-07T22:00:00Z");
    expect(proposedLogPeriod(status({ logFrom: "2026-12-01T00:00:00Z" }), now)).toEqual({
      from: "2026-12-01T00:00:00Z",
      to: "2026-12-07T22:00:00.000Z",
    });
    expect(proposedLogPeriod(status(), now).from).toBe("2026-11-30T22:00:00.000Z");
    expect(proposedLogPeriod(null, now).from).toBe("2026-11-30T22:00:00.000Z");
  });
});

describe("commentProblem", () => {
  it("asks for a comment of at most 4000 characters", () => {
    expect(commentProblem("  ")).toMatch(/what was found/);
    expect(commentProblem("x".repeat(4001))).toMatch(/4000/);
    expect(commentProblem("all accounts as expected")).toBeNull();
  });
});
