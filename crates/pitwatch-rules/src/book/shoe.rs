//! The shoe section of every rule book, parsed and checked once for every game: `[shoe]` (decks,
//! deck kind, shuffler, hand-preparation steps), `[cut]`, `[cutting_card]`, `[burn]`,
//! `[end_of_shoe]` and `[shuffle]`.
//!
//! A game's book carries these sections beside its own ([`ShoeBookData`]; Baccarat's
//! `RuleBookData` flattens it, Blackjack's and poker's books hold the same section types
//! as fields) and checks them with [`ShoeBookData::check`], which lists every problem in the same
//! words for every game. What a game takes of them is its [`ShoeNeeds`]: which sections it
//! requires, which it has no use for (those are refused as unknown sections), and what its
//! shoe section is called (poker's one deck is `[deck]`).

use std::collections::BTreeMap;

use pitwatch_model::{DeckKind, Rank, ShoeComposition, ShuffleStep, ShufflerKind};
use serde::Deserialize;

use crate::table::ShoeRules;

/// `[shoe]`: decks and shuffler.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ShoeSection {
    /// Decks in a shoe when the shuffle does not say.
    pub decks: Option<u8>,
    /// Fewest decks the rules allow.
    pub min_decks: Option<u8>,
    /// Most decks the rules allow.
    pub max_decks: Option<u8>,
    /// `standard_52` or `spanish_48`.
    pub deck_kind: Option<String>,
    /// `manual`, `batch` or `continuous`.
    pub shuffler: Option<String>,
    /// The steps of preparing the cards by hand that must be logged, in this order, before each
    /// load of cards into the shuffler or the shoe (`chemmy`, `stacking`, `riffle`); none by
    /// default (the NZ Baccarat books require none; Pontoon's 6.4 does).
    pub shuffle_steps: Option<Vec<String>>,
    /// Unknown keys.
    #[serde(flatten)]
    pub unknown: BTreeMap<String, toml::Value>,
}

/// `[shuffle]`: how a shoe's order is compared with the table's previous shoes (see
/// `docs/shuffle.md`, where the defaults are calibrated). Every key is optional.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ShuffleSection {
    /// A shoe whose combined p-value is at or below this raises `SHUFFLE_SUSPECT` (default
    /// 0.0001: at most one false alarm in 10,000 honest shoes).
    pub alarm_p_value: Option<f64>,
    /// A shoe at or below this (above the alarm) is labelled weak (default 0.001).
    pub weak_p_value: Option<f64>,
    /// How many previous shoes of the table to compare with (default 2).
    pub previous_shoes: Option<u32>,
    /// Unknown keys.
    #[serde(flatten)]
    pub unknown: BTreeMap<String, toml::Value>,
}

/// The shuffle-integrity settings of a book, checked.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ShuffleCheck {
    /// The alarm threshold on the combined p-value.
    pub alarm_p_value: f64,
    /// The threshold for a weak shuffle.
    pub weak_p_value: f64,
    /// Previous shoes compared.
    pub previous_shoes: u32,
}

impl Default for ShuffleCheck {
    fn default() -> ShuffleCheck {
        ShuffleCheck {
            alarm_p_value: 1e-4,
            weak_p_value: 1e-3,
            previous_shoes: 2,
        }
    }
}

/// `[cut]`: the player's cut.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct CutSection {
    /// Minimum distance of the cut from either end, in cards.
    pub min_from_either_end_cards: Option<u32>,
    /// Minimum distance of the cut from either end, in decks.
    pub min_from_either_end_decks: Option<u32>,
    /// Unknown keys.
    #[serde(flatten)]
    pub unknown: BTreeMap<String, toml::Value>,
}

