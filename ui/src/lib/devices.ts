// A table's devices as its tile and view show them: each device's role and link, and a shuffler's
// last deck check as a small badge. Pure, so it is unit-tested without a DOM.
import { formatAt, getSiteZone, type Zone } from "./time";
import type { DeckCheckView, DeviceAlarmView, DeviceIdentityView, DeviceRole, DeviceTile, ShufflerCountersView, TableTile } from "./bindings";
import { ageLabel } from "./pit";

export const ROLE_LABEL: Record<DeviceRole, string> = {
  shoe: "Shoe",
  shuffler: "Shuffler",
  console: "Dealer console",
};

/** A shuffler's counters: "1,042 shuffles · 3 recognition errors · 1 malfunction". */
export function countersLabel(c: ShufflerCountersView): string {
  const count = (n: number, one: string) => `${n.toLocaleString("en-NZ")} ${one}${n === 1 ? "" : "s"}`;
  const parts = [count(c.cycles, "shuffle")];
  if (c.recognitionErrors !== null) parts.push(count(c.recognitionErrors, "recognition error"));
  if (c.malfunctions !== null) parts.push(count(c.malfunctions, "malfunction"));
  return parts.join(" · ");
}

export type CheckTone = "ok" | "bad" | "muted";

export type CheckBadge = { text: string; tone: CheckTone; title: string };

/** A shuffler's last deck check: "✓ 416 cards", "⚠ 415 of 416 (1 missing)", or "no shuffle yet". */
export function deckCheckBadge(check: DeckCheckView | null, nowMs: number, dealt: "shoe" | "hand" = "shoe"): CheckBadge {
  if (!check) {
    return { text: "no shuffle yet", tone: "muted", title: "No completed shuffle since start-up." };
  }
  const when = check.atMs === null ? "" : ` (${ageLabel(check.atMs, nowMs)})`;
  const decks = check.decks === null ? "" : `${check.decks} decks, `;
  if (check.passed) {
    return {
      text: `✓ ${check.cards} cards`,
      tone: "ok",
      title: `Last shuffle${when}: ${decks}${check.cards} cards counted, as expected. ${dealt === "hand" ? "The next hand is dealt from it." : "The next shoe is loaded from it."}`,
    };
  }
  const found = [
    check.missing > 0 ? `${check.missing} missing` : null,
    check.extra > 0 ? `${check.extra} extra` : null,
    check.foreign > 0 ? `${check.foreign} foreign` : null,
  ].filter((x) => x !== null);
  const detail = found.length > 0 ? ` (${found.join(", ")})` : "";
  return {
    text: `⚠ ${check.cards} of ${check.expected}${detail}`,
    tone: "bad",
    title: `Last shuffle${when}: the deck check FAILED: ${decks}${check.cards} cards counted where ${check.expected} were expected${detail}. The deck must not be dealt.`,
  };
}

/** The devices beside the table's main one (a shuffler beside the shoe), for the tile's line. */
export function otherDevices(devices: readonly DeviceTile[]): DeviceTile[] {
  return devices.slice(1);
}

/** `ms` as a time of day on the site's clock with its zone: "14:02:11 UTC", "03:02:11 NZDT" (`lib/time.ts`). */
export function clockLabel(ms: number, zone: Zone = getSiteZone()): string {
  return formatAt(ms, { date: false }, zone);
}

/** A device's liveness alarm in words: "offline since 14:02:11 UTC", "never connected", "silent since …". */
export function alarmLabel(alarm: DeviceAlarmView | null): string | null {
  if (!alarm) return null;
  switch (alarm.kind) {
    case "never_connected":
      return "never connected";
    case "offline":
      return `offline since ${clockLabel(alarm.sinceMs)}`;
    case "silent":
      return `silent since ${clockLabel(alarm.sinceMs)}`;
  }
}

/** The incidents a device liveness alarm standing on a tile was recorded on. */
function standingAlarms(tables: readonly TableTile[]): Set<number> {
  const ids = new Set<number>();
  for (const t of tables) {
    for (const d of t.devices) if (d.alarm?.incident != null) ids.add(d.alarm.incident);
    if (t.alarm?.incident != null) ids.add(t.alarm.incident);
  }
  return ids;
}

/** The incident codes of a device liveness alarm (the record's `DEVICE_OFFLINE`, `DEVICE_SILENT`). */
export const LIVENESS_CODES: readonly string[] = ["DEVICE_OFFLINE", "DEVICE_SILENT"];

/**
 * The rows that are alerts: a device liveness incident is one only while its alarm stands (the
 * device is back: the alert clears, the incident stays in the list to be resolved).
 */
export function withoutClearedLiveness<R extends { id: number; code: string }>(rows: readonly R[], tables: readonly TableTile[]): R[] {
  const standing = standingAlarms(tables);
  return rows.filter((r) => !LIVENESS_CODES.includes(r.code) || standing.has(r.id));
}

/**
 * A link in words for the device panel: the transport's `serial /dev/ttyUSB0 9600 8N1` is "serial
 * port /dev/ttyUSB0 · 9600 8N1", `tcp 10.0.0.5:4001` is "device server 10.0.0.5:4001", so "serial"
 * beside a port is never read as a serial number. Anything else is shown as it is.
 */
export function linkWords(link: string): string {
  const serial = /^serial (\S+) (.+)$/.exec(link);
  if (serial) return `serial port ${serial[1]} · ${serial[2]}`;
  const tcp = /^tcp (\S+)$/.exec(link);
  if (tcp) return `device server ${tcp[1]}`;
  return link;
}

/**
 * The device panel's link and status detail in words, neither repeating the other: a device
 * connected on the link it is set up with says so once ("Connected"), and a simulated device
 * says the pseudo-terminal it is on beside "simulated" rather than under it.
 */
export function linkAndDetail(link: string, detail: string): { link: string; detail: string } {
  const isLink = /^(serial|tcp) \S/.test(detail);
  if (isLink && link.trim() === "simulated") return { link: `simulated, on ${linkWords(detail)}`, detail: "" };
  if (isLink && linkWords(detail) === linkWords(link)) return { link: linkWords(link), detail: "" };
  return { link: linkWords(link), detail };
}

/**
 * What a device says it is, in one line: "Pitwatch Shoe-1 · serial number SN-0042 · firmware 2.1.0", then
 * its USB adapter ("via FT232R USB UART serial number A10K on /dev/ttyUSB0"); null when nothing is known.
 */
export function identityLines(identity: DeviceIdentityView | null): { device: string | null; usb: string | null; said: string | null } | null {
  if (!identity) return null;
  const name = [identity.make, identity.model].map((s) => s.trim()).filter((s) => s !== "").join(" ");
  const parts = [name, identity.serial.trim() && `serial number ${identity.serial.trim()}`, identity.firmware.trim() && `firmware ${identity.firmware.trim()}`].filter((s) => s !== "");
  const device = parts.length === 0 ? null : parts.join(" · ");
  const usb = identity.usb.trim() === "" ? null : `via ${identity.usb.trim()}`;
  if (device === null && usb === null) return null;
  const said = identity.saidAt === null ? null : `as it said at ${formatAt(identity.saidAt)}`;
  return { device, usb, said };
}
