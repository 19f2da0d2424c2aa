//! What every request goes through: Host and Origin allow-lists (DNS-rebinding
//! protection), the request timeout, metrics and one log line.

use std::time::Instant;

use axum::extract::{MatchedPath, Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::AppState;
use super::error::HttpError;

/// Rejects requests whose Host or Origin is not allowed (403), and requests whose
/// declared `Content-Length` is over the body limit (413, before the body is read).
pub async fn guard(State(state): State<AppState>, request: Request, next: Next) -> Response {
    if let Err(error) = check_host_and_origin(&state, &request) {
        return error.into_response();
    }
    if axum::body::HttpBody::size_hint(request.body()).lower()
        > state.config.body_limit_bytes as u64
    {
        return super::params::too_large(state.config.body_limit_bytes).into_response();
    }
    next.run(request).await
}

fn check_host_and_origin(state: &AppState, request: &Request) -> Result<(), HttpError> {
    let headers = request.headers();
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .or_else(|| request.uri().authority().map(|a| a.as_str()))
        .unwrap_or("");
    let host_name = strip_port(host);
    if !state
        .allowed_hosts
        .iter()
        .any(|allowed| allowed == host || allowed == host_name)
    {
        return Err(HttpError::new(
            StatusCode::FORBIDDEN,
            "host_not_allowed",
            format!("Host {host:?} is not allowed; add it to allowed_hosts"),
        ));
    }
    if let Some(origin) = headers.get(header::ORIGIN).and_then(|o| o.to_str().ok()) {
        let origin_host = origin
            .split_once("://")
            .map(|(_, rest)| rest.trim_end_matches('/'))
            .unwrap_or("");
        let same_site = state
            .allowed_hosts
            .iter()
            .any(|allowed| allowed == origin_host || allowed == strip_port(origin_host));
        let listed = state
            .config
            .allowed_origins
            .iter()
            .chain(&state.config.cors_origins)
            .any(|o| o == origin);
        if !same_site && !listed {
            return Err(HttpError::new(
                StatusCode::FORBIDDEN,
                "origin_not_allowed",
                format!(
                    "Origin {origin:?} is not allowed; add it to allowed_origins or cors_origins"
                ),
            ));
        }
    }
    Ok(())
}

/// `host:port` → `host`, keeping bracketed IPv6 addresses whole.
fn strip_port(host: &str) -> &str {
    if let Some(rest) = host.strip_prefix('[') {
        return rest.split_once(']').map_or(host, |(ip, _)| ip);
    }
    match host.rsplit_once(':') {
        Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
        _ => host,
    }
}

/// Bounds the time to a response head (408), counts and logs the request.
pub async fn observe(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = request.method().to_string();
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "unmatched".to_owned(), |p| p.as_str().to_owned());
    let timeout = state.config.request_timeout();
    let response = match tokio::time::timeout(timeout, next.run(request)).await {
        Ok(response) => response,
        Err(_) => HttpError::new(
            StatusCode::REQUEST_TIMEOUT,
            "request_timeout",
            format!("no response within {timeout:?}"),
        )
        .into_response(),
    };
    let elapsed = started.elapsed();
    let status = response.status().as_u16();
    state
        .metrics
        .record_request(&method, &route, status, elapsed);
    tracing::info!(
        target: "strata::http",
        %method,
        route = %route,
        status,
        micros = elapsed.as_micros() as u64,
        "request"
    );
    response
}

#[cfg(test)]
mod tests {
    use super::strip_port;

    #[test]
    fn ports_are_stripped_from_hosts() {
        assert_eq!(strip_port("localhost:7878"), "localhost");
        assert_eq!(strip_port("127.0.0.1"), "127.0.0.1");
        assert_eq!(strip_port("[::1]:80"), "::1");
        assert_eq!(strip_port("example.org"), "example.org");
    }
}
