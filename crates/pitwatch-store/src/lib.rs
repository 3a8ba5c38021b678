//! The Pitwatch record: a local SQLite database that keeps every byte a device sent, every frame
//! and event derived from it, incidents and their workflow, and an audit log, append-only and
//! hash-chained so that any change can be detected by [`Store::verify`].
//!
//! This is the only crate that knows SQL. It reads no clock: every time is passed in by the caller.
//! Writes go through a [`Batch`] (one transaction), which is how callers group-commit many frames
//! at once; nothing in a batch is visible, or derived from, until it commits.

pub mod archive;
pub mod audit;
pub mod books;
pub mod chain;
pub mod classify;
pub mod clock;
pub mod facts;
pub mod files;
pub mod groups;
pub mod health;
pub mod incidents;
pub mod lease;
pub mod migrate;
pub mod outbox;
pub mod pack;
pub mod rawsink;
pub mod seal;
pub mod shift;
pub mod shoes;
pub mod users;
pub mod verify;
pub mod witness;
pub mod writes;

mod batch;
mod config;
mod gate;
mod open;
mod reads;
mod upgrade;

use std::collections::HashMap;

pub use audit::AuditDigest;
pub use batch::Batch;
pub(crate) use batch::{append_row, Field, Head};
pub use books::{book_from_key, BookFrom};
pub use classify::Trouble;
pub use clock::clock_sample_key;
use gate::Gate;
pub use gate::Refusal;
pub use groups::{GroupRule, Grouped, IncidentGroup};
pub use health::{session_hello_key, DeviceHealth, Reported};
pub use incidents::{
    Actor, Incident, IncidentFilter, IncidentId, IncidentPage, IncidentStep, NewIncident,
    OpenCount, Status, INCIDENT_REOPEN, MAX_PAGE,
};
pub use lease::Lease;
use open::Seal;
pub use open::{KeySource, Sealing};
use pitwatch_model::TableEvent;
pub use reads::FrameRow;
use rusqlite::Connection;
pub use shift::{AuditEntry, DeviceErrorSpan, IncidentChange, PlayTally, Unresolved};
pub use shoes::{ShoeListing, ShoeStart};
pub(crate) use upgrade::upgrade_to_sealed;
pub use users::{
    LoginAttempt, Role, UserChange, UserRow, LOGIN, LOGIN_ATTEMPT, LOGIN_CONFIRMED, LOGIN_FAILED,
    LOGIN_REFUSED, MIN_PASSWORD_CHARS,
};

pub use facts::{DerivedProblem, FactValue};
pub use seal::{CheckpointText, KeyError, PublicKey, SigningKey};
pub use verify::{
    ChainMark, ChainProblem, ChainReport, CheckpointInfo, Depth, JournalReport, RowRange,
    VerifyOptions, VerifyReport,
};
pub use witness::JournalStatus;

/// What can go wrong with the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// SQLite reported an error.
    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// The database was written by a newer Pitwatch.
    #[error("the database has schema version {found}, newer than this Pitwatch supports ({supported}); use a newer Pitwatch")]
    NewerSchema {
        /// The database's version.
        found: u32,
        /// The newest version this binary knows.
        supported: u32,
    },
    /// A migration failed; nothing of it was applied.
    #[error("migration {version} ({name}) failed, the database is unchanged: {reason}")]
    Migration {
        /// The migration's number.
        version: u32,
        /// Its name.
        name: &'static str,
        /// SQLite's reason.
        reason: String,
    },
    /// The file is not a Pitwatch database (or not a database at all).
    #[error("{0}")]
    NotADatabase(String),
    /// A request that the record cannot take (e.g. resolving an incident twice).
    #[error("{0}")]
    Invalid(String),
    /// The thing asked for is not in the record.
    #[error("{0}")]
    NotFound(String),
    /// The user is unknown or the password wrong.
    #[error("{0}")]
    Denied(String),
    /// The installation's signing key cannot be used.
    #[error(transparent)]
    Key(#[from] KeyError),
    /// The record is not what was last signed, so it is not extended (see [`Store::batch`]):
    /// nothing was written. The record is kept as it is, as evidence.
    #[error("the record failed verification, so nothing is added to it: {0}. It is kept unchanged as evidence; `pitwatch verify --db FILE` says what failed. Record into a new database (the monitor and the desktop move to a new segment at their next start)")]
    Unverified(String),
    /// Another live process records the table (see [`lease`]).
    #[error("table {table} is being recorded by {holder}; stop it first (a table has one writer)")]
    Leased {
        /// The table.
        table: String,
        /// Who holds its lease.
        holder: String,
    },
}

/// A row id in `pit_tables`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TableId(pub i64);
/// A row id in `devices`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DeviceId(pub i64);
/// A row id in `device_sessions`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SessionId(pub i64);
/// A row id in `raw_chunks`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ChunkId(pub i64);
/// A row id in `frames`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FrameId(pub i64);

/// Who a device says it is, and where it is plugged in.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeviceIdentity {
    /// Protocol name (`angel-eye`, `barcode`, `pitwatch`).
    pub protocol: String,
    /// Manufacturer, when known.
    pub make: String,
    /// Model, when known.
    pub model: String,
    /// Serial number, when known.
    pub serial: String,
    /// Firmware version, when known.
    pub firmware: String,
    /// The codec settings in force, as JSON (`{}` for the protocol's defaults).
    pub settings: String,
    /// The port or address it was reached on.
    pub port: String,
}

/// A table in the record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableRow {
    /// Its id.
    pub id: TableId,
    /// Its name.
    pub name: String,
    /// Its game.
    pub game: String,
    /// Its rule book.
    pub rule_book: String,
}

/// A device session in the record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRow {
    /// Its id.
    pub id: SessionId,
    /// The device.
    pub device: DeviceIdentity,
    /// When it connected.
    pub started_at: String,
    /// When it ended, if it has.
    pub ended_at: Option<String>,
    /// Why it ended.
    pub end_reason: Option<String>,
}

/// A stored event with where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventRow {
    /// The device session, or `None` for a console event.
    pub session: Option<SessionId>,
    /// The frame, or `None` for a console event.
    pub frame: Option<FrameId>,
    /// The event.
    pub event: TableEvent,
}

fn settings_or_default(settings: &str) -> &str {
    if settings.trim().is_empty() {
        "{}"
    } else {
        settings
    }
}

/// The meta key of the record's id (16 random bytes, hex), chosen when it is created.
pub const RECORD_ID: &str = "record_id";
/// The meta key of the row counts (per signed chain) written before the record was signed.
pub const UNSIGNED_BEFORE: &str = "unsigned_before";

/// The record.
pub struct Store {
    conn: Connection,
    heads: HashMap<&'static str, Head>,
    seal: Option<Seal>,
    /// Keys verification trusts besides this store's own.
    trusted: Vec<PublicKey>,
    /// Argon2 verifications run by [`Store::authenticate`] (see [`Store::password_checks`]).
    password_checks: std::sync::atomic::AtomicU64,
    /// Whether this process has checked the record before extending it (see [`Store::batch`]).
    gate: Gate,
    /// What the latest verification through this store found wrong, if anything.
    failed: std::cell::RefCell<Option<String>>,
    /// A record failure found by a read (an account that differs from its chained fact) or by a
    /// verification elsewhere ([`Store::refusal_handle`]): the next batch is refused with it.
    poisoned: Refusal,
}
