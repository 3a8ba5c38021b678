//! Shoes as the record knows them, for replaying one shoe without the table's whole history: where
//! each shoe starts and what the engine carried into it (derived, written by the recorder), and
//! ranged reads of the events, chunks and frames a shoe's replay needs.

use pitwatch_model::TableEvent;
use rusqlite::{params, OptionalExtension};

use crate::{Batch, ChunkId, EventRow, FrameId, SessionId, Store, StoreError, TableId};

/// Where a shoe starts in its table's stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShoeStart {
    /// The shoe, 1-based in the table's record.
    pub shoe: u32,
    /// `seq` of its first event.
    pub first_seq: u64,
    /// What the engine carried into it from the shoes before (JSON, see `pitwatch_baccarat::Carry`).
    pub carry: String,
}

/// A shoe for a list: where it starts and ends, how many rounds and incidents it has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShoeListing {
    /// The shoe.
    pub shoe: u32,
    /// `seq` of its first event.
    pub first_seq: u64,
    /// `seq` of its last event so far.
    pub last_seq: u64,
    /// When its first event happened (ms since the Unix epoch), if the event says.
    pub started_ms: Option<i64>,
    /// When its last event happened, if the event says.
    pub ended_ms: Option<i64>,
    /// Rounds recorded in it.
    pub rounds: u32,
    /// Incidents opened in it.
    pub incidents: u32,
}

fn seq_i64(seq: u64) -> i64 {
    i64::try_from(seq).unwrap_or(i64::MAX)
}

impl Batch<'_> {
    /// Records where shoe `shoe` of `table` starts and what the engine carried into it.
    pub fn record_shoe(
        &mut self,
        table: TableId,
        shoe: u32,
        first_seq: u64,
        carry: &str,
    ) -> Result<(), StoreError> {
        let at = self.now.to_string();
        self.put_fact(
            &crate::facts::SHOES,
            &[
                ("table_id", table.0.into()),
                ("shoe", i64::from(shoe).into()),
                ("first_seq", seq_i64(first_seq).into()),
                ("carry", carry.into()),
            ],
            &at,
        )
    }
}

impl Store {
    /// Where shoe `shoe` of `table` starts, if recorded.
    pub fn shoe_start(&self, table: TableId, shoe: u32) -> Result<Option<ShoeStart>, StoreError> {
        Ok(self
            .conn
            .query_row(
                "SELECT shoe, first_seq, carry FROM shoes WHERE table_id = ?1 AND shoe = ?2",
                params![table.0, shoe],
                |r| {
                    Ok(ShoeStart {
                        shoe: r.get(0)?,
                        first_seq: r.get::<_, i64>(1)?.max(0) as u64,
                        carry: r.get(2)?,
                    })
                },
            )
            .optional()?)
    }

    /// The latest shoe of `table` recorded, if any.
    pub fn last_shoe(&self, table: TableId) -> Result<Option<u32>, StoreError> {
        Ok(self.conn.query_row(
            "SELECT MAX(shoe) FROM shoes WHERE table_id = ?1",
            [table.0],
            |r| r.get(0),
        )?)
    }

    /// The last `seq` of `table`'s stream, if it has events.
    pub fn last_seq(&self, table: TableId) -> Result<Option<u64>, StoreError> {
        let seq: Option<i64> = self.conn.query_row(
            "SELECT MAX(seq) FROM events WHERE table_id = ?1",
            [table.0],
            |r| r.get(0),
        )?;
        Ok(seq.map(|s| s.max(0) as u64))
    }

