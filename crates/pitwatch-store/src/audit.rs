//! Reads of the audit log that the access controls need: the newest entry about a subject among
//! some actions (whose session is live, when a review was last signed) and the digest of the
//! entries in a period (what an independent log review signs).

use pitwatch_model::Timestamp;
use rusqlite::{Connection, OptionalExtension};
use sha2::{Digest, Sha256};

use crate::{AuditEntry, Batch, Store, StoreError};

/// The audit entries of a period as a log review signs them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditDigest {
    /// How many entries were written in the period.
    pub rows: u64,
    /// The first entry's id, if there is one.
    pub first_id: Option<i64>,
    /// The last entry's id, if there is one.
    pub last_id: Option<i64>,
    /// SHA-256, in hex, over each entry's chain hash in order: each hash covers its row and every
    /// row before it, so any change to an entry of the period (or before it) changes the digest.
    pub digest: String,
}

fn latest_audit(
    conn: &Connection,
    subject: &str,
    actions: &[&str],
) -> Result<Option<AuditEntry>, StoreError> {
    if actions.is_empty() {
        return Ok(None);
    }
    let wanted = vec!["?"; actions.len()].join(", ");
    let sql = format!(
        "SELECT id, user_name, action, subject, detail, at FROM audit_log \
         WHERE subject = ? AND action IN ({wanted}) ORDER BY id DESC LIMIT 1"
    );
    Ok(conn
        .query_row(
            &sql,
            rusqlite::params_from_iter(std::iter::once(subject).chain(actions.iter().copied())),
            |r| {
                Ok(AuditEntry {
                    id: r.get(0)?,
                    user: r.get(1)?,
                    action: r.get(2)?,
                    subject: r.get(3)?,
                    detail: r.get(4)?,
                    at: r.get(5)?,
                })
            },
        )
        .optional()?)
}

impl Store {
    /// The newest audit entry about `subject` whose action is one of `actions`, if any.
    pub fn latest_audit(
        &self,
        subject: &str,
        actions: &[&str],
    ) -> Result<Option<AuditEntry>, StoreError> {
        latest_audit(&self.conn, subject, actions)
    }

    /// The audit entries written from `from` (inclusive) to `to` (exclusive), as a digest (see
    /// [`AuditDigest`]). Times are compared as instants, whatever their text's precision.
    pub fn audit_digest(&self, from: Timestamp, to: Timestamp) -> Result<AuditDigest, StoreError> {
        let mut statement = self.conn.prepare(
            "SELECT id, hash FROM audit_log \
             WHERE julianday(at) >= julianday(?1) AND julianday(at) < julianday(?2) ORDER BY id",
        )?;
        let rows = statement.query_map([from.to_string(), to.to_string()], |r| {
            Ok((r.get::<_, i64>(0)?, r.get::<_, Vec<u8>>(1)?))
        })?;
        let mut hasher = Sha256::new();
        let mut out = AuditDigest {
            rows: 0,
            first_id: None,
            last_id: None,
            digest: String::new(),
        };
        for row in rows {
            let (id, hash) = row?;
            hasher.update(&hash);
            out.rows += 1;
            out.first_id.get_or_insert(id);
            out.last_id = Some(id);
        }
        out.digest = hex::encode(hasher.finalize());
        Ok(out)
    }
}

impl Batch<'_> {
    /// [`Store::latest_audit`] inside this batch's write transaction: what a login reads before it
    /// ends the session it replaces, with no other login in between.
    pub fn latest_audit(
        &self,
        subject: &str,
        actions: &[&str],
    ) -> Result<Option<AuditEntry>, StoreError> {
        latest_audit(&self.tx, subject, actions)
    }
}

impl Store {
    /// The audit entries with `action` about `subject`, oldest first.
    pub fn audit_entries_about(
        &self,
        action: &str,
        subject: &str,
    ) -> Result<Vec<AuditEntry>, StoreError> {
        let mut statement = self.conn.prepare(
            "SELECT id, user_name, action, subject, detail, at FROM audit_log \
             WHERE subject = ?1 AND action = ?2 ORDER BY id",
        )?;
        let rows = statement.query_map([subject, action], |r| {
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
}
