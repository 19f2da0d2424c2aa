//! Flush and compaction: how the store's memory segments become files, and how files
//! merge. Both hold the manifest lock for their whole run (one at a time) and take the
//! apply lock only to swap the segment list, so readers and the writer go on meanwhile.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use super::dict_file::DictFile;
use super::segment::{LIVE, Segment, Tombstone};
use super::{DictEntry, Layers, Manifest, SegmentEntry, Store};
use crate::model::{CommitHash, CommitSeq};

/// What a flush or compaction did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MaintenanceStats {
    pub entries_written: u64,
    pub terms_written: u64,
    pub tombstones_written: u64,
    pub bytes_written: u64,
    pub files_removed: u64,
}

/// Merge the newest segment files while they add up to at least half of the next older
/// one (sizes stay geometric: O(log n) files, each entry rewritten O(log n) times).
pub(super) const MERGE_RATIO: usize = 2;
/// A file is rewritten once it has this many removals in memory, and they are at least
/// one in `REWRITE_REMOVALS_SHARE` of its entries.
const REWRITE_REMOVALS_MIN: usize = 10_000;
const REWRITE_REMOVALS_SHARE: usize = 8;
/// Past this many files the two newest merge whatever their sizes. Dictionary parts
/// follow the same rules, counted in terms.
const MAX_FILES_BEFORE_FORCED_MERGE: usize = 12;

impl Store {
    /// First step of a flush: the memory segments stop taking merges and will go to a
    /// file. Returns the commit they hold, which the caller makes durable before `flush`.
    pub fn freeze(&self) -> CommitSeq {
        let _apply = self.apply_lock.lock();
        let mut layers = self.layers.write();
        if layers.n_frozen == 0 {
            layers.n_frozen = layers.segments.len() - layers.n_files;
        }
        self.applied_seq()
    }

    /// Writes what `freeze` froze at `seq` (durable, with hash `hash`), the dictionary
    /// terms interned so far and the removals made in files since the last flush, names
    /// them in a new manifest, and reads them from the files from then on.
    pub fn flush(&self, seq: CommitSeq, hash: CommitHash) -> std::io::Result<MaintenanceStats> {
        let Some(dir) = &self.dir else {
            return Ok(MaintenanceStats::default());
        };
        let mut manifest = self.manifest.lock();
        let first_new = manifest.next_file;
        // Under the lock, so no other flush or compaction is writing files meanwhile.
        self.flush_under(dir, &mut manifest, seq, hash)
            .inspect_err(|_| remove_files_from(dir, first_new))
    }

    fn flush_under(
        &self,
        dir: &Path,
        manifest: &mut Manifest,
        seq: CommitSeq,
        hash: CommitHash,
    ) -> std::io::Result<MaintenanceStats> {
        let previous = manifest.commit_seq;
        if seq <= previous {
            return Ok(MaintenanceStats::default());
        }
        std::fs::create_dir_all(dir)?;
        let layers = self.layers.read().clone();
        let mut next = manifest.clone();
        next.commit_seq = seq;
        next.hash = hash;
        let mut stats = MaintenanceStats::default();

        let dict_file = self
            .write_pending_terms(dir, &mut next)?
            .map(|(file, terms, bytes)| {
                stats.terms_written = terms;
                stats.bytes_written += bytes;
                file
            });

        let frozen = layers.frozen();
        let tombstones: Vec<Tombstone> = layers
            .files()
            .iter()
            .flat_map(|s| s.removals().between(previous, seq))
            .collect();
        let entries = Segment::folded_entries(frozen, seq);
        let new_segment = if entries.is_empty() && tombstones.is_empty() {
            None
        } else {
            let name = format!("{:08}.seg", next.next_file);
            next.next_file += 1;
            stats.entries_written = entries.len() as u64;
            stats.tombstones_written = tombstones.len() as u64;
            let built = Segment::build(entries);
            stats.bytes_written +=
                built.write_file(&dir.join(&name), previous, seq, &tombstones)?;
            drop(built);
            let segment = Segment::open(&dir.join(&name), &name)?;
            next.segments.push(SegmentEntry {
                name,
                from_seq: previous,
                to_seq: seq,
            });
            Some(Arc::new(segment))
        };
        next.write(dir)?;
        self.files_seq.store(next.commit_seq, Ordering::Release);
        *manifest = next;

        let _apply = self.apply_lock.lock();
        let current = self.layers.read().clone();
        let mut segments: Vec<Arc<Segment>> = current.files().to_vec();
        if let Some(new_segment) = new_segment {
            // Removals of frozen versions made after `seq` move to the file's segment.
            for segment in current.frozen() {
                for removal in segment.removals().between(seq, LIVE) {
                    new_segment.remove(removal.key, removal.removed);
                }
            }
            segments.push(new_segment);
        }
        let n_files = segments.len();
        segments.extend_from_slice(&current.segments[current.n_files + current.n_frozen..]);
        *self.layers.write() = Layers {
            segments: Arc::new(segments),
            n_files,
            n_frozen: 0,
        };
        drop(_apply);
        if let Some(file) = dict_file {
            self.dict.install(file);
        }
        Ok(stats)
    }

