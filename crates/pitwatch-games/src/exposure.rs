//! The house's exposure through a shoe, round by round, for any game that has one (issue 29):
//! before each round, what every wager is worth from the cards left in the shoe, computed by the
//! game's own code (Baccarat's exact enumeration, Blackjack's count, main wager and Super Sevens) from the
//! cards the shoe's events show.
//!
//! This is surveillance's view only: the application layer lets only the surveillance role and
//! administrators read it, and audits every read (`pitwatch-app`'s `exposure.rs`). A count shown
//! to the pit invites shuffling away shoes that favour the players.

use pitwatch_baccarat::exposure::{self as baccarat, CardsLeft, Wager};
use pitwatch_blackjack::exposure as blackjack;
use pitwatch_model::deck::ShoeCounter;
use pitwatch_model::{EventKind, ShoeComposition, ShufflerKind, TableEvent, Target, Timestamp};
use pitwatch_rules::TableOutput;
use std::collections::HashMap;
use std::sync::Arc;

use serde::Serialize;

use crate::{GameBook, GameOutput};

/// One figure of a round's exposure.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Figure {
    /// What it is, in words ("Dragon 7 (40 to 1)", "true count").
    pub name: Arc<str>,
    /// The house's edge on a wager, in percent (negative: the house is behind); for a count, the
    /// count itself.
    pub value: f64,
    /// Whether this figure says the house is behind (a wager worth more than it costs).
    pub house_behind: bool,
    /// Whether this is a wager's house edge (in percent) rather than a count.
    pub wager: bool,
    /// Where a wager's pay comes from: the rule or pay table its rule book cites (empty for a
    /// count).
    pub cite: Arc<str>,
}

/// What the house is exposed to on one round, before it is dealt.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RoundExposure {
    /// The round about to be dealt (1 for the shoe's first).
    pub round: u32,
    /// The event after which it was computed (the last of the round before, or the shoe's first).
    pub after_seq: u64,
    /// When that event was recorded, if it has a time.
    pub at: Option<Timestamp>,
    /// Cards left in the shoe (unseen ones included: see the games' `exposure` modules).
    pub cards_left: u32,
    /// Each figure.
    pub figures: Vec<Figure>,
}

/// The exposure before every round of one shoe, from its events and the outputs they gave (in
/// order, the shoe's first event first), under `book`; `None` for a game with no exposure
/// (poker's deck is shuffled for every hand). A [`ShoeWatch`] fed every step.
pub fn shoe_exposure<'a>(
    book: &GameBook,
    steps: impl IntoIterator<Item = (&'a TableEvent, &'a [GameOutput])>,
) -> Option<Vec<RoundExposure>> {
    let mut watch = ShoeWatch::new(book)?;
    let mut out = Vec::new();
    for (event, outputs) in steps {
        out.extend(watch.step(event, outputs));
    }
    if out.is_empty() {
        // No event at all: the whole shoe.
        out.extend(watch.now());
    }
    Some(out)
}

/// A shoe's exposure followed as it is dealt, one step at a time: the cards seen so far and the
/// round about to be dealt; each round's figures are computed once, when the round before it
/// ends (or the shoe begins), which is what makes the live figures incremental.
#[derive(Debug, Clone)]
pub struct ShoeWatch {
    book: GameBook,
    composition: ShoeComposition,
    counter: Option<ShoeCounter>,
    round: u32,
    last_seq: u64,
    last_at: Option<Timestamp>,
    /// The event the shoe's shuffle was (the rounds it closes are the shoe before's).
    shuffled_at: Option<u64>,
    /// A shoe has begun and its first round's figures are not given yet: they wait for the burn
    /// (its first card is seen, so it leaves the count) and are given before the round's first
    /// card. The event to name when the device names no card's place (the shoe's beginning).
    first_due: Option<(u64, Option<Timestamp>)>,
    /// The book's shuffler is a continuous one, or the shoe's shuffle said so: cards dealt go
    /// back, so none is taken out of the count (each round is figured off the top).
    continuous: bool,
    book_continuous: bool,
    /// The figures' names and citations, made once and shared by every round's figures (a pit's
    /// live watch holds every round of every table's shoe).
    labels: Labels,
}

