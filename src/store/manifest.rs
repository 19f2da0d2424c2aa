//! The manifest: which files make up a graph's store and which commit they cover.
//!
//! Written atomically (new file, fsync, rename over the old one, fsync the directory), so
//! after a crash it names either the old set of files or the new one, each complete
//! (files are fsynced before a manifest names them). Files in the directory that the
//! manifest does not name are leftovers of an interrupted flush or compaction, or files a
//! compaction replaced. Text, version 1:
//!
//! ```text
//! strata-manifest 1
//! commit <seq> <hash hex>          the newest commit the files hold
//! next-file <n>                    the number the next new file gets
//! dict <name> <first id> <end id>  one line per dictionary part, ascending
//! segment <name> <from> <to>       one line per segment file, oldest first
//! crc <crc32 of every byte above, 8 hex digits>
//! ```

use std::fs::File;
use std::io::Write;
use std::path::Path;

use super::dict::TermId;
use super::file::sync_dir;
use crate::model::{CommitHash, CommitSeq};

pub const MANIFEST_FILE: &str = "MANIFEST";
const HEADER: &str = "strata-manifest 1";

/// One dictionary part named by a manifest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DictEntry {
    pub name: String,
    pub first: TermId,
    pub end: TermId,
}

/// One segment file named by a manifest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SegmentEntry {
    pub name: String,
    pub from_seq: CommitSeq,
    pub to_seq: CommitSeq,
}

/// A manifest's content.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Manifest {
    pub commit_seq: CommitSeq,
    pub hash: CommitHash,
    pub next_file: u64,
    pub dicts: Vec<DictEntry>,
    pub segments: Vec<SegmentEntry>,
}

impl Manifest {
    pub fn empty() -> Self {
        Self {
            commit_seq: 0,
            hash: CommitHash::ZERO,
            next_file: 1,
            dicts: Vec::new(),
            segments: Vec::new(),
        }
    }

    /// Every file it names.
    pub fn files(&self) -> impl Iterator<Item = &str> {
        self.dicts
            .iter()
            .map(|d| d.name.as_str())
            .chain(self.segments.iter().map(|s| s.name.as_str()))
    }

    fn encode(&self) -> String {
        let mut text = format!(
            "{HEADER}\ncommit {} {}\nnext-file {}\n",
            self.commit_seq,
            self.hash.to_hex(),
            self.next_file
        );
        for dict in &self.dicts {
            text.push_str(&format!("dict {} {} {}\n", dict.name, dict.first, dict.end));
        }
        for segment in &self.segments {
            text.push_str(&format!(
                "segment {} {} {}\n",
                segment.name, segment.from_seq, segment.to_seq
            ));
        }
        let crc = crc32fast::hash(text.as_bytes());
        text.push_str(&format!("crc {crc:08x}\n"));
        text
    }

    fn decode(text: &str) -> Result<Self, String> {
        let body_end = text
            .rfind("crc ")
            .ok_or("no crc line (torn or not a manifest)")?;
        let (body, crc_line) = text.split_at(body_end);
        let stored = u32::from_str_radix(crc_line.trim_start_matches("crc ").trim_end(), 16)
            .map_err(|_| "unreadable crc line")?;
        if crc32fast::hash(body.as_bytes()) != stored {
            return Err("checksum mismatch".into());
        }
        let mut lines = body.lines();
        if lines.next() != Some(HEADER) {
            return Err("unknown manifest version".into());
        }
        let mut manifest = Self::empty();
        for line in lines {
            let fields: Vec<&str> = line.split(' ').collect();
            let number = |i: usize| -> Result<u64, String> {
                fields
                    .get(i)
                    .and_then(|f| f.parse().ok())
                    .ok_or_else(|| format!("bad line {line:?}"))
            };
            let name = |i: usize| -> Result<String, String> {
                let name = fields.get(i).ok_or_else(|| format!("bad line {line:?}"))?;
                if name.is_empty() || name.contains(['/', '\\']) || name.starts_with('.') {
                    return Err(format!("bad file name {name:?}"));
                }
                Ok((*name).to_owned())
            };
            match fields.first().copied() {
                Some("commit") => {
                    manifest.commit_seq = number(1)?;
                    manifest.hash = fields
                        .get(2)
                        .and_then(|h| CommitHash::from_hex(h))
                        .ok_or_else(|| format!("bad hash in {line:?}"))?;
                }
                Some("next-file") => manifest.next_file = number(1)?,
                Some("dict") => manifest.dicts.push(DictEntry {
                    name: name(1)?,
                    first: TermId::try_from(number(2)?).map_err(|e| e.to_string())?,
                    end: TermId::try_from(number(3)?).map_err(|e| e.to_string())?,
                }),
                Some("segment") => manifest.segments.push(SegmentEntry {
                    name: name(1)?,
                    from_seq: number(2)?,
                    to_seq: number(3)?,
                }),
                _ => return Err(format!("unknown line {line:?}")),
            }
        }
        Ok(manifest)
    }

    /// Reads the manifest of a store directory; `Ok(None)` when there is none.
    pub fn read(dir: &Path) -> std::io::Result<Option<Self>> {
        let path = dir.join(MANIFEST_FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        Self::decode(&text).map(Some).map_err(|reason| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("{}: {reason}", path.display()),
            )
        })
    }

    /// Replaces the manifest of `dir` atomically.
    pub fn write(&self, dir: &Path) -> std::io::Result<()> {
        let tmp = dir.join(format!("{MANIFEST_FILE}.tmp"));
        let mut file = File::create(&tmp)?;
        file.write_all(self.encode().as_bytes())?;
        file.sync_all()?;
        drop(file);
        std::fs::rename(&tmp, dir.join(MANIFEST_FILE))?;
        sync_dir(dir)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manifest_round_trips_and_damage_is_refused() {
        let manifest = Manifest {
            commit_seq: 42,
            hash: CommitHash([7; 32]),
            next_file: 9,
            dicts: vec![DictEntry {
                name: "00000001.dict".into(),
                first: 1,
                end: 100,
            }],
            segments: vec![SegmentEntry {
                name: "00000002.seg".into(),
                from_seq: 0,
                to_seq: 42,
            }],
        };
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(Manifest::read(dir.path()).unwrap(), None);
        manifest.write(dir.path()).unwrap();
        assert_eq!(Manifest::read(dir.path()).unwrap(), Some(manifest.clone()));
        let text = manifest.encode();
        for cut in [0, 10, text.len() - 3] {
            assert!(Manifest::decode(&text[..cut]).is_err(), "cut at {cut}");
        }
        let bad = text.replace("commit 42", "commit 43");
        assert!(Manifest::decode(&bad).is_err());
        let escape = Manifest {
            segments: vec![SegmentEntry {
                name: "../x".into(),
                from_seq: 0,
                to_seq: 1,
            }],
            ..manifest
        };
        assert!(Manifest::decode(&escape.encode()).is_err());
    }
}
