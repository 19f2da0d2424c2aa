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
