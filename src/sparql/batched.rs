//! The batched path, first shape: a `GROUP BY` over one triple pattern whose aggregates
//! are counts (`COUNT(*)`, `COUNT(?v)`, `COUNT(DISTINCT …)`) is answered straight from
//! the store's sorted index ranges, on fixed-width id keys, without building a solution
//! per quad: the scan yields `[s, p, o, g]` ids, the group key is an array of ids, and
//! terms are materialized only for the groups that leave (a `VALUES` block put where the
//! group was, so ORDER BY, LIMIT, HAVING and the rest of the query run as before). The
//! whole-graph aggregates of analytics (per predicate, per class, distinct subjects) take
//! this path; anything else (joins, other aggregates, a named graph, a FROM clause)
//! runs row at a time in spareval, in the same query.
//!
//! Exactness: the scan is the one spareval would make (the snapshot's quads in the
//! default graph, at the pinned commit), repeated variables must bind equal ids, a
//! constant the store does not hold matches nothing, and a dictionary id is one term, so
//! `COUNT(DISTINCT ?v)` counts distinct ids. A group key that is a blank node cannot be
//! written in `VALUES`: such a query goes back to the row-at-a-time path.

use rustc_hash::{FxHashMap, FxHashSet};
use spargebra::Query;
use spargebra::algebra::{AggregateExpression, AggregateFunction, Expression, GraphPattern};
use spargebra::term::{GroundTerm, NamedNodePattern, TermPattern, TriplePattern, Variable};

use super::QueryError;
use crate::model::{Literal, Term};
use crate::store::{DEFAULT_GRAPH, GraphFilter, Pattern, Snapshot, TermId};
use spareval::CancellationToken;

/// Past this many groups the answer goes back to spareval (a `VALUES` block that large
/// would cost more to build than it saves).
const MAX_GROUPS: usize = 100_000;
/// Rows between two cancellation checks.
const CHECK_EVERY: usize = 4096;

/// Whether the query has a group this path may answer (a group over one triple
/// pattern): queries without one are not copied or walked again.
pub fn may_apply(query: &Query) -> bool {
    fn walk(pattern: &GraphPattern) -> bool {
        match pattern {
            GraphPattern::Group { inner, .. } => {
                matches!(inner.as_ref(), GraphPattern::Bgp { patterns } if patterns.len() == 1)
                    || walk(inner)
            }
            GraphPattern::Join { left, right }
            | GraphPattern::LeftJoin { left, right, .. }
            | GraphPattern::Union { left, right }
            | GraphPattern::Minus { left, right }
            | GraphPattern::Lateral { left, right } => walk(left) || walk(right),
            GraphPattern::Filter { inner, .. }
            | GraphPattern::Extend { inner, .. }
            | GraphPattern::OrderBy { inner, .. }
            | GraphPattern::Project { inner, .. }
            | GraphPattern::Distinct { inner }
            | GraphPattern::Reduced { inner }
            | GraphPattern::Slice { inner, .. } => walk(inner),
            _ => false,
        }
    }
    match query {
        Query::Select {
            pattern,
            dataset: None,
            ..
        }
        | Query::Ask {
            pattern,
            dataset: None,
            ..
        }
        | Query::Construct {
            pattern,
            dataset: None,
            ..
        }
        | Query::Describe {
            pattern,
            dataset: None,
            ..
        } => walk(pattern),
        _ => false,
    }
}

/// Replaces every group this path answers by its result; returns how many. Only a query
/// over the default graph as stored (no FROM, no protocol dataset) may take it.
pub fn rewrite(
    query: &mut Query,
    snapshot: &Snapshot,
    cancellation: &CancellationToken,
) -> Result<usize, QueryError> {
    let pattern = match query {
        Query::Select {
            pattern,
            dataset: None,
            ..
        }
        | Query::Ask {
            pattern,
            dataset: None,
            ..
        }
        | Query::Construct {
            pattern,
            dataset: None,
            ..
        }
        | Query::Describe {
            pattern,
            dataset: None,
            ..
        } => pattern,
        _ => return Ok(0),
    };
    let mut done = 0;
    rewrite_pattern(pattern, snapshot, cancellation, &mut done)?;
    Ok(done)
}

