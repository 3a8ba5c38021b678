//! The `expect:` lines of the outputs every game shares (irregularities, shoe summaries, cleared
//! device errors), written once in each game's words; a game writes only its round's line.

use pitwatch_rules::{
    DeviceErrorCleared, Irregularity, IrregularityCode, ShoeSummary, TableOutput,
};

/// One output as the runner sees it: a game's round, already summarised by the game, or one of
/// the tracker's outputs, which the runner summarises the same way for every game.
#[derive(Debug)]
pub enum Line<'a> {
    /// A round (a poker hand), in the game's own summary.
    Round(String),
    /// An irregularity.
    Irregularity(&'a Irregularity),
    /// The end of a shoe (a poker deck).
    Shoe(&'a ShoeSummary),
    /// A device error the device cleared.
    Cleared(&'a DeviceErrorCleared),
}

impl<'a> Line<'a> {
    /// The line of a tracker's output, with `round` summarising the game's round.
    pub fn of<R>(output: &'a TableOutput<R>, round: impl FnOnce(&R) -> String) -> Line<'a> {
        match output {
            TableOutput::Round(r) => Line::Round(round(r)),
            TableOutput::Irregularity(i) => Line::Irregularity(i),
            TableOutput::Shoe(s) => Line::Shoe(s),
            TableOutput::DeviceErrorCleared(c) => Line::Cleared(c),
        }
    }
}

/// The end of every game's round line: the `seq` span of its events, and whether it is
/// incomplete (` seq 4-19`, ` seq 4-9 incomplete`).
pub fn seq_span(first_seq: u64, last_seq: u64, complete: bool) -> String {
    let incomplete = if complete { "" } else { " incomplete" };
    format!(" seq {first_seq}-{last_seq}{incomplete}")
}

/// How a game words the lines every game shares. The fixtures were written game by game, and
/// their expected lines are the record of what each engine did, so the wording differences stay
/// as they were rather than every fixture being rewritten.
#[derive(Debug, Clone, Copy)]
pub struct Wording {
    /// What the game calls a shoe: `shoe`, or poker's `deck` (everything between two shuffles).
    pub shoe: &'static str,
    /// What the game calls a round: `round`, or poker's `hand`.
    pub round: &'static str,
    /// Whether an irregularity's line names its shoe; poker's names only the hand.
    pub irregularity_shoe: bool,
    /// Whether an irregularity's line lists the other codes folded into the same incident
    /// (`(also …)`); poker's does.
    pub also: bool,
}

impl Wording {
    /// A shoe of rounds, each irregularity naming its shoe and round, and only its own code.
    pub const ROUNDS: Wording = Wording {
        shoe: "shoe",
        round: "round",
        irregularity_shoe: true,
        also: false,
    };

    /// The `expect:` line of one output.
    pub fn line(&self, line: &Line<'_>) -> String {
        match line {
            Line::Round(s) => s.clone(),
            Line::Irregularity(i) => self.irregularity(i),
            Line::Shoe(s) => self.shoe(s),
            Line::Cleared(c) => format!("cleared {} raised {} seq {}", c.code, c.raised_seq, c.seq),
        }
    }

    fn irregularity(&self, i: &Irregularity) -> String {
        let mut also: Vec<&str> = IrregularityCode::ALL
            .iter()
            .filter(|c| self.also && i.also.contains(**c))
            .map(|c| c.as_str())
            .collect();
        // Sorted by name, so a line does not change when the codes are reordered.
        also.sort_unstable();
        format!(
            "irregularity {}{}{} {} {} seq {} rule {:?}",
            i.code,
            if also.is_empty() {
                String::new()
            } else {
                format!(" (also {})", also.join(" "))
            },
            if self.irregularity_shoe {
                format!(" {} {}", self.shoe, i.shoe)
            } else {
                String::new()
            },
            self.round,
            i.round.map_or("-".into(), |r| r.to_string()),
            i.seq,
            i.rule
        )
    }

    fn shoe(&self, s: &ShoeSummary) -> String {
        // `continuous` for every game: a game without a continuous shuffler never says it.
        format!(
            "{} {} {}s {} cards {}{}{}",
            self.shoe,
            s.shoe,
            self.round,
            s.rounds,
            s.cards,
            if s.partial { " partial" } else { "" },
            if s.continuous { " continuous" } else { "" }
        )
    }
}
