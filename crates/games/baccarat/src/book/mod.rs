//! Rule books: a jurisdiction's Baccarat rules as data, checked once on loading.
//!
//! A rule book arrives as [`RuleBookData`] (unchecked, straight from TOML) and becomes a
//! [`RuleBook`] only through [`RuleBook::new`], whose error lists every problem at once and hands
//! the data back. Everything the engine decides from (decks, cut and cutting-card limits, burn and
//! end-of-shoe policy, shuffler kind, drawing table, the rule number to cite for each check) is in
//! the book, so supporting another jurisdiction is writing a file, not code.
//!
//! The shoe sections (`[shoe]`, `[cut]`, `[cutting_card]`, `[burn]`, `[end_of_shoe]`,
//! `[shuffle]`) are every game's ([`shoe`]): parsed and checked there for Baccarat, Blackjack,
//! Pontoon and poker alike; this module adds Baccarat's `[book]`, `[drawing]`, `[cite]` and
//! `[texts]`, and `[[wagers]]` ([`wagers`]: what the table offers, for surveillance's exposure).
//!
//! A book may also carry `[texts]`: the words of the rules it cites, keyed by rule number, so a
//! report can print the rule with its text ([`RuleBook::rule_texts`]). Only text taken from a
//! source goes there; a rule whose words are not at hand is left out, never paraphrased unmarked.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use pitwatch_model::{ShoeComposition, ShuffleStep, ShufflerKind};
use serde::Deserialize;

use crate::drawing::{DrawingTable, PointSet};
use pitwatch_rules::{IrregularityCode, ShuffleTerms};

pub use pitwatch_rules::book::{
    unknown_keys, BurnPolicy, BurnSection, CutLimit, CutSection, CuttingCardLimit,
    CuttingCardSection, EndOfShoePolicy, EndOfShoeSection, Need, ShoeBook, ShoeBookData, ShoeNeeds,
    ShoeSection, ShuffleCheck, ShuffleSection,
};

/// What Baccarat takes of the shared shoe sections: all of them, each required but `[shuffle]`.
const BACCARAT_SHOE: ShoeNeeds = ShoeNeeds {
    shoe_section: "shoe",
    no_continuous: None,
    cut: Need::Required,
    cutting_card: Need::Required,
    burn: Need::Required,
    end_of_shoe: Need::Required,
    shuffle: Need::Optional,
};

/// The rule books shipped with Pitwatch: (id, TOML text).
pub const BUILTIN: &[(&str, &str)] = &[
    (
        "nz-baccarat",
        include_str!("../../rulebooks/nz-baccarat.toml"),
    ),
    (
        "macau-baccarat",
        include_str!("../../rulebooks/macau-baccarat.toml"),
    ),
    (
        "nz-baccarat-continuous",
        include_str!("../../rulebooks/nz-baccarat-continuous.toml"),
    ),
];

/// A rule book as written: every field optional so that loading can report all that is missing.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct RuleBookData {
    /// Identity and provenance.
    #[serde(default)]
    pub book: BookSection,
    /// The shoe sections every game's book shares: `[shoe]`, `[cut]`, `[cutting_card]`, `[burn]`,
    /// `[end_of_shoe]` and `[shuffle]` ([`shoe`]).
    #[serde(flatten)]
    pub shoe_book: ShoeBookData,
    /// The drawing rules.
    #[serde(default)]
    pub drawing: DrawingSection,
    /// The rule to cite for each irregularity code.
    #[serde(default)]
    pub cite: BTreeMap<String, String>,
    /// Rule number (as cited, e.g. `7.7` or `misdeal (a)`) → the rule's text, for reports. Optional:
    /// a rule whose text is not known is left out rather than paraphrased.
    #[serde(default)]
    pub texts: BTreeMap<String, String>,
    /// `[[wagers]]`: the wagers the table offers and how each pays ([`wagers`]); absent, the
    /// main three at the usual payouts.
    pub wagers: Option<Vec<WagerData>>,
    /// Keys this version does not know (each is a problem).
    #[serde(flatten)]
    pub unknown: BTreeMap<String, toml::Value>,
}

