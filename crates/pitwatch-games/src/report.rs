//! What a report shows of each game: a shoe's rounds as a table in the game's own terms and the
//! fields that name a rule book. The reports themselves (incident, shoe, shift) are documents
//! built by `pitwatch-recording`; only this registry decides by the game.

use pitwatch_baccarat::RoundRecord;
use pitwatch_report::Block;

use crate::{GameBook, GameRound};

/// The shoe report's paragraph when a shoe's shuffle is not analysed.
pub const SHUFFLE_NOT_ANALYSED: &str = "Not analysed: the analysis is of Baccarat shoes (its \
    thresholds are a Baccarat rule book's), and this table's shuffler is continuous, its game \
    another, or the shoe's start is not on record.";

/// A code of the engine's as a report cell reads it: `banker` → `Banker`, `dealer_bust` →
/// `Dealer bust`.
fn word(code: &str) -> String {
    let text = code.replace('_', " ");
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// A payout, signed, as the window and the reports show it (`+1.5`, `-1`, `0`).
pub fn pays(units: f64) -> String {
    if units > 0.0 {
        format!("+{units}")
    } else if units == 0.0 {
        "0".to_owned()
    } else {
        format!("{units}")
    }
}

fn hand(cards: &[Option<pitwatch_model::Card>]) -> String {
    cards
        .iter()
        .map(|c| c.map_or_else(|| "??".to_owned(), |c| c.to_string()))
        .collect::<Vec<_>>()
        .join(" ")
}

fn total(t: Option<u8>) -> String {
    t.map_or_else(|| "?".into(), |t| t.to_string())
}

/// The rounds as a table in their game's own terms (a shoe holds one game's rounds).
pub fn rounds_table(rounds: &[GameRound]) -> Block {
    let baccarat: Vec<RoundRecord> = rounds
        .iter()
        .filter_map(|r| r.baccarat().copied())
        .collect();
    if baccarat.len() == rounds.len() {
        return baccarat_rounds_table(&baccarat);
    }
    if rounds.iter().all(|r| matches!(r, GameRound::Poker(_))) {
        return poker_hands_table(rounds.iter().filter_map(|r| match r {
            GameRound::Poker(h) => Some(&**h),
            _ => None,
        }));
    }
    blackjack_rounds_table(rounds.iter().filter_map(|r| match r {
        GameRound::Blackjack(r) => Some(&**r),
        GameRound::Baccarat(_) | GameRound::Poker(_) => None,
    }))
}

/// Poker hands: a row per hand with its variant, the seats dealt (cards, face up, acted,
/// folded), whether it was misdealt and why, and what a supervisor declared.
fn poker_hands_table<'a>(hands: impl Iterator<Item = &'a pitwatch_poker::HandRecord>) -> Block {
    let rows = hands
        .map(|h| {
            let seats: Vec<String> = h
                .seats
                .iter()
                .map(|s| {
                    let mut seat = format!("{}:{}", s.seat, s.cards);
                    if s.face_up > 0 {
                        seat.push_str(&format!("/{}up", s.face_up));
                    }
                    if s.folded {
                        seat.push_str(" fold");
                    } else if s.acted {
                        seat.push('*');
                    }
                    seat
                })
                .collect();
            let declared: Vec<String> = h
                .declared
                .iter()
                .map(|d| {
                    let seats = if d.seats.is_empty() {
                        "whole hand".to_owned()
                    } else {
                        let seats: Vec<String> = d.seats.iter().map(u8::to_string).collect();
                        format!("seats {}", seats.join(", "))
                    };
                    format!(
                        "({}) {}, {seats}",
                        d.reason.as_str(),
                        d.ruling.as_str().replace('_', " ")
                    )
                })
                .collect();
            vec![
                h.shoe.to_string(),
                h.hand.to_string(),
                h.variant.replace('_', " "),
                if seats.is_empty() {
                    "-".into()
                } else {
                    seats.join(" ")
                },
                match h.misdeal {
                    Some(m) => format!("Misdeal ({})", m.as_str()),
                    None if h.defective_deck => "Defective deck".into(),
                    None if !h.complete => "Cut off".into(),
                    None => "Dealt".into(),
                },
                declared.join(", "),
                format!("{}–{}", h.first_seq, h.last_seq),
            ]
        })
        .collect();
    Block::Table {
        columns: [
            "Deck",
            "Hand",
            "Variant",
            "Seats (cards)",
            "Outcome",
            "Declared",
            "Events",
        ]
        .map(String::from)
        .to_vec(),
        widths: vec![5, 5, 12, 24, 13, 14, 10],
        rows,
    }
}

