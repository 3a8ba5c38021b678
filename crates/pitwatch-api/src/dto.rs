//! Data transfer objects: what crosses the IPC boundary to the web front end.
//!
//! Every type here derives `ts_rs::TS`; `ui/src/lib/bindings.ts` is generated from them by
//! [`crate::bindings::typescript_bindings`] and committed. The test `bindings_are_current` fails
//! when the committed file is stale; `make bindings` (or `UPDATE_BINDINGS=1 cargo test -p
//! pitwatch-api`) rewrites it. What is on a table, by game, is in [`crate::games`].

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::games::{self, GameRoundResult, ReplayPlay, RoundResult, TablePlay};
use pitwatch_games::GameKind;
use pitwatch_recording::pit::{Protocol, TableConfig};

mod devices;
pub use devices::*;
mod setup;
pub use setup::*;
mod workflow;
pub use workflow::*;
mod exposure;
pub use exposure::*;
mod access;
pub use access::*;
mod dealers;
pub use dealers::*;

/// The pit at a glance: one tile per table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PitOverview {
    /// The site's name.
    pub site: String,
    /// The site's time zone (an IANA name such as `Pacific/Auckland`, the pit definition's
    /// `site.time_zone`, checked on load), in which the window shows every time as the reports
    /// print them; none: UTC.
    pub time_zone: Option<String>,
    /// Whether the tables are the simulated demo pit.
    pub demo: bool,
    /// The demo supervisor's credentials, shown on the login screen of the demo pit only.
    pub demo_login: Option<DemoLogin>,
    /// The user logged in at this workstation, if any.
    pub session: Option<Session>,
    /// The tables, in the pit definition's order.
    pub tables: Vec<TableTile>,
    /// The record: where it is, who signs it, and what is wrong with it if anything.
    pub record: RecordStatus,
    /// Seconds without a key or a pointer movement after which the window locks (0: never).
    pub idle_lock_seconds: u32,
    /// Whether the logged-in user muted the alarm's sound (never while nobody is logged in).
    pub alarm_muted: bool,
    /// The pit definition's file (an administrator reloads it from the window); none for the
    /// built-in demo pit.
    pub pit_file: Option<String>,
    /// The program's version and build, as every report's footer prints them (About).
    pub build: BuildInfo,
}

/// The program's version and the git commit it was built from, when the build knew it: what
/// the About screen shows and every report prints in its footer (`pitwatch_report::build`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct BuildInfo {
    /// The version (`0.1.0`).
    pub version: String,
    /// The commit (12 hex digits), if the build knew it.
    pub commit: Option<String>,
    /// As a report prints it: `Pitwatch 0.1.0 (build 6929b7d1c2e3)`.
    pub label: String,
}

impl BuildInfo {
    /// This program's version and build.
    pub fn current() -> BuildInfo {
        BuildInfo {
            version: pitwatch_report::build::VERSION.to_owned(),
            commit: pitwatch_report::build::COMMIT.map(str::to_owned),
            label: pitwatch_report::build::label(),
        }
    }
}

/// How long a workstation may be left alone before it locks, by default (ten minutes).
pub const DEFAULT_IDLE_LOCK_SECONDS: u32 = 600;

/// The record as the workstation keeps it (Settings/About, and its alerts on every screen).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct RecordStatus {
    /// The database file recording goes to (a new segment after a record failed verification).
    pub path: String,
    /// The record's id (hex), once it has one.
    pub record_id: Option<String>,
    /// The fingerprint of the installation's signing key, which every checkpoint is signed with
    /// and every report prints.
    pub key_fingerprint: Option<String>,
    /// The latest signed checkpoint, as printed in reports (`pitwatch-checkpoint:1:…`).
    pub latest_checkpoint: Option<String>,
    /// The checkpoint journals that witness the record.
    pub journals: Vec<String>,
    /// What is wrong with the record or its witnesses, most serious first; each stays until
    /// what caused it is dealt with.
    pub alerts: Vec<RecordAlert>,
    /// Replication to the central database, when the pit definition names one.
    pub replication: Option<ReplicationState>,
}

