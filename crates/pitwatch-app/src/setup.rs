//! Pit setup: what a workstation runs (a pit definition or the demo pit), where it records, and
//! the rules that keep the demo a demo: the demo pit records only into a database of its own,
//! marked as the demo's, and a real pit never into that one.

use std::path::PathBuf;
use std::time::Duration;

use pitwatch_api::dto::{ApiError, ErrorCode};
use pitwatch_model::Timestamp;
use pitwatch_recording::pit::PitConfig;
use pitwatch_recording::record::Installation;
use pitwatch_store::Store;

/// The demo supervisor's name, created in the demo pit's database.
pub const DEMO_USER: &str = "demo";

/// The demo pit's database file in the app's data folder (see [`DeskOptions::from_env`]).
pub const DEMO_DB: &str = "demo.db";

/// The meta key that marks a record as the demo pit's (`"1"`): the demo runs only on such a
/// record (or a new one), and a real pit never on one.
pub const DEMO_MARK: &str = "demo";

/// The demo supervisor's password (shown on the login screen of the demo pit only).
pub const DEMO_PASSWORD: &str = "pitwatch-demo";

/// The demo's second supervisor, who accepts a shift's handover from [`DEMO_USER`] (a handover
/// needs two people), created in the demo pit's database beside them.
pub const DEMO_INCOMING_USER: &str = "demo-next";

/// The second demo supervisor's password (shown on the demo's shift screen only).
pub const DEMO_INCOMING_PASSWORD: &str = "pitwatch-next";

/// The demo's administrator, so a newcomer can try setting up tables, devices and users on the
/// demo pit's own record (a real pit's administrators are made with `pitwatch user add`).
pub const DEMO_ADMIN_USER: &str = "demo-admin";

/// The demo administrator's password (shown on the demo pit's login screen only).
pub const DEMO_ADMIN_PASSWORD: &str = "pitwatch-admin";

/// The demo's supervisors and administrator as the window shows them (the demo pit only).
pub fn demo_login() -> pitwatch_api::dto::DemoLogin {
    pitwatch_api::dto::DemoLogin {
        user: DEMO_USER.to_owned(),
        password: DEMO_PASSWORD.to_owned(),
        incoming_user: DEMO_INCOMING_USER.to_owned(),
        incoming_password: DEMO_INCOMING_PASSWORD.to_owned(),
        admin_user: DEMO_ADMIN_USER.to_owned(),
        admin_password: DEMO_ADMIN_PASSWORD.to_owned(),
    }
}

/// Adds the demo's supervisors and administrator to the demo pit's record where they are missing.
pub(crate) fn demo_users(store: &mut Store, now: Timestamp) -> Result<(), ApiError> {
    use pitwatch_store::Role;
    for (name, password, role) in [
        (DEMO_USER, DEMO_PASSWORD, Role::Supervisor),
        (DEMO_INCOMING_USER, DEMO_INCOMING_PASSWORD, Role::Supervisor),
        (DEMO_ADMIN_USER, DEMO_ADMIN_PASSWORD, Role::Admin),
    ] {
        if !store.user_exists(name)? {
            store.add_user(DEMO_USER, name, role, password, now)?;
        }
    }
    Ok(())
}

/// Rounds between the demo's injected irregularities, per table (the first simulated table also
/// gets one in its third round, so the workflow shows early).
pub const DEMO_FAULT_EVERY: u32 = 30;

/// How fast the demo's simulated dealers deal.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Pace {
    /// A real dealer's pace.
    RealTime,
    /// As fast as the simulator can.
    Fast,
    /// A real dealer's pace sped up this many times.
    Times(f64),
}

#[cfg(feature = "demo")]
impl From<Pace> for pitwatch_sim::Pace {
    fn from(pace: Pace) -> pitwatch_sim::Pace {
        match pace {
            Pace::RealTime => pitwatch_sim::Pace::RealTime,
            Pace::Fast => pitwatch_sim::Pace::Fast,
            Pace::Times(factor) => pitwatch_sim::Pace::Times(factor),
        }
    }
}

