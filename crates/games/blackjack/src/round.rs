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

use pitwatch_model::{Action, Card, EventKind, Rank, TableEvent, Target};
use pitwatch_rules::{Findings, IrregularityCode as Code, RoundGame};
use serde::{Deserialize, Serialize};

use crate::book::{Book, DealerNaturalTakes, DoubleOn, HoleCard, Variant};
use crate::hand::{Cards, Suits, Triple};

mod joined;

use joined::Joined;

/// Most hands a box can hold after splitting (books allow 1 to 4).
const MAX_HANDS: usize = 4;

/// How a hand's play ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
enum End {
    Open,
    Stood,
    Bust,
    TwentyOne,
    Doubled,
    SplitAce,
    Surrendered,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct HandState {
    cards: Cards,
    doubled: bool,
    /// Doubled, awaiting its one card.
    double_pending: bool,
    from_split: bool,
    split_ace: bool,
    end: End,
}

impl HandState {
    const EMPTY: HandState = HandState {
        cards: Cards::new(),
        doubled: false,
        double_pending: false,
        from_split: false,
        split_ace: false,
        end: End::Open,
    };

    fn open(&self) -> bool {
        self.end == End::Open
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct BoxState {
    number: u8,
    hands: [HandState; MAX_HANDS],
    n_hands: u8,
    /// The first three cards dealt to the box, in deal order (Super Sevens).
    dealt: [Option<Card>; 3],
    dealt_len: u8,
    insurance: bool,
    declared: bool,
}

impl BoxState {
    fn new(number: u8) -> BoxState {
        BoxState {
            number,
            hands: [HandState::EMPTY; MAX_HANDS],
            n_hands: 1,
            dealt: [None; 3],
            dealt_len: 0,
            insurance: false,
            declared: false,
        }
    }

    fn hands(&self) -> &[HandState] {
        &self.hands[..usize::from(self.n_hands)]
    }

    fn cards(&self) -> usize {
        self.hands().iter().map(|h| h.cards.len()).sum()
    }

    fn first_open(&self) -> Option<usize> {
        self.hands().iter().position(HandState::open)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// The initial deal.
    Initial,
    /// The boxes play their hands.
    Play,
    /// The dealer draws.
    Dealer,
}

/// A hand's outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HandOutcome {
    /// A blackjack (Pontoon) paid at the natural's odds (5.1(c), 5.4).
    Blackjack,
    /// Won (5.1(a), (b); a Pontoon 21 paid at once).
    Win,
    /// Lost (5.1(d), (f), (g)).
    Lose,
    /// A stand off (5.1(e)).
    Push,
    /// Surrendered: half the wager lost.
    Surrender,
}

/// Up to `N` values inline (no allocation), serialised as a JSON array of those present; derefs
/// to a slice.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Inline<T: Copy + Default, const N: usize> {
    items: [T; N],
    len: u8,
}

impl<T: Copy + Default, const N: usize> Default for Inline<T, N> {
    fn default() -> Self {
        Inline {
            items: [T::default(); N],
            len: 0,
        }
    }
}

impl<T: Copy + Default, const N: usize> Inline<T, N> {
    /// Adds a value; beyond `N` it is dropped (callers never hold more).
    pub fn push(&mut self, value: T) {
        if usize::from(self.len) < N {
            self.items[usize::from(self.len)] = value;
            self.len += 1;
        }
    }
}

impl<T: Copy + Default, const N: usize> std::ops::Deref for Inline<T, N> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        &self.items[..usize::from(self.len)]
    }
}

impl<'a, T: Copy + Default, const N: usize> IntoIterator for &'a Inline<T, N> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<T: Copy + Default + Serialize, const N: usize> Serialize for Inline<T, N> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

/// One hand of a box as the round ended.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct HandRecord {
    /// The cards in deal order (`null` for an unreadable card).
    pub cards: Cards,
    /// The total, `None` if a card was unreadable.
    pub total: Option<u8>,
    /// Whether an ace counts 11.
    pub soft: bool,
    /// Whether the hand doubled.
    pub doubled: bool,
    /// Whether the hand came from a split.
    pub split: bool,
    /// The outcome, `None` when the cards cannot settle it (unreadable, or the round cut off).
    pub outcome: Option<HandOutcome>,
    /// What the hand won (positive) or lost (negative), in units of the box's original wager;
    /// `None` with the outcome.
    pub pays: Option<f64>,
    /// The rule that settles it (`5.1(b)`, or the bonus paid).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<&'static str>,
}

