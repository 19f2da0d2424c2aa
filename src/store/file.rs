//! The framing shared by the store's immutable files (segments and dictionary parts):
//! a checked header, 8-byte aligned sections read in place through a memory map, and a
//! footer. Format version 1:
//!
//! ```text
//! magic [8] | version u32 | 0 u32 | meta [u64; 8] | sections [(offset u64, len u64); 6]
//!   | header_crc u32 | 0 u32                                   (184 bytes, little endian)
//! section 0 | pad to 8 | section 1 | pad to 8 | …
//! body_crc u32 | 0 u32 | "strataOK"                             (16 bytes)
//! ```
//!
//! `header_crc` covers the bytes before it, `body_crc` every byte between the header and
//! the footer. Opening checks the magic, the version, the header CRC, the footer and that
//! every section lies inside the file, so a torn file (a crash mid-write) or a file of an
//! unknown kind or version is refused, never read as data. The body CRC costs a full read;
//! `strata verify` and compaction check it, opening does not (it must not read the file).
//!
//! Files are mapped through `crate::mapped`: a mapped file is only ever one this process
//! or another Strata process wrote completely and never changes afterwards (files are
//! written once under a fresh name, then only deleted).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

/// Set once any mapped file in this process failed a check: until then, asking a
/// snapshot whether it reads a damaged file costs one load.
static ANY_DAMAGE: AtomicBool = AtomicBool::new(false);

/// Whether any file of this process failed its check (see `MappedFile::damage`).
pub(crate) fn any_damage() -> bool {
    ANY_DAMAGE.load(Ordering::Acquire)
}

/// The file a store's directory holds once one of its files failed a check: its next
/// open sets the files aside and replays the log (see `Store::open`).
pub(crate) const DAMAGED_MARKER: &str = "DAMAGED";

pub(crate) const VERSION: u32 = 2;
/// The first frame version (no section CRCs), still read.
const VERSION_1: u32 = 1;
pub(crate) const N_META: usize = 8;
pub(crate) const N_SECTIONS: usize = 6;
const HEADER_LEN: usize = 184;
const FOOTER_LEN_1: usize = 16;
const FOOTER_LEN: usize = 4 * N_SECTIONS + 16;
const END_MAGIC: &[u8; 8] = b"strataOK";

/// A complete file's bytes, mapped read-only.
pub(crate) struct MappedFile {
    path: PathBuf,
    map: memmap2::Mmap,
    version: u32,
    meta: [u64; N_META],
    sections: [(usize, usize); N_SECTIONS],
    /// Each section's check, done once on its first read (version 1: every entry waits
    /// for the one body check, kept in entry 0).
    checked: [OnceLock<bool>; N_SECTIONS],
    /// Why the file is damaged, once a check failed.
    damage: OnceLock<String>,
}

fn invalid(path: &Path, what: impl std::fmt::Display) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        format!("{}: {what}", path.display()),
    )
}

fn align8(n: usize) -> usize {
    n.div_ceil(8) * 8
}

impl MappedFile {
    /// Maps a file and checks its frame (not its body CRC: see `verify_body`).
    pub fn open(path: &Path, magic: &[u8; 8]) -> std::io::Result<Self> {
        Self::open_kinds(path, &[magic]).map(|(file, _)| file)
    }

