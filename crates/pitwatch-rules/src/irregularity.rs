//! Irregularities: what the engine flags, with a stable code, a severity, the rule it cites, the
//! shoe and round, the evidence and a message a supervisor understands.
//!
//! Codes are stable identifiers (the UI, the store and `docs/irregularities.md` key on them);
//! severities are fixed per code so a supervisor learns one scale.

use std::fmt;
use std::str::FromStr;

use serde::{Serialize, Serializer};

/// How urgently a supervisor should look.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Worth a note; play continues.
    Low,
    /// Review at the table soon.
    Medium,
    /// Review now: the game may have been played wrongly.
    High,
    /// Stop and review: money or the integrity of the cards is at stake.
    Critical,
}

impl Severity {
    /// The name used in JSON and text output.
    pub const fn name(self) -> &'static str {
        match self {
            Severity::Low => "low",
            Severity::Medium => "medium",
            Severity::High => "high",
            Severity::Critical => "critical",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

macro_rules! codes {
    ($($(#[$meta:meta])* $variant:ident = $wire:literal, $severity:ident;)+) => {
        /// The stable code of an irregularity.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum IrregularityCode {
            $($(#[$meta])* $variant),+
        }

        impl IrregularityCode {
            /// Every code, in documentation order.
            pub const ALL: &'static [IrregularityCode] = &[$(IrregularityCode::$variant),+];

            /// The code as written in output and rule books (`BURN_MISSING`).
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(IrregularityCode::$variant => $wire),+
                }
            }

            /// The code's fixed severity.
            pub const fn severity(self) -> Severity {
                match self {
                    $(IrregularityCode::$variant => Severity::$severity),+
                }
            }
        }

        impl FromStr for IrregularityCode {
            type Err = String;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                match s {
                    $($wire => Ok(IrregularityCode::$variant),)+
                    other => Err(format!("unknown irregularity code {other:?}")),
                }
            }
        }
    };
}

codes! {
    /// The burn did not start with a first card drawn face up (7.7(a)).
    BurnMissing = "BURN_MISSING", Medium;
    /// The number of burn cards differs from the first card's value (7.7(b), 7.9).
    BurnCountMismatch = "BURN_COUNT_MISMATCH", High;
    /// A card went to a hand or position other than the next one by 8.4 and the drawing rules.
    DealOutOfOrder = "DEAL_OUT_OF_ORDER", High;
    /// A third card the drawing rules do not authorise (12.1 for the Player's hand).
    UnauthorisedThirdCard = "UNAUTHORISED_THIRD_CARD", High;
    /// A third card the drawing rules require was not dealt.
    MissingThirdCard = "MISSING_THIRD_CARD", High;
    /// A declared result (winner or pairs) that the cards do not give.
    ResultMismatch = "RESULT_MISMATCH", Critical;
    /// More copies of a card than the shoe holds: a foreign or duplicate card.
    ExcessCard = "EXCESS_CARD", Critical;
    /// The device could not read a card.
    UnreadableCard = "UNREADABLE_CARD", Medium;
    /// The cutting card was placed, or came out, with fewer cards behind it than allowed.
    CuttingCardMisplaced = "CUTTING_CARD_MISPLACED", Medium;
    /// The player's cut was closer to either end than the rule book allows.
    CutTooCloseToEnd = "CUT_TOO_CLOSE_TO_END", Medium;
    /// A card was dealt after the last coup was completed.
    DealtPastLastCoup = "DEALT_PAST_LAST_COUP", High;
    /// Cards were dealt without the shuffle the rules require first.
    NotShuffled = "NOT_SHUFFLED", High;
    /// A card was exposed outside the deal.
    CardExposed = "CARD_EXPOSED", High;
    /// A shuffler's reported deck or card count differs from the rule book's shoe.
    ShuffleCountMismatch = "SHUFFLE_COUNT_MISMATCH", Critical;
    /// The device raised an error (open until the device clears it).
    DeviceError = "DEVICE_ERROR", Medium;
    /// A shoe's order keeps far more of a previous shoe's order than a shuffle that randomly
    /// intermixes the cards leaves (a slug, a false or very weak shuffle; `docs/shuffle.md`).
    ShuffleSuspect = "SHUFFLE_SUSPECT", High;
    /// Blackjack, Pontoon: a card to a box whose hand was finished (stood, bust, on 21, doubled
    /// with its card, a split ace with its card) or to a box not in play.
    CardToFinishedHand = "CARD_TO_FINISHED_HAND", High;
    /// Blackjack, Pontoon: the dealer drew when the book says stand, or stood when it says draw.
    DealerDrawWrong = "DEALER_DRAW_WRONG", High;
    /// Blackjack, Pontoon: a hand left with the wrong number of cards after the initial deal (a
    /// box in play without its second card, a double or split ace without its one card).
    WrongCardCount = "WRONG_CARD_COUNT", High;
    /// Blackjack, Pontoon: a decision the rule book does not allow (doubling a total it excludes,
    /// splitting beyond the limit, surrender or insurance where none is offered).
    DecisionNotAllowed = "DECISION_NOT_ALLOWED", Medium;
    /// Poker: what the cards or the console show is a misdeal by the rule book's lettered reason
    /// (a player dealt out, a wrong number of cards to a seat, cards out of order, a wrong card
    /// face up), seen before substantial action where the reason requires it.
    Misdeal = "MISDEAL", High;
    /// Poker: a supervisor declared a misdeal (or ruled on one) from the console; an incident with
    /// the reason's rule text.
    MisdealDeclared = "MISDEAL_DECLARED", Medium;
    /// Poker: a misdeal declared for a reason whose rule allows none after substantial action,
    /// or for a seat whose player had already acted ((b)-(f)).
    MisdealAfterAction = "MISDEAL_AFTER_ACTION", High;
    /// A device sent what may be card identities or a shuffled deck's order (the host withheld
    /// it before anything kept it: `device_error` code `WITHHELD`): the cards it may describe are
    /// compromised. A device-integrity finding: a book may cite a rule for it, and one that does
    /// not cites its `DEVICE_ERROR` rule, so books written before it load unchanged.
    OrderDisclosed = "ORDER_DISCLOSED", Critical;
}

impl fmt::Display for IrregularityCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for IrregularityCode {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// One flagged irregularity: everything the engine found wrong in one round (or one finding
/// outside any round).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Irregularity {
    /// The stable code.
    pub code: IrregularityCode,
    /// The code's severity, or a further finding's if higher.
    pub severity: Severity,
    /// The rule cited, as the rule book numbers it (e.g. `"7.7(b), 7.9"`).
    pub rule: String,
    /// The rule book the citation comes from (its id).
    pub rule_book: String,
    /// The shoe (1-based within the stream).
    pub shoe: u32,
    /// The round (1-based within the shoe) the irregularity belongs to, or `None` outside a round.
    pub round: Option<u32>,
    /// The `seq` of the event that revealed it.
    pub seq: u64,
    /// Every event `seq` that makes up the evidence, ascending.
    pub evidence: Vec<u64>,
    /// What happened and what the rules require next, for a supervisor.
    pub message: String,
    /// Whether the engine joined this shoe part-way, so it may lack context.
    pub partial: bool,
    /// The codes of further findings in the same round, added to this one rather than raised
    /// again.
    #[serde(skip_serializing_if = "CodeSet::is_empty")]
    pub also: CodeSet,
}

/// A set of irregularity codes, in code order: four bytes, so an [`Irregularity`] (and every
/// output of the engine) stays small.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct CodeSet(u32);

impl CodeSet {
    /// The empty set.
    pub const EMPTY: CodeSet = CodeSet(0);

    /// Adds `code`.
    pub fn insert(&mut self, code: IrregularityCode) {
        self.0 |= 1 << (code as u32);
    }

    /// Whether `code` is in the set.
    pub const fn contains(self, code: IrregularityCode) -> bool {
        self.0 & (1 << (code as u32)) != 0
    }

    /// Whether the set is empty.
    pub const fn is_empty(&self) -> bool {
        self.0 == 0
    }

    /// The codes, in code order.
    pub fn iter(self) -> impl Iterator<Item = IrregularityCode> {
        IrregularityCode::ALL
            .iter()
            .copied()
            .filter(move |c| self.contains(*c))
    }
}

impl Serialize for CodeSet {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

impl Irregularity {
    /// Adds a further finding in the same round (one fault, one incident): its evidence and
    /// citation join this one's, its message is appended, and the severity becomes the higher of
    /// the two. The code and the `seq` that revealed it stay this one's, the first finding's.
    pub fn absorb(&mut self, other: Irregularity) {
        for seq in other.evidence {
            if let Err(at) = self.evidence.binary_search(&seq) {
                self.evidence.insert(at, seq);
            }
        }
        self.severity = self.severity.max(other.severity);
        if !self.rule.contains(other.rule.as_str()) {
            self.rule = format!("{}; {}", self.rule, other.rule);
        }
        self.message = format!(
            "{} Also in this round, {} ({}): {}",
            self.message, other.code, other.rule, other.message
        );
        self.partial |= other.partial;
        self.also.insert(other.code);
        self.also.0 |= other.also.0;
    }
}

/// A code set has one bit per code.
const _: () = assert!(IrregularityCode::ALL.len() <= 32);

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(code: IrregularityCode, seq: u64, rule: &str) -> Irregularity {
        Irregularity {
            code,
            severity: code.severity(),
            rule: rule.to_owned(),
            rule_book: "nz-baccarat".to_owned(),
            shoe: 1,
            round: Some(4),
            seq,
            evidence: vec![seq - 1, seq],
            message: format!("{code} at {seq}."),
            partial: false,
            also: CodeSet::EMPTY,
        }
    }

    #[test]
    fn a_further_finding_joins_the_first_with_the_higher_severity() {
        let mut first = finding(IrregularityCode::DealOutOfOrder, 10, "8.4");
        first.absorb(finding(IrregularityCode::ExcessCard, 12, "misdeal (h)"));
        first.absorb(finding(IrregularityCode::DealOutOfOrder, 11, "8.4"));
        assert_eq!(first.code, IrregularityCode::DealOutOfOrder);
        assert_eq!(first.seq, 10);
        assert_eq!(first.severity, Severity::Critical);
        assert_eq!(first.evidence, [9, 10, 11, 12]);
        assert_eq!(first.rule, "8.4; misdeal (h)");
        assert_eq!(
            first.also.iter().collect::<Vec<_>>(),
            [
                IrregularityCode::DealOutOfOrder,
                IrregularityCode::ExcessCard
            ]
        );
        assert_eq!(
            serde_json::to_value(&first).unwrap()["also"],
            serde_json::json!(["DEAL_OUT_OF_ORDER", "EXCESS_CARD"])
        );
        assert!(first
            .message
            .contains("Also in this round, EXCESS_CARD (misdeal (h)): EXCESS_CARD at 12."));
    }
}
