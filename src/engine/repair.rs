//! Checking a graph's files without opening it (`strata verify`) and the explicit repair
//! of a damaged log (`strata repair`).
//!
//! Opening a graph cuts only a torn tail. Anything worse (a bad record with intact records
//! after it, a checkpoint ahead of the log or disagreeing with it) stops the open, and only
//! an operator's `repair` changes the files: it cuts the log after its last verified commit
//! and moves everything it removes (log bytes, store files, search indexes) into a
//! `repair-<time>/` folder beside the log, with a note of what was removed.

use std::fs::File;
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::error::EngineError;
use super::graph::{CHECKPOINT_FILE, LOG_FILE, SEARCH_DIR, STORE_DIR};
use crate::log::{VerifyReport, verify_log_with};
use crate::model::{CommitHash, CommitSeq};
use crate::store::{CheckpointInfo, Manifest, Store, read_checkpoint_info};

/// What `verify` found in a graph's files.
#[derive(Debug)]
pub struct GraphCheck {
    /// The log, re-hashed from the first commit.
    pub log: VerifyReport,
    pub checkpoint: CheckpointCheck,
}

/// The store's files (their manifest, or a legacy `checkpoint.bin`) compared with the
/// verified log.
#[derive(Debug)]
pub enum CheckpointCheck {
    /// No store files.
    Absent,
    /// Unreadable or damaged (derived data: the next open sets them aside and replays the
    /// log instead).
    Unreadable(String),
    /// Readable, but a file's body does not match its checksum. The open checks headers
    /// only (a 5M-triple graph opens in milliseconds); each section is checked on its
    /// first read (and by the server in the background after it opens): that read fails
    /// with `corruption` and marks the files, so the open after it sets them aside and
    /// replays the log. `repair` sets them aside at once.
    BodyDamaged(String),
    /// At a commit the log holds with the same hash.
    Matches(CommitSeq),
    /// At a commit after the log's last verified one: acknowledged commits are missing.
    Ahead { checkpoint_seq: CommitSeq },
    /// The log holds the commit with another hash: the log's history was rewritten.
    Differs { commit_seq: CommitSeq },
}

impl GraphCheck {
    /// True when nothing needs an operator: the log verifies (a torn tail that the next
    /// open cuts is fine) and the checkpoint, if any, agrees with it.
    pub fn is_healthy(&self) -> bool {
        self.log.first_bad.is_none()
            && !matches!(
                self.checkpoint,
                CheckpointCheck::Ahead { .. }
                    | CheckpointCheck::Differs { .. }
                    | CheckpointCheck::BodyDamaged(_)
            )
    }
}

/// What `repair` did or would do.
#[derive(Debug)]
pub struct RepairPlan {
    pub check: GraphCheck,
    /// Commits kept (the log is cut after this one).
    pub keep_commits: CommitSeq,
    /// Bytes of the log removed (from its offset `valid_len` to the end).
    pub cut_bytes: u64,
    pub move_checkpoint: bool,
    pub move_search: bool,
    /// Commit numbers up to this one were handed out (by removed records, or by store
    /// files ahead of the log): the commits after `keep_commits` through it become empty
    /// placeholder commits, so no later commit carries a number someone may have cited.
    /// `keep_commits` when there are none.
    pub reserved_through: CommitSeq,
    /// Where the removed files were moved (when applied).
    pub saved_to: Option<PathBuf>,
}

impl RepairPlan {
    /// True when the repair changes nothing.
    pub fn is_empty(&self) -> bool {
        self.cut_bytes == 0 && !self.move_checkpoint && !self.move_search
    }
}

/// Verifies the log of the graph in `dir`, the store files' checksums, and compares the
/// commit the files hold with the log.
pub(crate) fn check(dir: &Path) -> Result<GraphCheck, EngineError> {
    let store_dir = dir.join(STORE_DIR);
    let checkpoint_path = dir.join(CHECKPOINT_FILE);
    let info = match Manifest::read(&store_dir) {
        Ok(Some(manifest)) => Some(check_store_files(&store_dir).map(|()| CheckpointInfo {
            commit_seq: manifest.commit_seq,
            hash: manifest.hash,
        })),
        Err(error) => Some(Err(StoreFault::Unreadable(error.to_string()))),
        Ok(None) if checkpoint_path.exists() => Some(
            read_checkpoint_info(&checkpoint_path)
                .map_err(|e| StoreFault::Unreadable(e.to_string())),
        ),
        Ok(None) => None,
    };
    let wanted = match &info {
        Some(Ok(info)) => info.commit_seq,
        _ => 0,
    };
    let mut hash_at_checkpoint: Option<CommitHash> = None;
    let log = verify_log_with(&dir.join(LOG_FILE), |seq, hash| {
        if seq == wanted {
            hash_at_checkpoint = Some(hash);
        }
    })?;
    let checkpoint = match info {
        None => CheckpointCheck::Absent,
        Some(Err(StoreFault::Unreadable(error))) => CheckpointCheck::Unreadable(error),
        Some(Err(StoreFault::Body(error))) => CheckpointCheck::BodyDamaged(error),
        Some(Ok(CheckpointInfo { commit_seq, hash })) => match hash_at_checkpoint {
            _ if commit_seq == 0 => CheckpointCheck::Matches(0),
            None => CheckpointCheck::Ahead {
                checkpoint_seq: commit_seq,
            },
            Some(logged) if logged != hash => CheckpointCheck::Differs { commit_seq },
            Some(_) => CheckpointCheck::Matches(commit_seq),
        },
    };
    Ok(GraphCheck { log, checkpoint })
}

