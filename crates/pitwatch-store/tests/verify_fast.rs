//! Verification made fast must find exactly what it found before: the rows hashed on several
//! threads give the report one thread gives, on the honest record and on records tampered at
//! random; a process's first write, which reads the journals only from the position a signed
//! marker vouches for, refuses what reading them in full refused; and a journal changed before
//! that position is still found by full verification.

mod common;

use common::*;

/// A small deterministic generator (xorshift), so that every run tries the same tamperings.
struct Dice(u64);

impl Dice {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// A copy of the pit's record (database, journal and key) in a folder of its own.
fn copy_of(pit: &Pit) -> Pit {
    let copy = Pit::new();
    pit.sql()
        .execute("VACUUM INTO ?1", [copy.db.to_str().unwrap()])
        .unwrap();
    std::fs::create_dir_all(copy.key.parent().unwrap()).unwrap();
    std::fs::copy(&pit.key, &copy.key).unwrap();
    let journal = pitwatch_store::witness::journal_beside(&pit.db);
    std::fs::copy(&journal, pitwatch_store::witness::journal_beside(&copy.db)).unwrap();
    copy
}

fn verify_on(pit: &Pit, threads: usize) -> VerifyReport {
    let store = Store::open_read_only(&pit.db).unwrap();
    let mut options = VerifyOptions::full(vec![pit.trusted().public()], store.journals());
    options.threads = threads;
    store.verify_with(&options).unwrap()
}

/// A shift, and then more frames in many small transactions, so that each chain is hashed in
/// many segments.
fn busy_pit() -> Pit {
    let pit = Pit::new();
    let table = pit.record_a_shift();
    let mut store = pit.open();
    let device = store
        .ensure_device(
            &DeviceIdentity {
                protocol: "angel-eye".into(),
                port: "/dev/ttyUSB1".into(),
                ..Default::default()
            },
            t(50),
        )
        .unwrap();
    let session = store.start_session(table, device, t(50)).unwrap();
    for round in 0..60u64 {
        let mut batch = store.batch(t(100 + round as i64)).unwrap();
        for i in 0..10u64 {
            let n = 100 + round * 10 + i;
            let bytes = format!("card {n}").into_bytes();
            let chunk = batch.append_chunk(session, t(n as i64), &bytes).unwrap();
            let frame = batch
                .append_frame(session, chunk, t(n as i64), &bytes, None)
                .unwrap();
            let event = TableEvent::new(n, EventKind::card("9H".parse().unwrap())).at(t(n as i64));
            batch
                .append_event(table, Some(session), Some(frame), &event)
                .unwrap();
        }
        batch
            .append_audit("ana", "bench", "record", &round.to_string(), t(100))
            .unwrap();
        batch.commit().unwrap();
    }
    pit
}

#[test]
fn an_honest_record_gives_the_same_report_on_any_number_of_threads() {
    let pit = busy_pit();
    let one = verify_on(&pit, 1);
    assert!(one.intact(), "{:#?}", one.problems);
    assert!(one.rows_checked() > 600, "{}", one.rows_checked());
    for threads in [2, 3, 7] {
        assert_eq!(verify_on(&pit, threads), one, "{threads} threads");
    }
}

#[test]
fn random_tampering_gives_the_same_report_on_any_number_of_threads() {
    let base = busy_pit();
    let mut dice = Dice(0x9e37_79b9_7f4a_7c15);
    let mut found = 0;
    let cases = 24;
    for case in 0..cases {
        let pit = copy_of(&base);
        let conn = pit.sql();
        drop_triggers(&conn);
        // One to three edits, each on a chain and row at random.
        for _ in 0..1 + dice.below(3) {
            let chain = chain::CHAINS[dice.below(chain::CHAINS.len() as u64) as usize];
            let length: i64 = conn
                .query_row(
                    &format!("SELECT COALESCE(MAX(id), 0) FROM {}", chain.table),
                    [],
                    |r| r.get(0),
                )
                .unwrap();
            if length == 0 {
                continue;
            }
            let id = 1 + dice.below(length as u64) as i64;
            let column = chain.columns[1 + dice.below(chain.columns.len() as u64 - 1) as usize];
            let sql = match dice.below(5) {
                0 => format!("UPDATE {} SET {column} = NULL WHERE id = {id}", chain.table),
                1 => format!("DELETE FROM {} WHERE id = {id}", chain.table),
                2 => format!(
                    "UPDATE {} SET hash = randomblob(32) WHERE id = {id}",
                    chain.table
                ),
                3 => format!(
                    "UPDATE {} SET prev_hash = zeroblob(32) WHERE id = {id}",
                    chain.table
                ),
                _ => format!(
                    "UPDATE {} SET {column} = {column} || 'x' WHERE id = {id}",
                    chain.table
                ),
            };
            // An edit a constraint refuses is simply not made.
            let _ = conn.execute_batch(&sql);
            if dice.below(3) == 0 {
                rechain(&conn, &chain);
            }
        }
        drop(conn);
        let one = verify_on(&pit, 1);
        if !one.intact() {
            found += 1;
        }
        for threads in [2, 3] {
            assert_eq!(
                verify_on(&pit, threads),
                one,
                "case {case}, {threads} threads: {:#?}",
                one.problems
            );
        }
    }
    assert!(
        found > cases / 2,
        "only {found} of {cases} tamperings found"
    );
}

fn journal(pit: &Pit) -> PathBuf {
    pitwatch_store::witness::journal_beside(&pit.db)
}

/// What a fresh process's first write says: `Ok` or why it was refused.
fn first_write(pit: &Pit) -> Result<(), String> {
    let mut store = pit.open();
    let answer = match store.batch(t(1_000_000)) {
        Ok(batch) => {
            drop(batch);
            Ok(())
        }
        Err(StoreError::Unverified(why)) => Err(why),
        Err(e) => panic!("{e}"),
    };
    answer
}

/// The first write's answer with the journal's marker in place, and with it removed (the check
/// reading the whole journal, as before markers).
fn first_write_both_ways(pit: &Pit) -> (Result<(), String>, Result<(), String>) {
    let marker = pitwatch_store::witness::marker_of(&journal(pit));
    let kept = std::fs::read(&marker).ok();
    let with = first_write(pit);
    match kept {
        Some(bytes) => std::fs::write(&marker, bytes).unwrap(),
        None => panic!("no marker beside the journal"),
    }
    std::fs::remove_file(&marker).unwrap();
    let without = first_write(pit);
    (with, without)
}

/// A record with a long journal and its marker at the journal's end.
fn vouched_pit() -> Pit {
    let pit = busy_pit();
    assert!(first_write(&pit).is_ok());
    let marker = pitwatch_store::witness::marker_of(&journal(&pit));
    assert!(marker.exists(), "the first write leaves a marker");
    pit
}

#[test]
fn a_first_write_with_the_marker_refuses_what_reading_the_whole_journal_refuses() {
    // An older copy put back: the journal names a checkpoint the copy lacks.
    let pit = vouched_pit();
    let copy = pit.db.with_file_name("copy.db");
    pit.sql()
        .execute("VACUUM INTO ?1", [copy.to_str().unwrap()])
        .unwrap();
    {
        let mut store = pit.open();
        store
            .add_note(pitwatch_store::IncidentId(2), "ana", "Late entry", t(2_000))
            .unwrap();
    }
    for suffix in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", pit.db.display()));
    }
    std::fs::copy(&copy, &pit.db).unwrap();
    let (with, without) = first_write_both_ways(&pit);
    assert!(
        with.as_ref().is_err_and(|w| w.contains("older copy")),
        "{with:?}"
    );
    assert_eq!(with, without);

