//! The burn (7.7): its first card and burn cards, held cards of a burn not yet known to be one, the device's burn count.

use super::*;

impl Engine {
    // ----- the burn -----

    /// Whether a plain card drawn now belongs to the burn whatever the count says: the stream
    /// reports "no more bets" and none has come in this shoe yet, so no round has begun (8.2).
    pub(super) fn before_first_bets(&self, target: Option<Target>) -> bool {
        !self.shoe.bets_seen && target.is_none() && self.bets_reported && !self.shoe.partial
    }

    /// Handles a card during the burn; returns `true` when the card was a burn card. The burn's
    /// step is the shared tracker's ([`burn::step`]), read as Baccarat reads a plain shoe: every
    /// plain card before the shoe's first "no more bets" is the burn's, and after an unreadable
    /// first card plain cards are held until "no more bets" or the device's count says where the
    /// burn ended.
    pub(super) fn burn_card(
        &mut self,
        seq: u64,
        card: Option<Card>,
        target: Option<Target>,
        face_up: Option<bool>,
    ) -> bool {
        // Most cards come after the burn: they cost one test, as before the step was shared.
        match self.shoe.burn {
            Burn::NotExpected => return false,
            Burn::Done { .. } if !self.before_first_bets(target) => return false,
            _ => {}
        }
        let reading = burn::Reading {
            until_bets: self.before_first_bets(target),
            hold_unknown: !self.bets_reported && !self.shoe.partial,
        };
        let mut found = Vec::new();
        let step = burn::step(
            &mut self.shoe.burn,
            self.book.burn(),
            seq,
            card,
            target,
            face_up,
            false,
            reading,
            &mut found,
        );
        for finding in found {
            match finding {
                burn::Found::Missing { seq, message } => {
                    self.flag(Code::BurnMissing, None, seq, &[seq], message())
                }
                burn::Found::Count {
                    seq,
                    first_seq,
                    expected,
                    seen,
                    how,
                } => self.flag_burn_count(seq, first_seq, expected, seen, how),
            }
        }
        match step {
            burn::Step::Burned => true,
            burn::Step::NotBurn => false,
            burn::Step::Unknown => self.hold_burn_card(seq, card),
        }
    }

    /// A plain card after an unreadable first card, in a stream not yet known to report "no more
    /// bets": held as the burn's until "no more bets" or the device's burn count says where the
    /// burn ended, or, if neither comes within the longest burn, the cards after the first card
    /// are followed as rounds. Returns whether it was held.
    pub(super) fn hold_burn_card(&mut self, seq: u64, card: Option<Card>) -> bool {
        let Burn::Burning {
            expected,
            seen,
            first_seq,
        } = self.shoe.burn
        else {
            return false;
        };
        let held = usize::from(self.shoe.held_burn_len);
        if held < HELD_BURN {
            self.shoe.held_burn[held] = (card, seq);
            self.shoe.held_burn_len += 1;
            self.shoe.burn = Burn::Burning {
                expected,
                seen: seen + 1,
                first_seq,
            };
            return true;
        }
        self.shoe.burn = Burn::Done {
            expected,
            seen: 0,
            first_seq,
        };
        self.release_held_burn(0);
        false
    }

