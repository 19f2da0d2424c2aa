//! Who is calling, and may they do this to that graph.
//!
//! A request's identity is decided once, by `identify` (a middleware around every
//! route): an API key from the configuration, an OAuth access token checked by
//! `oauth::Validator`, or nobody. Handlers then ask `authorize(&caller, right, graph)`.
//! Without API keys and OAuth (loopback only) every request has every right.

use axum::extract::{FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};

pub use crate::api::access::{Right, Rights};
use crate::error::ErrorCode;

use super::AppState;
use super::config::{ApiKeyConfig, HttpConfig};
use super::error::HttpError;
use super::oauth::TokenIdentity;

/// Who made a request and what they may do.
#[derive(Clone, Debug)]
pub struct Caller {
    pub rights: Rights,
    pub who: Who,
    /// Why the request has no rights, when credentials are required and it has none
    /// that work (answered with 401 by the first `authorize`).
    refused: Option<Refusal>,
}

/// The identity, for logs and audit lines (never a secret).
#[derive(Clone, Debug)]
pub enum Who {
    /// No sign-in configured: the loopback server's owner.
    Open,
    Key(String),
    Token {
        subject: Option<String>,
        client: Option<String>,
    },
    /// No valid credentials.
    Nobody,
}

impl std::fmt::Display for Who {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Who::Open => f.write_str("-"),
            Who::Nobody => f.write_str("anonymous"),
            Who::Key(name) => write!(f, "key:{name}"),
            Who::Token { subject, client } => write!(
                f,
                "token:{}@{}",
                subject.as_deref().unwrap_or("?"),
                client.as_deref().unwrap_or("?")
            ),
        }
    }
}

impl Who {
    /// `{"key": name}`, `{"subject", "client"}`, or null.
    pub fn json(&self) -> serde_json::Value {
        match self {
            Who::Open | Who::Nobody => serde_json::Value::Null,
            Who::Key(name) => serde_json::json!({ "key": name }),
            Who::Token { subject, client } => {
                serde_json::json!({ "subject": subject, "client": client })
            }
        }
    }
}

#[derive(Clone, Debug)]
struct Refusal {
    message: String,
    /// A token was presented and refused (the challenge says `error="invalid_token"`).
    invalid_token: bool,
}

impl Caller {
    pub fn open() -> Self {
        Self {
            rights: Rights::full(),
            who: Who::Open,
            refused: None,
        }
    }

    fn key(key: &ApiKeyConfig) -> Self {
        Self {
            rights: Rights::of_key(&key.scopes, key.graphs.as_deref()),
            who: Who::Key(key.name.clone()),
            refused: None,
        }
    }

    fn token(identity: TokenIdentity) -> Self {
        Self {
            rights: identity.rights,
            who: Who::Token {
                subject: identity.subject,
                client: identity.client,
            },
            refused: None,
        }
    }

    fn nobody(message: impl Into<String>, invalid_token: bool) -> Self {
        Self {
            rights: Rights::none(),
            who: Who::Nobody,
            refused: Some(Refusal {
                message: message.into(),
                invalid_token,
            }),
        }
    }

    fn signed_in_with_token(&self) -> bool {
        matches!(self.who, Who::Token { .. })
    }

    /// The caller's word for error messages.
    fn credential(&self) -> String {
        match &self.who {
            Who::Key(name) => format!("API key {name:?}"),
            Who::Token { .. } => "the access token".to_owned(),
            Who::Open | Who::Nobody => "the caller".to_owned(),
        }
    }
}

impl<S: Send + Sync> FromRequestParts<S> for Caller {
    type Rejection = HttpError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        parts.extensions.get::<Caller>().cloned().ok_or_else(|| {
            HttpError::new(
                ErrorCode::Internal,
                "the request's caller was not identified",
            )
        })
    }
}

/// Checks that `caller` may do `right` to `graph` (`None`: not about one graph), and
/// returns what it may do (writes pass the admin right on to the engine).
pub fn authorize(caller: &Caller, right: Right, graph: Option<&str>) -> Result<Rights, HttpError> {
    if let Some(refusal) = &caller.refused {
        return Err(HttpError::new(
            ErrorCode::Unauthorized,
            refusal.message.clone(),
        ));
    }
    if !caller.rights.grant(right).any() {
        return Err(forbidden(
            caller,
            right,
            graph,
            format!("{} lacks the {} scope", caller.credential(), right.name()),
        ));
    }
    if let Some(graph) = graph
        && !caller.rights.allows(right, Some(graph))
    {
        let message = if caller.rights.sees(graph) {
            format!(
                "{} may not {} graph {graph:?}",
                caller.credential(),
                match right {
                    Right::Read => "read",
                    Right::Write => "write to",
                    Right::Admin => "administer",
                }
            )
        } else {
            format!("{} may not access graph {graph:?}", caller.credential())
        };
        return Err(forbidden(caller, right, graph.into(), message));
    }
    Ok(caller.rights.clone())
}

