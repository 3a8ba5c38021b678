//! Reading the record back: the tables, their events (with the session and frame each came
//! from), device sessions, raw chunks and frames, rounds, installation facts, an incident's
//! anchor in its chain and audit details.

use pitwatch_model::TableEvent;
use rusqlite::{params, OptionalExtension};

use crate::{
    migrate, DeviceIdentity, EventRow, FrameId, SessionId, SessionRow, Store, StoreError, TableId,
    TableRow,
};

/// A recorded frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameRow {
    /// Its id.
    pub id: FrameId,
    /// Its session.
    pub session: SessionId,
    /// Host receive time, ms since the Unix epoch.
    pub received_at_ms: i64,
    /// The bytes.
    pub bytes: Vec<u8>,
    /// Whether the codec accepted it.
    pub accepted: bool,
    /// Why it was rejected.
    pub reason: Option<String>,
    /// Its hash in the chain, hex.
    pub hash: String,
}

fn frame_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<FrameRow> {
    Ok(FrameRow {
        id: FrameId(r.get(0)?),
        session: SessionId(r.get(1)?),
        received_at_ms: r.get(2)?,
        bytes: r.get(3)?,
        accepted: r.get::<_, i64>(4)? == 1,
        reason: r.get(5)?,
        hash: hex::encode(r.get::<_, Vec<u8>>(6)?),
    })
}

impl Store {
    /// The id of the table named `name`, if recorded.
    pub fn table_id(&self, name: &str) -> Result<Option<TableId>, StoreError> {
        Ok(self
            .conn
            .query_row("SELECT id FROM pit_tables WHERE name = ?1", [name], |r| {
                r.get(0)
            })
            .optional()?
            .map(TableId))
    }

    /// The rule book's TOML as recorded for `table` (`None` for a record from before it was kept).
    pub fn table_book(&self, table: TableId) -> Result<Option<String>, StoreError> {
        if self.schema_version()? < migrate::SEALED {
            return Ok(None);
        }
        Ok(self
            .conn
            .query_row(
                "SELECT book FROM pit_tables WHERE id = ?1",
                [table.0],
                |r| r.get(0),
            )
            .optional()?
            .flatten())
    }

    /// The events recorded for `table`, in `seq` order.
    pub fn events(&self, table: TableId) -> Result<Vec<TableEvent>, StoreError> {
        let mut statement = self
            .conn
            .prepare("SELECT body FROM events WHERE table_id = ?1 ORDER BY seq")?;
        let rows = statement.query_map([table.0], |r| r.get::<_, String>(0))?;
        let mut events = Vec::new();
        for body in rows {
            let body = body?;
            let event = serde_json::from_str::<TableEvent>(&body).map_err(|e| {
                StoreError::NotADatabase(format!("an event row does not decode: {e}"))
            })?;
            events.push(event);
        }
        Ok(events)
    }

    /// The raw chunks of one device session, in order: (host receive time in ms, bytes).
    pub fn chunks(&self, session: SessionId) -> Result<Vec<(i64, Vec<u8>)>, StoreError> {
        let mut statement = self.conn.prepare(
            "SELECT received_at_ms, bytes FROM raw_chunks WHERE session_id = ?1 ORDER BY id",
        )?;
        let rows = statement.query_map([session.0], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Every table in the record: (id, name, game, rule book), by name.
    pub fn tables(&self) -> Result<Vec<TableRow>, StoreError> {
        let mut statement = self
            .conn
            .prepare("SELECT id, name, game, rule_book FROM pit_tables ORDER BY name")?;
        let rows = statement.query_map([], |r| {
            Ok(TableRow {
                id: TableId(r.get(0)?),
                name: r.get(1)?,
                game: r.get(2)?,
                rule_book: r.get(3)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The device sessions of `table`, in order, with the device's identity.
    pub fn sessions(&self, table: TableId) -> Result<Vec<SessionRow>, StoreError> {
        let mut statement = self.conn.prepare(
            "SELECT s.id, d.protocol, d.make, d.model, d.serial, d.firmware, d.settings, d.port, \
             s.started_at, s.ended_at, s.end_reason FROM device_sessions s JOIN devices d ON d.id = s.device_id \
             WHERE s.table_id = ?1 ORDER BY s.id",
        )?;
        let rows = statement.query_map([table.0], |r| {
            Ok(SessionRow {
                id: SessionId(r.get(0)?),
                device: DeviceIdentity {
                    protocol: r.get(1)?,
                    make: r.get(2)?,
                    model: r.get(3)?,
                    serial: r.get(4)?,
                    firmware: r.get(5)?,
                    settings: r.get(6)?,
                    port: r.get(7)?,
                },
                started_at: r.get(8)?,
                ended_at: r.get(9)?,
                end_reason: r.get(10)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The events of `table` in `seq` order, each with the session and frame it came from
    /// (`None` for events entered at the console).
    pub fn event_rows(&self, table: TableId) -> Result<Vec<EventRow>, StoreError> {
        self.event_rows_between(table, 0, u64::MAX)
    }

    /// The rounds recorded live for `table`: (shoe, round, body as JSON), in order.
    pub fn rounds(&self, table: TableId) -> Result<Vec<(u32, u32, String)>, StoreError> {
        let mut statement = self.conn.prepare(
            "SELECT shoe, round, body FROM rounds WHERE table_id = ?1 ORDER BY shoe, round",
        )?;
        let rows = statement.query_map([table.0], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// An installation fact, if set.
    pub fn meta(&self, key: &str) -> Result<Option<String>, StoreError> {
        Ok(self
            .conn
            .query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
            .optional()?)
    }

    /// One recorded frame.
    pub fn frame(&self, id: FrameId) -> Result<FrameRow, StoreError> {
        self.conn
            .query_row(
                "SELECT id, session_id, received_at_ms, bytes, accepted, reason, hash FROM frames WHERE id = ?1",
                [id.0],
                frame_row,
            )
            .optional()?
            .ok_or_else(|| StoreError::NotFound(format!("no frame {}", id.0)))
    }

    /// The frames of a session received between two host times (inclusive), in order.
    pub fn frames_between(
        &self,
        session: SessionId,
        from_ms: i64,
        to_ms: i64,
    ) -> Result<Vec<FrameRow>, StoreError> {
        let mut statement = self.conn.prepare(
            "SELECT id, session_id, received_at_ms, bytes, accepted, reason, hash FROM frames \
             WHERE session_id = ?1 AND received_at_ms BETWEEN ?2 AND ?3 ORDER BY id",
        )?;
        let rows = statement.query_map(params![session.0, from_ms, to_ms], frame_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The latest chained row of an incident's history: (row id, hash in hex). It anchors a
    /// report in the chain.
    pub fn incident_anchor(&self, id: crate::IncidentId) -> Result<(i64, String), StoreError> {
        let (row, hash): (i64, Vec<u8>) = self
            .conn
            .query_row(
                "SELECT id, hash FROM incident_changes WHERE incident_id = ?1 ORDER BY id DESC LIMIT 1",
                [id.0],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?
            .ok_or_else(|| StoreError::NotFound(format!("no incident {}", id.0)))?;
        Ok((row, hex::encode(hash)))
    }

    /// The details of the audit entries with `action` about `subject`, oldest first.
    pub fn audit_details(&self, action: &str, subject: &str) -> Result<Vec<String>, StoreError> {
        let mut statement = self.conn.prepare(
            "SELECT detail FROM audit_log WHERE action = ?1 AND subject = ?2 ORDER BY id",
        )?;
        let rows = statement.query_map([action, subject], |r| r.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}
