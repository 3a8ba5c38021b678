//! What a host saw, compared with what the simulator injected: the check behind the simulator's
//! end-to-end tests, and a self-test a demo pit can run on its own simulated tables.
//!
//! [`HostView`] is a host in miniature (the protocol's decoder feeding the table's engine of the
//! book's game, the same code a monitor runs); [`compare`] lists every difference between its
//! findings and the injected-faults records and true rounds.

use pitwatch_codec::{DecodeOutput, Decoder, Notice};
use pitwatch_games::{GameBook, GameOutput, GameRound, TableEngine};
use pitwatch_model::{TableEvent, Timestamp};
use pitwatch_protocols::ProtocolConfig;
use pitwatch_rules::{Irregularity, TableOutput};

use crate::fault::{Expected, Injected};

/// Everything a host made of a device's bytes.
pub struct HostView {
    decoder: Box<dyn Decoder>,
    engine: TableEngine,
    scratch: Vec<DecodeOutput>,
    /// Irregularities the engine flagged, in order.
    pub irregularities: Vec<Irregularity>,
    /// Rejection kinds (`garbage`, `bad_checksum`, …), in stream order.
    pub rejections: Vec<String>,
    /// Notices that mark a device (re)starting (`communication_started`, `hello`).
    pub notices: Vec<String>,
    /// Rounds the engine followed.
    pub rounds: Vec<GameRound>,
    /// Every event decoded with what the engine output on it, in order (a table's steps, as
    /// replay gives them).
    pub steps: Vec<(TableEvent, Vec<GameOutput>)>,
}

impl HostView {
    /// A host for a device speaking `protocol`, judging by `book`.
    pub fn new(protocol: &ProtocolConfig, book: impl Into<GameBook>) -> HostView {
        HostView {
            decoder: protocol.decoder(1),
            engine: TableEngine::new(book.into()),
            scratch: Vec::new(),
            irregularities: Vec::new(),
            rejections: Vec::new(),
            notices: Vec::new(),
            rounds: Vec::new(),
            steps: Vec::new(),
        }
    }

    /// Bytes received at `now`.
    pub fn push(&mut self, bytes: &[u8], now: Timestamp) {
        let mut out = std::mem::take(&mut self.scratch);
        self.decoder.push(bytes, now, &mut out);
        self.absorb(&mut out);
        self.scratch = out;
    }

    /// The link broke (`end` false: framing restarts, the engine keeps following the shoe) or the
    /// stream ended (`end` true: the engine closes the shoe).
    pub fn finish(&mut self, now: Timestamp, end: bool) {
        let mut out = std::mem::take(&mut self.scratch);
        self.decoder.finish(now, &mut out);
        self.absorb(&mut out);
        self.scratch = out;
        if end {
            self.engine.finish();
            self.drain();
        }
    }

    fn absorb(&mut self, out: &mut Vec<DecodeOutput>) {
        for output in out.drain(..) {
            match output {
                DecodeOutput::Accepted(accepted) => {
                    for notice in &accepted.notices {
                        match notice {
                            Notice::CommunicationStarted => {
                                self.notices.push("communication_started".into())
                            }
                            Notice::Hello(_) => self.notices.push("hello".into()),
                            _ => {}
                        }
                    }
                    for event in &accepted.events {
                        self.engine.handle_event(event);
                        self.steps.push((event.clone(), Vec::new()));
                        self.drain();
                    }
                }
                DecodeOutput::Rejected(rejection) => {
                    self.rejections.push(rejection.kind.as_str().to_owned())
                }
            }
        }
    }

    fn drain(&mut self) {
        while let Some(output) = self.engine.poll_output() {
            if let Some((_, outputs)) = self.steps.last_mut() {
                outputs.push(output.clone());
            }
            match output {
                TableOutput::Irregularity(i) => self.irregularities.push(i),
                TableOutput::Round(r) => self.rounds.push(r),
                TableOutput::Shoe(_) | TableOutput::DeviceErrorCleared(_) => {}
            }
        }
    }
}

