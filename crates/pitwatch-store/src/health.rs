//! The devices' health over a period, from the record alone: for each device that served a table
//! in it (a `devices` row: its protocol, its identity and port), its connections, how long it was
//! connected within the period, the frames it sent accepted and rejected, and the errors it
//! reported with their codes. One row per table and device, so the rows are also the assignment
//! history: which device served which table, from when to when.
//!
//! Session times are RFC 3339 text, read through SQLite's `julianday` (as `shift.rs` does);
//! frames and events carry milliseconds.

use std::collections::BTreeMap;

use pitwatch_model::Timestamp;
use rusqlite::params;

use crate::{Store, StoreError};

/// One device at one table over a period.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceHealth {
    /// The table's name.
    pub table: String,
    /// The protocol it spoke.
    pub protocol: String,
    /// What it said it is (empty when it says nothing).
    pub make: String,
    /// Its model.
    pub model: String,
    /// Its serial number (the device's, or its USB adapter's).
    pub serial: String,
    /// Its firmware.
    pub firmware: String,
    /// The port or address it was reached on.
    pub port: String,
    /// Its connections overlapping the period.
    pub sessions: u32,
    /// When the first of them began and the last ended (ms; `None`: still connected).
    pub first_ms: i64,
    /// When the last ended, if it has.
    pub last_end_ms: Option<i64>,
    /// How long it was connected within the period (ms).
    pub connected_ms: i64,
    /// Frames accepted within the period.
    pub frames_accepted: u64,
    /// Frames rejected within the period.
    pub frames_rejected: u64,
    /// Errors it reported within the period (`device_error` events).
    pub errors: u64,
    /// Their codes, each once, in order.
    pub error_codes: Vec<String>,
}

/// RFC 3339 text as ms since the Unix epoch, in SQL.
const MS: &str = "CAST(ROUND((julianday(?) - 2440587.5) * 86400000.0) AS INTEGER)";

impl Store {
    /// Every device that served a table between `from` (inclusive) and `to` (exclusive), by
    /// table name then by when it first connected.
    pub fn device_health(
        &self,
        from: Timestamp,
        to: Timestamp,
    ) -> Result<Vec<DeviceHealth>, StoreError> {
        let (from, to) = (from.unix_millis(), to.unix_millis());
        let started = MS.replace('?', "s.started_at");
        let ended = MS.replace('?', "s.ended_at");
        let sql = format!(
            "SELECT s.id, t.name, s.device_id, d.protocol, d.make, d.model, d.serial, d.firmware, \
             d.port, {started}, CASE WHEN s.ended_at IS NULL THEN NULL ELSE {ended} END \
             FROM device_sessions s JOIN devices d ON d.id = s.device_id \
             JOIN pit_tables t ON t.id = s.table_id ORDER BY s.id"
        );
        let mut statement = self.conn.prepare(&sql)?;
        type Session = (i64, String, i64, [String; 6], i64, Option<i64>);
        let sessions: Vec<Session> = statement
            .query_map([], |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    [
                        r.get(3)?,
                        r.get(4)?,
                        r.get(5)?,
                        r.get(6)?,
                        r.get(7)?,
                        r.get(8)?,
                    ],
                    r.get::<_, Option<i64>>(9)?.unwrap_or(0),
                    r.get(10)?,
                ))
            })?
            .collect::<Result<_, _>>()?;
        let frames = self.per_session(
            "SELECT session_id, SUM(accepted), SUM(1 - accepted) FROM frames \
             WHERE received_at_ms >= ?1 AND received_at_ms < ?2 GROUP BY session_id",
            from,
            to,
        )?;
        let errors = self.per_session(
            "SELECT session_id, COUNT(*), 0 FROM events WHERE kind = 'device_error' \
             AND at_ms >= ?1 AND at_ms < ?2 AND session_id IS NOT NULL GROUP BY session_id",
            from,
            to,
        )?;
        let mut codes = self.conn.prepare(
            "SELECT DISTINCT CAST(json_extract(body, '$.code') AS TEXT) FROM events \
             WHERE session_id = ?1 AND kind = 'device_error' AND at_ms >= ?2 AND at_ms < ?3 \
             ORDER BY seq",
        )?;
        let mut rows: BTreeMap<(String, i64), DeviceHealth> = BTreeMap::new();
        for (id, table, device, [protocol, make, model, serial, firmware, port], start, end) in
            sessions
        {
            // Only what overlaps the period.
            if start >= to || end.is_some_and(|e| e < from) {
                continue;
            }
            let connected = end.unwrap_or(to).min(to) - start.max(from);
            let row = rows
                .entry((table.clone(), device))
                .or_insert_with(|| DeviceHealth {
                    table,
                    protocol,
                    make,
                    model,
                    serial,
                    firmware,
                    port,
                    sessions: 0,
                    first_ms: start,
                    last_end_ms: end,
                    connected_ms: 0,
                    frames_accepted: 0,
                    frames_rejected: 0,
                    errors: 0,
                    error_codes: Vec::new(),
                });
            row.sessions += 1;
            row.first_ms = row.first_ms.min(start);
            row.last_end_ms = match (row.last_end_ms, end) {
                (Some(a), Some(b)) => Some(a.max(b)),
                _ => None,
            };
            row.connected_ms += connected.max(0);
            let (accepted, rejected) = frames.get(&id).copied().unwrap_or((0, 0));
            row.frames_accepted += accepted;
            row.frames_rejected += rejected;
            if let Some((count, _)) = errors.get(&id) {
                row.errors += count;
                let found = codes
                    .query_map(params![id, from, to], |r| r.get::<_, Option<String>>(0))?
                    .collect::<Result<Vec<_>, _>>()?;
                for code in found.into_iter().flatten() {
                    if !row.error_codes.contains(&code) {
                        row.error_codes.push(code);
                    }
                }
            }
        }
        let mut rows: Vec<DeviceHealth> = rows.into_values().collect();
        rows.sort_by(|a, b| (&a.table, a.first_ms).cmp(&(&b.table, b.first_ms)));
        Ok(rows)
    }

    /// Two counts per session, as `sql` (with `?1` the period's start, `?2` its end) gives them.
    fn per_session(
        &self,
        sql: &str,
        from: i64,
        to: i64,
    ) -> Result<BTreeMap<i64, (u64, u64)>, StoreError> {
        let mut statement = self.conn.prepare(sql)?;
        let rows = statement.query_map(params![from, to], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                (
                    r.get::<_, i64>(1)?.max(0) as u64,
                    r.get::<_, i64>(2)?.max(0) as u64,
                ),
            ))
        })?;
        rows.collect::<Result<_, _>>().map_err(Into::into)
    }
}
