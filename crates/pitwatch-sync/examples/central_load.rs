//! Replication benchmarks (issue 16), against a real PostgreSQL started in a temporary folder by
//! `scripts/pg-test-server.sh`:
//!
//! - `live TABLES PACE SECONDS`: TABLES simulated tables (the simulator on pseudo-terminals,
//!   three Angel Eye shoes to one barcode shoe, at PACE× a dealer's pace) recorded by the real
//!   monitor, while an outbox ships the record continuously (a round every 50 ms, as
//!   `pitwatch sync` does with `--interval-ms 50`). The lag of each checkpoint (one per write
//!   transaction) is the time from its `at` (the writer's clock as it wrote it, before the commit)
//!   to the end of the round that stored it centrally. Afterwards the outbox catches up and every
//!   chain is compared row by row.
//! - `catchup TABLES MINUTES`: TABLES tables' worth of MINUTES of honest play at a dealer's pace
//!   is recorded first (through the real recorder, one write transaction per simulated 250 ms,
//!   as fast as the machine goes), as if the link had been down all along; then one outbox round
//!   from an empty server, timed.
//!
//! - `mirror TABLES MINUTES REPEATS`: a long record (TABLES tables, MINUTES of play) replicated
//!   and mirrored once ([`Central::refresh_mirror`]); then REPEATS refreshes with nothing new,
//!   and REPEATS refreshes each after one more minute of play is replicated, timed.
//!
//! Each run enrols its workstation (issue 25) and ships as the workstation's own role, so the
//! server's own checks (every row's hash, its link, row-level security) are in the figures. With
//! `PITWATCH_BENCH_TLS=1` the server takes TCP over TLS only (a throwaway CA, SCRAM), and every
//! connection is TLS, verified against that CA.
//!
//! ```sh
//! cargo run --release -p pitwatch-sync --example central_load -- live 200 10 60
//! cargo run --release -p pitwatch-sync --example central_load -- mirror 50 60 10
//! cargo run --release -p pitwatch-sync --example central_load -- catchup 50 60
//! ```

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use pitwatch_baccarat::RuleBook;
use pitwatch_games::book_text;
use pitwatch_games::GameKind;
use pitwatch_model::Timestamp;
use pitwatch_protocols::ProtocolConfig;
use pitwatch_recording::monitor::{Monitor, MonitoredTable};
use pitwatch_recording::pit::{LinkConfig, TableConfig};
use pitwatch_recording::recorder::TableRecorder;
use pitwatch_sim::{Action, Endpoint, Pace, Planner, SimConfig, SimDevice};
use pitwatch_store::chain::{self, CHAINS, CHECKPOINTS};
use pitwatch_store::{Sealing, Store};
use pitwatch_sync::test_server::PgServer;
use pitwatch_sync::{Central, Outbox};
use pitwatch_transport::{Clock, SerialConfig, SystemClock, TransportConfig};

type Error = Box<dyn std::error::Error>;

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// The `at` of checkpoint rows after `after` up to `to`, in record time (ms).
fn checkpoint_times(store: &Store, after: i64, to: i64) -> Result<Vec<i64>, Error> {
    let mut times = Vec::new();
    let mut from = after;
    while from < to {
        let rows = store.chain_rows(&CHECKPOINTS, from, (to - from).min(5000) as usize)?;
        let Some(last) = rows.last() else { break };
        from = last.position;
        for row in &rows {
            let values = chain::decode_values(&row.content)?;
            // checkpoints: id, at, counts, public_key, signature
            if let Some(rusqlite::types::Value::Text(at)) = values.get(1) {
                times.push(at.parse::<Timestamp>()?.unix_millis());
            }
        }
    }
    Ok(times)
}

/// The server for a run (TLS when `PITWATCH_BENCH_TLS=1`), and its administrator's URL.
fn server() -> Result<(PgServer, String), Error> {
    let tls = std::env::var("PITWATCH_BENCH_TLS").is_ok_and(|v| v == "1");
    let pg = if tls {
        PgServer::start_tls("central_load")
    } else {
        PgServer::start("central_load")
    }
    .ok_or("PostgreSQL is not installed")?;
    println!(
        "server: {}",
        if tls {
            "TLS (verify-full, SCRAM)"
        } else {
            "plaintext on loopback"
        }
    );
    let url = match &pg.password {
        Some(p) => pg.url.replacen("pitwatch@", &format!("pitwatch:{p}@"), 1),
        None => pg.url.clone(),
    };
    Ok((pg, url))
}

