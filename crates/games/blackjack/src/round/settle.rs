//! Settling a round: what the dealer's hand still owes the wagers (draw to the book's total, the
//! second card for insurance, or nothing), and each hand's outcome and payout by 5.1(a)–(g) with
//! Pontoon's bonuses and Super Sevens.

use pitwatch_model::Rank;

use super::record::{HandOutcome, SideBet};
use super::state::{BoxState, End, HandState};
use super::Rounds;
use crate::book::{DealerNaturalTakes, HoleCard};
use crate::hand::{Cards, Suits, Triple};

impl Rounds {
    pub(super) fn dealer_must_draw(&self) -> Option<bool> {
        let total = self.dealer.total()?;
        Some(total.value < 17 || (total.value == 17 && total.soft && self.book.dealer_hits_soft17))
    }

    pub(super) fn dealer_done(&self) -> bool {
        let min = match self.book.hole_card {
            HoleCard::None | HoleCard::American => 2,
        };
        self.dealer.len() >= min && self.dealer_must_draw() == Some(false)
    }

    /// Whether a hand is settled without the dealer: bust, surrendered, or (Pontoon) a 21 paid
    /// at once.
    fn settled(&self, hand: &HandState) -> bool {
        match hand.end {
            End::Bust | End::Surrendered => true,
            _ => {
                self.book.player_21_wins_at_once
                    && hand.cards.total().is_some_and(|t| t.value == 21)
            }
        }
    }

    fn all_settled(&self) -> bool {
        self.boxes
            .iter()
            .filter(|b| Self::in_play(b))
            .all(|b| b.hands().iter().all(|h| self.settled(h)))
    }

    /// What the dealer's hand still owes the round's wagers. A hand that needs the dealer keeps
    /// them playing to the book's total; when every hand is settled without the dealer but a box
    /// took insurance, the dealer's second card alone settles it (no hole card: it is the card
    /// that shows a dealer blackjack), so the dealer takes that one card and no more.
    pub(super) fn dealer_owes(&self) -> Owes {
        if !self.all_settled() || self.book.dealer_plays_when_all_settled {
            Owes::Play
        } else if self.dealer.len() < 2 && self.any_insured() {
            Owes::SecondCard
        } else {
            Owes::Nothing
        }
    }

    pub(super) fn any_insured(&self) -> bool {
        self.boxes.iter().any(|b| Self::in_play(b) && b.insurance)
    }

    /// The boxes in play that took insurance, in order.
    pub(super) fn insured(&self) -> Vec<u8> {
        self.boxes
            .iter()
            .filter(|b| Self::in_play(b) && b.insurance)
            .map(|b| b.number)
            .collect()
    }

    fn bonus(&self, hand: &HandState) -> Option<(f64, &'static str)> {
        let bonus = self.book.bonus.as_ref()?;
        if bonus.not_after_double && hand.doubled {
            return None;
        }
        if let Some((triple, suits)) = hand.cards.triple() {
            let (odds, rule) = match (triple, suits) {
                (Triple::SixSevenEight, Suits::Mixed) => {
                    (bonus.six_seven_eight_mixed, "bonus 6-7-8 mixed")
                }
                (Triple::SixSevenEight, Suits::Suited) => {
                    (bonus.six_seven_eight_suited, "bonus 6-7-8 suited")
                }
                (Triple::SixSevenEight, Suits::Spades) => {
                    (bonus.six_seven_eight_spades, "bonus 6-7-8 spades")
                }
                (Triple::SevenSevenSeven, Suits::Mixed) => {
                    (bonus.seven_seven_seven_mixed, "bonus 7-7-7 mixed")
                }
                (Triple::SevenSevenSeven, Suits::Suited) => {
                    (bonus.seven_seven_seven_suited, "bonus 7-7-7 suited")
                }
                (Triple::SevenSevenSeven, Suits::Spades) => {
                    (bonus.seven_seven_seven_spades, "bonus 7-7-7 spades")
                }
            };
            return Some((odds.ratio(), rule));
        }
        match hand.cards.len() {
            5 => Some((bonus.five_card_21.ratio(), "bonus five-card 21")),
            6 => Some((bonus.six_card_21.ratio(), "bonus six-card 21")),
            n if n >= 7 => Some((bonus.seven_card_21.ratio(), "bonus seven-card 21")),
            _ => None,
        }
    }

