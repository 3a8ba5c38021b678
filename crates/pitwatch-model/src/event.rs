//! The canonical table event: the one normalised stream every driver produces.
//!
//! An event is serialised as one flat JSON object (`docs/events.md` is the reference):
//! `event` names the kind, `seq` is the per-stream sequence number, `at` the optional RFC 3339 UTC
//! time, then the kind's own fields. Fields this version does not know are kept in
//! [`TableEvent::extra`] and written back out, so a newer producer's data is never dropped by an
//! older reader.
//!
//! Decoding is written by hand rather than derived so that every rejection names the event kind,
//! the field and what was expected; those messages reach users through `pitwatch events check`.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::card::Card;

mod values;

pub use values::{
    Action, ExposedDuring, MisdealReason, MisdealRuling, Outcome, PlayerAction, ShuffleStep,
    ShufflerKind, TableState, Target, Timestamp, WITHHELD_ERROR_CODE,
};

/// What happened, with the data of that kind of event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventKind {
    /// The cards were shuffled (a new shoe begins).
    Shuffled {
        /// Decks in the shuffled set, when known.
        decks: Option<u8>,
        /// Cards counted by a counting shuffler.
        cards: Option<u32>,
        /// What shuffled them.
        shuffler: Option<ShufflerKind>,
    },
    /// The player's cut: the cut card went in `position` cards from the front.
    Cut {
        /// Cards in front of the cut.
        position: u32,
    },
    /// The cutting card was placed with `from_back` cards behind it.
    CuttingCardPlaced {
        /// Cards behind the cutting card.
        from_back: u32,
    },
    /// A card left the shoe.
    CardDrawn {
        /// The card, or `None` when the device could not read it.
        card: Option<Card>,
        /// Where it went, when the device knows.
        target: Option<Target>,
        /// 1-based position in that hand, when the device knows.
        index: Option<u8>,
        /// Whether it was dealt face up, when known.
        face_up: Option<bool>,
        /// The device marked it as a retransmission of an earlier report.
        retransmit: Option<bool>,
    },
    /// The cutting card came out of the shoe.
    CuttingCardDrawn,
    /// The device counted the burn cards.
    BurnCounted {
        /// Number of burn cards.
        count: u32,
    },
    /// The dealer (or the shoe's result button) declared the round's result.
    ResultDeclared {
        /// The declared winner.
        outcome: Outcome,
        /// Declared Player pair, when reported.
        player_pair: Option<bool>,
        /// Declared Banker pair, when reported.
        banker_pair: Option<bool>,
    },
    /// A card was exposed outside the normal deal.
    CardExposed {
        /// The card, when known.
        card: Option<Card>,
        /// When it was exposed.
        during: ExposedDuring,
    },
    /// The device raised an error.
    DeviceError {
        /// The device's error code.
        code: String,
        /// What the code means.
        text: String,
    },
    /// The device cleared an error.
    DeviceErrorCleared {
        /// The code cleared.
        code: String,
    },
    /// The device was locked or unlocked.
    LockChanged {
        /// Whether it is now locked.
        locked: bool,
    },
    /// The table opened, closed or was left vacant.
    TableStateChanged {
        /// The new state.
        state: TableState,
    },
    /// The cards in play were replaced (Baccarat 7.10).
    CardsReplaced,
    /// "No more bets" (Baccarat 8.2).
    BetsClosed,
    /// A decision on a box's hand (Blackjack, Pontoon): what a card stream cannot show.
    Decision {
        /// The box (`box:N`).
        target: Target,
        /// The hand of the box, 1-based (2 or more only after a split), when known.
        hand: Option<u8>,
        /// What was decided.
        action: Action,
    },
    /// A poker player acted on their hand (a dealer console): what decides "substantial action".
    PlayerActed {
        /// The seat (`seat:N`).
        target: Target,
        /// What the player did.
        action: PlayerAction,
    },
    /// A supervisor declared a poker misdeal (or ruled on one) from the console.
    MisdealDeclared {
        /// The lettered paragraph of the misdeal rule.
        reason: MisdealReason,
        /// The seats affected (numbers from 1), ascending; empty when it is the whole hand.
        seats: Vec<u8>,
        /// The ruling.
        ruling: MisdealRuling,
    },
    /// A table's shuffler finished shuffling the cards for the next shoe, with its deck check.
    /// Unlike `shuffled`, no shoe begins: the card-reading shoe says when the cards are loaded,
    /// and the rules engine holds the check for that shoe.
    DeckChecked {
        /// Decks shuffled, when said.
        decks: Option<u8>,
        /// Cards counted.
        cards: u32,
        /// Cards expected for the decks loaded.
        expected: u32,
        /// Cards of those decks not found.
        missing: u32,
        /// Cards found more often than the decks hold.
        extra: u32,
        /// Cards that belong to none of the decks.
        foreign: u32,
        /// Batch or continuous, when said.
        shuffler: Option<ShufflerKind>,
    },
    /// A table's shuffler began shuffling. The shuffle is complete at the `deck_checked` (or,
    /// from a shuffler that starts the shoe itself, the `shuffled`) that follows; a shoe loaded
    /// while a started shuffle never completed, and a second start without a completion, are
    /// what the rules engine looks for.
    ShuffleStarted {
        /// Decks being shuffled, when said.
        decks: Option<u8>,
        /// The shuffler's own shuffle counter for this shuffle (its cycle count), when it keeps one.
        cycle: Option<u32>,
    },
    /// A shuffler's counters as it reports them (its status): what it counted over its life, for
    /// the table view and the record. A counter that goes back means the device was reset or
    /// replaced.
    ShufflerCounters {
        /// Shuffles (cycles) done.
        cycles: u32,
        /// Card-recognition errors logged, when it counts them.
        recognition_errors: Option<u32>,
        /// Malfunctions logged (jams, faults), when it counts them.
        malfunctions: Option<u32>,
    },
    /// A step of preparing the cards by hand before loading them (Pontoon 6.4), entered at the
    /// console. A rule book that requires the steps (`shuffle_steps`) flags a load not preceded
    /// by all of them, in order.
    ShuffleStep {
        /// Which step.
        step: ShuffleStep,
    },
    /// A dealer signed in at the table (at a dealer console, or entered by a supervisor): the
    /// rounds, shoes and irregularities from here on are attributed to them until they sign out
    /// or another dealer signs in. Not a card: the rules engines accept it and judge nothing.
    DealerSignedIn {
        /// The dealer's name (untrusted text, recorded exactly as given; never blank).
        dealer: String,
    },
    /// A dealer signed out of the table.
    DealerSignedOut {
        /// The dealer's name (untrusted text, recorded exactly as given; never blank).
        dealer: String,
    },
}

