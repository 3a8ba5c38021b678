//! Conversions from the core's types (engine records and events, stored incidents, frames) to
//! what the window and the CLI show: one place, so every front end says the same thing.

use pitwatch_model::{Card, EventKind, Target};
use pitwatch_rules::RoundRecord;
use pitwatch_store::Status;

use crate::dto::{
    BlackjackBox, BlackjackHand, BlackjackRound, DeclaredMisdeal, GameRoundResult, HandOutcome,
    IncidentRow, IncidentStatus, PokerHand, PokerSeat, RoundOutcome, RoundResult, Severity,
    SideBetResult,
};
use pitwatch_games::GameRound;

/// A hand's cards as the window shows them (`None`: unreadable).
pub fn cards(hand: &pitwatch_rules::Hand) -> Vec<Option<String>> {
    hand.cards()
        .iter()
        .map(|c| c.map(|c| c.to_string()))
        .collect()
}

/// A round's outcome as the window shows it.
pub fn outcome(outcome: pitwatch_model::Outcome) -> RoundOutcome {
    match outcome {
        pitwatch_model::Outcome::Player => RoundOutcome::Player,
        pitwatch_model::Outcome::Banker => RoundOutcome::Banker,
        pitwatch_model::Outcome::Tie => RoundOutcome::Tie,
        pitwatch_model::Outcome::Void => RoundOutcome::Void,
    }
}

/// A round record as the window shows it.
pub fn round_result(record: &RoundRecord) -> RoundResult {
    RoundResult {
        shoe: record.shoe,
        round: record.round,
        player: cards(&record.player),
        banker: cards(&record.banker),
        player_total: record.player_total,
        banker_total: record.banker_total,
        outcome: record.outcome.map(outcome),
        player_pair: record.player_pair.unwrap_or(false),
        banker_pair: record.banker_pair.unwrap_or(false),
        first_seq: record.first_seq,
        last_seq: record.last_seq,
    }
}

/// Cards as the window shows them (`None`: unreadable).
fn card_codes(cards: &[Option<Card>]) -> Vec<Option<String>> {
    cards.iter().map(|c| c.map(|c| c.to_string())).collect()
}

pub use pitwatch_games::report::pays;

