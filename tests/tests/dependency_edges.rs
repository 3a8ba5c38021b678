//! Guards the architecture's dependency edges with `cargo metadata`: the pure core (vocabulary,
//! rules engine, codecs) never reaches SQL, ports, async runtimes or Tauri, and each outside
//! dependency stays in the one crate that owns it. A new edge that breaks this fails here, naming
//! the path through which the forbidden crate is reached.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::process::Command;

use serde_json::Value;

/// The workspace's normal (non-dev, non-build) dependency graph, by package name.
struct Graph {
    edges: BTreeMap<String, BTreeSet<String>>,
    workspace: BTreeSet<String>,
}

impl Graph {
    fn load() -> Graph {
        Graph::load_with(&[])
    }

    /// The graph with `features` given to `cargo metadata` (`--no-default-features`).
    fn load_with(features: &[&str]) -> Graph {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let output = Command::new(cargo)
            .args(["metadata", "--format-version", "1"])
            .args(features)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .expect("cargo metadata runs");
        assert!(
            output.status.success(),
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let metadata: Value = serde_json::from_slice(&output.stdout).expect("metadata is JSON");
        let name_of: BTreeMap<&str, &str> = metadata["packages"]
            .as_array()
            .expect("packages")
            .iter()
            .map(|p| (p["id"].as_str().unwrap(), p["name"].as_str().unwrap()))
            .collect();
        let workspace = metadata["workspace_members"]
            .as_array()
            .expect("workspace_members")
            .iter()
            .map(|id| name_of[id.as_str().unwrap()].to_owned())
            .collect();
        let mut edges = BTreeMap::<String, BTreeSet<String>>::new();
        for node in metadata["resolve"]["nodes"].as_array().expect("resolve") {
            let from = name_of[node["id"].as_str().unwrap()].to_owned();
            let targets = edges.entry(from).or_default();
            for dep in node["deps"].as_array().unwrap() {
                let normal = dep["dep_kinds"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|k| k["kind"].is_null());
                if normal {
                    targets.insert(name_of[dep["pkg"].as_str().unwrap()].to_owned());
                }
            }
        }
        Graph { edges, workspace }
    }

    /// The chain of packages through which `from` reaches `to`, if it does.
    fn path(&self, from: &str, to: &str) -> Option<Vec<String>> {
        let mut previous = BTreeMap::<&str, &str>::new();
        let mut queue = VecDeque::from([from]);
        let mut seen = BTreeSet::from([from]);
        while let Some(at) = queue.pop_front() {
            if at == to {
                let mut chain = vec![to.to_owned()];
                let mut step = to;
                while let Some(&back) = previous.get(step) {
                    chain.push(back.to_owned());
                    step = back;
                }
                chain.reverse();
                return Some(chain);
            }
            for next in self.edges.get(at).into_iter().flatten() {
                if seen.insert(next) {
                    previous.insert(next, at);
                    queue.push_back(next);
                }
            }
        }
        None
    }

    fn direct(&self, from: &str, to: &str) -> bool {
        self.edges.get(from).is_some_and(|d| d.contains(to))
    }
}

/// Crates that must stay pure: no I/O-owning dependency, however indirect.
const PURE: &[&str] = &[
    "pitwatch-model",
    "pitwatch-rules",
    // Baccarat's rule books and engine (crates/games/baccarat).
    "pitwatch-baccarat",
    "pitwatch-blackjack",
    "pitwatch-codec",
    "pitwatch-angel-eye",
    "pitwatch-barcode",
    "pitwatch-proto",
    "pitwatch-protocols",
    "pitwatch-report",
    "pitwatch-shuffle",
    // Poker's rule book and engine (crates/games/poker).
    "pitwatch-poker",
    // The registry of games (its loader reads a rule-book file with std, nothing more).
    "pitwatch-games",
];

/// Outside dependencies that only certain crates may reach.
const OWNED: &[(&str, &[&str])] = &[
    ("rusqlite", &["pitwatch-store"]),
    // Signing the record is the store's: nothing else holds or uses the key's primitives.
    ("ed25519-dalek", &["pitwatch-store"]),
    ("serialport", &["pitwatch-transport"]),
    // The central record (issue 16): only the replication crate talks to PostgreSQL.
    ("tokio-postgres", &["pitwatch-sync"]),
    // Its link (issue 25): TLS to the central server is the replication crate's too.
    ("rustls", &["pitwatch-sync"]),
    ("tokio-rustls", &["pitwatch-sync"]),
    ("tauri", &["pitwatch-desktop"]),
    ("webkit2gtk", &["pitwatch-desktop"]),
];

const FORBIDDEN_IN_PURE: &[&str] = &["rusqlite", "serialport", "tokio", "tauri", "rand"];

#[test]
fn pure_crates_reach_no_io_runtime_or_randomness() {
    let graph = Graph::load();
    let present: Vec<&str> = PURE
        .iter()
        .copied()
        .filter(|p| graph.workspace.contains(*p))
        .collect();
    assert!(
        present.contains(&"pitwatch-model"),
        "the vocabulary crate is part of the workspace"
    );
    let mut violations = Vec::new();
    for pure in present {
        for forbidden in FORBIDDEN_IN_PURE {
            if let Some(path) = graph.path(pure, forbidden) {
                violations.push(path.join(" -> "));
            }
        }
    }
    assert!(
        violations.is_empty(),
        "pure crates reach forbidden dependencies:\n{}",
        violations.join("\n")
    );
}

#[test]
fn outside_dependencies_stay_with_their_owner() {
    let graph = Graph::load();
    let mut violations = Vec::new();
    for (dependency, owners) in OWNED {
        for member in &graph.workspace {
            if owners.contains(&member.as_str()) {
                continue;
            }
            if graph.direct(member, dependency) {
                violations.push(format!("{member} depends on {dependency} directly"));
            }
        }
    }
    // Tauri is special: nothing but the shell may even reach it indirectly.
    for member in &graph.workspace {
        if member != "pitwatch-desktop" {
            if let Some(path) = graph.path(member, "tauri") {
                violations.push(path.join(" -> "));
            }
        }
    }
    assert!(violations.is_empty(), "{}", violations.join("\n"));
}

/// What a production build links: the front ends and everything under them, built without their
/// default features (the demo).
const PRODUCTION: &[&str] = &[
    "pitwatch-desktop",
    "pitwatch-cli",
    "pitwatch-app",
    "pitwatch-api",
    "pitwatch-recording",
    "pitwatch-games",
];

#[test]
fn the_simulator_is_only_in_the_demo_build() {
    let demo = Graph::load();
    assert!(
        demo.path("pitwatch-desktop", "pitwatch-sim").is_some(),
        "the default build (make run) has the demo pit's simulator"
    );
    let production = Graph::load_with(&["--no-default-features"]);
    let reached: Vec<String> = PRODUCTION
        .iter()
        .filter_map(|from| production.path(from, "pitwatch-sim"))
        .map(|path| path.join(" -> "))
        .collect();
    assert!(
        reached.is_empty(),
        "a production build links the simulator:\n{}",
        reached.join("\n")
    );
}

#[test]
fn the_guard_itself_sees_real_edges() {
    // If the graph were empty every check above would pass vacuously.
    let graph = Graph::load();
    assert!(graph.direct("pitwatch-cli", "pitwatch-model"));
    assert!(graph.path("pitwatch-desktop", "tauri").is_some());
}
