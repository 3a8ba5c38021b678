//! The central record (issue 16) from the command line: `pitwatch central init|status`,
//! `pitwatch sync`, and the central copy of a workstation's record as a source for the read
//! commands (`--central URL --workstation SITE/NAME`).
//!
//! A central URL is given as `postgres://user@host:port/db`, `env:NAME` (the URL is in the
//! environment variable NAME) or `file:PATH` (in a file only its owner may read). A URL holding
//! a password is refused on the command line (every user of the machine sees a process's
//! arguments): give it as `env:NAME` or `file:PATH`, or the password in `PGPASSWORD`. The link
//! is TLS, verified against the CA in `sslrootcert=` or `PITWATCH_CENTRAL_CA` (docs/central.md).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use clap::{Args, Subcommand};
use pitwatch_store::Store;
use pitwatch_sync::{redact, Central, Identity, Outbox, Replicator, SyncReport};

/// Reads a central URL as given (see the module's documentation).
pub fn central_url(given: &str) -> anyhow::Result<String> {
    if let Some(name) = given.strip_prefix("env:") {
        return std::env::var(name).with_context(|| {
            format!("the environment variable {name} (the central URL) is not set")
        });
    }
    if let Some(path) = given.strip_prefix("file:") {
        return url_from_file(Path::new(path));
    }
    if redact(given) != given {
        bail!(
            "{} holds a password on the command line, where every user of this machine can read \
             it (the process list, shell history): give the URL as env:NAME (an environment \
             variable holding it) or file:PATH (a file only you may read), or leave the password \
             out and put it in PGPASSWORD",
            redact(given)
        );
    }
    Ok(given.to_owned())
}

/// The central URL in `path`, refused if anyone but its owner may read it.
pub fn url_from_file(path: &Path) -> anyhow::Result<String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path)
            .with_context(|| format!("cannot read {}", path.display()))?
            .permissions()
            .mode();
        if mode & 0o077 != 0 {
            bail!(
                "{} holds the central URL (and maybe a password) but others may read it \
                 (mode {:o}); make it owner-only: chmod 600 {}",
                path.display(),
                mode & 0o777,
                path.display()
            );
        }
    }
    Ok(std::fs::read_to_string(path)
        .with_context(|| format!("cannot read {}", path.display()))?
        .trim()
        .to_owned())
}

fn connect(url: &str) -> anyhow::Result<Central> {
    Central::connect(url).with_context(|| format!("cannot reach {}", redact(url)))
}

/// `pitwatch central …`.
#[derive(Debug, Subcommand)]
pub enum CentralCommand {
    /// Create or update the central schema (its migrations) in a PostgreSQL database.
    Init {
        /// The central database (`postgres://…`, `env:NAME` or `file:PATH`).
        url: String,
    },
    /// Every workstation the central database holds: rows, latest checkpoint, lag, refusals.
    Status {
        /// The central database (`postgres://…`, `env:NAME` or `file:PATH`).
        url: String,
    },
    /// Enrol a workstation (a central administrator's step): its name, the public key its
    /// checkpoints are signed with, and the PostgreSQL role it logs in as (created if missing,
    /// allowed to append to this workstation's chains only). The role's password, if one is to
    /// be set, is read from PITWATCH_ENROL_PASSWORD.
    Enrol {
        /// The central database, as its administrator (`postgres://…`, `env:NAME` or
        /// `file:PATH`).
        url: String,
        /// The workstation: SITE/NAME.
        #[arg(long, value_name = "SITE/NAME")]
        workstation: Identity,
        /// Its signing key's public half (64 hexadecimal digits, as `pitwatch verify --db FILE`
        /// prints it at the workstation).
        #[arg(long, value_name = "HEX")]
        public_key: String,
        /// The PostgreSQL role it logs in as (default: pw_SITE_NAME in lower case).
        #[arg(long)]
        role: Option<String>,
    },
}

/// The environment variable holding the password to set for an enrolled workstation's role.
pub const ENROL_PASSWORD: &str = "PITWATCH_ENROL_PASSWORD";

