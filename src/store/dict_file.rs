//! One immutable part of the term dictionary on disk: the terms of a contiguous id range,
//! looked up by id (an offset array) and by term (an open-addressing hash table), both
//! read in place through the file's memory map.
//!
//! Sections (see `file.rs` for the frame; meta = `[first_id, n_terms, n_slots]`):
//! 0. offsets: `n_terms + 1` little-endian u64, term `i` is `data[offsets[i]..offsets[i+1]]`
//! 1. table: `n_slots` (a power of two, at least twice `n_terms`) u32, 0 for an empty slot,
//!    else `i + 1`; a term starts probing at `fnv1a64(encoding) & (n_slots - 1)`, linearly
//! 2. data: the encoded terms (`encode_term`)
//! 3. filter (parts written since 2026-12, `meta[3]` = its number of 64-byte blocks, 0
//!    in older parts, whose readers ignore the section): a blocked Bloom filter of the
//!    terms' hashes, `FILTER_BITS` per term, so a lookup of a term that is not in the
//!    part reads one cache line instead of a table slot and, half the time, an offset
//!    and a term's bytes. An import looks every new term up in every part: without the
//!    filter those probes made every part wholly resident within seconds (2.5 GB of
//!    the 3.8 GB peak of a 200M-quad import).

use std::path::Path;
use std::str::FromStr;

use super::dict::TermId;
use super::file::{self, MappedFile};
use crate::model::{BlankNode, Literal, NamedNode, Term};

pub(crate) const MAGIC: &[u8; 8] = b"strataD1";

const NAMED: u8 = 1;
const BLANK: u8 = 2;
const SIMPLE: u8 = 3;
const LANG: u8 = 4;
const TYPED: u8 = 5;
/// Anything else (directional literals, triple terms) as N-Triples text.
const TEXT: u8 = 6;

/// Appends a term's stable binary encoding to `out`.
pub(crate) fn encode_term(term: &Term, out: &mut Vec<u8>) {
    let with_len = |out: &mut Vec<u8>, tag: u8, head: &str, tail: &str| {
        out.push(tag);
        out.extend_from_slice(&(head.len() as u32).to_le_bytes());
        out.extend_from_slice(head.as_bytes());
        out.extend_from_slice(tail.as_bytes());
    };
    match term {
        Term::NamedNode(node) => {
            out.push(NAMED);
            out.extend_from_slice(node.as_str().as_bytes());
        }
        Term::BlankNode(node) => {
            out.push(BLANK);
            out.extend_from_slice(node.as_str().as_bytes());
        }
        Term::Literal(literal) if literal.direction().is_none() => {
            if let Some(language) = literal.language() {
                with_len(out, LANG, language, literal.value());
            } else if literal.datatype() == oxrdf::vocab::xsd::STRING {
                out.push(SIMPLE);
                out.extend_from_slice(literal.value().as_bytes());
            } else {
                with_len(out, TYPED, literal.datatype().as_str(), literal.value());
            }
        }
        other => {
            out.push(TEXT);
            out.extend_from_slice(other.to_string().as_bytes());
        }
    }
}

/// What kind of term an id holds, read from its encoding's tag without decoding it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TermKind {
    NamedNode,
    BlankNode,
    Literal,
    /// A directional literal or a triple term (kept as text).
    Other,
}

fn kind_of_encoding(bytes: &[u8]) -> Option<TermKind> {
    Some(match *bytes.first()? {
        NAMED => TermKind::NamedNode,
        BLANK => TermKind::BlankNode,
        SIMPLE | LANG | TYPED => TermKind::Literal,
        _ => TermKind::Other,
    })
}

/// The term of an encoding; `None` for bytes no `encode_term` produced.
pub(crate) fn decode_term(bytes: &[u8]) -> Option<Term> {
    let (&tag, rest) = bytes.split_first()?;
    let text = |b: &[u8]| std::str::from_utf8(b).ok().map(str::to_owned);
    let split = |rest: &[u8]| -> Option<(String, String)> {
        let len = u32::from_le_bytes(rest.get(..4)?.try_into().ok()?) as usize;
        let head = rest.get(4..4usize.checked_add(len)?)?;
        Some((text(head)?, text(&rest[4 + len..])?))
    };
    Some(match tag {
        NAMED => NamedNode::new_unchecked(text(rest)?).into(),
        BLANK => BlankNode::new_unchecked(text(rest)?).into(),
        SIMPLE => Literal::new_simple_literal(text(rest)?).into(),
        LANG => {
            let (language, value) = split(rest)?;
            Literal::new_language_tagged_literal_unchecked(value, language).into()
        }
        TYPED => {
            let (datatype, value) = split(rest)?;
            Literal::new_typed_literal(value, NamedNode::new_unchecked(datatype)).into()
        }
        TEXT => Term::from_str(std::str::from_utf8(rest).ok()?).ok()?,
        _ => return None,
    })
}

