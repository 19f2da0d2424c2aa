//! `Snapshot`: the store as of one commit, cheap to clone and safe to hold while the
//! writer goes on.

use std::sync::Arc;

use rustc_hash::FxHashSet;

use super::dict::{DEFAULT_GRAPH, Dict, TermId};
use super::segment::{self, Pattern, PlainScan, QuadKey, QuadScan, Segment, SegmentScan};
use crate::model::{CommitSeq, NamedNode, Term, Triple};

/// The store as of one commit, optionally with a transaction's uncommitted changes on top.
#[derive(Clone)]
pub struct Snapshot {
    dict: Arc<Dict>,
    segments: Arc<Vec<Arc<Segment>>>,
    seq: CommitSeq,
    /// Ids at or above this were interned after the snapshot was taken. Treating them as
    /// unknown keeps term equality stable for the snapshot's whole life: a term seen as
    /// "not in the store" stays so even if a writer interns it meanwhile.
    dict_len: TermId,
    overlay: Option<Arc<Overlay>>,
}

/// Uncommitted changes of a transaction: `inserted` quads are absent from the base
/// snapshot, `deleted` quads are present in it.
#[derive(Clone, Default)]
pub(crate) struct Overlay {
    pub inserted: FxHashSet<QuadKey>,
    pub deleted: FxHashSet<QuadKey>,
}

impl Snapshot {
    pub(crate) fn new(dict: Arc<Dict>, segments: Arc<Vec<Arc<Segment>>>, seq: CommitSeq) -> Self {
        let dict_len = dict.len() + 1;
        Self {
            dict,
            segments,
            seq,
            dict_len,
            overlay: None,
        }
    }

    /// The uncommitted changes this snapshot carries, if any.
    pub(crate) fn overlay(&self) -> Option<Arc<Overlay>> {
        self.overlay.clone()
    }

    pub(crate) fn with_overlay(&self, overlay: Arc<Overlay>) -> Self {
        Self {
            dict_len: self.dict.len() + 1,
            overlay: Some(overlay),
            ..self.clone()
        }
    }

    /// Why a file this snapshot reads is damaged, once a check of one failed (see
    /// `file.rs`): a read that saw damaged bytes must not answer. One load while no file
    /// of the process is damaged.
    pub fn damage(&self) -> Option<String> {
        if !super::file::any_damage() {
            return None;
        }
        self.segments
            .iter()
            .find_map(|s| s.mapped().and_then(|f| f.damage()).map(str::to_owned))
            .or_else(|| self.dict.damage())
    }

    /// The commit this snapshot reads.
    pub fn seq(&self) -> CommitSeq {
        self.seq
    }

    /// The id of a term if the snapshot knows it.
    pub fn lookup(&self, term: &Term) -> Option<TermId> {
        self.dict.lookup(term).filter(|&id| id < self.dict_len)
    }

    /// The term of an id. `None` for the default graph or an id from another store.
    pub fn term(&self, id: TermId) -> Option<Term> {
        if id == DEFAULT_GRAPH {
            return None;
        }
        self.dict.term(id)
    }

    /// The kind of the term of an id, without decoding it.
    pub fn kind(&self, id: TermId) -> Option<crate::store::TermKind> {
        if id == DEFAULT_GRAPH {
            return None;
        }
        self.dict.kind(id)
    }

    /// The triples of one named graph (empty when it holds none).
    pub fn graph_triples(&self, graph: &NamedNode) -> Vec<Triple> {
        let Some(id) = self.lookup(&Term::NamedNode(graph.clone())) else {
            return Vec::new();
        };
        let dict = self.dict();
        self.quads(Pattern {
            subject: None,
            predicate: None,
            object: None,
            graph: super::GraphFilter::Is(id),
        })
        .filter_map(|k| dict.quad(&k))
        .map(Triple::from)
        .collect()
    }

    /// The dictionary (shared with the store).
    pub fn dict(&self) -> &Arc<Dict> {
        &self.dict
    }

    /// Quads matching a pattern, visible at this snapshot. The iterator owns what it reads.
    pub fn quads(&self, pattern: Pattern) -> Box<dyn Iterator<Item = QuadKey> + Send> {
        let base = SegmentScan::new(self.segments.clone(), pattern, self.seq);
        match &self.overlay {
            None => Box::new(base),
            Some(overlay) => {
                let overlay = overlay.clone();
                let inserted: Vec<QuadKey> = overlay
                    .inserted
                    .iter()
                    .filter(|k| pattern.matches(k))
                    .copied()
                    .collect();
                Box::new(
                    base.filter(move |k| !overlay.deleted.contains(k))
                        .chain(inserted),
                )
            }
        }
    }

    /// `quads(pattern)` in at most `n` consecutive parts of about equal index ranges,
    /// each readable on its own thread; read one after the other they give what
    /// `quads(pattern)` gives, in its order. One part when the snapshot carries a
    /// transaction's overlay.
    pub fn quads_split(&self, pattern: Pattern, n: usize) -> Vec<Box<dyn QuadScan>> {
        if self.overlay.is_some() {
            return vec![Box::new(PlainScan(self.quads(pattern)))];
        }
        SegmentScan::split(self.segments.clone(), pattern, self.seq, n.max(1))
            .into_iter()
            .map(|part| Box::new(part) as Box<dyn QuadScan>)
            .collect()
    }

