//! `Transaction`: the changes a commit will make, computed against the applied head
//! before anything is written.

use std::sync::Arc;

use super::dict::TermId;
use super::segment::QuadKey;
use super::snapshot::{Overlay, Snapshot};
use crate::model::Term;

/// Accumulates inserts and deletes. Only actual changes are kept: inserting a present
/// quad or deleting an absent one does nothing, and a delete after an insert of the same
/// quad cancels it.
pub struct Transaction {
    /// What the changes are computed against: the applied head, plus the changes of
    /// commits still in flight when there are some (`on_unapplied`).
    base: Snapshot,
    /// With commits in flight: the applied head alone, and the number of the last commit
    /// in flight (what this transaction's commit follows).
    applied: Option<(Snapshot, crate::model::CommitSeq)>,
    overlay: Overlay,
    /// Inserts of a bulk load, sorted, absent from the base, disjoint from `overlay`.
    /// Kept as a vector so a million-quad import skips the hash set entirely; moved into
    /// `overlay` as soon as anything else touches the transaction.
    bulk: Vec<QuadKey>,
}

impl Transaction {
    pub(crate) fn new(base: Snapshot) -> Self {
        Self {
            base,
            applied: None,
            overlay: Overlay::default(),
            bulk: Vec::new(),
        }
    }

    /// A transaction on top of commits built but not yet applied (`unapplied`, the last
    /// of them commit `last`), over `applied`, the applied head.
    pub(crate) fn on_unapplied(
        applied: Snapshot,
        unapplied: &Unapplied,
        last: crate::model::CommitSeq,
    ) -> Self {
        Self {
            base: applied.with_overlay(unapplied.0.clone()),
            applied: Some((applied, last)),
            overlay: Overlay::default(),
            bulk: Vec::new(),
        }
    }

    /// The commit the changes are computed against.
    pub fn base_seq(&self) -> crate::model::CommitSeq {
        match &self.applied {
            Some((_, last)) => *last,
            None => self.base.seq(),
        }
    }

    /// The id of a term already known to the store.
    pub fn lookup(&self, term: &Term) -> Option<TermId> {
        self.base.dict().lookup(term)
    }

    /// Records an insert; returns true when it changes the graph.
    pub fn insert(&mut self, key: QuadKey) -> bool {
        self.spill_bulk();
        if self.overlay.deleted.remove(&key) {
            return true;
        }
        if self.overlay.inserted.contains(&key) || self.base.contains(&key) {
            return false;
        }
        self.overlay.inserted.insert(key)
    }

    /// Records a delete; returns true when it changes the graph.
    pub fn delete(&mut self, key: QuadKey) -> bool {
        self.spill_bulk();
        if self.overlay.inserted.remove(&key) {
            return true;
        }
        if self.overlay.deleted.contains(&key) || !self.base.contains(&key) {
            return false;
        }
        self.overlay.deleted.insert(key)
    }

    /// Records many inserts at once (bulk import): sorted and deduplicated first, so a
    /// large batch costs one ordered pass over the base.
    pub fn insert_all(&mut self, mut keys: Vec<QuadKey>) {
        keys.sort_unstable();
        keys.dedup();
        if self.is_empty() {
            keys.retain(|key| !self.base.contains(key));
            self.bulk = keys;
            return;
        }
        self.overlay.inserted.reserve(keys.len());
        for key in keys {
            self.insert(key);
        }
    }

    fn spill_bulk(&mut self) {
        if !self.bulk.is_empty() {
            self.overlay.inserted.extend(std::mem::take(&mut self.bulk));
        }
    }

    /// A read view of the base plus the changes so far (for multi-operation updates).
    pub fn snapshot(&mut self) -> Snapshot {
        self.spill_bulk();
        match &self.applied {
            None => self.base.with_overlay(Arc::new(self.overlay.clone())),
            Some((applied, _)) => {
                // One overlay over the applied head: the commits in flight, then these.
                let mut all = Unapplied(self.base.overlay().unwrap_or_default());
                all.push(&self.overlay.inserted, &self.overlay.deleted);
                applied.with_overlay(all.0)
            }
        }
    }

    /// The base snapshot without the changes.
    pub fn base(&self) -> &Snapshot {
        &self.base
    }

    /// The quads this transaction deletes so far.
    pub fn deleted(&self) -> impl Iterator<Item = &QuadKey> {
        self.overlay.deleted.iter()
    }

    /// Every quad this transaction inserts or deletes so far, in no order.
    pub fn changed(&self) -> impl Iterator<Item = &QuadKey> {
        self.bulk
            .iter()
            .chain(self.overlay.inserted.iter())
            .chain(self.overlay.deleted.iter())
    }

    /// True when nothing would change.
    pub fn is_empty(&self) -> bool {
        self.bulk.is_empty() && self.overlay.inserted.is_empty() && self.overlay.deleted.is_empty()
    }

    /// The net changes, sorted: `(inserts, deletes)`.
    pub fn into_changes(mut self) -> (Vec<QuadKey>, Vec<QuadKey>) {
        if self.overlay.inserted.is_empty() && self.overlay.deleted.is_empty() {
            return (std::mem::take(&mut self.bulk), Vec::new());
        }
        self.spill_bulk();
        let mut inserts: Vec<QuadKey> = self.overlay.inserted.into_iter().collect();
        let mut deletes: Vec<QuadKey> = self.overlay.deleted.into_iter().collect();
        inserts.sort_unstable();
        deletes.sort_unstable();
        (inserts, deletes)
    }
}

/// The changes of commits built one on top of the other but not yet applied to the store
/// (a cluster's commits awaiting the shared log's answer), relative to the applied head.
#[derive(Clone, Default)]
pub struct Unapplied(Arc<Overlay>);

impl Unapplied {
    /// Adds the changes of the next commit (`inserts` absent and `deletes` present after
    /// the commits already here).
    pub fn push<'a>(
        &mut self,
        inserts: impl IntoIterator<Item = &'a QuadKey>,
        deletes: impl IntoIterator<Item = &'a QuadKey>,
    ) {
        let all = Arc::make_mut(&mut self.0);
        for key in deletes {
            if !all.inserted.remove(key) {
                all.deleted.insert(*key);
            }
        }
        for key in inserts {
            if !all.deleted.remove(key) {
                all.inserted.insert(*key);
            }
        }
    }

    pub fn is_empty(&self) -> bool {
        self.0.inserted.is_empty() && self.0.deleted.is_empty()
    }
}
