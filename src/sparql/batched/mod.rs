//! The batched path: a `GROUP BY` over a basic graph pattern (with `FILTER`s and `BIND`s
//! inside the group) is answered straight from the store's sorted index ranges, on
//! fixed-width id keys, without building a spareval solution per quad. One triple
//! pattern is aggregated as it is scanned; several are joined into rows of ids first
//! (`join::join_rows`: smallest index range first, then each connected pattern looked up
//! per row or hashed on the shared variables). A `FILTER` of one variable is applied as
//! soon as that variable is bound, evaluated once per distinct id; other filters, `BIND`s
//! and the aggregates' arguments are evaluated per joined row on values decoded once per
//! id (`values`). Counts are kept on ids; `SUM`, `AVG`, `MIN`, `MAX`, `SAMPLE` and
//! `GROUP_CONCAT` use spareval's own accumulators and expression evaluator
//! (`spareval::Aggregate`, `spareval::RowExpression`, a Strata patch), so type promotion,
//! errors and comparisons are the row-at-a-time path's. Terms are materialized only for
//! the groups that leave (a `VALUES` block put where the group was, so ORDER BY, LIMIT,
//! HAVING and the rest of the query run as before). `FILTER EXISTS` / `NOT EXISTS` over
//! a basic graph pattern is a semi-join / anti-join (`exists`). Anything else (OPTIONAL,
//! UNION, other EXISTS, a named graph, a FROM clause, `NOW()`/`RAND()`, custom functions) runs row at
//! a time in spareval, in the same query.
//!
//! Exactness: the scans are the ones spareval would make (the snapshot's quads in the
//! default graph, at the pinned commit), a join is the natural join on shared variables
//! (a multiset: every default-graph quad is there once), repeated variables must bind
//! equal ids, a constant the store does not hold matches nothing, and a dictionary id is
//! one term, so `COUNT(DISTINCT ?v)` counts distinct ids. A `FILTER(a && b)` keeps a row
//! exactly when `a` and `b` are both true, so its conjuncts are applied separately. A
//! group key or aggregate that is a blank node cannot be written in `VALUES`: such a
//! query goes back to the row-at-a-time path, as do cross products with a large range
//! and joins past `MAX_ROWS` rows (or 64M ids, whichever is more).

mod blocks;
mod exists;
mod fold;
mod join;
pub(crate) mod parallel;
mod rows;
mod top;
mod values;

use rustc_hash::{FxHashMap, FxHashSet};
use spareval::{Aggregate, ExpressionTerm, Row};
use spargebra::Query;
use spargebra::algebra::{AggregateExpression, AggregateFunction, Expression, GraphPattern};
use spargebra::term::{GroundTerm, TriplePattern, Variable};

use super::QueryError;
use crate::model::{Literal, Term};
use crate::sparql::dataset::stored_id;
use crate::store::{Snapshot, TermId, TermKind};
use exists::Exists;
use join::{AsLocal, Early, Equality, Pushed, join_rows, scan_pattern};
use parallel::Workers;
use parking_lot::Mutex;
use spareval::CancellationToken;
use std::sync::Arc;
use top::TopCount;
use values::{BaseIri, Decoder, OneVariable, RowExpr, SharedMemo};

/// Past this many groups the answer goes back to spareval (a `VALUES` block that large
/// would cost more to build than it saves).
const MAX_GROUPS: usize = 100_000;
/// Rows between two cancellation checks.
const CHECK_EVERY: usize = 4096;

/// The `FILTER`s and `BIND`s between a group and its basic graph pattern, innermost
/// first, and the pattern; `None` when something else is in between.
fn group_body(inner: &GraphPattern) -> Option<(Vec<&GraphPattern>, &[TriplePattern])> {
    let mut steps = Vec::new();
    let mut at = inner;
    loop {
        match at {
            GraphPattern::Filter { inner, .. } | GraphPattern::Extend { inner, .. } => {
                steps.push(at);
                at = inner;
            }
            GraphPattern::Bgp { patterns } if !patterns.is_empty() => {
                steps.reverse();
                return Some((steps, patterns));
            }
            _ => return None,
        }
    }
}

/// `$name(pattern)`: the patterns a pattern evaluates independently of its siblings'
/// bindings (not the right side of `LATERAL`, which sees the left's; not `SERVICE` or
/// `GRAPH`, which change the scan), borrowed as `$($mut)?` (one walk, to read and to
/// rewrite).
macro_rules! children {
    ($name:ident, $($mut:tt)?) => {
        fn $name(pattern: &$($mut)? GraphPattern) -> Vec<&$($mut)? GraphPattern> {
            match pattern {
                GraphPattern::Join { left, right }
                | GraphPattern::LeftJoin { left, right, .. }
                | GraphPattern::Union { left, right }
                | GraphPattern::Minus { left, right } => vec![left, right],
                GraphPattern::Lateral { left, .. } => vec![left],
                GraphPattern::Filter { inner, .. }
                | GraphPattern::Extend { inner, .. }
                | GraphPattern::OrderBy { inner, .. }
                | GraphPattern::Project { inner, .. }
                | GraphPattern::Distinct { inner }
                | GraphPattern::Reduced { inner }
                | GraphPattern::Slice { inner, .. }
                | GraphPattern::Group { inner, .. } => vec![inner],
                _ => Vec::new(),
            }
        }
    };
}
children!(children,);
children!(children_mut, mut);

