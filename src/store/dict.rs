//! The term dictionary: every RDF term the store holds gets a dense `TermId`.
//!
//! Ids are handed out in order and never reused, so a snapshot can remember how many
//! terms existed when it was taken and treat newer ids as unknown (see `Snapshot`).

use std::hash::BuildHasher;

use hashbrown::HashTable;
use parking_lot::RwLock;
use rustc_hash::FxBuildHasher;

use crate::model::Term;

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

    /// Interns many terms under one lock; returns their ids in order.
    pub fn intern_all<'a>(&self, terms: impl IntoIterator<Item = &'a Term>) -> Vec<TermId> {
        let mut inner = self.inner.write();
        terms.into_iter().map(|t| inner.intern(t)).collect()
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
        if let Some(id) = self.find(term) {
            return id;
        }
        let id = TermId::try_from(self.terms.len() + 1).expect("fewer than 2^32 terms");
        self.terms.push(term.clone());
        let hash = FxBuildHasher.hash_one(term);
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
