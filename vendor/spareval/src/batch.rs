//! Strata patch: spareval's own expression evaluator and aggregate accumulators, over
//! rows that a caller builds itself (one optional `ExpressionTerm` per column), so that a
//! caller's batched operators keep exactly spareval's semantics (type promotion, errors,
//! comparisons, the SPARQL functions) without re-implementing any of it.

use crate::dataset::ExpressionTerm;
use crate::eval::{
    Accumulator as _, AvgAccumulator, CountAccumulator, GroupConcatAccumulator, MaxAccumulator,
    MinAccumulator, SumAccumulator,
};
use crate::expression::{
    CustomFunctionRegistry, ExpressionEvaluator, ExpressionEvaluatorContext,
    build_expression_evaluator,
};
use oxiri::Iri;
use oxrdf::{Literal, NamedNode, Term, Variable};
use oxsdatatypes::DateTime;
use rustc_hash::FxHashSet;
use spargebra::algebra::AggregateFunction;
use sparopt::algebra::GraphPattern;
use std::sync::Arc;

/// One row: the value of each column (`None`: unbound).
pub type Row = Vec<Option<ExpressionTerm>>;

/// A compiled expression over rows.
#[derive(Clone)]
pub struct RowExpression {
    evaluator: ExpressionEvaluator<'static, Row, ExpressionTerm>,
}

impl RowExpression {
    /// Compiles `expression`, its variables read from the columns `column` names (a
    /// variable without a column is unbound). `None` when it needs what a row cannot give:
    /// `EXISTS` or a custom function (the XSD casts are not custom functions here).
    pub fn compile(
        expression: &spargebra::algebra::Expression,
        column: impl Fn(&Variable) -> Option<usize>,
        base_iri: Option<Arc<Iri<String>>>,
    ) -> Option<Self> {
        let expression = sparopt::algebra::Expression::from(expression);
        let mut context = RowContext {
            column: &column,
            // What `NOW()` reads: a caller that must agree with a query's own instant
            // refuses `NOW()` before compiling.
            now: DateTime::now(),
            base_iri,
            custom_functions: CustomFunctionRegistry::default(),
            failed: false,
        };
        let evaluator = build_expression_evaluator(&expression, &mut context).ok()?;
        (!context.failed).then_some(Self { evaluator })
    }

    /// The expression's value on a row (`None`: an error).
    pub fn evaluate(&self, row: &Row) -> Option<ExpressionTerm> {
        (self.evaluator)(row)
    }

    /// The expression's effective boolean value on a row (`None`: an error).
    pub fn effective_boolean_value(&self, row: &Row) -> Option<bool> {
        self.evaluate(row)?.effective_boolean_value()
    }
}

/// One row of RDF terms as stored (`None`: unbound), for `TermRowExpression`.
pub type TermRow = Vec<Option<Term>>;

/// A compiled expression over rows of stored terms: what `STR`, `DATATYPE` and
/// `sameTerm` read of a variable is its lexical form and datatype, which a `Row` of values
/// has lost (`"007"^^xsd:int` is the integer 7 there). Each variable's value is parsed
/// where it is read, so it suits an expression evaluated once per distinct term.
#[derive(Clone)]
pub struct TermRowExpression {
    evaluator: ExpressionEvaluator<'static, TermRow, ExpressionTerm>,
}

impl TermRowExpression {
    /// As `RowExpression::compile`, over rows of terms.
    pub fn compile(
        expression: &spargebra::algebra::Expression,
        column: impl Fn(&Variable) -> Option<usize>,
        base_iri: Option<Arc<Iri<String>>>,
    ) -> Option<Self> {
        let expression = sparopt::algebra::Expression::from(expression);
        let mut context = TermRowContext {
            column: &column,
            now: DateTime::now(),
            base_iri,
            custom_functions: CustomFunctionRegistry::default(),
            failed: false,
        };
        let evaluator = build_expression_evaluator(&expression, &mut context).ok()?;
        (!context.failed).then_some(Self { evaluator })
    }

    /// The expression's value on a row (`None`: an error).
    pub fn evaluate(&self, row: &TermRow) -> Option<ExpressionTerm> {
        (self.evaluator)(row)
    }
}

struct TermRowContext<'c, F> {
    column: &'c F,
    now: DateTime,
    base_iri: Option<Arc<Iri<String>>>,
    custom_functions: CustomFunctionRegistry,
    failed: bool,
}