impl ShoeWatch {
    /// A watch of a shoe dealt under `book`, before its first event; `None` for a game with no
    /// exposure.
    pub fn new(book: &GameBook) -> Option<ShoeWatch> {
        Some(ShoeWatch {
            book: book.clone(),
            composition: composition_of(book)?,
            counter: None,
            round: 1,
            last_seq: 0,
            last_at: None,
            shuffled_at: None,
            first_due: None,
            continuous: continuous(book),
            book_continuous: continuous(book),
            labels: Labels::of(book),
        })
    }

    /// Takes in one event and what the table's engine output on it; the figures of each round
    /// it makes the next. The engine says where a shoe ends: an event that ended one (its
    /// summary among the outputs) begins the next shoe as the engine does, the rounds it
    /// closes being the shoe before's; so does a shuffle. A shoe begun by an event other than a
    /// shuffle (a device that reports none: the burn's first card) starts from the whole shoe.
    pub fn step(&mut self, event: &TableEvent, outputs: &[GameOutput]) -> Vec<RoundExposure> {
        let shuffled = matches!(event.kind, EventKind::Shuffled { .. });
        let ended = outputs.iter().any(|o| matches!(o, TableOutput::Shoe(_)));
        if ended && !shuffled {
            // The shoe before ended here; this event is the next one's (or, if the engine
            // began none with it, the next shoe's first event is no further than this).
            self.counter = None;
            self.first_due = None;
            self.round = 1;
        }
        let mut out: Vec<RoundExposure> = self.event(event).into_iter().collect();
        if !ended {
            for output in outputs {
                out.extend(self.output(event.seq, output));
            }
        }
        out
    }

    /// Takes in one event; the figures of a shoe's first round when this event is the first of
    /// it after the burn.
    ///
    /// A shoe's first round is figured once its burn is done: the burn's first card is dealt
    /// face up, so it leaves the count, and the cards burned face down stay in (unknown). The
    /// figures are given before the first card that is not the burn's (or at "no more bets"),
    /// named after the event before it. A device that does not say where a card goes gives no
    /// way to tell the burn from the round: its first round is figured from the whole shoe, at
    /// the shoe's beginning.
    fn event(&mut self, event: &TableEvent) -> Option<RoundExposure> {
        let before = (self.last_seq, self.last_at);
        self.last_seq = event.seq;
        self.last_at = event.at;
        if self.counter.is_none() && !matches!(event.kind, EventKind::Shuffled { .. }) {
            // A shoe begun by its first card (a device that reports no shuffle): the whole shoe
            // is before it.
            self.counter = Some(self.composition.counter());
            self.first_due = Some((event.seq.saturating_sub(1), event.at));
        }
        match &event.kind {
            EventKind::Shuffled {
                decks, shuffler, ..
            } => {
                self.continuous =
                    self.book_continuous || *shuffler == Some(ShufflerKind::Continuous);
                let shoe = decks.map_or(self.composition, |d| {
                    ShoeComposition::new(d, self.composition.kind)
                });
                self.counter = Some(shoe.counter());
                self.round = 1;
                self.shuffled_at = Some(event.seq);
                self.first_due = Some((event.seq, event.at));
                None
            }
            EventKind::CardDrawn { card, target, .. } => {
                let figures = match target {
                    Some(Target::First | Target::Burn) => None,
                    None => self.give_first(None),
                    Some(_) => self.give_first(Some(before)),
                };
                if let (Some(card), Some(counter)) =
                    (card, self.counter.as_mut().filter(|_| !self.continuous))
                {
                    counter.see(*card);
                }
                figures
            }
            EventKind::BetsClosed => self.give_first(Some(before)),
            _ => None,
        }
    }

    /// The shoe's first round's figures, if they are still due: from the cards seen so far,
    /// named after `after` (or the shoe's beginning).
    fn give_first(&mut self, after: Option<(u64, Option<Timestamp>)>) -> Option<RoundExposure> {
        let due = self.first_due.take()?;
        let counter = self.counter.as_ref()?;
        figures_for(
            &self.book,
            &mut self.labels,
            counter,
            self.round,
            after.unwrap_or(due),
        )
    }