/// How replication of this workstation's record to the central database stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ReplicationState {
    /// The central database's site and this workstation (`site/workstation`).
    pub workstation: String,
    /// Whether the last attempt reached the server.
    pub connected: bool,
    /// Why the last attempt failed, if it did (the URL's password never shown).
    pub error: Option<String>,
    /// Rows the server still lacks.
    pub rows_behind: i64,
    /// How far behind the server is, in seconds: record time not yet delivered, or how long the
    /// link has been down, whichever is more.
    pub seconds_behind: u64,
    /// The threshold past which replication is an alert, seconds.
    pub alert_after_s: u64,
    /// Rows the outbox refused to send (a record changed after replication), once each.
    pub refused: Vec<String>,
    /// A server found holding less than was delivered to it before (restored from a backup).
    pub behind: Vec<String>,
}

/// Something wrong with the record that every screen shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct RecordAlert {
    /// How serious: `critical` (the record failed verification) or `high` (a witness cannot be
    /// written).
    pub severity: Severity,
    /// What is wrong and what Pitwatch did about it, for people.
    pub message: String,
}

/// One table's tile in the pit overview, with everything live about it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct TableTile {
    /// The table's name, unique in the pit.
    pub name: String,
    /// The game dealt there.
    pub game: GameKind,
    /// The rule book it is checked against.
    pub rule_book: String,
    /// The protocol its device speaks.
    pub protocol: Protocol,
    /// How the device is reached, for people (`/dev/ttyUSB0 @ 4800 baud`, `tcp host:port`).
    pub link: String,
    /// The device link's state.
    pub status: LinkStatus,
    /// What the link last said (the port connected to, why it dropped, the device's error).
    pub status_detail: String,
    /// Every device of the table, the main one (whose protocol, link and state are above) first:
    /// a shoe and the shuffler beside it, say.
    pub devices: Vec<DeviceTile>,
    /// When the last frame arrived (Unix milliseconds), if any did since start-up.
    pub last_frame_ms: Option<i64>,
    /// Frames the codec accepted since start-up.
    pub frames_accepted: u64,
    /// Frames the codec rejected since start-up.
    pub frames_rejected: u64,
    /// When the host received the latest table event on the tile (the event's `at`, Unix
    /// milliseconds), if any arrived since start-up: the front end measures from it how long a
    /// live event takes to reach the screen.
    pub last_event_at_ms: Option<i64>,
    /// When the host received the oldest event this copy of the tile is the first to carry to
    /// the window (Unix milliseconds; `None` when it carries no new event): events wait for the
    /// desk's next flush, so the oldest one waited longest and its lag is the update's worst.
    pub oldest_unsent_at_ms: Option<i64>,
    /// The shoe being dealt (1-based in the table's record; 0 before the first shuffle seen).
    pub shoe: u32,
    /// Cards drawn from this shoe (burn cards included) since its shuffle.
    pub cards_dealt: u32,
    /// Cards left in the shoe, when the shoe's size is known.
    pub cards_left: Option<u32>,
    /// Whether the cutting card has come out (the next round is the last).
    pub cutting_card_out: bool,
    /// What is on the table, in the game's own terms.
    pub play: TablePlay,
    /// Incidents not yet resolved at this table, by severity.
    pub incidents: SeverityCounts,
    /// How well the shoe before this one was shuffled, judged when this one started (absent
    /// before a shoe has ended on record, and with a continuous shuffler).
    pub last_shuffle: Option<ShuffleQuality>,
    /// The steps of preparing the cards by hand that the rule book requires before each load, in
    /// order (Pontoon 6.4: `chemmy`, `stacking`, `riffle`), which the console offers; empty when
    /// the book requires none.
    pub shuffle_steps: Vec<String>,
    /// A liveness alarm standing on one of its devices (the main device's first): what the
    /// tile shows instead of live play, with what it shows greyed as stale.
    pub alarm: Option<DeviceAlarmView>,
    /// Why the table does not run, when its section of the pit definition is wrong: it is shown
    /// disabled, with its problems, while the other tables run.
    pub disabled: Option<DisabledView>,
}

