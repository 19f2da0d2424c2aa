//! The read path: resolve which commit to read, take a snapshot, evaluate.
//!
//! Invariant I1: every read is served at exactly one commit and reports it.

use std::io::Write;

use oxrdfio::{RdfFormat, RdfSerializer};
use time::OffsetDateTime;

use super::error::EngineError;
use super::graph::{CommitInfo, Graph, decode_changes};
use super::reader::GraphReader;
use crate::log::format_time;
use crate::model::{CommitSeq, NamedNode, Quad};
use crate::search::sparql_patterns::{SearchCall, SearchReport};
use crate::search::{Candidates, SearchPlan};
use crate::sparql::{
    self, CancellationToken, Deadline, Query, QueryError, QueryEvaluationError, QueryGuard,
    QueryOptions, QueryResults,
};
use crate::store::{DEFAULT_GRAPH, GraphFilter, Pattern, QuadKey, Snapshot};

/// Which commit a read is at: `commit`, else the latest commit at or before `moment`,
/// else the head.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadAt {
    pub commit: Option<CommitSeq>,
    pub moment: Option<OffsetDateTime>,
}

impl ReadAt {
    /// The head.
    pub fn head() -> Self {
        Self::default()
    }

    /// Commit `seq`.
    pub fn commit(seq: CommitSeq) -> Self {
        Self {
            commit: Some(seq),
            moment: None,
        }
    }
}

/// How to evaluate a query (where is the reader's: `Graph::reader`, `Graph::read_at`).
#[derive(Clone, Default)]
pub struct ReadOptions {
    pub base_iri: Option<String>,
    pub default_graph_uris: Vec<NamedNode>,
    pub named_graph_uris: Vec<NamedNode>,
    /// Cancels the query from outside (a client that went away, an MCP cancellation).
    pub cancellation: Option<CancellationToken>,
    /// Remote endpoints `SERVICE` may call (exact IRIs); every other one is refused.
    pub allowed_services: Vec<NamedNode>,
    /// Overrides the engine's query timeout (`None`: the engine's).
    pub timeout: Option<std::time::Duration>,
    /// Never the batched path (`sparql::QueryOptions::row_at_a_time`): tests compare.
    pub row_at_a_time: bool,
    /// Threads this query may use, at most the engine's `QueryLimits::threads` (`None`:
    /// the engine's).
    pub threads: Option<usize>,
}

/// Lazy query results and the commit they are read at. Keep the answer (at least its
/// `control`) alive while iterating, on the thread that asked: it holds the query's
/// deadline, memory budget and heavy slot.
pub struct QueryAnswer {
    pub results: QueryResults<'static>,
    pub served_at_seq: CommitSeq,
    /// How each `search:` pattern was answered (empty when the query has none).
    pub search: Vec<SearchReport>,
    pub control: QueryControl,
}

/// What limits a running query: its deadline and its governor guard (memory, heavy
/// slot). It also tells why a query stopped.
pub struct QueryControl {
    deadline: Option<Deadline>,
    time_limit: Option<std::time::Duration>,
    guard: QueryGuard,
}

impl QueryControl {
    /// True when the time limit passed (and cancelled the query).
    pub fn timed_out(&self) -> bool {
        self.deadline.as_ref().is_some_and(Deadline::fired)
    }

    /// True when the query was stopped for exceeding its memory limit.
    pub fn out_of_memory(&self) -> bool {
        self.guard.out_of_memory()
    }

    /// The most memory the query held so far (its thread's allocations).
    pub fn peak_memory_bytes(&self) -> u64 {
        self.guard.peak_memory_bytes()
    }

    /// The error to report for `error`, which the evaluator returned while the results
    /// were read: a stop by a limit is reported as that limit, whatever the evaluator
    /// said.
    pub fn stop_error(&self, error: QueryEvaluationError) -> QueryError {
        self.explain(sparql::evaluation_error(error))
    }

    /// Replaces a cancellation caused by a limit with that limit's error.
    pub fn explain(&self, error: QueryError) -> QueryError {
        if self.out_of_memory() {
            QueryError::MemoryLimit(self.guard.memory_limit().unwrap_or_default())
        } else if self.timed_out() {
            QueryError::Timeout(self.time_limit.unwrap_or_default())
        } else {
            error
        }
    }
}

