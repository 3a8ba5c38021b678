//! Access controls audits check (issue 32): the access listing, and the two periodic reviews
//! signed in the app.
//!
//! - **The access listing**: every user with their role, their account's status (active,
//!   disabled, locked, password expired), password age, last login and the workstation of their
//!   live session, and every role with the commands it allows. The commands come from
//!   [`Command::ALL`] and [`Command::allowed`], the very table every command is checked
//!   against, so the listing cannot drift from what the code enforces. Administrators and
//!   inspectors read it; it exports as CSV through `pitwatch-report`'s writer, which keeps every
//!   cell from being a formula.
//! - **The access review**: an administrator or an inspector signs that they reviewed the
//!   listing, giving the digest of the listing they read (refused if it has changed since, so
//!   what is signed is what was seen) and a comment. It is an audit row ([`ACCESS_REVIEW`]),
//!   so chained and signed with the record. One is due every [`ReviewPeriods::access`] (90
//!   days unless configured); past that, an overdue alert.
//! - **The log review**: a reviewer who is not an administrator (surveillance or an inspector)
//!   signs off the audit log for a period: from, to, the digest of the audit rows in it
//!   (`Store::audit_digest`: SHA-256 over their chain hashes) and a comment ([`LOG_REVIEW`]).
//!   An administrator's attempt is refused and audited like any forbidden command: the
//!   reviewed should not review themselves. Due every [`ReviewPeriods::log`] (a week unless
//!   configured).
//!
//! The periods are configuration: `PITWATCH_ACCESS_REVIEW_DAYS` and `PITWATCH_LOG_REVIEW_DAYS`
//! for the desktop and the CLI alike ([`ReviewPeriods::from_env`]).

use std::path::Path;
use std::time::Duration;

use pitwatch_api::dto::{
    AccessListing, AccessReviewRequest, AccessUser, ApiError, ErrorCode, LogReviewRequest,
    ReviewAlert, ReviewRow, ReviewStatus, RoleAccess,
};
use pitwatch_model::Timestamp;
use pitwatch_report::{Block, Document};
use pitwatch_store::{AuditEntry, Role, Store, LOGIN};
use sha2::{Digest, Sha256};

use crate::access::{detail, require, Command, Principal};
use crate::accounts::{self, Gate, Policy, SESSION_MARKS};
use crate::live::Desk;
pub use crate::setup::ReviewPeriods;

/// The audit action of an access review signed (subject: `access`).
pub const ACCESS_REVIEW: &str = "review.access";
/// The audit action of a log review signed (subject: the period, `FROM/TO`).
pub const LOG_REVIEW: &str = "review.log";
/// The subject of every access review, by which the last one is found.
const ACCESS_SUBJECT: &str = "access";
/// The longest comment a review keeps.
const MAX_COMMENT_CHARS: usize = 4000;

const DAY: u64 = crate::setup::DAY;

fn whole_days(duration: Duration) -> u32 {
    u32::try_from(duration.as_secs() / DAY).unwrap_or(u32::MAX)
}

fn after(at: Timestamp, duration: Duration) -> Timestamp {
    let millis = i64::try_from(duration.as_millis()).unwrap_or(i64::MAX);
    Timestamp::from_unix_millis(at.unix_millis().saturating_add(millis)).unwrap_or(at)
}

/// What every role may do, from the code's own table.
pub fn role_access() -> Vec<RoleAccess> {
    Role::ALL
        .into_iter()
        .map(|role| RoleAccess {
            role: role.as_str().to_owned(),
            may: Command::ALL
                .into_iter()
                .filter(|c| c.allowed(role))
                .map(|c| c.name().to_owned())
                .collect(),
        })
        .collect()
}

/// The access listing as it stands at `now` under `policy` (see the module's notes); `who` must
/// be an administrator or an inspector.
pub fn access_listing(
    store: &mut Store,
    who: &Principal,
    policy: &Policy,
    now: Timestamp,
) -> Result<AccessListing, ApiError> {
    require(store, who, Command::AccessListing, "", now)?;
    listing(store, policy, now)
}

