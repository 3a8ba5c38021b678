// What each role may do, so the window shows only the buttons a user may press. The desk checks
// again on every command (crates/pitwatch-app/src/access.rs) and refuses anything else with the
// code "forbidden", audited; this table only keeps the window honest about it.
import { AUDIT_ACTION_WORDS } from "./bindings";

/** Something a user may be allowed to do. */
export type Action = "acknowledge" | "resolve" | "reopen" | "note" | "console" | "export" | "sign_off" | "users" | "audit" | "configure_pit" | "mute";

const ALLOWED: Record<string, readonly Action[]> = {
  supervisor: ["acknowledge", "resolve", "reopen", "note", "console", "export", "sign_off", "mute"],
  surveillance: ["note", "export", "audit", "mute"],
  admin: ["acknowledge", "resolve", "reopen", "note", "console", "export", "sign_off", "users", "audit", "configure_pit", "mute"],
};

/** Whether a user of `role` (null: nobody logged in) may do `action`. */
export function may(role: string | null | undefined, action: Action): boolean {
  return role != null && (ALLOWED[role] ?? []).includes(action);
}

/**
 * Whether the window has been left alone long enough to lock: `limitSeconds` without input since
 * `lastInputMs` (0 seconds: never locks).
 */
export function idleExpired(lastInputMs: number, nowMs: number, limitSeconds: number): boolean {
  return limitSeconds > 0 && nowMs - lastInputMs >= limitSeconds * 1000;
}

/** The workstation named in an audit row's detail (JSON for logins and refusals), or "". */
export function workstationOf(detail: string): string {
  try {
    const parsed: unknown = JSON.parse(detail);
    if (typeof parsed === "object" && parsed !== null && "workstation" in parsed) {
      const ws = (parsed as { workstation: unknown }).workstation;
      return typeof ws === "string" ? ws : "";
    }
  } catch {
    // Not JSON: an older row or another action's free text.
  }
  return "";
}

/** An audit action in words ("User added" for `user.add`; pitwatch-report's words, shared with the reports). */
export function actionLabel(action: string): string {
  return Object.prototype.hasOwnProperty.call(AUDIT_ACTION_WORDS, action) ? (AUDIT_ACTION_WORDS[action] ?? action) : action;
}
