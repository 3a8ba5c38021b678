//! The Pitwatch desktop shell: Tauri v2 around the application API.
//!
//! This crate is deliberately thin. The commands are those of `pitwatch_api::commands::COMMANDS`
//! (from which the window's TypeScript wrappers are generated); a test checks each is registered. Each command is a one-line adapter into
//! [`pitwatch_app::Desk`] (the application layer, which checks the role of the logged-in user
//! on every command that changes the record); behaviour lives in the core crates, where it is tested without a
//! window. Live changes reach the window as the Tauri event [`UPDATE_EVENT`]: one thread here
//! forwards the desk's update stream to `emit`. Only this crate knows Tauri.

use std::path::PathBuf;
use std::sync::mpsc::Receiver;

use pitwatch_api::dto::{
    AccessListing, AccessReviewRequest, LogReviewRequest, ReviewRow, ReviewStatus,
};
use pitwatch_api::dto::{
    AuditRow, BookView, CentralIncidentDetail, CentralIncidents, CentralPit, ConsoleEntry,
    DeviceHealthBoard, HandoverSummary, IncidentDetail, IncidentPage, IncidentQuery, IncidentRow,
    LinkTestRequest, LinkTestView, PitReload, PitUpdate, RecordStatus, ResolutionKind,
    SerialPortView, Session, ShiftQuery, ShiftReportFile, ShoePage, ShoeReplay, SignOffRequest,
    SignedOff, TableDraft, UserRow,
};
use pitwatch_api::dto::{DealersView, PaceAlertView};
use pitwatch_api::dto::{
    EvidencePackFile, ExposureAlert, PitExposure, ReportFormat, ShoeExposure, SurveillanceLog,
};
use pitwatch_api::{ApiError, PitOverview};
use pitwatch_app::surveillance::{self, Surveillance};
use pitwatch_app::{Desk, DeskOptions};
use tauri::{Emitter, Manager, State};

pub mod save;
pub mod window_state;

use save::Reports;

/// The Tauri event that carries live changes: a JSON array of [`PitUpdate`]s, oldest first.
pub const UPDATE_EVENT: &str = "pit-update";

/// The pit now: every table's tile, the session and (demo only) the demo login.
#[tauri::command]
async fn pit_overview(desk: State<'_, Desk>) -> Result<PitOverview, ApiError> {
    Ok(desk.overview())
}

/// The record: where it is, its signing key's fingerprint, its latest checkpoint, its alerts.
#[tauri::command]
async fn record_status(desk: State<'_, Desk>) -> Result<RecordStatus, ApiError> {
    Ok(desk.record_status())
}

/// Logs a user in at this workstation.
#[tauri::command]
async fn login(desk: State<'_, Desk>, user: String, password: String) -> Result<Session, ApiError> {
    desk.login(&user, &password)
}

/// Sets a user's own password (the old one checked as a login's is) and logs them in.
#[tauri::command]
async fn change_own_password(
    desk: State<'_, Desk>,
    user: String,
    password: String,
    new_password: String,
) -> Result<Session, ApiError> {
    desk.change_own_password(&user, &password, &new_password)
}

/// Logs the current user out.
#[tauri::command]
async fn logout(desk: State<'_, Desk>) -> Result<(), ApiError> {
    desk.logout()
}

/// Mutes or unmutes the alarm's sound as the logged-in user (audited).
#[tauri::command]
async fn set_alarm_muted(desk: State<'_, Desk>, muted: bool) -> Result<bool, ApiError> {
    desk.set_alarm_muted(muted)
}

/// One page of the incidents matching a query, newest first.
#[tauri::command]
async fn incidents(desk: State<'_, Desk>, query: IncidentQuery) -> Result<IncidentPage, ApiError> {
    desk.incidents(&query)
}

// The commands that read much of the record (incidents, replays, reports) are `async`, so Tauri
// runs them off the main thread and the window stays responsive while they work.

/// One incident with its rule texts, evidence and history.
#[tauri::command]
async fn incident(desk: State<'_, Desk>, id: i64) -> Result<IncidentDetail, ApiError> {
    desk.incident(id)
}

