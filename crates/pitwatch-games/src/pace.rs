//! The pace of a table (issue 30), from the record alone: every round timed and every change of
//! shoe, for any game, from the events' times and the rounds the engine closed.
//!
//! A round is timed in four parts:
//!
//! - **bets closed → first card**: from the last "no more bets" before the round's first card;
//! - **the deal**: from the round's first card to its last;
//! - **the reveal**: from its last card to its end: the result the device declared (before the
//!   next round's first card), or, where it declares none, the event on which the engine closed
//!   the round (for Baccarat its last card: the reveal is then not seen, and counts in the gap);
//! - **the gap before it**: from the round before's close to this round's first card.
//!
//! A shoe change is timed from the shoe before's last card, through the shuffle, to the new
//! shoe's first card (its downtime). A part whose events carry no time is not given.
//!
//! Rounds per hour count only the time the table was dealing: the rounds' own time and the gaps
//! between them, but no gap longer than a break (the table closed, or the dealer away), and no
//! shoe change. Its figures come from the record alone, so a replayed record gives the same.

use std::collections::BTreeMap;

use pitwatch_model::{EventKind, TableEvent, Timestamp};
use pitwatch_rules::TableOutput;
use serde::Serialize;

use crate::GameOutput;

/// One round, timed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RoundPace {
    /// The shoe, 1-based.
    pub shoe: u32,
    /// The round within the shoe, 1-based.
    pub round: u32,
    /// When its first card was dealt.
    pub first_card_at: Option<Timestamp>,
    /// When it closed.
    pub closed_at: Option<Timestamp>,
    /// Milliseconds from "no more bets" to the first card (none seen: `None`).
    pub bets_closed_to_first_card_ms: Option<i64>,
    /// Milliseconds from the first card to the last.
    pub deal_ms: Option<i64>,
    /// Milliseconds from the last card to the round's close.
    pub reveal_ms: Option<i64>,
    /// Milliseconds from the round before's close to this round's first card (`None` for a
    /// shoe's first round).
    pub gap_before_ms: Option<i64>,
}

impl RoundPace {
    /// Milliseconds from the first card to the close.
    pub fn duration_ms(&self) -> Option<i64> {
        Some(self.closed_at?.unix_millis() - self.first_card_at?.unix_millis())
    }
}

/// A change of shoe, timed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ShoeChange {
    /// The new shoe.
    pub shoe: u32,
    /// The shoe before's last card.
    pub last_card_at: Option<Timestamp>,
    /// The shuffle reported, if the device reports one.
    pub shuffled_at: Option<Timestamp>,
    /// The new shoe's first card.
    pub first_card_at: Option<Timestamp>,
}

impl ShoeChange {
    /// Milliseconds from the shoe before's last card to the new shoe's first.
    pub fn downtime_ms(&self) -> Option<i64> {
        Some(self.first_card_at?.unix_millis() - self.last_card_at?.unix_millis())
    }
}

/// A table's pace over the steps given.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Pace {
    /// Every round closed, in order.
    pub rounds: Vec<RoundPace>,
    /// Every change of shoe after the first shoe, in order.
    pub shoes: Vec<ShoeChange>,
    /// Irregularities raised, by code (a device's own errors included).
    pub irregularities: BTreeMap<String, u32>,
}

/// The default break: a gap between rounds longer than this is the table not dealing (five
/// minutes).
pub const BREAK_AFTER_MS: i64 = 5 * 60 * 1000;

