//! `search:` patterns inside SPARQL. In a basic graph pattern,
//!
//! ```sparql
//! ?t search:nearest "users cannot sign in" ; search:k 20 ; search:lane "hybrid" ;
//!    search:score ?s .
//! ```
//!
//! is replaced by a `VALUES (?t ?s) { … }` block holding the hits, joined with the rest
//! of the pattern, so the evaluator joins and filters the hits like any other bindings.
//! Which hits to bind (the plan) is the caller's decision (`engine/read.rs`): this module
//! finds the calls and rewrites the algebra.

use spargebra::Query;
use spargebra::algebra::GraphPattern;
use spargebra::term::{GroundTerm, NamedNodePattern, TermPattern, TriplePattern, Variable};

use super::{Lane, SEARCH};
use crate::model::{Literal, NamedNode, Term};

/// Hits asked for when a pattern gives no `search:k`.
pub const DEFAULT_K: usize = 10;

/// One `search:` call, as written in a basic graph pattern.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchCall {
    pub subject: Variable,
    pub text: String,
    pub k: usize,
    pub lane: Lane,
    pub score: Option<Variable>,
    /// A declared index by name (`search:index`); every index when absent.
    pub index: Option<String>,
    pub min_score: Option<f32>,
    /// The other triple patterns of the same basic graph pattern (for plans).
    pub rest: Vec<TriplePattern>,
}

/// How one call was answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchReport {
    pub variable: String,
    /// `Nearest`, `FilterFirst` or `SearchFirst`.
    pub plan: super::SearchPlan,
    /// Hits asked of the index (the last round, for `search_first`).
    pub asked: usize,
    /// Hits bound into the query.
    pub bound: usize,
    /// False when `search_first` hit its cap before `k` hits passed the other patterns.
    pub complete: bool,
    /// Hits dropped because the record did not exist at the commit read.
    pub dropped_not_at_seq: usize,
    /// False when the index reflected another commit and too much changed in between to
    /// score the records as they were at the commit read.
    pub exact_at_seq: bool,
}

/// Chooses the hits (record, score) of one call.
pub type Answer<'a, E> = dyn FnMut(&SearchCall) -> Result<Vec<(Term, f32)>, E> + 'a;

/// What went wrong with a `search:` pattern (the caller turns it into its error type).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct SearchPatternError(pub String);

/// True when a basic graph pattern of the query uses the `search:` vocabulary (a walk of
/// the algebra: cheap next to printing the query).
pub fn uses_search(query: &Query) -> bool {
    let pattern = match query {
        Query::Select { pattern, .. }
        | Query::Construct { pattern, .. }
        | Query::Describe { pattern, .. }
        | Query::Ask { pattern, .. } => pattern,
    };
    pattern_uses_search(pattern)
}

fn pattern_uses_search(pattern: &GraphPattern) -> bool {
    match pattern {
        GraphPattern::Bgp { patterns } => {
            patterns.iter().any(|t| is_search(&t.predicate).is_some())
        }
        GraphPattern::Join { left, right }
        | GraphPattern::LeftJoin { left, right, .. }
        | GraphPattern::Union { left, right }
        | GraphPattern::Minus { left, right } => {
            pattern_uses_search(left) || pattern_uses_search(right)
        }
        GraphPattern::Filter { inner, .. }
        | GraphPattern::Graph { inner, .. }
        | GraphPattern::Extend { inner, .. }
        | GraphPattern::OrderBy { inner, .. }
        | GraphPattern::Project { inner, .. }
        | GraphPattern::Distinct { inner }
        | GraphPattern::Reduced { inner }
        | GraphPattern::Slice { inner, .. }
        | GraphPattern::Group { inner, .. } => pattern_uses_search(inner),
        _ => false,
    }
}

/// Finds every call, lets `answer` choose its hits (record, score), and rewrites the
/// query to bind them.
pub fn rewrite<E: From<SearchPatternError>>(
    query: &mut Query,
    answer: &mut Answer<'_, E>,
) -> Result<(), E> {
    let pattern = match query {
        Query::Select { pattern, .. }
        | Query::Construct { pattern, .. }
        | Query::Describe { pattern, .. }
        | Query::Ask { pattern, .. } => pattern,
    };
    let original = std::mem::replace(
        pattern,
        GraphPattern::Bgp {
            patterns: Vec::new(),
        },
    );
    *pattern = map_pattern(original, answer)?;
    Ok(())
}

