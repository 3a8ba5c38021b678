//! What kind of trouble a failed write is, for a writer that must keep recording through it.
//!
//! A monitor never stops recording because a write failed: it keeps what arrives in a spool and
//! tries again. What it does meanwhile depends on the trouble: another process holding the write
//! lock goes away by itself, a full disk when space is freed, an I/O error may need the files
//! opened afresh. The class also gives the operator words for the alert ("the disk is full").

use std::time::Duration;

use crate::{Store, StoreError};

/// The kind of failure behind a [`StoreError`], as far as a writer that retries cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Trouble {
    /// Another connection holds the database's write lock (an import, a backup): wait.
    Busy,
    /// The disk, or the file size the process may write, is full: wait for space.
    Full,
    /// The operating system failed a read or write of the database's files: open them afresh
    /// and try again.
    Io,
    /// The database cannot be written (a read-only file system, permissions).
    ReadOnly,
    /// The file is damaged or is not a database.
    Corrupt,
    /// Anything else (a constraint, a request the record refuses): waiting will not help.
    Other,
}

impl Trouble {
    /// The trouble in words for an operator's alert.
    pub fn describe(self) -> &'static str {
        match self {
            Trouble::Busy => "the database is locked by another process",
            Trouble::Full => "the disk is full",
            Trouble::Io => "the disk reported an I/O error",
            Trouble::ReadOnly => "the database cannot be written (read-only)",
            Trouble::Corrupt => "the database file is damaged",
            Trouble::Other => "the database refused the write",
        }
    }

    /// Whether the connection should be opened afresh before trying again: after an I/O error
    /// SQLite may keep a connection in a state where every later statement fails too.
    pub fn reopen(self) -> bool {
        matches!(self, Trouble::Io | Trouble::Corrupt | Trouble::ReadOnly)
    }
}

impl StoreError {
    /// What kind of trouble this is.
    pub fn trouble(&self) -> Trouble {
        let code = match self {
            StoreError::Sqlite(rusqlite::Error::SqliteFailure(error, _)) => error.code,
            StoreError::NotADatabase(_) => return Trouble::Corrupt,
            _ => return Trouble::Other,
        };
        use rusqlite::ErrorCode as C;
        match code {
            C::DatabaseBusy | C::DatabaseLocked | C::FileLockingProtocolFailed => Trouble::Busy,
            C::DiskFull => Trouble::Full,
            C::SystemIoFailure | C::CannotOpen | C::NoLargeFileSupport | C::OutOfMemory => {
                Trouble::Io
            }
            C::ReadOnly | C::PermissionDenied => Trouble::ReadOnly,
            C::DatabaseCorrupt | C::NotADatabase => Trouble::Corrupt,
            _ => Trouble::Other,
        }
    }
}

impl Store {
    /// How long a statement waits for another connection's write lock before failing with
    /// [`Trouble::Busy`]. [`Store::open`] sets 5 s; a live writer that has a spool to fill
    /// meanwhile uses much less, so it never sits blocked while devices keep sending.
    pub fn set_busy_timeout(&mut self, wait: Duration) -> Result<(), StoreError> {
        self.conn.busy_timeout(wait)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sqlite_failures_are_classified() {
        let failure = |code: i32| {
            StoreError::Sqlite(rusqlite::Error::SqliteFailure(
                rusqlite::ffi::Error::new(code),
                None,
            ))
        };
        assert_eq!(failure(rusqlite::ffi::SQLITE_BUSY).trouble(), Trouble::Busy);
        assert_eq!(
            failure(rusqlite::ffi::SQLITE_LOCKED).trouble(),
            Trouble::Busy
        );
        assert_eq!(failure(rusqlite::ffi::SQLITE_FULL).trouble(), Trouble::Full);
        assert_eq!(
            failure(rusqlite::ffi::SQLITE_IOERR_WRITE).trouble(),
            Trouble::Io
        );
        assert_eq!(
            failure(rusqlite::ffi::SQLITE_READONLY).trouble(),
            Trouble::ReadOnly
        );
        assert_eq!(
            failure(rusqlite::ffi::SQLITE_CORRUPT).trouble(),
            Trouble::Corrupt
        );
        assert_eq!(
            failure(rusqlite::ffi::SQLITE_CONSTRAINT).trouble(),
            Trouble::Other
        );
        assert_eq!(StoreError::Invalid("no".into()).trouble(), Trouble::Other);
        assert!(Trouble::Io.reopen() && !Trouble::Busy.reopen());
    }

    #[test]
    fn a_file_database_knows_its_path() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.db");
        let store =
            Store::open(&path, &crate::Sealing::key(crate::SigningKey::generate())).unwrap();
        assert_eq!(
            store.path().unwrap().canonicalize().unwrap(),
            path.canonicalize().unwrap()
        );
        assert_eq!(Store::open_in_memory().unwrap().path(), None);
    }
}
