//! The record's chains as rows that travel: what a replication component (the central record of
//! issue 16, `pitwatch-sync`) reads from a record, and how a record is rebuilt from such rows
//! alone.
//!
//! A [`ChainRow`] is one row of a chain as it stands: its position (its `id`), its content
//! columns in the chains' own encoding ([`chain::encode_values`], exactly what its hash covers),
//! the previous row's hash and its own. Nothing else about SQLite leaves this crate: the receiver
//! checks a row with [`chain::row_hash_encoded`], and [`Rebuild`] writes rows back into a new
//! record file, verbatim, applying each chained fact to its derived table as the store did when it
//! was written, so the rebuilt record verifies (or fails verification) exactly as the original
//! would, and replays the same.

use std::path::Path;

use rusqlite::types::{Value, ValueRef};
use rusqlite::{Connection, OptionalExtension, ToSql};

use crate::chain::{self, Chain, Hash, GENESIS};
use crate::{facts, migrate, seal, CheckpointText, Store, StoreError};

/// One row of a chain, as it travels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainRow {
    /// Its position in the chain (the row's `id`, from 1, without gaps).
    pub position: i64,
    /// Its content columns (`chain.columns`, the `id` first) in the chains' encoding.
    pub content: Vec<u8>,
    /// The previous row's hash ([`GENESIS`] for the first).
    pub prev_hash: Hash,
    /// Its own hash.
    pub hash: Hash,
}

fn hash_of(bytes: Vec<u8>) -> Hash {
    bytes.try_into().unwrap_or(GENESIS)
}

