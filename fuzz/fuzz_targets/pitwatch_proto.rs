//! Fuzzes the pitwatch decoder: arbitrary bytes in arbitrary chunks never panic, every byte is
//! accounted for once, and the chunking does not change what the bytes mean (see codec.rs).
#![no_main]

use libfuzzer_sys::fuzz_target;

mod codec;

fuzz_target!(|data: &[u8]| {
    codec::check("pitwatch", data);
});
