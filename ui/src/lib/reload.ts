// What reloading the pit definition did, in words, for the administrator who pressed Reload
// (crates/pitwatch-app/src/reload.rs does it; `pitwatch monitor` prints the same on a change).
import type { LinkDraft, LinkTestView, PitReload, TableDraft } from "./bindings";
import { GAMES, knownGame } from "../games";

/** One line of the result: what happened to which tables. */
export type ReloadLine = { kind: "started" | "stopped" | "restarted" | "disabled" | "kept" | "later" | "problem"; text: string };

const list = (names: string[]) => names.join(", ");

/** The result line by line, the tables that changed first; "nothing changed" when nothing did. */
export function reloadSummary(r: PitReload): ReloadLine[] {
  const lines: ReloadLine[] = [];
  if (r.added.length > 0) lines.push({ kind: "started", text: `Started: ${list(r.added)}` });
  if (r.removed.length > 0) lines.push({ kind: "stopped", text: `Stopped (no longer in the file): ${list(r.removed)}` });
  for (const c of r.changed) lines.push({ kind: "restarted", text: `Restarted ${c.name} (changed: ${c.what.join(", ")})` });
  if (r.disabled.length > 0) lines.push({ kind: "disabled", text: `Stopped and shown disabled (its section is wrong): ${list(r.disabled)}` });
  const touched = r.added.length + r.removed.length + r.changed.length + r.disabled.length;
  if (touched === 0) lines.push({ kind: "kept", text: "Nothing to apply: every table is defined as it runs." });
  if (r.unchanged > 0) lines.push({ kind: "kept", text: `${r.unchanged} ${r.unchanged === 1 ? "table keeps" : "tables keep"} recording untouched` });
  if (r.atRestart.length > 0) lines.push({ kind: "later", text: `Applies at the next start: ${list(r.atRestart)}` });
  for (const p of r.problems) lines.push({ kind: "problem", text: p });
  return lines;
}

/** What the add-a-table form holds, as typed or picked. */
export type TableForm = {
  name: string;
  game: string;
  rules: string;
  protocol: "angel-eye" | "barcode" | "pitwatch";
  linkKind: "serial" | "tcp";
  path: string;
  baud: number;
  address: string;
};

/** The built-in rule book of a game (the registry's), offered first. */
export function defaultBook(game: string): string | null {
  const known = knownGame(game);
  return known ? GAMES[known].book : null;
}

/** The baud rates serial shoes use (the desk checks any other against what ports accept). */
export const BAUDS = [1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200];

export function newTableForm(): TableForm {
  const game = Object.keys(GAMES)[0] ?? "";
  return { name: "", game, rules: defaultBook(game) ?? "", protocol: "angel-eye", linkKind: "serial", path: "", baud: 9600, address: "" };
}

/** The link the form describes, or what is missing from it. */
export function linkDraft(form: TableForm): { link: LinkDraft } | { missing: string } {
  if (form.linkKind === "serial") {
    if (form.path.trim() === "") return { missing: "Choose the serial port its shoe is on." };
    return { link: { kind: "serial", path: form.path.trim(), baud: Number(form.baud) } };
  }
  if (!/^[^\s:]+:\d{1,5}$/.test(form.address.trim())) return { missing: "Give the device server as host:port, e.g. 10.0.4.21:4001." };
  return { link: { kind: "tcp", address: form.address.trim() } };
}

/** The draft the form describes, or what is missing from it. */
export function tableDraft(form: TableForm): { draft: TableDraft } | { missing: string } {
  if (form.name.trim() === "") return { missing: "Give the table a name." };
  if (form.rules.trim() === "") return { missing: "Choose a rule book." };
  const made = linkDraft(form);
  if ("missing" in made) return made;
  return { draft: { name: form.name.trim(), game: form.game, rules: form.rules.trim(), protocol: form.protocol, link: made.link } };
}

/** How long the connection test listens, in seconds. */
export const TEST_SECONDS = 5;

/** A connection test's counts in a line: "12 bytes in 5.0 s: 3 frames accepted, 1 rejected". */
export function linkTestCounts(t: LinkTestView): string {
  const s = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;
  const seconds = (t.listenedMs / 1000).toFixed(1);
  if (!t.connected) return `${t.link}: not opened`;
  return `${t.link}: ${s(t.bytes, "byte")} in ${seconds} s, ${s(t.accepted, "frame")} accepted, ${t.rejected} rejected`;
}

/** Why `to` cannot be the new name of the table `name` among `names` (the pit's), or null. */
export function renameProblem(name: string, to: string, names: readonly string[]): string | null {
  const next = to.trim();
  if (next === "") return "Give the table's new name.";
  if (next === name) return `The table is already named ${name}.`;
  if (names.includes(next)) return `A table named ${next} is already in the pit.`;
  return null;
}

/** What the confirmation of retiring `name` says will happen. */
export function retireWarning(name: string, file: string): string {
  return `Retire ${name}? It stops recording now and its section leaves ${file} (the file before is kept as ${file}.bak). What it recorded stays in the record under its name, for replay and reports.`;
}