impl<F: Fn(&Variable) -> Option<usize>> ExpressionEvaluatorContext<'static>
    for TermRowContext<'_, F>
{
    type Term = Term;
    type Tuple = TermRow;
    type Error = ();

    fn build_variable_lookup(
        &mut self,
        variable: &Variable,
    ) -> impl Fn(&TermRow) -> Option<Term> + 'static {
        let column = (self.column)(variable);
        move |row| row.get(column?)?.clone()
    }

    fn build_is_variable_bound(
        &mut self,
        variable: &Variable,
    ) -> impl Fn(&TermRow) -> bool + 'static {
        let column = (self.column)(variable);
        move |row| column.is_some_and(|c| row.get(c).is_some_and(Option::is_some))
    }

    fn build_exists(
        &mut self,
        _: &GraphPattern,
    ) -> Result<impl Fn(&TermRow) -> bool + 'static, ()> {
        self.failed = true;
        Err::<fn(&TermRow) -> bool, ()>(())
    }

    fn internalize_named_node(&mut self, term: &NamedNode) -> Result<Term, ()> {
        Ok(term.clone().into())
    }

    fn internalize_literal(&mut self, term: &Literal) -> Result<Term, ()> {
        Ok(term.clone().into())
    }

    fn build_internalize_expression_term(
        &mut self,
    ) -> impl Fn(ExpressionTerm) -> Option<Term> + 'static {
        |t| Some(t.into())
    }

    fn build_externalize_expression_term(
        &mut self,
    ) -> impl Fn(Term) -> Option<ExpressionTerm> + 'static {
        |t| Some(t.into())
    }

    fn build_externalize_term(&mut self) -> impl Fn(Term) -> Option<Term> + 'static {
        Some
    }

    fn now(&mut self) -> DateTime {
        self.now
    }

    fn base_iri(&mut self) -> Option<Arc<Iri<String>>> {
        self.base_iri.clone()
    }

    fn custom_functions(&mut self) -> &CustomFunctionRegistry {
        &self.custom_functions
    }
}

struct RowContext<'c, F> {
    column: &'c F,
    now: DateTime,
    base_iri: Option<Arc<Iri<String>>>,
    custom_functions: CustomFunctionRegistry,
    failed: bool,
}

impl<F: Fn(&Variable) -> Option<usize>> ExpressionEvaluatorContext<'static> for RowContext<'_, F> {
    type Term = ExpressionTerm;
    type Tuple = Row;
    type Error = ();

    fn build_variable_lookup(
        &mut self,
        variable: &Variable,
    ) -> impl Fn(&Row) -> Option<ExpressionTerm> + 'static {
        let column = (self.column)(variable);
        move |row| row.get(column?)?.clone()
    }

    fn build_is_variable_bound(&mut self, variable: &Variable) -> impl Fn(&Row) -> bool + 'static {
        let column = (self.column)(variable);
        move |row| column.is_some_and(|c| row.get(c).is_some_and(Option::is_some))
    }

    fn build_exists(
        &mut self,
        _: &GraphPattern,
    ) -> Result<impl Fn(&Row) -> bool + 'static, ()> {
        self.failed = true;
        Err::<fn(&Row) -> bool, ()>(())
    }

    fn internalize_named_node(&mut self, term: &NamedNode) -> Result<ExpressionTerm, ()> {
        Ok(Term::from(term.clone()).into())
    }

    fn internalize_literal(&mut self, term: &Literal) -> Result<ExpressionTerm, ()> {
        Ok(Term::from(term.clone()).into())
    }

    fn build_internalize_expression_term(
        &mut self,
    ) -> impl Fn(ExpressionTerm) -> Option<ExpressionTerm> + 'static {
        Some
    }

    fn build_externalize_expression_term(
        &mut self,
    ) -> impl Fn(ExpressionTerm) -> Option<ExpressionTerm> + 'static {
        Some
    }

    fn now(&mut self) -> DateTime {
        self.now
    }

    fn base_iri(&mut self) -> Option<Arc<Iri<String>>> {
        self.base_iri.clone()
    }

    fn custom_functions(&mut self) -> &CustomFunctionRegistry {
        &self.custom_functions
    }
}

/// The state of one aggregate over one group, as spareval keeps it for an aggregate of
/// an expression: an error in any input makes the result an error (unbound), except
/// `SAMPLE`, which keeps the first value that is not one; `DISTINCT` drops repeated
/// values first. `Send`: a caller may fill parts of a group's input on several threads
/// and `merge` them.
pub struct Aggregate {
    kind: Kind,
    seen: Option<FxHashSet<ExpressionTerm>>,
}

enum Kind {
    Sample(Option<ExpressionTerm>),
    /// `None`: an input was an error.
    Accumulate(Option<Accumulator>),
}

/// spareval's accumulators, by function (concrete, so that two can be merged).
enum Accumulator {
    Count(CountAccumulator),
    Sum(SumAccumulator),
    Avg(AvgAccumulator),
    Min(MinAccumulator),
    Max(MaxAccumulator),
    GroupConcat(GroupConcatAccumulator),
}

