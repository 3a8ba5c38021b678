//! Replay from the record: any table's shoes rebuilt from the raw bytes on record, re-decoded
//! and re-run through the engine, step by step.
//!
//! The raw chunks are the ground truth. Each device session is decoded again with a fresh codec
//! configured as it was live (the settings are on record with the device), exactly as the live
//! recorder did. The re-decoded events take the places the record gives device events in the
//! table's stream, interleaved with the events entered at the console; a re-decoded event that
//! differs from the one recorded is reported as a divergence (it would mean the record and its
//! bytes disagree). The engine then runs over the stream, and every step keeps what it output.

mod books;
pub mod liveness;

pub use books::Books;

use std::collections::{HashMap, VecDeque};

use pitwatch_model::{TableEvent, Timestamp};
use pitwatch_protocols::{DecodeOutput, ProtocolConfig};
use pitwatch_rules::{Irregularity, ShoeSummary, TableOutput as Output};

use pitwatch_games::{GameOutput, GameRound, GameView, TableEngine};
use pitwatch_shuffle::{ShoeShuffle, ShuffleWatch};
use pitwatch_store::{FrameId, SessionId, Store, StoreError};

/// One event of the stream and what the engine made of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// The event.
    pub event: TableEvent,
    /// What the engine output on it: rounds completed, irregularities raised, shoes ended.
    pub outputs: Vec<GameOutput>,
    /// The table as it was right after this event.
    pub view: GameView,
}

/// A frame the codec rejected on replay.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RejectedFrame {
    /// Host receive time.
    pub at: Timestamp,
    /// The kind and reason.
    pub reason: String,
    /// The bytes.
    pub bytes: Vec<u8>,
}

/// A table's whole record, replayed.
#[derive(Debug, Clone, PartialEq)]
pub struct Replay {
    /// The table.
    pub table: String,
    /// The rule book it is checked against.
    pub rule_book: String,
    /// Every event, in order, with the engine's outputs.
    pub steps: Vec<Step>,
    /// What the engine output when the stream ended (the last shoe's summary).
    pub closing: Vec<GameOutput>,
    /// Frames the codecs rejected.
    pub rejected: Vec<RejectedFrame>,
    /// Where re-decoding the bytes did not give the events on record.
    pub divergences: Vec<String>,
    /// The table as the record leaves it: the engine's view after the last event (and after an
    /// interruption recorded after it), which is what a recorder resumed on this record sees.
    pub end_view: GameView,
    /// Each shoe's shuffle analysis: judged when the next shoe started (a suspect one's
    /// `SHUFFLE_SUSPECT` is among the outputs of the step that started the next shoe, as live),
    /// then the last shoe's, provisional.
    pub shuffles: Vec<ShoeShuffle>,
}

impl Replay {
    /// Every output, in order.
    pub fn outputs(&self) -> impl Iterator<Item = &GameOutput> {
        self.steps
            .iter()
            .flat_map(|s| s.outputs.iter())
            .chain(self.closing.iter())
    }

    /// Every round.
    pub fn rounds(&self) -> impl Iterator<Item = &GameRound> {
        self.outputs().filter_map(|o| match o {
            Output::Round(r) => Some(r),
            _ => None,
        })
    }

    /// Every irregularity.
    pub fn irregularities(&self) -> impl Iterator<Item = &Irregularity> {
        self.outputs().filter_map(|o| match o {
            Output::Irregularity(i) => Some(i),
            _ => None,
        })
    }

    /// Every shoe's summary.
    pub fn shoes(&self) -> Vec<ShoeSummary> {
        self.outputs()
            .filter_map(|o| match o {
                Output::Shoe(s) => Some(*s),
                _ => None,
            })
            .collect()
    }

    /// The steps of shoe `shoe` (1-based), from its first event to its last.
    pub fn shoe_steps(&self, shoe: u32) -> Option<&[Step]> {
        let summary = self.shoes().into_iter().find(|s| s.shoe == shoe)?;
        let start = self
            .steps
            .iter()
            .position(|s| s.event.seq >= summary.first_seq)?;
        let end = self
            .steps
            .iter()
            .rposition(|s| s.event.seq <= summary.last_seq)
            .map_or(start, |e| e + 1);
        self.steps.get(start..end.max(start))
    }

