//! spareval's `QueryableDataset` over a store `Snapshot`: pattern lookups run on the
//! snapshot's indexes with term ids, and terms are only materialized for results.

use std::convert::Infallible;
use std::sync::Arc;

use spareval::{InternalQuad, QueryableDataset};

use crate::model::Term;
use crate::store::{DEFAULT_GRAPH, GraphFilter, Pattern, Snapshot, TermId};

/// A term as the evaluator sees it: a store id, or a term the snapshot does not hold
/// (query constants, computed values). A term is `External` only when the snapshot does
/// not know it, so equality of `EvalTerm`s is RDF term equality.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum EvalTerm {
    Id(TermId),
    External(Arc<Term>),
}

/// The dataset handed to spareval.
#[derive(Clone)]
pub struct SnapshotDataset {
    snapshot: Snapshot,
}

impl SnapshotDataset {
    pub fn new(snapshot: Snapshot) -> Self {
        Self { snapshot }
    }
}

/// Lookups on a snapshot cannot fail: the data is in memory.
pub type DatasetError = Infallible;

impl<'a> QueryableDataset<'a> for SnapshotDataset {
    type InternalTerm = EvalTerm;
    type Error = DatasetError;

    fn internal_quads_for_pattern(
        &self,
        subject: Option<&EvalTerm>,
        predicate: Option<&EvalTerm>,
        object: Option<&EvalTerm>,
        graph_name: Option<Option<&EvalTerm>>,
    ) -> impl Iterator<Item = Result<InternalQuad<EvalTerm>, DatasetError>> + use<'a> {
        // A bound term the store does not hold matches nothing.
        let id_of = |term: Option<&EvalTerm>| -> Result<Option<TermId>, ()> {
            match term {
                None => Ok(None),
                Some(EvalTerm::Id(id)) => Ok(Some(*id)),
                Some(EvalTerm::External(_)) => Err(()),
            }
        };
        let graph = match graph_name {
            None => Ok(GraphFilter::AnyNamed),
            Some(None) => Ok(GraphFilter::Is(DEFAULT_GRAPH)),
            Some(Some(EvalTerm::Id(id))) => Ok(GraphFilter::Is(*id)),
            Some(Some(EvalTerm::External(_))) => Err(()),
        };
        let pattern = match (id_of(subject), id_of(predicate), id_of(object), graph) {
            (Ok(subject), Ok(predicate), Ok(object), Ok(graph)) => Some(Pattern {
                subject,
                predicate,
                object,
                graph,
            }),
            _ => None,
        };
        let quads = pattern.map(|pattern| self.snapshot.quads(pattern));
        quads.into_iter().flatten().map(|key| {
            Ok(InternalQuad {
                subject: EvalTerm::Id(key[0]),
                predicate: EvalTerm::Id(key[1]),
                object: EvalTerm::Id(key[2]),
                graph_name: (key[3] != DEFAULT_GRAPH).then_some(EvalTerm::Id(key[3])),
            })
        })
    }

    fn internal_named_graphs(
        &self,
    ) -> impl Iterator<Item = Result<EvalTerm, DatasetError>> + use<'a> {
        self.snapshot
            .named_graphs()
            .into_iter()
            .map(|g| Ok(EvalTerm::Id(g)))
    }

    fn contains_internal_graph_name(&self, graph_name: &EvalTerm) -> Result<bool, DatasetError> {
        Ok(match graph_name {
            EvalTerm::Id(id) => self
                .snapshot
                .quads(Pattern {
                    subject: None,
                    predicate: None,
                    object: None,
                    graph: GraphFilter::Is(*id),
                })
                .next()
                .is_some(),
            EvalTerm::External(_) => false,
        })
    }

    fn internalize_term(&self, term: Term) -> Result<EvalTerm, DatasetError> {
        if let Some(id) = stored_id::parse(&term) {
            return Ok(EvalTerm::Id(id));
        }
        Ok(match self.snapshot.lookup(&term) {
            Some(id) => EvalTerm::Id(id),
            None => EvalTerm::External(Arc::new(term)),
        })
    }

    fn externalize_term(&self, term: EvalTerm) -> Result<Term, DatasetError> {
        Ok(match term {
            EvalTerm::Id(id) => self
                .snapshot
                .term(id)
                // Ids come only from this snapshot's own quads, so the term exists; an
                // empty IRI would only ever show a store bug, never crash a query.
                .unwrap_or_else(|| oxrdf::NamedNode::new_unchecked("").into()),
            EvalTerm::External(term) => Arc::unwrap_or_clone(term),
        })
    }
}

/// Stored terms handed to spareval by id inside a rewritten query (the `VALUES` the
/// batched path makes of a group's results): an IRI, or a literal typed by an IRI, that
/// names the id under a prefix drawn at random per process. `internalize_term` turns it
/// back into `EvalTerm::Id` without decoding the term and looking it up again (a quarter
/// of a query whose groups are many keys went there), and no query can spell it. Its
/// kind (IRI or literal) is the stored term's, so sparopt's type inference is unchanged;
/// results and expressions see the stored term, since they externalize the id.
pub(crate) mod stored_id {
    use std::hash::BuildHasher;
    use std::sync::LazyLock;

    use crate::model::{Literal, NamedNode, Term};
    use crate::store::TermId;

    static PREFIX: LazyLock<String> = LazyLock::new(|| {
        let random = |n: u8| std::collections::hash_map::RandomState::new().hash_one(n);
        format!("urn:strata:stored-id:{:016x}{:016x}:", random(1), random(2))
    });

    /// An IRI stored as `id`.
    pub(crate) fn named(id: TermId) -> NamedNode {
        NamedNode::new_unchecked(format!("{}{id}", *PREFIX))
    }

    /// A literal stored as `id`.
    pub(crate) fn literal(id: TermId) -> Literal {
        Literal::new_typed_literal(id.to_string(), NamedNode::new_unchecked(PREFIX.as_str()))
    }

    /// The id a term made by `named` or `literal` stands for.
    pub(crate) fn parse(term: &Term) -> Option<TermId> {
        match term {
            Term::NamedNode(node) => node.as_str().strip_prefix(PREFIX.as_str())?.parse().ok(),
            Term::Literal(literal) if literal.datatype().as_str() == PREFIX.as_str() => {
                literal.value().parse().ok()
            }
            _ => None,
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn ids_round_trip_and_ordinary_terms_are_not_ids() {
            assert_eq!(parse(&named(42).into()), Some(42));
            assert_eq!(parse(&literal(7).into()), Some(7));
            let lookalike = format!("urn:strata:stored-id:{}:5", "0".repeat(32));
            for term in [
                Term::from(NamedNode::new_unchecked(lookalike.as_str())),
                Literal::new_typed_literal("5", NamedNode::new_unchecked(lookalike.as_str()))
                    .into(),
                Literal::new_simple_literal("5").into(),
                NamedNode::new_unchecked("http://example.org/5").into(),
            ] {
                assert_eq!(parse(&term), None, "{term}");
            }
        }
    }
}