/// The listing, with no check of who asks.
fn listing(store: &Store, policy: &Policy, now: Timestamp) -> Result<AccessListing, ApiError> {
    let mut users = Vec::new();
    for user in store.users()? {
        let row = accounts::user_row(store, user.clone())?;
        let attempts = store.login_attempts(&user.name, accounts::throttle_since(now))?;
        let locked_until = match accounts::gate(&attempts, now) {
            Gate::Locked(until) => Some(until),
            _ => None,
        };
        let set_at = row
            .password_set_at
            .as_deref()
            .and_then(|t| t.parse::<Timestamp>().ok());
        let age_ms = set_at.map(|s| (now.unix_millis() - s.unix_millis()).max(0));
        let expired = match (policy.max_password_age, age_ms) {
            (Some(max), Some(age)) => age > i64::try_from(max.as_millis()).unwrap_or(i64::MAX),
            _ => false,
        };
        let status = if !user.active {
            "disabled"
        } else if locked_until.is_some() {
            "locked"
        } else if expired {
            "password_expired"
        } else {
            "active"
        };
        let session_at = store
            .latest_audit(&user.name, &SESSION_MARKS)?
            .filter(|e| e.action == LOGIN)
            .map(|e| crate::access::workstation_of(&e.detail));
        users.push(AccessUser {
            name: row.name,
            role: row.role,
            status: status.to_owned(),
            locked_until: locked_until.map(|t| t.to_string()),
            created_at: row.created_at,
            password_set_at: row.password_set_at,
            password_age_days: age_ms
                .map(|ms| u32::try_from(ms / (DAY as i64 * 1000)).unwrap_or(u32::MAX)),
            last_login_at: row.last_login_at,
            session_at,
            may: row.may,
        });
    }
    let roles = role_access();
    let digest = listing_digest(&users, &roles);
    Ok(AccessListing {
        at: now.to_string(),
        users,
        roles,
        digest,
    })
}

/// SHA-256 (hex) over what the listing grants, as JSON: each user's name, role, status, when
/// added and when their password was set, and every role's commands. What an access review
/// signs. Logins and sessions are left out: they say who used their access, not who has it, and
/// the reviewer's own login (every CLI command is one) would otherwise change what they read.
fn listing_digest(users: &[AccessUser], roles: &[RoleAccess]) -> String {
    let granted: Vec<serde_json::Value> = users
        .iter()
        .map(|u| {
            serde_json::json!([
                u.name,
                u.role,
                u.status,
                u.created_at,
                u.password_set_at,
                u.may
            ])
        })
        .collect();
    let body = serde_json::json!({ "users": granted, "roles": roles }).to_string();
    hex::encode(Sha256::digest(body.as_bytes()))
}

/// The access listing as a document: its CSV (through the writer that keeps cells from being
/// formulas) is what the export writes.
pub fn listing_document(listing: &AccessListing, site: &str) -> Document {
    let opt = |v: &Option<String>| v.clone().unwrap_or_default();
    Document {
        title: "Access listing".into(),
        subtitle: format!("{site} · read {}", listing.at),
        blocks: vec![
            Block::Fields {
                fields: vec![
                    ("Read at".into(), listing.at.clone()),
                    ("Digest (SHA-256)".into(), listing.digest.clone()),
                ],
            },
            Block::Heading {
                text: "Users".into(),
            },
            Block::Table {
                columns: [
                    "user",
                    "role",
                    "status",
                    "locked until",
                    "added",
                    "password set",
                    "password age (days)",
                    "last login",
                    "session at",
                    "may",
                ]
                .map(String::from)
                .to_vec(),
                widths: vec![2, 2, 2, 2, 3, 3, 1, 3, 2, 6],
                rows: listing
                    .users
                    .iter()
                    .map(|u| {
                        vec![
                            u.name.clone(),
                            u.role.clone(),
                            u.status.clone(),
                            opt(&u.locked_until),
                            u.created_at.clone(),
                            opt(&u.password_set_at),
                            u.password_age_days
                                .map(|d| d.to_string())
                                .unwrap_or_default(),
                            opt(&u.last_login_at),
                            opt(&u.session_at),
                            u.may.join(" "),
                        ]
                    })
                    .collect(),
            },
            Block::Heading {
                text: "Roles".into(),
            },
            Block::Table {
                columns: vec!["role".into(), "may".into()],
                widths: vec![1, 6],
                rows: listing
                    .roles
                    .iter()
                    .map(|r| vec![r.role.clone(), r.may.join(" ")])
                    .collect(),
            },
        ],
        footer: String::new(),
        build: pitwatch_report::build::label(),
        author: String::new(),
        created: None,
    }
}

