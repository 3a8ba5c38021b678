import { describe, expect, it } from "vitest";
import { actionLabel, detailFields, idleExpired, may, sessionEnded, workstationOf } from "./access";

describe("may", () => {
  it("gives each role what the application layer gives it", () => {
    expect(may("supervisor", "resolve")).toBe(true);
    expect(may("supervisor", "console")).toBe(true);
    expect(may("supervisor", "users")).toBe(false);
    expect(may("surveillance", "resolve")).toBe(false);
    expect(may("supervisor", "reopen")).toBe(true);
    expect(may("surveillance", "reopen")).toBe(false);
    expect(may("surveillance", "acknowledge")).toBe(false);
    expect(may("surveillance", "console")).toBe(false);
    expect(may("surveillance", "note")).toBe(true);
    expect(may("surveillance", "export")).toBe(true);
    // The house's exposure: surveillance and administrators, never the pit.
    expect(may("supervisor", "exposure")).toBe(false);
    expect(may("surveillance", "exposure")).toBe(true);
    expect(may("admin", "exposure")).toBe(true);
    expect(may(null, "exposure")).toBe(false);
    expect(may("surveillance", "audit")).toBe(true);
    for (const role of ["supervisor", "surveillance", "admin"]) expect(may(role, "mute")).toBe(true);
    expect(may(null, "mute")).toBe(false);
    for (const action of ["acknowledge", "resolve", "reopen", "console", "users", "audit"] as const) {
      expect(may("admin", action)).toBe(true);
    }
  });

  it("gives nobody and unknown roles nothing", () => {
    expect(may(null, "note")).toBe(false);
    expect(may(undefined, "export")).toBe(false);
    expect(may("croupier", "note")).toBe(false);
  });
});

describe("idleExpired", () => {
  it("locks after the limit and never with a limit of 0", () => {
    expect(idleExpired(0, 599_999, 600)).toBe(false);
    expect(idleExpired(0, 600_000, 600)).toBe(true);
    expect(idleExpired(0, 10_000_000, 0)).toBe(false);
  });
});

describe("workstationOf", () => {
  it("reads the workstation of a login row and nothing from free text", () => {
    expect(workstationOf('{"workstation":"pit-ws-3","role":"admin"}')).toBe("pit-ws-3");
    expect(workstationOf("surveillance")).toBe("");
    expect(workstationOf("[1,2]")).toBe("");
  });
});

describe("actionLabel", () => {
  it("says failed logins and refusals in words", () => {
    expect(actionLabel("login.failed")).toBe("Failed login");
    expect(actionLabel("access.forbidden")).toMatch(/not allowed/);
    expect(actionLabel("incident.resolve")).toBe("Incident resolved");
    expect(actionLabel("user.add")).toBe("User added");
    expect(actionLabel("something.new")).toBe("something.new");
    expect(actionLabel("toString")).toBe("toString");
  });
});

describe("detailFields", () => {
  it("lists what a row says beside its workstation, long sections folded", () => {
    const detail = JSON.stringify({ workstation: "pit-3", renamed: "BJ-1 to BJ-01", before: '[[table]]\nname = "BJ-1"\n', tables: 2, added: "-", removed: "" });
    expect(detailFields(detail)).toEqual([
      { key: "renamed", value: "BJ-1 to BJ-01", long: false },
      { key: "before", value: '[[table]]\nname = "BJ-1"\n', long: true },
      { key: "tables", value: "2", long: false },
    ]);
  });

  it("keeps an older row's free text and ignores what is not an object", () => {
    expect(detailFields("reset by root")).toEqual([{ key: "detail", value: "reset by root", long: false }]);
    expect(detailFields("")).toEqual([]);
    expect(detailFields("[1,2]")).toEqual([]);
    expect(detailFields('{"workstation":"pit-3"}')).toEqual([]);
  });
});

describe("sessionEnded", () => {
  it("knows a session ended by a login elsewhere from any other refusal", () => {
    const ended = 'the session of "root" here was ended by a login as "root" at workstation cli-ws-9 at 2026-12-07T22:00:00Z';
    expect(sessionEnded({ code: "unauthorised", message: ended })).toBe(true);
    expect(sessionEnded({ code: "unauthorised", message: "log in first" })).toBe(false);
    expect(sessionEnded({ code: "forbidden", message: ended })).toBe(false);
  });
});
