//! Baccarat at the boundary: a Baccarat table's play on its tile (the coup on the table and the
//! shoe's coups, from which the window draws the roads), a completed coup, a replay's step, and
//! the conversions from the engine's records and from a coup as stored.

use pitwatch_baccarat::RoundRecord;
use serde::Serialize;
use ts_rs::TS;

/// A Baccarat table's play.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct BaccaratPlay {
    /// Whether a burn is due in this shoe at all (`false`: the rule book has none, the shoe was
    /// joined part-way or cut off by a restart, or the cards were replaced).
    pub burn_due: bool,
    /// Whether the burn has been done in this shoe.
    pub burn_done: bool,
    /// The round being dealt, or the last one dealt.
    pub current: LiveRound,
    /// Every round completed in this shoe, oldest first (the roads are drawn from these).
    pub rounds: Vec<RoundResult>,
}

/// The round on the table now.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct LiveRound {
    /// The round's number in the shoe (the one being dealt, or the last one).
    pub round: u32,
    /// The Player's cards in deal order, as codes like `TD` (`null`: unreadable).
    pub player: Vec<Option<String>>,
    /// The Banker's cards in deal order.
    pub banker: Vec<Option<String>>,
    /// The result, once the round is complete.
    pub result: Option<RoundResult>,
}

/// A completed round.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct RoundResult {
    /// The shoe.
    pub shoe: u32,
    /// The round, 1-based within the shoe.
    pub round: u32,
    /// The Player's cards, as codes like `TD` (`null`: unreadable).
    pub player: Vec<Option<String>>,
    /// The Banker's cards.
    pub banker: Vec<Option<String>>,
    /// The Player's points, when every card was read.
    pub player_total: Option<u8>,
    /// The Banker's points.
    pub banker_total: Option<u8>,
    /// Who won, when known.
    pub outcome: Option<RoundOutcome>,
    /// Whether the Player's first two cards are a pair.
    pub player_pair: bool,
    /// Whether the Banker's first two cards are a pair.
    pub banker_pair: bool,
    /// `seq` of the round's first card.
    pub first_seq: u64,
    /// `seq` of the round's last card.
    pub last_seq: u64,
}

/// Who won a round.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum RoundOutcome {
    /// The Player's hand.
    Player,
    /// The Banker's hand.
    Banker,
    /// Neither.
    Tie,
    /// The round was voided.
    Void,
}

/// A Baccarat table just after an event of a replay.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct BaccaratStep {
    /// The round on the table (the one being dealt or just completed).
    pub round: u32,
    /// The Player's cards on the table.
    pub player: Vec<Option<String>>,
    /// The Banker's cards on the table.
    pub banker: Vec<Option<String>>,
    /// Whether a burn is due in this shoe at all.
    pub burn_due: bool,
    /// Whether the burn has been done.
    pub burn_done: bool,
    /// The round this event completed, if it did.
    pub completed: Option<RoundResult>,
}

/// A Baccarat table as a replay's step shows it: the coup on the table and the one completed.
pub fn replay_step(play: &BaccaratPlay, completed: Option<RoundResult>) -> BaccaratStep {
    BaccaratStep {
        round: play.current.round,
        player: play.current.player.clone(),
        banker: play.current.banker.clone(),
        burn_due: play.burn_due,
        burn_done: play.burn_done,
        completed,
    }
}

