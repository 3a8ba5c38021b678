//! The engine's integration tests (one test binary): data-driven fixtures, simulated shoes with
//! and without injected faults (the differential fault-injection property), and arbitrary event
//! sequences.

// The examples use what the tests do not (the matrix).
#[allow(dead_code)]
#[path = "../support/judge.rs"]
mod judge;

/// The engine Baccarat ran before it ran on the shared tracker (issue 27), kept as the
/// differential tests' oracle.
#[allow(dead_code)]
#[path = "../support/legacy/mod.rs"]
mod legacy;

mod arbitrary;
mod carry;
mod dealer;
mod differential;
mod fixtures;
mod interrupt;
mod naive;
mod simulated;
mod table_carry;
mod table_rounds;
mod texts;
mod view;
