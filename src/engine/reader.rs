//! `GraphReader`: one graph read at one commit. The reads of one request go through one
//! reader, so they all see the same commit, through one snapshot (one set of maps).

use crate::model::{CommitSeq, Quad, Term};
use crate::search::Declaration;
use crate::store::{GraphFilter, Pattern, Snapshot};

use super::graph::Graph;

/// A graph at one commit, with the reads of its data.
pub struct GraphReader<'g> {
    pub(super) graph: &'g Graph,
    pub(super) seq: CommitSeq,
    pub(super) snapshot: Snapshot,
}

impl Graph {
    /// A reader at the head.
    pub fn read(&self) -> GraphReader<'_> {
        self.read_at(self.head_seq())
    }

    /// A reader at `seq` (at most the head: readers never see an unpublished commit).
    pub fn read_at(&self, seq: CommitSeq) -> GraphReader<'_> {
        let seq = seq.min(self.head_seq());
        GraphReader {
            graph: self,
            seq,
            snapshot: self.snapshot(seq),
        }
    }
}

impl GraphReader<'_> {
    /// The commit read.
    pub fn seq(&self) -> CommitSeq {
        self.seq
    }

    /// The graph read.
    pub fn graph(&self) -> &Graph {
        self.graph
    }

    pub fn snapshot(&self) -> &Snapshot {
        &self.snapshot
    }

    /// Quads matching a pattern (`None` matches anything), in any graph.
    pub fn quads_matching(
        &self,
        subject: Option<&Term>,
        predicate: Option<&Term>,
        object: Option<&Term>,
    ) -> Vec<Quad> {
        self.snapshot.quads_matching(subject, predicate, object)
    }

    /// Every quad whose subject or object is `term` (in any graph).
    pub fn quads_mentioning(&self, term: &Term) -> Vec<Quad> {
        self.snapshot.quads_mentioning(term)
    }

    /// The history up to this commit of the quads whose subject or object is `term`: each
    /// version with the commit that added it and the commit that removed it (if any).
    pub fn history_of(&self, term: &Term) -> Vec<(Quad, CommitSeq, Option<CommitSeq>)> {
        let snapshot = &self.snapshot;
        let Some(id) = snapshot.lookup(term) else {
            return Vec::new();
        };
        let pattern = |subject, object| Pattern {
            subject,
            predicate: None,
            object,
            graph: GraphFilter::All,
        };
        let mut versions = snapshot.history(pattern(Some(id), None));
        versions.extend(snapshot.history(pattern(None, Some(id))));
        versions.sort_by_key(|(key, added, _)| (*added, *key));
        versions.dedup();
        versions
            .into_iter()
            .filter_map(|(key, added, removed)| Some((snapshot.dict().quad(&key)?, added, removed)))
            .collect()
    }

    /// Number of quads visible.
    pub fn count_quads(&self) -> u64 {
        self.snapshot
            .quads(Pattern {
                subject: None,
                predicate: None,
                object: None,
                graph: GraphFilter::All,
            })
            .count() as u64
    }

    /// The search declarations in force.
    pub fn declarations(&self) -> Vec<Declaration> {
        super::search::declarations_in(&self.snapshot)
    }

    /// Searches one index or all, per the request's plan; hits must exist at this commit.
    pub fn search(
        &self,
        request: &super::SearchRequest,
    ) -> Result<super::SearchOutcome, super::EngineError> {
        self.graph
            .search
            .search(self.graph, &self.snapshot, request)
    }

    /// The text a declaration makes for some of its records here (no model call).
    pub fn preview_texts(&self, declaration: &Declaration, limit: usize) -> Vec<(String, String)> {
        super::search::preview_texts(&self.snapshot, declaration, limit)
    }

    /// The shapes in force here (their mode included), if any.
    pub fn shapes(&self) -> Result<Option<super::ActiveShapes>, super::EngineError> {
        super::validation::shapes_in(&self.snapshot)
    }

    /// Validates the data here against `shapes` (any shapes: published or not).
    pub fn validate(
        &self,
        shapes: &crate::shacl::Shapes,
    ) -> Result<crate::shacl::Report, super::EngineError> {
        super::validation::validate(&self.snapshot, shapes)
    }

    /// Waits until every search index reflects this commit (or `timeout` passes):
    /// `consistency: strong`.
    pub fn wait_for_indexes(&self, timeout: std::time::Duration) -> bool {
        self.graph.search.wait_for(&self.snapshot, timeout)
    }
}