    /// Like `open`, for a file of any of several kinds (e.g. two formats of one file):
    /// returns which magic it has.
    pub fn open_kinds(path: &Path, magics: &[&[u8; 8]]) -> std::io::Result<(Self, usize)> {
        let file = File::open(path)?;
        let len = file.metadata()?.len() as usize;
        if len < HEADER_LEN + FOOTER_LEN_1 {
            return Err(invalid(
                path,
                "shorter than a header and footer (torn file)",
            ));
        }
        let map = crate::mapped::map_readonly(&file)?;
        let bytes: &[u8] = &map;
        let Some(kind) = magics.iter().position(|m| bytes[..8] == m[..]) else {
            return Err(invalid(path, "not a file of this kind (wrong magic)"));
        };
        let version = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
        let footer_len = match version {
            VERSION => FOOTER_LEN,
            VERSION_1 => FOOTER_LEN_1,
            _ => {
                return Err(invalid(
                    path,
                    format!("format version {version}, this build reads {VERSION_1} and {VERSION}"),
                ));
            }
        };
        if len < HEADER_LEN + footer_len {
            return Err(invalid(
                path,
                "shorter than a header and footer (torn file)",
            ));
        }
        let crc_at = HEADER_LEN - 8;
        let stored = u32::from_le_bytes(bytes[crc_at..crc_at + 4].try_into().expect("4 bytes"));
        if crc32fast::hash(&bytes[..crc_at]) != stored {
            return Err(invalid(path, "header checksum mismatch"));
        }
        if &bytes[len - 8..] != END_MAGIC {
            return Err(invalid(path, "no footer (torn file)"));
        }
        let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
        let mut meta = [0u64; N_META];
        for (i, value) in meta.iter_mut().enumerate() {
            *value = word(16 + 8 * i);
        }
        let mut sections = [(0usize, 0usize); N_SECTIONS];
        let table = 16 + 8 * N_META;
        let body_end = len - footer_len;
        for (i, section) in sections.iter_mut().enumerate() {
            let offset = usize::try_from(word(table + 16 * i)).unwrap_or(usize::MAX);
            let size = usize::try_from(word(table + 16 * i + 8)).unwrap_or(usize::MAX);
            let end = offset.saturating_add(size);
            if offset % 8 != 0 || offset < HEADER_LEN || end > body_end {
                return Err(invalid(path, format!("section {i} lies outside the file")));
            }
            *section = (offset, size);
        }
        Ok((
            Self {
                path: path.to_owned(),
                map,
                version,
                meta,
                sections,
                checked: Default::default(),
                damage: OnceLock::new(),
            },
            kind,
        ))
    }

    pub fn meta(&self) -> &[u64; N_META] {
        &self.meta
    }

    /// Section `i`'s bytes, checked against their CRC on the first read. A damaged
    /// section is still returned (so that no reader's bounds change under it), but the
    /// file is marked damaged first: every query and write that reads it checks
    /// `damage` before an answer leaves (see `Snapshot::damage`).
    #[inline]
    pub fn section(&self, i: usize) -> &[u8] {
        let check = if self.version == VERSION_1 { 0 } else { i };
        if self.checked[check].get().is_none() {
            self.check_section(i);
        }
        self.section_unchecked(i)
    }

    /// A section's length (reads nothing).
    pub fn section_len(&self, i: usize) -> usize {
        self.sections[i].1
    }

    /// Where a section starts in the file.
    #[cfg(test)]
    pub fn section_offset(&self, i: usize) -> usize {
        self.sections[i].0
    }

    /// A section's bytes without their check: only for an open's structural checks
    /// (sizes, alignment, the last offset), which read a few bytes, never data.
    pub fn section_unchecked(&self, i: usize) -> &[u8] {
        let (offset, size) = self.sections[i];
        &self.map[offset..offset + size]
    }

    #[cold]
    fn check_section(&self, i: usize) {
        if self.version == VERSION_1 {
            self.checked[0].get_or_init(|| match self.verify_body() {
                Ok(()) => true,
                Err(error) => {
                    self.mark_damaged(error.to_string());
                    false
                }
            });
            return;
        }
        self.checked[i].get_or_init(|| {
            let at = self.map.len() - FOOTER_LEN + 4 * i;
            let stored = u32::from_le_bytes(self.map[at..at + 4].try_into().expect("4 bytes"));
            let ok = self.crc_released(self.sections[i]) == stored;
            if !ok {
                self.mark_damaged(format!(
                    "{}: section {i} checksum mismatch",
                    self.path.display()
                ));
            }
            ok
        });
    }

    /// The CRC of the bytes at `(offset, len)` (see `crate::mapped::crc_released`:
    /// pages released as they are hashed, a long range on every core).
    fn crc_released(&self, (offset, len): (usize, usize)) -> u32 {
        crate::mapped::crc_released(&self.map, (offset, len), true, &|| false).unwrap_or(0)
    }

