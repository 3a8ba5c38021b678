//! The Pitwatch vocabulary: playing cards, deck compositions, shoes, and the canonical table event
//! stream that every device driver produces, the rules engine consumes, the store keeps and replay
//! re-reads.
//!
//! This crate is pure data: it reads no clock, opens no file or port and knows no SQL. Reading an
//! event file takes any [`std::io::BufRead`], so callers decide where the bytes come from.

pub mod card;
pub mod deck;
pub mod event;
pub mod jsonl;

pub use card::{Card, CardParseError, Rank, Suit};
pub use deck::{DeckKind, ShoeComposition};
pub use event::{
    check_dealer_name, Action, EventKind, EventLineError, ExposedDuring, MisdealReason,
    MisdealRuling, Outcome, PlayerAction, ShuffleStep, ShufflerKind, TableEvent, TableState,
    Target, Timestamp, MAX_DEALER_NAME, WITHHELD_ERROR_CODE,
};
pub use jsonl::{read_events, write_events, EventFileError, EventReader};
