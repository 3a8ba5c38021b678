//! Exact enumeration of Baccarat outcomes through the engine's own drawing rules.
//!
//! Counts every ordered six-card sequence from a full shoe (the cards a round could use, the
//! unused ones included so every sequence has the same weight) by Banker win, Player win and tie:
//! the published counts, from the same walk the exposure figures come from
//! ([`crate::exposure`]).

use pitwatch_model::ShoeComposition;

use crate::drawing::DrawingTable;
use crate::exposure::CardsLeft;
use crate::side::Side;

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
/// The walk ([`crate::exposure::outcomes`], which also gives every wager's worth from the cards
/// left) deals through [`DrawingTable::next_card`], the very function the engine uses to decide
/// where each card goes and when a round is complete.
pub fn outcome_counts(table: &DrawingTable, shoe: ShoeComposition) -> OutcomeCounts {
    let Some(outcomes) = crate::exposure::outcomes(table, &CardsLeft::full(shoe)) else {
        return OutcomeCounts::default();
    };
    let winner = |side: Option<Side>| outcomes.count(|e| e.winner() == side);
    OutcomeCounts {
        banker: winner(Some(Side::Banker)),
        player: winner(Some(Side::Player)),
        tie: winner(None),
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