/// Maps every file the manifest names and recomputes its checksum.
/// What is wrong with store files: what the open finds too, or only a body checksum.
enum StoreFault {
    Unreadable(String),
    Body(String),
}

fn check_store_files(store_dir: &Path) -> Result<(), StoreFault> {
    match Store::open(store_dir, false) {
        Ok(Some((store, _))) => store
            .verify_files()
            .map_err(|e| StoreFault::Body(e.to_string())),
        Ok(None) => Ok(()),
        Err(error) => Err(StoreFault::Unreadable(error.to_string())),
    }
}

/// Plans the repair of the graph in `dir` and, when `apply`, carries it out.
pub(crate) fn repair(dir: &Path, apply: bool) -> Result<RepairPlan, EngineError> {
    let check = check(dir)?;
    let log_path = dir.join(LOG_FILE);
    let log_len = std::fs::metadata(&log_path)
        .map_err(|e| EngineError::io(&log_path, e))?
        .len();
    let cut_bytes = log_len - check.log.valid_len.min(log_len);
    // The store files go only when they cannot stay: they hold a commit the repaired log
    // will not (or another history), or they are damaged or unreadable (the open would set
    // those aside too). Cutting a torn tail behind the files' commit leaves them as they
    // are, as the open does.
    let move_checkpoint = matches!(
        check.checkpoint,
        CheckpointCheck::Ahead { .. }
            | CheckpointCheck::Differs { .. }
            | CheckpointCheck::BodyDamaged(_)
            | CheckpointCheck::Unreadable(_)
    );
    // Search indexes record only the commit they reflect: when intact commits are removed,
    // indexes may hold their content, so they go too.
    let move_search =
        (move_checkpoint || check.log.first_bad.is_some()) && dir.join(SEARCH_DIR).exists();
    let reserved_through = numbers_handed_out(&check, &log_path, log_len)?;
    let mut plan = RepairPlan {
        keep_commits: check.log.n_commits,
        reserved_through,
        cut_bytes,
        move_checkpoint: move_checkpoint
            && (dir.join(CHECKPOINT_FILE).exists() || dir.join(STORE_DIR).exists()),
        move_search,
        check,
        saved_to: None,
    };
    if !apply || plan.is_empty() {
        return Ok(plan);
    }
    let stamp = time::OffsetDateTime::now_utc().unix_timestamp();
    let saved = dir.join(format!("repair-{stamp}"));
    std::fs::create_dir_all(&saved).map_err(|e| EngineError::io(&saved, e))?;
    let mut note = format!(
        "strata repair at unix time {stamp}\nkept commits 1..={}\n",
        plan.keep_commits
    );
    if let Some((seq, reason)) = &plan.check.log.first_bad {
        note.push_str(&format!("first bad commit: {seq}: {reason}\n"));
    }
    if plan.cut_bytes > 0 {
        // Copy first, make the copy durable, and only then cut: a crash in between leaves
        // the log as it was.
        let copy = saved.join(format!("commits.log.from-commit-{}", plan.keep_commits + 1));
        copy_tail(&log_path, plan.check.log.valid_len, &copy)?;
        note.push_str(&format!(
            "removed {} bytes of the log (from byte offset {}, {} intact record(s) among them) \
             into {}\n",
            plan.cut_bytes,
            plan.check.log.valid_len,
            plan.check.log.intact_after,
            copy.display()
        ));
    }
    for (moved, name) in [
        (plan.move_checkpoint, CHECKPOINT_FILE),
        (plan.move_checkpoint, STORE_DIR),
        (plan.move_search, SEARCH_DIR),
    ] {
        if moved && dir.join(name).exists() {
            let from = dir.join(name);
            std::fs::rename(&from, saved.join(name)).map_err(|e| EngineError::io(&from, e))?;
            note.push_str(&format!(
                "moved {name} aside (derived data; rebuilt from the log)\n"
            ));
        }
    }
    if plan.reserved_through > plan.keep_commits {
        note.push_str(&format!(
            "commits {}..={} are empty placeholders: those numbers were handed out before \
             and are never reused\n",
            plan.keep_commits + 1,
            plan.reserved_through
        ));
    }
    note.push_str(&format!(
        "the next commit is numbered {}\n",
        plan.reserved_through + 1
    ));
    let note_path = saved.join("REPAIR.txt");
    write_synced(&note_path, note.as_bytes())?;
    sync_dir(&saved)?;
    if plan.reserved_through > plan.keep_commits {
        // The cut and the placeholders land together: the repaired log is built beside
        // the old one and renamed over it. Cut first and then appended, a crash between
        // left a log whose next commit took a number that had been handed out before.
        let repaired = dir.join(format!("{LOG_FILE}.repair.tmp"));
        super::backup::copy_prefix(&log_path, &repaired, plan.check.log.valid_len)?;
        write_placeholders(&repaired, plan.keep_commits, plan.reserved_through, stamp)?;
        std::fs::rename(&repaired, &log_path).map_err(|e| EngineError::io(&repaired, e))?;
    } else if plan.cut_bytes > 0 {
        let file = File::options()
            .write(true)
            .open(&log_path)
            .map_err(|e| EngineError::io(&log_path, e))?;
        file.set_len(plan.check.log.valid_len)
            .and_then(|()| file.sync_all())
            .map_err(|e| EngineError::io(&log_path, e))?;
    }
    sync_dir(dir)?;
    plan.saved_to = Some(saved);
    Ok(plan)
}