/// `[cutting_card]`: where the cutting card goes.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct CuttingCardSection {
    /// Minimum number of cards behind the cutting card.
    pub min_from_back: Option<u32>,
    /// Maximum depth from the back as a fraction of the shoe (`0.5` = "no deeper than half").
    pub max_from_back_fraction: Option<f64>,
    /// No more than half way in from the back (Pontoon 7.6): the same as
    /// `max_from_back_fraction = 0.5`, as the Blackjack and Pontoon books write it.
    pub at_most_half_from_back: Option<bool>,
    /// Unknown keys.
    #[serde(flatten)]
    pub unknown: BTreeMap<String, toml::Value>,
}

/// `[burn]`: burn policy.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct BurnSection {
    /// `none`, `fixed` or `first_card_value`.
    pub policy: Option<String>,
    /// For `first_card_value`: what an ace counts (1 or 11).
    pub ace: Option<u8>,
    /// For `fixed`: how many cards are burned.
    pub count: Option<u32>,
    /// Unknown keys.
    #[serde(flatten)]
    pub unknown: BTreeMap<String, toml::Value>,
}

/// `[end_of_shoe]`: what follows the cutting card.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct EndOfShoeSection {
    /// `last_coup` (NZ 11.2), `finish_round` or `one_more_round`.
    pub policy: Option<String>,
    /// Unknown keys.
    #[serde(flatten)]
    pub unknown: BTreeMap<String, toml::Value>,
}

/// How the burn is done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BurnPolicy {
    /// No burn.
    None,
    /// A fixed number of cards, all face down.
    Fixed(u32),
    /// A first card face up, then as many as its face value (10/J/Q/K = 10, ace = `ace`).
    FirstCardValue {
        /// What an ace counts: 1 (NZ 7.9) or 11.
        ace: u8,
    },
}

impl BurnPolicy {
    /// How many cards to burn after a first card of `rank`, for `FirstCardValue`.
    pub const fn count_after(self, rank: Rank) -> u32 {
        match self {
            BurnPolicy::FirstCardValue { ace } => match rank {
                Rank::Ace => ace as u32,
                other => other.face_value() as u32,
            },
            BurnPolicy::Fixed(n) => n,
            BurnPolicy::None => 0,
        }
    }
}

/// What follows the cutting card.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndOfShoePolicy {
    /// NZ 11.2: drawn as the first card of a round, that round is the last (a); drawn at any
    /// other point, the round is completed and one further round is dealt (b).
    LastCoup,
    /// The round in which the cutting card appears is the last (or the next, if between rounds).
    FinishRound,
    /// The round in which it appears is completed and one more is dealt, wherever it appears.
    OneMoreRound,
}

/// The limit on where the cutting card may sit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CuttingCardLimit {
    /// At least this many cards behind it.
    pub min_from_back: u32,
    /// At most this fraction of the shoe behind it (`None`: no upper limit).
    pub max_from_back_fraction: Option<f64>,
}

impl CuttingCardLimit {
    /// Whether `from_back` cards behind the cutting card is allowed in a shoe of `total` cards.
    pub fn allows(&self, from_back: u32, total: u32) -> bool {
        if from_back < self.min_from_back {
            return false;
        }
        match self.max_from_back_fraction {
            Some(f) => f64::from(from_back) <= f * f64::from(total),
            None => true,
        }
    }

    /// The limit in words, for messages.
    pub fn describe(&self) -> String {
        match self.max_from_back_fraction {
            Some(f) if self.min_from_back > 0 => format!(
                "at least {} cards and no more than {:.0}% of the shoe from the back",
                self.min_from_back,
                f * 100.0
            ),
            Some(f) => format!("no deeper than {:.0}% of the shoe from the back", f * 100.0),
            None => format!("at least {} cards from the back", self.min_from_back),
        }
    }
}

/// The minimum cut distance from either end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CutLimit {
    /// In cards.
    Cards(u32),
    /// In decks (converted with the shoe's deck size).
    Decks(u32),
}

impl CutLimit {
    /// The limit in cards for a shoe of `composition`.
    pub const fn cards(self, composition: ShoeComposition) -> u32 {
        match self {
            CutLimit::Cards(n) => n,
            CutLimit::Decks(n) => n.saturating_mul(composition.kind.cards_per_deck()),
        }
    }
}

