//! The game seam: what every card game's engine offers a table ([`Game`]), what every card game
//! shares ([`Table`], the shoe tracker: shuffles, the cut, the cutting card, the shoe's composition
//! and counts, foreign and excess cards, the end of the shoe, device errors, exposed and replaced
//! cards), and the small interface a game implements on top of it ([`RoundGame`]: start a round,
//! handle its events, close it, show it).
//!
//! Baccarat's [`crate::Engine`] implements [`Game`] directly: its shoe logic (the burn, a plain
//! shoe's resynchronisation, 12.1(b)) is interwoven with its rounds and is kept byte for byte.
//! Blackjack, Pontoon (`crates/games/blackjack`) and poker (`crates/games/poker`) are a
//! [`RoundGame`] run by a [`Table`], which carries what a shoe does not start afresh into it
//! ([`TableCarry`], in `carry.rs`), so any of their shoes can be resumed from there.
//!
//! Everything here is sans-IO like the rest of the crate: events in, outputs out.

use std::collections::VecDeque;
use std::fmt::Debug;

use pitwatch_model::deck::ShoeCounter;
use pitwatch_model::{
    Card, EventKind, ExposedDuring, ShoeComposition, ShuffleStep, ShufflerKind, TableEvent, Target,
};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::irregularity::{CodeSet, Irregularity, IrregularityCode as Code};
use crate::record::{DeviceErrorCleared, Output, ShoeSummary};
use crate::shuffler::{Limits, ShufflerFinding, ShufflerWatch};
use crate::view::Phase;

mod carry;

pub use carry::TableCarry;

/// What every game's engine offers the table that runs it: events in, outputs out, a view.
pub trait Game {
    /// What the engine outputs (rounds, irregularities, shoe summaries, cleared device errors),
    /// serialised as `type`-tagged JSON objects.
    type Output: Serialize;
    /// The table as the engine sees it.
    type View: Serialize;
    /// The game's name, as a rule book's `game` says it (`baccarat`, `blackjack`, `pontoon`).
    fn game(&self) -> &'static str;
    /// Feeds one event. Never panics, whatever the sequence.
    fn handle_event(&mut self, event: &TableEvent);
    /// The next output, oldest first.
    fn poll_output(&mut self) -> Option<Self::Output>;
    /// Ends the stream: closes an unfinished round and the current shoe.
    fn finish(&mut self);
    /// The stream was cut off here (the monitor stopped listening).
    fn interrupt(&mut self);
    /// The table as it stands.
    fn view(&self) -> Self::View;
}

impl Game for crate::Engine {
    type Output = Output;
    type View = crate::TableView;

    fn game(&self) -> &'static str {
        "baccarat"
    }

    fn handle_event(&mut self, event: &TableEvent) {
        crate::Engine::handle_event(self, event);
    }

    fn poll_output(&mut self) -> Option<Output> {
        crate::Engine::poll_output(self)
    }

    fn finish(&mut self) {
        crate::Engine::finish(self);
    }

    fn interrupt(&mut self) {
        crate::Engine::interrupt(self);
    }

    fn view(&self) -> crate::TableView {
        crate::Engine::view(self)
    }
}

/// Runs a whole event stream through `engine` and returns every output in order, those `finish`
/// gives at the end included: what each game's `replay` is.
pub fn run_stream<'a, G: Game>(
    mut engine: G,
    events: impl IntoIterator<Item = &'a TableEvent>,
) -> Vec<G::Output> {
    let mut out = Vec::new();
    for event in events {
        engine.handle_event(event);
        while let Some(o) = engine.poll_output() {
            out.push(o);
        }
    }
    engine.finish();
    while let Some(o) = engine.poll_output() {
        out.push(o);
    }
    out
}

/// One finding of a game in a round, before the table cites its rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The code.
    pub code: Code,
    /// The `[cite]` key to cite: the code, or the code with a qualifier (`NOT_SHUFFLED/first_card`),
    /// which falls back to the code's own citation when the book has none for it.
    pub cite: &'static str,
    /// The `seq` that revealed it.
    pub seq: u64,
    /// The events that make up the evidence.
    pub evidence: Vec<u64>,
    /// What happened and what the rules require, for a supervisor.
    pub message: String,
}

/// Where a game's findings go while it handles an event.
#[derive(Debug, Clone, Default)]
pub struct Findings(Vec<Finding>);

impl Findings {
    /// Adds a finding citing its code's rule.
    pub fn flag(&mut self, code: Code, seq: u64, evidence: Vec<u64>, message: String) {
        self.0.push(Finding {
            code,
            cite: code.as_str(),
            seq,
            evidence,
            message,
        });
    }

    /// Adds a finding citing a qualified rule (`[cite]` key `CODE/qualifier`).
    pub fn flag_cited(
        &mut self,
        code: Code,
        cite: &'static str,
        seq: u64,
        evidence: Vec<u64>,
        message: String,
    ) {
        self.0.push(Finding {
            code,
            cite,
            seq,
            evidence,
            message,
        });
    }

