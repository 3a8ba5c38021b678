//! The sans-IO Baccarat engine: table events in, rounds and irregularities out.
//!
//! One [`Engine`] follows one table. [`Engine::handle_event`] takes each event (its time is a
//! field of the event; the engine never reads a clock), [`Engine::poll_output`] drains what that
//! produced, and [`Engine::finish`] closes the stream. The same rule book and the same events give
//! the same outputs, byte for byte. In steady state nothing is allocated per card: hands are inline
//! arrays, the card count is a fixed array and the output queue keeps its capacity. Only an
//! irregularity (rare by definition) allocates its message.
//!
//! Cards are placed in one of two ways. When the device reports where a card went (`target`,
//! `index`), the engine believes the device about where the card physically is and checks that it
//! is the next position by 8.4 and the drawing rules. When it does not (a plain reading shoe), the
//! engine assigns each card to the next position by the rules. See `docs/irregularities.md` for
//! how the burn, the last coup and resynchronisation work in each mode.
//!
//! **One fault, one incident.** Everything found wrong in one round is one irregularity: the
//! first finding opens it, and what else goes wrong in that round is added to its evidence and
//! message (its severity the highest found), so a dealer's one mistake never becomes a cascade of
//! alerts. A round's irregularity is output once the round is settled: when its result is
//! declared in a stream that declares results, otherwise when its last card is dealt, and in any
//! case when the next round, a "no more bets", a shuffle or the end of the stream comes.
//! Irregularities that belong to no round (the burn, the cut, a shuffle) are output at once.
//!
//! The engine is one struct split by concern, each concern an `impl Engine` block in its own file:
//! `mod.rs` the state, the public interface and the view; `shoe.rs` shoes, shuffles, the cut, the
//! cutting card, exposed and replaced cards and device errors; `burning.rs` the burn; `card.rs`
//! where each card goes and the start of a round; `deal.rs` targeted and plain deals, stray third
//! cards and tentative rounds; `round.rs` the end of a round, "no more bets" and the declared
//! result; `incident.rs` one fault, one incident.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use pitwatch_model::{
    Card, EventKind, ExposedDuring, Outcome, ShoeComposition, ShufflerKind, TableEvent, Target,
};

use pitwatch_rules::irregularity::{Irregularity, IrregularityCode as Code};
use pitwatch_rules::shuffler::{Limits, ShufflerWatch};
use pitwatch_rules::table::burn::{self, Burn};
use pitwatch_rules::{
    BurnPolicy, BurnStatus, DeviceErrorCleared, EndOfShoePolicy, Phase, ShoeSummary,
};

use pitwatch_baccarat::book::RuleBook;
use pitwatch_baccarat::drawing::{DrawingTable, NextCard};
use pitwatch_baccarat::record::{is_boundary, Output, RoundRecord};
use pitwatch_baccarat::side::{BySide, Hand, Side};
use pitwatch_baccarat::view::{LastCoup, NextCardView, RoundView, TableView};

mod burning;
mod card;
mod deal;
mod incident;
mod round;
mod shoe;
#[cfg(test)]
mod tests;

/// Why cards must not be dealt until the next shuffle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Unshuffled {
    /// The cards in play were replaced (7.10).
    Replaced,
    /// A card was exposed while cutting or loading.
    Exposed,
}

/// What ended a round from outside.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Boundary {
    BetsClosed,
    Result,
    NewRound,
    Reshuffle,
    End,
}

/// The book's citation to use for a finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cite {
    /// The book's citation for the code.
    Code,
    /// An unauthorised third card to the Banker's hand: the Table of Play and the misdeal rules,
    /// not 12.1, which covers only the Player's hand.
    BankerCard,
    /// Cards loaded without the preparation steps the book lists: its `NOT_SHUFFLED/steps`.
    Steps,
}

