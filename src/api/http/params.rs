//! Request parameters and bodies: URL query strings and forms (with repeated keys),
//! commit metadata headers, pinned-read parameters, and bounded body reads.

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, header};

use super::auth::Rights;
use super::error::HttpError;
use crate::engine::{CommitRequest, ReadAt};
use crate::error::ErrorCode;
use crate::model::NamedNode;

/// Decoded `key=value` pairs in order, keys repeated as sent.
#[derive(Debug, Default, Clone)]
pub struct Params(pub Vec<(String, String)>);

impl Params {
    /// Parses a URL query string or an `application/x-www-form-urlencoded` body. Values
    /// that do not decode to UTF-8 are a 400, not silently replaced.
    pub fn parse(raw: &[u8]) -> Result<Self, HttpError> {
        let mut pairs = Vec::new();
        for piece in raw.split(|&b| b == b'&').filter(|p| !p.is_empty()) {
            let (key, value) = match piece.iter().position(|&b| b == b'=') {
                Some(i) => (&piece[..i], &piece[i + 1..]),
                None => (piece, &b""[..]),
            };
            let key = decode(key).ok_or_else(|| {
                HttpError::bad_param("parameters", "parameter names must be UTF-8")
            })?;
            let value = decode(value)
                .ok_or_else(|| HttpError::bad_param(&key, format!("{key} must be UTF-8")))?;
            pairs.push((key, value));
        }
        Ok(Self(pairs))
    }

    pub fn all(&self, key: &str) -> Vec<&str> {
        self.0
            .iter()
            .filter(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
            .collect()
    }

    /// The single value of `key`; 400 when it is repeated.
    pub fn one(&self, key: &str) -> Result<Option<&str>, HttpError> {
        match self.all(key).as_slice() {
            [] => Ok(None),
            [value] => Ok(Some(value)),
            _ => Err(HttpError::bad_param(
                key,
                format!("{key} must be given once"),
            )),
        }
    }

    pub fn contains(&self, key: &str) -> bool {
        self.0.iter().any(|(k, _)| k == key)
    }

    pub fn extend(&mut self, other: Params) {
        self.0.extend(other.0);
    }

    /// IRIs of a repeated parameter (`default-graph-uri`, `named-graph-uri`, …).
    pub fn iris(&self, key: &str) -> Result<Vec<NamedNode>, HttpError> {
        self.all(key)
            .into_iter()
            .map(|iri| {
                NamedNode::new(iri)
                    .map_err(|e| HttpError::bad_param(key, format!("invalid IRI {iri:?}: {e}")))
            })
            .collect()
    }

    /// Refuses `as_of` / `as_of_time` on a write: a write always builds on the newest
    /// commit, and silently ignoring the pin would change what the caller did not mean.
    pub fn refuse_read_pins(&self) -> Result<(), HttpError> {
        match ["as_of", "as_of_time"]
            .into_iter()
            .find(|p| self.contains(p))
        {
            None => Ok(()),
            Some(param) => Err(HttpError::bad_param(
                param,
                "pins a read to a commit; a write always builds on the newest commit",
            )),
        }
    }

    /// `as_of` / `as_of_time`: the commit a read is at.
    pub fn read_at(&self) -> Result<ReadAt, HttpError> {
        let as_of = self
            .one("as_of")?
            .map(|v| {
                crate::model::parse_commit_seq(v).ok_or_else(|| {
                    HttpError::bad_param("as_of", format!("expected a commit number, got {v:?}"))
                })
            })
            .transpose()?;
        let as_of_time = self
            .one("as_of_time")?
            .map(|v| {
                crate::model::parse_moment(v).ok_or_else(|| {
                    HttpError::bad_param(
                        "as_of_time",
                        format!("expected an RFC 3339 moment, got {v:?}"),
                    )
                })
            })
            .transpose()?;
        if as_of.is_some() && as_of_time.is_some() {
            return Err(HttpError::bad_param(
                "as_of",
                "give as_of or as_of_time, not both",
            ));
        }
        Ok(ReadAt {
            commit: as_of,
            moment: as_of_time,
        })
    }
}

/// The media type of a request body, lowercased, without parameters.
pub fn content_type(headers: &HeaderMap) -> Option<String> {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|v| {
            v.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        })
        .filter(|v| !v.is_empty())
}

