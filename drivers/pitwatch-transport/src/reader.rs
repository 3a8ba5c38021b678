//! The reader loop: one thread per device that owns the connection, reconnects with backoff,
//! and hands every received chunk on, stamped with its host receive time, before anything
//! decodes it.
//!
//! A blocking thread feeding a channel was chosen over an async task: serial ports are blocking
//! in `serialport`, a thread per table device is cheap at pit scale, and an async monitor can
//! still consume the channel from `spawn_blocking` or a bridging task. Commands reach the
//! connection only through [`DeviceHandle::send`], so the host stays read-only otherwise.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, SyncSender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use pitwatch_model::Timestamp;

use crate::config::{Backoff, DeviceConfig};
use crate::connection::{ConfiguredConnector, Connector};
use crate::{Clock, TransportError, TransportEvent};

/// Bytes read at most per chunk.
const CHUNK: usize = 4096;

/// Settings of the reader loop itself.
#[derive(Debug, Clone, Copy)]
pub struct ReaderOptions {
    /// Reconnect backoff.
    pub backoff: Backoff,
    /// Reconnect when nothing arrived for this long.
    pub idle_reconnect: Option<Duration>,
}

impl From<&DeviceConfig> for ReaderOptions {
    fn from(config: &DeviceConfig) -> Self {
        ReaderOptions {
            backoff: config.backoff,
            idle_reconnect: config.idle_reconnect_ms.map(Duration::from_millis),
        }
    }
}

/// What a handle asks of its reader.
enum Request {
    /// Write a host command, and say how it went.
    Write(Write),
    /// Look at the stop flag now (the reader may be waiting out a reconnect delay).
    Wake,
}

/// A request to write a host command, with where to report the outcome.
struct Write {
    bytes: Vec<u8>,
    done: SyncSender<Result<(), TransportError>>,
}

/// Controls a running reader: send commands, stop it. Dropping the handle stops the reader and
/// waits for its thread.
pub struct DeviceHandle {
    writes: Sender<Request>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl DeviceHandle {
    /// Writes `bytes` to the device (an explicit, audited host command) and waits up to
    /// `timeout` for the write to finish. Fails when the device is not connected.
    pub fn send(&self, bytes: &[u8], timeout: Duration) -> Result<(), TransportError> {
        let (done, result) = mpsc::sync_channel(1);
        self.writes
            .send(Request::Write(Write {
                bytes: bytes.to_vec(),
                done,
            }))
            .map_err(|_| TransportError::Stopped)?;
        result
            .recv_timeout(timeout)
            .unwrap_or(Err(TransportError::Timeout))
    }

    /// Stops the reader (it reports `Disconnected` if it was connected) and waits for it.
    pub fn stop(mut self) {
        self.shutdown();
    }

    /// Asks the reader to stop without waiting for it: it stops at its next read timeout or
    /// delivery, or at once while it waits to reconnect. Stopping many readers, ask them all
    /// first and then [`DeviceHandle::stop`] each, so their timeouts run at once rather than one
    /// after another.
    pub fn request_stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
        // A reader gone already has nobody to wake.
        let _ = self.writes.send(Request::Wake);
    }

