//! The basic-strategy player's edge off the top of the cards left (issue 29): the expected
//! return of one box's main wager on the next round, in percent (positive: the player ahead),
//! under the book's play rules, with a stated method and a tested error bound.
//!
//! **Method.** The player's two first cards and the dealer's first card are weighed exactly by
//! the cards left (drawing without replacement), and so is the chance of a dealer natural behind
//! each of them. Every later card (the player's draws, the dealer's second and later cards) is
//! drawn from the cards left less the dealer's first card, as if with replacement ("an infinite
//! shoe at the current composition"). At that composition the dealer's final totals are exact
//! for each first card (conditioned on no natural; the natural weighed apart), and the player's
//! best play of stand, hit, double and surrender is found by dynamic programming over (total,
//! soft, cards in the hand) states. Splits are valued as independent hands drawing from the same
//! composition, resplits counted by a small branching process up to the book's `max_hands`.
//! The values of each first decision are then corrected for the player's own two cards leaving
//! the shoe, to first order: the whole calculation is repeated at the composition less one card
//! of each value, and a hand of `a` and `b` adds the change taking out an `a` makes and the
//! change taking out a `b` makes (the first decision is chosen on the corrected values; later
//! decisions are those at the upcard's composition). Without the correction the figure ran
//! 0.07 to 0.10 points low on whole six-deck shoes and about 0.4 on a single deck
//! (docs/exposure.md gives the runs).
//!
//! **The hole card.** With a peek (`american`) the player decides knowing the dealer has no
//! natural, and a dealer natural takes one unit (a natural pushes). With no hole card the player
//! decides not knowing it, and a dealer natural takes what the book's `dealer_natural_takes`
//! says of each hand still standing (as the engine settles: the original wager only takes one
//! unit from the box's first hand); the strategy maximises the expectation over both.
//!
//! **Pontoon.** A 21 paid at once (`player_21_wins_at_once`) is paid before the dealer plays,
//! at the book's bonus for a five, six or seven-card 21 and for 6-7-8 and 7-7-7 of the two first
//! cards and one more (at the mixed-suit pay: the suited and spades pays are not modelled).
//!
//! The figure is checked against a Monte Carlo reference that deals real rounds from the finite
//! shoe and plays the same decisions ([`Analysis::strategy`]); [`error_bound`] is what that test
//! asserts.

use pitwatch_model::deck::ShoeCounter;
use pitwatch_model::{Card, Rank, ShoeComposition};
use serde::Serialize;

use crate::book::{Book, DealerNaturalTakes, DoubleOn, HoleCard};

/// Fewest cards left for which the edge is computed: a round with splits can use twenty cards.
pub const MIN_CARDS: u32 = 20;

/// The method, in one sentence a surveillance officer can read.
pub const METHOD: &str = "The basic-strategy player's expected return on one box's main wager for \
the next round: the two first cards and the dealer's card weighed exactly by the cards left, \
every later card drawn from the cards left as if with replacement (corrected to first order for \
the player's own two cards), the best of stand, hit, double, split and surrender chosen for \
each hand under the book's rules.";

/// The cards left, by Blackjack value: index 0 the aces, 1 to 8 the twos to nines, 9 the tens
/// and court cards.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct RanksLeft {
    counts: [u32; 10],
}

impl RanksLeft {
    /// From counts by value (aces first, ten-value cards last).
    pub const fn from_counts(counts: [u32; 10]) -> RanksLeft {
        RanksLeft { counts }
    }

    /// A whole shoe of `composition`.
    pub fn full(composition: ShoeComposition) -> RanksLeft {
        let mut counts = [0u32; 10];
        for i in 0..Card::DISTINCT {
            if let Some(card) = Card::from_index(i) {
                counts[value_index(card.rank)] += u32::from(composition.copies_of(card));
            }
        }
        RanksLeft { counts }
    }

    /// The cards `counter` has not seen (unseen cards stay in: the module doc of
    /// [`crate::exposure`] says why).
    pub fn after(counter: &ShoeCounter) -> RanksLeft {
        let composition = counter.composition();
        let mut counts = [0u32; 10];
        for i in 0..Card::DISTINCT {
            if let Some(card) = Card::from_index(i) {
                counts[value_index(card.rank)] += u32::from(
                    composition
                        .copies_of(card)
                        .saturating_sub(counter.seen(card)),
                );
            }
        }
        RanksLeft { counts }
    }

