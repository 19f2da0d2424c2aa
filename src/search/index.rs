//! One declaration's index: the dense and sparse lanes over the same records, the hash of
//! each record's text (to skip unchanged records), the commit it reflects, and its files:
//!
//! * `vectors.log`: appended upserts and deletes (record, text hash, vector), replayed at
//!   open (a torn last record is ignored) and compacted when mostly dead;
//! * `bm25/`: the tantivy index, whose commit payload is the Strata commit it reflects;
//! * `meta`: `embedder=<id>` and `published_seq=<n>`, replaced atomically after each
//!   batch, once the other two are written.
//!
//! An index whose embedder changed, or whose files disagree, starts over from commit 0.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::dense::{DenseIndex, HnswParams, Scored, sort_scored};
use super::sparse::{SparseError, SparseIndex};
use super::{Hit, Lane, fuse};
use crate::model::CommitSeq;

/// What can go wrong reading or writing an index.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error("search index i/o on {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Sparse(#[from] SparseError),
}

fn io(path: &Path, source: std::io::Error) -> IndexError {
    IndexError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// A stable 64-bit hash of a text (FNV-1a), to tell changed texts from unchanged ones.
pub fn text_hash(text: &str) -> u64 {
    let mut h: u64 = 0xcbf29ce484222325;
    for b in text.as_bytes() {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x100000001b3);
    }
    h
}

/// A record to (re)index.
pub struct Upsert {
    pub record: Arc<str>,
    pub text: String,
    pub vector: Vec<f32>,
    /// What the vector was made from, when not the text alone (a supplied vector).
    pub hash: Option<u64>,
}

/// What a read pinned to an older commit than the index needs: the records whose indexed
/// text is not their text at the commit read (`excluded`: never answered from the index),
/// and, among them, those that existed then, with that text (and its vector when a dense
/// lane ranks). They are scored exactly and ranked with the indexed ones.
#[derive(Default)]
pub struct StandIns {
    pub excluded: std::collections::HashSet<Arc<str>>,
    pub records: Vec<StandIn>,
}

pub struct StandIn {
    pub record: Arc<str>,
    pub text: String,
    pub vector: Option<Vec<f32>>,
}

impl StandIns {
    pub fn is_empty(&self) -> bool {
        self.excluded.is_empty()
    }
}

pub struct SearchIndex {
    dir: Option<PathBuf>,
    embedder: String,
    dense: DenseIndex,
    sparse: SparseIndex,
    hashes: HashMap<Arc<str>, u64>,
    published_seq: CommitSeq,
    log: Option<BufWriter<File>>,
    dead_records: usize,
    /// The commit the dumped HNSW graph reflects, when it reflects the index's content.
    hnsw_seq: Option<CommitSeq>,
    /// Records upserted or removed since the last dump.
    changed_since_dump: usize,
}

impl SearchIndex {
    /// Opens (or creates) the index in `dir`; `None` keeps it in memory.
    pub fn open(
        dir: Option<&Path>,
        embedder: &str,
        dim: usize,
        params: HnswParams,
        threads: usize,
    ) -> Result<Self, IndexError> {
        let mut dense = DenseIndex::new(dim, params, 1024);
        dense.set_threads(threads);
        let mut index = Self {
            dir: dir.map(Path::to_path_buf),
            embedder: embedder.to_owned(),
            dense,
            sparse: SparseIndex::open(dir.map(|d| d.join("bm25")).as_deref())?,
            hashes: HashMap::new(),
            published_seq: 0,
            log: None,
            dead_records: 0,
            hnsw_seq: None,
            changed_since_dump: 0,
        };
        let Some(dir) = dir else {
            return Ok(index);
        };
        std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
        let meta = read_meta(&dir.join("meta"));
        let usable = meta.get("embedder").map(String::as_str) == Some(embedder)
            && meta.contains_key("published_seq")
            && index.sparse.payload() == meta.get("published_seq").cloned();
        if usable {
            let (vectors, dead) = replay(&dir.join("vectors.log"), dim)?;
            index.dead_records = dead;
            index.published_seq = meta["published_seq"].parse().unwrap_or(0);
            let items: HashMap<Arc<str>, Vec<f32>> = vectors
                .into_iter()
                .map(|(record, (hash, vector))| {
                    index.hashes.insert(record.clone(), hash);
                    (record, vector)
                })
                .collect();
            let dumped = meta
                .get("hnsw_seq")
                .and_then(|s| s.parse::<CommitSeq>().ok());
            let reloaded = (dumped == Some(index.published_seq))
                .then(|| DenseIndex::load(dir, dim, params, &items))
                .flatten();
            match reloaded {
                Some(mut dense) => {
                    dense.set_threads(threads);
                    index.dense = dense;
                    index.hnsw_seq = dumped;
                }
                None => {
                    // No usable dump: insert every vector again.
                    index.dense = DenseIndex::new(dim, params, items.len());
                    index.dense.set_threads(threads);
                    index.dense.upsert(items.into_iter().collect());
                }
            }
            if index.dead_records > index.hashes.len().max(1024) {
                index.compact()?;
            }
        } else {
            // Another embedder, or files from different moments: start over.
            index.sparse.clear()?;
            index.sparse.commit("0")?;
            let _ = std::fs::remove_file(dir.join("vectors.log"));
            index.write_meta()?;
        }
        index.log = Some(open_log(&dir.join("vectors.log"))?);
        Ok(index)
    }

