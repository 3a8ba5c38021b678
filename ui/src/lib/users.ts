// Users of a real pit: the roles an admin can give, and the checks made before asking the desk
// (which checks again, with the store's rules).

/** The roles, as the store names them, with what each may do. */
export const ROLES: { role: string; label: string }[] = [
  { role: "supervisor", label: "Supervisor — watches tables and works incidents" },
  { role: "surveillance", label: "Surveillance — works incidents and writes reports" },
  { role: "admin", label: "Admin — manages users" },
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
 * When a user was added, as the record gives it (RFC 3339, UTC), shown as "YYYY-MM-DD HH:MM UTC";
 * anything unreadable is shown as it is.
 */
export function addedLabel(createdAt: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(?::\d{2}(?:\.\d+)?)?(Z|[+-]00:00)$/.exec(createdAt);
  return m ? `${m[1]} ${m[2]} UTC` : createdAt;
}
