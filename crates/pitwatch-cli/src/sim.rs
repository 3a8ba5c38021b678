//! `pitwatch sim`: a simulated table device for demos, tests and trying a monitor without a
//! casino. It deals honest shoes under a rule book in a device protocol on a new pseudo-terminal
//! (printing `pty: /dev/pts/N` as its first line) or a TCP listen address (`tcp: ADDRESS`),
//! injects the requested faults, and writes what it injected, and where, to a JSON Lines file.
//! With a book of a game dealt to boxes (Blackjack, Pontoon) it deals that game in the pitwatch
//! protocol; which dealer deals a book's game is the registry's (`pitwatch_games::sim`).
//! Ctrl-C stops it; with `--shoes` it also stops once the last shoe has been sent and a host has
//! had `--linger-ms` to read it.

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use clap::{Args, ValueEnum};
use pitwatch_games::sim::{Dealing, DealtAs};
use pitwatch_protocols::ProtocolConfig;
use pitwatch_sim::{Endpoint, FaultSpec, Pace, SimConfig, SimDevice, SimFault};

/// The protocol the simulated device speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SimProtocol {
    /// An Angel Eye II-EX shoe.
    AngelEye,
    /// A barcode card-reader shoe.
    Barcode,
    /// The Pitwatch open protocol.
    Pitwatch,
}

/// The simulated device's role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SimRole {
    /// A card-reading shoe.
    Shoe,
    /// A counting shuffler.
    Shuffler,
}

/// Arguments of `pitwatch sim`.
#[derive(Debug, Args)]
pub struct SimArgs {
    /// The protocol to speak.
    #[arg(long, value_enum)]
    protocol: SimProtocol,
    /// The rule book to deal by: a built-in id or a rule book TOML file. A Blackjack or Pontoon
    /// book (nz-blackjack, nz-pontoon) deals that game, with a basic-strategy player per box, in
    /// the pitwatch protocol.
    #[arg(long, default_value = "nz-baccarat", value_name = "BOOK")]
    rules: String,
    /// For a Blackjack or Pontoon table, a fault to inject: `KIND`, `KIND@ROUND` (shoe 1) or
    /// `KIND@SHOE:ROUND`; repeatable. Kinds: dealer-draws-on-stand, dealer-stands-short,
    /// card-to-empty-box, out-of-order, round-after-cutting-card, foreign-card (Pontoon).
    #[arg(long = "game-fault", value_name = "KIND[@ROUND]")]
    game_faults: Vec<pitwatch_sim::GameFault>,
    /// The device: a card-reading shoe (default) or a counting shuffler (pitwatch protocol only:
    /// shuffle after shuffle with its deck check; `--shoes` counts shuffles).
    #[arg(long, value_enum, default_value = "shoe")]
    role: SimRole,
    /// For a shuffler: decks per shuffle (cards per deck from the rule book: 48 for Pontoon).
    #[arg(long, default_value_t = 1)]
    decks: u8,
    /// For a shuffler, a fault to inject: `KIND` (at the second shuffle) or `KIND@SHUFFLE`;
    /// repeatable. Kinds: deck-short, deck-extra, foreign-card, shuffler-error, order-leak, shuffle-abandoned.
    #[arg(long = "shuffler-fault", value_name = "KIND[@SHUFFLE]")]
    shuffler_faults: Vec<pitwatch_sim::ShufflerFault>,
    /// The seed: the same seed deals the same shoes, faults and bytes.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// How fast: `real` (a dealer's pace), `fast` (as fast as the link takes it) or `<factor>x`
    /// (e.g. `10x`).
    #[arg(long, default_value = "real", value_parser = parse_pace)]
    pace: Pace,
    /// Shoes to deal; without it, new shoes until Ctrl-C.
    #[arg(long)]
    shoes: Option<u32>,
    /// A fault to inject: `KIND`, `KIND@ROUND` (shoe 1) or `KIND@SHOE:ROUND`; repeatable. Kinds:
    /// burn-miscount, out-of-order-card, unauthorised-third-card, missing-third-card,
    /// wrong-declared-result, foreign-card, unreadable-card, cutting-card-too-close-to-back,
    /// round-past-last-coup, card-exposed, device-error, garbage, bad-checksum,
    /// duplicate-frame, disconnect.
    #[arg(long = "fault", value_name = "KIND[@ROUND]")]
    faults: Vec<FaultSpec>,
    /// Occasional faults for a demo: `N:KIND,KIND,...` injects one of the kinds, chosen from the
    /// seed, every N rounds.
    #[arg(long, value_name = "N:KINDS", value_parser = parse_every)]
    fault_every: Option<FaultSpec>,
    /// How each shoe is shuffled from the one before: `random` (uniform), `riffle:K` (K
    /// Gilbert–Shannon–Reeds riffles), `wash+riffle:K` (a chemmy wash, then K riffles), `slug:M`
    /// (a block of M dealt cards kept in order: a false shuffle) or `none`.
    #[arg(long, default_value = "random", value_name = "MODEL")]
    shuffle: pitwatch_sim::ShuffleModel,
    /// Listen on this TCP address instead of creating a pseudo-terminal.
    #[arg(long, value_name = "ADDRESS")]
    tcp: Option<SocketAddr>,
    /// Write the byte stream, exactly as sent, to this file.
    #[arg(long, value_name = "FILE")]
    capture: Option<PathBuf>,
    /// Write the injected faults (JSON Lines) to this file.
    #[arg(long, value_name = "FILE")]
    injected: Option<PathBuf>,
    /// With --shoes: how long to keep the link open after the last byte, for a host to read it.
    #[arg(long, default_value_t = 1000)]
    linger_ms: u64,
}