/// Enrols workstation `id` with `key` through `admin`, and connects as its own role.
fn workstation(
    admin: &mut Central,
    pg: &PgServer,
    id: &pitwatch_sync::Identity,
    key: &pitwatch_store::PublicKey,
) -> Result<Central, Error> {
    let role = pitwatch_sync::default_role(id);
    let password = "bench-workstation-password";
    admin.enrol(id, key, &role, Some(password))?;
    let url = pg
        .url
        .replacen("pitwatch@", &format!("{role}:{password}@"), 1);
    Ok(Central::connect(&url)?)
}

fn pick(sorted: &[i64], q: f64) -> i64 {
    sorted
        .get(((sorted.len() as f64 - 1.0) * q).round() as usize)
        .copied()
        .unwrap_or(0)
}

fn compare_all(central: &mut Central, outbox: &Outbox, store: &Store) -> Result<u64, Error> {
    let mut rows = 0u64;
    for chain in CHAINS {
        let local = store.chain_rows(chain, 0, usize::MAX)?;
        let held = central.fetch_rows(&outbox.id, chain, 0, i64::MAX)?;
        if local != held {
            return Err(format!(
                "{}: the central copy differs ({} rows here, {} there)",
                chain.table,
                local.len(),
                held.len()
            )
            .into());
        }
        rows += local.len() as u64;
    }
    Ok(rows)
}

fn live(tables: usize, pace: f64, seconds: f64) -> Result<(), Error> {
    let (pg, admin_url) = server()?;
    let dir = tempfile::tempdir()?;
    let db = dir.path().join("load.db");
    let book = RuleBook::load("nz-baccarat")?;
    let mut sims = Vec::new();
    let mut monitored = Vec::new();
    for i in 0..tables {
        let protocol = if i % 4 == 3 { "barcode" } else { "angel-eye" };
        let device = ProtocolConfig::by_name(protocol).ok_or("protocol")?;
        let mut config = SimConfig::new(device, book.clone());
        config.seed = 1000 + i as u64;
        config.pace = Pace::Times(pace);
        config.shoes = None;
        config.endpoint = Endpoint::Pty;
        let sim = SimDevice::start(config)?;
        let path = sim.path().ok_or("no pty")?.to_owned();
        sims.push(sim);
        let link = LinkConfig::new(TransportConfig::Serial(SerialConfig::new(path, 9600)));
        monitored.push(MonitoredTable {
            config: TableConfig::new(
                format!("T{:03}", i + 1),
                GameKind::Baccarat,
                "nz-baccarat",
                device,
                Some(link.clone()),
            ),
            link,
            more_links: Vec::new(),
        });
    }
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let key = db.with_file_name("signing.key");
    let (monitor, events) = Monitor::start(
        Store::open(&db, &Sealing::key_file(&key))?,
        monitored,
        clock,
    )?;
    // Drain the monitor's publications (the desk would).
    let draining = Arc::new(AtomicBool::new(true));
    let drain = {
        let draining = draining.clone();
        std::thread::spawn(move || {
            while draining.load(Ordering::Relaxed) {
                let _ = events.recv_timeout(Duration::from_millis(100));
            }
        })
    };
    let mut admin = Central::connect(&admin_url)?;
    admin.init()?;
    // The outbox reads its own read-only connection, as `pitwatch sync` does.
    while !db.exists() || !key.exists() {
        std::thread::sleep(Duration::from_millis(10));
    }
    let store = Store::open_read_only(&db)?;
    let mut outbox = Outbox::new("bench/pit".parse()?);
    let public = pitwatch_store::SigningKey::load(&key)?.public();
    let mut central = workstation(&mut admin, &pg, &outbox.id, &public)?;
    let started = Instant::now();
    let mut lags = Vec::new();
    let mut delivered_cp = 0i64;
    let mut rounds = 0u64;
    let mut delivered_rows = 0u64;
    while started.elapsed() < Duration::from_secs_f64(seconds) {
        let report = central.sync_once(&store, &mut outbox)?;
        let done = now_ms();
        rounds += 1;
        delivered_rows += report.delivered;
        let cp = report
            .chains
            .iter()
            .find(|c| c.table == CHECKPOINTS.table)
            .map_or(0, |c| c.central);
        // Leave out the first 5 s (the tables connecting).
        let counted = started.elapsed() > Duration::from_secs(5);
        for at in checkpoint_times(&store, delivered_cp, cp)? {
            if counted {
                lags.push(done - at);
            }
        }
        delivered_cp = cp;
        std::thread::sleep(Duration::from_millis(50));
    }
    let elapsed = started.elapsed().as_secs_f64();
    monitor.stop()?;
    draining.store(false, Ordering::Relaxed);
    let _ = drain.join();
    for sim in sims {
        let _ = sim.stop();
    }
    let report = central.sync_once(&store, &mut outbox)?;
    let rows = compare_all(&mut central, &outbox, &store)?;
    lags.sort_unstable();
    println!(
        "live: {tables} tables at {pace}x for {elapsed:.0} s: {delivered_rows} rows shipped in \
         {rounds} rounds ({:.0} rows/s); {} checkpoints timed after the first 5 s",
        delivered_rows as f64 / elapsed,
        lags.len()
    );
    println!(
        "commit-to-central lag: p50 {} ms, p99 {} ms, max {} ms",
        pick(&lags, 0.5),
        pick(&lags, 0.99),
        lags.last().copied().unwrap_or(0)
    );
    println!(
        "after stopping: {} more rows, then every chain equal row by row ({rows} rows), {} refused",
        report.delivered,
        report.refused.len()
    );
    Ok(())
}

