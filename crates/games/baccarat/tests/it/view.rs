//! The engine's table view, step by step: after given events of a fixture script the view says
//! where the table stands, and it never panics nor disagrees with the outputs on arbitrary streams
//! (see `arbitrary.rs` for the property).

use std::fs;
use std::path::Path;

use pitwatch_baccarat::{Engine, LastCoup, NextCardView, RuleBook, Side, TableView};
use pitwatch_model::{Outcome, TableEvent};
use pitwatch_rules::{BurnStatus, Phase};

use crate::fixtures::parse;

/// The views of a fixture file or script: `[0]` before any event, `[n]` after the event with
/// seq `n`, and last the view after `finish`.
fn views(book: &RuleBook, events: &[TableEvent]) -> Vec<TableView> {
    let mut engine = Engine::new(book.clone());
    let mut out = vec![engine.view()];
    for event in events {
        engine.handle_event(event);
        while engine.poll_output().is_some() {}
        out.push(engine.view());
    }
    engine.finish();
    out.push(engine.view());
    out
}

fn fixture(name: &str) -> Vec<TableView> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    let f = parse(&fs::read_to_string(&path).unwrap());
    views(&RuleBook::load(&f.rules).unwrap(), &f.events)
}

fn script(book: &str, lines: &str) -> Vec<TableView> {
    let f = parse(&format!("events:\n{lines}"));
    views(&RuleBook::builtin(book).unwrap(), &f.events)
}

fn next(side: Side, card: u8) -> Option<NextCardView> {
    Some(NextCardView {
        side,
        card,
        certain: true,
    })
}

#[test]
fn given_11_2_b_when_the_cutting_card_comes_out_mid_round_then_one_further_round_is_the_last() {
    let v = fixture("14_last_coup_b.txt");
    // Before any event.
    assert_eq!(v[0].phase, Phase::NoShoe);
    assert_eq!((v[0].shoe, v[0].cards_left, v[0].last_seq), (0, None, None));
    // 1 shuffled.
    assert_eq!(v[1].shoe, 1);
    assert_eq!(v[1].phase, Phase::AwaitingBurn);
    assert_eq!(v[1].burn.status, BurnStatus::AwaitingFirst);
    assert_eq!((v[1].cards_dealt, v[1].cards_left), (0, Some(416)));
    assert_eq!(v[1].last_coup, LastCoup::NotReached);
    // 2 first AS: the burn takes one more card (7.9: ace 1).
    assert_eq!(v[2].phase, Phase::Burning);
    assert_eq!((v[2].burn.expected, v[2].burn.burned), (Some(1), 0));
    // 3 burn 2H.
    assert_eq!((v[3].phase, v[3].burn.burned), (Phase::Burning, 1));
    // 4 P1 9S: the burn is over, round 1 begins.
    assert_eq!(v[4].phase, Phase::Dealing);
    assert!(v[4].burn.done());
    let r = v[4].round.unwrap();
    assert_eq!(
        (r.number, r.player.to_string(), r.banker.len()),
        (1, "9S".into(), 0)
    );
    assert_eq!(r.next, next(Side::Banker, 1));
    assert_eq!((v[4].cards_dealt, v[4].cards_left), (3, Some(413)));
    // 5 B1 KH.
    assert_eq!(v[5].round.unwrap().next, next(Side::Player, 2));
    // 6 cutting, mid-round: complete it, then one further round.
    assert_eq!(v[6].phase, Phase::LastCoupPending);
    assert!(v[6].cutting_card_out);
    assert_eq!(
        (v[6].last_coup, v[6].last_coup_round),
        (LastCoup::Pending, Some(2))
    );
    assert_eq!(
        v[6].cards_dealt, 4,
        "the cutting card is not a card of the shoe"
    );
    // 8 B2 3D completes round 1 (Player 9 natural).
    assert_eq!(v[8].round, None);
    assert_eq!(v[8].rounds_completed, 1);
    assert_eq!(v[8].phase, Phase::LastRound);
    let last = v[8].last_round.unwrap();
    assert_eq!(
        (last.shoe, last.round, last.outcome),
        (1, 1, Some(Outcome::Player))
    );
    assert_eq!((last.player_total, last.banker_total), (Some(9), Some(3)));
    // 9 P1 7S: the last coup is being dealt.
    assert_eq!(
        (v[9].phase, v[9].round.unwrap().number),
        (Phase::LastRound, 2)
    );
    assert_eq!(v[9].rounds_completed, 1);
    // 12: the last coup is complete.
    assert_eq!(v[12].phase, Phase::ShoeEnded);
    assert_eq!(v[12].last_coup, LastCoup::Completed);
    assert_eq!(v[12].rounds_completed, 2);
    assert_eq!(v[12].last_round.unwrap().outcome, Some(Outcome::Tie));
    // 13 shuffled: shoe 2, and the last round recorded is still shoe 1's.
    assert_eq!((v[13].shoe, v[13].phase), (2, Phase::AwaitingBurn));
    assert_eq!((v[13].rounds_completed, v[13].cards_dealt), (0, 0));
    assert!(!v[13].cutting_card_out);
    assert_eq!(v[13].last_coup_round, None);
    let last = v[13].last_round.unwrap();
    assert_eq!((last.shoe, last.round), (1, 2));
    assert_eq!(v[13].last_seq, Some(13));
    // 20 completes round 2.1; then the stream is finished.
    assert_eq!(v[20].last_round.unwrap().shoe, 2);
    let end = v.last().unwrap();
    assert_eq!(
        (end.phase, end.shoe, end.rounds_completed),
        (Phase::Finished, 2, 1)
    );
}