    /// Drops the resident pages of the whole file (see `crate::mapped::release_pages`):
    /// called now and then by a long pass that probes the file at random (an import's
    /// dictionary lookups), whose touched pages would otherwise add up to the file.
    pub fn release_pages(&self) {
        crate::mapped::release_pages(&self.map, 0, self.map.len());
    }

    /// Checks every section not checked yet, in `mapped::RELEASE_STEP` steps on one
    /// thread, giving up (leaving the rest to the first reads) once `stop` is set: the
    /// background check after an open, which must not outlive its store (a test may
    /// rewrite the files afterwards).
    pub fn check_all_sections(&self, stop: &AtomicBool) {
        let parts: Vec<usize> = if self.version == VERSION_1 {
            vec![0]
        } else {
            (0..N_SECTIONS).collect()
        };
        for i in parts {
            if self.checked[i].get().is_some() {
                continue;
            }
            let (bytes, stored) = if self.version == VERSION_1 {
                let len = self.map.len();
                let at = len - 16;
                (
                    &self.map[HEADER_LEN..len - FOOTER_LEN_1],
                    u32::from_le_bytes(self.map[at..at + 4].try_into().expect("4 bytes")),
                )
            } else {
                let at = self.map.len() - FOOTER_LEN + 4 * i;
                (
                    self.section_unchecked(i),
                    u32::from_le_bytes(self.map[at..at + 4].try_into().expect("4 bytes")),
                )
            };
            let base = bytes.as_ptr() as usize - self.map.as_ptr() as usize;
            let stopped = || stop.load(Ordering::Relaxed);
            let Some(crc) =
                crate::mapped::crc_released(&self.map, (base, bytes.len()), false, &stopped)
            else {
                return;
            };
            let ok = crc == stored;
            self.checked[i].get_or_init(|| {
                if !ok {
                    self.mark_damaged(if self.version == VERSION_1 {
                        format!("{}: body checksum mismatch", self.path.display())
                    } else {
                        format!("{}: section {i} checksum mismatch", self.path.display())
                    });
                }
                ok
            });
        }
    }

    /// Records the damage: an error in the server's log, the marker that makes the
    /// store's next open set its files aside, then the file's and the process's flags.
    fn mark_damaged(&self, reason: String) {
        if self.damage.get().is_some() {
            return;
        }
        tracing::error!(
            file = %self.path.display(),
            %reason,
            "a store file failed its checksum: reads of it fail with `corruption`; the next \
             open sets the store files aside and replays the log (or run `strata repair`)"
        );
        if let Some(dir) = self.path.parent() {
            let marker = dir.join(DAMAGED_MARKER);
            let written = std::fs::write(&marker, format!("{reason}\n"))
                .and_then(|()| File::open(&marker)?.sync_all())
                .and_then(|()| sync_dir(dir));
            if let Err(error) = written {
                tracing::error!(marker = %marker.display(), %error, "cannot write the damage marker");
            }
        }
        // After the marker: whoever sees the damage finds the marker written.
        let _ = self.damage.set(reason);
        ANY_DAMAGE.store(true, Ordering::Release);
    }

    /// Why this file is damaged, once a check of it failed.
    pub fn damage(&self) -> Option<&str> {
        self.damage.get().map(String::as_str)
    }

