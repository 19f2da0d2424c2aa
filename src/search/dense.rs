//! The dense lane: unit vectors in an HNSW graph (`hnsw.rs`). The graph cannot delete, so
//! a record's old vector is tombstoned (skipped by the search filter) when it changes or
//! goes away, and the graph is rebuilt once tombstones pass a quarter of its points.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use super::hnsw::Hnsw;
pub use super::simd::dot;

/// The base name of the dumped graph (`hnsw.graph`: links and vectors) and of the id table
/// (`hnsw.ids`: one record per node, empty for a tombstone).
const DUMP: &str = "hnsw";

/// Files of the earlier hnsw_rs dumps, removed at the next dump.
const OLD_DUMP_FILES: [&str; 2] = ["hnsw.hnsw.graph", "hnsw.hnsw.data"];

/// HNSW construction and search parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HnswParams {
    /// Links per node (`M`), at most 256.
    pub max_connections: usize,
    pub ef_construction: usize,
    /// Default search breadth (raised to `k` when smaller).
    pub ef_search: usize,
}

impl Default for HnswParams {
    fn default() -> Self {
        Self {
            max_connections: 16,
            ef_construction: 200,
            ef_search: 64,
        }
    }
}

/// One scored hit of a lane.
#[derive(Clone, Debug, PartialEq)]
pub struct Scored {
    pub record: Arc<str>,
    pub score: f32,
}

/// Vectors by record, and the HNSW graph over them.
pub struct DenseIndex {
    params: HnswParams,
    dim: usize,
    /// Threads an insert batch may use.
    threads: usize,
    hnsw: Hnsw,
    /// Node → record; `None` once tombstoned (the vector stays in the graph, for routing).
    points: Vec<Option<Arc<str>>>,
    by_record: HashMap<Arc<str>, u32>,
    tombstones: usize,
}

impl DenseIndex {
    pub fn new(dim: usize, params: HnswParams, expected: usize) -> Self {
        let points = Vec::with_capacity(expected.min(1 << 20));
        Self {
            hnsw: new_hnsw(dim, params),
            params,
            dim,
            threads: default_threads(),
            points,
            by_record: HashMap::new(),
            tombstones: 0,
        }
    }

    /// Caps the threads that inserts use (at least 1).
    pub fn set_threads(&mut self, threads: usize) {
        self.threads = threads.max(1);
    }

    pub fn dim(&self) -> usize {
        self.dim
    }

    pub fn len(&self) -> usize {
        self.by_record.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_record.is_empty()
    }

    pub fn vector(&self, record: &str) -> Option<&[f32]> {
        let node = *self.by_record.get(record)?;
        Some(self.hnsw.vector(node))
    }

    /// Adds or replaces records' vectors (zero vectors are not indexed: they are near
    /// nothing). Inserts run in parallel.
    pub fn upsert(&mut self, items: Vec<(Arc<str>, Vec<f32>)>) {
        let mut fresh: Vec<(Arc<str>, Vec<f32>)> = Vec::with_capacity(items.len());
        let mut seen: HashMap<Arc<str>, usize> = HashMap::new();
        for (record, vector) in items {
            self.remove(&record);
            if vector.len() != self.dim || vector.iter().all(|x| *x == 0.0) {
                if let Some(i) = seen.remove(&record) {
                    // A later item of the same batch removes an earlier one.
                    fresh[i].1.clear();
                }
                continue;
            }
            match seen.get(&record) {
                Some(&i) => fresh[i].1 = vector,
                None => {
                    seen.insert(record.clone(), fresh.len());
                    fresh.push((record, vector));
                }
            }
        }
        fresh.retain(|(_, v)| !v.is_empty());
        if fresh.is_empty() {
            return;
        }
        let vectors: Vec<&[f32]> = fresh.iter().map(|(_, v)| v.as_slice()).collect();
        let first = self.hnsw.add(&vectors, self.threads);
        for (i, (record, _)) in fresh.into_iter().enumerate() {
            let node = first + i as u32;
            self.points.push(Some(record.clone()));
            self.by_record.insert(record, node);
        }
        self.rebuild_if_worn();
    }

    /// Tombstones a record's vector.
    pub fn remove(&mut self, record: &str) {
        if let Some(node) = self.by_record.remove(record) {
            self.points[node as usize] = None;
            self.tombstones += 1;
        }
    }

    fn rebuild_if_worn(&mut self) {
        if self.tombstones * 4 <= self.points.len().max(64) {
            return;
        }
        let live: Vec<(Arc<str>, Vec<f32>)> = self
            .entries()
            .map(|(record, vector)| (record.clone(), vector.to_vec()))
            .collect();
        self.points.clear();
        self.by_record.clear();
        self.tombstones = 0;
        self.hnsw = new_hnsw(self.dim, self.params);
        self.upsert(live);
    }

    /// The `k` nearest live records that pass `allow`, with cosine similarity scores.
    pub fn search(
        &self,
        query: &[f32],
        k: usize,
        ef: Option<usize>,
        allow: Option<&dyn Fn(&str) -> bool>,
    ) -> Vec<Scored> {
        if query.len() != self.dim || k == 0 || self.by_record.is_empty() {
            return Vec::new();
        }
        let ef = ef.unwrap_or(self.params.ef_search).max(k);
        let filter = |node: u32| match self.points.get(node as usize).and_then(Option::as_ref) {
            None => false,
            Some(record) => allow.is_none_or(|f| f(record)),
        };
        self.hnsw
            .search(query, k, ef, Some(&filter))
            .into_iter()
            .filter_map(|(node, distance)| {
                let record = self.points.get(node as usize)?.as_ref()?;
                Some(Scored {
                    record: record.clone(),
                    score: 1.0 - distance,
                })
            })
            .collect()
    }

