//! A table whose hands are played at a dealer console (poker's), for the simulator: its
//! automatic shuffler and its dealer console, two devices on two links, driven by one dealer so a
//! hand's play always follows the deck shuffled for it (two simulators with their own clocks
//! would drift apart, and a hand's actions would cross into the next deck). Each hand: the
//! shuffler's shuffle and deck check (its faults as a [`ShufflerSim`]'s), then the console's
//! reports of the hand's play, a few seconds apart at a dealer's pace. The play (the blinds, the
//! players' actions, now and then a misdeal the floor declares before substantial action when
//! faults are on) is the game's own dealer, which the registry chooses by the book
//! ([`HandDealer`]), drawing on this simulator's seeded generator; this file is the devices' side:
//! the framing in the Pitwatch protocol, which device sends what, and the injected-faults log.
//! The console reports what players do, not cards (such tables rarely read cards).

use pitwatch_codec::DeviceIdentity;
use pitwatch_games::sim::{Chance, HandDealer};
use pitwatch_model::TableEvent;
use pitwatch_proto::{Message, MessageEncoder, ProtoEncoder};
use rand::{Rng, SeedableRng};
use serde::Serialize;

use crate::script::{derive_seed, Action, Step};
use crate::shuffler::{ShufflerPlanner, ShufflerSim};

/// A simulated table of hands at a dealer console.
#[derive(Debug, Clone)]
pub struct ConsoleSim {
    /// Its shuffler: decks, cards per deck, faults (`deck-short` at a shuffle: misdeal (h) for
    /// the hand dealt from it) and the pause before each shuffle after the first.
    pub shuffler: ShufflerSim,
    /// Players seated, 2 to 10.
    pub seats: u8,
    /// Hands at which the console declares a misdeal (misdeal (c), cards dealt out of order,
    /// before substantial action).
    pub misdeal_hands: Vec<u32>,
}

/// A declared misdeal as injected, written to the injected-faults log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ConsoleInjected {
    /// The fault's name.
    pub fault: &'static str,
    /// The hand, from 1.
    pub hand: u32,
    /// What a host should make of it.
    pub expected: &'static str,
}

/// One hand to send: its steps, the device each goes to (0 the shuffler, 1 the console), and
/// what was injected (as JSON lines, by step).
pub(crate) struct PlannedHand {
    pub(crate) steps: Vec<Step>,
    pub(crate) devices: Vec<usize>,
    pub(crate) injected: Vec<(usize, Result<String, serde_json::Error>)>,
}

pub(crate) struct ConsolePlanner {
    dealer: HandDealer,
    sim: ConsoleSim,
    seed: u64,
    hands: u32,
    shuffler: ShufflerPlanner,
    console: MessageEncoder,
}

impl ConsolePlanner {
    pub(crate) fn new(dealer: HandDealer, sim: ConsoleSim, seed: u64) -> ConsolePlanner {
        ConsolePlanner {
            dealer,
            shuffler: ShufflerPlanner::new(sim.shuffler.clone(), seed),
            sim,
            seed,
            hands: 0,
            console: MessageEncoder::new(),
        }
    }

    /// The next hand: its deck shuffled and checked, then its play at the console.
    pub(crate) fn next_hand(&mut self) -> PlannedHand {
        self.hands += 1;
        let n = self.hands;
        let (mut steps, shuffled) = self.shuffler.next_shuffle();
        let mut devices = vec![0; steps.len()];
        let mut injected: Vec<(usize, Result<String, serde_json::Error>)> = shuffled
            .iter()
            .map(|(i, record)| (*i, serde_json::to_string(record)))
            .collect();
        let mut chance = Seeded(rand_chacha::ChaCha8Rng::seed_from_u64(derive_seed(
            self.seed ^ 0x504f_4b45,
            u64::from(n),
        )));
        let play = self.dealer.play_hand(
            self.sim.seats,
            self.sim.misdeal_hands.contains(&n),
            &mut chance,
        );
        let mut send = |steps: &mut Vec<Step>, delay_ms: u64, message: &Message| {
            steps.push(Step {
                delay_ms,
                min_delay_ms: 0,
                action: Action::Send(self.console.encode(message)),
                injected: Vec::new(),
            });
            devices.push(1);
        };
        if n == 1 {
            let hello = Message::Hello(DeviceIdentity {
                role: "console".into(),
                make: "Pitwatch".into(),
                model: "Simulated dealer console".into(),
                serial: "SIM-C1".into(),
                firmware: "1".into(),
                protocol_version: 1,
            });
            send(&mut steps, 0, &hello);
        }
        for (i, report) in play.reports.into_iter().enumerate() {
            if play.misdeal == Some(i) {
                // Logged at the step that declares it.
                injected.push((
                    steps.len(),
                    serde_json::to_string(&ConsoleInjected {
                        fault: "misdeal-declared",
                        hand: n,
                        expected: "MISDEAL_DECLARED",
                    }),
                ));
            }
            let event = TableEvent::new(0, report.event);
            // Every report of the dealer is a console message (a player's action, a misdeal).
            if let Some(message) = ProtoEncoder::message_for(&event) {
                send(&mut steps, report.pause_ms, &message);
            }
        }
        PlannedHand {
            steps,
            devices,
            injected,
        }
    }
}

