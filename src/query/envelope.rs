//! The response envelope of read tools, detail budgets, and tamper-evident cursors.
//!
//! A cursor pins everything page 1 was computed from (query, graph, commit) plus the
//! position, and is sealed with an HMAC under a per-server key: a client cannot edit it,
//! and reusing it with other arguments is detected (`cursor_mismatch`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::error::{ApiError, ErrorCode};

/// What every read tool returns as `structuredContent` (and as text).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Envelope {
    /// One line a model can quote, naming the commit read.
    pub summary: String,
    /// The answer itself.
    pub data: serde_json::Value,
    /// The commit this answer was read at (for writes: the head after the write).
    pub served_at_seq: u64,
    /// How many items the page holds and where it starts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counts: Option<serde_json::Value>,
    /// True when rows or strings were cut to fit the budget (see `next` and `notes`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub truncated: Option<bool>,
    /// The exact arguments of the call that returns the next page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next: Option<serde_json::Value>,
    /// Remarks on the answer (what was cut, what was normalised).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<Vec<String>>,
}

impl Envelope {
    pub fn new(summary: impl Into<String>, data: serde_json::Value, served_at_seq: u64) -> Self {
        Self {
            summary: summary.into(),
            data,
            served_at_seq,
            counts: None,
            truncated: None,
            next: None,
            notes: None,
        }
    }

    pub fn note(mut self, note: impl Into<String>) -> Self {
        self.notes.get_or_insert_with(Vec::new).push(note.into());
        self
    }
}

/// How much a read returns.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Detail {
    /// 20 rows, strings cut at 300 characters (the default).
    #[default]
    Compact,
    /// 100 rows, strings cut at 1,000 characters.
    Standard,
    /// 1,000 rows, strings cut at 5,000 characters.
    Full,
}

/// Row, string and byte budgets of a page.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    pub rows: usize,
    pub string_chars: usize,
    pub bytes: usize,
}

/// No page exceeds this many bytes of JSON, whatever the detail.
pub const PAGE_BYTES: usize = 80 * 1024;

impl Detail {
    pub fn budget(self) -> Budget {
        let (rows, string_chars) = match self {
            Detail::Compact => (20, 300),
            Detail::Standard => (100, 1000),
            Detail::Full => (1000, 5000),
        };
        Budget {
            rows,
            string_chars,
            bytes: PAGE_BYTES,
        }
    }
}

/// Cuts a string at `max` characters (never inside a character); returns whether it cut.
pub fn cut(text: &str, max: usize) -> (String, bool) {
    match text.char_indices().nth(max) {
        None => (text.to_owned(), false),
        Some((end, _)) => (format!("{}…", &text[..end]), true),
    }
}

/// What a cursor pins.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CursorState {
    /// The tool and mode that made it (`query.sparql`, `inspect.log`, …).
    pub kind: String,
    pub graph: String,
    /// Digest of the arguments that define the result (query text, entity, …).
    pub args: String,
    pub seq: u64,
    pub position: u64,
}

/// Seals and opens cursors with an HMAC-SHA256 key.
#[derive(Clone)]
pub struct CursorCodec {
    key: [u8; 32],
}

impl CursorCodec {
    pub fn new(key: [u8; 32]) -> Self {
        Self { key }
    }

