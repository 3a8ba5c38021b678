//! Baccarat as a round game on the shared shoe tracker (issue 27): [`BaccaratRounds`]
//! implements [`RoundGame`], so a [`Table<BaccaratRounds>`](pitwatch_rules::Table) ([`table`])
//! follows a Baccarat table's shoes (shuffle, cut, cutting card, burn, counts, device errors) with
//! the tracker every other game runs on, and Baccarat says only what its rounds are: where each
//! card goes by 8.4 and the Table of Play ([`DrawingTable`]), the hands ([`BySide`] of [`Hand`]),
//! the record ([`RoundRecord`]) and its end of shoe (11.2).
//!
//! Production runs Baccarat on this table: [`crate::Engine`] runs a `Table<BaccaratRounds>`. The
//! engine Baccarat ran before, kept under `tests/support/legacy/`, is the differential tests'
//! oracle (below, "the engine" is that oracle): `tests/it/table_rounds.rs` runs every fixture and
//! simulated stream through both and asserts that they agree (serde JSON of every output) on the
//! classes listed below as agreeing.
//!
//! - this file: the game's state, the seam ([`RoundGame`]), the book's shoe rules ([`shoe_rules`])
//!   and the table ([`table`], [`replay_on_table`]);
//! - `deal.rs`: placing a card in the round (targeted or plain) and what it shows, and a card
//!   the table gives no round (a stray card) or a report sent again;
//! - `result.rs`: a declared result, what it does to the round and its check against the cards;
//! - `tentative.rs`: a round begun by a plain card between rounds (12.1(b));
//! - `wording.rs`: Baccarat's words for the table's shoe-level findings.
//!
//! # Agreeing with the engine
//!
//! Asserted by the differential test (outputs as serde JSON, messages included):
//!
//! - every fixture in `tests/fixtures`, and fixture `20` also without its retransmitted card
//!   (with variants joined at a Banker card, a result or a round short of a card);
//! - every honest simulated stream, targets or plain, with or without "no more bets", declared
//!   results and the device's burn count, two shoes each through the last coup; with targets,
//!   also from a device that reports no shuffle; and each from a continuous shuffler (its copies
//!   counted within a round only, as the engine counts them: the shuffler takes the discards
//!   back, [`RoundGame::counts_copies_per_round`]);
//! - simulated streams with one injected fault, of every kind the dealer injects, in every
//!   stream it deals it in (a card to no hand, a fourth card, a report sent again and a lost
//!   report whose retransmission comes after the next card's with targets only), with or
//!   without declared results, from a shoe or a continuous shuffler;
//! - every simulated stream joined part-way (no shuffle seen first), anywhere from its first
//!   round's first card (with targets, from the event after its shuffle) to the last event
//!   before the next shuffle.
//!
//! A declared result is given to the game ([`RoundGame::result_declared`]), as the engine takes
//! it: it closes the round in progress ("the result was declared" names it in a missing third
//! card), or, while a third card is due and the stream says where cards go (targets, or "no
//! more bets": [`RoundGame::bets_closed`]), holds the round open for it while an event may still
//! be the round's ([`RoundGame::holds_for`]); a void result closes it unjudged. Once the round is
//! closed the result is checked against it, once ([`RoundGame::check_result`]: `RESULT_MISMATCH`,
//! and a round completed after its result, 10.1). In a stream whose last round had its result
//! before the next began (the table counts them, carried from shoe to shoe), a round's
//! irregularity is output after its record, when its result comes ([`RoundGame::awaits_result`]),
//! as the engine outputs it (kept through replaced cards until the next round, after the first
//! card from them, which is flagged in no round).
//!
//! The table tells the game what closed a round ([`RoundGame::close_round_by`], a [`Boundary`]):
//! Baccarat's `MISSING_THIRD_CARD` and incomplete initial deal name it as the engine does.
//!
//! Output order: a Baccarat round is closed on the table as soon as its last card is dealt
//! ([`RoundGame::closes_when_complete`]), as the engine outputs it, so what comes after it (a
//! cutting card placed, a device error, the shuffler's findings) comes after it on both.
//!
//! A shoe joined part-way is told to the game ([`RoundGame::shoe_started`]), as the engine
//! follows it: with targets a round is followed only from a Player card 1 (the cards before it
//! are counted, in no round), a plain shoe starts at once, the shoe's first round is not judged
//! at its close (it may have begun unseen: closed short of its cards, it raises no incomplete
//! deal nor missing third card), its declared result is checked, and every record of the shoe
//! is `partial`. A round dealt past the last coup is the game's finding in a partial shoe too
//! ([`RoundGame::past_end`]), and a stream joined part-way that shows no card before a shuffle
//! (a result, "no more bets", the cutting card) is one shoe from its first event, begun by the
//! shuffle ([`RoundGame::shuffle_begins_an_empty_partial_shoe`]), as the engine reuses a shoe
//! with no card; so is a whole shoe that showed no card
//! ([`RoundGame::shuffle_begins_an_empty_shoe_again`]: two shuffles in a row are one shoe).
//!
//! A device's burn first card (target `first`) when no shoe awaits one begins a new whole shoe
//! on the table ([`RoundGame::first_card_begins_a_shoe`]), as in the engine (the Angel Eye
//! reports no shuffle): the shoe open is begun again if it has shown no card, the shoe holds
//! the decks the shuffler beside it counted, its preparation steps and the shuffler's last
//! shuffle are judged at that card, and in a stream that reports shuffles
//! ([`RoundGame::shuffles_reported`]) or whose cards wait for one it is `NOT_SHUFFLED`
//! ([`ShoeFact::FirstCardUnshuffled`], the engine's words). So a stream joined in the burn
//! begins its shoe at the first card, as the engine does.
//!
//! A card the table gives no round is given to the game ([`RoundGame::stray_card`], after the
//! burn; the burn's cards [`RoundGame::burn_card`], which tell it the device reports targets),
//! as the engine finds it: a card to no hand from a device that reports targets, or to a target
//! Baccarat does not have, is `DEAL_OUT_OF_ORDER` in the round in progress (or none); a
//! targeted card 2, 3 or 4 with no round in progress is `DEAL_OUT_OF_ORDER` in the round closed
//! last while no card came since, nor "no more bets" ([`Stray::LastRound`]), a Banker third
//! card to a round complete with two is that round's `UNAUTHORISED_THIRD_CARD` (set aside), and
//! a Player third card to a round complete with two is too, and begins the next round
//! (12.1(b), [`Stray::Carried`]: "no more bets" and a result leave that round open while it
//! holds only that card, [`RoundGame::carried_only`], and a reshuffle or the end of the stream
//! drops it, [`RoundGame::discard_round`]; the round is past the last coup only once dealt on,
//! and "No bets this hand" if the card was disclosed).
//! Under a book that burns, the device's burn count begins a shoe joined there, as a cut does.
//! The burn reads a plain card as the engine does ([`RoundGame::burn_reading`]): once the stream
//! is known to report "no more bets", every plain card before the shoe's first is the burn's,
//! past its count too (`until_bets`); and the cards of a plain round 1 taken after the burn's
//! count are given back to the burn by the shoe's first "no more bets", or by a device's burn
//! count that says the burn had that many more ([`RoundGame::round_given_back`]: the round is
//! dropped, what it found in no round). After an unreadable first card, in a plain stream not
//! known to report "no more bets", the plain cards are held as the burn's until "no more bets"
//! (all were) or the device's count (that many were; the rest begin the rounds), or, past the
//! longest burn (11 cards), followed as rounds from the first held (`hold_unknown`).
//! A retransmitted report of a card already counted (the last burn card again, or a position of
//! the round being dealt, or of the round closed last while it is open, that holds that very
//! card) is dropped by the table, neither counted nor placed ([`RoundGame::repeats`]).
//! Within a round (`deal.rs`), a third card to the Player that the rules do not authorise while
//! the Banker must draw is the Banker's (12.1(a), `UNAUTHORISED_THIRD_CARD`), and a Banker third
//! card dealt before the Player's that the Table of Play then does not give is set aside
//! (`UNAUTHORISED_THIRD_CARD/banker`), as in the engine.
//!
//! A plain card between rounds (after the round closed last, with no card since, and before the
//! next round's "no more bets" in a stream that reports it, or before that round's result in a
//! stream that declares every round's: two in a row, the engine's `results_declared`) is that
//! round's `UNAUTHORISED_THIRD_CARD` and begins the next round, tentatively (12.1(b),
//! `tentative.rs`, [`Stray::Carried`]): complete by the rules, the round waits for the next event
//! (it is not complete, [`RoundGame::is_complete`]); "no more bets", a result or a reshuffle
//! confirms it, a result of the cards after the first or a further card shows the first was set
//! aside and the round is dealt again without it, and more than one card before "no more bets" were
//! all set aside, the round dropped ([`RoundGame::sets_aside`]), as are more than one before the
//! result of the round before, or before a reshuffle after the last coup (11.2: no round begins
//! after it; fixtures `54`, `55`). In a stream not yet known to declare every result, a round begun
//! before the result of the round before is read at that result as the engine reads it: one card is
//! carried over (12.1(b)), two or three are set aside.
//!
//! A card reported for a later position of its hand than the next waits there until the positions
//! before it are filled (joining the hand as dealt if the round closes first), and a retransmitted
//! card that fills the very position the round's out-of-order finding named withdraws that finding
//! if it is the round's only one ([`pitwatch_rules::Findings::withdraw`],
//! [`RoundGame::withdrawn`]): the cards came in order, only their reports did not.
//!
//! Replaced cards start the shoe's count and end afresh on the table as in the engine
//! ([`RoundGame::replaced_cards_start_afresh`]): their copies counted anew, a later cutting card
//! and last coup followed again (a round past it found beside the first card's `NOT_SHUFFLED`),
//! the round before no longer open to stray cards.
//!
//! The table's shoe-level messages are worded by the game ([`RoundGame::shoe_wording`], one
//! [`ShoeFact`] each): Baccarat's are the engine's (`wording`), Blackjack's, Pontoon's and
//! poker's the table's own, as their fixtures hold. A device error reported again while open is
//! Baccarat's one open error, and a cutting card flagged as placed is not flagged again when it
//! comes out ([`RoundGame::flags_again`]); a device error, an `ORDER_DISCLOSED` and a cutting card
//! that came out misplaced while a round is being dealt are that round's
//! ([`RoundGame::joins_round`]), as in the engine, a card exposed while dealing between rounds
//! is the round closed last's ([`RoundGame::last_rounds`]), and the first card dealt from
//! unshuffled cards is flagged in no round ([`RoundGame::unshuffled_card_in_round`]). The cut
//! and the cutting card are checked on the table against the book's limits as it gives them
//! ([`ShoeRules::cut`] in decks or cards, [`ShoeRules::cutting_card`] with any fraction), so a
//! Macau book's cut in cards is checked as the engine checks it.
//!
//! Where the two wordings of `DEALT_PAST_LAST_COUP` could differ, Baccarat's is kept (the table's
//! own finding for a card past the end is `NOT_SHUFFLED/past_end`, Blackjack's and Pontoon's).
//! What no fixture nor simulated class above covers may not agree yet, for the reasons below.
//!
//! # What the engine does at the shoe level that the table does not (yet)
//!
//! What keeps the streams no fixture nor simulated class above covers from agreeing, each a
//! hook still to add (game-neutral, with a default) or a wording to choose:
//!
//! - **Partial-shoe sync.** After an interruption the table tells the game nothing (its records
//!   are not `partial` there; the interrupt, below).
//! - **Tentative rounds.** A tentative round is past the last coup in the engine once
//!   confirmed (checked at its second card), on the table only at a card dealt to it after it
//!   is no longer tentative (the table asks the game as cards come, and a tentative round
//!   waits); a cut, a placed cutting card or a burn count confirms a tentative round in the
//!   engine only; after a tentative round is dealt again without its first card, the engine may
//!   read the next card as between rounds once more, the table as a round's first. A held burn
//!   card released as a round's is flagged again on the table if unreadable.
//! - **New shoe without a shuffle.** The engine restarts a shoe cut off before its first card
//!   at a cut or cutting card, and a shoe cut off before its burn's first card stays partial
//!   when that card begins it again (on the table it is whole).
//! - **Interrupt.** The engine waits for "no more bets" in a plain shoe after an interruption
//!   (`await_bets`), and does not judge the round it resumed in (`resync_round`), nor its
//!   result; the table checks no result of a round it joined, nor one before the cut.
//! - **Replaced cards.** After replaced cards the engine checks a cutting card's place against
//!   the cards dealt since the shoe's shuffle, the table checks none.
//! - **A card the table gives no round, and what it shows.** A foreign, excess or unreadable
//!   card that is also a stray card (a card between rounds, a card to no hand) is flagged by the
//!   engine in the round the stray card is given to (the round it begins, or the one before);
//!   the table flags it before it asks the game whose the card is, in no round. With a card past
//!   the last coup, the engine finds the round past the last coup before the card's excess, the
//!   table after. Both show in a plain stream that reports no shuffle (one shoe dealt on after
//!   its cards ran out), which is not claimed.
//! - **The view.** The table's [`pitwatch_rules::GameTableView`] has no `last_coup` ([`LastCoup`])
//!   nor `last_coup_round`, may count `rounds_completed` otherwise around a round, and its
//!   phase has no `last_coup_pending`; the round view's `next` card ([`NextCardView`]) is this
//!   module's.
//!
//! [`LastCoup`]: crate::LastCoup

