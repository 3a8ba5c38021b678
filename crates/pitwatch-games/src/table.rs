//! The table of any game: [`TableEngine`], an enum over the engines (Baccarat's in
//! `pitwatch-rules`, Blackjack and Pontoon's in `pitwatch-blackjack`, poker's in `pitwatch-poker`),
//! so the recorder, the monitor, replay and reports follow a table of any of these games the same
//! way, with no `Box<dyn>`. Rounds, outputs and views say which game they are about
//! ([`GameRound`], [`GameView`]).
//!
//! A Baccarat table's outputs serialise exactly as Baccarat's own (`GameRound` is untagged and a
//! Baccarat round is its `RoundRecord`), so Baccarat's record and replay output do not change;
//! a Blackjack round and a poker hand carry their own `game` field.

use pitwatch_baccarat::{Engine, TableView};
use pitwatch_blackjack as blackjack;
use pitwatch_model::TableEvent;
use pitwatch_poker as poker;
use pitwatch_rules::{Game as _, TableOutput};

use crate::book::GameBook;
use serde::Serialize;

/// One round of any game, serialised as the game's own round record.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum GameRound {
    /// A Baccarat coup.
    Baccarat(pitwatch_baccarat::RoundRecord),
    /// A Blackjack or Pontoon round.
    Blackjack(Box<blackjack::RoundRecord>),
    /// A poker hand.
    Poker(Box<poker::HandRecord>),
}

impl GameRound {
    /// The game (`baccarat`, `blackjack`, `pontoon`).
    pub fn game(&self) -> &'static str {
        match self {
            GameRound::Baccarat(_) => "baccarat",
            GameRound::Blackjack(r) => r.game,
            GameRound::Poker(_) => "poker",
        }
    }

    /// The shoe, 1-based.
    pub fn shoe(&self) -> u32 {
        match self {
            GameRound::Baccarat(r) => r.shoe,
            GameRound::Blackjack(r) => r.shoe,
            GameRound::Poker(r) => r.shoe,
        }
    }

    /// The round within the shoe, 1-based.
    pub fn round(&self) -> u32 {
        match self {
            GameRound::Baccarat(r) => r.round,
            GameRound::Blackjack(r) => r.round,
            GameRound::Poker(r) => r.round,
        }
    }

    /// `seq` of the round's first event.
    pub fn first_seq(&self) -> u64 {
        match self {
            GameRound::Baccarat(r) => r.first_seq,
            GameRound::Blackjack(r) => r.first_seq,
            GameRound::Poker(r) => r.first_seq,
        }
    }

    /// `seq` of the round's last card.
    pub fn last_seq(&self) -> u64 {
        match self {
            GameRound::Baccarat(r) => r.last_seq,
            GameRound::Blackjack(r) => r.last_seq,
            GameRound::Poker(r) => r.last_seq,
        }
    }

    /// The Baccarat coup, if this is one.
    pub fn baccarat(&self) -> Option<&pitwatch_baccarat::RoundRecord> {
        match self {
            GameRound::Baccarat(r) => Some(r),
            GameRound::Blackjack(_) | GameRound::Poker(_) => None,
        }
    }
}

/// What a table's engine outputs: rounds of its game, irregularities, shoe summaries and cleared
/// device errors, as `type`-tagged JSON objects (a Baccarat table's exactly as Baccarat's
/// [`pitwatch_baccarat::Output`]).
pub type GameOutput = TableOutput<GameRound>;

fn from_baccarat(output: pitwatch_baccarat::Output) -> GameOutput {
    use pitwatch_baccarat::Output;
    match output {
        Output::Round(r) => TableOutput::Round(GameRound::Baccarat(r)),
        Output::Irregularity(i) => TableOutput::Irregularity(i),
        Output::Shoe(s) => TableOutput::Shoe(s),
        Output::DeviceErrorCleared(c) => TableOutput::DeviceErrorCleared(c),
    }
}

fn from_poker(output: poker::Output) -> GameOutput {
    match output {
        poker::Output::Hand(h) => TableOutput::Round(GameRound::Poker(Box::new(h))),
        poker::Output::Irregularity(i) => TableOutput::Irregularity(i),
        poker::Output::Shoe(s) => TableOutput::Shoe(s),
        poker::Output::DeviceErrorCleared(c) => TableOutput::DeviceErrorCleared(c),
    }
}

