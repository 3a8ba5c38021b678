//! Dealing a round: cards reported to a hand (targeted) and plain cards placed by the Table of Play, out-of-order and stray third cards, tentative rounds.

use super::*;

impl Engine {
    /// Places a card the device reported to `side` (at `index`, when given); returns the round
    /// it belongs to. The device is believed about where the card is: the hands are followed as
    /// dealt, and a round is complete when both hands hold what the Table of Play gives them,
    /// whatever order the cards came in. Only a Player or Banker card 1 starts a round, so a
    /// stray card never invents one.
    pub(super) fn deal_targeted(
        &mut self,
        seq: u64,
        card: Option<Card>,
        side: Side,
        index: Option<u8>,
        face_up: Option<bool>,
        retransmit: bool,
    ) -> Option<u32> {
        let what = |index: Option<u8>| match index {
            Some(i) => format!("as {side} card {i}"),
            None => format!("to the {side}"),
        };
        if !self.round.active {
            match index {
                None | Some(1) => {}
                Some(3) => {
                    if let Some(r) = self.stray_third_card(seq, card, side, face_up) {
                        return Some(r);
                    }
                    let round = self.prev.filter(|p| p.open).map(|p| p.record.round);
                    self.unplaceable(
                        seq,
                        card,
                        round,
                        format!("{}, when no round was being dealt", what(index)),
                    );
                    return round;
                }
                Some(_) => {
                    // A card 2, or a fourth card, with no round in progress: it cannot begin one.
                    let round = self.prev.filter(|p| p.open).map(|p| p.record.round);
                    self.unplaceable(
                        seq,
                        card,
                        round,
                        format!("{}, when no round was being dealt", what(index)),
                    );
                    return round;
                }
            }
            self.start_round(seq, false);
        } else if index == Some(1) && !self.round.hands.get(side).is_empty() {
            // The device says a new round began while this one was unfinished.
            self.close_round(seq, Boundary::NewRound);
            self.start_round(seq, false);
        }
        if let Some(prev) = &mut self.prev {
            prev.open = false;
        }
        let number = self.round.number;
        let hands = self.round.hands;
        let len = hands.get(side).len();
        let position = match index {
            Some(i) if i >= 1 => usize::from(i),
            _ => len + 1,
        };
        if position > Hand::MAX {
            self.unplaceable(
                seq,
                card,
                Some(number),
                format!(
                    "{}, but a Baccarat hand holds at most three cards",
                    what(index)
                ),
            );
            return Some(number);
        }
        if position <= len {
            let held = hands.get(side).card(position - 1).flatten();
            let holding = held.map_or("an unreadable card".to_owned(), |c| c.to_string());
            self.unplaceable(
                seq,
                card,
                Some(number),
                format!("{}, a position that already holds {holding}", what(index)),
            );
            return Some(number);
        }
        // Checked here rather than when a round starts: a Player card carried over by 12.1(b)
        // from the last coup belongs to that coup's settlement, and the round it starts is past
        // the last coup only once it is dealt on.
        self.check_past_last_coup(seq);
        let next = self.drawing.next_card(&hands.player, &hands.banker);
        if position > len + 1 {
            if let Some(slot) = self.round.ahead.iter_mut().find(|a| a.is_none()) {
                // A later position of the hand than the next: the device says where the card
                // is, so it waits there until the positions before it are filled.
                *slot = Some((side, position as u8, card, seq));
                self.round.ahead_len += 1;
                if !self.round.order_flagged {
                    self.round.order_flagged = true;
                    self.round.order_gap = expected_position(next);
                    self.flag_out_of_order(seq, card, side, position, next, number);
                }
                return Some(number);
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
            self.push(seq, side, card);
            if retransmit && self.round.order_gap == Some((side, position as u8)) {
                self.withdraw_order_flag();
            }
        } else if side == Side::Player
            && position == 3
            && len == 2
            && next == NextCard::To(Side::Banker, 3)
        {
            // 12.1: a third card to the Player that the rules do not authorise, while the round
            // is still open, so the Banker must draw: 12.1(a) makes it the Banker's third card.
            self.flag_player_card_to_banker(seq, card, number);
            self.push(seq, Side::Banker, card);
            return Some(number);
        } else {
            if !self.round.order_flagged {
                self.round.order_flagged = true;
                self.round.order_gap = expected_position(next);
                self.flag_out_of_order(seq, card, side, position, next, number);
            }
            self.push(seq, side, card);
        }
        if self.round.ahead_len > 0 {
            self.place_ahead();
        }
        if side == Side::Player && self.round.hands.player.len() == 3 {
            self.check_early_banker_card(seq);
        }
        Some(number)
    }

    /// A card reported out of order only because the card before it was lost in transmission:
    /// that card has now arrived, retransmitted, for the very position the rules expected. If
    /// the round's irregularity is that finding alone, it is withdrawn (it was not yet output).
    #[cold]
    #[inline(never)]
    pub(super) fn withdraw_order_flag(&mut self) {
        self.round.order_gap = None;
        let number = self.round.number;
        let only_order = self.pending.as_ref().is_some_and(|p| {
            p.shoe == self.shoe_no
                && p.round == Some(number)
                && p.code == Code::DealOutOfOrder
                && p.also.is_empty()
        });
        if only_order {
            self.pending = None;
            self.round.order_flagged = false;
        }
    }

    /// Places the cards held for later positions whose turn has come.
    #[cold]
    #[inline(never)]
    pub(super) fn place_ahead(&mut self) {
        let mut placed = true;
        while placed {
            placed = false;
            for i in 0..self.round.ahead.len() {
                let Some((side, index, card, seq)) = self.round.ahead[i] else {
                    continue;
                };
                if usize::from(index) == self.round.hands.get(side).len() + 1 {
                    self.round.ahead[i] = None;
                    self.round.ahead_len -= 1;
                    let last = self.round.last_seq;
                    self.push(seq, side, card);
                    self.round.last_seq = last.max(seq);
                    placed = true;
                }
            }
        }
    }

    /// Cards still held for later positions when the round ends: their positions never came,
    /// so they join the hands as dealt.
    pub(super) fn flush_ahead(&mut self) {
        for i in 0..self.round.ahead.len() {
            if let Some((side, _, card, seq)) = self.round.ahead[i].take() {
                self.round.ahead_len -= 1;
                let last = self.round.last_seq;
                self.push(seq, side, card);
                self.round.last_seq = last.max(seq);
            }
        }
    }

    #[cold]
    #[inline(never)]
    pub(super) fn flag_player_card_to_banker(&mut self, seq: u64, card: Option<Card>, number: u32) {
        self.flag(
            Code::UnauthorisedThirdCard,
            Some(number),
            seq,
            &[seq],
            format!(
                "A third card{} was dealt to the Player's hand, which the rules do not authorise. \
                 The Banker's hand must draw, so by 12.1(a) it becomes the Banker's third card. \
                 Check that the hands were settled that way.",
                card.map_or(String::new(), |c| format!(" ({c})"))
            ),
        );
    }

    #[cold]
    #[inline(never)]
    pub(super) fn flag_out_of_order(
        &mut self,
        seq: u64,
        card: Option<Card>,
        side: Side,
        position: usize,
        next: NextCard,
        number: u32,
    ) {
        let expected = match next {
            NextCard::To(s, i) => format!("{s} card {i}"),
            NextCard::Unknown(s) => format!("possibly {s} card 3"),
            NextCard::Complete => "no further card".to_owned(),
        };
        self.flag(
            Code::DealOutOfOrder,
            Some(number),
            seq,
            &[seq],
            format!(
                "{} was dealt to {side} card {position}, but by 8.4 and the Table of Play the next \
                 card is {expected}. The hands are followed as dealt; the supervisor decides \
                 whether the round can be reconstructed or is a misdeal.",
                card.map_or("An unreadable card".to_owned(), |c| format!("Card {c}")),
            ),
        );
    }

    /// The Player's third card has come after a Banker third card (dealt out of order): now the
    /// Table of Play can say whether the Banker was entitled to it. If not, it is set aside and
    /// not counted in the round, and the round's irregularity says so.
    pub(super) fn check_early_banker_card(&mut self, seq: u64) {
        let hands = self.round.hands;
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
            == pitwatch_baccarat::drawing::Decision::Draw
        {
            return;
        }
        let Some(set_aside) = self.round.hands.banker.pop() else {
            return;
        };
        let shown = set_aside.map_or(String::new(), |c| format!(" ({c})"));
        let first = self.round.first_seq;
        self.flag_with(
            Code::UnauthorisedThirdCard,
            Cite::BankerCard,
            Some(self.round.number),
            seq,
            &[first, seq],
            format!(
                "The Banker's third card{shown} came before the Player's third card ({third}), \
                 and with it the Table of Play gives the Banker no third card. It is not part of \
                 the round; the result stands on the Banker's first two cards. Set the card aside."
            ),
        );
    }

    /// Places a card from a plain shoe where the rules say the next card goes; returns the round.
    #[inline(always)]
    pub(super) fn deal_plain(
        &mut self,
        seq: u64,
        card: Option<Card>,
        face_up: Option<bool>,
    ) -> Option<u32> {
        if !self.round.active {
            if let Some(r) = self.start_plain_round(seq, card, face_up) {
                return Some(r);
            }
        }
        if let Some(prev) = &mut self.prev {
            prev.open = false;
        }
        let to = match self
            .drawing
            .next_card(&self.round.hands.player, &self.round.hands.banker)
        {
            NextCard::To(s, _) | NextCard::Unknown(s) => s,
            NextCard::Complete => Side::Player,
        };
        if !self.round.tentative {
            // A round begun by a card between rounds (12.1(b)) may yet prove to be that card and
            // more set aside, all of the round before: it is past the last coup only once it is
            // confirmed as a round.
            self.check_past_last_coup(seq);
        }
        self.push(seq, to, card);
        Some(self.round.number)
    }

    /// Starts a plain round with this card, or, if it is a card between rounds, the round it
    /// begins under 12.1(b) (returned).
    #[inline(never)]
    pub(super) fn start_plain_round(
        &mut self,
        seq: u64,
        card: Option<Card>,
        face_up: Option<bool>,
    ) -> Option<u32> {
        if let Some(r) = self.card_between_rounds(seq, card, face_up) {
            return Some(r);
        }
        let unannounced =
            !self.bets_reported && self.prev.is_some_and(|p| p.open && !p.result_checked);
        self.start_round(seq, false);
        self.round.unannounced = unannounced;
        None
    }

    /// A plain card after a completed round and before the next round's boundary ("no more bets",
    /// or the round's result in a stream that declares results): a card the rules gave no hand. A
    /// plain shoe cannot say which hand it went to; read as 12.1(b), it becomes the first card of
    /// the next round (with no bets if it was disclosed). If that round then proves one card too
    /// long, the card was set aside instead and the round is the cards after it.
    pub(super) fn card_between_rounds(
        &mut self,
        seq: u64,
        card: Option<Card>,
        face_up: Option<bool>,
    ) -> Option<u32> {
        let prev = self.prev.filter(|p| {
            p.open && (self.bets_reported || self.results_declared() && !p.result_checked)
        })?;
        self.flag_card_between_rounds(prev.record, seq, card, face_up);
        self.start_round(seq, true);
        self.round.tentative = true;
        self.round.no_bets = face_up == Some(true);
        self.push(seq, Side::Player, card);
        Some(self.round.number)
    }

    /// Flags a plain card dealt after `record`'s round was complete and before the next round's
    /// boundary, read as 12.1(b).
    pub(super) fn flag_card_between_rounds(
        &mut self,
        record: RoundRecord,
        seq: u64,
        card: Option<Card>,
        face_up: Option<bool>,
    ) {
        let shown = card.map_or(String::new(), |c| format!(" ({c})"));
        let then = if face_up == Some(true) {
            " It was disclosed, so the dealer announces \"No bets this hand\" for that round."
        } else {
            ""
        };
        let boundary = if self.bets_reported {
            "\"No more bets\" for the next round"
        } else {
            "the round's result"
        };
        self.flag(
            Code::UnauthorisedThirdCard,
            Some(record.round),
            seq,
            &[record.first_seq, record.last_seq, seq],
            format!(
                "A card{shown} was dealt after round {} was complete and before {boundary}: a \
                 third card the rules do not authorise. By 12.1(b) it becomes the first card of \
                 the next round{then}; if the next round is dealt with four cards of its own, it \
                 was set aside. If instead the next round was dealt before bets closed (8.2), \
                 correct the record.",
                record.round
            ),
        );
    }

    /// A third card for a round that already finished: 12.1(b) for the Player, the drawing
    /// rules for the Banker. Returns the round it was settled in, or `None` if it is not a third
    /// card of the round just completed.
    pub(super) fn stray_third_card(
        &mut self,
        seq: u64,
        card: Option<Card>,
        side: Side,
        face_up: Option<bool>,
    ) -> Option<u32> {
        let prev = self.prev.filter(|p| p.open)?;
        let record = prev.record;
        if record.player.len() != 2 && side == Side::Player
            || record.banker.len() != 2 && side == Side::Banker
        {
            return None;
        }
        let shown = card.map_or(String::new(), |c| format!(" ({c})"));
        match side {
            Side::Player => {
                let disclosed = face_up == Some(true);
                let then = if disclosed {
                    "It was disclosed, so the dealer announces \"No bets this hand\" for the round \
                     it starts."
                } else {
                    "It was not disclosed, so no further action is needed."
                };
                self.flag(
                    Code::UnauthorisedThirdCard,
                    Some(record.round),
                    seq,
                    &[record.first_seq, seq],
                    format!(
                        "A third card{shown} was dealt to the Player's hand in round {}, which the \
                         rules do not authorise. The Banker's hand stands, so by 12.1(b) it becomes \
                         the first card of the next round. {then}",
                        record.round
                    ),
                );
                self.start_round(seq, true);
                self.round.no_bets = disclosed;
                self.push(seq, Side::Player, card);
                Some(self.round.number)
            }
            Side::Banker => {
                if let Some(prev) = &mut self.prev {
                    prev.open = false;
                }
                self.flag_with(
                    Code::UnauthorisedThirdCard,
                    Cite::BankerCard,
                    Some(record.round),
                    seq,
                    &[record.first_seq, seq],
                    format!(
                        "A third card{shown} was dealt to the Banker's hand in round {}, which the \
                         Table of Play does not authorise. It is not part of the round; the result \
                         stands on the first cards. Set the card aside.",
                        record.round
                    ),
                );
                Some(record.round)
            }
        }
    }

    #[inline]
    pub(super) fn push(&mut self, seq: u64, side: Side, card: Option<Card>) {
        let at = self.round.cards();
        if self.round.hands.get_mut(side).push(card) {
            if let Some(slot) = self.round.seqs.get_mut(at) {
                *slot = seq;
            }
        }
        self.round.last_seq = seq;
        if self.round.carried && self.round.cards() > 1 {
            self.round.carried = false;
        }
    }

    /// Emits the current round if its last card has been dealt. Called once the card that
    /// completed it has been counted, so a flag about that card is part of the round's
    /// irregularity. A tentative round (begun with a card between rounds) waits for the next
    /// event to confirm it.
    #[inline]
    pub(super) fn complete_if_done(&mut self) {
        let hands = &self.round.hands;
        if self.round.active
            && !self.round.confirming
            && self.drawing.next_card(&hands.player, &hands.banker) == NextCard::Complete
        {
            if self.round.tentative {
                self.round.confirming = true;
            } else {
                self.complete_round(true);
            }
        }
    }

    /// A tentative round complete by the rules, confirmed by the boundary that followed it.
    pub(super) fn confirm_round(&mut self) {
        self.round.confirming = false;
        self.round.tentative = false;
        self.check_dealt_on_past_last_coup();
        self.complete_round(true);
    }

    /// A round begun by a card between rounds, now known to be a round: if it was dealt on after
    /// the last coup, it is past it (checked at its second card, as an untentative round is).
    pub(super) fn check_dealt_on_past_last_coup(&mut self) {
        if self.round.cards() > 1 {
            self.check_past_last_coup(self.round.seqs[1]);
        }
    }

    /// The cards of a plain round in the order they were placed: P1, B1, P2, B2, then the
    /// Player's third card, then the Banker's.
    pub(super) fn plain_order(hands: &BySide<Hand>) -> ([Option<Card>; 6], usize) {
        let mut cards = [None; 6];
        let mut n = 0;
        let mut add = |card: Option<Option<Card>>| {
            if let Some(card) = card {
                cards[n] = card;
                n += 1;
            }
        };
        add(hands.player.card(0));
        add(hands.banker.card(0));
        add(hands.player.card(1));
        add(hands.banker.card(1));
        add(hands.player.card(2));
        add(hands.banker.card(2));
        (cards, n)
    }

    /// The hands the cards of a tentative round after its first (the card between rounds) make,
    /// if they make a complete round by themselves.
    pub(super) fn rest_round(&self) -> Option<BySide<Hand>> {
        let (cards, n) = Self::plain_order(&self.round.hands);
        if n < 2 {
            return None;
        }
        let mut hands = BySide {
            player: Hand::new(),
            banker: Hand::new(),
        };
        for card in cards.iter().take(n).skip(1) {
            match self.drawing.next_card(&hands.player, &hands.banker) {
                NextCard::To(s, _) | NextCard::Unknown(s) => {
                    hands.get_mut(s).push(*card);
                }
                NextCard::Complete => return None,
            }
        }
        (self.drawing.next_card(&hands.player, &hands.banker) == NextCard::Complete)
            .then_some(hands)
    }

    /// Whether a declared `outcome` shows that a tentative round complete by the rules was dealt
    /// without its first card: the cards after it make a round with that result, and the round
    /// with it does not.
    pub(super) fn result_says_set_aside(&self, outcome: Outcome) -> bool {
        let hands = &self.round.hands;
        let with = RoundRecord::from_hands(0, 0, hands.player, hands.banker).outcome;
        let without = self
            .rest_round()
            .and_then(|h| RoundRecord::from_hands(0, 0, h.player, h.banker).outcome);
        with != Some(outcome) && without == Some(outcome)
    }

    /// Deals a tentative round again without the card between rounds it began with: that card
    /// was set aside, and the round is the cards after it.
    pub(super) fn redeal_tentative(&mut self) {
        let r = self.round;
        let (cards, n) = Self::plain_order(&r.hands);
        self.round = Round {
            active: true,
            number: r.number,
            first_seq: r.seqs[1.min(n.saturating_sub(1))],
            last_seq: r.seqs[1.min(n.saturating_sub(1))],
            order_flagged: r.order_flagged,
            ..Round::IDLE
        };
        for (&seq, &card) in r.seqs.iter().zip(&cards).take(n).skip(1) {
            let to = match self
                .drawing
                .next_card(&self.round.hands.player, &self.round.hands.banker)
            {
                NextCard::To(s, _) | NextCard::Unknown(s) => s,
                NextCard::Complete => break,
            };
            self.push(seq, to, card);
        }
        self.check_dealt_on_past_last_coup();
        self.complete_if_done();
    }
}
