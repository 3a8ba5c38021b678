// Card codes as the Rust side sends them ("TD", "AS", null for an unreadable card), turned into
// what a card face shows.
export type SuitCode = "S" | "H" | "D" | "C";

export interface CardFace {
  /** Rank as printed on a card: A, 2–10, J, Q, K. */
  rank: string;
  suit: SuitCode;
  symbol: string;
  red: boolean;
  /** Spoken name, for screen readers and tooltips ("10 of diamonds"). */
  name: string;
}

const SUITS: Record<SuitCode, { symbol: string; name: string; red: boolean }> = {
  S: { symbol: "♠", name: "spades", red: false },
  H: { symbol: "♥", name: "hearts", red: true },
  D: { symbol: "♦", name: "diamonds", red: true },
  C: { symbol: "♣", name: "clubs", red: false },
};

const RANKS: Record<string, string> = {
  A: "A", "2": "2", "3": "3", "4": "4", "5": "5", "6": "6", "7": "7", "8": "8", "9": "9",
  T: "10", J: "J", Q: "Q", K: "K",
};

/** The face of card `code`, or null when the code is unreadable or malformed. */
export function cardFace(code: string | null | undefined): CardFace | null {
  if (code === null || code === undefined || code.length !== 2) return null;
  const rank = RANKS[code[0]?.toUpperCase() ?? ""];
  const suitCode = code[1]?.toUpperCase() as SuitCode;
  const suit = SUITS[suitCode];
  if (rank === undefined || suit === undefined) return null;
  return { rank, suit: suitCode, symbol: suit.symbol, red: suit.red, name: `${rank} of ${suit.name}` };
}

/** Baccarat points of a hand's readable cards (aces 1, tens and court cards 0), mod 10. */
export function handTotal(cards: readonly (string | null)[]): number | null {
  let total = 0;
  for (const code of cards) {
    const face = cardFace(code);
    if (face === null) return null;
    const points = face.rank === "A" ? 1 : ["10", "J", "Q", "K"].includes(face.rank) ? 0 : Number(face.rank);
    total += points;
  }
  return total % 10;
}

/** The ranks a card picker offers, in a deck's order, with the code's letter (T for ten). */
export const RANK_CHOICES: readonly { code: string; label: string }[] = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K"].map(
  (code) => ({ code, label: RANKS[code] ?? code }),
);

/** The suits a card picker offers, with their symbol and name. */
export const SUIT_CHOICES: readonly { code: SuitCode; label: string }[] = (Object.keys(SUITS) as SuitCode[]).map((code) => ({
  code,
  label: `${SUITS[code].symbol} ${SUITS[code].name}`,
}));

/** The code a picker's rank and suit make ("TD"), or "" while either is not chosen (a card not seen). */
export function pickedCard(rank: string, suit: string): string {
  const code = `${rank}${suit}`;
  return rank !== "" && suit !== "" && cardFace(code) !== null ? code : "";
}
