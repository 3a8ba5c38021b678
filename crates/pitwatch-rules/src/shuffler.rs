//! A table's automatic shuffler beside its card-reading shoe: each shuffle's deck check
//! (`deck_checked`) is judged when it arrives and held for the shoe loaded from it, which the
//! shoe reports (`shuffled`). Shared by every engine, so Baccarat, Blackjack, Pontoon and poker
//! judge a shuffler alike.
//!
//! - A deck check that is not exactly the decks it was loaded with (a count off, a card missing,
//!   doubled or foreign, or a deck count outside the rule book) is flagged at once: the deck must
//!   leave the table before it is dealt.
//! - A shoe loaded when the table's shuffler has reported before, but has completed no shuffle
//!   since the last shoe, was loaded from a shuffle never completed (or not shuffled at all).
//! - A shoe loaded from a shuffle whose check failed is flagged again at the load: cards are
//!   being dealt from a defective deck.
//! - A shoe whose own deck count disagrees with the shuffle's is flagged.
//! - A shoe loaded while a shuffle the shuffler started (`shuffle_started`) never completed is
//!   flagged as loaded from that abandoned shuffle, once (not also as loaded from no shuffle);
//!   a second start with no completion between is the first shuffle interrupted.
//! - Where the rule book requires the cards to be prepared by hand before they are loaded
//!   (Pontoon 6.4: chemmy shuffled, stacked, riffle shuffled; `shuffle_step`), a load not
//!   preceded since the last one by every step, in order, is flagged.

use pitwatch_model::{EventKind, ShuffleStep};
use serde::{Deserialize, Serialize};

use crate::irregularity::IrregularityCode as Code;

/// A completed shuffle's deck check, held for the next shoe.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeldCheck {
    /// The `deck_checked` event.
    pub seq: u64,
    /// Decks shuffled, when said.
    pub decks: Option<u8>,
    /// Cards counted (absent from carries written before it was kept).
    #[serde(default)]
    pub cards: Option<u32>,
    /// What was wrong with it, if anything.
    pub problem: Option<String>,
}

/// What the engine knows of the table's shuffler (carried from shoe to shoe).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShufflerWatch {
    /// The stream has reported a shuffler's deck check: shoes are loaded from its shuffles.
    pub seen: bool,
    /// The last shuffle completed since the last shoe was loaded.
    pub pending: Option<HeldCheck>,
    /// A shuffle started (its `shuffle_started`) and not completed yet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started: Option<u64>,
    /// The hand-preparation steps logged since the last load, with their events.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<(ShuffleStep, u64)>,
    /// Whether the cards of the coming shoe were already judged for their steps (when they went
    /// into the shuffler): the shoe's own load is not judged again.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub steps_judged: bool,
}

/// The rule book's limits a deck check is judged against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Fewest decks allowed.
    pub min_decks: u8,
    /// Most decks allowed.
    pub max_decks: u8,
    /// Decks when the shuffler does not say.
    pub default_decks: u8,
    /// Cards in one deck (52, or 48 for Spanish decks).
    pub cards_per_deck: u32,
}

/// Something to flag: the code, the events that show it, and what to say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShufflerFinding {
    /// The irregularity.
    pub code: Code,
    /// The events that show it, ascending.
    pub evidence: Vec<u64>,
    /// What happened and what to do.
    pub message: String,
}

impl ShufflerWatch {
    /// A deck check arrived (`seq`, a `deck_checked` event; any other kind is ignored): judged
    /// now, and held for the next shoe. Returns the finding when it is not exactly the decks
    /// loaded.
    pub fn checked(
        &mut self,
        seq: u64,
        event: &EventKind,
        limits: Limits,
    ) -> Option<ShufflerFinding> {
        let &EventKind::DeckChecked {
            decks: decks_said,
            cards,
            expected,
            missing,
            extra,
            foreign,
            ..
        } = event
        else {
            return None;
        };
        self.seen = true;
        // The shuffle started (if its start was seen) is complete.
        self.started = None;
        let decks = decks_said.unwrap_or(limits.default_decks);
        let holds = u32::from(decks) * limits.cards_per_deck;
        let mut wrong = Vec::new();
        if !(limits.min_decks..=limits.max_decks).contains(&decks) {
            wrong.push(format!(
                "{decks} decks, where the rule book allows {} to {}",
                limits.min_decks, limits.max_decks
            ));
        }
        if cards != expected || cards != holds {
            wrong.push(format!(
                "{} cards counted, where {decks} decks of {} hold {holds}",
                cards, limits.cards_per_deck
            ));
        }
        if missing + extra + foreign > 0 {
            wrong.push(format!(
                "{} missing, {} extra and {} foreign",
                missing, extra, foreign
            ));
        }
        let problem = (!wrong.is_empty()).then(|| wrong.join("; "));
        self.pending = Some(HeldCheck {
            seq,
            decks: decks_said,
            cards: Some(cards),
            problem: problem.clone(),
        });
        problem.map(|p| ShufflerFinding {
            code: Code::ShuffleCountMismatch,
            evidence: vec![seq],
            message: format!(
                "The shuffler's deck check failed: {p}. The deck must not be dealt: take it out \
                 of the shuffler and check it."
            ),
        })
    }

