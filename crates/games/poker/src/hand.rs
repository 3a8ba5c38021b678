//! One poker hand at a time, as the shared shoe tracker runs it: the deal to the seats (checked in
//! `deal`), players' actions up to "substantial action", and declared misdeals. What the engine
//! sees wrong is a misdeal by the book's lettered reason when the rule allows one at that moment,
//! and otherwise the same error without a misdeal: the hand played out ((b)-(e) after
//! substantial action), or one seat's hand dead or void ((f)(i), (f)(ii), (g)).

use std::collections::BTreeMap;

use pitwatch_model::{
    Card, EventKind, MisdealReason, MisdealRuling, PlayerAction, TableEvent, Target,
};
use pitwatch_rules::{Findings, IrregularityCode as Code, RoundGame};
use serde::{Deserialize, Serialize};

use crate::book::{needs_no_action, reason_key, Book};

mod deal;

/// One seat's part of a hand.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatRecord {
    /// The seat, from 1.
    pub seat: u8,
    /// Cards dealt to the seat.
    pub cards: u8,
    /// Of those, dealt face up.
    pub face_up: u8,
    /// Whether the player acted on the hand (a blind is not acting).
    pub acted: bool,
    /// Whether the player folded.
    pub folded: bool,
    /// What the rule makes of this seat's hand where the engine saw it dealt a wrong number of
    /// cards and the rule makes that no misdeal: `dead_hand` ((f)(i): the player had acted; (g):
    /// the one player left at the end), or `void_hand` ((f)(ii): others had taken substantial
    /// action). Absent otherwise, in JSON too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ruled: Option<MisdealRuling>,
}

/// A declared misdeal or ruling, as recorded with its hand.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Declared {
    /// The reason's letter.
    pub reason: MisdealReason,
    /// The seats affected.
    pub seats: Vec<u8>,
    /// The ruling.
    pub ruling: MisdealRuling,
    /// Its `seq`.
    pub seq: u64,
}

/// A hand as recorded (`type: "hand"` in JSON).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandRecord {
    /// Always `poker` (read back as such).
    #[serde(skip_deserializing, default = "poker")]
    pub game: &'static str,
    /// The variant's id (`texas_holdem`).
    pub variant: String,
    /// The hand's number in the stream, from 1.
    pub hand: u32,
    /// The deck (shuffle) it was dealt from, from 1.
    pub shoe: u32,
    /// The hand's place among the hands dealt from that deck, from 1 (more than 1 only when a
    /// hand was dealt without a shuffle: misdeal (b)). With `shoe` it names the hand in the
    /// record the way a shoe and round name any game's round.
    pub round: u32,
    /// The seats dealt to or acting, ascending.
    pub seats: Vec<SeatRecord>,
    /// The misdeal's reason letter: declared by a supervisor with the ruling `misdeal`, else the
    /// first reason the engine saw that the rule makes a misdeal at that moment; `None` if none.
    pub misdeal: Option<MisdealReason>,
    /// The supervisor's declarations in this hand.
    pub declared: Vec<Declared>,
    /// `seq` at which substantial action was reached, if it was.
    pub substantial_action_seq: Option<u64>,
    /// Whether the deck's check before the hand failed (misdeal (h)).
    pub defective_deck: bool,
    /// First event.
    pub first_seq: u64,
    /// Last event.
    pub last_seq: u64,
    /// False when the stream was cut off during the hand.
    pub complete: bool,
}

#[derive(Debug, Clone, Default)]
struct Seat {
    cards: u8,
    face_up: u8,
    /// Face-up cards among the initial deal.
    initial_up: u8,
    acted: bool,
    /// The `seq` of the player's first action on the hand.
    acted_seq: Option<u64>,
    folded: bool,
    /// Whether the seat posted a blind (or another forced bet) in this hand.
    blind: bool,
    /// The seat's hand is dead or void without a misdeal ((f)(i), (f)(ii), (g)).
    ruled: Option<MisdealRuling>,
}

impl Seat {
    /// Whether the seat is still in the hand: neither folded nor dead or void.
    fn live(&self) -> bool {
        !self.folded && self.ruled.is_none()
    }
}

