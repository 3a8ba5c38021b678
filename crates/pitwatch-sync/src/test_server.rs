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
    /// The server's URL (database `postgres`, its superuser `pitwatch`): plaintext on loopback
    /// (`sslmode=disable`), or for a TLS server `localhost` with `sslmode=verify-full` and
    /// `sslrootcert=` the throwaway CA.
    pub url: String,
    /// Its folder.
    pub dir: String,
    /// A TLS server's superuser password (SCRAM; TCP takes nothing else); `None`: trust.
    pub password: Option<String>,
}

impl PgServer {
    /// A new plaintext cluster trusting local connections, or `None` (with a message) when
    /// PostgreSQL is not installed.
    pub fn start(test: &str) -> Option<PgServer> {
        PgServer::launch(test, "start")
    }

    /// A new cluster taking TCP over TLS only (a throwaway CA and a certificate for `localhost`
    /// made in its folder: `ca.crt`; `other-ca.crt` signed nothing) with SCRAM-SHA-256, or
    /// `None` (with a message) when PostgreSQL is not installed.
    pub fn start_tls(test: &str) -> Option<PgServer> {
        PgServer::launch(test, "start-tls")
    }

    fn launch(test: &str, how: &str) -> Option<PgServer> {
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
        let out = Command::new(script()).arg(how).output().expect("sh");
        assert!(
            out.status.success(),
            "pg-test-server.sh start: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).expect("utf-8");
        let mut lines = text.lines();
        let url = lines.next().expect("url").to_owned();
        let dir = lines.next().expect("dir").to_owned();
        let password = std::fs::read_to_string(Path::new(&dir).join("password"))
            .ok()
            .map(|p| p.trim().to_owned());
        Some(PgServer { url, dir, password })
    }

    /// The server's port.
    pub fn port(&self) -> u16 {
        std::fs::read_to_string(Path::new(&self.dir).join("port"))
            .expect("port")
            .trim()
            .parse()
            .expect("a port")
    }

    /// The superuser's URL over the folder's Unix socket (trusted, plaintext: a local socket).
    pub fn socket_url(&self) -> String {
        format!(
            "postgres://pitwatch@{}:{}/postgres?sslmode=disable",
            self.dir.replace('/', "%2F"),
            self.port()
        )
    }

    /// The URL of the same server and database as role `role`.
    pub fn url_as(&self, role: &str) -> String {
        let (scheme, rest) = self.url.split_once("://").expect("a URL");
        let (_, host) = rest.split_once('@').expect("a user");
        format!("{scheme}://{role}@{host}")
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
        let (url, query) = match self.url.split_once('?') {
            Some((url, query)) => (url, format!("?{query}")),
            None => (self.url.as_str(), String::new()),
        };
        let (base, _) = url.rsplit_once('/').expect("a database in the URL");
        format!("{base}/{name}{query}")
    }

    /// Runs `sql` with psql on the `postgres` database, asserting it succeeds.
    pub fn psql(&self, sql: &str) {
        let url = if self.password.is_some() {
            self.socket_url()
        } else {
            self.url.clone()
        };
        let out = Command::new("psql")
            .args([&url, "-v", "ON_ERROR_STOP=1", "-qc", sql])
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