impl Accumulator {
    fn accumulate(&mut self, value: ExpressionTerm) {
        match self {
            Self::Count(a) => a.accumulate(value),
            Self::Sum(a) => a.accumulate(value),
            Self::Avg(a) => a.accumulate(value),
            Self::Min(a) => a.accumulate(value),
            Self::Max(a) => a.accumulate(value),
            Self::GroupConcat(a) => a.accumulate(value),
        }
    }

    fn finish(&mut self) -> Option<ExpressionTerm> {
        match self {
            Self::Count(a) => a.finish(),
            Self::Sum(a) => a.finish(),
            Self::Avg(a) => a.finish(),
            Self::Min(a) => a.finish(),
            Self::Max(a) => a.finish(),
            Self::GroupConcat(a) => a.finish(),
        }
    }

    /// `other` as if its input had followed this one's; false when the two are not of
    /// the same function (never, for two accumulators of one aggregate).
    fn merge(&mut self, other: Self) -> bool {
        match (self, other) {
            (Self::Count(a), Self::Count(b)) => a.merge(b),
            (Self::Sum(a), Self::Sum(b)) => a.merge(b),
            (Self::Avg(a), Self::Avg(b)) => a.merge(b),
            (Self::Min(a), Self::Min(b)) => a.merge(b),
            (Self::Max(a), Self::Max(b)) => a.merge(b),
            (Self::GroupConcat(a), Self::GroupConcat(b)) => a.merge(b),
            _ => return false,
        }
        true
    }
}

impl Aggregate {
    /// A new accumulator of `function`, `None` for a custom aggregate.
    pub fn new(function: &AggregateFunction, distinct: bool) -> Option<Self> {
        let accumulator = match function {
            AggregateFunction::Count => Accumulator::Count(CountAccumulator::default()),
            AggregateFunction::Sum => Accumulator::Sum(SumAccumulator::default()),
            AggregateFunction::Avg => Accumulator::Avg(AvgAccumulator::default()),
            AggregateFunction::Min => Accumulator::Min(MinAccumulator::default()),
            AggregateFunction::Max => Accumulator::Max(MaxAccumulator::default()),
            AggregateFunction::GroupConcat { separator } => {
                Accumulator::GroupConcat(GroupConcatAccumulator::new(Arc::from(
                    separator.as_deref().unwrap_or(" "),
                )))
            }
            AggregateFunction::Sample => {
                return Some(Self {
                    kind: Kind::Sample(None),
                    seen: None,
                });
            }
            AggregateFunction::Custom(_) => return None,
        };
        Some(Self {
            kind: Kind::Accumulate(Some(accumulator)),
            seen: distinct.then(FxHashSet::default),
        })
    }

    /// Adds one input (`None`: the expression's error on that row).
    pub fn add(&mut self, value: Option<ExpressionTerm>) {
        match &mut self.kind {
            Kind::Sample(sample) => {
                if sample.is_none() {
                    *sample = value;
                }
            }
            Kind::Accumulate(accumulator) => {
                if accumulator.is_none() {
                    return;
                }
                let Some(value) = value else {
                    *accumulator = None;
                    return;
                };
                if let Some(seen) = &mut self.seen
                    && !seen.insert(value.clone())
                {
                    return;
                }
                if let Some(accumulator) = accumulator {
                    accumulator.accumulate(value);
                }
            }
        }
    }

    /// Whether `merge` gives exactly one pass's state: not for `DISTINCT` (the inputs
    /// the other part saw first are not kept in order).
    pub fn mergeable(&self) -> bool {
        self.seen.is_none()
    }

    /// Folds in the state of an aggregate of the same function whose input came right
    /// after this one's (see `mergeable`). False when it cannot (a `DISTINCT` aggregate,
    /// or two of different functions): the caller must not use the result then.
    #[must_use]
    pub fn merge(&mut self, other: Self) -> bool {
        if self.seen.is_some() || other.seen.is_some() {
            return false;
        }
        match (&mut self.kind, other.kind) {
            (Kind::Sample(sample), Kind::Sample(other)) => {
                if sample.is_none() {
                    *sample = other;
                }
                true
            }
            (Kind::Accumulate(mine), Kind::Accumulate(other)) => match (mine.as_mut(), other) {
                (None, _) => true,
                (Some(_), None) => {
                    *mine = None;
                    true
                }
                (Some(mine), Some(other)) => mine.merge(other),
            },
            _ => false,
        }
    }

    /// The aggregate's value (`None`: an error, or no value).
    pub fn finish(self) -> Option<Term> {
        match self.kind {
            Kind::Sample(value) => value.map(Into::into),
            Kind::Accumulate(accumulator) => accumulator?.finish().map(Into::into),
        }
    }
}

/// A value's effective boolean value (`None`: it has none, an error).
pub fn effective_boolean_value(value: &ExpressionTerm) -> Option<bool> {
    value.effective_boolean_value()
}
