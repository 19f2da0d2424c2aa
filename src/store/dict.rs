//! The term dictionary: every RDF term the store holds gets a dense `TermId`.
//!
//! Ids are handed out in order and never reused, so a snapshot can remember how many
//! terms existed when it was taken and treat newer ids as unknown (see `Snapshot`).
//!
//! The oldest ids live in immutable files (`dict_file.rs`, read through memory maps);
//! terms interned since the last flush live in memory until the next flush writes them
//! to a new file (`pending`, then `install`).

use std::cell::RefCell;
use std::hash::BuildHasher;
use std::sync::Arc;

use hashbrown::HashTable;
use parking_lot::RwLock;
use rustc_hash::FxBuildHasher;

use std::fmt::Write as _;

use super::dict_file::{DictFile, TermKind, encode_term, term_hash};
use super::segment::QuadKey;
use crate::model::{NamedOrBlankNode, Quad, RdfGraphName, Term};

/// The hash the in-memory index keys a term by (what `Dict::intern_hashed_terms` expects).
pub fn term_hash_in_memory(term: &Term) -> u64 {
    FxBuildHasher.hash_one(term)
}

/// A dense term identifier. `DEFAULT_GRAPH` (0) stands for the default graph.
pub type TermId = u32;

/// The graph position of a quad in the default graph.
pub const DEFAULT_GRAPH: TermId = 0;

/// Term ↔ id, append-only.
pub struct Dict {
    inner: RwLock<DictInner>,
}

struct DictInner {
    /// Immutable parts, ascending and contiguous from id 1.
    files: Vec<Arc<DictFile>>,
    /// The first id held in memory (every smaller id is in `files`).
    mem_first: TermId,
    /// `terms[i]` is the term with id `mem_first + i`.
    terms: Vec<Term>,
    /// Ids of the in-memory terms keyed by the hash of their term.
    index: HashTable<TermId>,
}

impl Default for Dict {
    fn default() -> Self {
        Self::from_files(Vec::new())
    }
}

