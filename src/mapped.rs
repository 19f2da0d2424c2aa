//! Read-only memory maps of files: the crate's one `unsafe` call for them (used by the
//! store's segment and dictionary files, and by the log scan at open).
//!
//! A map is sound while nobody truncates or rewrites the mapped bytes. Store files are
//! written once and only ever deleted (a deleted file's pages stay mapped); the log is
//! only appended to, and it is mapped only by the process that holds the data
//! directory's lock, whose own appends never touch the mapped range. Truncation by
//! another program would raise SIGBUS, which no safe API can prevent.

use std::fs::File;

/// Maps the whole of `file` read-only.
pub(crate) fn map_readonly(file: &File) -> std::io::Result<memmap2::Mmap> {
    // SAFETY: see the module comment: the mapped bytes are never modified while mapped.
    #[allow(unsafe_code)]
    let map = unsafe { memmap2::Mmap::map(file)? };
    Ok(map)
}

/// Drops this process's resident pages of `len` bytes of `map` from `offset` (clamped to
/// the map): they stay in the page cache, and the next read of them maps them again, so
/// only the resident size changes, not what is read. A long pass over a big file (a
/// checksum, an import probing every dictionary part) would otherwise count every page
/// it touched as the process's memory until the map is dropped. A failure is harmless:
/// the pages just stay resident.
pub(crate) fn release_pages(map: &memmap2::Mmap, offset: usize, len: usize) {
    let offset = offset.min(map.len());
    let len = len.min(map.len() - offset);
    if len == 0 {
        return;
    }
    // SAFETY: `MADV_DONTNEED` on a read-only shared file mapping only unmaps the pages
    // from this process; a later read faults them in again from the file, whose bytes
    // never change while mapped (the module comment), so every reference into the map
    // keeps reading the same bytes.
    #[allow(unsafe_code)]
    let _ = unsafe { map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, offset, len) };
}

/// Bytes checksummed between two releases of their pages.
pub(crate) const RELEASE_STEP: usize = 8 << 20;
/// Ranges at least this long are checksummed on several threads.
const PARALLEL_MIN: usize = 64 << 20;

/// The CRC-32 of `len` bytes of `map` from `offset`, computed `RELEASE_STEP` bytes at a
/// time with each step's pages released once hashed (`release_pages`), so checking a
/// range of gigabytes does not leave it all resident. A long range is cut into one
/// contiguous part per core, hashed in parallel and combined in order: the open of a
/// graph whose log holds an 8 GB import record, and the first read of a section of
/// gigabytes, wait for memory bandwidth rather than one core (`parallel`; a background
/// check leaves the other cores to queries). `stop` is asked between steps; `None` when
/// it said stop.
pub(crate) fn crc_released(
    map: &memmap2::Mmap,
    (offset, len): (usize, usize),
    parallel: bool,
    stop: &(dyn Fn() -> bool + Sync),
) -> Option<u32> {
    let bytes = &map[offset..offset + len];
    let hash = |part: &[u8], base: usize| -> Option<crc32fast::Hasher> {
        let mut hasher = crc32fast::Hasher::new();
        for (k, chunk) in part.chunks(RELEASE_STEP).enumerate() {
            if stop() {
                return None;
            }
            hasher.update(chunk);
            if part.len() > RELEASE_STEP {
                release_pages(map, base + k * RELEASE_STEP, chunk.len());
            }
        }
        Some(hasher)
    };
    let threads = if parallel {
        std::thread::available_parallelism().map_or(1, |n| n.get().min(4))
    } else {
        1
    };
    if len < PARALLEL_MIN || threads < 2 {
        return hash(bytes, offset).map(crc32fast::Hasher::finalize);
    }
    // Parts of whole steps, so each releases whole steps.
    let part_len = len.div_ceil(threads).div_ceil(RELEASE_STEP) * RELEASE_STEP;
    let parts: Vec<Option<crc32fast::Hasher>> = std::thread::scope(|scope| {
        let handles: Vec<_> = bytes
            .chunks(part_len)
            .enumerate()
            .map(|(i, part)| {
                let hash = &hash;
                scope.spawn(move || hash(part, offset + i * part_len))
            })
            .collect();
        handles
            .into_iter()
            .map(|handle| handle.join().ok().flatten())
            .collect()
    });
    let mut parts = parts.into_iter();
    let mut combined = parts.next()??;
    for part in parts {
        combined.combine(&part?);
    }
    Some(combined.finalize())
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_long_range_hashed_in_parallel_has_the_plain_crc() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let bytes: Vec<u8> = (0..(super::PARALLEL_MIN + 3 * super::RELEASE_STEP + 12_345))
            .map(|i| (i * 31 % 251) as u8)
            .collect();
        std::fs::write(&path, &bytes).unwrap();
        let map = super::map_readonly(&std::fs::File::open(&path).unwrap()).unwrap();
        for (offset, len) in [(0, bytes.len()), (7, bytes.len() - 7), (100, 5000)] {
            assert_eq!(
                super::crc_released(&map, (offset, len), true, &|| false),
                Some(crc32fast::hash(&bytes[offset..offset + len])),
                "{offset}+{len}"
            );
        }
        assert_eq!(
            super::crc_released(&map, (0, bytes.len()), false, &|| false),
            Some(crc32fast::hash(&bytes))
        );
        assert_eq!(
            super::crc_released(&map, (0, bytes.len()), true, &|| true),
            None
        );
    }
}