/// Acknowledges an incident as the logged-in user.
#[tauri::command]
async fn acknowledge(desk: State<'_, Desk>, id: i64) -> Result<IncidentRow, ApiError> {
    desk.acknowledge(id)
}

/// Adds a note to an incident as the logged-in user.
#[tauri::command]
async fn add_note(desk: State<'_, Desk>, id: i64, text: String) -> Result<IncidentRow, ApiError> {
    desk.add_note(id, &text)
}

/// Resolves an acknowledged incident as the logged-in user: the resolution chosen, with the
/// outcome written beside it.
#[tauri::command]
async fn resolve(
    desk: State<'_, Desk>,
    id: i64,
    outcome: String,
    kind: Option<ResolutionKind>,
) -> Result<IncidentRow, ApiError> {
    desk.resolve(id, &outcome, kind)
}

/// Enters an incident's surveillance log as the logged-in user.
#[tauri::command]
async fn add_surveillance_log(
    desk: State<'_, Desk>,
    id: i64,
    log: SurveillanceLog,
) -> Result<IncidentRow, ApiError> {
    desk.add_surveillance_log(id, &log)
}

/// Reopens a resolved incident as the logged-in user, saying why.
#[tauri::command]
async fn reopen(desk: State<'_, Desk>, id: i64, reason: String) -> Result<IncidentRow, ApiError> {
    desk.reopen(id, &reason)
}

/// Records at a table something no device can see.
#[tauri::command]
async fn record_console(
    desk: State<'_, Desk>,
    table: String,
    entry: ConsoleEntry,
) -> Result<u64, ApiError> {
    desk.record_console(&table, &entry)
}

/// Exports an incident's report as a PDF where the user chooses in the save dialog; returns
/// where it was written, or `None` when the user cancelled.
#[tauri::command]
async fn export_incident_pdf<R: tauri::Runtime>(
    app: tauri::AppHandle<R>,
    desk: State<'_, Desk>,
    reports: State<'_, Reports>,
    id: i64,
) -> Result<Option<String>, ApiError> {
    let name = format!("incident-{id}.pdf");
    let Some(path) = reports.choose(&app, &name, "Save the incident report") else {
        return Ok(None);
    };
    let written = desk.export_incident_pdf_to(id, &path)?;
    reports.remember(&written);
    Ok(Some(written))
}

/// Exports an incident's evidence pack where the user chooses in the save dialog; returns where
/// it went and the key that signed it, or `None` when the user cancelled. A pack is handed over,
/// not opened or printed, so it is not remembered as a report.
#[tauri::command]
async fn export_evidence_pack<R: tauri::Runtime>(
    app: tauri::AppHandle<R>,
    desk: State<'_, Desk>,
    reports: State<'_, Reports>,
    id: i64,
) -> Result<Option<EvidencePackFile>, ApiError> {
    let name = pitwatch_app::evidence::pack_file_name(id);
    let Some(path) = reports.choose(&app, &name, "Save the evidence pack") else {
        return Ok(None);
    };
    Ok(Some(desk.export_evidence_pack_to(id, &path)?))
}

/// Exports the shift handover report as a PDF where the user chooses in the save dialog.
#[tauri::command]
async fn export_shift_report<R: tauri::Runtime>(
    app: tauri::AppHandle<R>,
    desk: State<'_, Desk>,
    reports: State<'_, Reports>,
    query: ShiftQuery,
) -> Result<Option<ShiftReportFile>, ApiError> {
    let name = pitwatch_app::reports::shift_file_name(&Desk::shift(&query)?);
    let Some(path) = reports.choose(&app, &name, "Save the shift report") else {
        return Ok(None);
    };
    let written = desk.export_shift_report_to(&query, &path)?;
    reports.remember(&written.path);
    Ok(Some(written))
}

/// Opens a report exported in this session with the workstation's PDF viewer.
#[tauri::command]
async fn open_report(reports: State<'_, Reports>, path: String) -> Result<(), ApiError> {
    reports.open(&path)
}

