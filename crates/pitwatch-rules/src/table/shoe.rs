//! The shoe rules of the shared tracker, written once with their messages: a shuffle starts a
//! shoe (its deck check, its count against the book's decks), the cut and the cutting card within
//! the book's limits, the end of the shoe by the cutting card (Pontoon 7.1), each card counted
//! against the shoe (foreign, excess and unreadable cards), a card after the end or before a new
//! shuffle, and cards exposed while cutting, loading or dealing.

use pitwatch_model::{
    Card, EventKind, ExposedDuring, ShoeComposition, ShufflerKind, TableEvent, Target,
};

use super::burn::BurnState;
use super::HELD_BURN;
use super::{Held, ShoeState, Table, TableOutput, Unshuffled};
use crate::book::CutLimit;
use crate::irregularity::IrregularityCode as Code;
use crate::record::ShoeSummary;
use crate::seam::{Boundary, Findings, RoundGame, ShoeFact};

/// A counting shuffler's deck check as the open protocol's `SHUFFLE_DONE` carries it on the
/// `shuffled` event (`missing_cards`, `extra_cards`, `foreign_cards`): a count can be right while
/// a card is missing and another doubled, which only these show.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DeckCheck {
    missing: u64,
    extra: u64,
    foreign: u64,
}

impl DeckCheck {
    /// The deck check the `shuffled` event carries (all zero when it carries none).
    pub fn of(event: &TableEvent) -> DeckCheck {
        let n = |key: &str| {
            event
                .extra
                .get(key)
                .and_then(serde_json::Value::as_u64)
                .unwrap_or(0)
        };
        DeckCheck {
            missing: n("missing_cards"),
            extra: n("extra_cards"),
            foreign: n("foreign_cards"),
        }
    }

    /// What the check found wrong, in words, if anything.
    pub fn problem(self) -> Option<String> {
        (self != DeckCheck::default()).then(|| {
            format!(
                "the shuffler's deck check found {} missing, {} extra and {} foreign",
                self.missing, self.extra, self.foreign
            )
        })
    }
}

impl<G: RoundGame> Table<G> {
    // ----- shoes -----

    /// A shoe-level finding's message: the game's words for `fact`, else the table's.
    pub(super) fn worded(&self, fact: &ShoeFact<'_>, table: impl FnOnce() -> String) -> String {
        self.game.shoe_wording(fact).unwrap_or_else(table)
    }

    pub(super) fn ensure_shoe(&mut self, seq: u64) {
        if !self.shoe_open {
            self.start_shoe(seq, self.rules.composition, None, true);
        }
    }

    pub(super) fn start_shoe(
        &mut self,
        seq: u64,
        composition: ShoeComposition,
        shuffler: Option<ShufflerKind>,
        partial: bool,
    ) {
        // A shoe that has shown no card is begun again by a shuffle, if the game says so (one
        // joined part-way, or a whole one): the shoe is the same, from its first event.
        let empty = self.shoe_open
            && !self.shoe.interrupted
            && self.shoe.cards == 0
            && self.shoe.rounds == 0
            && self.round.is_none();
        let again = empty
            && if self.shoe.partial {
                self.game.shuffle_begins_an_empty_partial_shoe()
            } else {
                self.game.shuffle_begins_an_empty_shoe_again()
            };
        self.begin_shoe(seq, composition, shuffler, partial, again);
    }

    /// Starts a shoe at `seq` (`again`: the shoe open, which has shown no card, begun again from
    /// its first event rather than ended).
    fn begin_shoe(
        &mut self,
        seq: u64,
        composition: ShoeComposition,
        shuffler: Option<ShufflerKind>,
        partial: bool,
        again: bool,
    ) {
        self.close_round(seq, Boundary::Reshuffle);
        if !partial {
            // A shuffle: every round from here is seen from its start.
            self.joining = false;
        }
        let first_seq = if again { self.shoe.first_seq } else { seq };
        if !again {
            // Once a shoe: what survives into the new shoe, as it stands now.
            self.carry = self.carry_now();
            self.end_shoe();
            self.shoe_no += 1;
        }
        self.last_result = None;
        self.shoe_open = true;
        self.shoe = ShoeState {
            counter: composition.counter(),
            continuous: self.rules.shuffler == ShufflerKind::Continuous
                || shuffler == Some(ShufflerKind::Continuous),
            partial,
            cards: 0,
            rounds: 0,
            first_seq,
            last_seq: seq,
            cutting_card_out: false,
            cutting_card_flagged: false,
            ended: None,
            past_end_flagged: false,
            afresh: false,
            unshuffled_flagged: false,
            dealt_unshuffled: false,
            replaced: false,
            end_at_bets: None,
            last_open: false,
            cut_in_next: false,
            interrupted: false,
            placing: false,
            cards_since_bets: 0,
            bets_seen: false,
            burn: BurnState::start(self.rules.burn, seq, partial),
            held_burn: Vec::new(),
            last_round: None,
        };
        self.game.shoe_started(seq, partial);
    }