/// Blackjack or Pontoon rounds: a row per hand (the dealer's cards on the round's first row),
/// with its total, outcome and what it pays, and each box's side bets.
fn blackjack_rounds_table<'a>(
    rounds: impl Iterator<Item = &'a pitwatch_blackjack::RoundRecord>,
) -> Block {
    let mut rows = Vec::new();
    for r in rounds {
        let dealer = format!(
            "{} = {}{}",
            hand(r.dealer.as_slice()),
            total(r.dealer_total),
            if r.dealer_blackjack { " BJ" } else { "" }
        );
        let mut first = true;
        for b in &r.boxes {
            for (i, h) in b.hands.iter().enumerate() {
                let mut cards = format!("{} = {}", hand(h.cards.as_slice()), total(h.total));
                if h.soft {
                    cards.push_str(" soft");
                }
                if h.doubled {
                    cards.push_str(" doubled");
                }
                let side: Vec<String> = if i == 0 {
                    b.side_bets
                        .iter()
                        .filter(|s| s.pays.is_some_and(|p| p > 0.0))
                        .map(|s| {
                            format!(
                                "{} {}",
                                s.bet.replace('_', " "),
                                s.pays.map(pays).unwrap_or_default()
                            )
                        })
                        .collect()
                } else {
                    Vec::new()
                };
                rows.push(vec![
                    if first {
                        r.shoe.to_string()
                    } else {
                        String::new()
                    },
                    if first {
                        r.round.to_string()
                    } else {
                        String::new()
                    },
                    if first { dealer.clone() } else { String::new() },
                    if b.hands.len() > 1 {
                        format!("{}.{}", b.number, i + 1)
                    } else {
                        b.number.to_string()
                    },
                    cards,
                    h.outcome
                        .and_then(|o| serde_json::to_value(o).ok())
                        .and_then(|v| v.as_str().map(word))
                        .unwrap_or_else(|| "Unsettled".into()),
                    h.pays.map(pays).unwrap_or_else(|| "?".into()),
                    side.join(", "),
                    if first {
                        format!("{}–{}", r.first_seq, r.last_seq)
                    } else {
                        String::new()
                    },
                ]);
                first = false;
            }
        }
        if first {
            // A round with no box in play (a plain shoe's stream): the dealer alone.
            rows.push(vec![
                r.shoe.to_string(),
                r.round.to_string(),
                dealer,
                "-".into(),
                String::new(),
                String::new(),
                String::new(),
                String::new(),
                format!("{}–{}", r.first_seq, r.last_seq),
            ]);
        }
    }
    Block::Table {
        columns: [
            "Shoe",
            "Round",
            "Dealer",
            "Box",
            "Hand",
            "Outcome",
            "Pays",
            "Side bets",
            "Events",
        ]
        .map(String::from)
        .to_vec(),
        widths: vec![5, 6, 14, 5, 18, 9, 6, 14, 10],
        rows,
    }
}

fn baccarat_rounds_table(rounds: &[RoundRecord]) -> Block {
    Block::Table {
        columns: [
            "Shoe", "Round", "Player", "P", "Banker", "B", "Result", "Events",
        ]
        .map(String::from)
        .to_vec(),
        widths: vec![5, 6, 16, 4, 16, 4, 9, 10],
        rows: rounds
            .iter()
            .map(|r| {
                vec![
                    r.shoe.to_string(),
                    r.round.to_string(),
                    hand(r.player.cards()),
                    total(r.player_total),
                    hand(r.banker.cards()),
                    total(r.banker_total),
                    word(r.outcome.map_or("unknown", |o| o.as_str())),
                    format!("{}–{}", r.first_seq, r.last_seq),
                ]
            })
            .collect(),
    }
}

/// The fields that name a table's rule book in a report, in its game's terms.
pub fn book_fields(rule_book: &str) -> Vec<(String, String)> {
    match GameBook::load(rule_book) {
        Ok(GameBook::Blackjack(book)) => vec![
            ("Rule book".into(), format!("{} — {}", book.id, book.title)),
            ("Game".into(), book.variant.name().to_owned()),
        ],
        Ok(GameBook::Poker(book)) => vec![
            ("Rule book".into(), format!("{} — {}", book.id, book.title)),
            ("Game".into(), format!("poker, {}", book.variant.name)),
        ],
        Ok(GameBook::Baccarat(book)) => vec![
            (
                "Rule book".into(),
                format!("{} — {}", book.id(), book.title()),
            ),
            ("Jurisdiction".into(), book.jurisdiction().to_owned()),
            ("Published in".into(), book.gazette().to_owned()),
            ("Effective".into(), book.effective().to_owned()),
        ],
        Err(e) => vec![(
            "Rule book".into(),
            format!("{rule_book} (cannot be loaded: {e})"),
        )],
    }
}

#[cfg(test)]
mod tests {
    use super::word;

    #[test]
    fn an_engine_code_reads_as_a_capitalised_word() {
        assert_eq!(word("banker"), "Banker");
        assert_eq!(word("dead_hand"), "Dead hand");
        assert_eq!(word(""), "");
    }
}
