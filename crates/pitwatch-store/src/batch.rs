//! A batch: a group of appends in one transaction, each chained row hashed over its content and
//! the chain's head, committed with a checkpoint signed by the installation's key; and the chain
//! heads a batch begins from.

use std::collections::HashMap;

use pitwatch_model::{TableEvent, Timestamp};
use rusqlite::types::{ToSqlOutput, Value, ValueRef};
use rusqlite::{params, Connection, OptionalExtension, ToSql};

use crate::chain::{self, Chain, Hash, CHAINS, GENESIS};
use crate::open::Seal;
use crate::seal::{self, CheckpointText};
use crate::{facts, migrate, ChunkId, FrameId, SessionId, StoreError, TableId};

/// The head of one chain: the last row's id and hash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Head {
    pub(crate) last_id: i64,
    pub(crate) hash: Hash,
}

/// Journal lines (at most one a second each) between two writes of the journals' markers: an
/// hour's worth, so a first check after any run reads at most about an hour of journal.
const VOUCH_EVERY: u64 = 3600;

pub(crate) fn load_heads(conn: &Connection) -> Result<HashMap<&'static str, Head>, StoreError> {
    let chains = if migrate::version(conn)? >= migrate::SEALED {
        CHAINS
    } else {
        chain::LEGACY_CHAINS
    };
    load_chain_heads(conn, chains)
}

pub(crate) fn load_chain_heads(
    conn: &Connection,
    chains: &[Chain],
) -> Result<HashMap<&'static str, Head>, StoreError> {
    let mut heads = HashMap::new();
    for chain in chains {
        let head = conn
            .query_row(
                &format!(
                    "SELECT id, hash FROM {} ORDER BY id DESC LIMIT 1",
                    chain.table
                ),
                [],
                |r| Ok((r.get::<_, i64>(0)?, r.get::<_, Vec<u8>>(1)?)),
            )
            .optional()?;
        let head = match head {
            None => Head {
                last_id: 0,
                hash: GENESIS,
            },
            Some((last_id, hash)) => Head {
                last_id,
                hash: hash.try_into().unwrap_or(GENESIS),
            },
        };
        heads.insert(chain.table, head);
    }
    Ok(heads)
}

/// A group of appends in one transaction. Dropped without [`Batch::commit`], nothing is written.
pub struct Batch<'a> {
    pub(crate) tx: rusqlite::Transaction<'a>,
    pub(crate) heads: HashMap<&'static str, Head>,
    /// The heads when the batch began: a batch that appended nothing needs no checkpoint.
    pub(crate) start: HashMap<&'static str, Head>,
    pub(crate) store_heads: &'a mut HashMap<&'static str, Head>,
    pub(crate) seal: Option<&'a mut Seal>,
    pub(crate) now: Timestamp,
}

/// A value for a chained row's column.
pub(crate) enum Field<'v> {
    Int(i64),
    OptInt(Option<i64>),
    Text(&'v str),
    OptText(Option<&'v str>),
    Blob(&'v [u8]),
}

impl ToSql for Field<'_> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(match self {
            Field::Int(i) => ToSqlOutput::Owned(Value::Integer(*i)),
            Field::OptInt(Some(i)) => ToSqlOutput::Owned(Value::Integer(*i)),
            Field::OptInt(None) | Field::OptText(None) => ToSqlOutput::Owned(Value::Null),
            Field::Text(t) | Field::OptText(Some(t)) => {
                ToSqlOutput::Borrowed(ValueRef::Text(t.as_bytes()))
            }
            Field::Blob(b) => ToSqlOutput::Borrowed(ValueRef::Blob(b)),
        })
    }
}

impl Field<'_> {
    fn value_ref(&self) -> ValueRef<'_> {
        match self {
            Field::Int(i) | Field::OptInt(Some(i)) => ValueRef::Integer(*i),
            Field::OptInt(None) | Field::OptText(None) => ValueRef::Null,
            Field::Text(t) | Field::OptText(Some(t)) => ValueRef::Text(t.as_bytes()),
            Field::Blob(b) => ValueRef::Blob(b),
        }
    }
}

