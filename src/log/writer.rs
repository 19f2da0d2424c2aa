//! Appending records and making them durable.
//!
//! Appends and syncs are separate calls so the engine can group commit: many writers
//! append one after another, then a single `fdatasync` makes all of them durable.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use parking_lot::Mutex;

use super::LogError;
use super::codec::{self, CommitRecord, FRAME_LEN};
use super::reader::{self, LogEntry, OpenReport, TailCut};

/// An open log file. Appends must be serialized by the caller (the graph's writer lock);
/// reads and syncs may happen from any thread.
pub struct CommitLog {
    path: PathBuf,
    file: File,
    /// Length of the file in bytes: where the next record starts.
    len: Mutex<u64>,
}

impl CommitLog {
    /// Opens (creating when `create` is true) the log and scans it. A torn tail found by the
    /// scan is reported, not yet cut: the caller first checks it against what else it knows
    /// (the checkpoint), then calls `cut_tail` before any append.
    pub fn open(path: &Path, create: bool) -> Result<(Self, OpenReport), LogError> {
        let existed = path.exists();
        let file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(create)
            .open(path)
            .map_err(|source| io_error(path, source))?;
        if !existed {
            // I2: a new file is durable only once its directory entry is.
            file.sync_all().map_err(|source| io_error(path, source))?;
            if let Some(parent) = path.parent() {
                sync_dir(parent)?;
            }
        }
        let report = reader::scan(path, &file, true)?;
        let log = Self {
            path: path.to_owned(),
            file,
            len: Mutex::new(report.valid_len),
        };
        Ok((log, report))
    }

    /// Opens the log for reading only, beside a process that may be appending to it: the
    /// report's entries are the records whole at this moment (a record being appended
    /// shows as a torn tail, which is left alone). `append` on it fails.
    pub fn open_read_only(path: &Path) -> Result<(Self, OpenReport), LogError> {
        let file = File::open(path).map_err(|source| io_error(path, source))?;
        let report = reader::scan(path, &file, false)?;
        let log = Self {
            path: path.to_owned(),
            file,
            len: Mutex::new(report.valid_len),
        };
        Ok((log, report))
    }

    /// Cuts the torn tail found at open. The cut bytes are kept beside the log
    /// (`<log>.cut-<offset>`) for inspection.
    pub fn cut_tail(&self, cut: &TailCut) -> Result<(), LogError> {
        let side_path = self.path.with_extension(format!("log.cut-{}", cut.offset));
        let mut tail = vec![0; usize::try_from(cut.bytes).unwrap_or(0)];
        if self.file.read_exact_at(&mut tail, cut.offset).is_ok() {
            // Keeping the cut bytes is best effort: failing to save them must not stop the
            // graph from opening.
            let _ = std::fs::write(&side_path, &tail);
        }
        self.file
            .set_len(cut.offset)
            .and_then(|()| self.file.sync_all())
            .map_err(|source| io_error(&self.path, source))
    }

    /// Writes a record at the end of the file without syncing it. On failure the file is
    /// cut back to where it was, so a half-written record never stays behind.
    pub fn append(&self, record_bytes: &[u8]) -> Result<u64, LogError> {
        let mut len = self.len.lock();
        let offset = *len;
        if let Err(source) = (&self.file).write_all(record_bytes) {
            let _ = self.file.set_len(offset);
            return Err(io_error(&self.path, source));
        }
        *len = offset + record_bytes.len() as u64;
        Ok(offset)
    }

    /// Like `append`, for a record whose quads may be in a spill file (copied in, never
    /// whole in memory).
    pub fn append_record(&self, record: &super::EncodedRecord) -> Result<u64, LogError> {
        let mut len = self.len.lock();
        let offset = *len;
        let mut out = std::io::BufWriter::with_capacity(1 << 20, &self.file);
        let written = record.write_to(&mut out).and_then(|()| out.flush());
        drop(out);
        if let Err(source) = written {
            let _ = self.file.set_len(offset);
            return Err(io_error(&self.path, source));
        }
        *len = offset + record.len();
        Ok(offset)
    }

    /// Like `append`, for a record received from a cluster's shared log (copied from its
    /// scratch file when it came in one).
    pub fn append_shared(&self, record: &super::SharedRecord) -> Result<u64, LogError> {
        let (file, record_len) = match record {
            super::SharedRecord::Memory(bytes) => return self.append(bytes),
            super::SharedRecord::Spilled { file, len } => (file, *len),
        };
        let mut len = self.len.lock();
        let offset = *len;
        let mut out = std::io::BufWriter::with_capacity(1 << 20, &self.file);
        let mut buffer = vec![0u8; 1 << 20];
        let mut at = 0u64;
        let mut copy = || -> std::io::Result<()> {
            while at < record_len {
                let n = usize::try_from((record_len - at).min(buffer.len() as u64))
                    .unwrap_or(buffer.len());
                file.read_exact_at(&mut buffer[..n], at)?;
                out.write_all(&buffer[..n])?;
                at += n as u64;
            }
            out.flush()
        };
        let written = copy();
        drop(out);
        if let Err(source) = written {
            let _ = self.file.set_len(offset);
            return Err(io_error(&self.path, source));
        }
        *len = offset + record_len;
        Ok(offset)
    }

    /// Makes every appended record durable.
    pub fn sync(&self) -> Result<(), LogError> {
        self.file
            .sync_data()
            .map_err(|source| io_error(&self.path, source))
    }

    /// Reads and decodes the full record (with its quads) of an entry found at open.
    pub fn read_record(&self, entry: &LogEntry) -> Result<CommitRecord, LogError> {
        let corruption = |reason: &str| LogError::Corruption {
            commit_seq: entry.header.commit_seq,
            offset: entry.offset,
            reason: reason.to_owned(),
        };
        let mut bytes = vec![0; usize::try_from(entry.len).map_err(|_| corruption("too long"))?];
        self.file
            .read_exact_at(&mut bytes, entry.offset)
            .map_err(|source| io_error(&self.path, source))?;
        let frame_bytes: &[u8; FRAME_LEN] = bytes[..FRAME_LEN]
            .try_into()
            .map_err(|_| corruption("short frame"))?;
        let frame = codec::decode_frame(frame_bytes).ok_or_else(|| corruption("bad frame"))?;
        codec::decode_body(&frame, &bytes[FRAME_LEN..], true)
            .ok_or_else(|| corruption("checksum mismatch"))
    }

    /// The quads of an entry's record as a stream (inflated when stored compressed), for
    /// a record too large to read whole. The caller has checked the record's CRC (the open
    /// scan does); the N-Quads parser refuses what is not N-Quads.
    pub fn quads_reader(&self, entry: &LogEntry) -> Result<Box<dyn std::io::Read + '_>, LogError> {
        let mut frame_bytes = [0u8; FRAME_LEN];
        self.file
            .read_exact_at(&mut frame_bytes, entry.offset)
            .map_err(|source| io_error(&self.path, source))?;
        let frame = codec::decode_frame(&frame_bytes).ok_or_else(|| LogError::Corruption {
            commit_seq: entry.header.commit_seq,
            offset: entry.offset,
            reason: "bad frame".into(),
        })?;
        Ok(codec::quads_reader_at(&self.file, entry.offset, &frame))
    }

    /// The log file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Syncs a directory so that entries created or renamed in it survive a crash.
pub(crate) fn sync_dir(dir: &Path) -> Result<(), LogError> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|source| io_error(dir, source))
}

pub(crate) fn io_error(path: &Path, source: std::io::Error) -> LogError {
    LogError::Io {
        path: path.display().to_string(),
        source,
    }
}
