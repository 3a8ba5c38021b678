//! The deal of a poker hand as the engine checks it: the initial deal's order, count and faces
//! (misdeals (c)-(f), (i)-(l)), a player dealt out (d), the later streets of stud and the draw
//! (order and count, after the initial deal), and what a hand's end shows (a seat short of its
//! cards, the one player left with a wrong number, (g)).

use pitwatch_model::{MisdealReason, MisdealRuling};
use pitwatch_rules::{Findings, IrregularityCode as Code};

use super::{Hand, Hands, Seat};
use crate::book::Face;

/// A street card not yet placed: `seat` was dealt twice in a row, its first card completing
/// `street`.
#[derive(Debug, Clone)]
pub(super) struct Pending {
    seat: u8,
    /// The seat due the next street's first card.
    due: Option<u8>,
    seq: u64,
    street: String,
    next: String,
}

impl Hands {
    /// Places a pending street card once betting begins (or the hand ends): if the street read as
    /// begun with it is complete, that street was dealt out of order ((c)); if not, the card was
    /// a second one on the street before ((f)), and the street goes on without it.
    pub(super) fn resolve_street(&mut self, found: &mut Findings) {
        let Some(hand) = self.hand.as_mut() else {
            return;
        };
        let Some(p) = hand.street_pending.take() else {
            return;
        };
        if hand.street_dealt.is_empty() {
            let due = p
                .due
                .map_or_else(String::new, |d| format!(" when seat {d} was due one"));
            self.saw(
                MisdealReason::C,
                Code::DealOutOfOrder,
                p.seq,
                None,
                format!(
                    "Seat {} was dealt its card of {}{due}: the street was dealt out of order.",
                    p.seat, p.next
                ),
                found,
            );
            return;
        }
        hand.street_dealt.retain(|&s| s != p.seat);
        self.saw(
            MisdealReason::F,
            Code::WrongCardCount,
            p.seq,
            Some(p.seat),
            format!("Seat {} was dealt two cards on {}.", p.seat, p.street),
            found,
        );
        if let Some(hand) = self.hand.as_mut() {
            let live = live_seats(hand);
            if !hand.street_dealt.is_empty() && live.iter().all(|s| hand.street_dealt.contains(s)) {
                hand.street = hand.street.saturating_add(1);
                hand.street_dealt.clear();
            }
        }
    }

    pub(super) fn end_initial(&mut self, seq: u64, found: &mut Findings) {
        let initial = self.book.variant.initial.len();
        let Some(hand) = self.hand.as_mut() else {
            return;
        };
        if hand.initial_over {
            return;
        }
        hand.initial_over = true;
        let short: Vec<String> = hand
            .order
            .iter()
            .filter_map(|s| {
                let cards = hand.seats.get(s).map_or(0, |x| x.cards);
                (usize::from(cards) < initial).then(|| format!("seat {s} has {cards}"))
            })
            .collect();
        let dealt_out: Vec<u8> = if hand.order.is_empty() {
            Vec::new()
        } else {
            hand.seats
                .iter()
                .filter(|(s, x)| x.blind && x.cards == 0 && !hand.order.contains(s))
                .map(|(&s, _)| s)
                .collect()
        };
        if !short.is_empty() {
            self.saw(
                MisdealReason::E,
                Code::WrongCardCount,
                seq,
                None,
                format!(
                    "At the end of the initial deal of {initial} cards, {}.",
                    short.join(", ")
                ),
                found,
            );
        }
        if !dealt_out.is_empty() {
            let list: Vec<String> = dealt_out.iter().map(u8::to_string).collect();
            let (one, these) = if dealt_out.len() == 1 {
                ("", "a player")
            } else {
                ("s", "players")
            };
            self.saw(
                MisdealReason::D,
                Code::DealOutOfOrder,
                seq,
                None,
                format!(
                    "Seat{one} {} posted a blind but the initial deal gave no card: {these} dealt out.",
                    list.join(", ")
                ),
                found,
            );
        }
    }

