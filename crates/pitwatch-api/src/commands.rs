//! The desktop's commands, declared once: each command's name, arguments and result, with the
//! Rust types the shell's handlers take and return. `ui/src/lib/commands.ts` (one typed wrapper
//! per command) is generated from this list, as `bindings.ts` is from the DTOs, and the shell's
//! tests check that every command declared here is registered (`src-tauri`). `make bindings`
//! rewrites both files; `commands_are_current` fails when the committed one is stale.

use ts_rs::{Config, TS};

use crate::dto::{AccessListing, AccessReviewRequest, LogReviewRequest, ReviewRow, ReviewStatus};
use crate::dto::{
    ApiError, AuditRow, BookView, CentralIncidentDetail, CentralIncidents, CentralPit,
    ConsoleEntry, DeviceHealthBoard, EvidencePackFile, HandoverSummary, IncidentDetail,
    IncidentPage, IncidentQuery, IncidentRow, LinkTestRequest, LinkTestView, PitOverview,
    PitReload, RecordStatus, ResolutionKind, SerialPortView, Session, ShiftQuery, ShiftReportFile,
    ShoePage, ShoeReplay, SignOffRequest, SignedOff, TableDraft, UserRow,
};
use crate::dto::{DealersView, PaceAlertView};
use crate::dto::{ExposureAlert, PitExposure, ReportFormat, ShoeExposure, SurveillanceLog};

/// One argument: its name as the Rust handler has it, and its TypeScript type.
#[derive(Debug, Clone, Copy)]
pub struct Arg {
    /// The handler's parameter name (snake_case; the window sends it in camelCase).
    pub name: &'static str,
    /// Its TypeScript type.
    pub ts: fn(&Config) -> String,
}

/// One desktop command.
#[derive(Debug, Clone, Copy)]
pub struct CommandDecl {
    /// The command's name, as the window invokes it.
    pub name: &'static str,
    /// What it does (the wrapper's doc comment).
    pub doc: &'static str,
    /// Its arguments, in order.
    pub args: &'static [Arg],
    /// The TypeScript type of what it answers.
    pub returns: fn(&Config) -> String,
}

fn ts<T: TS>(cfg: &Config) -> String {
    T::name(cfg)
}

