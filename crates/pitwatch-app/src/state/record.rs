//! The desk's record: its own connection to the store, how far the record was verified (in full
//! once, then only what was appended since), the record's status (key, checkpoint, journals) and
//! its alerts, with replication's state among them. The use cases on it are `crate::record`'s.

use std::path::{Path, PathBuf};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex, MutexGuard};

use pitwatch_api::dto::{
    ApiError, PitUpdate, RecordAlert, RecordStatus, ReplicationState, Severity,
};
use pitwatch_recording::record::{Installation, SegmentFailure};
use pitwatch_store::{ChainMark, Store};
use pitwatch_transport::Clock;

use super::{internal, lock};

/// The desk's record: its own connection to the store (SQLite takes several: the monitor has
/// its own), how far it was verified and what is wrong with it. Three locks, never two at once
/// inside: the store, the verification's marks, the alerts.
pub struct Record {
    source: RecordStatusSource,
    store: Mutex<Store>,
    /// How far each chain was verified (and when it was verified in full), so a replay verifies
    /// only what was appended since.
    verified: Arc<Mutex<Verified>>,
    /// What is wrong with the record, shown on every screen (see [`RecordAlerts`]).
    alerts: Arc<Mutex<RecordAlerts>>,
}

impl Record {
    /// The record at `db` of `installation`, `store` the desk's connection to it, with the
    /// alerts found on opening it.
    pub(crate) fn new(
        installation: Installation,
        db: PathBuf,
        store: Store,
        alerts: RecordAlerts,
    ) -> Record {
        Record {
            source: RecordStatusSource { installation, db },
            store: Mutex::new(store),
            verified: Arc::new(Mutex::new(None)),
            alerts: Arc::new(Mutex::new(alerts)),
        }
    }

    /// The desk's connection to the store, held until the guard is dropped.
    pub(crate) fn store(&self) -> MutexGuard<'_, Store> {
        lock(&self.store)
    }

    /// The installation: its key, which verification trusts, and its witnesses.
    pub(crate) fn installation(&self) -> &Installation {
        &self.source.installation
    }

    /// The database in use.
    pub(crate) fn db(&self) -> &Path {
        &self.source.db
    }

    /// The record's status now (see [`RecordStatusSource::status`]).
    pub(crate) fn status(&self) -> RecordStatus {
        self.source.status(&lock(&self.alerts))
    }

    /// Verifies the record through `store` (see [`verify_into`]).
    pub(crate) fn verify(
        &self,
        clock: &dyn Clock,
        store: &Store,
    ) -> Result<(bool, String), ApiError> {
        verify_into(&self.verified, clock, &self.source.installation, store)
    }

    /// Whether the record has been verified in full since the desk started and was intact then.
    pub(crate) fn verified_in_full(&self) -> bool {
        lock(&self.verified).is_some()
    }

    /// What a thread beside the desk changes the record's alerts through.
    pub(crate) fn watch(&self) -> RecordWatch {
        RecordWatch {
            source: self.source.clone(),
            alerts: Arc::clone(&self.alerts),
        }
    }

    /// Verifies the record in full on a thread of its own while the pit runs, so a replay then
    /// only checks what was appended since. A failure is a critical alert on every screen (sent
    /// on `updates`), stops the desk's own writes (no person's step is signed onto a record that
    /// failed), and marks the segment so that the next start records into a new one.
    pub(crate) fn verify_in_background(
        &self,
        clock: Arc<dyn Clock>,
        updates: Sender<PitUpdate>,
    ) -> Result<(), ApiError> {
        let verified = Arc::clone(&self.verified);
        let watch = self.watch();
        let refusal = self.store().refusal_handle();
        std::thread::Builder::new()
            .name("pitwatch-verify".into())
            .spawn(move || {
                let installation = &watch.source.installation;
                let db = &watch.source.db;
                let outcome = installation
                    .open_read_only(db)
                    .map_err(ApiError::from)
                    .and_then(|store| verify_into(&verified, clock.as_ref(), installation, &store));
                if let Ok((false, problem)) = outcome {
                    refusal.refuse(problem.clone());
                    pitwatch_recording::record::mark_failed(db, &problem);
                    lock(&watch.alerts).verification = Some(problem);
                    let _ = updates.send(PitUpdate::Record {
                        record: watch.status(),
                    });
                }
            })
            .map(drop)
            .map_err(|e| internal(format!("cannot start the verification thread: {e}")))
    }
}

