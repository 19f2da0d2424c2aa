//! Joins and groups of answered blocks. A tree of `Join`s whose leaves are all `VALUES` blocks
//! (sub-selects the batched path answered) becomes one block, joined by hashing on the
//! shared columns, each next block one that shares a column with the rows so far (blocks
//! no shared column connects, a cross product, stay spareval's). BSBM BI 5 joins three
//! sub-selects `{A} {B} {C}`: `A` (countries) and `B` (products) share nothing, `C`
//! shares a column with each; spareval joined them as written, building `A × B` first
//! and then hashing it against `C`. Here `B ⋈ C` goes first, then `A`. And a `GROUP BY`
//! over a block (BI 5's `A` is the maximum per country of a sub-select's counts) is
//! grouped here, so that `A` is a block too.
//!
//! Exactness: SPARQL's `Join` of multisets is commutative and associative, so any order
//! gives the same multiset; two rows join when they agree on every shared variable.
//! Only blocks whose shared cells are all bound are joined here (compatibility with an
//! unbound value is another rule: left to spareval). Cells are compared as terms: a
//! term the store holds by its id (a block may hold a group key as a stored id and a
//! `VALUES` of the query may hold the same IRI written out), any other by the term, so
//! two cells are equal exactly when they are the same RDF term. A group's aggregates
//! use spareval's accumulators on the decoded values (`group`).

use rustc_hash::{FxHashMap, FxHashSet};
use spareval::{Aggregate, ExpressionTerm};
use spargebra::algebra::{AggregateExpression, AggregateFunction, Expression, GraphPattern};
use spargebra::term::{GroundTerm, Variable};

use crate::model::{Literal, Term};
use crate::sparql::dataset::stored_id;
use crate::store::{Snapshot, TermId};

/// The most cells (rows × columns) a joined block may have; past it the joins stay
/// spareval's (which streams them).
const MAX_CELLS: usize = 1 << 20;

type Row = Vec<Option<GroundTerm>>;

/// One block: its columns and rows.
struct Block {
    variables: Vec<Variable>,
    rows: Vec<Row>,
}

/// A cell as compared in a join.
#[derive(Hash, PartialEq, Eq)]
enum Cell {
    Id(TermId),
    Term(GroundTerm),
}

fn cell(term: &GroundTerm, snapshot: &Snapshot) -> Cell {
    match super::fold::id_of(term, snapshot) {
        Some(id) => Cell::Id(id),
        None => Cell::Term(term.clone()),
    }
}

/// The one block `pattern` (a tree of joins of blocks) is, or `None` when it is not
/// such a tree, when the blocks are not all connected by shared columns (a cross product
/// is left to spareval, which streams it), when a shared cell is unbound, or past
/// `MAX_CELLS`.
pub(super) fn join(pattern: &GraphPattern, snapshot: &Snapshot) -> Option<GraphPattern> {
    let mut remaining = Vec::new();
    if !collect(pattern, &mut remaining) || remaining.len() < 2 {
        return None;
    }
    // Start with the smallest block; then, each time, the smallest block sharing a
    // column with the rows so far.
    remaining.sort_by_key(|(_, rows)| rows.len());
    let (variables, rows) = remaining.remove(0);
    let mut joined = Block {
        variables: variables.to_vec(),
        rows: rows.to_vec(),
    };
    while !remaining.is_empty() {
        let next = remaining
            .iter()
            .position(|(variables, _)| variables.iter().any(|v| joined.variables.contains(v)))?;
        let (variables, rows) = remaining.remove(next);
        joined = join_two(joined, variables, rows, snapshot)?;
    }
    tracing::debug!(rows = joined.rows.len(), "batched join of blocks");
    Some(GraphPattern::Values {
        variables: joined.variables,
        bindings: joined.rows,
    })
}

/// The leaves of a tree of `Join`s, if every one is a `VALUES` block.
fn collect<'a>(pattern: &'a GraphPattern, leaves: &mut Vec<(&'a [Variable], &'a [Row])>) -> bool {
    match pattern {
        GraphPattern::Join { left, right } => collect(left, leaves) && collect(right, leaves),
        GraphPattern::Values {
            variables,
            bindings,
        } => {
            leaves.push((variables, bindings));
            true
        }
        _ => false,
    }
}

