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

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use pitwatch_model::{
    Card, EventKind, ExposedDuring, Outcome, ShoeComposition, ShufflerKind, TableEvent, Target,
};

use crate::book::{BurnPolicy, EndOfShoePolicy, RuleBook};
use crate::drawing::{DrawingTable, NextCard};
use crate::irregularity::{Irregularity, IrregularityCode as Code};
use crate::record::{DeviceErrorCleared, Output, RoundRecord, ShoeSummary};
use crate::side::{BySide, Hand, Side};
use crate::view::{BurnStatus, BurnView, LastCoup, NextCardView, Phase, RoundView, TableView};

/// Where the burn stands in the current shoe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Burn {
    /// No burn is due (no burn policy, or the shoe was joined part-way).
    NotExpected,
    /// The next card is the burn's first card (7.7(a)).
    AwaitFirst,
    /// Burn cards are being drawn; `expected` is `None` when the first card was unreadable.
    Burning {
        expected: Option<u32>,
        seen: u32,
        first_seq: u64,
    },
    /// The burn is over.
    Done {
        expected: Option<u32>,
        seen: u32,
        first_seq: u64,
    },
}

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
}

#[derive(Debug, Clone, Copy)]
struct Round {
    active: bool,
    number: u32,
    hands: BySide<Hand>,
    first_seq: u64,
    last_seq: u64,
    order_flagged: bool,
    /// Started by a Player card carried over under 12.1(b) and holding only that card.
    carried: bool,
    no_bets: bool,
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
        order_flagged: false,
        carried: false,
        no_bets: false,
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
    /// No card has been drawn since the round completed.
    open: bool,
}