/// The record's alerts as a thread beside the desk (the fold, replication, verification) sees
/// them: each change answers the status to send to every screen when what it shows changed.
pub(crate) struct RecordWatch {
    source: RecordStatusSource,
    alerts: Arc<Mutex<RecordAlerts>>,
}

impl RecordWatch {
    /// The record's status now.
    pub(crate) fn status(&self) -> RecordStatus {
        self.source.status(&lock(&self.alerts))
    }

    /// The checkpoint journals that cannot be written now (their errors): an alert on every
    /// screen until they can be. The status to send when that changed.
    pub(crate) fn set_journals(&self, failing: Vec<String>) -> Option<RecordStatus> {
        let changed = {
            let mut alerts = lock(&self.alerts);
            let changed = alerts.journals != failing;
            alerts.journals = failing;
            changed
        };
        changed.then(|| self.status())
    }

    /// The host clock's alert (`None`: the clock is back). The status to send when that changed.
    pub(crate) fn set_clock(&self, alert: Option<String>) -> Option<RecordStatus> {
        set_clock_alert(&self.alerts, alert).then(|| self.status())
    }
}

/// What is wrong with the record: segments that failed verification at start-up, a failure the
/// full verification found since, and journals that cannot be written.
#[derive(Debug, Clone, Default)]
pub(crate) struct RecordAlerts {
    pub(crate) segments: Vec<SegmentFailure>,
    pub(crate) verification: Option<String>,
    pub(crate) journals: Vec<String>,
    /// The record's files that others may read, found at start-up.
    pub(crate) exposed: Vec<String>,
    /// Replication to the central database, when the pit definition names one.
    pub(crate) replication: Option<Replication>,
    /// The host clock's alert while it is not fit to match times by (not synchronised, or its
    /// error past the limit: `pitwatch_recording::clock`). A record alert rather than an
    /// incident: the host clock stamps every table's frames alike and belongs to no table, and
    /// what it was worth at any time is on record as its samples, printed on every incident
    /// report.
    pub(crate) clock: Option<String>,
}

impl RecordAlerts {
    /// What every screen shows of them.
    pub(crate) fn alerts(&self) -> Vec<RecordAlert> {
        let mut out: Vec<RecordAlert> = self
            .segments
            .iter()
            .map(|f| RecordAlert {
                severity: Severity::Critical,
                message: f.message(),
            })
            .collect();
        if let Some(problem) = &self.verification {
            out.push(RecordAlert {
                severity: Severity::Critical,
                message: format!(
                    "The record failed verification: {problem}. Recording goes on in a new segment from the next start; the record is kept unchanged as evidence."
                ),
            });
        }
        out.extend(self.exposed.iter().map(|e| RecordAlert {
            severity: Severity::High,
            message: format!("The record is readable by others: {e}."),
        }));
        out.extend(self.journals.iter().map(|j| RecordAlert {
            severity: Severity::High,
            message: format!(
                "A checkpoint journal cannot be written ({j}); recording goes on, but that witness falls behind."
            ),
        }));
        if let Some(replication) = &self.replication {
            out.extend(replication_alerts(replication));
        }
        out.extend(self.clock.iter().map(|message| RecordAlert {
            severity: Severity::High,
            message: message.clone(),
        }));
        out
    }
}

/// Sets the host clock's alert (`None`: the clock is back); true when it changed, so the
/// record's status is sent to every screen again.
pub(crate) fn set_clock_alert(alerts: &Mutex<RecordAlerts>, alert: Option<String>) -> bool {
    let mut alerts = lock(alerts);
    let changed = alerts.clock != alert;
    alerts.clock = alert;
    changed
}

/// Replication to the central database as the desk follows it, from the replicator's reports
/// (the window sees it as a `ReplicationState`, [`Replication::view`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Replication {
    /// The central database's site and this workstation (`site/workstation`).
    pub(crate) workstation: String,
    /// Whether the last attempt reached the server.
    pub(crate) connected: bool,
    /// Why the last attempt failed, if it did (the URL's password never shown).
    pub(crate) error: Option<String>,
    /// Rows the server still lacks.
    pub(crate) rows_behind: i64,
    /// How far behind the server is, in seconds.
    pub(crate) seconds_behind: u64,
    /// The threshold past which replication is an alert, seconds.
    pub(crate) alert_after_s: u64,
    /// Rows the outbox refused to send (a record changed after replication), once each.
    pub(crate) refused: Vec<String>,
    /// A server found holding less than was delivered to it before (restored from a backup).
    pub(crate) behind: Vec<String>,
}