    pub fn published_seq(&self) -> CommitSeq {
        self.published_seq
    }

    pub fn embedder(&self) -> &str {
        &self.embedder
    }

    /// Records indexed.
    pub fn len(&self) -> usize {
        self.hashes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.hashes.is_empty()
    }

    pub fn contains(&self, record: &str) -> bool {
        self.hashes.contains_key(record)
    }

    /// Every indexed record.
    pub fn records(&self) -> Vec<Arc<str>> {
        self.hashes.keys().cloned().collect()
    }

    /// The hash of the text a record was indexed with.
    pub fn text_hash(&self, record: &str) -> Option<u64> {
        self.hashes.get(record).copied()
    }

    pub fn vector(&self, record: &str) -> Option<&[f32]> {
        self.dense.vector(record)
    }

    /// Dumps the HNSW graph so the next start reloads it (after a build, at close).
    pub fn persist(&mut self) -> Result<(), IndexError> {
        let Some(dir) = self.dir.clone() else {
            return Ok(());
        };
        if self.hnsw_seq == Some(self.published_seq) {
            return Ok(());
        }
        self.dense
            .dump(&dir)
            .map_err(|e| io(&dir, std::io::Error::other(e)))?;
        self.hnsw_seq = Some(self.published_seq);
        self.changed_since_dump = 0;
        self.write_meta()
    }

    /// True when enough changed since the last dump that a restart would spend long
    /// re-inserting vectors (a tenth of the index, at least 1,000 records).
    pub fn worth_persisting(&self) -> bool {
        self.changed_since_dump >= (self.len() / 10).max(1_000)
    }

    /// Applies a batch and marks the index as reflecting commit `seq`.
    pub fn apply(
        &mut self,
        upserts: Vec<Upsert>,
        removes: &[Arc<str>],
        seq: CommitSeq,
    ) -> Result<(), IndexError> {
        for record in removes {
            if self.hashes.remove(record).is_some() {
                self.dense.remove(record);
                self.sparse.remove(record);
                self.append_delete(record)?;
                self.dead_records += 1;
            }
        }
        let mut dense = Vec::with_capacity(upserts.len());
        for u in upserts {
            let hash = u.hash.unwrap_or_else(|| text_hash(&u.text));
            if self.hashes.insert(u.record.clone(), hash).is_some() {
                self.dead_records += 1;
            }
            self.sparse.upsert(&u.record, &u.text)?;
            self.append_upsert(&u.record, hash, &u.vector)?;
            dense.push((u.record, u.vector));
        }
        if !dense.is_empty() || !removes.is_empty() {
            self.hnsw_seq = None;
            self.changed_since_dump += dense.len() + removes.len();
        } else if self.hnsw_seq == Some(self.published_seq) {
            // Nothing changed in the graph: the dump still reflects it at the new commit.
            self.hnsw_seq = Some(seq);
        }
        self.dense.upsert(dense);
        self.published_seq = seq;
        if let Some(log) = &mut self.log {
            let path = self.dir.as_deref().unwrap_or(Path::new("."));
            log.flush().map_err(|e| io(path, e))?;
            log.get_ref().sync_data().map_err(|e| io(path, e))?;
        }
        self.sparse.commit(&seq.to_string())?;
        self.write_meta()?;
        if self.dead_records > self.hashes.len().max(1024) {
            self.compact()?;
        }
        Ok(())
    }

