//! Search indexes following commits. Declarations live in the graph's `strata:embeddings`
//! named graph (versioned by the log); each has an index under
//! `<graph dir>/search/<name>/` kept current by one background worker per graph: after
//! each commit it re-embeds the records whose text changed (found from the commits'
//! changes, plus the records linking to a changed record through a recipe property, whose
//! text shows that record's label) and drops records that left the class.
//!
//! Reads report how far each index is behind the head (`lag`); `consistency: strong`
//! waits until the index reflects the commit it reads.

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex, RwLock};

use super::error::EngineError;
use super::read::ChangedQuads;
use crate::model::{CommitSeq, NamedNode, Term};
use crate::search::embed::{self, Embedder};
use crate::search::{
    Candidates, Declaration, EMBEDDINGS_GRAPH, Hit, Lane, Recipe, SearchIndex, SearchPlan, StandIn,
    StandIns,
};
use crate::store::{GraphFilter, Pattern, Snapshot, TermId};

/// Texts embedded per model call (and per progress step).
const EMBED_BATCH: usize = 64;
pub use crate::search::EXACT_MAX_CANDIDATES;
/// The most hits one search may ask an index for.
pub const MAX_K: usize = 1_000;

/// A search reads its commit exactly when the index reflects another one: the records
/// whose text differs between the two are scored from their text at the commit read.
/// That costs a look at the commits in between and an embedding per changed record, so
/// it is done when they changed at most this many quads...
const STAND_IN_MAX_QUADS: u64 = 50_000;
/// ...and at most this many records, for a read pinned before the index's commit...
const STAND_IN_MAX_RECORDS_PINNED: usize = 1_000;
/// ...or this many for a read the index has not caught up with yet (every search until
/// it has pays for them).
const STAND_IN_MAX_RECORDS_AHEAD: usize = 64;

/// The named graph holding vectors supplied by callers (MCP `commit` → `entity_embeddings`):
/// `<record> strata:vector/<index> "0.12 -0.5 …"`. A supplied vector replaces the model's
/// embedding of that record in that index; it is versioned like any data.
pub const VECTORS_GRAPH: &str = "https://strata.dev/ns#vectors";

/// The predicate of an index's supplied vectors.
pub fn vector_predicate(index: &str) -> NamedNode {
    NamedNode::new_unchecked(format!("https://strata.dev/ns#vector/{index}"))
}

/// The quad that supplies `vector` for `record` in `index`.
pub fn vector_quad(record: &NamedNode, index: &str, vector: &[f32]) -> crate::model::Quad {
    let text = vector
        .iter()
        .map(|x| format!("{x}"))
        .collect::<Vec<_>>()
        .join(" ");
    crate::model::Quad::new(
        record.clone(),
        vector_predicate(index),
        crate::model::Literal::new_simple_literal(text),
        crate::model::RdfGraphName::NamedNode(NamedNode::new_unchecked(VECTORS_GRAPH)),
    )
}

/// A record's supplied vector for an index: its literal text and values.
fn supplied_vector(
    snapshot: &Snapshot,
    record: TermId,
    predicate: Option<TermId>,
    dim: usize,
) -> Option<(String, Vec<f32>)> {
    let key = snapshot
        .quads(Pattern {
            subject: Some(record),
            predicate: Some(predicate?),
            object: None,
            graph: GraphFilter::All,
        })
        .next()?;
    let Some(Term::Literal(literal)) = snapshot.term(key[2]) else {
        return None;
    };
    let mut values: Vec<f32> = literal
        .value()
        .split_whitespace()
        .filter_map(|x| x.parse().ok())
        .collect();
    if values.len() != dim {
        return None;
    }
    embed::normalize(&mut values);
    Some((literal.value().to_owned(), values))
}

/// A record to (re)index: record, text, vector supplied by a caller, and the hash of what
/// made the vector.
type Pending = (Arc<str>, String, Option<Vec<f32>>, u64);

