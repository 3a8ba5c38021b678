//! Unit tests of the Baccarat rule book: the built-in books load with their parameters, a broken
//! book lists every problem, citations find the book's texts, and the shuffle and cutting-card
//! settings are checked.

use super::*;
use crate::exposure::Wager;

#[test]
fn every_builtin_book_loads() {
    for (id, _) in BUILTIN {
        let book = RuleBook::builtin(id).unwrap();
        assert_eq!(book.id(), *id);
    }
}

#[test]
fn the_nz_book_has_the_2004_parameters() {
    let book = RuleBook::nz_baccarat();
    assert_eq!(book.composition().total_cards(), 416);
    assert_eq!(book.cut().cards(book.composition()), 52);
    assert_eq!(book.cutting_card().min_from_back, 20);
    assert_eq!(book.burn(), BurnPolicy::FirstCardValue { ace: 1 });
    assert_eq!(book.end_of_shoe(), EndOfShoePolicy::LastCoup);
    assert_eq!(*book.drawing(), DrawingTable::punto_banco());
    assert!(book.gazette().contains("2004 No 56"));
    assert_eq!(book.cite(IrregularityCode::UnauthorisedThirdCard), "12.1");
}

#[test]
fn given_a_broken_book_when_loaded_then_every_problem_is_listed() {
    let text = r#"
        colour = "red"
        [book]
        id = "broken"
        game = "blackjack"
        effective = "May 2004"
        [shoe]
        decks = 8
        deck_kind = "tarot"
        shuffler = "manual"
        shuffle_steps = ["chemmy", "shake", "chemmy"]
        [cut]
        [burn]
        policy = "first_card_value"
        ace = 5
        [drawing]
        natural = [8, 19]
        [cite]
        NOT_A_CODE = "1.1"
    "#;
    let err = match RuleBook::from_toml(text, "broken.toml") {
        Err(LoadError::Invalid { error, .. }) => error,
        other => panic!("expected an invalid book, got {other:?}"),
    };
    let all = err.problems.join("\n");
    for wanted in [
        "unknown section or key \"colour\"",
        "game is \"blackjack\"",
        "not a date",
        "unknown deck kind \"tarot\"",
        "[cut]: missing",
        "[cutting_card]: missing",
        "ace counts 1 or 11",
        "[end_of_shoe]: missing policy",
        "natural holds 19",
        "missing player_draws_on",
        "unknown irregularity code \"NOT_A_CODE\"",
        "missing the rule to cite for BURN_MISSING",
        "[book]: missing jurisdiction",
        "shuffle_steps: unknown shuffle step \"shake\"",
        "shuffle_steps names chemmy twice",
    ] {
        assert!(all.contains(wanted), "no {wanted:?} in:\n{all}");
    }
    assert_eq!(
        err.data.book.id.as_deref(),
        Some("broken"),
        "the data is handed back"
    );
}

#[test]
fn given_a_citation_when_texts_are_asked_then_each_cited_rule_the_book_has_comes_back() {
    let book = RuleBook::nz_baccarat();
    let numbers = |citation: &str| -> Vec<String> {
        book.rule_texts(citation)
            .into_iter()
            .map(|(number, _)| number)
            .collect()
    };
    assert_eq!(numbers("7.7(b), 7.9"), ["7.7", "7.9"]);
    assert_eq!(numbers("7.7(a)"), ["7.7"]);
    assert_eq!(
        numbers("Misdeal (a), NZ Gazette 2000 No 5 p139; 12.1(b)"),
        ["misdeal (a)", "12.1"]
    );
    assert_eq!(numbers("7.5, 7.10, 11.2"), ["7.5", "7.10", "11.2"]);
    assert_eq!(numbers("Table of Play, 10.1"), ["10.1"]);
    assert_eq!(numbers("device (no Gazette rule); 10.1"), ["10.1"]);
    assert_eq!(
        numbers("rules 7.6 and 7.6(b), 11.2(a) and (b)"),
        ["7.6", "11.2"]
    );
    assert!(numbers("7.4(b), section 6 (cards inspected before play)").is_empty());
    assert!(numbers("section 6 (4 to 8 decks, checked)").is_empty());
    assert!(
        numbers("7.1, 17.10, 7.77, p7.7").is_empty(),
        "no prefix matches"
    );
    assert!(numbers("").is_empty());
    let texts = book.rule_texts("7.7(b), 7.9");
    assert!(texts[0]
        .1
        .starts_with("The stack of cards shall then be placed"));
    assert!(texts[0].1.contains("(b) draw, face down, additional cards"));
    assert!(texts[1].1.contains("an ace a face value of 1"));
}

