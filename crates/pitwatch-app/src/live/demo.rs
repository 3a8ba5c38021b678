//! The demo pit's simulated tables: for each simulated table of the pit definition, the device
//! simulators that deal its game, as the registry says it is dealt (`pitwatch_games::sim`): a
//! shoe of cards alone with its shufflers (Baccarat), a shoe dealt to boxes over the Pitwatch
//! protocol (Blackjack, Pontoon), a table's shuffler and dealer console (poker), each on a
//! pseudo-terminal the monitor opens as a serial port, so the demo runs through the real
//! transport, codec, engine and store. Only a build with the `demo` feature has it; it names no
//! game, and chooses only how a table is dealt.

use pitwatch_api::dto::{ApiError, ErrorCode};
use pitwatch_games::sim::{BoxDealer, Dealing, DealtAs, HandDealer};
use pitwatch_games::GameBook;
use pitwatch_recording::pit::{LinkConfig, TableConfig};
use pitwatch_sim::{
    Endpoint, FaultSpec, GameFault, Rota, RotaDealer, SimConfig, SimDevice, SimFault,
};
use pitwatch_transport::{SerialConfig, TransportConfig};

use crate::live::internal;
use crate::setup::DeskOptions;

/// Starts the simulated devices of a simulated `table` (kept in `sims`, which the desk stops),
/// dealing from `seed` at the options' pace and faults; the first simulated table of the pit (an
/// empty `sims`) gets an early fault. Returns the link to the table's first device and to its
/// others.
pub(super) fn start_table(
    table: &TableConfig,
    seed: u64,
    options: &DeskOptions,
    sims: &mut Vec<SimDevice>,
) -> Result<(LinkConfig, Vec<LinkConfig>), ApiError> {
    let book = table.rule_book().map_err(|e| {
        ApiError::new(
            ErrorCode::InvalidInput,
            format!("table {}: {e}", table.name),
        )
    })?;
    let cards = match book.dealing() {
        Dealing::Cards(cards) => cards,
        Dealing::Hands(dealer) => {
            let (device, more) = simulated_hand_table(table, &book, &dealer, options, seed)?;
            let path = device.path().unwrap_or_default().to_owned();
            let more_links = device
                .more_paths()
                .iter()
                .map(|p| pty_link(p.clone()))
                .take(more)
                .collect();
            sims.push(device);
            return Ok((pty_link(path), more_links));
        }
        Dealing::Boxes(dealer) => {
            // A table dealt to boxes: its game's dealer (a seeded basic-strategy player per
            // box) over the Pitwatch protocol, through the same driver stack, with the game's
            // own faults.
            let mut config = SimConfig::new(table.device(), book.clone());
            config.seed = seed;
            config.pace = options.pace.into();
            config.shoes = None;
            config.endpoint = Endpoint::Pty;
            config.game_faults = demo_game_faults(&dealer, options.fault_every, sims.is_empty());
            let device = SimDevice::start(config).map_err(|e| {
                internal(format!(
                    "table {}: the simulated device cannot start: {e}",
                    table.name
                ))
            })?;
            let path = device.path().unwrap_or_default().to_owned();
            sims.push(device);
            return Ok((pty_link(path), Vec::new()));
        }
    };
    let protocol = table.device().name();
    // Round-level faults only: the simulator puts a shoe-level fault (a burn
    // miscount) at the start of a shoe, so in a list picked from every few rounds it
    // would open nearly every shoe.
    let faults: Vec<SimFault> = [
        SimFault::OutOfOrderCard,
        SimFault::UnauthorisedThirdCard,
        SimFault::MissingThirdCard,
        SimFault::WrongDeclaredResult,
        SimFault::CardExposed,
        SimFault::ForeignCard,
    ]
    .into_iter()
    .filter(|f| f.supported_by(protocol))
    .collect();
    let mut config = SimConfig::new(table.device(), book.clone());
    config.seed = seed;
    config.pace = options.pace.into();
    config.shoes = None;
    config.endpoint = Endpoint::Pty;
    config.rota = demo_rota(table);
    if options.fault_every > 0 && !faults.is_empty() {
        if sims.is_empty() {
            // A newcomer sees the workflow within a minute: an early irregularity
            // at the first simulated table.
            config.faults.push(FaultSpec::At {
                fault: faults[0],
                shoe: 1,
                round: 3,
            });
        }
        config.faults.push(FaultSpec::Every {
            rounds: options.fault_every,
            faults,
        });
    }
    let device = SimDevice::start(config).map_err(|e| {
        internal(format!(
            "table {}: the simulated device cannot start: {e}",
            table.name
        ))
    })?;
    let path = device.path().unwrap_or_default().to_owned();
    sims.push(device);
    // The table's other devices: a simulated shuffler shuffles for the shoe.
    let mut more_links = Vec::new();
    for extra in &table.devices[1..] {
        let composition = cards.shoe_book().composition;
        let shuffler = simulated_shuffler(
            table,
            &book,
            extra,
            ShufflerPlan {
                decks: composition.decks,
                cards_per_deck: composition.kind.cards_per_deck(),
                // A shoe takes about a quarter of an hour at a dealer's pace (some
                // 75 rounds of 12 s): a shuffle every 6 to 7 minutes leaves at least
                // two per shoe, the latest loaded.
                interval_ms: 6 * 60 * 1000,
            },
            options,
            seed,
        )?;
        more_links.push(pty_link(shuffler.path().unwrap_or_default().to_owned()));
        sims.push(shuffler);
    }
    Ok((pty_link(path), more_links))
}