    /// Merges the newest segment files (and dictionary parts) when their sizes call for
    /// it. Readers and the writer go on meanwhile; replaced files are deleted once the new
    /// manifest is durable (snapshots that still map them keep reading them).
    pub fn compact(&self) -> std::io::Result<MaintenanceStats> {
        let Some(dir) = &self.dir else {
            return Ok(MaintenanceStats::default());
        };
        let mut manifest = self.manifest.lock();
        let first_new = manifest.next_file;
        self.compact_under(dir, &mut manifest)
            .inspect_err(|_| remove_files_from(dir, first_new))
    }

    fn compact_under(
        &self,
        dir: &Path,
        manifest: &mut Manifest,
    ) -> std::io::Result<MaintenanceStats> {
        let layers = self.layers.read().clone();
        let files = layers.files();
        let sizes: Vec<usize> = files.iter().map(|s| s.len().max(1)).collect();
        // A file whose removals (held in memory until folded) outgrow a share of its
        // entries is rewritten with them folded in, with every newer file.
        let heavy = files.iter().position(|s| {
            let removals = s.removals().len();
            removals >= REWRITE_REMOVALS_MIN && removals * REWRITE_REMOVALS_SHARE >= s.len()
        });
        // A file of the first format (orderings without their keys) is rewritten in
        // the current one, with every newer file.
        let old_format = files.iter().position(|s| s.is_format_1());
        let start = [merge_start(&sizes), heavy, old_format]
            .into_iter()
            .flatten()
            .min();
        let dict_sizes: Vec<usize> = manifest
            .dicts
            .iter()
            .map(|d| (d.end - d.first).max(1) as usize)
            .collect();
        let dict_start = merge_start(&dict_sizes);
        if start.is_none() && dict_start.is_none() {
            return Ok(MaintenanceStats::default());
        }
        let upto = manifest.commit_seq;
        let mut next = manifest.clone();
        let mut stats = MaintenanceStats::default();
        let mut removed_names = Vec::new();

        let merged_segment = if let Some(start) = start {
            let merging = &files[start..];
            // Tombstones whose version is among the merged files are folded in; the others
            // remove versions in older files and are carried over.
            let kept: Vec<Tombstone> = merging
                .iter()
                .flat_map(|s| s.tombstones().iter().copied())
                .filter(|t| !merging.iter().any(|s| s.route_probe(t)))
                .collect();
            let from = merging[0].file().map_or(0, |f| f.from_seq);
            let to = merging[merging.len() - 1].file().map_or(upto, |f| f.to_seq);
            let name = format!("{:08}.seg", next.next_file);
            next.next_file += 1;
            stats.entries_written = merging.iter().map(|s| s.len() as u64).sum();
            stats.tombstones_written = kept.len() as u64;
            stats.bytes_written +=
                Segment::merge_to_file(merging, upto, &dir.join(&name), (from, to), &kept)?;
            let segment = Arc::new(Segment::open(&dir.join(&name), &name)?);
            removed_names.extend(next.segments.drain(start..).map(|s| s.name));
            next.segments.push(SegmentEntry {
                name,
                from_seq: from,
                to_seq: to,
            });
            Some((start, segment))
        } else {
            None
        };

        let merged_dict = if let Some(dict_start) = dict_start {
            let parts = self.dict.files();
            let first = parts[dict_start].first();
            let end = parts[parts.len() - 1].end();
            let terms: Vec<_> = (first..end).filter_map(|id| self.dict.term(id)).collect();
            if terms.len() != (end - first) as usize {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    "a dictionary part has an undecodable term",
                ));
            }
            let name = format!("{:08}.dict", next.next_file);
            next.next_file += 1;
            stats.terms_written = terms.len() as u64;
            stats.bytes_written += DictFile::write(&dir.join(&name), first, &terms)?;
            let file = Arc::new(DictFile::open(&dir.join(&name))?);
            removed_names.extend(next.dicts.drain(dict_start..).map(|d| d.name));
            next.dicts.push(DictEntry { name, first, end });
            Some((dict_start, file))
        } else {
            None
        };
        next.write(dir)?;
        *manifest = next;

        if let Some((start, segment)) = merged_segment {
            let _apply = self.apply_lock.lock();
            let current = self.layers.read().clone();
            for old in &current.files()[start..] {
                for removal in old.removals().between(upto, LIVE) {
                    segment.remove(removal.key, removal.removed);
                }
            }
            let mut segments: Vec<Arc<Segment>> = current.segments[..start].to_vec();
            segments.push(segment);
            let n_files = segments.len();
            segments.extend_from_slice(&current.segments[current.n_files..]);
            *self.layers.write() = Layers {
                segments: Arc::new(segments),
                n_files,
                n_frozen: current.n_frozen,
            };
        }
        if let Some((start, file)) = merged_dict {
            self.dict.replace_parts(start, file);
        }
        for name in removed_names {
            if std::fs::remove_file(dir.join(&name)).is_ok() {
                stats.files_removed += 1;
            }
        }
        Ok(stats)
    }

    /// Checks the body checksum of every file the manifest names (reads them whole).
    pub fn verify_files(&self) -> std::io::Result<()> {
        for part in self.dict.files() {
            part.file().verify_body()?;
        }
        for segment in self.layers.read().files() {
            if let Some(file) = segment.mapped() {
                file.verify_body()?;
            }
        }
        Ok(())
    }
}

