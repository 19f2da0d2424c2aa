//! `GET /healthz` (no authentication) and `GET /metrics` (Prometheus text).

use axum::Json;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};

use super::AppState;
use super::auth::{Caller, authenticate};
use super::error::HttpError;

/// `ok`; in a cluster also whether the shared log answers (`degraded` when it does not:
/// the node still serves reads of what it applied, and refuses writes), and how many of
/// its commits are sent and not yet answered, and of how many open graphs it is the
/// write leader.
pub async fn healthz(State(state): State<AppState>) -> Response {
    let Some(cluster) = state.engine.cluster() else {
        return Json(serde_json::json!({ "status": "ok" })).into_response();
    };
    let connected = cluster.is_connected();
    // A node can reach one NATS server while the stream has no quorum: what counts is
    // whether the graphs' shared logs answer.
    let graphs = state.engine.open_graphs();
    let unreachable = graphs
        .iter()
        .filter(|g| g.cluster_reachable() == Some(false))
        .count();
    // Counted over graphs: the health check is public, graph names are not.
    let leads = graphs
        .iter()
        .filter(|g| {
            g.leader_status()
                .is_some_and(|s| s.holder == crate::log::LeaseHolder::Me)
        })
        .count();
    let in_flight: u64 = graphs
        .iter()
        .filter_map(|g| g.pipeline_status())
        .map(|p| p.depth)
        .sum();
    Json(serde_json::json!({
        "status": if connected && unreachable == 0 { "ok" } else { "degraded" },
        "cluster": {
            "log": cluster.describe(),
            "connected": connected,
            "graphs_unreachable": unreachable,
            "commits_in_flight": in_flight,
            "graphs_led": leads,
        },
    }))
    .into_response()
}

pub async fn metrics(State(state): State<AppState>, caller: Caller) -> Result<Response, HttpError> {
    let rights = authenticate(&caller)?;
    let text = state
        .metrics
        .render(&state.engine, |graph| rights.sees(graph));
    Ok(([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], text).into_response())
}
