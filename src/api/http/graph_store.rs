//! SPARQL 1.1 Graph Store HTTP Protocol at `/graphs/{g}/store` (and `/store`):
//! `?default` or `?graph=IRI`; GET, HEAD, PUT, POST, DELETE. Each write is one commit.

use axum::Json;
use axum::body::Body;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::auth::authorize;
use super::config::Scope;
use super::error::HttpError;
use super::negotiate::{self, GRAPHS};
use super::params::{Params, commit_request, content_type, read_body};
use super::stream::{Head, blocking, stream};
use super::{AppState, DEFAULT_GRAPH_NAME, outcome_json, request_base_iri};
use crate::engine::{GraphWrite, ImportFormat, ImportOptions};
use crate::model::NamedNode;
use crate::sparql::QueryResults;

/// Which graph a request names.
enum Target {
    Default,
    Named(NamedNode),
    /// No `?default` nor `?graph`: the store itself (POST creates a new graph).
    Store,
}

fn target(params: &Params) -> Result<Target, HttpError> {
    match (params.contains("default"), params.one("graph")?) {
        (true, Some(_)) => Err(HttpError::bad_param(
            "graph",
            "give ?default or ?graph=IRI, not both",
        )),
        (true, None) => Ok(Target::Default),
        (false, Some(iri)) => NamedNode::new(iri)
            .map(Target::Named)
            .map_err(|e| HttpError::bad_param("graph", format!("invalid IRI {iri:?}: {e}"))),
        (false, None) => Ok(Target::Store),
    }
}

pub async fn get_default(
    state: State<AppState>,
    raw: RawQuery,
    headers: HeaderMap,
) -> Result<Response, HttpError> {
    get(state, Path(DEFAULT_GRAPH_NAME.to_owned()), raw, headers).await
}

