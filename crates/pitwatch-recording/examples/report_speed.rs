//! How long the reports take on a long record, and how big their PDFs are.
//!
//! On a record built by `long_shift` (50 Angel Eye tables, faults injected, a supervisor's
//! workflow), times as the desk and the CLI make them: an incident report (which verifies every
//! chain, as it states) built and rendered to PDF; the shift handover report of the whole record,
//! built and rendered. Prints medians and slowest runs, page counts and sizes, and writes the PDFs
//! next to the database for a look.
//!
//! ```sh
//! cargo run --release -p pitwatch-recording --example long_shift -- 50 12 8 /tmp/shift12.db
//! cargo run --release -p pitwatch-recording --example report_speed -- /tmp/shift12.db
//! ```

use std::path::{Path, PathBuf};
use std::time::Instant;

use pitwatch_model::Timestamp;
use pitwatch_recording::report::{self, Shift};
use pitwatch_store::{IncidentFilter, IncidentId, Store};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// Runs `f` `n` times; its last result and the median and slowest times in ms.
fn time<T>(n: usize, mut f: impl FnMut() -> Result<T>) -> Result<(T, f64, f64)> {
    let mut times = Vec::with_capacity(n);
    let mut last = None;
    for _ in 0..n {
        let started = Instant::now();
        last = Some(f()?);
        times.push(started.elapsed().as_secs_f64() * 1000.0);
    }
    times.sort_by(f64::total_cmp);
    Ok((
        last.ok_or("no run")?,
        times[times.len() / 2],
        times[times.len() - 1],
    ))
}

fn row(what: &str, median: f64, max: f64, note: &str) {
    println!("| {what} | {median:.1} ms | {max:.1} ms | {note} |");
}

fn main() -> Result<()> {
    let db = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .ok_or("give the database built by long_shift")?;
    let store = Store::open_read_only(&db)?;
    let out = db.parent().unwrap_or(Path::new(".")).to_path_buf();
    let stamp = Timestamp::from_unix_millis(1_796_200_000_000).ok_or("time")?;
    println!("| what | median | slowest | |");
    println!("|---|---|---|---|");

    // An incident with a workflow: the first one resolved.
    let incidents = store.incidents(&IncidentFilter::default())?;
    let id = incidents
        .iter()
        .find(|i| i.status == pitwatch_store::Status::Resolved)
        .map_or(IncidentId(1), |i| i.id);
    let (document, m, x) = time(5, || Ok(report::incident_report(&store, id, "shift.db")?))?;
    row(
        &format!("incident report {}: build (verifies every chain)", id.0),
        m,
        x,
        "",
    );
    let document = document.stamped("bench", stamp.as_datetime());
    let (pdf, m, x) = time(20, || Ok(pitwatch_report::render_pdf(&document)?))?;
    row(
        "incident report: render the PDF",
        m,
        x,
        &format!("{} pages, {} bytes", pdf.pages, pdf.bytes.len()),
    );
    std::fs::write(out.join("incident-report.pdf"), &pdf.bytes)?;

    // The whole record as one shift: from the first event to a day after (the harness's
    // workflow is stamped a day after the start).
    let from = Timestamp::from_unix_millis(1_796_025_600_000).ok_or("time")?;
    let to = Timestamp::from_unix_millis(1_796_025_600_000 + 25 * 3_600_000).ok_or("time")?;
    let shift = Shift::new(from, to, None)?;
    let (document, m, x) = time(3, || Ok(report::shift_report(&store, &shift, "shift.db")?))?;
    let rows: usize = document
        .blocks
        .iter()
        .map(|b| match b {
            pitwatch_report::Block::Table { rows, .. } => rows.len(),
            _ => 0,
        })
        .sum();
    row(
        "shift report of every table: build",
        m,
        x,
        &format!("{rows} table rows"),
    );
    let document = document.stamped("bench", stamp.as_datetime());
    let (pdf, m, x) = time(3, || Ok(pitwatch_report::render_pdf(&document)?))?;
    row(
        "shift report: render the PDF",
        m,
        x,
        &format!("{} pages, {} bytes", pdf.pages, pdf.bytes.len()),
    );
    std::fs::write(out.join("shift-report.pdf"), &pdf.bytes)?;

    // One table's shift.
    let one = Shift::new(from, to, Some("T07".into()))?;
    let (document, m, x) = time(5, || Ok(report::shift_report(&store, &one, "shift.db")?))?;
    let document = document.stamped("bench", stamp.as_datetime());
    let pdf = pitwatch_report::render_pdf(&document)?;
    row(
        "shift report of one table (T07): build",
        m,
        x,
        &format!("{} pages, {} bytes", pdf.pages, pdf.bytes.len()),
    );
    Ok(())
}
