//! The `traverse` query mode: a stateless pipeline of steps (start from a type or
//! records, follow links out or in, filter by properties or by the existence of
//! sub-traversals, order, limit, then collect, count or group), compiled to one SPARQL
//! query, as algebra (spargebra: typed terms, never text put together by hand), so the
//! whole walk reads one commit and pages with the usual cursors.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use spargebra::Query;
use spargebra::algebra::{
    AggregateExpression, AggregateFunction, Expression, Function, GraphPattern, OrderExpression,
};
use spargebra::term::{GroundTerm, NamedNodePattern, TermPattern, TriplePattern, Variable};

use crate::error::ApiError;
use crate::model::{Literal, NamedNode};
use crate::ontology::{Ontology, RecordIris};

use crate::model::RDF_TYPE;
const RDFS_LABEL: &str = "http://www.w3.org/2000/01/rdf-schema#label";

/// A traversal.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Traversal {
    /// In order: from_type | from_records | out (to_type) | in (from_type) | filter
    /// (properties: OR of AND lists; exists: sub-traversals) | order_by {field, order} |
    /// limit | count | group_by | aggregate_by. Items: iri, type, label,
    /// `fields` (a list when several).
    pub steps: Vec<Value>,
    /// Fields to return with each item.
    #[serde(default)]
    pub fields: Vec<String>,
}

/// What the compiled query returns.
pub enum Output {
    /// Items: `?iri`, `?type`, `?label` and one variable per requested field.
    Items,
    /// One row with `?count`.
    Count,
    /// Rows of group values with `?count`.
    Groups,
}

struct Walk<'a> {
    graph: &'a str,
    ontology: &'a Ontology,
    n_vars: usize,
    /// Valid time: links not holding at this moment are skipped.
    valid_at: Option<&'a Literal>,
}

fn bad(path: &str, message: impl Into<String>) -> ApiError {
    ApiError::invalid_argument(path, message)
}

/// One element of a group graph pattern, in order.
enum Element {
    Triple(TriplePattern),
    Optional(GraphPattern),
    Sub(GraphPattern),
    Bind(Variable, Expression),
}

/// A `{ … }` group built in order, as SPARQL translates one: triples and sub-queries
/// joined, `OPTIONAL` left-joined to what precedes it, `BIND` extending it, and the
/// filters applied to the whole group.
#[derive(Default)]
struct Group {
    elements: Vec<Element>,
    filters: Vec<Expression>,
}

impl Group {
    fn triple(
        &mut self,
        subject: impl Into<TermPattern>,
        predicate: NamedNode,
        object: impl Into<TermPattern>,
    ) {
        self.elements.push(Element::Triple(TriplePattern {
            subject: subject.into(),
            predicate: predicate.into(),
            object: object.into(),
        }));
    }

    fn optional(&mut self, subject: &Variable, predicate: NamedNode, object: &Variable) {
        let mut group = Group::default();
        group.triple(subject.clone(), predicate, object.clone());
        self.elements.push(Element::Optional(group.build()));
    }

    fn build(self) -> GraphPattern {
        let join = |left: Option<GraphPattern>, right: GraphPattern| match left {
            None => right,
            Some(left) => GraphPattern::Join {
                left: Box::new(left),
                right: Box::new(right),
            },
        };
        let mut pattern: Option<GraphPattern> = None;
        let mut triples = Vec::new();
        let flush = |pattern: Option<GraphPattern>, triples: &mut Vec<TriplePattern>| {
            if triples.is_empty() {
                pattern
            } else {
                Some(join(
                    pattern,
                    GraphPattern::Bgp {
                        patterns: std::mem::take(triples),
                    },
                ))
            }
        };
        for element in self.elements {
            match element {
                Element::Triple(triple) => triples.push(triple),
                Element::Sub(sub) => pattern = Some(join(flush(pattern, &mut triples), sub)),
                Element::Optional(right) => {
                    let left = flush(pattern, &mut triples).unwrap_or(GraphPattern::Bgp {
                        patterns: Vec::new(),
                    });
                    pattern = Some(GraphPattern::LeftJoin {
                        left: Box::new(left),
                        right: Box::new(right),
                        expression: None,
                    });
                }
                Element::Bind(variable, expression) => {
                    let inner = flush(pattern, &mut triples).unwrap_or(GraphPattern::Bgp {
                        patterns: Vec::new(),
                    });
                    pattern = Some(GraphPattern::Extend {
                        inner: Box::new(inner),
                        variable,
                        expression,
                    });
                }
            }
        }
        let pattern = flush(pattern, &mut triples).unwrap_or(GraphPattern::Bgp {
            patterns: Vec::new(),
        });
        match self
            .filters
            .into_iter()
            .reduce(|a, b| Expression::And(Box::new(a), Box::new(b)))
        {
            None => pattern,
            Some(expr) => GraphPattern::Filter {
                expr,
                inner: Box::new(pattern),
            },
        }
    }
}

