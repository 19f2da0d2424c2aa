//! Scanning a log at open (finding a torn tail) and verifying its whole chain.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

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
}

/// Reads every record's frame and header, checking CRCs and chain links. Stops at the
/// first record that is torn, corrupt or out of sequence and reports it as the tail.
pub(crate) fn scan(path: &Path, file: &File) -> Result<OpenReport, LogError> {
    let file_len = file
        .metadata()
        .map_err(|source| io_error(path, source))?
        .len();
    let mut reader =
        BufReader::with_capacity(1 << 20, file.try_clone().map_err(|e| io_error(path, e))?);
    let mut report = OpenReport::default();
    let mut offset = 0u64;
    let mut expected_parent = CommitHash::ZERO;
    let mut body = Vec::new();
    while offset < file_len {
        match read_one(&mut reader, file_len - offset, &mut body) {
            Ok((header, hash, len)) => {
                let expected_seq = report.entries.len() as u64 + 1;
                if header.commit_seq != expected_seq || header.parent_hash != expected_parent {
                    report.cut = Some(TailCut {
                        offset,
                        bytes: file_len - offset,
                        reason: format!(
                            "commit {} does not link to commit {}",
                            header.commit_seq,
                            expected_seq - 1
                        ),
                    });
                    break;
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

/// Re-reads the whole log, recomputing every quads digest and commit hash.
pub fn verify_log(path: &Path) -> Result<VerifyReport, LogError> {
    let file = File::open(path).map_err(|source| io_error(path, source))?;
    let file_len = file.metadata().map_err(|e| io_error(path, e))?.len();
    let mut reader = BufReader::with_capacity(1 << 20, file);
    let mut offset = 0u64;
    let mut parent = CommitHash::ZERO;
    let mut n_commits = 0u64;
    let mut buffer = Vec::new();
    while offset < file_len {
        let seq = n_commits + 1;
        let mut frame_bytes = [0u8; FRAME_LEN];
        if file_len - offset < FRAME_LEN as u64 || reader.read_exact(&mut frame_bytes).is_err() {
            return Ok(bad_or_trailing(n_commits, parent, file_len - offset, None));
        }
        let Some(frame) = codec::decode_frame(&frame_bytes) else {
            return Ok(bad_or_trailing(
                n_commits,
                parent,
                file_len - offset,
                Some((seq, "bad record frame".into())),
            ));
        };
        let rest_len = 32 + frame.header_len + frame.quads_len;
        if (file_len - offset - FRAME_LEN as u64) < rest_len as u64 {
            return Ok(bad_or_trailing(n_commits, parent, file_len - offset, None));
        }
        buffer.resize(rest_len, 0);
        reader
            .read_exact(&mut buffer)
            .map_err(|source| io_error(path, source))?;
        let Some(record) = codec::decode_body(&frame, &buffer, true) else {
            return Ok(bad(
                n_commits,
                parent,
                seq,
                "checksum mismatch or undecodable header",
            ));
        };
        let header = &record.header;
        if header.commit_seq != seq {
            return Ok(bad(
                n_commits,
                parent,
                seq,
                &format!("record says commit {}", header.commit_seq),
            ));
        }
        if header.parent_hash != parent {
            return Ok(bad(
                n_commits,
                parent,
                seq,
                "parent_hash does not match the previous commit's hash",
            ));
        }
        if codec::quads_digest(&record.quads) != header.quads_digest {
            return Ok(bad(
                n_commits,
                parent,
                seq,
                "quads do not match quads_digest",
            ));
        }
        let hash = header.hash();
        if hash != record.hash {
            return Ok(bad(
                n_commits,
                parent,
                seq,
                "stored hash differs from the recomputed hash",
            ));
        }
        parent = hash;
        n_commits = seq;
        offset += (FRAME_LEN + rest_len) as u64;
    }
    Ok(VerifyReport {
        n_commits,
        head_hash: parent,
        first_bad: None,
        trailing_bytes: 0,
    })
}

fn bad(n_commits: u64, head_hash: CommitHash, seq: CommitSeq, reason: &str) -> VerifyReport {
    VerifyReport {
        n_commits,
        head_hash,
        first_bad: Some((seq, reason.to_owned())),
        trailing_bytes: 0,
    }
}

fn bad_or_trailing(
    n_commits: u64,
    head_hash: CommitHash,
    trailing_bytes: u64,
    first_bad: Option<(CommitSeq, String)>,
) -> VerifyReport {
    VerifyReport {
        n_commits,
        head_hash,
        first_bad,
        trailing_bytes,
    }
}

/// Reads one record; returns its header, hash and total length, or why it is not whole.
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
    body.resize(rest_len, 0);
    reader
        .read_exact(body)
        .map_err(|e| format!("read error: {e}"))?;
    let record = codec::decode_body(&frame, body, false).ok_or("checksum mismatch")?;
    Ok((record.header, record.hash, (FRAME_LEN + rest_len) as u64))
}
