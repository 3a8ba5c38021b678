//! The game seam: what every card game's engine offers a table ([`Game`]), and the small
//! interface a game implements on top of the shared shoe tracker ([`RoundGame`]: start a round,
//! handle its events, close it, show it), with what it finds ([`Findings`]) and
//! [`run_stream`], what every game's `replay` is.
//!
//! Sans-IO like the rest of the crate: events in, outputs out.

use std::fmt::Debug;

use pitwatch_model::{Card, DeckKind, EventKind, ExposedDuring, TableEvent};
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::irregularity::IrregularityCode as Code;

/// What every game's engine offers the table that runs it: events in, outputs out, a view.
pub trait Game {
    /// What the engine outputs (rounds, irregularities, shoe summaries, cleared device errors),
    /// serialised as `type`-tagged JSON objects.
    type Output: Serialize;
    /// The table as the engine sees it.
    type View: Serialize;
    /// The game's name, as a rule book's `game` says it (`baccarat`, `blackjack`, `pontoon`).
    fn game(&self) -> &'static str;
    /// Feeds one event. Never panics, whatever the sequence.
    fn handle_event(&mut self, event: &TableEvent);
    /// The next output, oldest first.
    fn poll_output(&mut self) -> Option<Self::Output>;
    /// Ends the stream: closes an unfinished round and the current shoe.
    fn finish(&mut self);
    /// The stream was cut off here (the monitor stopped listening).
    fn interrupt(&mut self);
    /// The table as it stands.
    fn view(&self) -> Self::View;
}

/// Runs a whole event stream through `engine` and returns every output in order, those `finish`
/// gives at the end included: what each game's `replay` is.
pub fn run_stream<'a, G: Game>(
    mut engine: G,
    events: impl IntoIterator<Item = &'a TableEvent>,
) -> Vec<G::Output> {
    let mut out = Vec::new();
    for event in events {
        engine.handle_event(event);
        while let Some(o) = engine.poll_output() {
            out.push(o);
        }
    }
    engine.finish();
    while let Some(o) = engine.poll_output() {
        out.push(o);
    }
    out
}

/// One finding of a game in a round, before the table cites its rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The code.
    pub code: Code,
    /// The `[cite]` key to cite: the code, or the code with a qualifier (`NOT_SHUFFLED/first_card`),
    /// which falls back to the code's own citation when the book has none for it.
    pub cite: &'static str,
    /// The `seq` that revealed it.
    pub seq: u64,
    /// The events that make up the evidence.
    pub evidence: Vec<u64>,
    /// What happened and what the rules require, for a supervisor.
    pub message: String,
}

/// Where a game's findings go while it handles an event (and a finding it withdraws,
/// [`Findings::withdraw`]).
#[derive(Debug, Clone, Default)]
pub struct Findings(pub(crate) Vec<Finding>, pub(crate) Option<Code>);

impl Findings {
    /// Adds a finding citing its code's rule.
    pub fn flag(&mut self, code: Code, seq: u64, evidence: Vec<u64>, message: String) {
        self.0.push(Finding {
            code,
            cite: code.as_str(),
            seq,
            evidence,
            message,
        });
    }

    /// Adds a finding citing a qualified rule (`[cite]` key `CODE/qualifier`).
    pub fn flag_cited(
        &mut self,
        code: Code,
        cite: &'static str,
        seq: u64,
        evidence: Vec<u64>,
        message: String,
    ) {
        self.0.push(Finding {
            code,
            cite,
            seq,
            evidence,
            message,
        });
    }

    /// Whether nothing was found.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Withdraws the round's finding of `code` made at an earlier event, if it is still the
    /// round's only finding (what the event shows explains it: Baccarat's card out of order only
    /// because the report of the card before it was lost). The table tells the game when it did
    /// ([`RoundGame::withdrawn`]).
    pub fn withdraw(&mut self, code: Code) {
        self.1 = Some(code);
    }
}

