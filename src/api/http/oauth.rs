//! OAuth 2.1 resource server: who an access token speaks for, and what it may do.
//!
//! As the MCP authorization spec asks: the server publishes its protected resource
//! metadata (RFC 9728) naming its authorization server; a request without a usable token
//! is answered `401` with a `WWW-Authenticate: Bearer resource_metadata="…"` challenge;
//! tokens are checked here and never passed on. JWT access tokens are verified with the
//! issuer's keys (JWKS from the issuer's metadata, cached, fetched again for a key id
//! not seen yet and every `jwks_cache_secs`): signature with an allowed asymmetric
//! algorithm, `iss`, `aud` (this server's resource URL, RFC 8707), `exp`/`nbf` with a
//! small leeway. Any other token is asked about at the issuer's introspection endpoint
//! (RFC 7662) with this server's client credentials, and the answer is kept for a few
//! seconds. Scopes become `Rights` (`crate::api::access`).
//!
//! Network calls (metadata, keys, introspection) run on blocking threads with short time
//! limits; one refresh at a time; a failing issuer makes requests fail with a coded 401,
//! never hang the server.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::{Jwk, JwkSet};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use parking_lot::Mutex;
use serde::Deserialize;
use sha2::{Digest, Sha256};

use crate::api::access::Rights;

/// `"oauth"` in the server's configuration.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OAuthConfig {
    /// The authorization server's issuer URL; its metadata is read from
    /// `<issuer>/.well-known/oauth-authorization-server` (RFC 8414), else
    /// `<issuer>/.well-known/openid-configuration`.
    pub issuer: String,
    /// This server's public base URL (`https://strata.example.com`): the audience tokens
    /// must be issued for (that URL, or its `/mcp`), and the base of the metadata URLs.
    pub resource: String,
    /// Client credentials for token introspection (opaque tokens); without them only
    /// JWT access tokens are accepted.
    #[serde(default)]
    pub introspection: Option<IntrospectionConfig>,
    /// JWT signature algorithms accepted (default RS256, RS384, RS512, PS256, PS384,
    /// PS512, ES256, ES384, EdDSA). Symmetric ones (HS*) and `none` never are.
    #[serde(default = "default_algorithms")]
    pub algorithms: Vec<String>,
    /// Clock skew allowed on `exp` and `nbf`, seconds.
    #[serde(default = "default_leeway")]
    pub leeway_secs: u64,
    /// How long the issuer's keys are kept before they are fetched again, seconds.
    #[serde(default = "default_jwks_cache")]
    pub jwks_cache_secs: u64,
    /// A claim whose values count as scopes too (e.g. `"roles"`), besides `scope`/`scp`.
    #[serde(default)]
    pub scope_claim: Option<String>,
    /// The client id the console signs in with (a public client whose redirect URI is
    /// this server's `/`); without it the console registers itself (RFC 7591) when the
    /// authorization server allows that.
    #[serde(default)]
    pub console_client_id: Option<String>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IntrospectionConfig {
    pub client_id: String,
    pub client_secret: String,
    /// The endpoint, when the issuer's metadata does not name one.
    #[serde(default)]
    pub endpoint: Option<String>,
    /// How long an answer is kept, seconds (a revoked token is refused at the latest
    /// this long after its revocation; 0 asks every time).
    #[serde(default = "default_introspection_cache")]
    pub cache_secs: u64,
}

fn default_algorithms() -> Vec<String> {
    [
        "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "EdDSA",
    ]
    .map(str::to_owned)
    .to_vec()
}

fn default_leeway() -> u64 {
    30
}

fn default_jwks_cache() -> u64 {
    600
}

fn default_introspection_cache() -> u64 {
    5
}

/// The scopes Strata understands (graph-limited forms: `strata:read:<graph>`,
/// `strata:write:<graph>`).
pub const SCOPES: [&str; 3] = ["strata:read", "strata:write", "strata:admin"];

/// The longest token looked at (a JWT with many claims is a few KiB).
const MAX_TOKEN_BYTES: usize = 16 * 1024;
/// Time limit of one call to the authorization server.
const FETCH_TIMEOUT: Duration = Duration::from_secs(5);
/// The largest metadata, key set or introspection answer read.
const MAX_FETCH_BYTES: u64 = 1 << 20;
/// Unknown key ids make the keys be fetched again at most this often.
const MIN_REFETCH_GAP: Duration = Duration::from_secs(2);
/// After a failed metadata or key fetch, the next try waits this long.
const RETRY_AFTER_FAILURE: Duration = Duration::from_secs(2);