/// TABLES tables' honest play at a dealer's pace, recorded through the real recorder into a
/// record, one write transaction per simulated 250 ms, as fast as the machine goes.
/// A table being played: its recorder, its shoes, when it sends next, and the steps of its shoe
/// still to come (in reverse).
type Playing = (TableRecorder, Planner, i64, Vec<(u64, Action)>);

struct Honest {
    store: Store,
    key: pitwatch_store::PublicKey,
    tables: Vec<Playing>,
    t: i64,
}

impl Honest {
    fn new(db: &std::path::Path, tables: usize) -> Result<Honest, Error> {
        let key = pitwatch_store::SigningKey::generate();
        let public = key.public();
        let mut store = Store::open(db, &Sealing::key(key))?;
        let book = RuleBook::load("nz-baccarat")?;
        let start_ms = 1_796_000_000_000i64;
        let start = Timestamp::from_unix_millis(start_ms).ok_or("time")?;
        let mut tables_state = Vec::new();
        for i in 0..tables {
            let protocol = if i % 4 == 3 { "barcode" } else { "angel-eye" };
            let device = ProtocolConfig::by_name(protocol).ok_or("protocol")?;
            let name = format!("T{:03}", i + 1);
            let mut recorder = TableRecorder::resume(
                &mut store,
                &name,
                "baccarat",
                book.clone(),
                book_text("nz-baccarat").as_deref(),
                Some(device),
                start,
            )?;
            recorder.connect(
                &mut store,
                &format!("sim:{name}"),
                Default::default(),
                start,
            )?;
            let planner = Planner::new(&device, book.clone(), 1000 + i as u64, vec![], true);
            // (next send time, pending steps in reverse)
            tables_state.push((recorder, planner, start_ms, Vec::<(u64, Action)>::new()));
        }
        Ok(Honest {
            store,
            key: public,
            tables: tables_state,
            t: start_ms,
        })
    }

    /// Records `minutes` more of play.
    fn play(&mut self, minutes: f64) -> Result<(), Error> {
        let end_ms = self.t + (minutes * 60_000.0) as i64;
        while self.t < end_ms {
            self.t += 250;
            let t = self.t;
            let now = Timestamp::from_unix_millis(t).ok_or("time")?;
            let mut batch = self.store.batch(now)?;
            let mut derived = Vec::new();
            for (recorder, planner, next, pending) in &mut self.tables {
                while *next <= t {
                    if pending.is_empty() {
                        let mut shoe = planner.next_shoe();
                        shoe.steps.reverse();
                        pending.extend(
                            shoe.steps
                                .into_iter()
                                .map(|s| (s.delay_ms.max(s.min_delay_ms), s.action)),
                        );
                    }
                    let Some((delay, action)) = pending.pop() else {
                        break;
                    };
                    *next += delay as i64;
                    if let Action::Send(bytes) = action {
                        let at = Timestamp::from_unix_millis(*next).ok_or("time")?;
                        recorder.ingest(&mut batch, at, &bytes, &mut derived)?;
                    }
                }
            }
            batch.commit()?;
        }
        Ok(())
    }

    fn rows(&self) -> Result<i64, Error> {
        Ok(CHAINS
            .iter()
            .map(|c| self.store.chain_length(c))
            .sum::<Result<i64, _>>()?)
    }
}

