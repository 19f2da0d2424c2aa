//! Scanning a log at open (finding a torn tail) and verifying its whole chain.

use std::fs::File;
use std::io::{BufReader, Read};
use std::os::unix::fs::FileExt;
use std::path::Path;

use sha2::{Digest, Sha256};

use super::LogError;
use super::codec::{self, CommitHeader, FRAME_LEN};
use super::writer::io_error;
use crate::model::{CommitHash, CommitSeq};

/// A commit found in the log, without its quads.
#[derive(Clone, Debug)]
pub struct LogEntry {
    pub header: CommitHeader,
    pub hash: CommitHash,
    /// Byte offset of the record's frame.
    pub offset: u64,
    /// Length of the whole record in bytes.
    pub len: u64,
}

/// What was found when a log was opened.
#[derive(Debug, Default)]
pub struct OpenReport {
    pub entries: Vec<LogEntry>,
    /// Bytes of the file that hold whole, valid records.
    pub valid_len: u64,
    /// The torn or corrupt tail that was cut, if any.
    pub cut: Option<TailCut>,
}

/// A torn or corrupt tail found at open.
#[derive(Clone, Debug)]
pub struct TailCut {
    pub offset: u64,
    pub bytes: u64,
    pub reason: String,
}

/// Result of re-hashing the whole chain.
#[derive(Debug)]
pub struct VerifyReport {
    pub n_commits: u64,
    pub head_hash: CommitHash,
    /// The first commit whose record, hash or link is wrong, with the reason.
    pub first_bad: Option<(CommitSeq, String)>,
    /// Trailing bytes that do not form a whole record (a torn tail not yet cut).
    pub trailing_bytes: u64,
    /// Bytes of the file holding the verified commits (where a repair would cut).
    pub valid_len: u64,
    /// Intact records (frame and CRC) found after the first bad one: when non-zero, the
    /// damage is in the middle of the log, not a torn tail.
    pub intact_after: u64,
}

/// Reads every record's frame and header, checking CRCs and chain links.
///
/// Only a *tail* may be cut automatically: a record that is torn or garbled with nothing
/// valid after it is what a crash in the middle of an append leaves behind. A bad record
/// followed by any intact record (or an intact record that does not link to its
/// predecessor) is corruption of acknowledged history: it is reported as
/// `LogError::Corrupt`, and nothing is cut.
///
/// With `mapped` (only the process holding the data directory's lock: see
/// `crate::mapped`), records are checksummed in place in a memory map, without copying
/// the log through read calls: at tens of GB that copy is most of an open's time.
pub(crate) fn scan(path: &Path, file: &File, mapped: bool) -> Result<OpenReport, LogError> {
    let file_len = file
        .metadata()
        .map_err(|source| io_error(path, source))?
        .len();
    let map = if mapped && file_len > 0 {
        Some(crate::mapped::map_readonly(file).map_err(|e| io_error(path, e))?)
    } else {
        None
    };
    let mut reader =
        BufReader::with_capacity(SCAN_CHUNK, file.try_clone().map_err(|e| io_error(path, e))?);
    let mut report = OpenReport::default();
    let mut offset = 0u64;
    let mut expected_parent = CommitHash::ZERO;
    let mut released = 0u64;
    let mut body = Vec::new();
    while offset < file_len {
        let expected_seq = report.entries.len() as u64 + 1;
        let one = match &map {
            Some(map) => {
                if offset - released >= crate::mapped::RELEASE_STEP as u64 {
                    // Many small records: their pages go a step at a time.
                    crate::mapped::release_pages(
                        map,
                        released as usize,
                        (offset - released) as usize,
                    );
                    released = offset;
                }
                read_one_mapped(map, offset as usize, file_len as usize)
            }
            None => read_one(&mut reader, file_len - offset, &mut body),
        };
        match one {
            Ok((header, hash, len)) => {
                if header.commit_seq != expected_seq || header.parent_hash != expected_parent {
                    // An intact record in the wrong place is never a torn write.
                    return Err(LogError::Corrupt {
                        path: path.display().to_string(),
                        commit_seq: expected_seq,
                        offset,
                        reason: format!(
                            "an intact record for commit {} does not link to commit {}",
                            header.commit_seq,
                            expected_seq - 1
                        ),
                        // The records after this one (it is intact itself, but not a
                        // commit of this history): what `verify` counts too.
                        intact_after: count_intact_records(file, offset + len, file_len),
                    });
                }
                expected_parent = hash;
                report.entries.push(LogEntry {
                    header,
                    hash,
                    offset,
                    len,
                });
                offset += len;
            }
            Err(reason) => {
                let intact_after = count_intact_records(file, offset + 1, file_len);
                if intact_after > 0 {
                    return Err(LogError::Corrupt {
                        path: path.display().to_string(),
                        commit_seq: expected_seq,
                        offset,
                        reason,
                        intact_after,
                    });
                }
                report.cut = Some(TailCut {
                    offset,
                    bytes: file_len - offset,
                    reason,
                });
                break;
            }
        }
    }
    report.valid_len = offset;
    Ok(report)
}

