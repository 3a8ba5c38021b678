//! What the engine knows about the table at this moment, for the live table screen and for
//! step-by-step replay: [`TableView`] (from [`crate::Engine::view`]) and its smaller
//! [`CompactTableView`].
//!
//! Both are plain `Copy` values built from the engine's state without allocating, so a replay can
//! take one after every event. Which cards are left in the shoe is confidential and never shown:
//! only how many.

use std::fmt;

use pitwatch_model::Outcome;
use serde::Serialize;

use pitwatch_rules::{BurnView, Phase};

use crate::record::RoundRecord;
use crate::side::{Hand, Side};

/// How far the shoe is towards its end (11.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LastCoup {
    /// The shoe has no end of its own: a continuous shuffler (11.1).
    NotApplicable,
    /// The cutting card has not come out.
    NotReached,
    /// The cutting card came out; rounds before the last coup remain.
    Pending,
    /// The round in progress, or the next, is the last coup.
    LastRound,
    /// The last coup was completed.
    Completed,
}

/// The card the rules give next in the round in progress.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct NextCardView {
    /// The hand it goes to.
    pub side: Side,
    /// Its position in that hand, 1 to 3.
    pub card: u8,
    /// `false` when an unreadable card hides the decision: the card is possibly due, or the round
    /// is possibly complete.
    pub certain: bool,
}

impl NextCardView {
    /// The view of what the rules give next, or `None` once the round is complete.
    pub fn of(next: crate::drawing::NextCard) -> Option<NextCardView> {
        use crate::drawing::NextCard;
        match next {
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
        }
    }
}

/// The round being dealt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct RoundView {
    /// The round, 1-based within the shoe.
    pub number: u32,
    /// The Player's cards so far (`null` for an unreadable card).
    pub player: Hand,
    /// The Banker's cards so far.
    pub banker: Hand,
    /// The Player's points so far, `None` if a card is unreadable.
    pub player_total: Option<u8>,
    /// The Banker's points so far, `None` if a card is unreadable.
    pub banker_total: Option<u8>,
    /// The next card by 8.4 and the drawing rules, or `None` when the round needs no more cards.
    pub next: Option<NextCardView>,
    /// Whether the round was started by a Player card carried over under 12.1(b).
    pub carried: bool,
    /// Whether 12.1(b) makes this a round with no bets.
    pub no_bets: bool,
    /// `seq` of the round's first card.
    pub first_seq: u64,
}

/// The engine's view of the table: the shoe, the round in progress and the last round completed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct TableView {
    /// The current shoe, 1-based within the stream, or 0 before any.
    pub shoe: u32,
    /// Where the table stands.
    pub phase: Phase,
    /// Whether the shoe was joined part-way (no shuffle or burn seen), or the stream was cut off
    /// in it ([`crate::Engine::interrupt`]).
    pub partial: bool,
    /// Whether the shoe is dealt from a continuous shuffler.
    pub continuous: bool,
    /// Decks in the shoe (as the shuffle reported, else the book's default).
    pub decks: u8,
    /// Cards drawn from the shoe so far, burn and unreadable cards included.
    pub cards_dealt: u32,
    /// Cards not yet drawn, when the engine can know: `None` before any shoe, in a shoe joined
    /// part-way, with a continuous shuffler, or after the cards were replaced.
    pub cards_left: Option<u32>,
    /// The burn.
    pub burn: BurnView,
    /// Whether the cutting card has come out of this shoe.
    pub cutting_card_out: bool,
    /// How far the shoe is towards its end.
    pub last_coup: LastCoup,
    /// The number of the last coup, once the cutting card has set it.
    pub last_coup_round: Option<u32>,
    /// The round being dealt, if any.
    pub round: Option<RoundView>,
    /// Rounds recorded in this shoe (completed, or closed unfinished); the round in progress is
    /// not counted.
    pub rounds_completed: u32,
    /// The last round recorded in the stream (in this shoe or an earlier one).
    pub last_round: Option<RoundRecord>,
    /// Device errors raised and not yet cleared.
    pub open_device_errors: u32,
    /// `seq` of the last event handled, `None` before any.
    pub last_seq: Option<u64>,
}

