//! The game-neutral core of the Pitwatch rules engines: the game seam ([`seam`]), the shared shoe
//! tracker every game runs on ([`table`]), the shared shoe section of every rule book ([`book`]),
//! the shuffler's checks ([`shuffler`]) and the irregularity vocabulary ([`irregularity`]).
//!
//! It knows no game: each game (Baccarat, Blackjack and Pontoon, poker) is a crate of its own
//! under `crates/games/`, built on these types.
//!
//! Nothing here reads a clock, file, port or random source (a workspace test keeps it that way).

pub mod book;
pub mod irregularity;
pub mod record;
pub mod seam;
pub mod shuffler;
pub mod table;
pub mod view;

pub use book::{
    BurnPolicy, CutLimit, CuttingCardLimit, EndOfShoePolicy, ShoeBook, ShoeBookData, ShoeNeeds,
    ShuffleCheck, ShuffleSection, ShuffleTerms,
};
pub use irregularity::{CodeSet, Irregularity, IrregularityCode, Severity};
pub use record::{DeviceErrorCleared, ShoeSummary};
pub use seam::{
    run_stream, Boundary, Finding, Findings, Game, ResultTaken, RoundGame, ShoeFact, Stray,
};
pub use table::{GameTableView, ShoeRules, Table, TableCarry, TableOutput};
pub use view::{BurnStatus, BurnView, Phase};
