//! The pure half of the simulator for a shoe whose rounds follow from the cards alone: a shoe's
//! events from the reference dealer (dealing by the book's shoe section, [`CardsBook`]), turned
//! into the device's byte stream with wire faults and a dealer's pace, as a list of [`Step`]s. No clock, port or file is
//! touched here, so the same seed and configuration always give the same bytes, delays and
//! records; the runner in `device.rs` only sleeps, writes and logs.

use std::collections::HashMap;

use pitwatch_codec::DeviceIdentity;
use pitwatch_dealer::{deal_with, DealerConfig, FaultPlan, InjectedFault, ShuffleModel, Shuffling};
use pitwatch_games::sim::{CardsBook, DealtHands};
use pitwatch_games::GameRound;
use pitwatch_model::{Card, EventKind, TableEvent, Target};
use pitwatch_protocols::ProtocolConfig;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::fault::{Expected, FaultSpec, Injected, Level, SimFault};

/// How long after the host's repeat window a barcode shoe sends the same code again (see where it
/// is used).
pub const REPEAT_MARGIN_MS: u64 = 1000;

/// How long after a card a barcode scanner's rescan of it comes (a [`SimFault::DuplicateFrame`]):
/// a scanner reads a card again a decode cycle later, well within the host's repeat window, and
/// a host watching the port reads the two apart. The card itself also comes this long after the
/// frame before it, so that it too is read alone at any pace. (The same line twice at the line's
/// own rate is not what a scanner sends, and codes read together in one chunk may have waited
/// there for any time, so the host takes them for two cards.)
pub const RESCAN_AFTER_MS: u64 = 100;

/// One thing the simulated device does: wait, then send bytes or drop the link.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// Milliseconds to wait first, at a real dealer's pace (the runner scales it).
    pub delay_ms: u64,
    /// The least wait whatever the pace (a barcode scanner's repeated code must come after the
    /// host's repeat window, or it would be taken for a rescan of the same card).
    pub min_delay_ms: u64,
    /// What to do.
    pub action: Action,
    /// Faults this step carries, logged when it is carried out.
    pub injected: Vec<Injected>,
}

/// What a step does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Send these bytes.
    Send(Vec<u8>),
    /// The link goes down for `pause_ms` (at a real pace): on TCP the client is dropped and the
    /// next one accepted; on a pseudo-terminal the device only falls silent.
    Disconnect {
        /// How long the link stays down at a real pace.
        pause_ms: u64,
    },
}

/// One shoe's script.
#[derive(Debug, Clone)]
pub struct ShoeScript {
    /// The shoe's number in the run (1-based).
    pub shoe: u32,
    /// What to do, in order.
    pub steps: Vec<Step>,
    /// The rounds as dealt (ground truth) as the engine records them, with the shoe numbered in
    /// the run and `first_seq` / `last_seq` as a host decoder started at 1 numbers the events.
    pub rounds: Vec<GameRound>,
    /// Every fault injected in this shoe, in stream order.
    pub injected: Vec<Injected>,
}

/// The device protocol's framing, with its sequence numbers.
enum Wire {
    AngelEye(
        pitwatch_angel_eye::ReportEncoder,
        pitwatch_angel_eye::BccVariant,
    ),
    /// With the host's repeat window in milliseconds.
    Barcode(u64),
    Pitwatch(pitwatch_proto::MessageEncoder),
}

impl Wire {
    fn new(protocol: &ProtocolConfig) -> Wire {
        match protocol {
            ProtocolConfig::AngelEye(config) => {
                Wire::AngelEye(Default::default(), config.receive_bcc)
            }
            ProtocolConfig::Barcode(config) => Wire::Barcode(config.repeat_window_ms),
            ProtocolConfig::Pitwatch(_) => Wire::Pitwatch(Default::default()),
        }
    }

    fn encode(&mut self, event: &TableEvent) -> Option<Vec<u8>> {
        use pitwatch_codec::Encoder;
        match self {
            Wire::AngelEye(reports, bcc) => pitwatch_angel_eye::AngelEyeEncoder::report_for(event)
                .map(|report| with_bcc(reports.encode(&report), *bcc)),
            Wire::Barcode(_) => pitwatch_barcode::BarcodeEncoder.encode(event),
            Wire::Pitwatch(messages) => pitwatch_proto::ProtoEncoder::message_for(event)
                .map(|message| messages.encode(&message)),
        }
    }

