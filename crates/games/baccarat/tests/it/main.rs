//! The engine's integration tests (one test binary): data-driven fixtures, simulated shoes with
//! and without injected faults (the differential fault-injection property), and arbitrary event
//! sequences.

mod arbitrary;
mod carry;
mod differential;
mod fixtures;
mod interrupt;
mod naive;
mod simulated;
mod texts;
mod view;