use pitwatch_model::{EventKind, TableEvent, Target};
use pitwatch_rules::{
    Boundary, CuttingCardLimit, EndOfShoePolicy, Findings, IrregularityCode, ResultTaken,
    RoundGame, ShoeFact, ShoeRules, Stray, Table, TableOutput,
};
use serde::{Deserialize, Serialize};

use crate::book::RuleBook;
use crate::drawing::{DrawingTable, NextCard};
use crate::record::{Output, RoundRecord};
use crate::side::{BySide, Hand, Side};
use crate::view::{NextCardView, RoundView};

mod deal;
mod result;
mod tentative;
mod wording;

use wording::wording;

/// What Baccarat carries from one shoe into the next on the shared tracker: the last round
/// recorded (for the view) and whether the stream reports where cards go.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BaccaratCarry {
    /// The last round recorded in the stream.
    pub last_round: Option<RoundRecord>,
    /// The stream reports where cards go (targets).
    #[serde(default)]
    pub targets_reported: bool,
    /// The stream reports "no more bets" (absent from carries written before it was kept).
    #[serde(default)]
    pub bets_reported: bool,
    /// The stream reports shuffles (absent from carries written before it was kept).
    #[serde(default)]
    pub shuffles_reported: bool,
    /// Rounds in a row whose result was declared before the next round began (absent from
    /// carries written before it was kept).
    #[serde(default)]
    pub results_run: u32,
}

