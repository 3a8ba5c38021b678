//! Blackjack and Pontoon at the boundary: the table's play on its tile (the round on the felt and
//! the shoe's last rounds), a round with its boxes and hands, a replay's step, and the
//! conversions from the engine's records and from a round as stored.

use serde::Serialize;
use ts_rs::TS;

use super::{card_codes, stored_codes};
use pitwatch_games::report::pays;

/// A Blackjack or Pontoon table's play.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct BlackjackPlay {
    /// The round being dealt (`complete: false`), else the last one completed in this shoe.
    pub current: Option<BlackjackRound>,
    /// The rounds completed in this shoe, oldest first: at most [`BLACKJACK_ROUNDS_KEPT`].
    pub rounds: Vec<BlackjackRound>,
}

/// How many of a shoe's completed rounds a Blackjack tile carries (a tile is sent on every
/// change; the record keeps them all).
pub const BLACKJACK_ROUNDS_KEPT: usize = 12;

/// A Blackjack or Pontoon round as the window shows it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct BlackjackRound {
    /// The shoe.
    pub shoe: u32,
    /// The round, 1-based within the shoe.
    pub round: u32,
    /// The dealer's cards, as codes like `TD` (`null`: unreadable).
    pub dealer: Vec<Option<String>>,
    /// The dealer's total, if known.
    pub dealer_total: Option<u8>,
    /// Whether the dealer's total is soft (an ace counted 11).
    pub dealer_soft: bool,
    /// Whether the dealer's first two cards are a blackjack.
    pub dealer_blackjack: bool,
    /// The boxes in play, by number.
    pub boxes: Vec<BlackjackBox>,
    /// Whether the round is settled (every hand and the dealer finished by the rules).
    pub complete: bool,
    /// `seq` of the round's first event.
    pub first_seq: u64,
    /// `seq` of its last card.
    pub last_seq: u64,
}

/// One box of a Blackjack or Pontoon round.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct BlackjackBox {
    /// The box number.
    pub number: u8,
    /// Its hands (more than one after a split).
    pub hands: Vec<BlackjackHand>,
    /// Its side bets as the cards settle them (Super Sevens, insurance).
    pub side_bets: Vec<SideBetResult>,
}

/// One hand of a box.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct BlackjackHand {
    /// The cards in deal order.
    pub cards: Vec<Option<String>>,
    /// The total, if known.
    pub total: Option<u8>,
    /// Whether an ace counts 11.
    pub soft: bool,
    /// Whether the hand doubled.
    pub doubled: bool,
    /// Whether it came from a split.
    pub split: bool,
    /// The outcome, once settled.
    pub outcome: Option<HandOutcome>,
    /// What it won or lost in units of the box's wager, signed (`+1.5`, `-2`, `0`), once settled.
    pub pays: Option<String>,
    /// The rule that settled it (`5.1(b)`, or the bonus paid).
    pub rule: Option<String>,
}

/// A Blackjack or Pontoon hand's outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum HandOutcome {
    /// A natural paid at the natural's odds.
    Blackjack,
    /// Won.
    Win,
    /// Lost.
    Lose,
    /// A stand off.
    Push,
    /// Surrendered (half the wager lost).
    Surrender,
}

/// A side bet as the cards settle it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SideBetResult {
    /// `super_sevens` or `insurance`.
    pub bet: String,
    /// Super Sevens: sevens in a row from the box's first card.
    pub sevens: Option<u8>,
    /// Super Sevens: whether they are of one suit.
    pub suited: Option<bool>,
    /// What it won or lost per unit staked, signed, if known.
    pub pays: Option<String>,
}

/// A Blackjack or Pontoon table just after an event of a replay.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct BlackjackStep {
    /// The round being dealt, if one is.
    pub round: Option<BlackjackRound>,
    /// The round this event completed, if it did.
    pub completed: Option<BlackjackRound>,
}

/// A Blackjack or Pontoon table as a replay's step shows it: the round on the table (the one
/// being dealt, else the shoe's last, as the live tile shows it) and the one completed.
pub fn replay_step(play: &BlackjackPlay, completed: Option<BlackjackRound>) -> BlackjackStep {
    BlackjackStep {
        round: play.current.clone(),
        completed,
    }
}

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

