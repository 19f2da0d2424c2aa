//! The write path, in one place: compute changes under the writer lock, append the record,
//! apply it to the store, then make it durable (group commit) and publish it to readers.
//! A clustered graph's small commits take `pipeline.rs` from the same entry point.
//!
//! Invariant I2: a commit is published (visible to readers, acknowledged to the caller)
//! only after an fsync that covers it. Invariant I5: changes are computed in a
//! `Transaction` first, so a failing request changes nothing.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use rustc_hash::FxHashSet;
use sha2::{Digest, Sha256};
use time::OffsetDateTime;

use std::sync::Arc;

use super::error::EngineError;
use super::graph::{Graph, WriterState};
use super::validation::{CommitValidation, shapes_graph_name, shapes_graph_quads};
use crate::log::Appended;
use crate::log::{CommitHeader, EncodedRecord, LogEntry, QuadsEncoder, QuadsSection};
use crate::model::Triple;
use crate::model::{CommitHash, CommitSeq, NamedNode, Quad, Term};
use crate::scratch::ExternalSort;
use crate::search::{Declaration, EMBEDDINGS_GRAPH};
use crate::shacl::SHAPES_GRAPH;
use crate::shacl::{Shapes, ValidationMode};
use crate::sparql::{self, UpdateOptions};
use crate::store::{BulkKeysWriter, PreparedInserts, QuadKey, Snapshot, TermId, Transaction};
use crate::store::{GraphFilter, Pattern};

/// Commits inserting at least this many quads build their indexes in parallel with the
/// log encoding; below it a thread costs more than it saves.
const PARALLEL_BUILD_MIN_QUADS: usize = 20_000;
/// Keys a big commit hands its record's encoder at a time.
const BATCH_KEYS: usize = 1 << 13;
/// How often a big commit drops the resident pages of the store's mapped files it reads
/// at random (`Store::release_pages`): every million keys, in batches or one by one.
const RELEASE_KEYS: usize = 1 << 20;
const RELEASE_BATCHES: usize = RELEASE_KEYS / BATCH_KEYS;
/// Times a clustered write builds again after another node appended first, before it
/// gives up with `WriteConflict`.
/// In a cluster, how long this node's own copy of the log may go without an fsync while
/// it applies commits (the shared log holds them durably; see `Graph::sync_through`).
const CLUSTER_LOCAL_SYNC_EVERY: Duration = Duration::from_millis(200);

pub(crate) const MAX_CONFLICTS: usize = 32;
/// After this many lost races in a row a write asks the other nodes for a turn.
pub(crate) const TURN_AFTER_CONFLICTS: usize = 2;

/// Strata's control graphs: the named graphs whose content decides how later writes are
/// judged or indexed — the SHACL shapes with their validation mode (`strata:shapes`) and
/// the search index declarations (`strata:embeddings`). Only an `admin` request may
/// change them. The vectors graph (`strata:vectors`) is not one: it holds data that
/// writers supply (MCP `commit` → `entity_embeddings`).
pub const CONTROL_GRAPHS: [&str; 2] = [SHAPES_GRAPH, EMBEDDINGS_GRAPH];

/// Idempotency keys with this start are made by the server from a request's content
/// (the MCP `commit` tool without a key): one is replayed only while its commit is the
/// graph's newest.
pub const AUTOMATIC_KEY_PREFIX: &str = "auto-";

/// Who writes, why, and how to recognize a retry.
#[derive(Clone, Debug, Default)]
pub struct CommitRequest {
    pub author: Option<String>,
    pub message: Option<String>,
    /// When the facts were observed in the world (as opposed to when they were committed).
    pub observed_at: Option<OffsetDateTime>,
    /// A retry with the same key and the same content returns the first commit.
    pub idempotency_key: Option<String>,
    /// The caller holds the admin scope (or owns the data directory, as the CLI does), so
    /// the commit may change the control graphs (`CONTROL_GRAPHS`). Off by default: a
    /// surface that forgets to say gets the safe answer, a refusal.
    pub admin: bool,
    /// Set only by a leader running a write another node forwarded (its forward id): the
    /// commit's stream message names it, so that node can answer as soon as it applies
    /// the commit. Leave it `None`.
    pub forward_id: Option<String>,
}

impl CommitRequest {
    /// A request that may change the control graphs and nothing more: for the data
    /// directory's owner (the CLI) and for tests.
    pub fn by_admin() -> Self {
        Self {
            admin: true,
            ..Self::default()
        }
    }

    /// Refuses a write that names a control graph as its target (a Graph Store target,
    /// an import's `into_graph`) without `admin`, even one that would change nothing, so
    /// the answer never depends on what the graph holds. `commit_with` checks the
    /// changes themselves either way.
    pub fn check_target(&self, graph: Option<&NamedNode>) -> Result<(), EngineError> {
        match graph {
            Some(graph) if !self.admin && CONTROL_GRAPHS.contains(&graph.as_str()) => {
                Err(EngineError::ControlGraphRefused {
                    graph: graph.as_str().to_owned(),
                })
            }
            _ => Ok(()),
        }
    }
}

/// The result of a write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommitOutcome {
    /// The new commit, or `None` when the request changed nothing (no commit is made).
    pub commit_seq: Option<CommitSeq>,
    /// The head after the write.
    pub head_seq: CommitSeq,
    pub hash: Option<CommitHash>,
    pub inserted: u64,
    pub deleted: u64,
    /// True when an earlier commit with the same idempotency key was returned.
    pub idempotent_replay: bool,
    /// What SHACL validation found (`None` when the graph enforces no shapes).
    pub validation: Option<Arc<CommitValidation>>,
}

impl CommitOutcome {
    /// A request that changed nothing: no commit, the head as it was.
    pub(crate) fn unchanged(head: CommitSeq) -> Self {
        Self {
            commit_seq: None,
            head_seq: head,
            hash: None,
            inserted: 0,
            deleted: 0,
            idempotent_replay: false,
            validation: None,
        }
    }
}

