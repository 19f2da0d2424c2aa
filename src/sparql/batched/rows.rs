//! `ORDER BY` over a basic graph pattern (through `FILTER`s and `BIND`s): the sort needs
//! every solution before the first one leaves, so finding them all here costs nothing
//! the row-at-a-time path would not spend, and here they are joined on ids (lookups or
//! hash joins, on the query's threads) and filtered on values decoded once per id. The
//! solutions become a `VALUES` block where the pattern was; spareval sorts, projects,
//! removes duplicates and cuts as before. BSBM explore query 5 (products similar to one:
//! its feature values joined with everyone's, two numeric windows) is this shape.
//!
//! Exactness: the block holds the pattern's solutions as a multiset (`join_rows` is the
//! natural join, the filters and binds run per row with spareval's expressions, a
//! solution the filter rejects or errors on is dropped), with the variables the query
//! can still see above it: all of them, or under a projection those it keeps and those
//! the order reads. A blank node cannot be written in `VALUES`: then the pattern is left
//! to spareval, as are blocks past `MAX_CELLS` (terms in a block cost more memory than
//! spareval's encoded rows).

use spargebra::algebra::{GraphPattern, OrderExpression};
use spargebra::term::{GroundTerm, NamedNodePattern, TermPattern, Variable};

use super::values::{self, SharedMemo};
use super::{CHECK_EVERY, Context, Local, Source, ground_id, ground_value, group_body, join_plan};
use crate::sparql::QueryError;
use std::sync::Arc;

/// Entries (rows × columns) of the largest block this path writes.
const MAX_CELLS: usize = 1 << 18;

/// Whether `pattern` is an `ORDER BY` this path may answer the inside of: a basic graph
/// pattern of at least two triple patterns (one is a single ordered scan already), with
/// `FILTER`s and `BIND`s.
pub(super) fn may_apply(pattern: &GraphPattern) -> bool {
    matches!(pattern, GraphPattern::OrderBy { inner, .. }
        if group_body(inner).is_some_and(|(_, patterns)| patterns.len() >= 2))
}

/// Replaces the inside of an `ORDER BY` (`pattern`, or right under a projection
/// `pattern`) by its solutions; whether it did.
pub(super) fn rewrite(
    pattern: &mut GraphPattern,
    context: &Context<'_>,
) -> Result<bool, QueryError> {
    let (order_by, kept) = match pattern {
        GraphPattern::Project { inner, variables } => (inner.as_mut(), Some(variables.clone())),
        other => (other, None),
    };
    let GraphPattern::OrderBy { inner, expression } = order_by else {
        return Ok(false);
    };
    // Under a projection: its variables and those the order reads; else every one.
    let wanted = kept.map(|mut wanted| {
        for order in expression.iter() {
            let (OrderExpression::Asc(e) | OrderExpression::Desc(e)) = order;
            for v in values::variables(e) {
                if !wanted.contains(&v) {
                    wanted.push(v);
                }
            }
        }
        wanted
    });
    match answer(inner, wanted.as_deref(), context)? {
        Some(block) => {
            **inner = block;
            Ok(true)
        }
        None => Ok(false),
    }
}

/// The solutions of `inner` (a basic graph pattern under `FILTER`s and `BIND`s) as a
/// `VALUES` block of its variables (only the `wanted` ones, if given), or `None` when
/// this path does not answer it.
fn answer(
    inner: &GraphPattern,
    wanted: Option<&[Variable]>,
    context: &Context<'_>,
) -> Result<Option<GraphPattern>, QueryError> {
    let Some((steps, patterns)) = group_body(inner) else {
        return Ok(None);
    };
    if patterns.len() < 2 {
        return Ok(None);
    }
    let source = Source {
        inner,
        variables: &[],
        aggregates: &[],
        base_iri: context.base_iri.as_ref(),
    };
    let Some(mut plan) = source.plan() else {
        return Ok(None);
    };
    // The block's columns: the pattern's named variables (not its blank nodes) and the
    // binds, in order of appearance; each a layout column or a bind.
    let mut named: Vec<Variable> = Vec::new();
    for triple in patterns {
        let subject = match &triple.subject {
            TermPattern::Variable(v) => Some(v),
            _ => None,
        };
        let predicate = match &triple.predicate {
            NamedNodePattern::Variable(v) => Some(v),
            NamedNodePattern::NamedNode(_) => None,
        };
        let object = match &triple.object {
            TermPattern::Variable(v) => Some(v),
            _ => None,
        };
        for v in [subject, predicate, object].into_iter().flatten() {
            if !named.contains(v) {
                named.push(v.clone());
            }
        }
    }
    let bound: Vec<&Variable> = steps
        .iter()
        .filter_map(|step| match step {
            GraphPattern::Extend { variable, .. } => Some(variable),
            _ => None,
        })
        .collect();
    let n = plan.layout.len();
    let mut columns: Vec<(Variable, usize)> = Vec::new();
    for v in named.iter().chain(bound.iter().copied()) {
        if wanted.is_some_and(|w| !w.contains(v)) {
            continue;
        }
        let slot = match plan.layout.iter().position(|l| l == v) {
            Some(i) => i,
            None => n + bound.iter().position(|b| *b == v).unwrap_or(0),
        };
        columns.push((v.clone(), slot));
    }
    let snapshot = context.snapshot;
    let workers = &context.workers;
    let memos: Vec<Arc<SharedMemo>> = if workers.threads() > 1 {
        plan.one_variables().map(|_| SharedMemo::new()).collect()
    } else {
        Vec::new()
    };
    let init = || Local::new(&source, snapshot, &memos);
    let Some((rows, at, width)) = join_plan(&plan, snapshot, workers, true, &init)? else {
        return Ok(None);
    };
    if width == 0 {
        return Ok(None);
    }
    let max_rows = MAX_CELLS / columns.len().max(1);
    let limit = super::parallel::RowLimit::new(max_rows);
    let Some(parts) = workers.map(rows.len(), init, |local, i| {
        let mut alive = workers.ticker();
        let mut row = vec![None; n + local.plan.binds];
        let mut out: Vec<Vec<Option<GroundTerm>>> = Vec::new();
        for ids in rows[i].chunks(width) {
            alive()?;
            if !local.plan.late_pass(ids, &at, &mut row, &mut local.decoder) {
                continue;
            }
            let mut entries = Vec::with_capacity(columns.len());
            for (_, slot) in &columns {
                let entry = if *slot < n {
                    ground_id(ids[at[*slot]], snapshot).map(Some)
                } else {
                    ground_value(&row[*slot])
                };
                let Some(entry) = entry else {
                    return Ok(None);
                };
                entries.push(entry);
            }
            out.push(entries);
            if out.len().is_multiple_of(CHECK_EVERY) && !limit.add(CHECK_EVERY) {
                return Ok(None);
            }
        }
        Ok(limit.add(out.len() % CHECK_EVERY).then_some(out))
    })?
    else {
        return Ok(None);
    };
    Ok(Some(GraphPattern::Values {
        variables: columns.into_iter().map(|(v, _)| v).collect(),
        bindings: parts.into_iter().flatten().collect(),
    }))
}
