//! The façade every surface (CLI, HTTP, MCP) uses: open a data directory, find a graph,
//! read it at a commit, write commits.
//!
//! The engine owns the write path's one ordering rule (append and fsync to the log, then
//! publish to readers) and knows where every graph lives on disk.

mod backup;
mod error;
mod forwarded;
mod graph;
mod import;
mod leader;
mod parallel_parse;
mod parallel_turtle;
mod pipeline;
mod read;
mod reader;
mod repair;
mod replay;
mod replica;
mod search;
mod validation;
mod write;

pub use backup::BackupReport;
pub use error::EngineError;
pub use forwarded::{
    ForwardedOp, digest_from_hex, digest_to_hex, parse_nquads, register_forwarded_op, to_nquads,
};
pub use graph::{CommitInfo, Graph, OpenStats};
pub use import::{
    Compression, GraphWrite, ImportFormat, ImportOptions, ParsedDocument, gunzip, parse_triples,
    read_ahead, unzstd,
};
pub use leader::LeaderStatus;
pub use pipeline::PipelineStatus;
pub use read::{ChangedQuads, QueryAnswer, ReadAt, ReadOptions};
pub use reader::GraphReader;
pub use repair::{CheckpointCheck, GraphCheck, RepairPlan};
pub use search::{
    EXACT_MAX_CANDIDATES, IndexProgress, IndexStatus, MAX_K, SearchHit, SearchOutcome,
    SearchRequest, VECTORS_GRAPH, declarations_in, embedder_for, vector_predicate, vector_quad,
};
pub use validation::{ActiveShapes, CommitValidation, Conformance, ShapesPreview};
pub use write::{
    AUTOMATIC_KEY_PREFIX, CONTROL_GRAPHS, CommitOutcome, CommitRequest, UpdatePreview,
};

use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;

use crate::model::GraphName;

/// Settings of an engine.
#[derive(Clone, Debug)]
pub struct EngineConfig {
    /// Queries running longer are cancelled. `None` disables the limit.
    pub query_timeout: Option<Duration>,
    /// Flush recent commits to a store file once this many quads changed since the last
    /// flush (the memory they take until then is bounded by it).
    pub flush_every_quads: u64,
    /// An import past this many quads sorts them in runs on disk and is committed as a
    /// store file of its own (`Graph::commit_bulk`): memory holds one run at a time.
    pub bulk_run_quads: usize,
    /// While an import is parsed, new terms past this many in memory go to a new
    /// dictionary part.
    pub bulk_dict_terms: usize,
    /// Where the default embedding model's files are (see `scripts/fetch-model.sh`).
    pub model_dir: PathBuf,
    /// Memory per query and the heavy-query slots (see `sparql::QueryLimits`).
    pub query_limits: crate::sparql::QueryLimits,
    /// Open without the data directory's lock, beside a process that may be writing it:
    /// graphs are read at the newest commit whose record is whole when they open, nothing
    /// is written (no flush, no cut, no search indexing) and writes are refused.
    pub read_only: bool,
    /// Threads a search index may use to insert vectors (at least 1; default: every core).
    pub index_threads: usize,
    /// A cluster whose shared logs order every graph's commits (`None`: the local log
    /// file is the log). See `engine/replica.rs`.
    pub cluster: Option<crate::log::ClusterHandle>,
    /// Set (by the CLI on Ctrl-C or SIGTERM) to stop an import: a big import's commit
    /// (`Graph::commit_bulk`) checks it between its steps and before its log append, and
    /// gives up with `EngineError::Interrupted`, leaving nothing behind.
    pub interrupt: Arc<std::sync::atomic::AtomicBool>,
}

impl Default for EngineConfig {
    fn default() -> Self {
        Self {
            query_timeout: Some(Duration::from_secs(60)),
            flush_every_quads: 50_000,
            bulk_run_quads: crate::store::RUN_RECORDS,
            bulk_dict_terms: 2 << 20,
            model_dir: crate::search::embed::default_model_dir(),
            query_limits: crate::sparql::QueryLimits::default(),
            read_only: false,
            index_threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            cluster: None,
            interrupt: Arc::default(),
        }
    }
}