/// Sends a report exported in this session to the printer, audited with the printer's answer.
#[tauri::command]
async fn print_report(
    desk: State<'_, Desk>,
    reports: State<'_, Reports>,
    path: String,
) -> Result<String, ApiError> {
    desk.print_report(&path, || reports.print(&path))
}

/// Every device's health over a shift, compared with the devices of its kind.
#[tauri::command]
async fn device_health(
    desk: State<'_, Desk>,
    query: ShiftQuery,
) -> Result<DeviceHealthBoard, ApiError> {
    desk.device_health(&query)
}

/// What a shift hands over: open incidents, devices down, tables closed, earlier sign-offs.
#[tauri::command]
async fn handover_summary(
    desk: State<'_, Desk>,
    query: ShiftQuery,
) -> Result<HandoverSummary, ApiError> {
    desk.handover_summary(&query)
}

/// Signs off the handover of a shift with the user's password, accepted by the incoming
/// supervisor with theirs (audited).
#[tauri::command]
async fn sign_off_shift(
    desk: State<'_, Desk>,
    query: ShiftQuery,
    request: SignOffRequest,
) -> Result<SignedOff, ApiError> {
    desk.sign_off_shift(&query, &request)
}

/// A shoe replayed from the record, step by step.
#[tauri::command]
async fn replay(
    desk: State<'_, Desk>,
    table: String,
    shoe: Option<u32>,
) -> Result<ShoeReplay, ApiError> {
    desk.replay(&table, shoe)
}

/// Every table's exposure now (surveillance and administrators; the look audited).
#[tauri::command]
async fn pit_exposure(desk: State<'_, Desk>) -> Result<PitExposure, ApiError> {
    desk.pit_exposure()
}

/// The alerts of the shoes being dealt now (surveillance and administrators; a look that shows
/// alerts audited).
#[tauri::command]
async fn exposure_alerts(desk: State<'_, Desk>) -> Result<Vec<ExposureAlert>, ApiError> {
    desk.exposure_alerts()
}

/// The pace alerts that hold now at the tables running (supervisors and administrators; a look
/// that shows alerts audited).
#[tauri::command]
async fn pace_alerts(desk: State<'_, Desk>) -> Result<Vec<PaceAlertView>, ApiError> {
    desk.pace_alerts()
}

/// A table's dealers over its record (supervisors and administrators; the look audited).
#[tauri::command]
async fn table_dealers(desk: State<'_, Desk>, table: String) -> Result<DealersView, ApiError> {
    desk.table_dealers(&table)
}

/// Exports a table's dealers' report as PDF or CSV where the user chooses in the save dialog.
#[tauri::command]
async fn export_dealers_report<R: tauri::Runtime>(
    app: tauri::AppHandle<R>,
    desk: State<'_, Desk>,
    reports: State<'_, Reports>,
    table: String,
    format: ReportFormat,
) -> Result<Option<String>, ApiError> {
    let extension = match format {
        ReportFormat::Pdf => "pdf",
        ReportFormat::Csv => "csv",
    };
    let name = format!("dealers-{table}.{extension}");
    let Some(path) = reports.choose(&app, &name, "Save the dealers' report") else {
        return Ok(None);
    };
    let written = desk.export_dealers_report_to(&table, format, &path)?;
    reports.remember(&written);
    Ok(Some(written))
}

/// A shoe's exposure round by round (surveillance and administrators; the look audited).
#[tauri::command]
async fn shoe_exposure(
    desk: State<'_, Desk>,
    table: String,
    shoe: Option<u32>,
) -> Result<ShoeExposure, ApiError> {
    desk.shoe_exposure(&table, shoe)
}

/// Exports a shoe's exposure report as PDF or CSV where the user chooses in the save dialog.
#[tauri::command]
async fn export_exposure_report<R: tauri::Runtime>(
    app: tauri::AppHandle<R>,
    desk: State<'_, Desk>,
    reports: State<'_, Reports>,
    table: String,
    shoe: u32,
    format: ReportFormat,
) -> Result<Option<String>, ApiError> {
    let extension = match format {
        ReportFormat::Pdf => "pdf",
        ReportFormat::Csv => "csv",
    };
    let name = format!("exposure-{table}-shoe-{shoe}.{extension}");
    let Some(path) = reports.choose(&app, &name, "Save the exposure report") else {
        return Ok(None);
    };
    let written = desk.export_exposure_report_to(&table, shoe, format, &path)?;
    reports.remember(&written);
    Ok(Some(written))
}