/// The simulator's seeded generator as the dealer's chance.
struct Seeded(rand_chacha::ChaCha8Rng);

impl Chance for Seeded {
    fn roll(&mut self, range: std::ops::Range<i32>) -> i32 {
        self.0.gen_range(range)
    }

    fn pause_ms(&mut self, range: std::ops::Range<u64>) -> u64 {
        self.0.gen_range(range)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pitwatch_codec::{DecodeOutput, Decoder};
    use pitwatch_model::{EventKind, PlayerAction};

    fn sim(misdeal_hands: Vec<u32>) -> ConsoleSim {
        ConsoleSim {
            shuffler: ShufflerSim {
                decks: 1,
                cards_per_deck: 52,
                faults: vec!["deck-short@2".parse().unwrap()],
                interval_ms: 5_000,
            },
            seats: 6,
            misdeal_hands,
        }
    }

    /// Each device's bytes of `hands` hands, decoded by the host's decoder.
    fn decoded(sim: ConsoleSim, hands: u32) -> [Vec<EventKind>; 2] {
        let book = pitwatch_games::load_game_book("nz-poker").unwrap();
        let pitwatch_games::sim::Dealing::Hands(dealer) = book.dealing() else {
            panic!("a poker book's hands are played at a console");
        };
        let mut planner = ConsolePlanner::new(dealer, sim, 3);
        let mut bytes = [Vec::new(), Vec::new()];
        for _ in 0..hands {
            let hand = planner.next_hand();
            for (step, device) in hand.steps.into_iter().zip(hand.devices) {
                if let Action::Send(b) = step.action {
                    bytes[device].extend(b);
                }
            }
        }
        bytes.map(|b| {
            let mut decoder = pitwatch_proto::ProtoDecoder::default();
            let mut out = Vec::new();
            let at = pitwatch_model::Timestamp::from_unix_millis(1_796_000_000_000).unwrap();
            decoder.push(&b, at, &mut out);
            let mut kinds = Vec::new();
            for o in &out {
                match o {
                    DecodeOutput::Accepted(a) => {
                        kinds.extend(a.events.iter().map(|e| e.kind.clone()))
                    }
                    DecodeOutput::Rejected(r) => panic!("rejected: {r:?}"),
                }
            }
            kinds
        })
    }

    #[test]
    fn the_shuffler_checks_a_deck_per_hand_and_the_console_reports_the_play() {
        let [shuffler, console] = decoded(sim(vec![3]), 4);
        let counts: Vec<u32> = shuffler
            .iter()
            .filter_map(|k| match k {
                EventKind::Shuffled { cards, .. } => *cards,
                _ => None,
            })
            .collect();
        assert_eq!(
            counts,
            [52, 51, 52, 52],
            "a deck per hand, the second short"
        );
        assert!(console.iter().all(|k| matches!(
            k,
            EventKind::PlayerActed { .. } | EventKind::MisdealDeclared { .. }
        )));
        let blinds = console
            .iter()
            .filter(|k| {
                matches!(
                    k,
                    EventKind::PlayerActed {
                        action: PlayerAction::Blind,
                        ..
                    }
                )
            })
            .count();
        assert_eq!(blinds, 8, "two blinds a hand");
        let declared: Vec<&EventKind> = console
            .iter()
            .filter(|k| matches!(k, EventKind::MisdealDeclared { .. }))
            .collect();
        assert_eq!(declared.len(), 1, "hand 3's misdeal only");
    }

    #[test]
    fn the_same_seed_plays_the_same_hands() {
        assert_eq!(decoded(sim(Vec::new()), 5), decoded(sim(Vec::new()), 5));
    }
}
