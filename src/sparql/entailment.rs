//! Entailment at query time: rewriting a query so that it also matches what RDFS would
//! infer from the data at the pinned commit, without materializing anything.
//!
//! `subclass`: `?x rdf:type C` also matches instances of subclasses of C.
//! `rdfs`: additionally, types implied by `rdfs:domain` and `rdfs:range` of the
//! properties a resource uses, and `?s P ?o` also matches sub-properties of P.
//! Patterns inside `FILTER EXISTS` are left as written.

use spargebra::Query;
use spargebra::algebra::{Expression, Function, GraphPattern, PropertyPathExpression};
use spargebra::term::{NamedNodePattern, TermPattern, TriplePattern, Variable};

use crate::model::NamedNode;

use crate::model::RDF_TYPE;
const SUBCLASS: &str = "http://www.w3.org/2000/01/rdf-schema#subClassOf";
const SUBPROPERTY: &str = "http://www.w3.org/2000/01/rdf-schema#subPropertyOf";
const DOMAIN: &str = "http://www.w3.org/2000/01/rdf-schema#domain";
const RANGE: &str = "http://www.w3.org/2000/01/rdf-schema#range";

/// Which inferences a query sees.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Entailment {
    #[default]
    None,
    Subclass,
    Rdfs,
}

impl Entailment {
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "none" => Self::None,
            "subclass" => Self::Subclass,
            "rdfs" => Self::Rdfs,
            _ => return None,
        })
    }
}

/// Rewrites the query's pattern for `entailment`.
pub fn apply(query: &mut Query, entailment: Entailment) {
    if entailment == Entailment::None {
        return;
    }
    let pattern = match query {
        Query::Select { pattern, .. }
        | Query::Construct { pattern, .. }
        | Query::Describe { pattern, .. }
        | Query::Ask { pattern, .. } => pattern,
    };
    let mut rewriter = Rewriter {
        entailment,
        n_vars: 0,
    };
    let original = std::mem::replace(
        pattern,
        GraphPattern::Bgp {
            patterns: Vec::new(),
        },
    );
    *pattern = rewriter.pattern(original);
}

struct Rewriter {
    entailment: Entailment,
    n_vars: usize,
}

fn triple_pattern(
    subject: impl Into<TermPattern>,
    predicate: Variable,
    object: impl Into<TermPattern>,
) -> TriplePattern {
    TriplePattern {
        subject: subject.into(),
        predicate: predicate.into(),
        object: object.into(),
    }
}

fn named(iri: &str) -> PropertyPathExpression {
    PropertyPathExpression::NamedNode(NamedNode::new_unchecked(iri))
}

fn star(iri: &str) -> PropertyPathExpression {
    PropertyPathExpression::ZeroOrMore(Box::new(named(iri)))
}

fn then(first: PropertyPathExpression, second: PropertyPathExpression) -> PropertyPathExpression {
    PropertyPathExpression::Sequence(Box::new(first), Box::new(second))
}

fn join(left: GraphPattern, right: GraphPattern) -> GraphPattern {
    GraphPattern::Join {
        left: Box::new(left),
        right: Box::new(right),
    }
}

fn union(left: GraphPattern, right: GraphPattern) -> GraphPattern {
    GraphPattern::Union {
        left: Box::new(left),
        right: Box::new(right),
    }
}

fn variables_of(terms: &[&TermPattern]) -> Vec<Variable> {
    let mut out = Vec::new();
    for term in terms {
        if let TermPattern::Variable(v) = term
            && !out.contains(v)
        {
            out.push(v.clone());
        }
    }
    out
}

impl Rewriter {
    fn fresh(&mut self) -> Variable {
        self.n_vars += 1;
        Variable::new_unchecked(format!("__entailment{}", self.n_vars))
    }

    /// Keeps only the pattern's own variables, once per solution: the helper variables
    /// of the rewrite must not multiply or widen the solutions.
    fn distinct_on(pattern: GraphPattern, variables: Vec<Variable>) -> GraphPattern {
        GraphPattern::Distinct {
            inner: Box::new(GraphPattern::Project {
                inner: Box::new(pattern),
                variables,
            }),
        }
    }

