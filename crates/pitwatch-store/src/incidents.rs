//! Users, incidents and their workflow: open → acknowledged → resolved, with notes, every step
//! by a named user, chained and audited.
//!
//! An incident is opened from an irregularity the engine raised. What never changes (code, rule,
//! evidence) is in `incidents`; every change of status is a new chained `incident_changes` row,
//! so the history cannot be rewritten and the current status is the latest change.

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;
use password_hash::rand_core::OsRng;
use pitwatch_model::Timestamp;
use rusqlite::{Connection, OptionalExtension};

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

/// A row id in `incidents`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct IncidentId(pub i64);

/// What a user may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Watches tables and works incidents.
    Supervisor,
    /// Surveillance and compliance: works incidents and writes reports.
    Surveillance,
    /// Manages users and configuration.
    Admin,
}

impl Role {
    /// The role's name as stored.
    pub const fn as_str(self) -> &'static str {
        match self {
            Role::Supervisor => "supervisor",
            Role::Surveillance => "surveillance",
            Role::Admin => "admin",
        }
    }

    /// The role named `name`.
    pub fn parse(name: &str) -> Option<Role> {
        match name {
            "supervisor" => Some(Role::Supervisor),
            "surveillance" => Some(Role::Surveillance),
            "admin" => Some(Role::Admin),
            _ => None,
        }
    }
}

/// A user as listed (no password hash).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserRow {
    /// The user's name.
    pub name: String,
    /// What the user may do.
    pub role: Role,
    /// When the user was added.
    pub created_at: String,
    /// Whether the user may log in (a deactivated user's name stays on record).
    pub active: bool,
}

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

/// The fewest characters (not bytes) a password may have. The application layer also refuses
/// common and guessable passwords; the store keeps this floor whoever calls it.
pub const MIN_PASSWORD_CHARS: usize = 12;

/// A change to a user account (each needs an administrator, see the application layer).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UserChange<'a> {
    /// A new role.
    Role(Role),
    /// A new password (hashed here; never stored or audited in clear).
    Password(&'a str),
    /// Active (may log in) or deactivated.
    Active(bool),
}

/// One attempt to log in as a name, as the audit log holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoginAttempt {
    /// When.
    pub at: Timestamp,
    /// Whether it succeeded (`session.login`) or failed (`login.failed`).
    pub succeeded: bool,
    /// Whether its password is still being checked (a `login.attempt` with no outcome yet, or
    /// one whose process died before writing it): not succeeded either.
    pub pending: bool,
}

/// The audit action of a failed login (the subject is the name tried).
pub const LOGIN_FAILED: &str = "login.failed";
/// The audit action of a login about to be tried: written, with the throttle's decision, in one
/// write transaction before the password is checked, so concurrent attempts (in any process)
/// are counted one after another. Until its outcome (`session.login` or `login.failed`) follows,
/// it counts as a failure.
pub const LOGIN_ATTEMPT: &str = "login.attempt";
/// The audit action of a successful login (the subject is the user).
pub const LOGIN: &str = "session.login";
/// The audit action of a password confirmed for a step that needs it (a shift's sign-off or its
/// acceptance by the incoming supervisor): the outcome of its `login.attempt`, checked and
/// throttled as a login's is, but no login (nobody's session changes).
pub const LOGIN_CONFIRMED: &str = "login.confirmed";
/// The audit action of a resolved incident reopened (its detail holds the reason).
pub const INCIDENT_REOPEN: &str = "incident.reopen";
/// The audit action of a login whose password was right but which the access policy refused (its
/// password too old, its account disabled for inactivity; the detail says which): the outcome of
/// its attempt, and not a failure.
pub const LOGIN_REFUSED: &str = "login.refused";

/// An argon2 hash of a password nobody knows, made once per process: an unknown or inactive
/// user's attempt is verified against it, so it takes as long as a wrong password does.
impl Batch<'_> {
    /// [`Store::login_attempts`] inside this batch's write transaction: read and then acted on
    /// (a `login.attempt` appended) with no other writer in between, in any process.
    pub fn login_attempts(
        &self,
        name: &str,
        since: Timestamp,
    ) -> Result<Vec<LoginAttempt>, StoreError> {
        login_attempts(&self.tx, name, since)
    }
}

