// What each role may do, so the window shows only the buttons a user may press. The desk checks
// again on every command (crates/pitwatch-app/src/access.rs) and refuses anything else with the
// code "forbidden", audited; this table only keeps the window honest about it.
import { AUDIT_ACTION_WORDS } from "./bindings";

/** Something a user may be allowed to do. */
export type Action =
  | "acknowledge"
  | "resolve"
  | "reopen"
  | "note"
  | "console"
  | "export"
  | "sign_off"
  | "users"
  | "audit"
  | "configure_pit"
  | "mute"
  | "exposure"
  | "access"
  | "review_access"
  | "review_log"
  | "dealers";

const ALLOWED: Record<string, readonly Action[]> = {
  // Dealers' figures and the pace alerts are the pit's managers' (issue 30): never surveillance's.
  supervisor: ["acknowledge", "resolve", "reopen", "note", "console", "export", "sign_off", "mute", "dealers"],
  // The house's exposure is surveillance's (and administrators'): never the pit's (issue 29).
  // The audit log's review is independent of the administrators: surveillance and inspectors.
  surveillance: ["note", "export", "audit", "mute", "exposure", "review_log"],
  admin: ["acknowledge", "resolve", "reopen", "note", "console", "export", "sign_off", "users", "audit", "configure_pit", "mute", "exposure", "access", "review_access", "dealers"],
  // Read only: every report, the audit log, the exposure, the access listing; signs the reviews.
  inspector: ["export", "audit", "exposure", "access", "review_access", "review_log"],
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

/** One field of an audit row's detail beside its workstation: its name and its text. */
export type DetailField = { key: string; value: string; long: boolean };

/**
 * What an audit row's detail says beside its workstation, field by field in its order (a reload's
 * tables added and removed, a rename, a section before and after, a file written); a long or
 * multi-line value (a pit definition's section) is marked to be shown folded.
 */
export function detailFields(detail: string): DetailField[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(detail);
  } catch {
    return detail.trim() === "" ? [] : [{ key: "detail", value: detail, long: detail.length > 80 || detail.includes("\n") }];
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return [];
  return Object.entries(parsed as Record<string, unknown>)
    .filter(([key]) => key !== "workstation")
    .map(([key, raw]) => {
      const value = typeof raw === "string" ? raw : JSON.stringify(raw);
      return { key, value, long: value.length > 80 || value.includes("\n") };
    })
    // A field that says nothing ("-": no table added) is left out.
    .filter((field) => field.value.trim() !== "" && field.value.trim() !== "-");
}

/**
 * Whether a refusal says this window's session was ended by a login as the same user elsewhere
 * (one session per user, crates/pitwatch-app/src/sessions.rs): the window then locks, with it as
 * the reason.
 */
export function sessionEnded(error: { code: string; message: string }): boolean {
  return error.code === "unauthorised" && error.message.includes("was ended by a login");
}