#[derive(Debug, Clone)]
struct Hand {
    number: u32,
    shoe: u32,
    /// Its place among the deck's hands, from 1.
    round: u32,
    first_seq: u64,
    last_seq: u64,
    seats: BTreeMap<u8, Seat>,
    /// Seats of the initial deal's first round, in the order dealt.
    order: Vec<u8>,
    /// Whether the first round is over (a seat got its second card).
    first_round_over: bool,
    /// Position in `order` of the seat due the next card once the first round is over.
    next: usize,
    /// Whether the initial deal is over.
    initial_over: bool,
    /// Cards exposed during the initial dealing round.
    exposed_initial: u8,
    /// Seats that got two up-cards in the initial round.
    two_up: u8,
    /// The later street being dealt (stud), from 0 for the first card after the initial deal.
    street: u8,
    /// Seats dealt their card of that street, in the order dealt.
    street_dealt: Vec<u8>,
    /// The seat dealt the last street card.
    street_last: Option<u8>,
    /// A street card the cards alone cannot place yet (see `deal::street_card`).
    street_pending: Option<deal::Pending>,
    /// The place in `order` of the last seat dealt in the draw (Draw Poker).
    draw_last: Option<usize>,
    acting: Vec<u8>,
    substantial_action: Option<u64>,
    misdeal: Option<MisdealReason>,
    declared: Vec<Declared>,
    defective_deck: bool,
    /// Reasons already flagged in this hand (each is flagged once).
    flagged: Vec<MisdealReason>,
    /// The hand was joined part-way, after the stream was cut off: it began while nobody
    /// listened, so no misdeal is read from what the engine sees of it (a supervisor's
    /// declaration still counts).
    joined: bool,
}

/// Poker hands on the shared shoe tracker: one hand per shuffle.
#[derive(Debug, Clone)]
pub struct Hands {
    book: Book,
    hand: Option<Hand>,
    hands: u32,
    /// The deck since the last shuffle (or since the stream began).
    deck: DeckState,
    /// The last hand closed, as recorded.
    last: Option<HandRecord>,
}

/// A hand's `game`, as read back.
fn poker() -> &'static str {
    "poker"
}

/// What a poker table's hands carry from one deck into the next: the hands' count across decks,
/// the deck as it stands (a stream that goes on without a shuffle deals from it), and the last
/// hand closed (stored as JSON with the deck's start).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandsCarry {
    hands: u32,
    deck: DeckState,
    last: Option<HandRecord>,
}

/// The deck a hand is dealt from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct DeckState {
    /// Whether its check passed (true when no check was seen).
    ok: bool,
    /// The shuffle's `seq`; `None` when the stream began without one (joined part-way).
    shuffle_seq: Option<u64>,
    /// Whether a hand was dealt from it.
    dealt: bool,
}

impl Hands {
    /// Hands under `book`, before any event.
    pub fn new(book: Book) -> Hands {
        Hands {
            book,
            hand: None,
            hands: 0,
            deck: DeckState {
                ok: true,
                shuffle_seq: None,
                dealt: false,
            },
            last: None,
        }
    }

    /// The book.
    pub fn book(&self) -> &Book {
        &self.book
    }
}

fn seat_of(target: Target) -> Option<u8> {
    match target {
        Target::Seat(n) => Some(n),
        _ => None,
    }
}

impl Hand {
    fn record(&self, variant: &str, last_seq: u64, complete: bool) -> HandRecord {
        // A hand dealt from a deck that failed its check is misdealt by (h) unless something
        // earlier in it was.
        let misdeal = self
            .misdeal
            .or(self.defective_deck.then_some(MisdealReason::H));
        HandRecord {
            game: "poker",
            variant: variant.to_owned(),
            hand: self.number,
            shoe: self.shoe,
            round: self.round,
            seats: self
                .seats
                .iter()
                .map(|(&seat, s)| SeatRecord {
                    seat,
                    cards: s.cards,
                    face_up: s.face_up,
                    acted: s.acted,
                    folded: s.folded,
                    ruled: s.ruled,
                })
                .collect(),
            misdeal,
            declared: self.declared.clone(),
            substantial_action_seq: self.substantial_action,
            defective_deck: self.defective_deck,
            first_seq: self.first_seq,
            last_seq: last_seq.max(self.last_seq),
            complete,
        }
    }
}