    fn can_encode(&self, event: &TableEvent) -> bool {
        match self {
            Wire::AngelEye(..) => pitwatch_angel_eye::AngelEyeEncoder::report_for(event).is_some(),
            Wire::Barcode(_) => matches!(
                event.kind,
                EventKind::CardDrawn { card: Some(_), .. } | EventKind::Shuffled { .. }
            ),
            Wire::Pitwatch(_) => pitwatch_proto::ProtoEncoder::message_for(event).is_some(),
        }
    }

    /// What a host makes of [`Wire::start`]'s frame, without sending one.
    fn start_notice(&self) -> Option<&'static str> {
        match self {
            Wire::AngelEye(..) => Some("communication_started"),
            Wire::Barcode(_) => None,
            Wire::Pitwatch(_) => Some("hello"),
        }
    }

    /// The frame a device sends when it (re)starts communicating, with what a host makes of it.
    fn start(&mut self) -> Option<(Vec<u8>, &'static str)> {
        match self {
            Wire::AngelEye(reports, bcc) => Some((
                with_bcc(
                    reports.encode(&pitwatch_angel_eye::Report::CommunicationStarted),
                    *bcc,
                ),
                "communication_started",
            )),
            Wire::Barcode(_) => None,
            Wire::Pitwatch(messages) => Some((
                messages.encode(&pitwatch_proto::Message::Hello(DeviceIdentity {
                    role: "shoe".into(),
                    make: "Pitwatch".into(),
                    model: "simulator".into(),
                    serial: "SIM-1".into(),
                    firmware: env!("CARGO_PKG_VERSION").into(),
                    protocol_version: pitwatch_proto::VERSION,
                })),
                "hello",
            )),
        }
    }

    fn corrupt(&self, frame: &mut [u8]) -> bool {
        match self {
            Wire::AngelEye(..) => {
                pitwatch_angel_eye::encode::corrupt_bcc(frame);
                true
            }
            Wire::Barcode(_) => false,
            Wire::Pitwatch(_) => {
                pitwatch_proto::corrupt_checksum(frame);
                true
            }
        }
    }

    /// Noise a host must reject without losing the next frame, and the rejection kind it gives.
    /// Lower-case letters contain no Angel Eye start byte and no `PW`; the line-based protocols
    /// get a line end so the noise costs only its own line.
    fn garbage(&self, rng: &mut ChaCha8Rng) -> (Vec<u8>, &'static str) {
        let len = rng.gen_range(3..=12);
        let mut bytes: Vec<u8> = (0..len).map(|_| rng.gen_range(b'a'..=b'z')).collect();
        match self {
            Wire::AngelEye(..) => (bytes, "garbage"),
            Wire::Barcode(_) => {
                bytes.push(b'\r');
                (bytes, "malformed")
            }
            Wire::Pitwatch(_) => {
                bytes.extend_from_slice(b"\r\n");
                (bytes, "garbage")
            }
        }
    }
}

/// `frame` (an Angel Eye report with the documented BCC) with the BCC the configured shoe uses.
fn with_bcc(mut frame: Vec<u8>, bcc: pitwatch_angel_eye::BccVariant) -> Vec<u8> {
    if bcc == pitwatch_angel_eye::BccVariant::ExcludeStart || frame.len() < 3 {
        return frame;
    }
    frame.truncate(frame.len() - 2);
    let value = bcc.compute(&frame);
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    frame.push(HEX[usize::from(value >> 4)]);
    frame.push(HEX[usize::from(value & 0x0F)]);
    frame
}

