//! Live monitoring: every table's device read by its own transport thread, and one writer that
//! owns the store and every table's recorder.
//!
//! SQLite takes one writer at a time, so all tables funnel into one writer thread. The writer
//! takes whatever has arrived (up to [`GROUP_MAX`] messages), records it in one transaction
//! (group commit: one fsync for many frames), and only then publishes what was derived. A
//! frame is therefore always on disk before anything derived from it is shown.
//!
//! Stopping is orderly: the readers stop (each reports its disconnection), their forwarders
//! drain, and the writer records the ends of the sessions before it returns.

use std::collections::HashMap;
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;

use pitwatch_model::{EventKind, Timestamp};
use pitwatch_rules::TableView;
use pitwatch_store::{DeviceIdentity, SessionId, Store, StoreError};
use pitwatch_transport::{spawn_device, Clock, DeviceHandle, TransportEvent};

use crate::pit::{LinkConfig, TableConfig};
use crate::recorder::{Derived, TableRecorder};

/// The most messages recorded in one transaction.
pub const GROUP_MAX: usize = 1024;

/// How long the writer waits idle before it writes a checkpoint kept back from the journals.
const WITNESS_IDLE: std::time::Duration = std::time::Duration::from_secs(1);

/// A table to monitor, with its link resolved (for a simulated table, the pseudo-terminal).
#[derive(Debug, Clone)]
pub struct MonitoredTable {
    /// The table's configuration.
    pub config: TableConfig,
    /// How to reach its device now.
    pub link: LinkConfig,
}

/// The state of a table's device link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkState {
    /// Connected and reading.
    Connected,
    /// The link dropped.
    Disconnected,
    /// Connecting failed; retrying.
    Retrying,
}

/// What the monitor reports, after it is on record.
#[derive(Debug, Clone, PartialEq)]
pub enum MonitorEvent {
    /// A table's link changed state.
    Link {
        /// The table.
        table: String,
        /// The new state.
        state: LinkState,
        /// What was connected to, or why it dropped.
        detail: String,
        /// When.
        at: Timestamp,
    },
    /// Something was derived and recorded.
    Derived {
        /// The table.
        table: String,
        /// What.
        derived: Derived,
    },
    /// The table as its engine sees it after an input was recorded, published after what that
    /// input derived.
    View {
        /// The table.
        table: String,
        /// The engine's view.
        view: TableView,
    },
    /// The checkpoint journals and what went wrong writing each (sent when it changes): a
    /// journal that cannot be written never stops recording, but must be shown.
    Witness(Vec<pitwatch_store::JournalStatus>),
    /// Recording failed; the message says what and where.
    Failed {
        /// The table, when the failure is one table's.
        table: Option<String>,
        /// What went wrong.
        message: String,
    },
}

enum Input {
    Transport(usize, TransportEvent),
    Console {
        table: String,
        kind: EventKind,
        user: String,
        at: Timestamp,
        reply: mpsc::SyncSender<Result<u64, String>>,
    },
    Stop,
}

/// A running monitor.
pub struct Monitor {
    readers: Vec<DeviceHandle>,
    forwarders: Vec<JoinHandle<()>>,
    input: Sender<Input>,
    writer: Option<JoinHandle<Result<(), StoreError>>>,
    clock: Arc<dyn Clock>,
}

impl Monitor {
    /// Starts monitoring `tables`, recording into `store`. Events arrive on the returned receiver
    /// once they are on record.
    pub fn start(
        mut store: Store,
        tables: Vec<MonitoredTable>,
        clock: Arc<dyn Clock>,
    ) -> Result<(Monitor, Receiver<MonitorEvent>), StoreError> {
        let now = clock.now();
        let mut recorders = Vec::with_capacity(tables.len());
        for table in &tables {
            let book = table
                .config
                .rule_book()
                .map_err(|e| StoreError::Invalid(format!("table {}: {e}", table.config.name)))?;
            recorders.push(TableRecorder::resume(
                &mut store,
                &table.config.name,
                table.config.game.as_str(),
                book,
                crate::record::book_text(&table.config.rules).as_deref(),
                Some(table.config.device),
                now,
            )?);
        }
        let (input, inputs) = mpsc::channel();
        let (events_tx, events) = mpsc::channel();
        let writer = std::thread::Builder::new()
            .name("pitwatch-writer".into())
            .spawn(move || write_loop(store, recorders, inputs, events_tx))
            .map_err(|e| StoreError::Invalid(format!("cannot start the writer: {e}")))?;
        let mut readers = Vec::new();
        let mut forwarders = Vec::new();
        for (index, table) in tables.iter().enumerate() {
            let (handle, received) = spawn_device(&table.link, clock.clone());
            let forward = input.clone();
            let forwarder = std::thread::Builder::new()
                .name(format!("pitwatch-forward-{}", table.config.name))
                .spawn(move || {
                    for event in received {
                        if forward.send(Input::Transport(index, event)).is_err() {
                            break;
                        }
                    }
                })
                .map_err(|e| StoreError::Invalid(format!("cannot start a reader: {e}")))?;
            readers.push(handle);
            forwarders.push(forwarder);
        }
        Ok((
            Monitor {
                readers,
                forwarders,
                input,
                writer: Some(writer),
                clock,
            },
            events,
        ))
    }

