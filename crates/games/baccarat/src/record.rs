//! What the engine reports besides irregularities: rounds, shoe summaries and cleared device
//! errors, all serialisable as the `type`-tagged JSON objects `pitwatch replay --json` prints.

use pitwatch_model::{EventKind, Outcome};
use serde::{Deserialize, Serialize};

use crate::side::{Hand, Side};
use pitwatch_rules::{DeviceErrorCleared, Irregularity, ShoeSummary};

/// One round as the engine followed it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundRecord {
    /// The shoe, 1-based within the stream.
    pub shoe: u32,
    /// The round, 1-based within the shoe.
    pub round: u32,
    /// The Player's cards in deal order (`null` for an unreadable card).
    pub player: Hand,
    /// The Banker's cards in deal order.
    pub banker: Hand,
    /// The Player's point count, or `None` if a card was unreadable.
    pub player_total: Option<u8>,
    /// The Banker's point count, or `None` if a card was unreadable.
    pub banker_total: Option<u8>,
    /// The winner the cards give (`player`, `banker` or `tie`), or `None` if unknown.
    pub outcome: Option<Outcome>,
    /// Whether the Player's first two cards are a pair.
    pub player_pair: Option<bool>,
    /// Whether the Banker's first two cards are a pair.
    pub banker_pair: Option<bool>,
    /// `seq` of the round's first card.
    pub first_seq: u64,
    /// `seq` of the round's last card.
    pub last_seq: u64,
    /// Whether the round received every card the rules give it.
    pub complete: bool,
    /// Whether the engine joined the shoe part-way, or the stream was cut off in it before or
    /// during this round ([`crate::Engine::interrupt`]).
    pub partial: bool,
    /// Whether 12.1(b) made this a round with no bets (a disclosed card carried into it).
    pub no_bets: bool,
}

impl RoundRecord {
    /// A record of the hands as dealt, with totals, outcome and pairs computed from the cards.
    // Every round's close builds one: inline there, reading the hands in place (out of line,
    // the hands passed by value were taken apart byte by byte first; docs/benchmarks.md).
    #[inline(always)]
    pub fn from_hands(shoe: u32, round: u32, player: Hand, banker: Hand) -> RoundRecord {
        let player_total = player.total();
        let banker_total = banker.total();
        let outcome = match (player_total, banker_total) {
            (Some(p), Some(b)) if p > b => Some(Outcome::Player),
            (Some(p), Some(b)) if b > p => Some(Outcome::Banker),
            (Some(_), Some(_)) => Some(Outcome::Tie),
            _ => None,
        };
        RoundRecord {
            shoe,
            round,
            player,
            banker,
            player_total,
            banker_total,
            outcome,
            player_pair: player.pair(),
            banker_pair: banker.pair(),
            first_seq: 0,
            last_seq: 0,
            complete: true,
            partial: false,
            no_bets: false,
        }
    }

    /// What a declared result says that these cards do not (10.1): the outcome, then each
    /// side's pair; empty when it agrees (or the cards cannot say).
    pub fn result_mismatches(
        &self,
        outcome: Outcome,
        player_pair: Option<bool>,
        banker_pair: Option<bool>,
    ) -> Vec<String> {
        let mut wrong = Vec::new();
        if let Some(actual) = self.outcome {
            if actual != outcome {
                wrong.push(format!("declared {outcome} but the cards give {actual}"));
            }
        }
        for (side, declared, actual) in [
            (Side::Player, player_pair, self.player_pair),
            (Side::Banker, banker_pair, self.banker_pair),
        ] {
            if let (Some(d), Some(a)) = (declared, actual) {
                if d != a {
                    wrong.push(if d {
                        format!("declared a {side} pair but the cards are not one")
                    } else {
                        format!("declared no {side} pair but the cards are one")
                    });
                }
            }
        }
        wrong
    }

    /// The `RESULT_MISMATCH` message for a result `outcome` declared before this round had all
    /// its cards, `late` of them coming after it (10.1).
    pub fn early_result_message(&self, outcome: Outcome, late: usize) -> String {
        let totals = |t: Option<u8>| t.map_or("?".to_owned(), |t| t.to_string());
        format!(
            "Round {}: the result ({outcome}) was announced before each hand had received all \
             the cards it is entitled to (10.1): {late} card(s) came after it. Player {} = {}, \
             Banker {} = {}. Check that no wager was collected or paid before the round was \
             complete.",
            self.round,
            self.player,
            totals(self.player_total),
            self.banker,
            totals(self.banker_total)
        )
    }

    /// The `RESULT_MISMATCH` message for the mismatches `wrong` of this round.
    pub fn result_mismatch_message(&self, wrong: &[String]) -> String {
        let totals = |t: Option<u8>| t.map_or("?".to_owned(), |t| t.to_string());
        format!(
            "Round {}: {}. Player {} = {}, Banker {} = {} (10.1). Hold the payouts and correct \
             the result.",
            self.round,
            wrong.join("; "),
            self.player,
            totals(self.player_total),
            self.banker,
            totals(self.banker_total)
        )
    }
}

/// Whether an event ends a round left open for a card that might still belong to it (a round
/// held by an early result, or a tentative round awaiting confirmation).
pub fn is_boundary(kind: &EventKind) -> bool {
    matches!(
        kind,
        EventKind::Shuffled { .. }
            | EventKind::Cut { .. }
            | EventKind::CuttingCardPlaced { .. }
            | EventKind::BurnCounted { .. }
            | EventKind::ResultDeclared { .. }
            | EventKind::CardsReplaced
            | EventKind::BetsClosed
    )
}

/// Everything the engine outputs, in the order it happened.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Output {
    /// A round was completed (or closed unfinished).
    Round(RoundRecord),
    /// An irregularity was flagged.
    Irregularity(Irregularity),
    /// A shoe ended (a new shuffle, a new shoe's first card, or the end of the stream).
    Shoe(ShoeSummary),
    /// The device cleared an error.
    DeviceErrorCleared(DeviceErrorCleared),
}
