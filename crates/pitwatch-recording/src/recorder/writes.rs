//! A recorder's plan and its execution: the rows one input adds ([`Writes`]), with rows created
//! in the same group referred to by their place in it, written in one batch by
//! [`Writes::execute`]; a batch that fails is rolled back whole and the same plan can be executed
//! again, and [`Written`] says what ids the rows got.

use super::*;

/// A row of a planned write that another row refers to: one already on record, or one created
/// by an earlier operation of the same [`Writes`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum RowRef<T> {
    Known(T),
    New(usize),
}

/// One planned row (or update) of a write.
#[derive(Debug, Clone)]
pub(super) enum Op {
    Device {
        identity: DeviceIdentity,
        now: Timestamp,
    },
    Session {
        table: TableId,
        device: usize,
        now: Timestamp,
    },
    EndSession {
        session: RowRef<SessionId>,
        at: Timestamp,
        reason: String,
    },
    Chunk {
        session: RowRef<SessionId>,
        at: Timestamp,
        bytes: Vec<u8>,
    },
    Frame {
        session: RowRef<SessionId>,
        chunk: RowRef<ChunkId>,
        at: Timestamp,
        bytes: Vec<u8>,
        rejection: Option<String>,
    },
    Event {
        table: TableId,
        session: Option<RowRef<SessionId>>,
        frame: Option<usize>,
        event: TableEvent,
    },
    Shoe {
        table: TableId,
        shoe: u32,
        first_seq: u64,
        carry: String,
    },
    Round {
        table: TableId,
        shoe: u32,
        round: u32,
        first_seq: u64,
        last_seq: u64,
        body: String,
    },
    Incident {
        incident: NewIncident,
        group: Option<GroupRule>,
        now: Timestamp,
    },
    Audit {
        user: String,
        action: String,
        subject: String,
        detail: String,
        now: Timestamp,
    },
    Meta {
        key: String,
        value: String,
    },
    /// A fact of one session, keyed by its id once it has one.
    SessionMeta {
        session: RowRef<SessionId>,
        key: fn(SessionId) -> String,
        value: String,
    },
    /// A device with a liveness alarm is back: an audit row on the alarm's incident (one on
    /// record, or one opened earlier in the same writes).
    Back {
        incident: RowRef<IncidentId>,
        detail: String,
        now: Timestamp,
    },
}

impl Op {
    /// Bytes this op holds, roughly, for bounding what waits in memory.
    fn weight(&self) -> usize {
        64 + match self {
            Op::Chunk { bytes, .. } | Op::Frame { bytes, .. } => bytes.len(),
            Op::Event { event, .. } => 128 + event.extra.len() * 32,
            Op::Round { body, .. } | Op::Shoe { carry: body, .. } => body.len(),
            Op::SessionMeta { value, .. } => value.len(),
            Op::Incident { incident, .. } => incident.message.len() + incident.evidence.len() * 8,
            _ => 64,
        }
    }
}

/// What executing one op gave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Outcome {
    Nothing,
    Id(i64),
    Grouped(Grouped),
}

/// The rows planned for a group of inputs, to be written in one transaction (see the module's
/// description). Executing the same writes again after a failed attempt writes the same rows.
#[derive(Debug, Clone, Default)]
pub struct Writes {
    ops: Vec<Op>,
    weight: usize,
}

/// The ids the rows of a [`Writes`] got when it committed.
#[derive(Debug, Clone, Default)]
pub struct Written {
    outcomes: Vec<Outcome>,
}

impl Written {
    pub(super) fn id(&self, slot: usize) -> Option<i64> {
        match self.outcomes.get(slot) {
            Some(Outcome::Id(id)) => Some(*id),
            _ => None,
        }
    }

    /// `derived` as published, with the ids its incidents got.
    pub fn resolve(&self, planned: PlannedDerived) -> Derived {
        match (
            planned.derived,
            planned.incident.and_then(|s| self.outcomes.get(s)),
        ) {
            (
                Derived::Output { output, .. },
                Some(Outcome::Grouped(Grouped::Counted { incident, count })),
            ) => Derived::Repeated {
                output,
                incident: *incident,
                count: *count,
            },
            (Derived::Output { output, .. }, Some(Outcome::Grouped(Grouped::Opened(id)))) => {
                Derived::Output {
                    output,
                    incident: Some(*id),
                }
            }
            (Derived::Output { output, .. }, Some(Outcome::Id(id))) => Derived::Output {
                output,
                incident: Some(IncidentId(*id)),
            },
            (Derived::Liveness { device, change, .. }, Some(Outcome::Grouped(g))) => {
                Derived::Liveness {
                    device,
                    change,
                    incident: Some(g.incident()),
                }
            }
            (Derived::Gap { bytes, .. }, Some(Outcome::Id(id))) => Derived::Gap {
                bytes,
                incident: Some(IncidentId(*id)),
            },
            (
                Derived::DeviceChanged {
                    device,
                    code,
                    severity,
                    message,
                    ..
                },
                Some(Outcome::Id(id)),
            ) => Derived::DeviceChanged {
                device,
                code,
                severity,
                message,
                incident: Some(IncidentId(*id)),
            },
            (derived, _) => derived,
        }
    }
}

/// Something derived, waiting for its write to commit (and, for an irregularity, for the id of
/// its incident).
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedDerived {
    pub(super) derived: Derived,
    pub(super) incident: Option<usize>,
}

