//! Chained facts, and the tables derived from them.
//!
//! Some of what people see changes in place: a table's rule book, a device session's end, a
//! user's role or password, where a shoe starts and what the engine carried into it. Such state
//! lives in ordinary tables (`pit_tables`, `devices`, `device_sessions`, `users`, `shoes`,
//! `meta`) that queries can index, but every write to them is first a *fact*: a row of the
//! chained `facts` table naming the derived table, and the new values of the row's columns. The
//! derived table is changed in the same transaction, by one function ([`Batch::put_fact`]), so it
//! is always what the facts say; [`derived_problems`] rebuilds every derived table from the facts
//! and compares, so a row edited, added or removed behind the store's back is found.

use std::collections::HashMap;

use rusqlite::types::{Value, ValueRef};
use rusqlite::Connection;
use serde_json::{Map, Value as Json};
use sha2::{Digest, Sha256};

use crate::chain::{self, Hash};
use crate::{Batch, Field, StoreError};

/// A table whose rows are derived from facts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Derived {
    /// The SQL table.
    pub table: &'static str,
    /// The columns that identify a row.
    pub key: &'static [&'static str],
    /// Every column, in the order rows are compared.
    pub columns: &'static [&'static str],
}

/// Pit tables: name, game, rule book (its name, and its TOML as it was when it judged the table).
pub const PIT_TABLES: Derived = Derived {
    table: "pit_tables",
    key: &["id"],
    columns: &["id", "name", "game", "rule_book", "created_at", "book"],
};
/// Devices as first seen.
pub const DEVICES: Derived = Derived {
    table: "devices",
    key: &["id"],
    columns: &[
        "id",
        "protocol",
        "make",
        "model",
        "serial",
        "firmware",
        "settings",
        "port",
        "first_seen_at",
    ],
};
/// Device sessions: connect and disconnect.
pub const DEVICE_SESSIONS: Derived = Derived {
    table: "device_sessions",
    key: &["id"],
    columns: &[
        "id",
        "table_id",
        "device_id",
        "started_at",
        "ended_at",
        "end_reason",
    ],
};
/// User accounts: role, password hash, whether active.
pub const USERS: Derived = Derived {
    table: "users",
    key: &["name"],
    columns: &[
        "id",
        "name",
        "role",
        "password_hash",
        "created_at",
        "active",
    ],
};
/// Where each shoe starts and what the engine carried into it.
pub const SHOES: Derived = Derived {
    table: "shoes",
    key: &["table_id", "shoe"],
    columns: &["table_id", "shoe", "first_seq", "carry"],
};
/// Installation facts (the record's id, the site's name).
pub const META: Derived = Derived {
    table: "meta",
    key: &["key"],
    columns: &["key", "value"],
};

/// Incidents that stand for a group of like irregularities, with the count (see [`crate::groups`]).
pub const INCIDENT_GROUPS: Derived = Derived {
    table: "incident_groups",
    key: &["incident_id"],
    columns: &[
        "incident_id",
        "table_id",
        "group_key",
        "count",
        "last_seq",
        "last_at",
    ],
};

/// Every derived table, in the order verification reports them.
pub const DERIVED: &[Derived] = &[
    PIT_TABLES,
    DEVICES,
    DEVICE_SESSIONS,
    USERS,
    SHOES,
    META,
    INCIDENT_GROUPS,
];

fn derived_named(name: &str) -> Option<&'static Derived> {
    DERIVED.iter().find(|d| d.table == name)
}

/// Whether the record's schema has `table` (a record from before a migration that added it does
/// not).
pub(crate) fn table_exists(conn: &Connection, table: &str) -> Result<bool, StoreError> {
    Ok(conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1)",
        [table],
        |r| r.get(0),
    )?)
}

/// A value of a derived row's column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FactValue {
    /// SQL NULL.
    Null,
    /// An integer.
    Int(i64),
    /// Text.
    Text(String),
}

impl From<i64> for FactValue {
    fn from(v: i64) -> FactValue {
        FactValue::Int(v)
    }
}
impl From<&str> for FactValue {
    fn from(v: &str) -> FactValue {
        FactValue::Text(v.to_owned())
    }
}
impl From<String> for FactValue {
    fn from(v: String) -> FactValue {
        FactValue::Text(v)
    }
}
impl From<Option<&str>> for FactValue {
    fn from(v: Option<&str>) -> FactValue {
        v.map_or(FactValue::Null, FactValue::from)
    }
}

