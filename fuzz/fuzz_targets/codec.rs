//! Shared by the codec targets: the input's first byte chooses how the rest is cut into chunks
//! (a transport hands bytes over in any chunking), then every chunk goes through the decoder and
//! the stream is finished. The decoder must never panic, must account for every byte exactly once
//! (accepted frames and rejections together) except bare line ends of a line protocol (an empty
//! line carries nothing, by the barcode and Pitwatch codecs' own rule), and must give the same
//! outputs whatever the chunking.

use pitwatch_model::Timestamp;
use pitwatch_protocols::{DecodeOutput, ProtocolConfig};

/// Decodes `bytes` cut into chunks of `size` (0: all at once), a millisecond apart.
fn decode(protocol: &ProtocolConfig, bytes: &[u8], size: usize) -> Vec<DecodeOutput> {
    let mut decoder = protocol.decoder(1);
    let mut out = Vec::new();
    let mut ms = 1_700_000_000_000i64;
    let chunks: Vec<&[u8]> = if size == 0 || bytes.is_empty() {
        vec![bytes]
    } else {
        bytes.chunks(size).collect()
    };
    for chunk in chunks {
        let at = Timestamp::from_unix_millis(ms).expect("in range");
        decoder.push(chunk, at, &mut out);
        ms += 1;
    }
    decoder.finish(Timestamp::from_unix_millis(ms).expect("in range"), &mut out);
    out
}

/// The fuzz body for one protocol.
pub fn check(protocol_name: &str, data: &[u8]) {
    let Some((&cut, bytes)) = data.split_first() else {
        return;
    };
    let protocol = ProtocolConfig::by_name(protocol_name).expect("a known protocol");
    let chunked = decode(&protocol, bytes, usize::from(cut % 17) + 1);
    let accounted: usize = chunked.iter().map(|o| o.bytes().len()).sum();
    // Bytes of blank lines (nothing but the line end, and for the Pitwatch protocol a `\r`
    // before it), which those codecs skip without a word.
    let (ends, blank): (&[u8], &[&[u8]]) = match protocol_name {
        "barcode" => (b"\r\n", &[b""]),
        "pitwatch" => (b"\n", &[b"", b"\r"]),
        _ => (b"", &[]),
    };
    let mut bare = 0;
    let mut line_start = 0;
    for (i, b) in bytes.iter().enumerate() {
        if ends.contains(b) {
            if blank.contains(&&bytes[line_start..i]) {
                bare += i + 1 - line_start;
            }
            line_start = i + 1;
        }
    }
    assert!(
        accounted <= bytes.len() && accounted + bare >= bytes.len(),
        "every byte accounted for exactly once ({accounted} of {}, {bare} in blank lines)",
        bytes.len()
    );
    // Times differ with the chunking, so compare what the bytes meant, not when.
    let whole = decode(&protocol, bytes, 0);
    let shape = |outputs: &[DecodeOutput]| -> Vec<(bool, Vec<u8>)> {
        outputs
            .iter()
            .map(|o| (o.rejection().is_none(), o.bytes().to_vec()))
            .collect()
    };
    if protocol_name != "barcode" {
        // (A barcode scanner's repeated code depends on the time between reads, so its
        // outputs may differ with the chunking by design.)
        assert_eq!(
            shape(&chunked),
            shape(&whole),
            "the same outputs whatever the chunking"
        );
    }
}
