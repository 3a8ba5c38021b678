//! The Pitwatch record: a local SQLite database that keeps every byte a device sent, every frame
//! and event derived from it, incidents and their workflow, and an audit log, append-only and
//! hash-chained so that any change can be detected by [`Store::verify`].
//!
//! This is the only crate that knows SQL. It reads no clock: every time is passed in by the caller.
//! Writes go through a [`Batch`] (one transaction), which is how callers group-commit many frames
//! at once; nothing in a batch is visible, or derived from, until it commits.

pub mod chain;
pub mod classify;
pub mod groups;
pub mod incidents;
pub mod lease;
pub mod migrate;
pub mod rawsink;
pub mod shoes;
pub mod writes;

use std::collections::HashMap;
use std::path::Path;

pub use classify::Trouble;
pub use groups::{GroupRule, Grouped, IncidentGroup};
pub use incidents::{
    Incident, IncidentFilter, IncidentId, IncidentPage, IncidentStep, NewIncident, OpenCount, Role,
    Status, UserRow, MAX_PAGE,
};
pub use lease::Lease;
use pitwatch_model::{TableEvent, Timestamp};
use rusqlite::types::{ToSqlOutput, Value, ValueRef};
use rusqlite::{params, Connection, OptionalExtension, ToSql};
pub use shoes::{ShoeListing, ShoeStart};

use chain::{Chain, Hash, CHAINS, GENESIS};

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

/// The record.
pub struct Store {
    conn: Connection,
    heads: HashMap<&'static str, Head>,
}

impl Store {
    /// Opens (creating if needed) the database at `path`, in WAL mode, migrated to the latest schema.
    pub fn open(path: impl AsRef<Path>) -> Result<Store, StoreError> {
        let conn = Connection::open(path.as_ref())?;
        Store::setup(conn)
    }

    /// A throw-away database in memory, for tests.
    pub fn open_in_memory() -> Result<Store, StoreError> {
        Store::setup(Connection::open_in_memory()?)
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
        let heads = load_heads(&conn)?;
        Ok(Store { conn, heads })
    }

    fn setup(mut conn: Connection) -> Result<Store, StoreError> {
        // WAL: readers never block the writer; with synchronous=FULL a committed transaction
        // survives power loss, which is the promise the record makes.
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "FULL")?;
        conn.pragma_update(None, "foreign_keys", true)?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        migrate::migrate(&mut conn)?;
        let heads = load_heads(&conn)?;
        Ok(Store { conn, heads })
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
        if let Some(id) = self.table_id(name)? {
            return Ok(id);
        }
        self.conn.execute(
            "INSERT INTO pit_tables (name, game, rule_book, created_at) VALUES (?1, ?2, ?3, ?4)",
            params![name, game, rule_book, now.to_string()],
        )?;
        Ok(TableId(self.conn.last_insert_rowid()))
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