#[derive(Debug, Clone)]
struct Shoe {
    composition: ShoeComposition,
    counter: pitwatch_model::deck::ShoeCounter,
    continuous: bool,
    partial: bool,
    /// Partial shoes with targets wait for a Player card 1 before following rounds.
    synced: bool,
    cards: u32,
    rounds: u32,
    first_seq: u64,
    last_seq: u64,
    burn: Burn,
    burn_flagged: bool,
    cutting_card_flagged: bool,
    cutting_card_seen: bool,
    last_round: Option<u32>,
    ended: bool,
    past_last_coup_flagged: bool,
    /// The cards were replaced during the shoe, so the count of cards left is no longer known.
    replaced: bool,
    /// The stream was cut off in this shoe ([`Engine::interrupt`]): events may have been missed.
    interrupted: bool,
    /// After an interruption, a plain shoe in a stream that reports "no more bets" waits for it
    /// before following rounds again.
    await_bets: bool,
    /// After an interruption, the round a plain shoe resumed in at once: it may have begun while
    /// nobody was listening, so it is not judged (0: none).
    resync_round: u32,
    /// A "no more bets" was seen in this shoe: in a stream that reports them, every card before
    /// the shoe's first one belongs to the burn.
    bets_seen: bool,
    /// A plain shoe's cards after an unreadable first card, in a stream not yet known to report
    /// "no more bets": held as burn cards until "no more bets" or the device's burn count says
    /// where the burn ended, or, if neither comes within the longest burn, followed as rounds.
    held_burn: [(Option<Card>, u64); HELD_BURN],
    held_burn_len: u8,
}

/// The longest burn: a first card worth 10 (or an ace worth 11), then as many cards.
const HELD_BURN: usize = 11;

/// A result declared while a third card was still due (10.1 says the result is announced when
/// each hand has all its cards): the round is kept open for that card until the next boundary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Declared {
    outcome: Outcome,
    player_pair: Option<bool>,
    banker_pair: Option<bool>,
    seq: u64,
}

/// A card held for a later position of a hand: (side, index, card, `seq`).
type Ahead = Option<(Side, u8, Option<Card>, u64)>;

#[derive(Debug, Clone, Copy)]
struct Round {
    active: bool,
    number: u32,
    hands: BySide<Hand>,
    first_seq: u64,
    last_seq: u64,
    /// The `seq` of each card placed, in the order placed.
    seqs: [u64; 6],
    order_flagged: bool,
    /// Started by a Player card carried over under 12.1(b) and holding only that card.
    carried: bool,
    no_bets: bool,
    /// A plain round started by a card between rounds, read as 12.1(b) (the first card of this
    /// round). If the round then proves one card too long, the card was set aside instead and the
    /// round is dealt again from the cards after it.
    tentative: bool,
    /// A tentative round that is complete by the rules, not yet output: the next event confirms
    /// it (a boundary) or shows it was one card too long (another card).
    confirming: bool,
    /// A result declared early, while a third card was still due.
    held: Option<Declared>,
    /// A plain round begun with no boundary after a round still awaiting its result (in a
    /// stream without "no more bets"): if that result comes while this round holds fewer than
    /// four cards, they were dealt before it, as extra cards of the round before.
    unannounced: bool,
    /// "No more bets" came while the round held only a card carried over to it.
    after_bets: bool,
    /// Cards a device reported to a later position of a hand than the next (side, index, card,
    /// `seq`): held there until the positions before it are filled.
    ahead: [Ahead; 4],
    /// How many cards `ahead` holds (so a card in order costs one test).
    ahead_len: u8,
    /// The position the rules expected when a card came out of order: if the card for it then
    /// arrives as a retransmission (its first report was lost), the order was the transmission's,
    /// not the deal's.
    order_gap: Option<(Side, u8)>,
}

impl Round {
    const IDLE: Round = Round {
        active: false,
        number: 0,
        hands: BySide {
            player: Hand::new(),
            banker: Hand::new(),
        },
        first_seq: 0,
        last_seq: 0,
        seqs: [0; 6],
        order_flagged: false,
        carried: false,
        no_bets: false,
        tentative: false,
        confirming: false,
        held: None,
        unannounced: false,
        after_bets: false,
        ahead: [None; 4],
        ahead_len: 0,
        order_gap: None,
    };

    fn cards(&self) -> usize {
        self.hands.player.len() + self.hands.banker.len()
    }

    fn carried_only(&self) -> bool {
        self.carried && self.cards() == 1
    }
}

#[derive(Debug, Clone, Copy)]
struct Completed {
    record: RoundRecord,
    result_checked: bool,
    /// No card has been drawn since the round completed, nor "no more bets" called.
    open: bool,
}