/// A table's shoes for the replay picker, newest first, a page at a time.
#[tauri::command]
async fn shoes(
    desk: State<'_, Desk>,
    table: String,
    before: Option<u32>,
    limit: Option<u32>,
) -> Result<ShoePage, ApiError> {
    desk.shoes(&table, before, limit)
}

/// Adds a user with a role and password; only a logged-in admin may (hashing the password takes
/// a moment, so off the main thread).
#[tauri::command]
async fn add_user(
    desk: State<'_, Desk>,
    name: String,
    role: String,
    password: String,
) -> Result<UserRow, ApiError> {
    desk.add_user(&name, &role, &password)
}

/// Gives a user another role; only a logged-in admin may.
#[tauri::command]
async fn change_role(
    desk: State<'_, Desk>,
    name: String,
    role: String,
) -> Result<UserRow, ApiError> {
    desk.change_role(&name, &role)
}

/// Sets a user's password; only a logged-in admin may (hashing takes a moment: off the main
/// thread).
#[tauri::command]
async fn reset_password(
    desk: State<'_, Desk>,
    name: String,
    password: String,
) -> Result<UserRow, ApiError> {
    desk.reset_password(&name, &password)
}

/// Deactivates or reactivates a user; only a logged-in admin may.
#[tauri::command]
async fn set_active(
    desk: State<'_, Desk>,
    name: String,
    active: bool,
) -> Result<UserRow, ApiError> {
    desk.set_active(&name, active)
}

/// Every user (name, role, when added); only a logged-in admin may list them.
#[tauri::command]
async fn users(desk: State<'_, Desk>) -> Result<Vec<UserRow>, ApiError> {
    desk.users()
}

/// The newest audit rows (only logins and refusals when `access_only`); admins and
/// surveillance only.
#[tauri::command]
async fn audit(
    desk: State<'_, Desk>,
    access_only: bool,
    limit: u32,
) -> Result<Vec<AuditRow>, ApiError> {
    desk.audit(access_only, limit)
}

/// The access listing: every user, their role and status, and what each role may do
/// (administrators and inspectors).
#[tauri::command]
async fn access_listing(desk: State<'_, Desk>) -> Result<AccessListing, ApiError> {
    desk.access_listing()
}

/// Exports the access listing as CSV where the user chooses in the save dialog (administrators
/// and inspectors; audited).
#[tauri::command]
async fn export_access_listing<R: tauri::Runtime>(
    app: tauri::AppHandle<R>,
    desk: State<'_, Desk>,
    reports: State<'_, Reports>,
) -> Result<Option<String>, ApiError> {
    let Some(path) = reports.choose(&app, "access-listing.csv", "Save the access listing") else {
        return Ok(None);
    };
    let written = desk.export_access_listing_to(&path)?;
    reports.remember(&written);
    Ok(Some(written))
}

/// Where the periodic reviews stand, with alerts for those overdue (anyone logged in).
#[tauri::command]
async fn review_status(desk: State<'_, Desk>) -> Result<ReviewStatus, ApiError> {
    desk.review_status()
}

/// Signs the access review of the listing read (administrators and inspectors).
#[tauri::command]
async fn sign_access_review(
    desk: State<'_, Desk>,
    request: AccessReviewRequest,
) -> Result<ReviewRow, ApiError> {
    desk.sign_access_review(&request)
}

/// Signs the independent review of the audit log (surveillance and inspectors, never an admin).
#[tauri::command]
async fn sign_log_review(
    desk: State<'_, Desk>,
    request: LogReviewRequest,
) -> Result<ReviewRow, ApiError> {
    desk.sign_log_review(&request)
}

