//! The faults the dealer can inject ([`FaultKind`]), where to inject them ([`FaultPlan`]) and
//! where each one went ([`InjectedFault`], with the irregularity the engine should flag).

use pitwatch_rules::IrregularityCode;

use crate::{DealerConfig, Mode};
use serde::Serialize;

/// A kind of dealer or device fault the simulator can inject.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FaultKind {
    /// One burn card too few (or one too many after an ace).
    BurnMiscount,
    /// One burn card too many.
    BurnTooLong,
    /// No burn at all: neither the first card nor the cards after it.
    BurnMissing,
    /// The burn's first card cannot be read (so its value, the burn count, is unknown).
    BurnFirstUnreadable,
    /// The initial deal goes P, P, B, B instead of P, B, P, B.
    OutOfOrderCard,
    /// Both hands draw, and the Banker's third card is dealt before the Player's.
    ThirdCardsSwapped,
    /// Two cards of the initial deal change places (the Banker's second card dealt before the
    /// Player's second, or the Banker's first before the Player's first) in a round where that
    /// changes whether a hand is a natural or draws: the hands as dealt are not the hands 8.4's
    /// order gives, and the dealer plays on by the hands as dealt.
    SwapChangesDrawing,
    /// A third card to the Player where the rules give none (12.1).
    UnauthorisedThirdCard,
    /// A third card to the Banker where the Table of Play gives none (set aside).
    UnauthorisedBankerCard,
    /// The Banker's required third card is not dealt.
    MissingThirdCard,
    /// The declared winner is wrong.
    WrongDeclaredResult,
    /// The (right) result is declared before a third card that was due, which is then dealt:
    /// announced before each hand had all the cards it is entitled to (10.1).
    EarlyResult,
    /// A copy of a card the shoe has no copies left of.
    ForeignCard,
    /// The device cannot read a card.
    UnreadableCard,
    /// A card drawn between rounds, outside a game, reported to no hand (an Angel Eye `d`).
    StrayCard,
    /// A card reported as a fourth card of a hand that has three.
    FourthCard,
    /// A card report lost on the way; the device's retransmission of it arrives
    /// (`retransmit: true`, the first the host sees of the card).
    RecoveredCard,
    /// A card report that arrived is sent again as a retransmission (`retransmit: true`).
    RepeatedReport,
    /// A card report lost on the way, its retransmission arriving after the next card's report,
    /// so the cards arrive out of order though they were dealt in order.
    RecoveredCardLate,
    /// The cutting card is placed closer to the back than the rule book allows.
    CuttingCardTooCloseToBack,
    /// One more round after the last coup.
    RoundPastLastCoup,
    /// A card is exposed during the deal.
    CardExposed,
    /// The device raises (and later clears) an error.
    DeviceError,
}

