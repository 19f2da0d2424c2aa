//! HTTP rendering of errors: a status code and a small JSON body
//! `{"error": {"code", "message", "param"?}}`.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

use crate::engine::EngineError;
use crate::error::{ApiError, ErrorCode};

/// An error response.
#[derive(Debug)]
pub struct HttpError {
    pub status: StatusCode,
    pub code: ErrorCode,
    pub message: String,
    pub param: Option<String>,
    /// The SHACL report of a `shacl_violation`.
    pub report: Option<serde_json::Value>,
    /// For `graph_not_found`: the graph asked for and the graphs that exist, so the
    /// response can be narrowed to the graphs the caller's key may see.
    /// (Boxed: it is rare, and errors travel in every handler's `Result`.)
    pub missing_graph: Option<Box<MissingGraph>>,
    /// For a `forbidden` answer to an OAuth token: the scope that would allow the request
    /// (`auth::identify` puts it in the `WWW-Authenticate` challenge).
    pub scope_needed: Option<String>,
}

/// A `graph_not_found` answer's facts, kept in the response's extensions until
/// `middleware::hide_other_graphs` has narrowed the list to the key's graphs.
#[derive(Clone, Debug)]
pub struct MissingGraph {
    pub name: String,
    pub existing: Vec<String>,
}

impl MissingGraph {
    /// The `graph_not_found` response naming only the existing graphs `sees` lets through.
    pub fn response_for(&self, sees: impl Fn(&str) -> bool) -> Response {
        let existing = self.existing.iter().filter(|g| sees(g)).cloned().collect();
        HttpError::from(EngineError::GraphNotFound {
            name: self.name.clone(),
            existing,
        })
        .into_response()
    }
}

impl HttpError {
    /// A `graph_not_found` that came through an `ApiError` (which keeps no list of
    /// graphs) for `graph`, with the graphs that exist, so `hide_other_graphs` narrows
    /// the answer to the caller's graphs. Any other error as it is.
    pub fn naming_missing(self, engine: &crate::engine::Engine, graph: &str) -> Self {
        if self.code != ErrorCode::GraphNotFound || self.missing_graph.is_some() {
            return self;
        }
        HttpError::from(EngineError::GraphNotFound {
            name: graph.to_owned(),
            existing: engine
                .graph_names()
                .iter()
                .map(|g| g.as_str().to_owned())
                .collect(),
        })
    }

    /// An error with `code`, answered with the code's status (`ErrorCode::http_status`).
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            status: status_of(code),
            code,
            message: message.into(),
            param: None,
            report: None,
            missing_graph: None,
            scope_needed: None,
        }
    }

    /// 400 about one argument.
    pub fn bad_param(param: &str, message: impl Into<String>) -> Self {
        Self {
            param: Some(param.to_owned()),
            ..Self::new(ErrorCode::InvalidArgument, message)
        }
    }
}

fn error_scope(response: &mut Response, scope: String) {
    response
        .extensions_mut()
        .insert(super::auth::ScopeNeeded(scope));
}

fn status_of(code: ErrorCode) -> StatusCode {
    StatusCode::from_u16(code.http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
}

impl From<ApiError> for HttpError {
    fn from(error: ApiError) -> Self {
        Self {
            status: status_of(error.code),
            code: error.code,
            message: error.message,
            param: error.param,
            report: error
                .validation
                .as_deref()
                .map(crate::report::validation_json),
            missing_graph: None,
            scope_needed: None,
        }
    }
}

impl From<EngineError> for HttpError {
    fn from(error: EngineError) -> Self {
        let missing_graph = match &error {
            EngineError::GraphNotFound { name, existing } => Some(Box::new(MissingGraph {
                name: name.clone(),
                existing: existing.clone(),
            })),
            _ => None,
        };
        Self {
            missing_graph,
            scope_needed: None,
            ..ApiError::from(error).into()
        }
    }
}

impl IntoResponse for HttpError {
    fn into_response(self) -> Response {
        if self.status.is_server_error() {
            tracing::error!(code = self.code.as_str(), message = %self.message, "request failed");
        }
        let mut error = serde_json::json!({ "code": self.code.as_str(), "message": self.message });
        if let Some(param) = self.param {
            error["param"] = param.into();
        }
        if let Some(report) = self.report {
            error["report"] = report;
        }
        let mut response =
            (self.status, Json(serde_json::json!({ "error": error }))).into_response();
        if let Some(missing) = self.missing_graph {
            response.extensions_mut().insert(*missing);
        }
        if let Some(scope) = self.scope_needed {
            error_scope(&mut response, scope);
        }
        response
    }
}
