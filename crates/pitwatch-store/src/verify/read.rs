//! Reading the record's chains as verification needs them: a chain's length and a row's stored
//! hash (or, for rows archived, the head a checkpoint signed), the record's id, and checkpoint
//! rows with the check of a checkpoint's signature.

use rusqlite::{Connection, OptionalExtension};

use super::anchor::Anchor;
use crate::chain::{Chain, Hash, GENESIS};
use crate::seal::{self, PublicKey, Signed};
use crate::StoreError;

pub(crate) fn chain_length(conn: &Connection, chain: &Chain) -> Result<i64, StoreError> {
    Ok(conn.query_row(
        &format!("SELECT COALESCE(MAX(id), 0) FROM {}", chain.table),
        [],
        |r| r.get(0),
    )?)
}

/// The stored hash of row `id` of `chain` (the genesis for row 0), if the row exists.
pub(crate) fn stored_hash(
    conn: &Connection,
    chain: &Chain,
    id: i64,
) -> Result<Option<Hash>, StoreError> {
    if id == 0 {
        return Ok(Some(GENESIS));
    }
    let hash: Option<Vec<u8>> = conn
        .query_row(
            &format!("SELECT hash FROM {} WHERE id = ?1", chain.table),
            [id],
            |r| r.get(0),
        )
        .optional()?;
    Ok(hash.and_then(|h| h.try_into().ok()))
}

/// The hash of row `id` of `chain`: stored, or, for the last row an anchor holds (archived),
/// the anchor's.
pub(crate) fn head_at(
    conn: &Connection,
    chain: &Chain,
    id: i64,
    anchor: Option<&Anchor>,
) -> Result<Option<Hash>, StoreError> {
    if let Some(end) = anchor.and_then(|a| a.ends.iter().find(|m| m.table == chain.table)) {
        if id == end.last_id {
            return Ok(Some(end.hash));
        }
    }
    stored_hash(conn, chain, id)
}

/// The record's id and the rows that predate signing, as the (derived, checked) meta says.
pub(crate) fn record_meta(
    conn: &Connection,
) -> Result<(Option<String>, Option<Vec<i64>>), StoreError> {
    let get = |key: &str| -> Result<Option<String>, StoreError> {
        Ok(conn
            .query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
            .optional()?)
    };
    let record = get(crate::RECORD_ID)?;
    let unsigned = get(crate::UNSIGNED_BEFORE)?.and_then(|t| seal::parse_counts(&t));
    Ok((record, unsigned))
}

/// A stored checkpoint row.
pub(crate) struct CheckpointRow {
    pub id: i64,
    pub at: String,
    pub counts: Vec<i64>,
    pub public_key: Vec<u8>,
    pub signature: Vec<u8>,
    pub prev_hash: Vec<u8>,
    pub hash: Vec<u8>,
}

pub(crate) fn latest_checkpoint(conn: &Connection) -> Result<Option<CheckpointRow>, StoreError> {
    checkpoint_where(conn, "ORDER BY id DESC LIMIT 1", [])
}

/// Checkpoint `id`, if the record holds it.
pub(crate) fn checkpoint_row(
    conn: &Connection,
    id: i64,
) -> Result<Option<CheckpointRow>, StoreError> {
    checkpoint_where(conn, "WHERE id = ?1", [id])
}

impl CheckpointRow {
    /// Whether this checkpoint is a valid signature, by the key it names, of the record `record`
    /// (its id's bytes) with these `heads` (each signed chain's count and head hash).
    pub(crate) fn signs(&self, record: &[u8], heads: &[(i64, Hash)]) -> bool {
        PublicKey::from_bytes(&self.public_key).is_some_and(|key| {
            let prev: Hash = self.prev_hash.clone().try_into().unwrap_or(GENESIS);
            let signed = Signed {
                record,
                id: self.id,
                at: &self.at,
                heads,
                prev: &prev,
            };
            key.verifies(&signed.message(), &self.signature)
        })
    }
}

fn checkpoint_where<P: rusqlite::Params>(
    conn: &Connection,
    clause: &str,
    params: P,
) -> Result<Option<CheckpointRow>, StoreError> {
    Ok(conn
        .query_row(
            &format!(
                "SELECT id, at, counts, public_key, signature, prev_hash, hash FROM checkpoints \
                 {clause}"
            ),
            params,
            |r| {
                Ok(CheckpointRow {
                    id: r.get(0)?,
                    at: r.get(1)?,
                    counts: seal::parse_counts(&r.get::<_, String>(2)?).unwrap_or_default(),
                    public_key: r.get(3)?,
                    signature: r.get(4)?,
                    prev_hash: r.get(5)?,
                    hash: r.get(6)?,
                })
            },
        )
        .optional()?)
}
