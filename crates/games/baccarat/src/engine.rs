//! The Baccarat engine a table runs: the shared shoe tracker ([`pitwatch_rules::Table`], the one
//! every game runs on) around Baccarat's rounds ([`BaccaratRounds`]), behind the [`Game`] seam.
//!
//! One [`Engine`] follows one table. [`Engine::handle_event`] takes each event (its time is a
//! field of the event; the engine never reads a clock), [`Engine::poll_output`] drains what that
//! produced, and [`Engine::finish`] closes the stream. The same rule book and the same events give
//! the same outputs, byte for byte.
//!
//! The tracker follows the shoes (shuffle, cut, cutting card, burn, counts, foreign, excess and
//! unreadable cards, device errors, one fault one incident, the carry into a shoe); Baccarat says
//! where each card goes (8.4 and the Table of Play) and what its rounds and last coup (11.2) are.
//! [`Engine::view`] gives the table as Baccarat's screens show it ([`TableView`]), with the last
//! coup the tracker follows for the book's end-of-shoe rule.

use pitwatch_model::TableEvent;
use pitwatch_rules::{BurnStatus, Game, Phase, Table, TableCarry};

use crate::book::RuleBook;
use crate::record::Output;
use crate::rounds::{self, BaccaratCarry, BaccaratRounds};
use crate::view::{LastCoup, TableView};

/// What the engine carries into a shoe ([`Engine::shoe_carry`], [`Engine::resume`]): the shared
/// tracker's carry with Baccarat's own ([`BaccaratCarry`]). Stored as JSON with each shoe's start.
pub type Carry = TableCarry<BaccaratCarry>;

/// Reads a carry stored with a shoe's start, or `None` when it is not one this engine wrote: a
/// carry written by Baccarat's engine before it ran on the shared tracker has no `game` part, and
/// a table whose stored carries do not read is rebuilt from its first event (which gives the
/// same state, only slower).
pub fn read_carry(json: &str) -> Option<Carry> {
    let value: serde_json::Value = serde_json::from_str(json).ok()?;
    value.get("game")?;
    serde_json::from_value(value).ok()
}

/// Follows one Baccarat table's event stream under one rule book.
#[derive(Debug, Clone)]
pub struct Engine {
    table: Table<BaccaratRounds>,
    book: RuleBook,
}

impl Engine {
    /// An engine for one table under `book`, before any event.
    pub fn new(book: RuleBook) -> Engine {
        Engine {
            table: rounds::table(&book),
            book,
        }
    }

    /// An engine that carries on after the shoes `carry` was taken after: fed from the first
    /// event of the shoe [`Engine::shoe_carry`] returned it for, it reaches the same state as the
    /// engine that followed the whole stream (see [`TableCarry`]).
    pub fn resume(book: RuleBook, carry: Carry) -> Engine {
        let table = Table::resume(rounds::shoe_rules(&book), BaccaratRounds::new(&book), carry)
            .require_shuffle_steps(book.shuffle_steps().to_vec());
        Engine { table, book }
    }

    /// What the engine carried into the current shoe as it started (before any shoe: the state
    /// of a new engine).
    pub fn shoe_carry(&self) -> &Carry {
        self.table.shoe_carry()
    }

    /// The rule book in force.
    pub fn book(&self) -> &RuleBook {
        &self.book
    }

    /// The current shoe, 1-based within the stream, or 0 before any.
    pub fn shoe(&self) -> u32 {
        self.table.shoe()
    }

    /// The round being dealt, if one is in progress.
    pub fn round_in_progress(&self) -> Option<u32> {
        self.table.round_in_progress()
    }

    /// Whether the current shoe was joined part-way, or the stream was cut off in it
    /// ([`Engine::interrupt`]).
    pub fn is_partial(&self) -> bool {
        self.table.is_partial()
    }

