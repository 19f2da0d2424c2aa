//! Typed values on the batched path: a term's value (`ExpressionTerm`) is decoded from
//! the dictionary once per id and query, and an expression of one variable is evaluated
//! once per id (memoized), so a `FILTER` or an aggregate over a million rows reads and
//! parses each distinct literal once. The expressions themselves are spareval's
//! (`spareval::RowExpression`), so type promotion, errors and comparisons are exactly
//! those of the row-at-a-time path.

use rustc_hash::FxHashMap;
use spareval::{ExpressionTerm, Row, RowExpression, TermRow, TermRowExpression};
use spargebra::algebra::{Expression, Function};
use spargebra::term::{NamedNode, Variable};

use crate::store::{Snapshot, TermId};

/// The query's base IRI, as spareval's `IRI()` reads it.
pub(super) type BaseIri = std::sync::Arc<oxiri::Iri<String>>;

/// Values of ids, decoded once each.
pub(super) struct Decoder<'s> {
    snapshot: &'s Snapshot,
    values: FxHashMap<TermId, Option<ExpressionTerm>>,
}

impl<'s> Decoder<'s> {
    pub(super) fn new(snapshot: &'s Snapshot) -> Self {
        Self {
            snapshot,
            values: FxHashMap::default(),
        }
    }

    /// The value of an id, decoded again on every call (for callers that keep what
    /// they compute from it).
    /// The id of an IRI in the store, if it holds it.
    fn lookup(&self, iri: &NamedNode) -> Option<TermId> {
        self.snapshot.lookup(&iri.clone().into())
    }

    pub(super) fn decode(&self, id: TermId) -> Option<ExpressionTerm> {
        self.snapshot.term(id).map(ExpressionTerm::from)
    }

    /// The term of an id as stored (lexical form and datatype kept).
    pub(super) fn term(&self, id: TermId) -> Option<crate::model::Term> {
        self.snapshot.term(id)
    }

    pub(super) fn value(&mut self, id: TermId) -> Option<ExpressionTerm> {
        let snapshot = self.snapshot;
        self.values
            .entry(id)
            .or_insert_with(|| snapshot.term(id).map(ExpressionTerm::from))
            .clone()
    }
}

/// An expression of one variable, evaluated once per id of that variable.
pub(super) struct OneVariable {
    pub(super) variable: Variable,
    expression: RowExpr,
    row: Row,
    results: Memo,
    /// `holds` of recent ids, direct-mapped by id (`HELD_SLOTS`, 0: empty, 1: false, 2:
    /// true): a filter meets few distinct ids, or runs of one id in index order, and
    /// most answers then cost neither a hash, a lock nor a clone.
    held: Vec<(TermId, u8)>,
    /// A filter `?v = <iri>` (or `sameTerm`), or its negation: decided on ids, without
    /// decoding `?v`.
    by_id: Option<ById>,
}

/// `?v = <iri>` when `equal`, else `?v != <iri>`. An IRI is equal to itself only, and
/// comparing it with anything never raises an error (RDF term equality errs only between
/// two literals), and a term has one id: so the filter holds when the ids are (not) the
/// same.
struct ById {
    iri: NamedNode,
    equal: bool,
    /// The IRI's id, once looked up (`Some(None)`: the store does not hold it).
    id: Option<Option<TermId>>,
}

impl ById {
    fn recognize(expression: &Expression, variable: &Variable) -> Option<Self> {
        let (equal, inner) = match expression {
            Expression::Not(inner) => (false, inner.as_ref()),
            other => (true, other),
        };
        let (Expression::Equal(a, b) | Expression::SameTerm(a, b)) = inner else {
            return None;
        };
        let iri = match (a.as_ref(), b.as_ref()) {
            (Expression::Variable(v), Expression::NamedNode(iri))
            | (Expression::NamedNode(iri), Expression::Variable(v))
                if v == variable =>
            {
                iri.clone()
            }
            _ => return None,
        };
        Some(Self {
            iri,
            equal,
            id: None,
        })
    }
}

/// Slots of `OneVariable::held`.
const HELD_SLOTS: usize = 4096;

/// The results of an expression of one variable by id: this thread's, or shared by the
/// threads of a query (each compiles the expression itself, the results are values).
enum Memo {
    Own(FxHashMap<TermId, Option<ExpressionTerm>>),
    Shared(std::sync::Arc<SharedMemo>),
}