    /// A burn's first card (`first`, at `seq`) when no shoe awaits one, from a device that
    /// announces each shoe so (the Angel Eye reports no shuffle) under a game that follows it
    /// ([`RoundGame::first_card_begins_a_shoe`]): a new whole shoe begins with it (the shoe open,
    /// if it has shown no card, begun again), loaded from the shuffler's last shuffle (its decks,
    /// when the shuffler counted them), its preparation steps judged. If the stream reports
    /// shuffles ([`RoundGame::shuffles_reported`]) or the cards wait for one, that shoe was not
    /// shuffled (`NOT_SHUFFLED`); after an interruption the shuffle may have gone by unseen.
    pub(super) fn first_card_of_a_shoe(&mut self, seq: u64) {
        let awaiting = self.shoe.burn.view().status == crate::view::BurnStatus::AwaitingFirst;
        if !self.game.first_card_begins_a_shoe() || self.shoe_open && awaiting {
            return;
        }
        // A table resumed at this shoe knows from its carry whether the shoe before was cut off.
        let interrupted =
            self.shoe_open && self.shoe.interrupted || !self.shoe_open && self.after_cut;
        // A shoe just shuffled with nothing drawn yet is this shoe, not a previous one.
        let fresh = self.shoe_open && self.shoe.cards == 0 && self.unshuffled.is_none();
        let composition = if fresh {
            self.shoe.counter.composition()
        } else {
            let book = self.rules.composition;
            match self.shuffler.pending.as_ref().and_then(|held| held.decks) {
                Some(decks) if decks > 0 => ShoeComposition::new(decks, book.kind),
                _ => book,
            }
        };
        let shuffler = (fresh && self.shoe.continuous).then_some(ShufflerKind::Continuous);
        self.close_round(seq, Boundary::Reshuffle);
        let again = self.shoe_open && self.shoe.cards == 0 && self.shoe.rounds == 0;
        self.after_cut = interrupted;
        self.begin_shoe(seq, composition, shuffler, false, again);
        self.after_cut = false;
        if fresh {
            return;
        }
        // Loaded from the shuffler's last shuffle (used up here whatever else is said).
        if let Some(found) = self.shuffler.load_steps(seq, &self.shuffle_steps, true) {
            self.flag_found_as(seq, found, "NOT_SHUFFLED/steps");
        }
        let loaded = self.shuffler.loaded(seq, None, None);
        if interrupted {
            // The shuffle may have happened while nobody was listening.
        } else if self.game.shuffles_reported() || self.unshuffled.is_some() {
            self.unshuffled = None;
            let message = self.worded(&ShoeFact::FirstCardUnshuffled, || {
                "A new shoe began with the burn's first card, with no shuffle since the last \
                 shoe: the cards must be shuffled before play."
                    .to_owned()
            });
            self.flag_now(Code::NotShuffled, "NOT_SHUFFLED/first_card", seq, message);
        } else if let Some(found) = loaded {
            self.flag_found(seq, found);
        }
    }

    /// A cut or a cutting card placed after an interruption, in a shoe that has shown no card:
    /// the deal has not begun (a shoe is cut and its cutting card placed before its first card),
    /// so whatever went by while nobody listened held no card. The shoe is followed from here as
    /// one begun again (burn and rounds as usual); it stays partial, since its shuffle may have
    /// gone by unseen.
    pub(super) fn resume_before_first_card(&mut self, seq: u64) {
        let shoe = &self.shoe;
        if self.shoe_open
            && shoe.interrupted
            && !shoe.continuous
            && shoe.cards == 0
            && shoe.rounds == 0
            && self.round.is_none()
        {
            let composition = shoe.counter.composition();
            self.begin_shoe(seq, composition, None, false, true);
            self.shoe.partial = true;
        }
    }

