//! The common shape of every Pitwatch device codec.
//!
//! A codec is a sans-IO state machine (in the manner of quinn-proto): the caller hands it the
//! bytes a transport received together with the host time they arrived, and collects what the
//! bytes meant. A codec never reads a clock, a port or a file, so the same bytes with the same
//! times always give the same outputs, live or in replay.
//!
//! Every byte that goes in is accounted for by exactly one output: a frame that was accepted
//! (with the canonical [`TableEvent`]s it produced, possibly none, and [`Notice`]s for what it
//! said that is not a table event), or a [`Rejection`] that carries the bytes and the reason.
//! Nothing is dropped silently; that is what lets the store show an auditor why a frame did not
//! count.

mod line;
mod screen;

use std::fmt;

use pitwatch_model::{EventKind, TableEvent, Timestamp};

pub use line::{LineFramer, LinePiece};
pub use screen::Screen;

/// A device protocol decoder. The monitor holds one per device stream, usually as
/// `Box<dyn Decoder>` chosen by [`Decoder::protocol`] name from the device's configuration.
pub trait Decoder: Send {
    /// The protocol's configuration name (`"angel-eye"`, `"barcode"`, `"pitwatch"`).
    fn protocol(&self) -> &'static str;

    /// Feeds `bytes` received at host time `now`; outputs for every frame completed by these
    /// bytes are appended to `out` in stream order. Bytes of an unfinished frame are kept for the
    /// next call. Never panics, whatever the bytes.
    fn push(&mut self, bytes: &[u8], now: Timestamp, out: &mut Vec<DecodeOutput>);

    /// The stream was broken (the connection dropped, or the recording ended): anything still
    /// buffered is reported as a rejection, and framing starts afresh. Protocol state that
    /// outlives a connection (the last report sequence, cards already accepted) is kept, because
    /// a device may retransmit after reconnecting.
    fn finish(&mut self, now: Timestamp, out: &mut Vec<DecodeOutput>);

    /// The `seq` the next table event will get.
    fn next_event_seq(&self) -> u64;
}

/// The other direction, for simulators and tests: canonical events to the device's bytes. A
/// simulator that deals an honest shoe as table events drives a device protocol through this, and
/// injects faults (garbage between frames, a frame sent twice, [`Encoder::corrupt_checksum`]).
pub trait Encoder: Send {
    /// The protocol's configuration name.
    fn protocol(&self) -> &'static str;

    /// The bytes a device of this protocol sends for `event`, or `None` when the protocol cannot
    /// express it (an Angel Eye shoe knows nothing of cuts; a barcode scanner has no results).
    /// The device's own sequence numbers advance with every frame produced.
    fn encode(&mut self, event: &TableEvent) -> Option<Vec<u8>>;

    /// Damages the checksum of `frame` (one this encoder produced) so a decoder rejects it;
    /// `false` when the protocol has no checksum.
    fn corrupt_checksum(&self, frame: &mut [u8]) -> bool;
}

/// Decodes `bytes` all at once and returns the outputs (a convenience for tests and tools).
pub fn decode_all(decoder: &mut dyn Decoder, bytes: &[u8], now: Timestamp) -> Vec<DecodeOutput> {
    let mut out = Vec::new();
    decoder.push(bytes, now, &mut out);
    decoder.finish(now, &mut out);
    out
}

/// What one frame (or one run of unusable bytes) amounted to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecodeOutput {
    /// A well-formed frame that was accepted.
    Accepted(Accepted),
    /// Bytes that were not accepted, with the reason.
    Rejected(Rejection),
}

impl DecodeOutput {
    /// The table events of an accepted frame (none for a rejection).
    pub fn events(&self) -> &[TableEvent] {
        match self {
            DecodeOutput::Accepted(accepted) => &accepted.events,
            DecodeOutput::Rejected(_) => &[],
        }
    }

    /// The rejection, if this is one.
    pub fn rejection(&self) -> Option<&Rejection> {
        match self {
            DecodeOutput::Accepted(_) => None,
            DecodeOutput::Rejected(rejection) => Some(rejection),
        }
    }

    /// The raw bytes this output accounts for.
    pub fn bytes(&self) -> &[u8] {
        match self {
            DecodeOutput::Accepted(accepted) => &accepted.frame,
            DecodeOutput::Rejected(rejection) => &rejection.bytes,
        }
    }
}

