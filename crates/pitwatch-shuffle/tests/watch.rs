//! The watch on a dealt stream: the rules engine says where shoes start, the watch judges each
//! shoe when the next starts. A false shuffle keeping a slug raises `SHUFFLE_SUSPECT` with the
//! block's cards in both shoes as evidence; honest shoes do not; the orders the watch collects live
//! are the orders read back from the recorded events and shoe starts; a resumed watch judges as
//! the one that saw the whole stream.

use pitwatch_baccarat::{Engine, RuleBook};
use pitwatch_dealer::{deal_with, DealerConfig, ShuffleModel, Shuffling};
use pitwatch_model::{EventKind, TableEvent};
use pitwatch_rules::IrregularityCode;
use pitwatch_shuffle::{orders_from_events, ShoeShuffle, ShuffleWatch, Verdict};

/// Deals `shoes` shoes under `model` and runs them through the engine and a watch: the judged
/// shoes, the events and the shoe starts.
fn run(
    model: ShuffleModel,
    shoes: u32,
    seed: u64,
    config: DealerConfig,
) -> (Vec<ShoeShuffle>, Vec<TableEvent>, Vec<(u32, u64)>) {
    let book = RuleBook::nz_baccarat();
    let config = DealerConfig { shoes, ..config };
    let session = deal_with(
        &book.shoe_book(),
        &config,
        &[],
        seed,
        Shuffling {
            model,
            previous: None,
        },
    );
    let mut engine = Engine::new(book.clone());
    let mut watch = ShuffleWatch::new(book.shuffle_terms());
    let mut judged = Vec::new();
    let mut starts = Vec::new();
    for event in &session.events {
        let before = engine.shoe();
        engine.handle_event(event);
        watch.observe(event);
        if engine.shoe() != before {
            starts.push((engine.shoe(), event.seq));
            judged.extend(watch.shoe_started(engine.shoe(), event.seq));
        }
        while engine.poll_output().is_some() {}
    }
    (judged, session.events, starts)
}

#[test]
fn a_slug_raises_shuffle_suspect_with_the_block_in_both_shoes() {
    for config in [DealerConfig::angel_eye(), DealerConfig::barcode()] {
        let (judged, events, _) = run(ShuffleModel::Slug { cards: 20 }, 4, 5, config);
        // Shoes 1 to 3 are judged when 2 to 4 start.
        assert_eq!(judged.iter().map(|j| j.shoe).collect::<Vec<_>>(), [1, 2, 3]);
        assert_eq!(judged[0].analysis.verdict, Verdict::NotCompared);
        let suspect: Vec<&ShoeShuffle> = judged
            .iter()
            .filter(|j| j.analysis.verdict == Verdict::Suspect)
            .collect();
        assert!(!suspect.is_empty(), "a slug of 20 in shoes 2 and 3");
        for shoe in suspect {
            let irregularity = shoe.irregularity.as_ref().expect("raised");
            assert_eq!(irregularity.code, IrregularityCode::ShuffleSuspect);
            assert_eq!(irregularity.rule, "misdeal (b)");
            assert_eq!(irregularity.shoe, shoe.shoe);
            let run = shoe.analysis.run.as_ref().unwrap();
            assert!(run.length >= 10, "{run:?}");
            // The evidence is the block's card events in both shoes: the same cards, in order.
            let card_of = |seq: u64| {
                events
                    .iter()
                    .find(|e| e.seq == seq)
                    .and_then(|e| match e.kind {
                        EventKind::CardDrawn { card, .. } => card,
                        _ => None,
                    })
                    .unwrap()
            };
            let cards: Vec<_> = irregularity.evidence.iter().map(|s| card_of(*s)).collect();
            let n = run.length as usize;
            assert_eq!(cards.len(), 2 * n);
            assert_eq!(cards[..n], cards[n..], "the block, then the same block");
            assert_eq!(cards[n..], run.cards[..]);
            assert!(irregularity
                .message
                .contains(&format!("block of {n} cards")));
        }
    }
}

#[test]
fn honest_shoes_are_well_mixed_and_a_shoe_not_shuffled_is_suspect() {
    let (judged, _, _) = run(ShuffleModel::Random, 6, 9, DealerConfig::angel_eye());
    assert!(judged[1..]
        .iter()
        .all(|j| j.analysis.verdict == Verdict::WellMixed && j.irregularity.is_none()));
    let (judged, _, _) = run(ShuffleModel::None, 3, 9, DealerConfig::angel_eye());
    assert!(judged[1..]
        .iter()
        .all(|j| j.analysis.verdict == Verdict::Suspect));
    // One riffle: the pairs give it away, with the estimate.
    let (judged, _, _) = run(
        ShuffleModel::Riffle {
            times: 1,
            wash: false,
        },
        3,
        9,
        DealerConfig::angel_eye(),
    );
    for j in &judged[1..] {
        assert_eq!(j.analysis.verdict, Verdict::Suspect);
        assert!(j.analysis.preserved_pairs as f64 > 2.0 * j.analysis.expected_pairs);
    }
}

#[test]
fn the_orders_read_back_from_the_record_are_the_orders_seen_live_and_a_resumed_watch_agrees() {
    let book = RuleBook::nz_baccarat();
    let (judged, events, starts) = run(
        ShuffleModel::Slug { cards: 12 },
        5,
        21,
        DealerConfig::angel_eye(),
    );
    let orders = orders_from_events(&events, &starts);
    assert_eq!(orders.len(), 5);
    // Resume at shoe 4 with the recorded orders of shoes 1 to 3, observe shoe 4's events, judge it
    // at shoe 5's start: the same analysis as the watch that saw everything.
    let mut resumed = ShuffleWatch::resume(book.shuffle_terms(), 4, orders[..3].to_vec());
    let (start4, start5) = (starts[3].1, starts[4].1);
    for event in events.iter().filter(|e| e.seq >= start4 && e.seq <= start5) {
        resumed.observe(event);
    }
    let again = resumed.shoe_started(5, start5).unwrap();
    let live = judged.iter().find(|j| j.shoe == 4).unwrap();
    assert_eq!(&again, live);
    assert_eq!(again.irregularity, live.irregularity);
    // And the provisional analysis of shoe 5 sees what was dealt of it, raising nothing.
    let provisional = resumed.provisional().unwrap();
    assert!(provisional.provisional && provisional.irregularity.is_none());
    assert_eq!(provisional.shoe, 5);
}
