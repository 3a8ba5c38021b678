//! The built-in books load, cite a rule for every code they can raise, and quote the Gazette's
//! words verbatim from the seed pages.

use pitwatch_blackjack::book::{Book, LoadError, CODES};
use pitwatch_fixtures::seeds::{seed_pages, words};

fn seeds() -> String {
    seed_pages(env!("CARGO_MANIFEST_DIR"), 2)
}

#[test]
fn every_text_is_verbatim_from_the_seed_pages() {
    let seeds = seeds();
    for id in ["nz-blackjack", "nz-pontoon"] {
        let book = Book::builtin(id).unwrap();
        assert!(
            book.texts.len() >= 3,
            "{id} has only {} texts",
            book.texts.len()
        );
        for (number, text) in &book.texts {
            let quoted = format!("{number} {}", words(text));
            assert!(
                seeds.contains(&quoted),
                "{id} {number}: not verbatim:\n{quoted}"
            );
        }
    }
    let changed = Book::nz_pontoon().texts["7.5"].replace("one deck", "two decks");
    assert!(!seeds.contains(&format!("7.5 {}", words(&changed))));
}

#[test]
fn every_citation_of_a_gazette_rule_finds_its_text() {
    for id in ["nz-blackjack", "nz-pontoon"] {
        let book = Book::builtin(id).unwrap();
        for code in CODES {
            let cite = book.cite(code.as_str());
            assert_ne!(cite, "no rule cited", "{id} {code}");
            // A citation that names a rule number of this book's Gazette pages has its text; one
            // that says its rule is not in the source has none, and says so.
            let texts = book.rule_texts(cite);
            assert!(
                !texts.is_empty()
                    || cite.contains("not in the source")
                    || cite.contains("no Gazette rule")
                    || cite.contains("2000 No 5"),
                "{id} {code}: {cite:?} gives no text and does not say why"
            );
        }
    }
    let pontoon = Book::nz_pontoon();
    let texts = pontoon.rule_texts(pontoon.cite("NOT_SHUFFLED/past_end"));
    assert_eq!(texts.len(), 1);
    assert!(texts[0].1.contains("(b) when the cutting card"));
    let blackjack = Book::nz_blackjack();
    assert!(blackjack.rule_texts("5.1(d)")[0]
        .1
        .contains("(d) lose if the dealer has a blackjack"));
}

#[test]
fn the_books_hold_their_parameters() {
    let bj = Book::nz_blackjack();
    assert_eq!(bj.variant.name(), "blackjack");
    assert_eq!(
        bj.shoe.composition.kind,
        pitwatch_model::DeckKind::Standard52
    );
    assert_eq!((bj.natural_pays.to, bj.natural_pays.per), (3, 2));
    assert!(!bj.dealer_hits_soft17 && bj.super_sevens.is_some() && bj.bonus.is_none());
    let p = Book::nz_pontoon();
    assert_eq!(p.shoe.composition.kind, pitwatch_model::DeckKind::Spanish48);
    assert!(p.dealer_hits_soft17 && p.player_21_wins_at_once && p.bonus.is_some());
    assert_eq!(p.shoe.cut, Some(pitwatch_rules::CutLimit::Decks(1)));
    assert_eq!(
        p.shoe.cutting_card.and_then(|c| c.max_from_back_fraction),
        Some(0.5)
    );
}

#[test]
fn a_bad_book_lists_every_problem() {
    let text = include_str!("../../rulebooks/nz-pontoon.toml")
        .replace("game = \"pontoon\"", "game = \"poker\"")
        .replace("dealer_soft17 = \"hit\"", "dealer_soft17 = \"maybe\"")
        .replace("max_hands = 3", "max_hands = 9")
        .replace("DEVICE_ERROR = \"device (no Gazette rule)\"", "");
    let Err(LoadError::Invalid(e)) = Book::from_toml(&text) else {
        panic!("accepted a bad book");
    };
    assert_eq!(e.problems.len(), 4, "{:?}", e.problems);
    assert!(matches!(
        Book::builtin("nz-baccarat"),
        Err(LoadError::Unknown(_))
    ));
    assert!(matches!(Book::from_toml("[book]"), Err(LoadError::Toml(_))));
}
