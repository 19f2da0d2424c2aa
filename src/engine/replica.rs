//! A graph in a cluster. Its commits are agreed through a shared log (`log::SharedLog`,
//! NATS JetStream): a write catches up to the shared log's last commit, builds and checks
//! its commit against that state, and appends it only if nobody appended meanwhile (else
//! it catches up and tries again, see `write.rs`). A follower thread applies the commits
//! other nodes append, in order. Every record is checked (its hash, its quads' digest, its
//! parent) before it is applied, and is kept byte for byte in the local log file, so the
//! local log verifies exactly like an embedded one.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::error::EngineError;
use super::graph::{Graph, WriterState, decode_changes};
use crate::log::{LogEntry, SharedRecord, decode_record};
use crate::model::CommitSeq;

/// How long a write refused for an unavailable shared log marks the graph unreachable.
const REFUSED_FOR: Duration = Duration::from_secs(30);

/// Downloads of the newest store files a new node tries before giving up.
const BOOTSTRAP_ATTEMPTS: usize = 3;

/// How long a read-your-writes wait expects the append watcher to deliver a commit
/// before asking the shared log for it.
const PUSH_GRACE: Duration = Duration::from_millis(25);

/// How often a follower asks the shared log for new commits.
const FOLLOW_EVERY: Duration = Duration::from_millis(100);

impl Graph {
    /// Whether this graph's commits are agreed through a cluster's shared log.
    pub fn is_clustered(&self) -> bool {
        self.shared.is_some()
    }

    /// In a cluster: the shared log's last commit as last seen, and how far this node's
    /// head is behind it.
    pub fn cluster_lag(&self) -> Option<(CommitSeq, u64)> {
        self.shared.as_ref()?;
        let seen = self.shared_seen.get();
        Some((seen, seen.saturating_sub(self.head_seq())))
    }

    /// In a cluster: the commit of the store files this node last published (0: none).
    pub fn files_published(&self) -> Option<CommitSeq> {
        self.shared.as_ref()?;
        Some(self.files_published.load(Ordering::Acquire))
    }

    /// In a cluster: whether the shared log answers — the follower's last request did,
    /// and no write found it unavailable in the last `REFUSED_FOR` without a later
    /// acknowledged append.
    pub fn cluster_reachable(&self) -> Option<bool> {
        self.shared.as_ref()?;
        let refused = self
            .write_refused_at
            .lock()
            .is_some_and(|at| at.elapsed() < REFUSED_FOR);
        Some(!self.shared_failing.load(Ordering::Acquire) && !refused)
    }

    /// Records what a write learned about the shared log.
    pub(crate) fn note_shared(&self, error: &EngineError) {
        if matches!(
            error,
            EngineError::Log(crate::log::LogError::Unavailable { .. })
        ) {
            *self.write_refused_at.lock() = Some(Instant::now());
        }
    }

    /// Applies the commits of the shared log this node lacks. Returns how many.
    pub fn catch_up(&self) -> Result<u64, EngineError> {
        let Some(shared) = &self.shared else {
            return Ok(0);
        };
        if !self.writer.lock().in_flight.is_empty() {
            return Ok(0);
        }
        // Asked without the writer lock: local writers must not wait on a round trip that
        // finds nothing new.
        let last = shared.last_seq()?;
        self.shared_seen.note(last);
        if last <= self.store.applied_seq() {
            return Ok(0);
        }
        let mut writer = self.writer.lock();
        if !writer.in_flight.is_empty() {
            // This node's own commits are on their way: their writers apply them (and
            // catch up if the pipeline breaks) without reading them back.
            return Ok(0);
        }
        let applied = self.catch_up_locked(&mut writer, Some(last))?;
        drop(writer);
        self.after_applying(applied)?;
        Ok(applied)
    }

