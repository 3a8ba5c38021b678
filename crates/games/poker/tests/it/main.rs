//! The poker engine's integration tests (one test binary): data-driven fixtures per misdeal
//! reason, the rule book's texts against the seed page, and honest hands dealt by an independent
//! dealer that are never flagged.

mod books;
mod carry;
mod fixtures;
mod honest;
