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

use pitwatch_model::EventKind;
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

    /// A shoe was loaded (`seq`, the shoe's `shuffled`, with the decks and cards it reports): the
    /// shuffle held for it is used up. Returns what is wrong with loading it, if anything.
    pub fn loaded(
        &mut self,
        seq: u64,
        decks: Option<u8>,
        cards: Option<u32>,
    ) -> Option<ShufflerFinding> {
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
}
