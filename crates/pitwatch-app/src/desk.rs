//! The desktop app's application state: the live pit, the logged-in user, and the commands a
//! supervisor gives, with no Tauri in sight (the shell in `src-tauri` adapts each method to a
//! command and forwards [`PitUpdate`]s to the window as events).
//!
//! Threads: [`Desk::start`] starts one simulated device per simulated table (a pseudo-terminal
//! the monitor then opens as a serial port, so the demo runs through the real transport, codec,
//! engine and store), the [`Monitor`] (a reader per device and one writer), and a *fold* thread.
//! The fold thread reads the monitor's events, which are already on record, folds them into the
//! [`PitModel`] (one [`TableTile`] per table), and sends the changed tiles at most every
//! [`FLUSH_EVERY`] so a busy pit does not flood the window; a new incident is sent at once. The
//! desk's own connection to the store (SQLite takes several) serves queries and the incident
//! workflow, each action by the logged-in user and audited by the store.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use pitwatch_model::{Card, EventKind, ExposedDuring, TableEvent, TableState, Target, Timestamp};
use pitwatch_rules::{BurnStatus, Output, RoundRecord, RuleBook, TableView};
use pitwatch_sim::{Endpoint, FaultSpec, Pace, SimConfig, SimDevice, SimFault};
use pitwatch_store::{ChainMark, IncidentFilter, IncidentId, OpenCount, Role, Status, Store};
use pitwatch_transport::{Clock, SerialConfig, SystemClock, TransportConfig};

use crate::access::{Command, Principal};
use crate::{accounts, incidents, reports};
use pitwatch_api::dto::{
    ApiError, AuditRow, ConsoleEntry, DemoLogin, ErrorCode, HistoryEntry, IncidentDetail,
    IncidentPage, IncidentQuery, IncidentRow, IncidentStatus, LinkStatus, LiveRound, PitOverview,
    PitUpdate, RecordAlert, RecordStatus, RecordingStatus, ReplayStep, RoundOutcome, RoundResult,
    RuleText, Session, Severity, SeverityCounts, ShiftQuery, ShiftReportFile, ShoePage, ShoeReplay,
    ShoeRow, ShuffleQuality, SignedOff, TableTile, TimelineEntry, UserRow, DEFAULT_PAGE,
};
use pitwatch_api::monitor::{LinkState, Monitor, MonitorEvent, MonitorOptions, MonitoredTable};
use pitwatch_api::pit::{LinkConfig, PitConfig};
use pitwatch_api::record::{Installation, SegmentFailure};
use pitwatch_api::recorder::Derived;

/// The demo supervisor's name, created in the demo pit's database.
pub const DEMO_USER: &str = "demo";
/// The demo pit's database file in the app's data folder (see [`DeskOptions::from_env`]).
pub const DEMO_DB: &str = "demo.db";
/// The meta key that marks a record as the demo pit's (`"1"`): the demo runs only on such a
/// record (or a new one), and a real pit never on one.
pub const DEMO_MARK: &str = "demo";
/// The demo supervisor's password (shown on the login screen of the demo pit only).
pub const DEMO_PASSWORD: &str = "pitwatch-demo";
/// How often changed tables are sent to the window, at most. 20 ms keeps a frame's way to the
/// screen inside 100 ms even with 50 tables at ten times a dealer's pace (docs/benchmarks.md,
/// "Desktop latency"); the shell sends each flush's tiles as one event, so a busy pit costs the
/// window at most 50 script evaluations a second.
pub const FLUSH_EVERY: Duration = Duration::from_millis(20);
/// Rounds between the demo's injected irregularities, per table (the first simulated table also
/// gets one in its third round, so the workflow shows early).
pub const DEMO_FAULT_EVERY: u32 = 30;

/// How to start the desk.
#[derive(Debug, Clone)]
pub struct DeskOptions {
    /// The pit to watch; simulated tables get a simulated device each.
    pub pit: PitConfig,
    /// The database to record into (created if missing).
    pub db: PathBuf,
    /// How fast the simulated dealers deal.
    pub pace: Pace,
    /// Rounds between injected irregularities at each simulated table.
    pub fault_every: u32,
    /// The installation: its signing key and witness folders.
    pub installation: Installation,
    /// Seconds without input after which the window locks (0: never).
    pub idle_lock_seconds: u32,
}

impl DeskOptions {
    /// The demo pit at a dealer's pace, recording into `db`, signed with a key kept beside it
    /// (`signing.key`; [`DeskOptions::from_env`] uses the installation's key instead).
    pub fn demo(db: PathBuf) -> DeskOptions {
        let installation = Installation::with_key(db.with_file_name("signing.key"));
        DeskOptions {
            pit: PitConfig::demo(),
            db,
            pace: Pace::RealTime,
            fault_every: DEMO_FAULT_EVERY,
            installation,
            idle_lock_seconds: pitwatch_api::dto::DEFAULT_IDLE_LOCK_SECONDS,
        }
    }
}

impl DeskOptions {
    /// What to run: `PITWATCH_CONFIG` or `arg` names a pit definition (TOML, as for
    /// `pitwatch monitor`; else the demo pit), `PITWATCH_DB` a real pit's database (else
    /// `pitwatch.db` in `data_dir`), `PITWATCH_DEMO_DB` the demo pit's (else [`DEMO_DB`] in
    /// `data_dir`; the demo never records into `PITWATCH_DB`), `PITWATCH_DEMO_PACE` the simulated
    /// dealers' pace (`real`, `fast`, `10x`), `PITWATCH_DEMO_FAULT_EVERY` the rounds between
    /// injected irregularities (0: none) and
    /// `PITWATCH_IDLE_LOCK_SECONDS` how long the window may be left alone before it locks
    /// (default ten minutes; 0: never).
    /// `env` looks a variable up.
    pub fn from_env(
        env: impl Fn(&str) -> Option<String>,
        arg: Option<PathBuf>,
        data_dir: &std::path::Path,
    ) -> Result<DeskOptions, ApiError> {
        let invalid = |m: String| ApiError::new(ErrorCode::InvalidInput, m);
        let config = env("PITWATCH_CONFIG").map(PathBuf::from).or(arg);
        let pit = match config {
            Some(path) => {
                let text = std::fs::read_to_string(&path)
                    .map_err(|e| invalid(format!("cannot read {}: {e}", path.display())))?;
                PitConfig::from_toml(&text)
                    .map_err(|e| invalid(format!("{}: {e}", path.display())))?
            }
            None => PitConfig::demo(),
        };
        // The demo pit records into a database of its own, never the one PITWATCH_DB names for
        // a real pit: its rounds are simulated and its supervisor's password is on the screen.
        let db = if pit.demo {
            env("PITWATCH_DEMO_DB")
                .filter(|d| !d.trim().is_empty())
                .map_or_else(|| data_dir.join(DEMO_DB), PathBuf::from)
        } else {
            env("PITWATCH_DB")
                .filter(|d| !d.trim().is_empty())
                .map_or_else(|| data_dir.join("pitwatch.db"), PathBuf::from)
        };
        let installation = Installation {
            key: env("PITWATCH_KEY")
                .filter(|k| !k.is_empty())
                .map_or_else(pitwatch_api::record::default_key_path, PathBuf::from),
            witness_dirs: pit.record.witness.clone(),
        };
        let mut options = DeskOptions {
            pit,
            installation,
            ..DeskOptions::demo(db)
        };
        if let Some(pace) = env("PITWATCH_DEMO_PACE") {
            options.pace = parse_pace(&pace)?;
        }
        if let Some(seconds) = env("PITWATCH_IDLE_LOCK_SECONDS") {
            options.idle_lock_seconds = seconds.trim().parse().map_err(|_| {
                invalid(format!(
                    "PITWATCH_IDLE_LOCK_SECONDS={seconds:?} is not a number of seconds"
                ))
            })?;
        }
        if let Some(every) = env("PITWATCH_DEMO_FAULT_EVERY") {
            options.fault_every = every.trim().parse().map_err(|_| {
                invalid(format!(
                    "PITWATCH_DEMO_FAULT_EVERY={every:?} is not a number of rounds"
                ))
            })?;
        }
        Ok(options)
    }
}

/// Reads a pace: `real`, `fast`, or a speed-up like `10x`.
pub fn parse_pace(text: &str) -> Result<Pace, ApiError> {
    let text = text.trim().to_ascii_lowercase();
    let bad = || {
        ApiError::new(
            ErrorCode::InvalidInput,
            format!("{text:?} is not a pace (real, fast, or a speed-up like 10x)"),
        )
    };
    match text.as_str() {
        "real" | "1x" => Ok(Pace::RealTime),
        "fast" => Ok(Pace::Fast),
        other => {
            let factor: f64 = other
                .strip_suffix('x')
                .ok_or_else(bad)?
                .parse()
                .map_err(|_| bad())?;
            if factor.is_finite() && factor > 0.0 {
                Ok(Pace::Times(factor))
            } else {
                Err(bad())
            }
        }
    }
}

/// The live pit: one tile per table, from the monitor's events. The shoe state on a tile (the
/// shoe, the round being dealt, cards dealt and left, the burn, the cutting card) is the table's
/// engine's own view, published by the monitor after each recorded input; the desk folds only
/// what the engine does not keep: the link, frame counts, the shoe's completed rounds (the roads)
/// and the incident counts.
#[derive(Debug, Clone)]
pub struct PitModel {
    tables: Vec<TableTile>,
    index: HashMap<String, usize>,
    /// Per table, the device errors its device has raised and not cleared, oldest first, as
    /// (code, what the tile says of it).
    device_errors: Vec<Vec<(String, String)>>,
    /// Per table, device errors the engine has open that this model never saw raised (raised
    /// before a restart: the engine carries them, their texts are in the record only).
    carried_errors: Vec<u32>,
}

impl PitModel {
    /// Tiles for every table of `pit`, nothing live yet.
    pub fn new(pit: &PitConfig) -> PitModel {
        let tables: Vec<TableTile> = pit.tables.iter().map(TableTile::from).collect();
        let index = tables
            .iter()
            .enumerate()
            .map(|(i, t)| (t.name.clone(), i))
            .collect();
        let device_errors = vec![Vec::new(); tables.len()];
        let carried_errors = vec![0; tables.len()];
        PitModel {
            tables,
            index,
            device_errors,
            carried_errors,
        }
    }

    /// The tiles, in the pit definition's order.
    pub fn tables(&self) -> &[TableTile] {
        &self.tables
    }

    /// The tile of `name`.
    pub fn table(&self, name: &str) -> Option<&TableTile> {
        self.index.get(name).map(|&i| &self.tables[i])
    }

    /// A copy of `name`'s tile to send to the window; the tile's events count as sent from now
    /// on (see [`TableTile::oldest_unsent_at_ms`]).
    pub fn take_unsent(&mut self, name: &str) -> Option<TableTile> {
        let tile = self.tables.get_mut(*self.index.get(name)?)?;
        let copy = tile.clone();
        tile.oldest_unsent_at_ms = None;
        Some(copy)
    }

    /// Sets every table's unresolved-incident counts (open or acknowledged, by severity) from
    /// the store's counts; a table the pit does not have is left out.
    pub fn set_incident_counts(&mut self, counts: &[OpenCount]) {
        for tile in &mut self.tables {
            tile.incidents = SeverityCounts::default();
        }
        for count in counts {
            if let Some(&i) = self.index.get(&count.table) {
                let n = u32::try_from(count.count).unwrap_or(u32::MAX);
                let tile = &mut self.tables[i].incidents;
                match Severity::parse(&count.severity) {
                    Severity::Critical => tile.critical = tile.critical.saturating_add(n),
                    Severity::High => tile.high = tile.high.saturating_add(n),
                    Severity::Medium => tile.medium = tile.medium.saturating_add(n),
                    Severity::Low => tile.low = tile.low.saturating_add(n),
                }
            }
        }
    }

