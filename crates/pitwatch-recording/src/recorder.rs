//! The recording pipeline of one table: bytes in, everything on record, derived outputs out.
//!
//! For every chunk a transport hands on: the raw bytes are journaled first, then the codec's
//! frames (accepted or rejected, with the reason), the table events they carry (numbered in the
//! table's own stream), the rounds the engine derives, and an incident for each irregularity. Only
//! after the transaction commits does the caller see what was derived, so nothing is ever shown
//! that is not on record. Replay from the record (see [`crate::replay`]) runs the same codec and
//! engine over the same bytes and must reach the same results.
//!
//! The recorder does no I/O itself: it *plans* the rows an input adds ([`Writes`]), with rows
//! created in the same group referred to by their place in it, and [`Writes::execute`] writes
//! them in one batch. A batch that fails (the disk is full, another process holds the lock) is
//! rolled back whole and the same plan can be executed again later: the recorder's state (the
//! codec, the engine, the table's next `seq`) already stands after the planned rows, so retrying
//! a plan never decodes, numbers or judges anything twice. [`TableRecorder::settle`] then tells
//! the recorder the ids its rows got.
//!
//! Two kinds of input are folded so a storm cannot flood the record: consecutive rejected frames
//! (garbage on the line) become one frame row per group of inputs (at most [`GARBAGE_ROW_MAX`]
//! bytes), and device errors are grouped into one open incident per table and error code, with a
//! count (see [`pitwatch_store::groups`]).

use pitwatch_codec::Decoder;
use pitwatch_games::{GameBook, GameOutput, GameView, TableEngine};
use pitwatch_model::{EventKind, TableEvent, Timestamp};
use pitwatch_protocols::{DecodeOutput, ProtocolConfig};
use pitwatch_rules::{Irregularity, IrregularityCode, TableOutput};
use pitwatch_shuffle::{ShoeShuffle, ShuffleWatch};
use pitwatch_store::{
    Actor, Batch, ChunkId, DeviceIdentity, FrameId, GroupRule, Grouped, IncidentId, NewIncident,
    SessionId, Store, StoreError, TableId,
};

mod identity;
mod liveness;
mod oneshot;
pub(crate) mod rebuild;
mod writes;
pub use identity::{
    hello_change, hello_key, usb_change, Hello, Known, Usb, DEVICE_FIRMWARE_CHANGED,
    DEVICE_REENUMERATED, DEVICE_SWAPPED,
};
pub use liveness::{clock_time, parse_back, view_in_play, AlarmIncident};
use writes::{Op, RowRef};
pub use writes::{PlannedDerived, Writes, Written};

/// The audit action that marks where a recorder resumed a table's stream after Pitwatch was down
/// (or after bytes were lost because they could not be recorded).
pub const RESUMED: &str = "monitor.resumed";

/// The code of the incident that records bytes lost because they could not be recorded.
pub const RECORDING_GAP: &str = "RECORDING_GAP";

/// A rejected run of bytes is written as one frame row of at most this many bytes.
pub const GARBAGE_ROW_MAX: usize = 64 * 1024;

/// A table may have this many unresolved device-error incidents of different codes; further new
/// codes are counted on one shared incident.
pub const DEVICE_ERROR_CODES_OPEN: u64 = 4;

/// The `seq`s before which the table's stream was interrupted because Pitwatch was not listening
/// (each resumption of the recorder), as recorded in the audit log.
pub fn resume_points(store: &Store, table: &str) -> Result<Vec<u64>, StoreError> {
    Ok(store
        .audit_details(RESUMED, &format!("table {table}"))?
        .iter()
        .filter_map(|detail| detail.parse().ok())
        .collect())
}