/// An open data directory: a set of graphs, each with its own log and store.
///
/// ```
/// use strata::engine::{CommitRequest, ReadAt, ReadOptions};
/// use strata::sparql::{QueryResults, UpdateOptions};
/// use strata::{Engine, EngineConfig};
///
/// let dir = tempfile::tempdir()?;
/// let engine = Engine::open(dir.path(), EngineConfig::default())?;
/// let graph = engine.graph_or_create("main")?;
/// let update = "INSERT DATA { <http://e/a> <http://e/b> 1 }";
/// let outcome = graph.update(update, None, &UpdateOptions::default(), &CommitRequest::default())?;
/// assert_eq!(outcome.commit_seq, Some(1));
/// graph.update("DELETE WHERE { ?s ?p ?o }", None, &UpdateOptions::default(), &CommitRequest::default())?;
///
/// // The head no longer has the quad; a read pinned to commit 1 still does.
/// let pinned = graph.reader(ReadAt::commit(1))?;
/// let answer = pinned.query("ASK { <http://e/a> ?p ?o }", &ReadOptions::default())?;
/// assert_eq!(answer.served_at_seq, 1);
/// assert!(matches!(answer.results, QueryResults::Boolean(true)));
/// let answer = graph.read().query("ASK { <http://e/a> ?p ?o }", &ReadOptions::default())?;
/// assert_eq!(answer.served_at_seq, 2);
/// assert!(matches!(answer.results, QueryResults::Boolean(false)));
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
pub struct Engine {
    data_dir: PathBuf,
    config: EngineConfig,
    graphs: Mutex<BTreeMap<GraphName, Arc<Graph>>>,
    /// Memory budgets and heavy slots of every query on this engine.
    governor: Arc<crate::sparql::Governor>,
    /// Held for the engine's life so two processes never write the same logs.
    lock: Mutex<Option<File>>,
}

impl Engine {
    /// Opens a data directory. Nothing is created until the first write; graphs are
    /// opened (and their logs checked) when first used.
    pub fn open(data_dir: impl AsRef<Path>, config: EngineConfig) -> Result<Self, EngineError> {
        let engine = Self {
            data_dir: data_dir.as_ref().to_owned(),
            governor: crate::sparql::Governor::new(config.query_limits.clone()),
            config,
            graphs: Mutex::new(BTreeMap::new()),
            lock: Mutex::new(None),
        };
        if engine.data_dir.exists() && !engine.config.read_only {
            engine.acquire_lock()?;
        }
        Ok(engine)
    }

    /// The cluster this engine's graphs agree their commits through, if any.
    pub fn cluster(&self) -> Option<&Arc<dyn crate::log::Cluster>> {
        self.config.cluster.as_ref().map(|c| &c.0)
    }

    /// The data directory.
    pub fn data_dir(&self) -> &Path {
        &self.data_dir
    }

    /// The engine's settings.
    pub fn config(&self) -> &EngineConfig {
        &self.config
    }

    /// Memory budgets and heavy slots of queries (for metrics).
    pub fn governor(&self) -> &Arc<crate::sparql::Governor> {
        &self.governor
    }

    /// Names of the graphs that exist on disk (and, in a cluster, in the cluster), sorted.
    pub fn graph_names(&self) -> Vec<GraphName> {
        let mut names: Vec<GraphName> = std::fs::read_dir(self.graphs_dir())
            .into_iter()
            .flatten()
            .flatten()
            .filter(|entry| entry.path().join(graph::LOG_FILE).exists())
            .filter_map(|entry| GraphName::new(entry.file_name().to_str()?).ok())
            .collect();
        if let Some(cluster) = &self.config.cluster {
            match cluster.0.graph_names() {
                Ok(shared) => names.extend(shared.iter().filter_map(|n| GraphName::new(n).ok())),
                Err(error) => tracing::warn!(%error, "cannot list the cluster's graphs"),
            }
        }
        names.sort();
        names.dedup();
        names
    }

