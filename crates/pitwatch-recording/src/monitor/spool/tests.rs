//! The spool's tests: order kept through memory and the file, an exact count of what a full spool
//! drops, a file left behind read back after its mark (a torn tail found), the CRC and file
//! permissions.

use super::*;

fn t(ms: i64) -> Timestamp {
    Timestamp::from_unix_millis(ms).unwrap()
}

fn chunk(device: usize, ms: i64, bytes: &[u8]) -> Input {
    Input::Transport(
        device,
        TransportEvent::Chunk {
            received_at: t(ms),
            bytes: bytes.to_vec(),
        },
    )
}

fn bytes_of(inputs: &[Input]) -> Vec<(usize, Vec<u8>)> {
    inputs
        .iter()
        .filter_map(|i| match i {
            Input::Transport(d, TransportEvent::Chunk { bytes, .. }) => Some((*d, bytes.clone())),
            _ => None,
        })
        .collect()
}

fn names() -> Vec<String> {
    vec!["T1".into(), "T2".into()]
}

#[test]
fn the_crc_is_the_zlib_one() {
    assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
    assert_eq!(crc32(b""), 0);
}

#[cfg(unix)]
#[test]
fn a_spool_file_is_owner_only_whatever_the_umask() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    // A file made by this process with the most permissive mode the umask lets through is
    // what any other creation would get; the spool's must be 0600 regardless.
    let path = dir.path().join("s");
    let mut spool = Spool::new(
        SpoolLimits {
            memory: 0,
            file: 1 << 20,
        },
        names(),
    );
    spool
        .attach_file(&path, 0, &|t| names().iter().position(|n| n == t))
        .unwrap();
    spool.push(chunk(0, 1, &[1; 10]));
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "the spool is {mode:o}");
}

#[test]
fn inputs_come_back_in_order_through_memory_and_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let limits = SpoolLimits {
        memory: 64 * 3 + 30,
        file: 1 << 20,
    };
    let mut spool = Spool::new(limits, names());
    spool
        .attach_file(&dir.path().join("s"), 0, &|t| {
            names().iter().position(|n| n == t)
        })
        .unwrap();
    let mut sent = Vec::new();
    for i in 0..20u8 {
        let input = chunk(usize::from(i % 2), i64::from(i), &[i; 10]);
        sent.push(input.clone());
        spool.push(input);
    }
    assert!(spool.memory_bytes() <= limits.memory);
    assert!(spool.file_bytes() > 0, "the rest went to the file");
    assert_eq!(spool.len(), 20);
    // Taken in small groups, with more arriving meanwhile.
    let mut got = Vec::new();
    let (first, mark) = spool.take(5);
    assert!(mark.is_some(), "the group reached into the file");
    got.extend(first);
    for i in 20..25u8 {
        let input = chunk(0, i64::from(i), &[i; 10]);
        sent.push(input.clone());
        spool.push(input);
    }
    while !spool.is_empty() {
        got.extend(spool.take(4).0);
    }
    assert_eq!(bytes_of(&got), bytes_of(&sent));
    // Read, not yet on record: still in the file for a crash to find.
    assert!(spool.file_bytes() == 0 && spool.file_len() > 0);
    spool.written();
    assert_eq!(spool.file_len(), 0);
    // Empty again: memory is used first again.
    spool.push(chunk(0, 99, b"x"));
    assert_eq!(spool.file_bytes(), 0);
    assert_eq!(spool.dropped(), 0);
}