/// Reads a body up to `limit` bytes: 413 beyond, checked against the declared
/// `Content-Length` before anything is read (so a client that announces too much is told
/// at once, not after the request timeout); 400 when the body cannot be read (broken
/// chunked encoding, a body cut short).
pub async fn read_body(body: Body, limit: usize) -> Result<Bytes, HttpError> {
    use tokio_stream::StreamExt;
    let body = refuse_declared_over(body, limit).await?;
    let mut collected = Vec::new();
    let mut stream = body.into_data_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(chunk_error)?;
        if chunk.len() > limit - collected.len() {
            drain(stream, DRAIN_BYTES).await;
            return Err(too_large(limit));
        }
        collected.extend_from_slice(&chunk);
    }
    Ok(Bytes::from(collected))
}

/// A request body read as it arrives, by a blocking reader: an import parses it while
/// the client still sends, so memory holds a few chunks, not the body. At most `limit`
/// bytes (then the read fails and `BodyStream::fault` is the 413); a body that cannot be
/// read is the 400 `read_body` gives. When the reader stops early (a syntax error), the
/// rest of the body is read and dropped, as for a 413, so the client sees the answer.
pub async fn stream_body(body: Body, limit: usize) -> Result<BodyStream, HttpError> {
    use tokio_stream::StreamExt;
    let body = refuse_declared_over(body, limit).await?;
    let (sender, chunks) = tokio::sync::mpsc::channel(BODY_CHUNKS_AHEAD);
    tokio::spawn(async move {
        let mut stream = body.into_data_stream();
        let mut read = 0usize;
        while let Some(chunk) = stream.next().await {
            let chunk = match chunk {
                Ok(chunk) => chunk,
                Err(error) => {
                    let _ = sender.send(Err(chunk_error(error))).await;
                    return;
                }
            };
            read = read.saturating_add(chunk.len());
            if read > limit {
                let _ = sender.send(Err(too_large(limit))).await;
                drain(stream, DRAIN_BYTES).await;
                return;
            }
            if sender.send(Ok(chunk)).await.is_err() {
                drain(stream, DRAIN_BYTES).await;
                return;
            }
        }
    });
    Ok(BodyStream {
        chunks,
        current: Bytes::new(),
        fault: None,
    })
}

/// The 413 of a body whose declared length is over `limit`, after reading and dropping
/// it when it is not much over (see `DRAIN_BYTES`); else the body, unread.
async fn refuse_declared_over(body: Body, limit: usize) -> Result<Body, HttpError> {
    use axum::body::HttpBody;
    let declared = body.size_hint().lower();
    if declared > limit as u64 {
        if declared <= limit as u64 + DRAIN_BYTES {
            drain(body.into_data_stream(), DRAIN_BYTES).await;
        }
        return Err(too_large(limit));
    }
    Ok(body)
}

/// Chunks of a streamed body read ahead of its reader.
const BODY_CHUNKS_AHEAD: usize = 8;

/// See `stream_body`.
pub struct BodyStream {
    chunks: tokio::sync::mpsc::Receiver<Result<Bytes, HttpError>>,
    current: Bytes,
    fault: Option<HttpError>,
}

impl BodyStream {
    /// Why the body could not be read whole (413 or 400), once a read failed: the
    /// answer to give instead of the parser's error about a cut document.
    pub fn fault(&mut self) -> Option<HttpError> {
        self.fault.take()
    }
}

impl std::io::Read for BodyStream {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        while self.current.is_empty() {
            match self.chunks.blocking_recv() {
                None => return Ok(0),
                Some(Ok(chunk)) => self.current = chunk,
                Some(Err(error)) => {
                    let message = error.message.clone();
                    self.fault = Some(error);
                    return Err(std::io::Error::other(message));
                }
            }
        }
        let n = out.len().min(self.current.len());
        out[..n].copy_from_slice(&self.current[..n]);
        self.current = self.current.slice(n..);
        Ok(n)
    }
}

/// Past the limit, up to this many more bytes of a body are read and dropped (within
/// `DRAIN_TIME`) before the 413 is sent: a client that writes its whole body before it
/// reads (Python's `http.client` and `requests`) then sees the coded 413 instead of a
/// broken pipe. A body declared larger still is refused at once.
const DRAIN_BYTES: u64 = 64 << 20;
const DRAIN_TIME: std::time::Duration = std::time::Duration::from_secs(10);

async fn drain(mut stream: axum::body::BodyDataStream, most: u64) {
    use tokio_stream::StreamExt;
    let deadline = tokio::time::Instant::now() + DRAIN_TIME;
    let mut read = 0u64;
    while let Ok(Some(Ok(chunk))) = tokio::time::timeout_at(deadline, stream.next()).await {
        read += chunk.len() as u64;
        if read > most {
            break;
        }
    }
}