    pub(super) fn on_card(
        &mut self,
        seq: u64,
        seat: u8,
        index: Option<u8>,
        face_up: Option<bool>,
        found: &mut Findings,
    ) {
        let variant = self.book.variant.clone();
        let initial = variant.initial.len();
        let Some(hand) = self.hand.as_mut() else {
            return;
        };
        if !hand.initial_over
            && hand.first_round_over
            && hand.order.iter().all(|s| {
                hand.seats
                    .get(s)
                    .is_some_and(|x| usize::from(x.cards) >= initial)
            })
        {
            // Every seat has its initial cards: this card is a later one.
            self.end_initial(seq, found);
        }
        let Some(hand) = self.hand.as_mut() else {
            return;
        };
        let in_initial = !hand.initial_over;
        let had = hand.seats.get(&seat).map_or(0, |s| s.cards);
        let mut problems: Vec<(MisdealReason, Code, Option<u8>, String)> = Vec::new();
        if let Some(index) = index {
            if index != had.saturating_add(1) {
                problems.push((
                    MisdealReason::C,
                    Code::DealOutOfOrder,
                    None,
                    format!("Seat {seat} was dealt its card {index} when it held {had}: the cards were dealt out of order."),
                ));
            }
        }
        if in_initial {
            if !hand.first_round_over && had == 0 {
                // The first round: one card to each seat clockwise (ascending, wrapping).
                let first = hand.order.first().copied().unwrap_or(seat);
                let key = |s: u8| s.wrapping_sub(first);
                if let Some(&last) = hand.order.last() {
                    if key(seat) < key(last) {
                        problems.push((
                            MisdealReason::C,
                            Code::DealOutOfOrder,
                            None,
                            format!("Seat {seat} was dealt its first card after seat {last}: the deal goes clockwise from seat {first}."),
                        ));
                    }
                }
                hand.order.push(seat);
                hand.next = 0;
            } else {
                if !hand.first_round_over {
                    hand.first_round_over = true;
                    hand.next = 0;
                }
                let expected = hand.order.get(hand.next).copied();
                match hand.order.iter().position(|&s| s == seat) {
                    None => problems.push((
                        MisdealReason::D,
                        Code::DealOutOfOrder,
                        None,
                        format!("Seat {seat} was dealt in after the first round of the initial deal had passed it: an extra hand dealt in, or a player dealt out of the first round."),
                    )),
                    Some(at) => {
                        if Some(seat) != expected {
                            if let Some(expected) = expected {
                                problems.push((
                                    MisdealReason::C,
                                    Code::DealOutOfOrder,
                                    None,
                                    format!("Seat {seat} was dealt a card when seat {expected} was due one: the cards were dealt out of order."),
                                ));
                            }
                        }
                        hand.next = (at + 1) % hand.order.len().max(1);
                    }
                }
            }
            if usize::from(had) >= initial {
                problems.push((
                    MisdealReason::F,
                    Code::WrongCardCount,
                    Some(seat),
                    format!(
                        "Seat {seat} was dealt a card beyond the {initial} of the initial deal."
                    ),
                ));
            }
        } else if !hand.order.is_empty() && !hand.order.contains(&seat) {
            problems.push((
                MisdealReason::D,
                Code::DealOutOfOrder,
                None,
                format!("Seat {seat} was dealt a card after the initial deal had passed it: an extra hand dealt in."),
            ));
        } else if ruled_out(hand, seat) {
            // A dead or void hand is out of the count: whether the dealer goes on dealing to it
            // or not is no further error.
        } else {
            let folded = hand.seats.get(&seat).is_some_and(|s| s.folded);
            if had >= variant.most_cards {
                problems.push((
                    MisdealReason::F,
                    Code::WrongCardCount,
                    Some(seat),
                    format!(
                        "Seat {seat} was dealt a card beyond the {} a hand of {} holds.",
                        variant.most_cards, variant.name
                    ),
                ));
            } else if hand.acting.is_empty() {
                // Later cards (a street, the draw) come after a betting round.
                problems.push((
                    MisdealReason::F,
                    Code::WrongCardCount,
                    Some(seat),
                    format!(
                        "Seat {seat} was dealt a card beyond the {initial} of the initial deal before any player acted."
                    ),
                ));
            } else if folded {
                problems.push((
                    MisdealReason::C,
                    Code::DealOutOfOrder,
                    None,
                    format!("Seat {seat} was dealt a card after its player folded: the cards were dealt out of order."),
                ));
            }
            let draw = usize::from(variant.most_cards) > initial;
            if hand.acting.is_empty() || folded {
                // Not a street's or the draw's card.
            } else if !variant.later.is_empty() {
                problems.extend(street_card(hand, seat, initial, seq));
            } else if let Some(at) = hand.order.iter().position(|&s| s == seat).filter(|_| draw) {
                // The draw: each player still in takes their cards in turn, clockwise.
                if let Some(last) = hand.draw_last.filter(|&last| at < last) {
                    problems.push((
                        MisdealReason::C,
                        Code::DealOutOfOrder,
                        None,
                        format!(
                            "Seat {seat} was dealt a card in the draw after seat {}: the draw goes clockwise from seat {}.",
                            hand.order[last], hand.order[0]
                        ),
                    ));
                }
                hand.draw_last = Some(hand.draw_last.map_or(at, |last| last.max(at)));
            }
        }
        // The face the variant deals this card with, when it says.
        let position = usize::from(had);
        let due = if in_initial {
            variant.initial.get(position).copied()
        } else {
            variant.later.get(position.saturating_sub(initial)).copied()
        };
        let up = face_up == Some(true);
        let seat_state = hand.seats.entry(seat).or_default();
        seat_state.cards = seat_state.cards.saturating_add(1);
        if up {
            seat_state.face_up = seat_state.face_up.saturating_add(1);
        }
        if in_initial && up {
            seat_state.initial_up = seat_state.initial_up.saturating_add(1);
            if seat_state.initial_up == 2 {
                hand.two_up = hand.two_up.saturating_add(1);
            }
            if due == Some(Face::Down) {
                hand.exposed_initial = hand.exposed_initial.saturating_add(1);
            }
        }
        let two_up = hand.two_up;
        let exposed = hand.exposed_initial;
        if let (Some(due), Some(face_up)) = (due, face_up) {
            if (due == Face::Up) != face_up && in_initial {
                if let Some(reason) = variant.face_up_reason {
                    problems.push((
                        reason,
                        Code::Misdeal,
                        None,
                        format!(
                            "Seat {seat}'s card {} of the initial deal was dealt face {} where {} deals it face {}.",
                            position + 1,
                            if face_up { "up" } else { "down" },
                            variant.name,
                            if face_up { "down" } else { "up" }
                        ),
                    ));
                }
            }
        }
        if in_initial && two_up > 1 {
            if let Some(reason) = variant.two_up_reason {
                problems.push((
                    reason,
                    Code::Misdeal,
                    None,
                    format!("{two_up} seats were dealt two cards face up in the initial round."),
                ));
            }
        }
        if let Some((limit, reason)) = variant.exposed {
            if in_initial && exposed > limit {
                problems.push((
                    reason,
                    Code::Misdeal,
                    None,
                    format!("{exposed} cards were exposed in the initial dealing round of {}; more than {limit} is a misdeal.", variant.name),
                ));
            }
        }
        for (reason, after, seat, what) in problems {
            self.saw(reason, after, seq, seat, what, found);
        }
    }

