//! The `traverse` query mode: a stateless pipeline of steps (start from a type or
//! records, follow links out or in, filter by properties or by the existence of
//! sub-traversals, order, limit, then collect, count or group), compiled to one SPARQL
//! query so the whole walk reads one commit and pages with the usual cursors.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use crate::error::ApiError;
use crate::model::{Literal, NamedNode};
use crate::ontology::{Ontology, RecordIris};

use crate::model::RDF_TYPE;
const RDFS_LABEL: &str = "http://www.w3.org/2000/01/rdf-schema#label";

/// A traversal.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Traversal {
    /// Left to right: from_type | from_records | out (to_type) | in (from_type) | filter
    /// (properties: OR of AND lists; exists: sub-traversals) | order_by {field, order} |
    /// limit | count | group_by | aggregate_by | collect. Items have iri, type, label,
    /// `fields`.
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
    /// Valid time: links not holding at this moment (a dateTime literal) are skipped.
    valid_at: Option<&'a str>,
}

fn bad(path: &str, message: impl Into<String>) -> ApiError {
    ApiError::invalid_argument(path, message)
}

impl Walk<'_> {
    fn fresh(&mut self) -> String {
        self.n_vars += 1;
        format!("?v{}", self.n_vars)
    }

    fn is_iri(text: &str) -> bool {
        text.contains("://") || text.starts_with("urn:")
    }

    fn iri(text: &str, path: &str) -> Result<String, ApiError> {
        NamedNode::new(text.trim_start_matches('<').trim_end_matches('>'))
            .map(|n| format!("<{}>", n.as_str()))
            .map_err(|e| bad(path, format!("not an IRI: {e}")))
    }

    fn class(&self, name: &str, path: &str) -> Result<String, ApiError> {
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
        Ok(format!("<{}>", iris.class(name).as_str()))
    }

    /// A relation or field name of the ontology, or an IRI.
    fn predicate(&self, name: &str, path: &str) -> Result<String, ApiError> {
        if Self::is_iri(name) {
            return Self::iri(name, path);
        }
        let iris = RecordIris::for_graph(self.graph);
        let relation = iris.relation(name);
        let field = iris.field(name);
        if self.ontology.relations.contains_key(
            relation
                .as_str()
                .trim_start_matches(&iris.relation_prefix()),
        ) {
            Ok(format!("<{}>", relation.as_str()))
        } else if self
            .ontology
            .fields
            .contains_key(field.as_str().trim_start_matches(&iris.field_prefix()))
        {
            Ok(format!("<{}>", field.as_str()))
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

    fn literal(value: &Value, path: &str) -> Result<String, ApiError> {
        Ok(match value {
            Value::String(s) if Self::is_iri(s) => Self::iri(s, path)?,
            Value::String(s) => Literal::new_simple_literal(s).to_string(),
            Value::Number(n) if n.is_i64() => {
                Literal::from(n.as_i64().unwrap_or_default()).to_string()
            }
            Value::Number(n) => Literal::from(n.as_f64().unwrap_or_default()).to_string(),
            Value::Bool(b) => Literal::from(*b).to_string(),
            _ => {
                return Err(bad(
                    path,
                    "a value is a string, number or boolean (or a list of them)",
                ));
            }
        })
    }

    /// One property condition as a FILTER expression on `current`.
    fn condition(
        &mut self,
        current: &str,
        condition: &Value,
        path: &str,
    ) -> Result<String, ApiError> {
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
        let test = match (op, value) {
            ("==", Value::Array(values)) => {
                let values = values
                    .iter()
                    .map(|v| Self::literal(v, &format!("{path}.value")))
                    .collect::<Result<Vec<_>, _>>()?;
                format!("{var} IN ({})", values.join(", "))
            }
            ("!=", Value::Array(values)) => {
                let values = values
                    .iter()
                    .map(|v| Self::literal(v, &format!("{path}.value")))
                    .collect::<Result<Vec<_>, _>>()?;
                format!("{var} NOT IN ({})", values.join(", "))
            }
            (op @ ("==" | "!=" | "<" | "<=" | ">" | ">="), value) => {
                let symbol = if op == "==" { "=" } else { op };
                format!(
                    "{var} {symbol} {}",
                    Self::literal(value, &format!("{path}.value"))?
                )
            }
            (other, _) => {
                return Err(bad(
                    &format!("{path}.op"),
                    format!("unknown operator {other:?}; use ==, !=, <, <=, >, >="),
                ));
            }
        };
        Ok(format!(
            "EXISTS {{ {current} {predicate} {var} . FILTER({test}) }}"
        ))
    }

    fn filter(&mut self, current: &str, filter: &Value, path: &str) -> Result<String, ApiError> {
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
            let mut any = Vec::new();
            for (g, group) in groups.iter().enumerate() {
                let conditions = group.as_array().ok_or_else(|| {
                    bad(&format!("{path}.properties[{g}]"), "a list of conditions")
                })?;
                let all = conditions
                    .iter()
                    .enumerate()
                    .map(|(c, condition)| {
                        self.condition(current, condition, &format!("{path}.properties[{g}][{c}]"))
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                any.push(format!(
                    "({})",
                    if all.is_empty() {
                        "true".to_owned()
                    } else {
                        all.join(" && ")
                    }
                ));
            }
            if !any.is_empty() {
                parts.push(format!("({})", any.join(" || ")));
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
                let (body, end) = self.steps(current, steps, &format!("{sub_path}.steps"))?;
                let mut inner = body;
                if let Some(filter) = sub.get("filter") {
                    let condition = self.filter(&end, filter, &format!("{sub_path}.filter"))?;
                    inner.push_str(&format!(" FILTER({condition})"));
                }
                parts.push(format!("EXISTS {{ {inner} }}"));
            }
        }
        Ok(if parts.is_empty() {
            "true".to_owned()
        } else {
            parts.join(" && ")
        })
    }

    /// Compiles link-following and filter steps from `start`; returns the body and the
    /// variable of the current items.
    fn steps(
        &mut self,
        start: &str,
        steps: &[Value],
        path: &str,
    ) -> Result<(String, String), ApiError> {
        let mut body = String::new();
        let mut current = start.to_owned();
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
                body.push_str(&format!("{link_subject} {predicate} {link_object} . "));
                if let Some(moment) = self.valid_at {
                    self.n_vars += 1;
                    body.push_str(&super::structured::valid_time_filter(
                        &link_subject,
                        &predicate,
                        &link_object,
                        moment,
                        self.n_vars,
                    ));
                    body.push(' ');
                }
                let type_key = if outgoing { "to_type" } else { "from_type" };
                if let Some(Value::String(type_name)) = object.get(type_key) {
                    let class = self.class(type_name, &format!("{step_path}.{type_key}"))?;
                    body.push_str(&format!("{next} <{RDF_TYPE}> {class} . "));
                }
                current = next;
            } else if let Some(filter) = object.get("filter") {
                let condition = self.filter(&current, filter, &format!("{step_path}.filter"))?;
                body.push_str(&format!("FILTER({condition}) "));
            } else {
                return Err(bad(
                    &step_path,
                    "inside a sub-traversal, steps are out, in or filter",
                ));
            }
        }
        Ok((body, current))
    }
}