/// What the recorder derived from one chunk or console entry, once committed.
#[derive(Debug, Clone, PartialEq)]
pub enum Derived {
    /// A frame the codec accepted or rejected (consecutive rejections are one).
    Frame {
        /// Whether it was accepted.
        accepted: bool,
        /// Why it was rejected.
        reason: Option<String>,
    },
    /// A table event entered the stream.
    Event(TableEvent),
    /// The engine reported something; irregularities carry the incident opened for them.
    Output {
        /// What the engine reported.
        output: GameOutput,
        /// The incident opened, for an irregularity.
        incident: Option<IncidentId>,
    },
    /// An irregularity like one that already has an unresolved incident (the same device error
    /// again, or one more of a storm of codes): it was counted on that incident, no new one.
    Repeated {
        /// What the engine reported.
        output: GameOutput,
        /// The incident it was counted on.
        incident: IncidentId,
        /// How many irregularities the incident now stands for.
        count: u64,
    },
    /// A shoe's shuffle was judged (when the next shoe started); a suspect one's
    /// `SHUFFLE_SUSPECT` follows as an [`Derived::Output`] with its incident.
    Shuffle(ShoeShuffle),
    /// Bytes from the device were lost because they could not be recorded (the database could
    /// not be written and the spool was full); the incident says how many and when.
    Gap {
        /// Bytes lost.
        bytes: u64,
        /// The incident opened for it.
        incident: Option<IncidentId>,
    },
    /// A device's liveness alarm was raised or cleared ([`crate::liveness`]); a raised alarm
    /// carries the incident recorded for it (an alarm raised again before that incident was
    /// resolved is counted on it), a cleared one the incident its duration was recorded on.
    Liveness {
        /// Which of the table's devices (0: its main device).
        device: usize,
        /// What changed.
        change: crate::liveness::Change,
        /// The incident.
        incident: Option<IncidentId>,
    },
    /// A device is not what it was ([`identity`]): another device or USB adapter, other
    /// firmware, or the same adapter on another port; the incident opened for it.
    DeviceChanged {
        /// Which of the table's devices (0: its main device).
        device: usize,
        /// [`DEVICE_SWAPPED`], [`DEVICE_FIRMWARE_CHANGED`] or [`DEVICE_REENUMERATED`].
        code: &'static str,
        /// `high`, `medium` or `low`.
        severity: &'static str,
        /// The incident's message (what changed, before and after).
        message: String,
        /// The incident.
        incident: Option<IncidentId>,
    },
    /// What a device is, as last known ([`identity`]): its own report (`HELLO`: make, model,
    /// serial, firmware) and its USB adapter; on each `HELLO` and each connection through USB.
    DeviceIdentified {
        /// Which of the table's devices (0: its main device).
        device: usize,
        /// Its report, if it has made one.
        hello: Option<Hello>,
        /// Its USB adapter, if it is connected through one.
        usb: Option<Usb>,
    },
}

/// Bytes lost for a device because they could not be recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gap {
    /// How many bytes.
    pub bytes: u64,
    /// In how many chunks.
    pub chunks: u64,
    /// When the first of them was received.
    pub first: Timestamp,
    /// When the last of them was received.
    pub last: Timestamp,
}

/// A run of rejected bytes not yet written as a frame row.
#[derive(Debug)]
struct Garbage {
    session: RowRef<SessionId>,
    chunk: RowRef<ChunkId>,
    at: Timestamp,
    bytes: Vec<u8>,
    first_reason: String,
    pieces: u64,
}

/// One device of a table: its codec, its current session and where its bytes went last.
struct DeviceStream {
    protocol: Option<ProtocolConfig>,
    decoder: Option<Box<dyn Decoder>>,
    session: Option<RowRef<SessionId>>,
    last_chunk: Option<RowRef<ChunkId>>,
    port: String,
    garbage: Option<Garbage>,
    /// What the device said of itself last ([`identity`]).
    known: identity::Known,
    /// Whether what it said of itself in this session is on record (its first `HELLO`).
    said_in_session: bool,
}

impl DeviceStream {
    fn new(protocol: Option<ProtocolConfig>, port: String) -> DeviceStream {
        DeviceStream {
            decoder: protocol.map(|p| p.decoder(1)),
            protocol,
            session: None,
            last_chunk: None,
            port,
            garbage: None,
            known: identity::Known::default(),
            said_in_session: false,
        }
    }

