//! BERT uncased WordPiece tokenizer, matching Hugging Face `tokenizers`' `BertNormalizer`
//! (clean_text, handle_chinese_chars, strip_accents, lowercase) + `BertPreTokenizer` + `WordPiece`.
//!
//! The text flows through one lazy character pipeline (clean → pad CJK → NFD → drop Mn →
//! lowercase) into a word splitter, so a huge input costs only as much work as the tokens kept.

use std::collections::HashMap;
use std::path::Path;

use unicode_normalization::UnicodeNormalization;

use super::error::EmbedError;
use super::unicode_tables::{NONSPACING_MARK, OTHER, PUNCTUATION, in_table};

/// Words longer than this many characters become a single `[UNK]` (as in BERT).
const MAX_CHARS_PER_WORD: usize = 100;

/// A WordPiece vocabulary plus the BERT basic-tokenizer rules in front of it.
#[derive(Debug, Clone)]
pub struct WordPiece {
    /// Pieces that may start a word, e.g. `play`.
    word_start_ids: HashMap<Box<str>, u32>,
    /// Continuation pieces stored without their `##` prefix, e.g. `##ing` is stored as `ing`;
    /// keeping them apart lets lookups borrow a slice of the word instead of building a string.
    continuation_ids: HashMap<Box<str>, u32>,
    /// Longest piece in bytes, which bounds the greedy search.
    longest_piece_bytes: usize,
    vocab_size: usize,
    cls_id: u32,
    sep_id: u32,
    unk_id: u32,
}

impl WordPiece {
    /// Reads a `vocab.txt` (one token per line; the line number is the id).
    pub fn from_vocab_file(path: &Path) -> Result<Self, EmbedError> {
        let text = std::fs::read_to_string(path).map_err(|source| EmbedError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Self::from_vocab_text(&text).map_err(|reason| EmbedError::BadFile {
            path: path.to_path_buf(),
            reason,
        })
    }

    /// Builds the tokenizer from the contents of a `vocab.txt`.
    pub fn from_vocab_text(text: &str) -> Result<Self, String> {
        let mut word_start_ids = HashMap::new();
        let mut continuation_ids = HashMap::new();
        let mut longest_piece_bytes = 0;
        let mut vocab_size = 0;
        for (index, line) in text.lines().enumerate() {
            let id = u32::try_from(index).map_err(|_| "vocabulary too large".to_string())?;
            let token = line.trim_end_matches('\r');
            vocab_size = index + 1;
            if token.is_empty() {
                continue;
            }
            // Later duplicates do not override the first id, as in HF's vocab loading.
            match token.strip_prefix("##") {
                Some(rest) if !rest.is_empty() => {
                    continuation_ids.entry(rest.into()).or_insert(id);
                    longest_piece_bytes = longest_piece_bytes.max(rest.len());
                }
                _ => {
                    word_start_ids.entry(token.into()).or_insert(id);
                    longest_piece_bytes = longest_piece_bytes.max(token.len());
                }
            }
        }
        let special = |name: &str| {
            word_start_ids
                .get(name)
                .copied()
                .ok_or_else(|| format!("vocabulary lacks the special token {name}"))
        };
        Ok(Self {
            cls_id: special("[CLS]")?,
            sep_id: special("[SEP]")?,
            unk_id: special("[UNK]")?,
            word_start_ids,
            continuation_ids,
            longest_piece_bytes,
            vocab_size,
        })
    }

    /// Number of lines (ids) in the vocabulary.
    pub fn vocab_size(&self) -> usize {
        self.vocab_size
    }

    /// Token ids `[CLS] pieces… [SEP]`, truncated to `max_len` ids in total (pieces are cut, the
    /// two special tokens are always kept, so the result has at least 2 ids even if `max_len < 2`).
    pub fn encode(&self, text: &str, max_len: usize) -> Vec<u32> {
        let max_pieces = max_len.saturating_sub(2);
        let mut ids = Vec::with_capacity(max_len.clamp(2, 64));
        ids.push(self.cls_id);
        self.push_pieces(text, max_pieces, &mut ids);
        ids.push(self.sep_id);
        ids
    }

    /// Appends up to `max_pieces` WordPiece ids of `text` to `ids`.
    fn push_pieces(&self, text: &str, max_pieces: usize, ids: &mut Vec<u32>) {
        if max_pieces == 0 {
            return;
        }
        let limit = ids.len() + max_pieces;
        let mut word = String::new();
        let mut word_chars = 0;
        for c in normalized_chars(text) {
            if c.is_whitespace() || is_punctuation(c) || is_cjk_ideograph(c) {
                // A CJK ideograph was padded with spaces by BERT; treating it as a one-character
                // word here is the same split.
                self.push_word_pieces(&word, ids);
                word.clear();
                word_chars = 0;
                if !c.is_whitespace() {
                    let mut single = [0u8; 4];
                    self.push_word_pieces(c.encode_utf8(&mut single), ids);
                }
                if ids.len() >= limit {
                    break;
                }
            } else if word_chars <= MAX_CHARS_PER_WORD {
                // One char past the limit is enough to make the word [UNK]; keep no more, so a
                // gigantic unbroken "word" does not grow the buffer.
                word.push(c);
                word_chars += 1;
            }
        }
        self.push_word_pieces(&word, ids);
        ids.truncate(limit);
    }

    /// Greedy longest-match-first WordPiece over one word; an unsplittable word is one `[UNK]`.
    fn push_word_pieces(&self, word: &str, ids: &mut Vec<u32>) {
        if word.is_empty() {
            return;
        }
        if word.chars().count() > MAX_CHARS_PER_WORD {
            ids.push(self.unk_id);
            return;
        }
        let first_piece = ids.len();
        let mut start = 0;
        while start < word.len() {
            let table = if start == 0 {
                &self.word_start_ids
            } else {
                &self.continuation_ids
            };
            let mut end = word.len().min(start + self.longest_piece_bytes);
            let mut found = None;
            while end > start {
                if word.is_char_boundary(end)
                    && let Some(&id) = table.get(&word[start..end])
                {
                    found = Some(id);
                    break;
                }
                end -= 1;
            }
            match found {
                Some(id) => {
                    ids.push(id);
                    start = end;
                }
                None => {
                    ids.truncate(first_piece);
                    ids.push(self.unk_id);
                    return;
                }
            }
        }
    }
}

/// BERT normalisation as a lazy char stream: drop NUL/U+FFFD/control chars, map whitespace to a
/// space, pad CJK ideographs with spaces, NFD, drop nonspacing marks (accents), lowercase.
fn normalized_chars(text: &str) -> impl Iterator<Item = char> + '_ {
    text.chars()
        .filter(|&c| !(c == '\0' || c == '\u{FFFD}' || is_control(c)))
        .map(|c| if is_bert_whitespace(c) { ' ' } else { c })
        .nfd()
        .filter(|&c| !in_table(NONSPACING_MARK, c))
        .flat_map(char::to_lowercase)
}

