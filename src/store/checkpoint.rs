//! Legacy checkpoints (`checkpoint.bin`, format 1): the whole store in one file, written
//! by builds before the store moved to segment files and a manifest. They are no longer
//! written or loaded; a data directory that has one is upgraded at its first open (the
//! log is replayed, then flushed to files). Only what the file says about itself is still
//! read, so the open can check it against the log (invariant I4): a checkpoint ahead of
//! the log proves the log lost acknowledged commits, whatever format recorded it.
//!
//! ```text
//! "strata-checkpoint 1\n" | deflate( seq u64 | hash [32] | … ) | crc32 u32
//! ```

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

use crate::model::{CommitHash, CommitSeq};

const MAGIC: &[u8] = b"strata-checkpoint 1\n";

/// What a checkpoint file says about itself.
#[derive(Clone, Copy, Debug)]
pub struct CheckpointInfo {
    pub commit_seq: CommitSeq,
    pub hash: CommitHash,
}

/// Reads only what a checkpoint says about itself (after checking its CRC), without
/// building a store: for `strata verify` and `strata repair`.
pub fn read_checkpoint_info(path: &Path) -> std::io::Result<CheckpointInfo> {
    let body = read_checked_body(path)?;
    let invalid = || std::io::Error::new(std::io::ErrorKind::InvalidData, "truncated checkpoint");
    let seq = body.get(0..8).ok_or_else(invalid)?;
    let hash = body.get(8..40).ok_or_else(invalid)?;
    Ok(CheckpointInfo {
        commit_seq: u64::from_le_bytes(seq.try_into().map_err(|_| invalid())?),
        hash: CommitHash(hash.try_into().map_err(|_| invalid())?),
    })
}

/// The decompressed body of a checkpoint whose magic and CRC are right.
fn read_checked_body(path: &Path) -> std::io::Result<Vec<u8>> {
    let invalid =
        |what: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, what.to_owned());
    let mut raw = Vec::new();
    BufReader::new(File::open(path)?).read_to_end(&mut raw)?;
    let rest = raw
        .strip_prefix(MAGIC)
        .ok_or_else(|| invalid("not a checkpoint"))?;
    if rest.len() < 4 {
        return Err(invalid("truncated checkpoint"));
    }
    let (compressed, crc_bytes) = rest.split_at(rest.len() - 4);
    let mut body = Vec::new();
    flate2::read::DeflateDecoder::new(compressed).read_to_end(&mut body)?;
    if crc32fast::hash(&body).to_le_bytes() != crc_bytes {
        return Err(invalid("checkpoint checksum mismatch"));
    }
    Ok(body)
}