/// How to start the desk.
#[derive(Debug, Clone)]
pub struct DeskOptions {
    /// The pit to watch; simulated tables get a simulated device each.
    pub pit: PitConfig,
    /// The file `pit` was read from, if any: what the window's Reload reads again.
    pub pit_file: Option<PathBuf>,
    /// The database to record into (created if missing).
    pub db: PathBuf,
    /// How fast the simulated dealers deal.
    pub pace: Pace,
    /// Rounds between injected irregularities at each simulated table.
    pub fault_every: u32,
    /// The installation: its signing key and witness folders.
    pub installation: Installation,
    /// The host clock's synchronisation state the monitor samples (the kernel's; tests fake it).
    pub host_clock: pitwatch_recording::clock::HostClock,
    /// Seconds without input after which the window locks (0: never).
    pub idle_lock_seconds: u32,
    /// How often the access review and the log review are due (`crate::reviews`).
    pub reviews: ReviewPeriods,
}

impl DeskOptions {
    /// The demo pit at a dealer's pace, recording into `db`, signed with a key kept beside it
    /// (`signing.key`; [`DeskOptions::from_env`] uses the installation's key instead).
    pub fn demo(db: PathBuf) -> DeskOptions {
        let installation = Installation::with_key(db.with_file_name("signing.key"));
        DeskOptions {
            pit: PitConfig::demo(),
            pit_file: None,
            db,
            pace: Pace::RealTime,
            fault_every: DEMO_FAULT_EVERY,
            installation,
            host_clock: pitwatch_recording::clock::HostClock::default(),
            idle_lock_seconds: pitwatch_api::dto::DEFAULT_IDLE_LOCK_SECONDS,
            reviews: ReviewPeriods::default(),
        }
    }
}

impl DeskOptions {
    /// What to run: `PITWATCH_CONFIG` or `arg` names a pit definition (TOML, as for
    /// `pitwatch monitor`; else the demo pit), `PITWATCH_DB` a real pit's database (else
    /// `pitwatch.db` in `data_dir`), `PITWATCH_DEMO_DB` the demo pit's (else [`DEMO_DB`] in
    /// `data_dir`; the demo never records into `PITWATCH_DB`), `PITWATCH_DEMO_PACE` the simulated
    /// dealers' pace (`real`, `fast`, `10x`), `PITWATCH_DEMO_FAULT_EVERY` the rounds between
    /// injected irregularities (0: none) and
    /// `PITWATCH_IDLE_LOCK_SECONDS` how long the window may be left alone before it locks
    /// (default ten minutes; 0: never), `PITWATCH_ACCESS_REVIEW_DAYS` and
    /// `PITWATCH_LOG_REVIEW_DAYS` how often the access and log reviews are due (90 and 7).
    /// `env` looks a variable up.
    pub fn from_env(
        env: impl Fn(&str) -> Option<String>,
        arg: Option<PathBuf>,
        data_dir: &std::path::Path,
    ) -> Result<DeskOptions, ApiError> {
        let invalid = |m: String| ApiError::new(ErrorCode::InvalidInput, m);
        let config = env("PITWATCH_CONFIG").map(PathBuf::from).or(arg);
        let pit = match &config {
            Some(path) => {
                let text = std::fs::read_to_string(path)
                    .map_err(|e| invalid(format!("cannot read {}: {e}", path.display())))?;
                // A table whose section is wrong is shown disabled while the others run; with no
                // table left to run, the pit is not started and every problem is listed.
                let pit = PitConfig::load(&text)
                    .map_err(|e| invalid(format!("{}: {e}", path.display())))?;
                if pit.tables.is_empty() && !pit.disabled.is_empty() {
                    let problems = pit.disabled.iter().flat_map(|d| d.problems.clone());
                    let error = pitwatch_recording::PitConfigError::Invalid(problems.collect());
                    return Err(invalid(format!(
                        "{}: no table can run; {error}",
                        path.display()
                    )));
                }
                pit
            }
            None => PitConfig::demo(),
        };
        // The demo pit records into a database of its own, never the one PITWATCH_DB names for
        // a real pit: its rounds are simulated and its supervisor's password is on the screen.
        let db = if pit.demo {
            env("PITWATCH_DEMO_DB")
                .filter(|d| !d.trim().is_empty())
                .map_or_else(|| data_dir.join(DEMO_DB), PathBuf::from)
        } else {
            env("PITWATCH_DB")
                .filter(|d| !d.trim().is_empty())
                .map_or_else(|| data_dir.join("pitwatch.db"), PathBuf::from)
        };
        let installation = Installation {
            key: env("PITWATCH_KEY")
                .filter(|k| !k.is_empty())
                .map_or_else(pitwatch_recording::record::default_key_path, PathBuf::from),
            witness_dirs: pit.record.witness.clone(),
        };
        let mut options = DeskOptions {
            pit,
            pit_file: config,
            installation,
            ..DeskOptions::demo(db)
        };
        if let Some(pace) = env("PITWATCH_DEMO_PACE") {
            options.pace = parse_pace(&pace)?;
        }
        if let Some(seconds) = env("PITWATCH_IDLE_LOCK_SECONDS") {
            options.idle_lock_seconds = seconds.trim().parse().map_err(|_| {
                invalid(format!(
                    "PITWATCH_IDLE_LOCK_SECONDS={seconds:?} is not a number of seconds"
                ))
            })?;
        }
        options.reviews = ReviewPeriods::from_env(&env)?;
        if let Some(every) = env("PITWATCH_DEMO_FAULT_EVERY") {
            options.fault_every = every.trim().parse().map_err(|_| {
                invalid(format!(
                    "PITWATCH_DEMO_FAULT_EVERY={every:?} is not a number of rounds"
                ))
            })?;
        }
        Ok(options)
    }
}

