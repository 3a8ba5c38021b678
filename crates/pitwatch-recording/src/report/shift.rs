//! The shift handover report (the shift, its tables, the incidents opened, acknowledged,
//! resolved, reopened and still open, device errors, device links and gaps in the recording, the
//! hand-over sign-offs and their acceptance by the incoming supervisor, each dealer's rounds,
//! pace and errors and the pace alerts of the shift) and a supervisor's sign-off of it,
//! recorded as an audited act.

use std::collections::BTreeMap;

use super::*;

/// The audit action of a supervisor's hand-over sign-off; its detail is a [`SignOff`] as JSON.
pub const SHIFT_SIGN_OFF: &str = "shift.sign_off";

/// The audit action of the incoming supervisor's acceptance of a handover; its detail is an
/// [`Acceptance`] as JSON.
pub const SHIFT_ACCEPT: &str = "shift.accept";

/// How a session ends when Pitwatch itself stopped reading (the transport's reader says so when
/// stopped): the time after it is a gap in the recording, not a link outage.
const STOPPED_BY_HOST: &str = "stopped by the host";

/// A shift: the period a handover report covers, and which tables (all when `None`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shift {
    /// Its start (inclusive).
    pub from: Timestamp,
    /// Its end (exclusive).
    pub to: Timestamp,
    /// Only this table.
    pub table: Option<String>,
}

impl Shift {
    /// A shift from `from` to `to`, refused when it does not end after it starts.
    pub fn new(from: Timestamp, to: Timestamp, table: Option<String>) -> Result<Shift, StoreError> {
        if to <= from {
            return Err(StoreError::Invalid(format!(
                "a shift must end after it starts ({from} to {to})"
            )));
        }
        Ok(Shift { from, to, table })
    }

    fn covers(&self, table: &str) -> bool {
        self.table.as_deref().is_none_or(|t| t == table)
    }
}

/// A hand-over sign-off as recorded in the audit log.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SignOff {
    /// The shift's start.
    pub from: Timestamp,
    /// The shift's end.
    pub to: Timestamp,
    /// The table signed off, or every table.
    pub table: Option<String>,
    /// What the supervisor handing over wants the next shift to know.
    pub note: String,
    /// Where it was signed off (absent in sign-offs recorded before workstations were kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workstation: Option<String>,
}

/// The incoming supervisor's acceptance of a sign-off as the audit log holds it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Acceptance {
    /// The audit row id of the sign-off accepted.
    pub sign_off: i64,
    /// Who signed off.
    pub signed_off_by: String,
    /// The shift's start.
    pub from: Timestamp,
    /// The shift's end.
    pub to: Timestamp,
    /// The table handed over, or every table.
    pub table: Option<String>,
    /// Where it was accepted.
    pub workstation: String,
}

/// `user` signs off the hand-over of `shift`, with `note`: a chained audit entry
/// ([`SHIFT_SIGN_OFF`]) that later shift reports of that period show.
pub fn record_sign_off(
    store: &mut Store,
    by: impl Into<pitwatch_store::Actor>,
    shift: &Shift,
    note: &str,
    now: Timestamp,
) -> Result<(), StoreError> {
    let by = by.into();
    let user = by.user.as_str();
    if !store.user_exists(user)? {
        return Err(StoreError::Denied(format!("no user named {user:?}")));
    }
    let sign_off = SignOff {
        from: shift.from,
        to: shift.to,
        table: shift.table.clone(),
        note: note.trim().to_owned(),
        workstation: by.workstation.clone(),
    };
    let detail = serde_json::to_string(&sign_off)
        .map_err(|e| StoreError::Invalid(format!("cannot record the sign-off: {e}")))?;
    let mut batch = store.batch(now)?;
    batch.append_audit(
        user,
        SHIFT_SIGN_OFF,
        &format!("shift {} to {}", shift.from, shift.to),
        &detail,
        now,
    )?;
    batch.commit()
}

/// A duration in words a supervisor reads at a glance: `2 h 05 min`, `4 min 12 s`, `0.8 s`.
fn duration(ms: i64) -> String {
    let ms = ms.max(0);
    let s = ms / 1000;
    match s {
        0..=9 => format!("{:.1} s", ms as f64 / 1000.0),
        10..=59 => format!("{s} s"),
        60..=3599 => format!("{} min {:02} s", s / 60, s % 60),
        _ => format!("{} h {:02} min", s / 3600, (s % 3600) / 60),
    }
}

