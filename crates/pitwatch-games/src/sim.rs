//! What the simulator deals for each game: the one place that chooses, by the rule book, which
//! dealer deals a simulated table, so the simulator (`pitwatch-sim`: the devices' framing, wire
//! faults, pacing and links) and the front ends that start it name no game.
//!
//! A game is dealt in one of three ways ([`Dealing`], [`DealtAs`]):
//!
//! - **cards** ([`CardsBook`]): a shoe whose rounds follow from the cards alone, so any protocol
//!   carries them; the reference dealer (`pitwatch-dealer`, which the simulator runs: it draws on
//!   a random generator, which this pure crate does not reach) deals it by the book's shoe
//!   section, and [`CardsBook::round`] gives each dealt round as the table's engine records it
//!   (Baccarat);
//! - **boxes** ([`BoxDealer`]): a shoe of rounds dealt to boxes with the players' decisions, which
//!   only the Pitwatch protocol's box targets and decisions carry, by the game's own dealer
//!   (Blackjack and Pontoon: `pitwatch_blackjack::dealer`), with its faults ([`GameFault`]);
//! - **hands** ([`HandDealer`]): hands played at a dealer console, each from a deck its shuffler
//!   shuffled and checked for it, by the game's own dealer (poker: `pitwatch_poker::dealer`),
//!   drawing on the simulator's [`Chance`].

use std::str::FromStr;

use pitwatch_baccarat::{Hand, RoundRecord, RuleBook};
use pitwatch_blackjack as blackjack;
use pitwatch_model::{Card, Outcome, ShoeComposition, TableEvent};
use pitwatch_poker as poker;
use pitwatch_rules::ShoeBook;

/// The chance a hand dealer draws on (numbers drawn uniformly from a range): the simulator's
/// seeded generator.
pub use poker::dealer::Chance;

use crate::{GameBook, GameKind, GameRound};

/// How a game is dealt at a simulated table, without its book; see the module documentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DealtAs {
    /// A shoe whose rounds follow from the cards alone.
    Cards,
    /// A shoe of rounds dealt to boxes with the players' decisions.
    Boxes,
    /// Hands played at a dealer console.
    Hands,
}

impl DealtAs {
    /// How `game` is dealt.
    pub const fn of(game: GameKind) -> DealtAs {
        match game {
            GameKind::Baccarat => DealtAs::Cards,
            GameKind::Blackjack | GameKind::Pontoon => DealtAs::Boxes,
            GameKind::Poker => DealtAs::Hands,
        }
    }

    /// The games dealt this way, for a person ("Blackjack or Pontoon").
    pub fn games(self) -> String {
        GameKind::ALL
            .into_iter()
            .filter(|game| DealtAs::of(*game) == self)
            .map(title)
            .collect::<Vec<_>>()
            .join(" or ")
    }
}

/// A game's name in a sentence.
const fn title(game: GameKind) -> &'static str {
    match game {
        GameKind::Baccarat => "Baccarat",
        GameKind::Blackjack => "Blackjack",
        GameKind::Pontoon => "Pontoon",
        GameKind::Poker => "poker",
    }
}

/// The dealer of a simulated table of a book's game.
#[derive(Debug, Clone)]
pub enum Dealing {
    /// A shoe whose rounds follow from the cards alone.
    Cards(CardsBook),
    /// A shoe of rounds dealt to boxes.
    Boxes(BoxDealer),
    /// Hands played at a dealer console.
    Hands(HandDealer),
}

impl Dealing {
    /// How it deals.
    pub fn dealt_as(&self) -> DealtAs {
        match self {
            Dealing::Cards(_) => DealtAs::Cards,
            Dealing::Boxes(_) => DealtAs::Boxes,
            Dealing::Hands(_) => DealtAs::Hands,
        }
    }
}

impl GameBook {
    /// Who deals a simulated table of this book's game.
    pub fn dealing(&self) -> Dealing {
        match self {
            GameBook::Baccarat(book) => Dealing::Cards(book.into()),
            GameBook::Blackjack(book) => Dealing::Boxes(BoxDealer { book: book.clone() }),
            GameBook::Poker(book) => Dealing::Hands(HandDealer {
                composition: book.shoe.composition,
            }),
        }
    }
}

/// A book whose rounds follow from the cards alone: what the reference dealer deals a shoe by,
/// and how a dealt round reads as the engine's record.
#[derive(Debug, Clone)]
pub struct CardsBook {
    shoe: ShoeBook,
}

impl From<&RuleBook> for CardsBook {
    fn from(book: &RuleBook) -> CardsBook {
        CardsBook {
            shoe: book.shoe_book(),
        }
    }
}