    /// How many quads `pattern` matches, per distinct id at position `group` (0 subject,
    /// 1 predicate, 2 object) or in all (`None`, as id 0), from index range sizes
    /// (`segment::range_counts`); `None` when they cannot say it exactly (a version not
    /// visible here in a range, a transaction's overlay): scan instead.
    pub fn range_counts(
        &self,
        pattern: Pattern,
        group: Option<usize>,
    ) -> Option<Vec<(TermId, u64)>> {
        if self.overlay.is_some() {
            return None;
        }
        segment::range_counts(&self.segments, pattern, group, self.seq)
    }

    /// An upper bound of the quads `pattern` matches, by binary search only (see
    /// `segment::range_size`; the commit's own overlay counted whole): cheap enough to
    /// choose a join order with.
    pub fn range_size(&self, pattern: Pattern) -> usize {
        super::segment::range_size(&self.segments, pattern)
            + self.overlay.as_ref().map_or(0, |o| o.inserted.len())
    }

    /// True when the quad is visible in this snapshot.
    pub fn contains(&self, key: &QuadKey) -> bool {
        if let Some(overlay) = &self.overlay {
            if overlay.inserted.contains(key) {
                return true;
            }
            if overlay.deleted.contains(key) {
                return false;
            }
        }
        self.segments.iter().any(|s| s.contains_at(key, self.seq))
    }

    /// True when the quad is visible in this snapshot.
    pub fn contains_quad(&self, quad: &crate::model::Quad) -> bool {
        self.dict()
            .lookup_quad(quad)
            .is_some_and(|key| self.contains(&key))
    }

    /// Quads matching a pattern of terms (`None` matches anything), in any graph.
    pub fn quads_matching(
        &self,
        subject: Option<&Term>,
        predicate: Option<&Term>,
        object: Option<&Term>,
    ) -> Vec<crate::model::Quad> {
        let mut ids = [None; 3];
        for (slot, term) in ids.iter_mut().zip([subject, predicate, object]) {
            if let Some(term) = term {
                match self.lookup(term) {
                    Some(id) => *slot = Some(id),
                    None => return Vec::new(),
                }
            }
        }
        self.quads(Pattern {
            subject: ids[0],
            predicate: ids[1],
            object: ids[2],
            graph: segment::GraphFilter::All,
        })
        .filter_map(|key| self.dict().quad(&key))
        .collect()
    }

    /// Every quad whose subject or object is `term` (in any graph), each once.
    pub fn quads_mentioning(&self, term: &Term) -> Vec<crate::model::Quad> {
        let Some(id) = self.lookup(term) else {
            return Vec::new();
        };
        let pattern = |subject, object| Pattern {
            subject,
            predicate: None,
            object,
            graph: segment::GraphFilter::All,
        };
        let mut keys: Vec<QuadKey> = self
            .quads(pattern(Some(id), None))
            .chain(self.quads(pattern(None, Some(id))))
            .collect();
        keys.sort_unstable();
        keys.dedup();
        keys.iter().filter_map(|k| self.dict().quad(k)).collect()
    }

    /// Every version of the quads matching `pattern` added at or before this snapshot,
    /// with `(added, removed)`; removals after the snapshot show as `None`.
    pub fn history(&self, pattern: Pattern) -> Vec<(QuadKey, CommitSeq, Option<CommitSeq>)> {
        segment::history(&self.segments, pattern)
            .into_iter()
            .filter(|(_, added, _)| *added <= self.seq)
            .map(|(key, added, removed)| (key, added, (removed <= self.seq).then_some(removed)))
            .collect()
    }

    /// Named graphs (ids) holding at least one visible quad.
    pub fn named_graphs(&self) -> Vec<TermId> {
        let mut graphs = segment::named_graphs(&self.segments, self.seq);
        if let Some(overlay) = &self.overlay {
            graphs.retain(|&g| {
                self.quads(Pattern {
                    subject: None,
                    predicate: None,
                    object: None,
                    graph: segment::GraphFilter::Is(g),
                })
                .next()
                .is_some()
            });
            graphs.extend(
                overlay
                    .inserted
                    .iter()
                    .map(|k| k[3])
                    .filter(|&g| g != DEFAULT_GRAPH),
            );
            graphs.sort_unstable();
            graphs.dedup();
        }
        graphs
    }

    /// Quads that differ between two snapshots of the same store, by scanning versions:
    /// `(added in other, removed in other)` relative to `self`.
    pub fn diff(&self, other: &Snapshot) -> (Vec<QuadKey>, Vec<QuadKey>) {
        let (a, b) = (self.seq, other.seq);
        let mut added = Vec::new();
        let mut removed = Vec::new();
        for segment in self.segments.iter() {
            for entry in segment.entries() {
                let in_a = segment.visible(entry, a);
                let in_b = segment.visible(entry, b);
                if in_b && !in_a {
                    added.push(entry.key);
                } else if in_a && !in_b {
                    removed.push(entry.key);
                }
            }
        }
        // A quad removed and re-added between the two commits shows up in both lists.
        let added_set: FxHashSet<QuadKey> = added.iter().copied().collect();
        let removed_set: FxHashSet<QuadKey> = removed.iter().copied().collect();
        added.retain(|k| !removed_set.contains(k));
        removed.retain(|k| !added_set.contains(k));
        added.sort_unstable();
        removed.sort_unstable();
        (added, removed)
    }
}