    /// Up to `limit` shoes of `table` numbered below `before` (all if `None`), newest first, each
    /// with its time span and its counts of rounds and incidents. Reads only those shoes' rows.
    pub fn shoe_listing(
        &self,
        table: TableId,
        before: Option<u32>,
        limit: u32,
    ) -> Result<Vec<ShoeListing>, StoreError> {
        let mut statement = self.conn.prepare(
            "SELECT shoe, first_seq, \
             (SELECT MIN(n.first_seq) FROM shoes n WHERE n.table_id = s.table_id AND n.shoe > s.shoe) \
             FROM shoes s WHERE table_id = ?1 AND shoe < ?2 ORDER BY shoe DESC LIMIT ?3",
        )?;
        let before = before.map_or(i64::MAX, i64::from);
        let starts = statement
            .query_map(params![table.0, before, limit], |r| {
                Ok((
                    r.get::<_, u32>(0)?,
                    r.get::<_, i64>(1)?,
                    r.get::<_, Option<i64>>(2)?,
                ))
            })?
            .collect::<Result<Vec<_>, _>>()?;
        let mut out = Vec::with_capacity(starts.len());
        for (shoe, first, next) in starts {
            let at = |sql: &str, seq: i64| -> Result<Option<(i64, Option<i64>)>, StoreError> {
                Ok(self
                    .conn
                    .query_row(sql, params![table.0, seq], |r| Ok((r.get(0)?, r.get(1)?)))
                    .optional()?)
            };
            let started = at(
                "SELECT seq, at_ms FROM events WHERE table_id = ?1 AND seq >= ?2 ORDER BY seq LIMIT 1",
                first,
            )?;
            let ended = at(
                "SELECT seq, at_ms FROM events WHERE table_id = ?1 AND seq < ?2 ORDER BY seq DESC LIMIT 1",
                next.unwrap_or(i64::MAX),
            )?;
            let rounds: u32 = self.conn.query_row(
                "SELECT COUNT(*) FROM rounds WHERE table_id = ?1 AND shoe = ?2",
                params![table.0, shoe],
                |r| r.get(0),
            )?;
            let incidents: u32 = self.conn.query_row(
                "SELECT COUNT(*) FROM incidents WHERE table_id = ?1 AND shoe = ?2",
                params![table.0, shoe],
                |r| r.get(0),
            )?;
            out.push(ShoeListing {
                shoe,
                first_seq: first.max(0) as u64,
                last_seq: ended.map_or(first, |(seq, _)| seq).max(0) as u64,
                started_ms: started.and_then(|(_, at)| at),
                ended_ms: ended.and_then(|(_, at)| at),
                rounds,
                incidents,
            });
        }
        Ok(out)
    }

    /// How many results were declared at `table` in shoe `shoe` (its `result_declared` events):
    /// the shoe's rounds as its chained events give them, for a copy of a record that holds no
    /// derived rounds (the central copy, issue 16).
    pub fn results_declared(&self, table: TableId, shoe: &ShoeListing) -> Result<u32, StoreError> {
        Ok(self.conn.query_row(
            "SELECT COUNT(*) FROM events WHERE table_id = ?1 AND seq >= ?2 AND seq <= ?3 \
             AND kind = 'result_declared'",
            params![
                table.0,
                i64::try_from(shoe.first_seq).unwrap_or(i64::MAX),
                i64::try_from(shoe.last_seq).unwrap_or(i64::MAX)
            ],
            |r| r.get(0),
        )?)
    }

    /// The body (JSON) of round `round` of shoe `shoe` of `table` as recorded live, if any.
    pub fn round(
        &self,
        table: TableId,
        shoe: u32,
        round: u32,
    ) -> Result<Option<String>, StoreError> {
        Ok(self
            .conn
            .query_row(
                "SELECT body FROM rounds WHERE table_id = ?1 AND shoe = ?2 AND round = ?3",
                params![table.0, shoe, round],
                |r| r.get(0),
            )
            .optional()?)
    }

