//! Every device protocol Pitwatch speaks, chosen by name from a device's configuration.
//!
//! The monitor keeps one decoder per device stream as `Box<dyn Decoder>`; this crate maps the
//! configured protocol (`angel-eye`, `barcode`, `pitwatch`) and its settings to that decoder, so
//! adding a protocol touches one enum here rather than the monitor. Like the codecs, it is pure.

use pitwatch_angel_eye::{AngelEyeConfig, AngelEyeDecoder, AngelEyeEncoder};
use pitwatch_barcode::{BarcodeConfig, BarcodeDecoder, BarcodeEncoder};
use pitwatch_codec::{Decoder, Encoder, Screen};
use pitwatch_proto::{ProtoConfig, ProtoDecoder, ProtoEncoder, ProtoScreen};
use serde::{Deserialize, Serialize};

pub use pitwatch_codec::{
    Accepted, DecodeOutput, DeviceIdentity, FrameBytes, Notice, RejectKind, Rejection,
};

/// A device's protocol and its settings, e.g. `{"protocol": "angel-eye", "command_bcc":
/// "include_start"}` or, in TOML, `protocol = "barcode"` with `repeat_window_ms = 250`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "protocol")]
pub enum ProtocolConfig {
    /// The Angel Eye II-EX shoe.
    #[serde(rename = "angel-eye")]
    AngelEye(AngelEyeConfig),
    /// A barcode card-reader shoe.
    #[serde(rename = "barcode")]
    Barcode(BarcodeConfig),
    /// The Pitwatch open protocol (shufflers, shoes, consoles).
    #[serde(rename = "pitwatch")]
    Pitwatch(ProtoConfig),
}

impl ProtocolConfig {
    /// The protocol names this build knows.
    pub const NAMES: [&'static str; 3] = [
        pitwatch_angel_eye::PROTOCOL,
        pitwatch_barcode::PROTOCOL,
        pitwatch_proto::PROTOCOL,
    ];

