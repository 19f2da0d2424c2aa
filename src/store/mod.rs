//! The versioned quad store: every quad version knows the commit that added it and the
//! commit that removed it, so a read at any commit is a range scan, never a replay.
//!
//! The store does not know the log. The engine feeds it commits in order (`apply`) and
//! tells it when they are durable (`publish`); readers only ever get published commits.
//!
//! Recent commits live in memory segments; a flush (`freeze`, then `flush`) writes them
//! to a segment file with the new dictionary terms and the removals made in older files,
//! then names the files in a new manifest (`manifest.rs`). `compact` merges segment files.
//! Opening reads the manifest and maps its files: nothing is read whole.

mod bulk;
mod checkpoint;
mod dict;
mod dict_file;
mod file;
mod maintenance;
mod manifest;
mod segment;
mod snapshot;
mod transaction;

pub use bulk::{BulkKeys, BulkKeysWriter, RUN_RECORDS, write_segment};
pub use checkpoint::{CheckpointInfo, read_checkpoint_info};
pub use dict::{DEFAULT_GRAPH, Dict, TermId, term_hash_in_memory};
pub use dict_file::TermKind;
pub use maintenance::MaintenanceStats;
pub use manifest::{DictEntry, MANIFEST_FILE, Manifest, SegmentEntry};
pub use segment::{GraphFilter, Pattern, PlainScan, QuadKey, QuadScan};
pub use snapshot::Snapshot;
pub use transaction::{Transaction, Unapplied};

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use parking_lot::{Mutex, RwLock};

use crate::model::CommitSeq;
use dict_file::DictFile;
use maintenance::{MERGE_RATIO, remove_unnamed_files};
use segment::{Entry, LIVE, Segment};

/// A commit's inserted quads, sorted and indexed, ready to be applied.
pub struct PreparedInserts {
    seq: CommitSeq,
    segment: Option<Segment>,
}

impl PreparedInserts {
    /// Builds the indexes of the quads a commit inserts.
    pub fn new(seq: CommitSeq, inserts: &[QuadKey]) -> Self {
        let segment = (!inserts.is_empty())
            .then(|| Segment::build(inserts.iter().map(|&k| Entry::new(k, seq, LIVE)).collect()));
        Self { seq, segment }
    }
}

/// The segments readers see, oldest first: `n_files` file segments, then `n_frozen`
/// memory segments being flushed, then the active memory segments.
#[derive(Clone, Default)]
struct Layers {
    segments: Arc<Vec<Arc<Segment>>>,
    n_files: usize,
    n_frozen: usize,
}

impl Layers {
    fn files(&self) -> &[Arc<Segment>] {
        &self.segments[..self.n_files]
    }

    fn frozen(&self) -> &[Arc<Segment>] {
        &self.segments[self.n_files..self.n_files + self.n_frozen]
    }
}

/// A graph's quads at every commit. One writer (the engine serializes `apply`), any number
/// of readers.
pub struct Store {
    dict: Arc<Dict>,
    /// Replaced wholesale (copy on write) so a snapshot keeps the list it started with.
    layers: RwLock<Layers>,
    /// The newest commit applied to the indexes (may not be durable yet).
    applied_seq: AtomicU64,
    /// The newest durable commit: what readers see at the head.
    published_seq: AtomicU64,
    /// Serializes `apply` with the steps of a flush or compaction that change the list.
    apply_lock: Mutex<()>,
    /// The store's directory; `None` for a store that lives in memory only.
    dir: Option<PathBuf>,
    /// The manifest in force; its lock also serializes flushes and compactions.
    manifest: Mutex<Manifest>,
    /// The manifest's commit, readable without its lock.
    files_seq: AtomicU64,
    /// The background check of the files after an open: stopped and joined on drop.
    background_check: Mutex<Option<(Arc<AtomicBool>, std::thread::JoinHandle<()>)>>,
}

impl Drop for Store {
    fn drop(&mut self) {
        if let Some((stop, thread)) = self.background_check.get_mut().take() {
            stop.store(true, Ordering::Relaxed);
            let _ = thread.join();
        }
    }
}

impl Default for Store {
    fn default() -> Self {
        Self::with_parts(
            Dict::default(),
            Layers::default(),
            0,
            None,
            Manifest::empty(),
        )
    }
}

