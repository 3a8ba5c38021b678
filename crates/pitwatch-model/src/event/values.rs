//! The values an event's fields hold: its time ([`Timestamp`]), where a card went ([`Target`]),
//! and the string-valued enums written by their wire names (outcomes, actions, shuffle steps,
//! table states…), each with `Display` and `FromStr` that name what was expected.

use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, SecondsFormat, Utc};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The `device_error` code of a line the host withheld before anything kept it because it may
/// carry card identities or a shuffled deck's order (the Pitwatch protocol's `WITHHELD`): the
/// rules engines raise it as `ORDER_DISCLOSED`, not as an ordinary device error.
pub const WITHHELD_ERROR_CODE: &str = "WITHHELD";

/// A point in time, always in UTC, printed in RFC 3339 with a `Z`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(DateTime<Utc>);

impl Timestamp {
    /// The timestamp `millis` milliseconds after the Unix epoch, if representable.
    pub fn from_unix_millis(millis: i64) -> Option<Timestamp> {
        DateTime::<Utc>::from_timestamp_millis(millis).map(Timestamp)
    }

    /// Milliseconds since the Unix epoch.
    pub fn unix_millis(self) -> i64 {
        self.0.timestamp_millis()
    }

    /// The underlying chrono value.
    pub fn as_datetime(self) -> DateTime<Utc> {
        self.0
    }
}

impl From<DateTime<Utc>> for Timestamp {
    fn from(value: DateTime<Utc>) -> Self {
        Timestamp(value)
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.to_rfc3339_opts(SecondsFormat::AutoSi, true))
    }
}

impl FromStr for Timestamp {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        DateTime::parse_from_rfc3339(s)
            .map(|t| Timestamp(t.with_timezone(&Utc)))
            .map_err(|e| {
                format!("{s:?} is not an RFC 3339 time ({e}), e.g. 2026-11-30T08:51:34.120Z")
            })
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// Where a drawn card went, when the device knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Target {
    /// Baccarat: the Player's hand.
    Player,
    /// Baccarat: the Banker's hand.
    Banker,
    /// The first card after loading, whose value sets the burn count (Baccarat 7.7(a)).
    First,
    /// A burn card, drawn to the discard.
    Burn,
    /// The dealer's hand (Blackjack, Pontoon).
    Dealer,
    /// A player's betting box, numbered from 1.
    Box(u8),
    /// One hand of a betting box (Blackjack, Pontoon), written `box:N.H`: box `number` and its
    /// `hand`, both from 1. After a split the box's hands are numbered in the order they are
    /// played (the hand split off is the next number, the later ones move up); hand 1 before any
    /// split. A device that does not name hands sends `box:N`.
    Hand {
        /// The box, from 1.
        number: u8,
        /// The hand within the box, from 1.
        hand: u8,
    },
    /// A seat, numbered from 1 (poker).
    Seat(u8),
}

impl Target {
    /// The betting box a card or decision goes to (`box:N`, or `box:N.H` naming its hand).
    pub const fn box_number(self) -> Option<u8> {
        match self {
            Target::Box(n) | Target::Hand { number: n, .. } => Some(n),
            _ => None,
        }
    }

    /// The hand within its box, when the target names one (`box:N.H`).
    pub const fn hand(self) -> Option<u8> {
        match self {
            Target::Hand { hand, .. } => Some(hand),
            _ => None,
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Target::Player => f.write_str("player"),
            Target::Banker => f.write_str("banker"),
            Target::First => f.write_str("first"),
            Target::Burn => f.write_str("burn"),
            Target::Dealer => f.write_str("dealer"),
            Target::Box(n) => write!(f, "box:{n}"),
            Target::Hand { number, hand } => write!(f, "box:{number}.{hand}"),
            Target::Seat(n) => write!(f, "seat:{n}"),
        }
    }
}

impl FromStr for Target {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        const EXPECTED: &str =
            "expected player, banker, first, burn, dealer, box:N, box:N.H or seat:N";
        let numbered = |n: &str, make: fn(u8) -> Target| match n.parse::<u8>() {
            Ok(n) if n >= 1 => Ok(make(n)),
            _ => Err(format!("{s:?}: the number must be 1 to 255")),
        };
        match s {
            "player" => Ok(Target::Player),
            "banker" => Ok(Target::Banker),
            "first" => Ok(Target::First),
            "burn" => Ok(Target::Burn),
            "dealer" => Ok(Target::Dealer),
            _ => {
                if let Some((n, hand)) = s.strip_prefix("box:").and_then(|b| b.split_once('.')) {
                    match (numbered(n, Target::Box)?, hand.parse::<u8>()) {
                        (Target::Box(number), Ok(hand)) if hand >= 1 => {
                            Ok(Target::Hand { number, hand })
                        }
                        _ => Err(format!("{s:?}: the hand must be 1 to 255")),
                    }
                } else if let Some(n) = s.strip_prefix("box:") {
                    numbered(n, Target::Box)
                } else if let Some(n) = s.strip_prefix("seat:") {
                    numbered(n, Target::Seat)
                } else {
                    Err(format!("unknown target {s:?} ({EXPECTED})"))
                }
            }
        }
    }
}

