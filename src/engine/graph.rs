//! `Graph`: one graph's log, store and commit index, and how they are opened.
//!
//! Opening reads the checkpoint (if it matches the log), then replays only the commits
//! after it. A torn or corrupt log tail is cut and reported, never silently accepted.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;

use parking_lot::{Mutex, RwLock};
use rustc_hash::FxHashMap;

use super::EngineConfig;
use super::error::EngineError;
use crate::log::{CommitLog, CommitRecord, LogEntry};
use crate::model::{CommitHash, CommitSeq, GraphName};
use crate::store::{self, QuadKey, Store};

pub(crate) const LOG_FILE: &str = "commits.log";
pub(crate) const CHECKPOINT_FILE: &str = "checkpoint.bin";
/// The folder of a graph's search indexes (derived data).
pub(crate) const SEARCH_DIR: &str = "search";

/// A commit as listed by the log: everything but its quads.
pub type CommitInfo = LogEntry;

/// What opening a graph did, for logs and tests.
#[derive(Clone, Debug, Default)]
pub struct OpenStats {
    pub checkpoint_seq: CommitSeq,
    pub replayed_commits: u64,
    /// A torn or corrupt tail that was cut: `(byte offset, bytes, reason)`.
    pub cut_tail: Option<(u64, u64, String)>,
}

/// One graph: its log (the truth), its store (derived) and the writer's state.
pub struct Graph {
    pub(crate) name: GraphName,
    pub(crate) dir: PathBuf,
    pub(crate) log: CommitLog,
    pub(crate) store: Store,
    /// Serializes writers (invariant I6: one writer per graph). Holds the head's hash.
    pub(crate) writer: Mutex<WriterState>,
    /// Every commit, index `commit_seq - 1`. Appended by the writer after apply.
    pub(crate) commits: RwLock<Vec<CommitInfo>>,
    pub(crate) idempotency: RwLock<FxHashMap<String, CommitSeq>>,
    /// The newest durable commit; its lock is the group-commit sync lock.
    pub(crate) durable_seq: Mutex<CommitSeq>,
    pub(crate) poisoned: AtomicBool,
    pub(crate) quads_since_checkpoint: AtomicU64,
    pub(crate) checkpoint_every_quads: u64,
    /// Time limit of queries whose options name none.
    pub(crate) query_timeout: Option<std::time::Duration>,
    /// The engine's query governor (memory budgets, heavy slots).
    pub(crate) governor: Arc<crate::sparql::Governor>,
    checkpoint_lock: Mutex<()>,
    /// Wakes the graph's background checkpointer (set by the engine when it opens the
    /// graph). Checkpoints never run inside a commit: a commit that crosses the threshold
    /// only sends this signal.
    checkpoint_signal: Mutex<Option<mpsc::SyncSender<()>>>,
    open_stats: OpenStats,
    /// The shapes in force and the conformance report (see `validation.rs`).
    pub(crate) shacl: RwLock<super::validation::ShaclState>,
    /// Search indexes and their worker (see `search.rs`).
    pub(crate) search: super::search::SearchState,
    pub(crate) model_dir: PathBuf,
}

pub(crate) struct WriterState {
    pub head_hash: CommitHash,
}

