//! Clustered writes, pipelined: a commit is sent to the shared log without waiting for the
//! answer about the one before it.
//!
//! Under the writer lock a write builds its commit on the applied head plus the commits
//! still in flight (`WriterState::unapplied`), sends it (`SharedLog::send`: in order, each
//! naming the one before it when that one is unanswered) and releases the lock; the next
//! write builds on it at once. Then the writer waits for its own answer:
//!
//! - stored: every commit before it is stored too (the shared log takes a record only
//!   right after the one it names), so it applies them all in order, its own included
//!   (local log, store, SHACL state, commit list), then syncs and publishes as embedded
//!   writes do (I2). A commit is applied to the store only once the shared log holds it,
//!   so nothing is ever rolled back and a flush never holds a commit the cluster lacks.
//! - refused (another node appended first, or the commit it built on was refused): it
//!   drops itself and every commit after it from the pipeline (those were built on it and
//!   will be refused as well) and builds again on the new head, like the optimistic
//!   write it replaces.
//! - no answer: the same, and the caller gets the error (the record may have landed: a
//!   retry with the idempotency key finds it).
//!
//! A commit that was dropped from the pipeline yet stored (its answer came after a later
//! failure dropped it) is found by its writer at its number after a catch-up, by hash.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use parking_lot::MutexGuard;

use super::error::EngineError;
use super::graph::{Graph, WriterState};
use super::write::{
    BuiltCommit, CommitOutcome, CommitRequest, MAX_CONFLICTS, TURN_AFTER_CONFLICTS, conflict_pause,
};
use crate::log::{Appended, ForwardedCommit};
use crate::model::{CommitHash, CommitSeq};
use crate::store::{Transaction, Unapplied};

/// How long a write waits for commits in flight to land before it gives up (longer than
/// the shared log's own bound on an answer).
const IN_FLIGHT_WAIT: Duration = Duration::from_secs(30);

/// Counts of the pipeline's work, for `/metrics` and tests.
#[derive(Default)]
pub(crate) struct PipelineCounters {
    /// Commits stored that were sent while a commit before them was still unanswered.
    pipelined: AtomicU64,
    /// Commits refused that were built on a commit still unanswered (the pipeline broke).
    refused: AtomicU64,
    /// Commits sent and not yet answered, as of the last change under the writer lock:
    /// `/healthz` and `/metrics` read it without that lock, which a catch-up holds for
    /// as long as a big commit takes to download and apply.
    depth: AtomicU64,
}

/// What the pipeline is doing now and did since the graph opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PipelineStatus {
    /// Commits sent and not yet answered.
    pub depth: u64,
    pub pipelined: u64,
    pub refused: u64,
    /// Shared-log messages this node's commits were stored in, and the commits they held
    /// (several commits sent while a message was unanswered go together).
    pub messages: u64,
    pub messages_commits: u64,
}

/// A commit sent to the shared log, awaiting its answer.
pub(crate) struct InFlight {
    pub built: BuiltCommit,
    pub idempotency_key: Option<String>,
}

impl Graph {
    /// In a cluster: the write pipeline's depth now and its counts.
    pub fn pipeline_status(&self) -> Option<PipelineStatus> {
        let (messages, messages_commits) = self.shared.as_ref()?.stored_counts();
        Some(PipelineStatus {
            messages,
            messages_commits,
            depth: self.pipeline.depth.load(Ordering::Relaxed),
            pipelined: self.pipeline.pipelined.load(Ordering::Relaxed),
            refused: self.pipeline.refused.load(Ordering::Relaxed),
        })
    }

