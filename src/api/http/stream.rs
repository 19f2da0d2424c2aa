//! Streaming responses from blocking work: the engine is synchronous, so a response body
//! is produced on a blocking thread and handed to the client in 64 KiB chunks.
//!
//! The response head is sent only once the first chunk is full or the work is done. Work
//! that fails before that (a bad query, a timeout before the first rows) still gets a
//! proper error status; a failure later can only cut the body short. A client that sent
//! `TE: trailers` (and whose handler said so: `ChunkWriter::allow_trailer`) then gets the
//! chunked body's terminator with a `Strata-Error: <code>: <message>` trailer (the
//! response head declares `Trailer: strata-error`); any other client sees the connection
//! close without the terminating chunk, HTTP/1.1's sign of an incomplete body. A complete
//! answer always ends with its terminator (or has a `Content-Length`).
//!
//! A body that is complete before its head leaves (every body under 64 KiB) is sent
//! whole, with `Content-Length`, so head and body go out in one write. Only longer bodies
//! are chunked; their last chunk and the chunked terminator may leave in separate
//! writes, which is why accepted sockets have `TCP_NODELAY` (see `serve`).

use crate::error::ErrorCode;
use std::io::Write;

use axum::body::{Body, Bytes};
use axum::http::{HeaderName, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use http_body::Frame;
use tokio::sync::{mpsc, oneshot};
use tokio_stream::StreamExt;
use tokio_stream::wrappers::ReceiverStream;

use super::error::HttpError;

const CHUNK_BYTES: usize = 64 << 10;

/// The trailer that names why a streamed answer was cut.
const ERROR_TRAILER: &str = "strata-error";

/// Status and headers of a streamed response.
pub struct Head {
    pub status: StatusCode,
    pub headers: Vec<(HeaderName, String)>,
}

impl Head {
    /// 200 with a content type. Text types name UTF-8: every text format written here is
    /// UTF-8, and without the parameter `text/csv`, `text/tab-separated-values` and
    /// `text/plain` default to US-ASCII (RFC 6657), so a client would misread non-ASCII.
    pub fn ok(content_type: &str) -> Self {
        let content_type = if content_type.starts_with("text/") && !content_type.contains(';') {
            format!("{content_type}; charset=utf-8")
        } else {
            content_type.to_owned()
        };
        Self {
            status: StatusCode::OK,
            headers: vec![(header::CONTENT_TYPE, content_type)],
        }
    }

    pub fn with(mut self, name: &'static str, value: impl ToString) -> Self {
        self.headers
            .push((HeaderName::from_static(name), value.to_string()));
        self
    }
}

/// The head and the first chunk; `complete` when that chunk is the whole body.
struct FirstChunk {
    head: Head,
    chunk: Bytes,
    complete: bool,
}

type First = Result<FirstChunk, HttpError>;

/// Where blocking work writes a response body.
pub struct ChunkWriter {
    head: Option<Head>,
    first: Option<oneshot::Sender<First>>,
    rest: mpsc::Sender<Result<Frame<Bytes>, std::io::Error>>,
    buffer: Vec<u8>,
    /// The client asked for trailers (`TE: trailers`): a cut answer ends with one.
    trailer: bool,
}

impl ChunkWriter {
    /// Sets the status and headers; must come before the first chunk fills.
    pub fn set_head(&mut self, head: Head) {
        self.head = Some(head);
    }

    /// The request had `TE: trailers`: a body cut by an error ends with a `Strata-Error`
    /// trailer instead of an unterminated chunked body. Before the first chunk fills.
    pub fn allow_trailer(&mut self) {
        self.trailer = true;
    }

    /// Sends what is buffered; `last` when the work is done (the body is complete).
    fn send(&mut self, last: bool) -> std::io::Result<()> {
        // The next buffer is allocated outside the query's memory budget: the network
        // task frees it.
        let next = if last {
            Vec::new()
        } else {
            crate::memory::uncharged(|| Vec::with_capacity(CHUNK_BYTES))
        };
        let chunk = Bytes::from(std::mem::replace(&mut self.buffer, next));
        if let Some(first) = self.first.take() {
            let mut head = self
                .head
                .take()
                .unwrap_or_else(|| Head::ok("application/octet-stream"));
            if self.trailer && !last {
                head = head.with("trailer", ERROR_TRAILER);
            }
            return first
                .send(Ok(FirstChunk {
                    head,
                    chunk,
                    complete: last,
                }))
                .map_err(|_| std::io::Error::from(std::io::ErrorKind::BrokenPipe));
        }
        if chunk.is_empty() {
            return Ok(());
        }
        self.rest
            .blocking_send(Ok(Frame::data(chunk)))
            .map_err(|_| std::io::Error::from(std::io::ErrorKind::BrokenPipe))
    }
}

impl Write for ChunkWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        // Never past the buffer's capacity: it is allocated outside the query's memory
        // budget (it is freed by the network task), so growing it would be charged and
        // never credited back.
        let mut rest = buf;
        while !rest.is_empty() {
            let n = rest
                .len()
                .min(CHUNK_BYTES.saturating_sub(self.buffer.len()));
            self.buffer.extend_from_slice(&rest[..n]);
            rest = &rest[n..];
            if self.buffer.len() >= CHUNK_BYTES {
                self.send(false)?;
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Whether a request's `TE` header accepts trailers (RFC 9110 §10.1.4).
pub fn asks_for_trailers(headers: &axum::http::HeaderMap) -> bool {
    headers
        .get_all(header::TE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|t| t.trim().eq_ignore_ascii_case("trailers"))
}

/// Runs `produce` on a blocking thread and streams what it writes.
pub async fn stream<F>(produce: F) -> Response
where
    F: FnOnce(&mut ChunkWriter) -> Result<(), HttpError> + Send + 'static,
{
    let (first_sender, first_receiver) = oneshot::channel::<First>();
    let (rest_sender, rest_receiver) = mpsc::channel(4);
    tokio::task::spawn_blocking(move || {
        let mut writer = ChunkWriter {
            head: None,
            first: Some(first_sender),
            rest: rest_sender,
            buffer: Vec::with_capacity(CHUNK_BYTES),
            trailer: false,
        };
        match produce(&mut writer) {
            Ok(()) => {
                // A send error means the client went away; nothing is left to tell.
                let _ = writer.send(true);
            }
            Err(error) => match writer.first.take() {
                Some(first) => {
                    let _ = first.send(Err(error));
                }
                None => {
                    tracing::warn!(code = error.code.as_str(), message = %error.message, "response cut short");
                    // What was buffered goes out first: the trailer ends a body whose rows
                    // so far are all there.
                    let _ = writer.send(false);
                    let value = format!("{}: {}", error.code.as_str(), error.message);
                    let end = match HeaderValue::from_str(&value.replace(['\r', '\n'], " ")) {
                        Ok(value) if writer.trailer => {
                            let mut trailers = axum::http::HeaderMap::new();
                            trailers.insert(HeaderName::from_static(ERROR_TRAILER), value);
                            Ok(Frame::trailers(trailers))
                        }
                        _ => Err(std::io::Error::other(error.message)),
                    };
                    let _ = writer.rest.blocking_send(end);
                }
            },
        }
    });
    match first_receiver.await {
        Ok(Ok(FirstChunk {
            head,
            chunk,
            complete,
        })) => {
            let body = if complete {
                // Known length: hyper sends Content-Length and writes head and body at once.
                Body::from(chunk)
            } else {
                Body::new(http_body_util::StreamBody::new(
                    tokio_stream::once(Ok(Frame::data(chunk)))
                        .chain(ReceiverStream::new(rest_receiver)),
                ))
            };
            let mut response = Response::new(body);
            *response.status_mut() = head.status;
            for (name, value) in head.headers {
                if let Ok(value) = HeaderValue::from_str(&value) {
                    response.headers_mut().insert(name, value);
                }
            }
            response
        }
        Ok(Err(error)) => error.into_response(),
        Err(_) => HttpError::new(
            ErrorCode::Internal,
            "the request's worker stopped without an answer",
        )
        .into_response(),
    }
}

/// Runs blocking engine work that returns a small value.
pub async fn blocking<T, F>(work: F) -> Result<T, HttpError>
where
    F: FnOnce() -> Result<T, HttpError> + Send + 'static,
    T: Send + 'static,
{
    tokio::task::spawn_blocking(work).await.unwrap_or_else(|_| {
        Err(HttpError::new(
            ErrorCode::Internal,
            "the request's worker failed",
        ))
    })
}

#[cfg(test)]
mod tests {
    use axum::body::HttpBody;

    use super::*;

    async fn respond(bytes: usize) -> Response {
        stream(move |writer| {
            writer.set_head(Head::ok("text/plain"));
            for _ in 0..bytes / 100 {
                writer.write_all(&[b'x'; 100]).unwrap();
            }
            Ok(())
        })
        .await
    }

    #[tokio::test]
    async fn bodies_done_before_the_head_leaves_are_sent_whole_with_their_length() {
        // A known length is what makes hyper send Content-Length and write once.
        let small = respond(1_000).await;
        assert_eq!(small.status(), StatusCode::OK);
        assert_eq!(small.body().size_hint().exact(), Some(1_000));
        let empty = respond(0).await;
        assert_eq!(empty.body().size_hint().exact(), Some(0));
        let big = respond(200_000).await;
        assert_eq!(big.body().size_hint().exact(), None, "streamed");
        let bytes = axum::body::to_bytes(big.into_body(), usize::MAX)
            .await
            .unwrap();
        assert_eq!(bytes.len(), 200_000);
    }
}
