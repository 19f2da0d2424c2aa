//! SPARQL 1.1 Graph Store HTTP Protocol at `/graphs/{g}/store` (and `/store` for graph
//! `main`). Graphs are named indirectly (`?default`, `?graph=IRI`) or directly: the
//! request URL `…/store/<path>` is itself the graph IRI. GET, HEAD, PUT, POST
//! (`multipart/form-data` too), DELETE; each write is one commit.

use axum::Json;
use axum::body::Body;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::auth::{Caller, Right, authorize};
use super::error::HttpError;
use super::negotiate::{self, GRAPHS};
use super::params::{Params, commit_request, content_type, stream_body};
use super::stream::{Head, blocking, stream};
use super::{AppState, DEFAULT_GRAPH_NAME, outcome_json, request_base_iri};
use crate::engine::{GraphWrite, ImportFormat, ImportOptions};
use crate::error::ErrorCode;
use crate::model::NamedNode;
use crate::sparql::QueryResults;

/// Which graph a request names.
enum Target {
    Default,
    Named(NamedNode),
    /// No `?default`, no `?graph`, no path: the store itself (POST creates a graph).
    Store,
}

/// Where a request came in: the Strata graph, and the direct-identification path if any.
pub struct Location {
    graph: String,
    /// The route prefix, `/store` or `/graphs/{g}/store`.
    store_path: String,
    direct: Option<String>,
}

impl Location {
    fn new(graph: String, alias: bool, direct: Option<String>) -> Self {
        let store_path = if alias {
            "/store".to_owned()
        } else {
            format!("/graphs/{graph}/store")
        };
        Self {
            graph,
            store_path,
            direct,
        }
    }

    fn target(
        &self,
        state: &AppState,
        params: &Params,
        headers: &HeaderMap,
    ) -> Result<Target, HttpError> {
        if let Some(rest) = &self.direct {
            if params.contains("default") || params.contains("graph") {
                return Err(HttpError::bad_param(
                    "graph",
                    "a graph named by its URL takes no ?default or ?graph",
                ));
            }
            let iri = request_base_iri(state, headers, &format!("{}/{rest}", self.store_path));
            return NamedNode::new(&iri)
                .map(Target::Named)
                .map_err(|e| HttpError::bad_param("graph", format!("the URL is not an IRI: {e}")));
        }
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
}

type Raw = RawQuery;

/// The four routes (`/store`, `/store/{*path}`, `/graphs/{g}/store`,
/// `/graphs/{g}/store/{*path}`) name a request's location by their path parameters.
impl axum::extract::FromRequestParts<AppState> for Location {
    type Rejection = HttpError;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        state: &AppState,
    ) -> Result<Self, HttpError> {
        use axum::extract::RawPathParams;
        use axum::extract::rejection::RawPathParamsRejection;
        let (mut graph, mut direct) = (None, None);
        match RawPathParams::from_request_parts(parts, state).await {
            Ok(params) => {
                for (key, value) in &params {
                    match key {
                        "g" => graph = Some(value.to_owned()),
                        "path" => direct = Some(value.to_owned()),
                        _ => {}
                    }
                }
            }
            Err(RawPathParamsRejection::MissingPathParams(_)) => {}
            Err(other) => return Err(HttpError::bad_param("path", other.body_text())),
        }
        Ok(match graph {
            Some(graph) => Location::new(graph, false, direct),
            None => Location::new(DEFAULT_GRAPH_NAME.to_owned(), true, direct),
        })
    }
}

/// `GET`/`HEAD`: the RDF graph the location and `?default`/`?graph` name.
pub async fn get(
    state: State<AppState>,
    location: Location,
    raw: Raw,
    caller: Caller,
    headers: HeaderMap,
) -> Result<Response, HttpError> {
    read(state, location, raw, caller, headers).await
}