    /// Takes one card of `rank` out; `false` if none is left.
    pub fn take(&mut self, rank: Rank) -> bool {
        let slot = &mut self.counts[value_index(rank)];
        if *slot == 0 {
            return false;
        }
        *slot -= 1;
        true
    }

    /// The counts by value.
    pub const fn counts(&self) -> [u32; 10] {
        self.counts
    }

    /// Cards left.
    pub fn total(&self) -> u32 {
        self.counts.iter().sum()
    }
}

/// The index of a rank's Blackjack value (0 the ace, 9 a ten or court card).
pub const fn value_index(rank: Rank) -> usize {
    rank.blackjack_value() as usize - 1
}

/// The player's edge on the next round, to show beside the count.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlayerEdge {
    /// The basic-strategy player's expected return on one box's main wager, in percent of the
    /// stake (positive: the player is ahead, the house behind).
    pub percent: f64,
    /// How far [`PlayerEdge::percent`] may lie from the shoe's true figure, in percentage points
    /// (the bound the Monte Carlo test checks; see [`error_bound`]).
    pub error_bound: f64,
    /// How it was computed, in one sentence.
    pub method: &'static str,
    /// What of the book is not modelled.
    pub unmodelled: Vec<&'static str>,
    /// Cards left it was computed from.
    pub cards_left: u32,
}

impl PlayerEdge {
    /// Whether the player is ahead even at the far end of the error bound.
    pub fn player_ahead(&self) -> bool {
        self.percent - self.error_bound > 0.0
    }
}

/// The bound on the method's error, in percentage points, with `cards_left` cards left: the
/// later draws' removal effect the method leaves out grows as the shoe shrinks. Measured
/// against a finite-shoe Monte Carlo reference (docs/exposure.md gives the runs).
pub fn error_bound(cards_left: u32) -> f64 {
    0.05 + 7.0 / f64::from(cards_left.max(1))
}

/// The player's edge on the next round dealt from the cards `counter` has not seen; `None` with
/// fewer than [`MIN_CARDS`] left.
pub fn player_edge(book: &Book, counter: &ShoeCounter) -> Option<PlayerEdge> {
    player_edge_of(book, &RanksLeft::after(counter))
}

/// [`player_edge`] from the cards left by value.
pub fn player_edge_of(book: &Book, left: &RanksLeft) -> Option<PlayerEdge> {
    let analysis = analyse(book, left)?;
    Some(PlayerEdge {
        percent: 100.0 * analysis.expected_return,
        error_bound: error_bound(left.total()),
        method: METHOD,
        unmodelled: unmodelled(book),
        cards_left: left.total(),
    })
}

/// What of `book` the figure leaves out.
pub fn unmodelled(book: &Book) -> Vec<&'static str> {
    let mut out = vec![
        "insurance (never taken by basic strategy)",
        "side bets (Super Sevens is figured apart)",
    ];
    if book.bonus.is_some() && book.player_21_wins_at_once {
        out.push(
            "the suited and spades pays of 6-7-8 and 7-7-7 (counted at the mixed-suit pay; \
             about 0.02 points to the player, outside the error bound), and 6-7-8 or 7-7-7 \
             made on a split hand",
        );
    }
    if book.bonus.is_some() && !book.player_21_wins_at_once {
        out.push("the bonuses (the engine pays them only on a 21 paid at once)");
    }
    out
}

/// A decision on a hand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Play {
    /// Take no more cards.
    Stand,
    /// Take a card.
    Hit,
    /// Double the stake and take one card.
    Double,
    /// Split the pair.
    Split,
    /// Give up half the stake.
    Surrender,
}

