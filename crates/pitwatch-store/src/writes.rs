//! Device identities and sessions written inside a [`Batch`], so a live writer's transaction
//! holds everything one group of inputs changes: a connection that arrives while the database
//! cannot be written is recorded with the bytes that follow it, all or nothing, when it can.

use rusqlite::{params, OptionalExtension};

use crate::facts::{self, FactValue};
use crate::{settings_or_default, Batch, DeviceId, DeviceIdentity, SessionId, StoreError, TableId};
use pitwatch_model::Timestamp;

impl Batch<'_> {
    /// The device with this identity, recorded (as a chained fact) on first sight.
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
        let at = now.to_string();
        let id = self.next_id("devices")?;
        self.put_fact(
            &facts::DEVICES,
            &[
                ("id", id.into()),
                ("protocol", device.protocol.as_str().into()),
                ("make", device.make.as_str().into()),
                ("model", device.model.as_str().into()),
                ("serial", device.serial.as_str().into()),
                ("firmware", device.firmware.as_str().into()),
                ("settings", settings.into()),
                ("port", device.port.as_str().into()),
                ("first_seen_at", at.as_str().into()),
            ],
            &at,
        )?;
        Ok(DeviceId(id))
    }

    /// Records (as a chained fact) that `device` connected to `table`.
    pub fn start_session(
        &mut self,
        table: TableId,
        device: DeviceId,
        now: Timestamp,
    ) -> Result<SessionId, StoreError> {
        let at = now.to_string();
        let id = self.next_id("device_sessions")?;
        self.put_fact(
            &facts::DEVICE_SESSIONS,
            &[
                ("id", id.into()),
                ("table_id", table.0.into()),
                ("device_id", device.0.into()),
                ("started_at", at.as_str().into()),
                ("ended_at", FactValue::Null),
                ("end_reason", FactValue::Null),
            ],
            &at,
        )?;
        Ok(SessionId(id))
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
            let mut batch = store.batch(now).unwrap();
            let device = batch.ensure_device(&identity, now).unwrap();
            batch.start_session(table, device, now).unwrap();
        }
        assert!(store.sessions(table).unwrap().is_empty());
        let mut batch = store.batch(now).unwrap();
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