    /// Whether nothing was found.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// A game's rounds, run by a [`Table`] that follows the shoe around them.
pub trait RoundGame {
    /// A round as the game records it.
    type Round: Serialize + Clone;
    /// The round in progress, for the table view.
    type RoundView: Serialize + Clone;
    /// The game's name (`blackjack`, `pontoon`).
    fn game(&self) -> &'static str;
    /// Whether `event` belongs to a round at all (a card with a target the game places, a
    /// decision). A card without a target is counted by the table and never given to the game:
    /// a plain shoe gets the shoe-level checks only.
    fn is_round_event(&self, event: &EventKind) -> bool;
    /// Whether `event` begins a new round given the round in progress (`None` between rounds).
    fn begins_round(&self, event: &EventKind) -> bool;
    /// A round begins with the event at `seq`.
    fn start_round(&mut self, shoe: u32, number: u32, seq: u64);
    /// One event of the round in progress.
    fn handle_event(&mut self, event: &TableEvent, found: &mut Findings);
    /// Whether the round in progress needs no more cards.
    fn is_complete(&self) -> bool;
    /// Closes the round in progress at `seq` (`complete` false when the stream was cut off or
    /// ended before it was), flagging what its end shows (a dealer who stopped too soon).
    fn close_round(&mut self, seq: u64, cut_off: bool, found: &mut Findings) -> Self::Round;
    /// The round in progress.
    fn round_view(&self) -> Option<Self::RoundView>;
    /// A shuffle began a new shoe at `seq`; `deck_ok` is false when its deck check failed (the
    /// table has already flagged it). A game whose every hand is dealt from a fresh shuffle
    /// (poker) follows this; the default ignores it.
    fn shuffled(&mut self, _seq: u64, _deck_ok: bool) {}
    /// A card was exposed while dealing during the round in progress (the table has flagged it
    /// already); a game whose rules count exposed cards (Draw Poker's misdeal (i)) follows this.
    fn exposed(&mut self, _seq: u64, _card: Option<Card>, _found: &mut Findings) {}
    /// A card the shoe cannot hold (foreign, or a copy beyond the shoe's) was dealt during the
    /// round in progress (the table has flagged it already); a game whose rules make a defective
    /// deck found during a round a misdeal (poker's (h)) follows this.
    fn defective(&mut self, _seq: u64, _card: Card, _found: &mut Findings) {}
    /// The last round closed, as it was recorded (built on demand: the table keeps no copy of
    /// every round it outputs).
    fn last_round(&self) -> Option<Self::Round>;
    /// What the game carries from one shoe into the next (the last round closed, a count of
    /// rounds across shoes), taken by the table between rounds as a shoe starts; stored as JSON
    /// with the shoe's start ([`TableCarry`]).
    type Carry: Clone + Debug + Default + PartialEq + Serialize + DeserializeOwned;
    /// What the game would carry into a shoe starting now (no round is in progress).
    fn carry(&self) -> Self::Carry;
    /// Carries on from `carry`, as taken from the game that followed the shoes before.
    fn resume(&mut self, carry: Self::Carry);
}

/// What a table needs to know about the shoe from its rule book.
#[derive(Debug, Clone, PartialEq)]
pub struct ShoeRules {
    /// The book's id, cited in every irregularity.
    pub book_id: String,
    /// The shoe when a shuffle does not say.
    pub composition: ShoeComposition,
    /// Fewest decks allowed.
    pub min_decks: u8,
    /// Most decks allowed.
    pub max_decks: u8,
    /// The book's shuffler (a continuous one has no cut, cutting card or end of shoe).
    pub shuffler: ShufflerKind,
    /// The cut at least this many decks from either end, if the book limits it.
    pub cut_min_from_either_end_decks: Option<u8>,
    /// The cutting card at least this many cards from the back, if the book says.
    pub cutting_card_min_from_back: Option<u32>,
    /// The cutting card no more than half way in from the back (Pontoon 7.6).
    pub cutting_card_at_most_half_from_back: bool,
    /// `[cite]` key → rule.
    pub cite: Vec<(String, String)>,
}

impl ShoeRules {
    /// The rule to cite for `key` (`CODE` or `CODE/qualifier`, falling back to `CODE`; a
    /// device-integrity finding, `ORDER_DISCLOSED`, to the book's `DEVICE_ERROR` rule).
    pub fn cite(&self, key: &str) -> &str {
        let find = |k: &str| {
            self.cite
                .iter()
                .find(|(key, _)| key == k)
                .map(|(_, r)| r.as_str())
        };
        let code = key.split('/').next().unwrap_or(key);
        find(key)
            .or_else(|| find(code))
            .or_else(|| {
                (code == Code::OrderDisclosed.as_str())
                    .then(|| find("DEVICE_ERROR"))
                    .flatten()
            })
            .unwrap_or("no rule cited")
    }
}

/// What a table outputs, in the order it happened; the same `type`-tagged JSON as Baccarat's
/// [`Output`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum TableOutput<R> {
    /// A round was completed (or closed unfinished).
    Round(R),
    /// An irregularity was flagged.
    Irregularity(Irregularity),
    /// A shoe ended.
    Shoe(ShoeSummary),
    /// The device cleared an error.
    DeviceErrorCleared(DeviceErrorCleared),
}

