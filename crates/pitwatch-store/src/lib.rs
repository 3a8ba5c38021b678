//! The Pitwatch record: a local SQLite database that keeps every byte a device sent, every frame
//! and event derived from it, incidents and their workflow, and an audit log, append-only and
//! hash-chained so that any change can be detected by [`Store::verify`].
//!
//! This is the only crate that knows SQL. It reads no clock: every time is passed in by the caller.
//! Writes go through a [`Batch`] (one transaction), which is how callers group-commit many frames
//! at once; nothing in a batch is visible, or derived from, until it commits.

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
pub mod rawsink;
pub mod seal;
pub mod shift;
pub mod shoes;
pub mod users;
pub mod verify;
pub mod witness;
pub mod writes;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

pub use classify::Trouble;
pub use clock::clock_sample_key;
pub use groups::{GroupRule, Grouped, IncidentGroup};
pub use health::{session_hello_key, DeviceHealth, Reported};
pub use incidents::{
    Actor, Incident, IncidentFilter, IncidentId, IncidentPage, IncidentStep, NewIncident,
    OpenCount, Status, INCIDENT_REOPEN, MAX_PAGE,
};
pub use lease::Lease;
use pitwatch_model::{TableEvent, Timestamp};
use rusqlite::types::{ToSqlOutput, Value, ValueRef};
use rusqlite::{params, Connection, OptionalExtension, ToSql};
pub use shift::{AuditEntry, DeviceErrorSpan, IncidentChange, PlayTally, Unresolved};
pub use shoes::{ShoeListing, ShoeStart};
pub use users::{
    LoginAttempt, Role, UserChange, UserRow, LOGIN, LOGIN_ATTEMPT, LOGIN_CONFIRMED, LOGIN_FAILED,
    LOGIN_REFUSED, MIN_PASSWORD_CHARS,
};

use chain::{Chain, Hash, CHAINS, GENESIS};
pub use facts::{DerivedProblem, FactValue};
use password_hash::rand_core::{OsRng, RngCore};
pub use seal::{CheckpointText, KeyError, PublicKey, SigningKey};
pub use verify::{
    ChainMark, ChainProblem, ChainReport, CheckpointInfo, Depth, JournalReport, RowRange,
    VerifyOptions, VerifyReport,
};
pub use witness::JournalStatus;
use witness::Witness;

fn new_record_id() -> [u8; 16] {
    let mut id = [0u8; 16];
    OsRng.fill_bytes(&mut id);
    id
}

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

/// A recorded frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameRow {
    /// Its id.
    pub id: FrameId,
    /// Its session.
    pub session: SessionId,
    /// Host receive time, ms since the Unix epoch.
    pub received_at_ms: i64,
    /// The bytes.
    pub bytes: Vec<u8>,
    /// Whether the codec accepted it.
    pub accepted: bool,
    /// Why it was rejected.
    pub reason: Option<String>,
    /// Its hash in the chain, hex.
    pub hash: String,
}

fn frame_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<FrameRow> {
    Ok(FrameRow {
        id: FrameId(r.get(0)?),
        session: SessionId(r.get(1)?),
        received_at_ms: r.get(2)?,
        bytes: r.get(3)?,
        accepted: r.get::<_, i64>(4)? == 1,
        reason: r.get(5)?,
        hash: hex::encode(r.get::<_, Vec<u8>>(6)?),
    })
}

/// The head of one chain: the last row's id and hash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Head {
    last_id: i64,
    hash: Hash,
}

/// The meta key of the record's id (16 random bytes, hex), chosen when it is created.
pub const RECORD_ID: &str = "record_id";
/// The meta key of the row counts (per signed chain) written before the record was signed.
pub const UNSIGNED_BEFORE: &str = "unsigned_before";

/// Where the installation's signing key comes from.
#[derive(Debug, Clone)]
pub enum KeySource {
    /// A key file: read if it exists, created (owner-only) if it does not and the record has
    /// never been signed; a record that was signed and whose key file is missing is refused.
    File(PathBuf),
    /// A key already in hand.
    Key(SigningKey),
}

/// How a writable store signs: the key, and where its checkpoints are witnessed.
#[derive(Debug, Clone)]
pub struct Sealing {
    /// The signing key.
    pub key: KeySource,
    /// Further witness folders (each gets `<record id>.checkpoints`), besides the journal kept
    /// beside the database file.
    pub witness_dirs: Vec<PathBuf>,
    /// How far, in checkpoint time, a journal may trail the record (ms).
    pub journal_interval_ms: i64,
}

impl Sealing {
    /// Signing with the key in `path` (see [`KeySource::File`]).
    pub fn key_file(path: impl Into<PathBuf>) -> Sealing {
        Sealing {
            key: KeySource::File(path.into()),
            witness_dirs: Vec::new(),
            journal_interval_ms: 1000,
        }
    }

    /// Signing with `key`.
    pub fn key(key: SigningKey) -> Sealing {
        Sealing {
            key: KeySource::Key(key),
            witness_dirs: Vec::new(),
            journal_interval_ms: 1000,
        }
    }

    /// Also witnessed in `dir`.
    pub fn witness_dir(mut self, dir: impl Into<PathBuf>) -> Sealing {
        self.witness_dirs.push(dir.into());
        self
    }
}

/// Journal lines (at most one a second each) between two writes of the journals' markers: an
/// hour's worth, so a first check after any run reads at most about an hour of journal.
const VOUCH_EVERY: u64 = 3600;

