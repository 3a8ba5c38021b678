//! The confusion matrix of Blackjack's and Pontoon's fault injection: for every book, every fault
//! the book allows and every way a table reports (boxes declared or not, stands reported or
//! not, the hands within a box named by the cards or not), `--per N` streams of three shoes (default 100) from the honest dealer simulator with that
//! one fault at a round, replayed through the engine. Prints what was raised as the Markdown table
//! in `docs/irregularities.md`, and every case that broke the rules of the test: one injected
//! fault must be one incident, at its round, with the fault's code (or that code merged into it),
//! and every hand of every other round settled as the dealer reckons.
//!
//! ```text
//! cargo run --release -p pitwatch-blackjack --example fault_matrix -- [--per N]
//! ```

use std::collections::BTreeMap;

use pitwatch_blackjack::dealer::{deal, Config, Dealt, Fault};
use pitwatch_blackjack::{replay, Book, Output};

/// The ways a table reports a round: (boxes declared, stands reported, hands named, column
/// name).
const STREAMS: &[(bool, bool, bool, &str)] = &[
    (true, true, false, "declared, stands reported"),
    (true, false, false, "declared, stands unreported"),
    (false, false, false, "undeclared, stands unreported"),
    (
        false,
        false,
        true,
        "undeclared, stands unreported, hands named",
    ),
];

/// What one case gave: its cell label, and what broke the test's rules.
fn verdict(book: &Book, dealt: &Dealt, outputs: &[Output]) -> (String, Vec<String>) {
    let Some(at) = dealt.injected.first() else {
        return ("not injected".into(), Vec::new());
    };
    let mut problems = Vec::new();
    let found: Vec<_> = outputs
        .iter()
        .filter_map(|o| match o {
            Output::Irregularity(i) => Some(i),
            _ => None,
        })
        .collect();
    let round = (at.round > 0).then_some(at.round);
    let mut labels = Vec::new();
    for i in &found {
        let mut label = i.code.to_string();
        if !i.also.is_empty() {
            let also: Vec<String> = i.also.iter().map(|c| c.to_string()).collect();
            label.push_str(&format!(" (+{})", also.join(", ")));
        }
        if (i.shoe, i.round) != (at.shoe, round) {
            label = format!("elsewhere: {label}");
        }
        labels.push(label);
    }
    let code = at.fault.code();
    match found.as_slice() {
        [one]
            if (one.shoe, one.round) == (at.shoe, round)
                && (one.code == code || one.also.contains(code)) => {}
        _ => problems.push(format!(
            "{} incident(s): {}",
            found.len(),
            labels.join("; ")
        )),
    }
    // Every hand dealt without the fault is settled as the dealer reckons.
    let rounds: Vec<_> = outputs
        .iter()
        .filter_map(|o| match o {
            Output::Round(r) => Some(r),
            _ => None,
        })
        .collect();
    for e in &dealt.expected {
        let hand = rounds
            .iter()
            .find(|r| r.shoe == e.shoe && r.round == e.round)
            .and_then(|r| r.boxes.iter().find(|b| b.number == e.box_number))
            .and_then(|b| b.hands.get(e.hand));
        if hand.is_none_or(|h| h.outcome != Some(e.outcome) || h.pays != Some(e.pays)) {
            problems.push(format!(
                "{}: round {}.{} box {} hand {} not settled as dealt",
                book.id,
                e.shoe,
                e.round,
                e.box_number,
                e.hand + 1
            ));
        }
    }
    let label = if labels.is_empty() {
        "—".to_owned()
    } else {
        labels.join("; ")
    };
    (label, problems)
}

fn main() {
    let mut per = 100u64;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--per" => {
                per = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .expect("--per N (a number)");
            }
            other => {
                eprintln!("unknown argument {other}: use --per N");
                std::process::exit(2);
            }
        }
    }
    let books = [Book::nz_blackjack(), Book::nz_pontoon()];
    let columns: Vec<String> = books
        .iter()
        .flat_map(|b| STREAMS.iter().map(move |s| format!("{}: {}", b.id, s.3)))
        .collect();
    // fault -> column -> label -> count
    let mut matrix: BTreeMap<&str, BTreeMap<usize, BTreeMap<String, u64>>> = BTreeMap::new();
    let (mut cases, mut failed) = (0u64, 0u64);
    let started = std::time::Instant::now();
    for (bi, book) in books.iter().enumerate() {
        for (si, &(declare_boxes, report_stands, name_hands, _)) in STREAMS.iter().enumerate() {
            for &fault in Fault::ALL {
                // An unsettled insurance needs every hand bust beside an insured box: likeliest
                // with one box in play and every box insuring.
                let rare = fault == Fault::InsuranceUnsettled;
                // A split-hand fault needs a split (aces and eights): more shoes to find one.
                let splits = matches!(
                    fault,
                    Fault::SplitHandOutOfTurn | Fault::CardToFinishedSplitHand
                );
                for seed in 1..=per {
                    let config = Config {
                        seed: seed.wrapping_mul(0x9E37_79B9) ^ (bi * 8 + si) as u64,
                        shoes: if rare || splits { 6 } else { 3 },
                        boxes: if rare { 1 } else { 7 },
                        declare_boxes,
                        report_stands,
                        // A round of the first two shoes: never the stream's last round, whose
                        // end (the end of the capture) is a cut-off, not a round's close.
                        faults: vec![(fault, 2 + (seed * 7919 % 16) as u32)],
                        insurance_every: if rare { 1 } else { 3 },
                        name_hands,
                    };
                    if !fault.can_show(book, &config) {
                        continue;
                    }
                    let dealt = deal(book, &config);
                    let outputs = replay(book, &dealt.events);
                    let (label, problems) = verdict(book, &dealt, &outputs);
                    cases += 1;
                    if !problems.is_empty() && label != "not injected" {
                        failed += 1;
                        eprintln!(
                            "FAIL {} in {} (seed {}): {}",
                            fault.name(),
                            columns[bi * STREAMS.len() + si],
                            config.seed,
                            problems.join("; ")
                        );
                    }
                    *matrix
                        .entry(fault.name())
                        .or_default()
                        .entry(bi * STREAMS.len() + si)
                        .or_default()
                        .entry(label)
                        .or_default() += 1;
                }
            }
        }
    }
    println!("| injected fault | {} |", columns.join(" | "));
    println!("|---|{}", "---|".repeat(columns.len()));
    for (fault, row) in &matrix {
        let cells: Vec<String> = (0..columns.len())
            .map(|c| match row.get(&c) {
                None => "n/a".to_owned(),
                Some(labels) => {
                    let total: u64 = labels.values().sum();
                    let mut by_count: Vec<_> = labels.iter().collect();
                    by_count.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
                    by_count
                        .iter()
                        .map(|(label, n)| format!("{label} {n}/{total}"))
                        .collect::<Vec<_>>()
                        .join("<br>")
                }
            })
            .collect();
        println!("| `{fault}` | {} |", cells.join(" | "));
    }
    println!(
        "\n{cases} streams (three shoes each; six for insurance_unsettled and the split-hand faults), {failed} failed, {:.1} s",
        started.elapsed().as_secs_f64()
    );
}
