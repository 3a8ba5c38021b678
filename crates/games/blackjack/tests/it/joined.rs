//! A table joined mid-round after a restart: honest shoes dealt by the dealer simulator are cut
//! at every position (the monitor stopped listening there), and the round under way when it
//! listened again is followed as joined: honest play raises nothing after the cut, and a fault
//! dealt in a round after the joined one is still exactly one incident, in that round. With and
//! without "no more bets" and boxes put in play, so the table's boundaries and the game's own
//! ([`pitwatch_rules::RoundGame::begins_round`] of a joined round) are both exercised.

use pitwatch_blackjack::dealer::{deal, Config, Dealt, Fault};
use pitwatch_blackjack::{Book, Engine, Output};
use pitwatch_model::{EventKind, TableEvent};
use pitwatch_rules::{Game, Irregularity, Phase};
use proptest::prelude::*;

/// Runs `events` through a fresh engine, interrupting before the event at index `cut`; every
/// output, and whether the view showed the table joining right after the cut.
fn run(book: &Book, events: &[TableEvent], cut: usize) -> (Vec<Output>, bool) {
    let mut engine = Engine::new(book.clone());
    let mut out = Vec::new();
    let mut joining = false;
    for (i, event) in events.iter().enumerate() {
        if i == cut {
            engine.interrupt();
        }
        engine.handle_event(event);
        if i == cut {
            joining = engine.view().phase == Phase::Joining;
        }
        out.extend(std::iter::from_fn(|| engine.poll_output()));
    }
    engine.finish();
    out.extend(std::iter::from_fn(|| engine.poll_output()));
    (out, joining)
}

fn irregularities(outputs: &[Output]) -> Vec<&Irregularity> {
    outputs
        .iter()
        .filter_map(|o| match o {
            Output::Irregularity(i) => Some(i),
            _ => None,
        })
        .collect()
}

/// Whether `kind` is an event of a round (a card to a box or the dealer, a decision).
fn of_a_round(kind: &EventKind) -> bool {
    matches!(
        kind,
        EventKind::CardDrawn {
            target: Some(_),
            ..
        } | EventKind::Decision { .. }
    )
}

/// The stream without "no more bets" (a table that does not report them), renumbered.
fn without_bets(events: &[TableEvent]) -> Vec<TableEvent> {
    events
        .iter()
        .filter(|e| !matches!(e.kind, EventKind::BetsClosed))
        .enumerate()
        .map(|(i, e)| TableEvent::new(i as u64 + 1, e.kind.clone()))
        .collect()
}

/// The index of the first event of each round of `events`: its "no more bets", or, in a stream
/// without them, its first event of a round after the round before it (found from `with_bets`,
/// the same stream with them).
fn round_starts(with_bets: &[TableEvent], bets: bool) -> Vec<usize> {
    let mut starts = Vec::new();
    let mut removed = 0;
    for (i, e) in with_bets.iter().enumerate() {
        if matches!(e.kind, EventKind::BetsClosed) {
            // The event after it in the stream without bets is at the same index.
            starts.push(if bets { i } else { i - removed });
            removed += 1;
        }
    }
    starts
}

fn books() -> [Book; 2] {
    [Book::nz_blackjack(), Book::nz_pontoon()]
}

fn dealt(book: &Book, seed: u64, declare_boxes: bool, faults: Vec<(Fault, u32)>) -> Dealt {
    deal(
        book,
        &Config {
            seed,
            shoes: 1,
            boxes: 1 + (seed % 7) as u8,
            declare_boxes,
            report_stands: seed % 2 == 0,
            faults,
            ..Config::default()
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(6))]

    #[test]
    fn honest_play_cut_anywhere_raises_nothing_after_the_cut(
        seed in 1u64..10_000,
        declare_boxes in any::<bool>(),
        bets in any::<bool>(),
    ) {
        for book in books() {
            let dealt = dealt(&book, seed, declare_boxes, Vec::new());
            let events = if bets { dealt.events.clone() } else { without_bets(&dealt.events) };
            let (whole, _) = run(&book, &events, usize::MAX);
            prop_assert!(irregularities(&whole).is_empty(), "{}: honest play flagged", book.id);
            let mut joined = 0;
            for cut in 1..events.len() {
                let (outputs, joining) = run(&book, &events, cut);
                let flagged = irregularities(&outputs);
                prop_assert!(
                    flagged.is_empty(),
                    "{} seed {seed} declare {declare_boxes} bets {bets}, cut before seq {}: {:#?}",
                    book.id,
                    events[cut].seq,
                    flagged
                );
                joined += usize::from(joining && of_a_round(&events[cut].kind));
            }
            prop_assert!(joined > 0, "{}: no cut joined a round", book.id);
        }
    }

    #[test]
    fn a_fault_after_the_joined_round_is_still_exactly_one_incident(
        seed in 1u64..10_000,
        declare_boxes in any::<bool>(),
        bets in any::<bool>(),
        fault in proptest::sample::select(vec![
            Fault::DealerDrawsOnStand,
            Fault::DealerStandsShort,
            Fault::CardToEmptyBox,
            Fault::OutOfOrder,
            Fault::ForeignCard,
        ]),
    ) {
        for book in books() {
            let dealt = dealt(&book, seed, declare_boxes, vec![(fault, 6)]);
            let Some(at) = dealt.injected.first().copied() else {
                // The fault cannot show in this shoe (no dealer who must draw, one box, a
                // standard shoe for a foreign card).
                continue;
            };
            let events = if bets { dealt.events.clone() } else { without_bets(&dealt.events) };
            let starts = round_starts(&dealt.events, bets);
            let round = at.round as usize;
            prop_assume!(round >= 3 && round <= starts.len());
            let start = starts[round - 1];
            // The cut in one of the two rounds before, so the round under way when the table
            // listens again (the joined one) ends before the faulty one begins: with "no more
            // bets" that may be the faulty round's own; without, a round event of the round
            // before must come after the cut.
            let last = if bets {
                start
            } else {
                (0..start).rev().find(|&i| of_a_round(&events[i].kind)).unwrap_or(0)
            };
            for cut in starts[round - 3]..=last {
                let (outputs, _) = run(&book, &events, cut);
                let flagged = irregularities(&outputs);
                let label = format!(
                    "{} {} seed {seed} declare {declare_boxes} bets {bets} at round {}, cut before seq {}",
                    book.id,
                    fault.name(),
                    at.round,
                    events[cut].seq
                );
                prop_assert_eq!(flagged.len(), 1, "{}: {:#?}", label, flagged);
                let found = flagged[0];
                prop_assert!(
                    found.code == fault.code() || found.also.contains(fault.code()),
                    "{}: found {}",
                    label,
                    found.code
                );
                prop_assert!(found.seq >= events[start].seq, "{}: at seq {}", label, found.seq);
            }
        }
    }
}
