//! Read-only queries for the shift handover report: what each table played in a period, the
//! incident workflow in it, device errors and device sessions, hand-over sign-offs, and the head
//! of every hash chain.
//!
//! Times in the record are of two kinds: events carry `at_ms` (ms since the Unix epoch), the rest
//! (`opened_at`, `at`, `started_at`) RFC 3339 text with a varying number of fractional digits,
//! compared here through SQLite's `julianday` so that text order never matters.

use pitwatch_model::Timestamp;
use rusqlite::{params, OptionalExtension};

use crate::{IncidentId, SessionId, Store, StoreError, TableId};

/// What one table played in a period.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayTally {
    /// The table.
    pub table: TableId,
    /// Rounds completed in the period (their last event's time in it).
    pub rounds: u64,
    /// Shoes those rounds were in.
    pub shoes: u64,
    /// Shoes that started in the period (their first event's time in it).
    pub shoes_started: u64,
}

/// A change of an incident's status by a user (acknowledged or resolved).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IncidentChange {
    /// The incident.
    pub incident: IncidentId,
    /// Its table's name.
    pub table: String,
    /// Its code.
    pub code: String,
    /// Its severity.
    pub severity: String,
    /// `acknowledged`, `resolved` or `reopened`.
    pub status: String,
    /// Who.
    pub user: Option<String>,
    /// The resolution, when resolved; the reason, when reopened.
    pub resolution: Option<String>,
    /// When (as recorded).
    pub at: String,
}

/// An incident not resolved at some time, with its status then.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unresolved {
    /// The incident.
    pub incident: IncidentId,
    /// Its table's name.
    pub table: String,
    /// Its code.
    pub code: String,
    /// Its severity.
    pub severity: String,
    /// When it was opened.
    pub opened_at: String,
    /// `open` or `acknowledged`, at that time.
    pub status: String,
    /// Who acknowledged it, if it was.
    pub by: Option<String>,
    /// When its status became that.
    pub since: String,
}

/// A device error (a `DEVICE_ERROR` incident) with when the device cleared it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceErrorSpan {
    /// The incident opened for it.
    pub incident: IncidentId,
    /// The table's name.
    pub table: String,
    /// The device's error code.
    pub code: String,
    /// The device's text.
    pub text: String,
    /// When it was raised (ms since the Unix epoch).
    pub raised_ms: i64,
    /// When the device cleared it, if it has.
    pub cleared_ms: Option<i64>,
}

/// One entry of the audit log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditEntry {
    /// Its row id.
    pub id: i64,
    /// Who.
    pub user: String,
    /// The action.
    pub action: String,
    /// What it was about.
    pub subject: String,
    /// Details.
    pub detail: String,
    /// When (as recorded).
    pub at: String,
}

fn ms(at: Timestamp) -> i64 {
    at.unix_millis()
}

impl Store {
    /// Rounds and shoes each table played between `from` (inclusive) and `to` (exclusive), by
    /// the time of each round's last event and each shoe's first; tables that played nothing
    /// are left out.
    pub fn play_between(
        &self,
        from: Timestamp,
        to: Timestamp,
    ) -> Result<Vec<PlayTally>, StoreError> {
        let mut tallies: Vec<PlayTally> = Vec::new();
        let mut statement = self.conn.prepare(
            "SELECT r.table_id, COUNT(*), COUNT(DISTINCT r.shoe) FROM rounds r \
             JOIN events e ON e.table_id = r.table_id AND e.seq = r.last_seq \
             WHERE e.at_ms >= ?1 AND e.at_ms < ?2 GROUP BY r.table_id ORDER BY r.table_id",
        )?;
        let rows = statement.query_map(params![ms(from), ms(to)], |r| {
            Ok(PlayTally {
                table: TableId(r.get(0)?),
                rounds: r.get::<_, i64>(1)?.max(0) as u64,
                shoes: r.get::<_, i64>(2)?.max(0) as u64,
                shoes_started: 0,
            })
        })?;
        for row in rows {
            tallies.push(row?);
        }
        let mut statement = self.conn.prepare(
            "SELECT s.table_id, COUNT(*) FROM shoes s \
             JOIN events e ON e.table_id = s.table_id AND e.seq = s.first_seq \
             WHERE e.at_ms >= ?1 AND e.at_ms < ?2 GROUP BY s.table_id",
        )?;
        let started = statement.query_map(params![ms(from), ms(to)], |r| {
            Ok((TableId(r.get(0)?), r.get::<_, i64>(1)?.max(0) as u64))
        })?;
        for row in started {
            let (table, count) = row?;
            match tallies.iter_mut().find(|t| t.table == table) {
                Some(tally) => tally.shoes_started = count,
                None => tallies.push(PlayTally {
                    table,
                    rounds: 0,
                    shoes: 0,
                    shoes_started: count,
                }),
            }
        }
        tallies.sort_by_key(|t| t.table);
        Ok(tallies)
    }