/// Applies the pit definition's file again (administrators; audited).
#[tauri::command]
async fn reload_pit(desk: State<'_, Desk>) -> Result<PitReload, ApiError> {
    desk.reload_pit()
}

/// The serial ports of this workstation (administrators).
#[tauri::command]
async fn serial_ports(desk: State<'_, Desk>) -> Result<Vec<SerialPortView>, ApiError> {
    desk.serial_ports()
}

/// Adds a table to the pit definition's file and starts it (administrators; audited).
#[tauri::command]
async fn add_table(desk: State<'_, Desk>, draft: TableDraft) -> Result<PitReload, ApiError> {
    desk.add_table(&draft)
}

/// A rule book's settings with the rules they cite.
#[tauri::command]
async fn rule_book(desk: State<'_, Desk>, rules: String) -> Result<BookView, ApiError> {
    desk.rule_book(&rules)
}

/// Renames a table in the pit definition and applies it (administrators; audited).
#[tauri::command]
async fn rename_table(
    desk: State<'_, Desk>,
    name: String,
    to: String,
) -> Result<PitReload, ApiError> {
    desk.rename_table(&name, &to)
}

/// Retires a table from the pit definition (administrators; audited); its record stays.
#[tauri::command]
async fn retire_table(desk: State<'_, Desk>, name: String) -> Result<PitReload, ApiError> {
    desk.retire_table(&name)
}

/// Opens a device's link for a few seconds and decodes what arrives (administrators; nothing
/// recorded). Async: it listens for seconds, off the main thread.
#[tauri::command]
async fn test_link(
    desk: State<'_, Desk>,
    request: LinkTestRequest,
) -> Result<LinkTestView, ApiError> {
    desk.test_link(&request)
}

/// Whether a real pit's record has no users yet, so the window asks for the first administrator.
#[tauri::command]
async fn needs_first_admin(desk: State<'_, Desk>) -> Result<bool, ApiError> {
    desk.needs_first_admin()
}

/// Creates the first administrator of a pit with no users and logs them in (hashing the
/// password takes a moment, so off the main thread).
#[tauri::command]
async fn create_first_admin(
    desk: State<'_, Desk>,
    name: String,
    password: String,
) -> Result<Session, ApiError> {
    desk.create_first_admin(&name, &password)
}

// The surveillance view (PITWATCH_CENTRAL): the central database read-only, no pit of its own.

/// The central database (its URL with the password hidden) when this window is the
/// surveillance view, else `None` (the window is a pit's).
#[tauri::command]
fn central_view<R: tauri::Runtime>(app: tauri::AppHandle<R>) -> Option<String> {
    app.try_state::<Surveillance>().map(|s| s.describe())
}

/// Runs `work` on the surveillance view on a blocking thread: its reads wait on PostgreSQL
/// through a runtime of their own (`pitwatch-sync` is blocking from the caller's side), which
/// must not run inside the async command's runtime, nor hold up the main thread.
async fn on_view<R: tauri::Runtime, T: Send + 'static>(
    app: tauri::AppHandle<R>,
    work: impl FnOnce(&Surveillance) -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    tauri::async_runtime::spawn_blocking(move || {
        let view = app.try_state::<Surveillance>().ok_or_else(|| {
            ApiError::new(
                pitwatch_api::ErrorCode::NotFound,
                "this window is not the surveillance view (PITWATCH_CENTRAL is not set)",
            )
        })?;
        work(&view)
    })
    .await
    .map_err(|e| ApiError::new(pitwatch_api::ErrorCode::Internal, e.to_string()))?
}

/// Signs in to the surveillance view with an account of a workstation's replicated record.
#[tauri::command]
async fn central_login<R: tauri::Runtime>(
    app: tauri::AppHandle<R>,
    workstation: String,
    user: String,
    password: String,
) -> Result<Session, ApiError> {
    on_view(app, move |view| view.login(&workstation, &user, &password)).await
}

/// Signs out of the surveillance view.
#[tauri::command]
async fn central_logout<R: tauri::Runtime>(app: tauri::AppHandle<R>) -> Result<(), ApiError> {
    on_view(app, |view| {
        view.logout();
        Ok(())
    })
    .await
}