    /// This device as the record last knew it: its adapter's descriptors from `last` (its last
    /// session), its own report from the record's fact `hello`.
    fn knowing(mut self, last: Option<&DeviceIdentity>, hello: Option<String>) -> DeviceStream {
        self.known.usb = last
            .filter(|d| !d.serial.is_empty())
            .map(|d| identity::Usb {
                serial: d.serial.clone(),
                model: d.model.clone(),
                port: d.port.clone(),
            });
        self.known.hello = hello.and_then(|text| serde_json::from_str(&text).ok());
        self
    }
}

/// Records one table: its devices' codecs, its engine, and its place in the store. A table may
/// have several devices (a shoe and a shuffler); each has sessions of its own in the store, and
/// the events of all of them make one stream for the engine, numbered in the order the host
/// received them.
pub struct TableRecorder {
    table: TableId,
    name: String,
    devices: Vec<DeviceStream>,
    engine: TableEngine,
    /// Shuffle integrity: each shoe judged when the next starts (`crate::shuffle`), at a table
    /// of any game, by its book's `[shuffle]` thresholds.
    shuffle: Option<ShuffleWatch>,
    next_seq: u64,
    scratch: Vec<DecodeOutput>,
}

impl TableRecorder {
    /// A recorder for table `name`, created in the store if new. The engine's state is rebuilt by
    /// replaying the table's recorded events, so a restarted monitor carries on the same shoe:
    /// from the start of the last shoe, with what the engine carried into it (stored with the
    /// shoe's start; see [`pitwatch_baccarat::Carry`]), or, for a record that has no shoe starts
    /// stored (one from before they were kept), from the first event, storing them on the way.
    /// `protocol` is the device's codec; `None` for a source that delivers table events directly
    /// (an imported event file). `book_text` is the rule book's TOML, kept in the record (a
    /// chained fact) so that replay judges the table by the same rules. The engine is the one
    /// `book` is for; `game` (the table's game) must be the book's.
    pub fn resume(
        store: &mut Store,
        name: &str,
        game: &str,
        book: impl Into<GameBook>,
        book_text: Option<&str>,
        protocol: Option<ProtocolConfig>,
        now: Timestamp,
    ) -> Result<TableRecorder, StoreError> {
        let book: GameBook = book.into();
        if book.game() != game {
            return Err(StoreError::Invalid(format!(
                "table {name}: the table's game is {game} but rule book {} is for {}",
                book.id(),
                book.game()
            )));
        }
        // The book the table was recorded with until now, to tell whether this one differs.
        let before = match store.table_id(name)? {
            Some(id) => {
                let reference = store
                    .tables()?
                    .into_iter()
                    .find(|t| t.id == id)
                    .map(|t| t.rule_book);
                reference
                    .map(|r| store.table_book(id).map(|text| (r, text)))
                    .transpose()?
            }
            None => None,
        };
        // The book's reference (with the table's deck count if it has one) and its text, so
        // replay loads the same rules.
        let reference = book.reference();
        let table = store.configure_table(name, game, &reference, book_text, now)?;
        // A table resumed under another book is judged by it from here on; replay must know
        // where, to judge what came before by the book in force then (see `pitwatch_store::books`).
        let changed = before.filter(|(old_reference, old_text)| {
            *old_reference != reference
                || book_text.is_some_and(|text| old_text.as_deref() != Some(text))
        });
        let first_change = changed.is_some() && store.table_books(table)?.is_empty();
        // Only Baccarat's shoe starts are backfilled for a record that has none (a stored start is
        // never rewritten, so the other games' `null` carries stay as recorded).
        let carries = book.baccarat().is_some();
        let rebuild::Rebuilt {
            engine,
            shuffle,
            shoes,
            last_seq,
            whole,
            stored,
        } = rebuild::rebuild(store, table, name, &book, u64::MAX)?;
        let next_seq = last_seq + 1;
        // Where each shoe starts, for replaying one shoe (and resuming here next time): a record
        // from before these were kept gets them here.
        let missing: Vec<_> = shoes
            .iter()
            .filter(|(shoe, _, _)| {
                (carries && whole && stored != shoes.last().map(|s| s.0)) || stored < Some(*shoe)
            })
            .collect();
        // Where the device was last connected: bytes recovered from a spool after a restart are
        // recorded as a session on it.
        let last = store.sessions(table)?.pop().map(|s| s.device);
        let port = last.as_ref().map(|d| d.port.clone()).unwrap_or_default();
        let hello = store.meta(&identity::hello_key(name, 0))?;
        let mut recorder = TableRecorder {
            table,
            name: name.to_owned(),
            devices: vec![DeviceStream::new(protocol, port).knowing(last.as_ref(), hello)],
            engine,
            shuffle,
            next_seq,
            scratch: Vec::new(),
        };
        let mut writes = Writes::new();
        for (shoe, first_seq, carry) in missing {
            writes.push(Op::Shoe {
                table,
                shoe: *shoe,
                first_seq: *first_seq,
                carry: carry.clone(),
            });
        }
        if last_seq > 0 {
            // Nobody was listening while Pitwatch was down: whatever was dealt then is unknown, so
            // the shoe in play becomes partial (a round cut off is closed unfinished). The point is
            // recorded in the chained audit log, so replay interrupts the stream at the same place.
            recorder.plan_interruption(&mut writes, now, &mut Vec::new());
        }
        let changed = changed.filter(|_| last_seq > 0);
        if !writes.is_empty() || changed.is_some() {
            let mut batch = store.batch(now)?;
            if let Some((old_reference, old_text)) = &changed {
                if first_change {
                    batch.book_from(table, 0, old_reference, old_text.as_deref(), now)?;
                }
                batch.book_from(table, next_seq, &reference, book_text, now)?;
            }
            writes.execute(&mut batch)?;
            batch.commit()?;
        }
        Ok(recorder)
    }