thread_local! {
    /// The encoding of the term being looked up in the files (no allocation per lookup).
    static ENCODED: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

impl Dict {
    /// A dictionary whose first ids are in these files (ascending, contiguous from 1).
    pub(crate) fn from_files(files: Vec<Arc<DictFile>>) -> Self {
        let mem_first = files.last().map_or(1, |f| f.end());
        Self {
            inner: RwLock::new(DictInner {
                files,
                mem_first,
                terms: Vec::new(),
                index: HashTable::new(),
            }),
        }
    }

    /// Drops the resident pages of every dictionary part (see `MappedFile::release_pages`).
    pub fn release_pages(&self) {
        for file in &self.inner.read().files {
            file.file().release_pages();
        }
    }

    /// The id of a known term.
    pub fn lookup(&self, term: &Term) -> Option<TermId> {
        let inner = self.inner.read();
        inner.find(term)
    }

    /// The id of a term, adding it when it is new.
    pub fn intern(&self, term: &Term) -> TermId {
        if let Some(id) = self.lookup(term) {
            return id;
        }
        let mut inner = self.inner.write();
        inner.intern(term)
    }

    /// Interns a quad's terms, moving them into the dictionary when they are new (no
    /// clone on the import path). One read lock when every term is known.
    pub fn intern_quad(&self, quad: Quad) -> QuadKey {
        let graph: Option<Term> = match quad.graph_name {
            RdfGraphName::DefaultGraph => None,
            RdfGraphName::NamedNode(n) => Some(n.into()),
            RdfGraphName::BlankNode(b) => Some(b.into()),
        };
        let terms = [
            Some(Term::from(quad.subject)),
            Some(Term::from(quad.predicate)),
            Some(quad.object),
            graph,
        ];
        let hashes = terms
            .each_ref()
            .map(|term| term.as_ref().map_or(0, term_hash_in_memory));
        let mut key = [DEFAULT_GRAPH; 4];
        let mut missing = false;
        {
            let inner = self.inner.read();
            for ((slot, term), &hash) in key.iter_mut().zip(&terms).zip(&hashes) {
                if let Some(term) = term {
                    match inner.find_hashed(term, hash) {
                        Some(id) => *slot = id,
                        None => missing = true,
                    }
                }
            }
        }
        if missing {
            let mut inner = self.inner.write();
            for ((slot, term), hash) in key.iter_mut().zip(terms).zip(hashes) {
                if let Some(term) = term
                    && *slot == DEFAULT_GRAPH
                {
                    *slot = inner.intern_hashed(term, hash);
                }
            }
        }
        key
    }

    /// Interns many terms (the distinct terms of a parsed block) with their in-memory
    /// hashes (`term_hash_in_memory`); returns their ids in order. Known terms are found
    /// under a read lock; new ones are added under one write lock per call, so callers
    /// pass bounded batches to keep readers' waits short.
    pub fn intern_hashed_terms(&self, terms: Vec<(Term, u64)>) -> Vec<TermId> {
        let mut ids = vec![DEFAULT_GRAPH; terms.len()];
        let mut missing = false;
        {
            let inner = self.inner.read();
            for (slot, (term, hash)) in ids.iter_mut().zip(&terms) {
                match inner.find_hashed(term, *hash) {
                    Some(id) => *slot = id,
                    None => missing = true,
                }
            }
        }
        if missing {
            let mut inner = self.inner.write();
            for (slot, (term, hash)) in ids.iter_mut().zip(terms) {
                if *slot == DEFAULT_GRAPH {
                    *slot = inner.intern_hashed(term, hash);
                }
            }
        }
        ids
    }

    /// The key of a quad whose terms are all known; `None` means it cannot be stored.
    pub fn lookup_quad(&self, quad: &Quad) -> Option<QuadKey> {
        let inner = self.inner.read();
        let graph = match &quad.graph_name {
            RdfGraphName::DefaultGraph => DEFAULT_GRAPH,
            RdfGraphName::NamedNode(n) => inner.find(&Term::from(n.clone()))?,
            RdfGraphName::BlankNode(b) => inner.find(&Term::from(b.clone()))?,
        };
        Some([
            inner.find(&Term::from(quad.subject.clone()))?,
            inner.find(&Term::from(quad.predicate.clone()))?,
            inner.find(&quad.object)?,
            graph,
        ])
    }

    /// Materializes a quad; `None` for ids this dictionary does not hold or terms in
    /// positions RDF does not allow.
    pub fn quad(&self, key: &QuadKey) -> Option<Quad> {
        let inner = self.inner.read();
        let subject = match inner.term(key[0])? {
            Term::NamedNode(n) => NamedOrBlankNode::NamedNode(n),
            Term::BlankNode(b) => NamedOrBlankNode::BlankNode(b),
            _ => return None,
        };
        let Term::NamedNode(predicate) = inner.term(key[1])? else {
            return None;
        };
        let graph_name = if key[3] == DEFAULT_GRAPH {
            RdfGraphName::DefaultGraph
        } else {
            match inner.term(key[3])? {
                Term::NamedNode(n) => RdfGraphName::NamedNode(n),
                Term::BlankNode(b) => RdfGraphName::BlankNode(b),
                _ => return None,
            }
        };
        Some(Quad::new(
            subject,
            predicate,
            inner.term(key[2])?,
            graph_name,
        ))
    }

    /// Writes one N-Quads line per key to `out`, under a single lock, in 64 KiB chunks.
    pub fn write_nquads(
        &self,
        keys: &[QuadKey],
        out: &mut impl std::io::Write,
    ) -> std::io::Result<()> {
        let inner = self.inner.read();
        let mut chunk = String::with_capacity(1 << 16);
        for key in keys {
            for (position, &id) in key.iter().enumerate() {
                if position == 3 && id == DEFAULT_GRAPH {
                    continue;
                }
                match inner.memory_term(id) {
                    Some(term) => push_nquads_term(&mut chunk, term),
                    None => {
                        if let Some(term) = inner.term(id) {
                            push_nquads_term(&mut chunk, &term);
                        }
                    }
                }
                chunk.push(' ');
            }
            chunk.push_str(".\n");
            if chunk.len() >= 1 << 16 {
                out.write_all(chunk.as_bytes())?;
                chunk.clear();
            }
        }
        out.write_all(chunk.as_bytes())
    }

    /// The kind of the term of an id, without decoding it (`None`: an unknown id).
    pub fn kind(&self, id: TermId) -> Option<TermKind> {
        self.inner.read().kind(id)
    }

    /// The term of an id. Panics never: an unknown id yields `None`.
    pub fn term(&self, id: TermId) -> Option<Term> {
        self.inner.read().term(id)
    }

    /// Number of terms; ids `1..=len` are valid.
    pub fn len(&self) -> u32 {
        let inner = self.inner.read();
        inner.mem_first - 1 + inner.terms.len() as u32
    }

    /// True when no term was ever interned.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Calls `f` with the in-memory terms (all of them) and the first one's id, without
    /// copying them: a flush writes them to a file meanwhile. New terms wait for it (the
    /// read lock is held), lookups do not.
    pub(crate) fn with_pending<R>(&self, f: impl FnOnce(TermId, &[Term]) -> R) -> R {
        let inner = self.inner.read();
        f(inner.mem_first, &inner.terms)
    }

    /// Replaces the in-memory terms a new file holds by the file. The file starts at the
    /// first in-memory id (`pending` made it).
    pub(crate) fn install(&self, file: Arc<DictFile>) {
        let mut inner = self.inner.write();
        if file.first() != inner.mem_first || file.end() <= file.first() {
            return;
        }
        let moved = (file.end() - inner.mem_first) as usize;
        let moved = moved.min(inner.terms.len());
        inner.terms.drain(..moved);
        inner.mem_first = file.end();
        inner.files.push(file);
        inner.terms.shrink_to_fit();
        inner.rebuild_index();
    }

    /// Replaces the parts from index `start` on by one file holding the same ids.
    pub(crate) fn replace_parts(&self, start: usize, file: Arc<DictFile>) {
        let mut inner = self.inner.write();
        let same_ids = inner.files.get(start).map(|f| f.first()) == Some(file.first())
            && inner.files.last().map(|f| f.end()) == Some(file.end());
        if same_ids {
            inner.files.truncate(start);
            inner.files.push(file);
        }
    }

    /// Why a dictionary file is damaged, if a check of one failed.
    pub(crate) fn damage(&self) -> Option<String> {
        if !super::file::any_damage() {
            return None;
        }
        let inner = self.inner.read();
        inner
            .files
            .iter()
            .find_map(|f| f.file().damage().map(str::to_owned))
    }

    /// The files holding the oldest ids.
    pub(crate) fn files(&self) -> Vec<Arc<DictFile>> {
        self.inner.read().files.clone()
    }

    /// Terms held in memory (not yet in a file).
    pub(crate) fn n_in_memory(&self) -> usize {
        self.inner.read().terms.len()
    }
}

/// Appends a term as N-Quads, byte for byte what its `Display` writes, without the
/// formatting machinery (this runs for every term of every commit's log record).
fn push_nquads_term(out: &mut String, term: &Term) {
    match term {
        Term::NamedNode(node) => {
            out.push('<');
            out.push_str(node.as_str());
            out.push('>');
        }
        Term::BlankNode(node) => {
            out.push_str("_:");
            out.push_str(node.as_str());
        }
        Term::Literal(literal) => {
            push_quoted(out, literal.value());
            if let Some(language) = literal.language() {
                out.push('@');
                out.push_str(language);
                if let Some(direction) = literal.direction() {
                    let _ = write!(out, "--{direction}");
                }
            } else if literal.datatype() != oxrdf::vocab::xsd::STRING {
                out.push_str("^^<");
                out.push_str(literal.datatype().as_str());
                out.push('>');
            }
        }
        other => {
            let _ = write!(out, "{other}");
        }
    }
}

/// A quoted N-Quads string with oxrdf's escapes (`print_quoted_str`): runs that need
/// none are copied whole.
fn push_quoted(out: &mut String, value: &str) {
    out.push('"');
    let bytes = value.as_bytes();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        // U+FFFE and U+FFFF are EF BF BE / EF BF BF in UTF-8.
        let nonchar = b == 0xEF
            && bytes.get(i + 1) == Some(&0xBF)
            && matches!(bytes.get(i + 2), Some(0xBE | 0xBF));
        if b < 0x20 || b == b'"' || b == b'\\' || b == 0x7F || nonchar {
            out.push_str(&value[start..i]);
            let width = if nonchar { 3 } else { 1 };
            match b {
                0x08 => out.push_str("\\b"),
                b'\t' => out.push_str("\\t"),
                b'\n' => out.push_str("\\n"),
                0x0C => out.push_str("\\f"),
                b'\r' => out.push_str("\\r"),
                b'"' => out.push_str("\\\""),
                b'\\' => out.push_str("\\\\"),
                _ => {
                    let c = value[i..].chars().next().map_or(0, u32::from);
                    let _ = write!(out, "\\u{c:04X}");
                }
            }
            i += width;
            start = i;
        } else {
            i += 1;
        }
    }
    out.push_str(&value[start..]);
    out.push('"');
}

