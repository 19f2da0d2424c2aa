//! Parsing and evaluating queries, with cancellation and time limits.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use spareval::{
    CancellationToken, QueryEvaluationError, QueryEvaluator, QueryResults, QuerySolutionIter,
    QueryTripleIter,
};
use spargebra::{Query, SparqlParser};

use super::QueryError;
use super::dataset::SnapshotDataset;
use crate::model::{NamedNode, RdfGraphName};
use crate::store::Snapshot;

/// How to evaluate a query beyond its text.
#[derive(Clone, Default)]
pub struct QueryOptions {
    /// Overrides the query's FROM (SPARQL Protocol `default-graph-uri`).
    pub default_graph_uris: Vec<NamedNode>,
    /// Overrides the query's FROM NAMED (SPARQL Protocol `named-graph-uri`).
    pub named_graph_uris: Vec<NamedNode>,
    /// Cancels evaluation when triggered (a timeout, or a client going away).
    pub cancellation: CancellationToken,
}

/// Parses a query, resolving relative IRIs against `base_iri`.
pub fn parse_query(text: &str, base_iri: Option<&str>) -> Result<Query, QueryError> {
    let mut parser = SparqlParser::new();
    if let Some(base) = base_iri {
        parser = parser
            .with_base_iri(base)
            .map_err(|e| QueryError::Syntax(format!("invalid base IRI {base}: {e}")))?;
    }
    parser
        .parse_query(text)
        .map_err(|e| QueryError::Syntax(e.to_string()))
}

/// Evaluates a query over a snapshot. The results are lazy: they are computed while the
/// caller iterates them, and stop with an error if the cancellation token fires.
pub fn evaluate_query(
    snapshot: &Snapshot,
    query: &Query,
    options: &QueryOptions,
) -> Result<QueryResults<'static>, QueryError> {
    let evaluator = QueryEvaluator::new().with_cancellation_token(options.cancellation.clone());
    let mut prepared = evaluator.prepare(query);
    if !options.default_graph_uris.is_empty() || !options.named_graph_uris.is_empty() {
        let dataset = prepared.dataset_mut();
        dataset.set_default_graph(
            options
                .default_graph_uris
                .iter()
                .cloned()
                .map(RdfGraphName::from)
                .collect(),
        );
        dataset.set_available_named_graphs(
            options
                .named_graph_uris
                .iter()
                .cloned()
                .map(Into::into)
                .collect(),
        );
    }
    let results = prepared
        .execute(SnapshotDataset::new(snapshot.clone()))
        .map_err(evaluation_error)?;
    Ok(check_cancellation_per_row(
        results,
        options.cancellation.clone(),
    ))
}

/// spareval checks the token when it reads the dataset; a result computed from
/// materialized tables (a cross product, say) reads nothing while it streams. Checking
/// again per row makes a timeout stop the stream too.
fn check_cancellation_per_row(
    results: QueryResults<'static>,
    token: CancellationToken,
) -> QueryResults<'static> {
    let alive = move || {
        if token.is_cancelled() {
            Err(QueryEvaluationError::Cancelled)
        } else {
            Ok(())
        }
    };
    match results {
        QueryResults::Solutions(solutions) => {
            let variables: Arc<[oxrdf::Variable]> = solutions.variables().into();
            QueryResults::Solutions(QuerySolutionIter::new(
                variables,
                solutions.map(move |s| alive().and(s)),
            ))
        }
        QueryResults::Graph(triples) => {
            QueryResults::Graph(QueryTripleIter::new(triples.map(move |t| alive().and(t))))
        }
        boolean => boolean,
    }
}

pub fn evaluation_error(error: QueryEvaluationError) -> QueryError {
    match error {
        QueryEvaluationError::Cancelled => QueryError::Cancelled,
        QueryEvaluationError::Service(e) => {
            QueryError::Unsupported(format!("SERVICE is not allowed here: {e}"))
        }
        QueryEvaluationError::UnsupportedService(service) => QueryError::Unsupported(format!(
            "SERVICE {service} is refused: this server does not call remote endpoints"
        )),
        other => QueryError::Evaluation(other.to_string()),
    }
}

/// Cancels a token when a time limit passes, unless dropped first.
pub struct Deadline {
    done: Arc<AtomicBool>,
    fired: Arc<AtomicBool>,
    thread: Option<std::thread::Thread>,
}

impl Deadline {
    /// Starts a timer that cancels `token` after `limit`.
    pub fn start(token: CancellationToken, limit: Duration) -> Self {
        let done = Arc::new(AtomicBool::new(false));
        let fired = Arc::new(AtomicBool::new(false));
        let (thread_done, thread_fired) = (done.clone(), fired.clone());
        let handle = std::thread::Builder::new()
            .name("strata-deadline".into())
            .spawn(move || {
                let until = std::time::Instant::now() + limit;
                while !thread_done.load(Ordering::Acquire) {
                    let now = std::time::Instant::now();
                    if now >= until {
                        thread_fired.store(true, Ordering::Release);
                        token.cancel();
                        return;
                    }
                    std::thread::park_timeout(until - now);
                }
            })
            .ok();
        Self {
            done,
            fired,
            thread: handle.map(|h| h.thread().clone()),
        }
    }

    /// True when the limit passed and the token was cancelled by this deadline.
    pub fn fired(&self) -> bool {
        self.fired.load(Ordering::Acquire)
    }
}

impl Drop for Deadline {
    fn drop(&mut self) {
        self.done.store(true, Ordering::Release);
        if let Some(thread) = &self.thread {
            thread.unpark();
        }
    }
}
