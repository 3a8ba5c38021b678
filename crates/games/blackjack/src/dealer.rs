//! An honest Blackjack or Pontoon dealer, simulated, with a seeded basic-strategy player on each
//! box and optional fault injection: the events a box-reporting shoe and a dealer console would
//! send, what each hand should win by the dealer's own reckoning, and where each fault went in.
//!
//! It counts hands with its own code (not [`crate::hand`]) so the tests compare two
//! implementations. Deterministic: the same configuration gives the same events. Its random
//! numbers come from a SplitMix64 generator seeded by the caller, so it reads no random source.

use pitwatch_model::{Action, Card, DeckKind, EventKind, Rank, Suit, TableEvent, Target};
use pitwatch_rules::IrregularityCode;

use crate::book::{Book, DealerNaturalTakes, DoubleOn};
use crate::round::HandOutcome;

/// A fault the dealer can make.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// The dealer takes a card on a total the book says stand on.
    DealerDrawsOnStand,
    /// The dealer stops below 17 (under 17, or on a soft 17 the book hits).
    DealerStandsShort,
    /// A card to a box not in play.
    CardToEmptyBox,
    /// The second cards of the first two boxes dealt in the wrong order.
    OutOfOrder,
    /// A round dealt after the cutting card's round, without a shuffle.
    RoundAfterCuttingCard,
    /// A card no deck of the shoe holds (Pontoon: a ten).
    ForeignCard,
    /// A step of preparing the cards before loading them, which the book requires (Pontoon
    /// 6.4), not logged: raised at the shoe's load, outside any round (its `round` is 0).
    ShuffleStepSkipped,
    /// Every hand settled without the dealer (bust, surrendered), a box insured, and the dealer
    /// takes no second card: the insurance is left unsettled. Needs insurance offered and taken
    /// (`Config::insurance_every`).
    InsuranceUnsettled,
    /// After a split (not of aces), the hand split off is dealt its second card before the hand
    /// it was split from. Only a stream that names hands shows it (`Config::name_hands`).
    SplitHandOutOfTurn,
    /// After a split box has played its hands, a further card to its first hand, which had
    /// finished. Only a stream that names hands shows it (`Config::name_hands`).
    CardToFinishedSplitHand,
}

impl Fault {
    /// Every fault.
    pub const ALL: &'static [Fault] = &[
        Fault::DealerDrawsOnStand,
        Fault::DealerStandsShort,
        Fault::CardToEmptyBox,
        Fault::OutOfOrder,
        Fault::RoundAfterCuttingCard,
        Fault::ForeignCard,
        Fault::ShuffleStepSkipped,
        Fault::InsuranceUnsettled,
        Fault::SplitHandOutOfTurn,
        Fault::CardToFinishedSplitHand,
    ];

    /// Its name on the command line.
    pub const fn name(self) -> &'static str {
        match self {
            Fault::DealerDrawsOnStand => "dealer_draws_on_stand",
            Fault::DealerStandsShort => "dealer_stands_short",
            Fault::CardToEmptyBox => "card_to_empty_box",
            Fault::OutOfOrder => "out_of_order",
            Fault::RoundAfterCuttingCard => "round_after_cutting_card",
            Fault::ForeignCard => "foreign_card",
            Fault::ShuffleStepSkipped => "shuffle_step_skipped",
            Fault::InsuranceUnsettled => "insurance_unsettled",
            Fault::SplitHandOutOfTurn => "split_hand_out_of_turn",
            Fault::CardToFinishedSplitHand => "card_to_finished_split_hand",
        }
    }

    /// The code the engine should raise for it.
    pub const fn code(self) -> IrregularityCode {
        match self {
            Fault::DealerDrawsOnStand | Fault::DealerStandsShort | Fault::InsuranceUnsettled => {
                IrregularityCode::DealerDrawWrong
            }
            Fault::CardToEmptyBox | Fault::CardToFinishedSplitHand => {
                IrregularityCode::CardToFinishedHand
            }
            Fault::OutOfOrder | Fault::SplitHandOutOfTurn => IrregularityCode::DealOutOfOrder,
            Fault::RoundAfterCuttingCard | Fault::ShuffleStepSkipped => {
                IrregularityCode::NotShuffled
            }
            Fault::ForeignCard => IrregularityCode::ExcessCard,
        }
    }

    /// Whether the fault can happen under `book` whatever the players choose (a standard shoe
    /// holds every card). An unsettled insurance needs a box that took insurance too: see
    /// [`Fault::can_show`].
    pub fn applies(self, book: &Book) -> bool {
        match self {
            Fault::ForeignCard => book.shoe.composition.kind == DeckKind::Spanish48,
            Fault::ShuffleStepSkipped => !book.shuffle_steps.is_empty(),
            Fault::InsuranceUnsettled
            | Fault::SplitHandOutOfTurn
            | Fault::CardToFinishedSplitHand => false,
            _ => true,
        }
    }

    /// Whether the fault can show in a stream dealt under `book` with `config`.
    pub fn can_show(self, book: &Book, config: &Config) -> bool {
        match self {
            Fault::InsuranceUnsettled => book.insurance && config.insurance_every > 0,
            // A card named for the wrong hand looks, without names, like a card to the hand
            // being played: the stream cannot show it.
            Fault::SplitHandOutOfTurn | Fault::CardToFinishedSplitHand => config.name_hands,
            _ => self.applies(book),
        }
    }
}