    /// Whether `triple` sees entailed triples (`triple` rewrites it).
    fn rewrites(&self, triple: &TriplePattern) -> bool {
        match &triple.predicate {
            NamedNodePattern::NamedNode(p) => {
                p.as_str() == RDF_TYPE || self.entailment == Entailment::Rdfs
            }
            NamedNodePattern::Variable(_) => false,
        }
    }

    fn blank_nodes_as_variables(&mut self, patterns: Vec<TriplePattern>) -> Vec<TriplePattern> {
        let mut names: Vec<(spargebra::term::BlankNode, Variable)> = Vec::new();
        let mut rename = |rewriter: &mut Self, term: TermPattern| match term {
            TermPattern::BlankNode(node) => {
                let variable = match names.iter().find(|(b, _)| *b == node) {
                    Some((_, v)) => v.clone(),
                    None => {
                        let v = rewriter.fresh();
                        names.push((node, v.clone()));
                        v
                    }
                };
                TermPattern::Variable(variable)
            }
            other => other,
        };
        patterns
            .into_iter()
            .map(|t| TriplePattern {
                subject: rename(self, t.subject),
                predicate: t.predicate,
                object: rename(self, t.object),
            })
            .collect()
    }

    fn triple(&mut self, triple: TriplePattern) -> Option<GraphPattern> {
        let NamedNodePattern::NamedNode(predicate) = &triple.predicate else {
            return None;
        };
        let keep = variables_of(&[&triple.subject, &triple.object]);
        if predicate.as_str() == RDF_TYPE {
            // `rdf:type/rdfs:subClassOf*` finds a type once per path to it (a product
            // typed with a class and its parent reaches the grandparent twice); the
            // entailed triple is there once, hence `distinct_on` in every branch.
            let by_class = GraphPattern::Path {
                subject: triple.subject.clone(),
                path: then(named(RDF_TYPE), star(SUBCLASS)),
                object: triple.object.clone(),
            };
            if self.entailment == Entailment::Subclass {
                return Some(Self::distinct_on(by_class, keep));
            }
            // rdfs2 and rdfs3 through rdfs7: a value of a sub-property of a property with
            // a domain (range) types its subject (object); literals are never instances.
            let (property, other) = (self.fresh(), self.fresh());
            let by_domain = join(
                GraphPattern::Bgp {
                    patterns: vec![triple_pattern(
                        triple.subject.clone(),
                        property.clone(),
                        other.clone(),
                    )],
                },
                GraphPattern::Path {
                    subject: property.clone().into(),
                    path: then(then(star(SUBPROPERTY), named(DOMAIN)), star(SUBCLASS)),
                    object: triple.object.clone(),
                },
            );
            let mut branches = union(by_class, by_domain);
            if !matches!(triple.subject, TermPattern::Literal(_)) {
                let (property, other) = (self.fresh(), self.fresh());
                let by_range = join(
                    GraphPattern::Bgp {
                        patterns: vec![triple_pattern(
                            other.clone(),
                            property.clone(),
                            triple.subject.clone(),
                        )],
                    },
                    GraphPattern::Path {
                        subject: property.clone().into(),
                        path: then(then(star(SUBPROPERTY), named(RANGE)), star(SUBCLASS)),
                        object: triple.object.clone(),
                    },
                );
                let by_range = match &triple.subject {
                    TermPattern::Variable(v) => GraphPattern::Filter {
                        expr: Expression::Not(Box::new(Expression::FunctionCall(
                            Function::IsLiteral,
                            vec![Expression::Variable(v.clone())],
                        ))),
                        inner: Box::new(by_range),
                    },
                    _ => by_range,
                };
                branches = union(branches, by_range);
            }
            return Some(Self::distinct_on(branches, keep));
        }
        if self.entailment == Entailment::Rdfs {
            // The triple itself, or one of a sub-property. Not `?q subPropertyOf* P`: a
            // zero-length path matches P only where P is a node of the graph, and a
            // property used only as a predicate is none.
            let property = self.fresh();
            let by_subproperty = join(
                GraphPattern::Bgp {
                    patterns: vec![triple_pattern(
                        triple.subject.clone(),
                        property.clone(),
                        triple.object.clone(),
                    )],
                },
                GraphPattern::Path {
                    subject: property.into(),
                    path: PropertyPathExpression::OneOrMore(Box::new(named(SUBPROPERTY))),
                    object: predicate.clone().into(),
                },
            );
            let direct = GraphPattern::Bgp {
                patterns: vec![triple],
            };
            return Some(Self::distinct_on(union(direct, by_subproperty), keep));
        }
        None
    }

