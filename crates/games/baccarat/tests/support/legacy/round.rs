//! The end of a round: completing and closing it, "no more bets", a round set aside, and the declared result checked against the cards.

use super::*;

impl Engine {
    pub(super) fn complete_round(&mut self, complete: bool) {
        // Field by field: the round is large, and this runs for every round.
        let r = &self.round;
        let (number, held) = (r.number, r.held);
        let (seqs, placed) = (r.seqs, r.cards().min(6));
        let mut record =
            RoundRecord::from_hands(self.shoe_no, number, r.hands.player, r.hands.banker);
        record.first_seq = r.first_seq;
        record.last_seq = r.last_seq;
        record.complete = complete;
        record.partial = self.shoe.partial;
        record.no_bets = r.no_bets;
        if self.results_run == 0 && held.is_none() {
            // The last round had no result before the next began, so none is expected to settle
            // this one: its irregularity comes out now, before it.
            self.settle();
        }
        self.out.push_back(Output::Round(record));
        self.last_recorded = Some(record);
        self.prev = Some(Completed {
            record,
            result_checked: false,
            open: true,
        });
        self.round.active = false;
        self.round.held = None;
        self.round.tentative = false;
        self.round.confirming = false;
        if self.shoe.last_round.is_some_and(|last| number >= last) {
            self.shoe.ended = true;
        }
        if let Some(declared) = held {
            // A wrong result is the round's first finding, as when the result comes on time.
            self.check_result(declared);
            if complete {
                self.flag_early_result(declared, record, &seqs[..placed]);
            }
            self.settle();
        }
    }

    /// A round held open by a result declared while a third card was due has received that
    /// card: complete now, but its result was announced before each hand had all the cards it
    /// is entitled to (10.1). Seen with targets (the device placed the card) and in a plain
    /// stream with "no more bets" (every card before the next one is this round's); a plain
    /// stream without them closes the round at its result instead.
    #[cold]
    #[inline(never)]
    pub(super) fn flag_early_result(
        &mut self,
        declared: Declared,
        record: RoundRecord,
        seqs: &[u64],
    ) {
        let late: Vec<u64> = seqs.iter().copied().filter(|s| *s > declared.seq).collect();
        let mut evidence = vec![record.first_seq, declared.seq];
        evidence.extend(&late);
        self.flag(
            Code::ResultMismatch,
            Some(record.round),
            record.last_seq,
            &evidence,
            record.early_result_message(declared.outcome, late.len()),
        );
    }

