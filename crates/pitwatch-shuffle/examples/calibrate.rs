//! Calibration and detection power by simulation: deals shoe after shoe with the honest-dealer
//! simulator under each shuffle model (each shoe made from the previous one's stack), analyses
//! every shoe against the shoes before it with the default settings (or `--alarm P`), and prints
//! a Markdown table: model × share of shoes `suspect`, `weak`, and the median riffle estimate.
//! With `random`, the suspect share is the false-alarm rate; it also prints how many honest shoes
//! fall at or below each of several p-value thresholds.
//!
//! ```text
//! cargo run --release -p pitwatch-shuffle --example calibrate -- [--shoes N] [--honest N] [--seed S] [--decks D]
//! ```

use pitwatch_baccarat::RuleBook;
use pitwatch_dealer::{deal_with, DealerConfig, ShuffleModel, Shuffling};
use pitwatch_model::Card;
use pitwatch_shuffle::{analyse, longest_common_block, Settings, Verdict};

/// A shoe's order (the dealt cards) and its whole stack (the undealt cards too).
type Dealt = (Vec<Option<Card>>, Vec<Option<Card>>);

/// The orders of `count` consecutive shoes under `model`, each from the one before.
struct Shoes {
    book: RuleBook,
    model: ShuffleModel,
    seed: u64,
    chunk: u64,
    previous: Option<(Vec<Card>, usize)>,
}

impl Shoes {
    /// The next chunk of shoes: each one's order (the dealt cards, burn included, in order) and
    /// its whole stack (undealt cards too).
    fn next_chunk(&mut self, shoes: u32) -> Vec<Dealt> {
        let config = DealerConfig {
            shoes,
            ..DealerConfig::angel_eye()
        };
        self.chunk += 1;
        let session = deal_with(
            &self.book.shoe_book(),
            &config,
            &[],
            self.seed.wrapping_mul(1_000_003).wrapping_add(self.chunk),
            Shuffling {
                model: self.model,
                previous: self.previous.as_ref().map(|(s, d)| (s.as_slice(), *d)),
            },
        );
        let last = session.stacks.len() - 1;
        self.previous = Some((
            session.stacks[last].clone(),
            session.cards_per_shoe[last] as usize,
        ));
        session
            .stacks
            .iter()
            .zip(&session.cards_per_shoe)
            .map(|(stack, dealt)| {
                (
                    stack[..*dealt as usize].iter().copied().map(Some).collect(),
                    stack.iter().copied().map(Some).collect(),
                )
            })
            .collect()
    }
}

struct Tally {
    shoes: u32,
    suspect: u32,
    weak: u32,
    riffles: Vec<u32>,
    p_values: Vec<f64>,
    longest: Vec<u32>,
    /// Shoes not suspect whose kept block (found in the whole stack) was not dealt, or not 6 of
    /// its cards: behind the cutting card.
    missed_undealt: u32,
}

fn run(book: &RuleBook, model: ShuffleModel, shoes: u32, seed: u64, settings: &Settings) -> Tally {
    let mut source = Shoes {
        book: book.clone(),
        model,
        seed,
        chunk: 0,
        previous: None,
    };
    // A first shoe of new cards, then the model from there on.
    let mut history: Vec<Vec<Option<Card>>> =
        source.next_chunk(1).into_iter().map(|(o, _)| o).collect();
    let mut tally = Tally {
        shoes: 0,
        suspect: 0,
        weak: 0,
        riffles: Vec::new(),
        p_values: Vec::new(),
        longest: Vec::new(),
        missed_undealt: 0,
    };
    let keep = settings.previous_shoes as usize;
    while tally.shoes < shoes {
        let batch = (shoes - tally.shoes).min(50);
        for (shoe, stack) in source.next_chunk(batch) {
            let previous: Vec<&[Option<Card>]> =
                history.iter().rev().take(keep).map(Vec::as_slice).collect();
            let analysis = analyse(&shoe, &previous, book.composition(), settings);
            tally.shoes += 1;
            match analysis.verdict {
                Verdict::Suspect => tally.suspect += 1,
                Verdict::Weak => tally.weak += 1,
                _ => {}
            }
            if analysis.verdict != Verdict::WellMixed {
                if let Some(k) = analysis.riffles {
                    tally.riffles.push(k);
                }
            }
            if analysis.verdict == Verdict::Suspect && std::env::var_os("SHOW_SUSPECT").is_some() {
                eprintln!(
                    "{model}: run {} (p {:e}), pairs {} of {:.1} expected (p {:e})",
                    analysis.longest_preserved_run,
                    analysis.p_run,
                    analysis.preserved_pairs,
                    analysis.expected_pairs,
                    analysis.p_pairs
                );
            }
            if let (ShuffleModel::Slug { cards }, false) =
                (model, analysis.verdict == Verdict::Suspect)
            {
                // Where the kept block is in the whole stack: dealt, or behind the cutting card.
                let previous = history.last().expect("a shoe before");
                if let Some((len, at, _)) = longest_common_block(&stack, previous) {
                    if len >= (cards as usize).min(6) && at + 6 > shoe.len() {
                        tally.missed_undealt += 1;
                    }
                }
            }
            tally.p_values.push(analysis.p_value);
            tally.longest.push(analysis.longest_preserved_run);
            history.push(shoe);
            if history.len() > keep {
                history.remove(0);
            }
        }
    }
    tally
}

