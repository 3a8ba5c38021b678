//! The boundary's registry of games: what is on a table, an incident's round and a replay's step,
//! each a union tagged by `game` over the games' own DTOs (one module per game: [`baccarat`],
//! [`blackjack`] for Blackjack and Pontoon, [`poker`]), and the conversions that choose the game:
//! a table's view and completed rounds folded onto its tile ([`show_view`], [`take_round`], for
//! the live pit and a replay's steps); [`terminal`]: what `pitwatch replay` prints of a table's
//! outputs, by its book's game.
//! Only this module and the games' own modules here name a game (`tests/tests/tidy.rs`).

pub mod baccarat;
pub mod blackjack;
pub mod poker;
pub mod terminal;

pub use baccarat::{
    cards, outcome, round_result, BaccaratPlay, BaccaratStep, LiveRound, RoundOutcome, RoundResult,
};
pub use blackjack::{
    blackjack_round, BlackjackBox, BlackjackHand, BlackjackPlay, BlackjackRound, BlackjackStep,
    HandOutcome, SideBetResult, BLACKJACK_ROUNDS_KEPT,
};
pub use poker::{
    poker_hand, DeclaredMisdeal, PokerHand, PokerPlay, PokerSeat, PokerStep, POKER_HANDS_KEPT,
};

use pitwatch_games::{GameBook, GameKind, GameRound, GameView};
use pitwatch_model::Card;
use serde::Serialize;
use ts_rs::TS;

/// What is on a table, by game: a tagged union (`game`), so each game's tile and view carry their
/// own terms and no table carries another game's fields.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(tag = "game", rename_all = "snake_case")]
pub enum TablePlay {
    /// A Baccarat table: the coup on the table and the shoe's coups (the roads).
    Baccarat(BaccaratPlay),
    /// A Blackjack or Pontoon table (the tile's `game` says which): the round on the table and
    /// the shoe's last rounds.
    Blackjack(BlackjackPlay),
    /// A poker table: the hand on the table and the last hands.
    Poker(PokerPlay),
}

impl TablePlay {
    /// How many of the shoe's completed rounds the tile carries.
    pub fn rounds_shown(&self) -> usize {
        match self {
            TablePlay::Baccarat(play) => play.rounds.len(),
            TablePlay::Blackjack(play) => play.rounds.len(),
            TablePlay::Poker(play) => play.hands.len(),
        }
    }

    /// Nothing dealt yet, for a table of `game`.
    pub fn empty(game: GameKind) -> TablePlay {
        match game {
            GameKind::Baccarat => TablePlay::Baccarat(BaccaratPlay::default()),
            GameKind::Blackjack | GameKind::Pontoon => {
                TablePlay::Blackjack(BlackjackPlay::default())
            }
            GameKind::Poker => TablePlay::Poker(PokerPlay::default()),
        }
    }
}

impl TablePlay {
    /// Takes a round a replayed step completed into the play (a Baccarat shoe's coups, from which
    /// its roads are drawn) and gives it as the step shows it.
    pub fn take_replayed(&mut self, round: &GameRound) -> GameRoundResult {
        let shown = game_round(round);
        if let (TablePlay::Baccarat(play), GameRoundResult::Baccarat(result)) = (&mut *self, &shown)
        {
            play.rounds.push(result.clone());
        }
        shown
    }

    /// The table as a replay's step shows it, with the round the step completed (a round of
    /// another game than the table's is not shown).
    pub fn replay_step(&self, completed: Option<GameRoundResult>) -> ReplayPlay {
        match self {
            TablePlay::Baccarat(play) => ReplayPlay::Baccarat(baccarat::replay_step(
                play,
                completed.and_then(|r| match r {
                    GameRoundResult::Baccarat(r) => Some(r),
                    _ => None,
                }),
            )),
            TablePlay::Blackjack(play) => ReplayPlay::Blackjack(blackjack::replay_step(
                play,
                completed.and_then(|r| match r {
                    GameRoundResult::Blackjack(r) => Some(r),
                    _ => None,
                }),
            )),
            TablePlay::Poker(play) => ReplayPlay::Poker(poker::replay_step(
                play,
                completed.and_then(|r| match r {
                    GameRoundResult::Poker(r) => Some(r),
                    _ => None,
                }),
            )),
        }
    }
}

/// A round of any game, tagged by game (an incident's round).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(tag = "game", rename_all = "snake_case")]
pub enum GameRoundResult {
    /// A Baccarat coup.
    Baccarat(RoundResult),
    /// A Blackjack or Pontoon round.
    Blackjack(BlackjackRound),
    /// A poker hand.
    Poker(PokerHand),
}

