//! The dealers' report of a table (issue 30), from the record alone: the rota (who was signed
//! in, from when to when), each dealer's figures (rounds, pace against the table's target,
//! irregularities per 100 rounds, rounds a device fault interrupted and not counted against
//! them), their irregularities by kind with the rule each cites, the pace and error alerts, and
//! two plots drawn in characters (the table's pace hour by hour against its target, each
//! dealer's error rate), as a PDF document or a flat CSV. Over a period (a shift) or the whole
//! record; one dealer or all. For supervisors and administrators only (the application layer
//! checks and audits every look).

use std::collections::BTreeMap;

use pitwatch_games::dealers::{figures, Attribution, DealerFigures};
use pitwatch_games::pace::{Pace, BREAK_AFTER_MS};
use pitwatch_games::targets::{alerts, PaceAlert, PaceTarget, PaceTargets};
use pitwatch_games::GameKind;
use pitwatch_model::Timestamp;
use pitwatch_report::untrusted::spreadsheet_cell;
use pitwatch_report::{words, Block, Document};
use pitwatch_store::{Store, StoreError};

use super::{site, Times};
use crate::replay;

/// What the dealers' report covers.
#[derive(Debug, Clone, Copy)]
pub struct DealerQuery<'a> {
    /// The table.
    pub table: &'a str,
    /// One dealer, or all.
    pub dealer: Option<&'a str>,
    /// The period `[from, to)` (a shift), or the whole record.
    pub period: Option<(Timestamp, Timestamp)>,
}

/// A table's dealers as the record gives them, over a query.
#[derive(Debug, Clone, PartialEq)]
pub struct DealerShift {
    /// The table.
    pub table: String,
    /// Its game.
    pub game: GameKind,
    /// What the table is held to, if its game has a target.
    pub target: Option<PaceTarget>,
    /// The table's pace over the whole record.
    pub pace: Pace,
    /// Who dealt what over the whole record.
    pub attribution: Attribution,
    /// Each dealer's figures over the query's period (one dealer's only when it names one).
    pub figures: Vec<DealerFigures>,
    /// The alerts raised in the period (of the dealer only when it names one).
    pub alerts: Vec<PaceAlert>,
}

impl DealerShift {
    /// Replays `query.table` from `store` and works out its dealers, held to `targets`.
    pub fn of(
        store: &Store,
        query: DealerQuery<'_>,
        targets: &PaceTargets,
    ) -> Result<DealerShift, StoreError> {
        DealerShift::held_to(store, query, targets, None)
    }

    /// [`DealerShift::of`], the table held to its own rounds an hour (`pace_target`, the pit
    /// definition's) over its game's where given.
    pub fn held_to(
        store: &Store,
        query: DealerQuery<'_>,
        targets: &PaceTargets,
        own: Option<u32>,
    ) -> Result<DealerShift, StoreError> {
        let replayed = replay::rebuild(store, query.table)?;
        let game = store
            .tables()?
            .into_iter()
            .find(|t| t.name == query.table)
            .map(|t| GameKind::recorded(&t.game))
            .ok_or_else(|| StoreError::NotFound(format!("no table named {:?}", query.table)))?;
        let steps = || {
            replayed
                .steps
                .iter()
                .map(|s| (&s.event, s.outputs.as_slice()))
        };
        let pace = Pace::of(steps());
        let attribution = Attribution::of(steps());
        let target = targets.for_table(game, own);
        let within = |at: Option<Timestamp>| match (query.period, at) {
            (None, _) => true,
            (Some((from, to)), Some(at)) => at >= from && at < to,
            (Some(_), None) => false,
        };
        let mine = |dealer: Option<&str>| query.dealer.is_none() || dealer == query.dealer;
        let figures = figures(&pace, &attribution, BREAK_AFTER_MS, query.period)
            .into_iter()
            .filter(|f| mine(Some(&f.dealer)))
            .collect();
        let alerts = target
            .map(|t| alerts(&pace, &attribution, &t))
            .unwrap_or_default()
            .into_iter()
            .filter(|a| within(a.at) && mine(a.dealer.as_deref()))
            .collect();
        Ok(DealerShift {
            table: query.table.to_owned(),
            game,
            target,
            pace,
            attribution,
            figures,
            alerts,
        })
    }
}

