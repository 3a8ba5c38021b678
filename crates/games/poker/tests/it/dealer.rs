//! An honest poker dealer with fault injection, for the differential test: written from the
//! variants' ordinary deal (one card at a time clockwise from the first seat, the blinds the
//! first two seats, a betting round after the initial deal, then the board, the draw or the stud
//! streets) and from seed 002's misdeal paragraphs, not from the engine. Each fault is one thing
//! a dealer gets wrong in one hand, with what seed 002 says becomes of that hand.

use pitwatch_model::{
    Card, EventKind, ExposedDuring, MisdealReason, MisdealRuling, PlayerAction, Target,
};
use pitwatch_rules::IrregularityCode as Code;

/// A small deterministic random source (SplitMix64), so a case is named by its seed.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True one time in `n`.
    pub fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }
}

/// The variants dealt.
pub const VARIANTS: &[&str] = &["texas_holdem", "draw", "five_card_stud", "seven_card_stud"];

/// One dealing fault in one hand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Fault {
    /// A card to a seat beyond the initial deal, before anyone acted: (f), a misdeal.
    ExtraCardBeforeAction,
    /// Hold'em: a third card to the first player to act, right after acting: (f)(i), dead hand.
    ExtraCardAfterOwnAction,
    /// Hold'em: a third card to a player who has not acted, after two others did: (f)(ii),
    /// void hand.
    ExtraCardAfterOthersActed,
    /// A player who posted a blind gets no card in the initial deal: (d), a misdeal.
    DealtOut,
    /// The last seat's last initial card is not dealt: (e), a misdeal.
    ShortInitialDeal,
    /// Two adjacent seats' cards of the initial deal's second round are swapped: (c), a misdeal.
    InitialOutOfOrder,
    /// A card of the hand is a copy of one dealt before it: (h), a misdeal.
    DuplicateCard,
    /// Draw Poker: two cards of the initial deal dealt face up: (i), a misdeal.
    TwoExposedInInitialDraw,
    /// Draw Poker: a card exposed during the draw, then dealt in sequence: (i), no misdeal.
    ExposedDuringTheDraw,
    /// Stud: a card of the initial deal dealt with the wrong face: (j) or (l), a misdeal.
    WrongFaceInitial,
    /// Stud: a seat dealt two cards on a later street: (f)(i), dead hand (it acted).
    StreetTwoCards,
    /// Stud: two adjacent seats' cards of a later street swapped: (c) after substantial action,
    /// no misdeal.
    StreetOutOfOrder,
    /// Stud: the last seat passed on the last street, the others then fold: (g), dead hand.
    LastPlayerShort,
}

/// What seed 002 makes of a faulted hand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expect {
    /// The one irregularity's code.
    pub code: Code,
    /// Its rule, as the book cites it.
    pub rule: &'static str,
    /// The hand's misdeal.
    pub misdeal: Option<MisdealReason>,
    /// The faulted seat's hand, when it alone is dead or void.
    pub ruled: Option<MisdealRuling>,
}