/// The shoe sections of a book as written: every field optional so that checking can report all
/// that is missing.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ShoeBookData {
    /// The shoe (poker's `[deck]`).
    #[serde(default)]
    pub shoe: Option<ShoeSection>,
    /// The player's cut.
    #[serde(default)]
    pub cut: Option<CutSection>,
    /// The cutting card.
    #[serde(default)]
    pub cutting_card: Option<CuttingCardSection>,
    /// The burn.
    #[serde(default)]
    pub burn: Option<BurnSection>,
    /// The end of the shoe.
    #[serde(default)]
    pub end_of_shoe: Option<EndOfShoeSection>,
    /// Shuffle integrity (optional: a book without it gets the defaults).
    #[serde(default)]
    pub shuffle: Option<ShuffleSection>,
}

/// Whether a game's books must, may or may not have a shoe section.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// Missing is a problem (each missing key named).
    Required,
    /// It may be left out.
    Optional,
    /// The game follows no such thing: the section is refused as unknown.
    Refused,
}

/// What a game takes of the shoe sections.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShoeNeeds {
    /// What the shoe section is called (`shoe`; poker's one deck is `deck`).
    pub shoe_section: &'static str,
    /// Why a continuous shuffler is refused (`None`: it is allowed).
    pub no_continuous: Option<&'static str>,
    /// `[cut]`.
    pub cut: Need,
    /// `[cutting_card]`.
    pub cutting_card: Need,
    /// `[burn]`.
    pub burn: Need,
    /// `[end_of_shoe]`.
    pub end_of_shoe: Need,
    /// `[shuffle]` (optional or refused; its keys all default).
    pub shuffle: Need,
}

/// The shoe sections of a book, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct ShoeBook {
    /// The default shoe.
    pub composition: ShoeComposition,
    /// Fewest decks allowed.
    pub min_decks: u8,
    /// Most decks allowed.
    pub max_decks: u8,
    /// The shuffler the table uses.
    pub shuffler: ShufflerKind,
    /// The hand-preparation steps required before each load, in order.
    pub shuffle_steps: Vec<ShuffleStep>,
    /// The player's cut limit (`None`: the book sets none).
    pub cut: Option<CutLimit>,
    /// The cutting-card limit (`None`: the book sets none).
    pub cutting_card: Option<CuttingCardLimit>,
    /// The burn policy (`None` when the book has no `[burn]`).
    pub burn: BurnPolicy,
    /// The end-of-shoe policy, when the book gives one.
    pub end_of_shoe: Option<EndOfShoePolicy>,
    /// Shuffle integrity settings (the defaults when the book gives none).
    pub shuffle_check: ShuffleCheck,
}

/// Adds a problem for each unknown key of `[section]` (`section` empty: of the book's top level).
pub fn unknown_keys(
    section: &str,
    unknown: &BTreeMap<String, toml::Value>,
    problems: &mut Vec<String>,
) {
    for key in unknown.keys() {
        if section.is_empty() {
            problems.push(format!("unknown section or key {key:?}"));
        } else {
            problems.push(format!("[{section}]: unknown key {key:?}"));
        }
    }
}

