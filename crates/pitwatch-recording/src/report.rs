//! Incident and shoe reports, built from the record alone, as [`pitwatch_report::Document`]s
//! (rendered to PDF, CSV or JSON by the caller).
//!
//! An incident report is what a regulator or a dispute needs: the site, table and device; the
//! rule cited, from the table's rule book; the round's cards; the evidence timeline of frames and
//! events with their times and sequence numbers; the notes and sign-offs; and the hash that
//! anchors the report in the record's chain, checkable with `pitwatch verify`.

use std::collections::BTreeSet;

use pitwatch_model::Timestamp;
use pitwatch_report::{words, Block, Document};

use pitwatch_games::report::{book_fields, rounds_table};
use pitwatch_games::{GameBook, GameRound};
use pitwatch_store::{IncidentId, Store, StoreError, TableId};

/// A name as the start of a line reads it: `baccarat` → `Baccarat`.
fn capitalised(name: &str) -> String {
    let mut chars = name.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Writes the site the pit definition names into the record's facts (`site`, and `time_zone`
/// when one is given or was given before), where every report reads them: a chained fact each,
/// written only when it changes.
pub fn record_site(
    store: &mut Store,
    site: &crate::pit::SiteConfig,
    now: Timestamp,
) -> Result<(), StoreError> {
    store.set_meta("site", &site.name, now)?;
    match &site.time_zone {
        Some(zone) => store.set_meta(TIME_ZONE, zone, now),
        // A zone taken out of the definition: the reports go back to UTC.
        None if store.meta(TIME_ZONE)?.is_some() => store.set_meta(TIME_ZONE, "", now),
        None => Ok(()),
    }
}

/// The record's fact naming the site's time zone (an IANA name; empty or absent: UTC).
pub const TIME_ZONE: &str = "time_zone";

/// The site as the record's facts name it (the pit definition's `site.name`, written when
/// recording starts), or a note that the record does not name it.
fn site(store: &Store) -> Result<String, StoreError> {
    Ok(store
        .meta("site")?
        .unwrap_or_else(|| "(site not recorded)".into()))
}

fn hex(bytes: &[u8], limit: usize) -> String {
    let shown: Vec<String> = bytes
        .iter()
        .take(limit)
        .map(|b| format!("{b:02X}"))
        .collect();
    let more = if bytes.len() > limit {
        format!(" … (+{} bytes)", bytes.len() - limit)
    } else {
        String::new()
    };
    format!("{}{more}", shown.join(" "))
}

/// The rounds of shoe `shoe` of table `name` as a replay of the record gives them (the events
/// are chained and the carry into the shoe is checked against its chained fact; the derived
/// `rounds` table is never printed unchecked). Without a shoe start on record, the whole table.
fn replayed_rounds(store: &Store, name: &str, shoe: u32) -> Result<Vec<GameRound>, StoreError> {
    // A shoe whose device record was archived is replayed from the archive that holds it.
    if let Some(table) = store.table_id(name)? {
        if let Some((archive, _)) = crate::archived::archive_for_shoe(store, table, shoe)? {
            return replayed_rounds(&archive, name, shoe);
        }
    }
    let rounds_of = |run: crate::replay::ShoeRun| -> Vec<GameRound> {
        run.steps
            .iter()
            .flat_map(|step| step.outputs.iter())
            .filter_map(|output| match output {
                pitwatch_rules::TableOutput::Round(round) => Some(round.clone()),
                _ => None,
            })
            .collect()
    };
    let mut rounds: Vec<GameRound> = match crate::replay::replay_shoe(store, name, shoe) {
        Ok(run) => rounds_of(run),
        Err(StoreError::NotFound(_)) => crate::replay::rebuild(store, name)?
            .rounds()
            .cloned()
            .collect(),
        Err(e) => return Err(e),
    };
    // A round still open when the next shoe's shuffle came (a poker hand always is: it closes
    // at the next deck's shuffle) is output by that shoe's events.
    match crate::replay::replay_shoe(store, name, shoe.saturating_add(1)) {
        Ok(next) => {
            for round in rounds_of(next) {
                if round.shoe() == shoe
                    && !rounds
                        .iter()
                        .any(|r| r.shoe() == shoe && r.round() == round.round())
                {
                    rounds.push(round);
                }
            }
        }
        Err(StoreError::NotFound(_)) => {}
        Err(e) => return Err(e),
    }
    Ok(rounds.into_iter().filter(|r| r.shoe() == shoe).collect())
}

/// What a report says about the record it was made from: whether it proves itself (every chain,
/// the signature, the witnesses), the installation key's fingerprint, the latest signed
/// checkpoint (which anyone can check the record against later), and each chain's head.
pub fn integrity_blocks(
    store: &Store,
    mut fields: Vec<(String, String)>,
    db_name: &str,
    depth: pitwatch_store::Depth,
) -> Result<Vec<Block>, StoreError> {
    let report = store.verify_with(&store.verify_options(depth))?;
    fields.push((
        "Record at export".into(),
        if report.intact() && depth == pitwatch_store::Depth::Full {
            "intact: every chain verified, signed by a trusted key, no witness contradicts it"
                .into()
        } else if report.intact() {
            "intact at a quick check: signed by a trusted key up to its latest row, no witness \
             contradicts it, derived tables and schema as recorded (`pitwatch verify` hashes \
             every row again)"
                .into()
        } else {
            format!("NOT INTACT: {}", report.problems.join("; "))
        },
    ));
    if let Some(record) = &report.record {
        fields.push(("Record id".into(), record.clone()));
    }
    match &report.latest {
        Some(latest) => {
            fields.push(("Signing key".into(), latest.key.clone()));
            fields.push(("Latest checkpoint".into(), latest.text.to_string()));
        }
        None => fields.push((
            "Signing key".into(),
            "none: this record has no signed checkpoint".into(),
        )),
    }
    if !report.predating.is_empty() {
        fields.push((
            "Written before signing".into(),
            report
                .predating
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", "),
        ));
    }
    for chain in &report.chains {
        fields.push((
            format!("{} head", chain.table),
            format!(
                "{} rows, {}",
                chain.length,
                if chain.head.is_empty() {
                    "-"
                } else {
                    &chain.head
                }
            ),
        ));
    }
    let anchor = if fields.iter().any(|(label, _)| label == "Anchor") {
        "; the anchor above must be the hash of that row"
    } else {
        ""
    };
    let check = match &report.latest {
        Some(latest) => format!(
            "Anyone holding the record can check it against this report: `pitwatch verify --db {db_name} --checkpoint '{}'` recomputes every chain, checks the signature and fails if the record no longer holds this checkpoint{anchor}.",
            latest.text
        ),
        None => format!("Anyone holding the record can check it: `pitwatch verify --db {db_name}` recomputes every chain{anchor}."),
    };
    Ok(vec![
        Block::Heading {
            text: "Integrity".into(),
        },
        Block::Fields { fields },
        Block::Paragraph { text: check },
    ])
}