    /// Drops everything (a refresh re-indexes from scratch).
    pub fn clear(&mut self) -> Result<(), IndexError> {
        let records = self.records();
        self.apply(Vec::new(), &records, 0)?;
        self.compact()
    }

    /// The best `k` hits of a lane over the whole index, restricted by `allow` (a filter
    /// applied inside the HNSW search, and to BM25 hits afterwards), with `stand_ins` in
    /// place of the indexed texts they replace.
    pub fn search(
        &self,
        lane: Lane,
        query_vector: Option<&[f32]>,
        text: &str,
        k: usize,
        allow: Option<&dyn Fn(&str) -> bool>,
        stand_ins: &StandIns,
    ) -> Result<Vec<Hit>, IndexError> {
        let indexed_and_allowed =
            |r: &str| !stand_ins.excluded.contains(r) && allow.is_none_or(|a| a(r));
        let indexed: Option<&dyn Fn(&str) -> bool> = if stand_ins.is_empty() {
            allow
        } else {
            Some(&indexed_and_allowed)
        };
        let keep = |r: &str| allow.is_none_or(|a| a(r));
        let dense = || -> Vec<Scored> {
            let Some(q) = query_vector else {
                return Vec::new();
            };
            let mut hits = self.dense.search(q, k, None, indexed);
            if !stand_ins.is_empty() {
                hits.extend(stand_in_dense(q, stand_ins, &keep));
                sort_scored(&mut hits);
                hits.truncate(k);
            }
            hits
        };
        let sparse = || -> Result<Vec<Scored>, IndexError> {
            let widened = if indexed.is_some() {
                k * 10 + stand_ins.excluded.len()
            } else {
                k
            };
            let mut hits = self.sparse.search(text, widened, None)?;
            if let Some(indexed) = indexed {
                hits.retain(|h| indexed(&h.record));
            }
            hits.extend(self.stand_in_sparse(text, stand_ins, &keep)?);
            sort_scored(&mut hits);
            hits.truncate(k);
            Ok(hits)
        };
        self.combine(lane, k, dense, sparse)
    }

    /// Exact scores of the given candidates only (few candidates: no approximation), with
    /// `stand_ins` in place of the indexed texts they replace.
    pub fn score_candidates(
        &self,
        lane: Lane,
        query_vector: Option<&[f32]>,
        text: &str,
        candidates: &[Arc<str>],
        k: usize,
        stand_ins: &StandIns,
    ) -> Result<Vec<Hit>, IndexError> {
        let indexed: Vec<Arc<str>> = candidates
            .iter()
            .filter(|r| !stand_ins.excluded.contains(*r))
            .cloned()
            .collect();
        let listed: std::collections::HashSet<&str> = if stand_ins.is_empty() {
            Default::default()
        } else {
            candidates.iter().map(|r| &**r).collect()
        };
        let keep = |r: &str| listed.contains(r);
        let dense = || -> Vec<Scored> {
            let Some(q) = query_vector else {
                return Vec::new();
            };
            let mut hits = self.dense.score_exactly(q, &indexed, k);
            if !stand_ins.is_empty() {
                hits.extend(stand_in_dense(q, stand_ins, &keep));
                sort_scored(&mut hits);
                hits.truncate(k);
            }
            hits
        };
        let sparse = || -> Result<Vec<Scored>, IndexError> {
            let mut hits = self.sparse.search(text, k, Some(&indexed))?;
            if !stand_ins.is_empty() {
                hits.extend(self.stand_in_sparse(text, stand_ins, &keep)?);
                sort_scored(&mut hits);
                hits.truncate(k);
            }
            Ok(hits)
        };
        self.combine(lane, k, dense, sparse)
    }

    /// BM25 scores of the stand-ins `keep` lets through, with the index's statistics.
    fn stand_in_sparse(
        &self,
        text: &str,
        stand_ins: &StandIns,
        keep: &dyn Fn(&str) -> bool,
    ) -> Result<Vec<Scored>, IndexError> {
        let mut out = Vec::new();
        for s in stand_ins.records.iter().filter(|s| keep(&s.record)) {
            let score = self.sparse.score_text(text, &s.text)?;
            if score > 0.0 {
                out.push(Scored {
                    record: s.record.clone(),
                    score,
                });
            }
        }
        Ok(out)
    }