/// Quads that differ between two commits.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChangedQuads {
    pub added: Vec<Quad>,
    pub removed: Vec<Quad>,
}

impl Graph {
    /// The commit a read should use: `as_of`, else the latest at or before `as_of_time`,
    /// else the head.
    pub fn resolve_seq(
        &self,
        as_of: Option<CommitSeq>,
        as_of_time: Option<OffsetDateTime>,
    ) -> Result<CommitSeq, EngineError> {
        let head = self.head_seq();
        if let Some(seq) = as_of {
            // Commit 0 is the empty graph before the first commit: a head read on a new
            // graph reports it, so it can be pinned like any other.
            if seq > head {
                return Err(EngineError::CommitNotFound {
                    graph: self.name.to_string(),
                    requested: seq,
                    head,
                });
            }
            return Ok(seq);
        }
        if let Some(moment) = as_of_time {
            let commits = self.commits.read();
            let visible = &commits[..head as usize];
            let n_before = visible.partition_point(|c| c.header.committed_at <= moment);
            if n_before == 0 {
                return Err(EngineError::NoCommitAtTime {
                    graph: self.name.to_string(),
                    moment: format_time(moment),
                    first: visible.first().map(|c| format_time(c.header.committed_at)),
                });
            }
            return Ok(n_before as CommitSeq);
        }
        Ok(head)
    }

    /// A snapshot at a resolved commit.
    pub fn snapshot(&self, seq: CommitSeq) -> Snapshot {
        self.store.snapshot_at(seq.min(self.head_seq()))
    }

    /// A reader at the commit `at` names (refused when there is no such commit).
    pub fn reader(&self, at: ReadAt) -> Result<GraphReader<'_>, EngineError> {
        Ok(self.read_at(self.resolve_seq(at.commit, at.moment)?))
    }

    /// Commits, newest first, starting `offset` commits below the head.
    pub fn commits_newest_first(&self, offset: usize, limit: usize) -> Vec<CommitInfo> {
        let head = self.head_seq() as usize;
        let commits = self.commits.read();
        commits[..head]
            .iter()
            .rev()
            .skip(offset)
            .take(limit)
            .cloned()
            .collect()
    }

    /// One commit's metadata.
    pub fn commit_info(&self, seq: CommitSeq) -> Result<CommitInfo, EngineError> {
        self.resolve_seq(Some(seq), None)?;
        if seq == 0 {
            return Err(EngineError::CommitNotFound {
                graph: self.name.to_string(),
                requested: 0,
                head: self.head_seq(),
            });
        }
        Ok(self.commits.read()[seq as usize - 1].clone())
    }

    /// One commit's inserted and deleted quads, read back from the log.
    pub fn commit_changes(&self, seq: CommitSeq) -> Result<ChangedQuads, EngineError> {
        let info = self.commit_info(seq)?;
        let record = self.log.read_record(&info)?;
        let (inserts, deletes) = decode_changes(&self.store, &record)?;
        let snapshot = self.snapshot(seq);
        Ok(ChangedQuads {
            added: inserts
                .iter()
                .filter_map(|k| snapshot.dict().quad(k))
                .collect(),
            removed: deletes
                .iter()
                .filter_map(|k| snapshot.dict().quad(k))
                .collect(),
        })
    }

    /// A page of one commit's changes (inserted first, then deleted): how many quads it
    /// inserted and deleted, and the page's quads, decoded only for the page (a commit of
    /// millions of quads is paged without building them all).
    pub fn commit_changes_page(
        &self,
        seq: CommitSeq,
        offset: usize,
        limit: usize,
    ) -> Result<(usize, usize, ChangedQuads), EngineError> {
        let info = self.commit_info(seq)?;
        let record = self.log.read_record(&info)?;
        let (inserts, deletes) = decode_changes(&self.store, &record)?;
        let snapshot = self.snapshot(seq);
        let page = key_page(&inserts, &deletes, offset, limit, &snapshot, &snapshot);
        Ok((inserts.len(), deletes.len(), page))
    }

    /// Materializes quads from their keys (as returned by `preview_update`).
    pub fn quads_of(&self, keys: &[QuadKey]) -> Vec<Quad> {
        let dict = self.store.dict();
        keys.iter().filter_map(|k| dict.quad(k)).collect()
    }
}

