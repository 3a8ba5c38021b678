//! A round as the cards physically fell, the dealer's ground truth: the hands dealt and what they
//! give (totals, winner, pairs), counted with the dealer's own code from the published rules
//! (points: A = 1, 2–9 face value, 10 J Q K = 0, the total mod 10; the higher total wins, equal
//! totals tie; a pair is the first two cards of a hand of one rank), not with the engine's.

use pitwatch_model::{Card, Outcome};
use serde::Serialize;

use crate::tableau;

/// One round as dealt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DealtRound {
    /// The shoe, 1-based within the session.
    pub shoe: u32,
    /// The round, 1-based within the shoe.
    pub round: u32,
    /// The Player's cards in deal order.
    pub player: Vec<Card>,
    /// The Banker's cards in deal order.
    pub banker: Vec<Card>,
    /// The Player's point count.
    pub player_total: u8,
    /// The Banker's point count.
    pub banker_total: u8,
    /// The winner the cards give.
    pub outcome: Outcome,
    /// Whether the Player's first two cards are a pair.
    pub player_pair: bool,
    /// Whether the Banker's first two cards are a pair.
    pub banker_pair: bool,
    /// `seq` of the round's first card (0 when not known yet).
    pub first_seq: u64,
    /// `seq` of the round's last card (0 when not known yet).
    pub last_seq: u64,
}

impl DealtRound {
    /// The round of these hands, with totals, winner and pairs counted from the cards.
    pub fn of(shoe: u32, round: u32, player: &[Card], banker: &[Card]) -> DealtRound {
        let player_total = tableau::total(player);
        let banker_total = tableau::total(banker);
        let outcome = if player_total > banker_total {
            Outcome::Player
        } else if banker_total > player_total {
            Outcome::Banker
        } else {
            Outcome::Tie
        };
        let pair = |hand: &[Card]| hand.len() >= 2 && hand[0].rank == hand[1].rank;
        DealtRound {
            shoe,
            round,
            player: player.to_vec(),
            banker: banker.to_vec(),
            player_total,
            banker_total,
            outcome,
            player_pair: pair(player),
            banker_pair: pair(banker),
            first_seq: 0,
            last_seq: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cards(text: &str) -> Vec<Card> {
        text.split_whitespace()
            .map(|c| c.parse().unwrap())
            .collect()
    }

    #[test]
    fn totals_winner_and_pairs_come_from_the_cards() {
        let r = DealtRound::of(1, 2, &cards("9S KH"), &cards("4D 4C 5H"));
        assert_eq!((r.player_total, r.banker_total), (9, 3));
        assert_eq!(r.outcome, Outcome::Player);
        assert!(!r.player_pair && r.banker_pair);
        let tie = DealtRound::of(1, 3, &cards("AS 6H"), &cards("QD 7C"));
        assert_eq!(
            (tie.player_total, tie.banker_total, tie.outcome),
            (7, 7, Outcome::Tie)
        );
        let banker = DealtRound::of(1, 4, &cards("JS TH 2C"), &cards("5D 3C"));
        assert_eq!((banker.player_total, banker.outcome), (2, Outcome::Banker));
    }
}
