//! The reload diff's tests: added, removed, changed (and in what), disabled, untouched, and
//! the whole pit's settings left for the next start.

use super::*;

const RUNNING: &str = r#"[site]
name = "Reload"

[[table]]
name = "BAC-1"
game = "baccarat"
rules = "nz-baccarat"
device = { protocol = "angel-eye" }
link = { kind = "tcp", address = "127.0.0.1:4001" }

[[table]]
name = "BAC-2"
game = "baccarat"
rules = "nz-baccarat"
device = { protocol = "angel-eye" }
link = { kind = "tcp", address = "127.0.0.1:4002" }

[[table]]
name = "BAC-3"
game = "baccarat"
rules = "nz-baccarat"
device = { protocol = "angel-eye" }
link = { kind = "tcp", address = "127.0.0.1:4003" }

[[table]]
name = "BAC-4"
game = "baccarat"
rules = "nz-baccarat"
device = { protocol = "angel-eye" }
link = { kind = "tcp", address = "127.0.0.1:4004" }
"#;

fn load(text: &str) -> PitConfig {
    PitConfig::load(text).unwrap()
}

#[test]
fn the_same_file_changes_nothing() {
    let running = load(RUNNING);
    let d = diff(&running, &load(RUNNING));
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(d.unchanged, ["BAC-1", "BAC-2", "BAC-3", "BAC-4"]);
    assert!(d.at_restart.is_empty());
    assert_eq!(d.to_stop().count() + d.to_start().count(), 0);
}

#[test]
fn each_table_is_compared_by_its_name_and_only_the_differences_apply() {
    let running = load(RUNNING);
    let next = RUNNING
        // BAC-2: another device server port (its devices change).
        .replace("127.0.0.1:4002", "127.0.0.1:4012")
        // BAC-3: removed.
        .replace(
            "[[table]]\nname = \"BAC-3\"\ngame = \"baccarat\"\nrules = \"nz-baccarat\"\ndevice = { protocol = \"angel-eye\" }\nlink = { kind = \"tcp\", address = \"127.0.0.1:4003\" }\n\n",
            "",
        )
        // BAC-4: a wrong section (disabled).
        .replace(
            "name = \"BAC-4\"\ngame = \"baccarat\"\nrules",
            "name = \"BAC-4\"\ngame = \"baccarat\"\nrulez",
        )
        + "\n[[table]]\nname = \"BAC-5\"\ngame = \"baccarat\"\nrules = \"nz-baccarat\"\n\
           device = { protocol = \"angel-eye\" }\nliveness = { offline_s = 30 }\n\
           link = { kind = \"tcp\", address = \"127.0.0.1:4005\" }\n";
    let next = load(&next);
    let d = diff(&running, &next);
    assert_eq!(d.added, ["BAC-5"]);
    assert_eq!(d.removed, ["BAC-3"]);
    assert_eq!(d.disabled, ["BAC-4"]);
    assert_eq!(
        d.changed,
        [ChangedTable {
            name: "BAC-2".into(),
            what: vec!["devices"]
        }]
    );
    assert_eq!(d.unchanged, ["BAC-1"]);
    assert_eq!(d.to_stop().collect::<Vec<_>>(), ["BAC-3", "BAC-4", "BAC-2"]);
    assert_eq!(d.to_start().collect::<Vec<_>>(), ["BAC-2", "BAC-5"]);
    assert!(!d.is_empty());
    assert_eq!(
        d.fields(),
        [
            ("added", "BAC-5".to_owned()),
            ("removed", "BAC-3".to_owned()),
            ("changed", "BAC-2 (devices)".to_owned()),
            ("disabled", "BAC-4".to_owned()),
            ("unchanged", "BAC-1".to_owned()),
            ("at_restart", "-".to_owned()),
        ]
    );
}

#[test]
fn a_changed_rule_book_or_liveness_names_what_changed() {
    let running = load(RUNNING);
    let next = RUNNING.replace(
        "name = \"BAC-1\"\ngame = \"baccarat\"\nrules = \"nz-baccarat\"\n",
        "name = \"BAC-1\"\ngame = \"baccarat\"\nrules = \"nz-baccarat\"\ndecks = 6\n\
         liveness = { silent_s = 0 }\n",
    );
    let d = diff(&running, &load(&next));
    assert_eq!(d.changed.len(), 1, "{d:?}");
    assert_eq!(d.changed[0].name, "BAC-1");
    assert_eq!(d.changed[0].what, ["decks", "liveness"]);
    assert_eq!(d.unchanged, ["BAC-2", "BAC-3", "BAC-4"]);
}

#[test]
fn a_table_disabled_before_and_right_now_is_added_and_the_pit_settings_wait_for_a_restart() {
    let broken = RUNNING.replace(
        "name = \"BAC-2\"\ngame = \"baccarat\"\nrules",
        "name = \"BAC-2\"\ngame = \"baccarat\"\nrulez",
    );
    let running = load(&broken);
    assert_eq!(running.disabled.len(), 1);
    let next = RUNNING.replace("name = \"Reload\"", "name = \"Reloaded\"");
    let d = diff(&running, &load(&next));
    assert_eq!(d.added, ["BAC-2"]);
    assert!(d.removed.is_empty() && d.disabled.is_empty() && d.changed.is_empty());
    assert_eq!(d.at_restart, ["site"]);
    // Still wrong: nothing to stop or start for it.
    let d = diff(&running, &load(&broken));
    assert!(d.is_empty(), "{d:?}");
}
