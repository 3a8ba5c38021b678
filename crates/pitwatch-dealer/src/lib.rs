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

pub mod round;
pub mod shuffle;
pub mod tableau;

pub use round::DealtRound;
pub use shuffle::ShuffleModel;

use pitwatch_model::{
    Card, EventKind, ExposedDuring, Outcome, ShoeComposition, ShufflerKind, TableEvent, Target,
    Timestamp,
};
use pitwatch_rules::{BurnPolicy, CuttingCardLimit, EndOfShoePolicy, IrregularityCode, ShoeBook};
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
    /// One burn card too many.
    BurnTooLong,
    /// No burn at all: neither the first card nor the cards after it.
    BurnMissing,
    /// The burn's first card cannot be read (so its value, the burn count, is unknown).
    BurnFirstUnreadable,
    /// The initial deal goes P, P, B, B instead of P, B, P, B.
    OutOfOrderCard,
    /// Both hands draw, and the Banker's third card is dealt before the Player's.
    ThirdCardsSwapped,
    /// Two cards of the initial deal change places (the Banker's second card dealt before the
    /// Player's second, or the Banker's first before the Player's first) in a round where that
    /// changes whether a hand is a natural or draws: the hands as dealt are not the hands 8.4's
    /// order gives, and the dealer plays on by the hands as dealt.
    SwapChangesDrawing,
    /// A third card to the Player where the rules give none (12.1).
    UnauthorisedThirdCard,
    /// A third card to the Banker where the Table of Play gives none (set aside).
    UnauthorisedBankerCard,
    /// The Banker's required third card is not dealt.
    MissingThirdCard,
    /// The declared winner is wrong.
    WrongDeclaredResult,
    /// The (right) result is declared before a third card that was due, which is then dealt:
    /// announced before each hand had all the cards it is entitled to (10.1).
    EarlyResult,
    /// A copy of a card the shoe has no copies left of.
    ForeignCard,
    /// The device cannot read a card.
    UnreadableCard,
    /// A card drawn between rounds, outside a game, reported to no hand (an Angel Eye `d`).
    StrayCard,
    /// A card reported as a fourth card of a hand that has three.
    FourthCard,
    /// A card report lost on the way; the device's retransmission of it arrives
    /// (`retransmit: true`, the first the host sees of the card).
    RecoveredCard,
    /// A card report that arrived is sent again as a retransmission (`retransmit: true`).
    RepeatedReport,
    /// A card report lost on the way, its retransmission arriving after the next card's report,
    /// so the cards arrive out of order though they were dealt in order.
    RecoveredCardLate,
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
        FaultKind::BurnTooLong,
        FaultKind::BurnMissing,
        FaultKind::BurnFirstUnreadable,
        FaultKind::OutOfOrderCard,
        FaultKind::ThirdCardsSwapped,
        FaultKind::SwapChangesDrawing,
        FaultKind::UnauthorisedThirdCard,
        FaultKind::UnauthorisedBankerCard,
        FaultKind::MissingThirdCard,
        FaultKind::WrongDeclaredResult,
        FaultKind::EarlyResult,
        FaultKind::ForeignCard,
        FaultKind::UnreadableCard,
        FaultKind::StrayCard,
        FaultKind::FourthCard,
        FaultKind::RecoveredCard,
        FaultKind::RepeatedReport,
        FaultKind::RecoveredCardLate,
        FaultKind::CuttingCardTooCloseToBack,
        FaultKind::RoundPastLastCoup,
        FaultKind::CardExposed,
        FaultKind::DeviceError,
    ];

    /// The fault's name, as in JSON and on command lines (`burn_miscount`).
    pub const fn name(self) -> &'static str {
        match self {
            FaultKind::BurnMiscount => "burn_miscount",
            FaultKind::BurnTooLong => "burn_too_long",
            FaultKind::BurnMissing => "burn_missing",
            FaultKind::BurnFirstUnreadable => "burn_first_unreadable",
            FaultKind::OutOfOrderCard => "out_of_order_card",
            FaultKind::ThirdCardsSwapped => "third_cards_swapped",
            FaultKind::SwapChangesDrawing => "swap_changes_drawing",
            FaultKind::UnauthorisedThirdCard => "unauthorised_third_card",
            FaultKind::UnauthorisedBankerCard => "unauthorised_banker_card",
            FaultKind::MissingThirdCard => "missing_third_card",
            FaultKind::WrongDeclaredResult => "wrong_declared_result",
            FaultKind::EarlyResult => "early_result",
            FaultKind::ForeignCard => "foreign_card",
            FaultKind::UnreadableCard => "unreadable_card",
            FaultKind::StrayCard => "stray_card",
            FaultKind::FourthCard => "fourth_card",
            FaultKind::RecoveredCard => "recovered_card",
            FaultKind::RepeatedReport => "repeated_report",
            FaultKind::RecoveredCardLate => "recovered_card_late",
            FaultKind::CuttingCardTooCloseToBack => "cutting_card_too_close_to_back",
            FaultKind::RoundPastLastCoup => "round_past_last_coup",
            FaultKind::CardExposed => "card_exposed",
            FaultKind::DeviceError => "device_error",
        }
    }

    /// The irregularity the engine should flag for this fault, or `None` for a fault the rules
    /// leave nothing wrong in (a card report recovered or repeated by the device). A result
    /// declared before a third card that was due is `RESULT_MISMATCH` (10.1) even when it is
    /// the result the completed round gives.
    pub const fn expected_code(self) -> Option<IrregularityCode> {
        Some(match self {
            FaultKind::BurnMiscount | FaultKind::BurnTooLong => IrregularityCode::BurnCountMismatch,
            FaultKind::BurnMissing => IrregularityCode::BurnMissing,
            FaultKind::BurnFirstUnreadable | FaultKind::UnreadableCard => {
                IrregularityCode::UnreadableCard
            }
            FaultKind::OutOfOrderCard
            | FaultKind::ThirdCardsSwapped
            | FaultKind::SwapChangesDrawing
            | FaultKind::StrayCard
            | FaultKind::FourthCard => IrregularityCode::DealOutOfOrder,
            FaultKind::UnauthorisedThirdCard | FaultKind::UnauthorisedBankerCard => {
                IrregularityCode::UnauthorisedThirdCard
            }
            FaultKind::MissingThirdCard => IrregularityCode::MissingThirdCard,
            // 10.1: the result is announced when each hand has all the cards it is entitled to.
            FaultKind::WrongDeclaredResult | FaultKind::EarlyResult => {
                IrregularityCode::ResultMismatch
            }
            FaultKind::ForeignCard => IrregularityCode::ExcessCard,
            FaultKind::CuttingCardTooCloseToBack => IrregularityCode::CuttingCardMisplaced,
            FaultKind::RoundPastLastCoup => IrregularityCode::DealtPastLastCoup,
            FaultKind::CardExposed => IrregularityCode::CardExposed,
            FaultKind::DeviceError => IrregularityCode::DeviceError,
            FaultKind::RecoveredCard | FaultKind::RepeatedReport | FaultKind::RecoveredCardLate => {
                return None
            }
        })
    }

    /// Whether the fault changes which cards a plain shoe's round takes, so that only a round
    /// boundary the stream reports ("no more bets", a declared result) lets the engine find the
    /// next round again.
    pub const fn moves_cards(self) -> bool {
        matches!(
            self,
            FaultKind::BurnMiscount
                | FaultKind::BurnTooLong
                | FaultKind::BurnMissing
                | FaultKind::BurnFirstUnreadable
                | FaultKind::OutOfOrderCard
                | FaultKind::ThirdCardsSwapped
                | FaultKind::SwapChangesDrawing
                | FaultKind::UnauthorisedThirdCard
                | FaultKind::UnauthorisedBankerCard
                | FaultKind::MissingThirdCard
                | FaultKind::EarlyResult
                | FaultKind::UnreadableCard
        )
    }

    /// Whether the simulator injects the fault in a stream dealt with `config`, because the
    /// stream lets the engine see it, or at least follow the shoe past it:
    ///
    /// - A stray card with no hand and a fourth card exist only for a shoe that reports hands; a
    ///   repeated report is told from the next card only by the position it names (a plain
    ///   shoe's repeats are the driver's to drop), and a late retransmission put in its place only
    ///   by that position.
    /// - In a plain shoe (no targets) a fault that moves cards between rounds can be followed
    ///   only if the stream reports round boundaries ("no more bets" or declared results);
    ///   without them every later round would shift. A burn fault needs "no more bets" (or, for
    ///   a miscount, the device's burn count); a result declared early needs "no more bets",
    ///   which alone says the late card still belongs to the round.
    pub fn injectable(self, config: &DealerConfig) -> bool {
        if config.mode == Mode::Targets {
            return true;
        }
        let boundary = config.bets_closed || config.declare_results;
        match self {
            // A repeated plain report names no position, so only the driver can drop it.
            FaultKind::StrayCard
            | FaultKind::FourthCard
            | FaultKind::RepeatedReport
            | FaultKind::RecoveredCardLate => false,
            FaultKind::BurnMiscount | FaultKind::BurnTooLong => {
                config.bets_closed || config.report_burn_count
            }
            FaultKind::BurnMissing | FaultKind::BurnFirstUnreadable | FaultKind::EarlyResult => {
                config.bets_closed
            }
            kind if kind.moves_cards() => boundary,
            _ => true,
        }
    }

    /// Whether the fault can be seen at all in `mode`, as dealt by that mode's default
    /// configuration ([`DealerConfig::angel_eye`], [`DealerConfig::barcode`]): a plain shoe
    /// cannot tell where a card went, so it cannot see a card dealt to the wrong hand (it assigns
    /// cards by the rules), nor a card reported to no hand.
    pub fn observable_in(self, mode: Mode) -> bool {
        let config = match mode {
            Mode::Targets => DealerConfig::angel_eye(),
            Mode::Plain => DealerConfig::barcode(),
        };
        self.injectable(&config)
            && !matches!(
                (self, mode),
                (
                    FaultKind::OutOfOrderCard
                        | FaultKind::ThirdCardsSwapped
                        | FaultKind::SwapChangesDrawing,
                    Mode::Plain
                )
            )
    }

    /// What the engine may raise for this fault in a stream dealt with `config`, each outcome
    /// being one irregularity with that code at the fault's round, or (`None`) none at all.
    ///
    /// A plain shoe assigns cards by the rules, so it cannot see cards dealt in the wrong order;
    /// but when the hands it assumes need a different number of cards than were dealt, it sees a
    /// card between rounds (an unauthorised third card) or a round short of a card (a missing
    /// third card), and when they give another result than the one declared, a result mismatch;
    /// and it says so.
    pub fn outcomes(self, config: &DealerConfig) -> &'static [Option<IrregularityCode>] {
        use IrregularityCode as C;
        let plain = config.mode == Mode::Plain;
        match self {
            FaultKind::OutOfOrderCard
            | FaultKind::ThirdCardsSwapped
            | FaultKind::SwapChangesDrawing
                if plain =>
            {
                &[
                    None,
                    Some(C::UnauthorisedThirdCard),
                    Some(C::MissingThirdCard),
                    Some(C::ResultMismatch),
                ]
            }
            FaultKind::BurnMiscount | FaultKind::BurnTooLong => &[Some(C::BurnCountMismatch)],
            FaultKind::BurnMissing => &[Some(C::BurnMissing)],
            FaultKind::BurnFirstUnreadable | FaultKind::UnreadableCard => {
                &[Some(C::UnreadableCard)]
            }
            FaultKind::OutOfOrderCard
            | FaultKind::ThirdCardsSwapped
            | FaultKind::SwapChangesDrawing
            | FaultKind::StrayCard
            | FaultKind::FourthCard => &[Some(C::DealOutOfOrder)],
            FaultKind::UnauthorisedThirdCard | FaultKind::UnauthorisedBankerCard => {
                &[Some(C::UnauthorisedThirdCard)]
            }
            FaultKind::MissingThirdCard => &[Some(C::MissingThirdCard)],
            FaultKind::WrongDeclaredResult | FaultKind::EarlyResult => &[Some(C::ResultMismatch)],
            FaultKind::ForeignCard => &[Some(C::ExcessCard)],
            FaultKind::CuttingCardTooCloseToBack => &[Some(C::CuttingCardMisplaced)],
            FaultKind::RoundPastLastCoup => &[Some(C::DealtPastLastCoup)],
            FaultKind::CardExposed => &[Some(C::CardExposed)],
            FaultKind::DeviceError => &[Some(C::DeviceError)],
            FaultKind::RecoveredCard | FaultKind::RepeatedReport | FaultKind::RecoveredCardLate => {
                &[None]
            }
        }
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
    /// The irregularity the engine should flag, or `None` when nothing is wrong by the rules.
    pub expected_code: Option<IrregularityCode>,
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
mod tests {
    use super::*;
    use pitwatch_model::DeckKind;
    use pitwatch_rules::{CutLimit, ShuffleCheck};