fn map_pattern<E: From<SearchPatternError>>(
    pattern: GraphPattern,
    answer: &mut Answer<'_, E>,
) -> Result<GraphPattern, E> {
    let boxed = |inner: Box<GraphPattern>,
                 answer: &mut Answer<'_, E>|
     -> Result<Box<GraphPattern>, E> { Ok(Box::new(map_pattern(*inner, answer)?)) };
    Ok(match pattern {
        GraphPattern::Bgp { patterns } => rewrite_bgp(patterns, answer)?,
        GraphPattern::Join { left, right } => GraphPattern::Join {
            left: boxed(left, answer)?,
            right: boxed(right, answer)?,
        },
        GraphPattern::LeftJoin {
            left,
            right,
            expression,
        } => GraphPattern::LeftJoin {
            left: boxed(left, answer)?,
            right: boxed(right, answer)?,
            expression,
        },
        GraphPattern::Filter { expr, inner } => GraphPattern::Filter {
            expr,
            inner: boxed(inner, answer)?,
        },
        GraphPattern::Union { left, right } => GraphPattern::Union {
            left: boxed(left, answer)?,
            right: boxed(right, answer)?,
        },
        GraphPattern::Graph { name, inner } => GraphPattern::Graph {
            name,
            inner: boxed(inner, answer)?,
        },
        GraphPattern::Extend {
            inner,
            variable,
            expression,
        } => GraphPattern::Extend {
            inner: boxed(inner, answer)?,
            variable,
            expression,
        },
        GraphPattern::Minus { left, right } => GraphPattern::Minus {
            left: boxed(left, answer)?,
            right: boxed(right, answer)?,
        },
        GraphPattern::OrderBy { inner, expression } => GraphPattern::OrderBy {
            inner: boxed(inner, answer)?,
            expression,
        },
        GraphPattern::Project { inner, variables } => GraphPattern::Project {
            inner: boxed(inner, answer)?,
            variables,
        },
        GraphPattern::Distinct { inner } => GraphPattern::Distinct {
            inner: boxed(inner, answer)?,
        },
        GraphPattern::Reduced { inner } => GraphPattern::Reduced {
            inner: boxed(inner, answer)?,
        },
        GraphPattern::Slice {
            inner,
            start,
            length,
        } => GraphPattern::Slice {
            inner: boxed(inner, answer)?,
            start,
            length,
        },
        GraphPattern::Group {
            inner,
            variables,
            aggregates,
        } => GraphPattern::Group {
            inner: boxed(inner, answer)?,
            variables,
            aggregates,
        },
        other => other,
    })
}

fn is_search(predicate: &NamedNodePattern) -> Option<String> {
    match predicate {
        NamedNodePattern::NamedNode(n) => n.as_str().strip_prefix(SEARCH).map(str::to_owned),
        NamedNodePattern::Variable(_) => None,
    }
}

fn literal_of(object: &TermPattern, what: &str) -> Result<Literal, SearchPatternError> {
    match object {
        TermPattern::Literal(l) => Ok(l.clone()),
        other => Err(SearchPatternError(format!(
            "search:{what} takes a literal, got {other}"
        ))),
    }
}