/// Checks only that the request carries valid credentials; returns what they allow.
pub fn authenticate(caller: &Caller) -> Result<Rights, HttpError> {
    match &caller.refused {
        Some(refusal) => Err(HttpError::new(
            ErrorCode::Unauthorized,
            refusal.message.clone(),
        )),
        None => Ok(caller.rights.clone()),
    }
}

fn forbidden(caller: &Caller, right: Right, graph: Option<&str>, message: String) -> HttpError {
    let mut error = HttpError::new(ErrorCode::Forbidden, message);
    if caller.signed_in_with_token() {
        error.scope_needed = Some(Rights::scope_for(right, graph));
    }
    error
}

/// The scope a `403` asks the client to get (put in the response by `HttpError`).
#[derive(Clone, Debug)]
pub struct ScopeNeeded(pub String);

/// Decides who the request is from (see the module comment), and gives `401` and `403`
/// answers the `WWW-Authenticate` challenge clients sign in from.
pub async fn identify(State(state): State<AppState>, mut request: Request, next: Next) -> Response {
    let caller = identify_request(&state, request.headers()).await;
    let is_mcp = request.uri().path().starts_with("/mcp");
    if let (Some(refusal), true) = (&caller.refused, is_mcp) {
        // `/mcp` is answered by the MCP transport, which knows nothing of this: refuse
        // here, before a session starts.
        let error = HttpError::new(ErrorCode::Unauthorized, refusal.message.clone());
        return challenge(&state, &caller, error.into_response(), true);
    }
    request.extensions_mut().insert(caller.clone());
    let mut response = next.run(request).await;
    // For the request log line (`middleware::observe`).
    response.extensions_mut().insert(caller.who.clone());
    challenge(&state, &caller, response, is_mcp)
}

async fn identify_request(state: &AppState, headers: &axum::http::HeaderMap) -> Caller {
    let config = &state.config;
    if config.api_keys.is_empty() && state.oauth.is_none() {
        return Caller::open();
    }
    let what = if state.oauth.is_some() {
        "<api key or access token>"
    } else {
        "<api key>"
    };
    let Some(value) = headers.get(header::AUTHORIZATION) else {
        return Caller::nobody(format!("missing Authorization: Bearer {what}"), false);
    };
    let presented = value.to_str().ok().and_then(|v| {
        let (scheme, rest) = v.split_once(' ')?;
        scheme.eq_ignore_ascii_case("bearer").then(|| rest.trim())
    });
    let Some(presented) = presented else {
        return Caller::nobody(
            format!("the Authorization header must be Bearer {what}"),
            false,
        );
    };
    if let Some(key) = find_key(config, presented) {
        return Caller::key(key);
    }
    match &state.oauth {
        Some(validator) => match validator.validate(presented).await {
            Ok(identity) => Caller::token(identity),
            Err(refused) => Caller::nobody(refused.0, true),
        },
        None => Caller::nobody("unknown API key", false),
    }
}

/// A `401` gets `WWW-Authenticate: Bearer` with the metadata URL (and `invalid_token`
/// when a token was refused); a `403` for a token lacking a scope gets
/// `error="insufficient_scope"` and the scope to ask for.
fn challenge(state: &AppState, caller: &Caller, mut response: Response, mcp: bool) -> Response {
    let status = response.status();
    if status != StatusCode::UNAUTHORIZED && status != StatusCode::FORBIDDEN {
        return response;
    }
    let scope_needed = response.extensions_mut().remove::<ScopeNeeded>();
    let mut params: Vec<String> = Vec::new();
    match &state.oauth {
        Some(validator) => {
            let config = validator.config();
            if status == StatusCode::UNAUTHORIZED {
                if caller.refused.as_ref().is_some_and(|r| r.invalid_token) {
                    params.push("error=\"invalid_token\"".into());
                }
                params.push(format!(
                    "resource_metadata=\"{}\"",
                    config.metadata_url(mcp)
                ));
                // What an agent usually needs; the authorization server decides what
                // the person may have, and a 403 names any scope still missing.
                params.push("scope=\"strata:read strata:write\"".into());
            } else if let Some(ScopeNeeded(scope)) = scope_needed {
                params.push("error=\"insufficient_scope\"".into());
                params.push(format!("scope=\"{scope}\""));
                params.push(format!(
                    "resource_metadata=\"{}\"",
                    config.metadata_url(mcp)
                ));
            } else {
                return response;
            }
        }
        None if status == StatusCode::UNAUTHORIZED => params.push("realm=\"strata\"".into()),
        None => return response,
    }
    let value = format!("Bearer {}", params.join(", "));
    if let Ok(value) = HeaderValue::from_str(&value) {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, value);
    }
    response
}

