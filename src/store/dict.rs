//! The term dictionary: every RDF term the store holds gets a dense `TermId`.
//!
//! Ids are handed out in order and never reused, so a snapshot can remember how many
//! terms existed when it was taken and treat newer ids as unknown (see `Snapshot`).

use std::hash::BuildHasher;

use hashbrown::HashTable;
use parking_lot::RwLock;
use rustc_hash::FxBuildHasher;

use std::fmt::Write as _;

use super::segment::QuadKey;
use crate::model::{NamedOrBlankNode, Quad, RdfGraphName, Term};

/// A dense term identifier. `DEFAULT_GRAPH` (0) stands for the default graph.
pub type TermId = u32;

/// The graph position of a quad in the default graph.
pub const DEFAULT_GRAPH: TermId = 0;

/// Term ↔ id, append-only.
pub struct Dict {
    inner: RwLock<DictInner>,
}

struct DictInner {
    /// `terms[id - 1]` is the term with that id (id 0 is the default graph).
    terms: Vec<Term>,
    /// Ids keyed by the hash of their term; the term itself lives only in `terms`.
    index: HashTable<TermId>,
}

impl Default for Dict {
    fn default() -> Self {
        Self {
            inner: RwLock::new(DictInner {
                terms: Vec::new(),
                index: HashTable::new(),
            }),
        }
    }
}

impl Dict {
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
        let mut key = [DEFAULT_GRAPH; 4];
        let mut missing = false;
        {
            let inner = self.inner.read();
            for (slot, term) in key.iter_mut().zip(&terms) {
                if let Some(term) = term {
                    match inner.find(term) {
                        Some(id) => *slot = id,
                        None => missing = true,
                    }
                }
            }
        }
        if missing {
            let mut inner = self.inner.write();
            for (slot, term) in key.iter_mut().zip(terms) {
                if let Some(term) = term
                    && *slot == DEFAULT_GRAPH
                {
                    *slot = inner.intern_owned(term);
                }
            }
        }
        key
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
        let term = |id: TermId| inner.terms.get(id.checked_sub(1)? as usize);
        let subject = match term(key[0])? {
            Term::NamedNode(n) => NamedOrBlankNode::NamedNode(n.clone()),
            Term::BlankNode(b) => NamedOrBlankNode::BlankNode(b.clone()),
            _ => return None,
        };
        let Term::NamedNode(predicate) = term(key[1])? else {
            return None;
        };
        let graph_name = if key[3] == DEFAULT_GRAPH {
            RdfGraphName::DefaultGraph
        } else {
            match term(key[3])? {
                Term::NamedNode(n) => RdfGraphName::NamedNode(n.clone()),
                Term::BlankNode(b) => RdfGraphName::BlankNode(b.clone()),
                _ => return None,
            }
        };
        Some(Quad::new(
            subject,
            predicate.clone(),
            term(key[2])?.clone(),
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
                if let Some(term) = id.checked_sub(1).and_then(|i| inner.terms.get(i as usize)) {
                    let _ = write!(chunk, "{term} ");
                }
            }
            chunk.push_str(".\n");
            if chunk.len() >= 1 << 16 {
                out.write_all(chunk.as_bytes())?;
                chunk.clear();
            }
        }
        out.write_all(chunk.as_bytes())
    }

    /// The term of an id. Panics never: an unknown id yields `None`.
    pub fn term(&self, id: TermId) -> Option<Term> {
        let inner = self.inner.read();
        inner.terms.get(id.checked_sub(1)? as usize).cloned()
    }

    /// Number of terms; ids `1..=len` are valid.
    pub fn len(&self) -> u32 {
        self.inner.read().terms.len() as u32
    }

    /// True when no term was ever interned.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Visits every term in id order (for checkpoints).
    pub fn for_each(&self, limit: u32, mut f: impl FnMut(&Term)) {
        let inner = self.inner.read();
        for term in inner.terms.iter().take(limit as usize) {
            f(term);
        }
    }
}

impl DictInner {
    fn find(&self, term: &Term) -> Option<TermId> {
        let hash = FxBuildHasher.hash_one(term);
        self.index
            .find(hash, |&id| &self.terms[(id - 1) as usize] == term)
            .copied()
    }

    fn intern(&mut self, term: &Term) -> TermId {
        match self.find(term) {
            Some(id) => id,
            None => self.intern_owned(term.clone()),
        }
    }

    fn intern_owned(&mut self, term: Term) -> TermId {
        let hash = FxBuildHasher.hash_one(&term);
        if let Some(&id) = self
            .index
            .find(hash, |&id| self.terms[(id - 1) as usize] == term)
        {
            return id;
        }
        let id = TermId::try_from(self.terms.len() + 1).expect("fewer than 2^32 terms");
        self.terms.push(term);
        let terms = &self.terms;
        self.index.insert_unique(hash, id, |&other| {
            FxBuildHasher.hash_one(&terms[(other - 1) as usize])
        });
        id
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Literal, NamedNode};

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
}