/// The longest dealer name an event may carry, in characters: a name, not a note.
pub const MAX_DEALER_NAME: usize = 80;

impl EventKind {
    /// Every event name, in documentation order.
    pub const NAMES: &'static [&'static str] = &[
        "shuffled",
        "cut",
        "cutting_card_placed",
        "card_drawn",
        "cutting_card_drawn",
        "burn_counted",
        "result_declared",
        "card_exposed",
        "device_error",
        "device_error_cleared",
        "lock_changed",
        "table_state_changed",
        "cards_replaced",
        "bets_closed",
        "decision",
        "player_acted",
        "misdeal_declared",
        "deck_checked",
        "shuffle_started",
        "shuffler_counters",
        "shuffle_step",
        "dealer_signed_in",
        "dealer_signed_out",
    ];

    /// The event's name (the `event` field).
    pub const fn name(&self) -> &'static str {
        match self {
            EventKind::Shuffled { .. } => "shuffled",
            EventKind::Cut { .. } => "cut",
            EventKind::CuttingCardPlaced { .. } => "cutting_card_placed",
            EventKind::CardDrawn { .. } => "card_drawn",
            EventKind::CuttingCardDrawn => "cutting_card_drawn",
            EventKind::BurnCounted { .. } => "burn_counted",
            EventKind::ResultDeclared { .. } => "result_declared",
            EventKind::CardExposed { .. } => "card_exposed",
            EventKind::DeviceError { .. } => "device_error",
            EventKind::DeviceErrorCleared { .. } => "device_error_cleared",
            EventKind::LockChanged { .. } => "lock_changed",
            EventKind::TableStateChanged { .. } => "table_state_changed",
            EventKind::CardsReplaced => "cards_replaced",
            EventKind::BetsClosed => "bets_closed",
            EventKind::Decision { .. } => "decision",
            EventKind::PlayerActed { .. } => "player_acted",
            EventKind::MisdealDeclared { .. } => "misdeal_declared",
            EventKind::DeckChecked { .. } => "deck_checked",
            EventKind::ShuffleStarted { .. } => "shuffle_started",
            EventKind::ShufflerCounters { .. } => "shuffler_counters",
            EventKind::ShuffleStep { .. } => "shuffle_step",
            EventKind::DealerSignedIn { .. } => "dealer_signed_in",
            EventKind::DealerSignedOut { .. } => "dealer_signed_out",
        }
    }

    /// A plain card draw with nothing but the card (a reading shoe that knows no targets).
    pub const fn card(card: Card) -> EventKind {
        EventKind::CardDrawn {
            card: Some(card),
            target: None,
            index: None,
            face_up: None,
            retransmit: None,
        }
    }
}