#[test]
fn every_cite_of_the_nz_books_finds_a_text_unless_the_source_lacks_it() {
    // A device error breaks no Gazette rule, nor does a device that discloses a deck's order:
    // their citation says so and has no text.
    let without = ["DEVICE_ERROR", "ORDER_DISCLOSED"];
    for id in ["nz-baccarat", "nz-baccarat-continuous"] {
        let book = RuleBook::builtin(id).unwrap();
        for &code in IrregularityCode::ALL {
            if !book.can_raise(code) {
                continue;
            }
            let texts = book.rule_texts(book.cite(code));
            assert_eq!(
                texts.is_empty(),
                without.contains(&code.as_str()),
                "{id} {code}: {:?} gives {texts:?}",
                book.cite(code)
            );
        }
        let twelve = book.text("12.1").unwrap();
        assert!(twelve.ends_with("(the rest of 12.1 is not in the source page)"));
        assert_eq!(book.text("Misdeal  (A)"), book.text("misdeal (a)"));
        assert!(book.text("7.4(b)").is_none() && book.text("7.4").is_none());
    }
}

/// The rule numbers a citation names: dotted numbers (`7.7(b)`) and misdeal conditions
/// (`Misdeal (a)`), as written.
fn named_rules(citation: &str) -> Vec<&str> {
    let mut named = Vec::new();
    for part in citation_parts(citation) {
        if normalise_rule(part).starts_with("misdeal(") {
            named.push(part);
        } else {
            named.extend(dotted_numbers(part));
        }
    }
    named
}

#[test]
fn every_irregularity_a_book_can_raise_cites_rules_the_book_has_that_apply_to_it() {
    for (id, _) in BUILTIN {
        let book = RuleBook::builtin(id).unwrap();
        // Books that number their rules (the NZ books); Macau's are topics (rule numbers
        // unknown), so only its rule numbers, of which it names none, are checked.
        let numbered = book.texts().any(|(number, _)| number.contains('.'));
        let citations = book.citations();
        assert_eq!(
            citations.len(),
            IrregularityCode::ALL
                .iter()
                .filter(|c| book.can_raise(**c))
                .count()
                + 1,
            "{id}: a citation for every code it can raise, and one for the Banker's card"
        );
        for (key, citation) in citations {
            assert!(!citation.trim().is_empty(), "{id} {key}");
            // Every rule it names is in the book's texts: no citation of a rule the book
            // does not hold (7.4(b) was one).
            for rule in named_rules(citation) {
                assert!(
                    book.lookup_widening(rule).is_some(),
                    "{id} {key}: {citation:?} names {rule:?}, which the book has no text for"
                );
            }
            // At least one rule it cites has a text, unless it says no rule applies.
            if numbered && !citation.contains("no Gazette rule") {
                assert!(
                    !book.rule_texts(citation).is_empty(),
                    "{id} {key}: {citation:?} cites no rule the book has"
                );
            }
            // It applies: a continuous shuffler switches off 7.5 and 7.6 (7.8) and section 11
            // (11.1); 12.1 covers only the Player's hand.
            for rule in named_rules(citation) {
                let number = normalise_rule(rule);
                if book.shuffler() == ShufflerKind::Continuous {
                    assert!(
                        !(number.starts_with("7.5")
                            || number.starts_with("7.6")
                            || number.starts_with("11.")),
                        "{id} {key}: {citation:?} cites {rule}, which 7.8 or 11.1 switch off"
                    );
                }
                if key.ends_with("/banker") {
                    assert!(
                        !number.starts_with("12.1"),
                        "{id} {key}: 12.1 is about the Player's hand"
                    );
                }
            }
        }
    }
    let nz = RuleBook::nz_baccarat();
    assert_eq!(
        nz.cite_banker_card(IrregularityCode::UnauthorisedThirdCard),
        "Table of Play, 10.1; misdeal (f)"
    );
    assert_eq!(nz.cite(IrregularityCode::UnauthorisedThirdCard), "12.1");
    let continuous = RuleBook::builtin("nz-baccarat-continuous").unwrap();
    assert!(!continuous.can_raise(IrregularityCode::DealtPastLastCoup));
    assert_eq!(
        continuous.cite(IrregularityCode::NotShuffled),
        "7.10; misdeal (b)"
    );
    // Macau's topics for what its source summarises have their paraphrase.
    let macau = RuleBook::builtin("macau-baccarat").unwrap();
    for code in [
        IrregularityCode::CutTooCloseToEnd,
        IrregularityCode::CuttingCardMisplaced,
        IrregularityCode::BurnMissing,
        IrregularityCode::BurnCountMismatch,
        IrregularityCode::DealtPastLastCoup,
    ] {
        assert_eq!(macau.rule_texts(macau.cite(code)).len(), 1, "macau {code}");
    }
}