/// What an engine carries from one shoe into the next: everything a new shoe does not start
/// afresh (how many shoes came before, whether the stream reports shuffles, "no more bets",
/// results and targets, a pending "not shuffled", the device errors still open, the last round
/// recorded).
///
/// [`Engine::shoe_carry`] is taken as the current shoe started; [`Engine::resume`] with it, fed
/// from that shoe's first event on, reaches the same state after that event as the engine that
/// followed the whole stream, so a shoe after it can be replayed without the shoes before. (The
/// outputs of that first event may differ: in the whole stream it also closes the shoe before.)
///
/// It is stored as JSON with each shoe's start; fields added later default when absent, so a
/// carry written by an earlier version still reads.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Carry {
    /// Shoes started before.
    pub shoes: u32,
    shuffles_reported: bool,
    bets_reported: bool,
    unshuffled: Option<(Unshuffled, u64)>,
    open_errors: Vec<(String, u64)>,
    last_round: Option<RoundRecord>,
    /// Rounds in a row whose result was declared before the next round began (absent from
    /// carries written before it was kept).
    #[serde(default)]
    results_run: u32,
    /// The stream reports where cards go (absent from carries written before it was kept).
    #[serde(default)]
    targets_reported: bool,
    /// The table's shuffler as the shoe was loaded: whether it reports, and its last completed
    /// shuffle not yet loaded (absent from carries written before it was kept).
    #[serde(default)]
    shuffler: ShufflerWatch,
}

/// Follows one table's event stream under one rule book.
#[derive(Debug, Clone)]
pub struct Engine {
    book: RuleBook,
    drawing: DrawingTable,
    out: VecDeque<Output>,
    shoe_no: u32,
    shoe_open: bool,
    shoe: Shoe,
    round: Round,
    prev: Option<Completed>,
    shuffles_reported: bool,
    /// The stream reports "no more bets", so a plain shoe can tell a card dealt between rounds.
    bets_reported: bool,
    /// Rounds in a row whose result was declared before the next round began: from two on, the
    /// stream declares every round's result, so a result settles its round and a card after a
    /// completed round but before its result is a card between rounds.
    results_run: u32,
    /// The stream reports where cards go (targets), so a card reported to no hand is a stray.
    targets_reported: bool,
    unshuffled: Option<(Unshuffled, u64)>,
    open_errors: Vec<(String, u64)>,
    /// The last round recorded in the stream, kept across shoes for [`Engine::view`].
    last_recorded: Option<RoundRecord>,
    /// `seq` of the last event handled.
    last_seq: Option<u64>,
    /// What was carried into the current shoe.
    carry: Carry,
    /// The table's shuffler beside the shoe, if it reports (`deck_checked`).
    shuffler: ShufflerWatch,
    /// The irregularity of a round not yet settled: what else goes wrong in that round is added
    /// to it.
    pending: Option<Irregularity>,
    /// The last burn card counted (card, target, index), so a retransmitted repeat of it is not
    /// counted twice (a Player or Banker card's position is in its round).
    last_card: Option<(Option<Card>, Option<Target>, Option<u8>)>,
}

impl Engine {
    /// An engine for one table under `book`, before any event.
    pub fn new(book: RuleBook) -> Engine {
        let composition = book.composition();
        Engine {
            drawing: *book.drawing(),
            shoe: Shoe {
                composition,
                counter: composition.counter(),
                continuous: false,
                partial: false,
                synced: true,
                cards: 0,
                rounds: 0,
                first_seq: 0,
                last_seq: 0,
                burn: Burn::NotExpected,
                burn_flagged: false,
                cutting_card_flagged: false,
                cutting_card_seen: false,
                last_round: None,
                ended: false,
                past_last_coup_flagged: false,
                replaced: false,
                interrupted: false,
                await_bets: false,
                resync_round: 0,
                bets_seen: false,
                held_burn: [(None, 0); HELD_BURN],
                held_burn_len: 0,
            },
            book,
            out: VecDeque::with_capacity(64),
            shoe_no: 0,
            shoe_open: false,
            round: Round::IDLE,
            prev: None,
            shuffles_reported: false,
            bets_reported: false,
            results_run: 0,
            targets_reported: false,
            unshuffled: None,
            open_errors: Vec::new(),
            last_recorded: None,
            last_seq: None,
            carry: Carry::default(),
            shuffler: ShufflerWatch::default(),
            pending: None,
            last_card: None,
        }
    }

    /// An engine that carries on after the shoes `carry` was taken after (see [`Carry`]): feed it
    /// the events from the first event of the shoe [`Engine::shoe_carry`] returned it for.
    pub fn resume(book: RuleBook, carry: Carry) -> Engine {
        let mut engine = Engine::new(book);
        engine.shoe_no = carry.shoes;
        engine.shuffles_reported = carry.shuffles_reported;
        engine.bets_reported = carry.bets_reported;
        engine.results_run = carry.results_run;
        engine.targets_reported = carry.targets_reported;
        engine.unshuffled = carry.unshuffled;
        engine.open_errors.clone_from(&carry.open_errors);
        engine.last_recorded = carry.last_round;
        engine.shuffler = carry.shuffler.clone();
        engine.carry = carry;
        engine
    }