/// One event of a table's stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableEvent {
    /// Per-stream sequence number, strictly increasing within a stream.
    pub seq: u64,
    /// When it happened, if the producer knows.
    pub at: Option<Timestamp>,
    /// What happened.
    pub kind: EventKind,
    /// Fields this version does not know, kept so they are written back out unchanged.
    pub extra: Map<String, Value>,
}

impl TableEvent {
    /// An event with no time and no extra fields.
    pub fn new(seq: u64, kind: EventKind) -> Self {
        TableEvent {
            seq,
            at: None,
            kind,
            extra: Map::new(),
        }
    }

    /// The same event with time `at`.
    pub fn at(mut self, at: Timestamp) -> Self {
        self.at = Some(at);
        self
    }

    /// Decodes one event object. `default_seq` is used when the object has no `seq` (the reader
    /// passes the line number); with `None`, a missing `seq` is an error.
    pub fn from_json(value: Value, default_seq: Option<u64>) -> Result<Self, EventLineError> {
        let Value::Object(map) = value else {
            return Err(EventLineError::NotAnObject);
        };
        let mut fields = Fields { map, event: "" };
        let name = match fields.map.remove("event") {
            None => return Err(EventLineError::MissingEvent),
            Some(Value::String(name)) => name,
            Some(other) => {
                return Err(EventLineError::BadEventName(other.to_string()));
            }
        };
        let Some(&event) = EventKind::NAMES.iter().find(|n| **n == name) else {
            return Err(EventLineError::UnknownEvent(name));
        };
        fields.event = event;
        let seq = match fields.map.remove("seq") {
            None | Some(Value::Null) => default_seq.ok_or(EventLineError::MissingSeq)?,
            Some(value) => value.as_u64().ok_or_else(|| {
                EventLineError::BadSeq(format!("{value} is not a whole number of 0 or more"))
            })?,
        };
        let at = fields.optional("at", |v| match v {
            Value::String(s) => s.parse::<Timestamp>(),
            other => Err(format!("{other} is not a time string")),
        })?;
        let kind = match event {
            "shuffled" => EventKind::Shuffled {
                decks: fields.optional("decks", small_number(1, 255))?,
                cards: fields.optional("cards", number)?,
                shuffler: fields.optional("shuffler", parsed)?,
            },
            "cut" => EventKind::Cut {
                position: fields.required("position", number)?,
            },
            "cutting_card_placed" => EventKind::CuttingCardPlaced {
                from_back: fields.required("from_back", number)?,
            },
            "card_drawn" => {
                let card = match fields.map.remove("card") {
                    None => {
                        return Err(fields.missing("card", "the card, or null when unreadable"));
                    }
                    Some(Value::Null) => None,
                    Some(v) => {
                        Some(parsed::<Card>(v).map_err(|reason| fields.bad("card", reason))?)
                    }
                };
                EventKind::CardDrawn {
                    card,
                    target: fields.optional("target", parsed)?,
                    index: fields.optional("index", small_number(1, 255))?,
                    face_up: fields.optional("face_up", boolean)?,
                    retransmit: fields.optional("retransmit", boolean)?,
                }
            }
            "cutting_card_drawn" => EventKind::CuttingCardDrawn,
            "burn_counted" => EventKind::BurnCounted {
                count: fields.required("count", number)?,
            },
            "result_declared" => EventKind::ResultDeclared {
                outcome: fields.required("outcome", parsed)?,
                player_pair: fields.optional("player_pair", boolean)?,
                banker_pair: fields.optional("banker_pair", boolean)?,
            },
            "card_exposed" => EventKind::CardExposed {
                card: fields.optional("card", parsed)?,
                during: fields.required("during", parsed)?,
            },
            "device_error" => EventKind::DeviceError {
                code: fields.required("code", code)?,
                text: fields.required("text", text)?,
            },
            "device_error_cleared" => EventKind::DeviceErrorCleared {
                code: fields.required("code", code)?,
            },
            "lock_changed" => EventKind::LockChanged {
                locked: fields.required("locked", boolean)?,
            },
            "table_state_changed" => EventKind::TableStateChanged {
                state: fields.required("state", parsed)?,
            },
            "cards_replaced" => EventKind::CardsReplaced,
            "bets_closed" => EventKind::BetsClosed,
            "decision" => EventKind::Decision {
                target: fields.required("target", parsed)?,
                hand: fields.optional("hand", small_number(1, 255))?,
                action: fields.required("action", parsed)?,
            },
            "player_acted" => EventKind::PlayerActed {
                target: fields.required("target", parsed)?,
                action: fields.required("action", parsed)?,
            },
            "misdeal_declared" => EventKind::MisdealDeclared {
                reason: fields.required("reason", parsed)?,
                seats: fields.optional("seats", seats)?.unwrap_or_default(),
                ruling: fields.required("ruling", parsed)?,
            },
            "deck_checked" => EventKind::DeckChecked {
                decks: fields.optional("decks", small_number(1, 255))?,
                cards: fields.required("cards", number)?,
                expected: fields.required("expected", number)?,
                missing: fields.required("missing", number)?,
                extra: fields.required("extra", number)?,
                foreign: fields.required("foreign", number)?,
                shuffler: fields.optional("shuffler", parsed)?,
            },
            "shuffle_started" => EventKind::ShuffleStarted {
                decks: fields.optional("decks", small_number(1, 255))?,
                cycle: fields.optional("cycle", number)?,
            },
            "shuffler_counters" => EventKind::ShufflerCounters {
                cycles: fields.required("cycles", number)?,
                recognition_errors: fields.optional("recognition_errors", number)?,
                malfunctions: fields.optional("malfunctions", number)?,
            },
            "shuffle_step" => EventKind::ShuffleStep {
                step: fields.required("step", parsed)?,
            },
            "dealer_signed_in" => EventKind::DealerSignedIn {
                dealer: fields.required("dealer", dealer_name)?,
            },
            "dealer_signed_out" => EventKind::DealerSignedOut {
                dealer: fields.required("dealer", dealer_name)?,
            },
            _ => unreachable!("every name in EventKind::NAMES is matched above"),
        };
        Ok(TableEvent {
            seq,
            at,
            kind,
            extra: fields.map,
        })
    }