/// The decisions the figure assumes, for the upcard's value index `u` (0 an ace, 9 a ten).
#[derive(Debug, Clone, PartialEq)]
pub struct Strategy {
    /// On the two first cards (value indexes `a <= b`): `first[a][b][u]` (a natural is never
    /// asked).
    pub first: [[[Play; 10]; 10]; 10],
    /// Hit or stand after the first decision, `hit[first_hand][u][hard][ace][cards]`:
    /// `first_hand` 0 for a box's only or first hand, 1 for a later split hand (the two differ
    /// only when a dealer natural with no hole card takes the original wager only); `hard` the
    /// total with aces as one (up to 21), `ace` whether the hand holds one, `cards` the cards in
    /// the hand (capped at 7; always 0 when the book has no card-count bonus).
    pub hit: Box<[[HandStates; 10]; 2]>,
    /// On a split hand's two cards (the pair's value `x`, the card drawn `c`), when it is not
    /// split again: `split_hand[first_hand][x][c][u]` (stand, hit or double).
    pub split_hand: Box<[[[[Play; 10]; 10]; 10]; 2]>,
    /// Whether the card-count index is used (a book with card-count bonuses paid at once).
    pub counts_cards: bool,
}

/// Hit (`true`) or stand in each hand state, `[hard][ace][cards]`.
pub type HandStates = [[[bool; CARDS]; 2]; 22];

/// Card-count slots of a hand state.
pub const CARDS: usize = 8;

/// The expected return and the decisions behind it.
#[derive(Debug, Clone, PartialEq)]
pub struct Analysis {
    /// Expected return per unit staked (positive: the player ahead).
    pub expected_return: f64,
    /// The decisions.
    pub strategy: Strategy,
}

/// A value as two parts: the return when the dealer turns out to have no natural (`clear`) and
/// when the dealer does (`natural`).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Ev {
    clear: f64,
    natural: f64,
}

impl Ev {
    const fn both(v: f64) -> Ev {
        Ev {
            clear: v,
            natural: v,
        }
    }

    fn weighed(self, p: f64) -> f64 {
        p * self.natural + (1.0 - p) * self.clear
    }

    fn add_scaled(&mut self, w: f64, other: Ev) {
        self.clear += w * other.clear;
        self.natural += w * other.natural;
    }
}

/// The rules the calculation reads from the book.
struct Rules {
    peek: bool,
    h17: bool,
    all_stakes: bool,
    double_on: DoubleOn,
    das: bool,
    max_hands: u8,
    resplit_aces: bool,
    aces_one_card: bool,
    surrender: bool,
    natural_pays: f64,
    at_once: bool,
    split_natural: bool,
    /// Five, six and seven-card 21 pays; 6-7-8 and 7-7-7 (mixed) pays; no bonus after a double.
    bonus: Option<([f64; 3], f64, f64, bool)>,
}

impl Rules {
    fn of(book: &Book) -> Rules {
        let bonus = book.bonus.as_ref().filter(|_| book.player_21_wins_at_once);
        Rules {
            peek: book.hole_card == HoleCard::American,
            h17: book.dealer_hits_soft17,
            all_stakes: book.dealer_natural_takes == DealerNaturalTakes::AllStakes,
            double_on: book.double_on,
            das: book.double_after_split,
            max_hands: book.max_hands,
            resplit_aces: book.resplit_aces,
            aces_one_card: book.split_aces_one_card,
            surrender: book.surrender,
            natural_pays: book.natural_pays.ratio(),
            at_once: book.player_21_wins_at_once,
            split_natural: book.split_21_is_natural,
            bonus: bonus.map(|b| {
                (
                    [
                        b.five_card_21.ratio(),
                        b.six_card_21.ratio(),
                        b.seven_card_21.ratio(),
                    ],
                    b.six_seven_eight_mixed.ratio(),
                    b.seven_seven_seven_mixed.ratio(),
                    b.not_after_double,
                )
            }),
        }
    }

    /// Whether two cards (value indexes) may double, split hand or not.
    fn may_double(&self, a: usize, b: usize) -> bool {
        let ace = a == 0 || b == 0;
        let hard = a + b + 2;
        match self.double_on {
            DoubleOn::AnyTwo => true,
            DoubleOn::HardTwo => !ace,
            DoubleOn::NineToEleven => !ace && (9..=11).contains(&hard),
            DoubleOn::TenOrEleven => !ace && (10..=11).contains(&hard),
        }
    }

