//! Opening a record: read-only, or writable and signing every write transaction as [`Sealing`]
//! says (the installation's key and the journals that witness its checkpoints), and what an open
//! store tells of its key, its journals and its latest checkpoint.

use std::path::{Path, PathBuf};

use password_hash::rand_core::{OsRng, RngCore};
use rusqlite::Connection;

use crate::batch::load_heads;
use crate::chain::GENESIS;
use crate::gate::Gate;
use crate::seal::{self, CheckpointText, KeyError, PublicKey, SigningKey};
use crate::witness::{self, JournalStatus, Witness};
use crate::{files, migrate, verify, Store, StoreError};

pub(crate) fn new_record_id() -> [u8; 16] {
    let mut id = [0u8; 16];
    OsRng.fill_bytes(&mut id);
    id
}

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

/// What a writable store signs with.
pub(crate) struct Seal {
    pub(crate) key: SigningKey,
    /// The record's id.
    pub(crate) record: [u8; 16],
    /// Whether the record's id is on record yet (the first batch of a new record writes it).
    pub(crate) record_written: bool,
    pub(crate) witness: Witness,
    /// The witness's line count when the journals' markers were last written.
    pub(crate) vouched_at: u64,
    /// The witness folders and interval it was opened with, to open the record again alike.
    pub(crate) witness_dirs: Vec<PathBuf>,
    pub(crate) journal_interval_ms: i64,
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
        let application: i32 = conn.query_row("PRAGMA application_id", [], |r| r.get(0))?;
        if application == crate::archive::APPLICATION_ID {
            return Err(StoreError::Invalid(format!(
                "{} is an archive (`pitwatch archive`): nothing is written to it; work through \
                 the live record, which names its archives",
                path.display()
            )));
        }
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
}
