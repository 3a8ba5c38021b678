//! An honest-dealer simulator with fault injection.
//!
//! [`deal`] deals whole shoes of Baccarat under a [`RuleBook`], seeded and deterministic (ChaCha8),
//! and returns the canonical [`TableEvent`] stream a device would report, the true rounds as the
//! cards physically fell ([`Session::rounds`]) and a machine-readable record of every fault it
//! injected ([`InjectedFault`]). It deals in two modes: with targets and indexes like an Angel
//! Eye shoe, or plain cards like a barcode shoe.
//!
//! A device simulator can encode the events into a device protocol; faults are chosen by kind
//! ([`FaultKind`]) and the earliest shoe and round to inject at ([`FaultPlan`]). Some faults need
//! a particular round (a round where the Player stands, or where a card is exhausted): they go in
//! the first suitable round at or after the planned one, and the record says where.
//!
//! The simulator plays by the rule book's drawing table with its own straightforward code, not the
//! engine's, so tests that compare the two compare independent implementations.

use pitwatch_model::{
    Card, EventKind, ExposedDuring, Outcome, ShoeComposition, ShufflerKind, TableEvent, Target,
    Timestamp,
};
use pitwatch_rules::{
    BurnPolicy, Decision, DrawingTable, EndOfShoePolicy, Hand, IrregularityCode, RoundRecord,
    RuleBook,
};
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

/// A kind of dealer or device fault the simulator can inject.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FaultKind {
    /// One burn card too few (or one too many after an ace).
    BurnMiscount,
    /// The initial deal goes P, P, B, B instead of P, B, P, B.
    OutOfOrderCard,
    /// A third card to the Player where the rules give none (12.1).
    UnauthorisedThirdCard,
    /// The Banker's required third card is not dealt.
    MissingThirdCard,
    /// The declared winner is wrong.
    WrongDeclaredResult,
    /// A copy of a card the shoe has no copies left of.
    ForeignCard,
    /// The device cannot read a card.
    UnreadableCard,
    /// The cutting card is placed closer to the back than the rule book allows.
    CuttingCardTooCloseToBack,
    /// One more round after the last coup.
    RoundPastLastCoup,
    /// A card is exposed during the deal.
    CardExposed,
    /// The device raises (and later clears) an error.
    DeviceError,
}

impl FaultKind {
    /// Every fault kind.
    pub const ALL: &'static [FaultKind] = &[
        FaultKind::BurnMiscount,
        FaultKind::OutOfOrderCard,
        FaultKind::UnauthorisedThirdCard,
        FaultKind::MissingThirdCard,
        FaultKind::WrongDeclaredResult,
        FaultKind::ForeignCard,
        FaultKind::UnreadableCard,
        FaultKind::CuttingCardTooCloseToBack,
        FaultKind::RoundPastLastCoup,
        FaultKind::CardExposed,
        FaultKind::DeviceError,
    ];

    /// The fault's name, as in JSON and on command lines (`burn_miscount`).
    pub const fn name(self) -> &'static str {
        match self {
            FaultKind::BurnMiscount => "burn_miscount",
            FaultKind::OutOfOrderCard => "out_of_order_card",
            FaultKind::UnauthorisedThirdCard => "unauthorised_third_card",
            FaultKind::MissingThirdCard => "missing_third_card",
            FaultKind::WrongDeclaredResult => "wrong_declared_result",
            FaultKind::ForeignCard => "foreign_card",
            FaultKind::UnreadableCard => "unreadable_card",
            FaultKind::CuttingCardTooCloseToBack => "cutting_card_too_close_to_back",
            FaultKind::RoundPastLastCoup => "round_past_last_coup",
            FaultKind::CardExposed => "card_exposed",
            FaultKind::DeviceError => "device_error",
        }
    }

    /// The irregularity the engine should flag for this fault.
    pub const fn expected_code(self) -> IrregularityCode {
        match self {
            FaultKind::BurnMiscount => IrregularityCode::BurnCountMismatch,
            FaultKind::OutOfOrderCard => IrregularityCode::DealOutOfOrder,
            FaultKind::UnauthorisedThirdCard => IrregularityCode::UnauthorisedThirdCard,
            FaultKind::MissingThirdCard => IrregularityCode::MissingThirdCard,
            FaultKind::WrongDeclaredResult => IrregularityCode::ResultMismatch,
            FaultKind::ForeignCard => IrregularityCode::ExcessCard,
            FaultKind::UnreadableCard => IrregularityCode::UnreadableCard,
            FaultKind::CuttingCardTooCloseToBack => IrregularityCode::CuttingCardMisplaced,
            FaultKind::RoundPastLastCoup => IrregularityCode::DealtPastLastCoup,
            FaultKind::CardExposed => IrregularityCode::CardExposed,
            FaultKind::DeviceError => IrregularityCode::DeviceError,
        }
    }

    /// Whether the fault can be seen at all in `mode`: a plain shoe cannot tell where a card went,
    /// so it cannot see a card dealt to the wrong hand (it assigns cards by the rules). It sees an
    /// unauthorised third card only when the card falls between rounds (12.1(b)) in a stream
    /// that reports "no more bets" (as [`DealerConfig::barcode`] does); the simulator injects it
    /// only there.
    pub const fn observable_in(self, mode: Mode) -> bool {
        !matches!((self, mode), (FaultKind::OutOfOrderCard, Mode::Plain))
    }
}

