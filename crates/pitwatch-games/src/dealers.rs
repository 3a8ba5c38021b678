//! Who dealt what (issue 30), from the record alone: the dealers signed in and out of a table
//! (`dealer_signed_in`, `dealer_signed_out`, from a dealer console or a supervisor), each round,
//! shoe and irregularity given to the dealer signed in when it happened, and each dealer's
//! figures (rounds, rounds per hour of dealing, irregularities per 100 rounds).
//!
//! - A dealer's **stint** runs from their sign-in to their sign-out, or to the next dealer's
//!   sign-in (a hand-over). A sign-out naming someone who is not signed in changes nothing and
//!   is listed ([`Attribution::stray_sign_outs`]); a second sign-in of the dealer already signed
//!   in carries on their stint.
//! - A **round** is the dealer's who was signed in at its first event; a **shoe** is the dealer's
//!   who was signed in at its first round's first event; an **irregularity** of a round is that
//!   round's dealer's, and one outside any round the dealer's signed in at the event that revealed
//!   it. What came while no one was signed in is no one's (`None`).
//! - **Fairness**: a round interrupted by a device fault (a `device_error` from its first event to
//!   its close, or a finding of the device's own in it) is not counted against its dealer: it is
//!   left out of their rounds, their pace and their error rate, and counted apart
//!   ([`DealerFigures::rounds_excused`]). Findings of the device's own ([`device_fault`]: a device
//!   error, an unreadable card, a device disclosing card order) are never a dealer's errors.
//!
//! Everything here is a pure function of the steps replay gives (each event with the engine's
//! outputs on it), so a replayed record gives the same attribution and the same figures.

use std::collections::BTreeMap;

use pitwatch_model::{EventKind, TableEvent, Timestamp};
use pitwatch_rules::{IrregularityCode, TableOutput};
use serde::Serialize;

use crate::pace::{Pace, RoundPace};
use crate::GameOutput;

/// One dealer's time at the table, from sign-in to sign-out or hand-over.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Stint {
    /// The dealer, as recorded.
    pub dealer: String,
    /// The sign-in's `seq`.
    pub from_seq: u64,
    /// When they signed in.
    pub from_at: Option<Timestamp>,
    /// The `seq` that ended the stint (their sign-out, or the next dealer's sign-in); `None`
    /// while still signed in at the end of the steps.
    pub to_seq: Option<u64>,
    /// When it ended.
    pub to_at: Option<Timestamp>,
}

impl Stint {
    /// Whether the event `seq` falls in this stint.
    pub fn covers(&self, seq: u64) -> bool {
        seq > self.from_seq && self.to_seq.is_none_or(|to| seq < to)
    }

    /// Milliseconds signed in (`None` while still signed in, or without times).
    pub fn duration_ms(&self) -> Option<i64> {
        Some(self.to_at?.unix_millis() - self.from_at?.unix_millis())
    }
}

/// A round and its dealer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DealtRound {
    /// The shoe, 1-based.
    pub shoe: u32,
    /// The round within the shoe, 1-based.
    pub round: u32,
    /// The round's first event.
    pub first_seq: u64,
    /// The event on which the engine closed it.
    pub close_seq: u64,
    /// The dealer signed in at its first event.
    pub dealer: Option<String>,
    /// A device fault interrupted it: not counted against the dealer.
    pub device_fault: bool,
}

/// A shoe and the dealer who began it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DealtShoe {
    /// The shoe, 1-based.
    pub shoe: u32,
    /// Its first round's first event.
    pub first_seq: u64,
    /// The dealer signed in then.
    pub dealer: Option<String>,
}

/// An irregularity and the dealer it is attributed to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DealtIrregularity {
    /// Its code.
    pub code: String,
    /// The rule it cites.
    pub rule: String,
    /// The shoe.
    pub shoe: u32,
    /// The round, if it belongs to one.
    pub round: Option<u32>,
    /// The event that revealed it.
    pub seq: u64,
    /// When.
    pub at: Option<Timestamp>,
    /// The dealer it is attributed to.
    pub dealer: Option<String>,
    /// Whether it counts against that dealer: not a finding of the device's own, and not in a
    /// round a device fault interrupted.
    pub counted: bool,
}

/// Who dealt what at one table, from its steps.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Attribution {
    /// Every stint, in order.
    pub stints: Vec<Stint>,
    /// Every round closed, in order, with its dealer.
    pub rounds: Vec<DealtRound>,
    /// Every shoe with a round, in order, with the dealer who began it.
    pub shoes: Vec<DealtShoe>,
    /// Every irregularity, in order, with its dealer.
    pub irregularities: Vec<DealtIrregularity>,
    /// The `seq` of each sign-out that named a dealer not signed in (it changed nothing).
    pub stray_sign_outs: Vec<u64>,
}