/// Shards of results, locked one at a time (two threads rarely want one shard at once).
pub(super) struct SharedMemo {
    shards: Vec<parking_lot::Mutex<FxHashMap<TermId, Option<ExpressionTerm>>>>,
}

/// Shards of a `SharedMemo`.
const SHARDS: usize = 64;

impl SharedMemo {
    pub(super) fn new() -> std::sync::Arc<Self> {
        std::sync::Arc::new(Self {
            shards: (0..SHARDS).map(|_| Default::default()).collect(),
        })
    }

    fn shard(&self, id: TermId) -> &parking_lot::Mutex<FxHashMap<TermId, Option<ExpressionTerm>>> {
        &self.shards[id as usize % SHARDS]
    }
}

impl OneVariable {
    /// `None`: not an expression of exactly `variable` that this path evaluates.
    pub(super) fn compile(
        expression: &Expression,
        variable: &Variable,
        base_iri: Option<&BaseIri>,
    ) -> Option<Self> {
        let by_id = ById::recognize(expression, variable);
        let expression = compile(expression, |v| (v == variable).then_some(0), base_iri)?;
        Some(Self {
            variable: variable.clone(),
            expression,
            row: vec![None],
            results: Memo::Own(FxHashMap::default()),
            held: Vec::new(),
            by_id,
        })
    }

    /// Keeps its results in `memo`, shared with the same expression on other threads.
    pub(super) fn share(&mut self, memo: std::sync::Arc<SharedMemo>) {
        self.results = Memo::Shared(memo);
    }

    pub(super) fn evaluate(
        &mut self,
        id: TermId,
        decoder: &mut Decoder<'_>,
    ) -> Option<ExpressionTerm> {
        let known = match &self.results {
            Memo::Own(results) => results.get(&id).cloned(),
            Memo::Shared(memo) => memo.shard(id).lock().get(&id).cloned(),
        };
        if let Some(result) = known {
            return result;
        }
        // Evaluated once per id: the decoded value is not worth keeping as well. (Two
        // threads may both evaluate a shared id: the same value, kept once.)
        let result = match &self.expression {
            RowExpr::Values(expression) => {
                self.row[0] = decoder.decode(id);
                expression.evaluate(&self.row)
            }
            RowExpr::Terms(expression) => expression.evaluate(&vec![decoder.term(id)]),
        };
        match &mut self.results {
            Memo::Own(results) => {
                results.insert(id, result.clone());
            }
            Memo::Shared(memo) => {
                memo.shard(id).lock().insert(id, result.clone());
            }
        }
        result
    }

    /// Whether the expression's effective boolean value is true (a `FILTER`).
    pub(super) fn holds(&mut self, id: TermId, decoder: &mut Decoder<'_>) -> bool {
        if let Some(by_id) = &mut self.by_id {
            let constant = *by_id.id.get_or_insert_with(|| decoder.lookup(&by_id.iri));
            return (constant == Some(id)) == by_id.equal;
        }
        if self.held.is_empty() {
            self.held = vec![(0, 0); HELD_SLOTS];
        }
        let slot = id as usize % HELD_SLOTS;
        match self.held[slot] {
            (known, state) if known == id && state != 0 => return state == 2,
            _ => {}
        }
        let holds = self
            .evaluate(id, decoder)
            .and_then(|t| spareval::effective_boolean_value(&t))
            .unwrap_or(false);
        self.held[slot] = (id, 1 + u8::from(holds));
        holds
    }
}

/// Compiles an expression whose variables are read from the columns `column` names.
/// `None`: it is not deterministic per row (`NOW()`, `RAND()`, `UUID()`, `STRUUID()`,
/// `BNODE()`: spareval's value for the query would differ from ours), or it needs what a
/// row cannot give (`EXISTS`, a custom function that is not an XSD cast). A row holds
/// values (`"007"^^xsd:int` is the integer 7 there), so an expression that reads a
/// lexical form or a datatype (`STR`, `DATATYPE`, `sameTerm`) is compiled over the stored
/// terms instead (`RowExpr::Terms`). `isNumeric` is fine over values: a number no value
/// type holds stays its literal.
pub(super) fn compile(
    expression: &Expression,
    column: impl Fn(&Variable) -> Option<usize>,
    base_iri: Option<&BaseIri>,
) -> Option<RowExpr> {
    if !deterministic(expression) {
        return None;
    }
    Some(if reads_stored_terms(expression) {
        RowExpr::Terms(TermRowExpression::compile(
            expression,
            column,
            base_iri.cloned(),
        )?)
    } else {
        RowExpr::Values(RowExpression::compile(
            expression,
            column,
            base_iri.cloned(),
        )?)
    })
}