/// A Blackjack or Pontoon round as the window shows it.
pub fn blackjack_round(record: &pitwatch_blackjack::RoundRecord) -> BlackjackRound {
    let dealer_soft = record.dealer.total().is_some_and(|t| t.soft);
    BlackjackRound {
        shoe: record.shoe,
        round: record.round,
        dealer: card_codes(record.dealer.as_slice()),
        dealer_total: record.dealer_total,
        dealer_soft,
        dealer_blackjack: record.dealer_blackjack,
        boxes: record
            .boxes
            .iter()
            .map(|b| BlackjackBox {
                number: b.number,
                hands: b
                    .hands
                    .iter()
                    .map(|h| BlackjackHand {
                        cards: card_codes(h.cards.as_slice()),
                        total: h.total,
                        soft: h.soft,
                        doubled: h.doubled,
                        split: h.split,
                        outcome: h.outcome.map(|o| match o {
                            pitwatch_blackjack::HandOutcome::Blackjack => HandOutcome::Blackjack,
                            pitwatch_blackjack::HandOutcome::Win => HandOutcome::Win,
                            pitwatch_blackjack::HandOutcome::Lose => HandOutcome::Lose,
                            pitwatch_blackjack::HandOutcome::Push => HandOutcome::Push,
                            pitwatch_blackjack::HandOutcome::Surrender => HandOutcome::Surrender,
                        }),
                        pays: h.pays.map(pays),
                        rule: h.rule.map(str::to_owned),
                    })
                    .collect(),
                side_bets: b
                    .side_bets
                    .iter()
                    .map(|s| SideBetResult {
                        bet: s.bet.to_owned(),
                        sevens: s.sevens,
                        suited: s.suited,
                        pays: s.pays.map(pays),
                    })
                    .collect(),
            })
            .collect(),
        complete: record.complete,
        first_seq: record.first_seq,
        last_seq: record.last_seq,
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

/// A round of any game as the window shows it.
pub fn game_round(round: &GameRound) -> GameRoundResult {
    match round {
        GameRound::Baccarat(r) => GameRoundResult::Baccarat(round_result(r)),
        GameRound::Blackjack(r) => GameRoundResult::Blackjack(blackjack_round(r)),
        GameRound::Poker(r) => GameRoundResult::Poker(poker_hand(r)),
    }
}

/// An event in words, for timelines.
pub fn describe(kind: &EventKind) -> String {
    let card =
        |c: &Option<Card>| c.map_or_else(|| "an unreadable card".to_owned(), |c| c.to_string());
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
            card: c, target, ..
        } => {
            let to = match target {
                Some(Target::Player) => " to Player".to_owned(),
                Some(Target::Banker) => " to Banker".to_owned(),
                Some(Target::Burn) => " burned".to_owned(),
                Some(Target::First) => " (first card, sets the burn)".to_owned(),
                Some(Target::Dealer) => " to the dealer".to_owned(),
                Some(Target::Box(n)) => format!(" to box {n}"),
                Some(other) => format!(" to {other:?}"),
                None => String::new(),
            };
            format!("Card {}{to}", card(c))
        }
        EventKind::CuttingCardDrawn => {
            "Cutting card came out: the next round is the last coup".into()
        }
        EventKind::BurnCounted { count } => format!("Burn counted: {count} cards"),
        EventKind::ResultDeclared { outcome, .. } => {
            format!("Result declared: {}", outcome.as_str())
        }
        EventKind::CardExposed { card: c, during } => {
            format!("Card {} exposed during {}", card(c), during.as_str())
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
        EventKind::Decision {
            target,
            hand,
            action,
        } => {
            let who = match (target, hand) {
                (Target::Box(n), Some(h)) if *h > 1 => format!("Box {n} hand {h}"),
                (Target::Box(n), _) => format!("Box {n}"),
                (other, _) => other.to_string(),
            };
            format!("{who}: {}", action.as_str().replace('_', " "))
        }
        #[allow(unreachable_patterns, reason = "the event vocabulary may grow")]
        other => format!("{other:?}"),
    }
}

/// An incident's status as the window shows it.
pub fn status_dto(status: Status) -> IncidentStatus {
    match status {
        Status::Open => IncidentStatus::Open,
        Status::Acknowledged => IncidentStatus::Acknowledged,
        Status::Resolved => IncidentStatus::Resolved,
    }
}

/// The store's status for the window's.
pub fn status_store(status: IncidentStatus) -> Status {
    match status {
        IncidentStatus::Open => Status::Open,
        IncidentStatus::Acknowledged => Status::Acknowledged,
        IncidentStatus::Resolved => Status::Resolved,
    }
}

/// A stored incident as a row of the incident list.
pub fn incident_row(incident: &pitwatch_store::Incident) -> IncidentRow {
    IncidentRow {
        id: incident.id.0,
        table: incident.table.clone(),
        code: incident.code.clone(),
        severity: Severity::parse(&incident.severity),
        rule: incident.rule.clone(),
        shoe: incident.shoe,
        round: incident.round,
        seq: incident.seq,
        message: incident.message.clone(),
        opened_at: incident.opened_at.clone(),
        status: status_dto(incident.status),
    }
}

/// A round as stored (its game's round record as JSON), read back tolerantly.
pub fn stored_round(body: &str) -> Option<GameRoundResult> {
    let v: serde_json::Value = serde_json::from_str(body).ok()?;
    match v.get("game").and_then(|g| g.as_str()) {
        Some("blackjack" | "pontoon") => {
            Some(GameRoundResult::Blackjack(stored_blackjack_round(&v)))
        }
        Some("poker") => Some(GameRoundResult::Poker(stored_poker_hand(&v))),
        _ => stored_baccarat_round(&v).map(GameRoundResult::Baccarat),
    }
}

/// A poker hand as stored, read back tolerantly.
fn stored_poker_hand(v: &serde_json::Value) -> PokerHand {
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

fn stored_codes(v: Option<&serde_json::Value>) -> Vec<Option<String>> {
    v.and_then(|h| h.as_array())
        .map(|cards| {
            cards
                .iter()
                .map(|c| c.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// A Blackjack or Pontoon round as stored, read back tolerantly.
fn stored_blackjack_round(v: &serde_json::Value) -> BlackjackRound {
    let num = |v: &serde_json::Value, key: &str| v.get(key).and_then(|n| n.as_u64());
    let flag =
        |v: &serde_json::Value, key: &str| v.get(key).and_then(|b| b.as_bool()).unwrap_or(false);
    let pays_of = |v: &serde_json::Value| v.get("pays").and_then(|p| p.as_f64()).map(pays);
    let list = |v: &serde_json::Value, key: &str| {
        v.get(key)
            .and_then(|l| l.as_array())
            .cloned()
            .unwrap_or_default()
    };
    let outcome = |o: Option<&str>| match o {
        Some("blackjack") => Some(HandOutcome::Blackjack),
        Some("win") => Some(HandOutcome::Win),
        Some("lose") => Some(HandOutcome::Lose),
        Some("push") => Some(HandOutcome::Push),
        Some("surrender") => Some(HandOutcome::Surrender),
        _ => None,
    };
    let dealer = stored_codes(v.get("dealer"));
    let dealer_soft = {
        let mut cards = pitwatch_blackjack::hand::Cards::new();
        for code in &dealer {
            cards.push(code.as_deref().and_then(|c| c.parse().ok()));
        }
        cards.total().is_some_and(|t| t.soft)
    };
    BlackjackRound {
        shoe: num(v, "shoe").unwrap_or(0) as u32,
        round: num(v, "round").unwrap_or(0) as u32,
        dealer,
        dealer_total: num(v, "dealer_total").map(|t| t as u8),
        dealer_soft,
        dealer_blackjack: flag(v, "dealer_blackjack"),
        boxes: list(v, "boxes")
            .iter()
            .map(|b| BlackjackBox {
                number: num(b, "box").unwrap_or(0) as u8,
                hands: list(b, "hands")
                    .iter()
                    .map(|h| BlackjackHand {
                        cards: stored_codes(h.get("cards")),
                        total: num(h, "total").map(|t| t as u8),
                        soft: flag(h, "soft"),
                        doubled: flag(h, "doubled"),
                        split: flag(h, "split"),
                        outcome: outcome(h.get("outcome").and_then(|o| o.as_str())),
                        pays: pays_of(h),
                        rule: h.get("rule").and_then(|r| r.as_str()).map(str::to_owned),
                    })
                    .collect(),
                side_bets: list(b, "side_bets")
                    .iter()
                    .map(|s| SideBetResult {
                        bet: s
                            .get("bet")
                            .and_then(|b| b.as_str())
                            .unwrap_or_default()
                            .to_owned(),
                        sevens: num(s, "sevens").map(|n| n as u8),
                        suited: s.get("suited").and_then(|b| b.as_bool()),
                        pays: pays_of(s),
                    })
                    .collect(),
            })
            .collect(),
        complete: flag(v, "complete"),
        first_seq: num(v, "first_seq").unwrap_or(0),
        last_seq: num(v, "last_seq").unwrap_or(0),
    }
}

/// A Baccarat coup as stored, read back tolerantly.
fn stored_baccarat_round(v: &serde_json::Value) -> Option<RoundResult> {
    let hand = |key: &str| -> Vec<Option<String>> {
        v.get(key)
            .and_then(|h| h.as_array())
            .map(|cards| {
                cards
                    .iter()
                    .map(|c| c.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    };
    let total = |key: &str| v.get(key).and_then(|t| t.as_u64()).map(|t| t as u8);
    let outcome = match v.get("outcome").and_then(|o| o.as_str()) {
        Some("player") => Some(RoundOutcome::Player),
        Some("banker") => Some(RoundOutcome::Banker),
        Some("tie") => Some(RoundOutcome::Tie),
        Some("void") => Some(RoundOutcome::Void),
        _ => None,
    };
    let num = |key: &str| v.get(key).and_then(|n| n.as_u64()).unwrap_or(0);
    Some(RoundResult {
        shoe: num("shoe") as u32,
        round: num("round") as u32,
        player: hand("player"),
        banker: hand("banker"),
        player_total: total("player_total"),
        banker_total: total("banker_total"),
        outcome,
        player_pair: v
            .get("player_pair")
            .and_then(|p| p.as_bool())
            .unwrap_or(false),
        banker_pair: v
            .get("banker_pair")
            .and_then(|p| p.as_bool())
            .unwrap_or(false),
        first_seq: num("first_seq"),
        last_seq: num("last_seq"),
    })
}

/// Frame bytes for people: printable ASCII as is, anything else as `<hex>`.
pub fn printable(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for &b in bytes {
        if (0x20..0x7f).contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("<{b:02X}>"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_print_their_control_bytes_as_hex() {
        assert_eq!(printable(b"\x02P1 9S\x03"), "<02>P1 9S<03>");
        assert_eq!(printable(&[0xFF, b'a']), "<FF>a");
    }

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
        assert_eq!(describe(&card(Target::Box(3))), "Card AS to box 3");
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
        assert_eq!(pays(1.5), "+1.5");
        assert_eq!(pays(-2.0), "-2");
        assert_eq!(pays(0.0), "0");
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
