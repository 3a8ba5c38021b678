// What reloading the pit definition did, in words, for the administrator who pressed Reload
// (crates/pitwatch-app/src/reload.rs does it; `pitwatch monitor` prints the same on a change).
import type { PitReload } from "./bindings";

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