/// Runs `pitwatch central …`.
pub fn run(command: CentralCommand) -> anyhow::Result<ExitCode> {
    match command {
        CentralCommand::Init { url } => {
            let url = central_url(&url)?;
            let mut central = connect(&url)?;
            let applied = central.init()?;
            if applied.is_empty() {
                outln!(
                    "{}: the central schema is up to date (version {})",
                    redact(&url),
                    pitwatch_sync::SCHEMA_VERSION
                );
            } else {
                for version in applied {
                    outln!("{}: applied central migration {version}", redact(&url));
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        CentralCommand::Enrol {
            url,
            workstation,
            public_key,
            role,
        } => {
            let url = central_url(&url)?;
            let key = pitwatch_store::PublicKey::from_hex(&public_key).with_context(|| {
                format!("--public-key {public_key:?} is not a public key (64 hexadecimal digits)")
            })?;
            let role = role.unwrap_or_else(|| pitwatch_sync::default_role(&workstation));
            let password = std::env::var(ENROL_PASSWORD).ok().filter(|p| !p.is_empty());
            let mut central = connect(&url)?;
            central.check_schema()?;
            central
                .enrol(&workstation, &key, &role, password.as_deref())
                .with_context(|| format!("cannot enrol {workstation}"))?;
            outln!(
                "enrolled {workstation}: checkpoints signed by key {}, logging in as role {role}{}",
                key.fingerprint(),
                if password.is_some() {
                    " (its password set from PITWATCH_ENROL_PASSWORD)"
                } else {
                    " (no password set: set one with PITWATCH_ENROL_PASSWORD)"
                }
            );
            Ok(ExitCode::SUCCESS)
        }
        CentralCommand::Status { url } => {
            let url = central_url(&url)?;
            let mut central = connect(&url)?;
            central.check_schema()?;
            let mut refused = 0;
            for w in central.workstations()? {
                outln!(
                    "{}: record {}, {} rows, {} rows behind ({} ms) at its last delivery {}{}",
                    crate::safe::text(&w.id.to_string()),
                    w.record_id.as_deref().unwrap_or("(none delivered yet)"),
                    w.rows,
                    w.rows_behind,
                    w.ms_behind,
                    w.last_delivery.as_deref().unwrap_or("(never)"),
                    if w.refused > 0 {
                        format!(", {} rows REFUSED", w.refused)
                    } else {
                        String::new()
                    }
                );
                match w
                    .public_key
                    .as_deref()
                    .and_then(pitwatch_store::PublicKey::from_hex)
                {
                    Some(key) => outln!("  enrolled key {}", key.fingerprint()),
                    None => {
                        outln!("  NOT ENROLLED: its deliveries are refused until a central administrator enrols it");
                        refused += 1;
                    }
                }
                if let Some(checkpoint) = &w.checkpoint {
                    outln!("  latest checkpoint {checkpoint}");
                }
                if let Some(problem) = &w.checkpoint_problem {
                    outln!("  CHECKPOINT REFUSED: {}", crate::safe::text(problem));
                    refused += 1;
                }
                refused += w.refused;
            }
            for report in central.reports()? {
                outln!(
                    "{} {}: {} row {}: {}",
                    report.kind.to_uppercase(),
                    crate::safe::text(&report.id.to_string()),
                    report.chain,
                    report.position,
                    crate::safe::text(&report.message)
                );
            }
            Ok(if refused > 0 {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            })
        }
    }
}

/// Arguments of `pitwatch sync`.
#[derive(Debug, Args)]
pub struct SyncArgs {
    /// The record whose outbox to ship.
    #[arg(long)]
    db: PathBuf,
    /// The central database (`postgres://…`, `env:NAME` or `file:PATH`).
    #[arg(long)]
    central: String,
    /// Who the record is in the central database: SITE/WORKSTATION.
    #[arg(long, value_name = "SITE/WORKSTATION")]
    workstation: Identity,
    /// Ship what there is, then stop (otherwise: keep shipping until Ctrl-C).
    #[arg(long)]
    once: bool,
    /// Between rounds, when shipping continuously (milliseconds).
    #[arg(long, default_value_t = 250)]
    interval_ms: u64,
    /// When shipping continuously: alert when replication is this far behind (seconds).
    #[arg(long, default_value_t = 60)]
    alert_after_s: u64,
}

fn print_round(report: &SyncReport) {
    outln!(
        "delivered {} rows; {} rows behind, {} ms behind",
        report.delivered,
        report.rows_behind,
        report.ms_behind
    );
    for message in &report.behind {
        errln!("SERVER BEHIND: {}", crate::safe::text(message));
    }
    for message in &report.refused {
        errln!("REFUSED: {}", crate::safe::text(message));
    }
}

/// Runs `pitwatch sync`.
pub fn run_sync(args: SyncArgs) -> anyhow::Result<ExitCode> {
    if !args.db.exists() {
        bail!("{} does not exist", args.db.display());
    }
    let url = central_url(&args.central)?;
    let store = Store::open_read_only(&args.db)
        .with_context(|| format!("cannot open {}", args.db.display()))?;
    let mut outbox = Outbox::new(args.workstation.clone());
    if args.once {
        let mut central = connect(&url)?;
        central.check_schema()?;
        let report = central.sync_once(&store, &mut outbox)?;
        print_round(&report);
        return Ok(if report.refused.is_empty() {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        });
    }
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    {
        let stop = stop.clone();
        ctrlc::set_handler(move || stop.store(true, std::sync::atomic::Ordering::SeqCst))
            .context("cannot catch Ctrl-C")?;
    }
    drop(store);
    outln!(
        "shipping {} to {} as {}; Ctrl-C to stop",
        args.db.display(),
        redact(&url),
        args.workstation
    );
    let replicator = replicate(
        url,
        args.db.clone(),
        args.workstation.clone(),
        Duration::from_millis(args.interval_ms),
        Duration::from_secs(args.alert_after_s),
    )?;
    while !stop.load(std::sync::atomic::Ordering::SeqCst) && !crate::out::closed() {
        std::thread::sleep(Duration::from_millis(100));
    }
    replicator.stop();
    outln!("stopped");
    Ok(ExitCode::SUCCESS)
}

/// Starts shipping the record at `db` continuously, printing what changes: each round that
/// delivered rows, refusals (once each), a server found behind, the link going down and coming
/// back, and an alert while replication is more than `alert_after` behind (or the link down that
/// long), with the rows and time behind.
pub fn replicate(
    url: String,
    db: PathBuf,
    id: Identity,
    interval: Duration,
    alert_after: Duration,
) -> anyhow::Result<Replicator> {
    let mut alerting = false;
    let mut was_connected: Option<bool> = None;
    let mut said_refused = std::collections::BTreeSet::new();
    let mut last_said = Instant::now() - Duration::from_secs(60);
    Replicator::spawn(url, db, Outbox::new(id), interval, move |status| {
        if was_connected != Some(status.connected) {
            match (&status.error, status.connected) {
                (_, true) => outln!("replication: connected"),
                (Some(e), false) => errln!(
                    "replication: link down ({}); recording goes on, the outbox catches up when \
                     it returns",
                    crate::safe::text(e)
                ),
                (None, false) => {}
            }
            was_connected = Some(status.connected);
        }
        if let Some(report) = status.report.as_ref().filter(|_| status.connected) {
            for message in &report.behind {
                errln!("replication: SERVER BEHIND: {}", crate::safe::text(message));
            }
            for message in &report.refused {
                if said_refused.insert(message.clone()) {
                    errln!("replication: REFUSED: {}", crate::safe::text(message));
                }
            }
            if report.delivered > 0 && last_said.elapsed() >= Duration::from_secs(10) {
                outln!(
                    "replication: delivered {} rows; {} rows behind, {} ms behind",
                    report.delivered,
                    report.rows_behind,
                    report.ms_behind
                );
                last_said = Instant::now();
            }
        }
        let behind = status.behind();
        if behind > alert_after && !alerting {
            errln!(
                "ALERT replication: {} s behind, {} rows behind (threshold {} s){}",
                behind.as_secs(),
                status.rows_behind(),
                alert_after.as_secs(),
                if status.connected {
                    ""
                } else {
                    "; the link is down"
                }
            );
            alerting = true;
        } else if behind <= alert_after && alerting && status.connected {
            outln!(
                "replication: caught up ({} rows behind, {} ms)",
                status.rows_behind(),
                behind.as_millis()
            );
            alerting = false;
        }
    })
    .context("cannot start the replication thread")
}

/// A record to read: a file, or a central copy rebuilt into a temporary file (removed when
/// this is dropped).
pub struct Source {
    /// The record's file.
    pub db: PathBuf,
    /// Whether it is a central copy (open it read-only; nothing may be written to it).
    pub central: bool,
    /// For a central copy: which, from where, as of which checkpoint (the password hidden).
    pub describe: Option<String>,
    /// For a central copy: the key enrolled for the workstation in the central database (which
    /// no workstation can change), to check its checkpoints' signatures with.
    pub trusted: Vec<pitwatch_store::PublicKey>,
    _dir: Option<tempfile::TempDir>,
}

/// Arguments the read commands take to read a central copy instead of a file.
#[derive(Debug, Args, Clone)]
pub struct CentralSource {
    /// Read the record from the central database (`postgres://…`, `env:NAME` or `file:PATH`)
    /// instead of a file (read-only).
    #[arg(long, conflicts_with = "db")]
    pub central: Option<String>,
    /// With --central: the workstation whose record to read (SITE/WORKSTATION); needed when
    /// the central database holds more than one.
    #[arg(long, requires = "central", value_name = "SITE/WORKSTATION")]
    pub workstation: Option<Identity>,
}

impl CentralSource {
    /// The record to read: `db` as given, or the central copy.
    pub fn resolve(&self, db: Option<&Path>) -> anyhow::Result<Source> {
        match (&self.central, db) {
            (None, Some(db)) => Ok(Source {
                db: db.to_owned(),
                central: false,
                describe: None,
                trusted: Vec::new(),
                _dir: None,
            }),
            (None, None) => bail!("give --db FILE or --central URL"),
            (Some(url), _) => {
                let url = central_url(url)?;
                let mut central = connect(&url)?;
                central.check_schema()?;
                let id = match &self.workstation {
                    Some(id) => id.clone(),
                    None => {
                        let all = central.workstations()?;
                        match all.as_slice() {
                            [one] => one.id.clone(),
                            [] => bail!("the central database holds no workstation yet"),
                            many => bail!(
                                "the central database holds {} workstations ({}); name one with \
                                 --workstation SITE/WORKSTATION",
                                many.len(),
                                many.iter()
                                    .map(|w| w.id.to_string())
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            ),
                        }
                    }
                };
                let dir = tempfile::tempdir().context("cannot make a temporary folder")?;
                let db = dir
                    .path()
                    .join(format!("{}-{}.db", id.site, id.workstation));
                let checkpoint = central
                    .rebuild(&id, &db)
                    .with_context(|| format!("cannot read {id} from {}", redact(&url)))?;
                if checkpoint == 0 {
                    bail!("the central database holds no signed checkpoint of {id} yet");
                }
                let trusted: Vec<_> = central.enrolled_key(&id)?.into_iter().collect();
                if trusted.is_empty() {
                    errln!(
                        "{id} is not enrolled in the central database: its checkpoints' \
                         signatures cannot be checked against an enrolled key"
                    );
                }
                errln!(
                    "reading {id} from {} as of its checkpoint {checkpoint} (read-only)",
                    redact(&url)
                );
                Ok(Source {
                    db,
                    central: true,
                    describe: Some(format!(
                        "the central copy of {id} at {} as of its checkpoint {checkpoint}",
                        redact(&url)
                    )),
                    trusted,
                    _dir: Some(dir),
                })
            }
        }
    }
}
