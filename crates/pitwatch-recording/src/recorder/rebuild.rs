//! The engine a recorder resumes a table with, rebuilt from the record: from the carry stored with
//! the start of the table's last shoe (or from its first event when no stored carry reads under
//! the book), running the recorded events from there, with the shuffle watch beside it.
//!
//! Live, a recorder does this when it starts ([`super::TableRecorder::resume`]). Replay does the
//! same at each point where the table was resumed under another rule book ([`crate::replay`]),
//! so that what was judged after the change is judged again by the same engine in the same state,
//! and replay still equals live.

use pitwatch_games::{GameBook, TableEngine};
use pitwatch_shuffle::ShuffleWatch;
use pitwatch_store::{Store, StoreError, TableId};

/// The engine and shuffle watch as a recorder resuming a table rebuilds them.
pub(crate) struct Rebuilt {
    /// The engine, after every event before the resumption (its outputs drained: they were
    /// recorded with those events).
    pub engine: TableEngine,
    /// The shuffle watch beside it, for a book with `[shuffle]` thresholds.
    pub shuffle: Option<ShuffleWatch>,
    /// Each shoe the run began: (shoe, its first `seq`, the carry into it as JSON).
    pub shoes: Vec<(u32, u64, String)>,
    /// The `seq` of the last event run (0 for none).
    pub last_seq: u64,
    /// Whether the run began at the table's first event (no stored carry resumed).
    pub whole: bool,
    /// The last shoe whose start was stored before the resumption.
    pub stored: Option<u32>,
}

/// Rebuilds `table`'s engine under `book` from the events recorded before `before` (`u64::MAX`:
/// every event on record), as a recorder resuming there does.
pub(crate) fn rebuild(
    store: &Store,
    table: TableId,
    name: &str,
    book: &GameBook,
    before: u64,
) -> Result<Rebuilt, StoreError> {
    let resumes = super::resume_points(store, name)?;
    let stored = store.last_shoe_before(table, before)?;
    // A shoe start stored without a carry (`null`: a Blackjack, Pontoon or poker shoe recorded
    // before their tables kept one), or with one this build does not read, is rebuilt from the
    // first event.
    let last_start = match stored {
        Some(last) => store.shoe_start(table, last)?.and_then(|start| {
            TableEngine::resume(book, &start.carry).map(|engine| (start.first_seq, engine))
        }),
        None => None,
    };
    let whole = last_start.is_none();
    // The shuffle watch resumes with the recorded orders of the shoes before the last one.
    let mut shuffle = match (crate::shuffle::shuffle_book(book), stored, &last_start) {
        (Some(judged_by), Some(last), Some(_)) => Some(crate::shuffle::resumed_watch(
            store, table, judged_by, last,
        )?),
        (Some(judged_by), _, _) => Some(ShuffleWatch::new(judged_by)),
        (None, _, _) => None,
    };
    let last_wanted = before.saturating_sub(1);
    let (mut engine, rows) = match last_start {
        Some((first_seq, engine)) => (
            engine,
            store.event_rows_between(table, first_seq, last_wanted)?,
        ),
        None => (
            TableEngine::new(book.clone()),
            store.event_rows_between(table, 0, last_wanted)?,
        ),
    };
    let mut last_seq = 0;
    let mut shoes = Vec::new();
    for row in rows {
        if resumes.contains(&row.event.seq) {
            engine.interrupt();
        }
        let shoe = engine.shoe();
        engine.handle_event(&row.event);
        if let Some(shuffle) = shuffle.as_mut() {
            shuffle.observe(&row.event);
        }
        if engine.shoe() != shoe {
            shoes.push((engine.shoe(), row.event.seq, engine.carry_json()));
            // Judged live when it was recorded (or recorded before shuffles were judged).
            if let Some(shuffle) = shuffle.as_mut() {
                let _ = shuffle.shoe_started(engine.shoe(), row.event.seq);
            }
        }
        last_seq = row.event.seq;
    }
    // The outputs of the events already recorded were recorded with them.
    while engine.poll_output().is_some() {}
    Ok(Rebuilt {
        engine,
        shuffle,
        shoes,
        last_seq,
        whole,
        stored,
    })
}
