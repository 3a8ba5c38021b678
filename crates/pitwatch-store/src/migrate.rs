//! Schema migrations: numbered SQL files from `migrations/`, applied all-or-nothing.
//!
//! The schema version is SQLite's `user_version`. Every pending migration and the new version are
//! applied in one transaction, so a failure leaves the database exactly as it was. A database
//! whose version is newer than this binary knows is refused rather than misread.
//!
//! Migration 3 (signed checkpoints) has an upgrade step in Rust between the two halves of its SQL
//! (hashes cannot be computed in SQL): an existing record's incidents are chained, and every row
//! of the derived tables is recorded as a fact, before the new append-only triggers are created.

use rusqlite::Connection;

use crate::StoreError;

/// Every migration, in order: (version, name, SQL).
pub const MIGRATIONS: &[(u32, &str, &str)] = &[
    (
        1,
        "initial",
        include_str!("../../../migrations/0001_initial.sql"),
    ),
    (
        2,
        "paging",
        include_str!("../../../migrations/0002_paging.sql"),
    ),
    (
        3,
        "sealed",
        include_str!("../../../migrations/0003_sealed.sql"),
    ),
    (
        4,
        "leases",
        include_str!("../../../migrations/0004_leases.sql"),
    ),
    (
        5,
        "access",
        include_str!("../../../migrations/0005_access.sql"),
    ),
];

/// The first schema version with signed checkpoints, chained incidents and facts.
pub const SEALED: u32 = 3;

/// Where migration 3's upgrade step runs, between the two halves of its SQL.
const UPGRADE_STEP: &str = "-- @upgrade-step";

/// The schema version this binary writes.
pub const LATEST: u32 = MIGRATIONS[MIGRATIONS.len() - 1].0;

/// The database's schema version.
pub fn version(conn: &Connection) -> Result<u32, StoreError> {
    Ok(conn.query_row("PRAGMA user_version", [], |row| row.get(0))?)
}

/// Brings the database up to [`LATEST`], or refuses a newer one. Returns the versions applied.
pub fn migrate(conn: &mut Connection) -> Result<Vec<u32>, StoreError> {
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Exclusive)?;
    let found = version(&tx)?;
    if found > LATEST {
        return Err(StoreError::NewerSchema {
            found,
            supported: LATEST,
        });
    }
    let mut applied = Vec::new();
    for (number, name, sql) in MIGRATIONS.iter().filter(|(n, _, _)| *n > found) {
        let failed = |reason: String| StoreError::Migration {
            version: *number,
            name,
            reason,
        };
        let (before, after) = sql.split_once(UPGRADE_STEP).unwrap_or((sql, ""));
        tx.execute_batch(before)
            .map_err(|e| failed(e.to_string()))?;
        if *number == SEALED && found > 0 {
            crate::upgrade_to_sealed(&tx).map_err(|e| failed(e.to_string()))?;
        }
        tx.execute_batch(after).map_err(|e| failed(e.to_string()))?;
        tx.pragma_update(None, "user_version", number)?;
        applied.push(*number);
    }
    tx.commit()?;
    Ok(applied)
}
