//! Blackjack and Pontoon rule books: TOML data, every parameter a casino varies a field, checked
//! on loading with every problem listed at once; `nz-blackjack` and `nz-pontoon` are built in.

use std::collections::BTreeMap;
use std::fmt;

use pitwatch_model::{ShoeComposition, ShuffleStep};
use pitwatch_rules::book::{
    BurnSection, CutSection, CuttingCardSection, Need, ShoeBookData, ShoeNeeds, ShoeSection,
    ShuffleSection,
};
use pitwatch_rules::{BurnPolicy, IrregularityCode, ShoeRules};
use serde::Deserialize;

/// What Blackjack and Pontoon take of the shared shoe sections ([`pitwatch_rules::book::shoe`]):
/// the shoe, a cut and a cutting card when the book limits them, and a burn when it has one (the
/// shared table follows it), and `[shuffle]`, optional, for the shuffle analysis every game's
/// shoes get. Their table follows no end-of-shoe policy of a book's (the cutting
/// card ends the shoe after its round, 7.1).
const SHOE: ShoeNeeds = ShoeNeeds {
    shoe_section: "shoe",
    no_continuous: None,
    cut: Need::Optional,
    cutting_card: Need::Optional,
    burn: Need::Optional,
    end_of_shoe: Need::Refused,
    shuffle: Need::Optional,
};

const NZ_BLACKJACK: &str = include_str!("../rulebooks/nz-blackjack.toml");
const NZ_PONTOON: &str = include_str!("../rulebooks/nz-pontoon.toml");

/// The built-in books, by id.
pub const BUILTIN: &[&str] = &["nz-blackjack", "nz-pontoon"];

/// Which of the two games a book is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    /// Blackjack (5.1(a)–(g); a blackjack pays 3 to 2).
    Blackjack,
    /// Pontoon (48-card decks; a Pontoon is an ace and a picture card).
    Pontoon,
}

impl Variant {
    /// The game's name in books and JSON.
    pub const fn name(self) -> &'static str {
        match self {
            Variant::Blackjack => "blackjack",
            Variant::Pontoon => "pontoon",
        }
    }
}

/// Whether the dealer takes a second card before the boxes play.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HoleCard {
    /// No hole card (NZ): the dealer's second card comes after every box has played.
    None,
    /// A hole card dealt after the boxes' second cards.
    American,
}

/// Which two-card hands may double.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DoubleOn {
    /// Any two cards.
    AnyTwo,
    /// Any two cards without an ace (NZ practice: "hard doubles only").
    HardTwo,
    /// A hard total of 9, 10 or 11.
    NineToEleven,
    /// A hard total of 10 or 11.
    TenOrEleven,
}

/// What a dealer's blackjack (Pontoon) takes from a box that doubled or split.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DealerNaturalTakes {
    /// Only the original wager; doubled and split stakes are returned.
    OriginalOnly,
    /// Every stake on the box.
    AllStakes,
}

/// A payout as odds `to` to `per` (3 to 2 is `[3, 2]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(from = "[u32; 2]")]
pub struct Odds {
    /// Paid.
    pub to: u32,
    /// Per staked.
    pub per: u32,
}

impl From<[u32; 2]> for Odds {
    fn from([to, per]: [u32; 2]) -> Odds {
        Odds { to, per }
    }
}

impl Odds {
    /// The win per unit staked.
    pub fn ratio(self) -> f64 {
        f64::from(self.to) / f64::from(self.per.max(1))
    }
}

impl fmt::Display for Odds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} to {}", self.to, self.per)
    }
}

