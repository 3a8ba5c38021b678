//! Simulated shoes: honest play is never flagged and matches a straightforward computation; one
//! injected fault yields exactly its code at its round, and later rounds are still right.

use pitwatch_baccarat::{replay, Output, RoundRecord, RuleBook};
use pitwatch_dealer::{deal, DealerConfig, FaultKind, FaultPlan, Mode, Session};

use crate::judge::{self, truth};
use pitwatch_model::{Card, EventKind, TableEvent, Target};
use pitwatch_rules::Irregularity;
use proptest::prelude::*;

use crate::naive;

fn split(outputs: &[Output]) -> (Vec<RoundRecord>, Vec<Irregularity>) {
    let mut rounds = Vec::new();
    let mut irregularities = Vec::new();
    for o in outputs {
        match o {
            Output::Round(r) => rounds.push(*r),
            Output::Irregularity(i) => irregularities.push(i.clone()),
            _ => {}
        }
    }
    (rounds, irregularities)
}

/// The round as judged: cards, totals, outcome, pairs and seqs (not the engine's own flags).
fn key(r: &RoundRecord) -> RoundRecord {
    RoundRecord {
        complete: true,
        partial: false,
        no_bets: false,
        ..*r
    }
}

/// Plays the dealt cards of each shoe with the naive implementation: skip the burn, then rounds
/// until the cards run out.
fn naive_rounds(session: &Session) -> Vec<(Vec<Card>, Vec<Card>)> {
    let mut shoes: Vec<Vec<Card>> = Vec::new();
    for event in &session.events {
        match &event.kind {
            EventKind::Shuffled { .. } => shoes.push(Vec::new()),
            EventKind::CardDrawn { card: Some(c), .. } => {
                if let Some(shoe) = shoes.last_mut() {
                    shoe.push(*c)
                }
            }
            _ => {}
        }
    }
    let mut rounds = Vec::new();
    for cards in shoes {
        let burn = naive::burn_count(cards[0]);
        let mut rest = cards.into_iter().skip(1 + burn);
        while let Some(round) = naive::round(&mut rest) {
            rounds.push(round);
        }
    }
    rounds
}

fn nz() -> RuleBook {
    RuleBook::nz_baccarat()
}

#[test]
fn given_honest_shoes_when_replayed_then_nothing_is_flagged_and_rounds_match_the_naive_game() {
    for (mode, config) in [
        (Mode::Targets, DealerConfig::angel_eye()),
        (Mode::Plain, DealerConfig::barcode()),
    ] {
        let config = DealerConfig { shoes: 3, ..config };
        let session = deal(&nz().shoe_book(), &config, &[], 7);
        let dealt = truth(&session);
        let (rounds, irregularities) = split(&replay(&nz(), &session.events));
        assert!(irregularities.is_empty(), "{mode:?}: {irregularities:#?}");
        assert_eq!(
            rounds.iter().map(key).collect::<Vec<_>>(),
            dealt.iter().map(key).collect::<Vec<_>>(),
            "{mode:?}"
        );
        let naive = naive_rounds(&session);
        assert_eq!(naive.len(), rounds.len());
        for (r, (p, b)) in rounds.iter().zip(&naive) {
            assert_eq!(
                r.player
                    .cards()
                    .iter()
                    .flatten()
                    .copied()
                    .collect::<Vec<_>>(),
                *p
            );
            assert_eq!(
                r.banker
                    .cards()
                    .iter()
                    .flatten()
                    .copied()
                    .collect::<Vec<_>>(),
                *b
            );
            assert_eq!(r.player_total, Some(naive::total(p)));
            assert_eq!(r.banker_total, Some(naive::total(b)));
        }
        // An 8-deck shoe with a 20-odd card stub and a burn gives roughly 79 rounds (rules.md).
        let per_shoe = rounds.len() as f64 / 3.0;
        assert!(
            (70.0..=86.0).contains(&per_shoe),
            "{per_shoe} rounds per shoe"
        );
    }
}

