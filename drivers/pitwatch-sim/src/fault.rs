//! The faults a simulated table can inject: the dealer's rule-level faults (carried out by
//! `pitwatch-dealer`) and wire-level faults the simulator makes itself in the byte stream; how
//! they are requested ([`FaultSpec`]); and the record of each injected fault ([`Injected`]), the
//! JSON Lines file tests compare a host's findings against.

use std::fmt;
use std::str::FromStr;

use pitwatch_dealer::FaultKind;
use serde::{Deserialize, Serialize};

/// A fault the simulator can inject.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SimFault {
    /// One burn card too few (or one too many).
    BurnMiscount,
    /// The initial deal goes P, P, B, B.
    OutOfOrderCard,
    /// A Player third card the drawing rules do not give.
    UnauthorisedThirdCard,
    /// The Banker's required third card is not dealt.
    MissingThirdCard,
    /// The declared winner is wrong.
    WrongDeclaredResult,
    /// A card the shoe has no copies left of.
    ForeignCard,
    /// The shoe cannot read a card.
    UnreadableCard,
    /// The cutting card is placed too close to the back.
    CuttingCardTooCloseToBack,
    /// One round after the last coup.
    RoundPastLastCoup,
    /// A card is exposed during the deal.
    CardExposed,
    /// The device raises (and clears) an error.
    DeviceError,
    /// Bytes that are no frame, between two frames.
    Garbage,
    /// A copy of a frame with a damaged checksum, followed by the frame itself (a resend).
    BadChecksum,
    /// A frame sent twice.
    DuplicateFrame,
    /// The link drops and comes back: a real disconnect on TCP, a device power cycle on a
    /// pseudo-terminal (silence, then the protocol's start-of-communication frame).
    Disconnect,
}

impl SimFault {
    /// Every fault, dealer faults first.
    pub const ALL: [SimFault; 15] = [
        SimFault::BurnMiscount,
        SimFault::OutOfOrderCard,
        SimFault::UnauthorisedThirdCard,
        SimFault::MissingThirdCard,
        SimFault::WrongDeclaredResult,
        SimFault::ForeignCard,
        SimFault::UnreadableCard,
        SimFault::CuttingCardTooCloseToBack,
        SimFault::RoundPastLastCoup,
        SimFault::CardExposed,
        SimFault::DeviceError,
        SimFault::Garbage,
        SimFault::BadChecksum,
        SimFault::DuplicateFrame,
        SimFault::Disconnect,
    ];

