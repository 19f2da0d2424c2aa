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