    // Another record put in place of this one.
    let pit = vouched_pit();
    let other = pit.db.with_file_name("other.db");
    let mut store = Store::open(&other, &pit.sealing()).unwrap();
    store
        .ensure_table("BAC-1", "baccarat", "nz-baccarat", t(0))
        .unwrap();
    drop(store);
    for suffix in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", pit.db.display()));
    }
    std::fs::copy(&other, &pit.db).unwrap();
    let (with, without) = first_write_both_ways(&pit);
    assert!(
        with.as_ref()
            .is_err_and(|w| w.contains("replaced by another record")),
        "{with:?}"
    );
    assert_eq!(with, without);

    // The journal's last line (inside the window the marker hashes) changed: read in full.
    let pit = vouched_pit();
    let text = std::fs::read_to_string(journal(&pit)).unwrap();
    let last = text.lines().last().unwrap().to_owned();
    let mut forged: CheckpointText = last.parse().unwrap();
    forged.hash = [7; 32];
    std::fs::write(
        journal(&pit),
        text.replace(&last, &forged.to_string()).as_bytes(),
    )
    .unwrap();
    let (with, without) = first_write_both_ways(&pit);
    assert!(
        with.as_ref().is_err_and(|w| w.contains("differs from")),
        "{with:?}"
    );
    assert_eq!(with, without);
}

#[test]
fn a_journal_changed_before_the_vouched_position_is_found_by_full_verification() {
    let pit = vouched_pit();
    let text = std::fs::read_to_string(journal(&pit)).unwrap();
    assert!(
        text.len() > 8192,
        "the journal is longer than the window the marker hashes ({} bytes)",
        text.len()
    );
    // A line near the start claims a checkpoint the record never had: the same number of
    // digits, so no byte after it moves (the window the marker hashes stays as it was).
    let ids: Vec<i64> = text
        .lines()
        .map(|l| l.parse::<CheckpointText>().unwrap().id)
        .collect();
    let highest = *ids.iter().max().unwrap();
    let digits = highest.to_string().len() as u32;
    let claimed = 10i64.pow(digits) - 1;
    assert!(claimed > highest);
    let index = ids
        .iter()
        .position(|&id| id == 10i64.pow(digits - 1))
        .unwrap();
    let line = text.lines().nth(index).unwrap().to_owned();
    let offset = text.find(&line).unwrap();
    assert!(offset + line.len() + 4096 < text.len(), "before the window");
    let mut forged: CheckpointText = line.parse().unwrap();
    forged.id = claimed;
    assert_eq!(forged.to_string().len(), line.len());
    std::fs::write(
        journal(&pit),
        text.replacen(&line, &forged.to_string(), 1).as_bytes(),
    )
    .unwrap();
    let words = format!("checkpoint {claimed} ");
    assert_found(&pit.verify(Depth::Full), &[&words, "is not in the record"]);
    assert_found(&pit.verify(Depth::Quick), &[&words]);
    // The first write reads on from the marker, so it does not read that line (see
    // docs/integrity.md); with the marker edited (its signature no longer matches) or gone, it
    // reads the whole journal and refuses.
    let marker = pitwatch_store::witness::marker_of(&journal(&pit));
    let vouched = std::fs::read_to_string(&marker).unwrap();
    assert_eq!(first_write(&pit), Ok(()));
    std::fs::write(&marker, vouched.replace("unreadable\t0", "unreadable\t1")).unwrap();
    assert!(first_write(&pit).is_err_and(|w| w.contains(&words)));
    std::fs::remove_file(&marker).unwrap();
    assert!(first_write(&pit).is_err_and(|w| w.contains(&words)));
}