/// The whole book as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BookData {
    /// `[book]`.
    pub book: BookSection,
    /// `[shoe]`, the shared shoe section (every key checked by the rules crate).
    pub shoe: ShoeSection,
    /// `[cut]`, shared: the cut at least `min_from_either_end_decks` from either end (Pontoon 7.5).
    #[serde(default)]
    pub cut: Option<CutSection>,
    /// `[cutting_card]`, shared: at least `min_from_back` cards behind it, and
    /// `at_most_half_from_back` (Pontoon 7.6).
    #[serde(default)]
    pub cutting_card: Option<CuttingCardSection>,
    /// `[burn]`, shared: the burn at the start of each shoe, when the house burns (none in the
    /// NZ books).
    #[serde(default)]
    pub burn: Option<BurnSection>,
    /// `[shuffle]`, shared and optional: how each shoe's order is compared with the table's
    /// previous shoes (the defaults when absent).
    #[serde(default)]
    pub shuffle: Option<ShuffleSection>,
    /// `[play]`.
    pub play: PlaySection,
    /// `[bonus]`: Pontoon's bonuses, paid at once.
    #[serde(default)]
    pub bonus: Option<BonusSection>,
    /// `[super_sevens]`: the Blackjack side bet.
    #[serde(default)]
    pub super_sevens: Option<SuperSevensSection>,
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
    /// `blackjack` or `pontoon`.
    pub game: String,
    /// Human title.
    pub title: String,
    /// Published reference.
    pub gazette: String,
    /// Effective date.
    pub effective: Option<String>,
    /// Notes on sources and confidence.
    pub notes: Option<String>,
}

/// `[play]`: how the game is dealt and settled.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlaySection {
    /// `none` (NZ) or `american`.
    pub hole_card: HoleCard,
    /// Whether the dealer hits a soft 17 (`hit`) or stands (`stand`).
    pub dealer_soft17: String,
    /// Whether the dealer draws when every box is already settled (all bust, surrendered or paid).
    pub dealer_plays_when_all_settled: bool,
    /// Which two-card hands may double.
    pub double_on: DoubleOn,
    /// Whether a split hand may double.
    pub double_after_split: bool,
    /// Most hands a box may have after splitting.
    pub max_hands: u8,
    /// Whether split aces may be split again.
    pub resplit_aces: bool,
    /// Whether each split ace takes one card only.
    pub split_aces_one_card: bool,
    /// Whether a box may surrender (late: after the dealer's card, before drawing).
    pub surrender: bool,
    /// Whether insurance is offered when the dealer's first card is an ace; pays 2 to 1.
    pub insurance: bool,
    /// A blackjack (Pontoon) pays.
    pub natural_pays: Odds,
    /// What a dealer blackjack takes from a doubled or split box.
    pub dealer_natural_takes: DealerNaturalTakes,
    /// Whether a player's 21 (and Pontoon) wins at once, before the dealer plays (Pontoon).
    pub player_21_wins_at_once: bool,
    /// Whether an ace and a ten-value card after a split counts as a blackjack.
    pub split_21_is_natural: bool,
}

/// `[bonus]`: Pontoon's bonuses, paid at once instead of even money on a winning 21.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BonusSection {
    /// A 21 of five cards.
    pub five_card_21: Odds,
    /// A 21 of six cards.
    pub six_card_21: Odds,
    /// A 21 of seven or more cards.
    pub seven_card_21: Odds,
    /// 6-7-8 of mixed suits.
    pub six_seven_eight_mixed: Odds,
    /// 6-7-8 of one suit.
    pub six_seven_eight_suited: Odds,
    /// 6-7-8 of spades.
    pub six_seven_eight_spades: Odds,
    /// 7-7-7 of mixed suits.
    pub seven_seven_seven_mixed: Odds,
    /// 7-7-7 of one suit.
    pub seven_seven_seven_suited: Odds,
    /// 7-7-7 of spades.
    pub seven_seven_seven_spades: Odds,
    /// Whether a doubled hand is paid no bonus.
    pub not_after_double: bool,
}