/// The dealers' report of `shift` over `query`, with the site and time zone the record names.
pub fn dealer_report(
    store: &Store,
    shift: &DealerShift,
    query: DealerQuery<'_>,
) -> Result<Document, StoreError> {
    let times = Times::of(store)?;
    let site = site(store)?;
    let within = |at: Option<Timestamp>| match (query.period, at) {
        (None, _) => true,
        (Some((from, to)), Some(at)) => at >= from && at < to,
        (Some(_), None) => false,
    };
    let mine = |dealer: Option<&str>| query.dealer.is_none() || dealer == query.dealer;
    let per_hour = |v: Option<f64>| v.map_or_else(|| "-".to_owned(), |v| format!("{v:.1}"));
    let mut fields = vec![
        ("Table".to_owned(), shift.table.clone()),
        ("Game".to_owned(), shift.game.as_str().to_owned()),
        (
            "Period".to_owned(),
            match query.period {
                Some((from, to)) => format!("{} to {}", times.stamped(from), times.stamped(to)),
                None => "the whole record".to_owned(),
            },
        ),
    ];
    if let Some(dealer) = query.dealer {
        fields.push(("Dealer".to_owned(), dealer.to_owned()));
    }
    match &shift.target {
        Some(t) => {
            fields.push((
                "Target".to_owned(),
                format!(
                    "{:.0} rounds an hour of dealing; alerted under {:.0} ({}%) over {} rounds",
                    t.target_rounds_per_hour,
                    t.alert_below(),
                    t.below_target_percent,
                    t.window_rounds
                ),
            ));
            fields.push((
                "Error burst".to_owned(),
                format!(
                    "{} irregularities within {} rounds",
                    t.burst_errors, t.burst_rounds
                ),
            ));
        }
        None => fields.push(("Target".to_owned(), "none set for this game".to_owned())),
    }
    let mut blocks = vec![
        Block::Paragraph {
            text: "Who dealt at the table and how, from the record alone: a round is the \
                   dealer's who was signed in at its first card; a round a device fault \
                   interrupted is not counted against its dealer (shown apart), and a device's \
                   own faults are never a dealer's errors. Rounds an hour count only dealing \
                   time: no break over five minutes, no change of shoe, no hand-over. For \
                   supervisors and administrators only; every look is audited."
                .into(),
        },
        Block::Fields { fields },
        Block::Heading {
            text: "The rota".into(),
        },
    ];
    let rota: Vec<_> = shift
        .attribution
        .rota(query.period)
        .into_iter()
        .filter(|s| mine(Some(&s.dealer)))
        .collect();
    if rota.is_empty() {
        blocks.push(Block::Paragraph {
            text: "No dealer was signed in.".into(),
        });
    } else {
        blocks.push(Block::Table {
            columns: vec![
                "Dealer".into(),
                times.head("Signed in"),
                times.head("Signed out"),
                "Hours".into(),
            ],
            widths: vec![4, 3, 3, 1],
            rows: rota
                .iter()
                .map(|s| {
                    vec![
                        s.dealer.clone(),
                        s.from_at.map(|at| times.cell(at)).unwrap_or_default(),
                        match (s.to_seq, s.to_at) {
                            (None, _) => "still signed in".to_owned(),
                            (Some(_), Some(at)) => times.cell(at),
                            (Some(_), None) => String::new(),
                        },
                        s.duration_ms()
                            .map(|ms| format!("{:.2}", ms as f64 / 3_600_000.0))
                            .unwrap_or_default(),
                    ]
                })
                .collect(),
        });
    }
    blocks.push(Block::Heading {
        text: "Each dealer's figures".into(),
    });
    if shift.figures.is_empty() {
        blocks.push(Block::Paragraph {
            text: "No dealer dealt a round.".into(),
        });
    } else {
        blocks.push(Block::Table {
            columns: vec![
                "Dealer".into(),
                "Rounds".into(),
                "Device faults (not counted)".into(),
                "Rounds an hour".into(),
                "Of target".into(),
                "Irregularities per 100 rounds".into(),
            ],
            widths: vec![4, 2, 2, 2, 2, 2],
            rows: shift
                .figures
                .iter()
                .map(|f| {
                    vec![
                        f.dealer.clone(),
                        f.rounds.to_string(),
                        f.rounds_excused.to_string(),
                        per_hour(f.rounds_per_hour),
                        of_target(f.rounds_per_hour, shift.target.as_ref()),
                        per_hour(f.errors_per_100_rounds),
                    ]
                })
                .collect(),
        });
    }
    blocks.push(Block::Heading {
        text: "Pace over the period, hour by hour".into(),
    });
    blocks.push(Block::Verbatim {
        text: pace_plot(shift, &times, &within, &mine),
    });
    blocks.push(Block::Heading {
        text: "Irregularities per 100 rounds, by dealer".into(),
    });
    blocks.push(Block::Verbatim {
        text: error_plot(&shift.figures),
    });
    blocks.push(Block::Heading {
        text: "Irregularities by kind".into(),
    });
    let mut by_kind: BTreeMap<(String, String, String), u32> = BTreeMap::new();
    for found in
        shift.attribution.irregularities.iter().filter(|i| {
            i.counted && i.dealer.is_some() && within(i.at) && mine(i.dealer.as_deref())
        })
    {
        let dealer = found.dealer.clone().unwrap_or_default();
        *by_kind
            .entry((dealer, found.code.clone(), found.rule.clone()))
            .or_insert(0) += 1;
    }
    if by_kind.is_empty() {
        blocks.push(Block::Paragraph {
            text: "None counted against a dealer.".into(),
        });
    } else {
        blocks.push(Block::Table {
            columns: vec![
                "Dealer".into(),
                "Irregularity".into(),
                "Rule".into(),
                "Count".into(),
            ],
            widths: vec![3, 5, 2, 1],
            rows: by_kind
                .into_iter()
                .map(|((dealer, code, rule), n)| {
                    vec![
                        dealer,
                        words::irregularity_label(&code),
                        rule,
                        n.to_string(),
                    ]
                })
                .collect(),
        });
    }
    blocks.push(Block::Heading {
        text: "Alerts".into(),
    });
    if shift.alerts.is_empty() {
        blocks.push(Block::Paragraph {
            text: "None.".into(),
        });
    } else {
        blocks.push(Block::Table {
            columns: vec![
                times.head("At"),
                "Alert".into(),
                "Round".into(),
                "Dealer".into(),
                "What".into(),
            ],
            widths: vec![3, 2, 1, 2, 6],
            rows: shift
                .alerts
                .iter()
                .map(|a| {
                    vec![
                        a.at.map(|at| times.cell(at)).unwrap_or_default(),
                        format!("{} ({})", a.kind.words(), a.kind.code()),
                        format!("{}.{}", a.shoe, a.round),
                        a.dealer.clone().unwrap_or_default(),
                        a.message.clone(),
                    ]
                })
                .collect(),
        });
    }
    let whom = query.dealer.map_or_else(
        || format!("Dealers at {}", shift.table),
        |d| format!("{d} at {}", shift.table),
    );
    Ok(Document {
        title: whom.clone(),
        subtitle: format!(
            "{site} · supervisors and administrators only · times in {}",
            times.name()
        ),
        footer: format!("Pitwatch dealers' report · {whom}"),
        build: pitwatch_report::build::label(),
        author: String::new(),
        created: None,
        blocks,
    })
}

