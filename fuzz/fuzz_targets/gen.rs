//! What the engine targets share: event sequences read from the fuzzer's bytes (every kind of
//! event, cards and targets out of order, odd counts).

use pitwatch_model::{
    Action, Card, EventKind, ExposedDuring, Outcome, Rank, ShufflerKind, Suit, TableState, Target,
};

/// Reads small numbers from the input.
pub struct Bytes<'a>(pub &'a [u8]);

impl Bytes<'_> {
    pub fn byte(&mut self) -> Option<u8> {
        let (&b, rest) = self.0.split_first()?;
        self.0 = rest;
        Some(b)
    }

    pub fn pick<T: Copy>(&mut self, from: &[T]) -> Option<T> {
        Some(from[usize::from(self.byte()?) % from.len()])
    }

    pub fn maybe<T>(&mut self, f: impl FnOnce(&mut Self) -> Option<T>) -> Option<Option<T>> {
        Some(if self.byte()? % 3 == 0 { None } else { f(self) })
    }

    pub fn card(&mut self) -> Option<Card> {
        Some(Card::new(self.pick(&Rank::ALL)?, self.pick(&Suit::ALL)?))
    }

    pub fn target(&mut self) -> Option<Target> {
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

    pub fn event(&mut self) -> Option<EventKind> {
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
            _ => match self.byte()? % 5 {
                0 => EventKind::CardsReplaced,
                4 => {
                    let cards = u32::from(self.byte()?) * 2;
                    EventKind::DeckChecked {
                        decks: self.maybe(|b| b.byte().map(|d| d % 10))?,
                        cards,
                        expected: cards + u32::from(self.byte()? % 3),
                        missing: u32::from(self.byte()? % 2),
                        extra: 0,
                        foreign: 0,
                        shuffler: None,
                    }
                }
                1 => EventKind::BetsClosed,
                2 => EventKind::Decision {
                    target: self.target()?,
                    hand: self.maybe(|b| b.byte().map(|h| h % 4))?,
                    action: self.pick(Action::ALL)?,
                },
                _ => EventKind::LockChanged {
                    locked: self.byte()? % 2 == 0,
                },
            },
        })
    }
}