    /// The pay of an undoubled 21 of `cards` cards paid at once (no 6-7-8 or 7-7-7).
    fn pay_21(&self, cards: usize) -> f64 {
        match (self.bonus, cards) {
            (Some((pays, ..)), 5) => pays[0],
            (Some((pays, ..)), 6) => pays[1],
            (Some((pays, ..)), n) if n >= 7 => pays[2],
            _ => 1.0,
        }
    }
}

/// The best total of a hand: `hard` with aces as one, plus ten if it holds an ace and that fits.
const fn best(hard: usize, ace: bool) -> usize {
    if ace && hard + 10 <= 21 {
        hard + 10
    } else {
        hard
    }
}

/// What the calculation knows for one dealer's first card.
struct Upcard {
    /// Drawing probabilities of later cards.
    q: [f64; 10],
    /// The chance of a dealer natural at `q`, weighed in decisions (0 with a peek).
    p_natural: f64,
    /// What standing on each total returns when the dealer has no natural.
    stands: [f64; 22],
    /// Hit-or-stand values, `[first_hand][hard][ace][cards]`.
    values: [[[[Ev; CARDS]; 2]; 22]; 2],
    /// Hit-or-stand decisions, `[first_hand][hard][ace][cards]`.
    hits: Hits,
}

impl Upcard {
    fn empty() -> Upcard {
        Upcard {
            q: [0.0; 10],
            p_natural: 0.0,
            stands: [0.0; 22],
            values: [[[[Ev::both(0.0); CARDS]; 2]; 22]; 2],
            hits: [[[[false; CARDS]; 2]; 22]; 2],
        }
    }
}

/// Hit-or-stand decisions of one upcard, `[first_hand][hard][ace][cards]`.
type Hits = [HandStates; 2];

/// The expected return and the decisions under `book` on the next round from `left`; `None`
/// with fewer than [`MIN_CARDS`] cards left.
pub fn analyse(book: &Book, left: &RanksLeft) -> Option<Analysis> {
    let n = left.total();
    if n < MIN_CARDS {
        return None;
    }
    let rules = Rules::of(book);
    let c = left.counts.map(f64::from);
    let nf = f64::from(n);
    let counts_cards = rules.bonus.is_some();
    let mut strategy = Strategy {
        first: [[[Play::Stand; 10]; 10]; 10],
        hit: Box::new([[[[[false; CARDS]; 2]; 22]; 10]; 2]),
        split_hand: Box::new([[[[Play::Stand; 10]; 10]; 10]; 2]),
        counts_cards,
    };
    let mut tables: Vec<Upcard> = (0..11).map(|_| Upcard::empty()).collect();
    let mut total = 0.0;
    for u in 0..10 {
        if left.counts[u] == 0 {
            continue;
        }
        // The later cards drawn from the cards left less the upcard, and (to correct the
        // values for the player's own two cards, to first order) less one card of each value.
        // Eleven tables reused for every upcard (each is some 12 kB: filled in place).
        if !upcard(&rules, &c, nf, u, None, &mut tables[0]) {
            continue;
        }
        let (base, rest) = tables.split_at_mut(1);
        let base = &base[0];
        for (fh, hits) in base.hits.iter().enumerate() {
            strategy.hit[fh][u] = *hits;
        }
        let mut filled = [false; 10];
        for (x, (table, filled)) in rest.iter_mut().zip(&mut filled).enumerate() {
            *filled = upcard(&rules, &c, nf, u, Some(x), table);
        }
        let less: [Option<&Upcard>; 10] = std::array::from_fn(|x| filled[x].then(|| &rest[x]));
        let mut splits = [None; 10];
        for (x, split) in splits.iter_mut().enumerate() {
            if let Some((v, plays)) = split_value(&rules, base, x) {
                for (fh, plays) in plays.iter().enumerate() {
                    for (card, play) in plays.iter().enumerate() {
                        strategy.split_hand[fh][x][card][u] = *play;
                    }
                }
                *split = Some(v);
            }
        }
        for a in 0..10 {
            for b in a..10 {
                // The exact chance of these two cards and this upcard.
                let pair = if a == b {
                    c[a] * (c[a] - 1.0) / (nf * (nf - 1.0))
                } else {
                    2.0 * c[a] * c[b] / (nf * (nf - 1.0))
                };
                let up_left = c[u] - f64::from(u8::from(u == a)) - f64::from(u8::from(u == b));
                let p = pair * up_left / (nf - 2.0);
                if p <= 0.0 {
                    continue;
                }
                // The exact chance of a dealer natural behind them.
                let p_nat = match u {
                    0 | 9 => {
                        let other = 9 - u;
                        let k = c[other]
                            - f64::from(u8::from(a == other))
                            - f64::from(u8::from(b == other));
                        (k / (nf - 3.0)).max(0.0)
                    }
                    _ => 0.0,
                };
                let v = if a == 0 && b == 9 {
                    if rules.at_once {
                        Ev::both(rules.natural_pays)
                    } else {
                        Ev {
                            clear: rules.natural_pays,
                            natural: 0.0,
                        }
                    }
                } else {
                    let (play, ev) = first_decision(&rules, base, &less, a, b, splits[a]);
                    strategy.first[a][b][u] = play;
                    strategy.first[b][a][u] = play;
                    if rules.peek {
                        // A peeked natural takes one unit before any play.
                        Ev {
                            clear: ev.clear,
                            natural: -1.0,
                        }
                    } else {
                        ev
                    }
                };
                total += p * v.weighed(p_nat);
            }
        }
    }
    Some(Analysis {
        expected_return: total,
        strategy,
    })
}

