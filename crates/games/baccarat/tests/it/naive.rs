//! A deliberately plain Baccarat implementation for cross-checking the engine: hard-coded
//! tableau, no shared code with the engine or the rule book.

use pitwatch_model::Card;

fn points(card: Card) -> u8 {
    let pip = card.rank.pip();
    if pip >= 10 {
        0
    } else {
        pip
    }
}

/// One round played from `cards` in deal order: (player cards, banker cards).
pub fn round(cards: &mut impl Iterator<Item = Card>) -> Option<(Vec<Card>, Vec<Card>)> {
    let p1 = cards.next()?;
    let b1 = cards.next()?;
    let p2 = cards.next()?;
    let b2 = cards.next()?;
    let mut player = vec![p1, p2];
    let mut banker = vec![b1, b2];
    let pt = (points(p1) + points(p2)) % 10;
    let bt = (points(b1) + points(b2)) % 10;
    if pt >= 8 || bt >= 8 {
        return Some((player, banker));
    }
    let mut third = None;
    if pt <= 5 {
        let c = cards.next()?;
        player.push(c);
        third = Some(points(c));
    }
    let banker_draws = match third {
        None => bt <= 5,
        Some(x) => match bt {
            0..=2 => true,
            3 => x != 8,
            4 => (2..=7).contains(&x),
            5 => (4..=7).contains(&x),
            6 => x == 6 || x == 7,
            _ => false,
        },
    };
    if banker_draws {
        banker.push(cards.next()?);
    }
    Some((player, banker))
}

/// Total of a hand.
pub fn total(cards: &[Card]) -> u8 {
    cards.iter().map(|c| points(*c)).sum::<u8>() % 10
}

/// Burn count for a first card under NZ 7.9.
pub fn burn_count(first: Card) -> usize {
    let pip = first.rank.pip() as usize;
    pip.min(10)
}
