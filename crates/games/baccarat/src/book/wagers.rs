//! `[[wagers]]`: the wagers a Baccarat table offers and how each pays, each cited to the rule or
//! pay table it comes from. Surveillance's exposure (issue 29) computes what every wager listed
//! here is worth before each round; nothing else reads them, so a book's wagers change no finding.
//!
//! ```toml
//! [[wagers]]
//! wager = "banker"
//! commission_percent = 5
//! cite = "10.2; 5% commission"
//!
//! [[wagers]]
//! wager = "dragon_7"
//! pays = 40
//! cite = "the house's pay table"
//! ```
//!
//! The kinds: `player` (1 to 1), `banker` (1 to 1 less `commission_percent`), `banker_no_commission`
//! (1 to 1, a three-card 7 stands off), `tie`, `player_pair`, `banker_pair`, `dragon_7` and
//! `panda_8` (each with `pays`, to 1). Each kind is listed at most once, and every wager names its
//! `cite`. A book with no `[[wagers]]` (every book written before issue 29) is taken to offer the
//! three main wagers at the usual payouts, Player 1 to 1, Banker less 5%, Tie 8 to 1, and says so
//! in each one's citation ([`DEFAULT_CITE`]).

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::exposure::Wager;

/// What a book with no `[[wagers]]` cites for each of the main wagers it is taken to offer.
pub const DEFAULT_CITE: &str = "the usual payout (the rule book lists no wagers)";

/// One `[[wagers]]` entry as written: every field optional, so loading reports all that is wrong.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct WagerData {
    /// The kind (`player`, `banker`, `banker_no_commission`, `tie`, `player_pair`,
    /// `banker_pair`, `dragon_7`, `panda_8`).
    pub wager: Option<String>,
    /// What a win pays, to 1 (every kind but `player`, `banker` and `banker_no_commission`).
    pub pays: Option<u32>,
    /// The commission on a Banker win, in percent (`banker` only).
    pub commission_percent: Option<u8>,
    /// The rule or pay table the wager is cited to.
    pub cite: Option<String>,
    /// Keys this version does not know (each is a problem).
    #[serde(flatten)]
    pub unknown: BTreeMap<String, toml::Value>,
}

/// A wager the book offers, with its citation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BookWager {
    /// The wager and how it pays.
    pub wager: Wager,
    /// The rule or pay table it comes from.
    pub cite: String,
}

/// The kinds a book may list, by the name it lists them under.
const KINDS: [&str; 8] = [
    "player",
    "banker",
    "banker_no_commission",
    "tie",
    "player_pair",
    "banker_pair",
    "dragon_7",
    "panda_8",
];

/// The wagers of a book that lists none: the main three at the usual payouts.
pub fn default_wagers() -> Vec<BookWager> {
    [
        Wager::Player,
        Wager::Banker {
            commission_percent: 5,
        },
        Wager::Tie { pays: 8 },
    ]
    .into_iter()
    .map(|wager| BookWager {
        wager,
        cite: DEFAULT_CITE.to_owned(),
    })
    .collect()
}

/// Checks `[[wagers]]`, adding each problem to `p`.
pub(super) fn check(data: Option<&[WagerData]>, p: &mut Vec<String>) -> Vec<BookWager> {
    let Some(data) = data else {
        return default_wagers();
    };
    if data.is_empty() {
        p.push("[[wagers]]: the list is empty (leave it out for the main three wagers)".into());
    }
    let mut out: Vec<BookWager> = Vec::with_capacity(data.len());
    let mut seen: Vec<&str> = Vec::new();
    for (i, entry) in data.iter().enumerate() {
        let at = format!("[[wagers]] {}", i + 1);
        for key in entry.unknown.keys() {
            p.push(format!("{at}: unknown key {key:?}"));
        }
        let Some(kind) = entry.wager.as_deref() else {
            p.push(format!("{at}: missing wager (one of {})", KINDS.join(", ")));
            continue;
        };
        let at = format!("{at} ({kind})");
        if seen.contains(&kind) {
            p.push(format!("{at}: listed twice"));
        }
        seen.push(kind);
        let cite = match entry.cite.as_deref().map(str::trim) {
            Some(cite) if !cite.is_empty() => cite.to_owned(),
            _ => {
                p.push(format!(
                    "{at}: missing cite (the rule or pay table it comes from)"
                ));
                String::new()
            }
        };
        if let Some(wager) = wager(kind, entry, &at, p) {
            out.push(BookWager { wager, cite });
        }
    }
    out
}

/// The wager `kind` with the pay `entry` gives it, or `None` with the problem added to `p`.
fn wager(kind: &str, entry: &WagerData, at: &str, p: &mut Vec<String>) -> Option<Wager> {
    let even_money = matches!(kind, "player" | "banker" | "banker_no_commission");
    match (even_money, entry.pays) {
        (true, Some(pays)) if pays != 1 => {
            p.push(format!("{at}: pays {pays}, but this wager pays 1 to 1"));
        }
        (false, None) if KINDS.contains(&kind) => {
            p.push(format!("{at}: missing pays (what a win pays, to 1)"));
        }
        (false, Some(0)) => p.push(format!("{at}: pays 0 to 1 pays nothing")),
        _ => {}
    }
    if kind != "banker" && entry.commission_percent.is_some() {
        p.push(format!(
            "{at}: only the banker wager takes a commission_percent"
        ));
    }
    let pays = entry.pays.unwrap_or(0);
    let wager = match kind {
        "player" => Wager::Player,
        "banker" => match entry.commission_percent {
            Some(percent) if percent <= 100 => Wager::Banker {
                commission_percent: percent,
            },
            Some(percent) => {
                p.push(format!(
                    "{at}: a commission of {percent}% is more than the win"
                ));
                return None;
            }
            None => {
                p.push(format!(
                    "{at}: missing commission_percent (5 in New Zealand; banker_no_commission for none)"
                ));
                return None;
            }
        },
        "banker_no_commission" => Wager::BankerNoCommission,
        "tie" => Wager::Tie { pays },
        "player_pair" => Wager::PlayerPair { pays },
        "banker_pair" => Wager::BankerPair { pays },
        "dragon_7" => Wager::Dragon7 { pays },
        "panda_8" => Wager::Panda8 { pays },
        _ => {
            p.push(format!(
                "{at}: unknown wager (the kinds: {})",
                KINDS.join(", ")
            ));
            return None;
        }
    };
    Some(wager)
}