    /// What the engine said of shoe `shoe` only when the next shoe began: the event that starts a
    /// shoe (its shuffle) closes the one before, so the last round of a shoe, its irregularities
    /// and the shoe's summary are outputs of the next shoe's first step. A shoe's replay shows
    /// them as its own ([`about_shoe`]); the next shoe's leaves them out.
    pub fn closed_by_next(&self, shoe: u32) -> Vec<&GameOutput> {
        let Some(next) = self.shoe_steps(shoe + 1) else {
            return Vec::new();
        };
        next.iter()
            .take(1)
            .flat_map(|step| &step.outputs)
            .filter(|o| about_shoe(o) == Some(shoe))
            .collect()
    }

    /// The shoe that was in play at time `at` (the last shoe whose first event is not later).
    pub fn shoe_at(&self, at: Timestamp) -> Option<u32> {
        let shoes = self.shoes();
        let mut found = None;
        for summary in shoes {
            let first = self
                .steps
                .iter()
                .find(|s| s.event.seq == summary.first_seq)?;
            if first.event.at.is_some_and(|t| t <= at) {
                found = Some(summary.shoe);
            }
        }
        found
    }
}

/// How many of a session's first recorded `frames` and of the first `outputs` its bytes decode
/// to (from the first chunk the record keeps) to pass over so that the two line up: none when
/// they line up from the start, as they do whenever the session's bytes are all in the record.
/// Where the session's first chunks are archived (`pitwatch_store::archive`), a frame begun in
/// them is cut short here (decoded as garbage, or recorded but not decoded again): the first
/// pair of equal bytes among the first few of each is where they line up.
fn line_up(
    store: &Store,
    frames: &[FrameId],
    outputs: &[DecodeOutput],
) -> Result<(usize, usize), StoreError> {
    const WINDOW: usize = 8;
    let bytes_of = |output: &DecodeOutput| -> Vec<u8> {
        match output {
            DecodeOutput::Accepted(accepted) => accepted.frame.to_vec(),
            DecodeOutput::Rejected(rejection) => rejection.bytes.clone(),
        }
    };
    let (Some(first_frame), Some(first_output)) = (frames.first(), outputs.first()) else {
        return Ok((0, 0));
    };
    if store.frame(*first_frame)?.bytes == bytes_of(first_output) {
        return Ok((0, 0));
    }
    let recorded: Vec<Vec<u8>> = frames
        .iter()
        .take(WINDOW)
        .map(|f| store.frame(*f).map(|row| row.bytes))
        .collect::<Result<_, _>>()?;
    let decoded: Vec<Vec<u8>> = outputs.iter().take(WINDOW).map(bytes_of).collect();
    for total in 1..2 * WINDOW {
        for (i, bytes) in recorded.iter().enumerate().take(total + 1) {
            let k = total - i;
            if decoded.get(k) == Some(bytes) {
                return Ok((i, k));
            }
        }
    }
    Ok((0, 0))
}

/// The event to replay where the record has `recorded` from `session`: the one its bytes decode
/// to again (`again`, given the recorded `seq`), with a divergence noted when the two differ or
/// the bytes hold none (then the recorded event stands).
fn placed(
    recorded: TableEvent,
    again: Option<TableEvent>,
    session: SessionId,
    divergences: &mut Vec<String>,
) -> TableEvent {
    match again {
        Some(mut event) => {
            event.seq = recorded.seq;
            if event != recorded {
                divergences.push(format!(
                    "seq {}: the bytes decode to {} but the record has {}",
                    recorded.seq,
                    event.to_json_line(),
                    recorded.to_json_line()
                ));
            }
            event
        }
        None => {
            divergences.push(format!(
                "seq {}: recorded from session {} but its bytes hold no such event",
                recorded.seq, session.0
            ));
            recorded
        }
    }
}

