//! The versioned quad store: every quad version knows the commit that added it and the
//! commit that removed it, so a read at any commit is a range scan, never a replay.
//!
//! The store does not know the log. The engine feeds it commits in order (`apply`) and
//! tells it when they are durable (`publish`); readers only ever get published commits.

mod checkpoint;
mod dict;
mod segment;
mod snapshot;
mod transaction;

pub use checkpoint::{CheckpointInfo, read_checkpoint, read_checkpoint_info, write_checkpoint};
pub use dict::{DEFAULT_GRAPH, Dict, TermId};
pub use segment::{GraphFilter, Pattern, QuadKey};
pub use snapshot::Snapshot;
pub use transaction::Transaction;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::RwLock;

use crate::model::CommitSeq;
use segment::{Entry, LIVE, Segment};

/// A commit's inserted quads, sorted and indexed, ready to be applied.
pub struct PreparedInserts {
    seq: CommitSeq,
    segment: Option<Segment>,
}

impl PreparedInserts {
    /// Builds the indexes of the quads a commit inserts.
    pub fn new(seq: CommitSeq, inserts: &[QuadKey]) -> Self {
        let segment = (!inserts.is_empty())
            .then(|| Segment::build(inserts.iter().map(|&k| Entry::new(k, seq, LIVE)).collect()));
        Self { seq, segment }
    }
}

/// A graph's quads at every commit. One writer (the engine serializes `apply`), any number
/// of readers.
pub struct Store {
    dict: Arc<Dict>,
    /// Newest segments last. Replaced wholesale (copy on write) so a snapshot keeps the
    /// list it started with.
    segments: RwLock<Arc<Vec<Arc<Segment>>>>,
    /// The newest commit applied to the indexes (may not be durable yet).
    applied_seq: AtomicU64,
    /// The newest durable commit: what readers see at the head.
    published_seq: AtomicU64,
}

impl Default for Store {
    fn default() -> Self {
        Self {
            dict: Arc::new(Dict::default()),
            segments: RwLock::new(Arc::new(Vec::new())),
            applied_seq: AtomicU64::new(0),
            published_seq: AtomicU64::new(0),
        }
    }
}

impl Store {
    /// The term dictionary shared by every snapshot.
    pub fn dict(&self) -> &Arc<Dict> {
        &self.dict
    }

    /// The newest commit readers may see.
    pub fn published_seq(&self) -> CommitSeq {
        self.published_seq.load(Ordering::Acquire)
    }

    /// The newest commit applied (the writer's view).
    pub fn applied_seq(&self) -> CommitSeq {
        self.applied_seq.load(Ordering::Acquire)
    }

    /// A read view at `seq`. The caller checks `seq <= published_seq()` (or, for the
    /// writer, `applied_seq()`).
    pub fn snapshot_at(&self, seq: CommitSeq) -> Snapshot {
        let segments = self.segments.read().clone();
        Snapshot::new(self.dict.clone(), segments, seq)
    }

    /// A transaction over the applied head, for the writer to compute a commit's changes.
    pub fn begin(&self) -> Transaction {
        Transaction::new(self.snapshot_at(self.applied_seq()))
    }

    /// Applies a commit's changes. `inserts` must not be present and `deletes` must be
    /// present at the applied head (a `Transaction` guarantees both).
    pub fn apply(&self, seq: CommitSeq, inserts: &[QuadKey], deletes: &[QuadKey]) {
        self.apply_prepared(seq, PreparedInserts::new(seq, inserts), deletes);
    }

