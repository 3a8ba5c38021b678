//! A shoe's exposure report (issue 29), for surveillance: before each round, the house's edge on
//! every wager the table's rule book lists (and Blackjack's counts), with the rounds where the
//! house was behind marked and summed up, as a PDF document or a flat CSV.
//!
//! The CSV is one row per round and figure, for a spreadsheet: numbers as numbers (a house edge
//! of `-1.2345` is a number, never text a spreadsheet could take as a formula), and every text
//! cell (a wager's name, a book's citation) through [`spreadsheet_cell`].

use std::collections::BTreeMap;

use pitwatch_games::exposure::RoundExposure;
use pitwatch_report::untrusted::spreadsheet_cell;
use pitwatch_report::{Block, Document};
use pitwatch_store::{Store, StoreError};

use super::{site, Times};

/// The exposure report of `table`'s shoe `shoe`, whose rounds' figures are `rounds` (in order),
/// with the site and time zone the record names.
pub fn exposure_report(
    store: &Store,
    table: &str,
    shoe: u32,
    rounds: &[RoundExposure],
) -> Result<Document, StoreError> {
    let times = Times::of(store)?;
    let site = site(store)?;
    let behind = wagers_behind(rounds);
    let rounds_behind = rounds
        .iter()
        .filter(|r| r.figures.iter().any(|f| f.wager && f.house_behind))
        .count();
    let mut blocks = vec![
        Block::Paragraph {
            text: "What each wager was worth before each round, computed exactly from the cards \
                   left in the shoe (a card not seen, such as a burn dealt face down, counted as \
                   still in it). A house edge below zero means the wager was worth more than it \
                   cost: the house was behind on it. For surveillance only."
                .into(),
        },
        Block::Fields {
            fields: vec![
                ("Table".into(), table.to_owned()),
                ("Shoe".into(), shoe.to_string()),
                ("Rounds".into(), rounds.len().to_string()),
                (
                    "Rounds with the house behind on a wager".into(),
                    rounds_behind.to_string(),
                ),
            ],
        },
        Block::Heading {
            text: "Wagers the house was behind on".into(),
        },
    ];
    if behind.is_empty() {
        blocks.push(Block::Paragraph {
            text: "None: the house was ahead on every wager before every round.".into(),
        });
    } else {
        blocks.push(Block::Table {
            columns: vec![
                "Wager".into(),
                "Rounds behind".into(),
                "Lowest house edge".into(),
            ],
            widths: vec![5, 2, 2],
            rows: behind
                .iter()
                .map(|(wager, (count, lowest))| {
                    vec![wager.clone(), count.to_string(), percent(*lowest)]
                })
                .collect(),
        });
    }
    if let Some(first) = rounds.first() {
        blocks.push(Block::Heading {
            text: "Round by round".into(),
        });
        let mut columns = vec!["Round".into(), times.head("Before"), "Cards left".into()];
        columns.extend(first.figures.iter().map(|f| f.name.to_string()));
        let mut widths = vec![1, 3, 1];
        widths.extend(first.figures.iter().map(|_| 2));
        let rows = rounds
            .iter()
            .map(|r| {
                let mut row = vec![
                    r.round.to_string(),
                    r.at.map(|at| times.cell(at)).unwrap_or_default(),
                    r.cards_left.to_string(),
                ];
                row.extend(r.figures.iter().map(|f| {
                    let value = if f.wager {
                        percent(f.value)
                    } else {
                        format!("{:.2}", f.value)
                    };
                    if f.house_behind {
                        format!("{value} (behind)")
                    } else {
                        value
                    }
                }));
                row
            })
            .collect();
        blocks.push(Block::Table {
            columns,
            widths,
            rows,
        });
        let cites: Vec<(String, String)> = first
            .figures
            .iter()
            .filter(|f| !f.cite.is_empty())
            .map(|f| (f.name.to_string(), f.cite.to_string()))
            .collect();
        if !cites.is_empty() {
            blocks.push(Block::Heading {
                text: "Where each pay comes from (the table's rule book)".into(),
            });
            blocks.push(Block::Fields { fields: cites });
        }
    }
    Ok(Document {
        title: format!("Exposure of {table}, shoe {shoe}"),
        subtitle: format!("{site} · surveillance only · times in {}", times.name()),
        footer: format!("Pitwatch exposure report · {table} shoe {shoe}"),
        build: pitwatch_report::build::label(),
        author: String::new(),
        created: None,
        blocks,
    })
}

