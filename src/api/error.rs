//! `ErrorCode` and `ApiError`: the public, stable face of every failure.
//!
//! Codes are chosen in exactly one place, `From<EngineError> for ApiError`; each surface
//! renders an `ApiError` its own way (the CLI as one line on stderr).

use std::fmt;

use crate::engine::EngineError;
use crate::sparql::QueryError;

/// Stable machine codes. Adding one is an API change; renaming one never happens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorCode {
    InvalidArgument,
    InvalidGraphName,
    GraphNotFound,
    GraphExists,
    CommitNotFound,
    InvalidSparql,
    InvalidRdf,
    QueryFailed,
    QueryTimeout,
    QueryTooComplex,
    QueryMemoryLimit,
    Cancelled,
    Unsupported,
    ServiceNotAllowed,
    UpdateFailed,
    IdempotencyConflict,
    DataDirLocked,
    CursorMismatch,
    Forbidden,
    UnknownType,
    UnknownRelation,
    UnknownField,
    ValueTypeMismatch,
    CardinalityViolation,
    OntologyConflict,
    ApprovalRequired,
    ApprovalDeclined,
    PayloadTooLarge,
    InvalidShapes,
    ShaclViolation,
    Corruption,
    /// A graph's log is damaged in the middle (or disagrees with its checkpoint).
    LogCorrupt,
    /// A graph's log ends before a commit its checkpoint proves was acknowledged.
    LogTruncated,
    Internal,
}

impl ErrorCode {
    /// The snake_case name clients match on.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::InvalidArgument => "invalid_argument",
            Self::InvalidGraphName => "invalid_graph_name",
            Self::GraphNotFound => "graph_not_found",
            Self::GraphExists => "graph_exists",
            Self::CommitNotFound => "commit_not_found",
            Self::InvalidSparql => "invalid_sparql",
            Self::InvalidRdf => "invalid_rdf",
            Self::QueryFailed => "query_failed",
            Self::QueryTimeout => "query_timeout",
            Self::QueryTooComplex => "query_too_complex",
            Self::QueryMemoryLimit => "query_memory_limit",
            Self::Cancelled => "cancelled",
            Self::Unsupported => "unsupported",
            Self::ServiceNotAllowed => "service_not_allowed",
            Self::UpdateFailed => "update_failed",
            Self::IdempotencyConflict => "idempotency_conflict",
            Self::DataDirLocked => "data_dir_locked",
            Self::CursorMismatch => "cursor_mismatch",
            Self::Forbidden => "forbidden",
            Self::UnknownType => "unknown_type",
            Self::UnknownRelation => "unknown_relation",
            Self::UnknownField => "unknown_field",
            Self::ValueTypeMismatch => "value_type_mismatch",
            Self::CardinalityViolation => "cardinality_violation",
            Self::OntologyConflict => "ontology_conflict",
            Self::ApprovalRequired => "approval_required",
            Self::ApprovalDeclined => "approval_declined",
            Self::PayloadTooLarge => "payload_too_large",
            Self::InvalidShapes => "invalid_shapes",
            Self::ShaclViolation => "shacl_violation",
            Self::Corruption => "corruption",
            Self::LogCorrupt => "log_corrupt",
            Self::LogTruncated => "log_truncated",
            Self::Internal => "internal",
        }
    }
}

/// An error as clients see it: a code, a message, and the argument at fault if known.
#[derive(Clone, Debug)]
pub struct ApiError {
    pub code: ErrorCode,
    pub message: String,
    pub param: Option<String>,
    /// The SHACL report of a `shacl_violation` (each surface renders it its own way).
    pub validation: Option<std::sync::Arc<crate::engine::CommitValidation>>,
}

impl ApiError {
    /// An error about one argument.
    pub fn invalid_argument(param: &str, message: impl Into<String>) -> Self {
        Self {
            code: ErrorCode::InvalidArgument,
            message: message.into(),
            param: Some(param.to_owned()),
            validation: None,
        }
    }

