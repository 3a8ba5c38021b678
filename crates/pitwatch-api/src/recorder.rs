//! The recording pipeline of one table: bytes in, everything on record, derived outputs out.
//!
//! For every chunk a transport hands on, in one store batch: the raw bytes are journaled first,
//! then the codec's frames (accepted or rejected, with the reason), the table events they carry
//! (numbered in the table's own stream), the rounds the engine derives, and an incident for each
//! irregularity. Only after the batch commits does the caller see what was derived, so nothing
//! is ever shown that is not on record. Replay from the record (see [`crate::replay`]) runs the
//! same codec and engine over the same bytes and must reach the same results.

use pitwatch_codec::Decoder;
use pitwatch_model::{EventKind, TableEvent, Timestamp};
use pitwatch_protocols::{DecodeOutput, ProtocolConfig};
use pitwatch_rules::{Carry, Engine, Irregularity, Output, RuleBook, TableView};
use pitwatch_store::{
    Batch, DeviceIdentity, IncidentId, NewIncident, SessionId, Store, StoreError, TableId,
};

/// The audit action that marks where a recorder resumed a table's stream after Pitwatch was down.
pub const RESUMED: &str = "monitor.resumed";

/// The `seq`s before which the table's stream was interrupted because Pitwatch was not listening
/// (each resumption of the recorder), as recorded in the audit log.
pub fn resume_points(store: &Store, table: &str) -> Result<Vec<u64>, StoreError> {
    Ok(store
        .audit_details(RESUMED, &format!("table {table}"))?
        .iter()
        .filter_map(|detail| detail.parse().ok())
        .collect())
}

/// What the engine carried into its current shoe, as stored with the shoe's start.
fn carry_json(engine: &Engine) -> String {
    serde_json::to_string(engine.shoe_carry()).unwrap_or_else(|_| "{}".into())
}

/// What the recorder derived from one chunk or console entry, once committed.
#[derive(Debug, Clone, PartialEq)]
pub enum Derived {
    /// A frame the codec accepted or rejected.
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
        output: Output,
        /// The incident opened, for an irregularity.
        incident: Option<IncidentId>,
    },
}

/// Records one table: its codec, its engine, and its place in the store.
pub struct TableRecorder {
    table: TableId,
    name: String,
    protocol: Option<ProtocolConfig>,
    decoder: Option<Box<dyn Decoder>>,
    engine: Engine,
    session: Option<SessionId>,
    last_chunk: Option<pitwatch_store::ChunkId>,
    next_seq: u64,
    scratch: Vec<DecodeOutput>,
}

