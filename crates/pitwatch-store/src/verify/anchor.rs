//! Where the device chains carry on from when their first rows are kept elsewhere: the *anchor*
//! (a checkpoint, and for each device chain the last row not here and its hash).
//!
//! A live record learns its anchor from itself: the newest archive entry among its chained facts
//! ([`ENTRY_PREFIX`]), signed like every fact. Rows missing from the start of a chain that
//! no entry names are missing, not archived. An archive's own file (verified with
//! [`super::VerifyOptions::archive`]) begins where the archive before it ended: its anchor
//! is read off its first rows, and the checkpoint that counted exactly the rows before them.
//!
//! Either way the anchor proves itself only by a signature: the checkpoint it names must be a
//! trusted key's valid signature of the record with these heads for the device chains and the
//! stored heads of every other chain, so a record cut short at an arbitrary row, or given a
//! made-up head, fails.

use rusqlite::{Connection, OptionalExtension};

use crate::chain::{self, Hash, DEVICE};
use crate::seal::{self, PublicKey};
use crate::verify::{self, ChainMark};
use crate::StoreError;

/// The prefix of the `meta` keys of archive entries (`archive.1`, `archive.2`, …).
pub const ENTRY_PREFIX: &str = "archive.";

/// The heads the device chains carry on from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Anchor {
    /// The checkpoint that signed them.
    pub checkpoint: i64,
    /// For each device chain with rows not here: the last of them and its hash.
    pub ends: Vec<ChainMark>,
}

/// The anchor of the record on `conn`, if its device chains do not begin at their first row: its
/// newest archive entry (`archive` false), or its first rows (`archive`: the record is an
/// archive). `Ok(Err(problem))` when what the record says cannot be read as an anchor.
pub(crate) fn find(
    conn: &Connection,
    archive: bool,
) -> Result<Result<Option<Anchor>, String>, StoreError> {
    if archive {
        return from_first_rows(conn);
    }
    Ok(match newest_entry(conn)? {
        None => Ok(None),
        Some(value) => anchor_of_entry(&value).map(Some),
    })
}

/// The newest archive entry among the record's chained facts, as the JSON text of its value
/// (read from the chain itself, not the derived table, so that only what is signed counts).
fn newest_entry(conn: &Connection) -> Result<Option<String>, StoreError> {
    let body: Option<String> = conn
        .query_row(
            "SELECT body FROM facts WHERE kind = 'meta' AND subject LIKE ?1 ORDER BY id DESC \
             LIMIT 1",
            [format!("\"{ENTRY_PREFIX}%")],
            |r| r.get(0),
        )
        .optional()?;
    Ok(body.map(|body| {
        serde_json::from_str::<serde_json::Value>(&body)
            .ok()
            .and_then(|b| b.get("value").and_then(|v| v.as_str()).map(str::to_owned))
            .unwrap_or_default()
    }))
}

/// The anchor an archive entry (its JSON) names: its checkpoint, and each device chain's last
/// row that left the record with that row's hash.
fn anchor_of_entry(value: &str) -> Result<Anchor, String> {
    let unreadable = |why: &str| format!("an archive entry cannot be read: {why}");
    let entry: serde_json::Value =
        serde_json::from_str(value).map_err(|e| unreadable(&e.to_string()))?;
    let checkpoint = entry["checkpoint"]
        .as_i64()
        .ok_or_else(|| unreadable("no checkpoint"))?;
    let spans = entry["chains"]
        .as_array()
        .ok_or_else(|| unreadable("no chains"))?;
    let mut ends = Vec::with_capacity(spans.len());
    for span in spans {
        let name = span["chain"].as_str().unwrap_or_default();
        let chain = DEVICE
            .iter()
            .find(|c| c.table == name)
            .ok_or_else(|| unreadable(&format!("it names a chain {name:?}")))?;
        let last_id = span["last"]
            .as_i64()
            .ok_or_else(|| unreadable("a chain without its last row"))?;
        let hash: Hash = span["hash"]
            .as_str()
            .and_then(|h| hex::decode(h).ok())
            .and_then(|h| h.try_into().ok())
            .ok_or_else(|| unreadable("a head that is not a hash"))?;
        ends.push(ChainMark {
            table: chain.table,
            last_id,
            hash,
        });
    }
    Ok(Anchor { checkpoint, ends })
}