impl From<RuleBook> for CardsBook {
    fn from(book: RuleBook) -> CardsBook {
        CardsBook::from(&book)
    }
}

impl CardsBook {
    /// The book's shoe section, the table's deck count in it.
    pub fn shoe_book(&self) -> &ShoeBook {
        &self.shoe
    }

    /// The dealer's round as the engine records one: every field the dealer counted (cards,
    /// totals, winner, pairs, `seq`s), a dealt round being complete.
    pub fn round(&self, r: DealtHands<'_>) -> GameRound {
        GameRound::Baccarat(RoundRecord {
            shoe: r.shoe,
            round: r.round,
            player: Hand::of(r.player),
            banker: Hand::of(r.banker),
            player_total: Some(r.player_total),
            banker_total: Some(r.banker_total),
            outcome: Some(r.outcome),
            player_pair: Some(r.player_pair),
            banker_pair: Some(r.banker_pair),
            first_seq: r.first_seq,
            last_seq: r.last_seq,
            complete: true,
            partial: false,
            no_bets: false,
        })
    }
}

/// A round of a shoe of cards alone as the reference dealer dealt and counted it (with its own
/// code, not the engine's): the two hands, what they give, and the `seq`s of its first and last
/// events.
#[derive(Debug, Clone, Copy)]
pub struct DealtHands<'a> {
    /// The shoe, 1-based.
    pub shoe: u32,
    /// The round within the shoe, 1-based.
    pub round: u32,
    /// The first hand's cards.
    pub player: &'a [Card],
    /// The second hand's cards.
    pub banker: &'a [Card],
    /// The first hand's total.
    pub player_total: u8,
    /// The second hand's total.
    pub banker_total: u8,
    /// Which hand won, or a tie.
    pub outcome: Outcome,
    /// Whether the first hand's first two cards are a pair.
    pub player_pair: bool,
    /// Whether the second hand's first two cards are a pair.
    pub banker_pair: bool,
    /// `seq` of the round's first event.
    pub first_seq: u64,
    /// `seq` of the round's last event.
    pub last_seq: u64,
}

impl GameRound {
    /// What a simulated round is checked by against the round as dealt: its cards and result as
    /// text (a Baccarat coup's hands and outcome; another game's whole record).
    pub fn as_dealt(&self) -> String {
        match self {
            GameRound::Baccarat(r) => format!("{} | {} | {:?}", r.player, r.banker, r.outcome),
            GameRound::Blackjack(_) | GameRound::Poker(_) => {
                serde_json::to_string(self).unwrap_or_default()
            }
        }
    }
}

/// One shoe dealt to boxes: its events (`seq` from 1), where each fault went in and the rounds.
#[derive(Debug, Clone)]
pub struct BoxShoe {
    /// The events, `seq` from 1.
    pub events: Vec<TableEvent>,
    /// Where each fault went in.
    pub injected: Vec<BoxFault>,
    /// Rounds dealt.
    pub rounds: u32,
}

/// Where a fault went into a shoe dealt to boxes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BoxFault {
    /// The fault's name.
    pub fault: &'static str,
    /// Its round within the shoe; 0 for a fault at the shoe's load, outside any round.
    pub round: u32,
    /// The irregularity code a host should raise for it.
    pub code: &'static str,
}

/// The dealer of a table whose rounds are dealt to boxes (Blackjack's, for Blackjack and Pontoon):
/// an honest dealer with a basic-strategy player per box, and the faults asked for.
#[derive(Debug, Clone)]
pub struct BoxDealer {
    book: Box<blackjack::Book>,
}

impl BoxDealer {
    /// The game's name (`blackjack`, `pontoon`).
    pub fn name(&self) -> &'static str {
        self.book.variant.name()
    }

    /// The book's shoe.
    pub fn composition(&self) -> ShoeComposition {
        self.book.shoe.composition
    }

    /// The faults this book's dealer can inject, in turn.
    pub fn faults(&self) -> Vec<blackjack::dealer::Fault> {
        blackjack::dealer::Fault::ALL
            .iter()
            .copied()
            .filter(|f| f.applies(&self.book))
            .collect()
    }

    /// One shoe dealt from `seed`, with `faults` (each at its round of the shoe).
    pub fn deal(&self, seed: u64, faults: Vec<(blackjack::dealer::Fault, u32)>) -> BoxShoe {
        let config = blackjack::dealer::Config {
            seed,
            shoes: 1,
            faults,
            ..blackjack::dealer::Config::default()
        };
        let dealt = blackjack::dealer::deal(&self.book, &config);
        BoxShoe {
            injected: dealt
                .injected
                .iter()
                .map(|i| BoxFault {
                    fault: i.fault.name(),
                    round: i.round,
                    code: i.fault.code().as_str(),
                })
                .collect(),
            events: dealt.events,
            rounds: dealt.rounds,
        }
    }
}

