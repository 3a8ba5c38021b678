//! The evidence pack's container: a plain POSIX `ustar` archive, so `tar xf` opens a pack on any
//! machine without Pitwatch. Only what a pack needs is written and read: regular files with short
//! names, no folders, links or extended headers. Reading refuses anything else, saying why, and
//! refuses any header not exactly as written here and padding that is not zeros, so no byte of a
//! pack can change unseen (a pack re-archived by another tool is refused: it is not the file that
//! was signed).

/// One file in an archive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// Its name (no folder).
    pub name: String,
    /// Its bytes.
    pub bytes: Vec<u8>,
}

const BLOCK: usize = 512;

/// The archive holding `members` in order, each file dated `mtime` (seconds since 1970), owned
/// by nobody in particular and readable by all (`0644`).
pub fn write(members: &[Member], mtime: u64) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    for member in members {
        if member.name.is_empty()
            || member.name.len() >= 100
            || member.name.contains('/')
            || !member.name.is_ascii()
        {
            return Err(format!(
                "{:?} cannot be a pack member's name (ASCII, no folder, under 100 bytes)",
                member.name
            ));
        }
        let mut header = [0u8; BLOCK];
        header[..member.name.len()].copy_from_slice(member.name.as_bytes());
        octal(&mut header[100..108], 0o644);
        octal(&mut header[108..116], 0);
        octal(&mut header[116..124], 0);
        octal(&mut header[124..136], member.bytes.len() as u64);
        octal(&mut header[136..148], mtime);
        header[156] = b'0';
        header[257..263].copy_from_slice(b"ustar\0");
        header[263..265].copy_from_slice(b"00");
        header[148..156].fill(b' ');
        let sum: u64 = header.iter().map(|b| u64::from(*b)).sum();
        octal(&mut header[148..155], sum);
        header[155] = b' ';
        out.extend_from_slice(&header);
        out.extend_from_slice(&member.bytes);
        out.resize(out.len().div_ceil(BLOCK) * BLOCK, 0);
    }
    out.resize(out.len() + 2 * BLOCK, 0);
    Ok(out)
}

/// The members of the archive `bytes`, in order, or why it is not a pack's archive.
pub fn read(bytes: &[u8]) -> Result<Vec<Member>, String> {
    let mut members = Vec::new();
    let mut at = 0usize;
    loop {
        let Some(header) = bytes.get(at..at + BLOCK) else {
            return Err(format!(
                "the archive is cut short at byte {at}: it does not end with two empty blocks"
            ));
        };
        if header.iter().all(|b| *b == 0) {
            // The end: nothing after it but zeros (a tool may pad the archive to its record
            // size), so no byte of the file goes unchecked.
            if bytes[at..].iter().any(|b| *b != 0) {
                return Err(format!(
                    "the archive ends at byte {at}, but bytes that are not zeros follow"
                ));
            }
            // Every header exactly as this module writes it (a field's spelling, the file
            // date, the mode): no byte of a pack may change, not even one that means nothing.
            let mtime = bytes
                .get(136..148)
                .and_then(parse_octal)
                .unwrap_or_default();
            let canonical = write(&members, mtime)?;
            if !bytes.starts_with(&canonical) {
                return Err(
                    "the archive's headers are not as Pitwatch writes them (a header was changed)"
                        .to_owned(),
                );
            }
            return Ok(members);
        }
        let name_field = &header[..100];
        let name_len = name_field.iter().position(|b| *b == 0).unwrap_or(100);
        let name = std::str::from_utf8(&name_field[..name_len])
            .map_err(|_| format!("the member at byte {at} has a name that is not text"))?
            .to_owned();
        let stored_sum = parse_octal(&header[148..156])
            .ok_or_else(|| format!("member {name:?}: its header's checksum is not a number"))?;
        let sum: u64 = header[..148]
            .iter()
            .chain([b' '; 8].iter())
            .chain(header[156..].iter())
            .map(|b| u64::from(*b))
            .sum();
        if sum != stored_sum {
            return Err(format!(
                "member {name:?}: its header's checksum is {stored_sum}, the header sums to {sum} (the header was changed)"
            ));
        }
        if header[156] != b'0' && header[156] != 0 {
            return Err(format!(
                "member {name:?} is not a regular file (type {:?}); a pack holds files only",
                char::from(header[156])
            ));
        }
        let size = parse_octal(&header[124..136])
            .ok_or_else(|| format!("member {name:?}: its size is not a number"))?;
        let size = usize::try_from(size)
            .map_err(|_| format!("member {name:?}: its size {size} is too large"))?;
        let start = at + BLOCK;
        let data = start
            .checked_add(size)
            .and_then(|end| bytes.get(start..end))
            .ok_or_else(|| {
                format!("member {name:?} says it holds {size} bytes, but the archive ends first")
            })?;
        let next = start + size.div_ceil(BLOCK) * BLOCK;
        if bytes
            .get(start + size..next)
            .is_some_and(|padding| padding.iter().any(|b| *b != 0))
        {
            return Err(format!(
                "member {name:?} is followed by padding that is not zeros (the archive was changed)"
            ));
        }
        members.push(Member {
            name,
            bytes: data.to_vec(),
        });
        at = next;
    }
}

