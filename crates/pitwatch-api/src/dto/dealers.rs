//! Dealers and pace as the supervisors' screens see them (issue 30): the pace alerts of the
//! tables running ("pace below target", "error burst"), and a table's dealers (the rota, each
//! dealer's figures against the table's target, the alerts). Only supervisors and
//! administrators are sent these. Dealer names are untrusted text, sent exactly as recorded
//! (the window shows them by `docs/untrusted-text.md`).

use serde::Serialize;
use ts_rs::TS;

use pitwatch_games::dealers::{DealerFigures, Stint};
use pitwatch_games::targets::{PaceAlert, PaceTarget};
use pitwatch_games::GameKind;

/// A pace alert of a table.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PaceAlertView {
    /// The table.
    pub table: String,
    /// The alert's code: `PACE_BELOW_TARGET` or `ERROR_BURST`.
    pub code: String,
    /// The alert in words.
    pub words: String,
    /// The shoe of the round it was raised at.
    pub shoe: u32,
    /// The round it was raised at.
    pub round: u32,
    /// The dealer of that round, as recorded (untrusted text).
    pub dealer: Option<String>,
    /// What was measured: rounds an hour over the window, or the irregularities in the burst.
    pub measured: f64,
    /// What it was held to: the alert line in rounds an hour, or the burst's count.
    pub threshold: f64,
    /// What happened, in words for a supervisor.
    pub message: String,
    /// When that round closed (ms since the epoch).
    pub at_ms: Option<i64>,
}

impl PaceAlertView {
    /// `alert`, raised at `table`.
    pub fn of(table: &str, alert: &PaceAlert) -> PaceAlertView {
        PaceAlertView {
            table: table.to_owned(),
            code: alert.kind.code().to_owned(),
            words: alert.kind.words().to_owned(),
            shoe: alert.shoe,
            round: alert.round,
            dealer: alert.dealer.clone(),
            measured: alert.measured,
            threshold: alert.threshold,
            message: alert.message.clone(),
            at_ms: alert.at.map(|at| at.unix_millis()),
        }
    }
}

/// What a table is held to.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PaceTargetView {
    /// Rounds an hour of dealing expected.
    pub rounds_per_hour: f64,
    /// "Pace below target" under this many rounds an hour ...
    pub alert_below: f64,
    /// ... over this many rounds.
    pub window_rounds: u32,
    /// "Error burst": this many irregularities against dealers ...
    pub burst_errors: u32,
    /// ... within this many rounds.
    pub burst_rounds: u32,
}

impl From<&PaceTarget> for PaceTargetView {
    fn from(t: &PaceTarget) -> PaceTargetView {
        PaceTargetView {
            rounds_per_hour: t.target_rounds_per_hour,
            alert_below: t.alert_below(),
            window_rounds: t.window_rounds,
            burst_errors: t.burst_errors,
            burst_rounds: t.burst_rounds,
        }
    }
}

/// One dealer's time at the table.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct StintView {
    /// The dealer, as recorded (untrusted text).
    pub dealer: String,
    /// When they signed in (ms since the epoch).
    pub from_ms: Option<i64>,
    /// When the stint ended (null while still signed in, or without a time).
    pub to_ms: Option<i64>,
    /// Still signed in at the end of the record.
    pub signed_in: bool,
}

impl From<&Stint> for StintView {
    fn from(s: &Stint) -> StintView {
        StintView {
            dealer: s.dealer.clone(),
            from_ms: s.from_at.map(|at| at.unix_millis()),
            to_ms: s.to_at.map(|at| at.unix_millis()),
            signed_in: s.to_seq.is_none(),
        }
    }
}

/// Irregularities of one code.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CodeCount {
    /// The irregularity's code.
    pub code: String,
    /// How many.
    pub count: u32,
}

/// One dealer's figures.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct DealerFiguresView {
    /// The dealer, as recorded (untrusted text).
    pub dealer: String,
    /// Rounds counted (not interrupted by a device fault).
    pub rounds: u32,
    /// Their rounds a device fault interrupted, not counted against them.
    pub rounds_excused: u32,
    /// Rounds an hour of their dealing.
    pub rounds_per_hour: Option<f64>,
    /// Irregularities counted against them per 100 rounds.
    pub errors_per100_rounds: Option<f64>,
    /// Irregularities counted against them, by code.
    pub irregularities: Vec<CodeCount>,
}

impl From<&DealerFigures> for DealerFiguresView {
    fn from(f: &DealerFigures) -> DealerFiguresView {
        DealerFiguresView {
            dealer: f.dealer.clone(),
            rounds: f.rounds,
            rounds_excused: f.rounds_excused,
            rounds_per_hour: f.rounds_per_hour,
            errors_per100_rounds: f.errors_per_100_rounds,
            irregularities: f
                .irregularities
                .iter()
                .map(|(code, count)| CodeCount {
                    code: code.clone(),
                    count: *count,
                })
                .collect(),
        }
    }
}

/// A table's dealers over its whole record.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct DealersView {
    /// The table.
    pub table: String,
    /// Its game.
    pub game: GameKind,
    /// What it is held to (null: its game has no target).
    pub target: Option<PaceTargetView>,
    /// The table's rounds an hour of dealing over the record.
    pub rounds_per_hour: Option<f64>,
    /// Who was signed in, from when to when, in order.
    pub rota: Vec<StintView>,
    /// Each dealer's figures, in the order they first signed in.
    pub figures: Vec<DealerFiguresView>,
    /// The alerts raised, in order.
    pub alerts: Vec<PaceAlertView>,
}
