//! Simulated table devices: a table's shoe dealing honest shoes under a rule book, speaking Angel
//! Eye, barcode or the Pitwatch protocol on a pseudo-terminal or a TCP listen address, at a
//! dealer's pace or faster, and injecting faults on request; a counting shuffler; a table's
//! shuffler and dealer console together.
//!
//! Which dealer deals the table's game is the registry's (`pitwatch_games::sim`: the book's
//! [`Dealing`]): a shoe whose rounds follow from the cards alone is dealt by the reference dealer
//! (`pitwatch-dealer`, with rule-level faults: burn miscount, a card out of order, …; [`script`]),
//! a shoe dealt to boxes by its game's dealer ([`game`]), hands at a console by theirs
//! ([`console`]). This crate names no game: it turns what they deal into the device's bytes with
//! the protocol encoders, adds the wire-level faults (garbage, a damaged checksum, a duplicate
//! frame, a disconnect), paces the stream, and writes what it injected, and where, to a JSON
//! Lines file a test compares a host's findings against ([`Injected`]). Everything but the
//! sleeping and writing is deterministic for a seed, so the same seed gives the same bytes
//! whatever the pace.
//!
//! ```no_run
//! use pitwatch_sim::{Endpoint, Pace, SimConfig, SimDevice};
//! let config = SimConfig::new(
//!     pitwatch_protocols::ProtocolConfig::by_name("angel-eye").unwrap(),
//!     pitwatch_games::load_game_book("nz-baccarat").unwrap(),
//! );
//! let device = SimDevice::start(SimConfig { pace: Pace::Times(10.0), ..config }).unwrap();
//! println!("open {}", device.path().unwrap());
//! device.stop().unwrap();
//! ```

pub mod check;
pub mod console;
mod device;
pub mod fault;
pub mod game;
pub mod script;
pub mod shuffler;

use std::net::SocketAddr;
use std::path::PathBuf;

pub use console::{ConsoleInjected, ConsoleSim};
pub use device::{SimDevice, SimSummary};
pub use fault::{Expected, FaultSpec, Injected, Level, SimFault, UnknownFault};
pub use game::GameInjected;
pub use pitwatch_dealer::ShuffleModel;
pub use pitwatch_games::sim::GameFault;
use pitwatch_games::sim::{Dealing, DealtAs};
use pitwatch_games::GameBook;
use pitwatch_protocols::ProtocolConfig;
pub use script::{Action, Planner, Rota, RotaDealer, ShoeScript, Step};
pub use shuffler::{
    ShufflerFault, ShufflerFaultKind, ShufflerInjected, ShufflerSim, SHUFFLE_INTERVAL_MS,
};

/// How fast the simulated dealer deals.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Pace {
    /// Like a real dealer: about 1–1.5 s a card, pauses between rounds, seconds for a shuffle.
    RealTime,
    /// A real dealer's pace, this many times faster.
    Times(f64),
    /// As fast as the link takes the bytes (a barcode scanner's repeated code still waits out the
    /// host's repeat window).
    Fast,
}

impl Pace {
    /// The wait for a step of `real_ms` at a real pace, at this pace.
    pub fn scale(self, real_ms: u64) -> std::time::Duration {
        let ms = match self {
            Pace::RealTime => real_ms as f64,
            Pace::Times(factor) => real_ms as f64 / factor,
            Pace::Fast => 0.0,
        };
        // A tiny factor would overflow a Duration: wait "forever" instead of panicking.
        std::time::Duration::try_from_secs_f64(ms.max(0.0) / 1000.0)
            .unwrap_or(std::time::Duration::MAX)
    }
}

/// Where the simulated device is reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Endpoint {
    /// A new pseudo-terminal; a host opens [`SimDevice::path`] as a serial port.
    Pty,
    /// A TCP listen address (a serial-to-Ethernet device server in "TCP server" mode); port 0
    /// picks a free port, see [`SimDevice::address`].
    Tcp(SocketAddr),
}