    /// The events of `table` with `seq` from `from` to `to` (inclusive), in order.
    pub fn event_rows_between(
        &self,
        table: TableId,
        from: u64,
        to: u64,
    ) -> Result<Vec<EventRow>, StoreError> {
        let mut statement = self.conn.prepare(
            "SELECT session_id, frame_id, body FROM events WHERE table_id = ?1 AND seq BETWEEN ?2 AND ?3 \
             ORDER BY seq",
        )?;
        let rows = statement.query_map(params![table.0, seq_i64(from), seq_i64(to)], |r| {
            Ok((
                r.get::<_, Option<i64>>(0)?,
                r.get::<_, Option<i64>>(1)?,
                r.get::<_, String>(2)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (session, frame, body) = row?;
            let event = serde_json::from_str::<TableEvent>(&body).map_err(|e| {
                StoreError::NotADatabase(format!("an event row does not decode: {e}"))
            })?;
            out.push(EventRow {
                session: session.map(SessionId),
                frame: frame.map(FrameId),
                event,
            });
        }
        Ok(out)
    }

    /// The `card_drawn` events of `table` with `seq` from `from` to `to` (inclusive), in order:
    /// what a shoe's card order (shuffle integrity) is read from, without the other events.
    pub fn card_events_between(
        &self,
        table: TableId,
        from: u64,
        to: u64,
    ) -> Result<Vec<TableEvent>, StoreError> {
        let mut statement = self.conn.prepare(
            "SELECT body FROM events WHERE table_id = ?1 AND seq BETWEEN ?2 AND ?3 \
             AND kind = 'card_drawn' ORDER BY seq",
        )?;
        let rows = statement.query_map(params![table.0, seq_i64(from), seq_i64(to)], |r| {
            r.get::<_, String>(0)
        })?;
        let mut out = Vec::new();
        for body in rows {
            out.push(serde_json::from_str::<TableEvent>(&body?).map_err(|e| {
                StoreError::NotADatabase(format!("an event row does not decode: {e}"))
            })?);
        }
        Ok(out)
    }

    /// Whether the record holds `table`'s event `seq` (not, where it was archived).
    pub fn has_event(&self, table: TableId, seq: u64) -> Result<bool, StoreError> {
        Ok(self
            .conn
            .prepare_cached("SELECT 1 FROM events WHERE table_id = ?1 AND seq = ?2")?
            .exists(params![table.0, seq_i64(seq)])?)
    }

    /// The starts of `table`'s shoes numbered `first` to `last` (inclusive) that are recorded, as
    /// (shoe, first `seq`), ascending.
    pub fn shoe_starts(
        &self,
        table: TableId,
        first: u32,
        last: u32,
    ) -> Result<Vec<(u32, u64)>, StoreError> {
        let mut statement = self.conn.prepare(
            "SELECT shoe, first_seq FROM shoes WHERE table_id = ?1 AND shoe BETWEEN ?2 AND ?3 \
             ORDER BY shoe",
        )?;
        let rows = statement.query_map(params![table.0, first, last], |r| {
            Ok((r.get::<_, u32>(0)?, r.get::<_, i64>(1)?.max(0) as u64))
        })?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }

    /// The chunk a frame was decoded from (for the frames a session's end left over, its last).
    pub fn frame_chunk(&self, frame: FrameId) -> Result<ChunkId, StoreError> {
        self.conn
            .query_row(
                "SELECT chunk_id FROM frames WHERE id = ?1",
                [frame.0],
                |r| r.get(0).map(ChunkId),
            )
            .optional()?
            .ok_or_else(|| StoreError::NotFound(format!("no frame {}", frame.0)))
    }

    /// The last chunk of a session, if it has any.
    pub fn last_chunk(&self, session: SessionId) -> Result<Option<ChunkId>, StoreError> {
        let id: Option<i64> = self.conn.query_row(
            "SELECT MAX(id) FROM raw_chunks WHERE session_id = ?1",
            [session.0],
            |r| r.get(0),
        )?;
        Ok(id.map(ChunkId))
    }

    /// A session's last frame, if it has any in the record.
    pub fn last_frame(&self, session: SessionId) -> Result<Option<FrameId>, StoreError> {
        let id: Option<i64> = self.conn.query_row(
            "SELECT MAX(id) FROM frames WHERE session_id = ?1",
            [session.0],
            |r| r.get(0),
        )?;
        Ok(id.map(FrameId))
    }

    /// A session's chunks up to and including `last`: (host receive time in ms, bytes), in order.
    pub fn chunks_until(
        &self,
        session: SessionId,
        last: ChunkId,
    ) -> Result<Vec<(i64, Vec<u8>)>, StoreError> {
        let mut statement = self.conn.prepare(
            "SELECT received_at_ms, bytes FROM raw_chunks WHERE session_id = ?1 AND id <= ?2 ORDER BY id",
        )?;
        let rows =
            statement.query_map(params![session.0, last.0], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The ids of a session's frames up to and including `last`, in order.
    pub fn frame_ids_until(
        &self,
        session: SessionId,
        last: FrameId,
    ) -> Result<Vec<FrameId>, StoreError> {
        let mut statement = self
            .conn
            .prepare("SELECT id FROM frames WHERE session_id = ?1 AND id <= ?2 ORDER BY id")?;
        let rows = statement.query_map(params![session.0, last.0], |r| r.get(0).map(FrameId))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// One device session of the record, with its device.
    pub fn session(&self, session: SessionId) -> Result<crate::SessionRow, StoreError> {
        let table: i64 = self
            .conn
            .query_row(
                "SELECT table_id FROM device_sessions WHERE id = ?1",
                [session.0],
                |r| r.get(0),
            )
            .optional()?
            .ok_or_else(|| StoreError::NotFound(format!("no session {}", session.0)))?;
        self.sessions(TableId(table))?
            .into_iter()
            .find(|s| s.id == session)
            .ok_or_else(|| StoreError::NotFound(format!("no session {}", session.0)))
    }
}