/// The pattern and base IRI of a query this path may rewrite (no FROM clause).
fn body(query: &Query) -> Option<(&GraphPattern, Option<&oxiri::Iri<String>>)> {
    match query {
        Query::Select {
            pattern,
            dataset: None,
            base_iri,
        }
        | Query::Ask {
            pattern,
            dataset: None,
            base_iri,
        }
        | Query::Construct {
            pattern,
            dataset: None,
            base_iri,
            ..
        }
        | Query::Describe {
            pattern,
            dataset: None,
            base_iri,
        } => Some((pattern, base_iri.as_ref())),
        _ => None,
    }
}

/// Whether the query has a group this path may answer (a group over a basic graph
/// pattern, through `FILTER`s and `BIND`s): queries without one are not copied or
/// walked again.
pub fn may_apply(query: &Query) -> bool {
    fn walk(pattern: &GraphPattern) -> bool {
        matches!(pattern, GraphPattern::Group { inner, .. } if group_body(inner).is_some())
            || rows::may_apply(pattern)
            || children(pattern).into_iter().any(walk)
    }
    body(query).is_some_and(|(pattern, _)| walk(pattern))
}

/// Replaces every group this path answers by its result; returns how many. Only a query
/// over the default graph as stored (no FROM, no protocol dataset) may take it.
/// `threads`: how many threads one group's scans, joins and aggregates may use (this
/// one included; `parallel`).
pub fn rewrite(
    query: &mut Query,
    snapshot: &Snapshot,
    cancellation: &CancellationToken,
    threads: usize,
) -> Result<usize, QueryError> {
    let Some((_, base_iri)) = body(query) else {
        return Ok(0);
    };
    let base_iri = base_iri.map(|b| std::sync::Arc::new(b.clone()));
    let pattern = match query {
        Query::Select { pattern, .. }
        | Query::Ask { pattern, .. }
        | Query::Construct { pattern, .. }
        | Query::Describe { pattern, .. } => pattern,
    };
    let context = Context {
        snapshot,
        base_iri,
        workers: Workers::new(threads, cancellation),
        repeated: repeated_groups(pattern),
        answered: Mutex::default(),
    };
    let mut done = 0;
    rewrite_pattern(pattern, &context, &mut done, true, None)?;
    Ok(done)
}

struct Context<'s> {
    snapshot: &'s Snapshot,
    base_iri: Option<BaseIri>,
    workers: Workers<'s>,
    /// The groups that occur more than once in this query (`group_key`), and those of
    /// them answered so far.
    repeated: FxHashSet<GraphPattern>,
    answered: Mutex<FxHashMap<GraphPattern, GraphPattern>>,
}

/// A group as compared with the query's other groups: its aggregates named by position
/// (spargebra names each one afresh, so two copies of one sub-select differ there only).
fn group_key(pattern: &GraphPattern) -> Option<GraphPattern> {
    let GraphPattern::Group {
        inner,
        variables,
        aggregates,
    } = pattern
    else {
        return None;
    };
    Some(GraphPattern::Group {
        inner: inner.clone(),
        variables: variables.clone(),
        aggregates: aggregates
            .iter()
            .enumerate()
            .map(|(i, (_, a))| (Variable::new_unchecked(format!("a{i}")), a.clone()))
            .collect(),
    })
}

/// The groups (`group_key`) that occur more than once under `pattern`.
fn repeated_groups(pattern: &GraphPattern) -> FxHashSet<GraphPattern> {
    fn walk(pattern: &GraphPattern, seen: &mut FxHashMap<GraphPattern, usize>) {
        if let Some(key) = group_key(pattern) {
            *seen.entry(key).or_default() += 1;
        }
        for child in children(pattern) {
            walk(child, seen);
        }
    }
    let mut seen = FxHashMap::default();
    walk(pattern, &mut seen);
    seen.into_iter()
        .filter(|(_, n)| *n > 1)
        .map(|(key, _)| key)
        .collect()
}

/// `top`: the pattern is the query's own projection or above it (through `Slice`,
/// `Distinct`, `Reduced`): its `Project` names the result's variables and stays.
/// `top_count`: the pattern is on the way down from a `LIMIT` over an `ORDER BY` on a
/// count to that count's group (`top`).
fn rewrite_pattern(
    pattern: &mut GraphPattern,
    context: &Context<'_>,
    done: &mut usize,
    top: bool,
    top_count: Option<&TopCount>,
) -> Result<(), QueryError> {
    // The same group twice in one query (BSBM BI 5 counts reviews per country and
    // product in two of its sub-selects) is answered once; only such groups are kept.
    let seen = if context.repeated.is_empty() || top_count.is_some() {
        None
    } else {
        group_key(pattern).filter(|key| context.repeated.contains(key))
    };
    if let GraphPattern::Group {
        inner,
        variables,
        aggregates,
    } = &*pattern
    {
        if let Some(key) = &seen
            && let Some(GraphPattern::Values {
                variables: columns,
                bindings,
            }) = context.answered.lock().get(key)
        {
            let mut columns = columns.clone();
            let named = columns.len().saturating_sub(aggregates.len());
            columns.truncate(named);
            columns.extend(aggregates.iter().map(|(v, _)| v.clone()));
            *pattern = GraphPattern::Values {
                variables: columns,
                bindings: bindings.clone(),
            };
            *done += 1;
            return Ok(());
        }
        if let Some(values) = answer_group(inner, variables, aggregates, context, top_count)? {
            if let Some(key) = seen {
                context.answered.lock().insert(key, values.clone());
            }
            *pattern = values;
            *done += 1;
            return Ok(());
        }
    }
    // The inside of an `ORDER BY` (under its projection, which says what it keeps).
    let order_by = matches!(
        pattern,
        GraphPattern::Project { inner, .. } if rows::may_apply(inner)
    ) || rows::may_apply(pattern);
    if order_by && rows::rewrite(pattern, context)? {
        *done += 1;
        return Ok(());
    }
    let before = *done;
    let passes_top = top
        && matches!(
            pattern,
            GraphPattern::Slice { .. }
                | GraphPattern::Distinct { .. }
                | GraphPattern::Reduced { .. }
        );
    let query_projection = top && matches!(pattern, GraphPattern::Project { .. });
    let starts = TopCount::of(pattern);
    let top_count = starts
        .as_ref()
        .or(top_count)
        .filter(|_| TopCount::passes(pattern));
    for child in children_mut(pattern) {
        rewrite_pattern(child, context, done, passes_top, top_count)?;
    }
    // Above an answered group only: what is right above its rows is done on them. Not
    // the query's own projection: spareval takes the result's variables from it (an
    // empty group's block would answer with none).
    if *done > before && !query_projection {
        fold::fold(pattern, context)?;
    }
    Ok(())
}