/// `[super_sevens]`: the side bet on the box's first cards being sevens.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SuperSevensSection {
    /// Fewest decks the side bet may be offered with.
    pub min_decks: u8,
    /// The first card a 7 (to 1).
    pub one_seven: u32,
    /// The first two cards 7-7 of different suits.
    pub two_unsuited: u32,
    /// The first two cards 7-7 of one suit.
    pub two_suited: u32,
    /// The first three cards 7-7-7 of mixed suits.
    pub three_unsuited: u32,
    /// The first three cards 7-7-7 of one suit.
    pub three_suited: u32,
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
    #[error("no built-in Blackjack or Pontoon rule book {0:?} (built in: {list})", list = BUILTIN.join(", "))]
    Unknown(String),
}

/// The codes a Blackjack or Pontoon table can raise, each of which a book must cite.
pub const CODES: &[IrregularityCode] = &[
    IrregularityCode::DealOutOfOrder,
    IrregularityCode::CardToFinishedHand,
    IrregularityCode::DealerDrawWrong,
    IrregularityCode::WrongCardCount,
    IrregularityCode::DecisionNotAllowed,
    IrregularityCode::ExcessCard,
    IrregularityCode::UnreadableCard,
    IrregularityCode::CuttingCardMisplaced,
    IrregularityCode::CutTooCloseToEnd,
    IrregularityCode::NotShuffled,
    IrregularityCode::CardExposed,
    IrregularityCode::ShuffleCountMismatch,
    IrregularityCode::DeviceError,
    IrregularityCode::OrderDisclosed,
];

/// Codes a table can raise that a book may leave uncited (they came later than the books): the
/// shuffle analysis's `SHUFFLE_SUSPECT`.
pub const OPTIONAL_CODES: &[IrregularityCode] = &[IrregularityCode::ShuffleSuspect];

/// The codes the burn raises, which a book with a `[burn]` must cite (and one without may not).
pub const BURN_CODES: &[IrregularityCode] = &[
    IrregularityCode::BurnMissing,
    IrregularityCode::BurnCountMismatch,
];

/// Qualified citations a book may give: (`[cite]` key, what it is for).
pub const QUALIFIED: &[&str] = &[
    "NOT_SHUFFLED/past_end",
    "NOT_SHUFFLED/replaced",
    "NOT_SHUFFLED/steps",
    "DECISION_NOT_ALLOWED/after_first_card",
    "DEALER_DRAW_WRONG/stood",
];

/// A checked Blackjack or Pontoon rule book.
#[derive(Debug, Clone, PartialEq)]
pub struct Book {
    /// Blackjack or Pontoon.
    pub variant: Variant,
    /// The book's id.
    pub id: String,
    /// Its title.
    pub title: String,
    /// The shoe rules the shared tracker follows.
    pub shoe: ShoeRules,
    /// The decks when a shuffle does not say.
    pub decks: u8,
    /// The hand-preparation steps required before each load, in order (`[shoe] shuffle_steps`).
    pub shuffle_steps: Vec<ShuffleStep>,
    /// Hole card or none.
    pub hole_card: HoleCard,
    /// Whether the dealer hits soft 17.
    pub dealer_hits_soft17: bool,
    /// Whether the dealer draws when every box is settled.
    pub dealer_plays_when_all_settled: bool,
    /// Which hands may double.
    pub double_on: DoubleOn,
    /// Double after split.
    pub double_after_split: bool,
    /// Most hands per box.
    pub max_hands: u8,
    /// Resplit aces.
    pub resplit_aces: bool,
    /// One card to each split ace.
    pub split_aces_one_card: bool,
    /// Surrender offered.
    pub surrender: bool,
    /// Insurance offered.
    pub insurance: bool,
    /// A natural pays.
    pub natural_pays: Odds,
    /// What a dealer natural takes.
    pub dealer_natural_takes: DealerNaturalTakes,
    /// A player's 21 wins at once.
    pub player_21_wins_at_once: bool,
    /// A split ace and ten is a natural.
    pub split_21_is_natural: bool,
    /// Pontoon's bonuses.
    pub bonus: Option<BonusSection>,
    /// Super Sevens.
    pub super_sevens: Option<SuperSevensSection>,
    /// Rule number → text.
    pub texts: BTreeMap<String, String>,
}

