import { describe, expect, it } from "vitest";
import { render } from "svelte/server";
import type { BlackjackRound, Game, GameRoundResult, PokerHand, ReplayPlay, RoundResult, TablePlay, TableTile } from "../lib/bindings";
import TableCard from "../components/TableCard.svelte";
import TableView from "../components/TableView.svelte";
import { GAMES, PLAYS, gameLabel, playEntry, type PlayKind } from ".";
import bindings from "../lib/bindings.ts?raw";

// The tags the generated bindings declare: a new game or kind of play there must get an entry.
function declared(type: string): string[] {
  const line = bindings.split("\n").find((l) => l.startsWith(`export type ${type} = `));
  if (!line) throw new Error(`bindings.ts declares no ${type}`);
  return [...line.matchAll(/"([a-z_]+)"/g)].map((m) => m[1] ?? "").filter((t) => t !== "game");
}

const result = (round: number, outcome: RoundResult["outcome"]): RoundResult => ({
  shoe: 2, round, player: ["9S", "KH"], banker: ["2C", "3D"], playerTotal: 9, bankerTotal: 5, outcome, playerPair: false, bankerPair: false, firstSeq: round * 10, lastSeq: round * 10 + 4,
});
const bjRound = (round: number, complete: boolean): BlackjackRound => ({
  shoe: 3, round, dealer: ["9D", "8C"], dealerTotal: 17, dealerSoft: false, dealerBlackjack: false,
  boxes: [{ number: 1, hands: [{ cards: ["TS", "7H"], total: 17, soft: false, doubled: false, split: false, outcome: complete ? "win" : null, pays: complete ? "+1" : null, rule: null }], sideBets: [] }],
  complete, firstSeq: round * 10, lastSeq: round * 10 + 6,
});
const hand = (n: number, extra: Partial<PokerHand> = {}): PokerHand => ({
  variant: "texas_holdem", hand: n, shoe: n, round: 1, seats: [{ seat: 2, cards: 2, faceUp: 0, acted: true, folded: false, ruled: null }], misdeal: null, declared: [],
  substantialActionSeq: null, defectiveDeck: false, complete: true, firstSeq: n * 10, lastSeq: n * 10 + 9, ...extra,
});

/** A table play, a replay step's play and an incident's round for each kind of play. */
const SAMPLES: { [K in PlayKind]: { play: Extract<TablePlay, { game: K }>; step: Extract<ReplayPlay, { game: K }>; round: Extract<GameRoundResult, { game: K }>; game: Game } } = {
  baccarat: {
    game: "baccarat",
    play: { game: "baccarat", burnDue: true, burnDone: false, current: { round: 3, player: ["9S"], banker: [], result: null }, rounds: [result(1, "player"), result(2, "banker")] },
    step: { game: "baccarat", round: 2, player: ["9S", "KH"], banker: ["2C", "3D"], burnDue: true, burnDone: true, completed: result(2, "banker") },
    round: { game: "baccarat", ...result(2, "banker") },
  },
  blackjack: {
    game: "pontoon",
    play: { game: "blackjack", current: bjRound(4, false), rounds: [bjRound(2, true), bjRound(3, true)] },
    step: { game: "blackjack", round: bjRound(3, true), completed: bjRound(3, true) },
    round: { game: "blackjack", ...bjRound(3, true) },
  },
  poker: {
    game: "poker",
    play: { game: "poker", variant: "texas_holdem", current: null, hands: [hand(5), hand(6, { misdeal: "h" })] },
    step: { game: "poker", hand: hand(7, { complete: false }), completed: null },
    round: { game: "poker", ...hand(6) },
  },
};

function tile(game: Game, play: TablePlay, extra: Partial<TableTile> = {}): TableTile {
  return {
    name: "T-1", game, ruleBook: "nz-book", protocol: "pitwatch", link: "simulated", status: "connected", statusDetail: "", lastFrameMs: null,
    devices: [{ role: "console", protocol: "pitwatch", link: "simulated", status: "connected", statusDetail: "", lastCheck: null, shuffling: false, counters: null, alarm: null, identity: null },
      { role: "shuffler", protocol: "pitwatch", link: "simulated", status: "connected", statusDetail: "", lastCheck: null, shuffling: false, counters: null, alarm: null, identity: null }],
    framesAccepted: 0, framesRejected: 0, lastEventAtMs: null, oldestUnsentAtMs: null, shoe: 2, cardsDealt: 30, cardsLeft: null, cuttingCardOut: true,
    play, incidents: { critical: 0, high: 0, medium: 0, low: 0 }, lastShuffle: null, shuffleSteps: [], alarm: null, disabled: null, ...extra,
  };
}