impl Pace {
    /// The pace of the steps (each event with what the table's engine output on it), in order.
    pub fn of<'a>(steps: impl IntoIterator<Item = (&'a TableEvent, &'a [GameOutput])>) -> Pace {
        let mut at_of: BTreeMap<u64, Option<Timestamp>> = BTreeMap::new();
        let mut bets_closed: Vec<(u64, Option<Timestamp>)> = Vec::new();
        let mut shuffles: Vec<(u64, Option<Timestamp>)> = Vec::new();
        let mut results: Vec<(u64, Option<Timestamp>)> = Vec::new();
        let mut irregularities = BTreeMap::new();
        let mut closed: Vec<(crate::GameRound, u64, Option<Timestamp>)> = Vec::new();
        for (event, outputs) in steps {
            at_of.insert(event.seq, event.at);
            match event.kind {
                EventKind::BetsClosed => bets_closed.push((event.seq, event.at)),
                EventKind::Shuffled { .. } => shuffles.push((event.seq, event.at)),
                EventKind::ResultDeclared { .. } => results.push((event.seq, event.at)),
                _ => {}
            }
            for output in outputs {
                match output {
                    TableOutput::Round(done) => closed.push((done.clone(), event.seq, event.at)),
                    TableOutput::Irregularity(found) => {
                        *irregularities.entry(found.code.to_string()).or_insert(0) += 1;
                    }
                    _ => {}
                }
            }
        }
        let at = |seq: u64| at_of.get(&seq).copied().flatten();
        let ms = |from: Option<Timestamp>, to: Option<Timestamp>| {
            Some(to?.unix_millis() - from?.unix_millis())
        };
        let mut pace = Pace {
            irregularities,
            ..Pace::default()
        };
        // The round before: its shoe, the event that closed it, when, and its last card's time.
        let mut before: Option<(u32, u64, Option<Timestamp>, Option<Timestamp>)> = None;
        let next_firsts: Vec<u64> = closed
            .iter()
            .skip(1)
            .map(|(done, _, _)| done.first_seq())
            .chain([u64::MAX])
            .collect();
        for ((done, close_seq, engine_close_at), next_first) in closed.into_iter().zip(next_firsts)
        {
            let (first, last) = (done.first_seq(), done.last_seq());
            // The round ends at its declared result, when the device declares one before the
            // next round's first card; else when the engine closed it.
            let declared = results
                .iter()
                .find(|(seq, _)| *seq > last && *seq < next_first)
                .copied();
            let (close_seq, close_at) = match declared {
                Some((seq, at)) => (seq.max(close_seq), at),
                None => (close_seq, engine_close_at),
            };
            let first_card_at = at(first);
            let after = before.map_or(0, |(_, seq, _, _)| seq);
            let bets = bets_closed
                .iter()
                .rev()
                .find(|(seq, _)| *seq < first && *seq > after)
                .and_then(|(_, at)| *at);
            let same_shoe = before.is_some_and(|(shoe, _, _, _)| shoe == done.shoe());
            if let Some((_, _, _, last_card_at)) = before.filter(|_| !same_shoe) {
                pace.shoes.push(ShoeChange {
                    shoe: done.shoe(),
                    last_card_at,
                    shuffled_at: shuffles
                        .iter()
                        .rev()
                        .find(|(seq, _)| *seq < first && *seq > after)
                        .and_then(|(_, at)| *at),
                    first_card_at,
                });
            }
            pace.rounds.push(RoundPace {
                shoe: done.shoe(),
                round: done.round(),
                first_card_at,
                closed_at: close_at,
                bets_closed_to_first_card_ms: ms(bets, first_card_at),
                deal_ms: ms(first_card_at, at(last)),
                reveal_ms: ms(at(last), close_at),
                gap_before_ms: if same_shoe {
                    ms(before.and_then(|(_, _, at, _)| at), first_card_at)
                } else {
                    None
                },
            });
            before = Some((done.shoe(), close_seq, close_at, at(last)));
        }
        pace
    }

    /// Irregularities per 100 rounds (`None` with no round).
    pub fn errors_per_100_rounds(&self) -> Option<f64> {
        let errors: u32 = self.irregularities.values().sum();
        (!self.rounds.is_empty()).then(|| f64::from(errors) * 100.0 / self.rounds.len() as f64)
    }

    /// Rounds per hour of dealing: the rounds, over their own time and the gaps between them
    /// up to `break_after_ms` each (a longer gap, or a change of shoe, is not dealing time).
    /// `None` when no round is timed.
    pub fn rounds_per_hour(&self, break_after_ms: i64) -> Option<f64> {
        let mut dealing_ms = 0i64;
        let mut timed = 0u32;
        for round in &self.rounds {
            let Some(duration) = round.duration_ms() else {
                continue;
            };
            timed += 1;
            dealing_ms += duration.max(0);
            if let Some(gap) = round
                .gap_before_ms
                .filter(|g| (0..=break_after_ms).contains(g))
            {
                dealing_ms += gap;
            }
        }
        (timed > 0 && dealing_ms > 0).then(|| f64::from(timed) * 3_600_000.0 / dealing_ms as f64)
    }
}

