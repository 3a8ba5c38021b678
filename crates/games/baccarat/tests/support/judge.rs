//! Differential fault injection: deal a shoe with exactly one fault, replay its events through
//! the rules engine, and compare what the engine says with what the dealer did.
//!
//! [`run`] checks one case: the engine raises one irregularity whose code is one the fault can
//! show in that stream ([`FaultKind::outcomes`]), at the fault's shoe and round (or none, where
//! the stream cannot show it), and every round other than the faulted one is exactly the round
//! the cards physically gave (code, cards, totals, outcome, pairs, first and last `seq`). The
//! property test (`tests/it/differential.rs`) runs thousands of such cases; [`Matrix`] tallies
//! what was raised for each kind of fault and stream (the confusion matrix in
//! `docs/irregularities.md`, written by
//! `cargo run --release -p pitwatch-baccarat --example baccarat_fault_matrix`).
//!
//! The dealer (`pitwatch-dealer`, this crate's dev-dependency) knows no Baccarat code: its rounds
//! ([`DealtRound`]) are counted by its own code, and [`record`] only copies them into the
//! engine's [`RoundRecord`] shape to compare. Shared by the tests and the examples
//! (`#[path]`-included).
//!
//! One tolerance, where the stream itself cannot tell: a plain shoe that sees a card between
//! rounds reads it as 12.1(b), the first card of the next round, unless the next round's cards
//! show it was set aside (the round is one card too long, or only the cards after it make a
//! round, or only they give the declared result). When both readings fit, the next round may be
//! read with the card in it; that round is then not compared.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use pitwatch_baccarat::{replay, Hand, Output, RoundRecord, RuleBook};
use pitwatch_dealer::{
    deal, tableau, DealerConfig, DealtRound, FaultKind, FaultPlan, InjectedFault, Mode, Session,
};
use pitwatch_model::{Card, EventKind};
use pitwatch_rules::{CodeSet, IrregularityCode};

/// The dealer's round in the engine's shape, every field copied (the dealer's cards are all
/// readable, so every total, winner and pair is known; a dealt round is complete).
pub fn record(r: &DealtRound) -> RoundRecord {
    RoundRecord {
        shoe: r.shoe,
        round: r.round,
        player: Hand::of(&r.player),
        banker: Hand::of(&r.banker),
        player_total: Some(r.player_total),
        banker_total: Some(r.banker_total),
        outcome: Some(r.outcome),
        player_pair: Some(r.player_pair),
        banker_pair: Some(r.banker_pair),
        first_seq: r.first_seq,
        last_seq: r.last_seq,
        complete: true,
        partial: false,
        no_bets: false,
    }
}

/// The session's rounds as the cards fell, in the engine's shape ([`record`]).
pub fn truth(session: &Session) -> Vec<RoundRecord> {
    session.rounds.iter().map(record).collect()
}

/// The stream configurations the differential test deals: with or without targets, "no more
/// bets", declared results and the device's burn count.
pub fn configs() -> Vec<DealerConfig> {
    let mut all = Vec::new();
    for mode in [Mode::Targets, Mode::Plain] {
        for bits in 0..8u8 {
            all.push(DealerConfig {
                mode,
                shoes: 2,
                bets_closed: bits & 1 != 0,
                declare_results: bits & 2 != 0,
                report_burn_count: bits & 4 != 0,
                ..DealerConfig::angel_eye()
            });
        }
    }
    all
}

/// A short name for the stream a configuration deals, e.g. `plain, bets closed, results`.
pub fn stream_name(config: &DealerConfig) -> String {
    let mut name = match config.mode {
        Mode::Targets => "targets".to_owned(),
        Mode::Plain => "plain".to_owned(),
    };
    for (on, what) in [
        (config.bets_closed, "bets closed"),
        (config.declare_results, "results"),
        (config.report_burn_count, "burn count"),
    ] {
        if on {
            name.push_str(", ");
            name.push_str(what);
        }
    }
    name
}

/// What one case gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// The fault as injected, or `None` if no round of the shoe suited it.
    pub injected: Option<InjectedFault>,
    /// What the engine raised: code, the codes merged into it, shoe and round.
    pub raised: Vec<Raised>,
    /// Everything that differs from what the fault allows; empty when the case passes.
    pub problems: Vec<String>,
}

/// One irregularity as the engine raised it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Raised {
    /// Its code.
    pub code: IrregularityCode,
    /// Further findings merged into it.
    pub also: CodeSet,
    /// Its shoe.
    pub shoe: u32,
    /// Its round.
    pub round: Option<u32>,
}

impl Verdict {
    /// The outcome as a matrix cell names it: `—` for nothing, else the codes raised (with what
    /// was merged into each in brackets).
    pub fn label(&self) -> String {
        if self.raised.is_empty() {
            return "—".to_owned();
        }
        self.raised
            .iter()
            .map(|r| {
                if r.also.is_empty() {
                    r.code.to_string()
                } else {
                    let also: Vec<String> = r.also.iter().map(|c| c.to_string()).collect();
                    format!("{} (+{})", r.code, also.join(", "))
                }
            })
            .collect::<Vec<_>>()
            .join(" & ")
    }
}