impl Store {
    /// Up to `limit` rows of `chain` after position `after`, in order.
    pub fn chain_rows(
        &self,
        chain: &Chain,
        after: i64,
        limit: usize,
    ) -> Result<Vec<ChainRow>, StoreError> {
        let sql = format!(
            "SELECT {}, prev_hash, hash FROM {} WHERE id > ?1 ORDER BY id LIMIT ?2",
            chain.columns.join(", "),
            chain.table
        );
        let n = chain.columns.len();
        let mut statement = self.conn.prepare_cached(&sql)?;
        let rows = statement.query_map(
            rusqlite::params![after, i64::try_from(limit).unwrap_or(i64::MAX)],
            |r| {
                let values: Vec<ValueRef<'_>> =
                    (0..n).map(|i| r.get_ref(i)).collect::<Result<_, _>>()?;
                Ok(ChainRow {
                    position: r.get(0)?,
                    content: chain::encode_values(&values),
                    prev_hash: hash_of(r.get(n)?),
                    hash: hash_of(r.get(n + 1)?),
                })
            },
        )?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The hash of row `position` of `chain`, if the record has it.
    pub fn chain_row_hash(&self, chain: &Chain, position: i64) -> Result<Option<Hash>, StoreError> {
        Ok(self
            .conn
            .prepare_cached(&format!("SELECT hash FROM {} WHERE id = ?1", chain.table))?
            .query_row([position], |r| r.get::<_, Vec<u8>>(0))
            .optional()?
            .map(hash_of))
    }

    /// How many rows `chain` holds (its last position: chains have no gaps).
    pub fn chain_length(&self, chain: &Chain) -> Result<i64, StoreError> {
        Ok(self.conn.query_row(
            &format!("SELECT COALESCE(MAX(id), 0) FROM {}", chain.table),
            [],
            |r| r.get(0),
        )?)
    }
}

/// The row counts of the signed chains (in [`chain::SIGNED`] order) that a row of the
/// `checkpoints` chain signs, if its content is such a row.
pub fn checkpoint_counts(row: &ChainRow) -> Option<Vec<i64>> {
    // checkpoints: id, at, counts, public_key, signature
    match chain::decode_values(&row.content).ok()?.get(2)? {
        Value::Text(counts) => seal::parse_counts(counts),
        _ => None,
    }
}

/// A row of the `checkpoints` chain of record `record` (hex id) in its text form, as journals
/// and reports write it down.
pub fn checkpoint_text(record: &str, row: &ChainRow) -> Option<CheckpointText> {
    let values = chain::decode_values(&row.content).ok()?;
    match (values.get(1)?, values.get(3)?) {
        (Value::Text(at), Value::Blob(public_key)) => Some(CheckpointText {
            record: record.to_owned(),
            id: row.position,
            at: at.clone(),
            hash: row.hash,
            key: seal::fingerprint(public_key),
        }),
        _ => None,
    }
}

/// Why checkpoint `row` of record `record` (hex id) is not a signature by `key` (the key enrolled
/// for its workstation, issue 25) of the chains it counts, whose heads are `heads` (for each
/// chain of [`chain::SIGNED`], in order: the count the checkpoint gives and the hash of the row
/// at that position, [`GENESIS`] for 0) as the reader holds them. `None`: it is.
pub fn checkpoint_not_signed_by(
    record: &str,
    row: &ChainRow,
    heads: &[(i64, Hash)],
    key: &seal::PublicKey,
) -> Option<String> {
    let what = format!("checkpoint {}", row.position);
    let Ok(values) = chain::decode_values(&row.content) else {
        return Some(format!("{what} cannot be read"));
    };
    let (Some(Value::Text(at)), Some(Value::Blob(public_key)), Some(Value::Blob(signature))) =
        (values.get(1), values.get(3), values.get(4))
    else {
        return Some(format!("{what} cannot be read"));
    };
    if public_key.as_slice() != key.to_bytes().as_slice() {
        return Some(format!(
            "{what} is signed by key {}, not by the key enrolled for its workstation ({})",
            seal::fingerprint(public_key),
            key.fingerprint()
        ));
    }
    let counts = checkpoint_counts(row).unwrap_or_default();
    if counts.len() != chain::SIGNED.len()
        || heads.len() != counts.len()
        || heads.iter().zip(&counts).any(|((n, _), c)| n != c)
    {
        return Some(format!("{what} does not count the chains it should"));
    }
    let Ok(record_bytes) = hex::decode(record) else {
        return Some(format!("{what}: {record:?} is not a record id"));
    };
    let signed = seal::Signed {
        record: &record_bytes,
        id: row.position,
        at,
        heads,
        prev: &row.prev_hash,
    };
    if key.verifies(&signed.message(), signature) {
        None
    } else {
        Some(format!(
            "{what}'s signature by the enrolled key {} does not verify over the rows it counts",
            key.fingerprint()
        ))
    }
}

/// A record file being rebuilt from chain rows (a copy of another record, made from what was
/// replicated of it). Rows are written as they are, hashes included, without checking them: the
/// rebuilt record is then verified like any other, which is what finds a row that does not follow.
pub struct Rebuild {
    conn: Connection,
}

impl Rebuild {
    /// Creates a new record file at `path` (which must not exist yet) with the latest schema, and
    /// starts the one transaction the rebuild is written in.
    pub fn create(path: &Path) -> Result<Rebuild, StoreError> {
        if path.exists() {
            return Err(StoreError::Invalid(format!(
                "{} exists; a record is rebuilt into a new file",
                path.display()
            )));
        }
        let mut conn = Connection::open(path)?;
        migrate::migrate(&mut conn)?;
        // Rows arrive chain by chain, not in the order they were written: references between
        // chains (events to sessions, changes to incidents) hold once every chain is in.
        conn.pragma_update(None, "foreign_keys", false)?;
        conn.execute_batch("BEGIN IMMEDIATE")?;
        Ok(Rebuild { conn })
    }

    /// Creates a new record file at `path` readable by its owner only, marked with SQLite's
    /// `application_id` (an archive's), with the latest schema, in one transaction.
    pub(crate) fn create_marked(path: &Path, application_id: i32) -> Result<Rebuild, StoreError> {
        if path.exists() {
            return Err(StoreError::Invalid(format!(
                "{} exists; an archive is written into a new file",
                path.display()
            )));
        }
        crate::files::create_private(path)
            .map_err(|e| StoreError::Invalid(format!("cannot create {}: {e}", path.display())))?;
        let mut conn = Connection::open(path)?;
        conn.pragma_update(None, "application_id", application_id)?;
        migrate::migrate(&mut conn)?;
        conn.pragma_update(None, "foreign_keys", false)?;
        conn.execute_batch("BEGIN IMMEDIATE")?;
        Ok(Rebuild { conn })
    }

    /// Puts a round the engine recorded live (derived data, as the record holds it).
    pub(crate) fn put_round(
        &mut self,
        table_id: i64,
        (shoe, round, first_seq, last_seq, body): (i64, i64, i64, i64, String),
    ) -> Result<(), StoreError> {
        self.conn.execute(
            "INSERT INTO rounds (table_id, shoe, round, first_seq, last_seq, body) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            rusqlite::params![table_id, shoe, round, first_seq, last_seq, body],
        )?;
        Ok(())
    }