/// `left ⋈ right`, hashed on the shared columns (a cross product when none).
fn join_two(
    left: Block,
    variables: &[Variable],
    rows: &[Row],
    snapshot: &Snapshot,
) -> Option<Block> {
    let shared: Vec<(usize, usize)> = left
        .variables
        .iter()
        .enumerate()
        .filter_map(|(i, v)| variables.iter().position(|w| w == v).map(|j| (i, j)))
        .collect();
    let extra: Vec<usize> = (0..variables.len())
        .filter(|j| !shared.iter().any(|(_, s)| s == j))
        .collect();
    let width = left.variables.len() + extra.len();
    let left_at: Vec<usize> = shared.iter().map(|(i, _)| *i).collect();
    let right_at: Vec<usize> = shared.iter().map(|(_, j)| *j).collect();
    let bound =
        |row: &Row, at: &[usize]| at.iter().all(|i| row.get(*i).is_some_and(Option::is_some));
    if !left.rows.iter().all(|row| bound(row, &left_at))
        || !rows.iter().all(|row| bound(row, &right_at))
    {
        return None;
    }
    let key = |row: &Row, at: &[usize]| -> Vec<Cell> {
        at.iter()
            .map(|i| match row.get(*i) {
                Some(Some(term)) => cell(term, snapshot),
                _ => Cell::Id(TermId::MAX),
            })
            .collect()
    };
    let mut table: FxHashMap<Vec<Cell>, Vec<usize>> = FxHashMap::default();
    for (r, row) in rows.iter().enumerate() {
        table.entry(key(row, &right_at)).or_default().push(r);
    }
    // The matches first: nothing is built past the limit.
    let mut matches: Vec<(usize, &[usize])> = Vec::new();
    let mut total = 0usize;
    for (l, row) in left.rows.iter().enumerate() {
        if let Some(found) = table.get(&key(row, &left_at)) {
            total += found.len();
            if total.saturating_mul(width) > MAX_CELLS {
                return None;
            }
            matches.push((l, found));
        }
    }
    let mut out = Vec::with_capacity(total);
    for (l, found) in matches {
        for r in found {
            let mut row = left.rows[l].clone();
            row.extend(extra.iter().map(|j| rows[*r].get(*j).cloned().flatten()));
            out.push(row);
        }
    }
    let mut joined_variables = left.variables;
    joined_variables.extend(extra.iter().map(|j| variables[*j].clone()));
    Some(Block {
        variables: joined_variables,
        rows: out,
    })
}