impl OAuthConfig {
    /// Checks the URLs and algorithms (at start-up, so a typo is not found by the first
    /// client).
    pub fn validate(&self) -> Result<(), String> {
        check_url("oauth.issuer", &self.issuer)?;
        check_url("oauth.resource", &self.resource)?;
        if self.algorithms.is_empty() {
            return Err("oauth.algorithms must not be empty".into());
        }
        for name in &self.algorithms {
            match parse_algorithm(name) {
                Some(_) => {}
                None => {
                    return Err(format!(
                        "oauth.algorithms: {name:?} is not an asymmetric JWS algorithm (RS256, PS256, ES256, EdDSA, …)"
                    ));
                }
            }
        }
        if let Some(intro) = &self.introspection {
            if intro.client_id.is_empty() {
                return Err("oauth.introspection.client_id must not be empty".into());
            }
            if let Some(endpoint) = &intro.endpoint {
                check_url("oauth.introspection.endpoint", endpoint)?;
            }
        }
        Ok(())
    }

    /// The resource URL without a trailing slash.
    pub fn base(&self) -> &str {
        self.resource.trim_end_matches('/')
    }

    /// The protected resource metadata (RFC 9728) for the whole server (`mcp: false`) or
    /// for `/mcp`.
    pub fn metadata(&self, mcp: bool) -> serde_json::Value {
        let resource = if mcp {
            format!("{}/mcp", self.base())
        } else {
            self.resource.clone()
        };
        let mut metadata = serde_json::json!({
            "resource": resource,
            "authorization_servers": [self.issuer],
            "scopes_supported": SCOPES,
            "bearer_methods_supported": ["header"],
            "resource_name": "Strata",
        });
        if let Some(client) = &self.console_client_id {
            metadata["strata_console_client_id"] = client.clone().into();
        }
        metadata
    }

    /// The URL of the metadata a challenge points to.
    pub fn metadata_url(&self, mcp: bool) -> String {
        let suffix = if mcp { "/mcp" } else { "" };
        format!(
            "{}/.well-known/oauth-protected-resource{suffix}",
            self.base()
        )
    }

    /// Audiences a token may name: the resource URL (with or without its trailing
    /// slash) and its `/mcp`.
    fn audiences(&self) -> Vec<String> {
        let base = self.base().to_owned();
        vec![format!("{base}/"), format!("{base}/mcp"), base]
    }
}

fn check_url(name: &str, url: &str) -> Result<(), String> {
    let Ok(iri) = oxiri::Iri::parse(url.to_owned()) else {
        return Err(format!("{name}: {url:?} is not a URL"));
    };
    let loopback = matches!(
        iri.authority()
            .map(|a| a.rsplit_once(':').map_or(a, |(h, _)| h)),
        Some("localhost" | "127.0.0.1" | "[::1]")
    );
    match iri.scheme() {
        "https" => Ok(()),
        "http" if loopback => Ok(()),
        "http" => Err(format!(
            "{name}: {url:?} must use https (http only for localhost)"
        )),
        _ => Err(format!("{name}: {url:?} is not an http(s) URL")),
    }
}

fn parse_algorithm(name: &str) -> Option<Algorithm> {
    let algorithm: Algorithm = name.parse().ok()?;
    match algorithm {
        Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512 => None,
        other => Some(other),
    }
}

/// Who a valid token speaks for and what it allows.
#[derive(Clone, Debug)]
pub struct TokenIdentity {
    /// `sub`.
    pub subject: Option<String>,
    /// `client_id` (or `azp`).
    pub client: Option<String>,
    pub rights: Rights,
}

/// Why a token was refused (always a 401 with `error="invalid_token"`).
#[derive(Clone, Debug)]
pub struct TokenRefused(pub String);

/// The issuer's metadata, as far as it is used here.
#[derive(Debug, Deserialize)]
struct IssuerMetadata {
    issuer: Option<String>,
    jwks_uri: Option<String>,
    introspection_endpoint: Option<String>,
    token_endpoint: Option<String>,
    registration_endpoint: Option<String>,
}