    /// The device with this identity, recorded on first sight.
    pub fn ensure_device(
        &mut self,
        device: &DeviceIdentity,
        now: Timestamp,
    ) -> Result<DeviceId, StoreError> {
        let existing = self
            .conn
            .query_row(
                "SELECT id FROM devices WHERE protocol = ?1 AND make = ?2 AND model = ?3 \
                 AND serial = ?4 AND firmware = ?5 AND settings = ?6 AND port = ?7",
                params![
                    device.protocol,
                    device.make,
                    device.model,
                    device.serial,
                    device.firmware,
                    settings_or_default(&device.settings),
                    device.port
                ],
                |r| r.get(0),
            )
            .optional()?;
        if let Some(id) = existing {
            return Ok(DeviceId(id));
        }
        self.conn.execute(
            "INSERT INTO devices (protocol, make, model, serial, firmware, settings, port, first_seen_at) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![
                device.protocol,
                device.make,
                device.model,
                device.serial,
                device.firmware,
                settings_or_default(&device.settings),
                device.port,
                now.to_string()
            ],
        )?;
        Ok(DeviceId(self.conn.last_insert_rowid()))
    }

    /// Records that `device` connected to `table`.
    pub fn start_session(
        &mut self,
        table: TableId,
        device: DeviceId,
        now: Timestamp,
    ) -> Result<SessionId, StoreError> {
        self.conn.execute(
            "INSERT INTO device_sessions (table_id, device_id, started_at) VALUES (?1, ?2, ?3)",
            params![table.0, device.0, now.to_string()],
        )?;
        Ok(SessionId(self.conn.last_insert_rowid()))
    }

    /// Records that a session ended, and why.
    pub fn end_session(
        &mut self,
        session: SessionId,
        now: Timestamp,
        reason: &str,
    ) -> Result<(), StoreError> {
        self.conn.execute(
            "UPDATE device_sessions SET ended_at = ?2, end_reason = ?3 WHERE id = ?1 AND ended_at IS NULL",
            params![session.0, now.to_string(), reason],
        )?;
        Ok(())
    }

    /// Starts a batch of appends: one transaction, committed by [`Batch::commit`].
    pub fn batch(&mut self) -> Result<Batch<'_>, StoreError> {
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        // The chain heads are read inside the write transaction, so several connections (the
        // monitor's writer and the desktop's incident actions) can append to the same chains
        // without forking them: SQLite lets one writer in at a time, and each sees the last head.
        let heads = load_heads(&tx)?;
        Ok(Batch {
            heads,
            tx,
            store_heads: &mut self.heads,
        })
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
    pub fn set_meta(&mut self, key: &str, value: &str) -> Result<(), StoreError> {
        self.conn.execute(
            "INSERT INTO meta (key, value) VALUES (?1, ?2) \
             ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            params![key, value],
        )?;
        Ok(())
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

    /// Recomputes every hash chain and runs SQLite's integrity check.
    pub fn verify(&self) -> Result<VerifyReport, StoreError> {
        let integrity: String = self
            .conn
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))?;
        let mut report = VerifyReport {
            integrity,
            chains: Vec::new(),
            first_problem: None,
        };
        for chain in CHAINS {
            let outcome = verify_chain(&self.conn, chain, 0, GENESIS)?;
            if report.first_problem.is_none() {
                report.first_problem = outcome.problem.clone();
            }
            report.chains.push(outcome);
        }
        Ok(report)
    }

    /// Verifies only what was appended since `marks` (each chain's rows up to a mark were
    /// verified before): checks that each mark's row still has the hash it had, then recomputes
    /// every row after it. Rewriting a verified row and every hash after it changes the mark's
    /// row, so that is found; altering a verified row's content alone is not (only a full
    /// [`Store::verify`] re-reads every row). SQLite's own integrity check is not run:
    /// `integrity` says so. A chain with no mark is verified from its first row.
    pub fn verify_after(&self, marks: &[ChainMark]) -> Result<VerifyReport, StoreError> {
        let mut report = VerifyReport {
            integrity: "not checked (incremental verification)".into(),
            chains: Vec::new(),
            first_problem: None,
        };
        for chain in CHAINS {
            let mark = marks.iter().find(|m| m.table == chain.table);
            let (after, hash) = mark.map_or((0, GENESIS), |m| (m.last_id, m.hash));
            let outcome = verify_chain(&self.conn, chain, after, hash)?;
            if report.first_problem.is_none() {
                report.first_problem = outcome.problem.clone();
            }
            report.chains.push(outcome);
        }
        Ok(report)
    }
}

/// How far a chain has been verified: rows 1 to `last_id`, the last with hash `hash`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChainMark {
    /// The chained table.
    pub table: &'static str,
    /// The last row verified (0: none).
    pub last_id: i64,
    /// Its hash.
    pub hash: Hash,
}

/// One row of the record that does not match its chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainProblem {
    /// The chained table.
    pub table: &'static str,
    /// The row's id.
    pub id: i64,
    /// What does not match.
    pub reason: String,
}

impl std::fmt::Display for ChainProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} row {}: {}", self.table, self.id, self.reason)
    }
}

/// The outcome of checking one chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainReport {
    /// The chained table.
    pub table: &'static str,
    /// Rows checked.
    pub rows: u64,
    /// The hash of the last row (the chain's head), hex, or empty for an empty chain.
    pub head: String,
    /// The first row that does not match, if any.
    pub problem: Option<ChainProblem>,
    /// Rows up to this id were verified before and not read again (0: verified from the first).
    pub after: i64,
    /// Where the chain is verified up to now, when it is intact.
    pub mark: Option<ChainMark>,
}

/// The outcome of [`Store::verify`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifyReport {
    /// SQLite's `PRAGMA integrity_check` answer (`ok` when sound).
    pub integrity: String,
    /// Every chain, in [`CHAINS`] order.
    pub chains: Vec<ChainReport>,
    /// The first row, in chain order, that does not match.
    pub first_problem: Option<ChainProblem>,
}

impl VerifyReport {
    /// Whether the database is sound and every chain intact.
    pub fn intact(&self) -> bool {
        self.integrity == "ok" && self.first_problem.is_none()
    }

    /// Whether every chain checked is intact (SQLite's own check aside).
    pub fn chains_intact(&self) -> bool {
        self.first_problem.is_none()
    }

    /// Where each chain is verified up to, for [`Store::verify_after`]; `None` unless every chain
    /// is intact.
    pub fn marks(&self) -> Option<Vec<ChainMark>> {
        self.chains.iter().map(|c| c.mark).collect()
    }

