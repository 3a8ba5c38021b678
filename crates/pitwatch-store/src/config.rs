//! What a caller outside a batch sets up in the record, each change a batch of its own: a table
//! with its game and rule book (kept, so replay judges by the same rules), a device, a session
//! and its end, and an installation fact.

use pitwatch_model::Timestamp;
use rusqlite::OptionalExtension;

use crate::{facts, DeviceId, DeviceIdentity, SessionId, Store, StoreError, TableId};

impl Store {
    /// The table named `name`, created with `game` and `rule_book` if it is new.
    pub fn ensure_table(
        &mut self,
        name: &str,
        game: &str,
        rule_book: &str,
        now: Timestamp,
    ) -> Result<TableId, StoreError> {
        self.configure_table(name, game, rule_book, None, now)
    }

    /// The table named `name`, judged by `rule_book` whose TOML is `book` (kept in the record,
    /// so replay judges it by the same rules): created if new; if its game or rule book changed
    /// since recorded, the change is recorded (a chained fact).
    pub fn configure_table(
        &mut self,
        name: &str,
        game: &str,
        rule_book: &str,
        book: Option<&str>,
        now: Timestamp,
    ) -> Result<TableId, StoreError> {
        let existing: Option<(i64, String, String, Option<String>)> = self
            .conn
            .query_row(
                "SELECT id, game, rule_book, book FROM pit_tables WHERE name = ?1",
                [name],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
            )
            .optional()?;
        let at = now.to_string();
        let mut batch = self.batch(now)?;
        let id = match existing {
            Some((id, g, r, b))
                if g == game && r == rule_book && (book.is_none() || b.as_deref() == book) =>
            {
                return Ok(TableId(id));
            }
            Some((id, _, _, _)) => {
                batch.put_fact(
                    &facts::PIT_TABLES,
                    &[
                        ("id", id.into()),
                        ("game", game.into()),
                        ("rule_book", rule_book.into()),
                        ("book", book.into()),
                    ],
                    &at,
                )?;
                id
            }
            None => {
                let id = batch.next_id("pit_tables")?;
                batch.put_fact(
                    &facts::PIT_TABLES,
                    &[
                        ("id", id.into()),
                        ("name", name.into()),
                        ("game", game.into()),
                        ("rule_book", rule_book.into()),
                        ("created_at", at.as_str().into()),
                        ("book", book.into()),
                    ],
                    &at,
                )?;
                id
            }
        };
        batch.commit()?;
        Ok(TableId(id))
    }

    /// The device with this identity, recorded on first sight.
    pub fn ensure_device(
        &mut self,
        device: &DeviceIdentity,
        now: Timestamp,
    ) -> Result<DeviceId, StoreError> {
        let mut batch = self.batch(now)?;
        let id = batch.ensure_device(device, now)?;
        batch.commit()?;
        Ok(id)
    }

    /// Records that `device` connected to `table`.
    pub fn start_session(
        &mut self,
        table: TableId,
        device: DeviceId,
        now: Timestamp,
    ) -> Result<SessionId, StoreError> {
        let mut batch = self.batch(now)?;
        let id = batch.start_session(table, device, now)?;
        batch.commit()?;
        Ok(id)
    }

    /// Records that a session ended, and why (a session already ended keeps its first end).
    pub fn end_session(
        &mut self,
        session: SessionId,
        now: Timestamp,
        reason: &str,
    ) -> Result<(), StoreError> {
        let mut batch = self.batch(now)?;
        batch.end_session(session, now, reason)?;
        batch.commit()
    }

    /// Sets an installation fact (e.g. `site`).
    pub fn set_meta(&mut self, key: &str, value: &str, now: Timestamp) -> Result<(), StoreError> {
        if self.meta(key)?.as_deref() == Some(value) {
            return Ok(());
        }
        let at = now.to_string();
        let mut batch = self.batch(now)?;
        batch.put_fact(
            &facts::META,
            &[("key", key.into()), ("value", value.into())],
            &at,
        )?;
        batch.commit()
    }
}
