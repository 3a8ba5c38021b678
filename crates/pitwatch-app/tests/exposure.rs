//! The house's exposure is surveillance's (issue 29): on a shoe recorded live, surveillance and
//! administrators read each round's figures, every read an audit row; a supervisor is refused,
//! and the refusal is audited.

use pitwatch_api::ErrorCode;
use pitwatch_app::access::{Principal, FORBIDDEN};
use pitwatch_app::{accounts, exposure};
use pitwatch_baccarat::RuleBook;
use pitwatch_dealer::{deal, DealerConfig};
use pitwatch_model::Timestamp;
use pitwatch_protocols::ProtocolConfig;
use pitwatch_recording::recorder::TableRecorder;
use pitwatch_store::{Role, Sealing, Store};

const STRONG: &str = "plum kettle orbit 47 lantern";

fn t(seconds: i64) -> Timestamp {
    Timestamp::from_unix_millis(1_780_000_000_000 + seconds * 1000).unwrap()
}

fn who(user: &str, role: Role) -> Principal {
    Principal {
        user: user.into(),
        role,
        workstation: "surv-ws-1".into(),
    }
}

/// A record of one Baccarat shoe dealt honestly through an Angel Eye, with its users.
fn record(dir: &std::path::Path) -> Store {
    let mut store = Store::open(dir.join("pit.db"), &Sealing::key_file(dir.join("k"))).unwrap();
    let book = RuleBook::load("nz-baccarat").unwrap();
    let config = ProtocolConfig::by_name("angel-eye").unwrap();
    let start = t(0);
    let mut recorder = TableRecorder::resume(
        &mut store,
        "BAC-1",
        "baccarat",
        book.clone(),
        None,
        Some(config),
        start,
    )
    .unwrap();
    recorder
        .connect(&mut store, "/dev/ttyUSB0", Default::default(), start)
        .unwrap();
    let session = deal(
        &book.shoe_book(),
        &DealerConfig {
            shoes: 1,
            ..DealerConfig::angel_eye()
        },
        &[],
        7,
    );
    let mut encoder = config.encoder();
    let mut derived = Vec::new();
    let mut batch = store.batch(start).unwrap();
    for event in &session.events {
        if let Some(bytes) = encoder.encode(event) {
            recorder
                .ingest(&mut batch, event.at.unwrap_or(start), &bytes, &mut derived)
                .unwrap();
        }
    }
    batch.commit().unwrap();
    accounts::create_first_admin(&mut store, "root", STRONG, "pit-ws-3", t(1)).unwrap();
    let root = who("root", Role::Admin);
    accounts::add_user(&mut store, &root, "ana", Role::Supervisor, STRONG, t(2)).unwrap();
    accounts::add_user(&mut store, &root, "sam", Role::Surveillance, STRONG, t(2)).unwrap();
    store
}

fn rows(store: &Store, action: &str) -> Vec<pitwatch_store::AuditEntry> {
    let mut rows = store.recent_audit(&[action], 500).unwrap();
    // Oldest first.
    rows.sort_by_key(|e| e.id);
    rows
}

#[test]
fn surveillance_reads_every_rounds_exposure_and_each_read_is_audited() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = record(dir.path());
    let sam = who("sam", Role::Surveillance);
    let rounds = exposure::shoe_exposure(&mut store, &sam, "BAC-1", 1, t(10)).unwrap();
    assert!(
        rounds.len() > 40,
        "a figure before every round: {}",
        rounds.len()
    );
    // After the burn (its first card shown and the cards it burned, which this shoe reads):
    // near the published edges of a whole eight-deck shoe (7.6113% on Dragon 7), not on them.
    let first = &rounds[0];
    assert_eq!(first.round, 1);
    assert!(
        (405..416).contains(&first.cards_left),
        "{}",
        first.cards_left
    );
    let dragon = first
        .figures
        .iter()
        .find(|f| f.name.starts_with("Dragon 7"))
        .unwrap();
    assert!((dragon.value - 7.6113).abs() < 3.0, "{dragon:?}");
    assert!((dragon.value - 7.6113).abs() > 1e-6, "{dragon:?}");
    // The shoe runs down round by round.
    assert!(rounds.windows(2).all(|w| w[1].cards_left < w[0].cards_left));
    assert!(rounds.windows(2).all(|w| w[1].round == w[0].round + 1));
    // Read again by an administrator: two reads, two rows, each naming who and where.
    let root = who("root", Role::Admin);
    exposure::shoe_exposure(&mut store, &root, "BAC-1", 1, t(11)).unwrap();
    let viewed = rows(&store, exposure::VIEWED);
    let by: Vec<(&str, &str)> = viewed
        .iter()
        .map(|e| (e.user.as_str(), e.subject.as_str()))
        .collect();
    assert_eq!(
        by,
        [
            ("sam", "table BAC-1 shoe 1"),
            ("root", "table BAC-1 shoe 1")
        ]
    );
    assert!(viewed[0].detail.contains("surv-ws-1"), "{:?}", viewed[0]);
    assert!(viewed[0].detail.contains("surveillance"), "{:?}", viewed[0]);
    assert!(store.verify().unwrap().intact());
}

#[test]
fn a_supervisor_never_sees_the_exposure_and_the_attempt_is_audited() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = record(dir.path());
    let ana = who("ana", Role::Supervisor);
    let refused = exposure::shoe_exposure(&mut store, &ana, "BAC-1", 1, t(10)).unwrap_err();
    assert_eq!(refused.code, ErrorCode::Forbidden);
    assert!(rows(&store, exposure::VIEWED).is_empty());
    let forbidden = rows(&store, FORBIDDEN);
    assert_eq!(forbidden.len(), 1);
    assert_eq!(forbidden[0].user, "ana");
    assert_eq!(forbidden[0].subject, "view_exposure");
    assert!(
        forbidden[0].detail.contains("table BAC-1 shoe 1"),
        "{:?}",
        forbidden[0]
    );
}
