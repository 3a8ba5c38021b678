// Users of a real pit: the roles an admin can give, and the checks made before asking the desk
// (which checks again, with the store's rules).
import { formatAt, getSiteZone, type Zone } from "./time";

/** The roles, as the store names them, with what each may do. */
export const ROLES: { role: string; label: string }[] = [
  { role: "supervisor", label: "Supervisor — watches tables and works incidents" },
  { role: "surveillance", label: "Surveillance — works incidents and writes reports" },
  { role: "admin", label: "Admin — manages users" },
  { role: "inspector", label: "Inspector — reads and exports everything, changes nothing" },
];

/** What is wrong with a new user's details, or null when they can be sent. */
export function newUserProblem(name: string, role: string, password: string, repeat: string): string | null {
  if (name.trim() === "") return "Give the user a name.";
  if (!ROLES.some((r) => r.role === role)) return "Choose a role.";
  return passwordProblem(password, repeat);
}

/** What is wrong with a password typed twice, or null when it can be sent. */
export function passwordProblem(password: string, repeat: string): string | null {
  // The desk also refuses common and guessable passwords (it says why).
  if ([...password].length < 12) return "A password needs at least 12 characters.";
  if (password !== repeat) return "The two passwords differ.";
  return null;
}

/** Whether a session may manage users. */
export function mayManageUsers(session: { role: string } | null): boolean {
  return session?.role === "admin";
}

/** What is wrong with the first administrator's details, or null when they can be sent. */
export function firstAdminProblem(name: string, password: string, repeat: string): string | null {
  return newUserProblem(name, "admin", password, repeat);
}

/**
 * When a user was added, as the record gives it (RFC 3339, UTC), shown to the minute on the
 * site's wall clock with the zone ("2026-11-30 10:41 UTC", "2026-11-30 23:41 NZDT"; `lib/time.ts`);
 * anything else is shown as it is.
 */
export function addedLabel(createdAt: string, zone: Zone = getSiteZone()): string {
  const utc = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(Z|[+-]00:00)$/.test(createdAt);
  return utc ? formatAt(createdAt, { seconds: false }, zone) : createdAt;
}

/** The commands a role may run (as the desk names and audits them), in words. */
const COMMAND_WORDS: Record<string, string> = {
  acknowledge: "acknowledge incidents",
  add_note: "add notes",
  resolve: "resolve incidents",
  reopen: "reopen incidents",
  record_console: "console entries",
  export_incident: "export incident reports",
  export_shoe: "export shoe reports",
  export_shift: "export shift reports",
  sign_off_shift: "sign off shifts",
  add_user: "add users",
  change_role: "change roles",
  reset_password: "reset passwords",
  set_active: "deactivate users",
  users: "list users",
  audit: "read the audit log",
  configure_pit: "set up tables and devices",
  mute_alarm: "mute the alarm",
  view_exposure: "read the house's exposure",
  access_listing: "read the access listing",
  review_access: "sign the access review",
  review_log: "sign the audit log's review",
  archive_record: "archive old device records",
  view_dealers: "read the dealers' figures",
};

/** What a user may do, in words, for the access listing (a command with no words is shown by its
 * name, so nothing the desk allows is left out). */
export function mayLabel(may: string[]): string {
  return may.map((c) => COMMAND_WORDS[c] ?? c).join(", ");
}

/** A time of the record for the access listing: as {@link addedLabel}, or a word when there is none. */
export function whenLabel(at: string | null, none: string, zone: Zone = getSiteZone()): string {
  return at === null ? none : addedLabel(at, zone);
}