/// Rebuilds table `name` from its record.
pub fn rebuild(store: &Store, name: &str) -> Result<Replay, StoreError> {
    let table = store
        .table_id(name)?
        .ok_or_else(|| StoreError::NotFound(format!("no table named {name:?} in the record")))?;
    let row = store
        .tables()?
        .into_iter()
        .find(|t| t.id == table)
        .ok_or_else(|| StoreError::NotFound(format!("no table named {name:?} in the record")))?;
    // The rules the table was judged by, as kept in the record: each part of the stream by the
    // book in force when it was dealt.
    let books = Books::read(store, table, &row.rule_book)
        .map_err(|e| StoreError::Invalid(format!("table {name}: {e}")))?;
    let book = books.at(0).0.clone();

    // Re-decode every session's bytes.
    let archived = !store.archives()?.is_empty();
    let mut not_decoded: std::collections::HashSet<FrameId> = Default::default();
    let mut decoded: HashMap<SessionId, VecDeque<TableEvent>> = HashMap::new();
    let mut rejected = Vec::new();
    let mut divergences = Vec::new();
    for session in store.sessions(table)? {
        if session.device.protocol == "events" {
            continue;
        }
        let config: ProtocolConfig = match serde_json::from_str(&session.device.settings) {
            Ok(config) => config,
            Err(_) => match ProtocolConfig::by_name(&session.device.protocol) {
                Some(config) => config,
                None => {
                    divergences.push(format!(
                        "session {}: unknown protocol {:?}; its bytes cannot be decoded",
                        session.id.0, session.device.protocol
                    ));
                    continue;
                }
            },
        };
        let mut decoder = config.decoder(1);
        let mut outputs = Vec::new();
        for (at_ms, bytes) in store.chunks(session.id)? {
            let Some(at) = Timestamp::from_unix_millis(at_ms) else {
                continue;
            };
            decoder.push(&bytes, at, &mut outputs);
        }
        if let Some(ended) = session
            .ended_at
            .as_deref()
            .and_then(|t| t.parse::<Timestamp>().ok())
        {
            decoder.finish(ended, &mut outputs);
        }
        if archived {
            // Its first chunks may be archived: decoded from the first kept, lined up with the
            // frames kept; the events of frames not decoded again stand as recorded.
            let frames = match store.last_frame(session.id)? {
                Some(last) => store.frame_ids_until(session.id, last)?,
                None => Vec::new(),
            };
            let (skip_frames, skip_outputs) = line_up(store, &frames, &outputs)?;
            not_decoded.extend(frames.into_iter().take(skip_frames));
            outputs.drain(..skip_outputs);
        }
        let queue = decoded.entry(session.id).or_default();
        for output in outputs {
            match output {
                DecodeOutput::Accepted(accepted) => queue.extend(accepted.events),
                DecodeOutput::Rejected(r) => rejected.push(RejectedFrame {
                    at: r.at,
                    reason: format!("{}: {}", r.kind.as_str(), r.reason),
                    bytes: r.bytes,
                }),
            }
        }
    }

    // The stream: re-decoded device events in the places the record gives them.
    let mut stream = Vec::new();
    let mut undecoded = Vec::new();
    for row in store.event_rows(table)? {
        match (row.session, row.frame) {
            (Some(_), Some(frame)) if not_decoded.contains(&frame) => {
                undecoded.push(row.event.seq);
                stream.push(row.event)
            }
            (Some(session), Some(_)) => {
                let again = decoded.get_mut(&session).and_then(VecDeque::pop_front);
                stream.push(placed(row.event, again, session, &mut divergences));
            }
            _ => stream.push(row.event),
        }
    }
    for (session, left) in &decoded {
        if !left.is_empty() {
            divergences.push(format!(
                "session {}: {} decoded event(s) are not in the record",
                session.0,
                left.len()
            ));
        }
    }

    // Where the recorder resumed after Pitwatch was down, the live engine was interrupted.
    let resumes = crate::recorder::resume_points(store, name)?;
    // The book's `[shuffle]` thresholds judge every game's shoes, as the recorder does live.
    let mut watch = crate::shuffle::shuffle_book(&book).map(ShuffleWatch::new);
    let mut shuffles = Vec::new();
    let mut engine = TableEngine::new(book);
    // A record whose first events are archived (`pitwatch_store::archive`) begins inside a
    // shoe: the table is replayed from its first shoe whole here, resumed with what the recorder
    // carried into it (the shoes before replay from their archive).
    let mut from_seq = 0;
    if stream.first().is_some_and(|e| e.seq > 1) && !store.archives()?.is_empty() {
        let first = stream.first().map_or(0, |e| e.seq);
        let whole = store
            .shoe_starts(table, 1, u32::MAX)?
            .into_iter()
            .find(|(_, seq)| *seq >= first);
        if let Some((shoe, seq)) = whole {
            let start = store.shoe_start(table, shoe)?.ok_or_else(|| {
                StoreError::NotFound(format!("no shoe {shoe} of {name} on record"))
            })?;
            let book = books.at(seq).0;
            engine = TableEngine::resume(book, &start.carry).ok_or_else(|| {
                StoreError::Invalid(format!(
                    "table {name}: the start of shoe {shoe} is stored unreadably"
                ))
            })?;
            watch = match crate::shuffle::shuffle_book(book) {
                Some(judged_by) => Some(crate::shuffle::resumed_watch(
                    store, table, judged_by, shoe,
                )?),
                None => None,
            };
            from_seq = seq;
        }
    }
    for seq in undecoded.into_iter().filter(|seq| *seq >= from_seq) {
        divergences.push(format!(
            "seq {seq}: its frame began in the archived part of the record, so its bytes are \
             not all here to decode again; the recorded event stands"
        ));
    }
    let mut steps = Vec::with_capacity(stream.len());
    let mut interrupted = Vec::new();
    for event in stream.into_iter().filter(|e| e.seq >= from_seq) {
        if let Some(book) = books.changed_at(event.seq) {
            // Resumed here under another book: the engine as the recorder rebuilt it then.
            let rebuilt = crate::recorder::rebuild::rebuild(store, table, name, book, event.seq)?;
            engine = rebuilt.engine;
            watch = rebuilt.shuffle;
        }
        if resumes.contains(&event.seq) {
            engine.interrupt();
            while let Some(output) = engine.poll_output() {
                interrupted.push(output);
            }
        }
        let shoe = engine.shoe();
        engine.handle_event(&event);
        if let Some(watch) = watch.as_mut() {
            watch.observe(&event);
        }
        let mut outputs = std::mem::take(&mut interrupted);
        while let Some(output) = engine.poll_output() {
            outputs.push(output);
        }
        if engine.shoe() != shoe {
            let judged = watch
                .as_mut()
                .and_then(|watch| watch.shoe_started(engine.shoe(), event.seq));
            if let Some(mut judged) = judged {
                outputs.extend(judged.irregularity.take().map(Output::Irregularity));
                shuffles.push(judged);
            }
        }
        let view = engine.view();
        steps.push(Step {
            event,
            outputs,
            view,
        });
    }
    if let Some(last) = steps.last() {
        // A resumption after the last recorded event: the live engine was interrupted there.
        if resumes.contains(&(last.event.seq + 1)) {
            engine.interrupt();
            while let Some(output) = engine.poll_output() {
                interrupted.push(output);
            }
        }
    }
    let end_view = engine.view();
    shuffles.extend(watch.as_ref().and_then(ShuffleWatch::provisional));
    engine.finish();
    let mut closing = std::mem::take(&mut interrupted);
    while let Some(output) = engine.poll_output() {
        closing.push(output);
    }
    Ok(Replay {
        table: name.to_owned(),
        rule_book: row.rule_book,
        steps,
        closing,
        rejected,
        divergences,
        end_view,
        shuffles,
    })
}