/// The figures of `rounds` as CSV: a header, then one row per round and figure.
pub fn exposure_csv(table: &str, shoe: u32, rounds: &[RoundExposure]) -> String {
    let mut out = String::from(
        "table,shoe,round,after_event,recorded_at,cards_left,figure,value,is_wager_edge_percent,house_behind,cite\n",
    );
    for r in rounds {
        for f in &r.figures {
            let cells = [
                text(table),
                shoe.to_string(),
                r.round.to_string(),
                r.after_seq.to_string(),
                text(&r.at.map(|at| at.to_string()).unwrap_or_default()),
                r.cards_left.to_string(),
                text(&f.name),
                format!("{:.6}", f.value),
                f.wager.to_string(),
                f.house_behind.to_string(),
                text(&f.cite),
            ];
            out.push_str(&cells.join(","));
            out.push('\n');
        }
    }
    out
}

/// A text cell: quoted, its quotes doubled, never a formula.
fn text(value: &str) -> String {
    format!("\"{}\"", spreadsheet_cell(value).replace('"', "\"\""))
}

fn percent(value: f64) -> String {
    format!("{value:.4}%")
}

/// Each wager the house was behind on in `rounds`: how many rounds, and its lowest edge; most
/// rounds first.
pub fn wagers_behind(rounds: &[RoundExposure]) -> Vec<(String, (u32, f64))> {
    let mut by_wager: BTreeMap<String, (u32, f64)> = BTreeMap::new();
    for figure in rounds
        .iter()
        .flat_map(|r| &r.figures)
        .filter(|f| f.wager && f.house_behind)
    {
        let entry = by_wager
            .entry(figure.name.to_string())
            .or_insert((0, f64::INFINITY));
        entry.0 += 1;
        entry.1 = entry.1.min(figure.value);
    }
    let mut out: Vec<_> = by_wager.into_iter().collect();
    out.sort_by(|a, b| b.1 .0.cmp(&a.1 .0).then_with(|| a.0.cmp(&b.0)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use pitwatch_games::exposure::Figure;

    fn round(value: f64, name: &str, cite: &str) -> RoundExposure {
        RoundExposure {
            round: 1,
            after_seq: 3,
            at: None,
            cards_left: 416,
            figures: vec![Figure {
                name: name.into(),
                value,
                house_behind: value < 0.0,
                wager: true,
                cite: cite.into(),
            }],
        }
    }

    #[test]
    fn numbers_stay_numbers_and_no_text_cell_is_a_formula() {
        let csv = exposure_csv(
            "=HYPERLINK(\"http://x\")",
            2,
            &[round(-1.25, "@SUM(1)", "+1 \"quoted\"\u{202E}")],
        );
        let line = csv.lines().nth(1).expect("a row");
        assert!(
            line.starts_with("\"'=HYPERLINK(\"\"http://x\"\")\",2,1,3,"),
            "{line}"
        );
        assert!(
            line.contains(",\"'@SUM(1)\",-1.250000,true,true,"),
            "{line}"
        );
        assert!(line.ends_with(",\"'+1 \"\"quoted\"\"\u{202E}\""), "{line}");
        // One row per round and figure, under the header.
        assert_eq!(csv.lines().count(), 2);
    }

    #[test]
    fn the_wagers_behind_are_counted_with_their_lowest_edge_most_first() {
        let rounds = [
            round(-1.0, "Dragon 7 (40 to 1)", "c"),
            round(-3.0, "Dragon 7 (40 to 1)", "c"),
            round(-0.5, "Panda 8 (25 to 1)", "c"),
            round(2.0, "Player", "c"),
        ];
        assert_eq!(
            wagers_behind(&rounds),
            [
                ("Dragon 7 (40 to 1)".to_owned(), (2, -3.0)),
                ("Panda 8 (25 to 1)".to_owned(), (1, -0.5)),
            ]
        );
    }
}