/// A simulated table of hands at a dealer console (poker's): its shuffler (its first device)
/// shuffles and checks a deck for every hand, a short deck at its third shuffle when the demo
/// injects faults (misdeal (h)); with a dealer console as its second device, one simulated
/// dealer drives both (so each hand's play follows its deck) and the console reports six
/// players' blinds and actions, with a declared misdeal every `fault_every` hands when faults are
/// on. Returns the device and how many more links it has.
fn simulated_hand_table(
    table: &pitwatch_recording::pit::TableConfig,
    book: &GameBook,
    dealer: &HandDealer,
    options: &DeskOptions,
    seed: u64,
) -> Result<(SimDevice, usize), ApiError> {
    use pitwatch_recording::pit::DeviceRole;
    let roles: Vec<DeviceRole> = table.devices.iter().map(|d| d.role).collect();
    let composition = dealer.composition();
    let shuffler = pitwatch_sim::ShufflerSim {
        decks: composition.decks,
        cards_per_deck: composition.kind.cards_per_deck(),
        faults: if options.fault_every > 0 {
            vec![pitwatch_sim::ShufflerFault {
                fault: pitwatch_sim::ShufflerFaultKind::DeckShort,
                shuffle: 3,
            }]
        } else {
            Vec::new()
        },
        interval_ms: 5_000,
    };
    let config = match roles.as_slice() {
        [DeviceRole::Shuffler] => {
            // A shuffler alone: about two minutes a hand at a dealer's pace.
            let mut shuffler = shuffler;
            shuffler.interval_ms = 2 * 60 * 1000;
            let mut config = SimConfig::new(table.devices[0].protocol, book.clone());
            config.shuffler = Some(shuffler);
            config
        }
        [DeviceRole::Shuffler, DeviceRole::Console] => {
            let mut config = SimConfig::new(table.devices[0].protocol, book.clone());
            let every = options.fault_every;
            config.console = Some(pitwatch_sim::ConsoleSim {
                shuffler,
                seats: 6,
                misdeal_hands: if every > 0 {
                    (1..=1000).map(|k| k * every).collect()
                } else {
                    Vec::new()
                },
            });
            config
        }
        _ => {
            let game = DealtAs::Hands.games();
            return Err(ApiError::new(
                ErrorCode::InvalidInput,
                format!(
                    "table {}: a simulated {game} table has a shuffler, or a shuffler and a dealer console",
                    table.name
                ),
            ));
        }
    };
    let mut config = config;
    config.seed = seed ^ 0x504f_4b45;
    config.pace = options.pace.into();
    config.shoes = None;
    config.endpoint = Endpoint::Pty;
    let device = SimDevice::start(config).map_err(|e| {
        internal(format!(
            "table {}: the simulated {} table cannot start: {e}",
            table.name,
            DealtAs::Hands.games()
        ))
    })?;
    Ok((device, roles.len() - 1))
}

