//! The games Pitwatch knows, by name: a `Copy` enum (shakmaty's `Variant` in spirit), so a pit
//! definition, the store and the window can say which game a table runs without holding an
//! engine. [`crate::TableEngine`] is the enum over the engines themselves.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// A table game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(rename = "Game")]
pub enum GameKind {
    /// Baccarat (Mini, Midi, Full).
    Baccarat,
    /// Blackjack.
    Blackjack,
    /// Pontoon (48-card decks).
    Pontoon,
    /// Poker (Texas Hold'em, Draw Poker, Five and Seven Card Stud): a deck shuffled for every
    /// hand, usually by a shuffler that is the table's only device.
    Poker,
}

impl GameKind {
    /// Every game, in the order the window lists them.
    pub const ALL: [GameKind; 4] = [
        GameKind::Baccarat,
        GameKind::Blackjack,
        GameKind::Pontoon,
        GameKind::Poker,
    ];

    /// The game's name as written in configuration and the store.
    pub const fn as_str(self) -> &'static str {
        match self {
            GameKind::Baccarat => "baccarat",
            GameKind::Blackjack => "blackjack",
            GameKind::Pontoon => "pontoon",
            GameKind::Poker => "poker",
        }
    }

    /// The game named `name` (as [`GameKind::as_str`] writes it), if Pitwatch knows it.
    pub fn from_name(name: &str) -> Option<GameKind> {
        GameKind::ALL.into_iter().find(|g| g.as_str() == name)
    }

    /// The game of a table as its record names it: a record from before tables named their game
    /// names none, and is a Baccarat record.
    pub fn recorded(name: &str) -> GameKind {
        GameKind::from_name(name).unwrap_or(GameKind::Baccarat)
    }

    /// Whether the game's book declares misdeals by lettered reasons (the poker book's (a) to
    /// (i)): no other game's does.
    pub const fn declares_lettered_misdeals(self) -> bool {
        matches!(self, GameKind::Poker)
    }

    /// Whether a simulated table of this game may deal over any protocol: only a game whose
    /// rounds follow from the cards alone (Baccarat, as [`crate::sim::DealtAs`] says); every
    /// other game needs the Pitwatch protocol's box targets and decisions.
    pub const fn simulated_over_any_protocol(self) -> bool {
        matches!(crate::sim::DealtAs::of(self), crate::sim::DealtAs::Cards)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_game_reads_back_by_its_name() {
        for game in GameKind::ALL {
            assert_eq!(GameKind::from_name(game.as_str()), Some(game));
            let json = serde_json::to_string(&game).unwrap();
            assert_eq!(json, format!("\"{}\"", game.as_str()));
        }
        assert_eq!(GameKind::from_name("craps"), None);
        assert_eq!(GameKind::recorded(""), GameKind::Baccarat);
        assert_eq!(GameKind::recorded("pontoon"), GameKind::Pontoon);
        let lettered: Vec<GameKind> = GameKind::ALL
            .into_iter()
            .filter(|g| g.declares_lettered_misdeals())
            .collect();
        assert_eq!(lettered, [GameKind::Poker]);
    }
}
