//! Fuzzes the rule-book reader: any text gives a rule book or a list of problems, never a panic.
//! A rule book that loads is used: an engine runs a short honest round under it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pitwatch_model::{EventKind, TableEvent};
use pitwatch_baccarat::{Engine, RuleBook};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(book) = RuleBook::from_toml(&text, "fuzz") {
        let mut engine = Engine::new(book);
        engine.handle_event(&TableEvent::new(
            1,
            EventKind::Shuffled {
                decks: None,
                cards: None,
                shuffler: None,
            },
        ));
        for (seq, card) in ["AS", "KD", "9H", "2C", "5S", "7D"].iter().enumerate() {
            engine.handle_event(&TableEvent::new(
                seq as u64 + 2,
                EventKind::CardDrawn {
                    card: card.parse().ok(),
                    target: None,
                    index: None,
                    face_up: None,
                    retransmit: None,
                },
            ));
        }
        engine.finish();
        while engine.poll_output().is_some() {}
        let _ = engine.view();
    }
});
