//! Poker for Pitwatch under New Zealand's misdeal rules: the rule book as data ([`Book`]:
//! `nz-poker`, with the lettered misdeal paragraphs (a)–(l) verbatim, "substantial action" as a
//! number of players, and the variants Texas Hold'em, Draw Poker, Five Card Stud and Seven Card
//! Stud) and a sans-IO [`Engine`] on the shared shoe tracker.
//!
//! What the engine can observe it checks: the deck check before each hand (one shuffle per hand),
//! seat-targeted cards where a device or console reports them (the initial deal's order, count
//! and faces, a player dealt out, the stud streets and the draw), a foreign or duplicate card
//! during a hand, players' actions (two or more players acting is substantial action, which
//! decides whether an error is a misdeal, and a player who acted or others' substantial action
//! make a wrong number of cards one seat's dead or void hand), and misdeals a supervisor declares
//! with their reason, seats and ruling. What it cannot observe (whether an error can be reconstructed, collusion) is the
//! supervisor's ruling.
//!
//! [`dealer`] simulates an honest table's play at the dealer console (the blinds, the players'
//! actions, a declared misdeal where asked), for the device simulator.
//!
//! The engine and the dealer read no clock, file, port or random source (the dealer's chance is
//! its caller's).

pub mod book;
pub mod dealer;
pub mod engine;
pub mod hand;

pub use book::{Book, LoadError, Variant};
pub use engine::{replay, Carry, Engine, Output, View};
pub use hand::{Declared, HandRecord, SeatRecord};
