//! The poker rule book: TOML data (`nz-poker` built in) with the misdeal rule's lettered texts,
//! "substantial action" as a number of players, and each variant's initial deal; checked on
//! loading with every problem listed at once.

use std::collections::BTreeMap;

use pitwatch_model::MisdealReason;
use pitwatch_rules::book::{Need, ShoeBookData, ShoeNeeds, ShoeSection, ShuffleSection};
use pitwatch_rules::{IrregularityCode, ShoeRules};
use serde::Deserialize;

/// What poker takes of the shared shoe sections ([`pitwatch_rules::book::shoe`]): its one deck,
/// written `[deck]`, shuffled before every hand, so no continuous shuffler, cut, cutting card,
/// burn or end of shoe; and `[shuffle]`, optional, for the shuffle analysis every game's decks
/// get (each hand's order compared with the hands before it).
const DECK: ShoeNeeds = ShoeNeeds {
    shoe_section: "deck",
    no_continuous: Some("a poker deck is shuffled before every hand"),
    cut: Need::Refused,
    cutting_card: Need::Refused,
    burn: Need::Refused,
    end_of_shoe: Need::Refused,
    shuffle: Need::Optional,
};

const NZ_POKER: &str = include_str!("../rulebooks/nz-poker.toml");

/// The built-in books, by id.
pub const BUILTIN: &[&str] = &["nz-poker"];

/// The codes a poker table can raise, each of which a book must cite.
pub const CODES: &[IrregularityCode] = &[
    IrregularityCode::Misdeal,
    IrregularityCode::MisdealDeclared,
    IrregularityCode::MisdealAfterAction,
    IrregularityCode::DealOutOfOrder,
    IrregularityCode::WrongCardCount,
    IrregularityCode::ExcessCard,
    IrregularityCode::UnreadableCard,
    IrregularityCode::NotShuffled,
    IrregularityCode::CardExposed,
    IrregularityCode::ShuffleCountMismatch,
    IrregularityCode::DeviceError,
];

/// Codes a poker table can raise that a book may leave uncited (they came later than the books):
/// the shuffle analysis's `SHUFFLE_SUSPECT`.
pub const OPTIONAL_CODES: &[IrregularityCode] = &[IrregularityCode::ShuffleSuspect];

/// Qualified citations a book may give besides one per misdeal reason (`MISDEAL/a` … `MISDEAL/l`).
pub const QUALIFIED: &[&str] = &["NOT_SHUFFLED/past_end", "NOT_SHUFFLED/replaced"];

/// The `[cite]` key of a misdeal reason (`MISDEAL/d`).
pub const fn reason_key(reason: MisdealReason) -> &'static str {
    match reason {
        MisdealReason::A => "MISDEAL/a",
        MisdealReason::B => "MISDEAL/b",
        MisdealReason::C => "MISDEAL/c",
        MisdealReason::D => "MISDEAL/d",
        MisdealReason::E => "MISDEAL/e",
        MisdealReason::F => "MISDEAL/f",
        MisdealReason::G => "MISDEAL/g",
        MisdealReason::H => "MISDEAL/h",
        MisdealReason::I => "MISDEAL/i",
        MisdealReason::J => "MISDEAL/j",
        MisdealReason::K => "MISDEAL/k",
        MisdealReason::L => "MISDEAL/l",
    }
}

/// Whether a reason's rule allows a misdeal only before substantial action ((b)-(f)); the
/// others ((a), (g)-(l)) carry no such condition.
pub const fn needs_no_action(reason: MisdealReason) -> bool {
    matches!(
        reason,
        MisdealReason::B
            | MisdealReason::C
            | MisdealReason::D
            | MisdealReason::E
            | MisdealReason::F
    )
}

/// Face down or face up, as a variant deals a card.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Face {
    /// Face down.
    Down,
    /// Face up.
    Up,
}

