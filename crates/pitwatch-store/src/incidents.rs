//! Incidents and their workflow: open → acknowledged → resolved, with notes, every step
//! by a named user, chained and audited.
//!
//! An incident is opened from an irregularity the engine raised. What never changes (code, rule,
//! evidence) is in `incidents`; every change of status is a new chained `incident_changes` row,
//! so the history cannot be rewritten and the current status is the latest change.

use pitwatch_model::Timestamp;
use rusqlite::OptionalExtension;

/// Who did something and where: the user, and the workstation when it is known. The audit log
/// keeps both for every step a person takes ([`Actor::detail`]); a bare user name (tests, tools
/// that have no workstation) converts into an actor without one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Actor {
    /// The user's name.
    pub user: String,
    /// The workstation they acted at (the host's name, or `PITWATCH_WORKSTATION`).
    pub workstation: Option<String>,
}

impl Actor {
    /// `user` acting at `workstation`.
    pub fn at(user: &str, workstation: &str) -> Actor {
        Actor {
            user: user.to_owned(),
            workstation: Some(workstation.to_owned()),
        }
    }

    /// The audit detail of a step with `fields`: JSON with the workstation and the fields when
    /// the workstation is known (what the audit view reads), else the fields' values as plain
    /// text, as before workstations were kept.
    pub fn detail(&self, fields: &[(&str, &str)]) -> String {
        match &self.workstation {
            Some(workstation) => {
                let mut map = serde_json::Map::new();
                map.insert("workstation".into(), workstation.as_str().into());
                for (key, value) in fields {
                    map.insert((*key).into(), (*value).into());
                }
                serde_json::Value::Object(map).to_string()
            }
            None => fields.iter().map(|(_, v)| *v).collect::<Vec<_>>().join(" "),
        }
    }
}

impl From<&str> for Actor {
    fn from(user: &str) -> Actor {
        Actor {
            user: user.to_owned(),
            workstation: None,
        }
    }
}

impl From<&String> for Actor {
    fn from(user: &String) -> Actor {
        Actor::from(user.as_str())
    }
}

use crate::chain;
use crate::{Batch, Field, Store, StoreError, TableId};

/// The audit action of a resolved incident reopened (its detail holds the reason).
pub const INCIDENT_REOPEN: &str = "incident.reopen";

/// A row id in `incidents`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct IncidentId(pub i64);

/// An incident's workflow state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Raised, nobody has looked yet.
    Open,
    /// Someone has taken it.
    Acknowledged,
    /// Closed with a resolution.
    Resolved,
}

impl Status {
    /// The state's name as stored.
    pub const fn as_str(self) -> &'static str {
        match self {
            Status::Open => "open",
            Status::Acknowledged => "acknowledged",
            Status::Resolved => "resolved",
        }
    }

    /// The state named `name`.
    pub fn parse(name: &str) -> Option<Status> {
        match name {
            "open" => Some(Status::Open),
            "acknowledged" => Some(Status::Acknowledged),
            "resolved" => Some(Status::Resolved),
            _ => None,
        }
    }
}

/// What an irregularity says, for opening an incident.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewIncident {
    /// The table it happened at.
    pub table: TableId,
    /// The irregularity's stable code.
    pub code: String,
    /// Its severity.
    pub severity: String,
    /// The rule cited.
    pub rule: String,
    /// Shoe number, when in a shoe.
    pub shoe: Option<u32>,
    /// Round number, when in a round.
    pub round: Option<u32>,
    /// The event that raised it.
    pub seq: u64,
    /// Every event seq that is evidence.
    pub evidence: Vec<u64>,
    /// The message for supervisors.
    pub message: String,
}

/// An incident with its current status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Incident {
    /// Its id.
    pub id: IncidentId,
    /// The table's name.
    pub table: String,
    /// Irregularity code.
    pub code: String,
    /// Severity.
    pub severity: String,
    /// Rule cited.
    pub rule: String,
    /// Shoe, if any.
    pub shoe: Option<u32>,
    /// Round, if any.
    pub round: Option<u32>,
    /// Raising event.
    pub seq: u64,
    /// Evidence seqs.
    pub evidence: Vec<u64>,
    /// Message.
    pub message: String,
    /// When it was opened.
    pub opened_at: String,
    /// Current status.
    pub status: Status,
}

