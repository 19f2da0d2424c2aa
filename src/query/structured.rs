//! The `structured` query mode: a JSON body of patterns, filters, grouping, aggregates and
//! ordering, compiled to SPARQL algebra (spargebra), never to text put together by hand:
//! every name, IRI and value becomes a typed term, so no input can change the query's
//! shape. The query runs like any SPARQL query (same pinning, same pages); its text,
//! printed from the algebra, is what `detail: full` shows. Names of types, relations and
//! fields come from the graph's ontology; IRIs always work.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use spargebra::Query;
use spargebra::algebra::{
    AggregateExpression, AggregateFunction, Expression, Function, GraphPattern, OrderExpression,
};
use spargebra::term::{NamedNodePattern, TermPattern, TriplePattern, Variable};

use crate::error::{ApiError, ErrorCode};
use crate::model::{Literal, NamedNode};
use crate::ontology::{Ontology, RecordIris};

use crate::model::RDF_TYPE;
const XSD: &str = "http://www.w3.org/2001/XMLSchema#";

/// A structured query.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Structured {
    pub patterns: Vec<PatternSpec>,
    /// All must hold.
    #[serde(default)]
    pub filters: Vec<Filter>,
    #[serde(default)]
    pub group_by: Vec<String>,
    /// A variable's field, optionally bucketed by date.
    #[serde(default)]
    pub group_keys: Vec<GroupKey>,
    #[serde(default)]
    pub aggregates: Vec<Aggregate>,
    /// Conditions on groups.
    #[serde(default)]
    pub having: Vec<Filter>,
    #[serde(default)]
    pub order_by: Vec<OrderBy>,
    /// Default: every variable, or the groups and aggregates.
    #[serde(default)]
    pub select: Vec<String>,
    #[serde(default)]
    pub distinct: bool,
}

/// `subject predicate object`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PatternSpec {
    pub subject: Value,
    /// A relation or field name, `"type"` (rdf:type), `{"iri": …}` or `{"var": …}`.
    pub predicate: Value,
    pub object: Value,
}