/// A `GROUP BY` of a block: its rows grouped on the key columns (cells compared as in a
/// join; an unbound key is a key of its own), each aggregate fed the values of one
/// column through spareval's accumulators, as the row-at-a-time path feeds them (an
/// unbound value is that row's error). `None` for other aggregate arguments (an
/// expression, `COUNT(DISTINCT *)`), a custom aggregate, a blank node in a result, or a
/// key the block lacks.
pub(super) fn group(
    columns: &[Variable],
    rows: &[Row],
    keys: &[Variable],
    aggregates: &[(Variable, AggregateExpression)],
    snapshot: &Snapshot,
) -> Option<GraphPattern> {
    enum Fold {
        Rows,
        Bound(usize),
        Distinct(usize),
        Value(usize, AggregateFunction, bool),
    }
    let column = |v: &Variable| columns.iter().position(|c| c == v);
    let key_at: Vec<usize> = keys.iter().map(column).collect::<Option<_>>()?;
    let mut folds = Vec::with_capacity(aggregates.len());
    for (_, aggregate) in aggregates {
        folds.push(match aggregate {
            AggregateExpression::CountSolutions { distinct: false } => Fold::Rows,
            AggregateExpression::FunctionCall {
                name,
                expr: Expression::Variable(v),
                distinct,
            } => {
                // A variable the block lacks is unbound in every row.
                let at = column(v).unwrap_or(usize::MAX);
                match (name, distinct) {
                    (AggregateFunction::Count, false) => Fold::Bound(at),
                    (AggregateFunction::Count, true) => Fold::Distinct(at),
                    _ => {
                        Aggregate::new(name, *distinct)?;
                        Fold::Value(at, name.clone(), *distinct)
                    }
                }
            }
            _ => return None,
        });
    }
    struct Acc {
        key: Vec<Option<GroundTerm>>,
        rows: u64,
        counts: Vec<u64>,
        distinct: Vec<FxHashSet<Cell>>,
        values: Vec<Aggregate>,
    }
    let new = |key: Vec<Option<GroundTerm>>| Acc {
        key,
        rows: 0,
        counts: folds.iter().map(|_| 0).collect(),
        distinct: folds.iter().map(|_| FxHashSet::default()).collect(),
        values: folds
            .iter()
            .filter_map(|fold| match fold {
                Fold::Value(_, function, distinct) => Aggregate::new(function, *distinct),
                _ => None,
            })
            .collect(),
    };
    let mut groups: Vec<Acc> = Vec::new();
    let mut index: FxHashMap<Vec<Option<Cell>>, usize> = FxHashMap::default();
    if keys.is_empty() {
        groups.push(new(Vec::new()));
        index.insert(Vec::new(), 0);
    }
    for row in rows {
        let at = |i: usize| row.get(i).and_then(Option::as_ref);
        let key: Vec<Option<Cell>> = key_at
            .iter()
            .map(|i| at(*i).map(|t| cell(t, snapshot)))
            .collect();
        let g = match index.get(&key) {
            Some(g) => *g,
            None => {
                groups.push(new(key_at.iter().map(|i| at(*i).cloned()).collect()));
                index.insert(key, groups.len() - 1);
                groups.len() - 1
            }
        };
        let acc = &mut groups[g];
        acc.rows += 1;
        let mut v = 0;
        for (f, fold) in folds.iter().enumerate() {
            match fold {
                Fold::Rows => {}
                Fold::Bound(i) => acc.counts[f] += u64::from(at(*i).is_some()),
                Fold::Distinct(i) => {
                    if let Some(term) = at(*i) {
                        acc.distinct[f].insert(cell(term, snapshot));
                    }
                }
                Fold::Value(i, ..) => {
                    acc.values[v].add(at(*i).and_then(|t| value(t, snapshot)));
                    v += 1;
                }
            }
        }
    }
    tracing::debug!(
        rows = rows.len(),
        groups = groups.len(),
        "batched group of a block"
    );
    let mut variables = keys.to_vec();
    variables.extend(aggregates.iter().map(|(v, _)| v.clone()));
    let mut bindings = Vec::with_capacity(groups.len());
    for acc in groups {
        let mut row = acc.key;
        let mut values = acc.values.into_iter();
        for (f, fold) in folds.iter().enumerate() {
            let count = match fold {
                Fold::Rows => acc.rows,
                Fold::Bound(_) => acc.counts[f],
                Fold::Distinct(_) => acc.distinct[f].len() as u64,
                Fold::Value(..) => {
                    row.push(match values.next().and_then(Aggregate::finish) {
                        Some(term) => Some(super::ground(term)?),
                        None => None,
                    });
                    continue;
                }
            };
            row.push(Some(GroundTerm::Literal(Literal::from(
                i64::try_from(count).unwrap_or(i64::MAX),
            ))));
        }
        bindings.push(row);
    }
    Some(GraphPattern::Values {
        variables,
        bindings,
    })
}

/// A cell's value for an expression: a stored id decoded, any other term as it is.
fn value(term: &GroundTerm, snapshot: &Snapshot) -> Option<ExpressionTerm> {
    let term = Term::from(term.clone());
    match stored_id::parse(&term) {
        Some(id) => snapshot.term(id).map(ExpressionTerm::from),
        None => Some(ExpressionTerm::from(term)),
    }
}