    /// Folds one monitor event in, at `now`. Returns the table it changed (if any) and the
    /// incident it raised (if any).
    pub fn apply(
        &mut self,
        event: &MonitorEvent,
        now: Timestamp,
    ) -> (Option<String>, Option<IncidentRow>) {
        let (table, changed) = match event {
            MonitorEvent::Link {
                table,
                state,
                detail,
                ..
            } => {
                let Some(&i) = self.index.get(table) else {
                    return (None, None);
                };
                let tile = &mut self.tables[i];
                tile.status = match state {
                    LinkState::Connected => LinkStatus::Connected,
                    LinkState::Disconnected | LinkState::Retrying => LinkStatus::Reconnecting,
                };
                tile.status_detail = detail.clone();
                // A link back while the device still has an error open: the error shows again.
                show_device_errors(tile, &self.device_errors[i], self.carried_errors[i]);
                (table, None)
            }
            // Recording's state and the journals' are the whole pit's (the desk passes them on
            // as they come).
            MonitorEvent::Witness(_) | MonitorEvent::Recording(_) | MonitorEvent::Missed { .. } => {
                return (None, None)
            }
            MonitorEvent::Failed { table, message } => {
                let Some(table) = table else {
                    return (None, None);
                };
                let Some(tile) = self.tile_mut(table) else {
                    return (None, None);
                };
                tile.status = LinkStatus::Error;
                tile.status_detail = message.clone();
                (table, None)
            }
            MonitorEvent::Derived { table, derived } => {
                let Some(&i) = self.index.get(table) else {
                    return (None, None);
                };
                let tile = &mut self.tables[i];
                let raised = fold_derived(tile, derived, now);
                let open = &mut self.device_errors[i];
                if let Derived::Event(event) = derived {
                    match &event.kind {
                        EventKind::DeviceError { code, text }
                            if !open.iter().any(|(c, _)| c == code) =>
                        {
                            open.push((code.clone(), device_error_detail(code, text)));
                        }
                        EventKind::DeviceErrorCleared { code } => open.retain(|(c, _)| c != code),
                        _ => {}
                    }
                }
                // Clearing one of two errors leaves the tile in error with the other.
                show_device_errors(tile, open, self.carried_errors[i]);
                (table, raised)
            }
            MonitorEvent::View { table, view } => {
                let Some(&i) = self.index.get(table) else {
                    return (None, None);
                };
                let tile = &mut self.tables[i];
                show_view(tile, view);
                let known = u32::try_from(self.device_errors[i].len()).unwrap_or(u32::MAX);
                let carried = view.open_device_errors.saturating_sub(known);
                if carried == 0 && self.carried_errors[i] > 0 && self.device_errors[i].is_empty() {
                    // The last error from before the restart was cleared.
                    if tile.status == LinkStatus::Error {
                        tile.status = LinkStatus::Connected;
                        tile.status_detail.clear();
                    }
                }
                self.carried_errors[i] = carried;
                show_device_errors(tile, &self.device_errors[i], carried);
                (table, None)
            }
        };
        (Some(table.clone()), changed)
    }

    /// Sets `name`'s last finished shoe's shuffle quality (from the record at start-up).
    pub fn set_last_shuffle(
        &mut self,
        name: &str,
        shuffle: Option<&pitwatch_shuffle::ShoeShuffle>,
    ) {
        if let Some(tile) = self.tile_mut(name) {
            tile.last_shuffle = shuffle.map(ShuffleQuality::from);
        }
    }

    fn tile_mut(&mut self, name: &str) -> Option<&mut TableTile> {
        self.index.get(name).map(|&i| &mut self.tables[i])
    }
}

/// Puts the engine's view of the table on its tile.
fn show_view(tile: &mut TableTile, view: &TableView) {
    if view.shoe != tile.shoe {
        // The roads are one shoe's: another shoe starts them afresh.
        tile.rounds.retain(|r| r.shoe == view.shoe);
    }
    tile.shoe = view.shoe;
    tile.cards_dealt = view.cards_dealt;
    tile.cards_left = view.cards_left;
    tile.burn_due = view.burn.status != BurnStatus::NotExpected;
    tile.burn_done = view.burn.done();
    tile.cutting_card_out = view.cutting_card_out;
    tile.current = match (&view.round, &view.last_round) {
        (Some(round), _) => LiveRound {
            round: round.number,
            player: cards(&round.player),
            banker: cards(&round.banker),
            result: None,
        },
        (None, Some(record)) if record.shoe == view.shoe => {
            let result = round_result(record);
            LiveRound {
                round: record.round,
                player: result.player.clone(),
                banker: result.banker.clone(),
                result: Some(result),
            }
        }
        (None, _) => LiveRound::default(),
    };
}

fn fold_derived(tile: &mut TableTile, derived: &Derived, now: Timestamp) -> Option<IncidentRow> {
    match derived {
        Derived::Frame { accepted, .. } => {
            if *accepted {
                tile.frames_accepted += 1;
            } else {
                tile.frames_rejected += 1;
            }
            tile.last_frame_ms = Some(now.unix_millis());
            None
        }
        Derived::Event(event) => {
            if let Some(at) = event.at {
                tile.last_event_at_ms = Some(at.unix_millis());
                tile.oldest_unsent_at_ms.get_or_insert(at.unix_millis());
            }
            fold_event(tile, event);
            None
        }
        Derived::Output { output, incident } => match output {
            Output::Round(record) => {
                // The roads are one shoe's: a round of another shoe starts them afresh.
                tile.rounds
                    .retain(|r| r.shoe == record.shoe && r.round != record.round);
                tile.rounds.push(round_result(record));
                None
            }
            Output::Irregularity(irregularity) => {
                let id = (*incident)?;
                let severity = Severity::parse(irregularity.severity.name());
                tile.incidents.add(severity);
                Some(IncidentRow {
                    id: id.0,
                    table: tile.name.clone(),
                    code: irregularity.code.as_str().to_owned(),
                    severity,
                    rule: irregularity.rule.clone(),
                    shoe: Some(irregularity.shoe),
                    round: irregularity.round,
                    seq: irregularity.seq,
                    message: irregularity.message.clone(),
                    opened_at: now.to_string(),
                    status: IncidentStatus::Open,
                })
            }
            Output::DeviceErrorCleared(_) => {
                if tile.status == LinkStatus::Error {
                    tile.status = LinkStatus::Connected;
                }
                None
            }
            Output::Shoe(_) => None,
        },
        Derived::Shuffle(shuffle) => {
            tile.last_shuffle = Some(ShuffleQuality::from(shuffle));
            None
        }
        // Counted on an incident already raised: no new alert.
        Derived::Repeated { .. } => None,
        Derived::Gap { bytes, incident } => {
            let id = (*incident)?;
            tile.incidents.add(Severity::Critical);
            Some(IncidentRow {
                id: id.0,
                table: tile.name.clone(),
                code: pitwatch_api::recorder::RECORDING_GAP.to_owned(),
                severity: Severity::Critical,
                rule: "recording (no Gazette rule)".to_owned(),
                shoe: None,
                round: None,
                seq: 0,
                message: format!(
                    "{bytes} bytes from this table's device could not be recorded (the spool was full)"
                ),
                opened_at: now.to_string(),
                status: IncidentStatus::Open,
            })
        }
    }
}

/// The device's own reports about itself: an error shows on the tile until it clears.
fn fold_event(tile: &mut TableTile, event: &TableEvent) {
    match &event.kind {
        EventKind::DeviceError { code, text } => {
            tile.status = LinkStatus::Error;
            tile.status_detail = device_error_detail(code, text);
        }
        EventKind::DeviceErrorCleared { code } if tile.status == LinkStatus::Error => {
            tile.status = LinkStatus::Connected;
            tile.status_detail = format!("device error {code} cleared");
        }
        _ => {}
    }
}

/// Puts the device errors still open on a tile whose link is up: the latest first, then those
/// raised before a restart (`carried`, known by number only).
fn show_device_errors(tile: &mut TableTile, open: &[(String, String)], carried: u32) {
    if (open.is_empty() && carried == 0) || tile.status == LinkStatus::Reconnecting {
        return;
    }
    tile.status = LinkStatus::Error;
    let mut details: Vec<String> = open.iter().rev().map(|(_, d)| d.clone()).collect();
    match carried {
        0 => {}
        1 => details.push("a device error raised before the restart is not cleared yet".into()),
        n => details.push(format!(
            "{n} device errors raised before the restart are not cleared yet"
        )),
    }
    tile.status_detail = details.join("; ");
}

/// A device error for people at the pit: what the device says first, then its own code (the
/// code alone when the device sends no text).
fn device_error_detail(code: &str, text: &str) -> String {
    match text.trim() {
        "" => format!("device error {code}"),
        text => format!("{text} (device error {code})"),
    }
}

fn cards(hand: &pitwatch_rules::Hand) -> Vec<Option<String>> {
    hand.cards()
        .iter()
        .map(|c| c.map(|c| c.to_string()))
        .collect()
}

fn outcome(outcome: pitwatch_model::Outcome) -> RoundOutcome {
    match outcome {
        pitwatch_model::Outcome::Player => RoundOutcome::Player,
        pitwatch_model::Outcome::Banker => RoundOutcome::Banker,
        pitwatch_model::Outcome::Tie => RoundOutcome::Tie,
        pitwatch_model::Outcome::Void => RoundOutcome::Void,
    }
}

/// A round record as the window shows it.
pub fn round_result(record: &RoundRecord) -> RoundResult {
    RoundResult {
        shoe: record.shoe,
        round: record.round,
        player: cards(&record.player),
        banker: cards(&record.banker),
        player_total: record.player_total,
        banker_total: record.banker_total,
        outcome: record.outcome.map(outcome),
        player_pair: record.player_pair.unwrap_or(false),
        banker_pair: record.banker_pair.unwrap_or(false),
        first_seq: record.first_seq,
        last_seq: record.last_seq,
    }
}

/// An event in words, for timelines.
pub fn describe(kind: &EventKind) -> String {
    let card =
        |c: &Option<Card>| c.map_or_else(|| "an unreadable card".to_owned(), |c| c.to_string());
    match kind {
        EventKind::Shuffled { cards, .. } => match cards {
            Some(n) => format!("Shoe shuffled ({n} cards)"),
            None => "Shoe shuffled".to_owned(),
        },
        EventKind::Cut { position } => format!("Cut at card {position}"),
        EventKind::CuttingCardPlaced { from_back } => {
            format!("Cutting card placed {from_back} cards from the back")
        }
        EventKind::CardDrawn {
            card: c, target, ..
        } => {
            let to = match target {
                Some(Target::Player) => " to Player".to_owned(),
                Some(Target::Banker) => " to Banker".to_owned(),
                Some(Target::Burn) => " burned".to_owned(),
                Some(Target::First) => " (first card, sets the burn)".to_owned(),
                Some(other) => format!(" to {other:?}"),
                None => String::new(),
            };
            format!("Card {}{to}", card(c))
        }
        EventKind::CuttingCardDrawn => {
            "Cutting card came out: the next round is the last coup".into()
        }
        EventKind::BurnCounted { count } => format!("Burn counted: {count} cards"),
        EventKind::ResultDeclared { outcome, .. } => {
            format!("Result declared: {}", outcome.as_str())
        }
        EventKind::CardExposed { card: c, during } => {
            format!("Card {} exposed during {}", card(c), during.as_str())
        }
        EventKind::DeviceError { code, text } => format!("Device error {code}: {text}"),
        EventKind::DeviceErrorCleared { code } => format!("Device error {code} cleared"),
        EventKind::LockChanged { locked } => {
            if *locked {
                "Shoe locked".into()
            } else {
                "Shoe unlocked".into()
            }
        }
        EventKind::TableStateChanged { state } => format!("Table {}", state.as_str()),
        EventKind::CardsReplaced => "Cards replaced".into(),
        #[allow(unreachable_patterns, reason = "the event vocabulary may grow")]
        other => format!("{other:?}"),
    }
}

fn status_dto(status: Status) -> IncidentStatus {
    match status {
        Status::Open => IncidentStatus::Open,
        Status::Acknowledged => IncidentStatus::Acknowledged,
        Status::Resolved => IncidentStatus::Resolved,
    }
}

fn status_store(status: IncidentStatus) -> Status {
    match status {
        IncidentStatus::Open => Status::Open,
        IncidentStatus::Acknowledged => Status::Acknowledged,
        IncidentStatus::Resolved => Status::Resolved,
    }
}

fn incident_row(incident: &pitwatch_store::Incident) -> IncidentRow {
    IncidentRow {
        id: incident.id.0,
        table: incident.table.clone(),
        code: incident.code.clone(),
        severity: Severity::parse(&incident.severity),
        rule: incident.rule.clone(),
        shoe: incident.shoe,
        round: incident.round,
        seq: incident.seq,
        message: incident.message.clone(),
        opened_at: incident.opened_at.clone(),
        status: status_dto(incident.status),
    }
}