impl ShoeBookData {
    /// Adds a problem for each unknown key of the shoe sections, and for each section the game
    /// has no use for (as an unknown section).
    pub fn unknown_keys(&self, needs: &ShoeNeeds, problems: &mut Vec<String>) {
        let refused = |name: &str, need: Need, present: bool, problems: &mut Vec<String>| {
            let no = need == Need::Refused && present;
            if no {
                problems.push(format!("unknown section or key {name:?}"));
            }
            no
        };
        if let Some(s) = &self.shoe {
            unknown_keys(needs.shoe_section, &s.unknown, problems);
        }
        if !refused("cut", needs.cut, self.cut.is_some(), problems) {
            if let Some(s) = &self.cut {
                unknown_keys("cut", &s.unknown, problems);
            }
        }
        let cutting_card = self.cutting_card.is_some();
        if !refused("cutting_card", needs.cutting_card, cutting_card, problems) {
            if let Some(s) = &self.cutting_card {
                unknown_keys("cutting_card", &s.unknown, problems);
            }
        }
        if !refused("burn", needs.burn, self.burn.is_some(), problems) {
            if let Some(s) = &self.burn {
                unknown_keys("burn", &s.unknown, problems);
            }
        }
        let end = self.end_of_shoe.is_some();
        if !refused("end_of_shoe", needs.end_of_shoe, end, problems) {
            if let Some(s) = &self.end_of_shoe {
                unknown_keys("end_of_shoe", &s.unknown, problems);
            }
        }
        if !refused("shuffle", needs.shuffle, self.shuffle.is_some(), problems) {
            if let Some(s) = &self.shuffle {
                unknown_keys("shuffle", &s.unknown, problems);
            }
        }
    }

    /// Checks the shoe sections for a game that takes `needs`, adding every problem found (the
    /// unknown keys are [`ShoeBookData::unknown_keys`]'). The value returned is only meaningful
    /// when no problem was added.
    pub fn check(&self, needs: &ShoeNeeds, p: &mut Vec<String>) -> ShoeBook {
        let name = needs.shoe_section;
        let shoe = self.shoe.clone().unwrap_or_default();
        let kind = match shoe.deck_kind.as_deref() {
            None => {
                p.push(format!(
                    "[{name}]: missing deck_kind (standard_52 or spanish_48)"
                ));
                DeckKind::Standard52
            }
            Some(k) => k.parse::<DeckKind>().unwrap_or_else(|e| {
                p.push(format!("[{name}]: {e}"));
                DeckKind::Standard52
            }),
        };
        let decks = shoe.decks.unwrap_or_else(|| {
            p.push(format!("[{name}]: missing decks"));
            8
        });
        let min_decks = shoe.min_decks.unwrap_or(decks);
        let max_decks = shoe.max_decks.unwrap_or(decks);
        if decks == 0 {
            p.push(format!("[{name}]: decks must be at least 1"));
        }
        if !(min_decks <= decks && decks <= max_decks) {
            p.push(format!(
                "[{name}]: decks {decks} is outside min_decks {min_decks} .. max_decks {max_decks}"
            ));
        }
        let mut shuffle_steps: Vec<ShuffleStep> = Vec::new();
        for step in shoe.shuffle_steps.iter().flatten() {
            match step.parse::<ShuffleStep>() {
                Ok(s) if shuffle_steps.contains(&s) => {
                    p.push(format!("[{name}]: shuffle_steps names {s} twice"));
                }
                Ok(s) => shuffle_steps.push(s),
                Err(e) => p.push(format!("[{name}]: shuffle_steps: {e}")),
            }
        }
        let shuffler = match shoe.shuffler.as_deref() {
            None => {
                p.push(format!(
                    "[{name}]: missing shuffler (manual, batch or continuous)"
                ));
                ShufflerKind::Manual
            }
            Some(s) => match s.parse::<ShufflerKind>() {
                Ok(ShufflerKind::PreShuffled) => {
                    p.push(format!(
                        "[{name}]: shuffler \"pre_shuffled\" names cards delivered shuffled, not \
                         how a table shuffles (manual, batch or continuous)"
                    ));
                    ShufflerKind::Manual
                }
                Ok(ShufflerKind::Continuous) if needs.no_continuous.is_some() => {
                    p.push(format!(
                        "[{name}]: shuffler {s:?} is not manual or batch ({})",
                        needs.no_continuous.unwrap_or_default()
                    ));
                    ShufflerKind::Batch
                }
                Ok(kind) => kind,
                Err(e) => {
                    p.push(format!("[{name}]: {e}"));
                    ShufflerKind::Manual
                }
            },
        };
        let composition = ShoeComposition::new(decks, kind);
        let total = composition.total_cards();

        let cut = self.check_cut(needs.cut, composition, p);
        let cutting_card = self.check_cutting_card(needs.cutting_card, total, p);
        let burn = match (&self.burn, needs.burn) {
            (None, Need::Optional | Need::Refused) => BurnPolicy::None,
            (burn, _) => check_burn(&burn.clone().unwrap_or_default(), p),
        };
        let end_of_shoe = match (&self.end_of_shoe, needs.end_of_shoe) {
            (None, Need::Optional | Need::Refused) => None,
            (end, _) => Some(check_end_of_shoe(&end.clone().unwrap_or_default(), p)),
        };
        let shuffle_check = check_shuffle(&self.shuffle.clone().unwrap_or_default(), p);
        ShoeBook {
            composition,
            min_decks,
            max_decks,
            shuffler,
            shuffle_steps,
            cut,
            cutting_card,
            burn,
            end_of_shoe,
            shuffle_check,
        }
    }