fn all(parts: Vec<Expression>) -> Expression {
    parts
        .into_iter()
        .reduce(|a, b| Expression::And(Box::new(a), Box::new(b)))
        .unwrap_or(Expression::Literal(Literal::from(true)))
}

fn any(parts: Vec<Expression>) -> Expression {
    parts
        .into_iter()
        .reduce(|a, b| Expression::Or(Box::new(a), Box::new(b)))
        .unwrap_or(Expression::Literal(Literal::from(false)))
}

impl Walk<'_> {
    /// A helper variable: `_v1`, `_v2`… (a field's column never starts with `_`, see
    /// `sanitize`, so the two never meet).
    fn fresh(&mut self) -> Variable {
        self.n_vars += 1;
        Variable::new_unchecked(format!("_v{}", self.n_vars))
    }

    fn is_iri(text: &str) -> bool {
        text.contains("://") || text.starts_with("urn:")
    }

    fn iri(text: &str, path: &str) -> Result<NamedNode, ApiError> {
        NamedNode::new(text.trim_start_matches('<').trim_end_matches('>'))
            .map_err(|e| bad(path, format!("not an IRI: {e}")))
    }

    fn class(&self, name: &str, path: &str) -> Result<NamedNode, ApiError> {
        if Self::is_iri(name) {
            return Self::iri(name, path);
        }
        let iris = RecordIris::for_graph(self.graph);
        let local = iris
            .class(name)
            .as_str()
            .trim_start_matches(&iris.class_prefix())
            .to_owned();
        if !self.ontology.types.contains_key(&local) {
            return Err(crate::error::ApiError {
                code: crate::error::ErrorCode::UnknownType,
                message: format!("unknown type {name:?}; give a type of the ontology or an IRI"),
                param: Some(path.to_owned()),
                validation: None,
            });
        }
        Ok(iris.class(name))
    }

    /// A relation or field name of the ontology, or an IRI.
    fn predicate(&self, name: &str, path: &str) -> Result<NamedNode, ApiError> {
        if Self::is_iri(name) {
            // A relation that resolves to nothing is `unknown_relation`, as in `commit`,
            // whether or not it looked like an IRI.
            return Self::iri(name, path).map_err(|e| ApiError {
                code: crate::error::ErrorCode::UnknownRelation,
                message: format!("{name:?} is not a relation of the ontology: {}", e.message),
                param: Some(path.to_owned()),
                validation: None,
            });
        }
        let iris = RecordIris::for_graph(self.graph);
        let relation = iris.relation(name);
        let field = iris.field(name);
        if self.ontology.relations.contains_key(
            relation
                .as_str()
                .trim_start_matches(&iris.relation_prefix()),
        ) {
            Ok(relation)
        } else if self
            .ontology
            .fields
            .contains_key(field.as_str().trim_start_matches(&iris.field_prefix()))
        {
            Ok(field)
        } else {
            Err(crate::error::ApiError {
                code: crate::error::ErrorCode::UnknownRelation,
                message: format!(
                    "{name:?} is neither a relation nor a field of the ontology; give an IRI"
                ),
                param: Some(path.to_owned()),
                validation: None,
            })
        }
    }

    /// The terms a condition's value may equal: a string that reads as an IRI is that IRI
    /// or that very string (a homepage kept as text is still text), `{"iri": …}` only the
    /// IRI.
    fn terms(value: &Value, path: &str) -> Result<Vec<Expression>, ApiError> {
        Ok(match value {
            Value::String(s) if Self::is_iri(s) => match Self::iri(s, path) {
                Ok(iri) => vec![
                    Expression::NamedNode(iri),
                    Expression::Literal(Literal::new_simple_literal(s)),
                ],
                Err(_) => vec![Expression::Literal(Literal::new_simple_literal(s))],
            },
            Value::Object(object) if object.len() == 1 && object.contains_key("iri") => {
                let text = object["iri"]
                    .as_str()
                    .ok_or_else(|| bad(path, "{\"iri\": …} holds a string"))?;
                vec![Expression::NamedNode(Self::iri(text, path)?)]
            }
            other => vec![Self::literal(other, path)?],
        })
    }

    /// A value compared by order: strings stay strings.
    fn literal(value: &Value, path: &str) -> Result<Expression, ApiError> {
        Ok(match value {
            Value::String(s) => Expression::Literal(Literal::new_simple_literal(s)),
            Value::Number(n) if n.is_i64() => {
                Expression::Literal(Literal::from(n.as_i64().unwrap_or_default()))
            }
            Value::Number(n) => Expression::Literal(Literal::from(n.as_f64().unwrap_or_default())),
            Value::Bool(b) => Expression::Literal(Literal::from(*b)),
            _ => {
                return Err(bad(
                    path,
                    "a value is a string, number, boolean or {\"iri\": …} (or a list of them)",
                ));
            }
        })
    }

    /// One property condition on `current`: EXISTS { current field ?v FILTER(test) }.
    fn condition(
        &mut self,
        current: &Variable,
        condition: &Value,
        path: &str,
    ) -> Result<Expression, ApiError> {
        let object = condition
            .as_object()
            .ok_or_else(|| bad(path, "a condition is {\"field\", \"op\", \"value\"}"))?;
        let field = object
            .get("field")
            .and_then(Value::as_str)
            .ok_or_else(|| bad(&format!("{path}.field"), "give the field"))?;
        let predicate = self.predicate(field, &format!("{path}.field"))?;
        let op = object.get("op").and_then(Value::as_str).unwrap_or("==");
        let value = object
            .get("value")
            .ok_or_else(|| bad(&format!("{path}.value"), "give the value"))?;
        let var = self.fresh();
        let it = Box::new(Expression::Variable(var.clone()));
        let values = |values: &[Value]| -> Result<Vec<Expression>, ApiError> {
            let mut terms = Vec::new();
            for v in values {
                terms.extend(Self::terms(v, &format!("{path}.value"))?);
            }
            Ok(terms)
        };
        let one = std::slice::from_ref(value);
        // A date alone against moments is the whole day (`moments`); the field may also
        // hold it as text, which the comparison below still matches.
        let day = match (super::moments::Op::from_name(op), value) {
            (Some(op), Value::String(text)) => {
                super::moments::compare_with_day(&Expression::Variable(var.clone()), op, text)
            }
            _ => None,
        };
        let test = match (op, value) {
            ("==", Value::Array(list)) => Expression::In(it, values(list)?),
            ("!=", Value::Array(list)) => {
                Expression::Not(Box::new(Expression::In(it, values(list)?)))
            }
            ("==", _) => Expression::In(it, values(one)?),
            ("!=", _) => Expression::Not(Box::new(Expression::In(it, values(one)?))),
            (op @ ("<" | "<=" | ">" | ">="), value) => {
                let value = Box::new(Self::literal(value, &format!("{path}.value"))?);
                match op {
                    "<" => Expression::Less(it, value),
                    "<=" => Expression::LessOrEqual(it, value),
                    ">" => Expression::Greater(it, value),
                    _ => Expression::GreaterOrEqual(it, value),
                }
            }
            (other, _) => {
                return Err(bad(
                    &format!("{path}.op"),
                    format!("unknown operator {other:?}; use ==, !=, <, <=, >, >="),
                ));
            }
        };
        let test = match day {
            // `!=`: a value that is neither that text nor within that day.
            Some(day) if op == "!=" => Expression::And(
                Box::new(Expression::Coalesce(vec![
                    test,
                    Expression::Literal(Literal::from(true)),
                ])),
                Box::new(day),
            ),
            Some(day) => Expression::Or(
                Box::new(Expression::Coalesce(vec![
                    test,
                    Expression::Literal(Literal::from(false)),
                ])),
                Box::new(day),
            ),
            None => test,
        };
        let mut group = Group::default();
        group.triple(current.clone(), predicate, var);
        group.filters.push(test);
        Ok(Expression::Exists(Box::new(group.build())))
    }

    fn filter(
        &mut self,
        current: &Variable,
        filter: &Value,
        path: &str,
    ) -> Result<Expression, ApiError> {
        let object = filter
            .as_object()
            .ok_or_else(|| bad(path, "a filter is {\"properties\": [[…]], \"exists\": […]}"))?;
        let mut parts = Vec::new();
        if let Some(groups) = object.get("properties") {
            let groups = groups.as_array().ok_or_else(|| {
                bad(
                    &format!("{path}.properties"),
                    "a list of AND-groups (lists of conditions)",
                )
            })?;
            let mut alternatives = Vec::new();
            for (g, group) in groups.iter().enumerate() {
                let conditions = group.as_array().ok_or_else(|| {
                    bad(&format!("{path}.properties[{g}]"), "a list of conditions")
                })?;
                let each = conditions
                    .iter()
                    .enumerate()
                    .map(|(c, condition)| {
                        self.condition(current, condition, &format!("{path}.properties[{g}][{c}]"))
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                alternatives.push(all(each));
            }
            if !alternatives.is_empty() {
                parts.push(any(alternatives));
            }
        }
        if let Some(exists) = object.get("exists") {
            let exists = exists
                .as_array()
                .ok_or_else(|| bad(&format!("{path}.exists"), "a list of sub-traversals"))?;
            for (e, sub) in exists.iter().enumerate() {
                let sub_path = format!("{path}.exists[{e}]");
                let steps = sub
                    .get("steps")
                    .and_then(Value::as_array)
                    .ok_or_else(|| bad(&format!("{sub_path}.steps"), "give the steps"))?;
                let mut inner = Group::default();
                let end = self.steps(&mut inner, current, steps, &format!("{sub_path}.steps"))?;
                if let Some(filter) = sub.get("filter") {
                    let condition = self.filter(&end, filter, &format!("{sub_path}.filter"))?;
                    inner.filters.push(condition);
                }
                parts.push(Expression::Exists(Box::new(inner.build())));
            }
        }
        Ok(all(parts))
    }

    /// Adds link-following and filter steps from `start` to `group`; returns the variable
    /// of the current items.
    fn steps(
        &mut self,
        group: &mut Group,
        start: &Variable,
        steps: &[Value],
        path: &str,
    ) -> Result<Variable, ApiError> {
        let mut current = start.clone();
        for (idx, step) in steps.iter().enumerate() {
            let step_path = format!("{path}[{idx}]");
            let object = step.as_object().ok_or_else(|| {
                bad(
                    &step_path,
                    "a step is one object, e.g. {\"out\": \"REPORTED_AS\"}",
                )
            })?;
            if let Some(relation) = object.get("out").or_else(|| object.get("in")) {
                let outgoing = object.contains_key("out");
                let relation = relation
                    .as_str()
                    .ok_or_else(|| bad(&step_path, "name the relation"))?;
                let predicate = self.predicate(
                    relation,
                    &format!("{step_path}.{}", if outgoing { "out" } else { "in" }),
                )?;
                let next = self.fresh();
                let (link_subject, link_object) = if outgoing {
                    (current.clone(), next.clone())
                } else {
                    (next.clone(), current.clone())
                };
                let link = TriplePattern {
                    subject: link_subject.into(),
                    predicate: NamedNodePattern::NamedNode(predicate),
                    object: link_object.into(),
                };
                if let Some(moment) = self.valid_at {
                    self.n_vars += 1;
                    group.filters.push(super::structured::holds_at(
                        link.clone(),
                        moment,
                        self.n_vars,
                    ));
                }
                group.elements.push(Element::Triple(link));
                let type_key = if outgoing { "to_type" } else { "from_type" };
                if let Some(Value::String(type_name)) = object.get(type_key) {
                    let class = self.class(type_name, &format!("{step_path}.{type_key}"))?;
                    group.triple(next.clone(), NamedNode::new_unchecked(RDF_TYPE), class);
                }
                current = next;
            } else if let Some(filter) = object.get("filter") {
                let condition = self.filter(&current, filter, &format!("{step_path}.filter"))?;
                group.filters.push(condition);
            } else {
                return Err(bad(
                    &step_path,
                    "inside a sub-traversal, steps are out, in or filter",
                ));
            }
        }
        Ok(current)
    }
}

/// Compiles a traversal to a SPARQL query (algebra); returns it with what it returns.
pub fn compile(
    traversal: &Traversal,
    graph: &str,
    ontology: &Ontology,
    valid_at: Option<&Literal>,
) -> Result<(Query, Output), ApiError> {
    let root = "traverse.steps";
    let mut walk = Walk {
        valid_at,
        graph,
        ontology,
        n_vars: 0,
    };
    let Some(first) = traversal.steps.first() else {
        return Err(bad(
            root,
            "give at least one step, starting with from_type or from_records",
        ));
    };
    let mut current = walk.fresh();
    let mut group = Group::default();
    if let Some(Value::String(type_name)) = first.get("from_type") {
        let class = walk.class(type_name, &format!("{root}[0].from_type"))?;
        group.triple(current.clone(), NamedNode::new_unchecked(RDF_TYPE), class);
    } else if let Some(Value::Array(records)) = first.get("from_records") {
        let iris = RecordIris::for_graph(graph);
        let mut bindings = Vec::new();
        for (i, record) in records.iter().enumerate() {
            let path = format!("{root}[0].from_records[{i}]");
            let iri = match (record.get("iri"), record.get("type"), record.get("name")) {
                (Some(Value::String(iri)), _, _) => Walk::iri(iri, &path)?,
                (None, Some(Value::String(t)), Some(Value::String(n))) => iris.entity(t, n),
                _ => return Err(bad(&path, "a record is {\"iri\"} or {\"type\", \"name\"}")),
            };
            bindings.push(vec![Some(GroundTerm::NamedNode(iri))]);
        }
        group.elements.push(Element::Sub(GraphPattern::Values {
            variables: vec![current.clone()],
            bindings,
        }));
        // A record the graph does not hold (in any link, as subject or object) is no item.
        let (p1, o1, s2, p2) = (walk.fresh(), walk.fresh(), walk.fresh(), walk.fresh());
        let bgp = |subject: &Variable, predicate: &Variable, object: &Variable| GraphPattern::Bgp {
            patterns: vec![TriplePattern {
                subject: subject.clone().into(),
                predicate: predicate.clone().into(),
                object: object.clone().into(),
            }],
        };
        group
            .filters
            .push(Expression::Exists(Box::new(GraphPattern::Union {
                left: Box::new(bgp(&current, &p1, &o1)),
                right: Box::new(bgp(&s2, &p2, &current)),
            })));
    } else {
        return Err(bad(
            &format!("{root}[0]"),
            "start with {\"from_type\": T} or {\"from_records\": [...]}",
        ));
    }
    let mut order: Option<(Variable, bool)> = None;
    let mut output = Output::Items;
    let mut group_fields: Vec<String> = Vec::new();
    let order_by = |order: &Option<(Variable, bool)>, then: &Variable| -> Vec<OrderExpression> {
        let mut keys = Vec::new();
        if let Some((var, descending)) = order {
            let key = Expression::Variable(var.clone());
            keys.push(if *descending {
                OrderExpression::Desc(key)
            } else {
                OrderExpression::Asc(key)
            });
        }
        keys.push(OrderExpression::Asc(Expression::Variable(then.clone())));
        keys
    };
    for (idx, step) in traversal.steps.iter().enumerate().skip(1) {
        let path = format!("{root}[{idx}]");
        let object = step
            .as_object()
            .ok_or_else(|| bad(&path, "a step is one object"))?;
        if object.contains_key("out") || object.contains_key("in") || object.contains_key("filter")
        {
            current = walk
                .steps(&mut group, &current, std::slice::from_ref(step), root)
                .map_err(|mut e| {
                    e.param = e.param.map(|p| p.replacen(&format!("{root}[0]"), &path, 1));
                    e
                })?;
        } else if let Some(order_step) = object.get("order_by") {
            let field = order_step
                .get("field")
                .and_then(Value::as_str)
                .ok_or_else(|| bad(&format!("{path}.order_by.field"), "give the field"))?;
            let predicate = walk.predicate(field, &format!("{path}.order_by.field"))?;
            let descending = order_step.get("order").and_then(Value::as_str) == Some("desc");
            walk.n_vars += 1;
            let var = Variable::new_unchecked(format!("sort_key{}", walk.n_vars));
            // One key per item: its least value ascending, its greatest descending (an
            // item with three values would otherwise be three rows, and a limit would
            // count the rows, not the items).
            let value = walk.fresh();
            let mut values = Group::default();
            values.triple(current.clone(), predicate, value.clone());
            let key = GraphPattern::Group {
                inner: Box::new(values.build()),
                variables: vec![current.clone()],
                aggregates: vec![(
                    var.clone(),
                    AggregateExpression::FunctionCall {
                        name: if descending {
                            AggregateFunction::Max
                        } else {
                            AggregateFunction::Min
                        },
                        expr: Expression::Variable(value),
                        distinct: false,
                    },
                )],
            };
            group
                .elements
                .push(Element::Optional(GraphPattern::Project {
                    inner: Box::new(key),
                    variables: vec![current.clone(), var.clone()],
                }));
            order = Some((var, descending));
        } else if let Some(limit) = object.get("limit") {
            let limit = limit
                .as_u64()
                .filter(|n| *n > 0)
                .ok_or_else(|| bad(&format!("{path}.limit"), "a positive number"))?;
            // A sub-query keeps the first `limit` items; it keeps the order variable, so
            // the final answer keeps its order.
            let mut variables = vec![current.clone()];
            if let Some((var, _)) = &order {
                variables.push(var.clone());
            }
            let inner = std::mem::take(&mut group).build();
            let sub = GraphPattern::Slice {
                inner: Box::new(GraphPattern::Distinct {
                    inner: Box::new(GraphPattern::Project {
                        inner: Box::new(GraphPattern::OrderBy {
                            inner: Box::new(inner),
                            expression: order_by(&order, &current),
                        }),
                        variables: variables.clone(),
                    }),
                }),
                start: 0,
                length: usize::try_from(limit).ok(),
            };
            // Closed by a projection of its own: printed, a slice directly under the next
            // step's ORDER BY would merge into that step's sub-select (two limits in a
            // row lost the second), and the text printed is what runs.
            let sub = GraphPattern::Project {
                inner: Box::new(sub),
                variables,
            };
            group.elements.push(Element::Sub(sub));
        } else if object.get("count") == Some(&Value::Bool(true)) {
            output = Output::Count;
        } else if let Some(fields) = object
            .get("group_by")
            .or_else(|| object.get("aggregate_by"))
        {
            let fields = fields
                .as_array()
                .ok_or_else(|| bad(&format!("{path}.group_by"), "a list of fields"))?;
            group_fields = fields
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect();
            if group_fields.is_empty() {
                return Err(bad(&format!("{path}.group_by"), "a list of field names"));
            }
            output = Output::Groups;
        } else if object.contains_key("collect") {
            output = Output::Items;
        } else {
            return Err(bad(
                &path,
                "unknown step; use out, in, filter, order_by, limit, count, group_by, aggregate_by or collect",
            ));
        }
    }
    let count = Variable::new_unchecked("count");
    let count_distinct = || AggregateExpression::FunctionCall {
        name: AggregateFunction::Count,
        expr: Expression::Variable(current.clone()),
        distinct: true,
    };
    let pattern = match output {
        Output::Count => GraphPattern::Project {
            inner: Box::new(GraphPattern::Group {
                inner: Box::new(group.build()),
                variables: Vec::new(),
                aggregates: vec![(count.clone(), count_distinct())],
            }),
            variables: vec![count],
        },
        Output::Groups => {
            let mut vars = Vec::new();
            let mut taken = vec!["count".to_owned(), "items".to_owned()];
            for (i, field) in group_fields.iter().enumerate() {
                let predicate = walk.predicate(field, &format!("{root}.group_by[{i}]"))?;
                let var = Variable::new_unchecked(column(field, &mut taken));
                group.optional(&current, predicate, &var);
                vars.push(var);
            }
            let items = Variable::new_unchecked("items");
            let concat = AggregateExpression::FunctionCall {
                name: AggregateFunction::GroupConcat {
                    separator: Some(" ".into()),
                },
                // STR of a blank node is an error, which would unbind the whole list: a
                // blank node is listed as `_:blank` (SPARQL cannot name its label).
                expr: Expression::If(
                    Box::new(Expression::FunctionCall(
                        Function::IsBlank,
                        vec![Expression::Variable(current.clone())],
                    )),
                    Box::new(Expression::Literal(Literal::new_simple_literal("_:blank"))),
                    Box::new(Expression::FunctionCall(
                        Function::Str,
                        vec![Expression::Variable(current.clone())],
                    )),
                ),
                distinct: true,
            };
            let mut keys = vec![OrderExpression::Desc(Expression::Variable(count.clone()))];
            keys.extend(
                vars.iter()
                    .map(|v| OrderExpression::Asc(Expression::Variable(v.clone()))),
            );
            let mut projected = vars.clone();
            projected.extend([count.clone(), items.clone()]);
            GraphPattern::Project {
                inner: Box::new(GraphPattern::OrderBy {
                    inner: Box::new(GraphPattern::Group {
                        inner: Box::new(group.build()),
                        variables: vars,
                        aggregates: vec![(count, count_distinct()), (items, concat)],
                    }),
                    expression: keys,
                }),
                variables: projected,
            }
        }
        Output::Items => {
            let iri = Variable::new_unchecked("iri");
            group.elements.push(Element::Bind(
                iri.clone(),
                Expression::Variable(current.clone()),
            ));
            let mut vars = vec![
                iri.clone(),
                Variable::new_unchecked("type"),
                Variable::new_unchecked("label"),
            ];
            group.optional(&iri, NamedNode::new_unchecked(RDF_TYPE), &vars[1]);
            group.optional(&iri, NamedNode::new_unchecked(RDFS_LABEL), &vars[2]);
            let mut taken = vec!["iri".to_owned(), "type".to_owned(), "label".to_owned()];
            for (i, field) in traversal.fields.iter().enumerate() {
                let predicate = walk.predicate(field, &format!("traverse.fields[{i}]"))?;
                let var = Variable::new_unchecked(column(field, &mut taken));
                group.optional(&iri, predicate, &var);
                vars.push(var);
            }
            // The sort key orders the rows but is not a column: an item reached from
            // several sorted items (an `out` after `order_by`) is one row, not one per key.
            GraphPattern::Distinct {
                inner: Box::new(GraphPattern::Project {
                    inner: Box::new(GraphPattern::OrderBy {
                        inner: Box::new(group.build()),
                        expression: order_by(&order, &iri),
                    }),
                    variables: vars,
                }),
            }
        }
    };
    Ok((
        Query::Select {
            dataset: None,
            pattern,
            base_iri: None,
        },
        output,
    ))
}

/// The column of a field: its name (`sanitize`), with `_2`, `_3`… when another column
/// already has it (a field whose local name is `type` must not join the item's types).
fn column(field: &str, taken: &mut Vec<String>) -> String {
    let base = sanitize(field);
    let mut name = base.clone();
    let mut n = 1;
    while taken.contains(&name) {
        n += 1;
        name = format!("{base}_{n}");
    }
    taken.push(name.clone());
    name
}

/// A variable name for a field: its local name (after the last `/` or `#` of an IRI).
fn sanitize(name: &str) -> String {
    let local = name
        .trim_end_matches(['/', '#', '>'])
        .rsplit(['/', '#'])
        .next()
        .unwrap_or(name);
    let cleaned: String = local
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let cleaned = cleaned.trim_matches('_');
    if cleaned.is_empty() || cleaned.starts_with(|c: char| c.is_ascii_digit()) {
        format!("f_{cleaned}")
    } else {
        cleaned.to_owned()
    }
}