/// A round as stored (`RoundRecord` as JSON), read back tolerantly.
fn stored_round(body: &str) -> Option<RoundResult> {
    let v: serde_json::Value = serde_json::from_str(body).ok()?;
    let hand = |key: &str| -> Vec<Option<String>> {
        v.get(key)
            .and_then(|h| h.as_array())
            .map(|cards| {
                cards
                    .iter()
                    .map(|c| c.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    };
    let total = |key: &str| v.get(key).and_then(|t| t.as_u64()).map(|t| t as u8);
    let outcome = match v.get("outcome").and_then(|o| o.as_str()) {
        Some("player") => Some(RoundOutcome::Player),
        Some("banker") => Some(RoundOutcome::Banker),
        Some("tie") => Some(RoundOutcome::Tie),
        Some("void") => Some(RoundOutcome::Void),
        _ => None,
    };
    let num = |key: &str| v.get(key).and_then(|n| n.as_u64()).unwrap_or(0);
    Some(RoundResult {
        shoe: num("shoe") as u32,
        round: num("round") as u32,
        player: hand("player"),
        banker: hand("banker"),
        player_total: total("player_total"),
        banker_total: total("banker_total"),
        outcome,
        player_pair: v
            .get("player_pair")
            .and_then(|p| p.as_bool())
            .unwrap_or(false),
        banker_pair: v
            .get("banker_pair")
            .and_then(|p| p.as_bool())
            .unwrap_or(false),
        first_seq: num("first_seq"),
        last_seq: num("last_seq"),
    })
}

/// Frame bytes for people: printable ASCII as is, anything else as `<hex>`.
pub fn printable(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for &b in bytes {
        if (0x20..0x7f).contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("<{b:02X}>"));
        }
    }
    out
}

/// The running desktop state.
pub struct Desk {
    pit: PitConfig,
    /// Seconds without input after which the window locks (0: never).
    idle_lock_seconds: u32,
    db: PathBuf,
    model: Arc<Mutex<PitModel>>,
    store: Mutex<Store>,
    session: Mutex<Option<Principal>>,
    /// This workstation's name, in every audit row of a login or a refusal.
    workstation: String,
    monitor: Mutex<Option<Monitor>>,
    sims: Mutex<Vec<SimDevice>>,
    fold: Mutex<Option<JoinHandle<()>>>,
    updates: Mutex<Sender<PitUpdate>>,
    clock: Arc<dyn Clock>,
    /// How far each chain was verified (and when it was verified in full), so a replay verifies
    /// only what was appended since. A thread started with the desk verifies in full at once, so
    /// even the first replay of a long record does not wait for it.
    verified: Arc<Mutex<Verified>>,
    /// The installation: its key, which verification trusts, and its witnesses.
    installation: Installation,
    /// What is wrong with the record, shown on every screen (see [`RecordAlerts`]).
    alerts: Arc<Mutex<RecordAlerts>>,
}

/// What is wrong with the record: segments that failed verification at start-up, a failure the
/// full verification found since, and journals that cannot be written.
#[derive(Debug, Clone, Default)]
struct RecordAlerts {
    segments: Vec<SegmentFailure>,
    verification: Option<String>,
    journals: Vec<String>,
}

impl RecordAlerts {
    fn alerts(&self) -> Vec<RecordAlert> {
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
        out.extend(self.journals.iter().map(|j| RecordAlert {
            severity: Severity::High,
            message: format!(
                "A checkpoint journal cannot be written ({j}); recording goes on, but that witness falls behind."
            ),
        }));
        out
    }
}

/// What a verification found, and the marks to carry on from.
type Verified = Option<(Vec<ChainMark>, String)>;

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic in another thread must not take the desk down with it: the data is still usable.
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The demo pit runs only on a record that is the demo's (marked [`DEMO_MARK`]) or new, and a
/// real pit never on the demo's: simulated rounds and a supervisor whose password is on the
/// screen must not enter a real record, whatever a configuration or `PITWATCH_DB` says.
fn keep_the_demo_apart(
    store: &mut Store,
    demo: bool,
    db: &std::path::Path,
    now: Timestamp,
) -> Result<(), ApiError> {
    let marked = store.meta(DEMO_MARK)?.as_deref() == Some("1");
    let refuse = |m: String| ApiError::new(ErrorCode::Conflict, m);
    if demo && !marked {
        let used = !store.users()?.is_empty() || !store.tables()?.is_empty();
        if used {
            return Err(refuse(format!(
                "{} is a real pit's record; the demo pit records only into a database of its own (PITWATCH_DEMO_DB)",
                db.display()
            )));
        }
        store.set_meta(DEMO_MARK, "1", now)?;
    } else if !demo && marked {
        return Err(refuse(format!(
            "{} is the demo pit's record; a real pit needs a database of its own (PITWATCH_DB)",
            db.display()
        )));
    }
    Ok(())
}

/// The session as the window sees it.
fn session_dto(principal: &Principal) -> Session {
    Session {
        user: principal.user.clone(),
        role: principal.role.as_str().to_owned(),
    }
}

fn internal(message: impl Into<String>) -> ApiError {
    ApiError::new(ErrorCode::Internal, message)
}

impl Desk {
    /// Opens the database, starts a simulated device for each simulated table, the monitor and
    /// the fold thread. Live changes arrive on the returned receiver.
    pub fn start(options: DeskOptions) -> Result<(Desk, Receiver<PitUpdate>), ApiError> {
        let clock: Arc<dyn Clock> = Arc::new(SystemClock);
        let now = clock.now();
        if let Some(dir) = options.db.parent() {
            if !dir.as_os_str().is_empty() {
                std::fs::create_dir_all(dir)
                    .map_err(|e| internal(format!("cannot create {}: {e}", dir.display())))?;
            }
        }
        // The record is verified quickly before anything is appended to it; one that fails is
        // kept as it is and recording goes on in a new segment (see pitwatch_api::record).
        let opened = pitwatch_api::record::open_for_recording(&options.installation, &options.db)?;
        let db = opened.path.clone();
        let mut store = opened.store;
        let alerts = Arc::new(Mutex::new(RecordAlerts {
            segments: opened.failures,
            ..RecordAlerts::default()
        }));
        keep_the_demo_apart(&mut store, options.pit.demo, &db, now)?;
        if options.pit.demo && !store.user_exists(DEMO_USER)? {
            store.add_user(DEMO_USER, DEMO_USER, Role::Supervisor, DEMO_PASSWORD, now)?;
        }
        let mut sims = Vec::new();
        let mut tables = Vec::new();
        for (index, table) in options.pit.tables.iter().enumerate() {
            let link = if table.simulated {
                let rules = table.rule_book().map_err(|e| {
                    ApiError::new(
                        ErrorCode::InvalidInput,
                        format!("table {}: {e}", table.name),
                    )
                })?;
                let protocol = table.device.name();
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
                let seed = (now.unix_millis() as u64).wrapping_add(index as u64 * 7919);
                let mut config = SimConfig::new(table.device, rules);
                config.seed = seed;
                config.pace = options.pace;
                config.shoes = None;
                config.endpoint = Endpoint::Pty;
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
                LinkConfig::new(TransportConfig::Serial(SerialConfig::new(path, 9600)))
            } else {
                match &table.link {
                    Some(link) => link.clone(),
                    None => {
                        return Err(ApiError::new(
                            ErrorCode::InvalidInput,
                            format!("table {} has no link and is not simulated", table.name),
                        ))
                    }
                }
            };
            tables.push(MonitoredTable {
                config: table.clone(),
                link,
            });
        }
        let mut model = PitModel::new(&options.pit);
        model.set_incident_counts(&store.open_counts()?);
        // Each table's last finished shoe's shuffle, from the record, until the next one ends.
        for table in &options.pit.tables {
            let Some(id) = store.table_id(&table.name)? else {
                continue;
            };
            let Some(last) = store.last_shoe(id)? else {
                continue;
            };
            if last > 1 {
                let judged =
                    pitwatch_api::shuffle::recorded_shoe_shuffles(&store, id, &[last - 1])?;
                model.set_last_shuffle(&table.name, judged.first());
            }
        }
        let monitor_store = options.installation.open(&db)?;
        let monitor_options = MonitorOptions {
            holder: "Pitwatch desktop".into(),
            // A window closed a moment ago may still be giving its tables up.
            lease_wait: std::time::Duration::from_secs(10),
            ..MonitorOptions::default()
        };
        let (monitor, events) =
            Monitor::start_with(monitor_store, tables, clock.clone(), monitor_options)?;
        let model = Arc::new(Mutex::new(model));
        let (updates, received) = mpsc::channel();
        let fold = {
            let alerts = Arc::clone(&alerts);
            let status = RecordStatusSource {
                installation: options.installation.clone(),
                db: db.clone(),
            };
            let model = Arc::clone(&model);
            let updates = updates.clone();
            let clock = Arc::clone(&clock);
            std::thread::Builder::new()
                .name("pitwatch-fold".into())
                .spawn(move || {
                    fold_loop(events, &model, &updates, clock.as_ref(), &alerts, &status)
                })
                .map_err(|e| internal(format!("cannot start the fold thread: {e}")))?
        };
        // The record is verified in full in the background while the pit runs; a replay then
        // only checks what was appended since. A failure is a critical alert on every screen,
        // and marks the segment so that the next start records into a new one.
        let verified: Arc<Mutex<Verified>> = Arc::new(Mutex::new(None));
        {
            let verified = Arc::clone(&verified);
            let clock = Arc::clone(&clock);
            let db = db.clone();
            let installation = options.installation.clone();
            let alerts = Arc::clone(&alerts);
            let updates = updates.clone();
            std::thread::Builder::new()
                .name("pitwatch-verify".into())
                .spawn(move || {
                    let outcome = installation
                        .open_read_only(&db)
                        .map_err(ApiError::from)
                        .and_then(|store| {
                            verify_into(&verified, clock.as_ref(), &installation, &store)
                        });
                    if let Ok((false, problem)) = outcome {
                        pitwatch_api::record::mark_failed(&db, &problem);
                        lock(&alerts).verification = Some(problem);
                        let status = RecordStatusSource { installation, db };
                        let _ = updates.send(PitUpdate::Record {
                            record: status.status(&lock(&alerts)),
                        });
                    }
                })
                .map_err(|e| internal(format!("cannot start the verification thread: {e}")))?;
        }
        Ok((
            Desk {
                pit: options.pit,
                idle_lock_seconds: options.idle_lock_seconds,
                db,
                installation: options.installation,
                alerts,
                model,
                store: Mutex::new(store),
                session: Mutex::new(None),
                workstation: crate::access::workstation(),
                monitor: Mutex::new(Some(monitor)),
                sims: Mutex::new(sims),
                fold: Mutex::new(Some(fold)),
                updates: Mutex::new(updates),
                clock,
                verified,
            },
            received,
        ))
    }

    /// The pit now: every tile, the session, and (demo only) the demo login.
    pub fn overview(&self) -> PitOverview {
        PitOverview {
            site: self.pit.site.name.clone(),
            demo: self.pit.demo,
            demo_login: self.pit.demo.then(|| DemoLogin {
                user: DEMO_USER.to_owned(),
                password: DEMO_PASSWORD.to_owned(),
            }),
            session: lock(&self.session).as_ref().map(session_dto),
            tables: lock(&self.model).tables().to_vec(),
            record: self.record_status(),
            idle_lock_seconds: self.idle_lock_seconds,
        }
    }

    /// The record: where it is, its id, the installation key's fingerprint, the latest
    /// checkpoint, and what is wrong with it.
    pub fn record_status(&self) -> RecordStatus {
        RecordStatusSource {
            installation: self.installation.clone(),
            db: self.db.clone(),
        }
        .status(&lock(&self.alerts))
    }

    /// The database in use.
    pub fn db(&self) -> &std::path::Path {
        &self.db
    }

    /// Logs `user` in at this workstation (audited; failures audited and throttled, see
    /// [`accounts::login`]). Whoever was logged in before is logged out first (switching
    /// supervisor at a shift change).
    pub fn login(&self, user: &str, password: &str) -> Result<Session, ApiError> {
        let now = self.clock.now();
        let principal = {
            let mut store = lock(&self.store);
            accounts::login(&mut store, user, password, &self.workstation, now)?
        };
        let previous = lock(&self.session).replace(principal.clone());
        if let Some(previous) = previous.filter(|p| p.user != principal.user) {
            accounts::logout(&mut lock(&self.store), &previous, now)?;
        }
        Ok(session_dto(&principal))
    }

    /// Logs the current user out (audited).
    pub fn logout(&self) -> Result<(), ApiError> {
        let session = lock(&self.session).take();
        if let Some(session) = session {
            accounts::logout(&mut lock(&self.store), &session, self.clock.now())?;
        }
        Ok(())
    }

    /// Adds a user with `role` (`supervisor`, `surveillance` or `admin`) and `password`. Only a
    /// logged-in admin may; audited with the admin as the actor (`user.add`).
    pub fn add_user(&self, name: &str, role: &str, password: &str) -> Result<UserRow, ApiError> {
        let who = self.principal()?;
        let role = accounts::parse_role(role)?;
        accounts::add_user(
            &mut lock(&self.store),
            &who,
            name,
            role,
            password,
            self.clock.now(),
        )
    }

    /// Every user of this pit's database (name, role, when added, whether active), by name;
    /// never a password hash. Only a logged-in admin may list them.
    pub fn users(&self) -> Result<Vec<UserRow>, ApiError> {
        let who = self.principal()?;
        accounts::users(&mut lock(&self.store), &who, self.clock.now())
    }

    /// The newest `limit` rows of the audit log (only those about logins and refusals when
    /// `access_only`), newest first; administrators and surveillance only.
    pub fn audit(&self, access_only: bool, limit: u32) -> Result<Vec<AuditRow>, ApiError> {
        let who = self.principal()?;
        let actions: &[&str] = if access_only {
            &accounts::ACCESS_ACTIONS
        } else {
            &[]
        };
        accounts::audit_log(
            &mut lock(&self.store),
            &who,
            actions,
            limit,
            self.clock.now(),
        )
    }

    /// Whether this is a first run: a real pit (not the demo) whose record has no users at all,
    /// so nobody could log in. The window then asks for the first administrator.
    pub fn needs_first_admin(&self) -> Result<bool, ApiError> {
        Ok(!self.pit.demo && accounts::needs_first_admin(&lock(&self.store))?)
    }

    /// Creates the first administrator of a real pit whose record has no users, and logs them in
    /// (see [`accounts::create_first_admin`]: atomic, refused once any user exists). Refused on
    /// the demo pit.
    pub fn create_first_admin(&self, name: &str, password: &str) -> Result<Session, ApiError> {
        if self.pit.demo {
            return Err(ApiError::new(
                ErrorCode::Conflict,
                "the demo pit has its own supervisor; no first administrator is needed",
            ));
        }
        let principal = accounts::create_first_admin(
            &mut lock(&self.store),
            name,
            password,
            &self.workstation,
            self.clock.now(),
        )?;
        *lock(&self.session) = Some(principal.clone());
        Ok(session_dto(&principal))
    }

    /// Who is logged in, or `unauthorised`.
    fn principal(&self) -> Result<Principal, ApiError> {
        lock(&self.session)
            .clone()
            .ok_or_else(|| ApiError::new(ErrorCode::Unauthorised, "log in first"))
    }

    /// One page of the incidents matching `query`, newest first, with the cursor for the next
    /// page and how many match in all. Filters and the page are applied by the store, with its
    /// indexes, so a page costs the same however long the record is.
    pub fn incidents(&self, query: &IncidentQuery) -> Result<IncidentPage, ApiError> {
        let invalid = |m: String| ApiError::new(ErrorCode::InvalidInput, m);
        let time = |field: &str, text: &Option<String>| -> Result<Option<Timestamp>, ApiError> {
            match text.as_deref().map(str::trim) {
                None | Some("") => Ok(None),
                Some(t) => t
                    .parse::<Timestamp>()
                    .map(Some)
                    .map_err(|e| invalid(format!("{field}: {e}"))),
            }
        };
        let nonempty = |text: &Option<String>| {
            text.as_deref()
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .map(str::to_owned)
        };
        let filter = IncidentFilter {
            table: nonempty(&query.table),
            status: query.status.map(status_store),
            unresolved: query.unresolved,
            severity: query.severity.map(|s| s.as_str().to_owned()),
            code: nonempty(&query.code),
            since: time("since", &query.since)?,
            until: time("until", &query.until)?,
        };
        let limit = query.limit.unwrap_or(DEFAULT_PAGE);
        let page = lock(&self.store).incident_page(&filter, query.before.map(IncidentId), limit)?;
        let incidents: Vec<IncidentRow> = page.incidents.iter().map(incident_row).collect();
        Ok(IncidentPage {
            next: if page.more {
                incidents.last().map(|r| r.id)
            } else {
                None
            },
            incidents,
            total: page.total,
        })
    }

    /// Up to `limit` (default 50, at most 500) shoes of `table` numbered below `before`, newest
    /// first, with their times and counts of rounds and incidents, for the replay picker.
    pub fn shoes(
        &self,
        table: &str,
        before: Option<u32>,
        limit: Option<u32>,
    ) -> Result<ShoePage, ApiError> {
        let limit = limit.unwrap_or(50).clamp(1, 500);
        let store = lock(&self.store);
        let id = store.table_id(table)?.ok_or_else(|| {
            ApiError::new(ErrorCode::NotFound, format!("no table {table} on record"))
        })?;
        let mut listed = store.shoe_listing(id, before, limit + 1)?;
        let more = listed.len() > limit as usize;
        listed.truncate(limit as usize);
        // Each shoe's shuffle quality, derived from its recorded cards (nothing stored).
        let numbers: Vec<u32> = listed.iter().map(|s| s.shoe).collect();
        let shuffles = pitwatch_api::shuffle::recorded_shoe_shuffles(&store, id, &numbers)?;
        drop(store);
        let at = |ms: Option<i64>| {
            ms.and_then(Timestamp::from_unix_millis)
                .map(|t| t.to_string())
        };
        Ok(ShoePage {
            table: table.to_owned(),
            next: if more {
                listed.last().map(|s| s.shoe)
            } else {
                None
            },
            shoes: listed
                .iter()
                .map(|s| ShoeRow {
                    shoe: s.shoe,
                    started_at: at(s.started_ms),
                    ended_at: at(s.ended_ms),
                    rounds: s.rounds,
                    incidents: s.incidents,
                    shuffle: shuffles
                        .iter()
                        .find(|q| q.shoe == s.shoe)
                        .map(ShuffleQuality::from),
                })
                .collect(),
        })
    }

    /// One incident with its rule texts, evidence timeline, round and history.
    pub fn incident(&self, id: i64) -> Result<IncidentDetail, ApiError> {
        let store = lock(&self.store);
        let incident = store.incident(IncidentId(id))?;
        let rule_book = self
            .pit
            .tables
            .iter()
            .find(|t| t.name == incident.table)
            .map(|t| t.rules.clone())
            .unwrap_or_default();
        let rule_texts = RuleBook::load(&rule_book)
            .map(|book| {
                book.rule_texts(&incident.rule)
                    .into_iter()
                    .map(|(number, text)| RuleText { number, text })
                    .collect()
            })
            .unwrap_or_default();
        let mut timeline = Vec::new();
        let mut round = None;
        if let Some(table) = store.table_id(&incident.table)? {
            if let (Some(shoe), Some(number)) = (incident.shoe, incident.round) {
                round = store
                    .round(table, shoe, number)?
                    .and_then(|body| stored_round(&body));
            }
            let evidence: HashSet<u64> = incident.evidence.iter().copied().collect();
            let mut lo = incident
                .evidence
                .iter()
                .copied()
                .min()
                .unwrap_or(incident.seq);
            let mut hi = incident
                .evidence
                .iter()
                .copied()
                .max()
                .unwrap_or(incident.seq);
            lo = lo.min(incident.seq);
            hi = hi.max(incident.seq);
            if let Some(r) = &round {
                lo = lo.min(r.first_seq);
                hi = hi.max(r.last_seq);
            }
            let lo = lo.saturating_sub(3);
            let hi = hi + 3;
            // Only the events around the incident are read, however long the record is.
            for row in store.event_rows_between(table, lo, hi)? {
                timeline.push(TimelineEntry {
                    seq: row.event.seq,
                    at: row.event.at.map(|t| t.to_string()),
                    what: describe(&row.event.kind),
                    evidence: evidence.contains(&row.event.seq),
                    console: row.frame.is_none(),
                    frame: row
                        .frame
                        .and_then(|id| store.frame(id).ok())
                        .map(|f| printable(&f.bytes)),
                });
                if timeline.len() >= 80 {
                    break;
                }
            }
        }
        let mut history: Vec<HistoryEntry> = store
            .incident_history(IncidentId(id))?
            .into_iter()
            .map(|step| HistoryEntry {
                at: step.at,
                user: step.user,
                what: step.what,
                text: step.text,
            })
            .collect();
        // The store lists status changes before notes; people read a history in time order.
        history.sort_by(|a, b| a.at.cmp(&b.at));
        Ok(IncidentDetail {
            incident: incident_row(&incident),
            rule_book,
            rule_texts,
            timeline,
            round,
            history,
        })
    }

    fn changed(&self, id: i64) -> Result<IncidentRow, ApiError> {
        let (row, counts) = {
            let store = lock(&self.store);
            let row = incident_row(&store.incident(IncidentId(id))?);
            (row, store.open_counts()?)
        };
        let tile = {
            let mut model = lock(&self.model);
            model.set_incident_counts(&counts);
            model.table(&row.table).cloned()
        };
        let updates = lock(&self.updates);
        let _ = updates.send(PitUpdate::IncidentChanged {
            incident: row.clone(),
        });
        if let Some(table) = tile {
            let _ = updates.send(PitUpdate::Table {
                table: Box::new(table),
            });
        }
        Ok(row)
    }

    /// The logged-in user acknowledges incident `id`.
    pub fn acknowledge(&self, id: i64) -> Result<IncidentRow, ApiError> {
        let who = self.principal()?;
        incidents::acknowledge(&mut lock(&self.store), &who, id, self.clock.now())?;
        self.changed(id)
    }

    /// The logged-in user adds a note to incident `id`.
    pub fn add_note(&self, id: i64, text: &str) -> Result<IncidentRow, ApiError> {
        let who = self.principal()?;
        incidents::add_note(&mut lock(&self.store), &who, id, text, self.clock.now())?;
        self.changed(id)
    }

    /// The logged-in user resolves incident `id` with `outcome`.
    pub fn resolve(&self, id: i64, outcome: &str) -> Result<IncidentRow, ApiError> {
        let who = self.principal()?;
        incidents::resolve(&mut lock(&self.store), &who, id, outcome, self.clock.now())?;
        self.changed(id)
    }

    /// The logged-in user exports incident `id`'s report as a PDF, next to the database in
    /// `reports/`; the export is audited. Returns the file's path.
    pub fn export_incident_pdf(&self, id: i64) -> Result<String, ApiError> {
        let who = self.principal()?;
        let subject = format!("incident {id}");
        reports::may_export(
            &mut lock(&self.store),
            &who,
            Command::ExportIncident,
            &subject,
            self.clock.now(),
        )?;
        // The report verifies every chain (it states so): on a connection of its own, so the
        // incident list and the workflow are not held up meanwhile.
        let reader = self.installation.open_read_only(&self.db)?;
        let document =
            pitwatch_api::report::incident_report(&reader, IncidentId(id), &self.db_name())?;
        drop(reader);
        let (path, _) = self.write_report(
            &who,
            &format!("incident-{id}.pdf"),
            document,
            Command::ExportIncident,
            &subject,
        )?;
        Ok(path)
    }

    fn db_name(&self) -> String {
        self.db
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    /// Renders `document` (by `user`, now) as a PDF named `file` in `reports/` next to the
    /// database, and audits the export as `action` on `subject`. Returns the path and the pages.
    fn write_report(
        &self,
        who: &Principal,
        file: &str,
        document: pitwatch_report::Document,
        command: Command,
        subject: &str,
    ) -> Result<(String, usize), ApiError> {
        let now = self.clock.now();
        let dir = self
            .db
            .parent()
            .map_or_else(|| PathBuf::from("reports"), |d| d.join("reports"));
        let path = dir.join(file);
        let pdf = pitwatch_report::render_pdf(&document.stamped(&who.user, now.as_datetime()))?;
        std::fs::create_dir_all(&dir)
            .and_then(|()| std::fs::write(&path, &pdf.bytes))
            .map_err(|e| internal(format!("cannot write {}: {e}", path.display())))?;
        let shown = path.display().to_string();
        reports::exported(&mut lock(&self.store), who, command, subject, &shown, now)?;
        Ok((shown, pdf.pages))
    }

    /// The shift `query` asks for, checked.
    fn shift(query: &ShiftQuery) -> Result<pitwatch_api::report::Shift, ApiError> {
        let time = |field: &str, text: &str| {
            text.trim().parse::<Timestamp>().map_err(|e| {
                ApiError::new(
                    ErrorCode::InvalidInput,
                    format!("the shift's {field} {text:?} is not a time: {e}"),
                )
            })
        };
        let table = query
            .table
            .as_deref()
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(str::to_owned);
        Ok(pitwatch_api::report::Shift::new(
            time("start", &query.from)?,
            time("end", &query.to)?,
            table,
        )?)
    }

    /// The logged-in user exports the handover report of the shift `query` as a PDF in
    /// `reports/` (audited as `shift.export`).
    pub fn export_shift_report(&self, query: &ShiftQuery) -> Result<ShiftReportFile, ApiError> {
        let who = self.principal()?;
        let shift = Desk::shift(query)?;
        let subject = format!("shift {} to {}", shift.from, shift.to);
        reports::may_export(
            &mut lock(&self.store),
            &who,
            Command::ExportShift,
            &subject,
            self.clock.now(),
        )?;
        // Its own read-only connection, like the incident report: the pit goes on meanwhile.
        let reader = self.installation.open_read_only(&self.db)?;
        let document = pitwatch_api::report::shift_report(&reader, &shift, &self.db_name())?;
        drop(reader);
        let stamp = |t: Timestamp| t.as_datetime().format("%Y%m%dT%H%M%SZ").to_string();
        let file = format!(
            "shift-{}-{}{}.pdf",
            stamp(shift.from),
            stamp(shift.to),
            shift
                .table
                .as_deref()
                .map_or_else(String::new, |t| format!("-{t}"))
        );
        let (path, pages) =
            self.write_report(&who, &file, document, Command::ExportShift, &subject)?;
        Ok(ShiftReportFile {
            path,
            pages: u32::try_from(pages).unwrap_or(u32::MAX),
        })
    }

    /// The logged-in user signs off the handover of the shift `query` with `note` (audited as
    /// `shift.sign_off`; later shift reports of that period show it).
    pub fn sign_off_shift(&self, query: &ShiftQuery, note: &str) -> Result<SignedOff, ApiError> {
        let who = self.principal()?;
        let shift = Desk::shift(query)?;
        let now = self.clock.now();
        reports::sign_off(&mut lock(&self.store), &who, &shift, note, now)?;
        Ok(SignedOff {
            user: who.user,
            at: now.to_string(),
        })
    }

    /// The logged-in user records, for `table`, something no device can see. Returns the
    /// event's `seq` once it is on record; the engine applies the rules to it like any event.
    pub fn record_console(&self, table: &str, entry: &ConsoleEntry) -> Result<u64, ApiError> {
        let who = self.principal()?;
        crate::access::require(
            &mut lock(&self.store),
            &who,
            Command::RecordConsole,
            &format!("table {table}"),
            self.clock.now(),
        )?;
        let user = who.user;
        if lock(&self.model).table(table).is_none() {
            return Err(ApiError::new(
                ErrorCode::NotFound,
                format!("no table {table}"),
            ));
        }
        let invalid = |m: String| ApiError::new(ErrorCode::InvalidInput, m);
        let kind = match entry {
            ConsoleEntry::CardExposed { card, during } => EventKind::CardExposed {
                card: match card.as_deref().map(str::trim) {
                    None | Some("") => None,
                    Some(text) => Some(
                        text.to_ascii_uppercase()
                            .parse::<Card>()
                            .map_err(|e| invalid(format!("{text:?}: {e}")))?,
                    ),
                },
                during: during
                    .parse::<ExposedDuring>()
                    .map_err(|e| invalid(format!("{during:?}: {e}")))?,
            },
            ConsoleEntry::Cut { position } => EventKind::Cut {
                position: *position,
            },
            ConsoleEntry::CardsReplaced => EventKind::CardsReplaced,
            ConsoleEntry::TableVacant => EventKind::TableStateChanged {
                state: TableState::Vacant,
            },
        };
        let monitor = lock(&self.monitor);
        let monitor = monitor
            .as_ref()
            .ok_or_else(|| ApiError::new(ErrorCode::Conflict, "monitoring has stopped"))?;
        monitor.console(table, kind, &user).map_err(internal)
    }

    /// Shoe `shoe` of `table` (the last shoe if `None`) replayed from the record: the recorded
    /// bytes re-decoded and run through the engine again, step by step (only that shoe's and the
    /// shoe's before it, see [`pitwatch_api::replay::replay_shoe`]), with a verdict on whether the
    /// record verified intact. The chains are verified in full on the first replay and after
    /// that only where they grew (see [`Desk::verify`]); the verdict says which.
    pub fn replay(&self, table: &str, shoe: Option<u32>) -> Result<ShoeReplay, ApiError> {
        // A connection of its own: a long replay does not hold up the incident workflow.
        let store = self.installation.open_read_only(&self.db)?;
        let id = store.table_id(table)?.ok_or_else(|| {
            ApiError::new(ErrorCode::NotFound, format!("no table {table} on record"))
        })?;
        let none_yet = || {
            ApiError::new(
                ErrorCode::NotFound,
                format!("no shoe of {table} on record yet"),
            )
        };
        let (shoe, steps, divergences, rule_book, shuffle) = match store.last_shoe(id)? {
            Some(last) => {
                let shoe = shoe.unwrap_or(last);
                let run = pitwatch_api::replay::replay_shoe(&store, table, shoe)?;
                let shuffle = run.shuffle.as_ref().map(ShuffleQuality::from);
                (shoe, run.steps, run.divergences, run.rule_book, shuffle)
            }
            // No shoe starts stored yet (a record from before they were kept, until the table's
            // recorder resumes): the whole table, as before.
            None => {
                let whole = pitwatch_api::replay::rebuild(&store, table)?;
                let shoe = shoe
                    .or_else(|| whole.shoes().last().map(|s| s.shoe))
                    .ok_or_else(none_yet)?;
                let steps = whole
                    .shoe_steps(shoe)
                    .map(<[_]>::to_vec)
                    .unwrap_or_default();
                let shuffle = whole
                    .shuffles
                    .iter()
                    .find(|s| s.shoe == shoe)
                    .map(ShuffleQuality::from);
                (shoe, steps, whole.divergences, whole.rule_book, shuffle)
            }
        };
        let (verified, verify_detail) = self.verify(&store)?;
        drop(store);
        if steps.is_empty() {
            return Err(ApiError::new(
                ErrorCode::NotFound,
                format!("no shoe {shoe} of {table}"),
            ));
        }
        let config = self
            .pit
            .tables
            .iter()
            .find(|t| t.name == table)
            .ok_or_else(|| ApiError::new(ErrorCode::NotFound, format!("no table {table}")))?;
        let mut tile = TableTile::from(config);
        let mut out = Vec::with_capacity(steps.len());
        for step in steps {
            fold_event(&mut tile, &step.event);
            let mut completed = None;
            let mut irregularities = Vec::new();
            for output in &step.outputs {
                match output {
                    Output::Round(record) => {
                        let result = round_result(record);
                        tile.rounds.push(result.clone());
                        completed = Some(result);
                    }
                    Output::Irregularity(i) => {
                        irregularities.push(format!("{}: {}", i.code.as_str(), i.message));
                    }
                    _ => {}
                }
            }
            // The shoe state at this step is the engine's own, as on the live tile.
            show_view(&mut tile, &step.view);
            out.push(ReplayStep {
                seq: step.event.seq,
                at: step.event.at.map(|t| t.to_string()),
                what: describe(&step.event.kind),
                round: tile.current.round,
                player: tile.current.player.clone(),
                banker: tile.current.banker.clone(),
                cards_dealt: tile.cards_dealt,
                cards_left: tile.cards_left,
                burn_due: tile.burn_due,
                burn_done: tile.burn_done,
                cutting_card_out: tile.cutting_card_out,
                completed,
                irregularities,
            });
        }
        Ok(ShoeReplay {
            table: table.to_owned(),
            rule_book,
            shoe,
            verified,
            verify_detail,
            divergences,
            steps: out,
            shuffle,
        })
    }

    /// Verifies the record's chains: in full (with SQLite's own integrity check) the first time,
    /// then only the rows appended since, after checking that the last row verified still has
    /// the hash it had (see [`Store::verify_after`]). Returns whether it is intact and what was
    /// checked, in words.
    pub fn verify(&self, store: &Store) -> Result<(bool, String), ApiError> {
        verify_into(
            &self.verified,
            self.clock.as_ref(),
            &self.installation,
            store,
        )
    }

    /// Whether the record has been verified in full since the desk started (by the background
    /// check or a replay) and was intact then.
    pub fn verified_in_full(&self) -> bool {
        lock(&self.verified).is_some()
    }

    /// Stops the simulated devices, the monitor (which records the ends of the sessions) and the
    /// fold thread. Idempotent.
    pub fn stop(&self) {
        for sim in lock(&self.sims).drain(..) {
            let _ = sim.stop();
        }
        if let Some(monitor) = lock(&self.monitor).take() {
            let _ = monitor.stop();
        }
        if let Some(fold) = lock(&self.fold).take() {
            let _ = fold.join();
        }
    }
}

impl Drop for Desk {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Verifies the record into `verified` (see [`Desk::verify`]): against the installation's key
/// and witnesses, in full the first time, then only what was appended since.
fn verify_into(
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
struct RecordStatusSource {
    installation: Installation,
    db: PathBuf,
}

impl RecordStatusSource {
    fn status(&self, alerts: &RecordAlerts) -> RecordStatus {
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
        }
    }
}

fn fold_loop(
    events: Receiver<MonitorEvent>,
    model: &Mutex<PitModel>,
    updates: &Sender<PitUpdate>,
    clock: &dyn Clock,
    alerts: &Mutex<RecordAlerts>,
    status: &RecordStatusSource,
) {
    let mut dirty: Vec<String> = Vec::new();
    let mut last_flush = Instant::now();
    loop {
        let wait = FLUSH_EVERY.saturating_sub(last_flush.elapsed());
        let received = events.recv_timeout(wait);
        let ended = matches!(received, Err(RecvTimeoutError::Disconnected));
        if let Ok(MonitorEvent::Witness(journals)) = &received {
            // A journal that cannot be written is an alert on every screen, until it can be.
            let failing: Vec<String> = journals.iter().filter_map(|j| j.error.clone()).collect();
            let changed = {
                let mut alerts = lock(alerts);
                let changed = alerts.journals != failing;
                alerts.journals = failing;
                changed
            };
            if changed {
                let _ = updates.send(PitUpdate::Record {
                    record: status.status(&lock(alerts)),
                });
            }
        }
        if let Ok(MonitorEvent::Recording(state)) = &received {
            // On every screen at once, not at the next flush.
            let _ = updates.send(PitUpdate::Recording {
                status: RecordingStatus {
                    degraded: state.degraded,
                    reason: state.reason.clone(),
                    since_ms: state.since.map(Timestamp::unix_millis),
                    backlog_bytes: state.backlog_bytes,
                    backlog_inputs: state.backlog_inputs,
                    dropped_bytes: state.dropped_bytes,
                },
            });
        }
        if let Ok(event) = received {
            let (table, raised) = lock(model).apply(&event, clock.now());
            if let Some(table) = table {
                if !dirty.contains(&table) {
                    dirty.push(table);
                }
            }
            if let Some(incident) = raised {
                // An alert must not wait for the next flush.
                let _ = updates.send(PitUpdate::IncidentRaised { incident });
            }
        }
        if ended || last_flush.elapsed() >= FLUSH_EVERY {
            let tiles: Vec<TableTile> = {
                let mut model = lock(model);
                dirty
                    .drain(..)
                    .filter_map(|name| model.take_unsent(&name))
                    .collect()
            };
            for table in tiles {
                let _ = updates.send(PitUpdate::Table {
                    table: Box::new(table),
                });
            }
            last_flush = Instant::now();
        }
        if ended {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The record at `db` as the desk opens it (signed with the key [`DeskOptions::demo`] keeps
    /// beside it).
    fn test_store(db: &std::path::Path) -> Store {
        DeskOptions::demo(db.to_owned())
            .installation
            .open(db)
            .expect("the store opens")
    }

    #[test]
    fn frames_print_their_control_bytes_as_hex() {
        assert_eq!(printable(b"\x02P1 9S\x03"), "<02>P1 9S<03>");
        assert_eq!(printable(&[0xFF, b'a']), "<FF>a");
    }

    #[test]
    fn options_come_from_the_environment_and_a_real_pit_replaces_the_demo() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let none = |_: &str| None;
        let options = DeskOptions::from_env(none, None, dir.path()).expect("defaults");
        assert!(options.pit.demo);
        assert_eq!(options.db, dir.path().join(DEMO_DB));
        // The demo never records into the database a real pit names.
        let real_db = |name: &str| (name == "PITWATCH_DB").then(|| "/srv/pit/real.db".to_owned());
        let options = DeskOptions::from_env(real_db, None, dir.path()).expect("the demo");
        assert_eq!(options.db, dir.path().join(DEMO_DB));
        let demo_db =
            |name: &str| (name == "PITWATCH_DEMO_DB").then(|| "/tmp/demo-e2e.db".to_owned());
        let options = DeskOptions::from_env(demo_db, None, dir.path()).expect("the demo");
        assert_eq!(options.db, PathBuf::from("/tmp/demo-e2e.db"));
        assert_eq!(options.pace, Pace::RealTime);
        assert_eq!(options.fault_every, DEMO_FAULT_EVERY);

        let config = dir.path().join("pit.toml");
        std::fs::write(
            &config,
            "[site]\nname = \"Real\"\n\n[[table]]\nname = \"T1\"\ngame = \"baccarat\"\n\
             rules = \"nz-baccarat\"\ndevice = { protocol = \"angel-eye\" }\n\
             link = { kind = \"serial\", path = \"/dev/ttyUSB0\", baud = 4800 }\n",
        )
        .expect("a config");
        let env = |name: &str| match name {
            "PITWATCH_DB" => Some("/tmp/x.db".to_owned()),
            "PITWATCH_DEMO_PACE" => Some("10x".to_owned()),
            "PITWATCH_DEMO_FAULT_EVERY" => Some("0".to_owned()),
            _ => None,
        };
        let options =
            DeskOptions::from_env(env, Some(config.clone()), dir.path()).expect("a real pit");
        assert!(!options.pit.demo);
        assert_eq!(options.pit.tables[0].name, "T1");
        assert_eq!(options.db, PathBuf::from("/tmp/x.db"));
        assert_eq!(options.pace, Pace::Times(10.0));
        assert_eq!(options.fault_every, 0);

        let bad = |name: &str| (name == "PITWATCH_DEMO_FAULT_EVERY").then(|| "often".to_owned());
        let error = DeskOptions::from_env(bad, None, dir.path()).expect_err("not a number");
        assert_eq!(error.code, ErrorCode::InvalidInput);
        let missing = DeskOptions::from_env(none, Some(dir.path().join("nope.toml")), dir.path())
            .expect_err("no such file");
        assert!(missing.message.contains("nope.toml"), "{}", missing.message);
    }

    #[test]
    fn paces_read_as_a_supervisor_writes_them() {
        assert_eq!(parse_pace("real").ok(), Some(Pace::RealTime));
        assert_eq!(parse_pace("10x").ok(), Some(Pace::Times(10.0)));
        assert_eq!(parse_pace(" Fast ").ok(), Some(Pace::Fast));
        for bad in ["", "x", "0x", "-2x", "ten", "nanx"] {
            let error = parse_pace(bad).expect_err(bad);
            assert_eq!(error.code, ErrorCode::InvalidInput);
        }
    }

    #[test]
    fn a_restarted_desk_shows_the_shoe_as_recorded_before_any_new_byte() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let db = dir.path().join("restart.db");
        let now = SystemClock.now();
        let book = RuleBook::load("nz-baccarat").expect("a rule book");
        {
            // A shoe under way, on record from an earlier run.
            let mut store = test_store(&db);
            let mut recorder = pitwatch_api::recorder::TableRecorder::resume(
                &mut store, "T1", "baccarat", book, None, None, now,
            )
            .expect("a recorder");
            let mut batch = store.batch(now).expect("a batch");
            let mut derived = Vec::new();
            let card = |code: &str, target| EventKind::CardDrawn {
                card: Some(code.parse().expect("a card")),
                target: Some(target),
                index: None,
                face_up: None,
                retransmit: None,
            };
            let mut kinds = vec![
                EventKind::Shuffled {
                    decks: None,
                    cards: None,
                    shuffler: None,
                },
                card("3H", Target::First),
            ];
            kinds.extend((0..3).map(|_| card("2C", Target::Burn)));
            for kind in kinds {
                recorder
                    .console(&mut batch, kind, "test", now, &mut derived)
                    .expect("recorded");
            }
            batch.commit().expect("committed");
        }
        // Nobody listens at the table's address: no new byte will arrive.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let pit = PitConfig::from_toml(&format!(
            "[site]\nname = \"Test\"\n[[table]]\nname = \"T1\"\ngame = \"baccarat\"\n\
             rules = \"nz-baccarat\"\ndevice = {{ protocol = \"angel-eye\" }}\n\
             link = {{ kind = \"tcp\", address = \"127.0.0.1:{port}\" }}\n"
        ))
        .expect("a pit definition");
        let (desk, _updates) = Desk::start(DeskOptions {
            pit,
            ..DeskOptions::demo(db)
        })
        .expect("the desk starts");
        let deadline = Instant::now() + Duration::from_secs(10);
        let tile = loop {
            let tile = desk.overview().tables[0].clone();
            if tile.shoe == 1 || Instant::now() > deadline {
                break tile;
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        desk.stop();
        assert_eq!(tile.shoe, 1, "{tile:?}");
        // The engine counts the cards on record; the shoe is partial now (nobody listened while
        // Pitwatch was down), so how many are left is unknown.
        assert_eq!(tile.cards_dealt, 4, "{tile:?}");
        assert_eq!(tile.cards_left, None, "{tile:?}");
        assert!(!tile.burn_due, "no burn is due in a shoe cut off: {tile:?}");
        assert_eq!(tile.frames_accepted, 0, "nothing new arrived");
    }

    const ALICE: &str = "alice keeps the keys of 7 doors";
    const BOB: &str = "bob watches every camera twice";
    const SUP: &str = "supervisor of the long night shift";

    /// A desk on a real pit (nothing simulated) whose first administrator `alice` is logged in.
    fn real_desk(db: &std::path::Path) -> Desk {
        let (desk, updates) = Desk::start(DeskOptions {
            pit: real_pit(),
            ..DeskOptions::demo(db.to_owned())
        })
        .expect("the desk starts");
        drop(updates);
        desk.create_first_admin("alice", ALICE)
            .expect("the first admin");
        desk
    }

    #[test]
    fn only_an_admin_adds_users_and_each_addition_is_audited() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let db = dir.path().join("users.db");
        let desk = real_desk(&db);
        desk.add_user("sue", "supervisor", SUP)
            .expect("a supervisor");
        desk.logout().expect("logout");
        let refused = desk
            .add_user("bob", "supervisor", BOB)
            .expect_err("nobody is logged in");
        assert_eq!(refused.code, ErrorCode::Unauthorised);
        desk.login("sue", SUP).expect("the supervisor");
        let refused = desk
            .add_user("bob", "supervisor", BOB)
            .expect_err("a supervisor may not add users");
        assert_eq!(refused.code, ErrorCode::Forbidden);
        desk.login("alice", ALICE).expect("the admin");
        let added = desk
            .add_user(" bob ", "surveillance", BOB)
            .expect("an admin adds a user");
        assert_eq!(
            added,
            UserRow {
                name: "bob".into(),
                role: "surveillance".into(),
                created_at: added.created_at.clone(),
                active: true,
            }
        );
        for (name, role, password) in [
            ("carol", "croupier", "carol sings in the choir"),
            ("carol", "supervisor", "short"),
            ("carol", "supervisor", "password1234"),
            ("bob", "supervisor", BOB),
            ("", "supervisor", "nobody at all is here tonight"),
        ] {
            let error = desk.add_user(name, role, password).expect_err("refused");
            assert_eq!(
                error.code,
                ErrorCode::InvalidInput,
                "{name} {role}: {error}"
            );
        }
        let session = desk.login("bob", BOB).expect("the new user logs in");
        assert_eq!(session.role, "surveillance");
        desk.stop();
        let store = test_store(&db);
        let added: Vec<(String, String)> = store
            .audit_entries("user.add")
            .expect("audit")
            .into_iter()
            .map(|e| (e.user, e.subject))
            .collect();
        assert_eq!(
            added,
            [
                ("alice".to_owned(), "sue".to_owned()),
                ("alice".to_owned(), "bob".to_owned())
            ],
            "each addition names the admin who made it"
        );
        let forbidden = store
            .audit_entries(crate::access::FORBIDDEN)
            .expect("audit");
        assert_eq!(forbidden.len(), 1);
        assert_eq!(
            (forbidden[0].user.as_str(), forbidden[0].subject.as_str()),
            ("sue", "add_user")
        );
    }

    /// A real pit of one TCP table whose device nobody runs (the link just keeps retrying).
    fn real_pit() -> PitConfig {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        PitConfig::from_toml(&format!(
            "[site]\nname = \"Real\"\n[[table]]\nname = \"T1\"\ngame = \"baccarat\"\n\
             rules = \"nz-baccarat\"\ndevice = {{ protocol = \"angel-eye\" }}\n\
             link = {{ kind = \"tcp\", address = \"127.0.0.1:{port}\" }}\n"
        ))
        .expect("a pit definition")
    }

    #[test]
    fn only_an_admin_lists_users_with_their_roles_and_dates() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let db = dir.path().join("list.db");
        let desk = real_desk(&db);
        desk.add_user("sue", "supervisor", SUP)
            .expect("a supervisor");
        let added = desk
            .add_user("bob", "surveillance", BOB)
            .expect("an admin adds a user");
        desk.logout().expect("logout");
        let refused = desk.users().expect_err("nobody is logged in");
        assert_eq!(refused.code, ErrorCode::Unauthorised);
        desk.login("sue", SUP).expect("the supervisor");
        let refused = desk.users().expect_err("a supervisor may not list users");
        assert_eq!(refused.code, ErrorCode::Forbidden);
        desk.login("alice", ALICE).expect("the admin");
        let users = desk.users().expect("an admin lists users");
        desk.stop();
        let names: Vec<(&str, &str)> = users
            .iter()
            .map(|u| (u.name.as_str(), u.role.as_str()))
            .collect();
        assert_eq!(
            names,
            [
                ("alice", "admin"),
                ("bob", "surveillance"),
                ("sue", "supervisor")
            ]
        );
        let bob = users.iter().find(|u| u.name == "bob").expect("bob");
        assert_eq!(bob, &added, "the list says what adding returned");
        assert!(
            users
                .iter()
                .all(|u| u.created_at.parse::<Timestamp>().is_ok()),
            "{users:?}"
        );
    }

    #[test]
    fn a_real_pit_with_no_users_creates_its_first_admin_once() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let db = dir.path().join("first.db");
        let (desk, updates) = Desk::start(DeskOptions {
            pit: real_pit(),
            ..DeskOptions::demo(db.clone())
        })
        .expect("the desk starts");
        drop(updates);
        assert!(desk.needs_first_admin().expect("asks the record"));
        for (name, password) in [
            ("  ", "a long enough phrase for root"),
            ("root", "short"),
            ("root", "root-password"),
        ] {
            let error = desk
                .create_first_admin(name, password)
                .expect_err("refused");
            assert_eq!(error.code, ErrorCode::InvalidInput, "{name}: {error}");
        }
        assert!(
            desk.needs_first_admin().expect("asks the record"),
            "a refused attempt creates nobody"
        );
        let session = desk
            .create_first_admin(" root ", ALICE)
            .expect("the first admin");
        assert_eq!(
            session,
            Session {
                user: "root".into(),
                role: "admin".into()
            }
        );
        assert_eq!(desk.overview().session, Some(session));
        assert!(!desk.needs_first_admin().expect("asks the record"));
        let again = desk
            .create_first_admin("mallory", BOB)
            .expect_err("only once");
        assert_eq!(again.code, ErrorCode::Forbidden);
        desk.add_user("sam", "supervisor", SUP)
            .expect("the first admin adds users");
        desk.logout().expect("logout");
        desk.login("root", ALICE)
            .expect("the first admin logs in again");
        desk.stop();

        let store = test_store(&db);
        assert_eq!(
            store
                .audit_details("user.first_admin", "root")
                .expect("audit"),
            ["admin"]
        );
        assert!(!store.user_exists("mallory").expect("users"));
        drop(store);

        // Restarted on the same record: no first run any more.
        let (desk, updates) = Desk::start(DeskOptions {
            pit: real_pit(),
            ..DeskOptions::demo(db)
        })
        .expect("the desk starts again");
        drop(updates);
        assert!(!desk.needs_first_admin().expect("asks the record"));
        let again = desk
            .create_first_admin("mallory", BOB)
            .expect_err("never again");
        assert_eq!(again.code, ErrorCode::Forbidden);
        desk.stop();
    }

    #[test]
    fn the_record_shows_its_key_and_checkpoint_and_a_failing_witness_is_an_alert() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let db = dir.path().join("pit.db");
        let witness = dir.path().join("witness");
        std::fs::create_dir(&witness).expect("a witness folder");
        let mut options = DeskOptions::demo(db.clone());
        options.pace = Pace::Times(20.0);
        options.installation.witness_dirs = vec![witness.clone()];
        // The record exists; its journal in the witness folder cannot be written (a folder
        // stands where the file should be).
        let mut store = options.installation.open(&db).expect("the record");
        store
            .set_meta("site", "Witness test", SystemClock.now())
            .expect("written");
        let record = store.record_id().expect("read").expect("an id");
        drop(store);
        let journal = pitwatch_store::witness::journal_in(&witness, &record);
        std::fs::remove_file(&journal).expect("the journal was written");
        std::fs::create_dir(&journal).expect("a folder in the journal's place");

        let (desk, updates) = Desk::start(options).expect("the desk starts");
        let status = desk.overview().record;
        assert_eq!(status.record_id.as_deref(), Some(record.as_str()));
        let fingerprint = status.key_fingerprint.clone().expect("a key");
        assert_eq!(fingerprint.len(), 39, "{fingerprint}");
        assert!(
            status.latest_checkpoint.as_deref().is_some_and(|c| c
                .starts_with("pitwatch-checkpoint:1:")
                && c.ends_with(&fingerprint)),
            "{status:?}"
        );
        assert_eq!(status.journals.len(), 2, "{status:?}");
        // The monitor writes checkpoints as the demo deals; the witness cannot take them.
        let deadline = Instant::now() + Duration::from_secs(30);
        let alert = loop {
            match updates.recv_timeout(Duration::from_millis(500)) {
                Ok(PitUpdate::Record { record }) if !record.alerts.is_empty() => break record,
                _ if Instant::now() > deadline => panic!("no record alert"),
                _ => {}
            }
        };
        assert_eq!(alert.alerts[0].severity, Severity::High);
        assert!(
            alert.alerts[0].message.contains("cannot be written"),
            "{:?}",
            alert.alerts
        );
        assert_eq!(
            desk.overview().record.alerts,
            alert.alerts,
            "every screen shows it"
        );
        // Recording went on: the record itself is intact and growing.
        desk.stop();
        let store = test_store(&db);
        let report = store.verify().expect("verifies");
        assert!(report
            .problems
            .iter()
            .all(|p| !p.contains("not in the record")));
        assert!(report.chains_intact());
    }

    #[test]
    fn a_row_altered_in_place_is_found_by_the_background_verification_and_moves_the_next_start() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let db = dir.path().join("pit.db");
        let options = DeskOptions::demo(db.clone());
        {
            let mut store = options.installation.open(&db).expect("the record");
            let now = SystemClock.now();
            store.set_meta("site", "Main pit", now).expect("written");
            store.set_meta(DEMO_MARK, "1", now).expect("written");
            store
                .add_user("setup", "ana", Role::Supervisor, "a long passphrase", now)
                .expect("a user");
        }
        // The audit row's text is changed without recomputing its hash: the quick start-up check
        // (which does not hash rows again) passes; the full one does not.
        let conn = rusqlite::Connection::open(&db).expect("the file");
        let trigger: String = conn
            .query_row(
                "SELECT sql FROM sqlite_master WHERE name = 'audit_log_append_only_u'",
                [],
                |r| r.get(0),
            )
            .expect("the trigger");
        conn.execute_batch(
            "DROP TRIGGER audit_log_append_only_u; \
             UPDATE audit_log SET detail = 'admin' WHERE action = 'user.add';",
        )
        .expect("altered");
        // Put back exactly as it was, so the schema shows nothing.
        conn.execute_batch(&trigger).expect("the trigger back");
        drop(conn);
        let (desk, updates) = Desk::start(options.clone()).expect("the desk starts");
        assert_eq!(desk.db(), db.as_path(), "the quick check passed");
        let deadline = Instant::now() + Duration::from_secs(30);
        let alert = loop {
            match updates.recv_timeout(Duration::from_millis(500)) {
                Ok(PitUpdate::Record { record }) if !record.alerts.is_empty() => break record,
                _ if Instant::now() > deadline => panic!("no record alert"),
                _ => {}
            }
        };
        assert_eq!(alert.alerts[0].severity, Severity::Critical);
        assert!(
            alert.alerts[0].message.contains("audit_log row"),
            "{:?}",
            alert.alerts
        );
        desk.stop();
        drop(desk);
        assert!(pitwatch_api::record::failed_marker(&db).exists());
        // The next start records into a new segment, and still says why.
        let (desk, updates) = Desk::start(options).expect("the desk starts again");
        drop(updates);
        assert_eq!(
            desk.db(),
            pitwatch_api::record::segment_path(&db, 2).as_path()
        );
        let alerts = desk.overview().record.alerts;
        assert!(alerts[0].message.contains("audit_log row"), "{alerts:?}");
        desk.stop();
    }

    #[test]
    fn the_demo_never_runs_on_a_real_record_nor_a_real_pit_on_the_demos() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let real = dir.path().join("real.db");
        real_desk(&real).stop();
        let refused = Desk::start(DeskOptions::demo(real.clone()))
            .err()
            .expect("the demo refuses a real record");
        assert_eq!(refused.code, ErrorCode::Conflict);
        assert!(refused.message.contains("real pit's record"), "{refused}");
        assert!(
            !test_store(&real).user_exists(DEMO_USER).expect("users"),
            "no demo supervisor in a real record"
        );
        let demo = dir.path().join("demo.db");
        let mut options = DeskOptions::demo(demo.clone());
        options.fault_every = 0;
        Desk::start(options).expect("the demo starts").0.stop();
        let refused = Desk::start(DeskOptions {
            pit: real_pit(),
            ..DeskOptions::demo(demo)
        })
        .err()
        .expect("a real pit refuses the demo's record");
        assert!(refused.message.contains("demo pit's record"), "{refused}");
    }

    #[test]
    fn surveillance_is_refused_the_supervisors_commands_and_sees_failed_logins() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let db = dir.path().join("roles.db");
        let desk = real_desk(&db);
        desk.add_user("sam", "surveillance", BOB)
            .expect("surveillance");
        let failed = desk.login("sam", "not sams password at all");
        assert_eq!(failed.expect_err("wrong").code, ErrorCode::Unauthorised);
        // A second try at once is throttled; a third after the delay passes.
        std::thread::sleep(Duration::from_millis(1100));
        desk.login("sam", BOB).expect("sam logs in");
        for refused in [
            desk.resolve(1, "nothing to see").map(|_| ()),
            desk.acknowledge(1).map(|_| ()),
            desk.record_console("T1", &ConsoleEntry::CardsReplaced)
                .map(|_| ()),
            desk.users().map(|_| ()),
            desk.add_user("eve", "admin", ALICE).map(|_| ()),
            desk.sign_off_shift(
                &ShiftQuery {
                    from: "2000-01-01T00:00:00Z".into(),
                    to: "2100-01-01T00:00:00Z".into(),
                    table: None,
                },
                "not mine to sign",
            )
            .map(|_| ()),
        ] {
            assert_eq!(refused.expect_err("refused").code, ErrorCode::Forbidden);
        }
        let audit = desk
            .audit(true, 50)
            .expect("surveillance reads the audit log");
        let failed: Vec<&AuditRow> = audit
            .iter()
            .filter(|r| r.action == pitwatch_store::LOGIN_FAILED)
            .collect();
        assert_eq!(failed.len(), 1, "{audit:?}");
        assert_eq!(failed[0].user, "sam");
        assert!(failed[0].detail.contains("workstation"), "{failed:?}");
        let forbidden = audit
            .iter()
            .filter(|r| r.action == crate::access::FORBIDDEN && r.user == "sam")
            .count();
        assert_eq!(forbidden, 6);
        desk.stop();
    }

    #[test]
    fn the_demo_pit_never_asks_for_a_first_admin() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let (desk, updates) =
            Desk::start(DeskOptions::demo(dir.path().join("demo.db"))).expect("the desk starts");
        drop(updates);
        assert!(!desk.needs_first_admin().expect("asks the record"));
        let refused = desk
            .create_first_admin("root", ALICE)
            .expect_err("not on the demo");
        assert_eq!(refused.code, ErrorCode::Conflict);
        desk.stop();
    }

    #[test]
    fn the_demo_pit_runs_live_rounds_and_the_workflow_persists() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let db = dir.path().join("desk.db");
        let options = DeskOptions {
            pace: Pace::Times(200.0),
            fault_every: 2,
            ..DeskOptions::demo(db.clone())
        };
        let (desk, updates) = Desk::start(options.clone()).expect("the desk starts");
        let deadline = Instant::now() + Duration::from_secs(60);
        let mut with_rounds = HashSet::new();
        let mut raised = None;
        while Instant::now() < deadline
            && (with_rounds.len() < desk.pit.tables.len() || raised.is_none())
        {
            match updates.recv_timeout(Duration::from_millis(500)) {
                Ok(PitUpdate::Table { table }) if !table.rounds.is_empty() => {
                    assert_eq!(table.status, LinkStatus::Connected, "{table:?}");
                    with_rounds.insert(table.name.clone());
                }
                Ok(PitUpdate::IncidentRaised { incident }) => raised = Some(incident),
                _ => {}
            }
        }
        assert_eq!(
            with_rounds.len(),
            desk.pit.tables.len(),
            "rounds at every table"
        );
        let raised = raised.expect("an injected irregularity raised an incident");

        let error = desk
            .acknowledge(raised.id)
            .expect_err("nobody is logged in");
        assert_eq!(error.code, ErrorCode::Unauthorised);
        assert!(desk.login(DEMO_USER, "wrong password").is_err());
        // After a failed login the next attempt waits a second (throttling).
        let early = desk.login(DEMO_USER, DEMO_PASSWORD).expect_err("too early");
        assert!(early.message.contains("try again"), "{early}");
        std::thread::sleep(Duration::from_millis(1100));
        desk.login(DEMO_USER, DEMO_PASSWORD)
            .expect("the demo user logs in");
        assert_eq!(
            desk.acknowledge(raised.id).expect("ack").status,
            IncidentStatus::Acknowledged
        );
        std::thread::sleep(Duration::from_millis(5));
        desk.add_note(raised.id, "watched the replay")
            .expect("note");
        std::thread::sleep(Duration::from_millis(5));
        let resolved = desk
            .resolve(raised.id, "dealer retrained")
            .expect("resolve");
        assert_eq!(resolved.status, IncidentStatus::Resolved);
        assert_eq!(
            desk.resolve(raised.id, "again").expect_err("twice").code,
            ErrorCode::Conflict
        );
        let detail = desk.incident(raised.id).expect("detail");
        assert!(!detail.timeline.is_empty(), "{detail:?}");
        assert!(detail.timeline.iter().any(|t| t.evidence));
        assert!(
            detail.timeline.iter().any(|t| t.frame.is_some()),
            "device events show their frames"
        );
        let whats: Vec<&str> = detail.history.iter().map(|h| h.what.as_str()).collect();
        assert_eq!(whats, ["opened", "acknowledged", "note", "resolved"]);
        let pdf = desk.export_incident_pdf(raised.id).expect("a PDF");
        let bytes = std::fs::read(&pdf).expect("the PDF was written");
        assert!(bytes.starts_with(b"%PDF-"), "{pdf}");
        // The shift handover: the report of the shift so far, then the sign-off, both audited;
        // a later report of the same shift shows who signed off.
        let shift = ShiftQuery {
            from: "2000-01-01T00:00:00Z".into(),
            to: "2100-01-01T00:00:00Z".into(),
            table: None,
        };
        let report = desk.export_shift_report(&shift).expect("a shift report");
        assert!(report.pages >= 1);
        let bytes = std::fs::read(&report.path).expect("the shift report was written");
        assert!(bytes.starts_with(b"%PDF-"), "{}", report.path);
        let signed = desk
            .sign_off_shift(&shift, "Kua tirohia te kāmera 14")
            .expect("signed off");
        assert_eq!(signed.user, DEMO_USER);
        {
            let store = lock(&desk.store);
            let exports = store.audit_entries("shift.export").expect("audit");
            assert_eq!(exports.len(), 1);
            let detail: serde_json::Value =
                serde_json::from_str(&exports[0].detail).expect("JSON detail");
            assert_eq!(detail["written"], report.path.as_str());
            assert!(detail["workstation"].is_string(), "{detail}");
            let sign_offs = store
                .audit_entries(pitwatch_api::report::SHIFT_SIGN_OFF)
                .expect("audit");
            assert_eq!(sign_offs.len(), 1);
            assert_eq!(sign_offs[0].user, DEMO_USER);
            assert!(sign_offs[0].detail.contains("Kua tirohia te kāmera 14"));
            let later = pitwatch_api::report::shift_report(
                &store,
                &Desk::shift(&shift).expect("a shift"),
                "pitwatch.db",
            )
            .expect("a later report")
            .to_json();
            assert!(later.contains("Kua tirohia te kāmera 14"), "{later}");
        }
        let backwards = ShiftQuery {
            from: shift.to.clone(),
            to: shift.from.clone(),
            table: None,
        };
        assert_eq!(
            desk.export_shift_report(&backwards).map_err(|e| e.code),
            Err(ErrorCode::InvalidInput)
        );
        let shoe = desk
            .replay(&raised.table, raised.shoe)
            .expect("the incident's shoe replays");
        assert!(shoe.verified, "{}", shoe.verify_detail);
        assert!(shoe.divergences.is_empty(), "{:?}", shoe.divergences);
        assert!(
            shoe.steps.iter().any(|s| s.seq == raised.seq),
            "the raising event is a step"
        );
        // A round's irregularity is output when the round is settled: at the raising event's
        // step or a later one of the same round.
        let flagged = shoe
            .steps
            .iter()
            .filter(|s| s.seq >= raised.seq)
            .find(|s| s.irregularities.iter().any(|i| i.starts_with(&raised.code)));
        assert!(flagged.is_some(), "{:?}", shoe.steps);
        assert!(
            shoe.verify_detail.contains("in full"),
            "{}",
            shoe.verify_detail
        );
        // The second replay verifies only what was appended since the first, and says so.
        let again = desk.replay(&raised.table, None).expect("the last shoe");
        assert!(again.verified, "{}", again.verify_detail);
        assert!(
            again.verify_detail.contains("appended since"),
            "{}",
            again.verify_detail
        );
        for shoe in [0, u32::MAX] {
            let error = desk
                .replay(&raised.table, Some(shoe))
                .expect_err("no such shoe");
            assert_eq!(error.code, ErrorCode::NotFound, "shoe {shoe}: {error}");
        }
        let shoes = desk.shoes(&raised.table, None, Some(1)).expect("shoes");
        assert_eq!(shoes.shoes.len(), 1);
        // Newest first (the demo deals on: a newer shoe may have started since).
        assert!(shoes.shoes[0].shoe >= again.shoe, "{shoes:?}");
        assert!(desk.shoes("NO-SUCH-TABLE", None, None).is_err());

        // Incidents a page at a time, newest first, the resolved one found by its filter.
        let first = desk
            .incidents(&IncidentQuery {
                limit: Some(1),
                ..Default::default()
            })
            .expect("a page");
        assert_eq!(first.incidents.len(), 1);
        assert!(first.total >= 1);
        assert_eq!(first.next.is_some(), first.total > 1);
        let resolved_only = desk
            .incidents(&IncidentQuery {
                status: Some(IncidentStatus::Resolved),
                table: Some(raised.table.clone()),
                ..Default::default()
            })
            .expect("a filtered page");
        assert_eq!(
            resolved_only
                .incidents
                .iter()
                .map(|r| r.id)
                .collect::<Vec<_>>(),
            [raised.id]
        );
        let bad = desk
            .incidents(&IncidentQuery {
                since: Some("yesterday".into()),
                ..Default::default()
            })
            .expect_err("not a time");
        assert_eq!(bad.code, ErrorCode::InvalidInput);
        let seq = desk
            .record_console("BAC-1", &ConsoleEntry::TableVacant)
            .expect("a console event");
        assert!(seq > 0);
        desk.logout().expect("logs out");
        assert_eq!(
            desk.record_console("BAC-1", &ConsoleEntry::CardsReplaced)
                .expect_err("logged out")
                .code,
            ErrorCode::Unauthorised
        );
        desk.stop();
        drop(desk);

        let (desk, _updates) = Desk::start(DeskOptions {
            fault_every: 0,
            ..options
        })
        .expect("restarts");
        let detail = desk.incident(raised.id).expect("still there");
        assert_eq!(detail.incident.status, IncidentStatus::Resolved);
        // The tiles count the unresolved incidents on record, read by a count query.
        let unresolved = desk
            .incidents(&IncidentQuery {
                unresolved: true,
                limit: Some(1000),
                ..Default::default()
            })
            .expect("unresolved");
        let tiles: u64 = desk
            .overview()
            .tables
            .iter()
            .map(|t| {
                let c = t.incidents;
                u64::from(c.critical + c.high + c.medium + c.low)
            })
            .sum();
        assert!(tiles >= unresolved.total, "{tiles} < {}", unresolved.total);
        // The restarted desk verified the record in full in the background: its first replay
        // checks only what was appended since.
        let deadline = Instant::now() + Duration::from_secs(30);
        while !desk.verified_in_full() {
            assert!(
                Instant::now() < deadline,
                "the start-up verification finishes"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        let first = desk
            .replay(&raised.table, raised.shoe)
            .expect("the incident's shoe replays");
        assert!(first.verified, "{}", first.verify_detail);
        assert!(
            first.verify_detail.contains("appended since"),
            "{}",
            first.verify_detail
        );
        desk.stop();
    }
}

