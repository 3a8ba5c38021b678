// The table view's console: what a supervisor records that the devices cannot see, from the
// form's fields to the entry sent to the desk. Pure, so it is unit-tested without a DOM.
import type { ApiError, ConsoleEntry } from "./bindings";

/** The console form's fields, as typed or picked. */
export type ConsoleForm = {
  kind: ConsoleEntry["kind"];
  /** An exposed card's code ("TD"; empty: not known) and when it was exposed. */
  card: string;
  during: string;
  /** A player's cut position. */
  position: number;
  /** A preparation step the rule book requires. */
  step: string;
  /** A declared misdeal: its reason's letter, the seats typed, the ruling. */
  reason: string;
  seats: string;
  ruling: string;
  /** A dealer signing in or out: their name as typed (kept exactly; the desk refuses a blank). */
  dealer: string;
};

/** A fresh form; where the game has misdeals, the first entry offered is a declared misdeal. */
export function newConsoleForm(misdeals: boolean): ConsoleForm {
  return { kind: misdeals ? "misdeal" : "card_exposed", card: "", during: "cutting", position: 0, step: "chemmy", reason: "a", seats: "", ruling: "misdeal", dealer: "" };
}

/**
 * The entry the form describes, or why it cannot be sent. `parseSeats` reads a misdeal's seats
 * (the game's; null where the game has no misdeals).
 */
export function consoleEntry(form: ConsoleForm, parseSeats: ((text: string) => number[] | null) | null): { entry: ConsoleEntry } | { error: ApiError } {
  switch (form.kind) {
    case "card_exposed":
      return { entry: { kind: "card_exposed", card: form.card.trim() === "" ? null : form.card.trim(), during: form.during } };
    case "cut":
      return { entry: { kind: "cut", position: Number(form.position) } };
    case "cards_replaced":
      return { entry: { kind: "cards_replaced" } };
    case "table_vacant":
      return { entry: { kind: "table_vacant" } };
    case "misdeal": {
      const seats = parseSeats?.(form.seats) ?? null;
      if (seats === null) return { error: { code: "invalid_input", message: `"${form.seats}" is not a list of seat numbers 1 to 10.` } };
      return { entry: { kind: "misdeal", reason: form.reason, seats, ruling: form.ruling } };
    }
    case "shuffle_step":
      return { entry: { kind: "shuffle_step", step: form.step } };
    case "dealer_signed_in":
    case "dealer_signed_out":
      if (form.dealer.trim() === "") return { error: { code: "invalid_input", message: "Type the dealer's name." } };
      return { entry: { kind: form.kind, dealer: form.dealer } };
  }
}
