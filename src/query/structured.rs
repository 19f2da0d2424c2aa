//! The `structured` query mode: a JSON body of patterns, filters, grouping, aggregates and
//! ordering, compiled to SPARQL and run like any SPARQL query (same pinning, same pages).
//! Names of types, relations and fields come from the graph's ontology; IRIs always work.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

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
    extra: Vec<String>,
    n_fields: usize,
}

fn bad(path: &str, message: impl Into<String>) -> ApiError {
    ApiError::invalid_argument(path, message)
}

fn variable(name: &str, path: &str) -> Result<String, ApiError> {
    let ok = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if ok {
        Ok(format!("?{name}"))
    } else {
        Err(bad(
            path,
            format!("{name:?} is not a variable name (letters, digits, _)"),
        ))
    }
}

fn iri(text: &str, path: &str) -> Result<String, ApiError> {
    NamedNode::new(text.trim_start_matches('<').trim_end_matches('>'))
        .map(|n| format!("<{}>", n.as_str()))
        .map_err(|e| bad(path, format!("not an IRI: {e}")))
}

impl Compiler<'_> {
    fn local_known(&self, prefix: &str, iri: &NamedNode) -> Option<String> {
        iri.as_str().strip_prefix(prefix).map(str::to_owned)
    }

    fn term(&self, value: &Value, path: &str) -> Result<String, ApiError> {
        let object = value.as_object().ok_or_else(|| {
            bad(
                path,
                "a term is {\"var\"}, {\"type\", \"name\"}, {\"iri\"} or {\"value\"}",
            )
        })?;
        if let Some(Value::String(name)) = object.get("var") {
            return variable(name, &format!("{path}.var"));
        }
        if let Some(Value::String(text)) = object.get("iri") {
            return iri(text, &format!("{path}.iri"));
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
            return Ok(format!("<{}>", self.iris.entity(type_name, name).as_str()));
        }
        if object.contains_key("value") {
            return self.value(object, path);
        }
        Err(bad(
            path,
            "a term is {\"var\"}, {\"type\", \"name\"}, {\"iri\"} or {\"value\"}",
        ))
    }

    fn value(
        &self,
        object: &serde_json::Map<String, Value>,
        path: &str,
    ) -> Result<String, ApiError> {
        let value = &object["value"];
        let datatype = object.get("datatype").and_then(Value::as_str);
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
        let typed = |xsd: &str| {
            Literal::new_typed_literal(
                text.clone(),
                NamedNode::new_unchecked(format!("{XSD}{xsd}")),
            )
            .to_string()
        };
        Ok(match (datatype, value) {
            (Some("iri"), _) => iri(&text, &format!("{path}.value"))?,
            (Some("i64"), _) => {
                text.parse::<i64>()
                    .map_err(|_| bad(&format!("{path}.value"), "not an i64"))?;
                typed("integer")
            }
            (Some("f64"), _) => {
                text.parse::<f64>()
                    .map_err(|_| bad(&format!("{path}.value"), "not an f64"))?;
                typed("double")
            }
            (Some("bool"), _) => typed("boolean"),
            (Some("date_time"), _) => {
                let literal = crate::ontology::convert_value(
                    &Value::String(text.clone()),
                    crate::ontology::ValueType::DateTime,
                )
                .map_err(|e| ApiError {
                    code: ErrorCode::ValueTypeMismatch,
                    message: e.to_string(),
                    param: Some(format!("{path}.value")),
                    validation: None,
                })?;
                literal.to_string()
            }
            (Some("str"), _) | (None, Value::String(_)) => {
                Literal::new_simple_literal(text).to_string()
            }
            (None, Value::Number(n)) if n.is_i64() => typed("integer"),
            (None, Value::Number(_)) => typed("double"),
            (None, Value::Bool(_)) => typed("boolean"),
            (Some(other), _) => {
                return Err(bad(
                    &format!("{path}.datatype"),
                    format!(
                        "unknown datatype {other:?}; use i64, f64, bool, date_time, str or iri"
                    ),
                ));
            }
            _ => return Err(bad(path, "unsupported value")),
        })
    }

    fn predicate(&self, value: &Value, path: &str) -> Result<String, ApiError> {
        match value {
            Value::String(name) if name == "type" || name == "a" => Ok(format!("<{RDF_TYPE}>")),
            // Names may always be given as IRIs, so imported RDF can be queried too.
            Value::String(name) if name.contains("://") || name.starts_with("urn:") => {
                iri(name, path)
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
                    Ok(format!("<{}>", relation.as_str()))
                } else if self.ontology.fields.contains_key(&field_local) {
                    Ok(format!("<{}>", field.as_str()))
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
                    iri(text, &format!("{path}.iri"))
                } else if let Some(Value::String(name)) = object.get("var") {
                    variable(name, &format!("{path}.var"))
                } else {
                    Err(bad(
                        path,
                        "a predicate is a relation or field name, \"type\", {\"iri\"} or {\"var\"}",
                    ))
                }
            }
            _ => Err(bad(
                path,
                "a predicate is a relation or field name, \"type\", {\"iri\"} or {\"var\"}",
            )),
        }
    }

    fn operand(&mut self, value: &Value, path: &str) -> Result<String, ApiError> {
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
            let holder = variable(&field.var, &format!("{path}.field.var"))?;
            let value_var = format!("?_f{}", self.n_fields);
            self.n_fields += 1;
            self.extra
                .push(format!("{holder} {predicate} {value_var} ."));
            return Ok(value_var);
        }
        self.term(value, path)
    }

    fn filter(&mut self, filter: &Filter, path: &str) -> Result<String, ApiError> {
        Ok(match filter {
            Filter::Compare { op, left, right } => {
                let symbol = match op.as_str() {
                    "eq" | "==" => "=",
                    "ne" | "!=" => "!=",
                    "lt" | "<" => "<",
                    "le" | "<=" => "<=",
                    "gt" | ">" => ">",
                    "ge" | ">=" => ">=",
                    other => {
                        return Err(bad(
                            &format!("{path}.op"),
                            format!("unknown operator {other:?}; use eq, ne, lt, le, gt or ge"),
                        ));
                    }
                };
                format!(
                    "({} {symbol} {})",
                    self.operand(left, &format!("{path}.left"))?,
                    self.operand(right, &format!("{path}.right"))?
                )
            }
            Filter::And { and } => join(
                and.iter()
                    .enumerate()
                    .map(|(i, f)| self.filter(f, &format!("{path}.and[{i}]")))
                    .collect::<Result<Vec<_>, _>>()?,
                " && ",
                "true",
            ),
            Filter::Or { or } => join(
                or.iter()
                    .enumerate()
                    .map(|(i, f)| self.filter(f, &format!("{path}.or[{i}]")))
                    .collect::<Result<Vec<_>, _>>()?,
                " || ",
                "false",
            ),
            Filter::Not { not } => format!("(!{})", self.filter(not, &format!("{path}.not"))?),
        })
    }
}