impl Replication {
    /// Whether it is past its threshold: an alert on every screen.
    fn alerting(&self) -> bool {
        self.seconds_behind > self.alert_after_s
    }

    /// As the window shows it.
    pub(crate) fn view(&self) -> ReplicationState {
        ReplicationState {
            workstation: self.workstation.clone(),
            connected: self.connected,
            error: self.error.clone(),
            rows_behind: self.rows_behind,
            seconds_behind: self.seconds_behind,
            alert_after_s: self.alert_after_s,
            refused: self.refused.clone(),
            behind: self.behind.clone(),
        }
    }
}

/// What replication's state says every screen must show: refused rows (critical: the record was
/// changed after it was replicated), a server found behind, and a lag past the threshold (the
/// link down, or the server that far behind).
pub(crate) fn replication_alerts(state: &Replication) -> Vec<RecordAlert> {
    let mut out: Vec<RecordAlert> = state
        .refused
        .iter()
        .map(|r| RecordAlert {
            severity: Severity::Critical,
            message: format!(
                "The central database refused a row of this record ({r}): nothing after it is replicated. The record may have been changed after it was replicated."
            ),
        })
        .collect();
    out.extend(state.behind.iter().map(|b| RecordAlert {
        severity: Severity::High,
        message: format!(
            "The central database holds less than was delivered to it before ({b}); the outbox refills it."
        ),
    }));
    if state.alerting() {
        let why = if state.connected {
            String::new()
        } else {
            format!(
                "; the link is down ({})",
                state.error.as_deref().unwrap_or("no answer")
            )
        };
        out.push(RecordAlert {
            severity: Severity::High,
            message: format!(
                "Replication to the central database is {} s behind ({} rows; alert after {} s){why}. Recording goes on here; the outbox catches up when the link returns.",
                state.seconds_behind, state.rows_behind, state.alert_after_s
            ),
        });
    }
    out
}

/// How often replication's lag is sent to the window when nothing else changed.
const REPLICATION_SHOWN_EVERY: std::time::Duration = std::time::Duration::from_secs(5);

/// Starts replicating `record` to the central database `central` names (see
/// `pitwatch_sync::Replicator`: a round every 250 ms, reconnecting with backoff), keeping its
/// state in the record's alerts and sending the record's status to the window when what it
/// shows changes. A central database that cannot be named (its URL's variable or file missing)
/// is an alert, not a reason to stop the pit.
pub(crate) fn replicate(
    record: &Record,
    central: &pitwatch_recording::pit::CentralConfig,
    updates: Sender<PitUpdate>,
) -> Result<Option<pitwatch_sync::Replicator>, ApiError> {
    let status = record.source.clone();
    let alerts = Arc::clone(&record.alerts);
    let id = pitwatch_sync::Identity {
        site: central.site.clone(),
        workstation: central.workstation.clone(),
    };
    let mut state = Replication {
        workstation: id.to_string(),
        connected: false,
        error: None,
        rows_behind: 0,
        seconds_behind: 0,
        alert_after_s: central.alert_after_s,
        refused: Vec::new(),
        behind: Vec::new(),
    };
    let url = match central.url() {
        Ok(url) => url,
        Err(problem) => {
            // Shown as a link that never comes up: past the threshold at once.
            state.error = Some(problem);
            state.seconds_behind = u64::MAX;
            lock(&alerts).replication = Some(state);
            return Ok(None);
        }
    };
    lock(&alerts).replication = Some(state.clone());
    let mut shown = std::time::Instant::now();
    let db = status.db.clone();
    pitwatch_sync::Replicator::spawn(
        url,
        db,
        pitwatch_sync::Outbox::new(id),
        std::time::Duration::from_millis(250),
        move |now: &pitwatch_sync::ReplicationStatus| {
            let before = state.clone();
            state.connected = now.connected;
            state.error.clone_from(&now.error);
            state.rows_behind = now.rows_behind();
            state.seconds_behind = now.behind().as_secs();
            if let Some(report) = now.report.as_ref().filter(|_| now.connected) {
                for refused in &report.refused {
                    if !state.refused.contains(refused) {
                        state.refused.push(refused.clone());
                    }
                }
                if report.rows_behind == 0 {
                    state.behind.clear();
                }
                for behind in &report.behind {
                    if !state.behind.contains(behind) {
                        state.behind.push(behind.clone());
                    }
                }
            }
            let changed = before.connected != state.connected
                || before.alerting() != state.alerting()
                || before.refused != state.refused
                || before.behind != state.behind;
            lock(&alerts).replication = Some(state.clone());
            if changed || (state != before && shown.elapsed() >= REPLICATION_SHOWN_EVERY) {
                shown = std::time::Instant::now();
                let _ = updates.send(PitUpdate::Record {
                    record: status.status(&lock(&alerts)),
                });
            }
        },
    )
    .map(Some)
    .map_err(|e| internal(format!("cannot start replication: {e}")))
}

