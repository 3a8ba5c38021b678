//! The barcode decoder over a simulated serial link: a scanner sends codes at a dealer's pace (and
//! sometimes rescans), the bytes cross the wire a millisecond each, and the host reads them in
//! whatever chunks and at whatever times a real reader could, late connects and stalls included.
//! Whatever the chunking and the read times, a dealer's cards come out as dealt (a backlog never
//! merges two real cards), and a rescan read by a watching host is one card.
//!
//! The link model, which is the decoder's own (see its module doc): a read takes every byte that
//! has arrived; a watching host reads each byte within [`LATENCY_MS`] of its arrival; a host that
//! stalls reads everything that waited at once, within [`LATENCY_MS`] of the last line it held;
//! a reader that connects late reads everything sent before in its first chunk. What the model
//! leaves out, and the decoder cannot judge, is a stall during which exactly one code arrived and
//! which outlasted the time between two identical cards less the window (the unit test
//! `a_lone_code_read_late_by_a_stalled_host_is_still_taken_for_a_rescan`).

use pitwatch_barcode::{encode_code, BarcodeDecoder, SHUFFLE_CODE};
use pitwatch_codec::{DecodeOutput, Decoder, RejectKind};
use pitwatch_model::Timestamp;
use proptest::prelude::*;

/// The decoder's default repeat window.
const WINDOW_MS: u64 = 300;
/// The longest a watching host takes to read a byte after it arrived.
const LATENCY_MS: u64 = 100;
/// The least time between two codes a dealer draws: a second at a brisk dealer's pace is 2.5 times
/// this (the window, a host's latency and some margin).
const DEALER_GAP_MS: u64 = WINDOW_MS + LATENCY_MS + 50;
/// Time on the wire per byte (9,600 bits per second, 8N1).
const BYTE_MS: u64 = 1;

/// One code the scanner sends: what, how long after the previous one started, and whether it is
/// a rescan of the previous one (the scanner read the same card again).
#[derive(Debug, Clone)]
struct Sent {
    code: u16,
    after_ms: u64,
    rescan: bool,
}

/// How the host reads one line: promptly (each byte within a latency), or held by a stall that
/// also holds the lines after it.
#[derive(Debug, Clone)]
struct Reading {
    /// Per byte, how long after its arrival a watching host reads it.
    latency_ms: Vec<u64>,
    /// A stall begins at this line and holds this many lines (at least two) in all.
    stall: Option<usize>,
}

/// Bytes with their arrival times, and the line each belongs to.
fn on_the_wire(sent: &[Sent]) -> Vec<(u64, u8, usize)> {
    let mut bytes = Vec::new();
    let mut start = 0;
    for (line, s) in sent.iter().enumerate() {
        start += s.after_ms;
        for (i, byte) in encode_code(s.code).into_iter().enumerate() {
            bytes.push((start + i as u64 * BYTE_MS, byte, line));
        }
    }
    bytes
}

/// The chunks the host reads and when: `connect_ms` is when reading begins (a late reader's first
/// chunk holds everything before).
fn chunks(sent: &[Sent], reading: &[Reading], connect_ms: u64) -> Vec<(u64, Vec<u8>)> {
    let wire = on_the_wire(sent);
    let last_arrival = |line: usize| wire.iter().rev().find(|b| b.2 == line).map_or(0, |b| b.0);
    // A stall holds its lines until a latency after the last of them arrived.
    let mut release: Vec<Option<u64>> = vec![None; sent.len()];
    let mut line = 0;
    while line < sent.len() {
        match reading[line].stall {
            Some(count) => {
                let end = (line + count - 1).min(sent.len() - 1);
                let at = last_arrival(end) + reading[end].latency_ms[3];
                release[line..=end].fill(Some(at));
                line = end + 1;
            }
            None => line += 1,
        }
    }
    // When each byte is read at the latest, by the model.
    let mut read_by: Vec<u64> = Vec::with_capacity(wire.len());
    let mut index_in_line = 0;
    for (k, &(arrived, _, line)) in wire.iter().enumerate() {
        index_in_line = if k > 0 && wire[k - 1].2 == line {
            index_in_line + 1
        } else {
            0
        };
        let prompt = arrived + reading[line].latency_ms[index_in_line];
        let at = release[line].map_or(prompt, |held| held.max(prompt));
        read_by.push(at.max(connect_ms));
    }
    // Reads happen at those times, and each takes everything arrived since the one before.
    let mut reads: Vec<u64> = read_by.clone();
    reads.sort_unstable();
    reads.dedup();
    let mut out = Vec::new();
    let mut next = 0;
    for read in reads {
        let mut chunk = Vec::new();
        while next < wire.len() && wire[next].0 <= read {
            chunk.push(wire[next].1);
            next += 1;
        }
        if !chunk.is_empty() {
            out.push((read, chunk));
        }
    }
    assert_eq!(next, wire.len(), "every byte is read");
    out
}

