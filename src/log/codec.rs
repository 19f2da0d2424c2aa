//! The canonical, versioned encoding of a commit: the bytes that are hashed and the frame
//! that is written to disk.
//!
//! Written by hand on purpose: a serializer upgrade must never be able to change a hash.
//!
//! A commit's hash is `SHA-256(parent_hash ‖ header)`, where the header is a small text
//! block that names every field, including `quads_digest = SHA-256(quads)`. The quads are
//! N-Quads lines: the inserted quads first, then the deleted ones (the header gives both
//! counts). Hashing the quads through their digest lets an import stream its quads before
//! the commit's position in the chain is known.
//!
//! On disk, a record is a fixed frame followed by the header and the (possibly
//! deflate-compressed) quads:
//!
//! ```text
//! magic "STRC" | header_len u32 | quads_len u64 | flags u8 | 3 reserved | crc32 u32 | hash [32] | header | quads
//! ```
//! The CRC covers everything after itself, so a torn or corrupted record is detected before
//! its content is trusted. Compression is a property of the frame, not of the hashed body.

use std::io::{Read, Write};

use sha2::{Digest, Sha256};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use crate::model::{CommitHash, CommitSeq};

/// Version of the header text; bump when a field is added.
pub const FORMAT_VERSION: u32 = 1;
pub(crate) const MAGIC: &[u8; 4] = b"STRC";
pub(crate) const FRAME_LEN: usize = 4 + 4 + 8 + 1 + 3 + 4;
pub(crate) const FLAG_DEFLATE: u8 = 1;
/// Quads sections smaller than this are stored raw: compressing them saves nothing.
const COMPRESS_MIN_BYTES: usize = 1024;

/// Every field of a commit except its quads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommitHeader {
    pub commit_seq: CommitSeq,
    pub parent_hash: CommitHash,
    pub committed_at: OffsetDateTime,
    pub observed_at: Option<OffsetDateTime>,
    pub author: Option<String>,
    pub message: Option<String>,
    pub idempotency_key: Option<String>,
    /// Digest of what the client asked for, so a replayed idempotency key can be told apart
    /// from a reused one.
    pub request_digest: Option<[u8; 32]>,
    pub n_inserted: u64,
    pub n_deleted: u64,
    pub quads_digest: [u8; 32],
}

/// A decoded record: header, hash and the uncompressed quads section.
#[derive(Clone, Debug)]
pub struct CommitRecord {
    pub header: CommitHeader,
    pub hash: CommitHash,
    pub quads: Vec<u8>,
}

impl CommitHeader {
    /// The canonical text that is hashed.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = String::with_capacity(512);
        out.push_str(&format!("strata-commit {FORMAT_VERSION}\n"));
        out.push_str(&format!("commit_seq {}\n", self.commit_seq));
        out.push_str(&format!("parent_hash {}\n", self.parent_hash.to_hex()));
        out.push_str(&format!(
            "committed_at {}\n",
            format_time(self.committed_at)
        ));
        push_optional(
            &mut out,
            "observed_at",
            self.observed_at.map(format_time).as_deref(),
        );
        push_optional_string(&mut out, "author", self.author.as_deref());
        push_optional_string(&mut out, "message", self.message.as_deref());
        push_optional_string(&mut out, "idempotency_key", self.idempotency_key.as_deref());
        push_optional(
            &mut out,
            "request_digest",
            self.request_digest
                .map(|d| CommitHash(d).to_hex())
                .as_deref(),
        );
        out.push_str(&format!("inserted {}\n", self.n_inserted));
        out.push_str(&format!("deleted {}\n", self.n_deleted));
        out.push_str(&format!(
            "quads_digest {}\n",
            CommitHash(self.quads_digest).to_hex()
        ));
        out.into_bytes()
    }

    /// Parses the canonical text; `None` when any field is missing or malformed.
    pub fn decode(bytes: &[u8]) -> Option<Self> {
        let text = std::str::from_utf8(bytes).ok()?;
        let mut lines = text.lines();
        let mut field = |name: &str| -> Option<String> {
            let line = lines.next()?;
            let value = line.strip_prefix(name)?.strip_prefix(' ')?;
            Some(value.to_owned())
        };
        if field("strata-commit")?.parse::<u32>().ok()? != FORMAT_VERSION {
            return None;
        }
        let commit_seq = field("commit_seq")?.parse().ok()?;
        let parent_hash = CommitHash::from_hex(&field("parent_hash")?)?;
        let committed_at = parse_time(&field("committed_at")?)?;
        let observed_at = match field("observed_at")?.as_str() {
            "-" => None,
            value => Some(parse_time(value)?),
        };
        let author = decode_optional_string(&field("author")?)?;
        let message = decode_optional_string(&field("message")?)?;
        let idempotency_key = decode_optional_string(&field("idempotency_key")?)?;
        let request_digest = match field("request_digest")?.as_str() {
            "-" => None,
            value => Some(CommitHash::from_hex(value)?.0),
        };
        let n_inserted = field("inserted")?.parse().ok()?;
        let n_deleted = field("deleted")?.parse().ok()?;
        let quads_digest = CommitHash::from_hex(&field("quads_digest")?)?.0;
        Some(Self {
            commit_seq,
            parent_hash,
            committed_at,
            observed_at,
            author,
            message,
            idempotency_key,
            request_digest,
            n_inserted,
            n_deleted,
            quads_digest,
        })
    }

    /// `SHA-256(parent_hash ‖ header)`: the link of the chain.
    pub fn hash(&self) -> CommitHash {
        let mut hasher = Sha256::new();
        hasher.update(self.parent_hash.0);
        hasher.update(self.encode());
        CommitHash(hasher.finalize().into())
    }
}

