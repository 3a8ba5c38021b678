import { describe, expect, it } from "vitest";
import type { Session } from "./bindings";
import { idleReason, renewalProblem, SessionState, SWITCH_REASON } from "./session.svelte";

function desk() {
  const calls: string[] = [];
  return {
    calls,
    commands: {
      login: async (user: string, password: string): Promise<Session> => {
        calls.push(`login ${user}`);
        if (password === "old but right") throw { code: "password_expired", message: "The password is too old." };
        if (password !== "right") throw { code: "unauthorised", message: "Wrong user or password." };
        return { user, role: "supervisor" };
      },
      logout: async () => {
        calls.push("logout");
      },
      setAlarmMuted: async (muted: boolean) => {
        calls.push(muted ? "mute" : "unmute");
        return muted;
      },
    },
  };
}

describe("the session", () => {
  it("keeps an expired password's user and password for choosing a new one, and only then", async () => {
    const d = desk();
    const s = new SessionState(d.commands);
    s.loginUser = "ana";
    s.loginPassword = "old but right";
    await s.login();
    expect(s.session).toBeNull();
    expect(s.renewing).toEqual({ user: "ana", password: "old but right" });
    s.loginPassword = "wrong";
    await s.login();
    expect(s.renewing).toBeNull();
    s.renewed({ user: "ana", role: "supervisor" });
    expect(s.session).toEqual({ user: "ana", role: "supervisor" });
    expect(s.loginPassword).toBe("");
  });

  it("says what is wrong with a new password before the desk is asked", () => {
    expect(renewalProblem("old one here!", "short", "short")).toMatch(/at least 12 characters/);
    expect(renewalProblem("old one here!", "a long new secret", "a long new secreT")).toBe("The two new passwords differ.");
    expect(renewalProblem("same old secret", "same old secret", "same old secret")).toMatch(/differ from the old/);
    expect(renewalProblem("old one here!", "a long new secret", "a long new secret")).toBeNull();
  });

  it("logs in with the form and forgets the password; a refusal is shown", async () => {
    const d = desk();
    const s = new SessionState(d.commands);
    s.loginUser = "ana";
    s.loginPassword = "wrong";
    await s.login();
    expect(s.session).toBeNull();
    expect(s.loginError?.code).toBe("unauthorised");
    s.loginPassword = "right";
    await s.login();
    expect(s.session).toEqual({ user: "ana", role: "supervisor" });
    expect(s.loginPassword).toBe("");
    expect(s.loginError).toBeNull();
    await s.logout();
    expect(s.session).toBeNull();
    expect(d.calls).toEqual(["login ana", "login ana", "logout"]);
  });

  it("locks after the idle time without input, offering the same user", async () => {
    let now = 1_000_000;
    const d = desk();
    const s = new SessionState(d.commands, () => now);
    s.session = { user: "ana", role: "supervisor" };
    now += 299_000;
    s.lockIfIdle(now, 300);
    expect(s.locked).toBe(false);
    s.noteInput();
    now += 299_000;
    s.lockIfIdle(now, 300);
    expect(s.locked).toBe(false);
    now += 1_000;
    s.lockIfIdle(now, 300);
    expect(s.locked).toBe(true);
    expect(s.lockedUser).toBe("ana");
    expect(s.lockReason).toBe("Locked after 5 minutes without use.");
    expect(s.session).toBeNull();
    await Promise.resolve();
    expect(d.calls).toEqual(["logout"]);
    // Input while locked does not count; unlocking starts the idle time again.
    s.unlocked({ user: "ben", role: "supervisor" });
    expect(s.locked).toBe(false);
    s.lockIfIdle(now + 299_000, 300);
    expect(s.locked).toBe(false);
  });

  it("never locks with no idle time, nor with nobody logged in", () => {
    const s = new SessionState(desk().commands, () => 0);
    s.lockIfIdle(10_000_000, 300);
    expect(s.locked).toBe(false);
    s.session = { user: "ana", role: "supervisor" };
    s.lockIfIdle(10_000_000, 0);
    expect(s.locked).toBe(false);
  });

  it("hands over to the next supervisor with nobody's name offered", async () => {
    const s = new SessionState(desk().commands);
    s.session = { user: "ana", role: "supervisor" };
    await s.lock(SWITCH_REASON, false);
    expect(s.lockedUser).toBeNull();
    expect(s.lockReason).toBe("Switching supervisor: the next supervisor logs in.");
  });

  it("says the idle time in minutes or seconds", () => {
    expect(idleReason(900)).toBe("Locked after 15 minutes without use.");
    expect(idleReason(45)).toBe("Locked after 45 seconds without use.");
  });

  it("logs the first administrator in", () => {
    const s = new SessionState(desk().commands);
    s.firstRun = true;
    s.firstAdminCreated({ user: "root", role: "admin" });
    expect(s.firstRun).toBe(false);
    expect(s.session?.role).toBe("admin");
  });

  it("mutes only with someone logged in and not locked; the lock ends the mute", async () => {
    const d = desk();
    const s = new SessionState(d.commands);
    await s.setMuted(true);
    expect(s.muted).toBe(false);
    expect(d.calls).toEqual([]);
    s.loginUser = "ana";
    s.loginPassword = "right";
    await s.login();
    await s.setMuted(true);
    expect(s.muted).toBe(true);
    await s.lock(SWITCH_REASON, false);
    expect(s.muted).toBe(false);
    await s.setMuted(true);
    expect(s.muted).toBe(false);
    expect(d.calls).toEqual(["login ana", "mute", "logout"]);
  });
});
