//! Users and logging in: roles, accounts (each a chained fact, its argon2 hash checked against the
//! record it came from), password changes, the login attempts the throttle counts, and the audit
//! actions of a login. Incidents and their workflow are in [`crate::incidents`].

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;
use password_hash::rand_core::OsRng;
use pitwatch_model::Timestamp;
use rusqlite::{Connection, OptionalExtension};

use crate::chain;
use crate::incidents::Actor;
use crate::{Batch, Store, StoreError};

/// What a user may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Watches tables and works incidents.
    Supervisor,
    /// Surveillance and compliance: works incidents and writes reports.
    Surveillance,
    /// Manages users and configuration.
    Admin,
    /// An inspector (a regulator's, an internal auditor): reads and exports everything, changes
    /// nothing, every read audited.
    Inspector,
}

impl Role {
    /// Every role, in the order people are shown them.
    pub const ALL: [Role; 4] = [
        Role::Supervisor,
        Role::Surveillance,
        Role::Admin,
        Role::Inspector,
    ];

    /// The role's name as stored.
    pub const fn as_str(self) -> &'static str {
        match self {
            Role::Supervisor => "supervisor",
            Role::Surveillance => "surveillance",
            Role::Admin => "admin",
            Role::Inspector => "inspector",
        }
    }

    /// The role named `name`.
    pub fn parse(name: &str) -> Option<Role> {
        match name {
            "supervisor" => Some(Role::Supervisor),
            "surveillance" => Some(Role::Surveillance),
            "admin" => Some(Role::Admin),
            "inspector" => Some(Role::Inspector),
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
            // The schema allows only the four roles; anything else means the row was altered.
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
}
