//! Checkpoints: the store's versions written to one file, so opening a graph replays only
//! the commits after it instead of the whole log.
//!
//! A checkpoint is derived data (invariant I4): it records the commit and hash it was taken
//! at, and the engine ignores it unless the log holds that same commit with that same
//! hash. Format (version 1), deflate-compressed after the magic line:
//!
//! ```text
//! "strata-checkpoint 1\n" | deflate( seq u64 | hash [32] | n_terms u64 | (len u32, N-Triples term)*
//!                                    | n_versions u64 | (s p o g u32, added u64, removed u64)* ) | crc32 u32
//! ```

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::Path;
use std::str::FromStr;

use super::Store;
use super::dict::Dict;
use super::snapshot::Snapshot;
use crate::model::{CommitHash, CommitSeq, Term};

const MAGIC: &[u8] = b"strata-checkpoint 1\n";

/// What a checkpoint file says about itself.
#[derive(Clone, Copy, Debug)]
pub struct CheckpointInfo {
    pub commit_seq: CommitSeq,
    pub hash: CommitHash,
}

/// Writes a checkpoint of `snapshot` atomically (temporary file, fsync, rename, fsync dir).
pub fn write_checkpoint(path: &Path, snapshot: &Snapshot, hash: CommitHash) -> std::io::Result<()> {
    let tmp_path = path.with_extension("tmp");
    let file = File::create(&tmp_path)?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    out.write_all(MAGIC)?;
    let mut body = CrcWriter {
        inner: flate2::write::DeflateEncoder::new(out, flate2::Compression::fast()),
        crc: crc32fast::Hasher::new(),
    };
    body.write_all(&snapshot.seq().to_le_bytes())?;
    body.write_all(&hash.0)?;
    let n_terms = snapshot.dict().len();
    body.write_all(&u64::from(n_terms).to_le_bytes())?;
    let mut term_error = None;
    snapshot.dict().for_each(n_terms, |term| {
        let text = term.to_string();
        if term_error.is_none() {
            term_error = body
                .write_all(&(text.len() as u32).to_le_bytes())
                .and_then(|()| body.write_all(text.as_bytes()))
                .err();
        }
    });
    if let Some(error) = term_error {
        return Err(error);
    }
    let versions: Vec<_> = snapshot.versions().collect();
    body.write_all(&(versions.len() as u64).to_le_bytes())?;
    for (key, added, removed) in versions {
        for id in key {
            body.write_all(&id.to_le_bytes())?;
        }
        body.write_all(&added.to_le_bytes())?;
        body.write_all(&removed.to_le_bytes())?;
    }
    let crc = body.crc.finalize();
    let mut out = body.inner.finish()?;
    out.write_all(&crc.to_le_bytes())?;
    let file = out.into_inner().map_err(|e| e.into_error())?;
    file.sync_all()?;
    std::fs::rename(&tmp_path, path)?;
    if let Some(dir) = path.parent() {
        File::open(dir)?.sync_all()?;
    }
    Ok(())
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

/// Reads a checkpoint back into a store published at its commit.
pub fn read_checkpoint(path: &Path) -> std::io::Result<(Store, CheckpointInfo)> {
    let invalid =
        |what: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, what.to_owned());
    let body = read_checked_body(path)?;
    let mut cursor = Cursor {
        bytes: &body,
        pos: 0,
    };
    let seq = cursor
        .u64()
        .ok_or_else(|| invalid("truncated checkpoint"))?;
    let hash = CommitHash(
        cursor
            .take(32)
            .ok_or_else(|| invalid("truncated"))?
            .try_into()
            .map_err(|_| invalid("hash"))?,
    );
    let n_terms = cursor.u64().ok_or_else(|| invalid("truncated"))?;
    let dict = Dict::default();
    for _ in 0..n_terms {
        let len = cursor.u32().ok_or_else(|| invalid("truncated"))? as usize;
        let text = std::str::from_utf8(cursor.take(len).ok_or_else(|| invalid("truncated"))?)
            .map_err(|_| invalid("term is not UTF-8"))?;
        let term = Term::from_str(text).map_err(|e| invalid(&format!("bad term {text}: {e}")))?;
        dict.intern(&term);
    }
    if u64::from(dict.len()) != n_terms {
        return Err(invalid("duplicate terms in checkpoint"));
    }
    let n_versions = cursor.u64().ok_or_else(|| invalid("truncated"))?;
    let mut versions = Vec::with_capacity(usize::try_from(n_versions).unwrap_or(0).min(1 << 28));
    for _ in 0..n_versions {
        let mut key = [0u32; 4];
        for id in &mut key {
            *id = cursor.u32().ok_or_else(|| invalid("truncated"))?;
            if u64::from(*id) > n_terms {
                return Err(invalid("term id out of range"));
            }
        }
        let added = cursor.u64().ok_or_else(|| invalid("truncated"))?;
        let removed = cursor.u64().ok_or_else(|| invalid("truncated"))?;
        versions.push((key, added, removed));
    }
    let store = Store::from_versions(dict, versions, seq);
    Ok((
        store,
        CheckpointInfo {
            commit_seq: seq,
            hash,
        },
    ))
}

struct CrcWriter<W: Write> {
    inner: W,
    crc: crc32fast::Hasher,
}

impl<W: Write> Write for CrcWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.crc.update(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let out = self.bytes.get(self.pos..self.pos.checked_add(n)?)?;
        self.pos += n;
        Some(out)
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Literal, NamedNode};
    use crate::store::{GraphFilter, Pattern};

    #[test]
    fn checkpoint_round_trips_versions_and_terms() {
        let store = Store::default();
        let a = store
            .dict()
            .intern(&NamedNode::new_unchecked("http://e/a").into());
        let b = store
            .dict()
            .intern(&Literal::new_language_tagged_literal_unchecked("x\ny", "en").into());
        store.apply(1, &[[a, a, b, 0]], &[]);
        store.apply(2, &[[a, a, a, b]], &[[a, a, b, 0]]);
        store.publish(2);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("checkpoint");
        write_checkpoint(&path, &store.snapshot_at(2), CommitHash([5; 32])).unwrap();
        let (loaded, info) = read_checkpoint(&path).unwrap();
        assert_eq!(info.commit_seq, 2);
        assert_eq!(info.hash, CommitHash([5; 32]));
        let all = Pattern {
            subject: None,
            predicate: None,
            object: None,
            graph: GraphFilter::All,
        };
        assert_eq!(
            loaded.snapshot_at(1).quads(all).collect::<Vec<_>>(),
            vec![[a, a, b, 0]]
        );
        assert_eq!(
            loaded.snapshot_at(2).quads(all).collect::<Vec<_>>(),
            vec![[a, a, a, b]]
        );
        assert_eq!(loaded.dict().term(b), store.dict().term(b));
    }
}