    /// The event as one flat JSON object: `event`, `seq`, `at`, the kind's fields, then the
    /// unknown fields that were read with it.
    pub fn to_json(&self) -> Map<String, Value> {
        let mut map = Map::new();
        map.insert("event".into(), self.kind.name().into());
        map.insert("seq".into(), self.seq.into());
        if let Some(at) = self.at {
            map.insert("at".into(), at.to_string().into());
        }
        let mut put = |key: &str, value: Value| {
            map.insert(key.to_owned(), value);
        };
        fn opt<T: Into<Value>>(v: Option<T>) -> Option<Value> {
            v.map(Into::into)
        }
        fn text<T: ToString>(v: T) -> Value {
            Value::String(v.to_string())
        }
        let mut maybe = |key: &str, value: Option<Value>| {
            if let Some(value) = value {
                put(key, value);
            }
        };
        match &self.kind {
            EventKind::Shuffled {
                decks,
                cards,
                shuffler,
            } => {
                maybe("decks", opt(*decks));
                maybe("cards", opt(*cards));
                maybe("shuffler", shuffler.map(text));
            }
            EventKind::Cut { position } => maybe("position", opt(Some(*position))),
            EventKind::CuttingCardPlaced { from_back } => maybe("from_back", opt(Some(*from_back))),
            EventKind::CardDrawn {
                card,
                target,
                index,
                face_up,
                retransmit,
            } => {
                maybe("card", Some(card.map_or(Value::Null, text)));
                maybe("target", target.map(text));
                maybe("index", opt(*index));
                maybe("face_up", opt(*face_up));
                maybe("retransmit", opt(*retransmit));
            }
            EventKind::CuttingCardDrawn | EventKind::CardsReplaced | EventKind::BetsClosed => {}
            EventKind::BurnCounted { count } => maybe("count", opt(Some(*count))),
            EventKind::ResultDeclared {
                outcome,
                player_pair,
                banker_pair,
            } => {
                maybe("outcome", Some(text(outcome)));
                maybe("player_pair", opt(*player_pair));
                maybe("banker_pair", opt(*banker_pair));
            }
            EventKind::CardExposed { card, during } => {
                maybe("card", card.map(text));
                maybe("during", Some(text(during)));
            }
            EventKind::DeviceError { code, text: t } => {
                maybe("code", Some(text(code)));
                maybe("text", Some(text(t)));
            }
            EventKind::DeviceErrorCleared { code } => maybe("code", Some(text(code))),
            EventKind::LockChanged { locked } => maybe("locked", opt(Some(*locked))),
            EventKind::TableStateChanged { state } => maybe("state", Some(text(state))),
            EventKind::Decision {
                target,
                hand,
                action,
            } => {
                maybe("target", Some(text(target)));
                maybe("hand", opt(*hand));
                maybe("action", Some(text(action)));
            }
            EventKind::PlayerActed { target, action } => {
                maybe("target", Some(text(target)));
                maybe("action", Some(text(action)));
            }
            EventKind::MisdealDeclared {
                reason,
                seats,
                ruling,
            } => {
                maybe("reason", Some(text(reason)));
                maybe(
                    "seats",
                    Some(Value::Array(seats.iter().map(|&s| s.into()).collect())),
                );
                maybe("ruling", Some(text(ruling)));
            }
            EventKind::DeckChecked {
                decks,
                cards,
                expected,
                missing,
                extra,
                foreign,
                shuffler,
            } => {
                maybe("decks", opt(*decks));
                for (key, value) in [
                    ("cards", cards),
                    ("expected", expected),
                    ("missing", missing),
                    ("extra", extra),
                    ("foreign", foreign),
                ] {
                    maybe(key, opt(Some(*value)));
                }
                maybe("shuffler", shuffler.map(text));
            }
            EventKind::ShuffleStarted { decks, cycle } => {
                maybe("decks", opt(*decks));
                maybe("cycle", opt(*cycle));
            }
            EventKind::ShufflerCounters {
                cycles,
                recognition_errors,
                malfunctions,
            } => {
                maybe("cycles", opt(Some(*cycles)));
                maybe("recognition_errors", opt(*recognition_errors));
                maybe("malfunctions", opt(*malfunctions));
            }
            EventKind::ShuffleStep { step } => maybe("step", Some(text(step))),
            EventKind::DealerSignedIn { dealer } | EventKind::DealerSignedOut { dealer } => {
                maybe("dealer", Some(text(dealer)));
            }
        }
        for (key, value) in &self.extra {
            map.entry(key.clone()).or_insert_with(|| value.clone());
        }
        map
    }

