//! The shared shoe tracker, [`Table`]: what every card game shares (shuffles, the cut, the cutting
//! card, the shoe's composition and counts, foreign and excess cards, the end of the shoe, device
//! errors, exposed and replaced cards, the burn), around a game's rounds ([`crate::RoundGame`]).
//! Split by concern, as quinn-proto's `connection/` is, each concern in its own file and owned by
//! the table:
//!
//! - this file: the table's state, the dispatch of each event, `finish`, `interrupt` and the view;
//! - `round.rs`: a round's start and close, a declared result, and a card held until the next
//!   event shows its round;
//! - `shoe.rs`: the shoe rules, written once with their messages (shuffle, cut, cutting card, end
//!   of shoe, counts, foreign, excess and unreadable cards, exposed cards);
//! - `burn.rs`: the burn, its policy read from the book's `[burn]`;
//! - `carry.rs`: the carry into a shoe ([`TableCarry`]), so any shoe can be resumed from there;
//! - `incident.rs`: one fault, one incident (what a round finds is one irregularity, output when
//!   the round is settled; what belongs to no round goes out at once).
//!
//! Baccarat's `Engine` runs on this table (issue 27: its `rounds` module is a
//! [`crate::RoundGame`], with the hooks a game whose rounds place plain cards and go on after the cutting card needs:
//! [`crate::RoundGame::places_plain_cards`], [`crate::RoundGame::rounds_after_cutting_card`],
//! [`crate::RoundGame::past_end`]; and those that let it say the engine's words and order:
//! [`crate::RoundGame::shoe_wording`], [`crate::RoundGame::flags_again`],
//! [`crate::RoundGame::joins_round`], [`crate::RoundGame::last_rounds`],
//! [`crate::RoundGame::counts_copies_per_round`],
//! [`crate::RoundGame::close_round_by`],
//! [`crate::RoundGame::closes_when_complete`]; and those that give it its declared results:
//! [`crate::RoundGame::result_declared`], [`crate::RoundGame::check_result`],
//! [`crate::RoundGame::holds_for`], [`crate::RoundGame::awaits_result`],
//! [`crate::RoundGame::bets_closed`]; and those for a shoe joined part-way:
//! [`crate::RoundGame::shoe_started`],
//! [`crate::RoundGame::shuffle_begins_an_empty_partial_shoe`],
//! [`crate::RoundGame::shuffle_begins_an_empty_shoe_again`],
//! [`crate::RoundGame::replaced_cards_start_afresh`]; and those for a device that
//! begins each shoe with its burn's first card: [`crate::RoundGame::first_card_begins_a_shoe`],
//! [`crate::RoundGame::shuffles_reported`]; and those for a plain burn:
//! [`crate::RoundGame::burn_reading`], [`crate::RoundGame::round_given_back`]; and those for a
//! card the table gives no round:
//! [`crate::RoundGame::stray_card`], [`crate::RoundGame::burn_card`],
//! [`crate::RoundGame::carried_only`], [`crate::RoundGame::discard_round`],
//! [`crate::RoundGame::sets_aside`]; and for a report sent
//! again: [`crate::RoundGame::repeats`], [`crate::RoundGame::withdrawn`]).
//! Blackjack, Pontoon (`crates/games/blackjack`) and poker (`crates/games/poker`) are a
//! [`crate::RoundGame`] run by a [`Table`].
//!
//! Everything here is sans-IO like the rest of the crate: events in, outputs out.

use std::collections::VecDeque;

use pitwatch_model::deck::ShoeCounter;
use pitwatch_model::{EventKind, ShoeComposition, ShuffleStep, ShufflerKind, TableEvent};
use serde::{Deserialize, Serialize};

use crate::book::{BurnPolicy, CutLimit, CuttingCardLimit, ShuffleCheck};
use crate::irregularity::{Irregularity, IrregularityCode as Code};
use crate::record::{DeviceErrorCleared, ShoeSummary};
use crate::seam::{Boundary, Findings, RoundGame};
use crate::shuffler::{Limits, ShufflerWatch};
use crate::view::{BurnView, Phase};

pub mod burn;
mod carry;
mod incident;
mod round;
mod shoe;

use burn::BurnState;

pub use carry::TableCarry;
pub use shoe::DeckCheck;