/// One step of an incident's history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IncidentStep {
    /// When.
    pub at: String,
    /// Who (none for the engine opening it).
    pub user: Option<String>,
    /// `opened`, `acknowledged`, `resolved`, `reopened` or `note`.
    pub what: String,
    /// Resolution, reason for reopening, or note text.
    pub text: Option<String>,
}

/// Which incidents to list; every field narrows the list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IncidentFilter {
    /// Only this table.
    pub table: Option<String>,
    /// Only this status.
    pub status: Option<Status>,
    /// Only incidents not yet resolved (open or acknowledged).
    pub unresolved: bool,
    /// Only this severity (`low` … `critical`, as recorded).
    pub severity: Option<String>,
    /// Only this irregularity code.
    pub code: Option<String>,
    /// Only opened at or after this time.
    pub since: Option<Timestamp>,
    /// Only opened before this time.
    pub until: Option<Timestamp>,
}

/// One page of incidents, newest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IncidentPage {
    /// The incidents, newest (highest id) first.
    pub incidents: Vec<Incident>,
    /// Whether older incidents match too (ask again with the last id as the cursor).
    pub more: bool,
    /// How many incidents match the filter in all (every page).
    pub total: u64,
}

/// How many incidents a page holds at most.
pub const MAX_PAGE: u32 = 1000;

/// Unresolved incidents of one table and one severity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenCount {
    /// The table's name.
    pub table: String,
    /// The severity as recorded.
    pub severity: String,
    /// How many are open or acknowledged.
    pub count: u64,
}

/// `at` as text that sorts before every stored time in the same second or later (the stored
/// form has a variable number of fractional digits, so whole stored times do not sort as text).
fn second_floor(at: Timestamp) -> String {
    let text = at.to_string();
    text.get(..19).unwrap_or(&text).to_owned()
}

/// The SQL condition and arguments for `filter` (over `incidents i` and `incident_status s`).
/// Time bounds use the `opened_at` index on a whole-second text range and then compare exactly.
fn filter_sql(filter: &IncidentFilter) -> (String, Vec<rusqlite::types::Value>) {
    use rusqlite::types::Value;
    let mut clauses = Vec::new();
    let mut args = Vec::new();
    let mut arg = |clause: String, value: Value, clauses: &mut Vec<String>| {
        args.push(value);
        clauses.push(clause.replace('?', &format!("?{}", args.len())));
    };
    // With a time range the `opened_at` index narrows best: keep the planner off the other
    // indexes (a unary `+` makes a column unusable for one), which hold many rows per value.
    let timed = filter.since.is_some() || filter.until.is_some();
    let col = |name: &str| {
        if timed {
            format!("+{name}")
        } else {
            name.to_owned()
        }
    };
    if let Some(table) = &filter.table {
        arg(
            format!(
                "{} = (SELECT id FROM pit_tables WHERE name = ?)",
                col("i.table_id")
            ),
            Value::Text(table.clone()),
            &mut clauses,
        );
    }
    if let Some(status) = filter.status {
        arg(
            format!("{} = ?", col("s.status")),
            Value::Text(status.as_str().into()),
            &mut clauses,
        );
    }
    if filter.unresolved {
        clauses.push(format!("{} IN ('open', 'acknowledged')", col("s.status")));
    }
    if let Some(severity) = &filter.severity {
        arg(
            format!("{} = ?", col("i.severity")),
            Value::Text(severity.clone()),
            &mut clauses,
        );
    }
    if let Some(code) = &filter.code {
        arg(
            format!("{} = ?", col("i.code")),
            Value::Text(code.clone()),
            &mut clauses,
        );
    }
    if let Some(since) = filter.since {
        arg(
            "i.opened_at >= ?".into(),
            Value::Text(second_floor(since)),
            &mut clauses,
        );
        arg(
            "julianday(i.opened_at) >= julianday(?)".into(),
            Value::Text(since.to_string()),
            &mut clauses,
        );
    }
    if let Some(until) = filter.until {
        // Every stored time before `until` sorts before the second after `until`'s second.
        let next = Timestamp::from_unix_millis(until.unix_millis().div_euclid(1000) * 1000 + 1000)
            .map_or_else(|| until.to_string(), second_floor);
        arg("i.opened_at < ?".into(), Value::Text(next), &mut clauses);
        arg(
            "julianday(i.opened_at) < julianday(?)".into(),
            Value::Text(until.to_string()),
            &mut clauses,
        );
    }
    let sql = if clauses.is_empty() {
        String::new()
    } else {
        format!("WHERE {}", clauses.join(" AND "))
    };
    (sql, args)
}