/// Everything a simulated device needs.
#[derive(Debug, Clone)]
pub struct SimConfig {
    /// The protocol the device speaks.
    pub protocol: ProtocolConfig,
    /// The rule book the table's game is dealt by; which dealer deals it is the registry's
    /// ([`GameBook::dealing`]).
    pub book: GameBook,
    /// The seed: the same seed deals the same shoes and the same faults.
    pub seed: u64,
    /// How fast.
    pub pace: Pace,
    /// Faults to inject into a shoe whose rounds follow from the cards alone (rule-level and
    /// wire-level).
    pub faults: Vec<FaultSpec>,
    /// Faults to inject into a shoe dealt to boxes (its game's dealer's faults).
    pub game_faults: Vec<GameFault>,
    /// Shoes to deal; `None` deals new shoes until stopped.
    pub shoes: Option<u32>,
    /// Where the device is reached.
    pub endpoint: Endpoint,
    /// A file to write the byte stream to, exactly as sent.
    pub capture: Option<PathBuf>,
    /// A file to write the injected faults to (JSON Lines, one [`Injected`] per line).
    pub injected_log: Option<PathBuf>,
    /// How each shoe of cards alone is shuffled from the one before (`--shuffle`).
    pub shuffle: ShuffleModel,
    /// A counting shuffler instead of a shoe (then `faults`, `game_faults` and `shuffle` are not
    /// used; each "shoe" is one shuffle), in the Pitwatch protocol.
    pub shuffler: Option<ShufflerSim>,
    /// For a book whose hands are played at a dealer console: the table (then nothing else
    /// above is used but the book, pace, seed, endpoint and files): its shuffler on the endpoint
    /// and its dealer console on a second pseudo-terminal ([`SimDevice::more_paths`]), each
    /// "shoe" one hand; only on pseudo-terminals. The capture holds the shuffler's bytes.
    pub console: Option<ConsoleSim>,
    /// Dealers taking turns at a shoe of cards alone, each at their own pace, with slow rounds
    /// (issue 30); only the Pitwatch protocol says who signed in.
    pub rota: Option<Rota>,
}

impl SimConfig {
    /// One shoe, seed 1, real pace, no faults, uniform shuffles, on a pseudo-terminal, nothing
    /// written.
    pub fn new(protocol: ProtocolConfig, book: impl Into<GameBook>) -> SimConfig {
        SimConfig {
            protocol,
            book: book.into(),
            seed: 1,
            pace: Pace::RealTime,
            faults: Vec::new(),
            game_faults: Vec::new(),
            shoes: Some(1),
            endpoint: Endpoint::Pty,
            capture: None,
            injected_log: None,
            shuffle: ShuffleModel::Random,
            shuffler: None,
            console: None,
            rota: None,
        }
    }

    /// Checks the configuration: every requested fault must be one the protocol can carry, an
    /// interval at least one round, a speed-up factor positive; and the device must be a shoe.
    pub fn check(&self) -> Result<(), SimError> {
        let protocol = self.protocol.name();
        let dealing = self.book.dealing();
        if let Some(rota) = &self.rota {
            if !matches!(self.protocol, ProtocolConfig::Pitwatch(_))
                || dealing.dealt_as() != DealtAs::Cards
                || self.shuffler.is_some()
                || self.console.is_some()
            {
                return Err(SimError::Config(format!(
                    "dealers sign in over the pitwatch protocol at a shoe of cards alone, not \
                     over {protocol} at a {} table",
                    self.book.game()
                )));
            }
            if rota.dealers.is_empty()
                || rota
                    .dealers
                    .iter()
                    .any(|d| d.slowness.is_nan() || d.slowness <= 0.0)
            {
                return Err(SimError::Config(
                    "a rota names at least one dealer, each dealing at a pace above 0".into(),
                ));
            }
        }
        if let Dealing::Boxes(dealer) = &dealing {
            // Only the Pitwatch protocol carries box targets and decisions.
            if !matches!(self.protocol, ProtocolConfig::Pitwatch(_)) {
                return Err(SimError::Config(format!(
                    "a {} table needs the pitwatch protocol (box targets and decisions); {protocol} cannot carry them",
                    dealer.name()
                )));
            }
        }
        if self.console.is_some() {
            if dealing.dealt_as() != DealtAs::Hands {
                return Err(SimError::Config(format!(
                    "a dealer console plays hands ({}), not the rounds of a {} book",
                    DealtAs::Hands.games(),
                    self.book.game()
                )));
            }
            if !matches!(self.protocol, ProtocolConfig::Pitwatch(_)) {
                return Err(SimError::Config(format!(
                    "a {} table's shuffler and console speak the pitwatch protocol, not {protocol}",
                    DealtAs::Hands.games()
                )));
            }
            if self.endpoint != Endpoint::Pty {
                return Err(SimError::Config(format!(
                    "a simulated {} table (a shuffler and a console) runs on pseudo-terminals",
                    DealtAs::Hands.games()
                )));
            }
            return Ok(());
        }
        if self.shuffler.is_some() {
            // Only the Pitwatch protocol has a shuffler's messages.
            if !matches!(self.protocol, ProtocolConfig::Pitwatch(_)) {
                return Err(SimError::Config(format!(
                    "a shuffler speaks the pitwatch protocol; {protocol} has no shuffler messages"
                )));
            }
            return Ok(());
        }
        if dealing.dealt_as() == DealtAs::Hands {
            return Err(SimError::Config(format!(
                "a {} table is simulated as its shuffler, or its shuffler and dealer console",
                DealtAs::Hands.games()
            )));
        }
        if let ProtocolConfig::Pitwatch(pitwatch_proto::ProtoConfig {
            role: Some(role @ (pitwatch_proto::Role::Shuffler | pitwatch_proto::Role::Console)),
            ..
        }) = self.protocol
        {
            return Err(SimError::Config(format!(
                "the simulator plays a shoe, not a {}",
                role.as_str()
            )));
        }
        for spec in &self.faults {
            match spec {
                FaultSpec::At { fault, .. } if !fault.supported_by(protocol) => {
                    return Err(SimError::Unsupported {
                        fault: *fault,
                        protocol,
                    })
                }
                FaultSpec::Every { rounds: 0, .. } => {
                    return Err(SimError::Config("a fault interval of 0 rounds".into()))
                }
                FaultSpec::Every { faults, .. } => {
                    if let Some(fault) = faults.iter().find(|f| !f.supported_by(protocol)) {
                        return Err(SimError::Unsupported {
                            fault: *fault,
                            protocol,
                        });
                    }
                }
                FaultSpec::At { .. } => {}
            }
        }
        if let Pace::Times(factor) = self.pace {
            if !(factor.is_finite() && factor > 0.0) {
                return Err(SimError::Config(format!(
                    "a pace factor must be a positive number, not {factor}"
                )));
            }
        }
        Ok(())
    }
}

