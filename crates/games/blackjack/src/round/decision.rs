//! Decisions the cards cannot show (`decision` events): a box put in play, insurance, stand,
//! double, split and surrender, each checked against the book and the hand it names.

use pitwatch_model::{Action, Rank};
use pitwatch_rules::{Findings, IrregularityCode as Code};

use super::state::{End, HandState, Stage};
use super::{Rounds, MAX_HANDS};
use crate::book::DoubleOn;

impl Rounds {
    pub(super) fn on_decision(
        &mut self,
        seq: u64,
        number: u8,
        hand: Option<u8>,
        action: Action,
        found: &mut Findings,
    ) {
        if action == Action::InPlay {
            if self.any_card {
                found.flag_cited(
                    Code::DecisionNotAllowed,
                    "DECISION_NOT_ALLOWED/after_first_card",
                    seq,
                    vec![seq],
                    format!("Box {number} was put in play after the round's first card was dealt."),
                );
            } else {
                let bi = self.box_entry(number);
                self.boxes[bi].declared = true;
                self.declared_any = true;
            }
            return;
        }
        let not_allowed = |found: &mut Findings, why: String| {
            found.flag(Code::DecisionNotAllowed, seq, vec![seq], why);
        };
        let Some(bi) = self
            .box_index(number)
            .filter(|&i| Self::in_play(&self.boxes[i]))
        else {
            not_allowed(
                found,
                format!("A decision ({action}) for box {number}, which is not in play this round."),
            );
            return;
        };
        if action == Action::Insurance {
            let ace_up = self
                .dealer
                .as_slice()
                .first()
                .copied()
                .flatten()
                .is_some_and(|c| c.rank == Rank::Ace);
            if !self.book.insurance || !ace_up || self.dealer.len() != 1 {
                not_allowed(found, format!("Box {number} took insurance, which the book offers only when the dealer's first card is an ace{}.", if self.book.insurance { "" } else { " (and this book offers none)" }));
            }
            self.boxes[bi].insurance = true;
            return;
        }
        let hi = match hand {
            Some(h) if usize::from(h) >= 1 && h <= self.boxes[bi].n_hands => usize::from(h) - 1,
            Some(h) => {
                not_allowed(found, format!("A decision ({action}) for box {number} hand {h}, which the box does not have."));
                return;
            }
            None => {
                match self.boxes[bi].first_open() {
                    Some(h) => h,
                    None => {
                        if action != Action::Stand {
                            not_allowed(found, format!("A decision ({action}) for box {number}, whose hands had finished."));
                        }
                        return;
                    }
                }
            }
        };
        if self.stage != Stage::Dealer && action != Action::Stand {
            // A decision on a later hand means the hands before it stood.
            self.stand_before(bi, hi, seq, found);
        }
        let book = &self.book;
        let h = self.boxes[bi].hands[hi];
        let n_hands = self.boxes[bi].n_hands;
        let two_cards = h.cards.len() == 2 && h.open();
        match action {
            Action::InPlay | Action::Insurance => {}
            Action::Stand => {
                if h.open() {
                    self.boxes[bi].hands[hi].end = End::Stood;
                }
            }
            Action::Double => {
                let hard = h
                    .cards
                    .total()
                    .filter(|t| !t.soft && !h.cards.has_ace())
                    .map(|t| t.value);
                let total_ok = match book.double_on {
                    DoubleOn::AnyTwo => true,
                    DoubleOn::HardTwo => !h.cards.has_ace(),
                    DoubleOn::NineToEleven => matches!(hard, Some(9..=11)),
                    DoubleOn::TenOrEleven => matches!(hard, Some(10 | 11)),
                };
                let why = if !two_cards || self.stage != Stage::Play {
                    Some("only an open hand of two cards may double".to_owned())
                } else if h.split_ace {
                    Some("a split ace may not double".to_owned())
                } else if h.from_split && !book.double_after_split {
                    Some("the book allows no double after a split".to_owned())
                } else if !total_ok {
                    Some(format!(
                        "the book allows doubling on {:?} only",
                        book.double_on
                    ))
                } else {
                    None
                };
                if let Some(why) = why {
                    not_allowed(
                        found,
                        format!("Box {number} hand {} doubled: {why}.", hi + 1),
                    );
                }
                if h.open() {
                    let h = &mut self.boxes[bi].hands[hi];
                    h.doubled = true;
                    h.double_pending = true;
                }
            }
            Action::Split => {
                let pair = two_cards
                    && {
                        let c = h.cards.as_slice();
                        matches!((c[0], c[1]), (Some(a), Some(b)) if a.rank.blackjack_value() == b.rank.blackjack_value())
                    };
                let why = if !pair || self.stage != Stage::Play {
                    Some("only an open hand of two cards of equal value may split".to_owned())
                } else if n_hands >= book.max_hands || usize::from(n_hands) >= MAX_HANDS {
                    Some(format!("the book allows at most {} hands", book.max_hands))
                } else if h.split_ace && !book.resplit_aces {
                    Some("split aces may not be split again".to_owned())
                } else {
                    None
                };
                match why {
                    Some(why) => {
                        not_allowed(found, format!("Box {number} hand {} split: {why}.", hi + 1))
                    }
                    None => {
                        let b = &mut self.boxes[bi];
                        let mut first = b.hands[hi];
                        let second_card = first.cards.pop().flatten();
                        let aces = second_card.is_some_and(|c| c.rank == Rank::Ace);
                        first.from_split = true;
                        first.split_ace = aces;
                        let mut second = HandState::EMPTY;
                        second.cards.push(second_card);
                        second.from_split = true;
                        second.split_ace = aces;
                        let n = usize::from(b.n_hands);
                        b.hands.copy_within(hi + 1..n, hi + 2);
                        b.hands[hi] = first;
                        b.hands[hi + 1] = second;
                        b.n_hands += 1;
                    }
                }
            }
            Action::Surrender => {
                if !book.surrender || !two_cards || n_hands > 1 || self.stage != Stage::Play {
                    not_allowed(
                        found,
                        format!(
                            "Box {number} surrendered: {}.",
                            if book.surrender {
                                "only a first hand of two cards may surrender"
                            } else {
                                "the book offers no surrender"
                            }
                        ),
                    );
                }
                if h.open() {
                    self.boxes[bi].hands[hi].end = End::Surrendered;
                }
            }
        }
    }
}
