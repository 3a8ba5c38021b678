//! The running simulated device: a thread that plans shoe after shoe, sleeps out the pace, writes
//! the bytes to the pseudo-terminal or TCP client, and logs the capture and the injected faults.

use std::fs::File;
use std::io::{BufWriter, ErrorKind, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use pitwatch_transport::pty::{open_pair, PtyDevice};

use pitwatch_games::sim::Dealing;

use crate::console::ConsolePlanner;
use crate::game::GamePlanner;
use crate::script::{Action, Planner, Step};
use crate::shuffler::ShufflerPlanner;
use crate::{Endpoint, Pace, SimConfig, SimError};

/// What a simulated device did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SimSummary {
    /// Shoes dealt to the end.
    pub shoes: u32,
    /// Rounds dealt.
    pub rounds: u32,
    /// Bytes sent.
    pub bytes: u64,
    /// Faults injected.
    pub faults: u32,
}

/// A running simulated table device. Dropping it stops it.
#[derive(Debug)]
pub struct SimDevice {
    path: Option<String>,
    /// The other devices' pseudo-terminals (a table's dealer console).
    more_paths: Vec<String>,
    address: Option<SocketAddr>,
    stop: Arc<AtomicBool>,
    /// Asked to deal no more (the link stays open).
    done_dealing: Arc<AtomicBool>,
    shoes_done: Arc<AtomicU32>,
    finished: Arc<AtomicBool>,
    thread: Option<JoinHandle<Result<SimSummary, SimError>>>,
}

impl SimDevice {
    /// Opens the endpoint and starts dealing. The pseudo-terminal's path (or the bound address)
    /// is known when this returns; bytes sent before a host opens a pseudo-terminal wait in its
    /// queue, and nothing is sent on TCP until a client connects.
    pub fn start(config: SimConfig) -> Result<SimDevice, SimError> {
        config.check()?;
        let (link, path, address) = match config.endpoint {
            Endpoint::Pty => {
                let pty = open_pair()?;
                let path = pty.path().to_owned();
                (Link::Pty(pty), Some(path), None)
            }
            Endpoint::Tcp(addr) => {
                let listener = TcpListener::bind(addr).map_err(|source| SimError::Io {
                    what: format!("cannot listen on {addr}"),
                    source,
                })?;
                let io = |source| SimError::Io {
                    what: "cannot set up the listener".into(),
                    source,
                };
                listener.set_nonblocking(true).map_err(io)?;
                let bound = listener.local_addr().map_err(io)?;
                (
                    Link::Tcp {
                        listener,
                        client: None,
                    },
                    None,
                    Some(bound),
                )
            }
        };
        let create = |path: &Option<std::path::PathBuf>, what: &str| {
            path.as_ref()
                .map(|p| {
                    File::create(p)
                        .map(BufWriter::new)
                        .map_err(|source| SimError::Io {
                            what: format!("cannot create the {what} file {}", p.display()),
                            source,
                        })
                })
                .transpose()
        };
        // A table's dealer console: a second pseudo-terminal beside the shuffler's.
        let mut more = Vec::new();
        if config.console.is_some() {
            more.push(open_pair()?);
        }
        let more_paths = more.iter().map(|p| p.path().to_owned()).collect();
        let capture = create(&config.capture, "capture")?;
        let log = create(&config.injected_log, "injected-faults")?;
        let stop = Arc::new(AtomicBool::new(false));
        let done_dealing = Arc::new(AtomicBool::new(false));
        let shoes_done = Arc::new(AtomicU32::new(0));
        let finished = Arc::new(AtomicBool::new(false));
        let runner = Runner {
            planner: Plan::of(&config)?,
            pace: config.pace,
            shoes: config.shoes,
            link,
            more,
            capture,
            log,
            stop: Arc::clone(&stop),
            done_dealing: Arc::clone(&done_dealing),
            shoes_done: Arc::clone(&shoes_done),
            finished: Arc::clone(&finished),
            summary: SimSummary::default(),
        };
        let thread = std::thread::Builder::new()
            .name("pitwatch-sim".into())
            .spawn(move || runner.run())
            .map_err(|source| SimError::Io {
                what: "cannot start the simulator thread".into(),
                source,
            })?;
        Ok(SimDevice {
            path,
            more_paths,
            address,
            stop,
            done_dealing,
            shoes_done,
            finished,
            thread: Some(thread),
        })
    }

