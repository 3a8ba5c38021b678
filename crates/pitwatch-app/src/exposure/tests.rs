//! The live exposure on a desk (issue 29): a shoe dealt through an Angel Eye over TCP is followed
//! round by round, its figures the same as the record's; only surveillance and administrators
//! read them, each look audited; a wager in the players' favour for the alert's rounds raises one
//! alert, on record once, found again after a restart and not written twice.

use std::io::Write;
use std::net::TcpListener;
use std::path::Path;
use std::time::{Duration, Instant};

use pitwatch_api::dto::ReportFormat;
use pitwatch_api::ErrorCode;
use pitwatch_baccarat::RuleBook;
use pitwatch_dealer::{deal, DealerConfig};
use pitwatch_protocols::ProtocolConfig;
use pitwatch_recording::pit::PitConfig;
use pitwatch_transport::Clock;

use super::{shoe_exposure, watch, EXPORTED, VIEWED};
use crate::access::{Principal, FORBIDDEN};
use crate::live::Desk;
use crate::setup::DeskOptions;
use crate::testkit::{test_store, ALICE, BOB, SUP};

/// The Angel Eye bytes of `shoes` honest shoes of `book` (seed 11).
fn dealt(book: &RuleBook, shoes: u32) -> Vec<u8> {
    let config = ProtocolConfig::by_name("angel-eye").expect("a protocol");
    let session = deal(
        &book.shoe_book(),
        &DealerConfig {
            shoes,
            ..DealerConfig::angel_eye()
        },
        &[],
        11,
    );
    let mut encoder = config.encoder();
    session
        .events
        .iter()
        .filter_map(|e| encoder.encode(e))
        .flatten()
        .collect()
}

/// A device server on loopback that sends `bytes` to the first connection and keeps it open.
fn serve(bytes: Vec<u8>) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a port");
    let port = listener.local_addr().expect("an address").port();
    std::thread::spawn(move || {
        if let Ok((mut stream, _)) = listener.accept() {
            let _ = stream.write_all(&bytes);
            std::thread::sleep(Duration::from_secs(60));
        }
    });
    port
}

/// A pit of one Baccarat table `T1` under `rules`, its Angel Eye at `port`.
fn pit(rules: &str, port: u16, alert_rounds: u32) -> PitConfig {
    PitConfig::from_toml(&format!(
        "[site]\nname = \"Surv\"\n[surveillance]\nexposure_alert_rounds = {alert_rounds}\n\
         [[table]]\nname = \"T1\"\ngame = \"baccarat\"\nrules = {rules:?}\n\
         device = {{ protocol = \"angel-eye\" }}\n\
         link = {{ kind = \"tcp\", address = \"127.0.0.1:{port}\" }}\n"
    ))
    .expect("a pit definition")
}

fn start(db: &Path, pit: PitConfig) -> Desk {
    let (desk, updates) = Desk::start(DeskOptions {
        pit,
        ..DeskOptions::demo(db.to_owned())
    })
    .expect("the desk starts");
    drop(updates);
    desk
}