    fn shutdown(&mut self) {
        self.request_stop();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for DeviceHandle {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// Where a reader hands its events, in order. A monitor gives its readers a sink that blocks
/// while the device has too much waiting to be recorded (back-pressure: the reader stops reading
/// and the device's bytes wait in the operating system's buffer), so a flooding device costs
/// bounded memory.
pub trait EventSink: Send {
    /// Takes one event, waiting if it must. `false`: nobody listens any more, the reader stops.
    fn deliver(&mut self, event: TransportEvent) -> bool;
}

impl EventSink for Sender<TransportEvent> {
    fn deliver(&mut self, event: TransportEvent) -> bool {
        self.send(event).is_ok()
    }
}

/// The stack each reader thread gets: a reader holds its buffer on the heap and calls little,
/// so a small stack lets a pit of hundreds of devices start within a modest memory limit.
const READER_STACK: usize = 256 * 1024;

/// Starts a reader for `config`; events arrive on the returned receiver in order. Fails, with
/// the system's reason, when the thread cannot be started (too many threads, no memory).
pub fn spawn_device(
    config: &DeviceConfig,
    clock: Arc<dyn Clock>,
) -> Result<(DeviceHandle, Receiver<TransportEvent>), TransportError> {
    spawn_reader(
        Box::new(ConfiguredConnector::new(config.clone())),
        ReaderOptions::from(config),
        clock,
    )
}

/// Starts a reader for `config` that hands its events to `sink`.
pub fn spawn_device_into(
    config: &DeviceConfig,
    clock: Arc<dyn Clock>,
    sink: Box<dyn EventSink>,
) -> Result<DeviceHandle, TransportError> {
    spawn_reader_into(
        Box::new(ConfiguredConnector::new(config.clone())),
        ReaderOptions::from(config),
        clock,
        sink,
    )
}

/// Starts a reader over any connector (tests use fake ones).
pub fn spawn_reader(
    connector: Box<dyn Connector>,
    options: ReaderOptions,
    clock: Arc<dyn Clock>,
) -> Result<(DeviceHandle, Receiver<TransportEvent>), TransportError> {
    let (events_tx, events) = mpsc::channel();
    let handle = spawn_reader_into(connector, options, clock, Box::new(events_tx))?;
    Ok((handle, events))
}

/// Starts a reader over any connector that hands its events to `sink`.
pub fn spawn_reader_into(
    connector: Box<dyn Connector>,
    options: ReaderOptions,
    clock: Arc<dyn Clock>,
    sink: Box<dyn EventSink>,
) -> Result<DeviceHandle, TransportError> {
    let (writes_tx, writes) = mpsc::channel();
    let stop = Arc::new(AtomicBool::new(false));
    let reader = Reader {
        connector,
        options,
        clock,
        events: sink,
        writes,
        stop: Arc::clone(&stop),
    };
    let thread = std::thread::Builder::new()
        .name("pitwatch-device-reader".into())
        .stack_size(READER_STACK)
        .spawn(move || reader.run())
        .map_err(|e| TransportError::Thread(e.to_string()))?;
    Ok(DeviceHandle {
        writes: writes_tx,
        stop,
        thread: Some(thread),
    })
}

struct Reader {
    connector: Box<dyn Connector>,
    options: ReaderOptions,
    clock: Arc<dyn Clock>,
    events: Box<dyn EventSink>,
    writes: Receiver<Request>,
    stop: Arc<AtomicBool>,
}

/// Why the inner loop ended.
enum End {
    /// Stop requested or nobody listens any more.
    Stop,
    /// The link was lost; reconnect.
    Lost,
}

impl Reader {
    fn emit(&mut self, event: TransportEvent) -> bool {
        self.events.deliver(event)
    }

    fn stopping(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }

    fn run(mut self) {
        let mut delay = self.options.backoff.first();
        while !self.stopping() {
            match self.connector.connect() {
                Ok(connection) => {
                    delay = self.options.backoff.first();
                    let connected = TransportEvent::Connected {
                        at: self.clock.now(),
                        description: self.connector.describe(),
                        usb: connection.usb(),
                    };
                    if !self.emit(connected) {
                        return;
                    }
                    if let End::Stop = self.pump(connection) {
                        return;
                    }
                }
                Err(error) => {
                    let failed = TransportEvent::ConnectFailed {
                        at: self.clock.now(),
                        reason: error.to_string(),
                        retry_in: delay,
                    };
                    if !self.emit(failed) {
                        return;
                    }
                    if !self.wait(delay) {
                        return;
                    }
                    delay = self.options.backoff.after(delay);
                    continue;
                }
            }
            // Lost a connection: pause briefly before reopening (a device server needs a moment
            // to accept again, a USB adapter to re-enumerate).
            if !self.wait(delay) {
                return;
            }
        }
    }

    /// Reads until the link is lost or the reader is stopped.
    fn pump(&mut self, mut connection: Box<dyn crate::Connection>) -> End {
        let mut buf = vec![0u8; CHUNK];
        let mut last_data = Instant::now();
        loop {
            if self.stopping() {
                self.emit(TransportEvent::Disconnected {
                    at: self.clock.now(),
                    reason: "stopped by the host".into(),
                });
                return End::Stop;
            }
            while let Ok(request) = self.writes.try_recv() {
                let Request::Write(write) = request else {
                    continue;
                };
                let result = connection.write_all(&write.bytes);
                let failed = result.as_ref().err().map(ToString::to_string);
                let _ = write.done.send(result);
                if let Some(reason) = failed {
                    return self.lost(format!("write failed: {reason}"));
                }
            }
            match connection.read(&mut buf) {
                Ok(0) => {
                    if let Some(limit) = self.options.idle_reconnect {
                        if last_data.elapsed() >= limit {
                            return self.lost(format!(
                                "no data for {} ms; reconnecting",
                                limit.as_millis()
                            ));
                        }
                    }
                }
                Ok(n) => {
                    // The receive time is taken here, as the bytes arrive, before any decoding.
                    let received_at: Timestamp = self.clock.now();
                    last_data = Instant::now();
                    let chunk = TransportEvent::Chunk {
                        received_at,
                        bytes: buf[..n].to_vec(),
                    };
                    if !self.emit(chunk) {
                        return End::Stop;
                    }
                }
                Err(error) => return self.lost(error.to_string()),
            }
        }
    }

    fn lost(&mut self, reason: String) -> End {
        let event = TransportEvent::Disconnected {
            at: self.clock.now(),
            reason,
        };
        if self.emit(event) {
            End::Lost
        } else {
            End::Stop
        }
    }

    /// Sleeps `delay` while answering writes with "not connected"; false when stopping. The
    /// thread sleeps until the delay is over or a handle asks something (a stop wakes it), not
    /// waking every few milliseconds to look: a pit of a thousand devices that are all away
    /// must not keep the host busy.
    fn wait(&self, delay: Duration) -> bool {
        let until = Instant::now() + delay;
        loop {
            if self.stopping() {
                return false;
            }
            let now = Instant::now();
            if now >= until {
                return true;
            }
            match self.writes.recv_timeout(until - now) {
                Ok(Request::Write(write)) => {
                    let _ = write.done.send(Err(TransportError::NotConnected));
                }
                Ok(Request::Wake) | Err(RecvTimeoutError::Timeout) => {}
                // The handle is gone: nobody can stop us any more, so stop now.
                Err(RecvTimeoutError::Disconnected) => return false,
            }
        }
    }
}