/// A condition.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Filter {
    Compare {
        op: String,
        left: Value,
        right: Value,
    },
    And {
        and: Vec<Filter>,
    },
    Or {
        or: Vec<Filter>,
    },
    Not {
        not: Box<Filter>,
    },
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GroupKey {
    /// `{"var": "x", "name": "opened"}`.
    pub field: FieldRef,
    /// year, month, week (ISO), day or hour.
    #[serde(default)]
    pub bucket: Option<String>,
    #[serde(rename = "as")]
    pub alias: String,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FieldRef {
    pub var: String,
    pub name: String,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Aggregate {
    /// count, sum, avg, min or max.
    pub func: String,
    #[serde(rename = "as")]
    pub alias: String,
    #[serde(default)]
    pub operand: Option<Value>,
    #[serde(default)]
    pub distinct: bool,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OrderBy {
    pub var: String,
    #[serde(default)]
    pub descending: bool,
}

struct Compiler<'a> {
    iris: &'a RecordIris,
    ontology: &'a Ontology,
    /// Extra patterns that field operands need (`?x <field> ?_f0`).
    extra: Vec<TriplePattern>,
    n_fields: usize,
    /// The variables operands may name (those of the patterns), when checked here.
    scope: Option<Vec<Variable>>,
}

fn bad(path: &str, message: impl Into<String>) -> ApiError {
    ApiError::invalid_argument(path, message)
}

fn variable(name: &str, path: &str) -> Result<Variable, ApiError> {
    let ok = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !ok {
        return Err(bad(
            path,
            format!("{name:?} is not a variable name (letters, digits, _)"),
        ));
    }
    // The compiler names its own helper variables `_…`; a query's own must not meet them.
    if name.starts_with('_') {
        return Err(bad(
            path,
            format!(
                "{name:?}: variable names starting with _ are reserved; start with a letter or digit"
            ),
        ));
    }
    Ok(Variable::new_unchecked(name))
}

/// Literals given by value (a JSON number or boolean, or a short datatype name) match by
/// value in patterns, as SPARQL's `=` compares them: `{"value": 30}` finds
/// `"30"^^xsd:int` and `30.0`, `{"value": 1.5}` finds a Turtle `1.5` (xsd:decimal) and
/// `1.5e0`. An exact term is `{"value", "datatype": <full IRI>}`.
struct Term {
    pattern: TermPattern,
    by_value: bool,
}

fn iri(text: &str, path: &str) -> Result<NamedNode, ApiError> {
    NamedNode::new(text.trim_start_matches('<').trim_end_matches('>'))
        .map_err(|e| bad(path, format!("not an IRI: {e}")))
}

fn rdf_type() -> NamedNode {
    NamedNode::new_unchecked(RDF_TYPE)
}

fn unknown_variable(var: &Variable, path: &str, known: &[Variable]) -> ApiError {
    let known: Vec<String> = known.iter().map(|v| v.as_str().to_owned()).collect();
    bad(
        path,
        format!(
            "?{} is not a variable here; known: {}",
            var.as_str(),
            if known.is_empty() {
                "none".to_owned()
            } else {
                known.join(", ")
            }
        ),
    )
}

/// A term of a pattern as an expression operand.
fn expression_of(term: TermPattern) -> Expression {
    match term {
        TermPattern::Variable(v) => Expression::Variable(v),
        TermPattern::NamedNode(n) => Expression::NamedNode(n),
        TermPattern::Literal(l) => Expression::Literal(l),
        // Terms are built from JSON here: never blank nodes or triple terms.
        other => Expression::Literal(Literal::new_simple_literal(other.to_string())),
    }
}

/// `parts` joined by `and` (or `or`); `empty` when there are none.
fn join(
    parts: Vec<Expression>,
    combine: fn(Box<Expression>, Box<Expression>) -> Expression,
    empty: bool,
) -> Expression {
    parts
        .into_iter()
        .reduce(|left, right| combine(Box::new(left), Box::new(right)))
        .unwrap_or_else(|| Expression::Literal(Literal::from(empty)))
}

impl Compiler<'_> {
    fn local_known(&self, prefix: &str, iri: &NamedNode) -> Option<String> {
        iri.as_str().strip_prefix(prefix).map(str::to_owned)
    }

    fn term(&self, value: &Value, path: &str) -> Result<TermPattern, ApiError> {
        Ok(self.term_of(value, path)?.pattern)
    }

    fn term_of(&self, value: &Value, path: &str) -> Result<Term, ApiError> {
        let exact = |pattern: TermPattern| Term {
            pattern,
            by_value: false,
        };
        let object = value.as_object().ok_or_else(|| {
            bad(
                path,
                "a term is {\"var\"}, {\"type\", \"name\"}, {\"iri\"} or {\"value\"}",
            )
        })?;
        if let Some(Value::String(name)) = object.get("var") {
            return Ok(exact(variable(name, &format!("{path}.var"))?.into()));
        }
        if let Some(Value::String(text)) = object.get("iri") {
            return Ok(exact(iri(text, &format!("{path}.iri"))?.into()));
        }
        if let (Some(Value::String(type_name)), Some(Value::String(name))) =
            (object.get("type"), object.get("name"))
        {
            let local = self
                .local_known(&self.iris.class_prefix(), &self.iris.class(type_name))
                .unwrap_or_default();
            if !self.ontology.types.contains_key(&local) {
                return Err(ApiError {
                    code: ErrorCode::UnknownType,
                    message: format!("unknown type {type_name:?}"),
                    param: Some(format!("{path}.type")),
                    validation: None,
                });
            }
            return Ok(exact(self.iris.entity(type_name, name).into()));
        }
        if object.contains_key("value") {
            return self.value(object, path);
        }
        Err(bad(
            path,
            "a term is {\"var\"}, {\"type\", \"name\"}, {\"iri\"} or {\"value\"}",
        ))
    }

    fn value(&self, object: &serde_json::Map<String, Value>, path: &str) -> Result<Term, ApiError> {
        let value = &object["value"];
        let datatype = match object.get("datatype") {
            None | Some(Value::Null) => None,
            Some(Value::String(datatype)) => Some(datatype.as_str()),
            Some(_) => return Err(bad(&format!("{path}.datatype"), "a datatype is a string")),
        };
        let lang = match object.get("lang") {
            None | Some(Value::Null) => None,
            Some(Value::String(lang)) => Some(lang.as_str()),
            Some(_) => return Err(bad(&format!("{path}.lang"), "a language tag is a string")),
        };
        if let Some(key) = object
            .keys()
            .find(|k| !["value", "datatype", "lang"].contains(&k.as_str()))
        {
            return Err(bad(
                &format!("{path}.{key}"),
                "a value term takes value, datatype or lang",
            ));
        }
        let text = match value {
            Value::String(s) => s.clone(),
            Value::Number(n) => n.to_string(),
            Value::Bool(b) => b.to_string(),
            _ => {
                return Err(bad(
                    &format!("{path}.value"),
                    "a value is a string, number or boolean",
                ));
            }
        };
        let typed = |xsd: &str| -> TermPattern {
            Literal::new_typed_literal(
                text.clone(),
                NamedNode::new_unchecked(format!("{XSD}{xsd}")),
            )
            .into()
        };
        let by_value = |pattern: TermPattern| Term {
            pattern,
            by_value: true,
        };
        let exact = |pattern: TermPattern| Term {
            pattern,
            by_value: false,
        };
        if let Some(lang) = lang {
            if datatype.is_some() {
                return Err(bad(
                    &format!("{path}.lang"),
                    "give a language tag or a datatype, not both",
                ));
            }
            let Value::String(text) = value else {
                return Err(bad(
                    &format!("{path}.value"),
                    "a language-tagged value is a string",
                ));
            };
            let literal = match lang.split_once("--") {
                Some((language, direction)) => {
                    let direction = match direction {
                        "ltr" => oxrdf::BaseDirection::Ltr,
                        "rtl" => oxrdf::BaseDirection::Rtl,
                        _ => {
                            return Err(bad(
                                &format!("{path}.lang"),
                                format!("{lang:?}: a base direction is --ltr or --rtl"),
                            ));
                        }
                    };
                    Literal::new_directional_language_tagged_literal(
                        text.clone(),
                        language,
                        direction,
                    )
                }
                None => Literal::new_language_tagged_literal(text.clone(), lang),
            }
            .map_err(|e| bad(&format!("{path}.lang"), format!("{lang:?}: {e}")))?;
            return Ok(exact(literal.into()));
        }
        Ok(match (datatype, value) {
            (Some("iri"), _) => exact(iri(&text, &format!("{path}.value"))?.into()),
            (Some("i64"), _) => {
                text.parse::<i64>()
                    .map_err(|_| bad(&format!("{path}.value"), "not an i64"))?;
                by_value(typed("integer"))
            }
            (Some("f64"), _) => {
                text.parse::<f64>()
                    .map_err(|_| bad(&format!("{path}.value"), "not an f64"))?;
                by_value(typed("double"))
            }
            (Some("bool"), _) => match text.as_str() {
                "true" | "false" | "1" | "0" => by_value(typed("boolean")),
                _ => return Err(bad(&format!("{path}.value"), "not a bool")),
            },
            (Some("date_time"), _) => by_value(
                crate::ontology::convert_value(
                    &Value::String(text.clone()),
                    crate::ontology::ValueType::DateTime,
                )
                .map_err(|e| ApiError {
                    code: ErrorCode::ValueTypeMismatch,
                    message: e.to_string(),
                    param: Some(format!("{path}.value")),
                    validation: None,
                })?
                .into(),
            ),
            (Some("str"), _) | (None, Value::String(_)) => {
                exact(Literal::new_simple_literal(text).into())
            }
            (None, Value::Number(n)) if n.is_i64() || n.is_u64() => by_value(typed("integer")),
            // A JSON number with a fraction is written as xsd:decimal (what Turtle's `1.5`
            // is), with an exponent as xsd:double; either way it matches by value.
            (None, Value::Number(_)) if !text.contains(['e', 'E']) => by_value(typed("decimal")),
            (None, Value::Number(_)) => by_value(typed("double")),
            (None, Value::Bool(_)) => by_value(typed("boolean")),
            // A full datatype IRI, as answers write terms JSON cannot hold: that exact term.
            (Some(other), _) if other.contains(':') => {
                let datatype = iri(other, &format!("{path}.datatype"))?;
                exact(Literal::new_typed_literal(text, datatype).into())
            }
            (Some(other), _) => {
                return Err(bad(
                    &format!("{path}.datatype"),
                    format!(
                        "unknown datatype {other:?}; use i64, f64, bool, date_time, str, iri or a datatype IRI"
                    ),
                ));
            }
            _ => return Err(bad(path, "unsupported value")),
        })
    }

    fn predicate(&self, value: &Value, path: &str) -> Result<NamedNodePattern, ApiError> {
        let wrong = || {
            bad(
                path,
                "a predicate is a relation or field name, \"type\", {\"iri\"} or {\"var\"}",
            )
        };
        match value {
            Value::String(name) if name == "type" || name == "a" => Ok(rdf_type().into()),
            // Names may always be given as IRIs, so imported RDF can be queried too.
            Value::String(name) if name.contains("://") || name.starts_with("urn:") => {
                Ok(iri(name, path)?.into())
            }
            Value::String(name) => {
                let relation = self.iris.relation(name);
                let field = self.iris.field(name);
                let relation_local = self
                    .local_known(&self.iris.relation_prefix(), &relation)
                    .unwrap_or_default();
                let field_local = self
                    .local_known(&self.iris.field_prefix(), &field)
                    .unwrap_or_default();
                if self.ontology.relations.contains_key(&relation_local) {
                    Ok(relation.into())
                } else if self.ontology.fields.contains_key(&field_local) {
                    Ok(field.into())
                } else {
                    Err(ApiError {
                        code: ErrorCode::UnknownRelation,
                        message: format!(
                            "{name:?} is neither a relation nor a field of the ontology; give {{\"iri\": …}} for other predicates"
                        ),
                        param: Some(path.to_owned()),
                        validation: None,
                    })
                }
            }
            Value::Object(object) => {
                if let Some(Value::String(text)) = object.get("iri") {
                    Ok(iri(text, &format!("{path}.iri"))?.into())
                } else if let Some(Value::String(name)) = object.get("var") {
                    Ok(variable(name, &format!("{path}.var"))?.into())
                } else {
                    Err(wrong())
                }
            }
            _ => Err(wrong()),
        }
    }

    /// `var` must be a variable of the patterns: any other is unbound, and a condition on
    /// it silently empties the answer.
    fn in_scope(&self, var: Variable, path: &str) -> Result<Variable, ApiError> {
        match &self.scope {
            Some(scope) if !scope.contains(&var) => Err(unknown_variable(&var, path, scope)),
            _ => Ok(var),
        }
    }

    fn operand(&mut self, value: &Value, path: &str) -> Result<Expression, ApiError> {
        let object = value.as_object().ok_or_else(|| {
            bad(
                path,
                "an operand is {\"var\"}, {\"field\": {\"var\", \"name\"}} or {\"value\"}",
            )
        })?;
        if let Some(field) = object.get("field") {
            let field: FieldRef = serde_json::from_value(field.clone())
                .map_err(|e| bad(&format!("{path}.field"), e.to_string()))?;
            let predicate = self.predicate(
                &Value::String(field.name.clone()),
                &format!("{path}.field.name"),
            )?;
            let holder_path = format!("{path}.field.var");
            let holder = self.in_scope(variable(&field.var, &holder_path)?, &holder_path)?;
            let value_var = Variable::new_unchecked(format!("_f{}", self.n_fields));
            self.n_fields += 1;
            self.extra.push(TriplePattern {
                subject: holder.into(),
                predicate,
                object: value_var.clone().into(),
            });
            return Ok(Expression::Variable(value_var));
        }
        match self.term(value, path)? {
            TermPattern::Variable(var) => Ok(Expression::Variable(
                self.in_scope(var, &format!("{path}.var"))?,
            )),
            term => Ok(expression_of(term)),
        }
    }

    fn filter(&mut self, filter: &Filter, path: &str) -> Result<Expression, ApiError> {
        Ok(match filter {
            Filter::Compare { op, left, right } => {
                let fields_before = self.extra.len();
                let left = Box::new(self.operand(left, &format!("{path}.left"))?);
                // `{"value": "2021-01-01", "datatype": "date_time"}`: that whole day.
                let day = match (
                    super::moments::Op::from_name(op),
                    right.get("datatype").and_then(Value::as_str),
                    right.get("value").and_then(Value::as_str),
                ) {
                    (Some(op), Some("date_time"), Some(text)) => {
                        super::moments::compare_with_day(&left, op, text)
                    }
                    _ => None,
                };
                let right = Box::new(self.operand(right, &format!("{path}.right"))?);
                // A field operand asks whether the record has a value of the field that
                // passes: `EXISTS { ?x <field> ?v FILTER(?v > 2) }`. Joining the field's
                // pattern into the query instead would repeat each row once per value.
                let fields: Vec<TriplePattern> = self.extra.drain(fields_before..).collect();
                let comparison = match op.as_str() {
                    "eq" | "==" => Expression::Equal(left, right),
                    "ne" | "!=" => Expression::Not(Box::new(Expression::Equal(left, right))),
                    "lt" | "<" => Expression::Less(left, right),
                    "le" | "<=" => Expression::LessOrEqual(left, right),
                    "gt" | ">" => Expression::Greater(left, right),
                    "ge" | ">=" => Expression::GreaterOrEqual(left, right),
                    other => {
                        return Err(bad(
                            &format!("{path}.op"),
                            format!("unknown operator {other:?}; use eq, ne, lt, le, gt or ge"),
                        ));
                    }
                };
                let comparison = day.unwrap_or(comparison);
                if fields.is_empty() {
                    comparison
                } else {
                    Expression::Exists(Box::new(GraphPattern::Filter {
                        expr: comparison,
                        inner: Box::new(GraphPattern::Bgp { patterns: fields }),
                    }))
                }
            }
            Filter::And { and } => join(
                and.iter()
                    .enumerate()
                    .map(|(i, f)| self.filter(f, &format!("{path}.and[{i}]")))
                    .collect::<Result<Vec<_>, _>>()?,
                Expression::And,
                true,
            ),
            Filter::Or { or } => join(
                or.iter()
                    .enumerate()
                    .map(|(i, f)| self.filter(f, &format!("{path}.or[{i}]")))
                    .collect::<Result<Vec<_>, _>>()?,
                Expression::Or,
                false,
            ),
            Filter::Not { not } => {
                Expression::Not(Box::new(self.filter(not, &format!("{path}.not"))?))
            }
        })
    }
}

/// Valid time, as opposed to commit time: whether the link holds at `moment`. Each
/// period of a link is a reifier carrying `strata:validFrom` and/or `strata:validUntil`
/// (`records::commit` writes one per period); a period is half-open, `[validFrom,
/// validUntil)`, the end being the first instant after its last unit. The link holds when
/// it has no period at all, or when one of its periods contains `moment` (no `validFrom`
/// after it, no `validUntil` at or before it). `n` makes the helper variables unique.
pub(super) fn holds_at(link: TriplePattern, moment: &Literal, n: usize) -> Expression {
    let triple = |s: &Variable, p: &str, o: TermPattern| TriplePattern {
        subject: s.clone().into(),
        predicate: NamedNode::new_unchecked(p).into(),
        object: o,
    };
    let from = "https://strata.dev/ns#validFrom";
    let until = "https://strata.dev/ns#validUntil";
    // `?r rdf:reifies <<( link )>>` and `?r` has a bound: a period of the link.
    let period = |reifier: &Variable, bound: &Variable| GraphPattern::Join {
        left: Box::new(GraphPattern::Bgp {
            patterns: vec![triple(
                reifier,
                "http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies",
                TermPattern::Triple(Box::new(link.clone())),
            )],
        }),
        right: Box::new(GraphPattern::Union {
            left: Box::new(GraphPattern::Bgp {
                patterns: vec![triple(reifier, from, bound.clone().into())],
            }),
            right: Box::new(GraphPattern::Bgp {
                patterns: vec![triple(reifier, until, bound.clone().into())],
            }),
        }),
    };
    let var = |name: &str| Variable::new_unchecked(format!("{name}{n}"));
    let any_period = period(&var("_vr"), &var("_va"));
    // A bound of `reifier` on the wrong side of `moment`.
    let outside = |reifier: &Variable,
                   name: &str,
                   predicate: &str,
                   compare: fn(Box<Expression>, Box<Expression>) -> Expression| {
        let value = var(name);
        Expression::Exists(Box::new(GraphPattern::Filter {
            expr: compare(
                Box::new(Expression::Variable(value.clone())),
                Box::new(Expression::Literal(moment.clone())),
            ),
            inner: Box::new(GraphPattern::Bgp {
                patterns: vec![triple(reifier, predicate, value.into())],
            }),
        }))
    };
    let reifier = var("_vs");
    let containing = GraphPattern::Filter {
        expr: Expression::And(
            Box::new(Expression::Not(Box::new(outside(
                &reifier,
                "_vf",
                from,
                Expression::Greater,
            )))),
            Box::new(Expression::Not(Box::new(outside(
                &reifier,
                "_vu",
                until,
                Expression::LessOrEqual,
            )))),
        ),
        inner: Box::new(period(&reifier, &var("_vb"))),
    };
    Expression::Or(
        Box::new(Expression::Not(Box::new(Expression::Exists(Box::new(
            any_period,
        ))))),
        Box::new(Expression::Exists(Box::new(containing))),
    )
}

/// A date (its end, UTC) or moment as a dateTime literal.
pub(super) fn moment(text: &str, param: &str) -> Result<Literal, ApiError> {
    let text = text.trim();
    let moment =
        crate::model::parse_date_or_moment(text, crate::model::DayEdge::End).ok_or_else(|| {
            bad(
                param,
                format!("expected a date or an RFC 3339 moment, got {text:?}"),
            )
        })?;
    Ok(Literal::new_typed_literal(
        crate::log::format_time(moment),
        NamedNode::new_unchecked(format!("{XSD}dateTime")),
    ))
}

/// A compiled structured query: the algebra, and its SPARQL text printed from it.
pub struct Compiled {
    pub query: Query,
    pub text: String,
}

/// Compiles a structured query to SPARQL algebra and prints it; `valid_at` keeps only
/// links valid in the world then.
pub fn compile(
    body: &Structured,
    iris: &RecordIris,
    ontology: &Ontology,
    valid_at: Option<&Literal>,
) -> Result<Compiled, ApiError> {
    let query = compile_algebra(body, iris, ontology, valid_at)?;
    let text = print(&query);
    Ok(Compiled { query, text })
}

/// The SPARQL text of a query `compile_algebra` built, in the usual `SELECT … WHERE { … }
/// GROUP BY … HAVING … ORDER BY …` form (spargebra's own printer writes aggregates as
/// sub-selects, which reads worse and runs the same). Every term and expression is
/// printed by spargebra, so the text says exactly what the algebra does.
fn print(query: &Query) -> String {
    let Query::Select { pattern, .. } = query else {
        return query.to_string();
    };
    let mut pattern = pattern;
    let distinct = match pattern {
        GraphPattern::Distinct { inner } => {
            pattern = inner;
            true
        }
        _ => false,
    };
    let GraphPattern::Project { inner, variables } = pattern else {
        return query.to_string();
    };
    pattern = inner;
    let mut order = None;
    if let GraphPattern::OrderBy { inner, expression } = pattern {
        order = Some(expression);
        pattern = inner;
    }
    let mut having = None;
    if let GraphPattern::Filter { expr, inner } = pattern
        && matches!(inner.as_ref(), GraphPattern::Group { .. })
    {
        having = Some(expr);
        pattern = inner;
    }
    let mut keys: Vec<(&Variable, &Expression)> = Vec::new();
    let mut group = None;
    if let GraphPattern::Group {
        inner,
        variables,
        aggregates,
    } = pattern
    {
        group = Some((variables, aggregates));
        pattern = inner;
        while let GraphPattern::Extend {
            inner,
            variable,
            expression,
        } = pattern
        {
            keys.insert(0, (variable, expression));
            pattern = inner;
        }
    }
    // Aggregates are named in the projection; group keys in GROUP BY (which binds them).
    let projected = |v: &Variable| -> String {
        match group.and_then(|(_, aggregates)| aggregates.iter().find(|(a, _)| a == v)) {
            Some((_, aggregate)) => format!("({aggregate} AS {v})"),
            None => v.to_string(),
        }
    };
    let grouped_by = |v: &Variable| -> String {
        match keys.iter().find(|(k, _)| *k == v) {
            Some((_, expression)) => format!("({expression} AS {v})"),
            None => v.to_string(),
        }
    };
    let projection: Vec<String> = variables.iter().map(projected).collect();
    let mut text = format!(
        "SELECT {}{} WHERE {{ {pattern} }}",
        if distinct { "DISTINCT " } else { "" },
        projection.join(" ")
    );
    if let Some((variables, _)) = group
        && !variables.is_empty()
    {
        let items: Vec<String> = variables.iter().map(grouped_by).collect();
        text.push_str(&format!(" GROUP BY {}", items.join(" ")));
    }
    if let Some(having) = having {
        // In SPARQL, HAVING runs before the projection binds `(COUNT(*) AS ?n)`: `?n` is
        // unbound there, so the condition names the aggregate itself.
        let aggregates = group
            .map(|(_, aggregates)| aggregates.as_slice())
            .unwrap_or(&[]);
        text.push_str(&format!(" HAVING ({})", having_text(having, aggregates)));
    }
    if let Some(order) = order {
        let items: Vec<String> = order.iter().map(ToString::to_string).collect();
        text.push_str(&format!(" ORDER BY {}", items.join(" ")));
    }
    text
}

/// A HAVING condition as SPARQL text, with each aggregate alias replaced by its aggregate
/// (`?n > 1` becomes `COUNT(*) > 1`). The conditions are what `Compiler::filter` builds:
/// comparisons, `&&`, `||`, `!` over variables and constants.
fn having_text(expression: &Expression, aggregates: &[(Variable, AggregateExpression)]) -> String {
    let text = |e: &Expression| having_text(e, aggregates);
    let binary =
        |op: &str, l: &Expression, r: &Expression| format!("({} {op} {})", text(l), text(r));
    match expression {
        Expression::Variable(v) => match aggregates.iter().find(|(a, _)| a == v) {
            Some((_, aggregate)) => aggregate.to_string(),
            None => v.to_string(),
        },
        Expression::Equal(l, r) => binary("=", l, r),
        Expression::Less(l, r) => binary("<", l, r),
        Expression::LessOrEqual(l, r) => binary("<=", l, r),
        Expression::Greater(l, r) => binary(">", l, r),
        Expression::GreaterOrEqual(l, r) => binary(">=", l, r),
        Expression::And(l, r) => binary("&&", l, r),
        Expression::Or(l, r) => binary("||", l, r),
        Expression::Not(inner) => format!("(!{})", text(inner)),
        other => other.to_string(),
    }
}

/// Whether a condition reads a field (`{"field": …}` operands).
fn uses_field(filter: &Filter) -> bool {
    match filter {
        Filter::Compare { left, right, .. } => {
            [left, right].iter().any(|side| side.get("field").is_some())
        }
        Filter::And { and: parts } | Filter::Or { or: parts } => parts.iter().any(uses_field),
        Filter::Not { not } => uses_field(not),
    }
}

/// The variables an expression built by `Compiler::filter` reads.
fn variables_in(expression: &Expression, out: &mut Vec<Variable>) {
    match expression {
        Expression::Variable(v) => out.push(v.clone()),
        Expression::Equal(l, r)
        | Expression::Less(l, r)
        | Expression::LessOrEqual(l, r)
        | Expression::Greater(l, r)
        | Expression::GreaterOrEqual(l, r)
        | Expression::And(l, r)
        | Expression::Or(l, r) => {
            variables_in(l, out);
            variables_in(r, out);
        }
        Expression::Not(inner) => variables_in(inner, out),
        _ => {}
    }
}

/// `pattern OPTIONAL { field }`.
fn optional_field(pattern: GraphPattern, field: TriplePattern) -> GraphPattern {
    GraphPattern::LeftJoin {
        left: Box::new(pattern),
        right: Box::new(GraphPattern::Bgp {
            patterns: vec![field],
        }),
        expression: None,
    }
}

/// Stands for "no key" inside `aggregate_apart`'s groups, so that their join matches
/// a group without a key only with itself (an unbound variable would match every key).
const NO_KEY: &str = "https://strata.dev/ns#noKey";

/// Groups whose aggregates read different fields (or a field and the rows themselves),
/// each field aggregated apart. Joined to the rows together, the fields would multiply
/// each other: a record with two prices and two weights would be four rows, its prices
/// summed twice and counted four times. So the rows are grouped once for the aggregates
/// of the rows (`count`, variables of the patterns) and once more per field, with that
/// field alone joined (`OPTIONAL`), and the groups are joined on their keys: every
/// aggregate sees exactly what SPARQL would give it were it the only one.
fn aggregate_apart(
    rows: GraphPattern,
    group_vars: &[Variable],
    nullable_keys: &[Variable],
    fields: Vec<TriplePattern>,
    aggregates: Vec<((Variable, AggregateExpression), Option<usize>)>,
) -> GraphPattern {
    let no_key = NamedNode::new_unchecked(NO_KEY);
    let inner = |key: &Variable| Variable::new_unchecked(format!("_k_{}", key.as_str()));
    let inner_keys: Vec<Variable> = group_vars
        .iter()
        .cloned()
        .chain(nullable_keys.iter().map(inner))
        .collect();
    let grouped = |mut rows: GraphPattern, aggregates: Vec<(Variable, AggregateExpression)>| {
        for key in nullable_keys {
            rows = GraphPattern::Extend {
                inner: Box::new(rows),
                variable: inner(key),
                expression: Expression::Coalesce(vec![
                    Expression::Variable(key.clone()),
                    Expression::NamedNode(no_key.clone()),
                ]),
            };
        }
        let projected = inner_keys
            .iter()
            .cloned()
            .chain(aggregates.iter().map(|(v, _)| v.clone()))
            .collect();
        GraphPattern::Project {
            inner: Box::new(GraphPattern::Group {
                inner: Box::new(rows),
                variables: inner_keys.clone(),
                aggregates,
            }),
            variables: projected,
        }
    };
    let mut of_rows = Vec::new();
    let mut of_field: Vec<Vec<(Variable, AggregateExpression)>> = vec![Vec::new(); fields.len()];
    for (aggregate, field) in aggregates {
        match field {
            Some(i) => of_field[i].push(aggregate),
            None => of_rows.push(aggregate),
        }
    }
    // Every part groups the same rows (an OPTIONAL field drops none), so each has every
    // group there is, and the join pairs them one to one.
    let mut parts = Vec::new();
    if !of_rows.is_empty() {
        parts.push(grouped(rows.clone(), of_rows));
    }
    for (field, aggregates) in fields.into_iter().zip(of_field) {
        if !aggregates.is_empty() {
            parts.push(grouped(optional_field(rows.clone(), field), aggregates));
        }
    }
    let Some(mut joined) = parts.into_iter().reduce(|left, right| GraphPattern::Join {
        left: Box::new(left),
        right: Box::new(right),
    }) else {
        return rows;
    };
    let unbound = Variable::new_unchecked("_no_key");
    for key in nullable_keys {
        // IF's branch reads a variable never bound: an error, so the key stays unbound.
        joined = GraphPattern::Extend {
            inner: Box::new(joined),
            variable: key.clone(),
            expression: Expression::If(
                Box::new(Expression::SameTerm(
                    Box::new(Expression::Variable(inner(key))),
                    Box::new(Expression::NamedNode(no_key.clone())),
                )),
                Box::new(Expression::Variable(unbound.clone())),
                Box::new(Expression::Variable(inner(key))),
            ),
        };
    }
    joined
}

/// Compiles a structured query to a SPARQL SELECT query (algebra); `valid_at` keeps only
/// links valid in the world then.
fn compile_algebra(
    body: &Structured,
    iris: &RecordIris,
    ontology: &Ontology,
    valid_at: Option<&Literal>,
) -> Result<Query, ApiError> {
    let root = "structured";
    if body.patterns.is_empty() {
        return Err(bad(
            &format!("{root}.patterns"),
            "give at least one pattern",
        ));
    }
    let mut compiler = Compiler {
        iris,
        ontology,
        extra: Vec::new(),
        n_fields: 0,
        scope: None,
    };
    let mut triples = Vec::new();
    let mut conditions = Vec::new();
    let mut pattern_vars: Vec<Variable> = Vec::new();
    for (idx, pattern) in body.patterns.iter().enumerate() {
        let path = format!("{root}.patterns[{idx}]");
        let subject = compiler.term(&pattern.subject, &format!("{path}.subject"))?;
        let predicate = compiler.predicate(&pattern.predicate, &format!("{path}.predicate"))?;
        let object = compiler.term_of(&pattern.object, &format!("{path}.object"))?;
        let object = if object.by_value {
            // `?s <p> ?_oN FILTER(?_oN = 30)`: any term equal in value.
            let holder = Variable::new_unchecked(format!("_o{idx}"));
            conditions.push(Expression::Equal(
                Box::new(Expression::Variable(holder.clone())),
                Box::new(expression_of(object.pattern)),
            ));
            TermPattern::Variable(holder)
        } else {
            object.pattern
        };
        let predicate_var = match &predicate {
            NamedNodePattern::Variable(v) => Some(v.clone()),
            NamedNodePattern::NamedNode(_) => None,
        };
        for var in [&subject, &object]
            .into_iter()
            .filter_map(|t| match t {
                TermPattern::Variable(v) => Some(v.clone()),
                _ => None,
            })
            .chain(predicate_var.clone())
        {
            // The compiler's own (`_oN`) are not the query's.
            if !var.as_str().starts_with('_') && !pattern_vars.contains(&var) {
                pattern_vars.push(var);
            }
        }
        let triple = TriplePattern {
            subject,
            predicate: predicate.clone(),
            object,
        };
        // Types have no valid time; every other pattern (a variable predicate too) keeps
        // only the links that hold then.
        if let Some(moment) = valid_at
            && predicate != NamedNodePattern::NamedNode(rdf_type())
        {
            conditions.push(holds_at(triple.clone(), moment, idx));
        }
        triples.push(triple);
    }
    // Filters, group keys and aggregates read the variables of the patterns.
    compiler.scope = Some(pattern_vars.clone());
    for (idx, filter) in body.filters.iter().enumerate() {
        conditions.push(compiler.filter(filter, &format!("{root}.filters[{idx}]"))?);
    }
    // Group keys: an expression bound to a variable before grouping, grouped by it; a
    // key without a bucket is the field's value itself, bound by its pattern (`GROUP BY
    // (?v AS ?k)` with a bare variable is refused by the SPARQL parser the text goes to).
    let mut keys: Vec<(Variable, Expression)> = Vec::new();
    let mut plain_keys: Vec<Variable> = Vec::new();
    for (idx, key) in body.group_keys.iter().enumerate() {
        let path = format!("{root}.group_keys[{idx}]");
        let alias = variable(&key.alias, &format!("{path}.as"))?;
        let taken = pattern_vars.contains(&alias)
            || plain_keys.contains(&alias)
            || keys.iter().any(|(k, _)| *k == alias);
        if taken {
            return Err(bad(
                &format!("{path}.as"),
                format!(
                    "?{} is already a variable of the query; name the key otherwise",
                    alias.as_str()
                ),
            ));
        }
        if key.bucket.is_none() {
            let predicate = compiler.predicate(
                &Value::String(key.field.name.clone()),
                &format!("{path}.field.name"),
            )?;
            let holder_path = format!("{path}.field.var");
            let holder =
                compiler.in_scope(variable(&key.field.var, &holder_path)?, &holder_path)?;
            compiler.extra.push(TriplePattern {
                subject: holder.into(),
                predicate,
                object: alias.clone().into(),
            });
            plain_keys.push(alias);
            continue;
        }
        let value = compiler.operand(
            &serde_json::json!({ "field": { "var": key.field.var, "name": key.field.name } }),
            &path,
        )?;
        let unit = key.bucket.as_deref().unwrap_or_default();
        if !["year", "month", "week", "day", "hour"].contains(&unit) {
            return Err(bad(
                &format!("{path}.bucket"),
                format!("unknown bucket {unit:?}; use year, month, week, day or hour"),
            ));
        }
        // In UTC, of dates and moments only (`strata:dateBucket`): a value of another
        // kind has no bucket, and its rows group under an unbound key.
        let expression = Expression::FunctionCall(
            Function::Custom(NamedNode::new_unchecked(crate::sparql::DATE_BUCKET)),
            vec![
                value,
                Expression::Literal(Literal::new_simple_literal(unit)),
            ],
        );
        keys.push((alias, expression));
    }
    let mut group_vars = Vec::new();
    for (idx, name) in body.group_by.iter().enumerate() {
        let path = format!("{root}.group_by[{idx}]");
        let var = compiler.in_scope(variable(name, &path)?, &path)?;
        if plain_keys.contains(&var) || keys.iter().any(|(k, _)| *k == var) {
            return Err(bad(&path, format!("?{name} is also a group key's name")));
        }
        if !group_vars.contains(&var) {
            group_vars.push(var);
        }
    }
    // The fields group keys read belong to every row; the fields aggregates read come
    // after them in `compiler.extra`.
    let key_fields = compiler.extra.len();
    let mut aggregates = Vec::new();
    // Which of the aggregates' fields each aggregate reads (`None`: the rows themselves).
    let mut field_of: Vec<Option<usize>> = Vec::new();
    for (idx, aggregate) in body.aggregates.iter().enumerate() {
        let path = format!("{root}.aggregates[{idx}]");
        let function = match aggregate.func.as_str() {
            "count" => AggregateFunction::Count,
            "sum" => AggregateFunction::Sum,
            "avg" => AggregateFunction::Avg,
            "min" => AggregateFunction::Min,
            "max" => AggregateFunction::Max,
            other => {
                return Err(bad(
                    &format!("{path}.func"),
                    format!("unknown aggregate {other:?}; use count, sum, avg, min or max"),
                ));
            }
        };
        let expression = match &aggregate.operand {
            None if function == AggregateFunction::Count => AggregateExpression::CountSolutions {
                distinct: aggregate.distinct,
            },
            None => {
                return Err(bad(
                    &format!("{path}.operand"),
                    format!("{} needs an operand", aggregate.func),
                ));
            }
            Some(operand) => {
                let mut expr = compiler.operand(operand, &format!("{path}.operand"))?;
                // Aggregates of one field share its values (`sum` and `avg` of a price
                // read the same ?_fN), so they see the same rows.
                if compiler.extra.len() > key_fields + 1
                    && let Some(new) = compiler.extra.last()
                    && let Some(same) = compiler.extra[key_fields..compiler.extra.len() - 1]
                        .iter()
                        .find(|f| f.subject == new.subject && f.predicate == new.predicate)
                    && let TermPattern::Variable(shared) = &same.object
                {
                    expr = Expression::Variable(shared.clone());
                    compiler.extra.pop();
                }
                AggregateExpression::FunctionCall {
                    name: function,
                    expr,
                    distinct: aggregate.distinct,
                }
            }
        };
        field_of.push(match &expression {
            AggregateExpression::FunctionCall {
                expr: Expression::Variable(v),
                ..
            } => compiler.extra[key_fields..]
                .iter()
                .position(|f| f.object == TermPattern::Variable(v.clone())),
            _ => None,
        });
        let alias_path = format!("{path}.as");
        let alias = variable(&aggregate.alias, &alias_path)?;
        let taken = pattern_vars.contains(&alias)
            || plain_keys.contains(&alias)
            || keys.iter().any(|(k, _)| *k == alias)
            || aggregates.iter().any(|(a, _)| *a == alias);
        if taken {
            return Err(bad(
                &alias_path,
                format!(
                    "?{} is already a variable of the query; name the aggregate otherwise",
                    alias.as_str()
                ),
            ));
        }
        aggregates.push((alias, expression));
    }
    compiler.scope = None;
    let grouped = !group_vars.is_empty()
        || !keys.is_empty()
        || !plain_keys.is_empty()
        || !aggregates.is_empty();
    // A group has only its keys and its aggregates: HAVING may compare those, nothing
    // else (a field of a record, or a variable of the patterns, has no value per group).
    let in_groups: Vec<&Variable> = group_vars
        .iter()
        .chain(plain_keys.iter())
        .chain(keys.iter().map(|(v, _)| v))
        .chain(aggregates.iter().map(|(v, _)| v))
        .collect();
    let mut having = Vec::new();
    for (idx, filter) in body.having.iter().enumerate() {
        let path = format!("{root}.having[{idx}]");
        if !grouped {
            return Err(bad(
                &path,
                "having filters groups: give group_by, group_keys or aggregates",
            ));
        }
        if uses_field(filter) {
            return Err(bad(
                &path,
                "having compares groups: use group_by variables, group_keys or aggregate aliases, not fields",
            ));
        }
        let expression = compiler.filter(filter, &path)?;
        let mut used = Vec::new();
        variables_in(&expression, &mut used);
        if let Some(stray) = used.iter().find(|v| !in_groups.contains(v)) {
            return Err(bad(
                &path,
                format!(
                    "?{} is not a group key or an aggregate alias; having can use only those",
                    stray.as_str()
                ),
            ));
        }
        having.push(expression);
    }
    // What a row has: the groups' keys and aggregates, or the patterns' variables.
    let visible: Vec<Variable> = if grouped {
        in_groups.iter().map(|v| (*v).clone()).collect()
    } else {
        pattern_vars.clone()
    };
    let visible_var = |name: &str, path: &str| -> Result<Variable, ApiError> {
        let var = variable(name, path)?;
        if visible.contains(&var) {
            Ok(var)
        } else {
            Err(unknown_variable(&var, path, &visible))
        }
    };
    for (i, o) in body.order_by.iter().enumerate() {
        visible_var(&o.var, &format!("{root}.order_by[{i}].var"))?;
    }
    let projection: Vec<Variable> = if !body.select.is_empty() {
        body.select
            .iter()
            .enumerate()
            .map(|(i, v)| visible_var(v, &format!("{root}.select[{i}]")))
            .collect::<Result<_, _>>()?
    } else if grouped {
        group_vars
            .iter()
            .chain(plain_keys.iter())
            .chain(keys.iter().map(|(v, _)| v))
            .chain(aggregates.iter().map(|(v, _)| v))
            .cloned()
            .collect()
    } else {
        pattern_vars
    };
    if projection.is_empty() {
        return Err(bad(
            &format!("{root}.select"),
            "the query selects nothing: use variables in patterns or `select`",
        ));
    }
    // WHERE: the patterns, then the conditions, then the field values that group keys
    // and aggregates read, each OPTIONAL: a record without the field stays in (counted
    // by COUNT(*), skipped by the other aggregates, grouped under no key).
    let mut pattern = GraphPattern::Bgp { patterns: triples };
    if !conditions.is_empty() {
        pattern = GraphPattern::Filter {
            expr: join(conditions, Expression::And, true),
            inner: Box::new(pattern),
        };
    }
    let aggregate_fields: Vec<TriplePattern> = compiler.extra.drain(key_fields..).collect();
    for field in compiler.extra.drain(..) {
        pattern = optional_field(pattern, field);
    }
    if grouped {
        for (alias, expression) in &keys {
            pattern = GraphPattern::Extend {
                inner: Box::new(pattern),
                variable: alias.clone(),
                expression: expression.clone(),
            };
        }
        let nullable_keys: Vec<Variable> = plain_keys
            .iter()
            .chain(keys.iter().map(|(v, _)| v))
            .cloned()
            .collect();
        // One field read by every aggregate multiplies nothing: the rows, each paired
        // with each value of the field, as SPARQL would write it.
        let flat = aggregate_fields.is_empty()
            || (aggregate_fields.len() == 1 && field_of.iter().all(|f| *f == Some(0)));
        pattern = if flat {
            GraphPattern::Group {
                inner: Box::new(aggregate_fields.into_iter().fold(pattern, optional_field)),
                variables: group_vars.iter().chain(&nullable_keys).cloned().collect(),
                aggregates,
            }
        } else {
            aggregate_apart(
                pattern,
                &group_vars,
                &nullable_keys,
                aggregate_fields,
                aggregates.into_iter().zip(field_of).collect(),
            )
        };
        if !having.is_empty() {
            pattern = GraphPattern::Filter {
                expr: join(having, Expression::And, true),
                inner: Box::new(pattern),
            };
        }
    }
    if !body.order_by.is_empty() {
        let mut expression: Vec<OrderExpression> = body
            .order_by
            .iter()
            .enumerate()
            .map(|(i, o)| {
                variable(&o.var, &format!("{root}.order_by[{i}].var")).map(|v| {
                    if o.descending {
                        OrderExpression::Desc(Expression::Variable(v))
                    } else {
                        OrderExpression::Asc(Expression::Variable(v))
                    }
                })
            })
            .collect::<Result<_, _>>()?;
        // Rows tied on the keys asked for are ordered by every column after them, so the
        // order is the same each time the query runs: each page runs it again and skips
        // the rows of the pages before, and a tie ordered otherwise the next time would
        // repeat one row and lose another.
        let ordered: Vec<Variable> = body
            .order_by
            .iter()
            .filter_map(|o| Variable::new(&o.var).ok())
            .collect();
        for column in &projection {
            if !ordered.contains(column) {
                expression.push(OrderExpression::Asc(Expression::Variable(column.clone())));
            }
        }
        pattern = GraphPattern::OrderBy {
            inner: Box::new(pattern),
            expression,
        };
    }
    pattern = GraphPattern::Project {
        inner: Box::new(pattern),
        variables: projection,
    };
    if body.distinct {
        pattern = GraphPattern::Distinct {
            inner: Box::new(pattern),
        };
    }
    Ok(Query::Select {
        dataset: None,
        pattern,
        base_iri: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compiled(body: Value) -> Compiled {
        let body: Structured = serde_json::from_value(body).unwrap();
        let iris = RecordIris::for_graph("main");
        compile(&body, &iris, &Ontology::default(), None).unwrap()
    }

    /// The printed text is SPARQL (and the e2e tests check it answers what the JSON asks).
    #[test]
    fn the_text_parses() {
        for body in [
            serde_json::json!({
                "patterns": [
                    {"subject": {"var": "t"}, "predicate": "type", "object": {"iri": "http://e/Ticket"}},
                    {"subject": {"var": "t"}, "predicate": {"iri": "http://e/reportedAs"}, "object": {"var": "b"}},
                    {"subject": {"var": "b"}, "predicate": {"iri": "http://e/severity"}, "object": {"var": "sev"}}
                ],
                "filters": [{"or": [
                    {"op": "eq", "left": {"var": "sev"}, "right": {"value": 1}},
                    {"not": {"op": "ne", "left": {"var": "sev"}, "right": {"value": "x\" } ; DROP ALL #"}}}
                ]}],
                "group_by": ["b"],
                "aggregates": [{"func": "count", "as": "n"}, {"func": "max", "as": "m", "operand": {"var": "sev"}, "distinct": true}],
                "having": [{"op": "gt", "left": {"var": "n"}, "right": {"value": 0}}],
                "order_by": [{"var": "n", "descending": true}, {"var": "b"}]
            }),
            serde_json::json!({
                "patterns": [{"subject": {"var": "t"}, "predicate": {"iri": "http://e/opened"}, "object": {"var": "o"}}],
                "group_keys": [{"field": {"var": "t", "name": "http://e/opened"}, "bucket": "month", "as": "month"}],
                "aggregates": [{"func": "count", "as": "n"}],
                "distinct": true
            }),
        ] {
            let compiled = compiled(body);
            spargebra::SparqlParser::new()
                .parse_query(&compiled.text)
                .unwrap_or_else(|e| panic!("{e}: {}", compiled.text));
            assert!(compiled.text.starts_with("SELECT "), "{}", compiled.text);
        }
        let grouped = compiled(serde_json::json!({
            "patterns": [{"subject": {"var": "t"}, "predicate": {"iri": "http://e/r"}, "object": {"var": "b"}}],
            "group_by": ["b"], "aggregates": [{"func": "count", "as": "n"}],
            "having": [{"op": "gt", "left": {"var": "n"}, "right": {"value": 1}}],
            "order_by": [{"var": "n", "descending": true}]
        }));
        assert_eq!(
            grouped.text,
            "SELECT ?b (COUNT(*) AS ?n) WHERE { ?t <http://e/r> ?b . } GROUP BY ?b \
             HAVING ((COUNT(*) > \"1\"^^<http://www.w3.org/2001/XMLSchema#integer>)) ORDER BY DESC(?n) ASC(?b)"
        );
    }

    #[test]
    fn strings_stay_literals() {
        let compiled = compiled(serde_json::json!({
            "patterns": [{"subject": {"var": "t"}, "predicate": {"iri": "http://e/label"}, "object": {"value": "a\" } ; DROP ALL #"}}]
        }));
        let parsed = spargebra::SparqlParser::new()
            .parse_query(&compiled.text)
            .unwrap();
        assert!(parsed.to_string().contains("DROP ALL"), "{}", compiled.text);
        assert_eq!(compiled.text.matches('{').count(), 1, "{}", compiled.text);
    }
}