impl PlannedDerived {
    /// Whether it is a table event entering the stream.
    pub fn is_event(&self) -> bool {
        matches!(self.derived, Derived::Event(_))
    }

    pub(super) fn now(derived: Derived) -> PlannedDerived {
        PlannedDerived {
            derived,
            incident: None,
        }
    }
}

impl Writes {
    /// No writes.
    pub fn new() -> Writes {
        Writes::default()
    }

    /// Whether nothing is planned.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// Rows planned.
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    /// Roughly how many bytes of memory the plan holds.
    pub fn weight(&self) -> usize {
        self.weight
    }

    pub(super) fn push(&mut self, op: Op) -> usize {
        self.weight += op.weight();
        self.ops.push(op);
        self.ops.len() - 1
    }

    /// Also sets the installation fact `key` to `value`, in the same transaction.
    pub fn set_meta(&mut self, key: &str, value: &str) {
        self.push(Op::Meta {
            key: key.to_owned(),
            value: value.to_owned(),
        });
    }

    /// Writes every planned row into `batch`, in order. On an error nothing of it should be
    /// committed: drop the batch, and execute the same writes again on a new one later.
    pub fn execute(&self, batch: &mut Batch<'_>) -> Result<Written, StoreError> {
        let mut outcomes: Vec<Outcome> = Vec::with_capacity(self.ops.len());
        let id = |outcomes: &[Outcome], slot: usize| match outcomes.get(slot) {
            Some(Outcome::Id(id)) => Ok(*id),
            _ => Err(StoreError::Invalid(format!(
                "a planned write refers to row {slot}, which made no row"
            ))),
        };
        let session = |outcomes: &[Outcome], r: RowRef<SessionId>| match r {
            RowRef::Known(s) => Ok(s),
            RowRef::New(slot) => id(outcomes, slot).map(SessionId),
        };
        for op in &self.ops {
            let outcome = match op {
                Op::Device { identity, now } => Outcome::Id(batch.ensure_device(identity, *now)?.0),
                Op::Session { table, device, now } => {
                    let device = pitwatch_store::DeviceId(id(&outcomes, *device)?);
                    Outcome::Id(batch.start_session(*table, device, *now)?.0)
                }
                Op::EndSession {
                    session: s,
                    at,
                    reason,
                } => {
                    batch.end_session(session(&outcomes, *s)?, *at, reason)?;
                    Outcome::Nothing
                }
                Op::Chunk {
                    session: s,
                    at,
                    bytes,
                } => Outcome::Id(batch.append_chunk(session(&outcomes, *s)?, *at, bytes)?.0),
                Op::Frame {
                    session: s,
                    chunk,
                    at,
                    bytes,
                    rejection,
                } => {
                    let chunk = match chunk {
                        RowRef::Known(c) => *c,
                        RowRef::New(slot) => ChunkId(id(&outcomes, *slot)?),
                    };
                    let frame = batch.append_frame(
                        session(&outcomes, *s)?,
                        chunk,
                        *at,
                        bytes,
                        rejection.as_deref(),
                    )?;
                    Outcome::Id(frame.0)
                }
                Op::Event {
                    table,
                    session: s,
                    frame,
                    event,
                } => {
                    let s = s.map(|s| session(&outcomes, s)).transpose()?;
                    let frame = frame
                        .map(|slot| id(&outcomes, slot).map(FrameId))
                        .transpose()?;
                    Outcome::Id(batch.append_event(*table, s, frame, event)?)
                }
                Op::Shoe {
                    table,
                    shoe,
                    first_seq,
                    carry,
                } => {
                    batch.record_shoe(*table, *shoe, *first_seq, carry)?;
                    Outcome::Nothing
                }
                Op::Round {
                    table,
                    shoe,
                    round,
                    first_seq,
                    last_seq,
                    body,
                } => {
                    batch.record_round(*table, *shoe, *round, *first_seq, *last_seq, body)?;
                    Outcome::Nothing
                }
                Op::Incident {
                    incident,
                    group,
                    now,
                } => match group {
                    Some(rule) => {
                        Outcome::Grouped(batch.open_grouped_incident(incident, rule, *now)?)
                    }
                    None => Outcome::Id(batch.open_incident(incident, *now)?.0),
                },
                Op::Audit {
                    user,
                    action,
                    subject,
                    detail,
                    now,
                } => Outcome::Id(batch.append_audit(user, action, subject, detail, *now)?),
                Op::Meta { key, value } => {
                    batch.set_meta(key, value)?;
                    Outcome::Nothing
                }
                Op::SessionMeta {
                    session: s,
                    key,
                    value,
                } => {
                    batch.set_meta(&key(session(&outcomes, *s)?), value)?;
                    Outcome::Nothing
                }
                Op::Back {
                    incident,
                    detail,
                    now,
                } => {
                    let incident = match incident {
                        RowRef::Known(id) => *id,
                        RowRef::New(slot) => match outcomes.get(*slot) {
                            Some(Outcome::Grouped(g)) => g.incident(),
                            Some(Outcome::Id(id)) => IncidentId(*id),
                            _ => {
                                return Err(StoreError::Invalid(format!(
                                    "a planned write refers to incident row {slot}, which made none"
                                )))
                            }
                        },
                    };
                    Outcome::Id(batch.append_audit(
                        "pitwatch",
                        crate::liveness::DEVICE_BACK,
                        &format!("incident {}", incident.0),
                        detail,
                        *now,
                    )?)
                }
            };
            outcomes.push(outcome);
        }
        Ok(Written { outcomes })
    }
}