/// The 413 of a body over the limit.
pub fn too_large(limit: usize) -> HttpError {
    HttpError::new(
        ErrorCode::PayloadTooLarge,
        format!("request body larger than {limit} bytes (body_limit_bytes)"),
    )
}

/// The coded error a body's stream carries to its reader (a gzip body over the limit or
/// undecodable, see `middleware::guard`): the answer as it is, not a read failure.
#[derive(Debug)]
pub struct BodyFault(pub HttpError);

impl std::fmt::Display for BodyFault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0.message)
    }
}

impl std::error::Error for BodyFault {}

/// The answer to a body that failed while it was read: its own coded error, or the 400.
fn chunk_error(error: axum::Error) -> HttpError {
    // The fault may arrive wrapped by the layers the body went through.
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(&error);
    while let Some(error) = cause {
        if let Some(BodyFault(fault)) = error.downcast_ref::<BodyFault>() {
            return HttpError {
                param: fault.param.clone(),
                ..HttpError::new(fault.code, fault.message.clone())
            };
        }
        cause = error.source();
    }
    HttpError::bad_param(
        "body",
        format!("the request body could not be read: {}", body_error(&error)),
    )
}

/// A body error with its causes (hyper's innermost one says what was wrong with the bytes).
fn body_error(error: &(dyn std::error::Error + 'static)) -> String {
    let mut messages = vec![error.to_string()];
    let mut source = error.source();
    while let Some(inner) = source {
        let message = inner.to_string();
        if !messages.iter().any(|m| m.contains(&message)) {
            messages.push(message);
        }
        source = inner.source();
    }
    messages.join(": ")
}

/// A body that must be UTF-8 text (queries, updates).
pub fn utf8_body(bytes: &Bytes, param: &str) -> Result<String, HttpError> {
    String::from_utf8(bytes.to_vec())
        .map_err(|_| HttpError::bad_param(param, "the body must be UTF-8"))
}

/// Commit metadata from headers: `Strata-Author`, `Strata-Message`, `Strata-Observed-At`,
/// `Idempotency-Key`; `rights` (the caller's) say whether the commit may change the
/// control graphs of `graph`.
pub fn commit_request(
    headers: &HeaderMap,
    rights: &Rights,
    graph: &str,
) -> Result<CommitRequest, HttpError> {
    let text = |name: &str| -> Result<Option<String>, HttpError> {
        headers
            .get(name)
            .map(|v| {
                v.to_str()
                    .map(str::to_owned)
                    .map_err(|_| HttpError::bad_param(name, "header must be visible ASCII"))
            })
            .transpose()
    };
    let observed_at = text("strata-observed-at")?
        .map(|v| {
            crate::model::parse_moment(&v).ok_or_else(|| {
                HttpError::bad_param("Strata-Observed-At", "expected an RFC 3339 moment")
            })
        })
        .transpose()?;
    Ok(CommitRequest {
        author: text("strata-author")?,
        message: text("strata-message")?,
        observed_at,
        idempotency_key: text("idempotency-key")?,
        admin: rights.admin_on(graph),
        forward_id: None,
    })
}

/// Decodes `+` and `%XX` escapes; `None` when the result is not UTF-8.
fn decode(raw: &[u8]) -> Option<String> {
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        match raw[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < raw.len() => {
                let hex = std::str::from_utf8(&raw[i + 1..i + 3]).ok();
                match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                    Some(byte) => {
                        out.push(byte);
                        i += 2;
                    }
                    None => out.push(b'%'),
                }
            }
            byte => out.push(byte),
        }
        i += 1;
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms_decode_repeated_keys_and_reject_bad_utf8() {
        let params = Params::parse(b"query=ASK%20%7B%7D&g=a&g=b+c&empty=&flag").unwrap();
        assert_eq!(params.one("query").unwrap(), Some("ASK {}"));
        assert_eq!(params.all("g"), vec!["a", "b c"]);
        assert!(params.one("g").is_err());
        assert_eq!(params.one("empty").unwrap(), Some(""));
        assert!(params.contains("flag"));
        assert!(Params::parse(b"query=%FF%FE").is_err());
        assert_eq!(
            Params::parse(b"q=100%").unwrap().one("q").unwrap(),
            Some("100%")
        );
    }
}