const INCIDENT_COLUMNS: &str = "i.id, t.name, i.code, i.severity, i.rule, i.shoe, i.round, i.seq, \
     i.evidence, i.message, i.opened_at";

fn incident_from_row(r: &rusqlite::Row<'_>, status: &str) -> rusqlite::Result<Incident> {
    let evidence: String = r.get(8)?;
    Ok(Incident {
        id: IncidentId(r.get(0)?),
        table: r.get(1)?,
        code: r.get(2)?,
        severity: r.get(3)?,
        rule: r.get(4)?,
        shoe: r.get(5)?,
        round: r.get(6)?,
        seq: r.get::<_, i64>(7)?.max(0) as u64,
        evidence: serde_json::from_str(&evidence).unwrap_or_default(),
        message: r.get(9)?,
        opened_at: r.get(10)?,
        status: Status::parse(status).unwrap_or(Status::Open),
    })
}

impl Batch<'_> {
    /// Opens an incident from an irregularity (status `open`, by the engine).
    pub fn open_incident(
        &mut self,
        incident: &NewIncident,
        now: Timestamp,
    ) -> Result<IncidentId, StoreError> {
        let evidence = serde_json::to_string(&incident.evidence).unwrap_or_else(|_| "[]".into());
        let opened_at = now.to_string();
        let id = IncidentId(self.append(
            &chain::INCIDENTS,
            &[
                Field::Int(incident.table.0),
                Field::Text(&incident.code),
                Field::Text(&incident.severity),
                Field::Text(&incident.rule),
                Field::OptInt(incident.shoe.map(i64::from)),
                Field::OptInt(incident.round.map(i64::from)),
                Field::Int(i64::try_from(incident.seq).unwrap_or(i64::MAX)),
                Field::Text(&evidence),
                Field::Text(&incident.message),
                Field::Text(&opened_at),
            ],
        )?);
        self.change(id, Status::Open, None, None, now)?;
        Ok(id)
    }

    fn change(
        &mut self,
        incident: IncidentId,
        status: Status,
        user: Option<&str>,
        resolution: Option<&str>,
        now: Timestamp,
    ) -> Result<i64, StoreError> {
        let at = now.to_string();
        self.append(
            &chain::INCIDENT_CHANGES,
            &[
                Field::Int(incident.0),
                Field::Text(status.as_str()),
                Field::OptText(user),
                Field::OptText(resolution),
                Field::Text(&at),
            ],
        )
    }
}

impl Store {
    /// One incident with its current status, read from its chain of changes.
    pub fn incident(&self, id: IncidentId) -> Result<Incident, StoreError> {
        let sql = format!(
            "SELECT {INCIDENT_COLUMNS}, (SELECT c.status FROM incident_changes c \
             WHERE c.incident_id = i.id ORDER BY c.id DESC LIMIT 1) \
             FROM incidents i JOIN pit_tables t ON t.id = i.table_id WHERE i.id = ?1"
        );
        self.conn
            .query_row(&sql, [id.0], |r| {
                let status: String = r.get(11)?;
                incident_from_row(r, &status)
            })
            .optional()?
            .ok_or_else(|| StoreError::NotFound(format!("no incident {}", id.0)))
    }