/// One variant as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VariantData {
    /// Human name.
    pub name: String,
    /// The initial deal: each seat's cards in order.
    pub initial: Vec<Face>,
    /// Later cards to each seat, in order (stud streets); empty when they are not checked.
    #[serde(default)]
    pub later: Vec<Face>,
    /// Most cards a seat may be dealt in a hand.
    pub most_cards: u8,
    /// Most cards that may be exposed in the initial dealing round without a misdeal.
    pub exposed_limit: Option<u8>,
    /// The reason when more are exposed.
    pub exposed_reason: Option<MisdealReason>,
    /// The reason when a card of the initial deal is dealt with the wrong face up.
    pub face_up_reason: Option<MisdealReason>,
    /// The reason when more than one seat is dealt two cards face up in the initial round.
    pub two_up_reason: Option<MisdealReason>,
}

/// The whole book as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BookData {
    /// `[book]`.
    pub book: BookSection,
    /// `[deck]`: the shared shoe section (`decks`, `deck_kind`, `shuffler`; checked by the rules
    /// crate), for the one deck a hand is dealt from.
    pub deck: ShoeSection,
    /// `[shuffle]`, shared and optional: how each hand's order is compared with the hands before
    /// it (the defaults when absent).
    #[serde(default)]
    pub shuffle: Option<ShuffleSection>,
    /// `[action]`.
    pub action: ActionSection,
    /// `[play]`.
    pub play: PlaySection,
    /// `[variants.<id>]`.
    pub variants: BTreeMap<String, VariantData>,
    /// `[cite]`: the rule cited for each code (`CODE` or `CODE/qualifier`).
    pub cite: BTreeMap<String, String>,
    /// `[texts]`: the rules' words.
    #[serde(default)]
    pub texts: BTreeMap<String, String>,
}

/// `[book]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BookSection {
    /// Short id.
    pub id: String,
    /// Jurisdiction.
    pub jurisdiction: String,
    /// `poker`.
    pub game: String,
    /// Human title.
    pub title: String,
    /// Published reference.
    pub gazette: String,
    /// Notes on sources and confidence.
    pub notes: Option<String>,
}

/// `[action]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActionSection {
    /// Players acting on their hands that make "substantial action".
    pub substantial_action_players: u8,
}

/// `[play]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlaySection {
    /// The variant when a table does not say.
    pub default_variant: String,
}

/// A checked variant.
#[derive(Debug, Clone, PartialEq)]
pub struct Variant {
    /// Its id (`texas_holdem`).
    pub id: String,
    /// Its name.
    pub name: String,
    /// The initial deal per seat.
    pub initial: Vec<Face>,
    /// Later cards per seat, checked for their face when given.
    pub later: Vec<Face>,
    /// Most cards per seat.
    pub most_cards: u8,
    /// Exposed cards allowed in the initial round, and the reason beyond it.
    pub exposed: Option<(u8, MisdealReason)>,
    /// The reason for a wrong face in the initial deal.
    pub face_up_reason: Option<MisdealReason>,
    /// The reason for two up-cards to more than one seat.
    pub two_up_reason: Option<MisdealReason>,
}

/// A book that failed its checks, with every problem.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("rule book {id} is not valid:\n  {}", problems.join("\n  "))]
pub struct InvalidBook {
    /// The book's id (or `?`).
    pub id: String,
    /// Every problem found.
    pub problems: Vec<String>,
}

/// Why a book could not be loaded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LoadError {
    /// Not TOML of the book's shape.
    #[error("rule book is not valid TOML of the expected shape: {0}")]
    Toml(String),
    /// It parsed but failed its checks.
    #[error(transparent)]
    Invalid(#[from] InvalidBook),
    /// No built-in book by that id.
    #[error("no built-in poker rule book {0:?} (built in: {list})", list = BUILTIN.join(", "))]
    Unknown(String),
    /// The book has no such variant.
    #[error("rule book {book} has no variant {variant:?} (it has: {list})")]
    UnknownVariant {
        /// The book.
        book: String,
        /// The variant asked for.
        variant: String,
        /// The book's variants.
        list: String,
    },
}

