//! Device identities and sessions written inside a [`Batch`], so a live writer's transaction
//! holds everything one group of inputs changes: a connection that arrives while the database
//! cannot be written is recorded with the bytes that follow it, all or nothing, when it can.

use rusqlite::{params, OptionalExtension};

use crate::{settings_or_default, Batch, DeviceId, DeviceIdentity, SessionId, StoreError, TableId};
use pitwatch_model::Timestamp;

impl Batch<'_> {
    /// The device with this identity, recorded on first sight (as [`crate::Store::ensure_device`]).
    pub fn ensure_device(
        &mut self,
        device: &DeviceIdentity,
        now: Timestamp,
    ) -> Result<DeviceId, StoreError> {
        let settings = settings_or_default(&device.settings);
        let existing = self
            .tx
            .query_row(
                "SELECT id FROM devices WHERE protocol = ?1 AND make = ?2 AND model = ?3 \
                 AND serial = ?4 AND firmware = ?5 AND settings = ?6 AND port = ?7",
                params![
                    device.protocol,
                    device.make,
                    device.model,
                    device.serial,
                    device.firmware,
                    settings,
                    device.port
                ],
                |r| r.get(0),
            )
            .optional()?;
        if let Some(id) = existing {
            return Ok(DeviceId(id));
        }
        self.tx.execute(
            "INSERT INTO devices (protocol, make, model, serial, firmware, settings, port, first_seen_at) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![
                device.protocol,
                device.make,
                device.model,
                device.serial,
                device.firmware,
                settings,
                device.port,
                now.to_string()
            ],
        )?;
        Ok(DeviceId(self.tx.last_insert_rowid()))
    }

    /// Records that `device` connected to `table` (as [`crate::Store::start_session`]).
    pub fn start_session(
        &mut self,
        table: TableId,
        device: DeviceId,
        now: Timestamp,
    ) -> Result<SessionId, StoreError> {
        self.tx.execute(
            "INSERT INTO device_sessions (table_id, device_id, started_at) VALUES (?1, ?2, ?3)",
            params![table.0, device.0, now.to_string()],
        )?;
        Ok(SessionId(self.tx.last_insert_rowid()))
    }

    /// Records that a session ended, and why (as [`crate::Store::end_session`]).
    pub fn end_session(
        &mut self,
        session: SessionId,
        now: Timestamp,
        reason: &str,
    ) -> Result<(), StoreError> {
        self.tx.execute(
            "UPDATE device_sessions SET ended_at = ?2, end_reason = ?3 WHERE id = ?1 AND ended_at IS NULL",
            params![session.0, now.to_string(), reason],
        )?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::{DeviceIdentity, Store};
    use pitwatch_model::Timestamp;

    #[test]
    fn a_session_started_in_a_batch_that_is_not_committed_leaves_no_trace() {
        let mut store = Store::open_in_memory().unwrap();
        let now = Timestamp::from_unix_millis(1_000).unwrap();
        let table = store.ensure_table("T", "baccarat", "nz", now).unwrap();
        let identity = DeviceIdentity {
            protocol: "barcode".into(),
            port: "/dev/ttyS0".into(),
            ..DeviceIdentity::default()
        };
        {
            let mut batch = store.batch().unwrap();
            let device = batch.ensure_device(&identity, now).unwrap();
            batch.start_session(table, device, now).unwrap();
        }
        assert!(store.sessions(table).unwrap().is_empty());
        let mut batch = store.batch().unwrap();
        let device = batch.ensure_device(&identity, now).unwrap();
        assert_eq!(batch.ensure_device(&identity, now).unwrap(), device);
        let session = batch.start_session(table, device, now).unwrap();
        batch.end_session(session, now, "unplugged").unwrap();
        batch.commit().unwrap();
        let sessions = store.sessions(table).unwrap();
        assert_eq!(sessions.len(), 1);
        assert_eq!(sessions[0].end_reason.as_deref(), Some("unplugged"));
        assert_eq!(store.ensure_device(&identity, now).unwrap(), device);
    }
}