fn comment_of(comment: &str) -> Result<String, ApiError> {
    let comment = comment.trim();
    if comment.is_empty() {
        return Err(ApiError::new(
            ErrorCode::InvalidInput,
            "a review needs a comment: what was looked at and what was found",
        ));
    }
    if comment.chars().count() > MAX_COMMENT_CHARS {
        return Err(ApiError::new(
            ErrorCode::InvalidInput,
            format!("a review's comment is at most {MAX_COMMENT_CHARS} characters"),
        ));
    }
    Ok(comment.to_owned())
}

/// `who` (an administrator or an inspector) signs the access review of the listing whose digest
/// they read (see the module's notes). Audited as [`ACCESS_REVIEW`].
pub fn sign_access_review(
    store: &mut Store,
    who: &Principal,
    policy: &Policy,
    request: &AccessReviewRequest,
    now: Timestamp,
) -> Result<ReviewRow, ApiError> {
    require(store, who, Command::ReviewAccess, ACCESS_SUBJECT, now)?;
    let comment = comment_of(&request.comment)?;
    let current = listing(store, policy, now)?;
    if current.digest != request.digest.trim() {
        return Err(ApiError::new(
            ErrorCode::Conflict,
            "the access listing has changed since it was read: read it again, then sign",
        ));
    }
    let users = current.users.len().to_string();
    let detail = detail(
        &who.workstation,
        &[
            ("role", who.role.as_str()),
            ("digest", &current.digest),
            ("users", &users),
            ("comment", &comment),
        ],
    );
    let mut batch = store.batch(now)?;
    batch.append_audit(&who.user, ACCESS_REVIEW, ACCESS_SUBJECT, &detail, now)?;
    batch.commit()?;
    last_review(store, ACCESS_REVIEW)?
        .ok_or_else(|| ApiError::new(ErrorCode::Internal, "the review was not recorded"))
}

fn parse_time(what: &str, text: &str) -> Result<Timestamp, ApiError> {
    text.trim().parse::<Timestamp>().map_err(|e| {
        ApiError::new(
            ErrorCode::InvalidInput,
            format!("the review's {what} {text:?} is not a time (RFC 3339): {e}"),
        )
    })
}

/// `who` (surveillance or an inspector; never an administrator, refused and audited) signs off
/// the audit log from `request.from` to `request.to` (see the module's notes). Audited as
/// [`LOG_REVIEW`] with the digest of the period's audit rows.
pub fn sign_log_review(
    store: &mut Store,
    who: &Principal,
    request: &LogReviewRequest,
    now: Timestamp,
) -> Result<ReviewRow, ApiError> {
    let subject = format!("{}/{}", request.from.trim(), request.to.trim());
    require(store, who, Command::ReviewLog, &subject, now)?;
    let from = parse_time("start", &request.from)?;
    let to = parse_time("end", &request.to)?;
    if from >= to {
        return Err(ApiError::new(
            ErrorCode::InvalidInput,
            format!("the review's period must end after it starts ({from} to {to})"),
        ));
    }
    if to > now {
        return Err(ApiError::new(
            ErrorCode::InvalidInput,
            format!("the review's period cannot end in the future ({to}; it is {now})"),
        ));
    }
    let comment = comment_of(&request.comment)?;
    let digest = store.audit_digest(from, to)?;
    let subject = format!("{from}/{to}");
    let (from_text, to_text, rows) = (from.to_string(), to.to_string(), digest.rows.to_string());
    let detail = detail(
        &who.workstation,
        &[
            ("role", who.role.as_str()),
            ("from", &from_text),
            ("to", &to_text),
            ("rows", &rows),
            ("digest", &digest.digest),
            ("comment", &comment),
        ],
    );
    let mut batch = store.batch(now)?;
    batch.append_audit(&who.user, LOG_REVIEW, &subject, &detail, now)?;
    batch.commit()?;
    last_review(store, LOG_REVIEW)?
        .ok_or_else(|| ApiError::new(ErrorCode::Internal, "the review was not recorded"))
}

