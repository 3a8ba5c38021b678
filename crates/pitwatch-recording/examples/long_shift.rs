//! A long shift's record, and how fast the incident list and one shoe's replay read it.
//!
//! Builds a record of `TABLES` Angel Eye tables with `SHOES` honest 8-deck shoes each
//! (`pitwatch-dealer`, encoded to device bytes and recorded through the live recorder: raw chunk,
//! frame and event rows, hash-chained), a dealer fault injected every `EVERY` rounds (each opens an
//! incident), then a supervisor's workflow (every third incident acknowledged, every fifth
//! resolved). Then it times, as the desk calls them:
//!
//! - the incident list: the first page, a filtered page, a page deep in history, the tiles'
//!   unresolved counts, and (as before paging) reading every incident;
//! - replay: the shoe list, one shoe replayed from the shoe before with the engine's carry, and
//!   (as before) the whole table rebuilt; verification in full and of what was appended since.
//!
//! ```sh
//! cargo run --release -p pitwatch-recording --example long_shift -- 50 20 8 [db-path]
//! ```
//!
//! With a `db-path` that exists, the record is reused rather than built again.

use std::time::Instant;

use pitwatch_baccarat::RuleBook;
use pitwatch_dealer::{deal, DealerConfig, FaultKind, FaultPlan};
use pitwatch_model::Timestamp;
use pitwatch_protocols::ProtocolConfig;
use pitwatch_recording::recorder::TableRecorder;
use pitwatch_recording::replay;
use pitwatch_store::{IncidentFilter, IncidentId, Role, Sealing, Status, Store};

const ROUND_FAULTS: &[FaultKind] = &[
    FaultKind::OutOfOrderCard,
    FaultKind::UnauthorisedThirdCard,
    FaultKind::MissingThirdCard,
    FaultKind::WrongDeclaredResult,
    FaultKind::CardExposed,
];

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize, default: u32| args.get(i).and_then(|a| a.parse().ok()).unwrap_or(default);
    let tables = arg(0, 50);
    let shoes = arg(1, 20);
    let every = arg(2, 8).max(1);
    let dir = tempfile::tempdir()?;
    let db = args
        .get(3)
        .map_or_else(|| dir.path().join("shift.db"), std::path::PathBuf::from);
    if !db.exists() {
        let started = Instant::now();
        build(&db, tables, shoes, every)?;
        println!(
            "built {} in {:.0} s",
            db.display(),
            started.elapsed().as_secs_f64()
        );
    }
    measure(&db, tables)
}

fn build(db: &std::path::Path, tables: u32, shoes: u32, every: u32) -> Result<()> {
    let mut store = Store::open(db, &Sealing::key_file(db.with_file_name("signing.key")))?;
    let book = RuleBook::load("nz-baccarat")?;
    let start = Timestamp::from_unix_millis(1_796_025_600_000).ok_or("time")?;
    for t in 0..tables {
        let name = format!("T{:02}", t + 1);
        let config = DealerConfig {
            shoes,
            ..DealerConfig::angel_eye()
        };
        let mut faults = Vec::new();
        let mut k = t as usize;
        for shoe in 1..=shoes {
            let mut round = 1 + t % every;
            while round < 70 {
                faults.push(FaultPlan {
                    kind: ROUND_FAULTS[k % ROUND_FAULTS.len()],
                    shoe,
                    round,
                });
                k += 1;
                round += every;
            }
        }
        let session = deal(&book.shoe_book(), &config, &faults, 1000 + u64::from(t));
        let protocol = ProtocolConfig::by_name("angel-eye").ok_or("protocol")?;
        let mut encoder = protocol.encoder();
        let mut recorder = TableRecorder::resume(
            &mut store,
            &name,
            "baccarat",
            book.clone(),
            None,
            Some(protocol),
            start,
        )?;
        recorder.connect(&mut store, "/dev/ttyUSB0", Default::default(), start)?;
        let mut derived = Vec::new();
        let mut batch = store.batch(start)?;
        let mut at = start;
        for (i, event) in session.events.iter().enumerate() {
            at = event.at.unwrap_or(at);
            if let Some(bytes) = encoder.encode(event) {
                recorder.ingest(&mut batch, at, &bytes, &mut derived)?;
            }
            if i % 500 == 499 {
                batch.commit()?;
                derived.clear();
                batch = store.batch(start)?;
            }
        }
        let id = recorder
            .disconnect(&mut batch, at, &mut derived)?
            .ok_or("a session")?;
        batch.commit()?;
        store.end_session(id, at, "end of shift")?;
    }
    let end = Timestamp::from_unix_millis(start.unix_millis() + 86_400_000).ok_or("time")?;
    store.add_user("admin", "ana", Role::Supervisor, "correct horse", end)?;
    let all = store.incidents(&IncidentFilter::default())?;
    for (k, incident) in all.iter().enumerate() {
        if k % 5 == 0 {
            store.resolve(incident.id, "ana", "dealt with at the table", end)?;
        } else if k % 3 == 0 {
            store.acknowledge(incident.id, "ana", end)?;
        }
    }
    Ok(())
}