/// A side bet of a box, as the cards settle it if it was placed (the stream does not say which
/// boxes bet).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct SideBet {
    /// `super_sevens` or `insurance`.
    pub bet: &'static str,
    /// Super Sevens: how many of the box's first cards are sevens in a row from the first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sevens: Option<u8>,
    /// Super Sevens: whether those sevens are of one suit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suited: Option<bool>,
    /// What it won or lost per unit staked on it; `None` if unknown.
    pub pays: Option<f64>,
}

/// One box in a round.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BoxRecord {
    /// The box number.
    #[serde(rename = "box")]
    pub number: u8,
    /// Its hands (more than one after a split).
    pub hands: Inline<HandRecord, MAX_HANDS>,
    /// Its side bets as the cards settle them.
    pub side_bets: Inline<SideBet, 2>,
}

/// One round as the engine followed it; `pitwatch replay --json` prints it with `type: "round"`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RoundRecord {
    /// `blackjack` or `pontoon`.
    pub game: &'static str,
    /// The shoe, 1-based.
    pub shoe: u32,
    /// The round, 1-based within the shoe.
    pub round: u32,
    /// The dealer's cards.
    pub dealer: Cards,
    /// The dealer's total, `None` if unknown.
    pub dealer_total: Option<u8>,
    /// Whether the dealer's two cards are a blackjack (Pontoon).
    pub dealer_blackjack: bool,
    /// The boxes in play.
    pub boxes: Vec<BoxRecord>,
    /// `seq` of the round's first event.
    pub first_seq: u64,
    /// `seq` of its last card.
    pub last_seq: u64,
    /// Whether every hand and the dealer finished by the rules.
    pub complete: bool,
}

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

    /// Whether the round looks over: the dealer drawing or done, or every wager settled.
    fn over(&self) -> bool {
        self.joined.is_none() && (self.stage == Stage::Dealer || self.is_complete())
    }

    fn dealer_must_draw(&self) -> Option<bool> {
        let total = self.dealer.total()?;
        Some(total.value < 17 || (total.value == 17 && total.soft && self.book.dealer_hits_soft17))
    }

    fn dealer_done(&self) -> bool {
        let min = match self.book.hole_card {
            HoleCard::None | HoleCard::American => 2,
        };
        self.dealer.len() >= min && self.dealer_must_draw() == Some(false)
    }

    /// Whether a hand is settled without the dealer: bust, surrendered, or (Pontoon) a 21 paid
    /// at once.
    fn settled(&self, hand: &HandState) -> bool {
        match hand.end {
            End::Bust | End::Surrendered => true,
            _ => {
                self.book.player_21_wins_at_once
                    && hand.cards.total().is_some_and(|t| t.value == 21)
            }
        }
    }

    fn all_settled(&self) -> bool {
        self.boxes
            .iter()
            .filter(|b| Self::in_play(b))
            .all(|b| b.hands().iter().all(|h| self.settled(h)))
    }

    /// What the dealer's hand still owes the round's wagers. A hand that needs the dealer keeps
    /// them playing to the book's total; when every hand is settled without the dealer but a box
    /// took insurance, the dealer's second card alone settles it (no hole card: it is the card
    /// that shows a dealer blackjack), so the dealer takes that one card and no more.
    fn dealer_owes(&self) -> Owes {
        if !self.all_settled() || self.book.dealer_plays_when_all_settled {
            Owes::Play
        } else if self.dealer.len() < 2 && self.any_insured() {
            Owes::SecondCard
        } else {
            Owes::Nothing
        }
    }

    fn any_insured(&self) -> bool {
        self.boxes.iter().any(|b| Self::in_play(b) && b.insurance)
    }

    /// The boxes in play that took insurance, in order.
    fn insured(&self) -> Vec<u8> {
        self.boxes
            .iter()
            .filter(|b| Self::in_play(b) && b.insurance)
            .map(|b| b.number)
            .collect()
    }

    fn all_finished(&self) -> bool {
        self.boxes
            .iter()
            .filter(|b| Self::in_play(b))
            .all(|b| b.hands().iter().all(|h| !h.open()))
    }

    fn initial_done(&self) -> bool {
        let boxes_done = self
            .boxes
            .iter()
            .filter(|b| Self::in_play(b))
            .all(|b| b.cards() >= 2);
        let dealer = match self.book.hole_card {
            HoleCard::None => 1,
            HoleCard::American => 2,
        };
        boxes_done && self.dealer.len() >= dealer && self.boxes.iter().any(Self::in_play)
    }

    fn out_of_order(&mut self, seq: u64, message: String, found: &mut Findings) {
        if !self.order_flagged {
            self.order_flagged = true;
            found.flag(Code::DealOutOfOrder, seq, vec![seq], message);
        }
    }

    fn finished_hand(&self, seq: u64, message: String, found: &mut Findings) {
        found.flag(Code::CardToFinishedHand, seq, vec![seq], message);
    }

    /// The hands before box `upto` (index) and hand `hand` stand, having had a card go past them.
    fn stand_before(&mut self, upto: usize, hand: usize, seq: u64, found: &mut Findings) {
        // Play goes forward: every hand before the last one passed to is finished, so the walk
        // starts there (during the initial deal, boxes are still being added: from the start).
        let (start_box, start_hand) = if self.stage == Stage::Initial {
            (0, 0)
        } else {
            let start = self.passed;
            self.passed = start.max((upto.min(self.boxes.len()), hand));
            start
        };
        for bi in start_box..self.boxes.len() {
            let number = self.boxes[bi].number;
            let n = usize::from(self.boxes[bi].n_hands);
            let first = if bi == start_box { start_hand } else { 0 };
            for hi in first..n {
                if bi > upto || (bi == upto && hi >= hand) {
                    return;
                }
                let h = &mut self.boxes[bi].hands[hi];
                if !h.open() || h.cards.is_empty() {
                    continue;
                }
                h.end = End::Stood;
                let (len, pending) = (h.cards.len(), h.double_pending);
                if len < 2 || pending {
                    found.flag(
                        Code::WrongCardCount,
                        seq,
                        vec![seq],
                        if pending {
                            format!("Box {number} hand {} doubled but was passed without its one card.", hi + 1)
                        } else {
                            format!("Box {number} hand {} was passed with {len} card(s): every hand takes at least two.", hi + 1)
                        },
                    );
                }
            }
        }
    }

    fn place(&mut self, bi: usize, hi: usize, card: Option<Card>) {
        let b = &mut self.boxes[bi];
        if usize::from(b.dealt_len) < 3 {
            b.dealt[usize::from(b.dealt_len)] = card;
            b.dealt_len += 1;
        }
        let one_card_aces = self.book.split_aces_one_card;
        let h = &mut b.hands[hi];
        h.cards.push(card);
        let total = h.cards.total();
        if total.is_some_and(|t| t.value > 21) {
            h.end = End::Bust;
        } else if h.double_pending {
            h.double_pending = false;
            h.end = End::Doubled;
        } else if h.split_ace && one_card_aces && h.cards.len() >= 2 {
            h.end = End::SplitAce;
        } else if total.is_some_and(|t| t.value == 21) {
            h.end = End::TwentyOne;
        }
    }

    fn on_box_card(
        &mut self,
        seq: u64,
        number: u8,
        hand: Option<u8>,
        index: Option<u8>,
        card: Option<Card>,
        found: &mut Findings,
    ) {
        match self.stage {
            Stage::Initial if hand.is_some_and(|h| h != 1) => {
                self.no_such_hand(seq, number, hand.unwrap_or(0), 1, found);
            }
            Stage::Initial => self.initial_box_card(seq, number, index, card, found),
            Stage::Play => self.play_box_card(seq, number, hand, index, card, found),
            Stage::Dealer => {
                self.finished_hand(
                    seq,
                    format!("A card went to box {number} after the dealer began drawing: every box had finished."),
                    found,
                );
            }
        }
    }

    fn initial_box_card(
        &mut self,
        seq: u64,
        number: u8,
        index: Option<u8>,
        card: Option<Card>,
        found: &mut Findings,
    ) {
        let known = self.box_index(number);
        let has = known.map_or(0, |i| self.boxes[i].cards());
        if self.declared_any && !known.is_some_and(|i| self.boxes[i].declared) {
            self.finished_hand(
                seq,
                format!("A card went to box {number}, which is not in play this round."),
                found,
            );
            return;
        }
        if !self.declared_any && !self.dealer.is_empty() && has == 0 {
            self.finished_hand(
                seq,
                format!("A card went to box {number}, which had no first card: it is not in play this round."),
                found,
            );
            return;
        }
        let position = has + 1;
        if index.is_some_and(|i| usize::from(i) != position) {
            self.out_of_order(
                seq,
                format!(
                    "Box {number} was dealt card {} where card {position} was due.",
                    index.unwrap_or(0)
                ),
                found,
            );
        }
        let expected = if self.dealer.is_empty() {
            if self.declared_any {
                self.boxes
                    .iter()
                    .find(|b| b.declared && b.cards() == 0)
                    .map(|b| b.number)
                    == Some(number)
            } else {
                has == 0
                    && self
                        .boxes
                        .iter()
                        .filter(|b| Self::in_play(b))
                        .all(|b| b.number < number)
            }
        } else {
            self.boxes
                .iter()
                .find(|b| Self::in_play(b) && b.cards() == 1)
                .map(|b| b.number)
                == Some(number)
        };
        if !expected {
            self.out_of_order(
                seq,
                format!("Box {number} was dealt its card {position} out of turn: one card to each box in play in turn, then the dealer, then the second card to each box."),
                found,
            );
        }
        let bi = self.box_entry(number);
        self.place(bi, 0, card);
        self.after_initial_card();
    }

    fn after_initial_card(&mut self) {
        if self.initial_done() {
            self.stage = Stage::Play;
            // With a hole card, a dealer blackjack is known now: no box plays (5.1(d), (e)).
            if self.book.hole_card == HoleCard::American && self.dealer.is_natural() {
                for b in &mut self.boxes {
                    let n = usize::from(b.n_hands);
                    for h in &mut b.hands[..n] {
                        if h.open() {
                            h.end = End::Stood;
                        }
                    }
                }
                self.stage = Stage::Dealer;
            }
        }
    }

    /// A card that names a hand the box does not have: placed in no hand.
    fn no_such_hand(&self, seq: u64, number: u8, hand: u8, hands: u8, found: &mut Findings) {
        found.flag(
            Code::DealOutOfOrder,
            seq,
            vec![seq],
            format!("A card went to box {number} hand {hand}, which the box does not have (it has {hands} hand(s)): the card is placed in no hand."),
        );
    }

    fn play_box_card(
        &mut self,
        seq: u64,
        number: u8,
        hand: Option<u8>,
        index: Option<u8>,
        card: Option<Card>,
        found: &mut Findings,
    ) {
        let Some(bi) = self
            .box_index(number)
            .filter(|&i| Self::in_play(&self.boxes[i]))
        else {
            self.finished_hand(
                seq,
                format!("A card went to box {number}, which is not in play this round."),
                found,
            );
            return;
        };
        if let Some(hand) = hand {
            self.named_hand_card(seq, bi, hand, index, card, found);
            return;
        }
        // After a split, a card the device reports as a hand's second card while the hand being
        // played holds two is the next hand's: the hand before it stood unreported.
        let by_index = index.and_then(|i| {
            let b = &self.boxes[bi];
            let first = b.first_open()?;
            (first..usize::from(b.n_hands))
                .find(|&h| b.hands[h].open() && b.hands[h].cards.len() + 1 == usize::from(i))
        });
        let Some(hi) = by_index.or_else(|| self.boxes[bi].first_open()) else {
            let why = why_finished(self.boxes[bi].hands().last().map(|h| h.end));
            self.finished_hand(
                seq,
                format!("A card went to box {number}, whose hand had finished ({why})."),
                found,
            );
            return;
        };
        self.stand_before(bi, hi, seq, found);
        let position = self.boxes[bi].hands[hi].cards.len() + 1;
        if index.is_some_and(|i| usize::from(i) != position) {
            self.out_of_order(
                seq,
                format!(
                    "Box {number} was dealt card {} where card {position} was due.",
                    index.unwrap_or(0)
                ),
                found,
            );
        }
        self.place(bi, hi, card);
    }

    /// A card the device says went to hand `hand` (from 1) of the box at `bi`: believed, and
    /// checked against the order of play (each hand of a box in turn, so a hand before it that
    /// still lacks a card it must have makes the card out of order; one before it that could
    /// have stood did, as for a card to a later box).
    fn named_hand_card(
        &mut self,
        seq: u64,
        bi: usize,
        hand: u8,
        index: Option<u8>,
        card: Option<Card>,
        found: &mut Findings,
    ) {
        let b = &self.boxes[bi];
        let number = b.number;
        if hand == 0 || hand > b.n_hands {
            let hands = b.n_hands;
            self.no_such_hand(seq, number, hand, hands, found);
            return;
        }
        let hi = usize::from(hand) - 1;
        if !b.hands[hi].open() {
            let why = why_finished(Some(b.hands[hi].end));
            self.finished_hand(
                seq,
                format!(
                    "A card went to box {number} hand {hand}, whose hand had finished ({why})."
                ),
                found,
            );
            return;
        }
        let waiting = (0..hi).find(|&j| {
            let h = &b.hands[j];
            h.open() && (h.cards.len() < 2 || h.double_pending)
        });
        if let Some(j) = waiting {
            // The earlier hand stays open for the card it must still have.
            self.stand_before(bi, 0, seq, found);
            self.out_of_order(
                seq,
                format!("Box {number} hand {hand} was dealt a card while hand {} was still open: each hand of a box is played in turn.", j + 1),
                found,
            );
        } else {
            self.stand_before(bi, hi, seq, found);
        }
        let position = self.boxes[bi].hands[hi].cards.len() + 1;
        if index.is_some_and(|i| usize::from(i) != position) {
            self.out_of_order(
                seq,
                format!(
                    "Box {number} hand {hand} was dealt card {} where card {position} was due.",
                    index.unwrap_or(0)
                ),
                found,
            );
        }
        self.place(bi, hi, card);
    }

    fn on_dealer_card(
        &mut self,
        seq: u64,
        index: Option<u8>,
        card: Option<Card>,
        found: &mut Findings,
    ) {
        let position = self.dealer.len() + 1;
        if index.is_some_and(|i| usize::from(i) != position) {
            self.out_of_order(
                seq,
                format!(
                    "The dealer was dealt card {} where card {position} was due.",
                    index.unwrap_or(0)
                ),
                found,
            );
        }
        match self.stage {
            Stage::Initial => {
                let expected = if self.dealer.is_empty() {
                    self.boxes.iter().any(Self::in_play)
                        && (!self.declared_any
                            || self
                                .boxes
                                .iter()
                                .filter(|b| b.declared)
                                .all(|b| b.cards() >= 1))
                } else {
                    self.book.hole_card == HoleCard::American
                        && self
                            .boxes
                            .iter()
                            .filter(|b| Self::in_play(b))
                            .all(|b| b.cards() >= 2)
                };
                if !expected {
                    self.out_of_order(
                        seq,
                        format!("The dealer was dealt card {position} out of turn: one card to each box in play, then the dealer."),
                        found,
                    );
                }
                self.dealer.push(card);
                self.after_initial_card();
            }
            Stage::Play | Stage::Dealer => {
                if self.stage == Stage::Play {
                    self.stand_before(self.boxes.len(), 0, seq, found);
                    self.stage = Stage::Dealer;
                }
                if !self.dealer_flagged {
                    let wrong = match self.dealer_owes() {
                        Owes::Nothing if !self.any_insured() => Some(
                            "when every box was already settled, so the dealer takes no further card"
                                .to_owned(),
                        ),
                        Owes::Nothing => Some(
                            "when every box was already settled and the second card had settled the insurance, so the dealer takes no further card"
                                .to_owned(),
                        ),
                        Owes::SecondCard => None,
                        Owes::Play => match (self.dealer_must_draw(), self.dealer.total()) {
                            (Some(false), Some(t)) => Some(format!(
                                "on {}{}, where the book says stand",
                                if t.soft { "soft " } else { "" },
                                t.value
                            )),
                            _ => None,
                        },
                    };
                    if let Some(why) = wrong {
                        self.dealer_flagged = true;
                        found.flag(
                            Code::DealerDrawWrong,
                            seq,
                            vec![seq],
                            format!("The dealer took a card {why}."),
                        );
                    }
                }
                self.dealer.push(card);
            }
        }
    }

    fn on_decision(
        &mut self,
        seq: u64,
        number: u8,
        hand: Option<u8>,
        action: Action,
        found: &mut Findings,
    ) {
        if action == Action::InPlay {
            if self.any_card {
                found.flag_cited(
                    Code::DecisionNotAllowed,
                    "DECISION_NOT_ALLOWED/after_first_card",
                    seq,
                    vec![seq],
                    format!("Box {number} was put in play after the round's first card was dealt."),
                );
            } else {
                let bi = self.box_entry(number);
                self.boxes[bi].declared = true;
                self.declared_any = true;
            }
            return;
        }
        let not_allowed = |found: &mut Findings, why: String| {
            found.flag(Code::DecisionNotAllowed, seq, vec![seq], why);
        };
        let Some(bi) = self
            .box_index(number)
            .filter(|&i| Self::in_play(&self.boxes[i]))
        else {
            not_allowed(
                found,
                format!("A decision ({action}) for box {number}, which is not in play this round."),
            );
            return;
        };
        if action == Action::Insurance {
            let ace_up = self
                .dealer
                .as_slice()
                .first()
                .copied()
                .flatten()
                .is_some_and(|c| c.rank == Rank::Ace);
            if !self.book.insurance || !ace_up || self.dealer.len() != 1 {
                not_allowed(found, format!("Box {number} took insurance, which the book offers only when the dealer's first card is an ace{}.", if self.book.insurance { "" } else { " (and this book offers none)" }));
            }
            self.boxes[bi].insurance = true;
            return;
        }
        let hi = match hand {
            Some(h) if usize::from(h) >= 1 && h <= self.boxes[bi].n_hands => usize::from(h) - 1,
            Some(h) => {
                not_allowed(found, format!("A decision ({action}) for box {number} hand {h}, which the box does not have."));
                return;
            }
            None => {
                match self.boxes[bi].first_open() {
                    Some(h) => h,
                    None => {
                        if action != Action::Stand {
                            not_allowed(found, format!("A decision ({action}) for box {number}, whose hands had finished."));
                        }
                        return;
                    }
                }
            }
        };
        if self.stage != Stage::Dealer && action != Action::Stand {
            // A decision on a later hand means the hands before it stood.
            self.stand_before(bi, hi, seq, found);
        }
        let book = &self.book;
        let h = self.boxes[bi].hands[hi];
        let n_hands = self.boxes[bi].n_hands;
        let two_cards = h.cards.len() == 2 && h.open();
        match action {
            Action::InPlay | Action::Insurance => {}
            Action::Stand => {
                if h.open() {
                    self.boxes[bi].hands[hi].end = End::Stood;
                }
            }
            Action::Double => {
                let hard = h
                    .cards
                    .total()
                    .filter(|t| !t.soft && !h.cards.has_ace())
                    .map(|t| t.value);
                let total_ok = match book.double_on {
                    DoubleOn::AnyTwo => true,
                    DoubleOn::HardTwo => !h.cards.has_ace(),
                    DoubleOn::NineToEleven => matches!(hard, Some(9..=11)),
                    DoubleOn::TenOrEleven => matches!(hard, Some(10 | 11)),
                };
                let why = if !two_cards || self.stage != Stage::Play {
                    Some("only an open hand of two cards may double".to_owned())
                } else if h.split_ace {
                    Some("a split ace may not double".to_owned())
                } else if h.from_split && !book.double_after_split {
                    Some("the book allows no double after a split".to_owned())
                } else if !total_ok {
                    Some(format!(
                        "the book allows doubling on {:?} only",
                        book.double_on
                    ))
                } else {
                    None
                };
                if let Some(why) = why {
                    not_allowed(
                        found,
                        format!("Box {number} hand {} doubled: {why}.", hi + 1),
                    );
                }
                if h.open() {
                    let h = &mut self.boxes[bi].hands[hi];
                    h.doubled = true;
                    h.double_pending = true;
                }
            }
            Action::Split => {
                let pair = two_cards
                    && {
                        let c = h.cards.as_slice();
                        matches!((c[0], c[1]), (Some(a), Some(b)) if a.rank.blackjack_value() == b.rank.blackjack_value())
                    };
                let why = if !pair || self.stage != Stage::Play {
                    Some("only an open hand of two cards of equal value may split".to_owned())
                } else if n_hands >= book.max_hands || usize::from(n_hands) >= MAX_HANDS {
                    Some(format!("the book allows at most {} hands", book.max_hands))
                } else if h.split_ace && !book.resplit_aces {
                    Some("split aces may not be split again".to_owned())
                } else {
                    None
                };
                match why {
                    Some(why) => {
                        not_allowed(found, format!("Box {number} hand {} split: {why}.", hi + 1))
                    }
                    None => {
                        let b = &mut self.boxes[bi];
                        let mut first = b.hands[hi];
                        let second_card = first.cards.pop().flatten();
                        let aces = second_card.is_some_and(|c| c.rank == Rank::Ace);
                        first.from_split = true;
                        first.split_ace = aces;
                        let mut second = HandState::EMPTY;
                        second.cards.push(second_card);
                        second.from_split = true;
                        second.split_ace = aces;
                        let n = usize::from(b.n_hands);
                        b.hands.copy_within(hi + 1..n, hi + 2);
                        b.hands[hi] = first;
                        b.hands[hi + 1] = second;
                        b.n_hands += 1;
                    }
                }
            }
            Action::Surrender => {
                if !book.surrender || !two_cards || n_hands > 1 || self.stage != Stage::Play {
                    not_allowed(
                        found,
                        format!(
                            "Box {number} surrendered: {}.",
                            if book.surrender {
                                "only a first hand of two cards may surrender"
                            } else {
                                "the book offers no surrender"
                            }
                        ),
                    );
                }
                if h.open() {
                    self.boxes[bi].hands[hi].end = End::Surrendered;
                }
            }
        }
    }

    fn bonus(&self, hand: &HandState) -> Option<(f64, &'static str)> {
        let bonus = self.book.bonus.as_ref()?;
        if bonus.not_after_double && hand.doubled {
            return None;
        }
        if let Some((triple, suits)) = hand.cards.triple() {
            let (odds, rule) = match (triple, suits) {
                (Triple::SixSevenEight, Suits::Mixed) => {
                    (bonus.six_seven_eight_mixed, "bonus 6-7-8 mixed")
                }
                (Triple::SixSevenEight, Suits::Suited) => {
                    (bonus.six_seven_eight_suited, "bonus 6-7-8 suited")
                }
                (Triple::SixSevenEight, Suits::Spades) => {
                    (bonus.six_seven_eight_spades, "bonus 6-7-8 spades")
                }
                (Triple::SevenSevenSeven, Suits::Mixed) => {
                    (bonus.seven_seven_seven_mixed, "bonus 7-7-7 mixed")
                }
                (Triple::SevenSevenSeven, Suits::Suited) => {
                    (bonus.seven_seven_seven_suited, "bonus 7-7-7 suited")
                }
                (Triple::SevenSevenSeven, Suits::Spades) => {
                    (bonus.seven_seven_seven_spades, "bonus 7-7-7 spades")
                }
            };
            return Some((odds.ratio(), rule));
        }
        match hand.cards.len() {
            5 => Some((bonus.five_card_21.ratio(), "bonus five-card 21")),
            6 => Some((bonus.six_card_21.ratio(), "bonus six-card 21")),
            n if n >= 7 => Some((bonus.seven_card_21.ratio(), "bonus seven-card 21")),
            _ => None,
        }
    }

    /// The outcome, payout and rule of hand `hi` of a box.
    fn settle(
        &self,
        hand: &HandState,
        hi: usize,
        dealer_cards: &Cards,
        dealer_final: bool,
    ) -> (Option<HandOutcome>, Option<f64>, Option<&'static str>) {
        let stake = if hand.doubled { 2.0 } else { 1.0 };
        if hand.end == End::Surrendered {
            return (Some(HandOutcome::Surrender), Some(-0.5), None);
        }
        let Some(total) = hand.cards.total() else {
            return (None, None, None);
        };
        if total.value > 21 {
            return (Some(HandOutcome::Lose), Some(-stake), Some("5.1(f)"));
        }
        let natural =
            hand.cards.is_natural() && (!hand.from_split || self.book.split_21_is_natural);
        let natural_pays = self.book.natural_pays.ratio();
        if self.book.player_21_wins_at_once && total.value == 21 {
            if natural {
                return (
                    Some(HandOutcome::Blackjack),
                    Some(natural_pays),
                    Some("5.4"),
                );
            }
            return match self.bonus(hand) {
                Some((odds, rule)) => (Some(HandOutcome::Win), Some(odds * stake), Some(rule)),
                None => (Some(HandOutcome::Win), Some(stake), Some("21 paid at once")),
            };
        }
        let dealer = dealer_cards.total().filter(|_| dealer_final);
        let dealer_natural = dealer_cards.is_natural();
        let Some(dealer) = dealer else {
            return (None, None, None);
        };
        if natural {
            return if dealer_natural {
                (Some(HandOutcome::Push), Some(0.0), Some("5.1(e)"))
            } else {
                (
                    Some(HandOutcome::Blackjack),
                    Some(natural_pays),
                    Some("5.1(c), 5.4"),
                )
            };
        }
        if dealer_natural {
            let lost = match self.book.dealer_natural_takes {
                DealerNaturalTakes::AllStakes => -stake,
                DealerNaturalTakes::OriginalOnly if hi == 0 => -1.0,
                DealerNaturalTakes::OriginalOnly => 0.0,
            };
            return (Some(HandOutcome::Lose), Some(lost), Some("5.1(d)"));
        }
        if dealer.value > 21 {
            (Some(HandOutcome::Win), Some(stake), Some("5.1(a)"))
        } else if total.value > dealer.value {
            (Some(HandOutcome::Win), Some(stake), Some("5.1(b)"))
        } else if total.value == dealer.value {
            (Some(HandOutcome::Push), Some(0.0), Some("5.1(e)"))
        } else {
            (Some(HandOutcome::Lose), Some(-stake), Some("5.1(g)"))
        }
    }

    fn super_sevens(&self, b: &BoxState) -> Option<SideBet> {
        let s7 = self.book.super_sevens.as_ref()?;
        let dealt = &b.dealt[..usize::from(b.dealt_len)];
        let mut sevens = 0u8;
        let mut suit = None;
        let mut suited = true;
        for card in dealt {
            let card = (*card)?;
            if card.rank != Rank::Seven {
                break;
            }
            sevens += 1;
            match suit {
                None => suit = Some(card.suit),
                Some(s) => suited &= s == card.suit,
            }
        }
        let pays = match (sevens, suited) {
            (0, _) => -1.0,
            (1, _) => f64::from(s7.one_seven),
            (2, true) => f64::from(s7.two_suited),
            (2, false) => f64::from(s7.two_unsuited),
            (_, true) => f64::from(s7.three_suited),
            (_, false) => f64::from(s7.three_unsuited),
        };
        Some(SideBet {
            bet: "super_sevens",
            sevens: Some(sevens),
            suited: Some(sevens >= 2 && suited),
            pays: Some(pays),
        })
    }

    fn record(&self, complete: bool, dealer_final: bool) -> RoundRecord {
        self.record_of(&self.round_data(), complete, dealer_final)
    }

    fn round_data(&self) -> RoundData<'_> {
        RoundData {
            shoe: self.shoe,
            number: self.number,
            first_seq: self.first_seq,
            last_seq: self.last_seq,
            boxes: &self.boxes,
            dealer: self.dealer,
        }
    }

    fn record_of(&self, data: &RoundData<'_>, complete: bool, dealer_final: bool) -> RoundRecord {
        let dealer = &data.dealer;
        let dealer_total = dealer.total();
        // One allocation per round: the boxes, each holding its hands and side bets inline.
        let mut boxes = Vec::with_capacity(data.boxes.len());
        for b in data.boxes.iter().filter(|b| Self::in_play(b)) {
            let mut hands = Inline::default();
            for (hi, h) in b.hands().iter().enumerate() {
                let (outcome, pays, mut rule) = self.settle(h, hi, dealer, dealer_final);
                // 5.1 and 5.4 are the Blackjack rules' numbers; Pontoon's are not in the source.
                if self.book.variant.is_pontoon() && rule.is_some_and(|r| r.starts_with("5.")) {
                    rule = None;
                }
                let total = h.cards.total();
                hands.push(HandRecord {
                    cards: h.cards,
                    total: total.map(|t| t.value),
                    soft: total.is_some_and(|t| t.soft),
                    doubled: h.doubled,
                    split: h.from_split,
                    outcome,
                    pays,
                    rule,
                });
            }
            let mut side_bets = Inline::default();
            if let Some(s7) = self.super_sevens(b) {
                side_bets.push(s7);
            }
            if b.insurance {
                side_bets.push(SideBet {
                    bet: "insurance",
                    sevens: None,
                    suited: None,
                    pays: (dealer_final && dealer.len() >= 2).then(|| {
                        if dealer.is_natural() {
                            2.0
                        } else {
                            -1.0
                        }
                    }),
                });
            }
            boxes.push(BoxRecord {
                number: b.number,
                hands,
                side_bets,
            });
        }
        RoundRecord {
            game: self.book.variant.name(),
            shoe: data.shoe,
            round: data.number,
            dealer: *dealer,
            dealer_total: dealer_total.map(|t| t.value),
            dealer_blackjack: dealer.is_natural(),
            boxes,
            first_seq: data.first_seq,
            last_seq: data.last_seq,
            complete,
        }
    }
}