/// A table whose section of the pit definition is wrong, as its tile shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct DisabledView {
    /// The line its `[[table]]` section starts on.
    pub line: u32,
    /// Everything wrong with it, each saying what is accepted.
    pub problems: Vec<String>,
}

impl From<&pitwatch_recording::pit::DisabledTable> for TableTile {
    fn from(table: &pitwatch_recording::pit::DisabledTable) -> Self {
        let config = table.shown();
        let mut tile = TableTile::from(&config);
        tile.status_detail = "disabled: its section of the pit definition is wrong".into();
        tile.disabled = Some(DisabledView {
            line: u32::try_from(table.line).unwrap_or(u32::MAX),
            problems: table.problems.clone(),
        });
        tile
    }
}

/// Counts of unresolved incidents by severity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SeverityCounts {
    /// Critical.
    pub critical: u32,
    /// High.
    pub high: u32,
    /// Medium.
    pub medium: u32,
    /// Low.
    pub low: u32,
}

impl SeverityCounts {
    /// Adds one incident of `severity`.
    pub fn add(&mut self, severity: Severity) {
        match severity {
            Severity::Critical => self.critical += 1,
            Severity::High => self.high += 1,
            Severity::Medium => self.medium += 1,
            Severity::Low => self.low += 1,
        }
    }
}

/// How serious an irregularity is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Worth a note.
    Low,
    /// Review at the table soon.
    Medium,
    /// Review now.
    High,
    /// Stop and review.
    Critical,
}

impl Severity {
    /// The severity named `name` (`low` … `critical`); unknown names count as high, so nothing
    /// is under-reported.
    pub fn parse(name: &str) -> Severity {
        match name {
            "low" => Severity::Low,
            "medium" => Severity::Medium,
            "critical" => Severity::Critical,
            _ => Severity::High,
        }
    }

    /// The severity's name (`low` … `critical`), as recorded.
    pub const fn as_str(self) -> &'static str {
        match self {
            Severity::Low => "low",
            Severity::Medium => "medium",
            Severity::High => "high",
            Severity::Critical => "critical",
        }
    }
}

/// An incident's place in the workflow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum IncidentStatus {
    /// Raised; nobody has acknowledged it.
    Open,
    /// Someone has taken it.
    Acknowledged,
    /// Closed with an outcome.
    Resolved,
}

/// One incident in a list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct IncidentRow {
    /// Its id.
    pub id: i64,
    /// The table.
    pub table: String,
    /// The irregularity's stable code.
    pub code: String,
    /// Its severity.
    pub severity: Severity,
    /// The rule cited.
    pub rule: String,
    /// The shoe, when in one.
    pub shoe: Option<u32>,
    /// The round, when in one.
    pub round: Option<u32>,
    /// The event that raised it.
    pub seq: u64,
    /// What happened, for a supervisor.
    pub message: String,
    /// When it was opened (RFC 3339).
    pub opened_at: String,
    /// Where it is in the workflow.
    pub status: IncidentStatus,
}

/// Which incidents to list, and which page of them; every filter narrows the list. A field left
/// out is no filter (and the first page, of [`DEFAULT_PAGE`] incidents).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, TS)]
#[serde(rename_all = "camelCase", default)]
pub struct IncidentQuery {
    /// Only this table.
    pub table: Option<String>,
    /// Only this status.
    pub status: Option<IncidentStatus>,
    /// Only incidents not yet resolved (open or acknowledged).
    pub unresolved: bool,
    /// Only this severity.
    pub severity: Option<Severity>,
    /// Only this irregularity code (`BURN_COUNT_MISMATCH`).
    pub code: Option<String>,
    /// Only opened at or after this time (RFC 3339).
    pub since: Option<String>,
    /// Only opened before this time (RFC 3339).
    pub until: Option<String>,
    /// The page after this cursor: only incidents with an id below it (the `next` of the page
    /// before); none for the first page.
    pub before: Option<i64>,
    /// At most this many incidents (1 to 1,000; [`DEFAULT_PAGE`] if none).
    pub limit: Option<u32>,
}

