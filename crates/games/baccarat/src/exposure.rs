//! What each Baccarat wager is worth before the next round, exactly, from the cards left in the
//! shoe (issue 29: the house's exposure, for surveillance only).
//!
//! A card-reading shoe tells Pitwatch every card dealt, so it knows which cards remain. From that
//! alone, with no bet data, the expected return of every wager on the next round is an exact
//! fraction: [`outcomes`] counts every ordered six-card sequence the remaining cards can deal (the
//! cards a round could use, the unused positions filled so every sequence weighs the same) by how
//! the round ends, dealing through [`DrawingTable::next_card`], the very function the engine
//! places cards with, so the worth follows the book's own Table of Play; [`worth`] turns those
//! counts into each wager's expected return per unit staked.
//!
//! **Cards not seen** (a burn dealt face down, a card the shoe could not read) are left in the
//! count: they were taken from the shoe without being known, so they are a uniformly random part
//! of what [`CardsLeft`] holds, and by exchangeability the next round's cards have exactly the
//! distribution of the first cards dealt from `CardsLeft` itself. Leaving them in gives the exact
//! expectation over what they might have been; only what is known is taken out.
//!
//! The pairs do not depend on the drawing: the chance that two given positions of the shoe's
//! next cards share a rank is `Σ n_r (n_r − 1) / (N (N − 1))` over the ranks.

use pitwatch_model::deck::ShoeCounter;
use pitwatch_model::{Card, Rank, ShoeComposition, Suit};
use serde::{Deserialize, Serialize};

use crate::drawing::{DrawingTable, NextCard};
use crate::side::{BySide, Hand, Side};

/// The cards left in a shoe, by rank: what a wager's worth is computed from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CardsLeft {
    by_rank: [u32; 13],
}

impl CardsLeft {
    /// A whole shoe of `composition`.
    pub fn full(composition: ShoeComposition) -> CardsLeft {
        let mut by_rank = [0; 13];
        for i in 0..Card::DISTINCT {
            if let Some(card) = Card::from_index(i) {
                by_rank[rank_index(card.rank)] += u32::from(composition.copies_of(card));
            }
        }
        CardsLeft { by_rank }
    }

    /// What is left of a shoe after the cards `counter` has seen (cards it could not read were
    /// not seen, and are left in: see the module doc).
    pub fn after(counter: &ShoeCounter) -> CardsLeft {
        let mut left = CardsLeft::full(counter.composition());
        for i in 0..Card::DISTINCT {
            if let Some(card) = Card::from_index(i) {
                let r = rank_index(card.rank);
                left.by_rank[r] = left.by_rank[r].saturating_sub(u32::from(counter.seen(card)));
            }
        }
        left
    }

    /// Cards of the given ranks (for tests and what-if figures).
    pub fn of_ranks(ranks: &[Rank]) -> CardsLeft {
        let mut by_rank = [0; 13];
        for &rank in ranks {
            by_rank[rank_index(rank)] += 1;
        }
        CardsLeft { by_rank }
    }

    /// Takes one card of `rank` out; `false` (and nothing changes) when none is left.
    pub fn take(&mut self, rank: Rank) -> bool {
        let n = &mut self.by_rank[rank_index(rank)];
        if *n == 0 {
            return false;
        }
        *n -= 1;
        true
    }

    /// How many cards are left.
    pub fn total(&self) -> u32 {
        self.by_rank.iter().sum()
    }

    /// How many of `rank` are left.
    pub fn of(&self, rank: Rank) -> u32 {
        self.by_rank[rank_index(rank)]
    }

    /// Cards left by Baccarat point value (tens and court cards count 0).
    fn by_points(&self) -> [u128; 10] {
        let mut points = [0u128; 10];
        for rank in Rank::ALL {
            points[usize::from(rank.baccarat_points())] += u128::from(self.of(rank));
        }
        points
    }
}

fn rank_index(rank: Rank) -> usize {
    Rank::ALL
        .iter()
        .position(|r| *r == rank)
        .unwrap_or_default()
}