/// The attempts to log in as `name` since `since`, oldest first: each `login.attempt` with its
/// outcome (an attempt whose outcome is not recorded, because it is being checked or its process
/// died, is a failure), and outcomes written before attempts were recorded on their own.
fn login_attempts(
    conn: &Connection,
    name: &str,
    since: Timestamp,
) -> Result<Vec<LoginAttempt>, StoreError> {
    // The newest few hundred rows are plenty to decide on throttling and locking.
    let mut statement = conn.prepare(
        "SELECT action, at FROM (SELECT id, action, at FROM audit_log \
         WHERE subject = ?1 AND action IN (?2, ?3, ?4, ?5, ?6) ORDER BY id DESC LIMIT 256) ORDER BY id",
    )?;
    let rows = statement.query_map(
        rusqlite::params![
            name,
            LOGIN_FAILED,
            LOGIN,
            LOGIN_ATTEMPT,
            LOGIN_REFUSED,
            LOGIN_CONFIRMED
        ],
        |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)),
    )?;
    let mut out: Vec<LoginAttempt> = Vec::new();
    // Whether the last entry of `out` is an attempt still waiting for its outcome.
    let mut pending = false;
    for row in rows {
        let (action, at) = row?;
        let Ok(at) = at.parse::<Timestamp>() else {
            continue;
        };
        if at < since {
            pending = false;
            continue;
        }
        let attempt = LoginAttempt {
            at,
            // A refusal by the policy came after the right password: no failure to count.
            succeeded: action == LOGIN || action == LOGIN_REFUSED || action == LOGIN_CONFIRMED,
            pending: false,
        };
        match (action.as_str(), pending) {
            (LOGIN_ATTEMPT, _) => {
                out.push(LoginAttempt {
                    at,
                    succeeded: false,
                    pending: true,
                });
                pending = true;
            }
            (_, true) => {
                if let Some(last) = out.last_mut() {
                    *last = attempt;
                }
                pending = false;
            }
            (_, false) => out.push(attempt),
        }
    }
    Ok(out)
}