impl std::str::FromStr for FaultKind {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        FaultKind::ALL
            .iter()
            .copied()
            .find(|k| k.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = FaultKind::ALL.iter().map(|k| k.name()).collect();
                format!("unknown fault {s:?} (expected one of {})", names.join(", "))
            })
    }
}

/// A fault to inject: its kind, and the earliest shoe and round (both 1-based) to inject it at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct FaultPlan {
    /// The fault.
    pub kind: FaultKind,
    /// The shoe.
    pub shoe: u32,
    /// The earliest round (ignored for shoe-level faults: burn, cutting card, past last coup).
    pub round: u32,
}

/// Where a fault was actually injected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct InjectedFault {
    /// The fault.
    pub kind: FaultKind,
    /// The shoe.
    pub shoe: u32,
    /// The round it belongs to, or `None` outside a round.
    pub round: Option<u32>,
    /// `seq` of the event that carries it.
    pub seq: u64,
    /// The irregularity the engine should flag.
    pub expected_code: IrregularityCode,
}

/// What a simulated session produced.
#[derive(Debug, Clone)]
pub struct Session {
    /// The table's event stream.
    pub events: Vec<TableEvent>,
    /// The rounds as the cards physically fell (ground truth), in order.
    pub rounds: Vec<RoundRecord>,
    /// Every fault injected, in order.
    pub faults: Vec<InjectedFault>,
    /// Cards drawn from each shoe (burn included), by shoe.
    pub cards_per_shoe: Vec<u32>,
}

/// The dealer while dealing: the shoe, the event stream and the plan.
struct Table<'a> {
    book: &'a RuleBook,
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
}

/// Deals `config.shoes` shoes under `book` with `faults`, deterministically for `seed`.
pub fn deal(book: &RuleBook, config: &DealerConfig, faults: &[FaultPlan], seed: u64) -> Session {
    let composition = book.composition();
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
        },
        seq: config.first_seq,
        shoe_no: 0,
        deck: Vec::new(),
        pos: 0,
        drawn: 0,
        dealt: [0; Card::DISTINCT],
        composition,
        continuous: book.shuffler() == ShufflerKind::Continuous,
        cutting_from_back: None,
        cutting_out: false,
        carried: None,
    };
    for _ in 0..config.shoes {
        table.deal_shoe();
    }
    table.session
}

