//! SPARQL 1.1 query and update over store snapshots, evaluated by spareval.
//!
//! This layer turns text into algebra (spargebra), evaluates it over a `Snapshot`, and
//! turns updates into a `Transaction`'s changes. It does not know commits or the log: the
//! engine decides at which commit to read and how a transaction becomes a commit.

mod batched;
mod dataset;
mod entailment;
mod governor;
mod lexer;
pub mod limits;
mod query;
mod results;
mod select_star;
mod service;
mod update;

pub use batched::may_apply as batched_may_apply;
#[cfg(test)]
pub(crate) use batched::parallel::TINY_PARTS as BATCHED_TINY_PARTS;
#[cfg(test)]
pub(crate) use batched::rewrite as batched_rewrite;
pub use dataset::{EvalTerm, SnapshotDataset};
pub use entailment::{Entailment, apply as apply_entailment};
pub use governor::{
    DEFAULT_HEAVY_AFTER, DEFAULT_QUERY_MEMORY_BYTES, Governor, GovernorStats, QueryGuard,
    QueryLimits,
};
pub use lexer::opaque_len;
pub use query::{
    DATE_BUCKET, Deadline, ISO_WEEK, QueryOptions, evaluate_query, evaluation_error, parse_query,
};
pub use results::{EscapeCarriageReturns, ResultsFormat, write_results};
pub use update::{Update, UpdateOptions, apply_update, parse_update};

pub use spareval::{CancellationToken, QueryEvaluationError, QueryResults, QuerySolution};
pub use spargebra::Query;

/// Errors of the SPARQL layer.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum QueryError {
    /// The query or update text does not parse.
    #[error("invalid SPARQL: {0}")]
    Syntax(String),
    /// Evaluation failed (a type error that SPARQL does not absorb, an unsupported feature).
    #[error("query evaluation failed: {0}")]
    Evaluation(String),
    /// The query or update is nested too deeply or too long for the evaluator to take
    /// safely (see `limits`).
    #[error("query too complex: {0}")]
    TooComplex(String),
    /// The query needed more memory than its limit and was stopped.
    #[error("query stopped: it needed more than its memory limit of {} MiB", .0 >> 20)]
    MemoryLimit(u64),
    /// The query ran past its time limit and was stopped.
    #[error("query timed out after {0:?}")]
    Timeout(std::time::Duration),
    /// The caller cancelled the query.
    #[error("query cancelled")]
    Cancelled,
    /// A `SERVICE` call to a remote endpoint, which this server refuses: it would let any
    /// reader make the server fetch arbitrary (internal) URLs.
    #[error("SERVICE <{0}> is refused: this server does not call remote endpoints")]
    ServiceRefused(String),
    /// The operation is valid SPARQL but this server does not perform it.
    #[error("{0}")]
    Unsupported(String),
    /// An update operation failed on purpose (e.g. CREATE of an existing graph).
    #[error("update failed: {0}")]
    Update(String),
    /// A store file the query read failed its checksum: the answer is withheld (see
    /// `store::file`).
    #[error(
        "a store file failed its checksum: {0}; the answer is withheld. Restart the server \
         (its next open sets the store files aside and rebuilds them from the log) or run \
         `strata repair`"
    )]
    StoreDamaged(String),
    /// Writing results failed.
    #[error("writing results failed: {0}")]
    Io(#[from] std::io::Error),
}
