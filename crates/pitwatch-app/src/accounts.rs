//! Sessions and users: logging in (throttled, locked after repeated failures, every failure
//! audited with the name tried and the workstation), the first administrator, and every later
//! change to an account, each by an administrator and audited with them as the actor.
//!
//! Passwords: at least [`MIN_PASSWORD_CHARS`] characters and not guessable, as judged by zxcvbn
//! (Dropbox's estimator: common-password and word lists, names, keyboard walks, repeats, dates),
//! which must rate it at least [`MIN_STRENGTH`] of 4. `password`, `12345678` and `aaaaaaaa` are
//! refused by length alone, `password1234` and `aaaaaaaaaaaa` by the estimator.
//!
//! Throttling works from the audit log alone, so it holds across processes (the CLI and the
//! desktop share it) and restarts: after a failed login for a name, the next attempt for it is
//! answered only after a delay that doubles with each failure (1 s, 2 s, 4 s, 8 s); the
//! [`LOCK_AFTER`]th failure within [`WINDOW`] locks the name for [`LOCK_FOR`]. An attempt that
//! comes too early is refused without checking the password and audited (`login.throttled`),
//! but does not count as a failure. The decision and the attempt it lets through
//! (`login.attempt`, written before the password is checked) are one write transaction, and an
//! attempt whose outcome is not on record yet holds the next (see [`PENDING_FOR`]), so parallel
//! attempts in any number of processes get one password check at a time. The account itself is
//! read from its chained fact (`Store::authenticate`), never from the derived table alone.
//! Unknown names are throttled like real ones, and answered in
//! the same time (one argon2 verification either way, see `Store::authenticate`), so neither
//! timing nor the lock tells which names exist.

use std::time::Duration;

use pitwatch_api::dto::{AuditRow, UserRow};
use pitwatch_api::{ApiError, ErrorCode};
use pitwatch_model::Timestamp;
pub use pitwatch_store::MIN_PASSWORD_CHARS;
use pitwatch_store::{
    LoginAttempt, Role, Store, UserChange, LOGIN, LOGIN_ATTEMPT, LOGIN_CONFIRMED, LOGIN_FAILED,
    LOGIN_REFUSED,
};

use crate::access::workstation_of;
pub use crate::access::{check_live, LOGOUT, SESSION_ENDED, SESSION_MARKS};
use crate::access::{detail, require, Command, Principal};

/// The lowest zxcvbn score (0 to 4) a password may have: 3 is "safely unguessable: moderate
/// protection from an offline slow-hash scenario" (under 10^10 guesses).
pub const MIN_STRENGTH: u8 = 3;
/// Failures within [`WINDOW`] that lock a name.
pub const LOCK_AFTER: usize = 5;
/// How long failures count towards a lock.
pub const WINDOW: Duration = Duration::from_secs(15 * 60);
/// How long a locked name stays locked after its last failure.
pub const LOCK_FOR: Duration = Duration::from_secs(15 * 60);
/// How long an attempt whose outcome is not on record holds the next one back: its password is
/// being checked, or its process died while checking it.
pub const PENDING_FOR: Duration = Duration::from_secs(60);
/// The audit action of an attempt refused because it came too early (throttled or locked).
pub const LOGIN_THROTTLED: &str = "login.throttled";
/// The audit action written when a name becomes locked.
pub const LOGIN_LOCKED: &str = "login.locked";
/// How long a password may be used: a login with an older one is refused until its user
/// chooses a new one ([`change_own_password`]). Ninety days, as the Nevada and tribal minimum
/// internal controls ask.
pub const MAX_PASSWORD_AGE: Duration = Duration::from_secs(90 * 24 * 3600);
/// How long an account may go without a login (or a change by an administrator) before it is
/// disabled at its next login, audited; an administrator reactivates it. Never the last active
/// administrator, so a pit cannot lock itself out.
pub const INACTIVE_AFTER: Duration = Duration::from_secs(90 * 24 * 3600);
/// Who the record names for a step the access policy took itself (an account disabled for
/// inactivity).
pub const POLICY_ACTOR: &str = "pitwatch";
/// The audit actions that set a user's password.
const PASSWORD_SET: [&str; 3] = ["user.add", "user.first_admin", "user.password"];
/// The audit actions that show an account in use: a login, and every change an administrator
/// made to it (a reactivation among them).
const ACCOUNT_USED: [&str; 6] = [
    LOGIN,
    "user.add",
    "user.first_admin",
    "user.password",
    "user.role",
    "user.active",
];

