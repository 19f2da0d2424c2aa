//! SPARQL 1.1 Protocol updates: `POST /graphs/{g}/update` (and `/update`); each request
//! is one commit.

use axum::Json;
use axum::body::Body;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, Uri};
use axum::response::{IntoResponse, Response};
use spargebra::GraphUpdateOperation;

use super::auth::{Caller, Right, authorize};
use super::error::HttpError;
use super::params::{Params, commit_request, content_type, read_body, utf8_body};
use super::service_description::{self, Endpoint};
use super::stream::blocking;
use super::{AppState, DEFAULT_GRAPH_NAME, outcome_json, request_base_iri};
use crate::engine::EngineError;
use crate::error::ErrorCode;
use crate::sparql::UpdateOptions;

pub async fn post_default(
    state: State<AppState>,
    raw: RawQuery,
    caller: Caller,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, HttpError> {
    post(
        state,
        Path(DEFAULT_GRAPH_NAME.to_owned()),
        raw,
        caller,
        headers,
        body,
    )
    .await
}

pub async fn get_default(
    state: State<AppState>,
    uri: Uri,
    raw: RawQuery,
    caller: Caller,
    headers: HeaderMap,
) -> Result<Response, HttpError> {
    get(
        state,
        Path(DEFAULT_GRAPH_NAME.to_owned()),
        uri,
        raw,
        caller,
        headers,
    )
    .await
}

/// `GET` without parameters: the endpoint's service description. An update sent with
/// `GET` is refused: updates change the store, and only `POST` may (SPARQL 1.1 Protocol).
pub async fn get(
    State(state): State<AppState>,
    Path(graph): Path<String>,
    uri: Uri,
    RawQuery(raw): RawQuery,
    caller: Caller,
    headers: HeaderMap,
) -> Result<Response, HttpError> {
    if raw.as_deref().unwrap_or_default().is_empty() {
        let path = uri.path().to_owned();
        return service_description::respond(
            state,
            graph,
            &path,
            Endpoint::Update,
            caller,
            headers,
        )
        .await;
    }
    // Not a 405: this route takes GET (for its description); the request is what is wrong.
    let params = Params::parse(raw.unwrap_or_default().as_bytes())?;
    let param = if params.contains("update") {
        "update"
    } else {
        "query"
    };
    Err(HttpError::bad_param(
        param,
        "updates must be sent with POST; GET without parameters describes this endpoint",
    ))
}

pub async fn post(
    State(state): State<AppState>,
    Path(graph): Path<String>,
    RawQuery(raw): RawQuery,
    caller: Caller,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, HttpError> {
    super::check_graph_name(&graph)?;
    let rights = authorize(&caller, Right::Write, Some(&graph))?;
    let mut params = Params::parse(raw.unwrap_or_default().as_bytes())?;
    let body = read_body(body, state.config.body_limit_bytes).await?;
    let text = match content_type(&headers).as_deref() {
        Some("application/sparql-update") => {
            if params.contains("update") {
                return Err(HttpError::bad_param(
                    "update",
                    "the update is the body; do not also pass update=",
                ));
            }
            utf8_body(&body, "update")?
        }
        Some("application/x-www-form-urlencoded") => {
            params.extend(Params::parse(&body)?);
            if params.contains("query") {
                return Err(HttpError::bad_param(
                    "query",
                    "send queries to the sparql endpoint",
                ));
            }
            params
                .one("update")?
                .ok_or_else(|| HttpError::bad_param("update", "missing update parameter"))?
                .to_owned()
        }
        other => {
            return Err(HttpError::new(
                ErrorCode::UnsupportedMediaType,
                format!(
                    "Content-Type {} is not accepted; use application/sparql-update or application/x-www-form-urlencoded",
                    other.unwrap_or("(none)")
                ),
            ));
        }
    };
    params.refuse_read_pins()?;
    let options = UpdateOptions {
        using_graph_uris: params.iris("using-graph-uri")?,
        using_named_graph_uris: params.iris("using-named-graph-uri")?,
        ..UpdateOptions::default()
    };
    let base = request_base_iri(&state, &headers, &format!("/graphs/{graph}/update"));
    let update = crate::sparql::parse_update(&text, Some(&base)).map_err(EngineError::from)?;
    let protocol_dataset =
        !options.using_graph_uris.is_empty() || !options.using_named_graph_uris.is_empty();
    let text_dataset = update.operations.iter().any(|op| {
        matches!(
            op,
            GraphUpdateOperation::DeleteInsert { using: Some(_), .. }
        )
    });
    if protocol_dataset && text_dataset {
        return Err(HttpError::bad_param(
            "using-graph-uri",
            "the update names its dataset (USING or WITH); do not also pass using-graph-uri or using-named-graph-uri",
        ));
    }
    let request = commit_request(&headers, &rights, &graph)?;
    let engine = state.engine.clone();
    let outcome = blocking(move || {
        // Only `main` is created by its first write, and only for a key that may create
        // graphs.
        let graph = if graph == DEFAULT_GRAPH_NAME {
            engine.graph_to_write(&graph, rights.admin_on(&graph))?
        } else {
            engine.graph(&graph)?
        };
        Ok(graph.update(&text, Some(&base), &options, &request)?)
    })
    .await?;
    if outcome.commit_seq.is_some() && !outcome.idempotent_replay {
        state
            .metrics
            .commits
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
    let mut response = Json(outcome_json(&outcome)).into_response();
    if let Ok(value) =
        HeaderValue::from_str(&outcome.commit_seq.unwrap_or(outcome.head_seq).to_string())
    {
        response.headers_mut().insert("strata-commit", value);
    }
    Ok(response)
}