#[cfg(test)]
mod honest {
    use super::*;

    #[test]
    fn an_honest_demo_pit_raises_no_incident() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let options = DeskOptions {
            pace: Pace::Times(100.0),
            fault_every: 0,
            ..DeskOptions::demo(dir.path().join("honest.db"))
        };
        let (desk, updates) = Desk::start(options).expect("the desk starts");
        let deadline = Instant::now() + Duration::from_secs(3);
        let mut raised = Vec::new();
        while Instant::now() < deadline {
            if let Ok(PitUpdate::IncidentRaised { incident }) =
                updates.recv_timeout(Duration::from_millis(200))
            {
                raised.push(incident);
            }
        }
        desk.stop();
        assert!(raised.is_empty(), "{raised:#?}");
    }
}

#[cfg(test)]
mod fold {
    use super::*;
    use pitwatch_rules::Engine;

    fn card(code: &str) -> Card {
        code.parse().expect("a card")
    }

    /// Feeds `event` to `engine` and the model the way the monitor publishes it: the event, what
    /// the engine derived, then the engine's view.
    fn feed(model: &mut PitModel, engine: &mut Engine, event: TableEvent) {
        let now = SystemClock.now();
        let table = String::from("BAC-1");
        engine.handle_event(&event);
        model.apply(
            &MonitorEvent::Derived {
                table: table.clone(),
                derived: Derived::Event(event),
            },
            now,
        );
        while let Some(output) = engine.poll_output() {
            model.apply(
                &MonitorEvent::Derived {
                    table: table.clone(),
                    derived: Derived::Output {
                        output,
                        incident: None,
                    },
                },
                now,
            );
        }
        let view = engine.view();
        model.apply(&MonitorEvent::View { table, view }, now);
    }