impl DictInner {
    fn find(&self, term: &Term) -> Option<TermId> {
        self.find_hashed(term, FxBuildHasher.hash_one(term))
    }

    /// `find` with the term's in-memory hash already known (`FxBuildHasher`).
    fn find_hashed(&self, term: &Term, hash: u64) -> Option<TermId> {
        let first = self.mem_first;
        if let Some(&id) = self
            .index
            .find(hash, |&id| &self.terms[(id - first) as usize] == term)
        {
            return Some(id);
        }
        if self.files.is_empty() {
            return None;
        }
        ENCODED.with_borrow_mut(|encoded| {
            encoded.clear();
            encode_term(term, encoded);
            let hash = term_hash(encoded);
            self.files.iter().rev().find_map(|f| f.find(encoded, hash))
        })
    }

    fn memory_term(&self, id: TermId) -> Option<&Term> {
        self.terms.get(id.checked_sub(self.mem_first)? as usize)
    }

    fn kind(&self, id: TermId) -> Option<TermKind> {
        if id == DEFAULT_GRAPH {
            return None;
        }
        if id >= self.mem_first {
            return Some(match self.memory_term(id)? {
                Term::NamedNode(_) => TermKind::NamedNode,
                Term::BlankNode(_) => TermKind::BlankNode,
                Term::Literal(l) if l.direction().is_none() => TermKind::Literal,
                _ => TermKind::Other,
            });
        }
        let at = self.files.partition_point(|f| f.end() <= id);
        self.files.get(at)?.kind(id)
    }