/// A card reported for a later position of its hand than the next: (hand, position, card,
/// `seq`).
type Ahead = (Side, u8, Option<pitwatch_model::Card>, u64);

/// The round being dealt.
#[derive(Debug, Clone, Copy)]
struct Live {
    shoe: u32,
    number: u32,
    hands: BySide<Hand>,
    first_seq: u64,
    last_seq: u64,
    /// The next card by 8.4 and the Table of Play, as the hands stand (kept with them: the
    /// table asks after every card).
    next: NextCard,
    /// Whether the round's one out-of-order finding was made.
    order_flagged: bool,
    /// The position that finding said the next card should have had: a retransmitted card that
    /// fills it withdraws the finding.
    order_gap: Option<(Side, u8)>,
    /// Cards reported for a later position of their hand than the next, waiting there.
    ahead: [Option<Ahead>; 4],
    /// How many cards `ahead` holds.
    ahead_len: u8,
    /// The `seq` of a result declared while a third card was due, holding the round open for it.
    held: Option<u64>,
    /// The cards placed after that result (`seq`s; `late_len` of them).
    late: [u64; 2],
    late_len: u8,
    /// The round holds only a card carried over from the round before (12.1(b)).
    carried: bool,
    /// That card was disclosed: "No bets this hand".
    no_bets: bool,
    /// Begun by a plain card between rounds (12.1(b)): the round may yet prove that card set
    /// aside (`tentative.rs`).
    tentative: bool,
    /// A tentative round complete by the rules, waiting for the next event to confirm it.
    confirming: bool,
    /// Begun by a plain card before the round closed last had its result, in a stream not known
    /// to report "no more bets": that result may show the card a stray card of that round.
    unannounced: bool,
    /// "No more bets" came while the round held only its card between rounds: the round's
    /// cards after it are its own.
    after_bets: bool,
    /// The `seq` of each card placed, in order (`placed` of them).
    seqs: [u64; 6],
    placed: u8,
}

