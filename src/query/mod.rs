//! The domain of reads: the JSON queries every surface offers (the `query` tool, `POST
//! /graphs/{g}/query`, `strata query --structured|--traverse|--json`, `strata search`)
//! and the `inspect` reads, answered as one envelope (`envelope.rs`) with sealed cursors.
//! Surfaces parse their protocol and render errors; the decisions are made here.
//!
//! `args.rs` holds `QueryArgs` and parses a call into one typed struct per mode; `run.rs`
//! the mode switch (the `sparql`, `structured`, `traverse` and `analyze` modes); `structured.rs` and `traverse.rs` compile JSON queries to
//! SPARQL; `modes.rs` the graph-walking modes (names, commit_at, compare, paths,
//! neighborhood, describe); `search.rs` search by meaning and the search declarations;
//! `inspect.rs` the guide, log, entity, history, why, schema and conformance reads;
//! `render.rs` terms as JSON; `index_status.rs` a search index's status.

use std::sync::Arc;
use std::time::Duration;

use crate::engine::Engine;

pub mod args;
pub mod envelope;
pub mod index_status;
pub mod inspect;
pub mod modes;
mod moments;
pub mod render;
pub mod run;
pub mod search;
pub mod structured;
pub mod traverse;

pub use args::{QueryArgs, QueryMode};
pub use envelope::{CursorCodec, Detail, Envelope};
pub use inspect::{InspectAction, InspectArgs};
pub use run::run;

/// What every read and write of the domain shares.
pub struct Context {
    pub engine: Arc<Engine>,
    pub cursors: CursorCodec,
    pub query_timeout: Duration,
    /// The operator set `STRATA_DESTRUCTIVE=allow`: removals need no approval.
    pub destructive_allowed: bool,
}

impl Context {
    /// Settings from the environment (`STRATA_DESTRUCTIVE`) and the data directory's
    /// cursor key.
    pub fn new(engine: Arc<Engine>, query_timeout: Duration) -> Self {
        // The cursor key lives in the data directory, so a cursor handed out before a
        // restart (or by another surface) still works after it.
        // In a cluster every node seals cursors with one key, so a cursor made on one node
        // pages on another.
        let data_dir = engine.data_dir();
        let shared = engine
            .cluster()
            .map(|cluster| cluster.shared_key("cursor-key"));
        let cursors = match shared {
            Some(Ok(key)) => CursorCodec::new(key),
            Some(Err(error)) => {
                tracing::warn!(%error, "no cluster-wide cursor key; cursors page on this node only");
                CursorCodec::random()
            }
            None if data_dir.is_dir() => CursorCodec::persistent(&data_dir.join("cursor.key")),
            None => CursorCodec::random(),
        };
        Self {
            engine,
            cursors,
            query_timeout,
            destructive_allowed: std::env::var("STRATA_DESTRUCTIVE").is_ok_and(|v| v == "allow"),
        }
    }
}

/// The graph a call names, `main` when it names none.
pub fn graph_name(graph: &Option<String>) -> String {
    graph
        .as_deref()
        .map(str::trim)
        .filter(|g| !g.is_empty())
        .unwrap_or(crate::model::GraphName::DEFAULT)
        .to_owned()
}

/// A commit's header as JSON, the one form every surface shows (`inspect log`,
/// `GET /graphs/{g}/commits`, `strata log --format json`).
pub fn commit_json(commit: &crate::engine::CommitInfo) -> serde_json::Value {
    let h = &commit.header;
    let time = crate::log::format_time;
    serde_json::json!({
        "commit_seq": h.commit_seq,
        "hash": commit.hash.to_hex(),
        "parent_hash": h.parent_hash.to_hex(),
        "committed_at": time(h.committed_at),
        "observed_at": h.observed_at.map(time),
        "author": h.author,
        "message": h.message,
        "idempotency_key": h.idempotency_key,
        "inserted": h.n_inserted,
        "deleted": h.n_deleted,
    })
}