impl Book {
    /// A built-in book by id.
    pub fn builtin(id: &str) -> Result<Book, LoadError> {
        match id {
            "nz-blackjack" => Book::from_toml(NZ_BLACKJACK),
            "nz-pontoon" => Book::from_toml(NZ_PONTOON),
            other => Err(LoadError::Unknown(other.to_owned())),
        }
    }

    /// The TOML text of a built-in book, to keep in a record with the tables it judges.
    pub fn builtin_text(id: &str) -> Option<&'static str> {
        match id {
            "nz-blackjack" => Some(NZ_BLACKJACK),
            "nz-pontoon" => Some(NZ_PONTOON),
            _ => None,
        }
    }

    /// The same book for a table whose shoe holds `decks` decks (a pit definition's
    /// `decks = N`), refused outside the book's `min_decks`–`max_decks`.
    pub fn with_decks(&self, decks: u8) -> Result<Book, String> {
        if decks < self.shoe.min_decks || decks > self.shoe.max_decks {
            return Err(format!(
                "{decks} decks is outside what rule book {} allows ({} to {})",
                self.id, self.shoe.min_decks, self.shoe.max_decks
            ));
        }
        let mut book = self.clone();
        book.decks = decks;
        book.shoe.composition = ShoeComposition::new(decks, book.shoe.composition.kind);
        Ok(book)
    }

    /// NZ Blackjack.
    pub fn nz_blackjack() -> Book {
        Book::builtin("nz-blackjack").expect("the built-in nz-blackjack book is valid")
    }

    /// NZ Pontoon.
    pub fn nz_pontoon() -> Book {
        Book::builtin("nz-pontoon").expect("the built-in nz-pontoon book is valid")
    }

    /// Reads and checks a book, listing every problem.
    pub fn from_toml(text: &str) -> Result<Book, LoadError> {
        let data: BookData = toml::from_str(text).map_err(|e| LoadError::Toml(e.to_string()))?;
        Book::check(data)
    }

    fn check(data: BookData) -> Result<Book, LoadError> {
        let mut p = Vec::new();
        let variant = match data.book.game.as_str() {
            "blackjack" => Variant::Blackjack,
            "pontoon" => Variant::Pontoon,
            other => {
                p.push(format!(
                    "[book]: game is {other:?}, but this engine checks \"blackjack\" or \"pontoon\""
                ));
                Variant::Blackjack
            }
        };
        let shoe_book = ShoeBookData {
            shoe: Some(data.shoe.clone()),
            cut: data.cut.clone(),
            cutting_card: data.cutting_card.clone(),
            burn: data.burn.clone(),
            shuffle: data.shuffle.clone(),
            ..ShoeBookData::default()
        };
        shoe_book.unknown_keys(&SHOE, &mut p);
        let checked = shoe_book.check(&SHOE, &mut p);
        let hits = match data.play.dealer_soft17.as_str() {
            "hit" => true,
            "stand" => false,
            other => {
                p.push(format!(
                    "[play]: dealer_soft17 {other:?} is not hit or stand"
                ));
                false
            }
        };
        if !(1..=4).contains(&data.play.max_hands) {
            p.push("[play]: max_hands must be 1 to 4".to_owned());
        }
        let odds = |name: &str, o: Odds, p: &mut Vec<String>| {
            if o.per == 0 || o.to == 0 {
                p.push(format!("{name}: odds {o} must be positive"));
            }
        };
        odds("[play] natural_pays", data.play.natural_pays, &mut p);
        if let Some(b) = &data.bonus {
            for (name, o) in [
                ("five_card_21", b.five_card_21),
                ("six_card_21", b.six_card_21),
                ("seven_card_21", b.seven_card_21),
                ("six_seven_eight_mixed", b.six_seven_eight_mixed),
                ("six_seven_eight_suited", b.six_seven_eight_suited),
                ("six_seven_eight_spades", b.six_seven_eight_spades),
                ("seven_seven_seven_mixed", b.seven_seven_seven_mixed),
                ("seven_seven_seven_suited", b.seven_seven_seven_suited),
                ("seven_seven_seven_spades", b.seven_seven_seven_spades),
            ] {
                odds(&format!("[bonus] {name}"), o, &mut p);
            }
        }
        if let Some(s7) = &data.super_sevens {
            if s7.min_decks > checked.max_decks {
                p.push("[super_sevens]: min_decks exceeds the shoe's max_decks".to_owned());
            }
        }
        // A book with a burn raises its codes too, and must cite them.
        let burn_codes: &[IrregularityCode] = if checked.burn == BurnPolicy::None {
            &[]
        } else {
            BURN_CODES
        };
        let mut cite = Vec::new();
        for (key, rule) in &data.cite {
            let code = key.split('/').next().unwrap_or(key);
            match code.parse::<IrregularityCode>() {
                Ok(c)
                    if CODES.contains(&c)
                        || burn_codes.contains(&c)
                        || OPTIONAL_CODES.contains(&c) =>
                {
                    if key.contains('/') && !QUALIFIED.contains(&key.as_str()) {
                        p.push(format!(
                            "[cite]: unknown qualified citation {key:?} (known: {})",
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
        for code in CODES.iter().chain(burn_codes) {
            // ORDER_DISCLOSED came later: a book without it cites its DEVICE_ERROR rule.
            if *code != IrregularityCode::OrderDisclosed && !data.cite.contains_key(code.as_str()) {
                p.push(format!("[cite]: missing the rule to cite for {code}"));
            }
        }
        for (number, text) in &data.texts {
            if text.trim().is_empty() {
                p.push(format!("[texts]: {number:?} has an empty text"));
            }
        }
        let shoe = checked.shoe_rules(&data.book.id, cite);
        if !p.is_empty() {
            return Err(InvalidBook {
                id: data.book.id.clone(),
                problems: p,
            }
            .into());
        }
        let play = data.play;
        Ok(Book {
            variant,
            id: data.book.id,
            title: data.book.title,
            shoe,
            decks: checked.composition.decks,
            shuffle_steps: checked.shuffle_steps,
            hole_card: play.hole_card,
            dealer_hits_soft17: hits,
            dealer_plays_when_all_settled: play.dealer_plays_when_all_settled,
            double_on: play.double_on,
            double_after_split: play.double_after_split,
            max_hands: play.max_hands,
            resplit_aces: play.resplit_aces,
            split_aces_one_card: play.split_aces_one_card,
            surrender: play.surrender,
            insurance: play.insurance,
            natural_pays: play.natural_pays,
            dealer_natural_takes: play.dealer_natural_takes,
            player_21_wins_at_once: play.player_21_wins_at_once,
            split_21_is_natural: play.split_21_is_natural,
            bonus: data.bonus,
            super_sevens: data.super_sevens,
            texts: data.texts,
        })
    }

    /// The rule cited for `key` (`CODE` or `CODE/qualifier`).
    pub fn cite(&self, key: &str) -> &str {
        self.shoe.cite(key)
    }

    /// The text of rule `number`, if the book has it.
    pub fn text(&self, number: &str) -> Option<&str> {
        self.texts.get(number.trim()).map(String::as_str)
    }

    /// The texts of every rule `citation` mentions that the book has (a lettered paragraph such
    /// as `5.1(f)` gives 5.1's text when the book has no text for the paragraph alone), each once.
    pub fn rule_texts(&self, citation: &str) -> Vec<(&str, &str)> {
        let mut found: Vec<(&str, &str)> = Vec::new();
        for part in citation.split([',', ';']) {
            let part = part.trim();
            let whole = part.split('(').next().unwrap_or(part).trim();
            for number in [part, whole] {
                if let Some((n, t)) = self.texts.get_key_value(number) {
                    if !found.iter().any(|(f, _)| *f == n.as_str()) {
                        found.push((n.as_str(), t.as_str()));
                    }
                    break;
                }
            }
        }
        found
    }
}
