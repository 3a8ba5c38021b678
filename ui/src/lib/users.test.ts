import { describe, expect, it } from "vitest";
import { addedLabel, firstAdminProblem, mayLabel, mayManageUsers, newUserProblem, passwordProblem, whenLabel } from "./users";

describe("newUserProblem", () => {
  it("accepts a complete new user", () => {
    expect(newUserProblem("bob", "supervisor", "long-enough-pass", "long-enough-pass")).toBeNull();
  });

  it("names what is missing or wrong", () => {
    expect(newUserProblem("  ", "supervisor", "long-enough-pass", "long-enough-pass")).toMatch(/name/);
    expect(newUserProblem("bob", "croupier", "long-enough-pass", "long-enough-pass")).toMatch(/role/);
    expect(newUserProblem("bob", "admin", "short", "short")).toMatch(/12 characters/);
    expect(newUserProblem("bob", "admin", "long-enough-pass", "long-enough-pasS")).toMatch(/differ/);
  });
});

describe("mayManageUsers", () => {
  it("is for admins only", () => {
    expect(mayManageUsers({ role: "admin" })).toBe(true);
    expect(mayManageUsers({ role: "supervisor" })).toBe(false);
    expect(mayManageUsers(null)).toBe(false);
  });
});

describe("firstAdminProblem", () => {
  it("asks for a name and a repeated password of 12 characters", () => {
    expect(firstAdminProblem("root", "long-enough-pass", "long-enough-pass")).toBeNull();
    expect(firstAdminProblem(" ", "long-enough-pass", "long-enough-pass")).toMatch(/name/);
    expect(firstAdminProblem("root", "short", "short")).toMatch(/12 characters/);
    expect(firstAdminProblem("root", "long-enough-pass", "long-enough-pass!")).toMatch(/differ/);
  });
});

describe("addedLabel", () => {
  it("shows the record's UTC time to the minute", () => {
    expect(addedLabel("2026-11-30T10:41:07.123Z")).toBe("2026-11-30 10:41 UTC");
    expect(addedLabel("2026-11-30T10:41:07Z")).toBe("2026-11-30 10:41 UTC");
    expect(addedLabel("2026-11-30T10:41:07+00:00")).toBe("2026-11-30 10:41 UTC");
    expect(addedLabel("2026-11-30T10:41:07Z", "Pacific/Auckland")).toBe("2026-11-30 23:41 NZDT");
  });

  it("shows anything else as it is", () => {
    expect(addedLabel("yesterday")).toBe("yesterday");
    expect(addedLabel("2026-11-30T10:41:07+13:00")).toBe("2026-11-30T10:41:07+13:00");
  });
});

describe("passwordProblem", () => {
  it("asks for 12 characters typed the same twice", () => {
    expect(passwordProblem("plum kettle orbit 47", "plum kettle orbit 47")).toBeNull();
    expect(passwordProblem("short", "short")).toMatch(/12 characters/);
    expect(passwordProblem("plum kettle orbit 47", "plum kettle orbit 48")).toMatch(/differ/);
    // Characters, not UTF-16 units: 12 macronised letters are enough.
    expect(passwordProblem("āēīōūāēīōūāē", "āēīōūāēīōūāē")).toBeNull();
  });
});

describe("the access listing", () => {
  it("says what a role may do in words, and names a command it has no words for", () => {
    expect(mayLabel(["acknowledge", "audit"])).toBe("acknowledge incidents, read the audit log");
    expect(mayLabel(["resolve", "reopen"])).toBe("resolve incidents, reopen incidents");
    expect(mayLabel(["export_shift", "something_new"])).toBe("export shift reports, something_new");
    expect(mayLabel([])).toBe("");
  });

  it("shows a missing time as the word given", () => {
    expect(whenLabel(null, "never")).toBe("never");
    expect(whenLabel("2026-11-30T10:41:07Z", "never")).toBe("2026-11-30 10:41 UTC");
  });
});
