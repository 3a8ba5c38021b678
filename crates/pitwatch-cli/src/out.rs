//! Printing that survives a closed stdout: `pitwatch monitor | head` used to panic when `head`
//! went away. A failed write marks stdout closed; later lines are dropped quietly, a long
//! command (the monitor) sees [`closed`] and stops in order, and `main` exits without an error.
//! Every line is made safe for a terminal first ([`crate::safe::text`]): device text in it cannot
//! drive the terminal. One `outln!` is one entry: a line break inside it (a note's, a device's
//! text) is printed as a continuation line, indented under the entry behind
//! [`pitwatch_report::untrusted::CONTINUATION`] (`↳`), so it cannot pass for an entry of its own.
//! JSON goes out through [`json`] (serde_json, escaped for the terminal and still valid).

use std::borrow::Cow;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);
static STDERR_CLOSED: AtomicBool = AtomicBool::new(false);

/// Writes one line to stdout (use `outln!`).
pub fn line(args: std::fmt::Arguments<'_>) {
    if STDOUT_CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let line = args.to_string();
    write_stdout(&entry(&line));
}

/// `line` as the CLI prints it: safe for a terminal, and every line break in it followed by the
/// entry's indentation and the continuation marker.
pub fn entry(line: &str) -> Cow<'_, str> {
    let safe = crate::safe::text(line);
    if !safe.contains('\n') {
        return safe;
    }
    let indent: String = safe.chars().take_while(|&c| c == ' ').collect();
    Cow::Owned(crate::safe::continued(&safe, &indent).into_owned())
}

/// Writes `value` to stdout as JSON ([`crate::safe::json`]: one line unless `pretty`).
pub fn json<T: serde::Serialize + ?Sized>(value: &T, pretty: bool) {
    write_stdout(&crate::safe::json(value, pretty));
}

fn write_stdout(text: &str) {
    if STDOUT_CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let mut out = std::io::stdout().lock();
    if writeln!(out, "{text}").and_then(|()| out.flush()).is_err() {
        STDOUT_CLOSED.store(true, Ordering::Relaxed);
    }
}

/// Writes one line to stderr (use `errln!`).
pub fn error_line(args: std::fmt::Arguments<'_>) {
    if STDERR_CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let line = args.to_string();
    let mut err = std::io::stderr().lock();
    if writeln!(err, "{}", entry(&line)).is_err() {
        STDERR_CLOSED.store(true, Ordering::Relaxed);
    }
}

/// Whether a write to stdout has failed (whoever read it has gone).
pub fn closed() -> bool {
    STDOUT_CLOSED.load(Ordering::Relaxed)
}

/// Whether `error` is, at bottom, a write to a pipe nobody reads.
pub fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_break_in_an_entry_is_a_marked_continuation() {
        assert_eq!(entry("  at  noted  alice  ok"), "  at  noted  alice  ok");
        assert_eq!(
            entry("  at  noted  alice  done\n  at  resolved  root  Closed: no irregularity"),
            "  at  noted  alice  done\n    \u{21b3}   at  resolved  root  Closed: no irregularity"
        );
        assert_eq!(entry("a\u{1b}[2J\nb"), "a\\x1b[2J\n  \u{21b3} b");
    }
}
