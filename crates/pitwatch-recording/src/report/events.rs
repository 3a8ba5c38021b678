//! Events in words, for people: the evidence timeline of a report, and (through
//! `pitwatch_api::convert::describe`) the window's incident evidence and replay steps alike, so
//! both say "Card QS to Player, 2nd card" and "No more bets" where the record keeps
//! `card_drawn` and `bets_closed`.

use pitwatch_model::{Card, EventKind, Target};

/// An event in words, for timelines.
pub fn describe(kind: &EventKind) -> String {
    // At the start of a sentence: "Card QS", "An unreadable card".
    let a_card = |c: &Option<Card>| {
        c.map_or_else(|| "An unreadable card".to_owned(), |c| format!("Card {c}"))
    };
    match kind {
        EventKind::Shuffled { cards, .. } => match cards {
            Some(n) => format!("Shoe shuffled ({n} cards)"),
            None => "Shoe shuffled".to_owned(),
        },
        EventKind::Cut { position } => format!("Cut at card {position}"),
        EventKind::CuttingCardPlaced { from_back } => {
            format!("Cutting card placed {from_back} cards from the back")
        }
        EventKind::CardDrawn {
            card: c,
            target,
            index,
            ..
        } => {
            #[allow(unreachable_patterns, reason = "the targets may grow")]
            let to = match target {
                Some(Target::Player) => " to Player".to_owned(),
                Some(Target::Banker) => " to Banker".to_owned(),
                Some(Target::Burn) => " burned".to_owned(),
                Some(Target::First) => " (first card, sets the burn)".to_owned(),
                Some(Target::Dealer) => " to the dealer".to_owned(),
                Some(Target::Box(n)) => format!(" to box {n}"),
                Some(Target::Seat(n)) => format!(" to seat {n}"),
                Some(Target::Hand { number, hand }) => format!(" to box {number} hand {hand}"),
                Some(other) => format!(" to {other}"),
                None => String::new(),
            };
            // Which card of the hand it is, where the device says and it is a hand's card.
            let nth = match (index, target) {
                (Some(i), Some(t)) if !matches!(t, Target::Burn | Target::First) => {
                    format!(", {} card", ordinal(*i))
                }
                _ => String::new(),
            };
            format!("{}{to}{nth}", a_card(c))
        }
        EventKind::CuttingCardDrawn => {
            "Cutting card came out: the next round is the last coup".into()
        }
        EventKind::BurnCounted { count } => format!("Burn counted: {count} cards"),
        EventKind::ResultDeclared { outcome, .. } => {
            format!("Result declared: {}", super::capitalised(outcome.as_str()))
        }
        EventKind::CardExposed { card: c, during } => {
            format!("{} exposed during {}", a_card(c), during.as_str())
        }
        EventKind::DeviceError { code, text } => format!("Device error {code}: {text}"),
        EventKind::DeviceErrorCleared { code } => format!("Device error {code} cleared"),
        EventKind::LockChanged { locked } => {
            if *locked {
                "Shoe locked".into()
            } else {
                "Shoe unlocked".into()
            }
        }
        EventKind::TableStateChanged { state } => format!("Table {}", state.as_str()),
        EventKind::CardsReplaced => "Cards replaced".into(),
        EventKind::PlayerActed { target, action } => {
            let who = match target {
                Target::Seat(n) => format!("Seat {n}"),
                other => other.to_string(),
            };
            format!("{who} acted: {}", action.as_str().replace('_', " "))
        }
        EventKind::MisdealDeclared {
            reason,
            seats,
            ruling,
        } => {
            let seats = if seats.is_empty() {
                "the whole hand".to_owned()
            } else {
                let list: Vec<String> = seats.iter().map(u8::to_string).collect();
                format!(
                    "seat{} {}",
                    if seats.len() == 1 { "" } else { "s" },
                    list.join(", ")
                )
            };
            format!(
                "Misdeal ({reason}) declared for {seats}: {}",
                ruling.as_str().replace('_', " ")
            )
        }
        EventKind::DeckChecked {
            cards,
            expected,
            missing,
            extra,
            foreign,
            ..
        } => {
            if cards == expected && missing + extra + foreign == 0 {
                format!("Shuffler: shuffle done, deck check passed ({cards} cards)")
            } else {
                format!(
                    "Shuffler: shuffle done, deck check FAILED ({cards} of {expected} cards; \
                     {missing} missing, {extra} extra, {foreign} foreign)"
                )
            }
        }
        EventKind::ShuffleStarted { decks, cycle } => {
            let decks = decks.map_or_else(String::new, |d| format!(" of {d} decks"));
            let cycle = cycle.map_or_else(String::new, |c| format!(" (shuffle no. {c})"));
            format!("Shuffler: shuffle{decks} started{cycle}")
        }
        EventKind::ShufflerCounters {
            cycles,
            recognition_errors,
            malfunctions,
        } => {
            let mut words = format!("Shuffler counters: {cycles} shuffles");
            if let Some(n) = recognition_errors {
                words.push_str(&format!(", {n} recognition errors"));
            }
            if let Some(n) = malfunctions {
                words.push_str(&format!(", {n} malfunctions"));
            }
            words
        }
        EventKind::ShuffleStep { step } => format!(
            "Cards {} before loading",
            match step {
                pitwatch_model::ShuffleStep::Chemmy => "chemmy shuffled",
                pitwatch_model::ShuffleStep::Stacking => "stacked",
                pitwatch_model::ShuffleStep::Riffle => "riffle shuffled",
            }
        ),
        EventKind::DealerSignedIn { dealer } => format!("Dealer {dealer} signed in"),
        EventKind::DealerSignedOut { dealer } => format!("Dealer {dealer} signed out"),
        EventKind::Decision {
            target,
            hand,
            action,
        } => {
            let who = match (target, hand) {
                (Target::Box(n), Some(h)) if *h > 1 => format!("Box {n} hand {h}"),
                (Target::Box(n), _) => format!("Box {n}"),
                (Target::Hand { number, hand }, None) => format!("Box {number} hand {hand}"),
                (other, _) => other.to_string(),
            };
            format!("{who}: {}", action.as_str().replace('_', " "))
        }
        EventKind::BetsClosed => "No more bets".into(),
    }
}