/// How a round ends, as the wagers need it: each hand's total and whether it drew a third card.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Ending {
    /// The Player's total.
    pub player: u8,
    /// Whether the Player's hand has three cards.
    pub player_three: bool,
    /// The Banker's total.
    pub banker: u8,
    /// Whether the Banker's hand has three cards.
    pub banker_three: bool,
}

impl Ending {
    /// The side that won, `None` for a tie.
    pub fn winner(&self) -> Option<Side> {
        match self.player.cmp(&self.banker) {
            std::cmp::Ordering::Greater => Some(Side::Player),
            std::cmp::Ordering::Less => Some(Side::Banker),
            std::cmp::Ordering::Equal => None,
        }
    }

    fn index(&self) -> usize {
        ((usize::from(self.player) * 2 + usize::from(self.player_three)) * 10
            + usize::from(self.banker))
            * 2
            + usize::from(self.banker_three)
    }

    fn from_index(i: usize) -> Ending {
        Ending {
            banker_three: i % 2 == 1,
            banker: ((i / 2) % 10) as u8,
            player_three: (i / 20) % 2 == 1,
            player: (i / 40) as u8,
        }
    }
}

/// Ordered six-card sequences of the cards left, by how the round they deal ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcomes {
    counts: [u128; 400],
    total: u128,
}

impl Outcomes {
    /// Every sequence counted (`N (N − 1) … (N − 5)` for `N` cards left).
    pub fn total(&self) -> u128 {
        self.total
    }

    /// The sequences whose round ends so that `which` holds.
    pub fn count(&self, which: impl Fn(Ending) -> bool) -> u128 {
        (0..self.counts.len())
            .filter(|&i| which(Ending::from_index(i)))
            .map(|i| self.counts[i])
            .sum()
    }

    /// Every ending with its count (those that occur).
    pub fn endings(&self) -> impl Iterator<Item = (Ending, u128)> + '_ {
        (0..self.counts.len())
            .filter(|&i| self.counts[i] > 0)
            .map(|i| (Ending::from_index(i), self.counts[i]))
    }
}

/// Counts every ordered six-card sequence `left` can deal, by how its round ends under `table`;
/// `None` when fewer than six cards are left (no round can be counted as a whole).
pub fn outcomes(table: &DrawingTable, left: &CardsLeft) -> Option<Outcomes> {
    let total = u128::from(left.total());
    if total < 6 {
        return None;
    }
    let Some(plan) = Plan::of(table) else {
        return outcomes_by_walk(table, left);
    };
    let fill = std::array::from_fn(|used| (used as u128..6).map(|k| total - k).product());
    Some(Outcomes {
        counts: plan.walk(&left.by_points(), &fill),
        total: (0..6).map(|k| total - k).product(),
    })
}

/// [`outcomes`] by the general walk alone, asking [`DrawingTable::next_card`] at every card (the
/// reference the faster [`Plan`] is tested against).
pub fn outcomes_by_walk(table: &DrawingTable, left: &CardsLeft) -> Option<Outcomes> {
    let total = u128::from(left.total());
    if total < 6 {
        return None;
    }
    let mut walk = Walk {
        table,
        fill: std::array::from_fn(|used| (used as u128..6).map(|k| total - k).product()),
        left: left.by_points(),
        counts: [0; 400],
    };
    walk.initial_deal();
    Some(Outcomes {
        counts: walk.counts,
        total: (0..6).map(|k| total - k).product(),
    })
}

/// What a round does after the initial deal, by the two hands' totals.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AfterDeal {
    /// Both hands stand (a natural, or neither draws).
    Complete,
    /// The Player stands and the Banker draws.
    BankerDraws,
    /// The Player draws (and the Banker's turn depends on that card: [`Plan::banker_after`]).
    PlayerDraws,
}

/// The Table of Play read off [`DrawingTable::next_card`] once, for every total and third card,
/// so the enumeration asks a table rather than the engine at each of its some 300,000 leaves.
/// Every entry is the engine's own answer for hands with those totals (the same representative
/// cards the general walk deals), and the plan is used only when the engine's answers have the
/// shape a round of Baccarat has: at most one third card each, the Player's first, nothing after
/// the Banker's. For any other answer the general walk is used.
struct Plan {
    /// By the Player's and the Banker's two-card totals.
    first: [[AfterDeal; 10]; 10],
    /// Whether the Banker draws after the Player's third card, by the Player's two-card total,
    /// the Banker's and the Player's third card's value.
    banker_after: [[[bool; 10]; 10]; 10],
}