    /// The name used on the command line and in the injected-faults file (`burn_miscount`; the
    /// command line also takes `burn-miscount`).
    pub const fn name(self) -> &'static str {
        match self {
            SimFault::BurnMiscount => "burn_miscount",
            SimFault::OutOfOrderCard => "out_of_order_card",
            SimFault::UnauthorisedThirdCard => "unauthorised_third_card",
            SimFault::MissingThirdCard => "missing_third_card",
            SimFault::WrongDeclaredResult => "wrong_declared_result",
            SimFault::ForeignCard => "foreign_card",
            SimFault::UnreadableCard => "unreadable_card",
            SimFault::CuttingCardTooCloseToBack => "cutting_card_too_close_to_back",
            SimFault::RoundPastLastCoup => "round_past_last_coup",
            SimFault::CardExposed => "card_exposed",
            SimFault::DeviceError => "device_error",
            SimFault::Garbage => "garbage",
            SimFault::BadChecksum => "bad_checksum",
            SimFault::DuplicateFrame => "duplicate_frame",
            SimFault::Disconnect => "disconnect",
        }
    }

    /// The dealer's fault, for rule-level faults; `None` for wire-level ones.
    pub const fn dealer_kind(self) -> Option<FaultKind> {
        Some(match self {
            SimFault::BurnMiscount => FaultKind::BurnMiscount,
            SimFault::OutOfOrderCard => FaultKind::OutOfOrderCard,
            SimFault::UnauthorisedThirdCard => FaultKind::UnauthorisedThirdCard,
            SimFault::MissingThirdCard => FaultKind::MissingThirdCard,
            SimFault::WrongDeclaredResult => FaultKind::WrongDeclaredResult,
            SimFault::ForeignCard => FaultKind::ForeignCard,
            SimFault::UnreadableCard => FaultKind::UnreadableCard,
            SimFault::CuttingCardTooCloseToBack => FaultKind::CuttingCardTooCloseToBack,
            SimFault::RoundPastLastCoup => FaultKind::RoundPastLastCoup,
            SimFault::CardExposed => FaultKind::CardExposed,
            SimFault::DeviceError => FaultKind::DeviceError,
            SimFault::Garbage
            | SimFault::BadChecksum
            | SimFault::DuplicateFrame
            | SimFault::Disconnect => return None,
        })
    }

    /// The fault for a dealer fault kind.
    pub fn from_dealer(kind: FaultKind) -> SimFault {
        SimFault::ALL
            .into_iter()
            .find(|f| f.dealer_kind() == Some(kind))
            .unwrap_or(SimFault::Garbage)
    }

    /// Whether a device speaking `protocol` can carry this fault so that a host can see it.
    ///
    /// An Angel Eye shoe reports no shuffle, cut or cutting-card placement, no exposed card, and
    /// no unreadable card in a hand. A barcode shoe sends only card codes and the shuffle card: no
    /// targets, burn count, results, errors or cutting card, and no checksum; of the dealer's
    /// faults only a foreign card shows (a plain shoe's missing or extra card would shift every
    /// later card to another hand rather than raise one finding).
    pub fn supported_by(self, protocol: &str) -> bool {
        use SimFault::*;
        match protocol {
            pitwatch_angel_eye::PROTOCOL => !matches!(
                self,
                CuttingCardTooCloseToBack | CardExposed | UnreadableCard
            ),
            pitwatch_barcode::PROTOCOL => {
                matches!(self, ForeignCard | Garbage | DuplicateFrame | Disconnect)
            }
            pitwatch_proto::PROTOCOL => true,
            _ => false,
        }
    }

    /// Whether this is a shoe-level dealer fault (injected at the shoe's start or end, whatever
    /// round was asked for).
    pub const fn shoe_level(self) -> bool {
        matches!(
            self,
            SimFault::BurnMiscount
                | SimFault::CuttingCardTooCloseToBack
                | SimFault::RoundPastLastCoup
        )
    }
}

impl fmt::Display for SimFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A fault name that is not known.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown fault {0:?} (known: burn_miscount, out_of_order_card, unauthorised_third_card, missing_third_card, wrong_declared_result, foreign_card, unreadable_card, cutting_card_too_close_to_back, round_past_last_coup, card_exposed, device_error, garbage, bad_checksum, duplicate_frame, disconnect)")]
pub struct UnknownFault(pub String);

impl FromStr for SimFault {
    type Err = UnknownFault;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let name = s.trim().replace('-', "_").to_ascii_lowercase();
        SimFault::ALL
            .into_iter()
            .find(|f| f.name() == name)
            .ok_or_else(|| UnknownFault(s.to_owned()))
    }
}

/// Which faults to inject.
#[derive(Debug, Clone, PartialEq)]
pub enum FaultSpec {
    /// `fault` at the first suitable round at or after `round` (1-based) of `shoe` (1-based).
    /// Shoe-level faults (burn, cutting card, past the last coup) ignore the round.
    At {
        /// The fault.
        fault: SimFault,
        /// The shoe.
        shoe: u32,
        /// The earliest round.
        round: u32,
    },
    /// For a demo: every `rounds` rounds (counted over all shoes), one fault chosen at random
    /// (from the seed) among `faults`.
    Every {
        /// The interval in rounds (at least 1).
        rounds: u32,
        /// The faults to choose from.
        faults: Vec<SimFault>,
    },
}

impl FromStr for FaultSpec {
    type Err = UnknownFault;

