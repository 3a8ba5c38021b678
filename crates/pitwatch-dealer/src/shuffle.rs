//! How the simulated dealer shuffles: the next shoe is made from the previous shoe's stack (the
//! cards in the order they were in the shoe, dealt ones first) put through a shuffle model, so a
//! slug or a weak shuffle really leaves the previous order in the next shoe for an analyser to
//! find.
//!
//! Models (`pitwatch sim --shuffle MODEL`):
//!
//! - `random`: a uniformly random order (Fisher–Yates), the honest automatic shuffler. It does
//!   not look at the previous order, and draws exactly what the dealer always drew, so seeds give
//!   the same shoes as before shuffle models existed.
//! - `riffle:K`: K riffle shuffles of the whole stack by the Gilbert–Shannon–Reeds model (cut at
//!   a Binomial(n, ½) point; cards drop from each half with probability proportional to its
//!   size). `wash+riffle:K` washes first (a chemmy: the stack broken into clumps of mean 3 cards,
//!   the clumps put in a random order), then riffles.
//! - `slug:M`: a block of M consecutive cards of the previous shoe's *dealt* part kept in order
//!   (the cheat: the block whose order confederates wrote down), the rest shuffled uniformly, the
//!   block put back at a random place.
//! - `none`: no shuffle; the stack goes back as it was (the cut still turns it).

use std::fmt;
use std::str::FromStr;

use pitwatch_model::Card;
use rand::seq::SliceRandom;
use rand::Rng;

/// A way of shuffling the previous shoe's stack into the next shoe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ShuffleModel {
    /// Uniformly random (the default).
    #[default]
    Random,
    /// `times` Gilbert–Shannon–Reeds riffles, after a wash when `wash`.
    Riffle {
        /// How many riffles.
        times: u32,
        /// Whether the stack is washed (chemmy) first.
        wash: bool,
    },
    /// A block of `cards` dealt cards kept in order, the rest shuffled.
    Slug {
        /// Cards in the block.
        cards: u32,
    },
    /// No shuffle.
    None,
}

impl ShuffleModel {
    /// The next shoe's stack from the previous one: `stack` is the previous shoe in the order it
    /// was in the shoe (after the cut), of which the first `dealt` cards were dealt.
    pub fn apply<R: Rng>(self, stack: &[Card], dealt: usize, rng: &mut R) -> Vec<Card> {
        let mut cards = stack.to_vec();
        match self {
            ShuffleModel::Random => {
                // The order the dealer always started from, so a seed deals what it always did.
                cards.sort_by_key(|c| c.index());
                cards.shuffle(rng);
            }
            ShuffleModel::Riffle { times, wash } => {
                if wash {
                    cards = wash_clumps(&cards, rng);
                }
                for _ in 0..times {
                    cards = riffle(&cards, rng);
                }
            }
            ShuffleModel::Slug { cards: m } => {
                let m = (m as usize).min(cards.len());
                let dealt = dealt.clamp(m, cards.len());
                let start = rng.gen_range(0..=dealt - m);
                let block: Vec<Card> = cards.drain(start..start + m).collect();
                cards.shuffle(rng);
                let at = rng.gen_range(0..=cards.len());
                cards.splice(at..at, block);
            }
            ShuffleModel::None => {}
        }
        cards
    }
}

/// One Gilbert–Shannon–Reeds riffle.
fn riffle<R: Rng>(cards: &[Card], rng: &mut R) -> Vec<Card> {
    let n = cards.len();
    let cut = (0..n).filter(|_| rng.gen_bool(0.5)).count();
    let (mut left, mut right) = (&cards[..cut], &cards[cut..]);
    let mut out = Vec::with_capacity(n);
    while !left.is_empty() || !right.is_empty() {
        let from_left = rng.gen_range(0..left.len() + right.len()) < left.len();
        if from_left {
            out.push(left[0]);
            left = &left[1..];
        } else {
            out.push(right[0]);
            right = &right[1..];
        }
    }
    out
}

