//! What sits right above an answered group, done on its rows: once a group is a `VALUES`
//! block, the sub-select around it (`Project`, the `Extend` that names an aggregate) and a
//! join with a basic graph pattern whose variables are all the block's columns (BSBM BI 2:
//! `?other a bsbm:Product` joined with the products counted per shared feature) become
//! one `VALUES` block again, filtered on ids. Left to spareval, that join hashes the whole
//! pattern's scan to keep a few rows; here each row's quads are looked up by id.
//!
//! Joins of blocks are `blocks`'. Three more shapes, all of BSBM BI 7 (the products most offered, a `LIMIT` of them, those
//! no vendor of one country offers): an `ORDER BY` of integer columns (counts), a `LIMIT`
//! / `OFFSET`, and a `FILTER` of `EXISTS` / `NOT EXISTS` conjuncts over a block, the
//! inside joined once from the block's distinct values (`Exists::matching`) where spareval
//! would evaluate it once per row.
//!
//! Exactness: `Project` of a multiset of rows keeps every row with the projected columns;
//! `Extend(?v, ?w)` with `?v` new copies the column (an unbound `?w` leaves `?v`
//! unbound); a basic graph pattern whose variables a row binds all has one solution
//! (every quad there in the default graph) or none, so the join keeps the row or drops
//! it. A row that leaves one of the pattern's variables unbound would join with many
//! solutions: then nothing is folded. An `ORDER BY` is folded only when each key is a
//! column of `xsd:integer` literals (or unbound, which orders first): SPARQL orders those
//! by value, as `i64` does; rows with equal keys may come in any order (SPARQL leaves it
//! open, and spareval's sort is not stable either). `Slice` keeps the rows it names.
//! `EXISTS` / `NOT EXISTS` conjuncts are `Exists::of`'s (see there), each row's shared
//! values must all be bound (else nothing is folded), and a value the store does not hold
//! has no solution inside.

use spargebra::algebra::{Expression, GraphPattern, OrderExpression};
use spargebra::term::{GroundTerm, NamedNodePattern, TermPattern, TriplePattern, Variable};

use super::exists::{Bare, Exists};
use super::values::conjuncts;
use super::{Context, IdTuples};
use crate::model::Term;
use crate::sparql::QueryError;
use crate::sparql::dataset::stored_id;

use crate::store::{DEFAULT_GRAPH, GraphFilter, Pattern, QuadKey, Snapshot, TermId};

/// A pattern's range up to this many entries per row is scanned into a set rather than
/// looked up once per row (reading an entry in order costs a few nanoseconds, a lookup a
/// few microseconds at 5M quads).
const SCAN_PER_ROW: usize = 64;

/// `SCAN_PER_ROW`, or 0 in the tests that cut everything into tiny parts (so the same
/// random graphs go through both ways of joining).
fn scan_per_row() -> usize {
    #[cfg(test)]
    if super::parallel::TINY_PARTS.get() {
        return 0;
    }
    SCAN_PER_ROW
}

/// Folds `pattern` into a `VALUES` block when it is one of the shapes above over one
/// (its children already folded); otherwise leaves it.
pub(super) fn fold(pattern: &mut GraphPattern, context: &Context<'_>) -> Result<(), QueryError> {
    let snapshot = context.snapshot;
    if matches!(pattern, GraphPattern::Join { .. })
        && let Some(values) = super::blocks::join(pattern, snapshot)
    {
        *pattern = values;
        return Ok(());
    }
    // A LIMIT first cuts the ORDER BY below it (so it decodes only what competes).
    if let GraphPattern::Slice {
        inner,
        start,
        length: Some(length),
    } = pattern
    {
        order_first(inner, start.saturating_add(*length), snapshot);
    }
    let folded = match pattern {
        GraphPattern::Group {
            inner,
            variables: keys,
            aggregates,
        } => match &**inner {
            GraphPattern::Values {
                variables,
                bindings,
            } => super::blocks::group(variables, bindings, keys, aggregates, snapshot),
            _ => None,
        },
        GraphPattern::OrderBy { inner, expression } => match &mut **inner {
            GraphPattern::Values {
                variables,
                bindings,
            } => order_by(variables, bindings, expression, None, snapshot),
            _ => None,
        },
        GraphPattern::Slice {
            inner,
            start,
            length,
        } => match &mut **inner {
            GraphPattern::Values {
                variables,
                bindings,
            } => {
                let mut rows = std::mem::take(bindings);
                rows.drain(..(*start).min(rows.len()));
                if let Some(length) = length {
                    rows.truncate(*length);
                }
                Some(GraphPattern::Values {
                    variables: std::mem::take(variables),
                    bindings: rows,
                })
            }
            _ => None,
        },
        GraphPattern::Filter { expr, inner } => match &mut **inner {
            GraphPattern::Values {
                variables,
                bindings,
            } => match iri_filter(expr, variables, bindings, snapshot) {
                Some(values) => Some(values),
                None => exists_filter(expr, variables, bindings, context)?,
            },
            _ => None,
        },
        GraphPattern::Project { inner, variables } => match &mut **inner {
            GraphPattern::Values {
                variables: columns,
                bindings,
            } => project(columns, bindings, variables),
            _ => None,
        },
        GraphPattern::Extend {
            inner,
            variable,
            expression: Expression::Variable(from),
        } => match &mut **inner {
            GraphPattern::Values {
                variables: columns,
                bindings,
            } => copy_column(columns, bindings, variable, from),
            _ => None,
        },
        GraphPattern::Join { left, right } => match (&mut **left, &mut **right) {
            (
                GraphPattern::Bgp { patterns },
                GraphPattern::Values {
                    variables,
                    bindings,
                },
            )
            | (
                GraphPattern::Values {
                    variables,
                    bindings,
                },
                GraphPattern::Bgp { patterns },
            ) => semi_join(variables, bindings, patterns, snapshot),
            _ => None,
        },
        _ => None,
    };
    if let Some(values) = folded {
        *pattern = values;
    }
    Ok(())
}

