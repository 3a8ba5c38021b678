//! Printing that survives a closed stdout: `pitwatch monitor | head` used to panic when `head`
//! went away. A failed write marks stdout closed; later lines are dropped quietly, a long
//! command (the monitor) sees [`closed`] and stops in order, and `main` exits without an error.
//! Every line is made safe for a terminal first ([`crate::safe::text`]): device text in it cannot
//! drive the terminal.

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
    let mut out = std::io::stdout().lock();
    if writeln!(out, "{}", crate::safe::text(&line))
        .and_then(|()| out.flush())
        .is_err()
    {
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
    if writeln!(err, "{}", crate::safe::text(&line)).is_err() {
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