/// A fault of a table dealt to boxes at a round: `KIND`, `KIND@ROUND` (shoe 1) or
/// `KIND@SHOE:ROUND`, KIND one of the dealer's faults (`dealer_draws_on_stand`,
/// `dealer_stands_short`, `card_to_empty_box`, `out_of_order`, `round_after_cutting_card`,
/// `foreign_card`, `shuffle_step_skipped`). The dealer puts it into that round or, where it cannot
/// show there (a dealer who must draw, two boxes), the first round after it where it can; a
/// skipped preparation step (under a book that requires the steps, Pontoon 6.4) goes into the
/// shoe's load, and is logged with round 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GameFault {
    /// The fault.
    pub fault: blackjack::dealer::Fault,
    /// Its shoe, from 1.
    pub shoe: u32,
    /// Its round within the shoe, from 1.
    pub round: u32,
}

impl FromStr for GameFault {
    type Err = String;

    fn from_str(text: &str) -> Result<GameFault, String> {
        let (kind, at) = match text.split_once('@') {
            Some((kind, at)) => (kind, Some(at)),
            None => (text, None),
        };
        let fault: blackjack::dealer::Fault = kind.replace('-', "_").parse()?;
        let number = |n: &str| {
            n.parse::<u32>()
                .ok()
                .filter(|n| *n > 0)
                .ok_or_else(|| format!("{n:?} is not a number from 1"))
        };
        let (shoe, round) = match at {
            None => (1, 3),
            Some(at) => match at.split_once(':') {
                Some((shoe, round)) => (number(shoe)?, number(round)?),
                None => (1, number(at)?),
            },
        };
        Ok(GameFault { fault, shoe, round })
    }
}

/// The dealer of a table whose hands are played at a dealer console (poker's): the blinds, each
/// player's action, now and then a misdeal the floor declares before substantial action.
#[derive(Debug, Clone)]
pub struct HandDealer {
    composition: ShoeComposition,
}

impl HandDealer {
    /// The deck (or decks) the shuffler shuffles for each hand.
    pub fn composition(&self) -> ShoeComposition {
        self.composition
    }

    /// The play of one hand among `seats` players; with `declare_misdeal`, a misdeal declared
    /// before substantial action ends it.
    pub fn play_hand(
        &self,
        seats: u8,
        declare_misdeal: bool,
        chance: &mut impl Chance,
    ) -> poker::dealer::HandPlay {
        poker::dealer::play_hand(seats, declare_misdeal, chance)
    }
}

/// The book of a game dealt to boxes that `rules` names, if it names one (a built-in id, or a rule
/// book file whose `[book]` names such a game); `Err` says why it cannot be used.
pub fn boxes_book(rules: &str) -> Option<Result<GameBook, String>> {
    crate::blackjack_file_book(rules).map(|book| book.map(GameBook::from))
}

/// The book of a game whose rounds follow from the cards alone that `rules` names (a built-in id
/// or a rule book file), or why it does not load.
pub fn cards_book(rules: &str) -> Result<GameBook, String> {
    crate::load_baccarat(rules)
        .map(GameBook::from)
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faults_parse_with_and_without_their_round() {
        use blackjack::dealer::Fault;
        let f: GameFault = "dealer-draws-on-stand@2:7".parse().unwrap();
        assert_eq!(
            (f.fault, f.shoe, f.round),
            (Fault::DealerDrawsOnStand, 2, 7)
        );
        let f: GameFault = "out_of_order@4".parse().unwrap();
        assert_eq!((f.shoe, f.round), (1, 4));
        assert!("out_of_order@0".parse::<GameFault>().is_err());
        assert!("burn-miscount".parse::<GameFault>().is_err());
    }

    #[test]
    fn every_game_is_dealt_one_way_and_its_book_says_the_same() {
        assert_eq!(DealtAs::Boxes.games(), "Blackjack or Pontoon");
        assert_eq!(DealtAs::Cards.games(), "Baccarat");
        for (name, game) in [
            ("nz-baccarat", GameKind::Baccarat),
            ("nz-blackjack", GameKind::Blackjack),
            ("nz-pontoon", GameKind::Pontoon),
            ("nz-poker", GameKind::Poker),
        ] {
            let book = GameBook::load(name).unwrap();
            assert_eq!(book.kind(), game);
            assert_eq!(book.dealing().dealt_as(), DealtAs::of(game), "{name}");
        }
    }
}
