//! The baseline `pitwatch bench pit` compares the monitor with: raw bytes written to SQLite with
//! the record's durability (WAL, `synchronous = FULL`, one transaction per group), and nothing
//! else: no codec, no engine, no hash chain, no derived rows. What the monitor costs above it is
//! what Pitwatch adds to "just store the bytes".
//!
//! It lives here because this is the only crate that knows SQL.

use std::path::Path;

use rusqlite::{params, Connection};

use crate::{Store, StoreError};

impl Store {
    /// How many raw bytes the record holds, over every table: what a bench compares with what
    /// its simulated devices sent, to know when the monitor has read everything.
    pub fn raw_bytes_recorded(&self) -> Result<u64, StoreError> {
        let total: i64 = self.conn.query_row(
            "SELECT COALESCE(SUM(LENGTH(bytes)), 0) FROM raw_chunks",
            [],
            |r| r.get(0),
        )?;
        Ok(u64::try_from(total).unwrap_or(0))
    }
}

/// A database that only journals raw chunks.
pub struct RawSink {
    conn: Connection,
}

impl RawSink {
    /// Creates (or opens) the baseline database at `path`, with the record's pragmas.
    pub fn create(path: impl AsRef<Path>) -> Result<RawSink, StoreError> {
        let conn = Connection::open(path.as_ref())?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "FULL")?;
        conn.execute_batch(
            "CREATE TABLE IF NOT EXISTS raw (
                 id INTEGER PRIMARY KEY,
                 device INTEGER NOT NULL,
                 received_at_ms INTEGER NOT NULL,
                 bytes BLOB NOT NULL
             );",
        )?;
        Ok(RawSink { conn })
    }

    /// Writes `chunks` (device, receive time in ms, bytes) in one durable transaction.
    pub fn write(&mut self, chunks: &[(u32, i64, &[u8])]) -> Result<(), StoreError> {
        let tx = self.conn.transaction()?;
        {
            let mut insert = tx.prepare_cached(
                "INSERT INTO raw (device, received_at_ms, bytes) VALUES (?1, ?2, ?3)",
            )?;
            for (device, at, bytes) in chunks {
                insert.execute(params![device, at, bytes])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Everything written for `device`, in order.
    pub fn bytes_of(&self, device: u32) -> Result<Vec<u8>, StoreError> {
        let mut statement = self
            .conn
            .prepare("SELECT bytes FROM raw WHERE device = ?1 ORDER BY id")?;
        let mut rows = statement.query([device])?;
        let mut out = Vec::new();
        while let Some(row) = rows.next()? {
            out.extend_from_slice(row.get_ref(0)?.as_blob().unwrap_or(&[]));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_come_back_per_device_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let mut sink = RawSink::create(dir.path().join("raw.db")).unwrap();
        sink.write(&[(1, 10, b"ab"), (2, 11, b"x"), (1, 12, b"cd")])
            .unwrap();
        sink.write(&[(1, 13, b"e")]).unwrap();
        assert_eq!(sink.bytes_of(1).unwrap(), b"abcde");
        assert_eq!(sink.bytes_of(2).unwrap(), b"x");
        assert!(sink.bytes_of(3).unwrap().is_empty());
    }

    #[test]
    fn the_record_counts_its_raw_bytes() {
        let mut store = Store::open_in_memory().unwrap();
        assert_eq!(store.raw_bytes_recorded().unwrap(), 0);
        let now = pitwatch_model::Timestamp::from_unix_millis(0).unwrap();
        let table = store.ensure_table("T", "baccarat", "nz", now).unwrap();
        let device = store
            .ensure_device(&crate::DeviceIdentity::default(), now)
            .unwrap();
        let session = store.start_session(table, device, now).unwrap();
        let mut batch = store.batch(now).unwrap();
        batch.append_chunk(session, now, b"abc").unwrap();
        batch.append_chunk(session, now, b"de").unwrap();
        batch.commit().unwrap();
        assert_eq!(store.raw_bytes_recorded().unwrap(), 5);
    }
}