impl FactValue {
    fn json(&self) -> Json {
        match self {
            FactValue::Null => Json::Null,
            FactValue::Int(i) => Json::from(*i),
            FactValue::Text(t) => Json::from(t.as_str()),
        }
    }

    fn sql(&self) -> Value {
        match self {
            FactValue::Null => Value::Null,
            FactValue::Int(i) => Value::Integer(*i),
            FactValue::Text(t) => Value::Text(t.clone()),
        }
    }

    fn from_json(json: &Json) -> Option<FactValue> {
        match json {
            Json::Null => Some(FactValue::Null),
            Json::Number(n) => n.as_i64().map(FactValue::Int),
            Json::String(s) => Some(FactValue::Text(s.clone())),
            _ => None,
        }
    }
}

impl Batch<'_> {
    /// Records a fact about a row of `derived` (the new values of some of its columns, the key
    /// columns among them) and applies it to the derived table: a new row, or the named columns
    /// of the existing one changed.
    pub(crate) fn put_fact(
        &mut self,
        derived: &Derived,
        values: &[(&str, FactValue)],
        at: &str,
    ) -> Result<(), StoreError> {
        put(&self.tx, &mut self.heads, derived, values, at)
    }
}

/// [`Batch::put_fact`] on a connection whose chain heads are `heads`.
pub(crate) fn put(
    conn: &Connection,
    heads: &mut HashMap<&'static str, crate::Head>,
    derived: &Derived,
    values: &[(&str, FactValue)],
    at: &str,
) -> Result<(), StoreError> {
    let mut body = Map::new();
    for (column, value) in values {
        debug_assert!(
            derived.columns.contains(column),
            "{column} of {}",
            derived.table
        );
        body.insert((*column).to_owned(), value.json());
    }
    let subject = key_text(derived, |c| body.get(c).cloned().unwrap_or(Json::Null));
    let body = Json::Object(body).to_string();
    crate::append_row(
        conn,
        heads,
        &chain::FACTS,
        &[
            Field::Text(derived.table),
            Field::Text(&subject),
            Field::Text(&body),
            Field::Text(at),
        ],
    )?;
    apply(conn, derived, values)
}

/// The key of a row as text, for the fact's `subject` (`3`, `"ana"`, `[2,7]`).
fn key_text(derived: &Derived, value: impl Fn(&str) -> Json) -> String {
    if derived.key.len() == 1 {
        value(derived.key[0]).to_string()
    } else {
        Json::Array(derived.key.iter().map(|c| value(c)).collect()).to_string()
    }
}

/// Applies a chained fact as stored (its kind and JSON body) to its derived table: how a record
/// rebuilt from its chains alone (see [`crate::outbox`]) gets its derived tables back.
pub(crate) fn apply_stored(conn: &Connection, kind: &str, body: &str) -> Result<(), StoreError> {
    let derived = derived_named(kind).ok_or_else(|| {
        StoreError::Invalid(format!("a fact names {kind:?}, not a derived table"))
    })?;
    let Ok(Json::Object(body)) = serde_json::from_str::<Json>(body) else {
        return Err(StoreError::Invalid(format!(
            "a fact about {kind} has a body that is not a JSON object"
        )));
    };
    let values: Vec<(&str, FactValue)> = derived
        .columns
        .iter()
        .filter_map(|c| {
            body.get(*c)
                .map(|v| (*c, FactValue::from_json(v).unwrap_or(FactValue::Null)))
        })
        .collect();
    apply(conn, derived, &values)
}