/// One cell of an `ORDER BY` key as SPARQL orders it within one column: unbound first,
/// then integers by value, or IRIs by their text.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Cell {
    Unbound,
    Integer(i64),
    Iri(String),
}

/// The first `limit` rows (all without one) sorted on `keys`, when each key is a column
/// of `xsd:integer` literals or of IRIs (each possibly unbound; see above). IRIs are
/// decoded only for the rows that compete for a place: the rows are first ordered on the
/// leading integer keys, and only those up to the `limit`-th row's group of equal keys
/// are decoded and sorted whole (BSBM BI 2: the top 10 of 20k products by shared
/// features, then by IRI, decodes the ~50 with the most). With `iris` false a key of
/// IRIs folds nothing (a `Slice` above may fold it with its limit).
fn order_by(
    columns: &[Variable],
    rows: &mut Rows,
    keys: &[OrderExpression],
    limit: Option<usize>,
    snapshot: &Snapshot,
) -> Option<GraphPattern> {
    let mut at = Vec::with_capacity(keys.len());
    for key in keys {
        let (OrderExpression::Asc(Expression::Variable(v))
        | OrderExpression::Desc(Expression::Variable(v))) = key
        else {
            return None;
        };
        at.push((
            columns.iter().position(|c| c == v)?,
            matches!(key, OrderExpression::Desc(_)),
        ));
    }
    let integer = |cell: Option<&GroundTerm>| -> Option<Cell> {
        match cell {
            None => Some(Cell::Unbound),
            Some(GroundTerm::Literal(l)) if l.datatype() == oxrdf::vocab::xsd::INTEGER => {
                l.value().parse().ok().map(Cell::Integer)
            }
            Some(_) => None,
        }
    };
    fn cell(row: &Row, i: usize) -> Option<&GroundTerm> {
        row.get(i).and_then(Option::as_ref)
    }
    // Which keys hold integers (decided on every row), which IRIs.
    let mut is_integer = Vec::with_capacity(at.len());
    for &(i, _) in &at {
        if rows.iter().all(|row| integer(cell(row, i)).is_some()) {
            is_integer.push(true);
        } else if limit.is_some()
            && rows
                .iter()
                .all(|row| matches!(cell(row, i), None | Some(GroundTerm::NamedNode(_))))
        {
            is_integer.push(false);
        } else {
            return None;
        }
    }
    let leading = is_integer.iter().take_while(|&&b| b).count();
    let compare = |a: &[Cell], b: &[Cell]| {
        for ((x, y), (_, descending)) in a.iter().zip(b).zip(&at) {
            let order = if *descending { y.cmp(x) } else { x.cmp(y) };
            if order.is_ne() {
                return order;
            }
        }
        std::cmp::Ordering::Equal
    };
    let integers = |row: &Row| -> Vec<Cell> {
        at[..leading]
            .iter()
            .map(|&(i, _)| integer(cell(row, i)).unwrap_or(Cell::Unbound))
            .collect()
    };
    let mut keyed: Vec<(Vec<Cell>, Row)> = std::mem::take(rows)
        .into_iter()
        .map(|row| (integers(&row), row))
        .collect();
    keyed.sort_by(|(a, _), (b, _)| compare(a, b));
    let limit = limit.unwrap_or(usize::MAX);
    if leading < at.len() {
        // The rows that may still take one of the first `limit` places.
        let end = match keyed.get(limit.saturating_sub(1)) {
            Some((last, _)) if limit > 0 => {
                limit + keyed[limit..].partition_point(|(k, _)| k == last)
            }
            _ if limit == 0 => 0,
            _ => keyed.len(),
        };
        keyed.truncate(end);
        for (key, row) in &mut keyed {
            for (&(i, _), &integer_key) in at[leading..].iter().zip(&is_integer[leading..]) {
                key.push(if integer_key {
                    integer(cell(row, i)).unwrap_or(Cell::Unbound)
                } else {
                    match cell(row, i) {
                        None => Cell::Unbound,
                        Some(GroundTerm::NamedNode(n)) => Cell::Iri(iri_text(n, snapshot)?),
                        Some(_) => return None,
                    }
                });
            }
        }
        keyed.sort_by(|(a, _), (b, _)| compare(a, b));
    }
    keyed.truncate(limit);
    Some(GraphPattern::Values {
        variables: columns.to_vec(),
        bindings: keyed.into_iter().map(|(_, row)| row).collect(),
    })
}