/// Incidents in a page when the query does not say.
pub const DEFAULT_PAGE: u32 = 100;

/// One page of incidents, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct IncidentPage {
    /// The incidents, newest first.
    pub incidents: Vec<IncidentRow>,
    /// The cursor for the next (older) page, when there is one.
    pub next: Option<i64>,
    /// How many incidents match the query in all.
    pub total: u64,
}

/// One shoe of a table in the replay picker.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ShoeRow {
    /// The shoe, 1-based in the table's record.
    pub shoe: u32,
    /// When its first event happened (RFC 3339), if known.
    pub started_at: Option<String>,
    /// When its last event so far happened, if known.
    pub ended_at: Option<String>,
    /// Rounds recorded in it.
    pub rounds: u32,
    /// Incidents opened in it.
    pub incidents: u32,
    /// How well its shuffle mixed the cards (absent with a continuous shuffler).
    pub shuffle: Option<ShuffleQuality>,
}

/// What the shuffle analysis concludes about a shoe (`docs/shuffle.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ShuffleVerdict {
    /// Nothing to compare with (the table's first shoe, or too few cards).
    NotCompared,
    /// No sign of the previous shoes' order.
    WellMixed,
    /// More of the previous order than a uniform shuffle often leaves, below the alarm.
    Weak,
    /// The previous order survives far beyond chance: `SHUFFLE_SUSPECT`.
    Suspect,
}

/// How well a shoe's shuffle mixed the cards, derived from the record on demand.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ShuffleQuality {
    /// The verdict.
    pub verdict: ShuffleVerdict,
    /// A short label: "well mixed", "weak: consistent with 3 riffles", "suspect: a block of 20
    /// cards kept", "not compared".
    pub label: String,
    /// Whether the shoe is still being dealt (statistics so far; it is judged, and may raise an
    /// incident, when the next shoe starts).
    pub provisional: bool,
    /// The statistics and p-values, for people.
    pub detail: String,
}

impl From<&pitwatch_shuffle::ShoeShuffle> for ShuffleQuality {
    fn from(shuffle: &pitwatch_shuffle::ShoeShuffle) -> ShuffleQuality {
        use pitwatch_shuffle::Verdict;
        ShuffleQuality {
            verdict: match shuffle.analysis.verdict {
                Verdict::NotCompared => ShuffleVerdict::NotCompared,
                Verdict::WellMixed => ShuffleVerdict::WellMixed,
                Verdict::Weak => ShuffleVerdict::Weak,
                Verdict::Suspect => ShuffleVerdict::Suspect,
            },
            label: shuffle.analysis.label(),
            provisional: shuffle.provisional,
            detail: shuffle.detail(),
        }
    }
}

/// A table's shoes, newest first, a page at a time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ShoePage {
    /// The table.
    pub table: String,
    /// The shoes, newest first.
    pub shoes: Vec<ShoeRow>,
    /// The cursor for older shoes (pass it as `before`), when there are any.
    pub next: Option<u32>,
}

/// An incident with everything a supervisor needs to work it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct IncidentDetail {
    /// The incident.
    pub incident: IncidentRow,
    /// The rule book the table is checked against.
    pub rule_book: String,
    /// The texts of the rules cited, as the rule book words them.
    pub rule_texts: Vec<RuleText>,
    /// The events that are evidence, and the round's other events, in order.
    pub timeline: Vec<TimelineEntry>,
    /// The round it happened in, when it completed, in its game's terms.
    pub round: Option<GameRoundResult>,
    /// Every workflow step, oldest first.
    pub history: Vec<HistoryEntry>,
}