/// Appends one row to `chain` on `conn`, whose heads are `heads`; `fields` are the content
/// columns after `id`.
pub(crate) fn append_row(
    conn: &Connection,
    heads: &mut HashMap<&'static str, Head>,
    chain: &Chain,
    fields: &[Field<'_>],
) -> Result<(i64, Hash), StoreError> {
    let head = heads.get(chain.table).copied().unwrap_or(Head {
        last_id: 0,
        hash: GENESIS,
    });
    let id = head.last_id + 1;
    let mut values = Vec::with_capacity(fields.len() + 1);
    values.push(ValueRef::Integer(id));
    values.extend(fields.iter().map(Field::value_ref));
    let hash = chain::row_hash(chain, &head.hash, &values);
    let placeholders: Vec<String> = (1..=chain.columns.len() + 2)
        .map(|i| format!("?{i}"))
        .collect();
    let sql = format!(
        "INSERT INTO {} ({}, prev_hash, hash) VALUES ({})",
        chain.table,
        chain.columns.join(", "),
        placeholders.join(", ")
    );
    let mut statement = conn.prepare_cached(&sql)?;
    let id_field = Field::Int(id);
    let prev_field = Field::Blob(&head.hash);
    let hash_field = Field::Blob(&hash);
    let mut all: Vec<&dyn ToSql> = Vec::with_capacity(fields.len() + 3);
    all.push(&id_field);
    all.extend(fields.iter().map(|f| f as &dyn ToSql));
    all.push(&prev_field);
    all.push(&hash_field);
    statement.execute(all.as_slice())?;
    heads.insert(chain.table, Head { last_id: id, hash });
    Ok((id, hash))
}

impl Batch<'_> {
    /// Appends one row to `chain`; `fields` are the content columns after `id`.
    pub(crate) fn append(
        &mut self,
        chain: &Chain,
        fields: &[Field<'_>],
    ) -> Result<i64, StoreError> {
        append_row(&self.tx, &mut self.heads, chain, fields).map(|(id, _)| id)
    }

    /// Records that a session ended, and why (a session already ended keeps its first end).
    pub fn end_session(
        &mut self,
        session: SessionId,
        now: Timestamp,
        reason: &str,
    ) -> Result<(), StoreError> {
        let open: bool = self
            .tx
            .query_row(
                "SELECT ended_at IS NULL FROM device_sessions WHERE id = ?1",
                [session.0],
                |r| r.get(0),
            )
            .optional()?
            .unwrap_or(false);
        if !open {
            return Ok(());
        }
        let at = now.to_string();
        self.put_fact(
            &facts::DEVICE_SESSIONS,
            &[
                ("id", session.0.into()),
                ("ended_at", at.as_str().into()),
                ("end_reason", reason.into()),
            ],
            &at,
        )
    }

    /// The id the next row of a derived table gets.
    pub(crate) fn next_id(&self, table: &str) -> Result<i64, StoreError> {
        Ok(self.tx.query_row(
            &format!("SELECT COALESCE(MAX(id), 0) + 1 FROM {table}"),
            [],
            |r| r.get(0),
        )?)
    }

    /// Journals bytes exactly as received from a device session, with the host receive time.
    pub fn append_chunk(
        &mut self,
        session: SessionId,
        received_at: Timestamp,
        bytes: &[u8],
    ) -> Result<ChunkId, StoreError> {
        self.append(
            &chain::RAW_CHUNKS,
            &[
                Field::Int(session.0),
                Field::Int(received_at.unix_millis()),
                Field::Blob(bytes),
            ],
        )
        .map(ChunkId)
    }

    /// Records what the codec made of some of those bytes: a frame accepted, or rejected and why.
    pub fn append_frame(
        &mut self,
        session: SessionId,
        chunk: ChunkId,
        received_at: Timestamp,
        bytes: &[u8],
        rejection: Option<&str>,
    ) -> Result<FrameId, StoreError> {
        self.append(
            &chain::FRAMES,
            &[
                Field::Int(session.0),
                Field::Int(chunk.0),
                Field::Int(received_at.unix_millis()),
                Field::Blob(bytes),
                Field::Int(i64::from(rejection.is_none())),
                Field::OptText(rejection),
            ],
        )
        .map(FrameId)
    }

    /// Records a canonical table event, with the session and frame it came from when known.
    pub fn append_event(
        &mut self,
        table: TableId,
        session: Option<SessionId>,
        frame: Option<FrameId>,
        event: &TableEvent,
    ) -> Result<i64, StoreError> {
        let body = event.to_json_line();
        let seq = i64::try_from(event.seq).unwrap_or(i64::MAX);
        self.append(
            &chain::EVENTS,
            &[
                Field::Int(table.0),
                Field::OptInt(session.map(|s| s.0)),
                Field::OptInt(frame.map(|f| f.0)),
                Field::Int(seq),
                Field::Text(event.kind.name()),
                Field::OptInt(event.at.map(Timestamp::unix_millis)),
                Field::Text(&body),
            ],
        )
    }

    /// Records a user's action (or a command sent to a device) in the audit log.
    pub fn append_audit(
        &mut self,
        user: &str,
        action: &str,
        subject: &str,
        detail: &str,
        now: Timestamp,
    ) -> Result<i64, StoreError> {
        let at = now.to_string();
        self.append(
            &chain::AUDIT_LOG,
            &[
                Field::Text(user),
                Field::Text(action),
                Field::Text(subject),
                Field::Text(detail),
                Field::Text(&at),
            ],
        )
    }

    /// Records (or replaces) a round as the engine derived it. Rounds are derived data, rebuilt by
    /// replay, so they are not chained.
    pub fn record_round(
        &mut self,
        table: TableId,
        shoe: u32,
        round: u32,
        first_seq: u64,
        last_seq: u64,
        body: &str,
    ) -> Result<(), StoreError> {
        self.tx.execute(
            "INSERT INTO rounds (table_id, shoe, round, first_seq, last_seq, body) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6) \
             ON CONFLICT (table_id, shoe, round) DO UPDATE SET \
             first_seq = excluded.first_seq, last_seq = excluded.last_seq, body = excluded.body",
            params![
                table.0,
                shoe,
                round,
                i64::try_from(first_seq).unwrap_or(i64::MAX),
                i64::try_from(last_seq).unwrap_or(i64::MAX),
                body
            ],
        )?;
        Ok(())
    }

    /// Commits everything in the batch at once (durably, before returning), ending with a
    /// checkpoint signed by the installation's key when anything was appended; the checkpoint
    /// then goes to the journals (see [`witness`](crate::witness)).
    pub fn commit(mut self) -> Result<(), StoreError> {
        let mut witnessed = None;
        if self.heads != self.start {
            if let Some(seal) = self.seal.as_deref() {
                let heads: Vec<(i64, Hash)> = chain::SIGNED
                    .iter()
                    .map(|c| {
                        self.heads
                            .get(c.table)
                            .map_or((0, GENESIS), |h| (h.last_id, h.hash))
                    })
                    .collect();
                let previous = self
                    .heads
                    .get(chain::CHECKPOINTS.table)
                    .copied()
                    .unwrap_or(Head {
                        last_id: 0,
                        hash: GENESIS,
                    });
                let id = previous.last_id + 1;
                let at = self.now.to_string();
                let signed = seal::Signed {
                    record: &seal.record,
                    id,
                    at: &at,
                    heads: &heads,
                    prev: &previous.hash,
                };
                let signature = seal.key.sign(&signed.message());
                let public_key = seal.key.public();
                let counts: Vec<i64> = heads.iter().map(|(n, _)| *n).collect();
                let (_, hash) = append_row(
                    &self.tx,
                    &mut self.heads,
                    &chain::CHECKPOINTS,
                    &[
                        Field::Text(&at),
                        Field::Text(&seal::counts_text(&counts)),
                        Field::Blob(&public_key.to_bytes()),
                        Field::Blob(&signature),
                    ],
                )?;
                witnessed = Some(CheckpointText {
                    record: hex::encode(seal.record),
                    id,
                    at,
                    hash,
                    key: public_key.fingerprint(),
                });
            }
        }
        self.tx.commit()?;
        *self.store_heads = self.heads;
        if let Some(seal) = self.seal {
            seal.record_written = true;
            if let Some(text) = witnessed {
                seal.witness.checkpoint(text, self.now.unix_millis(), false);
                // Every so many lines, the journals' markers move up to their end (see
                // `witness::summarize_vouched`): the next start-up reads at most that many.
                if seal.witness.written() >= seal.vouched_at + VOUCH_EVERY {
                    seal.vouched_at = seal.witness.written();
                    seal.witness.vouch(&seal.key);
                }
            }
        }
        Ok(())
    }
}