/// Decodes `chunks` with a fresh decoder: the codes accepted, and the kinds of the rejections.
fn decode(chunks: &[(u64, Vec<u8>)]) -> (Vec<u16>, Vec<RejectKind>) {
    let mut decoder = BarcodeDecoder::default();
    let mut out = Vec::new();
    for (ms, bytes) in chunks {
        let at = Timestamp::from_unix_millis(1_796_000_000_000 + *ms as i64).expect("in range");
        decoder.push(bytes, at, &mut out);
    }
    let mut codes = Vec::new();
    let mut rejected = Vec::new();
    for o in out {
        match o {
            DecodeOutput::Accepted(a) => {
                let text = std::str::from_utf8(&a.frame[..3]).expect("digits");
                codes.push(text.parse().expect("a code"));
            }
            DecodeOutput::Rejected(r) => rejected.push(r.kind),
        }
    }
    (codes, rejected)
}

/// A code, often one of a few so that the same card twice in a row is common.
fn code() -> impl Strategy<Value = u16> {
    prop_oneof![3 => 7u16..=8, 2 => 1u16..=52, 1 => Just(SHUFFLE_CODE)]
}

/// How one line is read: each of its four bytes within the latency (so a line may come in one
/// chunk or be split anywhere), sometimes held by a stall of two to six lines.
fn reading() -> impl Strategy<Value = Reading> {
    (
        proptest::collection::vec(0..=LATENCY_MS, 4),
        prop_oneof![4 => Just(None), 1 => (2usize..=6).prop_map(Some)],
    )
        .prop_map(|(latency_ms, stall)| Reading { latency_ms, stall })
}

/// A dealer's codes, paced as a dealer draws, with how the host reads each and when it connects.
fn dealt() -> impl Strategy<Value = (Vec<Sent>, Vec<Reading>, u64)> {
    proptest::collection::vec((code(), DEALER_GAP_MS..4_000, reading()), 1..60).prop_flat_map(
        |lines| {
            let span: u64 = lines.iter().map(|l| l.1).sum();
            let (sent, reading): (Vec<Sent>, Vec<Reading>) = lines
                .into_iter()
                .map(|(code, after_ms, reading)| {
                    let sent = Sent {
                        code,
                        after_ms,
                        rescan: false,
                    };
                    (sent, reading)
                })
                .unzip();
            // Connect before the first code, or any time up to the last (a late reader).
            let connect = prop_oneof![Just(0u64), 0..=span + 10];
            (Just(sent), Just(reading), connect)
        },
    )
}