impl Fault {
    pub const ALL: &'static [Fault] = &[
        Fault::ExtraCardBeforeAction,
        Fault::ExtraCardAfterOwnAction,
        Fault::ExtraCardAfterOthersActed,
        Fault::DealtOut,
        Fault::ShortInitialDeal,
        Fault::InitialOutOfOrder,
        Fault::DuplicateCard,
        Fault::TwoExposedInInitialDraw,
        Fault::ExposedDuringTheDraw,
        Fault::WrongFaceInitial,
        Fault::StreetTwoCards,
        Fault::StreetOutOfOrder,
        Fault::LastPlayerShort,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Fault::ExtraCardBeforeAction => "extra_card_before_action",
            Fault::ExtraCardAfterOwnAction => "extra_card_after_own_action",
            Fault::ExtraCardAfterOthersActed => "extra_card_after_others_acted",
            Fault::DealtOut => "dealt_out",
            Fault::ShortInitialDeal => "short_initial_deal",
            Fault::InitialOutOfOrder => "initial_out_of_order",
            Fault::DuplicateCard => "duplicate_card",
            Fault::TwoExposedInInitialDraw => "two_exposed_in_initial_draw",
            Fault::ExposedDuringTheDraw => "exposed_during_the_draw",
            Fault::WrongFaceInitial => "wrong_face_initial",
            Fault::StreetTwoCards => "street_two_cards",
            Fault::StreetOutOfOrder => "street_out_of_order",
            Fault::LastPlayerShort => "last_player_short",
        }
    }

    /// Whether the fault can happen in `variant`.
    pub fn applies(self, variant: &str) -> bool {
        let stud = variant.ends_with("_stud");
        match self {
            Fault::ExtraCardAfterOwnAction | Fault::ExtraCardAfterOthersActed => {
                variant == "texas_holdem"
            }
            Fault::TwoExposedInInitialDraw | Fault::ExposedDuringTheDraw => variant == "draw",
            Fault::WrongFaceInitial
            | Fault::StreetTwoCards
            | Fault::StreetOutOfOrder
            | Fault::LastPlayerShort => stud,
            _ => true,
        }
    }

    /// Seed 002's outcome for the fault in `variant`.
    pub fn expect(self, variant: &str) -> Expect {
        let misdeal = |code, rule, reason| Expect {
            code,
            rule,
            misdeal: Some(reason),
            ruled: None,
        };
        let seat = |rule, ruled| Expect {
            code: Code::WrongCardCount,
            rule,
            misdeal: None,
            ruled: Some(ruled),
        };
        match self {
            // (f): "a player is dealt an incorrect number of cards, and this is discovered
            // before substantial action is taken".
            Fault::ExtraCardBeforeAction => misdeal(Code::Misdeal, "Misdeal (f)", MisdealReason::F),
            // (f)(i): "His/her hand is declared dead".
            Fault::ExtraCardAfterOwnAction | Fault::StreetTwoCards => {
                seat("Misdeal (f)", MisdealRuling::DeadHand)
            }
            // (f)(ii): "the player's hand is voided".
            Fault::ExtraCardAfterOthersActed => seat("Misdeal (f)", MisdealRuling::VoidHand),
            // (d): "deals a player out ... discovered before there has been substantial action".
            Fault::DealtOut => misdeal(Code::Misdeal, "Misdeal (d)", MisdealReason::D),
            // (e): "at the end of the initial deal an eligible player has received an incorrect
            // number of cards".
            Fault::ShortInitialDeal => misdeal(Code::Misdeal, "Misdeal (e)", MisdealReason::E),
            // (c): "dealt the cards out of order and the error was noticed prior to substantial
            // action".
            Fault::InitialOutOfOrder => misdeal(Code::Misdeal, "Misdeal (c)", MisdealReason::C),
            // (h): "the deck is found to be defective before the dealer pushes the pot".
            Fault::DuplicateCard => misdeal(Code::ExcessCard, "Misdeal (h)", MisdealReason::H),
            // (i): "more than one card is exposed by the dealer during the initial dealing round".
            Fault::TwoExposedInInitialDraw => {
                misdeal(Code::Misdeal, "Misdeal (i)", MisdealReason::I)
            }
            // (i): "should this occur during the draw the cards shall be used in sequence".
            Fault::ExposedDuringTheDraw => Expect {
                code: Code::CardExposed,
                rule: "Misdeal (a), (i)",
                misdeal: None,
                ruled: None,
            },
            // (j), (l): "deals the incorrect card face up".
            Fault::WrongFaceInitial if variant == "five_card_stud" => {
                misdeal(Code::Misdeal, "Misdeal (j)", MisdealReason::J)
            }
            Fault::WrongFaceInitial => misdeal(Code::Misdeal, "Misdeal (l)", MisdealReason::L),
            // (c) after substantial action: no misdeal ((b): "Once there has been substantial
            // action the hand shall be played out").
            Fault::StreetOutOfOrder => Expect {
                code: Code::DealOutOfOrder,
                rule: "Misdeal (c)",
                misdeal: None,
                ruled: None,
            },
            // (g): "That player's hand shall be declared a dead hand".
            Fault::LastPlayerShort => seat("Misdeal (g)", MisdealRuling::DeadHand),
        }
    }
}

/// Each variant's faces: (initial, later streets), `true` face up.
fn faces(variant: &str) -> (Vec<bool>, Vec<bool>) {
    match variant {
        "texas_holdem" => (vec![false; 2], vec![]),
        "draw" => (vec![false; 5], vec![]),
        "five_card_stud" => (vec![false, true], vec![true; 3]),
        "seven_card_stud" => (vec![false, false, true], vec![true, true, true, false]),
        other => panic!("no variant {other}"),
    }
}

