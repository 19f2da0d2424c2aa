//! SPARQL 1.1 Protocol queries: `GET`/`POST /graphs/{g}/sparql` (and `/sparql` for the
//! default graph), with content negotiation and pinned reads.

use axum::body::Body;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, Uri};
use axum::response::{IntoResponse, Response};

use super::auth::{Caller, Right, authorize};
use super::error::HttpError;
use super::negotiate::{self, GRAPHS, SOLUTIONS};
use super::params::{Params, content_type, read_body, utf8_body};
use super::service_description::{self, Endpoint};
use super::stream::{Head, stream};
use super::{AppState, DEFAULT_GRAPH_NAME, request_base_iri};
use crate::engine::{EngineError, ReadOptions};
use crate::error::ErrorCode;
use crate::sparql::{Query, QueryError, write_results};

/// How long after the query limit a response head may still take before the client is
/// answered with a timeout anyway.
const RESPONSE_GRACE: std::time::Duration = std::time::Duration::from_secs(1);

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
        return service_description::respond(state, graph, &path, Endpoint::Query, caller, headers)
            .await;
    }
    let params = Params::parse(raw.unwrap_or_default().as_bytes())?;
    if params.contains("update") {
        // Not a 405: this route takes GET (for queries); the request is what is wrong.
        return Err(HttpError::bad_param(
            "update",
            "updates must be sent with POST to the update endpoint",
        ));
    }
    let text = params
        .one("query")?
        .ok_or_else(|| HttpError::bad_param("query", "missing query parameter"))?
        .to_owned();
    run(state, graph, text, params, caller, headers).await
}

pub async fn post(
    State(state): State<AppState>,
    Path(graph): Path<String>,
    RawQuery(raw): RawQuery,
    caller: Caller,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, HttpError> {
    // Who may read comes before the body: a caller without the right must not make the
    // server buffer (and decompress) up to the body limit first.
    super::check_graph_name(&graph)?;
    authorize(&caller, Right::Read, Some(&graph))?;
    let mut params = Params::parse(raw.unwrap_or_default().as_bytes())?;
    let body = read_body(body, state.config.body_limit_bytes).await?;
    let text = match content_type(&headers).as_deref() {
        Some("application/sparql-query") => {
            if params.contains("query") {
                return Err(HttpError::bad_param(
                    "query",
                    "the query is the body; do not also pass query=",
                ));
            }
            utf8_body(&body, "query")?
        }
        Some("application/x-www-form-urlencoded") => {
            params.extend(Params::parse(&body)?);
            if params.contains("update") {
                return Err(HttpError::bad_param(
                    "update",
                    "send updates to the update endpoint",
                ));
            }
            params
                .one("query")?
                .ok_or_else(|| HttpError::bad_param("query", "missing query parameter"))?
                .to_owned()
        }
        other => {
            return Err(HttpError::new(
                ErrorCode::UnsupportedMediaType,
                format!(
                    "Content-Type {} is not accepted; use application/sparql-query or application/x-www-form-urlencoded",
                    other.unwrap_or("(none)")
                ),
            ));
        }
    };
    run(state, graph, text, params, caller, headers).await
}

async fn run(
    state: AppState,
    graph: String,
    text: String,
    params: Params,
    caller: Caller,
    headers: HeaderMap,
) -> Result<Response, HttpError> {
    super::check_graph_name(&graph)?;
    authorize(&caller, Right::Read, Some(&graph))?;
    super::wait_for_min_commit(&state, &graph, &headers).await?;
    let at = params.read_at()?;
    let options = ReadOptions {
        default_graph_uris: params.iris("default-graph-uri")?,
        named_graph_uris: params.iris("named-graph-uri")?,
        timeout: Some(state.config.query_timeout()),
        allowed_services: state
            .config
            .service_allowlist
            .iter()
            .filter_map(|iri| crate::model::NamedNode::new(iri.as_str()).ok())
            .collect(),
        ..ReadOptions::default()
    };
    let base = request_base_iri(&state, &headers, &format!("/graphs/{graph}/sparql"));
    let query = crate::sparql::parse_query(&text, Some(&base)).map_err(EngineError::from)?;
    let (content_type, format) = match &query {
        Query::Select { .. } | Query::Ask { .. } => negotiate::choose(&headers, SOLUTIONS)?,
        Query::Construct { .. } | Query::Describe { .. } => negotiate::choose(&headers, GRAPHS)?,
    };
    let engine = state.engine.clone();
    let metrics = state.metrics.clone();
    let limit = state.config.query_timeout();
    let timeouts = state.metrics.clone();
    let trailer = super::stream::asks_for_trailers(&headers);
    // The evaluator checks cancellation at every row it reads and every 1,024 steps of
    // its joins, sorts and groupings, so the work stops within milliseconds of the limit;
    // the client gets its 503 at the limit (plus a grace for the response head)
    // regardless.
    let answer = tokio::time::timeout(
        limit + RESPONSE_GRACE,
        stream(move |writer| {
            if trailer {
                writer.allow_trailer();
            }
            let graph = engine.graph(&graph)?;
            let answer = match graph
                .reader(at)
                .and_then(|reader| reader.query_parsed(&query, &options))
            {
                Err(EngineError::Query(QueryError::Cancelled | QueryError::Timeout(_))) => {
                    metrics
                        .query_timeouts
                        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    return Err(EngineError::from(QueryError::Timeout(limit)).into());
                }
                other => other?,
            };
            let mut head = Head::ok(content_type)
                .with("strata-commit", answer.served_at_seq)
                .with("vary", "accept");
            if !answer.search.is_empty() {
                head = head.with(
                    "strata-search",
                    crate::report::search_header(&answer.search),
                );
            }
            writer.set_head(head);
            let written = write_results(answer.results, format, &mut *writer);
            match written.map_err(|error| answer.control.explain(error)) {
                Ok(_) => Ok(()),
                Err(QueryError::Timeout(_)) => {
                    metrics
                        .query_timeouts
                        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    Err(EngineError::from(QueryError::Timeout(limit)).into())
                }
                Err(error) => Err(EngineError::from(error).into()),
            }
        }),
    )
    .await;
    Ok(answer.unwrap_or_else(|_| {
        timeouts
            .query_timeouts
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        HttpError::from(EngineError::from(QueryError::Timeout(limit))).into_response()
    }))
}