/// An IRI of a block as text (a stored id decoded).
fn iri_text(iri: &oxrdf::NamedNode, snapshot: &Snapshot) -> Option<String> {
    match stored_id::parse(&Term::NamedNode(iri.clone())) {
        None => Some(iri.as_str().to_owned()),
        Some(id) => match snapshot.term(id)? {
            Term::NamedNode(n) => Some(n.into_string()),
            _ => None,
        },
    }
}

/// Under a `Slice` of `k` rows: an `ORDER BY` over a block (maybe under a `Project`)
/// becomes the block's first `k` rows in order.
fn order_first(pattern: &mut GraphPattern, k: usize, snapshot: &Snapshot) {
    let keep = match pattern {
        GraphPattern::Project { variables, .. } => Some(variables.clone()),
        _ => None,
    };
    let order = match &mut *pattern {
        GraphPattern::Project { inner, .. } => &mut **inner,
        other => other,
    };
    let GraphPattern::OrderBy { inner, expression } = order else {
        return;
    };
    let GraphPattern::Values {
        variables,
        bindings,
    } = &mut **inner
    else {
        return;
    };
    let Some(ordered) = order_by(variables, bindings, expression, Some(k), snapshot) else {
        return;
    };
    *order = ordered;
    if let Some(keep) = keep
        && let GraphPattern::Project { inner, .. } = pattern
        && let GraphPattern::Values {
            variables,
            bindings,
        } = &mut **inner
        && let Some(projected) = project(variables, bindings, &keep)
    {
        *pattern = projected;
    }
}

/// The rows a `FILTER` made only of `EXISTS` / `NOT EXISTS` conjuncts keeps (see above).
fn exists_filter(
    expr: &Expression,
    columns: &[Variable],
    rows: &mut Rows,
    context: &Context<'_>,
) -> Result<Option<GraphPattern>, QueryError> {
    let snapshot = context.snapshot;
    let mut tests = Vec::new();
    for conjunct in conjuncts(expr) {
        let Some(exists) = Exists::of(conjunct, columns, &[]) else {
            return Ok(None);
        };
        tests.push(exists);
    }
    // Each row's shared ids per test; `None` for a value the store does not hold.
    let mut keys: Vec<Vec<Option<[TermId; 3]>>> = vec![Vec::with_capacity(rows.len()); tests.len()];
    for (exists, keys) in tests.iter().zip(&mut keys) {
        let Some(at) = exists.positions_in(columns) else {
            return Ok(None);
        };
        for row in rows.iter() {
            let mut key = Some([0; 3]);
            for (slot, i) in at.iter().enumerate() {
                let Some(Some(term)) = row.get(*i) else {
                    return Ok(None);
                };
                match (id_of(term, snapshot), key.as_mut()) {
                    (Some(id), Some(key)) => key[slot] = id,
                    _ => key = None,
                }
            }
            keys.push(key);
        }
    }
    let mut found = Vec::with_capacity(tests.len());
    for (exists, keys) in tests.iter().zip(&keys) {
        let outer: IdTuples = keys.iter().flatten().copied().collect();
        let init = || Some(Bare::new(snapshot));
        let Some(tuples) = exists.matching(&outer, snapshot, &context.workers, true, &init)? else {
            return Ok(None);
        };
        found.push(tuples);
    }
    let mut kept = Vec::with_capacity(rows.len());
    for (r, row) in std::mem::take(rows).into_iter().enumerate() {
        let keep = tests
            .iter()
            .zip(&keys)
            .zip(&found)
            .all(|((exists, keys), tuples)| {
                keys[r].is_some_and(|key| tuples.contains(&key)) != exists.negated
            });
        if keep {
            kept.push(row);
        }
    }
    Ok(Some(GraphPattern::Values {
        variables: columns.to_vec(),
        bindings: kept,
    }))
}

