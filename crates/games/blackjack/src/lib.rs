//! Blackjack (with Super Sevens) and Pontoon for Pitwatch: rule books as data ([`Book`]:
//! `nz-blackjack`, `nz-pontoon`) and a sans-IO [`Engine`] that follows each round from
//! box-targeted cards and decisions on the shared shoe tracker, outputs each hand's outcome by
//! 5.1(a)–(g) with its payout, and flags irregularities citing the book's rules.
//!
//! A stream without box targets (a plain card-reading shoe) gets the shoe-level checks only: the
//! engine never guesses hands it cannot place. [`natural`] computes the chance of a natural
//! through the engine's own hand evaluation; [`exposure`] what surveillance watches from the cards
//! dealt (the Hi-Lo count, penetration, Super Sevens' exact worth, and the main wager's edge off the
//! top for a basic-strategy player, [`exposure::edge`]).
//!
//! The engine reads no clock, file, port or random source.

pub mod book;
pub mod dealer;
pub mod engine;
pub mod exposure;
pub mod hand;
pub mod natural;
pub mod round;

pub use book::{Book, LoadError, Odds, Variant};
pub use engine::{replay, Carry, Engine, Output, View};
pub use round::{BoxRecord, HandOutcome, HandRecord, RoundRecord, SideBet};