impl Graph {
    /// The options with this engine's governor, so WHERE clauses get the query memory
    /// limit.
    fn governed(&self, options: &UpdateOptions) -> UpdateOptions {
        UpdateOptions {
            governor: options
                .governor
                .clone()
                .or_else(|| Some(self.governor.clone())),
            ..options.clone()
        }
    }

    /// Runs a SPARQL 1.1 Update as one commit.
    pub fn update(
        &self,
        update_text: &str,
        base_iri: Option<&str>,
        options: &UpdateOptions,
        request: &CommitRequest,
    ) -> Result<CommitOutcome, EngineError> {
        // A syntax error is answered here; a valid update goes to the graph's write leader
        // when another node leads (`leader.rs`).
        let update = sparql::parse_update(update_text, base_iri)?;
        if let Some(outcome) = self.forward_update(update_text, base_iri, options, request, None)? {
            return Ok(outcome);
        }
        self.run_update(&update, update_text, base_iri, options, request)
    }

    /// Runs a SPARQL 1.1 Update as one commit on this node (never forwarded).
    pub(crate) fn update_here(
        &self,
        update_text: &str,
        base_iri: Option<&str>,
        options: &UpdateOptions,
        request: &CommitRequest,
    ) -> Result<CommitOutcome, EngineError> {
        let update = sparql::parse_update(update_text, base_iri)?;
        self.run_update(&update, update_text, base_iri, options, request)
    }

    fn run_update(
        &self,
        update: &sparql::Update,
        update_text: &str,
        base_iri: Option<&str>,
        options: &UpdateOptions,
        request: &CommitRequest,
    ) -> Result<CommitOutcome, EngineError> {
        let options = &self.governed(options);
        let deadline = self.update_deadline(options);
        let digest = update_digest(update_text, base_iri);
        let outcome = self.commit_with(request, digest, |txn| {
            sparql::apply_update(txn, update, options).map_err(EngineError::from)
        });
        self.explain_update_stop(outcome, deadline.as_ref())
    }

    /// An update's WHERE clauses get the query time limit: they run under the writer
    /// lock, so an endless one would stall every writer of the graph.
    fn update_deadline(&self, options: &UpdateOptions) -> Option<sparql::Deadline> {
        self.query_timeout
            .map(|limit| sparql::Deadline::start(options.cancellation.clone(), limit))
    }

    /// Reports a cancellation caused by the update's deadline as the time limit.
    fn explain_update_stop<T>(
        &self,
        outcome: Result<T, EngineError>,
        deadline: Option<&sparql::Deadline>,
    ) -> Result<T, EngineError> {
        match outcome {
            Err(EngineError::Query(sparql::QueryError::Cancelled))
                if deadline.is_some_and(sparql::Deadline::fired) =>
            {
                Err(EngineError::Query(sparql::QueryError::Timeout(
                    self.query_timeout.unwrap_or_default(),
                )))
            }
            other => other,
        }
    }

    /// Computes what an update would change, without committing (for approval prompts).
    pub fn preview_update(
        &self,
        update_text: &str,
        base_iri: Option<&str>,
        options: &UpdateOptions,
    ) -> Result<UpdatePreview, EngineError> {
        let update = sparql::parse_update(update_text, base_iri)?;
        let options = &self.governed(options);
        let deadline = self.update_deadline(options);
        let mut txn = self.store.begin();
        self.explain_update_stop(
            sparql::apply_update(&mut txn, &update, options).map_err(EngineError::from),
            deadline.as_ref(),
        )?;
        let base_seq = txn.base_seq();
        let control_graphs = control_graphs_changed(&txn);
        let (inserts, deletes) = txn.into_changes();
        Ok(UpdatePreview {
            base_seq,
            inserts,
            deletes,
            control_graphs,
        })
    }

    /// Runs an update as one commit, but only if every quad it deletes is in
    /// `allowed_deletes` (what a person approved): data that changed since the approval
    /// makes the call fail instead of deleting more than was approved.
    pub fn update_within(
        &self,
        update_text: &str,
        base_iri: Option<&str>,
        options: &UpdateOptions,
        request: &CommitRequest,
        allowed_deletes: &FxHashSet<QuadKey>,
    ) -> Result<CommitOutcome, EngineError> {
        let update = sparql::parse_update(update_text, base_iri)?;
        let forwarded = self.forward_update(
            update_text,
            base_iri,
            options,
            request,
            Some(allowed_deletes),
        )?;
        if let Some(outcome) = forwarded {
            return Ok(outcome);
        }
        self.run_update_within(
            &update,
            update_text,
            base_iri,
            options,
            request,
            allowed_deletes,
        )
    }

    /// `update_within` on this node (never forwarded).
    pub(crate) fn update_within_here(
        &self,
        update_text: &str,
        base_iri: Option<&str>,
        options: &UpdateOptions,
        request: &CommitRequest,
        allowed_deletes: &FxHashSet<QuadKey>,
    ) -> Result<CommitOutcome, EngineError> {
        let update = sparql::parse_update(update_text, base_iri)?;
        self.run_update_within(
            &update,
            update_text,
            base_iri,
            options,
            request,
            allowed_deletes,
        )
    }

    fn run_update_within(
        &self,
        update: &sparql::Update,
        update_text: &str,
        base_iri: Option<&str>,
        options: &UpdateOptions,
        request: &CommitRequest,
        allowed_deletes: &FxHashSet<QuadKey>,
    ) -> Result<CommitOutcome, EngineError> {
        let options = &self.governed(options);
        let digest = update_digest(update_text, base_iri);
        self.commit_with(request, digest, |txn| {
            sparql::apply_update(txn, update, options)?;
            if txn.deleted().any(|key| !allowed_deletes.contains(key)) {
                return Err(EngineError::ApprovalStale);
            }
            Ok(())
        })
    }

