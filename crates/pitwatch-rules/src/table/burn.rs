//! The burn on the shared tracker, for every game whose book has a `[burn]` section: its policy
//! is the shared shoe section's ([`crate::BurnPolicy`], in [`super::ShoeRules::burn`]); a book
//! without one (every Blackjack, Pontoon and poker book so far) has no burn and nothing here
//! changes its table.
//!
//! A shoe started by a shuffle (not one joined part-way) expects its burn: under
//! `first_card_value` a first card face up whose value sets how many cards follow it, under
//! `fixed` that many cards. A device that reports targets marks the burn's cards (`first`,
//! `burn`); a plain shoe's first cards are counted off by the first card's value. A round's card
//! before the burn is `BURN_MISSING`; a burn longer or shorter than its first card requires (by
//! the cards, or by the device's own burn count) is `BURN_COUNT_MISMATCH`, once a shoe. A game
//! may have plain cards read past the count until the shoe's first "no more bets", or held after
//! an unreadable first card ([`Reading`], `RoundGame::burn_reading`). The messages are
//! Baccarat's, which the fixtures hold.

use pitwatch_model::{Card, Target};

use crate::book::BurnPolicy;
use crate::irregularity::IrregularityCode as Code;
use crate::view::{BurnStatus, BurnView};

/// Where the burn stands in the current shoe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Burn {
    /// No burn is due (no burn policy, the shoe was joined part-way, or the cards replaced).
    NotExpected,
    /// The next card is the burn's first card.
    AwaitFirst,
    /// Burn cards are being drawn; `expected` is `None` when the first card was unreadable.
    Burning {
        /// Cards the burn takes after its first card, when known.
        expected: Option<u32>,
        /// Burn cards drawn so far.
        seen: u32,
        /// `seq` of the burn's first card.
        first_seq: u64,
    },
    /// The burn is over.
    Done {
        /// Cards the burn takes after its first card, when known.
        expected: Option<u32>,
        /// Burn cards drawn so far.
        seen: u32,
        /// `seq` of the burn's first card.
        first_seq: u64,
    },
}

impl Burn {
    /// A burn that has begun, as the device's own burn count meets it: (expected, seen,
    /// `first_seq`, still burning).
    pub fn begun(self) -> Option<(Option<u32>, u32, u64, bool)> {
        match self {
            Burn::Burning {
                expected,
                seen,
                first_seq,
            } => Some((expected, seen, first_seq, true)),
            Burn::Done {
                expected,
                seen,
                first_seq,
            } => Some((expected, seen, first_seq, false)),
            Burn::NotExpected | Burn::AwaitFirst => None,
        }
    }

    /// The burn for the table view.
    pub fn view(self) -> BurnView {
        let (status, expected, burned) = match self {
            Burn::NotExpected => (BurnStatus::NotExpected, None, 0),
            Burn::AwaitFirst => (BurnStatus::AwaitingFirst, None, 0),
            Burn::Burning { expected, seen, .. } => (BurnStatus::Burning, expected, seen),
            Burn::Done { expected, seen, .. } => (BurnStatus::Done, expected, seen),
        };
        BurnView {
            status,
            expected,
            burned,
        }
    }
}

/// A burn finding, for the table to flag outside any round: (code, evidence, message).
pub type BurnFinding = (Code, Vec<u64>, String);

/// What a card showed wrong with the burn, for the game to flag (a count once a shoe).
#[derive(Debug, Clone, Copy)]
pub enum Found {
    /// `BURN_MISSING` at `seq`, with this message.
    Missing {
        /// The card that showed it.
        seq: u64,
        /// The irregularity's message.
        message: fn() -> String,
    },
    /// `BURN_COUNT_MISMATCH`: `seen` burned (at `seq`) where the first card (at `first_seq`)
    /// requires `expected` (`how`: "too many" or "too few").
    Count {
        /// The card that showed it.
        seq: u64,
        /// The burn's first card.
        first_seq: u64,
        /// The burn cards the first card requires.
        expected: u32,
        /// The burn cards drawn.
        seen: u32,
        /// "too many" or "too few".
        how: &'static str,
    },
}

/// What one card was to the burn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// A burn card: counted against the shoe, given to no round.
    Burned,
    /// Not a burn card: the game places it.
    NotBurn,
    /// A plain card after an unreadable first card, in a stream that may yet say where the burn
    /// ends ([`Reading::hold_unknown`]): the burn is unchanged, and the game decides.
    Unknown,
}

/// How a game reads a plain card during the burn beyond the first card's count: the shared
/// tracker as the game says (`RoundGame::burn_reading`), Baccarat's engine both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Reading {
    /// The stream reports "no more bets" and the shoe's first has not come: every plain card
    /// until it is the burn's (8.2: no round begins before it), past the count too.
    pub until_bets: bool,
    /// After an unreadable first card (its count unknown), a plain card is [`Step::Unknown`]
    /// rather than the end of the burn.
    pub hold_unknown: bool,
}