/// The rows a `FILTER` made only of `?v = <iri>`, `?v != <iri>` and `sameTerm` (or its
/// negation) conjuncts keeps, when each such column holds IRIs (or nothing): compared by
/// id, so the kept rows' terms are never decoded (BSBM BI 2's `?otherProduct != <p>` over
/// 20k products). An unbound `?v` is an error in both comparisons: the row goes. Between
/// two IRIs `=` and `sameTerm` agree (RDF term equality).
fn iri_filter(
    expr: &Expression,
    columns: &[Variable],
    rows: &mut Rows,
    snapshot: &Snapshot,
) -> Option<GraphPattern> {
    // (column, the IRI, its stored id, equality wanted)
    let mut tests = Vec::new();
    for conjunct in conjuncts(expr) {
        let ((a, b), equal) = match conjunct {
            Expression::Equal(a, b) | Expression::SameTerm(a, b) => ((&**a, &**b), true),
            Expression::Not(inner) => match &**inner {
                Expression::Equal(a, b) | Expression::SameTerm(a, b) => ((&**a, &**b), false),
                _ => return None,
            },
            _ => return None,
        };
        let (variable, iri) = match (a, b) {
            (Expression::Variable(v), Expression::NamedNode(n))
            | (Expression::NamedNode(n), Expression::Variable(v)) => (v, n),
            _ => return None,
        };
        let column = columns.iter().position(|c| c == variable)?;
        let id = snapshot.lookup(&Term::NamedNode(iri.clone()));
        tests.push((column, iri, id, equal));
    }
    // Another kind of term in a tested column: the evaluator decides (nothing taken yet).
    let iris_only = rows.iter().all(|row| {
        tests.iter().all(|&(column, ..)| {
            matches!(
                row.get(column).and_then(Option::as_ref),
                None | Some(GroundTerm::NamedNode(_))
            )
        })
    });
    if !iris_only {
        return None;
    }
    let passes = |row: &Row| {
        tests.iter().all(|&(column, iri, id, equal)| {
            match row.get(column).and_then(Option::as_ref) {
                Some(GroundTerm::NamedNode(n)) => {
                    let same = match stored_id::parse(&Term::NamedNode(n.clone())) {
                        Some(stored) => Some(stored) == id,
                        None => n == iri,
                    };
                    same == equal
                }
                _ => false,
            }
        })
    };
    let kept = std::mem::take(rows).into_iter().filter(passes).collect();
    Some(GraphPattern::Values {
        variables: columns.to_vec(),
        bindings: kept,
    })
}

type Row = Vec<Option<GroundTerm>>;
type Rows = Vec<Row>;

fn project(columns: &[Variable], rows: &mut Rows, keep: &[Variable]) -> Option<GraphPattern> {
    let at: Vec<Option<usize>> = keep
        .iter()
        .map(|v| columns.iter().position(|c| c == v))
        .collect();
    let bindings = std::mem::take(rows)
        .into_iter()
        .map(|mut row| {
            at.iter()
                .map(|i| i.and_then(|i| row.get_mut(i).and_then(Option::take)))
                .collect()
        })
        .collect();
    Some(GraphPattern::Values {
        variables: keep.to_vec(),
        bindings,
    })
}

fn copy_column(
    columns: &[Variable],
    rows: &mut Rows,
    variable: &Variable,
    from: &Variable,
) -> Option<GraphPattern> {
    // `?v` already bound would be an error case of `Extend`: left to spareval.
    if columns.contains(variable) {
        return None;
    }
    let from = columns.iter().position(|c| c == from);
    let mut bindings = std::mem::take(rows);
    for row in &mut bindings {
        let copy = from.and_then(|i| row.get(i).cloned().flatten());
        row.push(copy);
    }
    let mut variables = columns.to_vec();
    variables.push(variable.clone());
    Some(GraphPattern::Values {
        variables,
        bindings,
    })
}