    /// Opens a graph's directory (creating it when `create`), attached to its shared log
    /// in a cluster, and starts its threads.
    fn open_graph(&self, name: &GraphName, create: bool) -> Result<Arc<Graph>, EngineError> {
        let shared = match &self.config.cluster {
            Some(cluster) => cluster.0.graph_log(name.as_str(), create)?,
            None => None,
        };
        if create || shared.is_some() {
            self.create_data_dir()?;
        }
        let dir = self.graphs_dir().join(name.as_str());
        // A node new to a graph starts from the newest store files another node published
        // (then replays only the stream after them), else from the stream alone.
        if let Some(shared) = &shared
            && !self.config.read_only
            && !dir.join(graph::LOG_FILE).exists()
        {
            let started = std::time::Instant::now();
            match replica::bootstrap(&dir, shared.as_ref()) {
                Ok(Some(seq)) => tracing::info!(
                    graph = %name,
                    commit = seq,
                    seconds = started.elapsed().as_secs_f64(),
                    "started from published store files"
                ),
                Ok(None) => {}
                Err(error) => {
                    tracing::warn!(graph = %name, %error, "cannot start from published store files; replaying the shared log")
                }
            }
        }
        let create = create || shared.is_some();
        let graph = Arc::new(Graph::open(
            name.clone(),
            dir,
            &self.config,
            &self.governor,
            create,
            shared,
        )?);
        if !self.config.read_only {
            if let Err(error) = graph.catch_up() {
                // A node cut off from the cluster still serves what it has applied.
                tracing::warn!(graph = %name, %error, "cannot catch up with the shared log");
            }
            Graph::start_maintenance(&graph);
            Graph::start_search_worker(&graph);
            Graph::start_follower(&graph);
            Graph::start_lease(&graph);
        }
        Ok(graph)
    }

    /// Whether a graph exists in the cluster (always false embedded).
    fn in_cluster(&self, name: &GraphName) -> Result<bool, EngineError> {
        match &self.config.cluster {
            Some(cluster) => Ok(cluster.0.graph_log(name.as_str(), false)?.is_some()),
            None => Ok(false),
        }
    }

    /// An existing graph; the error names the graphs that exist.
    pub fn graph(&self, name: &str) -> Result<Arc<Graph>, EngineError> {
        let name = GraphName::new(name)?;
        let mut graphs = self.graphs.lock();
        if let Some(graph) = graphs.get(&name) {
            return Ok(graph.clone());
        }
        let dir = self.graphs_dir().join(name.as_str());
        if !dir.join(graph::LOG_FILE).exists() && !self.in_cluster(&name)? {
            return Err(EngineError::GraphNotFound {
                name: name.to_string(),
                existing: self.graph_names().iter().map(ToString::to_string).collect(),
            });
        }
        let graph = self.open_graph(&name, false)?;
        graphs.insert(name, graph.clone());
        Ok(graph)
    }

    /// A graph, created (with its directory and empty log) when it does not exist.
    pub fn graph_or_create(&self, name: &str) -> Result<Arc<Graph>, EngineError> {
        let name = GraphName::new(name)?;
        let mut graphs = self.graphs.lock();
        if let Some(graph) = graphs.get(&name) {
            return Ok(graph.clone());
        }
        if self.config.read_only {
            drop(graphs);
            return self.graph(name.as_str());
        }
        let graph = self.open_graph(&name, true)?;
        graphs.insert(name, graph.clone());
        Ok(graph)
    }

    /// The graph a write goes to: an existing one or, when `may_create` (the caller holds
    /// the admin scope), a new one. Without `may_create` a missing graph is refused with
    /// `GraphCreationRefused`, so a write never creates a graph behind an admin's back.
    pub fn graph_to_write(&self, name: &str, may_create: bool) -> Result<Arc<Graph>, EngineError> {
        if may_create {
            return self.graph_or_create(name);
        }
        self.graph(name).map_err(|error| match error {
            EngineError::GraphNotFound { name, .. } => EngineError::GraphCreationRefused { name },
            other => other,
        })
    }

