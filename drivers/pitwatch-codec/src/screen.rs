//! Screening a device's bytes before anything keeps them.
//!
//! Some things a device might send must never be stored, shown or exported: above all the order of
//! a shuffled deck, which a compromised shuffler can leak before the cards are dealt. Rejecting
//! such a line in the decoder is not enough, because the raw journal keeps every byte as received
//! and a monitor spools bytes to disk before any decoder sees them. A [`Screen`] therefore sits
//! between the transport and everything else: it takes the bytes as read and hands on the bytes
//! that may be kept, with every forbidden line replaced by a marker line of the device's own
//! protocol that says what was withheld and how long it was. Everything downstream (journal,
//! spool, decoder, replay) sees the screened bytes only, so replay of the record still equals what
//! was decoded live.
//!
//! Like a codec, a screen is a pure state machine: the same bytes in any chunking give the same
//! bytes out. It may hold the bytes of an unfinished line until the line ends (a part of a
//! forbidden line must not slip through ahead of the rest); [`Screen::finish`] hands over what it
//! still holds when the stream breaks, screened the same way.

/// Takes out of a device's byte stream what must never be kept (see the module documentation).
pub trait Screen: Send {
    /// Feeds `bytes` as read; appends to `out` the bytes that may be kept, in stream order.
    /// Bytes of an unfinished line may be held for the next call. Never panics, whatever the
    /// bytes.
    fn push(&mut self, bytes: &[u8], out: &mut Vec<u8>);

    /// The stream broke (the connection dropped or was stopped): appends what is still held,
    /// screened, and starts afresh for a new connection.
    fn finish(&mut self, out: &mut Vec<u8>);

    /// How many bytes this screen has withheld so far.
    fn withheld(&self) -> u64;
}