    pub(super) fn end_shoe(&mut self) {
        if !self.shoe_open {
            return;
        }
        // A round's irregularity still waiting for its result goes out with its shoe, and so
        // does what was held for rounds taken since a cut.
        self.flush_pending();
        self.release_unaligned();
        self.out.push_back(TableOutput::Shoe(ShoeSummary {
            shoe: self.shoe_no,
            rounds: self.shoe.rounds,
            cards: self.shoe.cards,
            partial: self.shoe.partial,
            continuous: self.shoe.continuous,
            open_device_errors: self.open_errors.len() as u32,
            first_seq: self.shoe.first_seq,
            last_seq: self.shoe.last_seq,
        }));
        self.shoe_open = false;
    }

    pub(super) fn on_shuffled(
        &mut self,
        seq: u64,
        decks: Option<u8>,
        cards: Option<u32>,
        shuffler: Option<ShufflerKind>,
        check: DeckCheck,
    ) {
        let kind = self.rules.composition.kind;
        let decks_used = decks.unwrap_or(self.rules.composition.decks);
        let composition = ShoeComposition::new(decks_used.max(1), kind);
        self.unshuffled = None;
        self.start_shoe(seq, composition, shuffler, false);
        if let Some(found) = self.shuffler.load_steps(seq, &self.shuffle_steps, true) {
            self.flag_found_as(seq, found, "NOT_SHUFFLED/steps");
        }
        if let Some(found) = self.shuffler.loaded(seq, decks, cards) {
            self.flag_found(seq, found);
        }
        let mut wrong = Vec::new();
        let allowed = !(self.rules.min_decks..=self.rules.max_decks).contains(&decks_used);
        let counted = cards
            .filter(|&c| c != composition.total_cards())
            .map(|c| (c, composition.total_cards()));
        if allowed {
            wrong.push(format!(
                "{decks_used} decks, where the book allows {} to {}",
                self.rules.min_decks, self.rules.max_decks
            ));
        }
        if let Some(cards) = cards {
            if cards != composition.total_cards() {
                wrong.push(format!(
                    "{cards} cards counted, where {decks_used} decks of {} hold {}",
                    kind.cards_per_deck(),
                    composition.total_cards()
                ));
            }
        }
        if let Some(found) = check.problem() {
            wrong.push(found);
        }
        self.game.shuffled(seq, wrong.is_empty());
        if !wrong.is_empty() {
            let fact = ShoeFact::ShuffleWrong {
                decks: decks_used,
                allowed: allowed.then_some((self.rules.min_decks, self.rules.max_decks)),
                counted,
                kind,
                check: check.problem(),
            };
            let message = self.worded(&fact, || {
                format!("The shuffled set is wrong: {}.", wrong.join("; "))
            });
            self.flag_now(
                Code::ShuffleCountMismatch,
                "SHUFFLE_COUNT_MISMATCH",
                seq,
                message,
            );
        }
    }

    pub(super) fn on_cut(&mut self, seq: u64, position: u32) {
        if self.shoe.continuous || self.shoe.partial {
            return;
        }
        let Some(limit) = self.rules.cut else {
            return;
        };
        let composition = self.shoe.counter.composition();
        let min = limit.cards(composition);
        let total = composition.total_cards();
        if position < min || total.saturating_sub(position) < min {
            let fact = ShoeFact::CutTooClose {
                position,
                total,
                min,
            };
            let message = self.worded(&fact, || match limit {
                CutLimit::Decks(decks) => format!(
                    "The cut was {position} cards from the front of {total}: it must be at least {min} cards ({decks} deck{}) from either end.",
                    if decks == 1 { "" } else { "s" }
                ),
                CutLimit::Cards(_) => format!(
                    "The cut was {position} cards from the front of {total}: it must be at least {min} cards from either end."
                ),
            });
            self.flag_now(Code::CutTooCloseToEnd, "CUT_TOO_CLOSE_TO_END", seq, message);
        }
    }