impl TableRecorder {
    /// A recorder for table `name`, created in the store if new. The engine's state is rebuilt by
    /// replaying the table's recorded events, so a restarted monitor carries on the same shoe:
    /// from the start of the last shoe, with what the engine carried into it (stored with the
    /// shoe's start; see [`pitwatch_rules::Carry`]), or, for a record that has no shoe starts
    /// stored (one from before they were kept), from the first event, storing them on the way.
    /// `protocol` is the device's codec; `None` for a source that delivers table events directly
    /// (an imported event file). `book_text` is the rule book's TOML, kept in the record (a
    /// chained fact) so that replay judges the table by the same rules.
    pub fn resume(
        store: &mut Store,
        name: &str,
        game: &str,
        book: RuleBook,
        book_text: Option<&str>,
        protocol: Option<ProtocolConfig>,
        now: Timestamp,
    ) -> Result<TableRecorder, StoreError> {
        // The book's reference (with the table's deck count if it has one) and its text, so
        // replay loads the same rules.
        let table = store.configure_table(name, game, &book.reference(), book_text, now)?;
        let resumes = resume_points(store, name)?;
        let stored = store.last_shoe(table)?;
        let last_start = match stored {
            Some(last) => store.shoe_start(table, last)?.and_then(|start| {
                serde_json::from_str::<Carry>(&start.carry)
                    .ok()
                    .map(|carry| (start.first_seq, carry))
            }),
            None => None,
        };
        let whole = last_start.is_none();
        let (mut engine, rows) = match last_start {
            Some((first_seq, carry)) => (
                Engine::resume(book, carry),
                store.event_rows_between(table, first_seq, u64::MAX)?,
            ),
            None => (Engine::new(book), store.event_rows(table)?),
        };
        let mut last_seq = 0;
        let mut shoes = Vec::new();
        for row in rows {
            if resumes.contains(&row.event.seq) {
                engine.interrupt();
            }
            let shoe = engine.shoe();
            engine.handle_event(&row.event);
            if engine.shoe() != shoe {
                shoes.push((engine.shoe(), row.event.seq, carry_json(&engine)));
            }
            last_seq = row.event.seq;
        }
        // The outputs of the events already recorded were recorded with them.
        while engine.poll_output().is_some() {}
        let next_seq = last_seq + 1;
        // Where each shoe starts, for replaying one shoe (and resuming here next time): a record
        // from before these were kept gets them here.
        let missing: Vec<_> = shoes
            .iter()
            .filter(|(shoe, _, _)| {
                (whole && stored != shoes.last().map(|s| s.0)) || stored < Some(*shoe)
            })
            .collect();
        if !missing.is_empty() {
            let mut batch = store.batch(now)?;
            for (shoe, first_seq, carry) in missing {
                batch.record_shoe(table, *shoe, *first_seq, carry)?;
            }
            batch.commit()?;
        }
        if last_seq > 0 {
            // Nobody was listening while Pitwatch was down: whatever was dealt then is unknown, so
            // the shoe in play becomes partial (a round cut off is closed unfinished). The point is
            // recorded in the chained audit log, so replay interrupts the stream at the same place.
            engine.interrupt();
            let mut batch = store.batch(now)?;
            batch.append_audit(
                "pitwatch",
                RESUMED,
                &format!("table {name}"),
                &next_seq.to_string(),
                now,
            )?;
            while let Some(output) = engine.poll_output() {
                if let Output::Round(round) = &output {
                    let body = serde_json::to_string(round).unwrap_or_default();
                    batch.record_round(
                        table,
                        round.shoe,
                        round.round,
                        round.first_seq,
                        round.last_seq,
                        &body,
                    )?;
                }
            }
            batch.commit()?;
        }
        Ok(TableRecorder {
            table,
            name: name.to_owned(),
            decoder: protocol.map(|p| p.decoder(1)),
            protocol,
            engine,
            session: None,
            last_chunk: None,
            next_seq,
            scratch: Vec::new(),
        })
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
    pub fn view(&self) -> TableView {
        self.engine.view()
    }

    /// The current device session, if connected.
    pub fn session(&self) -> Option<SessionId> {
        self.session
    }

    /// Starts a device session: the device connected on `port`, with its identity when known
    /// (make, model and serial; the protocol and codec settings are filled in here).
    pub fn connect(
        &mut self,
        store: &mut Store,
        port: &str,
        identity: DeviceIdentity,
        now: Timestamp,
    ) -> Result<SessionId, StoreError> {
        let settings = match &self.protocol {
            Some(protocol) => serde_json::to_string(protocol).unwrap_or_else(|_| "{}".into()),
            None => "{}".to_owned(),
        };
        let device = store.ensure_device(
            &DeviceIdentity {
                protocol: self
                    .protocol
                    .as_ref()
                    .map_or("events", |p| p.name())
                    .to_owned(),
                settings,
                port: port.to_owned(),
                ..identity
            },
            now,
        )?;
        // Each session decodes with a fresh codec, so replaying a session's bytes on their own
        // reproduces exactly what was decoded live.
        self.decoder = self.protocol.map(|p| p.decoder(1));
        let session = store.start_session(self.table, device, now)?;
        self.session = Some(session);
        Ok(session)
    }

    /// Journals and processes one chunk of bytes as received at `received_at`.
    pub fn ingest(
        &mut self,
        batch: &mut Batch<'_>,
        received_at: Timestamp,
        bytes: &[u8],
        derived: &mut Vec<Derived>,
    ) -> Result<(), StoreError> {
        let Some(session) = self.session else {
            return Err(StoreError::Invalid(format!(
                "table {}: bytes arrived with no device session",
                self.name
            )));
        };
        let chunk = batch.append_chunk(session, received_at, bytes)?;
        self.last_chunk = Some(chunk);
        self.scratch.clear();
        match self.decoder.as_mut() {
            Some(decoder) => decoder.push(bytes, received_at, &mut self.scratch),
            None => {
                return Err(StoreError::Invalid(format!(
                    "table {}: bytes arrived for a source without a codec",
                    self.name
                )))
            }
        }
        self.record_outputs(batch, session, chunk, derived)
    }

    /// Records events that arrived already decoded (an event file imported as a device stream).
    pub fn ingest_event(
        &mut self,
        batch: &mut Batch<'_>,
        mut event: TableEvent,
        received_at: Timestamp,
        derived: &mut Vec<Derived>,
    ) -> Result<(), StoreError> {
        let Some(session) = self.session else {
            return Err(StoreError::Invalid(format!(
                "table {}: an event arrived with no device session",
                self.name
            )));
        };
        event.seq = self.next_seq;
        self.next_seq += 1;
        // An event without its own time happened when it was received.
        event.at = event.at.or(Some(received_at));
        batch.append_event(self.table, Some(session), None, &event)?;
        self.apply(batch, event, received_at, derived)
    }

    /// The device session ended: whatever the codec still held is recorded as rejected.
    pub fn disconnect(
        &mut self,
        batch: &mut Batch<'_>,
        now: Timestamp,
        derived: &mut Vec<Derived>,
    ) -> Result<Option<SessionId>, StoreError> {
        let Some(session) = self.session else {
            return Ok(None);
        };
        self.scratch.clear();
        if let Some(decoder) = self.decoder.as_mut() {
            decoder.finish(now, &mut self.scratch);
        }
        // Leftover bytes were journaled with the chunks they came in; their frame rows point at
        // the session's last chunk. With no chunk there can be no leftovers.
        if let Some(chunk) = self.last_chunk {
            self.record_outputs(batch, session, chunk, derived)?;
        }
        self.session = None;
        self.last_chunk = None;
        Ok(Some(session))
    }

    fn record_outputs(
        &mut self,
        batch: &mut Batch<'_>,
        session: SessionId,
        chunk: pitwatch_store::ChunkId,
        derived: &mut Vec<Derived>,
    ) -> Result<(), StoreError> {
        let outputs = std::mem::take(&mut self.scratch);
        for output in &outputs {
            let (at, rejection) = match output {
                DecodeOutput::Accepted(a) => (a.at, None),
                DecodeOutput::Rejected(r) => {
                    (r.at, Some(format!("{}: {}", r.kind.as_str(), r.reason)))
                }
            };
            let frame =
                batch.append_frame(session, chunk, at, output.bytes(), rejection.as_deref())?;
            derived.push(Derived::Frame {
                accepted: rejection.is_none(),
                reason: rejection,
            });
            for event in output.events() {
                let mut event = event.clone();
                event.seq = self.next_seq;
                self.next_seq += 1;
                batch.append_event(self.table, Some(session), Some(frame), &event)?;
                self.apply(batch, event, at, derived)?;
            }
        }
        self.scratch = outputs;
        Ok(())
    }

    /// Enters an event that no device can see (a card exposed, the cut position, the table left
    /// vacant), recorded by `user` at the console; the engine applies the rules to it like any
    /// other event.
    pub fn console(
        &mut self,
        batch: &mut Batch<'_>,
        kind: EventKind,
        user: &str,
        now: Timestamp,
        derived: &mut Vec<Derived>,
    ) -> Result<u64, StoreError> {
        let mut event = TableEvent::new(self.next_seq, kind).at(now);
        event.extra.insert(
            "entered_by".into(),
            serde_json::Value::String(user.to_owned()),
        );
        self.next_seq += 1;
        batch.append_event(self.table, None, None, &event)?;
        batch.append_audit(
            user,
            "console.event",
            &format!("table {}", self.name),
            &event.to_json_line(),
            now,
        )?;
        let seq = event.seq;
        self.apply(batch, event, now, derived)?;
        Ok(seq)
    }

    fn apply(
        &mut self,
        batch: &mut Batch<'_>,
        event: TableEvent,
        now: Timestamp,
        derived: &mut Vec<Derived>,
    ) -> Result<(), StoreError> {
        let shoe = self.engine.shoe();
        self.engine.handle_event(&event);
        if self.engine.shoe() != shoe {
            batch.record_shoe(
                self.table,
                self.engine.shoe(),
                event.seq,
                &carry_json(&self.engine),
            )?;
        }
        derived.push(Derived::Event(event));
        while let Some(output) = self.engine.poll_output() {
            let incident = self.record_output(batch, &output, now)?;
            derived.push(Derived::Output { output, incident });
        }
        Ok(())
    }

    fn record_output(
        &mut self,
        batch: &mut Batch<'_>,
        output: &Output,
        now: Timestamp,
    ) -> Result<Option<IncidentId>, StoreError> {
        match output {
            Output::Round(round) => {
                let body = serde_json::to_string(round).unwrap_or_default();
                batch.record_round(
                    self.table,
                    round.shoe,
                    round.round,
                    round.first_seq,
                    round.last_seq,
                    &body,
                )?;
                Ok(None)
            }
            Output::Irregularity(irregularity) => batch
                .open_incident(&self.new_incident(irregularity), now)
                .map(Some),
            Output::Shoe(_) | Output::DeviceErrorCleared(_) => Ok(None),
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