    /// What the engine carried into the current shoe as it started (before any shoe: the
    /// state of a new engine).
    pub fn shoe_carry(&self) -> &Carry {
        &self.carry
    }

    /// The rule book in force.
    pub fn book(&self) -> &RuleBook {
        &self.book
    }

    /// The current shoe, 1-based within the stream, or 0 before any.
    pub fn shoe(&self) -> u32 {
        self.shoe_no
    }

    /// The round being dealt, if one is in progress.
    pub fn round_in_progress(&self) -> Option<u32> {
        self.current_round()
    }

    /// Whether the current shoe was joined part-way, or the stream was cut off in it
    /// ([`Engine::interrupt`]).
    pub fn is_partial(&self) -> bool {
        self.shoe_open && self.shoe.partial
    }

    /// How many cards of the current shoe have not been seen (a count only: which cards are left
    /// is confidential and never exposed).
    pub fn cards_left(&self) -> u32 {
        self.shoe
            .composition
            .total_cards()
            .saturating_sub(self.shoe.cards)
    }

    /// Device errors still open, as (code, `seq` that raised it).
    pub fn open_device_errors(&self) -> impl Iterator<Item = (&str, u64)> {
        self.open_errors
            .iter()
            .map(|(code, seq)| (code.as_str(), *seq))
    }

    /// What the engine knows about the table now: the shoe, its phase, the burn, the last coup,
    /// the round in progress and the last round recorded. Cheap (a `Copy` value, no allocation),
    /// so a replay can take one after every event; never panics, whatever came before.
    pub fn view(&self) -> TableView {
        let shoe = &self.shoe;
        let started = self.shoe_no > 0;
        let burn = shoe.burn.view();
        let upcoming = if self.round.active {
            self.round.number
        } else {
            shoe.rounds.saturating_add(1)
        };
        let last_coup = if shoe.continuous {
            LastCoup::NotApplicable
        } else if shoe.ended {
            LastCoup::Completed
        } else {
            match shoe.last_round {
                None => LastCoup::NotReached,
                Some(last) if upcoming < last => LastCoup::Pending,
                Some(_) => LastCoup::LastRound,
            }
        };
        let phase = if !started {
            Phase::NoShoe
        } else if !self.shoe_open {
            Phase::Finished
        } else if self.unshuffled.is_some() {
            Phase::AwaitingShuffle
        } else if !shoe.synced {
            Phase::Joining
        } else if burn.status == BurnStatus::AwaitingFirst {
            Phase::AwaitingBurn
        } else if burn.status == BurnStatus::Burning {
            Phase::Burning
        } else {
            match last_coup {
                LastCoup::NotApplicable | LastCoup::NotReached => Phase::Dealing,
                LastCoup::Pending => Phase::LastCoupPending,
                LastCoup::LastRound => Phase::LastRound,
                LastCoup::Completed => Phase::ShoeEnded,
            }
        };
        let round = self.round.active.then(|| {
            let hands = &self.round.hands;
            let next = NextCardView::of(self.drawing.next_card(&hands.player, &hands.banker));
            RoundView {
                number: self.round.number,
                player: hands.player,
                banker: hands.banker,
                player_total: hands.player.total(),
                banker_total: hands.banker.total(),
                next,
                carried: self.round.carried,
                no_bets: self.round.no_bets,
                first_seq: self.round.first_seq,
            }
        });
        let cards_known = started && !shoe.partial && !shoe.continuous && !shoe.replaced;
        TableView {
            shoe: self.shoe_no,
            phase,
            partial: started && shoe.partial,
            continuous: started && shoe.continuous,
            decks: shoe.composition.decks,
            cards_dealt: shoe.cards,
            cards_left: cards_known
                .then(|| shoe.composition.total_cards().saturating_sub(shoe.cards)),
            burn,
            cutting_card_out: shoe.cutting_card_seen,
            last_coup,
            last_coup_round: shoe.last_round,
            round,
            rounds_completed: shoe.rounds.saturating_sub(u32::from(self.round.active)),
            last_round: self.last_recorded,
            open_device_errors: u32::try_from(self.open_errors.len()).unwrap_or(u32::MAX),
            last_seq: self.last_seq,
        }
    }