    pub(super) fn cutting_card_problem(&self, from_back: u32) -> Option<String> {
        let total = self.shoe.counter.composition().total_cards();
        let limit = self.rules.cutting_card?;
        let min = limit.min_from_back;
        if min > 0 && from_back < min {
            return Some(format!(
                "{from_back} cards behind it, where the book requires at least {min}"
            ));
        }
        match limit.max_from_back_fraction {
            _ if limit.allows(from_back, total) => None,
            Some(0.5) => Some(format!(
                "{from_back} cards behind it of {total}: it may be no more than half way in from the back ({} cards)",
                total / 2
            )),
            Some(fraction) => Some(format!(
                "{from_back} cards behind it of {total}: it may be no deeper than {:.0}% of the shoe from the back",
                fraction * 100.0
            )),
            None => None,
        }
    }

    pub(super) fn on_cutting_card_placed(&mut self, seq: u64, from_back: u32) {
        if self.shoe.continuous || self.shoe.partial {
            return;
        }
        if let Some(problem) = self.cutting_card_problem(from_back) {
            let fact = ShoeFact::CuttingCard {
                placed: true,
                behind: from_back,
                dealt: self.shoe.cards,
                problem: &problem,
            };
            let message = self.worded(&fact, || {
                format!("The cutting card was placed with {problem}.")
            });
            self.shoe.cutting_card_flagged = true;
            self.flag_now(
                Code::CuttingCardMisplaced,
                "CUTTING_CARD_MISPLACED",
                seq,
                message,
            );
        }
    }

    pub(super) fn on_cutting_card(&mut self, seq: u64) {
        if self.shoe.continuous || self.shoe.cutting_card_out {
            return;
        }
        self.shoe.cutting_card_out = true;
        let again =
            !self.shoe.cutting_card_flagged || self.game.flags_again(Code::CuttingCardMisplaced);
        if !self.shoe.partial && !self.shoe.replaced && again {
            let behind = self.shoe.counter.remaining();
            if let Some(problem) = self.cutting_card_problem(behind) {
                let fact = ShoeFact::CuttingCard {
                    placed: false,
                    behind,
                    dealt: self.shoe.cards,
                    problem: &problem,
                };
                let message = self.worded(&fact, || {
                    format!("The cutting card came out with {problem}.")
                });
                self.shoe.cutting_card_flagged = true;
                self.flag_shoe(
                    Code::CuttingCardMisplaced,
                    "CUTTING_CARD_MISPLACED",
                    seq,
                    message,
                );
            }
        }
        // A round already complete is over: the shoe ends now, as between rounds (7.1(b)), though
        // the round stays open for a card of its own that may still come (a dealer's card taken
        // after it looked complete is that round's fault, not a round past the end). After a card
        // held to see whether it begins the next round, the cutting card came in that round if it
        // did, and after this one if not (`resolve_held`). During a round the shoe ends at its end
        // (7.1(c)).
        if let Some(held) = &mut self.held {
            held.cut = Some(seq);
            return;
        }
        // A game whose end-of-shoe rule lets rounds begin after the cutting card: the shoe ends
        // when its last round closes (`close_round`).
        let in_round = self.round.is_some() && !self.game.is_complete();
        let more = self.game.rounds_after_cutting_card(in_round);
        if more > 0 {
            let so_far = self.shoe.rounds + u32::from(self.round.is_some());
            self.shoe.last_round = Some(so_far + more);
            return;
        }
        if self.round.is_some() && self.game.is_complete() {
            self.shoe.ended = Some(seq);
            self.shoe.last_open = true;
            return;
        }
        if self.round.is_some() {
            return;
        }
        // Between rounds when the stream places its cards in rounds, or right after "no more
        // bets": the shoe ends now (7.1(b)). A plain stream's cutting card after cards of a round
        // the table cannot see ends the shoe at the next "no more bets" (7.1(c)); with none, it
        // cannot tell where that round ends and checks nothing past it.
        let between = self.shoe.placing
            || self.shoe.cards == 0
            || (self.shoe.bets_seen && self.shoe.cards_since_bets == 0);
        if between {
            self.shoe.ended = Some(seq);
        } else {
            self.shoe.end_at_bets = Some(seq);
        }
    }