/// The longest burn: a first card worth 10 (or an ace worth 11), then as many cards; the most
/// plain cards held as the burn's after an unreadable first card.
const HELD_BURN: usize = 11;

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
    /// How far from either end the cut must be (in decks or cards), if the book limits it.
    pub cut: Option<CutLimit>,
    /// Where the cutting card may sit (at least so many cards from the back, no deeper than a
    /// fraction of the shoe: half for Pontoon 7.6), if the book says.
    pub cutting_card: Option<CuttingCardLimit>,
    /// The burn at the start of each shoe (`None` when the book has no `[burn]`).
    pub burn: BurnPolicy,
    /// How each shoe's order is compared with the table's previous shoes (`[shuffle]`, its
    /// defaults when the book has none), for the shuffle analysis every game's shoes get.
    pub shuffle_check: ShuffleCheck,
    /// `[cite]` key → rule.
    pub cite: Vec<(String, String)>,
}

impl ShoeRules {
    /// The rule the book cites for `key` itself, if it cites one (no fallback).
    pub fn cited(&self, key: &str) -> Option<&str> {
        self.cite
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, r)| r.as_str())
    }

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
/// `Output` (`pitwatch_baccarat::Output`).
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
    /// The burn in the current shoe, when the book has one (absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub burn: Option<BurnView>,
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
    /// Whether a misplaced cutting card was flagged in this shoe.
    cutting_card_flagged: bool,
    /// The shoe is over: the cutting card came out and its round (if any) was completed
    /// (Pontoon 7.1(b), (c)); the `seq` of the cutting card.
    ended: Option<u64>,
    /// Whether a card after the end was flagged (once a shoe).
    past_end_flagged: bool,
    /// The cards were replaced and the game follows them afresh
    /// ([`RoundGame::replaced_cards_start_afresh`]): a card dealt from them before a shuffle is
    /// flagged once (`unshuffled_flagged`), and the end of the shoe is followed beside it.
    afresh: bool,
    unshuffled_flagged: bool,
    /// A card was dealt in this shoe while no card might be (before the shuffle it awaited).
    dealt_unshuffled: bool,
    replaced: bool,
    /// The stream was cut off in this shoe ([`Table::interrupt`]).
    interrupted: bool,
    /// A plain stream's cutting card came out during a round the table cannot see: the shoe ends
    /// at the next "no more bets" (the cutting card's `seq`).
    end_at_bets: Option<u64>,
    /// The cutting card came out when the round in progress looked complete: the shoe has ended
    /// (`ended`), and the round is kept open for a stray card of its own until it closes.
    last_open: bool,
    /// The cutting card came out after a card held to see whether it began the next round, and
    /// it did: the round before is not the shoe's last, the round that card began is.
    cut_in_next: bool,
    /// Whether the last card was given to a round (a stream that reports targets).
    placing: bool,
    /// Cards since the last "no more bets", and whether one was seen in this shoe.
    cards_since_bets: u32,
    bets_seen: bool,
    /// The burn at the shoe's start, if its book has one.
    burn: BurnState,
    /// Plain cards held as the burn's after an unreadable first card (at most [`HELD_BURN`]).
    held_burn: Vec<TableEvent>,
    /// The shoe's last round, when the game lets rounds begin after the cutting card
    /// ([`RoundGame::rounds_after_cutting_card`]): the shoe ends when it closes.
    last_round: Option<u32>,
}