/// A shoe-level finding the table words, with what its message may say: the table words each
/// itself ([`RoundGame::shoe_wording`] lets a game say it in its own words, Baccarat's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShoeFact<'a> {
    /// `SHUFFLE_COUNT_MISMATCH`: the shuffled set is wrong (at least one of these is set).
    ShuffleWrong {
        /// The shoe's decks.
        decks: u8,
        /// The decks the book allows (`min`, `max`), when `decks` is outside them.
        allowed: Option<(u8, u8)>,
        /// The cards counted and what the decks hold, when they differ.
        counted: Option<(u32, u32)>,
        /// The decks' kind.
        kind: DeckKind,
        /// What the shuffler's deck check found wrong ([`crate::table::DeckCheck::problem`]).
        check: Option<String>,
    },
    /// `CUT_TOO_CLOSE_TO_END`: the cut `position` cards from the front of `total`, where it
    /// must be at least `min` cards from either end.
    CutTooClose {
        /// Cards before the cut.
        position: u32,
        /// Cards in the shoe.
        total: u32,
        /// The book's limit, in cards.
        min: u32,
    },
    /// `CUTTING_CARD_MISPLACED`: the cutting card placed (`placed`) or come out with `behind`
    /// cards behind it, `dealt` dealt (when it came out), outside the book's `limit` (in words).
    CuttingCard {
        /// Placed (true) or drawn.
        placed: bool,
        /// Cards behind it.
        behind: u32,
        /// Cards dealt before it.
        dealt: u32,
        /// The table's own account of what is wrong.
        problem: &'a str,
    },
    /// `EXCESS_CARD`: `card` is copy `copy` of a card the shoe holds `holds` times.
    Excess {
        /// The card.
        card: Card,
        /// Which copy it is.
        copy: u8,
        /// How many the shoe holds (0: a foreign card).
        holds: u8,
    },
    /// `UNREADABLE_CARD`.
    Unreadable,
    /// `CARD_EXPOSED`: a card (if read) exposed `during`.
    Exposed {
        /// The card, if read.
        card: Option<Card>,
        /// When.
        during: ExposedDuring,
    },
    /// `DEVICE_ERROR`.
    DeviceError {
        /// The device's code.
        code: &'a str,
        /// The device's text.
        text: &'a str,
    },
    /// `NOT_SHUFFLED/first_card`: a new shoe began with a burn's first card
    /// ([`RoundGame::first_card_begins_a_shoe`]) in a stream that reports shuffles, with no
    /// shuffle since the last shoe.
    FirstCardUnshuffled,
    /// `NOT_SHUFFLED/replaced`: a card dealt after the cards were replaced (`replaced`) or a
    /// card was exposed before play (`!replaced`) at `since`, with no shuffle since.
    Unshuffled {
        /// Replaced cards (true) or an exposed card.
        replaced: bool,
        /// The `seq` of the replacement or exposure.
        since: u64,
    },
}

/// What closed a round from outside ([`RoundGame::close_round_by`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Boundary {
    /// The next round's first card was dealt.
    NextRound,
    /// "No more bets" for the next round.
    BetsClosed,
    /// The cards were reshuffled or replaced.
    Reshuffle,
    /// The stream ended, or was cut off.
    End,
    /// The round's result was declared ([`RoundGame::result_declared`]).
    Result,
}

/// What a declared result (`result_declared`) does to the round in progress, as the game says
/// ([`RoundGame::result_declared`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultTaken {
    /// Nothing: the game follows no declared results (the default).
    Ignored,
    /// The round in progress, if any, is over: closed at the result ([`Boundary::Result`]) and
    /// judged, then the result is checked against it ([`RoundGame::check_result`]); between
    /// rounds, the result is checked against the round closed last.
    Settles,
    /// The round in progress is void (a forced quit): closed at the result without judging what
    /// it lacks, then checked as [`ResultTaken::Settles`].
    Voids,
    /// A card of the round in progress is still due: the round is held open for it while the
    /// game says an event may still be the round's ([`RoundGame::holds_for`]), then closed at
    /// the result; either way the result is checked against it once it is closed.
    Holds,
}