    /// Like `apply`, with the inserts' indexes built beforehand (possibly on another
    /// thread while the log record is being encoded).
    pub fn apply_prepared(&self, seq: CommitSeq, inserts: PreparedInserts, deletes: &[QuadKey]) {
        debug_assert!(seq > self.applied_seq());
        debug_assert_eq!(inserts.seq, seq);
        let current = self.segments.read().clone();
        for key in deletes {
            if let Some(entry) = current.iter().rev().find_map(|s| s.find_live(key)) {
                entry.mark_removed(seq);
            }
        }
        if let Some(segment) = inserts.segment {
            let mut segments: Vec<Arc<Segment>> = current.as_ref().clone();
            segments.push(Arc::new(segment));
            // Keep sizes geometric: merge while the newest run is at least half the size
            // of the one before it, so there are O(log n) segments to probe.
            while segments.len() >= 2 {
                let last = &segments[segments.len() - 1];
                let previous = &segments[segments.len() - 2];
                if last.len() * 2 < previous.len() {
                    break;
                }
                let merged = Segment::merge(previous, last);
                segments.truncate(segments.len() - 2);
                segments.push(Arc::new(merged));
            }
            *self.segments.write() = Arc::new(segments);
        }
        self.applied_seq.store(seq, Ordering::Release);
    }

    /// Makes commits up to `seq` visible to readers (after they are durable).
    pub fn publish(&self, seq: CommitSeq) {
        self.published_seq.fetch_max(seq, Ordering::AcqRel);
    }

    /// Number of quad versions held (for statistics).
    pub fn n_versions(&self) -> usize {
        self.segments.read().iter().map(|s| s.len()).sum()
    }

    /// Rebuilds a store from checkpointed versions, at `seq`.
    pub(crate) fn from_versions(
        dict: Dict,
        versions: Vec<(QuadKey, CommitSeq, CommitSeq)>,
        seq: CommitSeq,
    ) -> Self {
        let entries = versions
            .into_iter()
            .map(|(key, added, removed)| Entry::new(key, added, removed))
            .collect();
        Self {
            dict: Arc::new(dict),
            segments: RwLock::new(Arc::new(vec![Arc::new(Segment::build(entries))])),
            applied_seq: AtomicU64::new(seq),
            published_seq: AtomicU64::new(seq),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys_at(store: &Store, seq: CommitSeq) -> Vec<QuadKey> {
        let snapshot = store.snapshot_at(seq);
        let mut keys: Vec<_> = snapshot
            .quads(Pattern {
                subject: None,
                predicate: None,
                object: None,
                graph: GraphFilter::All,
            })
            .collect();
        keys.sort();
        keys
    }

    #[test]
    fn reads_at_each_commit_see_exactly_that_commit() {
        let store = Store::default();
        store.apply(1, &[[1, 2, 3, 0], [4, 5, 6, 0]], &[]);
        store.apply(2, &[[7, 8, 9, 0]], &[[1, 2, 3, 0]]);
        store.apply(3, &[[1, 2, 3, 0]], &[]);
        store.publish(3);
        assert_eq!(keys_at(&store, 0), Vec::<QuadKey>::new());
        assert_eq!(keys_at(&store, 1), vec![[1, 2, 3, 0], [4, 5, 6, 0]]);
        assert_eq!(keys_at(&store, 2), vec![[4, 5, 6, 0], [7, 8, 9, 0]]);
        assert_eq!(
            keys_at(&store, 3),
            vec![[1, 2, 3, 0], [4, 5, 6, 0], [7, 8, 9, 0]]
        );
    }

    #[test]
    fn many_small_commits_stay_in_few_segments() {
        let store = Store::default();
        for seq in 1..=1000u64 {
            let id = seq as u32;
            store.apply(seq, &[[id, 1, 1, 0]], &[]);
        }
        assert!(store.segments.read().len() <= 12);
        assert_eq!(keys_at(&store, 1000).len(), 1000);
        assert_eq!(keys_at(&store, 10).len(), 10);
    }

    #[test]
    fn a_snapshot_ignores_later_commits() {
        let store = Store::default();
        store.apply(1, &[[1, 1, 1, 0]], &[]);
        store.publish(1);
        let before = store.snapshot_at(1);
        store.apply(2, &[[2, 2, 2, 0]], &[[1, 1, 1, 0]]);
        store.publish(2);
        let all = Pattern {
            subject: None,
            predicate: None,
            object: None,
            graph: GraphFilter::All,
        };
        assert_eq!(before.quads(all).collect::<Vec<_>>(), vec![[1, 1, 1, 0]]);
    }
}
