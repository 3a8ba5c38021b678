//! The drawing rules the simulated dealer plays by, written with its own code from the published
//! rules ("Table of Play", the universal Punto Banco tableau: `/work/shared/docs/rules.md`,
//! "Drawing rules"; 8.4 for the initial deal), not with the engine's drawing table, so that the
//! tests that compare the dealer with the engine compare two implementations. Every built-in
//! rule book's `[drawing]` section is this tableau (a test in the Baccarat crate,
//! `tests/it/dealer.rs`, checks it against the books).
//!
//! Totals are two-card point counts (A = 1, 2–9 face value, 10 J Q K = 0, mod 10); the Player's
//! third card is its point value.

/// A hand's point count: each card's point value (A = 1, 2–9 face value, 10 J Q K = 0), the sum
/// mod 10.
pub fn total(cards: &[pitwatch_model::Card]) -> u8 {
    cards.iter().map(|c| c.baccarat_points()).sum::<u8>() % 10
}

/// Rule 1: a two-card 8 or 9 is a natural, and with one on either side both hands stand.
pub fn natural(total: u8) -> bool {
    total == 8 || total == 9
}

/// Rule 2: the Player draws on 0–5 and stands on 6–7 (and on either side's natural).
pub fn player_draws(player: u8, banker: u8) -> bool {
    !natural(player) && !natural(banker) && player <= 5
}

/// Rules 3 and 4: the Banker's draw on its two-card total, when the Player stood (`None`) or by
/// the value of the Player's third card.
pub fn banker_draws(player: u8, banker: u8, player_third: Option<u8>) -> bool {
    if natural(player) || natural(banker) {
        return false;
    }
    let Some(third) = player_third else {
        // 3. The Player stood: the Banker draws on 0–5 and stands on 6–7.
        return banker <= 5;
    };
    // 4. The Player drew: by the Banker's total and the Player's third card.
    match banker {
        0..=2 => true,
        3 => third != 8,
        4 => (2..=7).contains(&third),
        5 => (4..=7).contains(&third),
        6 => third == 6 || third == 7,
        _ => false,
    }
}

/// Plays a plain shoe's round from `cards` in deal order (P, B, P, B by 8.4, then the third
/// cards): the Player's and the Banker's cards, and whether exactly these cards make the round.
/// `None` when a card is unreadable (the rules cannot say where the next card goes).
pub fn play(cards: &[Option<pitwatch_model::Card>]) -> Option<(Vec<u8>, Vec<u8>, bool)> {
    let points: Vec<u8> = cards
        .iter()
        .map(|c| c.map(|c| c.baccarat_points()))
        .collect::<Option<_>>()?;
    if points.len() < 4 {
        return Some((Vec::new(), Vec::new(), false));
    }
    let mut player = vec![points[0], points[2]];
    let mut banker = vec![points[1], points[3]];
    let total = |hand: &[u8]| hand.iter().sum::<u8>() % 10;
    let (p2, b2) = (total(&player), total(&banker));
    let mut rest = points[4..].iter().copied();
    let mut third = None;
    if player_draws(p2, b2) {
        let Some(card) = rest.next() else {
            return Some((player, banker, false));
        };
        player.push(card);
        third = Some(card);
    }
    if banker_draws(p2, b2, third) {
        let Some(card) = rest.next() else {
            return Some((player, banker, false));
        };
        banker.push(card);
    }
    Some((player, banker, rest.next().is_none()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tableau_rows_are_the_published_ones() {
        // rules.md, rule 4: the Banker's total against the Player's third card.
        let rows: [(u8, &[u8]); 8] = [
            (0, &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]),
            (1, &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]),
            (2, &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]),
            (3, &[0, 1, 2, 3, 4, 5, 6, 7, 9]),
            (4, &[2, 3, 4, 5, 6, 7]),
            (5, &[4, 5, 6, 7]),
            (6, &[6, 7]),
            (7, &[]),
        ];
        for (banker, draws) in rows {
            for third in 0..=9 {
                assert_eq!(banker_draws(5, banker, Some(third)), draws.contains(&third));
            }
        }
        assert!(player_draws(5, 7) && !player_draws(6, 0) && !player_draws(3, 8));
        assert!(banker_draws(6, 5, None) && !banker_draws(6, 6, None));
    }
}
