//! Grouped incidents: a storm of like irregularities is one incident with a count, not one
//! incident (and one alert) per line.
//!
//! A device that reports the same error again and again, or a stream of ever new error codes,
//! used to open an incident for each. Now the recorder gives such an irregularity a group key
//! (for a device error, its code): while an unresolved incident of the same table stands for the
//! key, the new one is counted on it (how many, the last `seq` and time) instead of opening
//! another. Once a table has [`GroupRule::limit`] unresolved incidents of one family (say, device
//! errors of different codes), further new keys of that family share one overflow incident. A
//! resolved incident starts its key afresh.
//!
//! The group and its count are kept in `incident_groups`, a table derived from chained facts (see
//! [`crate::facts`]) like the other tables people see, so `verify` finds a count edited behind the
//! store's back.

use rusqlite::{params, OptionalExtension};

use crate::facts;
use crate::{Batch, IncidentId, NewIncident, Store, StoreError, TableId};
use pitwatch_model::Timestamp;

/// How an irregularity is grouped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupRule {
    /// The group it belongs to (`DEVICE_ERROR:E12`).
    pub key: String,
    /// The family of groups the limit applies to: keys starting with this (`DEVICE_ERROR:`).
    pub family: String,
    /// How many unresolved incidents of the family a table may have before new keys share
    /// the overflow incident.
    pub limit: u64,
    /// The overflow group's key (`DEVICE_ERROR:*`).
    pub overflow: String,
}

/// What became of a grouped irregularity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grouped {
    /// A new incident was opened for it.
    Opened(IncidentId),
    /// It was counted on an unresolved incident of its group, which now counts `count`.
    Counted {
        /// The incident.
        incident: IncidentId,
        /// How many irregularities it now stands for (the first included).
        count: u64,
    },
}

impl Grouped {
    /// The incident it opened or was counted on.
    pub fn incident(self) -> IncidentId {
        match self {
            Grouped::Opened(id) | Grouped::Counted { incident: id, .. } => id,
        }
    }
}

/// The group an incident stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IncidentGroup {
    /// The group's key.
    pub key: String,
    /// How many irregularities the incident stands for, the first included.
    pub count: u64,
    /// The `seq` of the last one.
    pub last_seq: u64,
    /// When the last one was recorded.
    pub last_at: String,
}

impl Batch<'_> {
    /// Opens an incident for `incident`, or counts it on the unresolved incident of its group
    /// (see the module's description).
    pub fn open_grouped_incident(
        &mut self,
        incident: &NewIncident,
        rule: &GroupRule,
        now: Timestamp,
    ) -> Result<Grouped, StoreError> {
        let table = incident.table;
        let key = if self.unresolved_group(table, &rule.key)?.is_some() {
            rule.key.clone()
        } else {
            let family: i64 = self.tx.query_row(
                "SELECT COUNT(*) FROM incident_groups g \
                 JOIN incident_status s ON s.incident_id = g.incident_id \
                 WHERE g.table_id = ?1 AND s.status != 'resolved' \
                 AND substr(g.group_key, 1, length(?2)) = ?2 AND g.group_key != ?3",
                params![table.0, rule.family, rule.overflow],
                |r| r.get(0),
            )?;
            if u64::try_from(family).unwrap_or(0) >= rule.limit {
                rule.overflow.clone()
            } else {
                rule.key.clone()
            }
        };
        let seq = i64::try_from(incident.seq).unwrap_or(i64::MAX);
        let at = now.to_string();
        if let Some(id) = self.unresolved_group(table, &key)? {
            let count: i64 = self.tx.query_row(
                "SELECT count FROM incident_groups WHERE incident_id = ?1",
                [id.0],
                |r| r.get(0),
            )?;
            let count = count.saturating_add(1);
            self.put_fact(
                &facts::INCIDENT_GROUPS,
                &[
                    ("incident_id", id.0.into()),
                    ("count", count.into()),
                    ("last_seq", seq.into()),
                    ("last_at", at.as_str().into()),
                ],
                &at,
            )?;
            return Ok(Grouped::Counted {
                incident: id,
                count: u64::try_from(count).unwrap_or(0),
            });
        }
        let mut opened = incident.clone();
        if key == rule.overflow && key != rule.key {
            opened.message = format!(
                "{} More different codes of this kind were reported at this table than it has \
                 open incidents for them ({}): each new one is counted on this incident.",
                opened.message, rule.limit
            );
        }
        let id = self.open_incident(&opened, now)?;
        self.put_fact(
            &facts::INCIDENT_GROUPS,
            &[
                ("incident_id", id.0.into()),
                ("table_id", table.0.into()),
                ("group_key", key.as_str().into()),
                ("count", 1i64.into()),
                ("last_seq", seq.into()),
                ("last_at", at.as_str().into()),
            ],
            &at,
        )?;
        Ok(Grouped::Opened(id))
    }

    fn unresolved_group(
        &self,
        table: TableId,
        key: &str,
    ) -> Result<Option<IncidentId>, StoreError> {
        Ok(self
            .tx
            .query_row(
                "SELECT g.incident_id FROM incident_groups g \
                 JOIN incident_status s ON s.incident_id = g.incident_id \
                 WHERE g.table_id = ?1 AND g.group_key = ?2 AND s.status != 'resolved' \
                 ORDER BY g.incident_id DESC LIMIT 1",
                params![table.0, key],
                |r| r.get(0),
            )
            .optional()?
            .map(IncidentId))
    }
}

