//! Immutable sorted runs of versioned quads, with four orderings each.
//!
//! A `Segment` is built once from a batch of quads (a commit, a merge of segments, or a
//! flush of the in-memory ones to a file) and its entries never change afterwards: in
//! memory they are a `Vec`, on disk a file read in place through a memory map. A removal
//! is data beside the entries: `Removals` maps the key of the segment's live version of a
//! quad to the commit that removed it. Readers pinned at a commit before that ignore it,
//! which is what lets readers and the single writer share segments without locks on the
//! entries. Merges and flushes fold removals into the entries they write.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use parking_lot::RwLock;
use rustc_hash::FxHashMap;

use super::dict::{DEFAULT_GRAPH, TermId};
use super::file::{self, MappedFile};
use crate::model::CommitSeq;

/// `removed` of a quad that is still present.
pub(crate) const LIVE: CommitSeq = CommitSeq::MAX;

/// Segment files of format 2: each ordering holds its keys (`Keyed`), so a scan in any
/// order reads one array front to back.
pub(crate) const MAGIC: &[u8; 8] = b"strataS2";
/// Segment files of format 1 (still read; merges write format 2): each ordering is
/// indexes into the entries, a cache miss per entry read in that order.
pub(crate) const MAGIC_V1: &[u8; 8] = b"strataS1";

/// A quad's term ids in subject, predicate, object, graph order.
pub type QuadKey = [TermId; 4];

/// One version of a quad: present for commits `added..removed` (as far as the entry
/// knows: see `Segment::removed_of`). Its layout is the on-disk layout.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct Entry {
    pub key: QuadKey,
    pub added: CommitSeq,
    pub removed: CommitSeq,
}

impl Entry {
    pub fn new(key: QuadKey, added: CommitSeq, removed: CommitSeq) -> Self {
        Self {
            key,
            added,
            removed,
        }
    }
}

/// One position of an ordering in a segment file: the quad's key permuted to that
/// ordering (`Order::permute`) and the index of its entry (for the versions). Its layout
/// is the on-disk layout.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct Keyed {
    pub key: QuadKey,
    pub index: u32,
}

/// A removal written to a segment file: the live version of `key` in an older file was
/// removed at commit `removed`. Its layout is the on-disk layout.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct Tombstone {
    pub key: QuadKey,
    pub removed: CommitSeq,
}

/// Removals of a segment's live versions, newest knowledge first: the writer adds, readers
/// look up (only when any exist).
#[derive(Default)]
pub(crate) struct Removals {
    len: AtomicUsize,
    map: RwLock<FxHashMap<QuadKey, CommitSeq>>,
}

impl Removals {
    #[inline]
    fn get(&self, key: &QuadKey) -> Option<CommitSeq> {
        if self.len.load(Ordering::Acquire) == 0 {
            return None;
        }
        self.map.read().get(key).copied()
    }

    fn insert(&self, key: QuadKey, seq: CommitSeq) {
        let mut map = self.map.write();
        map.insert(key, seq);
        self.len.store(map.len(), Ordering::Release);
    }

    /// How many removals are held.
    pub fn len(&self) -> usize {
        self.len.load(Ordering::Acquire)
    }

    /// The removals made in `(after, upto]`.
    pub fn between(&self, after: CommitSeq, upto: CommitSeq) -> Vec<Tombstone> {
        self.map
            .read()
            .iter()
            .filter(|(_, r)| after < **r && **r <= upto)
            .map(|(key, removed)| Tombstone {
                key: *key,
                removed: *removed,
            })
            .collect()
    }
}

/// The orderings a segment is sorted by. `Spog` is the order of `entries` itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Order {
    Spog,
    Posg,
    Ospg,
    Gspo,
}

impl Order {
    const ALL: [Order; 4] = [Order::Spog, Order::Posg, Order::Ospg, Order::Gspo];

    /// Positions (into a `QuadKey`) in this ordering's sort order.
    const fn positions(self) -> [usize; 4] {
        match self {
            Order::Spog => [0, 1, 2, 3],
            Order::Posg => [1, 2, 0, 3],
            Order::Ospg => [2, 0, 1, 3],
            Order::Gspo => [3, 0, 1, 2],
        }
    }

    #[inline]
    pub(super) fn permute(self, key: &QuadKey) -> QuadKey {
        let p = self.positions();
        [key[p[0]], key[p[1]], key[p[2]], key[p[3]]]
    }

    /// The quad key of a key permuted to this ordering.
    #[inline]
    fn unpermute(self, permuted: &QuadKey) -> QuadKey {
        let p = self.positions();
        let mut key = [0; 4];
        for (i, &position) in p.iter().enumerate() {
            key[position] = permuted[i];
        }
        key
    }
}

/// One ordering of a segment as it is read: the entries themselves (SPOG), indexes into
/// them (memory segments, format-1 files), or keys with their entries' indexes.
#[derive(Clone, Copy)]
enum Sorted<'a> {
    Entries,
    Indexes(&'a [u32]),
    Keyed(&'a [Keyed]),
}

/// Which positions of a quad pattern are fixed, and how graphs are restricted.
#[derive(Clone, Copy, Debug)]
pub struct Pattern {
    pub subject: Option<TermId>,
    pub predicate: Option<TermId>,
    pub object: Option<TermId>,
    pub graph: GraphFilter,
}

/// The graph restriction of a pattern, as spareval asks for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GraphFilter {
    /// Any graph, default included (used by the store's own scans).
    All,
    /// Any named graph, not the default graph.
    AnyNamed,
    /// Exactly this graph (`DEFAULT_GRAPH` for the default graph).
    Is(TermId),
}

impl Pattern {
    fn bound(&self) -> [Option<TermId>; 4] {
        let graph = match self.graph {
            GraphFilter::Is(g) => Some(g),
            _ => None,
        };
        [self.subject, self.predicate, self.object, graph]
    }

    #[inline]
    pub fn matches(&self, key: &QuadKey) -> bool {
        self.subject.is_none_or(|s| s == key[0])
            && self.predicate.is_none_or(|p| p == key[1])
            && self.object.is_none_or(|o| o == key[2])
            && match self.graph {
                GraphFilter::All => true,
                GraphFilter::AnyNamed => key[3] != DEFAULT_GRAPH,
                GraphFilter::Is(g) => key[3] == g,
            }
    }

    /// The ordering with the longest bound prefix, and that prefix (permuted, with its
    /// length). No allocation: this runs once per lookup of every nested-loop join.
    fn plan(&self) -> (Order, [TermId; 4], usize) {
        let bound = self.bound();
        let mut best = (Order::Spog, [0; 4], 0);
        for order in Order::ALL {
            let mut prefix = [0; 4];
            let mut len = 0;
            for &pos in &order.positions() {
                let Some(id) = bound[pos] else { break };
                prefix[len] = id;
                len += 1;
            }
            if len > best.2 {
                best = (order, prefix, len);
            }
        }
        best
    }
}

/// Where a segment's entries and orderings live.
enum Storage {
    Memory {
        /// Sorted by (s, p, o, g, added).
        entries: Vec<Entry>,
        posg: Vec<u32>,
        ospg: Vec<u32>,
        gspo: Vec<u32>,
    },
    /// Section 0 of the file is the entries, sections 1-3 the other orderings (`Keyed`
    /// arrays; in a format-1 file, `keyed` false, indexes as in memory), section 4 its
    /// tombstones.
    File { file: MappedFile, keyed: bool },
}

/// What a segment file covers: the entries added in commits `from_seq + 1..=to_seq`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct FileInfo {
    pub name: String,
    pub from_seq: CommitSeq,
    pub to_seq: CommitSeq,
}

/// A sorted run of entries with three extra orderings (indexes into the entries).
pub(crate) struct Segment {
    storage: Storage,
    removals: Removals,
    file: Option<FileInfo>,
    /// The newest `added` and the oldest `removed` of its entries, found by one pass on
    /// first use (`range_counts`; entries never change).
    versions: std::sync::OnceLock<(CommitSeq, CommitSeq)>,
    /// Per order, every `FENCE_EVERY`-th key (`fences`), made on first use.
    fences: [std::sync::OnceLock<Vec<QuadKey>>; 4],
}