/// Counts the records between `from` and `end` that pass their frame and CRC checks,
/// wherever they start (a search for the record magic, then a full check of each
/// candidate). Used after a bad record to tell a torn tail (none) from corruption in the
/// middle of the log (some).
pub(crate) fn count_intact_records(file: &File, from: u64, end: u64) -> u64 {
    let mut count = 0;
    intact_records(file, from, end, |_| count += 1);
    count
}

/// The highest commit number an intact record between `from` and `end` carries (what a
/// repair removing those bytes must not hand out again).
pub(crate) fn highest_intact_commit(file: &File, from: u64, end: u64) -> Option<CommitSeq> {
    let mut highest = None;
    intact_records(file, from, end, |seq| {
        highest = highest.max(Some(seq));
    });
    highest
}

/// Whether a whole record that passes its CRC starts at `at`.
pub(crate) fn intact_record_at(file: &File, at: u64, end: u64) -> bool {
    intact_record(file, at, end).is_some()
}

/// Calls `visit` with the commit number of each record between `from` and `end` that
/// passes its frame and CRC checks (found by their magic, skipping garbled bytes).
fn intact_records(file: &File, from: u64, end: u64, mut visit: impl FnMut(CommitSeq)) {
    const CHUNK: usize = 1 << 20;
    let mut pos = from;
    let mut chunk = vec![0u8; CHUNK];
    'chunks: while pos + FRAME_LEN as u64 <= end {
        let want = usize::try_from((end - pos).min(CHUNK as u64)).unwrap_or(CHUNK);
        if file.read_exact_at(&mut chunk[..want], pos).is_err() {
            break;
        }
        let mut i = 0;
        while let Some(found) = find_magic(&chunk[i..want]) {
            let at = pos + (i + found) as u64;
            match intact_record(file, at, end) {
                Some((len, seq)) => {
                    visit(seq);
                    pos = at + len;
                    continue 'chunks;
                }
                None => i += found + 1,
            }
        }
        if pos + want as u64 >= end {
            break;
        }
        // Overlap by the magic's length minus one so a magic split across two reads is
        // still found.
        pos += (want - (codec::MAGIC.len() - 1)) as u64;
    }
}

fn find_magic(bytes: &[u8]) -> Option<usize> {
    bytes
        .windows(codec::MAGIC.len())
        .position(|w| w == codec::MAGIC)
}

/// The length and commit number of the record at `at` when it is whole and passes its
/// CRC.
fn intact_record(file: &File, at: u64, end: u64) -> Option<(u64, CommitSeq)> {
    let mut frame_bytes = [0u8; FRAME_LEN];
    file.read_exact_at(&mut frame_bytes, at).ok()?;
    let frame = codec::decode_frame(&frame_bytes)?;
    let rest_len = 32usize
        .checked_add(frame.header_len)?
        .checked_add(frame.quads_len)?;
    let total = FRAME_LEN as u64 + rest_len as u64;
    if at.checked_add(total)? > end {
        return None;
    }
    let mut rest = vec![0u8; rest_len];
    file.read_exact_at(&mut rest, at + FRAME_LEN as u64).ok()?;
    let record = codec::decode_body(&frame, &rest, false)?;
    Some((total, record.header.commit_seq))
}