/// The table as a [`Table`] sees it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GameTableView<V, R> {
    /// The game.
    pub game: &'static str,
    /// The current shoe, 1-based, or 0 before any.
    pub shoe: u32,
    /// Where the table stands (`no_shoe`, `finished`, `awaiting_shuffle`, `joining`, `dealing`,
    /// `last_round`, `shoe_ended`).
    pub phase: Phase,
    /// Whether the shoe was joined part-way or cut off.
    pub partial: bool,
    /// Whether the shoe is dealt from a continuous shuffler.
    pub continuous: bool,
    /// Decks in the shoe.
    pub decks: u8,
    /// Cards drawn from the shoe so far.
    pub cards_dealt: u32,
    /// Cards not yet drawn, when the table can know.
    pub cards_left: Option<u32>,
    /// Whether the cutting card has come out.
    pub cutting_card_out: bool,
    /// The round in progress.
    pub round: Option<V>,
    /// Rounds recorded in this shoe.
    pub rounds_completed: u32,
    /// The last round recorded in the stream.
    pub last_round: Option<R>,
    /// Device errors not yet cleared.
    pub open_device_errors: u32,
    /// `seq` of the last event handled.
    pub last_seq: Option<u64>,
}

#[derive(Debug, Clone)]
struct ShoeState {
    counter: ShoeCounter,
    continuous: bool,
    partial: bool,
    cards: u32,
    rounds: u32,
    first_seq: u64,
    last_seq: u64,
    cutting_card_out: bool,
    /// The shoe is over: the cutting card came out and its round (if any) was completed
    /// (Pontoon 7.1(b), (c)); the `seq` of the cutting card.
    ended: Option<u64>,
    /// Whether a card after the end was flagged (once a shoe).
    past_end_flagged: bool,
    replaced: bool,
    /// A plain stream's cutting card came out during a round the table cannot see: the shoe ends
    /// at the next "no more bets" (the cutting card's `seq`).
    end_at_bets: Option<u64>,
    /// Whether the last card was given to a round (a stream that reports targets).
    placing: bool,
    /// Cards since the last "no more bets", and whether one was seen in this shoe.
    cards_since_bets: u32,
    bets_seen: bool,
}

/// A counting shuffler's deck check as the open protocol's `SHUFFLE_DONE` carries it on the
/// `shuffled` event (`missing_cards`, `extra_cards`, `foreign_cards`): a count can be right while
/// a card is missing and another doubled, which only these show.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct DeckCheck {
    missing: u64,
    extra: u64,
    foreign: u64,
}

impl DeckCheck {
    pub(crate) fn of(event: &TableEvent) -> DeckCheck {
        let n = |key: &str| {
            event
                .extra
                .get(key)
                .and_then(serde_json::Value::as_u64)
                .unwrap_or(0)
        };
        DeckCheck {
            missing: n("missing_cards"),
            extra: n("extra_cards"),
            foreign: n("foreign_cards"),
        }
    }

    pub(crate) fn problem(self) -> Option<String> {
        (self != DeckCheck::default()).then(|| {
            format!(
                "the shuffler's deck check found {} missing, {} extra and {} foreign",
                self.missing, self.extra, self.foreign
            )
        })
    }
}

/// Why no card may be dealt until the next shuffle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Unshuffled {
    Replaced,
    Exposed,
}

/// The shoe tracker and round driver: follows one table's shoes under [`ShoeRules`] and runs a
/// [`RoundGame`] for its rounds.
#[derive(Debug, Clone)]
pub struct Table<G: RoundGame> {
    rules: ShoeRules,
    game: G,
    out: VecDeque<TableOutput<G::Round>>,
    shoe_no: u32,
    shoe_open: bool,
    shoe: ShoeState,
    /// The round in progress (its number), if any.
    round: Option<u32>,
    /// The irregularity of the round in progress: what else goes wrong in it joins it.
    pending: Option<Irregularity>,
    unshuffled: Option<(Unshuffled, u64)>,
    open_errors: Vec<(String, u64)>,
    last_seq: Option<u64>,
    finished: bool,
    found: Findings,
    /// The table's shuffler beside the shoe, if it reports (`deck_checked`).
    shuffler: ShufflerWatch,
    /// The hand-preparation steps the rule book requires before cards are loaded, in order
    /// (Pontoon 6.4); none for most books.
    shuffle_steps: Vec<ShuffleStep>,
    /// What was carried into the current shoe.
    carry: TableCarry<G::Carry>,
}