/// How often each review is due.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReviewPeriods {
    /// Between access reviews.
    pub access: Duration,
    /// Between log reviews.
    pub log: Duration,
}

/// A day, in seconds.
pub(crate) const DAY: u64 = 24 * 3600;

impl Default for ReviewPeriods {
    /// Ninety days between access reviews, a week between log reviews.
    fn default() -> Self {
        ReviewPeriods {
            access: Duration::from_secs(90 * DAY),
            log: Duration::from_secs(7 * DAY),
        }
    }
}

impl ReviewPeriods {
    /// The periods from `PITWATCH_ACCESS_REVIEW_DAYS` and `PITWATCH_LOG_REVIEW_DAYS` (whole days,
    /// at least 1), each defaulting as [`ReviewPeriods::default`]; `env` looks a variable up.
    pub fn from_env(env: impl Fn(&str) -> Option<String>) -> Result<ReviewPeriods, ApiError> {
        let days = |name: &str, default: Duration| -> Result<Duration, ApiError> {
            match env(name).filter(|v| !v.trim().is_empty()) {
                None => Ok(default),
                Some(text) => match text.trim().parse::<u32>() {
                    Ok(n) if n >= 1 => Ok(Duration::from_secs(u64::from(n) * DAY)),
                    _ => Err(ApiError::new(
                        ErrorCode::InvalidInput,
                        format!("{name}={text:?} is not a number of days (1 or more)"),
                    )),
                },
            }
        };
        let default = ReviewPeriods::default();
        Ok(ReviewPeriods {
            access: days("PITWATCH_ACCESS_REVIEW_DAYS", default.access)?,
            log: days("PITWATCH_LOG_REVIEW_DAYS", default.log)?,
        })
    }
}

