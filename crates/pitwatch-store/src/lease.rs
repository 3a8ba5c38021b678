//! Table leases: a table is recorded by one process at a time.
//!
//! Two processes recording the same table would both number its events, and one of them would
//! clash with the other's sequence numbers (an `import` into a table the monitor records used to
//! make the monitor drop device events). So a recording process takes the lease of each table
//! before it writes anything for it, renews the lease's heartbeat while it runs, and gives it up
//! when it stops. A lease held by another process is only taken over when the caller decides
//! that process is gone (the store reads no clock and knows nothing of processes: the caller
//! passes the time and the judgement).
//!
//! Leases are bookkeeping, not part of the record, so they are neither chained nor kept.

use rusqlite::{params, OptionalExtension};

use crate::{Batch, Store, StoreError};

/// A table's lease as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lease {
    /// The table's name.
    pub table: String,
    /// Who holds it, for people (`pitwatch monitor, pid 4242 on pit-ws-3`).
    pub holder: String,
    /// The holding process's identity, for checking whether it is still alive.
    pub process: String,
    /// When it was taken (ms since the Unix epoch).
    pub acquired_ms: i64,
    /// When the holder last said it is alive (ms since the Unix epoch).
    pub heartbeat_ms: i64,
}

impl Store {
    /// Takes the lease of every table in `tables` for the process `process` (named `holder` for
    /// people), all of them or none, at `now_ms`. A lease that `process` already holds is kept;
    /// one held by another process is taken over only if `gone(lease)` says its holder is no
    /// longer running. Otherwise nothing is taken and the error names the table and its holder.
    pub fn acquire_leases(
        &mut self,
        tables: &[String],
        holder: &str,
        process: &str,
        now_ms: i64,
        gone: &dyn Fn(&Lease) -> bool,
    ) -> Result<(), StoreError> {
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        for table in tables {
            let current = tx
                .query_row(
                    "SELECT table_name, holder, process, acquired_ms, heartbeat_ms \
                     FROM table_leases WHERE table_name = ?1",
                    [table],
                    lease_row,
                )
                .optional()?;
            if let Some(lease) = &current {
                if lease.process != process && !gone(lease) {
                    return Err(StoreError::Leased {
                        table: table.clone(),
                        holder: lease.holder.clone(),
                    });
                }
            }
            tx.execute(
                "INSERT INTO table_leases (table_name, holder, process, acquired_ms, heartbeat_ms) \
                 VALUES (?1, ?2, ?3, ?4, ?4) \
                 ON CONFLICT (table_name) DO UPDATE SET holder = excluded.holder, \
                 process = excluded.process, acquired_ms = excluded.acquired_ms, \
                 heartbeat_ms = excluded.heartbeat_ms",
                params![table, holder, process, now_ms],
            )?;
        }
        tx.commit()?;
        Ok(())
    }

    /// Renews the heartbeat of every lease `process` holds; returns how many it still holds.
    pub fn renew_leases(&mut self, process: &str, now_ms: i64) -> Result<usize, StoreError> {
        Ok(self.conn.execute(
            "UPDATE table_leases SET heartbeat_ms = ?2 WHERE process = ?1",
            params![process, now_ms],
        )?)
    }

    /// Gives up the lease of `table`, when `process` holds it (a table stopped while the others
    /// keep recording).
    pub fn release_lease(&mut self, process: &str, table: &str) -> Result<(), StoreError> {
        self.conn.execute(
            "DELETE FROM table_leases WHERE process = ?1 AND table_name = ?2",
            [process, table],
        )?;
        Ok(())
    }

    /// Gives up every lease `process` holds.
    pub fn release_leases(&mut self, process: &str) -> Result<(), StoreError> {
        self.conn
            .execute("DELETE FROM table_leases WHERE process = ?1", [process])?;
        Ok(())
    }