/// A review's audit row as the window shows it.
fn review_row(entry: AuditEntry) -> ReviewRow {
    let detail: serde_json::Value = serde_json::from_str(&entry.detail).unwrap_or_default();
    let text = |k: &str| detail.get(k).and_then(|v| v.as_str()).map(str::to_owned);
    ReviewRow {
        id: entry.id,
        kind: if entry.action == LOG_REVIEW {
            "log"
        } else {
            "access"
        }
        .into(),
        reviewer: entry.user,
        role: text("role").unwrap_or_default(),
        workstation: text("workstation").unwrap_or_default(),
        at: entry.at,
        from: text("from"),
        to: text("to"),
        rows: text("rows").and_then(|r| r.parse().ok()),
        digest: text("digest").unwrap_or_default(),
        comment: text("comment").unwrap_or_default(),
    }
}

/// The newest review of `action` ([`ACCESS_REVIEW`] or [`LOG_REVIEW`]).
fn last_review(store: &Store, action: &str) -> Result<Option<ReviewRow>, ApiError> {
    Ok(store
        .recent_audit(&[action], 1)?
        .into_iter()
        .next()
        .map(review_row))
}

/// Where the reviews stand at `now` under `periods` (any logged-in user may see whether a review
/// is due; the alerts say which is overdue and since when).
pub fn review_status(
    store: &Store,
    periods: &ReviewPeriods,
    now: Timestamp,
) -> Result<ReviewStatus, ApiError> {
    let last_access = last_review(store, ACCESS_REVIEW)?;
    let last_log = last_review(store, LOG_REVIEW)?;
    let due = |last: &Option<ReviewRow>, every: Duration| -> Option<Timestamp> {
        last.as_ref()
            .and_then(|r| r.at.parse::<Timestamp>().ok())
            .map(|at| after(at, every))
    };
    let access_due = due(&last_access, periods.access);
    let log_due = due(&last_log, periods.log);
    let mut alerts = Vec::new();
    let mut overdue =
        |kind: &str, what: &str, who: &str, last: &Option<ReviewRow>, due: Option<Timestamp>| {
            let message = match (last, due) {
                (None, _) => format!("no {what} has been signed yet: {who} should sign one"),
                (Some(last), Some(due)) if due <= now => format!(
                "the {what} is overdue: the last was signed by {} on {}, and one was due by {due}",
                last.reviewer, last.at
            ),
                _ => return,
            };
            alerts.push(ReviewAlert {
                kind: kind.to_owned(),
                message,
            });
        };
    overdue(
        "access",
        "access review",
        "an administrator or an inspector",
        &last_access,
        access_due,
    );
    overdue(
        "log",
        "audit log review",
        "surveillance or an inspector (not an administrator)",
        &last_log,
        log_due,
    );
    Ok(ReviewStatus {
        log_from: last_log.as_ref().and_then(|r| r.to.clone()),
        last_access,
        access_every_days: whole_days(periods.access),
        access_due: access_due.unwrap_or(now).to_string(),
        last_log,
        log_every_days: whole_days(periods.log),
        log_due: log_due.unwrap_or(now).to_string(),
        alerts,
    })
}

impl Desk {
    /// The access listing (administrators and inspectors; see [`access_listing`]).
    pub fn access_listing(&self) -> Result<AccessListing, ApiError> {
        let who = self.principal()?;
        access_listing(
            &mut self.record.store(),
            &who,
            &self.policy(),
            self.clock.now(),
        )
    }

    /// Writes the access listing as CSV to `path` (administrators and inspectors; the export
    /// audited as `access_listing.export`); answers the path written.
    pub fn export_access_listing_to(&self, path: &Path) -> Result<String, ApiError> {
        let who = self.principal()?;
        let now = self.clock.now();
        let listing = access_listing(&mut self.record.store(), &who, &self.policy(), now)?;
        if path.as_os_str().is_empty() || path.is_dir() {
            return Err(ApiError::new(
                ErrorCode::InvalidInput,
                format!(
                    "{:?} is a folder, not a file to save the listing as: give a file name",
                    path.display().to_string()
                ),
            ));
        }
        let csv = listing_document(&listing, &self.pit.site.name).to_csv();
        std::fs::write(path, csv).map_err(|e| {
            ApiError::new(
                ErrorCode::Internal,
                format!("cannot write {}: {e}", path.display()),
            )
        })?;
        let written = path.display().to_string();
        let detail = detail(
            &who.workstation,
            &[("file", &written), ("digest", &listing.digest)],
        );
        let mut store = self.record.store();
        let mut batch = store.batch(now)?;
        batch.append_audit(&who.user, "access_listing.export", "access", &detail, now)?;
        batch.commit()?;
        Ok(written)
    }