    /// A fresh random key (cursors then live as long as the server process).
    pub fn random() -> Self {
        let mut key = [0u8; 32];
        let filled = std::fs::File::open("/dev/urandom")
            .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut key));
        if filled.is_err() {
            // Without randomness, a key derived from time and process still changes per
            // run; cursors stay tamper-evident against clients that cannot see it.
            let seed = format!("{:?}{}", std::time::SystemTime::now(), std::process::id());
            key = Sha256::digest(seed.as_bytes()).into();
        }
        Self { key }
    }

    /// The key stored in `path` (created with a random key, readable only by its owner,
    /// when missing), so cursors stay valid across server restarts. Falls back to a
    /// process-lifetime key when the file cannot be used.
    pub fn persistent(path: &std::path::Path) -> Self {
        if let Ok(bytes) = std::fs::read(path)
            && let Ok(key) = <[u8; 32]>::try_from(bytes.as_slice())
        {
            return Self { key };
        }
        let codec = Self::random();
        let written = {
            use std::io::Write;
            use std::os::unix::fs::OpenOptionsExt;
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(path)
                .and_then(|mut file| file.write_all(&codec.key).and_then(|()| file.sync_all()))
        };
        match written {
            Ok(()) => codec,
            // Another process may have created it first: use its key if it is whole.
            Err(_) => match std::fs::read(path)
                .ok()
                .and_then(|b| <[u8; 32]>::try_from(b.as_slice()).ok())
            {
                Some(key) => Self { key },
                None => codec,
            },
        }
    }

    pub fn seal(&self, state: &CursorState) -> String {
        let body = serde_json::to_vec(state).unwrap_or_default();
        let tag = self.tag(&body);
        format!("{}.{}", hex(&body), hex(&tag[..16]))
    }

    /// Opens a cursor made by `seal` and checks it was made for `kind`, `graph`, `args`.
    pub fn open(
        &self,
        cursor: &str,
        kind: &str,
        graph: &str,
        args: &str,
    ) -> Result<CursorState, ApiError> {
        let mismatch = |message: &str| ApiError {
            code: ErrorCode::CursorMismatch,
            message: message.to_owned(),
            param: Some("cursor".into()),
            validation: None,
        };
        let (body_hex, tag_hex) = cursor
            .split_once('.')
            .ok_or_else(|| mismatch("not a cursor from this server"))?;
        let body = unhex(body_hex).ok_or_else(|| mismatch("not a cursor from this server"))?;
        let tag = unhex(tag_hex).ok_or_else(|| mismatch("not a cursor from this server"))?;
        let expected = self.tag(&body);
        let same = tag.len() == 16
            && tag
                .iter()
                .zip(&expected[..16])
                .fold(0u8, |acc, (a, b)| acc | (a ^ b))
                == 0;
        if !same {
            return Err(mismatch(
                "the cursor was altered or made by another server process",
            ));
        }
        let state: CursorState =
            serde_json::from_slice(&body).map_err(|_| mismatch("not a cursor from this server"))?;
        if state.kind != kind || state.graph != graph || state.args != args {
            return Err(mismatch(
                "the cursor belongs to another call: pass the exact arguments from `next`",
            ));
        }
        Ok(state)
    }

    fn tag(&self, message: &[u8]) -> [u8; 32] {
        // HMAC-SHA256 (RFC 2104), written out: the block size of SHA-256 is 64 bytes.
        let mut inner_key = [0x36u8; 64];
        let mut outer_key = [0x5cu8; 64];
        for (i, byte) in self.key.iter().enumerate() {
            inner_key[i] ^= byte;
            outer_key[i] ^= byte;
        }
        let inner = Sha256::new()
            .chain_update(inner_key)
            .chain_update(message)
            .finalize();
        Sha256::new()
            .chain_update(outer_key)
            .chain_update(inner)
            .finalize()
            .into()
    }
}

/// A short digest of arguments, for `CursorState::args`.
pub fn args_digest(parts: &[&str]) -> String {
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update((part.len() as u64).to_le_bytes());
        hasher.update(part.as_bytes());
    }
    hex(&hasher.finalize()[..12])
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hmac_matches_rfc_4231_test_case_2() {
        // Key "Jefe" padded to 32 bytes behaves as "Jefe" (HMAC zero-pads short keys).
        let mut key = [0u8; 32];
        key[..4].copy_from_slice(b"Jefe");
        let tag = CursorCodec::new(key).tag(b"what do ya want for nothing?");
        assert_eq!(
            hex(&tag),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    #[test]
    fn cursors_round_trip_and_reject_tampering_and_other_arguments() {
        let codec = CursorCodec::new([7; 32]);
        let state = CursorState {
            kind: "query.sparql".into(),
            graph: "main".into(),
            args: args_digest(&["SELECT * {}"]),
            seq: 4,
            position: 20,
        };
        let cursor = codec.seal(&state);
        assert_eq!(
            codec
                .open(&cursor, "query.sparql", "main", &state.args)
                .unwrap(),
            state
        );
        assert!(
            codec
                .open(&cursor, "query.sparql", "other", &state.args)
                .is_err()
        );
        assert!(
            codec
                .open(&cursor, "query.sparql", "main", "different")
                .is_err()
        );
        let mut tampered = cursor.clone().into_bytes();
        tampered[3] = if tampered[3] == b'0' { b'1' } else { b'0' };
        assert!(
            codec
                .open(
                    &String::from_utf8(tampered).unwrap(),
                    "query.sparql",
                    "main",
                    &state.args
                )
                .is_err()
        );
        assert!(
            CursorCodec::new([8; 32])
                .open(&cursor, "query.sparql", "main", &state.args)
                .is_err()
        );
        assert!(
            codec
                .open("garbage", "query.sparql", "main", &state.args)
                .is_err()
        );
    }

    #[test]
    fn a_persistent_key_outlives_the_process_that_made_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cursor.key");
        let state = CursorState {
            kind: "query.sparql".into(),
            graph: "main".into(),
            args: "a".into(),
            seq: 1,
            position: 20,
        };
        let cursor = CursorCodec::persistent(&path).seal(&state);
        let reopened = CursorCodec::persistent(&path);
        assert_eq!(
            reopened.open(&cursor, "query.sparql", "main", "a").unwrap(),
            state
        );
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 32);
        assert!(
            CursorCodec::random()
                .open(&cursor, "query.sparql", "main", "a")
                .is_err()
        );
    }

    #[test]
    fn strings_are_cut_on_character_boundaries() {
        assert_eq!(cut("héllo", 2), ("hé…".to_owned(), true));
        assert_eq!(cut("hé", 2), ("hé".to_owned(), false));
    }
}