pub(crate) fn parse_pace(text: &str) -> Result<Pace, String> {
    match text {
        "real" => Ok(Pace::RealTime),
        "fast" => Ok(Pace::Fast),
        other => other
            .strip_suffix('x')
            .and_then(|f| f.parse::<f64>().ok())
            .filter(|f| f.is_finite() && *f > 0.0)
            .map(Pace::Times)
            .ok_or_else(|| format!("{other:?} is not real, fast or a factor such as 10x")),
    }
}

fn parse_every(text: &str) -> Result<FaultSpec, String> {
    let (n, kinds) = text
        .split_once(':')
        .ok_or_else(|| format!("{text:?} is not N:KIND,KIND,..."))?;
    let rounds: u32 = n
        .parse()
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| format!("{n:?} is not a number of rounds"))?;
    let faults = kinds
        .split(',')
        .map(|k| k.parse::<SimFault>().map_err(|e| e.to_string()))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(FaultSpec::Every { rounds, faults })
}

/// Runs `pitwatch sim`.
pub fn run(args: SimArgs) -> anyhow::Result<ExitCode> {
    let boxes = match pitwatch_games::sim::boxes_book(&args.rules) {
        Some(Ok(book)) => Some(book),
        Some(Err(problem)) => {
            errln!("error: {problem}");
            return Ok(ExitCode::from(2));
        }
        None => None,
    };
    if boxes.is_none() && !args.game_faults.is_empty() {
        errln!(
            "error: --game-fault is for a {} book; use --fault for {}",
            DealtAs::Boxes.games(),
            DealtAs::Cards.games()
        );
        return Ok(ExitCode::from(2));
    }
    if boxes.is_some() && (!args.faults.is_empty() || args.fault_every.is_some()) {
        errln!(
            "error: --fault and --fault-every are {}'s; use --game-fault",
            DealtAs::Cards.games()
        );
        return Ok(ExitCode::from(2));
    }
    let book = match boxes {
        Some(book) => book,
        None => pitwatch_games::sim::cards_book(&args.rules).map_err(|e| anyhow::anyhow!("{e}"))?,
    };
    let dealing = book.dealing();
    let name = match args.protocol {
        SimProtocol::AngelEye => "angel-eye",
        SimProtocol::Barcode => "barcode",
        SimProtocol::Pitwatch => "pitwatch",
    };
    let Some(protocol) = ProtocolConfig::by_name(name) else {
        bail!("this build does not know the {name} protocol");
    };
    let mut faults = args.faults;
    faults.extend(args.fault_every);
    let config = SimConfig {
        protocol,
        seed: args.seed,
        pace: args.pace,
        faults,
        game_faults: args.game_faults,
        shoes: args.shoes,
        endpoint: args.tcp.map_or(Endpoint::Pty, Endpoint::Tcp),
        capture: args.capture,
        injected_log: args.injected,
        shuffle: args.shuffle,
        shuffler: (args.role == SimRole::Shuffler).then(|| pitwatch_sim::ShufflerSim {
            decks: args.decks,
            cards_per_deck: match &dealing {
                Dealing::Boxes(dealer) => dealer.composition().kind.cards_per_deck(),
                Dealing::Cards(_) | Dealing::Hands(_) => 52,
            },
            faults: args.shuffler_faults.clone(),
            interval_ms: pitwatch_sim::SHUFFLE_INTERVAL_MS,
        }),
        // A table's shuffler and dealer console together are the desk's demo; the CLI
        // simulates a shuffler on its own (`--role shuffler`).
        console: None,
        // Dealers taking turns are the desk's demo's (docs/pace.md).
        rota: None,
        book,
    };
    if args.role == SimRole::Shoe && !args.shuffler_faults.is_empty() {
        errln!("error: --shuffler-fault is for --role shuffler");
        return Ok(ExitCode::from(2));
    }
    if let Err(error) = config.check() {
        errln!("error: {error}");
        return Ok(ExitCode::from(2));
    }
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst))
        .context("cannot install the Ctrl-C handler")?;
    let device = SimDevice::start(config).context("cannot start the simulated device")?;
    {
        let mut out = std::io::stdout().lock();
        match (device.path(), device.address()) {
            (Some(path), _) => writeln!(out, "pty: {path}")?,
            (None, Some(address)) => writeln!(out, "tcp: {address}")?,
            (None, None) => {}
        }
        out.flush()?;
    }
    let mut finished_at: Option<Instant> = None;
    while !stop.load(Ordering::SeqCst) {
        if device.is_finished() {
            let at = *finished_at.get_or_insert_with(Instant::now);
            if at.elapsed() >= Duration::from_millis(args.linger_ms) {
                break;
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let summary = device.stop()?;
    errln!(
        "sim: {} shoes, {} rounds, {} faults injected, {} bytes sent",
        summary.shoes,
        summary.rounds,
        summary.faults,
        summary.bytes
    );
    Ok(ExitCode::SUCCESS)
}