/// `[book]`: identity and provenance.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct BookSection {
    /// Short id, e.g. `nz-baccarat`.
    pub id: Option<String>,
    /// Jurisdiction, e.g. `New Zealand`.
    pub jurisdiction: Option<String>,
    /// Game, must be `baccarat`.
    pub game: Option<String>,
    /// Human title.
    pub title: Option<String>,
    /// Gazette or other published reference.
    pub gazette: Option<String>,
    /// Effective date, `YYYY-MM-DD`.
    pub effective: Option<String>,
    /// Free notes on sources and confidence.
    pub notes: Option<String>,
    /// Unknown keys.
    #[serde(flatten)]
    pub unknown: BTreeMap<String, toml::Value>,
}

/// `[drawing]`: the Table of Play.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct DrawingSection {
    /// Two-card totals that are naturals.
    pub natural: Option<Vec<u8>>,
    /// Player totals on which the Player draws.
    pub player_draws_on: Option<Vec<u8>>,
    /// Banker totals on which the Banker draws when the Player stood.
    pub banker_draws_when_player_stood: Option<Vec<u8>>,
    /// Banker total ("0".."9") → Player third-card values on which the Banker draws.
    pub banker_draws_when_player_drew: Option<BTreeMap<String, Vec<u8>>>,
    /// Unknown keys.
    #[serde(flatten)]
    pub unknown: BTreeMap<String, toml::Value>,
}

/// A checked rule book. Cheap to clone (shared text).
#[derive(Debug, Clone)]
pub struct RuleBook {
    inner: Arc<Checked>,
}

#[derive(Debug, Clone)]
struct Checked {
    id: String,
    jurisdiction: String,
    title: String,
    gazette: String,
    effective: String,
    composition: ShoeComposition,
    min_decks: u8,
    max_decks: u8,
    shuffler: ShufflerKind,
    cut: CutLimit,
    cutting_card: CuttingCardLimit,
    burn: BurnPolicy,
    end_of_shoe: EndOfShoePolicy,
    drawing: DrawingTable,
    shuffle_check: ShuffleCheck,
    shuffle_steps: Vec<ShuffleStep>,
    cite: Vec<String>,
    /// Citations for particular findings of a code, as (code, qualifier, rule): e.g. an
    /// unauthorised third card to the Banker (`UNAUTHORISED_THIRD_CARD/banker`), which 12.1 (the
    /// Player's hand) does not cover.
    cite_qualified: Vec<(IrregularityCode, &'static str, String)>,
    /// The deck count the table's pit definition gives, when it overrides the book's.
    decks_override: Option<u8>,
    /// (normalised number, number as written, text), sorted by the normalised number.
    texts: Vec<(String, String, String)>,
    wagers: Vec<BookWager>,
}

/// Why a rule book was refused: every problem found, and the data back.
#[derive(Debug, Clone, thiserror::Error)]
#[error("invalid rule book{}: {}", .id.as_deref().map(|i| format!(" {i:?}")).unwrap_or_default(), .problems.join("; "))]
pub struct InvalidRuleBook {
    /// The book's id, when it has one.
    pub id: Option<String>,
    /// Every problem, one sentence each.
    pub problems: Vec<String>,
    /// The data that was refused.
    pub data: Box<RuleBookData>,
}

/// Why a rule book could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The text is not TOML of the rule book's shape.
    #[error("rule book {source_name} is not valid TOML: {reason}")]
    Syntax {
        /// Where the text came from.
        source_name: String,
        /// The parser's message.
        reason: String,
    },
    /// The book parsed but breaks its own constraints.
    #[error("rule book {source_name}: {error}")]
    Invalid {
        /// Where the text came from.
        source_name: String,
        /// The problems.
        error: InvalidRuleBook,
    },
    /// No built-in book has that name and no file is at that path.
    #[error(
        "no rule book {name:?}: not a built-in book ({builtin}) and not a readable file: {reason}"
    )]
    NotFound {
        /// What was asked for.
        name: String,
        /// The built-in ids.
        builtin: String,
        /// Why the file could not be read.
        reason: String,
    },
}