    pub(super) fn on_exposed(&mut self, seq: u64, card: Option<Card>, during: ExposedDuring) {
        let what = card.map_or_else(|| "A card".to_owned(), |c| format!("The {c}"));
        let fact = ShoeFact::Exposed { card, during };
        match during {
            ExposedDuring::Cutting | ExposedDuring::Loading => {
                self.unshuffled = Some((Unshuffled::Exposed, seq));
                self.shoe.dealt_unshuffled = false;
                let message = self.worded(&fact, || format!("{what} was exposed while {during}: the cards must be shuffled again before play."));
                self.flag_now(Code::CardExposed, "CARD_EXPOSED", seq, message);
            }
            ExposedDuring::Dealing => {
                let message = self.worded(&fact, || format!("{what} was exposed while dealing."));
                if self.round.is_some() {
                    self.found.flag(Code::CardExposed, seq, vec![seq], message);
                    if self.joined {
                        // Flagged whatever came before; what the game would count, not judged.
                        self.take_found();
                        self.game.exposed(seq, card, &mut Findings::default());
                    } else {
                        self.game.exposed(seq, card, &mut self.found);
                        self.take_found();
                    }
                } else if self.shoe.rounds > 0 && self.game.last_rounds(Code::CardExposed) {
                    self.found.flag_cited(
                        Code::CardExposed,
                        "CARD_EXPOSED",
                        seq,
                        vec![seq],
                        message,
                    );
                    self.take_found_for_last();
                } else {
                    self.flag_now(Code::CardExposed, "CARD_EXPOSED", seq, message);
                }
            }
        }
    }

    /// Feeds one card (`retransmitted`: the device's report sent again). Inline in
    /// [`Table::handle_event`]'s dispatch, since most events are cards; the other events' path is
    /// out of line.
    #[inline(always)]
    pub(super) fn card_event(
        &mut self,
        event: &TableEvent,
        card: Option<Card>,
        target: Option<Target>,
        retransmitted: bool,
    ) {
        let seq = event.seq;
        if retransmitted && self.game.repeats(event) {
            // The device sent again a report of a card already counted: it is no card.
            self.finished = false;
            if self.shoe_open {
                self.shoe.last_seq = seq;
            }
            self.last_seq = Some(seq);
            return;
        }
        self.resolve_held(Some(event));
        if self.result_held.is_some() && !self.game.holds_for(&event.kind) {
            // The card the round was held open for did not come: closed at its result.
            self.end_result_hold();
        }
        self.finished = false;
        if target == Some(Target::First) {
            self.first_card_of_a_shoe(seq);
        }
        self.ensure_shoe(seq);
        self.on_card(event, card, target);
        if self.shoe_open {
            self.shoe.last_seq = seq;
        }
        self.last_seq = Some(seq);
    }

    #[inline(always)]
    pub(super) fn on_card(
        &mut self,
        event: &TableEvent,
        card: Option<Card>,
        target: Option<Target>,
    ) {
        let seq = event.seq;
        self.shoe.cards += 1;
        self.shoe.cards_since_bets += 1;
        // Where the card went decides the round it belongs to before any finding about it.
        let mut placed = target.is_some() && self.game.is_round_event(&event.kind);
        // A plain card a game places by its own rules is a round's card once it is not the
        // burn's (the burn reads it as a plain card).
        let mut plain_round = target.is_none() && self.game.places_plain_cards();
        let mut burned = false;
        // A plain card before the shoe's first "no more bets" is the burn's, past its count too,
        // when the game reads the burn so (8.2: no round begins before it).
        let until_bets = target.is_none()
            && !self.shoe.bets_seen
            && !self.shoe.partial
            && self.shoe.burn.in_book()
            && self.game.burn_reading().until_bets;
        if self.shoe.burn.reads(until_bets) {
            let face_up = match &event.kind {
                EventKind::CardDrawn { face_up, .. } => *face_up,
                _ => None,
            };
            let reading = super::burn::Reading {
                until_bets,
                hold_unknown: !self.shoe.partial && self.game.burn_reading().hold_unknown,
            };
            let mut found = Vec::new();
            let step = self
                .shoe
                .burn
                .card(seq, card, target, face_up, placed, reading, &mut found);
            self.flag_burn(seq, found);
            burned = step == super::burn::Step::Burned;
            if step == super::burn::Step::Unknown {
                // After an unreadable first card: held as the burn's until "no more bets" or the
                // device's count says where the burn ended, or, past the longest burn, followed
                // as rounds from its first held card (this card after them).
                if self.shoe.held_burn.len() < HELD_BURN && self.shoe.burn.hold() {
                    self.shoe.held_burn.push(event.clone());
                    burned = true;
                } else {
                    self.shoe.burn.give_up_holding();
                    let held = std::mem::take(&mut self.shoe.held_burn);
                    self.release_held(held);
                }
            }
            // A burn card is counted against the shoe and given to no round.
            placed &= !burned;
            plain_round &= !burned;
        }
        placed |= plain_round;
        self.shoe.placing = placed;
        // Counted against the shoe now; what it shows is said in the round it turns out to be in.
        let fits = card.is_none_or(|card| self.shoe.counter.see(card));
        if placed && self.round.is_some() && self.game.provisional(&event.kind) {
            // A card that would begin the next round after the round in progress looked over:
            // it may be a stray card of that round. The next event decides (`resolve_held`).
            self.held = Some(Held {
                event: event.clone(),
                fits,
                cut: None,
            });
            return;
        }
        if burned {
            self.game.burn_card(event);
        }
        if !self.place_card(event, card, placed, fits, true) && !burned {
            // Not the burn's, and in no round: the game says whose it is.
            self.stray_card(event);
        }
    }

