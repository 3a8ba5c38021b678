//! `pitwatch monitor` reloads its pit definition when the file changes (its modification time,
//! looked at every few seconds) or at once on SIGHUP: only the tables that differ are stopped and started, the
//! others keep recording; a file that does not read changes nothing. Each reload is audited and
//! its result printed.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use pitwatch_recording::monitor::{Monitor, MonitoredTable};
use pitwatch_recording::pit::{diff, PitConfig};
use pitwatch_store::Actor;

/// How often the file's modification time is looked at.
const POLL: Duration = Duration::from_secs(2);

/// Watches the pit definition's file for changes.
pub struct Watcher {
    path: PathBuf,
    seen: Option<SystemTime>,
    looked: Instant,
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

impl Watcher {
    /// Watches `path` from its modification time now.
    pub fn new(path: &Path) -> Watcher {
        Watcher {
            path: path.to_owned(),
            seen: modified(path),
            looked: Instant::now(),
        }
    }

    /// Takes the file as it is now as seen (a reload asked for by SIGHUP reads it), so that
    /// its modification time does not reload it a second time.
    pub fn seen(&mut self) {
        self.seen = modified(&self.path);
    }

    /// Whether the file changed since it was last looked at (looked at every [`POLL`]).
    pub fn changed(&mut self) -> bool {
        if self.looked.elapsed() < POLL {
            return false;
        }
        self.looked = Instant::now();
        let now = modified(&self.path);
        if now.is_some() && now != self.seen {
            self.seen = now;
            return true;
        }
        false
    }
}

/// Reads the pit definition at `path` again and applies what differs from `running` to
/// `monitor`, printing the result; returns the definition now running.
pub fn reload(monitor: &mut Monitor, running: &PitConfig, path: &Path) -> PitConfig {
    let by = Actor::at("pitwatch monitor", &pitwatch_app::access::workstation());
    let next = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))
        .and_then(|text| PitConfig::load(&text).map_err(|e| format!("{}: {e}", path.display())));
    let next = match next {
        Ok(next) => next,
        Err(why) => {
            errln!("pit definition NOT reloaded (the running pit keeps going): {why}");
            if let Err(e) = monitor.reload(by, &[("refused", why)], &[], Vec::new()) {
                errln!("FAILED reload: {e}");
            }
            return running.clone();
        }
    };
    let d = diff(running, &next);
    let mut start = Vec::new();
    let mut problems = Vec::new();
    for name in d.to_start() {
        let Some(table) = next.tables.iter().find(|t| t.name == name) else {
            continue;
        };
        match MonitoredTable::from_config(table.clone()) {
            Some(monitored) => start.push(monitored),
            None => problems.push(format!(
                "table {name}: simulated tables run only in the desktop app's demo pit"
            )),
        }
    }
    let stop: Vec<String> = d.to_stop().map(str::to_owned).collect();
    let mut fields = d.fields();
    if !problems.is_empty() {
        fields.push(("problems", problems.join("; ")));
    }
    let outcome = monitor.reload(by, &fields, &stop, start);
    outln!("pit definition reloaded from {}:", path.display());
    for (what, tables) in &fields {
        outln!("  {what}: {tables}");
    }
    super::print_disabled(&next);
    if let Err(e) = outcome {
        errln!("FAILED reload: {e}");
    }
    // Whatever of the whole pit differs applies at the next start: the running pit's is kept.
    PitConfig {
        tables: next.tables,
        disabled: next.disabled,
        ..running.clone()
    }
}
