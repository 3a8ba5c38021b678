//! `pitwatch verify --pack FILE [--key KEY]`: checks an incident's evidence pack on any machine,
//! with no database: every member's hash, the manifest's signature, every row's hash and link up
//! to a signed checkpoint and each checkpoint's signature, against the key given (64 hexadecimal
//! digits, a fingerprint, or a file holding either), else this machine's installation key.
//! Prints what the pack proves, or every problem found.
//!
//! Exit 0 when the pack verifies against a key given or found here, 1 naming what failed, 2 when
//! the pack is consistent but no key was at hand to say whose it is.

use std::path::Path;
use std::process::ExitCode;

use anyhow::{bail, Context};
use pitwatch_recording::record::Installation;
use pitwatch_store::pack::{check_pack, PackReport, Trust};

use crate::safe;

/// The most a `--key` file may hold: a public key or its fingerprint, with comments.
const KEY_FILE_LIMIT: u64 = 64 * 1024;

/// Runs `pitwatch verify --pack FILE [--key KEY]`.
pub fn run(pack: &Path, key: Option<&str>) -> anyhow::Result<ExitCode> {
    let bytes = std::fs::read(pack).with_context(|| format!("cannot read {}", pack.display()))?;
    let (trust, whence) = match key {
        Some(key) => (trust_from(key)?, "given with --key".to_owned()),
        None => match Installation::from_env().trusted() {
            Ok(keys) if !keys.is_empty() => (
                Trust::Key(keys[0]),
                "this machine's installation key".to_owned(),
            ),
            _ => (
                Trust::PackOwn,
                "NOT PINNED: the key the pack names itself".to_owned(),
            ),
        },
    };
    let report = check_pack(&bytes, &trust);
    print_report(pack, &report, &whence);
    if !report.verifies() {
        for problem in &report.problems {
            errln!("NOT VERIFIED: {}", safe::text(problem));
        }
        return Ok(ExitCode::from(1));
    }
    if !report.pinned {
        errln!(
            "CANNOT SAY WHOSE IT IS: the pack is consistent and signed by the key it names, but \
             no key was given to check that key against; give the installation's public key or \
             its fingerprint (printed in every report and by `pitwatch verify --db`) with --key"
        );
        return Ok(ExitCode::from(2));
    }
    outln!("verified");
    Ok(ExitCode::SUCCESS)
}

/// The key `--key` gives: a file holding one, or the key or fingerprint itself.
fn trust_from(key: &str) -> anyhow::Result<Trust> {
    let path = Path::new(key);
    let text = if path.is_file() {
        let size = std::fs::metadata(path)?.len();
        if size > KEY_FILE_LIMIT {
            bail!("--key {key}: the file is {size} bytes, far too long to hold a public key");
        }
        std::fs::read_to_string(path).with_context(|| format!("cannot read --key {key}"))?
    } else {
        key.to_owned()
    };
    Trust::parse(&text).with_context(|| {
        format!(
            "--key {key:?} is neither a public key (64 hexadecimal digits), a fingerprint \
             (xxxx-xxxx-…, eight groups) nor a file holding one"
        )
    })
}

fn print_report(pack: &Path, report: &PackReport, whence: &str) {
    outln!("{}", pack.display());
    if let Some(manifest) = &report.manifest {
        outln!(
            "  incident {} ({}) at table {}, {}",
            manifest.incident,
            safe::text(&manifest.code),
            safe::text(&manifest.table),
            manifest
                .shoe
                .map_or_else(|| "no shoe".to_owned(), |s| format!("shoe {s}"))
        );
        outln!(
            "  pack made {} by {} at {}",
            safe::text(&manifest.created_at),
            safe::text(&manifest.created_by),
            safe::text(&manifest.workstation)
        );
        outln!("  record {}", safe::text(&manifest.record));
        outln!(
            "  signed by key {} ({whence}), public key {}",
            safe::text(&manifest.fingerprint),
            safe::text(&manifest.public_key)
        );
        for member in &manifest.members {
            outln!(
                "  {} {} bytes, sha256 {}",
                safe::text(&member.name),
                member.bytes,
                safe::text(&member.sha256)
            );
        }
        for entry in &manifest.surveillance {
            outln!(
                "  surveillance log, by {} at {}:",
                safe::text(&entry.user),
                safe::text(&entry.at)
            );
            // Each line of the note on a line of its own; what else it holds written visibly.
            for line in entry.text.lines().skip(1) {
                outln!("    {}", safe::text(line));
            }
        }
    }
    for (table, ids) in &report.evidence {
        outln!("  evidence: {table} {} row(s): {}", ids.len(), ranges(ids));
    }
    outln!(
        "  link rows: {} (held in full only to reach the checkpoints; a chain links a row to the \
         next only through its content)",
        report.links
    );
    for checkpoint in &report.checkpoints {
        outln!("  checkpoint: {checkpoint}");
    }
}

/// Ids as runs: `1–30, 35, 40–41`.
fn ranges(ids: &[i64]) -> String {
    let mut runs: Vec<(i64, i64)> = Vec::new();
    for &id in ids {
        match runs.last_mut() {
            Some((_, last)) if *last + 1 == id => *last = id,
            _ => runs.push((id, id)),
        }
    }
    runs.iter()
        .map(|(first, last)| {
            if first == last {
                first.to_string()
            } else {
                format!("{first}–{last}")
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_print_as_runs() {
        assert_eq!(ranges(&[1, 2, 3, 5, 7, 8]), "1–3, 5, 7–8");
        assert_eq!(ranges(&[]), "");
    }

    #[test]
    fn a_key_that_is_none_is_refused_saying_what_a_key_is() {
        let error = trust_from("not-a-key").unwrap_err().to_string();
        assert!(error.contains("fingerprint"), "{error}");
        assert!(matches!(
            trust_from("3f2a-91bc-0000-1111-2222-3333-4444-5555").unwrap(),
            Trust::Fingerprint(_)
        ));
    }
}
