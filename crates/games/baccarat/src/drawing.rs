//! The drawing rules ("Table of Play"): naturals, when the Player draws, and when the Banker draws.
//!
//! The table is data in the rule book (the NZ printed table was not found, so the universal Punto
//! Banco tableau is the default), held here as small bit masks so a decision is a shift and a test,
//! never a lookup that allocates. The engine, the exact enumeration and the dealer simulator all
//! call these same functions, so the enumeration proves the engine's own code.

use crate::side::Hand;

/// A set of point values 0–9 as a bit mask (bit `v` set when `v` is in the set).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PointSet(u16);

impl PointSet {
    /// The empty set.
    pub const EMPTY: PointSet = PointSet(0);
    /// Every point value 0–9.
    pub const ALL: PointSet = PointSet(0x3ff);

    /// The set of the given values (values above 9 are ignored).
    pub fn of(values: &[u8]) -> PointSet {
        let mut mask = 0u16;
        for &v in values {
            if v <= 9 {
                mask |= 1 << v;
            }
        }
        PointSet(mask)
    }

    /// The values 0 to `max` inclusive.
    pub const fn up_to(max: u8) -> PointSet {
        PointSet((1u16 << (max + 1)) - 1)
    }

    /// Whether `value` is in the set.
    pub const fn contains(self, value: u8) -> bool {
        value <= 9 && self.0 & (1 << value) != 0
    }

    /// The values in the set, ascending.
    pub fn values(self) -> impl Iterator<Item = u8> {
        (0u8..=9).filter(move |v| self.contains(*v))
    }
}

/// The drawing rules of one rule book.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DrawingTable {
    /// Two-card totals that are naturals (both hands stand).
    pub natural: PointSet,
    /// Player two-card totals on which the Player draws.
    pub player_draws_on: PointSet,
    /// Banker two-card totals on which the Banker draws when the Player stood.
    pub banker_draws_when_player_stood: PointSet,
    /// For each Banker two-card total 0–9, the values of the Player's third card on which the
    /// Banker draws.
    pub banker_draws_when_player_drew: [PointSet; 10],
}

/// What the rules say a hand does next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// The hand takes a third card.
    Draw,
    /// The hand stands.
    Stand,
}

impl DrawingTable {
    /// The universal Punto Banco tableau (rules.md "Drawing rules").
    pub fn punto_banco() -> DrawingTable {
        let mut banker = [PointSet::EMPTY; 10];
        banker[0] = PointSet::ALL;
        banker[1] = PointSet::ALL;
        banker[2] = PointSet::ALL;
        banker[3] = PointSet::of(&[0, 1, 2, 3, 4, 5, 6, 7, 9]);
        banker[4] = PointSet::of(&[2, 3, 4, 5, 6, 7]);
        banker[5] = PointSet::of(&[4, 5, 6, 7]);
        banker[6] = PointSet::of(&[6, 7]);
        DrawingTable {
            natural: PointSet::of(&[8, 9]),
            player_draws_on: PointSet::up_to(5),
            banker_draws_when_player_stood: PointSet::up_to(5),
            banker_draws_when_player_drew: banker,
        }
    }

    /// Whether either two-card total is a natural, so both hands stand.
    pub const fn natural(&self, player2: u8, banker2: u8) -> bool {
        self.natural.contains(player2) || self.natural.contains(banker2)
    }

    /// The Player's decision on the two-card totals.
    pub const fn player(&self, player2: u8, banker2: u8) -> Decision {
        if self.natural(player2, banker2) || !self.player_draws_on.contains(player2) {
            Decision::Stand
        } else {
            Decision::Draw
        }
    }

    /// The Banker's decision on the two-card totals and the point value of the Player's third
    /// card (`None` when the Player stood).
    pub const fn banker(&self, player2: u8, banker2: u8, player_third: Option<u8>) -> Decision {
        if self.natural(player2, banker2) {
            return Decision::Stand;
        }
        let draws = match player_third {
            None => self.banker_draws_when_player_stood.contains(banker2),
            Some(third) => {
                banker2 <= 9 && self.banker_draws_when_player_drew[banker2 as usize].contains(third)
            }
        };
        if draws {
            Decision::Draw
        } else {
            Decision::Stand
        }
    }

    /// Plays a whole round from a sequence of card point values in deal order (the first four
    /// being P, B, P, B by 8.4) and returns how many cards it used (4, 5 or 6) and the final
    /// (player, banker) totals. `next` yields the point value of the next card.
    pub fn play(&self, mut next: impl FnMut() -> u8) -> (usize, u8, u8) {
        let p1 = next();
        let b1 = next();
        let p2 = next();
        let b2 = next();
        let player2 = (p1 + p2) % 10;
        let banker2 = (b1 + b2) % 10;
        let mut used = 4;
        let mut player = player2;
        let mut banker = banker2;
        let mut third = None;
        if self.player(player2, banker2) == Decision::Draw {
            let p3 = next();
            used += 1;
            player = (player + p3) % 10;
            third = Some(p3);
        }
        if self.banker(player2, banker2, third) == Decision::Draw {
            used += 1;
            banker = (banker + next()) % 10;
        }
        (used, player, banker)
    }
}

/// Where the next card of a round goes under the rules, given the cards already in the hands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NextCard {
    /// The next card is card `index` (1-based) of `side`'s hand.
    To(crate::side::Side, u8),
    /// The rules cannot tell because a card the decision depends on was unreadable; if a third
    /// card comes, it belongs to this side.
    Unknown(crate::side::Side),
    /// The round is complete.
    Complete,
}