/// Mixes a seed and a number into a new seed (SplitMix64), so each shoe and each purpose gets
/// its own independent, reproducible random stream.
pub fn derive_seed(seed: u64, n: u64) -> u64 {
    let mut z = seed ^ n.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Plans shoe after shoe for one simulated device, keeping what carries over between shoes (the
/// device's sequence numbers, the host's event numbering, the byte offset, the round count).
pub struct Planner {
    wire: Wire,
    protocol: &'static str,
    book: CardsBook,
    dealer: DealerConfig,
    seed: u64,
    faults: Vec<FaultSpec>,
    pty: bool,
    shoes: u32,
    rounds_before: u32,
    next_host_seq: u64,
    offset: u64,
    last_barcode: Option<Vec<u8>>,
    /// How each shoe is made from the one before.
    shuffle: ShuffleModel,
    /// The previous shoe's stack and how many of its cards were dealt.
    last_stack: Option<(Vec<Card>, usize)>,
    /// The dealers taking turns at the table, if any sign in.
    rota: Option<Rota>,
}

/// Dealers taking turns at a simulated table (issue 30): each signs in over the wire (the
/// Pitwatch protocol's `DEALER` line) for `rounds_each` rounds, then the next takes over, each
/// at their own pace; every `slow_every`-th round of the run is slow (its first card waits
/// `slow_round_ms` more), as when a dealer is held up. So a pit's pace figures and alerts can be
/// checked against paces known in advance.
#[derive(Debug, Clone, PartialEq)]
pub struct Rota {
    /// The dealers, in turn.
    pub dealers: Vec<RotaDealer>,
    /// Rounds each deals before handing over (at least 1).
    pub rounds_each: u32,
    /// Every this many rounds of the run, a slow round (0: none).
    pub slow_every: u32,
    /// How much longer a slow round's first card waits, at a real dealer's pace.
    pub slow_round_ms: u64,
}

/// One dealer of a [`Rota`].
#[derive(Debug, Clone, PartialEq)]
pub struct RotaDealer {
    /// Their name, as they sign in.
    pub name: String,
    /// How slowly they deal: every wait in their rounds scaled by this (1.0 is the simulator's
    /// own dealer; 2.0 half the rounds an hour).
    pub slowness: f64,
}

impl Rota {
    /// The dealer of round `round` of the run (1-based), and whether they sign in at it.
    fn at(&self, round: u32) -> Option<(&RotaDealer, bool)> {
        let each = self.rounds_each.max(1);
        let turn = (round.saturating_sub(1) / each) as usize;
        let dealer = self.dealers.get(turn % self.dealers.len().max(1))?;
        Some((dealer, (round.saturating_sub(1)) % each == 0))
    }

    /// Whether round `round` of the run is a slow one.
    fn slow(&self, round: u32) -> bool {
        self.slow_every > 0 && round % self.slow_every == 0
    }
}

/// The dealer's settings for a device speaking `protocol`.
pub fn dealer_config(protocol: &ProtocolConfig) -> DealerConfig {
    let mut config = match protocol {
        ProtocolConfig::Barcode(_) => DealerConfig::barcode(),
        ProtocolConfig::AngelEye(_) | ProtocolConfig::Pitwatch(_) => DealerConfig::angel_eye(),
    };
    config.shoes = 1;
    config.first_seq = 1;
    config
}

impl Planner {
    /// A planner for a device speaking `protocol` under `book`; `pty` says whether a disconnect
    /// is a power cycle (a pseudo-terminal) or a real link drop (TCP).
    pub fn new(
        protocol: &ProtocolConfig,
        book: impl Into<CardsBook>,
        seed: u64,
        faults: Vec<FaultSpec>,
        pty: bool,
    ) -> Planner {
        Planner {
            wire: Wire::new(protocol),
            protocol: protocol.name(),
            book: book.into(),
            dealer: dealer_config(protocol),
            seed,
            faults,
            pty,
            shoes: 0,
            rounds_before: 0,
            next_host_seq: 1,
            offset: 0,
            last_barcode: None,
            shuffle: ShuffleModel::Random,
            last_stack: None,
            rota: None,
        }
    }

    /// The same planner with dealers taking turns by `rota` (only a protocol that can say a
    /// dealer signed in carries them: the Pitwatch protocol).
    pub fn with_rota(mut self, rota: Option<Rota>) -> Planner {
        self.rota = rota.filter(|r| !r.dealers.is_empty());
        self
    }

    /// The same planner making each shoe from the one before by `model` (the default is a uniform
    /// shuffle, which ignores the previous order).
    pub fn with_shuffle(mut self, model: ShuffleModel) -> Planner {
        self.shuffle = model;
        self
    }

    /// The next shoe's script.
    pub fn next_shoe(&mut self) -> ShoeScript {
        self.shoes += 1;
        let shoe = self.shoes;
        let shoe_seed = derive_seed(self.seed, u64::from(shoe));
        let mut choice = ChaCha8Rng::seed_from_u64(derive_seed(shoe_seed, 1));
        let mut pace = ChaCha8Rng::seed_from_u64(derive_seed(shoe_seed, 2));
        let mut noise = ChaCha8Rng::seed_from_u64(derive_seed(shoe_seed, 3));

        // Which faults this shoe gets: dealer plans (the dealer deals one shoe, numbered 1) and
        // wire faults by round.
        let mut plans = Vec::new();
        let mut wire: Vec<(u32, SimFault)> = Vec::new();
        let mut add =
            |fault: SimFault, round: u32, plans: &mut Vec<FaultPlan>| match fault.dealer_kind() {
                Some(kind) => plans.push(FaultPlan {
                    kind,
                    shoe: 1,
                    round,
                }),
                None => wire.push((round, fault)),
            };
        for spec in &self.faults {
            match spec {
                FaultSpec::At {
                    fault,
                    shoe: s,
                    round,
                } if *s == shoe => add(*fault, *round, &mut plans),
                FaultSpec::At { .. } => {}
                FaultSpec::Every { rounds, faults } => {
                    let usable: Vec<SimFault> = faults
                        .iter()
                        .copied()
                        .filter(|f| f.supported_by(self.protocol))
                        .collect();
                    if usable.is_empty() || *rounds == 0 {
                        continue;
                    }
                    // More rounds than any shoe holds; plans past the shoe's end stay unused.
                    for round in 1..=120u32 {
                        if (self.rounds_before + round) % rounds == 0 {
                            let fault = usable[choice.gen_range(0..usable.len())];
                            add(fault, round, &mut plans);
                        }
                    }
                }
            }
        }
        wire.sort_by_key(|(round, fault)| (*round, wire_order(*fault)));

        let shuffling = Shuffling {
            model: self.shuffle,
            previous: self
                .last_stack
                .as_ref()
                .map(|(stack, dealt)| (stack.as_slice(), *dealt)),
        };
        let session = deal_with(
            self.book.shoe_book(),
            &self.dealer,
            &plans,
            shoe_seed,
            shuffling,
        );
        self.last_stack = session
            .stacks
            .first()
            .zip(session.cards_per_shoe.first())
            .map(|(stack, dealt)| (stack.clone(), *dealt as usize));
        let mut carried: HashMap<u64, Vec<InjectedFault>> = HashMap::new();
        for fault in &session.faults {
            carried.entry(fault.seq).or_default().push(*fault);
        }
        let round_of_first: HashMap<u64, u32> = session
            .rounds
            .iter()
            .map(|r| (r.first_seq, r.round))
            .collect();

        let mut steps = Vec::new();
        let mut injected = Vec::new();
        let mut host_seq_of: HashMap<u64, u64> = HashMap::new();
        let mut carry_ms = 0u64;
        let mut round_started: Option<u32> = None;
        let mut wire_next = 0usize;
        if shoe == 1 {
            if let Some((frame, _)) = self.wire.start() {
                self.push_send(&mut steps, frame, 0, Vec::new());
            }
        }
        // The dealer dealing now: how slowly.
        let mut slowness = self
            .rota
            .as_ref()
            .and_then(|r| r.at(self.rounds_before + 1))
            .map_or(1.0, |(d, _)| d.slowness);
        for event in &session.events {
            if let Some(round) = round_of_first.get(&event.seq) {
                round_started = Some(*round);
            }
            let delay = self.real_delay(
                event,
                shoe,
                round_of_first.contains_key(&event.seq),
                &mut pace,
            );
            let mut extra = 0;
            if let Some((rota, round)) = self.rota.clone().zip(round_of_first.get(&event.seq)) {
                let in_run = self.rounds_before + round;
                if let Some((dealer, signs_in)) = rota.at(in_run) {
                    slowness = dealer.slowness;
                    let signed_in = TableEvent::new(
                        0,
                        EventKind::DealerSignedIn {
                            dealer: dealer.name.clone(),
                        },
                    );
                    if signs_in && self.wire.can_encode(&signed_in) {
                        if let Some(frame) = self.wire.encode(&signed_in) {
                            self.next_host_seq += 1;
                            let delay = std::mem::take(&mut carry_ms);
                            self.push_send(&mut steps, frame, delay, Vec::new());
                        }
                    }
                }
                if rota.slow(in_run) {
                    extra = rota.slow_round_ms;
                }
            }
            carry_ms += ((delay + extra) as f64 * slowness).round() as u64;
            if !self.wire.can_encode(event) {
                // The protocol cannot say this; a fault it carried cannot be seen (faults the
                // protocol cannot carry are refused before a run starts).
                for fault in carried.remove(&event.seq).unwrap_or_default() {
                    injected.push(Injected {
                        kind: SimFault::from_dealer(fault.kind),
                        level: Level::Rule,
                        shoe,
                        round: fault.round,
                        seq: None,
                        offset: self.offset,
                        expected: Expected::Nothing,
                    });
                }
                continue;
            }
            // Wire faults due at the start of this round go before its first frame.
            let mut duplicate = None;
            let mut corrupt = false;
            while let Some((round, fault)) = wire.get(wire_next).copied() {
                if round_started.is_none_or(|r| r < round) {
                    break;
                }
                wire_next += 1;
                let host_seq = self.next_host_seq;
                let record = |expected: Expected, offset: u64| Injected {
                    kind: fault,
                    level: Level::Wire,
                    shoe,
                    round: Some(round),
                    seq: Some(host_seq),
                    offset,
                    expected,
                };
                match fault {
                    SimFault::Disconnect => {
                        let r = if self.pty {
                            match self.wire.start_notice() {
                                Some(notice) => {
                                    record(Expected::Notice(notice.into()), self.offset)
                                }
                                None => record(Expected::Nothing, self.offset),
                            }
                        } else {
                            record(Expected::Reconnect, self.offset)
                        };
                        steps.push(Step {
                            delay_ms: std::mem::take(&mut carry_ms),
                            min_delay_ms: 0,
                            action: Action::Disconnect { pause_ms: 3_000 },
                            injected: vec![r.clone()],
                        });
                        injected.push(r);
                        if self.pty {
                            // A power-cycled device announces itself again.
                            if let Some((frame, _)) = self.wire.start() {
                                self.push_send(&mut steps, frame, 1_000, Vec::new());
                            }
                        }
                    }
                    SimFault::Garbage => {
                        let (bytes, kind) = self.wire.garbage(&mut noise);
                        let r = record(Expected::Rejection(kind.into()), self.offset);
                        injected.push(r.clone());
                        let delay = std::mem::take(&mut carry_ms);
                        self.push_send(&mut steps, bytes, delay, vec![r]);
                    }
                    SimFault::BadChecksum => corrupt = true,
                    SimFault::DuplicateFrame => duplicate = Some(round),
                    _ => {}
                }
            }
            let Some(frame) = self.wire.encode(event) else {
                continue;
            };
            if corrupt {
                let mut bad = frame.clone();
                if self.wire.corrupt(&mut bad) {
                    let r = Injected {
                        kind: SimFault::BadChecksum,
                        level: Level::Wire,
                        shoe,
                        round: round_started,
                        seq: Some(self.next_host_seq),
                        offset: self.offset,
                        expected: Expected::Rejection("bad_checksum".into()),
                    };
                    injected.push(r.clone());
                    let delay = std::mem::take(&mut carry_ms);
                    self.push_send(&mut steps, bad, delay, vec![r]);
                    // The device resends the frame.
                    carry_ms = 200;
                }
            }

            let host_seq = self.next_host_seq;
            self.next_host_seq += 1;
            host_seq_of.insert(event.seq, host_seq);
            let mut records = Vec::new();
            for fault in carried.remove(&event.seq).unwrap_or_default() {
                let r = Injected {
                    kind: SimFault::from_dealer(fault.kind),
                    level: Level::Rule,
                    shoe,
                    round: fault.round,
                    seq: Some(host_seq),
                    offset: self.offset,
                    expected: fault.expected_code.map_or(Expected::Nothing, |code| {
                        Expected::Irregularity(code.as_str().into())
                    }),
                };
                injected.push(r.clone());
                records.push(r);
            }
            let mut min_delay_ms = 0;
            if let Wire::Barcode(window) = self.wire {
                if self.last_barcode.as_deref() == Some(&frame[..]) {
                    // Past the host's repeat window, or it would be taken for a rescan. The
                    // host measures the window between the times it *read* the two codes, and a
                    // host starved of CPU reads the first one late: a margin of a second keeps
                    // a busy bench at ten times a dealer's pace from merging two real cards (a
                    // 30-minute soak under load lost 35 such cards with a margin of 100 ms; a
                    // dealer at a real pace is a second or more apart anyway).
                    min_delay_ms = window.saturating_add(REPEAT_MARGIN_MS);
                }
                self.last_barcode = Some(frame.clone());
            }
            let delay = std::mem::take(&mut carry_ms);
            self.push_send(&mut steps, frame.clone(), delay, records);
            steps
                .last_mut()
                .expect("a step was just pushed")
                .min_delay_ms = min_delay_ms;
            if let Some(round) = duplicate {
                let r = Injected {
                    kind: SimFault::DuplicateFrame,
                    level: Level::Wire,
                    shoe,
                    round: Some(round),
                    seq: Some(host_seq),
                    offset: self.offset,
                    expected: Expected::Rejection("duplicate".into()),
                };
                injected.push(r.clone());
                if let Wire::Barcode(_) = self.wire {
                    // The card comes on its own, and its rescan a moment later: a host watching
                    // the port reads each alone, even at a pace faster than a dealer's.
                    let card = steps.last_mut().expect("a step was just pushed");
                    card.min_delay_ms = card.min_delay_ms.max(RESCAN_AFTER_MS);
                }
                self.push_send(&mut steps, frame, 0, vec![r]);
                if let Wire::Barcode(_) = self.wire {
                    steps
                        .last_mut()
                        .expect("a step was just pushed")
                        .min_delay_ms = RESCAN_AFTER_MS;
                }
            }
        }
        let rounds = session
            .rounds
            .iter()
            .map(|r| {
                self.book.round(DealtHands {
                    shoe,
                    round: r.round,
                    player: &r.player,
                    banker: &r.banker,
                    player_total: r.player_total,
                    banker_total: r.banker_total,
                    outcome: r.outcome,
                    player_pair: r.player_pair,
                    banker_pair: r.banker_pair,
                    first_seq: host_seq_of.get(&r.first_seq).copied().unwrap_or(0),
                    last_seq: host_seq_of.get(&r.last_seq).copied().unwrap_or(0),
                })
            })
            .collect::<Vec<_>>();
        self.rounds_before += rounds.len() as u32;
        ShoeScript {
            shoe,
            steps,
            rounds,
            injected,
        }
    }

    fn push_send(
        &mut self,
        steps: &mut Vec<Step>,
        bytes: Vec<u8>,
        delay_ms: u64,
        injected: Vec<Injected>,
    ) {
        self.offset += bytes.len() as u64;
        steps.push(Step {
            delay_ms,
            min_delay_ms: 0,
            action: Action::Send(bytes),
            injected,
        });
    }

    /// A dealer's pause before `event`, in milliseconds: about 1–1.5 s a card, a few seconds
    /// between rounds, several for a shuffle.
    fn real_delay(
        &self,
        event: &TableEvent,
        shoe: u32,
        first_of_round: bool,
        rng: &mut ChaCha8Rng,
    ) -> u64 {
        match &event.kind {
            EventKind::Shuffled { .. } if shoe == 1 && event.seq == 1 => 0,
            EventKind::Shuffled { .. } => rng.gen_range(5_000..=8_000),
            EventKind::Cut { .. } => rng.gen_range(3_000..=5_000),
            EventKind::CuttingCardPlaced { .. } => rng.gen_range(1_500..=2_500),
            EventKind::BetsClosed => rng.gen_range(4_000..=7_000),
            EventKind::CardDrawn {
                target: Some(Target::First | Target::Burn),
                ..
            } => rng.gen_range(800..=1_200),
            EventKind::CardDrawn { .. } if first_of_round && !self.dealer.bets_closed => {
                rng.gen_range(4_000..=7_000)
            }
            EventKind::CardDrawn { .. } => rng.gen_range(1_000..=1_500),
            EventKind::ResultDeclared { .. } => rng.gen_range(1_000..=1_500),
            EventKind::BurnCounted { .. } | EventKind::CuttingCardDrawn => 300,
            _ => rng.gen_range(500..=1_000),
        }
    }
}

/// Several wire faults in one round go in this order: the link first, then noise, then the
/// damaged copy, then the frame and its duplicate.
fn wire_order(fault: SimFault) -> u8 {
    match fault {
        SimFault::Disconnect => 0,
        SimFault::Garbage => 1,
        SimFault::BadChecksum => 2,
        _ => 3,
    }
}