impl FaultKind {
    /// Every fault kind.
    pub const ALL: &'static [FaultKind] = &[
        FaultKind::BurnMiscount,
        FaultKind::BurnTooLong,
        FaultKind::BurnMissing,
        FaultKind::BurnFirstUnreadable,
        FaultKind::OutOfOrderCard,
        FaultKind::ThirdCardsSwapped,
        FaultKind::SwapChangesDrawing,
        FaultKind::UnauthorisedThirdCard,
        FaultKind::UnauthorisedBankerCard,
        FaultKind::MissingThirdCard,
        FaultKind::WrongDeclaredResult,
        FaultKind::EarlyResult,
        FaultKind::ForeignCard,
        FaultKind::UnreadableCard,
        FaultKind::StrayCard,
        FaultKind::FourthCard,
        FaultKind::RecoveredCard,
        FaultKind::RepeatedReport,
        FaultKind::RecoveredCardLate,
        FaultKind::CuttingCardTooCloseToBack,
        FaultKind::RoundPastLastCoup,
        FaultKind::CardExposed,
        FaultKind::DeviceError,
    ];

    /// The fault's name, as in JSON and on command lines (`burn_miscount`).
    pub const fn name(self) -> &'static str {
        match self {
            FaultKind::BurnMiscount => "burn_miscount",
            FaultKind::BurnTooLong => "burn_too_long",
            FaultKind::BurnMissing => "burn_missing",
            FaultKind::BurnFirstUnreadable => "burn_first_unreadable",
            FaultKind::OutOfOrderCard => "out_of_order_card",
            FaultKind::ThirdCardsSwapped => "third_cards_swapped",
            FaultKind::SwapChangesDrawing => "swap_changes_drawing",
            FaultKind::UnauthorisedThirdCard => "unauthorised_third_card",
            FaultKind::UnauthorisedBankerCard => "unauthorised_banker_card",
            FaultKind::MissingThirdCard => "missing_third_card",
            FaultKind::WrongDeclaredResult => "wrong_declared_result",
            FaultKind::EarlyResult => "early_result",
            FaultKind::ForeignCard => "foreign_card",
            FaultKind::UnreadableCard => "unreadable_card",
            FaultKind::StrayCard => "stray_card",
            FaultKind::FourthCard => "fourth_card",
            FaultKind::RecoveredCard => "recovered_card",
            FaultKind::RepeatedReport => "repeated_report",
            FaultKind::RecoveredCardLate => "recovered_card_late",
            FaultKind::CuttingCardTooCloseToBack => "cutting_card_too_close_to_back",
            FaultKind::RoundPastLastCoup => "round_past_last_coup",
            FaultKind::CardExposed => "card_exposed",
            FaultKind::DeviceError => "device_error",
        }
    }

    /// The irregularity the engine should flag for this fault, or `None` for a fault the rules
    /// leave nothing wrong in (a card report recovered or repeated by the device). A result
    /// declared before a third card that was due is `RESULT_MISMATCH` (10.1) even when it is
    /// the result the completed round gives.
    pub const fn expected_code(self) -> Option<IrregularityCode> {
        Some(match self {
            FaultKind::BurnMiscount | FaultKind::BurnTooLong => IrregularityCode::BurnCountMismatch,
            FaultKind::BurnMissing => IrregularityCode::BurnMissing,
            FaultKind::BurnFirstUnreadable | FaultKind::UnreadableCard => {
                IrregularityCode::UnreadableCard
            }
            FaultKind::OutOfOrderCard
            | FaultKind::ThirdCardsSwapped
            | FaultKind::SwapChangesDrawing
            | FaultKind::StrayCard
            | FaultKind::FourthCard => IrregularityCode::DealOutOfOrder,
            FaultKind::UnauthorisedThirdCard | FaultKind::UnauthorisedBankerCard => {
                IrregularityCode::UnauthorisedThirdCard
            }
            FaultKind::MissingThirdCard => IrregularityCode::MissingThirdCard,
            // 10.1: the result is announced when each hand has all the cards it is entitled to.
            FaultKind::WrongDeclaredResult | FaultKind::EarlyResult => {
                IrregularityCode::ResultMismatch
            }
            FaultKind::ForeignCard => IrregularityCode::ExcessCard,
            FaultKind::CuttingCardTooCloseToBack => IrregularityCode::CuttingCardMisplaced,
            FaultKind::RoundPastLastCoup => IrregularityCode::DealtPastLastCoup,
            FaultKind::CardExposed => IrregularityCode::CardExposed,
            FaultKind::DeviceError => IrregularityCode::DeviceError,
            FaultKind::RecoveredCard | FaultKind::RepeatedReport | FaultKind::RecoveredCardLate => {
                return None
            }
        })
    }

    /// Whether the fault changes which cards a plain shoe's round takes, so that only a round
    /// boundary the stream reports ("no more bets", a declared result) lets the engine find the
    /// next round again.
    pub const fn moves_cards(self) -> bool {
        matches!(
            self,
            FaultKind::BurnMiscount
                | FaultKind::BurnTooLong
                | FaultKind::BurnMissing
                | FaultKind::BurnFirstUnreadable
                | FaultKind::OutOfOrderCard
                | FaultKind::ThirdCardsSwapped
                | FaultKind::SwapChangesDrawing
                | FaultKind::UnauthorisedThirdCard
                | FaultKind::UnauthorisedBankerCard
                | FaultKind::MissingThirdCard
                | FaultKind::EarlyResult
                | FaultKind::UnreadableCard
        )
    }

    /// Whether the simulator injects the fault in a stream dealt with `config`, because the
    /// stream lets the engine see it, or at least follow the shoe past it:
    ///
    /// - A stray card with no hand and a fourth card exist only for a shoe that reports hands; a
    ///   repeated report is told from the next card only by the position it names (a plain
    ///   shoe's repeats are the driver's to drop), and a late retransmission put in its place only
    ///   by that position.
    /// - In a plain shoe (no targets) a fault that moves cards between rounds can be followed
    ///   only if the stream reports round boundaries ("no more bets" or declared results);
    ///   without them every later round would shift. A burn fault needs "no more bets" (or, for
    ///   a miscount, the device's burn count); a result declared early needs "no more bets",
    ///   which alone says the late card still belongs to the round.
    pub fn injectable(self, config: &DealerConfig) -> bool {
        if config.mode == Mode::Targets {
            return true;
        }
        let boundary = config.bets_closed || config.declare_results;
        match self {
            // A repeated plain report names no position, so only the driver can drop it.
            FaultKind::StrayCard
            | FaultKind::FourthCard
            | FaultKind::RepeatedReport
            | FaultKind::RecoveredCardLate => false,
            FaultKind::BurnMiscount | FaultKind::BurnTooLong => {
                config.bets_closed || config.report_burn_count
            }
            FaultKind::BurnMissing | FaultKind::BurnFirstUnreadable | FaultKind::EarlyResult => {
                config.bets_closed
            }
            kind if kind.moves_cards() => boundary,
            _ => true,
        }
    }

    /// Whether the fault can be seen at all in `mode`, as dealt by that mode's default
    /// configuration ([`DealerConfig::angel_eye`], [`DealerConfig::barcode`]): a plain shoe
    /// cannot tell where a card went, so it cannot see a card dealt to the wrong hand (it assigns
    /// cards by the rules), nor a card reported to no hand.
    pub fn observable_in(self, mode: Mode) -> bool {
        let config = match mode {
            Mode::Targets => DealerConfig::angel_eye(),
            Mode::Plain => DealerConfig::barcode(),
        };
        self.injectable(&config)
            && !matches!(
                (self, mode),
                (
                    FaultKind::OutOfOrderCard
                        | FaultKind::ThirdCardsSwapped
                        | FaultKind::SwapChangesDrawing,
                    Mode::Plain
                )
            )
    }

    /// What the engine may raise for this fault in a stream dealt with `config`, each outcome
    /// being one irregularity with that code at the fault's round, or (`None`) none at all.
    ///
    /// A plain shoe assigns cards by the rules, so it cannot see cards dealt in the wrong order;
    /// but when the hands it assumes need a different number of cards than were dealt, it sees a
    /// card between rounds (an unauthorised third card) or a round short of a card (a missing
    /// third card), and when they give another result than the one declared, a result mismatch;
    /// and it says so.
    pub fn outcomes(self, config: &DealerConfig) -> &'static [Option<IrregularityCode>] {
        use IrregularityCode as C;
        let plain = config.mode == Mode::Plain;
        match self {
            FaultKind::OutOfOrderCard
            | FaultKind::ThirdCardsSwapped
            | FaultKind::SwapChangesDrawing
                if plain =>
            {
                &[
                    None,
                    Some(C::UnauthorisedThirdCard),
                    Some(C::MissingThirdCard),
                    Some(C::ResultMismatch),
                ]
            }
            FaultKind::BurnMiscount | FaultKind::BurnTooLong => &[Some(C::BurnCountMismatch)],
            FaultKind::BurnMissing => &[Some(C::BurnMissing)],
            FaultKind::BurnFirstUnreadable | FaultKind::UnreadableCard => {
                &[Some(C::UnreadableCard)]
            }
            FaultKind::OutOfOrderCard
            | FaultKind::ThirdCardsSwapped
            | FaultKind::SwapChangesDrawing
            | FaultKind::StrayCard
            | FaultKind::FourthCard => &[Some(C::DealOutOfOrder)],
            FaultKind::UnauthorisedThirdCard | FaultKind::UnauthorisedBankerCard => {
                &[Some(C::UnauthorisedThirdCard)]
            }
            FaultKind::MissingThirdCard => &[Some(C::MissingThirdCard)],
            FaultKind::WrongDeclaredResult | FaultKind::EarlyResult => &[Some(C::ResultMismatch)],
            FaultKind::ForeignCard => &[Some(C::ExcessCard)],
            FaultKind::CuttingCardTooCloseToBack => &[Some(C::CuttingCardMisplaced)],
            FaultKind::RoundPastLastCoup => &[Some(C::DealtPastLastCoup)],
            FaultKind::CardExposed => &[Some(C::CardExposed)],
            FaultKind::DeviceError => &[Some(C::DeviceError)],
            FaultKind::RecoveredCard | FaultKind::RepeatedReport | FaultKind::RecoveredCardLate => {
                &[None]
            }
        }
    }
}

impl std::str::FromStr for FaultKind {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        FaultKind::ALL
            .iter()
            .copied()
            .find(|k| k.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = FaultKind::ALL.iter().map(|k| k.name()).collect();
                format!("unknown fault {s:?} (expected one of {})", names.join(", "))
            })
    }
}

/// A fault to inject: its kind, and the earliest shoe and round (both 1-based) to inject it at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct FaultPlan {
    /// The fault.
    pub kind: FaultKind,
    /// The shoe.
    pub shoe: u32,
    /// The earliest round (ignored for shoe-level faults: burn, cutting card, past last coup).
    pub round: u32,
}

/// Where a fault was actually injected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct InjectedFault {
    /// The fault.
    pub kind: FaultKind,
    /// The shoe.
    pub shoe: u32,
    /// The round it belongs to, or `None` outside a round.
    pub round: Option<u32>,
    /// `seq` of the event that carries it.
    pub seq: u64,
    /// The irregularity the engine should flag, or `None` when nothing is wrong by the rules.
    pub expected_code: Option<IrregularityCode>,
}
