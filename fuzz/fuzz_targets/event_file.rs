//! Fuzzes the table event file reader (JSON Lines, docs/events.md): any bytes give events or an
//! error naming the line, never a panic; an event read back from what was written is the same.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(events) = pitwatch_model::read_events(data) {
        for event in events {
            let line = event.to_json_line();
            let again =
                pitwatch_model::read_events(line.as_bytes()).expect("a written event reads");
            assert_eq!(again, vec![event], "an event survives writing and reading");
        }
    }
});
