//! `EngineError`: what can go wrong below the API surfaces, with the context each
//! surface needs to pick an error code.

use std::path::Path;

use crate::log::LogError;
use crate::model::{CommitSeq, InvalidGraphName};
use crate::sparql::QueryError;

/// Errors of the engine and the layers under it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EngineError {
    #[error(transparent)]
    InvalidGraphName(#[from] InvalidGraphName),
    #[error("graph {name:?} not found; existing graphs: {}", if existing.is_empty() { "none".to_owned() } else { existing.join(", ") })]
    GraphNotFound { name: String, existing: Vec<String> },
    #[error("graph {name:?} already exists")]
    GraphExists { name: String },
    #[error("graph {name:?} does not exist, and creating a graph needs the admin scope")]
    GraphCreationRefused { name: String },
    #[error(
        "the named graph <{graph}> is one of Strata's control graphs (it decides how later writes are validated or indexed): changing it needs the admin scope; nothing was written"
    )]
    ControlGraphRefused { graph: String },
    #[error("commit {requested} not found in graph {graph:?}: {}", if *head == 0 { "it has no commits yet".to_owned() } else { format!("commits are 1..={head}") })]
    CommitNotFound {
        graph: String,
        requested: CommitSeq,
        head: CommitSeq,
    },
    #[error("no commit in graph {graph:?} at or before {moment}{}", first.as_ref().map(|f| format!(" (the first commit is at {f})")).unwrap_or_default())]
    NoCommitAtTime {
        graph: String,
        moment: String,
        first: Option<String>,
    },
    #[error("{format} syntax error in {source_name}{}: {message}", position.map(|(l, c)| format!(" at line {l}, column {c}")).unwrap_or_default())]
    RdfSyntax {
        source_name: String,
        format: String,
        position: Option<(u64, u64)>,
        message: String,
    },
    /// The bytes of a document could not be decoded (a corrupt `.gz` file, bad UTF-8 the
    /// parser reports as an I/O error): bad input, like a syntax error.
    #[error("cannot read {source_name} as {format}: {message}")]
    UnreadableDocument {
        source_name: String,
        format: String,
        message: String,
    },
    #[error(transparent)]
    Query(#[from] QueryError),
    #[error(
        "idempotency key {key:?} was already used by commit {commit_seq} with different content"
    )]
    IdempotencyConflict { key: String, commit_seq: CommitSeq },
    #[error("the data changed since the deletion was approved; preview and approve again")]
    ApprovalStale,
    #[error("invalid argument {param}: {message}")]
    InvalidArgument { param: String, message: String },
    #[error("data directory {path} is in use by another strata process")]
    DataDirLocked { path: String },
    #[error(
        "{action} needs to write, and this process opened the data directory read-only \
         (beside a running server); send it to the server instead"
    )]
    ReadOnly { action: String },
    #[error(
        "graph {graph:?} refuses writes after a failed fsync; restart the server to recover from the log"
    )]
    Poisoned { graph: String },
    #[error(
        "the import was interrupted (Ctrl-C or SIGTERM) before its commit; nothing was committed"
    )]
    Interrupted,
    #[error("invalid shapes: {message}")]
    InvalidShapes { message: String },
    #[error("the commit would leave {} SHACL violation(s); nothing was written", validation.report.violation_count())]
    ShaclViolation {
        validation: Box<super::validation::CommitValidation>,
    },
    #[error("SHACL validation failed: {message}")]
    Shacl { message: String },
    /// A search index's files or its BM25 engine failed.
    #[error("search index: {0}")]
    SearchIndex(#[from] crate::search::IndexError),
    /// The embedder (the model in process, or a remote endpoint) failed.
    #[error(transparent)]
    Embedding(#[from] crate::search::embed::EmbedError),
    /// `consistency: strong` waited for an index to reach a commit, in vain.
    #[error(
        "the search index did not reach commit {seq} within {waited_secs} s (consistency: strong); \
         its lag shows in `GET /graphs/{{g}}/indexes` and MCP `embeddings list`"
    )]
    IndexNotCaughtUp { seq: CommitSeq, waited_secs: u64 },
    #[error(
        "graph {graph}: other nodes appended first {attempts} times in a row; the write was not made, retry it"
    )]
    WriteConflict { graph: String, attempts: usize },
    #[error("{action} is not supported in a cluster yet")]
    NotInCluster { action: String },
    #[error(
        "graph {graph} has applied commits up to {head} here; commit {wanted} did not arrive within {waited_ms} ms"
    )]
    NotCaughtUp {
        graph: String,
        wanted: CommitSeq,
        head: CommitSeq,
        waited_ms: u64,
    },
    #[error(
        "graph {graph}: a commit from the shared log does not follow this node's history: {reason}"
    )]
    SharedLogDiverged { graph: String, reason: String },
    #[error(
        "graph {graph:?}: the commit log is corrupt at commit {commit_seq} (byte offset {offset}): \
         {reason}; {intact_after} intact record(s) after it; not a torn tail, so nothing was \
         cut. Inspect it with `strata verify --graph {graph}`; \
         `strata repair --graph {graph} --yes` cuts the log before commit {commit_seq} and keeps \
         a copy of everything it removes"
    )]
    LogCorrupt {
        graph: String,
        commit_seq: CommitSeq,
        offset: u64,
        reason: String,
        intact_after: u64,
    },
    #[error(
        "graph {graph:?}: the commit log ends at commit {log_head} but the store files hold \
         commit {checkpoint_seq}, so acknowledged commits are missing from the log; the graph \
         was not opened. Restore commits.log from a backup, or run \
         `strata repair --graph {graph} --yes` to accept the log as it is (it keeps a copy of \
         the store files)"
    )]
    LogBehindCheckpoint {
        graph: String,
        log_head: CommitSeq,
        checkpoint_seq: CommitSeq,
    },
    #[error(
        "graph {graph:?}: commit {commit_seq} of the log has hash {log_hash} but the store files \
         recorded {checkpoint_hash} for it: the log's history was rewritten; the graph was not \
         opened. Restore commits.log from a backup, or run `strata repair --graph {graph} --yes` \
         to accept the log as it is (it keeps a copy of the store files)"
    )]
    CheckpointMismatch {
        graph: String,
        commit_seq: CommitSeq,
        log_hash: String,
        checkpoint_hash: String,
    },
    #[error(transparent)]
    Log(#[from] LogError),
    #[error("i/o error on {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

impl EngineError {
    pub(crate) fn io(path: &Path, source: std::io::Error) -> Self {
        Self::Io {
            path: path.display().to_string(),
            source,
        }
    }
}

impl From<crate::shacl::ShaclError> for EngineError {
    fn from(error: crate::shacl::ShaclError) -> Self {
        match error {
            crate::shacl::ShaclError::InvalidShapes(message) => Self::InvalidShapes { message },
            crate::shacl::ShaclError::Validation(message) => Self::Shacl { message },
        }
    }
}

impl From<crate::search::sparql_patterns::SearchPatternError> for EngineError {
    fn from(error: crate::search::sparql_patterns::SearchPatternError) -> Self {
        Self::InvalidArgument {
            param: "query".into(),
            message: error.0,
        }
    }
}
