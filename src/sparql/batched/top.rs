//! `ORDER BY` on a count, then `LIMIT`: only the groups that can be among the first
//! `OFFSET + LIMIT` rows leave the group as terms. BSBM's "products sharing most features
//! with one" (a05) makes about 4,000 groups at 5M triples and keeps 10; writing all of
//! them into the `VALUES` block and sorting them there (decoding each key to compare it)
//! cost three times the join and the grouping together.
//!
//! Exactness: a `COUNT` is always a bound `xsd:integer`, so ordering on it first is the
//! integers' order, and whatever orders the rows further (the next keys, or an order
//! SPARQL leaves open), none of the first `k` rows can have a count past the `k`-th
//! best count. The groups kept are every group with a count at least that good (ties
//! included), in their own order; spareval still sorts, projects and cuts them exactly as
//! it would have the whole block. Between the `LIMIT` and the group only operators that
//! keep every row may stand (`Project`, `ORDER BY`, `BIND`); a `HAVING`, a `DISTINCT` or a
//! join in between leaves the group whole.

use spargebra::algebra::{Expression, GraphPattern, OrderExpression};
use spargebra::term::Variable;

use super::{Agg, Group, Groups, Plan};

/// The group at the bottom of a `LIMIT … ORDER BY ?count` chain, and what to keep of it.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct TopCount {
    /// The group's aggregate the first order key reads.
    aggregate: Variable,
    descending: bool,
    /// `OFFSET + LIMIT`.
    keep: usize,
}

impl TopCount {
    /// The hint for the group under `pattern`, when `pattern` is a `LIMIT` over an
    /// `ORDER BY` whose first key is one of that group's aggregates, through operators
    /// that keep every row.
    pub(super) fn of(pattern: &GraphPattern) -> Option<Self> {
        let GraphPattern::Slice {
            inner,
            start,
            length: Some(length),
        } = pattern
        else {
            return None;
        };
        let mut at = inner.as_ref();
        if let GraphPattern::Project { inner, .. } = at {
            at = inner;
        }
        let GraphPattern::OrderBy { inner, expression } = at else {
            return None;
        };
        let (mut variable, descending) = match expression.first()? {
            OrderExpression::Desc(Expression::Variable(v)) => (v, true),
            OrderExpression::Asc(Expression::Variable(v)) => (v, false),
            _ => return None,
        };
        let mut at = inner.as_ref();
        loop {
            match at {
                GraphPattern::Project { inner, variables } if variables.contains(variable) => {
                    at = inner;
                }
                GraphPattern::OrderBy { inner, .. } => at = inner,
                GraphPattern::Extend {
                    inner,
                    variable: bound,
                    expression,
                } => {
                    if bound == variable {
                        let Expression::Variable(from) = expression else {
                            return None;
                        };
                        variable = from;
                    }
                    at = inner;
                }
                GraphPattern::Group { aggregates, .. } => {
                    let keep = start.checked_add(*length)?;
                    return aggregates.iter().any(|(v, _)| v == variable).then(|| Self {
                        aggregate: variable.clone(),
                        descending,
                        keep,
                    });
                }
                _ => return None,
            }
        }
    }

    /// Whether the hint goes on from `pattern` to its child (the chain `of` walked).
    pub(super) fn passes(pattern: &GraphPattern) -> bool {
        matches!(
            pattern,
            GraphPattern::Slice { .. }
                | GraphPattern::Project { .. }
                | GraphPattern::OrderBy { .. }
                | GraphPattern::Extend { .. }
        )
    }