/// Waits until the watch holds `rounds` rounds of T1's shoe `shoe`.
fn wait_for(desk: &Desk, shoe: u32, rounds: usize) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let held = desk.exposure.with(|w| {
            w.tables
                .get("T1")
                .filter(|t| t.shoe == shoe)
                .map_or(0, |t| t.rounds.len())
        });
        if held >= rounds {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "the watch holds {held} rounds of shoe {shoe}, not {rounds}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The NZ book with one more side bet paying far too much: the house is behind on it from the
/// first round.
fn generous_book(dir: &Path) -> String {
    let text = pitwatch_games::book::book_text("nz-baccarat").expect("a built-in book");
    let text = text.replacen(
        "[[wagers]]",
        "[[wagers]]\nwager = \"dragon_7\"\npays = 60\ncite = \"a promotion\"\n\n[[wagers]]",
        1,
    );
    let text = text.replacen("id = \"nz-baccarat\"", "id = \"generous\"", 1);
    // The book's own Dragon 7 at 40 to 1 stays listed once: the promotion replaces it.
    let text = text.replacen(
        "[[wagers]]\nwager = \"dragon_7\"\npays = 40\ncite = \"side bet: the house's pay table (a Banker win with three cards totalling 7)\"\n\n",
        "",
        1,
    );
    let path = dir.join("generous.toml");
    std::fs::write(&path, text).expect("the book is written");
    path.display().to_string()
}

#[test]
fn the_live_figures_are_the_records_and_only_surveillance_reads_them() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let db = dir.path().join("pit.db");
    let book = RuleBook::load("nz-baccarat").expect("a book");
    let port = serve(dealt(&book, 2));
    let desk = start(&db, pit("nz-baccarat", port, 3));
    desk.create_first_admin("alice", ALICE).expect("the admin");
    desk.add_user("bob", "surveillance", BOB).expect("bob");
    desk.add_user("sue", "supervisor", SUP).expect("sue");
    // The whole of the first shoe and the start of the second.
    wait_for(&desk, 2, 2);

    // A supervisor sees none of it, and the attempt is audited.
    desk.logout().expect("logged out");
    desk.login("sue", SUP).expect("sue logs in");
    assert_eq!(
        desk.pit_exposure().expect_err("refused").code,
        ErrorCode::Forbidden
    );
    assert_eq!(
        desk.shoe_exposure("T1", Some(1)).expect_err("refused").code,
        ErrorCode::Forbidden
    );
    let out = dir.path().join("sue.csv");
    assert_eq!(
        desk.export_exposure_report_to("T1", 1, ReportFormat::Csv, &out)
            .expect_err("refused")
            .code,
        ErrorCode::Forbidden
    );
    assert!(!out.exists());

    // Surveillance does: the pit's list, the current shoe live, the first from the record.
    desk.logout().expect("logged out");
    desk.login("bob", BOB).expect("bob logs in");
    let pit = desk.pit_exposure().expect("the pit's exposure");
    assert_eq!(pit.tables.len(), 1);
    let t1 = &pit.tables[0];
    assert_eq!((t1.table.as_str(), t1.shoe), ("T1", 2));
    let next = t1.next.as_ref().expect("the next round's figures");
    assert!(next.figures.iter().any(|f| f.name == "Dragon 7 (40 to 1)"));
    let worst = t1.worst.as_ref().expect("a worst wager");
    assert!(next
        .figures
        .iter()
        .filter(|f| f.wager)
        .all(|f| f.value >= worst.value));

    let first = desk.shoe_exposure("T1", Some(1)).expect("shoe 1");
    let rounds: Vec<u32> = first.rounds.iter().map(|r| r.round).collect();
    assert!(rounds.len() > 40, "{rounds:?}");
    assert!(
        rounds.iter().copied().eq(1..=rounds.len() as u32),
        "every round once, in order: {rounds:?}"
    );
    // Followed live, the second shoe is what the record gives it (the alerts' rounds counted on
    // the same figures).
    wait_for(&desk, 2, 5);
    let live = desk.exposure.with(|w| w.tables["T1"].rounds.clone());
    let mut store = test_store(&db);
    let bob = Principal {
        user: "bob".into(),
        role: pitwatch_store::Role::Surveillance,
        workstation: "test".into(),
    };
    let from_record = shoe_exposure(
        &mut store,
        &bob,
        "T1",
        2,
        pitwatch_transport::SystemClock.now(),
    )
    .expect("the record's");
    let seqs = |r: &[pitwatch_games::exposure::RoundExposure]| {
        r.iter()
            .map(|r| (r.round, r.after_seq, r.cards_left))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        seqs(&live),
        seqs(&from_record[..live.len().min(from_record.len())])
    );
    assert_eq!(live[..], from_record[..live.len()]);
    assert_eq!(live[0].round, 1, "the second shoe starts at round 1");

    // Exported as CSV and PDF, each audited with the file.
    let csv = dir.path().join("shoe1.csv");
    desk.export_exposure_report_to("T1", 1, ReportFormat::Csv, &csv)
        .expect("the CSV");
    let text = std::fs::read_to_string(&csv).expect("written");
    assert!(text.starts_with("table,shoe,round,"), "{text}");
    assert!(text.contains("\"Dragon 7 (40 to 1)\""), "{text}");
    let pdf = dir.path().join("shoe1.pdf");
    desk.export_exposure_report_to("T1", 1, ReportFormat::Pdf, &pdf)
        .expect("the PDF");
    assert!(std::fs::read(&pdf).expect("written").starts_with(b"%PDF"));
    desk.stop();

    let audit = |action: &str| {
        store
            .audit_entries(action)
            .expect("audit rows")
            .into_iter()
            .map(|e| (e.user, e.subject))
            .collect::<Vec<_>>()
    };
    let viewed = audit(VIEWED);
    assert!(viewed.contains(&("bob".into(), "pit".into())), "{viewed:?}");
    assert!(
        viewed.contains(&("bob".into(), "table T1 shoe 1".into())),
        "{viewed:?}"
    );
    assert!(viewed.iter().all(|(user, _)| user == "bob"), "{viewed:?}");
    assert_eq!(audit(EXPORTED).len(), 2);
    let refused = audit(FORBIDDEN);
    assert_eq!(
        refused.iter().filter(|(user, _)| user == "sue").count(),
        3,
        "{refused:?}"
    );
    assert!(store.verify().expect("verified").intact());
}

