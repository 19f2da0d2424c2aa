//! The agent tools' JSON contract over plain HTTP: records (`POST /graphs/{g}/records`,
//! the MCP `commit` body), the ontology (`POST /graphs/{g}/ontology`, the `configure`
//! body) and JSON queries (`POST /graphs/{g}/query`, the `query` body: structured,
//! traverse, search and every other mode). Same arguments, same envelope
//! (`summary`, `data`, `served_at_seq`, `next`…), same cursors (a cursor made over MCP
//! pages here and back), same error codes.
//!
//! What differs is who approves a removal: no person is on the line, so the request
//! itself is the approval, as a SPARQL `DELETE` is (`dry_run` shows it first):
//! `records::commit_as_requested`.

use axum::Json;
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use super::auth::{Caller, Right, authorize};
use super::error::HttpError;
use super::params::{commit_request, content_type, read_body};
use super::{AppState, with_commit};
use crate::error::{ErrorCode, parse_args};
use crate::query::QueryArgs;
use crate::query::envelope::Envelope;
use crate::records::{CommitArgs, ConfigureArgs, WriteArgs};

/// `POST /graphs/{g}/records`: one commit of records, links and field values.
pub async fn post_records(
    state: State<AppState>,
    graph: Path<String>,
    caller: Caller,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, HttpError> {
    write::<CommitArgs>(state, graph, caller, headers, body).await
}

/// `POST /graphs/{g}/ontology`: define or evolve the ontology records are written
/// against (`publish_schema` too, which needs the admin scope, like `PUT …/shapes`).
pub async fn post_ontology(
    state: State<AppState>,
    graph: Path<String>,
    caller: Caller,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, HttpError> {
    write::<ConfigureArgs>(state, graph, caller, headers, body).await
}

/// A write with the arguments of `A`, approved by the request itself.
async fn write<A: WriteArgs>(
    State(state): State<AppState>,
    Path(graph): Path<String>,
    caller: Caller,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, HttpError> {
    super::check_graph_name(&graph)?;
    let rights = authorize(&caller, Right::Write, Some(&graph))?;
    let mut args: A = json_body(&state, &headers, body, &graph).await?;
    if args.needs_admin() {
        authorize(&caller, Right::Admin, Some(&graph))?;
    }
    // The write headers every HTTP write takes, for what the body leaves out.
    let request = commit_request(&headers, &rights, &graph)?;
    let admin = rights.admin_on(&graph);
    let path_graph = graph.clone();
    *args.graph_mut() = Some(graph);
    args.fill_from(&request);
    let author = request.author;
    let engine = state.engine.clone();
    let envelope = super::stream::blocking(move || {
        let prepared = args.prepare(&engine, admin)?;
        Ok(crate::records::commit_as_requested(prepared, author)?)
    })
    .await
    .map_err(|e| e.naming_missing(&state.engine, &path_graph))?;
    Ok(with_envelope(envelope))
}

/// `POST /graphs/{g}/query`: a JSON query in any `query` mode, answered as one page.
pub async fn post_query(
    State(state): State<AppState>,
    Path(graph): Path<String>,
    caller: Caller,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, HttpError> {
    super::check_graph_name(&graph)?;
    authorize(&caller, Right::Read, Some(&graph))?;
    super::wait_for_min_commit(&state, &graph, &headers).await?;
    let mut args: QueryArgs = json_body(&state, &headers, body, &graph).await?;
    args.graph = Some(graph.clone());
    let context = state.mcp.clone();
    // A client that goes away cancels its query: dropping this future drops the guard.
    let cancellation = crate::sparql::CancellationToken::new();
    let _cancel_on_drop = CancelOnDrop(cancellation.clone());
    let envelope =
        super::stream::blocking(move || Ok(crate::query::run(&context, args, cancellation)?))
            .await
            .map_err(|e| e.naming_missing(&state.engine, &graph))?;
    Ok(with_envelope(envelope))
}

struct CancelOnDrop(crate::sparql::CancellationToken);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

/// Reads a JSON object body into the tool's arguments; a `graph` in it must be the
/// graph of the path (a `next` from an earlier answer carries it).
async fn json_body<T: serde::de::DeserializeOwned>(
    state: &AppState,
    headers: &HeaderMap,
    body: Body,
    graph: &str,
) -> Result<T, HttpError> {
    match content_type(headers).as_deref() {
        Some("application/json") => {}
        other => {
            return Err(HttpError::new(
                ErrorCode::UnsupportedMediaType,
                format!(
                    "Content-Type {} is not accepted; send the arguments as application/json",
                    other.unwrap_or("(none)")
                ),
            ));
        }
    }
    let bytes = read_body(body, state.config.body_limit_bytes).await?;
    let value: Value = serde_json::from_slice(&bytes)
        .map_err(|e| HttpError::bad_param("body", format!("not JSON: {e}")))?;
    let Value::Object(mut object) = value else {
        return Err(HttpError::bad_param("body", "expected a JSON object"));
    };
    match object.get("graph") {
        None | Some(Value::Null) => {}
        Some(Value::String(named)) if named == graph => {}
        Some(other) => {
            return Err(HttpError::bad_param(
                "graph",
                format!("the body names graph {other}, the path {graph:?}; leave it out"),
            ));
        }
    }
    object.remove("graph");
    Ok(parse_args(object)?)
}

/// The envelope as the body, its commit in `Strata-Commit`.
fn with_envelope(envelope: Envelope) -> Response {
    let seq = envelope.served_at_seq;
    with_commit(Json(envelope).into_response(), seq)
}