    /// The event as one line of JSON (no trailing newline).
    pub fn to_json_line(&self) -> String {
        Value::Object(self.to_json()).to_string()
    }
}

impl Serialize for TableEvent {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for TableEvent {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        TableEvent::from_json(value, None).map_err(serde::de::Error::custom)
    }
}

/// Why one line (one JSON object) is not a valid table event.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EventLineError {
    /// The text is not JSON.
    #[error("not valid JSON: {0}")]
    NotJson(String),
    /// The JSON is not an object.
    #[error("expected a JSON object {{\"event\": ...}}")]
    NotAnObject,
    /// No `event` field.
    #[error("missing \"event\" (the kind of event, e.g. \"card_drawn\")")]
    MissingEvent,
    /// `event` is not a string.
    #[error("\"event\" must be a string, found {0}")]
    BadEventName(String),
    /// `event` names no known kind.
    #[error("unknown event {0:?}")]
    UnknownEvent(String),
    /// No `seq` where one is required.
    #[error("missing \"seq\"")]
    MissingSeq,
    /// `seq` is not a non-negative integer, or does not increase.
    #[error("bad \"seq\": {0}")]
    BadSeq(String),
    /// A required field is absent.
    #[error("{event}: missing {field:?} ({expected})")]
    MissingField {
        /// The event kind.
        event: &'static str,
        /// The field.
        field: &'static str,
        /// What the field should hold.
        expected: &'static str,
    },
    /// A field holds something unusable.
    #[error("{event}: bad {field:?}: {reason}")]
    BadField {
        /// The event kind (empty for common fields).
        event: &'static str,
        /// The field.
        field: &'static str,
        /// What is wrong with it.
        reason: String,
    },
}