    fn drawn(seq: u64, code: &str, target: Target) -> TableEvent {
        TableEvent::new(
            seq,
            EventKind::CardDrawn {
                card: Some(card(code)),
                target: Some(target),
                index: None,
                face_up: None,
                retransmit: None,
            },
        )
    }

    fn shuffled(seq: u64) -> TableEvent {
        TableEvent::new(
            seq,
            EventKind::Shuffled {
                decks: None,
                cards: None,
                shuffler: None,
            },
        )
    }

    #[test]
    fn a_table_tile_shows_the_engines_view_round_by_round() {
        let pit = PitConfig::demo();
        let book = RuleBook::load(&pit.tables[0].rules).expect("the demo rule book");
        let size = book.composition().total_cards();
        let mut engine = Engine::new(book);
        let mut model = PitModel::new(&pit);
        assert_eq!(model.table("BAC-1").and_then(|t| t.cards_left), None);
        let mut seq = 0;
        let mut next = || {
            seq += 1;
            seq
        };
        feed(&mut model, &mut engine, shuffled(next()));
        // The burn: a five face up, then five cards.
        feed(&mut model, &mut engine, drawn(next(), "5H", Target::First));
        let tile = model.table("BAC-1").expect("BAC-1").clone();
        assert_eq!((tile.shoe, tile.cards_dealt), (1, 1));
        assert!(tile.burn_due && !tile.burn_done, "the burn is not over");
        for _ in 0..5 {
            feed(&mut model, &mut engine, drawn(next(), "2C", Target::Burn));
        }
        feed(&mut model, &mut engine, drawn(next(), "9S", Target::Player));
        feed(&mut model, &mut engine, drawn(next(), "KD", Target::Banker));
        let tile = model.table("BAC-1").expect("BAC-1").clone();
        assert!(tile.burn_done, "{tile:?}");
        assert_eq!(tile.cards_dealt, 8);
        assert_eq!(tile.cards_left, Some(size - 8));
        assert_eq!(tile.current.round, 1);
        assert_eq!(tile.current.player, [Some("9S".to_owned())]);
        assert_eq!(tile.current.banker, [Some("KD".to_owned())]);

        feed(&mut model, &mut engine, drawn(next(), "TC", Target::Player));
        feed(&mut model, &mut engine, drawn(next(), "2H", Target::Banker));
        let tile = model.table("BAC-1").expect("BAC-1").clone();
        let result = tile.current.result.expect("the round completed");
        assert_eq!(result.outcome, Some(RoundOutcome::Player));
        assert_eq!(
            (result.player_total, result.banker_total),
            (Some(9), Some(2))
        );
        assert_eq!(tile.rounds.len(), 1);

        // The next card starts round 2 with empty hands.
        feed(&mut model, &mut engine, drawn(next(), "AS", Target::Player));
        let tile = model.table("BAC-1").expect("BAC-1").clone();
        assert_eq!(tile.current.round, 2);
        assert_eq!(tile.current.player, [Some("AS".to_owned())]);
        assert_eq!(tile.current.banker, Vec::<Option<String>>::new());

        // A new shoe, as the engine counts it, starts the tile and the roads afresh.
        feed(&mut model, &mut engine, shuffled(next()));
        let tile = model.table("BAC-1").expect("BAC-1");
        assert_eq!(tile.shoe, engine.view().shoe);
        assert_eq!(tile.cards_dealt, 0, "{tile:?}");
        assert!(tile.rounds.iter().all(|r| r.shoe == tile.shoe));
    }

