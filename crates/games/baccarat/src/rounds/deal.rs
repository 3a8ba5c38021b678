//! Placing a card in the round in progress on the shared tracker: a card the device reported to a
//! hand goes where the device says (8.4 and the Table of Play say whether that was the next
//! position; the first card out of order is the round's `DEAL_OUT_OF_ORDER`), a plain card where
//! the rules give the next card. The table has counted the card against the shoe already.

use pitwatch_model::{Card, EventKind, TableEvent, Target};
use pitwatch_rules::{Findings, IrregularityCode as Code, Stray};

use super::{BaccaratRounds, Live};
use crate::drawing::{DrawingTable, NextCard};
use crate::side::{Hand, Side};

/// The hand a target names, if it names one.
pub(super) fn side(target: Option<Target>) -> Option<Side> {
    match target {
        Some(Target::Player) => Some(Side::Player),
        Some(Target::Banker) => Some(Side::Banker),
        _ => None,
    }
}

impl BaccaratRounds {
    /// Whether a retransmitted report repeats a card already counted, as the engine reads it: it
    /// repeats the last burn card's target, index and card, or names a position (target and
    /// index) that already holds that very card, in the round being dealt or the one closed last
    /// while it is open to its own stray cards.
    pub(super) fn repeated(&self, event: &TableEvent) -> bool {
        let EventKind::CardDrawn {
            card,
            target: target @ Some(_),
            index,
            ..
        } = event.kind
        else {
            return false;
        };
        if self.last_burn == Some((card, target, index)) {
            return true;
        }
        let (Some(side), Some(position)) = (side(target), index.filter(|i| *i >= 1)) else {
            return false;
        };
        let hand = match (&self.round, self.last) {
            (Some(r), _) => *r.hands.get(side),
            (None, Some(last)) if self.last_open => match side {
                Side::Player => last.player,
                Side::Banker => last.banker,
            },
            _ => return false,
        };
        hand.card(usize::from(position) - 1) == Some(card)
    }