/// The fields of one object still to be read; what is left at the end is kept as `extra`.
struct Fields {
    map: Map<String, Value>,
    event: &'static str,
}

impl Fields {
    fn missing(&self, field: &'static str, expected: &'static str) -> EventLineError {
        EventLineError::MissingField {
            event: self.event,
            field,
            expected,
        }
    }

    fn bad(&self, field: &'static str, reason: String) -> EventLineError {
        EventLineError::BadField {
            event: self.event,
            field,
            reason,
        }
    }

    fn optional<T>(
        &mut self,
        field: &'static str,
        read: impl FnOnce(Value) -> Result<T, String>,
    ) -> Result<Option<T>, EventLineError> {
        match self.map.remove(field) {
            None | Some(Value::Null) => Ok(None),
            Some(value) => read(value).map(Some).map_err(|r| self.bad(field, r)),
        }
    }

    fn required<T>(
        &mut self,
        field: &'static str,
        read: impl FnOnce(Value) -> Result<T, String>,
    ) -> Result<T, EventLineError> {
        match self.optional(field, read)? {
            Some(value) => Ok(value),
            None => Err(self.missing(field, "required")),
        }
    }
}

fn number(value: Value) -> Result<u32, String> {
    value
        .as_u64()
        .and_then(|n| u32::try_from(n).ok())
        .ok_or_else(|| format!("{value} is not a whole number from 0 to {}", u32::MAX))
}

fn small_number(min: u8, max: u8) -> impl FnOnce(Value) -> Result<u8, String> {
    move |value| {
        value
            .as_u64()
            .and_then(|n| u8::try_from(n).ok())
            .filter(|n| (min..=max).contains(n))
            .ok_or_else(|| format!("{value} is not a whole number from {min} to {max}"))
    }
}

/// Seat numbers (1 to 255), each once, kept ascending.
fn seats(value: Value) -> Result<Vec<u8>, String> {
    let Value::Array(items) = value else {
        return Err(format!("{value} is not a list of seat numbers"));
    };
    let mut seats = Vec::with_capacity(items.len());
    for item in items {
        seats.push(small_number(1, 255)(item)?);
    }
    seats.sort_unstable();
    seats.dedup();
    Ok(seats)
}

fn boolean(value: Value) -> Result<bool, String> {
    value
        .as_bool()
        .ok_or_else(|| format!("{value} is not true or false"))
}

fn text(value: Value) -> Result<String, String> {
    match value {
        Value::String(s) => Ok(s),
        other => Err(format!("{other} is not a string")),
    }
}

/// A dealer's name: any text, kept exactly as given (`docs/untrusted-text.md`), but not blank and
/// not longer than [`MAX_DEALER_NAME`] characters.
fn dealer_name(value: Value) -> Result<String, String> {
    let name = text(value)?;
    check_dealer_name(&name)?;
    Ok(name)
}