/// What a writable store signs with.
struct Seal {
    key: SigningKey,
    /// The record's id.
    record: [u8; 16],
    /// Whether the record's id is on record yet (the first batch of a new record writes it).
    record_written: bool,
    witness: Witness,
    /// The witness's line count when the journals' markers were last written.
    vouched_at: u64,
    /// The witness folders and interval it was opened with, to open the record again alike.
    witness_dirs: Vec<PathBuf>,
    journal_interval_ms: i64,
}

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

/// A way to stop a store extending the record from elsewhere (a verification running on
/// another connection that finds the record failed): every later batch of that store is refused.
#[derive(Debug, Clone, Default)]
pub struct Refusal(std::sync::Arc<std::sync::Mutex<Option<String>>>);

impl Refusal {
    /// Refuses every later batch of the store this came from, saying `why`.
    pub fn refuse(&self, why: impl Into<String>) {
        let mut slot = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        slot.get_or_insert_with(|| why.into());
    }

    fn reason(&self) -> Option<String> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }
}

/// The write gate: nothing extends a record it has not checked.
#[derive(Debug, Clone)]
enum Gate {
    /// Not checked yet: the first batch checks the record as start-up does.
    Unchecked,
    /// Checked (or written by this store) up to [`Store::heads`].
    Trusted,
    /// The record failed: nothing more is appended through this store.
    Refused(String),
}

impl Store {
    /// Opens (creating if needed) the database at `path`, in WAL mode, migrated to the latest
    /// schema, signing every write transaction as `sealing` says.
    pub fn open(path: impl AsRef<Path>, sealing: &Sealing) -> Result<Store, StoreError> {
        let path = path.as_ref();
        // Owner-only before SQLite opens it: its WAL and shared memory take its permissions.
        if !path.as_os_str().is_empty() && path.to_str() != Some(":memory:") {
            files::create_private(path).map_err(|e| {
                StoreError::NotADatabase(format!("cannot create {}: {e}", path.display()))
            })?;
        }
        let conn = Connection::open(path)?;
        Store::setup(conn, sealing, Some(path))
    }

    /// A throw-away database in memory, for tests, signed by a key that lives as long as it.
    pub fn open_in_memory() -> Result<Store, StoreError> {
        Store::setup(
            Connection::open_in_memory()?,
            &Sealing::key(SigningKey::generate()),
            None,
        )
    }

    /// Opens an existing database for reading and checking only; nothing is created or migrated.
    pub fn open_read_only(path: impl AsRef<Path>) -> Result<Store, StoreError> {
        let conn = Connection::open_with_flags(
            path.as_ref(),
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        let version = migrate::version(&conn).map_err(|e| {
            StoreError::NotADatabase(format!(
                "{} is not a Pitwatch database: {e}",
                path.as_ref().display()
            ))
        })?;
        if version == 0 {
            return Err(StoreError::NotADatabase(format!(
                "{} is not a Pitwatch database (no schema)",
                path.as_ref().display()
            )));
        }
        if version > migrate::LATEST {
            return Err(StoreError::NewerSchema {
                found: version,
                supported: migrate::LATEST,
            });
        }
        // A reader that starts while a writer commits waits for it, as writers wait for each
        // other (a record in rollback-journal mode, such as a surveillance mirror, is locked
        // whole while its refresh commits).
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        let heads = load_heads(&conn)?;
        Ok(Store {
            conn,
            heads,
            seal: None,
            trusted: Vec::new(),
            password_checks: Default::default(),
            gate: Gate::Unchecked,
            failed: Default::default(),
            poisoned: Default::default(),
        })
    }

    fn setup(
        mut conn: Connection,
        sealing: &Sealing,
        path: Option<&Path>,
    ) -> Result<Store, StoreError> {
        // WAL: readers never block the writer; with synchronous=FULL a committed transaction
        // survives power loss, which is the promise the record makes.
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "FULL")?;
        conn.pragma_update(None, "foreign_keys", true)?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        // The key first: a signed record whose key is gone is refused before anything changes.
        let signed_by = match migrate::version(&conn)? {
            v if v >= migrate::SEALED => verify::latest_checkpoint(&conn)?.map(|c| c.public_key),
            _ => None,
        };
        let key = match &sealing.key {
            KeySource::Key(key) => key.clone(),
            KeySource::File(file) if file.exists() => SigningKey::load(file)?,
            KeySource::File(file) => match signed_by {
                Some(public_key) => {
                    return Err(KeyError::Missing {
                        path: file.clone(),
                        fingerprint: seal::fingerprint(&public_key),
                    }
                    .into())
                }
                // Another process may create it at the same moment: then it is read.
                None => match SigningKey::create(file) {
                    Err(KeyError::Create { .. }) if file.exists() => SigningKey::load(file)?,
                    other => other?,
                },
            },
        };
        migrate::migrate(&mut conn)?;
        let heads = load_heads(&conn)?;
        let (record, _) = verify::record_meta(&conn)?;
        let (record, record_written) = match record.and_then(|r| hex::decode(r).ok()) {
            Some(bytes) => (
                bytes
                    .try_into()
                    .map_err(|_| StoreError::NotADatabase("the record's id is malformed".into()))?,
                true,
            ),
            None => (new_record_id(), false),
        };
        let mut journals: Vec<PathBuf> = path.map(witness::journal_beside).into_iter().collect();
        journals.extend(
            sealing
                .witness_dirs
                .iter()
                .map(|dir| witness::journal_in(dir, &hex::encode(record))),
        );
        Ok(Store {
            conn,
            heads,
            seal: Some(Seal {
                key,
                record,
                record_written,
                witness: Witness::new(journals, sealing.journal_interval_ms),
                vouched_at: 0,
                witness_dirs: sealing.witness_dirs.clone(),
                journal_interval_ms: sealing.journal_interval_ms,
            }),
            trusted: Vec::new(),
            password_checks: Default::default(),
            gate: Gate::Unchecked,
            failed: Default::default(),
            poisoned: Default::default(),
        })
    }

