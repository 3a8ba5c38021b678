//! A counting shuffler for the simulator (`pitwatch sim --role shuffler --protocol pitwatch`):
//! shuffle after shuffle of a set of decks, each a `SHUFFLE_START` (with its cycle counter) and a
//! `SHUFFLE_DONE` with the deck check, then its counters (`STATUS`), heartbeats between, in the
//! Pitwatch protocol (the only protocol here a shuffler speaks), with faults at chosen shuffles:
//! a short deck, an extra card, a foreign card, a jam the shuffler reports and clears, a shuffle
//! started and never completed, and a shuffler that leaks the deck's order (an `ORDER` line,
//! which the protocol forbids and a host must never keep).

use std::str::FromStr;

use pitwatch_codec::DeviceIdentity;
use pitwatch_proto::{DeckCheck, Message, MessageEncoder};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use serde::Serialize;

use crate::script::{derive_seed, Action, Step};

/// What can go wrong at a shuffle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ShufflerFaultKind {
    /// One card fewer than the decks hold (`missing=1`).
    DeckShort,
    /// One card more: a duplicate (`extra=1`).
    DeckExtra,
    /// One card of another deck (`foreign=1`).
    ForeignCard,
    /// The shuffler jams during the shuffle and reports it (`JAM`, then `CLEAR`).
    ShufflerError,
    /// The shuffler sends the shuffled deck's order (an `ORDER` line): forbidden.
    OrderLeak,
    /// The shuffle starts (`SHUFFLE_START`) and never completes: beside a shoe, the shoe is
    /// loaded from it anyway; alone, the next shuffle starts without it.
    ShuffleAbandoned,
}

impl ShufflerFaultKind {
    /// Every fault, in documentation order.
    pub const ALL: &'static [ShufflerFaultKind] = &[
        ShufflerFaultKind::DeckShort,
        ShufflerFaultKind::DeckExtra,
        ShufflerFaultKind::ForeignCard,
        ShufflerFaultKind::ShufflerError,
        ShufflerFaultKind::OrderLeak,
        ShufflerFaultKind::ShuffleAbandoned,
    ];

    /// The fault's name (`deck-short`).
    pub const fn name(self) -> &'static str {
        match self {
            ShufflerFaultKind::DeckShort => "deck-short",
            ShufflerFaultKind::DeckExtra => "deck-extra",
            ShufflerFaultKind::ForeignCard => "foreign-card",
            ShufflerFaultKind::ShufflerError => "shuffler-error",
            ShufflerFaultKind::OrderLeak => "order-leak",
            ShufflerFaultKind::ShuffleAbandoned => "shuffle-abandoned",
        }
    }

    /// What a host should make of it: the irregularity code, or `forbidden` for a rejected line.
    /// An abandoned shuffle is `NOT_SHUFFLED` when a shoe beside the shuffler is loaded from it
    /// (alone, the next shuffle's start raises `DEVICE_ERROR`: the shuffle was interrupted).
    pub const fn expected(self) -> &'static str {
        match self {
            ShufflerFaultKind::DeckShort
            | ShufflerFaultKind::DeckExtra
            | ShufflerFaultKind::ForeignCard => "SHUFFLE_COUNT_MISMATCH",
            ShufflerFaultKind::ShufflerError => "DEVICE_ERROR",
            ShufflerFaultKind::OrderLeak => "forbidden",
            ShufflerFaultKind::ShuffleAbandoned => "NOT_SHUFFLED",
        }
    }
}

/// A fault at a shuffle: `KIND[@SHUFFLE]` (`deck-short@3`; the second shuffle by default).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShufflerFault {
    /// What.
    pub fault: ShufflerFaultKind,
    /// At which shuffle, from 1.
    pub shuffle: u32,
}

impl FromStr for ShufflerFault {
    type Err = String;