    /// The protocol's name.
    pub fn name(&self) -> &'static str {
        match self {
            ProtocolConfig::AngelEye(_) => pitwatch_angel_eye::PROTOCOL,
            ProtocolConfig::Barcode(_) => pitwatch_barcode::PROTOCOL,
            ProtocolConfig::Pitwatch(_) => pitwatch_proto::PROTOCOL,
        }
    }

    /// The protocol called `name` with default settings, if known.
    pub fn by_name(name: &str) -> Option<ProtocolConfig> {
        Some(match name {
            pitwatch_angel_eye::PROTOCOL => ProtocolConfig::AngelEye(AngelEyeConfig::default()),
            pitwatch_barcode::PROTOCOL => ProtocolConfig::Barcode(BarcodeConfig::default()),
            pitwatch_proto::PROTOCOL => ProtocolConfig::Pitwatch(ProtoConfig::default()),
            _ => return None,
        })
    }

    /// A decoder for this protocol whose first table event gets `seq` `first_seq` (1 for a new
    /// stream; one past the last stored event when a monitor resumes).
    pub fn decoder(&self, first_seq: u64) -> Box<dyn Decoder> {
        match *self {
            ProtocolConfig::AngelEye(config) => {
                Box::new(AngelEyeDecoder::starting_at(config, first_seq))
            }
            ProtocolConfig::Barcode(config) => {
                Box::new(BarcodeDecoder::starting_at(config, first_seq))
            }
            ProtocolConfig::Pitwatch(config) => {
                Box::new(ProtoDecoder::starting_at(config, first_seq))
            }
        }
    }

    /// The screen a connection of this protocol passes through before anything keeps its bytes
    /// (see [`Screen`]): only the Pitwatch protocol has lines that must never be kept (card order,
    /// and cards from a shuffler); the shoes' protocols carry nothing but what a shoe may send.
    pub fn screen(&self) -> Option<Box<dyn Screen>> {
        match *self {
            ProtocolConfig::AngelEye(_) | ProtocolConfig::Barcode(_) => None,
            ProtocolConfig::Pitwatch(config) => Some(Box::new(ProtoScreen::new(config))),
        }
    }

    /// An encoder that speaks this protocol as a device would (for the simulator).
    pub fn encoder(&self) -> Box<dyn Encoder> {
        match self {
            ProtocolConfig::AngelEye(_) => Box::new(AngelEyeEncoder::new()),
            ProtocolConfig::Barcode(_) => Box::new(BarcodeEncoder),
            ProtocolConfig::Pitwatch(_) => Box::new(ProtoEncoder::new()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pitwatch_model::{EventKind, Timestamp};

    #[test]
    fn every_protocol_is_found_by_name_and_decodes() {
        let now = Timestamp::from_unix_millis(0).unwrap();
        let samples: [&[u8]; 3] = [
            &pitwatch_angel_eye::encode_report(b'1', &pitwatch_angel_eye::Report::CuttingCardDrawn),
            b"511\r",
            &pitwatch_proto::encode(1, &pitwatch_proto::Message::CuttingCardDrawn),
        ];
        for (name, sample) in ProtocolConfig::NAMES.iter().zip(samples) {
            let config = ProtocolConfig::by_name(name).unwrap();
            assert_eq!(config.name(), *name);
            let mut decoder = config.decoder(41);
            assert_eq!(decoder.protocol(), *name);
            let outputs = pitwatch_codec::decode_all(decoder.as_mut(), sample, now);
            let events: Vec<_> = outputs.iter().flat_map(|o| o.events()).collect();
            assert_eq!(events.len(), 1, "{name}: {outputs:?}");
            assert_eq!(events[0].seq, 41);
            assert!(!matches!(events[0].kind, EventKind::BetsClosed));
        }
        assert_eq!(ProtocolConfig::by_name("morse"), None);
    }

    #[test]
    fn every_encoder_speaks_to_its_decoder() {
        let now = Timestamp::from_unix_millis(0).unwrap();
        let event = pitwatch_model::TableEvent::new(
            1,
            EventKind::CardDrawn {
                card: Some("9D".parse().unwrap()),
                target: Some(pitwatch_model::Target::Banker),
                index: Some(1),
                face_up: None,
                retransmit: None,
            },
        );
        for name in ProtocolConfig::NAMES {
            let config = ProtocolConfig::by_name(name).unwrap();
            let mut encoder = config.encoder();
            assert_eq!(encoder.protocol(), name);
            let bytes = encoder.encode(&event).unwrap();
            let outputs = pitwatch_codec::decode_all(config.decoder(1).as_mut(), &bytes, now);
            let events: Vec<_> = outputs.iter().flat_map(|o| o.events()).collect();
            assert_eq!(events.len(), 1, "{name}: {outputs:?}");
            assert!(
                matches!(events[0].kind, EventKind::CardDrawn { card: Some(c), .. } if c.to_string() == "9D"),
                "{name}: {:?}",
                events[0]
            );
        }
    }

    #[test]
    fn settings_are_read_from_configuration() {
        let config: ProtocolConfig = serde_json::from_str(
            r#"{"protocol":"angel-eye","receive_bcc":"include_start","command_bcc":"exclude_start"}"#,
        )
        .unwrap();
        assert_eq!(
            config,
            ProtocolConfig::AngelEye(AngelEyeConfig {
                receive_bcc: pitwatch_angel_eye::BccVariant::IncludeStart,
                command_bcc: pitwatch_angel_eye::BccVariant::ExcludeStart,
            })
        );
        let config: ProtocolConfig =
            serde_json::from_str(r#"{"protocol":"barcode","repeat_window_ms":250}"#).unwrap();
        assert_eq!(
            config,
            ProtocolConfig::Barcode(BarcodeConfig {
                repeat_window_ms: 250
            })
        );
        let config: ProtocolConfig =
            serde_json::from_str(r#"{"protocol":"pitwatch","role":"shuffler"}"#).unwrap();
        // Settings without a revision were recorded before revisions: read as revision 1, so
        // such a stream replays as it was decoded (PROTOCOL.md section 9).
        assert_eq!(
            config,
            ProtocolConfig::Pitwatch(ProtoConfig {
                role: Some(pitwatch_proto::Role::Shuffler),
                revision: 1,
                ..ProtoConfig::default()
            })
        );
        assert!(serde_json::from_str::<ProtocolConfig>(r#"{"protocol":"barcode","x":1}"#).is_err());
    }
}