/// Every workstation the viewer may see, with its tables.
#[tauri::command]
async fn central_pits<R: tauri::Runtime>(
    app: tauri::AppHandle<R>,
) -> Result<Vec<CentralPit>, ApiError> {
    on_view(app, |view| view.pits()).await
}

/// Incidents of one workstation or of every one the viewer may see.
#[tauri::command]
async fn central_incidents<R: tauri::Runtime>(
    app: tauri::AppHandle<R>,
    workstation: Option<String>,
    query: IncidentQuery,
) -> Result<Vec<CentralIncidents>, ApiError> {
    on_view(app, move |view| {
        view.incidents(workstation.as_deref(), &query)
    })
    .await
}

/// One incident from the central copy, read-only.
#[tauri::command]
async fn central_incident<R: tauri::Runtime>(
    app: tauri::AppHandle<R>,
    workstation: String,
    id: i64,
) -> Result<CentralIncidentDetail, ApiError> {
    on_view(app, move |view| view.incident(&workstation, id)).await
}

/// A shoe replayed from the central copy.
#[tauri::command]
async fn central_replay<R: tauri::Runtime>(
    app: tauri::AppHandle<R>,
    workstation: String,
    table: String,
    shoe: Option<u32>,
) -> Result<ShoeReplay, ApiError> {
    on_view(app, move |view| view.replay(&workstation, &table, shoe)).await
}

/// A table's shoes from the central copy, for the replay picker.
#[tauri::command]
async fn central_shoes<R: tauri::Runtime>(
    app: tauri::AppHandle<R>,
    workstation: String,
    table: String,
    before: Option<u32>,
    limit: Option<u32>,
) -> Result<ShoePage, ApiError> {
    on_view(app, move |view| {
        view.shoes(&workstation, &table, before, limit)
    })
    .await
}

/// Builds the app as the surveillance view over `view` (no pit: the pit's commands answer that
/// no desk is running).
pub fn surveillance_builder<R: tauri::Runtime>(
    builder: tauri::Builder<R>,
    view: Surveillance,
) -> tauri::Builder<R> {
    commands(builder.manage(view).manage(StartupFailure(None)))
}

/// Why the pit could not start, if it could not; the window then shows this instead of the pit.
pub struct StartupFailure(pub Option<ApiError>);

/// Why the pit could not start (a bad pit definition, an unopenable database, a device that
/// cannot start), or `None` when it is running. The front end asks this first.
#[tauri::command]
fn startup_error(failure: State<'_, StartupFailure>) -> Option<ApiError> {
    failure.0.clone()
}

/// Builds the app with its state and commands, on any runtime (the real one or the test mock),
/// saving reports as `reports` says.
pub fn builder<R: tauri::Runtime>(
    builder: tauri::Builder<R>,
    desk: Desk,
    reports: Reports,
) -> tauri::Builder<R> {
    let builder = builder
        .plugin(tauri_plugin_dialog::init())
        .manage(desk)
        .manage(reports);
    commands(builder.manage(StartupFailure(None)))
}

/// Builds the app for a pit that could not start: the window shows `error` (the desk's commands
/// answer that the desk is not running).
pub fn failed_builder<R: tauri::Runtime>(
    builder: tauri::Builder<R>,
    error: ApiError,
) -> tauri::Builder<R> {
    commands(builder.manage(StartupFailure(Some(error))))
}

fn commands<R: tauri::Runtime>(builder: tauri::Builder<R>) -> tauri::Builder<R> {
    builder.invoke_handler(tauri::generate_handler![
        startup_error,
        pit_overview,
        record_status,
        login,
        change_own_password,
        logout,
        set_alarm_muted,
        incidents,
        incident,
        acknowledge,
        add_note,
        add_surveillance_log,
        resolve,
        reopen,
        record_console,
        replay,
        shoes,
        export_incident_pdf,
        export_evidence_pack,
        export_shift_report,
        open_report,
        print_report,
        device_health,
        handover_summary,
        sign_off_shift,
        add_user,
        change_role,
        reset_password,
        set_active,
        users,
        audit,
        access_listing,
        export_access_listing,
        review_status,
        sign_access_review,
        sign_log_review,
        reload_pit,
        serial_ports,
        add_table,
        rule_book,
        rename_table,
        retire_table,
        test_link,
        pit_exposure,
        exposure_alerts,
        shoe_exposure,
        export_exposure_report,
        pace_alerts,
        table_dealers,
        export_dealers_report,
        needs_first_admin,
        create_first_admin,
        central_view,
        central_login,
        central_logout,
        central_pits,
        central_incidents,
        central_incident,
        central_replay,
        central_shoes
    ])
}

