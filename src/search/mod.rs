//! Search by meaning and by keywords over declared classes: each declaration has an index
//! with a dense lane (embeddings in HNSW), a sparse lane (BM25 in tantivy) and their
//! hybrid (reciprocal-rank fusion). The text of a record comes from its declaration's
//! recipe (`recipe.rs`). This module builds and queries indexes over snapshots; the
//! engine decides when they follow commits (`engine/search.rs`).

mod declaration;
pub mod dense;
pub mod embed;
mod hnsw;
mod index;
mod plan;
mod recipe;
pub mod simd;
pub mod sparql_patterns;
pub mod sparse;

pub use declaration::{Declaration, EMBEDDINGS_GRAPH};
pub use dense::{HnswParams, Scored};
pub use index::{IndexError, SearchIndex, StandIn, StandIns, Upsert, text_hash as text_hash_of};
pub use plan::{Candidates, EXACT_MAX_CANDIDATES, SearchPlan};
pub use recipe::{LABELS, Recipe};

/// The `strata:` namespace.
pub const STRATA: &str = "https://strata.dev/ns#";
/// The `search:` vocabulary of SPARQL patterns (see `ontologies/search.ttl`).
pub const SEARCH: &str = "https://strata.dev/ns/search#";

/// Which ranking answers a search.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Lane {
    /// Nearest embeddings (cosine similarity).
    Dense,
    /// BM25 over the same text.
    Sparse,
    /// Reciprocal-rank fusion of both (default).
    #[default]
    Hybrid,
}

impl Lane {
    pub fn parse(text: &str) -> Option<Self> {
        match text.trim().to_ascii_lowercase().as_str() {
            "dense" => Some(Self::Dense),
            "sparse" => Some(Self::Sparse),
            "hybrid" => Some(Self::Hybrid),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Dense => "dense",
            Self::Sparse => "sparse",
            Self::Hybrid => "hybrid",
        }
    }
}

/// The most hits a `search:k` may ask for.
pub const MAX_SPARQL_K: usize = 1_000;

/// The fusion constant of reciprocal-rank fusion (Cormack et al. use 60).
pub const RRF_K: f32 = 60.0;

/// One hit: the fused or lane score, and each lane's own score when it ranked the record.
#[derive(Clone, Debug, PartialEq)]
pub struct Hit {
    pub record: std::sync::Arc<str>,
    pub score: f32,
    pub dense: Option<f32>,
    pub sparse: Option<f32>,
}

/// Fuses two ranked lists by reciprocal rank: `Σ 1 / (RRF_K + rank)`, best first.
pub fn fuse(dense: &[Scored], sparse: &[Scored], k: usize) -> Vec<Hit> {
    let mut hits: std::collections::HashMap<std::sync::Arc<str>, Hit> =
        std::collections::HashMap::new();
    for (rank, s) in dense.iter().enumerate() {
        let hit = hits.entry(s.record.clone()).or_insert_with(|| Hit {
            record: s.record.clone(),
            score: 0.0,
            dense: None,
            sparse: None,
        });
        hit.score += 1.0 / (RRF_K + rank as f32 + 1.0);
        hit.dense = Some(s.score);
    }
    for (rank, s) in sparse.iter().enumerate() {
        let hit = hits.entry(s.record.clone()).or_insert_with(|| Hit {
            record: s.record.clone(),
            score: 0.0,
            dense: None,
            sparse: None,
        });
        hit.score += 1.0 / (RRF_K + rank as f32 + 1.0);
        hit.sparse = Some(s.score);
    }
    let mut out: Vec<Hit> = hits.into_values().collect();
    out.sort_by(|a, b| {
        b.score
            .partial_cmp(&a.score)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| a.record.cmp(&b.record))
    });
    out.truncate(k);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fusion_rewards_agreement() {
        let s = |r: &str, score: f32| Scored {
            record: r.into(),
            score,
        };
        let hits = fuse(
            &[s("a", 0.9), s("b", 0.8), s("c", 0.7)],
            &[s("c", 12.0), s("a", 9.0)],
            2,
        );
        assert_eq!(&*hits[0].record, "a");
        assert_eq!(&*hits[1].record, "c");
        assert_eq!(hits[0].dense, Some(0.9));
        assert_eq!(hits[0].sparse, Some(9.0));
    }
}
