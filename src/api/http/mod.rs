//! The HTTP server: SPARQL 1.1 Protocol, Graph Store Protocol, the log, health and
//! metrics, behind API keys and Host/Origin allow-lists.
//!
//! Handlers are thin: they check access, parse parameters, and run engine calls on
//! blocking threads (the engine is synchronous). Every read response names the commit it
//! was served at in a `Strata-Commit` header; every write response names the head after it.

mod auth;
mod config;
mod console;
mod edge;
mod error;
mod graph_store;
mod health;
mod history;
mod metrics;
mod middleware;
mod multipart;
mod negotiate;
mod oauth;
mod params;
mod records;
mod service_description;
mod shacl;
mod sparql;
mod stream;
pub mod tls;
mod update;

pub use auth::hash_key;
pub use config::{ApiKeyConfig, HttpConfig, Scope};
pub use oauth::OAuthConfig;

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::http::{HeaderMap, header};
use axum::routing::{get, post};
use tower_http::cors::{AllowOrigin, CorsLayer};

use crate::engine::{CommitOutcome, Engine};
use crate::error::ErrorCode;
use error::HttpError;
use metrics::Metrics;

/// The graph `/sparql`, `/update` and `/store` serve.
const DEFAULT_GRAPH_NAME: &str = crate::model::GraphName::DEFAULT;

/// What every handler can reach.
#[derive(Clone)]
pub struct AppState {
    engine: Arc<Engine>,
    /// The domain's context (engine, cursor key, query time limit), shared by the MCP
    /// tools at `/mcp` and the JSON queries of `POST /graphs/{g}/query`, so a cursor made
    /// on one pages on the other.
    mcp: Arc<crate::query::Context>,
    config: Arc<HttpConfig>,
    metrics: Arc<Metrics>,
    /// Host header values accepted: loopback names, the listen address, configured hosts.
    allowed_hosts: Arc<BTreeSet<String>>,
    /// Checks OAuth access tokens, when OAuth is configured.
    oauth: Option<Arc<oauth::Validator>>,
    /// Served over TLS (base IRIs of requests are `https://…`).
    tls: bool,
}

impl AppState {
    pub fn new(engine: Arc<Engine>, config: HttpConfig, listen: SocketAddr) -> Self {
        let mut allowed_hosts: BTreeSet<String> = ["localhost", "127.0.0.1", "::1"]
            .into_iter()
            .map(str::to_owned)
            .collect();
        allowed_hosts.insert(listen.ip().to_string());
        allowed_hosts.insert(listen.to_string());
        allowed_hosts.extend(config.allowed_hosts.iter().cloned());
        let mcp = Arc::new(crate::query::Context::new(
            engine.clone(),
            config.query_timeout(),
        ));
        let oauth = config
            .oauth
            .clone()
            .map(|settings| Arc::new(oauth::Validator::new(settings)));
        Self {
            mcp,
            engine,
            oauth,
            tls: false,
            config: Arc::new(config),
            metrics: Arc::new(Metrics::default()),
            allowed_hosts: Arc::new(allowed_hosts),
        }
    }
}

impl AppState {
    /// The same state for a server speaking TLS.
    pub fn with_tls(mut self, tls: bool) -> Self {
        self.tls = tls;
        self
    }
}