/// `n` things, in words: `1 link outage`, `2 link outages`.
fn plural(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

/// A time the device link was down, or Pitwatch was not recording, at one table.
struct Gap {
    table: String,
    from_ms: i64,
    to_ms: Option<i64>,
    /// Pitwatch was not running (not a link outage).
    recording: bool,
    what: String,
}

impl Gap {
    /// The part of the gap inside the shift, in ms.
    fn within(&self, shift: &Shift) -> i64 {
        let start = self.from_ms.max(shift.from.unix_millis());
        let end = self.to_ms.unwrap_or(i64::MAX).min(shift.to.unix_millis());
        (end - start).max(0)
    }
}

/// The gaps between a table's device sessions that overlap the shift.
fn gaps(
    store: &Store,
    table: &pitwatch_store::TableRow,
    shift: &Shift,
) -> Result<Vec<Gap>, StoreError> {
    let parse = |text: &str| text.parse::<Timestamp>().ok().map(Timestamp::unix_millis);
    let sessions = store.sessions(table.id)?;
    let mut gaps = Vec::new();
    for (i, session) in sessions.iter().enumerate() {
        let next = sessions.get(i + 1);
        let back = next.and_then(|n| parse(&n.started_at));
        let (from_ms, recording, what) = match (&session.ended_at, next) {
            (Some(ended), _) => {
                let reason = session.end_reason.clone().unwrap_or_default();
                let recording = reason == STOPPED_BY_HOST;
                let what = if recording {
                    "Pitwatch stopped: not recording".to_owned()
                } else {
                    format!("link lost: {reason}")
                };
                (parse(ended), recording, what)
            }
            // A session with no recorded end, followed by another: Pitwatch stopped without
            // recording the end (a crash or power cut); the gap starts at its last bytes.
            (None, Some(_)) => (
                store
                    .last_chunk_at(session.id)?
                    .or_else(|| parse(&session.started_at)),
                true,
                "Pitwatch stopped without closing the session: not recording".to_owned(),
            ),
            // Still connected.
            (None, None) => continue,
        };
        let Some(from_ms) = from_ms else { continue };
        let gap = Gap {
            table: table.name.clone(),
            from_ms,
            to_ms: back,
            recording,
            what,
        };
        if gap.within(shift) > 0 {
            gaps.push(gap);
        }
    }
    Ok(gaps)
}

/// The record section of a shift report: the head of every hash chain (its row count and the
/// last row's hash) as the record holds it at export, and how to check it.
fn or_none(rows: Vec<Vec<String>>, none: &str, columns: Vec<String>, widths: Vec<u32>) -> Block {
    if rows.is_empty() {
        Block::Paragraph { text: none.into() }
    } else {
        Block::Table {
            columns,
            widths,
            rows,
        }
    }
}

/// Column heads, each `… (UTC)` worded by [`Times::head`] for the report's zone.
fn heads(times: &Times, columns: &[&str]) -> Vec<String> {
    columns
        .iter()
        .map(|c| {
            c.strip_suffix(" (UTC)")
                .map_or_else(|| (*c).to_owned(), |what| times.head(what))
        })
        .collect()
}

/// The shift handover report: every table's shoes and rounds, the incidents opened,
/// acknowledged, resolved, reopened (with the reason) and still open at the end (who and when),
/// device errors and link outages with their durations, the hand-over sign-offs of the period with
/// the incoming supervisor's acceptance of each, and the chain heads the
/// next shift checks the record against. `db_name` names the record in the checking instructions.
pub fn shift_report(store: &Store, shift: &Shift, db_name: &str) -> Result<Document, StoreError> {
    shift_report_with(store, shift, db_name, Some(&BTreeMap::new()))
}

/// [`shift_report`] with its dealers' section as asked: with `Some(own)` each table held to its
/// game's pace target, or to `own`'s rounds an hour for the tables it names (the pit
/// definition's `pace_target`); with `None` the section is left out, saying so (the dealers'
/// figures are for supervisors and administrators only).
pub fn shift_report_with(
    store: &Store,
    shift: &Shift,
    db_name: &str,
    dealers: Option<&BTreeMap<String, u32>>,
) -> Result<Document, StoreError> {
    let site = site(store)?;
    let times = Times::of(store)?;
    let tables: Vec<_> = store
        .tables()?
        .into_iter()
        .filter(|t| shift.covers(&t.name))
        .collect();
    if let Some(name) = &shift.table {
        if tables.is_empty() {
            return Err(StoreError::NotFound(format!("no table named {name:?}")));
        }
    }
    let play = store.play_between(shift.from, shift.to)?;
    let opened = store.incidents(&pitwatch_store::IncidentFilter {
        table: shift.table.clone(),
        since: Some(shift.from),
        until: Some(shift.to),
        ..Default::default()
    })?;
    let changes: Vec<_> = store
        .incident_changes_between(shift.from, shift.to)?
        .into_iter()
        .filter(|c| shift.covers(&c.table))
        .collect();
    let unresolved: Vec<_> = store
        .unresolved_at(shift.to)?
        .into_iter()
        .filter(|u| shift.covers(&u.table))
        .collect();
    let errors: Vec<_> = store
        .device_errors_between(shift.from, shift.to)?
        .into_iter()
        .filter(|e| shift.covers(&e.table))
        .collect();
    let mut all_gaps = Vec::new();
    for table in &tables {
        all_gaps.extend(gaps(store, table, shift)?);
    }
    let sign_offs: Vec<(pitwatch_store::AuditEntry, SignOff)> = store
        .audit_entries(SHIFT_SIGN_OFF)?
        .into_iter()
        .filter_map(|entry| {
            let sign_off: SignOff = serde_json::from_str(&entry.detail).ok()?;
            let overlaps = sign_off.from < shift.to && sign_off.to > shift.from;
            let same_tables = match (&shift.table, &sign_off.table) {
                (_, None) => true,
                (Some(a), Some(b)) => a == b,
                (None, Some(_)) => true,
            };
            (overlaps && same_tables).then_some((entry, sign_off))
        })
        .collect();
    // The incoming supervisor's acceptance of each sign-off, when recorded.
    let acceptances: Vec<(Acceptance, pitwatch_store::AuditEntry)> = store
        .audit_entries(SHIFT_ACCEPT)?
        .into_iter()
        .filter_map(|entry| Some((serde_json::from_str(&entry.detail).ok()?, entry)))
        .collect();
    let accepted = |sign_off: &pitwatch_store::AuditEntry| {
        acceptances
            .iter()
            .find(|(a, _)| a.sign_off == sign_off.id)
            .map(|(_, e)| e)
    };

    let acknowledged = changes
        .iter()
        .filter(|c| c.status == "acknowledged")
        .count();
    let resolved = changes.iter().filter(|c| c.status == "resolved").count();
    let reopened = changes.iter().filter(|c| c.status == "reopened").count();
    let rounds: u64 = play
        .iter()
        .filter(|p| tables.iter().any(|t| t.id == p.table))
        .map(|p| p.rounds)
        .sum();
    let hours = (shift.to.unix_millis() - shift.from.unix_millis()) as f64 / 3_600_000.0;
    let scope = shift.table.as_ref().map_or_else(
        || format!("all {} tables", tables.len()),
        |t| format!("table {t}"),
    );

    let mut blocks = vec![
        Block::Heading {
            text: "Shift".into(),
        },
        Block::Fields {
            fields: vec![
                ("Site".into(), site.clone()),
                (
                    times.head("Period"),
                    format!(
                        "{} to {} ({hours:.1} h)",
                        times.cell(shift.from),
                        times.cell(shift.to)
                    ),
                ),
                ("Tables".into(), scope.clone()),
                ("Rounds played".into(), rounds.to_string()),
                (
                    "Incidents".into(),
                    format!(
                        "{} opened, {acknowledged} acknowledged, {resolved} resolved, {}{} still \
                         open at the end",
                        opened.len(),
                        if reopened > 0 {
                            format!("{reopened} reopened, ")
                        } else {
                            String::new()
                        },
                        unresolved.len()
                    ),
                ),
                (
                    "Device errors".into(),
                    format!(
                        "{} open during the shift",
                        plural(errors.len(), "device error", "device errors")
                    ),
                ),
                (
                    "Link outages".into(),
                    format!(
                        "{}; {}",
                        plural(
                            all_gaps.iter().filter(|g| !g.recording).count(),
                            "link outage",
                            "link outages"
                        ),
                        plural(
                            all_gaps.iter().filter(|g| g.recording).count(),
                            "gap in recording",
                            "gaps in recording"
                        ),
                    ),
                ),
                (
                    "Signed off".into(),
                    if sign_offs.is_empty() {
                        "not yet".into()
                    } else {
                        sign_offs
                            .iter()
                            .map(|(e, _)| {
                                let signed = format!("{} at {}", e.user, times.cell_text(&e.at));
                                match accepted(e) {
                                    Some(a) => format!(
                                        "{signed}, accepted by {} at {}",
                                        a.user,
                                        times.cell_text(&a.at)
                                    ),
                                    None => format!("{signed}, not accepted yet"),
                                }
                            })
                            .collect::<Vec<_>>()
                            .join("; ")
                    },
                ),
            ],
        },
    ];

    blocks.push(Block::Heading {
        text: "Tables".into(),
    });
    blocks.push(Block::Table {
        columns: [
            "Table",
            "Rule book",
            "Shoes",
            "Shoes started",
            "Rounds",
            "Incidents opened",
            "Device errors",
            "Link down",
            "Not recording",
        ]
        .map(String::from)
        .to_vec(),
        widths: vec![10, 16, 7, 8, 8, 9, 8, 10, 10],
        rows: tables
            .iter()
            .map(|t| {
                let tally = play.iter().find(|p| p.table == t.id);
                let gap_total = |recording: bool| {
                    let ms: i64 = all_gaps
                        .iter()
                        .filter(|g| g.table == t.name && g.recording == recording)
                        .map(|g| g.within(shift))
                        .sum();
                    if ms == 0 {
                        "-".to_owned()
                    } else {
                        duration(ms)
                    }
                };
                vec![
                    t.name.clone(),
                    t.rule_book.clone(),
                    tally.map_or(0, |p| p.shoes).to_string(),
                    tally.map_or(0, |p| p.shoes_started).to_string(),
                    tally.map_or(0, |p| p.rounds).to_string(),
                    opened
                        .iter()
                        .filter(|i| i.table == t.name)
                        .count()
                        .to_string(),
                    errors
                        .iter()
                        .filter(|e| e.table == t.name)
                        .count()
                        .to_string(),
                    gap_total(false),
                    gap_total(true),
                ]
            })
            .collect(),
    });

    match dealers {
        Some(own) => blocks.extend(super::dealers::shift_section(
            store,
            &tables,
            (shift.from, shift.to),
            own,
            &times,
        )?),
        None => blocks.extend([
            Block::Heading {
                text: "Dealers".into(),
            },
            Block::Paragraph {
                text: "Not in this copy: the dealers' figures are for supervisors and \
                       administrators only."
                    .into(),
            },
        ]),
    }

    blocks.push(Block::Heading {
        text: "Incidents opened".into(),
    });
    blocks.push(or_none(
        opened
            .iter()
            .map(|i| {
                vec![
                    i.id.0.to_string(),
                    i.table.clone(),
                    times.cell_text(&i.opened_at),
                    words::irregularity_label(&i.code),
                    words::severity(&i.severity).to_owned(),
                    format!(
                        "{} / {}",
                        i.shoe.map_or_else(|| "-".into(), |s| s.to_string()),
                        i.round.map_or_else(|| "-".into(), |r| r.to_string())
                    ),
                    words::incident_step(i.status.as_str()).to_owned(),
                ]
            })
            .collect(),
        "No incident was opened in this shift.",
        heads(
            &times,
            &[
                "#",
                "Table",
                "Opened (UTC)",
                "Irregularity",
                "Severity",
                "Shoe / round",
                "Status now",
            ],
        ),
        vec![5, 8, 17, 30, 8, 9, 12],
    ));

    blocks.push(Block::Heading {
        text: "Acknowledged, resolved and reopened".into(),
    });
    blocks.push(or_none(
        changes
            .iter()
            .map(|c| {
                vec![
                    c.incident.0.to_string(),
                    c.table.clone(),
                    words::irregularity_label(&c.code),
                    words::incident_step(&c.status).to_owned(),
                    times.cell_text(&c.at),
                    c.user.clone().unwrap_or_default(),
                    c.resolution.clone().unwrap_or_default(),
                ]
            })
            .collect(),
        "No incident was acknowledged, resolved or reopened in this shift.",
        heads(
            &times,
            &[
                "#",
                "Table",
                "Irregularity",
                "Step",
                "When (UTC)",
                "By",
                "Resolution or reason",
            ],
        ),
        vec![4, 8, 30, 13, 17, 12, 18],
    ));

    blocks.push(Block::Heading {
        text: "Still open at the end of the shift".into(),
    });
    blocks.push(or_none(
        unresolved
            .iter()
            .map(|u| {
                vec![
                    u.incident.0.to_string(),
                    u.table.clone(),
                    times.cell_text(&u.opened_at),
                    words::irregularity_label(&u.code),
                    words::severity(&u.severity).to_owned(),
                    match &u.by {
                        Some(by) => {
                            format!("Acknowledged by {by} at {}", times.cell_text(&u.since))
                        }
                        None => words::incident_step(&u.status).to_owned(),
                    },
                ]
            })
            .collect(),
        "Every incident was resolved by the end of the shift.",
        heads(
            &times,
            &[
                "#",
                "Table",
                "Opened (UTC)",
                "Irregularity",
                "Severity",
                "Status at the end",
            ],
        ),
        vec![5, 8, 17, 30, 8, 28],
    ));

    blocks.push(Block::Heading {
        text: "Device errors".into(),
    });
    blocks.push(or_none(
        errors
            .iter()
            .map(|e| {
                let end = e.cleared_ms.unwrap_or(shift.to.unix_millis());
                vec![
                    e.table.clone(),
                    e.code.clone(),
                    e.text.clone(),
                    times.cell_ms(e.raised_ms),
                    e.cleared_ms
                        .map_or_else(|| "not cleared".to_owned(), |ms| times.cell_ms(ms)),
                    if e.cleared_ms.is_some() {
                        duration(end - e.raised_ms)
                    } else {
                        format!("over {}", duration(end - e.raised_ms))
                    },
                    e.incident.0.to_string(),
                ]
            })
            .collect(),
        "No device reported an error in this shift.",
        heads(
            &times,
            &[
                "Table",
                "Device's code",
                "Device's text",
                "Raised (UTC)",
                "Cleared (UTC)",
                "Duration",
                "Incident",
            ],
        ),
        vec![9, 7, 22, 18, 18, 10, 8],
    ));

    blocks.push(Block::Heading {
        text: "Device links and recording".into(),
    });
    blocks.push(or_none(
        all_gaps
            .iter()
            .map(|g| {
                let end = g.to_ms.unwrap_or(shift.to.unix_millis());
                vec![
                    g.table.clone(),
                    times.cell_ms(g.from_ms),
                    g.to_ms.map_or_else(
                        || "not back (as recorded)".to_owned(),
                        |ms| times.cell_ms(ms),
                    ),
                    if g.to_ms.is_some() {
                        duration(end - g.from_ms)
                    } else {
                        format!("over {}", duration(end - g.from_ms))
                    },
                    g.what.clone(),
                ]
            })
            .collect(),
        "Every device link stayed up while Pitwatch recorded this shift.",
        heads(
            &times,
            &[
                "Table",
                "Down from (UTC)",
                "Back (UTC)",
                "Duration",
                "What happened",
            ],
        ),
        vec![9, 18, 18, 13, 32],
    ));

    blocks.push(Block::Heading {
        text: "Hand-over sign-offs".into(),
    });
    blocks.push(or_none(
        sign_offs
            .iter()
            .map(|(entry, s)| {
                vec![
                    entry.user.clone(),
                    times.cell_text(&entry.at),
                    format!("{} to {}", times.cell(s.from), times.cell(s.to)),
                    s.table.clone().unwrap_or_else(|| "all".into()),
                    accepted(entry).map_or_else(
                        || "not accepted yet".to_owned(),
                        |a| format!("{} at {}", a.user, times.cell_text(&a.at)),
                    ),
                    s.note.clone(),
                ]
            })
            .collect(),
        "Nobody has signed off a hand-over for this period yet.",
        heads(
            &times,
            &[
                "Signed by",
                "At (UTC)",
                "Shift signed off (UTC)",
                "Tables",
                "Accepted by (UTC)",
                "Note",
            ],
        ),
        vec![10, 11, 18, 5, 14, 32],
    ));

    // The latest signed checkpoint and the key's fingerprint, for the handover sheet: the next
    // shift and any auditor check the record against them with `pitwatch verify --checkpoint`.
    // A quick check (milliseconds) says at export whether the record still proves itself.
    blocks.extend(integrity_blocks(
        store,
        Vec::new(),
        db_name,
        pitwatch_store::Depth::Quick,
    )?);

    Ok(Document {
        title: format!(
            "Shift report {} to {}",
            times.cell(shift.from),
            times.cell(shift.to)
        ),
        subtitle: format!("{site} · {scope} · times in {}", times.name()),
        footer: format!(
            "Pitwatch shift report · {} to {}",
            times.cell(shift.from),
            times.stamped(shift.to)
        ),
        build: pitwatch_report::build::label(),
        author: String::new(),
        created: None,
        blocks,
    })
}