/// Whether a login for a name may be tried now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gate {
    /// Yes.
    Open,
    /// Not before this time (the delay after recent failures).
    Wait(Timestamp),
    /// The name is locked until this time.
    Locked(Timestamp),
}

fn after(at: Timestamp, delay: Duration) -> Timestamp {
    let millis = i64::try_from(delay.as_millis()).unwrap_or(i64::MAX);
    Timestamp::from_unix_millis(at.unix_millis().saturating_add(millis)).unwrap_or(at)
}

/// Decides, from the attempts for a name within [`WINDOW`] and [`LOCK_FOR`] before `now` (oldest
/// first), whether another may be tried at `now`. Only failures since the last success count, and
/// of those the ones within [`WINDOW`] of the last: a lock lasts its whole [`LOCK_FOR`] after the
/// failure that made it (as its message says), however long ago the first of its failures was.
pub fn gate(attempts: &[LoginAttempt], now: Timestamp) -> Gate {
    // A password still being checked (in this process or another) holds every other attempt
    // for the name until its outcome is on record, however long argon2 takes on a loaded
    // machine; one whose process died is an ordinary failure after [`PENDING_FOR`].
    if let Some(last) = attempts.last().filter(|a| a.pending) {
        if now < after(last.at, PENDING_FOR) {
            return Gate::Wait(after(now, Duration::from_secs(1)));
        }
    }
    let failures: Vec<Timestamp> = attempts
        .iter()
        .rev()
        .take_while(|a| !a.succeeded)
        .map(|a| a.at)
        .collect();
    let Some(&last) = failures.first() else {
        return Gate::Open;
    };
    let counted = failures
        .iter()
        .take_while(|at| last.unix_millis() - at.unix_millis() <= millis(WINDOW))
        .count();
    if counted >= LOCK_AFTER {
        let until = after(last, LOCK_FOR);
        return if now < until {
            Gate::Locked(until)
        } else {
            Gate::Open
        };
    }
    let delay = Duration::from_secs(1 << (counted - 1).min(3));
    let until = after(last, delay);
    if now < until {
        Gate::Wait(until)
    } else {
        Gate::Open
    }
}

/// How long `millis` is, in the words of a throttled or locked login's message: whole seconds
/// (rounded up, so "0 seconds" is never said while a wait is left) under a minute, else minutes
/// and the seconds past them: "1 second", "8 seconds", "15 minutes", "14 minutes 59 seconds".
pub fn how_long(millis: i64) -> String {
    let seconds = millis.max(1).unsigned_abs().div_ceil(1000);
    let unit = |n: u64, one: &str| format!("{n} {one}{}", if n == 1 { "" } else { "s" });
    match (seconds / 60, seconds % 60) {
        (0, s) => unit(s, "second"),
        (m, 0) => unit(m, "minute"),
        (m, s) => format!("{} {}", unit(m, "minute"), unit(s, "second")),
    }
}

/// Since when a name's attempts count for [`gate`] at `now`.
pub fn throttle_since(now: Timestamp) -> Timestamp {
    since(now, WINDOW + LOCK_FOR)
}

fn since(now: Timestamp, window: Duration) -> Timestamp {
    let millis = i64::try_from(window.as_millis()).unwrap_or(i64::MAX);
    Timestamp::from_unix_millis(now.unix_millis().saturating_sub(millis)).unwrap_or(now)
}

fn audit(
    store: &mut Store,
    user: &str,
    action: &str,
    subject: &str,
    detail: &str,
    now: Timestamp,
) -> Result<(), ApiError> {
    let mut batch = store.batch(now)?;
    batch.append_audit(user, action, subject, detail, now)?;
    batch.commit()?;
    Ok(())
}

