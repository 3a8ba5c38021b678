//! The incident workflow: acknowledge, note, resolve, each by an authenticated user whose role
//! allows it (see [`crate::access`]), chained and audited by the store.

use pitwatch_api::{ApiError, ErrorCode};
use pitwatch_model::Timestamp;
use pitwatch_store::{IncidentId, Store, StoreError};

use crate::access::{require, Command, Principal};

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
        .acknowledge(IncidentId(id), &who.user, now)
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
    store.add_note(IncidentId(id), &who.user, text, now)?;
    Ok(())
}

/// `who` resolves incident `id` with `resolution` (supervisors and administrators).
pub fn resolve(
    store: &mut Store,
    who: &Principal,
    id: i64,
    resolution: &str,
    now: Timestamp,
) -> Result<(), ApiError> {
    require(store, who, Command::Resolve, &format!("incident {id}"), now)?;
    store
        .resolve(IncidentId(id), &who.user, resolution, now)
        .map_err(conflict)
}