    fn check_cut(
        &self,
        need: Need,
        composition: ShoeComposition,
        p: &mut Vec<String>,
    ) -> Option<CutLimit> {
        let total = composition.total_cards();
        let cut = self.cut.clone().unwrap_or_default();
        let cut = match (cut.min_from_either_end_cards, cut.min_from_either_end_decks) {
            (Some(c), None) => CutLimit::Cards(c),
            (None, Some(d)) => CutLimit::Decks(d),
            (Some(_), Some(_)) => {
                p.push(
                    "[cut]: give min_from_either_end_cards or min_from_either_end_decks, not both"
                        .into(),
                );
                CutLimit::Cards(0)
            }
            (None, None) if need != Need::Required => return None,
            (None, None) => {
                p.push(
                    "[cut]: missing min_from_either_end_cards or min_from_either_end_decks".into(),
                );
                CutLimit::Cards(0)
            }
        };
        if total > 0 && cut.cards(composition).saturating_mul(2) >= total {
            p.push(format!(
                "[cut]: a cut at least {} cards from either end is impossible in a {total}-card shoe",
                cut.cards(composition)
            ));
        }
        Some(cut)
    }

    fn check_cutting_card(
        &self,
        need: Need,
        total: u32,
        p: &mut Vec<String>,
    ) -> Option<CuttingCardLimit> {
        let section = self.cutting_card.clone().unwrap_or_default();
        let half = section.at_most_half_from_back.unwrap_or(false);
        let fraction = match (section.max_from_back_fraction, half) {
            (Some(_), true) => {
                p.push(
                    "[cutting_card]: give max_from_back_fraction or at_most_half_from_back, not both"
                        .into(),
                );
                None
            }
            (Some(f), false) => Some(f),
            (None, true) => Some(0.5),
            (None, false) => None,
        };
        if section.min_from_back.is_none() && fraction.is_none() {
            if need != Need::Required {
                return None;
            }
            p.push("[cutting_card]: missing min_from_back or max_from_back_fraction".into());
        }
        let limit = CuttingCardLimit {
            min_from_back: section.min_from_back.unwrap_or(0),
            max_from_back_fraction: fraction,
        };
        if let Some(f) = limit.max_from_back_fraction {
            if !(f > 0.0 && f <= 1.0) {
                p.push(format!(
                    "[cutting_card]: max_from_back_fraction {f} is not in (0, 1]"
                ));
            }
        }
        if limit.min_from_back >= total.max(1) {
            p.push(format!(
                "[cutting_card]: min_from_back {} does not fit a {total}-card shoe",
                limit.min_from_back
            ));
        }
        Some(limit)
    }
}