    fn from_str(text: &str) -> Result<ShufflerFault, String> {
        let (kind, at) = text.split_once('@').unwrap_or((text, "2"));
        let fault = ShufflerFaultKind::ALL
            .iter()
            .copied()
            .find(|f| f.name() == kind.replace('_', "-"))
            .ok_or_else(|| {
                let names: Vec<&str> = ShufflerFaultKind::ALL.iter().map(|f| f.name()).collect();
                format!(
                    "unknown shuffler fault {kind:?} (known: {})",
                    names.join(", ")
                )
            })?;
        let shuffle = at
            .parse::<u32>()
            .ok()
            .filter(|n| *n > 0)
            .ok_or_else(|| format!("{at:?} is not a shuffle number from 1"))?;
        Ok(ShufflerFault { fault, shuffle })
    }
}

/// A simulated shuffler: how many decks of how many cards, and its faults.
#[derive(Debug, Clone)]
pub struct ShufflerSim {
    /// Decks per shuffle.
    pub decks: u8,
    /// Cards per deck (52, or 48 for Spanish decks).
    pub cards_per_deck: u32,
    /// Faults to inject.
    pub faults: Vec<ShufflerFault>,
    /// The pause before each shuffle after the first, at a real pace (milliseconds): about the
    /// time a shoe is dealt for a shuffler beside a shoe (one shuffle per shoe).
    pub interval_ms: u64,
}

/// The pause between shuffles a counting shuffler on its own takes (20 s at a real pace).
pub const SHUFFLE_INTERVAL_MS: u64 = 20_000;

/// A fault as injected, written to the injected-faults log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ShufflerInjected {
    /// The fault's name.
    pub fault: &'static str,
    /// The shuffle, from 1.
    pub shuffle: u32,
    /// What a host should make of it.
    pub expected: &'static str,
}

pub(crate) struct ShufflerPlanner {
    sim: ShufflerSim,
    seed: u64,
    shuffles: u32,
    /// Malfunctions logged (jams), for the `STATUS` counters.
    malfunctions: u32,
    messages: MessageEncoder,
}

impl ShufflerPlanner {
    pub(crate) fn new(sim: ShufflerSim, seed: u64) -> ShufflerPlanner {
        ShufflerPlanner {
            sim,
            seed,
            shuffles: 0,
            malfunctions: 0,
            messages: MessageEncoder::new(),
        }
    }

