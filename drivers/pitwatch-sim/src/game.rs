//! A Blackjack or Pontoon table for the simulator: shoe after shoe dealt by the Blackjack dealer
//! simulator (`pitwatch_blackjack::dealer`: honest rounds, a basic-strategy player per box, the
//! faults asked for), sent in the Pitwatch protocol, the only protocol here that carries box
//! targets and decisions.

use std::str::FromStr;

use pitwatch_blackjack::dealer::{deal, Config, Fault};
use pitwatch_blackjack::Book;
use pitwatch_codec::DeviceIdentity;
use pitwatch_model::{EventKind, TableEvent};
use serde::Serialize;

use crate::script::{derive_seed, Action, Step};

/// A Blackjack or Pontoon table: its rule book and the faults to inject.
#[derive(Debug, Clone)]
pub struct GameSim {
    /// The rule book (`nz-blackjack`, `nz-pontoon` or a file of either game).
    pub book: Book,
    /// Faults to inject.
    pub faults: Vec<GameFault>,
}

/// A Blackjack or Pontoon fault at a round: `KIND`, `KIND@ROUND` (shoe 1) or `KIND@SHOE:ROUND`,
/// KIND one of the dealer simulator's faults (`dealer_draws_on_stand`, `dealer_stands_short`,
/// `card_to_empty_box`, `out_of_order`, `round_after_cutting_card`, `foreign_card`,
/// `shuffle_step_skipped`). The dealer puts it into that round or, where it cannot show there (a
/// dealer who must draw, two boxes), the first round after it where it can; a skipped preparation
/// step (under a book that requires the steps, Pontoon 6.4) goes into the shoe's load, and is
/// logged with round 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GameFault {
    /// The fault.
    pub fault: Fault,
    /// Its shoe, from 1.
    pub shoe: u32,
    /// Its round within the shoe, from 1.
    pub round: u32,
}

impl FromStr for GameFault {
    type Err = String;

    fn from_str(text: &str) -> Result<GameFault, String> {
        let (kind, at) = match text.split_once('@') {
            Some((kind, at)) => (kind, Some(at)),
            None => (text, None),
        };
        let fault: Fault = kind.replace('-', "_").parse()?;
        let number = |n: &str| {
            n.parse::<u32>()
                .ok()
                .filter(|n| *n > 0)
                .ok_or_else(|| format!("{n:?} is not a number from 1"))
        };
        let (shoe, round) = match at {
            None => (1, 3),
            Some(at) => match at.split_once(':') {
                Some((shoe, round)) => (number(shoe)?, number(round)?),
                None => (1, number(at)?),
            },
        };
        Ok(GameFault { fault, shoe, round })
    }
}

/// One injected fault, as a line of the injected-faults file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GameInjected {
    /// The fault's name.
    pub fault: &'static str,
    /// Its shoe.
    pub shoe: u32,
    /// Its round within the shoe; 0 for a fault at the shoe's load, outside any round.
    pub round: u32,
    /// The irregularity code a host should raise in that round.
    pub code: &'static str,
}

/// One shoe of a Blackjack or Pontoon table, planned.
pub(crate) struct GameShoe {
    pub(crate) steps: Vec<Step>,
    /// (index of the step that opens the round, the fault in that round).
    pub(crate) injected: Vec<(usize, GameInjected)>,
    pub(crate) rounds: u32,
}

/// Plans shoe after shoe for a Blackjack or Pontoon table.
pub(crate) struct GamePlanner {
    sim: GameSim,
    seed: u64,
    shoes: u32,
    messages: pitwatch_proto::MessageEncoder,
}

impl GamePlanner {
    pub(crate) fn new(sim: GameSim, seed: u64) -> GamePlanner {
        GamePlanner {
            sim,
            seed,
            shoes: 0,
            messages: Default::default(),
        }
    }

    /// A dealer's pause before `event`, in milliseconds.
    fn delay(event: &TableEvent, first: bool) -> u64 {
        match event.kind {
            EventKind::Shuffled { .. } if first => 0,
            EventKind::Shuffled { .. } => 6_000,
            EventKind::Cut { .. } => 4_000,
            EventKind::CuttingCardPlaced { .. } => 2_000,
            EventKind::BetsClosed => 5_000,
            EventKind::CardDrawn { .. } => 1_200,
            EventKind::Decision { .. } => 1_500,
            EventKind::CuttingCardDrawn => 300,
            _ => 800,
        }
    }

    pub(crate) fn next_shoe(&mut self) -> GameShoe {
        self.shoes += 1;
        let shoe = self.shoes;
        let faults = self
            .sim
            .faults
            .iter()
            .filter(|f| f.shoe == shoe)
            .map(|f| (f.fault, f.round))
            .collect();
        let config = Config {
            seed: derive_seed(self.seed, u64::from(shoe)),
            shoes: 1,
            faults,
            ..Config::default()
        };
        let dealt = deal(&self.sim.book, &config);
        let mut steps = Vec::with_capacity(dealt.events.len() + 1);
        if shoe == 1 {
            let hello = pitwatch_proto::Message::Hello(DeviceIdentity {
                role: "shoe".into(),
                make: "Pitwatch".into(),
                model: format!("Simulated {} shoe", self.sim.book.variant.name()),
                serial: "SIM-1".into(),
                firmware: "1".into(),
                protocol_version: 1,
            });
            steps.push(Step {
                delay_ms: 0,
                min_delay_ms: 0,
                action: Action::Send(self.messages.encode(&hello)),
                injected: Vec::new(),
            });
        }
        // The step that opens each round ("no more bets"), so a fault is logged as its round
        // begins.
        let mut round_steps = Vec::new();
        // The step that loads the shoe: a fault at the load (a preparation step skipped) is
        // logged there.
        let mut load_step = 0;
        for (i, event) in dealt.events.iter().enumerate() {
            let Some(message) = pitwatch_proto::ProtoEncoder::message_for(event) else {
                continue;
            };
            if matches!(event.kind, EventKind::BetsClosed) {
                round_steps.push(steps.len());
            }
            if matches!(event.kind, EventKind::Shuffled { .. }) {
                load_step = steps.len();
            }
            steps.push(Step {
                delay_ms: Self::delay(event, shoe == 1 && i == 0),
                min_delay_ms: 0,
                action: Action::Send(self.messages.encode(&message)),
                injected: Vec::new(),
            });
        }
        let injected = dealt
            .injected
            .iter()
            .map(|i| {
                // Round 0: the fault is at the shoe's load, outside any round.
                let at = (i.round as usize)
                    .checked_sub(1)
                    .map_or(Some(load_step), |r| round_steps.get(r).copied())
                    .unwrap_or(0);
                (
                    at,
                    GameInjected {
                        fault: i.fault.name(),
                        shoe,
                        round: i.round,
                        code: i.fault.code().as_str(),
                    },
                )
            })
            .collect();
        GameShoe {
            steps,
            injected,
            rounds: dealt.rounds,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faults_parse_with_and_without_their_round() {
        let f: GameFault = "dealer-draws-on-stand@2:7".parse().unwrap();
        assert_eq!(
            (f.fault, f.shoe, f.round),
            (Fault::DealerDrawsOnStand, 2, 7)
        );
        let f: GameFault = "out_of_order@4".parse().unwrap();
        assert_eq!((f.shoe, f.round), (1, 4));
        assert!("out_of_order@0".parse::<GameFault>().is_err());
        assert!("burn-miscount".parse::<GameFault>().is_err());
    }
}