/// The most updates one [`UPDATE_EVENT`] carries.
const BATCH: usize = 256;

/// Forwards the desk's update stream to the window as [`UPDATE_EVENT`]s, on a thread of its own,
/// until the stream ends (when the desk is dropped). Each event carries every update waiting at
/// that moment (the desk sends a burst of changed tiles at each flush): one script evaluation in
/// the web view per burst rather than one per tile.
pub fn forward_updates<R: tauri::Runtime>(
    handle: tauri::AppHandle<R>,
    updates: Receiver<PitUpdate>,
) -> std::io::Result<()> {
    std::thread::Builder::new()
        .name("pitwatch-emit".into())
        .spawn(move || {
            while let Ok(first) = updates.recv() {
                let mut batch = vec![first];
                while batch.len() < BATCH {
                    match updates.try_recv() {
                        Ok(update) => batch.push(update),
                        Err(_) => break,
                    }
                }
                // No window yet (or any more) is fine: the front end reads the overview first.
                let _ = handle.emit(UPDATE_EVENT, batch);
            }
        })
        .map(|_| ())
}

/// What to run, from this process's environment and first argument (see
/// [`DeskOptions::from_env`]), with the database in `data_dir` by default.
pub fn options(data_dir: PathBuf) -> Result<DeskOptions, ApiError> {
    DeskOptions::from_env(
        |name| std::env::var(name).ok(),
        std::env::args_os().nth(1).map(PathBuf::from),
        &data_dir,
    )
}

fn fail(what: &str, error: impl std::fmt::Display) -> ! {
    eprintln!("pitwatch: {what}: {error}");
    std::process::exit(1);
}

/// Runs the desktop app (on the demo pit unless a pit definition is given). When the pit cannot
/// start, the window says why (and so does stderr).
pub fn run() {
    web_process_environment();
    let context = tauri::generate_context!();
    let data_dir = dirs_data(context.config().identifier.as_str());
    if let Ok(spec) = std::env::var(surveillance::CENTRAL_ENV) {
        run_surveillance(context, &spec, &data_dir);
        return;
    }
    let started = options(data_dir)
        .map_err(|e| ApiError::new(e.code, format!("The pit definition is not usable.\n{e}")))
        .and_then(|options| {
            Desk::start(options)
                .map_err(|e| ApiError::new(e.code, format!("The pit cannot start.\n{e}")))
        });
    let (desk, updates) = match started {
        Ok(started) => started,
        Err(error) => {
            eprintln!("pitwatch: {error}");
            let app = failed_builder(tauri::Builder::default(), error)
                .build(context)
                .unwrap_or_else(|e| fail("the desktop app could not start", e));
            app.run(|_, _| {});
            return;
        }
    };
    let app = builder(tauri::Builder::default(), desk, Reports::from_env())
        .setup(|app| {
            tune_web_view(app);
            window_state::restore(app);
            Ok(())
        })
        .on_window_event(window_state::on_event)
        .build(context)
        .unwrap_or_else(|e| fail("the desktop app could not start", e));
    forward_updates(app.handle().clone(), updates)
        .unwrap_or_else(|e| fail("cannot start the update thread", e));
    app.run(|handle, event| {
        if let tauri::RunEvent::Exit = event {
            // Records the ends of the device sessions before the process goes.
            handle.state::<Desk>().stop();
        }
    });
}