/// Where each variable of the pattern sits in `[s, p, o]` (a scan) or in a joined row.
pub(super) struct Positions {
    pub(super) names: Vec<(Variable, usize)>,
}

impl Positions {
    pub(super) fn of(&self, variable: &Variable) -> Option<usize> {
        self.names
            .iter()
            .find(|(v, _)| v == variable)
            .map(|(_, p)| *p)
    }
}

/// A column of the group's rows: a variable of the pattern (an id; its index in the
/// plan's layout) or a `BIND` (a value; its index among the binds).
#[derive(Clone, Copy)]
enum Column {
    Id(usize),
    Bound(usize),
}

/// One aggregate of the group.
enum Agg {
    /// `COUNT(*)`, or `COUNT(?v)` of a variable of the pattern (always bound).
    Rows,
    /// `COUNT(DISTINCT ?v)` (one column) or `COUNT(DISTINCT *)` (every column), on ids.
    DistinctIds(Vec<usize>),
    /// Any other aggregate, on values, with spareval's accumulator.
    Value {
        function: AggregateFunction,
        distinct: bool,
        argument: Argument,
    },
}

/// An aggregate's argument: an expression of one variable of the pattern (evaluated once
/// per id), or of several (evaluated per row).
enum Argument {
    One(OneVariable, usize),
    Row(RowExpr),
}

/// What runs on each joined row, in the order of the group's body.
enum Late {
    /// A `FILTER` conjunct of several variables, or of a `BIND`.
    Filter(RowExpr),
    /// A `BIND` (its value the next bound column).
    Bind(RowExpr),
}

/// How the batched path answers one group, decided before any scan.
struct Plan<'q> {
    patterns: &'q [TriplePattern],
    /// The variables of the pattern (blank nodes as variables), in order of appearance.
    layout: Vec<Variable>,
    binds: usize,
    pushed: Vec<OneVariable>,
    late: Vec<Late>,
    /// The late filters of the pattern's variables only (a join runs them early).
    early: Vec<Early>,
    equalities: Vec<Equality>,
    /// `FILTER EXISTS` / `NOT EXISTS` conjuncts, as semi-joins and anti-joins.
    exists: Vec<Exists>,
    keys: Vec<Column>,
    aggregates: Vec<Agg>,
    /// The layout columns the row expressions read (decoded per row).
    row_columns: Vec<usize>,
}

