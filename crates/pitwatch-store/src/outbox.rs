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

    /// Appends `row` to `chain` as it is; a fact is also applied to its derived table. Rows of
    /// one chain must come in order.
    pub fn append(&mut self, chain: &Chain, row: &ChainRow) -> Result<(), StoreError> {
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
        self.conn.prepare_cached(&sql)?.execute(args.as_slice())?;
        if chain.table == chain::FACTS.table {
            // facts: id, kind, subject, body, at
            if let (Some(Value::Text(kind)), Some(Value::Text(body))) =
                (values.get(1), values.get(3))
            {
                facts::apply_stored(&self.conn, kind, body)?;
            }
        }
        Ok(())
    }

    /// Commits the rebuilt record.
    pub fn finish(self) -> Result<(), StoreError> {
        self.conn.execute_batch("COMMIT")?;
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
}
