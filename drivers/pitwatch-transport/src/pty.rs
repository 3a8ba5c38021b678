//! Pseudo-terminals for device simulators: a simulated table device writes to one end, and a host
//! opens the other end by path, exactly as it would open a USB serial adapter.
//!
//! This lives here because the transport is the one crate that may use `serialport`. The
//! simulator keeps both ends open for the pair's whole life: the slave end it holds is never read,
//! but keeping it open means bytes written before the host connects wait in the terminal's input
//! queue, and a host that closes and reopens the path finds the same device again. (A pair cannot
//! be closed and recreated under the same path, so a simulated power cycle keeps the pair and only
//! changes what is sent.) Pseudo-terminals ignore the baud rate.

use std::io::{ErrorKind, Write};
use std::time::Duration;

use serialport::{SerialPort, TTYPort};

use crate::TransportError;

/// The device end of a pseudo-terminal pair, and the path a host opens for the other end.
pub struct PtyDevice {
    master: TTYPort,
    // Held open (never read) so the terminal and its input queue outlive host reconnects.
    _slave: TTYPort,
    path: String,
}

impl std::fmt::Debug for PtyDevice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PtyDevice")
            .field("path", &self.path)
            .finish()
    }
}

/// Opens a new pseudo-terminal pair: the device end, whose [`PtyDevice::path`] a host opens with
/// a serial [`crate::DeviceConfig`] (any baud rate).
pub fn open_pair() -> Result<PtyDevice, TransportError> {
    let (mut master, slave) = TTYPort::pair().map_err(|e| TransportError::Open {
        target: "a pseudo-terminal pair".into(),
        reason: e.to_string(),
    })?;
    let path = slave.name().ok_or_else(|| TransportError::Open {
        target: "a pseudo-terminal pair".into(),
        reason: "the terminal has no name".into(),
    })?;
    master
        .set_timeout(Duration::from_millis(100))
        .map_err(|e| TransportError::Io(e.to_string()))?;
    Ok(PtyDevice {
        master,
        _slave: slave,
        path,
    })
}

impl PtyDevice {
    /// The path a host opens (`/dev/pts/N`).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Writes as much of `bytes` as the terminal takes within about 100 ms; `Ok(0)` means the
    /// terminal's queue is full (nobody is reading), so the caller can check whether to stop
    /// before trying again.
    pub fn write(&mut self, bytes: &[u8]) -> Result<usize, TransportError> {
        if bytes.is_empty() {
            return Ok(0);
        }
        match self.master.write(bytes) {
            Ok(n) => Ok(n),
            Err(e) if matches!(e.kind(), ErrorKind::TimedOut | ErrorKind::WouldBlock) => Ok(0),
            Err(e) if e.kind() == ErrorKind::Interrupted => Ok(0),
            Err(e) => Err(TransportError::Io(e.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Connection;
    use crate::{SerialConfig, SerialConnection};

    #[test]
    fn a_host_opens_the_path_with_the_serial_transport_and_reads_every_byte() {
        let mut device = open_pair().unwrap();
        assert!(device.path().starts_with("/dev/"), "{}", device.path());
        // Written before the host opens: kept in the terminal's queue.
        let early: Vec<u8> = vec![0x05, b'0', b'S', 0x03, 0x00, 0x11, 0x13, 0xFF, b'\r', b'\n'];
        assert_eq!(device.write(&early).unwrap(), early.len());
        let config = SerialConfig::new(device.path(), 4800);
        let mut host = SerialConnection::open(&config, Duration::from_millis(100)).unwrap();
        assert_eq!(device.write(b"511\r").unwrap(), 4);
        let mut got = Vec::new();
        let mut buf = [0u8; 64];
        let deadline = std::time::Instant::now() + Duration::from_secs(3);
        while got.len() < early.len() + 4 && std::time::Instant::now() < deadline {
            let n = host.read(&mut buf).unwrap();
            got.extend_from_slice(&buf[..n]);
        }
        let mut want = early.clone();
        want.extend_from_slice(b"511\r");
        assert_eq!(got, want);
        // The host goes away and comes back: the same path still works.
        drop(host);
        let mut host = SerialConnection::open(&config, Duration::from_millis(100)).unwrap();
        assert_eq!(device.write(b"001\r").unwrap(), 4);
        let mut got = Vec::new();
        while got.len() < 4 && std::time::Instant::now() < deadline {
            let n = host.read(&mut buf).unwrap();
            got.extend_from_slice(&buf[..n]);
        }
        assert_eq!(got, b"001\r");
    }
}