    /// Commits quads to insert and delete as one commit (only actual changes are logged).
    /// `digest` identifies the request for idempotent retries.
    pub fn commit_quads(
        &self,
        inserts: Vec<Quad>,
        deletes: &[Quad],
        request: &CommitRequest,
        digest: [u8; 32],
    ) -> Result<CommitOutcome, EngineError> {
        let dict = self.store.dict();
        let insert_keys: Vec<QuadKey> = inserts.into_iter().map(|q| dict.intern_quad(q)).collect();
        let delete_keys: Vec<QuadKey> =
            deletes.iter().filter_map(|q| dict.lookup_quad(q)).collect();
        // In a cluster whose write leader is another node, the leader commits them.
        if let Some(outcome) = self.forward_changes(&insert_keys, &delete_keys, request, digest)? {
            return Ok(outcome);
        }
        self.commit_keys(insert_keys, delete_keys, request, digest)
    }

    /// One commit whose changes are planned under the writer lock, against the state they
    /// land on: `plan` reads the applied head (the snapshot it is given) and returns the
    /// quads to insert and to delete. A plan made earlier (to show a person, say) can be
    /// stale by the time the lock is free; planning again here is what makes the commit
    /// match its base, and lets the caller refuse when it no longer matches what was shown.
    pub fn commit_planned<E: From<EngineError>>(
        &self,
        request: &CommitRequest,
        digest: [u8; 32],
        mut plan: impl FnMut(&Snapshot) -> Result<(Vec<Quad>, Vec<Quad>), E>,
    ) -> Result<CommitOutcome, E> {
        let dict = self.store.dict().clone();
        self.commit_with(request, digest, move |txn| {
            let (inserts, deletes) = plan(txn.base())?;
            for quad in &deletes {
                if let Some(key) = dict.lookup_quad(quad) {
                    txn.delete(key);
                }
            }
            for quad in inserts {
                txn.insert(dict.intern_quad(quad));
            }
            Ok(())
        })
    }

    /// A transaction on the head holding these changes, never committed (previews and dry
    /// runs).
    fn staged(&self, inserts: &[Quad], deletes: &[Quad]) -> crate::store::Transaction {
        let mut txn = self.store.begin();
        let dict = self.store.dict();
        for quad in deletes {
            if let Some(key) = dict.lookup_quad(quad) {
                txn.delete(key);
            }
        }
        for quad in inserts {
            // Terms of new quads may be new: interning them costs only their bytes.
            txn.insert(dict.intern_quad(quad.clone()));
        }
        txn
    }

    /// The actual changes `commit_quads` would make now: `(inserted, deleted)` quads.
    pub fn preview_quads(&self, inserts: &[Quad], deletes: &[Quad]) -> (Vec<Quad>, Vec<Quad>) {
        let (inserted, deleted) = self.staged(inserts, deletes).into_changes();
        (self.quads_of(&inserted), self.quads_of(&deleted))
    }

    /// Commits explicit changes (already interned quad keys). Inserts of present quads and
    /// deletes of absent ones are dropped; only actual changes are logged.
    pub fn commit_keys(
        &self,
        inserts: Vec<QuadKey>,
        deletes: Vec<QuadKey>,
        request: &CommitRequest,
        digest: [u8; 32],
    ) -> Result<CommitOutcome, EngineError> {
        // Only a clustered write may build twice (after a conflict): only it keeps a copy.
        let retried = self.shared.is_some();
        let mut inserts = inserts;
        self.commit_with(request, digest, move |txn| {
            for &key in &deletes {
                txn.delete(key);
            }
            txn.insert_all(if retried {
                inserts.clone()
            } else {
                std::mem::take(&mut inserts)
            });
            Ok(())
        })
    }

    /// The one write path: `build` fills a transaction under the writer lock; a non-empty
    /// transaction becomes the next commit.
    pub(crate) fn commit_with<E: From<EngineError>>(
        &self,
        request: &CommitRequest,
        digest: [u8; 32],
        mut build: impl FnMut(&mut Transaction) -> Result<(), E>,
    ) -> Result<CommitOutcome, E> {
        validate_request(request)?;
        if self.read_only {
            return Err(EngineError::ReadOnly {
                action: "a commit".into(),
            }
            .into());
        }
        if self.shared.is_some() {
            return self.commit_clustered(request, digest, build);
        }
        let mut writer = self.writer.lock();
        if self.poisoned.load(Ordering::Acquire) {
            return Err(EngineError::Poisoned {
                graph: self.name.to_string(),
            }
            .into());
        }
        if let Some(outcome) = self.idempotent_replay(request, digest)? {
            drop(writer);
            return Ok(self.acknowledge_replay(outcome)?);
        }
        let mut txn = self.store.begin();
        build(&mut txn)?;
        let head = txn.base_seq();
        self.check_control_graphs(&txn, request)?;
        if txn.is_empty() {
            drop(writer);
            self.sync_through(head)?;
            return Ok(CommitOutcome::unchanged(head));
        }
        let built = self.build_commit(txn, request, digest, writer.head_hash, None)?;
        let offset = self
            .log
            .append_record(&built.record)
            .map_err(EngineError::from)?;
        let outcome = built.outcome();
        let seq = built.seq;
        self.store
            .apply_prepared(seq, built.prepared, &built.deletes);
        self.shacl.apply(seq, &built.checked);
        self.record_commit(
            &mut writer,
            &request.idempotency_key,
            built.header,
            built.hash,
            (offset, built.record.len()),
        );
        drop(writer);
        self.sync_through(seq)?;
        self.search.notify();
        self.count_for_flush(outcome.inserted + outcome.deleted);
        Ok(outcome)
    }

    /// Only an `admin` request may change a control graph. Checked on the transaction
    /// itself, so every surface and every way of naming a graph (update text, import,
    /// Graph Store target) meets the same rule.
    pub(crate) fn check_control_graphs(
        &self,
        txn: &Transaction,
        request: &CommitRequest,
    ) -> Result<(), EngineError> {
        if !request.admin
            && let Some(graph) = control_graphs_changed(txn).first()
        {
            return Err(EngineError::ControlGraphRefused {
                graph: (*graph).to_owned(),
            });
        }
        Ok(())
    }