    #[test]
    fn a_device_error_shows_on_the_tile_until_it_clears_and_events_carry_their_receive_time() {
        let pit = PitConfig::demo();
        let book = RuleBook::load(&pit.tables[0].rules).expect("the demo rule book");
        let mut engine = Engine::new(book);
        let mut model = PitModel::new(&pit);
        let at = SystemClock.now();
        model.apply(
            &MonitorEvent::Link {
                table: "BAC-1".into(),
                state: LinkState::Connected,
                detail: "/dev/pts/9".into(),
                at,
            },
            at,
        );
        let error = TableEvent::new(
            1,
            EventKind::DeviceError {
                code: "E7".into(),
                text: "shoe jammed".into(),
            },
        )
        .at(at);
        feed(&mut model, &mut engine, error);
        let tile = model.table("BAC-1").expect("BAC-1");
        assert_eq!(tile.status, LinkStatus::Error);
        assert_eq!(tile.status_detail, "shoe jammed (device error E7)");
        assert_eq!(tile.last_event_at_ms, Some(at.unix_millis()));
        assert_eq!(tile.oldest_unsent_at_ms, Some(at.unix_millis()));
        let sent = model.take_unsent("BAC-1").expect("BAC-1");
        assert_eq!(sent.oldest_unsent_at_ms, Some(at.unix_millis()));
        assert_eq!(
            model.table("BAC-1").map(|t| t.oldest_unsent_at_ms),
            Some(None),
            "once sent, the event is no longer waiting"
        );
        let cleared = TableEvent::new(2, EventKind::DeviceErrorCleared { code: "E7".into() });
        feed(&mut model, &mut engine, cleared);
        let tile = model.table("BAC-1").expect("BAC-1");
        assert_eq!(tile.status, LinkStatus::Connected, "{tile:?}");
        assert_eq!(
            tile.last_event_at_ms,
            Some(at.unix_millis()),
            "an event without a time leaves the last one"
        );
    }