fn rewrite_bgp<E: From<SearchPatternError>>(
    patterns: Vec<TriplePattern>,
    answer: &mut Answer<'_, E>,
) -> Result<GraphPattern, E> {
    let (search, rest): (Vec<TriplePattern>, Vec<TriplePattern>) = patterns
        .into_iter()
        .partition(|t| is_search(&t.predicate).is_some());
    if search.is_empty() {
        return Ok(GraphPattern::Bgp { patterns: rest });
    }
    // Group the search triples by their subject variable: one call per subject.
    let mut calls: Vec<SearchCall> = Vec::new();
    for triple in &search {
        let TermPattern::Variable(subject) = &triple.subject else {
            return Err(SearchPatternError(format!(
                "the subject of a search: pattern must be a variable, got {}",
                triple.subject
            ))
            .into());
        };
        let position = match calls.iter().position(|c| &c.subject == subject) {
            Some(p) => p,
            None => {
                calls.push(SearchCall {
                    subject: subject.clone(),
                    text: String::new(),
                    k: DEFAULT_K,
                    lane: Lane::Hybrid,
                    score: None,
                    index: None,
                    min_score: None,
                    rest: rest.clone(),
                });
                calls.len() - 1
            }
        };
        let call = &mut calls[position];
        let word = is_search(&triple.predicate).unwrap_or_default();
        match word.as_str() {
            "nearest" => call.text = literal_of(&triple.object, "nearest")?.value().to_owned(),
            "k" => {
                let value = literal_of(&triple.object, "k")?;
                call.k = value
                    .value()
                    .parse::<usize>()
                    .ok()
                    .filter(|k| (1..=super::MAX_SPARQL_K).contains(k))
                    .ok_or_else(|| {
                        SearchPatternError(format!(
                            "search:k must be an integer in 1..={}, got {}",
                            super::MAX_SPARQL_K,
                            value.value()
                        ))
                    })?;
            }
            "lane" => {
                let value = literal_of(&triple.object, "lane")?;
                call.lane = Lane::parse(value.value()).ok_or_else(|| {
                    SearchPatternError(format!(
                        "search:lane is \"dense\", \"sparse\" or \"hybrid\", got {:?}",
                        value.value()
                    ))
                })?;
            }
            "index" => call.index = Some(literal_of(&triple.object, "index")?.value().to_owned()),
            "minScore" => {
                let value = literal_of(&triple.object, "minScore")?;
                call.min_score = Some(value.value().parse().map_err(|_| {
                    SearchPatternError(format!(
                        "search:minScore takes a number, got {}",
                        value.value()
                    ))
                })?);
            }
            "score" => match &triple.object {
                TermPattern::Variable(v) => call.score = Some(v.clone()),
                other => {
                    return Err(SearchPatternError(format!(
                        "search:score binds a variable, got {other}"
                    ))
                    .into());
                }
            },
            other => {
                return Err(SearchPatternError(format!(
                    "unknown search:{other}; the vocabulary is nearest, k, lane, score, index, minScore (see ontologies/search.ttl)"
                ))
                .into());
            }
        }
    }
    let mut result = GraphPattern::Bgp { patterns: rest };
    for call in calls {
        if call.text.trim().is_empty() {
            return Err(SearchPatternError(format!(
                "?{} has search: patterns but no search:nearest \"text\"",
                call.subject.as_str()
            ))
            .into());
        }
        let hits = answer(&call)?;
        let mut variables = vec![call.subject.clone()];
        variables.extend(call.score.clone());
        let bindings = hits
            .into_iter()
            .filter_map(|(record, score)| {
                let record = match record {
                    Term::NamedNode(n) => GroundTerm::NamedNode(n),
                    Term::Literal(l) => GroundTerm::Literal(l),
                    _ => return None,
                };
                let mut row = vec![Some(record)];
                if call.score.is_some() {
                    row.push(Some(GroundTerm::Literal(Literal::from(f64::from(score)))));
                }
                Some(row)
            })
            .collect();
        let values = GraphPattern::Values {
            variables,
            bindings,
        };
        result = GraphPattern::Join {
            left: Box::new(values),
            right: Box::new(result),
        };
    }
    Ok(result)
}

/// A record's IRI as a term.
pub fn record_term(record: &str) -> Term {
    Term::NamedNode(NamedNode::new_unchecked(record))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_are_found_and_replaced_by_values() {
        let mut query = crate::sparql::parse_query(
            "PREFIX search: <https://strata.dev/ns/search#>
             SELECT ?t ?s WHERE { ?t search:nearest \"sign in\" ; search:k 5 ; search:lane \"dense\" ; search:score ?s . ?t <http://e/status> \"open\" }",
            None,
        )
        .unwrap();
        assert!(uses_search(&query));
        let mut seen = Vec::new();
        rewrite::<SearchPatternError>(&mut query, &mut |call| {
            seen.push(call.clone());
            Ok(vec![(record_term("http://e/t1"), 0.9)])
        })
        .unwrap();
        assert_eq!(seen.len(), 1);
        assert_eq!(seen[0].text, "sign in");
        assert_eq!((seen[0].k, seen[0].lane), (5, Lane::Dense));
        assert_eq!(seen[0].rest.len(), 1);
        let text = query.to_string();
        assert!(
            text.contains("VALUES") && text.contains("http://e/t1"),
            "{text}"
        );
        assert!(!text.contains(SEARCH), "{text}");
        let bad = crate::sparql::parse_query(
            "PREFIX search: <https://strata.dev/ns/search#> SELECT * WHERE { ?t search:k 5 }",
            None,
        );
        let mut bad = bad.unwrap();
        let error = rewrite::<SearchPatternError>(&mut bad, &mut |_| Ok(Vec::new())).unwrap_err();
        assert!(error.0.contains("no search:nearest"), "{error}");
    }
}
