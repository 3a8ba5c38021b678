//! Replay at the workstation: the shoes of a table for the picker, and a shoe replayed from the
//! record step by step with the verdict on the record.

use pitwatch_api::convert::describe;
use pitwatch_api::dto::{
    ApiError, ErrorCode, ReplayStep, ShoePage, ShoeReplay, ShoeRow, ShuffleQuality, TableTile,
};
use pitwatch_model::Timestamp;
use pitwatch_rules::TableOutput as Output;
use pitwatch_store::Store;

use crate::live::{lock, Desk};
use crate::pit_model::{fold_event, show_view};

impl Desk {
    /// Up to `limit` (default 50, at most 500) shoes of `table` numbered below `before`, newest
    /// first, with their times and counts of rounds and incidents, for the replay picker.
    pub fn shoes(
        &self,
        table: &str,
        before: Option<u32>,
        limit: Option<u32>,
    ) -> Result<ShoePage, ApiError> {
        shoe_page(&lock(&self.store), table, before, limit, false)
    }

    /// Shoe `shoe` of `table` (the last shoe if `None`) replayed from the record: the recorded
    /// bytes re-decoded and run through the engine again, step by step (only that shoe's and the
    /// shoe's before it, see [`pitwatch_recording::replay::replay_shoe`]), with a verdict on whether the
    /// record verified intact. The chains are verified in full on the first replay and after
    /// that only where they grew (see [`Desk::verify`]); the verdict says which.
    pub fn replay(&self, table: &str, shoe: Option<u32>) -> Result<ShoeReplay, ApiError> {
        // A connection of its own: a long replay does not hold up the incident workflow.
        let store = self.installation.open_read_only(&self.db)?;
        // The table as it runs now, or as the desk started with it (a table a reload removed
        // still has its shoes on record).
        let config = lock(&self.running)
            .tables
            .iter()
            .chain(&self.pit.tables)
            .find(|t| t.name == table)
            .cloned();
        shoe_replay(
            &store,
            table,
            shoe,
            |store| self.verify(store),
            || {
                config
                    .as_ref()
                    .map(TableTile::from)
                    .ok_or_else(|| ApiError::new(ErrorCode::NotFound, format!("no table {table}")))
            },
        )
    }
}

/// Shoe `shoe` of `table` (the last shoe if `None`) replayed from `store` step by step, with the
/// verdict `verify` gives on the record, folded into the tile `tile` makes: the workstation's
/// replay and the surveillance view's (from a mirror of the central copy) alike.
pub(crate) fn shoe_replay(
    store: &Store,
    table: &str,
    shoe: Option<u32>,
    verify: impl FnOnce(&Store) -> Result<(bool, String), ApiError>,
    tile: impl FnOnce() -> Result<TableTile, ApiError>,
) -> Result<ShoeReplay, ApiError> {
    let id = store
        .table_id(table)?
        .ok_or_else(|| ApiError::new(ErrorCode::NotFound, format!("no table {table} on record")))?;
    let none_yet = || {
        ApiError::new(
            ErrorCode::NotFound,
            format!("no shoe of {table} on record yet"),
        )
    };
    let (shoe, steps, divergences, rule_book, shuffle) = match store.last_shoe(id)? {
        Some(last) => {
            let shoe = shoe.unwrap_or(last);
            let run = pitwatch_recording::replay::replay_shoe(store, table, shoe)?;
            let shuffle = run.shuffle.as_ref().map(ShuffleQuality::from);
            (shoe, run.steps, run.divergences, run.rule_book, shuffle)
        }
        // No shoe starts stored yet (a record from before they were kept, until the table's
        // recorder resumes): the whole table, as before.
        None => {
            let whole = pitwatch_recording::replay::rebuild(store, table)?;
            let shoe = shoe
                .or_else(|| whole.shoes().last().map(|s| s.shoe))
                .ok_or_else(none_yet)?;
            let steps = whole
                .shoe_steps(shoe)
                .map(<[_]>::to_vec)
                .unwrap_or_default();
            let shuffle = whole
                .shuffles
                .iter()
                .find(|s| s.shoe == shoe)
                .map(ShuffleQuality::from);
            (shoe, steps, whole.divergences, whole.rule_book, shuffle)
        }
    };
    let (verified, verify_detail) = verify(store)?;
    if steps.is_empty() {
        return Err(ApiError::new(
            ErrorCode::NotFound,
            format!("no shoe {shoe} of {table}"),
        ));
    }
    let mut tile = tile()?;
    let mut out = Vec::with_capacity(steps.len());
    for step in steps {
        fold_event(&mut tile, &step.event);
        let mut completed = None;
        let mut irregularities = Vec::new();
        for output in &step.outputs {
            match output {
                Output::Round(round) => completed = Some(tile.play.take_replayed(round)),
                Output::Irregularity(i) => {
                    irregularities.push(format!("{}: {}", i.code.as_str(), i.message));
                }
                _ => {}
            }
        }
        // The shoe state at this step is the engine's own, as on the live tile.
        show_view(&mut tile, &step.view);
        let play = tile.play.replay_step(completed);
        out.push(ReplayStep {
            seq: step.event.seq,
            at: step.event.at.map(|t| t.to_string()),
            what: describe(&step.event.kind),
            cards_dealt: tile.cards_dealt,
            cards_left: tile.cards_left,
            cutting_card_out: tile.cutting_card_out,
            play,
            irregularities,
        });
    }
    Ok(ShoeReplay {
        table: table.to_owned(),
        rule_book,
        shoe,
        verified,
        verify_detail,
        divergences,
        steps: out,
        shuffle,
    })
}

/// Up to `limit` (default 50, at most 500) shoes of `table` numbered below `before`, newest
/// first, with their times and counts of rounds and incidents, for the replay picker; rounds
/// counted from the declared results when `declared` (a central copy holds no derived rounds).
pub(crate) fn shoe_page(
    store: &Store,
    table: &str,
    before: Option<u32>,
    limit: Option<u32>,
    declared: bool,
) -> Result<ShoePage, ApiError> {
    let limit = limit.unwrap_or(50).clamp(1, 500);
    let id = store
        .table_id(table)?
        .ok_or_else(|| ApiError::new(ErrorCode::NotFound, format!("no table {table} on record")))?;
    let mut listed = store.shoe_listing(id, before, limit + 1)?;
    if declared {
        // A copy without the derived rounds: the rounds its chained events declare.
        for shoe in &mut listed {
            shoe.rounds = store.results_declared(id, shoe)?;
        }
    }
    let more = listed.len() > limit as usize;
    listed.truncate(limit as usize);
    // Each shoe's shuffle quality, derived from its recorded cards (nothing stored).
    let numbers: Vec<u32> = listed.iter().map(|s| s.shoe).collect();
    let shuffles = pitwatch_recording::shuffle::recorded_shoe_shuffles(store, id, &numbers)?;
    let at = |ms: Option<i64>| {
        ms.and_then(Timestamp::from_unix_millis)
            .map(|t| t.to_string())
    };
    Ok(ShoePage {
        table: table.to_owned(),
        next: if more {
            listed.last().map(|s| s.shoe)
        } else {
            None
        },
        shoes: listed
            .iter()
            .map(|s| ShoeRow {
                shoe: s.shoe,
                started_at: at(s.started_ms),
                ended_at: at(s.ended_ms),
                rounds: s.rounds,
                incidents: s.incidents,
                shuffle: shuffles
                    .iter()
                    .find(|q| q.shoe == s.shoe)
                    .map(ShuffleQuality::from),
            })
            .collect(),
    })
}
