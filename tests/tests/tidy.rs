//! The architecture's invariants as tests (rust-analyzer's `tidy` in spirit): every Rust file
//! starts with a `//!` doc, files stay within a length budget, workspace crates depend only
//! downwards (dev-dependencies included), only a game's own homes and the registries name the
//! game, no game follows a shoe's events itself (the shoe rules are written once, in the shared
//! tracker), the core reads no clock, and nothing but the transport and the simulator writes to a
//! device.
//!
//! Where today's code breaks an invariant, the offender is written in an allow-list below. Each
//! list may only shrink: a listed item that no longer breaks the invariant fails the test until it
//! is taken off the list, so a fix is recorded and cannot quietly regress. The checks read files
//! and `cargo metadata --no-deps` only (no build, no network), so they stay cheap.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// The workspace root (this crate lives in `tests/`).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ sits in the workspace")
        .to_path_buf()
}

/// Directories never searched: build output, installed packages, version control.
fn skipped(name: &str) -> bool {
    name == "target" || name == "node_modules" || name.starts_with('.')
}

/// Every file under `dir` (relative to the root, `/`-separated) whose name ends in one of `exts`.
fn files(dir: &str, exts: &[&str]) -> Vec<String> {
    let root = root();
    let mut out = Vec::new();
    let mut stack = vec![root.join(dir)];
    while let Some(at) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&at) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if path.is_dir() {
                if !skipped(&name) {
                    stack.push(path);
                }
            } else if exts.iter().any(|e| name.ends_with(e)) {
                let rel = path.strip_prefix(&root).expect("under the root");
                out.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    out.sort();
    out
}

/// Every Rust file of the repository (the workspace, the fuzz targets, the benchmark workspaces).
fn rust_files() -> Vec<String> {
    let mut all = Vec::new();
    for dir in ["crates", "drivers", "src-tauri", "tests", "fuzz", "bench"] {
        all.extend(files(dir, &[".rs"]));
    }
    assert!(
        all.iter().any(|f| f == "crates/pitwatch-model/src/lib.rs"),
        "the walk finds the workspace's files"
    );
    all
}

fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Checks an allow-list against what was found: every violation must be listed, and every
/// listed item must still be a violation (the list may only shrink).
fn keep_to(what: &str, allowed: &[&str], found: &BTreeSet<String>) {
    let allowed: BTreeSet<String> = allowed.iter().map(|s| (*s).to_owned()).collect();
    let new: Vec<&String> = found.difference(&allowed).collect();
    let fixed: Vec<&String> = allowed.difference(found).collect();
    let mut message = String::new();
    if !new.is_empty() {
        message += &format!(
            "{what}: new violations (fix them; the allow-list is for what was there before):\n  {}\n",
            new.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n  ")
        );
    }
    if !fixed.is_empty() {
        message += &format!(
            "{what}: no longer violations, take them off the allow-list in tests/tests/tidy.rs:\n  {}\n",
            fixed.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n  ")
        );
    }
    assert!(message.is_empty(), "{message}");
}

// ---- a `//!` doc on every file --------------------------------------------------------------

/// Files that do not start with a `//!` doc today (none; the list may only shrink).
const UNDOCUMENTED: &[&str] = &[];

#[test]
fn every_rust_file_starts_with_a_module_doc() {
    let found: BTreeSet<String> = rust_files()
        .into_iter()
        .filter(|f| !read(f).trim_start().starts_with("//!"))
        .collect();
    keep_to("files without a leading `//!` doc", UNDOCUMENTED, &found);
}

// ---- a file-length budget -------------------------------------------------------------------

/// Lines a Rust file may have.
const BUDGET: usize = 1_000;

/// Files over the budget today. Split them by concern (quinn-proto's `connection/` is the
/// example) and take them off; nothing joins this list.
const OVER_BUDGET: &[&str] = &[];

#[test]
fn files_stay_within_the_length_budget() {
    let found: BTreeSet<String> = rust_files()
        .into_iter()
        .filter(|f| read(f).lines().count() > BUDGET)
        .collect();
    keep_to(
        &format!("Rust files over {BUDGET} lines"),
        OVER_BUDGET,
        &found,
    );
}

// ---- layer order, dev-dependencies included -------------------------------------------------

