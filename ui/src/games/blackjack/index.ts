// Blackjack's entry in the UI's registry (games/index.ts), Pontoon's too: a Pontoon table's play
// is Blackjack's, and its rule book says what differs.
import type { PlayEntry } from "../entry";
import { boxesNet } from "./blackjack";
import BlackjackHistory from "./BlackjackHistory.svelte";
import BlackjackLive from "./BlackjackLive.svelte";
import BlackjackReplayStep from "./BlackjackReplayStep.svelte";
import BlackjackRoundDetail from "./BlackjackRoundDetail.svelte";
import BlackjackTile from "./BlackjackTile.svelte";

export const blackjack: PlayEntry<"blackjack"> = {
  kind: "blackjack",
  shoeWord: "Shoe",
  roundWord: "Round",
  lastRound: "LAST ROUND",
  historyTitle: "Last rounds this shoe",
  consoleTitle: "Record what the shoe cannot see",
  shufflerPerHand: false,
  misdeals: null,
  tileRoundText: (play) => `${play.current?.round ?? 0}`,
  tileNote: () => null,
  lastResult: (play) => {
    const r = play.rounds.at(-1);
    if (!r) return null;
    const net = boxesNet(r);
    return `Round ${r.round}: ${net === null ? "boxes not settled" : `boxes net ${net > 0 ? "+" : ""}${net}`}`;
  },
  done: (play) => play.rounds,
  burn: () => null,
  shoeFacts: (table, play) => ({
    before: [],
    after: [
      { term: "Round", detail: `${play.current?.round ?? "–"}` },
      { term: "Cutting card", detail: table.cuttingCardOut ? "✂ out — last round" : "in the shoe" },
    ],
  }),
  replayRound: (play) => play.round?.round ?? 0,
  roundTitle: (round) => `Round ${round.round}`,
  Tile: BlackjackTile,
  Live: BlackjackLive,
  Roads: null,
  History: BlackjackHistory,
  RoundDetail: BlackjackRoundDetail,
  ReplayStep: BlackjackReplayStep,
};