    fn combine(
        &self,
        lane: Lane,
        k: usize,
        dense: impl FnOnce() -> Vec<Scored>,
        sparse: impl FnOnce() -> Result<Vec<Scored>, IndexError>,
    ) -> Result<Vec<Hit>, IndexError> {
        let as_hits = |scored: Vec<Scored>, is_dense: bool| {
            scored
                .into_iter()
                .map(|s| Hit {
                    record: s.record,
                    score: s.score,
                    dense: is_dense.then_some(s.score),
                    sparse: (!is_dense).then_some(s.score),
                })
                .collect()
        };
        Ok(match lane {
            Lane::Dense => as_hits(dense(), true),
            Lane::Sparse => as_hits(sparse()?, false),
            Lane::Hybrid => fuse(&dense(), &sparse()?, k),
        })
    }

    fn append_upsert(&mut self, record: &str, hash: u64, vector: &[f32]) -> Result<(), IndexError> {
        let Some(log) = &mut self.log else {
            return Ok(());
        };
        let mut bytes = Vec::with_capacity(17 + record.len() + vector.len() * 4);
        bytes.push(b'U');
        bytes.extend((record.len() as u32).to_le_bytes());
        bytes.extend(record.as_bytes());
        bytes.extend(hash.to_le_bytes());
        bytes.extend((vector.len() as u32).to_le_bytes());
        for x in vector {
            bytes.extend(x.to_le_bytes());
        }
        log.write_all(&bytes)
            .map_err(|e| io(self.dir.as_deref().unwrap_or(Path::new(".")), e))
    }

    fn append_delete(&mut self, record: &str) -> Result<(), IndexError> {
        let Some(log) = &mut self.log else {
            return Ok(());
        };
        let mut bytes = Vec::with_capacity(5 + record.len());
        bytes.push(b'D');
        bytes.extend((record.len() as u32).to_le_bytes());
        bytes.extend(record.as_bytes());
        log.write_all(&bytes)
            .map_err(|e| io(self.dir.as_deref().unwrap_or(Path::new(".")), e))
    }

    /// Rewrites `vectors.log` with the live records only.
    fn compact(&mut self) -> Result<(), IndexError> {
        let Some(dir) = self.dir.clone() else {
            self.dead_records = 0;
            return Ok(());
        };
        let tmp = dir.join("vectors.log.tmp");
        let mut out = BufWriter::new(File::create(&tmp).map_err(|e| io(&tmp, e))?);
        for (record, vector) in self.dense.entries() {
            let hash = self.hashes.get(record).copied().unwrap_or(0);
            out.write_all(b"U").map_err(|e| io(&tmp, e))?;
            out.write_all(&(record.len() as u32).to_le_bytes())
                .map_err(|e| io(&tmp, e))?;
            out.write_all(record.as_bytes()).map_err(|e| io(&tmp, e))?;
            out.write_all(&hash.to_le_bytes())
                .map_err(|e| io(&tmp, e))?;
            out.write_all(&(vector.len() as u32).to_le_bytes())
                .map_err(|e| io(&tmp, e))?;
            for x in vector {
                out.write_all(&x.to_le_bytes()).map_err(|e| io(&tmp, e))?;
            }
        }
        let file = out.into_inner().map_err(|e| io(&tmp, e.into_error()))?;
        file.sync_data().map_err(|e| io(&tmp, e))?;
        std::fs::rename(&tmp, dir.join("vectors.log")).map_err(|e| io(&tmp, e))?;
        self.log = Some(open_log(&dir.join("vectors.log"))?);
        self.dead_records = 0;
        Ok(())
    }

    fn write_meta(&self) -> Result<(), IndexError> {
        let Some(dir) = &self.dir else {
            return Ok(());
        };
        let tmp = dir.join("meta.tmp");
        std::fs::write(
            &tmp,
            format!(
                "embedder={}\npublished_seq={}\n{}",
                self.embedder,
                self.published_seq,
                self.hnsw_seq
                    .map(|s| format!("hnsw_seq={s}\n"))
                    .unwrap_or_default()
            ),
        )
        .map_err(|e| io(&tmp, e))?;
        std::fs::rename(&tmp, dir.join("meta")).map_err(|e| io(&tmp, e))
    }
}

/// Cosine similarities of the stand-ins `keep` lets through (vectors are unit length).
fn stand_in_dense(query: &[f32], stand_ins: &StandIns, keep: &dyn Fn(&str) -> bool) -> Vec<Scored> {
    stand_ins
        .records
        .iter()
        .filter(|s| keep(&s.record))
        .filter_map(|s| {
            let vector = s.vector.as_deref()?;
            (vector.len() == query.len()).then(|| Scored {
                record: s.record.clone(),
                score: super::simd::dot(query, vector),
            })
        })
        .collect()
}