    /// Appends `row` to `chain` as it is; a fact is also applied to its derived table. Rows of
    /// one chain must come in order.
    pub fn append(&mut self, chain: &Chain, row: &ChainRow) -> Result<(), StoreError> {
        insert_row(&self.conn, chain, row)
    }

    /// Commits the rebuilt record.
    pub fn finish(self) -> Result<(), StoreError> {
        self.conn.execute_batch("COMMIT")?;
        Ok(())
    }
}

/// Writes `row` into `chain` of `conn` verbatim; a fact is also applied to its derived table.
fn insert_row(conn: &Connection, chain: &Chain, row: &ChainRow) -> Result<(), StoreError> {
    let values = chain::decode_values(&row.content).map_err(|e| {
        StoreError::Invalid(format!(
            "{} row {}: its content cannot be read: {e}",
            chain.table, row.position
        ))
    })?;
    if values.len() != chain.columns.len() {
        return Err(StoreError::Invalid(format!(
            "{} row {}: {} columns, where the chain has {}",
            chain.table,
            row.position,
            values.len(),
            chain.columns.len()
        )));
    }
    let placeholders: Vec<String> = (1..=values.len() + 2).map(|i| format!("?{i}")).collect();
    let sql = format!(
        "INSERT INTO {} ({}, prev_hash, hash) VALUES ({})",
        chain.table,
        chain.columns.join(", "),
        placeholders.join(", ")
    );
    let prev = Value::Blob(row.prev_hash.to_vec());
    let hash = Value::Blob(row.hash.to_vec());
    let mut args: Vec<&dyn ToSql> = values.iter().map(|v| v as &dyn ToSql).collect();
    args.push(&prev);
    args.push(&hash);
    conn.prepare_cached(&sql)?.execute(args.as_slice())?;
    if chain.table == chain::FACTS.table {
        // facts: id, kind, subject, body, at
        if let (Some(Value::Text(kind)), Some(Value::Text(body))) = (values.get(1), values.get(3)) {
            facts::apply_stored(conn, kind, body)?;
        }
    }
    Ok(())
}

/// Why `row` does not follow a chain whose last row is `head` (its position and hash), checked as
/// the store chains rows: the next position, the head's hash as its previous hash, and its own
/// hash over that and its content. `None`: it follows.
pub fn does_not_follow(chain: &Chain, head: (i64, Hash), row: &ChainRow) -> Option<String> {
    let reason = if row.position != head.0 + 1 {
        format!(
            "is at position {}, where {} should be",
            row.position,
            head.0 + 1
        )
    } else if row.prev_hash != head.1 {
        "does not follow the row before it (its previous hash differs)".to_owned()
    } else if chain::row_hash_encoded(chain, &row.prev_hash, &row.content) != row.hash {
        "its content does not match its hash".to_owned()
    } else {
        return None;
    };
    Some(format!("{} row {}: {reason}", chain.table, row.position))
}

/// A local read-only mirror of another record (the surveillance room's copy of a workstation's
/// record, kept up to date from the central database): a record file that only ever grows by
/// rows checked to follow the rows it holds, chain by chain, as the store chains them. Each
/// refresh ([`Mirror::begin`] … [`Mirror::commit`]) is one transaction: a refresh is taken whole or not at all, so the file
/// always stands at a checkpoint and opens read-only as a record like any other
/// ([`Store::open_read_only`]), which verifies, lists and replays exactly as the original.
pub struct Mirror {
    conn: Connection,
    heads: Vec<(i64, Hash)>,
    /// The heads as the refresh under way has moved them.
    pending: Option<Vec<(i64, Hash)>>,
}

impl Mirror {
    /// Opens the mirror at `path`, creating it (with the latest schema) if it does not exist.
    pub fn open(path: &Path) -> Result<Mirror, StoreError> {
        let mut conn = Connection::open(path)?;
        // A window may be reading the file while it is refreshed.
        conn.busy_timeout(std::time::Duration::from_secs(10))?;
        let version = migrate::version(&conn)?;
        if version > migrate::LATEST {
            return Err(StoreError::NewerSchema {
                found: version,
                supported: migrate::LATEST,
            });
        }
        migrate::migrate(&mut conn)?;
        // As in a rebuild: rows arrive chain by chain, not in the order they were written.
        conn.pragma_update(None, "foreign_keys", false)?;
        let mut heads = Vec::with_capacity(chain::CHAINS.len());
        for chain in chain::CHAINS {
            let head = conn
                .query_row(
                    &format!(
                        "SELECT id, hash FROM {} ORDER BY id DESC LIMIT 1",
                        chain.table
                    ),
                    [],
                    |r| Ok((r.get::<_, i64>(0)?, hash_of(r.get(1)?))),
                )
                .optional()?
                .unwrap_or((0, GENESIS));
            heads.push(head);
        }
        Ok(Mirror {
            conn,
            heads,
            pending: None,
        })
    }