/// Baccarat's rounds, run by a [`Table`]: the hands of each round as 8.4 and the Table of Play
/// place its cards, recorded as [`RoundRecord`]s.
#[derive(Debug, Clone)]
pub struct BaccaratRounds {
    drawing: DrawingTable,
    end_of_shoe: EndOfShoePolicy,
    /// The book's cutting-card limit, for the words of a misplaced cutting card.
    cutting_card: CuttingCardLimit,
    round: Option<Live>,
    last: Option<RoundRecord>,
    targets_reported: bool,
    /// The stream reports "no more bets", so a plain round's cards until the next one are its own.
    bets_reported: bool,
    /// The stream reports shuffles, so a shoe begun by a burn's first card without one was not
    /// shuffled.
    shuffles_reported: bool,
    /// The last round closed was completed after its result was declared (10.1): that result's
    /// `seq` and the cards placed after it.
    early: Option<(u64, [u64; 2], u8)>,
    /// The shoe was joined part-way ([`RoundGame::shoe_started`]): its rounds are recorded as
    /// partial, and its first round is not judged at its close (it may have begun unseen).
    partial: bool,
    /// Rounds are followed in this shoe: false in a shoe joined part-way until a round's first
    /// card (a Player card 1, or a plain card), as the engine's `synced`.
    synced: bool,
    /// The stream was cut off in this shoe ([`RoundGame::interrupted`]): its rounds are partial,
    /// and those seen from their start after the cut are judged.
    interrupted: bool,
    /// After the cut, a plain stream that reports "no more bets" follows rounds again from the
    /// next one: its plain cards until then are counted, in no round.
    await_bets: bool,
    /// The stream was just cut off: the round the table closes next is closed by the cut.
    cut: bool,
    /// The last round closed is still open to a stray card of its own: no card was placed since
    /// it closed, nor "no more bets" called (the engine's `prev.open`).
    last_open: bool,
    /// The last card reported to the burn (`first` or `burn`) in this shoe, as (card, target,
    /// index): a retransmission of it repeats it.
    last_burn: Option<(Option<pitwatch_model::Card>, Option<Target>, Option<u8>)>,
    /// A card after the round closed last (12.1(b)), whether it was disclosed, and whether it
    /// was a plain card (the round it begins is tentative): the first card of the round the table
    /// starts next ([`Stray::Carried`]).
    carry_next: Option<(Option<pitwatch_model::Card>, bool, bool)>,
    /// Whether the round closed last in this shoe had its result checked (`None`: no round
    /// closed in the shoe yet), as the engine's `prev.result_checked`.
    last_checked: Option<bool>,
    /// Rounds in a row whose result was declared before the next round began: from two on, the
    /// stream declares every round's result (the engine's `results_declared`).
    results_run: u32,
}