/// The link to a simulated device's pseudo-terminal.
fn pty_link(path: String) -> LinkConfig {
    LinkConfig::new(TransportConfig::Serial(SerialConfig::new(path, 9600)))
}

/// What a simulated shuffler shuffles, and how often.
struct ShufflerPlan {
    decks: u8,
    cards_per_deck: u32,
    /// The pause between shuffles at a real pace.
    interval_ms: u64,
}

/// A simulated counting shuffler: beside a shoe, shuffling about twice a shoe (the shoe is loaded
/// from the latest), or a poker table's only device, shuffling for every hand; with a short deck
/// at its third shuffle when the demo injects faults. Other simulated roles are not offered.
fn simulated_shuffler(
    table: &pitwatch_recording::pit::TableConfig,
    book: &GameBook,
    device: &pitwatch_recording::pit::TableDevice,
    plan: ShufflerPlan,
    options: &DeskOptions,
    seed: u64,
) -> Result<SimDevice, ApiError> {
    if device.role != pitwatch_recording::pit::DeviceRole::Shuffler {
        return Err(ApiError::new(
            ErrorCode::InvalidInput,
            format!(
                "table {}: a simulated {} is not offered (a simulated table's other devices are shufflers)",
                table.name,
                device.role.as_str()
            ),
        ));
    }
    let mut config = SimConfig::new(device.protocol, book.clone());
    config.seed = seed ^ 0x5348_5546;
    config.pace = options.pace.into();
    config.shoes = None;
    config.endpoint = Endpoint::Pty;
    config.shuffler = Some(pitwatch_sim::ShufflerSim {
        decks: plan.decks,
        cards_per_deck: plan.cards_per_deck,
        faults: if options.fault_every > 0 {
            vec![pitwatch_sim::ShufflerFault {
                fault: pitwatch_sim::ShufflerFaultKind::DeckShort,
                shuffle: 3,
            }]
        } else {
            Vec::new()
        },
        interval_ms: plan.interval_ms,
    });
    SimDevice::start(config).map_err(|e| {
        internal(format!(
            "table {}: the simulated shuffler cannot start: {e}",
            table.name
        ))
    })
}

/// The faults a demo table dealt to boxes deals: one every `every` rounds (the game's faults in
/// turn, those the book allows), and at round 3 of the first shoe when the table is the pit's
/// first simulated one; none when `every` is 0. The simulator takes faults at given rounds of
/// given shoes, so the demo's endless shoes get them for their first thousand shoes.
fn demo_game_faults(dealer: &BoxDealer, every: u32, first: bool) -> Vec<GameFault> {
    let kinds = dealer.faults();
    if every == 0 || kinds.is_empty() {
        return Vec::new();
    }
    let mut faults = Vec::new();
    if first {
        faults.push(GameFault {
            fault: kinds[0],
            shoe: 1,
            round: 3,
        });
    }
    // Every `every`-th round of the table, counted across shoes of some twelve rounds each (a
    // six-deck shoe deals more before its cutting card; a fault is put into its round or the
    // first after it where it can show).
    const ROUNDS: u32 = 12;
    let mut dealt = every;
    let mut next = 0usize;
    while dealt <= 1000 * ROUNDS {
        faults.push(GameFault {
            fault: kinds[next % kinds.len()],
            shoe: (dealt - 1) / ROUNDS + 1,
            round: (dealt - 1) % ROUNDS + 1,
        });
        next += 1;
        dealt += every;
    }
    faults
}

/// The dealers of a simulated shoe that can say who signed in (the Pitwatch protocol): three
/// dealers taking turns every twelve rounds, one of them much slower, and a round held up now and
/// then, so the demo shows the rota, each dealer's pace and, at a real pace, "pace below target"
/// (the demo pit holds such a table to its own target).
fn demo_rota(table: &TableConfig) -> Option<Rota> {
    if table.device().name() != "pitwatch" {
        return None;
    }
    let dealer = |name: &str, slowness: f64| RotaDealer {
        name: name.to_owned(),
        slowness,
    };
    Some(Rota {
        dealers: vec![
            dealer("Aroha Ngata", 1.0),
            dealer("Wei Ling", 1.8),
            dealer("Tama Rewi", 1.2),
        ],
        rounds_each: 12,
        slow_every: 9,
        slow_round_ms: 45_000,
    })
}
