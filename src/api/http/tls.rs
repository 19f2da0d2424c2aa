//! TLS for `strata serve --tls-cert FILE --tls-key FILE` (PEM; rustls on ring).
//!
//! The certificate is read again when its files change (checked every two seconds) or on
//! SIGHUP, so a renewed certificate (certbot, cert-manager) is served without a restart;
//! connections already open keep the one they started with. A renewal that cannot be
//! read (a key that does not match its certificate, a half-written file) is logged and
//! the certificate in use stays.
//!
//! Handshakes run in tasks of their own, so a client that connects and says nothing
//! holds only its own connection (for at most `HANDSHAKE_TIMEOUT`).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use parking_lot::{Mutex, RwLock};
use rustls::ServerConfig;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::TlsAcceptor;
use tokio_rustls::server::TlsStream;

use super::edge::CodedEdge;

/// How long a client has to finish its TLS handshake.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// How often the certificate files are looked at.
const RELOAD_CHECK: Duration = Duration::from_secs(2);

/// The certificate and key files, and the configuration built from them.
pub struct Certificates {
    cert: PathBuf,
    key: PathBuf,
    current: RwLock<Arc<ServerConfig>>,
    /// The files' modification times when last read (or last found unreadable).
    seen: Mutex<(Option<SystemTime>, Option<SystemTime>)>,
}

impl Certificates {
    /// Reads the PEM files; an error names the file and what is wrong with it.
    pub fn load(cert: &Path, key: &Path) -> Result<Arc<Self>, String> {
        let seen = (modified(cert), modified(key));
        let config = server_config(cert, key)?;
        Ok(Arc::new(Self {
            cert: cert.to_owned(),
            key: key.to_owned(),
            current: RwLock::new(config),
            seen: Mutex::new(seen),
        }))
    }

    fn acceptor(&self) -> TlsAcceptor {
        TlsAcceptor::from(self.current.read().clone())
    }

    /// Reads the files again; `force` even when their times have not changed (SIGHUP).
    fn reload(&self, force: bool) {
        let now = (modified(&self.cert), modified(&self.key));
        {
            let mut seen = self.seen.lock();
            if !force && *seen == now {
                return;
            }
            *seen = now;
        }
        match server_config(&self.cert, &self.key) {
            Ok(config) => {
                *self.current.write() = config;
                tracing::info!(target: "strata::tls", cert = %self.cert.display(), "TLS certificate reloaded");
            }
            Err(why) => {
                tracing::error!(target: "strata::tls", "TLS certificate not reloaded, the one in use stays: {why}");
            }
        }
    }

    /// Watches the files and SIGHUP for as long as the server runs.
    pub fn watch(self: &Arc<Self>) {
        let this = self.clone();
        tokio::spawn(async move {
            let mut hangup =
                tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup()).ok();
            loop {
                let forced = match &mut hangup {
                    Some(signal) => tokio::select! {
                        _ = signal.recv() => true,
                        () = tokio::time::sleep(RELOAD_CHECK) => false,
                    },
                    None => {
                        tokio::time::sleep(RELOAD_CHECK).await;
                        false
                    }
                };
                let this = this.clone();
                let _ = tokio::task::spawn_blocking(move || this.reload(forced)).await;
            }
        });
    }
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

fn server_config(cert: &Path, key: &Path) -> Result<Arc<ServerConfig>, String> {
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert)
        .map_err(|e| format!("--tls-cert {}: {e}", cert.display()))?
        .collect::<Result<_, _>>()
        .map_err(|e| format!("--tls-cert {}: {e}", cert.display()))?;
    if chain.is_empty() {
        return Err(format!(
            "--tls-cert {}: no PEM certificate in the file",
            cert.display()
        ));
    }
    let private = PrivateKeyDer::from_pem_file(key)
        .map_err(|e| format!("--tls-key {}: {e}", key.display()))?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS: {e}"))?
        .with_no_client_auth()
        .with_single_cert(chain, private)
        .map_err(|e| {
            format!(
                "--tls-key {} does not go with --tls-cert {}: {e}",
                key.display(),
                cert.display()
            )
        })?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}

/// Accepts TCP connections, finishes their TLS handshakes in tasks of their own, and
/// hands the server the established ones (wrapped in `CodedEdge`, as plain TCP is).
pub struct TlsListener {
    ready: tokio::sync::mpsc::Receiver<(CodedEdge<TlsStream<TcpStream>>, SocketAddr)>,
    local: SocketAddr,
}

impl TlsListener {
    pub fn new(mut tcp: TcpListener, certificates: Arc<Certificates>) -> std::io::Result<Self> {
        let local = tcp.local_addr()?;
        let (sender, ready) = tokio::sync::mpsc::channel(64);
        tokio::spawn(async move {
            loop {
                let (socket, addr) = axum::serve::Listener::accept(&mut tcp).await;
                if let Err(error) = socket.set_nodelay(true) {
                    tracing::warn!(%error, "cannot set TCP_NODELAY on an accepted socket");
                }
                let acceptor = certificates.acceptor();
                let handed = sender.clone();
                tokio::spawn(async move {
                    match tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(socket)).await {
                        Ok(Ok(stream)) => {
                            let _ = handed.send((CodedEdge::new(stream), addr)).await;
                        }
                        Ok(Err(error)) => {
                            tracing::debug!(target: "strata::tls", %addr, %error, "TLS handshake failed");
                        }
                        Err(_) => {
                            tracing::debug!(target: "strata::tls", %addr, "TLS handshake timed out");
                        }
                    }
                });
                if sender.is_closed() {
                    break;
                }
            }
        });
        Ok(Self { ready, local })
    }
}

impl axum::serve::Listener for TlsListener {
    type Io = CodedEdge<TlsStream<TcpStream>>;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        match self.ready.recv().await {
            Some(connection) => connection,
            // The accepting task ended (the server is stopping): accept nothing more.
            None => std::future::pending().await,
        }
    }

    fn local_addr(&self) -> std::io::Result<Self::Addr> {
        Ok(self.local)
    }
}