impl Table<'_> {
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
                *last = Some(match (self.book.end_of_shoe(), first_of_round) {
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
        let kind = match self.config.mode {
            Mode::Targets => EventKind::CardDrawn {
                card,
                target: Some(target),
                index: Some(index),
                face_up: Some(face_up),
                retransmit: None,
            },
            Mode::Plain => EventKind::CardDrawn {
                card,
                target: None,
                index: None,
                face_up: None,
                retransmit: None,
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
        self.deck.shuffle(&mut self.rng);
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
                shuffler: Some(self.book.shuffler()),
            });
        }
        if !self.continuous {
            let min_cut = self.book.cut().cards(composition);
            let position = self.rng.gen_range(min_cut..=total - min_cut);
            self.deck.rotate_left(position as usize);
            let limit = self.book.cutting_card();
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
    }

    fn burn(&mut self) {
        let policy = self.book.burn();
        let mut none = None;
        let (first, mut count) = match policy {
            BurnPolicy::None => return,
            BurnPolicy::Fixed(n) => (None, n),
            BurnPolicy::FirstCardValue { .. } => {
                let card = self.next_card(false, 0, &mut none);
                let first_seq = self.card_event(Some(card), Target::First, 1, true);
                (Some(first_seq), policy.count_after(card.rank))
            }
        };
        let miscount = self.due(FaultKind::BurnMiscount, None);
        if miscount {
            count = if count <= 1 { count + 1 } else { count - 1 };
        }
        let mut last_seq = first.unwrap_or(self.seq);
        for i in 0..count {
            let card = self.next_card(false, 0, &mut none);
            last_seq = self.card_event(Some(card), Target::Burn, (i + 1).min(10) as u8, false);
        }
        if self.config.report_burn_count || miscount {
            last_seq = self.emit(EventKind::BurnCounted { count });
        }
        if miscount {
            self.record_fault(FaultKind::BurnMiscount, None, last_seq);
        }
    }

    fn deal_round(&mut self, round: u32, last: &mut Option<u32>) {
        let table: DrawingTable = *self.book.drawing();
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
        let out_of_order =
            self.config.mode == Mode::Targets && self.due(FaultKind::OutOfOrderCard, Some(round));
        let device_error = self.due(FaultKind::DeviceError, Some(round));

        // The initial deal (8.4): P, B, P, B, or P, P, B, B for the out-of-order fault.
        let order: [(Target, u8); 4] = if out_of_order {
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
            let seq = self.card_event(reported, target, index, true);
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
        let mut player_third = None;
        let mut extra_to_banker = false;
        if table.player(player2, banker2) == Decision::Draw {
            let card = self.next_card(false, round, last);
            last_seq = self.card_event(Some(card), Target::Player, 3, true);
            player.push(card);
            player_third = Some(card.baccarat_points());
        } else if last.is_none_or(|l| round < l)
            && self.pending(FaultKind::UnauthorisedThirdCard, round)
            && (self.config.mode == Mode::Targets
                || self.config.bets_closed
                    && table.banker(player2, banker2, None) == Decision::Stand)
        {
            // A plain shoe can only see the card when it falls between rounds (12.1(b)), and
            // only if "no more bets" marks where the next round begins.
            self.due(FaultKind::UnauthorisedThirdCard, Some(round));
            let card = self.next_card(false, round, last);
            let seq = self.card_event(Some(card), Target::Player, 3, false);
            self.record_fault(FaultKind::UnauthorisedThirdCard, Some(round), seq);
            if table.banker(player2, banker2, None) == Decision::Draw {
                // 12.1(a): it becomes the Banker's third card.
                banker.push(card);
                last_seq = seq;
                extra_to_banker = true;
            } else {
                // 12.1(b): it becomes the first card of the next round.
                self.carried = Some((card, seq));
            }
        }
        if !extra_to_banker && table.banker(player2, banker2, player_third) == Decision::Draw {
            if self.due(FaultKind::MissingThirdCard, Some(round)) {
                self.record_fault(FaultKind::MissingThirdCard, Some(round), last_seq);
            } else {
                let card = self.next_card(false, round, last);
                last_seq = self.card_event(Some(card), Target::Banker, 3, true);
                banker.push(card);
            }
        }
        let mut record =
            RoundRecord::from_hands(self.shoe_no, round, Hand::of(&player), Hand::of(&banker));
        record.first_seq = first_seq.unwrap_or(last_seq);
        record.last_seq = last_seq;
        let wrong = self.due(FaultKind::WrongDeclaredResult, Some(round));
        if self.config.declare_results || wrong {
            let actual = record.outcome.unwrap_or(Outcome::Tie);
            let declared = if wrong {
                match actual {
                    Outcome::Player => Outcome::Banker,
                    Outcome::Banker => Outcome::Tie,
                    _ => Outcome::Player,
                }
            } else {
                actual
            };
            let (player_pair, banker_pair) = match self.config.mode {
                Mode::Targets => (record.player_pair, record.banker_pair),
                Mode::Plain => (None, None),
            };
            let seq = self.emit(EventKind::ResultDeclared {
                outcome: declared,
                player_pair,
                banker_pair,
            });
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
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nz() -> RuleBook {
        RuleBook::nz_baccarat()
    }

    #[test]
    fn an_honest_shoe_holds_no_card_more_often_than_the_shoe_does() {
        let session = deal(&nz(), &DealerConfig::angel_eye(), &[], 9);
        let mut seen = [0u8; Card::DISTINCT];
        for event in &session.events {
            if let EventKind::CardDrawn { card: Some(c), .. } = event.kind {
                seen[c.index()] += 1;
            }
        }
        assert!(seen.iter().all(|&n| n <= 8));
        let drawn: u32 = seen.iter().map(|&n| u32::from(n)).sum();
        assert_eq!(session.cards_per_shoe, vec![drawn]);
        // The cutting card sits 20 to 34 cards from the back; after it at most two rounds (12
        // cards) are dealt.
        assert!((382..=408).contains(&drawn), "{drawn} cards drawn");
    }

    #[test]
    fn a_shoe_starts_with_shuffle_cut_cutting_card_and_the_burn() {
        let session = deal(&nz(), &DealerConfig::angel_eye(), &[], 2);
        let names: Vec<&str> = session
            .events
            .iter()
            .take(4)
            .map(|e| e.kind.name())
            .collect();
        assert_eq!(
            names,
            ["shuffled", "cut", "cutting_card_placed", "card_drawn"]
        );
        let EventKind::CardDrawn {
            card: Some(first),
            target: Some(Target::First),
            ..
        } = session.events[3].kind
        else {
            panic!("the burn's first card comes first: {:?}", session.events[3]);
        };
        let burns = session
            .events
            .iter()
            .filter(|e| {
                matches!(
                    e.kind,
                    EventKind::CardDrawn {
                        target: Some(Target::Burn),
                        ..
                    }
                )
            })
            .count() as u32;
        assert_eq!(burns, nz().burn().count_after(first.rank));
    }

    #[test]
    fn every_injected_fault_points_at_an_event_of_the_stream() {
        let plans: Vec<FaultPlan> = FaultKind::ALL
            .iter()
            .map(|&kind| FaultPlan {
                kind,
                shoe: 1,
                round: 20,
            })
            .collect();
        let session = deal(&nz(), &DealerConfig::angel_eye(), &plans, 4);
        assert_eq!(session.faults.len(), FaultKind::ALL.len());
        for fault in &session.faults {
            assert!(
                session.events.iter().any(|e| e.seq == fault.seq),
                "{fault:?}"
            );
            assert_eq!(fault.expected_code, fault.kind.expected_code());
        }
    }

    #[test]
    fn fault_names_match_their_json_and_parse_back() {
        for &kind in FaultKind::ALL {
            let json = serde_json::to_value(kind).unwrap();
            assert_eq!(json.as_str(), Some(kind.name()));
            assert_eq!(kind.name().parse::<FaultKind>(), Ok(kind));
        }
        assert!("card_switch".parse::<FaultKind>().is_err());
    }

    #[test]
    fn the_same_seed_deals_the_same_events_and_a_plain_shoe_carries_no_targets() {
        let a = deal(&nz(), &DealerConfig::barcode(), &[], 77);
        let b = deal(&nz(), &DealerConfig::barcode(), &[], 77);
        assert_eq!(a.events, b.events);
        assert_eq!(a.rounds, b.rounds);
        assert!(a.events.iter().all(|e| !matches!(
            e.kind,
            EventKind::CardDrawn {
                target: Some(_),
                ..
            }
        )));
    }
}