/// Each workspace crate's layer: a crate may depend (normally, for builds or for tests) only on
/// crates of a lower layer. Game crates share a layer, so no game depends on another; the
/// machinery sits above every game and the front ends above it. A new crate must be given a layer
/// here.
const LAYERS: &[(&str, u8)] = &[
    // The vocabulary and the document model: no workspace dependencies.
    ("pitwatch-model", 0),
    ("pitwatch-report", 0),
    // Game-neutral cores and the owners of outside things.
    ("pitwatch-rules", 1),
    ("pitwatch-codec", 1),
    ("pitwatch-transport", 1),
    ("pitwatch-store", 1),
    // Baccarat's reference dealer: on the model and the shared shoe section only, below the game
    // it is the reference for (Baccarat's tests use it; it uses no Baccarat code).
    ("pitwatch-dealer", 2),
    // The games' shared test support (one fixture runner, one carry property): on the model and
    // the rules only, below the games whose tests use it.
    ("pitwatch-fixtures", 2),
    // Games and the devices' codecs.
    ("pitwatch-baccarat", 3),
    ("pitwatch-blackjack", 3),
    ("pitwatch-poker", 3),
    ("pitwatch-angel-eye", 3),
    ("pitwatch-barcode", 3),
    ("pitwatch-proto", 3),
    // What works over every game or every codec.
    ("pitwatch-shuffle", 4),
    // The registry of games: the kind, the one book loader, the table engine over every game.
    ("pitwatch-games", 4),
    ("pitwatch-protocols", 4),
    // The device simulator (the demo's and the tests').
    ("pitwatch-sim", 5),
    // The recording machinery: the pit definition, monitor, recorder, record, replay, reports.
    ("pitwatch-recording", 6),
    // The window's boundary (DTOs, commands, conversions, error codes), over the machinery.
    ("pitwatch-api", 7),
    // The central replica: the store's rows over PostgreSQL (its tests write records with the
    // recording machinery).
    ("pitwatch-sync", 7),
    // Use cases.
    ("pitwatch-app", 8),
    // The front ends.
    ("pitwatch-cli", 9),
    ("pitwatch-desktop", 9),
    // Workspace-wide tests.
    ("pitwatch-workspace-tests", 10),
];

/// Edges that point sideways or up today, as `from -> to (kind)` (none: Baccarat's reference
/// dealer, once built on the engine's crate, which the engine's tests used, no longer is).
const UPWARD_EDGES: &[&str] = &[];

