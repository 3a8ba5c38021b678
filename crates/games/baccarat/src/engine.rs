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

use crate::book::RuleBook;
use crate::drawing::{DrawingTable, NextCard};
use crate::record::{Output, RoundRecord};
use crate::side::{BySide, Hand, Side};
use crate::view::{LastCoup, NextCardView, RoundView, TableView};

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
            let next = match self.drawing.next_card(&hands.player, &hands.banker) {
                NextCard::To(side, card) => Some(NextCardView {
                    side,
                    card,
                    certain: true,
                }),
                NextCard::Unknown(side) => Some(NextCardView {
                    side,
                    card: 3,
                    certain: false,
                }),
                NextCard::Complete => None,
            };
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
            | EventKind::ShuffleStep { .. } => {}
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

    // ----- shoes -----

    /// A cut or a cutting card placed after an interruption, in a shoe that has shown no card:
    /// the deal has not begun (a shoe is cut and its cutting card placed before its first card),
    /// so whatever went by while nobody listened held no card. The shoe is followed from its
    /// first card on (burn and rounds as usual), as when a shoe cut off before its first card
    /// starts again ([`Engine::start_shoe`]); it stays marked partial.
    fn resume_before_first_card(&mut self, seq: u64) {
        if self.shoe_open
            && self.shoe.interrupted
            && !self.shoe.continuous
            && self.shoe.cards == 0
            && self.shoe.rounds == 0
            && !self.round.active
        {
            let composition = self.shoe.composition;
            self.start_shoe(seq, composition, None, false);
        }
    }

    /// A stream that does not start with a shuffle joined a shoe part-way.
    fn ensure_shoe(&mut self, seq: u64) {
        if self.shoe_no == 0 {
            self.start_shoe(seq, self.book.composition(), None, true);
        }
    }

    fn start_shoe(
        &mut self,
        seq: u64,
        composition: ShoeComposition,
        shuffler: Option<ShufflerKind>,
        partial: bool,
    ) {
        let reuse = self.shoe_open && self.shoe.cards == 0 && self.shoe.rounds == 0;
        // A shoe cut off before its first card is followed from that card on (burn and rounds
        // as usual), but stays marked partial: the cut and the cutting card may have gone by
        // while nobody was listening (`interrupt`), so what is flagged in it may lack context.
        let cut_off_before_first_card = reuse && self.shoe.interrupted;
        self.settle();
        if !reuse {
            // Once a shoe: what survives into the new shoe, as it stands now.
            self.carry = Carry {
                shoes: self.shoe_no,
                shuffles_reported: self.shuffles_reported,
                bets_reported: self.bets_reported,
                unshuffled: self.unshuffled,
                open_errors: self.open_errors.clone(),
                last_round: self.last_recorded,
                results_run: self.results_run,
                targets_reported: self.targets_reported,
                shuffler: self.shuffler.clone(),
            };
            self.end_shoe();
            self.shoe_no += 1;
            self.shoe.first_seq = seq;
        }
        let continuous = self.book.shuffler() == ShufflerKind::Continuous
            || shuffler == Some(ShufflerKind::Continuous);
        let burn = if partial {
            Burn::NotExpected
        } else {
            match self.book.burn() {
                BurnPolicy::None | BurnPolicy::Fixed(0) => Burn::NotExpected,
                BurnPolicy::Fixed(n) => Burn::Burning {
                    expected: Some(n),
                    seen: 0,
                    first_seq: seq,
                },
                BurnPolicy::FirstCardValue { .. } => Burn::AwaitFirst,
            }
        };
        self.shoe = Shoe {
            composition,
            counter: composition.counter(),
            continuous,
            partial: partial || cut_off_before_first_card,
            synced: !partial,
            cards: 0,
            rounds: 0,
            first_seq: self.shoe.first_seq,
            last_seq: seq,
            burn,
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
        };
        self.shoe_open = true;
        self.round = Round::IDLE;
        self.prev = None;
        self.last_card = None;
    }

    fn end_shoe(&mut self) {
        if !self.shoe_open {
            return;
        }
        self.settle();
        self.shoe_open = false;
        self.out.push_back(Output::Shoe(ShoeSummary {
            shoe: self.shoe_no,
            rounds: self.shoe.rounds,
            cards: self.shoe.cards,
            partial: self.shoe.partial,
            continuous: self.shoe.continuous,
            open_device_errors: self.open_errors.len() as u32,
            first_seq: self.shoe.first_seq,
            last_seq: self.shoe.last_seq,
        }));
    }

    /// A shuffle began a new shoe; `check` is what the shuffler's own deck check found wrong
    /// (cards missing, extra or foreign), if it reported one.
    fn on_shuffled(
        &mut self,
        seq: u64,
        decks: Option<u8>,
        cards: Option<u32>,
        shuffler: Option<ShufflerKind>,
        check: Option<String>,
    ) {
        if self.round.active {
            self.close_round(seq, Boundary::Reshuffle);
        }
        let default = self.book.composition();
        let reported = decks;
        let decks = decks.unwrap_or(default.decks);
        let composition = ShoeComposition::new(decks.max(1), default.kind);
        self.start_shoe(seq, composition, shuffler, false);
        self.judge_steps(seq, true);
        if let Some(found) = self.shuffler.loaded(seq, reported, cards) {
            self.flag(found.code, None, seq, &found.evidence, found.message);
        }
        self.shuffles_reported = true;
        // New cards shuffled, or pre-shuffled cards accepted as such (7.10, 11.3): either way
        // nothing is left to shuffle.
        self.unshuffled = None;
        // Everything wrong with the shuffled set is one fault: one incident listing it all.
        let mut wrong = Vec::new();
        let (min, max) = self.book.deck_range();
        if decks < min || decks > max {
            wrong.push(format!(
                "The shuffle reports {decks} decks; the rule book allows {min} to {max}."
            ));
        }
        if let Some(cards) = cards {
            let expected = composition.total_cards();
            if cards != expected {
                wrong.push(format!(
                    "The shuffler counted {cards} cards; {decks} decks of {} hold {expected}.",
                    default.kind
                ));
            }
        }
        if let Some(found) = check {
            // A count can be right while a card is missing and another doubled.
            let mut found = found;
            if let Some(first) = found.get_mut(..1) {
                first.make_ascii_uppercase();
            }
            wrong.push(format!("{found}."));
        }
        if !wrong.is_empty() {
            self.flag(
                Code::ShuffleCountMismatch,
                None,
                seq,
                &[seq],
                format!(
                    "{} Cards are missing, extra or foreign: remove the cards from the table and \
                     check them before play.",
                    wrong.join(" ")
                ),
            );
        }
    }

    fn on_cut(&mut self, seq: u64, position: u32) {
        if self.shoe.continuous || self.shoe.partial {
            return;
        }
        let total = self.shoe.composition.total_cards();
        let min = self.book.cut().cards(self.shoe.composition);
        if position < min || position.saturating_add(min) > total {
            let from_back = total.saturating_sub(position);
            self.flag(
                Code::CutTooCloseToEnd,
                None,
                seq,
                &[seq],
                format!(
                    "The cut was {position} cards from the front and {from_back} from the back; the \
                     rule book requires at least {min} from either end. Have the cards cut again."
                ),
            );
        }
    }

    fn on_cutting_card_placed(&mut self, seq: u64, from_back: u32) {
        if self.shoe.continuous || self.shoe.partial {
            return;
        }
        let limit = self.book.cutting_card();
        let total = self.shoe.composition.total_cards();
        if !limit.allows(from_back, total) {
            self.shoe.cutting_card_flagged = true;
            self.flag(
                Code::CuttingCardMisplaced,
                None,
                seq,
                &[seq],
                format!(
                    "The cutting card was placed with {from_back} cards behind it; the rule book \
                     requires {}. Reposition it before dealing.",
                    limit.describe()
                ),
            );
        }
    }

    fn on_cutting_card(&mut self, seq: u64) {
        if self.shoe.continuous || self.shoe.cutting_card_seen {
            // 7.8: no cutting card with a continuous shuffler; a second cutting card sits at the
            // back and changes nothing.
            return;
        }
        self.shoe.cutting_card_seen = true;
        if !self.shoe.partial && !self.shoe.cutting_card_flagged {
            let total = self.shoe.composition.total_cards();
            let behind = total.saturating_sub(self.shoe.cards);
            let limit = self.book.cutting_card();
            if !limit.allows(behind, total) {
                self.shoe.cutting_card_flagged = true;
                self.flag(
                    Code::CuttingCardMisplaced,
                    self.current_round(),
                    seq,
                    &[seq],
                    format!(
                        "The cutting card came out with {behind} cards behind it ({} dealt); the \
                         rule book requires {}. The shoe ends by the last-coup rule as usual; \
                         check how the cutting card was placed.",
                        self.shoe.cards,
                        limit.describe()
                    ),
                );
            }
        }
        // A tentative round complete by the rules is over: the cutting card comes between rounds.
        let in_round = self.round.active && !self.round.confirming;
        let next = self.shoe.rounds + 1;
        let last = match (self.book.end_of_shoe(), in_round) {
            // 11.2(b): complete this round, then one further round.
            (EndOfShoePolicy::LastCoup, true) => self.round.number + 1,
            // 11.2(a): drawn as the first card of a round, that round is the last.
            (EndOfShoePolicy::LastCoup, false) => next,
            (EndOfShoePolicy::FinishRound, true) => self.round.number,
            (EndOfShoePolicy::FinishRound, false) => next,
            (EndOfShoePolicy::OneMoreRound, true) => self.round.number + 1,
            (EndOfShoePolicy::OneMoreRound, false) => next + 1,
        };
        self.shoe.last_round = Some(last);
        if !in_round && self.shoe.rounds >= last {
            self.shoe.ended = true;
        }
    }

    fn on_cards_replaced(&mut self, seq: u64) {
        if self.round.active {
            self.close_round(seq, Boundary::Reshuffle);
        }
        if self.shoe_open {
            // New cards: count them afresh, and the old shoe's end no longer applies.
            self.shoe.counter = self.shoe.composition.counter();
            self.shoe.ended = false;
            self.shoe.last_round = None;
            self.shoe.cutting_card_seen = false;
            self.shoe.burn = Burn::NotExpected;
            self.shoe.replaced = true;
        }
        self.prev = None;
        self.unshuffled = Some((Unshuffled::Replaced, seq));
    }

    fn on_exposed(&mut self, seq: u64, card: Option<Card>, during: ExposedDuring) {
        let what = card.map_or_else(|| "A card".to_owned(), |c| format!("Card {c}"));
        match during {
            ExposedDuring::Cutting | ExposedDuring::Loading => {
                self.unshuffled = Some((Unshuffled::Exposed, seq));
                self.flag(
                    Code::CardExposed,
                    None,
                    seq,
                    &[seq],
                    format!(
                        "{what} was exposed during {during}. This is a misdeal: the cards must be \
                         reshuffled and cut again before any card is dealt."
                    ),
                );
            }
            ExposedDuring::Dealing => {
                let round = self.current_round().or(self.prev.map(|p| p.record.round));
                self.flag(
                    Code::CardExposed,
                    round,
                    seq,
                    &[seq],
                    format!(
                        "{what} was exposed during the deal. If it is a third card to the Player \
                         the rules do not authorise, 12.1(b): announce \"No bets this hand\" for \
                         the round it starts; otherwise the supervisor decides whether the round \
                         stands."
                    ),
                );
            }
        }
    }

    /// Cards were loaded (into the shuffler, or the shoe when `into_shoe`): flagged when the book
    /// lists preparation steps and they were not all logged, in order, since the last load. A
    /// book that lists none leaves the shuffler's state (and so the carry) as it was.
    fn judge_steps(&mut self, seq: u64, into_shoe: bool) {
        if self.book.shuffle_steps().is_empty() {
            return;
        }
        if let Some(found) = self
            .shuffler
            .load_steps(seq, self.book.shuffle_steps(), into_shoe)
        {
            self.flag_with(
                found.code,
                Cite::Steps,
                None,
                seq,
                &found.evidence,
                found.message,
            );
        }
    }

    fn on_device_error(&mut self, seq: u64, code: &str, text: &str) {
        if code == pitwatch_model::WITHHELD_ERROR_CODE {
            // Not an error the device clears: the order may be out, whatever the device does
            // next. Each withheld line is a finding of its own.
            let round = self.current_round();
            self.flag_with(
                Code::OrderDisclosed,
                Cite::Code,
                round,
                seq,
                &[seq],
                format!("Device error {code}: {text}"),
            );
            return;
        }
        if self.open_errors.iter().any(|(c, _)| c == code) {
            return;
        }
        self.open_errors.push((code.to_owned(), seq));
        let round = self.current_round();
        self.flag(
            Code::DeviceError,
            round,
            seq,
            &[seq],
            format!(
                "The device reported error {code} ({text}). It stays open until the device clears \
                 it: check the shoe and the cards of the current round before continuing."
            ),
        );
    }

    // ----- the burn -----

    /// Whether a plain card drawn now belongs to the burn whatever the count says: the stream
    /// reports "no more bets" and none has come in this shoe yet, so no round has begun (8.2).
    fn before_first_bets(&self, target: Option<Target>) -> bool {
        !self.shoe.bets_seen && target.is_none() && self.bets_reported && !self.shoe.partial
    }

    /// Handles a card during the burn; returns `true` when the card was a burn card. The burn's
    /// step is the shared tracker's ([`burn::step`]), read as Baccarat reads a plain shoe: every
    /// plain card before the shoe's first "no more bets" is the burn's, and after an unreadable
    /// first card plain cards are held until "no more bets" or the device's count says where the
    /// burn ended.
    fn burn_card(
        &mut self,
        seq: u64,
        card: Option<Card>,
        target: Option<Target>,
        face_up: Option<bool>,
    ) -> bool {
        // Most cards come after the burn: they cost one test, as before the step was shared.
        match self.shoe.burn {
            Burn::NotExpected => return false,
            Burn::Done { .. } if !self.before_first_bets(target) => return false,
            _ => {}
        }
        let reading = burn::Reading {
            until_bets: self.before_first_bets(target),
            hold_unknown: !self.bets_reported && !self.shoe.partial,
        };
        let mut found = Vec::new();
        let step = burn::step(
            &mut self.shoe.burn,
            self.book.burn(),
            seq,
            card,
            target,
            face_up,
            false,
            reading,
            &mut found,
        );
        for finding in found {
            match finding {
                burn::Found::Missing { seq, message } => {
                    self.flag(Code::BurnMissing, None, seq, &[seq], message())
                }
                burn::Found::Count {
                    seq,
                    first_seq,
                    expected,
                    seen,
                    how,
                } => self.flag_burn_count(seq, first_seq, expected, seen, how),
            }
        }
        match step {
            burn::Step::Burned => true,
            burn::Step::NotBurn => false,
            burn::Step::Unknown => self.hold_burn_card(seq, card),
        }
    }

    /// A plain card after an unreadable first card, in a stream not yet known to report "no more
    /// bets": held as the burn's until "no more bets" or the device's burn count says where the
    /// burn ended, or, if neither comes within the longest burn, the cards after the first card
    /// are followed as rounds. Returns whether it was held.
    fn hold_burn_card(&mut self, seq: u64, card: Option<Card>) -> bool {
        let Burn::Burning {
            expected,
            seen,
            first_seq,
        } = self.shoe.burn
        else {
            return false;
        };
        let held = usize::from(self.shoe.held_burn_len);
        if held < HELD_BURN {
            self.shoe.held_burn[held] = (card, seq);
            self.shoe.held_burn_len += 1;
            self.shoe.burn = Burn::Burning {
                expected,
                seen: seen + 1,
                first_seq,
            };
            return true;
        }
        self.shoe.burn = Burn::Done {
            expected,
            seen: 0,
            first_seq,
        };
        self.release_held_burn(0);
        false
    }

    /// The shoe's first "no more bets": the burn is over, however many cards it had. A burn that
    /// never began is missing; one that stopped short is too short; in a stream not yet known to
    /// report "no more bets" (its first shoe), plain cards already taken for round 1 were burn
    /// cards.
    fn end_burn_at_bets(&mut self, seq: u64) {
        match self.shoe.burn {
            Burn::NotExpected => {}
            Burn::AwaitFirst => {
                self.flag(
                    Code::BurnMissing,
                    None,
                    seq,
                    &[seq],
                    burn::missing_at_bets(),
                );
                self.shoe.burn = Burn::Done {
                    expected: None,
                    seen: 0,
                    first_seq: seq,
                };
            }
            Burn::Burning {
                expected,
                seen,
                first_seq,
            } => {
                // Cards held after an unreadable first card were the burn's.
                self.shoe.held_burn_len = 0;
                self.shoe.burn = Burn::Done {
                    expected,
                    seen,
                    first_seq,
                };
                if let Some(e) = expected {
                    if seen < e {
                        self.flag_burn_count(seq, first_seq, e, seen, "too few");
                    }
                }
            }
            Burn::Done {
                expected,
                seen,
                first_seq,
            } => {
                let taken = self.round.active
                    && self.round.number == 1
                    && self.prev.is_none()
                    && !self.round.carried
                    && !self.shoe.partial
                    && self.round.cards() < 4
                    && !self.targets_reported;
                if taken {
                    // Plain cards before the first "no more bets" were taken for round 1 before
                    // the engine knew the stream reports it: they were burn cards.
                    let seen = seen + self.round.cards() as u32;
                    self.drop_round();
                    self.shoe.burn = Burn::Done {
                        expected,
                        seen,
                        first_seq,
                    };
                    if let Some(e) = expected {
                        if seen > e {
                            self.flag_burn_count(seq, first_seq, e, seen, "too many");
                        }
                    }
                }
            }
        }
    }

    fn flag_burn_count(&mut self, seq: u64, first_seq: u64, expected: u32, seen: u32, how: &str) {
        if self.shoe.burn_flagged {
            return;
        }
        self.shoe.burn_flagged = true;
        self.flag(
            Code::BurnCountMismatch,
            None,
            seq,
            &[first_seq, seq],
            burn::count_message(self.book.burn(), expected, seen, how),
        );
    }

    fn on_burn_counted(&mut self, seq: u64, count: u32) {
        let Some((expected, seen, first_seq, burning)) = self.shoe.burn.begun() else {
            return;
        };
        if let Some(e) = expected {
            if count != e {
                let how = if count < e { "too few" } else { "too many" };
                self.flag_burn_count(seq, first_seq, e, count, how);
            }
        }
        if burning && self.shoe.held_burn_len > 0 {
            // Cards held after an unreadable first card: the device's count says how many were
            // the burn's; the rest began round 1.
            let burned = count.min(seen);
            self.shoe.burn = Burn::Done {
                expected: Some(count),
                seen: burned,
                first_seq,
            };
            if count > seen {
                self.shoe.burn = Burn::Burning {
                    expected: Some(count),
                    seen,
                    first_seq,
                };
                self.shoe.held_burn_len = 0;
            } else {
                self.release_held_burn(burned as usize);
            }
            return;
        }
        // The device counted the burn, so it knows where the burn ended even when a plain shoe
        // could not say: resynchronise on its count.
        if burning && count <= seen {
            self.shoe.burn = Burn::Done {
                expected,
                seen,
                first_seq,
            };
        } else if !burning
            && count > seen
            && self.round.active
            && self.round.number == 1
            && self.prev.is_none()
            && self.round.cards() as u32 == count - seen
        {
            // A plain shoe took extra burn cards for the first round's cards: give them back.
            self.drop_round();
            self.shoe.burn = Burn::Done {
                expected,
                seen: count,
                first_seq,
            };
        }
    }

    /// Deals the cards held after an unreadable first card, from the `from`th on, as rounds
    /// (they were counted against the shoe when they came).
    fn release_held_burn(&mut self, from: usize) {
        let held = self.shoe.held_burn;
        let len = usize::from(self.shoe.held_burn_len);
        self.shoe.held_burn_len = 0;
        for &(card, seq) in held.iter().take(len).skip(from) {
            self.deal_plain(seq, card, None);
            self.complete_if_done();
        }
    }

    /// Forgets the round in progress, which proved not to be a round (its cards were burn
    /// cards); what was flagged about it so far no longer has a round.
    fn drop_round(&mut self) {
        self.shoe.rounds = self.shoe.rounds.saturating_sub(1);
        let number = self.round.number;
        self.round = Round::IDLE;
        if let Some(p) = &mut self.pending {
            if p.shoe == self.shoe_no && p.round == Some(number) {
                p.round = None;
            }
        }
        self.settle();
    }

    // ----- cards and rounds -----

    /// Whether a retransmitted report repeats a card already counted: it names a position
    /// (target and index) that already holds that very card, in the round being dealt or the one
    /// just completed, or it repeats the last burn card's target, index and card. A plain report
    /// names no position, so nothing tells it from the next card: the driver drops repeats of
    /// those (`docs/events.md`).
    fn already_counted(
        &self,
        card: Option<Card>,
        target: Option<Target>,
        index: Option<u8>,
    ) -> bool {
        if target.is_none() {
            return false;
        }
        if self.last_card == Some((card, target, index)) {
            return true;
        }
        let side = match target {
            Some(Target::Player) => Side::Player,
            Some(Target::Banker) => Side::Banker,
            _ => return false,
        };
        let Some(position) = index.filter(|i| *i >= 1).map(|i| usize::from(i) - 1) else {
            return false;
        };
        let hands = if self.round.active {
            Some(self.round.hands)
        } else {
            self.prev.filter(|p| p.open).map(|p| BySide {
                player: p.record.player,
                banker: p.record.banker,
            })
        };
        hands.is_some_and(|h| h.get(side).card(position) == Some(card))
    }

    /// Whether a card is the one a round held open by an early result is waiting for.
    fn is_due(&self, target: Option<Target>, index: Option<u8>) -> bool {
        let side = match target {
            // A plain shoe holds a round open only until "no more bets", so any card is due.
            None => return !self.targets_reported,
            Some(Target::Player) => Side::Player,
            Some(Target::Banker) => Side::Banker,
            Some(_) => return false,
        };
        let hands = &self.round.hands;
        match self.drawing.next_card(&hands.player, &hands.banker) {
            NextCard::To(s, i) => s == side && index.is_none_or(|x| x == i),
            NextCard::Unknown(_) | NextCard::Complete => false,
        }
    }

    fn on_card(
        &mut self,
        seq: u64,
        card: Option<Card>,
        target: Option<Target>,
        index: Option<u8>,
        face_up: Option<bool>,
        retransmit: bool,
    ) {
        if retransmit && self.already_counted(card, target, index) {
            // The device sent the same report again (docs/events.md, "retransmit"): the card was
            // counted when it first arrived.
            return;
        }
        if !self.targets_reported
            && matches!(
                target,
                Some(Target::Player | Target::Banker | Target::First | Target::Burn)
            )
        {
            self.targets_reported = true;
        }
        if self.round.active && (self.round.confirming || self.round.held.is_some()) {
            self.settle_open_round(target, index);
        }
        let first_of_shoe = target == Some(Target::First)
            && !(self.shoe_open && self.shoe.burn == Burn::AwaitFirst);
        if first_of_shoe {
            self.first_card_of_a_shoe(seq);
        }
        self.ensure_shoe(seq);
        self.shoe.cards += 1;
        if matches!(target, Some(Target::First | Target::Burn)) {
            // A Player or Banker card's position is in its round; a burn card's only here.
            self.last_card = Some((card, target, index));
        }
        if self.unshuffled.is_some() {
            self.flag_unshuffled(seq);
        }
        if target.is_none() && self.targets_reported {
            self.stray_card(seq, card);
            return;
        }
        if self.burn_card(seq, card, target, face_up) {
            self.see(seq, card, None);
            return;
        }
        let side = match target {
            None => None,
            Some(Target::Player) => Some(Side::Player),
            Some(Target::Banker) => Some(Side::Banker),
            Some(Target::Burn | Target::First) => {
                // A burn card outside the burn (or a first card under a book without one):
                // counted, dealt to no hand.
                self.see(seq, card, None);
                return;
            }
            Some(other) => {
                let round = self.current_round();
                self.see(seq, card, round);
                self.flag(
                    Code::DealOutOfOrder,
                    round,
                    seq,
                    &[seq],
                    format!(
                        "A card was reported to {other}, which Baccarat does not have; it is \
                         left out of the round. Check the device's configuration."
                    ),
                );
                return;
            }
        };
        if !self.shoe.synced {
            // Joined part-way with a device that reports targets: wait for a round's first card.
            // A plain shoe cannot tell, so it starts at once (its first round is not judged).
            // After an interruption a plain shoe that can wait for "no more bets" does.
            let plain = side.is_none() && !self.shoe.await_bets;
            if plain || side == Some(Side::Player) && index.is_none_or(|i| i == 1) {
                self.shoe.synced = true;
                if plain && self.shoe.interrupted {
                    self.shoe.resync_round = self.shoe.rounds + 1;
                }
            } else {
                self.see(seq, card, None);
                return;
            }
        }
        let round = match side {
            Some(side) => self.deal_targeted(seq, card, side, index, face_up, retransmit),
            None => self.deal_plain(seq, card, face_up),
        };
        self.see(seq, card, round);
        self.complete_if_done();
    }

    /// A round left open for a card that might still belong to it meets the next card: a
    /// tentative round complete by the rules proves one card too long (or a new shoe begins), a
    /// round held by an early result gets its due card or is closed without it.
    #[cold]
    #[inline(never)]
    fn settle_open_round(&mut self, target: Option<Target>, index: Option<u8>) {
        if self.round.confirming {
            if target == Some(Target::First) {
                self.confirm_round();
            } else {
                // One card more than a round that began with the card between rounds takes:
                // that card was set aside, and the round is the cards after it.
                self.redeal_tentative();
            }
        } else if self.round.held.is_some() && !self.is_due(target, index) {
            self.end_hold();
        }
    }

    /// A device that reports the first card announces a new shoe by itself (the Angel Eye sends no
    /// shuffle): start one, but if the stream does report shuffles, this shoe was not shuffled.
    #[cold]
    #[inline(never)]
    fn first_card_of_a_shoe(&mut self, seq: u64) {
        // After an interruption the shuffle may have happened while nobody was listening.
        let interrupted = self.shoe_open && self.shoe.interrupted;
        if self.round.active {
            self.close_round(seq, Boundary::Reshuffle);
        }
        // A shoe just shuffled with nothing drawn yet is this shoe, not a previous one.
        let fresh = self.shoe_open && self.shoe.cards == 0 && self.unshuffled.is_none();
        let composition = if fresh {
            self.shoe.composition
        } else {
            // A shoe that reports no decks holds what its shuffler shuffled for it, when known.
            let book = self.book.composition();
            match self.shuffler.pending.as_ref().and_then(|held| held.decks) {
                Some(decks) if decks > 0 => ShoeComposition::new(decks, book.kind),
                _ => book,
            }
        };
        let shuffler = (fresh && self.shoe.continuous).then_some(ShufflerKind::Continuous);
        self.start_shoe(seq, composition, shuffler, false);
        if fresh {
            return;
        }
        // The shoe reports no shuffle of its own: it was loaded from the shuffler's last (used up
        // here whatever else is said, so the state after this card does not depend on it).
        self.judge_steps(seq, true);
        let loaded = self.shuffler.loaded(seq, None, None);
        if interrupted {
            // The shuffle may have happened while nobody was listening.
        } else if self.shuffles_reported || self.unshuffled.is_some() {
            self.unshuffled = None;
            self.flag(
                Code::NotShuffled,
                None,
                seq,
                &[seq],
                "A new shoe began (first card of the burn) with no shuffle since the last \
                 shoe. The cards must be shuffled and cut before play."
                    .to_owned(),
            );
        } else if let Some(found) = loaded {
            self.flag(found.code, None, seq, &found.evidence, found.message);
        }
    }

    /// Cards dealt while the cards must first be shuffled.
    #[cold]
    #[inline(never)]
    fn flag_unshuffled(&mut self, seq: u64) {
        let Some((why, since)) = self.unshuffled.take() else {
            return;
        };
        let message = match why {
            Unshuffled::Replaced => {
                "Cards were dealt from replaced cards that were not shuffled and cut (7.10), \
                 nor accepted as pre-shuffled. Stop: the new cards must be checked, shuffled \
                 and cut."
            }
            Unshuffled::Exposed => {
                "Cards were dealt after a card was exposed before play, without a new \
                 shuffle. This is a misdeal: reshuffle and cut."
            }
        };
        self.flag(
            Code::NotShuffled,
            self.current_round(),
            seq,
            &[since, seq],
            message.to_owned(),
        );
    }

    /// A device that reports where every card goes reported this one to no hand (an Angel Eye
    /// card drawn outside a game): it left the shoe, but it starts no round.
    #[cold]
    #[inline(never)]
    fn stray_card(&mut self, seq: u64, card: Option<Card>) {
        let round = self.current_round();
        self.see(seq, card, round);
        self.unplaceable(
            seq,
            card,
            round,
            "to no hand, by a device that reports where every card goes".to_owned(),
        );
    }

    /// Counts a card against the shoe and flags excess and unreadable cards.
    #[inline(always)]
    fn see(&mut self, seq: u64, card: Option<Card>, round: Option<u32>) {
        match card {
            Some(card) => {
                if !self.shoe.counter.see(card) {
                    self.flag_excess(seq, card, round);
                }
            }
            None => self.flag_unreadable(seq, round),
        }
    }

    #[cold]
    #[inline(never)]
    fn flag_excess(&mut self, seq: u64, card: Card, round: Option<u32>) {
        let copies = self.shoe.counter.seen(card);
        let holds = self.shoe.composition.copies_of(card);
        self.flag(
            Code::ExcessCard,
            round,
            seq,
            &[seq],
            format!(
                "{card} is copy {copies} of a card the shoe holds {holds} times: a foreign or \
                 duplicate card. Stop play, remove it and check the cards."
            ),
        );
    }

    #[cold]
    #[inline(never)]
    fn flag_unreadable(&mut self, seq: u64, round: Option<u32>) {
        self.flag(
            Code::UnreadableCard,
            round,
            seq,
            &[seq],
            "The device could not read a card. Read it at the table and record it; the round's \
             result is unknown to the monitor until then."
                .to_owned(),
        );
    }

    /// Flags a card the engine cannot place in any hand (reported `what`). It is counted against
    /// the shoe, and no round is started for it.
    #[cold]
    #[inline(never)]
    fn unplaceable(&mut self, seq: u64, card: Option<Card>, round: Option<u32>, what: String) {
        let shown = card.map_or("An unreadable card".to_owned(), |c| format!("Card {c}"));
        self.flag(
            Code::DealOutOfOrder,
            round,
            seq,
            &[seq],
            format!(
                "{shown} was reported {what}. It left the shoe but belongs to no hand: it is not \
                 counted in any round and starts none. Find out where it went (8.4); if a round \
                 cannot be reconstructed, it is a misdeal."
            ),
        );
    }

    /// Whether the stream declares every round's result (the last rounds' results all came
    /// before the next round began).
    fn results_declared(&self) -> bool {
        self.results_run >= 2
    }

    fn current_round(&self) -> Option<u32> {
        self.round.active.then_some(self.round.number)
    }

    /// Starts the next round. A round started by a card carried over under 12.1(b) leaves the
    /// previous round's irregularity open (the card belongs to its settlement); any other settles
    /// it.
    fn start_round(&mut self, seq: u64, carried: bool) {
        if !carried {
            self.settle();
            if let Some(prev) = self.prev {
                self.results_run = if prev.result_checked {
                    self.results_run.saturating_add(1)
                } else {
                    0
                };
            }
        }
        self.shoe.rounds += 1;
        self.round = Round {
            active: true,
            number: self.shoe.rounds,
            first_seq: seq,
            last_seq: seq,
            carried,
            ..Round::IDLE
        };
        if self.shoe.continuous {
            // Discards go back into a continuous shuffler, so copies are only countable within a
            // round.
            self.shoe.counter = self.shoe.composition.counter();
        }
    }

    /// Flags the first round dealt after the last coup was completed (once per shoe).
    fn check_past_last_coup(&mut self, seq: u64) {
        if self.shoe.ended && !self.shoe.continuous && !self.shoe.past_last_coup_flagged {
            self.shoe.past_last_coup_flagged = true;
            let last = self.shoe.last_round.unwrap_or(0);
            self.flag(
                Code::DealtPastLastCoup,
                Some(self.round.number),
                seq,
                &[seq],
                format!(
                    "Round {} was dealt after the last coup (round {last}) was completed. No \
                     further cards may be dealt until the cards are replaced or reshuffled (11.2).",
                    self.round.number
                ),
            );
        }
    }

    /// Places a card the device reported to `side` (at `index`, when given); returns the round
    /// it belongs to. The device is believed about where the card is: the hands are followed as
    /// dealt, and a round is complete when both hands hold what the Table of Play gives them,
    /// whatever order the cards came in. Only a Player or Banker card 1 starts a round, so a
    /// stray card never invents one.
    fn deal_targeted(
        &mut self,
        seq: u64,
        card: Option<Card>,
        side: Side,
        index: Option<u8>,
        face_up: Option<bool>,
        retransmit: bool,
    ) -> Option<u32> {
        let what = |index: Option<u8>| match index {
            Some(i) => format!("as {side} card {i}"),
            None => format!("to the {side}"),
        };
        if !self.round.active {
            match index {
                None | Some(1) => {}
                Some(3) => {
                    if let Some(r) = self.stray_third_card(seq, card, side, face_up) {
                        return Some(r);
                    }
                    let round = self.prev.filter(|p| p.open).map(|p| p.record.round);
                    self.unplaceable(
                        seq,
                        card,
                        round,
                        format!("{}, when no round was being dealt", what(index)),
                    );
                    return round;
                }
                Some(_) => {
                    // A card 2, or a fourth card, with no round in progress: it cannot begin one.
                    let round = self.prev.filter(|p| p.open).map(|p| p.record.round);
                    self.unplaceable(
                        seq,
                        card,
                        round,
                        format!("{}, when no round was being dealt", what(index)),
                    );
                    return round;
                }
            }
            self.start_round(seq, false);
        } else if index == Some(1) && !self.round.hands.get(side).is_empty() {
            // The device says a new round began while this one was unfinished.
            self.close_round(seq, Boundary::NewRound);
            self.start_round(seq, false);
        }
        if let Some(prev) = &mut self.prev {
            prev.open = false;
        }
        let number = self.round.number;
        let hands = self.round.hands;
        let len = hands.get(side).len();
        let position = match index {
            Some(i) if i >= 1 => usize::from(i),
            _ => len + 1,
        };
        if position > Hand::MAX {
            self.unplaceable(
                seq,
                card,
                Some(number),
                format!(
                    "{}, but a Baccarat hand holds at most three cards",
                    what(index)
                ),
            );
            return Some(number);
        }
        if position <= len {
            let held = hands.get(side).card(position - 1).flatten();
            let holding = held.map_or("an unreadable card".to_owned(), |c| c.to_string());
            self.unplaceable(
                seq,
                card,
                Some(number),
                format!("{}, a position that already holds {holding}", what(index)),
            );
            return Some(number);
        }
        // Checked here rather than when a round starts: a Player card carried over by 12.1(b)
        // from the last coup belongs to that coup's settlement, and the round it starts is past
        // the last coup only once it is dealt on.
        self.check_past_last_coup(seq);
        let next = self.drawing.next_card(&hands.player, &hands.banker);
        if position > len + 1 {
            if let Some(slot) = self.round.ahead.iter_mut().find(|a| a.is_none()) {
                // A later position of the hand than the next: the device says where the card
                // is, so it waits there until the positions before it are filled.
                *slot = Some((side, position as u8, card, seq));
                self.round.ahead_len += 1;
                if !self.round.order_flagged {
                    self.round.order_flagged = true;
                    self.round.order_gap = expected_position(next);
                    self.flag_out_of_order(seq, card, side, position, next, number);
                }
                return Some(number);
            }
        }
        let as_expected = position == len + 1
            && match next {
                NextCard::To(s, i) => s == side && position == usize::from(i),
                // An unreadable card hides the decision: any third card may be right.
                NextCard::Unknown(_) => position == 3,
                NextCard::Complete => false,
            };
        if as_expected {
            self.push(seq, side, card);
            if retransmit && self.round.order_gap == Some((side, position as u8)) {
                self.withdraw_order_flag();
            }
        } else if side == Side::Player
            && position == 3
            && len == 2
            && next == NextCard::To(Side::Banker, 3)
        {
            // 12.1: a third card to the Player that the rules do not authorise, while the round
            // is still open, so the Banker must draw: 12.1(a) makes it the Banker's third card.
            self.flag_player_card_to_banker(seq, card, number);
            self.push(seq, Side::Banker, card);
            return Some(number);
        } else {
            if !self.round.order_flagged {
                self.round.order_flagged = true;
                self.round.order_gap = expected_position(next);
                self.flag_out_of_order(seq, card, side, position, next, number);
            }
            self.push(seq, side, card);
        }
        if self.round.ahead_len > 0 {
            self.place_ahead();
        }
        if side == Side::Player && self.round.hands.player.len() == 3 {
            self.check_early_banker_card(seq);
        }
        Some(number)
    }

    /// A card reported out of order only because the card before it was lost in transmission:
    /// that card has now arrived, retransmitted, for the very position the rules expected. If
    /// the round's irregularity is that finding alone, it is withdrawn (it was not yet output).
    #[cold]
    #[inline(never)]
    fn withdraw_order_flag(&mut self) {
        self.round.order_gap = None;
        let number = self.round.number;
        let only_order = self.pending.as_ref().is_some_and(|p| {
            p.shoe == self.shoe_no
                && p.round == Some(number)
                && p.code == Code::DealOutOfOrder
                && p.also.is_empty()
        });
        if only_order {
            self.pending = None;
            self.round.order_flagged = false;
        }
    }

    /// Places the cards held for later positions whose turn has come.
    #[cold]
    #[inline(never)]
    fn place_ahead(&mut self) {
        let mut placed = true;
        while placed {
            placed = false;
            for i in 0..self.round.ahead.len() {
                let Some((side, index, card, seq)) = self.round.ahead[i] else {
                    continue;
                };
                if usize::from(index) == self.round.hands.get(side).len() + 1 {
                    self.round.ahead[i] = None;
                    self.round.ahead_len -= 1;
                    let last = self.round.last_seq;
                    self.push(seq, side, card);
                    self.round.last_seq = last.max(seq);
                    placed = true;
                }
            }
        }
    }

    /// Cards still held for later positions when the round ends: their positions never came,
    /// so they join the hands as dealt.
    fn flush_ahead(&mut self) {
        for i in 0..self.round.ahead.len() {
            if let Some((side, _, card, seq)) = self.round.ahead[i].take() {
                self.round.ahead_len -= 1;
                let last = self.round.last_seq;
                self.push(seq, side, card);
                self.round.last_seq = last.max(seq);
            }
        }
    }

    #[cold]
    #[inline(never)]
    fn flag_player_card_to_banker(&mut self, seq: u64, card: Option<Card>, number: u32) {
        self.flag(
            Code::UnauthorisedThirdCard,
            Some(number),
            seq,
            &[seq],
            format!(
                "A third card{} was dealt to the Player's hand, which the rules do not authorise. \
                 The Banker's hand must draw, so by 12.1(a) it becomes the Banker's third card. \
                 Check that the hands were settled that way.",
                card.map_or(String::new(), |c| format!(" ({c})"))
            ),
        );
    }

    #[cold]
    #[inline(never)]
    fn flag_out_of_order(
        &mut self,
        seq: u64,
        card: Option<Card>,
        side: Side,
        position: usize,
        next: NextCard,
        number: u32,
    ) {
        let expected = match next {
            NextCard::To(s, i) => format!("{s} card {i}"),
            NextCard::Unknown(s) => format!("possibly {s} card 3"),
            NextCard::Complete => "no further card".to_owned(),
        };
        self.flag(
            Code::DealOutOfOrder,
            Some(number),
            seq,
            &[seq],
            format!(
                "{} was dealt to {side} card {position}, but by 8.4 and the Table of Play the next \
                 card is {expected}. The hands are followed as dealt; the supervisor decides \
                 whether the round can be reconstructed or is a misdeal.",
                card.map_or("An unreadable card".to_owned(), |c| format!("Card {c}")),
            ),
        );
    }

    /// The Player's third card has come after a Banker third card (dealt out of order): now the
    /// Table of Play can say whether the Banker was entitled to it. If not, it is set aside and
    /// not counted in the round, and the round's irregularity says so.
    fn check_early_banker_card(&mut self, seq: u64) {
        let hands = self.round.hands;
        if hands.banker.len() != 3 {
            return;
        }
        let (Some(p2), Some(b2), Some(Some(third))) = (
            hands.player.points_of_first(2),
            hands.banker.points_of_first(2),
            hands.player.card(2),
        ) else {
            return;
        };
        if self.drawing.banker(p2, b2, Some(third.baccarat_points()))
            == crate::drawing::Decision::Draw
        {
            return;
        }
        let Some(set_aside) = self.round.hands.banker.pop() else {
            return;
        };
        let shown = set_aside.map_or(String::new(), |c| format!(" ({c})"));
        let first = self.round.first_seq;
        self.flag_with(
            Code::UnauthorisedThirdCard,
            Cite::BankerCard,
            Some(self.round.number),
            seq,
            &[first, seq],
            format!(
                "The Banker's third card{shown} came before the Player's third card ({third}), \
                 and with it the Table of Play gives the Banker no third card. It is not part of \
                 the round; the result stands on the Banker's first two cards. Set the card aside."
            ),
        );
    }

    /// Places a card from a plain shoe where the rules say the next card goes; returns the round.
    #[inline(always)]
    fn deal_plain(&mut self, seq: u64, card: Option<Card>, face_up: Option<bool>) -> Option<u32> {
        if !self.round.active {
            if let Some(r) = self.start_plain_round(seq, card, face_up) {
                return Some(r);
            }
        }
        if let Some(prev) = &mut self.prev {
            prev.open = false;
        }
        let to = match self
            .drawing
            .next_card(&self.round.hands.player, &self.round.hands.banker)
        {
            NextCard::To(s, _) | NextCard::Unknown(s) => s,
            NextCard::Complete => Side::Player,
        };
        if !self.round.tentative {
            // A round begun by a card between rounds (12.1(b)) may yet prove to be that card and
            // more set aside, all of the round before: it is past the last coup only once it is
            // confirmed as a round.
            self.check_past_last_coup(seq);
        }
        self.push(seq, to, card);
        Some(self.round.number)
    }

    /// Starts a plain round with this card, or, if it is a card between rounds, the round it
    /// begins under 12.1(b) (returned).
    #[inline(never)]
    fn start_plain_round(
        &mut self,
        seq: u64,
        card: Option<Card>,
        face_up: Option<bool>,
    ) -> Option<u32> {
        if let Some(r) = self.card_between_rounds(seq, card, face_up) {
            return Some(r);
        }
        let unannounced =
            !self.bets_reported && self.prev.is_some_and(|p| p.open && !p.result_checked);
        self.start_round(seq, false);
        self.round.unannounced = unannounced;
        None
    }

    /// A plain card after a completed round and before the next round's boundary ("no more bets",
    /// or the round's result in a stream that declares results): a card the rules gave no hand. A
    /// plain shoe cannot say which hand it went to; read as 12.1(b), it becomes the first card of
    /// the next round (with no bets if it was disclosed). If that round then proves one card too
    /// long, the card was set aside instead and the round is the cards after it.
    fn card_between_rounds(
        &mut self,
        seq: u64,
        card: Option<Card>,
        face_up: Option<bool>,
    ) -> Option<u32> {
        let prev = self.prev.filter(|p| {
            p.open && (self.bets_reported || self.results_declared() && !p.result_checked)
        })?;
        self.flag_card_between_rounds(prev.record, seq, card, face_up);
        self.start_round(seq, true);
        self.round.tentative = true;
        self.round.no_bets = face_up == Some(true);
        self.push(seq, Side::Player, card);
        Some(self.round.number)
    }

    /// Flags a plain card dealt after `record`'s round was complete and before the next round's
    /// boundary, read as 12.1(b).
    fn flag_card_between_rounds(
        &mut self,
        record: RoundRecord,
        seq: u64,
        card: Option<Card>,
        face_up: Option<bool>,
    ) {
        let shown = card.map_or(String::new(), |c| format!(" ({c})"));
        let then = if face_up == Some(true) {
            " It was disclosed, so the dealer announces \"No bets this hand\" for that round."
        } else {
            ""
        };
        let boundary = if self.bets_reported {
            "\"No more bets\" for the next round"
        } else {
            "the round's result"
        };
        self.flag(
            Code::UnauthorisedThirdCard,
            Some(record.round),
            seq,
            &[record.first_seq, record.last_seq, seq],
            format!(
                "A card{shown} was dealt after round {} was complete and before {boundary}: a \
                 third card the rules do not authorise. By 12.1(b) it becomes the first card of \
                 the next round{then}; if the next round is dealt with four cards of its own, it \
                 was set aside. If instead the next round was dealt before bets closed (8.2), \
                 correct the record.",
                record.round
            ),
        );
    }

    /// A third card for a round that already finished: 12.1(b) for the Player, the drawing
    /// rules for the Banker. Returns the round it was settled in, or `None` if it is not a third
    /// card of the round just completed.
    fn stray_third_card(
        &mut self,
        seq: u64,
        card: Option<Card>,
        side: Side,
        face_up: Option<bool>,
    ) -> Option<u32> {
        let prev = self.prev.filter(|p| p.open)?;
        let record = prev.record;
        if record.player.len() != 2 && side == Side::Player
            || record.banker.len() != 2 && side == Side::Banker
        {
            return None;
        }
        let shown = card.map_or(String::new(), |c| format!(" ({c})"));
        match side {
            Side::Player => {
                let disclosed = face_up == Some(true);
                let then = if disclosed {
                    "It was disclosed, so the dealer announces \"No bets this hand\" for the round \
                     it starts."
                } else {
                    "It was not disclosed, so no further action is needed."
                };
                self.flag(
                    Code::UnauthorisedThirdCard,
                    Some(record.round),
                    seq,
                    &[record.first_seq, seq],
                    format!(
                        "A third card{shown} was dealt to the Player's hand in round {}, which the \
                         rules do not authorise. The Banker's hand stands, so by 12.1(b) it becomes \
                         the first card of the next round. {then}",
                        record.round
                    ),
                );
                self.start_round(seq, true);
                self.round.no_bets = disclosed;
                self.push(seq, Side::Player, card);
                Some(self.round.number)
            }
            Side::Banker => {
                if let Some(prev) = &mut self.prev {
                    prev.open = false;
                }
                self.flag_with(
                    Code::UnauthorisedThirdCard,
                    Cite::BankerCard,
                    Some(record.round),
                    seq,
                    &[record.first_seq, seq],
                    format!(
                        "A third card{shown} was dealt to the Banker's hand in round {}, which the \
                         Table of Play does not authorise. It is not part of the round; the result \
                         stands on the first cards. Set the card aside.",
                        record.round
                    ),
                );
                Some(record.round)
            }
        }
    }

    #[inline]
    fn push(&mut self, seq: u64, side: Side, card: Option<Card>) {
        let at = self.round.cards();
        if self.round.hands.get_mut(side).push(card) {
            if let Some(slot) = self.round.seqs.get_mut(at) {
                *slot = seq;
            }
        }
        self.round.last_seq = seq;
        if self.round.carried && self.round.cards() > 1 {
            self.round.carried = false;
        }
    }

    /// Emits the current round if its last card has been dealt. Called once the card that
    /// completed it has been counted, so a flag about that card is part of the round's
    /// irregularity. A tentative round (begun with a card between rounds) waits for the next
    /// event to confirm it.
    #[inline]
    fn complete_if_done(&mut self) {
        let hands = &self.round.hands;
        if self.round.active
            && !self.round.confirming
            && self.drawing.next_card(&hands.player, &hands.banker) == NextCard::Complete
        {
            if self.round.tentative {
                self.round.confirming = true;
            } else {
                self.complete_round(true);
            }
        }
    }

    /// A tentative round complete by the rules, confirmed by the boundary that followed it.
    fn confirm_round(&mut self) {
        self.round.confirming = false;
        self.round.tentative = false;
        self.check_dealt_on_past_last_coup();
        self.complete_round(true);
    }

    /// A round begun by a card between rounds, now known to be a round: if it was dealt on after
    /// the last coup, it is past it (checked at its second card, as an untentative round is).
    fn check_dealt_on_past_last_coup(&mut self) {
        if self.round.cards() > 1 {
            self.check_past_last_coup(self.round.seqs[1]);
        }
    }

    /// The cards of a plain round in the order they were placed: P1, B1, P2, B2, then the
    /// Player's third card, then the Banker's.
    fn plain_order(hands: &BySide<Hand>) -> ([Option<Card>; 6], usize) {
        let mut cards = [None; 6];
        let mut n = 0;
        let mut add = |card: Option<Option<Card>>| {
            if let Some(card) = card {
                cards[n] = card;
                n += 1;
            }
        };
        add(hands.player.card(0));
        add(hands.banker.card(0));
        add(hands.player.card(1));
        add(hands.banker.card(1));
        add(hands.player.card(2));
        add(hands.banker.card(2));
        (cards, n)
    }

    /// The hands the cards of a tentative round after its first (the card between rounds) make,
    /// if they make a complete round by themselves.
    fn rest_round(&self) -> Option<BySide<Hand>> {
        let (cards, n) = Self::plain_order(&self.round.hands);
        if n < 2 {
            return None;
        }
        let mut hands = BySide {
            player: Hand::new(),
            banker: Hand::new(),
        };
        for card in cards.iter().take(n).skip(1) {
            match self.drawing.next_card(&hands.player, &hands.banker) {
                NextCard::To(s, _) | NextCard::Unknown(s) => {
                    hands.get_mut(s).push(*card);
                }
                NextCard::Complete => return None,
            }
        }
        (self.drawing.next_card(&hands.player, &hands.banker) == NextCard::Complete)
            .then_some(hands)
    }

    /// Whether a declared `outcome` shows that a tentative round complete by the rules was dealt
    /// without its first card: the cards after it make a round with that result, and the round
    /// with it does not.
    fn result_says_set_aside(&self, outcome: Outcome) -> bool {
        let hands = &self.round.hands;
        let with = RoundRecord::from_hands(0, 0, hands.player, hands.banker).outcome;
        let without = self
            .rest_round()
            .and_then(|h| RoundRecord::from_hands(0, 0, h.player, h.banker).outcome);
        with != Some(outcome) && without == Some(outcome)
    }

    /// Deals a tentative round again without the card between rounds it began with: that card
    /// was set aside, and the round is the cards after it.
    fn redeal_tentative(&mut self) {
        let r = self.round;
        let (cards, n) = Self::plain_order(&r.hands);
        self.round = Round {
            active: true,
            number: r.number,
            first_seq: r.seqs[1.min(n.saturating_sub(1))],
            last_seq: r.seqs[1.min(n.saturating_sub(1))],
            order_flagged: r.order_flagged,
            ..Round::IDLE
        };
        for (&seq, &card) in r.seqs.iter().zip(&cards).take(n).skip(1) {
            let to = match self
                .drawing
                .next_card(&self.round.hands.player, &self.round.hands.banker)
            {
                NextCard::To(s, _) | NextCard::Unknown(s) => s,
                NextCard::Complete => break,
            };
            self.push(seq, to, card);
        }
        self.check_dealt_on_past_last_coup();
        self.complete_if_done();
    }

    fn complete_round(&mut self, complete: bool) {
        // Field by field: the round is large, and this runs for every round.
        let r = &self.round;
        let (number, held) = (r.number, r.held);
        let (seqs, placed) = (r.seqs, r.cards().min(6));
        let mut record =
            RoundRecord::from_hands(self.shoe_no, number, r.hands.player, r.hands.banker);
        record.first_seq = r.first_seq;
        record.last_seq = r.last_seq;
        record.complete = complete;
        record.partial = self.shoe.partial;
        record.no_bets = r.no_bets;
        if self.results_run == 0 && held.is_none() {
            // The last round had no result before the next began, so none is expected to settle
            // this one: its irregularity comes out now, before it.
            self.settle();
        }
        self.out.push_back(Output::Round(record));
        self.last_recorded = Some(record);
        self.prev = Some(Completed {
            record,
            result_checked: false,
            open: true,
        });
        self.round.active = false;
        self.round.held = None;
        self.round.tentative = false;
        self.round.confirming = false;
        if self.shoe.last_round.is_some_and(|last| number >= last) {
            self.shoe.ended = true;
        }
        if let Some(declared) = held {
            // A wrong result is the round's first finding, as when the result comes on time.
            self.check_result(declared);
            if complete {
                self.flag_early_result(declared, record, &seqs[..placed]);
            }
            self.settle();
        }
    }

    /// A round held open by a result declared while a third card was due has received that
    /// card: complete now, but its result was announced before each hand had all the cards it
    /// is entitled to (10.1). Seen with targets (the device placed the card) and in a plain
    /// stream with "no more bets" (every card before the next one is this round's); a plain
    /// stream without them closes the round at its result instead.
    #[cold]
    #[inline(never)]
    fn flag_early_result(&mut self, declared: Declared, record: RoundRecord, seqs: &[u64]) {
        let late: Vec<u64> = seqs.iter().copied().filter(|s| *s > declared.seq).collect();
        let mut evidence = vec![record.first_seq, declared.seq];
        evidence.extend(&late);
        let totals = |t: Option<u8>| t.map_or("?".to_owned(), |t| t.to_string());
        self.flag(
            Code::ResultMismatch,
            Some(record.round),
            record.last_seq,
            &evidence,
            format!(
                "Round {}: the result ({}) was announced before each hand had received all the \
                 cards it is entitled to (10.1): {} card(s) came after it. Player {} = {}, Banker \
                 {} = {}. Check that no wager was collected or paid before the round was complete.",
                record.round,
                declared.outcome,
                late.len(),
                record.player,
                totals(record.player_total),
                record.banker,
                totals(record.banker_total)
            ),
        );
    }

    /// Ends an unfinished round because something outside it began.
    fn close_round(&mut self, seq: u64, boundary: Boundary) {
        if !self.round.active {
            return;
        }
        if self.round.carried_only() && matches!(boundary, Boundary::Reshuffle | Boundary::End) {
            // 12.1(b): the carried card does not survive a reshuffle or replacement.
            self.shoe.rounds -= 1;
            self.round = Round::IDLE;
            return;
        }
        if self.round.tentative
            && self.shoe.ended
            && self.round.cards() > 1
            && boundary == Boundary::Reshuffle
        {
            // Cards after the last coup was complete, until the shuffle: no round could begin
            // after it (11.2), so they were all extra cards of that round, set aside.
            self.set_aside_round(
                seq,
                "before the cards were reshuffled, with no round left after the last coup (11.2)",
            );
            return;
        }
        if self.round.tentative && self.rest_round().is_some() {
            // The round began with a card between rounds, and the cards after it make a whole
            // round: the card was set aside.
            self.redeal_tentative();
            if self.round.active {
                self.round.tentative = false;
                self.round.confirming = false;
                self.complete_round(true);
            }
            return;
        }
        if self.round.ahead_len > 0 {
            self.flush_ahead();
        }
        let hands = self.round.hands;
        let number = self.round.number;
        let evidence = [self.round.first_seq, self.round.last_seq, seq];
        // The first round of a shoe joined part-way may have begun before the engine did, and a
        // round with an unreadable card cannot be judged by the Table of Play.
        // After an interruption, only the round a plain shoe resumed in at once (every round after
        // it is seen whole).
        let joined_mid_round = if self.shoe.interrupted {
            number == self.shoe.resync_round
        } else {
            self.shoe.partial && number == 1
        };
        let unreadable = hands.player.has_unreadable() || hands.banker.has_unreadable();
        // A stream that ends mid-round (a record taken mid-round) says nothing about the cards
        // still to come.
        let judged = !(joined_mid_round || unreadable || boundary == Boundary::End);
        let next = if judged {
            self.drawing.next_card(&hands.player, &hands.banker)
        } else {
            NextCard::Complete
        };
        match next {
            NextCard::To(side, 3) => {
                let why = match boundary {
                    Boundary::Result => "the result was declared",
                    Boundary::BetsClosed => "the next round began",
                    Boundary::NewRound => "the next round's first card was dealt",
                    Boundary::Reshuffle => "the cards were reshuffled or replaced",
                    Boundary::End => "the record ended",
                };
                self.flag(
                    Code::MissingThirdCard,
                    Some(number),
                    seq,
                    &evidence,
                    format!(
                        "The {side} hand ({} = {}) had to draw a third card by the Table of Play, \
                         but {why} first. The round was settled on the wrong cards: review the \
                         payouts.",
                        hands.get(side),
                        hands
                            .get(side)
                            .total()
                            .map_or("?".to_owned(), |t| t.to_string())
                    ),
                );
            }
            NextCard::To(_, _) => {
                self.flag(
                    Code::DealOutOfOrder,
                    Some(number),
                    seq,
                    &evidence,
                    format!(
                        "The initial deal (8.4) was not completed: Player {} / Banker {} when the \
                         round ended. Treat as a misdeal unless it can be reconstructed.",
                        hands.player, hands.banker
                    ),
                );
            }
            _ => {}
        }
        self.complete_round(false);
    }

    /// A round held open by an early result did not get its third card: it is closed as it is,
    /// missing the card, with the result judged on the cards it got.
    fn end_hold(&mut self) {
        if let Some(declared) = self.round.held {
            self.close_round(declared.seq, Boundary::Result);
        }
    }

    fn on_bets_closed(&mut self, seq: u64) {
        let first_bets_closed = !self.bets_reported;
        self.bets_reported = true;
        if first_bets_closed
            && self.shoe.interrupted
            && self.shoe.resync_round > 0
            && self.round.active
        {
            // A plain shoe resumed at once after an interruption, before the stream was
            // known to close bets (the burn may have been dealt into its first rounds):
            // this first "no more bets" shows where rounds really begin, so the round it
            // closes may have begun unseen and is not judged.
            self.shoe.resync_round = self.round.number;
        }
        if !self.shoe.bets_seen {
            self.end_burn_at_bets(seq);
            self.shoe.bets_seen = true;
        }
        if self.shoe.await_bets {
            // After an interruption: the next round begins here.
            self.shoe.await_bets = false;
            self.shoe.synced = true;
        }
        if self.round.active && self.round.carried_only() {
            self.round.after_bets = true;
        }
        if self.round.active
            && self.round.tentative
            && !self.round.after_bets
            && self.round.cards() > 1
        {
            // More than one card after the last round was complete and before "no more bets":
            // the next round begins only now (8.2), so they were all extra cards of that round.
            self.set_aside_round(seq, "before \"No more bets\" for the next round");
        }
        if self.round.active && !self.round.carried_only() {
            self.close_round(seq, Boundary::BetsClosed);
        }
        if let Some(prev) = &mut self.prev {
            prev.open = false;
        }
        self.settle();
    }

    /// The round being dealt was no round: its cards came after the last round was complete and
    /// `before` the boundary that shows the next round had not begun. They were extra cards of
    /// the last round, set aside; the finding joins that round's irregularity.
    fn set_aside_round(&mut self, seq: u64, before: &str) {
        let r = self.round;
        let Some(prev) = self.prev.map(|p| p.record) else {
            return;
        };
        self.shoe.rounds = self.shoe.rounds.saturating_sub(1);
        self.round = Round::IDLE;
        let (cards, n) = Self::plain_order(&r.hands);
        let shown: Vec<String> = cards
            .iter()
            .take(n)
            .map(|c| c.map_or("??".to_owned(), |c| c.to_string()))
            .collect();
        self.flag(
            Code::UnauthorisedThirdCard,
            Some(prev.round),
            seq,
            &[prev.first_seq, prev.last_seq, r.first_seq, r.last_seq, seq],
            format!(
                "{} card(s) ({}) were dealt after round {} was complete and {before}: cards the \
                 rules give no hand, set aside. The round stands on its own cards.",
                n,
                shown.join(" "),
                prev.round
            ),
        );
    }

    fn on_result(
        &mut self,
        seq: u64,
        outcome: Outcome,
        player_pair: Option<bool>,
        banker_pair: Option<bool>,
    ) {
        let declared = Declared {
            outcome,
            player_pair,
            banker_pair,
            seq,
        };
        let awaiting = self.prev.filter(|p| !p.result_checked);
        if let Some(prev) = awaiting.filter(|_| self.round.active && self.round.unannounced) {
            if self.round.cards() == 1 {
                // One card between the last round and its result: read as 12.1(b), the first
                // card of the next round (the stream was not yet known to declare every result).
                let (card, first) = (
                    self.round.hands.player.card(0).flatten(),
                    self.round.first_seq,
                );
                self.round.unannounced = false;
                self.round.carried = true;
                self.round.tentative = true;
                self.flag_card_between_rounds(prev.record, first, card, None);
            }
        }
        let before_result = self.prev.is_some_and(|p| !p.result_checked)
            && (self.round.tentative && self.round.cards() > 1
                || self.round.unannounced && self.round.cards() < 4);
        if self.round.active && before_result {
            // Cards dealt after the last round was complete and before its result: the result
            // is that round's, and the cards were extra cards of it, set aside; the next round
            // begins after the result.
            self.set_aside_round(seq, "before its result was declared");
        }
        if self.round.active && !self.round.carried_only() {
            if outcome == Outcome::Void {
                // A forced quit: the round is void, nothing is missing from it.
                self.complete_round(false);
            } else {
                let hands = &self.round.hands;
                let third_due = matches!(
                    self.drawing.next_card(&hands.player, &hands.banker),
                    NextCard::To(_, 3)
                );
                // Declared while a third card is still due: the card may yet come (a device that
                // places cards says where it goes; a plain shoe's cards until "no more bets" are
                // this round's).
                self.round.held = Some(declared);
                if third_due && (self.targets_reported || self.bets_reported) {
                    return;
                }
                // Closed by its result: judged on the cards it got, with the result, as one.
                self.end_hold();
            }
        }
        self.check_result(declared);
        self.settle();
    }

    /// Checks a declared result against the last round recorded, once.
    fn check_result(&mut self, declared: Declared) {
        // After an interruption a plain shoe's first round may have begun unseen: not judged.
        let unjudged = self.shoe.interrupted.then_some(self.shoe.resync_round);
        let Some(prev) = self.prev.as_mut().filter(|p| !p.result_checked) else {
            return;
        };
        prev.result_checked = true;
        let r = prev.record;
        let Declared {
            outcome,
            player_pair,
            banker_pair,
            seq,
        } = declared;
        if outcome == Outcome::Void || unjudged == Some(r.round) {
            return;
        }
        let mut wrong = Vec::new();
        if let Some(actual) = r.outcome {
            if actual != outcome {
                wrong.push(format!("declared {outcome} but the cards give {actual}"));
            }
        }
        for (side, declared, actual) in [
            (Side::Player, player_pair, r.player_pair),
            (Side::Banker, banker_pair, r.banker_pair),
        ] {
            if let (Some(d), Some(a)) = (declared, actual) {
                if d != a {
                    wrong.push(if d {
                        format!("declared a {side} pair but the cards are not one")
                    } else {
                        format!("declared no {side} pair but the cards are one")
                    });
                }
            }
        }
        if wrong.is_empty() {
            return;
        }
        let totals = |t: Option<u8>| t.map_or("?".to_owned(), |t| t.to_string());
        self.flag(
            Code::ResultMismatch,
            Some(r.round),
            seq,
            &[r.first_seq, r.last_seq, seq],
            format!(
                "Round {}: {}. Player {} = {}, Banker {} = {} (10.1). Hold the payouts and correct \
                 the result.",
                r.round,
                wrong.join("; "),
                r.player,
                totals(r.player_total),
                r.banker,
                totals(r.banker_total)
            ),
        );
    }

    // ----- irregularities -----

    fn flag(
        &mut self,
        code: Code,
        round: Option<u32>,
        seq: u64,
        evidence: &[u64],
        message: String,
    ) {
        self.flag_with(code, Cite::Code, round, seq, evidence, message);
    }

    /// Raises an irregularity. One that belongs to a round is held until the round is settled,
    /// and what else is found in the same round is added to it (one fault, one incident); one
    /// outside any round is output at once.
    fn flag_with(
        &mut self,
        code: Code,
        cite: Cite,
        round: Option<u32>,
        seq: u64,
        evidence: &[u64],
        message: String,
    ) {
        let mut evidence = evidence.to_vec();
        evidence.sort_unstable();
        evidence.dedup();
        let rule = match cite {
            Cite::Code => self.book.cite(code),
            Cite::BankerCard => self.book.cite_banker_card(code),
            Cite::Steps => self.book.cite_qualified(code, "steps"),
        };
        let irregularity = Irregularity {
            code,
            severity: code.severity(),
            rule: rule.to_owned(),
            rule_book: self.book.id().to_owned(),
            shoe: self.shoe_no,
            round,
            seq,
            evidence,
            message,
            partial: self.shoe_open && self.shoe.partial,
            also: pitwatch_rules::CodeSet::EMPTY,
        };
        if round.is_none() {
            self.out.push_back(Output::Irregularity(irregularity));
            return;
        }
        match &mut self.pending {
            Some(open) if open.shoe == irregularity.shoe && open.round == round => {
                open.absorb(irregularity);
            }
            _ => {
                self.settle();
                self.pending = Some(irregularity);
            }
        }
    }

    /// Outputs the irregularity of the round being settled, if any.
    fn settle(&mut self) {
        if let Some(irregularity) = self.pending.take() {
            self.out.push_back(Output::Irregularity(irregularity));
        }
    }
}