    /// The next output, oldest first, or `None` when everything has been drained.
    pub fn poll_output(&mut self) -> Option<Output> {
        self.out.pop_front()
    }

    /// Feeds one event. Never panics, whatever the sequence; irregularities come out as outputs.
    pub fn handle_event(&mut self, event: &TableEvent) {
        let seq = event.seq;
        if self.round.active && is_boundary(&event.kind) {
            // A boundary settles a round left open for what might still belong to it.
            if self.round.confirming {
                match event.kind {
                    // The declared result is the round's without the card it began with.
                    EventKind::ResultDeclared { outcome, .. }
                        if self.result_says_set_aside(outcome) =>
                    {
                        self.redeal_tentative();
                    }
                    _ => self.confirm_round(),
                }
            }
            if self.round.held.is_some() {
                self.end_hold();
            }
        }
        match &event.kind {
            EventKind::Shuffled {
                decks,
                cards,
                shuffler,
            } => self.on_shuffled(
                seq,
                *decks,
                *cards,
                *shuffler,
                pitwatch_rules::table::DeckCheck::of(event).problem(),
            ),
            EventKind::DeckChecked { .. } => {
                // Cards went into the shuffler with no start seen: judged for their steps now.
                self.judge_steps(seq, false);
                let default = self.book.composition();
                let (min_decks, max_decks) = self.book.deck_range();
                let limits = Limits {
                    min_decks,
                    max_decks,
                    default_decks: default.decks,
                    cards_per_deck: default.kind.cards_per_deck(),
                };
                if let Some(found) = self.shuffler.checked(seq, &event.kind, limits) {
                    self.flag(found.code, None, seq, &found.evidence, found.message);
                }
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
            EventKind::CardDrawn {
                card,
                target,
                index,
                face_up,
                retransmit,
            } => self.on_card(
                seq,
                *card,
                *target,
                *index,
                *face_up,
                *retransmit == Some(true),
            ),
            EventKind::CuttingCardDrawn => {
                self.ensure_shoe(seq);
                self.on_cutting_card(seq);
            }
            EventKind::BurnCounted { count } => {
                self.ensure_shoe(seq);
                self.on_burn_counted(seq, *count);
            }
            EventKind::ResultDeclared {
                outcome,
                player_pair,
                banker_pair,
            } => {
                self.ensure_shoe(seq);
                self.on_result(seq, *outcome, *player_pair, *banker_pair);
            }
            EventKind::CardExposed { card, during } => self.on_exposed(seq, *card, *during),
            EventKind::DeviceError { code, text } => self.on_device_error(seq, code, text),
            EventKind::DeviceErrorCleared { code } => {
                if let Some(i) = self.open_errors.iter().position(|(c, _)| c == code) {
                    let (code, raised_seq) = self.open_errors.remove(i);
                    self.out
                        .push_back(Output::DeviceErrorCleared(DeviceErrorCleared {
                            shoe: self.shoe_no,
                            code,
                            raised_seq,
                            seq,
                        }));
                }
            }
            EventKind::CardsReplaced => self.on_cards_replaced(seq),
            EventKind::BetsClosed => {
                self.ensure_shoe(seq);
                self.on_bets_closed(seq);
            }
            EventKind::ShuffleStarted { .. } => {
                if let Some(found) = self.shuffler.started(seq) {
                    self.flag(found.code, None, seq, &found.evidence, found.message);
                }
                self.judge_steps(seq, false);
            }
            EventKind::ShuffleStep { step } if !self.book.shuffle_steps().is_empty() => {
                self.shuffler.step(seq, *step);
            }
            // A Blackjack decision or a poker action or misdeal means nothing in Baccarat: like a
            // lock, it changes no round. A preparation step under a book that lists none, and a
            // shuffler's counters, are for the record and the table view.
            EventKind::LockChanged { .. }
            | EventKind::TableStateChanged { .. }
            | EventKind::Decision { .. }
            | EventKind::PlayerActed { .. }
            | EventKind::MisdealDeclared { .. }
            | EventKind::ShufflerCounters { .. }
            | EventKind::ShuffleStep { .. }
            | EventKind::DealerSignedIn { .. }
            | EventKind::DealerSignedOut { .. } => {}
        }
        if self.shoe_open {
            self.shoe.last_seq = seq;
        }
        self.last_seq = Some(seq);
    }

    /// Ends the stream: closes an unfinished round and the current shoe.
    pub fn finish(&mut self) {
        if self.round.confirming {
            self.confirm_round();
        }
        // A result declared early is not judged when the stream ends before the round's third
        // card could come.
        self.round.held = None;
        if self.round.active {
            self.close_round(self.round.last_seq, Boundary::End);
        }
        self.settle();
        self.end_shoe();
    }

    /// The stream was cut off here: the monitor stopped listening (power loss, crash) and what
    /// happened at the table until the next event is unknown. Call it where a replayed record
    /// breaks off, before feeding the events recorded after the restart.
    ///
    /// - A round in progress is closed unfinished (`complete: false`, `partial: true`) without
    ///   any irregularity: its missing cards may simply not have been seen. A completed round's
    ///   result is no longer checked, nor is a card after it taken as an unauthorised third card
    ///   (the next result or card may belong to a round dealt unseen). What was already found
    ///   wrong in a round is output when the next round is settled, as without the cut.
    /// - The current shoe becomes partial from here on, as if joined part-way: no cards-left count
    ///   ([`TableView::cards_left`] is `None`), no burn, cut or cutting-card-depth checks, the
    ///   phase is [`Phase::Joining`] until the engine resynchronises, and its summary and
    ///   everything flagged in it carry `partial: true`. Rounds already output are unchanged.
    /// - The engine resynchronises at the next round boundary: with targets at the next Player
    ///   card 1; a plain shoe at the next "no more bets" if the stream reports it, otherwise at
    ///   once, its first round not judged. Cards before that are counted but dealt to no round.
    /// - Checks that stay valid keep working: EXCESS_CARD (the count of each card seen is kept),
    ///   the drawing rules and results of rounds seen whole, the last coup, device errors.
    /// - A pending "not shuffled" state (replaced or exposed cards) is dropped, and a device's
    ///   first card of a new shoe is not flagged NOT_SHUFFLED: the shuffle may have been missed.
    ///   The next shuffle starts a normal, non-partial shoe.
    ///
    /// Before any shoe, after [`Engine::finish`], or once the shoe's last coup was completed with
    /// no round in progress (the shoe already ended), it changes nothing. Deterministic, never
    /// panics, and allocates nothing beyond the round record it may output.
    pub fn interrupt(&mut self) {
        // What the shuffler did while nobody listened is unknown: the next shoe is not judged by
        // it (and a shoe resumed from its carry is interrupted alike).
        self.shuffler = ShufflerWatch::default();
        if !self.shoe_open || self.shoe.ended && !self.round.active {
            return;
        }
        self.shoe.partial = true;
        self.shoe.interrupted = true;
        if self.round.active {
            self.round.held = None;
            self.round.confirming = false;
            // What was already found in the round stays open, as it would if the stream went on:
            // it is output when the next round settles it, so it reaches the record with the
            // events after the restart, as replay gives it.
            let pending = self.pending.take();
            self.complete_round(false);
            self.pending = pending;
        }
        self.prev = None;
        self.shoe.burn = Burn::NotExpected;
        self.shoe.synced = false;
        self.shoe.await_bets = self.bets_reported;
        self.unshuffled = None;
    }
}

impl pitwatch_rules::Game for Engine {
    type Output = Output;
    type View = pitwatch_baccarat::TableView;

    fn game(&self) -> &'static str {
        "baccarat"
    }

    fn handle_event(&mut self, event: &TableEvent) {
        crate::legacy::Engine::handle_event(self, event);
    }

    fn poll_output(&mut self) -> Option<Output> {
        crate::legacy::Engine::poll_output(self)
    }

    fn finish(&mut self) {
        crate::legacy::Engine::finish(self);
    }

    fn interrupt(&mut self) {
        crate::legacy::Engine::interrupt(self);
    }

    fn view(&self) -> pitwatch_baccarat::TableView {
        crate::legacy::Engine::view(self)
    }
}

/// The position the rules give the next card, when they name one.
fn expected_position(next: NextCard) -> Option<(Side, u8)> {
    match next {
        NextCard::To(side, index) => Some((side, index)),
        NextCard::Unknown(_) | NextCard::Complete => None,
    }
}

/// Replays a whole event stream through a fresh engine and returns every output in order.
pub fn replay<'a>(
    book: &RuleBook,
    events: impl IntoIterator<Item = &'a TableEvent>,
) -> Vec<Output> {
    pitwatch_rules::run_stream(Engine::new(book.clone()), events)
}
