//! The incident workflow: acknowledge, note, resolve, reopen, each by an authenticated user whose
//! role allows it (see [`crate::access`]), chained and audited by the store.
//!
//! Resolving is accountable: the resolution is chosen from a list ([`ResolutionKind`]) with
//! written text beside it (required for "Other"), and only an acknowledged incident is resolved
//! ([`ACKNOWLEDGE_FIRST`]: no rule book Pitwatch checks says otherwise, so it is the policy of
//! every pit; see docs/workflow.md). A resolved incident is reopened with a reason; it is
//! then open again everywhere.

use std::collections::HashSet;

use pitwatch_api::convert::{describe, incident_row, printable, status_store};
use pitwatch_api::dto::{
    ApiError, ErrorCode, HistoryEntry, IncidentDetail, IncidentPage, IncidentQuery, IncidentRow,
    PitUpdate, ResolutionKind, RuleText, SurveillanceLog, TimelineEntry, DEFAULT_PAGE,
};
use pitwatch_api::games::stored_round;
use pitwatch_games::GameBook;
use pitwatch_model::Timestamp;
use pitwatch_store::{IncidentFilter, IncidentId, Status, Store, StoreError};

use crate::access::{require, Command, Principal};

use crate::live::Desk;

/// A step that does not fit the incident's state (acknowledging a resolved incident) is a
/// conflict, not bad input.
pub(crate) fn conflict(error: StoreError) -> ApiError {
    let api = ApiError::from(error);
    if api.code == ErrorCode::InvalidInput {
        ApiError::new(ErrorCode::Conflict, api.message)
    } else {
        api
    }
}

/// `who` acknowledges incident `id` (supervisors and administrators).
pub fn acknowledge(
    store: &mut Store,
    who: &Principal,
    id: i64,
    now: Timestamp,
) -> Result<(), ApiError> {
    require(
        store,
        who,
        Command::Acknowledge,
        &format!("incident {id}"),
        now,
    )?;
    store
        .acknowledge(IncidentId(id), who.actor(), now)
        .map_err(conflict)
}

/// `who` adds a note to incident `id` (every role).
pub fn add_note(
    store: &mut Store,
    who: &Principal,
    id: i64,
    text: &str,
    now: Timestamp,
) -> Result<(), ApiError> {
    require(store, who, Command::AddNote, &format!("incident {id}"), now)?;
    if text.trim().is_empty() {
        return Err(ApiError::new(ErrorCode::InvalidInput, "a note needs text"));
    }
    if text.trim_start().starts_with(SURVEILLANCE_HEADER) {
        return Err(ApiError::new(
            ErrorCode::InvalidInput,
            format!(
                "a note may not begin \"{SURVEILLANCE_HEADER}\": enter the surveillance log with its own fields"
            ),
        ));
    }
    store.add_note(IncidentId(id), who.actor(), text, now)?;
    Ok(())
}

/// The first line of a surveillance-log note: what marks a note as one.
pub const SURVEILLANCE_HEADER: &str = "Surveillance log";

/// The most characters one surveillance-log field may hold.
pub const SURVEILLANCE_FIELD_MAX: usize = 200;

/// `who` enters the surveillance log of incident `id` (issue 32): the camera or recording, its
/// time code, the disposition and the employees involved. It is kept as a note of its own form
/// ([`surveillance_note`]): chained, append-only and audited like every note, shown in the
/// incident's history and report, and listed in its evidence pack's manifest. A later entry adds
/// to the earlier ones; none replaces another. Every role that may add notes may enter it.
pub fn add_surveillance_log(
    store: &mut Store,
    who: &Principal,
    id: i64,
    log: &SurveillanceLog,
    now: Timestamp,
) -> Result<(), ApiError> {
    require(store, who, Command::AddNote, &format!("incident {id}"), now)?;
    let text = surveillance_note(log)?;
    store.add_note(IncidentId(id), who.actor(), &text, now)?;
    Ok(())
}