    /// How this store signs, to open the same record again on another connection (a writer
    /// that must reconnect after an I/O error); `None` for a read-only store.
    pub fn sealing(&self) -> Option<Sealing> {
        self.seal.as_ref().map(|seal| Sealing {
            key: KeySource::Key(seal.key.clone()),
            witness_dirs: seal.witness_dirs.clone(),
            journal_interval_ms: seal.journal_interval_ms,
        })
    }

    /// The database file, if the record is not in memory.
    pub fn path(&self) -> Option<PathBuf> {
        self.conn
            .path()
            .filter(|p| !p.is_empty())
            .map(PathBuf::from)
    }

    /// The keys this store trusts: its own (none for a read-only store) and those given.
    pub fn trusted_keys(&self) -> Vec<PublicKey> {
        self.seal
            .iter()
            .map(|s| s.key.public())
            .chain(self.trusted.iter().copied())
            .collect()
    }

    /// Trusts `keys` when verifying (a read-only store trusts no key of its own).
    pub fn trust(&mut self, keys: Vec<PublicKey>) {
        self.trusted.extend(keys);
    }

    /// The public key this store signs with (none for a read-only store).
    pub fn public_key(&self) -> Option<PublicKey> {
        self.seal.as_ref().map(|s| s.key.public())
    }

    /// The record's id (hex), once it has one.
    pub fn record_id(&self) -> Result<Option<String>, StoreError> {
        Ok(verify::record_meta(&self.conn)?.0)
    }

    /// The journals this store witnesses its checkpoints in (for a read-only store: the one
    /// beside the database file).
    pub fn journals(&self) -> Vec<PathBuf> {
        match &self.seal {
            Some(seal) => seal.witness.status().into_iter().map(|j| j.path).collect(),
            None => self
                .conn
                .path()
                .filter(|p| !p.is_empty())
                .map(|p| witness::journal_beside(Path::new(p)))
                .into_iter()
                .collect(),
        }
    }

    /// The journals and what went wrong writing each, if anything (a journal that cannot be
    /// written never stops recording, but must be shown).
    pub fn journal_status(&self) -> Vec<JournalStatus> {
        self.seal
            .as_ref()
            .map(|s| s.witness.status())
            .unwrap_or_default()
    }

    /// Writes the checkpoint the journals were kept waiting for, if any (call when idle).
    pub fn flush_witness(&mut self) {
        if let Some(seal) = &mut self.seal {
            seal.witness.flush();
        }
    }

    /// The latest checkpoint in the record, as it would be written down (no signature check:
    /// see [`Store::verify`]).
    pub fn latest_checkpoint(&self) -> Result<Option<CheckpointText>, StoreError> {
        let (record, _) = verify::record_meta(&self.conn)?;
        if self.schema_version()? < migrate::SEALED {
            return Ok(None);
        }
        Ok(
            verify::latest_checkpoint(&self.conn)?.map(|row| CheckpointText {
                record: record.unwrap_or_default(),
                id: row.id,
                at: row.at,
                hash: row.hash.try_into().unwrap_or(GENESIS),
                key: seal::fingerprint(&row.public_key),
            }),
        )
    }

    /// The schema version of the open database.
    pub fn schema_version(&self) -> Result<u32, StoreError> {
        migrate::version(&self.conn)
    }

    /// The table named `name`, created with `game` and `rule_book` if it is new.
    pub fn ensure_table(
        &mut self,
        name: &str,
        game: &str,
        rule_book: &str,
        now: Timestamp,
    ) -> Result<TableId, StoreError> {
        self.configure_table(name, game, rule_book, None, now)
    }

    /// The table named `name`, judged by `rule_book` whose TOML is `book` (kept in the record,
    /// so replay judges it by the same rules): created if new; if its game or rule book changed
    /// since recorded, the change is recorded (a chained fact).
    pub fn configure_table(
        &mut self,
        name: &str,
        game: &str,
        rule_book: &str,
        book: Option<&str>,
        now: Timestamp,
    ) -> Result<TableId, StoreError> {
        let existing: Option<(i64, String, String, Option<String>)> = self
            .conn
            .query_row(
                "SELECT id, game, rule_book, book FROM pit_tables WHERE name = ?1",
                [name],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
            )
            .optional()?;
        let at = now.to_string();
        let mut batch = self.batch(now)?;
        let id = match existing {
            Some((id, g, r, b))
                if g == game && r == rule_book && (book.is_none() || b.as_deref() == book) =>
            {
                return Ok(TableId(id));
            }
            Some((id, _, _, _)) => {
                batch.put_fact(
                    &facts::PIT_TABLES,
                    &[
                        ("id", id.into()),
                        ("game", game.into()),
                        ("rule_book", rule_book.into()),
                        ("book", book.into()),
                    ],
                    &at,
                )?;
                id
            }
            None => {
                let id = batch.next_id("pit_tables")?;
                batch.put_fact(
                    &facts::PIT_TABLES,
                    &[
                        ("id", id.into()),
                        ("name", name.into()),
                        ("game", game.into()),
                        ("rule_book", rule_book.into()),
                        ("created_at", at.as_str().into()),
                        ("book", book.into()),
                    ],
                    &at,
                )?;
                id
            }
        };
        batch.commit()?;
        Ok(TableId(id))
    }

    /// The id of the table named `name`, if recorded.
    pub fn table_id(&self, name: &str) -> Result<Option<TableId>, StoreError> {
        Ok(self
            .conn
            .query_row("SELECT id FROM pit_tables WHERE name = ?1", [name], |r| {
                r.get(0)
            })
            .optional()?
            .map(TableId))
    }

