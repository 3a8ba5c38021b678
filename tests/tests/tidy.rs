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

// ---- no circle among a crate's modules ------------------------------------------------------

/// Crates whose modules use each other in a circle today, each as `crate dir: the modules of one
/// circle` (the list may only shrink). The application layer is not among them, nor may it
/// join: its desk's state is at the bottom (`state/`), the live pit (`live`) above it, the use
/// cases (`impl Desk` blocks) above both.
const MODULE_CIRCLES: &[&str] = &[
    "crates/pitwatch-api: dto, games",
    "crates/pitwatch-cli: replay, replay_record",
    "crates/pitwatch-rules: book, seam, table",
    "crates/pitwatch-store: batch, gate, open",
];

/// A Rust file's module path inside its crate (`src/a/b.rs` and `src/a/b/mod.rs` are `[a, b]`,
/// `src/lib.rs` and `src/main.rs` the root, `[]`), or `None` outside a crate's `src/` or in a
/// binary of `src/bin/`.
fn module_path(path: &str) -> Option<(String, Vec<String>)> {
    let (krate, inside) = path.split_once("/src/")?;
    if inside.starts_with("bin/") {
        return None;
    }
    let mut segments: Vec<String> = inside
        .trim_end_matches(".rs")
        .split('/')
        .map(str::to_owned)
        .collect();
    if segments.len() == 1 && (segments[0] == "lib" || segments[0] == "main") {
        segments.clear();
    }
    if segments.last().is_some_and(|s| s == "mod") {
        segments.pop();
    }
    Some((krate.to_owned(), segments))
}

/// The crate-local paths `text` (a file of the module at `at`, comments and tests removed) uses:
/// each `crate::…` and `super::…` path, resolved from the crate's root, one per item of a
/// `{…}` group (only the group's first segment is needed).
fn used_paths(text: &str, at: &[String]) -> Vec<Vec<String>> {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < text.len() {
        let rest = &text[i..];
        let starts = i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
        let (mut base, mut after) = if starts && rest.starts_with("crate::") {
            (Vec::new(), i + "crate::".len())
        } else if starts && rest.starts_with("super::") {
            let mut base = at.to_vec();
            let mut j = i;
            while text[j..].starts_with("super::") {
                base.pop();
                j += "super::".len();
            }
            (base, j)
        } else {
            i += rest.chars().next().map_or(1, char::len_utf8);
            continue;
        };
        if text[after..].starts_with('{') {
            // `{a, b::c, self}`: the first segment of each item at the group's own depth.
            let mut depth = 0usize;
            let mut item_start = true;
            for (k, c) in text[after..].char_indices() {
                match c {
                    '{' => {
                        depth += 1;
                        item_start = depth == 1;
                    }
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            after += k;
                            break;
                        }
                    }
                    ',' if depth == 1 => item_start = true,
                    c if item_start && depth == 1 && !c.is_whitespace() => {
                        let name = ident(&text[after + k..]);
                        let mut full = base.clone();
                        if name != "self" {
                            full.push(name);
                        }
                        out.push(full);
                        item_start = false;
                    }
                    _ => {}
                }
            }
        } else {
            base.push(ident(&text[after..]));
            out.push(base);
        }
        i = after.max(i + 1);
    }
    out
}

/// Every circle among `edges`' nodes: each strongly connected component of more than one node,
/// its nodes sorted (Tarjan's algorithm; an edge from a node to itself is no circle).
fn circles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct Walk<'a> {
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(walk: &mut Walk<'a>, node: &'a str) {
        let n = walk.index.len();
        walk.index.insert(node, n);
        walk.low.insert(node, n);
        walk.stack.push(node);
        for next in walk.edges.get(node).into_iter().flatten() {
            let next = next.as_str();
            if !walk.index.contains_key(next) {
                visit(walk, next);
                let low = walk.low[node].min(walk.low[next]);
                walk.low.insert(node, low);
            } else if walk.stack.contains(&next) {
                let low = walk.low[node].min(walk.index[next]);
                walk.low.insert(node, low);
            }
        }
        if walk.low[node] == walk.index[node] {
            let at = walk
                .stack
                .iter()
                .rposition(|n| *n == node)
                .expect("on the stack");
            let mut component: Vec<String> = walk.stack.drain(at..).map(str::to_owned).collect();
            if component.len() > 1 {
                component.sort();
                walk.out.push(component);
            }
        }
    }
    let mut walk = Walk {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        out: Vec::new(),
    };
    for node in edges.keys() {
        if !walk.index.contains_key(node.as_str()) {
            visit(&mut walk, node);
        }
    }
    walk.out.sort();
    walk.out
}