/// Reads a pace: `real`, `fast`, or a speed-up like `10x`.
pub fn parse_pace(text: &str) -> Result<Pace, ApiError> {
    let text = text.trim().to_ascii_lowercase();
    let bad = || {
        ApiError::new(
            ErrorCode::InvalidInput,
            format!("{text:?} is not a pace (real, fast, or a speed-up like 10x)"),
        )
    };
    match text.as_str() {
        "real" | "1x" => Ok(Pace::RealTime),
        "fast" => Ok(Pace::Fast),
        other => {
            let factor: f64 = other
                .strip_suffix('x')
                .ok_or_else(bad)?
                .parse()
                .map_err(|_| bad())?;
            if factor.is_finite() && factor > 0.0 {
                Ok(Pace::Times(factor))
            } else {
                Err(bad())
            }
        }
    }
}

/// The demo pit runs only on a record that is the demo's (marked [`DEMO_MARK`]) or new, and a
/// real pit never on the demo's: simulated rounds and a supervisor whose password is on the
/// screen must not enter a real record, whatever a configuration or `PITWATCH_DB` says.
pub(crate) fn keep_the_demo_apart(
    store: &mut Store,
    demo: bool,
    db: &std::path::Path,
    now: Timestamp,
) -> Result<(), ApiError> {
    let marked = store.meta(DEMO_MARK)?.as_deref() == Some("1");
    let refuse = |m: String| ApiError::new(ErrorCode::Conflict, m);
    if demo && !marked {
        let used = !store.users()?.is_empty() || !store.tables()?.is_empty();
        if used {
            return Err(refuse(format!(
                "{} is a real pit's record; the demo pit records only into a database of its own (PITWATCH_DEMO_DB)",
                db.display()
            )));
        }
        store.set_meta(DEMO_MARK, "1", now)?;
    } else if !demo && marked {
        return Err(refuse(format!(
            "{} is the demo pit's record; a real pit needs a database of its own (PITWATCH_DB)",
            db.display()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use crate::setup::Pace;
    use pitwatch_api::dto::ErrorCode;

    use crate::live::Desk;
    use crate::setup::{parse_pace, DeskOptions, DEMO_DB, DEMO_FAULT_EVERY, DEMO_USER};
    use crate::testkit::*;

    #[test]
    fn options_come_from_the_environment_and_a_real_pit_replaces_the_demo() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let none = |_: &str| None;
        let options = DeskOptions::from_env(none, None, dir.path()).expect("defaults");
        assert!(options.pit.demo);
        assert_eq!(options.db, dir.path().join(DEMO_DB));
        // The demo never records into the database a real pit names.
        let real_db = |name: &str| (name == "PITWATCH_DB").then(|| "/srv/pit/real.db".to_owned());
        let options = DeskOptions::from_env(real_db, None, dir.path()).expect("the demo");
        assert_eq!(options.db, dir.path().join(DEMO_DB));
        let demo_db =
            |name: &str| (name == "PITWATCH_DEMO_DB").then(|| "/tmp/demo-e2e.db".to_owned());
        let options = DeskOptions::from_env(demo_db, None, dir.path()).expect("the demo");
        assert_eq!(options.db, PathBuf::from("/tmp/demo-e2e.db"));
        assert_eq!(options.pace, Pace::RealTime);
        assert_eq!(options.fault_every, DEMO_FAULT_EVERY);

        let config = dir.path().join("pit.toml");
        std::fs::write(
            &config,
            "[site]\nname = \"Real\"\n\n[[table]]\nname = \"T1\"\ngame = \"baccarat\"\n\
             rules = \"nz-baccarat\"\ndevice = { protocol = \"angel-eye\" }\n\
             link = { kind = \"serial\", path = \"/dev/ttyUSB0\", baud = 4800 }\n",
        )
        .expect("a config");
        let env = |name: &str| match name {
            "PITWATCH_DB" => Some("/tmp/x.db".to_owned()),
            "PITWATCH_DEMO_PACE" => Some("10x".to_owned()),
            "PITWATCH_DEMO_FAULT_EVERY" => Some("0".to_owned()),
            _ => None,
        };
        let options =
            DeskOptions::from_env(env, Some(config.clone()), dir.path()).expect("a real pit");
        assert!(!options.pit.demo);
        assert_eq!(options.pit.tables[0].name, "T1");
        assert_eq!(options.db, PathBuf::from("/tmp/x.db"));
        assert_eq!(options.pace, Pace::Times(10.0));
        assert_eq!(options.fault_every, 0);

        let bad = |name: &str| (name == "PITWATCH_DEMO_FAULT_EVERY").then(|| "often".to_owned());
        let error = DeskOptions::from_env(bad, None, dir.path()).expect_err("not a number");
        assert_eq!(error.code, ErrorCode::InvalidInput);
        let missing = DeskOptions::from_env(none, Some(dir.path().join("nope.toml")), dir.path())
            .expect_err("no such file");
        assert!(missing.message.contains("nope.toml"), "{}", missing.message);
    }

    #[test]
    fn paces_read_as_a_supervisor_writes_them() {
        assert_eq!(parse_pace("real").ok(), Some(Pace::RealTime));
        assert_eq!(parse_pace("10x").ok(), Some(Pace::Times(10.0)));
        assert_eq!(parse_pace(" Fast ").ok(), Some(Pace::Fast));
        for bad in ["", "x", "0x", "-2x", "ten", "nanx"] {
            let error = parse_pace(bad).expect_err(bad);
            assert_eq!(error.code, ErrorCode::InvalidInput);
        }
    }

    #[test]
    fn the_record_names_the_site_the_window_shows_for_every_report() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let db = dir.path().join("real.db");
        let desk = real_desk(&db);
        assert_eq!(desk.overview().site, "Real");
        desk.stop();
        // The reports read the site from the record's facts, as a copy elsewhere would.
        assert_eq!(
            test_store(&db).meta("site").expect("read").as_deref(),
            Some("Real")
        );
    }

    #[test]
    fn the_demo_never_runs_on_a_real_record_nor_a_real_pit_on_the_demos() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let real = dir.path().join("real.db");
        real_desk(&real).stop();
        let refused = Desk::start(DeskOptions::demo(real.clone()))
            .err()
            .expect("the demo refuses a real record");
        assert_eq!(refused.code, ErrorCode::Conflict);
        assert!(refused.message.contains("real pit's record"), "{refused}");
        assert!(
            !test_store(&real).user_exists(DEMO_USER).expect("users"),
            "no demo supervisor in a real record"
        );
        let demo = dir.path().join("demo.db");
        let mut options = DeskOptions::demo(demo.clone());
        options.fault_every = 0;
        Desk::start(options).expect("the demo starts").0.stop();
        let refused = Desk::start(DeskOptions {
            pit: real_pit(),
            ..DeskOptions::demo(demo)
        })
        .err()
        .expect("a real pit refuses the demo's record");
        assert!(refused.message.contains("demo pit's record"), "{refused}");
    }

    #[test]
    fn the_demo_pit_never_asks_for_a_first_admin() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let (desk, updates) =
            Desk::start(DeskOptions::demo(dir.path().join("demo.db"))).expect("the desk starts");
        drop(updates);
        assert!(!desk.needs_first_admin().expect("asks the record"));
        let refused = desk
            .create_first_admin("root", ALICE)
            .expect_err("not on the demo");
        assert_eq!(refused.code, ErrorCode::Conflict);
        // Its own administrator instead, shown on its login screen: the set-up screens can be tried.
        let shown = super::demo_login();
        let session = desk
            .login(&shown.admin_user, &shown.admin_password)
            .expect("the demo administrator logs in");
        assert_eq!(session.role, "admin");
        desk.logout().expect("logs out");
        let session = desk
            .login(&shown.user, &shown.password)
            .expect("the demo supervisor logs in");
        assert_eq!(session.role, "supervisor");
        desk.stop();
    }
}
