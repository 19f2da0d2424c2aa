//! Embedding declarations: which class is searchable and which text describes each of
//! its records. Stored as triples in the graph's `strata:embeddings` named graph, so
//! they are versioned by the log like any data.

use crate::model::{Literal, NamedNode, Quad, RdfGraphName, Term, Triple};

use super::STRATA;
use super::dense::HnswParams;

/// The named graph holding a graph's embedding declarations.
pub const EMBEDDINGS_GRAPH: &str = "https://strata.dev/ns#embeddings";

/// One declaration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Declaration {
    /// Unique within the graph: `[a-z0-9][a-z0-9_-]*`.
    pub name: String,
    pub class: NamedNode,
    /// Properties whose values make the text, in order (a link contributes its target's
    /// label). Empty: every literal property of the record but `exclude`.
    pub from: Vec<NamedNode>,
    pub exclude: Vec<NamedNode>,
    /// HNSW construction and search parameters of its dense lane.
    pub hnsw: HnswParams,
}

fn iri(local: &str) -> NamedNode {
    NamedNode::new_unchecked(format!("{STRATA}{local}"))
}

impl Declaration {
    /// The declaration's own IRI.
    pub fn node(&self) -> NamedNode {
        NamedNode::new_unchecked(format!("{STRATA}embedding/{}", self.name))
    }

    /// Checks the name: what other clients rely on when they address an index.
    pub fn valid_name(name: &str) -> bool {
        let mut chars = name.chars();
        chars
            .next()
            .is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
            && name.len() <= 63
            && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-')
    }

    /// The quads that store this declaration.
    pub fn quads(&self) -> Vec<Quad> {
        let graph = RdfGraphName::NamedNode(NamedNode::new_unchecked(EMBEDDINGS_GRAPH));
        let node = self.node();
        let quad = |p: &str, o: Term| Quad::new(node.clone(), iri(p), o, graph.clone());
        let list = |items: &[NamedNode]| {
            items
                .iter()
                .map(|n| format!("<{}>", n.as_str()))
                .collect::<Vec<_>>()
                .join(" ")
        };
        vec![
            Quad::new(
                node.clone(),
                NamedNode::new_unchecked(crate::model::RDF_TYPE),
                iri("EmbeddingDeclaration"),
                graph.clone(),
            ),
            quad("name", Literal::new_simple_literal(&self.name).into()),
            quad("targetClass", self.class.clone().into()),
            quad(
                "recipe",
                Literal::new_simple_literal(list(&self.from)).into(),
            ),
            quad(
                "exclude",
                Literal::new_simple_literal(list(&self.exclude)).into(),
            ),
            quad(
                "hnswM",
                Literal::from(self.hnsw.max_connections as i64).into(),
            ),
            quad(
                "hnswEfConstruction",
                Literal::from(self.hnsw.ef_construction as i64).into(),
            ),
            quad(
                "hnswEfSearch",
                Literal::from(self.hnsw.ef_search as i64).into(),
            ),
        ]
    }

    /// Checks the HNSW parameters (a node keeps at most 256 links per layer).
    pub fn check_hnsw(params: &HnswParams) -> Result<(), String> {
        if !(2..=256).contains(&params.max_connections) {
            return Err(format!("m must be 2..=256, got {}", params.max_connections));
        }
        if !(params.max_connections..=4096).contains(&params.ef_construction) {
            return Err(format!(
                "ef_construction must be m..=4096, got {}",
                params.ef_construction
            ));
        }
        if !(1..=4096).contains(&params.ef_search) {
            return Err(format!(
                "ef_search must be 1..=4096, got {}",
                params.ef_search
            ));
        }
        Ok(())
    }

    /// Reads declarations back from the triples of the embeddings graph.
    pub fn read_all(triples: &[Triple]) -> Vec<Declaration> {
        let value = |subject: &crate::model::NamedOrBlankNode, p: &str| {
            triples
                .iter()
                .find(|t| &t.subject == subject && t.predicate.as_str() == format!("{STRATA}{p}"))
                .map(|t| t.object.clone())
        };
        let parse_list = |term: Option<Term>| -> Vec<NamedNode> {
            match term {
                Some(Term::Literal(l)) => l
                    .value()
                    .split_whitespace()
                    .filter_map(|s| s.strip_prefix('<')?.strip_suffix('>'))
                    .filter_map(|s| NamedNode::new(s).ok())
                    .collect(),
                _ => Vec::new(),
            }
        };
        let mut out: Vec<Declaration> = triples
            .iter()
            .filter(|t| {
                t.predicate.as_str() == crate::model::RDF_TYPE
                    && matches!(&t.object, Term::NamedNode(n) if n.as_str() == format!("{STRATA}EmbeddingDeclaration"))
            })
            .filter_map(|t| {
                let name = match value(&t.subject, "name")? {
                    Term::Literal(l) => l.value().to_owned(),
                    _ => return None,
                };
                let class = match value(&t.subject, "targetClass")? {
                    Term::NamedNode(n) => n,
                    _ => return None,
                };
                let number = |p: &str, default: usize| match value(&t.subject, p) {
                    Some(Term::Literal(l)) => l.value().parse().unwrap_or(default),
                    _ => default,
                };
                let defaults = HnswParams::default();
                let hnsw = HnswParams {
                    max_connections: number("hnswM", defaults.max_connections),
                    ef_construction: number("hnswEfConstruction", defaults.ef_construction),
                    ef_search: number("hnswEfSearch", defaults.ef_search),
                };
                // Values written by hand that the graph cannot take fall back to defaults.
                let hnsw = if Declaration::check_hnsw(&hnsw).is_ok() {
                    hnsw
                } else {
                    defaults
                };
                Some(Declaration {
                    name,
                    class,
                    from: parse_list(value(&t.subject, "recipe")),
                    exclude: parse_list(value(&t.subject, "exclude")),
                    hnsw,
                })
            })
            .collect();
        out.sort_by(|a, b| a.name.cmp(&b.name));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declarations_round_trip_through_quads() {
        let d = Declaration {
            name: "tickets".into(),
            class: NamedNode::new_unchecked("http://e/Ticket"),
            from: vec![
                NamedNode::new_unchecked("http://e/title"),
                NamedNode::new_unchecked("http://e/about"),
            ],
            exclude: vec![],
            hnsw: HnswParams {
                max_connections: 24,
                ef_construction: 100,
                ef_search: 80,
            },
        };
        let triples: Vec<Triple> = d.quads().into_iter().map(Triple::from).collect();
        assert_eq!(Declaration::read_all(&triples), vec![d]);
        assert!(Declaration::valid_name("tickets-2"));
        assert!(!Declaration::valid_name("Tickets") && !Declaration::valid_name(""));
    }
}
