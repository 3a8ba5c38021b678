//! The carry property every game keeps: an engine resumed with what was carried into a shoe, fed
//! from that shoe's first event, reaches the same state as the engine that followed the whole
//! stream, so every later step gives the same outputs and the same view (one shoe's replay and a
//! restarted recorder need not run the shoes before it). Each game's `tests/it/carry.rs` feeds
//! it its own streams through [`Resumable`].

use std::fmt::Debug;

use pitwatch_model::{EventKind, TableEvent};
use pitwatch_rules::Game;
use serde::de::DeserializeOwned;
use serde::Serialize;

/// What the property needs of a game's engine beyond [`Game`]: starting, resuming and carrying.
pub trait Resumable {
    /// The game's rule book.
    type Book: Clone;
    /// The game's engine.
    type Engine: Game;
    /// What the engine carries into a shoe.
    type Carry: Clone + Serialize + DeserializeOwned;

    /// An engine before any event.
    fn new(book: Self::Book) -> Self::Engine;
    /// An engine resumed at a shoe's start with what was carried into it.
    fn resume(book: Self::Book, carry: Self::Carry) -> Self::Engine;
    /// The current shoe, 1-based, or 0 before any.
    fn shoe(engine: &Self::Engine) -> u32;
    /// What was carried into the current shoe.
    fn carry(engine: &Self::Engine) -> Self::Carry;
}

/// Where a resumed engine parted from the whole stream. An error, so a property test's `?` takes
/// it as the case's failure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch(pub String);

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Mismatch {}

type Output<R> = <<R as Resumable>::Engine as Game>::Output;
type View<R> = <<R as Resumable>::Engine as Game>::View;
type Steps<R> = Vec<(u64, Vec<Output<R>>, View<R>)>;

/// `kinds` numbered from `seq` 1.
pub fn numbered(kinds: impl IntoIterator<Item = EventKind>) -> Vec<TableEvent> {
    kinds
        .into_iter()
        .zip(1..)
        .map(|(kind, seq)| TableEvent::new(seq, kind))
        .collect()
}

/// Three shoes, each a `shuffle` and one `card`: a stream the property cannot pass vacuously.
pub fn three_shoes(shuffle: EventKind, card: EventKind) -> Vec<TableEvent> {
    numbered([
        shuffle.clone(),
        card.clone(),
        shuffle.clone(),
        card.clone(),
        shuffle,
        card,
    ])
}

/// Runs `engine` over `events[from..]`, interrupting before the event at each index in `cuts`
/// (past the end: after the last event), then finishes. Returns each step's outputs and view,
/// the outputs of `finish`, and, for every shoe started on the way, its first event's index and
/// the carry into it.
#[allow(clippy::type_complexity)] // The three results are only ever destructured at once.
fn run<R: Resumable>(
    mut engine: R::Engine,
    events: &[TableEvent],
    from: usize,
    cuts: &[usize],
) -> (Steps<R>, Vec<Output<R>>, Vec<(usize, R::Carry)>) {
    let mut steps = Vec::new();
    let mut starts = Vec::new();
    let mut shoe = R::shoe(&engine);
    for i in from..=events.len() {
        for _ in cuts.iter().filter(|&&c| c == i) {
            engine.interrupt();
        }
        let Some(event) = events.get(i) else { break };
        engine.handle_event(event);
        let outputs: Vec<_> = std::iter::from_fn(|| engine.poll_output()).collect();
        if R::shoe(&engine) != shoe {
            starts.push((i, R::carry(&engine)));
            shoe = R::shoe(&engine);
        }
        steps.push((event.seq, outputs, engine.view()));
    }
    engine.finish();
    let closing = std::iter::from_fn(|| engine.poll_output()).collect();
    (steps, closing, starts)
}

/// Resumes at every shoe start of `events` (interrupted before each index in `cuts`) and compares
/// with the whole stream; returns how many shoes were checked, or where they differ.
pub fn check<R>(book: &R::Book, events: &[TableEvent], cuts: &[usize]) -> Result<usize, Mismatch>
where
    R: Resumable,
    Output<R>: PartialEq + Debug,
    View<R>: PartialEq + Debug,
{
    resumes::<R>(book, events, cuts).map_err(Mismatch)
}

fn resumes<R>(book: &R::Book, events: &[TableEvent], cuts: &[usize]) -> Result<usize, String>
where
    R: Resumable,
    Output<R>: PartialEq + Debug,
    View<R>: PartialEq + Debug,
{
    let (whole, closing, starts) = run::<R>(R::new(book.clone()), events, 0, cuts);
    for (index, carry) in &starts {
        // The carry is stored as JSON between the recorder and replay.
        let json = serde_json::to_string(carry).map_err(|e| e.to_string())?;
        let carry: R::Carry = serde_json::from_str(&json).map_err(|e| format!("{json}: {e}"))?;
        let (steps, resumed_closing, _) =
            run::<R>(R::resume(book.clone(), carry), events, *index, cuts);
        let expected = &whole[*index..];
        if steps.len() != expected.len() {
            return Err(format!(
                "{} steps resumed at {index}, {} in the whole stream",
                steps.len(),
                expected.len()
            ));
        }
        // The first event's view is the same; its outputs may also close the shoe before.
        if steps[0].2 != expected[0].2 {
            return Err(format!(
                "view at the shoe's first event {index}:\n  resumed {:?}\n  whole   {:?}",
                steps[0].2, expected[0].2
            ));
        }
        if let Some((s, e)) = steps[1..].iter().zip(&expected[1..]).find(|(s, e)| s != e) {
            return Err(format!(
                "steps after the shoe's first event {index} differ at seq {}:\n  resumed {s:?}\n  whole   {e:?}",
                e.0
            ));
        }
        if resumed_closing != closing {
            return Err(format!(
                "finish resumed at {index}:\n  resumed {resumed_closing:?}\n  whole   {closing:?}"
            ));
        }
    }
    Ok(starts.len())
}

/// Declares `$name`, a [`Resumable`] for an engine with the inherent `new`, `resume`, `shoe` and
/// `shoe_carry` every game's engine has (a game's test crate cannot implement the trait for its
/// engine itself: neither is its own).
///
/// ```ignore
/// pitwatch_fixtures::resumable!(Poker: Book, Engine, Carry);
/// ```
#[macro_export]
macro_rules! resumable {
    ($(#[$meta:meta])* $name:ident: $book:ty, $engine:ty, $carry:ty) => {
        $(#[$meta])*
        struct $name;

        impl $crate::carry::Resumable for $name {
            type Book = $book;
            type Engine = $engine;
            type Carry = $carry;

            fn new(book: $book) -> $engine {
                <$engine>::new(book)
            }

            fn resume(book: $book, carry: $carry) -> $engine {
                <$engine>::resume(book, carry)
            }

            fn shoe(engine: &$engine) -> u32 {
                engine.shoe()
            }

            fn carry(engine: &$engine) -> $carry {
                engine.shoe_carry().clone()
            }
        }
    };
}