    #[test]
    fn a_tile_stays_in_error_until_every_device_error_is_cleared_even_across_a_reconnect() {
        let pit = PitConfig::demo();
        let book = RuleBook::load(&pit.tables[0].rules).expect("the demo rule book");
        let mut engine = Engine::new(book);
        let mut model = PitModel::new(&pit);
        let at = SystemClock.now();
        let link = |state| MonitorEvent::Link {
            table: "BAC-1".into(),
            state,
            detail: "serial /dev/pts/9 9600 8N1".into(),
            at,
        };
        model.apply(&link(LinkState::Connected), at);
        let raise = |seq, code: &str, text: &str| {
            TableEvent::new(
                seq,
                EventKind::DeviceError {
                    code: code.into(),
                    text: text.into(),
                },
            )
        };
        let clear = |seq, code: &str| {
            TableEvent::new(seq, EventKind::DeviceErrorCleared { code: code.into() })
        };
        let tile = |model: &PitModel| model.table("BAC-1").expect("BAC-1").clone();

        feed(&mut model, &mut engine, raise(1, "JAM", "card jam"));
        feed(&mut model, &mut engine, raise(2, "DOOR_OPEN", "door open"));
        let t = tile(&model);
        assert_eq!(t.status, LinkStatus::Error);
        assert_eq!(
            t.status_detail,
            "door open (device error DOOR_OPEN); card jam (device error JAM)"
        );

        // The jam is cleared; the door is still open.
        feed(&mut model, &mut engine, clear(3, "JAM"));
        let t = tile(&model);
        assert_eq!(t.status, LinkStatus::Error, "{t:?}");
        assert_eq!(t.status_detail, "door open (device error DOOR_OPEN)");

        // The link drops and comes back: the lost link shows, then the error still open.
        model.apply(&link(LinkState::Disconnected), at);
        assert_eq!(tile(&model).status, LinkStatus::Reconnecting);
        model.apply(&link(LinkState::Connected), at);
        let t = tile(&model);
        assert_eq!(t.status, LinkStatus::Error, "{t:?}");
        assert_eq!(t.status_detail, "door open (device error DOOR_OPEN)");

        feed(&mut model, &mut engine, clear(4, "DOOR_OPEN"));
        let t = tile(&model);
        assert_eq!(t.status, LinkStatus::Connected, "{t:?}");
        assert_eq!(t.status_detail, "device error DOOR_OPEN cleared");
    }