impl DrawingTable {
    /// The next position of a round whose hands hold `player` and `banker`: the initial deal P, B,
    /// P, B (8.4), then the Player's third card by the table, then the Banker's. It looks at what
    /// the hands hold, not at the order the cards came in, so a round whose Banker third card came
    /// first still waits for the Player's.
    #[inline]
    pub fn next_card(&self, player: &Hand, banker: &Hand) -> NextCard {
        use crate::side::Side::{Banker, Player};
        let (p, b) = (player.len(), banker.len());
        // The initial deal is the hands' lengths alone, and most cards are of it: inline, and the
        // Table of Play out of line.
        if p == 0 {
            return NextCard::To(Player, 1);
        }
        if b == 0 {
            return NextCard::To(Banker, 1);
        }
        if p == 1 {
            return NextCard::To(Player, 2);
        }
        if b == 1 {
            return NextCard::To(Banker, 2);
        }
        self.next_after_deal(player, banker)
    }

    /// [`DrawingTable::next_card`] once both hands hold two cards or more.
    #[inline(never)]
    fn next_after_deal(&self, player: &Hand, banker: &Hand) -> NextCard {
        use crate::side::Side::{Banker, Player};
        let (p, b) = (player.len(), banker.len());
        let player2 = player.points_of_first(2);
        let banker2 = banker.points_of_first(2);
        // A known natural on either side settles the round whatever the other side holds.
        if player2.is_some_and(|t| self.natural.contains(t))
            || banker2.is_some_and(|t| self.natural.contains(t))
        {
            return NextCard::Complete;
        }
        let third = if p >= 3 {
            match player.card(2) {
                Some(Some(card)) => Some(Some(card.baccarat_points())),
                _ => None,
            }
        } else {
            Some(None)
        };
        if p == 2 {
            let Some(player2) = player2 else {
                return NextCard::Unknown(Player);
            };
            let Some(banker2) = banker2 else {
                // The Banker might hold a natural, so even the Player's draw is uncertain.
                return if self.player_draws_on.contains(player2) {
                    NextCard::Unknown(Player)
                } else {
                    NextCard::Unknown(Banker)
                };
            };
            if self.player(player2, banker2) == Decision::Draw {
                return NextCard::To(Player, 3);
            }
        }
        // The Player's hand is done. A Banker third card already there (a device may report it
        // before the Player's) ends the round; whether the Banker was entitled to it is judged
        // apart.
        if b >= 3 {
            return NextCard::Complete;
        }
        let (Some(player2), Some(banker2), Some(third)) = (player2, banker2, third) else {
            return NextCard::Unknown(Banker);
        };
        match self.banker(player2, banker2, third) {
            Decision::Draw => NextCard::To(Banker, 3),
            Decision::Stand => NextCard::Complete,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::side::Side;

    fn hand(text: &str) -> Hand {
        let cards: Vec<pitwatch_model::Card> = text
            .split_whitespace()
            .map(|c| c.parse().unwrap())
            .collect();
        Hand::of(&cards)
    }

    #[test]
    fn the_banker_table_matches_rules_md_row_by_row() {
        let t = DrawingTable::punto_banco();
        let draws = |b: u8| -> Vec<u8> {
            (0..=9)
                .filter(|&v| t.banker(0, b, Some(v)) == Decision::Draw)
                .collect()
        };
        assert_eq!(draws(2), (0..=9).collect::<Vec<_>>());
        assert_eq!(draws(3), vec![0, 1, 2, 3, 4, 5, 6, 7, 9]);
        assert_eq!(draws(4), vec![2, 3, 4, 5, 6, 7]);
        assert_eq!(draws(5), vec![4, 5, 6, 7]);
        assert_eq!(draws(6), vec![6, 7]);
        assert_eq!(draws(7), Vec::<u8>::new());
    }

    #[test]
    fn given_a_natural_nobody_draws() {
        let t = DrawingTable::punto_banco();
        assert_eq!(t.player(0, 8), Decision::Stand);
        assert_eq!(t.banker(9, 0, None), Decision::Stand);
        assert_eq!(
            t.next_card(&hand("AS 7D"), &hand("2C 3C")),
            NextCard::Complete
        );
    }

    #[test]
    fn next_card_follows_the_initial_deal_then_the_tableau() {
        let t = DrawingTable::punto_banco();
        assert_eq!(
            t.next_card(&hand(""), &hand("")),
            NextCard::To(Side::Player, 1)
        );
        assert_eq!(
            t.next_card(&hand("AS"), &hand("")),
            NextCard::To(Side::Banker, 1)
        );
        assert_eq!(
            t.next_card(&hand("AS"), &hand("KD")),
            NextCard::To(Side::Player, 2)
        );
        assert_eq!(
            t.next_card(&hand("AS 9D"), &hand("KD")),
            NextCard::To(Side::Banker, 2)
        );
        assert_eq!(
            t.next_card(&hand("AS 9D"), &hand("KD 5C")),
            NextCard::To(Side::Player, 3)
        );
        // Player stood on 7, Banker 5 draws.
        assert_eq!(
            t.next_card(&hand("4S 3D"), &hand("KD 5C")),
            NextCard::To(Side::Banker, 3)
        );
        // Player drew an 8, Banker on 3 stands.
        assert_eq!(
            t.next_card(&hand("AS 9D 8H"), &hand("KD 3C")),
            NextCard::Complete
        );
        // The Banker's third card came first: the Player's is still due, then the round is done.
        assert_eq!(
            t.next_card(&hand("AS 9D"), &hand("KD 5C 2H")),
            NextCard::To(Side::Player, 3)
        );
        assert_eq!(
            t.next_card(&hand("AS 9D 4H"), &hand("KD 5C 2H")),
            NextCard::Complete
        );
    }
}