impl Hands {
    /// Flags what the engine saw as misdeal `reason`: a misdeal when the rule allows one now, else
    /// the same error under `after` (no misdeal: the hand is played out). A wrong number of cards
    /// dealt to `seat` ((f)) is no misdeal once that player has acted ((f)(i): the hand is dead)
    /// or others have taken substantial action ((f)(ii): the hand is void); (g) is always one
    /// seat's dead hand.
    fn saw(
        &mut self,
        reason: MisdealReason,
        after: Code,
        seq: u64,
        seat: Option<u8>,
        what: String,
        found: &mut Findings,
    ) {
        let Some(hand) = self.hand.as_mut().filter(|h| !h.joined) else {
            return;
        };
        if let Some(s) = seat.filter(|_| hand.misdeal.is_none()) {
            let state = hand.seats.get(&s).cloned().unwrap_or_default();
            let ruled = match reason {
                MisdealReason::G => Some((
                    MisdealRuling::DeadHand,
                    vec![seq],
                    "By (g) there is no misdeal: that player's hand is dead and all wagers are returned.".to_owned(),
                )),
                MisdealReason::F => match (state.acted_seq, hand.substantial_action) {
                    (Some(acted), _) => Some((
                        MisdealRuling::DeadHand,
                        vec![acted, seq],
                        format!("The player at seat {s} had already acted (seq {acted}), so by (f)(i) there is no misdeal: that hand is dead and, if there was no collusion, the player's wagers, forced bets and blinds are returned."),
                    )),
                    (None, Some(sa)) => Some((
                        MisdealRuling::VoidHand,
                        vec![sa, seq],
                        format!("The player at seat {s} had not acted, but there had been substantial action by other players (seq {sa}), so by (f)(ii) there is no misdeal: for this round the player's wagers, forced bets and blinds are returned and the hand is void."),
                    )),
                    (None, None) => None,
                },
                _ => None,
            };
            if let Some((ruling, evidence, why)) = ruled {
                let repeated = match reason {
                    MisdealReason::G => hand.flagged.contains(&reason),
                    _ => state.ruled.is_some(),
                };
                if repeated {
                    return;
                }
                if reason == MisdealReason::G {
                    // (g) is the one player left: once a hand. (f) is each seat's own.
                    hand.flagged.push(reason);
                }
                hand.seats.entry(s).or_default().ruled = Some(ruling);
                found.flag_cited(
                    Code::WrongCardCount,
                    reason_key(reason),
                    seq,
                    evidence,
                    format!("{what} {why}"),
                );
                return;
            }
        }
        if hand.flagged.contains(&reason) {
            return;
        }
        hand.flagged.push(reason);
        let letter = reason.as_str();
        match hand.substantial_action {
            Some(sa) if needs_no_action(reason) => {
                found.flag_cited(
                    after,
                    reason_key(reason),
                    seq,
                    vec![sa, seq],
                    format!(
                        "{what} This came after substantial action (seq {sa}), so by ({letter}) it is no misdeal: the hand is played out."
                    ),
                );
            }
            _ => {
                hand.misdeal.get_or_insert(reason);
                found.flag_cited(
                    Code::Misdeal,
                    reason_key(reason),
                    seq,
                    vec![seq],
                    format!("{what} This is a misdeal by ({letter}) unless a supervisor rules the hand can be reconstructed."),
                );
            }
        }
    }

    /// Ends the initial deal: a seat of the first round short of the initial cards is (e); a
    /// seat that posted a blind and was dealt no card is a player dealt out, (d).
    fn on_action(&mut self, seq: u64, seat: u8, action: PlayerAction, found: &mut Findings) {
        if action != PlayerAction::Blind {
            // An action on a hand ends the initial deal, and a street's deal.
            self.end_initial(seq, found);
            self.resolve_street(found);
        }
        let needed = usize::from(self.book.substantial_action_players);
        let Some(hand) = self.hand.as_mut() else {
            return;
        };
        let state = hand.seats.entry(seat).or_default();
        if action == PlayerAction::Blind {
            state.blind = true;
            return;
        }
        state.acted = true;
        state.acted_seq.get_or_insert(seq);
        if action == PlayerAction::Fold {
            state.folded = true;
        }
        if !hand.acting.contains(&seat) {
            hand.acting.push(seat);
        }
        if hand.substantial_action.is_none() && hand.acting.len() >= needed {
            hand.substantial_action = Some(seq);
        }
    }