impl Boundary {
    /// What closed the round, in words ("the next round began").
    pub const fn words(self) -> &'static str {
        match self {
            Boundary::NextRound => "the next round's first card was dealt",
            Boundary::BetsClosed => "the next round began",
            Boundary::Reshuffle => "the cards were reshuffled or replaced",
            Boundary::End => "the record ended",
            Boundary::Result => "the result was declared",
        }
    }
}

/// Whose a card the table gives no round is ([`RoundGame::stray_card`]), as the game says: where
/// what the game found in it goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stray {
    /// The round in progress's, or out at once between rounds.
    Here,
    /// The round closed last's (a card of its own that came after it was over): what the game
    /// found joins that round's one irregularity, output at the next boundary (its result, "no
    /// more bets", the next round, a shuffle); out at once if no round was closed in the shoe.
    LastRound,
    /// As [`Stray::LastRound`], and the card begins the next round, carried over (Baccarat's
    /// 12.1(b): a Player third card after the round was complete is the next round's first):
    /// the table starts that round ([`RoundGame::start_round`], the game placing the card
    /// itself) and leaves the irregularity of the round before waiting. While the round holds
    /// only that card ([`RoundGame::carried_only`]) "no more bets" and a result do not close
    /// it, and a reshuffle or the end of the stream discards it ([`RoundGame::discard_round`]).
    Carried,
}