/// A Blackjack or Pontoon round as stored, read back tolerantly.
pub(crate) fn stored_round(v: &serde_json::Value) -> BlackjackRound {
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

/// Cards in one line (`??`: unreadable).
fn cards_text(cards: &[Option<pitwatch_model::Card>]) -> String {
    cards
        .iter()
        .map(|c| c.map_or_else(|| "??".to_owned(), |c| c.to_string()))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A round in one line, for a terminal (`pitwatch replay`, `pitwatch monitor`).
pub fn round_line(r: &pitwatch_blackjack::RoundRecord) -> String {
    let total = |t: Option<u8>| t.map_or_else(|| "?".to_owned(), |t| t.to_string());
    let mut line = format!(
        "{}.{:<3} dealer {} = {}{}",
        r.shoe,
        r.round,
        cards_text(r.dealer.as_slice()),
        total(r.dealer_total),
        if r.dealer_blackjack {
            " (blackjack)"
        } else {
            ""
        }
    );
    for b in &r.boxes {
        for (i, h) in b.hands.iter().enumerate() {
            let outcome = h.outcome.map_or_else(
                || "unsettled".to_owned(),
                |o| {
                    serde_json::to_value(o)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_owned))
                        .unwrap_or_default()
                },
            );
            line.push_str(&format!(
                " | box {}{}: {} = {}{} {outcome} {}",
                b.number,
                if b.hands.len() > 1 {
                    format!(".{}", i + 1)
                } else {
                    String::new()
                },
                cards_text(h.cards.as_slice()),
                total(h.total),
                if h.doubled { " doubled" } else { "" },
                h.pays.map_or_else(|| "?".to_owned(), |p| format!("{p:+}")),
            ));
        }
    }
    if !r.complete {
        line.push_str(" (incomplete)");
    }
    line
}

/// The first line of `pitwatch replay`'s text report under a Blackjack or Pontoon book.
pub(crate) fn report_header(book: &pitwatch_blackjack::Book) -> String {
    format!("rule book {}: {}", book.id, book.title)
}

/// The closing line of a Blackjack or Pontoon replay's text report.
pub(crate) fn report_totals(totals: &super::terminal::Totals) -> String {
    format!(
        "total: {} shoes, {} rounds, {} irregularities",
        totals.shoes,
        totals.rounds,
        totals.irregularities()
    )
}

/// One output of a Blackjack or Pontoon table as `pitwatch replay` prints it: a line per round
/// (as [`round_line`]), shoe summary and cleared device error, a block per irregularity (each
/// line ended).
pub(crate) fn output_text(
    output: &pitwatch_rules::TableOutput<&pitwatch_blackjack::RoundRecord>,
) -> String {
    use pitwatch_rules::TableOutput;
    match output {
        TableOutput::Round(r) => format!("{}\n", round_line(r)),
        TableOutput::Irregularity(i) => format!(
            "!! {} ({}) shoe {} round {} seq {}: {}\n   rule: {} ({})\n",
            i.code,
            i.severity,
            i.shoe,
            i.round.map_or_else(|| "-".to_owned(), |r| r.to_string()),
            i.seq,
            pitwatch_report::untrusted::continued(&i.message, ""),
            i.rule,
            i.rule_book
        ),
        TableOutput::Shoe(s) => format!(
            "== shoe {}: {} rounds, {} cards{}\n",
            s.shoe,
            s.rounds,
            s.cards,
            if s.partial { " (partial)" } else { "" }
        ),
        TableOutput::DeviceErrorCleared(c) => {
            format!("   device error {} cleared (seq {})\n", c.code, c.seq)
        }
    }
}

/// Puts a Blackjack or Pontoon engine's view of the table on its tile: the shoe's counts, the
/// cutting card and the round on the felt (else the shoe's last).
pub(crate) fn show_view(shown: &mut super::Shown, view: &pitwatch_blackjack::View) {
    use super::TablePlay;
    shown.shoe = view.shoe;
    shown.cards_dealt = view.cards_dealt;
    shown.cards_left = view.cards_left;
    shown.cutting_card_out = view.cutting_card_out;
    if !matches!(shown.play, TablePlay::Blackjack(_)) {
        shown.play = TablePlay::Blackjack(BlackjackPlay::default());
    }
    let TablePlay::Blackjack(play) = &mut shown.play else {
        return;
    };
    // The rounds are one shoe's: another shoe starts them afresh.
    play.rounds.retain(|r| r.shoe == view.shoe);
    play.current = match (&view.round, &view.last_round) {
        (Some(round), _) => Some(blackjack_round(round)),
        (None, Some(last)) if last.shoe == view.shoe => Some(blackjack_round(last)),
        (None, _) => None,
    };
}

/// Takes a completed round into the shoe's last rounds (at most [`BLACKJACK_ROUNDS_KEPT`]).
pub(crate) fn take_round(play: &mut BlackjackPlay, record: &pitwatch_blackjack::RoundRecord) {
    play.rounds
        .retain(|r| r.shoe == record.shoe && r.round != record.round);
    play.rounds.push(blackjack_round(record));
    let extra = play.rounds.len().saturating_sub(BLACKJACK_ROUNDS_KEPT);
    play.rounds.drain(..extra);
}