impl<'q> Plan<'q> {
    /// `None`: not a group this path answers.
    fn new(
        inner: &'q GraphPattern,
        variables: &[Variable],
        aggregates: &[(Variable, AggregateExpression)],
        base_iri: Option<&BaseIri>,
    ) -> Option<Self> {
        let (steps, patterns) = group_body(inner)?;
        let mut layout: Vec<Variable> = Vec::new();
        for triple in patterns {
            for v in join::pattern_variables(triple)? {
                if !layout.contains(&v) {
                    layout.push(v);
                }
            }
        }
        let n = layout.len();
        let mut binds: Vec<Variable> = Vec::new();
        let mut pushed = Vec::new();
        let mut late = Vec::new();
        let mut early = Vec::new();
        let mut equalities = Vec::new();
        let mut exists = Vec::new();
        let mut row_columns: Vec<usize> = Vec::new();
        let bind_variables: Vec<&Variable> = steps
            .iter()
            .filter_map(|step| match step {
                GraphPattern::Extend { variable, .. } => Some(variable),
                _ => None,
            })
            .collect();
        // Compiles a row expression over the layout and the binds made so far.
        let row_expression = |e: &Expression, binds: &[Variable], row_columns: &mut Vec<usize>| {
            for v in values::variables(e) {
                if let Some(i) = layout.iter().position(|l| *l == v)
                    && !row_columns.contains(&i)
                {
                    row_columns.push(i);
                }
            }
            values::compile(
                e,
                |v| {
                    layout
                        .iter()
                        .position(|l| l == v)
                        .or_else(|| binds.iter().position(|b| b == v).map(|k| n + k))
                },
                base_iri,
            )
        };
        for step in steps {
            match step {
                GraphPattern::Filter { expr, .. } => {
                    for conjunct in values::conjuncts(expr) {
                        if let Some(e) = Exists::of(conjunct, &layout, &bind_variables) {
                            exists.push(e);
                            continue;
                        }
                        if let Expression::Equal(a, b) | Expression::SameTerm(a, b) = conjunct
                            && let (Expression::Variable(a), Expression::Variable(b)) =
                                (a.as_ref(), b.as_ref())
                            && layout.contains(a)
                            && layout.contains(b)
                        {
                            equalities.push(Equality {
                                left: a.clone(),
                                right: b.clone(),
                                same_term: matches!(conjunct, Expression::SameTerm(..)),
                            });
                        }
                        let variables = values::variables(conjunct);
                        match variables.as_slice() {
                            [v] if layout.contains(v) => {
                                pushed.push(OneVariable::compile(conjunct, v, base_iri)?);
                            }
                            _ => {
                                let at: Option<Vec<(Variable, usize)>> = variables
                                    .iter()
                                    .map(|v| Some((v.clone(), layout.iter().position(|l| l == v)?)))
                                    .collect();
                                if let Some(at) = at {
                                    early.push((late.len(), at));
                                }
                                late.push(Late::Filter(row_expression(
                                    conjunct,
                                    &binds,
                                    &mut row_columns,
                                )?));
                            }
                        }
                    }
                }
                GraphPattern::Extend {
                    variable,
                    expression,
                    ..
                } => {
                    if layout.contains(variable) || binds.contains(variable) {
                        return None;
                    }
                    late.push(Late::Bind(row_expression(
                        expression,
                        &binds,
                        &mut row_columns,
                    )?));
                    binds.push(variable.clone());
                }
                _ => return None,
            }
        }
        let id_of = |v: &Variable| layout.iter().position(|l| l == v);
        let mut keys = Vec::with_capacity(variables.len());
        for v in variables {
            keys.push(match (id_of(v), binds.iter().position(|b| b == v)) {
                (Some(i), _) => Column::Id(i),
                (None, Some(k)) => Column::Bound(k),
                // A key nothing binds: one unbound group; rare, left to spareval.
                (None, None) => return None,
            });
        }
        if keys.iter().filter(|k| matches!(k, Column::Id(_))).count() > 3 {
            return None;
        }
        let mut aggs = Vec::with_capacity(aggregates.len());
        for (_, aggregate) in aggregates {
            aggs.push(match aggregate {
                AggregateExpression::CountSolutions { distinct: false } => Agg::Rows,
                AggregateExpression::CountSolutions { distinct: true } => {
                    if n > 3 || !binds.is_empty() {
                        return None;
                    }
                    Agg::DistinctIds((0..n).collect())
                }
                // spareval counts the rows that bind a variable (never an error); other
                // `COUNT` arguments are left to it.
                AggregateExpression::FunctionCall {
                    name: AggregateFunction::Count,
                    expr,
                    distinct,
                } => match expr {
                    Expression::Variable(v) => match id_of(v) {
                        Some(i) if *distinct => Agg::DistinctIds(vec![i]),
                        Some(_) => Agg::Rows,
                        None => return None,
                    },
                    _ => return None,
                },
                AggregateExpression::FunctionCall {
                    name,
                    expr,
                    distinct,
                } => {
                    Aggregate::new(name, *distinct)?;
                    let argument = match values::variables(expr).as_slice() {
                        [v] if layout.contains(v) => {
                            Argument::One(OneVariable::compile(expr, v, base_iri)?, id_of(v)?)
                        }
                        _ => Argument::Row(row_expression(expr, &binds, &mut row_columns)?),
                    };
                    Agg::Value {
                        function: name.clone(),
                        distinct: *distinct,
                        argument,
                    }
                }
            });
        }
        Some(Self {
            patterns,
            layout,
            binds: binds.len(),
            pushed,
            late,
            early,
            equalities,
            exists,
            keys,
            aggregates: aggs,
            row_columns,
        })
    }
}

impl Plan<'_> {
    /// Runs the filters and binds of several variables on one joined row (ids at `at`):
    /// false when a filter drops it. `row` gets the decoded values the expressions read,
    /// then the binds' values (after the layout's columns).
    fn late_pass(
        &self,
        ids: &[TermId],
        at: &[usize],
        row: &mut Row,
        decoder: &mut Decoder<'_>,
    ) -> bool {
        if self.row_columns.is_empty() && self.late.is_empty() {
            return true;
        }
        let n = self.layout.len();
        for c in &self.row_columns {
            row[*c] = decoder.value(ids[at[*c]]);
        }
        let term_of = |c: usize| (c < n).then(|| decoder.term(ids[at[c]])).flatten();
        let mut k = 0;
        for step in &self.late {
            match step {
                Late::Filter(e) => {
                    if e.effective_boolean_value(row, term_of) != Some(true) {
                        return false;
                    }
                }
                Late::Bind(e) => {
                    row[n + k] = e.evaluate(row, term_of);
                    k += 1;
                }
            }
        }
        true
    }

    /// The expressions of one variable, memoized per id: pushed filters, then aggregate
    /// arguments (the same order in every thread's plan).
    fn one_variables(&mut self) -> impl Iterator<Item = &mut OneVariable> {
        let arguments = self.aggregates.iter_mut().filter_map(|agg| match agg {
            Agg::Value {
                argument: Argument::One(expression, _),
                ..
            } => Some(expression),
            _ => None,
        });
        self.pushed.iter_mut().chain(arguments)
    }

    /// Whether partial groups of consecutive parts of the rows merge into exactly the
    /// groups of one pass (`Group::merge`): not with a `DISTINCT` aggregate of values.
    fn mergeable(&self) -> bool {
        !self
            .aggregates
            .iter()
            .any(|agg| matches!(agg, Agg::Value { distinct: true, .. }))
    }
}