/// The note that keeps `log`, or every field that is missing or unfit, at once.
pub fn surveillance_note(log: &SurveillanceLog) -> Result<String, ApiError> {
    let mut problems = Vec::new();
    let mut field = |name: &str, value: &str, required: bool| -> String {
        let value = value.trim();
        if required && value.is_empty() {
            problems.push(format!("the {name} is missing"));
        }
        if value.chars().count() > SURVEILLANCE_FIELD_MAX {
            problems.push(format!(
                "the {name} is longer than {SURVEILLANCE_FIELD_MAX} characters"
            ));
        }
        if value.chars().any(char::is_control) {
            problems.push(format!(
                "the {name} holds a line break or control character"
            ));
        }
        value.to_owned()
    };
    let camera = field("camera or recording reference", &log.camera, true);
    let time_code = field("time code", &log.time_code, true);
    let disposition = field("disposition", &log.disposition, true);
    let employees: Vec<String> = log
        .employees
        .iter()
        .map(|e| field("employee's name", e, false))
        .filter(|e| !e.is_empty())
        .collect();
    if !problems.is_empty() {
        return Err(ApiError::new(
            ErrorCode::InvalidInput,
            format!(
                "the surveillance log is not complete: {}",
                problems.join("; ")
            ),
        ));
    }
    Ok(format!(
        "{SURVEILLANCE_HEADER}\nCamera or recording: {camera}\nTime code: {time_code}\n\
         Disposition: {disposition}\nEmployees involved: {}",
        if employees.is_empty() {
            "none named".to_owned()
        } else {
            employees.join("; ")
        }
    ))
}

/// Whether a note's text is a surveillance log's ([`surveillance_note`]).
pub fn is_surveillance_note(text: &str) -> bool {
    text.starts_with(&format!("{SURVEILLANCE_HEADER}\n"))
}

/// Whether an incident must be acknowledged before it is resolved: the default policy of every
/// pit, since no rule book Pitwatch checks lets a resolution skip the acknowledgement (see
/// docs/workflow.md).
pub const ACKNOWLEDGE_FIRST: bool = true;

/// `who` resolves incident `id` as `kind`, with `text` written beside it (required for
/// [`ResolutionKind::Other`]); see [`ResolutionKind::recorded`] for what the history, the report
/// and the audit trail keep (supervisors and administrators). An incident nobody has
/// acknowledged is refused ([`ACKNOWLEDGE_FIRST`]).
pub fn resolve(
    store: &mut Store,
    who: &Principal,
    id: i64,
    kind: ResolutionKind,
    text: &str,
    now: Timestamp,
) -> Result<(), ApiError> {
    require(store, who, Command::Resolve, &format!("incident {id}"), now)?;
    let resolution = kind.recorded(text).ok_or_else(|| {
        ApiError::new(
            ErrorCode::InvalidInput,
            format!(
                "a resolution of \"{}\" needs written text saying how incident {id} was resolved",
                kind.words()
            ),
        )
    })?;
    let incident = store.incident(IncidentId(id))?;
    if ACKNOWLEDGE_FIRST && incident.status == Status::Open {
        return Err(ApiError::new(
            ErrorCode::Conflict,
            format!(
                "incident {id} has not been acknowledged: acknowledge it first, then resolve it"
            ),
        ));
    }
    store
        .resolve(IncidentId(id), who.actor(), &resolution, now)
        .map_err(conflict)
}

/// `who` reopens resolved incident `id`, saying why (supervisors and administrators, as for
/// resolving); audited, and in the incident's history. It is open again: acknowledged and
/// resolved again like any other.
pub fn reopen(
    store: &mut Store,
    who: &Principal,
    id: i64,
    reason: &str,
    now: Timestamp,
) -> Result<(), ApiError> {
    require(store, who, Command::Reopen, &format!("incident {id}"), now)?;
    if reason.trim().is_empty() {
        return Err(ApiError::new(
            ErrorCode::InvalidInput,
            format!("reopening incident {id} needs a reason"),
        ));
    }
    store
        .reopen(IncidentId(id), who.actor(), reason, now)
        .map_err(conflict)
}

