//! The batched path: a `GROUP BY` over a basic graph pattern whose aggregates are counts
//! (`COUNT(*)`, `COUNT(?v)`, `COUNT(DISTINCT …)`) is answered straight from the store's
//! sorted index ranges, on fixed-width id keys, without building a spareval solution per
//! quad: one triple pattern is counted as it is scanned; several are joined into rows of
//! ids first (`join_rows`: smallest index range first, then each connected pattern looked
//! up per row or hashed on the shared variables), and the group key is an array of ids.
//! Terms are materialized only for the groups that leave (a `VALUES` block put where the
//! group was, so ORDER BY, LIMIT, HAVING and the rest of the query run as before). The
//! whole-graph aggregates of analytics and count-shaped BI queries take this path;
//! anything else (other aggregates, FILTER or OPTIONAL inside the group, a named graph, a
//! FROM clause) runs row at a time in spareval, in the same query.
//!
//! Exactness: the scans are the ones spareval would make (the snapshot's quads in the
//! default graph, at the pinned commit), a join is the natural join on shared variables
//! (a multiset: every default-graph quad is there once), repeated variables must bind
//! equal ids, a constant the store does not hold matches nothing, and a dictionary id is
//! one term, so `COUNT(DISTINCT ?v)` counts distinct ids. A group key that is a blank node
//! cannot be written in `VALUES`: such a query goes back to the row-at-a-time path, as do
//! cross products and joins past `MAX_ROWS` rows.

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

