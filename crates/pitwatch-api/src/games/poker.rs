//! Poker at the boundary: the table's play on its tile (the hand on the table and the last
//! hands), a hand with its seats and misdeal, a replay's step, and the conversions from the
//! engine's records and from a hand as stored.

use serde::Serialize;
use ts_rs::TS;

/// A poker table's play.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PokerPlay {
    /// The variant dealt (`texas_holdem`).
    pub variant: String,
    /// The hand being dealt (`complete: false`), else the last one closed.
    pub current: Option<PokerHand>,
    /// The last hands closed, oldest first: at most [`POKER_HANDS_KEPT`].
    pub hands: Vec<PokerHand>,
}

/// How many of a table's last hands a poker tile carries (a hand is one shuffle: the tile keeps
/// the last few; the record keeps them all).
pub const POKER_HANDS_KEPT: usize = 12;

/// A poker hand as the window shows it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PokerHand {
    /// The variant's id (`texas_holdem`).
    pub variant: String,
    /// The hand's number at the table, from 1.
    pub hand: u32,
    /// The deck (shuffle) it was dealt from.
    pub shoe: u32,
    /// Its place among that deck's hands (1 unless a hand was dealt without a shuffle).
    pub round: u32,
    /// The seats dealt to or acting.
    pub seats: Vec<PokerSeat>,
    /// The misdeal's reason letter (`h`), if the hand is a misdeal.
    pub misdeal: Option<String>,
    /// Misdeals and rulings a supervisor declared in the hand.
    pub declared: Vec<DeclaredMisdeal>,
    /// `seq` at which substantial action was reached, if it was.
    pub substantial_action_seq: Option<u64>,
    /// Whether the deck's check before the hand failed.
    pub defective_deck: bool,
    /// Whether the hand is closed (false while it is dealt, or when the stream was cut off).
    pub complete: bool,
    /// `seq` of the hand's first event.
    pub first_seq: u64,
    /// `seq` of its last event.
    pub last_seq: u64,
}

/// One seat's part of a poker hand.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PokerSeat {
    /// The seat, from 1.
    pub seat: u8,
    /// Cards dealt to it.
    pub cards: u8,
    /// Of those, face up.
    pub face_up: u8,
    /// Whether the player acted (a blind is not acting).
    pub acted: bool,
    /// Whether the player folded.
    pub folded: bool,
    /// The seat's own ruling where the misdeal rule says there is no misdeal (`dead_hand` or
    /// `void_hand`: (f)(i), (f)(ii), (g)), when it has one.
    pub ruled: Option<String>,
}

/// A misdeal or ruling a supervisor declared.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct DeclaredMisdeal {
    /// The reason's letter (`a` to `l`).
    pub reason: String,
    /// The seats affected.
    pub seats: Vec<u8>,
    /// `misdeal`, `dead_hand`, `void_hand` or `played_out`.
    pub ruling: String,
    /// Its `seq`.
    pub seq: u64,
}

/// A poker table just after an event of a replay.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PokerStep {
    /// The hand being dealt, if one is.
    pub hand: Option<PokerHand>,
    /// The hand this event closed, if it did.
    pub completed: Option<PokerHand>,
}

/// A poker table as a replay's step shows it: the hand on the table and the one closed.
pub fn replay_step(play: &PokerPlay, completed: Option<PokerHand>) -> PokerStep {
    PokerStep {
        hand: play.current.clone(),
        completed,
    }
}

/// A poker hand as the window shows it.
pub fn poker_hand(record: &pitwatch_poker::HandRecord) -> PokerHand {
    PokerHand {
        variant: record.variant.clone(),
        hand: record.hand,
        shoe: record.shoe,
        round: record.round,
        seats: record
            .seats
            .iter()
            .map(|s| PokerSeat {
                seat: s.seat,
                cards: s.cards,
                face_up: s.face_up,
                acted: s.acted,
                folded: s.folded,
                ruled: s.ruled.map(|r| r.as_str().to_owned()),
            })
            .collect(),
        misdeal: record.misdeal.map(|m| m.as_str().to_owned()),
        declared: record
            .declared
            .iter()
            .map(|d| DeclaredMisdeal {
                reason: d.reason.as_str().to_owned(),
                seats: d.seats.clone(),
                ruling: d.ruling.as_str().to_owned(),
                seq: d.seq,
            })
            .collect(),
        substantial_action_seq: record.substantial_action_seq,
        defective_deck: record.defective_deck,
        complete: record.complete,
        first_seq: record.first_seq,
        last_seq: record.last_seq,
    }
}