/// One page of the incidents of `store` matching `query`, newest first, with the cursor for the
/// next page and how many match in all. Filters and the page are applied by the store, with its
/// indexes, so a page costs the same however long the record is. (The workstation's list and
/// the surveillance view's, per workstation, alike.)
pub(crate) fn incident_page(
    store: &Store,
    query: &IncidentQuery,
) -> Result<IncidentPage, ApiError> {
    let invalid = |m: String| ApiError::new(ErrorCode::InvalidInput, m);
    let time = |field: &str, text: &Option<String>| -> Result<Option<Timestamp>, ApiError> {
        match text.as_deref().map(str::trim) {
            None | Some("") => Ok(None),
            Some(t) => t
                .parse::<Timestamp>()
                .map(Some)
                .map_err(|e| invalid(format!("{field}: {e}"))),
        }
    };
    let nonempty = |text: &Option<String>| {
        text.as_deref()
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(str::to_owned)
    };
    let filter = IncidentFilter {
        table: nonempty(&query.table),
        status: query.status.map(status_store),
        unresolved: query.unresolved,
        severity: query.severity.map(|s| s.as_str().to_owned()),
        code: nonempty(&query.code),
        since: time("since", &query.since)?,
        until: time("until", &query.until)?,
    };
    let limit = query.limit.unwrap_or(DEFAULT_PAGE);
    let page = store.incident_page(&filter, query.before.map(IncidentId), limit)?;
    let incidents: Vec<IncidentRow> = page.incidents.iter().map(incident_row).collect();
    Ok(IncidentPage {
        next: if page.more {
            incidents.last().map(|r| r.id)
        } else {
            None
        },
        incidents,
        total: page.total,
    })
}

/// Incident `id` of `store` with its rule texts (from the rule book `rule_book_of` gives for its
/// table), evidence timeline, round and history.
pub(crate) fn incident_detail(
    store: &Store,
    id: i64,
    rule_book_of: impl Fn(&str) -> String,
) -> Result<IncidentDetail, ApiError> {
    let incident = store.incident(IncidentId(id))?;
    let rule_book = rule_book_of(&incident.table);
    // The table's book, of whatever game: the rule text comes from the right book.
    let rule_texts = GameBook::load(&rule_book)
        .map(|book| {
            book.rule_texts(&incident.rule)
                .into_iter()
                .map(|(number, text)| RuleText { number, text })
                .collect()
        })
        .unwrap_or_default();
    let mut timeline = Vec::new();
    let mut round = None;
    if let Some(table) = store.table_id(&incident.table)? {
        if let (Some(shoe), Some(number)) = (incident.shoe, incident.round) {
            round = store
                .round(table, shoe, number)?
                .and_then(|body| stored_round(&body));
        }
        let evidence: HashSet<u64> = incident.evidence.iter().copied().collect();
        let mut lo = incident
            .evidence
            .iter()
            .copied()
            .min()
            .unwrap_or(incident.seq);
        let mut hi = incident
            .evidence
            .iter()
            .copied()
            .max()
            .unwrap_or(incident.seq);
        lo = lo.min(incident.seq);
        hi = hi.max(incident.seq);
        if let Some(r) = &round {
            lo = lo.min(r.first_seq());
            hi = hi.max(r.last_seq());
        }
        let lo = lo.saturating_sub(3);
        let hi = hi + 3;
        // Only the events around the incident are read, however long the record is.
        for row in store.event_rows_between(table, lo, hi)? {
            timeline.push(TimelineEntry {
                seq: row.event.seq,
                at: row.event.at.map(|t| t.to_string()),
                what: describe(&row.event.kind),
                evidence: evidence.contains(&row.event.seq),
                console: row.frame.is_none(),
                frame: row
                    .frame
                    .and_then(|id| store.frame(id).ok())
                    .map(|f| printable(&f.bytes)),
            });
            if timeline.len() >= 80 {
                break;
            }
        }
    }
    let mut history: Vec<HistoryEntry> = store
        .incident_history(IncidentId(id))?
        .into_iter()
        .map(|step| HistoryEntry {
            at: step.at,
            user: step.user,
            what: step.what,
            text: step.text,
        })
        .collect();
    // A device liveness incident: when the device was back, and after how long (an audit row
    // on the incident, `device.back`).
    for detail in store.audit_details(
        pitwatch_recording::liveness::DEVICE_BACK,
        &format!("incident {id}"),
    )? {
        if let Some((_, at, words)) = pitwatch_recording::recorder::parse_back(&detail) {
            history.push(HistoryEntry {
                at: at.to_string(),
                user: Some("pitwatch".into()),
                what: "device back".into(),
                text: Some(words.to_owned()),
            });
        }
    }
    // The store lists status changes before notes; people read a history in time order.
    history.sort_by(|a, b| a.at.cmp(&b.at));
    Ok(IncidentDetail {
        incident: incident_row(&incident),
        rule_book,
        rule_texts,
        timeline,
        round,
        history,
    })
}

