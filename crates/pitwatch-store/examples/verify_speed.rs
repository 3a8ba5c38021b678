//! How fast a large signed record is verified in full, built through the store's own write API
//! (no API crate, no simulator).
//!
//! Writes `FRAMES` frames spread over `TABLES` gaming tables (each frame a raw chunk, a frame and
//! an event row, every batch also an audit row), committed in transactions of `GROUP` frames,
//! each ending with a signed checkpoint (and a journal line beside the record). Then it verifies
//! the record in full `RUNS` times, and reports each run's time and rows per second, the rows in
//! every chain, and a fresh process's first write (the write gate's start-up check).
//!
//! ```sh
//! cargo run --release -p pitwatch-store --example verify_speed -- 480000 100 4 3 [db-path]
//! ```
//!
//! With a `db-path` that exists, the record is reused and only verified.

use std::time::Instant;

use pitwatch_model::{EventKind, TableEvent, Timestamp};
use pitwatch_store::{Depth, DeviceIdentity, Sealing, SigningKey, Store};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

fn arg(args: &[String], index: usize, default: u64) -> u64 {
    args.get(index)
        .and_then(|a| a.parse().ok())
        .unwrap_or(default)
        .max(1)
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let frames = arg(&args, 0, 480_000);
    let group = arg(&args, 1, 100);
    let tables = arg(&args, 2, 4);
    let runs = arg(&args, 3, 3);
    let dir = tempfile::tempdir()?;
    let db = args
        .get(4)
        .map_or_else(|| dir.path().join("record.db"), std::path::PathBuf::from);
    let key = db.with_file_name("verify-speed.key");
    if !db.exists() {
        let started = Instant::now();
        ingest(&db, &key, frames, group, tables)?;
        println!(
            "built: {frames} frames over {tables} tables in transactions of {group}, each signed: {:.1} s",
            started.elapsed().as_secs_f64()
        );
    }
    let trusted = SigningKey::load(&key)?.public();
    let mut store = Store::open_read_only(&db)?;
    store.trust(vec![trusted]);
    let size = std::fs::metadata(&db)?.len();
    let options = store.verify_options(Depth::Full);
    let mut report = None;
    for run in 1..=runs {
        let started = Instant::now();
        let this = store.verify_with(&options)?;
        let seconds = started.elapsed().as_secs_f64();
        let rows = this.rows_checked();
        println!(
            "full verification, run {run}: {rows} rows ({:.0} MiB), intact {}: {seconds:.3} s, {:.2} M rows/s",
            size as f64 / 1_048_576.0,
            this.intact(),
            rows as f64 / seconds / 1e6
        );
        report = Some(this);
    }
    if let Some(report) = report {
        let chains: Vec<String> = report
            .chains
            .iter()
            .map(|c| format!("{} {}", c.table, c.length))
            .collect();
        println!("chains: {}", chains.join(", "));
        if !report.intact() {
            println!("problems: {}", report.problems.join("; "));
        }
    }
    let mut first = f64::MAX;
    for _ in 0..3 {
        let mut writer = Store::open(&db, &Sealing::key_file(&key))?;
        let started = Instant::now();
        let batch = writer.batch(Timestamp::from_unix_millis(1_900_000_000_000).ok_or("time")?)?;
        drop(batch);
        first = first.min(started.elapsed().as_secs_f64());
    }
    let journal = store
        .journals()
        .first()
        .map_or(0, |j| std::fs::metadata(j).map_or(0, |m| m.len()));
    println!(
        "a process's first write transaction (the gate's check, journal {journal} bytes): best of 3 {:.1} ms",
        first * 1e3
    );
    Ok(())
}

fn ingest(
    db: &std::path::Path,
    key: &std::path::Path,
    frames: u64,
    group: u64,
    tables: u64,
) -> Result<()> {
    let mut store = Store::open(db, &Sealing::key_file(key))?;
    let start = Timestamp::from_unix_millis(1_796_000_000_000).ok_or("time")?;
    let mut sessions = Vec::new();
    for t in 0..tables {
        let table = store.ensure_table(&format!("BAC-{t}"), "baccarat", "nz-baccarat", start)?;
        let device = store.ensure_device(
            &DeviceIdentity {
                protocol: "angel-eye".into(),
                port: format!("bench-{t}"),
                ..Default::default()
            },
            start,
        )?;
        let session = store.start_session(table, device, start)?;
        sessions.push((table, session));
    }
    let card = "8S".parse()?;
    let bytes = [0x05, b'1', b'D', 0x81, 0xB8, 0x03, b'4', b'F'];
    let mut seq = 0;
    let mut per_table = vec![0u64; sessions.len()];
    while seq < frames {
        // One batch a second of record time, so the journal gets a line a batch.
        let at = Timestamp::from_unix_millis(start.unix_millis() + (seq / group) as i64 * 1000)
            .ok_or("time")?;
        let mut batch = store.batch(at)?;
        for _ in 0..group.min(frames - seq) {
            let index = (seq % tables) as usize;
            let (table, session) = sessions[index];
            seq += 1;
            per_table[index] += 1;
            let chunk = batch.append_chunk(session, at, &bytes)?;
            let frame = batch.append_frame(session, chunk, at, &bytes, None)?;
            let event = TableEvent::new(per_table[index], EventKind::card(card)).at(at);
            batch.append_event(table, Some(session), Some(frame), &event)?;
        }
        batch.append_audit("bench", "bench.batch", "record", &seq.to_string(), at)?;
        batch.commit()?;
    }
    Ok(())
}