/// Whether a finding is the device's own rather than anything a dealer did: a device error, a
/// card the device could not read, a device that disclosed card order.
pub fn device_fault(code: IrregularityCode) -> bool {
    matches!(
        code,
        IrregularityCode::DeviceError
            | IrregularityCode::UnreadableCard
            | IrregularityCode::OrderDisclosed
    )
}

impl Attribution {
    /// Who dealt what over the steps (each event with what the table's engine output on it), in
    /// order.
    pub fn of<'a>(
        steps: impl IntoIterator<Item = (&'a TableEvent, &'a [GameOutput])>,
    ) -> Attribution {
        let mut attribution = Attribution::default();
        // The stint open now, as an index into `stints`.
        let mut open: Option<usize> = None;
        let mut device_errors: Vec<u64> = Vec::new();
        let mut closed: Vec<(crate::GameRound, u64)> = Vec::new();
        let mut found: Vec<(pitwatch_rules::Irregularity, Option<Timestamp>)> = Vec::new();
        for (event, outputs) in steps {
            match &event.kind {
                EventKind::DealerSignedIn { dealer } => {
                    let same = open.is_some_and(|i| attribution.stints[i].dealer == *dealer);
                    if !same {
                        if let Some(i) = open.take() {
                            attribution.stints[i].to_seq = Some(event.seq);
                            attribution.stints[i].to_at = event.at;
                        }
                        attribution.stints.push(Stint {
                            dealer: dealer.clone(),
                            from_seq: event.seq,
                            from_at: event.at,
                            to_seq: None,
                            to_at: None,
                        });
                        open = Some(attribution.stints.len() - 1);
                    }
                }
                EventKind::DealerSignedOut { dealer } => {
                    match open.filter(|&i| attribution.stints[i].dealer == *dealer) {
                        Some(i) => {
                            attribution.stints[i].to_seq = Some(event.seq);
                            attribution.stints[i].to_at = event.at;
                            open = None;
                        }
                        None => attribution.stray_sign_outs.push(event.seq),
                    }
                }
                EventKind::DeviceError { .. } => device_errors.push(event.seq),
                _ => {}
            }
            for output in outputs {
                match output {
                    TableOutput::Round(done) => closed.push((done.clone(), event.seq)),
                    TableOutput::Irregularity(irregularity) => {
                        found.push((irregularity.clone(), event.at));
                    }
                    _ => {}
                }
            }
        }
        let dealer_at = |seq: u64| {
            attribution
                .stints
                .iter()
                .find(|s| s.covers(seq))
                .map(|s| s.dealer.clone())
        };
        let faulted_rounds: Vec<(u32, u32)> = found
            .iter()
            .filter(|(i, _)| device_fault(i.code))
            .filter_map(|(i, _)| Some((i.shoe, i.round?)))
            .collect();
        let rounds: Vec<DealtRound> = closed
            .iter()
            .map(|(done, close_seq)| {
                let first_seq = done.first_seq();
                let device_fault = device_errors
                    .iter()
                    .any(|&seq| seq >= first_seq && seq <= *close_seq)
                    || faulted_rounds.contains(&(done.shoe(), done.round()));
                DealtRound {
                    shoe: done.shoe(),
                    round: done.round(),
                    first_seq,
                    close_seq: *close_seq,
                    dealer: dealer_at(first_seq),
                    device_fault,
                }
            })
            .collect();
        let mut shoes: Vec<DealtShoe> = Vec::new();
        for round in &rounds {
            if shoes.last().is_none_or(|s| s.shoe != round.shoe) {
                shoes.push(DealtShoe {
                    shoe: round.shoe,
                    first_seq: round.first_seq,
                    dealer: round.dealer.clone(),
                });
            }
        }
        let irregularities = found
            .into_iter()
            .map(|(irregularity, at)| {
                let in_round = irregularity.round.and_then(|r| {
                    rounds
                        .iter()
                        .find(|d| d.shoe == irregularity.shoe && d.round == r)
                });
                let dealer = match in_round {
                    Some(round) => round.dealer.clone(),
                    None => dealer_at(irregularity.seq),
                };
                DealtIrregularity {
                    code: irregularity.code.to_string(),
                    rule: irregularity.rule.clone(),
                    shoe: irregularity.shoe,
                    round: irregularity.round,
                    seq: irregularity.seq,
                    at,
                    dealer,
                    counted: !device_fault(irregularity.code)
                        && !in_round.is_some_and(|r| r.device_fault),
                }
            })
            .collect();
        attribution.rounds = rounds;
        attribution.shoes = shoes;
        attribution.irregularities = irregularities;
        attribution
    }

    /// Every dealer named, in the order they first signed in.
    pub fn dealers(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for stint in &self.stints {
            if !names.contains(&stint.dealer.as_str()) {
                names.push(&stint.dealer);
            }
        }
        names
    }

    /// The rota: the stints that overlap the period `[from, to)` (all of them with no period),
    /// in order.
    pub fn rota(&self, period: Option<(Timestamp, Timestamp)>) -> Vec<&Stint> {
        self.stints
            .iter()
            .filter(|s| {
                let Some((from, to)) = period else {
                    return true;
                };
                let starts_before_end = s.from_at.is_none_or(|at| at < to);
                let ends_after_start = s.to_at.is_none_or(|at| at > from) || s.to_seq.is_none();
                starts_before_end && ends_after_start
            })
            .collect()
    }
}