#[test]
fn given_11_2_a_when_the_cutting_card_comes_out_between_rounds_then_the_next_round_is_the_last() {
    let v = fixture("13_last_coup_a.txt");
    assert_eq!(v[7].phase, Phase::Dealing);
    // 8 cutting, between rounds 1 and 2.
    assert_eq!(v[8].phase, Phase::LastRound);
    assert_eq!(v[8].last_coup_round, Some(2));
    assert_eq!(v[12].phase, Phase::ShoeEnded);
    // 13: a round 3 dealt past the last coup; the shoe stays ended.
    assert_eq!(v[13].phase, Phase::ShoeEnded);
    assert_eq!(v[13].round.unwrap().number, 3);
}

#[test]
fn a_continuous_shuffler_has_no_cards_left_count_and_no_last_coup() {
    let v = fixture("21_continuous_shuffler.txt");
    // 11 cutting: ignored under 7.8.
    for view in &v[1..v.len() - 1] {
        assert!(view.continuous);
        assert_eq!(view.cards_left, None);
        assert_eq!(view.last_coup, LastCoup::NotApplicable);
    }
    assert_eq!(v[11].phase, Phase::Dealing);
    assert!(!v[11].cutting_card_out);
}

#[test]
fn a_shoe_joined_part_way_is_joining_until_a_round_starts() {
    let v = fixture("20_partial_then_new_shoe.txt");
    assert_eq!(v[1].phase, Phase::Joining);
    assert!(v[1].partial);
    assert_eq!(
        (v[1].cards_dealt, v[1].cards_left, v[1].round),
        (1, None, None)
    );
    assert_eq!(v[3].phase, Phase::Dealing);
    assert_eq!(v[3].round.unwrap().number, 1);
    // 7 is a retransmission: nothing changes but the seq.
    assert_eq!(v[7].cards_dealt, v[6].cards_dealt);
    assert_eq!(v[7].last_seq, Some(7));
    // 13 shuffled: a whole shoe again.
    assert!(!v[13].partial);
    assert_eq!(v[13].cards_left, Some(416));
}

#[test]
fn open_device_errors_are_counted_until_cleared() {
    let v = fixture("19_device_error_and_exposed_card.txt");
    assert_eq!(v[5].open_device_errors, 0);
    assert_eq!(v[6].open_device_errors, 1);
    assert_eq!(v[8].open_device_errors, 1);
    assert_eq!(v[9].open_device_errors, 0);
    assert_eq!(v[15].open_device_errors, 1);
}

#[test]
fn replaced_cards_await_a_shuffle_and_the_count_left_is_unknown() {
    let v = script(
        "nz-baccarat",
        "shuffled 8 416\nfirst AS\nburn 2H\nP1 9S B1 KH P2 KS B2 3D\nreplaced\nP1 7S\nshuffled 8 416",
    );
    assert_eq!(v[7].cards_left, Some(416 - 6));
    assert_eq!(v[8].phase, Phase::AwaitingShuffle);
    assert_eq!(v[8].cards_left, None);
    assert_eq!(v[8].burn.status, BurnStatus::NotExpected);
    // 9: dealt regardless (flagged NOT_SHUFFLED); the engine follows the round.
    assert_eq!(v[9].phase, Phase::Dealing);
    assert_eq!(v[10].phase, Phase::AwaitingBurn);
    assert_eq!(v[10].cards_left, Some(416));
}

#[test]
fn an_unreadable_card_makes_the_next_card_uncertain() {
    let v = script(
        "nz-baccarat",
        "shuffled 8 416\nfirst AS\nburn 2H\nP1 ?? B1 KH P2 KS B2 3D",
    );
    let r = v[7].round.unwrap();
    assert_eq!(r.player_total, None);
    assert_eq!(r.banker_total, Some(3));
    assert_eq!(
        r.next,
        Some(NextCardView {
            side: Side::Player,
            card: 3,
            certain: false
        })
    );
}

#[test]
fn the_compact_form_is_one_line_and_small_json() {
    let v = fixture("09_missing_third_card_plain.txt");
    // 3: the plain burn (AS, then one card) is done.
    assert_eq!(v[3].phase, Phase::Dealing);
    assert_eq!((v[3].burn.expected, v[3].burn.burned), (Some(1), 1));
    assert_eq!(
        v[6].to_string(),
        "shoe 1 dealing cards 4 left 412 rounds 0 | round 1 P[4S] B[2D] next player 2 | errors 0"
    );
    assert_eq!(
        v[13].to_string(),
        "shoe 1 dealing cards 10 left 406 rounds 2 | last 1.2 tie 7-7 | errors 0"
    );
    let json = serde_json::to_value(v[6].compact()).unwrap();
    assert_eq!(json["round"], 1);
    assert_eq!(json["player"], serde_json::json!(["4S"]));
    assert_eq!(json["next"]["side"], "player");
    assert!(json.get("last").is_none(), "no round recorded yet");
    let full = serde_json::to_value(v[6]).unwrap();
    assert_eq!(full["phase"], "dealing");
    assert_eq!(full["burn"]["status"], "done");
    assert_eq!(full["last_coup"], "not_reached");
    assert_eq!(full["round"]["banker"], serde_json::json!(["2D"]));
}
