//! One round of Blackjack or Pontoon followed from box-targeted cards and decisions: the initial
//! deal order, each hand's play, the dealer's play and each hand's outcome by 5.1(a)–(g) with its
//! payout, Pontoon's bonuses, insurance and Super Sevens. A [`RoundGame`] run by the shared shoe
//! tracker ([`pitwatch_rules::Table`]).
//!
//! Where the device says a card went, the engine believes it and checks that it is a position the
//! rules allow: the initial deal goes one card to each box in play in turn, one to the dealer,
//! then the second card to each box (and, with a hole card, the dealer's second); then each box's
//! hands in turn, then the dealer. A card to a later hand than the one being played means the
//! hands before it stood (a stand need not be reported); a card to a hand already finished is
//! flagged. Decisions the cards cannot show (double, split, surrender, insurance, stand, a box in
//! play) come as `decision` events.

use pitwatch_model::{Action, EventKind, TableEvent, Target};
use pitwatch_rules::{Findings, IrregularityCode as Code, RoundGame};

use crate::book::{Book, Variant};
use crate::hand::Cards;

mod deal;
mod decision;
mod joined;
mod record;
mod settle;
mod state;

use joined::Joined;
pub use record::{BoxRecord, HandOutcome, HandRecord, Inline, RoundRecord, RoundsCarry, SideBet};
use record::{Closed, RoundData};
use settle::Owes;
use state::{BoxState, Stage};

/// Most hands a box can hold after splitting (books allow 1 to 4).
const MAX_HANDS: usize = 4;

/// The rounds of a Blackjack or Pontoon table.
#[derive(Debug, Clone)]
pub struct Rounds {
    book: Book,
    active: bool,
    shoe: u32,
    number: u32,
    first_seq: u64,
    last_seq: u64,
    stage: Stage,
    boxes: Vec<BoxState>,
    declared_any: bool,
    dealer: Cards,
    any_card: bool,
    order_flagged: bool,
    dealer_flagged: bool,
    /// (box index, hand index) play has passed to: every hand before it is finished.
    passed: (usize, usize),
    closed: Closed,
    /// The round in progress was joined part-way, after the stream was cut off: what its tail
    /// has shown ([`RoundGame::join_round`]); `None` for a round seen from its start.
    joined: Option<Joined>,
    /// Whether the round in progress is complete ([`Rounds::completed`]), kept up to date after
    /// each of its events: the table asks several times a card, and the answer walks every box.
    complete: bool,
}

impl Rounds {
    /// Rounds under `book`.
    pub fn new(book: Book) -> Rounds {
        Rounds {
            book,
            active: false,
            shoe: 0,
            number: 0,
            first_seq: 0,
            last_seq: 0,
            stage: Stage::Initial,
            boxes: Vec::with_capacity(8),
            declared_any: false,
            dealer: Cards::new(),
            any_card: false,
            order_flagged: false,
            dealer_flagged: false,
            passed: (0, 0),
            closed: Closed::default(),
            joined: None,
            complete: false,
        }
    }

    /// The book.
    pub fn book(&self) -> &Book {
        &self.book
    }

    fn box_index(&self, number: u8) -> Option<usize> {
        self.boxes.iter().position(|b| b.number == number)
    }

    fn box_entry(&mut self, number: u8) -> usize {
        // Boxes are put in play and dealt in order: a new box is most often the last.
        if self.boxes.last().is_none_or(|b| b.number < number) {
            self.boxes.push(BoxState::new(number));
            return self.boxes.len() - 1;
        }
        match self.boxes.iter().position(|b| b.number >= number) {
            Some(i) if self.boxes[i].number == number => i,
            Some(i) => {
                self.boxes.insert(i, BoxState::new(number));
                i
            }
            None => {
                self.boxes.push(BoxState::new(number));
                self.boxes.len() - 1
            }
        }
    }

    fn in_play(b: &BoxState) -> bool {
        // Every card a box is dealt is counted in `dealt` (up to three): a box with none has none.
        b.dealt_len > 0
    }

    /// Whether the round in progress is complete, from its state: every hand finished and the
    /// dealer owing nothing more ([`RoundGame::is_complete`] answers from [`Rounds::complete`]).
    fn completed(&self) -> bool {
        // A round joined part-way is never known to be complete.
        self.active
            && self.joined.is_none()
            && self.stage != Stage::Initial
            && self.all_finished()
            // The dealer's own cards first: read at once, where what the dealer owes walks the
            // boxes.
            && (self.dealer_done()
                || self.dealer.total().is_some_and(|t| t.value > 21)
                || self.dealer_owes() == Owes::Nothing)
    }