/// Logs `name` in with `password` at `workstation` (audited as `session.login`); a failure is
/// audited as `login.failed` with the name tried and the workstation, and answered
/// `unauthorised` whether the name exists or not. See the module's notes on throttling. The
/// right password is refused (`login.refused`, not a failure) when it is older than
/// [`MAX_PASSWORD_AGE`] (`password_expired`: [`change_own_password`] sets a new one) or the
/// account went unused for [`INACTIVE_AFTER`] (it is disabled then, audited).
pub fn login(
    store: &mut Store,
    name: &str,
    password: &str,
    workstation: &str,
    now: Timestamp,
) -> Result<Principal, ApiError> {
    login_under(&Policy::STANDARD, store, name, password, workstation, now)
}

/// What the access policy asks of a login beyond the right password.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Policy {
    /// A password older than this must be replaced before its user logs in.
    pub max_password_age: Option<Duration>,
    /// An account unused for this long is disabled at its next login.
    pub inactive_after: Option<Duration>,
}

impl Policy {
    /// A real pit's: [`MAX_PASSWORD_AGE`] and [`INACTIVE_AFTER`].
    pub const STANDARD: Policy = Policy {
        max_password_age: Some(MAX_PASSWORD_AGE),
        inactive_after: Some(INACTIVE_AFTER),
    };
    /// The demo pit's: its one supervisor, whose password is on the login screen, logs in
    /// however long ago the demo last ran.
    pub const DEMO: Policy = Policy {
        max_password_age: None,
        inactive_after: None,
    };
}

/// [`login`] under `policy`.
pub fn login_under(
    policy: &Policy,
    store: &mut Store,
    name: &str,
    password: &str,
    workstation: &str,
    now: Timestamp,
) -> Result<Principal, ApiError> {
    begin_session(policy, store, name, password, workstation, now).map(|l| l.principal)
}

/// [`login_under`], answering the session it began (the id of its `session.login` row, which
/// [`crate::sessions`] checks at every command of the desk that holds it).
pub fn begin_session(
    policy: &Policy,
    store: &mut Store,
    name: &str,
    password: &str,
    workstation: &str,
    now: Timestamp,
) -> Result<Login, ApiError> {
    let role = check_credentials(store, name, password, workstation, now)?;
    refuse_inactive(policy, store, name, role, workstation, now)?;
    refuse_expired(policy, store, name, workstation, now)?;
    logged_in(store, name, role, workstation, now)
}

/// A session begun: who, and the id of its `session.login` row in the audit log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Login {
    /// Who logged in, and where.
    pub principal: Principal,
    /// The audit row of the login: the session's identity across processes.
    pub session: i64,
}

/// Checks that `password` is `name`'s for a step that asks for it again (`purpose`: a shift's
/// sign-off, its acceptance by the incoming supervisor) exactly as [`login_under`] checks a
/// login's: throttled and locked by the same failures, each failure audited and counted, a
/// password past its age or an account unused too long refused alike. Nobody is logged in or
/// out: the attempt's outcome is [`LOGIN_CONFIRMED`] with the purpose. Answers the role.
pub fn confirm_password(
    policy: &Policy,
    store: &mut Store,
    name: &str,
    password: &str,
    workstation: &str,
    purpose: &str,
    now: Timestamp,
) -> Result<Role, ApiError> {
    let role = check_credentials(store, name, password, workstation, now)?;
    refuse_inactive(policy, store, name, role, workstation, now)?;
    refuse_expired(policy, store, name, workstation, now)?;
    audit(
        store,
        name,
        LOGIN_CONFIRMED,
        name,
        &detail(workstation, &[("for", purpose)]),
        now,
    )?;
    Ok(role)
}

/// Refuses (audited, `password_expired`) a password older than the policy allows.
fn refuse_expired(
    policy: &Policy,
    store: &mut Store,
    name: &str,
    workstation: &str,
    now: Timestamp,
) -> Result<(), ApiError> {
    let set = match policy.max_password_age {
        Some(_) => store.last_audit_at(name, &PASSWORD_SET)?,
        None => None,
    };
    if let (Some(set), Some(age)) = (set, policy.max_password_age) {
        if now.unix_millis() - set.unix_millis() > millis(age) {
            refused(store, name, workstation, "password_expired", now)?;
            return Err(ApiError::new(
                ErrorCode::PasswordExpired,
                format!(
                    "the password of {name:?} was set on {}, more than {} days ago: choose a new one",
                    day(set),
                    age.as_secs() / 86_400
                ),
            ));
        }
    }
    Ok(())
}

