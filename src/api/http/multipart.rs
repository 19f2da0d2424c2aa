//! A `multipart/form-data` body read part by part as it arrives (RFC 7578), so a Graph
//! Store `POST` of several big files is parsed while it uploads, never held whole.
//!
//! Hand-written rather than `multer`: the parser runs on a blocking thread over the
//! body's synchronous reader (`params::BodyStream`), and what it needs is small: find
//! the boundary, read each part's `Content-Type`, hand its bytes to the RDF parser.
//! Lenient like the whole-body splitter it replaces: a bare `\n` is accepted where CRLF
//! is due.

use std::io::Read;

/// Bytes asked of the body at a time.
const READ_CHUNK: usize = 64 << 10;
/// The longest part header block accepted.
const MAX_HEADERS: usize = 16 << 10;

/// The parts of a multipart body, one after another.
pub struct Multipart<R> {
    inner: R,
    /// `\n--boundary`: what ends a part's content (a `\r` before it is not content).
    delimiter: Vec<u8>,
    /// Bytes read from `inner` and not consumed yet.
    buf: Vec<u8>,
    eof: bool,
    state: State,
    /// Parts started so far.
    parts: usize,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    /// Before the first boundary.
    Preamble,
    /// Inside a part's content.
    InPart,
    /// Just past a boundary.
    AtBoundary,
    /// Past the closing boundary.
    Done,
}

fn malformed(what: &str) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        format!("malformed multipart/form-data body: {what}"),
    )
}

impl<R: Read> Multipart<R> {
    pub fn new(inner: R, boundary: &str) -> Self {
        let mut delimiter = b"\n--".to_vec();
        delimiter.extend_from_slice(boundary.as_bytes());
        Self {
            inner,
            delimiter,
            buf: Vec::new(),
            eof: false,
            state: State::Preamble,
            parts: 0,
        }
    }

    /// The body's reader (to ask it why a read failed).
    pub fn inner_mut(&mut self) -> &mut R {
        &mut self.inner
    }

    /// Reads more of the body; false at its end.
    fn fill(&mut self) -> std::io::Result<bool> {
        if self.eof {
            return Ok(false);
        }
        let start = self.buf.len();
        self.buf.resize(start + READ_CHUNK, 0);
        let read = self.inner.read(&mut self.buf[start..]);
        self.buf.truncate(start + read.as_ref().map_or(0, |&n| n));
        if read? == 0 {
            self.eof = true;
        }
        Ok(!self.eof)
    }

    /// Moves to the next part and returns its media type (lower case, without
    /// parameters; `None` when the part names none), or `None` after the last part. The
    /// rest of the current part, unread, is skipped.
    pub fn next_part(&mut self) -> std::io::Result<Option<Option<String>>> {
        match self.state {
            State::Done => return Ok(None),
            State::Preamble => self.skip_preamble()?,
            State::InPart => {
                let mut sink = [0u8; 8 << 10];
                while self.read_content(&mut sink)? > 0 {}
            }
            State::AtBoundary => {}
        }
        // After a delimiter: `--` closes the body, else the line ends.
        while self.buf.len() < 2 {
            if !self.fill()? {
                return Err(malformed("it ends after a boundary"));
            }
        }
        if self.buf.starts_with(b"--") {
            self.state = State::Done;
            return Ok(None);
        }
        self.line()?;
        let mut media = None;
        let mut headers = 0;
        loop {
            let line = self.line()?;
            headers += line.len();
            if headers > MAX_HEADERS {
                return Err(malformed("a part's headers are too long"));
            }
            let line = String::from_utf8_lossy(&line);
            let line = line.trim_end_matches('\r');
            if line.is_empty() {
                break;
            }
            if let Some((name, value)) = line.split_once(':')
                && name.trim().eq_ignore_ascii_case("content-type")
            {
                let value = value.split(';').next().unwrap_or("").trim();
                media = Some(value.to_ascii_lowercase());
            }
        }
        self.state = State::InPart;
        self.parts += 1;
        Ok(Some(media))
    }

    /// Drops what comes before the first boundary (at the very start, or after a line
    /// break) and the boundary itself.
    fn skip_preamble(&mut self) -> std::io::Result<()> {
        let first = self.delimiter[1..].to_vec();
        loop {
            if self.buf.starts_with(&first) {
                self.buf.drain(..first.len());
                return Ok(());
            }
            if let Some(at) = find(&self.buf, &self.delimiter) {
                self.buf.drain(..at + self.delimiter.len());
                return Ok(());
            }
            // Keep a tail that may be the start of the boundary.
            let keep = self.delimiter.len().min(self.buf.len());
            self.buf.drain(..self.buf.len() - keep);
            if !self.fill()? {
                return Err(malformed(if self.parts == 0 {
                    "no boundary found"
                } else {
                    "it ends inside a part"
                }));
            }
        }
    }