/// One key of every this many is kept in memory per order: a lookup first searches
/// those (a few hundred KB at 5M quads, in the caches), then one block of the file
/// (two pages), where a search of the whole file touches a new page and cache line at
/// nearly every one of its ~23 steps. Measured on BSBM bi7 at 5M (5,960 lookups of an
/// offer's vendor): ~1.1 µs per lookup before.
const FENCE_EVERY: usize = 128;

/// The bytes of a segment file's section 5, which holds the fences of its four orders
/// (SPOG, POSG, OSPG, GSPO: each the key at every `FENCE_EVERY`-th position, permuted
/// to its order), so that an open reads them instead of the orderings. Files that
/// have them say so with `FENCE_EVERY` in `meta[6]` (0 in older files, whose fences are
/// made on first use).
pub(crate) fn fence_section_len(n: usize) -> usize {
    4 * n.div_ceil(FENCE_EVERY) * std::mem::size_of::<QuadKey>()
}

/// The header values and section sizes of a format-2 segment file of `n` entries and
/// `n_tombstones` tombstones, holding commits `from_seq+1..=to_seq`, whose entries'
/// newest `added` and oldest `removed` are `versions`.
pub(crate) fn file_layout(
    n: usize,
    n_tombstones: usize,
    (from_seq, to_seq): (CommitSeq, CommitSeq),
    (newest_added, oldest_removed): (CommitSeq, CommitSeq),
) -> ([u64; file::N_META], [usize; file::N_SECTIONS]) {
    let meta = [
        from_seq,
        to_seq,
        n as u64,
        n_tombstones as u64,
        newest_added,
        oldest_removed,
        FenceWriter::MARK,
        0,
    ];
    let lens = [
        n * 32,
        n * 20,
        n * 20,
        n * 20,
        n_tombstones * 24,
        fence_section_len(n),
    ];
    (meta, lens)
}

/// Collects the fences of a segment file while its sections are written in order, then
/// writes them as section 5.
#[derive(Default)]
pub(crate) struct FenceWriter {
    fences: [Vec<QuadKey>; 4],
}

impl FenceWriter {
    /// `key` (permuted to the order of `section`, 0 = the entries in SPOG) is at
    /// `position` of that section.
    #[inline]
    pub fn see(&mut self, section: usize, position: usize, key: QuadKey) {
        if position.is_multiple_of(FENCE_EVERY) {
            self.fences[section].push(key);
        }
    }

    pub fn write(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        for fences in &self.fences {
            out.write_all(bytemuck::cast_slice(fences))?;
        }
        Ok(())
    }

    /// `meta[6]` of a file with fences.
    pub const MARK: u64 = FENCE_EVERY as u64;
}

impl Segment {
    /// Drops the resident pages of a segment file (see `MappedFile::release_pages`).
    pub fn release_pages(&self) {
        if let Storage::File { file, .. } = &self.storage {
            file.release_pages();
        }
    }

    /// Builds an in-memory segment from entries in any order.
    pub fn build(mut entries: Vec<Entry>) -> Self {
        entries.sort_unstable_by_key(|e| (e.key, e.added));
        let posg = sorted_permutation(&entries, Order::Posg);
        let ospg = sorted_permutation(&entries, Order::Ospg);
        let gspo = sorted_permutation(&entries, Order::Gspo);
        Self {
            storage: Storage::Memory {
                entries,
                posg,
                ospg,
                gspo,
            },
            removals: Removals::default(),
            file: None,
            versions: std::sync::OnceLock::new(),
            fences: Default::default(),
        }
    }

    /// The entries of several segments with their removals up to `upto` folded in (later
    /// ones stay with the segments they were made in).
    pub fn folded_entries(segments: &[Arc<Segment>], upto: CommitSeq) -> Vec<Entry> {
        let mut entries = Vec::with_capacity(segments.iter().map(|s| s.len()).sum());
        for segment in segments {
            entries.extend(segment.entries().iter().map(|e| {
                let removed = segment.removed_of(e);
                Entry::new(e.key, e.added, if removed <= upto { removed } else { LIVE })
            }));
        }
        entries
    }

    /// Merges two in-memory segments into one, folding in every removal (the writer
    /// calls this under its lock, so none can be added meanwhile).
    pub fn merge(a: &Arc<Segment>, b: &Arc<Segment>) -> Self {
        Self::build(Self::folded_entries(&[a.clone(), b.clone()], LIVE - 1))
    }

    /// Writes this segment to a new file with the tombstones of removals in older files.
    pub fn write_file(
        &self,
        path: &Path,
        from_seq: CommitSeq,
        to_seq: CommitSeq,
        tombstones: &[Tombstone],
    ) -> std::io::Result<u64> {
        const BATCH: usize = 8192;
        let entries = self.entries();
        let n = entries.len();
        let (newest_added, oldest_removed) = self.versions();
        let (meta, lens) = file_layout(
            n,
            tombstones.len(),
            (from_seq, to_seq),
            (newest_added, oldest_removed),
        );
        let mut fences = FenceWriter::default();
        file::write_file_with(path, MAGIC, meta, &lens, |section, out| {
            match section {
                0 => {
                    for (position, entry) in entries.iter().enumerate() {
                        fences.see(0, position, entry.key);
                    }
                    return out.write_all(bytemuck::cast_slice(entries));
                }
                4 => return out.write_all(bytemuck::cast_slice(tombstones)),
                5 => return fences.write(out),
                _ => {}
            }
            let order = [Order::Posg, Order::Ospg, Order::Gspo][section - 1];
            let mut batch: Vec<Keyed> = Vec::with_capacity(BATCH);
            for position in 0..n {
                let (index, entry) = self.at_index(order, position).ok_or_else(|| {
                    std::io::Error::new(std::io::ErrorKind::InvalidData, "inconsistent segment")
                })?;
                let key = order.permute(&entry.key);
                fences.see(section, position, key);
                batch.push(Keyed { key, index });
                if batch.len() == BATCH {
                    out.write_all(bytemuck::cast_slice(&batch))?;
                    batch.clear();
                }
            }
            out.write_all(bytemuck::cast_slice(&batch))
        })
    }

