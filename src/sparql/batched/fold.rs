//! What sits right above an answered group, done on its rows: once a group is a `VALUES`
//! block, the sub-select around it (`Project`, the `Extend` that names an aggregate) and a
//! join with a basic graph pattern whose variables are all the block's columns (BSBM BI 2:
//! `?other a bsbm:Product` joined with the products counted per shared feature) become
//! one `VALUES` block again, filtered on ids. Left to spareval, that join hashes the whole
//! pattern's scan to keep a few rows; here each row's quads are looked up by id.
//!
//! Exactness: `Project` of a multiset of rows keeps every row with the projected columns;
//! `Extend(?v, ?w)` with `?v` new copies the column (an unbound `?w` leaves `?v`
//! unbound); a basic graph pattern whose variables a row binds all has one solution
//! (every quad there in the default graph) or none, so the join keeps the row or drops
//! it. A row that leaves one of the pattern's variables unbound would join with many
//! solutions: then nothing is folded.

use spargebra::algebra::{Expression, GraphPattern};
use spargebra::term::{GroundTerm, NamedNodePattern, TermPattern, TriplePattern, Variable};

use crate::model::Term;
use crate::sparql::dataset::stored_id;
use rustc_hash::FxHashSet;

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
pub(super) fn fold(pattern: &mut GraphPattern, snapshot: &Snapshot) {
    let folded = match pattern {
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
}

type Rows = Vec<Vec<Option<GroundTerm>>>;

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
    // free is small beside the rows (a lookup is a binary search, a cache miss per
    // step), scanned once into a set.
    let sets: Vec<Option<FxHashSet<[TermId; 3]>>> = quads
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
                snapshot
                    .quads(pattern)
                    .map(|[s, p, o, _]| [s, p, o])
                    .collect()
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
                Some(set) => set.contains(&[key[0], key[1], key[2]]),
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
fn id_of(term: &GroundTerm, snapshot: &Snapshot) -> Option<TermId> {
    let term = Term::from(term.clone());
    stored_id::parse(&term).or_else(|| snapshot.lookup(&term))
}
