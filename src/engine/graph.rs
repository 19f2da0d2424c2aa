//! `Graph`: one graph's log, store and commit index, and how they are opened.
//!
//! Opening maps the store's files (if their manifest matches the log), then replays only
//! the commits after them. A torn or corrupt log tail is cut and reported, never silently
//! accepted. A background thread per graph flushes recent commits to files and compacts
//! them (`start_maintenance`).

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;

use parking_lot::{Mutex, RwLock};
use rustc_hash::FxHashMap;

use super::EngineConfig;
use super::error::EngineError;
use super::read::ChangedQuads;
use super::search::{GraphHistory, IndexStatus, SearchPart};
use crate::log::{CommitLog, CommitRecord, LogEntry};
use crate::model::{CommitHash, CommitSeq, GraphName};
use crate::store::{self, QuadKey, Store};

pub(crate) const LOG_FILE: &str = "commits.log";
/// A whole-store checkpoint of builds before segment files (read only to check it).
pub(crate) const CHECKPOINT_FILE: &str = "checkpoint.bin";
/// The folder of a graph's store files and their manifest (derived data).
pub(crate) const STORE_DIR: &str = "store";
/// The folder of a graph's search indexes (derived data).
pub(crate) const SEARCH_DIR: &str = "search";

/// A commit as listed by the log: everything but its quads.
pub type CommitInfo = LogEntry;

/// What opening a graph did, for logs and tests.
#[derive(Clone, Debug, Default)]
pub struct OpenStats {
    /// The commit the store's files held (the manifest's).
    pub files_seq: CommitSeq,
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
    /// The newest durable commit, and whether a writer is fsyncing the log now (group
    /// commit: one fsync at a time covers every commit applied before it started; the
    /// writers it covers are woken together by `durable_synced`).
    pub(crate) durable_seq: Mutex<(CommitSeq, bool)>,
    pub(crate) durable_synced: parking_lot::Condvar,
    /// When the log was last fsynced (a clustered node syncs its copy lazily).
    pub(crate) local_synced_at: Mutex<std::time::Instant>,
    pub(crate) poisoned: AtomicBool,
    /// Quads changed since the last flush, and the count that asks for one.
    pub(crate) quads_since_flush: AtomicU64,
    pub(crate) flush_every_quads: u64,
    /// See `EngineConfig::bulk_run_quads` and `bulk_dict_terms`.
    pub(crate) bulk_run_quads: usize,
    pub(crate) bulk_dict_terms: usize,
    /// Set to stop a big import's commit (`EngineConfig::interrupt`).
    pub(crate) interrupt: Arc<AtomicBool>,
    /// Opened beside another process that owns the directory: never writes.
    pub(crate) read_only: bool,
    /// Time limit of queries whose options name none.
    pub(crate) query_timeout: Option<std::time::Duration>,
    /// The engine's query governor (memory budgets, heavy slots).
    pub(crate) governor: Arc<crate::sparql::Governor>,
    /// Held while a flush (and the compaction after it) runs.
    flush_lock: Mutex<()>,
    /// Wakes the graph's background maintenance thread (set by the engine when it opens
    /// the graph). Flushes never run inside a commit: a commit that crosses the threshold
    /// only sends this signal.
    flush_signal: Mutex<Option<mpsc::SyncSender<()>>>,
    open_stats: OpenStats,
    /// The shapes in force and the conformance report (see `validation.rs`).
    pub(crate) shacl: super::validation::ShaclPart,
    /// Search indexes and their worker (see `search.rs`); it reads the graph only through
    /// `GraphHistory`.
    pub(crate) search: SearchPart,
    /// In a cluster, where commits are agreed (see `replica.rs`); `None` embedded.
    pub(crate) shared: Option<Arc<dyn crate::log::SharedLog>>,
    /// The shared log's newest commit as this node last heard (lag = it − head).
    pub(crate) shared_seen: Arc<super::replica::SharedHead>,
    /// Whether the follower's last request to the shared log failed.
    pub(crate) shared_failing: AtomicBool,
    /// How this node's clustered writes used the pipeline (`pipeline.rs`).
    pub(crate) pipeline: super::pipeline::PipelineCounters,
    /// The graph's write lease as this node knows it (`leader.rs`).
    pub(crate) lease: super::leader::LeaseState,
    /// When a write last found the shared log unavailable (cleared by an acknowledged
    /// append): a stream without quorum may still answer the follower's reads.
    pub(crate) write_refused_at: Mutex<Option<std::time::Instant>>,
    /// The commit of the store files this node last published for new nodes (0: none).
    pub(crate) files_published: AtomicU64,
    /// A big commit installed a store file of its own in a cluster: the maintenance
    /// thread publishes the files even though no flush is due.
    pub(crate) publish_pending: AtomicBool,
}

