//! SHACL over HTTP: `GET|PUT|DELETE /graphs/{g}/shapes` (the published shapes and their
//! mode) and `GET /graphs/{g}/conformance` (the whole-graph report, paged).
//!
//! Publishing and removing shapes change what later writes may do, so they need the
//! `admin` scope; reading them needs `read`.

use axum::Json;
use axum::body::Body;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};

use super::auth::{Caller, Right, authorize};
use super::error::HttpError;
use super::params::{Params, commit_request, content_type, read_body};
use super::stream::blocking;
use super::{AppState, outcome_json};
use crate::engine::{GraphWrite, ImportFormat, ImportOptions, parse_triples};
use crate::error::ErrorCode;
use crate::model::NamedNode;
use crate::report::{conformance_json, report_json, shapes_turtle};
use crate::shacl::{SHAPES_GRAPH, ValidationMode};

fn shapes_not_found(graph: &str) -> HttpError {
    HttpError::new(
        ErrorCode::ShapesNotFound,
        format!(
            "graph {graph:?} has no SHACL shapes; publish some with PUT /graphs/{graph}/shapes"
        ),
    )
}

fn number(params: &Params, key: &str) -> Result<Option<u64>, HttpError> {
    params
        .one(key)?
        .map(|v| {
            crate::model::parse_commit_seq(v)
                .ok_or_else(|| HttpError::bad_param(key, format!("expected a number, got {v:?}")))
        })
        .transpose()
}

/// `GET /graphs/{g}/shapes[?as_of=N]`: the shapes as Turtle; the mode in
/// `Strata-Validation-Mode`.
pub async fn get_shapes(
    State(state): State<AppState>,
    Path(graph): Path<String>,
    RawQuery(raw): RawQuery,
    caller: Caller,
) -> Result<Response, HttpError> {
    super::check_graph_name(&graph)?;
    authorize(&caller, Right::Read, Some(&graph))?;
    let params = Params::parse(raw.unwrap_or_default().as_bytes())?;
    let as_of = number(&params, "as_of")?;
    let engine = state.engine.clone();
    let name = graph.clone();
    let (seq, active) = blocking(move || {
        let graph = engine.graph(&name)?;
        let reader = graph.reader(crate::engine::ReadAt {
            commit: as_of,
            moment: None,
        })?;
        Ok((reader.seq(), reader.shapes()?))
    })
    .await?;
    let active = active.ok_or_else(|| shapes_not_found(&graph))?;
    let mut response = (
        [(header::CONTENT_TYPE, "text/turtle; charset=utf-8")],
        shapes_turtle(&active.shapes.triples),
    )
        .into_response();
    response.headers_mut().insert(
        "strata-validation-mode",
        HeaderValue::from_static(active.mode.name()),
    );
    Ok(super::with_commit(response, seq))
}