/// Each crate's graph of top-level modules (a module and the modules inside it are one node):
/// an edge where a production file of one uses a path into another. A path to an item of the
/// crate's root (a re-export) is no edge.
fn module_graphs() -> BTreeMap<String, BTreeMap<String, BTreeSet<String>>> {
    let mut files_of: BTreeMap<String, Vec<(String, Vec<String>)>> = BTreeMap::new();
    for path in rust_files() {
        if not_production(&path) {
            continue;
        }
        if let Some((krate, at)) = module_path(&path) {
            files_of.entry(krate).or_default().push((path, at));
        }
    }
    let mut graphs = BTreeMap::new();
    for (krate, files) in files_of {
        let modules: BTreeSet<&str> = files
            .iter()
            .filter_map(|(_, at)| at.first().map(String::as_str))
            .collect();
        let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (path, at) in &files {
            let Some(from) = at.first() else { continue };
            let code: String = without_tests(&read(path))
                .lines()
                .map(|l| l.split("//").next().unwrap_or_default())
                .collect::<Vec<_>>()
                .join("\n");
            let to = edges.entry(from.clone()).or_default();
            for used in used_paths(&code, at) {
                if let Some(first) = used.first().filter(|m| modules.contains(m.as_str())) {
                    if first != from {
                        to.insert(first.clone());
                    }
                }
            }
        }
        graphs.insert(krate, edges);
    }
    graphs
}

#[test]
fn no_crate_s_modules_use_each_other_in_a_circle() {
    let graphs = module_graphs();
    assert!(
        graphs
            .get("crates/pitwatch-app")
            .is_some_and(|g| g["live"].contains("state") && g["record"].contains("live")),
        "the walk sees the application layer's modules and their uses"
    );
    let found: BTreeSet<String> = graphs
        .iter()
        .flat_map(|(krate, edges)| {
            circles(edges)
                .into_iter()
                .map(move |c| format!("{krate}: {}", c.join(", ")))
        })
        .collect();
    keep_to(
        "modules that use each other in a circle",
        MODULE_CIRCLES,
        &found,
    );
}

#[test]
fn the_module_circle_check_sees_what_it_looks_for() {
    let at = |s: &str| s.split("::").map(str::to_owned).collect::<Vec<_>>();
    assert_eq!(
        module_path("crates/pitwatch-app/src/pit_model/reload.rs"),
        Some(("crates/pitwatch-app".to_owned(), at("pit_model::reload")))
    );
    assert_eq!(
        module_path("crates/x/src/state/mod.rs"),
        Some(("crates/x".to_owned(), at("state")))
    );
    assert_eq!(
        module_path("crates/x/src/lib.rs").map(|m| m.1),
        Some(vec![])
    );
    assert_eq!(module_path("crates/x/src/bin/tool.rs"), None);
    let uses = used_paths(
        "use crate::live::{lock, Desk};\nuse crate::{access, state::pit::{Devices}, self};\n\
         use super::PitModel;\nlet x = super::super::record::Record::new();\n\
         let y = my_crate::z; let w = pitwatch_api::dto::Session;",
        &at("pit_model::reload"),
    );
    assert_eq!(
        uses,
        vec![
            at("live"),
            at("access"),
            at("state"),
            vec![],
            at("pit_model::PitModel"),
            at("record"),
        ]
    );
    let graph = |pairs: &[(&str, &str)]| {
        let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (from, to) in pairs {
            edges
                .entry((*from).to_owned())
                .or_default()
                .insert((*to).to_owned());
            edges.entry((*to).to_owned()).or_default();
        }
        edges
    };
    // live → record → live, with access below both: one circle of two.
    let circle = graph(&[
        ("live", "record"),
        ("record", "live"),
        ("record", "access"),
        ("live", "access"),
    ]);
    assert_eq!(
        circles(&circle),
        vec![at("live")
            .into_iter()
            .chain(at("record"))
            .collect::<Vec<_>>()]
    );
    // A longer way round is found too, and an order from top to bottom is none.
    let long = graph(&[("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")]);
    assert_eq!(
        circles(&long),
        vec![vec!["a".to_owned(), "b".into(), "c".into()]]
    );
    let ordered = graph(&[("record", "live"), ("live", "state"), ("record", "state")]);
    assert!(circles(&ordered).is_empty());
}