impl Store {
    fn with_parts(
        dict: Dict,
        layers: Layers,
        seq: CommitSeq,
        dir: Option<PathBuf>,
        manifest: Manifest,
    ) -> Self {
        Self {
            dict: Arc::new(dict),
            layers: RwLock::new(layers),
            applied_seq: AtomicU64::new(seq),
            published_seq: AtomicU64::new(seq),
            apply_lock: Mutex::new(()),
            dir,
            files_seq: AtomicU64::new(manifest.commit_seq),
            manifest: Mutex::new(manifest),
            background_check: Mutex::new(None),
        }
    }

    /// An empty store that flushes to `dir` (created on the first flush).
    pub fn new_in(dir: &Path) -> Self {
        Self::with_parts(
            Dict::default(),
            Layers::default(),
            0,
            Some(dir.to_owned()),
            Manifest::empty(),
        )
    }

    /// Opens the store in `dir` at the commit its manifest names, mapping its files.
    /// `Ok(None)` when there is no manifest. With `writable`, files the manifest does not
    /// name (leftovers of an interrupted flush or compaction) are deleted.
    pub fn open(dir: &Path, writable: bool) -> std::io::Result<Option<(Self, Manifest)>> {
        let marker = dir.join(file::DAMAGED_MARKER);
        if marker.exists() {
            let reason = std::fs::read_to_string(&marker).unwrap_or_default();
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!(
                    "{}: a file failed its checksum when it was read: {}",
                    dir.display(),
                    reason.trim()
                ),
            ));
        }
        let Some(manifest) = Manifest::read(dir)? else {
            if writable {
                remove_unnamed_files(dir, &Manifest::empty());
            }
            return Ok(None);
        };
        let invalid = |what: String| std::io::Error::new(std::io::ErrorKind::InvalidData, what);
        let mut dicts = Vec::with_capacity(manifest.dicts.len());
        let mut next_id = 1;
        for entry in &manifest.dicts {
            let file = DictFile::open(&dir.join(&entry.name))?;
            if (file.first(), file.end()) != (entry.first, entry.end) || file.first() != next_id {
                return Err(invalid(format!(
                    "{}: holds ids {}..{}, the manifest says {}..{}",
                    entry.name,
                    file.first(),
                    file.end(),
                    entry.first,
                    entry.end
                )));
            }
            next_id = file.end();
            dicts.push(Arc::new(file));
        }
        let mut segments: Vec<Arc<Segment>> = Vec::with_capacity(manifest.segments.len());
        for entry in &manifest.segments {
            let segment = Segment::open(&dir.join(&entry.name), &entry.name)?;
            let info = segment.file().expect("a file segment");
            if (info.from_seq, info.to_seq) != (entry.from_seq, entry.to_seq)
                || info.to_seq > manifest.commit_seq
            {
                return Err(invalid(format!(
                    "{}: covers commits {}..{}, the manifest says {}..{}",
                    entry.name, info.from_seq, info.to_seq, entry.from_seq, entry.to_seq
                )));
            }
            for tombstone in segment.tombstones() {
                for older in segments.iter().rev() {
                    if older.route_tombstone(tombstone) {
                        break;
                    }
                }
            }
            segments.push(Arc::new(segment));
        }
        if writable {
            remove_unnamed_files(dir, &manifest);
        }
        let layers = Layers {
            n_files: segments.len(),
            n_frozen: 0,
            segments: Arc::new(segments),
        };
        let store = Self::with_parts(
            Dict::from_files(dicts),
            layers,
            manifest.commit_seq,
            Some(dir.to_owned()),
            manifest.clone(),
        );
        // The tombstones read above were checked: damage found already fails the open.
        if let Some(reason) = store.damage() {
            return Err(invalid(reason));
        }
        if writable {
            store.check_files_in_background();
        }
        Ok(Some((store, manifest)))
    }

    /// Why a file of the store is damaged, once a check of one failed.
    pub fn damage(&self) -> Option<String> {
        if !file::any_damage() {
            return None;
        }
        let layers = self.layers.read().clone();
        layers
            .files()
            .iter()
            .find_map(|s| s.mapped().and_then(|f| f.damage()).map(str::to_owned))
            .or_else(|| self.dict.damage())
    }

    /// Checks every section of every file on a background thread (see `file.rs`), so
    /// damage is found soon after a server opens the store even where no query reads.
    /// Sections a query reads first are checked by that query (once either way). Only a
    /// writable open does this: `strata verify` and read-only opens beside a server read
    /// what they need.
    fn check_files_in_background(&self) {
        let segments = self.layers.read().segments.clone();
        let dicts = self.dict.files();
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = stop.clone();
        let spawned = std::thread::Builder::new()
            .name("strata-check-files".into())
            .spawn(move || {
                for part in &dicts {
                    part.file().check_all_sections(&stopped);
                }
                for segment in segments.iter() {
                    if let Some(file) = segment.mapped() {
                        file.check_all_sections(&stopped);
                    }
                }
            });
        match spawned {
            Ok(thread) => *self.background_check.lock() = Some((stop, thread)),
            Err(error) => {
                tracing::warn!(%error, "cannot start the background check of the store files")
            }
        }
    }

    /// The term dictionary shared by every snapshot.
    /// Drops the resident pages of every mapped file of the store: a long import or
    /// replay calls it now and then, as its probes would otherwise leave whole files
    /// resident (see `crate::mapped::release_pages`).
    pub fn release_pages(&self) {
        self.dict.release_pages();
        let segments = self.layers.read().segments.clone();
        for segment in segments.iter() {
            segment.release_pages();
        }
    }

    pub fn dict(&self) -> &Arc<Dict> {
        &self.dict
    }

    /// The newest commit readers may see.
    pub fn published_seq(&self) -> CommitSeq {
        self.published_seq.load(Ordering::Acquire)
    }

    /// The newest commit applied (the writer's view).
    pub fn applied_seq(&self) -> CommitSeq {
        self.applied_seq.load(Ordering::Acquire)
    }

    /// The commit the files hold (the manifest's). Never waits for a flush or compaction.
    pub fn manifest_seq(&self) -> CommitSeq {
        self.files_seq.load(Ordering::Acquire)
    }

    /// Segment files in use, and quad versions held in memory (for metrics).
    pub fn layout(&self) -> (usize, usize) {
        let layers = self.layers.read();
        let in_memory = layers.segments[layers.n_files..]
            .iter()
            .map(|s| s.len())
            .sum();
        (layers.n_files, in_memory)
    }

    /// A copy of the manifest in force.
    pub fn manifest(&self) -> Manifest {
        self.manifest.lock().clone()
    }

    /// A read view at `seq`. The caller checks `seq <= published_seq()` (or, for the
    /// writer, `applied_seq()`).
    pub fn snapshot_at(&self, seq: CommitSeq) -> Snapshot {
        let segments = self.layers.read().segments.clone();
        Snapshot::new(self.dict.clone(), segments, seq)
    }

    /// A transaction over the applied head, for the writer to compute a commit's changes.
    pub fn begin(&self) -> Transaction {
        Transaction::new(self.snapshot_at(self.applied_seq()))
    }

    /// A transaction on top of commits built but not yet applied (`unapplied`, the last of
    /// them commit `last`).
    pub fn begin_after(&self, unapplied: &Unapplied, last: CommitSeq) -> Transaction {
        Transaction::on_unapplied(self.snapshot_at(self.applied_seq()), unapplied, last)
    }

    /// Applies a commit's changes. `inserts` must not be present and `deletes` must be
    /// present at the applied head (a `Transaction` guarantees both).
    pub fn apply(&self, seq: CommitSeq, inserts: &[QuadKey], deletes: &[QuadKey]) {
        self.apply_prepared(seq, PreparedInserts::new(seq, inserts), deletes);
    }

    /// Like `apply`, with the inserts' indexes built beforehand (possibly on another
    /// thread while the log record is being encoded).
    pub fn apply_prepared(&self, seq: CommitSeq, inserts: PreparedInserts, deletes: &[QuadKey]) {
        debug_assert!(seq > self.applied_seq());
        debug_assert_eq!(inserts.seq, seq);
        let _apply = self.apply_lock.lock();
        let current = self.layers.read().clone();
        for key in deletes {
            if let Some(segment) = current.segments.iter().rev().find(|s| s.has_live(key)) {
                segment.remove(*key, seq);
            }
        }
        if let Some(segment) = inserts.segment {
            let mut segments: Vec<Arc<Segment>> = current.segments.as_ref().clone();
            segments.push(Arc::new(segment));
            // Keep the active memory segments' sizes geometric: merge while the newest is at
            // least half the size of the one before it, so there are O(log n) to probe.
            let first_active = current.n_files + current.n_frozen;
            while segments.len() >= first_active + 2 {
                let last = &segments[segments.len() - 1];
                let previous = &segments[segments.len() - 2];
                if last.len() * MERGE_RATIO < previous.len() {
                    break;
                }
                let merged = Segment::merge(previous, last);
                segments.truncate(segments.len() - 2);
                segments.push(Arc::new(merged));
            }
            *self.layers.write() = Layers {
                segments: Arc::new(segments),
                ..current
            };
        }
        self.applied_seq.store(seq, Ordering::Release);
    }

    /// Makes commits up to `seq` visible to readers (after they are durable).
    pub fn publish(&self, seq: CommitSeq) {
        self.published_seq.fetch_max(seq, Ordering::AcqRel);
    }

    /// Number of quad versions held (for statistics).
    pub fn n_versions(&self) -> usize {
        self.layers.read().segments.iter().map(|s| s.len()).sum()
    }

    /// Quad versions and terms held in memory (not yet flushed to files).
    pub fn n_in_memory(&self) -> (usize, usize) {
        let layers = self.layers.read();
        let versions = layers.segments[layers.n_files..]
            .iter()
            .map(|s| s.len())
            .sum();
        (versions, self.dict.n_in_memory())
    }
}

