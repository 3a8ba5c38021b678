//! The house's exposure at a table, for surveillance only (issue 29): before each round of a
//! shoe, what every wager is worth from the cards left, as the game's own code computes it
//! (`pitwatch_games::exposure`), from the shoe replayed out of the record.
//!
//! Only the surveillance role and administrators may read it ([`Command::ViewExposure`]); a
//! supervisor's attempt is refused and audited like any other command. Every read is an audit row
//! of its own ([`VIEWED`]: who, which table and shoe, their role and workstation), never folded
//! into an earlier one: who looked at which table's exposure, and when, is what an inquiry into a
//! shoe shuffled away asks first.

use pitwatch_api::{ApiError, ErrorCode};
use pitwatch_games::exposure::{shoe_exposure as game_exposure, RoundExposure};
use pitwatch_model::Timestamp;
use pitwatch_recording::replay::{self, Books};
use pitwatch_store::Store;

use crate::access::{detail, require, Command, Principal};

/// The audit action of a read of a table's exposure (the subject names the table and shoe).
pub const VIEWED: &str = "exposure.view";

/// The exposure before every round of shoe `shoe` of table `table`, for `who` (surveillance or an
/// administrator), read from `store` and audited there.
pub fn shoe_exposure(
    store: &mut Store,
    who: &Principal,
    table: &str,
    shoe: u32,
    now: Timestamp,
) -> Result<Vec<RoundExposure>, ApiError> {
    let subject = format!("table {table} shoe {shoe}");
    require(store, who, Command::ViewExposure, &subject, now)?;
    let run = replay::replay_shoe(store, table, shoe)?;
    let id = store
        .table_id(table)?
        .ok_or_else(|| ApiError::new(ErrorCode::NotFound, format!("no table {table:?}")))?;
    let first_seq = run.steps.first().map_or(0, |s| s.event.seq);
    let books = Books::read(store, id, &run.rule_book)?;
    let (book, _) = books.at(first_seq);
    let rounds = game_exposure(
        book,
        run.steps.iter().map(|s| (&s.event, s.outputs.as_slice())),
    )
    .ok_or_else(|| {
        ApiError::new(
            ErrorCode::InvalidInput,
            format!(
                "table {table} deals {}, whose deck is shuffled for every hand: it has no exposure",
                book.game()
            ),
        )
    })?;
    let detail = detail(&who.workstation, &[("role", who.role.as_str())]);
    let mut batch = store.batch(now)?;
    batch.append_audit(&who.user, VIEWED, &subject, &detail, now)?;
    batch.commit()?;
    Ok(rounds)
}