    /// Adds another device of the table (a shuffler beside the shoe) and returns its index, by
    /// which the `plan_*` methods address it (the device given to [`TableRecorder::resume`] is
    /// 0). Bytes recovered from a spool for it start a session on the port its protocol and
    /// settings were last connected on.
    pub fn add_device(
        &mut self,
        store: &Store,
        protocol: ProtocolConfig,
    ) -> Result<usize, StoreError> {
        let settings = serde_json::to_string(&protocol).unwrap_or_default();
        let last = store
            .sessions(self.table)?
            .into_iter()
            .rev()
            .find(|s| s.device.settings == settings)
            .map(|s| s.device);
        let port = last.as_ref().map(|d| d.port.clone()).unwrap_or_default();
        let hello = store.meta(&identity::hello_key(&self.name, self.devices.len()))?;
        self.devices
            .push(DeviceStream::new(Some(protocol), port).knowing(last.as_ref(), hello));
        Ok(self.devices.len() - 1)
    }

    /// How many devices this recorder follows.
    pub fn device_count(&self) -> usize {
        self.devices.len()
    }

    /// The table's id in the store.
    pub fn table(&self) -> TableId {
        self.table
    }

    /// The table's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What the engine knows about the table now, after everything recorded so far (the shoe,
    /// the round in progress, the burn, the cutting card and the last round).
    pub fn view(&self) -> GameView {
        self.engine.view()
    }

    /// The shuffle statistics of the shoe being dealt, as far as it has gone (provisional: a
    /// shoe is judged, and may raise `SHUFFLE_SUSPECT`, when the next one starts).
    pub fn shuffle_so_far(&self) -> Option<ShoeShuffle> {
        self.shuffle.as_ref().and_then(ShuffleWatch::provisional)
    }

    /// The main device's current session, if connected and on record.
    pub fn session(&self) -> Option<SessionId> {
        match self.devices.first().and_then(|d| d.session) {
            Some(RowRef::Known(session)) => Some(session),
            _ => None,
        }
    }

    /// The `seq` the table's next event will get.
    pub fn next_seq(&self) -> u64 {
        self.next_seq
    }

    // ----- planning (no I/O) -----