    /// Merges segments (oldest first) into a new segment file, streaming: the entries and
    /// each ordering are k-way merges of the inputs' own sorted arrays, so memory holds
    /// only the new position of every entry (4 bytes each), never the entries. Removals
    /// up to `upto` are folded in.
    pub fn merge_to_file(
        inputs: &[Arc<Segment>],
        upto: CommitSeq,
        path: &Path,
        (from_seq, to_seq): (CommitSeq, CommitSeq),
        tombstones: &[Tombstone],
    ) -> std::io::Result<u64> {
        const BATCH: usize = 8192;
        let corrupt =
            || std::io::Error::new(std::io::ErrorKind::InvalidData, "inconsistent segment");
        let n: usize = inputs.iter().map(|s| s.len()).sum();
        if n > u32::MAX as usize {
            return Err(std::io::Error::other(
                "a segment holds at most 2^32 entries",
            ));
        }
        let entries: Vec<&[Entry]> = inputs.iter().map(|s| s.entries()).collect();
        let mut new_pos: Vec<Vec<u32>> = entries.iter().map(|e| vec![0; e.len()]).collect();
        let folded = |segment: &Segment, entry: &Entry| {
            let removed = segment.removed_of(entry);
            if removed <= upto { removed } else { LIVE }
        };
        // The versions the header records (one pass over the inputs before writing).
        let (mut newest_added, mut oldest_removed) = (0, LIVE);
        for (segment, run) in inputs.iter().zip(&entries) {
            for entry in *run {
                newest_added = newest_added.max(entry.added);
                oldest_removed = oldest_removed.min(folded(segment, entry));
            }
        }
        let (meta, lens) = file_layout(
            n,
            tombstones.len(),
            (from_seq, to_seq),
            (newest_added, oldest_removed),
        );
        let mut fences = FenceWriter::default();
        file::write_file_with(path, MAGIC, meta, &lens, |section, out| {
            if section == 4 {
                return out.write_all(bytemuck::cast_slice(tombstones));
            }
            if section == 5 {
                return fences.write(out);
            }
            let mut heads = vec![0usize; inputs.len()];
            if section == 0 {
                let mut batch: Vec<Entry> = Vec::with_capacity(BATCH);
                for position in 0..n as u32 {
                    let mut best: Option<(usize, &Entry)> = None;
                    for (i, run) in entries.iter().enumerate() {
                        if let Some(e) = run.get(heads[i])
                            && best.is_none_or(|(_, b)| (e.key, e.added) < (b.key, b.added))
                        {
                            best = Some((i, e));
                        }
                    }
                    let (i, entry) = best.ok_or_else(corrupt)?;
                    fences.see(0, position as usize, entry.key);
                    new_pos[i][heads[i]] = position;
                    heads[i] += 1;
                    batch.push(Entry::new(
                        entry.key,
                        entry.added,
                        folded(&inputs[i], entry),
                    ));
                    if batch.len() == BATCH {
                        out.write_all(bytemuck::cast_slice(&batch))?;
                        batch.clear();
                    }
                }
                return out.write_all(bytemuck::cast_slice(&batch));
            }
            let order = [Order::Posg, Order::Ospg, Order::Gspo][section - 1];
            let keys: Vec<_> = inputs.iter().map(|s| s.keys_in(order)).collect();
            let mut batch: Vec<Keyed> = Vec::with_capacity(BATCH);
            for position in 0..n {
                // The least (permuted key, added) of the inputs' heads; `added` is read
                // only to order two versions of one quad.
                let mut best: Option<(usize, QuadKey)> = None;
                for (i, key_at) in keys.iter().enumerate() {
                    if heads[i] >= entries[i].len() {
                        continue;
                    }
                    let key = key_at(heads[i]);
                    let less = match best {
                        None => true,
                        Some((b, best_key)) => {
                            key < best_key
                                || key == best_key && {
                                    let added =
                                        |j: usize| inputs[j].at(order, heads[j]).map(|e| e.added);
                                    added(i) < added(b)
                                }
                        }
                    };
                    if less {
                        best = Some((i, key));
                    }
                }
                let (i, key) = best.ok_or_else(corrupt)?;
                fences.see(section, position, key);
                let (idx, _) = inputs[i].at_index(order, heads[i]).ok_or_else(corrupt)?;
                heads[i] += 1;
                batch.push(Keyed {
                    key,
                    index: *new_pos[i].get(idx as usize).ok_or_else(corrupt)?,
                });
                if batch.len() == BATCH {
                    out.write_all(bytemuck::cast_slice(&batch))?;
                    batch.clear();
                }
            }
            out.write_all(bytemuck::cast_slice(&batch))
        })
    }

    /// Opens a segment file (mapped, never read whole).
    pub fn open(path: &Path, name: &str) -> std::io::Result<Self> {
        let (file, kind) = MappedFile::open_kinds(path, &[MAGIC, MAGIC_V1])?;
        let keyed = kind == 0;
        let [
            from_seq,
            to_seq,
            n_entries,
            n_tombstones,
            newest_added,
            oldest_removed,
            ..,
        ] = *file.meta();
        let n = usize::try_from(n_entries).unwrap_or(usize::MAX);
        let width = if keyed { 20 } else { 4 };
        let sizes_agree = n <= u32::MAX as usize
            && file.section_len(0) as u64 == n_entries * 32
            && (1..4).all(|i| file.section_len(i) as u64 == n_entries.saturating_mul(width))
            && file.section_len(4) as u64 == n_tombstones * 24
            && from_seq <= to_seq;
        if !sizes_agree {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("{}: section sizes disagree with the header", path.display()),
            ));
        }
        let versions = std::sync::OnceLock::new();
        if keyed {
            // Format 2 records them in its header (format 1 is read once on first use).
            let _ = versions.set((newest_added, oldest_removed));
        }
        Ok(Self {
            storage: Storage::File { file, keyed },
            removals: Removals::default(),
            file: Some(FileInfo {
                name: name.to_owned(),
                from_seq,
                to_seq,
            }),
            versions,
            fences: Default::default(),
        })
    }

    /// True for a file of format 1 (`MAGIC_V1`), which compaction rewrites.
    pub fn is_format_1(&self) -> bool {
        matches!(self.storage, Storage::File { keyed: false, .. })
    }

    /// The file this segment is read from (`None`: it lives in memory).
    pub fn file(&self) -> Option<&FileInfo> {
        self.file.as_ref()
    }

    pub fn mapped(&self) -> Option<&MappedFile> {
        match &self.storage {
            Storage::File { file, .. } => Some(file),
            Storage::Memory { .. } => None,
        }
    }

    pub fn removals(&self) -> &Removals {
        &self.removals
    }

    /// The removals a segment file carries for versions in older files.
    pub fn tombstones(&self) -> &[Tombstone] {
        match &self.storage {
            Storage::File { file, .. } => bytemuck::try_cast_slice(file.section(4)).unwrap_or(&[]),
            Storage::Memory { .. } => &[],
        }
    }

    pub fn len(&self) -> usize {
        match &self.storage {
            Storage::Memory { entries, .. } => entries.len(),
            // Without reading (and so checking) the entries.
            Storage::File { file, .. } => file.section_len(0) / std::mem::size_of::<Entry>(),
        }
    }

    #[inline]
    pub fn entries(&self) -> &[Entry] {
        match &self.storage {
            Storage::Memory { entries, .. } => entries,
            Storage::File { file, .. } => bytemuck::try_cast_slice(file.section(0)).unwrap_or(&[]),
        }
    }

    #[inline]
    fn sorted(&self, order: Order) -> Sorted<'_> {
        let section = match order {
            Order::Spog => return Sorted::Entries,
            Order::Posg => 1,
            Order::Ospg => 2,
            Order::Gspo => 3,
        };
        match &self.storage {
            Storage::Memory {
                posg, ospg, gspo, ..
            } => Sorted::Indexes([posg, ospg, gspo][section - 1]),
            Storage::File { file, keyed: false } => {
                Sorted::Indexes(bytemuck::try_cast_slice(file.section(section)).unwrap_or(&[]))
            }
            Storage::File { file, keyed: true } => {
                Sorted::Keyed(bytemuck::try_cast_slice(file.section(section)).unwrap_or(&[]))
            }
        }
    }

    /// The newest `added` and the oldest `removed` of the entries (from a format-2
    /// file's header, else one pass on first use; entries never change).
    fn versions(&self) -> (CommitSeq, CommitSeq) {
        *self.versions.get_or_init(|| {
            self.entries()
                .iter()
                .fold((0, LIVE), |(added, removed), e| {
                    (added.max(e.added), removed.min(e.removed))
                })
        })
    }

    /// The commit that removed this entry's version (`LIVE` if none has).
    #[inline]
    pub fn removed_of(&self, entry: &Entry) -> CommitSeq {
        if entry.removed != LIVE {
            return entry.removed;
        }
        self.removals.get(&entry.key).unwrap_or(LIVE)
    }

    /// True when this version of the quad is visible to a reader at `seq`.
    #[inline]
    pub fn visible(&self, entry: &Entry, seq: CommitSeq) -> bool {
        if entry.added > seq || entry.removed <= seq {
            return false;
        }
        entry.removed != LIVE || self.removals.get(&entry.key).is_none_or(|r| r > seq)
    }

    /// The entries of `key` (all its versions here).
    fn versions_of(&self, key: &QuadKey) -> &[Entry] {
        let entries = self.entries();
        let start = entries.partition_point(|e| e.key < *key);
        let len = entries[start..].partition_point(|e| e.key == *key);
        &entries[start..start + len]
    }

    /// True when this segment holds `key` as present at the writer's head.
    pub fn has_live(&self, key: &QuadKey) -> bool {
        self.versions_of(key)
            .iter()
            .any(|e| self.removed_of(e) == LIVE)
    }

    /// Records that the live version of `key` (which `has_live` found) is removed at `seq`.
    pub fn remove(&self, key: QuadKey, seq: CommitSeq) {
        self.removals.insert(key, seq);
    }

    /// Routes a tombstone read from a newer file: if this segment holds the version it
    /// removes (the newest one added before it), records the removal. Returns false when
    /// the version is not here (it is in an older segment).
    pub fn route_tombstone(&self, tombstone: &Tombstone) -> bool {
        let Some(version) = self
            .versions_of(&tombstone.key)
            .iter()
            .rev()
            .find(|e| e.added < tombstone.removed)
        else {
            return false;
        };
        if version.removed == LIVE {
            self.removals.insert(tombstone.key, tombstone.removed);
        }
        true
    }

    /// True when this segment holds a version a tombstone could remove (one added
    /// before it).
    pub fn route_probe(&self, tombstone: &Tombstone) -> bool {
        self.versions_of(&tombstone.key)
            .iter()
            .any(|e| e.added < tombstone.removed)
    }

    /// True when a version of `key` is visible at `seq`.
    pub fn contains_at(&self, key: &QuadKey, seq: CommitSeq) -> bool {
        self.versions_of(key).iter().any(|e| self.visible(e, seq))
    }

    /// The key at each position of `order`, permuted to that order (past the end or in
    /// an inconsistent file: a key above every other).
    #[inline]
    fn keys_in(&self, order: Order) -> impl Fn(usize) -> QuadKey + '_ {
        let entries = self.entries();
        let sorted = self.sorted(order);
        move |idx| {
            let entry = match sorted {
                Sorted::Keyed(keyed) => return keyed.get(idx).map_or([TermId::MAX; 4], |k| k.key),
                Sorted::Entries => entries.get(idx),
                Sorted::Indexes(perm) => perm.get(idx).and_then(|&i| entries.get(i as usize)),
            };
            entry.map_or([TermId::MAX; 4], |e| order.permute(&e.key))
        }
    }

    /// Index range `[start, end)` in `order` whose permuted keys start with `prefix`.
    fn range(&self, order: Order, prefix: &[TermId]) -> (usize, usize) {
        let key_at = self.keys_in(order);
        let n = prefix.len();
        let len = self.len();
        let (low, high) = if len > FENCE_EVERY {
            // Fence `j` is the key at `j * FENCE_EVERY`; with `j` fences below the
            // prefix, the range starts after the last of them and by the next one.
            let fences = self.fences(order);
            let j = fences.partition_point(|key| key[..n] < *prefix);
            (
                (j.saturating_sub(1) * FENCE_EVERY + usize::from(j > 0)).min(len),
                (j * FENCE_EVERY).min(len),
            )
        } else {
            (0, len)
        };
        let start = partition_point(low, high, |idx| key_at(idx)[..n] < *prefix);
        (start, self.range_end(order, prefix, start))
    }

    /// Every `FENCE_EVERY`-th key of `order`: read from the file's section 5 when it
    /// has them (`fence_section_len`), else made on first use (entries never change).
    /// Making them reads a key every 128 and so touches every page of the ordering: at
    /// 200M quads, gigabytes read by the first query after an open.
    fn fences(&self, order: Order) -> &[QuadKey] {
        let slot = match order {
            Order::Spog => 0,
            Order::Posg => 1,
            Order::Ospg => 2,
            Order::Gspo => 3,
        };
        if let Storage::File { file, keyed: true } = &self.storage
            && file.meta()[6] == FENCE_EVERY as u64
        {
            let m = self.len().div_ceil(FENCE_EVERY);
            if file.section_len(5) == fence_section_len(self.len()) {
                let all: &[QuadKey] = bytemuck::try_cast_slice(file.section(5)).unwrap_or(&[]);
                if let Some(fences) = all.get(slot * m..(slot + 1) * m) {
                    return fences;
                }
            }
        }
        self.fences[slot].get_or_init(|| {
            let key_at = self.keys_in(order);
            (0..self.len()).step_by(FENCE_EVERY).map(key_at).collect()
        })
    }

    /// The end of the index range in `order` of `prefix`, which starts at or before
    /// `from`. Most ranges are short (a subject's few values): it gallops from `from`
    /// (1, 2, 4… entries on) to bracket the end, then searches only there, instead of
    /// over the whole array.
    fn range_end(&self, order: Order, prefix: &[TermId], from: usize) -> usize {
        let key_at = self.keys_in(order);
        let n = prefix.len();
        let len = self.len();
        let mut step = 1;
        let mut low = from;
        while low + step <= len && key_at(low + step - 1)[..n] <= *prefix {
            low += step;
            step *= 2;
        }
        partition_point(low, (low + step).min(len), |idx| {
            key_at(idx)[..n] <= *prefix
        })
        .max(from)
    }

    /// The entry at position `pos` of `order`, if the file is consistent.
    #[inline]
    fn at(&self, order: Order, pos: usize) -> Option<&Entry> {
        self.at_index(order, pos).map(|(_, entry)| entry)
    }

    /// The entry at position `pos` of `order` with its index in the entries.
    #[inline]
    fn at_index(&self, order: Order, pos: usize) -> Option<(u32, &Entry)> {
        let index = match self.sorted(order) {
            Sorted::Entries => u32::try_from(pos).ok()?,
            Sorted::Indexes(perm) => *perm.get(pos)?,
            Sorted::Keyed(keyed) => keyed.get(pos)?.index,
        };
        Some((index, self.entries().get(index as usize)?))
    }
}