    /// The shoe's first "no more bets": the burn is over, however many cards it had. A burn that
    /// never began is missing; one that stopped short is too short; in a stream not yet known to
    /// report "no more bets" (its first shoe), plain cards already taken for round 1 were burn
    /// cards.
    pub(super) fn end_burn_at_bets(&mut self, seq: u64) {
        match self.shoe.burn {
            Burn::NotExpected => {}
            Burn::AwaitFirst => {
                self.flag(
                    Code::BurnMissing,
                    None,
                    seq,
                    &[seq],
                    burn::missing_at_bets(),
                );
                self.shoe.burn = Burn::Done {
                    expected: None,
                    seen: 0,
                    first_seq: seq,
                };
            }
            Burn::Burning {
                expected,
                seen,
                first_seq,
            } => {
                // Cards held after an unreadable first card were the burn's.
                self.shoe.held_burn_len = 0;
                self.shoe.burn = Burn::Done {
                    expected,
                    seen,
                    first_seq,
                };
                if let Some(e) = expected {
                    if seen < e {
                        self.flag_burn_count(seq, first_seq, e, seen, "too few");
                    }
                }
            }
            Burn::Done {
                expected,
                seen,
                first_seq,
            } => {
                let taken = self.round.active
                    && self.round.number == 1
                    && self.prev.is_none()
                    && !self.round.carried
                    && !self.shoe.partial
                    && self.round.cards() < 4
                    && !self.targets_reported;
                if taken {
                    // Plain cards before the first "no more bets" were taken for round 1 before
                    // the engine knew the stream reports it: they were burn cards.
                    let seen = seen + self.round.cards() as u32;
                    self.drop_round();
                    self.shoe.burn = Burn::Done {
                        expected,
                        seen,
                        first_seq,
                    };
                    if let Some(e) = expected {
                        if seen > e {
                            self.flag_burn_count(seq, first_seq, e, seen, "too many");
                        }
                    }
                }
            }
        }
    }

    pub(super) fn flag_burn_count(
        &mut self,
        seq: u64,
        first_seq: u64,
        expected: u32,
        seen: u32,
        how: &str,
    ) {
        if self.shoe.burn_flagged {
            return;
        }
        self.shoe.burn_flagged = true;
        self.flag(
            Code::BurnCountMismatch,
            None,
            seq,
            &[first_seq, seq],
            burn::count_message(self.book.burn(), expected, seen, how),
        );
    }

    pub(super) fn on_burn_counted(&mut self, seq: u64, count: u32) {
        let Some((expected, seen, first_seq, burning)) = self.shoe.burn.begun() else {
            return;
        };
        if let Some(e) = expected {
            if count != e {
                let how = if count < e { "too few" } else { "too many" };
                self.flag_burn_count(seq, first_seq, e, count, how);
            }
        }
        if burning && self.shoe.held_burn_len > 0 {
            // Cards held after an unreadable first card: the device's count says how many were
            // the burn's; the rest began round 1.
            let burned = count.min(seen);
            self.shoe.burn = Burn::Done {
                expected: Some(count),
                seen: burned,
                first_seq,
            };
            if count > seen {
                self.shoe.burn = Burn::Burning {
                    expected: Some(count),
                    seen,
                    first_seq,
                };
                self.shoe.held_burn_len = 0;
            } else {
                self.release_held_burn(burned as usize);
            }
            return;
        }
        // The device counted the burn, so it knows where the burn ended even when a plain shoe
        // could not say: resynchronise on its count.
        if burning && count <= seen {
            self.shoe.burn = Burn::Done {
                expected,
                seen,
                first_seq,
            };
        } else if !burning
            && count > seen
            && self.round.active
            && self.round.number == 1
            && self.prev.is_none()
            && self.round.cards() as u32 == count - seen
        {
            // A plain shoe took extra burn cards for the first round's cards: give them back.
            self.drop_round();
            self.shoe.burn = Burn::Done {
                expected,
                seen: count,
                first_seq,
            };
        }
    }

    /// Deals the cards held after an unreadable first card, from the `from`th on, as rounds
    /// (they were counted against the shoe when they came).
    pub(super) fn release_held_burn(&mut self, from: usize) {
        let held = self.shoe.held_burn;
        let len = usize::from(self.shoe.held_burn_len);
        self.shoe.held_burn_len = 0;
        for &(card, seq) in held.iter().take(len).skip(from) {
            self.deal_plain(seq, card, None);
            self.complete_if_done();
        }
    }

    /// Forgets the round in progress, which proved not to be a round (its cards were burn
    /// cards); what was flagged about it so far no longer has a round.
    pub(super) fn drop_round(&mut self) {
        self.shoe.rounds = self.shoe.rounds.saturating_sub(1);
        let number = self.round.number;
        self.round = Round::IDLE;
        if let Some(p) = &mut self.pending {
            if p.shoe == self.shoe_no && p.round == Some(number) {
                p.round = None;
            }
        }
        self.settle();
    }
}