/// What a thread needs to plan a group for itself (compiled expressions stay on the
/// thread that compiled them).
struct Source<'q> {
    inner: &'q GraphPattern,
    variables: &'q [Variable],
    aggregates: &'q [(Variable, AggregateExpression)],
    base_iri: Option<&'q BaseIri>,
}

impl<'q> Source<'q> {
    fn plan(&self) -> Option<Plan<'q>> {
        Plan::new(self.inner, self.variables, self.aggregates, self.base_iri)
    }
}

/// One thread's plan (its row expressions and aggregates' arguments), pushed filters
/// and decoded values.
struct Local<'q, 's> {
    plan: Plan<'q>,
    pushed: Vec<OneVariable>,
    decoder: Decoder<'s>,
    /// The row a join's early filters read.
    scratch: Row,
}

impl<'q, 's> Local<'q, 's> {
    /// `memos`: empty, or one per expression of one variable (`Plan::one_variables`),
    /// shared by the threads.
    fn new(source: &Source<'q>, snapshot: &'s Snapshot, memos: &[Arc<SharedMemo>]) -> Option<Self> {
        let mut plan = source.plan()?;
        if !memos.is_empty() {
            for (expression, memo) in plan.one_variables().zip(memos) {
                expression.share(memo.clone());
            }
        }
        let pushed = std::mem::take(&mut plan.pushed);
        let scratch = vec![None; plan.layout.len() + plan.binds];
        Some(Self {
            plan,
            pushed,
            decoder: Decoder::new(snapshot),
            scratch,
        })
    }
}

impl<'s> AsLocal<'s> for Local<'_, 's> {
    fn parts(&mut self) -> (Pushed<'_>, &mut Decoder<'s>) {
        (
            Pushed {
                filters: &mut self.pushed,
                late: &self.plan.late,
                row: &mut self.scratch,
            },
            &mut self.decoder,
        )
    }
}

/// A group's key: the ids of its pattern-variable keys, the values of its `BIND` keys.
type Key = ([TermId; 3], Vec<Option<ExpressionTerm>>);

/// Distinct tuples of ids.
type IdTuples = FxHashSet<[TermId; 3]>;

/// One group's accumulators: a row count, the distinct id tuples of each
/// `COUNT(DISTINCT …)`, spareval's accumulator of each other aggregate.
struct Group {
    rows: u64,
    /// Each set with the tuple last added to it: rows in index order repeat a tuple
    /// back to back (the subjects of a scan by subject), and those skip the hash.
    distinct: Vec<(IdTuples, Option<[TermId; 3]>)>,
    /// What every `COUNT(DISTINCT …)` of the group is when it was counted without the
    /// ids (from index ranges, `counted_by_ranges`).
    distinct_counted: Option<u64>,
    values: Vec<Aggregate>,
}

impl Group {
    /// Folds in the same group's state over rows that came after this one's; false
    /// when an aggregate cannot be merged exactly (see `Plan::mergeable`).
    fn merge(&mut self, other: Group) -> bool {
        self.rows += other.rows;
        for ((set, _), (mut more, _)) in self.distinct.iter_mut().zip(other.distinct) {
            if set.len() < more.len() {
                std::mem::swap(set, &mut more);
            }
            set.extend(more);
        }
        let mut ok = true;
        for (value, more) in self.values.iter_mut().zip(other.values) {
            ok &= value.merge(more);
        }
        ok
    }
}

/// The groups, and where each key's group is.
#[derive(Default)]
struct Groups {
    list: Vec<(Key, Group)>,
    index: FxHashMap<Key, usize>,
    /// Keys of ids only, direct-mapped to their group: rows of one of a few recent keys
    /// (a count per predicate, per class) skip hashing the key.
    recent: Vec<([TermId; 3], usize)>,
}

/// Slots of `Groups::recent`.
const RECENT: usize = 1024;

impl Groups {
    fn len(&self) -> usize {
        self.list.len()
    }

    fn insert(&mut self, key: Key, group: Group) {
        self.index.insert(key.clone(), self.list.len());
        self.list.push((key, group));
    }

    /// The group of `key`, made by `new` if it is new; `None` past `MAX_GROUPS`.
    fn get(&mut self, key: Key, new: impl FnOnce() -> Group) -> Option<&mut Group> {
        let slot = if key.1.is_empty() {
            if self.recent.is_empty() {
                self.recent = vec![([u32::MAX; 3], usize::MAX); RECENT];
            }
            let ids = key.0;
            let at = (ids[0] as usize
                ^ (ids[1] as usize).wrapping_mul(31)
                ^ (ids[2] as usize).wrapping_mul(131))
                % RECENT;
            match self.recent[at] {
                (cached, group) if cached == ids && group != usize::MAX => group,
                _ => {
                    let group = self.find(key, new)?;
                    self.recent[at] = (ids, group);
                    group
                }
            }
        } else {
            self.find(key, new)?
        };
        self.list.get_mut(slot).map(|(_, group)| group)
    }

    /// The groups of consecutive parts of the rows, as one pass over them would have
    /// made them (in the order their keys were first seen); `None` past `MAX_GROUPS`
    /// or when an aggregate cannot be merged.
    fn merge(parts: Vec<Groups>) -> Option<Groups> {
        let mut parts = parts.into_iter();
        let mut merged = parts.next().unwrap_or_default();
        for part in parts {
            for (key, group) in part.list {
                match merged.index.get(&key) {
                    Some(&i) => {
                        if !merged.list[i].1.merge(group) {
                            return None;
                        }
                    }
                    None if merged.len() >= MAX_GROUPS => return None,
                    None => merged.insert(key, group),
                }
            }
        }
        Some(merged)
    }