/// Where the newest run of files to merge starts, if any: the newest files merge while
/// together they are at least half the size of the next older one, and the newest ones
/// always merge when there are too many.
fn merge_start(sizes: &[usize]) -> Option<usize> {
    let n = sizes.len();
    if n < 2 {
        return None;
    }
    let mut start = n - 1;
    let mut total = sizes[n - 1];
    while start > 0 && total * MERGE_RATIO >= sizes[start - 1] {
        start -= 1;
        total += sizes[start];
    }
    if start == n - 1 && n > MAX_FILES_BEFORE_FORCED_MERGE {
        start = n - 2;
    }
    (start < n - 1).then_some(start)
}

/// Deletes the store files numbered `first` or later: what a flush or a compaction that
/// failed (a full disk) had written before the manifest named it. Left there, they would
/// keep the disk full until the next open, and every commit would fail meanwhile.
fn remove_files_from(dir: &Path, first: u64) {
    // A manifest that reached the disk before the failure (its directory's sync failed)
    // names its files: they stay. One that cannot be read leaves everything as it is.
    let Ok(on_disk) = Manifest::read(dir) else {
        return;
    };
    let named: std::collections::HashSet<String> = on_disk
        .iter()
        .flat_map(|m| m.files().map(str::to_owned))
        .collect();
    let Ok(listing) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in listing.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let number = name
            .strip_suffix(".seg")
            .or_else(|| name.strip_suffix(".dict"))
            .and_then(|n| n.parse::<u64>().ok());
        if number.is_some_and(|n| n >= first) && !named.contains(name) {
            tracing::warn!(file = name, "removing a store file a failed flush left");
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Deletes the files of a store directory that `manifest` does not name.
pub(super) fn remove_unnamed_files(dir: &Path, manifest: &Manifest) {
    let named: std::collections::HashSet<&str> = manifest.files().collect();
    let Ok(listing) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in listing.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let ours = name.ends_with(".seg") || name.ends_with(".dict") || name.ends_with(".tmp");
        if ours && !named.contains(name) {
            tracing::debug!(file = name, "removing a store file no manifest names");
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

#[cfg(test)]
mod cleanup_tests {
    use super::*;

    #[test]
    fn a_failed_flush_leaves_only_what_a_manifest_on_disk_names() {
        let dir = tempfile::tempdir().unwrap();
        let mut manifest = Manifest::empty();
        manifest.next_file = 5;
        manifest.dicts.push(DictEntry {
            name: "00000003.dict".into(),
            first: 1,
            end: 2,
        });
        manifest.write(dir.path()).unwrap();
        for name in [
            "00000003.dict",
            "00000004.seg",
            "00000005.dict",
            "00000006.seg",
            "MANIFEST.tmp",
            "notes.txt",
        ] {
            std::fs::write(dir.path().join(name), b"x").unwrap();
        }
        remove_files_from(dir.path(), 5);
        let mut left: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".seg") || n.ends_with(".dict") || n == "notes.txt")
            .collect();
        left.sort();
        // Older unnamed files are the next open's to remove; only this flush's go now.
        assert_eq!(left, ["00000003.dict", "00000004.seg", "notes.txt"]);
        // A manifest that already names a new file (written before the failure) keeps it.
        manifest.segments.push(SegmentEntry {
            name: "00000007.seg".into(),
            from_seq: 0,
            to_seq: 1,
        });
        manifest.write(dir.path()).unwrap();
        std::fs::write(dir.path().join("00000007.seg"), b"x").unwrap();
        remove_files_from(dir.path(), 5);
        assert!(dir.path().join("00000007.seg").exists());
    }
}