    /// Records an event no device can see, entered at the console by `user` for `table`, and
    /// returns its `seq` once it is on record.
    pub fn console(&self, table: &str, kind: EventKind, user: &str) -> Result<u64, String> {
        let (reply, answer) = mpsc::sync_channel(1);
        self.input
            .send(Input::Console {
                table: table.to_owned(),
                kind,
                user: user.to_owned(),
                at: self.clock.now(),
                reply,
            })
            .map_err(|_| "the monitor has stopped".to_owned())?;
        answer
            .recv()
            .map_err(|_| "the monitor stopped before recording it".to_owned())?
    }

    /// The monitor's clock.
    pub fn now(&self) -> Timestamp {
        self.clock.now()
    }

    /// Stops every reader, records the ends of their sessions, and waits for the writer.
    pub fn stop(mut self) -> Result<(), StoreError> {
        self.shutdown()
    }

    fn shutdown(&mut self) -> Result<(), StoreError> {
        for reader in self.readers.drain(..) {
            reader.stop();
        }
        for forwarder in self.forwarders.drain(..) {
            let _ = forwarder.join();
        }
        let _ = self.input.send(Input::Stop);
        match self.writer.take() {
            Some(writer) => writer
                .join()
                .unwrap_or_else(|_| Err(StoreError::Invalid("the writer thread panicked".into()))),
            None => Ok(()),
        }
    }
}

impl Drop for Monitor {
    fn drop(&mut self) {
        let _ = self.shutdown();
    }
}