/// A position of a triple pattern: a stored id, or the block's column.
#[derive(Clone, Copy)]
enum Slot {
    Id(TermId),
    Column(usize),
}

fn semi_join(
    columns: &[Variable],
    rows: &mut Rows,
    patterns: &[TriplePattern],
    snapshot: &Snapshot,
) -> Option<GraphPattern> {
    let column = |v: &Variable| columns.iter().position(|c| c == v).map(Slot::Column);
    let constant = |term: Term| snapshot.lookup(&term).map(Slot::Id);
    // `None` inside: a constant the store does not hold (no row can match).
    let mut quads: Vec<Option<[Slot; 3]>> = Vec::new();
    for triple in patterns {
        let subject = match &triple.subject {
            TermPattern::Variable(v) => Some(column(v)?),
            TermPattern::NamedNode(n) => constant(n.clone().into()),
            // A blank node is a variable no row binds; a triple term is not looked up here.
            _ => return None,
        };
        let predicate = match &triple.predicate {
            NamedNodePattern::Variable(v) => Some(column(v)?),
            NamedNodePattern::NamedNode(n) => constant(n.clone().into()),
        };
        let object = match &triple.object {
            TermPattern::Variable(v) => Some(column(v)?),
            TermPattern::NamedNode(n) => constant(n.clone().into()),
            TermPattern::Literal(l) => constant(l.clone().into()),
            _ => return None,
        };
        quads.push(
            subject
                .zip(predicate)
                .zip(object)
                .map(|((s, p), o)| [s, p, o]),
        );
    }
    // Every column a pattern uses must be bound in every row.
    let used: Vec<usize> = quads
        .iter()
        .flatten()
        .flatten()
        .filter_map(|slot| match slot {
            Slot::Column(i) => Some(*i),
            Slot::Id(_) => None,
        })
        .collect();
    if rows
        .iter()
        .any(|row| used.iter().any(|i| row.get(*i).is_none_or(Option::is_none)))
    {
        return None;
    }
    // Each pattern's quads: looked up per row, or, when its range with the columns left
    // free is small beside the rows (a lookup is a binary search over the whole store, a
    // cache miss per step), scanned once into a sorted array searched per row (hashing
    // the range cost more than the rows' searches: BSBM BI 2 at 50M, 139k products
    // against 20k rows).
    let sets: Vec<Option<Vec<[TermId; 3]>>> = quads
        .iter()
        .map(|quad| {
            let quad = quad.as_ref()?;
            let free = |slot: &Slot| match slot {
                Slot::Id(id) => Some(*id),
                Slot::Column(_) => None,
            };
            let pattern = Pattern {
                subject: free(&quad[0]),
                predicate: free(&quad[1]),
                object: free(&quad[2]),
                graph: GraphFilter::Is(DEFAULT_GRAPH),
            };
            (snapshot.range_size(pattern) < rows.len().saturating_mul(scan_per_row())).then(|| {
                let mut set: Vec<[TermId; 3]> = snapshot
                    .quads(pattern)
                    .map(|[s, p, o, _]| [s, p, o])
                    .collect();
                // Often sorted already (a range of one ordering): then this is one pass.
                set.sort_unstable();
                set
            })
        })
        .collect();
    let mut kept = Vec::with_capacity(rows.len());
    'rows: for row in std::mem::take(rows) {
        for (quad, set) in quads.iter().zip(&sets) {
            let Some(quad) = quad else {
                continue 'rows;
            };
            let mut key: QuadKey = [0, 0, 0, DEFAULT_GRAPH];
            for (slot, id) in quad.iter().zip(key.iter_mut()) {
                *id = match *slot {
                    Slot::Id(id) => id,
                    Slot::Column(i) => match row[i].as_ref().and_then(|t| id_of(t, snapshot)) {
                        Some(id) => id,
                        None => continue 'rows,
                    },
                };
            }
            let found = match set {
                Some(set) => set.binary_search(&[key[0], key[1], key[2]]).is_ok(),
                None => snapshot.contains(&key),
            };
            if !found {
                continue 'rows;
            }
        }
        kept.push(row);
    }
    Some(GraphPattern::Values {
        variables: columns.to_vec(),
        bindings: kept,
    })
}

/// The stored id of a term of the block (`stored_id` or looked up); `None`: not stored.
pub(super) fn id_of(term: &GroundTerm, snapshot: &Snapshot) -> Option<TermId> {
    let term = Term::from(term.clone());
    stored_id::parse(&term).or_else(|| snapshot.lookup(&term))
}