/// Why a hand had finished, for a card that came to it.
fn why_finished(end: Option<End>) -> &'static str {
    match end {
        Some(End::Bust) => "bust",
        Some(End::TwentyOne) => "on 21",
        Some(End::Doubled) => "doubled and had its one card",
        Some(End::SplitAce) => "a split ace with its one card",
        Some(End::Surrendered) => "surrendered",
        _ => "stood",
    }
}

/// Whether a card's reported `index` lets it be a hand's first card (none reported, or 1).
fn first_card(index: Option<u8>) -> bool {
    index.is_none_or(|i| i <= 1)
}

/// What the dealer's hand still owes a round's wagers ([`Rounds::dealer_owes`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Owes {
    /// Nothing: every wager is settled (or the dealer's cards have settled what was open).
    Nothing,
    /// Only insurance is open: the dealer's second card settles it.
    SecondCard,
    /// A hand needs the dealer's total: the dealer plays to the book.
    Play,
}

/// A round's cards and numbers, for its record.
struct RoundData<'a> {
    shoe: u32,
    number: u32,
    first_seq: u64,
    last_seq: u64,
    boxes: &'a [BoxState],
    dealer: Cards,
}

/// The last round closed, kept (its boxes' memory swapped, not copied) for the table view, and
/// carried into the next shoe as it stands.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
struct Closed {
    shoe: u32,
    number: u32,
    first_seq: u64,
    last_seq: u64,
    boxes: Vec<BoxState>,
    dealer: Cards,
    complete: bool,
    dealer_final: bool,
    any: bool,
}

/// What a Blackjack or Pontoon table's rounds carry from one shoe into the next: the last round
/// closed, for the table view (stored as JSON with the shoe's start).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundsCarry(Closed);

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
    }

    fn join_round(&mut self, shoe: u32, number: u32, seq: u64) {
        self.start_round(shoe, number, seq);
        self.joined = Some(Joined::default());
    }

    fn handle_event(&mut self, event: &TableEvent, found: &mut Findings) {
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

    fn is_complete(&self) -> bool {
        // A round joined part-way is never known to be complete.
        self.active
            && self.joined.is_none()
            && self.stage != Stage::Initial
            && self.all_finished()
            && (self.dealer_owes() == Owes::Nothing
                || self.dealer_done()
                || self.dealer.total().is_some_and(|t| t.value > 21))
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
                        .filter(|b| Self::in_play(b) && b.cards() < 2)
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