    /// The record the mirror holds (its id, hex), once its first facts are in.
    pub fn record_id(&self) -> Result<Option<String>, StoreError> {
        Ok(crate::verify::record_meta(&self.conn)?.0)
    }

    /// The last row the mirror holds of `chain` (its position and hash; 0 and [`GENESIS`] when
    /// it holds none).
    pub fn head(&self, chain: &Chain) -> (i64, Hash) {
        chain::CHAINS
            .iter()
            .position(|c| c.table == chain.table)
            .map(|i| self.heads[i])
            .unwrap_or((0, GENESIS))
    }

    /// Starts a refresh: the rows appended until [`Mirror::commit`] are one transaction, taken
    /// whole or not at all ([`Mirror::rollback`], or dropping the mirror).
    pub fn begin(&mut self) -> Result<(), StoreError> {
        if self.pending.is_none() {
            self.conn.execute_batch("BEGIN IMMEDIATE")?;
            self.pending = Some(self.heads.clone());
        }
        Ok(())
    }

    /// Appends `row` to `chain` (within a refresh begun with [`Mirror::begin`]), after checking
    /// that it follows the row the mirror holds last ([`does_not_follow`]): a row that does not
    /// is refused with [`StoreError::Invalid`] naming it, and nothing is written.
    pub fn append(&mut self, chain: &Chain, row: &ChainRow) -> Result<(), StoreError> {
        let i = chain::CHAINS
            .iter()
            .position(|c| c.table == chain.table)
            .ok_or_else(|| StoreError::Invalid(format!("{} is not a chain", chain.table)))?;
        let Some(heads) = self.pending.as_mut() else {
            return Err(StoreError::Invalid(
                "a mirror is appended to within a refresh (begin first)".into(),
            ));
        };
        if let Some(problem) = does_not_follow(chain, heads[i], row) {
            return Err(StoreError::Invalid(problem));
        }
        insert_row(&self.conn, chain, row)?;
        heads[i] = (row.position, row.hash);
        Ok(())
    }

    /// Commits the refresh.
    pub fn commit(&mut self) -> Result<(), StoreError> {
        if let Some(heads) = self.pending.take() {
            self.conn.execute_batch("COMMIT")?;
            self.heads = heads;
        }
        Ok(())
    }