/// One hand as dealt: its events (a shuffle first) and the seat the fault was aimed at.
pub struct Dealt {
    pub events: Vec<EventKind>,
    pub seat: Option<u8>,
}

/// Builds a hand's events, counting each seat's cards for the device's `index`.
struct Table {
    events: Vec<EventKind>,
    deck: Vec<Card>,
    held: [u8; 11],
    /// Whether the device reports each card's place in its seat's hand.
    indexed: bool,
}

impl Table {
    fn card(&mut self) -> Card {
        self.deck.pop().expect("the dealer plans within one deck")
    }

    fn give(&mut self, seat: u8, up: bool) {
        let card = self.card();
        self.give_card(seat, card, up);
    }

    fn give_card(&mut self, seat: u8, card: Card, up: bool) {
        self.held[usize::from(seat)] += 1;
        self.events.push(EventKind::CardDrawn {
            card: Some(card),
            target: Some(Target::Seat(seat)),
            index: self.indexed.then_some(self.held[usize::from(seat)]),
            face_up: Some(up),
            retransmit: None,
        });
    }

    fn act(&mut self, seat: u8, action: PlayerAction) {
        self.events.push(EventKind::PlayerActed {
            target: Target::Seat(seat),
            action,
        });
    }
}

/// Deals one hand of `variant` from a fresh shuffle, with `fault` if given; `indexed` when the
/// device reports each card's `index` in its seat's hand.
pub fn deal(rng: &mut Rng, variant: &str, fault: Option<Fault>, indexed: bool) -> Dealt {
    let (initial, later) = faces(variant);
    // Seats: 2 to 10 (7 for Seven Card Stud, 9 for the draw: one deck), 3 or more for the faults
    // that need a third player.
    let most = match variant {
        "seven_card_stud" => 7,
        "draw" => 9,
        _ => 10,
    };
    let fewest = match fault {
        Some(Fault::DealtOut | Fault::ExtraCardAfterOthersActed) => 3,
        _ => 2,
    };
    let count = fewest + rng.below(most - fewest + 1);
    let mut all: Vec<u8> = (1..=10).collect();
    for i in (1..all.len()).rev() {
        all.swap(i, rng.below(i + 1));
    }
    let mut seats = all[..count].to_vec();
    seats.sort_unstable();
    let first = rng.below(count);
    let clockwise: Vec<u8> = (0..count).map(|k| seats[(first + k) % count]).collect();
    let mut deck: Vec<Card> = (0..52).filter_map(Card::from_index).collect();
    for i in (1..deck.len()).rev() {
        deck.swap(i, rng.below(i + 1));
    }
    let mut t = Table {
        events: vec![EventKind::Shuffled {
            decks: Some(1),
            cards: Some(52),
            shuffler: None,
        }],
        deck,
        held: [0; 11],
        indexed,
    };
    let mut aimed = None;
    // The blinds (antes in stud): the first two seats.
    t.act(clockwise[0], PlayerAction::Blind);
    t.act(clockwise[1], PlayerAction::Blind);
    let dealt: Vec<u8> = match fault {
        Some(Fault::DealtOut) => {
            let out = clockwise[rng.below(2)];
            aimed = Some(out);
            clockwise.iter().copied().filter(|&s| s != out).collect()
        }
        _ => clockwise.clone(),
    };
    let n = dealt.len();
    // The initial deal, round by round, with its faults.
    let mut order: Vec<Vec<(u8, bool)>> = initial
        .iter()
        .map(|&up| dealt.iter().map(|&s| (s, up)).collect())
        .collect();
    match fault {
        Some(Fault::ShortInitialDeal) => {
            let (seat, _) = order.last_mut().unwrap().pop().unwrap();
            aimed = Some(seat);
        }
        Some(Fault::InitialOutOfOrder) => {
            let k = rng.below(n - 1);
            order[1].swap(k, k + 1);
        }
        Some(Fault::WrongFaceInitial) => {
            let (r, k) = (rng.below(initial.len()), rng.below(n));
            order[r][k].1 = !order[r][k].1;
            aimed = Some(order[r][k].0);
        }
        Some(Fault::TwoExposedInInitialDraw) => {
            let a = rng.below(initial.len() * n);
            let b = (a + 1 + rng.below(initial.len() * n - 1)) % (initial.len() * n);
            for x in [a, b] {
                order[x / n][x % n].1 = true;
            }
        }
        _ => {}
    }
    for round in &order {
        for &(seat, up) in round {
            t.give(seat, up);
        }
    }
    if fault == Some(Fault::ExtraCardBeforeAction) {
        let seat = dealt[rng.below(n)];
        aimed = Some(seat);
        t.give(seat, false);
    }
    // The betting round on the initial deal: each seat dealt acts, clockwise; some fold, two at
    // least stay in.
    let mut live = Vec::new();
    for (i, &seat) in dealt.iter().enumerate() {
        if fault == Some(Fault::ExtraCardAfterOthersActed) && i == 2 {
            // Seats 0 and 1 have acted: substantial action. This seat has not.
            aimed = Some(seat);
            t.give(seat, false);
            continue;
        }
        let fold = rng.one_in(3) && live.len() + (n - i) > 2;
        t.act(
            seat,
            if fold {
                PlayerAction::Fold
            } else {
                PlayerAction::Call
            },
        );
        if fault == Some(Fault::ExtraCardAfterOwnAction) && i == 0 {
            aimed = Some(seat);
            t.give(seat, false);
            continue;
        }
        if !fold {
            live.push(seat);
        }
    }
    match variant {
        "texas_holdem" => {
            for _ in 0..5 {
                let card = t.card();
                t.events.push(EventKind::card(card));
            }
            for &seat in &live {
                t.act(seat, PlayerAction::Check);
            }
        }
        "draw" => {
            for (i, &seat) in live.iter().enumerate() {
                let mut draws = rng.below(4).min(t.deck.len());
                if fault == Some(Fault::ExposedDuringTheDraw) && i == 0 {
                    draws = draws.max(1);
                    let card = t.card();
                    t.events.push(EventKind::CardExposed {
                        card: Some(card),
                        during: ExposedDuring::Dealing,
                    });
                    t.give_card(seat, card, true);
                    draws -= 1;
                }
                for _ in 0..draws.min(t.deck.len()) {
                    t.give(seat, false);
                }
                t.act(seat, PlayerAction::Check);
            }
        }
        _ => {
            let streets = later.len();
            let street = rng.below(streets);
            for (k, &up) in later.iter().enumerate() {
                let mut round: Vec<u8> = live.clone();
                let last = k + 1 == streets;
                match fault {
                    Some(Fault::StreetOutOfOrder) if k == street => {
                        let i = rng.below(round.len() - 1);
                        round.swap(i, i + 1);
                    }
                    Some(Fault::LastPlayerShort) if last => {
                        aimed = round.pop();
                    }
                    _ => {}
                }
                let extra = (fault == Some(Fault::StreetTwoCards) && k == street)
                    .then(|| round[rng.below(round.len())]);
                for &seat in &round {
                    t.give(seat, up);
                    if extra == Some(seat) {
                        aimed = Some(seat);
                        t.give(seat, up);
                    }
                }
                for &seat in &live {
                    if fault == Some(Fault::LastPlayerShort) && last {
                        if Some(seat) != aimed {
                            t.act(seat, PlayerAction::Fold);
                        }
                    } else {
                        t.act(seat, PlayerAction::Check);
                    }
                }
            }
        }
    }
    if fault == Some(Fault::DuplicateCard) {
        // A card of the hand after its first is a copy of one dealt before it.
        let cards: Vec<usize> = (0..t.events.len())
            .filter(|&i| matches!(t.events[i], EventKind::CardDrawn { .. }))
            .collect();
        let at = 1 + rng.below(cards.len() - 1);
        let copy = match &t.events[cards[rng.below(at)]] {
            EventKind::CardDrawn { card, .. } => *card,
            _ => unreachable!("a card event"),
        };
        if let EventKind::CardDrawn { card, target, .. } = &mut t.events[cards[at]] {
            *card = copy;
            aimed = target.and_then(|t| match t {
                Target::Seat(s) => Some(s),
                _ => None,
            });
        }
    }
    Dealt {
        events: t.events,
        seat: aimed,
    }
}