    /// Applies the records the append watcher delivered that follow this node's head, in
    /// order, without asking the shared log for them. Returns how many.
    pub(crate) fn apply_pushed(&self) -> Result<u64, EngineError> {
        // Records of commits applied otherwise (this node's own, read back) go.
        self.shared_seen.forget_through(self.store.applied_seq());
        if !self.shared_seen.holds(self.store.applied_seq() + 1) {
            return Ok(0);
        }
        let mut writer = self.writer.lock();
        if !writer.in_flight.is_empty() {
            return Ok(0);
        }
        let mut applied = 0;
        loop {
            let seq = self.store.applied_seq() + 1;
            let Some(record) = self.shared_seen.take(seq) else {
                break;
            };
            self.apply_shared_record(&mut writer, seq, SharedRecord::Memory(record))?;
            applied += 1;
        }
        drop(writer);
        self.after_applying(applied)?;
        Ok(applied)
    }

    /// `catch_up` under the writer lock (the write path calls it before building a
    /// commit), up to `known_last` or, when `None`, to the last commit the shared log
    /// says it holds. The caller makes the applied commits durable and visible
    /// (`after_applying`) once it releases the lock.
    pub(crate) fn catch_up_locked(
        &self,
        writer: &mut WriterState,
        known_last: Option<CommitSeq>,
    ) -> Result<u64, EngineError> {
        let Some(shared) = &self.shared else {
            return Ok(0);
        };
        let last = match known_last {
            Some(last) => last,
            None => shared.last_seq()?,
        };
        self.shared_seen.note(last);
        let mut applied = 0;
        let mut seq = self.store.applied_seq();
        while seq < last {
            if let Some(record) = self.shared_seen.take(seq + 1) {
                seq += 1;
                self.apply_shared_record(writer, seq, SharedRecord::Memory(record))?;
                applied += 1;
                continue;
            }
            let records = shared.read_range(seq + 1, last, &self.dir)?;
            // Forwarded writes whose commits these are (the watcher, which names them
            // otherwise, missed their messages): answered once applied, not at a resend.
            for (commit, forwarded) in shared.take_forwarded_read() {
                self.note_forwarded_commit(commit, forwarded);
            }
            if records.is_empty() {
                // Never spin holding the writer lock: the follower asks again later.
                return Err(crate::log::LogError::Unavailable {
                    message: format!("reading commits from {}: none came", seq + 1),
                }
                .into());
            }
            for record in records {
                seq += 1;
                self.apply_shared_record(writer, seq, record)?;
                applied += 1;
            }
        }
        Ok(applied)
    }

    /// Makes commits applied by `catch_up_locked` durable locally and visible to readers.
    pub(crate) fn after_applying(&self, applied: u64) -> Result<(), EngineError> {
        if applied == 0 {
            return Ok(());
        }
        self.sync_through(self.store.applied_seq())?;
        self.search.notify();
        Ok(())
    }

    /// Checks one record from the shared log against this node's history and applies it
    /// as commit `seq`: local log, store, idempotency keys, SHACL state. A big import's
    /// record (it came in a scratch file) becomes a store file of its own, never whole in
    /// memory (`apply_shared_bulk`).
    fn apply_shared_record(
        &self,
        writer: &mut WriterState,
        seq: CommitSeq,
        record: SharedRecord,
    ) -> Result<(), EngineError> {
        let bulk = |header: &crate::log::CommitHeader| {
            header.n_deleted == 0 && header.n_inserted >= self.bulk_run_quads as u64
        };
        let record = match record {
            // A big commit that came inline (a small `bulk_run_quads`) takes the same path.
            SharedRecord::Memory(bytes)
                if crate::log::peek_header(&bytes).is_some_and(|h| bulk(&h)) =>
            {
                let mut file = crate::scratch::unlinked_file(&self.dir)
                    .map_err(|e| EngineError::io(&self.dir, e))?;
                std::io::Write::write_all(&mut file, &bytes)
                    .map_err(|e| EngineError::io(&self.dir, e))?;
                SharedRecord::Spilled {
                    file,
                    len: bytes.len() as u64,
                }
            }
            other => other,
        };
        if let SharedRecord::Spilled { file, len } = &record
            && self.apply_shared_bulk(writer, seq, (file, *len))?
        {
            return Ok(());
        }
        let bytes = record
            .into_bytes()
            .map_err(|e| EngineError::io(&self.dir, e))?;
        let bytes = bytes.as_slice();
        let diverged = |reason: String| EngineError::SharedLogDiverged {
            graph: self.name.to_string(),
            reason,
        };
        let record = decode_record(bytes)
            .ok_or_else(|| diverged(format!("commit {seq} does not decode or fails its hash")))?;
        if record.header.commit_seq != seq {
            return Err(diverged(format!(
                "message {seq} holds commit {}",
                record.header.commit_seq
            )));
        }
        if record.header.parent_hash != writer.head_hash {
            return Err(diverged(format!(
                "commit {seq} names parent {} but this node's commit {} is {}",
                record.header.parent_hash.to_hex(),
                seq - 1,
                writer.head_hash.to_hex()
            )));
        }
        let (inserts, deletes) = decode_changes(&self.store, &record)?;
        let offset = self.log.append(bytes)?;
        self.store.apply(seq, &inserts, &deletes);
        let shapes_changed = inserts
            .iter()
            .chain(&deletes)
            .any(|key| Some(key[3]) == self.shacl_graph_id());
        self.shacl.follow(
            &self.store.snapshot_at(seq),
            shapes_changed,
            self.name.as_str(),
        );
        writer.head_hash = record.hash;
        if let Some(key) = &record.header.idempotency_key {
            self.idempotency.write().insert(key.clone(), seq);
        }
        self.commits.write().push(LogEntry {
            header: record.header,
            hash: record.hash,
            offset,
            len: bytes.len() as u64,
        });
        self.count_for_flush((inserts.len() + deletes.len()) as u64);
        Ok(())
    }