    /// Plans the start of a device session: the device connected on `port`, with its identity
    /// when known (make, model and serial; the protocol and codec settings are filled in here).
    /// A session still open is ended first.
    pub fn plan_connect(
        &mut self,
        device: usize,
        writes: &mut Writes,
        port: &str,
        identity: DeviceIdentity,
        now: Timestamp,
        derived: &mut Vec<PlannedDerived>,
    ) {
        let Some(stream) = self.devices.get(device) else {
            return;
        };
        if stream.session.is_some() {
            self.plan_disconnect(device, writes, now, "a new connection replaced it", derived);
        }
        let stream = &mut self.devices[device];
        let settings = match &stream.protocol {
            Some(protocol) => serde_json::to_string(protocol).unwrap_or_else(|_| "{}".into()),
            None => "{}".to_owned(),
        };
        let usb = identity::Usb {
            serial: identity.serial.clone(),
            model: identity.model.clone(),
            port: port.to_owned(),
        };
        let device_index = device;
        let device = writes.push(Op::Device {
            identity: DeviceIdentity {
                protocol: stream
                    .protocol
                    .as_ref()
                    .map_or("events", |p| p.name())
                    .to_owned(),
                settings,
                port: port.to_owned(),
                ..identity
            },
            now,
        });
        let session = writes.push(Op::Session {
            table: self.table,
            device,
            now,
        });
        // Each session decodes with a fresh codec, so replaying a session's bytes on their own
        // reproduces exactly what was decoded live.
        stream.decoder = stream.protocol.map(|p| p.decoder(1));
        stream.session = Some(RowRef::New(session));
        stream.said_in_session = false;
        stream.last_chunk = None;
        stream.port = port.to_owned();
        self.plan_usb(device_index, writes, usb, now, derived);
    }

    /// Plans one chunk of bytes as received at `received_at`: journaled, decoded, judged. Bytes
    /// that arrive with no session open (recovered from a spool after a restart, or after bytes
    /// were lost) start a session on the port last connected to.
    pub fn plan_chunk(
        &mut self,
        device: usize,
        writes: &mut Writes,
        received_at: Timestamp,
        bytes: &[u8],
        derived: &mut Vec<PlannedDerived>,
    ) -> Result<(), StoreError> {
        let Some(stream) = self.devices.get(device) else {
            return Err(StoreError::Invalid(format!(
                "table {}: bytes arrived for device {} of {}",
                self.name,
                device + 1,
                self.devices.len()
            )));
        };
        if stream.decoder.is_none() {
            return Err(StoreError::Invalid(format!(
                "table {}: bytes arrived for a source without a codec",
                self.name
            )));
        }
        let session = match stream.session {
            Some(session) => session,
            None => {
                let port = if stream.port.is_empty() {
                    "unknown port".to_owned()
                } else {
                    stream.port.clone()
                };
                self.plan_connect(
                    device,
                    writes,
                    &port,
                    DeviceIdentity::default(),
                    received_at,
                    derived,
                );
                self.devices[device]
                    .session
                    .unwrap_or(RowRef::New(usize::MAX))
            }
        };
        let chunk = RowRef::New(writes.push(Op::Chunk {
            session,
            at: received_at,
            bytes: bytes.to_vec(),
        }));
        let stream = &mut self.devices[device];
        stream.last_chunk = Some(chunk);
        self.scratch.clear();
        if let Some(decoder) = stream.decoder.as_mut() {
            decoder.push(bytes, received_at, &mut self.scratch);
        }
        self.plan_outputs(device, writes, session, chunk, derived);
        Ok(())
    }

    /// Plans the end of the device session: whatever the codec still held is recorded as
    /// rejected, and the session row gets its end and `reason`.
    pub fn plan_disconnect(
        &mut self,
        device: usize,
        writes: &mut Writes,
        now: Timestamp,
        reason: &str,
        derived: &mut Vec<PlannedDerived>,
    ) -> Option<()> {
        let session = self.devices.get(device)?.session?;
        self.plan_session_end(device, writes, session, now, derived);
        writes.push(Op::EndSession {
            session,
            at: now,
            reason: reason.to_owned(),
        });
        Some(())
    }

