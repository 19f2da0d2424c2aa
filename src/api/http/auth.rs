//! Bearer API keys: who is calling, and may they do this to that graph.

use axum::http::{HeaderMap, StatusCode, header};
use sha2::{Digest, Sha256};

use super::config::{ApiKeyConfig, HttpConfig, Scope};
use super::error::HttpError;

/// Checks the request's bearer key for `scope` on `graph` (`None`: not about one graph).
/// With no keys configured (loopback only), every request is allowed.
pub fn authorize(
    config: &HttpConfig,
    headers: &HeaderMap,
    scope: Scope,
    graph: Option<&str>,
) -> Result<(), HttpError> {
    if config.api_keys.is_empty() {
        return Ok(());
    }
    let key = find_key(config, headers)?;
    if !key.scopes.contains(&scope) {
        return Err(HttpError::new(
            StatusCode::FORBIDDEN,
            "forbidden",
            format!("API key {:?} lacks the {scope:?} scope", key.name).to_lowercase(),
        ));
    }
    if let (Some(graph), Some(allowed)) = (graph, &key.graphs)
        && !allowed.iter().any(|g| g == graph)
    {
        return Err(HttpError::new(
            StatusCode::FORBIDDEN,
            "forbidden",
            format!("API key {:?} may not access graph {graph:?}", key.name),
        ));
    }
    Ok(())
}

/// What the request's key allows, for MCP tools (all, without keys).
pub fn access(config: &HttpConfig, headers: &HeaderMap) -> crate::api::mcp::McpAccess {
    if config.api_keys.is_empty() {
        return crate::api::mcp::McpAccess {
            write: true,
            graphs: None,
        };
    }
    match find_key(config, headers) {
        Ok(key) => crate::api::mcp::McpAccess {
            write: key.scopes.contains(&Scope::Write),
            graphs: key.graphs.clone(),
        },
        Err(_) => crate::api::mcp::McpAccess {
            write: false,
            graphs: Some(Vec::new()),
        },
    }
}

/// Checks only that the request carries a valid key (any scope).
pub fn authenticate(config: &HttpConfig, headers: &HeaderMap) -> Result<(), HttpError> {
    if config.api_keys.is_empty() {
        return Ok(());
    }
    find_key(config, headers).map(|_| ())
}

fn find_key<'a>(
    config: &'a HttpConfig,
    headers: &HeaderMap,
) -> Result<&'a ApiKeyConfig, HttpError> {
    let unauthorized = |message: &str| {
        HttpError::new(StatusCode::UNAUTHORIZED, "unauthorized", message.to_owned())
    };
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
            authorize(&config, &headers(key), scope, graph).map_err(|e| e.status)
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
}