    /// Turns a non-empty transaction into the next commit after `txn.base_seq()`, whose
    /// parent is `parent_hash`: checks it against the shapes, encodes and hashes its
    /// record and builds its indexes. `not_before`: the time of a commit before it that is
    /// not in the commit list yet (commit times never go backwards).
    pub(crate) fn build_commit(
        &self,
        mut txn: Transaction,
        request: &CommitRequest,
        digest: [u8; 32],
        parent_hash: CommitHash,
        not_before: Option<OffsetDateTime>,
    ) -> Result<BuiltCommit, EngineError> {
        let changes_control = !control_graphs_changed(&txn).is_empty();
        let checked = self.shacl.check(&mut txn)?;
        let seq = txn.base_seq() + 1;
        let (inserts, deletes) = txn.into_changes();
        // Large commits build their indexes on a second thread while this one encodes,
        // hashes and compresses the log record.
        let (quads, prepared) = if inserts.len() >= PARALLEL_BUILD_MIN_QUADS {
            std::thread::scope(|scope| {
                let build = scope.spawn(|| PreparedInserts::new(seq, &inserts));
                let quads = self.encode_changes(&inserts, &deletes);
                let prepared = build
                    .join()
                    .unwrap_or_else(|_| PreparedInserts::new(seq, &inserts));
                (quads, prepared)
            })
        } else {
            (
                self.encode_changes(&inserts, &deletes),
                PreparedInserts::new(seq, &inserts),
            )
        };
        let quads = quads.map_err(|e| EngineError::io(self.log.path(), e))?;
        // A commit built from a damaged store file (its deletions, its WHERE, its SHACL
        // check) is not appended.
        if let Some(reason) = self.store.damage() {
            return Err(EngineError::Query(crate::sparql::QueryError::StoreDamaged(
                reason,
            )));
        }
        let mut header = self.next_header(
            seq,
            parent_hash,
            request,
            digest,
            (inserts.len() as u64, deletes.len() as u64),
            quads.digest,
        );
        if let Some(previous) = not_before {
            header.committed_at = header.committed_at.max(previous);
        }
        let hash = header.hash();
        let record = EncodedRecord::new(&header, hash, quads);
        Ok(BuiltCommit {
            seq,
            hash,
            header,
            record,
            prepared,
            inserts,
            deletes,
            checked,
            changes_control,
        })
    }

    /// Counts changed quads towards the next flush and asks for one when due.
    pub(crate) fn count_for_flush(&self, changed: u64) {
        let pending = self.quads_since_flush.fetch_add(changed, Ordering::AcqRel) + changed;
        if pending >= self.flush_every_quads {
            self.request_flush();
        }
    }

    /// The header of commit `seq` on top of `parent_hash`.
    fn next_header(
        &self,
        seq: CommitSeq,
        parent_hash: CommitHash,
        request: &CommitRequest,
        digest: [u8; 32],
        (n_inserted, n_deleted): (u64, u64),
        quads_digest: [u8; 32],
    ) -> CommitHeader {
        let previous_time = self.commits.read().last().map(|e| e.header.committed_at);
        let now = OffsetDateTime::now_utc();
        // Commit times never go backwards, so "the commit at time T" is well defined even
        // if the wall clock steps back.
        let committed_at = previous_time.map_or(now, |p| p.max(now));
        CommitHeader {
            commit_seq: seq,
            parent_hash,
            committed_at,
            observed_at: request.observed_at,
            author: request.author.clone(),
            message: request.message.clone(),
            idempotency_key: request.idempotency_key.clone(),
            request_digest: request.idempotency_key.as_ref().map(|_| digest),
            n_inserted,
            n_deleted,
            quads_digest,
        }
    }