/// An archive's anchor, from the first rows of its device chains.
fn from_first_rows(conn: &Connection) -> Result<Result<Option<Anchor>, String>, StoreError> {
    let mut firsts = Vec::with_capacity(DEVICE.len());
    for chain in DEVICE {
        let first: Option<(i64, Vec<u8>)> = conn
            .query_row(
                &format!(
                    "SELECT id, prev_hash FROM {} ORDER BY id LIMIT 1",
                    chain.table
                ),
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        firsts.push((chain, first));
    }
    let ends: Vec<ChainMark> = firsts
        .iter()
        .filter_map(|(chain, first)| match first {
            Some((id, prev)) if *id > 1 => Some(ChainMark {
                table: chain.table,
                last_id: id - 1,
                hash: prev.clone().try_into().unwrap_or(chain::GENESIS),
            }),
            _ => None,
        })
        .collect();
    if ends.is_empty() {
        return Ok(Ok(None));
    }
    // The checkpoint that counted exactly the rows before each device chain's first here.
    let wanted: Vec<i64> = firsts
        .iter()
        .map(|(_, first)| first.as_ref().map_or(-1, |(id, _)| id - 1))
        .collect();
    let device_index: Vec<usize> = DEVICE
        .iter()
        .map(|d| {
            chain::SIGNED
                .iter()
                .position(|c| c.table == d.table)
                .unwrap_or(usize::MAX)
        })
        .collect();
    let mut statement = conn.prepare("SELECT id, counts FROM checkpoints ORDER BY id DESC")?;
    let mut rows = statement.query([])?;
    while let Some(row) = rows.next()? {
        let id: i64 = row.get(0)?;
        let counts = seal::parse_counts(&row.get::<_, String>(1)?).unwrap_or_default();
        let matches = wanted.iter().zip(&device_index).all(|(want, index)| {
            let count = counts.get(*index).copied().unwrap_or(-2);
            // A chain with no rows here had none after the checkpoint either, or is empty.
            *want == count || (*want == -1 && count == 0)
        });
        if matches {
            return Ok(Ok(Some(Anchor {
                checkpoint: id,
                ends,
            })));
        }
    }
    Ok(Err(format!(
        "the device record begins at {} but no checkpoint here counted the rows before: it is \
         not an archive's beginning, rows are missing",
        ends.iter()
            .map(|m| format!("{} row {}", m.table, m.last_id + 1))
            .collect::<Vec<_>>()
            .join(", ")
    )))
}

/// Whether the anchor's checkpoint is a trusted key's valid signature of the record with the
/// anchor's heads for the device chains and the stored heads of the others; the problems found.
pub(crate) fn authenticate(
    conn: &Connection,
    anchor: &Anchor,
    trusted: &[PublicKey],
) -> Result<(bool, Vec<String>), StoreError> {
    let mut problems = Vec::new();
    let Some(row) = verify::checkpoint_row(conn, anchor.checkpoint)? else {
        problems.push(format!(
            "checkpoint {}, where the archived device record ends, is not in the record",
            anchor.checkpoint
        ));
        return Ok((false, problems));
    };
    let (record, _) = verify::record_meta(conn)?;
    let record = record.and_then(|r| hex::decode(r).ok()).unwrap_or_default();
    let mut heads: Vec<(i64, Hash)> = Vec::with_capacity(chain::SIGNED.len());
    for (index, chain) in chain::SIGNED.iter().enumerate() {
        let count = row.counts.get(index).copied().unwrap_or(-1);
        if let Some(end) = anchor.ends.iter().find(|m| m.table == chain.table) {
            if end.last_id != count {
                problems.push(format!(
                    "the archived {} end at row {}, but checkpoint {} counted {count}",
                    chain.table, end.last_id, anchor.checkpoint
                ));
            }
        }
        match verify::head_at(conn, chain, count, Some(anchor))? {
            Some(hash) => heads.push((count, hash)),
            None => {
                problems.push(format!(
                    "{} row {count}, which checkpoint {} signed, is not in the record",
                    chain.table, anchor.checkpoint
                ));
                return Ok((false, problems));
            }
        }
    }
    let signed = problems.is_empty() && row.signs(&record, &heads);
    if !signed {
        problems.push(format!(
            "checkpoint {} is not a valid signature of the heads the archived device record ends \
             at: what is kept here does not carry on from what was archived",
            anchor.checkpoint
        ));
    }
    let key = PublicKey::from_bytes(&row.public_key);
    let trusted_key = key.is_some_and(|k| trusted.contains(&k));
    if signed && !trusted_key {
        problems.push(format!(
            "checkpoint {}, where the archived device record ends, is signed by key {}, which is \
             not a trusted key",
            anchor.checkpoint,
            seal::fingerprint(&row.public_key)
        ));
    }
    Ok((signed && trusted_key, problems))
}