/// Iterates the entries of several segments that match a pattern and are visible at a
/// commit. Owns its segments so it can outlive the snapshot that created it.
pub(crate) struct SegmentScan {
    segments: Arc<Vec<Arc<Segment>>>,
    pattern: Pattern,
    order: Order,
    prefix: [TermId; 4],
    prefix_len: usize,
    seq: CommitSeq,
    segment_idx: usize,
    pos: usize,
    end: usize,
    /// The part of the scan to read: positions `[from, to)` of the segments' index
    /// ranges taken one after the other (`split`); the whole scan by default.
    window: (usize, usize),
    /// Where the current segment's range starts in that sequence.
    base: usize,
    /// Every entry of the current segment is visible at `seq` (its versions say so), so
    /// an ordering that holds its keys is read without its entries.
    all_visible: bool,
}

impl SegmentScan {
    pub fn new(segments: Arc<Vec<Arc<Segment>>>, pattern: Pattern, seq: CommitSeq) -> Self {
        Self::window(segments, pattern, seq, (0, usize::MAX))
    }

    fn window(
        segments: Arc<Vec<Arc<Segment>>>,
        pattern: Pattern,
        seq: CommitSeq,
        window: (usize, usize),
    ) -> Self {
        let (order, prefix, prefix_len) = pattern.plan();
        let mut scan = Self {
            segments,
            pattern,
            order,
            prefix,
            prefix_len,
            seq,
            segment_idx: 0,
            pos: 0,
            end: 0,
            window,
            base: 0,
            all_visible: false,
        };
        scan.enter_segment();
        scan
    }

    /// The scan in `n` consecutive parts of about equal index ranges (fewer when the
    /// range is smaller): read one after the other, they yield what the whole scan does,
    /// in the same order, so each can be read on its own thread.
    pub fn split(
        segments: Arc<Vec<Arc<Segment>>>,
        pattern: Pattern,
        seq: CommitSeq,
        n: usize,
    ) -> Vec<Self> {
        let total = range_size(&segments, pattern);
        let n = n.clamp(1, total.max(1));
        (0..n)
            .map(|i| {
                let from = total / n * i + (total % n).min(i);
                let to = if i + 1 == n {
                    usize::MAX
                } else {
                    total / n * (i + 1) + (total % n).min(i + 1)
                };
                Self::window(segments.clone(), pattern, seq, (from, to))
            })
            .collect()
    }

    fn enter_segment(&mut self) {
        if let Some(segment) = self.segments.get(self.segment_idx) {
            let (start, end) = segment.range(self.order, &self.prefix[..self.prefix_len]);
            let len = end - start;
            let (from, to) = self.window;
            self.pos = start + from.saturating_sub(self.base).min(len);
            self.end = start + to.saturating_sub(self.base).min(len);
            self.base += len;
            self.all_visible = matches!(segment.sorted(self.order), Sorted::Keyed(_))
                && segment.all_visible_at(self.seq);
        }
    }
}

/// A scan of quads that may skip a run of quads sharing one id (see `SegmentScan`).
pub trait QuadScan: Iterator<Item = QuadKey> + Send {
    /// The position (0 subject, 1 predicate, 2 object, 3 graph) after the scan's bound
    /// ones in its index order: the quads of one id there come one after the other.
    /// `None` when the scan cannot skip.
    fn run_position(&self) -> Option<usize> {
        None
    }