    /// Exact scores of the given records (those with a vector), best first.
    pub fn score_exactly(&self, query: &[f32], records: &[Arc<str>], k: usize) -> Vec<Scored> {
        let mut scored: Vec<Scored> = records
            .iter()
            .filter_map(|r| {
                Some(Scored {
                    record: r.clone(),
                    score: dot(query, self.vector(r)?),
                })
            })
            .collect();
        sort_scored(&mut scored);
        scored.truncate(k);
        scored
    }

    /// Writes the graph (links and vectors) and the id table to `dir`, so a restart
    /// reloads it instead of inserting every vector again.
    pub fn dump(&self, dir: &Path) -> Result<(), String> {
        if self.points.is_empty() {
            return Ok(());
        }
        let ids: String = self
            .points
            .iter()
            .map(|p| p.as_deref().unwrap_or(""))
            .collect::<Vec<_>>()
            .join("\n");
        let write = |name: String, bytes: &[u8]| -> Result<(), String> {
            let tmp = dir.join(format!("{name}.tmp"));
            std::fs::write(&tmp, bytes).map_err(|e| format!("{}: {e}", tmp.display()))?;
            std::fs::rename(&tmp, dir.join(&name)).map_err(|e| format!("{name}: {e}"))
        };
        // The graph first: a crash between the two leaves an id table that disagrees
        // with it, which `load` refuses (and the index is rebuilt).
        write(format!("{DUMP}.graph"), &self.hnsw.to_bytes())?;
        write(format!("{DUMP}.ids"), ids.as_bytes())?;
        for old in OLD_DUMP_FILES {
            let _ = std::fs::remove_file(dir.join(old));
        }
        Ok(())
    }

    /// Reloads a dump written by `dump`, checked against the records' current vectors;
    /// `None` when the files are missing or disagree (the caller rebuilds).
    pub fn load(
        dir: &Path,
        dim: usize,
        params: HnswParams,
        vectors: &HashMap<Arc<str>, Vec<f32>>,
    ) -> Option<Self> {
        let ids = std::fs::read_to_string(dir.join(format!("{DUMP}.ids"))).ok()?;
        let bytes = std::fs::read(dir.join(format!("{DUMP}.graph"))).ok()?;
        let hnsw = Hnsw::from_bytes(&bytes, dim, params.max_connections)?;
        let mut points = Vec::new();
        let mut by_record = HashMap::new();
        let mut tombstones = 0;
        for (node, record) in ids.split('\n').enumerate() {
            let node = u32::try_from(node).ok()?;
            match vectors.get(record) {
                Some(vector)
                    if !record.is_empty()
                        && (node as usize) < hnsw.len()
                        && hnsw.vector(node) == vector.as_slice() =>
                {
                    let record: Arc<str> = Arc::from(record);
                    by_record.insert(record.clone(), node);
                    points.push(Some(record));
                }
                _ => {
                    points.push(None);
                    tombstones += 1;
                }
            }
        }
        // Zero vectors are never indexed, so they are not in the id table either.
        let indexable = vectors
            .values()
            .filter(|v| v.len() == dim && v.iter().any(|x| *x != 0.0))
            .count();
        if hnsw.len() != points.len() || by_record.len() != indexable {
            return None;
        }
        Some(Self {
            params,
            dim,
            threads: default_threads(),
            hnsw,
            points,
            by_record,
            tombstones,
        })
    }

    /// Every live record and vector (for persistence).
    pub fn entries(&self) -> impl Iterator<Item = (&Arc<str>, &[f32])> {
        self.points
            .iter()
            .enumerate()
            .filter_map(|(node, record)| Some((record.as_ref()?, self.hnsw.vector(node as u32))))
    }
}

fn new_hnsw(dim: usize, params: HnswParams) -> Hnsw {
    Hnsw::new(dim, params.max_connections, params.ef_construction)
}

/// Every core: the operator's cap comes through `set_threads`.
fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Best first; ties by record so results are stable.
pub fn sort_scored(scored: &mut [Scored]) {
    scored.sort_by(|a, b| {
        b.score
            .partial_cmp(&a.score)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| a.record.cmp(&b.record))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(v: &[f32]) -> Vec<f32> {
        let mut v = v.to_vec();
        crate::search::embed::normalize(&mut v);
        v
    }

    #[test]
    fn finds_nearest_updates_and_deletes() {
        let mut index = DenseIndex::new(3, HnswParams::default(), 10);
        index.upsert(vec![
            ("a".into(), unit(&[1.0, 0.0, 0.0])),
            ("b".into(), unit(&[0.0, 1.0, 0.0])),
            ("c".into(), unit(&[0.7, 0.7, 0.0])),
            ("z".into(), vec![0.0, 0.0, 0.0]),
        ]);
        assert_eq!(index.len(), 3, "zero vectors are not indexed");
        let hits = index.search(&unit(&[1.0, 0.1, 0.0]), 2, None, None);
        assert_eq!(&*hits[0].record, "a");
        assert_eq!(&*hits[1].record, "c");
        assert!(hits[0].score > 0.99);
        // An update moves the record; a removal hides it.
        index.upsert(vec![("a".into(), unit(&[0.0, 0.0, 1.0]))]);
        index.remove("c");
        let hits = index.search(&unit(&[1.0, 0.1, 0.0]), 3, None, None);
        assert_eq!(&*hits[0].record, "b");
        assert!(hits.iter().all(|h| &*h.record != "c"));
        let only_a = |r: &str| r == "a";
        let hits = index.search(&unit(&[1.0, 0.1, 0.0]), 3, None, Some(&only_a));
        assert_eq!(hits.len(), 1);
        assert_eq!(&*hits[0].record, "a");
    }
}