/// Digest of a quads section, as recorded in `quads_digest`.
pub fn quads_digest(quads: &[u8]) -> [u8; 32] {
    Sha256::digest(quads).into()
}

/// Formats a timestamp the one canonical way (RFC 3339, UTC).
pub fn format_time(moment: OffsetDateTime) -> String {
    moment
        .to_offset(time::UtcOffset::UTC)
        .format(&Rfc3339)
        .unwrap_or_else(|_| String::from("invalid-time"))
}

/// Parses an RFC 3339 timestamp (`model::parse_moment`, the one parser).
pub fn parse_time(text: &str) -> Option<OffsetDateTime> {
    crate::model::parse_moment(text)
}

/// A commit's quads section as it will be stored: digest of the uncompressed N-Quads,
/// and the stored bytes (deflated when that pays off), in memory or, for a big commit,
/// in a spill file.
pub struct QuadsSection {
    pub digest: [u8; 32],
    stored: Stored,
    compressed: bool,
}

/// Where a section's stored bytes are.
enum Stored {
    Memory(Vec<u8>),
    /// An unlinked temporary file beside the log (nothing is left behind by a crash),
    /// with the CRC and length of its bytes.
    Spilled {
        file: std::fs::File,
        len: u64,
        crc: crc32fast::Hasher,
    },
}

impl QuadsSection {
    /// Bytes stored.
    fn stored_len(&self) -> u64 {
        match &self.stored {
            Stored::Memory(bytes) => bytes.len() as u64,
            Stored::Spilled { len, .. } => *len,
        }
    }

    /// The stored bytes in memory (read back from a spill file).
    fn stored_bytes(&self) -> std::io::Result<std::borrow::Cow<'_, [u8]>> {
        match &self.stored {
            Stored::Memory(bytes) => Ok(std::borrow::Cow::Borrowed(bytes)),
            Stored::Spilled { file, len, .. } => {
                let mut bytes = vec![0; usize::try_from(*len).map_err(std::io::Error::other)?];
                std::os::unix::fs::FileExt::read_exact_at(file, &mut bytes, 0)?;
                Ok(std::borrow::Cow::Owned(bytes))
            }
        }
    }

    /// Whether the stored bytes are in a spill file.
    pub fn is_spilled(&self) -> bool {
        matches!(self.stored, Stored::Spilled { .. })
    }
}

/// Compressed quads past this many bytes go to a spill file when the encoder has a
/// directory for it (`QuadsEncoder::spilling_into`).
const SPILL_AFTER: usize = if cfg!(test) { 4 << 10 } else { 64 << 20 };