impl BaccaratRounds {
    /// Baccarat's rounds under `book`, before any round.
    pub fn new(book: &RuleBook) -> BaccaratRounds {
        BaccaratRounds {
            drawing: *book.drawing(),
            end_of_shoe: book.end_of_shoe(),
            cutting_card: book.cutting_card(),
            round: None,
            last: None,
            targets_reported: false,
            bets_reported: false,
            shuffles_reported: false,
            early: None,
            partial: false,
            synced: true,
            interrupted: false,
            await_bets: false,
            cut: false,
            last_open: false,
            last_burn: None,
            carry_next: None,
            last_checked: None,
            results_run: 0,
        }
    }

    /// What a round closed by `by` at `seq` lacks: a third card the Table of Play gives a hand
    /// (`MISSING_THIRD_CARD`) or a card of the initial deal (8.4). A round with an unreadable
    /// card cannot be judged by the Table of Play.
    fn judge_close(&self, r: &Live, seq: u64, by: Boundary, found: &mut Findings) {
        // A round complete by the rules lacks nothing (most rounds): asked first, as it is cheaper.
        if r.next == NextCard::Complete {
            return;
        }
        let hands = &r.hands;
        if hands.player.has_unreadable() || hands.banker.has_unreadable() {
            return;
        }
        let evidence = || vec![r.first_seq, r.last_seq, seq];
        match r.next {
            NextCard::To(side, 3) => {
                let hand = hands.get(side);
                let total = hand.total().map_or("?".to_owned(), |t| t.to_string());
                found.flag(
                    IrregularityCode::MissingThirdCard,
                    seq,
                    evidence(),
                    format!(
                        "The {side} hand ({hand} = {total}) had to draw a third card by the Table \
                         of Play, but {} first. The round was settled on the wrong cards: review \
                         the payouts.",
                        by.words()
                    ),
                );
            }
            NextCard::To(_, _) => found.flag(
                IrregularityCode::DealOutOfOrder,
                seq,
                evidence(),
                format!(
                    "The initial deal (8.4) was not completed: Player {} / Banker {} when the round \
                     ended. Treat as a misdeal unless it can be reconstructed.",
                    hands.player, hands.banker
                ),
            ),
            _ => {}
        }
    }

    /// What a round's close does before its record, for a round not yet complete by the rules,
    /// holding a card ahead of its turn or begun between rounds: places the card held ahead, sets
    /// the first card aside if the cards after it make a round, or finds what the round lacks.
    #[inline(never)]
    fn prepare_close(&mut self, seq: u64, cut_off: bool, by: Boundary, found: &mut Findings) {
        // The first round of a shoe joined part-way may have begun before the table did: what
        // it lacks at its close is not judged.
        // After a cut the rounds seen from their start are judged (the table joins the one it
        // cannot see from its start, unjudged).
        let joined_mid_round =
            self.partial && !self.interrupted && self.round.as_ref().is_some_and(|r| r.number == 1);
        // A card reported ahead of its turn takes its place at the close; a round cut off never
        // reached that turn, so the card is placed nowhere and the round stays unfinished.
        let drawing = &self.drawing;
        if let Some(r) = self.round.as_mut().filter(|r| r.ahead_len > 0 && !cut_off) {
            r.flush_ahead(drawing);
        }
        if self
            .round
            .as_ref()
            .is_some_and(|r| r.tentative && !r.confirming && self.rest_round(r).is_some())
        {
            // The cards after the card between rounds make a whole round: it was set aside.
            self.redeal();
        } else if let Some(r) = self
            .round
            .as_ref()
            .filter(|_| !cut_off && !joined_mid_round)
        {
            self.judge_close(r, seq, by, found);
        }
    }

    /// What closing with no round in progress returns: the last round recorded (none is left
    /// completed after its result).
    #[cold]
    fn no_round_to_close(&mut self) -> RoundRecord {
        self.early = None;
        self.last
            .unwrap_or_else(|| RoundRecord::from_hands(0, 0, Hand::new(), Hand::new()))
    }

    /// Whether rounds are followed: false in a shoe joined part-way, or after a cut, until a
    /// round is seen from its start.
    pub(crate) fn following(&self) -> bool {
        self.synced
    }
}

/// What the shared tracker follows of `book`'s shoe section (its cut and cutting-card limits as
/// the book gives them), citing the book's rules.
pub fn shoe_rules(book: &RuleBook) -> ShoeRules {
    let cite = book
        .citations()
        .into_iter()
        .map(|(key, rule)| (key, rule.to_owned()))
        .collect();
    book.shoe_book().shoe_rules(book.id(), cite)
}