/// The account `name` as the record proves it: its latest `users` fact (each holds the whole
/// row), with every facts row from that one to the latest checkpoint hashed again, so neither the
/// fact nor its hash can have been changed without breaking the heads the checkpoint signs, and
/// the derived `users` row must say the same. With `trusted` (a caller outside a write batch,
/// whose gate checks the signature otherwise), the latest checkpoint must be a valid signature by
/// one of those keys over every chain's head with no row after it; with no key to check against
/// (a read-only copy given none), the chain is checked and the signature is not. A fact that
/// differs, an unsigned row or a broken chain is [`StoreError::Unverified`].
pub(crate) fn verified_user(
    conn: &Connection,
    name: &str,
    trusted: Option<&[crate::PublicKey]>,
) -> Result<Option<UserFields>, StoreError> {
    use crate::chain::FACTS;
    use crate::verify;
    if let Some(trusted) = trusted {
        let (report, _) = verify::gate_check(conn, trusted.to_vec(), &[], None)?;
        let problems: Vec<&String> = report
            .problems
            .iter()
            .filter(|p| !(trusted.is_empty() && p.contains("not a trusted key")))
            .collect();
        if !problems.is_empty() {
            return Err(StoreError::Unverified(
                problems
                    .iter()
                    .map(|p| p.as_str())
                    .collect::<Vec<_>>()
                    .join("; "),
            ));
        }
    }
    let subject = serde_json::Value::String(name.to_owned()).to_string();
    let fact: Option<(i64, String)> = conn
        .query_row(
            "SELECT id, body FROM facts WHERE kind = 'users' AND subject = ?1 \
             ORDER BY id DESC LIMIT 1",
            [&subject],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    let derived: Option<UserFields> = conn
        .query_row(
            "SELECT id, role, password_hash, created_at, active FROM users WHERE name = ?1",
            [name],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
        )
        .optional()?;
    let Some((fact_id, body)) = fact else {
        return match derived {
            None => Ok(None),
            Some(_) => Err(StoreError::Unverified(format!(
                "users row {subject}: it is not in the chained facts (an account added behind the store's back)"
            ))),
        };
    };
    let length = verify::chain_length(conn, &FACTS)?;
    let from = fact_id - 1;
    let hash = verify::stored_hash(conn, &FACTS, from)?.unwrap_or(crate::chain::GENESIS);
    if let Some(problem) = verify::rehash_from(conn, &FACTS, from, hash, length)? {
        return Err(StoreError::Unverified(format!(
            "{problem} (a row the account of {name:?} rests on)"
        )));
    }
    let parsed: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
    let text = |k: &str| parsed.get(k).and_then(|v| v.as_str()).map(str::to_owned);
    let number = |k: &str| parsed.get(k).and_then(serde_json::Value::as_i64);
    let from_fact = match (
        number("id"),
        text("role"),
        text("password_hash"),
        text("created_at"),
        number("active"),
    ) {
        (Some(id), Some(role), Some(hash), Some(created), Some(active)) => {
            (id, role, hash, created, active)
        }
        _ => {
            return Err(StoreError::Unverified(format!(
                "facts row {fact_id}: the account of {name:?} is not a whole users row"
            )))
        }
    };
    if derived.as_ref() != Some(&from_fact) {
        return Err(StoreError::Unverified(format!(
            "users row {subject}: it differs from what the chained facts say (facts row {fact_id})"
        )));
    }
    Ok(Some(from_fact))
}

fn decoy_hash() -> &'static str {
    static DECOY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DECOY.get_or_init(|| {
        let salt = SaltString::generate(&mut OsRng);
        let mut secret = [0u8; 32];
        password_hash::rand_core::RngCore::fill_bytes(&mut OsRng, &mut secret);
        Argon2::default()
            .hash_password(&secret, &salt)
            .map(|h| h.to_string())
            // Hashing fresh random bytes with the default parameters cannot fail; if it ever
            // did, verification against this text fails to parse and is still refused.
            .unwrap_or_default()
    })
}

fn check_name(name: &str) -> Result<(), StoreError> {
    if name.trim().is_empty() {
        return Err(StoreError::Invalid("a user needs a name".into()));
    }
    if name != name.trim() {
        return Err(StoreError::Invalid(format!(
            "a user name cannot start or end with a space: {name:?}"
        )));
    }
    if name.chars().any(char::is_control) {
        return Err(StoreError::Invalid(
            "a user name cannot hold a control character".into(),
        ));
    }
    Ok(())
}

fn hash_password(password: &str) -> Result<String, StoreError> {
    if password.chars().count() < MIN_PASSWORD_CHARS {
        return Err(StoreError::Invalid(format!(
            "a password needs at least {MIN_PASSWORD_CHARS} characters"
        )));
    }
    let salt = SaltString::generate(&mut OsRng);
    Ok(Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map_err(|e| StoreError::Invalid(format!("cannot hash the password: {e}")))?
        .to_string())
}

/// A `users` row as changing it needs it: id, role, password hash, created at, active.
type UserFields = (i64, String, String, String, i64);

impl Batch<'_> {
    fn user_row(&self, name: &str) -> Result<Option<UserFields>, StoreError> {
        // The batch's gate has checked the signed heads; the account comes from its chained fact.
        verified_user(&self.tx, name, None)
    }

    fn insert_user(
        &mut self,
        name: &str,
        role: Role,
        hash: String,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        if self.user_row(name)?.is_some() {
            return Err(StoreError::Invalid(format!(
                "a user named {name:?} already exists"
            )));
        }
        let id = self.next_id("users")?;
        let at = now.to_string();
        self.put_fact(
            &crate::facts::USERS,
            &[
                ("id", id.into()),
                ("name", name.into()),
                ("role", role.as_str().into()),
                ("password_hash", hash.into()),
                ("created_at", at.as_str().into()),
                ("active", 1.into()),
            ],
            &at,
        )
    }
}