/// One shoe replayed from the record, without the table's whole history.
#[derive(Debug, Clone, PartialEq)]
pub struct ShoeRun {
    /// The table.
    pub table: String,
    /// The rule book it is checked against.
    pub rule_book: String,
    /// The shoe.
    pub shoe: u32,
    /// Every event of the shoe, in order, with the engine's outputs and view: the same as
    /// [`Replay::shoe_steps`] of the whole table's replay.
    pub steps: Vec<Step>,
    /// Where re-decoding the bytes of the events run did not give the events on record.
    pub divergences: Vec<String>,
    /// The `seq` the engine started at: the first event of the shoe before (1 for shoe 1).
    pub from_seq: u64,
    /// Events run through the engine (the shoe's and the shoe's before it).
    pub events_run: usize,
    /// Raw chunks re-decoded.
    pub chunks_decoded: usize,
    /// The shoe's shuffle analysis against the shoes before it (provisional while it is the
    /// table's last shoe), as the live recorder judged it.
    pub shuffle: Option<ShoeShuffle>,
}

/// Replays shoe `shoe` of table `name` from the record, reading only what that shoe needs.
///
/// The engine starts at the first event of the shoe before, resumed with what the live engine
/// carried into that shoe ([`pitwatch_baccarat::Carry`], stored by the recorder with each shoe's
/// start): a resumed engine reaches the whole stream's state after that first event, and running
/// the shoe before whole gives the shoe's own first event exactly what it closes (a round cut
/// off by the shuffle, the shoe's summary). Shoe 1 runs from the table's first event.
///
/// The bytes are re-decoded as in [`rebuild`], but only up to the chunk of the shoe's last
/// frame: a codec keeps state across frames (duplicates, positions, partial lines), so each
/// session is decoded from its first chunk (sessions decode independently), and events are
/// matched to their re-decoded counterparts by frame.
///
/// `NotFound` when the record holds no start for the shoe (or for the shoe before it).
pub fn replay_shoe(store: &Store, name: &str, shoe: u32) -> Result<ShoeRun, StoreError> {
    let table = store
        .table_id(name)?
        .ok_or_else(|| StoreError::NotFound(format!("no table named {name:?} in the record")))?;
    let row = store
        .tables()?
        .into_iter()
        .find(|t| t.id == table)
        .ok_or_else(|| StoreError::NotFound(format!("no table named {name:?} in the record")))?;
    // The rules the table was judged by, as kept in the record: the shoe by the book in force
    // when it was dealt.
    let books = Books::read(store, table, &row.rule_book)
        .map_err(|e| StoreError::Invalid(format!("table {name}: {e}")))?;
    let missing = || StoreError::NotFound(format!("no shoe {shoe} of {name} on record"));
    let start = store.shoe_start(table, shoe)?.ok_or_else(missing)?;
    let (book, rule_book) = books.at(start.first_seq);
    let rule_book = rule_book.to_owned();
    let mut watch = match crate::shuffle::shuffle_book(book) {
        Some(judged_by) => Some(crate::shuffle::resumed_watch(
            store, table, judged_by, shoe,
        )?),
        None => None,
    };
    let (mut engine, from_seq) = if shoe <= 1 {
        (TableEngine::new(books.at(0).0.clone()), 0)
    } else {
        let before = store.shoe_start(table, shoe - 1)?.ok_or_else(missing)?;
        // The engine carried into the shoe before, under the book it was dealt by.
        let book = books.at(before.first_seq).0;
        match TableEngine::resume(book, &before.carry) {
            Some(engine) => (engine, before.first_seq),
            // A Blackjack, Pontoon or poker shoe recorded before their tables kept a carry
            // (`null`) runs from the table's first event.
            None if book.baccarat().is_none() && before.carry == "null" => {
                (TableEngine::new(books.at(0).0.clone()), 0)
            }
            None => {
                return Err(StoreError::Invalid(format!(
                    "table {name}: the start of shoe {} is stored unreadably",
                    before.shoe
                )))
            }
        }
    };
    let end = match store.shoe_start(table, shoe.saturating_add(1))? {
        Some(next) => next.first_seq.saturating_sub(1),
        None => store.last_seq(table)?.unwrap_or(start.first_seq),
    };
    let rows = store.event_rows_between(table, from_seq, end)?;

    // Re-decode, per session, the bytes up to the last frame these events came from.
    let mut needed: HashMap<SessionId, (FrameId, FrameId)> = HashMap::new();
    for row in &rows {
        if let (Some(session), Some(frame)) = (row.session, row.frame) {
            let span = needed.entry(session).or_insert((frame, frame));
            span.0 = span.0.min(frame);
            span.1 = span.1.max(frame);
        }
    }
    let mut divergences = Vec::new();
    let mut by_frame: HashMap<FrameId, VecDeque<TableEvent>> = HashMap::new();
    let mut chunks_decoded = 0;
    let mut sessions: Vec<_> = needed.into_iter().collect();
    sessions.sort_by_key(|(session, _)| *session);
    for (session_id, (first_frame, last_frame)) in sessions {
        let session = store.session(session_id)?;
        if session.device.protocol == "events" {
            continue;
        }
        let config: ProtocolConfig = match serde_json::from_str(&session.device.settings) {
            Ok(config) => config,
            Err(_) => match ProtocolConfig::by_name(&session.device.protocol) {
                Some(config) => config,
                None => {
                    divergences.push(format!(
                        "session {}: unknown protocol {:?}; its bytes cannot be decoded",
                        session_id.0, session.device.protocol
                    ));
                    continue;
                }
            },
        };
        let last_chunk = store.frame_chunk(last_frame)?;
        let chunks = store.chunks_until(session_id, last_chunk)?;
        chunks_decoded += chunks.len();
        let mut decoder = config.decoder(1);
        let mut outputs = Vec::new();
        for (at_ms, bytes) in chunks {
            let Some(at) = Timestamp::from_unix_millis(at_ms) else {
                continue;
            };
            decoder.push(&bytes, at, &mut outputs);
        }
        // What the codec still held at the session's end was recorded against its last chunk.
        if store.last_chunk(session_id)? == Some(last_chunk) {
            if let Some(ended) = session
                .ended_at
                .as_deref()
                .and_then(|t| t.parse::<Timestamp>().ok())
            {
                decoder.finish(ended, &mut outputs);
            }
        }
        let mut frames = store.frame_ids_until(session_id, last_frame)?;
        // A session whose first bytes are archived decodes from the first chunk kept.
        let (skip_frames, skip_outputs) = line_up(store, &frames, &outputs)?;
        frames.drain(..skip_frames);
        outputs.drain(..skip_outputs);
        if outputs.len() < frames.len() {
            divergences.push(format!(
                "session {}: its bytes decode to {} frame(s) where the record has {}",
                session_id.0,
                outputs.len(),
                frames.len()
            ));
        }
        for (frame, output) in frames.into_iter().zip(outputs) {
            if frame < first_frame {
                continue;
            }
            if let DecodeOutput::Accepted(accepted) = output {
                by_frame.insert(frame, accepted.events.into());
            }
        }
    }

    // The stream: re-decoded device events in the places the record gives them.
    let mut stream = Vec::with_capacity(rows.len());
    for row in rows {
        match (row.session, row.frame) {
            (Some(session), Some(frame)) => {
                let again = by_frame.get_mut(&frame).and_then(VecDeque::pop_front);
                stream.push(placed(row.event, again, session, &mut divergences));
            }
            _ => stream.push(row.event),
        }
    }
    let mut left: Vec<_> = by_frame.iter().filter(|(_, e)| !e.is_empty()).collect();
    left.sort_by_key(|(frame, _)| **frame);
    for (frame, events) in left {
        divergences.push(format!(
            "frame {}: {} decoded event(s) are not in the record",
            frame.0,
            events.len()
        ));
    }

    let resumes = crate::recorder::resume_points(store, name)?;
    let events_run = stream.len();
    let mut steps = Vec::new();
    let mut interrupted = Vec::new();
    for event in stream {
        if let Some(book) = books.changed_at(event.seq) {
            // Resumed here under another book: the engine as the recorder rebuilt it then.
            let rebuilt = crate::recorder::rebuild::rebuild(store, table, name, book, event.seq)?;
            engine = rebuilt.engine;
            if event.seq > start.first_seq {
                watch = rebuilt.shuffle;
            }
        }
        if resumes.contains(&event.seq) {
            engine.interrupt();
            while let Some(output) = engine.poll_output() {
                interrupted.push(output);
            }
        }
        engine.handle_event(&event);
        if event.seq >= start.first_seq {
            if let Some(watch) = watch.as_mut() {
                watch.observe(&event);
            }
        }
        let mut outputs = std::mem::take(&mut interrupted);
        while let Some(output) = engine.poll_output() {
            outputs.push(output);
        }
        if event.seq >= start.first_seq {
            let view = engine.view();
            steps.push(Step {
                event,
                outputs,
                view,
            });
        }
    }
    // Judged as live: complete once the next shoe has started, provisional before.
    let shuffle = match (
        watch.as_mut(),
        store.shoe_start(table, shoe.saturating_add(1))?,
    ) {
        (None, _) => None,
        (Some(watch), Some(next)) => watch.shoe_started(shoe + 1, next.first_seq),
        (Some(watch), None) => watch.provisional(),
    };
    Ok(ShoeRun {
        table: name.to_owned(),
        rule_book,
        shoe,
        steps,
        divergences,
        from_seq: from_seq.max(1),
        events_run,
        chunks_decoded,
        shuffle,
    })
}

/// The shoe an output is about, where it is one shoe's: a round, a shoe's summary, or an
/// irregularity found in a round; `None` for the rest (a shoe-level finding such as a shuffle's
/// analysis is shown where it was raised).
pub fn about_shoe(output: &GameOutput) -> Option<u32> {
    match output {
        Output::Round(r) => Some(r.shoe()),
        Output::Shoe(s) => Some(s.shoe),
        Output::Irregularity(i) if i.round.is_some() => Some(i.shoe),
        Output::Irregularity(_) | Output::DeviceErrorCleared(_) => None,
    }
}