    /// Recomputes the body checksum and every section's (reads the whole file).
    pub fn verify_body(&self) -> std::io::Result<()> {
        let len = self.map.len();
        let footer_len = if self.version == VERSION_1 {
            FOOTER_LEN_1
        } else {
            FOOTER_LEN
        };
        let at = len - 16;
        let stored = u32::from_le_bytes(self.map[at..at + 4].try_into().expect("4 bytes"));
        if self.crc_released((HEADER_LEN, len - footer_len - HEADER_LEN)) != stored {
            return Err(invalid(&self.path, "body checksum mismatch"));
        }
        if self.version != VERSION_1 {
            for i in 0..N_SECTIONS {
                let at = len - FOOTER_LEN + 4 * i;
                let stored = u32::from_le_bytes(self.map[at..at + 4].try_into().expect("4 bytes"));
                if self.crc_released(self.sections[i]) != stored {
                    return Err(invalid(
                        &self.path,
                        format!("section {i} checksum mismatch"),
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Writes a complete file in one pass and fsyncs it. The caller names it in a manifest
/// only afterwards, so a crash mid-write leaves a file nothing refers to.
pub(crate) fn write_file(
    path: &Path,
    magic: &[u8; 8],
    meta: [u64; N_META],
    sections: &[&[u8]],
) -> std::io::Result<u64> {
    let lens: Vec<usize> = sections.iter().map(|s| s.len()).collect();
    write_file_with(path, magic, meta, &lens, |i, out| {
        out.write_all(sections[i])
    })
}

/// Like `write_file`, with each section produced by `fill(i, out)`, which must write
/// exactly `lens[i]` bytes: sections larger than memory stream straight to the file.
pub(crate) fn write_file_with(
    path: &Path,
    magic: &[u8; 8],
    meta: [u64; N_META],
    lens: &[usize],
    mut fill: impl FnMut(usize, &mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<u64> {
    assert!(lens.len() <= N_SECTIONS, "too many sections");
    let mut header = Vec::with_capacity(HEADER_LEN);
    header.extend_from_slice(magic);
    header.extend_from_slice(&VERSION.to_le_bytes());
    header.extend_from_slice(&0u32.to_le_bytes());
    for value in meta {
        header.extend_from_slice(&value.to_le_bytes());
    }
    let mut offset = HEADER_LEN;
    for i in 0..N_SECTIONS {
        let size = lens.get(i).copied().unwrap_or(0);
        header.extend_from_slice(&(offset as u64).to_le_bytes());
        header.extend_from_slice(&(size as u64).to_le_bytes());
        offset = align8(offset + size);
    }
    let crc = crc32fast::hash(&header);
    header.extend_from_slice(&crc.to_le_bytes());
    header.extend_from_slice(&0u32.to_le_bytes());
    debug_assert_eq!(header.len(), HEADER_LEN);

    let file = File::create(path)?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    out.write_all(&header)?;
    let mut body = CrcWriter {
        inner: out,
        crc: crc32fast::Hasher::new(),
        section_crc: crc32fast::Hasher::new(),
        written: 0,
    };
    let padding = [0u8; 8];
    let mut section_crcs = [crc32fast::hash(&[]); N_SECTIONS];
    for (i, &len) in lens.iter().enumerate() {
        let start = body.written;
        body.section_crc = crc32fast::Hasher::new();
        fill(i, &mut body)?;
        section_crcs[i] = body.section_crc.clone().finalize();
        if body.written - start != len as u64 {
            return Err(std::io::Error::other(format!(
                "section {i}: wrote {} bytes, announced {len}",
                body.written - start
            )));
        }
        body.write_all(&padding[..align8(len) - len])?;
    }
    let CrcWriter {
        inner: mut out,
        crc,
        ..
    } = body;
    for section_crc in section_crcs {
        out.write_all(&section_crc.to_le_bytes())?;
    }
    out.write_all(&crc.finalize().to_le_bytes())?;
    out.write_all(&0u32.to_le_bytes())?;
    out.write_all(END_MAGIC)?;
    let file = out.into_inner().map_err(|e| e.into_error())?;
    file.sync_all()?;
    Ok(file.metadata()?.len())
}

/// Passes writes through, checksumming (the body and the current section) and counting
/// them.
struct CrcWriter<W: Write> {
    inner: W,
    crc: crc32fast::Hasher,
    section_crc: crc32fast::Hasher,
    written: u64,
}

impl<W: Write> Write for CrcWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.crc.update(&buf[..n]);
        self.section_crc.update(&buf[..n]);
        self.written += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Fsyncs a directory, so names created or renamed in it survive a crash.
pub(crate) fn sync_dir(dir: &Path) -> std::io::Result<()> {
    File::open(dir)?.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_round_trips_and_damage_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let meta = [1, 2, 3, 4, 5, 6, 7, 8];
        let a: Vec<u8> = (0..13).collect();
        let b = vec![9u8; 1000];
        write_file(&path, b"strataT1", meta, &[&a, &b]).unwrap();
        let file = MappedFile::open(&path, b"strataT1").unwrap();
        assert_eq!(file.meta(), &meta);
        assert_eq!(file.section(0), &a[..]);
        assert_eq!(file.section(1), &b[..]);
        assert!(file.section(2).is_empty());
        file.verify_body().unwrap();
        assert!(MappedFile::open(&path, b"strataX1").is_err());

        let bytes = std::fs::read(&path).unwrap();
        // Torn: any shorter prefix is refused.
        for cut in [0, 100, HEADER_LEN, bytes.len() - 1] {
            std::fs::write(&path, &bytes[..cut]).unwrap();
            assert!(
                MappedFile::open(&path, b"strataT1").is_err(),
                "cut at {cut}"
            );
        }
        // A flipped header byte is refused at open, a flipped body byte by the body check.
        let mut flipped = bytes.clone();
        flipped[20] ^= 1;
        std::fs::write(&path, &flipped).unwrap();
        assert!(MappedFile::open(&path, b"strataT1").is_err());
        let mut flipped = bytes;
        flipped[HEADER_LEN + 500] ^= 1;
        std::fs::write(&path, &flipped).unwrap();
        let file = MappedFile::open(&path, b"strataT1").unwrap();
        assert!(file.verify_body().is_err());
    }

    #[test]
    fn a_damaged_section_is_found_on_its_first_read_and_marks_the_store() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let a: Vec<u8> = (0..13).collect();
        let b = vec![9u8; 1000];
        write_file(&path, b"strataT1", [0; N_META], &[&a, &b]).unwrap();
        let mut bytes = std::fs::read(&path).unwrap();
        // Byte 500 of the body is inside section 1 (section 0 is 16 bytes with padding).
        bytes[HEADER_LEN + 500] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        let file = MappedFile::open(&path, b"strataT1").unwrap();
        assert_eq!(file.section(0), &a[..]);
        assert!(file.damage().is_none(), "section 0 is intact");
        assert!(!dir.path().join(DAMAGED_MARKER).exists());
        let _ = file.section(1);
        let damage = file.damage().expect("section 1 is damaged");
        assert!(damage.contains("section 1 checksum mismatch"), "{damage}");
        assert!(any_damage());
        let marker = std::fs::read_to_string(dir.path().join(DAMAGED_MARKER)).unwrap();
        assert!(marker.contains("section 1"), "{marker}");
    }

    #[test]
    fn a_version_1_file_is_read_and_checked_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let a: Vec<u8> = (0..13).collect();
        write_file(&path, b"strataT1", [7; N_META], &[&a]).unwrap();
        // The same file in frame version 1: version 1 in the header (its CRC redone) and
        // no section CRCs in the footer.
        let v2 = std::fs::read(&path).unwrap();
        let mut v1 = v2[..v2.len() - FOOTER_LEN].to_vec();
        v1.extend_from_slice(&v2[v2.len() - 16..]);
        v1[8..12].copy_from_slice(&VERSION_1.to_le_bytes());
        let crc = crc32fast::hash(&v1[..HEADER_LEN - 8]);
        v1[HEADER_LEN - 8..HEADER_LEN - 4].copy_from_slice(&crc.to_le_bytes());
        std::fs::write(&path, &v1).unwrap();
        let file = MappedFile::open(&path, b"strataT1").unwrap();
        assert_eq!(file.meta(), &[7; N_META]);
        assert_eq!(file.section(0), &a[..]);
        assert!(file.damage().is_none());
        file.verify_body().unwrap();
        v1[HEADER_LEN + 3] ^= 1;
        std::fs::write(&path, &v1).unwrap();
        let file = MappedFile::open(&path, b"strataT1").unwrap();
        let _ = file.section(1);
        assert!(file.damage().is_some(), "a version-1 file is checked whole");
    }
}
