//! The seed pages every game's rule texts are quoted from (`tests/fixtures/seeds/` in each game's
//! crate, copies of the Gazette's pages): a book's texts are checked against them word for word,
//! white space aside, since a line break in the source is not part of the rule.

use std::fs;
use std::path::Path;

/// `text` with its white space made single spaces.
pub fn words(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Every seed page of a game crate (`crate_dir` its `CARGO_MANIFEST_DIR`), in name order, each
/// in [`words`], one a line. Panics unless there are exactly `count`, so a lost page does not
/// leave texts unchecked.
pub fn seed_pages(crate_dir: &str, count: usize) -> String {
    let dir = Path::new(crate_dir).join("tests/fixtures/seeds");
    let mut paths: Vec<_> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    paths.sort();
    assert_eq!(
        paths.len(),
        count,
        "seed pages missing from {}",
        dir.display()
    );
    paths
        .iter()
        .map(|p| words(&fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))))
        .collect::<Vec<_>>()
        .join("\n")
}