    /// A commit that inserts more quads than memory should hold (`keys` spilled to
    /// scratch runs during the parse): written as a store file of its own. Under the
    /// writer lock, the earlier commits are flushed to files first; then one pass over
    /// the merged runs drops the quads already present and writes both the log record
    /// (spilled past 64 MiB) and the sorted keys (a scratch file), from which the
    /// commit's segment file is built under a `.tmp` name (`build_bulk`). The record is
    /// appended and fsynced, and only then does a manifest name the file at the commit
    /// (I4), after which it is published like any commit (I2). A crash before the append
    /// leaves the graph at its previous head (the `.tmp` file is deleted at the next open,
    /// scratch files are unlinked from the start); after it, the open replays the record.
    ///
    /// In a cluster the record goes to the shared log first (sent from its spill file),
    /// and the other nodes apply it the same way (`apply_shared_bulk`). When another node
    /// appended first, the commit catches up and is built again on the new head, from its
    /// keys kept sorted in a scratch file for that, at most `MAX_CONFLICTS` times, as
    /// `commit_with` does.
    ///
    /// A graph whose dictionary knows a control graph (shapes or search declarations may
    /// be in force, or the import writes one) and a store without files take the
    /// in-memory path instead.
    pub(crate) fn commit_bulk(
        &self,
        keys: ExternalSort<QuadKey>,
        request: &CommitRequest,
        digest: [u8; 32],
    ) -> Result<CommitOutcome, EngineError> {
        let scratch = |e| EngineError::io(&self.dir, e);
        let in_memory = |keys: Vec<QuadKey>| self.commit_keys(keys, Vec::new(), request, digest);
        if self.read_only || self.knows_control_graph() || self.store.dir().is_none() {
            return in_memory(keys.into_vec().map_err(scratch)?);
        }
        validate_request(request)?;
        // A clustered commit may be built more than once: its keys are kept in a file.
        let (mut once, kept) = if self.shared.is_some() {
            let mut all = BulkKeysWriter::new(&self.dir).map_err(scratch)?;
            for key in keys.finish().map_err(scratch)? {
                all.push(key.map_err(scratch)?).map_err(scratch)?;
            }
            (None, Some(all.finish().map_err(scratch)?))
        } else {
            (Some(keys), None)
        };
        let mut writer = self.lock_drained();
        let mut conflicts = 0;
        loop {
            if self.poisoned.load(Ordering::Acquire) {
                return Err(EngineError::Poisoned {
                    graph: self.name.to_string(),
                });
            }
            if self.shared.is_some() {
                let caught_up = self
                    .catch_up_locked(&mut writer, None)
                    .inspect_err(|e| self.note_shared(e))?;
                if caught_up > 0 {
                    self.sync_through(self.store.applied_seq())?;
                }
            }
            if let Some(outcome) = self.idempotent_replay(request, digest)? {
                drop(writer);
                return self.acknowledge_replay(outcome);
            }
            let head = self.store.applied_seq();
            let seq = head + 1;
            if !self.store.ready_for_bulk(seq) {
                // Earlier commits still in memory segments go to a file first.
                self.flush_when_idle(1)?;
            }
            let source: Box<dyn Iterator<Item = std::io::Result<QuadKey>> + '_> =
                match (&kept, once.take()) {
                    (Some(kept), _) => Box::new(kept.iter()),
                    (None, Some(keys)) if !self.store.ready_for_bulk(seq) => {
                        drop(writer);
                        return in_memory(keys.into_vec().map_err(scratch)?);
                    }
                    (None, Some(keys)) => Box::new(keys.finish().map_err(scratch)?),
                    (None, None) => {
                        return Err(scratch(std::io::Error::other("the keys were consumed")));
                    }
                };
            if !self.store.ready_for_bulk(seq) {
                let keys = source
                    .collect::<std::io::Result<Vec<_>>>()
                    .map_err(scratch)?;
                drop(writer);
                return in_memory(keys);
            }
            let store_dir = self.dir.join(super::graph::STORE_DIR);
            let built = store_dir.join(format!("bulk-{seq}.tmp"));
            let (n_inserted, quads) = self.build_bulk(source, head, &built).inspect_err(|_| {
                let _ = std::fs::remove_file(&built);
            })?;
            if n_inserted == 0 {
                drop(writer);
                self.sync_through(head)?;
                return Ok(CommitOutcome::unchanged(head));
            }
            // The last moment to stop: after the append, the commit is durable.
            if self.interrupt.load(Ordering::Acquire) {
                let _ = std::fs::remove_file(&built);
                return Err(EngineError::Interrupted);
            }
            let header = self.next_header(
                seq,
                writer.head_hash,
                request,
                digest,
                (n_inserted, 0),
                quads.digest,
            );
            let hash = header.hash();
            let record = EncodedRecord::new(&header, hash, quads);
            if let Some(shared) = &self.shared {
                let appended = shared
                    .append(seq, &record)
                    .map_err(EngineError::from)
                    .inspect_err(|e| self.note_shared(e))
                    .inspect_err(|_| {
                        let _ = std::fs::remove_file(&built);
                    })?;
                if appended == Appended::Conflict {
                    let _ = std::fs::remove_file(&built);
                    conflicts += 1;
                    if conflicts >= MAX_CONFLICTS {
                        return Err(EngineError::WriteConflict {
                            graph: self.name.to_string(),
                            attempts: conflicts,
                        });
                    }
                    if conflicts >= TURN_AFTER_CONFLICTS {
                        shared.announce_waiting();
                    }
                    std::thread::sleep(conflict_pause(conflicts));
                    continue;
                }
                *self.write_refused_at.lock() = None;
                if conflicts >= TURN_AFTER_CONFLICTS {
                    shared.announce_done();
                }
            }
            let appended = self.log.append_record(&record).map_err(EngineError::from);
            let offset = match appended.and_then(|offset| {
                self.log.sync().map_err(EngineError::from)?;
                Ok(offset)
            }) {
                Ok(offset) => offset,
                Err(error) => {
                    // The record may be in the log without the store holding it: no write
                    // may follow until a restart replays the log.
                    self.poisoned.store(true, Ordering::Release);
                    let _ = std::fs::remove_file(&built);
                    return Err(error);
                }
            };
            if let Err(error) = self.store.install_bulk(seq, hash, &built) {
                // Durable in the log, not in the store: the next open replays it.
                self.poisoned.store(true, Ordering::Release);
                let _ = std::fs::remove_file(&built);
                return Err(EngineError::io(&store_dir, error));
            }
            // No shapes can be in force (the shapes graph is unknown): nothing to validate.
            let inserted = header.n_inserted;
            self.record_commit(
                &mut writer,
                &request.idempotency_key,
                header,
                hash,
                (offset, record.len()),
            );
            drop(writer);
            self.sync_through(seq)?;
            self.search.notify();
            if self.shared.is_some() {
                // New nodes should start from the new file, not replay the import.
                self.publish_pending.store(true, Ordering::Release);
                self.request_flush();
            }
            return Ok(CommitOutcome {
                commit_seq: Some(seq),
                head_seq: seq,
                hash: Some(hash),
                inserted,
                deleted: 0,
                idempotent_replay: false,
                validation: None,
            });
        }
    }

    /// Whether the dictionary knows a control graph: shapes or search declarations may be
    /// in force (or a write is about to bring some), so writes take the in-memory path,
    /// which validates and indexes.
    pub(crate) fn knows_control_graph(&self) -> bool {
        let dict = self.store.dict();
        CONTROL_GRAPHS.iter().any(|g| {
            dict.lookup(&Term::NamedNode(NamedNode::new_unchecked(*g)))
                .is_some()
        })
    }

