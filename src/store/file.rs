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

pub(crate) const VERSION: u32 = 1;
pub(crate) const N_META: usize = 8;
pub(crate) const N_SECTIONS: usize = 6;
const HEADER_LEN: usize = 184;
const FOOTER_LEN: usize = 16;
const END_MAGIC: &[u8; 8] = b"strataOK";

/// A complete file's bytes, mapped read-only.
pub(crate) struct MappedFile {
    path: PathBuf,
    map: memmap2::Mmap,
    meta: [u64; N_META],
    sections: [(usize, usize); N_SECTIONS],
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
        if len < HEADER_LEN + FOOTER_LEN {
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
        if version != VERSION {
            return Err(invalid(
                path,
                format!("format version {version}, this build reads {VERSION}"),
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
        let body_end = len - FOOTER_LEN;
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
                meta,
                sections,
            },
            kind,
        ))
    }

    pub fn meta(&self) -> &[u64; N_META] {
        &self.meta
    }

    pub fn section(&self, i: usize) -> &[u8] {
        let (offset, size) = self.sections[i];
        &self.map[offset..offset + size]
    }

    /// Recomputes the body checksum (reads the whole file).
    pub fn verify_body(&self) -> std::io::Result<()> {
        let len = self.map.len();
        let body = &self.map[HEADER_LEN..len - FOOTER_LEN];
        let stored = u32::from_le_bytes(
            self.map[len - FOOTER_LEN..len - FOOTER_LEN + 4]
                .try_into()
                .expect("4 bytes"),
        );
        if crc32fast::hash(body) != stored {
            return Err(invalid(&self.path, "body checksum mismatch"));
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
        written: 0,
    };
    let padding = [0u8; 8];
    for (i, &len) in lens.iter().enumerate() {
        let start = body.written;
        fill(i, &mut body)?;
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
    out.write_all(&crc.finalize().to_le_bytes())?;
    out.write_all(&0u32.to_le_bytes())?;
    out.write_all(END_MAGIC)?;
    let file = out.into_inner().map_err(|e| e.into_error())?;
    file.sync_all()?;
    Ok(file.metadata()?.len())
}

/// Passes writes through, checksumming and counting them.
struct CrcWriter<W: Write> {
    inner: W,
    crc: crc32fast::Hasher,
    written: u64,
}

impl<W: Write> Write for CrcWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.crc.update(&buf[..n]);
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
}