    /// Abandons the refresh: the mirror stands where it stood before it.
    pub fn rollback(&mut self) -> Result<(), StoreError> {
        if self.pending.take().is_some() {
            self.conn.execute_batch("ROLLBACK")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chain::CHAINS;
    use pitwatch_model::Timestamp;

    #[test]
    fn a_record_rebuilt_from_its_rows_verifies_and_says_the_same() {
        let dir = tempfile::tempdir().expect("temp dir");
        let key = crate::SigningKey::generate();
        let mut store =
            Store::open(dir.path().join("a.db"), &crate::Sealing::key(key.clone())).expect("open");
        let now = Timestamp::from_unix_millis(1_700_000_000_000).expect("time");
        let table = store
            .ensure_table("T1", "baccarat", "nz", now)
            .expect("table");
        store.set_meta("site", "Auckland", now).expect("meta");
        let mut batch = store.batch(now).expect("batch");
        batch
            .append_audit("ana", "test.action", "T1", "{}", now)
            .expect("audit");
        batch.commit().expect("commit");
        let _ = table;

        let copy = dir.path().join("b.db");
        let mut rebuild = Rebuild::create(&copy).expect("create");
        for chain in CHAINS {
            let mut after = 0;
            loop {
                let rows = store.chain_rows(chain, after, 2).expect("rows");
                let Some(last) = rows.last() else { break };
                after = last.position;
                for row in &rows {
                    assert_eq!(
                        chain::row_hash_encoded(chain, &row.prev_hash, &row.content),
                        row.hash
                    );
                    rebuild.append(chain, row).expect("append");
                }
            }
            assert_eq!(after, store.chain_length(chain).expect("length"));
        }
        rebuild.finish().expect("finish");
        assert!(
            Rebuild::create(&copy).is_err(),
            "never over an existing file"
        );

        let mut copy = Store::open_read_only(&copy).expect("read-only");
        copy.trust(vec![key.public()]);
        let report = copy.verify().expect("verify");
        assert!(report.intact(), "{:?}", report.problems);
        assert_eq!(
            copy.tables().expect("tables"),
            store.tables().expect("tables")
        );
        assert_eq!(
            copy.meta("site").expect("meta").as_deref(),
            Some("Auckland")
        );
        let latest = store.latest_checkpoint().expect("cp").expect("signed");
        assert_eq!(
            copy.latest_checkpoint().expect("cp").as_ref(),
            Some(&latest)
        );
        let last = store
            .chain_rows(&chain::CHECKPOINTS, latest.id - 1, 1)
            .expect("row");
        assert_eq!(checkpoint_text(&latest.record, &last[0]), Some(latest));
        let counts = checkpoint_counts(&last[0]).expect("counts");
        assert_eq!(counts.len(), chain::SIGNED.len());
        assert_eq!(counts[6], 1, "the one audit row");
    }

    /// Appends every row of `store` the mirror lacks, in one refresh.
    fn refresh(mirror: &mut Mirror, store: &Store) -> Result<u64, StoreError> {
        mirror.begin()?;
        let mut n = 0;
        for chain in CHAINS {
            for row in store.chain_rows(chain, mirror.head(chain).0, usize::MAX)? {
                if let Err(e) = mirror.append(chain, &row) {
                    mirror.rollback()?;
                    return Err(e);
                }
                n += 1;
            }
        }
        mirror.commit()?;
        Ok(n)
    }

    #[test]
    fn a_mirror_grows_by_checked_rows_only_and_reads_as_the_record() {
        let dir = tempfile::tempdir().expect("temp dir");
        let key = crate::SigningKey::generate();
        let mut store =
            Store::open(dir.path().join("a.db"), &crate::Sealing::key(key.clone())).expect("open");
        let mut now = Timestamp::from_unix_millis(1_700_000_000_000).expect("time");
        store.ensure_table("T1", "baccarat", "nz", now).expect("t");
        let path = dir.path().join("mirror.db");
        let mut mirror = Mirror::open(&path).expect("mirror");
        assert!(refresh(&mut mirror, &store).expect("first") > 0);
        assert_eq!(refresh(&mut mirror, &store).expect("nothing new"), 0);
        for i in 0..3 {
            now = Timestamp::from_unix_millis(1_700_000_000_000 + i * 1000).expect("time");
            let mut batch = store.batch(now).expect("batch");
            batch
                .append_audit("ana", "test.action", "T1", "{}", now)
                .expect("audit");
            batch.commit().expect("commit");
        }
        assert!(refresh(&mut mirror, &store).expect("more") >= 3);
        drop(mirror);
        // Reopened, it knows where it stands.
        let mut mirror = Mirror::open(&path).expect("reopen");
        assert_eq!(refresh(&mut mirror, &store).expect("nothing new"), 0);
        assert_eq!(
            mirror.record_id().expect("id"),
            store.record_id().expect("id")
        );
        for chain in CHAINS {
            assert_eq!(
                mirror.head(chain).0,
                store.chain_length(chain).expect("length"),
                "{}",
                chain.table
            );
        }

        // A row that does not match its hash, or that does not follow, is refused whole.
        let mut audit = store
            .chain_rows(&chain::AUDIT_LOG, 0, usize::MAX)
            .expect("rows");
        let next = mirror.head(&chain::AUDIT_LOG).0 + 1;
        let mut forged = audit.pop().expect("row");
        forged.position = next;
        forged.prev_hash = mirror.head(&chain::AUDIT_LOG).1;
        mirror.begin().expect("begin");
        let err = mirror
            .append(&chain::AUDIT_LOG, &forged)
            .expect_err("forged");
        assert!(err.to_string().contains("does not match its hash"), "{err}");
        forged.prev_hash = GENESIS;
        let err = mirror
            .append(&chain::AUDIT_LOG, &forged)
            .expect_err("forged");
        assert!(err.to_string().contains("does not follow"), "{err}");
        mirror.rollback().expect("rollback");
        assert_eq!(mirror.head(&chain::AUDIT_LOG).0, next - 1);
        drop(mirror);

        let mut copy = Store::open_read_only(&path).expect("read-only");
        copy.trust(vec![key.public()]);
        let report = copy.verify().expect("verify");
        assert!(report.intact(), "{:?}", report.problems);
        assert_eq!(copy.tables().expect("t"), store.tables().expect("t"));
    }
}