/// `name` sets their own password: `old` is checked as a login's is (throttled, a failure
/// audited and counted), `new` must pass the policy and differ from `old`; audited as
/// `user.password` by the user themself, and the user is logged in. This is how a password past
/// [`MAX_PASSWORD_AGE`] is replaced.
pub fn change_own_password(
    store: &mut Store,
    name: &str,
    old: &str,
    new: &str,
    workstation: &str,
    now: Timestamp,
) -> Result<Principal, ApiError> {
    change_own_password_session(store, name, old, new, workstation, now).map(|l| l.principal)
}

/// [`change_own_password`], answering the session it began.
pub fn change_own_password_session(
    store: &mut Store,
    name: &str,
    old: &str,
    new: &str,
    workstation: &str,
    now: Timestamp,
) -> Result<Login, ApiError> {
    // The new password is judged before the old one is tried, so a weak choice costs no
    // attempt; the old one is checked before anything is changed.
    check_password(name, new)?;
    if new == old {
        return Err(ApiError::new(
            ErrorCode::InvalidInput,
            "the new password must differ from the old one",
        ));
    }
    let role = check_credentials(store, name, old, workstation, now)?;
    refuse_inactive(&Policy::STANDARD, store, name, role, workstation, now)?;
    store.change_user(
        pitwatch_store::Actor::at(name, workstation),
        name,
        UserChange::Password(new),
        now,
    )?;
    logged_in(store, name, role, workstation, now)
}

fn millis(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}

/// The calendar day of `at` (UTC), for a message.
fn day(at: Timestamp) -> String {
    at.to_string().chars().take(10).collect()
}

/// Records that a login with the right password was refused by the policy (`reason`): the
/// outcome of its attempt, so the next attempt is not held back.
fn refused(
    store: &mut Store,
    name: &str,
    workstation: &str,
    reason: &str,
    now: Timestamp,
) -> Result<(), ApiError> {
    audit(
        store,
        name,
        LOGIN_REFUSED,
        name,
        &detail(workstation, &[("reason", reason)]),
        now,
    )
}

/// Disables `name` and refuses the login when the account went unused for [`INACTIVE_AFTER`]
/// (never the last active administrator).
fn refuse_inactive(
    policy: &Policy,
    store: &mut Store,
    name: &str,
    role: Role,
    workstation: &str,
    now: Timestamp,
) -> Result<(), ApiError> {
    let Some(limit) = policy.inactive_after else {
        return Ok(());
    };
    let Some(used) = store.last_audit_at(name, &ACCOUNT_USED)? else {
        return Ok(());
    };
    if now.unix_millis() - used.unix_millis() <= millis(limit) {
        return Ok(());
    }
    if role == Role::Admin && keeps_an_admin(store, name, UserChange::Active(false)).is_err() {
        return Ok(());
    }
    store.change_user(
        pitwatch_store::Actor::at(POLICY_ACTOR, workstation),
        name,
        UserChange::Active(false),
        now,
    )?;
    refused(store, name, workstation, "inactive", now)?;
    Err(ApiError::new(
        ErrorCode::Unauthorised,
        format!(
            "the account {name:?} was disabled: unused since {}, more than {} days; an \
             administrator can reactivate it",
            day(used),
            limit.as_secs() / 86_400
        ),
    ))
}

/// Audits a login (`session.login`) and gives its principal.
fn logged_in(
    store: &mut Store,
    name: &str,
    role: Role,
    workstation: &str,
    now: Timestamp,
) -> Result<Login, ApiError> {
    // One write transaction: the session this login replaces is read and ended, and the new one
    // begun, with no other login (in any process) in between.
    let mut batch = store.batch(now)?;
    if let Some(live) = batch.latest_audit(name, &SESSION_MARKS)? {
        if live.action == LOGIN {
            let ended = live.id.to_string();
            let elsewhere = workstation_of(&live.detail);
            batch.append_audit(
                name,
                SESSION_ENDED,
                name,
                &detail(
                    workstation,
                    &[("ended_session", &ended), ("ended_workstation", &elsewhere)],
                ),
                now,
            )?;
        }
    }
    let session = batch.append_audit(
        name,
        LOGIN,
        name,
        &detail(workstation, &[("role", role.as_str())]),
        now,
    )?;
    batch.commit()?;
    Ok(Login {
        principal: Principal {
            user: name.to_owned(),
            role,
            workstation: workstation.to_owned(),
        },
        session,
    })
}

