//! Immutable sorted runs of versioned quads, with four orderings each.
//!
//! A `Segment` is built once from a batch of quads (a commit, or a merge of two segments)
//! and never changes shape afterwards. The only mutable field is an entry's `removed`
//! commit, set once by the single writer when the quad is deleted. Readers pinned at a
//! commit before that value ignore it, which is what lets readers and the writer share
//! segments without locks.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::dict::{DEFAULT_GRAPH, TermId};
use crate::model::CommitSeq;

/// `removed` of a quad that is still present.
pub(crate) const LIVE: CommitSeq = CommitSeq::MAX;

/// A quad's term ids in subject, predicate, object, graph order.
pub type QuadKey = [TermId; 4];

/// One version of a quad: present for commits `added..removed`.
pub(crate) struct Entry {
    pub key: QuadKey,
    pub added: CommitSeq,
    removed: AtomicU64,
}

impl Entry {
    pub fn new(key: QuadKey, added: CommitSeq, removed: CommitSeq) -> Self {
        Self {
            key,
            added,
            removed: AtomicU64::new(removed),
        }
    }

    pub fn removed(&self) -> CommitSeq {
        self.removed.load(Ordering::Acquire)
    }

    /// True when this version of the quad is visible to a reader at `seq`.
    #[inline]
    pub fn visible_at(&self, seq: CommitSeq) -> bool {
        self.added <= seq && seq < self.removed()
    }

    pub fn mark_removed(&self, seq: CommitSeq) {
        self.removed.store(seq, Ordering::Release);
    }
}

/// The orderings a segment is sorted by. `Spog` is the order of `entries` itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Order {
    Spog,
    Posg,
    Ospg,
    Gspo,
}

impl Order {
    const ALL: [Order; 4] = [Order::Spog, Order::Posg, Order::Ospg, Order::Gspo];

    /// Positions (into a `QuadKey`) in this ordering's sort order.
    const fn positions(self) -> [usize; 4] {
        match self {
            Order::Spog => [0, 1, 2, 3],
            Order::Posg => [1, 2, 0, 3],
            Order::Ospg => [2, 0, 1, 3],
            Order::Gspo => [3, 0, 1, 2],
        }
    }

    #[inline]
    fn permute(self, key: &QuadKey) -> QuadKey {
        let p = self.positions();
        [key[p[0]], key[p[1]], key[p[2]], key[p[3]]]
    }
}

/// Which positions of a quad pattern are fixed, and how graphs are restricted.
#[derive(Clone, Copy, Debug)]
pub struct Pattern {
    pub subject: Option<TermId>,
    pub predicate: Option<TermId>,
    pub object: Option<TermId>,
    pub graph: GraphFilter,
}

/// The graph restriction of a pattern, as spareval asks for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GraphFilter {
    /// Any graph, default included (used by the store's own scans).
    All,
    /// Any named graph, not the default graph.
    AnyNamed,
    /// Exactly this graph (`DEFAULT_GRAPH` for the default graph).
    Is(TermId),
}

impl Pattern {
    fn bound(&self) -> [Option<TermId>; 4] {
        let graph = match self.graph {
            GraphFilter::Is(g) => Some(g),
            _ => None,
        };
        [self.subject, self.predicate, self.object, graph]
    }

    #[inline]
    pub fn matches(&self, key: &QuadKey) -> bool {
        self.subject.is_none_or(|s| s == key[0])
            && self.predicate.is_none_or(|p| p == key[1])
            && self.object.is_none_or(|o| o == key[2])
            && match self.graph {
                GraphFilter::All => true,
                GraphFilter::AnyNamed => key[3] != DEFAULT_GRAPH,
                GraphFilter::Is(g) => key[3] == g,
            }
    }

    /// The ordering with the longest bound prefix, and that prefix (permuted, with its
    /// length). No allocation: this runs once per lookup of every nested-loop join.
    fn plan(&self) -> (Order, [TermId; 4], usize) {
        let bound = self.bound();
        let mut best = (Order::Spog, [0; 4], 0);
        for order in Order::ALL {
            let mut prefix = [0; 4];
            let mut len = 0;
            for &pos in &order.positions() {
                let Some(id) = bound[pos] else { break };
                prefix[len] = id;
                len += 1;
            }
            if len > best.2 {
                best = (order, prefix, len);
            }
        }
        best
    }
}

/// A sorted run of entries with three extra orderings (indexes into `entries`).
pub(crate) struct Segment {
    /// Sorted by (s, p, o, g, added).
    entries: Vec<Entry>,
    posg: Vec<u32>,
    ospg: Vec<u32>,
    gspo: Vec<u32>,
}

