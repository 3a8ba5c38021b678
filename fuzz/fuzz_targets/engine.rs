//! Fuzzes the rules engine: random event sequences (every kind of event, cards and targets out
//! of order, odd counts, resumes and interruptions) never panic, and outputs and views are always
//! available.
#![no_main]

#[path = "gen.rs"]
mod gen;

use gen::Bytes;
use libfuzzer_sys::fuzz_target;
use pitwatch_model::TableEvent;
use pitwatch_baccarat::{Engine, RuleBook};

/// The built-in rule books, parsed once (parsing one costs more than running most inputs).
fn books() -> &'static [RuleBook] {
    static BOOKS: std::sync::OnceLock<Vec<RuleBook>> = std::sync::OnceLock::new();
    BOOKS.get_or_init(|| {
        ["nz-baccarat", "nz-baccarat-continuous", "macau-baccarat"]
            .iter()
            .map(|id| RuleBook::builtin(id).expect("a built-in rule book"))
            .collect()
    })
}

fuzz_target!(|data: &[u8]| {
    let mut bytes = Bytes(data);
    let Some(which) = bytes.byte() else {
        return;
    };
    let book = books()[usize::from(which) % books().len()].clone();
    let mut engine = Engine::new(book.clone());
    let mut seq = 1u64;
    while let Some(op) = bytes.byte() {
        match op % 32 {
            // Pitwatch was not listening for a while.
            0 => engine.interrupt(),
            // A restart: a new engine from what the old one carried into its shoe. (Not the
            // same state as the stream whole: only that resuming never panics.)
            1 => engine = Engine::resume(book.clone(), engine.shoe_carry().clone()),
            _ => {
                let Some(kind) = bytes.event() else {
                    break;
                };
                let mut event = TableEvent::new(seq, kind);
                if bytes.byte().is_some_and(|b| b % 4 == 0) {
                    // Sequence numbers out of order, repeated or far ahead.
                    event.seq = seq.saturating_sub(u64::from(op % 3)) + u64::from(op % 5) * 1000;
                }
                engine.handle_event(&event);
                seq += 1;
            }
        }
        while engine.poll_output().is_some() {}
        let _ = engine.view();
    }
    engine.finish();
    while engine.poll_output().is_some() {}
});
