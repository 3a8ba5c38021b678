//! The record's integrity at the workstation, as the window asks for it: the record's status
//! (key, checkpoint, journals, alerts) and its verification, in full once, then only what was
//! appended since. What the desk keeps of the record is [`crate::state::record`]'s.

use pitwatch_api::dto::{ApiError, RecordStatus};
use pitwatch_store::Store;

use crate::live::Desk;

impl Desk {
    /// The record: where it is, its id, the installation key's fingerprint, the latest
    /// checkpoint, and what is wrong with it.
    pub fn record_status(&self) -> RecordStatus {
        self.record.status()
    }

    /// Verifies the record's chains: in full (with SQLite's own integrity check) the first time,
    /// then only the rows appended since, after checking that the last row verified still has
    /// the hash it had (see [`Store::verify_after`]). Returns whether it is intact and what was
    /// checked, in words.
    pub fn verify(&self, store: &Store) -> Result<(bool, String), ApiError> {
        self.record.verify(self.clock.as_ref(), store)
    }

    /// Whether the record has been verified in full since the desk started (by the background
    /// check or a replay) and was intact then.
    pub fn verified_in_full(&self) -> bool {
        self.record.verified_in_full()
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use crate::setup::Pace;
    use pitwatch_api::dto::{PitUpdate, RecordStatus, Severity};
    use pitwatch_store::Role;
    use pitwatch_transport::{Clock, SystemClock};

    use crate::live::Desk;
    use crate::setup::{DeskOptions, DEMO_MARK};
    use crate::testkit::*;

    use crate::state::record::{replication_alerts, Replication};

    #[test]
    fn a_central_database_out_of_reach_is_a_replication_alert_on_every_screen() {
        let dir = tempfile::tempdir().expect("a temp dir");
        // A central database nobody runs: a port just closed.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let url_file = dir.path().join("central.url");
        std::fs::write(
            &url_file,
            format!("postgres://pitwatch:s3cret@127.0.0.1:{port}/central"),
        )
        .expect("the URL file");
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&url_file, std::fs::Permissions::from_mode(0o600))
                .expect("owner-only");
        }
        let mut pit = real_pit();
        pit.central = Some(pitwatch_recording::pit::CentralConfig {
            url: None,
            url_env: None,
            url_file: Some(url_file),
            site: "sky".into(),
            workstation: "pit-3".into(),
            alert_after_s: 1,
        });
        let (desk, updates) = Desk::start(DeskOptions {
            pit,
            ..DeskOptions::demo(dir.path().join("central.db"))
        })
        .expect("the desk starts: replication never holds up recording");
        // The window hears of it without asking: a record update with the alert.
        let deadline = Instant::now() + Duration::from_secs(20);
        let mut alerted = None;
        while alerted.is_none() && Instant::now() < deadline {
            if let Ok(PitUpdate::Record { record }) =
                updates.recv_timeout(Duration::from_millis(200))
            {
                if record
                    .alerts
                    .iter()
                    .any(|a| a.message.contains("Replication"))
                {
                    alerted = Some(record);
                }
            }
        }
        let record = alerted.expect("a replication alert within 20 s");
        let state = record.replication.expect("the replication state");
        assert_eq!(state.workstation, "sky/pit-3");
        assert!(!state.connected);
        assert!(state.seconds_behind > 1, "{state:?}");
        let alert = record
            .alerts
            .iter()
            .find(|a| a.message.contains("Replication"))
            .expect("the alert");
        assert_eq!(alert.severity, Severity::High);
        assert!(
            alert.message.contains("the link is down"),
            "{}",
            alert.message
        );
        assert!(
            !alert.message.contains("s3cret"),
            "no password shown: {}",
            alert.message
        );
        // And on the record status every screen reads.
        assert!(desk
            .record_status()
            .alerts
            .iter()
            .any(|a| a.message.contains("Replication")));
        desk.stop();
    }

    /// A host clock whose synchronisation the test sets.
    struct FakeClock(std::sync::Mutex<bool>);

    impl pitwatch_recording::clock::ClockSource for FakeClock {
        fn read(&self) -> pitwatch_recording::clock::ClockReading {
            pitwatch_recording::clock::ClockReading {
                synchronised: *self.0.lock().unwrap(),
                est_error_us: 8_000,
                max_error_us: 30_000,
                offset_us: 0,
                source: "fake".into(),
                unreadable: None,
            }
        }
    }

    #[test]
    fn a_host_clock_out_of_sync_is_a_record_alert_on_every_screen_until_it_is_back() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let fake = std::sync::Arc::new(FakeClock(std::sync::Mutex::new(false)));
        let (desk, updates) = Desk::start(DeskOptions {
            pace: Pace::Times(20.0),
            host_clock: pitwatch_recording::clock::HostClock(fake.clone()),
            ..DeskOptions::demo(dir.path().join("clock.db"))
        })
        .expect("the desk starts");
        let clock_alert = |r: &RecordStatus| {
            r.alerts
                .iter()
                .any(|a| a.message.starts_with("The host clock"))
        };
        let wait = |what: &str, want: bool| {
            let deadline = Instant::now() + Duration::from_secs(30);
            loop {
                match updates.recv_timeout(Duration::from_millis(500)) {
                    Ok(PitUpdate::Record { record }) if clock_alert(&record) == want => {
                        break record
                    }
                    _ if Instant::now() > deadline => panic!("no update: {what}"),
                    _ => {}
                }
            }
        };
        let lost = wait("the clock's alert", true);
        assert!(lost
            .alerts
            .iter()
            .any(|a| a.severity == Severity::High && a.message.contains("not synchronised")));
        assert!(
            clock_alert(&desk.record_status()),
            "on the status every screen reads"
        );
        *fake.0.lock().unwrap() = true;
        wait("the clock back", false);
        assert!(!clock_alert(&desk.record_status()));
        desk.stop();
    }

    #[test]
    fn the_host_clock_s_alert_stands_until_the_clock_is_back() {
        let alerts = std::sync::Mutex::new(crate::state::record::RecordAlerts::default());
        assert!(alerts.lock().unwrap().alerts().is_empty());
        let lost = Some("The host clock is not synchronised to a time source.".to_owned());
        assert!(
            crate::state::record::set_clock_alert(&alerts, lost.clone()),
            "raised"
        );
        assert!(
            !crate::state::record::set_clock_alert(&alerts, lost),
            "already standing"
        );
        let shown = alerts.lock().unwrap().alerts();
        assert_eq!(shown.len(), 1);
        assert_eq!(shown[0].severity, Severity::High);
        assert!(shown[0].message.contains("not synchronised"));
        assert!(
            crate::state::record::set_clock_alert(&alerts, None),
            "cleared"
        );
        assert!(alerts.lock().unwrap().alerts().is_empty());
    }

    #[test]
    fn replication_alerts_say_refusals_a_server_behind_and_a_lag_past_the_threshold() {
        let mut state = Replication {
            workstation: "sky/pit-3".into(),
            connected: true,
            error: None,
            rows_behind: 12,
            seconds_behind: 3,
            alert_after_s: 60,
            refused: Vec::new(),
            behind: Vec::new(),
        };
        assert!(
            replication_alerts(&state).is_empty(),
            "3 s behind is no alert"
        );
        state.seconds_behind = 61;
        let lag = replication_alerts(&state);
        assert_eq!(lag.len(), 1);
        assert!(
            lag[0].message.contains("61 s behind (12 rows"),
            "{}",
            lag[0].message
        );
        state
            .refused
            .push("events row 7: its hash does not match".into());
        state
            .behind
            .push("frames: the server holds 10 of 20".into());
        let all = replication_alerts(&state);
        assert_eq!(all.len(), 3);
        assert_eq!(all[0].severity, Severity::Critical);
        assert!(all[0].message.contains("events row 7"));
    }

    #[test]
    fn the_record_shows_its_key_and_checkpoint_and_a_failing_witness_is_an_alert() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let db = dir.path().join("pit.db");
        let witness = dir.path().join("witness");
        std::fs::create_dir(&witness).expect("a witness folder");
        let mut options = DeskOptions::demo(db.clone());
        options.pace = Pace::Times(20.0);
        options.installation.witness_dirs = vec![witness.clone()];
        // The record exists; its journal in the witness folder cannot be written (a folder
        // stands where the file should be).
        let mut store = options.installation.open(&db).expect("the record");
        store
            .set_meta("site", "Witness test", SystemClock.now())
            .expect("written");
        let record = store.record_id().expect("read").expect("an id");
        drop(store);
        let journal = pitwatch_store::witness::journal_in(&witness, &record);
        std::fs::remove_file(&journal).expect("the journal was written");
        std::fs::create_dir(&journal).expect("a folder in the journal's place");

        let (desk, updates) = Desk::start(options).expect("the desk starts");
        let status = desk.overview().record;
        assert_eq!(status.record_id.as_deref(), Some(record.as_str()));
        let fingerprint = status.key_fingerprint.clone().expect("a key");
        assert_eq!(fingerprint.len(), 39, "{fingerprint}");
        assert!(
            status.latest_checkpoint.as_deref().is_some_and(|c| c
                .starts_with("pitwatch-checkpoint:1:")
                && c.ends_with(&fingerprint)),
            "{status:?}"
        );
        assert_eq!(status.journals.len(), 2, "{status:?}");
        // The monitor writes checkpoints as the demo deals; the witness cannot take them. (The
        // host clock's alert may stand beside it: this host's clock may not be synchronised.)
        let deadline = Instant::now() + Duration::from_secs(30);
        let journal_alert =
            |a: &pitwatch_api::dto::RecordAlert| a.message.contains("cannot be written");
        let alert = loop {
            match updates.recv_timeout(Duration::from_millis(500)) {
                Ok(PitUpdate::Record { record }) if record.alerts.iter().any(journal_alert) => {
                    break record
                }
                _ if Instant::now() > deadline => panic!("no record alert"),
                _ => {}
            }
        };
        let journal = alert.alerts.iter().find(|a| journal_alert(a));
        assert_eq!(
            journal.map(|a| a.severity),
            Some(Severity::High),
            "{:?}",
            alert.alerts
        );
        assert_eq!(
            desk.overview().record.alerts,
            alert.alerts,
            "every screen shows it"
        );
        // Recording went on: the record itself is intact and growing.
        desk.stop();
        let store = test_store(&db);
        let report = store.verify().expect("verifies");
        assert!(report
            .problems
            .iter()
            .all(|p| !p.contains("not in the record")));
        assert!(report.chains_intact());
    }

    #[test]
    fn a_row_altered_in_place_is_found_by_the_background_verification_and_moves_the_next_start() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let db = dir.path().join("pit.db");
        let options = DeskOptions::demo(db.clone());
        {
            let mut store = options.installation.open(&db).expect("the record");
            let now = SystemClock.now();
            store.set_meta("site", "Main pit", now).expect("written");
            store.set_meta(DEMO_MARK, "1", now).expect("written");
            store
                .add_user("setup", "ana", Role::Supervisor, "a long passphrase", now)
                .expect("a user");
        }
        // The audit row's text is changed without recomputing its hash: the quick start-up check
        // (which does not hash rows again) passes; the full one does not.
        let conn = rusqlite::Connection::open(&db).expect("the file");
        let trigger: String = conn
            .query_row(
                "SELECT sql FROM sqlite_master WHERE name = 'audit_log_append_only_u'",
                [],
                |r| r.get(0),
            )
            .expect("the trigger");
        conn.execute_batch(
            "DROP TRIGGER audit_log_append_only_u; \
             UPDATE audit_log SET detail = 'admin' WHERE action = 'user.add';",
        )
        .expect("altered");
        // Put back exactly as it was, so the schema shows nothing.
        conn.execute_batch(&trigger).expect("the trigger back");
        drop(conn);
        let (desk, updates) = Desk::start(options.clone()).expect("the desk starts");
        assert_eq!(desk.db(), db.as_path(), "the quick check passed");
        let deadline = Instant::now() + Duration::from_secs(30);
        let alert = loop {
            match updates.recv_timeout(Duration::from_millis(500)) {
                // Critical: not the host clock's alert, which may stand on this host.
                Ok(PitUpdate::Record { record })
                    if record
                        .alerts
                        .iter()
                        .any(|a| a.severity == Severity::Critical) =>
                {
                    break record
                }
                _ if Instant::now() > deadline => panic!("no record alert"),
                _ => {}
            }
        };
        assert_eq!(alert.alerts[0].severity, Severity::Critical);
        assert!(
            alert.alerts[0].message.contains("audit_log row"),
            "{:?}",
            alert.alerts
        );
        desk.stop();
        drop(desk);
        assert!(pitwatch_recording::record::failed_marker(&db).exists());
        // The next start records into a new segment, and still says why.
        let (desk, updates) = Desk::start(options).expect("the desk starts again");
        drop(updates);
        assert_eq!(
            desk.db(),
            pitwatch_recording::record::segment_path(&db, 2).as_path()
        );
        let alerts = desk.overview().record.alerts;
        assert!(alerts[0].message.contains("audit_log row"), "{alerts:?}");
        desk.stop();
    }
}