    fn plan_session_end(
        &mut self,
        device: usize,
        writes: &mut Writes,
        session: RowRef<SessionId>,
        now: Timestamp,
        derived: &mut Vec<PlannedDerived>,
    ) {
        let Some(stream) = self.devices.get_mut(device) else {
            return;
        };
        self.scratch.clear();
        if let Some(decoder) = stream.decoder.as_mut() {
            decoder.finish(now, &mut self.scratch);
        }
        // Leftover bytes were journaled with the chunks they came in; their frame rows point at
        // the session's last chunk. With no chunk there can be no leftovers.
        if let Some(chunk) = stream.last_chunk {
            self.plan_outputs(device, writes, session, chunk, derived);
        }
        self.flush_device_garbage(device, writes, derived);
        let stream = &mut self.devices[device];
        stream.session = None;
        stream.last_chunk = None;
    }

    /// Plans an event entered at the console by `by` (a card exposed, the cut position, the
    /// table left vacant): recorded with an audit entry, judged like any other event; the event
    /// names who entered it and at which workstation (`entered_by`, `workstation`), and the audit
    /// entry's detail is the event. Returns the `seq` it gets.
    pub fn plan_console(
        &mut self,
        writes: &mut Writes,
        kind: EventKind,
        by: &Actor,
        now: Timestamp,
        derived: &mut Vec<PlannedDerived>,
    ) -> u64 {
        let mut event = TableEvent::new(self.next_seq, kind).at(now);
        event.extra.insert(
            "entered_by".into(),
            serde_json::Value::String(by.user.clone()),
        );
        if let Some(workstation) = &by.workstation {
            event.extra.insert(
                "workstation".into(),
                serde_json::Value::String(workstation.clone()),
            );
        }
        self.next_seq += 1;
        let line = event.to_json_line();
        writes.push(Op::Event {
            table: self.table,
            session: None,
            frame: None,
            event: event.clone(),
        });
        writes.push(Op::Audit {
            user: by.user.clone(),
            action: "console.event".into(),
            subject: format!("table {}", self.name),
            detail: line,
            now,
        });
        let seq = event.seq;
        self.plan_apply(writes, event, now, derived);
        seq
    }

    /// Plans what a loss of bytes means for the table: the device session ends (the bytes
    /// around the gap must not be framed together), the engine's stream is interrupted as at a
    /// restart (marked in the audit log so replay does the same), and an incident says exactly
    /// how many bytes were lost and when.
    pub fn plan_gap(
        &mut self,
        device: usize,
        writes: &mut Writes,
        gap: &Gap,
        now: Timestamp,
        derived: &mut Vec<PlannedDerived>,
    ) {
        let reason = format!(
            "{} bytes could not be recorded (the database could not be written and the spool was full)",
            gap.bytes
        );
        self.plan_disconnect(device, writes, gap.first, &reason, derived);
        self.plan_interruption(writes, now, derived);
        let message = format!(
            "{} bytes ({} reads) from this table's device were not recorded: they arrived from {} \
             to {} while the database could not be written, and the monitor's spool was full. \
             Whatever the device reported then is unknown; the shoe in play is treated as joined \
             part-way. Check the record and the cameras for that time.",
            gap.bytes, gap.chunks, gap.first, gap.last
        );
        let slot = writes.push(Op::Incident {
            incident: NewIncident {
                table: self.table,
                code: RECORDING_GAP.into(),
                severity: "critical".into(),
                rule: "recording (no Gazette rule)".into(),
                shoe: Some(self.engine.shoe()),
                round: None,
                seq: self.next_seq,
                evidence: Vec::new(),
                message,
            },
            group: None,
            now,
        });
        derived.push(PlannedDerived {
            derived: Derived::Gap {
                bytes: gap.bytes,
                incident: None,
            },
            incident: Some(slot),
        });
    }

