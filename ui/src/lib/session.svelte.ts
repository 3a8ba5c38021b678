// Who is at the window: the session, the login form, the first administrator of a new pit, the
// lock, and the alarm's mute (theirs: audited by the desk, ended with their session). After the
// window is left alone for the pit's idle time (or on "Switch supervisor") the user is logged out
// and the lock screen asks for a password; alerts stay on screen and sound.
import type { ApiError, Session } from "./bindings";
import { idleExpired } from "./access";
import { toApiError } from "./ipc";

/** The desk's session commands (ipc.login, ipc.logout and ipc.setAlarmMuted in the window). */
export type SessionCommands = {
  login: (user: string, password: string) => Promise<Session>;
  logout: () => Promise<void>;
  setAlarmMuted: (muted: boolean) => Promise<boolean>;
};

/** Why the window locked itself after `idleSeconds` without use, in words. */
export function idleReason(idleSeconds: number): string {
  return `Locked after ${idleSeconds >= 60 ? `${Math.round(idleSeconds / 60)} minutes` : `${idleSeconds} seconds`} without use.`;
}

/** The shortest password the policy accepts (the store's MIN_PASSWORD_CHARS). */
export const MIN_PASSWORD_CHARS = 12;

/** What is wrong with a new password typed twice to replace `old`, before asking the desk (which
 * also judges how guessable it is), or null. */
export function renewalProblem(old: string, first: string, again: string): string | null {
  if ([...first].length < MIN_PASSWORD_CHARS) return `The new password needs at least ${MIN_PASSWORD_CHARS} characters.`;
  if (first !== again) return "The two new passwords differ.";
  if (first === old) return "The new password must differ from the old one.";
  return null;
}

/** The reason shown when a supervisor hands the window over. */
export const SWITCH_REASON = "Switching supervisor: the next supervisor logs in.";

export class SessionState {
  session: Session | null = $state(null);
  /** Whether the logged-in user muted the alarm's sound (never while nobody is: a session's end
   * ends its mute, at the desk too). */
  muted = $state(false);
  /** A real pit with no users: the first administrator must be created before anyone can log in. */
  firstRun = $state(false);
  locked = $state(false);
  /** Who was logged in when the window locked after idling (the lock screen offers them first). */
  lockedUser: string | null = $state(null);
  lockReason = $state("");
  loginUser = $state("");
  loginPassword = $state("");
  loginError: ApiError | null = $state(null);
  /** A login refused because its password is too old: who, and the password just typed, for
   * choosing a new one (PasswordRenewal). */
  renewing: { user: string; password: string } | null = $state(null);
  private lastInput: number;

  constructor(
    private readonly commands: SessionCommands,
    private readonly clock: () => number = Date.now,
  ) {
    this.lastInput = clock();
  }

  /** Someone used the window (a key, the pointer): the idle time starts again. */
  noteInput(): void {
    if (!this.locked) this.lastInput = this.clock();
  }

  /** Locks the window and logs out; `keepUser` offers the same user on the lock screen. */
  async lock(reason: string, keepUser: boolean): Promise<void> {
    if (this.locked) return;
    this.lockedUser = keepUser ? (this.session?.user ?? null) : null;
    this.lockReason = reason;
    this.locked = true;
    this.session = null;
    this.muted = false;
    try {
      await this.commands.logout();
    } catch {
      // Logged out already.
    }
  }

  /** Locks the window once it has been left alone for `idleSeconds` (0: never). */
  lockIfIdle(now: number, idleSeconds: number): void {
    if (this.session && !this.locked && idleExpired(this.lastInput, now, idleSeconds)) void this.lock(idleReason(idleSeconds), true);
  }

  /** Someone logged in on the lock screen. */
  unlocked(created: Session): void {
    this.session = created;
    this.muted = false;
    this.locked = false;
    this.lastInput = this.clock();
  }

  /** Logs in with the form's user and password. */
  async login(): Promise<void> {
    this.loginError = null;
    this.renewing = null;
    try {
      this.session = await this.commands.login(this.loginUser, this.loginPassword);
      this.muted = false;
      this.loginPassword = "";
    } catch (error) {
      this.loginError = toApiError(error);
      if (this.loginError.code === "password_expired") this.renewing = { user: this.loginUser, password: this.loginPassword };
    }
  }

  /** A new password was set in place of an expired one, and its user is logged in. */
  renewed(created: Session): void {
    this.session = created;
    this.muted = false;
    this.renewing = null;
    this.loginError = null;
    this.loginPassword = "";
  }

  async logout(): Promise<void> {
    await this.commands.logout();
    this.session = null;
    this.muted = false;
  }

  /**
   * Mutes (`on`) or unmutes the alarm's sound as the logged-in user: the desk records it and says
   * whether it is muted now. Nobody logged in: nothing is asked and nothing changes.
   */
  async setMuted(on: boolean): Promise<void> {
    if (!this.session || this.locked) return;
    try {
      this.muted = await this.commands.setAlarmMuted(on);
    } catch (error) {
      this.loginError = toApiError(error);
    }
  }

  /** The first administrator was created and is logged in. */
  firstAdminCreated(created: Session): void {
    this.session = created;
    this.muted = false;
    this.firstRun = false;
  }
}