fn of_target(per_hour: Option<f64>, target: Option<&PaceTarget>) -> String {
    match (per_hour, target) {
        (Some(v), Some(t)) => format!("{:.0}%", v * 100.0 / t.target_rounds_per_hour),
        _ => "-".to_owned(),
    }
}

/// The widest bar, in characters.
const BAR: f64 = 40.0;

/// The table's rounds an hour in each clock hour of the period (of one dealer's rounds when the
/// report is one dealer's), as bars of `#` against the target's `|`.
fn pace_plot(
    shift: &DealerShift,
    times: &Times,
    within: &dyn Fn(Option<Timestamp>) -> bool,
    mine: &dyn Fn(Option<&str>) -> bool,
) -> String {
    let dealt: BTreeMap<(u32, u32), &pitwatch_games::dealers::DealtRound> = shift
        .attribution
        .rounds
        .iter()
        .map(|r| ((r.shoe, r.round), r))
        .collect();
    let mut hours: BTreeMap<i64, Pace> = BTreeMap::new();
    for round in &shift.pace.rounds {
        let Some(closed) = round.closed_at else {
            continue;
        };
        let d = dealt.get(&(round.shoe, round.round));
        if !within(Some(closed))
            || !mine(d.and_then(|d| d.dealer.as_deref()))
            || d.is_some_and(|d| d.device_fault)
        {
            continue;
        }
        let hour = closed.unix_millis().div_euclid(3_600_000);
        let pace = hours.entry(hour).or_default();
        let mut round = round.clone();
        if pace.rounds.is_empty() {
            round.gap_before_ms = None;
        }
        pace.rounds.push(round);
    }
    if hours.is_empty() {
        return "No timed round.".to_owned();
    }
    let rates: Vec<(i64, usize, Option<f64>)> = hours
        .iter()
        .map(|(h, p)| (*h, p.rounds.len(), p.rounds_per_hour(BREAK_AFTER_MS)))
        .collect();
    let target = shift.target.map(|t| t.target_rounds_per_hour);
    let top = rates
        .iter()
        .filter_map(|(_, _, r)| *r)
        .chain(target)
        .fold(1.0_f64, f64::max);
    let scale = |v: f64| ((v / top) * BAR).round() as usize;
    let mut out = String::new();
    if let Some(t) = target {
        out.push_str(&format!(
            "{:<19} {:>6} {:>7}  | = target, {t:.0} an hour\n",
            "hour from", "rounds", "an hour"
        ));
    } else {
        out.push_str(&format!(
            "{:<19} {:>6} {:>7}\n",
            "hour from", "rounds", "an hour"
        ));
    }
    for (hour, n, rate) in rates {
        let start = times.cell_ms(hour * 3_600_000);
        let mut bar: Vec<char> = vec![' '; BAR as usize + 1];
        if let Some(r) = rate {
            for c in bar.iter_mut().take(scale(r)) {
                *c = '#';
            }
        }
        if let Some(t) = target {
            bar[scale(t).min(BAR as usize)] = '|';
        }
        let bar: String = bar.into_iter().collect();
        out.push_str(&format!(
            "{:<19} {n:>6} {:>7}  {}\n",
            start.get(..16).unwrap_or(&start),
            rate.map_or_else(|| "-".to_owned(), |r| format!("{r:.0}")),
            bar.trim_end()
        ));
    }
    out.trim_end().to_owned()
}

