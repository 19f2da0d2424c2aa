//! Online backup (`strata backup`): a consistent copy of a graph at one commit, taken
//! while a server may be writing the graph.
//!
//! Store files are immutable and the log is append-only, so a consistent copy needs no
//! lock: the files a manifest names are copied first (retrying with the newer manifest
//! when a compaction deletes one meanwhile), then the log is read and copied up to the
//! commit wanted. The server names a commit in a manifest only once the log holds it
//! durably, so the log read afterwards always reaches the files' commit. When the commit
//! wanted is older than the files', the files are left out and the copy replays its log.
//! The copy is fsynced, its manifest written last, and its chain re-verified.

use std::fs::File;
use std::io::{Read, Write};
use std::path::Path;

use super::error::EngineError;
use super::graph::{LOG_FILE, STORE_DIR};
use crate::log::{CommitLog, verify_log};
use crate::model::CommitSeq;
use crate::store::{MANIFEST_FILE, Manifest};

/// What a backup of one graph copied.
#[derive(Clone, Debug)]
pub struct BackupReport {
    /// The commit the copy holds.
    pub commit_seq: CommitSeq,
    /// Bytes of the log copied.
    pub log_bytes: u64,
    /// Store files copied (0 when the copy replays its log instead).
    pub store_files: usize,
    pub store_bytes: u64,
}

/// Copies the graph in `from` (a graph folder) into `to` (a new graph folder) at commit
/// `as_of` (default: the newest whole commit).
pub(crate) fn backup_graph(
    from: &Path,
    to: &Path,
    as_of: Option<CommitSeq>,
) -> Result<BackupReport, EngineError> {
    // A commit the graph does not have is refused before anything is copied (the head
    // only grows, so it is still there once the files are).
    if let Some(as_of) = as_of {
        let (_, report) = CommitLog::open_read_only(&from.join(LOG_FILE))?;
        let head = report.entries.len() as CommitSeq;
        if as_of > head {
            return Err(EngineError::InvalidArgument {
                param: "as_of".into(),
                message: format!("the graph's newest commit is {head}"),
            });
        }
    }
    let created = !to.exists();
    let copied = copy_graph(from, to, as_of);
    if copied.is_err() && created {
        // No half copy is left behind to be mistaken for a backup.
        let _ = std::fs::remove_dir_all(to);
    }
    copied
}

fn copy_graph(
    from: &Path,
    to: &Path,
    as_of: Option<CommitSeq>,
) -> Result<BackupReport, EngineError> {
    let io = |path: &Path| {
        let path = path.to_owned();
        move |e: std::io::Error| EngineError::io(&path, e)
    };
    if to.join(LOG_FILE).exists() {
        return Err(EngineError::InvalidArgument {
            param: "to".into(),
            message: format!("{} already holds a graph", to.display()),
        });
    }
    let store_to = to.join(STORE_DIR);
    std::fs::create_dir_all(&store_to).map_err(io(&store_to))?;
    let (manifest, store_bytes) = copy_store_files(&from.join(STORE_DIR), &store_to)?;

    let (log, report) = CommitLog::open_read_only(&from.join(LOG_FILE))?;
    let head = report.entries.len() as CommitSeq;
    let commit_seq = as_of.unwrap_or(head);
    if commit_seq > head {
        return Err(EngineError::InvalidArgument {
            param: "as_of".into(),
            message: format!("the graph's newest commit is {head}"),
        });
    }
    let log_bytes = report
        .entries
        .get((commit_seq as usize).wrapping_sub(1))
        .map_or(0, |e| e.offset + e.len);
    drop(log);
    let log_to = to.join(LOG_FILE);
    copy_prefix(&from.join(LOG_FILE), &log_to, log_bytes)?;

    let store_files = match manifest {
        Some(manifest) if manifest.commit_seq <= commit_seq => {
            manifest.write(&store_to).map_err(io(&store_to))?;
            manifest.files().count()
        }
        // The files hold commits after the one wanted: the copy replays its log instead.
        _ => {
            std::fs::remove_dir_all(&store_to).map_err(io(&store_to))?;
            0
        }
    };
    File::open(to).and_then(|d| d.sync_all()).map_err(io(to))?;

    let verified = verify_log(&log_to)?;
    if verified.first_bad.is_some() || verified.n_commits != commit_seq {
        return Err(EngineError::io(
            &log_to,
            std::io::Error::other(format!(
                "the copied log does not verify ({} of {commit_seq} commits)",
                verified.n_commits
            )),
        ));
    }
    Ok(BackupReport {
        commit_seq,
        log_bytes,
        store_files,
        store_bytes: if store_files == 0 { 0 } else { store_bytes },
    })
}

/// Copies the files a store's manifest names (not the manifest itself: the caller writes
/// it last). Retries when a file vanishes (a compaction replaced it meanwhile).
fn copy_store_files(from: &Path, to: &Path) -> Result<(Option<Manifest>, u64), EngineError> {
    let mut attempts = 0;
    loop {
        attempts += 1;
        let manifest = Manifest::read(from).map_err(|e| EngineError::io(from, e))?;
        let Some(manifest) = manifest else {
            return Ok((None, 0));
        };
        let mut bytes = 0;
        let mut vanished = false;
        for name in manifest.files() {
            match std::fs::copy(from.join(name), to.join(name)) {
                Ok(n) => bytes += n,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound && attempts < 10 => {
                    vanished = true;
                    break;
                }
                Err(e) => return Err(EngineError::io(&from.join(name), e)),
            }
        }
        if vanished {
            clear_dir(to)?;
            continue;
        }
        for name in manifest.files() {
            File::open(to.join(name))
                .and_then(|f| f.sync_all())
                .map_err(|e| EngineError::io(&to.join(name), e))?;
        }
        debug_assert!(!to.join(MANIFEST_FILE).exists());
        return Ok((Some(manifest), bytes));
    }
}

fn clear_dir(dir: &Path) -> Result<(), EngineError> {
    for entry in std::fs::read_dir(dir)
        .map_err(|e| EngineError::io(dir, e))?
        .flatten()
    {
        std::fs::remove_file(entry.path()).map_err(|e| EngineError::io(&entry.path(), e))?;
    }
    Ok(())
}

/// Copies the first `len` bytes of `from` into a new file `to`, durably.
pub(super) fn copy_prefix(from: &Path, to: &Path, len: u64) -> Result<(), EngineError> {
    let source = File::open(from).map_err(|e| EngineError::io(from, e))?;
    let mut target = File::create(to).map_err(|e| EngineError::io(to, e))?;
    let copied =
        std::io::copy(&mut source.take(len), &mut target).map_err(|e| EngineError::io(to, e))?;
    if copied != len {
        return Err(EngineError::io(
            from,
            std::io::Error::other(format!("read {copied} of {len} bytes")),
        ));
    }
    target
        .flush()
        .and_then(|()| target.sync_all())
        .map_err(|e| EngineError::io(to, e))
}