impl Plan {
    fn of(table: &DrawingTable) -> Option<Plan> {
        let hand = |values: &[usize]| {
            let mut hand = Hand::default();
            for &v in values {
                hand.push(Some(Walk::representative(v)));
            }
            hand
        };
        let complete =
            |player: &Hand, banker: &Hand| table.next_card(player, banker) == NextCard::Complete;
        let mut plan = Plan {
            first: [[AfterDeal::Complete; 10]; 10],
            banker_after: [[[false; 10]; 10]; 10],
        };
        for p in 0..10 {
            for b in 0..10 {
                let (player, banker) = (hand(&[0, p]), hand(&[0, b]));
                plan.first[p][b] = match table.next_card(&player, &banker) {
                    NextCard::Complete => AfterDeal::Complete,
                    NextCard::To(Side::Banker, _) => {
                        for u in 0..10 {
                            if !complete(&player, &hand(&[0, b, u])) {
                                return None;
                            }
                        }
                        AfterDeal::BankerDraws
                    }
                    NextCard::To(Side::Player, _) => {
                        for v in 0..10 {
                            let drawn = hand(&[0, p, v]);
                            plan.banker_after[p][b][v] = match table.next_card(&drawn, &banker) {
                                NextCard::Complete => false,
                                NextCard::To(Side::Banker, _) => {
                                    for u in 0..10 {
                                        if !complete(&drawn, &hand(&[0, b, u])) {
                                            return None;
                                        }
                                    }
                                    true
                                }
                                _ => return None,
                            };
                        }
                        AfterDeal::PlayerDraws
                    }
                    NextCard::Unknown(_) => return None,
                };
            }
        }
        Some(plan)
    }

    /// The counts of every ending: the initial deal as the general walk does it (each unordered
    /// pair once, counted for both orders), then the third cards from the plan.
    fn walk(&self, start: &[u128; 10], fill: &[u128; 7]) -> [u128; 400] {
        let index = |player: usize, player_three: bool, banker: usize, banker_three: bool| {
            ((player * 2 + usize::from(player_three)) * 10 + banker) * 2 + usize::from(banker_three)
        };
        let mut counts = [0u128; 400];
        let mut left = *start;
        for p1 in 0..10 {
            for p2 in p1..10 {
                for b1 in 0..10 {
                    for b2 in b1..10 {
                        let orders: u128 =
                            if p1 == p2 { 1 } else { 2 } * if b1 == b2 { 1 } else { 2 };
                        // Take the four cards in the order dealt, each weighing what is left.
                        let mut weight = orders;
                        let mut taken = 0;
                        for value in [p1, b1, p2, b2] {
                            if left[value] == 0 {
                                weight = 0;
                                break;
                            }
                            weight *= left[value];
                            left[value] -= 1;
                            taken += 1;
                        }
                        if weight > 0 {
                            let (p, b) = ((p1 + p2) % 10, (b1 + b2) % 10);
                            match self.first[p][b] {
                                AfterDeal::Complete => {
                                    counts[index(p, false, b, false)] += weight * fill[4];
                                }
                                AfterDeal::BankerDraws => {
                                    let w = weight * fill[5];
                                    for (u, &n) in left.iter().enumerate() {
                                        counts[index(p, false, (b + u) % 10, true)] += w * n;
                                    }
                                }
                                AfterDeal::PlayerDraws => {
                                    for v in 0..10 {
                                        let nv = left[v];
                                        if nv == 0 {
                                            continue;
                                        }
                                        let pt = (p + v) % 10;
                                        if self.banker_after[p][b][v] {
                                            left[v] -= 1;
                                            let w = weight * nv * fill[6];
                                            for (u, &n) in left.iter().enumerate() {
                                                counts[index(pt, true, (b + u) % 10, true)] +=
                                                    w * n;
                                            }
                                            left[v] += 1;
                                        } else {
                                            counts[index(pt, true, b, false)] +=
                                                weight * nv * fill[5];
                                        }
                                    }
                                }
                            }
                        }
                        for value in [p1, b1, p2, b2].into_iter().take(taken) {
                            left[value] += 1;
                        }
                    }
                }
            }
        }
        counts
    }
}