/// The workspace's crates and their dependencies on each other: (from, to, kind).
fn workspace_edges() -> (BTreeSet<String>, Vec<(String, String, String)>) {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .current_dir(root())
        .output()
        .expect("cargo metadata runs");
    assert!(
        output.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: Value = serde_json::from_slice(&output.stdout).expect("metadata is JSON");
    let packages = metadata["packages"].as_array().expect("packages");
    let names: BTreeSet<String> = packages
        .iter()
        .map(|p| p["name"].as_str().expect("a name").to_owned())
        .collect();
    let mut edges = Vec::new();
    for p in packages {
        let from = p["name"].as_str().expect("a name");
        for d in p["dependencies"].as_array().expect("dependencies") {
            let to = d["name"].as_str().expect("a name");
            if names.contains(to) {
                let kind = d["kind"].as_str().unwrap_or("normal").to_owned();
                edges.push((from.to_owned(), to.to_owned(), kind));
            }
        }
    }
    (names, edges)
}

#[test]
fn workspace_crates_depend_only_downwards_dev_dependencies_included() {
    let (names, edges) = workspace_edges();
    let layer: BTreeMap<&str, u8> = LAYERS.iter().copied().collect();
    let unplaced: Vec<&String> = names
        .iter()
        .filter(|n| !layer.contains_key(n.as_str()))
        .collect();
    assert!(
        unplaced.is_empty(),
        "give each workspace crate a layer in tests/tests/tidy.rs: {unplaced:?}"
    );
    let gone: Vec<&&str> = layer.keys().filter(|n| !names.contains(**n)).collect();
    assert!(
        gone.is_empty(),
        "layers name crates the workspace no longer has: {gone:?}"
    );
    assert!(
        edges
            .iter()
            .any(|(f, t, _)| f == "pitwatch-cli" && t == "pitwatch-model"),
        "the metadata holds real edges"
    );
    let found: BTreeSet<String> = edges
        .iter()
        .filter(|(from, to, _)| layer[from.as_str()] <= layer[to.as_str()])
        .map(|(from, to, kind)| format!("{from} -> {to} ({kind})"))
        .collect();
    keep_to(
        "dependencies that do not point to a lower layer",
        UPWARD_EDGES,
        &found,
    );
}

// ---- only a game's homes name the game ------------------------------------------------------

/// The games, each with the folders that are its home: its crate and its UI folder (Pontoon is
/// Blackjack's variant and lives with it).
const GAMES: &[(&str, &[&str])] = &[
    (
        "baccarat",
        &["crates/games/baccarat/", "ui/src/games/baccarat/"],
    ),
    (
        "blackjack",
        &["crates/games/blackjack/", "ui/src/games/blackjack/"],
    ),
    (
        "pontoon",
        &["crates/games/blackjack/", "ui/src/games/blackjack/"],
    ),
    ("poker", &["crates/games/poker/", "ui/src/games/poker/"]),
];

/// The registries, which may name every game: the registry of games below the machinery (with
/// what each game is dealt by in the simulator, `sim.rs`), the boundary's per-game modules, the
/// UI's registry and its generated bindings.
const REGISTRIES: &[&str] = &[
    "crates/pitwatch-games/",
    "crates/pitwatch-api/src/games/",
    "ui/src/games/index.ts",
    // Generated from the boundary's registry (its unions tagged by the game), never written by
    // hand: the TypeScript face of `pitwatch-api/src/games/`.
    "ui/src/lib/bindings.ts",
];

/// Production files outside a game's homes and the registries that name the game today (see
/// [`names_game`]): none. Tests, benchmarks, examples and fuzz targets set games up and are not
/// counted.
const NAME_A_GAME: &[&str] = &[];

/// Whether `line` (not a comment) names `game`: a type or variant whose name starts with the
/// game's capitalised name (`Poker`, `PokerView`, `Game::Baccarat`), the game's crate
/// (`pitwatch_poker`), or the game's name as a whole string (`"poker"`, as in
/// `game === "poker"`).
fn names_game(line: &str, game: &str) -> bool {
    let mut capital = game.to_owned();
    capital[..1].make_ascii_uppercase();
    let starts_identifier = |i: usize| {
        i == 0 || {
            let before = line.as_bytes()[i - 1];
            !(before.is_ascii_alphanumeric() || before == b'_')
        }
    };
    line.match_indices(&capital)
        .any(|(i, _)| starts_identifier(i))
        || line.contains(&format!("pitwatch_{game}"))
        || line.contains(&format!("\"{game}\""))
}

/// A line that is only a comment (Rust, TypeScript or HTML).
fn comment(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("//") || t.starts_with("/*") || t.starts_with('*') || t.starts_with("<!--")
}

/// A source file without its in-file test module (a `#[cfg(test)]` line followed by `mod`): the
/// tests set games up like the test files do.
fn without_tests(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let end = (0..lines.len())
        .find(|&i| {
            lines[i].trim() == "#[cfg(test)]"
                && lines[i + 1..]
                    .iter()
                    .find(|l| !l.trim().is_empty())
                    .is_some_and(|l| l.trim_start().starts_with("mod "))
        })
        .unwrap_or(lines.len());
    lines[..end].join("\n")
}

/// A file that sets games up rather than deciding by them: tests, benchmarks, examples, fuzz
/// targets.
fn not_production(path: &str) -> bool {
    path.starts_with("fuzz/")
        || path.starts_with("bench/")
        || path.starts_with("tests/")
        || path.contains("/tests/")
        || path.contains("/benches/")
        || path.contains("/examples/")
        || path.ends_with(".test.ts")
        || path.ends_with("/tests.rs")
        || path.ends_with("/testkit.rs")
}

#[test]
fn only_a_games_homes_and_the_registries_name_the_game() {
    let mut all = rust_files();
    all.extend(files("ui/src", &[".ts", ".svelte"]));
    let mut found = BTreeSet::new();
    for path in all {
        if not_production(&path) || REGISTRIES.iter().any(|r| path.starts_with(r)) {
            continue;
        }
        let text = without_tests(&read(&path));
        let named: Vec<&str> = GAMES
            .iter()
            .filter(|(_, homes)| !homes.iter().any(|h| path.starts_with(h)))
            .map(|(game, _)| *game)
            .filter(|game| text.lines().any(|l| !comment(l) && names_game(l, game)))
            .collect();
        if !named.is_empty() {
            found.insert(format!("{path}: {}", named.join(", ")));
        }
    }
    keep_to(
        "files outside a game's homes that name it",
        NAME_A_GAME,
        &found,
    );
}

#[test]
fn the_game_check_sees_what_it_looks_for() {
    assert!(names_game("TableEngine::Poker(engine) => {", "poker"));
    assert!(names_game("use pitwatch_blackjack::Book;", "blackjack"));
    assert!(names_game("if (game === \"pontoon\") {", "pontoon"));
    assert!(names_game("let v: BaccaratView = view;", "baccarat"));
    assert!(!names_game("let is_poker_hand = true;", "poker"));
    assert!(!names_game("ChemmyPoker", "poker"));
    assert!(comment("    /// a Poker table"));
    let source = "fn a() {}\n#[cfg(test)]\nmod tests {\n    const G: &str = \"poker\";\n}\n";
    assert_eq!(without_tests(source), "fn a() {}");
    let gated = "#[cfg(test)]\nuse std::fmt;\nconst G: &str = \"poker\";\n";
    assert_eq!(without_tests(gated), gated.trim_end());
    assert!(not_production("crates/pitwatch-recording/tests/poker.rs"));
    assert!(!not_production("crates/pitwatch-recording/src/pit.rs"));
}

// ---- the shoe rules written once ------------------------------------------------------------

/// The events of a shoe rather than of a round: what the shared tracker
/// (`crates/pitwatch-rules/src/table/`) follows for every game.
const SHOE_EVENTS: &[&str] = &[
    "Shuffled",
    "Cut",
    "CuttingCardPlaced",
    "CuttingCardDrawn",
    "CardsReplaced",
    "BurnCounted",
    "CardExposed",
    "DeviceError",
    "DeviceErrorCleared",
    "DeckChecked",
    "ShuffleStarted",
    "ShufflerCounters",
    "ShuffleStep",
];

/// Whether `line` handles one of the shoe's events (a match arm or a `let` pattern on it), rather
/// than only naming it (a dealer emitting it, a list of the events that end a round).
fn handles_shoe_event(line: &str) -> bool {
    SHOE_EVENTS.iter().any(|event| {
        let name = format!("EventKind::{event}");
        line.match_indices(&name).any(|(at, _)| {
            let after = &line[at + name.len()..];
            let whole = !after.starts_with(|c: char| c.is_alphanumeric() || c == '_');
            let before = &line[..at];
            whole
                && (after.contains("=>")
                    || before.trim_end().ends_with("let")
                    || before.contains("if let")
                    || before.contains("while let"))
        })
    })
}

/// Files of a game's crate that are not its rules: the reference dealers, which deal shoes
/// (emit their events) for tests and the simulator.
fn dealer_file(path: &str) -> bool {
    path.ends_with("/dealer.rs") || path.contains("/dealer/")
}

#[test]
fn the_shoe_rules_are_written_once_in_the_shared_tracker() {
    let mut found = BTreeSet::new();
    for path in rust_files() {
        if !path.starts_with("crates/games/") || not_production(&path) || dealer_file(&path) {
            continue;
        }
        let text = without_tests(&read(&path));
        for (n, line) in text.lines().enumerate() {
            if !comment(line) && handles_shoe_event(line) {
                found.insert(format!("{path}:{}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "a game follows a shoe's events itself; the shared tracker (pitwatch-rules, table/) does, \
         and a game is told through RoundGame's hooks:\n  {}",
        found.into_iter().collect::<Vec<_>>().join("\n  ")
    );
}

#[test]
fn the_shoe_rule_check_sees_what_it_looks_for() {
    assert!(handles_shoe_event(
        "            EventKind::Cut { position } => {"
    ));
    assert!(handles_shoe_event(
        "        EventKind::CardsReplaced => self.replaced(seq),"
    ));
    assert!(handles_shoe_event(
        "    if let EventKind::Shuffled { decks, .. } = &event.kind {"
    ));
    assert!(handles_shoe_event(
        "    let EventKind::BurnCounted { count } = kind else {"
    ));
    assert!(!handles_shoe_event(
        "        self.emit(EventKind::Cut { position });"
    ));
    assert!(!handles_shoe_event(
        "            | EventKind::CuttingCardPlaced { .. }"
    ));
    assert!(!handles_shoe_event(
        "        EventKind::CardDrawn { card, .. } => {"
    ));
    assert!(!handles_shoe_event(
        "        EventKind::DeviceErrorClearedLater => {"
    ));
    assert!(dealer_file("crates/games/blackjack/src/dealer.rs"));
    assert!(!dealer_file("crates/games/blackjack/src/round.rs"));
}

// ---- no clock in logic ----------------------------------------------------------------------

/// Where no clock may be read: the pure core (the vocabulary, the rules, the games, the codecs,
/// the shuffle analysis, the registry), the store and the recorder's pipeline. Times come in as
/// data; the transport's reader, the monitor's timers, the CLI and the desktop read the clock.
const CLOCKLESS: &[&str] = &[
    "crates/pitwatch-model/",
    "crates/pitwatch-rules/",
    "crates/games/",
    "crates/pitwatch-dealer/",
    "crates/pitwatch-shuffle/",
    "crates/pitwatch-games/",
    "crates/pitwatch-store/",
    "crates/pitwatch-recording/src/recorder",
    "crates/pitwatch-recording/src/replay",
    "crates/pitwatch-recording/src/liveness",
    "drivers/pitwatch-codec/",
    "drivers/pitwatch-angel-eye/",
    "drivers/pitwatch-barcode/",
    "drivers/pitwatch-proto/",
    "drivers/pitwatch-protocols/",
];

/// Whether `line` reads a clock (the wall clock or a monotonic one).
fn reads_clock(line: &str) -> bool {
    [
        "Utc::now(",
        "Local::now(",
        "SystemTime::now(",
        "Instant::now(",
        "Timestamp::now(",
    ]
    .iter()
    .any(|call| line.contains(call))
}

#[test]
fn the_core_reads_no_clock() {
    let mut found = BTreeSet::new();
    for path in rust_files() {
        if not_production(&path) || !CLOCKLESS.iter().any(|c| path.starts_with(c)) {
            continue;
        }
        let text = without_tests(&read(&path));
        for (n, line) in text.lines().enumerate() {
            if !comment(line) && reads_clock(line) {
                found.insert(format!("{path}:{}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "the core reads a clock; take the time as an argument or a field of the event:\n  {}",
        found.into_iter().collect::<Vec<_>>().join("\n  ")
    );
}

#[test]
fn the_clock_check_sees_what_it_looks_for() {
    assert!(reads_clock("    let now = Utc::now();"));
    assert!(reads_clock("let started = std::time::Instant::now();"));
    assert!(reads_clock("SystemTime::now().duration_since(UNIX_EPOCH)"));
    assert!(!reads_clock(
        "fn handle_event(&mut self, event: &TableEvent, now: Timestamp)"
    ));
    // Every place listed still holds code, so a move cannot quietly take it out of the check.
    let all = rust_files();
    for place in CLOCKLESS {
        assert!(
            all.iter().any(|f| f.starts_with(place)),
            "{place} holds no Rust file"
        );
    }
}

// ---- Pitwatch never writes to a device ------------------------------------------------------

/// The only files that may write to a device: the transport (which owns the port and carries a
/// write out) and the simulator (which is a device).
const DEVICE_WRITERS: &[&str] = &["drivers/pitwatch-transport/", "drivers/pitwatch-sim/"];

/// Whether `line` calls `DeviceHandle::send(bytes, timeout)`: a `.send(` with two arguments. A
/// channel's `send` takes one, so a top-level comma inside the call's parentheses tells them apart.
fn writes_to_a_device(line: &str) -> bool {
    line.match_indices(".send(").any(|(at, call)| {
        let mut depth = 0usize;
        for c in line[at + call.len()..].chars() {
            match c {
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' if depth == 0 => return false,
                ')' | ']' | '}' => depth -= 1,
                ',' if depth == 0 => return true,
                _ => {}
            }
        }
        false
    })
}

#[test]
fn nothing_writes_to_a_device() {
    let mut found = BTreeSet::new();
    for path in rust_files() {
        if not_production(&path) || DEVICE_WRITERS.iter().any(|d| path.starts_with(d)) {
            continue;
        }
        let text = without_tests(&read(&path));
        for (n, line) in text.lines().enumerate() {
            if !comment(line) && writes_to_a_device(line) {
                found.insert(format!("{path}:{}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "Pitwatch is read-only towards devices; a write to one is:\n  {}",
        found.into_iter().collect::<Vec<_>>().join("\n  ")
    );
}

#[test]
fn the_device_write_check_sees_what_it_looks_for() {
    assert!(writes_to_a_device(
        "        handle.send(&command, Duration::from_secs(1))?;"
    ));
    assert!(writes_to_a_device("reader.send(&[0x02, 0x10], timeout)"));
    assert!(!writes_to_a_device(
        "        tx.send(TransportEvent::Chunk { at, bytes })"
    ));
    assert!(!writes_to_a_device("let _ = done.send(result);"));
    assert!(!writes_to_a_device("sink.send(f(a, b));"));
}
