//! Shoes whose device record was archived (issue 32, [`pitwatch_store::archive`]): where each
//! shoe is read. A shoe's replay runs through the shoe before it (see
//! [`crate::replay::replay_shoe`]) and its shuffle is compared with the shoes before it, so it is
//! read from the file that holds it and those shoes ([`SHOES_BEFORE`]) whole: the live record
//! when it still holds the first of them, else the archive holding that (which holds the shoes
//! after it whole too, by how archives are cut).

use pitwatch_store::archive::{ArchiveEntry, SHOES_BEFORE};
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
    // The first event reading the shoe needs: the first of the shoes before it that its replay
    // and its shuffle analysis read (`SHOES_BEFORE`), or of the first shoe on record.
    let first = shoe.saturating_sub(SHOES_BEFORE).max(1);
    let start = store
        .shoe_starts(table, first, shoe)?
        .first()
        .and_then(|&(number, _)| store.shoe_start(table, number).transpose())
        .transpose()?;
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