#[test]
fn the_shuffle_settings_default_when_absent_and_are_checked_when_given() {
    let nz = RuleBook::nz_baccarat();
    assert_eq!(nz.shuffle_check(), ShuffleCheck::default());
    assert_eq!(nz.cite(IrregularityCode::ShuffleSuspect), "misdeal (b)");
    assert!(!RuleBook::builtin("nz-baccarat-continuous")
        .unwrap()
        .can_raise(IrregularityCode::ShuffleSuspect));
    // A book written before [shuffle] and SHUFFLE_SUSPECT existed still loads, with defaults.
    let text = BUILTIN
        .iter()
        .find(|(id, _)| *id == "nz-baccarat")
        .unwrap()
        .1;
    let start = text.find("[shuffle]").unwrap();
    let end = text.find("[cite]").unwrap();
    let old = format!("{}{}", &text[..start], &text[end..])
        .replace("SHUFFLE_SUSPECT = \"misdeal (b)\"\n", "");
    let book = RuleBook::from_toml(&old, "old").unwrap();
    assert_eq!(book.shuffle_check(), ShuffleCheck::default());
    assert_eq!(book.cite(IrregularityCode::ShuffleSuspect), "");
    let with = |section: &str| text.replace("[cite]\n", &format!("{section}\n[cite]\n"));
    let strict = with("").replace("alarm_p_value = 0.0001", "alarm_p_value = 0.00001");
    assert_eq!(
        RuleBook::from_toml(&strict, "strict")
            .unwrap()
            .shuffle_check()
            .alarm_p_value,
        1e-5
    );
    for (good, bad) in [
        ("alarm_p_value = 0.0001", "alarm_p_value = 1.5"),
        ("weak_p_value = 0.001", "weak_p_value = 0.00001"),
        ("previous_shoes = 2", "previous_shoes = 0"),
    ] {
        let error = RuleBook::from_toml(&text.replace(good, bad), "bad")
            .unwrap_err()
            .to_string();
        assert!(error.contains("[shuffle]"), "{bad}: {error}");
    }
    let unknown = text.replace("previous_shoes = 2", "previous_shoes = 2\nwindow = 3");
    let error = RuleBook::from_toml(&unknown, "bad")
        .unwrap_err()
        .to_string();
    assert!(error.contains("shuffle"), "{error}");
}

#[test]
fn the_citation_check_notices_a_rule_the_book_does_not_hold() {
    let book = RuleBook::nz_baccarat();
    let named = named_rules("7.4(b), section 6 (cards inspected before play)");
    assert_eq!(named, ["7.4(b)"]);
    assert!(book.lookup_widening(named[0]).is_none());
    assert_eq!(
        named_rules("Misdeal (a), NZ Gazette 2000 No 5 p139; 12.1(b)"),
        ["Misdeal (a)", "12.1(b)"]
    );
}

