//! The workstation's part of the desk: its name (in every audit row of a login or a refusal)
//! and its seat, one lock over who is logged in here, whether they muted the alarm, and the looks
//! at incidents and replays audited lately. The use cases on it are `crate::sessions`',
//! `crate::alarm`'s and `crate::viewed`'s.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use super::lock;
use crate::access::Principal;

/// How long a user's look at one subject counts as the same look (10 minutes).
pub const AGAIN_AFTER_MS: i64 = 10 * 60 * 1000;

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

/// The session at this workstation: one person at a time.
#[derive(Debug, Default)]
pub(crate) struct Seat {
    /// Who is logged in.
    pub(crate) principal: Option<Principal>,
    /// Their session: the audit id of its login, checked against the record at every command
    /// (one session per user, see `crate::sessions`).
    pub(crate) session: Option<i64>,
    /// Whether they muted the alarm's sound (a mute belongs to its session, see `crate::alarm`).
    pub(crate) alarm_muted: bool,
    /// The looks at incidents and replays audited lately (`crate::viewed`).
    pub(crate) viewed: Viewed,
}

/// This workstation: its name and its seat.
pub struct Workstation {
    name: String,
    seat: Mutex<Seat>,
}

impl Workstation {
    /// The workstation called `name`, nobody logged in.
    pub(crate) fn new(name: String) -> Workstation {
        Workstation {
            name,
            seat: Mutex::default(),
        }
    }

    /// This workstation's name.
    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    /// The seat, held until the guard is dropped: a session's change (a login, a logout, a
    /// mute) is one step under it. Taken before the store when both are held.
    pub(crate) fn seat(&self) -> MutexGuard<'_, Seat> {
        lock(&self.seat)
    }

    /// Who is logged in, if anyone.
    pub(crate) fn logged_in(&self) -> Option<Principal> {
        self.seat().principal.clone()
    }

    /// Whether the alarm is muted now.
    pub(crate) fn alarm_muted(&self) -> bool {
        self.seat().alarm_muted
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