const kinds = Object.keys(PLAYS) as PlayKind[];
/** The text of rendered HTML, tags and Svelte's markers left out. */
const text = (html: string) => html.replace(/<!--[^>]*-->/g, "").replace(/<[^>]+>/g, "").replace(/\s+/g, " ");

describe("the registry", () => {
  it("has an entry for every game and every kind of play the bindings declare", () => {
    expect(Object.keys(GAMES).sort()).toEqual(declared("Game").sort());
    for (const type of ["TablePlay", "ReplayPlay", "GameRoundResult"]) expect(kinds.slice().sort()).toEqual(declared(type).sort());
    for (const g of Object.values(GAMES)) expect(kinds).toContain(g.play);
    for (const k of kinds) expect(PLAYS[k].kind).toBe(k);
  });

  it("names every game for people, a variant with its own name", () => {
    expect(Object.entries(GAMES).map(([g]) => gameLabel(g as Game))).toEqual(["Baccarat", "Blackjack", "Pontoon", "Poker"]);
    expect(GAMES.pontoon.play).toBe("blackjack");
  });

  it("picks the entry by the value's own tag", () => {
    for (const k of kinds) {
      const s = SAMPLES[k];
      expect(playEntry(s.play)).toBe(PLAYS[k]);
      expect(playEntry(s.step)).toBe(PLAYS[k]);
      expect(playEntry(s.round)).toBe(PLAYS[k]);
    }
  });

  it("gives each game the words the screens print", () => {
    for (const k of kinds) {
      const e = PLAYS[k];
      for (const word of [e.shoeWord, e.roundWord, e.lastRound, e.historyTitle, e.consoleTitle]) expect(word).not.toBe("");
    }
    expect(PLAYS.baccarat.lastRound).toBe("LAST COUP");
    expect(PLAYS.poker.shoeWord).toBe("Deck");
    expect(PLAYS.poker.misdeals?.reasons.map((r) => r.letter).join("")).toBe("abcdefghijkl");
    expect(PLAYS.baccarat.misdeals).toBeNull();
  });

  it("counts rounds, the burn and the round on the table by each game's rules", () => {
    const { baccarat, blackjack, poker } = SAMPLES;
    expect(PLAYS.baccarat.tileRoundText(baccarat.play)).toBe("3");
    expect(PLAYS.blackjack.tileRoundText(blackjack.play)).toBe("4");
    expect(PLAYS.poker.tileRoundText(poker.play)).toBe("6");
    expect(PLAYS.poker.tileRoundText({ ...poker.play, hands: [] })).toBe("–");
    expect(PLAYS.poker.tileNote(poker.play)).toBe("Texas Hold'em");
    expect(PLAYS.baccarat.done(baccarat.play).map((r) => r.round)).toEqual([1, 2]);
    expect(PLAYS.poker.done(poker.play).map((h) => h.hand)).toEqual([5, 6]);
    expect(PLAYS.baccarat.burn(baccarat.play)).toEqual({ due: true, done: false });
    expect(PLAYS.blackjack.burn(blackjack.play)).toBeNull();
    expect(PLAYS.baccarat.replayRound(baccarat.step)).toBe(2);
    expect(PLAYS.blackjack.replayRound(blackjack.step)).toBe(3);
    expect(PLAYS.poker.replayRound(poker.step)).toBe(1);
    expect(PLAYS.baccarat.roundTitle(baccarat.round)).toBe("Round 2");
    expect(PLAYS.poker.roundTitle(poker.round)).toBe("Hand 6");
  });

  it("lists each game's shoe facts around the cards dealt and left", () => {
    const t = (k: PlayKind) => tile(SAMPLES[k].game, SAMPLES[k].play);
    expect(PLAYS.baccarat.shoeFacts(t("baccarat"), SAMPLES.baccarat.play)).toEqual({
      before: [],
      after: [{ term: "Rounds", detail: "2" }, { term: "Burn", detail: "not yet" }, { term: "Cutting card", detail: "✂ out — last coup" }],
    });
    expect(PLAYS.blackjack.shoeFacts(t("blackjack"), SAMPLES.blackjack.play).after).toEqual([{ term: "Round", detail: "4" }, { term: "Cutting card", detail: "✂ out — last round" }]);
    expect(PLAYS.poker.shoeFacts(t("poker"), SAMPLES.poker.play)).toEqual({
      before: [{ term: "Deck", detail: "2 (a shuffle per hand)" }, { term: "Variant", detail: "Texas Hold'em" }, { term: "Hands shown", detail: "2" }],
      after: [],
    });
  });
});