impl GameRoundResult {
    /// The shoe.
    pub fn shoe(&self) -> u32 {
        match self {
            GameRoundResult::Baccarat(r) => r.shoe,
            GameRoundResult::Blackjack(r) => r.shoe,
            GameRoundResult::Poker(r) => r.shoe,
        }
    }

    /// The round, 1-based within the shoe.
    pub fn round(&self) -> u32 {
        match self {
            GameRoundResult::Baccarat(r) => r.round,
            GameRoundResult::Blackjack(r) => r.round,
            GameRoundResult::Poker(r) => r.round,
        }
    }

    /// `seq` of the round's first event.
    pub fn first_seq(&self) -> u64 {
        match self {
            GameRoundResult::Baccarat(r) => r.first_seq,
            GameRoundResult::Blackjack(r) => r.first_seq,
            GameRoundResult::Poker(r) => r.first_seq,
        }
    }

    /// The round as a table's result label shows it: a Baccarat coup's result (the other games'
    /// rounds have no one-line label).
    pub fn result_label(&self) -> Option<&RoundResult> {
        match self {
            GameRoundResult::Baccarat(result) => Some(result),
            GameRoundResult::Blackjack(_) | GameRoundResult::Poker(_) => None,
        }
    }

    /// `seq` of the round's last card.
    pub fn last_seq(&self) -> u64 {
        match self {
            GameRoundResult::Baccarat(r) => r.last_seq,
            GameRoundResult::Blackjack(r) => r.last_seq,
            GameRoundResult::Poker(r) => r.last_seq,
        }
    }
}

/// A replayed table just after an event, by game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(tag = "game", rename_all = "snake_case")]
pub enum ReplayPlay {
    /// A Baccarat table.
    Baccarat(BaccaratStep),
    /// A Blackjack or Pontoon table.
    Blackjack(BlackjackStep),
    /// A poker table.
    Poker(PokerStep),
}

/// Cards as the window shows them (`None`: unreadable).
pub(crate) fn card_codes(cards: &[Option<Card>]) -> Vec<Option<String>> {
    cards.iter().map(|c| c.map(|c| c.to_string())).collect()
}

