//! `GET /healthz` (no authentication) and `GET /metrics` (Prometheus text).

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, header};
use axum::response::{IntoResponse, Response};

use super::AppState;
use super::auth::authenticate;
use super::error::HttpError;

pub async fn healthz() -> Response {
    Json(serde_json::json!({ "status": "ok" })).into_response()
}

pub async fn metrics(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<Response, HttpError> {
    let rights = authenticate(&state.config, &headers)?;
    let text = state
        .metrics
        .render(&state.engine, |graph| rights.sees(graph));
    Ok(([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], text).into_response())
}