    /// The end of a hand that was played to its end (closed by the next hand or shuffle): a stud street left short (a seat passed on
    /// the last street dealt) is a wrong number of cards for each seat passed, and the one player
    /// left holding a wrong number of cards is (g).
    pub(super) fn end_checks(&mut self, found: &mut Findings) {
        self.resolve_street(found);
        let variant = self.book.variant.clone();
        let initial = variant.initial.len();
        let Some(hand) = self.hand.as_ref() else {
            return;
        };
        // The hand's last event is the last that could have given the cards.
        let seq = hand.last_seq;
        if hand.order.is_empty() || hand.misdeal.is_some() {
            return;
        }
        let live: Vec<u8> = live_seats(hand);
        let stud = !variant.later.is_empty();
        // The cards each seat still in should hold, when the variant says.
        let due = usize::from(hand.street) + usize::from(!hand.street_dealt.is_empty());
        let target = if stud {
            Some(initial + due)
        } else if usize::from(variant.most_cards) == initial {
            Some(initial)
        } else {
            None
        };
        let Some(target) = target else {
            return;
        };
        let wrong: Vec<(u8, u8)> = live
            .iter()
            .filter_map(|s| {
                let cards = hand.seats.get(s).map_or(0, |x| x.cards);
                (usize::from(cards) != target).then_some((*s, cards))
            })
            .collect();
        let street = street_name(initial + due, initial);
        if live.len() == 1 {
            if let Some(&(s, cards)) = wrong.first() {
                self.saw(
                    MisdealReason::G,
                    Code::WrongCardCount,
                    seq,
                    Some(s),
                    format!("The hand ended with seat {s} the only player left, holding {cards} cards where {target} were dealt to each seat through {street}."),
                    found,
                );
            }
            return;
        }
        for (s, cards) in wrong {
            self.saw(
                MisdealReason::F,
                Code::WrongCardCount,
                seq,
                Some(s),
                format!("The hand ended with seat {s} holding {cards} cards where {target} were dealt to each seat through {street}."),
                found,
            );
        }
    }
}

