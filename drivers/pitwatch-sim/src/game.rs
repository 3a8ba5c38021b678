//! A table whose rounds are dealt to boxes (Blackjack's and Pontoon's), for the simulator: shoe
//! after shoe dealt by the game's own dealer, which the registry chooses by the book
//! ([`BoxDealer`]: honest rounds, a basic-strategy player per box, the faults asked for, each a
//! [`GameFault`]), sent in the Pitwatch protocol, the only protocol here that carries box targets
//! and decisions.

use pitwatch_codec::DeviceIdentity;
use pitwatch_games::sim::{BoxDealer, GameFault};
use pitwatch_model::{EventKind, TableEvent};
use serde::Serialize;

use crate::script::{derive_seed, Action, Step};

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

/// One shoe of a table dealt to boxes, planned.
pub(crate) struct GameShoe {
    pub(crate) steps: Vec<Step>,
    /// (index of the step that opens the round, the fault in that round).
    pub(crate) injected: Vec<(usize, GameInjected)>,
    pub(crate) rounds: u32,
}

/// Plans shoe after shoe for a table dealt to boxes.
pub(crate) struct GamePlanner {
    dealer: BoxDealer,
    faults: Vec<GameFault>,
    seed: u64,
    shoes: u32,
    messages: pitwatch_proto::MessageEncoder,
}

impl GamePlanner {
    pub(crate) fn new(dealer: BoxDealer, faults: Vec<GameFault>, seed: u64) -> GamePlanner {
        GamePlanner {
            dealer,
            faults,
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
            .faults
            .iter()
            .filter(|f| f.shoe == shoe)
            .map(|f| (f.fault, f.round))
            .collect();
        let dealt = self
            .dealer
            .deal(derive_seed(self.seed, u64::from(shoe)), faults);
        let mut steps = Vec::with_capacity(dealt.events.len() + 1);
        if shoe == 1 {
            let hello = pitwatch_proto::Message::Hello(DeviceIdentity {
                role: "shoe".into(),
                make: "Pitwatch".into(),
                model: format!("Simulated {} shoe", self.dealer.name()),
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
                        fault: i.fault,
                        shoe,
                        round: i.round,
                        code: i.code,
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