struct Walk<'a> {
    table: &'a DrawingTable,
    /// Ways to fill the positions of a six-card sequence a round did not use, by cards used.
    fill: [u128; 7],
    /// Cards of each point value still in the shoe.
    left: [u128; 10],
    counts: [u128; 400],
}

impl Walk<'_> {
    /// The first four cards (Player, Banker, Player, Banker: 8.4), then the rest through the
    /// drawing rules. A hand's two first cards weigh the same in either order (the cards taken
    /// out are the same), so each unordered pair is dealt once and counted for both orders: a
    /// third of the walk, the same counts.
    fn initial_deal(&mut self) {
        for p1 in 0..10 {
            for p2 in p1..10 {
                for b1 in 0..10 {
                    for b2 in b1..10 {
                        let orders = if p1 == p2 { 1 } else { 2 } * if b1 == b2 { 1 } else { 2 };
                        let dealt = [
                            (Side::Player, p1),
                            (Side::Banker, b1),
                            (Side::Player, p2),
                            (Side::Banker, b2),
                        ];
                        let mut weight = orders;
                        let mut hands = BySide::<Hand>::default();
                        let mut taken = 0;
                        for (side, value) in dealt {
                            if self.left[value] == 0 {
                                weight = 0;
                                break;
                            }
                            weight *= self.left[value];
                            self.left[value] -= 1;
                            taken += 1;
                            hands.get_mut(side).push(Some(Self::representative(value)));
                        }
                        if weight > 0 {
                            self.deal(hands, 4, weight);
                        }
                        for (_, value) in &dealt[..taken] {
                            self.left[*value] += 1;
                        }
                    }
                }
            }
        }
    }

    /// One card of each point value: a king for 0, otherwise the rank with that pip.
    fn representative(value: usize) -> Card {
        let rank = if value == 0 {
            Rank::King
        } else {
            Rank::from_pip(value as u8).unwrap_or(Rank::King)
        };
        Card::new(rank, Suit::Spades)
    }

    fn deal(&mut self, hands: BySide<Hand>, used: usize, weight: u128) {
        match self.table.next_card(&hands.player, &hands.banker) {
            NextCard::To(side, _) | NextCard::Unknown(side) => {
                for value in 0..10 {
                    let n = self.left[value];
                    if n == 0 {
                        continue;
                    }
                    let mut next = hands;
                    next.get_mut(side).push(Some(Self::representative(value)));
                    self.left[value] -= 1;
                    self.deal(next, used + 1, weight * n);
                    self.left[value] += 1;
                }
            }
            NextCard::Complete => {
                // Every way to fill the unused positions of the six-card sequence.
                let fill = self.fill[used];
                let ending = Ending {
                    player: hands.player.total().unwrap_or(0),
                    player_three: hands.player.len() == 3,
                    banker: hands.banker.total().unwrap_or(0),
                    banker_three: hands.banker.len() == 3,
                };
                self.counts[ending.index()] += weight * fill;
            }
        }
    }
}

/// A Baccarat wager and how it pays, as a rule book lists it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "wager")]
pub enum Wager {
    /// The Player's hand wins: 1 to 1; a tie stands off.
    Player,
    /// The Banker's hand wins: 1 to 1 less a commission (in percent of the win); a tie stands
    /// off.
    Banker {
        /// The commission taken from a win, in percent (5 in New Zealand).
        commission_percent: u8,
    },
    /// No-commission Banker (EZ Baccarat): a win pays 1 to 1, except a win with a three-card 7,
    /// which stands off; a tie stands off.
    BankerNoCommission,
    /// The hands tie.
    Tie {
        /// To 1 (8 in New Zealand).
        pays: u32,
    },
    /// The Player's first two cards are of the same rank.
    PlayerPair {
        /// To 1 (commonly 11).
        pays: u32,
    },
    /// The Banker's first two cards are of the same rank.
    BankerPair {
        /// To 1 (commonly 11).
        pays: u32,
    },
    /// Dragon 7: the Banker wins with three cards totalling 7.
    Dragon7 {
        /// To 1 (commonly 40).
        pays: u32,
    },
    /// Panda 8: the Player wins with three cards totalling 8.
    Panda8 {
        /// To 1 (commonly 25).
        pays: u32,
    },
}