/// Where the deflated bytes go: memory, then a spill file once past `SPILL_AFTER`.
struct Sink {
    dir: Option<std::path::PathBuf>,
    memory: Vec<u8>,
    file: Option<(std::io::BufWriter<std::fs::File>, crc32fast::Hasher, u64)>,
}

impl Sink {
    fn spill(&mut self, dir: &std::path::Path) -> std::io::Result<()> {
        // Unlinked at once: the bytes live as long as the handle, and a crash leaves
        // nothing behind.
        let file = crate::scratch::unlinked_file(dir)?;
        let mut writer = std::io::BufWriter::with_capacity(1 << 20, file);
        let mut crc = crc32fast::Hasher::new();
        writer.write_all(&self.memory)?;
        crc.update(&self.memory);
        let len = self.memory.len() as u64;
        self.memory = Vec::new();
        self.file = Some((writer, crc, len));
        Ok(())
    }

    fn finish(self) -> std::io::Result<Stored> {
        match self.file {
            None => Ok(Stored::Memory(self.memory)),
            Some((writer, crc, len)) => {
                let file = writer.into_inner().map_err(|e| e.into_error())?;
                Ok(Stored::Spilled { file, len, crc })
            }
        }
    }
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.file.is_none()
            && self.memory.len() + buf.len() > SPILL_AFTER
            && let Some(dir) = self.dir.clone()
        {
            self.spill(&dir)?;
        }
        match &mut self.file {
            Some((writer, crc, len)) => {
                writer.write_all(buf)?;
                crc.update(buf);
                *len += buf.len() as u64;
            }
            None => self.memory.extend_from_slice(buf),
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Streams N-Quads text into a `QuadsSection`: hashed and compressed as it is written,
/// so a large commit never holds its whole text in memory (nor, with a spill directory,
/// its compressed bytes).
pub struct QuadsEncoder {
    hasher: Sha256,
    /// Made once the text reaches `COMPRESS_MIN_BYTES` (a compressor's state is hundreds
    /// of KiB to allocate and clear: most commits are smaller and stored raw).
    deflate: Option<flate2::write::DeflateEncoder<Sink>>,
    /// Where the compressed bytes go once there is a compressor.
    spill_dir: Option<std::path::PathBuf>,
    /// The raw text while it is short: small sections are stored uncompressed.
    raw: Vec<u8>,
    n_bytes: usize,
}

impl Default for QuadsEncoder {
    fn default() -> Self {
        Self::with_sink(None)
    }
}

impl Write for QuadsEncoder {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.hasher.update(buf);
        self.n_bytes += buf.len();
        match &mut self.deflate {
            Some(deflate) => deflate.write_all(buf)?,
            None if self.n_bytes < COMPRESS_MIN_BYTES => self.raw.extend_from_slice(buf),
            None => {
                // Long enough to compress: from the start.
                let mut deflate = flate2::write::DeflateEncoder::new(
                    Sink {
                        dir: self.spill_dir.take(),
                        memory: Vec::new(),
                        file: None,
                    },
                    flate2::Compression::fast(),
                );
                deflate.write_all(&std::mem::take(&mut self.raw))?;
                deflate.write_all(buf)?;
                self.deflate = Some(deflate);
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl QuadsEncoder {
    /// An encoder whose compressed bytes go to an unlinked file in `dir` once they pass
    /// 64 MiB (the log's directory: a big import's record is never whole in memory).
    pub fn spilling_into(dir: &std::path::Path) -> Self {
        Self::with_sink(Some(dir.to_owned()))
    }

    fn with_sink(dir: Option<std::path::PathBuf>) -> Self {
        Self {
            hasher: Sha256::new(),
            deflate: None,
            spill_dir: dir,
            raw: Vec::new(),
            n_bytes: 0,
        }
    }

    /// Finishes the section. Writing into memory cannot fail; a failure would only come
    /// from the compressor or the spill file.
    pub fn finish(self) -> std::io::Result<QuadsSection> {
        let digest = self.hasher.finalize().into();
        match self.deflate {
            None => Ok(QuadsSection {
                digest,
                stored: Stored::Memory(self.raw),
                compressed: false,
            }),
            Some(deflate) => Ok(QuadsSection {
                digest,
                stored: deflate.finish()?.finish()?,
                compressed: true,
            }),
        }
    }
}

/// Encodes a whole quads text at once (tests and small callers).
pub fn encode_quads(quads: &[u8]) -> QuadsSection {
    let mut encoder = QuadsEncoder::default();
    // Writing into memory cannot fail.
    let _ = encoder.write_all(quads);
    encoder.finish().unwrap_or_else(|_| QuadsSection {
        digest: quads_digest(quads),
        stored: Stored::Memory(quads.to_vec()),
        compressed: false,
    })
}

/// Builds the on-disk frame of a commit, whole in memory (a spilled section is read
/// back: only a cluster's shared log needs a big record as one message).
pub fn encode_record(
    header: &CommitHeader,
    hash: CommitHash,
    quads: &QuadsSection,
) -> std::io::Result<Vec<u8>> {
    let head = record_head(header, hash, quads);
    let stored = quads.stored_bytes()?;
    let mut out = Vec::with_capacity(head.len() + stored.len());
    out.extend_from_slice(&head);
    out.extend_from_slice(&stored);
    Ok(out)
}

/// A record's frame, hash and header (its CRC already covering the stored quads that
/// follow them).
fn record_head(header: &CommitHeader, hash: CommitHash, quads: &QuadsSection) -> Vec<u8> {
    let header_bytes = header.encode();
    let flags = if quads.compressed { FLAG_DEFLATE } else { 0 };
    let mut out = Vec::with_capacity(FRAME_LEN + 32 + header_bytes.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(
        &u32::try_from(header_bytes.len())
            .unwrap_or(u32::MAX)
            .to_le_bytes(),
    );
    out.extend_from_slice(&quads.stored_len().to_le_bytes());
    out.push(flags);
    out.extend_from_slice(&[0; 3]);
    let crc_pos = out.len();
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&hash.0);
    out.extend_from_slice(&header_bytes);
    let mut crc = crc32fast::Hasher::new();
    crc.update(&out[crc_pos + 4..]);
    match &quads.stored {
        Stored::Memory(bytes) => crc.update(bytes),
        Stored::Spilled { crc: stored, .. } => crc.combine(stored),
    }
    out[crc_pos..crc_pos + 4].copy_from_slice(&crc.finalize().to_le_bytes());
    out
}

/// A commit's record ready to append: frame, hash and header in memory, the quads in
/// memory or in their spill file.
pub struct EncodedRecord {
    head: Vec<u8>,
    hash: CommitHash,
    quads: QuadsSection,
}

impl EncodedRecord {
    pub fn new(header: &CommitHeader, hash: CommitHash, quads: QuadsSection) -> Self {
        Self {
            head: record_head(header, hash, &quads),
            hash,
            quads,
        }
    }

    /// The commit's hash.
    pub fn hash(&self) -> CommitHash {
        self.hash
    }

    /// The frame, hash and header: the bytes before the stored quads.
    pub(crate) fn head(&self) -> &[u8] {
        &self.head
    }

    /// The spill file holding the stored quads and their length (`None`: in memory).
    pub(crate) fn spill_file(&self) -> Option<(&std::fs::File, u64)> {
        match &self.quads.stored {
            Stored::Spilled { file, len, .. } => Some((file, *len)),
            Stored::Memory(_) => None,
        }
    }

    /// The record's length in bytes.
    pub fn len(&self) -> u64 {
        self.head.len() as u64 + self.quads.stored_len()
    }

    /// Always false: a record has a frame.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The whole record in memory.
    pub fn to_vec(&self) -> std::io::Result<Vec<u8>> {
        let stored = self.quads.stored_bytes()?;
        let mut out = Vec::with_capacity(self.head.len() + stored.len());
        out.extend_from_slice(&self.head);
        out.extend_from_slice(&stored);
        Ok(out)
    }

    /// Writes the record (a spilled section copied through a 1 MiB buffer).
    pub(crate) fn write_to(&self, out: &mut impl Write) -> std::io::Result<()> {
        out.write_all(&self.head)?;
        match &self.quads.stored {
            Stored::Memory(bytes) => out.write_all(bytes),
            Stored::Spilled { file, len, .. } => {
                let mut buffer = vec![0u8; 1 << 20];
                let mut at = 0u64;
                while at < *len {
                    let n = usize::try_from((*len - at).min(buffer.len() as u64))
                        .unwrap_or(buffer.len());
                    std::os::unix::fs::FileExt::read_exact_at(file, &mut buffer[..n], at)?;
                    out.write_all(&buffer[..n])?;
                    at += n as u64;
                }
                Ok(())
            }
        }
    }
}

/// The frame fields read before the body.
pub(crate) struct Frame {
    pub header_len: usize,
    pub quads_len: usize,
    pub flags: u8,
    pub crc: u32,
}

/// Parses the fixed frame; `None` when the magic or lengths are implausible.
pub(crate) fn decode_frame(bytes: &[u8; FRAME_LEN]) -> Option<Frame> {
    if &bytes[0..4] != MAGIC {
        return None;
    }
    let header_len = u32::from_le_bytes(bytes[4..8].try_into().ok()?) as usize;
    let quads_len = usize::try_from(u64::from_le_bytes(bytes[8..16].try_into().ok()?)).ok()?;
    let flags = bytes[16];
    // The reserved bytes are outside the CRC: a frame is refused unless they are zero,
    // so no byte of a record can change without its being refused.
    if header_len == 0
        || header_len > 1 << 24
        || flags & !FLAG_DEFLATE != 0
        || bytes[17..20] != [0; 3]
    {
        return None;
    }
    let crc = u32::from_le_bytes(bytes[20..24].try_into().ok()?);
    Some(Frame {
        header_len,
        quads_len,
        flags,
        crc,
    })
}

/// Decodes one whole record (as `encode_record` wrote it) and checks everything it
/// carries: the frame's lengths and CRC, the header's hash, and the quads' digest. A
/// record received from elsewhere (a cluster's shared log) is applied only if this holds.
pub fn decode_record(bytes: &[u8]) -> Option<CommitRecord> {
    let frame = decode_frame(bytes.get(..FRAME_LEN)?.try_into().ok()?)?;
    let rest = &bytes[FRAME_LEN..];
    if rest.len() != 32 + frame.header_len + frame.quads_len {
        return None;
    }
    let record = decode_body(&frame, rest, true)?;
    (record.header.hash() == record.hash
        && quads_digest(&record.quads) == record.header.quads_digest)
        .then_some(record)
}

/// Splits bytes that hold whole records one after another (a cluster message carrying
/// several commits) into the records, unchecked (each is checked when decoded). `None`
/// when a frame is bad or the bytes end inside a record.
pub(crate) fn split_records(mut bytes: &[u8]) -> Option<Vec<&[u8]>> {
    let mut records = Vec::new();
    while !bytes.is_empty() {
        let frame = decode_frame(bytes.get(..FRAME_LEN)?.try_into().ok()?)?;
        let len = FRAME_LEN
            .checked_add(32)?
            .checked_add(frame.header_len)?
            .checked_add(frame.quads_len)?;
        let record = bytes.get(..len)?;
        records.push(record);
        bytes = &bytes[len..];
    }
    Some(records)
}

/// The header of a whole record in memory, unchecked (its CRC is checked when the
/// record is decoded): to decide how to apply it.
pub(crate) fn peek_header(bytes: &[u8]) -> Option<CommitHeader> {
    let frame = decode_frame(bytes.get(..FRAME_LEN)?.try_into().ok()?)?;
    decode_head(&frame, &bytes[FRAME_LEN..]).map(|(_, header)| header)
}

/// Checks a whole record held in a file (`len` bytes from its start) without reading it
/// whole into memory: the frame, the lengths, the CRC (read 1 MiB at a time), and the
/// header's hash. Returns the frame, hash and header. The quads' digest is left to the
/// caller, who inflates them anyway (`quads_in_file` then `DigestReader`).
pub(crate) fn check_record_file(
    file: &std::fs::File,
    len: u64,
) -> Option<(Frame, CommitHash, CommitHeader)> {
    use std::os::unix::fs::FileExt;
    let mut frame_bytes = [0u8; FRAME_LEN];
    file.read_exact_at(&mut frame_bytes, 0).ok()?;
    let frame = decode_frame(&frame_bytes)?;
    if len != (FRAME_LEN + 32 + frame.header_len + frame.quads_len) as u64 {
        return None;
    }
    let mut head = vec![0u8; 32 + frame.header_len];
    file.read_exact_at(&mut head, FRAME_LEN as u64).ok()?;
    let mut crc = crc32fast::Hasher::new();
    crc.update(&head);
    let mut buffer = vec![0u8; 1 << 20];
    let mut at = (FRAME_LEN + head.len()) as u64;
    while at < len {
        let n = usize::try_from((len - at).min(buffer.len() as u64)).ok()?;
        file.read_exact_at(&mut buffer[..n], at).ok()?;
        crc.update(&buffer[..n]);
        at += n as u64;
    }
    if crc.finalize() != frame.crc {
        return None;
    }
    let (hash, header) = decode_head(&frame, &head)?;
    (header.hash() == hash).then_some((frame, hash, header))
}

/// The quads of the record at `offset` of a file (whose frame is `frame`), as a stream:
/// inflated when stored compressed.
pub(crate) fn quads_reader_at<'a>(
    file: &'a std::fs::File,
    offset: u64,
    frame: &Frame,
) -> Box<dyn std::io::Read + Send + 'a> {
    let start = offset + (FRAME_LEN + 32 + frame.header_len) as u64;
    let stored = std::io::BufReader::with_capacity(
        1 << 20,
        OffsetReader {
            file,
            at: start,
            end: start + frame.quads_len as u64,
        },
    );
    if frame.flags & FLAG_DEFLATE != 0 {
        Box::new(flate2::bufread::DeflateDecoder::new(stored))
    } else {
        Box::new(stored)
    }
}

/// Reads `at..end` of a file with positioned reads (the file's own offset untouched).
struct OffsetReader<'a> {
    file: &'a std::fs::File,
    at: u64,
    end: u64,
}

impl std::io::Read for OffsetReader<'_> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let left = usize::try_from(self.end - self.at).unwrap_or(usize::MAX);
        let n = out.len().min(left);
        if n == 0 {
            return Ok(0);
        }
        let read = std::os::unix::fs::FileExt::read_at(self.file, &mut out[..n], self.at)?;
        if read == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        self.at += read as u64;
        Ok(read)
    }
}