describe("each game's components", () => {
  it("render what the screens select by", () => {
    for (const k of kinds) {
      const e = playEntry(SAMPLES[k].play);
      const s = SAMPLES[k];
      const table = tile(s.game, s.play);
      expect(render(e.Tile, { props: { table, play: s.play } }).body).toContain('data-testid="live-round"');
      expect(render(e.Live, { props: { table, play: s.play } }).body).toContain('data-testid="table-live-round"');
      expect(render(e.History, { props: { rounds: e.done(s.play) } }).body).toMatch(/data-testid="(round|hand)-history"/);
      expect(render(e.RoundDetail, { props: { round: s.round } }).body).toMatch(/data-testid="(hand-player|blackjack-round|poker-hand)"/);
      expect(render(e.ReplayStep, { props: { play: s.step } }).body).toMatch(/data-testid="(hand-player|blackjack-round|poker-hand)"/);
      if (e.Roads) expect(render(e.Roads, { props: { rounds: e.done(s.play) } }).body).toContain('data-testid="bead-plate"');
    }
    expect(PLAYS.baccarat.Roads).not.toBeNull();
    expect(PLAYS.poker.Roads).toBeNull();
  });

  it("fill the tile with each game's counts", () => {
    const shown = (k: PlayKind) => render(TableCard, { props: { table: tile(SAMPLES[k].game, SAMPLES[k].play), now: 0, onopen: () => {} } }).body;
    const bac = shown("baccarat");
    expect(bac).toContain('data-rounds="2"');
    expect(text(bac)).toContain("Shoe 2 Round 3 30 dealt … burn ✂ LAST COUP");
    expect(text(bac)).toContain("Baccarat · nz-book");
    const pon = shown("blackjack");
    expect(text(pon)).toContain("Shoe 2 Round 4 30 dealt ✂ LAST ROUND");
    expect(text(pon)).toContain("Pontoon · nz-book");
    const pok = shown("poker");
    expect(text(pok)).toContain("Deck 2 Hand 6 Texas Hold'em 30 dealt ✂ LAST ROUND");
    // Poker's shuffler prepares each hand's deck: its last check is on the tile as well as its line
    // among the other devices.
    const shufflerLines = (html: string) => html.split('data-role="shuffler"').length - 1;
    expect(shufflerLines(pok)).toBe(2);
    expect(shufflerLines(bac)).toBe(1);
  });

  it("fill the table view with each game's felt, history, facts and console", () => {
    const shown = (k: PlayKind) =>
      render(TableView, {
        props: { table: tile(SAMPLES[k].game, SAMPLES[k].play), now: 0, incidents: [], loggedIn: true, role: "supervisor", onback: () => {}, onincident: () => {}, onreplay: () => {} },
      }).body;
    const bac = shown("baccarat");
    expect(text(bac)).toContain("Rounds this shoe");
    expect(bac).toContain('data-testid="bead-plate"');
    const squeezed = (html: string) => text(html).replace(/ /g, "");
    expect(squeezed(bac)).toContain("ShoeCardsdealt30CardsleftunknownRounds2BurnnotyetCuttingcard✂out—lastcoup");
    expect(bac).not.toContain('value="misdeal"');
    const pok = shown("poker");
    expect(text(pok)).toContain("Last hands");
    expect(pok).not.toContain('data-testid="bead-plate"');
    expect(squeezed(pok)).toContain("DeckDeck2(ashuffleperhand)VariantTexasHold'emHandsshown2Cardsdealt30Cardsleftunknown");
    expect(text(pok)).toContain("Declare a misdeal, or record what the devices cannot see");
    expect(pok).toContain('value="misdeal"');
    expect(pok).toContain('data-testid="misdeal-reason"');
    expect(text(shown("blackjack"))).toContain("Last rounds this shoe");
  });
});

describe("knownGame", () => {
  it("names a game this window knows, and nothing else", async () => {
    const { knownGame, gameLabel } = await import("./index");
    expect(knownGame("pontoon")).toBe("pontoon");
    expect(gameLabel(knownGame("pontoon")!)).toBe("Pontoon");
    expect(knownGame("toString")).toBeNull();
    expect(knownGame("=cmd|' /C calc'!A0")).toBeNull();
  });
});
