//! An honest-dealer simulator with fault injection.
//!
//! [`deal`] deals whole shoes of Baccarat under a rule book's shoe section ([`ShoeBook`], the
//! shared shoe section every game's book has: decks, shuffler, cut, cutting card, burn, end of
//! shoe), seeded and deterministic (ChaCha8), and returns the canonical [`TableEvent`] stream a
//! device would report, the true rounds as the cards physically fell ([`Session::rounds`]) and a machine-readable record of every fault it
//! injected ([`InjectedFault`]). It deals in two modes: with targets and indexes like an Angel
//! Eye shoe, or plain cards like a barcode shoe.
//!
//! A device simulator can encode the events into a device protocol; faults are chosen by kind
//! ([`FaultKind`]) and the earliest shoe and round to inject at ([`FaultPlan`]). Some faults need
//! a particular round (a round where the Player stands, or where a card is exhausted): they go in
//! the first suitable round at or after the planned one, and the record says where.
//!
//! The simulator plays by the published drawing rules with its own straightforward code
//! ([`tableau`]) and counts each round's totals, winner and pairs itself ([`DealtRound`]); it
//! does not depend on the Baccarat crate at all, so tests that compare the two (the differential
//! tests in `crates/games/baccarat`, which have this crate as a dev-dependency) compare
//! independent implementations.

mod fault;
pub mod round;
pub mod shuffle;
pub mod tableau;

pub use fault::{FaultKind, FaultPlan, InjectedFault};
pub use round::DealtRound;
pub use shuffle::ShuffleModel;

use pitwatch_model::{
    Card, EventKind, ExposedDuring, Outcome, ShoeComposition, ShufflerKind, TableEvent, Target,
    Timestamp,
};
use pitwatch_rules::{BurnPolicy, CuttingCardLimit, EndOfShoePolicy, ShoeBook};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

/// How the simulated shoe reports cards.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Each card carries its target hand and index (Angel Eye style), and the burn's first card
    /// and burn cards are marked.
    Targets,
    /// Plain cards only (barcode style): the engine assigns them by the rules.
    Plain,
}

/// What the simulated table reports besides cards.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DealerConfig {
    /// How cards are reported.
    pub mode: Mode,
    /// Shoes to deal.
    pub shoes: u32,
    /// Rounds per shoe with a continuous shuffler (it has no cutting card to end a shoe).
    pub continuous_rounds: u32,
    /// Report `shuffled`, `cut` and `cutting_card_placed` at the start of each shoe.
    pub report_shuffle: bool,
    /// Report `bets_closed` before each round.
    pub bets_closed: bool,
    /// Report `result_declared` (with pairs) after each round.
    pub declare_results: bool,
    /// Report `burn_counted` after the burn.
    pub report_burn_count: bool,
    /// `seq` of the first event.
    pub first_seq: u64,
    /// Time of the first event, in Unix milliseconds; each event is `step_millis` later.
    pub start_millis: i64,
    /// Milliseconds between events.
    pub step_millis: i64,
}

impl DealerConfig {
    /// An Angel Eye-like shoe: targets, burn count and declared results with pairs.
    pub fn angel_eye() -> DealerConfig {
        DealerConfig {
            mode: Mode::Targets,
            shoes: 1,
            continuous_rounds: 60,
            report_shuffle: true,
            bets_closed: false,
            declare_results: true,
            report_burn_count: true,
            first_seq: 1,
            start_millis: 1_796_025_600_000, // 2026-12-01T00:00:00Z
            step_millis: 1_500,
        }
    }

    /// A barcode-like shoe: plain cards, with the table system's "no more bets" before each round
    /// (the boundary that lets the engine resynchronise a plain shoe).
    pub fn barcode() -> DealerConfig {
        DealerConfig {
            mode: Mode::Plain,
            declare_results: false,
            report_burn_count: false,
            bets_closed: true,
            ..DealerConfig::angel_eye()
        }
    }
}

