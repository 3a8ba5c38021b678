//! The carry into a shoe for Baccarat's rounds on the shared tracker (issue 27's staged step): a
//! table resumed with what was carried into a shoe ([`pitwatch_rules::TableCarry`], stored as
//! JSON), fed from that shoe's first event, gives the same outputs and views from there as the
//! table that followed the whole stream. Checked on simulated streams that declare results, with
//! and without "no more bets", honest and with a fault a result settles in a later shoe's first
//! rounds: when a round's irregularity is output depends on whether the rounds before had their
//! results (the table's count, carried).

use crate::judge::{configs, stream_name};
use pitwatch_baccarat::rounds::{output, shoe_rules, table};
use pitwatch_baccarat::{BaccaratCarry, BaccaratRounds, RuleBook};

use pitwatch_dealer::{deal, DealerConfig, FaultKind, FaultPlan};
use pitwatch_model::TableEvent;
use pitwatch_rules::{Table, TableCarry};
use serde_json::Value;

/// Each step's `seq`, outputs and view (as JSON).
type Steps = Vec<(u64, Vec<Value>, Value)>;

/// Each shoe started: its first event's index and the carry into it.
type Starts = Vec<(usize, TableCarry<BaccaratCarry>)>;

fn json<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).expect("serialises")
}

/// Runs `table` over `events[from..]`, then finishes: each step, the outputs of `finish`, and
/// for every shoe started on the way its first event's index and the carry into it.
fn run(
    mut table: Table<BaccaratRounds>,
    events: &[TableEvent],
    from: usize,
) -> (Steps, Vec<Value>, Starts) {
    let mut steps = Vec::new();
    let mut starts = Vec::new();
    let mut shoe = table.shoe();
    for (i, event) in events.iter().enumerate().skip(from) {
        table.handle_event(event);
        let outputs = std::iter::from_fn(|| table.poll_output())
            .map(|o| json(&output(o)))
            .collect();
        if table.shoe() != shoe {
            starts.push((i, table.shoe_carry().clone()));
            shoe = table.shoe();
        }
        steps.push((event.seq, outputs, json(&table.view())));
    }
    table.finish();
    let closing = std::iter::from_fn(|| table.poll_output())
        .map(|o| json(&output(o)))
        .collect();
    (steps, closing, starts)
}

/// Resumes at every shoe start after the first and compares with the whole stream; returns how
/// many shoes were resumed.
fn check(book: &RuleBook, events: &[TableEvent], name: &str) -> usize {
    let (whole, closing, starts) = run(table(book), events, 0);
    let mut resumed_shoes = 0;
    for (index, carry) in starts.iter().skip(1) {
        let stored = serde_json::to_string(carry).expect("the carry serialises");
        let carry = serde_json::from_str(&stored).expect("the carry reads back");
        let resumed = Table::resume(shoe_rules(book), BaccaratRounds::new(book), carry)
            .require_shuffle_steps(book.shuffle_steps().to_vec());
        let (steps, resumed_closing, _) = run(resumed, events, *index);
        let expected = &whole[*index..];
        assert_eq!(steps.len(), expected.len(), "{name}");
        // The first event's outputs may also close the shoe before; its view may not differ.
        assert_eq!(steps[0].2, expected[0].2, "{name}: view at event {index}");
        if let Some(at) = steps[1..]
            .iter()
            .zip(&expected[1..])
            .position(|(s, e)| s != e)
        {
            panic!(
                "{name}: resumed at event {index}, step {} differs:\n  resumed: {:?}\n  whole:   {:?}",
                at + 1,
                steps[at + 1],
                expected[at + 1]
            );
        }
        assert_eq!(resumed_closing, closing, "{name}: finish");
        resumed_shoes += 1;
    }
    resumed_shoes
}

#[test]
fn a_table_resumed_at_a_shoe_follows_declared_results_as_the_whole_stream_does() {
    let book = RuleBook::nz_baccarat();
    let mut resumed = 0;
    for config in configs().into_iter().filter(|c| c.declare_results) {
        let config = DealerConfig { shoes: 3, ..config };
        for kind in [
            None,
            Some(FaultKind::WrongDeclaredResult),
            Some(FaultKind::EarlyResult),
            Some(FaultKind::MissingThirdCard),
            Some(FaultKind::DeviceError),
        ] {
            if kind.is_some_and(|k| !k.injectable(&config)) {
                continue;
            }
            for (round, seed) in [(1, 1), (2, 7), (3, 11)] {
                let plans: Vec<FaultPlan> = kind
                    .map(|kind| FaultPlan {
                        kind,
                        shoe: 2,
                        round,
                    })
                    .into_iter()
                    .collect();
                let session = deal(&book.shoe_book(), &config, &plans, seed);
                let name = format!("{} {kind:?} at round {round}", stream_name(&config));
                resumed += check(&book, &session.events, &name);
            }
        }
    }
    assert!(resumed > 100, "{resumed} shoes resumed");
}
