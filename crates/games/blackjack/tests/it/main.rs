//! The Blackjack and Pontoon engine's integration tests (one test binary): data-driven fixtures
//! per rule, the rule books' texts against the seed pages, and simulated honest and faulty play.

mod arbitrary;
mod books;
mod burn;
mod carry;
mod cascade;
mod fixtures;
mod hole_card;
mod joined;
mod named;
mod simulated;