    fn find(&mut self, key: Key, new: impl FnOnce() -> Group) -> Option<usize> {
        if let Some(i) = self.index.get(&key) {
            return Some(*i);
        }
        if self.list.len() >= MAX_GROUPS {
            return None;
        }
        self.insert(key, new());
        Some(self.list.len() - 1)
    }
}

/// Folds rows into groups.
struct Grouping<'p, 'q> {
    plan: &'p mut Plan<'q>,
    /// Layout column → index in the rows given to `add`.
    at: Vec<usize>,
    groups: Groups,
    /// The row expressions' input: the layout's values, then the binds'.
    row: Row,
}

/// A group before its first row.
fn new_group(aggregates: &[Agg]) -> Group {
    let mut distinct = Vec::new();
    let mut values = Vec::new();
    for agg in aggregates {
        match agg {
            Agg::Rows => {}
            Agg::DistinctIds(_) => distinct.push((FxHashSet::default(), None)),
            Agg::Value {
                function, distinct, ..
            } => values.extend(Aggregate::new(function, *distinct)),
        }
    }
    Group {
        rows: 0,
        distinct,
        distinct_counted: None,
        values,
    }
}

impl<'p, 'q> Grouping<'p, 'q> {
    /// No groups yet, except the one group of a `GROUP BY` without keys (it exists, with
    /// `COUNT` 0, even when no row comes).
    fn new(plan: &'p mut Plan<'q>, at: Vec<usize>) -> Self {
        let width = plan.layout.len() + plan.binds;
        let mut groups = Groups::default();
        if plan.keys.is_empty() {
            groups.insert(([0; 3], Vec::new()), new_group(&plan.aggregates));
        }
        Self {
            plan,
            at,
            groups,
            row: vec![None; width],
        }
    }

    /// Adds one solution (ids at `self.at`); false past `MAX_GROUPS`.
    fn add(&mut self, ids: &[TermId], decoder: &mut Decoder<'_>) -> bool {
        let n = self.plan.layout.len();
        if !self.plan.late_pass(ids, &self.at, &mut self.row, decoder) {
            return true;
        }
        let mut key: Key = ([0; 3], Vec::new());
        let mut slot = 0;
        for column in &self.plan.keys {
            match column {
                Column::Id(i) => {
                    key.0[slot] = ids[self.at[*i]];
                    slot += 1;
                }
                Column::Bound(k) => key.1.push(self.row[n + k].clone()),
            }
        }
        let aggregates = &self.plan.aggregates;
        let Some(group) = self.groups.get(key, || new_group(aggregates)) else {
            return false;
        };
        group.rows += 1;
        let (mut d, mut v) = (0, 0);
        for agg in &mut self.plan.aggregates {
            match agg {
                Agg::Rows => {}
                Agg::DistinctIds(columns) => {
                    let mut tuple = [0; 3];
                    for (slot, c) in tuple.iter_mut().zip(columns.iter()) {
                        *slot = ids[self.at[*c]];
                    }
                    let (set, last) = &mut group.distinct[d];
                    if *last != Some(tuple) {
                        set.insert(tuple);
                        *last = Some(tuple);
                    }
                    d += 1;
                }
                Agg::Value { argument, .. } => {
                    let value = match argument {
                        Argument::One(e, c) => e.evaluate(ids[self.at[*c]], decoder),
                        Argument::Row(e) => {
                            let at = &self.at;
                            e.evaluate(&self.row, |c| {
                                (c < n).then(|| decoder.term(ids[at[c]])).flatten()
                            })
                        }
                    };
                    group.values[v].add(value);
                    v += 1;
                }
            }
        }
        true
    }
}

