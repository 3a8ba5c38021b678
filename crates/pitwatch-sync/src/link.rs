//! The link to the central server (issue 25): TLS with the server's certificate verified, SCRAM
//! only, and passwords kept out of every message.
//!
//! - **TLS** through rustls (tokio-rustls, the `ring` provider): the server's certificate must
//!   chain to a CA read from a PEM file, `sslrootcert=PATH` in the URL (query parameter, or a
//!   key=value pair) or else the `PITWATCH_CENTRAL_CA` variable, and must name the host connected
//!   to (the URL's host; `hostaddr=` may give the address to reach it at). No sslmode, and every
//!   sslmode but `disable` (`require`, `verify-ca`, `verify-full`, `prefer`, `allow`), is
//!   taken as `verify-full`: the link is TLS or nothing, and the certificate is always checked,
//!   hostname included.
//! - **Plaintext** only when asked for with `sslmode=disable`, and only to a loopback address
//!   (127.0.0.0/8, ::1, `localhost`) or a Unix socket: anywhere else it is refused.
//! - **SCRAM only**: the stream is watched until the server says the session is authenticated;
//!   a server that asks for a cleartext or an MD5 password (an impostor, or a `password`/`md5`
//!   line in pg_hba.conf) is refused there, before anything is answered, so the password is never
//!   sent. SCRAM-SHA-256 (and trust, where the server's administrator chose it) pass.
//! - [`redact`](crate::redact) hides a password in a URL or a key=value string, wherever it is.

use std::future::Future;
use std::io;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio_postgres::config::{Host, SslMode};
use tokio_postgres::tls::{ChannelBinding, NoTls, TlsConnect, TlsStream};
use tokio_postgres::{Client, Config};

use crate::{redact, SyncError};

/// The environment variable naming the CA file (PEM) the server's certificate must chain to,
/// when the URL has no `sslrootcert=`.
pub const CA_VARIABLE: &str = "PITWATCH_CENTRAL_CA";

/// How the link is protected, as the URL asks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Protection {
    /// TLS, the certificate checked against the CA in this file and the host's name.
    Tls(PathBuf),
    /// Plaintext (`sslmode=disable`), to a loopback address or a Unix socket only.
    Plain,
}

/// A URL (or key=value string) split into what tokio-postgres reads and what Pitwatch reads
/// itself (`sslmode`, `sslrootcert`).
#[derive(Debug)]
pub struct Target {
    /// The connection settings.
    pub config: Config,
    /// The protection asked for.
    pub protection: Protection,
}

