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