fn check_burn(burn: &BurnSection, p: &mut Vec<String>) -> BurnPolicy {
    match burn.policy.as_deref() {
        Some("none") => BurnPolicy::None,
        Some("fixed") => match burn.count {
            Some(n) => BurnPolicy::Fixed(n),
            None => {
                p.push("[burn]: policy \"fixed\" needs count".into());
                BurnPolicy::None
            }
        },
        Some("first_card_value") => {
            let ace = burn.ace.unwrap_or(1);
            if ace != 1 && ace != 11 {
                p.push(format!("[burn]: ace counts 1 or 11, not {ace}"));
            }
            BurnPolicy::FirstCardValue { ace }
        }
        Some(other) => {
            p.push(format!(
                "[burn]: unknown policy {other:?} (expected none, fixed or first_card_value)"
            ));
            BurnPolicy::None
        }
        None => {
            p.push("[burn]: missing policy (none, fixed or first_card_value)".into());
            BurnPolicy::None
        }
    }
}

fn check_end_of_shoe(end: &EndOfShoeSection, p: &mut Vec<String>) -> EndOfShoePolicy {
    match end.policy.as_deref() {
        Some("last_coup") => EndOfShoePolicy::LastCoup,
        Some("finish_round") => EndOfShoePolicy::FinishRound,
        Some("one_more_round") => EndOfShoePolicy::OneMoreRound,
        Some(other) => {
            p.push(format!(
                "[end_of_shoe]: unknown policy {other:?} (expected last_coup, finish_round or one_more_round)"
            ));
            EndOfShoePolicy::LastCoup
        }
        None => {
            p.push("[end_of_shoe]: missing policy".into());
            EndOfShoePolicy::LastCoup
        }
    }
}

fn check_shuffle(sh: &ShuffleSection, p: &mut Vec<String>) -> ShuffleCheck {
    let defaults = ShuffleCheck::default();
    let shuffle_check = ShuffleCheck {
        alarm_p_value: sh.alarm_p_value.unwrap_or(defaults.alarm_p_value),
        weak_p_value: sh.weak_p_value.unwrap_or(defaults.weak_p_value),
        previous_shoes: sh.previous_shoes.unwrap_or(defaults.previous_shoes),
    };
    let probability = |v: f64| v.is_finite() && v > 0.0 && v < 1.0;
    if !probability(shuffle_check.alarm_p_value) || !probability(shuffle_check.weak_p_value) {
        p.push("[shuffle]: alarm_p_value and weak_p_value must be between 0 and 1".into());
    } else if shuffle_check.weak_p_value < shuffle_check.alarm_p_value {
        p.push("[shuffle]: weak_p_value must be at least alarm_p_value".into());
    }
    if !(1..=20).contains(&shuffle_check.previous_shoes) {
        p.push("[shuffle]: previous_shoes must be 1 to 20".into());
    }
    shuffle_check
}

