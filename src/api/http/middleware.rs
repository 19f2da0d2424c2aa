//! What every request goes through: Host and Origin allow-lists (DNS-rebinding
//! protection), the request timeout, coded error bodies, metrics and one log line.

use crate::error::ErrorCode;
use std::time::Instant;

use axum::extract::{MatchedPath, Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::AppState;
use super::error::{HttpError, MissingGraph};

/// Narrows a `graph_not_found` answer, which names the graphs that exist, to the graphs
/// the request's key may see: a graph-limited key never learns the others' names.
pub async fn hide_other_graphs(request: Request, next: Next) -> Response {
    let rights = request
        .extensions()
        .get::<super::auth::Caller>()
        .map_or_else(super::auth::Rights::none, |c| c.rights.clone());
    let response = next.run(request).await;
    let Some(missing) = response.extensions().get::<MissingGraph>().cloned() else {
        return response;
    };
    if rights.sees_all() {
        return response;
    }
    missing.response_for(|graph| rights.sees(graph))
}

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
    match decoded_body(&state, request).await {
        Ok(request) => next.run(request).await,
        Err(error) => error.into_response(),
    }
}

/// The request with a `Content-Encoding: gzip` body decoded as it arrives, before any
/// handler reads it: the compressed body and the decoded one are each held to the body
/// limit (a small gzip can expand a thousandfold), and an import parses the decoded
/// bytes while the client still sends. `identity` is no coding; any other is refused
/// (415) rather than read as if it were plain.
async fn decoded_body(state: &AppState, request: Request) -> Result<Request, HttpError> {
    let Some(value) = request.headers().get(header::CONTENT_ENCODING) else {
        return Ok(request);
    };
    let codings: Vec<String> = value
        .to_str()
        .unwrap_or("?")
        .split(',')
        .map(|c| c.trim().to_ascii_lowercase())
        .filter(|c| !c.is_empty() && c != "identity")
        .collect();
    let (mut parts, body) = request.into_parts();
    parts.headers.remove(header::CONTENT_ENCODING);
    match codings.as_slice() {
        [] => return Ok(Request::from_parts(parts, body)),
        [gzip] if gzip == "gzip" || gzip == "x-gzip" => {}
        _ => {
            return Err(HttpError {
                param: Some("Content-Encoding".into()),
                ..HttpError::new(
                    ErrorCode::UnsupportedMediaType,
                    format!(
                        "request bodies coded {:?} are not accepted: send gzip or no coding",
                        codings.join(", ")
                    ),
                )
            });
        }
    }
    let limit = state.config.body_limit_bytes;
    let compressed = super::params::stream_body(body, limit).await?;
    let (sender, decoded) = tokio::sync::mpsc::channel(DECODED_CHUNKS_AHEAD);
    tokio::task::spawn_blocking(move || gunzip(compressed, limit, sender));
    // The decoded length is not known until the end.
    parts.headers.remove(header::CONTENT_LENGTH);
    let decoded = tokio_stream::wrappers::ReceiverStream::new(decoded);
    Ok(Request::from_parts(
        parts,
        axum::body::Body::from_stream(decoded),
    ))
}

/// Decoded chunks of a gzip body read ahead of the handler.
const DECODED_CHUNKS_AHEAD: usize = 8;
/// Bytes per decoded chunk.
const DECODED_CHUNK: usize = 64 << 10;

type DecodedChunk = Result<axum::body::Bytes, super::params::BodyFault>;

