//! The log over HTTP: commits (newest first, paged), one commit with its changes, diffs
//! between commits, one record's history, the search indexes' status, and the list of
//! graphs (with admin create and delete).

use axum::Json;
use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

use super::AppState;
use super::auth::{Caller, Right, authenticate, authorize};
use super::error::HttpError;
use super::params::Params;
use super::stream::blocking;
use crate::engine::ReadAt;
use crate::model::Quad;

const DEFAULT_PAGE: usize = 100;
const MAX_PAGE: usize = 10_000;

/// `offset` and `limit` (1..=10,000, default 100) of a paged listing.
pub(super) fn page(params: &Params) -> Result<(usize, usize), HttpError> {
    let number = |key: &str, default: usize| -> Result<usize, HttpError> {
        params
            .one(key)?
            .map(|v| {
                v.parse::<usize>()
                    .map_err(|_| HttpError::bad_param(key, format!("expected a number, got {v:?}")))
            })
            .transpose()
            .map(|v| v.unwrap_or(default))
    };
    let limit = number("limit", DEFAULT_PAGE)?;
    if limit == 0 || limit > MAX_PAGE {
        return Err(HttpError::bad_param(
            "limit",
            format!("limit must be 1..={MAX_PAGE}"),
        ));
    }
    Ok((number("offset", 0)?, limit))
}

fn quads_json(quads: &[Quad], offset: usize, limit: usize) -> Vec<String> {
    quads
        .iter()
        .skip(offset)
        .take(limit)
        .map(|q| format!("{q} ."))
        .collect()
}