    /// The next shuffle's steps, with the fault injected (if any) logged at its step.
    pub(crate) fn next_shuffle(&mut self) -> (Vec<Step>, Vec<(usize, ShufflerInjected)>) {
        self.shuffles += 1;
        let n = self.shuffles;
        let mut steps = Vec::new();
        let mut injected = Vec::new();
        let send = |steps: &mut Vec<Step>, delay_ms: u64, bytes: Vec<u8>| {
            steps.push(Step {
                delay_ms,
                min_delay_ms: 0,
                action: Action::Send(bytes),
                injected: Vec::new(),
            });
        };
        if n == 1 {
            let hello = Message::Hello(DeviceIdentity {
                role: "shuffler".into(),
                make: "Pitwatch".into(),
                model: "Simulated shuffler".into(),
                serial: "SIM-S1".into(),
                firmware: "1".into(),
                protocol_version: 1,
            });
            send(&mut steps, 0, self.messages.encode(&hello));
        }
        let decks = self.sim.decks;
        send(
            &mut steps,
            if n == 1 { 0 } else { self.sim.interval_ms },
            self.messages.encode(&Message::ShuffleStarted {
                decks: Some(decks),
                cycle: Some(n),
            }),
        );
        let expected = u32::from(decks) * self.sim.cards_per_deck;
        let mut check = DeckCheck {
            decks: Some(decks),
            cards: expected,
            expected,
            missing: 0,
            extra: 0,
            foreign: 0,
            mode: Some(pitwatch_model::ShufflerKind::Batch),
        };
        for fault in self.sim.faults.iter().filter(|f| f.shuffle == n) {
            injected.push((
                steps.len(),
                ShufflerInjected {
                    fault: fault.fault.name(),
                    shuffle: n,
                    expected: fault.fault.expected(),
                },
            ));
            match fault.fault {
                ShufflerFaultKind::DeckShort => {
                    check.cards -= 1;
                    check.missing += 1;
                }
                ShufflerFaultKind::DeckExtra => {
                    check.cards += 1;
                    check.extra += 1;
                }
                ShufflerFaultKind::ForeignCard => {
                    check.cards += 1;
                    check.foreign += 1;
                }
                ShufflerFaultKind::ShuffleAbandoned => {}
                ShufflerFaultKind::ShufflerError => {
                    self.malfunctions += 1;
                    let jam = Message::Jam {
                        location: Some("elevator".into()),
                    };
                    send(&mut steps, 4_000, self.messages.encode(&jam));
                    let clear = Message::ErrorCleared { code: "JAM".into() };
                    send(&mut steps, 10_000, self.messages.encode(&clear));
                }
                ShufflerFaultKind::OrderLeak => {
                    // A deck order as a compromised shuffler would leak it: the host must reject
                    // the line without keeping its content. The line takes the next sequence
                    // number (the heartbeat encoded to take it is not sent).
                    let seq = self.messages.next_seq();
                    let _ = self.messages.encode(&Message::Heartbeat);
                    let mut order: Vec<String> = Vec::new();
                    for _ in 0..decks {
                        for suit in ["S", "H", "D", "C"] {
                            for rank in "A23456789TJQK".chars() {
                                order.push(format!("{rank}{suit}"));
                            }
                        }
                    }
                    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(derive_seed(
                        self.seed,
                        u64::from(n),
                    ));
                    order.shuffle(&mut rng);
                    let leaked = order[..order.len().min(20)].join(",");
                    send(
                        &mut steps,
                        2_000,
                        pitwatch_proto::encode_raw(seq, "ORDER", &[("cards", &leaked)]),
                    );
                }
            }
        }
        let abandoned = self
            .sim
            .faults
            .iter()
            .any(|f| f.shuffle == n && f.fault == ShufflerFaultKind::ShuffleAbandoned);
        if !abandoned {
            send(
                &mut steps,
                25_000,
                self.messages.encode(&Message::ShuffleCompleted(check)),
            );
            let status = Message::Status {
                cycles: n,
                recognition_errors: Some(0),
                malfunctions: Some(self.malfunctions),
            };
            send(&mut steps, 0, self.messages.encode(&status));
        }
        send(
            &mut steps,
            10_000,
            self.messages.encode(&Message::Heartbeat),
        );
        (steps, injected)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pitwatch_codec::{DecodeOutput, Decoder, RejectKind};
    use pitwatch_model::EventKind;

    #[test]
    fn faults_parse_with_and_without_their_shuffle() {
        let f: ShufflerFault = "deck-short@3".parse().unwrap();
        assert_eq!((f.fault, f.shuffle), (ShufflerFaultKind::DeckShort, 3));
        let f: ShufflerFault = "order_leak".parse().unwrap();
        assert_eq!((f.fault, f.shuffle), (ShufflerFaultKind::OrderLeak, 2));
        assert!("deck-short@0".parse::<ShufflerFault>().is_err());
        assert!("burn-miscount".parse::<ShufflerFault>().is_err());
    }

    /// Decodes three shuffles with every fault at the second and third through the host's own
    /// decoder: the counts are what the faults say, the jam is raised and cleared, and the order
    /// line is rejected as forbidden with its bytes withheld.
    #[test]
    fn the_host_decoder_sees_each_fault() {
        let sim = ShufflerSim {
            decks: 1,
            cards_per_deck: 52,
            faults: vec![
                "deck-short@2".parse().unwrap(),
                "shuffler-error@2".parse().unwrap(),
                "foreign-card@3".parse().unwrap(),
                "order-leak@3".parse().unwrap(),
            ],
            interval_ms: SHUFFLE_INTERVAL_MS,
        };
        let mut planner = ShufflerPlanner::new(sim, 7);
        let mut bytes = Vec::new();
        let mut logged = Vec::new();
        for _ in 0..3 {
            let (steps, injected) = planner.next_shuffle();
            logged.extend(injected.into_iter().map(|(_, i)| i.fault));
            for step in steps {
                if let Action::Send(b) = step.action {
                    bytes.extend(b);
                }
            }
        }
        assert_eq!(
            logged,
            ["deck-short", "shuffler-error", "foreign-card", "order-leak"]
        );
        let mut decoder = pitwatch_proto::ProtoDecoder::default();
        let mut out = Vec::new();
        let at = pitwatch_model::Timestamp::from_unix_millis(1_796_000_000_000).unwrap();
        decoder.push(&bytes, at, &mut out);
        let mut counts = Vec::new();
        let mut checks = Vec::new();
        let mut errors = Vec::new();
        let mut forbidden = Vec::new();
        for o in &out {
            match o {
                DecodeOutput::Accepted(a) => {
                    for e in &a.events {
                        match &e.kind {
                            EventKind::Shuffled { cards, .. } => {
                                counts.push(cards.unwrap());
                                checks.push((
                                    e.extra["missing_cards"].as_u64().unwrap(),
                                    e.extra["foreign_cards"].as_u64().unwrap(),
                                ));
                            }
                            EventKind::DeviceError { code, .. } => errors.push(code.clone()),
                            _ => {}
                        }
                    }
                }
                DecodeOutput::Rejected(r) => forbidden.push((r.kind, r.bytes.len())),
            }
        }
        assert_eq!(counts, [52, 51, 53]);
        // The deck checks ride on their shuffles for the engine to judge; the jam is the
        // shuffler's own error.
        assert_eq!(checks, [(0, 0), (1, 0), (0, 1)]);
        assert_eq!(errors, ["JAM"]);
        assert_eq!(forbidden, [(RejectKind::Forbidden, 0)]);
        // The leaked cards are nowhere in what the decoder hands on.
        let handed_on: Vec<u8> = out.iter().flat_map(|o| o.bytes().to_vec()).collect();
        assert!(bytes.windows(12).any(|w| w == b"ORDER cards="));
        assert!(!handed_on.windows(5).any(|w| w == b"ORDER"));
    }

    /// Every shuffle starts with its cycle counter; an abandoned one never completes and reports
    /// no counters, and the jam shows in the malfunction counter after it.
    #[test]
    fn an_abandoned_shuffle_starts_and_never_completes() {
        let sim = ShufflerSim {
            decks: 1,
            cards_per_deck: 52,
            faults: vec![
                "shuffle-abandoned@2".parse().unwrap(),
                "shuffler-error@3".parse().unwrap(),
            ],
            interval_ms: SHUFFLE_INTERVAL_MS,
        };
        let mut planner = ShufflerPlanner::new(sim, 7);
        let mut bytes = Vec::new();
        for _ in 0..3 {
            for step in planner.next_shuffle().0 {
                if let Action::Send(b) = step.action {
                    bytes.extend(b);
                }
            }
        }
        let mut decoder = pitwatch_proto::ProtoDecoder::default();
        let mut out = Vec::new();
        let at = pitwatch_model::Timestamp::from_unix_millis(1_796_000_000_000).unwrap();
        decoder.push(&bytes, at, &mut out);
        let mut seen = Vec::new();
        for e in pitwatch_proto::events(&out) {
            match &e.kind {
                EventKind::ShuffleStarted { cycle, .. } => seen.push(format!("start {cycle:?}")),
                EventKind::Shuffled { .. } => seen.push("done".into()),
                EventKind::ShufflerCounters {
                    cycles,
                    malfunctions,
                    ..
                } => seen.push(format!("status {cycles} {malfunctions:?}")),
                _ => {}
            }
        }
        assert_eq!(
            seen,
            [
                "start Some(1)",
                "done",
                "status 1 Some(0)",
                "start Some(2)",
                "start Some(3)",
                "done",
                "status 3 Some(1)"
            ]
        );
    }
}