    /// Applies a big record that only inserts (`len` bytes in `file`) the way an import
    /// wrote it: the record's CRC, hash, number and parent are checked first; its quads
    /// stream from the file into a new segment file while their digest is computed; only
    /// if that matches the header is the record appended to the local log and made
    /// durable, and then the file installed (I4). Returns false, having changed nothing,
    /// for a record that is better applied in memory (deletes, fewer quads than one run,
    /// shapes or search declarations possibly in force).
    fn apply_shared_bulk(
        &self,
        writer: &mut WriterState,
        seq: CommitSeq,
        (file, len): (&std::fs::File, u64),
    ) -> Result<bool, EngineError> {
        let diverged = |reason: String| EngineError::SharedLogDiverged {
            graph: self.name.to_string(),
            reason,
        };
        let (frame, hash, header) = crate::log::check_record_file(file, len)
            .ok_or_else(|| diverged(format!("commit {seq} does not decode or fails its hash")))?;
        if header.commit_seq != seq {
            return Err(diverged(format!(
                "message {seq} holds commit {}",
                header.commit_seq
            )));
        }
        if header.parent_hash != writer.head_hash {
            return Err(diverged(format!(
                "commit {seq} names parent {} but this node's commit {} is {}",
                header.parent_hash.to_hex(),
                seq - 1,
                writer.head_hash.to_hex()
            )));
        }
        let bulk = header.n_deleted == 0 && header.n_inserted >= self.bulk_run_quads as u64;
        if !bulk || self.knows_control_graph() || self.store.dir().is_none() {
            return Ok(false);
        }
        if !self.store.ready_for_bulk(seq) {
            self.flush_when_idle(1)?;
        }
        if !self.store.ready_for_bulk(seq) {
            return Ok(false);
        }
        let mut quads = crate::log::DigestReader::new(crate::log::quads_reader_at(file, 0, &frame));
        let built = super::replay::build_bulk_segment(
            &mut quads,
            header.n_inserted,
            seq,
            &self.store,
            &self.dir,
            (self.bulk_run_quads, self.bulk_dict_terms),
            |reason| diverged(format!("commit {seq}: {reason}")),
        )?;
        if quads.digest() != header.quads_digest {
            let _ = std::fs::remove_file(&built);
            return Err(diverged(format!(
                "commit {seq}'s quads differ from their digest"
            )));
        }
        let appended = self
            .log
            .append_shared(&SharedRecord::Spilled {
                file: file
                    .try_clone()
                    .map_err(|e| EngineError::io(&self.dir, e))?,
                len,
            })
            .and_then(|offset| self.log.sync().map(|()| offset));
        let offset = match appended {
            Ok(offset) => offset,
            Err(error) => {
                let _ = std::fs::remove_file(&built);
                self.poisoned.store(true, Ordering::Release);
                return Err(error.into());
            }
        };
        if let Err(error) = self.store.install_bulk(seq, hash, &built) {
            // Durable in the log, not in the store: the next open replays it.
            let _ = std::fs::remove_file(&built);
            self.poisoned.store(true, Ordering::Release);
            return Err(EngineError::io(&self.dir, error));
        }
        writer.head_hash = hash;
        if let Some(key) = &header.idempotency_key {
            self.idempotency.write().insert(key.clone(), seq);
        }
        self.commits.write().push(LogEntry {
            header,
            hash,
            offset,
            len,
        });
        Ok(true)
    }