macro_rules! declare {
    ($( #[doc = $doc:literal] $name:ident ( $($arg:ident : $ty:ty),* ) -> $ret:ty; )*) => {
        /// Every desktop command, in the order the shell registers them.
        pub const COMMANDS: &[CommandDecl] = &[
            $( CommandDecl {
                name: stringify!($name),
                doc: $doc,
                args: &[ $( Arg { name: stringify!($arg), ts: ts::<$ty> } ),* ],
                returns: ts::<$ret>,
            } ),*
        ];
    };
}

declare! {
    #[doc = "Why the pit could not start, or null when it is running."]
    startup_error() -> Option<ApiError>;
    #[doc = "The pit now: every table's tile, the session, the demo login (demo only), the idle lock."]
    pit_overview() -> PitOverview;
    #[doc = "The record: its file, id, signing key's fingerprint, latest checkpoint and alerts."]
    record_status() -> RecordStatus;
    #[doc = "Logs a user in at this workstation (failures are audited and throttled)."]
    login(user: String, password: String) -> Session;
    #[doc = "Sets a user's own password (the old one checked as a login's is) and logs them in: how an expired password is replaced."]
    change_own_password(user: String, password: String, new_password: String) -> Session;
    #[doc = "Logs the current user out."]
    logout() -> ();
    #[doc = "Mutes (`muted` true) or unmutes the alarm's sound at this workstation, audited; answers whether it is muted (someone logged in only, any role)."]
    set_alarm_muted(muted: bool) -> bool;
    #[doc = "One page of the incidents matching `query`, newest first (filters and paging by the store)."]
    incidents(query: IncidentQuery) -> IncidentPage;
    #[doc = "One incident with its rule texts, evidence and history."]
    incident(id: i64) -> IncidentDetail;
    #[doc = "Acknowledges an incident (supervisors and admins)."]
    acknowledge(id: i64) -> IncidentRow;
    #[doc = "Adds a note to an incident (every role)."]
    add_note(id: i64, text: String) -> IncidentRow;
    #[doc = "Enters an incident's surveillance log (camera or recording, time code, disposition, employees involved) as a note of its own form, audited (every role that may add notes)."]
    add_surveillance_log(id: i64, log: SurveillanceLog) -> IncidentRow;
    #[doc = "Resolves an acknowledged incident (supervisors and admins): the resolution `kind` chosen, with `outcome` written beside it (required for `other`; null `kind`: `outcome` alone, as `other`)."]
    resolve(id: i64, outcome: String, kind: Option<ResolutionKind>) -> IncidentRow;
    #[doc = "Reopens a resolved incident, saying why (supervisors and admins)."]
    reopen(id: i64, reason: String) -> IncidentRow;
    #[doc = "Records at a table what no device can see (supervisors and admins); answers the event's seq."]
    record_console(table: String, entry: ConsoleEntry) -> u64;
    #[doc = "A shoe replayed from the record, step by step (the last shoe when `shoe` is null)."]
    replay(table: String, shoe: Option<u32>) -> ShoeReplay;
    #[doc = "A table's shoes, newest first: up to `limit` numbered below `before` (null: the newest)."]
    shoes(table: String, before: Option<u32>, limit: Option<u32>) -> ShoePage;
    #[doc = "Exports an incident's report as a PDF where the user chooses in the save dialog; answers where it was written, or null when the user cancelled."]
    export_incident_pdf(id: i64) -> Option<String>;
    #[doc = "Exports an incident's evidence pack (its report, its rows and the signed checkpoints over them, checked offline by `pitwatch verify --pack`) where the user chooses in the save dialog; null when the user cancelled."]
    export_evidence_pack(id: i64) -> Option<EvidencePackFile>;
    #[doc = "Exports the shift handover report as a PDF where the user chooses in the save dialog; null when the user cancelled."]
    export_shift_report(query: ShiftQuery) -> Option<ShiftReportFile>;
    #[doc = "Opens a report exported in this session with the workstation's PDF viewer."]
    open_report(path: String) -> ();
    #[doc = "Sends a report exported in this session to the workstation's printer (audited); answers what the print system said."]
    print_report(path: String) -> String;
    #[doc = "What the shift hands over: open incidents by severity, devices not connected, tables closed or disabled, and sign-offs of the period already on record."]
    handover_summary(query: ShiftQuery) -> HandoverSummary;
    #[doc = "Every device's health over a shift: connections, time connected and not, frames accepted and rejected, errors, compared with the devices of its kind (any logged-in user)."]
    device_health(query: ShiftQuery) -> DeviceHealthBoard;
    #[doc = "Signs off the handover of a shift with the user's password, accepted by the incoming supervisor with theirs (supervisors and admins; a period signed off once)."]
    sign_off_shift(query: ShiftQuery, request: SignOffRequest) -> SignedOff;
    #[doc = "Adds a user (admins only)."]
    add_user(name: String, role: String, password: String) -> UserRow;
    #[doc = "Gives a user another role (admins only; never leaving no active admin)."]
    change_role(name: String, role: String) -> UserRow;
    #[doc = "Sets a user's password (admins only; the password policy applies)."]
    reset_password(name: String, password: String) -> UserRow;
    #[doc = "Deactivates or reactivates a user (admins only; never the last active admin)."]
    set_active(name: String, active: bool) -> UserRow;
    #[doc = "Every user: name, role, when added, whether active (admins only)."]
    users() -> Vec<UserRow>;
    #[doc = "The newest audit rows, only logins and refusals when `access_only` (admins, surveillance and inspectors)."]
    audit(access_only: bool, limit: u32) -> Vec<AuditRow>;
    #[doc = "The access listing: every user with their role, status, password age, last login and live session, and what each role may do (admins and inspectors; audited for inspectors)."]
    access_listing() -> AccessListing;
    #[doc = "Exports the access listing as CSV where the user chooses in the save dialog (admins and inspectors; audited); null when the user cancelled."]
    export_access_listing() -> Option<String>;
    #[doc = "Where the periodic reviews stand: the last access review and log review, when each is due, and alerts for those overdue (any logged-in user)."]
    review_status() -> ReviewStatus;
    #[doc = "Signs the periodic review of the access listing read with `digest` (admins and inspectors; audited, chained)."]
    sign_access_review(request: AccessReviewRequest) -> ReviewRow;
    #[doc = "Signs the independent review of the audit log for a period (surveillance and inspectors, never an admin; audited, chained)."]
    sign_log_review(request: LogReviewRequest) -> ReviewRow;
    #[doc = "Applies the pit definition's file again: tables added, removed or changed are started and stopped, the others keep recording (admins only; audited)."]
    reload_pit() -> PitReload;
    #[doc = "The serial ports of this workstation, with their USB identity (administrators)."]
    serial_ports() -> Vec<SerialPortView>;
    #[doc = "Adds a table to the pit definition's file and starts it by a reload (administrators; audited with its section)."]
    add_table(draft: TableDraft) -> PitReload;
    #[doc = "A rule book's settings, each with the rule it cites, before it is given to a table (any logged-in user)."]
    rule_book(rules: String) -> BookView;
    #[doc = "Renames a table in the pit definition and applies it: it records under its new name from now on (admins only)."]
    rename_table(name: String, to: String) -> PitReload;
    #[doc = "Retires a table: its section leaves the pit definition and it stops recording; its record stays (admins only)."]
    retire_table(name: String) -> PitReload;
    #[doc = "Opens a device's link for a few seconds and decodes what arrives, before it is saved; records nothing (administrators; a port a running table uses is refused)."]
    test_link(request: LinkTestRequest) -> LinkTestView;
    #[doc = "Every table's exposure now, the tables most against the house first, with surveillance's alerts (surveillance and admins only; the look audited)."]
    pit_exposure() -> PitExposure;
    #[doc = "The exposure alerts of the shoes being dealt now, the newest first, for the banner every screen shows surveillance (surveillance and admins only; a look that shows alerts audited)."]
    exposure_alerts() -> Vec<ExposureAlert>;
    #[doc = "The pace alerts that hold now at the tables running ('pace below target', 'error burst'), the newest first, for the banner every screen shows supervisors (supervisors and admins only; a look that shows alerts audited)."]
    pace_alerts() -> Vec<PaceAlertView>;
    #[doc = "A table's dealers over its record: the rota, each dealer's figures against the table's target, the alerts (supervisors and admins only; the look audited)."]
    table_dealers(table: String) -> DealersView;
    #[doc = "Exports a table's dealers' report as PDF or CSV where the user chooses in the save dialog (supervisors and admins only; audited); null when the user cancelled."]
    export_dealers_report(table: String, format: ReportFormat) -> Option<String>;
    #[doc = "A shoe's exposure round by round from the record (the table's last shoe when `shoe` is null; surveillance and admins only; the look audited)."]
    shoe_exposure(table: String, shoe: Option<u32>) -> ShoeExposure;
    #[doc = "Exports a shoe's exposure report as PDF or CSV where the user chooses in the save dialog (surveillance and admins only; audited); null when the user cancelled."]
    export_exposure_report(table: String, shoe: u32, format: ReportFormat) -> Option<String>;
    #[doc = "Whether a real pit's record has no users yet (the window then asks for the first administrator)."]
    needs_first_admin() -> bool;
    #[doc = "Creates the first administrator of a record with no users and logs them in."]
    create_first_admin(name: String, password: String) -> Session;
    #[doc = "The central database (password hidden) when the window is the surveillance view (PITWATCH_CENTRAL), else null."]
    central_view() -> Option<String>;
    #[doc = "Signs in to the surveillance view with an account of workstation `workstation` (SITE/NAME)."]
    central_login(workstation: String, user: String, password: String) -> Session;
    #[doc = "Signs out of the surveillance view."]
    central_logout() -> ();
    #[doc = "Every workstation the viewer may see, with its tables and how far behind its copy is."]
    central_pits() -> Vec<CentralPit>;
    #[doc = "Incidents matching `query` of `workstation` (null: every workstation the viewer may see)."]
    central_incidents(workstation: Option<String>, query: IncidentQuery) -> Vec<CentralIncidents>;
    #[doc = "One incident of a workstation from the central copy, read-only, with where to work it."]
    central_incident(workstation: String, id: i64) -> CentralIncidentDetail;
    #[doc = "A shoe of a workstation's table replayed from the central copy (the last when `shoe` is null)."]
    central_replay(workstation: String, table: String, shoe: Option<u32>) -> ShoeReplay;
    #[doc = "A workstation's table's shoes from the central copy, newest first, for the replay picker."]
    central_shoes(workstation: String, table: String, before: Option<u32>, limit: Option<u32>) -> ShoePage;
}

fn camel(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper = false;
    for c in name.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// The DTO names a TypeScript type mentions (to import them from `bindings.ts`).
fn dto_names(ts: &str, into: &mut std::collections::BTreeSet<String>) {
    for word in ts.split(|c: char| !c.is_alphanumeric()) {
        if word.starts_with(|c: char| c.is_ascii_uppercase()) && word != "Array" {
            into.insert(word.to_owned());
        }
    }
}

/// `ui/src/lib/commands.ts`: one typed wrapper per command of [`COMMANDS`].
pub fn typescript_commands() -> String {
    let cfg = Config::new().with_large_int("number");
    let mut imports = std::collections::BTreeSet::new();
    let mut body = String::new();
    for command in COMMANDS {
        let args: Vec<(String, String)> = command
            .args
            .iter()
            .map(|a| (camel(a.name), (a.ts)(&cfg)))
            .collect();
        let returns = match (command.returns)(&cfg).as_str() {
            "null" => "void".to_owned(),
            other => other.to_owned(),
        };
        for (_, ts) in &args {
            dto_names(ts, &mut imports);
        }
        dto_names(&returns, &mut imports);
        let params: Vec<String> = args.iter().map(|(n, t)| format!("{n}: {t}")).collect();
        let names: Vec<&str> = args.iter().map(|(n, _)| n.as_str()).collect();
        let payload = if names.is_empty() {
            String::new()
        } else {
            format!(", {{ {} }}", names.join(", "))
        };
        body.push_str(&format!(
            "\n/** {} */\nexport function {}({}): Promise<{returns}> {{\n  return invoke<{returns}>(\"{}\"{payload});\n}}\n",
            command.doc,
            camel(command.name),
            params.join(", "),
            command.name,
        ));
    }
    let mut out = String::from(
        "// Generated from the command list in crates/pitwatch-api/src/commands.rs. Do not edit:\n\
         // run `make bindings` after changing it. `ipc.ts` wraps these (errors as ApiError).\n\
         import { invoke } from \"@tauri-apps/api/core\";\n",
    );
    let imports: Vec<String> = imports.into_iter().collect();
    out.push_str(&format!(
        "import type {{ {} }} from \"./bindings\";\n",
        imports.join(", ")
    ));
    out.push_str(&body);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn commands_are_current() {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../ui/src/lib/commands.ts");
        let generated = typescript_commands();
        if std::env::var_os("UPDATE_BINDINGS").is_some() {
            std::fs::write(&path, &generated).unwrap();
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == generated,
            "{} is stale: run `make bindings` and commit it",
            path.display()
        );
    }

    #[test]
    fn a_wrapper_names_its_arguments_as_the_window_sends_them() {
        let ts = typescript_commands();
        assert!(
            ts.contains("export function audit(accessOnly: boolean, limit: number): Promise<Array<AuditRow>> {\n  return invoke<Array<AuditRow>>(\"audit\", { accessOnly, limit });"),
            "{ts}"
        );
        assert!(
            ts.contains("export function logout(): Promise<void>"),
            "{ts}"
        );
        assert!(ts.contains("shoe: number | null"), "{ts}");
        let names: std::collections::HashSet<&str> = COMMANDS.iter().map(|c| c.name).collect();
        assert_eq!(names.len(), COMMANDS.len(), "each command declared once");
    }
}