    /// Every lease, by table.
    pub fn leases(&self) -> Result<Vec<Lease>, StoreError> {
        let mut statement = self.conn.prepare(
            "SELECT table_name, holder, process, acquired_ms, heartbeat_ms FROM table_leases \
             ORDER BY table_name",
        )?;
        let rows = statement.query_map([], lease_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}

fn lease_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Lease> {
    Ok(Lease {
        table: r.get(0)?,
        holder: r.get(1)?,
        process: r.get(2)?,
        acquired_ms: r.get(3)?,
        heartbeat_ms: r.get(4)?,
    })
}

impl Batch<'_> {
    /// Sets an installation fact inside the batch, so it commits (or not) with everything else
    /// in it: a writer marks how far it has written a spool of its own in the same transaction
    /// as what it wrote, so after a crash it neither loses nor repeats any of it.
    /// Like every installation fact, it is a chained fact (see [`crate::facts`]).
    pub fn set_meta(&mut self, key: &str, value: &str) -> Result<(), StoreError> {
        let at = self.now.to_string();
        self.put_fact(
            &crate::facts::META,
            &[("key", key.into()), ("value", value.into())],
            &at,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tables(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn a_table_has_one_holder_until_it_is_released_or_its_holder_is_gone() {
        let mut store = Store::open_in_memory().unwrap();
        let alive = |_: &Lease| false;
        store
            .acquire_leases(&tables(&["A", "B"]), "monitor 1", "p1", 1_000, &alive)
            .unwrap();
        // Taking it again is renewing it.
        store
            .acquire_leases(&tables(&["A"]), "monitor 1", "p1", 2_000, &alive)
            .unwrap();
        let error = store
            .acquire_leases(&tables(&["C", "B"]), "import", "p2", 3_000, &alive)
            .unwrap_err();
        assert!(
            matches!(&error, StoreError::Leased { table, holder } if table == "B" && holder == "monitor 1"),
            "{error}"
        );
        assert!(error.to_string().contains("monitor 1"), "{error}");
        // All or nothing: C was not taken either.
        assert_eq!(store.leases().unwrap().len(), 2);
        assert_eq!(store.renew_leases("p1", 4_000).unwrap(), 2);
        assert!(store
            .leases()
            .unwrap()
            .iter()
            .all(|l| l.heartbeat_ms == 4_000));
        // A holder judged gone loses its leases to the next taker.
        store
            .acquire_leases(&tables(&["B"]), "monitor 2", "p3", 5_000, &|l: &Lease| {
                l.process == "p1"
            })
            .unwrap();
        assert_eq!(store.renew_leases("p1", 6_000).unwrap(), 1);
        store.release_leases("p1").unwrap();
        let left = store.leases().unwrap();
        assert_eq!(left.len(), 1);
        assert_eq!(
            (left[0].table.as_str(), left[0].holder.as_str()),
            ("B", "monitor 2")
        );
    }

    #[test]
    fn one_lease_is_given_up_by_its_holder_only() {
        let mut store = Store::open_in_memory().unwrap();
        let alive = |_: &Lease| false;
        store
            .acquire_leases(&tables(&["A", "B"]), "monitor 1", "p1", 1_000, &alive)
            .unwrap();
        // Another process cannot give up what it does not hold.
        store.release_lease("p2", "A").unwrap();
        assert_eq!(store.leases().unwrap().len(), 2);
        store.release_lease("p1", "A").unwrap();
        let left = store.leases().unwrap();
        assert_eq!(left.len(), 1);
        assert_eq!(left[0].table, "B");
        // A is free for the next taker.
        store
            .acquire_leases(&tables(&["A"]), "monitor 2", "p2", 2_000, &alive)
            .unwrap();
    }

    #[test]
    fn a_mark_set_in_a_batch_commits_with_it_or_not_at_all() {
        let mut store = Store::open_in_memory().unwrap();
        {
            let mut batch = store
                .batch(pitwatch_model::Timestamp::from_unix_millis(1_000).unwrap())
                .unwrap();
            batch.set_meta("spool", "7").unwrap();
            // Dropped without committing.
        }
        assert_eq!(store.meta("spool").unwrap(), None);
        let mut batch = store
            .batch(pitwatch_model::Timestamp::from_unix_millis(1_000).unwrap())
            .unwrap();
        batch.set_meta("spool", "8").unwrap();
        batch.commit().unwrap();
        assert_eq!(store.meta("spool").unwrap().as_deref(), Some("8"));
    }
}