/// One card drawn at `seq` against the burn `burn` under `policy` (`round_card`: the game places
/// it in a round), read as `reading` says: the one burn step every game's burn takes, the shared
/// tracker's and Baccarat's engine's. Returns what the card was; what it showed wrong is pushed
/// on `found`.
#[allow(clippy::too_many_arguments)]
pub fn step(
    burn: &mut Burn,
    policy: BurnPolicy,
    seq: u64,
    card: Option<Card>,
    target: Option<Target>,
    face_up: Option<bool>,
    round_card: bool,
    reading: Reading,
    found: &mut Vec<Found>,
) -> Step {
    let plain = target.is_none() && !round_card;
    let too_many = |e: Option<u32>, seen: u32, found: &mut Vec<Found>, first_seq: u64| {
        if let Some(e) = e.filter(|e| seen > *e) {
            found.push(Found::Count {
                seq,
                first_seq,
                expected: e,
                seen,
                how: "too many",
            });
        }
    };
    match *burn {
        Burn::NotExpected => Step::NotBurn,
        Burn::Done {
            expected,
            seen,
            first_seq,
        } => {
            if !(plain && reading.until_bets) {
                return Step::NotBurn;
            }
            // A plain card after the burn's count and before the shoe's first "no more bets":
            // one burn card too many.
            let seen = seen + 1;
            *burn = Burn::Done {
                expected,
                seen,
                first_seq,
            };
            if let Some(e) = expected {
                found.push(Found::Count {
                    seq,
                    first_seq,
                    expected: e,
                    seen,
                    how: "too many",
                });
            }
            Step::Burned
        }
        Burn::AwaitFirst => match target {
            Some(Target::First) | None if !round_card => {
                *burn = Burn::Burning {
                    expected: card.map(|c| policy.count_after(c.rank)),
                    seen: 0,
                    first_seq: seq,
                };
                if face_up == Some(false) {
                    found.push(Found::Missing {
                        seq,
                        message: face_down,
                    });
                }
                Step::Burned
            }
            Some(Target::Burn) => {
                found.push(Found::Missing {
                    seq,
                    message: missing,
                });
                *burn = Burn::Burning {
                    expected: None,
                    seen: 1,
                    first_seq: seq,
                };
                Step::Burned
            }
            _ => {
                found.push(Found::Missing {
                    seq,
                    message: missing,
                });
                *burn = Burn::Done {
                    expected: None,
                    seen: 0,
                    first_seq: seq,
                };
                Step::NotBurn
            }
        },
        Burn::Burning {
            expected,
            seen,
            first_seq,
        } => match target {
            // Under a fixed burn a device's "first" card is simply the first burn card.
            Some(Target::Burn | Target::First) => {
                let seen = seen + 1;
                *burn = Burn::Burning {
                    expected,
                    seen,
                    first_seq,
                };
                too_many(expected, seen, found, first_seq);
                Step::Burned
            }
            None if plain && expected.is_none() && reading.hold_unknown => Step::Unknown,
            None if plain && (expected.is_some_and(|e| seen < e) || reading.until_bets) => {
                // Counted off by the first card's value; in a stream that reports "no more
                // bets", every card until the first one (an unreadable first card, or a burn
                // one too long, is still followed).
                let seen = seen + 1;
                *burn = if Some(seen) == expected && !reading.until_bets {
                    Burn::Done {
                        expected,
                        seen,
                        first_seq,
                    }
                } else {
                    Burn::Burning {
                        expected,
                        seen,
                        first_seq,
                    }
                };
                too_many(expected, seen, found, first_seq);
                Step::Burned
            }
            _ => {
                *burn = Burn::Done {
                    expected,
                    seen,
                    first_seq,
                };
                if let Some(e) = expected.filter(|e| seen < *e && target.is_some()) {
                    found.push(Found::Count {
                        seq,
                        first_seq,
                        expected: e,
                        seen,
                        how: "too few",
                    });
                }
                Step::NotBurn
            }
        },
    }
}

/// The burn of one shoe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BurnState {
    policy: BurnPolicy,
    burn: Burn,
    /// Whether the count was flagged (once a shoe).
    count_flagged: bool,
    /// Whether the burn is still to come or being drawn (kept beside `burn` so the table's
    /// check on every card is one flag).
    due: bool,
}

impl BurnState {
    /// No burn due.
    pub const NONE: BurnState = BurnState {
        policy: BurnPolicy::None,
        burn: Burn::NotExpected,
        count_flagged: false,
        due: false,
    };

