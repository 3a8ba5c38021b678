//! The registry of games: the one place that knows every game Pitwatch runs and chooses between
//! them. Everything above it (the recording machinery, the boundary, the front ends) follows a
//! table of any game through these types without naming a game.
//!
//! - [`GameKind`]: the games by name, a `Copy` enum (as a pit definition, the store and the window
//!   name them);
//! - [`book`]: the one rule-book loader ([`GameBook`]: a book of any game, by built-in name, path
//!   or recorded text);
//! - [`table`]: [`TableEngine`], an enum over the engines (no `Box<dyn>`), and what it outputs,
//!   [`GameRound`] and [`GameView`];
//! - [`report`]: what a report shows of each game's rounds and rule book;
//! - [`exposure`]: the house's exposure round by round through a shoe, by each game's own code
//!   (surveillance's view only);
//! - [`pace`]: a table's pace from its record; [`dealers`]: who dealt each round, shoe and
//!   irregularity, and each dealer's figures; [`targets`]: the pace each game is held to and
//!   its alerts, as data (issue 30);
//! - [`sim`]: which dealer deals a simulated table of each game ([`GameBook::dealing`]), so the
//!   simulator frames what it deals without naming a game.
//!
//! shakmaty's `Variant` and `VariantPosition` are the model: a Copy enum of names plus an enum
//! over engines, every game an arm, none special.

pub mod book;
pub mod dealers;
pub mod exposure;
pub mod kind;
pub mod pace;
pub mod parameters;
pub mod report;
pub mod sim;
pub mod table;
pub mod targets;

pub use book::{
    blackjack_file_book, book_text, file_book, load_baccarat, load_game_book, load_rule_book,
    poker_file_book, rule_book_file_ok, FileBookError, GameBook, MAX_RULE_BOOK_BYTES,
};
pub use kind::GameKind;
pub use table::{GameOutput, GameRound, GameView, TableEngine};
