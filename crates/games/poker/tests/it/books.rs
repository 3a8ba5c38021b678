//! The built-in book loads, cites a rule for every code and misdeal reason, and quotes the
//! Gazette's words verbatim from the seed page.

use pitwatch_fixtures::seeds::{seed_pages, words};
use pitwatch_model::MisdealReason;
use pitwatch_poker::book::{reason_key, Book, LoadError, CODES};

fn seed() -> String {
    seed_pages(env!("CARGO_MANIFEST_DIR"), 1)
}

#[test]
fn every_reason_has_its_text_verbatim_from_the_seed_page() {
    let seed = seed();
    let book = Book::nz_poker();
    assert_eq!(book.texts.len(), 12);
    for reason in MisdealReason::ALL {
        let number = format!("Misdeal ({reason})");
        let text = book
            .text(&number)
            .unwrap_or_else(|| panic!("no text for {number}"));
        let quoted = format!("({reason}) {}", words(text));
        assert!(seed.contains(&quoted), "{number}: not verbatim:\n{quoted}");
        // Each reason's citation finds exactly its own text.
        let cite = book.cite(reason_key(*reason));
        assert_eq!(cite, number);
        assert_eq!(book.rule_texts(cite), vec![(number.as_str(), text)]);
    }
    let changed = book.texts["Misdeal (d)"].replace("extra hand", "extra card");
    assert!(!seed.contains(&format!("(d) {}", words(&changed))));
}

#[test]
fn every_code_cites_a_rule() {
    let book = Book::nz_poker();
    for code in CODES {
        assert_ne!(book.cite(code.as_str()), "no rule cited", "{code}");
    }
    assert_eq!(
        book.rule_texts(book.cite("MISDEAL_AFTER_ACTION"))
            .iter()
            .map(|(n, _)| *n)
            .collect::<Vec<_>>(),
        ["Misdeal (b)", "Misdeal (f)"]
    );
}

#[test]
fn the_four_variants_are_there_and_a_bad_one_is_refused() {
    let book = Book::nz_poker();
    assert_eq!(book.variant.id, "texas_holdem");
    for v in ["texas_holdem", "draw", "five_card_stud", "seven-card-stud"] {
        book.clone().with_variant(v).unwrap();
    }
    let err = book.with_variant("omaha").unwrap_err();
    assert!(matches!(err, LoadError::UnknownVariant { .. }), "{err}");
}

#[test]
fn a_broken_book_lists_every_problem() {
    let text = include_str!("../../rulebooks/nz-poker.toml")
        .replace("game = \"poker\"", "game = \"baccarat\"")
        .replace(
            "substantial_action_players = 2",
            "substantial_action_players = 0",
        )
        .replace("\"MISDEAL/k\" = \"Misdeal (k)\"\n", "")
        .replace(
            "default_variant = \"texas_holdem\"",
            "default_variant = \"omaha\"",
        );
    let LoadError::Invalid(invalid) = Book::from_toml(&text).unwrap_err() else {
        panic!("not an invalid book");
    };
    let all = invalid.problems.join("\n");
    assert_eq!(invalid.problems.len(), 4, "{all}");
    for needle in [
        "game is",
        "substantial_action_players",
        "MISDEAL/k",
        "omaha",
    ] {
        assert!(all.contains(needle), "{needle} not in\n{all}");
    }
}