/// The embedder of a model directory, loaded once per process.
pub fn embedder_for(model_dir: &std::path::Path) -> Arc<dyn Embedder> {
    static LOADED: OnceLock<Mutex<BTreeMap<PathBuf, Arc<dyn Embedder>>>> = OnceLock::new();
    let loaded = LOADED.get_or_init(Default::default);
    let mut loaded = loaded.lock();
    loaded
        .entry(model_dir.to_path_buf())
        .or_insert_with(|| embed::choose(model_dir))
        .clone()
}

/// Where an index stands.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IndexProgress {
    /// `building` (first build or refresh), `following` (incremental), `ready`, `error`.
    pub state: &'static str,
    pub done: usize,
    pub total: usize,
    /// Time spent on this pass so far, for the rate (`done` per second).
    pub elapsed_ms: u64,
    pub error: Option<String>,
}

impl IndexProgress {
    /// Records embedded per second in this pass (0 before the first batch lands).
    pub fn records_per_second(&self) -> f64 {
        if self.elapsed_ms == 0 {
            0.0
        } else {
            self.done as f64 * 1000.0 / self.elapsed_ms as f64
        }
    }
}

/// One declared index.
pub struct IndexEntry {
    pub declaration: Declaration,
    index: RwLock<SearchIndex>,
    progress: Mutex<IndexProgress>,
}

/// A read-only view of an index's state.
#[derive(Clone, Debug)]
pub struct IndexStatus {
    pub declaration: Declaration,
    pub embedder: String,
    pub semantic: bool,
    pub dim: usize,
    pub records: usize,
    pub published_seq: CommitSeq,
    pub head_seq: CommitSeq,
    pub progress: IndexProgress,
}

/// What the search part reads of its graph: the head, snapshots, and the changes each
/// commit made. The part sees its graph through this and nothing else.
pub(crate) trait GraphHistory {
    fn head_seq(&self) -> CommitSeq;
    fn snapshot(&self, seq: CommitSeq) -> Snapshot;
    fn commit_changes(&self, seq: CommitSeq) -> Result<ChangedQuads, EngineError>;
    /// How many quads a commit inserted and deleted (from its header: no log read).
    fn commit_size(&self, seq: CommitSeq) -> u64;
}

/// A graph's search part: its indexes, the worker that keeps them following the commits,
/// and the searches over them.
pub(crate) struct SearchPart {
    /// The graph's name (for logs and the worker thread's name).
    graph_name: String,
    /// `<graph dir>/search`: one directory per index.
    dir: PathBuf,
    model_dir: PathBuf,
    /// Threads an index may insert vectors with (`EngineConfig::index_threads`).
    index_threads: usize,
    indexes: RwLock<BTreeMap<String, Arc<IndexEntry>>>,
    signal: Mutex<Option<mpsc::SyncSender<()>>>,
    /// Wakes readers waiting for an index to catch up (`consistency: strong`).
    caught_up: (Mutex<()>, Condvar),
    stopping: AtomicBool,
    /// One sync at a time (the worker's, or a direct call).
    syncing: Mutex<()>,
    /// The last sync found nothing declared: the worker then takes its wakes at most
    /// every `IDLE_PAUSE` (a graph without search must not pay a thread wake and a look
    /// at its declarations for every commit).
    nothing_declared: Arc<AtomicBool>,
}

/// How often, at most, the worker of a graph without declarations looks for new ones.
/// A search that must see the newest declaration (`consistency: strong`) waits for it
/// (`wait_for`), so this only delays the first build of a new index.
const IDLE_PAUSE: Duration = Duration::from_millis(50);

/// One search.
#[derive(Clone, Debug)]
pub struct SearchRequest {
    /// The declaration to search (`None`: every index of the graph).
    pub index: Option<String>,
    pub text: String,
    /// A query vector instead of embedding `text` (dense lane).
    pub vector: Option<Vec<f32>>,
    pub lane: Lane,
    pub k: usize,
    pub min_score: Option<f32>,
    /// Only these records may be hits (a filter's result), when given.
    pub candidates: Option<Arc<HashSet<Arc<str>>>>,
    /// Wait until the index reflects the commit read.
    pub strong: bool,
}

/// A hit with what a reader needs.
#[derive(Clone, Debug)]
pub struct SearchHit {
    pub hit: Hit,
    pub index: String,
    pub label: String,
}