/// Passes bytes through, hashing them: a record's quads are checked against the
/// header's digest while they are applied.
pub(crate) struct DigestReader<R> {
    inner: R,
    hasher: Sha256,
}

impl<R> DigestReader<R> {
    pub fn new(inner: R) -> Self {
        Self {
            inner,
            hasher: Sha256::new(),
        }
    }

    /// The SHA-256 of every byte read so far.
    pub fn digest(&self) -> [u8; 32] {
        self.hasher.clone().finalize().into()
    }
}

impl<R: std::io::Read> std::io::Read for DigestReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }
}

/// Checks the CRC of `rest` (hash, header and stored quads) and decodes the record.
/// `decode_quads` is false when the caller only needs the header (start-up scan).
/// The hash and header at the start of a record's body (`rest`, whose CRC the caller
/// checked).
pub(crate) fn decode_head(frame: &Frame, rest: &[u8]) -> Option<(CommitHash, CommitHeader)> {
    let hash = CommitHash(rest.get(0..32)?.try_into().ok()?);
    let header = CommitHeader::decode(rest.get(32..32 + frame.header_len)?)?;
    Some((hash, header))
}

pub(crate) fn decode_body(frame: &Frame, rest: &[u8], decode_quads: bool) -> Option<CommitRecord> {
    if crc32fast::hash(rest) != frame.crc {
        return None;
    }
    let (hash, header) = decode_head(frame, rest)?;
    let stored = &rest[32 + frame.header_len..];
    let quads = if !decode_quads {
        Vec::new()
    } else if frame.flags & FLAG_DEFLATE != 0 {
        let mut out = Vec::with_capacity(stored.len() * 4);
        flate2::read::DeflateDecoder::new(stored)
            .read_to_end(&mut out)
            .ok()?;
        out
    } else {
        stored.to_vec()
    };
    Some(CommitRecord {
        header,
        hash,
        quads,
    })
}