impl Store {
    /// Adds a user with an argon2 password hash, audited (`user.add`) as done by `by`, in one
    /// transaction. Who may do this is the application layer's business (an administrator); the
    /// store checks the name, the password's length and that the name is free.
    pub fn add_user(
        &mut self,
        by: impl Into<Actor>,
        name: &str,
        role: Role,
        password: &str,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        let by = by.into();
        check_name(name)?;
        // Hashing takes a moment: before the write transaction, so recording is not held up.
        let hash = hash_password(password)?;
        let mut batch = self.batch(now)?;
        batch.insert_user(name, role, hash, now)?;
        let detail = by.detail(&[("role", role.as_str())]);
        batch.append_audit(&by.user, "user.add", name, &detail, now)?;
        batch.commit()
    }

    /// Adds the first administrator of a record that has no users, audited as `user.first_admin`
    /// by themselves. The check and the addition are one write transaction (SQLite lets one
    /// writer in at a time), so of two attempts at once exactly one succeeds; the other is
    /// refused because the record then has a user.
    pub fn add_first_admin(
        &mut self,
        admin: impl Into<Actor>,
        password: &str,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        let admin = admin.into();
        let name = admin.user.as_str();
        check_name(name)?;
        let hash = hash_password(password)?;
        let mut batch = self.batch(now)?;
        // "No users" from verified state only: the facts chain hashed again from its first row
        // (this happens once in a record's life), so an attacker who deleted the accounts (their
        // derived rows, or their facts with or without the chain recomputed) cannot make
        // themselves the first administrator of a record that has one.
        let facts = crate::verify::chain_length(&batch.tx, &chain::FACTS)?;
        if let Some(problem) =
            crate::verify::rehash_from(&batch.tx, &chain::FACTS, 0, chain::GENESIS, facts)?
        {
            let why = format!("{problem} (looking for the record's accounts)");
            return Err(StoreError::Unverified(why));
        }
        let users: i64 = batch.tx.query_row(
            "SELECT (SELECT COUNT(*) FROM users) + (SELECT COUNT(*) FROM facts WHERE kind = 'users')",
            [],
            |r| r.get(0),
        )?;
        if users > 0 {
            return Err(StoreError::Invalid(
                "this record already has users: an administrator's credentials are needed to add one"
                    .into(),
            ));
        }
        batch.insert_user(name, Role::Admin, hash, now)?;
        let detail = admin.detail(&[("role", Role::Admin.as_str())]);
        batch.append_audit(name, "user.first_admin", name, &detail, now)?;
        batch.commit()
    }

    /// Changes user `name`'s role, password or whether they are active, audited
    /// (`user.role`, `user.password`, `user.active`) as done by `by`.
    pub fn change_user(
        &mut self,
        by: impl Into<Actor>,
        name: &str,
        change: UserChange<'_>,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        let by = by.into();
        let new_hash = match change {
            UserChange::Password(password) => Some(hash_password(password)?),
            _ => None,
        };
        let mut batch = self.batch(now)?;
        let (id, mut role, mut hash, created_at, mut active) = batch
            .user_row(name)?
            .ok_or_else(|| StoreError::NotFound(format!("no user named {name:?}")))?;
        let (action, detail) = match change {
            UserChange::Role(new) => {
                role = new.as_str().to_owned();
                ("user.role", new.as_str().to_owned())
            }
            UserChange::Password(_) => {
                hash = new_hash.unwrap_or_default();
                ("user.password", String::new())
            }
            UserChange::Active(on) => {
                active = i64::from(on);
                (
                    "user.active",
                    if on { "active" } else { "inactive" }.to_owned(),
                )
            }
        };
        let at = now.to_string();
        batch.put_fact(
            &crate::facts::USERS,
            &[
                ("id", id.into()),
                ("name", name.into()),
                ("role", role.as_str().into()),
                ("password_hash", hash.into()),
                ("created_at", created_at.as_str().into()),
                ("active", active.into()),
            ],
            &at,
        )?;
        let detail = match action {
            "user.role" => by.detail(&[("role", &detail)]),
            "user.active" => by.detail(&[("active", &detail)]),
            _ => by.detail(&[]),
        };
        batch.append_audit(&by.user, action, name, &detail, now)?;
        batch.commit()
    }