/// What a simulated session produced.
#[derive(Debug, Clone)]
pub struct Session {
    /// The table's event stream.
    pub events: Vec<TableEvent>,
    /// The rounds as the cards physically fell (ground truth), in order.
    pub rounds: Vec<DealtRound>,
    /// Every fault injected, in order.
    pub faults: Vec<InjectedFault>,
    /// Cards drawn from each shoe (burn included), by shoe.
    pub cards_per_shoe: Vec<u32>,
    /// Each shoe's stack as it went into the shoe (after the cut), by shoe: the first
    /// `cards_per_shoe` were drawn, in this order. What the next shoe is shuffled from.
    pub stacks: Vec<Vec<Card>>,
}

/// How the dealer makes each shoe: a shuffle model, and the stack of the shoe before the first one
/// dealt (from an earlier session), with how many of its cards were dealt.
#[derive(Debug, Clone, Copy, Default)]
pub struct Shuffling<'a> {
    /// The model for every shoe after the first one with a previous stack.
    pub model: ShuffleModel,
    /// The previous shoe's stack and how many of its cards were dealt; without it the first shoe
    /// is shuffled uniformly (new cards).
    pub previous: Option<(&'a [Card], usize)>,
}

/// The order of a round's four initial cards: the hand and index each goes to.
type DealOrder = [(Target, u8); 4];

/// The dealer while dealing: the shoe, the event stream and the plan.
struct Table<'a> {
    book: &'a ShoeBook,
    config: &'a DealerConfig,
    rng: ChaCha8Rng,
    plans: Vec<(FaultPlan, bool)>,
    session: Session,
    seq: u64,
    shoe_no: u32,
    deck: Vec<Card>,
    pos: usize,
    drawn: u32,
    /// Copies dealt of each card in this shoe.
    dealt: [u8; Card::DISTINCT],
    composition: ShoeComposition,
    continuous: bool,
    cutting_from_back: Option<usize>,
    cutting_out: bool,
    /// A Player card carried into the next round by 12.1(b).
    carried: Option<(Card, u64)>,
    /// The shuffle model.
    shuffle: ShuffleModel,
    /// The previous shoe's stack and how many of its cards were dealt.
    previous: Option<(Vec<Card>, usize)>,
}

/// Deals `config.shoes` shoes under `book` with `faults`, deterministically for `seed`, each shoe
/// shuffled uniformly.
pub fn deal(book: &ShoeBook, config: &DealerConfig, faults: &[FaultPlan], seed: u64) -> Session {
    deal_with(book, config, faults, seed, Shuffling::default())
}

/// Deals like [`deal`], making each shoe from the one before by `shuffling`'s model.
pub fn deal_with(
    book: &ShoeBook,
    config: &DealerConfig,
    faults: &[FaultPlan],
    seed: u64,
    shuffling: Shuffling<'_>,
) -> Session {
    let composition = book.composition;
    let mut table = Table {
        book,
        config,
        rng: ChaCha8Rng::seed_from_u64(seed),
        plans: faults.iter().map(|f| (*f, false)).collect(),
        session: Session {
            events: Vec::new(),
            rounds: Vec::new(),
            faults: Vec::new(),
            cards_per_shoe: Vec::new(),
            stacks: Vec::new(),
        },
        seq: config.first_seq,
        shoe_no: 0,
        deck: Vec::new(),
        pos: 0,
        drawn: 0,
        dealt: [0; Card::DISTINCT],
        composition,
        continuous: book.shuffler == ShufflerKind::Continuous,
        cutting_from_back: None,
        cutting_out: false,
        carried: None,
        shuffle: shuffling.model,
        previous: shuffling
            .previous
            .map(|(stack, dealt)| (stack.to_vec(), dealt)),
    };
    for _ in 0..config.shoes {
        table.deal_shoe();
    }
    table.session
}

