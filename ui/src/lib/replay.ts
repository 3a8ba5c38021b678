// Pure stepping logic for the replay screen: moving through a shoe event by event or round by
// round, the markers on its timeline, and the rounds completed by a given step.
import { abbreviation, formatAt, getSiteZone, type Zone } from "./time";
import type { ReplayStep, ShoeRow } from "./bindings";
import { playEntry } from "../games";
import { shuffleNote } from "./shuffle";

export type Marker = { index: number; kind: "round" | "irregularity"; label: string };

function clamp(index: number, length: number): number {
  return Math.min(Math.max(index, 0), Math.max(length - 1, 0));
}

/** The round step `s` completed, of whatever game, if it completed one. */
export function completedRound(s: ReplayStep | undefined): { round: number } | null {
  return s?.play.completed ?? null;
}

/** The round on the table at step `s` (the one being dealt or just completed; 0 before any). */
export function roundOnTable(s: ReplayStep): number {
  return playEntry(s.play).replayRound(s.play);
}

/** One event forward (delta 1) or back (delta -1), staying inside the shoe. */
export function stepBy(steps: readonly ReplayStep[], index: number, delta: number): number {
  return clamp(index + delta, steps.length);
}

/** The next step after `index` that completes a round (or the last step). */
export function nextRound(steps: readonly ReplayStep[], index: number): number {
  for (let i = index + 1; i < steps.length; i++) if (completedRound(steps[i])) return i;
  return clamp(steps.length - 1, steps.length);
}

/** The step that completed the round before the one shown at `index` (or the first step). */
export function previousRound(steps: readonly ReplayStep[], index: number): number {
  for (let i = index - 1; i >= 0; i--) if (completedRound(steps[i])) return i;
  return 0;
}

/** The next step after `index` that revealed an irregularity, or null. */
export function nextIrregularity(steps: readonly ReplayStep[], index: number): number | null {
  for (let i = index + 1; i < steps.length; i++) if ((steps[i]?.irregularities.length ?? 0) > 0) return i;
  return null;
}

/** The step of event `seq`, or of the last event before it; 0 if none. */
export function indexOfSeq(steps: readonly ReplayStep[], seq: number): number {
  let found = 0;
  steps.forEach((s, i) => {
    if (s.seq <= seq) found = i;
  });
  return found;
}

/** The step completing round `round`, if the shoe has it. */
export function indexOfRound(steps: readonly ReplayStep[], round: number): number | null {
  const i = steps.findIndex((s) => completedRound(s)?.round === round);
  return i < 0 ? null : i;
}

/**
 * The rounds (of whatever game the shoe is dealt at) completed up to and including step `index`:
 * for the roads at that instant, or the history beside the table.
 */
export function completedUpTo(steps: readonly ReplayStep[], index: number): NonNullable<ReplayStep["play"]["completed"]>[] {
  const out: NonNullable<ReplayStep["play"]["completed"]>[] = [];
  for (let i = 0; i <= index && i < steps.length; i++) {
    const completed = steps[i]?.play.completed;
    if (completed) out.push(completed);
  }
  return out;
}

/** Every round end and every irregularity, for the timeline. */
export function markers(steps: readonly ReplayStep[]): Marker[] {
  const out: Marker[] = [];
  steps.forEach((s, index) => {
    const completed = completedRound(s);
    if (completed) out.push({ index, kind: "round", label: `Round ${completed.round}` });
    for (const i of s.irregularities) out.push({ index, kind: "irregularity", label: i });
  });
  return out;
}

/** Milliseconds between steps when playing at `speed` (1 = about a dealer's pace). */
export function playDelay(speed: number): number {
  return Math.max(30, Math.round(800 / Math.max(speed, 0.1)));
}

/** The replay picker's shoes: those listed (newest first), and the shoe shown if it is not among them. */
export function shoeOptions(listed: readonly ShoeRow[], shown: number | null): ShoeRow[] {
  if (shown === null || listed.some((s) => s.shoe === shown)) return [...listed];
  const placeholder: ShoeRow = { shoe: shown, startedAt: null, endedAt: null, rounds: 0, incidents: 0, shuffle: null };
  return [...listed, placeholder].sort((a, b) => b.shoe - a.shoe);
}

/**
 * "Shoe 12 · 11-30 09:14–10:02 UTC · 71 rounds · 2 incidents · well mixed": the times on the
 * site's wall clock, its zone said once after them (`lib/time.ts`).
 */
export function shoeLabel(s: ShoeRow, zone: Zone = getSiteZone()): string {
  const day = (t: string) => formatAt(t, { seconds: false, zone: false }, zone).slice(5, 10);
  const time = (t: string) => formatAt(t, { date: false, seconds: false, zone: false }, zone);
  const parts = [`Shoe ${s.shoe}`];
  if (s.startedAt) {
    const end = s.endedAt ? (day(s.endedAt) === day(s.startedAt) ? time(s.endedAt) : `${day(s.endedAt)} ${time(s.endedAt)}`) : "";
    const name = abbreviation(Date.parse(s.endedAt ?? s.startedAt), zone);
    parts.push(`${day(s.startedAt)} ${time(s.startedAt)}${end ? `–${end}` : ""} ${name}`);
    parts.push(`${s.rounds} round${s.rounds === 1 ? "" : "s"}`);
    if (s.incidents > 0) parts.push(`${s.incidents} incident${s.incidents === 1 ? "" : "s"}`);
  }
  const shuffle = shuffleNote(s.shuffle);
  if (shuffle) parts.push(shuffle);
  return parts.join(" · ");
}