/// What an engine carries from one shoe into the next: everything a new shoe does not start
/// afresh (how many shoes came before, whether the stream reports shuffles and "no more bets",
/// a pending "not shuffled", the device errors still open, the last round recorded).
///
/// [`Engine::shoe_carry`] is taken as the current shoe started; [`Engine::resume`] with it, fed
/// from that shoe's first event on, reaches the same state after that event as the engine that
/// followed the whole stream, so a shoe after it can be replayed without the shoes before. (The
/// outputs of that first event may differ: in the whole stream it also closes the shoe before.)
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Carry {
    /// Shoes started before.
    pub shoes: u32,
    shuffles_reported: bool,
    bets_reported: bool,
    unshuffled: Option<(Unshuffled, u64)>,
    open_errors: Vec<(String, u64)>,
    last_round: Option<RoundRecord>,
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
    unshuffled: Option<(Unshuffled, u64)>,
    open_errors: Vec<(String, u64)>,
    /// The last round recorded in the stream, kept across shoes for [`Engine::view`].
    last_recorded: Option<RoundRecord>,
    /// `seq` of the last event handled.
    last_seq: Option<u64>,
    /// What was carried into the current shoe.
    carry: Carry,
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
            },
            book,
            out: VecDeque::with_capacity(64),
            shoe_no: 0,
            shoe_open: false,
            round: Round::IDLE,
            prev: None,
            shuffles_reported: false,
            bets_reported: false,
            unshuffled: None,
            open_errors: Vec::new(),
            last_recorded: None,
            last_seq: None,
            carry: Carry::default(),
        }
    }

    /// An engine that carries on after the shoes `carry` was taken after (see [`Carry`]): feed it
    /// the events from the first event of the shoe [`Engine::shoe_carry`] returned it for.
    pub fn resume(book: RuleBook, carry: Carry) -> Engine {
        let mut engine = Engine::new(book);
        engine.shoe_no = carry.shoes;
        engine.shuffles_reported = carry.shuffles_reported;
        engine.bets_reported = carry.bets_reported;
        engine.unshuffled = carry.unshuffled;
        engine.open_errors.clone_from(&carry.open_errors);
        engine.last_recorded = carry.last_round;
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
        let burn = match shoe.burn {
            Burn::NotExpected => BurnView {
                status: BurnStatus::NotExpected,
                expected: None,
                burned: 0,
            },
            Burn::AwaitFirst => BurnView {
                status: BurnStatus::AwaitingFirst,
                expected: None,
                burned: 0,
            },
            Burn::Burning { expected, seen, .. } => BurnView {
                status: BurnStatus::Burning,
                expected,
                burned: seen,
            },
            Burn::Done { expected, seen, .. } => BurnView {
                status: BurnStatus::Done,
                expected,
                burned: seen,
            },
        };
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
        match &event.kind {
            EventKind::Shuffled {
                decks,
                cards,
                shuffler,
            } => self.on_shuffled(seq, *decks, *cards, *shuffler),
            EventKind::Cut { position } => {
                self.ensure_shoe(seq);
                self.on_cut(seq, *position);
            }
            EventKind::CuttingCardPlaced { from_back } => {
                self.ensure_shoe(seq);
                self.on_cutting_card_placed(seq, *from_back);
            }
            EventKind::CardDrawn {
                card,
                target,
                index,
                face_up,
                retransmit,
            } => {
                // A retransmission repeats a report already handled: processing it twice would
                // deal a phantom card.
                if *retransmit != Some(true) {
                    self.on_card(seq, *card, *target, *index, *face_up);
                }
            }
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
                if self.shoe.await_bets {
                    // After an interruption: the next round begins here.
                    self.shoe.await_bets = false;
                    self.shoe.synced = true;
                }
                if self.round.active && !self.round.carried_only() {
                    self.close_round(seq, Boundary::BetsClosed);
                }
                if let Some(prev) = &mut self.prev {
                    prev.open = false;
                }
            }
            EventKind::LockChanged { .. } | EventKind::TableStateChanged { .. } => {}
        }
        if self.shoe_open {
            self.shoe.last_seq = seq;
        }
        self.last_seq = Some(seq);
    }

    /// Ends the stream: closes an unfinished round and the current shoe.
    pub fn finish(&mut self) {
        if self.round.active {
            self.close_round(self.round.last_seq, Boundary::End);
        }
        self.end_shoe();
    }

    /// The stream was cut off here: the monitor stopped listening (power loss, crash) and what
    /// happened at the table until the next event is unknown. Call it where a replayed record
    /// breaks off, before feeding the events recorded after the restart.
    ///
    /// - A round in progress is closed unfinished (`complete: false`, `partial: true`) without
    ///   any irregularity: its missing cards may simply not have been seen. A completed round's
    ///   result is no longer checked, nor is a card after it taken as an unauthorised third card
    ///   (the next result or card may belong to a round dealt unseen).
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
        if !self.shoe_open || self.shoe.ended && !self.round.active {
            return;
        }
        self.shoe.partial = true;
        self.shoe.interrupted = true;
        if self.round.active {
            self.complete_round(false);
        }
        self.prev = None;
        self.shoe.burn = Burn::NotExpected;
        self.shoe.synced = false;
        self.shoe.await_bets = self.bets_reported;
        self.unshuffled = None;
    }

    // ----- shoes -----

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
        if !reuse {
            // Once a shoe: what survives into the new shoe, as it stands now.
            self.carry = Carry {
                shoes: self.shoe_no,
                shuffles_reported: self.shuffles_reported,
                bets_reported: self.bets_reported,
                unshuffled: self.unshuffled,
                open_errors: self.open_errors.clone(),
                last_round: self.last_recorded,
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
        };
        self.shoe_open = true;
        self.round = Round::IDLE;
        self.prev = None;
    }

    fn end_shoe(&mut self) {
        if !self.shoe_open {
            return;
        }
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

    fn on_shuffled(
        &mut self,
        seq: u64,
        decks: Option<u8>,
        cards: Option<u32>,
        shuffler: Option<ShufflerKind>,
    ) {
        if self.round.active {
            self.close_round(seq, Boundary::Reshuffle);
        }
        let default = self.book.composition();
        let decks = decks.unwrap_or(default.decks);
        let composition = ShoeComposition::new(decks.max(1), default.kind);
        self.start_shoe(seq, composition, shuffler, false);
        self.shuffles_reported = true;
        self.unshuffled = None;
        let (min, max) = self.book.deck_range();
        if decks < min || decks > max {
            self.flag(
                Code::ShuffleCountMismatch,
                None,
                seq,
                &[seq],
                format!(
                    "The shuffle reports {decks} decks; the rule book allows {min} to {max}. Remove \
                     the cards from the table and check them before play."
                ),
            );
        }
        if let Some(cards) = cards {
            let expected = composition.total_cards();
            if cards != expected {
                self.flag(
                    Code::ShuffleCountMismatch,
                    None,
                    seq,
                    &[seq],
                    format!(
                        "The shuffler counted {cards} cards; {decks} decks of {} hold {expected}. \
                         Cards are missing or extra: remove the cards from the table and check them.",
                        default.kind
                    ),
                );
            }
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
        let in_round = self.round.active;
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

    fn on_device_error(&mut self, seq: u64, code: &str, text: &str) {
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

    /// Handles a card during the burn; returns `true` when the card was a burn card.
    fn burn_card(
        &mut self,
        seq: u64,
        card: Option<Card>,
        target: Option<Target>,
        face_up: Option<bool>,
    ) -> bool {
        match self.shoe.burn {
            Burn::NotExpected | Burn::Done { .. } => false,
            Burn::AwaitFirst => match target {
                None | Some(Target::First) => {
                    let expected = card.map(|c| self.book.burn().count_after(c.rank));
                    self.shoe.burn = Burn::Burning {
                        expected,
                        seen: 0,
                        first_seq: seq,
                    };
                    if face_up == Some(false) {
                        self.flag(
                            Code::BurnMissing,
                            None,
                            seq,
                            &[seq],
                            "The burn's first card was drawn face down; 7.7(a) requires it face \
                             up so its value sets the burn count. Confirm the count with the \
                             dealer."
                                .to_owned(),
                        );
                    }
                    true
                }
                Some(Target::Burn) => {
                    self.flag_burn_missing(seq);
                    self.shoe.burn = Burn::Burning {
                        expected: None,
                        seen: 1,
                        first_seq: seq,
                    };
                    true
                }
                Some(_) => {
                    self.flag_burn_missing(seq);
                    self.shoe.burn = Burn::Done {
                        expected: None,
                        seen: 0,
                        first_seq: seq,
                    };
                    false
                }
            },
            Burn::Burning {
                expected,
                seen,
                first_seq,
            } => match target {
                // Under a fixed burn a device's "first" card is simply the first burn card.
                Some(Target::Burn | Target::First) => {
                    let seen = seen + 1;
                    self.shoe.burn = Burn::Burning {
                        expected,
                        seen,
                        first_seq,
                    };
                    if let Some(e) = expected {
                        if seen > e {
                            self.flag_burn_count(seq, first_seq, e, seen, "too many");
                        }
                    }
                    true
                }
                None if expected.is_some_and(|e| seen < e) => {
                    let seen = seen + 1;
                    self.shoe.burn = if Some(seen) == expected {
                        Burn::Done {
                            expected,
                            seen,
                            first_seq,
                        }
                    } else {
                        Burn::Burning {
                            expected,
                            seen,
                            first_seq,
                        }
                    };
                    true
                }
                _ => {
                    self.shoe.burn = Burn::Done {
                        expected,
                        seen,
                        first_seq,
                    };
                    if let Some(e) = expected {
                        if seen < e && target.is_some() {
                            self.flag_burn_count(seq, first_seq, e, seen, "too few");
                        }
                    }
                    false
                }
            },
        }
    }

    fn flag_burn_missing(&mut self, seq: u64) {
        self.flag(
            Code::BurnMissing,
            None,
            seq,
            &[seq],
            "Dealing began without the burn's first card drawn face up (7.7(a)). Stop, and have \
             the dealer burn as the rules require before the next round."
                .to_owned(),
        );
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
            format!(
                "The burn had {how} cards: {seen} burned where the first card requires {expected} \
                 (10, J, Q, K count 10; ace {}). Record it; the shoe continues.",
                match self.book.burn() {
                    BurnPolicy::FirstCardValue { ace } => ace,
                    _ => 1,
                }
            ),
        );
    }

    fn on_burn_counted(&mut self, seq: u64, count: u32) {
        let (expected, seen, first_seq, burning) = match self.shoe.burn {
            Burn::Burning {
                expected,
                seen,
                first_seq,
            } => (expected, seen, first_seq, true),
            Burn::Done {
                expected,
                seen,
                first_seq,
            } => (expected, seen, first_seq, false),
            Burn::NotExpected | Burn::AwaitFirst => return,
        };
        if let Some(e) = expected {
            if count != e {
                let how = if count < e { "too few" } else { "too many" };
                self.flag_burn_count(seq, first_seq, e, count, how);
            }
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
            self.round = Round::IDLE;
            self.shoe.rounds = 0;
            self.shoe.burn = Burn::Done {
                expected,
                seen: count,
                first_seq,
            };
        }
    }

    // ----- cards and rounds -----

    fn on_card(
        &mut self,
        seq: u64,
        card: Option<Card>,
        target: Option<Target>,
        index: Option<u8>,
        face_up: Option<bool>,
    ) {
        let first_of_shoe = target == Some(Target::First)
            && !(self.shoe_open && self.shoe.burn == Burn::AwaitFirst);
        if first_of_shoe {
            // After an interruption the shuffle may have happened while nobody was listening.
            let interrupted = self.shoe_open && self.shoe.interrupted;
            // A device that reports the first card announces a new shoe by itself (the Angel Eye
            // sends no shuffle): start one, but if the stream does report shuffles, this shoe
            // was not shuffled.
            if self.round.active {
                self.close_round(seq, Boundary::Reshuffle);
            }
            // A shoe just shuffled with nothing drawn yet is this shoe, not a previous one.
            let fresh = self.shoe_open && self.shoe.cards == 0 && self.unshuffled.is_none();
            let composition = if fresh {
                self.shoe.composition
            } else {
                self.book.composition()
            };
            let shuffler = (fresh && self.shoe.continuous).then_some(ShufflerKind::Continuous);
            self.start_shoe(seq, composition, shuffler, false);
            if !fresh && !interrupted && (self.shuffles_reported || self.unshuffled.is_some()) {
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
            }
        }
        self.ensure_shoe(seq);
        self.shoe.cards += 1;
        if let Some((why, since)) = self.unshuffled.take() {
            let message = match why {
                Unshuffled::Replaced => {
                    "Cards were dealt from replaced cards that were not shuffled and cut (7.10). \
                     Stop: the new cards must be checked, shuffled and cut."
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
        let round = self.deal(seq, card, side, index, face_up);
        self.see(seq, card, round);
        self.complete_if_done();
    }

    /// Counts a card against the shoe and flags excess and unreadable cards.
    fn see(&mut self, seq: u64, card: Option<Card>, round: Option<u32>) {
        match card {
            Some(card) => {
                if !self.shoe.counter.see(card) {
                    let copies = self.shoe.counter.seen(card);
                    let holds = self.shoe.composition.copies_of(card);
                    self.flag(
                        Code::ExcessCard,
                        round,
                        seq,
                        &[seq],
                        format!(
                            "{card} is copy {copies} of a card the shoe holds {holds} times: a \
                             foreign or duplicate card. Stop play, remove it and check the cards."
                        ),
                    );
                }
            }
            None => self.flag(
                Code::UnreadableCard,
                round,
                seq,
                &[seq],
                "The device could not read a card. Read it at the table and record it; the \
                 round's result is unknown to the monitor until then."
                    .to_owned(),
            ),
        }
    }

    fn current_round(&self) -> Option<u32> {
        self.round.active.then_some(self.round.number)
    }

    fn start_round(&mut self, seq: u64) {
        self.shoe.rounds += 1;
        self.round = Round {
            active: true,
            number: self.shoe.rounds,
            first_seq: seq,
            last_seq: seq,
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

    /// Places a non-burn card in the current round; returns the round it belongs to.
    fn deal(
        &mut self,
        seq: u64,
        card: Option<Card>,
        side: Option<Side>,
        index: Option<u8>,
        face_up: Option<bool>,
    ) -> Option<u32> {
        if !self.round.active {
            match (side, index) {
                (Some(side), Some(3)) => {
                    if let Some(r) = self.stray_third_card(seq, card, side, face_up) {
                        return Some(r);
                    }
                }
                (None, _) => {
                    if let Some(r) = self.card_between_rounds(seq, card) {
                        return Some(r);
                    }
                }
                _ => {}
            }
            self.start_round(seq);
        }
        if let Some(prev) = &mut self.prev {
            prev.open = false;
        }
        let Some(side) = side else {
            // A plain shoe: the card goes where the rules say the next card goes.
            let to = match self
                .drawing
                .next_card(&self.round.hands.player, &self.round.hands.banker)
            {
                NextCard::To(s, _) | NextCard::Unknown(s) => s,
                NextCard::Complete => Side::Player,
            };
            self.check_past_last_coup(seq);
            self.push(seq, to, card);
            return Some(self.round.number);
        };
        if index == Some(1) && !self.round.hands.get(side).is_empty() {
            // The device says a new round began while this one was unfinished.
            self.close_round(seq, Boundary::NewRound);
            self.start_round(seq);
        }
        // Checked here rather than when a round starts: a Player card carried over by 12.1(b)
        // from the last coup belongs to that coup's settlement, and the round it starts is past
        // the last coup only once it is dealt on.
        self.check_past_last_coup(seq);
        let number = self.round.number;
        let hands = self.round.hands;
        let next = self.drawing.next_card(&hands.player, &hands.banker);
        let position = hands.get(side).len() as u8 + 1;
        let as_expected = match next {
            NextCard::To(s, i) => s == side && index.is_none_or(|x| x == i),
            // An unreadable card hides the decision: any third card may be right.
            NextCard::Unknown(_) => position == 3 && index.is_none_or(|x| x == 3),
            NextCard::Complete => false,
        };
        if as_expected {
            self.push(seq, side, card);
        } else if side == Side::Player && hands.player.len() == 2 && hands.banker.len() >= 2 {
            // 12.1: a third card to the Player that the rules do not authorise, while the round
            // is still open, so the Banker must draw: 12.1(a) makes it the Banker's third card.
            self.flag(
                Code::UnauthorisedThirdCard,
                Some(number),
                seq,
                &[seq],
                format!(
                    "A third card{} was dealt to the Player's hand, which the rules do not \
                     authorise. The Banker's hand must draw, so by 12.1(a) it becomes the Banker's \
                     third card. Check that the hands were settled that way.",
                    card.map_or(String::new(), |c| format!(" ({c})"))
                ),
            );
            self.push(seq, Side::Banker, card);
        } else {
            if !self.round.order_flagged {
                self.round.order_flagged = true;
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
                        "{} was dealt to {side} card {}, but by 8.4 and the Table of Play the next \
                         card is {expected}. The hands are followed as dealt; the supervisor \
                         decides whether the round can be reconstructed or is a misdeal.",
                        card.map_or("An unreadable card".to_owned(), |c| format!("Card {c}")),
                        index.unwrap_or(position)
                    ),
                );
            }
            if !self.round.hands.get(side).is_full() {
                self.push(seq, side, card);
            } else if let NextCard::To(s, _) = next {
                self.push(seq, s, card);
            }
        }
        Some(number)
    }

    /// A plain card after a completed round and before "no more bets" for the next one, in a
    /// stream that reports "no more bets": a card the rules gave no hand. A plain shoe cannot say
    /// which hand it went to; read as 12.1(b), it becomes the first card of the next round.
    fn card_between_rounds(&mut self, seq: u64, card: Option<Card>) -> Option<u32> {
        if !self.bets_reported {
            return None;
        }
        let record = self.prev.filter(|p| p.open)?.record;
        let shown = card.map_or(String::new(), |c| format!(" ({c})"));
        self.flag(
            Code::UnauthorisedThirdCard,
            Some(record.round),
            seq,
            &[record.first_seq, record.last_seq, seq],
            format!(
                "A card{shown} was dealt after round {} was complete and before \"No more bets\" \
                 for the next round: a third card the rules do not authorise. By 12.1(b) it \
                 becomes the first card of the next round (if it was disclosed, \"No bets this \
                 hand\"). If instead the next round was dealt before bets closed (8.2), correct \
                 the record.",
                record.round
            ),
        );
        self.start_round(seq);
        self.round.carried = true;
        self.push(seq, Side::Player, card);
        Some(self.round.number)
    }

    /// A third card for a round that already finished: 12.1(b) for the Player, the drawing
    /// rules for the Banker. Returns the round it was settled in, or `None` if it is simply the
    /// first card of a new round.
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
                self.start_round(seq);
                self.round.carried = true;
                self.round.no_bets = disclosed;
                self.push(seq, Side::Player, card);
                Some(self.round.number)
            }
            Side::Banker => {
                if let Some(prev) = &mut self.prev {
                    prev.open = false;
                }
                self.flag(
                    Code::UnauthorisedThirdCard,
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

    fn push(&mut self, seq: u64, side: Side, card: Option<Card>) {
        self.round.hands.get_mut(side).push(card);
        self.round.last_seq = seq;
        if self.round.carried && self.round.cards() > 1 {
            self.round.carried = false;
        }
    }

    /// Emits the current round if its last card has been dealt. Called once the card that
    /// completed it has been counted, so a flag about that card comes before the round record.
    fn complete_if_done(&mut self) {
        let hands = &self.round.hands;
        if self.round.active
            && self.drawing.next_card(&hands.player, &hands.banker) == NextCard::Complete
        {
            self.complete_round(true);
        }
    }

    fn complete_round(&mut self, complete: bool) {
        let r = self.round;
        let mut record =
            RoundRecord::from_hands(self.shoe_no, r.number, r.hands.player, r.hands.banker);
        record.first_seq = r.first_seq;
        record.last_seq = r.last_seq;
        record.complete = complete;
        record.partial = self.shoe.partial;
        record.no_bets = r.no_bets;
        self.out.push_back(Output::Round(record));
        self.last_recorded = Some(record);
        self.prev = Some(Completed {
            record,
            result_checked: false,
            open: true,
        });
        self.round.active = false;
        if self.shoe.last_round.is_some_and(|last| r.number >= last) {
            self.shoe.ended = true;
        }
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
        let judged = !(joined_mid_round || unreadable);
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
            NextCard::To(_, _) if boundary != Boundary::End => {
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

    fn on_result(
        &mut self,
        seq: u64,
        outcome: Outcome,
        player_pair: Option<bool>,
        banker_pair: Option<bool>,
    ) {
        if self.round.active && !self.round.carried_only() {
            if outcome == Outcome::Void {
                // A forced quit: the round is void, nothing is missing from it.
                self.complete_round(false);
            } else {
                self.close_round(seq, Boundary::Result);
            }
        }
        // After an interruption a plain shoe's first round may have begun unseen: not judged.
        let unjudged = self.shoe.interrupted.then_some(self.shoe.resync_round);
        let Some(prev) = self.prev.as_mut().filter(|p| !p.result_checked) else {
            return;
        };
        prev.result_checked = true;
        let r = prev.record;
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
                    wrong.push(format!(
                        "declared {}a {side} pair but the cards {}",
                        if d { "" } else { "no " },
                        if a { "are one" } else { "are not one" }
                    ));
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

    fn flag(
        &mut self,
        code: Code,
        round: Option<u32>,
        seq: u64,
        evidence: &[u64],
        message: String,
    ) {
        let mut evidence = evidence.to_vec();
        evidence.sort_unstable();
        evidence.dedup();
        self.out.push_back(Output::Irregularity(Irregularity {
            code,
            severity: code.severity(),
            rule: self.book.cite(code).to_owned(),
            rule_book: self.book.id().to_owned(),
            shoe: self.shoe_no,
            round,
            seq,
            evidence,
            message,
            partial: self.shoe_open && self.shoe.partial,
        }));
    }
}

/// Replays a whole event stream through a fresh engine and returns every output in order.
pub fn replay<'a>(
    book: &RuleBook,
    events: impl IntoIterator<Item = &'a TableEvent>,
) -> Vec<Output> {
    let mut engine = Engine::new(book.clone());
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

#[cfg(test)]
mod tests {
    use super::*;
    use pitwatch_model::EventKind;

    fn event(seq: u64, kind: EventKind) -> TableEvent {
        TableEvent::new(seq, kind)
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