/// The round as judged, without the engine's own flags (complete, partial, no bets).
fn key(r: &RoundRecord) -> RoundRecord {
    RoundRecord {
        complete: true,
        partial: false,
        no_bets: false,
        ..*r
    }
}

/// Deals two shoes under `book` with one fault of `kind` planned at `round` of shoe 1, replays
/// them, and judges the engine's outputs against the dealer's truth.
pub fn run(
    book: &RuleBook,
    config: &DealerConfig,
    kind: FaultKind,
    round: u32,
    seed: u64,
) -> Verdict {
    let plan = FaultPlan {
        kind,
        shoe: 1,
        round,
    };
    let session = deal(&book.shoe_book(), config, &[plan], seed);
    let dealt = truth(&session);
    let outputs = replay(book, &session.events);
    let mut rounds = Vec::new();
    let mut raised = Vec::new();
    let mut flagged = Vec::new();
    for output in &outputs {
        match output {
            Output::Round(r) => rounds.push(*r),
            Output::Irregularity(i) => {
                raised.push(Raised {
                    code: i.code,
                    also: i.also,
                    shoe: i.shoe,
                    round: i.round,
                });
                flagged.push(i.clone());
            }
            _ => {}
        }
    }
    let mut problems = Vec::new();
    let Some(fault) = session.faults.first().copied() else {
        if !flagged.is_empty() {
            problems.push(format!("nothing injected, yet raised {flagged:#?}"));
        }
        return Verdict {
            injected: None,
            raised,
            problems,
        };
    };
    if session.faults.len() != 1 {
        problems.push(format!("{} faults injected", session.faults.len()));
    }

    // What was raised.
    let outcomes = kind.outcomes(config);
    match flagged.as_slice() {
        [] if outcomes.contains(&None) => {}
        [] => problems.push(format!("nothing raised; expected one of {outcomes:?}")),
        [one] => {
            if !outcomes.contains(&Some(one.code)) {
                problems.push(format!(
                    "raised {} (also {:?}); expected one of {outcomes:?}",
                    one.code, one.also
                ));
            }
            if one.shoe != fault.shoe || one.round != fault.round {
                problems.push(format!(
                    "raised at shoe {} round {:?}; injected at shoe {} round {:?}",
                    one.shoe, one.round, fault.shoe, fault.round
                ));
            }
            if !one.evidence.contains(&one.seq) {
                problems.push(format!("evidence {:?} lacks seq {}", one.evidence, one.seq));
            }
        }
        many => problems.push(format!(
            "{} irregularities for one fault: {}",
            many.len(),
            many.iter()
                .map(|i| format!(
                    "{} at {}.{:?} seq {}: {}",
                    i.code, i.shoe, i.round, i.seq, i.message
                ))
                .collect::<Vec<_>>()
                .join(" | ")
        )),
    }

    // Every round but the faulted one is the true round, numbered as the table numbered it.
    let faulted = |r: &RoundRecord| r.shoe == fault.shoe && Some(r.round) == fault.round;
    let tolerated = ambiguous_next_round(config, &session.events, &dealt, &flagged, &fault);
    let compared = |r: &RoundRecord| !faulted(r) && Some((r.shoe, r.round)) != tolerated;
    let engine: Vec<RoundRecord> = rounds.iter().filter(|r| compared(r)).map(key).collect();
    let truth: Vec<RoundRecord> = dealt.iter().filter(|r| compared(r)).map(key).collect();
    if engine != truth {
        let at = engine
            .iter()
            .zip(&truth)
            .position(|(e, t)| e != t)
            .unwrap_or(engine.len().min(truth.len()));
        problems.push(format!(
            "rounds differ from the truth at the {at}th compared ({} by the engine, {} true): engine {:?}, truth {:?}",
            engine.len(),
            truth.len(),
            engine.get(at),
            truth.get(at)
        ));
    }
    if fault.round.is_some() && !rounds.iter().any(faulted) {
        problems.push(format!(
            "the engine has no round {:?} in shoe {}",
            fault.round, fault.shoe
        ));
    }
    Verdict {
        injected: Some(fault),
        raised,
        problems,
    }
}