    fn shacl_graph_id(&self) -> Option<crate::store::TermId> {
        self.store.dict().lookup(&crate::model::Term::NamedNode(
            super::validation::shapes_graph_name(),
        ))
    }

    /// Waits until this node has applied commit `seq` (read-your-writes across nodes),
    /// at most `timeout`; else `NotCaughtUp` naming the head it has.
    pub fn wait_for_commit(&self, seq: CommitSeq, timeout: Duration) -> Result<(), EngineError> {
        let started = Instant::now();
        loop {
            if self.head_seq() >= seq {
                return Ok(());
            }
            if self.shared.is_some() {
                // The watcher usually delivers the commit within milliseconds: apply it
                // from there; ask the shared log when it does not come. A failed read is
                // tried again until the time is up: the commit waited for is stored,
                // only this node lacks it.
                let outcome = match self.apply_pushed() {
                    Ok(_) if self.head_seq() >= seq => return Ok(()),
                    Ok(_) if started.elapsed() < PUSH_GRACE => Ok(0),
                    Ok(_) => self.catch_up(),
                    Err(error) => Err(error),
                };
                match outcome {
                    Ok(_) if self.head_seq() >= seq => return Ok(()),
                    Ok(_) => {}
                    Err(error) if started.elapsed() >= timeout => return Err(error),
                    Err(_) => {}
                }
            }
            if started.elapsed() >= timeout {
                return Err(EngineError::NotCaughtUp {
                    graph: self.name.to_string(),
                    wanted: seq,
                    head: self.head_seq(),
                    waited_ms: started.elapsed().as_millis() as u64,
                });
            }
            let seen = self.shared_seen.get().max(self.head_seq());
            self.shared_seen.wait_beyond(seen, Duration::from_millis(5));
        }
    }

    /// Starts the thread that applies what other nodes append (clustered graphs only):
    /// woken as soon as the shared log stores a commit this node lacks, and asking on its
    /// own every `FOLLOW_EVERY` (which also tells whether the log answers). It holds a
    /// weak handle: it ends with the graph.
    pub(crate) fn start_follower(graph: &Arc<Graph>) {
        let Some(shared) = &graph.shared else {
            return;
        };
        let stored = graph.shared_seen.clone();
        let watched = Arc::downgrade(&stored);
        let answering = Arc::downgrade(graph);
        shared.watch_appends(Box::new(move |seq, record, forwarded| {
            let Some(stored) = watched.upgrade() else {
                return false;
            };
            if let Some(forwarded) = forwarded
                && let Some(graph) = answering.upgrade()
            {
                graph.note_forwarded_commit(seq, forwarded);
            }
            if let Some(record) = record {
                stored.keep(seq, record);
            }
            stored.note(seq);
            true
        }));
        let weak = Arc::downgrade(graph);
        let name = graph.name.to_string();
        let spawned = std::thread::Builder::new()
            .name(format!("strata-follow-{name}"))
            .spawn(move || {
                let mut failing = false;
                loop {
                    let woken = stored.wait_for_others(
                        weak.upgrade().map_or(0, |g| g.store.applied_seq()),
                        FOLLOW_EVERY,
                    );
                    let Some(graph) = weak.upgrade() else { break };
                    if graph.poisoned.load(Ordering::Acquire) {
                        break;
                    }
                    // Woken by the watcher: the records it delivered first, without a
                    // round trip; ask the shared log only for what they do not cover
                    // (and at every poll, which also tells whether it answers).
                    let outcome = match woken.then(|| graph.apply_pushed()) {
                        Some(Ok(n)) if graph.store.applied_seq() >= stored.get() => Ok(n),
                        Some(Err(error)) => Err(error),
                        _ => graph.catch_up(),
                    };
                    if matches!(outcome, Ok(0)) && graph.shared_seen.get() > graph.store.applied_seq() {
                        // The commits it heard of are this node's own, in flight: their
                        // writers apply them. Do not spin while they do.
                        std::thread::sleep(Duration::from_millis(2));
                    }
                    let outcome = outcome.and_then(|n| graph.sync_local_copy().map(|()| n));
                    graph.shared_failing.store(outcome.is_err(), Ordering::Release);
                    match outcome {
                        Ok(_) if failing => {
                            tracing::info!(graph = %name, "following the shared log again");
                            failing = false;
                        }
                        Ok(_) => {}
                        Err(error) if !failing => {
                            tracing::warn!(graph = %name, %error, "cannot follow the shared log; serving what is applied");
                            failing = true;
                        }
                        Err(_) => {}
                    }
                }
            });
        if let Err(error) = spawned {
            tracing::warn!(%error, "cannot start the follower thread");
        }
    }
}