    /// The pseudo-terminal a host opens (`/dev/pts/N`), for [`Endpoint::Pty`].
    pub fn path(&self) -> Option<&str> {
        self.path.as_deref()
    }

    /// The other devices' pseudo-terminals, in the order of the table's devices after the first
    /// (a table's dealer console).
    pub fn more_paths(&self) -> &[String] {
        &self.more_paths
    }

    /// The address a host connects to, for [`Endpoint::Tcp`].
    pub fn address(&self) -> Option<SocketAddr> {
        self.address
    }

    /// Shoes dealt to the end so far.
    pub fn shoes_done(&self) -> u32 {
        self.shoes_done.load(Ordering::SeqCst)
    }

    /// Whether the device sends no more: every configured shoe has been sent, it was asked to
    /// [`SimDevice::stop_dealing`], or it failed. The link stays open until [`SimDevice::stop`],
    /// so a host can read what is still queued.
    pub fn is_finished(&self) -> bool {
        self.finished.load(Ordering::SeqCst)
    }

    /// Waits until [`SimDevice::is_finished`] or `timeout`; returns whether it finished.
    pub fn wait_finished(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        while !self.is_finished() {
            if Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        true
    }

    /// Deals no more once the frame being sent is complete, and keeps the link open so a host can
    /// read what is still queued; [`SimDevice::is_finished`] says when nothing more will come.
    /// Closing a pseudo-terminal hangs it up, which throws away what the host has not read yet,
    /// so a harness that compares what was sent with what was read stops dealing first, lets the
    /// host read the rest, and only then calls [`SimDevice::stop`].
    pub fn stop_dealing(&self) {
        self.done_dealing.store(true, Ordering::SeqCst);
        self.wake();
    }

    /// Wakes the device's thread from its wait between steps, to see what it was asked.
    fn wake(&self) {
        if let Some(thread) = &self.thread {
            thread.thread().unpark();
        }
    }

    /// Stops dealing, closes the link and the files, and says what was done.
    pub fn stop(mut self) -> Result<SimSummary, SimError> {
        self.halt()
    }

    fn halt(&mut self) -> Result<SimSummary, SimError> {
        self.stop.store(true, Ordering::SeqCst);
        self.wake();
        match self.thread.take() {
            Some(thread) => thread.join().map_err(|_| SimError::Panicked)?,
            None => Ok(SimSummary::default()),
        }
    }
}

impl Drop for SimDevice {
    fn drop(&mut self) {
        let _ = self.halt();
    }
}

enum Link {
    Pty(PtyDevice),
    Tcp {
        listener: TcpListener,
        client: Option<TcpStream>,
    },
}

/// What plans the shoes: by the dealer the registry chooses for the book's game, or a counting
/// shuffler.
enum Plan {
    /// A shoe whose rounds follow from the cards alone.
    Cards(Planner),
    /// A shoe dealt to boxes.
    Boxes(GamePlanner),
    /// A counting shuffler: each "shoe" is one shuffle.
    Shuffler(ShufflerPlanner),
    /// A table's shuffler and dealer console: each "shoe" is one hand.
    Hands(ConsolePlanner),
}

/// One shoe to send: its steps, the device each goes to (empty: all to the main one), the
/// injected-faults lines to log as each step is carried out (by step index), and its rounds.
struct Planned {
    steps: Vec<Step>,
    devices: Vec<usize>,
    log: Vec<(usize, Result<String, serde_json::Error>)>,
    rounds: u32,
}

impl Plan {
    /// The planner for a checked configuration: a table's console, else a shuffler, else the
    /// shoe the book's dealer deals.
    fn of(config: &SimConfig) -> Result<Plan, SimError> {
        let dealing = config.book.dealing();
        Ok(match (&config.console, &config.shuffler, dealing) {
            (Some(console), _, Dealing::Hands(dealer)) => {
                Plan::Hands(ConsolePlanner::new(dealer, console.clone(), config.seed))
            }
            (Some(_), _, _) => {
                return Err(SimError::Config(
                    "a dealer console plays hands, not this book's rounds".into(),
                ))
            }
            (None, Some(shuffler), _) => {
                Plan::Shuffler(ShufflerPlanner::new(shuffler.clone(), config.seed))
            }
            (None, None, Dealing::Boxes(dealer)) => Plan::Boxes(GamePlanner::new(
                dealer,
                config.game_faults.clone(),
                config.seed,
            )),
            (None, None, Dealing::Cards(book)) => Plan::Cards(
                Planner::new(
                    &config.protocol,
                    book,
                    config.seed,
                    config.faults.clone(),
                    config.endpoint == Endpoint::Pty,
                )
                .with_shuffle(config.shuffle)
                .with_rota(config.rota.clone()),
            ),
            (None, None, Dealing::Hands(_)) => {
                return Err(SimError::Config(
                    "hands at a dealer console are simulated with the table's console".into(),
                ))
            }
        })
    }