/// Where a shoe came from, as its record says (issue 30's shoe provenance): the shuffle and the
/// shuffler's deck check, the cut and the cutting card, and how long the shoe took to reach its
/// first card. Who shuffled, cut and loaded it is not here yet: dealers are not signed in on the
/// record.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Provenance {
    /// When the shuffle was reported.
    pub shuffled_at: Option<Timestamp>,
    /// Decks in the shuffled set, as the shuffle said.
    pub decks: Option<u8>,
    /// What shuffled them (`batch`, `continuous`, `hand`), as the shuffle said.
    pub shuffler: Option<String>,
    /// The shuffler's last deck check before the shoe's first card: cards counted, expected,
    /// missing, extra and foreign.
    pub deck_check: Option<DeckCheck>,
    /// Cards in front of the player's cut, where recorded.
    pub cut_position: Option<u32>,
    /// Cards behind the cutting card when it was placed, where recorded.
    pub cutting_card_from_back: Option<u32>,
    /// Cards drawn before the cutting card came out, if it did.
    pub cutting_card_out_after: Option<u32>,
    /// The shoe's first card.
    pub first_card_at: Option<Timestamp>,
    /// Cards drawn from the shoe.
    pub cards_drawn: u32,
}

/// A shuffler's deck check, as recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct DeckCheck {
    /// Cards counted.
    pub cards: u32,
    /// Cards expected for the decks loaded.
    pub expected: u32,
    /// Cards of those decks not found.
    pub missing: u32,
    /// Cards found more often than the decks hold.
    pub extra: u32,
    /// Cards that belong to none of the decks.
    pub foreign: u32,
}

impl DeckCheck {
    /// Whether the check found the decks whole.
    pub fn whole(&self) -> bool {
        self.missing == 0 && self.extra == 0 && self.foreign == 0 && self.cards == self.expected
    }
}

impl Provenance {
    /// The provenance of one shoe from its events, in order (the shoe's steps as replay gives
    /// them: from its shuffle, or its first event, to its last).
    pub fn of<'a>(events: impl IntoIterator<Item = &'a TableEvent>) -> Provenance {
        let mut provenance = Provenance::default();
        for event in events {
            let before_first = provenance.first_card_at.is_none() && provenance.cards_drawn == 0;
            match &event.kind {
                EventKind::Shuffled {
                    decks, shuffler, ..
                } if before_first => {
                    provenance.shuffled_at = event.at;
                    provenance.decks = *decks;
                    provenance.shuffler = shuffler.map(|s| s.to_string());
                }
                EventKind::DeckChecked {
                    cards,
                    expected,
                    missing,
                    extra,
                    foreign,
                    ..
                } if before_first => {
                    provenance.deck_check = Some(DeckCheck {
                        cards: *cards,
                        expected: *expected,
                        missing: *missing,
                        extra: *extra,
                        foreign: *foreign,
                    });
                }
                EventKind::Cut { position } => provenance.cut_position = Some(*position),
                EventKind::CuttingCardPlaced { from_back } => {
                    provenance.cutting_card_from_back = Some(*from_back);
                }
                EventKind::CuttingCardDrawn => {
                    provenance
                        .cutting_card_out_after
                        .get_or_insert(provenance.cards_drawn);
                }
                EventKind::CardDrawn { .. } => {
                    if provenance.cards_drawn == 0 {
                        provenance.first_card_at = event.at;
                    }
                    provenance.cards_drawn += 1;
                }
                _ => {}
            }
        }
        provenance
    }

    /// Milliseconds from the shuffle to the shoe's first card.
    pub fn shuffle_to_first_card_ms(&self) -> Option<i64> {
        Some(self.first_card_at?.unix_millis() - self.shuffled_at?.unix_millis())
    }
}

#[cfg(test)]
mod tests;
