// Pure view logic for Blackjack and Pontoon tables: how a hand, the dealer, an outcome, a payout
// and a side bet read on a tile, the table view and the replay, and a round's net to the boxes.
import type { BlackjackHand, BlackjackRound, HandOutcome, SideBetResult } from "../../lib/bindings";

export const OUTCOME_LABEL: Record<HandOutcome, string> = {
  blackjack: "Blackjack",
  win: "Win",
  lose: "Lose",
  push: "Push",
  surrender: "Surrender",
};

/** Short outcome letters for a tile's history dots. */
export const OUTCOME_LETTER: Record<HandOutcome, string> = {
  blackjack: "BJ",
  win: "W",
  lose: "L",
  push: "P",
  surrender: "S",
};

/** What the history's and the tile's letters and numbers mean, for the legend. */
export const OUTCOME_LEGEND: readonly { mark: string; words: string }[] = [
  { mark: OUTCOME_LETTER.blackjack, words: "blackjack" },
  { mark: OUTCOME_LETTER.win, words: "the hand won" },
  { mark: OUTCOME_LETTER.lose, words: "the hand lost" },
  { mark: OUTCOME_LETTER.push, words: "push (a stand-off: the bet returned)" },
  { mark: OUTCOME_LETTER.surrender, words: "surrendered (half the bet returned)" },
  { mark: "+1.5 · −1", words: "what a hand, or all the boxes together, won or lost, in bets (a chip on the tile is one round's net)" },
];

/** A total as a supervisor says it: "soft 17", "21", "bust 24", "–" with no cards, "?" unknown. */
export function totalLabel(cards: readonly (string | null)[], total: number | null, soft: boolean): string {
  if (cards.length === 0) return "–";
  if (total === null) return "?";
  if (total > 21) return `bust ${total}`;
  return soft ? `soft ${total}` : `${total}`;
}

/** A hand's total ("soft 17", "bust 24"). */
export function handLabel(hand: BlackjackHand): string {
  return totalLabel(hand.cards, hand.total, hand.soft);
}

/** The dealer's total, "Blackjack" for a natural. */
export function dealerLabel(round: BlackjackRound): string {
  if (round.dealerBlackjack) return "Blackjack";
  return totalLabel(round.dealer, round.dealerTotal, round.dealerSoft);
}

/** Whether a payout (signed text from the engine, "+1.5", "-1", "0") wins, loses or stands off. */
export function paysTone(pays: string | null): "win" | "lose" | "push" | "unknown" {
  if (pays === null) return "unknown";
  const n = Number(pays);
  if (!Number.isFinite(n)) return "unknown";
  return n > 0 ? "win" : n < 0 ? "lose" : "push";
}

/** A payout in units of the box's wager, as a cashier reads it: "+1.5×", "−2×", "0". */
export function paysLabel(pays: string | null): string {
  if (pays === null) return "?";
  const n = Number(pays);
  if (!Number.isFinite(n)) return "?";
  if (n === 0) return "0";
  return `${n > 0 ? "+" : "−"}${Math.abs(n)}×`;
}

/** A side bet in words: "Super Sevens: 2 sevens suited +50×", "Insurance −0.5×". */
export function sideBetLabel(bet: SideBetResult): string {
  const name = bet.bet === "super_sevens" ? "Super Sevens" : bet.bet === "insurance" ? "Insurance" : bet.bet.replace(/_/g, " ");
  const parts = [name + ":"];
  if (bet.sevens !== null) parts.push(`${bet.sevens} seven${bet.sevens === 1 ? "" : "s"}${bet.suited ? " suited" : ""}`);
  parts.push(paysLabel(bet.pays));
  return parts.join(" ");
}

/** Side bets worth showing: those the cards won (a losing Super Sevens is every box's, every round). */
export function winningSideBets(bets: readonly SideBetResult[]): SideBetResult[] {
  return bets.filter((b) => paysTone(b.pays) === "win");
}

/**
 * What the boxes won (positive) or lost in all, in units of a box's wager, hands only (side bets
 * are staked separately); null while any hand is unsettled.
 */
/**
 * A round's chip among the tile's last rounds: what the boxes together netted, or why there is no
 * figure: a round not seen whole (cut off by a restart or a lost link, or joined part-way after
 * one) is marked as such and was not judged; a settled round with a payout unknown shows "?".
 */
export function roundChip(round: BlackjackRound): { text: string; tone: "win" | "lose" | "push" | "unknown"; title: string } {
  const hands = round.boxes.flatMap((b) => b.hands.map((h) => (h.outcome ? OUTCOME_LETTER[h.outcome] : "?"))).join(" ");
  if (!round.complete) {
    return {
      text: "part",
      tone: "unknown",
      title: `Round ${round.round}: not seen whole (cut off by a restart or a lost link, or joined part-way after one), so not judged`,
    };
  }
  const net = boxesNet(round);
  const text = net === null ? "?" : net > 0 ? `+${net}` : `${net}`;
  const tone = net === null ? "unknown" : net > 0 ? "win" : net < 0 ? "lose" : "push";
  return { text, tone, title: `Round ${round.round}: ${hands}` };
}

export function boxesNet(round: BlackjackRound): number | null {
  let sum = 0;
  for (const b of round.boxes) {
    for (const h of b.hands) {
      if (h.pays === null) return null;
      const n = Number(h.pays);
      if (!Number.isFinite(n)) return null;
      sum += n;
    }
  }
  return Math.round(sum * 100) / 100;
}

/** How many hands each outcome had in a round, for a tile's one-line summary ("2 W · 1 L · 1 BJ"). */
export function outcomeCounts(round: BlackjackRound): { outcome: HandOutcome; count: number }[] {
  const order: HandOutcome[] = ["blackjack", "win", "push", "surrender", "lose"];
  const counts = new Map<HandOutcome, number>();
  for (const b of round.boxes) for (const h of b.hands) if (h.outcome) counts.set(h.outcome, (counts.get(h.outcome) ?? 0) + 1);
  return order.filter((o) => counts.has(o)).map((outcome) => ({ outcome, count: counts.get(outcome) ?? 0 }));
}

/** A box's label: "Box 3", or "Box 3 · 2" for the second hand of a split. */
export function boxLabel(box: number, hand: number, hands: number): string {
  return hands > 1 ? `Box ${box} · ${hand + 1}` : `Box ${box}`;
}

/** The round as it stands, in words: "dealing…", or the dealer's result. */
export function roundState(round: BlackjackRound | null): string {
  if (round === null) return "waiting for the first round…";
  if (!round.complete) return "dealing…";
  return `dealer ${dealerLabel(round)}`;
}