/// A hand's cards as the window shows them (`None`: unreadable).
pub fn cards(hand: &pitwatch_baccarat::Hand) -> Vec<Option<String>> {
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

/// A Baccarat coup as stored, read back tolerantly.
pub(crate) fn stored_round(v: &serde_json::Value) -> Option<RoundResult> {
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

/// A coup in one line, for a terminal (`pitwatch monitor`).
pub fn round_line(r: &RoundRecord) -> String {
    let hand = |cards: &[Option<pitwatch_model::Card>]| {
        cards
            .iter()
            .map(|c| c.map_or_else(|| "??".to_owned(), |c| c.to_string()))
            .collect::<Vec<_>>()
            .join(" ")
    };
    format!(
        "shoe {} round {:>2}: P [{}] {}  B [{}] {}  {}",
        r.shoe,
        r.round,
        hand(r.player.cards()),
        r.player_total.map_or_else(|| "?".into(), |t| t.to_string()),
        hand(r.banker.cards()),
        r.banker_total.map_or_else(|| "?".into(), |t| t.to_string()),
        r.outcome.map_or("unknown", |o| o.as_str()),
    )
}

/// The first line of `pitwatch replay`'s text report under a Baccarat book: the book and the
/// law it was published under.
pub(crate) fn report_header(book: &pitwatch_baccarat::RuleBook) -> String {
    format!(
        "rule book {}: {}, {} (effective {})",
        book.id(),
        book.jurisdiction(),
        book.gazette(),
        book.effective()
    )
}

/// The closing line of a Baccarat replay's text report, with its irregularities by code.
pub(crate) fn report_totals(totals: &super::terminal::Totals) -> String {
    let codes: Vec<String> = totals
        .by_code
        .iter()
        .map(|(code, n)| format!("{n} {code}"))
        .collect();
    format!(
        "total: {} shoes, {} rounds, {} irregularities{}",
        totals.shoes,
        totals.rounds,
        totals.irregularities(),
        if codes.is_empty() {
            String::new()
        } else {
            format!(" ({})", codes.join(", "))
        }
    )
}

/// One output of a Baccarat table as `pitwatch replay` prints it: a line per coup, shoe summary
/// and cleared device error, a block per irregularity with its rule (each line ended).
pub(crate) fn output_text(
    output: &pitwatch_baccarat::Output,
    book: &pitwatch_baccarat::RuleBook,
) -> String {
    use pitwatch_baccarat::Output;
    let total = |t: Option<u8>| t.map_or("?".to_owned(), |t| t.to_string());
    match output {
        Output::Round(r) => {
            let mut notes = String::new();
            if r.player_pair == Some(true) {
                notes.push_str("  player pair");
            }
            if r.banker_pair == Some(true) {
                notes.push_str("  banker pair");
            }
            if !r.complete {
                notes.push_str("  (unfinished)");
            }
            if r.no_bets {
                notes.push_str("  (no bets, 12.1(b))");
            }
            if r.partial {
                notes.push_str("  (partial shoe)");
            }
            format!(
                "shoe {} round {:>2}  player {:<9} = {}  banker {:<9} = {}  {:<7} seq {}-{}{notes}\n",
                r.shoe,
                r.round,
                r.player.to_string(),
                total(r.player_total),
                r.banker.to_string(),
                total(r.banker_total),
                r.outcome.map_or("unknown".to_owned(), |o| o.to_string()),
                r.first_seq,
                r.last_seq,
            )
        }
        Output::Irregularity(i) => {
            let place = match i.round {
                Some(round) => format!("shoe {} round {round}", i.shoe),
                None => format!("shoe {}, outside a round", i.shoe),
            };
            let evidence: Vec<String> = i.evidence.iter().map(u64::to_string).collect();
            format!(
                "!! {} {} ({place}, seq {})\n   rule:     {} {}\n   evidence: seq {}\n   {}\n",
                i.severity.name().to_uppercase(),
                i.code,
                i.seq,
                book.id(),
                i.rule,
                evidence.join(", "),
                pitwatch_report::untrusted::continued(&i.message, "   ")
            )
        }
        Output::Shoe(s) => format!(
            "== shoe {}: {} rounds, {} cards{}{}{}\n",
            s.shoe,
            s.rounds,
            s.cards,
            if s.partial {
                ", partial (joined mid-shoe)"
            } else {
                ""
            },
            if s.continuous {
                ", continuous shuffler"
            } else {
                ""
            },
            if s.open_device_errors > 0 {
                format!(", {} device error(s) still open", s.open_device_errors)
            } else {
                String::new()
            }
        ),
        Output::DeviceErrorCleared(c) => format!(
            "   device error {} cleared (raised at seq {}, cleared at seq {})\n",
            c.code, c.raised_seq, c.seq
        ),
    }
}

/// Puts a Baccarat engine's view of the table on its tile: the shoe's counts, the cutting card,
/// the burn and the coup on the table.
pub(crate) fn show_view(shown: &mut super::Shown, view: &pitwatch_baccarat::TableView) {
    use super::TablePlay;
    if !matches!(shown.play, TablePlay::Baccarat(_)) {
        shown.play = TablePlay::Baccarat(BaccaratPlay::default());
    }
    shown.shoe = view.shoe;
    shown.cards_dealt = view.cards_dealt;
    shown.cards_left = view.cards_left;
    shown.cutting_card_out = view.cutting_card_out;
    let TablePlay::Baccarat(play) = &mut shown.play else {
        return;
    };
    // The roads are one shoe's: another shoe starts them afresh.
    play.rounds.retain(|r| r.shoe == view.shoe);
    play.burn_due = view.burn.status != pitwatch_rules::BurnStatus::NotExpected;
    play.burn_done = view.burn.done();
    play.current = match (&view.round, &view.last_round) {
        (Some(round), _) => LiveRound {
            round: round.number,
            player: cards(&round.player),
            banker: cards(&round.banker),
            result: None,
        },
        (None, Some(record)) if record.shoe == view.shoe => {
            let result = round_result(record);
            LiveRound {
                round: record.round,
                player: result.player.clone(),
                banker: result.banker.clone(),
                result: Some(result),
            }
        }
        (None, _) => LiveRound::default(),
    };
}

/// Takes a completed coup into the shoe's coups (the roads).
pub(crate) fn take_round(play: &mut BaccaratPlay, record: &RoundRecord) {
    // The roads are one shoe's: a round of another shoe starts them afresh.
    play.rounds
        .retain(|r| r.shoe == record.shoe && r.round != record.round);
    play.rounds.push(round_result(record));
}
