//! `ErrorCode` and `ApiError`: the public, stable face of every failure.
//!
//! Codes are chosen in exactly one place, `From<EngineError> for ApiError` (plus the few
//! failures only a surface can have, like a missing API key over HTTP); what each code
//! means on each surface (HTTP status, MCP error `type`, CLI exit code) is decided here,
//! on `ErrorCode`, and each surface renders an `ApiError` its own way (the CLI as one
//! `error[code]` line on stderr, HTTP and MCP as `{"error": {code, message, param?}}`).

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
    // Failures of the HTTP surface itself (its protocol, its keys and its routes).
    /// No or an unknown API key.
    Unauthorized,
    /// The `Host` header names no allowed host (DNS rebinding protection).
    HostNotAllowed,
    /// A browser `Origin` that is not allowed.
    OriginNotAllowed,
    /// A request body in a media type the endpoint does not take.
    UnsupportedMediaType,
    /// No answer format the client accepts.
    NotAcceptable,
    MethodNotAllowed,
    /// No such route or file.
    NotFound,
    /// The request took longer than the server's request time limit.
    RequestTimeout,
    /// The request's header section is over the server's limit.
    HeadersTooLarge,
    /// The Graph Store Protocol's named RDF graph does not exist (the Strata graph does).
    RdfGraphNotFound,
    /// No SHACL shapes are published for the graph.
    ShapesNotFound,
    /// The embedder (in process or a remote endpoint) failed to embed the text.
    EmbeddingFailed,
    /// A search asked for `strong` consistency and its index did not catch up in time.
    IndexNotCaughtUp,
    /// In a cluster, other nodes kept appending first: the write gave up after retries.
    WriteConflict,
    /// In a cluster, the shared commit log cannot be reached: writes are refused.
    LogUnavailable,
    /// A read asked for a commit this node has not applied yet (read-your-writes).
    NotCaughtUp,
}