    /// The rule book's TOML as recorded for `table` (`None` for a record from before it was kept).
    pub fn table_book(&self, table: TableId) -> Result<Option<String>, StoreError> {
        if self.schema_version()? < migrate::SEALED {
            return Ok(None);
        }
        Ok(self
            .conn
            .query_row(
                "SELECT book FROM pit_tables WHERE id = ?1",
                [table.0],
                |r| r.get(0),
            )
            .optional()?
            .flatten())
    }

    /// The device with this identity, recorded on first sight.
    pub fn ensure_device(
        &mut self,
        device: &DeviceIdentity,
        now: Timestamp,
    ) -> Result<DeviceId, StoreError> {
        let mut batch = self.batch(now)?;
        let id = batch.ensure_device(device, now)?;
        batch.commit()?;
        Ok(id)
    }

    /// Records that `device` connected to `table`.
    pub fn start_session(
        &mut self,
        table: TableId,
        device: DeviceId,
        now: Timestamp,
    ) -> Result<SessionId, StoreError> {
        let mut batch = self.batch(now)?;
        let id = batch.start_session(table, device, now)?;
        batch.commit()?;
        Ok(id)
    }

    /// Records that a session ended, and why (a session already ended keeps its first end).
    pub fn end_session(
        &mut self,
        session: SessionId,
        now: Timestamp,
        reason: &str,
    ) -> Result<(), StoreError> {
        let mut batch = self.batch(now)?;
        batch.end_session(session, now, reason)?;
        batch.commit()
    }