fn write_loop(
    mut store: Store,
    mut recorders: Vec<TableRecorder>,
    inputs: Receiver<Input>,
    events: Sender<MonitorEvent>,
) -> Result<(), StoreError> {
    let by_name: HashMap<String, usize> = recorders
        .iter()
        .enumerate()
        .map(|(i, r)| (r.name().to_owned(), i))
        .collect();
    let publish = |event: MonitorEvent| {
        // Nobody listening is fine: the record is what matters.
        let _ = events.send(event);
    };
    // Each table as resumed from the record, so a restarted monitor shows where the shoe stands
    // before the first new byte arrives.
    for recorder in &recorders {
        publish(MonitorEvent::View {
            table: recorder.name().to_owned(),
            view: recorder.view(),
        });
    }
    let mut pending = Vec::with_capacity(GROUP_MAX);
    let mut stopping = false;
    // Published at the first chance, so a journal that failed while the tables were resumed
    // (before this loop) is shown too.
    let mut journals = Vec::new();
    while !stopping {
        match inputs.recv_timeout(WITNESS_IDLE) {
            Ok(input) => pending.push(input),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                // Idle: the checkpoint the journals were kept waiting for is written now.
                store.flush_witness();
                continue;
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
        while pending.len() < GROUP_MAX {
            match inputs.try_recv() {
                Ok(input) => pending.push(input),
                Err(_) => break,
            }
        }
        let mut items = pending.drain(..).peekable();
        while let Some(input) = items.next() {
            match input {
                Input::Stop => stopping = true,
                Input::Transport(
                    index,
                    TransportEvent::Connected {
                        at,
                        description,
                        usb,
                    },
                ) => {
                    let recorder = &mut recorders[index];
                    let identity = usb.map_or_else(DeviceIdentity::default, |usb| DeviceIdentity {
                        make: usb.manufacturer.unwrap_or_default(),
                        model: usb
                            .product
                            .unwrap_or_else(|| format!("{:04x}:{:04x}", usb.vid, usb.pid)),
                        serial: usb.serial_number.unwrap_or_default(),
                        ..DeviceIdentity::default()
                    });
                    match recorder.connect(&mut store, &description, identity, at) {
                        Ok(_) => publish(MonitorEvent::Link {
                            table: recorder.name().to_owned(),
                            state: LinkState::Connected,
                            detail: description,
                            at,
                        }),
                        Err(e) => publish(MonitorEvent::Failed {
                            table: Some(recorder.name().to_owned()),
                            message: e.to_string(),
                        }),
                    }
                }
                Input::Transport(index, TransportEvent::ConnectFailed { at, reason, .. }) => {
                    publish(MonitorEvent::Link {
                        table: recorders[index].name().to_owned(),
                        state: LinkState::Retrying,
                        detail: reason,
                        at,
                    });
                }
                first => {
                    // A run of inputs that go into one transaction.
                    let mut run = vec![first];
                    while let Some(next) = items.next_if(|i| {
                        matches!(
                            i,
                            Input::Transport(_, TransportEvent::Chunk { .. })
                                | Input::Transport(_, TransportEvent::Disconnected { .. })
                                | Input::Console { .. }
                        )
                    }) {
                        run.push(next);
                    }
                    if let Err(error) =
                        record_run(&mut store, &mut recorders, &by_name, run, &publish)
                    {
                        // The record cannot be written (disk full, file removed): say so at once
                        // and stop recording; what was committed before stays committed.
                        publish(MonitorEvent::Failed {
                            table: None,
                            message: format!("recording stopped: {error}"),
                        });
                        return Err(error);
                    }
                }
            }
        }
        let now = store.journal_status();
        if now != journals {
            journals = now;
            publish(MonitorEvent::Witness(journals.clone()));
        }
    }
    store.flush_witness();
    Ok(())
}

type Published = (String, Vec<Derived>, TableView);

fn record_run(
    store: &mut Store,
    recorders: &mut [TableRecorder],
    by_name: &HashMap<String, usize>,
    run: Vec<Input>,
    publish: &dyn Fn(MonitorEvent),
) -> Result<(), StoreError> {
    let mut shown: Vec<Published> = Vec::new();
    let mut links = Vec::new();
    let mut ended: Vec<(SessionId, Timestamp, String)> = Vec::new();
    let mut replies = Vec::new();
    let mut failures = Vec::new();
    // The transaction's time, for its checkpoint: the latest time among its inputs.
    let now = run
        .iter()
        .filter_map(|input| match input {
            Input::Transport(_, TransportEvent::Chunk { received_at, .. }) => Some(*received_at),
            Input::Transport(_, TransportEvent::Disconnected { at, .. })
            | Input::Console { at, .. } => Some(*at),
            _ => None,
        })
        .max();
    let Some(now) = now else {
        return Ok(());
    };
    let mut batch = store.batch(now)?;
    for input in run {
        let mut derived = Vec::new();
        match input {
            Input::Transport(index, TransportEvent::Chunk { received_at, bytes }) => {
                let recorder = &mut recorders[index];
                if let Err(e) = recorder.ingest(&mut batch, received_at, &bytes, &mut derived) {
                    failures.push((recorder.name().to_owned(), e.to_string()));
                }
                shown.push((recorder.name().to_owned(), derived, recorder.view()));
            }
            Input::Transport(index, TransportEvent::Disconnected { at, reason }) => {
                let recorder = &mut recorders[index];
                if let Some(session) = recorder.disconnect(&mut batch, at, &mut derived)? {
                    ended.push((session, at, reason.clone()));
                }
                shown.push((recorder.name().to_owned(), derived, recorder.view()));
                links.push(MonitorEvent::Link {
                    table: recorder.name().to_owned(),
                    state: LinkState::Disconnected,
                    detail: reason,
                    at,
                });
            }
            Input::Console {
                table,
                kind,
                user,
                at,
                reply,
            } => match by_name.get(&table) {
                None => replies.push((reply, Err(format!("no table named {table:?}")))),
                Some(&index) => {
                    let recorder = &mut recorders[index];
                    match recorder.console(&mut batch, kind, &user, at, &mut derived) {
                        Ok(seq) => replies.push((reply, Ok(seq))),
                        Err(e) => replies.push((reply, Err(e.to_string()))),
                    }
                    shown.push((table, derived, recorder.view()));
                }
            },
            Input::Transport(_, _) | Input::Stop => {}
        }
    }
    for (session, at, reason) in &ended {
        batch.end_session(*session, *at, reason)?;
    }
    batch.commit()?;
    // Only now, with everything on record, is anything shown.
    for (table, derived, view) in shown {
        for item in derived {
            publish(MonitorEvent::Derived {
                table: table.clone(),
                derived: item,
            });
        }
        publish(MonitorEvent::View { table, view });
    }
    for link in links {
        publish(link);
    }
    for (table, message) in failures {
        publish(MonitorEvent::Failed {
            table: Some(table),
            message,
        });
    }
    for (reply, answer) in replies {
        let _ = reply.send(answer);
    }
    Ok(())
}