    /// The role of user `name` if `password` is theirs and the account is active.
    ///
    /// Every call runs exactly one argon2 verification, whether the user exists or not (an
    /// unknown or inactive user is checked against a decoy hash), so the answer takes as long for
    /// a name that does not exist as for a wrong password; [`Store::password_checks`] counts them.
    pub fn authenticate(&self, name: &str, password: &str) -> Result<Role, StoreError> {
        let decoy = decoy_hash();
        // Only verified state: the account as its chained fact says, the fact pinned to the
        // signed heads, the derived row the same (see `verified_user`). A record that fails here
        // is a record failure: no write through this store follows.
        let snapshot = self.conn.unchecked_transaction()?;
        let trusted = self.trusted_keys();
        let user = verified_user(&snapshot, name, Some(&trusted));
        snapshot.finish()?;
        let user = match user {
            Err(StoreError::Unverified(why)) => {
                self.poisoned.refuse(why.clone());
                return Err(StoreError::Unverified(why));
            }
            other => other?,
        };
        let row: Option<(String, String, i64)> =
            user.map(|(_, role, hash, _, active)| (role, hash, active));
        let denied = || StoreError::Denied(format!("unknown user or wrong password for {name:?}"));
        let (role, hash, usable) = match &row {
            Some((role, hash, active)) => (Role::parse(role), hash.as_str(), *active == 1),
            None => (None, decoy, false),
        };
        let hash = if PasswordHash::new(hash).is_ok() {
            hash
        } else {
            decoy
        };
        let parsed = PasswordHash::new(hash).map_err(|_| denied())?;
        self.password_checks
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let matches = Argon2::default()
            .verify_password(password.as_bytes(), &parsed)
            .is_ok();
        match role {
            Some(role) if matches && usable => Ok(role),
            _ => Err(denied()),
        }
    }

    /// How many argon2 verifications [`Store::authenticate`] has run on this connection.
    pub fn password_checks(&self) -> u64 {
        self.password_checks
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Logins tried as `name` since `since` (failed and successful), oldest first, from the
    /// audit log, for throttling and locking an account.
    pub fn login_attempts(
        &self,
        name: &str,
        since: Timestamp,
    ) -> Result<Vec<LoginAttempt>, StoreError> {
        login_attempts(&self.conn, name, since)
    }

    /// The newest `limit` audit entries (all of them, or only `actions`), newest first.
    pub fn recent_audit(
        &self,
        actions: &[&str],
        limit: u32,
    ) -> Result<Vec<crate::AuditEntry>, StoreError> {
        let mut sql =
            String::from("SELECT id, user_name, action, subject, detail, at FROM audit_log");
        if !actions.is_empty() {
            sql.push_str(" WHERE action IN (");
            sql.push_str(&vec!["?"; actions.len()].join(", "));
            sql.push(')');
        }
        sql.push_str(&format!(" ORDER BY id DESC LIMIT {}", limit.min(10_000)));
        let mut statement = self.conn.prepare(&sql)?;
        let rows = statement.query_map(rusqlite::params_from_iter(actions.iter()), |r| {
            Ok(crate::AuditEntry {
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

    /// Every user: (name, role, created at, active), by name. Password hashes are never returned.
    pub fn users(&self) -> Result<Vec<UserRow>, StoreError> {
        let mut statement = self
            .conn
            .prepare("SELECT name, role, created_at, active FROM users ORDER BY name")?;
        let rows = statement.query_map([], |r| {
            let role: String = r.get(1)?;
            // The schema allows only the three roles; anything else means the row was altered.
            let role = Role::parse(&role).ok_or_else(|| {
                rusqlite::Error::FromSqlConversionFailure(
                    1,
                    rusqlite::types::Type::Text,
                    format!("unknown role {role:?}").into(),
                )
            })?;
            Ok(UserRow {
                name: r.get(0)?,
                role,
                created_at: r.get(2)?,
                active: r.get::<_, i64>(3)? == 1,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Whether a user named `name` exists.
    pub fn user_exists(&self, name: &str) -> Result<bool, StoreError> {
        Ok(self
            .conn
            .query_row("SELECT 1 FROM users WHERE name = ?1", [name], |_| Ok(()))
            .optional()?
            .is_some())
    }

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