    /// The stream is interrupted before the next event (Pitwatch was not listening).
    fn plan_interruption(
        &mut self,
        writes: &mut Writes,
        now: Timestamp,
        derived: &mut Vec<PlannedDerived>,
    ) {
        self.engine.interrupt();
        writes.push(Op::Audit {
            user: "pitwatch".into(),
            action: RESUMED.into(),
            subject: format!("table {}", self.name),
            detail: self.next_seq.to_string(),
            now,
        });
        while let Some(output) = self.engine.poll_output() {
            if let TableOutput::Round(round) = &output {
                writes.push(Op::Round {
                    table: self.table,
                    shoe: round.shoe(),
                    round: round.round(),
                    first_seq: round.first_seq(),
                    last_seq: round.last_seq(),
                    body: serde_json::to_string(round).unwrap_or_default(),
                });
                derived.push(PlannedDerived::now(Derived::Output {
                    output,
                    incident: None,
                }));
            }
        }
    }

    /// Writes the run of rejected bytes held back so far as one frame row. Called at the end of
    /// each group of inputs, so a row never waits longer than its group.
    pub fn flush_garbage(&mut self, writes: &mut Writes, derived: &mut Vec<PlannedDerived>) {
        for device in 0..self.devices.len() {
            self.flush_device_garbage(device, writes, derived);
        }
    }

    /// Writes the run of rejected bytes one device held back so far as one frame row.
    fn flush_device_garbage(
        &mut self,
        device: usize,
        writes: &mut Writes,
        derived: &mut Vec<PlannedDerived>,
    ) {
        let Some(garbage) = self.devices.get_mut(device).and_then(|d| d.garbage.take()) else {
            return;
        };
        let reason = if garbage.pieces > 1 {
            format!(
                "{} (and {} more rejected pieces right after it; {} bytes in all)",
                garbage.first_reason,
                garbage.pieces - 1,
                garbage.bytes.len()
            )
        } else {
            garbage.first_reason
        };
        writes.push(Op::Frame {
            session: garbage.session,
            chunk: garbage.chunk,
            at: garbage.at,
            bytes: garbage.bytes,
            rejection: Some(reason.clone()),
        });
        derived.push(PlannedDerived::now(Derived::Frame {
            accepted: false,
            reason: Some(reason),
        }));
    }

    /// Called once the writes planned so far have committed: rows this recorder refers to by
    /// their place in the writes get their ids.
    pub fn settle(&mut self, written: &Written) {
        for stream in &mut self.devices {
            if let Some(RowRef::New(slot)) = stream.session {
                stream.session = written.id(slot).map(|id| RowRef::Known(SessionId(id)));
            }
            if let Some(RowRef::New(slot)) = stream.last_chunk {
                stream.last_chunk = written.id(slot).map(|id| RowRef::Known(ChunkId(id)));
            }
        }
    }

    fn plan_outputs(
        &mut self,
        device: usize,
        writes: &mut Writes,
        session: RowRef<SessionId>,
        chunk: RowRef<ChunkId>,
        derived: &mut Vec<PlannedDerived>,
    ) {
        let mut outputs = std::mem::take(&mut self.scratch);
        for output in outputs.drain(..) {
            match output {
                DecodeOutput::Rejected(r) => {
                    let reason = format!("{}: {}", r.kind.as_str(), r.reason);
                    match &mut self.devices[device].garbage {
                        Some(g)
                            if g.session == session
                                && g.bytes.len() + r.bytes.len() <= GARBAGE_ROW_MAX =>
                        {
                            g.bytes.extend_from_slice(&r.bytes);
                            g.pieces += 1;
                        }
                        _ => {
                            self.flush_device_garbage(device, writes, derived);
                            self.devices[device].garbage = Some(Garbage {
                                session,
                                chunk,
                                at: r.at,
                                bytes: r.bytes,
                                first_reason: reason,
                                pieces: 1,
                            });
                        }
                    }
                }
                DecodeOutput::Accepted(a) => {
                    // Rejected bytes before this frame come first in the record too.
                    self.flush_device_garbage(device, writes, derived);
                    let frame = writes.push(Op::Frame {
                        session,
                        chunk,
                        at: a.at,
                        bytes: a.frame.to_vec(),
                        rejection: None,
                    });
                    derived.push(PlannedDerived::now(Derived::Frame {
                        accepted: true,
                        reason: None,
                    }));
                    for mut event in a.events {
                        event.seq = self.next_seq;
                        self.next_seq += 1;
                        writes.push(Op::Event {
                            table: self.table,
                            session: Some(session),
                            frame: Some(frame),
                            event: event.clone(),
                        });
                        self.plan_apply(writes, event, a.at, derived);
                    }
                    for notice in &a.notices {
                        if let pitwatch_codec::Notice::Hello(identity) = notice {
                            self.plan_hello(device, session, writes, identity, a.at, derived);
                        }
                    }
                }
            }
        }
        self.scratch = outputs;
    }

