//! An honest poker table's play at the dealer console, simulated: for each hand, what the console
//! reports (the two blinds, then each player's action round the table from the seat after the
//! big blind, and a street or more of betting among the players still in) and, at the hands the
//! caller chooses, a misdeal the floor declares before substantial action (one player has
//! acted, then misdeal (c): cards dealt out of order). Each report comes with the pause before
//! it at a dealer's pace.
//!
//! Chance is the caller's ([`Chance`]: the simulator's seeded generator), so this crate reads no
//! random source and the same chance plays the same hands. How a device sends the play (its
//! protocol, the shuffler's shuffle and deck check before each hand) is the simulator's.

use std::ops::Range;

use pitwatch_model::{EventKind, MisdealReason, MisdealRuling, PlayerAction, Target};

/// Where the dealer's chance comes from: numbers drawn uniformly from a range.
pub trait Chance {
    /// A whole number in `range` (a percentage roll, a number of betting streets).
    fn roll(&mut self, range: Range<i32>) -> i32;
    /// A pause in milliseconds in `range` (a player thinking).
    fn pause_ms(&mut self, range: Range<u64>) -> u64;
}

/// One report of the dealer console: the pause before it (milliseconds at a dealer's pace) and
/// what it reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// The pause since the report before it (or since the hand's deck was checked).
    pub pause_ms: u64,
    /// A player's action, or a declared misdeal.
    pub event: EventKind,
}

/// One hand's play at the console.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HandPlay {
    /// The reports, in order.
    pub reports: Vec<Report>,
    /// The report that declares a misdeal, if the hand was chosen for one (an index into
    /// `reports`).
    pub misdeal: Option<usize>,
}

/// The play of one hand among `seats` players (clamped to 2 to 10), seats numbered from 1 with
/// the blinds at seats 1 and 2; with `declare_misdeal`, one player acts and the floor declares
/// misdeal (c) before substantial action, and the hand ends there.
pub fn play_hand(seats: u8, declare_misdeal: bool, chance: &mut impl Chance) -> HandPlay {
    let seats = seats.clamp(2, 10);
    let act = |seat: u8, action: PlayerAction| EventKind::PlayerActed {
        target: Target::Seat(seat),
        action,
    };
    let report = |pause_ms: u64, event: EventKind| Report { pause_ms, event };
    // The blinds: forced bets, not acting on the hand.
    let mut reports = vec![
        report(4_000, act(1, PlayerAction::Blind)),
        report(1_500, act(2, PlayerAction::Blind)),
    ];
    if declare_misdeal {
        // One player acts, then the dealer's error is seen: misdeal (c) before substantial
        // action (two players acting).
        reports.push(report(5_000, act(3 % seats + 1, PlayerAction::Call)));
        reports.push(report(
            6_000,
            EventKind::MisdealDeclared {
                reason: MisdealReason::C,
                seats: Vec::new(),
                ruling: MisdealRuling::Misdeal,
            },
        ));
        return HandPlay {
            misdeal: Some(reports.len() - 1),
            reports,
        };
    }
    // Pre-flop from the seat after the big blind, round the table to the blinds; then a round or
    // two of betting among those still in.
    let order: Vec<u8> = (3..=seats).chain(1..=2).collect();
    let mut live: Vec<u8> = Vec::new();
    for &seat in &order {
        let action = match chance.roll(0..100) {
            0..35 => PlayerAction::Fold,
            35..85 => PlayerAction::Call,
            _ => PlayerAction::Raise,
        };
        if action != PlayerAction::Fold {
            live.push(seat);
        }
        reports.push(report(chance.pause_ms(2_000..7_000), act(seat, action)));
    }
    for _street in 0..chance.roll(1..4) {
        if live.len() < 2 {
            break;
        }
        let mut still = Vec::new();
        for &seat in &live {
            let action = match chance.roll(0..100) {
                0..20 => PlayerAction::Fold,
                20..70 => PlayerAction::Check,
                70..92 => PlayerAction::Bet,
                _ => PlayerAction::AllIn,
            };
            if action != PlayerAction::Fold {
                still.push(seat);
            }
            reports.push(report(chance.pause_ms(2_000..9_000), act(seat, action)));
        }
        live = still;
    }
    HandPlay {
        reports,
        misdeal: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Chance that counts up: every roll its range's low end plus a step.
    struct Counting(i32);

    impl Chance for Counting {
        fn roll(&mut self, range: Range<i32>) -> i32 {
            self.0 += 37;
            range.start + self.0 % (range.end - range.start)
        }
        fn pause_ms(&mut self, range: Range<u64>) -> u64 {
            range.start
        }
    }

    #[test]
    fn a_hand_opens_with_the_blinds_and_goes_round_the_table() {
        let hand = play_hand(6, false, &mut Counting(0));
        assert_eq!(hand.misdeal, None);
        let seats: Vec<u8> = hand
            .reports
            .iter()
            .map(|r| match &r.event {
                EventKind::PlayerActed {
                    target: Target::Seat(seat),
                    ..
                } => *seat,
                other => panic!("only players act: {other:?}"),
            })
            .collect();
        assert_eq!(seats[..8], [1, 2, 3, 4, 5, 6, 1, 2]);
        assert!(matches!(
            hand.reports[0].event,
            EventKind::PlayerActed {
                action: PlayerAction::Blind,
                ..
            }
        ));
    }

    #[test]
    fn a_declared_misdeal_comes_after_one_player_acts() {
        let hand = play_hand(6, true, &mut Counting(0));
        assert_eq!(hand.reports.len(), 4);
        assert_eq!(hand.misdeal, Some(3));
        assert!(matches!(
            hand.reports[3].event,
            EventKind::MisdealDeclared {
                reason: MisdealReason::C,
                ..
            }
        ));
    }
}
