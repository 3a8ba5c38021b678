//! Exact enumeration of Baccarat outcomes through the engine's own drawing rules.
//!
//! Counts every ordered six-card sequence from a full shoe (the cards a round could use, the
//! unused ones included so every sequence has the same weight) by Banker win, Player win and tie.
//! Cards are grouped into the ten point values, so the walk visits at most 10^6 value sequences
//! and multiplies by how many card sequences each stands for.

use pitwatch_model::{Card, ShoeComposition};

use crate::drawing::{Decision, DrawingTable};

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
pub fn outcome_counts(table: &DrawingTable, shoe: ShoeComposition) -> OutcomeCounts {
    let mut by_value = [0u128; 10];
    for i in 0..Card::DISTINCT {
        if let Some(card) = Card::from_index(i) {
            by_value[card.baccarat_points() as usize] += u128::from(shoe.copies_of(card));
        }
    }
    let total = u128::from(shoe.total_cards());
    let mut counts = OutcomeCounts::default();
    let mut left = by_value;
    // Draws one card of value v: its weight is how many such cards remain.
    fn take(left: &mut [u128; 10], v: usize) -> u128 {
        let w = left[v];
        left[v] = w.saturating_sub(1);
        w
    }
    for p1 in 0..10 {
        let w1 = take(&mut left, p1);
        for b1 in 0..10 {
            let w2 = w1 * take(&mut left, b1);
            for p2 in 0..10 {
                let w3 = w2 * take(&mut left, p2);
                for b2 in 0..10 {
                    let w4 = w3 * take(&mut left, b2);
                    if w4 > 0 {
                        let player2 = ((p1 + p2) % 10) as u8;
                        let banker2 = ((b1 + b2) % 10) as u8;
                        play_rest(table, &mut left, total, player2, banker2, w4, &mut counts);
                    }
                    left[b2] += 1;
                }
                left[p2] += 1;
            }
            left[b1] += 1;
        }
        left[p1] += 1;
    }
    counts
}

/// Finishes a round after the initial four cards, weighting each ending by the number of ways to
/// fill the unused positions of the six-card sequence.
fn play_rest(
    table: &DrawingTable,
    left: &mut [u128; 10],
    total: u128,
    player2: u8,
    banker2: u8,
    weight: u128,
    counts: &mut OutcomeCounts,
) {
    // Ways to fill the remaining positions after `used` cards: (total-used)(total-used-1)…
    let fill = |used: u128| -> u128 { (used..6).map(|k| total - k).product() };
    let settle = |counts: &mut OutcomeCounts, p: u8, b: u8, w: u128| {
        if p > b {
            counts.player += w;
        } else if b > p {
            counts.banker += w;
        } else {
            counts.tie += w;
        }
    };
    if table.player(player2, banker2) == Decision::Stand {
        if table.banker(player2, banker2, None) == Decision::Stand {
            settle(counts, player2, banker2, weight * fill(4));
        } else {
            for (b3, &n) in left.iter().enumerate() {
                let w = weight * n;
                if w > 0 {
                    settle(counts, player2, (banker2 + b3 as u8) % 10, w * fill(5));
                }
            }
        }
        return;
    }
    for p3 in 0..10usize {
        let w5 = weight * left[p3];
        if w5 == 0 {
            continue;
        }
        left[p3] -= 1;
        let player = (player2 + p3 as u8) % 10;
        if table.banker(player2, banker2, Some(p3 as u8)) == Decision::Stand {
            settle(counts, player, banker2, w5 * fill(5));
        } else {
            for (b3, &n) in left.iter().enumerate() {
                let w6 = w5 * n;
                if w6 > 0 {
                    settle(counts, player, (banker2 + b3 as u8) % 10, w6);
                }
            }
        }
        left[p3] += 1;
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