    /// The one pass of a big commit over its sorted keys (built on commit `head`): drops
    /// the quads `head` holds, writes the rest to the commit's log record (returned) and
    /// to the segment file `built`. Returns how many quads it inserts.
    fn build_bulk(
        &self,
        keys: impl Iterator<Item = std::io::Result<QuadKey>>,
        head: CommitSeq,
        built: &std::path::Path,
    ) -> Result<(u64, QuadsSection), EngineError> {
        let dict = self.store.dict();
        let scratch = |e| EngineError::io(&self.dir, e);
        let seq = head + 1;
        let base = self.store.snapshot_at(head);
        let base_is_empty = self.store.n_versions() == 0;
        let interrupted = || self.interrupt.load(Ordering::Acquire);
        let store_dir = self.dir.join(super::graph::STORE_DIR);
        let log_error = |e| EngineError::io(self.log.path(), e);
        // The log record's N-Quads are written, hashed and compressed on a thread of their
        // own (two thirds of this commit's work, measured at 5M), beside the one pass
        // over the merged runs and the segment file's build.
        std::thread::scope(|scope| {
            let (batches, received) = std::sync::mpsc::sync_channel::<Vec<QuadKey>>(4);
            let dir = &self.dir;
            let encoding = scope.spawn(move || {
                let mut encoder = QuadsEncoder::spilling_into(dir);
                for (n, batch) in received.into_iter().enumerate() {
                    dict.write_nquads(&batch, &mut encoder)?;
                    if n % RELEASE_BATCHES == RELEASE_BATCHES - 1 {
                        // Terms are read by id all over the dictionary's parts.
                        dict.release_pages();
                    }
                }
                encoder.finish()
            });
            let (built, store_dir) = (&built, &store_dir);
            let segment = (move || -> Result<u64, EngineError> {
                let mut sorted = BulkKeysWriter::new(&self.dir).map_err(scratch)?;
                let mut batch: Vec<QuadKey> = Vec::with_capacity(BATCH_KEYS);
                let stopped = || log_error(std::io::Error::other("the record's encoder stopped"));
                for (i, key) in keys.enumerate() {
                    let key = key.map_err(scratch)?;
                    if i % (1 << 16) == 0 && interrupted() {
                        return Err(EngineError::Interrupted);
                    }
                    if !base_is_empty && i % RELEASE_KEYS == RELEASE_KEYS - 1 {
                        // `contains` probes the graph's segments at random.
                        self.store.release_pages();
                    }
                    if !base_is_empty && base.contains(&key) {
                        continue;
                    }
                    sorted.push(key).map_err(scratch)?;
                    batch.push(key);
                    if batch.len() == BATCH_KEYS {
                        let full = std::mem::replace(&mut batch, Vec::with_capacity(BATCH_KEYS));
                        batches.send(full).map_err(|_| stopped())?;
                    }
                }
                batches.send(batch).map_err(|_| stopped())?;
                drop(batches);
                let sorted = sorted.finish().map_err(scratch)?;
                if sorted.is_empty() {
                    return Ok(0);
                }
                if let Some(reason) = self.store.damage() {
                    return Err(EngineError::Query(crate::sparql::QueryError::StoreDamaged(
                        reason,
                    )));
                }
                std::fs::create_dir_all(store_dir)
                    .and_then(|()| {
                        crate::store::write_segment(
                            &sorted,
                            built,
                            seq,
                            &self.dir,
                            self.bulk_run_quads,
                        )
                    })
                    .map_err(|error| EngineError::io(built, error))?;
                Ok(sorted.len())
            })();
            // The encoder's own error comes first: it explains a stopped pass.
            let quads = match encoding.join() {
                Ok(quads) => quads.map_err(log_error),
                Err(_) => Err(log_error(std::io::Error::other(
                    "the record's encoder failed",
                ))),
            };
            match (segment, quads) {
                (_, Err(error)) | (Err(error), _) => Err(error),
                (Ok(n), Ok(quads)) => Ok((n, quads)),
            }
        })
    }

    /// The N-Quads lines of a commit (inserts, then deletes), hashed and compressed as
    /// they are written.
    fn encode_changes(
        &self,
        inserts: &[QuadKey],
        deletes: &[QuadKey],
    ) -> std::io::Result<QuadsSection> {
        // Past 64 MiB compressed, the record waits in an unlinked file beside the log.
        let mut encoder = match self.log.path().parent() {
            Some(dir) => QuadsEncoder::spilling_into(dir),
            None => QuadsEncoder::default(),
        };
        self.store.dict().write_nquads(inserts, &mut encoder)?;
        self.store.dict().write_nquads(deletes, &mut encoder)?;
        encoder.finish()
    }

    /// Makes the commits applied so far visible to readers, once they are durable.
    ///
    /// Embedded, that takes an fsync of the log (group commit: the first waiter syncs
    /// everything appended so far; writers that appended meanwhile find their commit
    /// already durable). In a cluster a commit reaches the store only once the shared log
    /// stored it on its replicas, which is what makes it durable: readers see it at once,
    /// and this node's own copy of the log is fsynced at most every
    /// `CLUSTER_LOCAL_SYNC_EVERY` (and always before a flush names a commit, I4). A crash
    /// can cost the copy its unsynced tail; the next open cuts it and reads those commits
    /// back from the stream.
    pub(crate) fn sync_through(&self, seq: CommitSeq) -> Result<(), EngineError> {
        if self.shared.is_some() {
            self.store.publish(self.store.applied_seq());
            self.settle_early_answers();
            if self.local_synced_at.lock().elapsed() < CLUSTER_LOCAL_SYNC_EVERY {
                return Ok(());
            }
        }
        self.sync_log_through(seq)
    }

    /// A clustered node's copy of the log, synced when `sync_through` last left it
    /// (called by the follower thread, so a quiet graph's copy does not stay unsynced).
    pub(crate) fn sync_local_copy(&self) -> Result<(), EngineError> {
        let applied = self.store.applied_seq();
        if self.durable_seq.lock().0 < applied
            && self.local_synced_at.lock().elapsed() >= CLUSTER_LOCAL_SYNC_EVERY
        {
            self.sync_log_through(applied)?;
        }
        Ok(())
    }