/// Checks `name`'s `password` with the throttle (see the module's notes): the attempt, its
/// failure and a lock are audited; the right password gives the account's role, and its
/// attempt's outcome is for the caller to write.
fn check_credentials(
    store: &mut Store,
    name: &str,
    password: &str,
    workstation: &str,
    now: Timestamp,
) -> Result<Role, ApiError> {
    // The throttle's decision and the attempt it lets through are one write transaction, so
    // concurrent attempts (in this process or any other) are decided one after another, each
    // seeing the ones before it: at most one password check per name is ever in flight.
    let mut batch = store.batch(now)?;
    let attempts = batch.login_attempts(name, since(now, WINDOW + LOCK_FOR))?;
    match gate(&attempts, now) {
        Gate::Open => {
            batch.append_audit(name, LOGIN_ATTEMPT, name, &detail(workstation, &[]), now)?;
            batch.commit()?;
        }
        Gate::Wait(until) | Gate::Locked(until) => {
            let locked = matches!(gate(&attempts, now), Gate::Locked(_));
            let until_text = until.to_string();
            batch.append_audit(
                name,
                LOGIN_THROTTLED,
                name,
                &detail(workstation, &[("until", &until_text)]),
                now,
            )?;
            batch.commit()?;
            let left = how_long(until.unix_millis() - now.unix_millis());
            return Err(ApiError::new(
                ErrorCode::Unauthorised,
                if locked {
                    format!("too many failed logins for {name:?}: locked for {left} more")
                } else {
                    format!("too many failed logins for {name:?}: try again in {left}")
                },
            ));
        }
    }
    let checking = std::time::Instant::now();
    match store.authenticate(name, password) {
        Ok(role) => Ok(role),
        Err(pitwatch_store::StoreError::Denied(_)) => {
            // The failure is on record when its check ended, and the next attempt's delay counts
            // from then: however long argon2 took on a loaded machine, the delay is whole.
            let failed_at = after(now, checking.elapsed());
            audit(
                store,
                name,
                LOGIN_FAILED,
                name,
                &detail(workstation, &[]),
                failed_at,
            )?;
            let mut attempts = attempts;
            attempts.push(LoginAttempt {
                at: failed_at,
                succeeded: false,
                pending: false,
            });
            if let Gate::Locked(until) = gate(&attempts, failed_at) {
                audit(
                    store,
                    name,
                    LOGIN_LOCKED,
                    name,
                    &detail(workstation, &[("until", &until.to_string())]),
                    failed_at,
                )?;
                // Unknown names lock alike, so saying so tells nothing about which names exist.
                let left = how_long(until.unix_millis() - failed_at.unix_millis());
                return Err(ApiError::new(
                    ErrorCode::Unauthorised,
                    format!(
                        "wrong user name or password; too many failed logins for {name:?}: locked for {left}"
                    ),
                ));
            }
            Err(ApiError::new(
                ErrorCode::Unauthorised,
                "wrong user name or password",
            ))
        }
        Err(other) => Err(other.into()),
    }
}

/// Records that `who` logged out (audited as `session.logout`).
pub fn logout(store: &mut Store, who: &Principal, now: Timestamp) -> Result<(), ApiError> {
    audit(
        store,
        &who.user,
        LOGOUT,
        &who.user,
        &detail(&who.workstation, &[]),
        now,
    )
}

/// Checks a new password for `name`: long enough and not guessable (see the module's notes).
pub fn check_password(name: &str, password: &str) -> Result<(), ApiError> {
    let invalid = |m: String| ApiError::new(ErrorCode::InvalidInput, m);
    if password.chars().count() < MIN_PASSWORD_CHARS {
        return Err(invalid(format!(
            "a password needs at least {MIN_PASSWORD_CHARS} characters"
        )));
    }
    // The words of the place count as guessable: the user's name, the product, the games.
    let mut words = vec![name, "pitwatch", "casino"];
    words.extend(pitwatch_games::GameKind::ALL.map(|g| g.as_str()));
    let estimate = zxcvbn::zxcvbn(password, &words);
    if u8::from(estimate.score()) < MIN_STRENGTH {
        let why = estimate.feedback().and_then(|f| f.warning()).map_or_else(
            || "it is too easy to guess".to_owned(),
            |w| w.to_string().trim_end_matches('.').to_lowercase(),
        );
        return Err(invalid(format!(
            "that password is too easy to guess ({why}); use a longer phrase of unrelated words"
        )));
    }
    Ok(())
}

