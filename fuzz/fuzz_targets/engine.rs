//! Fuzzes the rules engine: random event sequences (every kind of event, cards and targets out
//! of order, odd counts, resumes and interruptions) never panic, and outputs and views are always
//! available.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pitwatch_model::{
    Card, EventKind, ExposedDuring, Outcome, Rank, ShufflerKind, Suit, TableEvent, TableState,
    Target,
};
use pitwatch_rules::{Engine, RuleBook};

/// Reads small numbers from the input.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn byte(&mut self) -> Option<u8> {
        let (&b, rest) = self.0.split_first()?;
        self.0 = rest;
        Some(b)
    }

    fn pick<T: Copy>(&mut self, from: &[T]) -> Option<T> {
        Some(from[usize::from(self.byte()?) % from.len()])
    }

    fn maybe<T>(&mut self, f: impl FnOnce(&mut Self) -> Option<T>) -> Option<Option<T>> {
        Some(if self.byte()? % 3 == 0 { None } else { f(self) })
    }

    fn card(&mut self) -> Option<Card> {
        Some(Card::new(self.pick(&Rank::ALL)?, self.pick(&Suit::ALL)?))
    }

    fn target(&mut self) -> Option<Target> {
        let n = self.byte()?;
        Some(match self.byte()? % 7 {
            0 => Target::Player,
            1 => Target::Banker,
            2 => Target::First,
            3 => Target::Burn,
            4 => Target::Dealer,
            5 => Target::Box(n),
            _ => Target::Seat(n),
        })
    }

    fn event(&mut self) -> Option<EventKind> {
        Some(match self.byte()? % 16 {
            0 => EventKind::Shuffled {
                decks: self.maybe(|b| b.byte())?,
                cards: self.maybe(|b| b.byte().map(|x| u32::from(x) * 4))?,
                shuffler: self.maybe(|b| b.pick(ShufflerKind::ALL))?,
            },
            1 => EventKind::Cut {
                position: u32::from(self.byte()?) * 2,
            },
            2 => EventKind::CuttingCardPlaced {
                from_back: u32::from(self.byte()?),
            },
            3..=7 => EventKind::CardDrawn {
                card: self.maybe(|b| b.card())?,
                target: self.maybe(|b| b.target())?,
                index: self.maybe(|b| b.byte().map(|i| i % 5))?,
                face_up: self.maybe(|b| b.byte().map(|x| x % 2 == 0))?,
                retransmit: self.maybe(|b| b.byte().map(|x| x % 2 == 0))?,
            },
            8 => EventKind::CuttingCardDrawn,
            9 => EventKind::BurnCounted {
                count: u32::from(self.byte()? % 12),
            },
            10 => EventKind::ResultDeclared {
                outcome: self.pick(Outcome::ALL)?,
                player_pair: self.maybe(|b| b.byte().map(|x| x % 2 == 0))?,
                banker_pair: self.maybe(|b| b.byte().map(|x| x % 2 == 0))?,
            },
            11 => EventKind::CardExposed {
                card: self.maybe(|b| b.card())?,
                during: self.pick(ExposedDuring::ALL)?,
            },
            12 => EventKind::DeviceError {
                code: format!("E{}", self.byte()? % 8),
                text: "fuzz".into(),
            },
            13 => EventKind::DeviceErrorCleared {
                code: format!("E{}", self.byte()? % 8),
            },
            14 => EventKind::TableStateChanged {
                state: self.pick(TableState::ALL)?,
            },
            _ => match self.byte()? % 3 {
                0 => EventKind::CardsReplaced,
                1 => EventKind::BetsClosed,
                _ => EventKind::LockChanged {
                    locked: self.byte()? % 2 == 0,
                },
            },
        })
    }
}

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