    /// Starts a batch of appends at `now`: one transaction, committed (and signed) by
    /// [`Batch::commit`].
    pub fn batch(&mut self, now: Timestamp) -> Result<Batch<'_>, StoreError> {
        if let Some(why) = self.poisoned.reason() {
            self.gate = Gate::Refused(why);
        }
        if let Gate::Refused(why) = &self.gate {
            return Err(StoreError::Unverified(why.clone()));
        }
        let journals = match self.gate {
            Gate::Unchecked => self.journals(),
            _ => Vec::new(),
        };
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        // The chain heads are read inside the write transaction, so several connections (the
        // monitor's writer and the desktop's incident actions) can append to the same chains
        // without forking them: SQLite lets one writer in at a time, and each sees the last head.
        let heads = load_heads(&tx)?;
        // Nothing extends a record it has not checked: the first batch checks the record as
        // start-up does (signature, heads, journals, schema); later ones, if another connection
        // appended meanwhile, hash every row since what this store checked or wrote last.
        match self.gate {
            Gate::Trusted if heads == self.heads => {}
            _ => {
                let marks = matches!(self.gate, Gate::Trusted).then(|| {
                    self.heads
                        .iter()
                        .map(|(table, head)| ChainMark {
                            table,
                            last_id: head.last_id,
                            hash: head.hash,
                        })
                        .collect()
                });
                let trusted = self
                    .seal
                    .iter()
                    .map(|s| s.key.public())
                    .chain(self.trusted.iter().copied())
                    .collect();
                let (report, vouchable) = verify::gate_check(&tx, trusted, &journals, marks)?;
                if !report.intact() {
                    let why = report.problems.join("; ");
                    drop(tx);
                    self.gate = Gate::Refused(why.clone());
                    return Err(StoreError::Unverified(why));
                }
                // The journals hold nothing the record lacks: vouch for what was read of them,
                // so the next process's first check reads only what is appended after it. A
                // marker that cannot be written only means that check reads more.
                if let Some(seal) = &self.seal {
                    for (path, read) in &vouchable {
                        let _ = read.write(path, &seal.key);
                    }
                }
                self.gate = Gate::Trusted;
                self.heads = heads.clone();
            }
        }
        let mut batch = Batch {
            start: heads.clone(),
            heads,
            tx,
            store_heads: &mut self.heads,
            seal: self.seal.as_mut(),
            now,
        };
        let pending = batch.seal.as_ref().is_some_and(|s| !s.record_written);
        if pending {
            // Another connection may have given the record its id since this one opened.
            let (written, _) = verify::record_meta(&batch.tx)?;
            match written.and_then(|w| <[u8; 16]>::try_from(hex::decode(w).ok()?).ok()) {
                Some(id) => {
                    if let Some(seal) = batch.seal.as_deref_mut() {
                        seal.record = id;
                        seal.record_written = true;
                    }
                }
                None => {
                    let id = batch.seal.as_ref().map(|s| hex::encode(s.record));
                    let at = now.to_string();
                    batch.put_fact(
                        &facts::META,
                        &[
                            ("key", RECORD_ID.into()),
                            ("value", id.unwrap_or_default().into()),
                        ],
                        &at,
                    )?;
                }
            }
        }
        Ok(batch)
    }

    /// The events recorded for `table`, in `seq` order.
    pub fn events(&self, table: TableId) -> Result<Vec<TableEvent>, StoreError> {
        let mut statement = self
            .conn
            .prepare("SELECT body FROM events WHERE table_id = ?1 ORDER BY seq")?;
        let rows = statement.query_map([table.0], |r| r.get::<_, String>(0))?;
        let mut events = Vec::new();
        for body in rows {
            let body = body?;
            let event = serde_json::from_str::<TableEvent>(&body).map_err(|e| {
                StoreError::NotADatabase(format!("an event row does not decode: {e}"))
            })?;
            events.push(event);
        }
        Ok(events)
    }

    /// The raw chunks of one device session, in order: (host receive time in ms, bytes).
    pub fn chunks(&self, session: SessionId) -> Result<Vec<(i64, Vec<u8>)>, StoreError> {
        let mut statement = self.conn.prepare(
            "SELECT received_at_ms, bytes FROM raw_chunks WHERE session_id = ?1 ORDER BY id",
        )?;
        let rows = statement.query_map([session.0], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Every table in the record: (id, name, game, rule book), by name.
    pub fn tables(&self) -> Result<Vec<TableRow>, StoreError> {
        let mut statement = self
            .conn
            .prepare("SELECT id, name, game, rule_book FROM pit_tables ORDER BY name")?;
        let rows = statement.query_map([], |r| {
            Ok(TableRow {
                id: TableId(r.get(0)?),
                name: r.get(1)?,
                game: r.get(2)?,
                rule_book: r.get(3)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The device sessions of `table`, in order, with the device's identity.
    pub fn sessions(&self, table: TableId) -> Result<Vec<SessionRow>, StoreError> {
        let mut statement = self.conn.prepare(
            "SELECT s.id, d.protocol, d.make, d.model, d.serial, d.firmware, d.settings, d.port, \
             s.started_at, s.ended_at, s.end_reason FROM device_sessions s JOIN devices d ON d.id = s.device_id \
             WHERE s.table_id = ?1 ORDER BY s.id",
        )?;
        let rows = statement.query_map([table.0], |r| {
            Ok(SessionRow {
                id: SessionId(r.get(0)?),
                device: DeviceIdentity {
                    protocol: r.get(1)?,
                    make: r.get(2)?,
                    model: r.get(3)?,
                    serial: r.get(4)?,
                    firmware: r.get(5)?,
                    settings: r.get(6)?,
                    port: r.get(7)?,
                },
                started_at: r.get(8)?,
                ended_at: r.get(9)?,
                end_reason: r.get(10)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The events of `table` in `seq` order, each with the session and frame it came from
    /// (`None` for events entered at the console).
    pub fn event_rows(&self, table: TableId) -> Result<Vec<EventRow>, StoreError> {
        let mut statement = self.conn.prepare(
            "SELECT session_id, frame_id, body FROM events WHERE table_id = ?1 ORDER BY seq",
        )?;
        let rows = statement.query_map([table.0], |r| {
            Ok((
                r.get::<_, Option<i64>>(0)?,
                r.get::<_, Option<i64>>(1)?,
                r.get::<_, String>(2)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (session, frame, body) = row?;
            let event = serde_json::from_str::<TableEvent>(&body).map_err(|e| {
                StoreError::NotADatabase(format!("an event row does not decode: {e}"))
            })?;
            out.push(EventRow {
                session: session.map(SessionId),
                frame: frame.map(FrameId),
                event,
            });
        }
        Ok(out)
    }

    /// The rounds recorded live for `table`: (shoe, round, body as JSON), in order.
    pub fn rounds(&self, table: TableId) -> Result<Vec<(u32, u32, String)>, StoreError> {
        let mut statement = self.conn.prepare(
            "SELECT shoe, round, body FROM rounds WHERE table_id = ?1 ORDER BY shoe, round",
        )?;
        let rows = statement.query_map([table.0], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Sets an installation fact (e.g. `site`).
    pub fn set_meta(&mut self, key: &str, value: &str, now: Timestamp) -> Result<(), StoreError> {
        if self.meta(key)?.as_deref() == Some(value) {
            return Ok(());
        }
        let at = now.to_string();
        let mut batch = self.batch(now)?;
        batch.put_fact(
            &facts::META,
            &[("key", key.into()), ("value", value.into())],
            &at,
        )?;
        batch.commit()
    }

    /// An installation fact, if set.
    pub fn meta(&self, key: &str) -> Result<Option<String>, StoreError> {
        Ok(self
            .conn
            .query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
            .optional()?)
    }

    /// One recorded frame.
    pub fn frame(&self, id: FrameId) -> Result<FrameRow, StoreError> {
        self.conn
            .query_row(
                "SELECT id, session_id, received_at_ms, bytes, accepted, reason, hash FROM frames WHERE id = ?1",
                [id.0],
                frame_row,
            )
            .optional()?
            .ok_or_else(|| StoreError::NotFound(format!("no frame {}", id.0)))
    }

    /// The frames of a session received between two host times (inclusive), in order.
    pub fn frames_between(
        &self,
        session: SessionId,
        from_ms: i64,
        to_ms: i64,
    ) -> Result<Vec<FrameRow>, StoreError> {
        let mut statement = self.conn.prepare(
            "SELECT id, session_id, received_at_ms, bytes, accepted, reason, hash FROM frames \
             WHERE session_id = ?1 AND received_at_ms BETWEEN ?2 AND ?3 ORDER BY id",
        )?;
        let rows = statement.query_map(params![session.0, from_ms, to_ms], frame_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The latest chained row of an incident's history: (row id, hash in hex). It anchors a
    /// report in the chain.
    pub fn incident_anchor(&self, id: crate::IncidentId) -> Result<(i64, String), StoreError> {
        let (row, hash): (i64, Vec<u8>) = self
            .conn
            .query_row(
                "SELECT id, hash FROM incident_changes WHERE incident_id = ?1 ORDER BY id DESC LIMIT 1",
                [id.0],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?
            .ok_or_else(|| StoreError::NotFound(format!("no incident {}", id.0)))?;
        Ok((row, hex::encode(hash)))
    }

    /// The details of the audit entries with `action` about `subject`, oldest first.
    pub fn audit_details(&self, action: &str, subject: &str) -> Result<Vec<String>, StoreError> {
        let mut statement = self.conn.prepare(
            "SELECT detail FROM audit_log WHERE action = ?1 AND subject = ?2 ORDER BY id",
        )?;
        let rows = statement.query_map([action, subject], |r| r.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Verifies the record in full against this store's own key and journals (see
    /// [`verify::verify`]). A read-only store has no key: use [`Store::verify_with`].
    pub fn verify(&self) -> Result<VerifyReport, StoreError> {
        self.verify_with(&self.verify_options(Depth::Full))
    }

    /// Verifies only what was appended since `marks` (each chain's rows up to a mark were
    /// verified before): checks that each mark's row still has the hash it had, then recomputes
    /// every row after it, and everything but the rows themselves as in full. SQLite's own
    /// integrity check is not run: `integrity` says so.
    pub fn verify_after(&self, marks: &[ChainMark]) -> Result<VerifyReport, StoreError> {
        let mut options = self.verify_options(Depth::Full);
        options.marks = Some(marks.to_vec());
        self.verify_with(&options)
    }

    /// What this store verifies against: its own key (none for a read-only store) and
    /// journals.
    pub fn verify_options(&self, depth: Depth) -> VerifyOptions {
        VerifyOptions {
            depth,
            trusted: self
                .seal
                .iter()
                .map(|s| s.key.public())
                .chain(self.trusted.iter().copied())
                .collect(),
            journals: self.journals(),
            checkpoints: Vec::new(),
            marks: None,
            threads: 0,
        }
    }

    /// Verifies the record as `options` say. What a verification finds wrong is kept
    /// ([`Store::failed_verification`]).
    pub fn verify_with(&self, options: &VerifyOptions) -> Result<VerifyReport, StoreError> {
        let report = verify::verify(&self.conn, options)?;
        *self.failed.borrow_mut() = (!report.intact()).then(|| report.problems.join("; "));
        Ok(report)
    }

    /// What the latest verification through this store found wrong (`None` if it found the
    /// record intact, or none ran): a report built from a record that failed must not be
    /// followed by an audit row that extends it.
    pub fn failed_verification(&self) -> Option<String> {
        self.failed.borrow().clone()
    }

    /// Refuses every further append through this store: the record failed verification
    /// (`why`) elsewhere, so it is kept unchanged as evidence.
    pub fn refuse_writes(&mut self, why: impl Into<String>) {
        self.gate = Gate::Refused(why.into());
    }

    /// A handle that refuses every later batch of this store (see [`Refusal`]).
    pub fn refusal_handle(&self) -> Refusal {
        self.poisoned.clone()
    }

    /// Why this store refuses to extend the record, if it does (checked at its first batch).
    pub fn refusal(&self) -> Option<&str> {
        match &self.gate {
            Gate::Refused(why) => Some(why),
            _ => None,
        }
    }
}

fn load_heads(conn: &Connection) -> Result<HashMap<&'static str, Head>, StoreError> {
    let chains = if migrate::version(conn)? >= migrate::SEALED {
        CHAINS
    } else {
        chain::LEGACY_CHAINS
    };
    load_chain_heads(conn, chains)
}

fn load_chain_heads(
    conn: &Connection,
    chains: &[Chain],
) -> Result<HashMap<&'static str, Head>, StoreError> {
    let mut heads = HashMap::new();
    for chain in chains {
        let head = conn
            .query_row(
                &format!(
                    "SELECT id, hash FROM {} ORDER BY id DESC LIMIT 1",
                    chain.table
                ),
                [],
                |r| Ok((r.get::<_, i64>(0)?, r.get::<_, Vec<u8>>(1)?)),
            )
            .optional()?;
        let head = match head {
            None => Head {
                last_id: 0,
                hash: GENESIS,
            },
            Some((last_id, hash)) => Head {
                last_id,
                hash: hash.try_into().unwrap_or(GENESIS),
            },
        };
        heads.insert(chain.table, head);
    }
    Ok(heads)
}

/// A group of appends in one transaction. Dropped without [`Batch::commit`], nothing is written.
pub struct Batch<'a> {
    tx: rusqlite::Transaction<'a>,
    heads: HashMap<&'static str, Head>,
    /// The heads when the batch began: a batch that appended nothing needs no checkpoint.
    start: HashMap<&'static str, Head>,
    store_heads: &'a mut HashMap<&'static str, Head>,
    seal: Option<&'a mut Seal>,
    now: Timestamp,
}

/// A value for a chained row's column.
enum Field<'v> {
    Int(i64),
    OptInt(Option<i64>),
    Text(&'v str),
    OptText(Option<&'v str>),
    Blob(&'v [u8]),
}

impl ToSql for Field<'_> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(match self {
            Field::Int(i) => ToSqlOutput::Owned(Value::Integer(*i)),
            Field::OptInt(Some(i)) => ToSqlOutput::Owned(Value::Integer(*i)),
            Field::OptInt(None) | Field::OptText(None) => ToSqlOutput::Owned(Value::Null),
            Field::Text(t) | Field::OptText(Some(t)) => {
                ToSqlOutput::Borrowed(ValueRef::Text(t.as_bytes()))
            }
            Field::Blob(b) => ToSqlOutput::Borrowed(ValueRef::Blob(b)),
        })
    }
}

impl Field<'_> {
    fn value_ref(&self) -> ValueRef<'_> {
        match self {
            Field::Int(i) | Field::OptInt(Some(i)) => ValueRef::Integer(*i),
            Field::OptInt(None) | Field::OptText(None) => ValueRef::Null,
            Field::Text(t) | Field::OptText(Some(t)) => ValueRef::Text(t.as_bytes()),
            Field::Blob(b) => ValueRef::Blob(b),
        }
    }
}

/// Appends one row to `chain` on `conn`, whose heads are `heads`; `fields` are the content
/// columns after `id`.
fn append_row(
    conn: &Connection,
    heads: &mut HashMap<&'static str, Head>,
    chain: &Chain,
    fields: &[Field<'_>],
) -> Result<(i64, Hash), StoreError> {
    let head = heads.get(chain.table).copied().unwrap_or(Head {
        last_id: 0,
        hash: GENESIS,
    });
    let id = head.last_id + 1;
    let mut values = Vec::with_capacity(fields.len() + 1);
    values.push(ValueRef::Integer(id));
    values.extend(fields.iter().map(Field::value_ref));
    let hash = chain::row_hash(chain, &head.hash, &values);
    let placeholders: Vec<String> = (1..=chain.columns.len() + 2)
        .map(|i| format!("?{i}"))
        .collect();
    let sql = format!(
        "INSERT INTO {} ({}, prev_hash, hash) VALUES ({})",
        chain.table,
        chain.columns.join(", "),
        placeholders.join(", ")
    );
    let mut statement = conn.prepare_cached(&sql)?;
    let id_field = Field::Int(id);
    let prev_field = Field::Blob(&head.hash);
    let hash_field = Field::Blob(&hash);
    let mut all: Vec<&dyn ToSql> = Vec::with_capacity(fields.len() + 3);
    all.push(&id_field);
    all.extend(fields.iter().map(|f| f as &dyn ToSql));
    all.push(&prev_field);
    all.push(&hash_field);
    statement.execute(all.as_slice())?;
    heads.insert(chain.table, Head { last_id: id, hash });
    Ok((id, hash))
}

/// Migration 3's upgrade step for a record from before signing (see [`migrate`]): chains the
/// incidents it has, records every derived row as a fact, gives the record its id, and marks how
/// many rows of each chain predate signing. Runs inside the migration's transaction.
pub(crate) fn upgrade_to_sealed(tx: &Connection) -> Result<(), StoreError> {
    // Incidents were only ever inserted: chain them in id order, as if appended one by one.
    {
        let columns = chain::INCIDENTS.columns;
        let mut statement = tx.prepare(&format!(
            "SELECT {} FROM incidents ORDER BY id",
            columns.join(", ")
        ))?;
        let mut rows = statement.query([])?;
        let mut prev = GENESIS;
        let mut expected = 1;
        let mut hashes = Vec::new();
        while let Some(row) = rows.next()? {
            let values: Vec<ValueRef<'_>> = (0..columns.len())
                .map(|i| row.get_ref(i))
                .collect::<Result<_, _>>()?;
            let id = values[0].as_i64().unwrap_or(-1);
            if id != expected {
                return Err(StoreError::Invalid(format!(
                    "incident {expected} is missing from the record, so its incidents cannot be chained"
                )));
            }
            let hash = chain::row_hash(&chain::INCIDENTS, &prev, &values);
            hashes.push((id, prev, hash));
            prev = hash;
            expected += 1;
        }
        drop(rows);
        let mut update =
            tx.prepare("UPDATE incidents SET prev_hash = ?2, hash = ?3 WHERE id = ?1")?;
        for (id, prev, hash) in hashes {
            update.execute(params![id, &prev[..], &hash[..]])?;
        }
    }
    // The schema version is still the old one here: every chain of the new one.
    let mut heads = load_chain_heads(tx, CHAINS)?;
    let at = "";
    let record = hex::encode(new_record_id());
    for derived in facts::DERIVED {
        // A derived table a later migration adds is not there yet (and starts empty).
        if !facts::table_exists(tx, derived.table)? {
            continue;
        }
        for row in facts::existing_rows(tx, derived)? {
            facts::put(tx, &mut heads, derived, &row, at)?;
        }
    }
    facts::put(
        tx,
        &mut heads,
        &facts::META,
        &[("key", RECORD_ID.into()), ("value", record.into())],
        at,
    )?;
    // Everything so far, and the mark itself, predates signing.
    let counts: Vec<i64> = chain::SIGNED
        .iter()
        .map(|c| {
            let n = heads.get(c.table).map_or(0, |h| h.last_id);
            if c.table == chain::FACTS.table {
                n + 1
            } else {
                n
            }
        })
        .collect();
    facts::put(
        tx,
        &mut heads,
        &facts::META,
        &[
            ("key", UNSIGNED_BEFORE.into()),
            ("value", seal::counts_text(&counts).into()),
        ],
        at,
    )?;
    Ok(())
}

impl Batch<'_> {
    /// Appends one row to `chain`; `fields` are the content columns after `id`.
    fn append(&mut self, chain: &Chain, fields: &[Field<'_>]) -> Result<i64, StoreError> {
        append_row(&self.tx, &mut self.heads, chain, fields).map(|(id, _)| id)
    }

    /// Records that a session ended, and why (a session already ended keeps its first end).
    pub fn end_session(
        &mut self,
        session: SessionId,
        now: Timestamp,
        reason: &str,
    ) -> Result<(), StoreError> {
        let open: bool = self
            .tx
            .query_row(
                "SELECT ended_at IS NULL FROM device_sessions WHERE id = ?1",
                [session.0],
                |r| r.get(0),
            )
            .optional()?
            .unwrap_or(false);
        if !open {
            return Ok(());
        }
        let at = now.to_string();
        self.put_fact(
            &facts::DEVICE_SESSIONS,
            &[
                ("id", session.0.into()),
                ("ended_at", at.as_str().into()),
                ("end_reason", reason.into()),
            ],
            &at,
        )
    }

    /// The id the next row of a derived table gets.
    pub(crate) fn next_id(&self, table: &str) -> Result<i64, StoreError> {
        Ok(self.tx.query_row(
            &format!("SELECT COALESCE(MAX(id), 0) + 1 FROM {table}"),
            [],
            |r| r.get(0),
        )?)
    }

    /// Journals bytes exactly as received from a device session, with the host receive time.
    pub fn append_chunk(
        &mut self,
        session: SessionId,
        received_at: Timestamp,
        bytes: &[u8],
    ) -> Result<ChunkId, StoreError> {
        self.append(
            &chain::RAW_CHUNKS,
            &[
                Field::Int(session.0),
                Field::Int(received_at.unix_millis()),
                Field::Blob(bytes),
            ],
        )
        .map(ChunkId)
    }

    /// Records what the codec made of some of those bytes: a frame accepted, or rejected and why.
    pub fn append_frame(
        &mut self,
        session: SessionId,
        chunk: ChunkId,
        received_at: Timestamp,
        bytes: &[u8],
        rejection: Option<&str>,
    ) -> Result<FrameId, StoreError> {
        self.append(
            &chain::FRAMES,
            &[
                Field::Int(session.0),
                Field::Int(chunk.0),
                Field::Int(received_at.unix_millis()),
                Field::Blob(bytes),
                Field::Int(i64::from(rejection.is_none())),
                Field::OptText(rejection),
            ],
        )
        .map(FrameId)
    }

    /// Records a canonical table event, with the session and frame it came from when known.
    pub fn append_event(
        &mut self,
        table: TableId,
        session: Option<SessionId>,
        frame: Option<FrameId>,
        event: &TableEvent,
    ) -> Result<i64, StoreError> {
        let body = event.to_json_line();
        let seq = i64::try_from(event.seq).unwrap_or(i64::MAX);
        self.append(
            &chain::EVENTS,
            &[
                Field::Int(table.0),
                Field::OptInt(session.map(|s| s.0)),
                Field::OptInt(frame.map(|f| f.0)),
                Field::Int(seq),
                Field::Text(event.kind.name()),
                Field::OptInt(event.at.map(Timestamp::unix_millis)),
                Field::Text(&body),
            ],
        )
    }

    /// Records a user's action (or a command sent to a device) in the audit log.
    pub fn append_audit(
        &mut self,
        user: &str,
        action: &str,
        subject: &str,
        detail: &str,
        now: Timestamp,
    ) -> Result<i64, StoreError> {
        let at = now.to_string();
        self.append(
            &chain::AUDIT_LOG,
            &[
                Field::Text(user),
                Field::Text(action),
                Field::Text(subject),
                Field::Text(detail),
                Field::Text(&at),
            ],
        )
    }

    /// Records (or replaces) a round as the engine derived it. Rounds are derived data, rebuilt by
    /// replay, so they are not chained.
    pub fn record_round(
        &mut self,
        table: TableId,
        shoe: u32,
        round: u32,
        first_seq: u64,
        last_seq: u64,
        body: &str,
    ) -> Result<(), StoreError> {
        self.tx.execute(
            "INSERT INTO rounds (table_id, shoe, round, first_seq, last_seq, body) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6) \
             ON CONFLICT (table_id, shoe, round) DO UPDATE SET \
             first_seq = excluded.first_seq, last_seq = excluded.last_seq, body = excluded.body",
            params![
                table.0,
                shoe,
                round,
                i64::try_from(first_seq).unwrap_or(i64::MAX),
                i64::try_from(last_seq).unwrap_or(i64::MAX),
                body
            ],
        )?;
        Ok(())
    }

    /// Commits everything in the batch at once (durably, before returning), ending with a
    /// checkpoint signed by the installation's key when anything was appended; the checkpoint
    /// then goes to the journals (see [`witness`]).
    pub fn commit(mut self) -> Result<(), StoreError> {
        let mut witnessed = None;
        if self.heads != self.start {
            if let Some(seal) = self.seal.as_deref() {
                let heads: Vec<(i64, Hash)> = chain::SIGNED
                    .iter()
                    .map(|c| {
                        self.heads
                            .get(c.table)
                            .map_or((0, GENESIS), |h| (h.last_id, h.hash))
                    })
                    .collect();
                let previous = self
                    .heads
                    .get(chain::CHECKPOINTS.table)
                    .copied()
                    .unwrap_or(Head {
                        last_id: 0,
                        hash: GENESIS,
                    });
                let id = previous.last_id + 1;
                let at = self.now.to_string();
                let signed = seal::Signed {
                    record: &seal.record,
                    id,
                    at: &at,
                    heads: &heads,
                    prev: &previous.hash,
                };
                let signature = seal.key.sign(&signed.message());
                let public_key = seal.key.public();
                let counts: Vec<i64> = heads.iter().map(|(n, _)| *n).collect();
                let (_, hash) = append_row(
                    &self.tx,
                    &mut self.heads,
                    &chain::CHECKPOINTS,
                    &[
                        Field::Text(&at),
                        Field::Text(&seal::counts_text(&counts)),
                        Field::Blob(&public_key.to_bytes()),
                        Field::Blob(&signature),
                    ],
                )?;
                witnessed = Some(CheckpointText {
                    record: hex::encode(seal.record),
                    id,
                    at,
                    hash,
                    key: public_key.fingerprint(),
                });
            }
        }
        self.tx.commit()?;
        *self.store_heads = self.heads;
        if let Some(seal) = self.seal {
            seal.record_written = true;
            if let Some(text) = witnessed {
                seal.witness.checkpoint(text, self.now.unix_millis(), false);
                // Every so many lines, the journals' markers move up to their end (see
                // `witness::summarize_vouched`): the next start-up reads at most that many.
                if seal.witness.written() >= seal.vouched_at + VOUCH_EVERY {
                    seal.vouched_at = seal.witness.written();
                    seal.witness.vouch(&seal.key);
                }
            }
        }
        Ok(())
    }
}