    /// The clustered write path (see the module comment): builds, sends, waits for the
    /// answer, applies, a bounded number of times when other nodes append first.
    pub(crate) fn commit_clustered<E: From<EngineError>>(
        &self,
        request: &CommitRequest,
        digest: [u8; 32],
        mut build: impl FnMut(&mut Transaction) -> Result<(), E>,
    ) -> Result<CommitOutcome, E> {
        let shared = self.shared.as_ref().expect("a clustered graph").clone();
        let mut conflicts = 0;
        loop {
            // A node that lost a race asked for a turn: a new write lets it go first.
            if conflicts == 0
                && let Some(until) = shared.held_back_until()
            {
                std::thread::sleep(until.saturating_duration_since(Instant::now()));
            }
            let mut writer = self.writer.lock();
            if self.poisoned.load(Ordering::Acquire) {
                return Err(EngineError::Poisoned {
                    graph: self.name.to_string(),
                }
                .into());
            }
            if writer.in_flight.is_empty() {
                // The first try builds on the newest commit this node heard of (the
                // append watcher tells within milliseconds) without asking: if another
                // node appended meanwhile the append is refused, and the next try asks.
                let known_last = (conflicts == 0).then(|| self.shared_seen.get());
                let caught_up = self
                    .catch_up_locked(&mut writer, known_last)
                    .inspect_err(|e| self.note_shared(e))?;
                if caught_up > 0 {
                    self.sync_through(self.store.applied_seq())?;
                }
            }
            if let Some(outcome) = self.idempotent_replay(request, digest)? {
                drop(writer);
                return Ok(self.acknowledge_replay(outcome)?);
            }
            // The first try of this very request, or a change of the shapes or search
            // declarations that decides how this commit is judged, is still in flight:
            // wait for it to land, then start over.
            let awaited = writer.in_flight.iter().rev().find(|c| {
                c.built.changes_control
                    || (request.idempotency_key.is_some()
                        && c.idempotency_key == request.idempotency_key)
            });
            if let Some(awaited) = awaited.map(|c| c.built.seq) {
                drop(writer);
                self.wait_landed(awaited)?;
                continue;
            }
            let tail = writer
                .in_flight
                .back()
                .map(|c| (c.built.seq, c.built.hash, c.built.header.committed_at));
            let mut txn = match tail {
                Some((last, _, _)) => self.store.begin_after(&writer.unapplied, last),
                None => self.store.begin(),
            };
            build(&mut txn)?;
            let head = txn.base_seq();
            self.check_control_graphs(&txn, request)?;
            if txn.is_empty() {
                drop(writer);
                // Nothing to change on top of commits in flight: true once they land.
                if head > self.store.applied_seq() && !self.wait_landed(head)? {
                    continue;
                }
                self.sync_through(head)?;
                return Ok(CommitOutcome::unchanged(head));
            }
            let parent = tail.map_or(writer.head_hash, |(_, hash, _)| hash);
            let built =
                self.build_commit(txn, request, digest, parent, tail.map(|(_, _, time)| time))?;
            let (seq, hash) = (built.seq, built.hash);
            let outcome = built.outcome();
            // A forwarded write whose answer needs nothing but the commit: its node
            // learns it from the stream (a validation report comes only by reply).
            let forwarded = request
                .forward_id
                .as_ref()
                .filter(|_| outcome.validation.is_none())
                .map(|id| ForwardedCommit {
                    forward_id: id.clone(),
                    hash,
                    inserted: outcome.inserted,
                    deleted: outcome.deleted,
                });
            let named = forwarded.as_ref().map(|f| f.forward_id.clone());
            let sent = shared
                .send(seq, &built.record, tail.map(|(_, hash, _)| hash), forwarded)
                .map_err(EngineError::from)
                .inspect_err(|e| self.note_shared(e))?;
            self.shared_seen.sent(seq);
            let behind_another = tail.is_some();
            writer.unapplied.push(&built.inserts, &built.deletes);
            writer.in_flight.push_back(InFlight {
                built,
                idempotency_key: request.idempotency_key.clone(),
            });
            self.note_depth(&writer);
            drop(writer);
            let answer = sent
                .wait()
                .map_err(EngineError::from)
                .inspect_err(|e| self.note_shared(e));
            let mut writer = self.writer.lock();
            match answer {
                Ok(Appended::Acknowledged) => {
                    if let Some(id) = named {
                        // Its node may learn the outcome from the stream (`leader.rs`).
                        self.lease.named_in_stream.lock().insert(id);
                    }
                    let landed = self.land_through(&mut writer, seq, hash);
                    drop(writer);
                    if !landed? {
                        // Unreachable in practice: the shared log stored commit `seq`
                        // under this record's id, so it is this record.
                        return Err(EngineError::SharedLogDiverged {
                            graph: self.name.to_string(),
                            reason: format!("commit {seq} was stored but holds another record"),
                        }
                        .into());
                    }
                    if behind_another {
                        self.pipeline.pipelined.fetch_add(1, Ordering::Relaxed);
                    }
                    *self.write_refused_at.lock() = None;
                    if conflicts >= TURN_AFTER_CONFLICTS {
                        shared.announce_done();
                    }
                    self.sync_through(seq)?;
                    self.search.notify();
                    self.count_for_flush(outcome.inserted + outcome.deleted);
                    return Ok(outcome);
                }
                Ok(Appended::Conflict) => {
                    if behind_another {
                        self.pipeline.refused.fetch_add(1, Ordering::Relaxed);
                    }
                    self.drop_in_flight_from(&mut writer, seq);
                    drop(writer);
                    conflicts += 1;
                    if conflicts >= MAX_CONFLICTS {
                        return Err(EngineError::WriteConflict {
                            graph: self.name.to_string(),
                            attempts: conflicts,
                        }
                        .into());
                    }
                    // Losing once is the normal price of a shared log; a node that loses
                    // again asks the others to hold back their next writes so it gets its
                    // turn. A short random pause keeps nodes that lost together from
                    // colliding again.
                    if conflicts >= TURN_AFTER_CONFLICTS {
                        shared.announce_waiting();
                    }
                    std::thread::sleep(conflict_pause(conflicts));
                }
                Err(error) => {
                    self.drop_in_flight_from(&mut writer, seq);
                    return Err(error.into());
                }
            }
        }
    }