struct Keys {
    keys: Vec<Jwk>,
    fetched: Instant,
}

struct Cached {
    until: Instant,
    answer: Result<TokenIdentity, TokenRefused>,
}

/// Checks tokens against the configured issuer; one per server.
pub struct Validator {
    config: OAuthConfig,
    algorithms: Vec<Algorithm>,
    agent: ureq::Agent,
    metadata: Mutex<Option<Arc<IssuerMetadata>>>,
    keys: Mutex<Option<Arc<Keys>>>,
    /// When the last fetch of metadata or keys failed, or the last refetch for an
    /// unknown key id was made (to keep a flood of bad tokens from flooding the issuer).
    last_attempt: Mutex<Option<(Instant, bool)>>,
    /// One fetch at a time; the others wait for its result.
    refresh: tokio::sync::Mutex<()>,
    introspected: Mutex<HashMap<[u8; 32], Cached>>,
}

impl Validator {
    pub fn new(config: OAuthConfig) -> Self {
        let algorithms = config
            .algorithms
            .iter()
            .filter_map(|name| parse_algorithm(name))
            .collect();
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(FETCH_TIMEOUT))
            .http_status_as_error(false)
            .max_redirects(0)
            .build()
            .new_agent();
        Self {
            config,
            algorithms,
            agent,
            metadata: Mutex::new(None),
            keys: Mutex::new(None),
            last_attempt: Mutex::new(None),
            refresh: tokio::sync::Mutex::new(()),
            introspected: Mutex::new(HashMap::new()),
        }
    }

    pub fn config(&self) -> &OAuthConfig {
        &self.config
    }

    /// Who `token` speaks for, or why it is refused.
    pub async fn validate(self: &Arc<Self>, token: &str) -> Result<TokenIdentity, TokenRefused> {
        if token.is_empty() {
            return Err(refused("the bearer token is empty"));
        }
        if token.len() > MAX_TOKEN_BYTES {
            return Err(refused(format!(
                "the bearer token is {} bytes; the limit is {MAX_TOKEN_BYTES}",
                token.len()
            )));
        }
        if token.split('.').count() == 3 {
            self.validate_jwt(token).await
        } else if self.config.introspection.is_some() {
            self.introspect(token).await
        } else {
            Err(refused(
                "the bearer token is neither a JWT nor a known API key (opaque tokens need oauth.introspection)",
            ))
        }
    }

    async fn validate_jwt(self: &Arc<Self>, token: &str) -> Result<TokenIdentity, TokenRefused> {
        let header = jsonwebtoken::decode_header(token)
            .map_err(|e| refused(format!("malformed JWT header: {e}")))?;
        if !self.algorithms.contains(&header.alg) {
            return Err(refused(format!(
                "JWT algorithm {:?} is not accepted (allowed: {})",
                header.alg,
                self.config.algorithms.join(", ")
            )));
        }
        let key = self.key_for(header.kid.as_deref(), header.alg).await?;
        let mut validation = Validation::new(header.alg);
        validation.leeway = self.config.leeway_secs;
        validation.validate_nbf = true;
        validation.set_issuer(&[self.config.issuer.as_str()]);
        validation.set_audience(&self.config.audiences());
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        let data = jsonwebtoken::decode::<serde_json::Map<String, serde_json::Value>>(
            token,
            &key,
            &validation,
        )
        .map_err(|e| refused(jwt_error(&e)))?;
        Ok(self.identity(&data.claims))
    }

    /// Who the claims (a JWT's, or an introspection answer's) speak for.
    fn identity(&self, claims: &serde_json::Map<String, serde_json::Value>) -> TokenIdentity {
        let text = |name: &str| claims.get(name).and_then(|v| v.as_str()).map(str::to_owned);
        let mut scopes: Vec<String> = Vec::new();
        let mut add = |value: Option<&serde_json::Value>| match value {
            Some(serde_json::Value::String(s)) => {
                scopes.extend(s.split_whitespace().map(str::to_owned));
            }
            Some(serde_json::Value::Array(items)) => {
                scopes.extend(items.iter().filter_map(|v| v.as_str()).map(str::to_owned));
            }
            _ => {}
        };
        add(claims.get("scope"));
        add(claims.get("scp"));
        if let Some(claim) = &self.config.scope_claim {
            add(claims.get(claim));
        }
        let rights = Rights::of_scopes(scopes.iter().map(String::as_str));
        TokenIdentity {
            subject: text("sub"),
            client: text("client_id").or_else(|| text("azp")),
            rights,
        }
    }

    /// The issuer's key for `kid` (or the only one fitting `alg` when the token names
    /// none), fetching the key set when it is old or lacks that key id.
    async fn key_for(
        self: &Arc<Self>,
        kid: Option<&str>,
        alg: Algorithm,
    ) -> Result<DecodingKey, TokenRefused> {
        let pick = |keys: &Keys| -> Option<Result<DecodingKey, TokenRefused>> {
            let fits = |jwk: &Jwk| {
                jwk.common
                    .key_algorithm
                    .is_none_or(|a| format!("{a:?}") == format!("{alg:?}"))
                    && !matches!(
                        jwk.common.public_key_use,
                        Some(jsonwebtoken::jwk::PublicKeyUse::Encryption)
                    )
            };
            let found: Vec<&Jwk> = keys
                .keys
                .iter()
                .filter(|jwk| match kid {
                    Some(kid) => jwk.common.key_id.as_deref() == Some(kid),
                    None => fits(jwk),
                })
                .collect();
            match found.as_slice() {
                [jwk] if fits(jwk) => Some(
                    DecodingKey::from_jwk(jwk)
                        .map_err(|e| refused(format!("the issuer's key cannot be used: {e}"))),
                ),
                [_] => Some(Err(refused(format!(
                    "the issuer's key {kid:?} is not for {alg:?}"
                )))),
                [] => None,
                _ => Some(Err(refused(
                    "the JWT names no key id and the issuer has several keys",
                ))),
            }
        };
        let fresh =
            |keys: &Keys| keys.fetched.elapsed() < Duration::from_secs(self.config.jwks_cache_secs);
        let cached = self.keys.lock().clone();
        if let Some(keys) = &cached
            && fresh(keys)
            && let Some(found) = pick(keys)
        {
            return found;
        }
        // Fetch again: the set is old, or lacks this key id (the issuer rotated).
        let _one = self.refresh.lock().await;
        let now_cached = self.keys.lock().clone();
        let refetched = match (&cached, &now_cached) {
            (Some(a), Some(b)) => !Arc::ptr_eq(a, b),
            (None, Some(_)) => true,
            _ => false,
        };
        if !refetched {
            let stale = now_cached.as_ref().is_none_or(|k| !fresh(k));
            if let Some((at, ok)) = *self.last_attempt.lock() {
                let gap = if ok {
                    MIN_REFETCH_GAP
                } else {
                    RETRY_AFTER_FAILURE
                };
                if at.elapsed() < gap && !(stale && ok) {
                    return now_cached.as_deref().and_then(pick).unwrap_or_else(|| {
                        Err(refused(if ok {
                            format!("the issuer has no key {kid:?}")
                        } else {
                            "the issuer's keys are unavailable just now".to_owned()
                        }))
                    });
                }
            }
            let fetched = self.fetch_keys().await;
            *self.last_attempt.lock() = Some((Instant::now(), fetched.is_ok()));
            match fetched {
                Ok(keys) => *self.keys.lock() = Some(Arc::new(keys)),
                Err(why) => {
                    tracing::warn!(target: "strata::oauth", "fetching the issuer's keys failed: {why}");
                    // Keys kept from before still serve while the issuer is away.
                    if let Some(keys) = &now_cached
                        && let Some(found) = pick(keys)
                    {
                        return found;
                    }
                    return Err(refused(format!("the issuer's keys are unavailable: {why}")));
                }
            }
        }
        let keys = self.keys.lock().clone();
        keys.as_deref()
            .and_then(pick)
            .unwrap_or_else(|| Err(refused(format!("the issuer has no key {kid:?}"))))
    }

    /// The origins the console's page must be allowed to reach to sign a person in (its
    /// Content-Security-Policy `connect-src`): the issuer's, and those of its token and
    /// registration endpoints once its metadata is read. A page load waits at most a
    /// second for that metadata, so an unreachable issuer does not hold the console up.
    pub async fn browser_origins(self: &Arc<Self>) -> Vec<String> {
        let mut urls = vec![self.config.issuer.clone()];
        let known = self.metadata.lock().clone();
        let metadata = match known {
            Some(metadata) => Some(metadata),
            None => tokio::time::timeout(Duration::from_secs(1), self.metadata())
                .await
                .ok()
                .and_then(Result::ok),
        };
        if let Some(metadata) = metadata {
            urls.extend(metadata.token_endpoint.clone());
            urls.extend(metadata.registration_endpoint.clone());
        }
        let mut origins: Vec<String> = urls.iter().filter_map(|url| csp_origin(url)).collect();
        origins.sort();
        origins.dedup();
        origins
    }

    async fn metadata(self: &Arc<Self>) -> Result<Arc<IssuerMetadata>, String> {
        if let Some(metadata) = self.metadata.lock().clone() {
            return Ok(metadata);
        }
        let this = self.clone();
        let metadata = tokio::task::spawn_blocking(move || this.fetch_metadata())
            .await
            .map_err(|e| format!("metadata fetch stopped: {e}"))??;
        let metadata = Arc::new(metadata);
        *self.metadata.lock() = Some(metadata.clone());
        Ok(metadata)
    }

    /// RFC 8414 first (the well-known part before the issuer's path), then OpenID
    /// Connect discovery (appended to the issuer).
    fn fetch_metadata(&self) -> Result<IssuerMetadata, String> {
        let issuer = self.config.issuer.trim_end_matches('/');
        let (origin, path) = split_origin(issuer);
        let candidates = [
            format!("{origin}/.well-known/oauth-authorization-server{path}"),
            format!("{issuer}/.well-known/openid-configuration"),
        ];
        let mut why = Vec::new();
        for url in candidates {
            match self.get_json::<IssuerMetadata>(&url) {
                Ok(metadata) => {
                    if let Some(named) = &metadata.issuer
                        && named.trim_end_matches('/') != issuer
                    {
                        return Err(format!(
                            "{url} names issuer {named:?}, not the configured {issuer:?}"
                        ));
                    }
                    return Ok(metadata);
                }
                Err(e) => why.push(format!("{url}: {e}")),
            }
        }
        Err(why.join("; "))
    }

    async fn fetch_keys(self: &Arc<Self>) -> Result<Keys, String> {
        let metadata = self.metadata().await?;
        let uri = metadata
            .jwks_uri
            .clone()
            .ok_or("the issuer's metadata names no jwks_uri")?;
        let this = self.clone();
        let set = tokio::task::spawn_blocking(move || this.get_json::<JwkSet>(&uri))
            .await
            .map_err(|e| format!("key fetch stopped: {e}"))??;
        Ok(Keys {
            keys: set.keys,
            fetched: Instant::now(),
        })
    }

    fn get_json<T: serde::de::DeserializeOwned>(&self, url: &str) -> Result<T, String> {
        let response = self
            .agent
            .get(url)
            .header("Accept", "application/json")
            .call()
            .map_err(|e| e.to_string())?;
        read_json(response)
    }

    /// An opaque token's answer from the introspection endpoint, kept `cache_secs`
    /// (never past the token's own expiry).
    async fn introspect(self: &Arc<Self>, token: &str) -> Result<TokenIdentity, TokenRefused> {
        let Some(settings) = self.config.introspection.clone() else {
            return Err(refused("opaque tokens need oauth.introspection"));
        };
        let digest: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        {
            let mut cache = self.introspected.lock();
            let now = Instant::now();
            cache.retain(|_, c| c.until > now);
            if let Some(cached) = cache.get(&digest) {
                return cached.answer.clone();
            }
        }
        let keep = Duration::from_secs(settings.cache_secs);
        let endpoint = match settings.endpoint.clone() {
            Some(endpoint) => endpoint,
            None => self
                .metadata()
                .await
                .map_err(|why| refused(format!("cannot introspect the token: {why}")))?
                .introspection_endpoint
                .clone()
                .ok_or_else(|| refused("the issuer's metadata names no introspection_endpoint"))?,
        };
        let this = self.clone();
        let token_owned = token.to_owned();
        let answer = tokio::task::spawn_blocking(move || {
            this.ask_introspection(&endpoint, &settings, &token_owned)
        })
        .await
        .map_err(|e| refused(format!("introspection stopped: {e}")))?;
        let answer = match answer {
            Ok(answer) => answer,
            // The issuer's failure is not the token's: not kept.
            Err(why) => return Err(refused(format!("cannot introspect the token: {why}"))),
        };
        let checked = self.check_introspected(&answer);
        if !keep.is_zero() {
            let now = Instant::now();
            let mut until = now + keep;
            if let Some(exp) = answer.get("exp").and_then(|v| v.as_u64()) {
                let left = exp.saturating_sub(unix_now());
                until = until.min(now + Duration::from_secs(left));
            }
            let mut cache = self.introspected.lock();
            if cache.len() < 10_000 {
                cache.insert(
                    digest,
                    Cached {
                        until,
                        answer: checked.clone(),
                    },
                );
            }
        }
        checked
    }

    fn ask_introspection(
        &self,
        endpoint: &str,
        settings: &IntrospectionConfig,
        token: &str,
    ) -> Result<serde_json::Map<String, serde_json::Value>, String> {
        use base64::Engine as _;
        let credentials = format!(
            "{}:{}",
            form_encode(&settings.client_id),
            form_encode(&settings.client_secret)
        );
        let basic = base64::engine::general_purpose::STANDARD.encode(credentials);
        let response = self
            .agent
            .post(endpoint)
            .header("Accept", "application/json")
            .header("Authorization", &format!("Basic {basic}"))
            .send_form([("token", token), ("token_type_hint", "access_token")])
            .map_err(|e| e.to_string())?;
        read_json(response)
    }

    fn check_introspected(
        &self,
        answer: &serde_json::Map<String, serde_json::Value>,
    ) -> Result<TokenIdentity, TokenRefused> {
        if answer.get("active").and_then(|v| v.as_bool()) != Some(true) {
            return Err(refused("the token is not active (expired or revoked)"));
        }
        let now = unix_now();
        if let Some(exp) = answer.get("exp").and_then(|v| v.as_u64())
            && exp + self.config.leeway_secs < now
        {
            return Err(refused("the token has expired"));
        }
        if let Some(iss) = answer.get("iss").and_then(|v| v.as_str())
            && iss.trim_end_matches('/') != self.config.issuer.trim_end_matches('/')
        {
            return Err(refused(format!("the token was issued by {iss:?}")));
        }
        // A token must be issued for this server (RFC 8707; the MCP authorization spec):
        // an introspection answer that names no audience says nothing of that, so it is
        // refused, as a JWT without `aud` is.
        let Some(aud) = answer.get("aud") else {
            return Err(refused(format!(
                "the introspected token names no audience (\"aud\"); ask for it with resource={}",
                self.config.resource
            )));
        };
        let audiences = self.config.audiences();
        let named: Vec<&str> = match aud {
            serde_json::Value::String(s) => vec![s.as_str()],
            serde_json::Value::Array(items) => items.iter().filter_map(|v| v.as_str()).collect(),
            _ => Vec::new(),
        };
        if !named.iter().any(|a| audiences.iter().any(|b| a == b)) {
            return Err(refused(format!(
                "the token is for {named:?}, not for {}",
                self.config.resource
            )));
        }
        Ok(self.identity(answer))
    }
}