/// A rule's number and text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct RuleText {
    /// The rule's number as the book gives it.
    pub number: String,
    /// Its text.
    pub text: String,
}

/// One event on an evidence timeline.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct TimelineEntry {
    /// Its sequence number in the table's stream.
    pub seq: u64,
    /// When it happened (RFC 3339), if known.
    pub at: Option<String>,
    /// What happened, for people.
    pub what: String,
    /// Whether the irregularity cites it as evidence.
    pub evidence: bool,
    /// Whether a supervisor entered it at the console (not a device frame).
    pub console: bool,
    /// The device frame that carried it, as received: printable ASCII as is, other bytes as
    /// `<hex>` (none for a console event).
    pub frame: Option<String>,
}

/// One step of an incident's workflow.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct HistoryEntry {
    /// When (RFC 3339).
    pub at: String,
    /// Who; none when the engine opened it.
    pub user: Option<String>,
    /// `opened`, `acknowledged`, `resolved`, `reopened`, `note`, or `device back` (a device
    /// liveness incident's device back, with how long it was gone).
    pub what: String,
    /// The note, the resolution, or why it was reopened.
    pub text: Option<String>,
}

/// The user logged in at this workstation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Session {
    /// The user's name.
    pub user: String,
    /// Their role (`supervisor`, `surveillance`, `admin`).
    pub role: String,
}

/// A user of this pit's database and their role.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct UserRow {
    /// The user's name.
    pub name: String,
    /// Their role (`supervisor`, `surveillance`, `admin`, `inspector`).
    pub role: String,
    /// When they were added (RFC 3339, as the record holds it).
    pub created_at: String,
    /// Whether they may log in (a deactivated user stays on record).
    pub active: bool,
    /// When their password was set (RFC 3339), as the audit log holds it: on being added, by
    /// an administrator's reset or by their own change.
    pub password_set_at: Option<String>,
    /// When they last logged in (RFC 3339), if ever.
    pub last_login_at: Option<String>,
    /// What their role may do (the commands' names, as audited): the access listing.
    pub may: Vec<String>,
}

/// One row of the audit log, for the audit view (failed logins, refused commands, every action).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct AuditRow {
    /// The row's number in the audit chain.
    pub id: i64,
    /// When (RFC 3339).
    pub at: String,
    /// Who (for a failed login: the name that was tried, as typed).
    pub user: String,
    /// What (`login.failed`, `access.forbidden`, `incident.resolve`, …).
    pub action: String,
    /// About what.
    pub subject: String,
    /// The details as recorded (for logins and refusals: JSON with the workstation).
    pub detail: String,
}

/// Credentials shown on the login screen of the demo pit (never for a real pit).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct DemoLogin {
    /// The demo supervisor's name.
    pub user: String,
    /// The demo supervisor's password.
    pub password: String,
    /// The demo's second supervisor, who accepts a shift's handover.
    pub incoming_user: String,
    /// Their password.
    pub incoming_password: String,
    /// The demo's administrator, who sets up tables and devices and manages users.
    pub admin_user: String,
    /// Their password.
    pub admin_password: String,
}

/// Something a supervisor saw that no device can: entered at the console for one table.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ConsoleEntry {
    /// A card was exposed while cutting or loading (`card` like `TD`, if seen).
    CardExposed {
        /// The card, if it was seen.
        card: Option<String>,
        /// `cutting`, `loading` or `dealing`.
        during: String,
    },
    /// The player cut the shoe at this position (cards from the front).
    Cut {
        /// The cut position.
        position: u32,
    },
    /// The cards were replaced.
    CardsReplaced,
    /// The table was left vacant.
    TableVacant,
    /// A step of preparing the cards before loading them was done (`chemmy`, `stacking` or
    /// `riffle`; Pontoon 6.4).
    ShuffleStep {
        /// The step.
        step: String,
    },
    /// A supervisor declares a misdeal (or rules that there is none) at a poker table.
    Misdeal {
        /// The book's lettered reason, `a` to `l`.
        reason: String,
        /// The seats affected (empty: the whole hand).
        seats: Vec<u8>,
        /// `misdeal`, `dead_hand`, `void_hand` or `played_out`.
        ruling: String,
    },
    /// A dealer signed in at the table: what follows is attributed to them (issue 30).
    DealerSignedIn {
        /// The dealer's name, as the pit writes it (not blank, at most 80 characters).
        dealer: String,
    },
    /// A dealer signed out of the table.
    DealerSignedOut {
        /// The dealer's name.
        dealer: String,
    },
}