/// Fills `up` with the dealer's totals and the hit-or-stand values for upcard `u`, the later
/// cards drawn from `c` (`n` cards) less the upcard and one card of value `less` if given;
/// `false` when `c` holds no such cards.
fn upcard(
    rules: &Rules,
    c: &[f64; 10],
    n: f64,
    u: usize,
    less: Option<usize>,
    up: &mut Upcard,
) -> bool {
    let mut q = *c;
    q[u] -= 1.0;
    let mut left = n - 1.0;
    if let Some(x) = less {
        q[x] -= 1.0;
        left -= 1.0;
    }
    if q.iter().any(|&x| x < 0.0) || left <= 0.0 {
        return false;
    }
    for x in &mut q {
        *x /= left;
    }
    let dealer = dealer_totals(rules, &q, u);
    up.p_natural = if rules.peek {
        0.0
    } else {
        match u {
            0 => q[9],
            9 => q[0],
            _ => 0.0,
        }
    };
    up.q = q;
    up.stands = std::array::from_fn(|total| stand_clear(&dealer, total));
    // States no hand reaches keep what they held; their decisions are cleared.
    up.hits = [[[[false; CARDS]; 2]; 22]; 2];
    hit_or_stand(rules, up, 0, 1.0);
    if rules.peek || rules.all_stakes {
        // A dealer natural takes the same of every hand (or is known before play).
        up.values[1] = up.values[0];
        up.hits[1] = up.hits[0];
    } else {
        // The original wager only: a dealer natural takes nothing of a later split hand that
        // stands.
        hit_or_stand(rules, up, 1, 0.0);
    }
    true
}

/// The dealer's final totals (17 to 21, bust) from upcard `u`, no natural, drawing at `q`.
fn dealer_totals(rules: &Rules, q: &[f64; 10], u: usize) -> [f64; 6] {
    // dd[hard][ace]: the final totals from a hand of that hard total.
    let mut dd = [[[0.0f64; 6]; 2]; 22];
    for hard in (1..=21).rev() {
        for ace in 0..2 {
            let has = ace == 1;
            let t = best(hard, has);
            let soft = has && hard + 10 <= 21;
            if t >= 18 || (t == 17 && !(soft && rules.h17)) {
                dd[hard][ace][t - 17] = 1.0;
                continue;
            }
            let mut out = [0.0; 6];
            for (card, &qc) in q.iter().enumerate() {
                let h = hard + card + 1;
                if h > 21 {
                    out[5] += qc;
                } else {
                    let next = &dd[h][usize::from(has || card == 0)];
                    for (o, x) in out.iter_mut().zip(next) {
                        *o += qc * x;
                    }
                }
            }
            dd[hard][ace] = out;
        }
    }
    // The second card, with no natural.
    let excluded = match u {
        0 => 9,
        9 => 0,
        _ => usize::MAX,
    };
    let mut out = [0.0; 6];
    let mut weight = 0.0;
    for (card, &qc) in q.iter().enumerate() {
        if card == excluded {
            continue;
        }
        weight += qc;
        let next = &dd[u + card + 2][usize::from(u == 0 || card == 0)];
        for (o, x) in out.iter_mut().zip(next) {
            *o += qc * x;
        }
    }
    if weight > 0.0 {
        for o in &mut out {
            *o /= weight;
        }
    }
    out
}