/// Decodes a gzip body (one member or several) into `sender`, at most `limit` bytes of
/// it; stops at the first fault (sent as the chunk stream's error) or when the handler
/// stops reading.
fn gunzip(
    compressed: super::params::BodyStream,
    limit: usize,
    sender: tokio::sync::mpsc::Sender<DecodedChunk>,
) {
    use super::params::BodyFault;
    use std::io::Read;
    let mut decoder = flate2::read::MultiGzDecoder::new(compressed);
    let mut decoded = 0usize;
    loop {
        let mut chunk = vec![0; DECODED_CHUNK];
        let n = match decoder.read(&mut chunk) {
            Ok(0) => return,
            Ok(n) => n,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(error) => {
                // A compressed body over the limit or cut is that; anything else is a
                // body that is not gzip.
                let fault = decoder.get_mut().fault().unwrap_or_else(|| {
                    HttpError::bad_param(
                        "body",
                        format!("the gzip request body could not be decoded: {error}"),
                    )
                });
                let _ = sender.blocking_send(Err(BodyFault(fault)));
                return;
            }
        };
        decoded = decoded.saturating_add(n);
        if decoded > limit {
            let _ = sender.blocking_send(Err(BodyFault(super::params::too_large(limit))));
            return;
        }
        chunk.truncate(n);
        if sender.blocking_send(Ok(chunk.into())).is_err() {
            return;
        }
    }
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
            ErrorCode::HostNotAllowed,
            format!("Host {host:?} is not allowed; add it to allowed_hosts"),
        ));
    }
    if let Some(origin) = headers.get(header::ORIGIN).and_then(|o| o.to_str().ok()) {
        let origin_host = origin
            .split_once("://")
            .map(|(_, rest)| rest.trim_end_matches('/'))
            .unwrap_or("");
        // The page's own server: the same host *and port* the request was sent to (the
        // Host header, checked above). A page on another port of the same host is another
        // origin (RFC 6454) and must not write here through a form post.
        let same_site = !origin_host.is_empty() && origin_host.eq_ignore_ascii_case(host);
        let listed = state
            .config
            .allowed_origins
            .iter()
            .chain(&state.config.cors_origins)
            .any(|o| o == origin);
        if !same_site && !listed {
            return Err(HttpError::new(
                ErrorCode::OriginNotAllowed,
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

/// Bounds the time to a response head (408), gives axum's own error answers a coded JSON
/// body, counts and logs the request.
pub async fn observe(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = request.method().to_string();
    // The MCP transport answers its own errors (JSON-RPC, SSE).
    let is_mcp = request.uri().path().starts_with("/mcp");
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "unmatched".to_owned(), |p| p.as_str().to_owned());
    let timeout = state.config.request_timeout();
    let header_bytes = header_section_bytes(&request);
    let response = if header_bytes > MAX_HEADER_BYTES {
        HttpError::new(
            ErrorCode::HeadersTooLarge,
            format!(
                "the request line and headers take {header_bytes} bytes; the limit is {MAX_HEADER_BYTES}"
            ),
        )
        .into_response()
    } else {
        match tokio::time::timeout(timeout, next.run(request)).await {
            Ok(response) => response,
            Err(_) => HttpError::new(
                ErrorCode::RequestTimeout,
                format!("no response within {timeout:?}"),
            )
            .into_response(),
        }
    };
    let response = if is_mcp {
        response
    } else {
        coded(response).await
    };
    let elapsed = started.elapsed();
    let status = response.status().as_u16();
    let caller = response
        .extensions()
        .get::<super::auth::Who>()
        .map_or_else(|| "-".to_owned(), ToString::to_string);
    state
        .metrics
        .record_request(&method, &route, status, elapsed);
    tracing::info!(
        target: "strata::http",
        %method,
        route = %route,
        status,
        %caller,
        micros = elapsed.as_micros() as u64,
        "request"
    );
    response
}

/// The largest header section (request line and headers) a request may have. hyper
/// itself refuses a head past its read buffer (about 400 KiB) with a 431 before any of
/// this runs (`edge.rs` gives it the coded body); below that, this limit answers.
pub const MAX_HEADER_BYTES: usize = 64 * 1024;

/// The size of a request's head as sent: the request line and each `name: value` line.
fn header_section_bytes(request: &Request) -> usize {
    let line = request.method().as_str().len() + request.uri().to_string().len() + 12;
    request
        .headers()
        .iter()
        .map(|(name, value)| name.as_str().len() + value.len() + 4)
        .sum::<usize>()
        + line
}

/// axum answers some malformed requests itself, in plain text (a path segment that is not
/// UTF-8, say): such an answer gets the JSON body `{"error": {"code", "message"}}` of every
/// other error, keeping its status and headers.
async fn coded(response: Response) -> Response {
    let status = response.status();
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|c| c.starts_with("application/json"));
    if !(status.is_client_error() || status.is_server_error()) || is_json {
        return response;
    }
    let (parts, body) = response.into_parts();
    let text = axum::body::to_bytes(body, 64 * 1024)
        .await
        .map(|b| String::from_utf8_lossy(&b).trim().to_owned())
        .unwrap_or_default();
    let code = match status {
        StatusCode::NOT_FOUND => ErrorCode::NotFound,
        StatusCode::METHOD_NOT_ALLOWED => ErrorCode::MethodNotAllowed,
        StatusCode::NOT_ACCEPTABLE => ErrorCode::NotAcceptable,
        StatusCode::PAYLOAD_TOO_LARGE => ErrorCode::PayloadTooLarge,
        StatusCode::UNSUPPORTED_MEDIA_TYPE => ErrorCode::UnsupportedMediaType,
        StatusCode::REQUEST_TIMEOUT => ErrorCode::RequestTimeout,
        s if s.is_server_error() => ErrorCode::Internal,
        _ => ErrorCode::InvalidArgument,
    };
    let message = if text.is_empty() {
        status.canonical_reason().unwrap_or("error").to_owned()
    } else {
        text
    };
    // axum's own status stands (a 414, say, keeps it), under the closest code.
    let mut coded = HttpError {
        status,
        ..HttpError::new(code, message)
    }
    .into_response();
    for (name, value) in &parts.headers {
        if name != header::CONTENT_TYPE && name != header::CONTENT_LENGTH {
            coded.headers_mut().append(name, value.clone());
        }
    }
    coded
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