    /// Commit `seq` (hash `hash`) is stored in the shared log, and so is every commit
    /// before it: applies them. False when the commit at `seq` turns out to be another.
    fn land_through(
        &self,
        writer: &mut WriterState,
        seq: CommitSeq,
        hash: CommitHash,
    ) -> Result<bool, EngineError> {
        if self.store.applied_seq() < seq
            && writer
                .in_flight
                .iter()
                .any(|c| c.built.seq == seq && c.built.hash == hash)
        {
            while writer.in_flight.front().is_some_and(|c| c.built.seq <= seq) {
                let next = writer.in_flight.pop_front().expect("checked");
                if let Err(error) = self.apply_own(writer, next) {
                    // The rest are in the shared log too: a catch-up brings them.
                    self.drop_in_flight_from(writer, 0);
                    return Err(error);
                }
            }
            self.recount_unapplied(writer);
            return Ok(true);
        }
        if self.store.applied_seq() < seq {
            // Dropped from the pipeline when a commit before it failed, yet stored: so
            // were the commits still in flight before it. Read them all back.
            self.drop_in_flight_from(writer, 0);
            self.catch_up_locked(writer, Some(seq))?;
        }
        Ok(self
            .commits
            .read()
            .get(seq as usize - 1)
            .is_some_and(|entry| entry.hash == hash))
    }

    /// Applies one of this node's commits the shared log stored: local log, store, SHACL
    /// state, commit list. Readers see it once `sync_through` covers it.
    fn apply_own(&self, writer: &mut WriterState, commit: InFlight) -> Result<(), EngineError> {
        let InFlight {
            built,
            idempotency_key,
        } = commit;
        let offset = self
            .log
            .append_record(&built.record)
            .map_err(EngineError::from)?;
        self.store
            .apply_prepared(built.seq, built.prepared, &built.deletes);
        self.shacl.apply(built.seq, &built.checked);
        self.record_commit(
            writer,
            &idempotency_key,
            built.header,
            built.hash,
            (offset, built.record.len()),
        );
        Ok(())
    }

    /// Drops commit `seq` and every commit after it from the pipeline (their writers find
    /// out from their own answers, or at their number after a catch-up).
    fn drop_in_flight_from(&self, writer: &mut WriterState, seq: CommitSeq) {
        let before = writer.in_flight.len();
        while writer.in_flight.back().is_some_and(|c| c.built.seq >= seq) {
            writer.in_flight.pop_back();
        }
        if writer.in_flight.len() != before {
            self.recount_unapplied(writer);
        }
        self.shared_seen.dropped_from(seq);
    }

    /// `unapplied` again from the commits still in flight.
    fn recount_unapplied(&self, writer: &mut WriterState) {
        let mut unapplied = Unapplied::default();
        for commit in &writer.in_flight {
            unapplied.push(&commit.built.inserts, &commit.built.deletes);
        }
        writer.unapplied = unapplied;
        self.note_depth(writer);
    }

    fn note_depth(&self, writer: &WriterState) {
        self.pipeline
            .depth
            .store(writer.in_flight.len() as u64, Ordering::Relaxed);
    }

    /// Waits until commit `seq`, in flight, has landed (true) or was dropped (false).
    fn wait_landed(&self, seq: CommitSeq) -> Result<bool, EngineError> {
        let deadline = Instant::now() + IN_FLIGHT_WAIT;
        loop {
            {
                let writer = self.writer.lock();
                if self.store.applied_seq() >= seq {
                    return Ok(true);
                }
                if !writer.in_flight.iter().any(|c| c.built.seq == seq) {
                    return Ok(false);
                }
            }
            if Instant::now() > deadline {
                return Err(self.in_flight_stuck());
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    fn in_flight_stuck(&self) -> EngineError {
        EngineError::Log(crate::log::LogError::Unavailable {
            message: format!(
                "graph {}: commits sent to the cluster got no answer within {IN_FLIGHT_WAIT:?}",
                self.name
            ),
        })
    }

    /// The writer lock, once no commit of this node is in flight (for writes that do not
    /// pipeline: big imports).
    pub(crate) fn lock_drained(&self) -> MutexGuard<'_, WriterState> {
        let deadline = Instant::now() + IN_FLIGHT_WAIT;
        loop {
            let mut writer = self.writer.lock();
            if writer.in_flight.is_empty() {
                return writer;
            }
            if Instant::now() > deadline {
                // Their writers gave up waiting long ago; any that landed is read back.
                self.drop_in_flight_from(&mut writer, 0);
                return writer;
            }
            drop(writer);
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}