/// What standing on `total` returns per unit when the dealer has no natural.
fn stand_clear(dealer: &[f64; 6], total: usize) -> f64 {
    let mut v = dealer[5];
    for (i, &p) in dealer[..5].iter().enumerate() {
        let d = 17 + i;
        if total > d {
            v += p;
        } else if total < d {
            v -= p;
        }
    }
    v
}

/// The card-count slot of a hand of `cards` cards.
fn slot(counts_cards: bool, cards: usize) -> usize {
    if counts_cards {
        cards.min(CARDS - 1)
    } else {
        0
    }
}

/// A hand of `hard`/`ace` and `cards` cards that ends without choosing: a 21 paid at once.
fn paid_at_once(rules: &Rules, hard: usize, ace: bool, cards: usize) -> Option<Ev> {
    (rules.at_once && best(hard, ace) == 21).then(|| Ev::both(rules.pay_21(cards)))
}

/// Standing: the return against the dealer, and `-lambda` to a dealer natural.
fn stand(up: &Upcard, hard: usize, ace: bool, lambda: f64) -> Ev {
    Ev {
        clear: up.stands[best(hard, ace)],
        natural: -lambda,
    }
}

/// The dynamic programme over hit-or-stand states, highest hard total first (a card only adds).
fn hit_or_stand(rules: &Rules, up: &mut Upcard, first_hand: usize, lambda: f64) {
    let counts_cards = rules.bonus.is_some();
    // A hand holds two cards or more.
    let card_range = if counts_cards { 2..CARDS } else { 0..1 };
    for hard in (2..=21).rev() {
        for ace in 0..2 {
            let has = ace == 1;
            for k in card_range.clone() {
                let cards = if counts_cards { k } else { 2 };
                if has && hard >= 12 {
                    // An ace that can no longer count eleven: the hard hand of that total.
                    up.values[first_hand][hard][1][k] = up.values[first_hand][hard][0][k];
                    up.hits[first_hand][hard][1][k] = up.hits[first_hand][hard][0][k];
                    continue;
                }
                // No hand of `cards` cards has this total (every card counts one or more, and
                // two or more without an ace): never reached, never read.
                if hard < cards || (!has && hard < 2 * cards && hard < 12) {
                    continue;
                }
                if let Some(v) = paid_at_once(rules, hard, has, cards) {
                    up.values[first_hand][hard][ace][k] = v;
                    continue;
                }
                let s = stand(up, hard, has, lambda);
                let h = hit(rules, up, first_hand, hard, has, cards);
                let take = h.weighed(up.p_natural) > s.weighed(up.p_natural);
                up.values[first_hand][hard][ace][k] = if take { h } else { s };
                up.hits[first_hand][hard][ace][k] = take;
            }
        }
    }
}

/// Hitting a hand of `cards` cards once, then playing on by the values already found.
fn hit(rules: &Rules, up: &Upcard, first_hand: usize, hard: usize, ace: bool, cards: usize) -> Ev {
    let counts_cards = rules.bonus.is_some();
    let mut v = Ev::both(0.0);
    for (card, &qc) in up.q.iter().enumerate() {
        let h = hard + card + 1;
        if h > 21 {
            v.add_scaled(qc, Ev::both(-1.0));
        } else {
            let a = usize::from(ace || card == 0);
            let k = slot(counts_cards, cards + 1);
            v.add_scaled(qc, up.values[first_hand][h][a][k]);
        }
    }
    v
}