fn rewrite_pattern(
    pattern: &mut GraphPattern,
    snapshot: &Snapshot,
    cancellation: &CancellationToken,
    done: &mut usize,
) -> Result<(), QueryError> {
    if let GraphPattern::Group {
        inner,
        variables,
        aggregates,
    } = pattern
        && let Some(values) = grouped_counts(inner, variables, aggregates, snapshot, cancellation)?
    {
        *pattern = values;
        *done += 1;
        return Ok(());
    }
    let mut recurse = |p: &mut GraphPattern| rewrite_pattern(p, snapshot, cancellation, done);
    match pattern {
        GraphPattern::Join { left, right }
        | GraphPattern::LeftJoin { left, right, .. }
        | GraphPattern::Union { left, right }
        | GraphPattern::Minus { left, right } => {
            recurse(left)?;
            recurse(right)
        }
        GraphPattern::Lateral { left, right } => {
            recurse(left)?;
            recurse(right)
        }
        GraphPattern::Filter { inner, .. }
        | GraphPattern::Extend { inner, .. }
        | GraphPattern::OrderBy { inner, .. }
        | GraphPattern::Project { inner, .. }
        | GraphPattern::Distinct { inner }
        | GraphPattern::Reduced { inner }
        | GraphPattern::Slice { inner, .. }
        | GraphPattern::Group { inner, .. } => recurse(inner),
        // A named graph changes the scan; SERVICE is remote; the rest has no group.
        _ => Ok(()),
    }
}

/// What one aggregate counts.
enum Count {
    /// `COUNT(*)`, or `COUNT(?v)` of a variable the pattern always binds.
    Rows,
    /// `COUNT(DISTINCT ?v)` (one position) or `COUNT(DISTINCT *)` (every variable).
    Distinct(Vec<usize>),
}

/// Where each variable of the pattern sits in `[s, p, o]`.
struct Positions {
    names: Vec<(Variable, usize)>,
}

impl Positions {
    fn of(&self, variable: &Variable) -> Option<usize> {
        self.names
            .iter()
            .find(|(v, _)| v == variable)
            .map(|(_, p)| *p)
    }
}

/// The group's result as a `VALUES` block, or `None` when this path does not answer it.
fn grouped_counts(
    inner: &GraphPattern,
    variables: &[Variable],
    aggregates: &[(Variable, AggregateExpression)],
    snapshot: &Snapshot,
    cancellation: &CancellationToken,
) -> Result<Option<GraphPattern>, QueryError> {
    let GraphPattern::Bgp { patterns } = inner else {
        return Ok(None);
    };
    let [triple] = patterns.as_slice() else {
        return Ok(None);
    };
    let Some((pattern, positions, equal)) = scan_pattern(triple, snapshot) else {
        return Ok(None);
    };
    let mut keys = Vec::with_capacity(variables.len());
    for variable in variables {
        match positions.of(variable) {
            Some(position) => keys.push(position),
            // A key the pattern never binds: one unbound group; rare, left to spareval.
            None => return Ok(None),
        }
    }
    if keys.len() > 3 {
        return Ok(None);
    }
    let mut counts = Vec::with_capacity(aggregates.len());
    for (_, aggregate) in aggregates {
        let count = match aggregate {
            AggregateExpression::CountSolutions { distinct: false } => Count::Rows,
            AggregateExpression::CountSolutions { distinct: true } => {
                Count::Distinct(positions.names.iter().map(|(_, p)| *p).collect())
            }
            AggregateExpression::FunctionCall {
                name: AggregateFunction::Count,
                expr: Expression::Variable(v),
                distinct,
            } => match positions.of(v) {
                Some(position) if *distinct => Count::Distinct(vec![position]),
                Some(_) => Count::Rows,
                None => return Ok(None),
            },
            _ => return Ok(None),
        };
        counts.push(count);
    }
    // One accumulator per group: a row count, and the distinct id tuples of each
    // `DISTINCT` aggregate.
    struct Group {
        rows: u64,
        distinct: Vec<FxHashSet<[TermId; 3]>>,
    }
    let n_distinct = counts
        .iter()
        .filter(|c| matches!(c, Count::Distinct(_)))
        .count();
    let mut groups: FxHashMap<[TermId; 3], Group> = FxHashMap::default();
    let new_group = || Group {
        rows: 0,
        distinct: (0..n_distinct).map(|_| FxHashSet::default()).collect(),
    };
    if keys.is_empty() {
        groups.insert([0; 3], new_group());
    }
    if let Some(pattern) = pattern {
        for (n, quad) in snapshot.quads(pattern).enumerate() {
            if n % CHECK_EVERY == 0 {
                cancellation
                    .ensure_alive()
                    .map_err(|_| QueryError::Cancelled)?;
            }
            if equal.iter().any(|(a, b)| quad[*a] != quad[*b]) {
                continue;
            }
            let mut key = [0; 3];
            for (slot, position) in key.iter_mut().zip(&keys) {
                *slot = quad[*position];
            }
            let group = groups.entry(key).or_insert_with(new_group);
            group.rows += 1;
            let mut d = 0;
            for count in &counts {
                if let Count::Distinct(at) = count {
                    let mut tuple = [0; 3];
                    for (slot, position) in tuple.iter_mut().zip(at) {
                        *slot = quad[*position];
                    }
                    group.distinct[d].insert(tuple);
                    d += 1;
                }
            }
            if groups.len() > MAX_GROUPS {
                return Ok(None);
            }
        }
    }
    let mut output: Vec<Variable> = variables.to_vec();
    output.extend(aggregates.iter().map(|(v, _)| v.clone()));
    let mut bindings = Vec::with_capacity(groups.len());
    for (key, group) in groups {
        let mut row = Vec::with_capacity(output.len());
        for id in key.iter().take(keys.len()) {
            let Some(term) = snapshot.term(*id).and_then(ground) else {
                return Ok(None);
            };
            row.push(Some(term));
        }
        let mut d = 0;
        for count in &counts {
            let n = match count {
                Count::Rows => group.rows,
                Count::Distinct(_) => {
                    d += 1;
                    group.distinct[d - 1].len() as u64
                }
            };
            row.push(Some(GroundTerm::Literal(Literal::from(
                i64::try_from(n).unwrap_or(i64::MAX),
            ))));
        }
        bindings.push(row);
    }
    Ok(Some(GraphPattern::Values {
        variables: output,
        bindings,
    }))
}