impl<G: RoundGame> Table<G> {
    /// A table under `rules` running `game`, before any event.
    pub fn new(rules: ShoeRules, game: G) -> Table<G> {
        let counter = rules.composition.counter();
        Table {
            shoe: ShoeState {
                counter,
                continuous: rules.shuffler == ShufflerKind::Continuous,
                partial: false,
                cards: 0,
                rounds: 0,
                first_seq: 0,
                last_seq: 0,
                cutting_card_out: false,
                ended: None,
                past_end_flagged: false,
                replaced: false,
                end_at_bets: None,
                placing: false,
                cards_since_bets: 0,
                bets_seen: false,
            },
            rules,
            game,
            out: VecDeque::new(),
            shoe_no: 0,
            shoe_open: false,
            round: None,
            pending: None,
            unshuffled: None,
            open_errors: Vec::new(),
            last_seq: None,
            finished: false,
            found: Findings::default(),
            shuffler: ShufflerWatch::default(),
            shuffle_steps: Vec::new(),
            carry: TableCarry::default(),
        }
    }

    /// The same table, requiring the hand-preparation `steps` (in this order) before each load
    /// of cards into the shuffler or the shoe: a load not preceded by them since the last is
    /// `NOT_SHUFFLED`, cited by the book's `NOT_SHUFFLED/steps` (else its `NOT_SHUFFLED`). The
    /// rule book says which steps (Pontoon's `shuffle_steps`); none requires nothing.
    pub fn require_shuffle_steps(mut self, steps: Vec<ShuffleStep>) -> Table<G> {
        self.shuffle_steps = steps;
        self
    }

    /// The game.
    pub fn game(&self) -> &G {
        &self.game
    }

    /// The shoe rules.
    pub fn rules(&self) -> &ShoeRules {
        &self.rules
    }

    /// The current shoe, 1-based, or 0 before any (what [`Table::view`] says, without building
    /// the view: a recorder asks after every event).
    pub fn shoe(&self) -> u32 {
        self.shoe_no
    }

    /// The next output, oldest first.
    pub fn poll_output(&mut self) -> Option<TableOutput<G::Round>> {
        self.out.pop_front()
    }

    /// Feeds one event. Never panics, whatever the sequence.
    pub fn handle_event(&mut self, event: &TableEvent) {
        let seq = event.seq;
        self.finished = false;
        match &event.kind {
            EventKind::Shuffled {
                decks,
                cards,
                shuffler,
            } => {
                let check = DeckCheck::of(event);
                self.on_shuffled(seq, *decks, *cards, *shuffler, check);
            }
            EventKind::Cut { position } => {
                self.ensure_shoe(seq);
                self.on_cut(seq, *position);
            }
            EventKind::CuttingCardPlaced { from_back } => {
                self.ensure_shoe(seq);
                self.on_cutting_card_placed(seq, *from_back);
            }
            EventKind::CardDrawn { card, target, .. } => {
                self.ensure_shoe(seq);
                self.on_card(event, *card, *target);
            }
            EventKind::CuttingCardDrawn => {
                self.ensure_shoe(seq);
                self.on_cutting_card(seq);
            }
            EventKind::CardExposed { card, during } => {
                self.ensure_shoe(seq);
                self.on_exposed(seq, *card, *during);
            }
            EventKind::DeviceError { code, text }
                if code == pitwatch_model::WITHHELD_ERROR_CODE =>
            {
                // Not an error the device clears: the order may be out whatever it does next.
                // Cited by the book's ORDER_DISCLOSED rule if it has one, else its DEVICE_ERROR.
                self.ensure_shoe(seq);
                let (shoe, partial) = (self.shoe_no, self.shoe.partial);
                let irregularity = self.irregularity(
                    Code::OrderDisclosed,
                    "ORDER_DISCLOSED",
                    seq,
                    vec![seq],
                    format!("Device error {code}: {text}"),
                    shoe,
                    None,
                    partial,
                );
                self.out.push_back(TableOutput::Irregularity(irregularity));
            }
            EventKind::DeviceError { code, text } => {
                self.ensure_shoe(seq);
                self.open_errors.push((code.clone(), seq));
                let shoe = self.shoe_no;
                let partial = self.shoe.partial;
                let irregularity =
                    self.irregularity(Code::DeviceError, "DEVICE_ERROR", seq, vec![seq], format!(
                        "The device reported error {code} ({text}); it stays open until the device clears it."
                    ), shoe, None, partial);
                self.out.push_back(TableOutput::Irregularity(irregularity));
            }
            EventKind::DeviceErrorCleared { code } => {
                if let Some(i) = self.open_errors.iter().position(|(c, _)| c == code) {
                    let (code, raised_seq) = self.open_errors.remove(i);
                    self.out
                        .push_back(TableOutput::DeviceErrorCleared(DeviceErrorCleared {
                            shoe: self.shoe_no,
                            code,
                            raised_seq,
                            seq,
                        }));
                }
            }
            EventKind::CardsReplaced => {
                self.ensure_shoe(seq);
                self.close_round(seq, false);
                self.unshuffled = Some((Unshuffled::Replaced, seq));
                self.shoe.replaced = true;
            }
            EventKind::BetsClosed => {
                self.ensure_shoe(seq);
                // "No more bets" comes between rounds: a round still open is over.
                self.close_round(seq, false);
                if let Some(cut) = self.shoe.end_at_bets.take() {
                    self.shoe.ended.get_or_insert(cut);
                }
                self.shoe.bets_seen = true;
                self.shoe.cards_since_bets = 0;
            }
            EventKind::Decision { .. }
            | EventKind::PlayerActed { .. }
            | EventKind::MisdealDeclared { .. } => {
                self.ensure_shoe(seq);
                self.on_round_event(event);
            }
            EventKind::DeckChecked { .. } => {
                // Cards went into the shuffler with no start seen: judged for their steps now.
                if let Some(found) = self.shuffler.load_steps(seq, &self.shuffle_steps, false) {
                    self.flag_found_as(seq, found, "NOT_SHUFFLED/steps");
                }
                let limits = Limits {
                    min_decks: self.rules.min_decks,
                    max_decks: self.rules.max_decks,
                    default_decks: self.rules.composition.decks,
                    cards_per_deck: self.rules.composition.kind.cards_per_deck(),
                };
                if let Some(found) = self.shuffler.checked(seq, &event.kind, limits) {
                    self.flag_found(seq, found);
                }
            }
            EventKind::ShuffleStarted { .. } => {
                if let Some(found) = self.shuffler.started(seq) {
                    self.flag_found(seq, found);
                }
                if let Some(found) = self.shuffler.load_steps(seq, &self.shuffle_steps, false) {
                    self.flag_found_as(seq, found, "NOT_SHUFFLED/steps");
                }
            }
            EventKind::ShuffleStep { step } => self.shuffler.step(seq, *step),
            EventKind::BurnCounted { .. }
            | EventKind::ResultDeclared { .. }
            | EventKind::LockChanged { .. }
            | EventKind::TableStateChanged { .. }
            | EventKind::ShufflerCounters { .. } => {}
        }
        if self.shoe_open {
            self.shoe.last_seq = seq;
        }
        self.last_seq = Some(seq);
    }