    /// fsyncs the log through `seq` (and whatever was appended with it) and publishes it.
    pub(crate) fn sync_log_through(&self, seq: CommitSeq) -> Result<(), EngineError> {
        let mut durable = self.durable_seq.lock();
        loop {
            if durable.0 >= seq {
                return Ok(());
            }
            if !durable.1 {
                break;
            }
            // Another writer's fsync is under way: it may cover this commit, else this
            // writer syncs next. Waiting on the condvar, not the lock, lets every writer
            // it covers go at once (a lock handed on one waiter at a time measured fewer
            // commits per fsync).
            self.durable_synced.wait(&mut durable);
        }
        durable.1 = true;
        drop(durable);
        // Everything applied has been appended before it (see `commit_with`).
        let target = self.store.applied_seq();
        let synced = self.log.sync();
        let mut durable = self.durable_seq.lock();
        durable.1 = false;
        if let Err(error) = synced {
            // The store holds commits that may not be on disk: refuse further writes until a
            // restart rebuilds the store from what the log really holds.
            self.poisoned.store(true, Ordering::Release);
            self.durable_synced.notify_all();
            return Err(error.into());
        }
        durable.0 = durable.0.max(target);
        *self.local_synced_at.lock() = Instant::now();
        self.store.publish(target);
        drop(durable);
        self.durable_synced.notify_all();
        Ok(())
    }

    /// The writer's bookkeeping once a commit is appended and applied: the head's hash,
    /// the request's idempotency key, the commit in the list (at `(offset, len)` in the log).
    pub(crate) fn record_commit(
        &self,
        writer: &mut WriterState,
        idempotency_key: &Option<String>,
        header: CommitHeader,
        hash: CommitHash,
        (offset, len): (u64, u64),
    ) {
        writer.head_hash = hash;
        if let Some(key) = idempotency_key {
            self.idempotency
                .write()
                .insert(key.clone(), header.commit_seq);
        }
        self.commits.write().push(LogEntry {
            header,
            hash,
            offset,
            len,
        });
    }

    /// The outcome of a replayed request, once its commit is durable. I2: the first
    /// commit may be appended but not yet durable (its writer is waiting for the group
    /// fsync): a replay is acknowledged only once it is durable and published, like the
    /// original. Called without the writer lock.
    pub(crate) fn acknowledge_replay(
        &self,
        mut outcome: CommitOutcome,
    ) -> Result<CommitOutcome, EngineError> {
        if let Some(seq) = outcome.commit_seq {
            self.sync_through(seq)?;
        }
        outcome.head_seq = self.store.published_seq();
        Ok(outcome)
    }

    pub(crate) fn idempotent_replay(
        &self,
        request: &CommitRequest,
        digest: [u8; 32],
    ) -> Result<Option<CommitOutcome>, EngineError> {
        let Some(key) = &request.idempotency_key else {
            return Ok(None);
        };
        let Some(seq) = self.idempotency.read().get(key).copied() else {
            return Ok(None);
        };
        let commits = self.commits.read();
        // A key made up from the content alone stands for a retry only while its commit
        // is the newest: the same content after another commit is a new write (a value
        // set back, a link added again after it was retracted).
        if key.starts_with(AUTOMATIC_KEY_PREFIX) && seq != commits.len() as CommitSeq {
            return Ok(None);
        }
        let entry = &commits[seq as usize - 1];
        if entry.header.request_digest != Some(digest) {
            return Err(EngineError::IdempotencyConflict {
                key: key.clone(),
                commit_seq: seq,
            });
        }
        Ok(Some(CommitOutcome {
            commit_seq: Some(seq),
            head_seq: self.store.published_seq(),
            hash: Some(entry.hash),
            inserted: entry.header.n_inserted,
            deleted: entry.header.n_deleted,
            idempotent_replay: true,
            validation: None,
        }))
    }
}

/// A random pause of up to 2^attempt ms (at most 16 ms) after a clustered write lost the
/// race to append (full jitter: colliding nodes spread out instead of colliding again).
pub(crate) fn conflict_pause(attempt: usize) -> std::time::Duration {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_usize(attempt);
    let ceiling_us = 1_000u64 << attempt.min(2);
    std::time::Duration::from_micros(hasher.finish() % ceiling_us)
}

/// The request digest of an update: its text, and its base IRI only when the text has
/// relative IRIs for it to resolve. (HTTP takes the base from the address a request
/// was sent to, so the same update retried through another node of a cluster must not
/// count as another request.)
fn update_digest(update_text: &str, base_iri: Option<&str>) -> [u8; 32] {
    let base = match base_iri {
        Some(base) if sparql::parse_update(update_text, None).is_err() => base,
        _ => "",
    };
    request_digest(&["update", update_text, base])
}

/// What an update would change, computed against `base_seq`.
#[derive(Clone, Debug)]
pub struct UpdatePreview {
    pub base_seq: CommitSeq,
    pub inserts: Vec<QuadKey>,
    pub deletes: Vec<QuadKey>,
    /// The control graphs (`CONTROL_GRAPHS`) it changes: committing it needs `admin`.
    pub control_graphs: Vec<&'static str>,
}

/// The control graphs a transaction changes (inserts or deletes), in `CONTROL_GRAPHS`
/// order.
fn control_graphs_changed(txn: &Transaction) -> Vec<&'static str> {
    // A graph name the dictionary has never seen cannot be in any change.
    let known: Vec<(TermId, &'static str)> = CONTROL_GRAPHS
        .iter()
        .filter_map(|iri| {
            txn.lookup(&Term::NamedNode(NamedNode::new_unchecked(*iri)))
                .map(|id| (id, *iri))
        })
        .collect();
    if known.is_empty() {
        return Vec::new();
    }
    let mut changed = vec![false; known.len()];
    for key in txn.changed() {
        for (idx, (id, _)) in known.iter().enumerate() {
            changed[idx] |= key[3] == *id;
        }
        if changed.iter().all(|c| *c) {
            break;
        }
    }
    known
        .iter()
        .zip(changed)
        .filter(|(_, changed)| *changed)
        .map(|((_, iri), _)| *iri)
        .collect()
}

/// A digest of what a client asked for, to tell a retry from a reused idempotency key.
pub(crate) fn request_digest(parts: &[&str]) -> [u8; 32] {
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update((part.len() as u64).to_le_bytes());
        hasher.update(part.as_bytes());
    }
    hasher.finalize().into()
}

