//! Following a table's stream for shuffle integrity: [`ShuffleWatch`] collects each shoe's card
//! order from the events the rules engine sees and, when the next shoe starts, analyses the shoe
//! that ended against the table's previous shoes and raises `SHUFFLE_SUSPECT` when the book's
//! threshold is crossed.
//!
//! **A shoe's order** is every `card_drawn` of the table's stream (burn included; an unreadable
//! card as `None`) from the event at which the rules engine started the shoe up to, not including,
//! the event at which it started the next one. Those starts are what the recorder stores for each
//! shoe (the `shoes` table), so the same orders come from the live stream, from a replay of the
//! raw bytes and from the recorded events ([`orders_from_events`]): the record is the ground truth
//! and the analysis is derived from it.
//!
//! **When a shoe is judged.** When the next shoe starts (its shuffle, or its first card in a
//! stream that reports no shuffles): only then is the order known to be complete. A shoe whose
//! stream stopped in it (cut off) is judged when the table's next shoe starts, whenever that is;
//! until then [`ShuffleWatch::provisional`] gives the statistics of what was dealt so far, which a
//! view may show but which never raises an incident. `finish` judges the last shoe of a stream
//! that is known to be over (a file replayed to its end).

use std::collections::VecDeque;
use std::fmt::Write as _;

use pitwatch_model::{Card, EventKind, ShoeComposition, TableEvent};
use pitwatch_rules::{CodeSet, Irregularity, IrregularityCode, Severity, ShoeRules, ShuffleTerms};
use serde::Serialize;

use crate::{analyse, Analysis, Settings, Verdict};

/// One shoe's order: (`seq`, card) for each card drawn, in order.
pub type Order = Vec<(u64, Option<Card>)>;

/// The analysis of one shoe, and the irregularity it raises.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ShoeShuffle {
    /// The shoe (as the engine numbers it).
    pub shoe: u32,
    /// `seq` of the shoe's first card (0 when it drew none).
    pub first_seq: u64,
    /// `seq` of the shoe's last card (0 when it drew none).
    pub last_seq: u64,
    /// Whether the shoe is still being dealt (a provisional analysis).
    pub provisional: bool,
    /// The statistics and verdict.
    pub analysis: Analysis,
    /// `SHUFFLE_SUSPECT`, when the verdict is suspect and the shoe is complete.
    #[serde(skip)]
    pub irregularity: Option<Irregularity>,
}

impl ShoeShuffle {
    /// The statistics for a person: "longest preserved run 20 (cards 112–131, shoe 6 cards
    /// 40–59), p 1.20e-30; preserved pairs 74 of 55.1 expected, p 0.012; combined p 2.40e-30"
    /// ("not compared" when it was not).
    pub fn detail(&self) -> String {
        let a = &self.analysis;
        if a.verdict == Verdict::NotCompared {
            return "not compared".to_owned();
        }
        let place = a.run.as_ref().map_or(String::new(), |r| {
            format!(
                " (cards {}–{}, shoe {} cards {}–{})",
                r.position,
                r.position + r.length - 1,
                self.shoe.saturating_sub(r.shoes_back),
                r.previous_position,
                r.previous_position + r.length - 1
            )
        });
        format!(
            "longest preserved run {}{place}, p {}; preserved pairs {} of {:.1} expected, p {}; \
             combined p {}",
            a.longest_preserved_run,
            p(a.p_run),
            a.preserved_pairs,
            a.expected_pairs,
            p(a.p_pairs),
            p(a.p_value),
        )
    }
}

/// What the watch needs of the rule book, whatever the game: the book's
/// [`ShuffleTerms`] (its id, the rule it cites for `SHUFFLE_SUSPECT`, the default shoe and its
/// `[shuffle]` settings, whether its tables deal shoes to compare, whether it raises
/// `SHUFFLE_SUSPECT` at all), which every game's book gives in its own crate and the shared
/// table's [`ShoeRules`] give for the games on them.
#[derive(Debug, Clone)]
pub struct ShuffleBook {
    id: String,
    rule: String,
    composition: ShoeComposition,
    settings: Settings,
    enabled: bool,
    raises: bool,
}

impl From<ShuffleTerms> for ShuffleBook {
    fn from(terms: ShuffleTerms) -> ShuffleBook {
        let check = terms.check;
        ShuffleBook {
            id: terms.book_id,
            rule: if terms.rule.is_empty() {
                "no rule cited by this rule book".to_owned()
            } else {
                terms.rule
            },
            composition: terms.composition,
            settings: Settings {
                alarm_p_value: check.alarm_p_value,
                weak_p_value: check.weak_p_value,
                previous_shoes: check.previous_shoes,
            },
            enabled: terms.compared,
            raises: terms.raises,
        }
    }
}