    /// One line, through its `\n` (which is dropped).
    fn line(&mut self) -> std::io::Result<Vec<u8>> {
        loop {
            if let Some(at) = self.buf.iter().position(|&b| b == b'\n') {
                let mut line: Vec<u8> = self.buf.drain(..=at).collect();
                line.pop();
                return Ok(line);
            }
            if self.buf.len() > MAX_HEADERS {
                return Err(malformed("a part's headers are too long"));
            }
            if !self.fill()? {
                return Err(malformed("it ends inside a part's headers"));
            }
        }
    }

    /// Reads the current part's content; 0 at its end (its closing delimiter consumed).
    fn read_content(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if self.state != State::InPart || out.is_empty() {
            return Ok(0);
        }
        loop {
            if let Some(at) = find(&self.buf, &self.delimiter) {
                let end = if at > 0 && self.buf[at - 1] == b'\r' {
                    at - 1
                } else {
                    at
                };
                if end == 0 {
                    self.buf.drain(..at + self.delimiter.len());
                    self.state = State::AtBoundary;
                    return Ok(0);
                }
                return Ok(self.take(out, end));
            }
            // Without a delimiter in sight, all but a tail that may start one (with the
            // `\r` before it) is content.
            let safe = self.buf.len().saturating_sub(self.delimiter.len() + 1);
            if safe > 0 {
                return Ok(self.take(out, safe));
            }
            if !self.fill()? {
                return Err(malformed("it ends inside a part"));
            }
        }
    }

    /// Moves up to `available` buffered bytes into `out`.
    fn take(&mut self, out: &mut [u8], available: usize) -> usize {
        let n = out.len().min(available);
        out[..n].copy_from_slice(&self.buf[..n]);
        self.buf.drain(..n);
        n
    }

    /// The current part's content as a reader.
    pub fn part(&mut self) -> Part<'_, R> {
        Part { multipart: self }
    }
}

/// The content of the current part of a `Multipart`.
pub struct Part<'a, R> {
    multipart: &'a mut Multipart<R>,
}

impl<R: Read> Read for Part<'_, R> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        self.multipart.read_content(out)
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() || haystack.len() < needle.len() {
        return None;
    }
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads every part, the body arriving `step` bytes at a time.
    fn parts(body: &[u8], step: usize) -> std::io::Result<Vec<(Option<String>, Vec<u8>)>> {
        struct Trickle<'a>(&'a [u8], usize);
        impl Read for Trickle<'_> {
            fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
                let n = self.0.len().min(self.1).min(out.len());
                out[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let mut multipart = Multipart::new(Trickle(body, step), "XyZ");
        let mut found = Vec::new();
        while let Some(media) = multipart.next_part()? {
            let mut content = Vec::new();
            multipart.part().read_to_end(&mut content)?;
            found.push((media, content));
        }
        Ok(found)
    }

    #[test]
    fn multipart_bodies_split_into_typed_parts_however_they_arrive() {
        let body = b"preamble\r\n--XyZ\r\nContent-Disposition: form-data; name=\"a\"\r\nContent-Type: Text/Turtle; charset=utf-8\r\n\r\n<a> <b> <c> .\r\n--XyZ\r\nContent-Type: application/n-triples\r\n\r\n<d> <e> <f> .\n-- not the boundary\n\r\n--XyZ\r\n\r\n\r\n--XyZ--\r\n";
        for step in [1, 2, 3, 7, 64, 1 << 20] {
            let found = parts(body, step).unwrap();
            assert_eq!(found.len(), 3, "step {step}");
            assert_eq!(found[0].0.as_deref(), Some("text/turtle"));
            assert_eq!(found[0].1, b"<a> <b> <c> .");
            assert_eq!(found[1].0.as_deref(), Some("application/n-triples"));
            assert_eq!(found[1].1, b"<d> <e> <f> .\n-- not the boundary\n");
            assert_eq!(found[2], (None, Vec::new()), "an empty part");
        }
        // Bare line feeds, and a part left unread is skipped.
        let body = b"--XyZ\nContent-Type: text/turtle\n\n<a> <b> <c> .\n--XyZ\nContent-Type: text/plain\n\nx\n--XyZ--";
        let mut multipart = Multipart::new(&body[..], "XyZ");
        assert_eq!(
            multipart.next_part().unwrap(),
            Some(Some("text/turtle".into()))
        );
        assert_eq!(
            multipart.next_part().unwrap(),
            Some(Some("text/plain".into()))
        );
        let mut content = String::new();
        multipart.part().read_to_string(&mut content).unwrap();
        assert_eq!(content, "x");
        assert_eq!(multipart.next_part().unwrap(), None);
    }

    #[test]
    fn malformed_bodies_are_refused() {
        for body in [
            &b"nothing"[..],
            b"--XyZ\r\nContent-Type: text/turtle\r\n\r\n<a> <b> <c> .",
            b"--XyZ\r\nContent-Type: text/turtle",
            b"--XyZ",
        ] {
            let error = parts(body, 5).unwrap_err();
            assert!(error.to_string().contains("malformed multipart"), "{error}");
        }
    }
}
