//! The small trait a connected device is used through, and its two real implementations: a
//! serial port (through the `serialport` crate) and a TCP client.

use std::io::{ErrorKind, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

use crate::config::{DeviceConfig, FlowControl, Parity, SerialConfig, TcpConfig, TransportConfig};
use crate::TransportError;

/// An open link to a device. Reads wait at most the configured read timeout.
pub trait Connection: Send {
    /// Reads what has arrived into `buf`. `Ok(0)` means nothing arrived within the read timeout;
    /// an error means the link is gone and must be reopened.
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, TransportError>;

    /// Writes all of `bytes` (a host command). Only ever called on an explicit request.
    fn write_all(&mut self, bytes: &[u8]) -> Result<(), TransportError>;

    /// The USB identity of the port, when the link is a USB serial adapter (an optional ability;
    /// `None` by default).
    fn usb(&self) -> Option<crate::UsbInfo> {
        None
    }
}

/// Opens connections to one device; the reader loop calls it again after every disconnect.
pub trait Connector: Send {
    /// Opens the link.
    fn connect(&mut self) -> Result<Box<dyn Connection>, TransportError>;

    /// What is being connected to, for events and logs.
    fn describe(&self) -> String;
}

/// A [`Connector`] for a [`DeviceConfig`].
#[derive(Debug, Clone)]
pub struct ConfiguredConnector {
    config: DeviceConfig,
}

impl ConfiguredConnector {
    /// A connector for `config`.
    pub fn new(config: DeviceConfig) -> Self {
        ConfiguredConnector { config }
    }
}

impl Connector for ConfiguredConnector {
    fn connect(&mut self) -> Result<Box<dyn Connection>, TransportError> {
        match &self.config.transport {
            TransportConfig::Serial(serial) => Ok(Box::new(SerialConnection::open(
                serial,
                self.config.read_timeout(),
            )?)),
            TransportConfig::Tcp(tcp) => Ok(Box::new(TcpConnection::open(
                tcp,
                self.config.read_timeout(),
                self.config.connect_timeout(),
            )?)),
        }
    }

    fn describe(&self) -> String {
        self.config.transport.describe()
    }
}

/// A serial port.
pub struct SerialConnection {
    port: Box<dyn serialport::SerialPort>,
    usb: Option<crate::UsbInfo>,
}

impl SerialConnection {
    /// Opens `config.path` with its line settings; reads wait at most `read_timeout`.
    pub fn open(config: &SerialConfig, read_timeout: Duration) -> Result<Self, TransportError> {
        let data_bits = match config.data_bits {
            5 => serialport::DataBits::Five,
            6 => serialport::DataBits::Six,
            7 => serialport::DataBits::Seven,
            8 => serialport::DataBits::Eight,
            other => {
                return Err(TransportError::Config(format!(
                    "data_bits {other} is not 5, 6, 7 or 8"
                )))
            }
        };
        let stop_bits = match config.stop_bits {
            1 => serialport::StopBits::One,
            2 => serialport::StopBits::Two,
            other => {
                return Err(TransportError::Config(format!(
                    "stop_bits {other} is not 1 or 2"
                )))
            }
        };
        let parity = match config.parity {
            Parity::None => serialport::Parity::None,
            Parity::Odd => serialport::Parity::Odd,
            Parity::Even => serialport::Parity::Even,
        };
        let flow_control = match config.flow_control {
            FlowControl::None => serialport::FlowControl::None,
            FlowControl::Software => serialport::FlowControl::Software,
            FlowControl::Hardware => serialport::FlowControl::Hardware,
        };
        let port = serialport::new(&config.path, config.baud)
            .data_bits(data_bits)
            .stop_bits(stop_bits)
            .parity(parity)
            .flow_control(flow_control)
            .timeout(read_timeout)
            .open()
            .map_err(|e| TransportError::Open {
                target: config.path.clone(),
                reason: match e.kind {
                    serialport::ErrorKind::NoDevice => "no such port".into(),
                    serialport::ErrorKind::Io(kind) => reason(&std::io::Error::from(kind)),
                    _ => e.description,
                },
            })?;
        let usb = crate::ports::usb_info_for(&config.path);
        Ok(SerialConnection { port, usb })
    }
}

impl Connection for SerialConnection {
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, TransportError> {
        match self.port.read(buf) {
            // The port only reads after poll() said it is readable: no bytes then means the
            // other end hung up (a USB adapter unplugged, a pty closed).
            Ok(0) => Err(TransportError::Closed(
                "the port reported end of file".into(),
            )),
            Ok(n) => Ok(n),
            Err(e) if matches!(e.kind(), ErrorKind::TimedOut | ErrorKind::WouldBlock) => Ok(0),
            Err(e) if e.kind() == ErrorKind::Interrupted => Ok(0),
            Err(e) => Err(TransportError::Io(e.to_string())),
        }
    }

    fn write_all(&mut self, bytes: &[u8]) -> Result<(), TransportError> {
        self.port
            .write_all(bytes)
            .and_then(|()| self.port.flush())
            .map_err(|e| TransportError::Io(e.to_string()))
    }

    fn usb(&self) -> Option<crate::UsbInfo> {
        self.usb.clone()
    }
}

/// A TCP client connection to a device server.
pub struct TcpConnection {
    stream: TcpStream,
}

impl TcpConnection {
    /// Connects to `config.address` (trying each resolved address in turn).
    pub fn open(
        config: &TcpConfig,
        read_timeout: Duration,
        connect_timeout: Duration,
    ) -> Result<Self, TransportError> {
        let open_error = |reason: String| TransportError::Open {
            target: config.address.clone(),
            reason,
        };
        let addresses = config
            .address
            .to_socket_addrs()
            .map_err(|e| open_error(format!("cannot resolve: {e}")))?;
        let mut last = open_error("the address resolved to nothing".into());
        for address in addresses {
            match TcpStream::connect_timeout(&address, connect_timeout) {
                Ok(stream) => {
                    stream
                        .set_read_timeout(Some(read_timeout))
                        .and_then(|()| stream.set_nodelay(true))
                        .map_err(|e| open_error(e.to_string()))?;
                    return Ok(TcpConnection { stream });
                }
                // The resolved address only when it says more than the configured one.
                Err(e) if address.to_string() == config.address => last = open_error(reason(&e)),
                Err(e) => last = open_error(format!("{address}: {}", reason(&e))),
            }
        }
        Err(last)
    }
}

impl Connection for TcpConnection {
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, TransportError> {
        match self.stream.read(buf) {
            Ok(0) => Err(TransportError::Closed(
                "the device server closed the connection".into(),
            )),
            Ok(n) => Ok(n),
            Err(e) if matches!(e.kind(), ErrorKind::TimedOut | ErrorKind::WouldBlock) => Ok(0),
            Err(e) if e.kind() == ErrorKind::Interrupted => Ok(0),
            Err(e) => Err(TransportError::Io(reason(&e))),
        }
    }

    fn write_all(&mut self, bytes: &[u8]) -> Result<(), TransportError> {
        self.stream
            .write_all(bytes)
            .map_err(|e| TransportError::Io(reason(&e)))
    }
}

/// What an I/O error means for people at the pit: the common ones in plain words, the others as
/// the system words them without its error number.
pub(crate) fn reason(error: &std::io::Error) -> String {
    match error.kind() {
        ErrorKind::ConnectionRefused => "connection refused (nothing is listening there)".into(),
        ErrorKind::ConnectionReset => "the connection was reset by the other end".into(),
        ErrorKind::ConnectionAborted => "the connection was aborted".into(),
        ErrorKind::TimedOut => "no answer in time".into(),
        ErrorKind::NotFound => "no such port".into(),
        ErrorKind::PermissionDenied => {
            "permission denied (the user may need to be in the port's group, e.g. dialout)".into()
        }
        ErrorKind::BrokenPipe => "the connection was closed by the other end".into(),
        _ => {
            let text = error.to_string();
            match text.rfind(" (os error ") {
                Some(i) if text.ends_with(')') => text[..i].to_owned(),
                _ => text,
            }
        }
    }
}