/// A shoe as recorded, step by step, for the replay screen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ShoeReplay {
    /// The table.
    pub table: String,
    /// The rule book it was checked against.
    pub rule_book: String,
    /// The shoe replayed.
    pub shoe: u32,
    /// Whether the record verified intact: every hash chain (in full, or what was appended since
    /// it was last verified in full, as `verify_detail` says).
    pub verified: bool,
    /// What verification checked and found, for people.
    pub verify_detail: String,
    /// Where re-decoding the recorded bytes did not give the events on record (empty when it did).
    pub divergences: Vec<String>,
    /// Every event of the shoe, in order, with the table as it was just after it.
    pub steps: Vec<ReplayStep>,
    /// How well its shuffle mixed the cards, against the shoes before it (absent with a
    /// continuous shuffler).
    pub shuffle: Option<ShuffleQuality>,
}

/// One event of a replayed shoe and the table just after it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ReplayStep {
    /// The event's sequence number.
    pub seq: u64,
    /// When it happened (RFC 3339), if known.
    pub at: Option<String>,
    /// What happened, for people.
    pub what: String,
    /// Cards drawn from the shoe so far (burn cards included).
    pub cards_dealt: u32,
    /// Cards left in the shoe, when its size is known.
    pub cards_left: Option<u32>,
    /// Whether the cutting card has come out.
    pub cutting_card_out: bool,
    /// The table just after the event, in the game's own terms.
    pub play: ReplayPlay,
    /// The irregularities this event revealed (`code: message`).
    pub irregularities: Vec<String>,
}

/// A live change, pushed to the front end as the Tauri event `pit-update`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum PitUpdate {
    /// A table's tile changed.
    Table {
        /// The tile as it is now (boxed: it is much larger than the other updates).
        table: Box<TableTile>,
    },
    /// The engine raised an irregularity and an incident was opened for it.
    IncidentRaised {
        /// The new incident.
        incident: IncidentRow,
    },
    /// A supervisor acknowledged, annotated or resolved an incident.
    IncidentChanged {
        /// The incident as it is now.
        incident: IncidentRow,
    },
    /// The record's state changed (a verification failed, a journal cannot be written, or
    /// that was mended).
    Record {
        /// The record as it is now.
        record: RecordStatus,
    },
    /// Whether everything received is being recorded: sent when recording becomes degraded,
    /// every second while it is, and once when it has recovered.
    Recording {
        /// The state now.
        status: RecordingStatus,
    },
    /// The pit's tables changed (the pit definition was reloaded): every tile, in the pit
    /// definition's order. Tile changes sent after it are for these tiles.
    Tables {
        /// The tiles now.
        tables: Vec<TableTile>,
    },
}

/// Whether the monitor is recording everything it receives (shown on every screen when not).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct RecordingStatus {
    /// Whether recording is degraded: what arrives waits in the spool because the database
    /// cannot be written (or the backlog is still being written).
    pub degraded: bool,
    /// What is wrong (or, once recovered, what was), for people.
    pub reason: String,
    /// Since when (Unix milliseconds).
    pub since_ms: Option<i64>,
    /// Bytes waiting to be written.
    pub backlog_bytes: u64,
    /// Inputs (reads, connection changes) waiting to be written.
    pub backlog_inputs: u64,
    /// Bytes dropped because the spool was full (each loss is recorded as an incident).
    pub dropped_bytes: u64,
}

