//! A throwaway PostgreSQL server for tests and benchmarks: `scripts/pg-test-server.sh` starts
//! a real cluster (Debian's PostgreSQL) in a temporary folder on a free local port; it is
//! stopped and removed when the [`PgServer`] is dropped. Not a stand-in: the real server. For
//! tests and harnesses run from the source tree only: it finds the script there, and panics
//! (failing the test) when a server that is installed cannot be started.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The script, in the source tree.
pub fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/pg-test-server.sh")
}

/// A throwaway PostgreSQL cluster, stopped and removed when dropped.
pub struct PgServer {
    /// The server's URL (database `postgres`).
    pub url: String,
    /// Its folder.
    pub dir: String,
}

impl PgServer {
    /// A new cluster, or `None` (with a message) when PostgreSQL is not installed.
    pub fn start(test: &str) -> Option<PgServer> {
        let available = Command::new(script())
            .arg("available")
            .output()
            .expect("sh");
        if !available.status.success() {
            eprintln!(
                "SKIPPED {test}: PostgreSQL is not installed ({}); scripts/install-system-deps.sh \
                 installs it",
                String::from_utf8_lossy(&available.stderr).trim()
            );
            return None;
        }
        let out = Command::new(script()).arg("start").output().expect("sh");
        assert!(
            out.status.success(),
            "pg-test-server.sh start: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).expect("utf-8");
        let mut lines = text.lines();
        let url = lines.next().expect("url").to_owned();
        let dir = lines.next().expect("dir").to_owned();
        Some(PgServer { url, dir })
    }

    /// Stops the server, keeping its data (the link is cut).
    pub fn down(&self) {
        assert!(Command::new(script())
            .args(["down", &self.dir])
            .status()
            .expect("sh")
            .success());
    }

    /// Starts it again on the same port.
    pub fn up(&self) {
        assert!(Command::new(script())
            .args(["up", &self.dir])
            .status()
            .expect("sh")
            .success());
    }

    /// The URL of another database of the same cluster.
    pub fn database(&self, name: &str) -> String {
        let (base, _) = self.url.rsplit_once('/').expect("a database in the URL");
        format!("{base}/{name}")
    }

    /// Runs `sql` with psql on the `postgres` database, asserting it succeeds.
    pub fn psql(&self, sql: &str) {
        let out = Command::new("psql")
            .args([&self.url, "-v", "ON_ERROR_STOP=1", "-qc", sql])
            .output()
            .expect("psql");
        assert!(
            out.status.success(),
            "psql {sql}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

impl Drop for PgServer {
    fn drop(&mut self) {
        let _ = Command::new(script()).args(["stop", &self.dir]).status();
    }
}