    fn pattern(&mut self, pattern: GraphPattern) -> GraphPattern {
        let boxed =
            |rewriter: &mut Self, inner: Box<GraphPattern>| Box::new(rewriter.pattern(*inner));
        match pattern {
            GraphPattern::Bgp { patterns } => {
                // A blank node of a pattern is a variable of its BGP: rewritten patterns
                // project their own variables, so blank nodes become fresh variables
                // first, or they would be projected away and the BGP's join lost.
                let patterns = if patterns.iter().any(|t| self.rewrites(t)) {
                    self.blank_nodes_as_variables(patterns)
                } else {
                    patterns
                };
                let mut plain = Vec::new();
                let mut rewritten: Vec<GraphPattern> = Vec::new();
                for triple in patterns {
                    match self.triple(triple.clone()) {
                        Some(pattern) => rewritten.push(pattern),
                        None => plain.push(triple),
                    }
                }
                rewritten
                    .into_iter()
                    .fold(GraphPattern::Bgp { patterns: plain }, join)
            }
            GraphPattern::Join { left, right } => GraphPattern::Join {
                left: boxed(self, left),
                right: boxed(self, right),
            },
            GraphPattern::LeftJoin {
                left,
                right,
                expression,
            } => GraphPattern::LeftJoin {
                left: boxed(self, left),
                right: boxed(self, right),
                expression,
            },
            GraphPattern::Filter { expr, inner } => GraphPattern::Filter {
                expr,
                inner: boxed(self, inner),
            },
            GraphPattern::Union { left, right } => GraphPattern::Union {
                left: boxed(self, left),
                right: boxed(self, right),
            },
            GraphPattern::Graph { name, inner } => GraphPattern::Graph {
                name,
                inner: boxed(self, inner),
            },
            GraphPattern::Extend {
                inner,
                variable,
                expression,
            } => GraphPattern::Extend {
                inner: boxed(self, inner),
                variable,
                expression,
            },
            GraphPattern::Minus { left, right } => GraphPattern::Minus {
                left: boxed(self, left),
                right: boxed(self, right),
            },
            GraphPattern::OrderBy { inner, expression } => GraphPattern::OrderBy {
                inner: boxed(self, inner),
                expression,
            },
            GraphPattern::Project { inner, variables } => GraphPattern::Project {
                inner: boxed(self, inner),
                variables,
            },
            GraphPattern::Distinct { inner } => GraphPattern::Distinct {
                inner: boxed(self, inner),
            },
            GraphPattern::Reduced { inner } => GraphPattern::Reduced {
                inner: boxed(self, inner),
            },
            GraphPattern::Slice {
                inner,
                start,
                length,
            } => GraphPattern::Slice {
                inner: boxed(self, inner),
                start,
                length,
            },
            GraphPattern::Group {
                inner,
                variables,
                aggregates,
            } => GraphPattern::Group {
                inner: boxed(self, inner),
                variables,
                aggregates,
            },
            // Paths, VALUES, and SERVICE (the remote endpoint's business) stay as written.
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_patterns_gain_the_subclass_path() {
        let mut query = spargebra::SparqlParser::new()
            .parse_query("SELECT ?x WHERE { ?x a <http://e/C> . ?x <http://e/p> ?y }")
            .unwrap();
        apply(&mut query, Entailment::Subclass);
        let text = query.to_string();
        assert!(text.contains("subClassOf>)*"), "{text}");
        assert!(text.contains("<http://e/p>"), "{text}");
    }
}
