// Poker's entry in the UI's registry (games/index.ts): a deck and a shuffle per hand, the hand as
// the unit of play, the misdeals a supervisor declares at the console.
import type { PlayEntry } from "../entry";
import PokerHistory from "./PokerHistory.svelte";
import PokerLive from "./PokerLive.svelte";
import PokerReplayStep from "./PokerReplayStep.svelte";
import PokerRoundDetail from "./PokerRoundDetail.svelte";
import PokerTile from "./PokerTile.svelte";
import { MISDEAL_REASONS, RULINGS, handOutcome, parseSeats, tileHand, variantLabel } from "./poker";

export const poker: PlayEntry<"poker"> = {
  kind: "poker",
  shoeWord: "Deck",
  roundWord: "Hand",
  lastRound: "LAST ROUND",
  historyTitle: "Last hands",
  consoleTitle: "Declare a misdeal, or record what the devices cannot see",
  shufflerPerHand: true,
  misdeals: { reasons: MISDEAL_REASONS, rulings: RULINGS, parseSeats },
  tileRoundText: (play) => `${tileHand(play) || "–"}`,
  tileNote: (play) => variantLabel(play.variant),
  lastResult: (play) => {
    const h = play.hands.at(-1);
    return h ? `Hand ${h.hand}: ${handOutcome(h).text}` : null;
  },
  done: (play) => play.hands,
  burn: () => null,
  shoeFacts: (table, play) => ({
    before: [
      { term: "Deck", detail: `${table.shoe} (a shuffle per hand)` },
      { term: "Variant", detail: variantLabel(play.variant) },
      { term: "Hands shown", detail: `${play.hands.length}` },
    ],
    // A poker deck has no cutting card or burn.
    after: [],
  }),
  replayRound: (play) => play.hand?.round ?? play.completed?.round ?? 0,
  roundTitle: (round) => `Hand ${round.hand}`,
  Tile: PokerTile,
  Live: PokerLive,
  Roads: null,
  History: PokerHistory,
  RoundDetail: PokerRoundDetail,
  ReplayStep: PokerReplayStep,
};
