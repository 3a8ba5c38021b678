//! Who dealt what, on simulated shoes with known timings: rounds, shoes and irregularities given
//! to the dealer signed in, hand-overs and stray sign-outs, a round a device fault interrupted
//! left out of its dealer's figures, each dealer's pace at the pace they dealt; and, over the
//! reference dealers' shoes with sign-ins anywhere, the engine judging the same as without them.

use proptest::prelude::*;

use super::*;
use crate::pace::BREAK_AFTER_MS;
use crate::{GameBook, TableEngine};

const T0: i64 = 1_796_000_000_000;

/// A stream being written: each event at `T0 + seconds`.
#[derive(Default)]
pub(crate) struct Stream(pub(crate) Vec<TableEvent>);

impl Stream {
    pub(crate) fn push(&mut self, seconds: f64, json: &str) {
        let mut value: serde_json::Value = serde_json::from_str(json).expect("JSON");
        value["seq"] = (self.0.len() as u64 + 1).into();
        let mut event: TableEvent = serde_json::from_value(value).expect("an event");
        event.at = Timestamp::from_unix_millis(T0 + (seconds * 1000.0) as i64);
        self.0.push(event);
    }

    pub(crate) fn shuffle(&mut self, at: f64) {
        self.push(at, r#"{"event":"shuffled","decks":8}"#);
    }

    pub(crate) fn sign_in(&mut self, at: f64, dealer: &str) {
        self.push(
            at,
            &serde_json::json!({"event": "dealer_signed_in", "dealer": dealer}).to_string(),
        );
    }

    pub(crate) fn sign_out(&mut self, at: f64, dealer: &str) {
        self.push(
            at,
            &serde_json::json!({"event": "dealer_signed_out", "dealer": dealer}).to_string(),
        );
    }

    /// A round of four cards a second apart from `start` (P 9, B 8: Player wins; the suits
    /// turn from round to round, so an eight-deck shoe holds them), bets closed just before, the
    /// result `declared` two seconds after the last card: the round lasts 5 s.
    pub(crate) fn round(&mut self, start: f64, declared: &str) {
        self.push(start - 1.0, r#"{"event":"bets_closed"}"#);
        let turn = self.0.len() / 7;
        let suit = |i: usize| ["S", "H", "D", "C"][(turn + i) % 4];
        for (i, (rank, target, index)) in [
            ("9", "player", 1),
            ("8", "banker", 1),
            ("Q", "player", 2),
            ("K", "banker", 2),
        ]
        .into_iter()
        .enumerate()
        {
            let card = format!("{rank}{}", suit(i));
            self.push(
                start + i as f64,
                &format!(
                    r#"{{"event":"card_drawn","card":"{card}","target":"{target}","index":{index}}}"#
                ),
            );
        }
        self.push(
            start + 5.0,
            &format!(r#"{{"event":"result_declared","outcome":"{declared}"}}"#),
        );
    }
}

pub(crate) fn steps_of(book: &str, events: &[TableEvent]) -> Vec<(TableEvent, Vec<GameOutput>)> {
    let mut engine = TableEngine::new(GameBook::load(book).expect("a built-in book"));
    events
        .iter()
        .map(|event| {
            engine.handle_event(event);
            let mut outputs = Vec::new();
            while let Some(output) = engine.poll_output() {
                outputs.push(output);
            }
            (event.clone(), outputs)
        })
        .collect()
}

fn of(steps: &[(TableEvent, Vec<GameOutput>)]) -> (Pace, Attribution) {
    let pace = Pace::of(steps.iter().map(|(e, o)| (e, o.as_slice())));
    let attribution = Attribution::of(steps.iter().map(|(e, o)| (e, o.as_slice())));
    (pace, attribution)
}

fn who(round: &DealtRound) -> Option<&str> {
    round.dealer.as_deref()
}

#[test]
fn rounds_shoes_and_irregularities_go_to_the_dealer_signed_in() {
    let mut s = Stream::default();
    s.sign_in(0.0, "Mere");
    s.shuffle(1.0);
    s.round(10.0, "player"); // Mere's (the burn missing is the shoe's first round's)
    s.round(30.0, "banker"); // Mere's, the result declared wrongly
    s.sign_in(45.0, "Hoani"); // hands over
    s.round(50.0, "player"); // Hoani's
    s.sign_out(60.0, "Mere"); // Mere is not signed in: changes nothing
    s.round(70.0, "banker"); // Hoani's, declared wrongly
    s.sign_out(80.0, "Hoani");
    s.round(90.0, "player"); // no one's
    let (_, a) = of(&steps_of("nz-baccarat", &s.0));
    let dealers: Vec<Option<&str>> = a.rounds.iter().map(who).collect();
    assert_eq!(
        dealers,
        [
            Some("Mere"),
            Some("Mere"),
            Some("Hoani"),
            Some("Hoani"),
            None
        ]
    );
    assert_eq!(a.dealers(), ["Mere", "Hoani"]);
    assert_eq!(a.stints.len(), 2);
    assert_eq!(
        a.stints[0].to_seq,
        Some(a.stints[1].from_seq),
        "a hand-over"
    );
    assert_eq!(a.stints[0].duration_ms(), Some(45_000));
    assert_eq!(a.stints[1].duration_ms(), Some(35_000));
    assert_eq!(a.stray_sign_outs.len(), 1);
    assert_eq!(a.shoes.len(), 1);
    assert_eq!(a.shoes[0].dealer.as_deref(), Some("Mere"));
    let found: Vec<(&str, Option<&str>, bool)> = a
        .irregularities
        .iter()
        .map(|i| (i.code.as_str(), i.dealer.as_deref(), i.counted))
        .collect();
    assert_eq!(
        found,
        [
            ("BURN_MISSING", Some("Mere"), true),
            ("RESULT_MISMATCH", Some("Mere"), true),
            ("RESULT_MISMATCH", Some("Hoani"), true),
        ]
    );
}

#[test]
fn a_round_a_device_fault_interrupted_is_not_counted_against_its_dealer() {
    let mut s = Stream::default();
    s.sign_in(0.0, "Mere");
    s.shuffle(1.0);
    s.round(10.0, "player");
    // The shoe jams in the second round, between its second and third cards.
    s.push(29.0, r#"{"event":"bets_closed"}"#);
    s.push(
        30.0,
        r#"{"event":"card_drawn","card":"9C","target":"player","index":1}"#,
    );
    s.push(
        31.0,
        r#"{"event":"card_drawn","card":"8S","target":"banker","index":1}"#,
    );
    s.push(
        32.0,
        r#"{"event":"device_error","code":"JAM","text":"jam"}"#,
    );
    s.push(90.0, r#"{"event":"device_error_cleared","code":"JAM"}"#);
    s.push(
        91.0,
        r#"{"event":"card_drawn","card":"QS","target":"player","index":2}"#,
    );
    s.push(
        92.0,
        r#"{"event":"card_drawn","card":"QC","target":"banker","index":2}"#,
    );
    s.push(94.0, r#"{"event":"result_declared","outcome":"player"}"#);
    s.round(110.0, "player");
    let steps = steps_of("nz-baccarat", &s.0);
    let (pace, a) = of(&steps);
    assert_eq!(a.rounds.len(), 3, "{a:#?}");
    assert_eq!(
        a.rounds.iter().map(|r| r.device_fault).collect::<Vec<_>>(),
        [false, true, false]
    );
    let device = a
        .irregularities
        .iter()
        .find(|i| i.code == "DEVICE_ERROR")
        .expect("the jam is an incident");
    assert_eq!(device.dealer.as_deref(), Some("Mere"));
    assert!(
        !device.counted,
        "a device's fault is never a dealer's error"
    );
    let figures = figures(&pace, &a, BREAK_AFTER_MS, None);
    assert_eq!(figures.len(), 1);
    let mere = &figures[0];
    assert_eq!((mere.rounds, mere.rounds_excused), (2, 1));
    assert_eq!(mere.irregularities.get("DEVICE_ERROR"), None);
    // Her two rounds of 5 s, and no gap across the jammed round: 2 × 3600 / 10.
    let per_hour = mere.rounds_per_hour.expect("timed");
    assert!((per_hour - 720.0).abs() < 1e-9, "{per_hour}");
}

/// Two dealers at known paces: Mere deals a round every 40 s, Hoani every 60 s, each round 5 s
/// from first card to result; a long break in Hoani's stint is not dealing time, and the
/// hand-over's gap is neither's.
#[test]
fn each_dealer_s_pace_is_the_pace_they_dealt() {
    let mut s = Stream::default();
    s.shuffle(0.0);
    s.sign_in(5.0, "Mere");
    let mut at = 10.0;
    for _ in 0..10 {
        s.round(at, "player");
        at += 40.0;
    }
    s.sign_in(at + 100.0, "Hoani");
    at += 200.0;
    for i in 0..10 {
        s.round(at, "player");
        at += if i == 4 { 900.0 } else { 60.0 }; // a 15-minute break after his fifth round
    }
    let (pace, a) = of(&steps_of("nz-baccarat", &s.0));
    let figures = figures(&pace, &a, BREAK_AFTER_MS, None);
    let [mere, hoani] = &figures[..] else {
        panic!("{figures:#?}")
    };
    // Mere: 10 rounds in 10 × 5 s + 9 gaps of 35 s.
    assert_eq!(mere.rounds, 10);
    let expected = 10.0 * 3_600.0 / (10.0 * 5.0 + 9.0 * 35.0);
    assert!((mere.rounds_per_hour.unwrap() - expected).abs() < 1e-9);
    // Hoani: 10 rounds in 10 × 5 s + 8 gaps of 55 s (the break is not dealing).
    assert_eq!(hoani.rounds, 10);
    let expected = 10.0 * 3_600.0 / (10.0 * 5.0 + 8.0 * 55.0);
    assert!((hoani.rounds_per_hour.unwrap() - expected).abs() < 1e-9);
    // The shoe's missing burn is Mere's: one in her ten rounds.
    assert_eq!(
        mere.errors_per_100_rounds,
        Some(10.0),
        "{:#?}",
        a.irregularities
    );
    assert_eq!(hoani.errors_per_100_rounds, Some(0.0));
    // A period: only the rounds that closed in it.
    let from = Timestamp::from_unix_millis(T0 + 600_000).unwrap();
    let to = Timestamp::from_unix_millis(T0 + 10_000_000).unwrap();
    let later = super::figures(&pace, &a, BREAK_AFTER_MS, Some((from, to)));
    assert_eq!(later[0].rounds, 0);
    assert_eq!(later[1].rounds, 10);
    assert_eq!(a.rota(Some((from, to))).len(), 1, "only Hoani's stint");
}

/// Sign-ins and sign-outs put anywhere in the reference dealers' shoes (a fault in some): the
/// engine's rounds and irregularities are the same as without them, and each round is the
/// dealer's signed in at its first event, as a plain reading of the stream says.
fn interleaved(seed: u64, fault: bool, places: Vec<(usize, u8)>) {
    let book = GameBook::load("nz-blackjack").expect("a built-in book");
    let crate::sim::Dealing::Boxes(dealer) = book.dealing() else {
        panic!("Blackjack is dealt to boxes")
    };
    let faults = if fault {
        vec![(dealer.faults()[0], 3)]
    } else {
        vec![]
    };
    let shoe = dealer.deal(seed, faults);
    // Seqs a hundred apart, so the dealers' events fit between any two.
    let spaced: Vec<TableEvent> = shoe
        .events
        .iter()
        .map(|e| {
            let mut e = e.clone();
            e.seq *= 100;
            e
        })
        .collect();
    let names = ["Mere", "Hoani", "王芳"];
    let mut with = spaced.clone();
    for (place, who) in places {
        let after = &spaced[place % spaced.len()];
        let dealer = names[usize::from(who % 3)].to_owned();
        let kind = if who >= 3 {
            EventKind::DealerSignedOut { dealer }
        } else {
            EventKind::DealerSignedIn { dealer }
        };
        let seq = after.seq
            + 1
            + with
                .iter()
                .filter(|e| e.seq / 100 == after.seq / 100)
                .count() as u64;
        let mut event = TableEvent::new(seq, kind);
        event.at = after.at;
        with.push(event);
    }
    with.sort_by_key(|e| e.seq);
    let judged = |steps: &[(TableEvent, Vec<GameOutput>)]| -> Vec<String> {
        steps
            .iter()
            .flat_map(|(_, o)| o.iter().map(|o| format!("{o:?}")))
            .collect()
    };
    let plain = steps_of("nz-blackjack", &spaced);
    let signed = steps_of("nz-blackjack", &with);
    assert_eq!(judged(&plain), judged(&signed));
    let a = Attribution::of(signed.iter().map(|(e, o)| (e, o.as_slice())));
    for round in &a.rounds {
        // A plain reading: the last sign-in or sign-out before the round's first event.
        let last = with
            .iter()
            .take_while(|e| e.seq < round.first_seq)
            .filter_map(|e| match &e.kind {
                EventKind::DealerSignedIn { dealer } => Some((true, dealer.clone())),
                EventKind::DealerSignedOut { dealer } => Some((false, dealer.clone())),
                _ => None,
            })
            .fold(None::<String>, |now, (signed_in, dealer)| match signed_in {
                true => Some(dealer),
                false if now.as_deref() == Some(dealer.as_str()) => None,
                false => now,
            });
        assert_eq!(round.dealer, last, "round {}.{}", round.shoe, round.round);
    }
    // The same steps give the same attribution (a replay is the same steps).
    assert_eq!(
        a,
        Attribution::of(signed.iter().map(|(e, o)| (e, o.as_slice())))
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn sign_ins_anywhere_change_no_judgement_and_attribute_by_the_stream(
        seed in any::<u64>(),
        fault in any::<bool>(),
        places in prop::collection::vec((any::<usize>(), 0u8..6), 0..12),
    ) {
        interleaved(seed, fault, places);
    }
}