    /// Incidents matching `filter`, oldest first (every one: for a long record, page with
    /// [`Store::incident_page`]).
    pub fn incidents(&self, filter: &IncidentFilter) -> Result<Vec<Incident>, StoreError> {
        let (clause, args) = filter_sql(filter);
        let sql = format!(
            "SELECT {INCIDENT_COLUMNS}, s.status FROM incidents i \
             JOIN pit_tables t ON t.id = i.table_id JOIN incident_status s ON s.incident_id = i.id \
             {clause} ORDER BY i.id"
        );
        let mut statement = self.conn.prepare(&sql)?;
        let rows = statement.query_map(rusqlite::params_from_iter(args.iter()), |r| {
            let status: String = r.get(11)?;
            incident_from_row(r, &status)
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// One page of the incidents matching `filter`, newest first: at most `limit` (1 to
    /// [`MAX_PAGE`]) incidents with an id below `before` (the keyset cursor: the last id of the
    /// previous page; `None` for the first page), whether older ones match too, and how many
    /// match in all. New incidents never shift a page, since the cursor is an id, not an offset.
    pub fn incident_page(
        &self,
        filter: &IncidentFilter,
        before: Option<IncidentId>,
        limit: u32,
    ) -> Result<IncidentPage, StoreError> {
        let limit = limit.clamp(1, MAX_PAGE);
        // The count and the page from one snapshot, while the monitor goes on appending.
        let snapshot = self.conn.unchecked_transaction()?;
        let (clause, mut args) = filter_sql(filter);
        // Every incident has its status row: the join is needed only to filter on status.
        let join = if filter.status.is_some() || filter.unresolved {
            "JOIN incident_status s ON s.incident_id = i.id"
        } else {
            ""
        };
        let total: i64 = snapshot.query_row(
            &format!("SELECT COUNT(*) FROM incidents i {join} {clause}"),
            rusqlite::params_from_iter(args.iter()),
            |r| r.get(0),
        )?;
        let mut clause = clause;
        if let Some(before) = before {
            args.push(rusqlite::types::Value::Integer(before.0));
            let cursor = format!("i.id < ?{}", args.len());
            clause = if clause.is_empty() {
                format!("WHERE {cursor}")
            } else {
                format!("{clause} AND {cursor}")
            };
        }
        args.push(rusqlite::types::Value::Integer(i64::from(limit) + 1));
        let sql = format!(
            "SELECT {INCIDENT_COLUMNS}, s.status FROM incidents i \
             JOIN pit_tables t ON t.id = i.table_id JOIN incident_status s ON s.incident_id = i.id \
             {clause} ORDER BY i.id DESC LIMIT ?{}",
            args.len()
        );
        let mut statement = snapshot.prepare(&sql)?;
        let rows = statement.query_map(rusqlite::params_from_iter(args.iter()), |r| {
            let status: String = r.get(11)?;
            incident_from_row(r, &status)
        })?;
        let mut incidents: Vec<Incident> = rows.collect::<Result<_, _>>()?;
        drop(statement);
        snapshot.finish()?;
        let more = incidents.len() > limit as usize;
        incidents.truncate(limit as usize);
        Ok(IncidentPage {
            incidents,
            more,
            total: total.max(0) as u64,
        })
    }

    /// Unresolved (open or acknowledged) incidents by table and severity; reads only the
    /// unresolved ones, however many are resolved.
    pub fn open_counts(&self) -> Result<Vec<OpenCount>, StoreError> {
        let mut statement = self.conn.prepare(
            "SELECT t.name, i.severity, COUNT(*) FROM incident_status s \
             JOIN incidents i ON i.id = s.incident_id JOIN pit_tables t ON t.id = i.table_id \
             WHERE s.status IN ('open', 'acknowledged') GROUP BY t.name, i.severity ORDER BY 1, 2",
        )?;
        let rows = statement.query_map([], |r| {
            Ok(OpenCount {
                table: r.get(0)?,
                severity: r.get(1)?,
                count: r.get::<_, i64>(2)?.max(0) as u64,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The incident's history: status changes and notes, in order.
    pub fn incident_history(&self, id: IncidentId) -> Result<Vec<IncidentStep>, StoreError> {
        let mut steps = Vec::new();
        let mut statement = self.conn.prepare(
            "SELECT at, user_name, status, resolution, id, 0 FROM incident_changes WHERE incident_id = ?1 \
             UNION ALL SELECT at, user_name, 'note', text, id, 1 FROM incident_notes WHERE incident_id = ?1 \
             ORDER BY 1, 6, 5",
        )?;
        let rows = statement.query_map([id.0], |r| {
            let what: String = r.get(2)?;
            let user: Option<String> = r.get(1)?;
            Ok(IncidentStep {
                at: r.get(0)?,
                // The engine opens an incident (no user); a user's `open` reopens a resolved one.
                what: match (what.as_str(), user.is_some()) {
                    ("open", false) => "opened".into(),
                    ("open", true) => "reopened".into(),
                    _ => what,
                },
                user,
                text: r.get(3)?,
            })
        })?;
        for row in rows {
            steps.push(row?);
        }
        Ok(steps)
    }

    fn require_user(&self, user: &str) -> Result<(), StoreError> {
        if self.user_exists(user)? {
            Ok(())
        } else {
            Err(StoreError::Denied(format!("no user named {user:?}")))
        }
    }

    /// `user` acknowledges an open incident.
    pub fn acknowledge(
        &mut self,
        id: IncidentId,
        by: impl Into<Actor>,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        let by = by.into();
        let user = by.user.as_str();
        self.require_user(user)?;
        let incident = self.incident(id)?;
        if incident.status != Status::Open {
            return Err(StoreError::Invalid(format!(
                "incident {} is {}, only an open incident can be acknowledged",
                id.0,
                incident.status.as_str()
            )));
        }
        let mut batch = self.batch(now)?;
        batch.change(id, Status::Acknowledged, Some(user), None, now)?;
        batch.append_audit(
            user,
            "incident.acknowledge",
            &format!("incident {}", id.0),
            &by.detail(&[]),
            now,
        )?;
        batch.commit()
    }

    /// `user` resolves an incident that is not yet resolved, saying how.
    pub fn resolve(
        &mut self,
        id: IncidentId,
        by: impl Into<Actor>,
        resolution: &str,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        let by = by.into();
        let user = by.user.as_str();
        self.require_user(user)?;
        if resolution.trim().is_empty() {
            return Err(StoreError::Invalid(
                "a resolution must say how the incident was resolved".into(),
            ));
        }
        let incident = self.incident(id)?;
        if incident.status == Status::Resolved {
            return Err(StoreError::Invalid(format!(
                "incident {} is already resolved",
                id.0
            )));
        }
        let mut batch = self.batch(now)?;
        batch.change(id, Status::Resolved, Some(user), Some(resolution), now)?;
        batch.append_audit(
            user,
            "incident.resolve",
            &format!("incident {}", id.0),
            &by.detail(&[("resolution", resolution)]),
            now,
        )?;
        batch.commit()
    }

    /// `user` reopens a resolved incident, saying why: a chained change back to `open` by them
    /// (the history calls it `reopened`), audited as [`INCIDENT_REOPEN`] with the reason. The
    /// incident is then unresolved everywhere (lists, counts, alerts) until resolved again.
    pub fn reopen(
        &mut self,
        id: IncidentId,
        by: impl Into<Actor>,
        reason: &str,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        let by = by.into();
        let user = by.user.as_str();
        self.require_user(user)?;
        let reason = reason.trim();
        if reason.is_empty() {
            return Err(StoreError::Invalid(
                "reopening an incident needs a reason".into(),
            ));
        }
        let incident = self.incident(id)?;
        if incident.status != Status::Resolved {
            return Err(StoreError::Invalid(format!(
                "incident {} is {}, only a resolved incident can be reopened",
                id.0,
                incident.status.as_str()
            )));
        }
        let mut batch = self.batch(now)?;
        batch.change(id, Status::Open, Some(user), Some(reason), now)?;
        batch.append_audit(
            user,
            INCIDENT_REOPEN,
            &format!("incident {}", id.0),
            &by.detail(&[("reason", reason)]),
            now,
        )?;
        batch.commit()
    }

    /// `user` adds a note to an incident.
    pub fn add_note(
        &mut self,
        id: IncidentId,
        by: impl Into<Actor>,
        text: &str,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        let by = by.into();
        let user = by.user.as_str();
        self.require_user(user)?;
        if text.trim().is_empty() {
            return Err(StoreError::Invalid("a note cannot be empty".into()));
        }
        self.incident(id)?;
        let at = now.to_string();
        let mut batch = self.batch(now)?;
        batch.append(
            &chain::INCIDENT_NOTES,
            &[
                Field::Int(id.0),
                Field::Text(user),
                Field::Text(text),
                Field::Text(&at),
            ],
        )?;
        batch.append_audit(
            user,
            "incident.note",
            &format!("incident {}", id.0),
            &by.detail(&[("note", text)]),
            now,
        )?;
        batch.commit()
    }
}
