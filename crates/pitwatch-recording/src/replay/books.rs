//! The rule books a table was judged by over its stream, for replay: each part of the stream is
//! replayed under the book that was in force when it was dealt (`pitwatch_store::books`), not the
//! book recorded last. Where the table was resumed under another book, replay rebuilds the engine
//! under it exactly as the live recorder did when it resumed ([`crate::recorder::rebuild`]).

use pitwatch_games::GameBook;
use pitwatch_store::{Store, StoreError, TableId};

/// The books of one table, each from the first event it judged.
pub struct Books {
    /// (first `seq`, the book, its reference), in order; the first from 0.
    schedule: Vec<(u64, GameBook, String)>,
}

impl Books {
    /// The books `table` was judged by, whose current reference is `reference`: its history when
    /// it changed book while recorded, else the book kept with it throughout.
    pub fn read(store: &Store, table: TableId, reference: &str) -> Result<Books, StoreError> {
        let unreadable =
            |reference: &str, e: String| StoreError::Invalid(format!("rule book {reference}: {e}"));
        let history = store.table_books(table)?;
        let schedule = if history.is_empty() {
            let book = crate::record::recorded_book(store, table, reference)
                .map_err(|e| unreadable(reference, e))?;
            vec![(0, book, reference.to_owned())]
        } else {
            let mut schedule = Vec::with_capacity(history.len());
            for entry in history {
                let book = match &entry.text {
                    Some(text) => GameBook::from_text(text, &entry.reference),
                    None => GameBook::load(&entry.reference),
                }
                .map_err(|e| unreadable(&entry.reference, e))?;
                schedule.push((entry.from_seq, book, entry.reference));
            }
            schedule
        };
        Ok(Books { schedule })
    }

    /// The book in force at event `seq`, and its reference.
    pub fn at(&self, seq: u64) -> (&GameBook, &str) {
        let (_, book, reference) = self
            .schedule
            .iter()
            .rev()
            .find(|(from, _, _)| *from <= seq)
            .unwrap_or(&self.schedule[0]);
        (book, reference)
    }

    /// The book the table was resumed under at event `seq`, if it changed there.
    pub fn changed_at(&self, seq: u64) -> Option<&GameBook> {
        self.schedule
            .iter()
            .skip(1)
            .find(|(from, _, _)| *from == seq)
            .map(|(_, book, _)| book)
    }
}