/// Every route of the server.
pub fn router(state: AppState) -> Router {
    let graph_routes = Router::new()
        .route(
            "/graphs",
            get(history::list_graphs).post(history::create_graph),
        )
        .route("/graphs/{g}", axum::routing::delete(history::delete_graph))
        .route("/graphs/{g}/sparql", get(sparql::get).post(sparql::post))
        .route("/graphs/{g}/update", get(update::get).post(update::post))
        .route(
            "/graphs/{g}/store",
            get(graph_store::get)
                .put(graph_store::put)
                .post(graph_store::post)
                .delete(graph_store::delete),
        )
        .route(
            "/graphs/{g}/store/{*path}",
            get(graph_store::get)
                .put(graph_store::put)
                .post(graph_store::post)
                .delete(graph_store::delete),
        )
        .route("/graphs/{g}/commits", get(history::commits))
        .route("/graphs/{g}/commits/{seq}", get(history::commit))
        .route("/graphs/{g}/diff", get(history::diff))
        .route("/graphs/{g}/history", get(history::record_history))
        .route("/graphs/{g}/indexes", get(history::indexes))
        .route(
            "/graphs/{g}/shapes",
            get(shacl::get_shapes)
                .put(shacl::put_shapes)
                .delete(shacl::delete_shapes),
        )
        .route("/graphs/{g}/conformance", get(shacl::conformance))
        .route("/graphs/{g}/records", post(records::post_records))
        .route("/graphs/{g}/ontology", post(records::post_ontology))
        .route("/graphs/{g}/query", post(records::post_query))
        .route(
            "/sparql",
            get(sparql::get_default).post(sparql::post_default),
        )
        .route(
            "/update",
            get(update::get_default).post(update::post_default),
        )
        .route(
            "/store",
            get(graph_store::get)
                .put(graph_store::put)
                .post(graph_store::post)
                .delete(graph_store::delete),
        )
        .route(
            "/store/{*path}",
            get(graph_store::get)
                .put(graph_store::put)
                .post(graph_store::post)
                .delete(graph_store::delete),
        )
        .nest_service(
            "/mcp",
            tower::ServiceBuilder::new()
                .layer(axum::middleware::from_fn_with_state(
                    state.clone(),
                    mcp_auth,
                ))
                .service(crate::api::mcp::http_service(
                    state.mcp.clone(),
                    state.allowed_hosts.iter().cloned().collect(),
                    state.config.body_limit_bytes,
                )),
        )
        .route("/", get(console::index))
        .route("/console/{file}", get(console::asset))
        .route("/healthz", get(health::healthz))
        .route(
            "/.well-known/oauth-protected-resource",
            get(protected_resource_metadata),
        )
        .route(
            "/.well-known/oauth-protected-resource/{*path}",
            get(protected_resource_metadata_of),
        )
        .route("/metrics", get(health::metrics))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed);
    let mut app = graph_routes
        .layer(axum::middleware::from_fn(middleware::hide_other_graphs))
        // Who is calling is decided once, before any handler (and after the guard: a
        // refused Host never costs a token check).
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            auth::identify,
        ))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            middleware::guard,
        ))
        // Outermost: every answer, the guard's refusals (a Host not allowed, a declared
        // body over the limit) included, is counted and leaves a line in the request log.
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            middleware::observe,
        ));
    if !state.config.cors_origins.is_empty() {
        let origins: Vec<_> = state
            .config
            .cors_origins
            .iter()
            .filter_map(|o| o.parse().ok())
            .collect();
        app = app.layer(
            CorsLayer::new()
                .allow_origin(AllowOrigin::list(origins))
                .allow_methods(tower_http::cors::Any)
                .allow_headers(tower_http::cors::Any)
                .expose_headers([axum::http::HeaderName::from_static("strata-commit")]),
        );
    }
    app.with_state(state)
}

/// Serves until `shutdown` resolves; requests in flight finish first.
///
/// Accepted sockets get `TCP_NODELAY` and give hyper's own bare error answers a coded
/// JSON body (`edge.rs`).
pub async fn serve(
    listener: tokio::net::TcpListener,
    state: AppState,
    tls: Option<Arc<tls::Certificates>>,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    match tls {
        None => {
            axum::serve(edge::CodedListener(listener), router(state))
                .with_graceful_shutdown(shutdown)
                .await
        }
        Some(certificates) => {
            certificates.watch();
            axum::serve(
                tls::TlsListener::new(listener, certificates)?,
                router(state),
            )
            .with_graceful_shutdown(shutdown)
            .await
        }
    }
}

/// `/mcp` needs valid credentials that may read some graph; what they allow travels
/// with the request for the tools to check. The body is read here, so a body over the
/// limit is a 413 and an unreadable one (broken chunked encoding) a 400, with the same
/// JSON errors as every other route.
async fn mcp_auth(
    axum::extract::State(state): axum::extract::State<AppState>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    let caller = request
        .extensions()
        .get::<auth::Caller>()
        .cloned()
        .unwrap_or_else(auth::Caller::open);
    if let Err(error) = auth::authorize(&caller, auth::Right::Read, None) {
        return error.into_response();
    }
    let access = crate::api::mcp::McpAccess {
        rights: caller.rights.clone(),
        who: caller.who.json(),
    };
    let (mut parts, body) = request.into_parts();
    let body = match params::read_body(body, state.config.body_limit_bytes).await {
        Ok(body) => body,
        Err(error) => return error.into_response(),
    };
    parts.extensions.insert(access);
    let ending = parts.method == axum::http::Method::DELETE;
    let mut response = next
        .run(axum::extract::Request::from_parts(parts, body.into()))
        .await;
    // rmcp answers a session's end with 202 Accepted; the MCP SDKs expect 200 (the
    // Python SDK logs "Session termination failed: 202" on every close).
    if ending && response.status() == axum::http::StatusCode::ACCEPTED {
        *response.status_mut() = axum::http::StatusCode::OK;
    }
    response
}