    /// The outcome, payout and rule of hand `hi` of a box.
    pub(super) fn settle(
        &self,
        hand: &HandState,
        hi: usize,
        dealer_cards: &Cards,
        dealer_final: bool,
    ) -> (Option<HandOutcome>, Option<f64>, Option<&'static str>) {
        let stake = if hand.doubled { 2.0 } else { 1.0 };
        if hand.end == End::Surrendered {
            return (Some(HandOutcome::Surrender), Some(-0.5), None);
        }
        let Some(total) = hand.cards.total() else {
            return (None, None, None);
        };
        if total.value > 21 {
            return (Some(HandOutcome::Lose), Some(-stake), Some("5.1(f)"));
        }
        let natural =
            hand.cards.is_natural() && (!hand.from_split || self.book.split_21_is_natural);
        let natural_pays = self.book.natural_pays.ratio();
        if self.book.player_21_wins_at_once && total.value == 21 {
            if natural {
                return (
                    Some(HandOutcome::Blackjack),
                    Some(natural_pays),
                    Some("5.4"),
                );
            }
            return match self.bonus(hand) {
                Some((odds, rule)) => (Some(HandOutcome::Win), Some(odds * stake), Some(rule)),
                None => (Some(HandOutcome::Win), Some(stake), Some("21 paid at once")),
            };
        }
        let dealer = dealer_cards.total().filter(|_| dealer_final);
        let dealer_natural = dealer_cards.is_natural();
        let Some(dealer) = dealer else {
            return (None, None, None);
        };
        if natural {
            return if dealer_natural {
                (Some(HandOutcome::Push), Some(0.0), Some("5.1(e)"))
            } else {
                (
                    Some(HandOutcome::Blackjack),
                    Some(natural_pays),
                    Some("5.1(c), 5.4"),
                )
            };
        }
        if dealer_natural {
            let lost = match self.book.dealer_natural_takes {
                DealerNaturalTakes::AllStakes => -stake,
                DealerNaturalTakes::OriginalOnly if hi == 0 => -1.0,
                DealerNaturalTakes::OriginalOnly => 0.0,
            };
            return (Some(HandOutcome::Lose), Some(lost), Some("5.1(d)"));
        }
        if dealer.value > 21 {
            (Some(HandOutcome::Win), Some(stake), Some("5.1(a)"))
        } else if total.value > dealer.value {
            (Some(HandOutcome::Win), Some(stake), Some("5.1(b)"))
        } else if total.value == dealer.value {
            (Some(HandOutcome::Push), Some(0.0), Some("5.1(e)"))
        } else {
            (Some(HandOutcome::Lose), Some(-stake), Some("5.1(g)"))
        }
    }

    pub(super) fn super_sevens(&self, b: &BoxState) -> Option<SideBet> {
        let s7 = self.book.super_sevens.as_ref()?;
        let dealt = &b.dealt[..usize::from(b.dealt_len)];
        let mut sevens = 0u8;
        let mut suit = None;
        let mut suited = true;
        for card in dealt {
            let card = (*card)?;
            if card.rank != Rank::Seven {
                break;
            }
            sevens += 1;
            match suit {
                None => suit = Some(card.suit),
                Some(s) => suited &= s == card.suit,
            }
        }
        let pays = match (sevens, suited) {
            (0, _) => -1.0,
            (1, _) => f64::from(s7.one_seven),
            (2, true) => f64::from(s7.two_suited),
            (2, false) => f64::from(s7.two_unsuited),
            (_, true) => f64::from(s7.three_suited),
            (_, false) => f64::from(s7.three_unsuited),
        };
        Some(SideBet {
            bet: "super_sevens",
            sevens: Some(sevens),
            suited: Some(sevens >= 2 && suited),
            pays: Some(pays),
        })
    }
}

/// What the dealer's hand still owes a round's wagers ([`Rounds::dealer_owes`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Owes {
    /// Nothing: every wager is settled (or the dealer's cards have settled what was open).
    Nothing,
    /// Only insurance is open: the dealer's second card settles it.
    SecondCard,
    /// A hand needs the dealer's total: the dealer plays to the book.
    Play,
}
