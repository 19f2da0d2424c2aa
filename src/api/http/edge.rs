//! The connection under hyper: hyper answers a request it cannot parse (a garbage request
//! line: 400; a target longer than 65,534 bytes: 414; a head past its read buffer: 431)
//! by itself, before any route or middleware runs, with an empty body. Every other error
//! of this server has the JSON body `{"error": {"code", "message"}}`, so the socket is
//! wrapped: a response head that starts with one of those statuses and declares
//! `content-length: 0` (no answer of ours is an empty 4xx: `middleware::coded` gives each
//! a body) is rewritten on its way out with the same status, a coded JSON body and
//! `connection: close` (hyper closes the connection after such an answer).

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use crate::error::ErrorCode;

/// Accepts TCP connections (with `TCP_NODELAY`) wrapped in `CodedEdge`.
pub struct CodedListener(pub tokio::net::TcpListener);

impl axum::serve::Listener for CodedListener {
    type Io = CodedEdge<tokio::net::TcpStream>;
    type Addr = std::net::SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        let (socket, addr) = axum::serve::Listener::accept(&mut self.0).await;
        // With Nagle's algorithm on, a response whose last bytes leave in a write of
        // their own (the end of a chunked body) waits for the client's delayed ACK.
        if let Err(error) = socket.set_nodelay(true) {
            tracing::warn!(%error, "cannot set TCP_NODELAY on an accepted socket");
        }
        (CodedEdge::new(socket), addr)
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        self.0.local_addr()
    }
}

/// A socket whose outgoing bare 400/414/431 answers get a coded JSON body.
pub struct CodedEdge<S> {
    inner: S,
    /// A rewritten answer being written: its bytes, how many are out, and the length of
    /// the write it replaces (reported to hyper once all of it is out).
    pending: Option<(Vec<u8>, usize, usize)>,
}

impl<S> CodedEdge<S> {
    pub fn new(inner: S) -> Self {
        Self {
            inner,
            pending: None,
        }
    }
}

/// The coded answer for one of hyper's own bare answers, or `None` for any other write.
fn rewrite(buf: &[u8]) -> Option<Vec<u8>> {
    let (status, code, message) = if buf.starts_with(b"HTTP/1.1 400 ") {
        (
            "400 Bad Request",
            ErrorCode::InvalidArgument,
            "the request could not be parsed as HTTP/1.1 (its request line or a header is malformed)",
        )
    } else if buf.starts_with(b"HTTP/1.1 414 ") {
        (
            "414 URI Too Long",
            ErrorCode::InvalidArgument,
            "the request target is longer than 65,534 bytes; send long queries in a POST body",
        )
    } else if buf.starts_with(b"HTTP/1.1 431 ") {
        (
            "431 Request Header Fields Too Large",
            ErrorCode::HeadersTooLarge,
            "the request line and headers are larger than the server reads (64 KiB are allowed)",
        )
    } else {
        return None;
    };
    let end = buf.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = String::from_utf8_lossy(&buf[..end]).to_ascii_lowercase();
    if !head.lines().any(|l| l.trim() == "content-length: 0") || buf.len() != end + 4 {
        return None;
    }
    let body = serde_json::json!({
        "error": { "code": code.as_str(), "message": message }
    })
    .to_string();
    Some(
        format!(
            "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\
             connection: close\r\n\r\n{body}",
            body.len()
        )
        .into_bytes(),
    )
}

impl<S: AsyncRead + Unpin> AsyncRead for CodedEdge<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for CodedEdge<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        if this.pending.is_none()
            && let Some(answer) = rewrite(buf)
        {
            this.pending = Some((answer, 0, buf.len()));
        }
        let Some((answer, written, replaced)) = &mut this.pending else {
            return Pin::new(&mut this.inner).poll_write(cx, buf);
        };
        while *written < answer.len() {
            match Pin::new(&mut this.inner).poll_write(cx, &answer[*written..]) {
                Poll::Ready(Ok(0)) => return Poll::Ready(Err(io::ErrorKind::WriteZero.into())),
                Poll::Ready(Ok(n)) => *written += n,
                Poll::Ready(Err(error)) => return Poll::Ready(Err(error)),
                Poll::Pending => return Poll::Pending,
            }
        }
        let replaced = *replaced;
        this.pending = None;
        Poll::Ready(Ok(replaced))
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }

    // Vectored, as the socket is (hyper then queues body chunks instead of copying them
    // into one buffer: a stalled stream holds less). hyper's own bare answers are a head
    // alone, in one slice.
    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let first = bufs.iter().find(|b| !b.is_empty());
        let alone = bufs.iter().filter(|b| !b.is_empty()).count() == 1;
        let bare = alone && first.is_some_and(|b| rewrite(b).is_some());
        if self.pending.is_some() || bare {
            // A rewritten answer goes out through `poll_write` (hyper retries a pending
            // write with the same slices).
            return match first {
                Some(buf) => self.poll_write(cx, buf),
                None => Poll::Ready(Ok(0)),
            };
        }
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}

#[cfg(test)]
mod tests {
    use super::rewrite;

    #[test]
    fn only_bare_parse_errors_are_rewritten() {
        let bare = b"HTTP/1.1 414 URI Too Long\r\ncontent-length: 0\r\ndate: x\r\n\r\n";
        let answer = String::from_utf8(rewrite(bare).expect("rewritten")).unwrap();
        assert!(
            answer.starts_with("HTTP/1.1 414 URI Too Long\r\n"),
            "{answer}"
        );
        assert!(answer.contains("\"code\":\"invalid_argument\""), "{answer}");
        let bad = b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n";
        assert!(rewrite(bad).is_some());
        // An answer with a body, another status, or more than the head: left alone.
        assert!(rewrite(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 2\r\n\r\n{}").is_none());
        assert!(rewrite(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n").is_none());
        assert!(rewrite(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\nX").is_none());
        assert!(rewrite(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n").is_none());
    }
}