/// The newest commit the shared log is known to hold (from the follower's requests and
/// the append watcher), for the follower, writers and read-your-writes waits.
#[derive(Default)]
pub(crate) struct SharedHead {
    seq: parking_lot::Mutex<CommitSeq>,
    changed: parking_lot::Condvar,
    /// Wakes the follower thread: only for commits past `own_sent`.
    for_follower: parking_lot::Condvar,
    /// The last commit this node's pipeline sent and has not dropped. Its own writers
    /// apply those commits when the log answers them, from the records they built: the
    /// watcher's delivery of them neither wakes the follower nor is kept (on the leader
    /// that is every commit).
    own_sent: std::sync::atomic::AtomicU64,
    /// Records the watcher delivered that may not be applied yet, by commit number
    /// (bounded: `PUSHED_MAX_RECORDS`, `PUSHED_MAX_BYTES`; what does not fit is read
    /// from the shared log when due).
    pushed: parking_lot::Mutex<(std::collections::BTreeMap<CommitSeq, Vec<u8>>, usize)>,
}

/// How many delivered records, and bytes of them, a node keeps ahead of its head.
const PUSHED_MAX_RECORDS: usize = 16_384;
const PUSHED_MAX_BYTES: usize = 64 << 20;

impl SharedHead {
    pub(crate) fn get(&self) -> CommitSeq {
        *self.seq.lock()
    }

    /// The shared log holds commit `seq`.
    fn note(&self, seq: CommitSeq) {
        let mut last = self.seq.lock();
        if seq > *last {
            *last = seq;
            self.changed.notify_all();
            if seq > self.own_sent.load(Ordering::Acquire) {
                self.for_follower.notify_all();
            }
        }
    }

    /// This node's pipeline sent commit `seq` (see `own_sent`).
    pub(crate) fn sent(&self, seq: CommitSeq) {
        self.own_sent.fetch_max(seq, Ordering::AcqRel);
    }

    /// This node's pipeline dropped its commits from `seq` on (refused, or unanswered):
    /// what the log holds there may be another node's, so the follower looks again.
    pub(crate) fn dropped_from(&self, seq: CommitSeq) {
        self.own_sent
            .fetch_min(seq.saturating_sub(1), Ordering::AcqRel);
        let _last = self.seq.lock();
        self.for_follower.notify_all();
    }

    /// The follower's wait: returns once the shared log stored a commit after `applied`
    /// that this node's own writers will not apply (true), or after `limit` (false).
    fn wait_for_others(&self, applied: CommitSeq, limit: Duration) -> bool {
        let deadline = Instant::now() + limit;
        let mut seq = self.seq.lock();
        while *seq <= applied.max(self.own_sent.load(Ordering::Acquire)) {
            if self.for_follower.wait_until(&mut seq, deadline).timed_out() {
                return false;
            }
        }
        true
    }