/// Applies a fact's values to the derived table.
fn apply(
    conn: &Connection,
    derived: &Derived,
    values: &[(&str, FactValue)],
) -> Result<(), StoreError> {
    let key: Vec<&(&str, FactValue)> = values
        .iter()
        .filter(|(c, _)| derived.key.contains(c))
        .collect();
    if key.len() != derived.key.len() {
        return Err(StoreError::Invalid(format!(
            "a fact about {} must name its key ({})",
            derived.table,
            derived.key.join(", ")
        )));
    }
    let key_clause = key
        .iter()
        .enumerate()
        .map(|(i, (c, _))| format!("{c} = ?{}", i + 1))
        .collect::<Vec<_>>()
        .join(" AND ");
    let key_values: Vec<Value> = key.iter().map(|(_, v)| v.sql()).collect();
    let exists = conn
        .prepare_cached(&format!(
            "SELECT 1 FROM {} WHERE {key_clause}",
            derived.table
        ))?
        .exists(rusqlite::params_from_iter(key_values.iter()))?;
    let others: Vec<&(&str, FactValue)> = values
        .iter()
        .filter(|(c, _)| !derived.key.contains(c))
        .collect();
    if exists {
        if others.is_empty() {
            return Ok(());
        }
        let sets = others
            .iter()
            .enumerate()
            .map(|(i, (c, _))| format!("{c} = ?{}", key.len() + i + 1))
            .collect::<Vec<_>>()
            .join(", ");
        let mut args = key_values;
        args.extend(others.iter().map(|(_, v)| v.sql()));
        conn.prepare_cached(&format!(
            "UPDATE {} SET {sets} WHERE {key_clause}",
            derived.table
        ))?
        .execute(rusqlite::params_from_iter(args.iter()))?;
    } else {
        let columns: Vec<&str> = values.iter().map(|(c, _)| *c).collect();
        let placeholders: Vec<String> = (1..=values.len()).map(|i| format!("?{i}")).collect();
        let args: Vec<Value> = values.iter().map(|(_, v)| v.sql()).collect();
        conn.prepare_cached(&format!(
            "INSERT INTO {} ({}) VALUES ({})",
            derived.table,
            columns.join(", "),
            placeholders.join(", ")
        ))?
        .execute(rusqlite::params_from_iter(args.iter()))?;
    }
    Ok(())
}

/// Every row `derived` holds, as fact values in key order (a record from before facts were
/// kept: see the upgrade in [`crate::migrate`]).
pub(crate) fn existing_rows(
    conn: &Connection,
    derived: &Derived,
) -> Result<Vec<Vec<(&'static str, FactValue)>>, StoreError> {
    let sql = format!(
        "SELECT {} FROM {} ORDER BY {}",
        derived.columns.join(", "),
        derived.table,
        derived.key.join(", ")
    );
    let mut statement = conn.prepare(&sql)?;
    let rows = statement.query_map([], |r| {
        derived
            .columns
            .iter()
            .enumerate()
            .map(|(i, c)| {
                Ok((
                    *c,
                    match r.get_ref(i)? {
                        ValueRef::Null => FactValue::Null,
                        ValueRef::Integer(n) => FactValue::Int(n),
                        ValueRef::Text(t) => {
                            FactValue::Text(String::from_utf8_lossy(t).into_owned())
                        }
                        ValueRef::Real(x) => FactValue::Text(x.to_string()),
                        ValueRef::Blob(b) => FactValue::Text(hex::encode(b)),
                    },
                ))
            })
            .collect::<rusqlite::Result<Vec<_>>>()
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The digest of one derived row (its values in column order, encoded as chains encode them).
fn row_digest(values: &[ValueRef<'_>]) -> Hash {
    let mut hasher = Sha256::new();
    chain::hash_values(&mut hasher, values);
    hasher.finalize().into()
}

/// A derived table that does not say what the chained facts say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DerivedProblem {
    /// The derived table.
    pub table: &'static str,
    /// The row's key.
    pub key: String,
    /// What does not match.
    pub reason: String,
}

impl std::fmt::Display for DerivedProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} row {}: {}", self.table, self.key, self.reason)
    }
}

