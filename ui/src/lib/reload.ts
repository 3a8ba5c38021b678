// What reloading the pit definition did, in words, for the administrator who pressed Reload
// (crates/pitwatch-app/src/reload.rs does it; `pitwatch monitor` prints the same on a change).
import type { BookView, LineFlow, LinkDraft, LinkTestView, PitReload, SerialLine, SerialPortView, TableDraft } from "./bindings";
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

/** How one device is reached, as typed or picked: a serial port at a baud rate and framing
 * ("7E1", as device manuals write it) with its flow control, or a device server. */
export type LinkForm = {
  linkKind: "serial" | "tcp";
  path: string;
  baud: number;
  framing: string;
  flow: LineFlow;
  address: string;
};

/** What the add-a-table form holds, as typed or picked: the table, its shoe's link, and a
 * shuffler beside the shoe when it has one. */
export type TableForm = LinkForm & {
  name: string;
  game: string;
  rules: string;
  /** Decks in the shoe, "" for the rule book's default. */
  decks: string;
  /** The variant dealt, "" for the rule book's default (only where the book has variants). */
  variant: string;
  protocol: "angel-eye" | "barcode" | "pitwatch";
  withShuffler: boolean;
  shuffler: LinkForm;
};

/** The built-in rule book of a game (the registry's), offered first. */
export function defaultBook(game: string): string | null {
  const known = knownGame(game);
  return known ? GAMES[known].book : null;
}

/** The variants the book offers for the form's select, its own default first and marked so. */
export function variantChoices(book: Pick<BookView, "variants" | "defaultVariant">): { value: string; label: string }[] {
  const own = book.variants.find((v) => v.id === book.defaultVariant);
  const first = own ? [{ value: "", label: `${own.name} (the rule book's own)` }] : [];
  return [...first, ...book.variants.filter((v) => v !== own).map((v) => ({ value: v.id, label: v.name }))];
}

/** The baud rates serial shoes use (the desk checks any other against what ports accept). */
export const BAUDS = [1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200];

/** The framings serial devices use: data bits, parity (N, E, O), stop bits. */
export const FRAMINGS = ["8N1", "8E1", "8O1", "8N2", "7E1", "7O1", "7N2", "7E2"];

/** Flow control, in words. */
export const FLOWS: { value: LineFlow; label: string }[] = [
  { value: "none", label: "none" },
  { value: "hardware", label: "RTS/CTS (hardware)" },
  { value: "software", label: "XON/XOFF (software)" },
];

export function newLinkForm(): LinkForm {
  return { linkKind: "serial", path: "", baud: 9600, framing: "8N1", flow: "none", address: "" };
}

export function newTableForm(): TableForm {
  const game = Object.keys(GAMES)[0] ?? "";
  return { ...newLinkForm(), name: "", game, rules: defaultBook(game) ?? "", decks: "", variant: "", protocol: "angel-eye", withShuffler: false, shuffler: newLinkForm() };
}

/** A framing such as "7E1" as a serial line with `flow`, or null when it is not one. */
export function serialLine(framing: string, flow: LineFlow): SerialLine | null {
  const m = /^([5-8])([NEO])([12])$/.exec(framing.trim().toUpperCase());
  if (!m) return null;
  const parity = ({ N: "none", E: "even", O: "odd" } as const)[m[2] as "N" | "E" | "O"];
  return { dataBits: Number(m[1]), parity, stopBits: Number(m[3]), flowControl: flow };
}

/** The link the form describes (`what` names the device in what is missing), or what is missing from it. */
export function linkDraft(form: LinkForm, what = "its shoe"): { link: LinkDraft } | { missing: string } {
  if (form.linkKind === "serial") {
    if (form.path.trim() === "") return { missing: `Choose the serial port ${what} is on.` };
    const line = serialLine(form.framing ?? "8N1", form.flow ?? "none");
    if (line === null) return { missing: `Give ${what}'s framing as data bits, parity and stop bits, e.g. 8N1 or 7E1.` };
    const plain = line.dataBits === 8 && line.parity === "none" && line.stopBits === 1 && line.flowControl === "none";
    return { link: { kind: "serial", path: form.path.trim(), baud: Number(form.baud), ...(plain ? {} : { line }) } };
  }
  if (!/^[^\s:]+:\d{1,5}$/.test(form.address.trim())) return { missing: `Give ${what}'s device server as host:port, e.g. 10.0.4.21:4001.` };
  return { link: { kind: "tcp", address: form.address.trim() } };
}

/** The draft the form describes, or what is missing from it. */
export function tableDraft(form: TableForm): { draft: TableDraft } | { missing: string } {
  if (form.name.trim() === "") return { missing: "Give the table a name." };
  if (form.rules.trim() === "") return { missing: "Choose a rule book." };
  const made = linkDraft(form);
  if ("missing" in made) return made;
  const draft: TableDraft = { name: form.name.trim(), game: form.game, rules: form.rules.trim(), protocol: form.protocol, link: made.link };
  if ((form.decks ?? "") !== "") draft.decks = Number(form.decks);
  if ((form.variant ?? "") !== "") draft.variant = form.variant;
  if (form.withShuffler) {
    const shuffler = linkDraft(form.shuffler, "the shuffler");
    if ("missing" in shuffler) return shuffler;
    draft.shuffler = shuffler.link;
  }
  return { draft };
}

/** The ports to pick from: a USB adapter's stable name first (it stays when the adapter comes
 * back under another name), then each port as the system names it now. */
export function portChoices(ports: readonly SerialPortView[]): { value: string; label: string }[] {
  const choices: { value: string; label: string }[] = [];
  for (const p of ports) {
    if (p.stablePath !== "") choices.push({ value: p.stablePath, label: `${p.usb || p.kind}: stays when plugged in again (now ${p.path})` });
  }
  for (const p of ports) choices.push({ value: p.path, label: p.usb || p.kind });
  return choices;
}

/** The ports found, in a line. */
export function portsLine(ports: readonly SerialPortView[]): string {
  if (ports.length === 0) return "No serial port found on this workstation.";
  const one = (p: SerialPortView) => {
    const usb = p.usb ? ` (${p.usb})` : "";
    const stable = p.stablePath ? `, also ${p.stablePath}, a name that stays when it is plugged in again` : "";
    return `${p.path}${usb}${stable}`;
  };
  return `Ports found: ${ports.map(one).join("; ")}`;
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