/// A poker hand as stored, read back tolerantly.
pub(crate) fn stored_hand(v: &serde_json::Value) -> PokerHand {
    let num = |v: &serde_json::Value, key: &str| v.get(key).and_then(|n| n.as_u64());
    let small = |v: &serde_json::Value, key: &str| {
        num(v, key).and_then(|n| u8::try_from(n).ok()).unwrap_or(0)
    };
    let flag =
        |v: &serde_json::Value, key: &str| v.get(key).and_then(|b| b.as_bool()).unwrap_or(false);
    let text =
        |v: &serde_json::Value, key: &str| v.get(key).and_then(|t| t.as_str()).map(str::to_owned);
    let list = |v: &serde_json::Value, key: &str| {
        v.get(key)
            .and_then(|l| l.as_array())
            .cloned()
            .unwrap_or_default()
    };
    let u32_of = |v: &serde_json::Value, key: &str| {
        num(v, key).and_then(|n| u32::try_from(n).ok()).unwrap_or(0)
    };
    PokerHand {
        variant: text(v, "variant").unwrap_or_default(),
        hand: u32_of(v, "hand"),
        shoe: u32_of(v, "shoe"),
        round: u32_of(v, "round"),
        seats: list(v, "seats")
            .iter()
            .map(|s| PokerSeat {
                seat: small(s, "seat"),
                cards: small(s, "cards"),
                face_up: small(s, "face_up"),
                acted: flag(s, "acted"),
                folded: flag(s, "folded"),
                ruled: text(s, "ruled"),
            })
            .collect(),
        misdeal: text(v, "misdeal"),
        declared: list(v, "declared")
            .iter()
            .map(|d| DeclaredMisdeal {
                reason: text(d, "reason").unwrap_or_default(),
                seats: list(d, "seats")
                    .iter()
                    .filter_map(|n| n.as_u64().and_then(|n| u8::try_from(n).ok()))
                    .collect(),
                ruling: text(d, "ruling").unwrap_or_default(),
                seq: num(d, "seq").unwrap_or(0),
            })
            .collect(),
        substantial_action_seq: num(v, "substantial_action_seq"),
        defective_deck: flag(v, "defective_deck"),
        complete: flag(v, "complete"),
        first_seq: num(v, "first_seq").unwrap_or(0),
        last_seq: num(v, "last_seq").unwrap_or(0),
    }
}

/// A hand in one line, for a terminal (`pitwatch replay`, `pitwatch monitor`).
pub fn hand_line(h: &pitwatch_poker::HandRecord) -> String {
    let seats: Vec<String> = h
        .seats
        .iter()
        .map(|s| {
            format!(
                "{}:{}{}{}{}",
                s.seat,
                s.cards,
                if s.face_up > 0 {
                    format!(" ({} up)", s.face_up)
                } else {
                    String::new()
                },
                if s.folded { " folded" } else { "" },
                match s.ruled {
                    Some(r) => format!(" {}", r.as_str().replace('_', " ")),
                    None => String::new(),
                }
            )
        })
        .collect();
    let mut line = format!(
        "hand {} ({}) deck {}: seats {}",
        h.hand,
        h.variant,
        h.shoe,
        if seats.is_empty() {
            "-".to_owned()
        } else {
            seats.join(", ")
        }
    );
    if let Some(m) = h.misdeal {
        line.push_str(&format!("; misdeal ({m})"));
    }
    for d in &h.declared {
        line.push_str(&format!("; declared ({}) {}", d.reason, d.ruling));
    }
    if let Some(sa) = h.substantial_action_seq {
        line.push_str(&format!("; substantial action at seq {sa}"));
    }
    if !h.complete {
        line.push_str(" (incomplete)");
    }
    line
}

/// The first line of `pitwatch replay`'s text report under a poker book: the book and the
/// variant dealt.
pub(crate) fn report_header(book: &pitwatch_poker::Book) -> String {
    format!(
        "rule book {}: {} ({})",
        book.id, book.title, book.variant.name
    )
}

/// The closing line of a poker replay's text report (a deck is everything between two
/// shuffles).
pub(crate) fn report_totals(totals: &super::terminal::Totals) -> String {
    format!(
        "total: {} decks, {} hands, {} irregularities",
        totals.shoes,
        totals.rounds,
        totals.irregularities()
    )
}