/// The group's result as a `VALUES` block, or `None` when this path does not answer it.
fn answer_group(
    inner: &GraphPattern,
    variables: &[Variable],
    aggregates: &[(Variable, AggregateExpression)],
    context: &Context<'_>,
    top_count: Option<&TopCount>,
) -> Result<Option<GraphPattern>, QueryError> {
    let source = Source {
        inner,
        variables,
        aggregates,
        base_iri: context.base_iri.as_ref(),
    };
    // Planned before any scan: what this path does not take goes to spareval without
    // costing a join here first.
    let Some(mut plan) = source.plan() else {
        return Ok(None);
    };
    let snapshot = context.snapshot;
    let workers = &context.workers;
    // Parts of the rows are grouped on several threads only when their partial groups
    // merge exactly.
    let parallel = plan.mergeable();
    // Threads share what expressions of one variable gave (each id decoded once).
    let memos: Vec<Arc<SharedMemo>> = if parallel && workers.threads() > 1 {
        plan.one_variables().map(|_| SharedMemo::new()).collect()
    } else {
        Vec::new()
    };
    let init = || Local::new(&source, snapshot, &memos);
    // One pattern is aggregated as it is scanned; several are joined into rows first.
    let partials = match plan.patterns {
        // (With a semi-join or anti-join, the rows are made first, as for several.)
        [triple] if plan.exists.is_empty() => {
            let Some((pattern, positions, equal)) = scan_pattern(triple, snapshot) else {
                return Ok(None);
            };
            let at: Option<Vec<usize>> = plan.layout.iter().map(|v| positions.of(v)).collect();
            let Some(at) = at else { return Ok(None) };
            if let Some(pattern) = pattern
                && equal.is_empty()
                && let Some(groups) = counted_by_ranges(&plan, pattern, &at, snapshot)
            {
                return match groups {
                    Some(mut groups) => {
                        if let Some(top_count) = top_count {
                            top_count.cut(&plan, aggregates, &mut groups);
                        }
                        finish(&plan, groups, variables, aggregates, snapshot)
                    }
                    None => Ok(None),
                };
            }
            let n_parts = match pattern {
                Some(pattern) if parallel => workers.parts(snapshot.range_size(pattern)),
                _ => 1,
            };
            let parts: Vec<Mutex<Option<_>>> = match pattern {
                Some(pattern) => snapshot
                    .quads_split(pattern, n_parts)
                    .into_iter()
                    .map(|part| Mutex::new(Some(part)))
                    .collect(),
                // A constant the store does not hold: no rows, but the groups a
                // `GROUP BY` without keys always has.
                None => vec![Mutex::new(None)],
            };
            workers.map(parts.len(), init, |local, i| {
                let mut alive = workers.ticker();
                let mut filters = Pushed {
                    filters: &mut local.pushed,
                    late: &[],
                    row: &mut Vec::new(),
                };
                let checks = filters.checks(&positions.names);
                let mut grouping = Grouping::new(&mut local.plan, at.clone());
                if let Some(mut part) = parts[i].lock().take() {
                    let keep = |quad: &[TermId; 4]| equal.iter().all(|(a, b)| quad[*a] == quad[*b]);
                    while let Some(quad) = filters.next_passing(
                        &mut *part,
                        keep,
                        &checks,
                        &mut local.decoder,
                        &mut alive,
                    )? {
                        if !grouping.add(&quad, &mut local.decoder) {
                            return Ok(None);
                        }
                    }
                }
                Ok(Some(grouping.groups))
            })?
        }
        _ => {
            let Some((rows, at, width)) = join_plan(&plan, snapshot, workers, parallel, &init)?
            else {
                return Ok(None);
            };
            // No part at all when nothing matched: still the key-less group.
            let n_parts = rows.len().max(1);
            workers.map(n_parts, init, |local, i| {
                let mut alive = workers.ticker();
                let mut grouping = Grouping::new(&mut local.plan, at.clone());
                if width > 0
                    && let Some(part) = rows.get(i)
                {
                    for row in part.chunks(width) {
                        alive()?;
                        if !grouping.add(row, &mut local.decoder) {
                            return Ok(None);
                        }
                    }
                }
                Ok(Some(grouping.groups))
            })?
        }
    };
    let Some(mut groups) = partials.and_then(Groups::merge) else {
        return Ok(None);
    };
    if let Some(top_count) = top_count {
        top_count.cut(&plan, aggregates, &mut groups);
    }
    finish(&plan, groups, variables, aggregates, snapshot)
}

/// A plan's patterns joined into rows of ids (`join_rows`, with its pushed filters, its
/// equalities and its early filters), where each layout variable sits in a row, and the
/// rows' width; `None` when the join is not one this path takes.
type JoinedPlan = (Vec<Vec<TermId>>, Vec<usize>, usize);

fn join_plan<'s, L: AsLocal<'s>>(
    plan: &Plan<'_>,
    snapshot: &'s Snapshot,
    workers: &Workers<'_>,
    parallel: bool,
    init: &(dyn Fn() -> Option<L> + Sync),
) -> Result<Option<JoinedPlan>, QueryError> {
    let filtered: Vec<&Variable> = plan.pushed.iter().map(|f| &f.variable).collect();
    let Some((columns, rows)) = join_rows(
        plan.patterns,
        snapshot,
        workers,
        parallel,
        init,
        &filtered,
        &plan.equalities,
        &plan.early,
        None,
    )?
    else {
        return Ok(None);
    };
    let mut rows = rows;
    for exists in &plan.exists {
        let Some(kept) = semi_join(exists, &columns, rows, snapshot, workers, parallel, init)?
        else {
            return Ok(None);
        };
        rows = kept;
    }
    let at: Option<Vec<usize>> = plan
        .layout
        .iter()
        .map(|v| columns.iter().position(|c| c == v))
        .collect();
    Ok(at.map(|at| (rows, at, columns.len())))
}

/// The rows (of `columns`) that `exists` keeps: its inside joined once, reduced to the
/// distinct tuples of the shared variables, each row looked up there. `None` when the
/// inside is not a join this path takes. `init`'s pushed filters also run on the inside:
/// they test only variables of the group's pattern, so of the inside's only shared ones,
/// and a row whose shared value fails a filter is dropped by it anyway.
fn semi_join<'s, L: AsLocal<'s>>(
    exists: &Exists,
    columns: &[Variable],
    rows: Vec<Vec<TermId>>,
    snapshot: &'s Snapshot,
    workers: &Workers<'_>,
    parallel: bool,
    init: &(dyn Fn() -> Option<L> + Sync),
) -> Result<Option<Vec<Vec<TermId>>>, QueryError> {
    let width = columns.len().max(1);
    let Some(to) = exists.positions_in(columns) else {
        return Ok(None);
    };
    let mut outer = IdTuples::default();
    if !columns.is_empty() {
        for part in &rows {
            for row in part.chunks(width) {
                outer.insert(exists::key(row, &to));
            }
        }
    }
    let Some(tuples) = exists.matching(&outer, snapshot, workers, parallel, init)? else {
        return Ok(None);
    };
    drop(outer);
    let kept = workers.map(
        rows.len(),
        || Some(()),
        |_, i| {
            let mut alive = workers.ticker();
            let mut out = Vec::new();
            for row in rows[i].chunks(width) {
                alive()?;
                if tuples.contains(&exists::key(row, &to)) != exists.negated {
                    out.extend_from_slice(row);
                }
            }
            Ok(Some(out))
        },
    )?;
    Ok(kept)
}

