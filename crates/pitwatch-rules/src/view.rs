//! Where a table stands, for every game: the [`Phase`] of its shoe and the [`BurnView`] of the
//! burn, as the shared shoe tracker ([`crate::Table`]) and each game's view show them.

use std::fmt;

use serde::Serialize;

/// Where the table stands, as the engine follows it. The phases are checked in the order listed,
/// so e.g. a shoe awaiting a shuffle says so even when its last coup was also completed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// No event has opened a shoe yet.
    NoShoe,
    /// The stream was closed ([`crate::Table::finish`]); the view shows the last shoe.
    Finished,
    /// No card may be dealt until the cards are shuffled and cut: they were replaced (7.10) or a
    /// card was exposed while cutting or loading (misdeal (a)).
    AwaitingShuffle,
    /// A shoe joined part-way from a device that reports targets, or a shoe in which the stream
    /// was cut off ([`crate::Table::interrupt`]): cards are counted but rounds are followed only
    /// from the next round boundary (a Player card 1; for a plain shoe after an interruption, the
    /// next "no more bets" when the stream reports it).
    Joining,
    /// Shuffled; the burn's first card (7.7(a)) is next.
    AwaitingBurn,
    /// The burn is being drawn (under a fixed burn, from the shuffle on).
    Burning,
    /// Rounds are being dealt (or the table is between rounds); the cutting card has not come out.
    Dealing,
    /// The cutting card came out; the round in progress (or the next) is not yet the last coup
    /// (11.2(b): complete the round, then one further round).
    LastCoupPending,
    /// The round in progress, or the next round, is the last coup.
    LastRound,
    /// The last coup was completed: no further cards until the cards are replaced or reshuffled
    /// (11.2).
    ShoeEnded,
}

impl Phase {
    /// The name used in JSON and text.
    pub const fn name(self) -> &'static str {
        match self {
            Phase::NoShoe => "no_shoe",
            Phase::Finished => "finished",
            Phase::AwaitingShuffle => "awaiting_shuffle",
            Phase::Joining => "joining",
            Phase::AwaitingBurn => "awaiting_burn",
            Phase::Burning => "burning",
            Phase::Dealing => "dealing",
            Phase::LastCoupPending => "last_coup_pending",
            Phase::LastRound => "last_round",
            Phase::ShoeEnded => "shoe_ended",
        }
    }
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Where the burn stands in the current shoe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BurnStatus {
    /// No burn is due: the book has none, the shoe was joined part-way, or the cards were
    /// replaced.
    NotExpected,
    /// The burn's first card is next.
    AwaitingFirst,
    /// Burn cards are being drawn.
    Burning,
    /// The burn is over (or was skipped, which was flagged).
    Done,
}

/// The burn in the current shoe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct BurnView {
    /// Where the burn stands.
    pub status: BurnStatus,
    /// How many cards the burn takes after its first card (the first card's value, 7.7(b) and
    /// 7.9; or the fixed count), when known: `None` before the first card or when it was
    /// unreadable.
    pub expected: Option<u32>,
    /// Burn cards drawn so far, not counting a face-up first card.
    pub burned: u32,
}

impl BurnView {
    /// Whether the burn is over.
    pub const fn done(&self) -> bool {
        matches!(self.status, BurnStatus::Done)
    }
}
