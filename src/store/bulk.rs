//! Commits larger than memory: the inserted quads of a big import go straight to a
//! segment file instead of a memory segment, and the dictionary moves to files while the
//! import is still being parsed.
//!
//! `BulkKeys` are the commit's keys, sorted and unique, in a scratch file (the engine
//! writes them while it encodes the log record from them). `write_segment` turns them
//! into a segment file of format 2 (entries in SPOG order, then each ordering by an
//! external sort of `(permuted key, entry index)` records), with memory bounded by one
//! sorted run; `Store::install_bulk` names that file in a new manifest at the commit, once
//! the commit is durable in the log; `Store::flush_dictionary` writes the in-memory terms
//! to a new dictionary part (the manifest's commit unchanged) so the terms of a huge
//! import never pile up in memory.
//!
//! Crash safety: the segment file is written under a `.tmp` name, which no manifest names
//! and the next writable open deletes; the scratch files are unlinked from the start. A
//! dictionary part written before its commit holds terms no commit uses yet: ids are
//! append-only and unused ones are harmless (the log replay after a crash interns the same
//! terms again and finds them).

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use super::dict_file::DictFile;
use super::segment::{
    Entry, FenceWriter, Keyed, LIVE, MAGIC, Order, QuadKey, Segment, file_layout,
};
use super::{DictEntry, Layers, Manifest, SegmentEntry, Store, file};
use crate::model::{CommitHash, CommitSeq};
use crate::scratch::{ExternalSort, unlinked_file};

/// Records per sorted run of the external sorts (keys are 16 bytes, ordering records
/// 20): what memory holds of a bulk commit at a time.
pub const RUN_RECORDS: usize = 8 << 20;

/// A bulk commit's keys: sorted, unique, in a scratch file.
pub struct BulkKeys {
    file: File,
    len: u64,
}

/// Writes `BulkKeys` in ascending order.
pub struct BulkKeysWriter {
    out: BufWriter<File>,
    len: u64,
    last: Option<QuadKey>,
}

impl BulkKeysWriter {
    /// A writer into a new scratch file in `dir`.
    pub fn new(dir: &Path) -> std::io::Result<Self> {
        Ok(Self {
            out: BufWriter::with_capacity(1 << 20, unlinked_file(dir)?),
            len: 0,
            last: None,
        })
    }

    /// Appends a key, which must be greater than the previous one.
    pub fn push(&mut self, key: QuadKey) -> std::io::Result<()> {
        if self.last.is_some_and(|last| last >= key) {
            return Err(std::io::Error::other("bulk keys out of order"));
        }
        self.last = Some(key);
        self.len += 1;
        self.out.write_all(bytemuck::cast_slice(&key))
    }

    /// The keys written.
    pub fn finish(self) -> std::io::Result<BulkKeys> {
        let file = self.out.into_inner().map_err(|e| e.into_error())?;
        Ok(BulkKeys {
            file,
            len: self.len,
        })
    }
}

impl BulkKeys {
    /// Number of keys.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The keys, in order, read from the start of the file (each call reads on its own).
    pub fn iter(&self) -> impl Iterator<Item = std::io::Result<QuadKey>> + '_ {
        let mut reader = BufReader::with_capacity(
            1 << 20,
            ReadAt {
                file: &self.file,
                at: 0,
            },
        );
        (0..self.len).map(move |_| {
            let mut key: QuadKey = [0; 4];
            reader.read_exact(bytemuck::cast_slice_mut(&mut key))?;
            Ok(key)
        })
    }
}

/// Reads a file from a position of its own (a cloned handle would share the offset).
struct ReadAt<'a> {
    file: &'a File,
    at: u64,
}

impl Read for ReadAt<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = std::os::unix::fs::FileExt::read_at(self.file, buf, self.at)?;
        self.at += n as u64;
        Ok(n)
    }
}