fn join(parts: Vec<String>, separator: &str, empty: &str) -> String {
    if parts.is_empty() {
        empty.to_owned()
    } else {
        format!("({})", parts.join(separator))
    }
}

/// Compiles a structured query to SPARQL text.
/// A FILTER that keeps a link unless one of its reifiers says it did not hold at
/// `moment` (a SPARQL dateTime literal): valid time, as opposed to commit time. Links
/// without valid-time annotations always pass. `n` makes the helper variables unique.
pub(super) fn valid_time_filter(
    subject: &str,
    predicate: &str,
    object: &str,
    moment: &str,
    n: usize,
) -> String {
    format!(
        "FILTER NOT EXISTS {{ ?_vr{n} <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> <<( {subject} {predicate} {object} )>> . \
         {{ ?_vr{n} <https://strata.dev/ns#validFrom> ?_vf{n} . FILTER(?_vf{n} > {moment}) }} UNION \
         {{ ?_vr{n} <https://strata.dev/ns#validUntil> ?_vu{n} . FILTER(?_vu{n} < {moment}) }} }}"
    )
}

/// Turns a date (its end, UTC) or moment into a SPARQL dateTime literal.
pub(super) fn moment_literal(text: &str, param: &str) -> Result<String, ApiError> {
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
    )
    .to_string())
}

