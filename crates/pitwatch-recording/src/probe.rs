//! A connection test: one device's link opened and read for a few seconds, before anything is
//! saved, with every frame decoded by the device's protocol and shown accepted (its events in
//! words) or rejected (the codec's reason). Nothing is recorded: it is the administrator's check
//! that the port, the line settings and the protocol are right.
//!
//! The port is opened by the transport crate, as the monitor's readers open theirs; the bytes go
//! through the protocol's screen first, so a shuffled deck's order is withheld here as on record
//! (PROTOCOL.md §6).

use std::sync::mpsc::RecvTimeoutError;
use std::sync::Arc;
use std::time::{Duration, Instant};

use pitwatch_codec::{DecodeOutput, Notice};
use pitwatch_model::Timestamp;
use pitwatch_protocols::ProtocolConfig;
use pitwatch_transport::{Clock, DeviceConfig, TransportEvent};

use crate::report::describe;

/// The longest test: a test holds the port, which no table may use meanwhile.
pub const LONGEST: Duration = Duration::from_secs(30);

/// Frames kept for the report; a flooding device is counted beyond them, not kept.
const FRAMES_KEPT: usize = 200;

/// One frame (or run of unusable bytes) read during the test.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeFrame {
    /// When its last byte arrived.
    pub at: Timestamp,
    /// Whether the protocol accepted it.
    pub accepted: bool,
    /// What it said, in words: its events, or what else it was (a heartbeat, the device's
    /// identity); for a rejection, the codec's reason.
    pub text: String,
    /// Its bytes as read (withheld bytes as the screen left them).
    pub bytes: Vec<u8>,
}

/// What a connection test saw.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ProbeReport {
    /// The link, in words (`serial /dev/ttyUSB0 at 9600 8N1`).
    pub link: String,
    /// When the link opened, if it did.
    pub connected_at: Option<Timestamp>,
    /// Why opening failed or the link dropped, in order (empty when it opened and stayed up).
    pub problems: Vec<String>,
    /// Bytes read.
    pub bytes: u64,
    /// Frames the protocol accepted.
    pub accepted: u64,
    /// Frames (or runs of bytes) it rejected.
    pub rejected: u64,
    /// The first frames, in order (at most 200).
    pub frames: Vec<ProbeFrame>,
    /// How long the test listened, in milliseconds.
    pub listened_ms: u64,
}

impl ProbeReport {
    /// A one-line verdict for the administrator.
    pub fn verdict(&self) -> String {
        match (self.connected_at, self.accepted, self.rejected) {
            (None, ..) => format!(
                "The link did not open: {}",
                self.problems
                    .last()
                    .map_or("no reason given", String::as_str)
            ),
            (Some(_), 0, 0) if self.bytes == 0 => {
                "The link opened but the device sent nothing while the test listened: check that \
                 it is switched on and dealing, or that a shoe sends only when cards are dealt."
                    .to_owned()
            }
            (Some(_), 0, _) => "The device sent bytes but no frame was accepted: check the \
                 protocol and the line settings (baud rate, parity)."
                .to_owned(),
            (Some(_), accepted, 0) => format!(
                "The device is talking: {accepted} frame{} accepted, none rejected.",
                plural(accepted)
            ),
            (Some(_), accepted, rejected) => format!(
                "The device is talking, with errors: {accepted} frame{} accepted, {rejected} \
                 rejected.",
                plural(accepted)
            ),
        }
    }
}

fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// A notice in words, for a frame that carried no event.
fn notice_words(notice: &Notice) -> String {
    match notice {
        Notice::CommunicationStarted => "The device started communicating".into(),
        Notice::Standby => "The device went to stand-by".into(),
        Notice::Ack => "The device acknowledged a command".into(),
        Notice::Nak { text, .. } => format!("The device refused a command: {text}"),
        Notice::Response { data } => format!("A response: {data}"),
        Notice::PresetChanged { address, value } => {
            format!("A device setting changed: {address} = {value}")
        }
        Notice::Hello(id) => format!(
            "The device introduced itself: {} {} {}, serial {}, firmware {}, protocol {}",
            id.role, id.make, id.model, id.serial, id.firmware, id.protocol_version
        ),
        Notice::Heartbeat => "A heartbeat".into(),
        Notice::ShuffleStarted { decks: Some(d) } => format!("A shuffle of {d} decks began"),
        Notice::ShuffleStarted { decks: None } => "A shuffle began".into(),
        Notice::SequenceGap { expected, received } => format!(
            "Frames were lost: the device's number {received} came where {expected} was due"
        ),
    }
}