impl Segment {
    /// Builds a segment from entries in any order.
    pub fn build(mut entries: Vec<Entry>) -> Self {
        entries.sort_by_key(|e| (e.key, e.added));
        let posg = sorted_permutation(&entries, Order::Posg);
        let ospg = sorted_permutation(&entries, Order::Ospg);
        let gspo = sorted_permutation(&entries, Order::Gspo);
        Self {
            entries,
            posg,
            ospg,
            gspo,
        }
    }

    /// Merges two segments into one, copying every entry with its current `removed`.
    pub fn merge(a: &Segment, b: &Segment) -> Self {
        let entries: Vec<Entry> = a
            .entries
            .iter()
            .chain(&b.entries)
            .map(|e| Entry::new(e.key, e.added, e.removed()))
            .collect();
        // Sorting merged runs is close to linear: the sort detects the two runs.
        Self::build(entries)
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    fn permutation(&self, order: Order) -> Option<&[u32]> {
        match order {
            Order::Spog => None,
            Order::Posg => Some(&self.posg),
            Order::Ospg => Some(&self.ospg),
            Order::Gspo => Some(&self.gspo),
        }
    }

    /// The entry that holds `key` as present at the writer's head, if any.
    pub fn find_live(&self, key: &QuadKey) -> Option<&Entry> {
        let start = self.entries.partition_point(|e| e.key < *key);
        self.entries[start..]
            .iter()
            .take_while(|e| e.key == *key)
            .find(|e| e.removed() == LIVE)
    }

    /// True when a version of `key` is visible at `seq`.
    pub fn contains_at(&self, key: &QuadKey, seq: CommitSeq) -> bool {
        let start = self.entries.partition_point(|e| e.key < *key);
        self.entries[start..]
            .iter()
            .take_while(|e| e.key == *key)
            .any(|e| e.visible_at(seq))
    }

    /// Index range `[start, end)` in `order` whose permuted keys start with `prefix`.
    fn range(&self, order: Order, prefix: &[TermId]) -> (usize, usize) {
        let key_at = |idx: usize| -> QuadKey {
            match self.permutation(order) {
                None => self.entries[idx].key,
                Some(perm) => order.permute(&self.entries[perm[idx] as usize].key),
            }
        };
        let n = prefix.len();
        let len = self.entries.len();
        let start = partition_point(len, |idx| key_at(idx)[..n] < *prefix);
        let end = partition_point(len, |idx| key_at(idx)[..n] <= *prefix);
        (start, end.max(start))
    }
}

/// Iterates the entries of several segments that match a pattern and are visible at a
/// commit. Owns its segments so it can outlive the snapshot that created it.
pub(crate) struct SegmentScan {
    segments: Arc<Vec<Arc<Segment>>>,
    pattern: Pattern,
    order: Order,
    prefix: [TermId; 4],
    prefix_len: usize,
    seq: CommitSeq,
    segment_idx: usize,
    pos: usize,
    end: usize,
}

impl SegmentScan {
    pub fn new(segments: Arc<Vec<Arc<Segment>>>, pattern: Pattern, seq: CommitSeq) -> Self {
        let (order, prefix, prefix_len) = pattern.plan();
        let mut scan = Self {
            segments,
            pattern,
            order,
            prefix,
            prefix_len,
            seq,
            segment_idx: 0,
            pos: 0,
            end: 0,
        };
        scan.enter_segment();
        scan
    }

    fn enter_segment(&mut self) {
        if let Some(segment) = self.segments.get(self.segment_idx) {
            let (start, end) = segment.range(self.order, &self.prefix[..self.prefix_len]);
            self.pos = start;
            self.end = end;
        }
    }
}

impl Iterator for SegmentScan {
    type Item = QuadKey;

