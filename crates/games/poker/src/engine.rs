//! The poker engine a table runs: the shared shoe tracker ([`pitwatch_rules::Table`]) around this
//! game's [`Hands`], behind the [`Game`] seam. Its outputs are the tracker's, with each round a
//! `type: "hand"`.

use pitwatch_model::TableEvent;
use pitwatch_rules::{
    DeviceErrorCleared, Game, GameTableView, Irregularity, ShoeSummary, Table, TableCarry,
    TableOutput,
};
use serde::Serialize;

use crate::book::Book;
use crate::hand::{HandRecord, Hands, HandsCarry};

/// What the engine carries into a deck ([`Engine::shoe_carry`], [`Engine::resume`]).
pub type Carry = TableCarry<HandsCarry>;

/// What the engine outputs: hands, irregularities, decks (shoe summaries) and cleared device
/// errors, as `type`-tagged JSON objects.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Output {
    /// A hand was closed (by the next shuffle, or the end of the stream).
    Hand(HandRecord),
    /// An irregularity was flagged.
    Irregularity(Irregularity),
    /// A deck (everything between two shuffles) ended.
    Shoe(ShoeSummary),
    /// The device cleared an error.
    DeviceErrorCleared(DeviceErrorCleared),
}

impl From<TableOutput<HandRecord>> for Output {
    fn from(o: TableOutput<HandRecord>) -> Output {
        match o {
            TableOutput::Round(h) => Output::Hand(h),
            TableOutput::Irregularity(i) => Output::Irregularity(i),
            TableOutput::Shoe(s) => Output::Shoe(s),
            TableOutput::DeviceErrorCleared(c) => Output::DeviceErrorCleared(c),
        }
    }
}

/// The table as the engine sees it.
pub type View = GameTableView<HandRecord, HandRecord>;

/// Follows one poker table's event stream under one rule book and variant.
#[derive(Debug, Clone)]
pub struct Engine {
    table: Table<Hands>,
}

impl Engine {
    /// An engine for one table under `book` (dealing its variant), before any event.
    pub fn new(book: Book) -> Engine {
        let shoe = book.shoe.clone();
        Engine {
            table: Table::new(shoe, Hands::new(book)),
        }
    }

    /// An engine that carries on after the decks `carry` was taken after: fed from the first
    /// event of the deck [`Engine::shoe_carry`] returned it for, it reaches the same state as the
    /// engine that followed the whole stream (see [`TableCarry`]).
    pub fn resume(book: Book, carry: Carry) -> Engine {
        let shoe = book.shoe.clone();
        Engine {
            table: Table::resume(shoe, Hands::new(book), carry),
        }
    }

    /// What the engine carried into the current deck as it started.
    pub fn shoe_carry(&self) -> &Carry {
        self.table.shoe_carry()
    }

    /// The book.
    pub fn book(&self) -> &Book {
        self.table.game().book()
    }

    /// The current deck (shoe), 1-based, or 0 before any.
    pub fn shoe(&self) -> u32 {
        self.table.shoe()
    }
}

impl Game for Engine {
    type Output = Output;
    type View = View;

    fn game(&self) -> &'static str {
        "poker"
    }

    fn handle_event(&mut self, event: &TableEvent) {
        self.table.handle_event(event);
    }

    fn poll_output(&mut self) -> Option<Output> {
        self.table.poll_output().map(Output::from)
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