/// `PUT`: replace the RDF graph with the body.
pub async fn put(
    state: State<AppState>,
    location: Location,
    raw: Raw,
    caller: Caller,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, HttpError> {
    write(
        state,
        location,
        raw,
        caller,
        headers,
        body,
        GraphWrite::Replace,
    )
    .await
}

/// `POST`: add the body to the RDF graph (or, at the store itself, create one).
pub async fn post(
    state: State<AppState>,
    location: Location,
    raw: Raw,
    caller: Caller,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, HttpError> {
    write(
        state,
        location,
        raw,
        caller,
        headers,
        body,
        GraphWrite::Merge,
    )
    .await
}

/// `DELETE`: remove the RDF graph.
pub async fn delete(
    state: State<AppState>,
    location: Location,
    raw: Raw,
    caller: Caller,
    headers: HeaderMap,
) -> Result<Response, HttpError> {
    write(
        state,
        location,
        raw,
        caller,
        headers,
        Body::empty(),
        GraphWrite::Delete,
    )
    .await
}

async fn read(
    State(state): State<AppState>,
    location: Location,
    RawQuery(raw): RawQuery,
    caller: Caller,
    headers: HeaderMap,
) -> Result<Response, HttpError> {
    super::check_graph_name(&location.graph)?;
    authorize(&caller, Right::Read, Some(&location.graph))?;
    super::wait_for_min_commit(&state, &location.graph, &headers).await?;
    let params = Params::parse(raw.unwrap_or_default().as_bytes())?;
    let name = match location.target(&state, &params, &headers)? {
        Target::Default => None,
        Target::Named(name) => Some(name),
        Target::Store => {
            return Err(HttpError::bad_param(
                "graph",
                "name a graph: ?default, ?graph=IRI, or the graph's URL",
            ));
        }
    };
    let at = params.read_at()?;
    let (content_type, format) = negotiate::choose(&headers, GRAPHS)?;
    let engine = state.engine.clone();
    let graph = location.graph;
    let trailer = super::stream::asks_for_trailers(&headers);
    Ok(stream(move |writer| {
        if trailer {
            writer.allow_trailer();
        }
        let graph = engine.graph(&graph)?;
        let reader = graph.reader(at)?;
        let seq = reader.seq();
        let quads = reader.graph_quads(name.as_ref()).ok_or_else(|| {
            HttpError::new(
                ErrorCode::RdfGraphNotFound,
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

async fn write(
    State(state): State<AppState>,
    location: Location,
    RawQuery(raw): RawQuery,
    caller: Caller,
    headers: HeaderMap,
    body: Body,
    mode: GraphWrite,
) -> Result<Response, HttpError> {
    super::check_graph_name(&location.graph)?;
    let rights = authorize(&caller, Right::Write, Some(&location.graph))?;
    let params = Params::parse(raw.unwrap_or_default().as_bytes())?;
    params.refuse_read_pins()?;
    let (name, created) = match (location.target(&state, &params, &headers)?, mode) {
        (Target::Default, _) => (None, false),
        (Target::Named(name), _) => (Some(name), false),
        (Target::Store, GraphWrite::Merge) => {
            // POST to the store itself: a new graph whose IRI is a URL of this store, so
            // the Location header can be fetched as is (201 + Location).
            let id = oxrdf::BlankNode::default();
            let iri = request_base_iri(
                &state,
                &headers,
                &format!("{}/{}", location.store_path, id.as_str()),
            );
            let name = NamedNode::new(&iri).map_err(|e| {
                HttpError::bad_param("graph", format!("cannot mint a graph IRI: {e}"))
            })?;
            (Some(name), true)
        }
        (Target::Store, _) => {
            return Err(HttpError::bad_param(
                "graph",
                "name a graph: ?default, ?graph=IRI, or the graph's URL",
            ));
        }
    };
    let base = name
        .as_ref()
        .map(|n| n.as_str().to_owned())
        .unwrap_or_else(|| request_base_iri(&state, &headers, &location.store_path));
    let limit = state.config.body_limit_bytes;
    let body = if mode == GraphWrite::Delete {
        None
    } else if is_multipart(&headers, mode) {
        // Each part is parsed as it arrives, found by its boundary in the stream.
        let boundary = multipart_boundary(&headers)?;
        Some(Document::Multipart(
            stream_body(body, limit).await?,
            boundary,
        ))
    } else {
        // One document, parsed as it arrives.
        let format = rdf_format(content_type(&headers).as_deref())?;
        Some(Document::Streamed(format, stream_body(body, limit).await?))
    };
    let request = commit_request(&headers, &rights, &location.graph)?;
    let engine = state.engine.clone();
    let target_name = name.clone();
    let graph = location.graph.clone();
    let graph_existed = engine
        .graph_names()
        .iter()
        .any(|g| g.as_str() == location.graph);
    let metrics = state.metrics.clone();
    let written = blocking(move || {
        // Only `main` is created by its first write, and only for a key that may create
        // graphs.
        let graph = if graph == DEFAULT_GRAPH_NAME {
            engine.graph_to_write(&graph, rights.admin_on(&graph))?
        } else {
            engine.graph(&graph)?
        };
        let options = |format| ImportOptions {
            format,
            base_iri: Some(base.clone()),
            into_graph: target_name.clone(),
            one_graph: true,
            source_name: "request body".into(),
        };
        // `/metrics` counts the quads as they are parsed.
        let mut counted = 0;
        let progress = |parsed: u64| {
            let new = parsed.saturating_sub(counted);
            metrics
                .import_quads
                .fetch_add(new, std::sync::atomic::Ordering::Relaxed);
            counted = parsed;
        };
        // Only triple formats are accepted, so every quad lands in the target graph.
        let parsed = match body {
            None => None,
            Some(Document::Streamed(format, mut stream)) => {
                match graph.parse_document(&mut stream, &options(format), progress) {
                    Ok(document) => Some(document),
                    // A body cut by its limit or its connection: that, not the parser's
                    // view of the cut document, is the answer.
                    Err(error) => return Err(stream.fault().unwrap_or(error.into())),
                }
            }
            Some(Document::Multipart(stream, boundary)) => {
                let mut all: Option<crate::engine::ParsedDocument> = None;
                for part in parse_parts(&graph, stream, &boundary, options, progress)? {
                    all = Some(match all {
                        None => part,
                        Some(mut all) => {
                            crate::engine::ParsedDocument::append(&mut all, part);
                            all
                        }
                    });
                }
                all
            }
        };
        Ok(graph.write_graph(target_name.as_ref(), mode, parsed, &request)?)
    })
    .await;
    if written.is_err() && !graph_existed {
        // A write that created `main` and then failed (a body over the limit is found
        // while it is parsed) leaves no empty graph behind.
        let engine = state.engine.clone();
        let graph = location.graph.clone();
        let _ = blocking(move || Ok(engine.discard_if_unused_and_empty(&graph))).await;
    }
    let (outcome, existed) = written?;
    if mode == GraphWrite::Delete && !existed && name.is_some() {
        return Err(HttpError::new(
            ErrorCode::RdfGraphNotFound,
            format!("no graph {}", name.as_ref().map_or("", |n| n.as_str())),
        ));
    }
    if outcome.commit_seq.is_some() && !outcome.idempotent_replay {
        state
            .metrics
            .commits
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
    // The default graph always exists (Graph Store Protocol 5.3): writing it creates nothing.
    let status = if created
        || (!existed && name.is_some() && mode != GraphWrite::Delete && outcome.inserted > 0)
    {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    let mut response = (status, Json(outcome_json(&outcome))).into_response();
    if let Ok(value) =
        HeaderValue::from_str(&outcome.commit_seq.unwrap_or(outcome.head_seq).to_string())
    {
        response.headers_mut().insert("strata-commit", value);
    }
    if created
        && let Some(iri) = &name
        && let Ok(value) = HeaderValue::from_str(iri.as_str())
    {
        response.headers_mut().insert(header::LOCATION, value);
    }
    Ok(response)
}

/// A document of a write's body.
enum Document {
    Streamed(ImportFormat, super::params::BodyStream),
    /// A `multipart/form-data` body and its boundary: one document per part.
    Multipart(super::params::BodyStream, String),
}

/// Whether the body is a `multipart/form-data` POST (several documents).
fn is_multipart(headers: &HeaderMap, mode: GraphWrite) -> bool {
    mode == GraphWrite::Merge && content_type(headers).as_deref() == Some("multipart/form-data")
}

/// The boundary a `multipart/form-data` Content-Type names.
fn multipart_boundary(headers: &HeaderMap) -> Result<String, HttpError> {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            v.split(';')
                .find_map(|p| p.trim().strip_prefix("boundary="))
        })
        .map(|b| b.trim_matches('"').to_owned())
        .filter(|b| !b.is_empty())
        .ok_or_else(|| HttpError::bad_param("Content-Type", "multipart/form-data needs a boundary"))
}

/// Parses each part of a `multipart/form-data` body as it arrives (a format per part,
/// from its Content-Type). A body cut by its limit or its connection answers as such; a
/// body that is not multipart answers 400 naming `body`.
fn parse_parts(
    graph: &crate::engine::Graph,
    stream: super::params::BodyStream,
    boundary: &str,
    options: impl Fn(ImportFormat) -> ImportOptions,
    mut progress: impl FnMut(u64),
) -> Result<Vec<crate::engine::ParsedDocument>, HttpError> {
    let mut multipart = super::multipart::Multipart::new(stream, boundary);
    let mut documents = Vec::new();
    let mut parsed_before = 0;
    loop {
        let part = match multipart.next_part() {
            Ok(Some(part_type)) => part_type,
            Ok(None) => break,
            Err(error) => {
                return Err(multipart
                    .inner_mut()
                    .fault()
                    .unwrap_or_else(|| HttpError::bad_param("body", error.to_string())));
            }
        };
        let options = options(rdf_format(part.as_deref())?);
        let counted = parsed_before;
        let parsed =
            graph.parse_document(&mut multipart.part(), &options, |n| progress(counted + n));
        match parsed {
            Ok(document) => {
                parsed_before += document.len() as u64;
                documents.push(document);
            }
            Err(error) => return Err(multipart.inner_mut().fault().unwrap_or(error.into())),
        }
    }
    if documents.is_empty() {
        return Err(HttpError::bad_param(
            "body",
            "malformed multipart/form-data body: no part",
        ));
    }
    Ok(documents)
}

fn rdf_format(media: Option<&str>) -> Result<ImportFormat, HttpError> {
    let format = match media {
        Some("text/turtle" | "application/x-turtle") => ImportFormat::from_name("turtle"),
        Some("application/n-triples" | "text/plain") => ImportFormat::from_name("ntriples"),
        Some("application/rdf+xml" | "application/xml") => ImportFormat::from_name("rdfxml"),
        Some("application/ld+json") => ImportFormat::from_name("jsonld"),
        _ => None,
    };
    format.ok_or_else(|| {
        HttpError::new(
            ErrorCode::UnsupportedMediaType,
            format!(
                "Content-Type {} is not accepted; use text/turtle, application/n-triples, application/rdf+xml, application/ld+json (or multipart/form-data of those for POST)",
                media.unwrap_or("(none)")
            ),
        )
    })
}