/// What a search did.
#[derive(Clone, Debug)]
pub struct SearchOutcome {
    pub hits: Vec<SearchHit>,
    /// `Nearest`, `FilterFirst` or `FilteredNearest`.
    pub plan: SearchPlan,
    /// The lowest commit reflected by the indexes searched.
    pub index_seq: CommitSeq,
    /// Hits dropped because the record did not exist at the commit read.
    pub dropped_not_at_seq: usize,
    pub candidates: Option<usize>,
    /// Records scored from their text at the commit read, because the index holds
    /// another version of them.
    pub rescored: usize,
    /// False when an index reflects another commit and too much changed in between to
    /// score from the texts at the commit read: scores then use the index's texts.
    pub exact_at_seq: bool,
}

impl SearchPart {
    pub(crate) fn new(
        graph_name: String,
        dir: PathBuf,
        model_dir: PathBuf,
        index_threads: usize,
    ) -> Self {
        Self {
            graph_name,
            dir,
            model_dir,
            index_threads: index_threads.max(1),
            indexes: RwLock::default(),
            signal: Mutex::default(),
            caught_up: Default::default(),
            stopping: AtomicBool::new(false),
            syncing: Mutex::default(),
            nothing_declared: Arc::default(),
        }
    }

    fn search_dir(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    fn embedder(&self) -> Arc<dyn Embedder> {
        embedder_for(&self.model_dir)
    }

    /// Starts the index worker (at open). `tick` brings the indexes up to the head and
    /// answers `false` once the graph is gone. Without declarations a tick only checks
    /// for them.
    pub(crate) fn start_worker(&self, tick: impl Fn() -> bool + Send + 'static) {
        let mut signal = self.signal.lock();
        if signal.is_some() {
            return;
        }
        let (sender, receiver) = mpsc::sync_channel::<()>(1);
        *signal = Some(sender);
        drop(signal);
        let idle = self.nothing_declared.clone();
        let spawned = std::thread::Builder::new()
            .name(format!("strata-search-{}", self.graph_name))
            .spawn(move || {
                loop {
                    let woke = receiver.recv_timeout(Duration::from_secs(2));
                    if matches!(woke, Err(mpsc::RecvTimeoutError::Disconnected)) || !tick() {
                        break;
                    }
                    if idle.load(Ordering::Acquire) {
                        std::thread::sleep(IDLE_PAUSE);
                    }
                }
            });
        if let Err(error) = spawned {
            tracing::warn!(%error, "cannot start the search index worker");
        }
        self.notify();
    }

    /// One tick of the worker: false when it should stop.
    pub(crate) fn work(&self, history: &dyn GraphHistory) -> bool {
        if self.stopping.load(Ordering::Acquire) {
            return false;
        }
        if let Err(error) = self.sync(history) {
            tracing::warn!(graph = %self.graph_name, %error, "search index update failed");
        }
        true
    }

    /// Tells the index worker that commits landed (never blocks).
    pub(crate) fn notify(&self) {
        if let Some(sender) = self.signal.lock().as_ref() {
            let _ = sender.try_send(());
        }
    }

    pub(crate) fn stop(&self) {
        self.stopping.store(true, Ordering::Release);
        self.signal.lock().take();
    }

    /// Brings every index up to the head (the worker's loop body; also callable directly).
    pub(crate) fn sync(&self, history: &dyn GraphHistory) -> Result<(), EngineError> {
        let _one_at_a_time = self.syncing.lock();
        let head = history.head_seq();
        let nothing_declared =
            self.indexes.read().is_empty() && declarations_in(&history.snapshot(head)).is_empty();
        self.nothing_declared
            .store(nothing_declared, Ordering::Release);
        if nothing_declared {
            // Do not even load the model (96 MB).
            return Ok(());
        }
        let embedder = self.embedder();
        self.open_indexes(history, head)?;
        let entries: Vec<Arc<IndexEntry>> = self.indexes.read().values().cloned().collect();
        for entry in entries {
            if let Err(e) = self.sync_index(history, &entry, &*embedder, head) {
                let mut progress = entry.progress.lock();
                progress.state = "error";
                progress.error = Some(e.to_string());
                return Err(e);
            }
        }
        let _guard = self.caught_up.0.lock();
        self.caught_up.1.notify_all();
        Ok(())
    }

    /// Opens the indexes of the declarations at `head` (loading their files, not
    /// re-embedding) and drops the indexes of removed declarations.
    fn open_indexes(&self, history: &dyn GraphHistory, head: CommitSeq) -> Result<(), EngineError> {
        let declarations = declarations_in(&history.snapshot(head));
        let embedder = self.embedder();
        {
            let mut indexes = self.indexes.write();
            let names: HashSet<&str> = declarations.iter().map(|d| d.name.as_str()).collect();
            let gone: Vec<String> = indexes
                .keys()
                .filter(|n| !names.contains(n.as_str()))
                .cloned()
                .collect();
            for name in gone {
                indexes.remove(&name);
                let _ = std::fs::remove_dir_all(self.search_dir(&name));
            }
            for d in &declarations {
                let changed = indexes.get(&d.name).is_none_or(|e| e.declaration != *d);
                if changed {
                    // A declaration changed under the same name: the old index holds its
                    // files (tantivy's writer lock), so it goes before the new one opens them.
                    drop(indexes.remove(&d.name));
                    let key = index_key(&*embedder, d);
                    let dir = self.search_dir(&d.name);
                    let open = || {
                        SearchIndex::open(
                            Some(&dir),
                            &key,
                            embedder.dim(),
                            d.hnsw,
                            self.index_threads,
                        )
                        .map_err(EngineError::from)
                    };
                    let mut index = open()?;
                    if index.published_seq() > head {
                        // Files from a longer history than the log holds (a repaired log):
                        // they describe commits that no longer exist, so start over.
                        drop(index);
                        std::fs::remove_dir_all(&dir).map_err(|e| EngineError::io(&dir, e))?;
                        index = open()?;
                    }
                    indexes.insert(
                        d.name.clone(),
                        Arc::new(IndexEntry {
                            declaration: d.clone(),
                            index: RwLock::new(index),
                            progress: Mutex::new(IndexProgress {
                                state: "building",
                                ..IndexProgress::default()
                            }),
                        }),
                    );
                }
            }
        }
        Ok(())
    }

    fn sync_index(
        &self,
        history: &dyn GraphHistory,
        entry: &IndexEntry,
        embedder: &dyn Embedder,
        head: CommitSeq,
    ) -> Result<(), EngineError> {
        let from = entry.index.read().published_seq();
        if from >= head {
            entry.progress.lock().state = "ready";
            return Ok(());
        }
        let snapshot = history.snapshot(head);
        let recipe = Recipe::new(&snapshot, &entry.declaration);
        let (candidates, full) = if from == 0 {
            (recipe.instances(&snapshot), true)
        } else {
            (
                touched_records(history, &snapshot, &recipe, from, head)?,
                false,
            )
        };
        {
            let mut progress = entry.progress.lock();
            progress.state = if full { "building" } else { "following" };
            progress.done = 0;
            progress.total = candidates.len();
            progress.elapsed_ms = 0;
            progress.error = None;
        }
        let started = std::time::Instant::now();
        let dict = snapshot.dict();
        let vector_pred =
            snapshot.lookup(&Term::NamedNode(vector_predicate(&entry.declaration.name)));
        let mut removes: Vec<Arc<str>> = Vec::new();
        let mut pending: Vec<Pending> = Vec::new();
        {
            let index = entry.index.read();
            for &id in &candidates {
                let Some(Term::NamedNode(node)) = dict.term(id) else {
                    continue;
                };
                let record: Arc<str> = Arc::from(node.as_str());
                if recipe.is_instance(&snapshot, id) {
                    let text = recipe.text(&snapshot, id);
                    let supplied = supplied_vector(&snapshot, id, vector_pred, embedder.dim());
                    // The hash covers what made the vector: the text, or the supplied one.
                    let hash = match &supplied {
                        Some((literal, _)) => {
                            crate::search::text_hash_of(&format!("{text}\u{0}{literal}"))
                        }
                        None => crate::search::text_hash_of(&text),
                    };
                    if index.text_hash(&record) != Some(hash) {
                        pending.push((record, text, supplied.map(|(_, v)| v), hash));
                    }
                } else if index.contains(&record) {
                    removes.push(record);
                }
            }
        }
        if pending.is_empty() {
            entry
                .index
                .write()
                .apply(Vec::new(), &removes, head)
                .map_err(search_error)?;
        }
        let total = pending.len();
        for (n, chunk) in pending.chunks(EMBED_BATCH).enumerate() {
            let to_embed: Vec<&str> = chunk
                .iter()
                .filter(|(_, _, supplied, _)| supplied.is_none())
                .map(|(_, t, _, _)| t.as_str())
                .collect();
            let mut embedded = embed::embed_parallel(embedder, &to_embed, self.index_threads)
                .map_err(EngineError::from)?
                .into_iter();
            let upserts = chunk
                .iter()
                .map(|(record, text, supplied, hash)| crate::search::Upsert {
                    record: record.clone(),
                    text: text.clone(),
                    vector: supplied
                        .clone()
                        .unwrap_or_else(|| embedded.next().unwrap_or_default()),
                    hash: Some(*hash),
                })
                .collect();
            let last = (n + 1) * EMBED_BATCH >= total;
            // Only the last batch marks the index as reflecting the head: a crash midway
            // resumes from where the index really stands.
            let seq = if last { head } else { from };
            let removes_now: &[Arc<str>] = if last { &removes } else { &[] };
            entry
                .index
                .write()
                .apply(upserts, removes_now, seq)
                .map_err(search_error)?;
            {
                let mut progress = entry.progress.lock();
                progress.done = ((n + 1) * EMBED_BATCH).min(total);
                progress.elapsed_ms = started.elapsed().as_millis() as u64;
            }
            if self.stopping.load(Ordering::Acquire) {
                return Ok(());
            }
        }
        if full || entry.index.read().worth_persisting() {
            // A whole build, or many changes since the last dump, is worth keeping: dump
            // the graph so a restart (even after a crash) reloads it.
            entry.index.write().persist().map_err(search_error)?;
        }
        let mut progress = entry.progress.lock();
        if total > 0 {
            tracing::info!(
                index = %entry.declaration.name,
                records = total,
                seconds = started.elapsed().as_secs_f64(),
                records_per_second = progress.records_per_second(),
                "search index caught up"
            );
        }
        progress.state = "ready";
        Ok(())
    }

    /// Dumps every index's HNSW graph (at close), so the next start reloads them.
    pub(crate) fn persist(&self) {
        let _one_at_a_time = self.syncing.lock();
        for entry in self.indexes.read().values() {
            if let Err(error) = entry.index.write().persist() {
                tracing::warn!(graph = %self.graph_name, %error, "could not save a search index; it is rebuilt at the next start");
            }
        }
    }

    /// The state of every index (or of one).
    pub(crate) fn status(&self, head: CommitSeq) -> Vec<IndexStatus> {
        if self.indexes.read().is_empty() {
            return Vec::new();
        }
        let embedder = self.embedder();
        self.indexes
            .read()
            .values()
            .map(|e| {
                let index = e.index.read();
                IndexStatus {
                    declaration: e.declaration.clone(),
                    embedder: embedder.id().to_owned(),
                    semantic: embedder.semantic(),
                    dim: embedder.dim(),
                    records: index.len(),
                    published_seq: index.published_seq(),
                    head_seq: head,
                    progress: e.progress.lock().clone(),
                }
            })
            .collect()
    }

    /// Waits until every index reflects `seq` (or `timeout` passes): `consistency: strong`.
    pub(crate) fn wait_for(&self, snapshot: &Snapshot, timeout: Duration) -> bool {
        let seq = snapshot.seq();
        let deadline = Instant::now() + timeout;
        self.notify();
        let declared: Vec<String> = declarations_in(snapshot)
            .into_iter()
            .map(|d| d.name)
            .collect();
        let mut guard = self.caught_up.0.lock();
        loop {
            let behind = {
                let indexes = self.indexes.read();
                declared.iter().any(|name| !indexes.contains_key(name))
                    || indexes
                        .values()
                        .any(|e| e.index.read().published_seq() < seq)
            };
            if !behind {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            self.caught_up
                .1
                .wait_for(&mut guard, Duration::from_millis(200));
        }
    }

    /// Embeds texts with the graph's embedder.
    pub(crate) fn embed_texts(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EngineError> {
        self.embedder().embed(texts).map_err(EngineError::from)
    }

    /// Re-indexes a declaration from scratch (after a model change, or on request).
    pub(crate) fn refresh(&self, name: &str) -> Result<(), EngineError> {
        let entry =
            self.indexes
                .read()
                .get(name)
                .cloned()
                .ok_or_else(|| EngineError::InvalidArgument {
                    param: "name".into(),
                    message: format!("no search index {name:?}"),
                })?;
        entry.index.write().clear().map_err(search_error)?;
        *entry.progress.lock() = IndexProgress {
            state: "building",
            ..IndexProgress::default()
        };
        self.notify();
        Ok(())
    }

    /// Searches one index or all, per the request's plan.
    pub(crate) fn search(
        &self,
        history: &dyn GraphHistory,
        snapshot: &Snapshot,
        request: &SearchRequest,
    ) -> Result<SearchOutcome, EngineError> {
        let head = history.head_seq();
        let read_seq = snapshot.seq();
        if request.strong && !self.wait_for(snapshot, Duration::from_secs(30)) {
            return Err(EngineError::IndexNotCaughtUp {
                seq: read_seq,
                waited_secs: 30,
            });
        }
        // After a restart the worker may not have opened the indexes yet: open them now
        // (their files, no re-embedding) so the first read already finds them.
        let declared = declarations_in(&history.snapshot(head));
        let missing = {
            let indexes = self.indexes.read();
            declared.iter().any(|d| !indexes.contains_key(&d.name))
        };
        if missing {
            let _one_at_a_time = self.syncing.lock();
            self.open_indexes(history, head)?;
        }
        let entries: Vec<Arc<IndexEntry>> = {
            let indexes = self.indexes.read();
            match &request.index {
                Some(name) => vec![indexes.get(name).cloned().ok_or_else(|| {
                    EngineError::InvalidArgument {
                        param: "class".into(),
                        message: format!(
                            "no search index {name:?}; declared: {}",
                            if indexes.is_empty() {
                                "none (declare one with the embeddings tool)".to_owned()
                            } else {
                                indexes.keys().cloned().collect::<Vec<_>>().join(", ")
                            }
                        ),
                    }
                })?],
                None => indexes.values().cloned().collect(),
            }
        };
        let k = request.k.clamp(1, MAX_K);
        let needs_vector = request.lane != Lane::Sparse;
        let vector = match (&request.vector, needs_vector) {
            (Some(v), _) => Some(v.clone()),
            (None, true) if !request.text.trim().is_empty() => {
                Some(self.embed_texts(&[request.text.as_str()])?.remove(0))
            }
            _ => None,
        };
        let candidates: Option<Vec<Arc<str>>> = request
            .candidates
            .as_ref()
            .map(|c| c.iter().cloned().collect());
        let plan = SearchPlan::choose(
            candidates
                .as_ref()
                .map_or(Candidates::All, |c| Candidates::Listed(c.len())),
        );
        let mut hits: Vec<SearchHit> = Vec::new();
        let mut index_seq = CommitSeq::MAX;
        let mut dropped = 0;
        let mut rescored = 0;
        let mut exact_at_seq = true;
        for entry in &entries {
            let index = entry.index.read();
            index_seq = index_seq.min(index.published_seq());
            let stand_ins = if index.published_seq() == read_seq {
                StandIns::default()
            } else {
                match self.stand_ins(history, snapshot, entry, &index, needs_vector)? {
                    Some(stand_ins) => stand_ins,
                    None => {
                        exact_at_seq = false;
                        StandIns::default()
                    }
                }
            };
            rescored += stand_ins.records.len();
            let found = match (&candidates, plan) {
                (Some(c), SearchPlan::FilterFirst) => index
                    .score_candidates(
                        request.lane,
                        vector.as_deref(),
                        &request.text,
                        c,
                        k,
                        &stand_ins,
                    )
                    .map_err(search_error)?,
                (Some(_), _) => {
                    let set = request.candidates.as_ref().expect("candidates");
                    let allow = |r: &str| set.contains(r);
                    index
                        .search(
                            request.lane,
                            vector.as_deref(),
                            &request.text,
                            k,
                            Some(&allow),
                            &stand_ins,
                        )
                        .map_err(search_error)?
                }
                _ => index
                    .search(
                        request.lane,
                        vector.as_deref(),
                        &request.text,
                        k,
                        None,
                        &stand_ins,
                    )
                    .map_err(search_error)?,
            };
            let recipe = Recipe::new(snapshot, &entry.declaration);
            for hit in found {
                if request.min_score.is_some_and(|m| hit.score < m) {
                    continue;
                }
                let id = snapshot.lookup(&Term::NamedNode(NamedNode::new_unchecked(&*hit.record)));
                let Some(id) = id.filter(|&id| recipe.is_instance(snapshot, id)) else {
                    dropped += 1;
                    continue;
                };
                hits.push(SearchHit {
                    label: recipe.label(snapshot, id),
                    index: entry.declaration.name.clone(),
                    hit,
                });
            }
        }
        hits.sort_by(|a, b| {
            b.hit
                .score
                .partial_cmp(&a.hit.score)
                .unwrap_or(std::cmp::Ordering::Equal)
                .then_with(|| a.hit.record.cmp(&b.hit.record))
        });
        hits.truncate(k);
        Ok(SearchOutcome {
            hits,
            plan,
            index_seq: if index_seq == CommitSeq::MAX {
                head
            } else {
                index_seq
            },
            dropped_not_at_seq: dropped,
            candidates: candidates.map(|c| c.len()),
            rescored,
            exact_at_seq,
        })
    }

    /// The records whose indexed text is not their text at the commit `snapshot` reads,
    /// with that text (`StandIns`); `None` when too much changed between the two commits
    /// to look (`STAND_IN_MAX_QUADS`, `STAND_IN_MAX_RECORDS_*`).
    fn stand_ins(
        &self,
        history: &dyn GraphHistory,
        snapshot: &Snapshot,
        entry: &IndexEntry,
        index: &SearchIndex,
        needs_vector: bool,
    ) -> Result<Option<StandIns>, EngineError> {
        let (read_seq, indexed_seq) = (snapshot.seq(), index.published_seq());
        let (from, to) = (read_seq.min(indexed_seq), read_seq.max(indexed_seq));
        let max_records = if read_seq < indexed_seq {
            STAND_IN_MAX_RECORDS_PINNED
        } else {
            STAND_IN_MAX_RECORDS_AHEAD
        };
        let mut quads: u64 = 0;
        for seq in from + 1..=to {
            quads = quads.saturating_add(history.commit_size(seq));
            if quads > STAND_IN_MAX_QUADS {
                return Ok(None);
            }
        }
        // The later snapshot knows every term either commit uses (the dictionary only
        // grows), so records created in between are found too.
        let later = if read_seq < indexed_seq {
            history.snapshot(indexed_seq)
        } else {
            snapshot.clone()
        };
        let touched = touched_records(
            history,
            &later,
            &Recipe::new(&later, &entry.declaration),
            from,
            to,
        )?;
        let recipe = Recipe::new(snapshot, &entry.declaration);
        let vector_pred =
            snapshot.lookup(&Term::NamedNode(vector_predicate(&entry.declaration.name)));
        let dim = self.embedder().dim();
        let mut stand_ins = StandIns::default();
        let mut to_embed: Vec<usize> = Vec::new();
        for id in touched {
            let Some(Term::NamedNode(node)) = later.term(id) else {
                continue;
            };
            let record: Arc<str> = Arc::from(node.as_str());
            if snapshot.lookup(&Term::NamedNode(node)).is_none()
                || !recipe.is_instance(snapshot, id)
            {
                if index.contains(&record) {
                    stand_ins.excluded.insert(record);
                }
                continue;
            }
            let text = recipe.text(snapshot, id);
            let supplied = supplied_vector(snapshot, id, vector_pred, dim);
            let hash = match &supplied {
                Some((literal, _)) => crate::search::text_hash_of(&format!("{text}\u{0}{literal}")),
                None => crate::search::text_hash_of(&text),
            };
            if index.text_hash(&record) == Some(hash) {
                continue;
            }
            if stand_ins.records.len() == max_records {
                return Ok(None);
            }
            if supplied.is_none() && needs_vector {
                to_embed.push(stand_ins.records.len());
            }
            stand_ins.excluded.insert(record.clone());
            stand_ins.records.push(StandIn {
                record,
                text,
                vector: supplied.map(|(_, v)| v),
            });
        }
        if !to_embed.is_empty() {
            let texts: Vec<&str> = to_embed
                .iter()
                .map(|&i| stand_ins.records[i].text.as_str())
                .collect();
            let vectors = embed::embed_parallel(&*self.embedder(), &texts, self.index_threads)
                .map_err(EngineError::from)?;
            for (i, vector) in to_embed.into_iter().zip(vectors) {
                stand_ins.records[i].vector = Some(vector);
            }
        }
        Ok(Some(stand_ins))
    }
}

/// Records whose text may have changed between two commits: subjects and objects of
/// the changed quads, and records linking to them through a recipe property.
fn touched_records(
    history: &dyn GraphHistory,
    snapshot: &Snapshot,
    recipe: &Recipe,
    from: CommitSeq,
    head: CommitSeq,
) -> Result<Vec<TermId>, EngineError> {
    let mut nodes: HashSet<TermId> = HashSet::new();
    for seq in from + 1..=head {
        let changes = history.commit_changes(seq)?;
        for quad in changes.added.iter().chain(&changes.removed) {
            if let Some(id) = snapshot.lookup(&Term::from(quad.subject.clone())) {
                nodes.insert(id);
            }
            if matches!(quad.object, Term::NamedNode(_))
                && let Some(id) = snapshot.lookup(&quad.object)
            {
                nodes.insert(id);
            }
        }
    }
    let mut out: HashSet<TermId> = nodes.clone();
    for p in recipe.properties() {
        for &node in &nodes {
            out.extend(
                snapshot
                    .quads(Pattern {
                        subject: None,
                        predicate: Some(p),
                        object: Some(node),
                        graph: GraphFilter::All,
                    })
                    .map(|k| k[0]),
            );
        }
    }
    let mut out: Vec<TermId> = out.into_iter().collect();
    out.sort_unstable();
    Ok(out)
}

/// The text a declaration makes for some of its records (no model call).
pub fn preview_texts(
    snapshot: &Snapshot,
    declaration: &Declaration,
    limit: usize,
) -> Vec<(String, String)> {
    let recipe = Recipe::new(snapshot, declaration);
    recipe
        .instances(snapshot)
        .into_iter()
        .take(limit)
        .filter_map(|id| {
            let iri = snapshot.term(id)?.to_string();
            Some((
                iri.trim_matches(['<', '>']).to_owned(),
                recipe.text(snapshot, id),
            ))
        })
        .collect()
}

/// What identifies an index's content: the embedder and the declaration. A change of
/// either makes the index start over.
fn index_key(embedder: &dyn Embedder, declaration: &Declaration) -> String {
    let recipe: Vec<&str> = declaration.from.iter().map(NamedNode::as_str).collect();
    let exclude: Vec<&str> = declaration.exclude.iter().map(NamedNode::as_str).collect();
    let fingerprint = crate::search::text_hash_of(&format!(
        "{}|{}|{}",
        declaration.class.as_str(),
        recipe.join(" "),
        exclude.join(" ")
    ));
    format!("{}#{fingerprint:016x}", embedder.id())
}

fn search_error(e: crate::search::IndexError) -> EngineError {
    EngineError::SearchIndex(e)
}

/// The search declarations a snapshot holds (graph `strata:embeddings`).
pub fn declarations_in(snapshot: &Snapshot) -> Vec<Declaration> {
    Declaration::read_all(&snapshot.graph_triples(&NamedNode::new_unchecked(EMBEDDINGS_GRAPH)))
}