/// Re-reads the whole log, recomputing every quads digest and commit hash.
pub fn verify_log(path: &Path) -> Result<VerifyReport, LogError> {
    verify_log_with(path, |_, _| {})
}

/// Like `verify_log`, calling `visit` with each verified commit and its hash.
pub fn verify_log_with(
    path: &Path,
    mut visit: impl FnMut(CommitSeq, CommitHash),
) -> Result<VerifyReport, LogError> {
    let file = File::open(path).map_err(|source| io_error(path, source))?;
    let file_len = file.metadata().map_err(|e| io_error(path, e))?.len();
    let mut reader = BufReader::with_capacity(1 << 20, &file);
    let mut report = VerifyReport {
        n_commits: 0,
        head_hash: CommitHash::ZERO,
        first_bad: None,
        trailing_bytes: 0,
        valid_len: 0,
        intact_after: 0,
    };
    let mut buffer = Vec::new();
    while report.valid_len < file_len {
        let remaining = file_len - report.valid_len;
        match verify_one(&mut reader, remaining, &mut buffer, &report) {
            Ok((hash, len)) => {
                report.head_hash = hash;
                report.n_commits += 1;
                visit(report.n_commits, hash);
                report.valid_len += len;
            }
            Err(problem) => {
                report.intact_after = count_intact_records(&file, report.valid_len + 1, file_len);
                match problem {
                    Problem::Wrong(reason) | Problem::Garbled(reason)
                        if report.intact_after > 0 || matches!(problem, Problem::Wrong(_)) =>
                    {
                        report.first_bad = Some((report.n_commits + 1, reason));
                    }
                    // Nothing intact after it: a torn tail, which the next open cuts.
                    _ => report.trailing_bytes = remaining,
                }
                break;
            }
        }
    }
    Ok(report)
}

/// Why the next bytes are not the next commit.
enum Problem {
    /// Not a whole record that passes its frame and CRC checks: what a torn write leaves.
    Garbled(String),
    /// A whole, intact record whose content is wrong (sequence, link, digest or hash).
    Wrong(String),
}

/// Verifies the next record against the chain so far.
fn verify_one(
    reader: &mut impl Read,
    remaining: u64,
    buffer: &mut Vec<u8>,
    so_far: &VerifyReport,
) -> Result<(CommitHash, u64), Problem> {
    let torn = || Problem::Garbled("torn record".into());
    let mut frame_bytes = [0u8; FRAME_LEN];
    if remaining < FRAME_LEN as u64 || reader.read_exact(&mut frame_bytes).is_err() {
        return Err(torn());
    }
    let frame = codec::decode_frame(&frame_bytes)
        .ok_or_else(|| Problem::Garbled("bad record frame".into()))?;
    let rest_len = 32 + frame.header_len + frame.quads_len;
    if remaining - (FRAME_LEN as u64) < rest_len as u64 {
        return Err(torn());
    }
    // The hash and header are kept; the quads pass through the checksum and, inflated,
    // through the digest, in chunks: a record of any size (a 50M-triple import is one
    // record of ~13 GB of N-Quads) costs a fixed amount of memory.
    let undecodable = || Problem::Garbled("checksum mismatch or undecodable header".into());
    let head_len = 32 + frame.header_len;
    buffer.resize(head_len, 0);
    reader
        .read_exact(buffer)
        .map_err(|e| Problem::Garbled(format!("read error: {e}")))?;
    let mut crc = crc32fast::Hasher::new();
    crc.update(buffer);
    let mut stored = Checksummed {
        inner: reader.by_ref().take(frame.quads_len as u64),
        crc: &mut crc,
        read: 0,
    };
    let mut digest = DigestWriter(Sha256::new());
    let inflated = if frame.flags & codec::FLAG_DEFLATE != 0 {
        let mut decoder = flate2::read::DeflateDecoder::new(&mut stored);
        std::io::copy(&mut decoder, &mut digest).is_ok()
    } else {
        std::io::copy(&mut stored, &mut digest).is_ok()
    };
    // What the decoder left unread (all of it after a decode error) counts for the CRC.
    std::io::copy(&mut stored, &mut std::io::sink())
        .map_err(|e| Problem::Garbled(format!("read error: {e}")))?;
    if stored.read != frame.quads_len as u64 {
        return Err(torn());
    }
    if crc.finalize() != frame.crc || !inflated {
        return Err(undecodable());
    }
    let record_hash = CommitHash(buffer[0..32].try_into().map_err(|_| undecodable())?);
    let header = CommitHeader::decode(&buffer[32..head_len]).ok_or_else(undecodable)?;
    let seq = so_far.n_commits + 1;
    // The words the open uses for the same record (`scan`).
    if header.commit_seq != seq || header.parent_hash != so_far.head_hash {
        return Err(Problem::Wrong(format!(
            "an intact record for commit {} does not link to commit {}",
            header.commit_seq,
            seq - 1
        )));
    }
    if <[u8; 32]>::from(digest.0.finalize()) != header.quads_digest {
        return Err(Problem::Wrong("quads do not match quads_digest".into()));
    }
    let hash = header.hash();
    if hash != record_hash {
        return Err(Problem::Wrong(
            "stored hash differs from the recomputed hash".into(),
        ));
    }
    Ok((hash, (FRAME_LEN + rest_len) as u64))
}