#[test]
fn given_the_same_seed_the_dealer_and_the_engine_are_byte_for_byte_deterministic() {
    let config = DealerConfig::angel_eye();
    let a = deal(&nz().shoe_book(), &config, &[], 42);
    let b = deal(&nz().shoe_book(), &config, &[], 42);
    assert_eq!(a.events, b.events);
    let json = |s: &Session| -> String {
        replay(&nz(), &s.events)
            .iter()
            .map(|o| serde_json::to_string(o).unwrap())
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(json(&a), json(&b));
    let c = deal(&nz().shoe_book(), &config, &[], 43);
    assert_ne!(
        a.events, c.events,
        "a different seed deals a different shoe"
    );
}

#[test]
fn a_continuous_shuffler_is_followed_without_end_of_shoe_checks() {
    let book = RuleBook::builtin("nz-baccarat-continuous").unwrap();
    let config = DealerConfig {
        shoes: 2,
        continuous_rounds: 120,
        ..DealerConfig::angel_eye()
    };
    let session = deal(&book.shoe_book(), &config, &[], 3);
    let dealt = truth(&session);
    let (rounds, irregularities) = split(&replay(&book, &session.events));
    assert!(irregularities.is_empty(), "{irregularities:#?}");
    assert_eq!(rounds.len(), 240);
    assert_eq!(
        rounds.iter().map(key).collect::<Vec<_>>(),
        dealt.iter().map(key).collect::<Vec<_>>()
    );
}

/// Runs one fault in `mode`'s default stream and checks it by the differential rules
/// (`judge::run`): one irregularity of a code the fault can show, at its
/// round, and every other round the true one.
fn check_fault(kind: FaultKind, mode: Mode, seed: u64, round: u32) -> Result<(), String> {
    let config = match mode {
        Mode::Targets => DealerConfig::angel_eye(),
        Mode::Plain => DealerConfig::barcode(),
    };
    let config = DealerConfig { shoes: 2, ..config };
    let verdict = judge::run(&nz(), &config, kind, round, seed);
    if verdict.injected.is_none() {
        return Err(format!("{kind:?} was not injected"));
    }
    if verdict.problems.is_empty() {
        Ok(())
    } else {
        Err(verdict.problems.join("; "))
    }
}

#[test]
fn every_fault_kind_in_every_mode_that_can_see_it_is_flagged_once_at_its_round() {
    for &kind in FaultKind::ALL {
        for mode in [Mode::Targets, Mode::Plain] {
            if !kind.observable_in(mode) {
                continue;
            }
            let round = if kind == FaultKind::ForeignCard {
                55
            } else {
                12
            };
            check_fault(kind, mode, 11, round)
                .unwrap_or_else(|e| panic!("{kind:?} in {mode:?}: {e}"));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn honest_play_is_never_flagged(seed in any::<u64>(), plain in any::<bool>()) {
        let config = if plain { DealerConfig::barcode() } else { DealerConfig::angel_eye() };
        let session = deal(&nz().shoe_book(), &config, &[], seed);
        let dealt = truth(&session);
        let (rounds, irregularities) = split(&replay(&nz(), &session.events));
        prop_assert!(irregularities.is_empty(), "{:#?}", irregularities);
        prop_assert_eq!(
            rounds.iter().map(key).collect::<Vec<_>>(),
            dealt.iter().map(key).collect::<Vec<_>>()
        );
    }
}

#[test]
fn the_dealer_reports_targets_only_in_target_mode() {
    let plain = deal(&nz().shoe_book(), &DealerConfig::barcode(), &[], 1);
    assert!(plain.events.iter().all(|e| !matches!(
        e.kind,
        EventKind::CardDrawn {
            target: Some(_),
            ..
        }
    )));
    let targets = deal(&nz().shoe_book(), &DealerConfig::angel_eye(), &[], 1);
    assert!(targets.events.iter().any(|e| matches!(
        e.kind,
        EventKind::CardDrawn {
            target: Some(Target::First),
            ..
        }
    )));
}

#[test]
fn a_cutting_card_that_comes_out_too_late_is_flagged_when_it_appears() {
    // Given a shoe whose cutting card sits too close to the back, with its placement unreported
    let plan = FaultPlan {
        kind: FaultKind::CuttingCardTooCloseToBack,
        shoe: 1,
        round: 1,
    };
    let session = deal(&nz().shoe_book(), &DealerConfig::angel_eye(), &[plan], 5);
    let events: Vec<_> = session
        .events
        .iter()
        .filter(|e| !matches!(e.kind, EventKind::CuttingCardPlaced { .. }))
        .cloned()
        .collect();
    // When it is replayed
    let (_, irregularities) = split(&replay(&nz(), &events));
    // Then the cutting card itself is the evidence
    assert_eq!(irregularities.len(), 1, "{irregularities:#?}");
    let flagged = &irregularities[0];
    assert_eq!(
        flagged.code,
        pitwatch_rules::IrregularityCode::CuttingCardMisplaced
    );
    let drawn = events
        .iter()
        .find(|e| e.kind == EventKind::CuttingCardDrawn)
        .unwrap();
    assert_eq!(flagged.seq, drawn.seq);
    assert!(
        flagged.message.contains("came out with"),
        "{}",
        flagged.message
    );
}

#[test]
fn many_faults_in_one_session_are_each_flagged_once_and_play_resynchronises_after_each() {
    for (mode, config, seed) in [
        (Mode::Targets, DealerConfig::angel_eye(), 21),
        (Mode::Plain, DealerConfig::barcode(), 22),
    ] {
        // Given every fault kind the mode can see, spread over four shoes (one burn fault each)
        let config = DealerConfig { shoes: 4, ..config };
        let mut plans = Vec::new();
        let mut burns = 0;
        let mut others = 0;
        for &kind in FaultKind::ALL {
            if !kind.observable_in(mode) {
                continue;
            }
            let plan = if kind.name().starts_with("burn_") {
                burns += 1;
                FaultPlan {
                    kind,
                    shoe: burns,
                    round: 1,
                }
            } else {
                others += 1;
                let round = if kind == FaultKind::ForeignCard {
                    60
                } else {
                    4 + 6 * (others / 4)
                };
                FaultPlan {
                    kind,
                    shoe: 1 + others % 4,
                    round,
                }
            };
            plans.push(plan);
        }
        let session = deal(&nz().shoe_book(), &config, &plans, seed);
        let dealt = truth(&session);
        assert_eq!(
            session.faults.len(),
            plans.len(),
            "{mode:?}: not all injected: {:?}",
            session.faults
        );
        // When the session is replayed
        let (rounds, irregularities) = split(&replay(&nz(), &session.events));
        // Then each fault gives exactly its code where it was injected (and one that breaks no
        // rule gives nothing)
        let mut got: Vec<_> = irregularities
            .iter()
            .map(|i| (i.code, i.shoe, i.round))
            .collect();
        let mut want: Vec<_> = session
            .faults
            .iter()
            .filter_map(|f| f.expected_code.map(|code| (code, f.shoe, f.round)))
            .collect();
        got.sort();
        want.sort();
        assert_eq!(got, want, "{mode:?}");
        // And every round other than a faulted one matches the truth
        let faulted = |r: &RoundRecord| {
            session
                .faults
                .iter()
                .any(|f| f.shoe == r.shoe && f.round == Some(r.round))
        };
        let engine: Vec<_> = rounds.iter().filter(|r| !faulted(r)).map(key).collect();
        let truth: Vec<_> = dealt.iter().filter(|r| !faulted(r)).map(key).collect();
        assert!(truth.len() > 250, "{mode:?}");
        assert_eq!(engine, truth, "{mode:?}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// In honest play the table view goes through a shoe's phases in order (awaiting the burn,
    /// burning, dealing, the last coup pending, the last round, ended) and each shoe has ended by
    /// the last coup before the next shuffle.
    #[test]
    fn honest_play_goes_through_the_phases_in_order(seed in any::<u64>(), plain in any::<bool>()) {
        use pitwatch_baccarat::Engine;
        use pitwatch_rules::Phase;
        let rank = |p: Phase| match p {
            Phase::AwaitingBurn => 0,
            Phase::Burning => 1,
            Phase::Dealing => 2,
            Phase::LastCoupPending => 3,
            Phase::LastRound => 4,
            Phase::ShoeEnded => 5,
            _ => 99,
        };
        let config = if plain { DealerConfig::barcode() } else { DealerConfig::angel_eye() };
        let config = DealerConfig { shoes: 2, ..config };
        let session = deal(&nz().shoe_book(), &config, &[], seed);
        let mut engine = Engine::new(nz());
        let mut before = engine.view();
        let mut shuffles = 0;
        for event in &session.events {
            let shuffle = matches!(event.kind, EventKind::Shuffled { .. });
            if shuffle && shuffles > 0 {
                prop_assert_eq!(before.phase, Phase::ShoeEnded, "before shuffle {}", shuffles + 1);
            }
            shuffles += u32::from(shuffle);
            engine.handle_event(event);
            while engine.poll_output().is_some() {}
            let view = engine.view();
            prop_assert!(rank(view.phase) < 99, "{:?} at seq {}", view.phase, event.seq);
            if !shuffle {
                prop_assert!(rank(view.phase) >= rank(before.phase), "{:?} after {:?} at seq {}", view.phase, before.phase, event.seq);
            }
            prop_assert_eq!(view.cards_left.map(|l| l + view.cards_dealt), Some(416));
            before = view;
        }
        prop_assert_eq!(shuffles, 2);
    }
}

/// The stream cut off: feeds `events[..cut]`, calls [`pitwatch_baccarat::Engine::interrupt`], drops
/// up to `gap` events (what happened while nobody was listening; never past the next shuffle,
/// since a new shoe's cards could not be told from the old shoe's), then feeds the rest and
/// finishes. Returns the outputs before the interrupt, the outputs from it on, and the `seq` of
/// the first event fed after the gap (`u64::MAX` if none).
fn cut_off(events: &[TableEvent], cut: usize, gap: usize) -> (Vec<Output>, Vec<Output>, u64) {
    let next_shuffle = events[cut..]
        .iter()
        .position(|e| matches!(e.kind, EventKind::Shuffled { .. }))
        .map_or(events.len(), |i| cut + i);
    let resume = (cut + gap).min(next_shuffle);
    let mut engine = pitwatch_baccarat::Engine::new(nz());
    for e in &events[..cut] {
        engine.handle_event(e);
    }
    let before: Vec<Output> = std::iter::from_fn(|| engine.poll_output()).collect();
    engine.interrupt();
    for e in &events[resume..] {
        engine.handle_event(e);
    }
    engine.finish();
    let after: Vec<Output> = std::iter::from_fn(|| engine.poll_output()).collect();
    (
        before,
        after,
        events.get(resume).map_or(u64::MAX, |e| e.seq),
    )
}

/// The rounds seen whole after the gap are the true rounds (numbered differently: rounds dealt
/// while nobody was listening are not counted), and every true round that began after the gap is
/// among them.
fn check_rounds_after_gap(
    rounds: &[RoundRecord],
    truth: &[RoundRecord],
    resumed: u64,
    skip: impl Fn(&RoundRecord) -> bool,
) -> Result<(), TestCaseError> {
    let same = |r: &RoundRecord, t: &RoundRecord| {
        (
            r.shoe,
            r.player,
            r.banker,
            r.outcome,
            r.first_seq,
            r.last_seq,
        ) == (
            t.shoe,
            t.player,
            t.banker,
            t.outcome,
            t.first_seq,
            t.last_seq,
        )
    };
    for r in rounds
        .iter()
        .filter(|r| r.complete && r.first_seq > resumed)
    {
        if skip(r) {
            continue;
        }
        prop_assert!(
            truth.iter().any(|t| same(r, t)),
            "round {}.{} {:?}",
            r.shoe,
            r.round,
            r
        );
    }
    for t in truth
        .iter()
        .filter(|t| t.first_seq > resumed.saturating_add(1))
    {
        if skip(t) {
            continue;
        }
        prop_assert!(
            rounds.iter().any(|r| same(r, t)),
            "true round {}.{} missing",
            t.shoe,
            t.round
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// Honest play cut off at any point, with the events of a gap lost, is never flagged, and the
    /// rounds seen whole after the gap are right.
    #[test]
    fn honest_play_cut_off_anywhere_is_never_flagged(
        seed in any::<u64>(),
        plain in any::<bool>(),
        cut in any::<proptest::sample::Index>(),
        gap in 0usize..40,
    ) {
        let config = if plain { DealerConfig::barcode() } else { DealerConfig::angel_eye() };
        let config = DealerConfig { shoes: 2, ..config };
        let session = deal(&nz().shoe_book(), &config, &[], seed);
        let dealt = truth(&session);
        let cut = cut.index(session.events.len() + 1);
        let (before, after, resumed) = cut_off(&session.events, cut, gap);
        let (_, flagged_before) = split(&before);
        let (rounds, flagged) = split(&after);
        prop_assert!(flagged_before.is_empty(), "{:#?}", flagged_before);
        prop_assert!(flagged.is_empty(), "cut at {} gap {}: {:#?}", cut, gap, flagged);
        for r in split(&before).0.iter().chain(&rounds) {
            prop_assert!(r.complete || r.partial, "{:?}", r);
        }
        check_rounds_after_gap(&rounds, &dealt, resumed, |_| false)?;
    }

    /// A fault dealt after the cut and the gap is still flagged, exactly once, marked partial; the
    /// rounds after the gap are otherwise right.
    #[test]
    fn a_fault_after_a_cut_off_is_flagged_once(
        seed in any::<u64>(),
        plain in any::<bool>(),
        kind in proptest::sample::select(vec![
            FaultKind::OutOfOrderCard,
            FaultKind::ThirdCardsSwapped,
            FaultKind::UnauthorisedThirdCard,
            FaultKind::UnauthorisedBankerCard,
            FaultKind::MissingThirdCard,
            FaultKind::WrongDeclaredResult,
            FaultKind::UnreadableCard,
            FaultKind::StrayCard,
            FaultKind::FourthCard,
            FaultKind::CardExposed,
            FaultKind::DeviceError,
        ]),
        round in 20u32..45,
        cut in any::<proptest::sample::Index>(),
        gap in 0usize..40,
    ) {
        let mode = if plain { Mode::Plain } else { Mode::Targets };
        prop_assume!(kind.observable_in(mode));
        // A plain Banker card set aside can read as 12.1(b) when both readings fit the next
        // round's cards (docs/irregularities.md, known limits); the differential test allows
        // for that, this one compares every round after the fault.
        prop_assume!(!(plain && kind == FaultKind::UnauthorisedBankerCard));
        let config = if plain { DealerConfig::barcode() } else { DealerConfig::angel_eye() };
        let config = DealerConfig { shoes: 2, ..config };
        let plan = FaultPlan { kind, shoe: 1, round };
        let session = deal(&nz().shoe_book(), &config, &[plan], seed);
        let dealt = truth(&session);
        prop_assert_eq!(session.faults.len(), 1, "{:?} was not injected", kind);
        let fault = session.faults[0];
        // Cut after the shuffle and lose the gap before the round two before the fault's, so the
        // engine has resynchronised before the fault.
        let start = dealt
            .iter()
            .find(|r| r.shoe == 1 && r.round == round - 2)
            .unwrap()
            .first_seq;
        let bound = session.events.iter().position(|e| e.seq == start).unwrap();
        let cut = 1 + cut.index(bound - 1);
        let gap = gap.min(bound - cut);
        let (before, after, resumed) = cut_off(&session.events, cut, gap);
        prop_assert!(split(&before).1.is_empty());
        let (rounds, flagged) = split(&after);
        prop_assert_eq!(flagged.len(), 1, "{:?} {:?} cut at {} gap {}: {:#?}", kind, mode, cut, gap, flagged);
        let flagged = &flagged[0];
        prop_assert_eq!(Some(flagged.code), fault.expected_code);
        prop_assert_eq!(flagged.shoe, fault.shoe);
        // A shoe is partial when a card of it may have gone unseen. A cut that lost only what
        // comes before the shoe's first card (its cut, its cutting card), with no card seen
        // before it, leaves every card seen from the burn's first: the engine may follow that
        // shoe whole, begun again by its first card.
        let card = |e: &TableEvent| matches!(e.kind, EventKind::CardDrawn { .. });
        let every_card_seen = !session.events[..cut + gap].iter().any(card);
        prop_assert!(flagged.partial || every_card_seen, "cut at {} gap {}", cut, gap);
        prop_assert!(flagged.seq >= resumed);
        let faulted = |r: &RoundRecord| r.shoe == fault.shoe && r.first_seq <= fault.seq && fault.seq <= r.last_seq + 1
            || r.shoe == fault.shoe && Some(r.round) == fault.round && dealt.contains(r);
        // A plain shoe cut off before the engine knew its stream closes bets resumes at once and
        // can take the burn for a round until the first "no more bets" realigns it
        // (docs/irregularities.md, "Known limitation"): nothing is flagged for it (checked
        // above), but the rounds before that boundary are not compared.
        let knew_bets = session.events[..cut]
            .iter()
            .any(|e| matches!(e.kind, EventKind::BetsClosed));
        let realigned = if plain && !knew_bets {
            session
                .events
                .iter()
                .find(|e| e.seq >= resumed && matches!(e.kind, EventKind::BetsClosed))
                .map_or(u64::MAX, |e| e.seq)
        } else {
            0
        };
        let skip = |r: &RoundRecord| faulted(r) || r.first_seq < realigned;
        check_rounds_after_gap(&rounds, &dealt, resumed, skip)?;
    }
}

/// A stream cut off after a shuffle and before the cut (a reconnect while the cards are cut),
/// with nothing lost: the cut and the cutting card say the deal has not begun, so the first card,
/// the burn and every round are followed as if the stream had not been cut off. Found by
/// `honest_play_cut_off_anywhere_is_never_flagged` (seed 107160798704244777, a plain shoe): the
/// burn was read as a round.
#[test]
fn a_plain_shoe_cut_off_before_its_cut_follows_its_burn_and_rounds() {
    for seed in [107_160_798_704_244_777_u64, 1, 2, 3] {
        for config in [DealerConfig::barcode(), DealerConfig::angel_eye()] {
            let config = DealerConfig { shoes: 2, ..config };
            let session = deal(&nz().shoe_book(), &config, &[], seed);
            let dealt = truth(&session);
            let (before, after, resumed) = cut_off(&session.events, 1, 0);
            assert!(split(&before).1.is_empty());
            let (rounds, flagged) = split(&after);
            assert!(flagged.is_empty(), "seed {seed}: {flagged:#?}");
            check_rounds_after_gap(&rounds, &dealt, resumed, |_| false)
                .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            // Every round of the first shoe is seen, none made of its burn cards.
            let first_shoe = dealt.iter().filter(|t| t.shoe == 1).count();
            assert_eq!(
                rounds.iter().filter(|r| r.shoe == 1 && r.complete).count(),
                first_shoe,
                "seed {seed}"
            );
        }
    }
}
