//! The shared shoe section of every game's rule book ([`shoe`]): `[shoe]`, `[cut]`,
//! `[cutting_card]`, `[burn]`, `[end_of_shoe]` and `[shuffle]`, parsed and checked once. A game's
//! book (Blackjack's, poker's, Baccarat's, each in its own crate) flattens [`ShoeBookData`] and
//! adds its own sections. [`terms`]: what shuffle analysis needs of any game's book.

pub mod shoe;
pub mod terms;

pub use shoe::{
    unknown_keys, BurnPolicy, BurnSection, CutLimit, CutSection, CuttingCardLimit,
    CuttingCardSection, EndOfShoePolicy, EndOfShoeSection, Need, ShoeBook, ShoeBookData, ShoeNeeds,
    ShoeSection, ShuffleCheck, ShuffleSection,
};
pub use terms::ShuffleTerms;
