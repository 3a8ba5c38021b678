// What every game gives the screens (the UI's game seam): its labels, the facts the screens print
// and its components. Each game's entry lives in its own folder (`games/<game>/index.ts`) and the
// registry (`games/index.ts`) holds one per game; the screens render through it and never
// compare `game`.
import type { Component } from "svelte";
import type { GameRoundResult, ReplayPlay, TablePlay, TableTile } from "../lib/bindings";

/** The tags the DTOs carry in `play.game` and `round.game` (a variant shares its game's tag). */
export type PlayKind = TablePlay["game"];

/** A table's play of one game. */
export type TablePlayOf<K extends PlayKind> = Extract<TablePlay, { game: K }>;

/** A replay step's play of one game. */
export type ReplayPlayOf<K extends PlayKind> = Extract<ReplayPlay, { game: K }>;

/** An incident's round of one game. */
export type RoundOf<K extends PlayKind> = Extract<GameRoundResult, { game: K }>;

/** A round (or hand) of one game once it is complete, as the histories list them. */
export type DoneOf<K extends PlayKind> = NonNullable<ReplayPlayOf<K>["completed"]>;

/** One line of a table's shoe panel: a term and its value, as text. */
export type Fact = { term: string; detail: string };

/** The burn, where the game's play tracks one. */
export type Burn = { due: boolean; done: boolean };

/** What a supervisor may declare at the console as a misdeal, where the game has misdeals. */
export type Misdeals = {
  /** The lettered reasons of the game's rule book, in a few words each. */
  reasons: ReadonlyArray<{ letter: string; label: string }>;
  /** The rulings given with a declaration. */
  rulings: ReadonlyArray<{ value: string; label: string }>;
  /** The seats typed at the console as a sorted list, `null` when they are not seat numbers. */
  parseSeats: (text: string) => number[] | null;
};

/** One game's part of the registry: everything the screens need that differs by game. */
export interface PlayEntry<K extends PlayKind> {
  kind: K;
  /** What the cards are dealt from: "Shoe", or "Deck" where each hand has a shuffle of its own. */
  shoeWord: string;
  /** What one deal is called on the tile: "Round" or "Hand". */
  roundWord: string;
  /** The cutting card's warning: the next round is the last ("LAST COUP", "LAST ROUND"). */
  lastRound: string;
  /** The heading of the table view's history. */
  historyTitle: string;
  /** The heading of the table view's console. */
  consoleTitle: string;
  /** Whether the shuffler prepares each hand's deck, so the tile shows its last deck check. */
  shufflerPerHand: boolean;
  /** The misdeals the console offers, or `null` when the game has none. */
  misdeals: Misdeals | null;
  /** The round (or hand) on the table as the tile counts it. */
  tileRoundText: (play: TablePlayOf<K>) => string;
  /** A note after the tile's count (the variant dealt), or `null`. */
  tileNote: (play: TablePlayOf<K>) => string | null;
  /** The last completed round's result in words, for the compact tile ("Round 41: Banker 7 to 5"), or `null` before one. */
  lastResult: (play: TablePlayOf<K>) => string | null;
  /** The completed rounds the table shows, oldest first. */
  done: (play: TablePlayOf<K>) => DoneOf<K>[];
  /** The burn, when the game's play tracks one (`null`: it does not). */
  burn: (play: TablePlayOf<K> | ReplayPlayOf<K>) => Burn | null;
  /** The shoe panel's lines before and after the cards dealt and left. */
  shoeFacts: (table: TableTile, play: TablePlayOf<K>) => { before: Fact[]; after: Fact[] };
  /** The round on the table at a replay step (being dealt or just completed; 0 before any). */
  replayRound: (play: ReplayPlayOf<K>) => number;
  /** An incident's round by its name: "Round 12", "Hand 7". */
  roundTitle: (round: RoundOf<K>) => string;
  /** The tile's round on the table and its last results. */
  Tile: Component<{ table: TableTile; play: TablePlayOf<K> }>;
  /** The table view's felt: the round being dealt. */
  Live: Component<{ table: TableTile; play: TablePlayOf<K> }>;
  /** The shoe's roads, where the game draws them (table view and replay). */
  Roads: Component<{ rounds: DoneOf<K>[] }> | null;
  /** The completed rounds as a table, newest first. */
  History: Component<{ rounds: DoneOf<K>[] }>;
  /** An incident's round as it was dealt. */
  RoundDetail: Component<{ round: RoundOf<K> }>;
  /** The table at a replay step. */
  ReplayStep: Component<{ play: ReplayPlayOf<K> }>;
}
