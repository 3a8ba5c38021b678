//! The house's exposure as surveillance's screens see it (issue 29): before each round, what each
//! wager is worth from the cards left, the counts of Blackjack's shoes, and the alerts when a
//! wager stays in the players' favour. Only the surveillance role and administrators are sent
//! these; the pit's screens never are.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use pitwatch_games::exposure::{Figure, RoundExposure};
use pitwatch_games::GameKind;

/// One figure of a round's exposure.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ExposureFigure {
    /// What it is, in words with its pay ("Dragon 7 (40 to 1)", "Hi-Lo true count").
    pub name: String,
    /// A wager's house edge in percent (negative: the house is behind); a count's value.
    pub value: f64,
    /// Whether it is a wager's house edge rather than a count.
    pub wager: bool,
    /// Whether the house is behind on it (a wager worth more than it costs, a count that
    /// favours the player).
    pub house_behind: bool,
    /// The rule or pay table a wager comes from, as its rule book cites it ("" for a count).
    pub cite: String,
}

impl From<&Figure> for ExposureFigure {
    fn from(figure: &Figure) -> ExposureFigure {
        ExposureFigure {
            name: figure.name.to_string(),
            value: figure.value,
            wager: figure.wager,
            house_behind: figure.house_behind,
            cite: figure.cite.to_string(),
        }
    }
}

/// What the house was exposed to on one round, before it was dealt.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ExposureRound {
    /// The round (1 for the shoe's first).
    pub round: u32,
    /// The event after which it was computed (a replay's step).
    pub after_seq: u64,
    /// When that event was recorded (ms since the epoch), if it has a time.
    pub at_ms: Option<i64>,
    /// Cards left in the shoe (cards not seen, such as a burn dealt face down, included).
    pub cards_left: u32,
    /// Each figure, the book's wagers in its order.
    pub figures: Vec<ExposureFigure>,
}

impl From<&RoundExposure> for ExposureRound {
    fn from(round: &RoundExposure) -> ExposureRound {
        ExposureRound {
            round: round.round,
            after_seq: round.after_seq,
            at_ms: round.at.map(|at| at.unix_millis()),
            cards_left: round.cards_left,
            figures: round.figures.iter().map(ExposureFigure::from).collect(),
        }
    }
}

/// A wager and the rounds of a shoe it was worth more than it cost.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct WagerBehind {
    /// The wager, in words with its pay.
    pub wager: String,
    /// Rounds of the shoe with the house behind on it.
    pub rounds: u32,
}

/// One table's shoe, round by round.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ShoeExposure {
    /// The table.
    pub table: String,
    /// The game dealt.
    pub game: GameKind,
    /// The shoe.
    pub shoe: u32,
    /// The figures before each round, in order.
    pub rounds: Vec<ExposureRound>,
    /// The wagers the house was behind on in this shoe, with how many rounds, most first.
    pub behind: Vec<WagerBehind>,
}

/// A wager that stayed in the players' favour for the alert's number of rounds of a shoe.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ExposureAlert {
    /// The table.
    pub table: String,
    /// The shoe.
    pub shoe: u32,
    /// The round about to be dealt when it was raised.
    pub round: u32,
    /// The wager, in words with its pay.
    pub wager: String,
    /// Rounds of the shoe with the house behind on it.
    pub rounds_behind: u32,
    /// The house's edge on it then, in percent (negative).
    pub house_edge: f64,
    /// When it was raised (ms since the epoch).
    pub at_ms: i64,
}

/// One table in the pit-wide list.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct TableExposure {
    /// The table.
    pub table: String,
    /// The game dealt (null while the table has not been read yet).
    pub game: Option<GameKind>,
    /// The shoe (0 before any).
    pub shoe: u32,
    /// The figures of the round about to be dealt (null before the shoe's first).
    pub next: Option<ExposureRound>,
    /// The wager the house is worst placed on now (its lowest edge).
    pub worst: Option<ExposureFigure>,
    /// Rounds of this shoe on which the house was behind on some wager.
    pub rounds_behind: u32,
    /// Why the table's exposure cannot be followed, if it cannot.
    pub problem: Option<String>,
}

/// The whole pit's exposure, the tables most against the house first.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PitExposure {
    /// Every table whose game has exposure, sorted by the worst wager's edge, lowest first.
    pub tables: Vec<TableExposure>,
    /// Every alert raised, newest first.
    pub alerts: Vec<ExposureAlert>,
    /// After how many rounds of one shoe with the house behind on a wager an alert is raised.
    pub alert_after_rounds: u32,
}

/// What an exposure report is written as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ReportFormat {
    /// A PDF document.
    Pdf,
    /// Comma-separated values, one row per round and figure.
    Csv,
}
