//! A recorder's one-shot forms, for callers that write as they go (import, tests, benches): each
//! plans as the monitor does and executes the plan at once, in the caller's batch or its own.

use super::*;

impl TableRecorder {
    fn run(
        &mut self,
        batch: &mut Batch<'_>,
        writes: Writes,
        planned: Vec<PlannedDerived>,
        derived: &mut Vec<Derived>,
    ) -> Result<(), StoreError> {
        let written = writes.execute(batch)?;
        self.settle(&written);
        derived.extend(planned.into_iter().map(|p| written.resolve(p)));
        Ok(())
    }

    /// Starts a device session and records it at once (see [`TableRecorder::plan_connect`]).
    pub fn connect(
        &mut self,
        store: &mut Store,
        port: &str,
        identity: DeviceIdentity,
        now: Timestamp,
    ) -> Result<SessionId, StoreError> {
        let mut writes = Writes::new();
        let mut planned = Vec::new();
        self.plan_connect(0, &mut writes, port, identity, now, &mut planned);
        let mut batch = store.batch(now)?;
        self.run(&mut batch, writes, planned, &mut Vec::new())?;
        batch.commit()?;
        self.session().ok_or_else(|| {
            StoreError::Invalid(format!("table {}: the session was not recorded", self.name))
        })
    }

    /// Journals and processes one chunk of bytes as received at `received_at`, into `batch`.
    pub fn ingest(
        &mut self,
        batch: &mut Batch<'_>,
        received_at: Timestamp,
        bytes: &[u8],
        derived: &mut Vec<Derived>,
    ) -> Result<(), StoreError> {
        if self.devices.first().and_then(|d| d.session).is_none() {
            return Err(StoreError::Invalid(format!(
                "table {}: bytes arrived with no device session",
                self.name
            )));
        }
        let mut writes = Writes::new();
        let mut planned = Vec::new();
        self.plan_chunk(0, &mut writes, received_at, bytes, &mut planned)?;
        self.flush_garbage(&mut writes, &mut planned);
        self.run(batch, writes, planned, derived)
    }

    /// Records events that arrived already decoded (an event file imported as a device stream).
    pub fn ingest_event(
        &mut self,
        batch: &mut Batch<'_>,
        mut event: TableEvent,
        received_at: Timestamp,
        derived: &mut Vec<Derived>,
    ) -> Result<(), StoreError> {
        let Some(session) = self.devices.first().and_then(|d| d.session) else {
            return Err(StoreError::Invalid(format!(
                "table {}: an event arrived with no device session",
                self.name
            )));
        };
        event.seq = self.next_seq;
        self.next_seq += 1;
        // An event without its own time happened when it was received.
        event.at = event.at.or(Some(received_at));
        let mut writes = Writes::new();
        let mut planned = Vec::new();
        writes.push(Op::Event {
            table: self.table,
            session: Some(session),
            frame: None,
            event: event.clone(),
        });
        self.plan_apply(&mut writes, event, received_at, &mut planned);
        self.run(batch, writes, planned, derived)
    }

    /// The device session ended: whatever the codec still held is recorded as rejected. The
    /// session's end itself is left to the caller (`Store::end_session`, with its reason).
    pub fn disconnect(
        &mut self,
        batch: &mut Batch<'_>,
        now: Timestamp,
        derived: &mut Vec<Derived>,
    ) -> Result<Option<SessionId>, StoreError> {
        let Some(session) = self.devices.first().and_then(|d| d.session) else {
            return Ok(None);
        };
        let ended = self.session();
        let mut writes = Writes::new();
        let mut planned = Vec::new();
        self.plan_session_end(0, &mut writes, session, now, &mut planned);
        self.run(batch, writes, planned, derived)?;
        Ok(ended)
    }

    /// Enters an event that no device can see, recorded by `by` at the console (see
    /// [`TableRecorder::plan_console`]).
    pub fn console(
        &mut self,
        batch: &mut Batch<'_>,
        kind: EventKind,
        by: impl Into<Actor>,
        now: Timestamp,
        derived: &mut Vec<Derived>,
    ) -> Result<u64, StoreError> {
        let mut writes = Writes::new();
        let mut planned = Vec::new();
        let seq = self.plan_console(&mut writes, kind, &by.into(), now, &mut planned);
        self.run(batch, writes, planned, derived)?;
        Ok(seq)
    }
}