impl Desk {
    /// One page of the incidents matching `query` (see [`incident_page`]); an inspector's read
    /// is audited (`incidents.list`).
    pub fn incidents(&self, query: &IncidentQuery) -> Result<IncidentPage, ApiError> {
        self.audit_inspection(crate::viewed::INCIDENTS_READ, "incidents")?;
        incident_page(&self.record.store(), query)
    }

    /// One incident with its rule texts, evidence timeline, round and history; the look is
    /// audited (`incident.view`, see `viewed.rs`).
    pub fn incident(&self, id: i64) -> Result<IncidentDetail, ApiError> {
        let detail = {
            let store = self.record.store();
            incident_detail(&store, id, |table| {
                self.pit
                    .tables
                    .iter()
                    .find(|t| t.name == table)
                    .map(|t| t.rules.clone())
                    .unwrap_or_default()
            })?
        };
        self.audit_view(crate::viewed::INCIDENT_VIEWED, &id.to_string())?;
        Ok(detail)
    }

    fn changed(&self, id: i64) -> Result<IncidentRow, ApiError> {
        let (row, counts) = {
            let store = self.record.store();
            let row = incident_row(&store.incident(IncidentId(id))?);
            (row, store.open_counts()?)
        };
        // Sent while the model is held, as the fold thread sends its tiles: a reload's new tile
        // list is never followed by a tile taken before it.
        let mut model = self.live.model();
        model.set_incident_counts(&counts);
        self.live.send(PitUpdate::IncidentChanged {
            incident: row.clone(),
        });
        if let Some(table) = model.table(&row.table) {
            self.live.send(PitUpdate::Table {
                table: Box::new(table),
            });
        }
        drop(model);
        Ok(row)
    }

    /// The logged-in user acknowledges incident `id`.
    pub fn acknowledge(&self, id: i64) -> Result<IncidentRow, ApiError> {
        let who = self.principal()?;
        acknowledge(&mut self.record.store(), &who, id, self.clock.now())?;
        self.changed(id)
    }

    /// The logged-in user adds a note to incident `id`.
    pub fn add_note(&self, id: i64, text: &str) -> Result<IncidentRow, ApiError> {
        let who = self.principal()?;
        add_note(&mut self.record.store(), &who, id, text, self.clock.now())?;
        self.changed(id)
    }

    /// The logged-in user enters incident `id`'s surveillance log ([`add_surveillance_log`]).
    pub fn add_surveillance_log(
        &self,
        id: i64,
        log: &SurveillanceLog,
    ) -> Result<IncidentRow, ApiError> {
        let who = self.principal()?;
        add_surveillance_log(&mut self.record.store(), &who, id, log, self.clock.now())?;
        self.changed(id)
    }

    /// The logged-in user resolves incident `id` as `kind` with `outcome` written beside it
    /// (no kind: `outcome` alone, as [`ResolutionKind::Other`]).
    pub fn resolve(
        &self,
        id: i64,
        outcome: &str,
        kind: Option<ResolutionKind>,
    ) -> Result<IncidentRow, ApiError> {
        let who = self.principal()?;
        let kind = kind.unwrap_or(ResolutionKind::Other);
        resolve(
            &mut self.record.store(),
            &who,
            id,
            kind,
            outcome,
            self.clock.now(),
        )?;
        self.changed(id)
    }

    /// The logged-in user reopens resolved incident `id`, saying why.
    pub fn reopen(&self, id: i64, reason: &str) -> Result<IncidentRow, ApiError> {
        let who = self.principal()?;
        reopen(&mut self.record.store(), &who, id, reason, self.clock.now())?;
        self.changed(id)
    }
}