/// The state of a table's device link.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum LinkStatus {
    /// Defined but not being read (monitoring not started).
    NotMonitored,
    /// Connected and reading.
    Connected,
    /// Lost; trying again.
    Reconnecting,
    /// The device reports an error.
    Error,
}

impl From<&TableConfig> for TableTile {
    fn from(table: &TableConfig) -> Self {
        // What the tile shows before any event that only the book says (a poker table's variant,
        // the preparation steps a book requires).
        let book = table.rule_book().ok();
        TableTile {
            name: table.name.clone(),
            game: table.game,
            rule_book: table.rules.clone(),
            protocol: Protocol::from(&table.device()),
            link: table.describe_link(),
            status: LinkStatus::NotMonitored,
            status_detail: String::new(),
            devices: table.devices.iter().map(DeviceTile::from).collect(),
            last_frame_ms: None,
            frames_accepted: 0,
            frames_rejected: 0,
            last_event_at_ms: None,
            oldest_unsent_at_ms: None,
            shoe: 0,
            cards_dealt: 0,
            cards_left: None,
            cutting_card_out: false,
            play: games::initial_play(table.game, book.as_ref()),
            incidents: SeverityCounts::default(),
            last_shuffle: None,
            // Any game's book may list them (the built-in Baccarat books list none).
            shuffle_steps: book
                .as_ref()
                .map(|book| {
                    book.shuffle_steps()
                        .iter()
                        .map(|s| s.as_str().to_owned())
                        .collect()
                })
                .unwrap_or_default(),
            alarm: None,
            disabled: None,
        }
    }
}

/// A shift, for its handover report and its sign-off: from and to (RFC 3339, the end exclusive),
/// and one table or every table.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, TS)]
#[serde(rename_all = "camelCase", default)]
pub struct ShiftQuery {
    /// The shift's start.
    pub from: String,
    /// The shift's end.
    pub to: String,
    /// Only this table.
    pub table: Option<String>,
}

/// A shift report written to a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ShiftReportFile {
    /// Where the PDF was written.
    pub path: String,
    /// How many pages it has.
    pub pages: u32,
}

/// What surveillance enters about an incident (issue 32): kept as a note of its own form,
/// shown in the history and the report, listed in the evidence pack's manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SurveillanceLog {
    /// The camera or the recording reviewed (its reference).
    pub camera: String,
    /// The time code in that recording.
    pub time_code: String,
    /// The disposition: what the footage showed and what was decided.
    pub disposition: String,
    /// The employees involved, by name or badge (may be empty).
    pub employees: Vec<String>,
}

/// An incident's evidence pack written to a file (issue 32).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct EvidencePackFile {
    /// Where the pack was written.
    pub path: String,
    /// The fingerprint of the key that signed it, which `pitwatch verify --pack` checks it
    /// against.
    pub fingerprint: String,
    /// Its size in bytes.
    pub bytes: u64,
}

/// A hand-over sign-off, once on record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SignedOff {
    /// Who signed off.
    pub user: String,
    /// When (RFC 3339).
    pub at: String,
    /// The incoming supervisor who accepted the handover.
    pub accepted_by: String,
}

/// An error as the front end sees it: a code to switch on and a message for people.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS, thiserror::Error)]
#[error("{message}")]
pub struct ApiError {
    /// What kind of failure, for the UI to act on.
    pub code: ErrorCode,
    /// What happened, in words a supervisor understands.
    pub message: String,
}

impl ApiError {
    /// An error of kind `code` saying `message`.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ApiError {
        ApiError {
            code,
            message: message.into(),
        }
    }
}

impl From<pitwatch_report::RenderError> for ApiError {
    fn from(error: pitwatch_report::RenderError) -> ApiError {
        ApiError::new(ErrorCode::Internal, error.to_string())
    }
}

