//! Shuffle integrity at a table of every game (issue 27): a Blackjack table whose shoes are dealt
//! in the very order of the shoe before (no shuffle at all) goes through the live recorder as
//! device bytes. Its shoes are analysed live, by a replay of the whole table, by each shoe's replay
//! on its own and from the recorded events, all alike; `SHUFFLE_SUSPECT` is raised only under a
//! book that cites a rule for it (the built-in `nz-blackjack` cites none, so its shoes get their
//! quality alone), and where it is raised, live and replay raise it at the same event.

use pitwatch_blackjack::dealer::{deal, Config};
use pitwatch_blackjack::Book;
use pitwatch_model::{EventKind, Timestamp};
use pitwatch_protocols::ProtocolConfig;
use pitwatch_recording::recorder::TableRecorder;
use pitwatch_recording::{replay, shuffle};
use pitwatch_shuffle::Verdict;
use pitwatch_store::{IncidentFilter, Sealing, Store};

/// `nz-blackjack` with a rule cited for `SHUFFLE_SUSPECT`, under an id of its own.
fn citing_book() -> (Book, String) {
    let text = Book::builtin_text("nz-blackjack")
        .unwrap()
        .replacen("id = \"nz-blackjack\"", "id = \"nz-blackjack-shuffle\"", 1)
        .replacen(
            "[cite]\n",
            "[cite]\nSHUFFLE_SUSPECT = \"shuffle (cards randomly intermixed)\"\n",
            1,
        );
    (Book::from_toml(&text).unwrap(), text)
}

/// Records three copies of one dealt shoe at table BJ-9 under `book` (its text kept when given).
fn record(book: &Book, text: Option<&str>) -> (tempfile::TempDir, Store) {
    let dealt = deal(
        book,
        &Config {
            seed: 11,
            shoes: 1,
            ..Config::default()
        },
    );
    assert!(
        matches!(dealt.events[0].kind, EventKind::Shuffled { .. }),
        "the shoe starts with its shuffle"
    );
    let dir = tempfile::tempdir().unwrap();
    let sealing = Sealing::key_file(dir.path().join("signing.key"));
    let mut store = Store::open(dir.path().join("pit.db"), &sealing).unwrap();
    let protocol = ProtocolConfig::by_name("pitwatch").unwrap();
    let mut encoder = protocol.encoder();
    let start = Timestamp::from_unix_millis(1_796_025_600_000).unwrap();
    let mut recorder = TableRecorder::resume(
        &mut store,
        "BJ-9",
        "blackjack",
        book.clone(),
        text,
        Some(protocol),
        start,
    )
    .unwrap();
    recorder
        .connect(&mut store, "/dev/ttyUSB0", Default::default(), start)
        .unwrap();
    let mut derived = Vec::new();
    let mut batch = store.batch(start).unwrap();
    for _ in 0..3 {
        for event in &dealt.events {
            if let Some(bytes) = encoder.encode(event) {
                recorder
                    .ingest(&mut batch, start, &bytes, &mut derived)
                    .unwrap();
            }
        }
    }
    let session = recorder
        .disconnect(&mut batch, start, &mut derived)
        .unwrap()
        .unwrap();
    batch.commit().unwrap();
    store.end_session(session, start, "end of test").unwrap();
    (dir, store)
}

fn suspect_incidents(store: &Store) -> Vec<(u64, Option<u32>, String)> {
    store
        .incidents(&IncidentFilter::default())
        .unwrap()
        .into_iter()
        .filter(|i| i.code == "SHUFFLE_SUSPECT")
        .map(|i| (i.seq, i.shoe, i.message))
        .collect()
}

/// Checks the table's shuffles alike live, replayed whole, replayed a shoe at a time and from the
/// record; returns the incidents raised live.
fn judged_alike(store: &Store) -> Vec<(u64, Option<u32>, String)> {
    let live = suspect_incidents(store);
    let whole = replay::rebuild(store, "BJ-9").unwrap();
    assert!(whole.divergences.is_empty(), "{:?}", whole.divergences);
    // Shoe 2 kept the whole order of shoe 1: judged when shoe 3 started.
    let second = whole
        .shuffles
        .iter()
        .find(|s| s.shoe == 2 && !s.provisional)
        .expect("shoe 2 is judged when shoe 3 starts");
    assert_eq!(second.analysis.verdict, Verdict::Suspect, "{second:?}");
    let replayed: Vec<(u64, Option<u32>, String)> = whole
        .steps
        .iter()
        .flat_map(|s| &s.outputs)
        .filter_map(|o| match o {
            pitwatch_rules::TableOutput::Irregularity(i)
                if i.code == pitwatch_rules::IrregularityCode::ShuffleSuspect =>
            {
                Some((i.seq, Some(i.shoe), i.message.clone()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        replayed, live,
        "the whole table's replay raises what live did"
    );
    for shoe in [2, 3] {
        let one = replay::replay_shoe(store, "BJ-9", shoe).unwrap();
        assert!(one.divergences.is_empty(), "{:?}", one.divergences);
        // The analysis (the incident it raised is among the steps' outputs).
        let analysis = |s: &pitwatch_shuffle::ShoeShuffle| {
            (
                s.shoe,
                s.first_seq,
                s.last_seq,
                s.provisional,
                s.analysis.clone(),
            )
        };
        assert_eq!(
            one.shuffle.as_ref().map(analysis),
            whole.shuffles.iter().find(|s| s.shoe == shoe).map(analysis),
            "shoe {shoe} replayed alone"
        );
    }
    let table = store.table_id("BJ-9").unwrap().unwrap();
    let derived = shuffle::recorded_shoe_shuffles(store, table, &[1, 2, 3]).unwrap();
    let from_whole: Vec<_> = whole
        .shuffles
        .iter()
        .filter(|s| (1..=3).contains(&s.shoe))
        .map(|s| (s.shoe, s.analysis.verdict, s.provisional))
        .collect();
    let from_record: Vec<_> = derived
        .iter()
        .map(|s| (s.shoe, s.analysis.verdict, s.provisional))
        .collect();
    assert_eq!(
        from_record, from_whole,
        "the quality derived from the record"
    );
    live
}

#[test]
fn a_blackjack_shoe_is_analysed_and_raises_shuffle_suspect_only_where_the_book_cites_it() {
    // The built-in book cites no rule for SHUFFLE_SUSPECT: the shoes' quality, no incident.
    let (_dir, store) = record(&Book::builtin("nz-blackjack").unwrap(), None);
    assert_eq!(judged_alike(&store), Vec::new());

    // A book that cites one: an incident for shoe 2, live and replayed alike, citing it.
    let (book, text) = citing_book();
    let (_dir, store) = record(&book, Some(&text));
    let live = judged_alike(&store);
    assert!(
        live.iter().any(|(_, shoe, _)| *shoe == Some(2)),
        "shoe 2 is suspect: {live:?}"
    );
    let cited = store
        .incidents(&IncidentFilter::default())
        .unwrap()
        .into_iter()
        .filter(|i| i.code == "SHUFFLE_SUSPECT")
        .all(|i| i.rule == "shuffle (cards randomly intermixed)");
    assert!(cited, "each incident cites the book's rule");
}
