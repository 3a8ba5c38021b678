//! Exact enumeration of Baccarat outcomes through the engine's own drawing rules.
//!
//! Counts every ordered six-card sequence from a full shoe (the cards a round could use, the
//! unused ones included so every sequence has the same weight) by Banker win, Player win and tie.
//! Cards are grouped into the ten point values, so the walk visits at most 10^6 value sequences
//! and multiplies by how many card sequences each stands for.

use pitwatch_model::{Card, Rank, ShoeComposition, Suit};

use crate::drawing::{DrawingTable, NextCard};
use crate::side::{BySide, Hand};

/// Ordered six-card sequences by outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OutcomeCounts {
    /// Sequences the Banker wins.
    pub banker: u128,
    /// Sequences the Player wins.
    pub player: u128,
    /// Tied sequences.
    pub tie: u128,
}

impl OutcomeCounts {
    /// All sequences counted.
    pub fn total(&self) -> u128 {
        self.banker + self.player + self.tie
    }
}

/// Counts outcomes over every ordered six-card sequence from a full `shoe` under `table`.
///
/// The walk deals through [`DrawingTable::next_card`], the very function the engine uses to
/// decide where each card goes and when a round is complete, with one representative card per
/// point value.
pub fn outcome_counts(table: &DrawingTable, shoe: ShoeComposition) -> OutcomeCounts {
    let mut left = [0u128; 10];
    for i in 0..Card::DISTINCT {
        if let Some(card) = Card::from_index(i) {
            left[card.baccarat_points() as usize] += u128::from(shoe.copies_of(card));
        }
    }
    let mut walk = Walk {
        table,
        total: u128::from(shoe.total_cards()),
        left,
        counts: OutcomeCounts::default(),
    };
    walk.deal(BySide::default(), 0, 1);
    walk.counts
}

struct Walk<'a> {
    table: &'a DrawingTable,
    total: u128,
    /// Cards of each point value still in the shoe.
    left: [u128; 10],
    counts: OutcomeCounts,
}

impl Walk<'_> {
    /// One card of each point value: a king for 0, otherwise the rank with that pip.
    fn representative(value: usize) -> Card {
        let rank = if value == 0 {
            Rank::King
        } else {
            Rank::from_pip(value as u8).unwrap_or(Rank::King)
        };
        Card::new(rank, Suit::Spades)
    }

    fn deal(&mut self, hands: BySide<Hand>, used: u128, weight: u128) {
        match self.table.next_card(&hands.player, &hands.banker) {
            NextCard::To(side, _) | NextCard::Unknown(side) => {
                for value in 0..10 {
                    let n = self.left[value];
                    if n == 0 {
                        continue;
                    }
                    let mut next = hands;
                    next.get_mut(side).push(Some(Self::representative(value)));
                    self.left[value] -= 1;
                    self.deal(next, used + 1, weight * n);
                    self.left[value] += 1;
                }
            }
            NextCard::Complete => {
                // Every way to fill the unused positions of the six-card sequence.
                let fill: u128 = (used..6).map(|k| self.total - k).product();
                let w = weight * fill;
                let player = hands.player.total().unwrap_or(0);
                let banker = hands.banker.total().unwrap_or(0);
                if player > banker {
                    self.counts.player += w;
                } else if banker > player {
                    self.counts.banker += w;
                } else {
                    self.counts.tie += w;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pitwatch_model::DeckKind;

    #[test]
    fn eight_decks_reproduce_the_published_counts_to_the_last_digit() {
        let counts = outcome_counts(
            &DrawingTable::punto_banco(),
            ShoeComposition::new(8, DeckKind::Standard52),
        );
        assert_eq!(counts.banker, 2_292_252_566_437_888);
        assert_eq!(counts.player, 2_230_518_282_592_256);
        assert_eq!(counts.tie, 475_627_426_473_216);
        assert_eq!(counts.total(), 4_998_398_275_503_360);
    }

    #[test]
    fn six_decks_reproduce_the_published_counts_to_the_last_digit() {
        let counts = outcome_counts(
            &DrawingTable::punto_banco(),
            ShoeComposition::new(6, DeckKind::Standard52),
        );
        assert_eq!(counts.banker, 403_095_751_234_560);
        assert_eq!(counts.player, 392_220_492_728_832);
        assert_eq!(counts.tie, 83_552_962_932_288);
        assert_eq!(counts.total(), 878_869_206_895_680);
    }
}