    fn on_declared(
        &mut self,
        seq: u64,
        reason: MisdealReason,
        seats: &[u8],
        ruling: MisdealRuling,
        found: &mut Findings,
    ) {
        let Some(hand) = self.hand.as_mut() else {
            return;
        };
        hand.declared.push(Declared {
            reason,
            seats: seats.to_vec(),
            ruling,
            seq,
        });
        let letter = reason.as_str();
        let who = if seats.is_empty() {
            "the hand".to_owned()
        } else {
            let list: Vec<String> = seats.iter().map(u8::to_string).collect();
            format!(
                "seat{} {}",
                if seats.len() == 1 { "" } else { "s" },
                list.join(", ")
            )
        };
        found.flag_cited(
            Code::MisdealDeclared,
            reason_key(reason),
            seq,
            vec![seq],
            format!("A supervisor declared misdeal ({letter}) for {who}, ruling: {ruling}."),
        );
        if ruling == MisdealRuling::Misdeal {
            hand.misdeal = Some(reason);
        }
        if ruling != MisdealRuling::Misdeal {
            // (f)(i), (f)(ii): a supervisor who rules a wrong number of cards a dead or void hand
            // found it after the player acted or after substantial action, which the engine
            // cannot see: the misdeal (f) the engine saw at the card is none.
            let ruled_misdeal = hand
                .declared
                .iter()
                .any(|d| d.ruling == MisdealRuling::Misdeal);
            if reason == MisdealReason::F
                && matches!(ruling, MisdealRuling::DeadHand | MisdealRuling::VoidHand)
                && hand.misdeal == Some(MisdealReason::F)
                && !ruled_misdeal
            {
                hand.misdeal = None;
            }
            return;
        }
        let acted: Vec<u8> = seats
            .iter()
            .copied()
            .filter(|s| hand.seats.get(s).is_some_and(|x| x.acted))
            .collect();
        match hand.substantial_action {
            Some(sa) if reason == MisdealReason::F => found.flag_cited(
                Code::MisdealAfterAction,
                reason_key(reason),
                seq,
                vec![sa, seq],
                format!("Misdeal (f) was ruled after substantial action (seq {sa}); the rule allows it only before: by (f)(i) and (f)(ii) there is no misdeal then, and the affected player's hand is dead or void."),
            ),
            Some(sa) if needs_no_action(reason) => found.flag_cited(
                Code::MisdealAfterAction,
                reason_key(reason),
                seq,
                vec![sa, seq],
                format!("Misdeal ({letter}) was ruled after substantial action (seq {sa}); the rule allows it only before: the hand should have been played out."),
            ),
            _ if reason == MisdealReason::F && !acted.is_empty() => {
                let list: Vec<String> = acted.iter().map(u8::to_string).collect();
                found.flag_cited(
                    Code::MisdealAfterAction,
                    reason_key(reason),
                    seq,
                    vec![seq],
                    format!("Misdeal (f) was ruled, but the player at seat {} had already acted: by (f)(i) that hand is dead and there is no misdeal.", list.join(", ")),
                );
            }
            _ => {}
        }
    }
}

impl Default for DeckState {
    /// No deck check seen and no shuffle: the stream began part-way.
    fn default() -> DeckState {
        DeckState {
            ok: true,
            shuffle_seq: None,
            dealt: false,
        }
    }
}

impl RoundGame for Hands {
    type Round = HandRecord;
    type RoundView = HandRecord;
    type Carry = HandsCarry;

    fn carry(&self) -> HandsCarry {
        HandsCarry {
            hands: self.hands,
            deck: self.deck,
            last: self.last.clone(),
        }
    }

    fn resume(&mut self, carry: HandsCarry) {
        self.hands = carry.hands;
        self.deck = carry.deck;
        self.last = carry.last;
    }

