//! Playing cards and their text notation.
//!
//! The project's notation is rank `A 2-9 T J Q K` followed by suit `S H D C` (`AS`, `TD`, `KH`).
//! On input `10` is accepted for the ten and letters may be lower case; output always uses `T`
//! and upper case, so a card has exactly one printed form.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A card's rank, ace low (`Ace` = 1 … `King` = 13).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rank {
    /// Ace (pip 1).
    Ace = 1,
    /// Two.
    Two,
    /// Three.
    Three,
    /// Four.
    Four,
    /// Five.
    Five,
    /// Six.
    Six,
    /// Seven.
    Seven,
    /// Eight.
    Eight,
    /// Nine.
    Nine,
    /// Ten.
    Ten,
    /// Jack.
    Jack,
    /// Queen.
    Queen,
    /// King.
    King,
}

impl Rank {
    /// All thirteen ranks, ace first.
    pub const ALL: [Rank; 13] = [
        Rank::Ace,
        Rank::Two,
        Rank::Three,
        Rank::Four,
        Rank::Five,
        Rank::Six,
        Rank::Seven,
        Rank::Eight,
        Rank::Nine,
        Rank::Ten,
        Rank::Jack,
        Rank::Queen,
        Rank::King,
    ];

    /// The rank's number, ace = 1 through king = 13 (the numbering devices use on the wire).
    pub const fn pip(self) -> u8 {
        self as u8
    }

    /// The rank with number `pip` (1–13), or `None` outside that range.
    pub const fn from_pip(pip: u8) -> Option<Rank> {
        if pip >= 1 && pip <= 13 {
            Some(Rank::ALL[(pip - 1) as usize])
        } else {
            None
        }
    }

    /// The rank's character in the project's notation.
    pub const fn symbol(self) -> char {
        match self {
            Rank::Ace => 'A',
            Rank::Two => '2',
            Rank::Three => '3',
            Rank::Four => '4',
            Rank::Five => '5',
            Rank::Six => '6',
            Rank::Seven => '7',
            Rank::Eight => '8',
            Rank::Nine => '9',
            Rank::Ten => 'T',
            Rank::Jack => 'J',
            Rank::Queen => 'Q',
            Rank::King => 'K',
        }
    }

    /// Baccarat point value: ace 1, two to nine at face value, ten and court cards 0.
    pub const fn baccarat_points(self) -> u8 {
        let pip = self.pip();
        if pip >= 10 {
            0
        } else {
            pip
        }
    }

    /// Blackjack value with the ace counted as 1 (hands decide whether an ace may count 11).
    pub const fn blackjack_value(self) -> u8 {
        let pip = self.pip();
        if pip >= 10 {
            10
        } else {
            pip
        }
    }

    /// Face value for counting burn cards (NZ Baccarat 7.9): 10, J, Q, K count 10, an ace 1.
    /// Rule books that count the ace as 11 adjust this themselves.
    pub const fn face_value(self) -> u8 {
        self.blackjack_value()
    }
}

/// A card's suit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Suit {
    /// ♠
    Spades,
    /// ♥
    Hearts,
    /// ♦
    Diamonds,
    /// ♣
    Clubs,
}

impl Suit {
    /// All four suits in notation order (S H D C).
    pub const ALL: [Suit; 4] = [Suit::Spades, Suit::Hearts, Suit::Diamonds, Suit::Clubs];

    /// The suit's letter in the project's notation.
    pub const fn symbol(self) -> char {
        match self {
            Suit::Spades => 'S',
            Suit::Hearts => 'H',
            Suit::Diamonds => 'D',
            Suit::Clubs => 'C',
        }
    }
}

/// One playing card.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Card {
    /// The card's rank.
    pub rank: Rank,
    /// The card's suit.
    pub suit: Suit,
}

impl Card {
    /// Number of distinct cards in a standard deck; [`Card::index`] is below this.
    pub const DISTINCT: usize = 52;

    /// A card of `rank` and `suit`.
    pub const fn new(rank: Rank, suit: Suit) -> Card {
        Card { rank, suit }
    }

    /// A dense index 0–51 (suit-major), for counting cards in fixed arrays without allocating.
    pub const fn index(self) -> usize {
        (self.suit as usize) * 13 + (self.rank.pip() as usize - 1)
    }

    /// The card at dense index `index` (inverse of [`Card::index`]), or `None` if `index >= 52`.
    pub const fn from_index(index: usize) -> Option<Card> {
        if index >= Self::DISTINCT {
            return None;
        }
        Some(Card {
            rank: Rank::ALL[index % 13],
            suit: Suit::ALL[index / 13],
        })
    }

    /// Baccarat point value of the card.
    pub const fn baccarat_points(self) -> u8 {
        self.rank.baccarat_points()
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.rank.symbol(), self.suit.symbol())
    }
}