impl std::str::FromStr for Fault {
    type Err = String;

    fn from_str(s: &str) -> Result<Fault, String> {
        Fault::ALL
            .iter()
            .copied()
            .find(|f| f.name() == s)
            .ok_or_else(|| {
                let names: Vec<_> = Fault::ALL.iter().map(|f| f.name()).collect();
                format!("unknown fault {s:?} (expected {})", names.join(", "))
            })
    }
}

/// How to deal.
#[derive(Debug, Clone)]
pub struct Config {
    /// The seed of every random choice.
    pub seed: u64,
    /// Shoes to deal.
    pub shoes: u32,
    /// Boxes on the table (1 to 7); each round some of them are in play.
    pub boxes: u8,
    /// Send `decision in_play` for each box before the round.
    pub declare_boxes: bool,
    /// Send `decision stand` when a box stands (otherwise the next card shows it).
    pub report_stands: bool,
    /// Faults to inject, each at a round (counted over the stream from 1): (fault, round).
    pub faults: Vec<(Fault, u32)>,
    /// When the dealer's first card is an ace and the book offers insurance, each box takes it
    /// with a chance of one in this many (0: never). Drawn from a generator of its own, so the
    /// rest of the stream is the same whatever this is, but for the decisions and, where only
    /// insurance is open, the dealer's second card.
    pub insurance_every: u32,
    /// Name the hand within the box on every box's card (`box:N.H`, the open protocol's hand
    /// target), as a device that knows a box's split hands does; otherwise `box:N`. The cards
    /// and decisions are the same either way.
    pub name_hands: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            seed: 1,
            shoes: 1,
            boxes: 7,
            declare_boxes: true,
            report_stands: true,
            faults: Vec::new(),
            insurance_every: 0,
            name_hands: false,
        }
    }
}

/// What one hand should get, by the dealer's reckoning.
#[derive(Debug, Clone, PartialEq)]
pub struct Expected {
    /// The shoe.
    pub shoe: u32,
    /// The round within the shoe.
    pub round: u32,
    /// The box.
    pub box_number: u8,
    /// The hand, from 0.
    pub hand: usize,
    /// Its cards.
    pub cards: Vec<Card>,
    /// The outcome.
    pub outcome: HandOutcome,
    /// What it pays, in units of the original wager.
    pub pays: f64,
}

/// What one box's insurance should pay, by the dealer's reckoning.
#[derive(Debug, Clone, PartialEq)]
pub struct ExpectedInsurance {
    /// The shoe.
    pub shoe: u32,
    /// The round within the shoe.
    pub round: u32,
    /// The box.
    pub box_number: u8,
    /// 2 (to 1) when the dealer's first two cards are a blackjack, else -1.
    pub pays: f64,
}

/// Where a fault went in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Injected {
    /// The fault.
    pub fault: Fault,
    /// Its shoe.
    pub shoe: u32,
    /// Its round within the shoe; 0 for a fault at the shoe's load, outside any round.
    pub round: u32,
}