/// Runs `f` `n` times; returns its result and the median and slowest times in ms.
fn time<T>(n: usize, mut f: impl FnMut() -> Result<T>) -> Result<(T, f64, f64)> {
    let mut times = Vec::with_capacity(n);
    let mut last = None;
    for _ in 0..n {
        let started = Instant::now();
        last = Some(f()?);
        times.push(started.elapsed().as_secs_f64() * 1000.0);
    }
    times.sort_by(f64::total_cmp);
    let out = last.ok_or("no run")?;
    Ok((out, times[times.len() / 2], times[times.len() - 1]))
}

fn row(what: &str, median: f64, max: f64, note: &str) {
    println!("| {what} | {median:.2} ms | {max:.2} ms | {note} |");
}

fn measure(db: &std::path::Path, tables: u32) -> Result<()> {
    let mut store = Store::open_read_only(db)?;
    store.trust(vec![pitwatch_store::SigningKey::load(
        &db.with_file_name("signing.key"),
    )?
    .public()]);
    let report = store.verify()?;
    let rows: Vec<(String, u64)> = report
        .chains
        .iter()
        .map(|c| (c.table.to_owned(), c.rows))
        .collect();
    println!("record: {rows:?}, intact: {}", report.intact());
    let size = std::fs::metadata(db)?.len();
    println!("database: {:.0} MiB", size as f64 / 1_048_576.0);
    println!();
    println!("| what | median | slowest | |");
    println!("|---|---|---|---|");

    let all = IncidentFilter::default();
    let (page, m, x) = time(20, || Ok(store.incident_page(&all, None, 100)?))?;
    row(
        "first incident page (100 of all)",
        m,
        x,
        &format!("{} match", page.total),
    );
    let middle = IncidentId(page.incidents.first().map_or(0, |i| i.id.0) / 2);
    let (page, m, x) = time(20, || Ok(store.incident_page(&all, Some(middle), 100)?))?;
    row(
        "a page half-way back (cursor)",
        m,
        x,
        &format!("{} rows", page.incidents.len()),
    );
    let filtered = IncidentFilter {
        table: Some(format!("T{:02}", tables.min(7))),
        status: Some(Status::Open),
        severity: Some("high".into()),
        ..Default::default()
    };
    let (page, m, x) = time(20, || Ok(store.incident_page(&filtered, None, 100)?))?;
    row(
        "filtered page: table, open, high",
        m,
        x,
        &format!("{} match", page.total),
    );
    let code = IncidentFilter {
        code: Some("MISSING_THIRD_CARD".into()),
        unresolved: true,
        since: Timestamp::from_unix_millis(1_796_025_600_000 + 3_600_000),
        until: Timestamp::from_unix_millis(1_796_025_600_000 + 7_200_000),
        ..Default::default()
    };
    let (page, m, x) = time(20, || Ok(store.incident_page(&code, None, 100)?))?;
    row(
        "filtered page: code, unresolved, one hour",
        m,
        x,
        &format!("{} match", page.total),
    );
    let (counts, m, x) = time(20, || Ok(store.open_counts()?))?;
    row(
        "tile counts (unresolved by table and severity)",
        m,
        x,
        &format!("{} groups", counts.len()),
    );
    let (every, m, x) = time(5, || {
        let mut rows = store.incidents(&all)?;
        rows.sort_by_key(|r| std::cmp::Reverse(r.id));
        Ok(rows)
    })?;
    row(
        "every incident, sorted (the list and the counts before paging)",
        m,
        x,
        &format!("{} rows", every.len()),
    );

    let name = format!("T{:02}", tables.min(7));
    let table = store.table_id(&name)?.ok_or("table")?;
    let last = store.last_shoe(table)?.ok_or("a shoe")?;
    let (listed, m, x) = time(20, || Ok(store.shoe_listing(table, None, 50)?))?;
    row(
        &format!("shoe list of {name} (50 newest)"),
        m,
        x,
        &format!("{} shoes", listed.len()),
    );
    let (run, m, x) = time(10, || Ok(replay::replay_shoe(&store, &name, last)?))?;
    row(
        &format!("replay shoe {last} of {name} (the last)"),
        m,
        x,
        &format!(
            "{} steps, {} events run, {} chunks decoded",
            run.steps.len(),
            run.events_run,
            run.chunks_decoded
        ),
    );
    let mid = (last / 2).max(1);
    let (run, m, x) = time(10, || Ok(replay::replay_shoe(&store, &name, mid)?))?;
    row(
        &format!("replay shoe {mid} of {name}"),
        m,
        x,
        &format!(
            "{} steps, {} events run, {} chunks decoded",
            run.steps.len(),
            run.events_run,
            run.chunks_decoded
        ),
    );
    let (whole, m, x) = time(3, || Ok(replay::rebuild(&store, &name)?))?;
    row(
        &format!("rebuild all of {name} (before)"),
        m,
        x,
        &format!("{} steps", whole.steps.len()),
    );
    let (full, m, x) = time(3, || Ok(store.verify()?))?;
    row(
        "verify every chain in full (before: every replay)",
        m,
        x,
        &format!("{} rows", full.rows_checked()),
    );
    let quick = store.verify_options(pitwatch_store::Depth::Quick);
    let (checked, m, x) = time(10, || Ok(store.verify_with(&quick)?))?;
    row(
        "quick verification (what start-up runs)",
        m,
        x,
        &format!("intact {}", checked.intact()),
    );
    let marks = full.marks().ok_or("intact")?;
    let (since, m, x) = time(20, || Ok(store.verify_after(&marks)?))?;
    row(
        "verify what was appended since (nothing)",
        m,
        x,
        &format!("{} rows", since.rows_checked()),
    );
    drop(store);
    resume_all(db, tables)?;
    Ok(())
}

/// Times what a monitor's start does per table: the recorder resumed from the record (on a copy,
/// since resuming records where it resumed).
fn resume_all(db: &std::path::Path, tables: u32) -> Result<()> {
    let dir = tempfile::tempdir()?;
    let copy = dir.path().join("copy.db");
    std::fs::copy(db, &copy)?;
    let mut store = Store::open(&copy, &Sealing::key_file(db.with_file_name("signing.key")))?;
    let book = RuleBook::load("nz-baccarat")?;
    let now = Timestamp::from_unix_millis(1_796_200_000_000).ok_or("time")?;
    let started = Instant::now();
    for t in 0..tables {
        let name = format!("T{:02}", t + 1);
        TableRecorder::resume(
            &mut store,
            &name,
            "baccarat",
            book.clone(),
            None,
            ProtocolConfig::by_name("angel-eye"),
            now,
        )?;
    }
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    row(
        &format!("resume the recorders of all {tables} tables (start-up)"),
        ms,
        ms,
        "once, on a copy",
    );
    Ok(())
}