impl From<&ShuffleTerms> for ShuffleBook {
    fn from(terms: &ShuffleTerms) -> ShuffleBook {
        terms.clone().into()
    }
}

impl From<&ShoeRules> for ShuffleBook {
    fn from(rules: &ShoeRules) -> ShuffleBook {
        ShuffleTerms::from(rules).into()
    }
}

/// Follows one table's stream; see the module documentation.
#[derive(Debug, Clone)]
pub struct ShuffleWatch {
    book: ShuffleBook,
    /// The shoe being dealt (0 before the first).
    shoe: u32,
    /// Cards of the shoe being dealt.
    cards: Order,
    /// Previous shoes' orders, the nearest first, at most `previous_shoes`.
    history: VecDeque<(u32, Order)>,
}

impl ShuffleWatch {
    /// A watch for a table dealt under `book` (any game's [`ShuffleTerms`], or the shared
    /// table's [`ShoeRules`]), with no history (the table's first shoe).
    pub fn new(book: impl Into<ShuffleBook>) -> ShuffleWatch {
        ShuffleWatch {
            book: book.into(),
            shoe: 0,
            cards: Vec::new(),
            history: VecDeque::new(),
        }
    }

    /// How many previous shoes the book compares with: what a resumed watch needs in
    /// [`ShuffleWatch::resume`].
    pub fn previous_shoes(&self) -> u32 {
        self.book.settings.previous_shoes
    }

    /// A watch resumed at the start of shoe `shoe` (the events from its start will be observed),
    /// with the orders of the shoes before it (`previous`: (shoe, order), any order, only the
    /// last `previous_shoes` before `shoe` kept).
    pub fn resume(
        book: impl Into<ShuffleBook>,
        shoe: u32,
        mut previous: Vec<(u32, Order)>,
    ) -> ShuffleWatch {
        let mut watch = ShuffleWatch::new(book);
        watch.shoe = shoe;
        previous.retain(|(s, _)| *s < shoe && *s > 0);
        previous.sort_by_key(|(s, _)| std::cmp::Reverse(*s));
        previous.truncate(watch.book.settings.previous_shoes as usize);
        watch.history = previous.into();
        watch
    }

    /// Takes an event of the table's stream (before the engine's shoe number for it is known).
    pub fn observe(&mut self, event: &TableEvent) {
        if let EventKind::CardDrawn { card, .. } = &event.kind {
            self.observe_card(event.seq, *card);
        }
    }

    /// Takes a card drawn at `seq` (an order read back from the record).
    pub fn observe_card(&mut self, seq: u64, card: Option<Card>) {
        self.cards.push((seq, card));
    }

    /// The engine started shoe `shoe` at the event `seq` (already observed): the shoe before it
    /// is complete and is judged. `None` for the stream's first shoe start (no shoe before), for
    /// a continuous shuffler, and for the shoe the watch is already in.
    pub fn shoe_started(&mut self, shoe: u32, seq: u64) -> Option<ShoeShuffle> {
        if shoe == self.shoe {
            // Already in it: a watch resumed at this shoe's start sees its first event again.
            return None;
        }
        let split = self.cards.partition_point(|(s, _)| *s < seq);
        let next: Order = self.cards.split_off(split);
        let ended = std::mem::replace(&mut self.cards, next);
        let finished = std::mem::replace(&mut self.shoe, shoe);
        self.close(finished, ended)
    }

    /// The stream is over (a file replayed to its end): judges the shoe being dealt.
    pub fn finish(&mut self) -> Option<ShoeShuffle> {
        let ended = std::mem::take(&mut self.cards);
        let finished = self.shoe;
        self.close(finished, ended)
    }

    /// The statistics of the shoe being dealt, as far as it has gone: never an irregularity.
    pub fn provisional(&self) -> Option<ShoeShuffle> {
        if self.shoe == 0 || !self.book.enabled {
            return None;
        }
        let mut judged = self.judge(self.shoe, &self.cards);
        judged.provisional = true;
        judged.irregularity = None;
        Some(judged)
    }

    fn close(&mut self, shoe: u32, order: Order) -> Option<ShoeShuffle> {
        if shoe == 0 || !self.book.enabled {
            return None;
        }
        let judged = self.judge(shoe, &order);
        self.history.push_front((shoe, order));
        self.history
            .truncate(self.book.settings.previous_shoes as usize);
        Some(judged)
    }