    /// Takes in one output of the event `seq`; a round's end gives the next round's figures.
    fn output(&mut self, seq: u64, output: &GameOutput) -> Option<RoundExposure> {
        let TableOutput::Round(done) = output else {
            return None;
        };
        if self.shuffled_at == Some(seq) {
            // The shoe before's last round, closed by this shoe's shuffle.
            return None;
        }
        // A round dealt with its first round's figures still due (no card told apart from the
        // burn): they can no longer be "before" it.
        self.first_due = None;
        self.round = done.round() + 1;
        let counter = self
            .counter
            .get_or_insert_with(|| self.composition.counter());
        figures_for(
            &self.book,
            &mut self.labels,
            counter,
            self.round,
            (seq, self.last_at),
        )
    }

    /// The figures of the round about to be dealt, from what has been seen (computed afresh).
    pub fn now(&self) -> Option<RoundExposure> {
        let whole;
        let counter = match &self.counter {
            Some(counter) => counter,
            None => {
                whole = self.composition.counter();
                &whole
            }
        };
        figures_for(
            &self.book,
            &mut self.labels.clone(),
            counter,
            self.round,
            (self.last_seq, self.last_at),
        )
    }
}

/// The words of a book's figures, each made once: the names and citations of its wagers and
/// counts, and the main wager's citation for each error bound met so far.
#[derive(Debug, Clone, Default)]
struct Labels {
    /// Baccarat: each wager the book lists, its name and citation, in the book's order.
    wagers: Vec<(Arc<str>, Arc<str>)>,
    /// Any other word, by its text.
    words: HashMap<String, Arc<str>>,
}

impl Labels {
    fn of(book: &GameBook) -> Labels {
        let wagers = match book {
            GameBook::Baccarat(book) => book
                .wagers()
                .iter()
                .map(|offered| {
                    (
                        Arc::from(wager_name(offered.wager)),
                        Arc::from(offered.cite.as_str()),
                    )
                })
                .collect(),
            _ => Vec::new(),
        };
        Labels {
            wagers,
            words: HashMap::new(),
        }
    }

    /// `text`, shared with every figure that says it.
    fn word(&mut self, text: &str) -> Arc<str> {
        if let Some(word) = self.words.get(text) {
            return Arc::clone(word);
        }
        let word: Arc<str> = Arc::from(text);
        self.words.insert(text.to_owned(), Arc::clone(&word));
        word
    }
}

/// Whether `book`'s tables deal from a continuous shuffler.
fn continuous(book: &GameBook) -> bool {
    match book {
        GameBook::Baccarat(book) => book.shuffler() == ShufflerKind::Continuous,
        GameBook::Blackjack(book) => book.shoe.shuffler == ShufflerKind::Continuous,
        GameBook::Poker(_) => false,
    }
}

fn composition_of(book: &GameBook) -> Option<ShoeComposition> {
    match book {
        GameBook::Baccarat(book) => Some(book.composition()),
        GameBook::Blackjack(book) => Some(book.shoe.composition),
        GameBook::Poker(_) => None,
    }
}

