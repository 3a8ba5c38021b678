//! Console entries: what a supervisor records that no device can see (an exposed card, a cut,
//! cards replaced, a vacant table, a step of preparing the cards before loading, a declared
//! misdeal at a poker table, a dealer signed in or out), checked, then recorded like any event.

use pitwatch_api::dto::{ApiError, ConsoleEntry, ErrorCode};
use pitwatch_model::{
    Card, EventKind, ExposedDuring, MisdealReason, MisdealRuling, ShuffleStep, TableState,
};

/// The highest seat number a supervisor may name at the console (a poker table seats ten at
/// most; a typing slip such as 55 is refused rather than recorded).
const MAX_SEAT: u8 = 10;

use crate::access::Command;
use crate::live::{internal, Desk};

impl Desk {
    /// The logged-in user records, for `table`, something no device can see. Returns the
    /// event's `seq` once it is on record; the engine applies the rules to it like any event.
    pub fn record_console(&self, table: &str, entry: &ConsoleEntry) -> Result<u64, ApiError> {
        let who = self.principal()?;
        crate::access::require(
            &mut self.record.store(),
            &who,
            Command::RecordConsole,
            &format!("table {table}"),
            self.clock.now(),
        )?;
        let game = match self.live.model().game(table) {
            Some(game) => game,
            None => {
                return Err(ApiError::new(
                    ErrorCode::NotFound,
                    format!("no table {table}"),
                ))
            }
        };
        let invalid = |m: String| ApiError::new(ErrorCode::InvalidInput, m);
        let kind = match entry {
            ConsoleEntry::CardExposed { card, during } => EventKind::CardExposed {
                card: match card.as_deref().map(str::trim) {
                    None | Some("") => None,
                    Some(text) => Some(
                        text.to_ascii_uppercase()
                            .parse::<Card>()
                            .map_err(|e| invalid(format!("{text:?}: {e}")))?,
                    ),
                },
                during: during
                    .parse::<ExposedDuring>()
                    .map_err(|e| invalid(format!("{during:?}: {e}")))?,
            },
            ConsoleEntry::Cut { position } => EventKind::Cut {
                position: *position,
            },
            ConsoleEntry::CardsReplaced => EventKind::CardsReplaced,
            ConsoleEntry::TableVacant => EventKind::TableStateChanged {
                state: TableState::Vacant,
            },
            ConsoleEntry::Misdeal {
                reason,
                seats,
                ruling,
            } => {
                if !game.declares_lettered_misdeals() {
                    return Err(invalid(format!(
                        "table {table} deals {}: misdeals with a lettered reason are declared at poker tables",
                        game.as_str()
                    )));
                }
                let mut seats = seats.clone();
                seats.sort_unstable();
                seats.dedup();
                if let Some(bad) = seats.iter().find(|s| !(1..=MAX_SEAT).contains(*s)) {
                    return Err(invalid(format!(
                        "seat {bad} is not a seat (1 to {MAX_SEAT})"
                    )));
                }
                EventKind::MisdealDeclared {
                    reason: reason
                        .trim()
                        .to_ascii_lowercase()
                        .parse::<MisdealReason>()
                        .map_err(|e| invalid(format!("{reason:?}: {e}")))?,
                    seats,
                    ruling: ruling
                        .trim()
                        .parse::<MisdealRuling>()
                        .map_err(|e| invalid(format!("{ruling:?}: {e}")))?,
                }
            }
            ConsoleEntry::ShuffleStep { step } => EventKind::ShuffleStep {
                step: step
                    .parse::<ShuffleStep>()
                    .map_err(|e| invalid(format!("{step:?}: {e}")))?,
            },
            ConsoleEntry::DealerSignedIn { dealer } => EventKind::DealerSignedIn {
                dealer: crate::dealers::checked_name(dealer)?,
            },
            ConsoleEntry::DealerSignedOut { dealer } => EventKind::DealerSignedOut {
                dealer: crate::dealers::checked_name(dealer)?,
            },
        };
        self.live
            .with_monitor(|monitor| monitor.console(table, kind, who.actor()).map_err(internal))
    }
}