/// Where section `i` of the segment file at `path` starts (tests that damage one).
#[cfg(test)]
pub(crate) fn segment_section_offset(path: &Path, i: usize) -> std::io::Result<usize> {
    let (file, _) = file::MappedFile::open_kinds(path, &[segment::MAGIC, segment::MAGIC_V1])?;
    Ok(file.section_offset(i))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys_at(store: &Store, seq: CommitSeq) -> Vec<QuadKey> {
        let snapshot = store.snapshot_at(seq);
        let mut keys: Vec<_> = snapshot
            .quads(Pattern {
                subject: None,
                predicate: None,
                object: None,
                graph: GraphFilter::All,
            })
            .collect();
        keys.sort();
        keys
    }

    #[test]
    fn reads_at_each_commit_see_exactly_that_commit() {
        let store = Store::default();
        store.apply(1, &[[1, 2, 3, 0], [4, 5, 6, 0]], &[]);
        store.apply(2, &[[7, 8, 9, 0]], &[[1, 2, 3, 0]]);
        store.apply(3, &[[1, 2, 3, 0]], &[]);
        store.publish(3);
        assert_eq!(keys_at(&store, 0), Vec::<QuadKey>::new());
        assert_eq!(keys_at(&store, 1), vec![[1, 2, 3, 0], [4, 5, 6, 0]]);
        assert_eq!(keys_at(&store, 2), vec![[4, 5, 6, 0], [7, 8, 9, 0]]);
        assert_eq!(
            keys_at(&store, 3),
            vec![[1, 2, 3, 0], [4, 5, 6, 0], [7, 8, 9, 0]]
        );
    }

    #[test]
    fn many_small_commits_stay_in_few_segments() {
        let store = Store::default();
        for seq in 1..=1000u64 {
            let id = seq as u32;
            store.apply(seq, &[[id, 1, 1, 0]], &[]);
        }
        assert!(store.layers.read().segments.len() <= 12);
        assert_eq!(keys_at(&store, 1000).len(), 1000);
        assert_eq!(keys_at(&store, 10).len(), 10);
    }

    /// A tiny deterministic generator (xorshift), so failures replay.
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }
    }

    /// Random commits, flushes, compactions and reopens, checked against a model of every
    /// commit's quads: files, tombstones and removals carried across flushes must give
    /// exactly the reads the in-memory store gives, at every commit.
    #[test]
    fn flushes_compactions_and_reopens_keep_every_commit_readable() {
        use crate::model::{CommitHash, NamedNode, Term};
        for seed in 1..=6u64 {
            let dir = tempfile::tempdir().unwrap();
            let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15));
            let mut store = Store::new_in(dir.path());
            let mut model: Vec<std::collections::BTreeSet<QuadKey>> = vec![Default::default()];
            let mut tombstones = 0;
            let mut compactions = 0;
            for seq in 1..=120u64 {
                let mut current = model.last().unwrap().clone();
                let mut inserts = Vec::new();
                let mut deletes = Vec::new();
                for _ in 0..rng.below(12) {
                    let id = |rng: &mut Rng| {
                        let term: Term =
                            NamedNode::new_unchecked(format!("http://e/{}", rng.below(9))).into();
                        store.dict().intern(&term)
                    };
                    let key = [id(&mut rng), id(&mut rng), id(&mut rng), 0];
                    if current.contains(&key) {
                        if !inserts.contains(&key) && !deletes.contains(&key) {
                            deletes.push(key);
                        }
                    } else if !inserts.contains(&key) && !deletes.contains(&key) {
                        inserts.push(key);
                    }
                }
                for key in &inserts {
                    current.insert(*key);
                }
                for key in &deletes {
                    current.remove(key);
                }
                store.apply(seq, &inserts, &deletes);
                store.publish(seq);
                model.push(current);
                match rng.below(10) {
                    0 | 1 => {
                        let frozen = store.freeze();
                        let stats = store.flush(frozen, CommitHash([seq as u8; 32])).unwrap();
                        tombstones += stats.tombstones_written;
                    }
                    2 => {
                        compactions += store.compact().unwrap().files_removed;
                    }
                    3 => {
                        let frozen = store.freeze();
                        store.flush(frozen, CommitHash([seq as u8; 32])).unwrap();
                        let (reopened, manifest) = Store::open(dir.path(), true).unwrap().unwrap();
                        assert_eq!(manifest.commit_seq, seq);
                        store = reopened;
                    }
                    _ => {}
                }
                if seq % 20 == 0 {
                    for (at, expected) in model.iter().enumerate() {
                        let found: std::collections::BTreeSet<QuadKey> =
                            keys_at(&store, at as u64).into_iter().collect();
                        assert_eq!(&found, expected, "seed {seed}, commit {at}, head {seq}");
                        // Bound positions read the other orderings (POSG, OSPG, GSPO).
                        let id = 1 + rng.below(u64::from(store.dict().len())) as TermId;
                        for position in 1..4 {
                            let mut pattern = Pattern {
                                subject: None,
                                predicate: None,
                                object: None,
                                graph: GraphFilter::All,
                            };
                            match position {
                                1 => pattern.predicate = Some(id),
                                2 => pattern.object = Some(id),
                                _ => pattern.graph = GraphFilter::Is(0),
                            }
                            let found: std::collections::BTreeSet<QuadKey> =
                                store.snapshot_at(at as u64).quads(pattern).collect();
                            let wanted: std::collections::BTreeSet<QuadKey> = expected
                                .iter()
                                .filter(|k| pattern.matches(k))
                                .copied()
                                .collect();
                            assert_eq!(found, wanted, "seed {seed}, commit {at}, {pattern:?}");
                        }
                    }
                }
            }
            assert!(
                tombstones > 0 && compactions > 0,
                "seed {seed}: {tombstones} {compactions}"
            );
            store.compact().unwrap();
            let frozen = store.freeze();
            store.flush(frozen, CommitHash([1; 32])).unwrap();
            let (reopened, _) = Store::open(dir.path(), true).unwrap().unwrap();
            for (at, expected) in model.iter().enumerate() {
                let found: std::collections::BTreeSet<QuadKey> =
                    keys_at(&reopened, at as u64).into_iter().collect();
                assert_eq!(&found, expected, "seed {seed}, commit {at} after reopening");
            }
            assert!(reopened.n_in_memory().0 == 0);
        }
    }

    #[test]
    fn a_file_with_many_removals_is_rewritten_with_them_folded_in() {
        use crate::model::CommitHash;
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new_in(dir.path());
        let keys: Vec<QuadKey> = (1..=16_000u32).map(|i| [i, 1, 1, 0]).collect();
        store.apply(1, &keys, &[]);
        store.publish(1);
        let seq = store.freeze();
        store.flush(seq, CommitHash([1; 32])).unwrap();
        store.apply(2, &[], &keys[..12_000]);
        store.publish(2);
        let seq = store.freeze();
        let flushed = store.flush(seq, CommitHash([2; 32])).unwrap();
        assert_eq!(flushed.tombstones_written, 12_000);
        let big = store.layers.read().files()[0].clone();
        assert_eq!(big.removals().len(), 12_000);
        let compacted = store.compact().unwrap();
        assert_eq!(compacted.entries_written, 16_000);
        let files = store.layers.read().files().to_vec();
        assert_eq!(files.len(), 1);
        assert_eq!(
            files[0].removals().len(),
            0,
            "the removals are in the file now"
        );
        assert!(files[0].tombstones().is_empty());
        assert_eq!(keys_at(&store, 1).len(), 16_000);
        assert_eq!(keys_at(&store, 2), keys[12_000..].to_vec());
        let (reopened, _) = Store::open(dir.path(), true).unwrap().unwrap();
        assert_eq!(keys_at(&reopened, 1).len(), 16_000);
        assert_eq!(keys_at(&reopened, 2), keys[12_000..].to_vec());
    }

    #[test]
    fn a_segment_file_of_format_1_is_read_and_rewritten_by_the_next_compaction() {
        use crate::model::CommitHash;
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new_in(dir.path());
        let keys: Vec<QuadKey> = (1..=300u32).map(|i| [i % 17, 1 + i % 3, i, 0]).collect();
        store.apply(1, &keys, &[]);
        store.publish(1);
        let seq = store.freeze();
        store.flush(seq, CommitHash([1; 32])).unwrap();
        store.apply(2, &[], &keys[..100]);
        store.publish(2);
        let seq = store.freeze();
        store.flush(seq, CommitHash([2; 32])).unwrap();
        // Both files as an earlier build wrote them (format 1, the same content).
        for segment in store.layers.read().files() {
            let info = segment.file().unwrap().clone();
            let path = dir.path().join(&info.name);
            let entries = segment.entries().to_vec();
            let tombstones = segment.tombstones().to_vec();
            segment::write_format_1(
                &segment::Segment::build(entries),
                &path.with_extension("old"),
                (info.from_seq, info.to_seq),
                &tombstones,
            );
            std::fs::rename(path.with_extension("old"), &path).unwrap();
        }
        drop(store);
        let (reopened, _) = Store::open(dir.path(), true).unwrap().unwrap();
        let files = reopened.layers.read().files().to_vec();
        assert!(files.len() == 2 && files.iter().all(|s| s.is_format_1()));
        let by_predicate = |store: &Store, seq| {
            let pattern = Pattern {
                subject: None,
                predicate: Some(2),
                object: None,
                graph: GraphFilter::Is(0),
            };
            let mut found: Vec<QuadKey> = store.snapshot_at(seq).quads(pattern).collect();
            found.sort();
            found
        };
        let wanted = |seq| {
            let mut keys: Vec<QuadKey> = keys[if seq == 1 { 0 } else { 100 }..]
                .iter()
                .filter(|k| k[1] == 2)
                .copied()
                .collect();
            keys.sort();
            keys
        };
        for seq in [1, 2] {
            assert_eq!(
                keys_at(&reopened, seq).len(),
                if seq == 1 { 300 } else { 200 }
            );
            assert_eq!(by_predicate(&reopened, seq), wanted(seq));
        }
        let compacted = reopened.compact().unwrap();
        assert_eq!(compacted.entries_written, 300);
        let files = reopened.layers.read().files().to_vec();
        assert!(files.len() == 1 && !files[0].is_format_1());
        for seq in [1, 2] {
            assert_eq!(by_predicate(&reopened, seq), wanted(seq));
        }
        assert!(
            reopened.compact().unwrap().entries_written == 0,
            "nothing left to rewrite"
        );
    }

    #[test]
    fn leftover_files_are_removed_and_damaged_files_refused() {
        use crate::model::CommitHash;
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new_in(dir.path());
        store
            .dict()
            .intern(&crate::model::NamedNode::new_unchecked("http://e/a").into());
        store.apply(1, &[[1, 1, 1, 0]], &[]);
        store.publish(1);
        let seq = store.freeze();
        store.flush(seq, CommitHash([1; 32])).unwrap();
        std::fs::write(dir.path().join("00000099.seg"), b"half a file").unwrap();
        let (reopened, _) = Store::open(dir.path(), true).unwrap().unwrap();
        assert!(!dir.path().join("00000099.seg").exists());
        assert_eq!(keys_at(&reopened, 1), vec![[1, 1, 1, 0]]);
        let segment = dir.path().join(&reopened.manifest().segments[0].name);
        // Files are never rewritten while a store maps them (its background check reads
        // them): close it first.
        drop(reopened);
        let bytes = std::fs::read(&segment).unwrap();
        std::fs::write(&segment, &bytes[..bytes.len() - 5]).unwrap();
        assert!(Store::open(dir.path(), true).is_err());
    }

    #[test]
    fn a_snapshot_ignores_later_commits() {
        let store = Store::default();
        store.apply(1, &[[1, 1, 1, 0]], &[]);
        store.publish(1);
        let before = store.snapshot_at(1);
        store.apply(2, &[[2, 2, 2, 0]], &[[1, 1, 1, 0]]);
        store.publish(2);
        let all = Pattern {
            subject: None,
            predicate: None,
            object: None,
            graph: GraphFilter::All,
        };
        assert_eq!(before.quads(all).collect::<Vec<_>>(), vec![[1, 1, 1, 0]]);
    }
}