/// The groups of a group of counts over one pattern (`COUNT(*)`, `COUNT(?v)`) keyed by
/// at most one of its variables, or without keys with `COUNT(DISTINCT ?v)` of one
/// variable, from index range sizes (`Snapshot::range_counts`),
/// without reading the quads: `None` when it is not such a group or the ranges cannot
/// say (then the pattern is scanned), `Some(None)` past `MAX_GROUPS`. `at`: where each
/// variable of the plan's layout sits in a quad.
fn counted_by_ranges(
    plan: &Plan<'_>,
    pattern: crate::store::Pattern,
    at: &[usize],
    snapshot: &Snapshot,
) -> Option<Option<Groups>> {
    if !plan.pushed.is_empty() || !plan.late.is_empty() || plan.binds > 0 || !plan.exists.is_empty()
    {
        return None;
    }
    // `COUNT(DISTINCT ?v)`s of one variable, without keys: the number of its ranges.
    let mut distinct = None;
    for agg in &plan.aggregates {
        match agg {
            Agg::Rows => {}
            Agg::DistinctIds(columns) if plan.keys.is_empty() => {
                let [c] = columns.as_slice() else {
                    return None;
                };
                let position = *at.get(*c)?;
                if distinct.is_some_and(|d| d != position) {
                    return None;
                }
                distinct = Some(position);
            }
            _ => return None,
        }
    }
    let group = match plan.keys.as_slice() {
        [] => distinct,
        [Column::Id(i)] => Some(*at.get(*i)?),
        _ => return None,
    };
    let counts = snapshot.range_counts(pattern, group)?;
    let mut groups = Groups::default();
    if plan.keys.is_empty() {
        let rows = counts.iter().map(|(_, n)| n).sum();
        groups.insert(
            ([0; 3], Vec::new()),
            Group {
                rows,
                distinct_counted: distinct.map(|_| counts.len() as u64),
                ..new_group(&plan.aggregates)
            },
        );
        return Some(Some(groups));
    }
    if counts.len() > MAX_GROUPS {
        return Some(None);
    }
    for (id, rows) in counts {
        groups.insert(
            ([id, 0, 0], Vec::new()),
            Group {
                rows,
                ..new_group(&plan.aggregates)
            },
        );
    }
    Some(Some(groups))
}

/// The groups as a `VALUES` block of the keys and aggregates; `None` when a key or a
/// value cannot be written there (a blank node).
fn finish(
    plan: &Plan<'_>,
    groups: Groups,
    variables: &[Variable],
    aggregates: &[(Variable, AggregateExpression)],
    snapshot: &Snapshot,
) -> Result<Option<GraphPattern>, QueryError> {
    let mut output: Vec<Variable> = variables.to_vec();
    output.extend(aggregates.iter().map(|(v, _)| v.clone()));
    let mut bindings = Vec::with_capacity(groups.len());
    for ((ids, bound), group) in groups.list {
        let mut row = Vec::with_capacity(output.len());
        let (mut slot, mut k) = (0, 0);
        for column in &plan.keys {
            let entry = match column {
                Column::Id(_) => {
                    slot += 1;
                    ground_id(ids[slot - 1], snapshot).map(Some)
                }
                Column::Bound(_) => {
                    k += 1;
                    ground_value(&bound[k - 1])
                }
            };
            let Some(entry) = entry else {
                return Ok(None);
            };
            row.push(entry);
        }
        let (mut d, mut values) = (0, group.values.into_iter());
        for agg in &plan.aggregates {
            let count = match agg {
                Agg::Rows => group.rows,
                Agg::DistinctIds(_) => {
                    d += 1;
                    group
                        .distinct_counted
                        .unwrap_or(group.distinct[d - 1].0.len() as u64)
                }
                Agg::Value { .. } => {
                    match values.next().and_then(Aggregate::finish) {
                        Some(term) => {
                            let Some(term) = ground(term) else {
                                return Ok(None);
                            };
                            row.push(Some(term));
                        }
                        None => row.push(None),
                    }
                    continue;
                }
            };
            row.push(Some(GroundTerm::Literal(Literal::from(
                i64::try_from(count).unwrap_or(i64::MAX),
            ))));
        }
        bindings.push(row);
    }
    Ok(Some(GraphPattern::Values {
        variables: output,
        bindings,
    }))
}

/// A stored term as a `VALUES` entry: IRIs and literals by id (decoded only if a result
/// needs them), a triple term decoded; `None` for a blank node (or an unknown id).
fn ground_id(id: TermId, snapshot: &Snapshot) -> Option<GroundTerm> {
    match snapshot.kind(id) {
        Some(TermKind::NamedNode) => Some(GroundTerm::NamedNode(stored_id::named(id))),
        Some(TermKind::Literal) => Some(GroundTerm::Literal(stored_id::literal(id))),
        _ => snapshot.term(id).and_then(ground),
    }
}

/// A computed value as a `VALUES` entry (unbound stays unbound); `None` for a blank node.
fn ground_value(value: &Option<ExpressionTerm>) -> Option<Option<GroundTerm>> {
    match value {
        Some(value) => ground(Term::from(value.clone())).map(Some),
        None => Some(None),
    }
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