impl ErrorCode {
    /// Every code, in the order of the README's table.
    pub const ALL: [ErrorCode; 50] = [
        Self::InvalidArgument,
        Self::InvalidGraphName,
        Self::GraphNotFound,
        Self::GraphExists,
        Self::CommitNotFound,
        Self::InvalidSparql,
        Self::InvalidRdf,
        Self::QueryFailed,
        Self::QueryTimeout,
        Self::QueryTooComplex,
        Self::QueryMemoryLimit,
        Self::Cancelled,
        Self::Unsupported,
        Self::ServiceNotAllowed,
        Self::UpdateFailed,
        Self::IdempotencyConflict,
        Self::DataDirLocked,
        Self::CursorMismatch,
        Self::Forbidden,
        Self::UnknownType,
        Self::UnknownRelation,
        Self::UnknownField,
        Self::ValueTypeMismatch,
        Self::CardinalityViolation,
        Self::OntologyConflict,
        Self::ApprovalRequired,
        Self::ApprovalDeclined,
        Self::PayloadTooLarge,
        Self::InvalidShapes,
        Self::ShaclViolation,
        Self::Corruption,
        Self::LogCorrupt,
        Self::LogTruncated,
        Self::Internal,
        Self::Unauthorized,
        Self::HostNotAllowed,
        Self::OriginNotAllowed,
        Self::UnsupportedMediaType,
        Self::NotAcceptable,
        Self::MethodNotAllowed,
        Self::NotFound,
        Self::RequestTimeout,
        Self::HeadersTooLarge,
        Self::RdfGraphNotFound,
        Self::ShapesNotFound,
        Self::EmbeddingFailed,
        Self::IndexNotCaughtUp,
        Self::WriteConflict,
        Self::LogUnavailable,
        Self::NotCaughtUp,
    ];

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
            Self::Unauthorized => "unauthorized",
            Self::HostNotAllowed => "host_not_allowed",
            Self::OriginNotAllowed => "origin_not_allowed",
            Self::UnsupportedMediaType => "unsupported_media_type",
            Self::NotAcceptable => "not_acceptable",
            Self::MethodNotAllowed => "method_not_allowed",
            Self::NotFound => "not_found",
            Self::RequestTimeout => "request_timeout",
            Self::HeadersTooLarge => "headers_too_large",
            Self::RdfGraphNotFound => "rdf_graph_not_found",
            Self::ShapesNotFound => "shapes_not_found",
            Self::EmbeddingFailed => "embedding_failed",
            Self::IndexNotCaughtUp => "index_not_caught_up",
            Self::WriteConflict => "write_conflict",
            Self::LogUnavailable => "log_unavailable",
            Self::NotCaughtUp => "not_caught_up",
        }
    }

    /// The HTTP status of an answer with this code.
    pub fn http_status(self) -> u16 {
        match self {
            Self::Unauthorized => 401,
            Self::ServiceNotAllowed
            | Self::Forbidden
            | Self::HostNotAllowed
            | Self::OriginNotAllowed => 403,
            Self::GraphNotFound
            | Self::CommitNotFound
            | Self::NotFound
            | Self::RdfGraphNotFound
            | Self::ShapesNotFound => 404,
            Self::MethodNotAllowed => 405,
            Self::NotAcceptable => 406,
            Self::RequestTimeout => 408,
            Self::GraphExists | Self::IdempotencyConflict | Self::WriteConflict => 409,
            Self::PayloadTooLarge => 413,
            Self::UnsupportedMediaType => 415,
            Self::HeadersTooLarge => 431,
            Self::ShaclViolation => 422,
            Self::DataDirLocked
            | Self::Corruption
            | Self::LogCorrupt
            | Self::LogTruncated
            | Self::Internal => 500,
            Self::Unsupported => 501,
            Self::EmbeddingFailed => 502,
            Self::QueryTimeout
            | Self::IndexNotCaughtUp
            | Self::LogUnavailable
            | Self::NotCaughtUp => 503,
            Self::QueryMemoryLimit => 507,
            _ => 400,
        }
    }

    /// The kind of failure an agent reads first (MCP's error `type`): whether to fix the
    /// request, narrow it, ask the person, or report a fault.
    pub fn kind(self) -> &'static str {
        match self {
            Self::ApprovalRequired | Self::ApprovalDeclined => "approval",
            Self::QueryTimeout
            | Self::QueryTooComplex
            | Self::QueryMemoryLimit
            | Self::Cancelled
            | Self::WriteConflict
            | Self::NotCaughtUp => "limit",
            Self::Internal
            | Self::Corruption
            | Self::LogCorrupt
            | Self::LogTruncated
            | Self::DataDirLocked
            | Self::EmbeddingFailed
            | Self::LogUnavailable => "internal",
            _ => "invalid_request",
        }
    }

    /// The CLI's exit status for a command that failed with this code: 1 for every code,
    /// so scripts test for success; the code itself is on stderr as `error[code]`.
    /// (`strata validate` has its own statuses: 1 for violations, 2 for unusable input.)
    pub fn exit_code(self) -> u8 {
        1
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
                QueryError::StoreDamaged(_) => (ErrorCode::Corruption, None),
                _ => (ErrorCode::Internal, None),
            },
            EngineError::IdempotencyConflict { .. } => {
                (ErrorCode::IdempotencyConflict, Some("idempotency_key"))
            }
            EngineError::InvalidArgument { .. } => (ErrorCode::InvalidArgument, None),
            EngineError::Interrupted => (ErrorCode::Cancelled, None),
            EngineError::ApprovalStale => (ErrorCode::ApprovalDeclined, None),
            EngineError::DataDirLocked { .. } => (ErrorCode::DataDirLocked, Some("data")),
            EngineError::ReadOnly { .. } => (ErrorCode::DataDirLocked, Some("data")),
            EngineError::InvalidShapes { .. } => (ErrorCode::InvalidShapes, Some("shapes")),
            EngineError::ShaclViolation { .. } => (ErrorCode::ShaclViolation, None),
            EngineError::Log(crate::log::LogError::Corruption { .. }) => {
                (ErrorCode::Corruption, None)
            }
            EngineError::LogCorrupt { .. }
            | EngineError::CheckpointMismatch { .. }
            | EngineError::SharedLogDiverged { .. } => (ErrorCode::LogCorrupt, Some("graph")),
            EngineError::LogBehindCheckpoint { .. } => (ErrorCode::LogTruncated, Some("graph")),
            EngineError::Embedding(_) => (ErrorCode::EmbeddingFailed, None),
            EngineError::IndexNotCaughtUp { .. } => {
                (ErrorCode::IndexNotCaughtUp, Some("consistency"))
            }
            EngineError::WriteConflict { .. } => (ErrorCode::WriteConflict, None),
            EngineError::NotInCluster { .. } => (ErrorCode::Unsupported, None),
            EngineError::Log(crate::log::LogError::Unavailable { .. }) => {
                (ErrorCode::LogUnavailable, None)
            }
            EngineError::NotCaughtUp { .. } => (ErrorCode::NotCaughtUp, Some("min_commit_seq")),
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