/// Codes at a dealer's pace, some rescanned by the scanner soon after, all read promptly by a host
/// that connected before the first.
fn rescanned() -> impl Strategy<Value = (Vec<Sent>, Vec<Reading>)> {
    // A rescan comes after the host has read the first sighting (more than a latency and a line
    // later) and within the window less a latency, so its read is within the window too.
    let rescan_after = LATENCY_MS + 5 * BYTE_MS..=WINDOW_MS - LATENCY_MS;
    proptest::collection::vec(
        (
            code(),
            DEALER_GAP_MS..4_000,
            proptest::option::weighted(0.4, rescan_after),
        ),
        1..40,
    )
    .prop_map(|lines| {
        // A different code first: the stream's first chunk may hold old codes, so its repeat is
        // never a rescan.
        let mut sent = vec![Sent {
            code: 52,
            after_ms: 0,
            rescan: false,
        }];
        for (code, after_ms, rescan) in lines {
            sent.push(Sent {
                code,
                after_ms,
                rescan: false,
            });
            if let Some(after_ms) = rescan {
                sent.push(Sent {
                    code,
                    after_ms,
                    rescan: true,
                });
            }
        }
        let reading = sent
            .iter()
            .map(|_| Reading {
                latency_ms: vec![0; 4],
                stall: None,
            })
            .collect();
        (sent, reading)
    })
    .prop_flat_map(|(sent, reading): (Vec<Sent>, Vec<Reading>)| {
        let n = sent.len();
        (
            Just(sent),
            Just(reading),
            proptest::collection::vec(proptest::collection::vec(0..=LATENCY_MS, 4), n),
        )
    })
    .prop_map(|(sent, mut reading, latencies)| {
        for (r, latency_ms) in reading.iter_mut().zip(latencies) {
            r.latency_ms = latency_ms;
        }
        (sent, reading)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn a_dealers_cards_come_out_as_dealt_whatever_the_chunks_and_read_times(
        (sent, reading, connect_ms) in dealt()
    ) {
        let chunks = chunks(&sent, &reading, connect_ms);
        let (codes, rejected) = decode(&chunks);
        let dealt: Vec<u16> = sent.iter().map(|s| s.code).collect();
        prop_assert!(rejected.is_empty(), "{rejected:?} in {chunks:?}");
        prop_assert_eq!(codes, dealt);
    }

    #[test]
    fn a_rescan_read_by_a_watching_host_is_one_card((sent, reading) in rescanned()) {
        let chunks = chunks(&sent, &reading, 0);
        let (codes, rejected) = decode(&chunks);
        let cards: Vec<u16> = sent.iter().filter(|s| !s.rescan).map(|s| s.code).collect();
        let rescans = sent.iter().filter(|s| s.rescan).count();
        prop_assert_eq!(codes, cards, "{:?}", chunks);
        prop_assert_eq!(rejected, vec![RejectKind::Duplicate; rescans]);
    }
}

#[test]
fn the_link_model_makes_backlogs_and_split_lines() {
    // The model itself, so the properties above test what they say: a late connect gives one
    // chunk of old codes, a stall one chunk of the lines it held, latencies split lines.
    let sent: Vec<Sent> = [(7, 0), (7, 1_000), (8, 1_000), (8, 1_000), (9, 1_000)]
        .into_iter()
        .map(|(code, after_ms)| Sent {
            code,
            after_ms,
            rescan: false,
        })
        .collect();
    let prompt = |latency_ms: Vec<u64>| Reading {
        latency_ms,
        stall: None,
    };
    let mut reading = vec![
        prompt(vec![0; 4]),
        prompt(vec![0; 4]),
        Reading {
            latency_ms: vec![0; 4],
            stall: Some(2),
        },
        prompt(vec![0; 4]),
        prompt(vec![0, 0, 50, 50]),
    ];
    let got = chunks(&sent, &reading, 1_500);
    let texts: Vec<(u64, &[u8])> = got.iter().map(|(ms, b)| (*ms, &b[..])).collect();
    assert_eq!(
        texts,
        [
            (1_500, &b"007\r007\r"[..]),
            (3_003, b"008\r008\r"),
            (4_000, b"0"),
            (4_001, b"0"),
            (4_052, b"9\r"),
        ]
    );
    assert!(decode(&got).1.is_empty());
    reading[2].stall = None;
    let (codes, rejected) = decode(&chunks(&sent, &reading, 0));
    assert_eq!((codes, rejected), (vec![7, 7, 8, 8, 9], vec![]));
}