    /// One event of the round in progress (what [`RoundGame::handle_event`] does before it
    /// brings [`Rounds::complete`] up to date).
    fn follow(&mut self, event: &TableEvent, found: &mut Findings) {
        let seq = event.seq;
        if self.joined.is_some() {
            self.follow_joined(seq, &event.kind);
            return;
        }
        match &event.kind {
            EventKind::CardDrawn {
                card,
                target,
                index,
                ..
            } => {
                self.last_seq = seq;
                self.any_card = true;
                match target {
                    Some(Target::Dealer) => self.on_dealer_card(seq, *index, *card, found),
                    Some(t) => {
                        if let Some(n) = t.box_number() {
                            self.on_box_card(seq, n, t.hand(), *index, *card, found);
                        }
                    }
                    None => {}
                }
            }
            EventKind::Decision {
                target,
                hand,
                action,
            } => {
                if let Some(n) = target.box_number() {
                    self.on_decision(seq, n, hand.or(target.hand()), *action, found);
                }
            }
            _ => {}
        }
    }

    /// Whether the round looks over: the dealer drawing or done, or every wager settled.
    #[inline]
    fn over(&self) -> bool {
        self.joined.is_none() && (self.stage == Stage::Dealer || self.is_complete())
    }
}

/// Whether a card's reported `index` lets it be a hand's first card (none reported, or 1).
fn first_card(index: Option<u8>) -> bool {
    index.is_none_or(|i| i <= 1)
}

impl RoundGame for Rounds {
    type Round = RoundRecord;
    type RoundView = RoundRecord;
    type Carry = RoundsCarry;

    fn carry(&self) -> RoundsCarry {
        RoundsCarry(self.closed.clone())
    }

    fn resume(&mut self, carry: RoundsCarry) {
        self.closed = carry.0;
    }