/// The seats of the first round still in the hand (neither folded nor dead or void, as the engine
/// found or a supervisor ruled), clockwise.
fn live_seats(hand: &Hand) -> Vec<u8> {
    hand.order
        .iter()
        .copied()
        .filter(|s| hand.seats.get(s).is_none_or(Seat::live) && !ruled_out(hand, *s))
        .collect()
}

/// Whether the seat's hand is dead or void, as the engine found or a supervisor ruled.
fn ruled_out(hand: &Hand, seat: u8) -> bool {
    hand.seats.get(&seat).is_some_and(|s| s.ruled.is_some())
        || hand.declared.iter().any(|d| {
            matches!(d.ruling, MisdealRuling::DeadHand | MisdealRuling::VoidHand)
                && d.seats.contains(&seat)
        })
}

/// The name of the street on which a seat receives its `cards`th card (`fourth street`), or
/// the initial deal.
fn street_name(cards: usize, initial: usize) -> String {
    const ORDINALS: [&str; 10] = [
        "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
        "tenth",
    ];
    if cards <= initial {
        return "the initial deal".to_owned();
    }
    match ORDINALS.get(cards.saturating_sub(1)) {
        Some(n) => format!("{n} street"),
        None => format!("the street of card {cards}"),
    }
}

/// A stud street's card to `seat` (still in the hand, within the variant's cards): each street
/// gives one card to each seat still in, clockwise from the first. A seat dealt again on the
/// street is a wrong number of cards ((f)); a seat dealt before the seat due is out of order
/// ((c)). A seat dealt twice in a row whose first card completed the street (and that is not the
/// first seat still in) is read as beginning the next street until the next action or the hand's
/// end decides ([`Hands::resolve_street`]). By convention (the cards alone cannot tell), the first
/// seat dealt again after the street's deal had gone on past every seat dealt begins the next
/// street, the seats left without a card being short.
fn street_card(
    hand: &mut Hand,
    seat: u8,
    initial: usize,
    seq: u64,
) -> Vec<(MisdealReason, Code, Option<u8>, String)> {
    let mut problems = Vec::new();
    let live = live_seats(hand);
    // A seat dealt again right after its card completed the street (and not the first seat still
    // in, which begins the next street): a second card on that street, or the next street begun
    // with the wrong seat. Read as the next street until the betting round after it tells.
    if hand.street_last.replace(seat) == Some(seat)
        && !hand.street_dealt.contains(&seat)
        && live.first() != Some(&seat)
    {
        hand.street_pending = Some(Pending {
            seat,
            due: live.first().copied(),
            seq,
            street: street_name(initial + usize::from(hand.street), initial),
            next: street_name(initial + usize::from(hand.street) + 1, initial),
        });
        hand.street_dealt.push(seat);
        if live.iter().all(|s| hand.street_dealt.contains(s)) {
            hand.street = hand.street.saturating_add(1);
            hand.street_dealt.clear();
        }
        return problems;
    }
    let name = street_name(initial + usize::from(hand.street) + 1, initial);
    if hand.street_dealt.contains(&seat) {
        let place = |s: u8| live.iter().position(|&x| x == s);
        let last = hand.street_dealt.last().copied();
        let last_place = last.and_then(place);
        let undealt: Vec<u8> = live
            .iter()
            .copied()
            .filter(|s| !hand.street_dealt.contains(s))
            .collect();
        let next_street = last != Some(seat)
            && live.first() == Some(&seat)
            && undealt.iter().all(|&u| place(u) > last_place);
        if next_street {
            for u in undealt {
                problems.push((
                    MisdealReason::F,
                    Code::WrongCardCount,
                    Some(u),
                    format!("Seat {u} was dealt no card on {name}: the deal went on to the next street with seat {seat}."),
                ));
            }
            hand.street = hand.street.saturating_add(1);
            hand.street_dealt.clear();
            hand.street_dealt.push(seat);
        } else {
            problems.push((
                MisdealReason::F,
                Code::WrongCardCount,
                Some(seat),
                format!("Seat {seat} was dealt two cards on {name}."),
            ));
        }
    } else {
        if let Some(due) = live
            .iter()
            .copied()
            .find(|s| !hand.street_dealt.contains(s))
            .filter(|&due| due != seat)
        {
            problems.push((
                MisdealReason::C,
                Code::DealOutOfOrder,
                None,
                format!("Seat {seat} was dealt its card of {name} when seat {due} was due one: the street was dealt out of order."),
            ));
        }
        hand.street_dealt.push(seat);
    }
    if live.iter().all(|s| hand.street_dealt.contains(s)) {
        hand.street = hand.street.saturating_add(1);
        hand.street_dealt.clear();
    }
    problems
}