    /// Skips the quads right after the last one returned whose id at `run_position()`
    /// is `id`: a filter rejected that id, so none of them can pass.
    fn skip_run(&mut self, _id: TermId) {}
}

/// Any iterator of quads, as a scan that never skips.
pub struct PlainScan<I>(pub I);

impl<I: Iterator<Item = QuadKey>> Iterator for PlainScan<I> {
    type Item = QuadKey;

    fn next(&mut self) -> Option<QuadKey> {
        self.0.next()
    }
}

impl<I: Iterator<Item = QuadKey> + Send> QuadScan for PlainScan<I> {}

impl QuadScan for SegmentScan {
    fn run_position(&self) -> Option<usize> {
        (self.prefix_len < 4).then(|| self.order.positions()[self.prefix_len])
    }

    /// Gallops (1, 2, 4… entries ahead, then a binary search) through the current
    /// segment's range: a run of r entries costs about 2·log2(r) probes instead of r
    /// (BSBM BI 3 filters 444k review dates, 2,141 distinct, down to 66k).
    fn skip_run(&mut self, id: TermId) {
        let Some(position) = self.run_position() else {
            return;
        };
        let Some(segment) = self.segments.get(self.segment_idx) else {
            return;
        };
        let (order, at) = (self.order, self.prefix_len);
        // The keyed ordering holds the permuted keys: no entry is read (a cache miss each).
        let keyed = match segment.sorted(order) {
            Sorted::Keyed(keyed) => Some(keyed),
            _ => None,
        };
        let same = |pos: usize| match keyed {
            Some(keyed) => keyed.get(pos).is_some_and(|k| k.key[at] == id),
            None => segment
                .at(order, pos)
                .is_some_and(|e| e.key[position] == id),
        };
        if self.pos >= self.end || !same(self.pos) {
            return;
        }
        // `same(low)` holds; `high` is the end or an entry past the run.
        let (mut low, mut step) = (self.pos, 1);
        let mut high = loop {
            let probe = low + step;
            if probe >= self.end {
                break self.end;
            }
            if !same(probe) {
                break probe;
            }
            low = probe;
            step *= 2;
        };
        while high - low > 1 {
            let middle = low + (high - low) / 2;
            if same(middle) {
                low = middle;
            } else {
                high = middle;
            }
        }
        self.pos = high;
    }
}

/// How many entries of `segments` lie in the index range a scan of `pattern` reads: an
/// upper bound of its matches (versions not visible at the commit, and quads the range
/// holds but the pattern's other positions or graph exclude, are counted too), found by
/// binary search, without reading the range.
pub(crate) fn range_size(segments: &[Arc<Segment>], pattern: Pattern) -> usize {
    let (order, prefix, prefix_len) = pattern.plan();
    segments
        .iter()
        .map(|segment| {
            let (start, end) = segment.range(order, &prefix[..prefix_len]);
            end - start
        })
        .sum()
}

impl Iterator for SegmentScan {
    type Item = QuadKey;

    fn next(&mut self) -> Option<QuadKey> {
        loop {
            let segment = self.segments.get(self.segment_idx)?;
            match segment.sorted(self.order) {
                // The keys in order, front to back; only removals recorded since the file
                // was written can hide one.
                Sorted::Keyed(keyed) if self.all_visible => {
                    let removals = segment.removals();
                    let window = keyed.get(self.pos..self.end).unwrap_or(&[]);
                    for (i, k) in window.iter().enumerate() {
                        let key = self.order.unpermute(&k.key);
                        if self.pattern.matches(&key)
                            && removals.get(&key).is_none_or(|r| r > self.seq)
                        {
                            self.pos += i + 1;
                            return Some(key);
                        }
                    }
                    self.pos = self.end;
                }
                sorted => {
                    let entries = segment.entries();
                    while self.pos < self.end {
                        let entry = match sorted {
                            Sorted::Entries => entries.get(self.pos),
                            Sorted::Indexes(perm) => {
                                perm.get(self.pos).and_then(|&i| entries.get(i as usize))
                            }
                            Sorted::Keyed(keyed) => keyed
                                .get(self.pos)
                                .and_then(|k| entries.get(k.index as usize)),
                        };
                        self.pos += 1;
                        if let Some(entry) = entry
                            && segment.visible(entry, self.seq)
                            && self.pattern.matches(&entry.key)
                        {
                            return Some(entry.key);
                        }
                    }
                }
            }
            if self.base >= self.window.1 {
                return None;
            }
            self.segment_idx += 1;
            self.enter_segment();
        }
    }
}

impl Segment {
    /// True when every entry is visible at `seq` as far as the entries say (added at or
    /// before it, removed after it); removals recorded since (`Removals`) are apart.
    fn all_visible_at(&self, seq: CommitSeq) -> bool {
        let (newest_added, oldest_removed) = self.versions();
        newest_added <= seq && oldest_removed > seq
    }

    /// True when every entry is in graph `graph` (the first and last in GSPO order are).
    fn only_graph(&self, graph: TermId) -> bool {
        let last = self.len().saturating_sub(1);
        [0, last]
            .iter()
            .all(|pos| self.at(Order::Gspo, *pos).is_none_or(|e| e.key[3] == graph))
    }
}

/// How many quads match `pattern` at `seq`, per distinct id at position `group` of the
/// quad (or in all, `None`), from index range sizes alone: no entry is read but the
/// first of each group. In the order the groups are first met. `None` when a range
/// could hold what a count must not (a version not visible at `seq`, a quad of another
/// graph) or no ordering has the bound positions, then `group`, as its prefix: the
/// caller scans instead.
pub(crate) fn range_counts(
    segments: &[Arc<Segment>],
    pattern: Pattern,
    group: Option<usize>,
    seq: CommitSeq,
) -> Option<Vec<(TermId, u64)>> {
    if pattern.graph == GraphFilter::AnyNamed {
        return None;
    }
    let bound = pattern.bound();
    let is_bound = |position: usize| bound[position].is_some();
    // An ordering whose first positions are the bound ones, then the group's. The
    // graph may be left out of the prefix when every entry of a segment is in it.
    let fits = |order: Order, with_graph: bool| {
        let positions = order.positions();
        let n = (0..4)
            .filter(|p| is_bound(*p) && (*p != 3 || with_graph))
            .count();
        positions[..n]
            .iter()
            .all(|p| is_bound(*p) && (*p != 3 || with_graph))
            && group.is_none_or(|g| n < 4 && positions[n] == g)
    };
    // The graph in the prefix first: it holds for every segment.
    let (order, with_graph) = [true, false]
        .iter()
        .flat_map(|with_graph| Order::ALL.map(|order| (order, *with_graph)))
        .find(|(order, with_graph)| {
            (*with_graph || matches!(pattern.graph, GraphFilter::All | GraphFilter::Is(_)))
                && fits(*order, *with_graph)
        })?;
    let mut prefix: Vec<TermId> = order
        .positions()
        .iter()
        .map_while(|p| bound[*p].filter(|_| *p != 3 || with_graph))
        .collect();
    let n = prefix.len();
    let mut counts: Vec<(TermId, u64)> = Vec::new();
    // Where each id's count is, once a second segment or a removal may repeat an id
    // (one segment's groups are distinct: each is one range).
    let mut index: Option<rustc_hash::FxHashMap<TermId, usize>> = None;
    let mut add = |id: TermId, n: i64, counts: &mut Vec<(TermId, u64)>, repeats: bool| {
        if !repeats && index.is_none() {
            counts.push((id, n.max(0) as u64));
            return;
        }
        let index = index.get_or_insert_with(|| {
            counts
                .iter()
                .enumerate()
                .map(|(at, (id, _))| (*id, at))
                .collect()
        });
        let at = *index.entry(id).or_insert_with(|| {
            counts.push((id, 0));
            counts.len() - 1
        });
        counts[at].1 = counts[at].1.saturating_add_signed(n);
    };
    for (k, segment) in segments.iter().enumerate() {
        let repeats = k > 0;
        if !segment.all_visible_at(seq) {
            return None;
        }
        if let (GraphFilter::Is(graph), false) = (pattern.graph, with_graph)
            && !segment.only_graph(graph)
        {
            return None;
        }
        let (start, end) = segment.range(order, &prefix);
        match group {
            None => add(0, (end - start) as i64, &mut counts, true),
            Some(_) => {
                let mut pos = start;
                while pos < end {
                    let id = order.permute(&segment.at(order, pos)?.key)[n];
                    prefix.push(id);
                    let group_end = segment.range_end(order, &prefix, pos);
                    prefix.pop();
                    add(
                        id,
                        (group_end.max(pos + 1) - pos) as i64,
                        &mut counts,
                        repeats,
                    );
                    pos = group_end.max(pos + 1);
                }
            }
        }
        // Versions removed since the segment was written, at or before `seq`.
        for tombstone in segment.removals.between(0, seq) {
            if pattern.matches(&tombstone.key) {
                add(group.map_or(0, |g| tombstone.key[g]), -1, &mut counts, true);
            }
        }
    }
    counts.retain(|(_, n)| *n > 0);
    Some(counts)
}