impl Graph {
    pub(crate) fn open(
        name: GraphName,
        dir: PathBuf,
        config: &EngineConfig,
        governor: &Arc<crate::sparql::Governor>,
        create: bool,
    ) -> Result<Self, EngineError> {
        if create {
            std::fs::create_dir_all(&dir).map_err(|e| EngineError::io(&dir, e))?;
        }
        let (log, report) =
            CommitLog::open(&dir.join(LOG_FILE), create).map_err(|error| match error {
                crate::log::LogError::Corrupt {
                    commit_seq,
                    offset,
                    reason,
                    intact_after,
                    ..
                } => EngineError::LogCorrupt {
                    graph: name.to_string(),
                    commit_seq,
                    offset,
                    reason,
                    intact_after,
                },
                other => other.into(),
            })?;
        let mut stats = OpenStats::default();
        let entries = report.entries;
        // The checkpoint is checked before a torn tail is cut: if it proves the tail held an
        // acknowledged commit, the open stops with the files untouched.
        let store = load_checkpoint(&dir, &name, &entries)?.unwrap_or_default();
        if let Some(cut) = &report.cut {
            tracing::warn!(
                graph = %name,
                offset = cut.offset,
                bytes = cut.bytes,
                reason = %cut.reason,
                "cut a torn or corrupt tail from the commit log"
            );
            log.cut_tail(cut)?;
            stats.cut_tail = Some((cut.offset, cut.bytes, cut.reason.clone()));
        }
        stats.checkpoint_seq = store.applied_seq();
        let mut quads_since = 0;
        for entry in &entries[store.applied_seq() as usize..] {
            let record = log.read_record(entry)?;
            let (inserts, deletes) = decode_changes(&store, &record)?;
            quads_since += (inserts.len() + deletes.len()) as u64;
            store.apply(entry.header.commit_seq, &inserts, &deletes);
            stats.replayed_commits += 1;
        }
        let head = entries.len() as CommitSeq;
        store.publish(head);
        let idempotency = entries
            .iter()
            .filter_map(|e| Some((e.header.idempotency_key.clone()?, e.header.commit_seq)))
            .collect();
        let head_hash = entries.last().map_or(CommitHash::ZERO, |e| e.hash);
        if stats.replayed_commits > 0 || stats.cut_tail.is_some() {
            tracing::info!(graph = %name, head, checkpoint = stats.checkpoint_seq, replayed = stats.replayed_commits, "opened graph");
        }
        let graph = Self {
            name,
            dir,
            log,
            store,
            writer: Mutex::new(WriterState { head_hash }),
            commits: RwLock::new(entries),
            idempotency: RwLock::new(idempotency),
            durable_seq: Mutex::new(head),
            poisoned: AtomicBool::new(false),
            quads_since_checkpoint: AtomicU64::new(quads_since),
            checkpoint_every_quads: config.checkpoint_every_quads,
            query_timeout: config.query_timeout,
            governor: governor.clone(),
            checkpoint_lock: Mutex::new(()),
            checkpoint_signal: Mutex::new(None),
            open_stats: stats,
            shacl: RwLock::default(),
            search: Default::default(),
            model_dir: config.model_dir.clone(),
        };
        graph.load_shacl_state()?;
        Ok(graph)
    }

    /// The graph's name.
    pub fn name(&self) -> &GraphName {
        &self.name
    }

    /// The newest commit readers see.
    pub fn head_seq(&self) -> CommitSeq {
        self.store.published_seq()
    }

    /// What opening the graph found and did.
    pub fn open_stats(&self) -> &OpenStats {
        &self.open_stats
    }

    /// Starts the thread that writes checkpoints in the background when commits signal it.
    /// The thread holds only a weak reference and ends when the graph is dropped.
    pub(crate) fn start_checkpointer(graph: &Arc<Graph>) {
        let (sender, receiver) = mpsc::sync_channel::<()>(1);
        *graph.checkpoint_signal.lock() = Some(sender);
        let weak = Arc::downgrade(graph);
        let spawned = std::thread::Builder::new()
            .name(format!("strata-checkpoint-{}", graph.name))
            .spawn(move || {
                while receiver.recv().is_ok() {
                    let Some(graph) = weak.upgrade() else { break };
                    if let Err(error) = graph.checkpoint_if_needed(graph.checkpoint_every_quads) {
                        tracing::warn!(graph = %graph.name, %error, "checkpoint failed");
                    }
                }
            });
        if let Err(error) = spawned {
            tracing::warn!(%error, "cannot start the checkpoint thread; checkpoints happen at close only");
        }
    }

    /// Asks the background checkpointer for a checkpoint (never blocks).
    pub(crate) fn request_checkpoint(&self) {
        if let Some(sender) = self.checkpoint_signal.lock().as_ref() {
            let _ = sender.try_send(());
        }
    }

    /// Writes a checkpoint at the durable head when at least `min_quads` quads changed
    /// since the last one, unless one is being written right now. Checkpoints are derived
    /// data: failing to write one loses nothing.
    pub fn checkpoint_if_needed(&self, min_quads: u64) -> Result<(), EngineError> {
        let Some(guard) = self.checkpoint_lock.try_lock() else {
            return Ok(());
        };
        self.write_checkpoint(min_quads, guard)
    }