    /// Ends the stream: closes the round in progress and the shoe.
    pub fn finish(&mut self) {
        if self.finished {
            return;
        }
        let seq = self.last_seq.unwrap_or(0);
        self.close_round(seq, true);
        self.end_shoe();
        self.finished = true;
    }

    /// The stream was cut off here: the round in progress is closed unfinished without judging
    /// what it lacks, and the shoe becomes partial (no cards-left count, no end-of-shoe checks).
    pub fn interrupt(&mut self) {
        // What the shuffler did while nobody listened is unknown.
        self.shuffler = ShufflerWatch::default();
        if !self.shoe_open {
            return;
        }
        self.close_round(self.last_seq.unwrap_or(0), true);
        self.shoe.partial = true;
        self.unshuffled = None;
    }

    /// The table as it stands.
    pub fn view(&self) -> GameTableView<G::RoundView, G::Round> {
        let phase = if self.finished && self.shoe_no > 0 {
            Phase::Finished
        } else if self.shoe_no == 0 {
            Phase::NoShoe
        } else if self.unshuffled.is_some() {
            Phase::AwaitingShuffle
        } else if self.shoe.ended.is_some() {
            Phase::ShoeEnded
        } else if self.shoe.partial {
            Phase::Joining
        } else if self.shoe.cutting_card_out {
            Phase::LastRound
        } else {
            Phase::Dealing
        };
        let composition = self.shoe.counter.composition();
        GameTableView {
            game: self.game.game(),
            shoe: self.shoe_no,
            phase,
            partial: self.shoe.partial,
            continuous: self.shoe.continuous,
            decks: composition.decks,
            cards_dealt: self.shoe.cards,
            cards_left: self.cards_left(),
            cutting_card_out: self.shoe.cutting_card_out,
            round: self.round.and_then(|_| self.game.round_view()),
            rounds_completed: self.shoe.rounds,
            last_round: self.game.last_round(),
            open_device_errors: self.open_errors.len() as u32,
            last_seq: self.last_seq,
        }
    }

    fn cards_left(&self) -> Option<u32> {
        let known =
            self.shoe_no > 0 && !self.shoe.partial && !self.shoe.continuous && !self.shoe.replaced;
        known.then(|| self.shoe.counter.remaining())
    }

    // ----- shoes -----

    fn ensure_shoe(&mut self, seq: u64) {
        if !self.shoe_open {
            self.start_shoe(seq, self.rules.composition, None, true);
        }
    }