/// The highest commit number the graph handed out: its verified log's last commit, a
/// commit an intact record past it carries, the bad record's own number when it is
/// garbled (an intact one says its number itself), a commit the store files hold.
fn numbers_handed_out(
    check: &GraphCheck,
    log_path: &Path,
    log_len: u64,
) -> Result<CommitSeq, EngineError> {
    let mut highest = check.log.n_commits;
    let from = check.log.valid_len;
    if from < log_len {
        let file = File::open(log_path).map_err(|e| EngineError::io(log_path, e))?;
        highest = highest.max(crate::log::highest_intact_commit(&file, from, log_len).unwrap_or(0));
        if let Some((seq, _)) = &check.log.first_bad
            && !crate::log::intact_record_at(&file, from, log_len)
        {
            highest = highest.max(*seq);
        }
    }
    if let CheckpointCheck::Ahead { checkpoint_seq } = check.checkpoint {
        highest = highest.max(checkpoint_seq);
    }
    Ok(highest)
}

/// Appends empty commits `after + 1 ..= through` to the (repaired) log, each saying which
/// repair removed the commit that had its number, and makes them durable.
fn write_placeholders(
    log_path: &Path,
    after: CommitSeq,
    through: CommitSeq,
    stamp: i64,
) -> Result<(), EngineError> {
    if through <= after {
        return Ok(());
    }
    let (log, report) = crate::log::CommitLog::open(log_path, false)?;
    let (mut parent, mut at) = match report.entries.last() {
        Some(last) => (last.hash, last.header.committed_at),
        None => (CommitHash::ZERO, time::OffsetDateTime::UNIX_EPOCH),
    };
    at = at.max(time::OffsetDateTime::now_utc());
    let empty = crate::log::encode_quads(b"");
    for seq in after + 1..=through {
        let header = crate::log::CommitHeader {
            commit_seq: seq,
            parent_hash: parent,
            committed_at: at,
            observed_at: None,
            author: Some("strata repair".into()),
            message: Some(format!(
                "placeholder: the commit numbered {seq} was removed by strata repair at unix \
                 time {stamp} (a copy is in repair-{stamp}/); this commit changes nothing"
            )),
            idempotency_key: None,
            request_digest: None,
            n_inserted: 0,
            n_deleted: 0,
            quads_digest: empty.digest,
        };
        let hash = header.hash();
        let record = crate::log::encode_record(&header, hash, &empty)
            .map_err(|e| EngineError::io(log_path, e))?;
        log.append(&record)?;
        parent = hash;
    }
    log.sync()?;
    Ok(())
}

/// Copies the bytes of `path` from `offset` to the end into `to`, durably.
fn copy_tail(path: &Path, offset: u64, to: &Path) -> Result<(), EngineError> {
    let mut from = File::open(path).map_err(|e| EngineError::io(path, e))?;
    from.seek(SeekFrom::Start(offset))
        .map_err(|e| EngineError::io(path, e))?;
    let mut file = File::create(to).map_err(|e| EngineError::io(to, e))?;
    std::io::copy(&mut from, &mut file)
        .and_then(|_| file.sync_all())
        .map_err(|e| EngineError::io(to, e))
}

fn write_synced(path: &Path, bytes: &[u8]) -> Result<(), EngineError> {
    let mut file = File::create(path).map_err(|e| EngineError::io(path, e))?;
    file.write_all(bytes)
        .and_then(|()| file.sync_all())
        .map_err(|e| EngineError::io(path, e))
}

fn sync_dir(dir: &Path) -> Result<(), EngineError> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| EngineError::io(dir, e))
}