/// Whether the query has a group this path may answer (a group over a basic graph
/// pattern): queries without one are not copied or walked again.
pub fn may_apply(query: &Query) -> bool {
    fn walk(pattern: &GraphPattern) -> bool {
        match pattern {
            GraphPattern::Group { inner, .. } => {
                matches!(inner.as_ref(), GraphPattern::Bgp { patterns } if !patterns.is_empty())
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
    // Checked before any scan: other aggregates, or keys the pattern does not bind, go to
    // spareval without costing a join here first.
    if !countable(patterns, variables, aggregates) {
        return Ok(None);
    }
    // One pattern is counted as it is scanned; several are joined into rows of ids first.
    let (single, positions, equal, joined) = match patterns.as_slice() {
        [] => return Ok(None),
        [triple] => {
            let Some((pattern, positions, equal)) = scan_pattern(triple, snapshot) else {
                return Ok(None);
            };
            (Some(pattern), positions, equal, None)
        }
        many => {
            let Some((columns, rows)) = join_rows(many, snapshot, cancellation)? else {
                return Ok(None);
            };
            let positions = Positions {
                names: columns
                    .into_iter()
                    .enumerate()
                    .map(|(i, v)| (v, i))
                    .collect(),
            };
            (None, positions, Vec::new(), Some(rows))
        }
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
                if positions.names.len() > 3 {
                    return Ok(None);
                }
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
    // Adds one solution (ids at `positions`) to its group; false past `MAX_GROUPS`.
    let mut accumulate = |row: &[TermId]| -> bool {
        let mut key = [0; 3];
        for (slot, position) in key.iter_mut().zip(&keys) {
            *slot = row[*position];
        }
        let group = groups.entry(key).or_insert_with(new_group);
        group.rows += 1;
        let mut d = 0;
        for count in &counts {
            if let Count::Distinct(at) = count {
                let mut tuple = [0; 3];
                for (slot, position) in tuple.iter_mut().zip(at) {
                    *slot = row[*position];
                }
                group.distinct[d].insert(tuple);
                d += 1;
            }
        }
        groups.len() <= MAX_GROUPS
    };
    let alive = |n: usize| {
        if n.is_multiple_of(CHECK_EVERY) {
            cancellation
                .ensure_alive()
                .map_err(|_| QueryError::Cancelled)
        } else {
            Ok(())
        }
    };
    match (single, joined) {
        (Some(Some(pattern)), _) => {
            for (n, quad) in snapshot.quads(pattern).enumerate() {
                alive(n)?;
                if equal.iter().any(|(a, b)| quad[*a] != quad[*b]) {
                    continue;
                }
                if !accumulate(&quad) {
                    return Ok(None);
                }
            }
        }
        (_, Some(rows)) if !positions.names.is_empty() => {
            for (n, row) in rows.chunks(positions.names.len()).enumerate() {
                alive(n)?;
                if !accumulate(row) {
                    return Ok(None);
                }
            }
        }
        // A constant the store does not hold: nothing matches.
        _ => {}
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

/// Whether every key is a variable of the patterns and every aggregate a count of
/// solutions or of such a variable.
fn countable(
    patterns: &[TriplePattern],
    variables: &[Variable],
    aggregates: &[(Variable, AggregateExpression)],
) -> bool {
    let mentioned = |v: &Variable| {
        patterns.iter().any(|t| {
            matches!(&t.subject, TermPattern::Variable(x) if x == v)
                || matches!(&t.predicate, NamedNodePattern::Variable(x) if x == v)
                || matches!(&t.object, TermPattern::Variable(x) if x == v)
        })
    };
    variables.len() <= 3
        && variables.iter().all(mentioned)
        && aggregates.iter().all(|(_, aggregate)| match aggregate {
            AggregateExpression::CountSolutions { .. } => true,
            AggregateExpression::FunctionCall {
                name: AggregateFunction::Count,
                expr: Expression::Variable(v),
                ..
            } => mentioned(v),
            _ => false,
        })
}

/// Joined rows past this many go back to spareval (the memory budget stops them too).
const MAX_ROWS: usize = 4_000_000;
/// Patterns joined on this path at most.
const MAX_PATTERNS: usize = 8;

/// Joined solutions: the variables (columns) and the rows of ids, row-major.
type JoinedRows = (Vec<Variable>, Vec<TermId>);

/// One pattern of a join: its scan, where its variables sit, repeated variables.
struct Scan {
    pattern: Pattern,
    positions: Positions,
    equal: Vec<(usize, usize)>,
}

impl Scan {
    fn passes(&self, quad: &[TermId; 4]) -> bool {
        self.equal.iter().all(|(a, b)| quad[*a] == quad[*b])
    }
}

/// The solutions of a basic graph pattern of several triple patterns, as rows of ids
/// (row-major, one column per variable, the columns returned): the pattern with the
/// smallest index range first (`Snapshot::range_size`), then, each time, the smallest
/// one sharing a variable with the rows so far, joined by looking it up once per row
/// when the rows are few beside its range, else by hashing its scan on the shared
/// variables. `None`: not a join this path takes (a cross product, too many patterns
/// or rows, a triple term).
fn join_rows(
    patterns: &[TriplePattern],
    snapshot: &Snapshot,
    cancellation: &CancellationToken,
) -> Result<Option<JoinedRows>, QueryError> {
    if patterns.len() > MAX_PATTERNS {
        return Ok(None);
    }
    let mut scans = Vec::new();
    let mut all_vars: Vec<Variable> = Vec::new();
    let mut nothing = false;
    for triple in patterns {
        let Some((pattern, positions, equal)) = scan_pattern(triple, snapshot) else {
            return Ok(None);
        };
        for (v, _) in &positions.names {
            if !all_vars.contains(v) {
                all_vars.push(v.clone());
            }
        }
        match pattern {
            None => nothing = true,
            // A pattern without variables only says whether its quad is there.
            Some(pattern) if positions.names.is_empty() => {
                nothing |= snapshot.quads(pattern).next().is_none();
            }
            Some(pattern) => scans.push(Scan {
                pattern,
                positions,
                equal,
            }),
        }
    }
    if nothing {
        return Ok(Some((all_vars, Vec::new())));
    }
    if scans.is_empty() {
        return Ok(None);
    }
    let mut ticks = 0usize;
    let mut alive = || {
        ticks += 1;
        if ticks.is_multiple_of(CHECK_EVERY) {
            cancellation
                .ensure_alive()
                .map_err(|_| QueryError::Cancelled)
        } else {
            Ok(())
        }
    };
    let sizes: Vec<usize> = scans
        .iter()
        .map(|s| snapshot.range_size(s.pattern))
        .collect();
    let mut remaining: Vec<usize> = (0..scans.len()).collect();
    let first = remaining
        .iter()
        .copied()
        .min_by_key(|i| sizes[*i])
        .unwrap_or(0);
    remaining.retain(|i| *i != first);
    let mut columns: Vec<Variable> = scans[first]
        .positions
        .names
        .iter()
        .map(|(v, _)| v.clone())
        .collect();
    let mut rows: Vec<TermId> = Vec::new();
    for quad in snapshot.quads(scans[first].pattern) {
        alive()?;
        if scans[first].passes(&quad) {
            rows.extend(scans[first].positions.names.iter().map(|(_, p)| quad[*p]));
        }
        if rows.len() > MAX_ROWS * columns.len() {
            return Ok(None);
        }
    }
    while !remaining.is_empty() {
        let connected = |i: &usize| {
            scans[*i]
                .positions
                .names
                .iter()
                .any(|(v, _)| columns.contains(v))
        };
        let Some(next) = remaining
            .iter()
            .copied()
            .filter(connected)
            .min_by_key(|i| sizes[*i])
        else {
            return Ok(None);
        };
        remaining.retain(|i| *i != next);
        let scan = &scans[next];
        let mut shared: Vec<(usize, usize)> = Vec::new();
        let mut fresh: Vec<(Variable, usize)> = Vec::new();
        for (v, position) in &scan.positions.names {
            match columns.iter().position(|c| c == v) {
                Some(column) => shared.push((column, *position)),
                None => fresh.push((v.clone(), *position)),
            }
        }
        if shared.len() > 3 {
            return Ok(None);
        }
        let width = columns.len();
        let n_rows = rows.len() / width.max(1);
        let mut joined: Vec<TermId> = Vec::new();
        let emit = |row: &[TermId], quad: &[TermId; 4], joined: &mut Vec<TermId>| {
            joined.extend_from_slice(row);
            joined.extend(fresh.iter().map(|(_, p)| quad[*p]));
        };
        if n_rows.saturating_mul(32) < sizes[next] {
            // Few rows: look the pattern up with each row's values bound.
            for row in rows.chunks(width) {
                alive()?;
                let mut bound = scan.pattern;
                for (column, position) in &shared {
                    let id = Some(row[*column]);
                    match position {
                        0 => bound.subject = id,
                        1 => bound.predicate = id,
                        _ => bound.object = id,
                    }
                }
                for quad in snapshot.quads(bound) {
                    if scan.passes(&quad) {
                        emit(row, &quad, &mut joined);
                    }
                }
                if joined.len() > MAX_ROWS * (width + fresh.len()) {
                    return Ok(None);
                }
            }
        } else {
            // Many rows: hash the pattern's scan on the shared variables.
            let mut table: FxHashMap<[TermId; 3], Vec<[TermId; 4]>> = FxHashMap::default();
            for quad in snapshot.quads(scan.pattern) {
                alive()?;
                if scan.passes(&quad) {
                    let mut key = [0; 3];
                    for (slot, (_, position)) in key.iter_mut().zip(&shared) {
                        *slot = quad[*position];
                    }
                    table.entry(key).or_default().push(quad);
                }
            }
            for row in rows.chunks(width) {
                alive()?;
                let mut key = [0; 3];
                for (slot, (column, _)) in key.iter_mut().zip(&shared) {
                    *slot = row[*column];
                }
                if let Some(quads) = table.get(&key) {
                    for quad in quads {
                        emit(row, quad, &mut joined);
                    }
                }
                if joined.len() > MAX_ROWS * (width + fresh.len()) {
                    return Ok(None);
                }
            }
        }
        columns.extend(fresh.into_iter().map(|(v, _)| v));
        rows = joined;
    }
    Ok(Some((columns, rows)))
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
