//! Baccarat (Punto Banco) on Pitwatch: its rule books, drawing rules, side bets and the engine
//! that follows a Baccarat table.
//!
//! - [`RuleBook`]: a jurisdiction's rules as data (TOML), checked on loading; `nz-baccarat`,
//!   `nz-baccarat-continuous` and `macau-baccarat` are built in. It flattens the shared shoe
//!   section of every game's book ([`pitwatch_rules::book`]) and adds `[book]`, `[drawing]`,
//!   `[cite]` and `[texts]`.
//! - [`Engine`]: a sans-IO state machine that follows every shoe and round of one table from its
//!   [`pitwatch_model::TableEvent`] stream and outputs [`RoundRecord`]s, [`Irregularity`]s and
//!   [`ShoeSummary`]s, and shows where the table stands as a [`TableView`].
//! - [`rounds`]: Baccarat as a round game on the shared shoe tracker ([`BaccaratRounds`] on a
//!   [`pitwatch_rules::Table`]), the staged step of issue 27, tested against the engine.
//! - [`DrawingTable`]: the drawing rules, shared by the engine and the exact enumerations in
//!   [`enumerate`] (the published counts) and [`exposure`] (every wager's worth from the cards
//!   left in the shoe).
//!
//! The engine reads no clock, file, port or random source (a workspace test keeps it that way).

pub mod book;
pub mod drawing;
pub mod engine;
pub mod enumerate;
pub mod exposure;
pub mod record;
pub mod rounds;
pub mod side;
pub mod view;

pub use book::{InvalidRuleBook, LoadError, RuleBook, RuleBookData};
pub use drawing::{Decision, DrawingTable, NextCard, PointSet};
pub use engine::{read_carry, replay, Carry, Engine};
pub use pitwatch_rules::{DeviceErrorCleared, Irregularity, ShoeSummary};
pub use record::{Output, RoundRecord};
pub use rounds::{BaccaratCarry, BaccaratRounds};
pub use side::{BySide, Hand, Side};
pub use view::{CompactTableView, LastCoup, LastRoundBrief, NextCardView, RoundView, TableView};