    /// A card the table gives no round ([`pitwatch_rules::RoundGame::stray_card`]), as the
    /// engine finds it: a card to no hand from a device that reports targets, or to a target
    /// Baccarat does not have, is `DEAL_OUT_OF_ORDER` in the round in progress (or none); a
    /// Player or Banker card that begins no round with none in progress (a card 2, 3 or 4) is
    /// `DEAL_OUT_OF_ORDER` in the round closed last while it is open to its own stray cards, or
    /// in none, but a Banker third card to a round complete with two is that round's
    /// `UNAUTHORISED_THIRD_CARD` (the Table of Play gave it none: set aside).
    pub(super) fn stray(&mut self, event: &TableEvent, found: &mut Findings) -> Stray {
        let EventKind::CardDrawn {
            card,
            target,
            index,
            face_up,
            ..
        } = &event.kind
        else {
            return Stray::Here;
        };
        let (seq, card) = (event.seq, *card);
        if matches!(target, Some(Target::First | Target::Burn)) {
            self.targets_reported = true;
            self.last_burn = Some((card, *target, *index));
        }
        let Some(side) = side(*target) else {
            match target {
                None if !self.targets_reported && self.between_rounds() => {
                    // 12.1(b): a plain card between rounds begins the next round, tentatively.
                    let disclosed = *face_up == Some(true);
                    if let Some(record) = self.last {
                        self.flag_card_between_rounds(&record, seq, card, disclosed, found);
                    }
                    self.carry_next = Some((card, disclosed, true));
                    return Stray::Carried;
                }
                None if self.targets_reported => unplaceable(
                    found,
                    seq,
                    card,
                    "to no hand, by a device that reports where every card goes".to_owned(),
                ),
                None | Some(Target::First | Target::Burn) => {}
                Some(other) => found.flag(
                    Code::DealOutOfOrder,
                    seq,
                    vec![seq],
                    format!(
                        "A card was reported to {other}, which Baccarat does not have; it is \
                         left out of the round. Check the device's configuration."
                    ),
                ),
            }
            return Stray::Here;
        };
        if !self.synced || self.round.is_some() {
            // Joined part-way: the cards before a round's first are counted, in no round.
            return Stray::Here;
        }
        let last = self.last.filter(|_| self.last_open);
        if let Some(record) = last.filter(|r| side == Side::Player && r.player.len() == 2) {
            if *index == Some(3) {
                // 12.1(b): the Banker's hand stood, so the card is the next round's first.
                let disclosed = *face_up == Some(true);
                let then = if disclosed {
                    "It was disclosed, so the dealer announces \"No bets this hand\" for the round \
                     it starts."
                } else {
                    "It was not disclosed, so no further action is needed."
                };
                let shown = card.map_or(String::new(), |c| format!(" ({c})"));
                found.flag(
                    Code::UnauthorisedThirdCard,
                    seq,
                    vec![record.first_seq, seq],
                    format!(
                        "A third card{shown} was dealt to the Player's hand in round {}, which the \
                         rules do not authorise. The Banker's hand stands, so by 12.1(b) it \
                         becomes the first card of the next round. {then}",
                        record.round
                    ),
                );
                self.carry_next = Some((card, disclosed, false));
                return Stray::Carried;
            }
        }
        if let Some(record) = last.filter(|r| side == Side::Banker && r.banker.len() == 2) {
            if *index == Some(3) {
                self.last_open = false;
                let shown = card.map_or(String::new(), |c| format!(" ({c})"));
                found.flag_cited(
                    Code::UnauthorisedThirdCard,
                    "UNAUTHORISED_THIRD_CARD/banker",
                    seq,
                    vec![record.first_seq, seq],
                    format!(
                        "A third card{shown} was dealt to the Banker's hand in round {}, which \
                         the Table of Play does not authorise. It is not part of the round; the \
                         result stands on the first cards. Set the card aside.",
                        record.round
                    ),
                );
                return Stray::LastRound;
            }
        }
        let what = match index {
            Some(i) => format!("as {side} card {i}"),
            None => format!("to the {side}"),
        };
        unplaceable(
            found,
            seq,
            card,
            format!("{what}, when no round was being dealt"),
        );
        if last.is_some() {
            Stray::LastRound
        } else {
            Stray::Here
        }
    }

