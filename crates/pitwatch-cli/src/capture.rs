//! A raw capture's bytes as the live reader hands them on: through the device protocol's screen
//! first (PROTOCOL.md §6: a line that could carry a shuffled deck's order, or a card from a
//! shuffler, becomes the host's `WITHHELD` line), chunk by chunk in order, what the screen still
//! holds handed on when the capture ends, as the monitor's reader does when a connection ends
//! (`pitwatch-recording`'s `DeviceSink`). `pitwatch replay --format` and `pitwatch import` both
//! read a capture through it, so a capture is judged as the same bytes live are (`ORDER_DISCLOSED`
//! for a withheld line) and an import keeps no byte the live path would not.

use std::borrow::Cow;

use pitwatch_codec::Screen;
use pitwatch_protocols::ProtocolConfig;

/// The screen of one capture (one connection's bytes).
pub(crate) struct Screened {
    screen: Option<Box<dyn Screen>>,
}

impl Screened {
    /// The screen `protocol`'s connections pass through live (none for the shoes' protocols).
    pub(crate) fn new(protocol: &ProtocolConfig) -> Screened {
        Screened {
            screen: protocol.screen(),
        }
    }

    /// What the live reader keeps of `chunk`, in order (bytes of an unfinished line wait for
    /// the rest of it, so it may be empty).
    pub(crate) fn chunk<'a>(&mut self, chunk: &'a [u8]) -> Cow<'a, [u8]> {
        match self.screen.as_mut() {
            None => Cow::Borrowed(chunk),
            Some(screen) => {
                let mut kept = Vec::with_capacity(chunk.len());
                screen.push(chunk, &mut kept);
                Cow::Owned(kept)
            }
        }
    }

    /// The capture ended: what the screen still held, screened.
    pub(crate) fn finish(&mut self) -> Vec<u8> {
        let mut kept = Vec::new();
        if let Some(screen) = self.screen.as_mut() {
            screen.finish(&mut kept);
        }
        kept
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_order_line_is_withheld_and_a_shoes_bytes_pass_unchanged() {
        let pitwatch = ProtocolConfig::by_name("pitwatch").unwrap();
        let mut screened = Screened::new(&pitwatch);
        let line = b"PW1 4 ORDER cards=AS,KD,9D,5C *00\r\n";
        let kept = screened.chunk(line).into_owned();
        assert!(!kept.windows(5).any(|w| w == b"AS,KD"), "{kept:?}");
        assert!(kept.windows(8).any(|w| w == b"WITHHELD"), "{kept:?}");
        assert!(screened.finish().is_empty());

        let barcode = ProtocolConfig::by_name("barcode").unwrap();
        let mut screened = Screened::new(&barcode);
        assert_eq!(&*screened.chunk(b"511\r"), b"511\r");
        assert!(screened.finish().is_empty());
    }
}