    /// `KIND` (shoe 1, round 1), `KIND@ROUND` (shoe 1) or `KIND@SHOE:ROUND`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (name, place) = match s.split_once('@') {
            Some((name, place)) => (name, Some(place)),
            None => (s, None),
        };
        let fault: SimFault = name.parse()?;
        let bad = || UnknownFault(format!("{s} (the place is ROUND or SHOE:ROUND)"));
        let (shoe, round) = match place {
            None => (1, 1),
            Some(place) => match place.split_once(':') {
                Some((shoe, round)) => (
                    shoe.parse().map_err(|_| bad())?,
                    round.parse().map_err(|_| bad())?,
                ),
                None => (1, place.parse().map_err(|_| bad())?),
            },
        };
        if shoe == 0 || round == 0 {
            return Err(bad());
        }
        Ok(FaultSpec::At { fault, shoe, round })
    }
}

/// What a host is expected to report for an injected fault.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "expect", content = "expected", rename_all = "snake_case")]
pub enum Expected {
    /// The engine flags this irregularity code.
    Irregularity(String),
    /// The decoder rejects bytes with this rejection kind (`garbage`, `bad_checksum`, …).
    Rejection(String),
    /// The decoder reports this notice (`communication_started`, `hello`) and nothing else.
    Notice(String),
    /// The host's link drops and reconnects; nothing is lost.
    Reconnect,
    /// Silence only: nothing to see but a pause.
    Nothing,
}

/// Who injects a fault.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    /// The dealer: a breach of the rules the engine should flag.
    Rule,
    /// The device's link: bytes a decoder should reject, or a dropped link.
    Wire,
}

/// One injected fault, as written (one JSON object per line) to the injected-faults file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Injected {
    /// The fault.
    pub kind: SimFault,
    /// Whether the dealer or the link injected it.
    pub level: Level,
    /// The shoe (1-based over the whole run).
    pub shoe: u32,
    /// The round (1-based within the shoe), or `None` outside a round.
    pub round: Option<u32>,
    /// The host event `seq` (a decoder started at 1) of the event that carries the fault, or
    /// for a wire fault the event that follows it.
    pub seq: Option<u64>,
    /// Byte offset of the fault's first byte in the stream (and the capture file).
    pub offset: u64,
    /// What the host should report.
    #[serde(flatten)]
    pub expected: Expected,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_back_with_either_separator_and_places() {
        for fault in SimFault::ALL {
            assert_eq!(fault.name().parse::<SimFault>().unwrap(), fault);
            assert_eq!(
                fault.name().replace('_', "-").parse::<SimFault>().unwrap(),
                fault
            );
            assert_eq!(
                fault.dealer_kind().is_some(),
                fault.dealer_kind().map(SimFault::from_dealer) == Some(fault)
            );
        }
        assert!("sneeze".parse::<SimFault>().is_err());
        assert_eq!(
            "garbage@7".parse::<FaultSpec>().unwrap(),
            FaultSpec::At {
                fault: SimFault::Garbage,
                shoe: 1,
                round: 7
            }
        );
        assert_eq!(
            "card-exposed@2:9".parse::<FaultSpec>().unwrap(),
            FaultSpec::At {
                fault: SimFault::CardExposed,
                shoe: 2,
                round: 9
            }
        );
        assert!("garbage@0".parse::<FaultSpec>().is_err());
        assert!("garbage@x".parse::<FaultSpec>().is_err());
    }

    #[test]
    fn the_record_is_one_flat_json_object() {
        let record = Injected {
            kind: SimFault::BadChecksum,
            level: Level::Wire,
            shoe: 1,
            round: Some(3),
            seq: Some(20),
            offset: 118,
            expected: Expected::Rejection("bad_checksum".into()),
        };
        let line = serde_json::to_string(&record).unwrap();
        assert_eq!(serde_json::from_str::<Injected>(&line).unwrap(), record);
        assert_eq!(
            line,
            r#"{"kind":"bad_checksum","level":"wire","shoe":1,"round":3,"seq":20,"offset":118,"expect":"rejection","expected":"bad_checksum"}"#
        );
    }
}