    /// The burn of a shoe starting at `seq` under `policy` (`partial`: joined part-way, none due).
    pub fn start(policy: BurnPolicy, seq: u64, partial: bool) -> BurnState {
        let burn = if partial {
            Burn::NotExpected
        } else {
            match policy {
                BurnPolicy::None | BurnPolicy::Fixed(0) => Burn::NotExpected,
                BurnPolicy::Fixed(n) => Burn::Burning {
                    expected: Some(n),
                    seen: 0,
                    first_seq: seq,
                },
                BurnPolicy::FirstCardValue { .. } => Burn::AwaitFirst,
            }
        };
        BurnState {
            policy,
            burn,
            count_flagged: false,
            due: matches!(burn, Burn::AwaitFirst | Burn::Burning { .. }),
        }
    }

    /// Whether the book has a burn at all (its view is shown only then).
    pub fn in_book(&self) -> bool {
        self.policy != BurnPolicy::None
    }

    /// Whether the burn is still to come or being drawn.
    #[inline]
    pub fn pending(&self) -> bool {
        self.due
    }

    /// Keeps `due` with the burn's state after a change.
    fn settle(&mut self) {
        self.due = matches!(self.burn, Burn::AwaitFirst | Burn::Burning { .. });
    }

    /// The burn for the table view.
    pub fn view(&self) -> BurnView {
        self.burn.view()
    }

    /// The cards were replaced: the new cards' burn is not followed.
    pub fn stop(&mut self) {
        self.burn = Burn::NotExpected;
        self.due = false;
    }

    /// Whether the next card is read against the burn: while it is still to come or being
    /// drawn, or, when a plain card is read as the burn's until the shoe's first "no more bets"
    /// (`until_bets`, [`Reading::until_bets`]), after its count too.
    #[inline]
    pub fn reads(&self, until_bets: bool) -> bool {
        self.due || until_bets && matches!(self.burn, Burn::Done { .. })
    }

    /// A card drawn at `seq` (`round_card`: the game places it in a round), read as `reading`
    /// says. Returns what it was to the burn ([`Step::Burned`]: counted against the shoe, given
    /// to no round; [`Step::Unknown`]: a plain card after an unreadable first card, for the table
    /// to hold), and what it showed wrong.
    #[allow(clippy::too_many_arguments)]
    pub fn card(
        &mut self,
        seq: u64,
        card: Option<Card>,
        target: Option<Target>,
        face_up: Option<bool>,
        round_card: bool,
        reading: Reading,
        found: &mut Vec<BurnFinding>,
    ) -> Step {
        let step = self.card_in(seq, card, target, face_up, round_card, reading, found);
        self.settle();
        step
    }

    /// A card held as the burn's after an unreadable first card ([`Step::Unknown`]): one more
    /// burn card, until "no more bets" or the device's count says where the burn ended. Whether
    /// the burn was being drawn so that it could.
    pub fn hold(&mut self) -> bool {
        let Burn::Burning {
            expected,
            seen,
            first_seq,
        } = self.burn
        else {
            return false;
        };
        self.burn = Burn::Burning {
            expected,
            seen: seen + 1,
            first_seq,
        };
        true
    }

    /// Neither "no more bets" nor a burn count came within the longest burn: the cards held are
    /// followed as rounds, the burn over with its first card.
    pub fn give_up_holding(&mut self) {
        if let Burn::Burning {
            expected,
            first_seq,
            ..
        } = self.burn
        {
            self.burn = Burn::Done {
                expected,
                seen: 0,
                first_seq,
            };
        }
        self.settle();
    }

    /// The device counted `count` burn cards while cards were held after an unreadable first
    /// card: it says how many were the burn's. Returns from which held card on the rest began the
    /// rounds (`None`: all were the burn's, and it goes on to its count).
    pub fn counted_holding(&mut self, count: u32) -> Option<usize> {
        let Burn::Burning {
            seen, first_seq, ..
        } = self.burn
        else {
            return None;
        };
        if count > seen {
            self.burn = Burn::Burning {
                expected: Some(count),
                seen,
                first_seq,
            };
            return None;
        }
        self.burn = Burn::Done {
            expected: Some(count),
            seen: count,
            first_seq,
        };
        self.settle();
        Some(count as usize)
    }

    /// The cards (`cards`) of a round taken after the burn proved the burn's (a late "no more
    /// bets" at `seq` showed no round had begun): they join the burn, which may now be too long.
    /// Whether the burn was over so that it could take them.
    pub fn take_back(&mut self, seq: u64, cards: u32, found: &mut Vec<BurnFinding>) -> bool {
        let Burn::Done {
            expected,
            seen,
            first_seq,
        } = self.burn
        else {
            return false;
        };
        let seen = seen + cards;
        self.burn = Burn::Done {
            expected,
            seen,
            first_seq,
        };
        if let Some(e) = expected.filter(|e| seen > *e) {
            self.count(seq, first_seq, e, seen, "too many", found);
        }
        true
    }