    fn next_shoe(&mut self) -> Planned {
        match self {
            Plan::Cards(planner) => {
                let script = planner.next_shoe();
                let log = script
                    .steps
                    .iter()
                    .enumerate()
                    .flat_map(|(i, step)| {
                        step.injected
                            .iter()
                            .map(move |record| (i, serde_json::to_string(record)))
                    })
                    .collect();
                Planned {
                    rounds: script.rounds.len() as u32,
                    steps: script.steps,
                    devices: Vec::new(),
                    log,
                }
            }
            Plan::Boxes(planner) => {
                let shoe = planner.next_shoe();
                let mut log: Vec<_> = shoe
                    .injected
                    .iter()
                    .map(|(i, record)| (*i, serde_json::to_string(record)))
                    .collect();
                log.sort_by_key(|(i, _)| *i);
                Planned {
                    steps: shoe.steps,
                    devices: Vec::new(),
                    log,
                    rounds: shoe.rounds,
                }
            }
            Plan::Shuffler(planner) => {
                let (steps, injected) = planner.next_shuffle();
                let log = injected
                    .iter()
                    .map(|(i, record)| (*i, serde_json::to_string(record)))
                    .collect();
                Planned {
                    steps,
                    devices: Vec::new(),
                    log,
                    rounds: 0,
                }
            }
            Plan::Hands(planner) => {
                let hand = planner.next_hand();
                let mut log = hand.injected;
                log.sort_by_key(|(i, _)| *i);
                Planned {
                    steps: hand.steps,
                    devices: hand.devices,
                    log,
                    rounds: 1,
                }
            }
        }
    }
}

struct Runner {
    planner: Plan,
    pace: Pace,
    shoes: Option<u32>,
    link: Link,
    /// The other devices' links (a table's dealer console).
    more: Vec<PtyDevice>,
    capture: Option<BufWriter<File>>,
    log: Option<BufWriter<File>>,
    stop: Arc<AtomicBool>,
    done_dealing: Arc<AtomicBool>,
    shoes_done: Arc<AtomicU32>,
    finished: Arc<AtomicBool>,
    summary: SimSummary,
}

/// The thread was told to stop, or to deal no more.
struct Stopped;

impl Runner {
    fn run(mut self) -> Result<SimSummary, SimError> {
        let outcome = self.deal();
        self.finished.store(true, Ordering::SeqCst);
        match outcome {
            // Dealt to the end or asked to deal no more: keep the link open so the host can
            // read what is queued (when asked to stop, this ends at once).
            Ok(()) | Err(Ok(Stopped)) => {
                while !self.stopped() {
                    std::thread::park();
                }
                Ok(self.summary)
            }
            Err(Err(error)) => Err(error),
        }
    }

    fn stopped(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }

    fn deal(&mut self) -> Result<(), Result<Stopped, SimError>> {
        while self.shoes.is_none_or(|n| self.summary.shoes < n) {
            let script = self.planner.next_shoe();
            let mut lines = script.log.into_iter().peekable();
            for (i, step) in script.steps.into_iter().enumerate() {
                let wait = self
                    .pace
                    .scale(step.delay_ms)
                    .max(Duration::from_millis(step.min_delay_ms));
                self.sleep(wait)?;
                while let Some((_, record)) = lines.next_if(|(at, _)| *at == i) {
                    if let Some(log) = &mut self.log {
                        let line = record.map_err(|e| {
                            Err(SimError::Io {
                                what: "cannot write the injected-faults file".into(),
                                source: e.into(),
                            })
                        })?;
                        writeln!(log, "{line}")
                            .and_then(|()| log.flush())
                            .map_err(|source| {
                                Err(SimError::Io {
                                    what: "cannot write the injected-faults file".into(),
                                    source,
                                })
                            })?;
                    }
                    self.summary.faults += 1;
                }
                match step.action {
                    Action::Send(bytes) => match script.devices.get(i).copied().unwrap_or(0) {
                        0 => self.send(&bytes)?,
                        other => self.send_to(other - 1, &bytes)?,
                    },
                    Action::Disconnect { pause_ms } => {
                        if let Link::Tcp { client, .. } = &mut self.link {
                            if let Some(stream) = client.take() {
                                let _ = stream.shutdown(Shutdown::Both);
                            }
                        }
                        self.sleep(self.pace.scale(pause_ms).max(Duration::from_millis(200)))?;
                    }
                }
            }
            self.summary.shoes += 1;
            self.summary.rounds += script.rounds;
            self.shoes_done.store(self.summary.shoes, Ordering::SeqCst);
        }
        Ok(())
    }