/// A dealt stream.
#[derive(Debug, Clone, Default)]
pub struct Dealt {
    /// The events, `seq` from 1.
    pub events: Vec<TableEvent>,
    /// Every hand's expected result, for the rounds dealt without a fault.
    pub expected: Vec<Expected>,
    /// Every insurance wager's expected result, for the rounds dealt without a fault.
    pub insurance: Vec<ExpectedInsurance>,
    /// Where each fault went in.
    pub injected: Vec<Injected>,
    /// Rounds dealt.
    pub rounds: u32,
}

/// SplitMix64: small, fast and deterministic.
#[derive(Debug, Clone)]
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `lo..=hi`.
    fn range(&mut self, lo: u32, hi: u32) -> u32 {
        lo + (self.next() % u64::from(hi - lo + 1)) as u32
    }
}

/// The dealer's own count: (total, soft).
fn points(cards: &[Card]) -> (u32, bool) {
    let mut total = 0;
    let mut aces = 0;
    for c in cards {
        total += match c.rank {
            Rank::Ace => {
                aces += 1;
                1
            }
            Rank::Ten | Rank::Jack | Rank::Queen | Rank::King => 10,
            r => u32::from(r.pip()),
        };
    }
    if aces > 0 && total <= 11 {
        (total + 10, true)
    } else {
        (total, false)
    }
}

fn ten_value(c: Card) -> u32 {
    points(&[c]).0
}

#[derive(Debug, Clone)]
struct PHand {
    cards: Vec<Card>,
    doubled: bool,
    split: bool,
    split_aces: bool,
    surrendered: bool,
}

struct Dealer<'a> {
    book: &'a Book,
    config: &'a Config,
    rng: Rng,
    /// The boxes' insurance choices (apart, so the main stream does not depend on them).
    side: Rng,
    out: Dealt,
    shoe: Vec<Card>,
    next: usize,
    cutting_at: usize,
    cutting_out: bool,
    shoe_no: u32,
    round_in_shoe: u32,
    fault_now: Option<Fault>,
    /// A split-hand fault went into the round being dealt.
    split_fault: bool,
}