/// 1st, 2nd, 3rd, 4th … 11th, 12th, 13th … 21st.
fn ordinal(n: u8) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blackjack_cards_and_decisions_are_told_in_words() {
        use pitwatch_model::Action;
        let card = |target| EventKind::CardDrawn {
            card: Some("AS".parse().unwrap()),
            target: Some(target),
            index: None,
            face_up: None,
            retransmit: None,
        };
        assert_eq!(describe(&card(Target::Dealer)), "Card AS to the dealer");
        assert_eq!(
            describe(&EventKind::CardDrawn {
                card: Some("QS".parse().unwrap()),
                target: Some(Target::Player),
                index: Some(2),
                face_up: None,
                retransmit: None,
            }),
            "Card QS to Player, 2nd card"
        );
        assert_eq!(
            describe(&EventKind::CardDrawn {
                card: None,
                target: Some(Target::Burn),
                index: Some(3),
                face_up: None,
                retransmit: None,
            }),
            "An unreadable card burned"
        );
        assert_eq!(describe(&EventKind::BetsClosed), "No more bets");
        assert_eq!(
            describe(&EventKind::ResultDeclared {
                outcome: pitwatch_model::Outcome::Banker,
                player_pair: None,
                banker_pair: None,
            }),
            "Result declared: Banker"
        );
        assert_eq!(
            [1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 111].map(ordinal),
            ["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "23rd", "111th"]
        );
        assert_eq!(describe(&card(Target::Box(3))), "Card AS to box 3");
        assert_eq!(
            describe(&card(Target::Hand { number: 3, hand: 2 })),
            "Card AS to box 3 hand 2"
        );
        assert_eq!(
            describe(&EventKind::Decision {
                target: Target::Box(3),
                hand: Some(2),
                action: Action::Double
            }),
            "Box 3 hand 2: double"
        );
        assert_eq!(
            describe(&EventKind::Decision {
                target: Target::Box(1),
                hand: None,
                action: Action::InPlay
            }),
            "Box 1: in play"
        );
    }

    #[test]
    fn poker_actions_and_misdeals_are_told_in_words() {
        use pitwatch_model::{MisdealReason, MisdealRuling, PlayerAction};
        assert_eq!(
            describe(&EventKind::PlayerActed {
                target: Target::Seat(4),
                action: PlayerAction::AllIn
            }),
            "Seat 4 acted: all in"
        );
        assert_eq!(
            describe(&EventKind::MisdealDeclared {
                reason: MisdealReason::D,
                seats: vec![2, 5],
                ruling: MisdealRuling::Misdeal
            }),
            "Misdeal (d) declared for seats 2, 5: misdeal"
        );
        assert_eq!(
            describe(&EventKind::MisdealDeclared {
                reason: MisdealReason::G,
                seats: vec![],
                ruling: MisdealRuling::DeadHand
            }),
            "Misdeal (g) declared for the whole hand: dead hand"
        );
    }
}