impl From<pitwatch_store::StoreError> for ApiError {
    fn from(error: pitwatch_store::StoreError) -> ApiError {
        use pitwatch_store::StoreError as E;
        let code = match &error {
            E::NotFound(_) => ErrorCode::NotFound,
            E::Denied(_) => ErrorCode::Unauthorised,
            E::Invalid(_) => ErrorCode::InvalidInput,
            // Another process records the table: a conflict the operator resolves.
            E::Leased { .. } => ErrorCode::Conflict,
            _ => ErrorCode::Internal,
        };
        ApiError::new(code, error.to_string())
    }
}

/// Kinds of failure the UI distinguishes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// A configuration or input is invalid.
    InvalidInput,
    /// The thing asked for does not exist.
    NotFound,
    /// Something failed inside Pitwatch.
    Internal,
    /// Nobody is logged in, or the credentials are wrong.
    Unauthorised,
    /// The action does not fit the current state (e.g. acknowledging a resolved incident).
    Conflict,
    /// The logged-in user's role may not do this (the refusal is audited).
    Forbidden,
    /// The password was right but is too old: its user must choose a new one.
    PasswordExpired,
}

// The surveillance view (issue 16): the central copy of every workstation's record, read-only.

/// One workstation as the surveillance view shows it: what the central database holds of it,
/// how far behind its copy is, and its tables as derived from its replicated record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CentralPit {
    /// The site (a casino).
    pub site: String,
    /// The workstation (a pit's Pitwatch): `site/workstation` names it in every other command.
    pub workstation: String,
    /// The site's name as its record gives it, if it does.
    pub site_name: Option<String>,
    /// The latest checkpoint the local mirror stands at (0: nothing signed delivered yet).
    pub checkpoint: i64,
    /// When that checkpoint was made (record time, RFC 3339).
    pub checkpoint_at: Option<String>,
    /// When the workstation last delivered (the server's clock, RFC 3339), if ever.
    pub last_delivery: Option<String>,
    /// Rows the workstation still had to send at its last delivery.
    pub rows_behind: i64,
    /// How far its latest checkpoint delivered was behind its record then (ms).
    pub ms_behind: i64,
    /// Rows the central database refused from it (a record changed after replication).
    pub refused: i64,
    /// Why its copy could not be read or refreshed (then the tables are as last read), if so.
    pub problem: Option<String>,
    /// Its incidents not yet resolved.
    pub open_incidents: u32,
    /// Its tables.
    pub tables: Vec<CentralTable>,
}

/// One table of a workstation as its replicated record stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CentralTable {
    /// The table's name.
    pub name: String,
    /// Its game (`baccarat`, `blackjack`, `pontoon`, `poker`).
    pub game: String,
    /// Its rule book.
    pub rule_book: String,
    /// Its current (latest) shoe, 0 before the first.
    pub shoe: u32,
    /// Rounds completed in that shoe.
    pub rounds: u32,
    /// When its latest event happened (RFC 3339), if the record says.
    pub last_event_at: Option<String>,
    /// Its latest round's result, if it has one (Baccarat).
    pub last_result: Option<RoundResult>,
    /// Its incidents not yet resolved.
    pub open_incidents: u32,
}

/// One workstation's page of incidents in the surveillance view.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CentralIncidents {
    /// The workstation (`site/workstation`).
    pub workstation: String,
    /// Its incidents matching the query, as the workstation's own list gives them.
    pub page: IncidentPage,
}

/// One incident in the surveillance view: read-only, with where to work it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CentralIncidentDetail {
    /// The workstation whose record holds it (`site/workstation`).
    pub workstation: String,
    /// Where its workflow (acknowledge, note, resolve) is done: the central copy takes no writes.
    pub work_it_at: String,
    /// The incident, its evidence and history, as the workstation shows it.
    pub detail: IncidentDetail,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_serialise_as_code_and_message() {
        let error = ApiError {
            code: ErrorCode::NotFound,
            message: "no table BAC-9".into(),
        };
        assert_eq!(
            serde_json::to_string(&error).unwrap(),
            r#"{"code":"not_found","message":"no table BAC-9"}"#
        );
    }
}