/// Writes `value` in octal, zero-padded, into all of `field` but its last byte (a NUL).
fn octal(field: &mut [u8], value: u64) {
    let width = field.len() - 1;
    let text = format!("{value:0width$o}");
    field[..width].copy_from_slice(&text.as_bytes()[text.len() - width..]);
    field[width] = 0;
}

/// An octal field's number (NULs and spaces around it ignored).
fn parse_octal(field: &[u8]) -> Option<u64> {
    let text = std::str::from_utf8(field).ok()?;
    let text = text.trim_matches(|c: char| c == '\0' || c == ' ');
    if text.is_empty() {
        return Some(0);
    }
    u64::from_str_radix(text, 8).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn member(name: &str, bytes: &[u8]) -> Member {
        Member {
            name: name.into(),
            bytes: bytes.to_vec(),
        }
    }

    #[test]
    fn members_round_trip_and_the_archive_is_block_aligned() {
        let members = vec![
            member("manifest.json", b"{}"),
            member("empty", b""),
            member("exact", &[7u8; 512]),
            member("report.pdf", &[1u8; 1300]),
        ];
        let archive = write(&members, 1_700_000_000).unwrap();
        assert_eq!(archive.len() % 512, 0);
        assert_eq!(read(&archive).unwrap(), members);
    }

    #[test]
    fn a_changed_header_a_cut_archive_and_bad_names_are_refused() {
        let archive = write(&[member("a", b"hello")], 0).unwrap();
        let mut changed = archive.clone();
        changed[0] = b'b';
        assert!(read(&changed).unwrap_err().contains("checksum"));
        assert!(read(&archive[..514]).unwrap_err().contains("ends first"));
        assert!(read(&archive[..1024]).unwrap_err().contains("cut short"));
        assert!(write(&[member("a/b", b"")], 0).is_err());
        assert!(write(&[member("", b"")], 0).is_err());
    }

    #[test]
    fn the_system_tar_reads_what_is_written() {
        // The point of ustar: a regulator's own tools open a pack. Where `tar` is installed,
        // check that it lists what was written.
        let Ok(probe) = std::process::Command::new("tar").arg("--version").output() else {
            return;
        };
        if !probe.status.success() {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.tar");
        std::fs::write(
            &path,
            write(&[member("one.txt", b"1"), member("two.pdf", &[2; 700])], 0).unwrap(),
        )
        .unwrap();
        let listed = std::process::Command::new("tar")
            .arg("tf")
            .arg(&path)
            .output()
            .unwrap();
        assert!(listed.status.success(), "{listed:?}");
        assert_eq!(
            String::from_utf8_lossy(&listed.stdout),
            "one.txt\ntwo.pdf\n"
        );
    }
}
