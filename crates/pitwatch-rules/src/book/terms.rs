//! What shuffle analysis needs of a rule book, whatever its game ([`ShuffleTerms`]): the book's
//! id, the rule it cites for `SHUFFLE_SUSPECT`, its default shoe, its `[shuffle]` thresholds,
//! whether its tables deal shoes to compare and whether it raises `SHUFFLE_SUSPECT` at all. Each
//! game's book says these in its own way (Baccarat's book from its own citations, every other
//! game's from the shared [`ShoeRules`]); the shuffle watch (`pitwatch-shuffle`) reads only this,
//! so it names no game.

use pitwatch_model::{ShoeComposition, ShufflerKind};

use crate::book::ShuffleCheck;
use crate::irregularity::IrregularityCode;
use crate::table::ShoeRules;

/// A rule book's terms for judging shuffles; see the module documentation.
#[derive(Debug, Clone, PartialEq)]
pub struct ShuffleTerms {
    /// The book's id, cited in the irregularity.
    pub book_id: String,
    /// The rule the book cites for `SHUFFLE_SUSPECT` (empty when it cites none).
    pub rule: String,
    /// The shoe when a shuffle does not say.
    pub composition: ShoeComposition,
    /// The `[shuffle]` thresholds (or their defaults).
    pub check: ShuffleCheck,
    /// Whether the book's tables deal shoes to compare (a continuous shuffler deals none).
    pub compared: bool,
    /// Whether a suspect shoe raises `SHUFFLE_SUSPECT` (otherwise it is analysed and its quality
    /// shown, never an incident).
    pub raises: bool,
}

impl From<&ShoeRules> for ShuffleTerms {
    /// The terms of a game on the shared shoe rules: a book that cites no rule for
    /// `SHUFFLE_SUSPECT` raises none.
    fn from(rules: &ShoeRules) -> ShuffleTerms {
        let rule = rules.cited(IrregularityCode::ShuffleSuspect.as_str());
        ShuffleTerms {
            book_id: rules.book_id.clone(),
            rule: rule.unwrap_or_default().to_owned(),
            composition: rules.composition,
            check: rules.shuffle_check,
            compared: rules.shuffler != ShufflerKind::Continuous,
            raises: rule.is_some_and(|r| !r.is_empty()),
        }
    }
}