    /// Rows recomputed by this verification, over every chain.
    pub fn rows_checked(&self) -> u64 {
        self.chains.iter().map(|c| c.rows).sum()
    }
}

fn verify_chain(
    conn: &Connection,
    chain: &Chain,
    after: i64,
    after_hash: Hash,
) -> Result<ChainReport, StoreError> {
    let report = |rows: u64, head: Option<Hash>, last_id: i64, problem: Option<ChainProblem>| {
        let mark = match (&problem, head) {
            (None, Some(hash)) => Some(ChainMark {
                table: chain.table,
                last_id,
                hash,
            }),
            (None, None) => Some(ChainMark {
                table: chain.table,
                last_id: after,
                hash: after_hash,
            }),
            _ => None,
        };
        ChainReport {
            table: chain.table,
            rows,
            head: head.map(hex::encode).unwrap_or_default(),
            problem,
            after,
            mark,
        }
    };
    if after > 0 {
        // The row verified last must still be there with the hash it had then.
        let stored: Option<Vec<u8>> = conn
            .query_row(
                &format!("SELECT hash FROM {} WHERE id = ?1", chain.table),
                [after],
                |r| r.get(0),
            )
            .optional()?;
        if stored.as_deref() != Some(&after_hash[..]) {
            let problem = ChainProblem {
                table: chain.table,
                id: after,
                reason: "it no longer has the hash it had when verified earlier (the row or one \
                         before it was changed or removed)"
                    .into(),
            };
            return Ok(report(0, None, after, Some(problem)));
        }
    }
    let sql = format!(
        "SELECT {}, prev_hash, hash FROM {} WHERE id > ?1 ORDER BY id",
        chain.columns.join(", "),
        chain.table
    );
    let mut statement = conn.prepare(&sql)?;
    let mut rows = statement.query([after])?;
    let n = chain.columns.len();
    let mut expected_prev = after_hash;
    let mut expected_id = after + 1;
    let mut count = 0u64;
    let mut problem = None;
    while let Some(row) = rows.next()? {
        let values: Vec<ValueRef<'_>> = (0..n).map(|i| row.get_ref(i)).collect::<Result<_, _>>()?;
        let id = values[0].as_i64().unwrap_or(-1);
        let prev = row.get_ref(n)?.as_blob().unwrap_or(&[]).to_vec();
        let stored = row.get_ref(n + 1)?.as_blob().unwrap_or(&[]).to_vec();
        count += 1;
        let fail = |reason: String| ChainProblem {
            table: chain.table,
            id,
            reason,
        };
        if id != expected_id {
            problem = Some(fail(format!(
                "expected row {expected_id} here: a row is missing"
            )));
            break;
        }
        if prev != expected_prev {
            problem = Some(fail(
                "prev_hash does not match the previous row's hash".into(),
            ));
            break;
        }
        let computed = chain::row_hash(chain, &expected_prev, &values);
        if stored != computed {
            problem = Some(fail(
                "its content does not match its hash (the row was altered)".into(),
            ));
            break;
        }
        expected_prev = computed;
        expected_id += 1;
    }
    let head = (count > 0 || after > 0).then_some(expected_prev);
    Ok(report(count, head, expected_id - 1, problem))
}

fn load_heads(conn: &Connection) -> Result<HashMap<&'static str, Head>, StoreError> {
    let mut heads = HashMap::new();
    for chain in CHAINS {
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
    store_heads: &'a mut HashMap<&'static str, Head>,
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

impl Batch<'_> {
    /// Appends one row to `chain`; `fields` are the content columns after `id`.
    fn append(&mut self, chain: &Chain, fields: &[Field<'_>]) -> Result<i64, StoreError> {
        let head = self.heads.get(chain.table).copied().unwrap_or(Head {
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
        let mut statement = self.tx.prepare_cached(&sql)?;
        let id_field = Field::Int(id);
        let prev_field = Field::Blob(&head.hash);
        let hash_field = Field::Blob(&hash);
        let mut all: Vec<&dyn ToSql> = Vec::with_capacity(fields.len() + 3);
        all.push(&id_field);
        all.extend(fields.iter().map(|f| f as &dyn ToSql));
        all.push(&prev_field);
        all.push(&hash_field);
        statement.execute(all.as_slice())?;
        self.heads.insert(chain.table, Head { last_id: id, hash });
        Ok(id)
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

    /// Commits everything in the batch at once (durably, before returning).
    pub fn commit(self) -> Result<(), StoreError> {
        self.tx.commit()?;
        *self.store_heads = self.heads;
        Ok(())
    }
}
