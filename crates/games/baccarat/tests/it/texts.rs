//! The NZ rule books' texts are the Gazette's words: each is checked against the seed pages it was
//! taken from (copied into `tests/fixtures/seeds/`), white space aside.

use pitwatch_baccarat::RuleBook;
use pitwatch_fixtures::seeds::{seed_pages, words};

/// The note that ends 12.1, whose page is cut off in the source.
const CUT_OFF: &str = "(the rest of 12.1 is not in the source page)";

fn seeds() -> String {
    seed_pages(env!("CARGO_MANIFEST_DIR"), 3)
}

#[test]
fn every_nz_rule_text_is_verbatim_from_the_seed_pages() {
    let seeds = seeds();
    for id in ["nz-baccarat", "nz-baccarat-continuous"] {
        let book = RuleBook::builtin(id).unwrap();
        let mut count = 0;
        for (number, text) in book.texts() {
            count += 1;
            let body = text.strip_suffix(CUT_OFF).unwrap_or(text);
            let quoted = match number.strip_prefix("misdeal ") {
                // A misdeal condition is printed after its letter.
                Some(letter) => format!("{letter} {}", words(body)),
                None => format!("{number} {}", words(body)),
            };
            assert!(
                seeds.contains(&quoted),
                "{id} {number}: not verbatim in the seed pages:\n{quoted}"
            );
        }
        assert!(count >= 15, "{id} has only {count} texts");
    }
}

#[test]
fn the_verbatim_check_notices_a_changed_word() {
    let seeds = seeds();
    let book = RuleBook::nz_baccarat();
    let text = book.text("7.9").unwrap().replace("an ace", "the ace");
    assert!(!seeds.contains(&format!("7.9 {}", words(&text))));
}

proptest::proptest! {
    /// Any citation, however malformed, gives only texts the book has, each once, without panic.
    #[test]
    fn any_citation_gives_only_the_books_texts(citation in "[0-9.()a-zA-Z ,;é:]{0,40}") {
        let book = RuleBook::nz_baccarat();
        let found = book.rule_texts(&citation);
        for (i, (number, text)) in found.iter().enumerate() {
            proptest::prop_assert_eq!(book.text(number), Some(text.as_str()));
            proptest::prop_assert!(found[..i].iter().all(|(n, _)| n != number));
        }
    }
}