fn figures_for(
    book: &GameBook,
    labels: &mut Labels,
    counter: &ShoeCounter,
    round: u32,
    (after_seq, at): (u64, Option<Timestamp>),
) -> Option<RoundExposure> {
    let mut figures = Vec::new();
    let cards_left = counter.remaining();
    match book {
        GameBook::Baccarat(book) => {
            let left = CardsLeft::after(counter);
            let outcomes = baccarat::outcomes(book.drawing(), &left)?;
            for (offered, (name, cite)) in book.wagers().iter().zip(&labels.wagers) {
                let worth = baccarat::worth(offered.wager, &outcomes, &left);
                figures.push(Figure {
                    name: Arc::clone(name),
                    value: worth.house_edge_percent(),
                    house_behind: worth.favours_the_player(),
                    wager: true,
                    cite: Arc::clone(cite),
                });
            }
        }
        GameBook::Blackjack(book) => {
            let count = blackjack::Count::of(counter);
            figures.push(Figure {
                name: labels.word("Hi-Lo running count"),
                value: f64::from(count.running),
                house_behind: false,
                wager: false,
                cite: labels.word(""),
            });
            if let Some(true_count) = count.true_count() {
                figures.push(Figure {
                    name: labels.word("Hi-Lo true count"),
                    value: true_count,
                    // At +2 or more a basic-strategy player is commonly reckoned ahead.
                    house_behind: true_count >= 2.0,
                    wager: false,
                    cite: labels.word(""),
                });
            }
            figures.push(Figure {
                name: labels.word("penetration (%)"),
                value: 100.0 * count.penetration(),
                house_behind: false,
                wager: false,
                cite: labels.word(""),
            });
            if let Some(edge) = blackjack::player_edge(book, counter) {
                figures.push(Figure {
                    name: labels.word(MAIN_WAGER),
                    value: -edge.percent,
                    // Only when the player is ahead beyond the method's error bound.
                    house_behind: edge.player_ahead(),
                    wager: true,
                    cite: labels.word(&format!(
                        "the book's [play] rules; basic strategy, within ±{:.2} points",
                        edge.error_bound
                    )),
                });
            }
            if let Some(pays) = &book.super_sevens {
                if let Some(worth) = blackjack::super_sevens(counter, pays) {
                    figures.push(Figure {
                        name: labels.word("Super Sevens, third card dealt on 7-7"),
                        value: worth.house_edge_percent(),
                        house_behind: worth.with_third > 0,
                        wager: true,
                        cite: labels.word("the book's [super_sevens] pay table"),
                    });
                }
            }
        }
        GameBook::Poker(_) => return None,
    }
    Some(RoundExposure {
        round,
        after_seq,
        at,
        cards_left,
        figures,
    })
}

/// The name of Blackjack's and Pontoon's main-wager figure: the house's edge over a
/// basic-strategy player off the top of the cards left (`pitwatch-blackjack`'s
/// `exposure::edge`).
pub const MAIN_WAGER: &str = "Main wager, basic strategy";