    /// The shuffler began a shuffle (`seq`, a `shuffle_started`). Returns a finding when a shuffle
    /// it started before was never completed: that one was interrupted.
    pub fn started(&mut self, seq: u64) -> Option<ShufflerFinding> {
        let before = self.started.replace(seq)?;
        Some(ShufflerFinding {
            code: Code::DeviceError,
            evidence: vec![before, seq],
            message: format!(
                "The shuffler started a shuffle (seq {seq}) before completing the one it started \
                 at seq {before}: that shuffle was interrupted (a jam, a door opened, the power?). \
                 Its cards must not be dealt unless they are shuffled again."
            ),
        })
    }

    /// A step of preparing the cards by hand (`seq`, a `shuffle_step`) was logged.
    pub fn step(&mut self, seq: u64, step: ShuffleStep) {
        // Bounded: a console that logs steps without end keeps only the latest.
        if self.steps.len() >= 32 {
            self.steps.remove(0);
        }
        self.steps.push((step, seq));
    }

    /// Cards were loaded (`seq`: into the shuffler, a `shuffle_started` or a `deck_checked` with
    /// no start seen; or into the shoe, a `shuffled`), under a rule book that requires the
    /// hand-preparation `steps` before loading (none: nothing is required). Returns a finding
    /// when the steps logged since the last load do not include every one of them in order. A
    /// shoe loaded from a shuffler whose load was judged already is not judged again.
    pub fn load_steps(
        &mut self,
        seq: u64,
        required: &[ShuffleStep],
        into_shoe: bool,
    ) -> Option<ShufflerFinding> {
        if into_shoe && std::mem::take(&mut self.steps_judged) {
            return None;
        }
        if !into_shoe {
            if self.steps_judged {
                // The same cards, judged when they went in (a deck check after its start).
                return None;
            }
            self.steps_judged = true;
        }
        let logged = std::mem::take(&mut self.steps);
        if required.is_empty() {
            return None;
        }
        let mut next = 0;
        for (step, _) in &logged {
            if next < required.len() && *step == required[next] {
                next += 1;
            }
        }
        if next == required.len() {
            return None;
        }
        let names = |steps: &mut dyn Iterator<Item = ShuffleStep>| {
            steps
                .map(ShuffleStep::as_str)
                .collect::<Vec<_>>()
                .join(", ")
        };
        let wanted = names(&mut required.iter().copied());
        let done = if logged.is_empty() {
            "none was logged".to_owned()
        } else {
            format!(
                "the steps logged were {}",
                names(&mut logged.iter().map(|(s, _)| *s))
            )
        };
        let missing = names(&mut required[next..].iter().copied());
        let what = if into_shoe {
            "the shoe"
        } else {
            "the shuffler"
        };
        let mut evidence: Vec<u64> = logged.iter().map(|(_, s)| *s).collect();
        evidence.push(seq);
        Some(ShufflerFinding {
            code: Code::NotShuffled,
            evidence,
            message: format!(
                "Cards were loaded into {what} without the preparation the rule book requires \
                 before loading ({wanted}, in that order): {done}; not done in order: {missing}. \
                 Stop play, and have the cards prepared and shuffled again."
            ),
        })
    }