/// The round after the faulted one, when a plain shoe saw a card between the two and both
/// readings of it fit: the first card of that round (12.1(b)) or a card set aside. Then the
/// stream cannot tell which, and the engine reads 12.1(b).
fn ambiguous_next_round(
    config: &DealerConfig,
    events: &[pitwatch_model::TableEvent],
    truth: &[RoundRecord],
    flagged: &[pitwatch_rules::Irregularity],
    fault: &InjectedFault,
) -> Option<(u32, u32)> {
    if config.mode != Mode::Plain {
        return None;
    }
    let between = flagged
        .iter()
        .find(|i| i.code == IrregularityCode::UnauthorisedThirdCard)?;
    let round = fault.round?;
    let next = truth
        .iter()
        .find(|r| r.shoe == fault.shoe && r.round == round + 1)?;
    let card = events.iter().find_map(|e| match e.kind {
        EventKind::CardDrawn { card, .. } if e.seq == between.seq => Some(card),
        _ => None,
    })?;
    let mut cards: Vec<Option<Card>> = vec![card];
    cards.extend(plain_order(next));
    let (player, banker, complete) = tableau::play(&cards)?;
    if !complete {
        return None;
    }
    let hands = (hand(&cards, &player, 0), hand(&cards, &banker, 1));
    if config.declare_results {
        let with = RoundRecord::from_hands(next.shoe, next.round, hands.0, hands.1);
        if with.outcome != next.outcome {
            return None;
        }
    }
    Some((next.shoe, next.round))
}

/// A round's cards in the order a plain shoe deals them: P1, B1, P2, B2, P3, B3.
fn plain_order(r: &RoundRecord) -> Vec<Option<Card>> {
    let mut cards = Vec::new();
    for (hand, i) in [
        (&r.player, 0),
        (&r.banker, 0),
        (&r.player, 1),
        (&r.banker, 1),
        (&r.player, 2),
        (&r.banker, 2),
    ] {
        if let Some(card) = hand.card(i) {
            cards.push(card);
        }
    }
    cards
}

/// The hand of a round played from `cards` (deal order) that got `points`, `side` 0 for the
/// Player and 1 for the Banker: cards 1 and 3 or 2 and 4, then its third card (the fifth card
/// for the Player; for the Banker the fifth or, when the Player drew, the sixth).
fn hand(cards: &[Option<Card>], points: &[u8], side: usize) -> Hand {
    let mut hand = Hand::new();
    hand.push(cards[side]);
    hand.push(cards[side + 2]);
    if points.len() == 3 {
        let player_drew = side == 1 && cards.len() == 6;
        hand.push(cards[4 + usize::from(player_drew)]);
    }
    hand
}

/// The confusion matrix: for each fault kind and stream, how often each outcome was raised.
#[derive(Debug, Clone, Default)]
pub struct Matrix {
    cells: BTreeMap<(usize, String), BTreeMap<String, u32>>,
    streams: Vec<String>,
    failures: u32,
    cases: u32,
}

/// The stream a matrix column pools: targets (every variant), or a plain shoe by the round
/// boundaries it reports.
pub fn column(config: &DealerConfig) -> String {
    match (config.mode, config.bets_closed, config.declare_results) {
        (Mode::Targets, _, _) => "targets".to_owned(),
        (Mode::Plain, true, true) => "plain, bets closed and results".to_owned(),
        (Mode::Plain, true, false) => "plain, bets closed".to_owned(),
        (Mode::Plain, false, true) => "plain, results".to_owned(),
        (Mode::Plain, false, false) => "plain, neither".to_owned(),
    }
}

impl Matrix {
    /// Counts one case of `kind` in a stream dealt with `config`.
    pub fn add(&mut self, kind: FaultKind, config: &DealerConfig, verdict: &Verdict) {
        let stream = column(config);
        if !self.streams.contains(&stream) {
            self.streams.push(stream.clone());
        }
        let index = FaultKind::ALL.iter().position(|k| *k == kind).unwrap_or(0);
        let label = if verdict.injected.is_none() {
            "not injected".to_owned()
        } else {
            verdict.label()
        };
        *self
            .cells
            .entry((index, stream))
            .or_default()
            .entry(label)
            .or_default() += 1;
        self.cases += 1;
        self.failures += u32::from(!verdict.problems.is_empty());
    }

    /// Cases counted, and how many failed.
    pub fn totals(&self) -> (u32, u32) {
        (self.cases, self.failures)
    }

    /// The matrix as a Markdown table: a row per fault kind, a column per stream, each cell the
    /// outcomes raised with their share of the cases (`n/i`: not injected, the stream cannot be
    /// followed past the fault).
    pub fn to_markdown(&self) -> String {
        let mut out = String::new();
        let _ = write!(out, "| injected fault |");
        for stream in &self.streams {
            let _ = write!(out, " {stream} |");
        }
        out.push('\n');
        out.push_str("|---|");
        for _ in &self.streams {
            out.push_str("---|");
        }
        out.push('\n');
        for (index, kind) in FaultKind::ALL.iter().enumerate() {
            let _ = write!(out, "| `{}` |", kind.name());
            for stream in &self.streams {
                let cell = match self.cells.get(&(index, stream.clone())) {
                    None => "n/i".to_owned(),
                    Some(outcomes) => {
                        let total: u32 = outcomes.values().sum();
                        let mut parts: Vec<(u32, &String)> =
                            outcomes.iter().map(|(label, n)| (*n, label)).collect();
                        parts.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
                        parts
                            .iter()
                            .map(|(n, label)| format!("{label} {n}/{total}"))
                            .collect::<Vec<_>>()
                            .join("<br>")
                    }
                };
                let _ = write!(out, " {cell} |");
            }
            out.push('\n');
        }
        out
    }
}