fn point_set(
    field: &str,
    values: &Option<Vec<u8>>,
    problems: &mut Vec<String>,
) -> Option<PointSet> {
    let Some(values) = values else {
        problems.push(format!(
            "[drawing]: missing {field} (a list of point totals 0-9)"
        ));
        return None;
    };
    if let Some(bad) = values.iter().find(|v| **v > 9) {
        problems.push(format!(
            "[drawing]: {field} holds {bad}, but point totals are 0-9"
        ));
        return None;
    }
    Some(PointSet::of(values))
}

impl RuleBook {
    /// Checks `data` and returns the rule book, or every problem found.
    pub fn new(data: RuleBookData) -> Result<RuleBook, InvalidRuleBook> {
        let mut p: Vec<String> = Vec::new();
        unknown_keys("", &data.unknown, &mut p);
        unknown_keys("book", &data.book.unknown, &mut p);
        data.shoe_book.unknown_keys(&BACCARAT_SHOE, &mut p);
        unknown_keys("drawing", &data.drawing.unknown, &mut p);

        let mut text = |field: &str, value: &Option<String>| -> String {
            match value {
                Some(v) if !v.trim().is_empty() => v.clone(),
                _ => {
                    p.push(format!("[book]: missing {field}"));
                    String::new()
                }
            }
        };
        let id = text("id", &data.book.id);
        let jurisdiction = text("jurisdiction", &data.book.jurisdiction);
        let title = text("title", &data.book.title);
        let gazette = text("gazette", &data.book.gazette);
        let effective = text("effective", &data.book.effective);
        let game = text("game", &data.book.game);
        if !game.is_empty() && game != "baccarat" {
            p.push(format!(
                "[book]: game is {game:?}, but this engine checks \"baccarat\""
            ));
        }
        if !effective.is_empty() && !is_date(&effective) {
            p.push(format!(
                "[book]: effective {effective:?} is not a date YYYY-MM-DD"
            ));
        }

        let shoe = data.shoe_book.check(&BACCARAT_SHOE, &mut p);
        let ShoeBook {
            composition,
            min_decks,
            max_decks,
            shuffler,
            shuffle_steps,
            shuffle_check,
            burn,
            ..
        } = shoe;
        let cut = shoe.cut.unwrap_or(CutLimit::Cards(0));
        let cutting_card = shoe.cutting_card.unwrap_or(CuttingCardLimit {
            min_from_back: 0,
            max_from_back_fraction: None,
        });
        let end_of_shoe = shoe.end_of_shoe.unwrap_or(EndOfShoePolicy::LastCoup);

        let d = &data.drawing;
        let natural = point_set("natural", &d.natural, &mut p);
        let player = point_set("player_draws_on", &d.player_draws_on, &mut p);
        let stood = point_set(
            "banker_draws_when_player_stood",
            &d.banker_draws_when_player_stood,
            &mut p,
        );
        let mut banker = [PointSet::EMPTY; 10];
        match &d.banker_draws_when_player_drew {
            None => p.push(
                "[drawing]: missing banker_draws_when_player_drew (a table \"0\" .. \"9\")".into(),
            ),
            Some(table) => {
                for (key, values) in table {
                    match key.parse::<usize>() {
                        Ok(t) if t <= 9 => {
                            if let Some(bad) = values.iter().find(|v| **v > 9) {
                                p.push(format!(
                                    "[drawing.banker_draws_when_player_drew]: {key:?} holds {bad}, but card values are 0-9"
                                ));
                            }
                            banker[t] = PointSet::of(values);
                        }
                        _ => p.push(format!(
                            "[drawing.banker_draws_when_player_drew]: key {key:?} is not a Banker total 0-9"
                        )),
                    }
                }
            }
        }
        let drawing = DrawingTable {
            natural: natural.unwrap_or(PointSet::EMPTY),
            player_draws_on: player.unwrap_or(PointSet::EMPTY),
            banker_draws_when_player_stood: stood.unwrap_or(PointSet::EMPTY),
            banker_draws_when_player_drew: banker,
        };

        let continuous = shuffler == ShufflerKind::Continuous;
        let mut cite = vec![String::new(); IrregularityCode::ALL.len()];
        let mut cite_qualified = Vec::new();
        for (key, rule) in &data.cite {
            if rule.trim().is_empty() {
                p.push(format!("[cite]: {key} has an empty rule"));
            }
            let (code, qualifier) = match key.split_once('/') {
                Some((code, qualifier)) => (code, Some(qualifier)),
                None => (key.as_str(), None),
            };
            let code = match code.parse::<IrregularityCode>() {
                Ok(code) => code,
                Err(e) => {
                    p.push(format!("[cite]: {e}"));
                    continue;
                }
            };
            if !can_raise(code, continuous, burn) {
                p.push(format!(
                    "[cite]: {key}: this book never raises {code} ({}), so it cites no rule for it",
                    why_never(code, continuous)
                ));
                continue;
            }
            match qualifier {
                None => cite[code as usize] = rule.clone(),
                Some(q) => match QUALIFIED.iter().find(|(c, name)| *c == code && *name == q) {
                    Some((_, name)) => cite_qualified.push((code, *name, rule.clone())),
                    None => p.push(format!(
                        "[cite]: unknown citation {key:?} (qualified citations: {})",
                        QUALIFIED
                            .iter()
                            .map(|(c, q)| format!("{c}/{q}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )),
                },
            }
        }
        for &code in IrregularityCode::ALL {
            // SHUFFLE_SUSPECT came later than the books: a book that does not cite it still loads
            // (the finding then says no rule is cited), so recorded books replay unchanged.
            if can_raise(code, continuous, burn)
                && code != IrregularityCode::ShuffleSuspect
                // A device-integrity finding: cited by the book's DEVICE_ERROR rule unless the
                // book gives one of its own (RuleBook::cite).
                && code != IrregularityCode::OrderDisclosed
                && !data.cite.contains_key(code.as_str())
            {
                p.push(format!("[cite]: missing the rule to cite for {code}"));
            }
        }

        let mut texts: Vec<(String, String, String)> = Vec::with_capacity(data.texts.len());
        for (number, text) in &data.texts {
            let key = normalise_rule(number);
            if key.is_empty() {
                p.push("[texts]: a rule number is empty".into());
                continue;
            }
            if text.trim().is_empty() {
                p.push(format!("[texts]: {number:?} has an empty text"));
            }
            texts.push((key, number.trim().to_owned(), text.trim().to_owned()));
        }
        texts.sort_by(|a, b| a.0.cmp(&b.0));
        for pair in texts.windows(2) {
            if pair[0].0 == pair[1].0 {
                p.push(format!(
                    "[texts]: {:?} and {:?} name the same rule",
                    pair[0].1, pair[1].1
                ));
            }
        }

        let wagers = wagers::check(data.wagers.as_deref(), &mut p);

        if !p.is_empty() {
            return Err(InvalidRuleBook {
                id: data.book.id.clone(),
                problems: p,
                data: Box::new(data),
            });
        }
        Ok(RuleBook {
            inner: Arc::new(Checked {
                id,
                jurisdiction,
                title,
                gazette,
                effective,
                composition,
                min_decks,
                max_decks,
                shuffler,
                cut,
                cutting_card,
                burn,
                end_of_shoe,
                drawing,
                shuffle_check,
                shuffle_steps,
                cite,
                cite_qualified,
                decks_override: None,
                texts,
                wagers,
            }),
        })
    }

    /// The same book for a table whose shoe holds `decks` decks (the pit definition's
    /// `decks = N`): the shoe a device that reports no deck count (a barcode or Angel Eye shoe)
    /// is followed as. Refused outside the book's `min_decks`–`max_decks`.
    pub fn with_decks(&self, decks: u8) -> Result<RuleBook, String> {
        let (min, max) = self.deck_range();
        if decks < min || decks > max {
            return Err(format!(
                "{decks} decks is outside what rule book {} allows ({min} to {max})",
                self.id()
            ));
        }
        let mut checked = (*self.inner).clone();
        checked.composition = ShoeComposition::new(decks, checked.composition.kind);
        checked.decks_override = Some(decks);
        Ok(RuleBook {
            inner: Arc::new(checked),
        })
    }

    /// How the book is named on record so that loading the name gives this book again: its id,
    /// with `;decks=N` when a table's deck count overrides the book's ([`RuleBook::with_decks`];
    /// [`RuleBook::load`] reads it back).
    pub fn reference(&self) -> String {
        match self.inner.decks_override {
            Some(decks) => format!("{}{DECKS_SUFFIX}{decks}", self.id()),
            None => self.id().to_owned(),
        }
    }

    /// Parses and checks a rule book from TOML text; `source_name` names it in errors.
    pub fn from_toml(text: &str, source_name: &str) -> Result<RuleBook, LoadError> {
        let data: RuleBookData = toml::from_str(text).map_err(|e| LoadError::Syntax {
            source_name: source_name.to_owned(),
            reason: e.message().to_owned(),
        })?;
        RuleBook::new(data).map_err(|error| LoadError::Invalid {
            source_name: source_name.to_owned(),
            error,
        })
    }

    /// A built-in rule book by id (see [`BUILTIN`]).
    pub fn builtin(id: &str) -> Option<RuleBook> {
        BUILTIN
            .iter()
            .find(|(name, _)| *name == id)
            .map(|(name, text)| {
                RuleBook::from_toml(text, name)
                    .unwrap_or_else(|e| panic!("built-in rule book {name} is invalid: {e}"))
            })
    }

    /// The NZ Baccarat rule book (NZ Gazette 2004 No 56, Amendment 19).
    pub fn nz_baccarat() -> RuleBook {
        // The built-in books are checked by a unit test, so this cannot fail in a release.
        Self::builtin("nz-baccarat").unwrap_or_else(|| unreachable!("nz-baccarat is built in"))
    }

    /// A built-in book by id, or else a rule book file at that path; either may end in
    /// `;decks=N` for a table whose shoe holds N decks ([`RuleBook::reference`]).
    pub fn load(reference: &str) -> Result<RuleBook, LoadError> {
        let Some((name_or_path, decks)) = reference.rsplit_once(DECKS_SUFFIX) else {
            return Self::load_book(reference);
        };
        let book = Self::load_book(name_or_path)?;
        let invalid = |problem: String| LoadError::Invalid {
            source_name: reference.to_owned(),
            error: InvalidRuleBook {
                id: Some(book.id().to_owned()),
                problems: vec![problem],
                data: Box::default(),
            },
        };
        let decks: u8 = decks
            .trim()
            .parse()
            .map_err(|_| invalid(format!("decks {decks:?} is not a number of decks")))?;
        book.with_decks(decks).map_err(invalid)
    }

    fn load_book(name_or_path: &str) -> Result<RuleBook, LoadError> {
        if let Some((name, text)) = BUILTIN.iter().find(|(name, _)| *name == name_or_path) {
            return RuleBook::from_toml(text, name);
        }
        match std::fs::read_to_string(name_or_path) {
            Ok(text) => RuleBook::from_toml(&text, name_or_path),
            Err(e) => Err(LoadError::NotFound {
                name: name_or_path.to_owned(),
                builtin: BUILTIN
                    .iter()
                    .map(|(n, _)| *n)
                    .collect::<Vec<_>>()
                    .join(", "),
                reason: e.to_string(),
            }),
        }
    }

    /// The book's id.
    pub fn id(&self) -> &str {
        &self.inner.id
    }
    /// The jurisdiction.
    pub fn jurisdiction(&self) -> &str {
        &self.inner.jurisdiction
    }
    /// The title.
    pub fn title(&self) -> &str {
        &self.inner.title
    }
    /// The published reference.
    pub fn gazette(&self) -> &str {
        &self.inner.gazette
    }
    /// The effective date (`YYYY-MM-DD`).
    pub fn effective(&self) -> &str {
        &self.inner.effective
    }
    /// The default shoe.
    pub fn composition(&self) -> ShoeComposition {
        self.inner.composition
    }
    /// The range of deck counts the rules allow.
    pub fn deck_range(&self) -> (u8, u8) {
        (self.inner.min_decks, self.inner.max_decks)
    }
    /// The shuffler the table uses.
    pub fn shuffler(&self) -> ShufflerKind {
        self.inner.shuffler
    }
    /// The player's cut limit.
    pub fn cut(&self) -> CutLimit {
        self.inner.cut
    }
    /// The cutting-card limit.
    pub fn cutting_card(&self) -> CuttingCardLimit {
        self.inner.cutting_card
    }
    /// The burn policy.
    pub fn burn(&self) -> BurnPolicy {
        self.inner.burn
    }
    /// The end-of-shoe policy.
    pub fn end_of_shoe(&self) -> EndOfShoePolicy {
        self.inner.end_of_shoe
    }
    /// The book's shoe section as every game's book has it ([`ShoeBook`]), the table's deck count
    /// in it when the pit definition overrides the book's: what a reader that knows no Baccarat
    /// (the reference dealer) deals a shoe by.
    pub fn shoe_book(&self) -> ShoeBook {
        let c = &self.inner;
        ShoeBook {
            composition: c.composition,
            min_decks: c.min_decks,
            max_decks: c.max_decks,
            shuffler: c.shuffler,
            shuffle_steps: c.shuffle_steps.clone(),
            cut: Some(c.cut),
            cutting_card: Some(c.cutting_card),
            burn: c.burn,
            end_of_shoe: Some(c.end_of_shoe),
            shuffle_check: c.shuffle_check,
        }
    }
    /// The drawing rules.
    pub fn drawing(&self) -> &DrawingTable {
        &self.inner.drawing
    }
    /// The hand-preparation steps required before each load, in order (`[shoe] shuffle_steps`;
    /// none for the built-in Baccarat books).
    pub fn shuffle_steps(&self) -> &[ShuffleStep] {
        &self.inner.shuffle_steps
    }

    /// The book's shuffle-integrity settings (`[shuffle]`, or the defaults).
    pub fn shuffle_check(&self) -> ShuffleCheck {
        self.inner.shuffle_check
    }

    /// What shuffle analysis judges this book's shoes by: its `[shuffle]` thresholds and its
    /// citation for `SHUFFLE_SUSPECT`, which it always raises where it has shoes to compare (not
    /// under a continuous shuffler).
    pub fn shuffle_terms(&self) -> ShuffleTerms {
        ShuffleTerms {
            book_id: self.id().to_owned(),
            rule: self.cite(IrregularityCode::ShuffleSuspect).to_owned(),
            composition: self.composition(),
            check: self.shuffle_check(),
            compared: self.can_raise(IrregularityCode::ShuffleSuspect),
            raises: true,
        }
    }

    /// The rule to cite for `code` (empty for a code the book never raises, see
    /// [`RuleBook::can_raise`]).
    /// A device-integrity finding (`ORDER_DISCLOSED`) the book cites no rule for cites its
    /// `DEVICE_ERROR` rule.
    pub fn cite(&self, code: IrregularityCode) -> &str {
        match &self.inner.cite[code as usize] {
            rule if rule.is_empty() && code == IrregularityCode::OrderDisclosed => {
                &self.inner.cite[IrregularityCode::DeviceError as usize]
            }
            rule => rule,
        }
    }

    /// The rule to cite for an unauthorised third card to the Banker's hand: the book's
    /// `UNAUTHORISED_THIRD_CARD/banker` when it has one (12.1 covers only the Player's hand), else
    /// its citation for `code`.
    pub fn cite_banker_card(&self, code: IrregularityCode) -> &str {
        self.cite_qualified(code, "banker")
    }

    /// The book's citation for `code` qualified by `qualifier` (`[cite]` key `CODE/qualifier`),
    /// falling back to its citation for `code`.
    pub fn cite_qualified(&self, code: IrregularityCode, qualifier: &str) -> &str {
        self.inner
            .cite_qualified
            .iter()
            .find(|(c, q, _)| *c == code && *q == qualifier)
            .map_or_else(|| self.cite(code), |(_, _, rule)| rule.as_str())
    }

    /// Every citation the book gives, as (`[cite]` key, rule): each code it can raise, then the
    /// qualified ones.
    pub fn citations(&self) -> Vec<(String, &str)> {
        let mut all: Vec<(String, &str)> = IrregularityCode::ALL
            .iter()
            .filter(|code| self.can_raise(**code))
            .map(|code| (code.as_str().to_owned(), self.cite(*code)))
            .collect();
        for (code, qualifier, rule) in &self.inner.cite_qualified {
            all.push((format!("{code}/{qualifier}"), rule.as_str()));
        }
        all
    }

    /// Whether the engine can raise `code` under this book. A continuous shuffler has no cut,
    /// cutting card or end of shoe (7.8, 11.1), and a book without a first-card burn has no
    /// burn to miss (nor, without any burn, to miscount).
    pub fn can_raise(&self, code: IrregularityCode) -> bool {
        can_raise(
            code,
            self.inner.shuffler == ShufflerKind::Continuous,
            self.inner.burn,
        )
    }

    /// The text of rule `number` (as written in `[texts]`, compared ignoring case and spacing), if
    /// the book has it. No fallback: `text("7.7(b)")` is `None` when the book only has `7.7`; see
    /// [`RuleBook::rule_texts`] for that.
    pub fn text(&self, number: &str) -> Option<&str> {
        self.lookup(&normalise_rule(number)).map(|(_, text)| text)
    }

    /// The wagers the table offers, each with how it pays and its citation (`[[wagers]]`), in
    /// the book's order.
    pub fn wagers(&self) -> &[BookWager] {
        &self.inner.wagers
    }

    /// Every rule text in the book, as (number, text), ordered by number as text.
    pub fn texts(&self) -> impl Iterator<Item = (&str, &str)> {
        self.inner
            .texts
            .iter()
            .map(|(_, number, text)| (number.as_str(), text.as_str()))
    }

    /// The texts of every rule that `citation` (a `[cite]` string such as `"7.7(b), 7.9"` or
    /// `"Misdeal (a), NZ Gazette 2000 No 5 p139; 12.1(b)"`) mentions and the book has a text for,
    /// as (number as written in the book, text), in the order cited and each rule once.
    ///
    /// The citation is split at top-level commas and semicolons. Each part is looked up whole;
    /// failing that, each dotted rule number in it (`7.7(b)`, `11.2`) is. A lookup that fails drops
    /// the last parenthesised group and tries again, so `7.7(b)` finds `7.7` and
    /// `section 6 (cards inspected before play)` finds `section 6`. Parts the book has no text for
    /// (`Table of Play`, `NZ Gazette 2000 No 5 p139`) give nothing.
    pub fn rule_texts(&self, citation: &str) -> Vec<(String, String)> {
        let mut found: Vec<(String, String)> = Vec::new();
        let mut add = |hit: Option<(&str, &str)>| {
            if let Some((number, text)) = hit {
                if !found.iter().any(|(n, _)| n == number) {
                    found.push((number.to_owned(), text.to_owned()));
                }
            }
        };
        for part in citation_parts(citation) {
            if let Some(hit) = self.lookup_widening(part) {
                add(Some(hit));
                continue;
            }
            for number in dotted_numbers(part) {
                add(self.lookup_widening(number));
            }
        }
        found
    }

    /// Looks `reference` up, then without its last parenthesised group, and so on.
    fn lookup_widening(&self, reference: &str) -> Option<(&str, &str)> {
        let mut key = normalise_rule(reference);
        loop {
            if key.is_empty() {
                return None;
            }
            if let Some(hit) = self.lookup(&key) {
                return Some(hit);
            }
            if !key.ends_with(')') {
                return None;
            }
            let open = key.rfind('(')?;
            key.truncate(open);
            key.truncate(key.trim_end().len());
        }
    }

    fn lookup(&self, key: &str) -> Option<(&str, &str)> {
        let texts = &self.inner.texts;
        texts
            .binary_search_by(|(k, _, _)| k.as_str().cmp(key))
            .ok()
            .map(|i| (texts[i].1.as_str(), texts[i].2.as_str()))
    }
}

/// What `;decks=N` at the end of a rule book reference means: the table's deck count.
const DECKS_SUFFIX: &str = ";decks=";

/// The citations a book may give for particular findings of a code: (code, qualifier).
const QUALIFIED: &[(IrregularityCode, &str)] = &[
    (IrregularityCode::UnauthorisedThirdCard, "banker"),
    // Cards loaded without the preparation steps the book lists (`[shoe] shuffle_steps`).
    (IrregularityCode::NotShuffled, "steps"),
];

/// Whether the engine can raise `code` under a book with this shuffler and burn.
fn can_raise(code: IrregularityCode, continuous: bool, burn: BurnPolicy) -> bool {
    use IrregularityCode as C;
    match code {
        // A continuous shuffler has no shoes to compare: cards go back in as they are used.
        C::CutTooCloseToEnd
        | C::CuttingCardMisplaced
        | C::DealtPastLastCoup
        | C::ShuffleSuspect => !continuous,
        C::BurnMissing => matches!(burn, BurnPolicy::FirstCardValue { .. }),
        C::BurnCountMismatch => !matches!(burn, BurnPolicy::None | BurnPolicy::Fixed(0)),
        // Boxes, hands and the dealer's drawing are other games', not Baccarat's.
        C::CardToFinishedHand | C::DealerDrawWrong | C::WrongCardCount | C::DecisionNotAllowed => {
            false
        }
        // Misdeals are another game's.
        C::Misdeal | C::MisdealDeclared | C::MisdealAfterAction => false,
        _ => true,
    }
}

/// Why a book never raises `code`, for the loader's message.
fn why_never(code: IrregularityCode, continuous: bool) -> &'static str {
    use IrregularityCode as C;
    match code {
        C::CutTooCloseToEnd | C::CuttingCardMisplaced | C::DealtPastLastCoup if continuous => {
            "a continuous shuffler has no cut, cutting card or end of shoe"
        }
        C::ShuffleSuspect if continuous => "a continuous shuffler deals no shoes to compare",
        C::CardToFinishedHand | C::DealerDrawWrong | C::WrongCardCount | C::DecisionNotAllowed => {
            "boxes, hands and a dealer who draws are not Baccarat's"
        }
        C::Misdeal | C::MisdealDeclared | C::MisdealAfterAction => "Baccarat declares no misdeals",
        _ => "its burn policy has no such burn",
    }
}

/// A rule number as compared: lower case, runs of white space as one space, no space before `(`
/// or after `(`, none before `)`.
fn normalise_rule(number: &str) -> String {
    let mut out = String::with_capacity(number.len());
    for word in number.split_whitespace() {
        let joins = out.is_empty() || out.ends_with('(') || word.starts_with(['(', ')']);
        if !joins {
            out.push(' ');
        }
        out.extend(word.chars().flat_map(char::to_lowercase));
    }
    out
}

/// The parts of a citation: split at commas and semicolons outside parentheses, trimmed.
fn citation_parts(citation: &str) -> impl Iterator<Item = &str> {
    let mut depth = 0i32;
    let mut start = 0;
    let mut parts = Vec::new();
    for (i, c) in citation.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = (depth - 1).max(0),
            ',' | ';' if depth == 0 => {
                parts.push(&citation[start..i]);
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    parts.push(&citation[start..]);
    parts.into_iter().map(str::trim).filter(|p| !p.is_empty())
}

/// The dotted rule numbers in `text` (`7.7`, `12.1(b)`, `11.2(a)(ii)`), each with the
/// parenthesised groups that follow it directly. Digits inside a word (`p139`) are not a rule
/// number, and neither is a number without a dot (`2000`).
fn dotted_numbers(text: &str) -> Vec<&str> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let starts = b[i].is_ascii_digit()
            && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'.'));
        if !starts {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len()
            && (b[i].is_ascii_digit()
                || b[i] == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit))
        {
            i += 1;
        }
        if !text[start..i].contains('.') {
            continue;
        }
        // Directly following groups like `(b)` or `(ii)`: short, letters or digits only.
        loop {
            let rest = &b[i..];
            if rest.first() != Some(&b'(') {
                break;
            }
            let Some(close) = rest.iter().position(|c| *c == b')') else {
                break;
            };
            let is_group =
                (2..=6).contains(&close) && rest[1..close].iter().all(u8::is_ascii_alphanumeric);
            if !is_group {
                break;
            }
            i += close + 1;
        }
        out.push(&text[start..i]);
    }
    out
}

impl fmt::Display for RuleBook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({}, {}, effective {})",
            self.id(),
            self.jurisdiction(),
            self.gazette(),
            self.effective()
        )
    }
}

fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
}

#[cfg(test)]
mod tests;
pub mod wagers;
pub use wagers::{default_wagers, BookWager, WagerData, DEFAULT_CITE};