/// One dealer's figures over a table's steps (or a period of them).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DealerFigures {
    /// The dealer.
    pub dealer: String,
    /// Rounds counted: theirs, not interrupted by a device fault.
    pub rounds: u32,
    /// Their rounds a device fault interrupted, not counted against them.
    pub rounds_excused: u32,
    /// Rounds per hour of their dealing (their counted rounds and the gaps between them, no gap
    /// longer than a break and none across a hand-over or a change of shoe).
    pub rounds_per_hour: Option<f64>,
    /// Irregularities counted against them, by code.
    pub irregularities: BTreeMap<String, u32>,
    /// Irregularities counted against them per 100 rounds counted.
    pub errors_per_100_rounds: Option<f64>,
}

/// Each dealer's figures from a table's pace and attribution (of the same steps), in the order
/// the dealers first signed in; with a `period`, only the rounds that closed in `[from, to)` and
/// the irregularities raised in it.
pub fn figures(
    pace: &Pace,
    attribution: &Attribution,
    break_after_ms: i64,
    period: Option<(Timestamp, Timestamp)>,
) -> Vec<DealerFigures> {
    let within = |at: Option<Timestamp>| match (period, at) {
        (None, _) => true,
        (Some((from, to)), Some(at)) => at >= from && at < to,
        (Some(_), None) => false,
    };
    let dealt: BTreeMap<(u32, u32), &DealtRound> = attribution
        .rounds
        .iter()
        .map(|r| ((r.shoe, r.round), r))
        .collect();
    attribution
        .dealers()
        .into_iter()
        .map(|dealer| {
            let mine = |r: &RoundPace| {
                dealt
                    .get(&(r.shoe, r.round))
                    .is_some_and(|d| d.dealer.as_deref() == Some(dealer))
            };
            let excused = |r: &RoundPace| {
                dealt
                    .get(&(r.shoe, r.round))
                    .is_some_and(|d| d.device_fault)
            };
            let mut counted: Vec<RoundPace> = Vec::new();
            let mut rounds_excused = 0;
            let mut previous_counted = false;
            for round in &pace.rounds {
                let keep = mine(round) && within(round.closed_at);
                if keep && excused(round) {
                    rounds_excused += 1;
                }
                let count = keep && !excused(round);
                if count {
                    let mut round = round.clone();
                    if !previous_counted {
                        // The gap before it was another's round, a hand-over or a fault.
                        round.gap_before_ms = None;
                    }
                    counted.push(round);
                }
                previous_counted = count;
            }
            let mut irregularities = BTreeMap::new();
            for found in &attribution.irregularities {
                if found.counted && found.dealer.as_deref() == Some(dealer) && within(found.at) {
                    *irregularities.entry(found.code.clone()).or_insert(0) += 1;
                }
            }
            let theirs = Pace {
                rounds: counted,
                shoes: Vec::new(),
                irregularities,
            };
            DealerFigures {
                dealer: dealer.to_owned(),
                rounds: theirs.rounds.len() as u32,
                rounds_excused,
                rounds_per_hour: theirs.rounds_per_hour(break_after_ms),
                errors_per_100_rounds: theirs.errors_per_100_rounds(),
                irregularities: theirs.irregularities,
            }
        })
        .collect()
}

#[cfg(test)]
pub(crate) mod tests;