/// Reads a call's JSON arguments (a tool's, a `POST /graphs/{g}/…` body's, a CLI file's)
/// into their type, so a bad argument gets a coded error naming it (`param`) like every
/// other error: `structured.patterns[0].subject`, a missing or unknown field by name.
pub fn parse_args<T: serde::de::DeserializeOwned>(
    raw: serde_json::Map<String, serde_json::Value>,
) -> Result<T, ApiError> {
    serde_path_to_error::deserialize(serde_json::Value::Object(raw)).map_err(|error| {
        // The path names where the problem is; for an unknown or missing field serde
        // names the field itself in backquotes.
        let path = error.path().to_string();
        let message = error.inner().to_string();
        let named = message.split('`').nth(1).map(str::to_owned);
        // The path of an unknown field already ends with it; a missing one is named only
        // in the message.
        let param = match (path.as_str(), message.as_str()) {
            (".", m) if m.starts_with("missing field") => named,
            (path, m) if m.starts_with("missing field") => {
                Some(format!("{path}.{}", named.unwrap_or_default()))
            }
            (".", _) => None,
            (path, _) => Some(path.to_owned()),
        };
        ApiError {
            code: ErrorCode::InvalidArgument,
            message: format!("invalid arguments: {message}"),
            param,
            validation: None,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_damaged_store_file_is_corruption() {
        let error = ApiError::from(EngineError::Query(QueryError::StoreDamaged(
            "store/00000001.seg: section 1 checksum mismatch".into(),
        )));
        assert_eq!(error.code, ErrorCode::Corruption);
        assert_eq!(error.code.http_status(), 500);
        assert!(
            error.message.contains("section 1 checksum mismatch"),
            "{}",
            error.message
        );
    }

    #[test]
    fn codes_are_distinct_and_statuses_are_errors() {
        let names: std::collections::HashSet<&str> =
            ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
        assert_eq!(names.len(), ErrorCode::ALL.len());
        for code in ErrorCode::ALL {
            assert!((400..600).contains(&code.http_status()), "{code:?}");
            assert_eq!(code.exit_code(), 1);
        }
        assert_eq!(ErrorCode::Unauthorized.http_status(), 401);
        assert_eq!(ErrorCode::HostNotAllowed.http_status(), 403);
        assert_eq!(ErrorCode::RdfGraphNotFound.http_status(), 404);
        assert_eq!(ErrorCode::UnsupportedMediaType.http_status(), 415);
        assert_eq!(ErrorCode::QueryTimeout.kind(), "limit");
        assert_eq!(ErrorCode::ApprovalRequired.kind(), "approval");
    }

    /// The README's table of error codes is the one list users read: every code is in
    /// it, with the status this module answers.
    #[test]
    fn the_readme_lists_every_code_with_its_status() {
        let readme =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
        for code in ErrorCode::ALL {
            let row = format!("| `{}` | {} |", code.as_str(), code.http_status());
            assert!(readme.contains(&row), "README lacks the row {row:?}");
        }
    }
}