    /// Gives a counted card its round: the next round's, if it begins one and `may_begin`, else
    /// the round in progress (or none); then what the card shows is found in that round. Whether
    /// the card was given to a round.
    #[inline(always)]
    pub(super) fn place_card(
        &mut self,
        event: &TableEvent,
        card: Option<Card>,
        placed: bool,
        fits: bool,
        may_begin: bool,
    ) -> bool {
        // Cards that must first be shuffled are rare: asked once (nothing a card's placing does
        // shuffles or replaces the cards), and that case out of line.
        if self.unshuffled.is_some() {
            return self.place_unshuffled_card(event, card, placed, fits, may_begin);
        }
        self.place_card_from(event, card, placed, fits, may_begin, false)
    }

    /// [`Table::place_card`] of a card dealt from cards that must first be shuffled.
    #[inline(never)]
    fn place_unshuffled_card(
        &mut self,
        event: &TableEvent,
        card: Option<Card>,
        placed: bool,
        fits: bool,
        may_begin: bool,
    ) -> bool {
        self.place_card_from(event, card, placed, fits, may_begin, true)
    }

    /// [`Table::place_card`], `unshuffled` saying whether the cards must first be shuffled.
    #[inline(always)]
    fn place_card_from(
        &mut self,
        event: &TableEvent,
        card: Option<Card>,
        placed: bool,
        fits: bool,
        may_begin: bool,
        unshuffled: bool,
    ) -> bool {
        let seq = event.seq;
        // A card dealt from cards that must first be shuffled, flagged in no round: found before
        // the round it may begin (so before what that round's start outputs).
        let unshuffled_first = unshuffled && !self.game.unshuffled_card_in_round();
        if unshuffled_first {
            self.flag_unshuffled(seq, false);
        }
        let opened = placed && may_begin && self.enter_round(event);
        let fits = if opened && self.shoe.continuous && self.game.counts_copies_per_round() {
            // Copies are counted within the round: it begins with a fresh count, its first card.
            self.shoe.counter = self.shoe.counter.composition().counter();
            card.is_none_or(|card| self.shoe.counter.see(card))
        } else {
            fits
        };
        let in_round = self.round.is_some();
        if !fits || card.is_none() {
            self.flag_card_shown(seq, card, fits, in_round);
        }
        // A card of the round the cutting card ended the shoe with (kept open for its own stray
        // cards) is that round's, not a card past the end.
        let last_round = placed && !opened && self.shoe.last_open;
        if unshuffled && !unshuffled_first {
            self.flag_unshuffled(seq, in_round);
        }
        // While the cards wait for a shuffle the end is not followed, unless the game follows
        // replaced cards afresh.
        let end_followed = !unshuffled || self.shoe.afresh;
        if let Some(cut_seq) = self.shoe.ended.filter(|_| !last_round && end_followed) {
            self.card_past_end(seq, cut_seq, in_round);
        }
        let given = placed && self.round.is_some();
        if given {
            self.game_event(event);
        }
        given
    }

    /// Cards held as the burn's that proved a round's: placed, as they came (counted already).
    pub(super) fn release_held(&mut self, held: Vec<TableEvent>) {
        for event in held {
            self.place_card(&event, card_of(&event), true, true, true);
        }
    }