/// Parses a role's name.
pub fn parse_role(role: &str) -> Result<Role, ApiError> {
    Role::parse(role.trim()).ok_or_else(|| {
        ApiError::new(
            ErrorCode::InvalidInput,
            format!("no role {role:?} (supervisor, surveillance, admin or inspector)"),
        )
    })
}

/// Whether the record has no users at all (a first run: only then may a first administrator be
/// created without credentials).
pub fn needs_first_admin(store: &Store) -> Result<bool, ApiError> {
    Ok(store.users()?.is_empty())
}

/// Creates the first administrator of a record with no users (audited as `user.first_admin`)
/// and logs them in. Atomic: of two attempts at once, one wins; the other, and every attempt on
/// a record with users, is refused with `forbidden` (an administrator's credentials are needed).
pub fn create_first_admin(
    store: &mut Store,
    name: &str,
    password: &str,
    workstation: &str,
    now: Timestamp,
) -> Result<Principal, ApiError> {
    create_first_admin_session(store, name, password, workstation, now).map(|l| l.principal)
}

/// [`create_first_admin`], answering the session it began.
pub fn create_first_admin_session(
    store: &mut Store,
    name: &str,
    password: &str,
    workstation: &str,
    now: Timestamp,
) -> Result<Login, ApiError> {
    let name = name.trim();
    let refuse = |store: &mut Store, message: String| -> Result<Login, ApiError> {
        let detail = detail(workstation, &[("target", name)]);
        audit(
            store,
            name,
            crate::access::FORBIDDEN,
            "first_admin",
            &detail,
            now,
        )?;
        Err(ApiError::new(ErrorCode::Forbidden, message))
    };
    if !needs_first_admin(store)? {
        return refuse(
            store,
            "this record already has users: an administrator's credentials are needed to add one"
                .into(),
        );
    }
    check_password(name, password)?;
    // Checked again inside the write transaction: two attempts at once cannot both pass.
    match store.add_first_admin(pitwatch_store::Actor::at(name, workstation), password, now) {
        Ok(()) => {}
        Err(pitwatch_store::StoreError::Invalid(m)) if m.contains("already has users") => {
            return refuse(store, m);
        }
        Err(other) => return Err(other.into()),
    }
    begin_session(&Policy::STANDARD, store, name, password, workstation, now)
}

/// A user as the window shows them (never the password hash), with when their password was set,
/// their last login and what their role may do: a line of the access listing.
pub fn user_row(store: &Store, user: pitwatch_store::UserRow) -> Result<UserRow, ApiError> {
    let password_set_at = store.last_audit_at(&user.name, &PASSWORD_SET)?;
    let last_login_at = store.last_audit_at(&user.name, &[LOGIN])?;
    Ok(UserRow {
        may: crate::access::Command::ALL
            .into_iter()
            .filter(|c| c.allowed(user.role))
            .map(|c| c.name().to_owned())
            .collect(),
        name: user.name,
        role: user.role.as_str().to_owned(),
        created_at: user.created_at,
        active: user.active,
        password_set_at: password_set_at.map(|t| t.to_string()),
        last_login_at: last_login_at.map(|t| t.to_string()),
    })
}

/// `who` (an administrator) adds user `name` with `role` and `password`; audited with `who`
/// as the actor (`user.add`).
pub fn add_user(
    store: &mut Store,
    who: &Principal,
    name: &str,
    role: Role,
    password: &str,
    now: Timestamp,
) -> Result<UserRow, ApiError> {
    let name = name.trim();
    require(store, who, Command::AddUser, name, now)?;
    check_password(name, password)?;
    store.add_user(who.actor(), name, role, password, now)?;
    let added = store
        .users()?
        .into_iter()
        .find(|u| u.name == name)
        .ok_or_else(|| ApiError::new(ErrorCode::Internal, format!("{name:?} was not added")))?;
    user_row(store, added)
}