    /// Ends an unfinished round because something outside it began.
    pub(super) fn close_round(&mut self, seq: u64, boundary: Boundary) {
        if !self.round.active {
            return;
        }
        if self.round.carried_only() && matches!(boundary, Boundary::Reshuffle | Boundary::End) {
            // 12.1(b): the carried card does not survive a reshuffle or replacement.
            self.shoe.rounds -= 1;
            self.round = Round::IDLE;
            return;
        }
        if self.round.tentative
            && self.shoe.ended
            && self.round.cards() > 1
            && boundary == Boundary::Reshuffle
        {
            // Cards after the last coup was complete, until the shuffle: no round could begin
            // after it (11.2), so they were all extra cards of that round, set aside.
            self.set_aside_round(
                seq,
                "before the cards were reshuffled, with no round left after the last coup (11.2)",
            );
            return;
        }
        if self.round.tentative && self.rest_round().is_some() {
            // The round began with a card between rounds, and the cards after it make a whole
            // round: the card was set aside.
            self.redeal_tentative();
            if self.round.active {
                self.round.tentative = false;
                self.round.confirming = false;
                self.complete_round(true);
            }
            return;
        }
        if self.round.ahead_len > 0 {
            self.flush_ahead();
        }
        let hands = self.round.hands;
        let number = self.round.number;
        let evidence = [self.round.first_seq, self.round.last_seq, seq];
        // The first round of a shoe joined part-way may have begun before the engine did, and a
        // round with an unreadable card cannot be judged by the Table of Play.
        // After an interruption, only the round a plain shoe resumed in at once (every round after
        // it is seen whole).
        let joined_mid_round = if self.shoe.interrupted {
            number == self.shoe.resync_round
        } else {
            self.shoe.partial && number == 1
        };
        let unreadable = hands.player.has_unreadable() || hands.banker.has_unreadable();
        // A stream that ends mid-round (a record taken mid-round) says nothing about the cards
        // still to come.
        let judged = !(joined_mid_round || unreadable || boundary == Boundary::End);
        let next = if judged {
            self.drawing.next_card(&hands.player, &hands.banker)
        } else {
            NextCard::Complete
        };
        match next {
            NextCard::To(side, 3) => {
                let why = match boundary {
                    Boundary::Result => "the result was declared",
                    Boundary::BetsClosed => "the next round began",
                    Boundary::NewRound => "the next round's first card was dealt",
                    Boundary::Reshuffle => "the cards were reshuffled or replaced",
                    Boundary::End => "the record ended",
                };
                self.flag(
                    Code::MissingThirdCard,
                    Some(number),
                    seq,
                    &evidence,
                    format!(
                        "The {side} hand ({} = {}) had to draw a third card by the Table of Play, \
                         but {why} first. The round was settled on the wrong cards: review the \
                         payouts.",
                        hands.get(side),
                        hands
                            .get(side)
                            .total()
                            .map_or("?".to_owned(), |t| t.to_string())
                    ),
                );
            }
            NextCard::To(_, _) => {
                self.flag(
                    Code::DealOutOfOrder,
                    Some(number),
                    seq,
                    &evidence,
                    format!(
                        "The initial deal (8.4) was not completed: Player {} / Banker {} when the \
                         round ended. Treat as a misdeal unless it can be reconstructed.",
                        hands.player, hands.banker
                    ),
                );
            }
            _ => {}
        }
        self.complete_round(false);
    }

    /// A round held open by an early result did not get its third card: it is closed as it is,
    /// missing the card, with the result judged on the cards it got.
    pub(super) fn end_hold(&mut self) {
        if let Some(declared) = self.round.held {
            self.close_round(declared.seq, Boundary::Result);
        }
    }

    pub(super) fn on_bets_closed(&mut self, seq: u64) {
        let first_bets_closed = !self.bets_reported;
        self.bets_reported = true;
        if first_bets_closed
            && self.shoe.interrupted
            && self.shoe.resync_round > 0
            && self.round.active
        {
            // A plain shoe resumed at once after an interruption, before the stream was
            // known to close bets (the burn may have been dealt into its first rounds):
            // this first "no more bets" shows where rounds really begin, so the round it
            // closes may have begun unseen and is not judged.
            self.shoe.resync_round = self.round.number;
        }
        if !self.shoe.bets_seen {
            self.end_burn_at_bets(seq);
            self.shoe.bets_seen = true;
        }
        if self.shoe.await_bets {
            // After an interruption: the next round begins here.
            self.shoe.await_bets = false;
            self.shoe.synced = true;
        }
        if self.round.active && self.round.carried_only() {
            self.round.after_bets = true;
        }
        if self.round.active
            && self.round.tentative
            && !self.round.after_bets
            && self.round.cards() > 1
        {
            // More than one card after the last round was complete and before "no more bets":
            // the next round begins only now (8.2), so they were all extra cards of that round.
            self.set_aside_round(seq, "before \"No more bets\" for the next round");
        }
        if self.round.active && !self.round.carried_only() {
            self.close_round(seq, Boundary::BetsClosed);
        }
        if let Some(prev) = &mut self.prev {
            prev.open = false;
        }
        self.settle();
    }