/// A reader that feeds what it reads to a CRC and counts it.
struct Checksummed<'a, R> {
    inner: R,
    crc: &'a mut crc32fast::Hasher,
    read: u64,
}

impl<R: Read> Read for Checksummed<'_, R> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(out)?;
        self.crc.update(&out[..n]);
        self.read += n as u64;
        Ok(n)
    }
}

/// A writer that only hashes.
struct DigestWriter(Sha256);

impl std::io::Write for DigestWriter {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.update(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Like `read_one`, on the record at `at` in a mapped log (which ends at `end`): its
/// header, hash and total length, or why it is not whole. The CRC is computed a step at
/// a time, and the pages of a record larger than a step are released as they are
/// hashed, so a record of gigabytes (one big import) does not stay resident (see
/// `crate::mapped::release_pages`).
fn read_one_mapped(
    map: &memmap2::Mmap,
    at: usize,
    end: usize,
) -> Result<(CommitHeader, CommitHash, u64), String> {
    let bytes = &map[at..end];
    let torn = || format!("torn record: {} trailing bytes", bytes.len());
    let frame_bytes: &[u8; FRAME_LEN] = bytes
        .get(..FRAME_LEN)
        .and_then(|b| b.try_into().ok())
        .ok_or_else(torn)?;
    let frame = codec::decode_frame(frame_bytes).ok_or("bad record frame")?;
    let rest_len = 32 + frame.header_len + frame.quads_len;
    let rest = bytes
        .get(FRAME_LEN..FRAME_LEN.checked_add(rest_len).ok_or_else(torn)?)
        .ok_or_else(torn)?;
    if crate::mapped::crc_released(map, (at + FRAME_LEN, rest_len), true, &|| false)
        != Some(frame.crc)
    {
        return Err("checksum mismatch".into());
    }
    let (hash, header) = codec::decode_head(&frame, rest).ok_or("checksum mismatch")?;
    Ok((header, hash, (FRAME_LEN + rest_len) as u64))
}

/// Bytes read at once while checksumming a record's quads (and the scan's buffer size).
const SCAN_CHUNK: usize = 1 << 20;

fn read_one(
    reader: &mut impl Read,
    remaining: u64,
    body: &mut Vec<u8>,
) -> Result<(CommitHeader, CommitHash, u64), String> {
    if remaining < FRAME_LEN as u64 {
        return Err(format!("torn record: {remaining} trailing bytes"));
    }
    let mut frame_bytes = [0u8; FRAME_LEN];
    reader
        .read_exact(&mut frame_bytes)
        .map_err(|e| format!("read error: {e}"))?;
    let frame = codec::decode_frame(&frame_bytes).ok_or("bad record frame")?;
    let rest_len = 32 + frame.header_len + frame.quads_len;
    if remaining - (FRAME_LEN as u64) < rest_len as u64 {
        return Err(format!("torn record: {remaining} trailing bytes"));
    }
    // The hash and header are kept; the quads only pass through the checksum, in chunks,
    // so a record of any size costs a fixed amount of memory.
    let head_len = 32 + frame.header_len;
    body.resize(head_len, 0);
    reader
        .read_exact(body)
        .map_err(|e| format!("read error: {e}"))?;
    let mut crc = crc32fast::Hasher::new();
    crc.update(body);
    // As large as the reader's buffer, so large records are read past it (one copy).
    let mut chunk = vec![0u8; SCAN_CHUNK.min(frame.quads_len.max(1))];
    let mut left = frame.quads_len;
    while left > 0 {
        let n = left.min(chunk.len());
        reader
            .read_exact(&mut chunk[..n])
            .map_err(|e| format!("read error: {e}"))?;
        crc.update(&chunk[..n]);
        left -= n;
    }
    if crc.finalize() != frame.crc {
        return Err("checksum mismatch".into());
    }
    let hash = CommitHash(body[0..32].try_into().map_err(|_| "short record")?);
    let header = CommitHeader::decode(&body[32..head_len]).ok_or("undecodable header")?;
    Ok((header, hash, (FRAME_LEN + rest_len) as u64))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::log::codec::{encode_quads, encode_record};

    /// Three chained records, the middle one's quads compressed (and `lie` records a
    /// digest of other quads in its header, with a correct CRC).
    fn log_of_three(lie: bool) -> (Vec<u8>, std::ops::Range<usize>) {
        let mut bytes = Vec::new();
        let mut parent = CommitHash::ZERO;
        let mut middle = 0..0;
        for seq in 1..=3u64 {
            let quads = format!("<http://e/s{seq}> <http://e/p> \"{seq}\" .\n").repeat(500);
            let section = encode_quads(quads.as_bytes());
            let header = CommitHeader {
                commit_seq: seq,
                parent_hash: parent,
                committed_at: time::OffsetDateTime::UNIX_EPOCH,
                observed_at: None,
                author: None,
                message: None,
                idempotency_key: None,
                request_digest: None,
                n_inserted: 500,
                n_deleted: 0,
                quads_digest: if lie && seq == 2 {
                    codec::quads_digest(b"other quads")
                } else {
                    section.digest
                },
            };
            let record = encode_record(&header, header.hash(), &section).unwrap();
            if seq == 2 {
                middle = bytes.len()..bytes.len() + record.len();
            }
            bytes.extend_from_slice(&record);
            parent = header.hash();
        }
        (bytes, middle)
    }

    fn verify(bytes: &[u8]) -> VerifyReport {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("commits.log");
        std::fs::write(&path, bytes).unwrap();
        verify_log(&path).unwrap()
    }

    #[test]
    fn verify_streams_each_record_through_its_checksum_and_digest() {
        let (bytes, middle) = log_of_three(false);
        let report = verify(&bytes);
        assert_eq!((report.n_commits, report.first_bad), (3, None));
        // A flipped byte anywhere in the middle record's stored (compressed) quads.
        let quads_start = middle.end - 40;
        for at in [quads_start, middle.end - 1] {
            let mut damaged = bytes.clone();
            damaged[at] ^= 0x10;
            let report = verify(&damaged);
            assert_eq!(report.n_commits, 1, "byte {at}");
            assert_eq!(
                report.first_bad.as_ref().map(|(seq, _)| *seq),
                Some(2),
                "byte {at}"
            );
            assert_eq!(report.intact_after, 1);
        }
        // An intact record whose quads are not the ones its header names.
        let (lying, _) = log_of_three(true);
        let report = verify(&lying);
        assert_eq!(
            report.first_bad,
            Some((2, "quads do not match quads_digest".into()))
        );
        // Cut inside the last record: a torn tail, not damage.
        let report = verify(&bytes[..bytes.len() - 5]);
        assert_eq!((report.n_commits, report.first_bad), (2, None));
        assert!(report.trailing_bytes > 0);
    }
}