/// Why a piece of text is not a card.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CardParseError {
    /// Nothing was given.
    #[error("empty card text (expected a rank A 2-9 T J Q K and a suit S H D C, e.g. \"TD\")")]
    Empty,
    /// The rank part is not a rank.
    #[error("{text:?} is not a card: unknown rank {rank:?} (expected A, 2-9, T or 10, J, Q, K)")]
    UnknownRank {
        /// The whole input.
        text: String,
        /// The part read as the rank.
        rank: String,
    },
    /// The suit part is missing.
    #[error("{text:?} is not a card: no suit after the rank (expected S, H, D or C)")]
    MissingSuit {
        /// The whole input.
        text: String,
    },
    /// The suit part is not a suit.
    #[error("{text:?} is not a card: unknown suit {suit:?} (expected S, H, D or C)")]
    UnknownSuit {
        /// The whole input.
        text: String,
        /// The part read as the suit.
        suit: String,
    },
}

impl FromStr for Card {
    type Err = CardParseError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return Err(CardParseError::Empty);
        }
        let upper = trimmed.to_ascii_uppercase();
        let (rank_text, suit_text) = if let Some(rest) = upper.strip_prefix("10") {
            ("10", rest)
        } else {
            let split = upper.chars().next().map_or(0, char::len_utf8);
            upper.split_at(split)
        };
        let rank = match rank_text {
            "A" => Rank::Ace,
            "2" => Rank::Two,
            "3" => Rank::Three,
            "4" => Rank::Four,
            "5" => Rank::Five,
            "6" => Rank::Six,
            "7" => Rank::Seven,
            "8" => Rank::Eight,
            "9" => Rank::Nine,
            "T" | "10" => Rank::Ten,
            "J" => Rank::Jack,
            "Q" => Rank::Queen,
            "K" => Rank::King,
            other => {
                return Err(CardParseError::UnknownRank {
                    text: trimmed.to_owned(),
                    rank: other.to_owned(),
                })
            }
        };
        let suit = match suit_text {
            "" => {
                return Err(CardParseError::MissingSuit {
                    text: trimmed.to_owned(),
                })
            }
            "S" => Suit::Spades,
            "H" => Suit::Hearts,
            "D" => Suit::Diamonds,
            "C" => Suit::Clubs,
            other => {
                return Err(CardParseError::UnknownSuit {
                    text: trimmed.to_owned(),
                    suit: other.to_owned(),
                })
            }
        };
        Ok(Card { rank, suit })
    }
}

impl Serialize for Card {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Card {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn card(text: &str) -> Card {
        text.parse().unwrap()
    }

    #[test]
    fn notation_examples_parse() {
        assert_eq!(card("AS"), Card::new(Rank::Ace, Suit::Spades));
        assert_eq!(card("2H"), Card::new(Rank::Two, Suit::Hearts));
        assert_eq!(card("9C"), Card::new(Rank::Nine, Suit::Clubs));
        assert_eq!(card("TD"), Card::new(Rank::Ten, Suit::Diamonds));
        assert_eq!(card("JC"), Card::new(Rank::Jack, Suit::Clubs));
        assert_eq!(card("QS"), Card::new(Rank::Queen, Suit::Spades));
        assert_eq!(card("KH"), Card::new(Rank::King, Suit::Hearts));
    }

    #[test]
    fn ten_accepted_as_10_and_printed_as_t() {
        let ten = card("10D");
        assert_eq!(ten, card("TD"));
        assert_eq!(ten.to_string(), "TD");
        assert_eq!(card(" ks ").to_string(), "KS");
    }

    #[test]
    fn parse_errors_say_what_was_wrong() {
        assert_eq!("".parse::<Card>(), Err(CardParseError::Empty));
        let err = "1S".parse::<Card>().unwrap_err();
        assert!(err.to_string().contains("unknown rank \"1\""), "{err}");
        let err = "AX".parse::<Card>().unwrap_err();
        assert!(err.to_string().contains("unknown suit \"X\""), "{err}");
        let err = "Q".parse::<Card>().unwrap_err();
        assert!(err.to_string().contains("no suit"), "{err}");
        let err = "ASS".parse::<Card>().unwrap_err();
        assert!(err.to_string().contains("unknown suit \"SS\""), "{err}");
    }

    #[test]
    fn point_values() {
        let points: Vec<u8> = Rank::ALL.iter().map(|r| r.baccarat_points()).collect();
        assert_eq!(points, [1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0, 0, 0]);
        let values: Vec<u8> = Rank::ALL.iter().map(|r| r.blackjack_value()).collect();
        assert_eq!(values, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10]);
    }

    #[test]
    fn serde_uses_notation() {
        assert_eq!(serde_json::to_string(&card("10H")).unwrap(), "\"TH\"");
        assert_eq!(serde_json::from_str::<Card>("\"qc\"").unwrap(), card("QC"));
        assert!(serde_json::from_str::<Card>("\"ZZ\"").is_err());
    }

    #[test]
    fn every_index_round_trips() {
        for i in 0..Card::DISTINCT {
            assert_eq!(Card::from_index(i).unwrap().index(), i);
        }
        assert_eq!(Card::from_index(52), None);
    }

    proptest! {
        #[test]
        fn display_then_parse_is_identity(i in 0usize..52) {
            let c = Card::from_index(i).unwrap();
            prop_assert_eq!(c.to_string().parse::<Card>().unwrap(), c);
        }

        #[test]
        fn parsing_arbitrary_text_never_panics(s in ".{0,6}") {
            let _ = s.parse::<Card>();
        }
    }
}