    /// Sets the argument at fault.
    pub fn with_param(mut self, param: &str) -> Self {
        self.param = Some(param.to_owned());
        self
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.param {
            Some(param) => write!(f, "error[{}] {param}: {}", self.code.as_str(), self.message),
            None => write!(f, "error[{}]: {}", self.code.as_str(), self.message),
        }
    }
}

impl From<EngineError> for ApiError {
    fn from(error: EngineError) -> Self {
        let message = error.to_string();
        let (code, param) = match &error {
            EngineError::InvalidGraphName(_) => (ErrorCode::InvalidGraphName, Some("graph")),
            EngineError::GraphNotFound { .. } => (ErrorCode::GraphNotFound, Some("graph")),
            EngineError::GraphExists { .. } => (ErrorCode::GraphExists, Some("name")),
            EngineError::GraphCreationRefused { .. } => (ErrorCode::Forbidden, Some("graph")),
            EngineError::ControlGraphRefused { .. } => (ErrorCode::Forbidden, None),
            EngineError::CommitNotFound { .. } => (ErrorCode::CommitNotFound, Some("as_of")),
            EngineError::NoCommitAtTime { .. } => (ErrorCode::CommitNotFound, Some("as_of_time")),
            EngineError::RdfSyntax { .. } | EngineError::UnreadableDocument { .. } => {
                (ErrorCode::InvalidRdf, None)
            }
            EngineError::Query(query) => match query {
                QueryError::Syntax(_) => (ErrorCode::InvalidSparql, None),
                QueryError::Evaluation(_) => (ErrorCode::QueryFailed, None),
                QueryError::Timeout(_) => (ErrorCode::QueryTimeout, None),
                QueryError::TooComplex(_) => (ErrorCode::QueryTooComplex, None),
                QueryError::MemoryLimit(_) => (ErrorCode::QueryMemoryLimit, None),
                QueryError::Cancelled => (ErrorCode::Cancelled, None),
                QueryError::Unsupported(_) => (ErrorCode::Unsupported, None),
                QueryError::ServiceRefused(_) => (ErrorCode::ServiceNotAllowed, None),
                QueryError::Update(_) => (ErrorCode::UpdateFailed, None),
                _ => (ErrorCode::Internal, None),
            },
            EngineError::IdempotencyConflict { .. } => {
                (ErrorCode::IdempotencyConflict, Some("idempotency_key"))
            }
            EngineError::InvalidArgument { .. } => (ErrorCode::InvalidArgument, None),
            EngineError::ApprovalStale => (ErrorCode::ApprovalDeclined, None),
            EngineError::DataDirLocked { .. } => (ErrorCode::DataDirLocked, Some("data")),
            EngineError::ReadOnly { .. } => (ErrorCode::DataDirLocked, Some("data")),
            EngineError::InvalidShapes { .. } => (ErrorCode::InvalidShapes, Some("shapes")),
            EngineError::ShaclViolation { .. } => (ErrorCode::ShaclViolation, None),
            EngineError::Log(crate::log::LogError::Corruption { .. }) => {
                (ErrorCode::Corruption, None)
            }
            EngineError::LogCorrupt { .. } | EngineError::CheckpointMismatch { .. } => {
                (ErrorCode::LogCorrupt, Some("graph"))
            }
            EngineError::LogBehindCheckpoint { .. } => (ErrorCode::LogTruncated, Some("graph")),
            _ => (ErrorCode::Internal, None),
        };
        let param = match &error {
            EngineError::InvalidArgument { param, .. } => Some(param.clone()),
            _ => param.map(str::to_owned),
        };
        let validation = match error {
            EngineError::ShaclViolation { validation } => Some(std::sync::Arc::new(*validation)),
            _ => None,
        };
        Self {
            code,
            message,
            param,
            validation,
        }
    }
}
