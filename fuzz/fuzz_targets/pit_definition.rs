//! Fuzzes the pit definition reader: any text gives a pit or every problem listed, never a
//! panic (names with control characters, odd links and rule-book paths included).
#![no_main]

use libfuzzer_sys::fuzz_target;
use pitwatch_recording::pit::PitConfig;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(pit) = PitConfig::from_toml(&text) {
        for table in &pit.tables {
            // What a valid pit promises: names usable everywhere.
            assert!(
                !table.name.chars().any(char::is_control),
                "{:?}",
                table.name
            );
            let _ = table.describe_link();
        }
    }
});
