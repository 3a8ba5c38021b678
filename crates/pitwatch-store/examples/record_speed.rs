//! How fast the signed record is written and verified, on a real file (WAL, `synchronous = FULL`).
//!
//! Writes `FRAMES` frames as the monitor does (each a raw chunk, a frame and an event row, all
//! hash-chained), committed in transactions of `GROUP` frames, each ending with a signed
//! checkpoint, and reports the durable ingest rate. Then it verifies the record in full (every
//! row hashed again, SQLite's integrity check, derived tables, schema, signature, journal) and
//! quickly (what start-up runs), and reports rows per second and times.
//!
//! ```sh
//! cargo run --release -p pitwatch-store --example record_speed -- 400000 100 [db-path]
//! ```
//!
//! With a `db-path` that exists, the record is reused and only verified. Every batch goes
//! through the store's write gate (the record checked before it is extended). Last, a login
//! (`Store::authenticate`, the account read from its chained fact and every facts row since
//! hashed again) is timed beside the argon2 check alone, and a fresh process's first write (the
//! gate's start-up check) is timed.

use std::time::Instant;

use pitwatch_model::{EventKind, TableEvent, Timestamp};
use pitwatch_store::{Depth, DeviceIdentity, Sealing, SigningKey, Store};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let frames: u64 = args.first().and_then(|a| a.parse().ok()).unwrap_or(400_000);
    let group: u64 = args
        .get(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(100)
        .max(1);
    let dir = tempfile::tempdir()?;
    let db = args
        .get(2)
        .map_or_else(|| dir.path().join("record.db"), std::path::PathBuf::from);
    let key = db.with_file_name("record-speed.key");
    if !db.exists() {
        let started = Instant::now();
        ingest(&db, &key, frames, group)?;
        let seconds = started.elapsed().as_secs_f64();
        println!(
            "ingest: {frames} frames in transactions of {group}, each signed: {seconds:.1} s, {:.0} frames/s",
            frames as f64 / seconds
        );
    }
    let trusted = SigningKey::load(&key)?.public();
    let mut store = Store::open_read_only(&db)?;
    store.trust(vec![trusted]);
    let size = std::fs::metadata(&db)?.len();
    for (depth, name, times) in [
        (Depth::Full, "full verification", 2),
        (Depth::Quick, "quick verification (start-up)", 10),
    ] {
        let options = store.verify_options(depth);
        let mut best = f64::MAX;
        let mut report = None;
        for _ in 0..times {
            let started = Instant::now();
            report = Some(store.verify_with(&options)?);
            best = best.min(started.elapsed().as_secs_f64());
        }
        let report = report.ok_or("no run")?;
        let rows: i64 = report.chains.iter().map(|c| c.length).sum();
        println!(
            "{name}: {rows} rows ({:.0} MiB), {} rows hashed again, intact {}: best of {times} {:.3} s{}",
            size as f64 / 1_048_576.0,
            report.rows_checked(),
            report.intact(),
            best,
            if depth == Depth::Full {
                format!(", {:.0} rows/s", rows as f64 / best)
            } else {
                String::new()
            }
        );
    }
    // A login: the account from its chained fact, pinned to the signed heads, then argon2.
    let mut login = f64::MAX;
    for _ in 0..5 {
        let started = Instant::now();
        store.authenticate("bench", PASSWORD)?;
        login = login.min(started.elapsed().as_secs_f64());
    }
    let hash = argon2::PasswordHash::new(DECOY).map_err(|e| e.to_string())?;
    let mut argon = f64::MAX;
    for _ in 0..5 {
        let started = Instant::now();
        let _ = argon2::PasswordVerifier::verify_password(
            &argon2::Argon2::default(),
            PASSWORD.as_bytes(),
            &hash,
        );
        argon = argon.min(started.elapsed().as_secs_f64());
    }
    println!(
        "login (account from its chained fact, then argon2): best of 5 {:.1} ms; argon2 alone {:.1} ms",
        login * 1e3,
        argon * 1e3
    );
    // A fresh process's first write: the write gate's start-up check, then one frame.
    let mut first = f64::MAX;
    for _ in 0..3 {
        let mut writer = Store::open(&db, &Sealing::key_file(&key))?;
        let started = Instant::now();
        let batch = writer.batch(Timestamp::from_unix_millis(1_900_000_000_000).ok_or("time")?)?;
        drop(batch);
        first = first.min(started.elapsed().as_secs_f64());
    }
    println!(
        "a process's first write transaction (the gate's check): best of 3 {:.1} ms",
        first * 1e3
    );
    Ok(())
}

/// The bench user's password, and an argon2 hash of it with the default parameters.
const PASSWORD: &str = "a long bench passphrase";
const DECOY: &str =
    "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0$5m7B0ZqMQ4tzmxbYEHk4HbEbPH2cQkqBMy3IVTYDMAs";

fn ingest(db: &std::path::Path, key: &std::path::Path, frames: u64, group: u64) -> Result<()> {
    let mut store = Store::open(db, &Sealing::key_file(key))?;
    let start = Timestamp::from_unix_millis(1_796_000_000_000).ok_or("time")?;
    let table = store.ensure_table("BAC-1", "baccarat", "nz-baccarat", start)?;
    let device = store.ensure_device(
        &DeviceIdentity {
            protocol: "angel-eye".into(),
            port: "bench".into(),
            ..Default::default()
        },
        start,
    )?;
    let session = store.start_session(table, device, start)?;
    store.add_user(
        "bench",
        "bench",
        pitwatch_store::Role::Supervisor,
        PASSWORD,
        start,
    )?;
    let card = "8S".parse()?;
    let bytes = [0x05, b'1', b'D', 0x81, 0xB8, 0x03, b'4', b'F'];
    let mut seq = 0;
    while seq < frames {
        let at =
            Timestamp::from_unix_millis(start.unix_millis() + seq as i64 * 50).ok_or("time")?;
        let mut batch = store.batch(at)?;
        for _ in 0..group.min(frames - seq) {
            seq += 1;
            let chunk = batch.append_chunk(session, at, &bytes)?;
            let frame = batch.append_frame(session, chunk, at, &bytes, None)?;
            let event = TableEvent::new(seq, EventKind::card(card)).at(at);
            batch.append_event(table, Some(session), Some(frame), &event)?;
        }
        batch.commit()?;
    }
    Ok(())
}