fn median(values: &mut [u32]) -> Option<u32> {
    values.sort_unstable();
    values.get(values.len() / 2).copied()
}

fn main() {
    let mut shoes = 1_000u32;
    let mut honest = 20_000u32;
    let mut seed = 1u64;
    let mut decks = 8u8;
    let mut settings = Settings::default();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().expect("a value after the option");
        match arg.as_str() {
            "--shoes" => shoes = value().parse().expect("--shoes N"),
            "--honest" => honest = value().parse().expect("--honest N"),
            "--seed" => seed = value().parse().expect("--seed S"),
            "--decks" => decks = value().parse().expect("--decks D"),
            "--alarm" => settings.alarm_p_value = value().parse().expect("--alarm P"),
            other => panic!("unknown option {other}"),
        }
    }
    let book = RuleBook::nz_baccarat()
        .with_decks(decks)
        .expect("a deck count the book allows");

    println!(
        "settings: alarm p ≤ {}, weak p ≤ {}, previous shoes {}; {decks} decks; seed {seed}\n",
        settings.alarm_p_value, settings.weak_p_value, settings.previous_shoes
    );
    let tally = run(&book, ShuffleModel::Random, honest, seed, &settings);
    println!("honest (random) shoes: {}", tally.shoes);
    for alpha in [1e-1, 1e-2, 1e-3, 1e-4] {
        let at_or_below = tally.p_values.iter().filter(|p| **p <= alpha).count();
        println!(
            "  p ≤ {alpha:e}: {at_or_below} ({:.5} of shoes)",
            at_or_below as f64 / f64::from(tally.shoes)
        );
    }
    let mut longest = tally.longest.clone();
    longest.sort_unstable();
    println!(
        "  longest preserved run: median {}, max {}",
        longest[longest.len() / 2],
        longest[longest.len() - 1]
    );
    println!();
    println!(
        "| model | shoes | suspect | weak | median riffle estimate | missed, block behind the cutting card |"
    );
    println!("|---|---:|---:|---:|---:|---:|");
    let row = |name: &str, t: &mut Tally| {
        let n = f64::from(t.shoes);
        println!(
            "| {name} | {} | {:.2}% | {:.2}% | {} | {} |",
            t.shoes,
            100.0 * f64::from(t.suspect) / n,
            100.0 * f64::from(t.weak) / n,
            median(&mut t.riffles).map_or("–".into(), |k| k.to_string()),
            if t.missed_undealt > 0 {
                format!("{:.2}%", 100.0 * f64::from(t.missed_undealt) / n)
            } else {
                "–".into()
            }
        );
    };
    let mut honest_tally = tally;
    row("random", &mut honest_tally);
    let mut models: Vec<ShuffleModel> = vec![ShuffleModel::None];
    models.extend([3, 4, 5, 6, 8, 10, 15, 20].map(|cards| ShuffleModel::Slug { cards }));
    models.extend((1..=12).map(|times| ShuffleModel::Riffle { times, wash: false }));
    models.extend((1..=4).map(|times| ShuffleModel::Riffle { times, wash: true }));
    for (i, model) in models.into_iter().enumerate() {
        let mut t = run(
            &book,
            model,
            shoes,
            seed.wrapping_add(1 + i as u64),
            &settings,
        );
        row(&model.to_string(), &mut t);
    }
}