/// Takes `sslmode` and `sslrootcert` out of `url` (Pitwatch reads them itself: tokio-postgres
/// knows neither `verify-full` nor a CA file), returning what is left and their values.
fn take_tls_settings(url: &str) -> (String, Option<String>, Option<String>) {
    let (mut mode, mut root) = (None, None);
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        let Some((base, query)) = url.split_once('?') else {
            return (url.to_owned(), None, None);
        };
        let mut kept = Vec::new();
        for pair in query.split('&') {
            match pair.split_once('=') {
                Some(("sslmode", v)) => mode = Some(percent_decode(v)),
                Some(("sslrootcert", v)) => root = Some(percent_decode(v)),
                _ => kept.push(pair),
            }
        }
        let rest = if kept.is_empty() {
            base.to_owned()
        } else {
            format!("{base}?{}", kept.join("&"))
        };
        (rest, mode, root)
    } else {
        let mut kept = Vec::new();
        for word in url.split_whitespace() {
            match word.split_once('=') {
                Some(("sslmode", v)) => mode = Some(v.trim_matches('\'').to_owned()),
                Some(("sslrootcert", v)) => root = Some(v.trim_matches('\'').to_owned()),
                _ => kept.push(word),
            }
        }
        (kept.join(" "), mode, root)
    }
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let digit = |b: u8| (b as char).to_digit(16);
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let (Some(h), Some(l)) = (digit(bytes[i + 1]), digit(bytes[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Whether every host of `config` is a loopback address, `localhost` or a Unix socket.
fn local_only(config: &Config) -> bool {
    let hosts = config.get_hosts();
    !hosts.is_empty()
        && hosts.iter().all(|h| match h {
            Host::Unix(_) => true,
            Host::Tcp(name) => {
                name == "localhost"
                    || name
                        .trim_matches(['[', ']'])
                        .parse::<IpAddr>()
                        .is_ok_and(|a| a.is_loopback())
            }
        })
        && config.get_hostaddrs().iter().all(IpAddr::is_loopback)
}

/// Reads `url` (a `postgres://` URL or key=value settings) with the link's rules (see the
/// module's documentation); `ca` is the CA file from the environment, if any.
pub fn target(url: &str, ca: Option<PathBuf>) -> Result<Target, SyncError> {
    let (rest, mode, root) = take_tls_settings(url);
    let config: Config = rest
        .parse()
        .map_err(|e| SyncError::Invalid(format!("{} is not a PostgreSQL URL: {e}", redact(url))))?;
    let protection = match mode.as_deref() {
        Some("disable") => {
            if !local_only(&config) {
                return Err(SyncError::Invalid(format!(
                    "{}: sslmode=disable (plaintext) is only taken to a loopback address or a \
                     Unix socket; anywhere else the link is TLS: give the server's CA with \
                     sslrootcert=PATH (or {CA_VARIABLE})",
                    redact(url)
                )));
            }
            Protection::Plain
        }
        None | Some("allow" | "prefer" | "require" | "verify-ca" | "verify-full") => {
            let Some(ca) = root.map(PathBuf::from).or(ca) else {
                return Err(SyncError::Invalid(format!(
                    "{}: the link to the central server is TLS, verified against the server's \
                     CA: give its certificate file with sslrootcert=PATH in the URL or in \
                     {CA_VARIABLE} (plaintext only with sslmode=disable, on loopback)",
                    redact(url)
                )));
            };
            Protection::Tls(ca)
        }
        Some(other) => {
            return Err(SyncError::Invalid(format!(
                "{}: sslmode={other} is not a mode (disable, require, verify-ca, verify-full)",
                redact(url)
            )))
        }
    };
    Ok(Target { config, protection })
}

fn tls_config(ca: &Path) -> Result<Arc<rustls::ClientConfig>, SyncError> {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::CertificateDer;
    let unreadable = |e: String| {
        SyncError::Invalid(format!(
            "cannot read the central server's CA file {}: {e}",
            ca.display()
        ))
    };
    let mut roots = rustls::RootCertStore::empty();
    let certificates: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(ca)
        .map_err(|e| unreadable(e.to_string()))?
        .collect::<Result<_, _>>()
        .map_err(|e| unreadable(e.to_string()))?;
    if certificates.is_empty() {
        return Err(unreadable("it holds no PEM certificate".into()));
    }
    for certificate in certificates {
        roots
            .add(certificate)
            .map_err(|e| unreadable(e.to_string()))?;
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| SyncError::Invalid(format!("TLS: {e}")))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(Arc::new(config))
}

/// Connects to `target`: TCP (or a Unix socket), TLS if asked, the authentication watched.
pub async fn connect(target: &Target) -> Result<Client, SyncError> {
    let mut config = target.config.clone();
    let hosts = config.get_hosts().to_vec();
    let ports = config.get_ports().to_vec();
    let addrs = config.get_hostaddrs().to_vec();
    let tls = match &target.protection {
        Protection::Tls(ca) => Some(tls_config(ca)?),
        Protection::Plain => None,
    };
    config.ssl_mode(if tls.is_some() {
        SslMode::Require
    } else {
        SslMode::Disable
    });
    let wait = config
        .get_connect_timeout()
        .copied()
        .unwrap_or(std::time::Duration::from_secs(5));
    let mut last = None;
    let count = hosts.len().max(addrs.len()).max(1);
    for i in 0..count {
        let host = hosts.get(i).or(hosts.first()).cloned();
        let port = ports.get(i).or(ports.first()).copied().unwrap_or(5432);
        let addr = addrs.get(i).copied();
        let attempt = async {
            match (&host, &tls) {
                (Some(Host::Unix(dir)), _) => {
                    #[cfg(unix)]
                    {
                        let path = dir.join(format!(".s.PGSQL.{port}"));
                        let stream = tokio::net::UnixStream::connect(&path).await.map_err(|e| {
                            SyncError::Unreachable(format!("{}: {e}", path.display()))
                        })?;
                        let (client, connection) =
                            config.connect_raw(AuthGuard::new(stream), NoTls).await?;
                        tokio::spawn(async move {
                            let _ = connection.await;
                        });
                        Ok(client)
                    }
                    #[cfg(not(unix))]
                    {
                        let _ = dir;
                        Err(SyncError::Invalid("no Unix sockets here".into()))
                    }
                }
                (Some(Host::Tcp(name)), tls) => {
                    let reach = async {
                        match addr {
                            Some(a) => tokio::net::TcpStream::connect((a, port)).await,
                            None => tokio::net::TcpStream::connect((name.as_str(), port)).await,
                        }
                    };
                    let stream = tokio::time::timeout(wait, reach)
                        .await
                        .map_err(|_| SyncError::Timeout(wait))?
                        .map_err(|e| SyncError::Unreachable(format!("{name}:{port}: {e}")))?;
                    let _ = stream.set_nodelay(true);
                    match tls {
                        Some(tls) => {
                            let server = rustls::pki_types::ServerName::try_from(
                                name.trim_matches(['[', ']']).to_owned(),
                            )
                            .map_err(|e| {
                                SyncError::Invalid(format!("{name} is not a host name: {e}"))
                            })?;
                            let connector = Rustls {
                                connector: tokio_rustls::TlsConnector::from(tls.clone()),
                                server,
                            };
                            let (client, connection) =
                                config.connect_raw(stream, connector).await?;
                            tokio::spawn(async move {
                                let _ = connection.await;
                            });
                            Ok(client)
                        }
                        None => {
                            let (client, connection) =
                                config.connect_raw(AuthGuard::new(stream), NoTls).await?;
                            tokio::spawn(async move {
                                let _ = connection.await;
                            });
                            Ok(client)
                        }
                    }
                }
                (None, _) => Err(SyncError::Invalid(
                    "the central URL names no host".to_owned(),
                )),
            }
        };
        match attempt.await {
            Ok(client) => return Ok(client),
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| SyncError::Invalid("the central URL names no host".into())))
}

/// TLS over tokio-rustls for tokio-postgres, the authentication watched inside the TLS stream.
struct Rustls {
    connector: tokio_rustls::TlsConnector,
    server: rustls::pki_types::ServerName<'static>,
}

impl<S> TlsConnect<S> for Rustls
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    type Stream = AuthGuard<tokio_rustls::client::TlsStream<S>>;
    type Error = io::Error;
    type Future = Pin<Box<dyn Future<Output = io::Result<Self::Stream>> + Send>>;

    fn connect(self, stream: S) -> Self::Future {
        Box::pin(async move {
            let stream = self.connector.connect(self.server, stream).await?;
            Ok(AuthGuard::new(stream))
        })
    }
}

/// Where the watch stands in the backend's messages (a type byte, a length of 4 bytes that
/// counts itself, the body).
#[derive(Debug, Clone, Copy)]
enum Watch {
    /// Reading a message's header (type and length): bytes of it seen so far.
    Header { tag: u8, len: [u8; 4], seen: usize },
    /// In an authentication request ('R'): its code's bytes seen so far, and the body left.
    Code {
        code: [u8; 4],
        seen: usize,
        left: usize,
    },
    /// Skipping the rest of a message's body.
    Skip { left: usize },
    /// Authenticated (or refused): nothing more to watch.
    Done,
}

/// A stream whose backend messages are watched until the session is authenticated: an
/// authentication request for a cleartext (code 3) or MD5 (code 5) password fails the read, so
/// the client never answers it.
pub struct AuthGuard<S> {
    inner: S,
    watch: Watch,
}

impl<S> AuthGuard<S> {
    fn new(inner: S) -> AuthGuard<S> {
        AuthGuard {
            inner,
            watch: Watch::Header {
                tag: 0,
                len: [0; 4],
                seen: 0,
            },
        }
    }

    /// Follows `bytes` (just read); an error when they hold a request for a weak password.
    fn inspect(&mut self, mut bytes: &[u8]) -> io::Result<()> {
        while !bytes.is_empty() {
            match &mut self.watch {
                Watch::Done => return Ok(()),
                Watch::Header { tag, len, seen } => {
                    if *seen == 0 {
                        *tag = bytes[0];
                    } else {
                        len[*seen - 1] = bytes[0];
                    }
                    *seen += 1;
                    bytes = &bytes[1..];
                    if *seen == 5 {
                        let body = (u32::from_be_bytes(*len) as usize).saturating_sub(4);
                        self.watch = if *tag == b'R' {
                            Watch::Code {
                                code: [0; 4],
                                seen: 0,
                                left: body,
                            }
                        } else {
                            Watch::Skip { left: body }
                        };
                        if let Watch::Skip { left: 0 } = self.watch {
                            self.watch = next_header();
                        }
                    }
                }
                Watch::Code { code, seen, left } => {
                    code[*seen] = bytes[0];
                    *seen += 1;
                    *left = left.saturating_sub(1);
                    bytes = &bytes[1..];
                    if *seen == 4 {
                        let left = *left;
                        match u32::from_be_bytes(*code) {
                            0 => {
                                self.watch = Watch::Done;
                                return Ok(());
                            }
                            3 => return Err(weak("a cleartext password")),
                            5 => return Err(weak("an MD5 password")),
                            _ => {
                                self.watch = if left == 0 {
                                    next_header()
                                } else {
                                    Watch::Skip { left }
                                }
                            }
                        }
                    }
                }
                Watch::Skip { left } => {
                    let n = (*left).min(bytes.len());
                    *left -= n;
                    bytes = &bytes[n..];
                    if *left == 0 {
                        self.watch = next_header();
                    }
                }
            }
        }
        Ok(())
    }
}

fn next_header() -> Watch {
    Watch::Header {
        tag: 0,
        len: [0; 4],
        seen: 0,
    }
}

fn weak(what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::PermissionDenied,
        format!(
            "the server asked for {what}: refused, nothing was sent (Pitwatch authenticates \
             with SCRAM-SHA-256 only; an impostor, or a password/md5 line in the server's \
             pg_hba.conf)"
        ),
    )
}

impl<S: AsyncRead + Unpin> AsyncRead for AuthGuard<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let this = &mut *self;
        match Pin::new(&mut this.inner).poll_read(cx, buf) {
            Poll::Ready(Ok(())) => {
                if !matches!(this.watch, Watch::Done) {
                    let fresh = buf.filled()[before..].to_vec();
                    this.inspect(&fresh)?;
                }
                Poll::Ready(Ok(()))
            }
            other => other,
        }
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for AuthGuard<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> TlsStream for AuthGuard<S> {
    fn channel_binding(&self) -> ChannelBinding {
        ChannelBinding::none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tls_settings_are_read_from_urls_and_key_values() {
        let (rest, mode, root) =
            take_tls_settings("postgres://u@h/db?sslmode=verify-full&sslrootcert=%2Ftmp%2Fca.crt");
        assert_eq!(rest, "postgres://u@h/db");
        assert_eq!(mode.as_deref(), Some("verify-full"));
        assert_eq!(root.as_deref(), Some("/tmp/ca.crt"));
        let (rest, mode, root) =
            take_tls_settings("host=h user=u sslmode=require sslrootcert=/ca.pem dbname=d");
        assert_eq!(rest, "host=h user=u dbname=d");
        assert_eq!(
            (mode.as_deref(), root.as_deref()),
            (Some("require"), Some("/ca.pem"))
        );
    }

    #[test]
    fn plaintext_only_on_loopback_and_tls_needs_a_ca() {
        let plain = target("postgres://u@127.0.0.1:5/db?sslmode=disable", None).expect("loopback");
        assert_eq!(plain.protection, Protection::Plain);
        let err = target("postgres://u@db.example/db?sslmode=disable", None).expect_err("remote");
        assert!(
            err.to_string().contains("only taken to a loopback"),
            "{err}"
        );
        let err = target("postgres://u@db.example/db", None).expect_err("no CA");
        assert!(err.to_string().contains("sslrootcert=PATH"), "{err}");
        let tls = target(
            "postgres://u@db.example/db?sslmode=require",
            Some("/ca".into()),
        )
        .expect("TLS");
        assert_eq!(tls.protection, Protection::Tls("/ca".into()));
        let err = target("postgres://u@h/db?sslmode=bogus", Some("/ca".into())).expect_err("mode");
        assert!(err.to_string().contains("not a mode"), "{err}");
    }

    /// Feeds `bytes` to a guard in pieces of `step` bytes.
    fn watch(bytes: &[u8], step: usize) -> io::Result<()> {
        let mut guard = AuthGuard::new(());
        for piece in bytes.chunks(step) {
            guard.inspect(piece)?;
        }
        Ok(())
    }

    #[test]
    fn weak_password_requests_are_refused_in_any_split() {
        let cleartext = [b'R', 0, 0, 0, 8, 0, 0, 0, 3];
        let md5 = [b'R', 0, 0, 0, 12, 0, 0, 0, 5, 1, 2, 3, 4];
        let mut sasl = vec![b'R', 0, 0, 0, 23, 0, 0, 0, 10];
        sasl.extend_from_slice(b"SCRAM-SHA-256\0\0");
        let ok = [b'R', 0, 0, 0, 8, 0, 0, 0, 0];
        for step in 1..=9 {
            assert!(watch(&cleartext, step).is_err(), "{step}");
            assert!(watch(&md5, step).is_err(), "{step}");
            let mut good = sasl.clone();
            good.extend_from_slice(&ok);
            // After the session is authenticated, nothing is watched (a later 'R' is data).
            good.extend_from_slice(&cleartext);
            assert!(watch(&good, step).is_ok(), "{step}");
        }
        // A notice before the request does not hide it.
        let mut notice = vec![b'N', 0, 0, 0, 6, b'x', 0];
        notice.extend_from_slice(&cleartext);
        assert!(watch(&notice, 3).is_err());
    }
}