/// Doubling a two-card hand: one card at twice the stake.
fn double(rules: &Rules, up: &Upcard, hard: usize, ace: bool, lambda: f64) -> Ev {
    let lost_to_natural = if rules.all_stakes { 2.0 } else { lambda };
    let no_bonus = rules.bonus.is_some_and(|b| b.3);
    let mut v = Ev::both(0.0);
    for (card, &qc) in up.q.iter().enumerate() {
        let h = hard + card + 1;
        let a = ace || card == 0;
        if h > 21 {
            v.add_scaled(qc, Ev::both(-2.0));
        } else if rules.at_once && best(h, a) == 21 {
            let pay = if no_bonus { 1.0 } else { rules.pay_21(3) };
            v.add_scaled(qc, Ev::both(2.0 * pay));
        } else {
            v.add_scaled(
                qc,
                Ev {
                    clear: 2.0 * up.stands[best(h, a)],
                    natural: -lost_to_natural,
                },
            );
        }
    }
    v
}

/// The 6-7-8 or 7-7-7 pay made by drawing to two first cards `a`, `b`: the card that makes it
/// and what it pays beyond an even-money 21.
fn triple(rules: &Rules, a: usize, b: usize) -> Option<(usize, f64)> {
    let (_, six_seven_eight, seven_seven_seven, _) = rules.bonus?;
    // Value indexes: 5 a six, 6 a seven, 7 an eight.
    match (a.min(b), a.max(b)) {
        (5, 6) => Some((7, six_seven_eight - 1.0)),
        (5, 7) => Some((6, six_seven_eight - 1.0)),
        (6, 7) => Some((5, six_seven_eight - 1.0)),
        (6, 6) => Some((6, seven_seven_seven - 1.0)),
        _ => None,
    }
}

/// What each first decision on two cards `a <= b` (not a natural) returns at `up`'s
/// composition: stand, hit, double, surrender, split (`None` where not allowed).
fn first_options(
    rules: &Rules,
    up: &Upcard,
    a: usize,
    b: usize,
    split: Option<Ev>,
) -> [Option<Ev>; 5] {
    let hard = a + b + 2;
    let ace = a == 0;
    let mut h = hit(rules, up, 0, hard, ace, 2);
    let mut d = double(rules, up, hard, ace, 1.0);
    if let Some((card, extra)) = triple(rules, a, b) {
        h.add_scaled(up.q[card], Ev::both(extra));
        if !rules.bonus.is_some_and(|b| b.3) {
            d.add_scaled(up.q[card], Ev::both(2.0 * extra));
        }
    }
    [
        Some(stand(up, hard, ace, 1.0)),
        Some(h),
        rules.may_double(a, b).then_some(d),
        rules.surrender.then_some(Ev::both(-0.5)),
        split.filter(|_| a == b),
    ]
}

/// The first decisions, in [`first_options`]' order.
const PLAYS: [Play; 5] = [
    Play::Stand,
    Play::Hit,
    Play::Double,
    Play::Surrender,
    Play::Split,
];

/// The best first decision on two cards `a <= b` (not a natural): each option's value at the
/// upcard's composition, corrected for taking the two cards out by the change one card of each
/// makes (the first-order effect of their removal on every later card).
fn first_decision(
    rules: &Rules,
    base: &Upcard,
    less: &[Option<&Upcard>; 10],
    a: usize,
    b: usize,
    split: Option<Ev>,
) -> (Play, Ev) {
    let mut values = first_options(rules, base, a, b, split);
    let base_values = values;
    for x in [a, b] {
        let Some(up) = less[x] else { continue };
        let split_less = if a == b {
            split_value(rules, up, a).map(|(v, _)| v)
        } else {
            None
        };
        let changed = first_options(rules, up, a, b, split_less);
        for ((v, old), new) in values.iter_mut().zip(base_values).zip(changed) {
            if let (Some(v), Some(old), Some(new)) = (v.as_mut(), old, new) {
                v.clear += new.clear - old.clear;
                v.natural += new.natural - old.natural;
            }
        }
    }
    let p = base.p_natural;
    let mut chosen = (Play::Stand, values[0].unwrap_or(Ev::both(0.0)));
    for (play, v) in PLAYS.into_iter().zip(values).skip(1) {
        if let Some(v) = v {
            if v.weighed(p) > chosen.1.weighed(p) {
                chosen = (play, v);
            }
        }
    }
    chosen
}

