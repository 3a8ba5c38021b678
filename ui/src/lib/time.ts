// Times as a person at the site reads them: every instant the window shows, in the site's time
// zone (the pit definition's `site.time_zone`, an IANA name the backend checked and sends in
// `PitOverview.timeZone`) with the zone's abbreviation, laid out as the reports print them
// ("2026-11-30 09:14:05 NZDT"; without a zone "2026-11-29 20:14:05 UTC", said so); and the
// times a person types (the incident filter's bounds) read in the same zone.
//
// The zone is the window's one setting (`setSiteZone`, when the overview arrives); every function
// also takes a zone, so the surveillance view (whose workstations name no zone) and tests say
// theirs. The abbreviation is the user's locale's name for the zone when it has one ("NZDT",
// "AEDT", "EST"); a locale that only knows an offset ("GMT+13") is asked after English locales
// that name the zone, and the offset is said when none does.

/** An IANA zone name, or null for UTC. */
export type Zone = string | null;

let siteZone: Zone = null;

/** `zone` if Intl knows it, else null (UTC): a bad name never breaks a screen. */
export function knownZone(zone: Zone | undefined): Zone {
  if (!zone) return null;
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone });
    return zone;
  } catch {
    return null;
  }
}

/** Sets the site's zone (from `PitOverview.timeZone`); none or an unknown name: UTC. */
export function setSiteZone(zone: Zone | undefined): void {
  siteZone = knownZone(zone);
}

/** The site's zone as set, null for UTC. */
export function getSiteZone(): Zone {
  return siteZone;
}

/** The site's zone as a heading names it: "Pacific/Auckland", or "UTC". */
export function zoneName(zone: Zone = siteZone): string {
  return zone ?? "UTC";
}

/** An instant as the record gives it (RFC 3339) or milliseconds since the epoch; NaN when unreadable. */
function millis(at: string | number): number {
  return typeof at === "number" ? at : Date.parse(at);
}

const formats = new Map<string, Intl.DateTimeFormat>();

function format(locale: string | undefined, zone: string, abbreviation: boolean): Intl.DateTimeFormat {
  const key = `${locale ?? ""}\u0000${zone}\u0000${abbreviation}`;
  let f = formats.get(key);
  if (!f) {
    f = abbreviation
      ? new Intl.DateTimeFormat(locale, { timeZone: zone, timeZoneName: "short" })
      : new Intl.DateTimeFormat("en-GB", {
          timeZone: zone,
          year: "numeric",
          month: "2-digit",
          day: "2-digit",
          hour: "2-digit",
          minute: "2-digit",
          second: "2-digit",
          hourCycle: "h23",
        });
    formats.set(key, f);
  }
  return f;
}

const OFFSET_ONLY = /^(GMT|UTC)([+-−]|$)/;
const NAMING_LOCALES = ["en-NZ", "en-AU", "en-US", "en-GB"];

/** The zone's abbreviation at `ms`: "NZDT", "NZST", "UTC" (null zone), or "GMT+8" when no locale names it. */
export function abbreviation(ms: number, zone: Zone = siteZone, locale?: string): string {
  if (zone === null) return "UTC";
  let offset = "";
  for (const l of [locale, ...NAMING_LOCALES]) {
    const name = format(l, zone, true).formatToParts(ms).find((p) => p.type === "timeZoneName")?.value ?? "";
    if (name !== "" && !OFFSET_ONLY.test(name)) return name;
    if (offset === "") offset = name;
  }
  return offset || zone;
}

interface Wall {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** The wall clock at `ms` in `zone` (UTC when null). */
function wall(ms: number, zone: Zone): Wall {
  const parts = format(undefined, zone ?? "UTC", false).formatToParts(ms);
  const n = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? "0");
  return { year: n("year"), month: n("month"), day: n("day"), hour: n("hour") % 24, minute: n("minute"), second: n("second") };
}

const two = (n: number) => String(n).padStart(2, "0");

/** How a time is shown: with the date (default), seconds (default), milliseconds, the zone (default). */
export interface Shown {
  date?: boolean;
  seconds?: boolean;
  millis?: boolean;
  zone?: boolean;
}

/**
 * `at` as a person reads it in `zone`: "2026-11-30 09:14:05 NZDT" by default; `{ date: false }`
 * "09:14:05 NZDT"; `{ millis: true }` "… 09:14:05.120 NZDT"; `{ zone: false }` without the
 * abbreviation (where a heading says it). "—" for no time, the text itself when unreadable.
 */
export function formatAt(at: string | number | null | undefined, shown: Shown = {}, zone: Zone = siteZone, locale?: string): string {
  if (at === null || at === undefined || at === "") return "—";
  const ms = millis(at);
  if (Number.isNaN(ms)) return String(at);
  const w = wall(ms, zone);
  let time = `${two(w.hour)}:${two(w.minute)}`;
  if (shown.seconds !== false || shown.millis) time += `:${two(w.second)}`;
  if (shown.millis) time += `.${String(((ms % 1000) + 1000) % 1000).padStart(3, "0")}`;
  const date = shown.date === false ? "" : `${w.year}-${two(w.month)}-${two(w.day)} `;
  const name = shown.zone === false ? "" : ` ${abbreviation(ms, zone, locale)}`;
  return `${date}${time}${name}`;
}

/** How far `zone`'s wall clock is ahead of UTC at `ms`, in milliseconds. */
function offsetAt(ms: number, zone: Zone): number {
  const w = wall(ms, zone);
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
  return asUtc - (ms - (((ms % 1000) + 1000) % 1000));
}

/**
 * A wall time typed in `zone` ("2026-11-30T09:00", seconds optional, "T" or a space) as the
 * instant it names, in milliseconds; null when empty, not such a time, or a date that does not
 * exist. A time the clocks skipped (a spring-forward gap) is read with the offset before it; one
 * they passed twice, as the first.
 */
export function parseWall(text: string, zone: Zone = siteZone): number | null {
  const m = /^\s*(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2}))?\s*$/.exec(text);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1).map((v) => Number(v ?? "0")) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return null;
  const asUtc = Date.UTC(year, month - 1, day, hour, minute, second);
  const back = new Date(asUtc);
  if (back.getUTCMonth() !== month - 1 || back.getUTCDate() !== day) return null;
  // The offset before the wall time, then the offset at the instant it gives: two steps settle it.
  const before = offsetAt(asUtc - 86_400_000, zone);
  let ms = asUtc - before;
  const at = offsetAt(ms, zone);
  if (at !== before) {
    const other = asUtc - at;
    // The later offset applies if the wall clock really shows this time with it.
    if (offsetAt(other, zone) === at) ms = other;
  }
  return ms;
}

/** `ms` as a `datetime-local` input shows it in `zone`: "2026-11-30T09:00". */
export function wallInput(ms: number, zone: Zone = siteZone): string {
  const w = wall(ms, zone);
  return `${w.year}-${two(w.month)}-${two(w.day)}T${two(w.hour)}:${two(w.minute)}`;
}