/// Every difference between what the host saw and what was injected: each rule-level fault must
/// appear as its irregularity code in its shoe (and round, when it has one, with the faulty
/// event as the finding's event or part of its evidence), each wire-level
/// fault as its rejection kind or notice, nothing else may be flagged or rejected, and every round
/// no rule-level fault touched must match the true round (`truth`) card for card
/// ([`GameRound::as_dealt`]).
pub fn compare(view: &HostView, injected: &[Injected], truth: &[GameRound]) -> Vec<String> {
    let mut problems = Vec::new();
    let mut unmatched: Vec<&Irregularity> = view.irregularities.iter().collect();
    let mut touched = Vec::new();
    for record in injected {
        if let Expected::Irregularity(code) = &record.expected {
            touched.push((record.shoe, record.round));
            let found = unmatched.iter().position(|i| {
                i.code.as_str() == code
                    && i.shoe == record.shoe
                    && (record.round.is_none() || i.round == record.round)
                    // In a round, the finding must point at the faulty event. Outside one (a
                    // burn, a cutting card) the engine may see it an event earlier: a burn card
                    // too many shows before the device reports its count.
                    && (record.round.is_none()
                        || record
                            .seq
                            .is_none_or(|seq| i.seq == seq || i.evidence.contains(&seq)))
            });
            match found {
                Some(k) => {
                    unmatched.remove(k);
                }
                None => problems.push(format!(
                    "{} at shoe {} round {:?} (seq {:?}): no {code} flagged",
                    record.kind, record.shoe, record.round, record.seq
                )),
            }
        }
    }
    for i in unmatched {
        problems.push(format!(
            "unexpected {} at shoe {} round {:?} seq {}: {}",
            i.code, i.shoe, i.round, i.seq, i.message
        ));
    }
    let expected_kinds = |want: &dyn Fn(&Expected) -> Option<String>| {
        let mut kinds: Vec<String> = injected.iter().filter_map(|r| want(&r.expected)).collect();
        kinds.sort();
        kinds
    };
    let want_rejections = expected_kinds(&|e| match e {
        Expected::Rejection(kind) => Some(kind.clone()),
        _ => None,
    });
    let mut got_rejections = view.rejections.clone();
    got_rejections.sort();
    if want_rejections != got_rejections {
        problems.push(format!(
            "rejections: expected {want_rejections:?}, saw {got_rejections:?}"
        ));
    }
    let want_notices = expected_kinds(&|e| match e {
        Expected::Notice(kind) => Some(kind.clone()),
        _ => None,
    });
    // The device announces itself once at the start as well.
    let mut got_notices = view.notices.clone();
    got_notices.sort();
    if !want_notices.is_empty() || !got_notices.is_empty() {
        let mut with_start = want_notices.clone();
        if let Some(first) = view.notices.first() {
            with_start.push(first.clone());
            with_start.sort();
        }
        if with_start != got_notices {
            problems.push(format!(
                "notices: expected {want_notices:?} after the first, saw {got_notices:?}"
            ));
        }
    }
    let honest = |r: &&GameRound| {
        !touched
            .iter()
            .any(|(shoe, round)| *shoe == r.shoe() && round.is_some_and(|n| n == r.round()))
    };
    let seen: Vec<&GameRound> = view.rounds.iter().filter(honest).collect();
    let want: Vec<&GameRound> = truth.iter().filter(honest).collect();
    let key = |r: &GameRound| (r.shoe(), r.round(), r.as_dealt());
    let seen_keys: Vec<_> = seen.iter().map(|r| key(r)).collect();
    let want_keys: Vec<_> = want.iter().map(|r| key(r)).collect();
    if seen_keys != want_keys {
        let first = seen_keys
            .iter()
            .zip(&want_keys)
            .position(|(a, b)| a != b)
            .unwrap_or(seen_keys.len().min(want_keys.len()));
        problems.push(format!(
            "honest rounds differ ({} seen, {} dealt); first difference: saw {:?}, dealt {:?}",
            seen_keys.len(),
            want_keys.len(),
            seen_keys.get(first),
            want_keys.get(first)
        ));
    }
    problems
}