#[test]
fn given_a_citation_for_a_code_the_book_never_raises_or_an_unknown_qualifier_then_it_is_refused() {
    let (_, continuous) = BUILTIN[2];
    for (extra, wanted) in [
        (
            "CUT_TOO_CLOSE_TO_END = \"7.6\"\n",
            "never raises CUT_TOO_CLOSE_TO_END",
        ),
        (
            "\"EXCESS_CARD/banker\" = \"x\"\n",
            "unknown citation \"EXCESS_CARD/banker\"",
        ),
    ] {
        let text = continuous.replace("[cite]\n", &format!("[cite]\n{extra}"));
        let err = match RuleBook::from_toml(&text, "t.toml") {
            Err(LoadError::Invalid { error, .. }) => error,
            other => panic!("expected an invalid book for {extra:?}, got {other:?}"),
        };
        assert!(
            err.problems.iter().any(|p| p.contains(wanted)),
            "{wanted:?} not in {:?}",
            err.problems
        );
    }
}

#[test]
fn a_tables_deck_count_overrides_the_books_and_survives_its_reference() {
    let book = RuleBook::nz_baccarat();
    assert_eq!(book.reference(), "nz-baccarat");
    let six = book.with_decks(6).unwrap();
    assert_eq!(six.composition().total_cards(), 312);
    assert_eq!(six.id(), "nz-baccarat", "citations still name the book");
    assert_eq!(six.reference(), "nz-baccarat;decks=6");
    let again = RuleBook::load(&six.reference()).unwrap();
    assert_eq!(again.composition(), six.composition());
    assert_eq!(again.reference(), six.reference());
    assert!(book.with_decks(3).unwrap_err().contains("4 to 8"));
    assert!(matches!(
        RuleBook::load("nz-baccarat;decks=9"),
        Err(LoadError::Invalid { .. })
    ));
    assert!(matches!(
        RuleBook::load("nz-baccarat;decks=six"),
        Err(LoadError::Invalid { .. })
    ));
}

#[test]
fn the_macau_texts_are_marked_as_paraphrases() {
    let book = RuleBook::builtin("macau-baccarat").unwrap();
    assert!(book.texts().count() > 0);
    for (number, text) in book.texts() {
        assert!(
            text.starts_with("Paraphrase, not the official text"),
            "{number}"
        );
    }
    let cited = book.rule_texts(book.cite(IrregularityCode::CuttingCardMisplaced));
    assert_eq!(cited.len(), 1, "the topic is found under its parenthesis");
}

#[test]
fn given_an_empty_or_duplicate_text_when_loaded_then_the_book_is_refused() {
    let (_, nz) = BUILTIN[0];
    for (extra, wanted) in [
        ("\"7.6 \" = \"  \"\n", "[texts]: \"7.6 \" has an empty text"),
        ("\"Misdeal (A)\" = \"x\"\n", "name the same rule"),
        ("\" \" = \"x\"\n", "[texts]: a rule number is empty"),
    ] {
        let text = nz.replace("[texts]\n", &format!("[texts]\n{extra}"));
        let err = match RuleBook::from_toml(&text, "t.toml") {
            Err(LoadError::Invalid { error, .. }) => error,
            other => panic!("expected an invalid book for {extra:?}, got {other:?}"),
        };
        assert!(
            err.problems.iter().any(|p| p.contains(wanted)),
            "{wanted:?} not in {:?}",
            err.problems
        );
    }
}

#[test]
fn a_half_limit_allows_up_to_half_from_the_back() {
    let limit = CuttingCardLimit {
        min_from_back: 0,
        max_from_back_fraction: Some(0.5),
    };
    assert!(limit.allows(192, 384));
    assert!(!limit.allows(193, 384));
}