/// Writes the segment file of commit `seq` holding `keys` (every one added at `seq`, none
/// removed), sorting its orderings through scratch files in `scratch` in runs of
/// `run_len` records. Returns the file's size; the file is fsynced.
pub fn write_segment(
    keys: &BulkKeys,
    path: &Path,
    seq: CommitSeq,
    scratch: &Path,
    run_len: usize,
) -> std::io::Result<u64> {
    const BATCH: usize = 8192;
    let n = usize::try_from(keys.len())
        .ok()
        .filter(|&n| n <= u32::MAX as usize)
        .ok_or_else(|| std::io::Error::other("a segment holds at most 2^32 entries"))?;
    let (meta, lens) = file_layout(n, 0, (seq - 1, seq), (seq, LIVE));
    let mut fences = FenceWriter::default();
    file::write_file_with(path, MAGIC, meta, &lens, |section, out| {
        if section == 5 {
            return fences.write(out);
        }
        if section == 0 {
            let mut batch: Vec<Entry> = Vec::with_capacity(BATCH);
            for (position, key) in keys.iter().enumerate() {
                let key = key?;
                fences.see(0, position, key);
                batch.push(Entry::new(key, seq, LIVE));
                if batch.len() == BATCH {
                    out.write_all(bytemuck::cast_slice(&batch))?;
                    batch.clear();
                }
            }
            return out.write_all(bytemuck::cast_slice(&batch));
        }
        let Some(&order) = [Order::Posg, Order::Ospg, Order::Gspo].get(section - 1) else {
            return Ok(());
        };
        let mut sort = ExternalSort::<Keyed>::new(Some(scratch), run_len);
        for (index, key) in keys.iter().enumerate() {
            sort.push(Keyed {
                key: order.permute(&key?),
                index: index as u32,
            })?;
        }
        let mut batch: Vec<Keyed> = Vec::with_capacity(BATCH);
        for (position, keyed) in sort.finish()?.enumerate() {
            let keyed = keyed?;
            fences.see(section, position, keyed.key);
            batch.push(keyed);
            if batch.len() == BATCH {
                out.write_all(bytemuck::cast_slice(&batch))?;
                batch.clear();
            }
        }
        out.write_all(bytemuck::cast_slice(&batch))
    })
}

impl Store {
    /// The directory of the store's files (`None` for a store in memory only).
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// Whether commit `seq` may be installed as a file: every earlier commit is in the
    /// files and nothing is in memory segments.
    pub fn ready_for_bulk(&self, seq: CommitSeq) -> bool {
        let layers = self.layers.read();
        self.dir.is_some()
            && self.applied_seq() + 1 == seq
            && self.manifest_seq() + 1 == seq
            && layers.n_files == layers.segments.len()
    }

    /// Writes the terms interned since the last flush to a new dictionary part and names
    /// it in a new manifest (the commit unchanged). Returns the number of terms written.
    pub fn flush_dictionary(&self) -> std::io::Result<u64> {
        let Some(dir) = &self.dir else {
            return Ok(0);
        };
        let mut manifest = self.manifest.lock();
        let mut next = manifest.clone();
        let Some((file, terms, _)) = self.write_pending_terms(dir, &mut next)? else {
            return Ok(0);
        };
        next.write(dir)?;
        *manifest = next;
        drop(manifest);
        self.dict.install(file);
        Ok(terms)
    }

    /// Names `built` (the segment file of commit `seq`, hash `hash`, from
    /// `write_segment`) in a new manifest with the terms interned so far, and reads
    /// commit `seq` from it. The commit must be durable in the log and
    /// `ready_for_bulk(seq)` must hold (the writer's lock keeps it so).
    pub fn install_bulk(
        &self,
        seq: CommitSeq,
        hash: CommitHash,
        built: &Path,
    ) -> std::io::Result<()> {
        let Some(dir) = &self.dir else {
            return Err(std::io::Error::other("a store in memory has no files"));
        };
        let mut manifest = self.manifest.lock();
        if !self.ready_for_bulk(seq) {
            return Err(std::io::Error::other(format!(
                "commit {seq} cannot be installed as a file: earlier commits are not all in files"
            )));
        }
        let mut next = manifest.clone();
        let dict_file = self.write_pending_terms(dir, &mut next)?;
        let name = format!("{:08}.seg", next.next_file);
        next.next_file += 1;
        let path = dir.join(&name);
        std::fs::rename(built, &path)?;
        file::sync_dir(dir)?;
        let segment = Arc::new(Segment::open(&path, &name)?);
        next.segments.push(SegmentEntry {
            name,
            from_seq: seq - 1,
            to_seq: seq,
        });
        next.commit_seq = seq;
        next.hash = hash;
        next.write(dir)?;
        self.files_seq.store(seq, Ordering::Release);
        *manifest = next;

        let _apply = self.apply_lock.lock();
        let mut segments = self.layers.read().segments.as_ref().clone();
        segments.push(segment);
        let n_files = segments.len();
        *self.layers.write() = Layers {
            segments: Arc::new(segments),
            n_files,
            n_frozen: 0,
        };
        self.applied_seq.store(seq, Ordering::Release);
        drop(_apply);
        drop(manifest);
        if let Some((file, ..)) = dict_file {
            self.dict.install(file);
        }
        Ok(())
    }