impl pitwatch_rules::Game for Engine {
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

/// The position the rules give the next card, when they name one.
fn expected_position(next: NextCard) -> Option<(Side, u8)> {
    match next {
        NextCard::To(side, index) => Some((side, index)),
        NextCard::Unknown(_) | NextCard::Complete => None,
    }
}

/// Whether an event ends a round left open for a card that might still belong to it (a round
/// held by an early result, or a tentative round awaiting confirmation).
fn is_boundary(kind: &EventKind) -> bool {
    matches!(
        kind,
        EventKind::Shuffled { .. }
            | EventKind::Cut { .. }
            | EventKind::CuttingCardPlaced { .. }
            | EventKind::BurnCounted { .. }
            | EventKind::ResultDeclared { .. }
            | EventKind::CardsReplaced
            | EventKind::BetsClosed
    )
}

/// Replays a whole event stream through a fresh engine and returns every output in order.
pub fn replay<'a>(
    book: &RuleBook,
    events: impl IntoIterator<Item = &'a TableEvent>,
) -> Vec<Output> {
    pitwatch_rules::run_stream(Engine::new(book.clone()), events)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pitwatch_model::EventKind;

    fn event(seq: u64, kind: EventKind) -> TableEvent {
        TableEvent::new(seq, kind)
    }

    #[test]
    fn a_wrong_pair_is_named_in_plain_words() {
        let mut engine = Engine::new(RuleBook::nz_baccarat());
        let cards = [
            (crate::side::Side::Player, "9S"),
            (crate::side::Side::Banker, "KH"),
            (crate::side::Side::Player, "9D"),
            (crate::side::Side::Banker, "3D"),
        ];
        engine.handle_event(&event(
            1,
            EventKind::Shuffled {
                decks: None,
                cards: None,
                shuffler: None,
            },
        ));
        engine.handle_event(&event(2, EventKind::card("AS".parse().unwrap())));
        engine.handle_event(&event(3, EventKind::card("2H".parse().unwrap())));
        for (i, (_, card)) in cards.iter().enumerate() {
            engine.handle_event(&event(4 + i as u64, EventKind::card(card.parse().unwrap())));
        }
        engine.handle_event(&event(
            8,
            EventKind::ResultDeclared {
                outcome: Outcome::Player,
                player_pair: Some(false),
                banker_pair: Some(true),
            },
        ));
        let messages: Vec<String> = std::iter::from_fn(|| engine.poll_output())
            .filter_map(|o| match o {
                Output::Irregularity(i) => Some(i.message),
                _ => None,
            })
            .collect();
        assert_eq!(messages.len(), 1, "{messages:?}");
        assert!(
            messages[0].contains(
                "declared no player pair but the cards are one; declared a banker pair but the \
                 cards are not one"
            ),
            "{}",
            messages[0]
        );
    }

    #[test]
    fn given_a_shoe_in_play_the_engine_reports_where_it_is() {
        let mut engine = Engine::new(RuleBook::nz_baccarat());
        assert_eq!(engine.shoe(), 0);
        engine.handle_event(&event(
            1,
            EventKind::Shuffled {
                decks: Some(6),
                cards: Some(312),
                shuffler: None,
            },
        ));
        for (seq, card) in [(2, "2S"), (3, "3S"), (4, "4S"), (5, "9S"), (6, "KH")] {
            engine.handle_event(&event(seq, EventKind::card(card.parse().unwrap())));
        }
        assert_eq!(engine.shoe(), 1);
        assert_eq!(engine.round_in_progress(), Some(1));
        assert_eq!(engine.cards_left(), 312 - 5);
        assert!(!engine.is_partial());
        engine.handle_event(&event(
            7,
            EventKind::DeviceError {
                code: "2".into(),
                text: "overdraw".into(),
            },
        ));
        assert_eq!(engine.open_device_errors().collect::<Vec<_>>(), [("2", 7)]);
        engine.handle_event(&event(
            8,
            EventKind::DeviceErrorCleared { code: "2".into() },
        ));
        assert_eq!(engine.open_device_errors().count(), 0);
    }
}