/// An accepted frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Accepted {
    /// Host receive time of the chunk that completed the frame.
    pub at: Timestamp,
    /// The frame's bytes exactly as received.
    pub frame: FrameBytes,
    /// The device's own sequence number for the frame, when the protocol has one.
    pub device_seq: Option<u64>,
    /// The canonical events the frame produced, already numbered; often one, sometimes none.
    pub events: Vec<TableEvent>,
    /// What the frame said that is not a table event (acknowledgements, identity, heartbeats,
    /// a gap in the device's sequence numbers); usually empty.
    pub notices: Vec<Notice>,
}

/// The bytes of one accepted frame. Most frames are short (an Angel Eye card report is 8 bytes, a
/// barcode line 4), so up to [`FrameBytes::INLINE`] bytes are kept inline: decoding a stream of
/// short frames then allocates once per frame less, which is what keeps the decoders far above
/// their throughput target.
#[derive(Clone, PartialEq, Eq)]
pub struct FrameBytes(FrameRepr);

#[derive(Clone, PartialEq, Eq)]
enum FrameRepr {
    Inline {
        len: u8,
        bytes: [u8; FrameBytes::INLINE],
    },
    Heap(Vec<u8>),
}

impl FrameBytes {
    /// Frames up to this long are stored without allocating.
    pub const INLINE: usize = 22;

    /// A copy of `bytes`.
    pub fn new(bytes: &[u8]) -> Self {
        if bytes.len() <= Self::INLINE {
            let mut inline = [0u8; Self::INLINE];
            inline[..bytes.len()].copy_from_slice(bytes);
            FrameBytes(FrameRepr::Inline {
                len: bytes.len() as u8,
                bytes: inline,
            })
        } else {
            FrameBytes(FrameRepr::Heap(bytes.to_vec()))
        }
    }

    /// The bytes.
    pub fn as_slice(&self) -> &[u8] {
        match &self.0 {
            FrameRepr::Inline { len, bytes } => &bytes[..usize::from(*len)],
            FrameRepr::Heap(bytes) => bytes,
        }
    }
}

impl std::ops::Deref for FrameBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        self.as_slice()
    }
}

impl fmt::Debug for FrameBytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "FrameBytes({:?})", escape_bytes(self))
    }
}

impl From<&[u8]> for FrameBytes {
    fn from(bytes: &[u8]) -> Self {
        FrameBytes::new(bytes)
    }
}

/// Information carried by an accepted frame that has no table event of its own. The store
/// journals these so every frame is accounted for; the monitor uses some (acknowledgements,
/// identity, sequence gaps).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    /// The device (re)started communication (Angel Eye `S`).
    CommunicationStarted,
    /// The device went to stand-by (Angel Eye `P`).
    Standby,
    /// The device acknowledged the last host command.
    Ack,
    /// The device refused the last host command.
    Nak {
        /// The device's refusal code.
        code: u8,
        /// What the code means.
        text: &'static str,
    },
    /// A response frame to a host command, with its data as text.
    Response {
        /// The response data (bytes that are not printable ASCII are shown as `\xNN`).
        data: String,
    },
    /// A device setting changed (Angel Eye `M`).
    PresetChanged {
        /// The setting's address.
        address: String,
        /// Its new value.
        value: String,
    },
    /// The device introduced itself.
    Hello(DeviceIdentity),
    /// The device is alive and has nothing to report.
    Heartbeat,
    /// A shuffler began a shuffle; `shuffled` follows when it completes.
    ShuffleStarted {
        /// Decks being shuffled, when said.
        decks: Option<u8>,
    },
    /// The device's sequence number skipped: frames were lost between device and host.
    SequenceGap {
        /// The sequence number the host expected.
        expected: u64,
        /// The one that arrived.
        received: u64,
    },
}

/// Who a device says it is; the store keeps this with every record of the device.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct DeviceIdentity {
    /// The device's role: `shoe`, `shuffler` or `console`.
    pub role: String,
    /// Maker.
    pub make: String,
    /// Model.
    pub model: String,
    /// Serial number.
    pub serial: String,
    /// Firmware version.
    pub firmware: String,
    /// Protocol version the device speaks.
    pub protocol_version: u32,
}