    /// Returns once the shared log stored a commit after `applied` (true), or after
    /// `limit` (false).
    fn wait_beyond(&self, applied: CommitSeq, limit: Duration) -> bool {
        let deadline = Instant::now() + limit;
        let mut seq = self.seq.lock();
        while *seq <= applied {
            if self.changed.wait_until(&mut seq, deadline).timed_out() {
                return false;
            }
        }
        true
    }

    /// Keeps the record of commit `seq` the watcher delivered, while there is room.
    fn keep(&self, seq: CommitSeq, record: Vec<u8>) {
        if seq <= self.own_sent.load(Ordering::Acquire) {
            return;
        }
        let mut pushed = self.pushed.lock();
        let (records, bytes) = &mut *pushed;
        if records.len() < PUSHED_MAX_RECORDS && *bytes + record.len() <= PUSHED_MAX_BYTES {
            *bytes += record.len();
            if let Some(old) = records.insert(seq, record) {
                *bytes -= old.len();
            }
        }
    }

    /// The delivered record of commit `seq`, forgetting it and every one before it.
    fn take(&self, seq: CommitSeq) -> Option<Vec<u8>> {
        let mut pushed = self.pushed.lock();
        let (records, bytes) = &mut *pushed;
        while let Some(entry) = records.first_entry() {
            let at = *entry.key();
            if at > seq {
                return None;
            }
            let record = entry.remove();
            *bytes -= record.len();
            if at == seq {
                return Some(record);
            }
        }
        None
    }

    /// Forgets the delivered records of commits up to `seq`.
    fn forget_through(&self, seq: CommitSeq) {
        let mut pushed = self.pushed.lock();
        let (records, bytes) = &mut *pushed;
        while let Some(entry) = records.first_entry() {
            if *entry.key() > seq {
                break;
            }
            *bytes -= entry.remove().len();
        }
    }

    /// Whether the watcher delivered the record of commit `seq`.
    fn holds(&self, seq: CommitSeq) -> bool {
        self.pushed.lock().0.contains_key(&seq)
    }
}

/// This data directory's name among the nodes of a cluster (made once, kept in
/// `<data>/node.id`): the namespace of the store files it publishes.
pub(crate) fn node_id(data_dir: &Path) -> String {
    let path = data_dir.join("node.id");
    if let Ok(id) = std::fs::read_to_string(&path)
        && !id.trim().is_empty()
    {
        return id.trim().to_owned();
    }
    let mut bytes = [0u8; 8];
    let _ = std::fs::File::open("/dev/urandom")
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut bytes));
    let id: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    let _ = std::fs::write(&path, &id);
    id
}

impl Graph {
    /// This node's name in the cluster (`node_id` of its data directory).
    pub fn node_name(&self) -> String {
        let data_dir = self
            .dir
            .parent()
            .and_then(Path::parent)
            .unwrap_or(&self.dir);
        node_id(data_dir)
    }

    /// Publishes this node's store files (after a flush) for new nodes to start from.
    /// Derived data: a failure is logged, never fatal.
    pub(crate) fn publish_store_files(&self) {
        let Some(shared) = &self.shared else {
            return;
        };
        // Derived data: while the log does not answer the next flush publishes (and a node
        // shutting down while the cluster is away does not wait on it).
        if !shared.is_connected() || self.cluster_reachable() == Some(false) {
            // Tried again at the lease thread's next round (no commit may come to ask).
            self.publish_pending.store(true, Ordering::Release);
            tracing::debug!(graph = %self.name, "the shared log does not answer: store files not published yet");
            return;
        }
        let store_dir = self.dir.join(super::graph::STORE_DIR);
        let Ok(manifest) = std::fs::read(store_dir.join(crate::store::MANIFEST_FILE)) else {
            return;
        };
        let Ok(Some(parsed)) = crate::store::Manifest::read(&store_dir) else {
            return;
        };
        let files: Vec<(String, std::path::PathBuf)> = parsed
            .files()
            .map(|name| (name.to_owned(), store_dir.join(name)))
            .collect();
        let started = Instant::now();
        match shared.publish_files(&self.node_name(), &manifest, &files) {
            Ok(()) => {
                self.files_published
                    .fetch_max(parsed.commit_seq, Ordering::AcqRel);
                tracing::info!(
                    graph = %self.name,
                    commit = parsed.commit_seq,
                    files = files.len(),
                    seconds = started.elapsed().as_secs_f64(),
                    "published the store files for new nodes"
                )
            }
            Err(error) => {
                self.publish_pending.store(true, Ordering::Release);
                tracing::warn!(graph = %self.name, %error, "could not publish the store files (will try again)")
            }
        }
    }
}

