//! A search index's status as JSON, the same on every surface (MCP `embeddings` `list`,
//! HTTP `GET /graphs/{g}/indexes`).

use serde_json::{Value, json};

use crate::engine::IndexStatus;
use crate::model::NamedNode;

/// Declaration, state, progress and rate, records, and the lag behind the head.
pub fn index_status_json(s: &IndexStatus) -> Value {
    json!({
        "name": s.declaration.name,
        "class": s.declaration.class.as_str(),
        "from": s.declaration.from.iter().map(NamedNode::as_str).collect::<Vec<_>>(),
        "exclude": s.declaration.exclude.iter().map(NamedNode::as_str).collect::<Vec<_>>(),
        "hnsw": {"m": s.declaration.hnsw.max_connections, "ef_construction": s.declaration.hnsw.ef_construction, "ef_search": s.declaration.hnsw.ef_search},
        "state": s.progress.state,
        "progress": {
            "done": s.progress.done,
            "total": s.progress.total,
            "records_per_second": (s.progress.records_per_second() * 10.0).round() / 10.0,
        },
        "error": s.progress.error,
        "records": s.records,
        "published_seq": s.published_seq,
        "head_seq": s.head_seq,
        "lag": s.head_seq.saturating_sub(s.published_seq),
        "embedder": s.embedder,
        "semantic": s.semantic,
        "dimension": s.dim,
    })
}
