//! The poker engine's integration tests (one test binary): data-driven fixtures per misdeal
//! reason, the rule book's texts against the seed page, honest hands dealt by an independent
//! dealer that are never flagged, and the differential fault-injection test (one injected fault,
//! one irregularity in its hand, every other hand untouched).

mod books;
mod carry;
mod dealer;
mod differential;
mod fixtures;
mod honest;
mod joined;