    /// Writes the in-memory terms to a new dictionary part named in `next` (the caller
    /// holds the manifest lock, writes `next` and then installs the part).
    pub(super) fn write_pending_terms(
        &self,
        dir: &Path,
        next: &mut Manifest,
    ) -> std::io::Result<Option<(Arc<DictFile>, u64, u64)>> {
        let name = format!("{:08}.dict", next.next_file);
        let path = dir.join(&name);
        // Written from the dictionary's own memory (a copy of millions of terms during a
        // big import was the import's peak).
        let written = self
            .dict
            .with_pending(|first, terms| -> std::io::Result<_> {
                if terms.is_empty() {
                    return Ok(None);
                }
                std::fs::create_dir_all(dir)?;
                let bytes = DictFile::write(&path, first, terms)?;
                Ok(Some((first, terms.len() as u64, bytes)))
            })?;
        let Some((first, n_terms, bytes)) = written else {
            return Ok(None);
        };
        next.next_file += 1;
        let file = DictFile::open(&path)?;
        next.dicts.push(DictEntry {
            name,
            first,
            end: file.end(),
        });
        Ok(Some((Arc::new(file), n_terms, bytes)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{GraphFilter, Pattern};

    fn keys(dir: &Path, keys: &[QuadKey]) -> BulkKeys {
        let mut sorted = keys.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        let mut writer = BulkKeysWriter::new(dir).unwrap();
        for key in sorted {
            writer.push(key).unwrap();
        }
        writer.finish().unwrap()
    }

    #[test]
    fn a_bulk_segment_file_is_the_file_a_flush_writes() {
        let dir = tempfile::tempdir().unwrap();
        let quads: Vec<QuadKey> = (0..5000u32)
            .map(|i| [i % 97 + 1, i % 13 + 1, i % 1009 + 1, i % 3])
            .collect();
        let bulk = keys(dir.path(), &quads);
        let written = dir.path().join("bulk.seg");
        // Runs of 100 records: every ordering goes through ~40 scratch runs.
        write_segment(&bulk, &written, 1, dir.path(), 100).unwrap();
        let reference = dir.path().join("reference.seg");
        let mut unique = quads.clone();
        unique.sort_unstable();
        unique.dedup();
        Segment::build(unique.iter().map(|&k| Entry::new(k, 1, LIVE)).collect())
            .write_file(&reference, 0, 1, &[])
            .unwrap();
        assert_eq!(
            std::fs::read(&written).unwrap(),
            std::fs::read(&reference).unwrap()
        );
        let segment = Arc::new(Segment::open(&written, "bulk.seg").unwrap());
        let pattern = Pattern {
            subject: None,
            predicate: Some(5),
            object: None,
            graph: GraphFilter::All,
        };
        let scanned: Vec<QuadKey> =
            crate::store::segment::SegmentScan::new(Arc::new(vec![segment]), pattern, 1).collect();
        let expected: Vec<QuadKey> = unique.iter().copied().filter(|k| k[1] == 5).collect();
        assert_eq!(scanned.len(), expected.len());
    }

    #[test]
    fn keys_must_come_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let mut writer = BulkKeysWriter::new(dir.path()).unwrap();
        writer.push([2, 1, 1, 0]).unwrap();
        assert!(writer.push([1, 1, 1, 0]).is_err());
        assert!(writer.push([2, 1, 1, 0]).is_err());
    }
}
