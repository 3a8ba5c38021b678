//! Baccarat's words for the shared tracker's shoe-level findings ([`ShoeFact`]): the engine's,
//! which its fixtures hold, given to the table through [`pitwatch_rules::RoundGame::shoe_wording`].

use pitwatch_model::ExposedDuring;
use pitwatch_rules::{CuttingCardLimit, ShoeFact};

/// Baccarat's words for a shoe-level finding on the table (the engine's, which its fixtures
/// hold); `limit` is the book's cutting-card limit.
pub(super) fn wording(fact: &ShoeFact<'_>, limit: &CuttingCardLimit) -> String {
    let shown = |card: Option<pitwatch_model::Card>| {
        card.map_or_else(|| "A card".to_owned(), |c| format!("Card {c}"))
    };
    match fact {
        ShoeFact::ShuffleWrong {
            decks,
            allowed,
            counted,
            kind,
            check,
        } => {
            let mut wrong = Vec::new();
            if let Some((min, max)) = allowed {
                wrong.push(format!(
                    "The shuffle reports {decks} decks; the rule book allows {min} to {max}."
                ));
            }
            if let Some((cards, expected)) = counted {
                wrong.push(format!(
                    "The shuffler counted {cards} cards; {decks} decks of {kind} hold {expected}."
                ));
            }
            if let Some(found) = check {
                let mut found = found.clone();
                if let Some(first) = found.get_mut(..1) {
                    first.make_ascii_uppercase();
                }
                wrong.push(format!("{found}."));
            }
            format!(
                "{} Cards are missing, extra or foreign: remove the cards from the table and \
                 check them before play.",
                wrong.join(" ")
            )
        }
        ShoeFact::CutTooClose {
            position,
            total,
            min,
        } => {
            let from_back = total.saturating_sub(*position);
            format!(
                "The cut was {position} cards from the front and {from_back} from the back; the \
                 rule book requires at least {min} from either end. Have the cards cut again."
            )
        }
        ShoeFact::CuttingCard {
            placed: true,
            behind,
            ..
        } => format!(
            "The cutting card was placed with {behind} cards behind it; the rule book requires \
             {}. Reposition it before dealing.",
            limit.describe()
        ),
        ShoeFact::CuttingCard { behind, dealt, .. } => format!(
            "The cutting card came out with {behind} cards behind it ({dealt} dealt); the rule \
             book requires {}. The shoe ends by the last-coup rule as usual; check how the \
             cutting card was placed.",
            limit.describe()
        ),
        ShoeFact::Excess { card, copy, holds } => format!(
            "{card} is copy {copy} of a card the shoe holds {holds} times: a foreign or duplicate \
             card. Stop play, remove it and check the cards."
        ),
        ShoeFact::Unreadable => "The device could not read a card. Read it at the table and \
                                 record it; the round's result is unknown to the monitor until \
                                 then."
            .to_owned(),
        ShoeFact::Exposed {
            card,
            during: during @ (ExposedDuring::Cutting | ExposedDuring::Loading),
        } => format!(
            "{} was exposed during {during}. This is a misdeal: the cards must be reshuffled and \
             cut again before any card is dealt.",
            shown(*card)
        ),
        ShoeFact::Exposed { card, .. } => format!(
            "{} was exposed during the deal. If it is a third card to the Player the rules do \
             not authorise, 12.1(b): announce \"No bets this hand\" for the round it starts; \
             otherwise the supervisor decides whether the round stands.",
            shown(*card)
        ),
        ShoeFact::DeviceError { code, text } => format!(
            "The device reported error {code} ({text}). It stays open until the device clears \
             it: check the shoe and the cards of the current round before continuing."
        ),
        ShoeFact::FirstCardUnshuffled => "A new shoe began (first card of the burn) with no \
                                          shuffle since the last shoe. The cards must be \
                                          shuffled and cut before play."
            .to_owned(),
        ShoeFact::Unshuffled { replaced: true, .. } => {
            "Cards were dealt from replaced cards that were not shuffled and cut (7.10), nor \
             accepted as pre-shuffled. Stop: the new cards must be checked, shuffled and cut."
                .to_owned()
        }
        ShoeFact::Unshuffled { .. } => "Cards were dealt after a card was exposed before play, \
                                        without a new shuffle. This is a misdeal: reshuffle and \
                                        cut."
            .to_owned(),
    }
}