    fn game(&self) -> &'static str {
        "poker"
    }

    fn is_round_event(&self, event: &EventKind) -> bool {
        match event {
            EventKind::CardDrawn { target, .. } => target.and_then(seat_of).is_some(),
            EventKind::PlayerActed { target, .. } => seat_of(*target).is_some(),
            EventKind::MisdealDeclared { .. } => true,
            _ => false,
        }
    }

    fn begins_round(&self, event: &EventKind) -> bool {
        let Some(hand) = &self.hand else {
            return self.is_round_event(event);
        };
        // A seat's first card again, after the deal had moved on: a new hand without a shuffle.
        match event {
            EventKind::CardDrawn {
                target: Some(Target::Seat(seat)),
                index: Some(1),
                ..
            } => hand.seats.get(seat).is_some_and(|s| s.cards > 0),
            _ => false,
        }
    }

    fn start_round(&mut self, shoe: u32, number: u32, seq: u64) {
        self.hands += 1;
        self.hand = Some(Hand {
            number: self.hands,
            shoe,
            round: number,
            first_seq: seq,
            last_seq: seq,
            seats: BTreeMap::new(),
            order: Vec::new(),
            first_round_over: false,
            next: 0,
            initial_over: false,
            exposed_initial: 0,
            two_up: 0,
            street: 0,
            street_dealt: Vec::new(),
            street_last: None,
            street_pending: None,
            draw_last: None,
            acting: Vec::new(),
            substantial_action: None,
            misdeal: None,
            declared: Vec::new(),
            defective_deck: !self.deck.ok,
            flagged: Vec::new(),
            joined: false,
        });
    }

    fn join_round(&mut self, shoe: u32, number: u32, seq: u64) {
        self.start_round(shoe, number, seq);
        if let Some(hand) = self.hand.as_mut() {
            hand.joined = true;
        }
    }

    fn handle_event(&mut self, event: &TableEvent, found: &mut Findings) {
        let seq = event.seq;
        // The deck check before the hand: every hand is dealt from a fresh shuffle.
        if let Some(joined) = self
            .hand
            .as_ref()
            .filter(|h| h.first_seq == seq)
            .map(|h| h.joined)
        {
            let deck = self.deck;
            self.deck.dealt = true;
            // A hand joined part-way may have been dealt from a shuffle made while nobody listened.
            if deck.dealt && !joined {
                let since = deck.shuffle_seq.map_or_else(
                    || "no shuffle since the record began".to_owned(),
                    |s| format!("the last shuffle was seq {s}"),
                );
                self.saw(
                    MisdealReason::B,
                    Code::NotShuffled,
                    seq,
                    None,
                    format!("This hand was dealt without a shuffle after the last hand ({since})."),
                    found,
                );
            }
        }
        if let Some(hand) = self.hand.as_mut() {
            hand.last_seq = seq;
        }
        match &event.kind {
            EventKind::CardDrawn {
                target: Some(Target::Seat(seat)),
                index,
                face_up,
                ..
            } => self.on_card(seq, *seat, *index, *face_up, found),
            EventKind::PlayerActed {
                target: Target::Seat(seat),
                action,
            } => self.on_action(seq, *seat, *action, found),
            EventKind::MisdealDeclared {
                reason,
                seats,
                ruling,
            } => self.on_declared(seq, *reason, seats, *ruling, found),
            _ => {}
        }
    }

    fn is_complete(&self) -> bool {
        false
    }

    fn close_round(&mut self, seq: u64, cut_off: bool, found: &mut Findings) -> HandRecord {
        if self.hand.as_ref().is_some_and(|h| !h.order.is_empty()) {
            self.end_initial(seq, found);
            if !cut_off {
                self.end_checks(found);
            }
        }
        let variant = self.book.variant.id.clone();
        let record = match self.hand.take() {
            Some(hand) => hand.record(&variant, hand.last_seq, !cut_off),
            None => HandRecord {
                game: "poker",
                variant,
                hand: self.hands,
                shoe: 0,
                round: 0,
                seats: Vec::new(),
                misdeal: None,
                declared: Vec::new(),
                substantial_action_seq: None,
                defective_deck: false,
                first_seq: seq,
                last_seq: seq,
                complete: false,
            },
        };
        self.last = Some(record.clone());
        record
    }

    fn last_round(&self) -> Option<HandRecord> {
        self.last.clone()
    }

    fn round_view(&self) -> Option<HandRecord> {
        self.hand
            .as_ref()
            .map(|h| h.record(&self.book.variant.id, h.last_seq, true))
    }

    fn defective(&mut self, _seq: u64, _card: Card, _found: &mut Findings) {
        // (h): "the deck is found to be defective before the dealer pushes the pot": the hand is
        // a misdeal (unless something earlier in it was), its wagers returned. The table has
        // flagged the card, citing (h).
        if let Some(hand) = self.hand.as_mut() {
            hand.misdeal.get_or_insert(MisdealReason::H);
        }
    }

    fn shuffled(&mut self, seq: u64, deck_ok: bool) {
        self.deck = DeckState {
            ok: deck_ok,
            shuffle_seq: Some(seq),
            dealt: false,
        };
    }

    fn exposed(&mut self, seq: u64, card: Option<Card>, found: &mut Findings) {
        let Some((limit, reason)) = self.book.variant.exposed else {
            return;
        };
        let Some(hand) = self.hand.as_mut() else {
            return;
        };
        if hand.initial_over {
            return;
        }
        hand.exposed_initial = hand.exposed_initial.saturating_add(1);
        let exposed = hand.exposed_initial;
        if exposed > limit {
            let what = card.map_or_else(|| "a card".to_owned(), |c| format!("the {c}"));
            let name = self.book.variant.name.clone();
            self.saw(
                reason,
                Code::Misdeal,
                seq,
                None,
                format!("With {what}, {exposed} cards were exposed in the initial dealing round of {name}; more than {limit} is a misdeal."),
                found,
            );
        }
    }
}
