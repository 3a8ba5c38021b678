//! The engine bench's work without timing it, for counting instructions (valgrind): deals 40
//! shoes (seed 42, seven boxes) under a book, then replays them N times through a fresh engine.
//! `replay_loop N nz-blackjack|nz-pontoon`; instructions per card event =
//! (I refs at N − I refs at 0) / (N × card events), the card events printed on stderr.

use pitwatch_blackjack::dealer::{deal, Config};
use pitwatch_blackjack::{Book, Engine};
use pitwatch_model::EventKind;
use pitwatch_rules::Game;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let times: u32 = args.first().and_then(|a| a.parse().ok()).unwrap_or(1);
    let book = Book::builtin(args.get(1).map_or("nz-blackjack", String::as_str)).expect("a book");
    let dealt = deal(
        &book,
        &Config {
            seed: 42,
            shoes: 40,
            ..Config::default()
        },
    );
    let cards = dealt
        .events
        .iter()
        .filter(|e| matches!(e.kind, EventKind::CardDrawn { .. }))
        .count();
    let mut outputs = 0usize;
    for _ in 0..times {
        let mut engine = Engine::new(book.clone());
        for event in &dealt.events {
            engine.handle_event(event);
            while engine.poll_output().is_some() {
                outputs += 1;
            }
        }
        engine.finish();
        while engine.poll_output().is_some() {
            outputs += 1;
        }
    }
    eprintln!(
        "{cards} card events, {} events, {outputs} outputs",
        dealt.events.len()
    );
}