pub(crate) fn stored_codes(v: Option<&serde_json::Value>) -> Vec<Option<String>> {
    v.and_then(|h| h.as_array())
        .map(|cards| {
            cards
                .iter()
                .map(|c| c.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// A round of any game as the window shows it.
pub fn game_round(round: &GameRound) -> GameRoundResult {
    match round {
        GameRound::Baccarat(r) => GameRoundResult::Baccarat(round_result(r)),
        GameRound::Blackjack(r) => GameRoundResult::Blackjack(blackjack_round(r)),
        GameRound::Poker(r) => GameRoundResult::Poker(poker_hand(r)),
    }
}

/// A round as stored (its game's round record as JSON), read back tolerantly.
pub fn stored_round(body: &str) -> Option<GameRoundResult> {
    let v: serde_json::Value = serde_json::from_str(body).ok()?;
    match v.get("game").and_then(|g| g.as_str()) {
        Some("blackjack" | "pontoon") => {
            Some(GameRoundResult::Blackjack(blackjack::stored_round(&v)))
        }
        Some("poker") => Some(GameRoundResult::Poker(poker::stored_hand(&v))),
        _ => baccarat::stored_round(&v).map(GameRoundResult::Baccarat),
    }
}

/// A round of any game in one line, for a terminal (`pitwatch monitor`).
pub fn round_line(round: &GameRound) -> String {
    match round {
        GameRound::Baccarat(r) => baccarat::round_line(r),
        GameRound::Blackjack(r) => blackjack::round_line(r),
        GameRound::Poker(h) => poker::hand_line(h),
    }
}

/// What a table's tile shows before any event, from its game and its book alone (a poker
/// table's variant is the book's, or the table's).
pub fn initial_play(game: GameKind, book: Option<&GameBook>) -> TablePlay {
    match game {
        // The variant dealt is the book's (or the table's): shown before the first hand.
        GameKind::Poker => TablePlay::Poker(PokerPlay {
            variant: book
                .and_then(|book| book.poker().map(|p| p.variant.id.clone()))
                .unwrap_or_default(),
            ..PokerPlay::default()
        }),
        game => TablePlay::empty(game),
    }
}

/// The part of a table's tile its engine's view gives: the shoe, the cards dealt and left, the
/// cutting card, and the play in the view's game's terms. The live pit keeps it as its own
/// tile's game part ([`show_view_on`]); a replay's step puts it on a tile ([`show_view`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shown {
    /// The shoe being dealt (0 before the first shuffle seen).
    pub shoe: u32,
    /// Cards drawn from this shoe (burn cards included) since its shuffle.
    pub cards_dealt: u32,
    /// Cards left in the shoe, when the shoe's size is known.
    pub cards_left: Option<u32>,
    /// Whether the cutting card has come out.
    pub cutting_card_out: bool,
    /// What is on the table, in the game's own terms.
    pub play: TablePlay,
}

/// Puts the engine's view of a table on what its tile shows of it ([`Shown`]), in the view's
/// game's terms.
pub fn show_view_on(shown: &mut Shown, view: &GameView) {
    match view {
        GameView::Baccarat(view) => baccarat::show_view(shown, view),
        GameView::Blackjack(view) => blackjack::show_view(shown, view),
        GameView::Poker(view) => poker::show_view(shown, view),
    }
}

/// Puts the engine's view of a table on its tile (a replay's steps; see [`show_view_on`]): the
/// shoe, the cards dealt and left, the cutting card, and the play in the view's game's terms.
pub fn show_view(tile: &mut crate::dto::TableTile, view: &GameView) {
    let mut shown = Shown {
        shoe: tile.shoe,
        cards_dealt: tile.cards_dealt,
        cards_left: tile.cards_left,
        cutting_card_out: tile.cutting_card_out,
        play: std::mem::replace(&mut tile.play, TablePlay::empty(tile.game)),
    };
    show_view_on(&mut shown, view);
    tile.shoe = shown.shoe;
    tile.cards_dealt = shown.cards_dealt;
    tile.cards_left = shown.cards_left;
    tile.cutting_card_out = shown.cutting_card_out;
    tile.play = shown.play;
}

/// Takes a round the table's engine completed into its tile's play (the roads, the last rounds
/// or hands); a round of another game than the tile's is not the tile's.
pub fn take_round(play: &mut TablePlay, round: &GameRound) {
    match (play, round) {
        (TablePlay::Baccarat(play), GameRound::Baccarat(record)) => {
            baccarat::take_round(play, record);
        }
        (TablePlay::Blackjack(play), GameRound::Blackjack(record)) => {
            blackjack::take_round(play, record);
        }
        (TablePlay::Poker(play), GameRound::Poker(record)) => poker::take_round(play, record),
        _ => {}
    }
}

/// The TypeScript declarations of what is on a table and of an incident's round, in the order
/// `ui/src/lib/bindings.ts` has them.
pub(crate) fn play_decls(cfg: &ts_rs::Config) -> Vec<String> {
    vec![
        TablePlay::decl(cfg),
        BaccaratPlay::decl(cfg),
        BlackjackPlay::decl(cfg),
        BlackjackRound::decl(cfg),
        BlackjackBox::decl(cfg),
        BlackjackHand::decl(cfg),
        HandOutcome::decl(cfg),
        SideBetResult::decl(cfg),
        PokerPlay::decl(cfg),
        PokerHand::decl(cfg),
        PokerSeat::decl(cfg),
        DeclaredMisdeal::decl(cfg),
        GameRoundResult::decl(cfg),
        LiveRound::decl(cfg),
        RoundResult::decl(cfg),
        RoundOutcome::decl(cfg),
    ]
}

/// The TypeScript declarations of a replay's step by game, in the order `bindings.ts` has them.
pub(crate) fn step_decls(cfg: &ts_rs::Config) -> Vec<String> {
    vec![
        ReplayPlay::decl(cfg),
        BaccaratStep::decl(cfg),
        BlackjackStep::decl(cfg),
        PokerStep::decl(cfg),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replay_step_shows_the_table_and_only_a_round_of_its_own_game() {
        let round = BlackjackRound {
            round: 4,
            ..BlackjackRound::default()
        };
        let table = TablePlay::Blackjack(BlackjackPlay {
            current: Some(round.clone()),
            rounds: Vec::new(),
        });
        let ReplayPlay::Blackjack(step) =
            table.replay_step(Some(GameRoundResult::Blackjack(round.clone())))
        else {
            panic!("a Blackjack table's step is a Blackjack step");
        };
        assert_eq!(step.round.as_ref().map(|r| r.round), Some(4));
        assert_eq!(step.completed, Some(round));
        let ReplayPlay::Blackjack(step) =
            table.replay_step(Some(GameRoundResult::Poker(PokerHand::default())))
        else {
            panic!("a Blackjack table's step is a Blackjack step");
        };
        assert_eq!(
            step.completed, None,
            "a poker hand is not a Blackjack round"
        );

        let poker = TablePlay::empty(GameKind::Poker);
        let ReplayPlay::Poker(step) =
            poker.replay_step(Some(GameRoundResult::Poker(PokerHand::default())))
        else {
            panic!("a poker table's step is a poker step");
        };
        assert_eq!(step.hand, None);
        assert_eq!(step.completed, Some(PokerHand::default()));
        let ReplayPlay::Baccarat(step) = TablePlay::empty(GameKind::Baccarat).replay_step(None)
        else {
            panic!("a Baccarat table's step is a Baccarat step");
        };
        assert_eq!(step.completed, None);
    }
}