    fn plan_apply(
        &mut self,
        writes: &mut Writes,
        event: TableEvent,
        now: Timestamp,
        derived: &mut Vec<PlannedDerived>,
    ) {
        let shoe = self.engine.shoe();
        self.engine.handle_event(&event);
        if let Some(shuffle) = self.shuffle.as_mut() {
            shuffle.observe(&event);
        }
        // The shoe that ended is judged once the engine's outputs for this event are planned.
        let mut judged = None;
        if self.engine.shoe() != shoe {
            writes.push(Op::Shoe {
                table: self.table,
                shoe: self.engine.shoe(),
                first_seq: event.seq,
                carry: self.engine.carry_json(),
            });
            judged = self
                .shuffle
                .as_mut()
                .and_then(|shuffle| shuffle.shoe_started(self.engine.shoe(), event.seq));
        }
        let device_error = match &event.kind {
            EventKind::DeviceError { code, .. } => Some(code.clone()),
            _ => None,
        };
        derived.push(PlannedDerived::now(Derived::Event(event)));
        while let Some(output) = self.engine.poll_output() {
            let slot = match &output {
                TableOutput::Round(round) => {
                    writes.push(Op::Round {
                        table: self.table,
                        shoe: round.shoe(),
                        round: round.round(),
                        first_seq: round.first_seq(),
                        last_seq: round.last_seq(),
                        body: serde_json::to_string(round).unwrap_or_default(),
                    });
                    None
                }
                TableOutput::Irregularity(irregularity) => {
                    let group = match (&device_error, irregularity.code) {
                        (Some(code), IrregularityCode::DeviceError) => Some(GroupRule {
                            key: format!("DEVICE_ERROR:{code}"),
                            family: "DEVICE_ERROR:".into(),
                            limit: DEVICE_ERROR_CODES_OPEN,
                            overflow: "DEVICE_ERROR:*".into(),
                        }),
                        _ => None,
                    };
                    Some(writes.push(Op::Incident {
                        incident: self.new_incident(irregularity),
                        group,
                        now,
                    }))
                }
                TableOutput::Shoe(_) | TableOutput::DeviceErrorCleared(_) => None,
            };
            derived.push(PlannedDerived {
                derived: Derived::Output {
                    output,
                    incident: None,
                },
                incident: slot,
            });
        }
        let judged = judged.map(|mut j| {
            let irregularity = j.irregularity.take();
            derived.push(PlannedDerived::now(Derived::Shuffle(j)));
            irregularity
        });
        if let Some(irregularity) = judged.flatten() {
            let slot = writes.push(Op::Incident {
                incident: self.new_incident(&irregularity),
                group: None,
                now,
            });
            derived.push(PlannedDerived {
                derived: Derived::Output {
                    output: TableOutput::Irregularity(irregularity),
                    incident: None,
                },
                incident: Some(slot),
            });
        }
    }

    fn new_incident(&self, irregularity: &Irregularity) -> NewIncident {
        NewIncident {
            table: self.table,
            code: irregularity.code.to_string(),
            severity: irregularity.severity.to_string(),
            rule: irregularity.rule.clone(),
            shoe: Some(irregularity.shoe),
            round: irregularity.round,
            seq: irregularity.seq,
            evidence: irregularity.evidence.clone(),
            message: irregularity.message.clone(),
        }
    }
}