/// One output of a poker table as `pitwatch replay` prints it: a line per hand (as
/// [`hand_line`]), deck summary and cleared device error, a block per irregularity with the
/// text of the rules it cites (each line ended).
pub(crate) fn output_text(output: &pitwatch_poker::Output, book: &pitwatch_poker::Book) -> String {
    use pitwatch_poker::Output;
    match output {
        Output::Hand(h) => format!("{}\n", hand_line(h)),
        Output::Irregularity(i) => {
            let mut text = format!(
                "!! {} ({}) hand {} seq {}: {}\n   rule: {} ({})\n",
                i.code,
                i.severity,
                i.round.map_or_else(|| "-".to_owned(), |r| r.to_string()),
                i.seq,
                pitwatch_report::untrusted::continued(&i.message, ""),
                i.rule,
                i.rule_book
            );
            for (number, rule) in book.rule_texts(&i.rule) {
                text.push_str(&format!("   {number}: {}\n", rule.replace('\n', " ")));
            }
            text
        }
        Output::Shoe(s) => format!(
            "== deck {}: {} hands, {} cards{}\n",
            s.shoe,
            s.rounds,
            s.cards,
            if s.partial { " (partial)" } else { "" }
        ),
        Output::DeviceErrorCleared(c) => {
            format!("   device error {} cleared (seq {})\n", c.code, c.seq)
        }
    }
}

/// Puts a poker engine's view of the table on its tile: the deck's counts and the hand being
/// dealt (a deck has no cutting card).
pub(crate) fn show_view(shown: &mut super::Shown, view: &pitwatch_poker::View) {
    use super::TablePlay;
    shown.shoe = view.shoe;
    shown.cards_dealt = view.cards_dealt;
    shown.cards_left = view.cards_left;
    shown.cutting_card_out = false;
    if !matches!(shown.play, TablePlay::Poker(_)) {
        shown.play = TablePlay::Poker(PokerPlay::default());
    }
    let TablePlay::Poker(play) = &mut shown.play else {
        return;
    };
    // A hand is one deck's: the tile keeps the table's last hands, whatever their deck, and the
    // hand being dealt apart (a hand closes at the next shuffle).
    play.current = view.round.as_ref().map(|h| PokerHand {
        complete: false,
        ..poker_hand(h)
    });
    if let Some(last) = &view.last_round {
        // After a restart the tile learns the last hand from the engine's view.
        if !play.hands.iter().any(|h| h.hand == last.hand) {
            play.hands.push(poker_hand(last));
            let extra = play.hands.len().saturating_sub(POKER_HANDS_KEPT);
            play.hands.drain(..extra);
        }
    }
    if let Some(hand) = &play.current {
        play.variant.clone_from(&hand.variant);
    }
}

/// Takes a closed hand into the table's last hands (at most [`POKER_HANDS_KEPT`]).
pub(crate) fn take_round(play: &mut PokerPlay, record: &pitwatch_poker::HandRecord) {
    play.hands.retain(|h| h.hand != record.hand);
    play.hands.push(poker_hand(record));
    let extra = play.hands.len().saturating_sub(POKER_HANDS_KEPT);
    play.hands.drain(..extra);
}

#[cfg(test)]
mod tests {
    use pitwatch_model::{MisdealReason, MisdealRuling};
    use pitwatch_poker::{Declared, HandRecord, SeatRecord};

    #[test]
    fn a_hand_as_stored_reads_back_as_the_hand_shown_live() {
        let seat = |seat, face_up, acted, folded| SeatRecord {
            seat,
            cards: 2,
            face_up,
            acted,
            folded,
            ruled: None,
        };
        let hand = HandRecord {
            game: "poker",
            variant: "texas_holdem".into(),
            hand: 2,
            shoe: 2,
            round: 1,
            seats: vec![seat(1, 0, true, false), seat(4, 1, false, true)],
            misdeal: Some(MisdealReason::H),
            declared: vec![Declared {
                reason: MisdealReason::D,
                seats: vec![4],
                ruling: MisdealRuling::Misdeal,
                seq: 17,
            }],
            substantial_action_seq: Some(12),
            defective_deck: false,
            first_seq: 5,
            last_seq: 20,
            complete: true,
        };
        let mut hand = hand;
        hand.seats[1].ruled = Some(MisdealRuling::DeadHand);
        let round = pitwatch_games::GameRound::Poker(Box::new(hand));
        let body = serde_json::to_string(&round).unwrap();
        // The incident screen reads the stored body; the live tile converts the hand itself.
        assert_eq!(
            crate::games::stored_round(&body),
            Some(crate::games::game_round(&round))
        );
    }
}