    fn start_shoe(
        &mut self,
        seq: u64,
        composition: ShoeComposition,
        shuffler: Option<ShufflerKind>,
        partial: bool,
    ) {
        self.close_round(seq, false);
        // Once a shoe: what survives into the new shoe, as it stands now.
        self.carry = self.carry_now();
        self.end_shoe();
        self.shoe_no += 1;
        self.shoe_open = true;
        self.shoe = ShoeState {
            counter: composition.counter(),
            continuous: self.rules.shuffler == ShufflerKind::Continuous
                || shuffler == Some(ShufflerKind::Continuous),
            partial,
            cards: 0,
            rounds: 0,
            first_seq: seq,
            last_seq: seq,
            cutting_card_out: false,
            ended: None,
            past_end_flagged: false,
            replaced: false,
            end_at_bets: None,
            placing: false,
            cards_since_bets: 0,
            bets_seen: false,
        };
    }

    fn end_shoe(&mut self) {
        if !self.shoe_open {
            return;
        }
        self.out.push_back(TableOutput::Shoe(ShoeSummary {
            shoe: self.shoe_no,
            rounds: self.shoe.rounds,
            cards: self.shoe.cards,
            partial: self.shoe.partial,
            continuous: self.shoe.continuous,
            open_device_errors: self.open_errors.len() as u32,
            first_seq: self.shoe.first_seq,
            last_seq: self.shoe.last_seq,
        }));
        self.shoe_open = false;
    }

    fn on_shuffled(
        &mut self,
        seq: u64,
        decks: Option<u8>,
        cards: Option<u32>,
        shuffler: Option<ShufflerKind>,
        check: DeckCheck,
    ) {
        let kind = self.rules.composition.kind;
        let decks_used = decks.unwrap_or(self.rules.composition.decks);
        let composition = ShoeComposition::new(decks_used.max(1), kind);
        self.unshuffled = None;
        self.start_shoe(seq, composition, shuffler, false);
        if let Some(found) = self.shuffler.load_steps(seq, &self.shuffle_steps, true) {
            self.flag_found_as(seq, found, "NOT_SHUFFLED/steps");
        }
        if let Some(found) = self.shuffler.loaded(seq, decks, cards) {
            self.flag_found(seq, found);
        }
        let mut wrong = Vec::new();
        if !(self.rules.min_decks..=self.rules.max_decks).contains(&decks_used) {
            wrong.push(format!(
                "{decks_used} decks, where the book allows {} to {}",
                self.rules.min_decks, self.rules.max_decks
            ));
        }
        if let Some(cards) = cards {
            if cards != composition.total_cards() {
                wrong.push(format!(
                    "{cards} cards counted, where {decks_used} decks of {} hold {}",
                    kind.cards_per_deck(),
                    composition.total_cards()
                ));
            }
        }
        if let Some(found) = check.problem() {
            wrong.push(found);
        }
        self.game.shuffled(seq, wrong.is_empty());
        if !wrong.is_empty() {
            self.flag_now(
                Code::ShuffleCountMismatch,
                "SHUFFLE_COUNT_MISMATCH",
                seq,
                format!("The shuffled set is wrong: {}.", wrong.join("; ")),
            );
        }
    }

    fn on_cut(&mut self, seq: u64, position: u32) {
        if self.shoe.continuous || self.shoe.partial {
            return;
        }
        let Some(decks) = self.rules.cut_min_from_either_end_decks else {
            return;
        };
        let composition = self.shoe.counter.composition();
        let min = u32::from(decks) * composition.kind.cards_per_deck();
        let total = composition.total_cards();
        if position < min || total.saturating_sub(position) < min {
            self.flag_now(
                Code::CutTooCloseToEnd,
                "CUT_TOO_CLOSE_TO_END",
                seq,
                format!(
                    "The cut was {position} cards from the front of {total}: it must be at least {min} cards ({decks} deck{}) from either end.",
                    if decks == 1 { "" } else { "s" }
                ),
            );
        }
    }

    fn cutting_card_problem(&self, from_back: u32) -> Option<String> {
        let total = self.shoe.counter.composition().total_cards();
        if let Some(min) = self.rules.cutting_card_min_from_back {
            if from_back < min {
                return Some(format!(
                    "{from_back} cards behind it, where the book requires at least {min}"
                ));
            }
        }
        if self.rules.cutting_card_at_most_half_from_back && from_back > total / 2 {
            return Some(format!(
                "{from_back} cards behind it of {total}: it may be no more than half way in from the back ({} cards)",
                total / 2
            ));
        }
        None
    }

    fn on_cutting_card_placed(&mut self, seq: u64, from_back: u32) {
        if self.shoe.continuous || self.shoe.partial {
            return;
        }
        if let Some(problem) = self.cutting_card_problem(from_back) {
            self.flag_now(
                Code::CuttingCardMisplaced,
                "CUTTING_CARD_MISPLACED",
                seq,
                format!("The cutting card was placed with {problem}."),
            );
        }
    }

