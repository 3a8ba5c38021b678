//! A hand's cards and what they count: the total with an ace as 1 or 11, soft or hard, a
//! natural, and the Pontoon bonuses' card patterns. Shared by the engine, the natural-probability
//! computation and nothing else (the dealer simulator counts on its own, so tests compare two
//! implementations).

use pitwatch_model::{Card, Rank, Suit};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Most cards a hand holds: 21 in aces and twos is eleven cards; beyond that a stream is wrong.
pub const MAX_CARDS: usize = 12;

/// A hand's cards, inline (no allocation per card), with what they count kept as they come (the
/// engine asks a hand's total several times a card).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Cards {
    cards: [Option<Card>; MAX_CARDS],
    len: u8,
    /// The readable cards' points, every ace as 1 (at most 12 × 10).
    hard: u8,
    /// Whether a readable card is an ace.
    ace: bool,
    /// Whether a card is unreadable (the total is then unknown).
    unreadable: bool,
}

/// The cards and their count, as before the count was kept (what they count follows from them).
impl std::fmt::Debug for Cards {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cards")
            .field("cards", &self.cards)
            .field("len", &self.len)
            .finish()
    }
}

impl Default for Cards {
    fn default() -> Self {
        Cards::new()
    }
}

impl Cards {
    /// No cards.
    pub const fn new() -> Cards {
        Cards {
            cards: [None; MAX_CARDS],
            len: 0,
            hard: 0,
            ace: false,
            unreadable: false,
        }
    }

    /// Adds a card (`None`: unreadable). A card beyond [`MAX_CARDS`] is dropped: no hand the
    /// rules allow holds one.
    #[inline]
    pub fn push(&mut self, card: Option<Card>) {
        if usize::from(self.len) < MAX_CARDS {
            self.cards[usize::from(self.len)] = card;
            self.len += 1;
            match card {
                Some(card) => {
                    self.hard += card.rank.blackjack_value();
                    self.ace |= card.rank == Rank::Ace;
                }
                None => self.unreadable = true,
            }
        }
    }

    /// Removes and returns the last card. Its slot is cleared, so two hands holding the same
    /// cards are equal whatever they held before (a split hand and the same hand resumed from a
    /// carry, which keeps only the cards held).
    pub fn pop(&mut self) -> Option<Option<Card>> {
        if self.len == 0 {
            return None;
        }
        self.len -= 1;
        let card = std::mem::take(&mut self.cards[usize::from(self.len)]);
        // Recounted from the cards left (a split, rare).
        let left = self.len;
        self.len = 0;
        self.hard = 0;
        self.ace = false;
        self.unreadable = false;
        for i in 0..usize::from(left) {
            self.push(self.cards[i]);
        }
        Some(card)
    }

    /// How many cards.
    #[inline]
    pub const fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether there are none.
    #[inline]
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The cards in deal order.
    #[inline]
    pub fn as_slice(&self) -> &[Option<Card>] {
        &self.cards[..usize::from(self.len)]
    }

    /// The total and whether it is soft (an ace counted 11), or `None` if a card is unreadable.
    #[inline]
    pub fn total(&self) -> Option<Total> {
        if self.unreadable {
            return None;
        }
        let hard = self.hard;
        Some(if self.ace && hard + 10 <= 21 {
            Total {
                value: hard + 10,
                soft: true,
            }
        } else {
            Total {
                value: hard,
                soft: false,
            }
        })
    }

    /// Whether the cards are two, an ace and a ten-value card (a blackjack; a Pontoon in a Spanish
    /// shoe, where the ten-value cards are the pictures).
    #[inline]
    pub fn is_natural(&self) -> bool {
        self.len == 2 && self.total().is_some_and(|t| t.value == 21)
    }

    /// Whether any card is an ace.
    pub fn has_ace(&self) -> bool {
        self.as_slice()
            .iter()
            .any(|c| c.is_some_and(|c| c.rank == Rank::Ace))
    }