/// A table following Baccarat under `book` on the shared tracker, before any event.
pub fn table(book: &RuleBook) -> Table<BaccaratRounds> {
    Table::new(shoe_rules(book), BaccaratRounds::new(book))
        .require_shuffle_steps(book.shuffle_steps().to_vec())
}

/// Replays a whole event stream through a fresh [`table`] and returns every output in order, as
/// the engine's [`Output`].
pub fn replay_on_table<'a>(
    book: &RuleBook,
    events: impl IntoIterator<Item = &'a TableEvent>,
) -> Vec<Output> {
    let mut table = table(book);
    let mut out = Vec::new();
    for event in events {
        table.handle_event(event);
        out.extend(std::iter::from_fn(|| table.poll_output()).map(output));
    }
    table.finish();
    out.extend(std::iter::from_fn(|| table.poll_output()).map(output));
    out
}

/// A table's output as the engine's.
pub fn output(o: TableOutput<RoundRecord>) -> Output {
    match o {
        TableOutput::Round(r) => Output::Round(r),
        TableOutput::Irregularity(i) => Output::Irregularity(i),
        TableOutput::Shoe(s) => Output::Shoe(s),
        TableOutput::DeviceErrorCleared(c) => Output::DeviceErrorCleared(c),
    }
}

impl RoundGame for BaccaratRounds {
    type Round = RoundRecord;
    type RoundView = RoundView;
    type Carry = BaccaratCarry;

