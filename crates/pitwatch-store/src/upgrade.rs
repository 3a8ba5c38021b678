//! Migration 3's upgrade step in Rust, between the migration's two halves: a record from before
//! signing gets its incidents chained, its derived rows recorded as facts, its id, and the mark
//! of how many rows predate signing.

use rusqlite::types::ValueRef;
use rusqlite::{params, Connection};

use crate::batch::load_chain_heads;
use crate::chain::{self, CHAINS, GENESIS};
use crate::open::new_record_id;
use crate::{facts, seal, StoreError, RECORD_ID, UNSIGNED_BEFORE};

/// Migration 3's upgrade step for a record from before signing (see
/// [`migrate`](crate::migrate)): chains the incidents it has, records every derived row as a
/// fact, gives the record its id, and marks how many rows of each chain predate signing. Runs
/// inside the migration's transaction.
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