fn frame(output: &DecodeOutput) -> ProbeFrame {
    match output {
        DecodeOutput::Accepted(a) => {
            let mut words: Vec<String> = a.events.iter().map(|e| describe(&e.kind)).collect();
            if words.is_empty() {
                words = a.notices.iter().map(notice_words).collect();
            }
            if words.is_empty() {
                words.push("A frame with nothing to record".into());
            }
            ProbeFrame {
                at: a.at,
                accepted: true,
                text: words.join("; "),
                bytes: a.frame.as_slice().to_vec(),
            }
        }
        DecodeOutput::Rejected(r) => ProbeFrame {
            at: r.at,
            accepted: false,
            text: r.reason.clone(),
            bytes: r.bytes.clone(),
        },
    }
}

/// Opens `link`, reads it for `listen` (at most [`LONGEST`]) and decodes what arrives with
/// `protocol`, times from `clock`. The link is tried once: a port that cannot be opened is the
/// report's problem, not a wait for the reconnect backoff. Never records anything.
pub fn probe(
    protocol: &ProtocolConfig,
    link: &DeviceConfig,
    listen: Duration,
    clock: Arc<dyn Clock>,
) -> ProbeReport {
    let listen = listen.min(LONGEST);
    let mut report = ProbeReport {
        link: link.transport.describe(),
        ..ProbeReport::default()
    };
    let started = Instant::now();
    let (handle, events) = match pitwatch_transport::spawn_device(link, clock.clone()) {
        Ok(reader) => reader,
        Err(e) => {
            report.problems.push(e.to_string());
            return report;
        }
    };
    let mut screen = protocol.screen();
    let mut decoder = protocol.decoder(1);
    let mut out = Vec::new();
    let mut kept = Vec::new();
    let take = |outputs: &mut Vec<DecodeOutput>, report: &mut ProbeReport| {
        for output in outputs.drain(..) {
            match output {
                DecodeOutput::Accepted(_) => report.accepted += 1,
                DecodeOutput::Rejected(_) => report.rejected += 1,
            }
            if report.frames.len() < FRAMES_KEPT {
                report.frames.push(frame(&output));
            }
        }
    };
    while let Some(left) = listen.checked_sub(started.elapsed()) {
        match events.recv_timeout(left) {
            Ok(TransportEvent::Connected { at, .. }) => {
                report.connected_at.get_or_insert(at);
            }
            Ok(TransportEvent::Chunk { received_at, bytes }) => {
                report.bytes += bytes.len() as u64;
                let bytes = match screen.as_mut() {
                    Some(screen) => {
                        kept.clear();
                        screen.push(&bytes, &mut kept);
                        std::mem::take(&mut kept)
                    }
                    None => bytes,
                };
                decoder.push(&bytes, received_at, &mut out);
                take(&mut out, &mut report);
            }
            Ok(TransportEvent::Disconnected { reason, .. }) => {
                report.problems.push(format!("the link dropped: {reason}"));
                break;
            }
            Ok(TransportEvent::ConnectFailed { reason, .. }) => {
                report.problems.push(reason);
                break;
            }
            Err(RecvTimeoutError::Timeout) => break,
            Err(RecvTimeoutError::Disconnected) => {
                report.problems.push("the device reader stopped".into());
                break;
            }
        }
    }
    handle.stop();
    if let Some(screen) = screen.as_mut() {
        kept.clear();
        screen.finish(&mut kept);
        if !kept.is_empty() {
            decoder.push(&kept, clock.now(), &mut out);
        }
    }
    decoder.finish(clock.now(), &mut out);
    take(&mut out, &mut report);
    report.listened_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    report
}