/// Bytes that did not count, with why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    /// Host receive time of the chunk in which the rejection was decided.
    pub at: Timestamp,
    /// The kind of fault, for grouping and alerting.
    pub kind: RejectKind,
    /// What exactly was wrong, in a sentence.
    pub reason: String,
    /// The rejected bytes (withheld when they would reveal confidential card order).
    pub bytes: Vec<u8>,
}

/// The kind of a rejection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RejectKind {
    /// Bytes outside any frame, skipped while hunting for the next frame.
    Garbage,
    /// A complete frame whose checksum does not match.
    BadChecksum,
    /// A frame whose structure or content breaks the protocol.
    Malformed,
    /// A frame that repeats one already processed (same sequence, or a repeated scan).
    Duplicate,
    /// A frame whose sequence number goes backwards.
    OutOfOrder,
    /// A partial frame that grew past the protocol's length limit.
    TooLong,
    /// A partial frame cut off by a new frame or by the end of the stream.
    Truncated,
    /// A frame of a protocol version or message type this codec does not know.
    Unsupported,
    /// A frame the device must never send (a shuffler transmitting card identities or order).
    Forbidden,
}

impl RejectKind {
    /// A stable lower-case code for logs and the store.
    pub const fn as_str(self) -> &'static str {
        match self {
            RejectKind::Garbage => "garbage",
            RejectKind::BadChecksum => "bad_checksum",
            RejectKind::Malformed => "malformed",
            RejectKind::Duplicate => "duplicate",
            RejectKind::OutOfOrder => "out_of_order",
            RejectKind::TooLong => "too_long",
            RejectKind::Truncated => "truncated",
            RejectKind::Unsupported => "unsupported",
            RejectKind::Forbidden => "forbidden",
        }
    }
}

impl fmt::Display for RejectKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Numbers the table events of one stream: the host assigns `seq`, starting at 1 (or where a
/// restarted monitor left off) and increasing by one per event.
#[derive(Debug, Clone)]
pub struct EventNumbering {
    next: u64,
}

impl Default for EventNumbering {
    fn default() -> Self {
        EventNumbering { next: 1 }
    }
}

impl EventNumbering {
    /// Numbering that starts at `first` (at least 1).
    pub fn starting_at(first: u64) -> Self {
        EventNumbering { next: first.max(1) }
    }

    /// The next event of `kind` at time `at`.
    pub fn event(&mut self, kind: EventKind, at: Timestamp) -> TableEvent {
        let seq = self.next;
        self.next = self.next.saturating_add(1);
        TableEvent::new(seq, kind).at(at)
    }

    /// The `seq` the next event will get.
    pub fn peek(&self) -> u64 {
        self.next
    }
}

/// Bytes shown for people: printable ASCII as is, everything else as `\xNN`.
pub fn escape_bytes(bytes: &[u8]) -> String {
    let mut text = String::with_capacity(bytes.len());
    for &b in bytes {
        if (0x20..0x7f).contains(&b) && b != b'\\' {
            text.push(b as char);
        } else {
            text.push_str(&format!("\\x{b:02X}"));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbering_starts_at_one_and_increases() {
        let at = Timestamp::from_unix_millis(0).unwrap();
        let mut numbering = EventNumbering::default();
        assert_eq!(numbering.event(EventKind::BetsClosed, at).seq, 1);
        assert_eq!(numbering.event(EventKind::BetsClosed, at).seq, 2);
        assert_eq!(numbering.peek(), 3);
        assert_eq!(EventNumbering::starting_at(0).peek(), 1);
        assert_eq!(EventNumbering::starting_at(41).peek(), 41);
    }

    #[test]
    fn frame_bytes_keep_short_and_long_frames() {
        for len in [0, 1, FrameBytes::INLINE, FrameBytes::INLINE + 1, 300] {
            let bytes: Vec<u8> = (0..len).map(|i| i as u8).collect();
            assert_eq!(FrameBytes::new(&bytes).as_slice(), &bytes[..]);
        }
        assert_eq!(FrameBytes::new(b"\x05A"), FrameBytes::from(&b"\x05A"[..]));
        assert_eq!(
            format!("{:?}", FrameBytes::new(b"\x05A")),
            "FrameBytes(\"\\\\x05A\")"
        );
    }

    #[test]
    fn escaping_shows_control_bytes() {
        assert_eq!(escape_bytes(b"\x05AB\x03\\"), "\\x05AB\\x03\\x5C");
    }
}