/// The value of one split hand of `x` given its second card `card`, and the decision on it.
fn split_hand(rules: &Rules, up: &Upcard, x: usize, card: usize, first_hand: usize) -> (Play, Ev) {
    let lambda = if first_hand == 0 { 1.0 } else { 0.0 };
    let hard = x + card + 2;
    let ace = x == 0 || card == 0;
    let lost = if rules.all_stakes { 1.0 } else { lambda };
    if best(hard, ace) == 21 && hard == 11 && rules.split_natural {
        // A split ace and ten counted as a natural.
        let v = if rules.at_once {
            Ev::both(rules.natural_pays)
        } else {
            Ev {
                clear: rules.natural_pays,
                natural: 0.0,
            }
        };
        return (Play::Stand, v);
    }
    if let Some(v) = paid_at_once(rules, hard, ace, 2) {
        return (Play::Stand, v);
    }
    let s = stand(up, hard, ace, lost);
    if x == 0 && rules.aces_one_card {
        return (Play::Stand, s);
    }
    let p = up.p_natural;
    let h = hit(rules, up, first_hand, hard, ace, 2);
    let mut chosen = (Play::Stand, s);
    if h.weighed(p) > s.weighed(p) {
        chosen = (Play::Hit, h);
    }
    if rules.das && rules.may_double(x, card) {
        let d = double(rules, up, hard, ace, lost);
        if d.weighed(p) > chosen.1.weighed(p) {
            chosen = (Play::Double, d);
        }
    }
    chosen
}

/// Splitting a pair of `x` against upcard `u`: `None` when the book allows no split.
fn split_value(rules: &Rules, up: &Upcard, x: usize) -> Option<(Ev, [[Play; 10]; 2])> {
    if rules.max_hands < 2 {
        return None;
    }
    let mut hands = [[Ev::both(0.0); 10]; 2];
    let mut plays = [[Play::Stand; 10]; 2];
    for first_hand in 0..2 {
        for card in 0..10 {
            let (play, v) = split_hand(rules, up, x, card, first_hand);
            plays[first_hand][card] = play;
            hands[first_hand][card] = v;
        }
    }
    // Resplits: a hand drawing another `x` splits again while the box has fewer than the most
    // hands (aces only when the book resplits them).
    let max = if x == 0 && !rules.resplit_aces {
        2
    } else {
        rules.max_hands
    };
    let r = up.q[x];
    let (not_x, any) = resplits(2, 2, max, r);
    let hands_expected = not_x + any;
    let value = |first_hand: usize| {
        let mut v_any = Ev::both(0.0);
        let mut v_not_x = Ev::both(0.0);
        for (card, (&qc, &hand)) in up.q.iter().zip(&hands[first_hand]).enumerate() {
            v_any.add_scaled(qc, hand);
            if card != x && r < 1.0 {
                v_not_x.add_scaled(qc / (1.0 - r), hand);
            }
        }
        let mut v = Ev::both(0.0);
        v.add_scaled(not_x / hands_expected, v_not_x);
        v.add_scaled(any / hands_expected, v_any);
        v
    };
    let mut total = value(0);
    total.add_scaled(hands_expected - 1.0, value(1));
    Some((total, plays))
}

/// Expected hands a split ends with (those that drew a card other than the pair's while they
/// could still split, and those that ended once they could not), from `hands` hands of which
/// `pending` still draw, resplitting to `max` hands, a pair card drawn with chance `r`.
fn resplits(hands: u8, pending: u8, max: u8, r: f64) -> (f64, f64) {
    if pending == 0 {
        return (0.0, 0.0);
    }
    if hands >= max {
        return (0.0, f64::from(pending));
    }
    // A pair card: the hand splits again, one more hand to draw to.
    let (a1, b1) = resplits(hands + 1, pending + 1, max, r);
    let (a2, b2) = resplits(hands, pending - 1, max, r);
    (r * a1 + (1.0 - r) * (1.0 + a2), r * b1 + (1.0 - r) * b2)
}

#[cfg(test)]
mod tests;