/// A checked poker rule book with the variant a table deals.
#[derive(Debug, Clone, PartialEq)]
pub struct Book {
    /// The book's id.
    pub id: String,
    /// Its title.
    pub title: String,
    /// The deck rules the shared tracker follows (one deck, shuffled before every hand).
    pub shoe: ShoeRules,
    /// Players acting on their hands that make "substantial action".
    pub substantial_action_players: u8,
    /// The variant dealt.
    pub variant: Variant,
    /// The variant the book deals unless a table says otherwise (`[play] default_variant`).
    pub default_variant: String,
    /// Every variant the book has, by id.
    pub variants: BTreeMap<String, Variant>,
    /// Rule number → text.
    pub texts: BTreeMap<String, String>,
}

impl Book {
    /// A built-in book by id, dealing its default variant.
    pub fn builtin(id: &str) -> Result<Book, LoadError> {
        match id {
            "nz-poker" => Book::from_toml(NZ_POKER),
            other => Err(LoadError::Unknown(other.to_owned())),
        }
    }

    /// The TOML text of a built-in book, as the record keeps it.
    pub fn builtin_text(id: &str) -> Option<&'static str> {
        match id {
            "nz-poker" => Some(NZ_POKER),
            _ => None,
        }
    }

    /// NZ poker, dealing Texas Hold'em.
    pub fn nz_poker() -> Book {
        Book::builtin("nz-poker").expect("the built-in nz-poker book is valid")
    }

    /// The same book dealing `variant` (an id such as `seven_card_stud`; `-` may stand for `_`).
    pub fn with_variant(mut self, variant: &str) -> Result<Book, LoadError> {
        let id = variant.replace('-', "_");
        match self.variants.get(&id) {
            Some(v) => {
                self.variant = v.clone();
                Ok(self)
            }
            None => Err(LoadError::UnknownVariant {
                book: self.id.clone(),
                variant: variant.to_owned(),
                list: self.variants.keys().cloned().collect::<Vec<_>>().join(", "),
            }),
        }
    }

    /// Reads and checks a book, listing every problem.
    pub fn from_toml(text: &str) -> Result<Book, LoadError> {
        let data: BookData = toml::from_str(text).map_err(|e| LoadError::Toml(e.to_string()))?;
        Book::check(data)
    }

    fn check(data: BookData) -> Result<Book, LoadError> {
        let mut p = Vec::new();
        if data.book.game != "poker" {
            p.push(format!(
                "[book]: game is {:?}, but this engine checks \"poker\"",
                data.book.game
            ));
        }
        let deck = ShoeBookData {
            shoe: Some(data.deck.clone()),
            shuffle: data.shuffle.clone(),
            ..ShoeBookData::default()
        };
        deck.unknown_keys(&DECK, &mut p);
        let checked = deck.check(&DECK, &mut p);
        if data.action.substantial_action_players == 0 {
            p.push("[action]: substantial_action_players must be at least 1".to_owned());
        }
        let mut variants = BTreeMap::new();
        for (id, v) in &data.variants {
            if v.initial.is_empty() {
                p.push(format!("[variants.{id}]: initial deals no card"));
            }
            if usize::from(v.most_cards) < v.initial.len() + v.later.len() {
                p.push(format!(
                    "[variants.{id}]: most_cards {} is fewer than the initial and later cards",
                    v.most_cards
                ));
            }
            if v.exposed_limit.is_some() != v.exposed_reason.is_some() {
                p.push(format!(
                    "[variants.{id}]: exposed_limit and exposed_reason go together"
                ));
            }
            variants.insert(
                id.clone(),
                Variant {
                    id: id.clone(),
                    name: v.name.clone(),
                    initial: v.initial.clone(),
                    later: v.later.clone(),
                    most_cards: v.most_cards,
                    exposed: v.exposed_limit.zip(v.exposed_reason),
                    face_up_reason: v.face_up_reason,
                    two_up_reason: v.two_up_reason,
                },
            );
        }
        let variant = variants.get(&data.play.default_variant).cloned();
        if variant.is_none() {
            p.push(format!(
                "[play]: default_variant {:?} is not one of [variants]",
                data.play.default_variant
            ));
        }
        let mut cite = Vec::new();
        let reason_keys: Vec<&str> = MisdealReason::ALL.iter().map(|r| reason_key(*r)).collect();
        for (key, rule) in &data.cite {
            let code = key.split('/').next().unwrap_or(key);
            match code.parse::<IrregularityCode>() {
                Ok(c) if CODES.contains(&c) || OPTIONAL_CODES.contains(&c) => {
                    if key.contains('/')
                        && !QUALIFIED.contains(&key.as_str())
                        && !reason_keys.contains(&key.as_str())
                    {
                        p.push(format!(
                            "[cite]: unknown qualified citation {key:?} (known: {}, MISDEAL/a to MISDEAL/l)",
                            QUALIFIED.join(", ")
                        ));
                    }
                }
                Ok(c) => p.push(format!("[cite]: {key}: this game never raises {c}")),
                Err(e) => p.push(format!("[cite]: {e}")),
            }
            if rule.trim().is_empty() {
                p.push(format!("[cite]: {key} has an empty rule"));
            }
            cite.push((key.clone(), rule.clone()));
        }
        for code in CODES {
            if !data.cite.contains_key(code.as_str()) {
                p.push(format!("[cite]: missing the rule to cite for {code}"));
            }
        }
        for key in &reason_keys {
            if !data.cite.contains_key(*key) {
                p.push(format!("[cite]: missing the rule to cite for {key}"));
            }
        }
        for (number, text) in &data.texts {
            if text.trim().is_empty() {
                p.push(format!("[texts]: {number:?} has an empty text"));
            }
        }
        let shoe = checked.shoe_rules(&data.book.id, cite);
        let Some(variant) = variant.filter(|_| p.is_empty()) else {
            return Err(InvalidBook {
                id: data.book.id.clone(),
                problems: p,
            }
            .into());
        };
        Ok(Book {
            id: data.book.id,
            title: data.book.title,
            shoe,
            substantial_action_players: data.action.substantial_action_players,
            variant,
            default_variant: data.play.default_variant,
            variants,
            texts: data.texts,
        })
    }

    /// The rule cited for `key` (`CODE` or `CODE/qualifier`).
    pub fn cite(&self, key: &str) -> &str {
        self.shoe.cite(key)
    }

    /// The text of rule `number` (`Misdeal (d)`), if the book has it.
    pub fn text(&self, number: &str) -> Option<&str> {
        self.texts.get(number.trim()).map(String::as_str)
    }

    /// The texts of every rule `citation` names that the book has, each once (`Misdeal (b), (f)`
    /// gives (b)'s and (f)'s).
    pub fn rule_texts(&self, citation: &str) -> Vec<(&str, &str)> {
        let mut found: Vec<(&str, &str)> = Vec::new();
        let mut head = "";
        for part in citation.split([',', ';']) {
            let part = part.trim();
            // "Misdeal (b), (f)": a bare "(f)" continues the rule named before it.
            let number = if part.starts_with('(') {
                format!("{head} {part}")
            } else {
                head = part.split('(').next().unwrap_or(part).trim();
                part.to_owned()
            };
            if let Some((n, t)) = self.texts.get_key_value(number.as_str()) {
                if !found.iter().any(|(f, _)| *f == n.as_str()) {
                    found.push((n.as_str(), t.as_str()));
                }
            }
        }
        found
    }
}