/// A card held after the round in progress looked over, because it may begin the next round or
/// be a stray card of that round ([`RoundGame::provisional`]): counted against the shoe, given to
/// a round when the next event shows which.
#[derive(Debug, Clone)]
struct Held {
    event: TableEvent,
    /// Whether the shoe can hold the card (false: foreign or a copy too many).
    fits: bool,
    /// The cutting card came out after it (its `seq`).
    cut: Option<u64>,
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
    /// A card held until the next event shows which round it belongs to.
    held: Option<Held>,
    /// The irregularity of the round in progress: what else goes wrong in it joins it.
    pending: Option<Irregularity>,
    unshuffled: Option<(Unshuffled, u64)>,
    open_errors: Vec<(String, u64)>,
    last_seq: Option<u64>,
    finished: bool,
    /// The shoe being begun by its first card follows a shoe the stream was cut off in (kept in
    /// the carry: the shuffle may have gone by unseen).
    after_cut: bool,
    found: Findings,
    /// The table's shuffler beside the shoe, if it reports (`deck_checked`).
    shuffler: ShufflerWatch,
    /// The hand-preparation steps the rule book requires before cards are loaded, in order
    /// (Pontoon 6.4); none for most books.
    shuffle_steps: Vec<ShuffleStep>,
    /// What was carried into the current shoe.
    carry: TableCarry<G::Carry>,
    /// The stream was cut off ([`Table::interrupt`]) and no round has been seen since: the next
    /// event of a round is the tail of a round that began while nobody listened.
    joining: bool,
    /// Cut off ([`Table::interrupt`]) in a shoe that had shown no "no more bets", with the game
    /// not finding its own way back: until the stream's first "no more bets" shows where rounds
    /// begin, the rounds taken after the cut may be the burn's cards read as rounds (a plain
    /// stream that lost the burn's start). What is found in them is held (`unaligned_held`):
    /// dropped at that first "no more bets" (as the round it closes is), given out with the
    /// shoe's end when none comes.
    unaligned: bool,
    unaligned_held: Vec<Irregularity>,
    /// The round in progress began unseen (after an interruption): it is followed as joined
    /// ([`RoundGame::join_round`]), and nothing the game finds in it, nor what it lacks, is
    /// judged.
    joined: bool,
    /// A declared result holding the round in progress open for a card still due
    /// ([`ResultTaken::Holds`]): checked against the round once it closes.
    result_held: Option<TableEvent>,
    /// Whether the round closed last has had its declared result (`None`: no round closed
    /// since the shoe began, the cards were replaced or the stream was cut off).
    last_result: Option<bool>,
    /// Rounds in a row whose result was declared before the next round began
    /// ([`RoundGame::awaits_result`]).
    results_run: u32,
    /// The irregularity held (`pending`) is the round closed last's, waiting for its result.
    awaiting_result: bool,
    /// The round in progress was begun by a card carried over from the round closed last
    /// ([`Stray::Carried`]): that round's irregularity may still be held (`pending`).
    carried: bool,
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
                cutting_card_flagged: false,
                ended: None,
                past_end_flagged: false,
                afresh: false,
                unshuffled_flagged: false,
                dealt_unshuffled: false,
                replaced: false,
                end_at_bets: None,
                last_open: false,
                cut_in_next: false,
                interrupted: false,
                placing: false,
                cards_since_bets: 0,
                bets_seen: false,
                burn: BurnState::NONE,
                held_burn: Vec::new(),
                last_round: None,
            },
            rules,
            game,
            out: VecDeque::new(),
            shoe_no: 0,
            shoe_open: false,
            round: None,
            held: None,
            pending: None,
            unshuffled: None,
            open_errors: Vec::new(),
            last_seq: None,
            finished: false,
            after_cut: false,
            found: Findings::default(),
            shuffler: ShufflerWatch::default(),
            shuffle_steps: Vec::new(),
            carry: TableCarry::default(),
            joining: false,
            unaligned: false,
            unaligned_held: Vec::new(),
            joined: false,
            result_held: None,
            last_result: None,
            results_run: 0,
            awaiting_result: false,
            carried: false,
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
        // Most events are cards: they take their own path (`shoe.rs`), without the dispatch of
        // every other kind of event.
        match &event.kind {
            EventKind::CardDrawn {
                card,
                target,
                retransmit,
                ..
            } => self.card_event(event, *card, *target, *retransmit == Some(true)),
            // A dealer signing in or out is not a card and ends nothing: the table does not see
            // it at all, so a stream judges the same with or without them (who dealt what is
            // the record's, `pitwatch_games::dealers`).
            EventKind::DealerSignedIn { .. } | EventKind::DealerSignedOut { .. } => {}
            _ => self.other_event(event),
        }
    }

    /// Feeds one event that is not a card.
    #[inline(never)]
    fn other_event(&mut self, event: &TableEvent) {
        let seq = event.seq;
        self.resolve_held(Some(event));
        if self.result_held.is_some() && !self.game.holds_for(&event.kind) {
            // The card the round was held open for did not come: closed at its result.
            self.end_result_hold();
        }
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
                self.resume_before_first_card(seq);
                self.on_cut(seq, *position);
            }
            EventKind::CuttingCardPlaced { from_back } => {
                self.ensure_shoe(seq);
                self.resume_before_first_card(seq);
                self.on_cutting_card_placed(seq, *from_back);
            }
            // A card takes its own path (`card_event`).
            EventKind::CardDrawn { .. } => {}
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
                self.flag_shoe(
                    Code::OrderDisclosed,
                    "ORDER_DISCLOSED",
                    seq,
                    format!("Device error {code}: {text}"),
                );
            }
            EventKind::DeviceError { code, text } => {
                self.ensure_shoe(seq);
                let open = self.open_errors.iter().any(|(c, _)| c == code);
                if open && !self.game.flags_again(Code::DeviceError) {
                    // The same error, still open: neither flagged nor counted again.
                } else {
                    // Flagged again (a game that says so) but open once: one clear closes it.
                    if !open {
                        self.open_errors.push((code.clone(), seq));
                    }
                    let fact = crate::seam::ShoeFact::DeviceError { code, text };
                    let message = self.worded(&fact, || format!(
                        "The device reported error {code} ({text}); it stays open until the device clears it."
                    ));
                    self.flag_shoe(Code::DeviceError, "DEVICE_ERROR", seq, message);
                }
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
                self.close_round(seq, Boundary::Reshuffle);
                self.joining = false;
                self.unshuffled = Some((Unshuffled::Replaced, seq));
                self.shoe.dealt_unshuffled = false;
                self.shoe.replaced = true;
                self.last_result = None;
                self.shoe.burn.stop();
                self.shoe.held_burn.clear();
                if self.game.replaced_cards_start_afresh() {
                    // New cards: counted afresh, and the old cards' end no longer applies.
                    let shoe = &mut self.shoe;
                    shoe.counter = shoe.counter.composition().counter();
                    shoe.ended = None;
                    shoe.last_round = None;
                    shoe.cutting_card_out = false;
                    shoe.end_at_bets = None;
                    shoe.last_open = false;
                    shoe.cut_in_next = false;
                    shoe.afresh = true;
                }
            }
            EventKind::BetsClosed => {
                self.ensure_shoe(seq);
                if !self.shoe.bets_seen && self.shoe.rounds == 0 && self.round.is_some() {
                    // The shoe's first "no more bets": no round had begun, so the cards taken
                    // for one after the burn's count were burn cards (if the game says they
                    // may be).
                    if let Some(cards) = self.game.round_given_back(None) {
                        let mut found = Vec::new();
                        if self.shoe.burn.take_back(seq, cards, &mut found) {
                            self.drop_round();
                            self.flag_burn(seq, found);
                        }
                    }
                }
                self.set_aside(seq, Boundary::BetsClosed);
                // "No more bets" comes between rounds: a round still open is over (one joined
                // after an interruption too: the table judges normally again from here), but
                // one that holds only a card carried over from the round before.
                if !self.game.carried_only() {
                    self.close_round(seq, Boundary::BetsClosed);
                }
                if self.unaligned {
                    // Where rounds really begin: the rounds taken since the cut were not seen
                    // from their start, and what was found in them is not judged.
                    self.drop_unaligned();
                }
                self.joining = false;
                self.game.bets_closed(seq);
                if self.shoe.burn.pending() {
                    // Cards held after an unreadable first card were the burn's.
                    self.shoe.held_burn.clear();
                    let mut found = Vec::new();
                    self.shoe.burn.bets_closed(seq, &mut found);
                    self.flag_burn(seq, found);
                }
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
            EventKind::BurnCounted { count } => {
                if self.rules.burn != BurnPolicy::None {
                    // Under a book that burns, the device's burn count is an event of a shoe,
                    // as a cut is: a stream joined there begins its shoe with it.
                    self.ensure_shoe(seq);
                }
                if self.shoe_open && !self.shoe.held_burn.is_empty() {
                    // Cards held after an unreadable first card: the device's count says how
                    // many were the burn's; the rest began the rounds.
                    let mut held = std::mem::take(&mut self.shoe.held_burn);
                    if let Some(from) = self.shoe.burn.counted_holding(*count) {
                        let rest = held.split_off(from.min(held.len()));
                        self.release_held(rest);
                    }
                } else if self.shoe_open {
                    let beyond = self.shoe.burn.count_beyond(*count);
                    let mut found = Vec::new();
                    self.shoe.burn.counted(seq, *count, &mut found);
                    self.flag_burn(seq, found);
                    let first_round = self.shoe.rounds == 0 && self.round.is_some();
                    if beyond.is_some()
                        && first_round
                        && self.game.round_given_back(beyond) == beyond
                    {
                        // The device counted more burn cards than were taken: the first round's
                        // cards were the rest of the burn.
                        self.drop_round();
                        self.shoe.burn.counted_back(*count);
                    }
                }
            }
            EventKind::ResultDeclared { .. } => self.on_result(event),
            EventKind::LockChanged { .. }
            | EventKind::TableStateChanged { .. }
            | EventKind::ShufflerCounters { .. } => {}
            // Never reach here (`handle_event` passes them by).
            EventKind::DealerSignedIn { .. } | EventKind::DealerSignedOut { .. } => {}
        }
        if self.shoe_open {
            self.shoe.last_seq = seq;
        }
        self.last_seq = Some(seq);
    }

    /// Drops what was found in the rounds taken since a cut, now that the stream shows where
    /// rounds begin (see `unaligned`).
    #[inline(never)]
    fn drop_unaligned(&mut self) {
        self.unaligned = false;
        self.unaligned_held.clear();
        if self.pending.as_ref().is_some_and(|p| p.round.is_some()) {
            self.pending = None;
            self.awaiting_result = false;
        }
    }

    /// Gives out what was held for the rounds taken since a cut (see `unaligned`): the shoe
    /// ended with no "no more bets" to show they were misread.
    pub(super) fn release_unaligned(&mut self) {
        self.unaligned = false;
        for irregularity in std::mem::take(&mut self.unaligned_held) {
            self.out.push_back(TableOutput::Irregularity(irregularity));
        }
    }

    /// Ends the stream: closes the round in progress and the shoe.
    pub fn finish(&mut self) {
        if self.finished {
            return;
        }
        self.resolve_held(None);
        // A result declared early is not judged when the stream ends before the card it held
        // the round open for.
        self.result_held = None;
        let seq = self.last_seq.unwrap_or(0);
        self.close_round(seq, Boundary::End);
        self.flush_pending();
        self.end_shoe();
        self.finished = true;
    }

    /// The stream was cut off here: the round in progress is closed unfinished without judging
    /// what it lacks, and the shoe becomes partial (no cards-left count, no end-of-shoe checks).
    /// What was already found wrong in that round stays open and goes out with the next event
    /// that closes or begins a round, so a recorder resumed here records it as replay gives it.
    ///
    /// The events of a round after the cut that do not begin one ([`RoundGame::begins_round`]
    /// of the round joined) are the tail of a round that began while nobody listened: that round
    /// is followed as joined ([`RoundGame::join_round`], the phase `joining`), closed unfinished,
    /// and raises nothing for what it lacks or for its order. What is wrong whatever came before
    /// (a foreign or unreadable card, a device error, an exposed card) is still flagged. The
    /// table judges normally again from the first event that begins a round, "no more bets" or a
    /// shuffle.
    pub fn interrupt(&mut self) {
        // What the shuffler did while nobody listened is unknown; the preparation steps logged
        // before the cut were seen, and count for the next load.
        let steps = std::mem::take(&mut self.shuffler.steps);
        self.shuffler = ShufflerWatch::default();
        self.shuffler.steps = steps;
        self.resolve_held(None);
        self.result_held = None;
        // Nothing is left to follow in a shoe whose end came with no round open.
        if !self.shoe_open || self.shoe.ended.is_some() && self.round.is_none() {
            return;
        }
        self.joining = !self.game.interrupted();
        self.unaligned = self.joining && !self.shoe.bets_seen;
        let pending = self.pending.take();
        // Its end is not judged: what it lacks may simply not have been seen.
        self.close_round_judged(self.last_seq.unwrap_or(0), Boundary::End, false);
        self.pending = pending;
        self.shoe.partial = true;
        self.shoe.interrupted = true;
        self.shoe.burn.stop();
        self.shoe.held_burn.clear();
        self.unshuffled = None;
        // The next result may be a round's dealt while nobody listened.
        self.last_result = None;
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
        } else if self.joining || self.joined || (self.shoe.partial && !self.shoe.interrupted) {
            // Joined part-way (or after a cut, until a round is seen from its start).
            Phase::Joining
        } else if self.shoe.burn.view().status == crate::view::BurnStatus::AwaitingFirst {
            Phase::AwaitingBurn
        } else if self.shoe.burn.pending() {
            Phase::Burning
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
            burn: self.shoe.burn.in_book().then(|| self.shoe.burn.view()),
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
        // An unreadable card was drawn too, though which card it was is unknown.
        let total = self.shoe.counter.composition().total_cards();
        known.then(|| total.saturating_sub(self.shoe.cards))
    }
}