/// A Baccarat wager in words, with its pay.
pub fn wager_name(wager: Wager) -> String {
    match wager {
        Wager::Player => "Player".into(),
        Wager::Banker { commission_percent } => {
            format!("Banker ({commission_percent}% commission)")
        }
        Wager::BankerNoCommission => "Banker, no commission (three-card 7 stands off)".into(),
        Wager::Tie { pays } => format!("Tie ({pays} to 1)"),
        Wager::PlayerPair { pays } => format!("Player Pair ({pays} to 1)"),
        Wager::BankerPair { pays } => format!("Banker Pair ({pays} to 1)"),
        Wager::Dragon7 { pays } => format!("Dragon 7 ({pays} to 1)"),
        Wager::Panda8 { pays } => format!("Panda 8 ({pays} to 1)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::TableEngine;
    use pitwatch_model::{Card, Rank, Suit, Target};

    #[test]
    fn a_baccarat_shoe_has_a_figure_before_every_round_and_a_whole_shoe_the_published_edges() {
        let book = GameBook::load("nz-baccarat").expect("a built-in book");
        let mut engine = TableEngine::new(book.clone());
        let mut events = vec![TableEvent::new(
            1,
            EventKind::Shuffled {
                decks: Some(8),
                cards: None,
                shuffler: None,
            },
        )];
        // Two rounds: P 9 B 8 (naturals), P K K B K K then third cards.
        let cards = ["9H", "8D", "KS", "KC", "2H", "3D", "QS", "JC", "4H", "5D"];
        let targets = [
            (Target::Player, 1),
            (Target::Banker, 1),
            (Target::Player, 2),
            (Target::Banker, 2),
            (Target::Player, 1),
            (Target::Banker, 1),
            (Target::Player, 2),
            (Target::Banker, 2),
            (Target::Player, 3),
            (Target::Banker, 3),
        ];
        for (i, (card, (target, index))) in cards.iter().zip(targets).enumerate() {
            let card: Card = card.parse().expect("a card");
            events.push(TableEvent::new(
                i as u64 + 2,
                EventKind::CardDrawn {
                    card: Some(card),
                    target: Some(target),
                    index: Some(index),
                    face_up: None,
                    retransmit: None,
                },
            ));
        }
        let mut steps = Vec::new();
        for event in &events {
            engine.handle_event(event);
            let mut outputs = Vec::new();
            while let Some(output) = engine.poll_output() {
                outputs.push(output);
            }
            steps.push((event.clone(), outputs));
        }
        let rounds = shoe_exposure(&book, steps.iter().map(|(e, o)| (e, o.as_slice())))
            .expect("Baccarat has exposure");
        let numbers: Vec<u32> = rounds.iter().map(|r| r.round).collect();
        assert!(numbers.starts_with(&[1, 2]), "{numbers:?}");
        let first = &rounds[0];
        assert_eq!(first.cards_left, 416);
        let dragon = first
            .figures
            .iter()
            .find(|f| f.name.starts_with("Dragon 7"))
            .expect("Dragon 7 watched");
        assert!((dragon.value - 7.6113).abs() < 0.0001, "{dragon:?}");
        assert!(!dragon.house_behind);
        assert_eq!(
            rounds[1].cards_left, 412,
            "after the first round's four cards"
        );
    }

    /// A shuffle, then the burn (its first card a 3 shown, three cards burned face down), then
    /// a round's four cards; `targets` false: a device that names no card's place.
    fn burned_shoe(targets: bool) -> Vec<RoundExposure> {
        let book = GameBook::load("nz-baccarat").expect("a built-in book");
        let mut engine = TableEngine::new(book.clone());
        let mut events = vec![TableEvent::new(
            1,
            EventKind::Shuffled {
                decks: Some(8),
                cards: None,
                shuffler: None,
            },
        )];
        let cards: [(Option<&str>, Target, u8); 8] = [
            (Some("3H"), Target::First, 1),
            (None, Target::Burn, 1),
            (None, Target::Burn, 2),
            (None, Target::Burn, 3),
            (Some("9H"), Target::Player, 1),
            (Some("8D"), Target::Banker, 1),
            (Some("KS"), Target::Player, 2),
            (Some("KC"), Target::Banker, 2),
        ];
        for (i, (card, target, index)) in cards.into_iter().enumerate() {
            events.push(TableEvent::new(
                i as u64 + 2,
                EventKind::CardDrawn {
                    card: card.map(|c| c.parse().expect("a card")),
                    target: targets.then_some(target),
                    index: targets.then_some(index),
                    face_up: None,
                    retransmit: None,
                },
            ));
        }
        let steps: Vec<(TableEvent, Vec<GameOutput>)> = events
            .iter()
            .map(|event| {
                engine.handle_event(event);
                let mut outputs = Vec::new();
                while let Some(output) = engine.poll_output() {
                    outputs.push(output);
                }
                (event.clone(), outputs)
            })
            .collect();
        shoe_exposure(&book, steps.iter().map(|(e, o)| (e, o.as_slice())))
            .expect("Baccarat has exposure")
    }

    #[test]
    fn a_shoes_first_round_is_figured_after_its_burn_when_the_device_names_the_burn() {
        let rounds = burned_shoe(true);
        let first = &rounds[0];
        assert_eq!(first.round, 1);
        // The 3 shown leaves the count; the cards burned face down stay in (unknown).
        assert_eq!(first.cards_left, 415);
        assert_eq!(
            first.after_seq, 5,
            "after the burn's last card, before the round's first"
        );
        let whole = burned_shoe(false);
        assert_eq!(whole[0].round, 1);
        assert_eq!(
            whole[0].cards_left, 416,
            "no burn told apart: the whole shoe"
        );
        assert_eq!(whole[0].after_seq, 1, "at the shuffle");
        assert_ne!(
            first.figures, whole[0].figures,
            "a 3 gone moves the figures"
        );
    }

    #[test]
    fn a_blackjack_shoe_shows_the_main_wager_off_the_top_beside_the_count() {
        for id in ["nz-blackjack", "nz-pontoon"] {
            let book = GameBook::load(id).expect("a built-in book");
            let GameBook::Blackjack(inner) = &book else {
                panic!("{id} is a Blackjack book");
            };
            let mut counter = inner.shoe.composition.counter();
            let whole = figures_for(&book, &mut Labels::of(&book), &counter, 1, (0, None))
                .expect("figures");
            let main = whole
                .figures
                .iter()
                .find(|f| &*f.name == MAIN_WAGER)
                .expect("the main wager's figure");
            let edge = blackjack::player_edge(inner, &counter).expect("a whole shoe");
            assert!((main.value + edge.percent).abs() < 1e-12, "{main:?}");
            assert!(main.wager && !main.house_behind, "{main:?}");
            assert!(
                main.value > 0.0,
                "the house is ahead off a whole shoe: {main:?}"
            );
            assert!(main.cite.contains("[play]"), "{main:?}");
            // Small cards gone: the player is ahead, beyond the bound.
            for rank in [Rank::Three, Rank::Four, Rank::Five, Rank::Six] {
                for suit in Suit::ALL {
                    for _ in 0..4 {
                        counter.see(Card::new(rank, suit));
                    }
                }
            }
            let rich = figures_for(&book, &mut Labels::of(&book), &counter, 9, (0, None))
                .expect("figures");
            let main = rich
                .figures
                .iter()
                .find(|f| &*f.name == MAIN_WAGER)
                .expect("the main wager's figure");
            assert!(main.house_behind && main.value < 0.0, "{main:?}");
        }
    }

    #[test]
    fn poker_has_no_exposure() {
        let book = GameBook::load("nz-poker").expect("a built-in book");
        assert_eq!(shoe_exposure(&book, Vec::new()), None);
    }

    /// The NZ book with its `[[wagers]]` replaced by `wagers` (TOML, empty for none).
    fn nz_with_wagers(wagers: &str) -> GameBook {
        let text = crate::book::book_text("nz-baccarat").expect("a built-in book");
        let start = text.find("[[wagers]]").expect("the NZ book lists wagers");
        let end = text.find("\n[cite]").expect("a [cite] section");
        let text = format!("{}{wagers}\n{}", &text[..start], &text[end..]);
        GameBook::from_text(&text, "house.toml").expect("a valid book")
    }

    #[test]
    fn the_figures_are_the_wagers_the_book_lists_with_its_pays_and_citations() {
        let house = nz_with_wagers(
            "[[wagers]]\nwager = \"dragon_7\"\npays = 30\ncite = \"house table 3\"\n",
        );
        let whole = shoe_exposure(&house, Vec::new()).expect("Baccarat has exposure");
        let figures = &whole[0].figures;
        assert_eq!(figures.len(), 1, "{figures:?}");
        assert_eq!(&*figures[0].name, "Dragon 7 (30 to 1)");
        assert_eq!(&*figures[0].cite, "house table 3");
        // At 30 to 1 the house keeps far more than at 40: 1 - 31 × 112,633,011,329,024 /
        // 4,998,398,275,503,360 of each unit.
        let edge = 100.0 * (1.0 - 31.0 * 112_633_011_329_024.0 / 4_998_398_275_503_360.0);
        assert!((figures[0].value - edge).abs() < 1e-9, "{figures:?}");

        let older = nz_with_wagers("");
        let whole = shoe_exposure(&older, Vec::new()).expect("Baccarat has exposure");
        let names: Vec<&str> = whole[0].figures.iter().map(|f| &*f.name).collect();
        assert_eq!(names, ["Player", "Banker (5% commission)", "Tie (8 to 1)"]);
        assert!(whole[0]
            .figures
            .iter()
            .all(|f| &*f.cite == pitwatch_baccarat::book::DEFAULT_CITE));
    }

    #[test]
    fn a_continuous_shuffler_is_figured_off_the_top_every_round() {
        let book = GameBook::load("nz-baccarat-continuous").expect("a built-in book");
        let mut watch = ShoeWatch::new(&book).expect("Baccarat has exposure");
        let top = watch.now().expect("figures");
        for (i, card) in ["9H", "9D", "9S", "9C", "KH", "KD"].iter().enumerate() {
            let event = TableEvent::new(
                i as u64 + 1,
                EventKind::CardDrawn {
                    card: Some(card.parse().expect("a card")),
                    target: None,
                    index: None,
                    face_up: None,
                    retransmit: None,
                },
            );
            watch.step(&event, &[]);
        }
        let now = watch.now().expect("figures");
        assert_eq!(now.cards_left, top.cards_left);
        assert_eq!(now.figures, top.figures);
    }
}
