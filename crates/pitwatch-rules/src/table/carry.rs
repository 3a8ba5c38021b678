//! The carry into a shoe for every game on the shared tracker: what a [`Table`] does not start
//! afresh with a shoe (how many shoes came before, a pending "not shuffled", the device errors
//! still open, the table's shuffler, and what the game itself carries), so one shoe can be
//! replayed, and a recorder restarted, without the table's whole history.
//!
//! [`Table::shoe_carry`] is taken as the current shoe starts; [`Table::resume`] with it, fed from
//! that shoe's first event on, reaches the same state after that event as the table that followed
//! the whole stream (the outputs of that first event may differ: in the whole stream it also
//! closes the shoe before). Baccarat's engine carries its own `Carry`, the same idea.

use serde::{Deserialize, Serialize};

use super::{ShoeRules, Table, Unshuffled};
use crate::seam::RoundGame;
use crate::shuffler::ShufflerWatch;

/// What a [`Table`] carries from one shoe into the next; stored as JSON with each shoe's start.
/// Fields added later must default when absent, so a carry written by an earlier version still
/// reads.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableCarry<C> {
    /// Shoes started before.
    pub shoes: u32,
    /// Why no card may be dealt until a shuffle, and since which `seq`.
    unshuffled: Option<(Unshuffled, u64)>,
    /// Device errors not yet cleared, as (code, `seq` that raised it).
    open_errors: Vec<(String, u64)>,
    /// The table's shuffler as the shoe was loaded.
    #[serde(default)]
    shuffler: ShufflerWatch,
    /// What the game carries.
    #[serde(default)]
    pub game: C,
    /// The shoe began after an interruption, before a round was seen from its start: its first
    /// round is followed as joined. Written only when true, so a carry without it reads as before.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    joining: bool,
    /// Rounds in a row whose result was declared before the next round began. Written only
    /// when not zero, so a carry without it reads as before.
    #[serde(default, skip_serializing_if = "is_zero")]
    results_run: u32,
    /// The shoe was begun by its first card after a shoe the stream was cut off in, so it is not
    /// blamed for a shuffle nobody saw. Written only when true.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    after_cut: bool,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl<G: RoundGame> Table<G> {
    /// A table that carries on after the shoes `carry` was taken after (see [`TableCarry`]): feed
    /// it the events from the first event of the shoe [`Table::shoe_carry`] returned it for.
    pub fn resume(rules: ShoeRules, mut game: G, carry: TableCarry<G::Carry>) -> Table<G> {
        game.resume(carry.game.clone());
        let mut table = Table::new(rules, game);
        table.shoe_no = carry.shoes;
        table.unshuffled = carry.unshuffled;
        table.open_errors.clone_from(&carry.open_errors);
        table.shuffler = carry.shuffler.clone();
        table.joining = carry.joining;
        table.results_run = carry.results_run;
        table.after_cut = carry.after_cut;
        table.carry = carry;
        table
    }

    /// What the table carried into the current shoe as it started (before any shoe: the state of
    /// a new table).
    pub fn shoe_carry(&self) -> &TableCarry<G::Carry> {
        &self.carry
    }

    /// The round in progress (its number within the shoe), if any.
    pub fn round_in_progress(&self) -> Option<u32> {
        self.round
    }

    /// The shoe's last round, once the cutting card has set it (for a game whose rounds go on
    /// after the cutting card, [`RoundGame::rounds_after_cutting_card`]).
    pub fn last_round_of_shoe(&self) -> Option<u32> {
        self.shoe.last_round
    }

    /// Whether the shoe in play is over: its cutting card came out and its last round closed.
    pub fn shoe_ended(&self) -> bool {
        self.shoe_no > 0 && self.shoe.ended.is_some()
    }

    /// Device errors still open, as (code, `seq` that raised it).
    pub fn open_device_errors(&self) -> impl Iterator<Item = (&str, u64)> {
        self.open_errors
            .iter()
            .map(|(code, seq)| (code.as_str(), *seq))
    }

    /// Whether the shoe in play was joined part-way, or the stream was cut off in it.
    pub fn is_partial(&self) -> bool {
        self.shoe_open && self.shoe.partial
    }

    /// Whether no card may be dealt until a shuffle (the cards were replaced, or one was exposed
    /// while cutting or loading) and none has been yet.
    pub fn awaiting_shuffle(&self) -> bool {
        self.unshuffled.is_some() && !self.shoe.dealt_unshuffled
    }

    /// The burn of the shoe in play as it stands (not started when the book has none).
    pub fn burn_view(&self) -> crate::BurnView {
        self.shoe.burn.view()
    }

    /// What a shoe starting now carries (the round before it already closed).
    pub(super) fn carry_now(&self) -> TableCarry<G::Carry> {
        TableCarry {
            shoes: self.shoe_no,
            unshuffled: self.unshuffled,
            open_errors: self.open_errors.clone(),
            shuffler: self.shuffler.clone(),
            game: self.game.carry(),
            joining: self.joining,
            results_run: self.results_run,
            after_cut: self.after_cut,
        }
    }
}