    /// Creates a new, empty graph; an error if it exists.
    pub fn create_graph(&self, name: &str) -> Result<Arc<Graph>, EngineError> {
        self.refuse_if_read_only("creating a graph")?;
        let graph_name = GraphName::new(name)?;
        if self.graph_names().contains(&graph_name) {
            return Err(EngineError::GraphExists {
                name: graph_name.to_string(),
            });
        }
        self.graph_or_create(name)
    }

    /// Deletes a graph with its whole history. Readers holding a snapshot keep it; the
    /// files are gone at once.
    pub fn delete_graph(&self, name: &str) -> Result<(), EngineError> {
        self.refuse_if_read_only("deleting a graph")?;
        if self.config.cluster.is_some() {
            // Its stream holds its history on every node: deleting one node's copy would
            // only make this node replay it again.
            return Err(EngineError::NotInCluster {
                action: "deleting a graph".into(),
            });
        }
        let graph_name = GraphName::new(name)?;
        let mut graphs = self.graphs.lock();
        let dir = self.graphs_dir().join(graph_name.as_str());
        if !dir.join(graph::LOG_FILE).exists() {
            return Err(EngineError::GraphNotFound {
                name: graph_name.to_string(),
                existing: self.graph_names().iter().map(ToString::to_string).collect(),
            });
        }
        if let Some(graph) = graphs.remove(&graph_name) {
            // Later writes through handles still held elsewhere must fail, not resurrect
            // a log in a deleted directory.
            graph
                .poisoned
                .store(true, std::sync::atomic::Ordering::Release);
        }
        // Rename first so a crash in the middle never leaves a half-deleted graph that
        // looks valid.
        let trash = self
            .data_dir
            .join(format!("deleted-{}-{}", graph_name, std::process::id()));
        std::fs::rename(&dir, &trash).map_err(|e| EngineError::io(&dir, e))?;
        std::fs::remove_dir_all(&trash).map_err(|e| EngineError::io(&trash, e))?;
        Ok(())
    }

    /// Undoes the creation of a graph by a write that then failed: deletes graph `name`
    /// if it still has no commit and nothing but the engine holds it (a concurrent writer
    /// that got it keeps it). Returns whether it was deleted. Not in a cluster, where
    /// the graph's stream is shared.
    pub fn discard_if_unused_and_empty(&self, name: &str) -> bool {
        let Ok(graph_name) = GraphName::new(name) else {
            return false;
        };
        if self.config.cluster.is_some() || self.config.read_only {
            return false;
        }
        // The failed write's own handle may still be on its way out (dropped on the
        // blocking thread that ran it, a moment after its answer): wait a little for it.
        let mut attempts = 0;
        let mut graphs = loop {
            let graphs = self.graphs.lock();
            let Some(graph) = graphs.get(&graph_name) else {
                return false;
            };
            if graph.head_seq() != 0 {
                return false;
            }
            if Arc::strong_count(graph) == 1 {
                break graphs;
            }
            attempts += 1;
            if attempts > 20 {
                return false;
            }
            drop(graphs);
            std::thread::sleep(std::time::Duration::from_millis(5));
        };
        if let Some(graph) = graphs.remove(&graph_name) {
            graph
                .poisoned
                .store(true, std::sync::atomic::Ordering::Release);
        }
        let dir = self.graphs_dir().join(graph_name.as_str());
        let trash = self
            .data_dir
            .join(format!("deleted-{}-{}", graph_name, std::process::id()));
        std::fs::rename(&dir, &trash).is_ok() && std::fs::remove_dir_all(&trash).is_ok()
    }

    /// The graphs opened so far (for metrics).
    pub fn open_graphs(&self) -> Vec<Arc<Graph>> {
        self.graphs.lock().values().cloned().collect()
    }

    /// Re-hashes a graph's whole log and compares its checkpoint with it, without opening
    /// the graph, so damage is reported rather than cut.
    pub fn verify_graph(&self, name: &str) -> Result<GraphCheck, EngineError> {
        repair::check(&self.existing_graph_dir(name)?)
    }

