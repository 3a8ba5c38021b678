//! The two Baccarat hands, Player and Banker, and a typed per-side map.
//!
//! Rounds keep their hands in a [`BySide`] rather than an array indexed by 0 and 1, so code that
//! means "the Banker's hand" says so and cannot pick the wrong slot.

use std::fmt;

use pitwatch_model::{Card, Rank};
use serde::ser::SerializeSeq;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// One of the two hands dealt in every round (8.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// The Player's hand: cards 1 and 3 of the initial deal (8.4).
    Player,
    /// The Banker's hand: cards 2 and 4 of the initial deal (8.4).
    Banker,
}

impl Side {
    /// The name used in messages and JSON.
    pub const fn name(self) -> &'static str {
        match self {
            Side::Player => "player",
            Side::Banker => "banker",
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A value for each side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct BySide<T> {
    /// The Player's value.
    pub player: T,
    /// The Banker's value.
    pub banker: T,
}

impl<T> BySide<T> {
    /// The value for `side`.
    pub fn get(&self, side: Side) -> &T {
        match side {
            Side::Player => &self.player,
            Side::Banker => &self.banker,
        }
    }

    /// The value for `side`, mutably.
    pub fn get_mut(&mut self, side: Side) -> &mut T {
        match side {
            Side::Player => &mut self.player,
            Side::Banker => &mut self.banker,
        }
    }
}

/// A hand of at most three cards, kept inline so following a round allocates nothing. A slot
/// holds `None` when the device could not read that card.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Hand {
    cards: [Option<Card>; 3],
    len: u8,
}

impl Hand {
    /// The most cards a Baccarat hand can hold.
    pub const MAX: usize = 3;

    /// An empty hand.
    pub const fn new() -> Hand {
        Hand {
            cards: [None; 3],
            len: 0,
        }
    }

    /// A hand of readable cards (at most three; extra cards are ignored).
    pub fn of(cards: &[Card]) -> Hand {
        let mut hand = Hand::new();
        for &card in cards.iter().take(Self::MAX) {
            hand.push(Some(card));
        }
        hand
    }

    /// Number of cards (readable or not) in the hand.
    pub const fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether the hand holds no card.
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether the hand already holds three cards.
    pub const fn is_full(&self) -> bool {
        self.len as usize == Self::MAX
    }

    /// Adds a card; returns `false` (and changes nothing) when the hand is full.
    pub fn push(&mut self, card: Option<Card>) -> bool {
        if self.is_full() {
            return false;
        }
        self.cards[self.len as usize] = card;
        self.len += 1;
        true
    }

    /// Removes the last card.
    pub fn pop(&mut self) -> Option<Option<Card>> {
        if self.len == 0 {
            return None;
        }
        self.len -= 1;
        Some(self.cards[self.len as usize].take())
    }

    /// The cards in deal order.
    pub fn cards(&self) -> &[Option<Card>] {
        &self.cards[..self.len as usize]
    }

    /// The card at 0-based position `i`: `None` if absent, `Some(None)` if unreadable.
    pub fn card(&self, i: usize) -> Option<Option<Card>> {
        self.cards().get(i).copied()
    }

    /// Whether any card in the hand is unreadable.
    pub fn has_unreadable(&self) -> bool {
        self.cards().iter().any(Option::is_none)
    }

    /// Point count of the first `n` cards (mod 10), or `None` if one of them is unreadable or
    /// missing.
    // Asked of every round's hands (the Table of Play, the record): written out for at most three
    // cards rather than as a loop over a slice (docs/benchmarks.md, issue 27).
    #[inline]
    pub fn points_of_first(&self, n: usize) -> Option<u8> {
        if self.len() < n {
            return None;
        }
        let points = |card: Option<Card>| card.map(Card::baccarat_points);
        let [first, second, third] = self.cards;
        let total = match n {
            0 => 0,
            1 => points(first)?,
            2 => points(first)? + points(second)?,
            _ => points(first)? + points(second)? + points(third)?,
        };
        Some(total % 10)
    }

    /// The hand's point count, or `None` if a card is unreadable.
    #[inline]
    pub fn total(&self) -> Option<u8> {
        self.points_of_first(self.len())
    }

    /// Whether the first two cards form a pair (same rank), or `None` if unknown.
    #[inline]
    pub fn pair(&self) -> Option<bool> {
        if self.len() < 2 {
            return None;
        }
        let first: Rank = self.cards[0]?.rank;
        let second: Rank = self.cards[1]?.rank;
        Some(first == second)
    }
}

impl Serialize for Hand {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.len()))?;
        for card in self.cards() {
            seq.serialize_element(card)?;
        }
        seq.end()
    }
}

impl<'de> Deserialize<'de> for Hand {
    /// Reads what [`Hand`]'s `Serialize` writes: at most three cards, `null` for unreadable ones.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let cards = Vec::<Option<Card>>::deserialize(deserializer)?;
        if cards.len() > Self::MAX {
            return Err(serde::de::Error::custom(format!(
                "a hand holds at most {} cards, not {}",
                Self::MAX,
                cards.len()
            )));
        }
        let mut hand = Hand::new();
        for card in cards {
            hand.push(card);
        }
        Ok(hand)
    }
}

impl fmt::Display for Hand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, card) in self.cards().iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            match card {
                Some(card) => write!(f, "{card}")?,
                None => f.write_str("??")?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hand(text: &str) -> Hand {
        let cards: Vec<Card> = text
            .split_whitespace()
            .map(|c| c.parse().unwrap())
            .collect();
        Hand::of(&cards)
    }

    #[test]
    fn totals_are_mod_ten_and_court_cards_count_nothing() {
        assert_eq!(hand("AS 9D").total(), Some(0));
        assert_eq!(hand("KD 5C 2H").total(), Some(7));
        assert_eq!(hand("9S 9H").total(), Some(8));
        assert_eq!(hand("9S 9H").pair(), Some(true));
        assert_eq!(hand("9S TH").pair(), Some(false));
    }

    #[test]
    fn an_unreadable_card_makes_the_total_unknown_but_not_the_earlier_points() {
        let mut h = hand("4S");
        h.push(None);
        assert_eq!(h.total(), None);
        assert_eq!(h.points_of_first(1), Some(4));
        assert_eq!(h.to_string(), "4S ??");
        assert!(h.push(None));
        assert!(!h.push(None), "a fourth card does not fit");
    }
}