/// Every version (visible or not) of the quads matching a pattern, with its
/// `(added, removed)` commits: the history of those quads.
pub(crate) fn history(
    segments: &[Arc<Segment>],
    pattern: Pattern,
) -> Vec<(QuadKey, CommitSeq, CommitSeq)> {
    let (order, prefix, prefix_len) = pattern.plan();
    let mut out = Vec::new();
    for segment in segments {
        let (start, end) = segment.range(order, &prefix[..prefix_len]);
        for pos in start..end {
            let Some(entry) = segment.at(order, pos) else {
                continue;
            };
            if pattern.matches(&entry.key) {
                out.push((entry.key, entry.added, segment.removed_of(entry)));
            }
        }
    }
    out.sort_by_key(|(key, added, _)| (*added, *key));
    out
}

/// Distinct graph ids (default graph excluded) with a quad visible at `seq`.
pub(crate) fn named_graphs(segments: &[Arc<Segment>], seq: CommitSeq) -> Vec<TermId> {
    let mut graphs = Vec::new();
    for segment in segments {
        let len = segment.len();
        let mut pos = 0;
        while pos < len {
            let Some(graph) = segment.at(Order::Gspo, pos).map(|e| e.key[3]) else {
                break;
            };
            let (_, end) = segment.range(Order::Gspo, &[graph]);
            if graph != DEFAULT_GRAPH
                && (pos..end).any(|p| {
                    segment
                        .at(Order::Gspo, p)
                        .is_some_and(|e| segment.visible(e, seq))
                })
            {
                graphs.push(graph);
            }
            pos = end.max(pos + 1);
        }
    }
    graphs.sort_unstable();
    graphs.dedup();
    graphs
}

fn sorted_permutation(entries: &[Entry], order: Order) -> Vec<u32> {
    let mut perm: Vec<u32> = (0..entries.len() as u32).collect();
    perm.sort_unstable_by_key(|&i| {
        let e = &entries[i as usize];
        (order.permute(&e.key), e.added)
    });
    perm
}

/// The first index in `low..high` where `pred` stops holding (`pred` holds on a prefix).
fn partition_point(low: usize, high: usize, mut pred: impl FnMut(usize) -> bool) -> usize {
    let (mut low, mut high) = (low, high);
    while low < high {
        let mid = low + (high - low) / 2;
        if pred(mid) {
            low = mid + 1;
        } else {
            high = mid;
        }
    }
    low
}