impl ShoeBook {
    /// What the shared shoe tracker ([`crate::Table`]) follows of this book: its limits as the
    /// book gives them (a cut in decks or cards, a cutting card at least some cards from the back
    /// and no deeper than a fraction of the shoe), with the book's `[cite]` table.
    pub fn shoe_rules(&self, book_id: &str, cite: Vec<(String, String)>) -> ShoeRules {
        ShoeRules {
            book_id: book_id.to_owned(),
            composition: self.composition,
            min_decks: self.min_decks,
            max_decks: self.max_decks,
            shuffler: self.shuffler,
            cut: self.cut,
            cutting_card: self.cutting_card,
            burn: self.burn,
            shuffle_check: self.shuffle_check,
            cite,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EVERY: ShoeNeeds = ShoeNeeds {
        shoe_section: "shoe",
        no_continuous: None,
        cut: Need::Required,
        cutting_card: Need::Required,
        burn: Need::Required,
        end_of_shoe: Need::Required,
        shuffle: Need::Optional,
    };

    const DECK_ONLY: ShoeNeeds = ShoeNeeds {
        shoe_section: "deck",
        no_continuous: Some("shuffled before every hand"),
        cut: Need::Refused,
        cutting_card: Need::Refused,
        burn: Need::Refused,
        end_of_shoe: Need::Refused,
        shuffle: Need::Refused,
    };

    fn data(text: &str) -> ShoeBookData {
        toml::from_str(text).expect("TOML of the shoe sections")
    }

    fn problems(text: &str, needs: &ShoeNeeds) -> Vec<String> {
        let data = data(text);
        let mut p = Vec::new();
        data.unknown_keys(needs, &mut p);
        data.check(needs, &mut p);
        p
    }

    #[test]
    fn one_fault_is_worded_the_same_for_every_game_but_for_its_sections_name() {
        let shoe = "[shoe]\ndecks = 0\ndeck_kind = \"tarot\"\nshuffler = \"manual\"\n";
        let every = problems(shoe, &EVERY);
        for wanted in [
            "[shoe]: unknown deck kind \"tarot\"",
            "[shoe]: decks must be at least 1",
            "[cut]: missing",
            "[cutting_card]: missing",
            "[burn]: missing policy",
            "[end_of_shoe]: missing policy",
        ] {
            assert!(
                every.iter().any(|p| p.starts_with(wanted)),
                "no {wanted:?} in {every:?}"
            );
        }
        // The same shoe, as poker's one deck: the same words under its own section name, and
        // nothing required of sections it has no use for.
        let deck = problems(shoe, &DECK_ONLY);
        assert_eq!(
            deck,
            every
                .iter()
                .filter(|p| p.starts_with("[shoe]"))
                .map(|p| p.replacen("[shoe]", "[deck]", 1))
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn a_section_the_game_has_no_use_for_is_refused_as_unknown() {
        let text = "[shoe]\ndecks = 1\ndeck_kind = \"standard_52\"\nshuffler = \"continuous\"\n\
                    colour = \"red\"\n[burn]\npolicy = \"none\"\n";
        let p = problems(text, &DECK_ONLY);
        assert_eq!(
            p,
            [
                "[deck]: unknown key \"colour\"",
                "unknown section or key \"burn\"",
                "[deck]: shuffler \"continuous\" is not manual or batch (shuffled before every hand)",
            ]
        );
    }

    #[test]
    fn optional_limits_may_be_left_out_and_half_way_is_a_fraction_of_one_half() {
        let optional = ShoeNeeds {
            cut: Need::Optional,
            cutting_card: Need::Optional,
            burn: Need::Refused,
            end_of_shoe: Need::Refused,
            ..EVERY
        };
        let plain = "[shoe]\ndecks = 6\ndeck_kind = \"spanish_48\"\nshuffler = \"batch\"\n";
        let mut p = Vec::new();
        let book = data(plain).check(&optional, &mut p);
        assert!(p.is_empty(), "{p:?}");
        assert_eq!((book.cut, book.cutting_card), (None, None));
        assert_eq!(book.burn, BurnPolicy::None);

        let half = format!(
            "{plain}[cut]\nmin_from_either_end_decks = 1\n[cutting_card]\nat_most_half_from_back = true\n"
        );
        let book = data(&half).check(&optional, &mut p);
        assert!(p.is_empty(), "{p:?}");
        assert_eq!(book.cut, Some(CutLimit::Decks(1)));
        assert_eq!(
            book.cutting_card.and_then(|c| c.max_from_back_fraction),
            Some(0.5)
        );
        let rules = book.shoe_rules("pontoon-like", Vec::new());
        assert!(p.is_empty(), "{p:?}");
        assert_eq!(rules.cut, Some(CutLimit::Decks(1)));
        assert_eq!(
            rules.cutting_card.and_then(|c| c.max_from_back_fraction),
            Some(0.5)
        );

        // A cut in cards and a cutting card limited to another fraction are the table's too.
        let other = format!(
            "{plain}[cut]\nmin_from_either_end_cards = 52\n[cutting_card]\nmax_from_back_fraction = 0.4\n"
        );
        let book = data(&other).check(&optional, &mut p);
        let rules = book.shoe_rules("x", Vec::new());
        assert!(p.is_empty(), "{p:?}");
        assert_eq!(rules.cut, Some(CutLimit::Cards(52)));
        assert_eq!(
            rules.cutting_card.and_then(|c| c.max_from_back_fraction),
            Some(0.4)
        );
    }
}