    /// Analyses `order` (shoe `shoe`) against the history.
    fn judge(&self, shoe: u32, order: &Order) -> ShoeShuffle {
        let current: Vec<Option<Card>> = order.iter().map(|(_, c)| *c).collect();
        let previous: Vec<Vec<Option<Card>>> = self
            .history
            .iter()
            .map(|(_, o)| o.iter().map(|(_, c)| *c).collect())
            .collect();
        let previous_refs: Vec<&[Option<Card>]> = previous.iter().map(Vec::as_slice).collect();
        let analysis = analyse(
            &current,
            &previous_refs,
            self.book.composition,
            &self.book.settings,
        );
        let irregularity = (self.book.raises && analysis.verdict == Verdict::Suspect)
            .then(|| self.irregularity(shoe, order, &analysis));
        ShoeShuffle {
            shoe,
            first_seq: order.first().map_or(0, |(s, _)| *s),
            last_seq: order.last().map_or(0, |(s, _)| *s),
            provisional: false,
            analysis,
            irregularity,
        }
    }

    fn irregularity(&self, shoe: u32, order: &Order, analysis: &Analysis) -> Irregularity {
        let mut evidence: Vec<u64> = Vec::new();
        let mut message = String::new();
        let settings = &self.book.settings;
        if let (Some(run), true) = (&analysis.run, analysis.p_run <= analysis.p_pairs) {
            let earlier = shoe.saturating_sub(run.shoes_back);
            let start = run.position as usize - 1;
            let prev_start = run.previous_position as usize - 1;
            let length = run.length as usize;
            evidence.extend(order[start..start + length].iter().map(|(s, _)| *s));
            if let Some((_, previous)) = self.history.get(run.shoes_back as usize - 1) {
                evidence.extend(
                    previous[prev_start..(prev_start + length).min(previous.len())]
                        .iter()
                        .map(|(s, _)| *s),
                );
            }
            let cards: Vec<String> = run.cards.iter().map(ToString::to_string).collect();
            let _ = write!(
                message,
                "Shoe {shoe} keeps a block of {length} cards in the order they were dealt in shoe \
                 {earlier}: cards {}–{} of this shoe were cards {}–{} of shoe {earlier} ({}). A \
                 shuffle that randomly intermixes the cards leaves a block this long with \
                 probability {}.",
                run.position,
                run.position + run.length - 1,
                run.previous_position,
                run.previous_position + run.length - 1,
                cards.join(" "),
                p(analysis.p_run),
            );
        } else {
            let last = order.last().map_or(0, |(s, _)| *s);
            evidence.push(last);
            let riffles = analysis.riffles.map_or(String::new(), |k| {
                format!(
                    ", about what {k} riffle{} without a wash would keep",
                    if k == 1 { "" } else { "s" }
                )
            });
            let _ = write!(
                message,
                "Shoe {shoe} keeps {} of its adjacent pairs of cards from the shoes before it \
                 ({:.1} expected after a shuffle that randomly intermixes the cards, \
                 probability {}){riffles}.",
                analysis.preserved_pairs,
                analysis.expected_pairs,
                p(analysis.p_pairs),
            );
        }
        let _ = write!(
            message,
            " Statistics: longest preserved run {} (p {}), preserved pairs {} of {:.1} expected \
             (p {}); combined p {} ≤ {} (the rule book's alarm). The shuffle may have been \
             false or too weak: review it; the cards must be shuffled so that they are randomly \
             intermixed.",
            analysis.longest_preserved_run,
            p(analysis.p_run),
            analysis.preserved_pairs,
            analysis.expected_pairs,
            p(analysis.p_pairs),
            p(analysis.p_value),
            p(settings.alarm_p_value),
        );
        evidence.sort_unstable();
        evidence.dedup();
        let seq = order.last().map_or(0, |(s, _)| *s);
        Irregularity {
            code: IrregularityCode::ShuffleSuspect,
            severity: Severity::High,
            rule: self.book.rule.clone(),
            rule_book: self.book.id.clone(),
            shoe,
            round: None,
            seq,
            evidence,
            message,
            partial: false,
            also: CodeSet::default(),
        }
    }
}

/// A probability for a person: three significant digits, in scientific notation when small.
pub fn p(value: f64) -> String {
    if value >= 0.001 {
        format!("{value:.3}")
    } else if value > 0.0 {
        format!("{value:.2e}")
    } else {
        "< 1e-300".to_owned()
    }
}

/// Each shoe's order from a table's recorded events (ascending `seq`; only `card_drawn` matter)
/// and its shoe starts ((shoe, first `seq`), ascending): what [`ShuffleWatch`] collects live.
pub fn orders_from_events<'a>(
    events: impl IntoIterator<Item = &'a TableEvent>,
    starts: &[(u32, u64)],
) -> Vec<(u32, Order)> {
    let mut orders: Vec<(u32, Order)> = starts.iter().map(|(s, _)| (*s, Vec::new())).collect();
    for event in events {
        let EventKind::CardDrawn { card, .. } = &event.kind else {
            continue;
        };
        // The shoe whose start is the last at or before the event.
        let at = starts.partition_point(|(_, first)| *first <= event.seq);
        if at > 0 {
            orders[at - 1].1.push((event.seq, *card));
        }
    }
    orders
}