    /// Incidents acknowledged, resolved or reopened between `from` (inclusive) and `to`
    /// (exclusive), in the order they were, with who did it.
    pub fn incident_changes_between(
        &self,
        from: Timestamp,
        to: Timestamp,
    ) -> Result<Vec<IncidentChange>, StoreError> {
        let mut statement = self.conn.prepare(
            "SELECT c.incident_id, t.name, i.code, i.severity, c.status, c.user_name, c.resolution, c.at \
             FROM incident_changes c JOIN incidents i ON i.id = c.incident_id \
             JOIN pit_tables t ON t.id = i.table_id \
             WHERE (c.status != 'open' OR c.user_name IS NOT NULL) \
             AND julianday(c.at) >= julianday(?1) \
             AND julianday(c.at) < julianday(?2) ORDER BY c.id",
        )?;
        let rows = statement.query_map(params![from.to_string(), to.to_string()], |r| {
            let status: String = r.get(4)?;
            let user: Option<String> = r.get(5)?;
            Ok(IncidentChange {
                incident: IncidentId(r.get(0)?),
                table: r.get(1)?,
                code: r.get(2)?,
                severity: r.get(3)?,
                // The engine opens an incident (no user); a user's `open` reopens a resolved one.
                status: if status == "open" && user.is_some() {
                    "reopened".into()
                } else {
                    status
                },
                user,
                resolution: r.get(6)?,
                at: r.get(7)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Incidents opened before `at` and not resolved at `at`, oldest first, each with its status
    /// then. Reads the incidents unresolved now and those resolved since `at`, not the whole
    /// history.
    pub fn unresolved_at(&self, at: Timestamp) -> Result<Vec<Unresolved>, StoreError> {
        let mut statement = self.conn.prepare(
            "SELECT i.id, t.name, i.code, i.severity, i.opened_at, c.status, c.user_name, c.at \
             FROM incidents i JOIN pit_tables t ON t.id = i.table_id \
             JOIN incident_changes c ON c.id = (SELECT MAX(d.id) FROM incident_changes d \
                 WHERE d.incident_id = i.id AND julianday(d.at) < julianday(?1)) \
             WHERE i.id IN (SELECT incident_id FROM incident_status WHERE status != 'resolved' \
                 UNION SELECT incident_id FROM incident_changes WHERE status = 'resolved' \
                 AND julianday(at) >= julianday(?1)) \
             AND julianday(i.opened_at) < julianday(?1) AND c.status != 'resolved' \
             ORDER BY i.id",
        )?;
        let rows = statement.query_map([at.to_string()], |r| {
            let status: String = r.get(5)?;
            let user: Option<String> = r.get(6)?;
            Ok(Unresolved {
                incident: IncidentId(r.get(0)?),
                table: r.get(1)?,
                code: r.get(2)?,
                severity: r.get(3)?,
                opened_at: r.get(4)?,
                by: if status == "acknowledged" { user } else { None },
                status,
                since: r.get(7)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Device errors that were open at some time between `from` and `to`: each `DEVICE_ERROR`
    /// incident raised before `to`, with the device's code and text from the raising event and
    /// the time of the first `device_error_cleared` with the same code after it, if any, kept
    /// when it was not cleared before `from`.
    pub fn device_errors_between(
        &self,
        from: Timestamp,
        to: Timestamp,
    ) -> Result<Vec<DeviceErrorSpan>, StoreError> {
        let mut statement = self.conn.prepare(
            "SELECT i.id, t.name, i.table_id, i.seq, e.at_ms, \
             COALESCE(json_extract(e.body, '$.code'), ''), COALESCE(json_extract(e.body, '$.text'), '') \
             FROM incidents i JOIN pit_tables t ON t.id = i.table_id \
             JOIN events e ON e.table_id = i.table_id AND e.seq = i.seq \
             WHERE i.code = 'DEVICE_ERROR' AND e.at_ms < ?1 ORDER BY i.id",
        )?;
        let raised = statement
            .query_map([ms(to)], |r| {
                Ok((
                    IncidentId(r.get(0)?),
                    r.get::<_, String>(1)?,
                    r.get::<_, i64>(2)?,
                    r.get::<_, i64>(3)?,
                    r.get::<_, i64>(4)?,
                    // A code the device sent as a number is kept as text; read it as either.
                    r.get::<_, rusqlite::types::Value>(5)?,
                    r.get::<_, String>(6)?,
                ))
            })?
            .collect::<Result<Vec<_>, _>>()?;
        let mut cleared = self.conn.prepare(
            "SELECT at_ms FROM events WHERE table_id = ?1 AND seq > ?2 \
             AND kind = 'device_error_cleared' AND CAST(json_extract(body, '$.code') AS TEXT) = ?3 \
             ORDER BY seq LIMIT 1",
        )?;
        let mut spans = Vec::new();
        for (incident, table, table_id, seq, raised_ms, code, text) in raised {
            let code = match code {
                rusqlite::types::Value::Text(t) => t,
                rusqlite::types::Value::Integer(i) => i.to_string(),
                rusqlite::types::Value::Real(f) => f.to_string(),
                _ => String::new(),
            };
            let cleared_ms: Option<i64> = cleared
                .query_row(params![table_id, seq, code], |r| r.get(0))
                .optional()?
                .flatten();
            if cleared_ms.is_some_and(|c| c < ms(from)) {
                continue;
            }
            spans.push(DeviceErrorSpan {
                incident,
                table,
                code,
                text,
                raised_ms,
                cleared_ms,
            });
        }
        Ok(spans)
    }

    /// When the last bytes of a session arrived (ms since the Unix epoch), if any did.
    pub fn last_chunk_at(&self, session: SessionId) -> Result<Option<i64>, StoreError> {
        Ok(self
            .conn
            .query_row(
                "SELECT received_at_ms FROM raw_chunks WHERE session_id = ?1 ORDER BY id DESC LIMIT 1",
                [session.0],
                |r| r.get(0),
            )
            .optional()?)
    }

    /// When the newest audit entry about `subject` with one of `actions` was written, if there
    /// is one (an entry whose time does not read is passed over).
    pub fn last_audit_at(
        &self,
        subject: &str,
        actions: &[&str],
    ) -> Result<Option<Timestamp>, StoreError> {
        if actions.is_empty() {
            return Ok(None);
        }
        let wanted = vec!["?"; actions.len()].join(", ");
        let mut statement = self.conn.prepare(&format!(
            "SELECT at FROM audit_log WHERE subject = ? AND action IN ({wanted}) ORDER BY id DESC"
        ))?;
        let mut rows = statement.query(rusqlite::params_from_iter(
            std::iter::once(subject).chain(actions.iter().copied()),
        ))?;
        while let Some(row) = rows.next()? {
            if let Ok(at) = row.get::<_, String>(0)?.parse::<Timestamp>() {
                return Ok(Some(at));
            }
        }
        Ok(None)
    }

    /// Each table's last recorded state (`open`, `closed` or `vacant`, from its latest
    /// `table_state_changed` event), by table name; tables that never recorded one are left
    /// out. Reads each table's events newest first through the `(table_id, seq)` index and
    /// stops at the first such event.
    pub fn table_states(&self) -> Result<Vec<(String, String)>, StoreError> {
        let mut statement = self.conn.prepare(
            "SELECT t.name, (SELECT json_extract(e.body, '$.state') FROM events e \
             WHERE e.table_id = t.id AND e.kind = 'table_state_changed' \
             ORDER BY e.seq DESC LIMIT 1) FROM pit_tables t ORDER BY t.name",
        )?;
        let rows = statement.query_map([], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, Option<String>>(1)?))
        })?;
        let mut states = Vec::new();
        for row in rows {
            if let (name, Some(state)) = row? {
                states.push((name, state));
            }
        }
        Ok(states)
    }

    /// The audit entries with `action`, oldest first.
    pub fn audit_entries(&self, action: &str) -> Result<Vec<AuditEntry>, StoreError> {
        audit_entries(&self.conn, action)
    }
}

impl crate::Batch<'_> {
    /// [`Store::audit_entries`] inside this batch's write transaction: what a step checks before
    /// it writes (a period already signed off), with no other write between the check and it.
    pub fn audit_entries(&self, action: &str) -> Result<Vec<AuditEntry>, StoreError> {
        audit_entries(&self.tx, action)
    }
}

fn audit_entries(conn: &rusqlite::Connection, action: &str) -> Result<Vec<AuditEntry>, StoreError> {
    let mut statement = conn.prepare(
        "SELECT id, user_name, action, subject, detail, at FROM audit_log WHERE action = ?1 ORDER BY id",
    )?;
    let rows = statement.query_map([action], |r| {
        Ok(AuditEntry {
            id: r.get(0)?,
            user: r.get(1)?,
            action: r.get(2)?,
            subject: r.get(3)?,
            detail: r.get(4)?,
            at: r.get(5)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}