    fn on_cutting_card(&mut self, seq: u64) {
        if self.shoe.continuous || self.shoe.cutting_card_out {
            return;
        }
        self.shoe.cutting_card_out = true;
        if !self.shoe.partial && !self.shoe.replaced {
            let behind = self.shoe.counter.remaining();
            if let Some(problem) = self.cutting_card_problem(behind) {
                self.flag_now(
                    Code::CuttingCardMisplaced,
                    "CUTTING_CARD_MISPLACED",
                    seq,
                    format!("The cutting card came out with {problem}."),
                );
            }
        }
        // A round already complete is over; between rounds the shoe ends now (7.1(b)), during a
        // round at its end (7.1(c)).
        if self.round.is_some() && self.game.is_complete() {
            self.close_round(seq, false);
        }
        if self.round.is_some() {
            return;
        }
        // Between rounds when the stream places its cards in rounds, or right after "no more
        // bets": the shoe ends now (7.1(b)). A plain stream's cutting card after cards of a round
        // the table cannot see ends the shoe at the next "no more bets" (7.1(c)); with none, it
        // cannot tell where that round ends and checks nothing past it.
        let between = self.shoe.placing
            || self.shoe.cards == 0
            || (self.shoe.bets_seen && self.shoe.cards_since_bets == 0);
        if between {
            self.shoe.ended = Some(seq);
        } else {
            self.shoe.end_at_bets = Some(seq);
        }
    }

    fn on_exposed(&mut self, seq: u64, card: Option<Card>, during: ExposedDuring) {
        let what = card.map_or_else(|| "A card".to_owned(), |c| format!("The {c}"));
        match during {
            ExposedDuring::Cutting | ExposedDuring::Loading => {
                self.unshuffled = Some((Unshuffled::Exposed, seq));
                self.flag_now(
                    Code::CardExposed,
                    "CARD_EXPOSED",
                    seq,
                    format!("{what} was exposed while {during}: the cards must be shuffled again before play."),
                );
            }
            ExposedDuring::Dealing => {
                let message = format!("{what} was exposed while dealing.");
                if self.round.is_some() {
                    self.found.flag(Code::CardExposed, seq, vec![seq], message);
                    self.game.exposed(seq, card, &mut self.found);
                    self.take_found();
                } else {
                    self.flag_now(Code::CardExposed, "CARD_EXPOSED", seq, message);
                }
            }
        }
    }

    fn on_card(&mut self, event: &TableEvent, card: Option<Card>, target: Option<Target>) {
        let seq = event.seq;
        self.shoe.cards += 1;
        self.shoe.cards_since_bets += 1;
        // Where the card went decides the round it belongs to before any finding about it.
        let placed = target.is_some() && self.game.is_round_event(&event.kind);
        self.shoe.placing = placed;
        if placed {
            self.enter_round(event);
        }
        let in_round = self.round.is_some();
        if let Some(card) = card {
            if !self.shoe.counter.see(card) {
                let composition = self.shoe.counter.composition();
                let message = if composition.copies_of(card) == 0 {
                    format!(
                        "The {card} is a foreign card: a shoe of {} decks holds none.",
                        composition.kind.name()
                    )
                } else {
                    format!(
                        "A copy of the {card} beyond the {} the shoe holds: a foreign or duplicate card.",
                        composition.copies_of(card)
                    )
                };
                self.flag(in_round, Code::ExcessCard, "EXCESS_CARD", seq, message);
                if in_round {
                    self.game.defective(seq, card, &mut self.found);
                    self.take_found();
                }
            }
        } else {
            self.flag(
                in_round,
                Code::UnreadableCard,
                "UNREADABLE_CARD",
                seq,
                "The device could not read a card; the hands it belongs to are not judged on it."
                    .to_owned(),
            );
        }
        if let Some((why, since)) = self.unshuffled {
            if !self.shoe.past_end_flagged {
                self.shoe.past_end_flagged = true;
                let why = match why {
                    Unshuffled::Replaced => "the cards were replaced",
                    Unshuffled::Exposed => "a card was exposed before the cards entered the shoe",
                };
                self.found.flag_cited(
                    Code::NotShuffled,
                    "NOT_SHUFFLED/replaced",
                    seq,
                    vec![since, seq],
                    format!("A card was dealt after {why} (seq {since}) without a new shuffle."),
                );
                self.take_found_or_now(in_round);
            }
        } else if let Some(cut_seq) = self.shoe.ended {
            if !self.shoe.past_end_flagged && !self.shoe.partial {
                self.shoe.past_end_flagged = true;
                self.found.flag_cited(
                    Code::NotShuffled,
                    "NOT_SHUFFLED/past_end",
                    seq,
                    vec![cut_seq, seq],
                    format!(
                        "A card was dealt after the shoe ended (the cutting card came out, seq \
                         {cut_seq}): the cards must be shuffled before a further round."
                    ),
                );
                self.take_found_or_now(in_round);
            }
        }
        if placed && self.round.is_some() {
            self.game.handle_event(event, &mut self.found);
            self.take_found();
        }
    }