/// The last round recorded, in brief.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct LastRoundBrief {
    /// Its shoe.
    pub shoe: u32,
    /// Its number within the shoe.
    pub round: u32,
    /// The winner the cards give, `None` if unknown.
    pub outcome: Option<Outcome>,
    /// The Player's points, `None` if unknown.
    pub player_total: Option<u8>,
    /// The Banker's points, `None` if unknown.
    pub banker_total: Option<u8>,
}

/// A smaller [`TableView`] for frequent updates (one per event in a replay): the counts, the
/// round in progress and the last result, without the burn and round details.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct CompactTableView {
    /// The current shoe, or 0 before any.
    pub shoe: u32,
    /// Where the table stands.
    pub phase: Phase,
    /// Cards drawn from the shoe so far.
    pub cards_dealt: u32,
    /// Cards not yet drawn, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cards_left: Option<u32>,
    /// Rounds recorded in this shoe.
    pub rounds_completed: u32,
    /// The round in progress, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub round: Option<u32>,
    /// The Player's cards in the round in progress (empty between rounds).
    pub player: Hand,
    /// The Banker's cards in the round in progress (empty between rounds).
    pub banker: Hand,
    /// The next card of the round in progress, if the engine knows it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next: Option<NextCardView>,
    /// The last round recorded, in brief.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last: Option<LastRoundBrief>,
    /// Device errors not yet cleared.
    pub open_device_errors: u32,
}

impl TableView {
    /// The compact form.
    pub fn compact(&self) -> CompactTableView {
        let (player, banker) = self
            .round
            .map_or((Hand::new(), Hand::new()), |r| (r.player, r.banker));
        CompactTableView {
            shoe: self.shoe,
            phase: self.phase,
            cards_dealt: self.cards_dealt,
            cards_left: self.cards_left,
            rounds_completed: self.rounds_completed,
            round: self.round.map(|r| r.number),
            player,
            banker,
            next: self.round.and_then(|r| r.next),
            last: self.last_round.map(|r| LastRoundBrief {
                shoe: r.shoe,
                round: r.round,
                outcome: r.outcome,
                player_total: r.player_total,
                banker_total: r.banker_total,
            }),
            open_device_errors: self.open_device_errors,
        }
    }
}

fn points(total: Option<u8>) -> char {
    total.map_or('?', |t| char::from(b'0' + t % 10))
}

/// One line, e.g. `shoe 1 dealing cards 9 left 407 rounds 0 | round 1 P[9S KS] B[KH] next banker 2 | errors 0`.
impl fmt::Display for CompactTableView {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "shoe {} {} cards {}",
            self.shoe, self.phase, self.cards_dealt
        )?;
        if let Some(left) = self.cards_left {
            write!(f, " left {left}")?;
        }
        write!(f, " rounds {}", self.rounds_completed)?;
        if let Some(round) = self.round {
            write!(f, " | round {round} P[{}] B[{}]", self.player, self.banker)?;
            match self.next {
                Some(n) if n.certain => write!(f, " next {} {}", n.side, n.card)?,
                Some(n) => write!(f, " next possibly {} {}", n.side, n.card)?,
                None => f.write_str(" complete")?,
            }
        }
        if let Some(last) = self.last {
            write!(f, " | last {}.{} ", last.shoe, last.round)?;
            match last.outcome {
                Some(o) => write!(f, "{o}")?,
                None => f.write_str("unknown")?,
            }
            write!(
                f,
                " {}-{}",
                points(last.player_total),
                points(last.banker_total)
            )?;
        }
        write!(f, " | errors {}", self.open_device_errors)
    }
}

/// The compact form's line.
impl fmt::Display for TableView {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.compact().fmt(f)
    }
}