fn find_key<'a>(config: &'a HttpConfig, presented: &str) -> Option<&'a ApiKeyConfig> {
    if config.api_keys.is_empty() {
        return None;
    }
    let digest = hash_key(presented);
    config
        .api_keys
        .iter()
        .find(|k| constant_time_eq(k.sha256.as_bytes(), digest.as_bytes()))
}

/// The hex SHA-256 of a key, as stored in the configuration.
pub fn hash_key(key: &str) -> String {
    crate::model::CommitHash(Sha256::digest(key.as_bytes()).into()).to_hex()
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> HttpConfig {
        HttpConfig {
            api_keys: vec![
                ApiKeyConfig {
                    name: "reader".into(),
                    sha256: hash_key("r-key"),
                    scopes: vec![Right::Read],
                    graphs: Some(vec!["main".into()]),
                },
                ApiKeyConfig {
                    name: "admin".into(),
                    sha256: hash_key("a-key"),
                    scopes: vec![Right::Read, Right::Write, Right::Admin],
                    graphs: None,
                },
            ],
            ..HttpConfig::default()
        }
    }

    fn caller(config: &HttpConfig, key: Option<&str>) -> Caller {
        match key {
            None => Caller::nobody("missing", false),
            Some(key) => {
                find_key(config, key).map_or_else(|| Caller::nobody("unknown", false), Caller::key)
            }
        }
    }

    #[test]
    fn keys_scopes_and_graphs_are_enforced() {
        let config = config();
        let check = |key, right, graph| {
            authorize(&caller(&config, key), right, graph)
                .map(|_| ())
                .map_err(|e| (e.status, e.scope_needed))
        };
        assert_eq!(
            check(None, Right::Read, Some("main")),
            Err((StatusCode::UNAUTHORIZED, None))
        );
        assert_eq!(
            check(Some("wrong"), Right::Read, Some("main")),
            Err((StatusCode::UNAUTHORIZED, None))
        );
        assert_eq!(check(Some("r-key"), Right::Read, Some("main")), Ok(()));
        assert_eq!(
            check(Some("r-key"), Right::Write, Some("main")),
            Err((StatusCode::FORBIDDEN, None))
        );
        assert_eq!(
            check(Some("r-key"), Right::Read, Some("other")),
            Err((StatusCode::FORBIDDEN, None))
        );
        assert_eq!(check(Some("a-key"), Right::Admin, None), Ok(()));
        assert!(authorize(&Caller::open(), Right::Admin, None).is_ok());
    }

    #[test]
    fn tokens_lacking_a_scope_are_told_which_to_ask_for() {
        let token = Caller::token(TokenIdentity {
            subject: Some("alice".into()),
            client: Some("agent".into()),
            rights: Rights::of_scopes(["strata:read"]),
        });
        assert!(authorize(&token, Right::Read, Some("main")).is_ok());
        let refused = authorize(&token, Right::Write, Some("main")).unwrap_err();
        assert_eq!(refused.status, StatusCode::FORBIDDEN);
        assert_eq!(refused.scope_needed.as_deref(), Some("strata:write:main"));
        assert_eq!(token.who.json()["subject"], "alice");
    }

    #[test]
    fn rights_carry_the_admin_scope_and_the_graph_limit() {
        let config = config();
        let reader = authorize(&caller(&config, Some("r-key")), Right::Read, Some("main"))
            .map_err(|e| e.status);
        assert_eq!(
            reader,
            Ok(Rights::of_key(&[Right::Read], Some(&["main".to_owned()])))
        );
        let admin = authenticate(&caller(&config, Some("a-key"))).map_err(|e| e.status);
        assert_eq!(admin.as_ref().map(|r| r.admin_on("x")), Ok(true));
        assert!(admin.as_ref().is_ok_and(|r| r.sees("anything")));
        assert!(!caller(&config, Some("r-key")).rights.sees("other"));
        assert!(!caller(&config, Some("wrong")).rights.sees("main"));
        assert_eq!(
            authenticate(&Caller::open()).map_err(|e| e.status),
            Ok(Rights::full())
        );
    }
}