    fn on_round_event(&mut self, event: &TableEvent) {
        if !self.game.is_round_event(&event.kind) {
            return;
        }
        self.enter_round(event);
        if self.round.is_some() {
            self.game.handle_event(event, &mut self.found);
            self.take_found();
        }
    }

    /// Starts a round for `event` if it begins one (closing the round before it).
    fn enter_round(&mut self, event: &TableEvent) {
        if !self.game.begins_round(&event.kind) {
            return;
        }
        if self.round.is_some() {
            self.close_round(event.seq, false);
        }
        let number = self.shoe.rounds + 1;
        self.round = Some(number);
        self.game.start_round(self.shoe_no, number, event.seq);
    }

    /// Closes the round in progress, if any, and outputs its irregularity then its record.
    fn close_round(&mut self, seq: u64, cut_off: bool) {
        if self.round.take().is_none() {
            return;
        }
        let mut found = std::mem::take(&mut self.found);
        let record = self.game.close_round(seq, cut_off, &mut found);
        self.found = found;
        self.take_found_in(true);
        self.shoe.rounds += 1;
        if let Some(irregularity) = self.pending.take() {
            self.out.push_back(TableOutput::Irregularity(irregularity));
        }
        self.out.push_back(TableOutput::Round(record));
        if self.shoe.cutting_card_out && self.shoe.ended.is_none() {
            // 7.1(c): the round in which the cutting card appeared was the last.
            self.shoe.ended = Some(seq);
        }
    }

    // ----- findings -----

    #[allow(clippy::too_many_arguments)]
    fn irregularity(
        &self,
        code: Code,
        cite: &str,
        seq: u64,
        mut evidence: Vec<u64>,
        message: String,
        shoe: u32,
        round: Option<u32>,
        partial: bool,
    ) -> Irregularity {
        evidence.sort_unstable();
        evidence.dedup();
        Irregularity {
            code,
            severity: code.severity(),
            rule: self.rules.cite(cite).to_owned(),
            rule_book: self.rules.book_id.clone(),
            shoe,
            round,
            seq,
            evidence,
            message,
            partial,
            also: CodeSet::EMPTY,
        }
    }

    /// Outputs a finding outside any round at once.
    /// Flags what the shuffler watch found, at once.
    fn flag_found(&mut self, seq: u64, found: ShufflerFinding) {
        let cite = found.code.as_str();
        self.flag_found_as(seq, found, cite);
    }

    /// Outputs a shuffler finding citing the book's `cite` key (`CODE/qualifier` falls back to
    /// the code's own citation).
    fn flag_found_as(&mut self, seq: u64, found: ShufflerFinding, cite: &str) {
        let irregularity = self.irregularity(
            found.code,
            cite,
            seq,
            found.evidence,
            found.message,
            self.shoe_no,
            None,
            self.shoe.partial,
        );
        self.out.push_back(TableOutput::Irregularity(irregularity));
    }

    fn flag_now(&mut self, code: Code, cite: &str, seq: u64, message: String) {
        let irregularity = self.irregularity(
            code,
            cite,
            seq,
            vec![seq],
            message,
            self.shoe_no,
            None,
            self.shoe.partial,
        );
        self.out.push_back(TableOutput::Irregularity(irregularity));
    }

    /// A finding about a card: the round's if the card is in one, else at once.
    fn flag(&mut self, in_round: bool, code: Code, cite: &'static str, seq: u64, message: String) {
        self.found.flag_cited(code, cite, seq, vec![seq], message);
        self.take_found_or_now(in_round);
    }

    fn take_found_or_now(&mut self, in_round: bool) {
        self.take_found_in(in_round && self.round.is_some());
    }

    fn take_found(&mut self) {
        self.take_found_in(self.round.is_some());
    }

    /// Moves the game's findings into the round's one irregularity, or out at once.
    fn take_found_in(&mut self, in_round: bool) {
        if self.found.is_empty() {
            return;
        }
        let found = std::mem::take(&mut self.found.0);
        let round = if in_round {
            Some(self.shoe.rounds + 1)
        } else {
            None
        };
        for f in found {
            let irregularity = self.irregularity(
                f.code,
                f.cite,
                f.seq,
                f.evidence,
                f.message,
                self.shoe_no,
                round,
                self.shoe.partial,
            );
            if in_round {
                match &mut self.pending {
                    Some(pending) => pending.absorb(irregularity),
                    None => self.pending = Some(irregularity),
                }
            } else {
                self.out.push_back(TableOutput::Irregularity(irregularity));
            }
        }
    }
}
