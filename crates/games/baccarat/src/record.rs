//! What the engine reports besides irregularities: rounds, shoe summaries and cleared device
//! errors, all serialisable as the `type`-tagged JSON objects `pitwatch replay --json` prints.

use pitwatch_model::Outcome;
use serde::{Deserialize, Serialize};

use crate::side::Hand;
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
