//! Replaying, at open, a commit too large to hold in memory: a bulk import whose store
//! files were set aside (damaged, deleted) or never installed (a crash between the log's
//! fsync and the manifest). Its quads stream from the log record through the N-Quads
//! parser into sorted runs on disk and become one segment file, as the import built it;
//! the record (~13 GB of N-Quads for 50M triples) is never read whole.

use std::path::{Path, PathBuf};

use super::EngineConfig;
use super::error::EngineError;
use super::graph::STORE_DIR;
use crate::log::{CommitLog, LogEntry, LogError};
use crate::model::{CommitHash, CommitSeq};
use crate::scratch::ExternalSort;
use crate::store::{BulkKeysWriter, QuadKey, Store};

/// Whether the commit of `entry` is replayed through files: it only inserts, and more
/// quads than one run of the import's external sort holds.
pub(super) fn is_bulk(entry: &LogEntry, config: &EngineConfig) -> bool {
    entry.header.n_deleted == 0 && entry.header.n_inserted >= config.bulk_run_quads as u64
}

/// Writes the commits replayed so far (in memory segments) to a file, so that the next
/// one can be installed as a file. `hash` is the hash of commit `store.applied_seq()`.
pub(super) fn flush_replayed(
    log: &CommitLog,
    store: &Store,
    dir: &Path,
    hash: CommitHash,
) -> Result<(), EngineError> {
    // A manifest never names a commit the log does not hold durably.
    log.sync()?;
    let seq = store.freeze();
    store
        .flush(seq, hash)
        .map_err(|e| EngineError::io(&dir.join(STORE_DIR), e))?;
    Ok(())
}

/// Replays the commit of `entry` into a new segment file. `store.ready_for_bulk` must
/// hold for it. Nothing is left behind on failure but unused dictionary terms (ids are
/// append-only, so they are harmless).
pub(super) fn replay_bulk(
    log: &CommitLog,
    entry: &LogEntry,
    store: &Store,
    dir: &Path,
    config: &EngineConfig,
) -> Result<(), EngineError> {
    let seq = entry.header.commit_seq;
    let corruption = |reason: String| {
        EngineError::Log(LogError::Corruption {
            commit_seq: seq,
            offset: entry.offset,
            reason,
        })
    };
    // Lenient, as every replay: the record was written by `write_nquads` and passed its
    // checksum when the log was scanned.
    let built = build_bulk_segment(
        log.quads_reader(entry)?,
        entry.header.n_inserted,
        seq,
        store,
        dir,
        (config.bulk_run_quads, config.bulk_dict_terms),
        corruption,
    )?;
    if let Err(error) = store.install_bulk(seq, entry.hash, &built) {
        let _ = std::fs::remove_file(&built);
        return Err(EngineError::io(&built, error));
    }
    Ok(())
}

/// Builds the segment file of commit `seq`, which inserts `n_inserted` quads, from the
/// N-Quads text of its record (`quads`): the quads go through the parser into sorted
/// runs on disk and become one file, `store/bulk-<seq>.tmp`, as an import builds it,
/// with the terms they bring flushed to dictionary parts as they pile up. Memory holds
/// one run (`run_quads`) and at most `dict_terms` new terms at a time. Returns the
/// file's path; the caller installs it (`Store::install_bulk`) once the commit is
/// durable in its log. `corruption` words an undecodable quad or a wrong count.
pub(super) fn build_bulk_segment(
    quads: impl std::io::Read,
    n_inserted: u64,
    seq: CommitSeq,
    store: &Store,
    dir: &Path,
    (run_quads, dict_terms): (usize, usize),
    corruption: impl Fn(String) -> EngineError,
) -> Result<PathBuf, EngineError> {
    let scratch = |e| EngineError::io(dir, e);
    let dict = store.dict();
    let mut keys: ExternalSort<QuadKey> = ExternalSort::new(Some(dir), run_quads);
    let mut n = 0u64;
    for quad in oxttl::NQuadsParser::new().lenient().for_reader(quads) {
        let quad = quad.map_err(|e| corruption(format!("undecodable quad: {e}")))?;
        keys.push(dict.intern_quad(quad)).map_err(scratch)?;
        n += 1;
        if n.is_multiple_of(10_000) && dict.n_in_memory() >= dict_terms {
            store.flush_dictionary().map_err(scratch)?;
        }
        if n.is_multiple_of(1 << 20) {
            // Interning probes every dictionary part at random.
            store.release_pages();
        }
    }
    if n != n_inserted {
        return Err(corruption("quad count differs from the header".into()));
    }
    let mut sorted = BulkKeysWriter::new(dir).map_err(scratch)?;
    for key in keys.finish().map_err(scratch)? {
        sorted.push(key.map_err(scratch)?).map_err(scratch)?;
    }
    let sorted = sorted.finish().map_err(scratch)?;
    let store_dir = dir.join(STORE_DIR);
    let built = store_dir.join(format!("bulk-{seq}.tmp"));
    let written = std::fs::create_dir_all(&store_dir)
        .and_then(|()| crate::store::write_segment(&sorted, &built, seq, dir, run_quads));
    if let Err(error) = written {
        let _ = std::fs::remove_file(&built);
        return Err(EngineError::io(&built, error));
    }
    Ok(built)
}
