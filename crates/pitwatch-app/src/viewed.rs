//! Read access audited where it matters (issue 32): who looked at an incident or replayed a
//! shoe, at which workstation and when, in the audit log beside the changes (`incident.view`,
//! `replay.view`). Anyone at the workstation may look at the pit's incidents; a look with nobody
//! logged in is audited as such. The window reads an incident again whenever it changes, so a
//! look is audited once per user and subject within [`AGAIN_AFTER_MS`]; the next look after that
//! is audited again.

use std::collections::HashMap;

use pitwatch_api::dto::ApiError;

use crate::access::detail;
use crate::live::{lock, Desk};

/// How long a user's look at one subject counts as the same look (10 minutes).
pub const AGAIN_AFTER_MS: i64 = 10 * 60 * 1000;

/// Who the audit log names for a look with nobody logged in.
pub const NOBODY: &str = "(nobody logged in)";

/// The looks audited lately: (user, action, subject) → when.
#[derive(Debug, Default)]
pub struct Viewed {
    last: HashMap<(String, &'static str, String), i64>,
}

impl Viewed {
    /// Whether a look by `user` at `subject` at `now_ms` is a new one to audit (and, if so,
    /// remembers it). Looks older than [`AGAIN_AFTER_MS`] are forgotten.
    pub fn is_new(&mut self, user: &str, action: &'static str, subject: &str, now_ms: i64) -> bool {
        self.last.retain(|_, at| now_ms - *at < AGAIN_AFTER_MS);
        let key = (user.to_owned(), action, subject.to_owned());
        if self.last.contains_key(&key) {
            return false;
        }
        self.last.insert(key, now_ms);
        true
    }
}

impl Desk {
    /// Audits a look at `subject` (`action`: `incident.view`, `replay.view`) by the user logged
    /// in, or by nobody, unless the same look was audited within [`AGAIN_AFTER_MS`].
    pub(crate) fn audit_view(&self, action: &'static str, subject: &str) -> Result<(), ApiError> {
        let now = self.clock.now();
        let who = lock(&self.session).clone();
        let user = who.as_ref().map_or(NOBODY, |p| p.user.as_str()).to_owned();
        if !lock(&self.viewed).is_new(&user, action, subject, now.unix_millis()) {
            return Ok(());
        }
        let role = who.as_ref().map_or("", |p| p.role.as_str());
        let detail = detail(&self.workstation, &[("role", role)]);
        let mut store = lock(&self.store);
        let mut batch = store.batch(now)?;
        batch.append_audit(&user, action, subject, &detail, now)?;
        batch.commit()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_look_is_new_once_per_user_and_subject_within_the_window() {
        let mut viewed = Viewed::default();
        assert!(viewed.is_new("alice", "incident.view", "7", 0));
        assert!(!viewed.is_new("alice", "incident.view", "7", 1_000));
        assert!(viewed.is_new("bob", "incident.view", "7", 1_000));
        assert!(viewed.is_new("alice", "incident.view", "8", 1_000));
        assert!(viewed.is_new("alice", "replay.view", "7", 1_000));
        assert!(!viewed.is_new("alice", "incident.view", "7", AGAIN_AFTER_MS - 1));
        assert!(viewed.is_new("alice", "incident.view", "7", AGAIN_AFTER_MS));
    }
}