/// Each dealer's irregularities per 100 rounds, as bars of `#`.
fn error_plot(figures: &[DealerFigures]) -> String {
    let rated: Vec<(&str, f64)> = figures
        .iter()
        .filter_map(|f| Some((f.dealer.as_str(), f.errors_per_100_rounds?)))
        .collect();
    if rated.is_empty() {
        return "No dealer dealt a round.".to_owned();
    }
    let width = rated
        .iter()
        .map(|(d, _)| d.chars().count())
        .max()
        .unwrap_or(0)
        .min(24);
    let top = rated.iter().map(|(_, r)| *r).fold(1.0_f64, f64::max);
    rated
        .iter()
        .map(|(dealer, rate)| {
            let name: String = dealer.chars().take(width).collect();
            let pad = width - name.chars().count();
            format!(
                "{name}{} {rate:>6.1}  {}",
                " ".repeat(pad),
                "#".repeat(((rate / top) * BAR).round() as usize)
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The dealers' section of a shift handover report over `[from, to)`: for each of `tables`
/// with a dealer signed in during the shift, each dealer's rounds, pace against the table's
/// target (its game's, or `own`'s rounds an hour for the table) and irregularities counted
/// against them in the shift, then the pace alerts the record raised in it. Each table is
/// replayed whole (attribution needs the sign-ins before the shift).
pub(super) fn shift_section(
    store: &Store,
    tables: &[pitwatch_store::TableRow],
    (from, to): (Timestamp, Timestamp),
    own: &BTreeMap<String, u32>,
    times: &Times,
) -> Result<Vec<Block>, StoreError> {
    let targets = PaceTargets::defaults();
    let mut rows = Vec::new();
    let mut raised = Vec::new();
    for table in tables {
        let query = DealerQuery {
            table: &table.name,
            dealer: None,
            period: Some((from, to)),
        };
        let shift = DealerShift::held_to(store, query, &targets, own.get(&table.name).copied())?;
        let on_shift: Vec<&str> = shift
            .attribution
            .rota(Some((from, to)))
            .into_iter()
            .map(|s| s.dealer.as_str())
            .collect();
        for f in shift
            .figures
            .iter()
            .filter(|f| on_shift.contains(&f.dealer.as_str()))
        {
            let errors: Vec<String> = f
                .irregularities
                .iter()
                .map(|(code, n)| format!("{n} × {}", words::irregularity_label(code)))
                .collect();
            rows.push(vec![
                table.name.clone(),
                f.dealer.clone(),
                f.rounds.to_string(),
                f.rounds_per_hour
                    .map_or_else(|| "-".to_owned(), |v| format!("{v:.1}")),
                match shift.target {
                    Some(t) => format!(
                        "{} of {:.0}",
                        of_target(f.rounds_per_hour, Some(&t)),
                        t.target_rounds_per_hour
                    ),
                    None => "-".to_owned(),
                },
                if errors.is_empty() {
                    "none".to_owned()
                } else {
                    errors.join("; ")
                },
                f.rounds_excused.to_string(),
            ]);
        }
        for alert in &shift.alerts {
            raised.push(vec![
                table.name.clone(),
                alert.at.map(|at| times.cell(at)).unwrap_or_default(),
                format!("{} ({})", alert.kind.words(), alert.kind.code()),
                alert.dealer.clone().unwrap_or_else(|| "no one".to_owned()),
                alert.message.clone(),
            ]);
        }
    }
    let mut blocks = vec![Block::Heading {
        text: "Dealers".into(),
    }];
    if rows.is_empty() {
        blocks.push(Block::Paragraph {
            text: "No dealer was signed in at these tables during the shift.".into(),
        });
        return Ok(blocks);
    }
    blocks.push(Block::Paragraph {
        text: "Each dealer signed in during the shift, with the rounds they dealt in it: a round \
               a device fault interrupted is not counted against its dealer (the last column), \
               and rounds an hour count only dealing time. The dealers' report of a table \
               (pitwatch dealer report) gives the rota and the plots."
            .into(),
    });
    blocks.push(Block::Table {
        columns: vec![
            "Table".into(),
            "Dealer".into(),
            "Rounds".into(),
            "Rounds an hour".into(),
            "Of target".into(),
            "Irregularities counted".into(),
            "Device faults".into(),
        ],
        widths: vec![2, 4, 2, 2, 3, 9, 2],
        rows,
    });
    blocks.push(Block::Heading {
        text: "Pace alerts".into(),
    });
    if raised.is_empty() {
        blocks.push(Block::Paragraph {
            text: "None raised during the shift.".into(),
        });
    } else {
        blocks.push(Block::Table {
            columns: vec![
                "Table".into(),
                times.head("Raised"),
                "Alert".into(),
                "Dealer".into(),
                "What".into(),
            ],
            widths: vec![2, 3, 3, 3, 8],
            rows: raised,
        });
    }
    Ok(blocks)
}

/// The figures of `shift` as CSV: a header, then one row per dealer.
pub fn dealer_csv(shift: &DealerShift) -> String {
    let mut out = String::from(
        "table,game,dealer,rounds,rounds_device_fault,rounds_per_hour,target_rounds_per_hour,errors_per_100_rounds,irregularities\n",
    );
    let number = |v: Option<f64>| v.map_or_else(String::new, |v| format!("{v:.3}"));
    for f in &shift.figures {
        let irregularities: Vec<String> = f
            .irregularities
            .iter()
            .map(|(code, n)| format!("{code} {n}"))
            .collect();
        let cells = [
            text(&shift.table),
            shift.game.as_str().to_owned(),
            text(&f.dealer),
            f.rounds.to_string(),
            f.rounds_excused.to_string(),
            number(f.rounds_per_hour),
            number(shift.target.map(|t| t.target_rounds_per_hour)),
            number(f.errors_per_100_rounds),
            text(&irregularities.join("; ")),
        ];
        out.push_str(&cells.join(","));
        out.push('\n');
    }
    out
}

/// A text cell: quoted, its quotes doubled, never a formula.
fn text(value: &str) -> String {
    format!("\"{}\"", spreadsheet_cell(value).replace('"', "\"\""))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn figure(dealer: &str, rate: Option<f64>) -> DealerFigures {
        DealerFigures {
            dealer: dealer.into(),
            rounds: 10,
            rounds_excused: 1,
            rounds_per_hour: Some(61.5),
            irregularities: [("RESULT_MISMATCH".to_owned(), 2)].into(),
            errors_per_100_rounds: rate,
        }
    }

    #[test]
    fn the_error_plot_scales_each_dealer_s_bar_to_the_worst() {
        let plot = error_plot(&[figure("Mere", Some(20.0)), figure("王芳", Some(5.0))]);
        let lines: Vec<&str> = plot.lines().collect();
        assert_eq!(lines[0], format!("Mere   20.0  {}", "#".repeat(40)));
        // Padded by characters (a name in any script), so the rates line up by character.
        assert_eq!(lines[1], format!("王芳      5.0  {}", "#".repeat(10)));
        assert_eq!(error_plot(&[]), "No dealer dealt a round.");
    }

    #[test]
    fn a_dealer_s_name_is_never_a_formula_in_the_csv() {
        let game = GameKind::ALL[0];
        let shift = DealerShift {
            table: "T-1".into(),
            game,
            target: PaceTargets::defaults().of(game).copied(),
            pace: Pace::default(),
            attribution: Attribution::default(),
            figures: vec![figure("=HYPERLINK(\"x\")", Some(20.0))],
            alerts: vec![],
        };
        let csv = dealer_csv(&shift);
        let row = csv.lines().nth(1).expect("a row");
        let target = shift.target.expect("a target").target_rounds_per_hour;
        assert_eq!(
            row,
            format!(
                "\"T-1\",{},\"'=HYPERLINK(\"\"x\"\")\",10,1,61.500,{target:.3},20.000,\"RESULT_MISMATCH 2\"",
                game.as_str()
            )
        );
    }
}
