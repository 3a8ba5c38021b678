//! Load harness for live monitoring: N simulated tables (Angel Eye and barcode shoes on
//! pseudo-terminals, dealing at K× real pace) read through the real transports, codecs, engine
//! and store, for S seconds. It reports how many events were recorded and how long each took
//! from the moment its bytes were read off the port to the moment the monitor published it
//! (after the commit): the part of "a live event reaching the screen" that the back end owns.
//!
//! ```sh
//! cargo run --release -p pitwatch-recording --example pit_load -- 50 10 60
//! ```

use std::sync::Arc;
use std::time::{Duration, Instant};

use pitwatch_baccarat::RuleBook;
use pitwatch_games::GameKind;
use pitwatch_protocols::ProtocolConfig;
use pitwatch_recording::monitor::{Monitor, MonitorEvent, MonitoredTable};
use pitwatch_recording::pit::{LinkConfig, TableConfig};
use pitwatch_recording::recorder::Derived;
use pitwatch_sim::{Endpoint, Pace, SimConfig, SimDevice};
use pitwatch_store::{Sealing, Store};
use pitwatch_transport::{Clock, SerialConfig, SystemClock, TransportConfig};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize, default: f64| args.get(i).and_then(|a| a.parse().ok()).unwrap_or(default);
    let tables = arg(0, 50.0) as usize;
    let pace = arg(1, 10.0);
    let seconds = arg(2, 60.0);
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
                format!("T{:02}", i + 1),
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
    let (monitor, events) = Monitor::start(
        Store::open(&db, &Sealing::key_file(db.with_file_name("signing.key")))?,
        monitored,
        clock.clone(),
    )?;
    let started = Instant::now();
    let mut lags_ms: Vec<i64> = Vec::new();
    let mut rounds = 0u64;
    let mut incidents = 0u64;
    while started.elapsed() < Duration::from_secs_f64(seconds) {
        let Ok(event) = events.recv_timeout(Duration::from_millis(200)) else {
            continue;
        };
        if let MonitorEvent::Derived { derived, .. } = event {
            match derived {
                Derived::Event(event) => {
                    if let Some(at) = event.at {
                        lags_ms.push(clock.now().unix_millis() - at.unix_millis());
                    }
                }
                Derived::Output { incident, output } => {
                    if matches!(output, pitwatch_rules::TableOutput::Round(_)) {
                        rounds += 1;
                    }
                    if incident.is_some() {
                        incidents += 1;
                    }
                }
                _ => {}
            }
        }
    }
    let elapsed = started.elapsed().as_secs_f64();
    monitor.stop()?;
    for sim in sims {
        let _ = sim.stop();
    }
    lags_ms.sort_unstable();
    let pick = |q: f64| {
        lags_ms
            .get(((lags_ms.len() as f64 - 1.0) * q).round() as usize)
            .copied()
            .unwrap_or(0)
    };
    let verified =
        Store::open(&db, &Sealing::key_file(db.with_file_name("signing.key")))?.verify()?;
    println!(
        "{tables} tables at {pace}x for {elapsed:.0} s: {} events ({:.0}/s), {rounds} rounds, {incidents} incidents",
        lags_ms.len(),
        lags_ms.len() as f64 / elapsed
    );
    println!(
        "read-to-published lag: p50 {} ms, p99 {} ms, max {} ms; record {}",
        pick(0.5),
        pick(0.99),
        lags_ms.last().copied().unwrap_or(0),
        if verified.intact() {
            "intact"
        } else {
            "NOT INTACT"
        }
    );
    Ok(())
}