    /// A card dealt from cards that must first be shuffled (once): the round's if `in_round`.
    fn flag_unshuffled(&mut self, seq: u64, in_round: bool) {
        let Some((why, since)) = self.unshuffled else {
            return;
        };
        self.shoe.dealt_unshuffled = true;
        let flagged = if self.shoe.afresh {
            &mut self.shoe.unshuffled_flagged
        } else {
            &mut self.shoe.past_end_flagged
        };
        if *flagged {
            return;
        }
        *flagged = true;
        let fact = ShoeFact::Unshuffled {
            replaced: why == Unshuffled::Replaced,
            since,
        };
        let why = match why {
            Unshuffled::Replaced => "the cards were replaced",
            Unshuffled::Exposed => "a card was exposed before the cards entered the shoe",
        };
        self.found.flag_cited(
            Code::NotShuffled,
            "NOT_SHUFFLED/replaced",
            seq,
            vec![since, seq],
            self.worded(&fact, || {
                format!("A card was dealt after {why} (seq {since}) without a new shuffle.")
            }),
        );
        self.take_found_or_now(in_round && self.game.unshuffled_card_in_round());
    }

    /// What a card shows that the shoe cannot hold: a foreign or excess card, or an unreadable
    /// one. Rare, so kept out of the path every card takes.
    #[cold]
    #[inline(never)]
    fn flag_card_shown(&mut self, seq: u64, card: Option<Card>, fits: bool, in_round: bool) {
        if let Some(card) = card.filter(|_| !fits) {
            let composition = self.shoe.counter.composition();
            let fact = ShoeFact::Excess {
                card,
                copy: self.shoe.counter.seen(card),
                holds: composition.copies_of(card),
            };
            let message = self.worded(&fact, || if composition.copies_of(card) == 0 {
                format!(
                    "The {card} is a foreign card: a shoe of {} decks holds none.",
                    composition.kind.name()
                )
            } else {
                format!(
                    "A copy of the {card} beyond the {} the shoe holds: a foreign or duplicate card.",
                    composition.copies_of(card)
                )
            });
            self.flag(in_round, Code::ExcessCard, "EXCESS_CARD", seq, message);
            if in_round && self.joined {
                self.game.defective(seq, card, &mut Findings::default());
            } else if in_round {
                self.game.defective(seq, card, &mut self.found);
                self.take_found();
            }
        } else if card.is_none() {
            self.flag(
                in_round,
                Code::UnreadableCard,
                "UNREADABLE_CARD",
                seq,
                self.worded(&ShoeFact::Unreadable, || {
                    "The device could not read a card; the hands it belongs to are not judged on it."
                        .to_owned()
                }),
            );
        }
    }

    /// A card dealt after the shoe ended (the cutting card came out at `cut_seq`): the game's own
    /// finding, else the table's. Rare, so kept out of the path every card takes.
    #[cold]
    #[inline(never)]
    fn card_past_end(&mut self, seq: u64, cut_seq: u64, in_round: bool) {
        // A game's own finding is asked in a shoe joined part-way too (its end was seen); the
        // table's own is not made there.
        let game_says = if self.shoe.past_end_flagged {
            None
        } else {
            let round = self.round.map(|_| self.shoe.rounds + 1);
            let last = self.shoe.rounds;
            let said = self.game.past_end(seq, round, last, &mut self.found);
            if said.is_some() {
                self.shoe.past_end_flagged = said == Some(true);
                self.take_found_or_now(in_round);
            }
            said
        };
        if game_says.is_none() && !self.shoe.past_end_flagged && !self.shoe.partial {
            self.shoe.past_end_flagged = true;
            self.found.flag_cited(
                Code::NotShuffled,
                "NOT_SHUFFLED/past_end",
                seq,
                vec![cut_seq, seq],
                format!(
                    "A card was dealt after the shoe ended (the cutting card came out, seq \
                     {cut_seq}): the cards must be shuffled before a further round."
                ),
            );
            self.take_found_or_now(in_round);
        }
    }
}

/// The card a card event shows (`None`: unreadable, or no card event).
pub(super) fn card_of(event: &TableEvent) -> Option<Card> {
    match &event.kind {
        EventKind::CardDrawn { card, .. } => *card,
        _ => None,
    }
}