    /// A shoe was loaded (`seq`, the shoe's `shuffled`, with the decks and cards it reports): the
    /// shuffle held for it is used up. Returns what is wrong with loading it, if anything.
    pub fn loaded(
        &mut self,
        seq: u64,
        decks: Option<u8>,
        cards: Option<u32>,
    ) -> Option<ShufflerFinding> {
        if let Some(start) = self.started {
            if !self.seen {
                // A shuffler that starts the shoe itself (no deck checks of its own): this
                // `shuffled` is the start's completion.
                self.started = None;
            } else if self.pending.is_none() {
                // Loaded while the shuffle started for it never completed: one incident, the
                // abandoned shuffle (not also "no shuffle").
                self.started = None;
                return Some(ShufflerFinding {
                    code: Code::NotShuffled,
                    evidence: vec![start, seq],
                    message: format!(
                        "A shoe was loaded while the shuffle the table's shuffler started at seq \
                         {start} never completed: the shuffle was abandoned, so the cards may not \
                         be shuffled, and the shuffler checked no count. Stop play and have the \
                         cards shuffled again."
                    ),
                });
            }
            // Otherwise the shoe is loaded from the completed shuffle held for it; the one
            // started since is still going, for the shoe after.
        }
        if !self.seen {
            return None;
        }
        let Some(held) = self.pending.take() else {
            return Some(ShufflerFinding {
                code: Code::NotShuffled,
                evidence: vec![seq],
                message: "A shoe was loaded with no shuffle completed by the table's shuffler \
                          since the last shoe: the cards may not have been shuffled, or the \
                          shuffle was stopped before its end. Stop play and have the cards \
                          shuffled again."
                    .to_owned(),
            });
        };
        if let Some(problem) = held.problem {
            return Some(ShufflerFinding {
                code: Code::ShuffleCountMismatch,
                evidence: vec![held.seq, seq],
                message: format!(
                    "A shoe was loaded from the shuffle whose deck check failed ({problem}): \
                     cards are being dealt from a defective deck. Stop play and check the cards."
                ),
            });
        }
        let differ = |what: &str, shoe: u32, shuffled: u32| ShufflerFinding {
            code: Code::ShuffleCountMismatch,
            evidence: vec![held.seq, seq],
            message: format!(
                "The shoe reports {shoe} {what}; the shuffle it was loaded from had {shuffled}. \
                 Stop play and count the cards."
            ),
        };
        match ((held.decks, decks), (held.cards, cards)) {
            ((Some(shuffled), Some(shoe)), _) if shuffled != shoe => {
                Some(differ("decks", shoe.into(), shuffled.into()))
            }
            (_, (Some(shuffled), Some(shoe))) if shuffled != shoe => {
                Some(differ("cards", shoe, shuffled))
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: Limits = Limits {
        min_decks: 4,
        max_decks: 8,
        default_decks: 8,
        cards_per_deck: 52,
    };

    fn check(decks: u8, cards: u32, missing: u32, extra: u32) -> EventKind {
        let n = u32::from(decks) * 52;
        EventKind::DeckChecked {
            decks: Some(decks),
            cards,
            expected: n,
            missing,
            extra,
            foreign: 0,
            shuffler: None,
        }
    }

    fn good(decks: u8) -> EventKind {
        check(decks, u32::from(decks) * 52, 0, 0)
    }

    #[test]
    fn a_table_without_a_shuffler_is_not_judged() {
        let mut watch = ShufflerWatch::default();
        assert_eq!(watch.loaded(5, Some(8), None), None);
    }

    #[test]
    fn each_shoe_uses_one_completed_shuffle() {
        let mut watch = ShufflerWatch::default();
        assert_eq!(watch.checked(1, &good(8), LIMITS), None);
        assert_eq!(watch.loaded(2, None, None), None);
        // The next shoe has no shuffle of its own.
        let found = watch.loaded(90, None, None).expect("flagged");
        assert_eq!((found.code, found.evidence), (Code::NotShuffled, vec![90]));
        // A later shuffle replaces an earlier one not yet loaded.
        watch.checked(100, &good(6), LIMITS);
        watch.checked(101, &good(8), LIMITS);
        assert_eq!(watch.loaded(102, Some(8), Some(416)), None);
    }

    #[test]
    fn a_failed_check_is_flagged_when_it_arrives_and_again_when_loaded() {
        let mut watch = ShufflerWatch::default();
        let found = watch
            .checked(7, &check(8, 415, 1, 0), LIMITS)
            .expect("flagged");
        assert_eq!(found.code, Code::ShuffleCountMismatch);
        assert!(
            found.message.contains("415 cards counted"),
            "{}",
            found.message
        );
        assert!(found.message.contains("1 missing"), "{}", found.message);
        let found = watch.loaded(9, None, None).expect("flagged at the load");
        assert_eq!(found.evidence, vec![7, 9]);
        assert!(found.message.contains("defective deck"));
        // Right count, wrong cards: a card missing and another doubled.
        assert!(watch.checked(20, &check(8, 416, 1, 1), LIMITS).is_some());
        // Too many decks for the book, and a shoe that disagrees with its shuffle.
        assert!(watch.checked(30, &good(9), LIMITS).is_some());
        watch.checked(31, &good(6), LIMITS);
        let found = watch.loaded(32, Some(8), None).expect("decks differ");
        assert!(
            found.message.contains("reports 8 decks"),
            "{}",
            found.message
        );
        // The shoe's own count of the cards loaded disagrees with the shuffler's.
        watch.checked(40, &good(8), LIMITS);
        let found = watch.loaded(41, None, Some(415)).expect("cards differ");
        assert_eq!(found.evidence, vec![40, 41]);
        assert!(
            found.message.contains("reports 415 cards"),
            "{}",
            found.message
        );
    }

    #[test]
    fn a_shoe_loaded_from_an_abandoned_shuffle_is_one_incident_that_says_so() {
        let mut watch = ShufflerWatch::default();
        assert_eq!(watch.started(1), None);
        watch.checked(2, &good(8), LIMITS);
        assert_eq!(watch.loaded(3, None, None), None);
        // The next shuffle starts and is started again before it completes: interrupted.
        assert_eq!(watch.started(10), None);
        let found = watch.started(11).expect("interrupted");
        assert_eq!(
            (found.code, found.evidence),
            (Code::DeviceError, vec![10, 11])
        );
        assert!(found.message.contains("interrupted"), "{}", found.message);
        // The shoe is loaded while the second never completed: the abandoned shuffle, once.
        let found = watch.loaded(20, None, None).expect("abandoned");
        assert_eq!(
            (found.code, &found.evidence),
            (Code::NotShuffled, &vec![11, 20])
        );
        assert!(
            found.message.contains("started at seq 11 never completed"),
            "{}",
            found.message
        );
        // Nothing carries over: a proper shuffle loads cleanly, and a start after a load is not
        // an interruption.
        assert_eq!(watch.started(30), None);
        watch.checked(31, &good(8), LIMITS);
        assert_eq!(watch.loaded(32, None, None), None);
        assert_eq!(watch.started(40), None);
    }

    #[test]
    fn a_shuffle_started_for_the_next_shoe_does_not_taint_this_one() {
        let mut watch = ShufflerWatch::default();
        watch.checked(1, &good(8), LIMITS);
        // The shuffler starts the following set before this shoe is loaded from the checked one.
        assert_eq!(watch.started(2), None);
        assert_eq!(watch.loaded(3, None, None), None);
        watch.checked(4, &good(8), LIMITS);
        assert_eq!(watch.loaded(5, None, None), None);
    }

    #[test]
    fn a_shuffler_that_loads_the_shoe_itself_completes_at_the_shoe() {
        // Alone at its table it reports `shuffled` (no deck checks): that is the completion.
        let mut watch = ShufflerWatch::default();
        assert_eq!(watch.started(1), None);
        assert_eq!(watch.loaded(2, Some(8), Some(416)), None);
        assert_eq!(watch.started(3), None);
    }

    #[test]
    fn the_steps_a_book_requires_are_judged_once_per_load_in_order() {
        use ShuffleStep::{Chemmy, Riffle, Stacking};
        let required = [Chemmy, Stacking, Riffle];
        let mut watch = ShufflerWatch::default();
        for (seq, step) in [(1, Chemmy), (2, Chemmy), (3, Stacking), (4, Riffle)] {
            watch.step(seq, step);
        }
        // Into the shuffler, then the shoe loaded from it: judged once, at the shuffler.
        assert_eq!(watch.load_steps(5, &required, false), None);
        assert_eq!(watch.load_steps(6, &required, false), None);
        // A step logged while the shuffler runs prepares the next set: it counts for the next
        // load, not this shoe's.
        watch.step(7, Chemmy);
        assert_eq!(watch.load_steps(8, &required, true), None);
        watch.step(9, Riffle);
        watch.step(10, Stacking);
        let found = watch.load_steps(11, &required, true).expect("out of order");
        assert_eq!(
            (found.code, &found.evidence),
            (Code::NotShuffled, &vec![7, 9, 10, 11])
        );
        assert!(
            found
                .message
                .contains("the steps logged were chemmy, riffle, stacking"),
            "{}",
            found.message
        );
        assert!(
            found.message.contains("not done in order: riffle."),
            "{}",
            found.message
        );
        let found = watch.load_steps(12, &required, true).expect("none logged");
        assert!(
            found.message.contains("none was logged"),
            "{}",
            found.message
        );
        // A book that requires nothing flags nothing.
        assert_eq!(watch.load_steps(13, &[], true), None);
    }
}
