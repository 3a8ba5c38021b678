// The window's screens and its keys: which screen is shown, and what a key press asks for (the
// alert keys A, N, O, M, R and Escape back to the pit). Pure, so it is unit-tested without a DOM.
import { may } from "./access";

/** A screen of the window, with what it shows. */
export type View =
  | { name: "pit" }
  | { name: "table"; table: string }
  | { name: "incidents" }
  | { name: "users" }
  | { name: "about" }
  | { name: "shift" }
  | { name: "audit" }
  | { name: "exposure" }
  | { name: "dealers"; table: string | null }
  | { name: "access" }
  | { name: "replay"; table: string; shoe: number | null; seq: number | null };

/** What a key asks for. */
export type KeyCommand = "acknowledge" | "next" | "open" | "mute" | "replay" | "pit";

const KEYS: Readonly<Record<string, KeyCommand>> = {
  a: "acknowledge",
  A: "acknowledge",
  n: "next",
  N: "next",
  o: "open",
  O: "open",
  m: "mute",
  M: "mute",
  r: "replay",
  R: "replay",
  Escape: "pit",
};

/** Keys typed into these are text, not commands. */
const TEXT_FIELDS = ["INPUT", "SELECT", "TEXTAREA"];

/**
 * What `key` asks for, typed with focus on an element named `tag` (null: none), by a user of
 * `role` (null: nobody logged in). A key does only what its button would: none for what the role
 * may not do (a surveillance officer's A does nothing, so no refusal is written for a button they
 * were never shown), no mute without someone logged in (muting is theirs, audited). Locked, the
 * alerts are shown and sound, but nothing is done with them until someone logs in: only moving
 * to the next alert works.
 */
export function keyCommand(key: string, tag: string | null, locked: boolean, role: string | null = null): KeyCommand | null {
  if (tag !== null && TEXT_FIELDS.includes(tag)) return null;
  const command = KEYS[key] ?? null;
  if (locked) return command === "next" ? command : null;
  // Not logged in, A is still answered (the banner's button says to log in first; nothing is
  // sent to the desk).
  if (command === "acknowledge" && role !== null && !may(role, "acknowledge")) return null;
  if (command === "mute" && !may(role, "mute")) return null;
  return command;
}

/** Whether the navigation button for `button` is lit on screen `view` (a table is part of the pit). */
export function navActive(view: View, button: View["name"]): boolean {
  return view.name === button || (button === "pit" && view.name === "table");
}

/** A start-up error's message as the screen shows it: its first line, then each problem listed. */
export function startupLines(message: string): { lead: string; problems: string[] } {
  const [lead = "", ...rest] = message.split("\n").filter((line) => line.trim() !== "");
  return { lead, problems: rest.map((line) => line.replace(/^\s*- /, "")) };
}