    /// Like `checkpoint_if_needed`, but waits for a checkpoint in progress first (at close,
    /// so the process does not exit in the middle of one).
    pub fn checkpoint_when_idle(&self, min_quads: u64) -> Result<(), EngineError> {
        let guard = self.checkpoint_lock.lock();
        self.write_checkpoint(min_quads, guard)
    }

    fn write_checkpoint(
        &self,
        min_quads: u64,
        _guard: parking_lot::MutexGuard<'_, ()>,
    ) -> Result<(), EngineError> {
        let pending = self.quads_since_checkpoint.load(Ordering::Acquire);
        if pending < min_quads.max(1) {
            return Ok(());
        }
        let seq = self.store.published_seq();
        let index = (seq as usize).checked_sub(1);
        let Some(hash) = index.and_then(|i| self.commits.read().get(i).map(|e| e.hash)) else {
            return Ok(());
        };
        let snapshot = self.store.snapshot_at(seq);
        let path = self.dir.join(CHECKPOINT_FILE);
        store::write_checkpoint(&path, &snapshot, hash).map_err(|e| EngineError::io(&path, e))?;
        self.quads_since_checkpoint
            .fetch_sub(pending, Ordering::AcqRel);
        tracing::debug!(graph = %self.name, seq, "wrote checkpoint");
        Ok(())
    }
}

/// Loads the checkpoint when it matches a commit of the log. An unreadable checkpoint is
/// only derived data (replay the whole log), but a readable one that is ahead of the log
/// or disagrees with it proves the log lost or rewrote acknowledged commits: that stops
/// the open, so a commit number is never reused for different content.
fn load_checkpoint(
    dir: &std::path::Path,
    name: &GraphName,
    entries: &[LogEntry],
) -> Result<Option<Store>, EngineError> {
    let path = dir.join(CHECKPOINT_FILE);
    if !path.exists() {
        return Ok(None);
    }
    let (store, info) = match store::read_checkpoint(&path) {
        Ok(loaded) => loaded,
        Err(error) => {
            tracing::warn!(graph = %name, %error, "unreadable checkpoint; replaying the whole log");
            return Ok(None);
        }
    };
    check_checkpoint(name, &info, entries)?;
    Ok((info.commit_seq >= 1).then_some(store))
}

/// Checks that the log holds the checkpoint's commit with the checkpoint's hash.
pub(crate) fn check_checkpoint(
    name: &GraphName,
    info: &store::CheckpointInfo,
    entries: &[LogEntry],
) -> Result<(), EngineError> {
    if info.commit_seq == 0 {
        return Ok(());
    }
    match entries.get(info.commit_seq as usize - 1) {
        None => Err(EngineError::LogBehindCheckpoint {
            graph: name.to_string(),
            log_head: entries.len() as CommitSeq,
            checkpoint_seq: info.commit_seq,
        }),
        Some(entry) if entry.hash != info.hash => Err(EngineError::CheckpointMismatch {
            graph: name.to_string(),
            commit_seq: info.commit_seq,
            log_hash: entry.hash.to_hex(),
            checkpoint_hash: info.hash.to_hex(),
        }),
        Some(_) => Ok(()),
    }
}

/// Turns a record's N-Quads lines into keys, interning terms.
pub(crate) fn decode_changes(
    store: &Store,
    record: &CommitRecord,
) -> Result<(Vec<QuadKey>, Vec<QuadKey>), EngineError> {
    let seq = record.header.commit_seq;
    let corruption = |reason: String| {
        EngineError::Log(crate::log::LogError::Corruption {
            commit_seq: seq,
            offset: 0,
            reason,
        })
    };
    let mut keys =
        Vec::with_capacity((record.header.n_inserted + record.header.n_deleted) as usize);
    for quad in oxttl::NQuadsParser::new().for_slice(&record.quads) {
        let quad = quad.map_err(|e| corruption(format!("undecodable quad: {e}")))?;
        keys.push(store.dict().intern_quad(quad));
    }
    if keys.len() as u64 != record.header.n_inserted + record.header.n_deleted {
        return Err(corruption("quad count differs from the header".into()));
    }
    let deletes = keys.split_off(record.header.n_inserted as usize);
    Ok((keys, deletes))
}