/// Rebuilds every derived table from the chained facts (and `incident_status` from the chained
/// incident changes) and compares them with the tables as stored. Memory: a digest per row.
pub fn derived_problems(conn: &Connection) -> Result<Vec<DerivedProblem>, StoreError> {
    let mut problems = Vec::new();
    // Rebuild: the latest values of each row, merged fact by fact, kept as full rows only while
    // building, then reduced to digests.
    let mut rows: HashMap<&'static str, HashMap<String, Vec<FactValue>>> = HashMap::new();
    {
        let mut statement = conn.prepare("SELECT id, kind, body FROM facts ORDER BY id")?;
        let mut cursor = statement.query([])?;
        while let Some(r) = cursor.next()? {
            let id: i64 = r.get(0)?;
            let kind: String = r.get(1)?;
            let body: String = r.get(2)?;
            let Some(derived) = derived_named(&kind) else {
                problems.push(DerivedProblem {
                    table: "facts",
                    key: id.to_string(),
                    reason: format!("names {kind:?}, which is not a derived table"),
                });
                continue;
            };
            let Ok(Json::Object(body)) = serde_json::from_str::<Json>(&body) else {
                problems.push(DerivedProblem {
                    table: "facts",
                    key: id.to_string(),
                    reason: "its body is not a JSON object".into(),
                });
                continue;
            };
            let key = key_text(derived, |c| body.get(c).cloned().unwrap_or(Json::Null));
            let row = rows
                .entry(derived.table)
                .or_default()
                .entry(key)
                .or_insert_with(|| vec![FactValue::Null; derived.columns.len()]);
            for (i, column) in derived.columns.iter().enumerate() {
                if let Some(value) = body.get(*column) {
                    row[i] = FactValue::from_json(value).unwrap_or(FactValue::Null);
                }
            }
        }
    }
    for derived in DERIVED {
        if !table_exists(conn, derived.table)? {
            // A derived table a later migration adds, in a record from before it: no row to
            // compare, and no fact may name it.
            if rows.remove(derived.table).is_some_and(|r| !r.is_empty()) {
                problems.push(DerivedProblem {
                    table: derived.table,
                    key: String::new(),
                    reason: "facts name this table, which the record's schema does not have".into(),
                });
            }
            continue;
        }
        let mut expected: HashMap<String, Hash> = rows
            .remove(derived.table)
            .unwrap_or_default()
            .into_iter()
            .map(|(key, values)| {
                let refs: Vec<ValueRef<'_>> = values
                    .iter()
                    .map(|v| match v {
                        FactValue::Null => ValueRef::Null,
                        FactValue::Int(i) => ValueRef::Integer(*i),
                        FactValue::Text(t) => ValueRef::Text(t.as_bytes()),
                    })
                    .collect();
                (key, row_digest(&refs))
            })
            .collect();
        let sql = format!(
            "SELECT {} FROM {}",
            derived.columns.join(", "),
            derived.table
        );
        let mut statement = conn.prepare(&sql)?;
        let mut cursor = statement.query([])?;
        while let Some(r) = cursor.next()? {
            let values: Vec<ValueRef<'_>> = (0..derived.columns.len())
                .map(|i| r.get_ref(i))
                .collect::<Result<_, _>>()?;
            let key = key_text(derived, |c| {
                let i = derived.columns.iter().position(|x| *x == c).unwrap_or(0);
                match values[i] {
                    ValueRef::Integer(n) => Json::from(n),
                    ValueRef::Text(t) => Json::from(String::from_utf8_lossy(t).into_owned()),
                    _ => Json::Null,
                }
            });
            match expected.remove(&key) {
                None => problems.push(DerivedProblem {
                    table: derived.table,
                    key,
                    reason: "no chained fact made this row (it was added behind the record's back)"
                        .into(),
                }),
                Some(digest) if digest != row_digest(&values) => problems.push(DerivedProblem {
                    table: derived.table,
                    key,
                    reason: "it differs from what the chained facts say (it was altered)".into(),
                }),
                Some(_) => {}
            }
        }
        let mut missing: Vec<String> = expected.into_keys().collect();
        missing.sort();
        for key in missing {
            problems.push(DerivedProblem {
                table: derived.table,
                key,
                reason: "the chained facts have this row but the table does not (it was deleted)"
                    .into(),
            });
        }
    }
    problems.extend(status_problems(conn)?);
    Ok(problems)
}

/// Rebuilds each incident's current status from its chained changes and compares.
fn status_problems(conn: &Connection) -> Result<Vec<DerivedProblem>, StoreError> {
    let mut latest: HashMap<i64, String> = HashMap::new();
    {
        let mut statement =
            conn.prepare("SELECT incident_id, status FROM incident_changes ORDER BY id")?;
        let mut cursor = statement.query([])?;
        while let Some(r) = cursor.next()? {
            latest.insert(r.get(0)?, r.get(1)?);
        }
    }
    let mut problems = Vec::new();
    let mut statement = conn.prepare("SELECT incident_id, status FROM incident_status")?;
    let mut cursor = statement.query([])?;
    while let Some(r) = cursor.next()? {
        let id: i64 = r.get(0)?;
        let status: String = r.get(1)?;
        match latest.remove(&id) {
            None => problems.push(DerivedProblem {
                table: "incident_status",
                key: id.to_string(),
                reason: "no chained change gives this incident a status".into(),
            }),
            Some(chained) if chained != status => problems.push(DerivedProblem {
                table: "incident_status",
                key: id.to_string(),
                reason: format!("says {status:?} but its chained changes say {chained:?}"),
            }),
            Some(_) => {}
        }
    }
    let mut missing: Vec<i64> = latest.into_keys().collect();
    missing.sort_unstable();
    for id in missing {
        problems.push(DerivedProblem {
            table: "incident_status",
            key: id.to_string(),
            reason: "the incident has chained changes but no status row (it was deleted)".into(),
        });
    }
    Ok(problems)
}