    /// Places a card of the round in progress (`target` `None`: a plain card; `retransmit`: the
    /// device's report sent again, its first lost).
    #[inline(always)]
    pub(super) fn place(
        &mut self,
        seq: u64,
        card: Option<Card>,
        target: Option<Target>,
        index: Option<u8>,
        retransmit: bool,
        found: &mut Findings,
    ) {
        if self.round.as_ref().is_some_and(|r| r.confirming) {
            // One card more than a round begun by a card between rounds takes: that card was set
            // aside, and the round is the cards after it.
            self.redeal();
        }
        let drawing = &self.drawing;
        let Some(round) = self.round.as_mut() else {
            return;
        };
        let next = round.next;
        let Some(side) = side(target) else {
            // A plain card: where the rules give the next card.
            let to = match next {
                NextCard::To(s, _) | NextCard::Unknown(s) => s,
                NextCard::Complete => Side::Player,
            };
            round.push(drawing, seq, to, card);
            return;
        };
        // Worded only when a card cannot be placed: formatting it for every card was most of the
        // table's work per card (docs/benchmarks.md).
        let what = || match index {
            Some(i) => format!("as {side} card {i}"),
            None => format!("to the {side}"),
        };
        let len = round.hands.get(side).len();
        let position = match index {
            Some(i) if i >= 1 => usize::from(i),
            _ => len + 1,
        };
        if position > Hand::MAX {
            unplaceable(
                found,
                seq,
                card,
                format!("{}, but a Baccarat hand holds at most three cards", what()),
            );
            return;
        }
        if position <= len {
            let held = round.hands.get(side).card(position - 1).flatten();
            let holding = held.map_or("an unreadable card".to_owned(), |c| c.to_string());
            unplaceable(
                found,
                seq,
                card,
                format!("{}, a position that already holds {holding}", what()),
            );
            return;
        }
        if position > len + 1 {
            if let Some(slot) = round.ahead.iter_mut().find(|a| a.is_none()) {
                // A later position of the hand than the next: the device says where the card
                // is, so it waits there until the positions before it are filled.
                *slot = Some((side, position as u8, card, seq));
                round.ahead_len += 1;
                if !round.order_flagged {
                    round.order_flagged = true;
                    round.order_gap = expected_position(next);
                    out_of_order(found, seq, card, side, position, next);
                }
                return;
            }
        }
        let as_expected = position == len + 1
            && match next {
                NextCard::To(s, i) => s == side && position == usize::from(i),
                // An unreadable card hides the decision: any third card may be right.
                NextCard::Unknown(_) => position == 3,
                NextCard::Complete => false,
            };
        if as_expected {
            round.push(drawing, seq, side, card);
            if retransmit && round.order_gap == Some((side, position as u8)) {
                // The card before this one's report was lost: it came out of order only in
                // its report, and the finding that said so is withdrawn if it is the round's
                // only one (`withdrawn`).
                round.order_gap = None;
                found.withdraw(Code::DealOutOfOrder);
            }
        } else if side == Side::Player
            && position == 3
            && len == 2
            && next == NextCard::To(Side::Banker, 3)
        {
            // 12.1(a): a third card to the Player that the rules do not authorise while the
            // Banker must draw becomes the Banker's third card.
            found.flag(
                Code::UnauthorisedThirdCard,
                seq,
                vec![seq],
                format!(
                    "A third card{} was dealt to the Player's hand, which the rules do not \
                     authorise. The Banker's hand must draw, so by 12.1(a) it becomes the \
                     Banker's third card. Check that the hands were settled that way.",
                    card.map_or(String::new(), |c| format!(" ({c})"))
                ),
            );
            round.push(drawing, seq, Side::Banker, card);
            return;
        } else {
            if !round.order_flagged {
                round.order_flagged = true;
                round.order_gap = expected_position(next);
                out_of_order(found, seq, card, side, position, next);
            }
            round.push(drawing, seq, side, card);
        }
        if round.ahead_len > 0 {
            round.place_ahead(drawing);
        }
        if side == Side::Player && round.hands.player.len() == 3 {
            self.set_aside_early_banker_card(seq, found);
        }
    }

    /// The Player's third card came after a Banker third card dealt out of order: if with it the
    /// Table of Play gives the Banker no third card, that card is set aside (not in the round),
    /// the round's `UNAUTHORISED_THIRD_CARD`, as the engine sets it aside.
    fn set_aside_early_banker_card(&mut self, seq: u64, found: &mut Findings) {
        let Some(round) = self.round.as_mut() else {
            return;
        };
        let hands = round.hands;
        if hands.banker.len() != 3 {
            return;
        }
        let (Some(p2), Some(b2), Some(Some(third))) = (
            hands.player.points_of_first(2),
            hands.banker.points_of_first(2),
            hands.player.card(2),
        ) else {
            return;
        };
        if self.drawing.banker(p2, b2, Some(third.baccarat_points()))
            == crate::drawing::Decision::Draw
        {
            return;
        }
        let Some(set_aside) = round.hands.banker.pop() else {
            return;
        };
        round.next = self
            .drawing
            .next_card(&round.hands.player, &round.hands.banker);
        let shown = set_aside.map_or(String::new(), |c| format!(" ({c})"));
        found.flag_cited(
            Code::UnauthorisedThirdCard,
            "UNAUTHORISED_THIRD_CARD/banker",
            seq,
            vec![round.first_seq, seq],
            format!(
                "The Banker's third card{shown} came before the Player's third card ({third}), \
                 and with it the Table of Play gives the Banker no third card. It is not part of \
                 the round; the result stands on the Banker's first two cards. Set the card aside."
            ),
        );
    }
}