#[test]
fn a_full_spool_counts_exactly_what_it_drops_and_where_the_stream_resumes() {
    let limits = SpoolLimits {
        memory: 3 * (64 + 100),
        file: 0,
    };
    let mut spool = Spool::new(limits, names());
    for i in 0..3 {
        spool.push(chunk(0, i, &[1; 100]));
    }
    // Full: these are dropped, counted per device.
    for i in 3..10 {
        spool.push(chunk(0, i, &[2; 100]));
    }
    spool.push(chunk(1, 20, &[3; 7]));
    // A connection change is never dropped.
    spool.push(Input::Transport(
        1,
        TransportEvent::Disconnected {
            at: t(21),
            reason: "unplugged".into(),
        },
    ));
    assert_eq!(spool.dropped(), 707);
    let (taken, _) = spool.take(100);
    // Device 1's stream resumed with its disconnection: what it lost comes right before.
    assert_eq!(taken.len(), 5);
    assert!(matches!(&taken[3], Input::Gap(1, gap) if gap.bytes == 7 && gap.chunks == 1));
    assert!(matches!(
        &taken[4],
        Input::Transport(1, TransportEvent::Disconnected { .. })
    ));
    // Room again: device 0's next bytes come after the account of what it lost.
    spool.push(chunk(0, 30, &[4; 10]));
    let (taken, _) = spool.take(100);
    match &taken[0] {
        Input::Gap(0, gap) => {
            assert_eq!((gap.bytes, gap.chunks), (700, 7));
            assert_eq!((gap.first, gap.last), (t(3), t(9)));
        }
        other => panic!("expected the gap first, got {other:?}"),
    }
    assert_eq!(bytes_of(&taken[1..]), vec![(0, vec![4; 10])]);
    assert!(!spool.gaps_closable());
    // A device that loses bytes and then sends nothing more: its gap is closed explicitly.
    for i in 0..4 {
        spool.push(chunk(1, 40 + i, &[5; 100]));
    }
    assert!(spool.has_open_gaps());
    spool.take(100);
    assert!(spool.gaps_closable());
    spool.close_gaps();
    let (taken, _) = spool.take(100);
    assert!(matches!(&taken[..], [Input::Gap(1, gap)] if gap.bytes == 100));
    assert!(spool.is_empty());
    assert_eq!(spool.take_dropped(), 807);
}

#[test]
fn a_spool_file_left_behind_is_read_back_after_its_mark_and_a_torn_tail_is_found() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pit.db.spool-1");
    let known = |t: &str| names().iter().position(|n| n == t);
    {
        let mut spool = Spool::new(
            SpoolLimits {
                memory: 0,
                file: 1 << 20,
            },
            names(),
        );
        spool.attach_file(&path, 0, &known).unwrap();
        for i in 0..10u8 {
            spool.push(chunk(usize::from(i % 2), i64::from(i), &[i; 5]));
        }
        spool.push(Input::Gap(
            1,
            Gap {
                bytes: 9,
                chunks: 2,
                first: t(1),
                last: t(2),
            },
        ));
        spool.flush();
        // The monitor dies here; entries 1 to 4 were on record (the mark says so).
    }
    // A torn last write.
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    file.write_all(&[200, 0, 0, 0, 1, 2]).unwrap();
    drop(file);
    let mut spool = Spool::new(SpoolLimits::default(), names());
    let (recovered, torn) = spool.attach_file(&path, 4, &known).unwrap();
    assert_eq!((recovered, torn), (7, 6));
    let (taken, _) = spool.take(100);
    let want: Vec<(usize, Vec<u8>)> = (4..10u8)
        .map(|i| (usize::from(i % 2), vec![i; 5]))
        .collect();
    assert_eq!(bytes_of(&taken), want);
    assert!(matches!(taken.last(), Some(Input::Gap(1, g)) if g.bytes == 9 && g.last == t(2)));
    // A file holding another monitor's tables is left alone.
    let mut other = Spool::new(SpoolLimits::default(), vec!["X".into()]);
    drop(spool);
    let path2 = dir.path().join("pit.db.spool-2");
    {
        let mut spool = Spool::new(
            SpoolLimits {
                memory: 0,
                file: 1 << 20,
            },
            names(),
        );
        spool.attach_file(&path2, 0, &known).unwrap();
        spool.push(chunk(0, 1, b"abc"));
        spool.flush();
    }
    let error = other
        .attach_file(&path2, 0, &|t| (t == "X").then_some(0))
        .unwrap_err();
    assert!(error.to_string().contains("does not record"), "{error}");
}

#[test]
fn stopping_while_degraded_keeps_everything_for_the_next_start() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s");
    let known = |t: &str| names().iter().position(|n| n == t);
    let mut spool = Spool::new(
        SpoolLimits {
            memory: 200,
            file: 1 << 20,
        },
        names(),
    );
    spool.attach_file(&path, 0, &known).unwrap();
    for i in 0..6u8 {
        spool.push(chunk(0, i64::from(i), &[i; 50]));
    }
    let (in_flight, _) = spool.take(2);
    assert_eq!(spool.persist(in_flight, 0), 0);
    drop(spool);
    let mut again = Spool::new(SpoolLimits::default(), names());
    assert_eq!(again.attach_file(&path, 0, &known).unwrap(), (6, 0));
    let (taken, _) = again.take(100);
    let want: Vec<(usize, Vec<u8>)> = (0..6u8).map(|i| (0, vec![i; 50])).collect();
    assert_eq!(bytes_of(&taken), want);
}