/// `PUT /graphs/{g}/shapes?mode=off|warn|reject[&dry_run=true]`: publishes the body
/// (Turtle, N-Triples, N-Quads or TriG) as the graph's shapes, replacing the current ones,
/// as one commit. `dry_run` checks them and reports what the current data would violate.
pub async fn put_shapes(
    State(state): State<AppState>,
    Path(graph): Path<String>,
    RawQuery(raw): RawQuery,
    caller: Caller,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, HttpError> {
    super::check_graph_name(&graph)?;
    let rights = authorize(&caller, Right::Admin, Some(&graph))?;
    let params = Params::parse(raw.unwrap_or_default().as_bytes())?;
    let mode = match params.one("mode")? {
        None => ValidationMode::Warn,
        Some(text) => ValidationMode::parse(text).ok_or_else(|| {
            HttpError::bad_param(
                "mode",
                format!("mode must be off, warn or reject, got {text:?}"),
            )
        })?,
    };
    let dry_run = matches!(params.one("dry_run")?, Some("true" | "1"));
    let media = content_type(&headers);
    let format = match media.as_deref() {
        Some("text/turtle" | "application/x-turtle") => ImportFormat::from_name("turtle"),
        Some("application/n-triples" | "text/plain") => ImportFormat::from_name("ntriples"),
        Some("application/n-quads") => ImportFormat::from_name("nquads"),
        Some("application/trig") => ImportFormat::from_name("trig"),
        _ => None,
    }
    .ok_or_else(|| {
        HttpError::new(
            ErrorCode::UnsupportedMediaType,
            format!(
                "Content-Type {} is not accepted for shapes; use text/turtle, application/n-triples, application/n-quads or application/trig",
                media.as_deref().unwrap_or("(none)")
            ),
        )
    })?;
    let request = commit_request(&headers, &rights, &graph)?;
    let body = read_body(body, state.config.body_limit_bytes).await?;
    let engine = state.engine.clone();
    let name = graph.clone();
    let answer = blocking(move || {
        let options = ImportOptions {
            format,
            base_iri: None,
            into_graph: None,
            one_graph: false,
            source_name: "shapes".into(),
        };
        let triples = parse_triples(&body[..], &options, None)?;
        let graph = if dry_run {
            engine.graph(&name)?
        } else {
            engine.graph_to_write(&name, rights.admin_on(&name))?
        };
        let preview = graph.preview_shapes(triples.clone())?;
        let mut answer = serde_json::json!({
            "mode": mode.name(),
            "shape_count": preview.shapes.shape_count,
            "target_classes": preview.shapes.target_classes.iter().map(|n| n.as_str()).collect::<Vec<_>>(),
            "unknown_classes": preview.unknown_classes.iter().map(|n| n.as_str()).collect::<Vec<_>>(),
            "unknown_properties": preview.unknown_properties.iter().map(|n| n.as_str()).collect::<Vec<_>>(),
            "dry_run": dry_run,
            "report": report_json(&preview.report, 0, crate::report::INLINE_RESULTS),
        });
        if dry_run {
            return Ok((preview.validated_at_seq, answer));
        }
        let outcome = graph.publish_shapes(triples, mode, &request)?;
        if let serde_json::Value::Object(fields) = outcome_json(&outcome) {
            for (key, value) in fields {
                answer[key] = value;
            }
        }
        Ok((outcome.head_seq, answer))
    })
    .await?;
    let (seq, answer) = answer;
    Ok(super::with_commit(Json(answer).into_response(), seq))
}

/// `DELETE /graphs/{g}/shapes`: stops validation by removing the shapes (one commit).
pub async fn delete_shapes(
    State(state): State<AppState>,
    Path(graph): Path<String>,
    caller: Caller,
    headers: HeaderMap,
) -> Result<Response, HttpError> {
    super::check_graph_name(&graph)?;
    let rights = authorize(&caller, Right::Admin, Some(&graph))?;
    let request = commit_request(&headers, &rights, &graph)?;
    let engine = state.engine.clone();
    let name = graph.clone();
    let (outcome, existed) = blocking(move || {
        let graph = engine.graph(&name)?;
        Ok(graph.write_graph(
            Some(&NamedNode::new_unchecked(SHAPES_GRAPH)),
            GraphWrite::Delete,
            None,
            &request,
        )?)
    })
    .await?;
    if !existed {
        return Err(shapes_not_found(&graph));
    }
    Ok(super::with_commit(
        Json(outcome_json(&outcome)).into_response(),
        outcome.head_seq,
    ))
}

/// `GET /graphs/{g}/conformance?offset=&limit=`: the whole-graph report at the head.
pub async fn conformance(
    State(state): State<AppState>,
    Path(graph): Path<String>,
    RawQuery(raw): RawQuery,
    caller: Caller,
) -> Result<Response, HttpError> {
    super::check_graph_name(&graph)?;
    authorize(&caller, Right::Read, Some(&graph))?;
    let params = Params::parse(raw.unwrap_or_default().as_bytes())?;
    let (offset, limit) = super::history::page(&params)?;
    let engine = state.engine.clone();
    let name = graph.clone();
    let conformance = blocking(move || Ok(engine.graph(&name)?.conformance()?)).await?;
    let conformance = conformance.ok_or_else(|| shapes_not_found(&graph))?;
    let mut body = conformance_json(&conformance, offset, limit);
    body["graph"] = graph.clone().into();
    Ok(super::with_commit(
        Json(body).into_response(),
        conformance.validated_at_seq,
    ))
}