impl Store {
    /// The group incident `id` stands for, if it is a grouped one.
    pub fn incident_group(&self, id: IncidentId) -> Result<Option<IncidentGroup>, StoreError> {
        if !facts::table_exists(&self.conn, "incident_groups")? {
            // A record from before grouping, opened read-only: nothing is grouped in it.
            return Ok(None);
        }
        Ok(self
            .conn
            .query_row(
                "SELECT group_key, count, last_seq, last_at FROM incident_groups \
                 WHERE incident_id = ?1",
                [id.0],
                |r| {
                    Ok(IncidentGroup {
                        key: r.get(0)?,
                        count: u64::try_from(r.get::<_, i64>(1)?).unwrap_or(0),
                        last_seq: u64::try_from(r.get::<_, i64>(2)?).unwrap_or(0),
                        last_at: r.get(3)?,
                    })
                },
            )
            .optional()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(table: TableId, seq: u64) -> NewIncident {
        NewIncident {
            table,
            code: "DEVICE_ERROR".into(),
            severity: "medium".into(),
            rule: "device (no Gazette rule)".into(),
            shoe: Some(1),
            round: None,
            seq,
            evidence: vec![seq],
            message: "The device reported an error.".into(),
        }
    }

    fn rule(code: &str) -> GroupRule {
        GroupRule {
            key: format!("DEVICE_ERROR:{code}"),
            family: "DEVICE_ERROR:".into(),
            limit: 3,
            overflow: "DEVICE_ERROR:*".into(),
        }
    }

    #[test]
    fn a_storm_of_device_errors_is_a_few_incidents_with_counts() {
        let mut store = Store::open_in_memory().unwrap();
        let t = |ms| Timestamp::from_unix_millis(ms).unwrap();
        let table = store.ensure_table("T1", "baccarat", "nz", t(0)).unwrap();
        let other = store.ensure_table("T2", "baccarat", "nz", t(0)).unwrap();
        let mut batch = store
            .batch(Timestamp::from_unix_millis(1_000).unwrap())
            .unwrap();
        // The same code again and again: one incident.
        let first = batch
            .open_grouped_incident(&error(table, 1), &rule("E1"), t(1))
            .unwrap();
        assert!(matches!(first, Grouped::Opened(_)));
        for seq in 2..=50 {
            let again = batch
                .open_grouped_incident(&error(table, seq), &rule("E1"), t(seq as i64))
                .unwrap();
            assert_eq!(
                again,
                Grouped::Counted {
                    incident: first.incident(),
                    count: seq
                }
            );
        }
        // 500 new codes: two more of their own (the limit is 3), then one overflow incident.
        let mut opened = vec![first.incident()];
        for n in 0..500u64 {
            if let Grouped::Opened(id) = batch
                .open_grouped_incident(&error(table, 100 + n), &rule(&format!("N{n}")), t(100))
                .unwrap()
            {
                opened.push(id);
            }
        }
        assert_eq!(opened.len(), 4, "{opened:?}");
        // Another table's errors are its own.
        assert!(matches!(
            batch
                .open_grouped_incident(&error(other, 1), &rule("E1"), t(1))
                .unwrap(),
            Grouped::Opened(_)
        ));
        batch.commit().unwrap();
        let overflow = store.incident_group(opened[3]).unwrap().unwrap();
        assert_eq!(overflow.key, "DEVICE_ERROR:*");
        assert_eq!(overflow.count, 498);
        assert_eq!(overflow.last_seq, 599);
        let e1 = store.incident_group(first.incident()).unwrap().unwrap();
        assert_eq!((e1.count, e1.last_seq), (50, 50));
        assert!(store
            .incident(opened[3])
            .unwrap()
            .message
            .contains("counted on this incident"));

        // Once resolved, the code opens a new incident.
        store
            .add_user(
                "admin",
                "ana",
                crate::Role::Supervisor,
                "pw-123456789",
                t(0),
            )
            .unwrap();
        store
            .resolve(first.incident(), "ana", "fixed", t(200))
            .unwrap();
        let mut batch = store
            .batch(Timestamp::from_unix_millis(1_000).unwrap())
            .unwrap();
        let after = batch
            .open_grouped_incident(&error(table, 700), &rule("E1"), t(700))
            .unwrap();
        assert!(matches!(after, Grouped::Opened(id) if id != first.incident()));
    }
}