impl Dealer<'_> {
    fn emit(&mut self, kind: EventKind) {
        let seq = self.out.events.len() as u64 + 1;
        self.out.events.push(TableEvent::new(seq, kind));
    }

    fn draw(&mut self) -> Option<Card> {
        if self.next == self.cutting_at && !self.cutting_out {
            self.cutting_out = true;
            self.emit(EventKind::CuttingCardDrawn);
        }
        let card = self.shoe.get(self.next).copied();
        self.next += 1;
        card
    }

    fn card_to(&mut self, target: Target, index: usize, card: Card) {
        self.emit(EventKind::CardDrawn {
            card: Some(card),
            target: Some(target),
            index: u8::try_from(index).ok(),
            face_up: Some(true),
            retransmit: None,
        });
    }

    /// A card to hand `hand` (from 0) of box `number`, named when the configuration says so.
    fn box_card(&mut self, number: u8, hand: usize, index: usize, card: Card) {
        let target = match u8::try_from(hand + 1) {
            Ok(hand) if self.config.name_hands => Target::Hand { number, hand },
            _ => Target::Box(number),
        };
        self.card_to(target, index, card);
    }

    /// Whether the round's split-hand fault is `fault` and has not gone in yet.
    fn split_fault_due(&self, fault: Fault) -> bool {
        self.fault_now == Some(fault) && !self.split_fault
    }

    fn decide(&mut self, number: u8, hand: usize, action: Action) {
        self.emit(EventKind::Decision {
            target: Target::Box(number),
            hand: u8::try_from(hand + 1).ok(),
            action,
        });
    }

    /// Shuffles and loads a new shoe, after the hand-preparation steps the book requires (one
    /// left out when `skip_step`).
    fn new_shoe(&mut self, skip_step: bool) {
        let steps = &self.book.shuffle_steps;
        let skipped =
            (skip_step && !steps.is_empty()).then(|| (self.shoe_no as usize) % steps.len());
        for (i, &step) in steps.iter().enumerate() {
            if skipped != Some(i) {
                self.emit(EventKind::ShuffleStep { step });
            }
        }
        let composition = self.book.shoe.composition;
        let mut cards = Vec::with_capacity(composition.total_cards() as usize);
        for index in 0..Card::DISTINCT {
            if let Some(card) = Card::from_index(index) {
                for _ in 0..composition.copies_of(card) {
                    cards.push(card);
                }
            }
        }
        for i in (1..cards.len()).rev() {
            let j = (self.rng.next() % (i as u64 + 1)) as usize;
            cards.swap(i, j);
        }
        let total = cards.len() as u32;
        let per_deck = composition.kind.cards_per_deck();
        let half = self
            .book
            .shoe
            .cutting_card
            .and_then(|c| c.max_from_back_fraction);
        let max_back = if half == Some(0.5) {
            total / 2
        } else {
            total / 3
        };
        let from_back = self.rng.range(60.min(max_back), max_back);
        let position = self.rng.range(per_deck, total - per_deck);
        self.shoe = cards;
        self.next = 0;
        self.cutting_at = (total - from_back) as usize;
        self.cutting_out = false;
        self.shoe_no += 1;
        self.round_in_shoe = 0;
        self.emit(EventKind::Shuffled {
            decks: Some(composition.decks),
            cards: Some(total),
            shuffler: None,
        });
        self.emit(EventKind::Cut { position });
        self.emit(EventKind::CuttingCardPlaced { from_back });
    }

    fn may_double(&self, hand: &PHand) -> bool {
        if hand.cards.len() != 2 || hand.split_aces || (hand.split && !self.book.double_after_split)
        {
            return false;
        }
        let ace = hand.cards.iter().any(|c| c.rank == Rank::Ace);
        let (total, _) = points(&hand.cards);
        match self.book.double_on {
            DoubleOn::AnyTwo => true,
            DoubleOn::HardTwo => !ace,
            DoubleOn::NineToEleven => !ace && (9..=11).contains(&total),
            DoubleOn::TenOrEleven => !ace && (10..=11).contains(&total),
        }
    }

    /// Basic strategy, simplified: split aces and eights, double hard 10 and 11 against 2 to 9,
    /// surrender hard 16 against 9, 10 and ace, and hit or stand by the usual table.
    fn play_box(&mut self, number: u8, hands: &mut Vec<PHand>, up: Card) {
        let up = ten_value(up);
        let mut h = 0;
        while h < hands.len() {
            // A split hand takes its second card first.
            if hands[h].cards.len() == 1 {
                let Some(c) = self.draw() else { return };
                let index = hands[h].cards.len() + 1;
                self.box_card(number, h, index, c);
                hands[h].cards.push(c);
                if hands[h].split_aces && self.book.split_aces_one_card {
                    h += 1;
                    continue;
                }
            }
            loop {
                let hand = &hands[h];
                let (total, soft) = points(&hand.cards);
                if total >= 21 {
                    break;
                }
                let two = hand.cards.len() == 2;
                let pair = two && ten_value(hand.cards[0]) == ten_value(hand.cards[1]);
                let aces = pair && hand.cards[0].rank == Rank::Ace;
                let eights = pair && hand.cards[0].rank == Rank::Eight;
                let can_split = pair
                    && hands.len() < usize::from(self.book.max_hands)
                    && (!hand.split_aces || self.book.resplit_aces);
                if (aces || eights) && can_split {
                    self.decide(number, h, Action::Split);
                    let second = hands[h].cards.pop().expect("a pair has two cards");
                    hands[h].split = true;
                    hands[h].split_aces = aces;
                    hands.insert(
                        h + 1,
                        PHand {
                            cards: vec![second],
                            doubled: false,
                            split: true,
                            split_aces: aces,
                            surrendered: false,
                        },
                    );
                    if !aces && self.split_fault_due(Fault::SplitHandOutOfTurn) {
                        // The hand split off takes its second card first, out of turn.
                        self.split_fault = true;
                        let Some(c) = self.draw() else { return };
                        self.box_card(number, h + 1, 2, c);
                        hands[h + 1].cards.push(c);
                    }
                    let Some(c) = self.draw() else { return };
                    self.box_card(number, h, 2, c);
                    hands[h].cards.push(c);
                    if aces && self.book.split_aces_one_card {
                        break;
                    }
                    continue;
                }
                if self.book.surrender
                    && two
                    && hands.len() == 1
                    && !soft
                    && total == 16
                    && (up == 9 || up == 10 || up == 11)
                {
                    self.decide(number, h, Action::Surrender);
                    hands[h].surrendered = true;
                    break;
                }
                if !soft
                    && (total == 10 || total == 11)
                    && (2..=9).contains(&up)
                    && self.may_double(&hands[h])
                {
                    self.decide(number, h, Action::Double);
                    hands[h].doubled = true;
                    let Some(c) = self.draw() else { return };
                    self.box_card(number, h, 3, c);
                    hands[h].cards.push(c);
                    break;
                }
                let hit = if soft {
                    total <= 17
                } else if total >= 17 {
                    false
                } else if total >= 13 {
                    !(2..=6).contains(&up)
                } else if total == 12 {
                    !(4..=6).contains(&up)
                } else {
                    true
                };
                if !hit {
                    if self.config.report_stands {
                        self.decide(number, h, Action::Stand);
                    }
                    break;
                }
                let Some(c) = self.draw() else { return };
                let index = hands[h].cards.len() + 1;
                self.box_card(number, h, index, c);
                hands[h].cards.push(c);
            }
            h += 1;
        }
        if hands.len() > 1 && self.split_fault_due(Fault::CardToFinishedSplitHand) {
            // A further card to the box's first hand, which had finished: no hand takes it.
            self.split_fault = true;
            let Some(c) = self.draw() else { return };
            self.box_card(number, 0, hands[0].cards.len() + 1, c);
        }
    }

    fn settled(&self, hand: &PHand) -> bool {
        let (total, _) = points(&hand.cards);
        hand.surrendered || total > 21 || (self.book.player_21_wins_at_once && total == 21)
    }

    fn expected(&self, hand: &PHand, index: usize, dealer: &[Card]) -> (HandOutcome, f64) {
        let stake = if hand.doubled { 2.0 } else { 1.0 };
        let (total, _) = points(&hand.cards);
        let natural =
            hand.cards.len() == 2 && total == 21 && (!hand.split || self.book.split_21_is_natural);
        let (dealer_total, _) = points(dealer);
        let dealer_natural = dealer.len() == 2 && dealer_total == 21;
        let natural_pays = self.book.natural_pays.ratio();
        if hand.surrendered {
            return (HandOutcome::Surrender, -0.5);
        }
        if total > 21 {
            return (HandOutcome::Lose, -stake);
        }
        if self.book.player_21_wins_at_once && total == 21 {
            if natural {
                return (HandOutcome::Blackjack, natural_pays);
            }
            let bonus = self
                .book
                .bonus
                .as_ref()
                .filter(|b| !(b.not_after_double && hand.doubled));
            let pays = match bonus {
                None => stake,
                Some(b) => {
                    let mut ranks: Vec<u8> = hand.cards.iter().map(|c| c.rank.pip()).collect();
                    ranks.sort_unstable();
                    let one_suit = hand.cards.iter().all(|c| c.suit == hand.cards[0].suit);
                    let spades = hand.cards.iter().all(|c| c.suit == Suit::Spades);
                    let pick = |mixed: crate::Odds, suited: crate::Odds, sp: crate::Odds| {
                        if spades {
                            sp.ratio()
                        } else if one_suit {
                            suited.ratio()
                        } else {
                            mixed.ratio()
                        }
                    };
                    if ranks == [6, 7, 8] {
                        pick(
                            b.six_seven_eight_mixed,
                            b.six_seven_eight_suited,
                            b.six_seven_eight_spades,
                        )
                    } else if ranks == [7, 7, 7] {
                        pick(
                            b.seven_seven_seven_mixed,
                            b.seven_seven_seven_suited,
                            b.seven_seven_seven_spades,
                        )
                    } else if hand.cards.len() >= 7 {
                        b.seven_card_21.ratio()
                    } else if hand.cards.len() == 6 {
                        b.six_card_21.ratio()
                    } else if hand.cards.len() == 5 {
                        b.five_card_21.ratio()
                    } else {
                        stake
                    }
                }
            };
            return (HandOutcome::Win, pays);
        }
        if natural {
            return if dealer_natural {
                (HandOutcome::Push, 0.0)
            } else {
                (HandOutcome::Blackjack, natural_pays)
            };
        }
        if dealer_natural {
            let lost = match self.book.dealer_natural_takes {
                DealerNaturalTakes::AllStakes => stake,
                DealerNaturalTakes::OriginalOnly => {
                    if index == 0 {
                        1.0
                    } else {
                        0.0
                    }
                }
            };
            return (HandOutcome::Lose, -lost);
        }
        if dealer_total > 21 || total > dealer_total {
            (HandOutcome::Win, stake)
        } else if total == dealer_total {
            (HandOutcome::Push, 0.0)
        } else {
            (HandOutcome::Lose, -stake)
        }
    }

    fn dealer_stands(&self, cards: &[Card]) -> bool {
        let (total, soft) = points(cards);
        total > 17 || (total == 17 && !(soft && self.book.dealer_hits_soft17))
    }

    /// Deals one round; `None` when the shoe ran out.
    fn round(&mut self) -> Option<()> {
        self.round_in_shoe += 1;
        let fault = self.fault_now;
        let mut manifested = matches!(
            fault,
            Some(
                Fault::DealerDrawsOnStand
                    | Fault::CardToEmptyBox
                    | Fault::RoundAfterCuttingCard
                    | Fault::ForeignCard
            )
        );
        self.emit(EventKind::BetsClosed);
        let mut boxes: Vec<u8> = (1..=self.config.boxes)
            .filter(|_| self.rng.next() % 3 != 0)
            .collect();
        if boxes.is_empty() {
            boxes.push(1 + (self.rng.next() % u64::from(self.config.boxes)) as u8);
        }
        if self.config.declare_boxes {
            for &b in &boxes {
                self.emit(EventKind::Decision {
                    target: Target::Box(b),
                    hand: None,
                    action: Action::InPlay,
                });
            }
        }
        let mut hands: Vec<Vec<PHand>> = boxes
            .iter()
            .map(|_| {
                vec![PHand {
                    cards: Vec::new(),
                    doubled: false,
                    split: false,
                    split_aces: false,
                    surrendered: false,
                }]
            })
            .collect();
        self.split_fault = false;
        for (i, &b) in boxes.iter().enumerate() {
            let mut c = self.draw()?;
            if fault == Some(Fault::ForeignCard) && i == 0 {
                c = Card::new(Rank::Ten, Suit::Spades);
            }
            self.box_card(b, 0, 1, c);
            hands[i][0].cards.push(c);
        }
        let up = self.draw()?;
        self.card_to(Target::Dealer, 1, up);
        let mut order: Vec<usize> = (0..boxes.len()).collect();
        if fault == Some(Fault::OutOfOrder) && boxes.len() >= 2 {
            order.swap(0, 1);
            manifested = true;
        }
        // Each card is reported as it leaves the shoe, so it is drawn when it is dealt: the
        // cutting card, coming out between two of them, is reported between them too.
        for i in order {
            let c = self.draw()?;
            self.box_card(boxes[i], 0, 2, c);
            hands[i][0].cards.push(c);
        }
        // Insurance is offered on the dealer's ace, before the boxes play.
        let mut insured = Vec::new();
        if self.book.insurance && self.config.insurance_every > 0 && up.rank == Rank::Ace {
            for &b in &boxes {
                if self.side.next() % u64::from(self.config.insurance_every) == 0 {
                    self.decide(b, 0, Action::Insurance);
                    insured.push(b);
                }
            }
        }
        for (i, &b) in boxes.iter().enumerate() {
            let mut box_hands = std::mem::take(&mut hands[i]);
            self.play_box(b, &mut box_hands, up);
            hands[i] = box_hands;
        }
        if fault == Some(Fault::CardToEmptyBox) {
            let c = self.draw()?;
            self.box_card(9, 0, 1, c);
        }
        let mut dealer = vec![up];
        let all_settled = hands.iter().flatten().all(|h| self.settled(h));
        if all_settled && !self.book.dealer_plays_when_all_settled && !insured.is_empty() {
            // Only insurance is open: the second card settles it, and the dealer takes no more.
            if fault == Some(Fault::InsuranceUnsettled) {
                manifested = true;
            } else {
                let c = self.draw()?;
                self.card_to(Target::Dealer, 2, c);
                dealer.push(c);
            }
        } else if !all_settled || self.book.dealer_plays_when_all_settled {
            loop {
                let c = self.draw()?;
                self.card_to(Target::Dealer, dealer.len() + 1, c);
                dealer.push(c);
                if self.dealer_stands(&dealer) {
                    break;
                }
                if fault == Some(Fault::DealerStandsShort) && dealer.len() >= 2 {
                    manifested = true;
                    break;
                }
            }
        }
        if fault == Some(Fault::DealerDrawsOnStand) {
            let c = self.draw()?;
            self.card_to(Target::Dealer, dealer.len() + 1, c);
            dealer.push(c);
        }
        manifested |= self.split_fault;
        if let Some(fault) = fault.filter(|_| manifested) {
            self.out.injected.push(Injected {
                fault,
                shoe: self.shoe_no,
                round: self.round_in_shoe,
            });
        } else {
            for (i, &b) in boxes.iter().enumerate() {
                for (h, hand) in hands[i].iter().enumerate() {
                    let (outcome, pays) = self.expected(hand, h, &dealer);
                    self.out.expected.push(Expected {
                        shoe: self.shoe_no,
                        round: self.round_in_shoe,
                        box_number: b,
                        hand: h,
                        cards: hand.cards.clone(),
                        outcome,
                        pays,
                    });
                }
            }
            let blackjack = dealer.len() == 2 && points(&dealer).0 == 21;
            for &b in &insured {
                self.out.insurance.push(ExpectedInsurance {
                    shoe: self.shoe_no,
                    round: self.round_in_shoe,
                    box_number: b,
                    pays: if blackjack { 2.0 } else { -1.0 },
                });
            }
        }
        Some(())
    }
}