/// BERT counts tab, newline and carriage return as whitespace, not control characters.
fn is_bert_whitespace(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r') || c.is_whitespace()
}

/// Any General_Category C* character except tab, newline and carriage return. Note that this
/// runs before the whitespace mapping, so e.g. form feed and U+0085 are dropped, as in BERT.
fn is_control(c: char) -> bool {
    !matches!(c, '\t' | '\n' | '\r') && in_table(OTHER, c)
}

/// ASCII punctuation (which includes symbols such as `$`, `+`, `^`) or Unicode P*.
fn is_punctuation(c: char) -> bool {
    c.is_ascii_punctuation() || (!c.is_ascii() && in_table(PUNCTUATION, c))
}

/// The CJK blocks BERT isolates as single-character words. BERT checks before NFD and we check
/// after it; the only ideographs NFD changes (compatibility ideographs) map into these blocks.
fn is_cjk_ideograph(c: char) -> bool {
    matches!(
        c as u32,
        0x4E00..=0x9FFF
            | 0x3400..=0x4DBF
            | 0x20000..=0x2A6DF
            | 0x2A700..=0x2B73F
            | 0x2B740..=0x2B81F
            | 0x2B820..=0x2CEAF
            | 0xF900..=0xFAFF
            | 0x2F800..=0x2FA1F
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tiny vocabulary with BERT's special tokens at their usual ids.
    fn toy() -> WordPiece {
        let mut lines: Vec<String> = vec!["[PAD]".into()];
        lines.extend((0..99).map(|i| format!("[unused{i}]")));
        lines.extend(["[UNK]", "[CLS]", "[SEP]", "[MASK]"].map(String::from));
        lines.extend(
            [
                "hello", "world", "un", "##aff", "##able", "cafe", "naive", "resume", ",", "!",
                ".", "'", "$", "日", "本", "a", "##b", "b", "x", "##x", "-",
            ]
            .map(String::from),
        );
        WordPiece::from_vocab_text(&lines.join("\n")).unwrap()
    }

    fn pieces(wp: &WordPiece, text: &str) -> Vec<String> {
        let names: HashMap<u32, String> = wp
            .word_start_ids
            .iter()
            .map(|(k, &v)| (v, k.to_string()))
            .chain(
                wp.continuation_ids
                    .iter()
                    .map(|(k, &v)| (v, format!("##{k}"))),
            )
            .collect();
        wp.encode(text, 512)
            .iter()
            .map(|id| names[id].clone())
            .collect()
    }

    #[test]
    fn special_ids_are_bert_ids() {
        let wp = toy();
        assert_eq!((wp.unk_id, wp.cls_id, wp.sep_id), (100, 101, 102));
    }

    #[test]
    fn empty_and_blank_text_is_cls_sep() {
        let wp = toy();
        assert_eq!(wp.encode("", 256), vec![101, 102]);
        assert_eq!(wp.encode(" \t\n\u{2028}\u{0}\u{FFFD}", 256), vec![101, 102]);
    }

    #[test]
    fn greedy_longest_match_with_continuations() {
        let wp = toy();
        assert_eq!(
            pieces(&wp, "unaffable"),
            ["[CLS]", "un", "##aff", "##able", "[SEP]"]
        );
        // "unaffz" cannot be completed, so the whole word is [UNK], not a partial split.
        assert_eq!(
            pieces(&wp, "unaffz hello"),
            ["[CLS]", "[UNK]", "hello", "[SEP]"]
        );
    }

    #[test]
    fn lowercases_and_strips_accents() {
        let wp = toy();
        assert_eq!(
            pieces(&wp, "Café NAÏVE Résumé"),
            ["[CLS]", "cafe", "naive", "resume", "[SEP]"]
        );
        // Already-decomposed input (e + U+0301) gives the same result.
        assert_eq!(pieces(&wp, "Cafe\u{301}"), ["[CLS]", "cafe", "[SEP]"]);
    }

    #[test]
    fn splits_punctuation_including_ascii_symbols() {
        let wp = toy();
        assert_eq!(
            pieces(&wp, "hello,world!$"),
            ["[CLS]", "hello", ",", "world", "!", "$", "[SEP]"]
        );
        assert_eq!(pieces(&wp, "a-b"), ["[CLS]", "a", "-", "b", "[SEP]"]);
        // Unicode punctuation (em dash, U+2014) is split off; it is not in the toy vocab.
        assert_eq!(
            pieces(&wp, "hello—world"),
            ["[CLS]", "hello", "[UNK]", "world", "[SEP]"]
        );
    }

    #[test]
    fn cjk_ideographs_are_single_words() {
        let wp = toy();
        assert_eq!(
            pieces(&wp, "hello日本world"),
            ["[CLS]", "hello", "日", "本", "world", "[SEP]"]
        );
    }

    #[test]
    fn unicode_line_separators_are_whitespace_and_controls_vanish() {
        let wp = toy();
        assert_eq!(
            pieces(&wp, "hello\u{2028}world"),
            ["[CLS]", "hello", "world", "[SEP]"]
        );
        assert_eq!(
            pieces(&wp, "hello\u{2029}world"),
            ["[CLS]", "hello", "world", "[SEP]"]
        );
        // Controls (and soft hyphen, a format char) are removed, joining the word.
        assert_eq!(
            pieces(&wp, "hel\u{7}lo wor\u{AD}ld"),
            ["[CLS]", "hello", "world", "[SEP]"]
        );
        // Form feed is a control in BERT's order of checks: removed, not a space.
        assert_eq!(pieces(&wp, "a\u{C}b"), ["[CLS]", "a", "##b", "[SEP]"]);
    }

    #[test]
    fn very_long_words_become_unk() {
        let wp = toy();
        let hundred = "x".repeat(100);
        assert_eq!(wp.encode(&hundred, 512).len(), 2 + 100);
        let long = "x".repeat(101);
        assert_eq!(pieces(&wp, &long), ["[CLS]", "[UNK]", "[SEP]"]);
    }

    #[test]
    fn truncates_to_max_len_keeping_specials() {
        let wp = toy();
        let text = "hello ".repeat(10_000);
        let ids = wp.encode(&text, 256);
        assert_eq!(ids.len(), 256);
        assert_eq!((ids[0], ids[255]), (101, 102));
        assert_eq!(wp.encode(&text, 0), vec![101, 102]);
        assert_eq!(wp.encode(&text, 3).len(), 3);
        // A word's pieces may be cut in the middle, as in HF truncation.
        assert_eq!(pieces(&wp, "unaffable").len(), 5);
        assert_eq!(wp.encode("unaffable", 4).len(), 4);
    }

    #[test]
    fn arbitrary_unicode_never_panics() {
        let wp = toy();
        let nasty = "🚀\u{10FFFF}\u{E000}\u{200B}\u{0301}\u{0301}İﬁ\u{1F1FA}\u{1F1F8}Σ\u{FEFF}\r\n";
        let ids = wp.encode(&nasty.repeat(50), 256);
        assert!(ids.len() <= 256 && ids.len() >= 2);
    }
}
