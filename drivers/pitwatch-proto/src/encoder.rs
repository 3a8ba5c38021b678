//! Canonical events to Pitwatch-protocol lines ([`ProtoEncoder`]): what the simulator sends and
//! device makers test against, one message per event kind.

use pitwatch_codec::DeviceIdentity;

use crate::message::{corrupt_checksum, DeckCheck, Message, MessageEncoder};

/// Canonical events to Pitwatch-protocol lines, for the simulator and for device makers' tests.
/// Every event kind has a message; `shuffled` becomes `SHUFFLE_DONE`, taking the deck check from
/// the extra fields `expected_cards`, `missing_cards`, `extra_cards` and `foreign_cards` when
/// present (a clean check otherwise).
#[derive(Debug, Clone, Default)]
pub struct ProtoEncoder {
    messages: MessageEncoder,
}

impl ProtoEncoder {
    /// An encoder whose first line has sequence number 1.
    pub fn new() -> Self {
        Self::default()
    }

    /// The `HELLO` line for `identity` (it restarts the sequence at 1).
    pub fn hello(&mut self, identity: DeviceIdentity) -> Vec<u8> {
        self.messages.encode(&Message::Hello(identity))
    }

    /// The message for `event`, if there is one.
    pub fn message_for(event: &pitwatch_model::TableEvent) -> Option<Message> {
        use pitwatch_model::EventKind;
        let extra = |key: &str| {
            event
                .extra
                .get(key)
                .and_then(serde_json::Value::as_u64)
                .and_then(|n| u32::try_from(n).ok())
        };
        Some(match &event.kind {
            EventKind::DeckChecked {
                decks,
                cards,
                expected,
                missing,
                extra,
                foreign,
                shuffler,
            } => Message::ShuffleCompleted(DeckCheck {
                decks: *decks,
                cards: *cards,
                expected: *expected,
                missing: *missing,
                extra: *extra,
                foreign: *foreign,
                mode: *shuffler,
            }),
            EventKind::Shuffled {
                decks,
                cards,
                shuffler,
            } => {
                let cards = cards.or_else(|| decks.map(|d| u32::from(d) * 52))?;
                Message::ShuffleCompleted(DeckCheck {
                    decks: *decks,
                    cards,
                    expected: extra("expected_cards").unwrap_or(cards),
                    missing: extra("missing_cards").unwrap_or(0),
                    extra: extra("extra_cards").unwrap_or(0),
                    foreign: extra("foreign_cards").unwrap_or(0),
                    mode: *shuffler,
                })
            }
            EventKind::Cut { position } => Message::Cut {
                position: *position,
            },
            EventKind::CuttingCardPlaced { from_back } => Message::CuttingCardPlaced {
                from_back: *from_back,
            },
            EventKind::CardDrawn {
                card,
                target,
                index,
                face_up,
                retransmit,
            } => Message::Card {
                card: *card,
                target: *target,
                index: *index,
                face_up: *face_up,
                retransmit: *retransmit == Some(true),
            },
            EventKind::CuttingCardDrawn => Message::CuttingCardDrawn,
            EventKind::BurnCounted { count } => Message::BurnCounted { count: *count },
            EventKind::ResultDeclared {
                outcome,
                player_pair,
                banker_pair,
            } => Message::Result {
                outcome: *outcome,
                player_pair: *player_pair,
                banker_pair: *banker_pair,
            },
            EventKind::CardExposed { card, during } => Message::CardExposed {
                card: *card,
                during: *during,
            },
            EventKind::DeviceError { code, text } => Message::Error {
                code: code.clone(),
                text: text.clone(),
            },
            EventKind::DeviceErrorCleared { code } => Message::ErrorCleared { code: code.clone() },
            EventKind::LockChanged { locked } => Message::Lock { locked: *locked },
            EventKind::TableStateChanged { state } => Message::Table { state: *state },
            EventKind::CardsReplaced => Message::CardsReplaced,
            EventKind::BetsClosed => Message::BetsClosed,
            EventKind::Decision {
                target,
                hand,
                action,
            } => Message::Decision {
                target: *target,
                hand: *hand,
                action: *action,
            },
            EventKind::PlayerActed { target, action } => Message::PlayerActed {
                target: *target,
                action: *action,
            },
            EventKind::MisdealDeclared {
                reason,
                seats,
                ruling,
            } => Message::Misdeal {
                reason: *reason,
                seats: seats.clone(),
                ruling: *ruling,
            },
            EventKind::ShuffleStarted { decks, cycle } => Message::ShuffleStarted {
                decks: *decks,
                cycle: *cycle,
            },
            EventKind::ShufflerCounters {
                cycles,
                recognition_errors,
                malfunctions,
            } => Message::Status {
                cycles: *cycles,
                recognition_errors: *recognition_errors,
                malfunctions: *malfunctions,
            },
            EventKind::ShuffleStep { step } => Message::ShuffleStep { step: *step },
            EventKind::DealerSignedIn { dealer } => Message::Dealer {
                signed_in: true,
                name: dealer.clone(),
            },
            EventKind::DealerSignedOut { dealer } => Message::Dealer {
                signed_in: false,
                name: dealer.clone(),
            },
        })
    }
}

impl pitwatch_codec::Encoder for ProtoEncoder {
    fn protocol(&self) -> &'static str {
        crate::PROTOCOL
    }

    fn encode(&mut self, event: &pitwatch_model::TableEvent) -> Option<Vec<u8>> {
        Self::message_for(event).map(|message| self.messages.encode(&message))
    }

    fn corrupt_checksum(&self, frame: &mut [u8]) -> bool {
        corrupt_checksum(frame);
        frame.contains(&b'*')
    }
}