/// Deals `config.shoes` shoes of honest rounds under `book`, with the configured faults: each
/// goes into the first round from its own on where it can show (a dealer who stands short needs a
/// dealer who must draw; a round after the cutting card needs the cutting card).
pub fn deal(book: &Book, config: &Config) -> Dealt {
    let mut dealer = Dealer {
        book,
        config,
        rng: Rng(config.seed),
        side: Rng(config.seed ^ 0x1A5E_5EED_0000_0001),
        out: Dealt::default(),
        shoe: Vec::new(),
        next: 0,
        cutting_at: 0,
        cutting_out: false,
        shoe_no: 0,
        round_in_shoe: 0,
        fault_now: None,
        split_fault: false,
    };
    let pending = |dealer: &Dealer<'_>, round: u32, after_cut: bool| {
        config.faults.iter().find_map(|&(f, at)| {
            let done = dealer.out.injected.iter().any(|i| i.fault == f);
            // A skipped step goes into a shoe's load, not a round (below).
            let due =
                !done && at <= round && f.can_show(book, config) && f != Fault::ShuffleStepSkipped;
            (due && (f == Fault::RoundAfterCuttingCard) == after_cut).then_some(f)
        })
    };
    let mut round = 0u32;
    for shoe in 0..config.shoes {
        // A skipped step goes into the load before its round, or the last load when its round
        // comes after that (the load is the only place it can show).
        let last = shoe + 1 == config.shoes;
        let skip = config.faults.iter().any(|&(f, at)| {
            f == Fault::ShuffleStepSkipped
                && f.applies(book)
                && (at <= round + 1 || last)
                && !dealer.out.injected.iter().any(|i| i.fault == f)
        });
        dealer.new_shoe(skip);
        if skip {
            dealer.out.injected.push(Injected {
                fault: Fault::ShuffleStepSkipped,
                shoe: dealer.shoe_no,
                round: 0,
            });
        }
        let mut extra = false;
        loop {
            if dealer.cutting_out || dealer.next >= dealer.cutting_at {
                // 7.1(b), (c): the cutting card's round was the last; shuffle now, unless the
                // fault is a round dealt after it.
                if !dealer.cutting_out {
                    dealer.cutting_out = true;
                    dealer.emit(EventKind::CuttingCardDrawn);
                }
                if extra || pending(&dealer, round + 1, true).is_none() {
                    break;
                }
                extra = true;
                dealer.fault_now = Some(Fault::RoundAfterCuttingCard);
            } else {
                dealer.fault_now = pending(&dealer, round + 1, false);
            }
            round += 1;
            if dealer.round().is_none() {
                break;
            }
        }
    }
    dealer.out.rounds = round;
    dealer.out
}
