// A Baccarat round's result in words, for the compact tile and the history.
import type { RoundResult } from "../../lib/bindings";

/** Who won, in words: "Banker", "Player", "Tie", "Void". */
export const OUTCOME_WORD: Readonly<Record<NonNullable<RoundResult["outcome"]>, string>> = {
  banker: "Banker",
  player: "Player",
  tie: "Tie",
  void: "Void",
};

/** A Baccarat round's result in words: "Banker 7 to 5", "Tie 6 to 6", "result unknown" when unread. */
export function baccaratResult(r: RoundResult): string {
  const totals = r.playerTotal !== null && r.bankerTotal !== null;
  switch (r.outcome) {
    case "banker":
      return totals ? `Banker ${r.bankerTotal} to ${r.playerTotal}` : "Banker";
    case "player":
      return totals ? `Player ${r.playerTotal} to ${r.bankerTotal}` : "Player";
    case "tie":
      return totals ? `Tie ${r.playerTotal} to ${r.bankerTotal}` : "Tie";
    default:
      return r.outcome === null ? "result unknown" : OUTCOME_WORD[r.outcome];
  }
}
