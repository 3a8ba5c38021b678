//! The reference dealer (`pitwatch-dealer`) draws by its own tableau, written from the published
//! rules; every built-in book's `[drawing]` section must be that tableau, or the differential
//! tests would compare the engine with a dealer playing another game.

use pitwatch_baccarat::{Decision, RuleBook};
use pitwatch_dealer::tableau::{banker_draws, player_draws};

#[test]
fn every_built_in_book_draws_by_the_dealers_published_tableau() {
    for (id, _) in pitwatch_baccarat::book::BUILTIN {
        let book = RuleBook::builtin(id).unwrap();
        let table = book.drawing();
        for p in 0..=9 {
            for b in 0..=9 {
                let draws = table.player(p, b) == Decision::Draw;
                assert_eq!(draws, player_draws(p, b), "{id}: Player {p} Banker {b}");
                for third in std::iter::once(None).chain((0..=9).map(Some)) {
                    let draws = table.banker(p, b, third) == Decision::Draw;
                    assert_eq!(
                        draws,
                        banker_draws(p, b, third),
                        "{id}: Player {p} Banker {b} third {third:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn the_dealers_shoe_is_the_books_shoe_section() {
    let book = RuleBook::nz_baccarat();
    let shoe = book.shoe_book();
    assert_eq!(shoe.composition, book.composition());
    assert_eq!(shoe.burn, book.burn());
    assert_eq!(shoe.cut, Some(book.cut()));
    assert_eq!(shoe.cutting_card, Some(book.cutting_card()));
    assert_eq!(shoe.end_of_shoe, Some(book.end_of_shoe()));
    assert_eq!(shoe.shuffler, book.shuffler());
    let six = RuleBook::load("nz-baccarat;decks=6").unwrap();
    assert_eq!(six.shoe_book().composition.decks, 6);
}