fn refused(message: impl Into<String>) -> TokenRefused {
    TokenRefused(message.into())
}

fn jwt_error(error: &jsonwebtoken::errors::Error) -> String {
    use jsonwebtoken::errors::ErrorKind::*;
    match error.kind() {
        ExpiredSignature => "the token has expired".into(),
        ImmatureSignature => "the token is not valid yet (nbf)".into(),
        InvalidAudience => "the token is not for this server (aud)".into(),
        InvalidIssuer => "the token was issued by another authorization server (iss)".into(),
        InvalidSignature => "the token's signature does not verify".into(),
        MissingRequiredClaim(claim) => format!("the token has no {claim:?} claim"),
        InvalidAlgorithm => "the token's algorithm does not match the issuer's key".into(),
        other => format!("the token cannot be read: {other:?}"),
    }
}

fn read_json<T: serde::de::DeserializeOwned>(
    mut response: ureq::http::Response<ureq::Body>,
) -> Result<T, String> {
    let status = response.status();
    if !status.is_success() {
        return Err(format!("HTTP {status}"));
    }
    let text = response
        .body_mut()
        .with_config()
        .limit(MAX_FETCH_BYTES)
        .read_to_string()
        .map_err(|e| e.to_string())?;
    serde_json::from_str(&text).map_err(|e| format!("not the JSON expected: {e}"))
}