    #[test]
    fn a_device_error_open_before_a_restart_keeps_the_tile_in_error_until_cleared() {
        let pit = PitConfig::demo();
        let book = RuleBook::load(&pit.tables[0].rules).expect("the demo rule book");
        let mut engine = Engine::new(book);
        // Before the restart: the shoe jammed (the engine, rebuilt from the record, knows).
        engine.handle_event(&TableEvent::new(
            1,
            EventKind::DeviceError {
                code: "JAM".into(),
                text: "card jam".into(),
            },
        ));
        while engine.poll_output().is_some() {}
        // After it: a new model, the link up, the engine's view published at start.
        let mut model = PitModel::new(&pit);
        let at = SystemClock.now();
        model.apply(
            &MonitorEvent::Link {
                table: "BAC-1".into(),
                state: LinkState::Connected,
                detail: "serial /dev/pts/9 9600 8N1".into(),
                at,
            },
            at,
        );
        model.apply(
            &MonitorEvent::View {
                table: "BAC-1".into(),
                view: engine.view(),
            },
            at,
        );
        let t = model.table("BAC-1").expect("BAC-1").clone();
        assert_eq!(t.status, LinkStatus::Error, "{t:?}");
        assert_eq!(
            t.status_detail,
            "a device error raised before the restart is not cleared yet"
        );
        // A new error adds to it; clearing the old one leaves the new one.
        let raise = TableEvent::new(
            2,
            EventKind::DeviceError {
                code: "DOOR_OPEN".into(),
                text: "door open".into(),
            },
        );
        feed(&mut model, &mut engine, raise);
        let t = model.table("BAC-1").expect("BAC-1").clone();
        assert_eq!(
            t.status_detail,
            "door open (device error DOOR_OPEN); a device error raised before the restart is not \
             cleared yet"
        );
        let clear = |seq, code: &str| {
            TableEvent::new(seq, EventKind::DeviceErrorCleared { code: code.into() })
        };
        feed(&mut model, &mut engine, clear(3, "JAM"));
        let t = model.table("BAC-1").expect("BAC-1").clone();
        assert_eq!(t.status, LinkStatus::Error, "{t:?}");
        assert_eq!(t.status_detail, "door open (device error DOOR_OPEN)");
        feed(&mut model, &mut engine, clear(4, "DOOR_OPEN"));
        let t = model.table("BAC-1").expect("BAC-1").clone();
        assert_eq!(t.status, LinkStatus::Connected, "{t:?}");
    }

    #[test]
    fn link_changes_and_frames_show_on_the_tile() {
        let mut model = PitModel::new(&PitConfig::demo());
        let now = SystemClock.now();
        let (changed, raised) = model.apply(
            &MonitorEvent::Link {
                table: "MINI-1".into(),
                state: LinkState::Retrying,
                detail: "no such port".into(),
                at: now,
            },
            now,
        );
        assert_eq!(changed.as_deref(), Some("MINI-1"));
        assert!(raised.is_none());
        let tile = model.table("MINI-1").expect("MINI-1");
        assert_eq!(tile.status, LinkStatus::Reconnecting);
        assert_eq!(tile.status_detail, "no such port");
        model.apply(
            &MonitorEvent::Derived {
                table: "MINI-1".into(),
                derived: Derived::Frame {
                    accepted: false,
                    reason: Some("bad checksum".into()),
                },
            },
            now,
        );
        let tile = model.table("MINI-1").expect("MINI-1");
        assert_eq!((tile.frames_accepted, tile.frames_rejected), (0, 1));
        assert_eq!(tile.last_frame_ms, Some(now.unix_millis()));
        let (changed, _) = model.apply(
            &MonitorEvent::Link {
                table: "NOPE".into(),
                state: LinkState::Connected,
                detail: String::new(),
                at: now,
            },
            now,
        );
        assert!(changed.is_none(), "unknown tables are ignored");
    }
}