pub fn compile(
    body: &Structured,
    iris: &RecordIris,
    ontology: &Ontology,
    valid_at: Option<&str>,
) -> Result<String, ApiError> {
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
    };
    let mut lines = Vec::new();
    let mut pattern_vars = Vec::new();
    for (idx, pattern) in body.patterns.iter().enumerate() {
        let path = format!("{root}.patterns[{idx}]");
        let subject = compiler.term(&pattern.subject, &format!("{path}.subject"))?;
        let predicate = compiler.predicate(&pattern.predicate, &format!("{path}.predicate"))?;
        let object = compiler.term(&pattern.object, &format!("{path}.object"))?;
        for term in [&subject, &predicate, &object] {
            if term.starts_with('?') && !pattern_vars.contains(term) {
                pattern_vars.push(term.clone());
            }
        }
        lines.push(format!("{subject} {predicate} {object} ."));
        if let Some(moment) = valid_at
            && predicate != format!("<{RDF_TYPE}>")
            && !predicate.starts_with('?')
        {
            lines.push(valid_time_filter(
                &subject, &predicate, &object, moment, idx,
            ));
        }
    }
    let mut filters = Vec::new();
    for (idx, filter) in body.filters.iter().enumerate() {
        filters.push(compiler.filter(filter, &format!("{root}.filters[{idx}]"))?);
    }
    let mut group_exprs = Vec::new();
    for (idx, key) in body.group_keys.iter().enumerate() {
        let path = format!("{root}.group_keys[{idx}]");
        let value = compiler.operand(
            &serde_json::json!({ "field": { "var": key.field.var, "name": key.field.name } }),
            &path,
        )?;
        let alias = variable(&key.alias, &format!("{path}.as"))?;
        let expression = match key.bucket.as_deref() {
            None => value,
            Some("year") => format!("SUBSTR(STR({value}), 1, 4)"),
            Some("month") => format!("SUBSTR(STR({value}), 1, 7)"),
            Some("day") => format!("SUBSTR(STR({value}), 1, 10)"),
            Some("hour") => format!("SUBSTR(STR({value}), 1, 13)"),
            Some("week") => format!("<{}>({value})", crate::sparql::ISO_WEEK),
            Some(other) => {
                return Err(bad(
                    &format!("{path}.bucket"),
                    format!("unknown bucket {other:?}; use year, month, week, day or hour"),
                ));
            }
        };
        group_exprs.push(format!("({expression} AS {alias})"));
    }
    let mut group_vars = Vec::new();
    for (idx, name) in body.group_by.iter().enumerate() {
        group_vars.push(variable(name, &format!("{root}.group_by[{idx}]"))?);
    }
    let mut aggregates = Vec::new();
    for (idx, aggregate) in body.aggregates.iter().enumerate() {
        let path = format!("{root}.aggregates[{idx}]");
        let func = match aggregate.func.as_str() {
            "count" => "COUNT",
            "sum" => "SUM",
            "avg" => "AVG",
            "min" => "MIN",
            "max" => "MAX",
            other => {
                return Err(bad(
                    &format!("{path}.func"),
                    format!("unknown aggregate {other:?}; use count, sum, avg, min or max"),
                ));
            }
        };
        let operand = match &aggregate.operand {
            None if func == "COUNT" => "*".to_owned(),
            None => {
                return Err(bad(
                    &format!("{path}.operand"),
                    format!("{} needs an operand", aggregate.func),
                ));
            }
            Some(operand) => compiler.operand(operand, &format!("{path}.operand"))?,
        };
        let distinct = if aggregate.distinct { "DISTINCT " } else { "" };
        aggregates.push(format!(
            "({func}({distinct}{operand}) AS {})",
            variable(&aggregate.alias, &format!("{path}.as"))?
        ));
    }
    let grouped = !group_vars.is_empty() || !group_exprs.is_empty() || !aggregates.is_empty();
    let mut having = Vec::new();
    for (idx, filter) in body.having.iter().enumerate() {
        having.push(compiler.filter(filter, &format!("{root}.having[{idx}]"))?);
    }
    let projection = if !body.select.is_empty() {
        body.select
            .iter()
            .enumerate()
            .map(|(i, v)| variable(v, &format!("{root}.select[{i}]")))
            .collect::<Result<Vec<_>, _>>()?
            .join(" ")
    } else if grouped {
        group_vars
            .iter()
            .cloned()
            .chain(group_exprs.iter().cloned())
            .chain(aggregates.iter().cloned())
            .collect::<Vec<_>>()
            .join(" ")
    } else {
        pattern_vars.join(" ")
    };
    let projection = if !body.select.is_empty() && grouped {
        // Selected aggregate aliases must be defined in the projection itself.
        let mut items = Vec::new();
        for name in &body.select {
            let var = format!("?{name}");
            if let Some(expr) = group_exprs
                .iter()
                .chain(&aggregates)
                .find(|e| e.ends_with(&format!("AS {var})")))
            {
                items.push(expr.clone());
            } else {
                items.push(var);
            }
        }
        items.join(" ")
    } else {
        projection
    };
    if projection.is_empty() {
        return Err(bad(
            &format!("{root}.select"),
            "the query selects nothing: use variables in patterns or `select`",
        ));
    }
    let mut sparql = format!(
        "SELECT {}{projection} WHERE {{\n",
        if body.distinct { "DISTINCT " } else { "" }
    );
    for line in lines.iter().chain(&compiler.extra) {
        sparql.push_str("  ");
        sparql.push_str(line);
        sparql.push('\n');
    }
    for filter in &filters {
        sparql.push_str(&format!("  FILTER {filter}\n"));
    }
    sparql.push('}');
    if grouped {
        let mut keys = group_vars.clone();
        keys.extend(group_exprs.iter().cloned());
        if !keys.is_empty() {
            sparql.push_str(&format!("\nGROUP BY {}", keys.join(" ")));
        }
        if !having.is_empty() {
            sparql.push_str(&format!("\nHAVING {}", join(having, " && ", "true")));
        }
    }
    if !body.order_by.is_empty() {
        let keys: Vec<String> = body
            .order_by
            .iter()
            .enumerate()
            .map(|(i, o)| {
                variable(&o.var, &format!("{root}.order_by[{i}].var")).map(|v| {
                    if o.descending {
                        format!("DESC({v})")
                    } else {
                        format!("ASC({v})")
                    }
                })
            })
            .collect::<Result<_, _>>()?;
        sparql.push_str(&format!("\nORDER BY {}", keys.join(" ")));
    }
    Ok(sparql)
}