/// Compiles a traversal to SPARQL; returns the query and what it returns.
pub fn compile(
    traversal: &Traversal,
    graph: &str,
    ontology: &Ontology,
    valid_at: Option<&str>,
) -> Result<(String, Output), ApiError> {
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
    let mut body = if let Some(Value::String(type_name)) = first.get("from_type") {
        format!(
            "{current} <{RDF_TYPE}> {} . ",
            walk.class(type_name, &format!("{root}[0].from_type"))?
        )
    } else if let Some(Value::Array(records)) = first.get("from_records") {
        let iris = RecordIris::for_graph(graph);
        let mut values = Vec::new();
        for (i, record) in records.iter().enumerate() {
            let path = format!("{root}[0].from_records[{i}]");
            let iri = match (record.get("iri"), record.get("type"), record.get("name")) {
                (Some(Value::String(iri)), _, _) => Walk::iri(iri, &path)?,
                (None, Some(Value::String(t)), Some(Value::String(n))) => {
                    format!("<{}>", iris.entity(t, n).as_str())
                }
                _ => return Err(bad(&path, "a record is {\"iri\"} or {\"type\", \"name\"}")),
            };
            values.push(iri);
        }
        format!("VALUES {current} {{ {} }} ", values.join(" "))
    } else {
        return Err(bad(
            &format!("{root}[0]"),
            "start with {\"from_type\": T} or {\"from_records\": [...]}",
        ));
    };
    let mut order: Option<(String, bool)> = None;
    let mut output = Output::Items;
    let mut group_fields: Vec<String> = Vec::new();
    for (idx, step) in traversal.steps.iter().enumerate().skip(1) {
        let path = format!("{root}[{idx}]");
        let object = step
            .as_object()
            .ok_or_else(|| bad(&path, "a step is one object"))?;
        if object.contains_key("out") || object.contains_key("in") || object.contains_key("filter")
        {
            let (more, next) = walk
                .steps(&current, std::slice::from_ref(step), root)
                .map_err(|mut e| {
                    e.param = e.param.map(|p| p.replacen(&format!("{root}[0]"), &path, 1));
                    e
                })?;
            body.push_str(&more);
            current = next;
        } else if let Some(order_by) = object.get("order_by") {
            let field = order_by
                .get("field")
                .and_then(Value::as_str)
                .ok_or_else(|| bad(&format!("{path}.order_by.field"), "give the field"))?;
            let predicate = walk.predicate(field, &format!("{path}.order_by.field"))?;
            let descending = order_by.get("order").and_then(Value::as_str) == Some("desc");
            walk.n_vars += 1;
            let var = format!("?sort_key{}", walk.n_vars);
            body.push_str(&format!("OPTIONAL {{ {current} {predicate} {var} }} "));
            order = Some((var, descending));
        } else if let Some(limit) = object.get("limit") {
            let limit = limit
                .as_u64()
                .filter(|n| *n > 0)
                .ok_or_else(|| bad(&format!("{path}.limit"), "a positive number"))?;
            // The subquery keeps the order variable, so the final answer keeps its order.
            let order_clause = order
                .clone()
                .map(|(v, d)| {
                    if d {
                        format!("ORDER BY DESC({v}) {current}")
                    } else {
                        format!("ORDER BY {v} {current}")
                    }
                })
                .unwrap_or_else(|| format!("ORDER BY {current}"));
            let order_var = order_clause.split_whitespace().nth(2).map(|t| {
                t.trim_start_matches("DESC(")
                    .trim_end_matches(')')
                    .to_owned()
            });
            let extra = order_var
                .filter(|v| v != &current)
                .map(|v| format!(" {v}"))
                .unwrap_or_default();
            body = format!(
                "{{ SELECT DISTINCT {current}{extra} WHERE {{ {body} }} {order_clause} LIMIT {limit} }} "
            );
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
    let query = match output {
        Output::Count => format!("SELECT (COUNT(DISTINCT {current}) AS ?count) WHERE {{ {body}}}"),
        Output::Groups => {
            let mut vars = Vec::new();
            let mut patterns = String::new();
            for (i, field) in group_fields.iter().enumerate() {
                let predicate = walk.predicate(field, &format!("{root}.group_by[{i}]"))?;
                let var = format!("?{}", sanitize(field));
                patterns.push_str(&format!("OPTIONAL {{ {current} {predicate} {var} }} "));
                vars.push(var);
            }
            format!(
                "SELECT {} (COUNT(DISTINCT {current}) AS ?count) (GROUP_CONCAT(DISTINCT STR({current}); SEPARATOR=\" \") AS ?items) WHERE {{ {body}{patterns}}} GROUP BY {} ORDER BY DESC(?count) {}",
                vars.join(" "),
                vars.join(" "),
                vars.join(" ")
            )
        }
        Output::Items => {
            let mut vars = vec!["?iri".to_owned(), "?type".to_owned(), "?label".to_owned()];
            let mut patterns = format!(
                "BIND({current} AS ?iri) OPTIONAL {{ ?iri <{RDF_TYPE}> ?type }} OPTIONAL {{ ?iri <{RDFS_LABEL}> ?label }} "
            );
            for (i, field) in traversal.fields.iter().enumerate() {
                let predicate = walk.predicate(field, &format!("traverse.fields[{i}]"))?;
                let var = format!("?{}", sanitize(field));
                patterns.push_str(&format!("OPTIONAL {{ ?iri {predicate} {var} }} "));
                vars.push(var);
            }
            let order_clause = match &order {
                Some((var, true)) => format!("ORDER BY DESC({var}) ?iri"),
                Some((var, false)) => format!("ORDER BY {var} ?iri"),
                None => "ORDER BY ?iri".to_owned(),
            };
            let order_var = order
                .as_ref()
                .map(|(v, _)| format!(" {v}"))
                .unwrap_or_default();
            format!(
                "SELECT DISTINCT {}{order_var} WHERE {{ {body}{patterns}}} {order_clause}",
                vars.join(" ")
            )
        }
    };
    Ok((query, output))
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