/// The store pattern of a triple pattern (`None` inside: a constant the store does not
/// hold, so nothing matches), where its variables sit, and the positions that must hold
/// the same id (a variable used twice). `None`: not a pattern this path scans.
#[allow(clippy::type_complexity)]
fn scan_pattern(
    triple: &TriplePattern,
    snapshot: &Snapshot,
) -> Option<(Option<Pattern>, Positions, Vec<(usize, usize)>)> {
    let mut positions = Positions { names: Vec::new() };
    let mut equal = Vec::new();
    let mut bound: [Option<TermId>; 3] = [None; 3];
    let mut missing = false;
    let mut place = |name: Variable, position: usize, equal: &mut Vec<(usize, usize)>| {
        match positions.of(&name) {
            Some(first) => equal.push((first, position)),
            None => positions.names.push((name, position)),
        }
    };
    let mut constant = |term: Term, position: usize| match snapshot.lookup(&term) {
        Some(id) => bound[position] = Some(id),
        None => missing = true,
    };
    match &triple.subject {
        TermPattern::Variable(v) => place(v.clone(), 0, &mut equal),
        TermPattern::BlankNode(b) => place(blank_variable(b.as_str()), 0, &mut equal),
        TermPattern::NamedNode(n) => constant(n.clone().into(), 0),
        _ => return None,
    }
    match &triple.predicate {
        NamedNodePattern::Variable(v) => place(v.clone(), 1, &mut equal),
        NamedNodePattern::NamedNode(n) => constant(n.clone().into(), 1),
    }
    match &triple.object {
        TermPattern::Variable(v) => place(v.clone(), 2, &mut equal),
        TermPattern::BlankNode(b) => place(blank_variable(b.as_str()), 2, &mut equal),
        TermPattern::NamedNode(n) => constant(n.clone().into(), 2),
        TermPattern::Literal(l) => constant(l.clone().into(), 2),
        TermPattern::Triple(_) => return None,
    }
    let pattern = (!missing).then_some(Pattern {
        subject: bound[0],
        predicate: bound[1],
        object: bound[2],
        graph: GraphFilter::Is(DEFAULT_GRAPH),
    });
    Some((pattern, positions, equal))
}

/// A blank node of a pattern is a variable no one can name: one that cannot clash.
fn blank_variable(id: &str) -> Variable {
    Variable::new_unchecked(format!("__batched_blank_{id}"))
}

fn ground(term: Term) -> Option<GroundTerm> {
    Some(match term {
        Term::NamedNode(n) => GroundTerm::NamedNode(n),
        Term::Literal(l) => GroundTerm::Literal(l),
        Term::BlankNode(_) => return None,
        Term::Triple(triple) => {
            let subject = match triple.subject {
                crate::model::NamedOrBlankNode::NamedNode(n) => n,
                crate::model::NamedOrBlankNode::BlankNode(_) => return None,
            };
            GroundTerm::Triple(Box::new(spargebra::term::GroundTriple {
                subject,
                predicate: triple.predicate,
                object: ground(triple.object)?,
            }))
        }
    })
}