    /// Where the periodic reviews stand (anyone logged in).
    pub fn review_status(&self) -> Result<ReviewStatus, ApiError> {
        self.principal()?;
        review_status(&self.record.store(), &self.reviews, self.clock.now())
    }

    /// Signs the access review (administrators and inspectors; see [`sign_access_review`]).
    pub fn sign_access_review(&self, request: &AccessReviewRequest) -> Result<ReviewRow, ApiError> {
        let who = self.principal()?;
        sign_access_review(
            &mut self.record.store(),
            &who,
            &self.policy(),
            request,
            self.clock.now(),
        )
    }

    /// Signs the log review (surveillance and inspectors, never an administrator; see
    /// [`sign_log_review`]).
    pub fn sign_log_review(&self, request: &LogReviewRequest) -> Result<ReviewRow, ApiError> {
        let who = self.principal()?;
        sign_log_review(&mut self.record.store(), &who, request, self.clock.now())
    }
}

#[cfg(test)]
mod tests {
    use pitwatch_api::dto::{AccessReviewRequest, ErrorCode, IncidentQuery, LogReviewRequest};

    use crate::testkit::*;

    #[test]
    fn at_the_desk_an_inspector_reads_exports_and_signs_and_every_read_is_audited() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let db = dir.path().join("inspector.db");
        let desk = real_desk(&db);
        desk.add_user("ivy", "inspector", BOB)
            .expect("an inspector");
        // An administrator may not sign the log review, and reads the listing unaudited.
        let refused = desk.sign_log_review(&LogReviewRequest {
            from: "2000-01-01T00:00:00Z".into(),
            to: "2001-01-01T00:00:00Z".into(),
            comment: "mine".into(),
        });
        assert_eq!(refused.expect_err("an admin").code, ErrorCode::Forbidden);
        let listing = desk.access_listing().expect("the admin's listing");
        assert!(listing.users.iter().any(|u| u.role == "inspector"));

        desk.login("ivy", BOB).expect("the inspector logs in");
        desk.incidents(&IncidentQuery::default())
            .expect("the incident list");
        let listing = desk.access_listing().expect("the inspector's listing");
        let csv = dir.path().join("access.csv");
        desk.export_access_listing_to(&csv).expect("the export");
        let written = std::fs::read_to_string(&csv).expect("the CSV");
        assert!(written.contains(&listing.digest), "{written}");
        assert!(written.contains("\"ivy\""), "{written}");
        desk.sign_access_review(&AccessReviewRequest {
            digest: listing.digest.clone(),
            comment: "two accounts, both as expected".into(),
        })
        .expect("an inspector signs the access review");
        let status = desk.review_status().expect("the status");
        assert!(
            status.alerts.iter().all(|a| a.kind == "log"),
            "{:?}",
            status.alerts
        );
        // Nothing that changes the record.
        for refused in [
            desk.add_user("eve", "admin", ALICE).map(|_| ()),
            desk.set_active("alice", false).map(|_| ()),
            desk.acknowledge(1).map(|_| ()),
        ] {
            assert_eq!(refused.expect_err("read only").code, ErrorCode::Forbidden);
        }
        desk.stop();
        let store = test_store(&db);
        let read = |action: &str| -> Vec<String> {
            store
                .audit_entries(action)
                .expect("audit")
                .into_iter()
                .filter(|e| e.user == "ivy")
                .map(|e| e.subject)
                .collect()
        };
        assert_eq!(read(crate::viewed::INCIDENTS_READ), ["incidents"]);
        assert_eq!(
            read(crate::access::INSPECTED),
            ["access_listing", "access_listing", "review_access"]
        );
        assert_eq!(read("access_listing.export"), ["access"]);
        assert_eq!(read(super::ACCESS_REVIEW), ["access"]);
        assert_eq!(read(crate::access::FORBIDDEN).len(), 3);
    }
}