/// `url`'s origin as a CSP source (`https://host:port`), or None when it is not a plain
/// http(s) URL: a value from configuration or an issuer's metadata must not be able to add
/// directives to the policy.
fn csp_origin(url: &str) -> Option<String> {
    let (origin, _) = split_origin(url);
    let host = origin
        .strip_prefix("https://")
        .or_else(|| origin.strip_prefix("http://"))?;
    let plain = !host.is_empty()
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-.:[]".contains(&b));
    plain.then(|| origin.to_ascii_lowercase())
}

/// `https://host:port` and the rest of a URL.
fn split_origin(url: &str) -> (&str, &str) {
    let after_scheme = url.find("://").map_or(0, |i| i + 3);
    match url[after_scheme..].find('/') {
        Some(i) => url.split_at(after_scheme + i),
        None => (url, ""),
    }
}

/// `application/x-www-form-urlencoded` encoding of a client id or secret (RFC 6749
/// §2.3.1: encoded before they go into Basic credentials).
fn form_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'*' => {
                out.push(b as char)
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> OAuthConfig {
        serde_json::from_value(serde_json::json!({
            "issuer": "http://127.0.0.1:9/realm",
            "resource": "https://strata.example.com/",
        }))
        .unwrap()
    }

    #[test]
    fn configuration_is_checked() {
        assert!(config().validate().is_ok());
        let mut bad = config();
        bad.issuer = "http://auth.example.com".into();
        assert!(bad.validate().unwrap_err().contains("https"));
        let mut bad = config();
        bad.algorithms = vec!["HS256".into()];
        assert!(bad.validate().unwrap_err().contains("HS256"));
        let mut bad = config();
        bad.resource = "not a url".into();
        assert!(bad.validate().is_err());
    }

    #[test]
    fn only_plain_origins_go_into_the_console_policy() {
        assert_eq!(
            csp_origin("https://Auth.example.com:8443/realms/acme/protocol/token").as_deref(),
            Some("https://auth.example.com:8443")
        );
        assert_eq!(
            csp_origin("http://127.0.0.1:9000").as_deref(),
            Some("http://127.0.0.1:9000")
        );
        for bad in [
            "https://a.example; script-src *",
            "javascript:alert(1)",
            "https://user@host.example/",
            "https:// spaced.example/",
            "ftp://files.example/",
            "https://",
        ] {
            assert_eq!(csp_origin(bad), None, "{bad}");
        }
    }

    #[test]
    fn metadata_names_the_resource_and_the_issuer() {
        let config = config();
        let whole = config.metadata(false);
        assert_eq!(whole["resource"], "https://strata.example.com/");
        assert_eq!(
            whole["authorization_servers"][0],
            "http://127.0.0.1:9/realm"
        );
        assert_eq!(
            config.metadata(true)["resource"],
            "https://strata.example.com/mcp"
        );
        assert_eq!(
            config.metadata_url(true),
            "https://strata.example.com/.well-known/oauth-protected-resource/mcp"
        );
        assert_eq!(
            split_origin("https://a.example:8443/realms/x"),
            ("https://a.example:8443", "/realms/x")
        );
        assert_eq!(form_encode("a b:c"), "a+b%3Ac");
    }

    #[tokio::test]
    async fn bad_tokens_are_refused_without_asking_anyone() {
        let validator = Arc::new(Validator::new(config()));
        let huge = "a".repeat(MAX_TOKEN_BYTES + 1);
        for token in ["", "opaque-token", huge.as_str(), "x.y.z"] {
            assert!(validator.validate(token).await.is_err(), "{token:.20}");
        }
        // alg none: the header parses as JSON but the algorithm is not accepted.
        let none = format!(
            "{}.{}.",
            b64(r#"{"alg":"none","typ":"JWT"}"#),
            b64(r#"{"sub":"x"}"#)
        );
        let why = validator.validate(&none).await.unwrap_err().0;
        assert!(why.contains("JWT"), "{why}");
        let hs = format!("{}.{}.sig", b64(r#"{"alg":"HS256"}"#), b64("{}"));
        let why = validator.validate(&hs).await.unwrap_err().0;
        assert!(why.contains("not accepted"), "{why}");
        assert!(validator.introspected.lock().is_empty());
    }

    fn b64(text: &str) -> String {
        use base64::Engine as _;
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(text)
    }
}
