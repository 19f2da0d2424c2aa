//! Scratch files: temporary bytes on disk that no crash can leave behind, and an external
//! sort over them (for commits larger than memory: the keys of a big import, the
//! orderings of the segment file it becomes).
//!
//! A scratch file is unlinked as soon as it is created, so its bytes live exactly as long
//! as its handle: whatever kills the process, nothing is left to mistake for data or to
//! clean up at the next open.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// A new, already unlinked file in `dir`, open for reading and writing.
pub(crate) fn unlinked_file(dir: &Path) -> std::io::Result<File> {
    use std::hash::{BuildHasher, Hasher};
    loop {
        let mut random = std::collections::hash_map::RandomState::new().build_hasher();
        random.write_u64(std::process::id().into());
        let path = dir.join(format!(".spill-{:016x}.tmp", random.finish()));
        let file = match std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            other => other?,
        };
        std::fs::remove_file(&path)?;
        return Ok(file);
    }
}

/// Removes scratch files a killed process left in `dir`: one killed between creating a
/// scratch file and unlinking it (two system calls apart) leaves the name behind. Only
/// the writer that owns `dir` (under the data directory's lock) may call this.
pub(crate) fn remove_leftovers(dir: &Path) {
    let Ok(listing) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in listing.flatten() {
        let name = entry.file_name();
        if name
            .to_str()
            .is_some_and(|n| n.starts_with(".spill-") && n.ends_with(".tmp"))
        {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Fixed-width records sorted and deduplicated, in memory up to `run_len` records and in
/// sorted runs in scratch files past that; `finish` merges the runs. Memory holds one run
/// (plus a 1 MiB read buffer per run while merging).
pub(crate) struct ExternalSort<T> {
    dir: Option<PathBuf>,
    run_len: usize,
    buffer: Vec<T>,
    runs: Vec<File>,
    pushed: u64,
}

impl<T: bytemuck::Pod + Ord> ExternalSort<T> {
    /// A sort that spills runs of `run_len` records into `dir` (never, with `None`).
    pub fn new(dir: Option<&Path>, run_len: usize) -> Self {
        Self {
            dir: dir.map(Path::to_owned),
            run_len: run_len.max(1),
            buffer: Vec::new(),
            runs: Vec::new(),
            pushed: 0,
        }
    }

    /// Adds a record.
    pub fn push(&mut self, item: T) -> std::io::Result<()> {
        self.buffer.push(item);
        self.pushed += 1;
        if self.buffer.len() >= self.run_len && self.dir.is_some() {
            self.spill()?;
        }
        Ok(())
    }

    /// Records pushed so far (duplicates included).
    pub fn pushed(&self) -> u64 {
        self.pushed
    }

    /// True when some records are in scratch files.
    pub fn spilled(&self) -> bool {
        !self.runs.is_empty()
    }

    fn spill(&mut self) -> std::io::Result<()> {
        let Some(dir) = &self.dir else {
            return Ok(());
        };
        self.buffer.sort_unstable();
        self.buffer.dedup();
        let mut file = unlinked_file(dir)?;
        {
            let mut out = BufWriter::with_capacity(1 << 20, &mut file);
            out.write_all(bytemuck::cast_slice(&self.buffer))?;
            out.flush()?;
        }
        file.seek(SeekFrom::Start(0))?;
        self.runs.push(file);
        self.buffer.clear();
        Ok(())
    }

    /// The records in memory, sorted and deduplicated, when nothing was spilled.
    pub fn into_vec(mut self) -> std::io::Result<Vec<T>> {
        if self.runs.is_empty() {
            self.buffer.sort_unstable();
            self.buffer.dedup();
            return Ok(std::mem::take(&mut self.buffer));
        }
        self.finish()?.collect()
    }

    /// The records in the order they were pushed (a sort that never spills: tests).
    #[cfg(test)]
    pub fn into_pushed(self) -> Vec<T> {
        assert!(self.runs.is_empty(), "records were spilled");
        self.buffer
    }

    /// The scratch folder, if the sort spills.
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// Takes in another sort's records (its runs stay runs; its memory joins this one's).
    pub fn absorb(&mut self, mut other: ExternalSort<T>) {
        self.runs.append(&mut other.runs);
        self.buffer.append(&mut other.buffer);
        self.pushed += other.pushed;
    }

    /// Moves the records in memory to a run of their own when there are at least `min`
    /// (a parsed document waiting for its commit then holds no memory).
    pub fn spill_at_least(&mut self, min: usize) -> std::io::Result<()> {
        if self.buffer.len() >= min.max(1) {
            self.spill()?;
        }
        Ok(())
    }

    /// Every record once, ascending.
    pub fn finish(mut self) -> std::io::Result<Sorted<T>> {
        self.buffer.sort_unstable();
        self.buffer.dedup();
        let mut runs: Vec<BufReader<File>> = self
            .runs
            .drain(..)
            .map(|f| BufReader::with_capacity(1 << 20, f))
            .collect();
        let mut memory = std::mem::take(&mut self.buffer).into_iter();
        let mut heap = BinaryHeap::with_capacity(runs.len() + 1);
        for (i, run) in runs.iter_mut().enumerate() {
            if let Some(item) = read_one::<T>(run)? {
                heap.push(Reverse((item, i)));
            }
        }
        if let Some(item) = memory.next() {
            heap.push(Reverse((item, runs.len())));
        }
        Ok(Sorted {
            memory,
            runs,
            heap,
            last: None,
        })
    }
}

fn read_one<T: bytemuck::Pod>(run: &mut impl Read) -> std::io::Result<Option<T>> {
    let mut item = T::zeroed();
    match run.read_exact(bytemuck::bytes_of_mut(&mut item)) {
        Ok(()) => Ok(Some(item)),
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Ok(None),
        Err(e) => Err(e),
    }
}

/// The merged output of an `ExternalSort`: a k-way merge of its runs and what it held in
/// memory (source index `runs.len()`), duplicates dropped.
pub(crate) struct Sorted<T> {
    memory: std::vec::IntoIter<T>,
    runs: Vec<BufReader<File>>,
    heap: BinaryHeap<Reverse<(T, usize)>>,
    last: Option<T>,
}

impl<T: bytemuck::Pod + Ord> Sorted<T> {
    fn next_any(&mut self) -> std::io::Result<Option<T>> {
        let Some(Reverse((item, i))) = self.heap.pop() else {
            return Ok(None);
        };
        let next = match self.runs.get_mut(i) {
            Some(run) => read_one::<T>(run)?,
            None => self.memory.next(),
        };
        if let Some(next) = next {
            self.heap.push(Reverse((next, i)));
        }
        Ok(Some(item))
    }
}

impl<T: bytemuck::Pod + Ord> Iterator for Sorted<T> {
    type Item = std::io::Result<T>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            match self.next_any() {
                Err(e) => return Some(Err(e)),
                Ok(None) => return None,
                // Runs are deduplicated each, not against each other.
                Ok(Some(item)) if self.last == Some(item) => continue,
                Ok(Some(item)) => {
                    self.last = Some(item);
                    return Some(Ok(item));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted(run_len: usize, dir: Option<&Path>, items: &[[u32; 2]]) -> Vec<[u32; 2]> {
        let mut sort = ExternalSort::new(dir, run_len);
        for &item in items {
            sort.push(item).unwrap();
        }
        sort.finish()
            .unwrap()
            .collect::<std::io::Result<_>>()
            .unwrap()
    }

    #[test]
    fn spilled_runs_merge_into_one_sorted_deduplicated_sequence() {
        let dir = tempfile::tempdir().unwrap();
        let items: Vec<[u32; 2]> = (0..10_000u32).map(|i| [i * 7919 % 1000, i % 3]).collect();
        let mut expected = items.clone();
        expected.sort_unstable();
        expected.dedup();
        for run_len in [1, 7, 1000, 20_000] {
            assert_eq!(sorted(run_len, Some(dir.path()), &items), expected);
        }
        assert_eq!(sorted(7, None, &items), expected);
        // The runs were unlinked at once: the folder is empty while and after they live.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_sort_reports_whether_it_spilled() {
        let dir = tempfile::tempdir().unwrap();
        let mut sort = ExternalSort::<[u32; 1]>::new(Some(dir.path()), 3);
        sort.push([2]).unwrap();
        sort.push([1]).unwrap();
        assert!(!sort.spilled());
        sort.push([2]).unwrap();
        assert!(sort.spilled());
        sort.push([0]).unwrap();
        assert_eq!(sort.pushed(), 4);
        let mut other = ExternalSort::<[u32; 1]>::new(None, 100);
        other.push([5]).unwrap();
        other.push([1]).unwrap();
        sort.absorb(other);
        assert_eq!(sort.pushed(), 6);
        assert_eq!(sort.into_vec().unwrap(), vec![[0], [1], [2], [5]]);
    }
}