pub async fn get(
    State(state): State<AppState>,
    Path(graph): Path<String>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> Result<Response, HttpError> {
    super::check_graph_name(&graph)?;
    authorize(&state.config, &headers, Scope::Read, Some(&graph))?;
    let params = Params::parse(raw.unwrap_or_default().as_bytes())?;
    let name = match target(&params)? {
        Target::Default => None,
        Target::Named(name) => Some(name),
        Target::Store => {
            return Err(HttpError::bad_param(
                "graph",
                "name a graph: ?default or ?graph=IRI",
            ));
        }
    };
    let options = params.read_options()?;
    let (content_type, format) = negotiate::choose(&headers, GRAPHS)?;
    let engine = state.engine.clone();
    Ok(stream(move |writer| {
        let graph = engine.graph(&graph)?;
        let seq = graph.resolve_seq(options.as_of, options.as_of_time)?;
        let quads = graph.graph_quads(seq, name.as_ref()).ok_or_else(|| {
            HttpError::new(
                StatusCode::NOT_FOUND,
                "rdf_graph_not_found",
                format!(
                    "no graph {} at commit {seq}",
                    name.as_ref().map_or("", |n| n.as_str())
                ),
            )
        })?;
        writer.set_head(
            Head::ok(content_type)
                .with("strata-commit", seq)
                .with("vary", "accept"),
        );
        let triples = quads
            .into_iter()
            .map(|q| Ok(oxrdf::Triple::new(q.subject, q.predicate, q.object)));
        let results = QueryResults::Graph(spareval::QueryTripleIter::new(triples));
        crate::sparql::write_results(results, format, &mut *writer)
            .map(|_| ())
            .map_err(|e| crate::engine::EngineError::from(e).into())
    })
    .await)
}

pub async fn put_default(
    state: State<AppState>,
    raw: RawQuery,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, HttpError> {
    write(
        state,
        DEFAULT_GRAPH_NAME.to_owned(),
        raw,
        headers,
        body,
        GraphWrite::Replace,
    )
    .await
}

pub async fn post_default(
    state: State<AppState>,
    raw: RawQuery,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, HttpError> {
    write(
        state,
        DEFAULT_GRAPH_NAME.to_owned(),
        raw,
        headers,
        body,
        GraphWrite::Merge,
    )
    .await
}

pub async fn delete_default(
    state: State<AppState>,
    raw: RawQuery,
    headers: HeaderMap,
) -> Result<Response, HttpError> {
    write(
        state,
        DEFAULT_GRAPH_NAME.to_owned(),
        raw,
        headers,
        Body::empty(),
        GraphWrite::Delete,
    )
    .await
}

pub async fn put(
    state: State<AppState>,
    Path(graph): Path<String>,
    raw: RawQuery,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, HttpError> {
    write(state, graph, raw, headers, body, GraphWrite::Replace).await
}

pub async fn post(
    state: State<AppState>,
    Path(graph): Path<String>,
    raw: RawQuery,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, HttpError> {
    write(state, graph, raw, headers, body, GraphWrite::Merge).await
}

pub async fn delete(
    state: State<AppState>,
    Path(graph): Path<String>,
    raw: RawQuery,
    headers: HeaderMap,
) -> Result<Response, HttpError> {
    write(
        state,
        graph,
        raw,
        headers,
        Body::empty(),
        GraphWrite::Delete,
    )
    .await
}

async fn write(
    State(state): State<AppState>,
    graph: String,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
    body: Body,
    mode: GraphWrite,
) -> Result<Response, HttpError> {
    super::check_graph_name(&graph)?;
    authorize(&state.config, &headers, Scope::Write, Some(&graph))?;
    let params = Params::parse(raw.unwrap_or_default().as_bytes())?;
    let store_path = format!("/graphs/{graph}/store");
    let (name, created_iri) = match (target(&params)?, mode) {
        (Target::Default, _) => (None, None),
        (Target::Named(name), _) => (Some(name), None),
        (Target::Store, GraphWrite::Merge) => {
            // POST to the store itself: a new graph with a server-chosen IRI (201 + Location).
            let base = request_base_iri(&headers, &store_path);
            let iri = format!("{base}/{}", oxrdf::BlankNode::default().as_str());
            let name = NamedNode::new(&iri).map_err(|e| {
                HttpError::bad_param("graph", format!("cannot mint a graph IRI: {e}"))
            })?;
            (Some(name), Some(iri))
        }
        (Target::Store, _) => {
            return Err(HttpError::bad_param(
                "graph",
                "name a graph: ?default or ?graph=IRI",
            ));
        }
    };
    let document = if mode == GraphWrite::Delete {
        None
    } else {
        let format = rdf_format(&headers)?;
        let body = read_body(body, state.config.body_limit_bytes).await?;
        let base = name
            .as_ref()
            .map(|n| n.as_str().to_owned())
            .unwrap_or_else(|| request_base_iri(&headers, &store_path));
        Some((format, body, base))
    };
    let request = commit_request(&headers)?;
    let engine = state.engine.clone();
    let target_name = name.clone();
    let (outcome, existed) = blocking(move || {
        let graph = if graph == DEFAULT_GRAPH_NAME {
            engine.graph_or_create(&graph)?
        } else {
            engine.graph(&graph)?
        };
        let parsed = match document {
            None => None,
            Some((format, body, base)) => {
                let options = ImportOptions {
                    format,
                    base_iri: Some(base),
                    into_graph: target_name.clone(),
                    source_name: "request body".into(),
                };
                // Only triple formats are accepted, so every quad lands in the target graph.
                Some(graph.parse_document(&body[..], &options, |_| {})?)
            }
        };
        Ok(graph.write_graph(target_name.as_ref(), mode, parsed, &request)?)
    })
    .await?;
    if mode == GraphWrite::Delete && !existed && name.is_some() {
        return Err(HttpError::new(
            StatusCode::NOT_FOUND,
            "rdf_graph_not_found",
            format!("no graph {}", name.as_ref().map_or("", |n| n.as_str())),
        ));
    }
    if outcome.commit_seq.is_some() && !outcome.idempotent_replay {
        state
            .metrics
            .commits
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
    let status = if !existed
        && mode != GraphWrite::Delete
        && (outcome.inserted > 0 || created_iri.is_some())
    {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    let mut response = (status, Json(outcome_json(&outcome))).into_response();
    if let Ok(value) = HeaderValue::from_str(&outcome.head_seq.to_string()) {
        response.headers_mut().insert("strata-commit", value);
    }
    if let Some(iri) = created_iri
        && let Ok(value) = HeaderValue::from_str(&format!("{store_path}?graph={}", encode(&iri)))
    {
        response.headers_mut().insert(header::LOCATION, value);
    }
    Ok(response)
}

fn rdf_format(headers: &HeaderMap) -> Result<ImportFormat, HttpError> {
    let media = content_type(headers);
    let format = match media.as_deref() {
        Some("text/turtle" | "application/x-turtle") => ImportFormat::from_name("turtle"),
        Some("application/n-triples" | "text/plain") => ImportFormat::from_name("ntriples"),
        Some("application/rdf+xml" | "application/xml") => ImportFormat::from_name("rdfxml"),
        Some("application/ld+json") => ImportFormat::from_name("jsonld"),
        _ => None,
    };
    format.ok_or_else(|| {
        HttpError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_media_type",
            format!(
                "Content-Type {} is not accepted; use text/turtle, application/n-triples, application/rdf+xml or application/ld+json",
                media.as_deref().unwrap_or("(none)")
            ),
        )
    })
}

fn encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len() * 3);
    for byte in value.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}
