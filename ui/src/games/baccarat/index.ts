// Baccarat's entry in the UI's registry (games/index.ts): its words, facts and components.
import type { PlayEntry } from "../entry";
import BaccaratHistory from "./BaccaratHistory.svelte";
import BaccaratLive from "./BaccaratLive.svelte";
import BaccaratReplayStep from "./BaccaratReplayStep.svelte";
import BaccaratRoundDetail from "./BaccaratRoundDetail.svelte";
import BaccaratTile from "./BaccaratTile.svelte";
import Roads from "./Roads.svelte";
import { baccaratResult } from "./result";

export const baccarat: PlayEntry<"baccarat"> = {
  kind: "baccarat",
  shoeWord: "Shoe",
  roundWord: "Round",
  lastRound: "LAST COUP",
  historyTitle: "Rounds this shoe",
  consoleTitle: "Record what the shoe cannot see",
  shufflerPerHand: false,
  misdeals: null,
  tileRoundText: (play) => `${play.current.round}`,
  tileNote: () => null,
  lastResult: (play) => {
    const r = play.rounds.at(-1);
    return r ? `Round ${r.round}: ${baccaratResult(r)}` : null;
  },
  done: (play) => play.rounds,
  burn: (play) => ({ due: play.burnDue, done: play.burnDone }),
  shoeFacts: (table, play) => ({
    before: [],
    after: [
      { term: "Rounds", detail: `${play.rounds.length}` },
      { term: "Burn", detail: play.burnDue ? (play.burnDone ? "✓ done" : "not yet") : "none due" },
      { term: "Cutting card", detail: table.cuttingCardOut ? "✂ out — last coup" : "in the shoe" },
    ],
  }),
  replayRound: (play) => play.round,
  roundTitle: (round) => `Round ${round.round}`,
  Tile: BaccaratTile,
  Live: BaccaratLive,
  Roads,
  History: BaccaratHistory,
  RoundDetail: BaccaratRoundDetail,
  ReplayStep: BaccaratReplayStep,
};
