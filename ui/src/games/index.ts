// The UI's registry of games: per game its label and, per kind of play, the entry that holds its
// words, facts and components (each in the game's own folder). Screens and libraries render
// through it and never compare `game`; only this file and a game's folder name a game.
import type { Game } from "../lib/bindings";
import { baccarat } from "./baccarat";
import { blackjack } from "./blackjack";
import type { PlayEntry, PlayKind } from "./entry";
import { poker } from "./poker";

export type { PlayEntry, PlayKind } from "./entry";

/** Every kind of play the DTOs carry, with its entry. */
export const PLAYS: { readonly [K in PlayKind]: PlayEntry<K> } = { baccarat, blackjack, poker };

/** Every game a table may deal: its name for people, the kind of play it reports and its built-in rule book. */
export const GAMES: { readonly [G in Game]: { label: string; play: PlayKind; book: string } } = {
  baccarat: { label: "Baccarat", play: "baccarat", book: "nz-baccarat" },
  blackjack: { label: "Blackjack", play: "blackjack", book: "nz-blackjack" },
  pontoon: { label: "Pontoon", play: "blackjack", book: "nz-pontoon" },
  poker: { label: "Poker", play: "poker", book: "nz-poker" },
};

/** A game's name for people ("Pontoon"). */
export function gameLabel(game: Game): string {
  return GAMES[game].label;
}

/** The game a name from outside (a central copy's row) names, if it is one this window knows. */
export function knownGame(name: string): Game | null {
  return Object.prototype.hasOwnProperty.call(GAMES, name) ? (name as Game) : null;
}

/**
 * The entry for a play, a replay step's play or an incident's round, by its own tag. The entry is
 * picked by the value's tag, so its functions and components take that value; TypeScript cannot
 * follow that correlation through the union, hence the one widening here.
 */
export function playEntry(value: { readonly game: PlayKind }): PlayEntry<PlayKind> {
  return PLAYS[value.game] as unknown as PlayEntry<PlayKind>;
}