    fn term(&self, id: TermId) -> Option<Term> {
        if id == DEFAULT_GRAPH {
            return None;
        }
        if id >= self.mem_first {
            return self.memory_term(id).cloned();
        }
        let at = self.files.partition_point(|f| f.end() <= id);
        self.files.get(at)?.term(id)
    }

    fn intern(&mut self, term: &Term) -> TermId {
        match self.find(term) {
            Some(id) => id,
            None => self.intern_owned(term.clone()),
        }
    }

    fn intern_owned(&mut self, term: Term) -> TermId {
        let hash = FxBuildHasher.hash_one(&term);
        self.intern_hashed(term, hash)
    }

    /// Interns a term whose in-memory hash is known: the term is hashed once, whether
    /// it is found or added.
    fn intern_hashed(&mut self, term: Term, hash: u64) -> TermId {
        if let Some(id) = self.find_hashed(&term, hash) {
            return id;
        }
        let id = TermId::try_from(self.mem_first as usize + self.terms.len())
            .expect("fewer than 2^32 terms");
        self.terms.push(term);
        let (terms, first) = (&self.terms, self.mem_first);
        self.index.insert_unique(hash, id, |&other| {
            FxBuildHasher.hash_one(&terms[(other - first) as usize])
        });
        id
    }

    fn rebuild_index(&mut self) {
        let mut index = HashTable::with_capacity(self.terms.len());
        for (i, term) in self.terms.iter().enumerate() {
            let id = self.mem_first + i as u32;
            let (terms, first) = (&self.terms, self.mem_first);
            index.insert_unique(FxBuildHasher.hash_one(term), id, |&other| {
                FxBuildHasher.hash_one(&terms[(other - first) as usize])
            });
        }
        self.index = index;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Literal, NamedNode};