/// Refuses a change that would leave the record without an active administrator.
fn keeps_an_admin(store: &Store, name: &str, change: UserChange<'_>) -> Result<(), ApiError> {
    let demoted = match change {
        UserChange::Role(role) => role != Role::Admin,
        UserChange::Active(on) => !on,
        UserChange::Password(_) => false,
    };
    if !demoted {
        return Ok(());
    }
    let others = store
        .users()?
        .into_iter()
        .filter(|u| u.role == Role::Admin && u.active && u.name != name)
        .count();
    let was_admin = store
        .users()?
        .iter()
        .any(|u| u.name == name && u.role == Role::Admin && u.active);
    if was_admin && others == 0 {
        return Err(ApiError::new(
            ErrorCode::Conflict,
            format!("{name} is the last active administrator; add another first"),
        ));
    }
    Ok(())
}

fn change(
    store: &mut Store,
    who: &Principal,
    command: Command,
    name: &str,
    change: UserChange<'_>,
    now: Timestamp,
) -> Result<(), ApiError> {
    require(store, who, command, name, now)?;
    if let UserChange::Password(password) = change {
        check_password(name, password)?;
    }
    keeps_an_admin(store, name, change)?;
    store.change_user(who.actor(), name, change, now)?;
    Ok(())
}

/// `who` (an administrator) gives user `name` a new role (audited as `user.role`).
pub fn change_role(
    store: &mut Store,
    who: &Principal,
    name: &str,
    role: Role,
    now: Timestamp,
) -> Result<(), ApiError> {
    change(
        store,
        who,
        Command::ChangeRole,
        name,
        UserChange::Role(role),
        now,
    )
}

/// `who` (an administrator) sets user `name`'s password (audited as `user.password`, without
/// the password).
pub fn reset_password(
    store: &mut Store,
    who: &Principal,
    name: &str,
    password: &str,
    now: Timestamp,
) -> Result<(), ApiError> {
    change(
        store,
        who,
        Command::ResetPassword,
        name,
        UserChange::Password(password),
        now,
    )
}

/// `who` (an administrator) deactivates or reactivates user `name` (audited as `user.active`).
pub fn set_active(
    store: &mut Store,
    who: &Principal,
    name: &str,
    active: bool,
    now: Timestamp,
) -> Result<(), ApiError> {
    change(
        store,
        who,
        Command::SetActive,
        name,
        UserChange::Active(active),
        now,
    )
}

/// Every user (never a password hash); administrators only.
pub fn users(store: &mut Store, who: &Principal, now: Timestamp) -> Result<Vec<UserRow>, ApiError> {
    require(store, who, Command::ListUsers, "", now)?;
    store
        .users()?
        .into_iter()
        .map(|user| user_row(store, user))
        .collect()
}

/// The audit actions of logging in and out, failed and refused logins, and refused commands.
pub const ACCESS_ACTIONS: [&str; 8] = [
    LOGIN,
    LOGIN_FAILED,
    LOGIN_REFUSED,
    LOGIN_THROTTLED,
    LOGIN_LOCKED,
    LOGOUT,
    SESSION_ENDED,
    crate::access::FORBIDDEN,
];