    /// The round being dealt was no round: its cards came after the last round was complete and
    /// `before` the boundary that shows the next round had not begun. They were extra cards of
    /// the last round, set aside; the finding joins that round's irregularity.
    pub(super) fn set_aside_round(&mut self, seq: u64, before: &str) {
        let r = self.round;
        let Some(prev) = self.prev.map(|p| p.record) else {
            return;
        };
        self.shoe.rounds = self.shoe.rounds.saturating_sub(1);
        self.round = Round::IDLE;
        let (cards, n) = Self::plain_order(&r.hands);
        let shown: Vec<String> = cards
            .iter()
            .take(n)
            .map(|c| c.map_or("??".to_owned(), |c| c.to_string()))
            .collect();
        self.flag(
            Code::UnauthorisedThirdCard,
            Some(prev.round),
            seq,
            &[prev.first_seq, prev.last_seq, r.first_seq, r.last_seq, seq],
            format!(
                "{} card(s) ({}) were dealt after round {} was complete and {before}: cards the \
                 rules give no hand, set aside. The round stands on its own cards.",
                n,
                shown.join(" "),
                prev.round
            ),
        );
    }

    pub(super) fn on_result(
        &mut self,
        seq: u64,
        outcome: Outcome,
        player_pair: Option<bool>,
        banker_pair: Option<bool>,
    ) {
        let declared = Declared {
            outcome,
            player_pair,
            banker_pair,
            seq,
        };
        let awaiting = self.prev.filter(|p| !p.result_checked);
        if let Some(prev) = awaiting.filter(|_| self.round.active && self.round.unannounced) {
            if self.round.cards() == 1 {
                // One card between the last round and its result: read as 12.1(b), the first
                // card of the next round (the stream was not yet known to declare every result).
                let (card, first) = (
                    self.round.hands.player.card(0).flatten(),
                    self.round.first_seq,
                );
                self.round.unannounced = false;
                self.round.carried = true;
                self.round.tentative = true;
                self.flag_card_between_rounds(prev.record, first, card, None);
            }
        }
        let before_result = self.prev.is_some_and(|p| !p.result_checked)
            && (self.round.tentative && self.round.cards() > 1
                || self.round.unannounced && self.round.cards() < 4);
        if self.round.active && before_result {
            // Cards dealt after the last round was complete and before its result: the result
            // is that round's, and the cards were extra cards of it, set aside; the next round
            // begins after the result.
            self.set_aside_round(seq, "before its result was declared");
        }
        if self.round.active && !self.round.carried_only() {
            if outcome == Outcome::Void {
                // A forced quit: the round is void, nothing is missing from it.
                self.complete_round(false);
            } else {
                let hands = &self.round.hands;
                let third_due = matches!(
                    self.drawing.next_card(&hands.player, &hands.banker),
                    NextCard::To(_, 3)
                );
                // Declared while a third card is still due: the card may yet come (a device that
                // places cards says where it goes; a plain shoe's cards until "no more bets" are
                // this round's).
                self.round.held = Some(declared);
                if third_due && (self.targets_reported || self.bets_reported) {
                    return;
                }
                // Closed by its result: judged on the cards it got, with the result, as one.
                self.end_hold();
            }
        }
        self.check_result(declared);
        self.settle();
    }

    /// Checks a declared result against the last round recorded, once.
    pub(super) fn check_result(&mut self, declared: Declared) {
        // After an interruption a plain shoe's first round may have begun unseen: not judged.
        let unjudged = self.shoe.interrupted.then_some(self.shoe.resync_round);
        let Some(prev) = self.prev.as_mut().filter(|p| !p.result_checked) else {
            return;
        };
        prev.result_checked = true;
        let r = prev.record;
        let Declared {
            outcome,
            player_pair,
            banker_pair,
            seq,
        } = declared;
        if outcome == Outcome::Void || unjudged == Some(r.round) {
            return;
        }
        let wrong = r.result_mismatches(outcome, player_pair, banker_pair);
        if wrong.is_empty() {
            return;
        }
        self.flag(
            Code::ResultMismatch,
            Some(r.round),
            seq,
            &[r.first_seq, r.last_seq, seq],
            r.result_mismatch_message(&wrong),
        );
    }
}
