//! A poker table for the simulator: its automatic shuffler and its dealer console, two devices on
//! two links, driven by one dealer so a hand's play always follows the deck shuffled for it (two
//! simulators with their own clocks would drift apart, and a hand's actions would cross into the
//! next deck). Each hand: the shuffler's shuffle and deck check (its faults as a
//! [`ShufflerSim`]'s), then the console's blinds and the players' actions, a few seconds apart at
//! a dealer's pace. The console reports what players do, not cards (poker tables rarely read
//! cards); with faults on, it declares a misdeal now and then before substantial action, as a
//! floor supervisor would at the console.

use pitwatch_codec::DeviceIdentity;
use pitwatch_model::{MisdealReason, MisdealRuling, PlayerAction, Target};
use pitwatch_proto::{Message, MessageEncoder};
use rand::{Rng, SeedableRng};
use serde::Serialize;

use crate::script::{derive_seed, Action, Step};
use crate::shuffler::{ShufflerPlanner, ShufflerSim};

/// A simulated poker table.
#[derive(Debug, Clone)]
pub struct PokerSim {
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
pub struct PokerInjected {
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

pub(crate) struct PokerPlanner {
    sim: PokerSim,
    seed: u64,
    hands: u32,
    shuffler: ShufflerPlanner,
    console: MessageEncoder,
}

impl PokerPlanner {
    pub(crate) fn new(sim: PokerSim, seed: u64) -> PokerPlanner {
        PokerPlanner {
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
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(derive_seed(
            self.seed ^ 0x504f_4b45,
            u64::from(n),
        ));
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
        let act = |seat: u8, action: PlayerAction| Message::PlayerActed {
            target: Target::Seat(seat),
            action,
        };
        let seats = self.sim.seats.clamp(2, 10);
        // The blinds: forced bets, not acting on the hand.
        send(&mut steps, 4_000, &act(1, PlayerAction::Blind));
        send(&mut steps, 1_500, &act(2, PlayerAction::Blind));
        if self.sim.misdeal_hands.contains(&n) {
            // One player acts, then the dealer's error is seen: misdeal (c) before substantial
            // action (two players acting).
            send(&mut steps, 5_000, &act(3 % seats + 1, PlayerAction::Call));
            injected.push((
                steps.len(),
                serde_json::to_string(&PokerInjected {
                    fault: "misdeal-declared",
                    hand: n,
                    expected: "MISDEAL_DECLARED",
                }),
            ));
            send(
                &mut steps,
                6_000,
                &Message::Misdeal {
                    reason: MisdealReason::C,
                    seats: Vec::new(),
                    ruling: MisdealRuling::Misdeal,
                },
            );
            return PlannedHand {
                steps,
                devices,
                injected,
            };
        }
        // Pre-flop from the seat after the big blind, round the table to the blinds; then a
        // round or two of betting among those still in.
        let order: Vec<u8> = (3..=seats).chain(1..=2).collect();
        let mut live: Vec<u8> = Vec::new();
        for &seat in &order {
            let roll = rng.gen_range(0..100);
            let action = match roll {
                0..35 => PlayerAction::Fold,
                35..85 => PlayerAction::Call,
                _ => PlayerAction::Raise,
            };
            if action != PlayerAction::Fold {
                live.push(seat);
            }
            send(&mut steps, rng.gen_range(2_000..7_000), &act(seat, action));
        }
        for _street in 0..rng.gen_range(1..=3) {
            if live.len() < 2 {
                break;
            }
            let mut still = Vec::new();
            for &seat in &live {
                let action = match rng.gen_range(0..100) {
                    0..20 => PlayerAction::Fold,
                    20..70 => PlayerAction::Check,
                    70..92 => PlayerAction::Bet,
                    _ => PlayerAction::AllIn,
                };
                if action != PlayerAction::Fold {
                    still.push(seat);
                }
                send(&mut steps, rng.gen_range(2_000..9_000), &act(seat, action));
            }
            live = still;
        }
        PlannedHand {
            steps,
            devices,
            injected,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pitwatch_codec::{DecodeOutput, Decoder};
    use pitwatch_model::EventKind;

    fn sim(misdeal_hands: Vec<u32>) -> PokerSim {
        PokerSim {
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
    fn decoded(sim: PokerSim, hands: u32) -> [Vec<EventKind>; 2] {
        let mut planner = PokerPlanner::new(sim, 3);
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