/// Why a simulated device could not run.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// The protocol cannot carry the fault in a way a host could see; choose another fault or
    /// protocol.
    #[error("{protocol} cannot carry the fault {fault} so that a host could see it")]
    Unsupported {
        /// The fault.
        fault: SimFault,
        /// The protocol.
        protocol: &'static str,
    },
    /// The configuration is unusable.
    #[error("bad simulator configuration: {0}")]
    Config(String),
    /// The pseudo-terminal or listen address could not be opened.
    #[error(transparent)]
    Link(#[from] pitwatch_transport::TransportError),
    /// A file (capture, injected faults) or a socket failed.
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// The error.
        source: std::io::Error,
    },
    /// The simulator's thread stopped unexpectedly.
    #[error("the simulator thread panicked")]
    Panicked,
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn pace_scales_a_real_dealers_delays_and_never_panics() {
        assert_eq!(Pace::RealTime.scale(1_500), Duration::from_millis(1_500));
        assert_eq!(Pace::Times(10.0).scale(1_500), Duration::from_millis(150));
        assert_eq!(Pace::Fast.scale(8_000), Duration::ZERO);
        assert_eq!(Pace::Times(1e-300).scale(8_000), Duration::MAX);
    }

    #[test]
    fn a_configuration_is_checked_before_anything_opens() {
        let config = |pace, faults| SimConfig {
            pace,
            faults,
            ..SimConfig::new(
                ProtocolConfig::by_name("angel-eye").unwrap(),
                pitwatch_baccarat::RuleBook::nz_baccarat(),
            )
        };
        assert!(config(Pace::Times(2.0), Vec::new()).check().is_ok());
        let shuffler: ProtocolConfig =
            serde_json::from_str(r#"{"protocol":"pitwatch","role":"shuffler"}"#).unwrap();
        let error = SimConfig::new(shuffler, pitwatch_baccarat::RuleBook::nz_baccarat())
            .check()
            .unwrap_err();
        assert!(error.to_string().contains("not a shuffler"), "{error}");
        assert!(config(Pace::Times(0.0), Vec::new()).check().is_err());
        assert!(config(Pace::Times(f64::NAN), Vec::new()).check().is_err());
        let every = |rounds, faults| vec![FaultSpec::Every { rounds, faults }];
        assert!(config(Pace::Fast, every(0, vec![SimFault::Garbage]))
            .check()
            .is_err());
        assert!(matches!(
            config(
                Pace::Fast,
                every(5, vec![SimFault::Garbage, SimFault::CardExposed])
            )
            .check(),
            Err(SimError::Unsupported {
                fault: SimFault::CardExposed,
                protocol: "angel-eye"
            })
        ));
    }
}