fn push_optional(out: &mut String, name: &str, value: Option<&str>) {
    out.push_str(name);
    out.push(' ');
    out.push_str(value.unwrap_or("-"));
    out.push('\n');
}

fn push_optional_string(out: &mut String, name: &str, value: Option<&str>) {
    out.push_str(name);
    out.push(' ');
    match value {
        None => out.push('-'),
        Some(value) => {
            out.push('"');
            for c in value.chars() {
                match c {
                    '"' => out.push_str("\\\""),
                    '\\' => out.push_str("\\\\"),
                    '\n' => out.push_str("\\n"),
                    '\r' => out.push_str("\\r"),
                    '\t' => out.push_str("\\t"),
                    c if (c as u32) < 0x20 || c == '\u{7f}' => {
                        out.push_str(&format!("\\u{:04x}", c as u32));
                    }
                    c => out.push(c),
                }
            }
            out.push('"');
        }
    }
    out.push('\n');
}

fn decode_optional_string(value: &str) -> Option<Option<String>> {
    if value == "-" {
        return Some(None);
    }
    let inner = value.strip_prefix('"')?.strip_suffix('"')?;
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next()? {
            '"' => out.push('"'),
            '\\' => out.push('\\'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'u' => {
                let code: String = chars.by_ref().take(4).collect();
                out.push(char::from_u32(u32::from_str_radix(&code, 16).ok()?)?);
            }
            _ => return None,
        }
    }
    Some(Some(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header() -> CommitHeader {
        CommitHeader {
            commit_seq: 7,
            parent_hash: CommitHash([3; 32]),
            committed_at: parse_time("2026-11-30T10:00:00.5Z").unwrap(),
            observed_at: Some(parse_time("2020-01-01T00:00:00+02:00").unwrap()),
            author: Some("ana \"the\" analyst\n\u{1}".into()),
            message: None,
            idempotency_key: Some("k-1".into()),
            request_digest: Some([9; 32]),
            n_inserted: 2,
            n_deleted: 1,
            quads_digest: quads_digest(b"<a> <b> <c> .\n"),
        }
    }

    #[test]
    fn header_round_trips_through_its_canonical_text() {
        let header = header();
        let decoded = CommitHeader::decode(&header.encode()).unwrap();
        assert_eq!(decoded, header);
        assert_eq!(decoded.hash(), header.hash());
    }

    #[test]
    fn every_field_changes_the_hash() {
        let base = header().hash();
        let mut other = header();
        other.author = Some("someone else".into());
        assert_ne!(other.hash(), base);
        let mut other = header();
        other.parent_hash = CommitHash([4; 32]);
        assert_ne!(other.hash(), base);
        let mut other = header();
        other.n_deleted = 0;
        assert_ne!(other.hash(), base);
    }

    #[test]
    fn records_one_after_another_split_back_into_each_record() {
        let record = |seq: u64, quads: &str| {
            let section = encode_quads(quads.as_bytes());
            let header = CommitHeader {
                commit_seq: seq,
                quads_digest: section.digest,
                ..header()
            };
            encode_record(&header, header.hash(), &section).expect("in memory")
        };
        // One small record, one compressed one, one more.
        let parts = [
            record(7, "<http://e/a> <http://e/b> 1 .\n"),
            record(8, &"<http://e/a> <http://e/b> <http://e/c> .\n".repeat(200)),
            record(9, ""),
        ];
        let joined = parts.concat();
        let split = split_records(&joined).expect("whole records");
        assert_eq!(split, parts.iter().map(Vec::as_slice).collect::<Vec<_>>());
        let seqs: Vec<u64> = split
            .iter()
            .map(|r| decode_record(r).expect("decodes").header.commit_seq)
            .collect();
        assert_eq!(seqs, [7, 8, 9]);
        // Cut inside the last record, or garbage after a record: refused.
        assert!(split_records(&joined[..joined.len() - 1]).is_none());
        let mut trailing = parts[0].clone();
        trailing.extend_from_slice(b"junk");
        assert!(split_records(&trailing).is_none());
        assert_eq!(split_records(&[]), Some(Vec::new()));
    }

    #[test]
    fn record_frame_detects_corruption() {
        let quads = "<http://e/a> <http://e/b> <http://e/c> .\n".repeat(100);
        let header = header();
        let section = encode_quads(quads.as_bytes());
        assert_eq!(section.digest, quads_digest(quads.as_bytes()));
        let bytes = encode_record(&header, header.hash(), &section).expect("in memory");
        let frame = decode_frame(bytes[..FRAME_LEN].try_into().unwrap()).unwrap();
        assert_ne!(frame.flags, 0, "large quads sections are compressed");
        let record = decode_body(&frame, &bytes[FRAME_LEN..], true).unwrap();
        assert_eq!(record.quads, quads.as_bytes());
        let mut corrupted = bytes.clone();
        let last = corrupted.len() - 1;
        corrupted[last] ^= 1;
        assert!(decode_body(&frame, &corrupted[FRAME_LEN..], true).is_none());
        // Every byte of the frame counts: the reserved ones (outside the CRC) included.
        let header = CommitHeader {
            quads_digest: section.digest,
            ..header
        };
        let bytes = encode_record(&header, header.hash(), &section).expect("in memory");
        assert!(decode_record(&bytes).is_some());
        for at in 0..FRAME_LEN {
            let mut flipped = bytes.clone();
            flipped[at] ^= 1;
            assert!(
                decode_record(&flipped).is_none(),
                "byte {at} of the frame flipped"
            );
        }
    }
    /// A big section goes to an unlinked spill file beside the log: the record written
    /// from it is byte for byte the one built in memory, it decodes, and no file is left.
    #[test]
    fn a_big_section_spills_to_an_unlinked_file_and_writes_the_same_record() {
        let dir = tempfile::tempdir().expect("temporary directory");
        let mut text = Vec::new();
        let mut x = 7u64;
        for i in 0..20_000u64 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            text.extend_from_slice(
                format!("<http://e/s{i}> <http://e/p> \"{:016x}\" .\n", x).as_bytes(),
            );
        }
        let mut spilling = QuadsEncoder::spilling_into(dir.path());
        spilling.write_all(&text).expect("write");
        let spilled = spilling.finish().expect("finish");
        assert!(spilled.is_spilled());
        assert_eq!(std::fs::read_dir(dir.path()).expect("dir").count(), 0);
        let in_memory = encode_quads(&text);
        assert!(!in_memory.is_spilled());
        let mut header = header();
        header.quads_digest = spilled.digest;
        let expected = encode_record(&header, header.hash(), &in_memory).expect("in memory");
        let record = EncodedRecord::new(&header, header.hash(), spilled);
        let mut written = Vec::new();
        record.write_to(&mut written).expect("write");
        assert_eq!(record.len(), written.len() as u64);
        assert_eq!(written, expected);
        assert_eq!(record.to_vec().expect("read back"), expected);
        let decoded = decode_record(&written).expect("decodes");
        assert_eq!(decoded.quads, text);
    }

    #[test]
    fn small_sections_are_stored_raw_and_larger_ones_compressed_however_they_are_written() {
        let line = b"<http://e/s> <http://e/p> \"a literal that repeats\" .\n";
        for lines in [1usize, 18, 19, 20, 200] {
            let text: Vec<u8> = line.repeat(lines);
            // Written a line at a time (as the writer does), crossing the threshold
            // somewhere in the middle.
            let mut encoder = QuadsEncoder::default();
            for chunk in text.chunks(line.len()) {
                encoder.write_all(chunk).expect("write");
            }
            let section = encoder.finish().expect("finish");
            assert_eq!(section.digest, quads_digest(&text));
            assert_eq!(
                section.compressed,
                text.len() >= COMPRESS_MIN_BYTES,
                "{lines} lines"
            );
            if section.compressed {
                assert!(section.stored_len() < text.len() as u64, "{lines} lines");
            }
            let mut header = header();
            header.quads_digest = section.digest;
            let record = encode_record(&header, header.hash(), &section).expect("encode");
            let decoded = decode_record(&record).expect("decodes");
            assert_eq!(decoded.quads, text, "{lines} lines");
            // The compressed bytes depend on how the text was cut into writes; the record's
            // hash does not (it covers the text's digest).
            let whole = encode_quads(&text);
            assert_eq!(whole.compressed, section.compressed, "{lines} lines");
            assert_eq!(whole.digest, section.digest, "{lines} lines");
        }
    }
}