pub(crate) struct WriterState {
    pub head_hash: CommitHash,
    /// A cluster's commits sent to the shared log and not yet answered, in order, each
    /// built on the one before (see `write.rs`, pipelining). Applied only once stored.
    pub in_flight: std::collections::VecDeque<super::pipeline::InFlight>,
    /// Their changes together: what the next commit builds on, over the applied head.
    pub unapplied: crate::store::Unapplied,
}

impl WriterState {
    pub(crate) fn new(head_hash: CommitHash) -> Self {
        Self {
            head_hash,
            in_flight: Default::default(),
            unapplied: Default::default(),
        }
    }
}

impl Graph {
    pub(crate) fn open(
        name: GraphName,
        dir: PathBuf,
        config: &EngineConfig,
        governor: &Arc<crate::sparql::Governor>,
        create: bool,
        shared: Option<Arc<dyn crate::log::SharedLog>>,
    ) -> Result<Self, EngineError> {
        if create {
            std::fs::create_dir_all(&dir).map_err(|e| EngineError::io(&dir, e))?;
        }
        let read_only = config.read_only;
        if !read_only {
            crate::scratch::remove_leftovers(&dir);
        }
        // Read-only, the store files are opened before the log is scanned: the server
        // names a commit in a manifest only once it is durable in the log, so the log read
        // afterwards holds it.
        let read_only_store = if read_only {
            Some(open_store_read_only(&dir, &name))
        } else {
            None
        };
        let opened = if read_only {
            CommitLog::open_read_only(&dir.join(LOG_FILE))
        } else {
            CommitLog::open(&dir.join(LOG_FILE), create)
        };
        let (log, report) = opened.map_err(|error| match error {
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
        // The files are checked against the log before a torn tail is cut: if they prove
        // the tail held an acknowledged commit, the open stops with the files untouched.
        let store = match read_only_store {
            Some((store, info)) => {
                if let Some(info) = info {
                    check_checkpoint(&name, &info, &entries)?;
                }
                store
            }
            None => open_store(&dir, &name, &entries)?,
        };
        if let Some(cut) = report.cut.as_ref().filter(|_| !read_only) {
            tracing::warn!(
                graph = %name,
                offset = cut.offset,
                bytes = cut.bytes,
                reason = %cut.reason,
                kept_as = %format!("{LOG_FILE}.cut-{}", cut.offset),
                "cut a torn or corrupt tail from the commit log"
            );
            log.cut_tail(cut)?;
            stats.cut_tail = Some((cut.offset, cut.bytes, cut.reason.clone()));
        }
        stats.files_seq = store.applied_seq();
        let mut quads_since = 0;
        for entry in &entries[store.applied_seq() as usize..] {
            if !read_only && store.dir().is_some() && super::replay::is_bulk(entry, config) {
                let seq = entry.header.commit_seq;
                if !store.ready_for_bulk(seq) && store.applied_seq() + 1 == seq {
                    let hash = seq
                        .checked_sub(2)
                        .map_or(CommitHash::ZERO, |i| entries[i as usize].hash);
                    super::replay::flush_replayed(&log, &store, &dir, hash)?;
                    quads_since = 0;
                }
                if store.ready_for_bulk(seq) {
                    super::replay::replay_bulk(&log, entry, &store, &dir, config)?;
                    stats.replayed_commits += 1;
                    continue;
                }
            }
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
            tracing::info!(graph = %name, head, files = stats.files_seq, replayed = stats.replayed_commits, "opened graph");
        }
        let search = SearchPart::new(
            name.to_string(),
            dir.join(SEARCH_DIR),
            config.model_dir.clone(),
            config.index_threads,
        );
        let graph = Self {
            name,
            dir,
            log,
            store,
            writer: Mutex::new(WriterState::new(head_hash)),
            commits: RwLock::new(entries),
            idempotency: RwLock::new(idempotency),
            durable_seq: Mutex::new((head, false)),
            durable_synced: parking_lot::Condvar::new(),
            local_synced_at: Mutex::new(std::time::Instant::now()),
            poisoned: AtomicBool::new(false),
            publish_pending: AtomicBool::new(false),
            quads_since_flush: AtomicU64::new(quads_since),
            flush_every_quads: config.flush_every_quads,
            bulk_run_quads: config.bulk_run_quads,
            bulk_dict_terms: config.bulk_dict_terms,
            interrupt: config.interrupt.clone(),
            read_only,
            query_timeout: config.query_timeout,
            governor: governor.clone(),
            flush_lock: Mutex::new(()),
            flush_signal: Mutex::new(None),
            open_stats: stats,
            shacl: Default::default(),
            search,
            shared,
            shared_seen: Arc::default(),
            shared_failing: AtomicBool::new(false),
            pipeline: Default::default(),
            lease: Default::default(),
            write_refused_at: Mutex::new(None),
            files_published: AtomicU64::new(0),
        };
        graph
            .shacl
            .load(&graph.snapshot(graph.head_seq()), graph.name.as_str());
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

    /// The commit the store files hold, how many segment files there are, and how many
    /// quad versions wait in memory for the next flush.
    pub fn store_layout(&self) -> (CommitSeq, usize, usize) {
        let (files, in_memory) = self.store.layout();
        (self.store.manifest_seq(), files, in_memory)
    }

    /// What opening the graph found and did.
    pub fn open_stats(&self) -> &OpenStats {
        &self.open_stats
    }

    /// Starts the thread that flushes and compacts the store in the background when
    /// commits signal it. It holds only a weak reference and ends with the graph.
    pub(crate) fn start_maintenance(graph: &Arc<Graph>) {
        let (sender, receiver) = mpsc::sync_channel::<()>(1);
        *graph.flush_signal.lock() = Some(sender);
        let weak = Arc::downgrade(graph);
        let spawned = std::thread::Builder::new()
            .name(format!("strata-flush-{}", graph.name))
            .spawn(move || {
                while receiver.recv().is_ok() {
                    let Some(graph) = weak.upgrade() else { break };
                    if let Err(error) = graph.flush_if_needed(graph.flush_every_quads) {
                        tracing::warn!(graph = %graph.name, %error, "flush failed");
                    }
                }
            });
        if let Err(error) = spawned {
            tracing::warn!(%error, "cannot start the flush thread; flushes happen at close only");
        }
    }

    /// Asks the background thread for a flush (never blocks).
    pub(crate) fn request_flush(&self) {
        if let Some(sender) = self.flush_signal.lock().as_ref() {
            let _ = sender.try_send(());
        }
    }

    /// Flushes the commits held in memory to a new store file (then compacts files) when
    /// at least `min_quads` quads changed since the last flush, unless one is running
    /// right now. Files are derived data: failing to write one loses nothing.
    pub fn flush_if_needed(&self, min_quads: u64) -> Result<(), EngineError> {
        let Some(guard) = self.flush_lock.try_lock() else {
            return Ok(());
        };
        self.flush(min_quads, guard)
    }

    /// Like `flush_if_needed`, but waits for a flush in progress first (at close, so the
    /// process does not exit in the middle of one).
    pub fn flush_when_idle(&self, min_quads: u64) -> Result<(), EngineError> {
        let guard = self.flush_lock.lock();
        self.flush(min_quads, guard)
    }

    fn flush(
        &self,
        min_quads: u64,
        _guard: parking_lot::MutexGuard<'_, ()>,
    ) -> Result<(), EngineError> {
        let pending = self.quads_since_flush.load(Ordering::Acquire);
        if self.poisoned.load(Ordering::Acquire) || self.read_only {
            return Ok(());
        }
        if pending < min_quads.max(1) {
            if self.publish_pending.swap(false, Ordering::AcqRel) {
                self.publish_store_files();
            }
            return Ok(());
        }
        self.publish_pending.store(false, Ordering::Release);
        // The frozen commits must be durable before a manifest names them (I4: a manifest
        // is never ahead of the log).
        let seq = self.store.freeze();
        self.sync_log_through(seq)?;
        let index = (seq as usize).checked_sub(1);
        let Some(hash) = index.and_then(|i| self.commits.read().get(i).map(|e| e.hash)) else {
            return Ok(());
        };
        let store_dir = self.dir.join(STORE_DIR);
        let flushed = self
            .store
            .flush(seq, hash)
            .map_err(|e| EngineError::io(&store_dir, e))?;
        self.quads_since_flush.fetch_sub(pending, Ordering::AcqRel);
        let compacted = self
            .store
            .compact()
            .map_err(|e| EngineError::io(&store_dir, e))?;
        let legacy = self.dir.join(CHECKPOINT_FILE);
        if legacy.exists() {
            let _ = std::fs::remove_file(&legacy);
        }
        tracing::debug!(graph = %self.name, seq, ?flushed, ?compacted, "flushed the store");
        self.publish_store_files();
        Ok(())
    }
}

/// Opens the graph's store files when their manifest matches a commit of the log. Files
/// that cannot be read are only derived data (they are set aside and the whole log is
/// replayed), but a readable manifest or legacy checkpoint that is ahead of the log or
/// disagrees with it proves the log lost or rewrote acknowledged commits: that stops the
/// open, so a commit number is never reused for different content.
fn open_store(
    dir: &std::path::Path,
    name: &GraphName,
    entries: &[LogEntry],
) -> Result<Store, EngineError> {
    let legacy = dir.join(CHECKPOINT_FILE);
    if legacy.exists()
        && let Ok(info) = store::read_checkpoint_info(&legacy)
    {
        check_checkpoint(name, &info, entries)?;
    }
    let store_dir = dir.join(STORE_DIR);
    match store::Manifest::read(&store_dir) {
        Ok(Some(manifest)) => {
            let info = store::CheckpointInfo {
                commit_seq: manifest.commit_seq,
                hash: manifest.hash,
            };
            check_checkpoint(name, &info, entries)?;
        }
        Ok(None) => {}
        Err(error) => tracing::warn!(graph = %name, %error, "unreadable store manifest"),
    }
    match Store::open(&store_dir, true) {
        Ok(Some((store, _))) => Ok(store),
        Ok(None) => Ok(Store::new_in(&store_dir)),
        Err(error) => {
            let aside = dir.join(format!(
                "store.unreadable-{}",
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_secs())
            ));
            tracing::warn!(
                graph = %name,
                %error,
                aside = %aside.display(),
                "unreadable store files, set aside; replaying the whole log"
            );
            std::fs::rename(&store_dir, &aside).map_err(|e| EngineError::io(&store_dir, e))?;
            Ok(Store::new_in(&store_dir))
        }
    }
}

/// Opens the store files without changing anything, beside a server that may flush or
/// compact meanwhile: a file the manifest names may be replaced (and deleted) between
/// reading the manifest and mapping the file, so the open retries with the new manifest.
/// Files that cannot be read leave the store in memory, rebuilt from the whole log.
/// Returns the store and the commit its files hold (to check against the log).
fn open_store_read_only(
    dir: &std::path::Path,
    name: &GraphName,
) -> (Store, Option<store::CheckpointInfo>) {
    let store_dir = dir.join(STORE_DIR);
    let mut attempts = 0;
    loop {
        attempts += 1;
        match Store::open(&store_dir, false) {
            Ok(Some((store, manifest))) => {
                let info = store::CheckpointInfo {
                    commit_seq: manifest.commit_seq,
                    hash: manifest.hash,
                };
                return (store, Some(info));
            }
            Ok(None) => return (Store::default(), None),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound && attempts < 5 => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            Err(error) => {
                tracing::warn!(graph = %name, %error, "unreadable store files; replaying the whole log");
                return (Store::default(), None);
            }
        }
    }
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
    // Lenient: the record passed its checksum and was written by `write_nquads`, so it is
    // replayed as written. The strict parser would refuse IRIs that Turtle accepts (a
    // prefixed name may hold code points RFC 3987 excludes, such as U+E0118), and an
    // acknowledged commit must always replay.
    for quad in oxttl::NQuadsParser::new()
        .lenient()
        .for_slice(&record.quads)
    {
        let quad = quad.map_err(|e| corruption(format!("undecodable quad: {e}")))?;
        keys.push(store.dict().intern_quad(quad));
    }
    if keys.len() as u64 != record.header.n_inserted + record.header.n_deleted {
        return Err(corruption("quad count differs from the header".into()));
    }
    let deletes = keys.split_off(record.header.n_inserted as usize);
    Ok((keys, deletes))
}

impl GraphHistory for Graph {
    fn head_seq(&self) -> CommitSeq {
        Graph::head_seq(self)
    }

    fn snapshot(&self, seq: CommitSeq) -> store::Snapshot {
        Graph::snapshot(self, seq)
    }

    fn commit_changes(&self, seq: CommitSeq) -> Result<ChangedQuads, EngineError> {
        Graph::commit_changes(self, seq)
    }

    fn commit_size(&self, seq: CommitSeq) -> u64 {
        self.commit_info(seq).map_or(u64::MAX, |info| {
            info.header.n_inserted.saturating_add(info.header.n_deleted)
        })
    }
}

/// The search part, as the graph offers it (searches themselves are reads: `GraphReader`).
impl Graph {
    /// Starts the search part's worker, which follows this graph while it lives.
    pub(crate) fn start_search_worker(graph: &Arc<Graph>) {
        let weak = Arc::downgrade(graph);
        graph
            .search
            .start_worker(move || weak.upgrade().is_some_and(|g| g.search.work(&*g)));
    }

    /// Brings every search index up to the head now.
    pub fn sync_indexes(&self) -> Result<(), EngineError> {
        self.search.sync(self)
    }

    /// Where every search index stands.
    pub fn index_status(&self) -> Vec<IndexStatus> {
        self.search.status(self.head_seq())
    }

    /// Re-indexes a declaration from scratch (after a model change, or on request).
    pub fn refresh_embedding(&self, name: &str) -> Result<(), EngineError> {
        self.search.refresh(name)
    }
}

/// The SHACL part, as the graph offers it (validation at a commit is a read:
/// `GraphReader::shapes`, `GraphReader::validate`).
impl Graph {
    /// The shapes in force at the head, if any.
    pub fn active_shapes(&self) -> Option<super::ActiveShapes> {
        self.shacl.active()
    }

    /// The latest whole-graph report: kept current by commits, recomputed when stale.
    /// `None` when the graph has no shapes.
    pub fn conformance(&self) -> Result<Option<Arc<super::Conformance>>, EngineError> {
        self.shacl.conformance(&self.snapshot(self.head_seq()))
    }

    /// What publishing these shapes would find at the head, writing nothing.
    pub fn preview_shapes(
        &self,
        triples: Vec<crate::model::Triple>,
    ) -> Result<super::ShapesPreview, EngineError> {
        super::validation::preview(&self.snapshot(self.head_seq()), triples)
    }
}
