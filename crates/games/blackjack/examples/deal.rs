//! Prints a simulated Blackjack or Pontoon stream as JSON Lines, then the engine's outputs:
//! `cargo run -p pitwatch-blackjack --example deal -- nz-pontoon SEED [plain]`.

use pitwatch_blackjack::dealer::{deal, Config};
use pitwatch_blackjack::{replay, Book};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let book = Book::builtin(args.first().map_or("nz-blackjack", String::as_str))
        .expect("a built-in book");
    let seed = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(1);
    let terse = args.get(2).is_some_and(|a| a == "terse");
    let config = Config {
        seed,
        shoes: 2,
        declare_boxes: !terse,
        report_stands: !terse,
        ..Config::default()
    };
    let dealt = deal(&book, &config);
    for event in &dealt.events {
        println!("{}", event.to_json_line());
    }
    for output in replay(&book, &dealt.events) {
        println!(
            "{}",
            serde_json::to_string(&output).expect("outputs serialise")
        );
    }
}