fn open_log(path: &Path) -> Result<BufWriter<File>, IndexError> {
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| io(path, e))?;
    Ok(BufWriter::new(file))
}

fn read_meta(path: &Path) -> HashMap<String, String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect()
}

type Vectors = HashMap<Arc<str>, (u64, Vec<f32>)>;

/// Replays `vectors.log`: the live records, and how many dead ones the file holds. A torn
/// last record (a crash mid-append) is ignored.
fn replay(path: &Path, dim: usize) -> Result<(Vectors, usize), IndexError> {
    let mut live: Vectors = HashMap::new();
    let mut dead = 0;
    let Ok(file) = File::open(path) else {
        return Ok((live, 0));
    };
    let mut reader = BufReader::new(file);
    let mut read = |n: usize| -> Option<Vec<u8>> {
        let mut buf = vec![0u8; n];
        reader.read_exact(&mut buf).ok().map(|_| buf)
    };
    let u32_of = |b: Vec<u8>| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize;
    while let Some(op) = read(1) {
        let Some(len) = read(4).map(u32_of) else {
            break;
        };
        if len > 1 << 20 {
            break;
        }
        let Some(record) = read(len) else { break };
        let record: Arc<str> = Arc::from(String::from_utf8_lossy(&record).as_ref());
        match op[0] {
            b'U' => {
                let Some(hash) = read(8) else { break };
                let hash = u64::from_le_bytes(hash.try_into().unwrap_or([0; 8]));
                let Some(n) = read(4).map(u32_of) else { break };
                if n != dim {
                    break;
                }
                let Some(bytes) = read(n * 4) else { break };
                let vector = bytes
                    .chunks_exact(4)
                    .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect();
                if live.insert(record, (hash, vector)).is_some() {
                    dead += 1;
                }
            }
            b'D' => {
                if live.remove(&record).is_some() {
                    dead += 1;
                }
            }
            _ => break,
        }
    }
    Ok((live, dead))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn upsert(record: &str, text: &str, v: [f32; 2]) -> Upsert {
        let mut vector = v.to_vec();
        crate::search::embed::normalize(&mut vector);
        Upsert {
            record: record.into(),
            text: text.into(),
            vector,
            hash: None,
        }
    }

    #[test]
    fn survives_a_restart_and_starts_over_for_another_embedder() {
        let dir = tempfile::tempdir().unwrap();
        let params = HnswParams::default();
        {
            let mut index = SearchIndex::open(Some(dir.path()), "e1", 2, params, 2).unwrap();
            index
                .apply(
                    vec![
                        upsert("a", "red apple", [1.0, 0.0]),
                        upsert("b", "green pear", [0.0, 1.0]),
                    ],
                    &[],
                    3,
                )
                .unwrap();
            index
                .apply(vec![upsert("b", "yellow pear", [0.1, 1.0])], &[], 4)
                .unwrap();
            index.apply(Vec::new(), &["a".into()], 5).unwrap();
        }
        let mut index = SearchIndex::open(Some(dir.path()), "e1", 2, params, 2).unwrap();
        assert_eq!(index.published_seq(), 5);
        assert_eq!(
            index.hnsw_seq, None,
            "never dumped: rebuilt from the vectors"
        );
        index.persist().unwrap();
        drop(index);
        let index = SearchIndex::open(Some(dir.path()), "e1", 2, params, 2).unwrap();
        assert_eq!(index.hnsw_seq, Some(5), "reloaded from the dump");
        assert_eq!(index.len(), 1);
        assert_eq!(index.text_hash("b"), Some(text_hash("yellow pear")));
        let hits = index
            .search(
                Lane::Hybrid,
                Some(&[0.0, 1.0]),
                "pear",
                5,
                None,
                &StandIns::default(),
            )
            .unwrap();
        assert_eq!(hits.len(), 1);
        assert_eq!(&*hits[0].record, "b");
        assert!(hits[0].dense.is_some() && hits[0].sparse.is_some());
        drop(index);
        let index = SearchIndex::open(Some(dir.path()), "e2", 2, params, 2).unwrap();
        assert_eq!((index.published_seq(), index.len()), (0, 0));
    }
}