impl Table<'_> {
    /// How the book ends a shoe once the cutting card is out (a book without a rule of its own:
    /// the last coup, 11.2).
    fn end_of_shoe(&self) -> EndOfShoePolicy {
        self.book.end_of_shoe.unwrap_or(EndOfShoePolicy::LastCoup)
    }

    fn emit(&mut self, kind: EventKind) -> u64 {
        let seq = self.seq;
        self.seq += 1;
        let mut event = TableEvent::new(seq, kind);
        let millis = self.config.start_millis + (seq as i64) * self.config.step_millis;
        if let Some(at) = Timestamp::from_unix_millis(millis) {
            event = event.at(at);
        }
        self.session.events.push(event);
        seq
    }

    /// Takes a planned fault of `kind` due in this shoe at or before `round` (any round when
    /// `round` is `None`), marking it used.
    fn due(&mut self, kind: FaultKind, round: Option<u32>) -> bool {
        let shoe = self.shoe_no;
        for (plan, used) in &mut self.plans {
            if !*used
                && plan.kind == kind
                && plan.shoe == shoe
                && round.is_none_or(|r| plan.round <= r)
            {
                *used = true;
                return true;
            }
        }
        false
    }

    /// Whether a fault of `kind` is pending for this shoe at `round` without taking it.
    fn pending(&self, kind: FaultKind, round: u32) -> bool {
        self.plans
            .iter()
            .any(|(p, used)| !used && p.kind == kind && p.shoe == self.shoe_no && p.round <= round)
    }

    fn record_fault(&mut self, kind: FaultKind, round: Option<u32>, seq: u64) {
        self.session.faults.push(InjectedFault {
            kind,
            shoe: self.shoe_no,
            round,
            seq,
            expected_code: kind.expected_code(),
        });
    }

    fn remaining(&self) -> usize {
        self.deck.len() - self.pos
    }

    /// Draws the next card, reporting the cutting card first when it is reached. `first_of_round`
    /// says whether this card would be the first of a round (11.2(a)).
    fn next_card(&mut self, first_of_round: bool, round: u32, last: &mut Option<u32>) -> Card {
        if let Some(from_back) = self.cutting_from_back {
            if !self.cutting_out && self.remaining() <= from_back {
                self.cutting_out = true;
                self.emit(EventKind::CuttingCardDrawn);
                *last = Some(match (self.end_of_shoe(), first_of_round) {
                    (EndOfShoePolicy::LastCoup, true) => round,
                    (EndOfShoePolicy::LastCoup, false) => round + 1,
                    (EndOfShoePolicy::FinishRound, _) => round,
                    (EndOfShoePolicy::OneMoreRound, true) => round + 1,
                    (EndOfShoePolicy::OneMoreRound, false) => round + 1,
                });
            }
        }
        let card = self.deck[self.pos];
        self.pos += 1;
        self.drawn += 1;
        self.dealt[card.index()] += 1;
        card
    }

    fn card_event(&mut self, card: Option<Card>, target: Target, index: u8, face_up: bool) -> u64 {
        self.card_event_with(card, Some(target), index, face_up, None)
    }

    /// A card as the device reports it: with its target and index in target mode (`target`
    /// `None`: reported to no hand), the card only in plain mode.
    fn card_event_with(
        &mut self,
        card: Option<Card>,
        target: Option<Target>,
        index: u8,
        face_up: bool,
        retransmit: Option<bool>,
    ) -> u64 {
        let kind = match self.config.mode {
            Mode::Targets => EventKind::CardDrawn {
                card,
                target,
                index: target.map(|_| index),
                face_up: Some(face_up),
                retransmit,
            },
            Mode::Plain => EventKind::CardDrawn {
                card,
                target: None,
                index: None,
                face_up: None,
                retransmit,
            },
        };
        self.emit(kind)
    }

    fn deal_shoe(&mut self) {
        self.shoe_no += 1;
        let composition = self.composition;
        self.deck.clear();
        for i in 0..Card::DISTINCT {
            if let Some(card) = Card::from_index(i) {
                for _ in 0..composition.copies_of(card) {
                    self.deck.push(card);
                }
            }
        }
        match self.previous.take() {
            // A previous stack of this shoe's cards goes through the model; a uniform shuffle
            // (or a first shoe, or a previous stack of other cards) starts from new cards, as
            // the dealer always did.
            Some((stack, dealt))
                if self.shuffle != ShuffleModel::Random && stack.len() == self.deck.len() =>
            {
                self.deck = self.shuffle.apply(&stack, dealt, &mut self.rng);
            }
            _ => self.deck.shuffle(&mut self.rng),
        }
        self.pos = 0;
        self.drawn = 0;
        self.dealt = [0; Card::DISTINCT];
        self.cutting_out = false;
        self.cutting_from_back = None;
        self.carried = None;
        let total = self.deck.len() as u32;
        if self.config.report_shuffle {
            self.emit(EventKind::Shuffled {
                decks: Some(composition.decks),
                cards: Some(total),
                shuffler: Some(self.book.shuffler),
            });
        }
        if !self.continuous {
            let min_cut = self.book.cut.map_or(0, |cut| cut.cards(composition));
            let position = self.rng.gen_range(min_cut..=total - min_cut);
            self.deck.rotate_left(position as usize);
            let limit = self.book.cutting_card.unwrap_or(CuttingCardLimit {
                min_from_back: 0,
                max_from_back_fraction: None,
            });
            let honest_max = match limit.max_from_back_fraction {
                Some(f) => (f * f64::from(total)) as u32,
                None => limit.min_from_back + 14,
            };
            let honest_min = limit.min_from_back.max(honest_max / 2).min(honest_max);
            let mut from_back = self.rng.gen_range(honest_min..=honest_max);
            let misplaced = self.due(FaultKind::CuttingCardTooCloseToBack, None);
            if misplaced {
                from_back = limit
                    .min_from_back
                    .saturating_sub(self.rng.gen_range(1..=5))
                    .max(1);
            }
            self.cutting_from_back = Some(from_back as usize);
            if self.config.report_shuffle {
                self.emit(EventKind::Cut { position });
                let seq = self.emit(EventKind::CuttingCardPlaced { from_back });
                if misplaced {
                    self.record_fault(FaultKind::CuttingCardTooCloseToBack, None, seq);
                }
            }
        }
        self.burn();
        let mut last: Option<u32> = None;
        let mut round = 0u32;
        loop {
            let next = round + 1;
            if self.continuous && round >= self.config.continuous_rounds {
                break;
            }
            let past = last.is_some_and(|l| round >= l);
            if past {
                if !self.due(FaultKind::RoundPastLastCoup, None) {
                    break;
                }
                if self.remaining() < 6 {
                    break;
                }
                let first_seq = self.seq;
                round = next;
                self.deal_round(round, &mut last);
                let seq = self
                    .session
                    .events
                    .iter()
                    .find(|e| e.seq >= first_seq && matches!(e.kind, EventKind::CardDrawn { .. }))
                    .map_or(first_seq, |e| e.seq);
                self.record_fault(FaultKind::RoundPastLastCoup, Some(round), seq);
                break;
            }
            if self.remaining() < 7 {
                break;
            }
            round = next;
            self.deal_round(round, &mut last);
        }
        self.session.cards_per_shoe.push(self.drawn);
        self.session.stacks.push(self.deck.clone());
        self.previous = Some((self.deck.clone(), self.pos));
    }

    fn burn(&mut self) {
        let policy = self.book.burn;
        let mut none = None;
        let (first, mut count) = match policy {
            BurnPolicy::None => return,
            BurnPolicy::Fixed(n) => (None, n),
            BurnPolicy::FirstCardValue { .. } => {
                if self.due(FaultKind::BurnMissing, None) {
                    // No first card and no burn: the engine sees it at the next event ("no more
                    // bets", or the first round's first card).
                    let next = self.seq;
                    self.record_fault(FaultKind::BurnMissing, None, next);
                    return;
                }
                let card = self.next_card(false, 0, &mut none);
                let unreadable = self.due(FaultKind::BurnFirstUnreadable, None);
                let shown = (!unreadable).then_some(card);
                let first_seq = self.card_event(shown, Target::First, 1, true);
                if unreadable {
                    self.record_fault(FaultKind::BurnFirstUnreadable, None, first_seq);
                }
                (Some(first_seq), policy.count_after(card.rank))
            }
        };
        let miscount = self.due(FaultKind::BurnMiscount, None);
        if miscount {
            count = if count <= 1 { count + 1 } else { count - 1 };
        }
        let long = !miscount && self.due(FaultKind::BurnTooLong, None);
        if long {
            count += 1;
        }
        let mut last_seq = first.unwrap_or(self.seq);
        for i in 0..count {
            let card = self.next_card(false, 0, &mut none);
            last_seq = self.card_event(Some(card), Target::Burn, (i + 1).min(10) as u8, false);
        }
        if self.config.report_burn_count {
            last_seq = self.emit(EventKind::BurnCounted { count });
        }
        if miscount {
            self.record_fault(FaultKind::BurnMiscount, None, last_seq);
        }
        if long {
            self.record_fault(FaultKind::BurnTooLong, None, last_seq);
        }
    }

    /// For [`FaultKind::SwapChangesDrawing`]: an order of the initial deal with two cards in
    /// each other's places (P, B, B, P or B, P, P, B) under which the next cards, as dealt, change
    /// whether a hand is a natural, whether the Player draws or whether the Banker draws, from
    /// what they give in 8.4's order; with the index of the first card out of place. `None`
    /// when no such swap changes the drawing in this round (or too few cards are left).
    fn swap_changing_drawing(&mut self) -> Option<(DealOrder, usize)> {
        use Target::{Banker as B, Player as P};
        if self.remaining() < 8 {
            return None;
        }
        let c: Vec<u8> = self.deck[self.pos..self.pos + 6]
            .iter()
            .map(|c| c.baccarat_points())
            .collect();
        // How a round plays from its two hands' first two cards, the next cards following.
        let shape = |p: [u8; 2], b: [u8; 2]| {
            let (p2, b2) = ((p[0] + p[1]) % 10, (b[0] + b[1]) % 10);
            let player = tableau::player_draws(p2, b2);
            let third = player.then_some(c[4]);
            (
                tableau::natural(p2) || tableau::natural(b2),
                player,
                tableau::banker_draws(p2, b2, third),
            )
        };
        let honest = shape([c[0], c[2]], [c[1], c[3]]);
        let swaps: [(DealOrder, usize, [u8; 2], [u8; 2]); 2] = [
            (
                [(P, 1), (B, 1), (B, 2), (P, 2)],
                2,
                [c[0], c[3]],
                [c[1], c[2]],
            ),
            (
                [(B, 1), (P, 1), (P, 2), (B, 2)],
                0,
                [c[1], c[2]],
                [c[0], c[3]],
            ),
        ];
        let changing: Vec<(DealOrder, usize)> = swaps
            .iter()
            .filter(|(_, _, p, b)| shape(*p, *b) != honest)
            .map(|(order, at, _, _)| (*order, *at))
            .collect();
        match changing.len() {
            0 => None,
            n => Some(changing[self.rng.gen_range(0..n)]),
        }
    }

    /// Whether the stream reports where a plain shoe's rounds begin or end.
    fn boundaries(&self) -> bool {
        self.config.bets_closed || self.config.declare_results
    }

    fn deal_round(&mut self, round: u32, last: &mut Option<u32>) {
        let targets = self.config.mode == Mode::Targets;
        // Only one of the faults that change a round's third cards goes in one round.
        let third_card_fault = |t: &Self| {
            [
                FaultKind::ThirdCardsSwapped,
                FaultKind::UnauthorisedThirdCard,
                FaultKind::UnauthorisedBankerCard,
                FaultKind::MissingThirdCard,
                FaultKind::FourthCard,
            ]
            .iter()
            .any(|k| t.pending(*k, round))
        };
        if targets && self.due(FaultKind::StrayCard, Some(round)) {
            // A card drawn outside a game, before the round: it leaves the shoe, reported to no
            // hand.
            let card = self.next_card(true, round, last);
            let seq = self.card_event_with(Some(card), None, 0, true, None);
            self.record_fault(FaultKind::StrayCard, None, seq);
        }
        if self.config.bets_closed {
            self.emit(EventKind::BetsClosed);
        }
        let mut player: Vec<Card> = Vec::with_capacity(3);
        let mut banker: Vec<Card> = Vec::with_capacity(3);
        let mut first_seq = None;
        let mut last_seq = 0;

        // A foreign card replaces the round's first card, once some card has no copies left.
        let foreign = if !self.continuous && self.pending(FaultKind::ForeignCard, round) {
            let exhausted = (0..Card::DISTINCT)
                .filter_map(Card::from_index)
                .find(|c| self.dealt[c.index()] >= self.composition.copies_of(*c));
            exhausted.filter(|_| self.due(FaultKind::ForeignCard, Some(round)))
        } else {
            None
        };
        let unreadable = self.due(FaultKind::UnreadableCard, Some(round));
        let out_of_order = self.due(FaultKind::OutOfOrderCard, Some(round));
        let device_error = self.due(FaultKind::DeviceError, Some(round));
        // Two initial cards in each other's places, where that changes the drawing.
        let swapped = (!out_of_order
            && !unreadable
            && foreign.is_none()
            && self.carried.is_none()
            && self.pending(FaultKind::SwapChangesDrawing, round))
        .then(|| self.swap_changing_drawing())
        .flatten()
        .filter(|_| self.due(FaultKind::SwapChangesDrawing, Some(round)));
        // A card report lost and retransmitted, or retransmitted though it arrived: one of the
        // initial cards after the first.
        let recovered = self
            .due(FaultKind::RecoveredCard, Some(round))
            .then(|| self.rng.gen_range(1..4usize));
        let repeated = self
            .due(FaultKind::RepeatedReport, Some(round))
            .then(|| self.rng.gen_range(1..4usize));
        // A card report lost, its retransmission arriving after the next card's report (in a
        // round with no other fault on its initial cards).
        let others = unreadable
            || out_of_order
            || swapped.is_some()
            || device_error
            || foreign.is_some()
            || recovered.is_some()
            || repeated.is_some();
        let late = (!others && self.due(FaultKind::RecoveredCardLate, Some(round)))
            .then(|| self.rng.gen_range(1..3usize));
        let mut held: Option<(Option<Card>, Target, u8)> = None;

        // The initial deal (8.4): P, B, P, B, or P, P, B, B for the out-of-order fault, or two
        // cards swapped.
        let order: DealOrder = if let Some((order, _)) = swapped {
            order
        } else if out_of_order {
            [
                (Target::Player, 1),
                (Target::Player, 2),
                (Target::Banker, 1),
                (Target::Banker, 2),
            ]
        } else {
            [
                (Target::Player, 1),
                (Target::Banker, 1),
                (Target::Player, 2),
                (Target::Banker, 2),
            ]
        };
        for (i, (target, index)) in order.into_iter().enumerate() {
            if i == 0 {
                if let Some((card, seq)) = self.carried.take() {
                    // 12.1(b): the carried card is this round's first Player card.
                    player.push(card);
                    first_seq = Some(seq);
                    continue;
                }
            }
            let mut card = self.next_card(i == 0, round, last);
            if i == 0 {
                if let Some(f) = foreign {
                    card = f;
                }
            }
            let reported = if i == 0 && unreadable {
                None
            } else {
                Some(card)
            };
            if late == Some(i) {
                // Its report is lost: it comes again after the next card's.
                held = Some((reported, target, index));
                match target {
                    Target::Player => player.push(card),
                    _ => banker.push(card),
                }
                continue;
            }
            let retransmit = (recovered == Some(i)).then_some(true);
            let seq = self.card_event_with(reported, Some(target), index, true, retransmit);
            if retransmit.is_some() {
                self.record_fault(FaultKind::RecoveredCard, Some(round), seq);
            }
            let seq = match held.take() {
                Some((reported, target, index)) => {
                    let again =
                        self.card_event_with(reported, Some(target), index, true, Some(true));
                    self.record_fault(FaultKind::RecoveredCardLate, Some(round), again);
                    again
                }
                None => seq,
            };
            if repeated == Some(i) {
                let again = self.card_event_with(reported, Some(target), index, true, Some(true));
                self.record_fault(FaultKind::RepeatedReport, Some(round), again);
            }
            if i == 0 {
                if foreign.is_some() {
                    self.record_fault(FaultKind::ForeignCard, Some(round), seq);
                }
                if unreadable {
                    self.record_fault(FaultKind::UnreadableCard, Some(round), seq);
                }
            }
            if i == 1 && out_of_order {
                self.record_fault(FaultKind::OutOfOrderCard, Some(round), seq);
            }
            if swapped.is_some_and(|(_, at)| at == i) {
                self.record_fault(FaultKind::SwapChangesDrawing, Some(round), seq);
            }
            if i == 1 && device_error {
                // Mid-deal, so the error belongs to this round whatever its cards.
                let seq = self.emit(EventKind::DeviceError {
                    code: "7".into(),
                    text: "drawing time-out".into(),
                });
                self.record_fault(FaultKind::DeviceError, Some(round), seq);
            }
            first_seq.get_or_insert(seq);
            last_seq = seq;
            match target {
                Target::Player => player.push(card),
                _ => banker.push(card),
            }
        }
        if self.due(FaultKind::CardExposed, Some(round)) {
            let seq = self.emit(EventKind::CardExposed {
                card: Some(banker[0]),
                during: ExposedDuring::Dealing,
            });
            self.record_fault(FaultKind::CardExposed, Some(round), seq);
        }

        let points = |cards: &[Card]| cards.iter().map(|c| c.baccarat_points()).sum::<u8>() % 10;
        let player2 = points(&player);
        let banker2 = points(&banker);
        let player_draws = tableau::player_draws(player2, banker2);
        let not_last = last.is_none_or(|l| round < l);
        let mut early_declared = false;
        if self.pending(FaultKind::EarlyResult, round)
            && !third_card_fault(self)
            && (targets || self.config.bets_closed)
            && self.remaining() >= 2
        {
            // The result is declared (rightly) before a third card that is due: peek at the
            // cards still to come to know it.
            let p3 = player_draws.then(|| self.deck[self.pos]);
            let b3_at = self.pos + usize::from(player_draws);
            let banker_draws =
                tableau::banker_draws(player2, banker2, p3.map(|c| c.baccarat_points()));
            if player_draws || banker_draws {
                self.due(FaultKind::EarlyResult, Some(round));
                let mut p = player.clone();
                let mut b = banker.clone();
                p.extend(p3);
                if banker_draws {
                    b.push(self.deck[b3_at]);
                }
                let record = DealtRound::of(self.shoe_no, round, &p, &b);
                let seq = self.declare(&record);
                self.record_fault(FaultKind::EarlyResult, Some(round), seq);
                early_declared = true;
            }
        }
        let mut player_third = None;
        let mut banker_done = false;
        let swap = player_draws
            && self.pending(FaultKind::ThirdCardsSwapped, round)
            && self.remaining() >= 2
            && tableau::banker_draws(
                player2,
                banker2,
                Some(self.deck[self.pos + 1].baccarat_points()),
            );
        if swap {
            // The Banker's third card is dealt before the Player's (the Banker was entitled to
            // it, by the Player's card that came after).
            self.due(FaultKind::ThirdCardsSwapped, Some(round));
            let card = self.next_card(false, round, last);
            let seq = self.card_event(Some(card), Target::Banker, 3, true);
            self.record_fault(FaultKind::ThirdCardsSwapped, Some(round), seq);
            banker.push(card);
            let card = self.next_card(false, round, last);
            last_seq = self.card_event(Some(card), Target::Player, 3, true);
            player.push(card);
            banker_done = true;
        } else if player_draws {
            let card = self.next_card(false, round, last);
            last_seq = self.card_event(Some(card), Target::Player, 3, true);
            player.push(card);
            player_third = Some(card.baccarat_points());
        } else if not_last
            && self.pending(FaultKind::UnauthorisedThirdCard, round)
            && (targets || self.boundaries() && !tableau::banker_draws(player2, banker2, None))
        {
            // A plain shoe can only see the card when it falls between rounds (12.1(b)), and
            // only if the stream says where rounds begin or end.
            self.due(FaultKind::UnauthorisedThirdCard, Some(round));
            let card = self.next_card(false, round, last);
            let seq = self.card_event(Some(card), Target::Player, 3, false);
            self.record_fault(FaultKind::UnauthorisedThirdCard, Some(round), seq);
            if tableau::banker_draws(player2, banker2, None) {
                // 12.1(a): it becomes the Banker's third card.
                banker.push(card);
                last_seq = seq;
                banker_done = true;
            } else {
                // 12.1(b): it becomes the first card of the next round.
                self.carried = Some((card, seq));
            }
        }
        let banker_draws = tableau::banker_draws(player2, banker2, player_third);
        if !banker_done && banker_draws {
            if self.due(FaultKind::MissingThirdCard, Some(round)) {
                self.record_fault(FaultKind::MissingThirdCard, Some(round), last_seq);
            } else {
                let card = self.next_card(false, round, last);
                last_seq = self.card_event(Some(card), Target::Banker, 3, true);
                banker.push(card);
            }
        }
        if !banker_done
            && !banker_draws
            && not_last
            && self.carried.is_none()
            && self.pending(FaultKind::UnauthorisedBankerCard, round)
            && (targets || self.boundaries())
        {
            // A third card to the Banker, who stands: set aside, in no hand.
            self.due(FaultKind::UnauthorisedBankerCard, Some(round));
            let card = self.next_card(false, round, last);
            let seq = self.card_event(Some(card), Target::Banker, 3, true);
            self.record_fault(FaultKind::UnauthorisedBankerCard, Some(round), seq);
        }
        if targets
            && not_last
            && (player.len() == 3 || banker.len() == 3)
            && self.due(FaultKind::FourthCard, Some(round))
        {
            let side = if player.len() == 3 {
                Target::Player
            } else {
                Target::Banker
            };
            let card = self.next_card(false, round, last);
            let seq = self.card_event(Some(card), side, 4, true);
            self.record_fault(FaultKind::FourthCard, Some(round), seq);
        }
        let mut record = DealtRound::of(self.shoe_no, round, &player, &banker);
        record.first_seq = first_seq.unwrap_or(last_seq);
        record.last_seq = last_seq;
        let wrong = self.due(FaultKind::WrongDeclaredResult, Some(round));
        if !early_declared && (self.config.declare_results || wrong) {
            let mut declared = record.clone();
            if wrong {
                declared.outcome = match record.outcome {
                    Outcome::Player => Outcome::Banker,
                    Outcome::Banker => Outcome::Tie,
                    _ => Outcome::Player,
                };
            }
            let seq = self.declare(&declared);
            if wrong {
                self.record_fault(FaultKind::WrongDeclaredResult, Some(round), seq);
            }
        }
        if device_error {
            self.emit(EventKind::DeviceErrorCleared { code: "7".into() });
        }
        self.session.rounds.push(record);
        if self.continuous {
            // A continuous shuffler takes the round's cards back in at random places.
            let used: Vec<Card> = player.iter().chain(banker.iter()).copied().collect();
            for card in used {
                let at = self.rng.gen_range(self.pos..=self.deck.len());
                self.deck.insert(at, card);
                self.dealt[card.index()] = self.dealt[card.index()].saturating_sub(1);
            }
        }
    }

    /// Declares `record`'s outcome (with pairs when the shoe reports hands).
    fn declare(&mut self, record: &DealtRound) -> u64 {
        let (player_pair, banker_pair) = match self.config.mode {
            Mode::Targets => (Some(record.player_pair), Some(record.banker_pair)),
            Mode::Plain => (None, None),
        };
        self.emit(EventKind::ResultDeclared {
            outcome: record.outcome,
            player_pair,
            banker_pair,
        })
    }
}

#[cfg(test)]
mod tests;