    #[test]
    fn nquads_terms_are_written_as_their_display() {
        use crate::model::BlankNode;
        let values = [
            "plain",
            "",
            "tab\there \"quoted\" back\\slash\r\n\u{8}\u{C}",
            "ctl \u{0}\u{1}\u{1F}\u{7F} end",
            "non \u{FFFE}\u{FFFF}\u{FFFD} chars é ü 😀",
        ];
        let mut terms: Vec<Term> = vec![
            NamedNode::new_unchecked("http://e/a?b=c#d").into(),
            BlankNode::new_unchecked("b0").into(),
        ];
        for value in values {
            terms.push(Literal::new_simple_literal(value).into());
            terms.push(Literal::new_language_tagged_literal_unchecked(value, "en-GB").into());
            terms.push(
                Literal::new_typed_literal(value, NamedNode::new_unchecked("http://e/dt")).into(),
            );
            terms.push(
                Literal::new_directional_language_tagged_literal_unchecked(
                    value,
                    "ar",
                    oxrdf::BaseDirection::Rtl,
                )
                .into(),
            );
        }
        terms.push(
            crate::model::Triple::new(
                NamedNode::new_unchecked("http://e/s"),
                NamedNode::new_unchecked("http://e/p"),
                Literal::new_simple_literal("o\n"),
            )
            .into(),
        );
        for term in terms {
            let mut written = String::new();
            push_nquads_term(&mut written, &term);
            assert_eq!(written, term.to_string());
        }
    }

    #[test]
    fn interning_is_stable_and_dense() {
        let dict = Dict::default();
        let a = Term::from(NamedNode::new_unchecked("http://e/a"));
        let b = Term::from(Literal::new_simple_literal("b"));
        assert_eq!(dict.intern(&a), 1);
        assert_eq!(dict.intern(&b), 2);
        assert_eq!(dict.intern(&a), 1);
        assert_eq!(dict.lookup(&b), Some(2));
        assert_eq!(dict.term(2), Some(b));
        assert_eq!(dict.term(0), None);
        assert_eq!(dict.term(3), None);
    }

    #[test]
    fn terms_moved_to_a_file_keep_their_ids() {
        let dict = Dict::default();
        let terms: Vec<Term> = (0..50)
            .map(|i| NamedNode::new_unchecked(format!("http://e/{i}")).into())
            .collect();
        for term in &terms[..30] {
            dict.intern(term);
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d");
        // A part of the in-memory terms: the first 20 of 30.
        dict.with_pending(|first, pending| {
            assert_eq!((first, pending.len()), (1, 30));
            DictFile::write(&path, first, &pending[..20]).unwrap();
        });
        dict.install(Arc::new(DictFile::open(&path).unwrap()));
        assert_eq!(dict.n_in_memory(), 10);
        for term in &terms[30..] {
            dict.intern(term);
        }
        for (i, term) in terms.iter().enumerate() {
            assert_eq!(dict.lookup(term), Some(i as u32 + 1), "{term}");
            assert_eq!(dict.term(i as u32 + 1).as_ref(), Some(term));
        }
        assert_eq!(dict.len(), 50);
        let reopened = Dict::from_files(dict.files());
        assert_eq!(reopened.len(), 20);
        assert_eq!(reopened.lookup(&terms[7]), Some(8));
        assert_eq!(reopened.intern(&terms[40]), 21);
    }
}