#[test]
fn the_nz_book_lists_its_wagers_each_cited_in_its_order() {
    let book = RuleBook::nz_baccarat();
    let wagers: Vec<Wager> = book.wagers().iter().map(|w| w.wager).collect();
    assert_eq!(
        wagers,
        [
            Wager::Player,
            Wager::Banker {
                commission_percent: 5
            },
            Wager::Tie { pays: 8 },
            Wager::PlayerPair { pays: 11 },
            Wager::BankerPair { pays: 11 },
            Wager::Dragon7 { pays: 40 },
            Wager::Panda8 { pays: 25 },
            Wager::BankerNoCommission,
        ]
    );
    assert!(book.wagers()[1].cite.starts_with("10.2"));
    assert!(book.wagers().iter().all(|w| !w.cite.trim().is_empty()));
    for (id, _) in BUILTIN {
        assert_eq!(RuleBook::builtin(id).unwrap().wagers().len(), 8, "{id}");
    }
}

/// The NZ book with its `[[wagers]]` replaced by `wagers` (TOML, empty for none).
fn nz_with_wagers(wagers: &str) -> String {
    let text = BUILTIN[0].1;
    let start = text.find("[[wagers]]").expect("the NZ book lists wagers");
    let end = text.find("\n[cite]").expect("a [cite] section");
    format!("{}{wagers}\n{}", &text[..start], &text[end..])
}

#[test]
fn a_book_without_wagers_offers_the_main_three_at_the_usual_payouts_and_says_so() {
    let book = RuleBook::from_toml(&nz_with_wagers(""), "old.toml").unwrap();
    assert_eq!(book.wagers(), default_wagers().as_slice());
    assert_eq!(book.wagers().len(), 3);
    assert!(book.wagers().iter().all(|w| w.cite == DEFAULT_CITE));
}

#[test]
fn a_book_with_its_own_pay_table_is_followed() {
    let book = RuleBook::from_toml(
        &nz_with_wagers(
            "[[wagers]]\nwager = \"dragon_7\"\npays = 30\ncite = \"house table 3\"\n\
             [[wagers]]\nwager = \"tie\"\npays = 9\ncite = \"house table 1\"\n",
        ),
        "house.toml",
    )
    .unwrap();
    assert_eq!(
        book.wagers(),
        [
            BookWager {
                wager: Wager::Dragon7 { pays: 30 },
                cite: "house table 3".into()
            },
            BookWager {
                wager: Wager::Tie { pays: 9 },
                cite: "house table 1".into()
            },
        ]
    );
}

#[test]
fn given_wrong_wagers_when_loaded_then_each_problem_is_listed() {
    let text = nz_with_wagers(
        r#"
[[wagers]]
wager = "player"
pays = 2
cite = "a"
[[wagers]]
wager = "tie"
cite = "b"
[[wagers]]
wager = "tie"
pays = 8
cite = "c"
[[wagers]]
wager = "lucky_6"
pays = 12
cite = "d"
[[wagers]]
wager = "banker"
cite = "e"
[[wagers]]
wager = "panda_8"
pays = 25
commission_percent = 5
[[wagers]]
pays = 0
colour = "red"
"#,
    );
    let err = match RuleBook::from_toml(&text, "wagers.toml") {
        Err(LoadError::Invalid { error, .. }) => error,
        other => panic!("expected an invalid book, got {other:?}"),
    };
    let all = err.problems.join("\n");
    for wanted in [
        "[[wagers]] 1 (player): pays 2, but this wager pays 1 to 1",
        "[[wagers]] 2 (tie): missing pays",
        "[[wagers]] 3 (tie): listed twice",
        "[[wagers]] 4 (lucky_6): unknown wager",
        "[[wagers]] 5 (banker): missing commission_percent",
        "[[wagers]] 6 (panda_8): missing cite",
        "[[wagers]] 6 (panda_8): only the banker wager takes a commission_percent",
        "[[wagers]] 7: missing wager",
        "[[wagers]] 7: unknown key \"colour\"",
    ] {
        assert!(all.contains(wanted), "missing {wanted:?} in:\n{all}");
    }
    let empty = format!("wagers = []\n{}", nz_with_wagers(""));
    let empty = RuleBook::from_toml(&empty, "empty.toml");
    assert!(
        matches!(&empty, Err(LoadError::Invalid { error, .. })
            if error.problems.iter().any(|p| p.contains("the list is empty"))),
        "{empty:?}"
    );
}