/// `GET /graphs`: the graphs the key may see (a graph-limited key: only its own), and what
/// the key may do (`access`), so a client such as the console shows only the controls
/// that will work.
pub async fn list_graphs(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<Response, HttpError> {
    let rights = authenticate(&caller)?;
    let access = serde_json::json!({
        "read": true,
        "write": rights.write.any(),
        "admin": rights.admin.any(),
    });
    let engine = state.engine.clone();
    let graphs = blocking(move || {
        let mut out = Vec::new();
        for name in engine.graph_names() {
            if !rights.sees(name.as_str()) {
                continue;
            }
            // A graph that cannot be opened (a damaged log) is listed with its error; the
            // others are listed as usual.
            out.push(match engine.graph(name.as_str()) {
                Ok(graph) => {
                    serde_json::json!({ "name": name.as_str(), "head_seq": graph.head_seq() })
                }
                Err(error) => {
                    let error = crate::error::ApiError::from(error);
                    serde_json::json!({ "name": name.as_str(), "head_seq": null,
                        "error": { "code": error.code.as_str(), "message": error.message } })
                }
            });
        }
        Ok(out)
    })
    .await?;
    Ok(Json(serde_json::json!({ "graphs": graphs, "access": access })).into_response())
}

#[derive(Deserialize)]
pub struct CreateGraph {
    name: String,
}

/// `POST /graphs` with `{"name": "..."}` (admin).
pub async fn create_graph(
    State(state): State<AppState>,
    caller: Caller,
    body: axum::body::Body,
) -> Result<Response, HttpError> {
    authorize(&caller, Right::Admin, None)?;
    let body = super::params::read_body(body, state.config.body_limit_bytes).await?;
    let request: CreateGraph = serde_json::from_slice(&body).map_err(|e| {
        HttpError::bad_param(
            "name",
            format!("expected a JSON body {{\"name\": \"...\"}}: {e}"),
        )
    })?;
    // A graph-limited admin key creates only graphs of its list (and hears nothing of
    // whether another exists).
    super::check_graph_name(&request.name)?;
    authorize(&caller, Right::Admin, Some(&request.name))?;
    let engine = state.engine.clone();
    let name = request.name.clone();
    let head = blocking(move || Ok(engine.create_graph(&name)?.head_seq())).await?;
    Ok((
        StatusCode::CREATED,
        Json(serde_json::json!({ "name": request.name, "head_seq": head })),
    )
        .into_response())
}

/// `DELETE /graphs/{g}` (admin): removes the graph and its whole history.
pub async fn delete_graph(
    State(state): State<AppState>,
    Path(graph): Path<String>,
    caller: Caller,
) -> Result<Response, HttpError> {
    super::check_graph_name(&graph)?;
    authorize(&caller, Right::Admin, Some(&graph))?;
    let engine = state.engine.clone();
    blocking(move || Ok(engine.delete_graph(&graph)?)).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

/// `GET /graphs/{g}/commits?offset=&limit=`: newest first.
pub async fn commits(
    State(state): State<AppState>,
    Path(graph): Path<String>,
    RawQuery(raw): RawQuery,
    caller: Caller,
) -> Result<Response, HttpError> {
    super::check_graph_name(&graph)?;
    authorize(&caller, Right::Read, Some(&graph))?;
    let params = Params::parse(raw.unwrap_or_default().as_bytes())?;
    let (offset, limit) = page(&params)?;
    let engine = state.engine.clone();
    let name = graph.clone();
    let (head, commits) = blocking(move || {
        let graph = engine.graph(&name)?;
        // Pin the page to the head seen now, so later pages do not shift.
        let head = match params.one("head")? {
            Some(v) => {
                let head = crate::model::parse_commit_seq(v)
                    .ok_or_else(|| HttpError::bad_param("head", "expected a commit number"))?;
                // A page pinned to a commit the graph does not have would list others.
                graph.resolve_seq(Some(head), None).map_err(|e| {
                    HttpError::from(crate::error::ApiError::from(e).with_param("head"))
                })?
            }
            None => graph.head_seq(),
        };
        let skip = (graph.head_seq().saturating_sub(head)) as usize + offset;
        Ok((head, graph.commits_newest_first(skip, limit)))
    })
    .await?;
    let next = (offset + commits.len() < head as usize).then(|| {
        format!(
            "/graphs/{graph}/commits?head={head}&offset={}&limit={limit}",
            offset + limit
        )
    });
    Ok(super::with_commit(
        Json(serde_json::json!({
            "graph": graph,
            "head_seq": head,
            "commits": commits.iter().map(crate::query::commit_json).collect::<Vec<_>>(),
            "next": next,
        }))
        .into_response(),
        head,
    ))
}

/// `GET /graphs/{g}/commits/{seq}?offset=&limit=`: metadata and changes, paged.
pub async fn commit(
    State(state): State<AppState>,
    Path((graph, seq)): Path<(String, String)>,
    RawQuery(raw): RawQuery,
    caller: Caller,
) -> Result<Response, HttpError> {
    super::check_graph_name(&graph)?;
    authorize(&caller, Right::Read, Some(&graph))?;
    let seq: u64 = seq.parse().map_err(|_| {
        HttpError::bad_param("seq", format!("expected a commit number, got {seq:?}"))
    })?;
    let params = Params::parse(raw.unwrap_or_default().as_bytes())?;
    let (offset, limit) = page(&params)?;
    let engine = state.engine.clone();
    let name = graph.clone();
    let (info, (n_inserted, n_deleted, page)) = blocking(move || {
        let graph = engine.graph(&name)?;
        Ok((
            graph.commit_info(seq)?,
            graph.commit_changes_page(seq, offset, limit)?,
        ))
    })
    .await?;
    let total = n_inserted + n_deleted;
    let inserted = quads_json(&page.added, 0, limit);
    let deleted = quads_json(&page.removed, 0, limit - inserted.len());
    let next = (offset + limit < total).then(|| {
        format!(
            "/graphs/{graph}/commits/{seq}?offset={}&limit={limit}",
            offset + limit
        )
    });
    Ok(super::with_commit(
        Json(serde_json::json!({
            "commit": crate::query::commit_json(&info),
            "inserted": inserted,
            "deleted": deleted,
            "next": next,
        }))
        .into_response(),
        seq,
    ))
}

/// `GET /graphs/{g}/diff?from=&to=&offset=&limit=`
pub async fn diff(
    State(state): State<AppState>,
    Path(graph): Path<String>,
    RawQuery(raw): RawQuery,
    caller: Caller,
) -> Result<Response, HttpError> {
    super::check_graph_name(&graph)?;
    authorize(&caller, Right::Read, Some(&graph))?;
    let params = Params::parse(raw.unwrap_or_default().as_bytes())?;
    let seq = |key: &str| -> Result<u64, HttpError> {
        let value = params
            .one(key)?
            .ok_or_else(|| HttpError::bad_param(key, format!("missing {key}")))?;
        value.parse().map_err(|_| {
            HttpError::bad_param(key, format!("expected a commit number, got {value:?}"))
        })
    };
    let (from, to) = (seq("from")?, seq("to")?);
    let (offset, limit) = page(&params)?;
    let engine = state.engine.clone();
    let name = graph.clone();
    let (n_added, n_removed, page) = blocking(move || {
        let graph = engine.graph(&name)?;
        Ok(graph
            .reader(ReadAt::commit(to))?
            .changes_since_page(from, offset, limit)?)
    })
    .await?;
    let total = n_added + n_removed;
    let added = quads_json(&page.added, 0, limit);
    let removed = quads_json(&page.removed, 0, limit - added.len());
    let next = (offset + limit < total).then(|| {
        format!(
            "/graphs/{graph}/diff?from={from}&to={to}&offset={}&limit={limit}",
            offset + limit
        )
    });
    let response = Json(serde_json::json!({
        "from": from,
        "to": to,
        "counts": { "added": n_added, "removed": n_removed },
        "added": added,
        "removed": removed,
        "next": next,
    }))
    .into_response();
    Ok(super::with_commit(response, to))
}

/// `GET /graphs/{g}/history?iri=&as_of=&as_of_time=&offset=&limit=`: the commits that
/// changed the record `iri` (as subject or object), newest first, each with the quads it
/// added and removed, up to the pinned commit.
pub async fn record_history(
    State(state): State<AppState>,
    Path(graph): Path<String>,
    RawQuery(raw): RawQuery,
    caller: Caller,
) -> Result<Response, HttpError> {
    super::check_graph_name(&graph)?;
    authorize(&caller, Right::Read, Some(&graph))?;
    let params = Params::parse(raw.unwrap_or_default().as_bytes())?;
    let (offset, limit) = page(&params)?;
    let at = params.read_at()?;
    let iri = params
        .one("iri")?
        .ok_or_else(|| HttpError::bad_param("iri", "give the record's IRI: iri=..."))?;
    let node = crate::model::NamedNode::new(iri.trim())
        .map_err(|e| HttpError::bad_param("iri", format!("invalid IRI {iri:?}: {e}")))?;
    let engine = state.engine.clone();
    let name = graph.clone();
    let (seq, commits, changes) = blocking(move || {
        let graph = engine.graph(&name)?;
        let seq = graph.resolve_seq(at.commit, at.moment)?;
        let mut by_commit: std::collections::BTreeMap<u64, (Vec<String>, Vec<String>)> =
            std::collections::BTreeMap::new();
        for (quad, added, removed) in graph.read_at(seq).history_of(&node.into()) {
            let text = format!("{quad} .");
            if let Some(removed) = removed {
                by_commit.entry(removed).or_default().1.push(text.clone());
            }
            by_commit.entry(added).or_default().0.push(text);
        }
        let total = by_commit.len();
        let mut changes = Vec::new();
        for (commit, (added, removed)) in by_commit.into_iter().rev().skip(offset).take(limit) {
            let mut entry = crate::query::commit_json(&graph.commit_info(commit)?);
            entry["added"] = added.into();
            entry["removed"] = removed.into();
            changes.push(entry);
        }
        Ok((seq, total, changes))
    })
    .await?;
    let next = (offset + limit < commits).then(|| {
        format!(
            "/graphs/{graph}/history?iri={}&as_of={seq}&offset={}&limit={limit}",
            crate::model::percent_encode(iri),
            offset + limit
        )
    });
    let response = Json(serde_json::json!({
        "iri": iri,
        "served_at_seq": seq,
        "commit_count": commits,
        "changes": changes,
        "next": next,
    }))
    .into_response();
    Ok(super::with_commit(response, seq))
}

/// `GET /graphs/{g}/indexes`: every declared search index with its state, progress, rate,
/// records and lag behind the head (as MCP `embeddings` `list`).
pub async fn indexes(
    State(state): State<AppState>,
    Path(graph): Path<String>,
    caller: Caller,
) -> Result<Response, HttpError> {
    super::check_graph_name(&graph)?;
    authorize(&caller, Right::Read, Some(&graph))?;
    let engine = state.engine.clone();
    let name = graph.clone();
    let statuses = blocking(move || Ok(engine.graph(&name)?.index_status())).await?;
    Ok(Json(serde_json::json!({
        "graph": graph,
        "indexes": statuses
            .iter()
            .map(crate::query::index_status::index_status_json)
            .collect::<Vec<_>>(),
    }))
    .into_response())
}