    /// Device errors still open, as (code, `seq` that raised it).
    pub fn open_device_errors(&self) -> impl Iterator<Item = (&str, u64)> {
        self.table.open_device_errors()
    }

    /// Feeds one event. Never panics, whatever the sequence; irregularities come out as outputs.
    pub fn handle_event(&mut self, event: &TableEvent) {
        self.table.handle_event(event);
    }

    /// The next output, oldest first, or `None` when everything has been drained.
    // Inline in the caller, which drains the outputs after every event and mostly finds none.
    #[inline]
    pub fn poll_output(&mut self) -> Option<Output> {
        self.table.poll_output().map(rounds::output)
    }

    /// Ends the stream: closes the round in progress and the shoe.
    pub fn finish(&mut self) {
        self.table.finish();
    }

    /// The stream was cut off here (the monitor stopped, or the device's link dropped): the
    /// round in progress is closed unfinished without judging what it lacks, and the shoe is
    /// partial from here on (see [`Table::interrupt`]).
    pub fn interrupt(&mut self) {
        self.table.interrupt();
    }

    /// What the engine knows about the table now: the shoe, its phase, the burn, the last coup,
    /// the round in progress and the last round recorded. Never panics, whatever came before.
    pub fn view(&self) -> TableView {
        let v = self.table.view();
        let upcoming = self
            .table
            .round_in_progress()
            .unwrap_or(v.rounds_completed.saturating_add(1));
        let last_coup_round = self.table.last_round_of_shoe();
        let last_coup = if v.continuous {
            LastCoup::NotApplicable
        } else if self.table.shoe_ended() {
            LastCoup::Completed
        } else {
            match last_coup_round {
                None => LastCoup::NotReached,
                Some(last) if upcoming < last => LastCoup::Pending,
                Some(_) => LastCoup::LastRound,
            }
        };
        let burn = self.table.burn_view();
        let phase = if matches!(v.phase, Phase::NoShoe | Phase::Finished) {
            v.phase
        } else if self.table.awaiting_shuffle() {
            Phase::AwaitingShuffle
        } else if !self.table.game().following() {
            Phase::Joining
        } else if burn.status == BurnStatus::AwaitingFirst {
            Phase::AwaitingBurn
        } else if burn.status == BurnStatus::Burning {
            Phase::Burning
        } else {
            match last_coup {
                LastCoup::NotApplicable | LastCoup::NotReached => Phase::Dealing,
                LastCoup::Pending => Phase::LastCoupPending,
                LastCoup::LastRound => Phase::LastRound,
                LastCoup::Completed => Phase::ShoeEnded,
            }
        };
        TableView {
            shoe: v.shoe,
            phase,
            partial: v.partial,
            continuous: v.continuous,
            decks: v.decks,
            cards_dealt: v.cards_dealt,
            cards_left: v.cards_left,
            burn,
            cutting_card_out: v.cutting_card_out,
            last_coup,
            last_coup_round,
            round: v.round,
            rounds_completed: v.rounds_completed,
            last_round: v.last_round,
            open_device_errors: v.open_device_errors,
            last_seq: v.last_seq,
        }
    }
}

impl Game for Engine {
    type Output = Output;
    type View = TableView;

    fn game(&self) -> &'static str {
        "baccarat"
    }

    fn handle_event(&mut self, event: &TableEvent) {
        Engine::handle_event(self, event);
    }

    fn poll_output(&mut self) -> Option<Output> {
        Engine::poll_output(self)
    }

    fn finish(&mut self) {
        Engine::finish(self);
    }

    fn interrupt(&mut self) {
        Engine::interrupt(self);
    }

    fn view(&self) -> TableView {
        Engine::view(self)
    }
}

/// Replays a whole event stream through a fresh engine and returns every output in order.
pub fn replay<'a>(
    book: &RuleBook,
    events: impl IntoIterator<Item = &'a TableEvent>,
) -> Vec<Output> {
    pitwatch_rules::run_stream(Engine::new(book.clone()), events)
}