fn catchup(tables: usize, minutes: f64) -> Result<(), Error> {
    let (pg, admin_url) = server()?;
    let dir = tempfile::tempdir()?;
    let db = dir.path().join("outage.db");
    let mut honest = Honest::new(&db, tables)?;
    let recording = Instant::now();
    honest.play(minutes)?;
    let recorded_in = recording.elapsed().as_secs_f64();
    let rows_local = honest.rows()?;
    let public = honest.key;
    drop(honest);
    let store = Store::open_read_only(&db)?;
    let mut admin = Central::connect(&admin_url)?;
    admin.init()?;
    let mut outbox = Outbox::new("bench/outage".parse()?);
    let mut central = workstation(&mut admin, &pg, &outbox.id, &public)?;
    let catching = Instant::now();
    let report = central.sync_once(&store, &mut outbox)?;
    let caught_up_in = catching.elapsed().as_secs_f64();
    let rows = compare_all(&mut central, &outbox, &store)?;
    println!(
        "catch-up: {tables} tables, {minutes} min at a dealer's pace: {rows_local} rows \
         ({:.0} MB file) recorded in {recorded_in:.1} s",
        std::fs::metadata(&db)?.len() as f64 / 1e6
    );
    println!(
        "one outbox round from an empty server: {} rows in {caught_up_in:.1} s ({:.0} rows/s), \
         {} behind after, every chain equal row by row ({rows} rows)",
        report.delivered,
        report.delivered as f64 / caught_up_in,
        report.rows_behind
    );
    Ok(())
}

/// The surveillance room's refresh of a mirror: a long record (TABLES tables, MINUTES of play)
/// replicated, mirrored once; then refreshes with nothing new, and refreshes after each further
/// minute of play is replicated (REPEATS of each), timed on a read-only session.
fn mirror(tables: usize, minutes: f64, repeats: usize) -> Result<(), Error> {
    let (pg, admin_url) = server()?;
    let dir = tempfile::tempdir()?;
    let db = dir.path().join("long.db");
    let mut honest = Honest::new(&db, tables)?;
    honest.play(minutes)?;
    let mut admin = Central::connect(&admin_url)?;
    admin.init()?;
    let id: pitwatch_sync::Identity = "bench/long".parse()?;
    let mut outbox = Outbox::new(id.clone());
    let mut central = workstation(&mut admin, &pg, &id, &honest.key)?;
    central.sync_once(&honest.store, &mut outbox)?;
    let mut reader = Central::connect_read_only(&admin_url)?;
    let path = pitwatch_sync::mirror_path(dir.path(), &id);
    let first = Instant::now();
    let filled = reader.refresh_mirror(&id, &path)?;
    let first_s = first.elapsed().as_secs_f64();
    println!(
        "mirror: {tables} tables, {minutes} min: {} rows in the record ({:.0} MB), first fill \
         {} rows in {first_s:.2} s",
        honest.rows()?,
        std::fs::metadata(&db)?.len() as f64 / 1e6,
        filled.appended
    );
    let mut idle = Vec::new();
    for _ in 0..repeats {
        let t = Instant::now();
        let r = reader.refresh_mirror(&id, &path)?;
        idle.push(t.elapsed().as_micros() as i64);
        assert_eq!(r.appended, 0);
    }
    idle.sort_unstable();
    println!(
        "refresh, nothing new ({repeats}×): median {:.1} ms, max {:.1} ms",
        pick(&idle, 0.5) as f64 / 1000.0,
        idle[idle.len() - 1] as f64 / 1000.0
    );
    let mut minute = Vec::new();
    let mut pulled = Vec::new();
    for _ in 0..repeats {
        honest.play(1.0)?;
        central.sync_once(&honest.store, &mut outbox)?;
        let t = Instant::now();
        let r = reader.refresh_mirror(&id, &path)?;
        minute.push(t.elapsed().as_micros() as i64);
        pulled.push(r.appended as i64);
    }
    minute.sort_unstable();
    pulled.sort_unstable();
    println!(
        "refresh after a minute of new rows ({repeats}×, median {} rows pulled): median {:.1} ms, \
         max {:.1} ms; record now {} rows",
        pick(&pulled, 0.5),
        pick(&minute, 0.5) as f64 / 1000.0,
        minute[minute.len() - 1] as f64 / 1000.0,
        honest.rows()?
    );
    let copy = Store::open_read_only(&path)?;
    let held: i64 = CHAINS
        .iter()
        .map(|c| copy.chain_length(c))
        .sum::<Result<i64, _>>()?;
    println!("the mirror holds {held} rows, as far as the latest checkpoint replicated");
    Ok(())
}

fn main() -> Result<(), Error> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let num = |i: usize, default: f64| args.get(i).and_then(|a| a.parse().ok()).unwrap_or(default);
    match args.first().map(String::as_str) {
        Some("live") => live(num(1, 200.0) as usize, num(2, 10.0), num(3, 60.0)),
        Some("catchup") => catchup(num(1, 50.0) as usize, num(2, 60.0)),
        Some("mirror") => mirror(num(1, 50.0) as usize, num(2, 60.0), num(3, 10.0) as usize),
        _ => Err(
            "usage: central_load live TABLES PACE SECONDS | catchup TABLES MINUTES | \
                  mirror TABLES MINUTES REPEATS"
                .into(),
        ),
    }
}