/// The position 8.4 and the Table of Play give the next card, if they name one.
fn expected_position(next: NextCard) -> Option<(Side, u8)> {
    match next {
        NextCard::To(side, index) => Some((side, index)),
        NextCard::Unknown(_) | NextCard::Complete => None,
    }
}

/// A card no hand can take (reported `what`): counted against the shoe, in no hand.
fn unplaceable(found: &mut Findings, seq: u64, card: Option<Card>, what: String) {
    let shown = card.map_or("An unreadable card".to_owned(), |c| format!("Card {c}"));
    found.flag(
        Code::DealOutOfOrder,
        seq,
        vec![seq],
        format!(
            "{shown} was reported {what}. It left the shoe but belongs to no hand: it is not \
             counted in any round and starts none. Find out where it went (8.4); if a round \
             cannot be reconstructed, it is a misdeal."
        ),
    );
}

/// A card dealt to another position than the next by 8.4 and the Table of Play.
fn out_of_order(
    found: &mut Findings,
    seq: u64,
    card: Option<Card>,
    side: Side,
    position: usize,
    next: NextCard,
) {
    let expected = match next {
        NextCard::To(s, i) => format!("{s} card {i}"),
        NextCard::Unknown(s) => format!("possibly {s} card 3"),
        NextCard::Complete => "no further card".to_owned(),
    };
    found.flag(
        Code::DealOutOfOrder,
        seq,
        vec![seq],
        format!(
            "{} was dealt to {side} card {position}, but by 8.4 and the Table of Play the next \
             card is {expected}. The hands are followed as dealt; the supervisor decides whether \
             the round can be reconstructed or is a misdeal.",
            card.map_or("An unreadable card".to_owned(), |c| format!("Card {c}")),
        ),
    );
}

impl Live {
    /// Puts `card` (at `seq`) in `side`'s hand and says what the hands now need next.
    #[inline(always)]
    pub(super) fn push(
        &mut self,
        drawing: &DrawingTable,
        seq: u64,
        side: Side,
        card: Option<Card>,
    ) {
        self.hands.get_mut(side).push(card);
        // A round carried over is dealt on from its second card.
        self.carried &= self.hands.player.len() + self.hands.banker.len() <= 1;
        if let Some(slot) = self.seqs.get_mut(usize::from(self.placed)) {
            *slot = seq;
            self.placed += 1;
        }
        self.next = drawing.next_card(&self.hands.player, &self.hands.banker);
        // A tentative round complete by the rules waits for the next event.
        self.confirming = self.tentative && self.next == NextCard::Complete;
        self.last_seq = seq;
        self.placed_late(seq);
    }

    /// Places the cards held for later positions whose turn has come.
    fn place_ahead(&mut self, drawing: &DrawingTable) {
        let mut placed = true;
        while placed {
            placed = false;
            for i in 0..self.ahead.len() {
                let Some((side, index, card, seq)) = self.ahead[i] else {
                    continue;
                };
                if usize::from(index) == self.hands.get(side).len() + 1 {
                    self.ahead[i] = None;
                    self.ahead_len -= 1;
                    let last = self.last_seq;
                    self.push(drawing, seq, side, card);
                    self.last_seq = last.max(seq);
                    placed = true;
                }
            }
        }
    }

    /// Cards still held for later positions when the round ends: their positions never came,
    /// so they join the hands as dealt.
    pub(super) fn flush_ahead(&mut self, drawing: &DrawingTable) {
        for i in 0..self.ahead.len() {
            if let Some((side, _, card, seq)) = self.ahead[i].take() {
                self.ahead_len -= 1;
                let last = self.last_seq;
                self.push(drawing, seq, side, card);
                self.last_seq = last.max(seq);
            }
        }
    }
}