    /// The three-card pattern of Pontoon's 6-7-8 and 7-7-7 bonuses, if the cards are one.
    pub fn triple(&self) -> Option<(Triple, Suits)> {
        if self.len != 3 {
            return None;
        }
        let cards = [self.cards[0]?, self.cards[1]?, self.cards[2]?];
        let mut pips = cards.map(|c| c.rank.pip());
        pips.sort_unstable();
        let triple = match pips {
            [6, 7, 8] => Triple::SixSevenEight,
            [7, 7, 7] => Triple::SevenSevenSeven,
            _ => return None,
        };
        let suits = if cards.iter().all(|c| c.suit == Suit::Spades) {
            Suits::Spades
        } else if cards.iter().all(|c| c.suit == cards[0].suit) {
            Suits::Suited
        } else {
            Suits::Mixed
        };
        Some((triple, suits))
    }
}

/// The cards in deal order, as a JSON array (`null` for an unreadable card).
impl Serialize for Cards {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.as_slice())
    }
}

/// Read back as written (a table's carry keeps its last round's cards); more than
/// [`MAX_CARDS`] is refused.
impl<'de> Deserialize<'de> for Cards {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Cards, D::Error> {
        let cards = Vec::<Option<Card>>::deserialize(deserializer)?;
        if cards.len() > MAX_CARDS {
            return Err(serde::de::Error::invalid_length(
                cards.len(),
                &"at most 12 cards in a hand",
            ));
        }
        let mut out = Cards::new();
        for card in cards {
            out.push(card);
        }
        Ok(out)
    }
}

/// A hand's total.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Total {
    /// The points, an ace counted 11 when that does not exceed 21.
    pub value: u8,
    /// Whether an ace is counted 11.
    pub soft: bool,
}

/// Pontoon's three-card bonus hands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Triple {
    /// 6, 7 and 8.
    SixSevenEight,
    /// Three sevens.
    SevenSevenSeven,
}

/// The suits of a bonus hand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Suits {
    /// Not all one suit.
    Mixed,
    /// All one suit, not spades.
    Suited,
    /// All spades.
    Spades,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hand(cards: &[&str]) -> Cards {
        let mut h = Cards::new();
        for c in cards {
            h.push(Some(c.parse().unwrap()));
        }
        h
    }

    #[test]
    fn totals_count_an_ace_as_eleven_only_when_it_fits() {
        assert_eq!(
            hand(&["AS", "6D"]).total(),
            Some(Total {
                value: 17,
                soft: true
            })
        );
        assert_eq!(
            hand(&["AS", "6D", "9C"]).total(),
            Some(Total {
                value: 16,
                soft: false
            })
        );
        assert_eq!(
            hand(&["AS", "AD"]).total(),
            Some(Total {
                value: 12,
                soft: true
            })
        );
        assert_eq!(
            hand(&["KS", "QD", "2C"]).total(),
            Some(Total {
                value: 22,
                soft: false
            })
        );
        assert!(hand(&["AS", "KD"]).is_natural());
        assert!(!hand(&["AS", "5D", "5C"]).is_natural());
        let mut unreadable = hand(&["AS"]);
        unreadable.push(None);
        assert_eq!(unreadable.total(), None);
    }

    #[test]
    fn bonus_triples_know_their_suits() {
        assert_eq!(
            hand(&["7S", "6S", "8S"]).triple(),
            Some((Triple::SixSevenEight, Suits::Spades))
        );
        assert_eq!(
            hand(&["7H", "7H", "7H"]).triple(),
            Some((Triple::SevenSevenSeven, Suits::Suited))
        );
        assert_eq!(
            hand(&["7H", "7D", "7H"]).triple(),
            Some((Triple::SevenSevenSeven, Suits::Mixed))
        );
        assert_eq!(hand(&["7H", "7D"]).triple(), None);
        assert_eq!(hand(&["7H", "7D", "6C"]).triple(), None);
    }
}
