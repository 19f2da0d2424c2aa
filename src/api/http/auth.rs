//! Bearer API keys: who is calling, and may they do this to that graph.

use crate::error::ErrorCode;
use axum::http::{HeaderMap, header};
use sha2::{Digest, Sha256};

use super::config::{ApiKeyConfig, HttpConfig, Scope};
use super::error::HttpError;

/// What a request's key allows: its scopes and the graphs it may touch. Without API keys
/// (loopback only) every request has every right.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rights {
    pub write: bool,
    /// Creating and deleting graphs, changing the control graphs (shapes, search index
    /// declarations).
    pub admin: bool,
    /// Graphs the key may touch; `None`: all.
    pub graphs: Option<Vec<String>>,
}

impl Rights {
    fn full() -> Self {
        Self {
            write: true,
            admin: true,
            graphs: None,
        }
    }

    fn of(key: &ApiKeyConfig) -> Self {
        Self {
            write: key.scopes.contains(&Scope::Write),
            admin: key.scopes.contains(&Scope::Admin),
            graphs: key.graphs.clone(),
        }
    }

    /// Whether the key may see `graph` at all (listings leave the others out).
    pub fn sees(&self, graph: &str) -> bool {
        self.graphs
            .as_ref()
            .is_none_or(|graphs| graphs.iter().any(|g| g == graph))
    }
}

/// Checks the request's bearer key for `scope` on `graph` (`None`: not about one graph),
/// and returns what the key allows (writes pass `admin` on to the engine).
/// With no keys configured (loopback only), every request is allowed.
pub fn authorize(
    config: &HttpConfig,
    headers: &HeaderMap,
    scope: Scope,
    graph: Option<&str>,
) -> Result<Rights, HttpError> {
    if config.api_keys.is_empty() {
        return Ok(Rights::full());
    }
    let key = find_key(config, headers)?;
    if !key.scopes.contains(&scope) {
        return Err(HttpError::new(
            ErrorCode::Forbidden,
            format!("API key {:?} lacks the {scope:?} scope", key.name).to_lowercase(),
        ));
    }
    let rights = Rights::of(key);
    if let Some(graph) = graph
        && !rights.sees(graph)
    {
        return Err(HttpError::new(
            ErrorCode::Forbidden,
            format!("API key {:?} may not access graph {graph:?}", key.name),
        ));
    }
    Ok(rights)
}

/// What the request's key allows, for MCP tools (all, without keys).
pub fn access(config: &HttpConfig, headers: &HeaderMap) -> crate::api::mcp::McpAccess {
    let rights = if config.api_keys.is_empty() {
        Rights::full()
    } else {
        find_key(config, headers).map_or(
            Rights {
                write: false,
                admin: false,
                graphs: Some(Vec::new()),
            },
            Rights::of,
        )
    };
    crate::api::mcp::McpAccess {
        write: rights.write,
        admin: rights.admin,
        graphs: rights.graphs,
    }
}

/// Checks only that the request carries a valid key (any scope); returns what it allows.
pub fn authenticate(config: &HttpConfig, headers: &HeaderMap) -> Result<Rights, HttpError> {
    if config.api_keys.is_empty() {
        return Ok(Rights::full());
    }
    find_key(config, headers).map(Rights::of)
}

/// What the request's key allows, or nothing when it has no valid key (for middleware
/// that only narrows what a response says).
pub fn rights_or_none(config: &HttpConfig, headers: &HeaderMap) -> Rights {
    authenticate(config, headers).unwrap_or(Rights {
        write: false,
        admin: false,
        graphs: Some(Vec::new()),
    })
}

fn find_key<'a>(
    config: &'a HttpConfig,
    headers: &HeaderMap,
) -> Result<&'a ApiKeyConfig, HttpError> {
    let unauthorized = |message: &str| HttpError::new(ErrorCode::Unauthorized, message.to_owned());
    let value = headers
        .get(header::AUTHORIZATION)
        .ok_or_else(|| unauthorized("missing Authorization: Bearer <api key>"))?;
    let presented = value
        .to_str()
        .ok()
        .and_then(|v| {
            v.strip_prefix("Bearer ")
                .or_else(|| v.strip_prefix("bearer "))
        })
        .map(str::trim)
        .ok_or_else(|| unauthorized("the Authorization header must be Bearer <api key>"))?;
    let digest = hash_key(presented);
    config
        .api_keys
        .iter()
        .find(|k| constant_time_eq(k.sha256.as_bytes(), digest.as_bytes()))
        .ok_or_else(|| unauthorized("unknown API key"))
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
    use axum::http::StatusCode;

    fn config() -> HttpConfig {
        HttpConfig {
            api_keys: vec![
                ApiKeyConfig {
                    name: "reader".into(),
                    sha256: hash_key("r-key"),
                    scopes: vec![Scope::Read],
                    graphs: Some(vec!["main".into()]),
                },
                ApiKeyConfig {
                    name: "admin".into(),
                    sha256: hash_key("a-key"),
                    scopes: vec![Scope::Read, Scope::Write, Scope::Admin],
                    graphs: None,
                },
            ],
            ..HttpConfig::default()
        }
    }

    fn headers(key: Option<&str>) -> HeaderMap {
        let mut headers = HeaderMap::new();
        if let Some(key) = key {
            headers.insert(
                header::AUTHORIZATION,
                format!("Bearer {key}").parse().unwrap(),
            );
        }
        headers
    }

    #[test]
    fn keys_scopes_and_graphs_are_enforced() {
        let config = config();
        let check = |key, scope, graph| {
            authorize(&config, &headers(key), scope, graph)
                .map(|_| ())
                .map_err(|e| e.status)
        };
        assert_eq!(
            check(None, Scope::Read, Some("main")),
            Err(StatusCode::UNAUTHORIZED)
        );
        assert_eq!(
            check(Some("wrong"), Scope::Read, Some("main")),
            Err(StatusCode::UNAUTHORIZED)
        );
        assert_eq!(check(Some("r-key"), Scope::Read, Some("main")), Ok(()));
        assert_eq!(
            check(Some("r-key"), Scope::Write, Some("main")),
            Err(StatusCode::FORBIDDEN)
        );
        assert_eq!(
            check(Some("r-key"), Scope::Read, Some("other")),
            Err(StatusCode::FORBIDDEN)
        );
        assert_eq!(check(Some("a-key"), Scope::Admin, None), Ok(()));
        let open = HttpConfig::default();
        assert!(authorize(&open, &headers(None), Scope::Admin, None).is_ok());
    }

    #[test]
    fn rights_carry_the_admin_scope_and_the_graph_limit() {
        let config = config();
        let reader = authorize(&config, &headers(Some("r-key")), Scope::Read, Some("main"))
            .map_err(|e| e.status);
        assert_eq!(
            reader,
            Ok(Rights {
                write: false,
                admin: false,
                graphs: Some(vec!["main".into()]),
            })
        );
        let admin = authenticate(&config, &headers(Some("a-key"))).map_err(|e| e.status);
        assert_eq!(admin.as_ref().map(|r| r.admin), Ok(true));
        assert!(admin.as_ref().is_ok_and(|r| r.sees("anything")));
        assert!(!rights_or_none(&config, &headers(Some("r-key"))).sees("other"));
        assert!(!rights_or_none(&config, &headers(Some("wrong"))).sees("main"));
        let open = HttpConfig::default();
        assert_eq!(
            authenticate(&open, &headers(None)).map_err(|e| e.status),
            Ok(Rights::full())
        );
        let mcp = access(&config, &headers(Some("r-key")));
        assert!(!mcp.write && !mcp.admin);
    }
}
