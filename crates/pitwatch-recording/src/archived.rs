//! Shoes whose device record was archived (issue 32, [`pitwatch_store::archive`]): where each
//! shoe replays. A shoe's replay runs through the shoe before it (see
//! [`crate::replay::replay_shoe`]), so it replays from the file that holds both whole: the live
//! record when it still holds the shoe before's first event, else the archive holding it (which
//! holds the shoe after it whole too, by how archives are cut).

use pitwatch_store::archive::ArchiveEntry;
use pitwatch_store::{Store, StoreError, TableId};

/// The archive shoe `shoe` of `table` replays from, opened (checked to be the one the record
/// names), with its entry; `None` when the shoe replays from `store` itself.
pub fn archive_for_shoe(
    store: &Store,
    table: TableId,
    shoe: u32,
) -> Result<Option<(Store, ArchiveEntry)>, StoreError> {
    if store.archives()?.is_empty() {
        return Ok(None);
    }
    // The first event the replay needs: the shoe before's, or the shoe's own for the first.
    let start = match shoe {
        0 | 1 => store.shoe_start(table, shoe)?,
        _ => match store.shoe_start(table, shoe - 1)? {
            Some(before) => Some(before),
            None => store.shoe_start(table, shoe)?,
        },
    };
    let Some(start) = start else {
        return Ok(None);
    };
    if store.has_event(table, start.first_seq)? {
        return Ok(None);
    }
    match store.archive_holding(table, start.first_seq)? {
        Some(entry) => Ok(Some((store.open_archive(&entry)?, entry))),
        None => Ok(None),
    }
}

/// Shoe `shoe` of table `name` replayed from the file that holds it (see the module's
/// documentation), with the archive it came from, if one.
pub fn replay_shoe(
    store: &Store,
    name: &str,
    shoe: u32,
) -> Result<(crate::replay::ShoeRun, Option<ArchiveEntry>), StoreError> {
    let table = store
        .table_id(name)?
        .ok_or_else(|| StoreError::NotFound(format!("no table named {name:?} in the record")))?;
    match archive_for_shoe(store, table, shoe)? {
        Some((archive, entry)) => Ok((
            crate::replay::replay_shoe(&archive, name, shoe)?,
            Some(entry),
        )),
        None => Ok((crate::replay::replay_shoe(store, name, shoe)?, None)),
    }
}
