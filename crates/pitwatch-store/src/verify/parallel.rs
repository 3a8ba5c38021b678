//! Hashing on several threads (see [`VerifyOptions::threads`](super::VerifyOptions::threads)):
//! SQLite's integrity check and the chains' rows split into segments, each thread with a
//! read-only connection of its own to the record's file.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use rusqlite::{Connection, OpenFlags};

use super::{hash_rows, stored_hash, Plan, Segment, VerifyOptions};
use crate::chain::GENESIS;

/// Below this many rows to hash, one thread is quicker than opening connections.
pub(super) const MIN_ROWS: i64 = 50_000;

/// What the threads do, in this order (the longest first).
enum Job {
    Integrity,
    Segment { plan: usize, after: i64, last: i64 },
}

/// SQLite's integrity check (if `integrity`) and every plan's rows, split into segments and
/// hashed on `options.threads` threads with a read-only connection each to `conn`'s file:
/// the check's answer and each plan's segments in order. `None` when one thread is to do
/// everything (an in-memory record, little to hash, one thread asked for) or a connection
/// could not be opened or read (the caller then does it all itself, and meets the same
/// error if it is the record's).
pub(super) fn run(
    conn: &Connection,
    options: &VerifyOptions,
    plans: &[Plan],
    integrity: bool,
) -> Option<(Option<String>, Vec<Vec<Segment>>)> {
    let auto = options.threads == 0;
    let threads = match options.threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    };
    let rows: i64 = plans.iter().map(|p| (p.length - p.after).max(0)).sum();
    let path = conn.path().filter(|p| !p.is_empty())?;
    if threads < 2 || (auto && rows < MIN_ROWS) {
        return None;
    }
    // Segments small enough to share the work out evenly, large enough (when the number of
    // threads is the machine's) to cost little.
    let size = (rows / (threads as i64 * 8)).max(if auto { 20_000 } else { 1 });
    let mut jobs = Vec::new();
    if integrity {
        jobs.push(Job::Integrity);
    }
    for (index, plan) in plans.iter().enumerate() {
        let mut after = plan.after;
        while after < plan.length {
            let last = (after + size).min(plan.length);
            jobs.push(Job::Segment {
                plan: index,
                after,
                last,
            });
            after = last;
        }
    }
    let next = AtomicUsize::new(0);
    let done: Mutex<Vec<(usize, Segment)>> = Mutex::new(Vec::new());
    let answer: Mutex<Option<String>> = Mutex::new(None);
    let failed = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..threads.min(jobs.len()) {
            scope.spawn(|| {
                let worker = || -> Result<(), crate::StoreError> {
                    let conn = Connection::open_with_flags(
                        path,
                        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
                    )?;
                    conn.busy_timeout(std::time::Duration::from_secs(5))?;
                    // The reads of one thread are of one moment too.
                    let snapshot = conn.unchecked_transaction()?;
                    loop {
                        let index = next.fetch_add(1, Ordering::Relaxed);
                        let Some(job) = jobs.get(index) else {
                            break;
                        };
                        if failed.load(Ordering::Relaxed) > 0 {
                            break;
                        }
                        match *job {
                            Job::Integrity => {
                                let text: String =
                                    snapshot
                                        .query_row("PRAGMA integrity_check", [], |r| r.get(0))?;
                                *answer.lock().unwrap_or_else(|e| e.into_inner()) = Some(text);
                            }
                            Job::Segment { plan, after, last } => {
                                let chain = plans[plan].chain;
                                let start = if after == plans[plan].after {
                                    Some(plans[plan].hash)
                                } else {
                                    stored_hash(&snapshot, chain, after)?
                                };
                                let run = hash_rows(
                                    &snapshot,
                                    chain,
                                    after,
                                    start.unwrap_or(GENESIS),
                                    Some(last),
                                )?;
                                let segment = Segment {
                                    after,
                                    last,
                                    start,
                                    run,
                                };
                                done.lock()
                                    .unwrap_or_else(|e| e.into_inner())
                                    .push((plan, segment));
                            }
                        }
                    }
                    snapshot.finish()?;
                    Ok(())
                };
                if worker().is_err() {
                    failed.fetch_add(1, Ordering::Relaxed);
                }
            });
        }
    });
    if failed.load(Ordering::Relaxed) > 0 {
        return None;
    }
    let answer = answer.into_inner().unwrap_or_else(|e| e.into_inner());
    if integrity && answer.is_none() {
        return None;
    }
    let mut segments = vec![Vec::new(); plans.len()];
    let mut done = done.into_inner().unwrap_or_else(|e| e.into_inner());
    done.sort_by_key(|(plan, segment)| (*plan, segment.after));
    for (plan, segment) in done {
        segments[plan].push(segment);
    }
    Some((answer, segments))
}