/// FNV-1a, 64 bits: a hash fixed by this format (std's hashers may change between
/// releases, and the table is read by later builds).
pub(crate) fn term_hash(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &byte in bytes {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

/// Bits of the filter per term (about 1 % false positives with `FILTER_PROBES`).
const FILTER_BITS: usize = 12;
/// Bits set per term, all in one 512-bit block.
const FILTER_PROBES: u32 = 7;

/// The filter's block of a term and its bit pattern in it (`hash` = `term_hash`,
/// re-mixed: FNV-1a's low bits pick table slots, these need all of them).
fn filter_probe(hash: u64, n_blocks: usize) -> (usize, [u64; 8]) {
    let mut x = hash ^ (hash >> 31);
    x = x.wrapping_mul(0x7fb5_d329_728e_a185);
    x ^= x >> 27;
    x = x.wrapping_mul(0x81da_def4_bc2d_d44d);
    x ^= x >> 33;
    let block = ((u128::from(x) * n_blocks as u128) >> 64) as usize;
    let mut bits = [0u64; 8];
    let mut y = x.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    for _ in 0..FILTER_PROBES {
        let bit = (y >> 55) as usize; // 0..512
        bits[bit / 64] |= 1 << (bit % 64);
        y = y
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
            .wrapping_add(0x632b_e59b_d9b4_e019);
    }
    (block, bits)
}

/// A mapped dictionary part.
pub(crate) struct DictFile {
    file: MappedFile,
    first: TermId,
    n_terms: u32,
    /// Blocks of the filter (section 3); 0 in a part written without one.
    n_blocks: usize,
}

impl DictFile {
    /// Writes the terms with ids `first..first + terms.len()`.
    pub fn write(path: &Path, first: TermId, terms: &[Term]) -> std::io::Result<u64> {
        let mut data = Vec::with_capacity(terms.len() * 48);
        let mut offsets: Vec<u64> = Vec::with_capacity(terms.len() + 1);
        let slots = (terms.len() * 2).next_power_of_two().max(8);
        let mut table = vec![0u32; slots];
        let n_blocks = (terms.len() * FILTER_BITS).div_ceil(512).max(1);
        let mut filter = vec![[0u64; 8]; n_blocks];
        for (i, term) in terms.iter().enumerate() {
            offsets.push(data.len() as u64);
            let start = data.len();
            encode_term(term, &mut data);
            let hash = term_hash(&data[start..]);
            let (block, bits) = filter_probe(hash, n_blocks);
            for (word, bit) in filter[block].iter_mut().zip(bits) {
                *word |= bit;
            }
            let mut slot = hash as usize & (slots - 1);
            while table[slot] != 0 {
                slot = (slot + 1) & (slots - 1);
            }
            table[slot] = i as u32 + 1;
        }
        offsets.push(data.len() as u64);
        let meta = [
            u64::from(first),
            terms.len() as u64,
            slots as u64,
            n_blocks as u64,
            0,
            0,
            0,
            0,
        ];
        file::write_file(
            path,
            MAGIC,
            meta,
            &[
                bytemuck::cast_slice(&offsets),
                bytemuck::cast_slice(&table),
                &data,
                bytemuck::cast_slice(&filter),
            ],
        )
    }

    pub fn open(path: &Path) -> std::io::Result<Self> {
        let file = MappedFile::open(path, MAGIC)?;
        let [first, n_terms, slots, n_blocks, ..] = *file.meta();
        let bad = |what: &str| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("{}: {what}", path.display()),
            )
        };
        let (Ok(first), Ok(n_terms)) = (TermId::try_from(first), u32::try_from(n_terms)) else {
            return Err(bad("id range out of bounds"));
        };
        // Structure only: the sections' bytes are checked on their first read.
        let offsets: &[u64] = bytemuck::try_cast_slice(file.section_unchecked(0))
            .map_err(|_| bad("misaligned offsets"))?;
        let table: &[u32] = bytemuck::try_cast_slice(file.section_unchecked(1))
            .map_err(|_| bad("misaligned table"))?;
        if first == 0
            || offsets.len() != n_terms as usize + 1
            || table.len() as u64 != slots
            || !table.len().is_power_of_two()
            || offsets.last().copied() != Some(file.section_len(2) as u64)
            || file.section_len(3) as u64 != n_blocks.saturating_mul(64)
        {
            return Err(bad("inconsistent sizes"));
        }
        Ok(Self {
            file,
            first,
            n_terms,
            n_blocks: n_blocks as usize,
        })
    }

    pub fn first(&self) -> TermId {
        self.first
    }

    /// One past the last id held.
    pub fn end(&self) -> TermId {
        self.first + self.n_terms
    }

    pub fn file(&self) -> &MappedFile {
        &self.file
    }

    fn offsets(&self) -> &[u64] {
        bytemuck::try_cast_slice(self.file.section(0)).unwrap_or(&[])
    }

    fn table(&self) -> &[u32] {
        bytemuck::try_cast_slice(self.file.section(1)).unwrap_or(&[])
    }

    fn encoded(&self, index: usize) -> Option<&[u8]> {
        let offsets = self.offsets();
        let (start, end) = (*offsets.get(index)?, *offsets.get(index + 1)?);
        self.file
            .section(2)
            .get(usize::try_from(start).ok()?..usize::try_from(end).ok()?)
    }

    /// The term with this id (which the caller knows is in range).
    pub fn term(&self, id: TermId) -> Option<Term> {
        decode_term(self.encoded(id.checked_sub(self.first)? as usize)?)
    }

    /// The kind of the term with this id (which the caller knows is in range).
    pub fn kind(&self, id: TermId) -> Option<TermKind> {
        kind_of_encoding(self.encoded(id.checked_sub(self.first)? as usize)?)
    }

    /// The id of an encoded term, given its `term_hash`.
    pub fn find(&self, encoded: &[u8], hash: u64) -> Option<TermId> {
        if self.n_blocks > 0 {
            let (block, bits) = filter_probe(hash, self.n_blocks);
            // A filter that cannot be read is skipped, never taken for "absent" (a term
            // wrongly absent would get a second id).
            if let Ok(filter) = bytemuck::try_cast_slice::<u8, [u64; 8]>(self.file.section(3))
                && let Some(words) = filter.get(block)
                && words.iter().zip(bits).any(|(word, bit)| word & bit != bit)
            {
                return None;
            }
        }
        let table = self.table();
        let mask = table.len().checked_sub(1)?;
        let mut slot = hash as usize & mask;
        for _ in 0..table.len() {
            let entry = table[slot];
            if entry == 0 {
                return None;
            }
            let index = (entry - 1) as usize;
            if self.encoded(index) == Some(encoded) {
                return Some(self.first + index as u32);
            }
            slot = (slot + 1) & mask;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Triple;

    #[test]
    fn the_filter_finds_every_term_and_turns_most_others_away() {
        let term = |i: usize| -> Term { NamedNode::new_unchecked(format!("http://e/t{i}")).into() };
        let terms: Vec<Term> = (0..20_000).map(term).collect();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d");
        DictFile::write(&path, 1, &terms).unwrap();
        let file = DictFile::open(&path).unwrap();
        assert_eq!(file.n_blocks, 20_000 * FILTER_BITS / 512 + 1);
        let encoded = |t: &Term| {
            let mut out = Vec::new();
            encode_term(t, &mut out);
            out
        };
        for (i, t) in terms.iter().enumerate() {
            let e = encoded(t);
            assert_eq!(file.find(&e, term_hash(&e)), Some(1 + i as u32));
        }
        let (mut passed, n) = (0, 20_000);
        for i in 20_000..20_000 + n {
            let e = encoded(&term(i));
            let (block, bits) = filter_probe(term_hash(&e), file.n_blocks);
            let filter: &[[u64; 8]] = bytemuck::cast_slice(file.file.section(3));
            if filter[block].iter().zip(bits).all(|(w, b)| w & b == b) {
                passed += 1;
            }
            assert_eq!(file.find(&e, term_hash(&e)), None);
        }
        // About 1 % expected; far more would mean the filter does not filter.
        assert!(
            passed < n / 40,
            "{passed} of {n} absent terms passed the filter"
        );
    }

    #[test]
    fn every_kind_of_term_round_trips_and_is_found() {
        let terms: Vec<Term> = vec![
            NamedNode::new_unchecked("http://e/a").into(),
            BlankNode::new_unchecked("b0").into(),
            Literal::new_simple_literal("plain \"quoted\"\n").into(),
            Literal::new_language_tagged_literal_unchecked("chat", "fr").into(),
            Literal::new_typed_literal(
                "42",
                NamedNode::new_unchecked("http://www.w3.org/2001/XMLSchema#integer"),
            )
            .into(),
            Literal::new_directional_language_tagged_literal_unchecked(
                "x",
                "ar",
                oxrdf::BaseDirection::Rtl,
            )
            .into(),
            Triple::new(
                NamedNode::new_unchecked("http://e/s"),
                NamedNode::new_unchecked("http://e/p"),
                Literal::new_simple_literal("o"),
            )
            .into(),
        ];
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d");
        DictFile::write(&path, 5, &terms).unwrap();
        let file = DictFile::open(&path).unwrap();
        assert_eq!((file.first(), file.end()), (5, 12));
        for (i, term) in terms.iter().enumerate() {
            let id = 5 + i as u32;
            assert_eq!(file.term(id).as_ref(), Some(term));
            let mut encoded = Vec::new();
            encode_term(term, &mut encoded);
            assert_eq!(file.find(&encoded, term_hash(&encoded)), Some(id));
        }
        let mut other = Vec::new();
        encode_term(&NamedNode::new_unchecked("http://e/zz").into(), &mut other);
        assert_eq!(file.find(&other, term_hash(&other)), None);
        assert_eq!(decode_term(&[99, 1, 2]), None);
        assert_eq!(decode_term(&[LANG, 200, 0, 0, 0, b'a']), None);
    }
}
