//! Files the record is kept in, made readable by their owner only whatever the umask: the
//! database (SQLite gives its WAL and shared-memory files the database's own permissions), the
//! checkpoint journals and the monitor's spool. The database holds the password hashes and every
//! note; a file others can read is a copy anyone on the machine can take.

use std::fs::OpenOptions;
use std::path::{Path, PathBuf};

/// Open options for a file the record keeps: created readable and writable by its owner only.
pub fn private_options() -> OpenOptions {
    let mut options = OpenOptions::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options
}

/// Creates `path` empty and owner-only if it does not exist yet (so that what SQLite then opens,
/// and the WAL and shared memory it makes beside it, are owner-only too).
pub fn create_private(path: &Path) -> std::io::Result<()> {
    match private_options().write(true).create_new(true).open(path) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(e),
    }
}

/// Whether people other than the owner may read the file `path` (a file that does not exist,
/// or a folder, is not).
pub fn readable_by_others(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o077 != 0)
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        false
    }
}

/// The files of the record at `db` (the database, its WAL and shared memory, `extra` such as the
/// journals and spool files) that people other than the owner may read or write, each with its
/// permissions, for a warning at start-up.
pub fn exposed(db: &Path, extra: &[PathBuf]) -> Vec<String> {
    let mut files: Vec<PathBuf> = vec![db.to_path_buf()];
    for suffix in ["-wal", "-shm"] {
        let mut name = db.as_os_str().to_owned();
        name.push(suffix);
        files.push(PathBuf::from(name));
    }
    files.extend(extra.iter().cloned());
    files
        .into_iter()
        .filter(|f| readable_by_others(f))
        .map(|f| {
            #[cfg(unix)]
            let mode = {
                use std::os::unix::fs::PermissionsExt;
                std::fs::metadata(&f).map_or(0, |m| m.permissions().mode() & 0o777)
            };
            #[cfg(not(unix))]
            let mode = 0;
            format!(
                "{} can be read by others (mode {mode:o}): `chmod 600` it, since it holds the record",
                f.display()
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn created_owner_only_whatever_the_umask() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.db");
        create_private(&path).unwrap();
        assert!(!readable_by_others(&path));
        assert!(exposed(&path, &[]).is_empty());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
            let warned = exposed(&path, &[]);
            assert_eq!(warned.len(), 1, "{warned:?}");
            assert!(warned[0].contains("mode 644"), "{warned:?}");
        }
    }
}
