//! The devices' health over a period, from the record alone: for each device that served a table
//! in it (a `devices` row: its protocol, its identity and port), its connections, how long it was
//! connected within the period, the frames it sent accepted and rejected, and the errors it
//! reported with their codes. One row per table and device, so the rows are also the assignment
//! history: which device served which table, from when to when.
//!
//! A device that says what it is (the Pitwatch protocol's `HELLO`) is named by what it said in each
//! connection ([`session_hello_key`], a chained fact the recorder writes on its first `HELLO`), so
//! a shoe swapped behind the same USB adapter is a row of its own; the adapter's identity (the
//! `devices` row) is then how it was reached.
//!
//! Session times are RFC 3339 text, read through SQLite's `julianday` (as `shift.rs` does);
//! frames and events carry milliseconds.

use std::collections::BTreeMap;

use pitwatch_model::Timestamp;
use rusqlite::params;

use crate::{SessionId, Store, StoreError};

/// The record's fact holding what the device of session `session` said of itself first (its
/// `HELLO`, as JSON with `make`, `model`, `serial`, `firmware` and `at`).
pub fn session_hello_key(session: SessionId) -> String {
    format!("session_hello:{}", session.0)
}

/// What a device said of itself.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reported {
    /// Maker.
    pub make: String,
    /// Model.
    pub model: String,
    /// Serial number.
    pub serial: String,
    /// Firmware.
    pub firmware: String,
}

/// One device at one table over a period.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceHealth {
    /// The table's name.
    pub table: String,
    /// The protocol it spoke.
    pub protocol: String,
    /// What the device said of itself in these connections (`HELLO`), when it did.
    pub reported: Option<Reported>,
    /// Its link's identity as the system gave it (a USB adapter's maker; empty when none).
    pub make: String,
    /// Its model (a USB adapter's product).
    pub model: String,
    /// Its serial number (a USB adapter's).
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
    /// Cards it sent again within the period (an Angel Eye `R`, a Pitwatch `CARD` with
    /// `retransmit=1`), whether taken (its first report was lost) or rejected as one already
    /// accepted.
    pub retransmissions: u64,
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
             d.port, {started}, CASE WHEN s.ended_at IS NULL THEN NULL ELSE {ended} END, \
             m.value IS NOT NULL, \
             COALESCE(CAST(json_extract(m.value, '$.make') AS TEXT), ''), \
             COALESCE(CAST(json_extract(m.value, '$.model') AS TEXT), ''), \
             COALESCE(CAST(json_extract(m.value, '$.serial') AS TEXT), ''), \
             COALESCE(CAST(json_extract(m.value, '$.firmware') AS TEXT), '') \
             FROM device_sessions s JOIN devices d ON d.id = s.device_id \
             JOIN pit_tables t ON t.id = s.table_id \
             LEFT JOIN meta m ON m.key = 'session_hello:' || s.id AND json_valid(m.value) \
             ORDER BY s.id"
        );
        let mut statement = self.conn.prepare(&sql)?;
        type Session = (
            i64,
            String,
            i64,
            [String; 6],
            i64,
            Option<i64>,
            Option<Reported>,
        );
        let sessions: Vec<Session> = statement
            .query_map([], |r| {
                let reported = r.get::<_, bool>(11)?.then(|| -> rusqlite::Result<_> {
                    Ok(Reported {
                        make: r.get(12)?,
                        model: r.get(13)?,
                        serial: r.get(14)?,
                        firmware: r.get(15)?,
                    })
                });
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
                    reported.transpose()?,
                ))
            })?
            .collect::<Result<_, _>>()?;
        let frames = self.per_session(
            "SELECT session_id, SUM(accepted), SUM(1 - accepted) FROM frames \
             WHERE received_at_ms >= ?1 AND received_at_ms < ?2 GROUP BY session_id",
            from,
            to,
        )?;
        // A retransmission taken is a card event saying so; one refused is a frame rejected as
        // a duplicate of a card already accepted (each codec words it "retransmitted card…").
        let retransmissions = self.per_session(
            "SELECT session_id, SUM(n), 0 FROM ( \
               SELECT session_id, COUNT(*) AS n FROM events WHERE kind = 'card_drawn' \
               AND json_extract(body, '$.retransmit') = 1 AND at_ms >= ?1 AND at_ms < ?2 \
               AND session_id IS NOT NULL GROUP BY session_id \
               UNION ALL \
               SELECT session_id, COUNT(*) FROM frames WHERE accepted = 0 \
               AND reason LIKE 'duplicate: retransmitted card%' \
               AND received_at_ms >= ?1 AND received_at_ms < ?2 GROUP BY session_id \
             ) GROUP BY session_id",
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
        let mut rows: BTreeMap<(String, i64, String), DeviceHealth> = BTreeMap::new();
        for (
            id,
            table,
            device,
            [protocol, make, model, serial, firmware, port],
            start,
            end,
            reported,
        ) in sessions
        {
            // Only what overlaps the period.
            if start >= to || end.is_some_and(|e| e < from) {
                continue;
            }
            let connected = end.unwrap_or(to).min(to) - start.max(from);
            // The device itself, when it says who it is: another shoe behind the same adapter
            // is another row.
            let itself = reported.as_ref().map_or_else(String::new, |r| {
                format!("{}\u{1f}{}\u{1f}{}", r.make, r.model, r.serial)
            });
            let row = rows
                .entry((table.clone(), device, itself))
                .or_insert_with(|| DeviceHealth {
                    table,
                    protocol,
                    reported: None,
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
                    retransmissions: 0,
                    errors: 0,
                    error_codes: Vec::new(),
                });
            row.sessions += 1;
            // Its firmware as it said it last in the period.
            if reported.is_some() {
                row.reported = reported;
            }
            row.first_ms = row.first_ms.min(start);
            row.last_end_ms = match (row.last_end_ms, end) {
                (Some(a), Some(b)) => Some(a.max(b)),
                _ => None,
            };
            row.connected_ms += connected.max(0);
            let (accepted, rejected) = frames.get(&id).copied().unwrap_or((0, 0));
            row.frames_accepted += accepted;
            row.frames_rejected += rejected;
            row.retransmissions += retransmissions.get(&id).map_or(0, |(n, _)| *n);
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