/// What a verification found, and the marks to carry on from.
pub(crate) type Verified = Option<(Vec<ChainMark>, String)>;

/// Verifies the record into `verified` (see `Desk::verify`): against the installation's key
/// and witnesses, in full the first time, then only what was appended since.
pub(crate) fn verify_into(
    verified: &Mutex<Verified>,
    clock: &dyn Clock,
    installation: &Installation,
    store: &Store,
) -> Result<(bool, String), ApiError> {
    let previous = lock(verified).clone();
    let now = clock.now().to_string();
    let mut options = installation.verify_options(store, pitwatch_store::Depth::Full)?;
    let full_at = previous.as_ref().map(|(marks, at)| {
        options.marks = Some(marks.clone());
        at.clone()
    });
    let report = store.verify_with(&options)?;
    let rows = report.rows_checked();
    let signed = match &report.latest {
        Some(latest) => format!(
            "signed by this installation's key {} up to checkpoint {} ({})",
            latest.key, latest.text.id, latest.text.at
        ),
        None => "no checkpoint yet".to_owned(),
    };
    let predating = if report.predating.is_empty() {
        String::new()
    } else {
        format!(
            "; rows written before signing began ({}) are vouched for by their chains alone",
            report
                .predating
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    let (ok, detail) = match (report.intact(), &full_at) {
        (false, _) => (false, report.problems.join("; ")),
        (true, None) => (
            true,
            format!(
                "the record proves itself: every chain verified in full ({rows} rows), {signed}, \
                 no witness contradicts it, and the database's own check passed{predating}"
            ),
        ),
        (true, Some(at)) => (
            true,
            format!(
                "the record proves itself: verified in full at {at}, and the {rows} rows \
                 appended since verified now; {signed}{predating}"
            ),
        ),
    };
    if ok {
        if let Some(marks) = report.marks() {
            *lock(verified) = Some((marks, full_at.unwrap_or(now)));
        }
    } else {
        // Found once, said every time: verify in full again next time.
        *lock(verified) = None;
    }
    Ok((ok, detail))
}

/// What the record's status is read from.
#[derive(Clone)]
pub(crate) struct RecordStatusSource {
    pub(crate) installation: Installation,
    pub(crate) db: PathBuf,
}

impl RecordStatusSource {
    pub(crate) fn status(&self, alerts: &RecordAlerts) -> RecordStatus {
        let store = self.installation.open_read_only(&self.db).ok();
        let record_id = store.as_ref().and_then(|s| s.record_id().ok().flatten());
        let latest_checkpoint = store
            .as_ref()
            .and_then(|s| s.latest_checkpoint().ok().flatten())
            .map(|c| c.to_string());
        let mut journals = vec![pitwatch_store::witness::journal_beside(&self.db)];
        if let Some(record) = &record_id {
            journals.extend(
                self.installation
                    .witness_dirs
                    .iter()
                    .map(|d| pitwatch_store::witness::journal_in(d, record)),
            );
        }
        RecordStatus {
            path: self.db.display().to_string(),
            record_id,
            key_fingerprint: self.installation.fingerprint(),
            latest_checkpoint,
            journals: journals.iter().map(|j| j.display().to_string()).collect(),
            alerts: alerts.alerts(),
            replication: alerts.replication.as_ref().map(Replication::view),
        }
    }
}
