// Baccarat roads derived from a shoe's rounds: the bead plate and the big road.
import type { RoundOutcome, RoundResult } from "../../lib/bindings";

export const ROAD_ROWS = 6;

export interface BeadCell {
  col: number;
  row: number;
  outcome: RoundOutcome | null;
  round: number;
  playerPair: boolean;
  bankerPair: boolean;
}

/** Every round in order, filling columns of six top to bottom, left to right. */
export function beadPlate(rounds: readonly RoundResult[], rows = ROAD_ROWS): BeadCell[] {
  return rounds.map((r, i) => ({
    col: Math.floor(i / rows),
    row: i % rows,
    outcome: r.outcome,
    round: r.round,
    playerPair: r.playerPair,
    bankerPair: r.bankerPair,
  }));
}

export interface BigRoadCell {
  col: number;
  row: number;
  outcome: "player" | "banker";
  /** Ties that followed this result (shown as a line across the cell, with the count). */
  ties: number;
  round: number;
  playerPair: boolean;
  bankerPair: boolean;
}

/**
 * The big road: a column per streak of Player or Banker wins. Ties do not take a cell; they mark
 * the cell before them (ties before the first decision mark the first cell). A streak longer than
 * the column, or one that meets a cell already taken, turns right along its row (the dragon tail).
 * Void rounds and rounds with no known outcome are left out.
 */
export function bigRoad(rounds: readonly RoundResult[], rows = ROAD_ROWS): BigRoadCell[] {
  const cells: BigRoadCell[] = [];
  const taken = new Set<string>();
  const key = (c: number, r: number) => `${c},${r}`;
  let streak = -1;
  let col = 0;
  let row = 0;
  let turned = false;
  let leadingTies = 0;
  for (const r of rounds) {
    if (r.outcome === "tie") {
      const last = cells[cells.length - 1];
      if (last) last.ties += 1;
      else leadingTies += 1;
      continue;
    }
    if (r.outcome !== "player" && r.outcome !== "banker") continue;
    const last = cells[cells.length - 1];
    if (last === undefined || last.outcome !== r.outcome) {
      streak += 1;
      col = streak;
      row = 0;
      turned = false;
      // A long dragon tail can reach into this column's top row; start right of it.
      while (taken.has(key(col, row))) col += 1;
    } else if (!turned && row + 1 < rows && !taken.has(key(col, row + 1))) {
      row += 1;
    } else {
      turned = true;
      col += 1;
    }
    taken.add(key(col, row));
    cells.push({
      col,
      row,
      outcome: r.outcome,
      ties: cells.length === 0 ? leadingTies : 0,
      round: r.round,
      playerPair: r.playerPair,
      bankerPair: r.bankerPair,
    });
  }
  return cells;
}

/** Columns a road needs (at least `min`, so an empty road still has its grid). */
export function roadWidth(cells: readonly { col: number }[], min = 12): number {
  return Math.max(min, ...cells.map((c) => c.col + 1));
}

/** Wins per outcome in a shoe. */
export function tally(rounds: readonly RoundResult[]): { player: number; banker: number; tie: number } {
  const t = { player: 0, banker: 0, tie: 0 };
  for (const r of rounds) if (r.outcome === "player" || r.outcome === "banker" || r.outcome === "tie") t[r.outcome] += 1;
  return t;
}

/** Lengths of the big road's streaks (its logical columns, before any dragon tail turns). */
export function streaks(rounds: readonly RoundResult[]): number[] {
  const lengths: number[] = [];
  let last: "player" | "banker" | null = null;
  for (const r of rounds) {
    if (r.outcome !== "player" && r.outcome !== "banker") continue;
    if (r.outcome === last) lengths[lengths.length - 1] = (lengths[lengths.length - 1] ?? 0) + 1;
    else lengths.push(1);
    last = r.outcome;
  }
  return lengths;
}

export type DerivedColour = "red" | "blue";

export interface DerivedCell {
  col: number;
  row: number;
  colour: DerivedColour;
}

/** Lays out a sequence of marks in streaks like the big road (new column on change, tails right). */
function layout(colours: readonly DerivedColour[], rows: number): DerivedCell[] {
  const cells: DerivedCell[] = [];
  const taken = new Set<string>();
  const key = (c: number, r: number) => `${c},${r}`;
  let streak = -1;
  let col = 0;
  let row = 0;
  let turned = false;
  for (const colour of colours) {
    const last = cells[cells.length - 1];
    if (last === undefined || last.colour !== colour) {
      streak += 1;
      col = streak;
      row = 0;
      turned = false;
      while (taken.has(key(col, row))) col += 1;
    } else if (!turned && row + 1 < rows && !taken.has(key(col, row + 1))) {
      row += 1;
    } else {
      turned = true;
      col += 1;
    }
    taken.add(key(col, row));
    cells.push({ col, row, colour });
  }
  return cells;
}

/**
 * A derived road: the big eye boy (`offset` 1), small road (2) or cockroach pig (3). Each big-road
 * entry from the first with a column `offset` back to compare with gets a mark: red when the road
 * repeats itself (a new column as long as the one `offset` + 1 back; or, down a column, the column
 * `offset` back has a cell on this row or lacks the one above it too), blue when it does not.
 */
export function derivedRoad(rounds: readonly RoundResult[], offset: 1 | 2 | 3, rows = ROAD_ROWS): DerivedCell[] {
  const lengths = streaks(rounds);
  const colours: DerivedColour[] = [];
  lengths.forEach((length, c) => {
    for (let r = 0; r < length; r++) {
      if (r === 0) {
        if (c < offset + 1) continue;
        colours.push(lengths[c - 1] === lengths[c - 1 - offset] ? "red" : "blue");
      } else {
        if (c < offset) continue;
        const reference = lengths[c - offset] ?? 0;
        colours.push(reference >= r + 1 ? "red" : reference === r ? "blue" : "red");
      }
    }
  });
  return layout(colours, rows);
}

/** What the roads' letters, marks and colours mean, for the legend under them. */
export const ROAD_LEGEND: readonly { mark: string; words: string }[] = [
  { mark: "P · B · T", words: "Player, Banker, Tie won the round (bead plate; blue, red, green)" },
  { mark: "small dots", words: "a pair: top left the Banker's, bottom right the Player's" },
  { mark: "rings", words: "big road: a column per run of wins by one side (blue Player, red Banker)" },
  { mark: "green slash", words: "a tie, on the round before it (a number: that many ties)" },
  { mark: "red · blue", words: "big eye boy, small road, cockroach pig: red where the big road repeats its pattern, blue where it breaks it" },
];