    fn next(&mut self) -> Option<QuadKey> {
        loop {
            let segment = self.segments.get(self.segment_idx)?;
            while self.pos < self.end {
                let idx = match segment.permutation(self.order) {
                    None => self.pos,
                    Some(perm) => perm[self.pos] as usize,
                };
                self.pos += 1;
                let entry = &segment.entries[idx];
                if entry.visible_at(self.seq) && self.pattern.matches(&entry.key) {
                    return Some(entry.key);
                }
            }
            self.segment_idx += 1;
            self.enter_segment();
        }
    }
}

/// Every version (visible or not) of the quads matching a pattern, with its
/// `(added, removed)` commits: the history of those quads.
pub(crate) fn history(
    segments: &[Arc<Segment>],
    pattern: Pattern,
) -> Vec<(QuadKey, CommitSeq, CommitSeq)> {
    let (order, prefix, prefix_len) = pattern.plan();
    let mut out = Vec::new();
    for segment in segments {
        let (start, end) = segment.range(order, &prefix[..prefix_len]);
        for pos in start..end {
            let idx = match segment.permutation(order) {
                None => pos,
                Some(perm) => perm[pos] as usize,
            };
            let entry = &segment.entries[idx];
            if pattern.matches(&entry.key) {
                out.push((entry.key, entry.added, entry.removed()));
            }
        }
    }
    out.sort_by_key(|(key, added, _)| (*added, *key));
    out
}

/// Distinct graph ids (default graph excluded) with a quad visible at `seq`.
pub(crate) fn named_graphs(segments: &[Arc<Segment>], seq: CommitSeq) -> Vec<TermId> {
    let mut graphs = Vec::new();
    for segment in segments {
        let gspo = &segment.gspo;
        let mut pos = 0;
        while pos < gspo.len() {
            let graph = segment.entries[gspo[pos] as usize].key[3];
            let (_, end) = segment.range(Order::Gspo, &[graph]);
            if graph != DEFAULT_GRAPH
                && gspo[pos..end]
                    .iter()
                    .any(|&i| segment.entries[i as usize].visible_at(seq))
            {
                graphs.push(graph);
            }
            pos = end.max(pos + 1);
        }
    }
    graphs.sort_unstable();
    graphs.dedup();
    graphs
}

fn sorted_permutation(entries: &[Entry], order: Order) -> Vec<u32> {
    let mut perm: Vec<u32> = (0..entries.len() as u32).collect();
    perm.sort_unstable_by_key(|&i| {
        let e = &entries[i as usize];
        (order.permute(&e.key), e.added)
    });
    perm
}

fn partition_point(len: usize, mut pred: impl FnMut(usize) -> bool) -> usize {
    let (mut low, mut high) = (0, len);
    while low < high {
        let mid = low + (high - low) / 2;
        if pred(mid) {
            low = mid + 1;
        } else {
            high = mid;
        }
    }
    low
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(segments: &[Vec<(QuadKey, u64, u64)>], pattern: Pattern, seq: u64) -> Vec<QuadKey> {
        let segments = Arc::new(
            segments
                .iter()
                .map(|entries| {
                    Arc::new(Segment::build(
                        entries
                            .iter()
                            .map(|&(k, a, r)| Entry::new(k, a, r))
                            .collect(),
                    ))
                })
                .collect(),
        );
        let mut out: Vec<_> = SegmentScan::new(segments, pattern, seq).collect();
        out.sort();
        out
    }

    fn pattern(s: Option<u32>, p: Option<u32>, o: Option<u32>, graph: GraphFilter) -> Pattern {
        Pattern {
            subject: s,
            predicate: p,
            object: o,
            graph,
        }
    }

    #[test]
    fn every_pattern_shape_finds_the_same_quads_as_a_filter() {
        let mut entries = Vec::new();
        for s in 1..4 {
            for p in 4..6 {
                for o in 1..4 {
                    for g in [0, 7] {
                        entries.push(([s, p, o, g], 1 + u64::from(s), LIVE));
                    }
                }
            }
        }
        let (left, right) = entries.split_at(20);
        let all: Vec<QuadKey> = entries.iter().map(|e| e.0).collect();
        for s in [None, Some(2)] {
            for p in [None, Some(5)] {
                for o in [None, Some(3)] {
                    for graph in [GraphFilter::All, GraphFilter::AnyNamed, GraphFilter::Is(0)] {
                        let pattern = pattern(s, p, o, graph);
                        let found = scan(&[left.to_vec(), right.to_vec()], pattern, 3);
                        let mut expected: Vec<QuadKey> = all
                            .iter()
                            .filter(|k| pattern.matches(k) && k[0] < 3)
                            .copied()
                            .collect();
                        expected.sort();
                        assert_eq!(found, expected, "{pattern:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn versions_are_visible_only_in_their_range() {
        let segments = vec![vec![([1, 2, 3, 0], 2, 4), ([1, 2, 3, 0], 6, LIVE)]];
        let any = pattern(Some(1), None, None, GraphFilter::Is(0));
        assert!(scan(&segments, any, 1).is_empty());
        assert_eq!(scan(&segments, any, 2).len(), 1);
        assert_eq!(scan(&segments, any, 3).len(), 1);
        assert!(scan(&segments, any, 4).is_empty());
        assert!(scan(&segments, any, 5).is_empty());
        assert_eq!(scan(&segments, any, 6).len(), 1);
    }

    #[test]
    fn named_graphs_lists_visible_graphs_only() {
        let segment = Arc::new(Segment::build(vec![
            Entry::new([1, 2, 3, 0], 1, LIVE),
            Entry::new([1, 2, 3, 8], 1, 2),
            Entry::new([1, 2, 3, 9], 1, LIVE),
        ]));
        assert_eq!(named_graphs(std::slice::from_ref(&segment), 1), vec![8, 9]);
        assert_eq!(named_graphs(&[segment], 2), vec![9]);
    }
}