    /// Drops the groups that cannot be among the first `keep` rows; nothing when the
    /// aggregate is not a count this path keeps on ids.
    pub(super) fn cut(
        &self,
        plan: &Plan<'_>,
        aggregates: &[(Variable, spargebra::algebra::AggregateExpression)],
        groups: &mut Groups,
    ) {
        let Some(at) = aggregates.iter().position(|(v, _)| *v == self.aggregate) else {
            return;
        };
        let mut distinct = 0;
        let mut which = None;
        for (i, agg) in plan.aggregates.iter().enumerate() {
            match agg {
                Agg::Rows if i == at => which = Some(None),
                Agg::DistinctIds(_) => {
                    if i == at {
                        which = Some(Some(distinct));
                    }
                    distinct += 1;
                }
                _ => {}
            }
        }
        let Some(which) = which else {
            return;
        };
        if groups.list.len() <= self.keep {
            return;
        }
        let count = |group: &Group| match which {
            None => group.rows,
            Some(d) => group
                .distinct_counted
                .unwrap_or(group.distinct[d].0.len() as u64),
        };
        if self.keep == 0 {
            groups.list.clear();
            groups.index.clear();
            return;
        }
        let mut counts: Vec<u64> = groups.list.iter().map(|(_, g)| count(g)).collect();
        let bound = if self.descending {
            *counts
                .select_nth_unstable_by(self.keep - 1, |a, b| b.cmp(a))
                .1
        } else {
            *counts.select_nth_unstable(self.keep - 1).1
        };
        groups.list.retain(|(_, group)| {
            let n = count(group);
            if self.descending {
                n >= bound
            } else {
                n <= bound
            }
        });
        // (The index is not read again: the groups are only written out.)
        groups.index.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spargebra::Query;

    fn top(query: &str) -> Option<TopCount> {
        let Query::Select { pattern, .. } =
            spargebra::SparqlParser::new().parse_query(query).unwrap()
        else {
            unreachable!()
        };
        // The query's `LIMIT` sits right under its projection or at the top.
        let mut at = &pattern;
        loop {
            if let Some(top) = TopCount::of(at) {
                return Some(top);
            }
            match at {
                GraphPattern::Project { inner, .. }
                | GraphPattern::Slice { inner, .. }
                | GraphPattern::Filter { inner, .. }
                | GraphPattern::Distinct { inner } => at = inner,
                _ => return None,
            }
        }
    }

    #[test]
    fn a_limit_over_an_order_on_a_count_is_a_hint() {
        let hint = top(
            "SELECT ?o (COUNT(?f) AS ?n) { ?o <http://e/p> ?f } GROUP BY ?o ORDER BY DESC(?n) ?o LIMIT 10",
        )
        .expect("a hint");
        assert!(hint.descending);
        assert_eq!(hint.keep, 10);
        let hint = top(
            "SELECT ?o { { SELECT ?o (COUNT(?f) AS ?n) { ?o <http://e/p> ?f } GROUP BY ?o } } ORDER BY ?n LIMIT 5 OFFSET 3",
        )
        .expect("through a sub-select's projection");
        assert!(!hint.descending);
        assert_eq!(hint.keep, 8);
    }

    #[test]
    fn anything_that_drops_or_merges_rows_in_between_is_not() {
        for query in [
            // HAVING
            "SELECT ?o (COUNT(?f) AS ?n) { ?o <http://e/p> ?f } GROUP BY ?o HAVING (COUNT(?f) > 1) ORDER BY DESC(?n) LIMIT 10",
            // DISTINCT over the projection
            "SELECT DISTINCT ?n { { SELECT ?o (COUNT(?f) AS ?n) { ?o <http://e/p> ?f } GROUP BY ?o } } ORDER BY DESC(?n) LIMIT 10",
            // a join above the group
            "SELECT ?o ?n { ?o <http://e/q> ?x { SELECT ?o (COUNT(?f) AS ?n) { ?o <http://e/p> ?f } GROUP BY ?o } } ORDER BY DESC(?n) LIMIT 10",
            // the first key is a group key, or an expression
            "SELECT ?o (COUNT(?f) AS ?n) { ?o <http://e/p> ?f } GROUP BY ?o ORDER BY ?o LIMIT 10",
            "SELECT ?o (COUNT(?f) AS ?n) { ?o <http://e/p> ?f } GROUP BY ?o ORDER BY DESC(?n + 1) LIMIT 10",
            // no LIMIT
            "SELECT ?o (COUNT(?f) AS ?n) { ?o <http://e/p> ?f } GROUP BY ?o ORDER BY DESC(?n)",
        ] {
            assert_eq!(top(query), None, "{query}");
        }
    }
}