    /// Waits `duration` between steps; ends dealing when asked to stop or to deal no more. The
    /// thread is parked for the whole wait and woken when asked (not woken every few
    /// milliseconds to look): a bench runs a thousand of these beside the monitor it measures.
    fn sleep(&self, duration: Duration) -> Result<(), Result<Stopped, SimError>> {
        let deadline = Instant::now() + duration;
        loop {
            if self.stopped() || self.done_dealing.load(Ordering::SeqCst) {
                return Err(Ok(Stopped));
            }
            let now = Instant::now();
            if now >= deadline {
                return Ok(());
            }
            std::thread::park_timeout(deadline - now);
        }
    }

    /// Sends to another device's pseudo-terminal (not captured: the capture is the main
    /// device's).
    fn send_to(&mut self, device: usize, bytes: &[u8]) -> Result<(), Result<Stopped, SimError>> {
        let mut rest = bytes;
        let Some(pty) = self.more.get_mut(device) else {
            return Err(Err(SimError::Config(format!("no device {}", device + 2))));
        };
        while !rest.is_empty() {
            if self.stop.load(Ordering::SeqCst) {
                return Err(Ok(Stopped));
            }
            let n = pty.write(rest).map_err(|e| Err(SimError::Link(e)))?;
            rest = &rest[n..];
        }
        self.summary.bytes += bytes.len() as u64;
        Ok(())
    }

    fn send(&mut self, bytes: &[u8]) -> Result<(), Result<Stopped, SimError>> {
        let mut rest = bytes;
        loop {
            if self.stopped() {
                return Err(Ok(Stopped));
            }
            let sent = match &mut self.link {
                Link::Pty(pty) => {
                    while !rest.is_empty() {
                        if self.stop.load(Ordering::SeqCst) {
                            return Err(Ok(Stopped));
                        }
                        let n = pty.write(rest).map_err(|e| Err(SimError::Link(e)))?;
                        rest = &rest[n..];
                    }
                    true
                }
                Link::Tcp { listener, client } => {
                    if client.is_none() {
                        match listener.accept() {
                            Ok((stream, _)) => {
                                let _ = stream.set_nodelay(true);
                                let _ = stream.set_nonblocking(false);
                                let _ = stream.set_write_timeout(Some(Duration::from_millis(100)));
                                *client = Some(stream);
                            }
                            Err(e) if e.kind() == ErrorKind::WouldBlock => {
                                std::thread::sleep(Duration::from_millis(20));
                                continue;
                            }
                            Err(source) => {
                                return Err(Err(SimError::Io {
                                    what: "cannot accept a client".into(),
                                    source,
                                }))
                            }
                        }
                    }
                    let Some(stream) = client.as_mut() else {
                        continue;
                    };
                    while !rest.is_empty() {
                        if self.stop.load(Ordering::SeqCst) {
                            return Err(Ok(Stopped));
                        }
                        match stream.write(rest) {
                            Ok(0) => break,
                            Ok(n) => rest = &rest[n..],
                            // A host that reads slowly is waited for, not dropped.
                            Err(e)
                                if matches!(
                                    e.kind(),
                                    ErrorKind::WouldBlock
                                        | ErrorKind::TimedOut
                                        | ErrorKind::Interrupted
                                ) => {}
                            Err(_) => break,
                        }
                    }
                    if rest.is_empty() {
                        true
                    } else {
                        // The host went away: the rest goes to the next client.
                        *client = None;
                        false
                    }
                }
            };
            if sent {
                break;
            }
        }
        self.summary.bytes += bytes.len() as u64;
        if let Some(capture) = &mut self.capture {
            capture
                .write_all(bytes)
                .and_then(|()| capture.flush())
                .map_err(|source| {
                    Err(SimError::Io {
                        what: "cannot write the capture file".into(),
                        source,
                    })
                })?;
        }
        Ok(())
    }
}
