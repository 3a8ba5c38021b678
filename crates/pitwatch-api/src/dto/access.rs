//! Access controls as the window sees them: the access listing (who may do what), and the
//! periodic reviews signed in the app (the access listing's, the audit log's) with whether each
//! is overdue.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// One user in the access listing: their role, their account's status and what the role allows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct AccessUser {
    /// The user's name.
    pub name: String,
    /// Their role (`supervisor`, `surveillance`, `admin`, `inspector`).
    pub role: String,
    /// `active`, `disabled` (deactivated), `locked` (too many failed logins, until
    /// `locked_until`) or `password_expired` (must choose a new one before logging in).
    pub status: String,
    /// When a lock ends (RFC 3339), if the account is locked.
    pub locked_until: Option<String>,
    /// When they were added (RFC 3339).
    pub created_at: String,
    /// When their password was set (RFC 3339), if the audit log says.
    pub password_set_at: Option<String>,
    /// Whole days since their password was set.
    pub password_age_days: Option<u32>,
    /// When they last logged in (RFC 3339), if ever.
    pub last_login_at: Option<String>,
    /// The workstation holding their live session, if they hold one (one at a time).
    pub session_at: Option<String>,
    /// What their role may do (the commands' names, as audited).
    pub may: Vec<String>,
}

/// One role and the commands it allows, from the code's own table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct RoleAccess {
    /// The role's name.
    pub role: String,
    /// The commands it allows (names as audited).
    pub may: Vec<String>,
}

/// The access listing: every user with their role and status, and every role with what it allows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct AccessListing {
    /// When it was read (RFC 3339).
    pub at: String,
    /// Every user, by name.
    pub users: Vec<AccessUser>,
    /// Every role, with what it allows.
    pub roles: Vec<RoleAccess>,
    /// SHA-256 (hex) of what the listing grants (each user's name, role, status, when added and
    /// when their password was set, and every role's commands; not logins or sessions): what
    /// an access review signs.
    pub digest: String,
}

/// A review signed in the app: of the access listing or of the audit log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ReviewRow {
    /// The audit row that holds it.
    pub id: i64,
    /// `access` or `log`.
    pub kind: String,
    /// Who signed it.
    pub reviewer: String,
    /// Their role when they signed.
    pub role: String,
    /// Where.
    pub workstation: String,
    /// When (RFC 3339).
    pub at: String,
    /// The period reviewed, from (RFC 3339; a log review's).
    pub from: Option<String>,
    /// The period reviewed, to (RFC 3339, exclusive; a log review's).
    pub to: Option<String>,
    /// The audit rows in the period (a log review's).
    pub rows: Option<u64>,
    /// The digest signed: the listing's, or that of the audit rows of the period.
    pub digest: String,
    /// What the reviewer wrote.
    pub comment: String,
}

/// Where the periodic reviews stand: the last of each, when the next is due, and the alerts of
/// those overdue.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ReviewStatus {
    /// The last access review, if any.
    pub last_access: Option<ReviewRow>,
    /// Days between access reviews.
    pub access_every_days: u32,
    /// When the next access review is due (RFC 3339): the last's time plus the period, or now
    /// when there has been none.
    pub access_due: String,
    /// The last log review, if any.
    pub last_log: Option<ReviewRow>,
    /// Days between log reviews.
    pub log_every_days: u32,
    /// When the next log review is due (RFC 3339).
    pub log_due: String,
    /// Where the next log review should start: the end of the last one's period (RFC 3339), or
    /// null when there has been none.
    pub log_from: Option<String>,
    /// The reviews overdue (empty when none is).
    pub alerts: Vec<ReviewAlert>,
}

/// A review overdue.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ReviewAlert {
    /// `access` (for administrators and inspectors) or `log` (for surveillance and inspectors).
    pub kind: String,
    /// What is overdue since when, in words.
    pub message: String,
}

/// An access review to sign: the digest of the listing the reviewer read, and their comment.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct AccessReviewRequest {
    /// The digest of the listing as read ([`AccessListing::digest`]); refused when the listing
    /// has changed since.
    pub digest: String,
    /// What the reviewer found (required).
    pub comment: String,
}

/// A log review to sign: the period (from inclusive, to exclusive) and the comment.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct LogReviewRequest {
    /// The period's start (RFC 3339).
    pub from: String,
    /// The period's end (RFC 3339, exclusive; not after now).
    pub to: String,
    /// What the reviewer found (required).
    pub comment: String,
}