#[test]
fn a_wager_in_the_players_favour_raises_one_alert_kept_across_a_restart() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let db = dir.path().join("pit.db");
    let rules = generous_book(dir.path());
    let book = RuleBook::load("nz-baccarat").expect("a book");
    let bytes = dealt(&book, 1);
    let desk = start(&db, pit(&rules, serve(bytes), 3));
    desk.create_first_admin("alice", ALICE).expect("the admin");
    wait_for(&desk, 1, 10);
    let seen = desk.pit_exposure().expect("an admin reads it");
    assert_eq!(seen.alert_after_rounds, 3);
    assert_eq!(seen.alerts.len(), 1, "{:?}", seen.alerts);
    let alert = &seen.alerts[0];
    assert_eq!(alert.wager, "Dragon 7 (60 to 1)");
    assert_eq!((alert.shoe, alert.round, alert.rounds_behind), (1, 3, 3));
    assert!(alert.house_edge < 0.0);
    let worst = seen.tables[0].worst.as_ref().expect("a worst wager");
    assert_eq!(worst.name, "Dragon 7 (60 to 1)");
    assert!(worst.house_behind);
    assert_eq!(worst.cite, "a promotion");

    // The banner's alerts: the shoe being dealt's, for an administrator, the look audited once
    // however often the window asks; refused to a supervisor, the refusal audited.
    let banner = desk.exposure_alerts().expect("an admin reads them");
    assert_eq!(banner, seen.alerts);
    desk.exposure_alerts().expect("asked again");
    let looks = || {
        test_store(&db)
            .audit_entries(VIEWED)
            .expect("rows")
            .into_iter()
            .filter(|r| r.subject == super::ALERTS)
            .count()
    };
    assert_eq!(looks(), 1);
    desk.add_user("sue", "supervisor", SUP).expect("sue");
    desk.logout().expect("logged out");
    desk.login("sue", SUP).expect("sue logs in");
    assert_eq!(
        desk.exposure_alerts().expect_err("refused").code,
        ErrorCode::Forbidden
    );
    let refused = test_store(&db).audit_entries(FORBIDDEN).expect("rows");
    assert!(
        refused
            .iter()
            .any(|r| r.user == "sue" && r.detail.contains(super::ALERTS)),
        "{refused:?}"
    );
    assert_eq!(looks(), 1);
    desk.stop();
    drop(desk);

    // Started again on the same record, with nobody dealing: the shoe is taken up from the
    // record, its alert found again and not written twice.
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a port")
        .port();
    let desk = start(&db, pit(&rules, port, 3));
    desk.login("alice", ALICE).expect("alice logs in");
    let deadline = Instant::now() + Duration::from_secs(30);
    let seen = loop {
        let seen = desk.pit_exposure().expect("read");
        if !seen.alerts.is_empty() || Instant::now() > deadline {
            break seen;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(seen.alerts.len(), 1, "{:?}", seen.alerts);
    desk.stop();
    let store = test_store(&db);
    let alerts = store.audit_entries(watch::ALERT).expect("rows");
    assert_eq!(alerts.len(), 1, "{alerts:?}");
    assert_eq!(alerts[0].user, watch::BY);
    assert_eq!(alerts[0].subject, "table T1 shoe 1");
    assert!(alerts[0].detail.contains("Dragon 7 (60 to 1)"));
}
