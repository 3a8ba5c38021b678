//! The rule books a table has been judged by, each from the event it took effect at: written when
//! a table resumes under a book other than the one it was recorded with (a pit definition changed
//! between two runs), so replay judges every part of the stream by the rules that were in force
//! when it was dealt, as the live recorder did, rather than by the book recorded last.
//!
//! Each change is an installation fact of its own ([`book_from_key`]: the table and the first
//! `seq` judged by the book, zero-padded so the keys sort as the events do), chained like every
//! fact and checked by verification. The first change also writes the book the table had before
//! it, from `seq` 0, so a table's history is whole once it has changed at all; a table that never
//! changed its book has none, and is judged throughout by the book kept with it.

use pitwatch_model::Timestamp;
use rusqlite::OptionalExtension;
use serde_json::json;

use crate::{facts, Batch, Store, StoreError, TableId};

/// What every book-change fact's key starts with.
pub const BOOK_FROM_PREFIX: &str = "book_from:";

/// The fact key of the book `table` is judged by from event `from_seq` on.
pub fn book_from_key(table: TableId, from_seq: u64) -> String {
    format!("{}{}:{from_seq:020}", BOOK_FROM_PREFIX, table.0)
}

/// A rule book a table was judged by from one event on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BookFrom {
    /// The first event (`seq`) judged by it; 0 for the table's first.
    pub from_seq: u64,
    /// The book's reference, as the table's `rule_book` names it (`nz-baccarat;decks=6`).
    pub reference: String,
    /// Its TOML as kept in the record, if it was kept.
    pub text: Option<String>,
}

impl Store {
    /// The books `table` has been judged by, in the order they took effect; empty for a table
    /// whose book never changed (or that changed before these were kept), which the book kept
    /// with the table judged throughout.
    pub fn table_books(&self, table: TableId) -> Result<Vec<BookFrom>, StoreError> {
        let prefix = format!("{}{}:", BOOK_FROM_PREFIX, table.0);
        let mut statement = self
            .conn
            .prepare("SELECT key, value FROM meta WHERE key > ?1 AND key < ?2 ORDER BY key")?;
        // `;` sorts right after `:`, so the range holds exactly this table's keys.
        let end = format!("{}{};", BOOK_FROM_PREFIX, table.0);
        let rows = statement.query_map([&prefix, &end], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
        })?;
        let mut books = Vec::new();
        for row in rows {
            let (key, value) = row?;
            let bad = || StoreError::Invalid(format!("the rule-book fact {key} does not read"));
            let from_seq = key[prefix.len()..].parse().map_err(|_| bad())?;
            let body: serde_json::Value = serde_json::from_str(&value).map_err(|_| bad())?;
            books.push(BookFrom {
                from_seq,
                reference: body["reference"].as_str().ok_or_else(bad)?.to_owned(),
                text: body["text"].as_str().map(str::to_owned),
            });
        }
        Ok(books)
    }

    /// The last shoe of `table` whose recorded start comes before event `seq`.
    pub fn last_shoe_before(&self, table: TableId, seq: u64) -> Result<Option<u32>, StoreError> {
        Ok(self
            .conn
            .query_row(
                "SELECT MAX(shoe) FROM shoes WHERE table_id = ?1 AND first_seq < ?2",
                rusqlite::params![table.0, i64::try_from(seq).unwrap_or(i64::MAX)],
                |r| r.get::<_, Option<u32>>(0),
            )
            .optional()?
            .flatten())
    }
}

impl Batch<'_> {
    /// Records that `table` is judged by the book `reference` (its TOML `text`, if kept) from
    /// event `from_seq` on.
    pub fn book_from(
        &mut self,
        table: TableId,
        from_seq: u64,
        reference: &str,
        text: Option<&str>,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        let value = json!({ "reference": reference, "text": text }).to_string();
        self.put_fact(
            &facts::META,
            &[
                ("key", book_from_key(table, from_seq).as_str().into()),
                ("value", value.as_str().into()),
            ],
            &now.to_string(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tables_books_read_back_in_order_and_verified() {
        let mut store = Store::open_in_memory().expect("a store");
        let t = |ms| Timestamp::from_unix_millis(ms).expect("a time");
        let a = store
            .ensure_table("T1", "baccarat", "nz-baccarat", t(1))
            .expect("a table");
        let b = store
            .ensure_table("T2", "baccarat", "nz-baccarat", t(2))
            .expect("a table");
        assert!(store.table_books(a).expect("read").is_empty());
        let mut batch = store.batch(t(3)).expect("a batch");
        batch
            .book_from(a, 0, "nz-baccarat", Some("[book]"), t(3))
            .expect("written");
        batch
            .book_from(a, 120, "nz-baccarat;decks=6", None, t(3))
            .expect("written");
        batch
            .book_from(a, 9, "macau-baccarat", None, t(3))
            .expect("written");
        batch.book_from(b, 5, "other", None, t(3)).expect("written");
        batch.commit().expect("committed");
        let books = store.table_books(a).expect("read");
        let seqs: Vec<u64> = books.iter().map(|b| b.from_seq).collect();
        assert_eq!(seqs, [0, 9, 120], "in the order they took effect");
        assert_eq!(books[0].text.as_deref(), Some("[book]"));
        assert_eq!(books[2].reference, "nz-baccarat;decks=6");
        assert_eq!(store.table_books(b).expect("read").len(), 1, "{books:?}");
        assert!(store.verify().expect("verified").intact());
    }
}