/// Starts a new node's copy of a graph from the newest published store files: downloads
/// them, copies the log up to their commit from the shared log (records only: nothing is
/// parsed or indexed), and writes their manifest last. Returns the commit the files hold,
/// or `None` when none are published (the node then replays the shared log). A failure
/// leaves no directory behind.
pub(crate) fn bootstrap(
    dir: &Path,
    shared: &dyn crate::log::SharedLog,
) -> Result<Option<CommitSeq>, EngineError> {
    let attempt = || -> Result<Option<CommitSeq>, EngineError> {
        let store_dir = dir.join(super::graph::STORE_DIR);
        let Some(manifest) = shared.fetch_files(&store_dir)? else {
            return Ok(None);
        };
        let text = String::from_utf8_lossy(&manifest);
        let seq: CommitSeq = text
            .lines()
            .find_map(|line| line.strip_prefix("commit "))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .ok_or_else(|| EngineError::SharedLogDiverged {
                graph: dir.display().to_string(),
                reason: "the published manifest names no commit".into(),
            })?;
        let log_path = dir.join(super::graph::LOG_FILE);
        let (log, _) = crate::log::CommitLog::open(&log_path, true)?;
        let mut copied = 0;
        while copied < seq {
            for record in shared.read_range(copied + 1, seq, dir)? {
                log.append_shared(&record)?;
                copied += 1;
            }
        }
        log.sync()?;
        let temporary = store_dir.join("MANIFEST.bootstrap");
        std::fs::write(&temporary, &manifest)
            .and_then(|()| std::fs::File::open(&temporary)?.sync_all())
            .and_then(|()| std::fs::rename(&temporary, store_dir.join(crate::store::MANIFEST_FILE)))
            .map_err(|e| EngineError::io(&store_dir, e))?;
        Ok(Some(seq))
    };
    // A publisher may replace the newest files while they download (and remove the ones
    // two publications old): a failed download starts again from the newest.
    let mut outcome = Ok(None);
    for _ in 0..BOOTSTRAP_ATTEMPTS {
        std::fs::create_dir_all(dir).map_err(|e| EngineError::io(dir, e))?;
        outcome = attempt();
        if matches!(outcome, Ok(Some(_))) {
            return outcome;
        }
        let _ = std::fs::remove_dir_all(dir);
        if outcome.is_ok() {
            break;
        }
    }
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHORT: Duration = Duration::from_millis(30);

    #[test]
    fn the_follower_is_not_woken_for_the_commits_its_own_pipeline_sent() {
        let head = Arc::new(SharedHead::default());
        head.sent(3);
        head.note(2);
        head.note(3);
        head.keep(3, b"own record".to_vec());
        assert!(
            !head.wait_for_others(1, SHORT),
            "commits 2 and 3 are its own"
        );
        assert!(!head.holds(3), "its own delivered record is not kept");
        head.note(4);
        head.keep(4, b"another node's".to_vec());
        assert!(head.wait_for_others(1, SHORT), "commit 4 is another node's");
        assert!(head.holds(4));
    }

    #[test]
    fn a_dropped_pipeline_wakes_the_follower_for_what_the_log_holds_there() {
        let head = Arc::new(SharedHead::default());
        head.sent(5);
        head.note(5);
        let waiting = {
            let head = head.clone();
            std::thread::spawn(move || head.wait_for_others(2, Duration::from_secs(10)))
        };
        std::thread::sleep(SHORT);
        // Commits 4 and 5 were refused: the 4 and 5 the log holds are another node's.
        head.dropped_from(4);
        assert!(
            waiting.join().expect("joins"),
            "woken once its commits were dropped"
        );
        assert!(head.wait_for_others(3, SHORT));
    }
}
