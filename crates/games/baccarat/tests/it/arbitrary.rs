//! Arbitrary event sequences: the engine never panics, whatever it is fed (and wherever the stream
//! is cut off by [`pitwatch_baccarat::Engine::interrupt`]), replaying the same events twice gives the
//! same output, and its table view agrees with what it output.

use pitwatch_baccarat::{replay, RuleBook};
use pitwatch_model::{Card, EventKind, ExposedDuring, Outcome, ShufflerKind, TableEvent, Target};
use proptest::prelude::*;

fn card() -> impl Strategy<Value = Option<Card>> {
    prop_oneof![
        9 => (0usize..52).prop_map(Card::from_index),
        1 => Just(None),
    ]
}

fn target() -> impl Strategy<Value = Option<Target>> {
    prop_oneof![
        Just(None),
        Just(Some(Target::Player)),
        Just(Some(Target::Banker)),
        Just(Some(Target::First)),
        Just(Some(Target::Burn)),
        Just(Some(Target::Dealer)),
        (1u8..9).prop_map(|n| Some(Target::Box(n))),
    ]
}

pub(crate) fn kind() -> impl Strategy<Value = EventKind> {
    prop_oneof![
        12 => (card(), target(), proptest::option::of(1u8..5), proptest::option::of(any::<bool>()), proptest::option::of(any::<bool>()))
            .prop_map(|(card, target, index, face_up, retransmit)| EventKind::CardDrawn { card, target, index, face_up, retransmit }),
        1 => (proptest::option::of(0u8..12), proptest::option::of(0u32..500), proptest::option::of(proptest::sample::select(ShufflerKind::ALL.to_vec())))
            .prop_map(|(decks, cards, shuffler)| EventKind::Shuffled { decks, cards, shuffler }),
        1 => (0u32..500).prop_map(|position| EventKind::Cut { position }),
        1 => (0u32..500).prop_map(|from_back| EventKind::CuttingCardPlaced { from_back }),
        1 => Just(EventKind::CuttingCardDrawn),
        1 => (0u32..15).prop_map(|count| EventKind::BurnCounted { count }),
        2 => (proptest::sample::select(Outcome::ALL.to_vec()), proptest::option::of(any::<bool>()), proptest::option::of(any::<bool>()))
            .prop_map(|(outcome, player_pair, banker_pair)| EventKind::ResultDeclared { outcome, player_pair, banker_pair }),
        1 => (card(), proptest::sample::select(ExposedDuring::ALL.to_vec()))
            .prop_map(|(card, during)| EventKind::CardExposed { card, during }),
        1 => (0u8..3).prop_map(|c| EventKind::DeviceError { code: c.to_string(), text: "x".into() }),
        1 => (0u8..3).prop_map(|c| EventKind::DeviceErrorCleared { code: c.to_string() }),
        1 => Just(EventKind::CardsReplaced),
        2 => Just(EventKind::BetsClosed),
        1 => (proptest::option::of(0u8..12), 0u32..500, 0u32..500, 0u32..3, 0u32..3, 0u32..3)
            .prop_map(|(decks, cards, expected, missing, extra, foreign)| EventKind::DeckChecked { decks, cards, expected, missing, extra, foreign, shuffler: None }),
        1 => (proptest::option::of(0u8..12), proptest::option::of(0u32..5))
            .prop_map(|(decks, cycle)| EventKind::ShuffleStarted { decks, cycle }),
        1 => (0usize..3).prop_map(|i| EventKind::ShuffleStep { step: pitwatch_model::ShuffleStep::ALL[i] }),
        1 => (0u32..9).prop_map(|cycles| EventKind::ShufflerCounters { cycles, recognition_errors: None, malfunctions: Some(1) }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn arbitrary_event_sequences_never_panic_and_replay_identically(
        kinds in proptest::collection::vec(kind(), 0..300),
        book in proptest::sample::select(vec!["nz-baccarat", "macau-baccarat", "nz-baccarat-continuous"]),
    ) {
        let book = RuleBook::builtin(book).unwrap();
        let events: Vec<TableEvent> = kinds
            .into_iter()
            .enumerate()
            .map(|(i, k)| TableEvent::new(i as u64 + 1, k))
            .collect();
        let first = replay(&book, &events);
        let second = replay(&book, &events);
        prop_assert_eq!(first, second);
    }

    /// The same, with the stream cut off ([`pitwatch_baccarat::Engine::interrupt`]) at random points:
    /// never a panic, the same output twice, and the output invariants hold.
    #[test]
    fn arbitrary_sequences_cut_off_anywhere_never_panic_and_replay_identically(
        kinds in proptest::collection::vec(kind(), 0..300),
        cuts in proptest::collection::vec(0usize..301, 0..5),
        book in proptest::sample::select(vec!["nz-baccarat", "macau-baccarat", "nz-baccarat-continuous"]),
    ) {
        let book = RuleBook::builtin(book).unwrap();
        let events: Vec<TableEvent> = kinds
            .into_iter()
            .enumerate()
            .map(|(i, k)| TableEvent::new(i as u64 + 1, k))
            .collect();
        let first = replay_interrupted(&book, &events, &cuts);
        check_invariants(&first)?;
        prop_assert_eq!(first, replay_interrupted(&book, &events, &cuts));
    }
}

/// [`replay`], calling [`pitwatch_baccarat::Engine::interrupt`] before the event at each index in
/// `cuts` (an index past the end cuts off after the last event, before `finish`).
fn replay_interrupted(
    book: &RuleBook,
    events: &[TableEvent],
    cuts: &[usize],
) -> Vec<pitwatch_baccarat::Output> {
    let mut engine = pitwatch_baccarat::Engine::new(book.clone());
    let mut out = Vec::new();
    for i in 0..=events.len() {
        for _ in cuts.iter().filter(|&&c| c == i) {
            engine.interrupt();
        }
        if let Some(event) = events.get(i) {
            engine.handle_event(event);
        }
        out.extend(std::iter::from_fn(|| engine.poll_output()));
    }
    engine.finish();
    out.extend(std::iter::from_fn(|| engine.poll_output()));
    out
}

/// Checks what must hold of any output: rounds numbered 1, 2, 3… within each shoe, shoes in
/// order, and each shoe summary counting the rounds reported for it.
fn check_invariants(outputs: &[pitwatch_baccarat::Output]) -> Result<(), TestCaseError> {
    use pitwatch_baccarat::Output;
    let mut shoe = 0u32;
    let mut rounds_in_shoe = 0u32;
    for output in outputs {
        match output {
            Output::Round(r) => {
                if r.shoe != shoe {
                    prop_assert!(r.shoe > shoe, "shoes go forward");
                    shoe = r.shoe;
                    rounds_in_shoe = 0;
                }
                rounds_in_shoe += 1;
                prop_assert_eq!(r.round, rounds_in_shoe, "rounds are numbered in order");
                prop_assert!(r.first_seq <= r.last_seq);
            }
            Output::Shoe(s) => {
                let reported = if s.shoe == shoe { rounds_in_shoe } else { 0 };
                prop_assert_eq!(s.rounds, reported, "shoe {} summary", s.shoe);
                prop_assert!(s.shoe >= shoe);
                shoe = s.shoe;
                rounds_in_shoe = 0;
            }
            Output::Irregularity(i) => prop_assert!(i.evidence.contains(&i.seq)),
            Output::DeviceErrorCleared(_) => {}
        }
    }
    Ok(())
}

/// One way to damage an honest stream.
#[derive(Debug, Clone)]
enum Damage {
    Drop(usize),
    Duplicate(usize),
    Swap(usize),
    Unreadable(usize),
    Insert(usize, EventKind),
}

fn damage() -> impl Strategy<Value = Damage> {
    prop_oneof![
        (0usize..2000).prop_map(Damage::Drop),
        (0usize..2000).prop_map(Damage::Duplicate),
        (0usize..2000).prop_map(Damage::Swap),
        (0usize..2000).prop_map(Damage::Unreadable),
        ((0usize..2000), kind()).prop_map(|(i, k)| Damage::Insert(i, k)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn arbitrary_sequences_keep_the_output_invariants(
        kinds in proptest::collection::vec(kind(), 0..300),
    ) {
        let events: Vec<TableEvent> = kinds
            .into_iter()
            .enumerate()
            .map(|(i, k)| TableEvent::new(i as u64 + 1, k))
            .collect();
        check_invariants(&replay(&RuleBook::nz_baccarat(), &events))?;
    }

    #[test]
    fn damaged_honest_streams_never_panic_and_keep_the_invariants(
        seed in any::<u64>(),
        plain in any::<bool>(),
        damages in proptest::collection::vec(damage(), 1..12),
    ) {
        use pitwatch_dealer::{deal, DealerConfig};
        let config = if plain { DealerConfig::barcode() } else { DealerConfig::angel_eye() };
        let config = DealerConfig { shoes: 2, ..config };
        let mut kinds: Vec<EventKind> =
            deal(&RuleBook::nz_baccarat().shoe_book(), &config, &[], seed).events.into_iter().map(|e| e.kind).collect();
        for d in damages {
            let n = kinds.len();
            match d {
                Damage::Drop(i) => { kinds.remove(i % n); }
                Damage::Duplicate(i) => { let k = kinds[i % n].clone(); kinds.insert(i % n, k); }
                Damage::Swap(i) => kinds.swap(i % n, (i + 1) % n),
                Damage::Unreadable(i) => {
                    if let EventKind::CardDrawn { card, .. } = &mut kinds[i % n] { *card = None; }
                }
                Damage::Insert(i, k) => kinds.insert(i % n, k),
            }
        }
        let events: Vec<TableEvent> = kinds
            .into_iter()
            .enumerate()
            .map(|(i, k)| TableEvent::new(i as u64 + 1, k))
            .collect();
        let first = replay(&RuleBook::nz_baccarat(), &events);
        check_invariants(&first)?;
        prop_assert_eq!(first, replay(&RuleBook::nz_baccarat(), &events));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// The table view, taken after every event, never panics and agrees with the engine's other
    /// accessors and with the outputs so far.
    #[test]
    fn the_table_view_never_panics_and_agrees_with_the_outputs(
        kinds in proptest::collection::vec((kind(), proptest::bool::weighted(0.03)), 0..300),
        book in proptest::sample::select(vec!["nz-baccarat", "macau-baccarat", "nz-baccarat-continuous"]),
    ) {
        use pitwatch_baccarat::{Engine, Output, TableView};
        use pitwatch_rules::Phase;
        let book = RuleBook::builtin(book).unwrap();
        let mut engine = Engine::new(book);
        let mut last_round = None;
        let mut rounds_by_shoe = std::collections::BTreeMap::<u32, u32>::new();
        let check = |view: &TableView, last_round, rounds_by_shoe: &std::collections::BTreeMap<u32, u32>| -> Result<(), TestCaseError> {
            prop_assert_eq!(view.last_round, last_round);
            if view.phase != Phase::Finished {
                prop_assert_eq!(view.rounds_completed, rounds_by_shoe.get(&view.shoe).copied().unwrap_or(0));
            }
            prop_assert_eq!(view.phase == Phase::NoShoe, view.shoe == 0);
            let total = u32::from(view.decks) * 52;
            if let Some(left) = view.cards_left {
                prop_assert_eq!(left, total.saturating_sub(view.cards_dealt));
                prop_assert!(!view.partial && !view.continuous);
            }
            if let Some(round) = view.round {
                prop_assert!(round.number > view.rounds_completed);
                prop_assert!(round.player.len() <= 3 && round.banker.len() <= 3);
            }
            prop_assert!(serde_json::to_string(view).is_ok());
            prop_assert!(serde_json::to_string(&view.compact()).is_ok());
            prop_assert!(view.to_string().starts_with("shoe "));
            Ok(())
        };
        for (i, (kind, cut)) in kinds.into_iter().enumerate() {
            let seq = i as u64 + 1;
            engine.handle_event(&TableEvent::new(seq, kind));
            let mut outputs: Vec<Output> = std::iter::from_fn(|| engine.poll_output()).collect();
            if cut {
                // The stream is cut off after this event: a round in progress is closed unfinished
                // and partial, and the shoe (if one is open and has not ended) is partial and
                // joining.
                let before = engine.view();
                engine.interrupt();
                let after = engine.view();
                prop_assert_eq!(after.round, None);
                prop_assert_eq!(after.shoe, before.shoe);
                prop_assert_eq!(after.last_seq, before.last_seq);
                let cut_off: Vec<Output> = std::iter::from_fn(|| engine.poll_output()).collect();
                prop_assert_eq!(cut_off.len(), usize::from(before.round.is_some()));
                for output in &cut_off {
                    let is_cut_round = matches!(output, Output::Round(r) if r.partial && !r.complete);
                    prop_assert!(is_cut_round, "{:?}", output);
                }
                let ended = before.last_coup == pitwatch_baccarat::LastCoup::Completed && before.round.is_none();
                if matches!(before.phase, Phase::NoShoe | Phase::Finished) || ended {
                    prop_assert_eq!(after, before);
                } else {
                    prop_assert!(after.partial);
                    prop_assert_eq!(after.phase, Phase::Joining);
                    prop_assert_eq!(after.cards_left, None);
                }
                outputs.extend(cut_off);
            }
            for output in outputs {
                if let Output::Round(r) = output {
                    last_round = Some(r);
                    *rounds_by_shoe.entry(r.shoe).or_default() += 1;
                }
            }
            let view = engine.view();
            prop_assert_eq!(view.last_seq, Some(seq));
            prop_assert_eq!(view.shoe, engine.shoe());
            prop_assert_eq!(view.round.map(|r| r.number), engine.round_in_progress());
            prop_assert_eq!(view.partial, engine.is_partial());
            prop_assert_eq!(view.open_device_errors as usize, engine.open_device_errors().count());
            check(&view, last_round, &rounds_by_shoe)?;
        }
        engine.finish();
        while let Some(output) = engine.poll_output() {
            if let Output::Round(r) = output {
                last_round = Some(r);
                *rounds_by_shoe.entry(r.shoe).or_default() += 1;
            }
        }
        let view = engine.view();
        prop_assert_eq!(view.round, None);
        prop_assert_eq!(view.phase == Phase::Finished, view.shoe > 0);
        check(&view, last_round, &rounds_by_shoe)?;
    }
}
