//! The outbox shipping continuously, on a thread of its own: what `pitwatch sync` (without
//! `--once`) and `pitwatch monitor` run. It reads the record on a read-only connection of its
//! own, so recording never waits for it (nor for the network); it reconnects with a growing delay
//! when the link is down, and reports every round's state to the caller.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use pitwatch_store::Store;

use crate::{redact, Central, Outbox, SyncError, SyncReport};

/// Why a round failed: the link (or the local record), or the server's refusal of this
/// workstation's delivery (not enrolled, another workstation's name, another record), which it
/// reached and which says why.
enum Failure {
    Link(String),
    Refused(String),
}

/// The replication state after a round (or a failed attempt).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReplicationStatus {
    /// Whether the last round reached the server.
    pub connected: bool,
    /// The last round that reached it, if any.
    pub report: Option<SyncReport>,
    /// Why the last attempt failed, if it did.
    pub error: Option<String>,
    /// How long the link has been down (since the last round that reached the server, or the
    /// start), when it is.
    pub down_for: Option<Duration>,
}

impl ReplicationStatus {
    /// How far behind the server is, in time: the record's time between the latest checkpoint
    /// delivered and the record's latest, or how long the link has been down, whichever is more.
    pub fn behind(&self) -> Duration {
        let lag = self
            .report
            .as_ref()
            .map_or(0, |r| u64::try_from(r.ms_behind).unwrap_or(0));
        Duration::from_millis(lag).max(self.down_for.unwrap_or_default())
    }

    /// Rows the server lacked after the last round that reached it.
    pub fn rows_behind(&self) -> i64 {
        self.report.as_ref().map_or(0, |r| r.rows_behind)
    }
}

/// A running replication thread.
pub struct Replicator {
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<()>>,
}

impl Replicator {
    /// Ships the record at `db` to the central database at `url` as `outbox` says, a round every
    /// `interval`, calling `status` after each round or failed attempt.
    pub fn spawn(
        url: String,
        db: PathBuf,
        mut outbox: Outbox,
        interval: Duration,
        mut status: impl FnMut(&ReplicationStatus) + Send + 'static,
    ) -> std::io::Result<Replicator> {
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = stop.clone();
        let handle = std::thread::Builder::new()
            .name("central-sync".into())
            .spawn(move || {
                let mut central: Option<Central> = None;
                let mut store: Option<Store> = None;
                let mut backoff = Duration::from_millis(500);
                let mut last_ok = Instant::now();
                let mut last_report = None;
                while !stopping.load(Ordering::SeqCst) {
                    let attempt = (|| -> Result<SyncReport, Failure> {
                        if store.is_none() {
                            store = Some(Store::open_read_only(&db).map_err(|e| {
                                Failure::Link(format!("cannot read {}: {e}", db.display()))
                            })?);
                        }
                        if central.as_ref().is_none_or(Central::is_closed) {
                            let mut c = Central::connect(&url)
                                .map_err(|e| Failure::Link(format!("{}: {e}", redact(&url))))?;
                            c.check_schema().map_err(|e| Failure::Link(e.to_string()))?;
                            central = Some(c);
                        }
                        let (Some(c), Some(s)) = (central.as_mut(), store.as_ref()) else {
                            return Err(Failure::Link("not connected".into()));
                        };
                        c.sync_once(s, &mut outbox).map_err(|e| match e {
                            SyncError::Refused(_) => Failure::Refused(e.to_string()),
                            e => {
                                central = None;
                                Failure::Link(e.to_string())
                            }
                        })
                    })();
                    let wait = match attempt {
                        Ok(report) => {
                            last_ok = Instant::now();
                            backoff = Duration::from_millis(500);
                            last_report = Some(report.clone());
                            status(&ReplicationStatus {
                                connected: true,
                                report: Some(report),
                                error: None,
                                down_for: None,
                            });
                            interval
                        }
                        Err(Failure::Refused(error)) => {
                            // The server was reached and refused the delivery: said at once, as
                            // a refusal (every screen shows it), and tried again with backoff.
                            let mut report = last_report.clone().unwrap_or_default();
                            report.refused = vec![error.clone()];
                            status(&ReplicationStatus {
                                connected: true,
                                report: Some(report),
                                error: Some(error),
                                down_for: None,
                            });
                            let wait = backoff;
                            backoff = (backoff * 2).min(Duration::from_secs(30));
                            wait
                        }
                        Err(Failure::Link(error)) => {
                            status(&ReplicationStatus {
                                connected: false,
                                report: last_report.clone(),
                                error: Some(error),
                                down_for: Some(last_ok.elapsed()),
                            });
                            let wait = backoff;
                            backoff = (backoff * 2).min(Duration::from_secs(30));
                            wait
                        }
                    };
                    let until = Instant::now() + wait;
                    while Instant::now() < until && !stopping.load(Ordering::SeqCst) {
                        std::thread::sleep(Duration::from_millis(50).min(wait));
                    }
                }
            })?;
        Ok(Replicator {
            stop,
            handle: Some(handle),
        })
    }

    /// Stops after the round in progress.
    pub fn stop(mut self) {
        self.halt();
    }

    fn halt(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(handle) = self.handle.take() {
            let _ = handle.join();
        }
    }
}

impl Drop for Replicator {
    fn drop(&mut self) {
        self.halt();
    }
}