/// Why `name` cannot name a dealer, if it cannot: blank, or longer than [`MAX_DEALER_NAME`]
/// characters. The one check every way in (an event file, the Pitwatch protocol, the console)
/// applies.
pub fn check_dealer_name(name: &str) -> Result<(), String> {
    if name.trim().is_empty() {
        return Err("a dealer's name cannot be blank".into());
    }
    let chars = name.chars().count();
    if chars > MAX_DEALER_NAME {
        return Err(format!(
            "a dealer's name is at most {MAX_DEALER_NAME} characters, not {chars}"
        ));
    }
    Ok(())
}

/// Device error codes are numbers on some devices and names on others; both are kept as text.
fn code(value: Value) -> Result<String, String> {
    match value {
        Value::String(s) if !s.is_empty() => Ok(s),
        Value::Number(n) => Ok(n.to_string()),
        other => Err(format!("{other} is not an error code (a number or a name)")),
    }
}

fn parsed<T: FromStr>(value: Value) -> Result<T, String>
where
    T::Err: fmt::Display,
{
    match value {
        Value::String(s) => s.parse::<T>().map_err(|e| e.to_string()),
        other => Err(format!("{other} is not a string")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn decode(value: Value) -> Result<TableEvent, EventLineError> {
        TableEvent::from_json(value, Some(1))
    }

    #[test]
    fn every_kind_round_trips_through_json() {
        let lines = [
            json!({"event":"shuffled","seq":1,"at":"2026-11-30T08:00:00Z","decks":8,"cards":416,"shuffler":"batch"}),
            json!({"event":"cut","seq":2,"position":140}),
            json!({"event":"cutting_card_placed","seq":3,"from_back":24}),
            json!({"event":"card_drawn","seq":4,"card":"TD","target":"first","index":1,"face_up":true}),
            json!({"event":"card_drawn","seq":5,"card":null,"target":"box:3","retransmit":true}),
            json!({"event":"cutting_card_drawn","seq":6}),
            json!({"event":"burn_counted","seq":7,"count":10}),
            json!({"event":"result_declared","seq":8,"outcome":"tie","player_pair":false,"banker_pair":true}),
            json!({"event":"card_exposed","seq":9,"card":"AS","during":"cutting"}),
            json!({"event":"device_error","seq":10,"code":"2","text":"overdraw"}),
            json!({"event":"device_error_cleared","seq":11,"code":"2"}),
            json!({"event":"lock_changed","seq":12,"locked":true}),
            json!({"event":"table_state_changed","seq":13,"state":"vacant"}),
            json!({"event":"cards_replaced","seq":14}),
            json!({"event":"bets_closed","seq":15}),
            json!({"event":"decision","seq":16,"target":"box:2","hand":1,"action":"double"}),
            json!({"event":"player_acted","seq":17,"target":"seat:3","action":"raise"}),
            json!({"event":"misdeal_declared","seq":18,"reason":"d","seats":[2,5],"ruling":"misdeal"}),
            json!({"event":"deck_checked","seq":19,"decks":8,"cards":415,"expected":416,"missing":1,"extra":0,"foreign":0,"shuffler":"batch"}),
            json!({"event":"shuffle_started","seq":20,"decks":8,"cycle":1041}),
            json!({"event":"shuffler_counters","seq":21,"cycles":1041,"recognition_errors":3,"malfunctions":1}),
            json!({"event":"shuffle_step","seq":22,"step":"stacking"}),
            json!({"event":"dealer_signed_in","seq":23,"dealer":"Mere Te Whatu"}),
            json!({"event":"dealer_signed_out","seq":24,"dealer":"Mere Te Whatu"}),
        ];
        let mut names = Vec::new();
        for line in lines {
            let event = decode(line.clone()).unwrap();
            names.push(event.kind.name());
            assert_eq!(Value::Object(event.to_json()), line);
        }
        names.dedup();
        assert_eq!(names, EventKind::NAMES);
    }

    #[test]
    fn unknown_fields_are_kept_and_written_back() {
        let line = json!({"event":"cut","seq":3,"position":52,"operator":"T. Ngata","x":[1,2]});
        let event = decode(line.clone()).unwrap();
        assert_eq!(event.extra.len(), 2);
        assert_eq!(Value::Object(event.to_json()), line);
    }

    #[test]
    fn ten_is_printed_as_t_and_times_as_utc() {
        let event =
            decode(json!({"event":"card_drawn","card":"10h","at":"2026-11-30T21:00:00+13:00"}))
                .unwrap();
        assert_eq!(
            event.to_json_line(),
            r#"{"event":"card_drawn","seq":1,"at":"2026-11-30T08:00:00Z","card":"TH"}"#
        );
    }

    #[test]
    fn errors_name_the_event_field_and_expectation() {
        let cases = [
            (json!([1]), "expected a JSON object"),
            (json!({"seq":1}), "missing \"event\""),
            (json!({"event":"deal"}), "unknown event \"deal\""),
            (json!({"event":"cut"}), "cut: missing \"position\""),
            (
                json!({"event":"cut","position":-1}),
                "cut: bad \"position\": -1 is not a whole number",
            ),
            (
                json!({"event":"card_drawn"}),
                "card_drawn: missing \"card\"",
            ),
            (
                json!({"event":"card_drawn","card":"1X"}),
                "card_drawn: bad \"card\": \"1X\" is not a card",
            ),
            (
                json!({"event":"card_drawn","card":"AS","target":"box:0"}),
                "the number must be 1 to 255",
            ),
            (
                json!({"event":"card_drawn","card":"AS","index":0}),
                "bad \"index\"",
            ),
            (
                json!({"event":"result_declared","outcome":"draw"}),
                "unknown outcome \"draw\"",
            ),
            (json!({"event":"cut","seq":"7","position":3}), "bad \"seq\""),
            (
                json!({"event":"dealer_signed_in"}),
                "dealer_signed_in: missing \"dealer\"",
            ),
            (
                json!({"event":"dealer_signed_in","dealer":" \t"}),
                "dealer_signed_in: bad \"dealer\": a dealer's name cannot be blank",
            ),
            (
                json!({"event":"dealer_signed_out","dealer":"x".repeat(81)}),
                "at most 80 characters, not 81",
            ),
            (
                json!({"event":"dealer_signed_out","dealer":7}),
                "7 is not a string",
            ),
            (
                json!({"event":"cut","position":3,"at":"yesterday"}),
                "not an RFC 3339 time",
            ),
        ];
        for (line, expected) in cases {
            let err = decode(line.clone()).unwrap_err().to_string();
            assert!(
                err.contains(expected),
                "{line}: got {err:?}, wanted {expected:?}"
            );
        }
    }

    #[test]
    fn device_error_codes_may_be_numbers() {
        let event =
            decode(json!({"event":"device_error","code":7,"text":"drawing time-out"})).unwrap();
        assert_eq!(
            event.kind,
            EventKind::DeviceError {
                code: "7".into(),
                text: "drawing time-out".into()
            }
        );
    }

    #[test]
    fn serde_requires_seq_outside_files() {
        assert!(serde_json::from_str::<TableEvent>(r#"{"event":"bets_closed"}"#).is_err());
        let event: TableEvent = serde_json::from_str(r#"{"event":"bets_closed","seq":9}"#).unwrap();
        assert_eq!(event.seq, 9);
        assert_eq!(
            serde_json::to_string(&event).unwrap(),
            r#"{"event":"bets_closed","seq":9}"#
        );
    }

    #[test]
    fn targets_parse_and_print() {
        for text in [
            "player", "banker", "first", "burn", "dealer", "box:7", "box:7.2", "box:1.1", "seat:10",
        ] {
            assert_eq!(text.parse::<Target>().unwrap().to_string(), text);
        }
        assert_eq!(
            "box:3.2".parse::<Target>(),
            Ok(Target::Hand { number: 3, hand: 2 })
        );
        assert_eq!(Target::Hand { number: 3, hand: 2 }.box_number(), Some(3));
        assert_eq!(Target::Box(3).hand(), None);
        for bad in [
            "box:",
            "box:3.",
            "box:3.0",
            "box:0.1",
            "box:3.2.1",
            "box:.2",
            "seat:3.2",
        ] {
            assert!(bad.parse::<Target>().is_err(), "{bad}");
        }
        assert!("table".parse::<Target>().is_err());
    }
}
