//! HTTP rendering of errors: a status code and a small JSON body
//! `{"error": {"code", "message", "param"?}}`.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

use crate::api::error::{ApiError, ErrorCode};
use crate::engine::EngineError;

/// An error response.
#[derive(Debug)]
pub struct HttpError {
    pub status: StatusCode,
    pub code: &'static str,
    pub message: String,
    pub param: Option<String>,
    /// The SHACL report of a `shacl_violation`.
    pub report: Option<serde_json::Value>,
}

impl HttpError {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        Self {
            status,
            code,
            message: message.into(),
            param: None,
            report: None,
        }
    }

    /// 400 about one argument.
    pub fn bad_param(param: &str, message: impl Into<String>) -> Self {
        Self {
            param: Some(param.to_owned()),
            ..Self::new(StatusCode::BAD_REQUEST, "invalid_argument", message)
        }
    }
}

impl From<ApiError> for HttpError {
    fn from(error: ApiError) -> Self {
        let status = match error.code {
            ErrorCode::GraphNotFound | ErrorCode::CommitNotFound => StatusCode::NOT_FOUND,
            ErrorCode::GraphExists | ErrorCode::IdempotencyConflict => StatusCode::CONFLICT,
            ErrorCode::QueryTimeout => StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::QueryMemoryLimit => StatusCode::INSUFFICIENT_STORAGE,
            ErrorCode::ServiceNotAllowed | ErrorCode::Forbidden => StatusCode::FORBIDDEN,
            ErrorCode::Unsupported => StatusCode::NOT_IMPLEMENTED,
            ErrorCode::ShaclViolation => StatusCode::UNPROCESSABLE_ENTITY,
            ErrorCode::DataDirLocked | ErrorCode::Corruption | ErrorCode::Internal => {
                StatusCode::INTERNAL_SERVER_ERROR
            }
            _ => StatusCode::BAD_REQUEST,
        };
        Self {
            status,
            code: error.code.as_str(),
            message: error.message,
            param: error.param,
            report: error
                .validation
                .as_deref()
                .map(crate::api::report::validation_json),
        }
    }
}

impl From<EngineError> for HttpError {
    fn from(error: EngineError) -> Self {
        ApiError::from(error).into()
    }
}

impl IntoResponse for HttpError {
    fn into_response(self) -> Response {
        if self.status.is_server_error() {
            tracing::error!(code = self.code, message = %self.message, "request failed");
        }
        let mut error = serde_json::json!({ "code": self.code, "message": self.message });
        if let Some(param) = self.param {
            error["param"] = param.into();
        }
        if let Some(report) = self.report {
            error["report"] = report;
        }
        (self.status, Json(serde_json::json!({ "error": error }))).into_response()
    }
}