fn from_blackjack(output: blackjack::Output) -> GameOutput {
    match output {
        TableOutput::Round(r) => TableOutput::Round(GameRound::Blackjack(Box::new(r))),
        TableOutput::Irregularity(i) => TableOutput::Irregularity(i),
        TableOutput::Shoe(s) => TableOutput::Shoe(s),
        TableOutput::DeviceErrorCleared(c) => TableOutput::DeviceErrorCleared(c),
    }
}

/// The table as its engine sees it, by game.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum GameView {
    /// A Baccarat table.
    Baccarat(Box<TableView>),
    /// A Blackjack or Pontoon table.
    Blackjack(Box<blackjack::View>),
    /// A poker table.
    Poker(Box<poker::View>),
}

impl GameView {
    /// The current shoe, 1-based, or 0 before any.
    pub fn shoe(&self) -> u32 {
        match self {
            GameView::Baccarat(v) => v.shoe,
            GameView::Blackjack(v) => v.shoe,
            GameView::Poker(v) => v.shoe,
        }
    }

    /// `seq` of the last event handled.
    pub fn last_seq(&self) -> Option<u64> {
        match self {
            GameView::Baccarat(v) => v.last_seq,
            GameView::Blackjack(v) => v.last_seq,
            GameView::Poker(v) => v.last_seq,
        }
    }

    /// The device errors the engine has open (raised and not yet cleared, carried across a
    /// restart).
    pub fn open_device_errors(&self) -> u32 {
        match self {
            GameView::Baccarat(v) => v.open_device_errors,
            GameView::Blackjack(v) => v.open_device_errors,
            GameView::Poker(v) => v.open_device_errors,
        }
    }

    /// The table in brief as JSON, for a replay's steps (a Baccarat table's exactly as
    /// Baccarat's compact view).
    pub fn compact_json(&self) -> serde_json::Value {
        match self {
            GameView::Baccarat(v) => serde_json::to_value(v.compact()).unwrap_or_default(),
            GameView::Blackjack(v) => serde_json::json!({
                "game": v.game,
                "shoe": v.shoe,
                "phase": v.phase,
                "cards_dealt": v.cards_dealt,
                "cards_left": v.cards_left,
                "rounds_completed": v.rounds_completed,
                "round": v.round,
                "open_device_errors": v.open_device_errors,
            }),
            GameView::Poker(v) => serde_json::json!({
                "game": v.game,
                "shoe": v.shoe,
                "phase": v.phase,
                "hands": v.last_round.as_ref().map_or(0, |h| h.hand),
                "hand": v.round,
                "open_device_errors": v.open_device_errors,
            }),
        }
    }

    /// The table in brief, one line for a terminal (`pitwatch replay --steps`).
    pub fn compact_line(&self) -> String {
        match self {
            GameView::Baccarat(v) => v.compact().to_string(),
            GameView::Blackjack(v) => {
                let mut line = format!("shoe {} {} cards {}", v.shoe, v.phase, v.cards_dealt);
                if let Some(left) = v.cards_left {
                    line.push_str(&format!(" left {left}"));
                }
                line.push_str(&format!(" rounds {}", v.rounds_completed));
                if let Some(r) = &v.round {
                    line.push_str(&format!(
                        " | round {} dealer {} cards, {} box(es)",
                        r.round,
                        r.dealer.len(),
                        r.boxes.len()
                    ));
                }
                line.push_str(&format!(" | errors {}", v.open_device_errors));
                line
            }
            GameView::Poker(v) => {
                let mut line = format!("deck {} {}", v.shoe, v.phase);
                if let Some(h) = &v.round {
                    line.push_str(&format!(
                        " | hand {} {} seat(s){}",
                        h.hand,
                        h.seats.len(),
                        h.misdeal
                            .map(|m| format!(" misdeal ({})", m.as_str()))
                            .unwrap_or_default()
                    ));
                }
                line.push_str(&format!(" | errors {}", v.open_device_errors));
                line
            }
        }
    }

    /// The Baccarat view, if this is one.
    pub fn baccarat(&self) -> Option<&TableView> {
        match self {
            GameView::Baccarat(v) => Some(v),
            GameView::Blackjack(_) | GameView::Poker(_) => None,
        }
    }
}

/// The engine of a table, by its rule book's game.
#[derive(Debug, Clone)]
pub enum TableEngine {
    /// Baccarat's engine.
    Baccarat(Box<Engine>),
    /// The Blackjack and Pontoon engine.
    Blackjack(Box<blackjack::Engine>),
    /// The poker engine.
    Poker(Box<poker::Engine>),
}