    fn game(&self) -> &'static str {
        self.book.variant.name()
    }

    fn is_round_event(&self, event: &EventKind) -> bool {
        match event {
            EventKind::CardDrawn { target, .. } => matches!(
                target,
                Some(Target::Box(_) | Target::Hand { .. } | Target::Dealer)
            ),
            EventKind::Decision { target, .. } => target.box_number().is_some(),
            _ => false,
        }
    }

    fn begins_round(&self, event: &EventKind) -> bool {
        if !self.active {
            return match event {
                EventKind::CardDrawn { .. } => true,
                EventKind::Decision { action, .. } => *action == Action::InPlay,
                _ => false,
            };
        }
        if let Some(joined) = self.joined {
            return self.begins_joined(joined, event);
        }
        let over = self.over();
        match event {
            EventKind::CardDrawn {
                target: Some(target),
                index,
                ..
            } if target.box_number().is_some() => {
                let n = target.box_number().unwrap_or(0);
                // A box's card 2 or later (or a hand after its first) cannot be the first card
                // of a round: after a round that looked over it is a stray card of that round.
                let first = first_card(*index) && target.hand().is_none_or(|h| h == 1);
                (over && first)
                    || (*index == Some(1)
                        && first
                        && self.stage != Stage::Initial
                        && self
                            .box_index(n)
                            .is_some_and(|i| Self::in_play(&self.boxes[i])))
            }
            EventKind::Decision {
                action: Action::InPlay,
                ..
            } => over || self.stage != Stage::Initial,
            _ => false,
        }
    }

    fn provisional(&self, event: &EventKind) -> bool {
        // A box's first card after the round looked over (the dealer drawing or done, every hand
        // finished) begins the next round or went to a box by mistake: the next event shows
        // which ([`Rounds::opened_by`]).
        self.active
            && matches!(
                event,
                EventKind::CardDrawn {
                    target: Some(target),
                    index,
                    ..
                } if target.box_number().is_some()
                    && first_card(*index)
                    && target.hand().is_none_or(|h| h == 1)
            )
            && self.over()
    }

    fn opened_by(&self, first: &EventKind, next: &EventKind) -> bool {
        let Some(first) = (match first {
            EventKind::CardDrawn {
                target: Some(target),
                ..
            } => target.box_number(),
            _ => None,
        }) else {
            return true;
        };
        match next {
            // The initial deal goes on: a first card to a later box, or the dealer's first card.
            EventKind::CardDrawn {
                target: Some(Target::Dealer),
                index,
                ..
            } => first_card(*index),
            EventKind::CardDrawn {
                target: Some(target),
                index,
                ..
            } if target.box_number().is_some() => {
                first_card(*index)
                    && target.hand().is_none_or(|h| h == 1)
                    && target.box_number().is_some_and(|n| n > first)
            }
            // A box put in play comes before a round's first card, and no other decision can
            // follow a round's first card alone: the card was the round before's.
            EventKind::Decision { .. } => false,
            _ => true,
        }
    }

    fn start_round(&mut self, shoe: u32, number: u32, seq: u64) {
        self.active = true;
        self.shoe = shoe;
        self.number = number;
        self.first_seq = seq;
        self.last_seq = seq;
        self.stage = Stage::Initial;
        self.boxes.clear();
        self.declared_any = false;
        self.dealer = Cards::new();
        self.any_card = false;
        self.order_flagged = false;
        self.dealer_flagged = false;
        self.passed = (0, 0);
        self.joined = None;
        self.complete = false;
    }

    fn join_round(&mut self, shoe: u32, number: u32, seq: u64) {
        self.start_round(shoe, number, seq);
        self.joined = Some(Joined::default());
    }

    fn handle_event(&mut self, event: &TableEvent, found: &mut Findings) {
        self.follow(event, found);
        // During the initial deal (most events) the round is not complete: no call to say so.
        self.complete = self.stage != Stage::Initial && self.completed();
    }

    #[inline]
    fn is_complete(&self) -> bool {
        debug_assert_eq!(self.complete, self.completed());
        self.complete
    }

    fn close_round(&mut self, _seq: u64, cut_off: bool, found: &mut Findings) -> RoundRecord {
        let complete = self.is_complete();
        let last = self.last_seq;
        if !cut_off && !complete {
            match self.stage {
                Stage::Initial => {
                    for b in self
                        .boxes
                        .iter()
                        .filter(|b| Self::in_play(b) && b.cards_to_three() < 2)
                    {
                        found.flag(
                            Code::WrongCardCount,
                            last,
                            vec![last],
                            format!("Box {} had {} card(s) when the round ended: the initial deal gives each box in play two.", b.number, b.cards()),
                        );
                    }
                }
                Stage::Play | Stage::Dealer => {
                    if self.stage == Stage::Play {
                        self.stand_before(self.boxes.len(), 0, last, found);
                    }
                    match self.dealer_owes() {
                        Owes::Play if self.dealer_must_draw() == Some(true) => {
                            let t = self.dealer.total().map_or(0, |t| t.value);
                            found.flag_cited(
                                Code::DealerDrawWrong,
                                "DEALER_DRAW_WRONG/stood",
                                last,
                                vec![last],
                                format!("The dealer stood on {t} with {} card(s), where the book says draw.", self.dealer.len()),
                            );
                        }
                        // Every hand settled, but an insurance wager left open: one finding for
                        // the round, naming every box whose insurance was never settled.
                        Owes::SecondCard => {
                            let boxes = self
                                .insured()
                                .iter()
                                .map(|n| format!("Box {n}"))
                                .collect::<Vec<_>>()
                                .join(", ");
                            found.flag_cited(
                                Code::DealerDrawWrong,
                                "DEALER_DRAW_WRONG/stood",
                                last,
                                vec![last],
                                format!("The dealer stood with {} card(s) while insurance was open ({boxes}): the dealer's second card settles it, so the round ended with that wager unsettled.", self.dealer.len()),
                            );
                        }
                        _ => {}
                    }
                }
            }
        }
        let dealer_final = !cut_off || complete;
        let record = self.record(complete, dealer_final);
        self.active = false;
        self.joined = None;
        self.complete = false;
        // Keep the round for the view without copying it: its boxes' memory is swapped out and
        // the next round reuses the previous round's.
        std::mem::swap(&mut self.boxes, &mut self.closed.boxes);
        self.boxes.clear();
        self.closed.shoe = self.shoe;
        self.closed.number = self.number;
        self.closed.first_seq = self.first_seq;
        self.closed.last_seq = self.last_seq;
        self.closed.dealer = self.dealer;
        self.closed.complete = complete;
        self.closed.dealer_final = dealer_final;
        self.closed.any = true;
        record
    }

    fn round_view(&self) -> Option<RoundRecord> {
        self.active.then(|| self.record(false, false))
    }

    fn last_round(&self) -> Option<RoundRecord> {
        let c = &self.closed;
        c.any.then(|| {
            let data = RoundData {
                shoe: c.shoe,
                number: c.number,
                first_seq: c.first_seq,
                last_seq: c.last_seq,
                boxes: &c.boxes,
                dealer: c.dealer,
            };
            self.record_of(&data, c.complete, c.dealer_final)
        })
    }
}

impl Variant {
    /// Whether the variant is Pontoon.
    pub const fn is_pontoon(self) -> bool {
        matches!(self, Variant::Pontoon)
    }
}