/// Defines a string-valued enum with its wire names, `Display` and `FromStr`.
macro_rules! wire_enum {
    ($(#[$meta:meta])* $name:ident, $what:literal { $($(#[$vmeta:meta])* $variant:ident = $wire:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vmeta])* $variant),+
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The value's name on the wire.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $wire),+
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl FromStr for $name {
            type Err = String;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                match s {
                    $($wire => Ok($name::$variant),)+
                    other => Err(format!(
                        concat!("unknown ", $what, " {:?} (expected {})"),
                        other,
                        [$($wire),+].join(", ")
                    )),
                }
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
                text.parse().map_err(serde::de::Error::custom)
            }
        }
    };
}

wire_enum! {
    /// How the cards were shuffled.
    ShufflerKind, "shuffler" {
        /// By hand.
        Manual = "manual",
        /// A batch (non-continuous) shuffler: one whole shoe at a time.
        Batch = "batch",
        /// A continuous shuffler: cards go back in during play.
        Continuous = "continuous",
        /// Not shuffled at the table: new cards delivered pre-shuffled and accepted into the game
        /// as such (NZ 7.10 and 11.3), so neither shuffled nor cut there.
        PreShuffled = "pre_shuffled",
    }
}

wire_enum! {
    /// A declared result of a round.
    Outcome, "outcome" {
        /// The Player's hand won.
        Player = "player",
        /// The Banker's hand won.
        Banker = "banker",
        /// A tie.
        Tie = "tie",
        /// The round was voided (forced quit, misdeal).
        Void = "void",
    }
}

wire_enum! {
    /// When a card was exposed.
    ExposedDuring, "exposure time" {
        /// While the cards were being cut.
        Cutting = "cutting",
        /// While the shoe or shuffler was being loaded.
        Loading = "loading",
        /// While cards were being dealt.
        Dealing = "dealing",
    }
}

wire_enum! {
    /// A player's decision on a hand that the card stream cannot show (Blackjack, Pontoon), as a
    /// dealer console or box sensor reports it.
    Action, "action" {
        /// The box is in play for the round (a wager on it); sent before the round's first card.
        InPlay = "in_play",
        /// The hand stands: it takes no further card.
        Stand = "stand",
        /// The hand doubles: it takes exactly one further card.
        Double = "double",
        /// The hand's two cards are split into two hands.
        Split = "split",
        /// The hand surrenders half its wager and takes no further card.
        Surrender = "surrender",
        /// The box takes insurance against a dealer blackjack.
        Insurance = "insurance",
    }
}

wire_enum! {
    /// A poker player's action on their hand, as a dealer console reports it. A blind or other
    /// forced bet is not an action: NZ's "substantial action" counts players acting on their hands.
    PlayerAction, "player action" {
        /// A forced bet (a blind, an ante or a bring-in): not acting on the hand.
        Blind = "blind",
        /// The player folds.
        Fold = "fold",
        /// The player checks.
        Check = "check",
        /// The player calls.
        Call = "call",
        /// The player bets.
        Bet = "bet",
        /// The player raises.
        Raise = "raise",
        /// The player puts in all their chips.
        AllIn = "all_in",
    }
}

wire_enum! {
    /// The reason for a poker misdeal: the lettered paragraph of the NZ misdeal rule, (a) to (l).
    MisdealReason, "misdeal reason" {
        /// (a) cards exposed in cutting.
        A = "a",
        /// (b) not shuffled or cut before the deal, noticed before substantial action.
        B = "b",
        /// (c) dealt out of order, noticed before substantial action, cannot be reconstructed.
        C = "c",
        /// (d) a player dealt out or an extra hand dealt in during the initial deal.
        D = "d",
        /// (e) an eligible player with a wrong number of cards at the end of the initial deal.
        E = "e",
        /// (f) a player dealt a wrong number of cards, found before substantial action.
        F = "f",
        /// (g) the only player left at the showdown holds a wrong number of cards.
        G = "g",
        /// (h) the deck is defective.
        H = "h",
        /// (i) Draw Poker: more than one card exposed in the initial dealing round.
        I = "i",
        /// (j) Five Card Stud: a wrong card or number of cards face up in the initial round.
        J = "j",
        /// (k) Five Card Stud: more than one player dealt two cards face up.
        K = "k",
        /// (l) Seven Card Stud: a wrong card or number of cards face up in the initial round.
        L = "l",
    }
}

wire_enum! {
    /// A supervisor's ruling on a declared poker misdeal.
    MisdealRuling, "misdeal ruling" {
        /// A misdeal: the hand is cancelled and dealt again.
        Misdeal = "misdeal",
        /// The seats' hands are dead and their wagers returned ((f)(i), (g)).
        DeadHand = "dead_hand",
        /// The seats' hands are void for the round and their wagers returned ((f)(ii)).
        VoidHand = "void_hand",
        /// No misdeal: the hand is played out (after substantial action, (b)).
        PlayedOut = "played_out",
    }
}

wire_enum! {
    /// A step of preparing cards by hand before they are loaded into an automatic shuffler (NZ
    /// Pontoon 6.4: chemmy shuffled, stacked, riffle shuffled), entered at the console.
    ShuffleStep, "shuffle step" {
        /// (a) A chemmy shuffle: the cards spread face down and washed on the table.
        Chemmy = "chemmy",
        /// (b) The cards stacked.
        Stacking = "stacking",
        /// (c) A riffle shuffle.
        Riffle = "riffle",
    }
}

wire_enum! {
    /// The state of a table.
    TableState, "table state" {
        /// Open for play.
        Open = "open",
        /// Closed.
        Closed = "closed",
        /// Open but with no players.
        Vacant = "vacant",
    }
}