    /// Plans (and with `apply`, carries out) the repair of a damaged graph: the log is cut
    /// after its last verified commit and everything removed is kept in a `repair-<time>`
    /// folder of the graph. Refused for a graph this engine has open.
    pub fn repair_graph(&self, name: &str, apply: bool) -> Result<RepairPlan, EngineError> {
        self.refuse_if_read_only("repair")?;
        let dir = self.existing_graph_dir(name)?;
        if self.graphs.lock().contains_key(&GraphName::new(name)?) {
            return Err(EngineError::InvalidArgument {
                param: "graph".into(),
                message: format!("graph {name:?} is open; repair it with no server running"),
            });
        }
        repair::repair(&dir, apply)
    }

    /// Copies a graph at a commit (default: its newest) into the data directory `to`, as
    /// a graph of the same name, while writers may go on (see `backup.rs`). The MCP
    /// cursor key is copied too, so cursors stay valid on the copy.
    pub fn backup_graph(
        &self,
        name: &str,
        to: &Path,
        as_of: Option<crate::model::CommitSeq>,
    ) -> Result<BackupReport, EngineError> {
        let from = self.existing_graph_dir(name)?;
        let target = to.join("graphs").join(GraphName::new(name)?.as_str());
        let report = backup::backup_graph(&from, &target, as_of)?;
        let key = self.data_dir.join("cursor.key");
        if key.exists() && !to.join("cursor.key").exists() {
            std::fs::copy(&key, to.join("cursor.key")).map_err(|e| EngineError::io(&key, e))?;
        }
        Ok(report)
    }

    /// The directory of a graph that exists on disk (whether or not it opens).
    fn existing_graph_dir(&self, name: &str) -> Result<PathBuf, EngineError> {
        let name = GraphName::new(name)?;
        let dir = self.graphs_dir().join(name.as_str());
        if !dir.join(graph::LOG_FILE).exists() {
            return Err(EngineError::GraphNotFound {
                name: name.to_string(),
                existing: self.graph_names().iter().map(ToString::to_string).collect(),
            });
        }
        Ok(dir)
    }

    /// Flushes every open graph's recent commits to files, so the next start replays
    /// nothing.
    pub fn close(&self) -> Result<(), EngineError> {
        if self.config.read_only {
            return Ok(());
        }
        let graphs: Vec<Arc<Graph>> = self.graphs.lock().values().cloned().collect();
        for graph in graphs {
            graph.search.stop();
            graph.search.persist();
            graph.flush_when_idle(1)?;
        }
        Ok(())
    }

    /// True when opened with `EngineConfig::read_only`.
    pub fn is_read_only(&self) -> bool {
        self.config.read_only
    }

    fn refuse_if_read_only(&self, action: &str) -> Result<(), EngineError> {
        if self.config.read_only {
            return Err(EngineError::ReadOnly {
                action: action.to_owned(),
            });
        }
        Ok(())
    }

    fn graphs_dir(&self) -> PathBuf {
        self.data_dir.join("graphs")
    }

    fn create_data_dir(&self) -> Result<(), EngineError> {
        if self.lock.lock().is_some() {
            return Ok(());
        }
        std::fs::create_dir_all(self.graphs_dir())
            .map_err(|e| EngineError::io(&self.data_dir, e))?;
        self.acquire_lock()
    }

    fn acquire_lock(&self) -> Result<(), EngineError> {
        let path = self.data_dir.join("LOCK");
        let file = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| EngineError::io(&path, e))?;
        match file.try_lock() {
            Ok(()) => {
                *self.lock.lock() = Some(file);
                Ok(())
            }
            Err(std::fs::TryLockError::WouldBlock) => Err(EngineError::DataDirLocked {
                path: self.data_dir.display().to_string(),
            }),
            Err(std::fs::TryLockError::Error(e)) => Err(EngineError::io(&path, e)),
        }
    }
}

#[cfg(test)]
mod batched_tests;
#[cfg(test)]
mod bulk_tests;
#[cfg(test)]
mod control_tests;
#[cfg(test)]
mod recovery_tests;
#[cfg(test)]
mod search_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod validation_tests;