impl GraphReader<'_> {
    /// Evaluates a SPARQL query at the reader's commit.
    pub fn query(
        &self,
        query_text: &str,
        options: &ReadOptions,
    ) -> Result<QueryAnswer, EngineError> {
        let query = sparql::parse_query(query_text, options.base_iri.as_deref())?;
        self.query_parsed(&query, options)
    }

    /// Evaluates an already parsed query (callers that inspect the query first, e.g. to
    /// negotiate a result format, parse it once).
    pub fn query_parsed(
        &self,
        query: &Query,
        options: &ReadOptions,
    ) -> Result<QueryAnswer, EngineError> {
        let (seq, snapshot) = (self.seq, &self.snapshot);
        let cancellation = options.cancellation.clone().unwrap_or_default();
        let time_limit = options.timeout.or(self.graph.query_timeout);
        let deadline = time_limit.map(|limit| Deadline::start(cancellation.clone(), limit));
        // From here on, this thread's allocations count against the query's memory
        // limit, and the evaluator's token runs the governor's check.
        let (guard, cancellation) = self.graph.governor.start(&cancellation);
        let control = QueryControl {
            deadline,
            time_limit,
            guard,
        };
        let query_options = QueryOptions {
            default_graph_uris: options.default_graph_uris.clone(),
            named_graph_uris: options.named_graph_uris.clone(),
            cancellation,
            allowed_services: options.allowed_services.clone(),
            row_at_a_time: options.row_at_a_time,
            threads: {
                let limit = self.graph.governor.limits().threads;
                options.threads.map_or(limit, |n| n.clamp(1, limit))
            },
        };
        let explain = |error: EngineError| match error {
            EngineError::Query(error) => EngineError::Query(control.explain(error)),
            other => other,
        };
        let mut search = Vec::new();
        let rewritten;
        let query = if crate::search::sparql_patterns::uses_search(query) {
            let mut copy = query.clone();
            crate::search::sparql_patterns::rewrite::<EngineError>(&mut copy, &mut |call| {
                let (hits, report) = self.answer_search_call(call, &query_options)?;
                search.push(report);
                Ok(hits)
            })
            .map_err(explain)?;
            rewritten = copy;
            &rewritten
        } else {
            query
        };
        let results = sparql::evaluate_query(snapshot, query, &query_options)
            .map_err(|e| explain(e.into()))?;
        Ok(QueryAnswer {
            results,
            served_at_seq: seq,
            search,
            control,
        })
    }

    /// Chooses the hits of one `search:` call: `nearest` when nothing else constrains
    /// the variable; `filter_first` (score the few records the other patterns allow,
    /// exactly) when they allow at most `EXACT_MAX_CANDIDATES`; else `search_first`
    /// (ask the index for more hits until `k` of them pass the other patterns, up to a
    /// cap).
    fn answer_search_call(
        &self,
        call: &SearchCall,
        options: &QueryOptions,
    ) -> Result<(Vec<(crate::model::Term, f32)>, SearchReport), EngineError> {
        let mentions = call.rest.iter().any(|t| {
            [&t.subject, &t.object].iter().any(
                |p| matches!(p, spargebra::term::TermPattern::Variable(v) if *v == call.subject),
            )
        });
        let mut request = super::SearchRequest {
            index: call.index.clone(),
            text: call.text.clone(),
            vector: None,
            lane: call.lane,
            k: call.k,
            min_score: call.min_score,
            candidates: None,
            strong: false,
        };
        let as_terms = |outcome: &super::SearchOutcome| -> Vec<(crate::model::Term, f32)> {
            outcome
                .hits
                .iter()
                .map(|h| {
                    (
                        crate::search::sparql_patterns::record_term(&h.hit.record),
                        h.hit.score,
                    )
                })
                .collect()
        };
        let report = |plan, asked, bound, complete, outcome: &super::SearchOutcome| SearchReport {
            variable: call.subject.as_str().to_owned(),
            plan,
            asked,
            bound,
            complete,
            dropped_not_at_seq: outcome.dropped_not_at_seq,
            exact_at_seq: outcome.exact_at_seq,
        };
        if !mentions {
            let outcome = self.search(&request)?;
            let hits = as_terms(&outcome);
            let n = hits.len();
            return Ok((hits, report(outcome.plan, call.k, n, true, &outcome)));
        }
        let allowed =
            self.pattern_subjects(call, None, super::EXACT_MAX_CANDIDATES + 1, options)?;
        let plan = SearchPlan::choose(if allowed.len() <= super::EXACT_MAX_CANDIDATES {
            Candidates::Listed(allowed.len())
        } else {
            Candidates::MoreThan(super::EXACT_MAX_CANDIDATES)
        });
        if plan == SearchPlan::FilterFirst {
            request.candidates = Some(std::sync::Arc::new(allowed.into_iter().collect()));
            let outcome = self.search(&request)?;
            let hits = as_terms(&outcome);
            let n = hits.len();
            return Ok((hits, report(plan, call.k, n, true, &outcome)));
        }
        let cap = (call.k * 32).min(super::MAX_K).max(call.k);
        let mut asked = call.k;
        loop {
            request.k = asked;
            let outcome = self.search(&request)?;
            let exhausted = outcome.hits.len() + outcome.dropped_not_at_seq < asked;
            let hits = as_terms(&outcome);
            let passing = self.pattern_subjects(call, Some(&hits), usize::MAX, options)?;
            let kept: Vec<(crate::model::Term, f32)> = hits
                .into_iter()
                .filter(|(t, _)| matches!(t, crate::model::Term::NamedNode(n) if passing.contains(n.as_str())))
                .take(call.k)
                .collect();
            if kept.len() >= call.k || exhausted || asked >= cap {
                let complete = kept.len() >= call.k || exhausted;
                let n = kept.len();
                return Ok((
                    kept,
                    report(SearchPlan::SearchFirst, asked, n, complete, &outcome),
                ));
            }
            asked = (asked * 4).min(cap);
        }
    }

    /// The distinct IRIs the call's variable takes in the rest of its basic graph
    /// pattern (restricted to `among` when given), at most `limit`.
    fn pattern_subjects(
        &self,
        call: &SearchCall,
        among: Option<&[(crate::model::Term, f32)]>,
        limit: usize,
        options: &QueryOptions,
    ) -> Result<std::collections::HashSet<std::sync::Arc<str>>, EngineError> {
        use spargebra::algebra::GraphPattern;
        let mut pattern = GraphPattern::Bgp {
            patterns: call.rest.clone(),
        };
        if let Some(hits) = among {
            let values = GraphPattern::Values {
                variables: vec![call.subject.clone()],
                bindings: hits
                    .iter()
                    .filter_map(|(t, _)| match t {
                        crate::model::Term::NamedNode(n) => Some(vec![Some(
                            spargebra::term::GroundTerm::NamedNode(n.clone()),
                        )]),
                        _ => None,
                    })
                    .collect(),
            };
            pattern = GraphPattern::Join {
                left: Box::new(values),
                right: Box::new(pattern),
            };
        }
        let pattern = GraphPattern::Slice {
            inner: Box::new(GraphPattern::Distinct {
                inner: Box::new(GraphPattern::Project {
                    inner: Box::new(pattern),
                    variables: vec![call.subject.clone()],
                }),
            }),
            start: 0,
            length: (limit != usize::MAX).then_some(limit),
        };
        let query = Query::Select {
            dataset: None,
            pattern,
            base_iri: None,
        };
        let results = sparql::evaluate_query(&self.snapshot, &query, options)?;
        let mut out = std::collections::HashSet::new();
        if let sparql::QueryResults::Solutions(solutions) = results {
            for solution in solutions {
                let solution =
                    solution.map_err(|e| EngineError::from(sparql::evaluation_error(e)))?;
                if let Some(crate::model::Term::NamedNode(n)) = solution.get(call.subject.as_str())
                {
                    out.insert(std::sync::Arc::from(n.as_str()));
                }
            }
        }
        Ok(out)
    }

    /// Quads added and removed going from commit `from` to the reader's (0 is the empty
    /// graph).
    pub fn changes_since(&self, from: CommitSeq) -> Result<ChangedQuads, EngineError> {
        self.graph.resolve_seq(Some(from), None)?;
        let (a, b) = (self.graph.snapshot(from), &self.snapshot);
        let (added, removed) = a.diff(b);
        Ok(ChangedQuads {
            added: added.iter().filter_map(|k| b.dict().quad(k)).collect(),
            removed: removed.iter().filter_map(|k| a.dict().quad(k)).collect(),
        })
    }

    /// A page of `changes_since` (added first, then removed): how many quads were added
    /// and removed, and the page's quads, decoded only for the page.
    pub fn changes_since_page(
        &self,
        from: CommitSeq,
        offset: usize,
        limit: usize,
    ) -> Result<(usize, usize, ChangedQuads), EngineError> {
        self.graph.resolve_seq(Some(from), None)?;
        let (a, b) = (self.graph.snapshot(from), &self.snapshot);
        let (added, removed) = a.diff(b);
        let page = key_page(&added, &removed, offset, limit, b, &a);
        Ok((added.len(), removed.len(), page))
    }

    /// Writes every quad (N-Quads, TriG, or a triples format for the default graph only).
    /// Returns the number of quads written.
    pub fn export(&self, format: RdfFormat, out: impl Write) -> Result<u64, EngineError> {
        let graph = if format.supports_datasets() {
            GraphFilter::All
        } else {
            GraphFilter::Is(DEFAULT_GRAPH)
        };
        if format == RdfFormat::RdfXml {
            return self.export_quads(graph, format, crate::sparql::EscapeCarriageReturns(out));
        }
        self.export_quads(graph, format, out)
    }

    /// How many quads named graphs hold (what a triples format leaves out of `export`).
    pub fn named_graph_quads(&self) -> usize {
        self.snapshot
            .quads(Pattern {
                subject: None,
                predicate: None,
                object: None,
                graph: GraphFilter::AnyNamed,
            })
            .count()
    }

    fn export_quads(
        &self,
        graph: GraphFilter,
        format: RdfFormat,
        out: impl Write,
    ) -> Result<u64, EngineError> {
        let snapshot = &self.snapshot;
        let mut serializer = RdfSerializer::from_format(format).for_writer(out);
        let mut keys: Vec<QuadKey> = snapshot
            .quads(Pattern {
                subject: None,
                predicate: None,
                object: None,
                graph,
            })
            .collect();
        // Group by graph so TriG output has one block per graph.
        keys.sort_unstable_by_key(|k| (k[3], k[0], k[1], k[2]));
        let mut n_quads = 0;
        let io = |e: std::io::Error| EngineError::io(std::path::Path::new("<output>"), e);
        for key in &keys {
            if let Some(quad) = snapshot.dict().quad(key) {
                serializer.serialize_quad(&quad).map_err(io)?;
                n_quads += 1;
            }
        }
        serializer.finish().map_err(io)?;
        Ok(n_quads)
    }

    /// The triples of one RDF graph (`None`: the default graph), as quads; `None` when a
    /// named graph holds no quad there.
    pub fn graph_quads(&self, graph_name: Option<&NamedNode>) -> Option<Vec<Quad>> {
        let snapshot = &self.snapshot;
        let graph = match graph_name {
            None => DEFAULT_GRAPH,
            Some(name) => snapshot.lookup(&name.clone().into())?,
        };
        let keys: Vec<QuadKey> = snapshot
            .quads(Pattern {
                subject: None,
                predicate: None,
                object: None,
                graph: GraphFilter::Is(graph),
            })
            .collect();
        if keys.is_empty() && graph_name.is_some() {
            return None;
        }
        Some(
            keys.iter()
                .filter_map(|k| snapshot.dict().quad(k))
                .collect(),
        )
    }
}

/// The quads of one page over `added` then `removed` (keys), decoded with the snapshots
/// that hold them.
fn key_page(
    added: &[QuadKey],
    removed: &[QuadKey],
    offset: usize,
    limit: usize,
    added_in: &crate::store::Snapshot,
    removed_in: &crate::store::Snapshot,
) -> ChangedQuads {
    let removed_offset = offset.saturating_sub(added.len());
    let added: Vec<Quad> = added
        .iter()
        .skip(offset)
        .take(limit)
        .filter_map(|k| added_in.dict().quad(k))
        .collect();
    let removed = removed
        .iter()
        .skip(removed_offset)
        .take(limit - added.len())
        .filter_map(|k| removed_in.dict().quad(k))
        .collect();
    ChangedQuads { added, removed }
}