/// Runs the desktop app as the surveillance view of the central database `spec` names
/// (`env:NAME` or `file:PATH`), its mirrors in `data_dir/central`. When it cannot open, the
/// window says why (never the password).
fn run_surveillance(context: tauri::Context, spec: &str, data_dir: &std::path::Path) {
    let opened = surveillance::central_url(spec).and_then(|url| {
        Surveillance::open(
            &url,
            &data_dir.join("central"),
            &pitwatch_app::access::workstation(),
        )
    });
    let view = match opened {
        Ok(view) => view,
        Err(error) => {
            let error = ApiError::new(
                error.code,
                format!("The central database cannot be opened.\n{}", error.message),
            );
            eprintln!("pitwatch: {error}");
            let app = failed_builder(tauri::Builder::default(), error)
                .build(context)
                .unwrap_or_else(|e| fail("the desktop app could not start", e));
            app.run(|_, _| {});
            return;
        }
    };
    eprintln!("pitwatch: the surveillance view of {}", view.describe());
    let app = surveillance_builder(tauri::Builder::default(), view)
        .setup(|app| {
            tune_web_view(app);
            window_state::restore(app);
            Ok(())
        })
        .on_window_event(window_state::on_event)
        .build(context)
        .unwrap_or_else(|e| fail("the desktop app could not start", e));
    app.run(|_, _| {});
}

/// JavaScriptCore options for the web-content process, which inherits this process's
/// environment: the optimising JIT tiers (DFG, FTL) off. The page's script is small and
/// event-driven; the interpreter and the baseline JIT run it as fast for this work (50 tables at
/// ten times a dealer's pace reach the screen just as quickly) and it saves about 8 MB
/// (docs/benchmarks.md, "Desktop app memory").
const WEB_PROCESS_ENV: &[(&str, &str)] = &[("JSC_useDFGJIT", "false"), ("JSC_useFTLJIT", "false")];

/// Sets [`WEB_PROCESS_ENV`] where the environment does not already say otherwise. Called first
/// thing in [`run`], before any thread exists.
fn web_process_environment() {
    for (name, value) in WEB_PROCESS_ENV {
        if std::env::var_os(name).is_none() {
            std::env::set_var(name, value);
        }
    }
}

/// Whether the window may use the GPU to composite the page (`PITWATCH_GPU=1`). Off by default:
/// the pit's page is flat tiles and text that the CPU paints cheaply, and WebKitGTK's
/// accelerated compositing keeps a GL context and layer backing stores in the web process that
/// cost over a hundred megabytes (docs/benchmarks.md, "Desktop app memory").
fn gpu_compositing() -> bool {
    std::env::var("PITWATCH_GPU").is_ok_and(|v| v == "1")
}

/// Sets up the main window's web view for a long-running pit workstation: compositing on the
/// CPU unless [`gpu_compositing`] says otherwise, and WebKit's small "document viewer" cache
/// model (the app loads one local page; there is nothing to cache for later visits).
#[cfg(target_os = "linux")]
fn tune_web_view(app: &tauri::App) {
    use webkit2gtk::{
        CacheModel, HardwareAccelerationPolicy, SettingsExt, WebContextExt, WebViewExt,
    };
    let gpu = gpu_compositing();
    let Some(window) = app.get_webview_window("main") else {
        return;
    };
    let _ = window.with_webview(move |webview| {
        let view = webview.inner();
        if let Some(context) = view.context() {
            context.set_cache_model(CacheModel::DocumentViewer);
        }
        if !gpu {
            if let Some(settings) = WebViewExt::settings(&view) {
                settings.set_hardware_acceleration_policy(HardwareAccelerationPolicy::Never);
            }
        }
    });
}

#[cfg(not(target_os = "linux"))]
fn tune_web_view(_app: &tauri::App) {}

/// The app's data directory (`$XDG_DATA_HOME/<identifier>`, else `~/.local/share/<identifier>`),
/// worked out before Tauri starts so the desk can be running when the window opens.
fn dirs_data(identifier: &str) -> PathBuf {
    let base = std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))
        .unwrap_or_else(std::env::temp_dir);
    base.join(identifier)
}

#[cfg(test)]
mod tests;