    fn game(&self) -> &'static str {
        "baccarat"
    }

    fn is_round_event(&self, event: &EventKind) -> bool {
        match event {
            EventKind::CardDrawn { target, .. } => match target {
                Some(Target::Player | Target::Banker) => true,
                None => !self.targets_reported,
                Some(_) => false,
            },
            _ => false,
        }
    }

    fn places_plain_cards(&self) -> bool {
        !self.targets_reported
    }

    #[inline(always)]
    fn begins_round(&self, event: &EventKind) -> bool {
        let EventKind::CardDrawn { target, index, .. } = event else {
            return false;
        };
        // Whether the round in progress (if any) is complete is asked only where it decides.
        match target {
            // A card after a tentative round complete by the rules begins the next round only
            // if the cards after the card between rounds make a round by themselves; a card
            // between rounds begins none (`stray`).
            None => match &self.round {
                Some(r) if r.confirming => self.rest_round(r).is_some(),
                Some(r) if r.next != NextCard::Complete => false,
                _ => !self.between_rounds() && !self.await_bets,
            },
            // Joined part-way with targets: a round is followed only from a Player card 1 (a
            // plain shoe cannot tell, so it starts at once).
            Some(Target::Banker) if !self.synced => false,
            Some(target @ (Target::Player | Target::Banker)) => {
                if !index.is_none_or(|i| i == 1) {
                    return false;
                }
                let side = if *target == Target::Player {
                    Side::Player
                } else {
                    Side::Banker
                };
                self.round.as_ref().is_none_or(|r| {
                    r.next == NextCard::Complete
                        || *index == Some(1) && !r.hands.get(side).is_empty()
                })
            }
            Some(_) => false,
        }
    }

    fn rounds_after_cutting_card(&self, in_round: bool) -> u32 {
        // 11.2: (b) complete the round, then one further round; (a) drawn as the first card of
        // a round, that round is the last.
        match (self.end_of_shoe, in_round) {
            (EndOfShoePolicy::LastCoup, _) => 1,
            (EndOfShoePolicy::FinishRound, true) => 0,
            (EndOfShoePolicy::FinishRound, false) => 1,
            (EndOfShoePolicy::OneMoreRound, true) => 1,
            (EndOfShoePolicy::OneMoreRound, false) => 2,
        }
    }

    fn past_end(
        &mut self,
        seq: u64,
        round: Option<u32>,
        last: u32,
        found: &mut Findings,
    ) -> Option<bool> {
        // Only a round dealt on is past the last coup; a card in no round waits for one, and a
        // tentative round (begun by a card between rounds) may yet prove no round.
        let Some(round) = round.filter(|_| !self.round.as_ref().is_some_and(|r| r.tentative))
        else {
            return Some(false);
        };
        found.flag(
            pitwatch_rules::IrregularityCode::DealtPastLastCoup,
            seq,
            vec![seq],
            format!(
                "Round {round} was dealt after the last coup (round {last}) was completed. No \
                 further cards may be dealt until the cards are replaced or reshuffled (11.2)."
            ),
        );
        Some(true)
    }

    fn shoe_wording(&self, fact: &ShoeFact<'_>) -> Option<String> {
        Some(wording(fact, &self.cutting_card))
    }

    fn flags_again(&self, code: IrregularityCode) -> bool {
        !matches!(
            code,
            IrregularityCode::DeviceError | IrregularityCode::CuttingCardMisplaced
        )
    }

    fn joins_round(&self, code: IrregularityCode) -> bool {
        matches!(
            code,
            IrregularityCode::DeviceError
                | IrregularityCode::OrderDisclosed
                | IrregularityCode::CuttingCardMisplaced
        )
    }

    fn last_rounds(&self, code: IrregularityCode) -> bool {
        code == IrregularityCode::CardExposed
    }

    fn counts_copies_per_round(&self) -> bool {
        true
    }

    fn closes_when_complete(&self) -> bool {
        true
    }

    fn unshuffled_card_in_round(&self) -> bool {
        false
    }

    fn result_declared(&mut self, event: &TableEvent, in_round: bool) -> ResultTaken {
        self.on_result(event, in_round)
    }

    fn check_result(&mut self, event: &TableEvent, found: &mut Findings) {
        if self.last_checked.is_some() {
            self.last_checked = Some(true);
        }
        self.judge_result(event, found);
    }

    fn holds_for(&self, event: &EventKind) -> bool {
        self.still_due(event)
    }

    fn awaits_result(&self, results_run: u32) -> bool {
        // The last round had its result before this one began: this one's settles it.
        results_run > 0
    }

    fn bets_closed(&mut self, _seq: u64) {
        self.bets_reported = true;
        if self.await_bets {
            // After the cut: the next round begins here.
            self.await_bets = false;
            self.synced = true;
        }
        self.last_open = false;
        if let Some(r) = self.round.as_mut().filter(|r| r.carried) {
            r.after_bets = true;
        }
    }

    fn sets_aside(&mut self, seq: u64, by: Boundary, ended: bool, found: &mut Findings) -> bool {
        self.set_aside(seq, by, ended, found)
    }

    fn shoe_started(&mut self, _seq: u64, partial: bool) {
        self.partial = partial;
        self.synced = !partial;
        self.interrupted = false;
        self.await_bets = false;
        self.last_open = false;
        self.last_burn = None;
        self.last_checked = None;
    }

    fn interrupted(&mut self) -> bool {
        // The rest of the shoe is partial; the round closed last is no longer open to a stray
        // card of its own, nor is its result checked (a round may have been dealt unseen).
        self.partial = true;
        self.interrupted = true;
        self.cut = self.round.is_some();
        self.last_open = false;
        self.last_checked = None;
        self.carry_next = None;
        self.early = None;
        self.synced = false;
        if self.targets_reported || self.bets_reported {
            // As a shoe joined part-way: with targets from a round's first card, a plain stream
            // from its next "no more bets".
            self.await_bets = self.bets_reported;
            true
        } else {
            // A plain stream that cannot tell: the table follows the round the next card
            // belongs to as joined, unjudged.
            false
        }
    }

    fn repeats(&self, event: &TableEvent) -> bool {
        self.repeated(event)
    }

    fn burn_card(&mut self, event: &TableEvent) {
        if let EventKind::CardDrawn {
            card,
            target: target @ Some(_),
            index,
            ..
        } = event.kind
        {
            self.targets_reported = true;
            self.last_burn = Some((card, target, index));
        }
    }

    fn withdrawn(&mut self, code: IrregularityCode) {
        if let Some(r) = self
            .round
            .as_mut()
            .filter(|_| code == IrregularityCode::DealOutOfOrder)
        {
            r.order_flagged = false;
        }
    }

    fn stray_card(&mut self, event: &TableEvent, _in_round: bool, found: &mut Findings) -> Stray {
        self.stray(event, found)
    }

    fn shuffle_begins_an_empty_partial_shoe(&self) -> bool {
        true
    }

    fn shuffle_begins_an_empty_shoe_again(&self) -> bool {
        true
    }

    fn replaced_cards_start_afresh(&mut self) -> bool {
        // The round before belongs to the old cards (the engine's `prev` forgotten).
        self.last_open = false;
        self.last_checked = None;
        true
    }

    fn first_card_begins_a_shoe(&self) -> bool {
        true
    }

    fn shuffles_reported(&self) -> bool {
        self.shuffles_reported
    }

    fn shuffled(&mut self, _seq: u64, _deck_ok: bool) {
        self.shuffles_reported = true;
    }

    fn start_round(&mut self, shoe: u32, number: u32, seq: u64) {
        self.synced = true;
        let unannounced = self.carry_next.is_none()
            && !self.bets_reported
            && self.last_open
            && self.last_checked == Some(false);
        if self.carry_next.is_none() {
            if let Some(checked) = self.last_checked {
                self.results_run = if checked {
                    self.results_run.saturating_add(1)
                } else {
                    0
                };
            }
        }
        self.round = Some(Live {
            shoe,
            number,
            hands: BySide::default(),
            // The first card of every round is the Player's (8.4), whatever the Table of Play.
            next: NextCard::To(Side::Player, 1),
            first_seq: seq,
            last_seq: seq,
            order_flagged: false,
            order_gap: None,
            ahead: [None; 4],
            ahead_len: 0,
            held: None,
            late: [0; 2],
            late_len: 0,
            carried: false,
            no_bets: false,
            tentative: false,
            confirming: false,
            unannounced: false,
            after_bets: false,
            seqs: [0; 6],
            placed: 0,
        });
        if let Some(r) = self.round.as_mut().filter(|_| unannounced) {
            r.unannounced = true;
        }
        if let Some((card, disclosed, tentative)) = self.carry_next.take() {
            // 12.1(b): the card after the round before was complete is this round's first card.
            let drawing = self.drawing;
            if let Some(r) = self.round.as_mut() {
                r.tentative = tentative;
                r.push(&drawing, seq, Side::Player, card);
                r.carried = true;
                r.no_bets = disclosed;
            }
        }
    }

    fn burn_reading(&self) -> pitwatch_rules::table::burn::Reading {
        // A device that reports targets marks the burn's cards: a plain card from it is a
        // stray card, never the burn's.
        pitwatch_rules::table::burn::Reading {
            until_bets: self.bets_reported && !self.targets_reported,
            hold_unknown: !self.bets_reported && !self.targets_reported,
        }
    }

    fn round_given_back(&self, count: Option<u32>) -> Option<u32> {
        let r = self.round.as_ref()?;
        let cards = (r.hands.player.len() + r.hands.banker.len()) as u32;
        match count {
            // A plain round taken after the burn's count, before the shoe's first "no more bets".
            None => (!self.targets_reported && !r.carried && cards < 4).then_some(cards),
            Some(n) => (cards == n).then_some(n),
        }
    }

    fn carried_only(&self) -> bool {
        self.round.as_ref().is_some_and(|r| r.carried)
    }

    fn discard_round(&mut self) {
        self.round = None;
    }

    #[inline(always)]
    fn handle_event(&mut self, event: &TableEvent, found: &mut Findings) {
        if let EventKind::CardDrawn {
            card,
            target,
            index,
            retransmit,
            ..
        } = &event.kind
        {
            if target.is_some() {
                self.targets_reported = true;
            }
            self.last_open = false;
            let retransmit = *retransmit == Some(true);
            self.place(event.seq, *card, *target, *index, retransmit, found);
        }
    }

    #[inline]
    fn is_complete(&self) -> bool {
        self.round
            .as_ref()
            .is_some_and(|r| r.next == NextCard::Complete && !r.confirming)
    }

    fn close_round(&mut self, seq: u64, cut_off: bool, found: &mut Findings) -> RoundRecord {
        self.close_round_by(seq, cut_off, Boundary::End, found)
    }

    fn close_round_by(
        &mut self,
        seq: u64,
        cut_off: bool,
        by: Boundary,
        found: &mut Findings,
    ) -> RoundRecord {
        // Read in place, not moved out: the round is large, and every round is closed.
        let Some(r) = self.round.as_ref() else {
            return self.no_round_to_close();
        };
        // Most rounds are complete by the rules, with no card held ahead and none between rounds:
        // nothing to place, set aside or find at their close.
        if r.ahead_len > 0 || r.tentative || r.next != NextCard::Complete {
            self.prepare_close(seq, cut_off, by, found);
        }
        let Some(r) = self.round.as_ref() else {
            return self.no_round_to_close();
        };
        let complete = r.next == NextCard::Complete;
        self.early = r.held.filter(|_| complete).map(|s| (s, r.late, r.late_len));
        let mut record = RoundRecord::from_hands(r.shoe, r.number, r.hands.player, r.hands.banker);
        record.first_seq = r.first_seq;
        record.last_seq = r.last_seq;
        record.complete = complete;
        record.partial = self.partial;
        record.no_bets = r.no_bets;
        self.round = None;
        self.last = Some(record);
        // A round closed by a cut is not open to a stray card of its own after it, nor is its
        // result checked (the next result may be a round's dealt unseen).
        let cut = std::mem::take(&mut self.cut);
        self.last_open = !cut;
        self.last_checked = (!cut).then_some(false);
        record
    }

    fn round_view(&self) -> Option<RoundView> {
        let r = self.round.as_ref()?;
        let hands = &r.hands;
        let next = NextCardView::of(r.next);
        Some(RoundView {
            number: r.number,
            player: hands.player,
            banker: hands.banker,
            player_total: hands.player.total(),
            banker_total: hands.banker.total(),
            next,
            carried: r.carried,
            no_bets: r.no_bets,
            first_seq: r.first_seq,
        })
    }

    fn last_round(&self) -> Option<RoundRecord> {
        self.last
    }

    fn carry(&self) -> BaccaratCarry {
        BaccaratCarry {
            last_round: self.last,
            targets_reported: self.targets_reported,
            bets_reported: self.bets_reported,
            shuffles_reported: self.shuffles_reported,
            results_run: self.results_run,
        }
    }

    fn resume(&mut self, carry: BaccaratCarry) {
        self.last = carry.last_round;
        self.targets_reported = carry.targets_reported;
        self.bets_reported = carry.bets_reported;
        self.shuffles_reported = carry.shuffles_reported;
        self.results_run = carry.results_run;
    }
}