    /// How many cards after the burn's end the device's burn count `count` says were the
    /// burn's, if it says more than were taken as burn cards.
    pub fn count_beyond(&self, count: u32) -> Option<u32> {
        match self.burn {
            Burn::Done { seen, .. } if count > seen => Some(count - seen),
            _ => None,
        }
    }

    /// The burn had `count` cards, as the device counted (the cards after it taken for a round
    /// given back to it).
    pub fn counted_back(&mut self, count: u32) {
        if let Burn::Done {
            expected,
            first_seq,
            ..
        } = self.burn
        {
            self.burn = Burn::Done {
                expected,
                seen: count,
                first_seq,
            };
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn card_in(
        &mut self,
        seq: u64,
        card: Option<Card>,
        target: Option<Target>,
        face_up: Option<bool>,
        round_card: bool,
        reading: Reading,
        found: &mut Vec<BurnFinding>,
    ) -> Step {
        let mut steps = Vec::new();
        let burned = step(
            &mut self.burn,
            self.policy,
            seq,
            card,
            target,
            face_up,
            round_card,
            reading,
            &mut steps,
        );
        for finding in steps {
            match finding {
                Found::Missing { seq, message } => {
                    found.push((Code::BurnMissing, vec![seq], message()))
                }
                Found::Count {
                    seq,
                    first_seq,
                    expected,
                    seen,
                    how,
                } => self.count(seq, first_seq, expected, seen, how, found),
            }
        }
        burned
    }

    /// The shoe's first "no more bets": the burn is over, however many cards it had.
    pub fn bets_closed(&mut self, seq: u64, found: &mut Vec<BurnFinding>) {
        match self.burn {
            Burn::AwaitFirst => {
                found.push((Code::BurnMissing, vec![seq], missing_at_bets()));
                self.burn = Burn::Done {
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
                self.burn = Burn::Done {
                    expected,
                    seen,
                    first_seq,
                };
                if let Some(e) = expected.filter(|e| seen < *e) {
                    self.count(seq, first_seq, e, seen, "too few", found);
                }
            }
            Burn::NotExpected | Burn::Done { .. } => {}
        }
        self.settle();
    }

    /// The device counted `count` burn cards.
    pub fn counted(&mut self, seq: u64, count: u32, found: &mut Vec<BurnFinding>) {
        let Some((expected, seen, first_seq, burning)) = self.burn.begun() else {
            return;
        };
        if let Some(e) = expected.filter(|e| count != *e) {
            let how = if count < e { "too few" } else { "too many" };
            self.count(seq, first_seq, e, count, how, found);
        }
        // The device knows where the burn ended even when the cards could not say.
        if burning && count <= seen {
            self.burn = Burn::Done {
                expected,
                seen,
                first_seq,
            };
        }
        self.settle();
    }

    fn count(
        &mut self,
        seq: u64,
        first_seq: u64,
        expected: u32,
        seen: u32,
        how: &str,
        found: &mut Vec<BurnFinding>,
    ) {
        if self.count_flagged {
            return;
        }
        self.count_flagged = true;
        found.push((
            Code::BurnCountMismatch,
            vec![first_seq, seq],
            count_message(self.policy, expected, seen, how),
        ));
    }
}

/// `BURN_MISSING`: a round's card came before the burn's first card.
pub fn missing() -> String {
    "Dealing began without the burn's first card drawn face up (7.7(a)). Stop, and have the dealer \
     burn as the rules require before the next round."
        .to_owned()
}

/// `BURN_MISSING`: "no more bets" before the burn's first card.
pub fn missing_at_bets() -> String {
    "\"No more bets\" was called for the first round of the shoe without the burn's first card \
     drawn face up (7.7(a)). Stop, and have the dealer burn as the rules require before the next \
     round."
        .to_owned()
}

/// `BURN_MISSING`: the burn's first card was drawn face down.
pub fn face_down() -> String {
    "The burn's first card was drawn face down; 7.7(a) requires it face up so its value sets the \
     burn count. Confirm the count with the dealer."
        .to_owned()
}

/// `BURN_COUNT_MISMATCH`: `seen` burned where the first card requires `expected` (`how`: "too
/// many" or "too few").
pub fn count_message(policy: BurnPolicy, expected: u32, seen: u32, how: &str) -> String {
    format!(
        "The burn had {how} cards: {seen} burned where the first card requires {expected} (10, J, \
         Q, K count 10; ace {}). Record it; the shoe continues.",
        match policy {
            BurnPolicy::FirstCardValue { ace } => ace,
            _ => 1,
        }
    )
}