/// The newest `limit` audit rows (only `actions`, or all when empty), newest first; for
/// administrators and surveillance.
pub fn audit_log(
    store: &mut Store,
    who: &Principal,
    actions: &[&str],
    limit: u32,
    now: Timestamp,
) -> Result<Vec<AuditRow>, ApiError> {
    require(store, who, Command::ViewAudit, "", now)?;
    Ok(store
        .recent_audit(actions, limit.clamp(1, 1000))?
        .into_iter()
        .map(|e| AuditRow {
            id: e.id,
            at: e.at,
            user: e.user,
            action: e.action,
            subject: e.subject,
            detail: e.detail,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(ms: i64) -> Timestamp {
        Timestamp::from_unix_millis(1_700_000_000_000 + ms).unwrap()
    }

    #[test]
    fn an_attempt_being_checked_holds_the_next_until_its_outcome_or_a_minute() {
        let pending = LoginAttempt {
            at: t(0),
            succeeded: false,
            pending: true,
        };
        // However long the check takes, nothing else is tried meanwhile.
        assert!(matches!(
            gate(std::slice::from_ref(&pending), t(5_000)),
            Gate::Wait(_)
        ));
        assert!(matches!(
            gate(std::slice::from_ref(&pending), t(59_000)),
            Gate::Wait(_)
        ));
        // Its process died: after a minute it is an ordinary failure (its delay long past).
        assert_eq!(gate(&[pending], t(61_000)), Gate::Open);
    }

    fn failed(at: i64) -> LoginAttempt {
        LoginAttempt {
            at: t(at),
            succeeded: false,
            pending: false,
        }
    }

    #[test]
    fn failures_slow_logins_down_then_lock_the_name_and_a_success_clears_them() {
        assert_eq!(gate(&[], t(0)), Gate::Open);
        let mut attempts = vec![failed(0)];
        assert_eq!(gate(&attempts, t(500)), Gate::Wait(t(1000)));
        assert_eq!(gate(&attempts, t(1000)), Gate::Open);
        attempts.push(failed(1000));
        assert_eq!(gate(&attempts, t(1500)), Gate::Wait(t(3000)));
        attempts.push(failed(3000));
        assert_eq!(gate(&attempts, t(3000)), Gate::Wait(t(7000)));
        attempts.push(failed(7000));
        assert_eq!(gate(&attempts, t(7000)), Gate::Wait(t(15_000)));
        attempts.push(failed(15_000));
        let until = t(15_000 + 15 * 60 * 1000);
        assert_eq!(gate(&attempts, t(16_000)), Gate::Locked(until));
        assert_eq!(gate(&attempts, until), Gate::Open);
        attempts.push(LoginAttempt {
            at: t(20_000),
            succeeded: true,
            pending: false,
        });
        assert_eq!(gate(&attempts, t(20_001)), Gate::Open);
    }

    #[test]
    fn a_lock_lasts_its_whole_time_after_the_failure_that_made_it() {
        // Five failures two minutes apart: the first is out of the window before the lock ends,
        // and the lock holds all the same, fifteen minutes after the fifth.
        let attempts: Vec<LoginAttempt> = (0..5).map(|n| failed(n * 120_000)).collect();
        let until = t(4 * 120_000 + 15 * 60 * 1000);
        assert_eq!(gate(&attempts, t(14 * 60 * 1000)), Gate::Locked(until));
        assert_eq!(gate(&attempts, t(20 * 60 * 1000)), Gate::Locked(until));
        assert_eq!(gate(&attempts, until), Gate::Open);
        // Failures further apart than the window do not add up to a lock.
        let apart = [failed(0), failed(1000), failed(2000), failed(3000)];
        let mut spread = apart.to_vec();
        spread.push(failed(16 * 60 * 1000));
        assert_eq!(
            gate(&spread, t(16 * 60 * 1000 + 500)),
            Gate::Wait(t(16 * 60 * 1000 + 1000))
        );
    }

    #[test]
    fn a_wait_is_said_in_seconds_then_minutes_never_as_nothing() {
        assert_eq!(how_long(0), "1 second");
        assert_eq!(how_long(1), "1 second");
        assert_eq!(how_long(1000), "1 second");
        assert_eq!(how_long(7_200), "8 seconds");
        assert_eq!(how_long(59_001), "1 minute");
        assert_eq!(how_long(61_000), "1 minute 1 second");
        assert_eq!(how_long(899_500), "15 minutes");
        assert_eq!(how_long(14 * 60_000 + 30_000), "14 minutes 30 seconds");
        assert_eq!(how_long(i64::MIN), "1 second");
    }

    #[test]
    fn weak_and_short_passwords_are_refused_with_a_reason() {
        for weak in [
            "password",
            "12345678",
            "aaaaaaaa",
            "password1234",
            "aaaaaaaaaaaa",
            "123456789012",
            "qwertyuiopas",
            "pitwatch-2026",
            "ana-password",
        ] {
            let error = check_password("ana", weak).expect_err(weak);
            assert_eq!(error.code, ErrorCode::InvalidInput, "{weak}");
        }
        assert!(check_password("ana", "short")
            .unwrap_err()
            .message
            .contains("at least 12"));
        for strong in [
            "correct horse battery staple",
            "tūī sings at dawn over Rotorua",
            "plum kettle orbit 47 lantern",
        ] {
            check_password("ana", strong).expect(strong);
        }
    }
}
