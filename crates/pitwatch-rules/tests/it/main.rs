//! The engine's integration tests (one test binary): data-driven fixtures, simulated shoes with
//! and without injected faults, and arbitrary event sequences.

mod arbitrary;
mod carry;
mod fixtures;
mod interrupt;
mod naive;
mod simulated;
mod texts;
mod view;
