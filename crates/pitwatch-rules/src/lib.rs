//! The Pitwatch rules engine: Baccarat, the game seam ([`seam`]) and the shared shoe tracker
//! every other game runs on ([`table`]).
//!
//! - [`RuleBook`]: a jurisdiction's rules as data (TOML), checked on loading; `nz-baccarat`,
//!   `nz-baccarat-continuous` and `macau-baccarat` are built in.
//! - [`Engine`]: a sans-IO state machine that follows every shoe and round of one table from its
//!   [`pitwatch_model::TableEvent`] stream and outputs [`RoundRecord`]s, [`Irregularity`]s and
//!   [`ShoeSummary`]s, and shows where the table stands as a [`TableView`].
//! - [`DrawingTable`]: the drawing rules, shared by the engine, the exact enumeration in
//!   [`enumerate`] and the dealer simulator.
//!
//! The engine reads no clock, file, port or random source (a workspace test keeps it that way).

pub mod book;
pub mod drawing;
pub mod engine;
pub mod enumerate;
pub mod irregularity;
pub mod record;
pub mod seam;
pub mod shuffler;
pub mod side;
pub mod table;
pub mod view;

pub use book::{
    BurnPolicy, CutLimit, CuttingCardLimit, EndOfShoePolicy, InvalidRuleBook, LoadError, RuleBook,
    RuleBookData, ShoeBook, ShoeBookData, ShoeNeeds, ShuffleCheck, ShuffleSection,
};
pub use drawing::{Decision, DrawingTable, NextCard, PointSet};
pub use engine::{replay, Carry, Engine};
pub use irregularity::{CodeSet, Irregularity, IrregularityCode, Severity};
pub use record::{DeviceErrorCleared, Output, RoundRecord, ShoeSummary};
pub use seam::{run_stream, Finding, Findings, Game, RoundGame};
pub use side::{BySide, Hand, Side};
pub use table::{GameTableView, ShoeRules, Table, TableCarry, TableOutput};
pub use view::{
    BurnStatus, BurnView, CompactTableView, LastCoup, LastRoundBrief, NextCardView, Phase,
    RoundView, TableView,
};
