// Pure view logic for poker tables: the misdeal reasons a supervisor can declare (the nz-poker
// book's lettered paragraphs, in short), the rulings, and how a hand, a seat and a misdeal read on
// a tile, the table view and the replay.
import type { PokerHand, PokerSeat } from "../../lib/bindings";

/** NZ poker's misdeal reasons (a)–(l), in a few words each; the book has the full text. */
export const MISDEAL_REASONS: ReadonlyArray<{ letter: string; label: string }> = [
  { letter: "a", label: "cards exposed in cutting" },
  { letter: "b", label: "not shuffled or cut before the deal" },
  { letter: "c", label: "cards dealt out of order" },
  { letter: "d", label: "a player dealt out, or an extra hand dealt in" },
  { letter: "e", label: "wrong number of cards at the end of the initial deal" },
  { letter: "f", label: "a player dealt a wrong number of cards" },
  { letter: "g", label: "the last player at showdown has a wrong number of cards" },
  { letter: "h", label: "the deck is defective" },
  { letter: "i", label: "Draw Poker: more than one card exposed in the initial round" },
  { letter: "j", label: "Five Card Stud: wrong card or number of cards face up" },
  { letter: "k", label: "Five Card Stud: two players dealt two cards face up" },
  { letter: "l", label: "Seven Card Stud: wrong card or number of cards face up" },
];

/** The rulings a supervisor gives with a declaration. */
export const RULINGS: ReadonlyArray<{ value: string; label: string }> = [
  { value: "misdeal", label: "Misdeal: cancel the hand and deal again" },
  { value: "dead_hand", label: "Dead hand: the seats' wagers returned" },
  { value: "void_hand", label: "Void hand for the round: wagers returned" },
  { value: "played_out", label: "No misdeal: the hand is played out" },
];

export const VARIANT_LABEL: Record<string, string> = {
  texas_holdem: "Texas Hold'em",
  draw: "Draw Poker",
  five_card_stud: "Five Card Stud",
  seven_card_stud: "Seven Card Stud",
};

/** A variant id as people say it ("Texas Hold'em"); an unknown id as written. */
export function variantLabel(id: string): string {
  return VARIANT_LABEL[id] ?? id.replaceAll("_", " ");
}

/** Seat numbers typed at the console ("2, 4 7") as a sorted list without repeats; `null` when
 * something typed is not a seat number 1–10. */
export function parseSeats(text: string): number[] | null {
  const parts = text.split(/[\s,;]+/).filter((p) => p !== "");
  const seats: number[] = [];
  for (const p of parts) {
    if (!/^\d+$/.test(p)) return null;
    const n = Number(p);
    if (n < 1 || n > 10) return null;
    if (!seats.includes(n)) seats.push(n);
  }
  return seats.sort((a, b) => a - b);
}

/** A seat's own ruling, as people say it ("dead hand": the misdeal rule's (f)(i), (g)). */
const SEAT_RULING: Record<string, string> = { dead_hand: "dead hand", void_hand: "void hand" };

/** A seat in a few characters: "3: 2 cards", with face-up cards, acting, folding and the seat's
 * own ruling noted; a seat whose cards no device reports (a console reports play only) is
 * "seat 3 · acted". */
export function seatLabel(seat: PokerSeat): string {
  const ruled = seat.ruled ? ` · ${SEAT_RULING[seat.ruled] ?? seat.ruled.replace(/_/g, " ")}` : "";
  const state = (seat.folded ? " · folded" : seat.acted ? " · acted" : "") + ruled;
  if (seat.cards === 0) return `seat ${seat.seat}${state}`;
  const cards = `${seat.cards} card${seat.cards === 1 ? "" : "s"}`;
  const up = seat.faceUp > 0 ? `, ${seat.faceUp} up` : "";
  return `${seat.seat}: ${cards}${up}${state}`;
}

export type HandTone = "ok" | "bad" | "open" | "muted";

/** How a hand stands, for a badge: misdeal (x), defective deck, being dealt (the hand on the
 * table), cut off (closed when the stream was cut off: a restart, a lost link), dealt. */
export function handOutcome(hand: PokerHand, onTable = false): { text: string; tone: HandTone } {
  if (hand.misdeal) return { text: `misdeal (${hand.misdeal})`, tone: "bad" };
  if (hand.defectiveDeck) return { text: "defective deck", tone: "bad" };
  if (onTable) return { text: "being dealt", tone: "open" };
  if (!hand.complete) return { text: "cut off", tone: "muted" };
  if (hand.seats.length === 0 && hand.declared.length === 0) return { text: "no play seen", tone: "muted" };
  return { text: "dealt", tone: "ok" };
}

/** A declaration in words: "(d) misdeal, seats 2, 4". */
export function declaredLabel(d: { reason: string; seats: number[]; ruling: string }): string {
  const seats = d.seats.length === 0 ? "whole hand" : `seat${d.seats.length === 1 ? "" : "s"} ${d.seats.join(", ")}`;
  return `(${d.reason}) ${d.ruling.replaceAll("_", " ")}, ${seats}`;
}

/** The hand a tile counts: the one being dealt, else the last one closed; 0 before any. */
export function tileHand(play: { current: PokerHand | null; hands: readonly PokerHand[] }): number {
  return play.current?.hand ?? play.hands.at(-1)?.hand ?? 0;
}