/// Writes a segment in format 1 (orderings as entry indexes), as builds before format 2
/// wrote it, with the given tombstones (for tests of reading old files).
#[cfg(test)]
pub(crate) fn write_format_1(
    segment: &Segment,
    path: &Path,
    (from_seq, to_seq): (CommitSeq, CommitSeq),
    tombstones: &[Tombstone],
) {
    let indexes = |order: Order| -> Vec<u32> {
        (0..segment.len())
            .map(|p| segment.at_index(order, p).expect("consistent").0)
            .collect()
    };
    let (posg, ospg, gspo) = (
        indexes(Order::Posg),
        indexes(Order::Ospg),
        indexes(Order::Gspo),
    );
    let meta = [
        from_seq,
        to_seq,
        segment.len() as u64,
        tombstones.len() as u64,
        0,
        0,
        0,
        0,
    ];
    file::write_file(
        path,
        MAGIC_V1,
        meta,
        &[
            bytemuck::cast_slice(segment.entries()),
            bytemuck::cast_slice(&posg),
            bytemuck::cast_slice(&ospg),
            bytemuck::cast_slice(&gspo),
            bytemuck::cast_slice(tombstones),
        ],
    )
    .expect("written");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(segments: &[Vec<(QuadKey, u64, u64)>], pattern: Pattern, seq: u64) -> Vec<QuadKey> {
        let segments = Arc::new(
            segments
                .iter()
                .map(|entries| {
                    Arc::new(Segment::build(
                        entries
                            .iter()
                            .map(|&(k, a, r)| Entry::new(k, a, r))
                            .collect(),
                    ))
                })
                .collect(),
        );
        let mut out: Vec<_> = SegmentScan::new(segments, pattern, seq).collect();
        out.sort();
        out
    }

    fn pattern(s: Option<u32>, p: Option<u32>, o: Option<u32>, graph: GraphFilter) -> Pattern {
        Pattern {
            subject: s,
            predicate: p,
            object: o,
            graph,
        }
    }

    #[test]
    fn every_pattern_finds_the_same_quads_through_the_fences_as_by_filtering() {
        // Enough entries for many fence blocks, with runs of one subject that cross
        // block edges and keys that repeat in several versions.
        let mut entries = Vec::new();
        let mut x: u32 = 7;
        for i in 0..(FENCE_EVERY as u32 * 9 + 5) {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            let key = [1 + i / 37, 10 + (x >> 8) % 4, 20 + (x >> 12) % 50, 0];
            entries.push((key, 1, if i % 11 == 0 { 2 } else { LIVE }));
            if i % 13 == 0 {
                entries.push((key, 3, LIVE));
            }
        }
        let all: Vec<QuadKey> = {
            let mut all: Vec<_> = entries
                .iter()
                .filter(|(_, added, removed)| *added <= 3 && *removed > 3)
                .map(|(k, _, _)| *k)
                .collect();
            all.sort();
            all
        };
        let mut checked = 0;
        for subject in [None, Some(1), Some(17), Some(31), Some(40), Some(999)] {
            for predicate in [None, Some(10), Some(13)] {
                for object in [None, Some(20), Some(45), Some(69)] {
                    let p = pattern(subject, predicate, object, GraphFilter::All);
                    let want: Vec<QuadKey> = all
                        .iter()
                        .filter(|k| {
                            subject.is_none_or(|s| k[0] == s)
                                && predicate.is_none_or(|x| k[1] == x)
                                && object.is_none_or(|o| k[2] == o)
                        })
                        .copied()
                        .collect();
                    let mut got = scan(std::slice::from_ref(&entries), p, 3);
                    got.dedup();
                    let mut want = want;
                    want.dedup();
                    assert_eq!(got, want, "{subject:?} {predicate:?} {object:?}");
                    checked += want.len();
                }
            }
        }
        assert!(checked > 1000, "the patterns found quads ({checked})");
    }

    #[test]
    fn skipping_a_run_skips_exactly_the_quads_of_its_id() {
        // One predicate; objects in runs of 1 to 40 subjects, across two graphs.
        let mut entries = Vec::new();
        for o in 0..60u32 {
            for s in 0..=(o * 7 % 40) {
                entries.push(Entry::new([100 + s, 10, 1000 + o, s % 2], 1, LIVE));
            }
        }
        entries.push(Entry::new([1, 11, 1000, 0], 1, LIVE));
        entries.sort_by_key(|e| e.key);
        let dir = tempfile::tempdir().unwrap();
        let memory = Arc::new(Segment::build(entries.clone()));
        memory.write_file(&dir.path().join("f"), 0, 1, &[]).unwrap();
        let file = Arc::new(Segment::open(&dir.path().join("f"), "f").unwrap());
        let rejected = |o: TermId| o.is_multiple_of(3) || o % 7 == 1;
        for (name, segment) in [("memory", memory), ("file", file)] {
            for graph in [GraphFilter::All, GraphFilter::AnyNamed] {
                let pattern = pattern(None, Some(10), None, graph);
                let expected: Vec<QuadKey> =
                    SegmentScan::new(Arc::new(vec![segment.clone()]), pattern, 1)
                        .filter(|k| !rejected(k[2]))
                        .collect();
                for parts in [1, 3] {
                    let mut seen = Vec::new();
                    for mut scan in
                        SegmentScan::split(Arc::new(vec![segment.clone()]), pattern, 1, parts)
                    {
                        assert_eq!(scan.run_position(), Some(2));
                        while let Some(key) = scan.next() {
                            if rejected(key[2]) {
                                scan.skip_run(key[2]);
                            } else {
                                seen.push(key);
                            }
                        }
                    }
                    assert_eq!(seen, expected, "{name}, {graph:?}, {parts} part(s)");
                }
            }
        }
    }

    #[test]
    fn files_of_both_formats_and_merges_scan_as_the_memory_segment_does() {
        // Versions: added at 1..=3, some removed at 4, one quad re-added at 5.
        let mut entries = Vec::new();
        for i in 0..60u32 {
            let key = [
                1 + i % 5,
                10 + i % 3,
                20 + i % 7,
                if i % 4 == 0 { 7 } else { 0 },
            ];
            entries.push(Entry::new(
                key,
                1 + u64::from(i % 3),
                if i % 6 == 0 { 4 } else { LIVE },
            ));
        }
        entries.sort_by_key(|e| (e.key, e.added));
        entries.dedup_by_key(|e| e.key);
        let live: Vec<Entry> = entries
            .iter()
            .filter(|e| e.removed == LIVE)
            .copied()
            .collect();
        entries.push(Entry::new(entries[0].key, 5, LIVE));
        // With every version visible from 3 on, files of format 2 are scanned from
        // their orderings' keys alone (`SegmentScan::all_visible`).
        for entries in [entries, live] {
            same_scans_in_every_storage(entries);
        }
    }

    #[test]
    fn segment_files_carry_their_fences_and_searches_use_them() {
        let mut entries: Vec<Entry> = (0..1000u32)
            .map(|i| {
                Entry::new(
                    [1 + i % 37, 10 + i % 5, 100 + i, i % 3],
                    1 + u64::from(i % 2),
                    LIVE,
                )
            })
            .collect();
        entries.sort_by_key(|e| (e.key, e.added));
        let dir = tempfile::tempdir().unwrap();
        let memory = Arc::new(Segment::build(entries.clone()));
        let (older, newer) = entries.split_at(entries.len() / 2);
        let open = |name: &str| Arc::new(Segment::open(&dir.path().join(name), name).unwrap());
        memory
            .write_file(&dir.path().join("whole"), 0, 2, &[])
            .unwrap();
        Segment::build(older.to_vec())
            .write_file(&dir.path().join("a"), 0, 2, &[])
            .unwrap();
        Segment::build(newer.to_vec())
            .write_file(&dir.path().join("b"), 0, 2, &[])
            .unwrap();
        Segment::merge_to_file(
            &[open("a"), open("b")],
            2,
            &dir.path().join("m"),
            (0, 2),
            &[],
        )
        .unwrap();
        for name in ["whole", "m"] {
            let file = open(name);
            assert_eq!(file.mapped().unwrap().meta()[6], FenceWriter::MARK);
            for (slot, order) in [Order::Spog, Order::Posg, Order::Ospg, Order::Gspo]
                .into_iter()
                .enumerate()
            {
                let made: Vec<QuadKey> = (0..memory.len())
                    .step_by(FENCE_EVERY)
                    .map(memory.keys_in(order))
                    .collect();
                assert_eq!(made.len(), 8);
                assert_eq!(file.fences(order), &made[..], "{name}: fences of {order:?}");
                // Read from section 5, not made from the ordering.
                assert!(file.fences[slot].get().is_none(), "{name}: {order:?} made");
            }
            let segments = Arc::new(vec![file]);
            for pattern in [
                pattern(Some(5), None, None, GraphFilter::All),
                pattern(None, Some(12), None, GraphFilter::All),
                pattern(None, None, Some(640), GraphFilter::All),
                pattern(None, None, None, GraphFilter::Is(2)),
            ] {
                let found: Vec<QuadKey> = SegmentScan::new(segments.clone(), pattern, 2).collect();
                let mut want: Vec<QuadKey> =
                    SegmentScan::new(Arc::new(vec![memory.clone()]), pattern, 2).collect();
                let mut got = found.clone();
                got.sort();
                want.sort();
                assert!(!want.is_empty());
                assert_eq!(got, want, "{name}: {pattern:?}");
            }
        }
    }

    fn same_scans_in_every_storage(entries: Vec<Entry>) {
        let dir = tempfile::tempdir().unwrap();
        let (older, newer) = entries.split_at(entries.len() / 2);
        let memory = Arc::new(Segment::build(entries.clone()));
        let halves = [
            Arc::new(Segment::build(older.to_vec())),
            Arc::new(Segment::build(newer.to_vec())),
        ];
        halves[0]
            .write_file(&dir.path().join("a"), 0, 5, &[])
            .unwrap();
        halves[1]
            .write_file(&dir.path().join("b"), 0, 5, &[])
            .unwrap();
        write_format_1(&halves[0], &dir.path().join("a1"), (0, 5), &[]);
        write_format_1(&halves[1], &dir.path().join("b1"), (0, 5), &[]);
        let open = |name: &str| Arc::new(Segment::open(&dir.path().join(name), name).unwrap());
        memory
            .write_file(&dir.path().join("whole"), 0, 5, &[])
            .unwrap();
        write_format_1(&memory, &dir.path().join("whole1"), (0, 5), &[]);
        let (a, b, a1, b1) = (open("a"), open("b"), open("a1"), open("b1"));
        Segment::merge_to_file(
            &[a.clone(), b.clone()],
            5,
            &dir.path().join("m"),
            (0, 5),
            &[],
        )
        .unwrap();
        Segment::merge_to_file(
            &[a1.clone(), b1.clone()],
            5,
            &dir.path().join("m1"),
            (0, 5),
            &[],
        )
        .unwrap();
        assert!(matches!(
            open("whole").sorted(Order::Posg),
            Sorted::Keyed(_)
        ));
        assert!(matches!(
            open("whole1").sorted(Order::Posg),
            Sorted::Indexes(_)
        ));
        assert_eq!(open("whole").versions(), memory.versions());
        assert_eq!(open("m").versions(), memory.versions());
        let stores: Vec<(&str, Vec<Arc<Segment>>)> = vec![
            ("whole", vec![open("whole")]),
            ("whole1", vec![open("whole1")]),
            ("a+b", vec![a, b]),
            ("a1+b1", vec![a1, b1]),
            ("merged", vec![open("m")]),
            ("merged from format 1", vec![open("m1")]),
        ];
        let expected = |pattern: Pattern, seq| {
            let scan = SegmentScan::new(Arc::new(vec![memory.clone()]), pattern, seq);
            let mut out: Vec<QuadKey> = scan.collect();
            out.sort();
            out
        };
        let removed = entries
            .iter()
            .find(|e| memory.has_live(&e.key))
            .unwrap()
            .key;
        for removal in [false, true] {
            if removal {
                // A removal recorded after the files were written (the segments'
                // `Removals`), in every store.
                memory.remove(removed, 6);
                for (_, segments) in &stores {
                    let holder = segments.iter().find(|s| s.has_live(&removed)).unwrap();
                    holder.remove(removed, 6);
                }
            }
            for (name, segments) in &stores {
                let segments = Arc::new(segments.clone());
                for s in [None, Some(2)] {
                    for p in [None, Some(11)] {
                        for o in [None, Some(23)] {
                            for graph in [GraphFilter::All, GraphFilter::Is(0), GraphFilter::Is(7)]
                            {
                                let pattern = pattern(s, p, o, graph);
                                for seq in [0, 2, 3, 4, 5, 6] {
                                    let mut found: Vec<QuadKey> =
                                        SegmentScan::new(segments.clone(), pattern, seq).collect();
                                    found.sort();
                                    assert_eq!(
                                        found,
                                        expected(pattern, seq),
                                        "{name}: {pattern:?} at {seq}, removal {removal}"
                                    );
                                    if let Some(counts) =
                                        range_counts(&segments, pattern, None, seq)
                                    {
                                        let n: u64 = counts.iter().map(|(_, n)| n).sum();
                                        assert_eq!(n as usize, found.len(), "{name}: count");
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn every_pattern_shape_finds_the_same_quads_as_a_filter() {
        let mut entries = Vec::new();
        for s in 1..4 {
            for p in 4..6 {
                for o in 1..4 {
                    for g in [0, 7] {
                        entries.push(([s, p, o, g], 1 + u64::from(s), LIVE));
                    }
                }
            }
        }
        let (left, right) = entries.split_at(20);
        let all: Vec<QuadKey> = entries.iter().map(|e| e.0).collect();
        for s in [None, Some(2)] {
            for p in [None, Some(5)] {
                for o in [None, Some(3)] {
                    for graph in [GraphFilter::All, GraphFilter::AnyNamed, GraphFilter::Is(0)] {
                        let pattern = pattern(s, p, o, graph);
                        let found = scan(&[left.to_vec(), right.to_vec()], pattern, 3);
                        let mut expected: Vec<QuadKey> = all
                            .iter()
                            .filter(|k| pattern.matches(k) && k[0] < 3)
                            .copied()
                            .collect();
                        expected.sort();
                        assert_eq!(found, expected, "{pattern:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_split_scan_reads_what_the_whole_scan_does_in_the_same_order() {
        let build = |range: std::ops::Range<u32>| {
            Arc::new(Segment::build(
                range
                    .map(|i| {
                        Entry::new(
                            [i % 7, 4 + i % 3, i, 0],
                            1,
                            if i % 5 == 0 { 2 } else { LIVE },
                        )
                    })
                    .collect(),
            ))
        };
        let segments = Arc::new(vec![build(0..40), build(40..43), build(43..100)]);
        for pattern in [
            pattern(None, None, None, GraphFilter::Is(0)),
            pattern(None, Some(5), None, GraphFilter::Is(0)),
            pattern(Some(3), None, None, GraphFilter::Is(0)),
            pattern(Some(3), Some(9), None, GraphFilter::Is(0)),
        ] {
            let whole: Vec<QuadKey> = SegmentScan::new(segments.clone(), pattern, 2).collect();
            for n in [1, 2, 3, 7, 64, 1000] {
                let parts = SegmentScan::split(segments.clone(), pattern, 2, n);
                assert!(parts.len() <= n.max(1));
                let joined: Vec<QuadKey> = parts.into_iter().flatten().collect();
                assert_eq!(joined, whole, "{pattern:?} in {n} parts");
            }
        }
    }

    #[test]
    fn range_counts_are_the_counts_of_a_scan_or_none() {
        let count =
            |segments: &Arc<Vec<Arc<Segment>>>, pattern: Pattern, group: Option<usize>, seq| {
                let mut by_scan: Vec<(TermId, u64)> = Vec::new();
                for key in SegmentScan::new(segments.clone(), pattern, seq) {
                    let id = group.map_or(0, |g| key[g]);
                    match by_scan.iter_mut().find(|(i, _)| *i == id) {
                        Some((_, n)) => *n += 1,
                        None => by_scan.push((id, 1)),
                    }
                }
                by_scan.sort_unstable();
                let mut by_ranges = range_counts(segments, pattern, group, seq)?;
                by_ranges.sort_unstable();
                assert_eq!(by_ranges, by_scan, "{pattern:?} by {group:?} at {seq}");
                Some(by_ranges)
            };
        let default = |s, p, o| pattern(s, p, o, GraphFilter::Is(0));
        let old = Arc::new(Segment::build(
            (0..60u32)
                .map(|i| {
                    Entry::new(
                        [1 + i % 7, 10 + i % 3, 20 + i, 0],
                        1 + u64::from(i % 2),
                        LIVE,
                    )
                })
                .collect(),
        ));
        let new = Arc::new(Segment::build(
            (0..9u32)
                .map(|i| Entry::new([1 + i, 10, 30 + i, 0], 3, LIVE))
                .collect(),
        ));
        let segments = Arc::new(vec![old.clone(), new]);
        // Grouped by each position, with and without a bound one, and in all.
        assert!(count(&segments, default(None, None, None), Some(1), 3).is_some());
        assert!(count(&segments, default(None, None, None), Some(0), 3).is_some());
        assert!(count(&segments, default(None, Some(10), None), Some(2), 3).is_some());
        // No ordering has the predicate, then the subject.
        assert!(count(&segments, default(None, Some(10), None), Some(0), 3).is_none());
        assert!(count(&segments, default(Some(2), None, None), Some(1), 3).is_some());
        let all = count(&segments, default(None, None, None), None, 3).unwrap();
        assert_eq!(all, vec![(0, 69)]);
        // A version added after the read, or one removed at or before it: the ranges
        // cannot say.
        assert!(count(&segments, default(None, None, None), Some(1), 2).is_none());
        let removed = Arc::new(vec![Arc::new(Segment::build(vec![
            Entry::new([1, 10, 20, 0], 1, 2),
            Entry::new([2, 10, 21, 0], 1, LIVE),
        ]))]);
        assert!(count(&removed, default(None, None, None), Some(1), 3).is_none());
        // A removal recorded since is subtracted once it is visible.
        old.remove([1, 10, 20, 0], 4);
        assert_eq!(
            count(&segments, default(None, None, None), None, 3).unwrap(),
            vec![(0, 69)]
        );
        assert_eq!(
            count(&segments, default(None, None, None), None, 4).unwrap(),
            vec![(0, 68)]
        );
        assert!(count(&segments, default(None, None, None), Some(1), 4).is_some());
        assert!(count(&segments, default(None, None, None), Some(0), 4).is_some());
        let one = Arc::new(vec![old.clone()]);
        assert!(count(&one, default(None, None, None), Some(0), 4).is_some());
        assert!(count(&one, default(None, None, None), Some(2), 3).is_some());
        // Quads of a named graph: the default graph's counts need another ordering.
        let named = Arc::new(vec![Arc::new(Segment::build(vec![
            Entry::new([1, 10, 20, 0], 1, LIVE),
            Entry::new([1, 11, 20, 5], 1, LIVE),
            Entry::new([2, 11, 20, 0], 1, LIVE),
        ]))]);
        assert!(count(&named, default(None, None, None), Some(1), 1).is_none());
        assert!(count(&named, default(None, None, None), Some(0), 1).is_some());
        assert!(
            count(
                &named,
                pattern(None, None, None, GraphFilter::All),
                Some(1),
                1
            )
            .is_some()
        );
        assert!(
            range_counts(
                &named,
                pattern(None, None, None, GraphFilter::AnyNamed),
                None,
                1
            )
            .is_none()
        );
    }

    #[test]
    fn versions_are_visible_only_in_their_range() {
        let segments = vec![vec![([1, 2, 3, 0], 2, 4), ([1, 2, 3, 0], 6, LIVE)]];
        let any = pattern(Some(1), None, None, GraphFilter::Is(0));
        assert!(scan(&segments, any, 1).is_empty());
        assert_eq!(scan(&segments, any, 2).len(), 1);
        assert_eq!(scan(&segments, any, 3).len(), 1);
        assert!(scan(&segments, any, 4).is_empty());
        assert!(scan(&segments, any, 5).is_empty());
        assert_eq!(scan(&segments, any, 6).len(), 1);
    }

    #[test]
    fn named_graphs_lists_visible_graphs_only() {
        let segment = Arc::new(Segment::build(vec![
            Entry::new([1, 2, 3, 0], 1, LIVE),
            Entry::new([1, 2, 3, 8], 1, 2),
            Entry::new([1, 2, 3, 9], 1, LIVE),
        ]));
        assert_eq!(named_graphs(std::slice::from_ref(&segment), 1), vec![8, 9]);
        assert_eq!(named_graphs(&[segment], 2), vec![9]);
    }
}
