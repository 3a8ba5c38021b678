//! Device transports: the one place in Pitwatch that opens serial ports and sockets.
//!
//! A device is reached through a [`DeviceConfig`] (a serial port with its line settings, or a TCP
//! client to a serial-to-Ethernet device server). [`spawn_device`] starts a reader thread that
//! owns the connection, reconnects with bounded exponential backoff, and reports, in order:
//! [`TransportEvent::Connected`], [`TransportEvent::Chunk`] for every read (with the host receive
//! time taken as the bytes arrive, before any decoding, so the store can journal raw bytes first),
//! [`TransportEvent::Disconnected`], and [`TransportEvent::ConnectFailed`] while it retries.
//!
//! Nothing is ever written to a device except through [`DeviceHandle::send`]: the host is
//! read-only towards table devices unless a supervisor explicitly sends a command.
//!
//! Codecs stay separate (`pitwatch-codec` and the protocol crates): a transport moves bytes and
//! knows nothing of frames.

mod config;
mod connection;
pub mod host_clock;
mod ports;
pub mod pty;
mod reader;

use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use pitwatch_model::Timestamp;

pub use config::{
    Backoff, DeviceConfig, FlowControl, Parity, SerialConfig, TcpConfig, TransportConfig,
    BACKOFF_FLOOR_MS,
};
pub use connection::{ConfiguredConnector, Connection, Connector, SerialConnection, TcpConnection};
pub use ports::{list_ports, PortInfo, PortKind, UsbInfo};
pub use reader::{
    spawn_device, spawn_device_into, spawn_reader, spawn_reader_into, DeviceHandle, EventSink,
    ReaderOptions,
};

/// What a reader reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TransportEvent {
    /// The link is open.
    Connected {
        /// When.
        at: Timestamp,
        /// What was connected to.
        description: String,
        /// The USB identity of the adapter, when the link is a USB serial port: a different
        /// serial number after a reconnect means the device was swapped or re-enumerated.
        usb: Option<UsbInfo>,
    },
    /// Bytes arrived.
    Chunk {
        /// Host time at which the read returned them.
        received_at: Timestamp,
        /// The bytes, exactly as read.
        bytes: Vec<u8>,
    },
    /// The link was lost (or the reader was stopped).
    Disconnected {
        /// When.
        at: Timestamp,
        /// Why.
        reason: String,
    },
    /// Opening the link failed; the reader tries again after `retry_in`.
    ConnectFailed {
        /// When.
        at: Timestamp,
        /// Why.
        reason: String,
        /// The backoff delay before the next attempt.
        retry_in: Duration,
    },
}

/// Why a transport operation failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TransportError {
    /// The configuration cannot be used; fix it and restart the device.
    #[error("bad transport configuration: {0}")]
    Config(String),
    /// The port or server could not be opened; the reader retries with backoff.
    #[error("cannot open {target}: {reason}")]
    Open {
        /// Port path or address.
        target: String,
        /// The system's reason.
        reason: String,
    },
    /// The other end closed the link; the reader reconnects.
    #[error("connection closed: {0}")]
    Closed(String),
    /// A read or write failed; the reader reconnects.
    #[error("i/o error: {0}")]
    Io(String),
    /// A command was sent while the device is not connected; send again once it is.
    #[error("the device is not connected")]
    NotConnected,
    /// A command did not complete in time.
    #[error("the write did not complete in time")]
    Timeout,
    /// The reader has stopped.
    #[error("the device reader has stopped")]
    Stopped,
    /// The reader's thread could not be started (too many threads, or no memory for one).
    #[error("cannot start a device reader thread: {0}")]
    Thread(String),
}

/// Where the reader takes times from. Injected so tests can use a fixed or stepping clock.
pub trait Clock: Send + Sync {
    /// The current time.
    fn now(&self) -> Timestamp;
}

/// The system clock (UTC).
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        let since_epoch = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        let millis = i64::try_from(since_epoch.as_millis()).unwrap_or(i64::MAX);
        Timestamp::from_unix_millis(millis)
            .unwrap_or_else(|| Timestamp::from_unix_millis(0).expect("the epoch is representable"))
    }
}

/// A clock that starts at a given time and moves forward by a fixed step at every reading, so
/// tests get deterministic, strictly increasing times.
#[derive(Debug)]
pub struct SteppingClock {
    next_ms: AtomicI64,
    step_ms: i64,
}

impl SteppingClock {
    /// A clock whose first reading is `start_ms` after the Unix epoch.
    pub fn new(start_ms: i64, step_ms: i64) -> Self {
        SteppingClock {
            next_ms: AtomicI64::new(start_ms),
            step_ms,
        }
    }
}

impl Clock for SteppingClock {
    fn now(&self) -> Timestamp {
        let ms = self.next_ms.fetch_add(self.step_ms, Ordering::SeqCst);
        Timestamp::from_unix_millis(ms).unwrap_or_else(|| SystemClock.now())
    }
}