/// `response` with the `Strata-Commit` header naming the commit it was read at.
fn with_commit(mut response: axum::response::Response, seq: u64) -> axum::response::Response {
    response
        .headers_mut()
        .insert("strata-commit", axum::http::HeaderValue::from(seq));
    response
}

/// `GET /.well-known/oauth-protected-resource` (RFC 9728): this server as an OAuth
/// protected resource: its URL, its authorization server, the scopes it understands.
async fn protected_resource_metadata(
    axum::extract::State(state): axum::extract::State<AppState>,
) -> Result<axum::response::Response, HttpError> {
    metadata_for(&state, false)
}

/// The same for a path of this server; `/mcp` is the one with metadata of its own.
async fn protected_resource_metadata_of(
    axum::extract::State(state): axum::extract::State<AppState>,
    axum::extract::Path(path): axum::extract::Path<String>,
) -> Result<axum::response::Response, HttpError> {
    if path.trim_end_matches('/') != "mcp" {
        return Err(not_found().await);
    }
    metadata_for(&state, true)
}

fn metadata_for(state: &AppState, mcp: bool) -> Result<axum::response::Response, HttpError> {
    use axum::response::IntoResponse;
    let Some(validator) = &state.oauth else {
        return Err(HttpError::new(
            ErrorCode::NotFound,
            "OAuth is not configured on this server (see the README, \"Signing in with OAuth\")",
        ));
    };
    Ok(axum::Json(validator.config().metadata(mcp)).into_response())
}

async fn not_found() -> HttpError {
    HttpError::new(
        ErrorCode::NotFound,
        "no such route; see the README for the routes",
    )
}

async fn method_not_allowed() -> HttpError {
    HttpError::new(
        ErrorCode::MethodNotAllowed,
        "this route does not accept that method",
    )
}

/// A graph name from a path, checked before anything else looks at the request.
fn check_graph_name(name: &str) -> Result<(), HttpError> {
    crate::model::GraphName::new(name)
        .map(|_| ())
        .map_err(|e| HttpError::from(crate::engine::EngineError::from(e)))
}

/// How long a read waits for the commit `Strata-Min-Commit` names.
const MIN_COMMIT_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// `Strata-Min-Commit: N` (read-your-writes across the nodes of a cluster): waits until
/// this node has applied commit N of `graph`, else `not_caught_up` naming its head.
async fn wait_for_min_commit(
    state: &AppState,
    graph: &str,
    headers: &HeaderMap,
) -> Result<(), HttpError> {
    let Some(value) = headers.get("strata-min-commit") else {
        return Ok(());
    };
    let seq = value
        .to_str()
        .ok()
        .and_then(crate::model::parse_commit_seq)
        .ok_or_else(|| HttpError::bad_param("Strata-Min-Commit", "expected a commit number"))?;
    let (engine, graph) = (state.engine.clone(), graph.to_owned());
    stream::blocking(move || {
        let graph = engine.graph(&graph)?;
        graph.wait_for_commit(seq, MIN_COMMIT_WAIT).map_err(|e| {
            // The engine names the MCP argument; over HTTP the header asked.
            let mut error = HttpError::from(e);
            if error.param.is_some() {
                error.param = Some("Strata-Min-Commit".to_owned());
            }
            error
        })?;
        Ok(())
    })
    .await
}

/// The base IRI of a request: `http(s)://<host><path>`.
fn request_base_iri(state: &AppState, headers: &HeaderMap, path: &str) -> String {
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("localhost");
    let scheme = if state.tls { "https" } else { "http" };
    format!("{scheme}://{host}{path}")
}

/// The JSON body of a write response.
fn outcome_json(outcome: &CommitOutcome) -> serde_json::Value {
    serde_json::json!({
        "commit_seq": outcome.commit_seq,
        "head_seq": outcome.head_seq,
        "hash": outcome.hash.map(|h| h.to_hex()),
        "inserted": outcome.inserted,
        "deleted": outcome.deleted,
        "idempotent_replay": outcome.idempotent_replay,
        "validation": outcome.validation.as_deref().map(crate::report::validation_json),
    })
}
