//! Who this process is, for the table leases in the store (one writer per table), and whether
//! the holder of a lease is still running.
//!
//! A lease names its holder for people (`pitwatch monitor, pid 4242 on pit-ws-3`) and identifies
//! it for machines as `host:pid:start`, where `start` is when the process started (from
//! `/proc/PID/stat`), so a pid reused by another program is not mistaken for the holder. A holder
//! on this host is gone when no process with its pid and start time exists: a monitor that was
//! killed does not keep its tables from the next one. A holder on another host (a database on a
//! shared disk) is judged by its heartbeat: gone when it has not renewed its leases for
//! [`FOREIGN_LEASE_TIMEOUT_MS`].

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use pitwatch_model::Timestamp;
use pitwatch_store::{Lease, Store, StoreError};

/// How long a lease held from another host stays valid without a heartbeat.
pub const FOREIGN_LEASE_TIMEOUT_MS: i64 = 60_000;

/// This process, as a lease holder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Holder {
    /// For people.
    pub name: String,
    /// For the liveness check: `host:pid:start#n`.
    pub process: String,
}

/// Numbers the holders made in this process.
static HOLDERS: AtomicU64 = AtomicU64::new(1);

/// The holders of this process that have not retired: a lease of this process held by any other
/// number was left by a writer that ended (say, while the database could not be written, so it
/// could not give its leases up).
static ACTIVE: Mutex<BTreeSet<u64>> = Mutex::new(BTreeSet::new());

fn active() -> std::sync::MutexGuard<'static, BTreeSet<u64>> {
    ACTIVE.lock().unwrap_or_else(|e| e.into_inner())
}

impl Holder {
    /// A new holder in this process, described as `what` (`pitwatch monitor`, `Pitwatch
    /// desktop`).
    pub fn this_process(what: &str) -> Holder {
        let host = host_name();
        let pid = std::process::id();
        let start = start_ticks(pid).unwrap_or(0);
        let n = HOLDERS.fetch_add(1, Ordering::Relaxed);
        active().insert(n);
        Holder {
            name: format!("{what} (pid {pid} on {host})"),
            process: format!("{host}:{pid}:{start}#{n}"),
        }
    }

    /// This holder has stopped writing: a lease it could not give up no longer keeps its tables
    /// from the next writer in this process.
    pub fn retire(&self) {
        if let Some(n) = self.process.rsplit('#').next().and_then(|n| n.parse().ok()) {
            active().remove(&n);
        }
    }

    /// Takes the leases of `tables` for this holder, or fails naming the table and its holder.
    pub fn acquire(
        &self,
        store: &mut Store,
        tables: &[String],
        now: Timestamp,
    ) -> Result<(), StoreError> {
        let me = self.process.clone();
        let now_ms = now.unix_millis();
        store.acquire_leases(
            tables,
            &self.name,
            &self.process,
            now_ms,
            &|lease: &Lease| lease.process != me && gone(lease, now_ms),
        )
    }
}

/// Whether the holder of `lease` is no longer running (see the module's description).
pub fn gone(lease: &Lease, now_ms: i64) -> bool {
    let (process, n) = lease
        .process
        .split_once('#')
        .unwrap_or((lease.process.as_str(), ""));
    if process == this_process_id() {
        return n.parse().is_ok_and(|n| !active().contains(&n));
    }
    let mut parts = process.rsplitn(3, ':');
    let (Some(start), Some(pid), Some(host)) = (parts.next(), parts.next(), parts.next()) else {
        return now_ms - lease.heartbeat_ms > FOREIGN_LEASE_TIMEOUT_MS;
    };
    if host != host_name() {
        return now_ms - lease.heartbeat_ms > FOREIGN_LEASE_TIMEOUT_MS;
    }
    let (Ok(pid), Ok(start)) = (pid.parse::<u32>(), start.parse::<u64>()) else {
        return true;
    };
    match start_ticks(pid) {
        Some(now_start) => start != 0 && now_start != start,
        // No such process here (or no /proc to ask: then the heartbeat decides).
        None if std::path::Path::new("/proc/self/stat").exists() => true,
        None => now_ms - lease.heartbeat_ms > FOREIGN_LEASE_TIMEOUT_MS,
    }
}

/// Whether the process identified as `host:pid:start` (a [`Holder::process`], `#n` ignored) is
/// known to have ended: only a process on this host can be known to; anything else counts as
/// running.
pub fn process_gone(process: &str) -> bool {
    let process = process.split('#').next().unwrap_or_default();
    let mut parts = process.rsplitn(3, ':');
    let (Some(start), Some(pid), Some(host)) = (parts.next(), parts.next(), parts.next()) else {
        return false;
    };
    if host != host_name() {
        return false;
    }
    match (pid.parse::<u32>(), start.parse::<u64>()) {
        (Ok(pid), Ok(start)) => match start_ticks(pid) {
            Some(now_start) => start != 0 && now_start != start,
            None => std::path::Path::new("/proc/self/stat").exists(),
        },
        _ => true,
    }
}

/// `host:pid:start` of this process.
fn this_process_id() -> String {
    let pid = std::process::id();
    format!("{}:{pid}:{}", host_name(), start_ticks(pid).unwrap_or(0))
}

fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .map(|s| s.trim().to_owned())
        .ok()
        .filter(|s| !s.is_empty() && !s.contains(':'))
        .unwrap_or_else(|| "localhost".to_owned())
}

/// When process `pid` started, in clock ticks since boot (field 22 of `/proc/PID/stat`).
fn start_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold spaces: count after it.
    let after = &stat[stat.rfind(')')? + 1..];
    after.split_whitespace().nth(19)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lease(process: &str, heartbeat_ms: i64) -> Lease {
        Lease {
            table: "T".into(),
            holder: "someone".into(),
            process: process.into(),
            acquired_ms: 0,
            heartbeat_ms,
        }
    }

    #[test]
    fn a_running_process_holds_its_lease_and_a_finished_one_does_not() {
        let me = Holder::this_process("test");
        assert!(me.name.contains(&std::process::id().to_string()));
        assert!(!gone(&lease(&me.process, 0), i64::MAX / 2));
        // Another holder in this process is another writer, and alive until it retires.
        let other = Holder::this_process("test");
        assert_ne!(me.process, other.process);
        assert!(!gone(&lease(&other.process, 0), i64::MAX / 2));
        other.retire();
        assert!(gone(&lease(&other.process, 0), 0));
        // A child that has exited.
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        let host = host_name();
        assert!(gone(&lease(&format!("{host}:{pid}:12345"), 0), 0));
        // This process's pid with another start time: a reused pid.
        let reused = format!("{host}:{}:1", std::process::id());
        assert!(gone(&lease(&reused, 0), 0));
        // Another host: by the heartbeat.
        assert!(!gone(&lease("elsewhere:1:1", 1_000), 2_000));
        assert!(gone(
            &lease("elsewhere:1:1", 1_000),
            2_000 + FOREIGN_LEASE_TIMEOUT_MS
        ));
        assert!(!process_gone(&me.process));
        assert!(process_gone(&format!("{host}:{pid}:12345")));
        assert!(!process_gone("elsewhere:1:1"));
    }
}