/// A chemmy wash: the stack falls apart into clumps (a break after each card with chance 1/3, so
/// clumps of 3 cards on average) that are put together in a random order.
fn wash_clumps<R: Rng>(cards: &[Card], rng: &mut R) -> Vec<Card> {
    let mut clumps: Vec<&[Card]> = Vec::new();
    let mut start = 0;
    for i in 1..=cards.len() {
        if i == cards.len() || rng.gen_range(0..3) == 0 {
            clumps.push(&cards[start..i]);
            start = i;
        }
    }
    clumps.shuffle(rng);
    clumps.concat()
}

impl fmt::Display for ShuffleModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShuffleModel::Random => f.write_str("random"),
            ShuffleModel::Riffle { times, wash: false } => write!(f, "riffle:{times}"),
            ShuffleModel::Riffle { times, wash: true } => write!(f, "wash+riffle:{times}"),
            ShuffleModel::Slug { cards } => write!(f, "slug:{cards}"),
            ShuffleModel::None => f.write_str("none"),
        }
    }
}

impl FromStr for ShuffleModel {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let expected = "expected random, riffle:K, wash+riffle:K, slug:M or none";
        let number = |n: &str, what: &str| {
            n.parse::<u32>()
                .ok()
                .filter(|n| *n > 0)
                .ok_or_else(|| format!("{s:?}: {what} must be a positive whole number"))
        };
        match s.split_once(':') {
            None if s == "random" => Ok(ShuffleModel::Random),
            None if s == "none" => Ok(ShuffleModel::None),
            Some(("riffle", k)) => Ok(ShuffleModel::Riffle {
                times: number(k, "the number of riffles")?,
                wash: false,
            }),
            Some(("wash+riffle", k)) => Ok(ShuffleModel::Riffle {
                times: number(k, "the number of riffles")?,
                wash: true,
            }),
            Some(("slug", m)) => Ok(ShuffleModel::Slug {
                cards: number(m, "the slug's size")?,
            }),
            _ => Err(format!("unknown shuffle {s:?} ({expected})")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn stack() -> Vec<Card> {
        (0..416)
            .map(|i| Card::from_index(i % 52).unwrap())
            .collect()
    }

    fn sorted(mut cards: Vec<Card>) -> Vec<Card> {
        cards.sort_by_key(|c| c.index());
        cards
    }

    #[test]
    fn every_model_keeps_the_cards_and_only_reorders_them() {
        for model in [
            "random",
            "riffle:1",
            "riffle:7",
            "wash+riffle:2",
            "slug:20",
            "none",
        ] {
            let model: ShuffleModel = model.parse().unwrap();
            let mut rng = ChaCha8Rng::seed_from_u64(7);
            let next = model.apply(&stack(), 350, &mut rng);
            assert_eq!(sorted(next), sorted(stack()), "{model}");
        }
    }

    #[test]
    fn a_slug_keeps_its_block_of_dealt_cards_in_order() {
        let stack: Vec<Card> = (0..104)
            .map(|i| Card::from_index(i % 52).unwrap())
            .collect();
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let next = ShuffleModel::Slug { cards: 10 }.apply(&stack, 52, &mut rng);
        // Some window of 10 in `next` equals a window of the first 52 (dealt) cards of the stack.
        let found = next
            .windows(10)
            .any(|w| stack[..52].windows(10).any(|d| d == w));
        assert!(found);
    }

    #[test]
    fn one_riffle_keeps_two_rising_sequences() {
        let stack: Vec<Card> = (0..52).map(|i| Card::from_index(i).unwrap()).collect();
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let next = riffle(&stack, &mut rng);
        // Each card's successor in the original is later in the output except at most once:
        // a riffle is an interleaving of two increasing runs.
        let position: Vec<usize> = {
            let mut p = vec![0; 52];
            for (at, c) in next.iter().enumerate() {
                p[c.index()] = at;
            }
            p
        };
        let descents = (0..51).filter(|&i| position[i + 1] < position[i]).count();
        assert!(descents <= 1, "{descents}");
    }

    #[test]
    fn models_parse_and_print_back() {
        for text in ["random", "riffle:3", "wash+riffle:4", "slug:20", "none"] {
            let model: ShuffleModel = text.parse().unwrap();
            assert_eq!(model.to_string(), text);
        }
        for bad in ["riffle", "riffle:0", "slug:x", "shuffle", "slug:-1"] {
            assert!(bad.parse::<ShuffleModel>().is_err(), "{bad}");
        }
    }
}