/// A game's rounds, run by a [`Table`] that follows the shoe around them.
pub trait RoundGame {
    /// A round as the game records it.
    type Round: Serialize + Clone;
    /// The round in progress, for the table view.
    type RoundView: Serialize + Clone;
    /// The game's name (`blackjack`, `pontoon`).
    fn game(&self) -> &'static str;
    /// Whether `event` belongs to a round at all (a card with a target the game places, a
    /// decision). A card without a target is counted by the table and never given to the game:
    /// a plain shoe gets the shoe-level checks only.
    fn is_round_event(&self, event: &EventKind) -> bool;
    /// Whether `event` begins a new round given the round in progress (`None` between rounds).
    fn begins_round(&self, event: &EventKind) -> bool;
    /// Whether `event`, a card that would begin a round ([`RoundGame::begins_round`]), came when
    /// the round in progress looked over, so that it may as well be a stray card of that round:
    /// the table then holds it and lets the next event decide ([`RoundGame::opened_by`]). The
    /// default: never (the card begins its round at once).
    fn provisional(&self, _event: &EventKind) -> bool {
        false
    }
    /// Whether `next`, the event after a card held as [`RoundGame::provisional`] (`first`),
    /// shows that `first` began a round (`true`) or belonged to the round in progress (`false`,
    /// which then handles it as one of its own cards). Asked only of events of a round
    /// ([`RoundGame::is_round_event`]); the table itself reads "no more bets", a shuffle and
    /// replaced cards as `false`, and the end of the stream as `true`.
    fn opened_by(&self, _first: &EventKind, _next: &EventKind) -> bool {
        true
    }
    /// Whether the game places a card the device reports to no position (a plain reading shoe)
    /// in its rounds by its own rules (Baccarat's 8.4 and Table of Play): such a card, once the
    /// burn is over, is then a round event like a targeted one. The default: never (a plain
    /// card is counted by the table and given to no round).
    fn places_plain_cards(&self) -> bool {
        false
    }
    /// How many rounds may still begin after the cutting card came out (`in_round`: during a
    /// round not yet complete, which is finished first), by the game's end-of-shoe rule
    /// (Baccarat's 11.2 `last_coup`: one further round). The default, 0: the shoe ends with the
    /// round in progress, or at once between rounds (Pontoon 7.1).
    fn rounds_after_cutting_card(&self, _in_round: bool) -> u32 {
        0
    }
    /// A card came after the shoe ended without a new shuffle, in round `round` if it is in one
    /// (`last`: the shoe's last round). The game may flag it its own way (Baccarat's
    /// `DEALT_PAST_LAST_COUP`) and return `Some(true)`, or pass over it for now (`Some(false)`:
    /// asked again at the next such card); the default, `None`, leaves it to the table
    /// (`NOT_SHUFFLED/past_end`, once a shoe, and never in a shoe joined part-way or cut off).
    /// Asked in a partial shoe too: the end the game's rule found was seen.
    fn past_end(
        &mut self,
        _seq: u64,
        _round: Option<u32>,
        _last: u32,
        _found: &mut Findings,
    ) -> Option<bool> {
        None
    }
    /// The message of a shoe-level finding ([`ShoeFact`]) in the game's own words; the default,
    /// `None`, keeps the table's (Blackjack's, Pontoon's and poker's).
    fn shoe_wording(&self, _fact: &ShoeFact<'_>) -> Option<String> {
        None
    }
    /// Whether a shoe-level finding of `code` that still stands is flagged again (the default,
    /// as Blackjack, Pontoon and poker do) or is the same finding (`false`, Baccarat's): a
    /// `DEVICE_ERROR` whose code is still open (then also counted open once until cleared), a
    /// `CUTTING_CARD_MISPLACED` cutting card that comes out after it was flagged as placed.
    fn flags_again(&self, _code: Code) -> bool {
        true
    }
    /// Whether a shoe-level finding of `code` made while a round is being dealt (not yet
    /// complete) is that round's, joining its one irregularity (`true`, Baccarat's
    /// `DEVICE_ERROR`, `ORDER_DISCLOSED` and a cutting card that came out misplaced); the
    /// default, as Blackjack, Pontoon and poker do: output at once, in no round.
    fn joins_round(&self, _code: Code) -> bool {
        false
    }
    /// Whether a shoe-level finding of `code` made between rounds, after a round of the shoe
    /// closed, is that round's, joining its one irregularity (output at the next boundary:
    /// its result, "no more bets", the next round, a shuffle), as Baccarat's card exposed while
    /// dealing is (`true`); the default, as Blackjack, Pontoon and poker do: output at once, in
    /// no round.
    fn last_rounds(&self, _code: Code) -> bool {
        false
    }
    /// Whether the first card dealt from cards that must first be shuffled (`NOT_SHUFFLED`,
    /// replaced or exposed before play) is flagged in the round it is dealt to (the default, as
    /// Blackjack, Pontoon and poker do) or at once in no round (`false`, Baccarat's: the fault
    /// is the shoe's, found before the round).
    fn unshuffled_card_in_round(&self) -> bool {
        true
    }
    /// Whether a continuous shoe's copies of a card are counted within a round only (`true`,
    /// Baccarat's: the shuffler takes each round's cards back, so only a round can show a card
    /// too many) rather than across the shoe (the default, as Blackjack, Pontoon and poker do).
    fn counts_copies_per_round(&self) -> bool {
        false
    }
    /// Whether a round is closed (recorded, with its irregularity) as soon as it is complete
    /// ([`RoundGame::is_complete`]) rather than at the next boundary (the default: a card of
    /// its own may still come, Blackjack's and Pontoon's dealer). A card after it is then the
    /// next round's, or a card of no round.
    fn closes_when_complete(&self) -> bool {
        false
    }
    /// A result was declared (`event`, a `result_declared`), during a round (`in_round`) or
    /// between rounds: what it does to the round in progress. The default,
    /// [`ResultTaken::Ignored`], as Blackjack, Pontoon and poker do: the table passes over it.
    fn result_declared(&mut self, _event: &TableEvent, _in_round: bool) -> ResultTaken {
        ResultTaken::Ignored
    }
    /// Checks a declared result (`event`) against the round closed last, its findings that
    /// round's. Asked once a round, when its result comes (after the round is closed), and only
    /// for a round seen whole, closed since the shoe began, the cards were replaced or the
    /// stream was cut off. The default finds nothing.
    fn check_result(&mut self, _event: &TableEvent, _found: &mut Findings) {}
    /// Whether the round held open by a declared result ([`ResultTaken::Holds`]) still waits
    /// through `event` (a card still due, or an event beside the deal); `false` closes it at its
    /// result before `event` is handled. The default: never.
    fn holds_for(&self, _event: &EventKind) -> bool {
        false
    }
    /// Whether the irregularity of the round just closed waits for its result: output after
    /// its record, when its result comes (or at the next round, "no more bets", a reshuffle or
    /// the end of the stream), rather than before it (the default). `results_run`: rounds in a
    /// row whose result was declared before the next round began (Baccarat's: from one on, a
    /// result settles its round).
    fn awaits_result(&self, _results_run: u32) -> bool {
        false
    }
    /// "No more bets" was called (after the table closed the round in progress, if any); the
    /// default ignores it.
    fn bets_closed(&mut self, _seq: u64) {}
    /// A shoe began at `seq`: after a shuffle, or joined part-way (`partial`: the stream began
    /// without one, so its first cards may be the tail of a round dealt before the table was
    /// listening). Asked before any event of the shoe is given to a round. A game that follows
    /// a shoe joined part-way its own way (Baccarat's: rounds only from a round's first card,
    /// the first round not judged at its close, every record marked partial) follows this; the
    /// default ignores it, and the table judges such a shoe's rounds as any (Blackjack's,
    /// Pontoon's and poker's). Unlike a round joined after a cut ([`RoundGame::join_round`],
    /// nothing found in it judged, its result not checked), the table gives the game every
    /// round of a partial shoe as seen from its start.
    fn shoe_started(&mut self, _seq: u64, _partial: bool) {}
    /// The stream was cut off in an open shoe ([`crate::Table::interrupt`]), asked before the
    /// round in progress (if any) is closed unfinished: the rest of the shoe is partial. Return
    /// `true` when the game finds its own way back into the rounds, as it follows a shoe joined
    /// part-way (Baccarat's: with targets from a round's first card, in a plain stream that
    /// reports "no more bets" from the next one), so the table does not follow the tail of the
    /// round the next event belongs to as joined ([`RoundGame::join_round`]); the default
    /// (`false`, Blackjack's, Pontoon's and poker's) lets it.
    fn interrupted(&mut self) -> bool {
        false
    }
    /// Whether a shuffle in a shoe joined part-way that has shown no card (the stream began
    /// with a result, "no more bets" or the cutting card, then a shuffle) begins that same shoe
    /// (`true`, Baccarat's: one shoe, numbered and summarised from its first event, not
    /// partial) rather than ending it, empty and partial, and starting the next (the default,
    /// Blackjack's, Pontoon's and poker's).
    fn shuffle_begins_an_empty_partial_shoe(&self) -> bool {
        false
    }
    /// Whether a card the device reports as a burn's first card (target `first`), when no shoe
    /// awaits one, begins a new whole shoe by itself (`true`, Baccarat's: a device such as the
    /// Angel Eye reports no shuffle, and announces each shoe so); the default, as Blackjack,
    /// Pontoon and poker do: it is a card of the shoe in progress (or begins one joined
    /// part-way).
    fn first_card_begins_a_shoe(&self) -> bool {
        false
    }
    /// Whether the stream has reported a shuffle, so that a shoe begun by a burn's first card
    /// ([`RoundGame::first_card_begins_a_shoe`]) with none since the last shoe was not shuffled
    /// (`NOT_SHUFFLED`). Asked only of a game that begins shoes so; the default: never.
    fn shuffles_reported(&self) -> bool {
        false
    }
    /// Whether `event`, a card report the device sent again (`retransmit`), repeats a card
    /// already counted (the same card at the same position): the table then drops it, neither
    /// counted nor given to a round (Baccarat's, whose device names each card's position). Asked
    /// of retransmitted reports only; the default: never (every report is a card).
    fn repeats(&self, _event: &TableEvent) -> bool {
        false
    }
    /// The round's finding of `code` was withdrawn, as the game asked ([`Findings::withdraw`]):
    /// it was the round's only one. The default ignores it.
    fn withdrawn(&mut self, _code: Code) {}
    /// Whether the round in progress proves, at the boundary `by` (at `seq`; `ended`: the shoe
    /// had ended), to be no round: its cards were stray cards of the round closed last, set
    /// aside (Baccarat's: more than one card between a complete round and the next "no more
    /// bets", or that round's result, or before a reshuffle after the last coup). Asked at "no
    /// more bets", at a result while the round closed last awaits its own, and at a reshuffle or
    /// replaced cards after the shoe ended. What the game finds (`found`) joins that round's
    /// irregularity; the table drops the round in progress without a record. A game may also
    /// keep the round and find something (Baccarat's: its one card read at that result as
    /// carried over from the round before, 12.1(b)): the round is then as one begun by
    /// [`Stray::Carried`]. The default: never.
    fn sets_aside(
        &mut self,
        _seq: u64,
        _by: Boundary,
        _ended: bool,
        _found: &mut Findings,
    ) -> bool {
        false
    }
    /// Whether the round in progress holds only a card carried over from the round before
    /// ([`Stray::Carried`]). The default: never.
    fn carried_only(&self) -> bool {
        false
    }
    /// Drops the round in progress, which holds only a card carried over, without a record (a
    /// reshuffle or the end of the stream came first). The default does nothing (no game but one
    /// that carries cards over has such a round).
    fn discard_round(&mut self) {}
    /// How the table reads a plain card against the burn beyond its first card's count: with
    /// `until_bets` (Baccarat's, once the stream is known to report "no more bets"), every plain
    /// card before the shoe's first "no more bets" is the burn's (8.2: no round begins before
    /// it). `hold_unknown` is not read by the table. The default reads neither.
    fn burn_reading(&self) -> crate::table::burn::Reading {
        crate::table::burn::Reading::default()
    }
    /// The cards of the round in progress, the shoe's first, if they may yet prove to be the
    /// burn's (a device that does not mark the burn's cards): asked at the shoe's first "no more
    /// bets" (`count` `None`: it shows no round had begun, so the cards were burn cards) and at
    /// the device's burn count (`count`: the cards it says the burn had beyond those taken as
    /// burn cards). The table then gives them back to the burn and drops the round (its findings
    /// so far in no round, [`RoundGame::discard_round`]). The default: never.
    fn round_given_back(&self, _count: Option<u32>) -> Option<u32> {
        None
    }
    /// A card the table took as the burn's (`event`, counted against the shoe, in no round); a
    /// game that learns from it how the device reports cards (Baccarat's: targets) follows this;
    /// the default ignores it.
    fn burn_card(&mut self, _event: &TableEvent) {}
    /// A card the table gives no round, once the burn is over: a card of a round
    /// ([`RoundGame::is_round_event`]) that begins none while none is in progress
    /// ([`RoundGame::begins_round`]), or a card the game does not place (one the device reports
    /// to no position while it reports targets, or to a position the game does not have), during
    /// a round (`in_round`) or between rounds. The game may find something wrong in it (Baccarat's
    /// `DEAL_OUT_OF_ORDER`, and `UNAUTHORISED_THIRD_CARD` for a third card after the round was
    /// complete) and says whose that is. The default finds nothing (the card is counted against
    /// the shoe only, as Blackjack, Pontoon and poker do).
    fn stray_card(&mut self, _event: &TableEvent, _in_round: bool, _found: &mut Findings) -> Stray {
        Stray::Here
    }
    /// Whether a shuffle in a whole shoe that has shown no card (a shuffle, perhaps its cut,
    /// cutting card or "no more bets", then a shuffle again) begins that same shoe again (`true`,
    /// Baccarat's: two shuffles in a row are one shoe, numbered and summarised from its first
    /// event, holding what the last shuffle says) rather than ending it, empty, and starting the
    /// next (the default, Blackjack's, Pontoon's and poker's).
    fn shuffle_begins_an_empty_shoe_again(&self) -> bool {
        false
    }
    /// The cards were replaced (the round in progress already closed): whether the shoe's
    /// count and end start afresh with the new cards (`true`, Baccarat's: their copies counted
    /// anew, the cutting card and the last coup to come again, the round before no longer open to
    /// stray cards; a card dealt from them before a shuffle is flagged once, and a round past a
    /// later last coup is found beside it) rather than going on (the default, as Blackjack,
    /// Pontoon and poker do: one finding a shoe for a card after the end or from unshuffled
    /// cards).
    fn replaced_cards_start_afresh(&mut self) -> bool {
        false
    }
    /// A round begins with the event at `seq`.
    fn start_round(&mut self, shoe: u32, number: u32, seq: u64);
    /// A round that began while nobody listened (the stream was cut off,
    /// [`crate::Table::interrupt`]) is joined at the event at `seq`, the first of a round after
    /// the cut: the game follows its tail as best it can, for the view and the record, while the
    /// table judges nothing the game finds in it and closes it as cut off. The table asks
    /// [`RoundGame::begins_round`] of each event after it as for any round, so a game should say
    /// there which event begins the next round from what the tail shows (it cannot know what
    /// the round had before the cut). The default starts the round as any other
    /// ([`RoundGame::start_round`]).
    fn join_round(&mut self, shoe: u32, number: u32, seq: u64) {
        self.start_round(shoe, number, seq);
    }
    /// One event of the round in progress.
    fn handle_event(&mut self, event: &TableEvent, found: &mut Findings);
    /// Whether the round in progress needs no more cards.
    fn is_complete(&self) -> bool;
    /// Closes the round in progress at `seq` (`complete` false when the stream was cut off or
    /// ended before it was), flagging what its end shows (a dealer who stopped too soon).
    fn close_round(&mut self, seq: u64, cut_off: bool, found: &mut Findings) -> Self::Round;
    /// Closes the round in progress as [`RoundGame::close_round`] does, knowing what closed it
    /// (`by`), so that what the round lacks can say so (Baccarat's missing third card "the next
    /// round began first"). The default is [`RoundGame::close_round`].
    fn close_round_by(
        &mut self,
        seq: u64,
        cut_off: bool,
        _by: Boundary,
        found: &mut Findings,
    ) -> Self::Round {
        self.close_round(seq, cut_off, found)
    }
    /// The round in progress.
    fn round_view(&self) -> Option<Self::RoundView>;
    /// A shuffle began a new shoe at `seq`; `deck_ok` is false when its deck check failed (the
    /// table has already flagged it). A game whose every hand is dealt from a fresh shuffle
    /// (poker) follows this; the default ignores it.
    fn shuffled(&mut self, _seq: u64, _deck_ok: bool) {}
    /// A card was exposed while dealing during the round in progress (the table has flagged it
    /// already); a game whose rules count exposed cards (Draw Poker's misdeal (i)) follows this.
    fn exposed(&mut self, _seq: u64, _card: Option<Card>, _found: &mut Findings) {}
    /// A card the shoe cannot hold (foreign, or a copy beyond the shoe's) was dealt during the
    /// round in progress (the table has flagged it already); a game whose rules make a defective
    /// deck found during a round a misdeal (poker's (h)) follows this.
    fn defective(&mut self, _seq: u64, _card: Card, _found: &mut Findings) {}
    /// The last round closed, as it was recorded (built on demand: the table keeps no copy of
    /// every round it outputs).
    fn last_round(&self) -> Option<Self::Round>;
    /// What the game carries from one shoe into the next (the last round closed, a count of
    /// rounds across shoes), taken by the table between rounds as a shoe starts; stored as JSON
    /// with the shoe's start ([`TableCarry`]).
    type Carry: Clone + Debug + Default + PartialEq + Serialize + DeserializeOwned;
    /// What the game would carry into a shoe starting now (no round is in progress).
    fn carry(&self) -> Self::Carry;
    /// Carries on from `carry`, as taken from the game that followed the shoes before.
    fn resume(&mut self, carry: Self::Carry);
}