    /// The NZ Baccarat shoe (Gazette 2004 No 56): eight decks from a batch shuffler, cut at
    /// least a deck from either end (7.6), the cutting card at least 20 cards from the back
    /// (7.6), the burn by the first card's value (7.7, 7.9: ace 1) and the last coup (11.2).
    fn nz() -> ShoeBook {
        ShoeBook {
            composition: ShoeComposition::new(8, DeckKind::Standard52),
            min_decks: 4,
            max_decks: 8,
            shuffler: ShufflerKind::Batch,
            shuffle_steps: Vec::new(),
            cut: Some(CutLimit::Decks(1)),
            cutting_card: Some(CuttingCardLimit {
                min_from_back: 20,
                max_from_back_fraction: None,
            }),
            burn: BurnPolicy::FirstCardValue { ace: 1 },
            end_of_shoe: Some(EndOfShoePolicy::LastCoup),
            shuffle_check: ShuffleCheck::default(),
        }
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
        assert_eq!(burns, nz().burn.count_after(first.rank));
    }

    #[test]
    fn every_injected_fault_points_at_an_event_of_the_stream() {
        // A shoe has one burn, so each burn fault goes in a shoe of its own.
        let mut burn_shoe = 0;
        let plans: Vec<FaultPlan> = FaultKind::ALL
            .iter()
            .map(|&kind| {
                let burn = kind.name().starts_with("burn_");
                burn_shoe += u32::from(burn);
                FaultPlan {
                    kind,
                    shoe: if burn { burn_shoe } else { 1 },
                    round: 20,
                }
            })
            .collect();
        let config = DealerConfig {
            shoes: 4,
            ..DealerConfig::angel_eye()
        };
        let session = deal(&nz(), &config, &plans, 4);
        let missing: Vec<_> = plans
            .iter()
            .filter(|p| !session.faults.iter().any(|f| f.kind == p.kind))
            .collect();
        assert!(missing.is_empty(), "not injected: {missing:?}");
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
