//! Fuzzes the Blackjack and Pontoon engines (`crates/games/blackjack` on the game seam's shoe
//! tracker): random event sequences (box and dealer cards out of turn, decisions on any hand,
//! shuffles, cuts and cutting cards anywhere, interruptions) never panic, and outputs and views
//! are always available.
#![no_main]

#[path = "gen.rs"]
mod gen;

use gen::Bytes;
use libfuzzer_sys::fuzz_target;
use pitwatch_blackjack::{Book, Engine};
use pitwatch_model::TableEvent;
use pitwatch_rules::Game;

/// The built-in books, parsed once.
fn books() -> &'static [Book] {
    static BOOKS: std::sync::OnceLock<Vec<Book>> = std::sync::OnceLock::new();
    BOOKS.get_or_init(|| {
        pitwatch_blackjack::book::BUILTIN
            .iter()
            .map(|id| Book::builtin(id).expect("a built-in book"))
            .collect()
    })
}

fuzz_target!(|data: &[u8]| {
    let mut bytes = Bytes(data);
    let Some(which) = bytes.byte() else {
        return;
    };
    let book = books()[usize::from(which) % books().len()].clone();
    let mut engine = Engine::new(book);
    let mut seq = 1u64;
    while let Some(op) = bytes.byte() {
        if op % 32 == 0 {
            // Pitwatch was not listening for a while.
            engine.interrupt();
        } else {
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
        while engine.poll_output().is_some() {}
        let _ = engine.view();
    }
    engine.finish();
    while engine.poll_output().is_some() {}
});