impl TableEngine {
    /// A fresh engine for a table under `book`, before any event.
    pub fn new(book: GameBook) -> TableEngine {
        match book {
            GameBook::Baccarat(book) => TableEngine::Baccarat(Box::new(Engine::new(book))),
            GameBook::Blackjack(book) => {
                TableEngine::Blackjack(Box::new(blackjack::Engine::new(*book)))
            }
            GameBook::Poker(book) => TableEngine::Poker(Box::new(poker::Engine::new(*book))),
        }
    }

    /// An engine resumed at the start of a shoe with what the engine carried into it (stored
    /// with the shoe's start, [`TableEngine::carry_json`]), or `None` when the carry does not
    /// read (a Blackjack, Pontoon or poker shoe recorded before their tables kept a carry has
    /// `null`, and a Baccarat shoe recorded before Baccarat ran on the shared tracker has the
    /// old engine's: such a table is rebuilt from its first event).
    pub fn resume(book: &GameBook, carry: &str) -> Option<TableEngine> {
        match book {
            GameBook::Baccarat(book) => {
                let carry = pitwatch_baccarat::read_carry(carry)?;
                Some(TableEngine::Baccarat(Box::new(Engine::resume(
                    book.clone(),
                    carry,
                ))))
            }
            GameBook::Blackjack(book) => {
                let carry: blackjack::Carry = serde_json::from_str(carry).ok()?;
                Some(TableEngine::Blackjack(Box::new(blackjack::Engine::resume(
                    (**book).clone(),
                    carry,
                ))))
            }
            GameBook::Poker(book) => {
                let carry: poker::Carry = serde_json::from_str(carry).ok()?;
                Some(TableEngine::Poker(Box::new(poker::Engine::resume(
                    (**book).clone(),
                    carry,
                ))))
            }
        }
    }

    /// What the engine carried into its current shoe, as stored with the shoe's start.
    pub fn carry_json(&self) -> String {
        let json = match self {
            TableEngine::Baccarat(engine) => serde_json::to_string(engine.shoe_carry()),
            TableEngine::Blackjack(engine) => serde_json::to_string(engine.shoe_carry()),
            TableEngine::Poker(engine) => serde_json::to_string(engine.shoe_carry()),
        };
        json.unwrap_or_else(|_| "{}".into())
    }

    /// The current shoe, 1-based, or 0 before any.
    pub fn shoe(&self) -> u32 {
        match self {
            TableEngine::Baccarat(engine) => engine.shoe(),
            TableEngine::Blackjack(engine) => engine.shoe(),
            TableEngine::Poker(engine) => engine.shoe(),
        }
    }

    /// Feeds one event.
    pub fn handle_event(&mut self, event: &TableEvent) {
        match self {
            TableEngine::Baccarat(engine) => engine.handle_event(event),
            TableEngine::Blackjack(engine) => engine.handle_event(event),
            TableEngine::Poker(engine) => engine.handle_event(event),
        }
    }

    /// The next output, oldest first.
    pub fn poll_output(&mut self) -> Option<GameOutput> {
        match self {
            TableEngine::Baccarat(engine) => engine.poll_output().map(from_baccarat),
            TableEngine::Blackjack(engine) => engine.poll_output().map(from_blackjack),
            TableEngine::Poker(engine) => engine.poll_output().map(from_poker),
        }
    }

    /// Ends the stream.
    pub fn finish(&mut self) {
        match self {
            TableEngine::Baccarat(engine) => engine.finish(),
            TableEngine::Blackjack(engine) => engine.finish(),
            TableEngine::Poker(engine) => engine.finish(),
        }
    }

    /// The stream was cut off here.
    pub fn interrupt(&mut self) {
        match self {
            TableEngine::Baccarat(engine) => engine.interrupt(),
            TableEngine::Blackjack(engine) => engine.interrupt(),
            TableEngine::Poker(engine) => engine.interrupt(),
        }
    }

    /// The table as it stands.
    pub fn view(&self) -> GameView {
        match self {
            TableEngine::Baccarat(engine) => GameView::Baccarat(Box::new(engine.view())),
            TableEngine::Blackjack(engine) => GameView::Blackjack(Box::new(engine.view())),
            TableEngine::Poker(engine) => GameView::Poker(Box::new(engine.view())),
        }
    }
}