fn validate_request(request: &CommitRequest) -> Result<(), EngineError> {
    let check = |param: &str, value: &Option<String>, max: usize| match value {
        Some(v) if v.len() > max => Err(EngineError::InvalidArgument {
            param: param.to_owned(),
            message: format!("longer than {max} bytes"),
        }),
        Some(v) if param == "idempotency_key" && v.is_empty() => {
            Err(EngineError::InvalidArgument {
                param: param.to_owned(),
                message: "must not be empty".to_owned(),
            })
        }
        _ => Ok(()),
    };
    check("author", &request.author, 1024)?;
    check("message", &request.message, 64 * 1024)?;
    check("idempotency_key", &request.idempotency_key, 256)
}

/// Search declarations are data (graph `strata:embeddings`): declaring one is a commit.
impl Graph {
    /// Commits a declaration (replacing one of the same name). The worker builds its index
    /// in the background.
    pub fn declare_embedding(
        &self,
        declaration: &Declaration,
        request: &super::CommitRequest,
    ) -> Result<super::CommitOutcome, EngineError> {
        if !Declaration::valid_name(&declaration.name) {
            return Err(EngineError::InvalidArgument {
                param: "name".into(),
                message: format!(
                    "{:?} is not a valid index name: use [a-z0-9][a-z0-9_-]{{0,62}}",
                    declaration.name
                ),
            });
        }
        let quads = declaration.quads();
        let current = self.declaration_quads(&declaration.name);
        let digest = super::write::request_digest(&[
            "declare_embedding",
            &quads
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("\n"),
        ]);
        let outcome = self.commit_quads(quads, &current, request, digest)?;
        self.search.notify();
        Ok(outcome)
    }

    /// Commits the removal of a declaration; its index files go with it.
    pub fn delete_embedding(
        &self,
        name: &str,
        request: &super::CommitRequest,
    ) -> Result<super::CommitOutcome, EngineError> {
        let current = self.declaration_quads(name);
        if current.is_empty() {
            return Err(EngineError::InvalidArgument {
                param: "name".into(),
                message: format!("no embedding declaration named {name:?}"),
            });
        }
        let digest = super::write::request_digest(&["delete_embedding", name]);
        let outcome = self.commit_quads(Vec::new(), &current, request, digest)?;
        self.search.notify();
        Ok(outcome)
    }

    fn declaration_quads(&self, name: &str) -> Vec<crate::model::Quad> {
        let head = self.head_seq();
        self.read_at(head).declarations()
            .into_iter()
            .find(|d| d.name == name)
            .map(|d| {
                // The stored quads, exactly as read (values may differ from a new one).
                let node = Term::NamedNode(d.node());
                self.read_at(head).quads_matching(Some(&node), None, None)
                    .into_iter()
                    .filter(|q| {
                        matches!(&q.graph_name, crate::model::RdfGraphName::NamedNode(g) if g.as_str() == EMBEDDINGS_GRAPH)
                    })
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// Shapes are data (graph `strata:shapes`): publishing them is a commit.
impl Graph {
    /// Publishes shapes (replacing the current ones) with a mode, as one commit. The
    /// outcome's validation is the whole-graph report against the new shapes.
    pub fn publish_shapes(
        &self,
        triples: Vec<Triple>,
        mode: ValidationMode,
        request: &super::CommitRequest,
    ) -> Result<super::CommitOutcome, EngineError> {
        // Compile first so bad shapes fail before anything is attempted.
        Shapes::from_triples(triples.clone())?;
        // In a cluster whose write leader is another node, the leader publishes them.
        if let Some(outcome) = self.forward_shapes(&triples, mode, request)? {
            return Ok(outcome);
        }
        self.publish_shapes_here(triples, mode, request)
    }

    /// `publish_shapes` on this node (never forwarded).
    pub(super) fn publish_shapes_here(
        &self,
        triples: Vec<Triple>,
        mode: ValidationMode,
        request: &super::CommitRequest,
    ) -> Result<super::CommitOutcome, EngineError> {
        let inserts = shapes_graph_quads(&triples, mode);
        let dict = self.store.dict();
        let insert_keys: Vec<QuadKey> = inserts.into_iter().map(|q| dict.intern_quad(q)).collect();
        let shapes_graph = dict.intern(&Term::NamedNode(shapes_graph_name()));
        let digest = super::write::request_digest(&[
            "publish_shapes",
            mode.name(),
            &triples
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("\n"),
        ]);
        self.commit_with(request, digest, move |txn| {
            let current: Vec<QuadKey> = txn
                .snapshot()
                .quads(Pattern {
                    subject: None,
                    predicate: None,
                    object: None,
                    graph: GraphFilter::Is(shapes_graph),
                })
                .collect();
            for key in current {
                txn.delete(key);
            }
            for &key in &insert_keys {
                txn.insert(key);
            }
            Ok(())
        })
    }

    /// What a commit of these changes would get from validation, writing nothing.
    pub fn check_quads(
        &self,
        inserts: &[Quad],
        deletes: &[Quad],
    ) -> Result<Option<CommitValidation>, EngineError> {
        self.shacl.check_pending(&mut self.staged(inserts, deletes))
    }
}

/// A commit built and checked, its record encoded, not yet appended.
pub(crate) struct BuiltCommit {
    pub seq: CommitSeq,
    pub hash: CommitHash,
    pub header: CommitHeader,
    pub record: EncodedRecord,
    pub prepared: PreparedInserts,
    pub inserts: Vec<QuadKey>,
    pub deletes: Vec<QuadKey>,
    pub checked: super::validation::Checked,
    /// It changes a control graph (shapes, search declarations): later commits are judged
    /// by what it leaves.
    pub changes_control: bool,
}

impl BuiltCommit {
    /// What its writer is told once it lands.
    pub(crate) fn outcome(&self) -> CommitOutcome {
        CommitOutcome {
            commit_seq: Some(self.seq),
            head_seq: self.seq,
            hash: Some(self.hash),
            inserted: self.inserts.len() as u64,
            deleted: self.deletes.len() as u64,
            idempotent_replay: false,
            validation: self.checked.validation.clone().map(Arc::new),
        }
    }
}
