//! The Blackjack and Pontoon engine a table runs: the shared shoe tracker
//! ([`pitwatch_rules::Table`]) around this game's [`Rounds`], behind the [`Game`] seam.

use pitwatch_model::TableEvent;
use pitwatch_rules::{Game, GameTableView, Table, TableCarry, TableOutput};

use crate::book::Book;
use crate::round::{RoundRecord, Rounds, RoundsCarry};

/// What the engine carries into a shoe ([`Engine::shoe_carry`], [`Engine::resume`]).
pub type Carry = TableCarry<RoundsCarry>;

/// What the engine outputs: rounds, irregularities, shoe summaries and cleared device errors, as
/// `type`-tagged JSON objects.
pub type Output = TableOutput<RoundRecord>;

/// The table as the engine sees it.
pub type View = GameTableView<RoundRecord, RoundRecord>;

/// Follows one Blackjack or Pontoon table's event stream under one rule book.
#[derive(Debug, Clone)]
pub struct Engine {
    table: Table<Rounds>,
}

impl Engine {
    /// An engine for one table under `book`, before any event.
    pub fn new(book: Book) -> Engine {
        let shoe = book.shoe.clone();
        let steps = book.shuffle_steps.clone();
        Engine {
            table: Table::new(shoe, Rounds::new(book)).require_shuffle_steps(steps),
        }
    }

    /// An engine that carries on after the shoes `carry` was taken after: fed from the first
    /// event of the shoe [`Engine::shoe_carry`] returned it for, it reaches the same state as the
    /// engine that followed the whole stream (see [`TableCarry`]).
    pub fn resume(book: Book, carry: Carry) -> Engine {
        let shoe = book.shoe.clone();
        let steps = book.shuffle_steps.clone();
        Engine {
            table: Table::resume(shoe, Rounds::new(book), carry).require_shuffle_steps(steps),
        }
    }

    /// What the engine carried into the current shoe as it started.
    pub fn shoe_carry(&self) -> &Carry {
        self.table.shoe_carry()
    }

    /// The book.
    pub fn book(&self) -> &Book {
        self.table.game().book()
    }

    /// The current shoe, 1-based, or 0 before any.
    pub fn shoe(&self) -> u32 {
        self.table.shoe()
    }
}

impl Game for Engine {
    type Output = Output;
    type View = View;

    fn game(&self) -> &'static str {
        self.book().variant.name()
    }

    fn handle_event(&mut self, event: &TableEvent) {
        self.table.handle_event(event);
    }

    fn poll_output(&mut self) -> Option<Output> {
        self.table.poll_output()
    }

    fn finish(&mut self) {
        self.table.finish();
    }

    fn interrupt(&mut self) {
        self.table.interrupt();
    }

    fn view(&self) -> View {
        self.table.view()
    }
}

/// Replays a whole event stream through a fresh engine and returns every output in order.
pub fn replay<'a>(book: &Book, events: impl IntoIterator<Item = &'a TableEvent>) -> Vec<Output> {
    pitwatch_rules::run_stream(Engine::new(book.clone()), events)
}
