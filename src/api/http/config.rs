//! Server settings: where to listen, who may call, and the limits of a request.
//!
//! Read from a JSON file (`strata serve --config FILE`, or `$STRATA_CONFIG`). API keys are
//! stored as SHA-256 hashes only (`strata hash-key` prints one).

use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use serde::Deserialize;

/// What an API key may do: `"read"`, `"write"`, `"admin"`.
pub use crate::api::access::Right as Scope;

/// One API key, as configured.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApiKeyConfig {
    /// A name for logs (never the key itself).
    pub name: String,
    /// Lowercase hex SHA-256 of the key.
    pub sha256: String,
    pub scopes: Vec<Scope>,
    /// Graphs the key may touch; absent means all graphs.
    #[serde(default)]
    pub graphs: Option<Vec<String>>,
}

/// Settings of the HTTP server.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HttpConfig {
    pub api_keys: Vec<ApiKeyConfig>,
    /// OAuth 2.1 sign-in (`oauth.rs`): the authorization server whose access tokens are
    /// accepted beside the API keys.
    pub oauth: Option<super::oauth::OAuthConfig>,
    /// Serving beyond loopback without TLS is refused unless this says a proxy in front
    /// terminates TLS.
    pub tls_terminated_by_proxy: bool,
    /// Host header values accepted besides loopback names and the listen address
    /// (DNS-rebinding protection).
    pub allowed_hosts: Vec<String>,
    /// Origin header values accepted besides the allowed hosts' own origins.
    pub allowed_origins: Vec<String>,
    /// Origins that get CORS headers; empty turns CORS off.
    pub cors_origins: Vec<String>,
    /// Largest accepted request body (413 beyond).
    pub body_limit_bytes: usize,
    /// Time to produce a response's head (408 beyond).
    pub request_timeout_secs: f64,
    /// Time limit of a query; it is cancelled, not left running.
    pub query_timeout_secs: f64,
    /// Remote SPARQL endpoints a query's `SERVICE` may call (exact IRIs). Empty: every
    /// `SERVICE` is refused, so readers cannot make the server fetch internal URLs.
    pub service_allowlist: Vec<String>,
    /// Memory one query may hold, in MiB (0: no limit; absent: 1024). The command line's
    /// `--query-memory-mb` wins.
    pub query_memory_limit_mb: Option<u64>,
    /// Queries running longer than this many milliseconds are heavy (absent: 200).
    pub heavy_query_after_ms: Option<u64>,
    /// Heavy queries that may run at once (absent: cores - 1, at least 1).
    pub heavy_queries: Option<usize>,
    /// Threads one query's large scans, joins and aggregates may use (absent: every
    /// core). The command line's `--query-threads` wins.
    pub query_threads: Option<usize>,
}

impl Default for HttpConfig {
    fn default() -> Self {
        Self {
            api_keys: Vec::new(),
            oauth: None,
            tls_terminated_by_proxy: false,
            allowed_hosts: Vec::new(),
            allowed_origins: Vec::new(),
            cors_origins: Vec::new(),
            body_limit_bytes: 256 << 20,
            request_timeout_secs: 300.0,
            query_timeout_secs: 60.0,
            service_allowlist: Vec::new(),
            query_memory_limit_mb: None,
            heavy_query_after_ms: None,
            heavy_queries: None,
            query_threads: None,
        }
    }
}

impl HttpConfig {
    /// Reads a JSON configuration file.
    pub fn from_file(path: &Path) -> Result<Self, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let config: Self = serde_json::from_str(&text)
            .map_err(|e| format!("invalid configuration {}: {e}", path.display()))?;
        config.validate()?;
        Ok(config)
    }

    /// Checks values a typo could make dangerous or useless.
    pub fn validate(&self) -> Result<(), String> {
        for key in &self.api_keys {
            let is_hex = key.sha256.len() == 64
                && key
                    .sha256
                    .bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
            if !is_hex {
                return Err(format!(
                    "api key {:?}: sha256 must be 64 lowercase hex characters (use `strata hash-key`)",
                    key.name
                ));
            }
            if key.scopes.is_empty() {
                return Err(format!("api key {:?}: scopes must not be empty", key.name));
            }
        }
        for (name, secs) in [
            ("request_timeout_secs", self.request_timeout_secs),
            ("query_timeout_secs", self.query_timeout_secs),
        ] {
            if !(secs > 0.0 && secs.is_finite()) {
                return Err(format!("{name} must be a positive number of seconds"));
            }
        }
        for endpoint in &self.service_allowlist {
            let ok = crate::model::NamedNode::new(endpoint.as_str()).is_ok()
                && (endpoint.starts_with("http://") || endpoint.starts_with("https://"));
            if !ok {
                return Err(format!(
                    "service_allowlist: {endpoint:?} is not an http(s) IRI"
                ));
            }
        }
        if let Some(oauth) = &self.oauth {
            oauth.validate()?;
        }
        if self.body_limit_bytes == 0 {
            return Err("body_limit_bytes must be positive".into());
        }
        if self.heavy_queries == Some(0) {
            return Err("heavy_queries must be at least 1".into());
        }
        if self.query_threads.is_some_and(|n| n == 0 || n > 1024) {
            return Err("query_threads must be between 1 and 1024".into());
        }
        Ok(())
    }

    /// Refuses to listen beyond loopback without sign-in (API keys or OAuth: anyone on
    /// the network could otherwise read and write every graph) or without TLS (keys and
    /// tokens would cross the network in clear), unless a proxy is said to do TLS.
    pub fn check_listen_address(&self, addr: &SocketAddr, tls: bool) -> Result<(), String> {
        if addr.ip().is_loopback() {
            return Ok(());
        }
        if self.api_keys.is_empty() && self.oauth.is_none() {
            return Err(format!(
                "refusing to listen on {addr} without sign-in: configure api_keys (see `strata hash-key`) or oauth, or listen on 127.0.0.1"
            ));
        }
        if !tls && !self.tls_terminated_by_proxy {
            return Err(format!(
                "refusing to listen on {addr} without TLS: pass --tls-cert and --tls-key, or set \"tls_terminated_by_proxy\": true when a proxy in front does TLS"
            ));
        }
        Ok(())
    }

    pub fn request_timeout(&self) -> Duration {
        Duration::from_secs_f64(self.request_timeout_secs)
    }

    pub fn query_timeout(&self) -> Duration {
        Duration::from_secs_f64(self.query_timeout_secs)
    }
}