/// What the host clock was worth when the incident was opened (`opened`, RFC 3339): the latest
/// clock sample on record at or before it ([`crate::clock::report_line`]), so the record's times
/// can be matched to CCTV time. The sample is a chained fact, checked with the rest below.
fn clock_at(store: &Store, times: &Times, opened: &str) -> Result<String, StoreError> {
    let Ok(at) = opened.parse::<Timestamp>() else {
        return Ok(crate::clock::report_line(None));
    };
    let sample = store
        .clock_sample_at(at.unix_millis())?
        .and_then(|(_, json)| serde_json::from_str::<crate::clock::ClockSample>(&json).ok());
    let line = crate::clock::report_line(sample.as_ref().map(|s| (s, times.stamped(s.at))));
    // A sample from long before: the monitor was not running then.
    let stale = sample
        .and_then(|s| crate::clock::stale_note(at.unix_millis() - s.at.unix_millis()))
        .unwrap_or_default();
    Ok(format!("{line}{stale}"))
}

/// The report of incident `id`. `db_name` is how the record file is named in the report's
/// verification instructions.
pub fn incident_report(
    store: &Store,
    id: IncidentId,
    db_name: &str,
) -> Result<Document, StoreError> {
    let incident = store.incident(id)?;
    let site = site(store)?;
    let times = Times::of(store)?;
    let table = store
        .table_id(&incident.table)?
        .ok_or_else(|| StoreError::NotFound(format!("no table {}", incident.table)))?;
    let table_row = store
        .tables()?
        .into_iter()
        .find(|t| t.id == table)
        .ok_or_else(|| StoreError::NotFound(format!("no table {}", incident.table)))?;
    let (anchor_row, anchor_hash) = store.incident_anchor(id)?;
    let mut blocks = Vec::new();

    blocks.push(Block::Heading {
        text: "Incident".into(),
    });
    blocks.push(Block::Fields {
        fields: vec![
            (
                "Irregularity".into(),
                words::irregularity(&incident.code)
                    .unwrap_or(&incident.code)
                    .to_owned(),
            ),
            ("Code".into(), incident.code.clone()),
            (
                "Severity".into(),
                words::severity(&incident.severity).to_owned(),
            ),
            (
                "Status".into(),
                words::incident_step(incident.status.as_str()).to_owned(),
            ),
            ("Opened".into(), times.stamped_text(&incident.opened_at)),
            (
                "Table".into(),
                format!("{} ({})", incident.table, capitalised(&table_row.game)),
            ),
            (
                "Shoe / round".into(),
                format!(
                    "shoe {}, round {}",
                    incident.shoe.map_or_else(|| "-".into(), |s| s.to_string()),
                    incident
                        .round
                        .map_or_else(|| "- (outside a round)".into(), |r| r.to_string())
                ),
            ),
            ("Raised at".into(), format!("event seq {}", incident.seq)),
            (
                "Evidence".into(),
                format!(
                    "event seq {}",
                    incident
                        .evidence
                        .iter()
                        .map(u64::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ),
        ],
    });
    blocks.push(Block::Paragraph {
        text: incident.message.clone(),
    });

    blocks.push(Block::Heading {
        text: "Rule cited".into(),
    });
    let mut fields = vec![("Rule".into(), incident.rule.clone())];
    fields.extend(book_fields(&table_row.rule_book));
    blocks.push(Block::Fields { fields });
    if let Ok(book) = GameBook::load(&table_row.rule_book) {
        let texts = book.rule_texts(&incident.rule);
        if texts.is_empty() {
            blocks.push(Block::Paragraph {
                text: "The rule book holds no text for this citation (its source pages do not \
                       contain it)."
                    .into(),
            });
        }
        for (number, text) in texts {
            blocks.push(Block::Paragraph {
                text: format!("Rule {number}:"),
            });
            blocks.push(Block::Verbatim { text });
        }
    }

    // The events and frames around the evidence.
    let events = store.event_rows(table)?;
    let evidence: BTreeSet<u64> = incident.evidence.iter().copied().collect();
    let first = evidence
        .iter()
        .next()
        .copied()
        .unwrap_or(incident.seq)
        .min(incident.seq);
    let last = evidence
        .iter()
        .next_back()
        .copied()
        .unwrap_or(incident.seq)
        .max(incident.seq);
    let window: Vec<_> = events
        .iter()
        .filter(|e| e.event.seq + 2 >= first && e.event.seq <= last + 2)
        .collect();

    blocks.push(Block::Heading {
        text: "Device".into(),
    });
    let session = window.iter().find_map(|e| e.session);
    let sessions = store.sessions(table)?;
    match sessions.iter().find(|s| Some(s.id) == session) {
        Some(s) => blocks.push(Block::Fields {
            fields: vec![
                ("Protocol".into(), s.device.protocol.clone()),
                (
                    "Make / model".into(),
                    format!("{} {}", s.device.make, s.device.model)
                        .trim()
                        .to_owned(),
                ),
                ("Serial number".into(), s.device.serial.clone()),
                ("Firmware".into(), s.device.firmware.clone()),
                ("Port".into(), s.device.port.clone()),
                (
                    "Session".into(),
                    format!(
                        "{} from {} to {}",
                        s.id.0,
                        times.stamped_text(&s.started_at),
                        s.ended_at.as_deref().map_or_else(
                            || "(still connected)".to_owned(),
                            |t| times.stamped_text(t)
                        )
                    ),
                ),
            ],
        }),
        None => blocks.push(Block::Paragraph {
            text: "The evidence was entered at the console; no device frame is involved.".into(),
        }),
    }

    let in_shoe = match incident.shoe {
        Some(shoe) => replayed_rounds(store, &incident.table, shoe)?,
        None => Vec::new(),
    };
    let rounds: Vec<GameRound> = in_shoe
        .into_iter()
        .filter(|r| {
            (Some(r.shoe()) == incident.shoe && Some(r.round()) == incident.round)
                || evidence
                    .iter()
                    .any(|s| (r.first_seq()..=r.last_seq()).contains(s))
        })
        .collect();
    blocks.push(Block::Heading {
        text: "Round".into(),
    });
    if rounds.is_empty() {
        blocks.push(Block::Paragraph {
            text: "No completed round is involved (the irregularity arose outside a round, or the round was not completed).".into(),
        });
    } else {
        blocks.push(rounds_table(&rounds));
    }

    blocks.push(Block::Heading {
        text: "Evidence timeline".into(),
    });
    blocks.push(Block::Paragraph {
        text: format!("Every event from just before the first to just after the last piece of evidence, with the device frame it came from. Evidence is marked with *. Times are the host's receive times ({}).", times.name()),
    });
    let mut rows = Vec::new();
    for row in &window {
        let mark = if evidence.contains(&row.event.seq) || row.event.seq == incident.seq {
            "*"
        } else {
            ""
        };
        // The event in words, its kind beside it for search ("Card 4S to Player, 1st card
        // (card_drawn)").
        let kind = row
            .event
            .to_json()
            .remove("event")
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default();
        let (at, frame) = match row.frame.map(|f| store.frame(f)).transpose()? {
            Some(frame) => (
                times.precise_ms(frame.received_at_ms),
                format!("#{} {}", frame.id.0, hex(&frame.bytes, 12)),
            ),
            None => (
                row.event.at.map_or_else(String::new, |t| times.precise(t)),
                if row.session.is_some() {
                    "event file (no frame)"
                } else {
                    "console"
                }
                .to_owned(),
            ),
        };
        rows.push(vec![
            format!("{mark}{}", row.event.seq),
            at,
            format!("{} ({kind})", events::describe(&row.event.kind)),
            frame,
        ]);
    }
    blocks.push(Block::Table {
        columns: vec![
            "Seq".into(),
            times.head("Time"),
            "Event".into(),
            "Frame".into(),
        ],
        widths: vec![6, 20, 30, 30],
        rows,
    });
    if let (Some(session), Some(first_frame), Some(last_frame)) = (
        session,
        window.iter().find_map(|e| e.frame),
        window.iter().rev().find_map(|e| e.frame),
    ) {
        let from = store.frame(first_frame)?.received_at_ms;
        let to = store.frame(last_frame)?.received_at_ms;
        let rejected: Vec<Vec<String>> = store
            .frames_between(session, from, to)?
            .into_iter()
            .filter(|f| !f.accepted)
            .map(|f| {
                vec![
                    format!("#{}", f.id.0),
                    times.precise_ms(f.received_at_ms),
                    f.reason.unwrap_or_default(),
                    hex(&f.bytes, 16),
                ]
            })
            .collect();
        if !rejected.is_empty() {
            blocks.push(Block::Paragraph {
                text: "Frames the codec rejected in the same span:".into(),
            });
            blocks.push(Block::Table {
                columns: vec![
                    "Frame".into(),
                    times.head("Time"),
                    "Reason".into(),
                    "Bytes".into(),
                ],
                widths: vec![6, 20, 30, 30],
                rows: rejected,
            });
        }
    }

    blocks.push(Block::Heading {
        text: "Notes and sign-offs".into(),
    });
    blocks.push(Block::Table {
        columns: vec![
            times.head("Time"),
            "Step".into(),
            "By".into(),
            "Text".into(),
        ],
        widths: vec![20, 12, 12, 40],
        rows: store
            .incident_history(id)?
            .into_iter()
            .map(|s| {
                vec![
                    times.cell_text(&s.at),
                    words::incident_step(&s.what).to_owned(),
                    s.user.unwrap_or_else(|| "Pitwatch".into()),
                    s.text.unwrap_or_default(),
                ]
            })
            .collect(),
    });

    blocks.extend(integrity_blocks(
        store,
        vec![
            (
                "Anchor".into(),
                format!("incident_changes row {anchor_row}, SHA-256 {anchor_hash}"),
            ),
            (
                "Host clock".into(),
                clock_at(store, &times, &incident.opened_at)?,
            ),
        ],
        db_name,
        pitwatch_store::Depth::Full,
    )?);

    Ok(Document {
        title: format!(
            "Incident {}: {}",
            id.0,
            words::irregularity_label(&incident.code)
        ),
        subtitle: format!(
            "{site} · table {} · opened {} · {}",
            incident.table,
            times.stamped_text(&incident.opened_at),
            words::incident_step(incident.status.as_str())
        ),
        footer: format!(
            "Pitwatch incident report {} · anchor {}",
            id.0,
            &anchor_hash[..16.min(anchor_hash.len())]
        ),
        build: pitwatch_report::build::label(),
        author: String::new(),
        created: None,
        blocks,
    })
}

/// The report of one shoe of a table: every round, and the incidents raised in it.
pub fn shoe_report(store: &Store, table_name: &str, shoe: u32) -> Result<Document, StoreError> {
    let table = store
        .table_id(table_name)?
        .ok_or_else(|| StoreError::NotFound(format!("no table named {table_name:?}")))?;
    let site = site(store)?;
    let rounds: Vec<GameRound> = replayed_rounds(store, table_name, shoe)?;
    if rounds.is_empty() {
        return Err(StoreError::NotFound(format!(
            "table {table_name} has no recorded round in shoe {shoe}"
        )));
    }
    let incidents: Vec<_> = store
        .incidents(&pitwatch_store::IncidentFilter {
            table: Some(table_name.to_owned()),
            ..Default::default()
        })?
        .into_iter()
        .filter(|i| i.shoe == Some(shoe))
        .collect();
    let mut blocks = vec![
        Block::Heading {
            text: "Rounds".into(),
        },
        rounds_table(&rounds),
    ];
    blocks.push(Block::Heading {
        text: "Irregularities".into(),
    });
    if incidents.is_empty() {
        blocks.push(Block::Paragraph {
            text: "None were raised in this shoe.".into(),
        });
    } else {
        blocks.push(Block::Table {
            columns: [
                "#",
                "Round",
                "Irregularity",
                "Severity",
                "Rule",
                "Status",
                "Message",
            ]
            .map(String::from)
            .to_vec(),
            widths: vec![4, 5, 25, 8, 10, 11, 30],
            rows: incidents
                .iter()
                .map(|i| {
                    vec![
                        i.id.0.to_string(),
                        i.round.map_or_else(|| "-".into(), |r| r.to_string()),
                        words::irregularity_label(&i.code),
                        words::severity(&i.severity).to_owned(),
                        i.rule.clone(),
                        words::incident_step(i.status.as_str()).to_owned(),
                        i.message.clone(),
                    ]
                })
                .collect(),
        });
    }
    // What is read off the shoe's device record comes from the archive that holds it, if the
    // shoe was archived (the incidents above are the live record's, with their current status).
    let archived = crate::archived::archive_for_shoe(store, table, shoe)?;
    let source = archived.as_ref().map_or(store, |(archive, _)| archive);
    blocks.extend(shuffle_blocks(source, table, shoe)?);
    blocks.extend(provenance_blocks(source, table_name, shoe)?);
    let row = store.tables()?.into_iter().find(|t| t.id == table);
    blocks.push(Block::Heading {
        text: "Rule book".into(),
    });
    blocks.push(Block::Fields {
        fields: book_fields(row.as_ref().map_or("nz-baccarat", |r| r.rule_book.as_str())),
    });
    let db_name = store
        .path()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "FILE".into());
    blocks.extend(integrity_blocks(
        store,
        Vec::new(),
        &db_name,
        pitwatch_store::Depth::Full,
    )?);
    if let Some((_, entry)) = &archived {
        blocks.push(Block::Fields {
            fields: vec![(
                "Device record".into(),
                format!(
                    "archive {} of this record ({}), SHA-256 {}; kept until {} ({})",
                    entry.number, entry.file, entry.sha256, entry.keep_until, entry.retention.cite
                ),
            )],
        });
    }
    Ok(Document {
        title: format!("Shoe {shoe} at {table_name}"),
        subtitle: format!(
            "{site} · {} rounds · {} irregularities",
            rounds.len(),
            incidents.len()
        ),
        footer: format!("Pitwatch shoe report · {table_name} shoe {shoe}"),
        build: pitwatch_report::build::label(),
        author: String::new(),
        created: None,
        blocks,
    })
}

/// The shoe report's "Provenance" section: where the shoe came from as its record says (the
/// shuffle, the shuffler's deck check, the cut and the cutting card, the time from the shuffle to
/// the first card; `pitwatch_games::pace::Provenance`).
fn provenance_blocks(store: &Store, table: &str, shoe: u32) -> Result<Vec<Block>, StoreError> {
    let run = match crate::replay::replay_shoe(store, table, shoe) {
        Ok(run) => run,
        // A shoe the record does not delimit (an old record): nothing to say of it.
        Err(StoreError::NotFound(_)) => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let p = pitwatch_games::pace::Provenance::of(run.steps.iter().map(|s| &s.event));
    let times = Times::of(store)?;
    let unknown = || "not recorded".to_owned();
    let fields = vec![
        (
            "Shuffled".to_owned(),
            match (p.shuffled_at, &p.shuffler) {
                (Some(at), Some(by)) => format!("{} ({by})", times.precise(at)),
                (Some(at), None) => times.precise(at),
                (None, _) => "no shuffle reported (the shoe began with its first card)".into(),
            },
        ),
        (
            "Decks".to_owned(),
            p.decks.map_or_else(unknown, |d| d.to_string()),
        ),
        (
            "Shuffler's deck check".to_owned(),
            match p.deck_check {
                Some(c) if c.whole() => {
                    format!("{} of {} cards, the decks whole", c.cards, c.expected)
                }
                Some(c) => format!(
                    "{} of {} cards: {} missing, {} extra, {} foreign",
                    c.cards, c.expected, c.missing, c.extra, c.foreign
                ),
                None => unknown(),
            },
        ),
        (
            "Cut".to_owned(),
            p.cut_position
                .map_or_else(unknown, |n| format!("{n} cards in front of the cut")),
        ),
        (
            "Cutting card".to_owned(),
            match (p.cutting_card_from_back, p.cutting_card_out_after) {
                (Some(back), Some(after)) => {
                    format!("placed {back} cards from the back; out after {after} cards")
                }
                (Some(back), None) => format!("placed {back} cards from the back"),
                (None, Some(after)) => format!("out after {after} cards"),
                (None, None) => unknown(),
            },
        ),
        (
            "First card".to_owned(),
            match (p.first_card_at, p.shuffle_to_first_card_ms()) {
                (Some(at), Some(ms)) => format!(
                    "{}, {:.0} s after the shuffle",
                    times.precise(at),
                    ms as f64 / 1000.0
                ),
                (Some(at), None) => times.precise(at),
                (None, _) => "no card drawn".into(),
            },
        ),
        ("Cards drawn".to_owned(), p.cards_drawn.to_string()),
    ];
    Ok(vec![
        Block::Heading {
            text: "Provenance".into(),
        },
        Block::Fields { fields },
    ])
}

/// The shoe report's "Shuffle" section: the shoe's order against the shoes before it
/// (`docs/shuffle.md`), derived from the recorded card events as every view derives it.
fn shuffle_blocks(store: &Store, table: TableId, shoe: u32) -> Result<Vec<Block>, StoreError> {
    let mut blocks = vec![Block::Heading {
        text: "Shuffle".into(),
    }];
    let judged = crate::shuffle::recorded_shoe_shuffles(store, table, &[shoe])?;
    let Some(judged) = judged.first() else {
        blocks.push(Block::Paragraph {
            text: pitwatch_games::report::SHUFFLE_NOT_ANALYSED.into(),
        });
        return Ok(blocks);
    };
    let a = &judged.analysis;
    let p = pitwatch_shuffle::watch::p;
    let mut fields = vec![(
        "Verdict".to_owned(),
        format!(
            "{}{}",
            a.label(),
            if judged.provisional {
                " (so far: the shoe is judged when the next one starts)"
            } else {
                ""
            }
        ),
    )];
    if a.verdict != pitwatch_shuffle::Verdict::NotCompared {
        let compared: Vec<String> = a
            .comparisons
            .iter()
            .map(|c| shoe.saturating_sub(c.shoes_back).to_string())
            .collect();
        fields.push(("Compared with shoes".into(), compared.join(", ")));
        fields.push((
            "Longest preserved run".into(),
            match &a.run {
                Some(run) => format!(
                    "{} cards: cards {}–{} of this shoe were cards {}–{} of shoe {} ({}); p {}",
                    run.length,
                    run.position,
                    run.position + run.length - 1,
                    run.previous_position,
                    run.previous_position + run.length - 1,
                    shoe.saturating_sub(run.shoes_back),
                    run.cards
                        .iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join(" "),
                    p(a.p_run)
                ),
                None => "none".into(),
            },
        ));
        fields.push((
            "Preserved pairs".into(),
            format!(
                "{} ({:.1} expected after a uniform shuffle); p {}",
                a.preserved_pairs,
                a.expected_pairs,
                p(a.p_pairs)
            ),
        ));
        fields.push(("Combined p-value".into(), p(a.p_value)));
    }
    fields.push((
        "Cards in the order".into(),
        format!("{} ({} unreadable), burn included", a.cards, a.unreadable),
    ));
    blocks.push(Block::Fields { fields });
    Ok(blocks)
}

mod dealers;
mod events;
mod exposure;
mod shift;
mod times;
pub use dealers::{dealer_csv, dealer_report, DealerQuery, DealerShift};
pub use events::describe;
pub use exposure::{exposure_csv, exposure_report, wagers_behind};
pub use shift::{
    record_sign_off, shift_report, shift_report_with, Acceptance, Shift, SignOff, SHIFT_ACCEPT,
    SHIFT_SIGN_OFF,
};
use times::Times;
