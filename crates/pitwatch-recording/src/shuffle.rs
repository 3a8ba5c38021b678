//! Shuffle integrity from the record: each shoe's card order read from the table's recorded
//! events and shoe starts (both chained), judged by the same [`ShuffleWatch`] the recorder runs
//! live, so a shoe's quality is derived on demand and nothing new is stored. The incident a
//! suspect shoe raises is on record (opened by the recorder when the next shoe started).
//!
//! Every game's shoes are judged: Baccarat's by its [`pitwatch_baccarat::RuleBook`], every other
//! game's by the shared shoe rules of its book ([`shuffle_book`]); `SHUFFLE_SUSPECT` is raised
//! only under a book that cites a rule for it, and the others' shoes get their quality alone.

use pitwatch_games::GameBook;
use pitwatch_shuffle::{orders_from_events, Order, ShoeShuffle, ShuffleBook, ShuffleWatch};
use pitwatch_store::{Store, StoreError, TableId};

/// What a table's shuffle watch judges its shoes by, for a table of any game: a Baccarat book's
/// own, or the shared shoe rules of another game's book (every book is one or the other).
pub fn shuffle_book(book: &GameBook) -> Option<ShuffleBook> {
    match (book.baccarat(), book.shoe_rules()) {
        (Some(baccarat), _) => Some(baccarat.shuffle_terms().into()),
        (None, rules) => rules.map(Into::into),
    }
}

/// The orders of shoes `first` to `last` (inclusive) of `table` that have a recorded start, as
/// the live watch collected them.
pub fn recorded_orders(
    store: &Store,
    table: TableId,
    first: u32,
    last: u32,
) -> Result<Vec<(u32, Order)>, StoreError> {
    if first > last {
        return Ok(Vec::new());
    }
    let starts = store.shoe_starts(table, first, last)?;
    let Some(&(_, from)) = starts.first() else {
        return Ok(Vec::new());
    };
    let to = match store.shoe_starts(table, last + 1, last + 1)?.first() {
        Some(&(_, next)) => next.saturating_sub(1),
        None => u64::MAX,
    };
    let events = store.card_events_between(table, from, to)?;
    Ok(orders_from_events(&events, &starts))
}

/// A watch resumed at the start of shoe `shoe` with the recorded orders of the shoes before it.
pub fn resumed_watch(
    store: &Store,
    table: TableId,
    book: impl Into<ShuffleBook>,
    shoe: u32,
) -> Result<ShuffleWatch, StoreError> {
    let book: ShuffleBook = book.into();
    let fresh = ShuffleWatch::new(book.clone());
    let back = fresh.previous_shoes();
    let history = recorded_orders(
        store,
        table,
        shoe.saturating_sub(back).max(1),
        shoe.saturating_sub(1),
    )?;
    Ok(ShuffleWatch::resume(book, shoe, history))
}

/// The shuffle analysis of each of `shoes` of `table` (any order; shoes without a recorded start
/// are left out), from the record: complete for a shoe the next shoe has started after,
/// provisional for the shoe still being dealt (or cut off with no shoe after it yet). Reads the
/// card events of the shoes asked for and of the `previous_shoes` before the first of them, once.
pub fn shoe_shuffles(
    store: &Store,
    table: TableId,
    book: impl Into<ShuffleBook>,
    shoes: &[u32],
) -> Result<Vec<ShoeShuffle>, StoreError> {
    let (Some(&low), Some(&high)) = (shoes.iter().min(), shoes.iter().max()) else {
        return Ok(Vec::new());
    };
    let book: ShuffleBook = book.into();
    let back = ShuffleWatch::new(book.clone()).previous_shoes();
    let first = low.saturating_sub(back).max(1);
    let orders = recorded_orders(store, table, first, high)?;
    let starts = store.shoe_starts(table, first, high + 1)?;
    let mut out = Vec::new();
    for (i, (shoe, order)) in orders.iter().enumerate() {
        if !shoes.contains(shoe) {
            continue;
        }
        let mut watch = ShuffleWatch::resume(book.clone(), *shoe, orders[..i].to_vec());
        for (seq, card) in order {
            watch.observe_card(*seq, *card);
        }
        // The shoe is complete once the next one has started.
        let next = starts
            .iter()
            .find(|(s, _)| *s == shoe + 1)
            .map(|(_, seq)| *seq);
        out.extend(match next {
            Some(seq) => watch.shoe_started(shoe + 1, seq),
            None => watch.provisional(),
        });
    }
    Ok(out)
}

/// [`shoe_shuffles`] under the rule book the table was judged by, as kept in the record, for a
/// table of any game.
pub fn recorded_shoe_shuffles(
    store: &Store,
    table: TableId,
    shoes: &[u32],
) -> Result<Vec<ShoeShuffle>, StoreError> {
    let reference = store
        .tables()?
        .into_iter()
        .find(|t| t.id == table)
        .map(|t| t.rule_book)
        .ok_or_else(|| StoreError::NotFound(format!("no table {} on record", table.0)))?;
    let book = crate::record::recorded_book(store, table, &reference)
        .map_err(|e| StoreError::Invalid(format!("rule book {reference}: {e}")))?;
    match shuffle_book(&book) {
        Some(judged_by) => shoe_shuffles(store, table, judged_by, shoes),
        None => Ok(Vec::new()),
    }
}