/// An expression of several variables, over a row of values, or over the stored terms
/// when it reads a lexical form or a datatype (`reads_stored_terms`).
pub(super) enum RowExpr {
    Values(RowExpression),
    Terms(TermRowExpression),
}

impl RowExpr {
    /// Its value on `row`; `term_of(c)` is the stored term of column `c` when the column
    /// holds a stored term (a computed column's value is its own term).
    pub(super) fn evaluate(
        &self,
        row: &Row,
        term_of: impl Fn(usize) -> Option<crate::model::Term>,
    ) -> Option<ExpressionTerm> {
        match self {
            Self::Values(e) => e.evaluate(row),
            Self::Terms(e) => {
                let terms: TermRow = row
                    .iter()
                    .enumerate()
                    .map(|(c, value)| {
                        value
                            .as_ref()
                            .and_then(|v| term_of(c).or_else(|| Some(v.clone().into())))
                    })
                    .collect();
                e.evaluate(&terms)
            }
        }
    }

    pub(super) fn effective_boolean_value(
        &self,
        row: &Row,
        term_of: impl Fn(usize) -> Option<crate::model::Term>,
    ) -> Option<bool> {
        spareval::effective_boolean_value(&self.evaluate(row, term_of)?)
    }
}

/// Whether an expression reads a term's lexical form or datatype (`STR`, `DATATYPE`,
/// `sameTerm`), which a row of values has lost.
fn reads_stored_terms(expression: &Expression) -> bool {
    let mut reads = false;
    visit(expression, &mut |e| {
        if let Expression::FunctionCall(Function::Str | Function::Datatype, _)
        | Expression::SameTerm(..) = e
        {
            reads = true;
        }
    });
    reads
}

fn deterministic(expression: &Expression) -> bool {
    let mut ok = true;
    visit(expression, &mut |e| {
        if let Expression::FunctionCall(
            Function::Now | Function::Rand | Function::Uuid | Function::StrUuid | Function::BNode,
            _,
        )
        | Expression::Exists(_) = e
        {
            ok = false;
        }
    });
    ok
}

/// The variables an expression reads (`EXISTS` patterns not looked into: such an
/// expression is refused anyway).
pub(super) fn variables(expression: &Expression) -> Vec<Variable> {
    let mut out: Vec<Variable> = Vec::new();
    visit(expression, &mut |e| {
        if let Expression::Variable(v) | Expression::Bound(v) = e
            && !out.contains(v)
        {
            out.push(v.clone());
        }
    });
    out
}

/// The conjuncts of a `FILTER` (`a && b && c`): a row passes when each is true.
pub(super) fn conjuncts(expression: &Expression) -> Vec<&Expression> {
    match expression {
        Expression::And(a, b) => {
            let mut out = conjuncts(a);
            out.extend(conjuncts(b));
            out
        }
        other => vec![other],
    }
}

fn visit(expression: &Expression, f: &mut impl FnMut(&Expression)) {
    f(expression);
    match expression {
        Expression::Or(a, b)
        | Expression::And(a, b)
        | Expression::Equal(a, b)
        | Expression::SameTerm(a, b)
        | Expression::Greater(a, b)
        | Expression::GreaterOrEqual(a, b)
        | Expression::Less(a, b)
        | Expression::LessOrEqual(a, b)
        | Expression::Add(a, b)
        | Expression::Subtract(a, b)
        | Expression::Multiply(a, b)
        | Expression::Divide(a, b) => {
            visit(a, f);
            visit(b, f);
        }
        Expression::In(a, list) => {
            visit(a, f);
            list.iter().for_each(|e| visit(e, f));
        }
        Expression::UnaryPlus(a) | Expression::UnaryMinus(a) | Expression::Not(a) => visit(a, f),
        Expression::If(a, b, c) => {
            visit(a, f);
            visit(b, f);
            visit(c, f);
        }
        Expression::Coalesce(list) | Expression::FunctionCall(_, list) => {
            list.iter().for_each(|e| visit(e, f));
        }
        Expression::NamedNode(_)
        | Expression::Literal(_)
        | Expression::Variable(_)
        | Expression::Bound(_)
        | Expression::Exists(_) => {}
    }
}
