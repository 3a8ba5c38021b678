// The shuffle quality of a shoe (docs/shuffle.md) as a small label: its words, a tone for its
// colour, and the statistics for a tooltip. Pure, so it is unit-tested without a DOM.
import type { ShuffleQuality } from "./bindings";

export type ShuffleTone = "ok" | "warn" | "bad" | "muted";

export type ShuffleBadge = { text: string; tone: ShuffleTone; title: string };

/** The badge for a shoe's shuffle quality, or null when there is none (a continuous shuffler). */
export function shuffleBadge(quality: ShuffleQuality | null | undefined): ShuffleBadge | null {
  if (!quality) return null;
  const tone: ShuffleTone =
    quality.verdict === "suspect" ? "bad" : quality.verdict === "weak" ? "warn" : quality.verdict === "well_mixed" ? "ok" : "muted";
  const mark = quality.verdict === "suspect" ? "⚠ " : "";
  const text = `${mark}${quality.label}${quality.provisional ? " (so far)" : ""}`;
  const title = quality.provisional
    ? `So far, while the shoe is dealt: ${quality.detail}. The shoe is judged when the next one starts.`
    : quality.detail;
  return { text, tone, title };
}

/** For a pit tile, which has little room: the badge only when the shuffle was weak or suspect. */
export function shuffleAlert(quality: ShuffleQuality | null | undefined): ShuffleBadge | null {
  if (!quality || (quality.verdict !== "weak" && quality.verdict !== "suspect")) return null;
  return shuffleBadge(quality);
}

/** The shuffle part of a shoe's line in the picker: "well mixed", "⚠ suspect: a block of 20 cards kept". */
export function shuffleNote(quality: ShuffleQuality | null | undefined): string | null {
  if (!quality || quality.verdict === "not_compared") return null;
  return shuffleBadge(quality)?.text ?? null;
}
