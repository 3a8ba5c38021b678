//! The central schema's migrations (`central/NNNN_*.sql`), applied like the local store's: in
//! order, each with its version row in one transaction, under a lock so two `pitwatch central
//! init` at once apply each migration once.

use tokio_postgres::Client;

use crate::SyncError;

/// Every migration of the central schema, in order: (version, name, SQL).
pub const MIGRATIONS: &[(u32, &str, &str)] = &[
    (1, "central", include_str!("../central/0001_central.sql")),
    (2, "witness", include_str!("../central/0002_witness.sql")),
];

/// The central schema version this binary writes.
pub const SCHEMA_VERSION: u32 = MIGRATIONS[MIGRATIONS.len() - 1].0;

/// The central database's schema version (`None`: no Pitwatch schema).
pub(crate) async fn version(client: &Client) -> Result<Option<u32>, SyncError> {
    let exists: bool = client
        .query_one("SELECT to_regclass('central_migrations') IS NOT NULL", &[])
        .await?
        .get(0);
    if !exists {
        return Ok(None);
    }
    let v: Option<i32> = client
        .query_one("SELECT max(version) FROM central_migrations", &[])
        .await?
        .get(0);
    Ok(Some(v.unwrap_or(0).max(0) as u32))
}

/// Applies every pending migration; returns the versions applied.
pub(crate) async fn migrate(client: &mut Client) -> Result<Vec<u32>, SyncError> {
    client
        .batch_execute(
            "CREATE TABLE IF NOT EXISTS central_migrations (\
               version INTEGER PRIMARY KEY, name TEXT NOT NULL, \
               applied_at TIMESTAMPTZ NOT NULL DEFAULT now())",
        )
        .await?;
    let mut applied = Vec::new();
    for (number, name, sql) in MIGRATIONS {
        let tx = client.transaction().await?;
        tx.batch_execute("LOCK TABLE central_migrations IN EXCLUSIVE MODE")
            .await?;
        let newest: Option<i32> = tx
            .query_one("SELECT max(version) FROM central_migrations", &[])
            .await?
            .get(0);
        let newest = newest.unwrap_or(0);
        if newest > SCHEMA_VERSION as i32 {
            return Err(SyncError::Schema(format!(
                "the central database has schema version {newest}, newer than this Pitwatch \
                 supports ({SCHEMA_VERSION}); use a newer Pitwatch"
            )));
        }
        if newest >= *number as i32 {
            continue;
        }
        tx.batch_execute(sql).await.map_err(|e| {
            SyncError::Schema(format!(
                "central migration {number} ({name}) failed, nothing of it was applied: {}",
                e.as_db_error()
                    .map(|d| d.message().to_owned())
                    .unwrap_or_else(|| e.to_string())
            ))
        })?;
        tx.execute(
            "INSERT INTO central_migrations (version, name) VALUES ($1, $2)",
            &[&(*number as i32), name],
        )
        .await?;
        tx.commit().await?;
        applied.push(*number);
    }
    Ok(applied)
}
