//! Fuzzes the Pitwatch protocol's screen (what a device sends that must never be kept): arbitrary
//! bytes in arbitrary chunks never panic, the chunking does not change the bytes kept, and no kept
//! line but the screen's own `WITHHELD` markers contains `ORDER` (nor, on a shuffler's stream, a
//! `CARD` type or three card-like tokens in a line).
#![no_main]

use libfuzzer_sys::fuzz_target;
use pitwatch_codec::Screen;
use pitwatch_proto::{ProtoConfig, ProtoScreen, Role};

fn screen(config: ProtoConfig, bytes: &[u8], size: usize) -> Vec<u8> {
    let mut screen = ProtoScreen::new(config);
    let mut out = Vec::new();
    for chunk in bytes.chunks(size.max(1)) {
        screen.push(chunk, &mut out);
    }
    screen.finish(&mut out);
    out
}

fuzz_target!(|data: &[u8]| {
    let Some((&first, bytes)) = data.split_first() else {
        return;
    };
    let config = ProtoConfig {
        role: (first & 0x80 != 0).then_some(Role::Shuffler),
        ..ProtoConfig::default()
    };
    let whole = screen(config, bytes, bytes.len());
    let chunked = screen(config, bytes, usize::from(first % 17) + 1);
    assert_eq!(whole, chunked, "the chunking changed what was kept");
    for line in whole.split(|&b| b == b'\n') {
        let marker = line.windows(9).any(|w| w == b" WITHHELD");
        if !marker {
            assert!(
                !line.windows(5).any(|w| w == b"ORDER"),
                "a line with ORDER was kept: {:?}",
                String::from_utf8_lossy(line)
            );
        }
    }
});
