//! Deck compositions and shoes of N decks.
//!
//! A shoe of N decks holds each of its deck's cards exactly N times, so an N+1th copy of a card is
//! a foreign or duplicate card. Counting uses fixed arrays indexed by [`Card::index`], never a map,
//! so following a shoe allocates nothing per card.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::card::{Card, Rank};

/// Which cards one deck holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeckKind {
    /// The standard 52-card deck.
    Standard52,
    /// The Spanish 48-card deck used for Pontoon: the four tens removed.
    Spanish48,
}

impl DeckKind {
    /// Cards in one deck of this kind.
    pub const fn cards_per_deck(self) -> u32 {
        match self {
            DeckKind::Standard52 => 52,
            DeckKind::Spanish48 => 48,
        }
    }

    /// Whether a deck of this kind holds `card` at all.
    pub const fn contains(self, card: Card) -> bool {
        match self {
            DeckKind::Standard52 => true,
            DeckKind::Spanish48 => !matches!(card.rank, Rank::Ten),
        }
    }

    /// The name used in rule books and on the command line.
    pub const fn name(self) -> &'static str {
        match self {
            DeckKind::Standard52 => "standard_52",
            DeckKind::Spanish48 => "spanish_48",
        }
    }
}

impl fmt::Display for DeckKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for DeckKind {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "standard_52" | "standard" | "52" => Ok(DeckKind::Standard52),
            "spanish_48" | "spanish" | "48" => Ok(DeckKind::Spanish48),
            other => Err(format!(
                "unknown deck kind {other:?} (expected standard_52 or spanish_48)"
            )),
        }
    }
}

/// What a full shoe holds: `decks` decks of one kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ShoeComposition {
    /// Number of decks in the shoe.
    pub decks: u8,
    /// The kind of every deck in the shoe.
    pub kind: DeckKind,
}

impl ShoeComposition {
    /// A shoe of `decks` decks of `kind`.
    pub const fn new(decks: u8, kind: DeckKind) -> Self {
        ShoeComposition { decks, kind }
    }

    /// Total cards in the full shoe (8 standard decks: 416; 4 Spanish decks: 192).
    pub const fn total_cards(self) -> u32 {
        self.decks as u32 * self.kind.cards_per_deck()
    }

    /// How many copies of `card` the full shoe holds: `decks`, or 0 for a card the deck kind lacks.
    pub const fn copies_of(self, card: Card) -> u8 {
        if self.kind.contains(card) {
            self.decks
        } else {
            0
        }
    }

    /// A fresh counter of the cards still in this shoe.
    pub fn counter(self) -> ShoeCounter {
        ShoeCounter::new(self)
    }
}

/// Counts the cards seen from one shoe against what the shoe holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShoeCounter {
    composition: ShoeComposition,
    seen: [u8; Card::DISTINCT],
    total_seen: u32,
}

impl ShoeCounter {
    /// A counter for a full, unseen shoe.
    pub fn new(composition: ShoeComposition) -> Self {
        ShoeCounter {
            composition,
            seen: [0; Card::DISTINCT],
            total_seen: 0,
        }
    }

    /// The shoe being counted.
    pub fn composition(&self) -> ShoeComposition {
        self.composition
    }

    /// Records one copy of `card` as seen. Returns `false` when that copy is one more than the shoe
    /// holds (a foreign or duplicate card); it is counted all the same.
    pub fn see(&mut self, card: Card) -> bool {
        let slot = &mut self.seen[card.index()];
        *slot = slot.saturating_add(1);
        self.total_seen += 1;
        *slot <= self.composition.copies_of(card)
    }

    /// Copies of `card` seen so far.
    pub fn seen(&self, card: Card) -> u8 {
        self.seen[card.index()]
    }

    /// Cards seen so far, including any excess copies.
    pub fn total_seen(&self) -> u32 {
        self.total_seen
    }

    /// Cards of the full shoe not yet seen (never negative).
    pub fn remaining(&self) -> u32 {
        self.composition
            .total_cards()
            .saturating_sub(self.total_seen)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shoe_totals_match_the_rules_reference() {
        assert_eq!(
            ShoeComposition::new(8, DeckKind::Standard52).total_cards(),
            416
        );
        assert_eq!(
            ShoeComposition::new(6, DeckKind::Standard52).total_cards(),
            312
        );
        assert_eq!(
            ShoeComposition::new(8, DeckKind::Spanish48).total_cards(),
            384
        );
        assert_eq!(
            ShoeComposition::new(4, DeckKind::Spanish48).total_cards(),
            192
        );
    }

    #[test]
    fn spanish_decks_hold_no_tens() {
        let shoe = ShoeComposition::new(4, DeckKind::Spanish48);
        assert_eq!(shoe.copies_of("TS".parse().unwrap()), 0);
        assert_eq!(shoe.copies_of("JS".parse().unwrap()), 4);
        let held: u32 = (0..Card::DISTINCT)
            .map(|i| u32::from(shoe.copies_of(Card::from_index(i).unwrap())))
            .sum();
        assert_eq!(held, shoe.total_cards());
    }

    #[test]
    fn counter_flags_the_copy_past_what_the_shoe_holds() {
        let mut counter = ShoeComposition::new(2, DeckKind::Standard52).counter();
        let ace: Card = "AS".parse().unwrap();
        assert!(counter.see(ace));
        assert!(counter.see(ace));
        assert!(
            !counter.see(ace),
            "a third ace of spades in a two-deck shoe is foreign"
        );
        assert_eq!(counter.seen(ace), 3);
        assert_eq!(counter.remaining(), 101);
        let spanish = ShoeComposition::new(4, DeckKind::Spanish48);
        assert!(!spanish.counter().see("TH".parse().unwrap()));
    }
}