/// What a wager is worth on the next round: its expected return per unit staked, exactly, as
/// `numerator / denominator` (negative: the house is ahead).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Worth {
    /// The wager.
    pub wager: Wager,
    /// Expected return, times [`Worth::denominator`].
    pub numerator: i128,
    /// What the return is counted in.
    pub denominator: u128,
}

impl Worth {
    /// The expected return per unit staked.
    pub fn expected(&self) -> f64 {
        self.numerator as f64 / self.denominator as f64
    }

    /// The house's edge in percent (negative when the wager is worth more than it costs).
    pub fn house_edge_percent(&self) -> f64 {
        -100.0 * self.expected()
    }

    /// Whether the wager is worth more than it costs: the house is behind on it.
    pub fn favours_the_player(&self) -> bool {
        self.numerator > 0
    }
}

/// The worth of `wager` on a round dealt from `left`, whose endings are `outcomes`.
pub fn worth(wager: Wager, outcomes: &Outcomes, left: &CardsLeft) -> Worth {
    let total = outcomes.total();
    // Each ending's return in hundredths of the stake, so a 5% commission stays whole.
    let by_ending = |pays: &dyn Fn(Ending) -> i128| -> Worth {
        let numerator = outcomes
            .endings()
            .map(|(ending, n)| pays(ending) * n as i128)
            .sum();
        Worth {
            wager,
            numerator,
            denominator: total * 100,
        }
    };
    let three_card = |three: bool, total: u8, want: u8| three && total == want;
    match wager {
        Wager::Player => by_ending(&|e| match e.winner() {
            Some(Side::Player) => 100,
            Some(Side::Banker) => -100,
            None => 0,
        }),
        Wager::Banker { commission_percent } => by_ending(&|e| match e.winner() {
            Some(Side::Banker) => 100 - i128::from(commission_percent),
            Some(Side::Player) => -100,
            None => 0,
        }),
        Wager::BankerNoCommission => by_ending(&|e| match e.winner() {
            Some(Side::Banker) if three_card(e.banker_three, e.banker, 7) => 0,
            Some(Side::Banker) => 100,
            Some(Side::Player) => -100,
            None => 0,
        }),
        Wager::Tie { pays } => by_ending(&|e| match e.winner() {
            None => 100 * i128::from(pays),
            Some(_) => -100,
        }),
        Wager::Dragon7 { pays } => by_ending(&|e| {
            if e.winner() == Some(Side::Banker) && three_card(e.banker_three, e.banker, 7) {
                100 * i128::from(pays)
            } else {
                -100
            }
        }),
        Wager::Panda8 { pays } => by_ending(&|e| {
            if e.winner() == Some(Side::Player) && three_card(e.player_three, e.player, 8) {
                100 * i128::from(pays)
            } else {
                -100
            }
        }),
        Wager::PlayerPair { pays } | Wager::BankerPair { pays } => {
            // Two given positions of the next cards (the Player's first and third card, the
            // Banker's second and fourth) share a rank with the same chance.
            let n = u128::from(left.total());
            let ordered_pairs = n * n.saturating_sub(1);
            let pairs: u128 = Rank::ALL
                .iter()
                .map(|&r| {
                    let c = u128::from(left.of(r));
                    c * c.saturating_sub(1)
                })
                .sum();
            Worth {
                wager,
                numerator: i128::from(pays) * pairs as i128 - (ordered_pairs - pairs) as i128,
                denominator: ordered_pairs.max(1),
            }
        }
    }
}

#[cfg(test)]
mod tests;
