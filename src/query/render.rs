//! How RDF terms appear in answers, in every mode and at every detail level (one form,
//! documented in README "Terms in answers"):
//!
//! - an IRI is `{"iri": "http://…"}`, a blank node `{"bnode": "b0"}`;
//! - a plain string is a JSON string; an `xsd:integer`, `xsd:decimal`, `xsd:double` or
//!   `xsd:boolean` is a JSON number or boolean when JSON holds it exactly;
//! - any other literal is `{"value": "…", "datatype": "http://…"}` or
//!   `{"value": "…", "lang": "en"}`; a triple term is `{"triple": {"subject", "predicate",
//!   "object"}}`.
//!
//! A field whose name already says it holds an IRI (`iri`, `class`, `property`, `type`,
//! `source`, …) holds the bare IRI string. Long strings are cut to the budget.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::model::Term;
use crate::query::envelope::cut;

/// One solution of a SELECT: variable name → term.
pub type Row = BTreeMap<String, Term>;

/// Renders a term in the one form above. Returns whether a string was cut.
pub fn term(term: &Term, max_chars: usize) -> (Value, bool) {
    let mut was_cut = false;
    let value = render(term, max_chars, &mut was_cut);
    (value, was_cut)
}

fn render(term: &Term, max_chars: usize, was_cut: &mut bool) -> Value {
    let mut text = |value: &str| {
        let (value, c) = cut(value, max_chars);
        *was_cut |= c;
        value
    };
    match term {
        Term::NamedNode(node) => json!({ "iri": node.as_str() }),
        Term::BlankNode(node) => json!({ "bnode": node.as_str() }),
        Term::Literal(literal) => {
            if let Some(language) = literal.language() {
                // RDF 1.2 base direction, written as in N-Triples: `en--rtl`.
                let lang = match literal.direction() {
                    Some(oxrdf::BaseDirection::Ltr) => format!("{language}--ltr"),
                    Some(oxrdf::BaseDirection::Rtl) => format!("{language}--rtl"),
                    None => language.to_owned(),
                };
                return json!({ "value": text(literal.value()), "lang": lang });
            }
            let datatype = literal.datatype().as_str();
            if datatype == XSD_STRING {
                return Value::String(text(literal.value()));
            }
            native(datatype, literal.value())
                .unwrap_or_else(|| json!({ "value": text(literal.value()), "datatype": datatype }))
        }
        Term::Triple(triple) => json!({ "triple": {
            "subject": render(&triple.subject.clone().into(), max_chars, was_cut),
            "predicate": { "iri": triple.predicate.as_str() },
            "object": render(&triple.object, max_chars, was_cut),
        }}),
    }
}

/// The JSON number or boolean a literal is, when JSON holds it without loss.
fn native(datatype: &str, value: &str) -> Option<Value> {
    match datatype {
        XSD_INTEGER => value.trim().parse::<i64>().ok().map(Value::from),
        XSD_DOUBLE => value
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|f| f.is_finite())
            .map(Value::from),
        XSD_DECIMAL => {
            let number = value.trim().parse::<f64>().ok().filter(|f| f.is_finite())?;
            // Only when the number prints back as the same decimal: no digits lost.
            (number.to_string() == canonical_decimal(value)).then(|| Value::from(number))
        }
        XSD_BOOLEAN => match value.trim() {
            "true" | "1" => Some(Value::Bool(true)),
            "false" | "0" => Some(Value::Bool(false)),
            _ => None,
        },
        _ => None,
    }
}

/// `+007.50` → `7.5`, `-0.0` → `-0`, `3.` → `3`: the shortest spelling of a decimal.
fn canonical_decimal(value: &str) -> String {
    let value = value.trim();
    let (sign, digits) = match value.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", value.strip_prefix('+').unwrap_or(value)),
    };
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    let whole = whole.trim_start_matches('0');
    let fraction = fraction.trim_end_matches('0');
    let whole = if whole.is_empty() { "0" } else { whole };
    if fraction.is_empty() {
        format!("{sign}{whole}")
    } else {
        format!("{sign}{whole}.{fraction}")
    }
}

/// Renders a row: the `iri_fields` hold bare IRI strings (their name says what they
/// hold), every other variable a term in the one form. Returns whether a string was cut.
pub fn row(row: &Row, iri_fields: &[&str], max_chars: usize) -> (Value, bool) {
    let mut was_cut = false;
    let mut object = serde_json::Map::new();
    for (variable, value) in row {
        let value = match value {
            Term::NamedNode(node) if iri_fields.contains(&variable.as_str()) => {
                Value::String(node.as_str().to_owned())
            }
            _ => render(value, max_chars, &mut was_cut),
        };
        object.insert(variable.clone(), value);
    }
    (Value::Object(object), was_cut)
}

/// Rows rendered by [`row`], cut strings ignored (the caller's budget already bounds them).
pub fn rows(rows: &[Row], iri_fields: &[&str], max_chars: usize) -> Vec<Value> {
    rows.iter()
        .map(|r| row(r, iri_fields, max_chars).0)
        .collect()
}

/// The IRI a row holds under `key`, if it holds one.
pub fn iri<'a>(row: &'a Row, key: &str) -> Option<&'a str> {
    match row.get(key) {
        Some(Term::NamedNode(node)) => Some(node.as_str()),
        _ => None,
    }
}

/// The count a row holds under `key` (a COUNT aggregate); 0 when absent.
pub fn count(row: &Row, key: &str) -> u64 {
    match row.get(key) {
        Some(Term::Literal(literal)) => literal.value().parse().unwrap_or(0),
        _ => 0,
    }
}

const XSD_STRING: &str = "http://www.w3.org/2001/XMLSchema#string";
const XSD_INTEGER: &str = "http://www.w3.org/2001/XMLSchema#integer";
const XSD_DECIMAL: &str = "http://www.w3.org/2001/XMLSchema#decimal";
const XSD_DOUBLE: &str = "http://www.w3.org/2001/XMLSchema#double";
const XSD_BOOLEAN: &str = "http://www.w3.org/2001/XMLSchema#boolean";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{BlankNode, Literal, NamedNode, Triple};

    fn typed(value: &str, datatype: &str) -> Term {
        Literal::new_typed_literal(value, NamedNode::new_unchecked(datatype)).into()
    }

    #[test]
    fn one_form_for_every_kind_of_term() {
        let iri = Term::from(NamedNode::new_unchecked("http://e/a"));
        assert_eq!(term(&iri, 10).0, json!({"iri": "http://e/a"}));
        let blank = Term::from(BlankNode::new_unchecked("b0"));
        assert_eq!(term(&blank, 10).0, json!({"bnode": "b0"}));
        assert_eq!(term(&Literal::from(42).into(), 10).0, json!(42));
        assert_eq!(term(&typed("true", XSD_BOOLEAN), 10).0, json!(true));
        assert_eq!(term(&typed("1.5E3", XSD_DOUBLE), 10).0, json!(1500.0));
        assert_eq!(term(&typed("7683.530", XSD_DECIMAL), 10).0, json!(7683.53));
        let money = "http://e/USD";
        assert_eq!(
            term(&typed("7683.53", money), 10).0,
            json!({"value": "7683.53", "datatype": money})
        );
        let tagged = Term::from(Literal::new_language_tagged_literal_unchecked("hi", "en"));
        assert_eq!(term(&tagged, 10).0, json!({"value": "hi", "lang": "en"}));
        let directed = Term::from(
            Literal::new_directional_language_tagged_literal("hi", "ar", oxrdf::BaseDirection::Rtl)
                .unwrap(),
        );
        assert_eq!(
            term(&directed, 10).0,
            json!({"value": "hi", "lang": "ar--rtl"})
        );
        let long = Term::from(Literal::new_simple_literal("abcdefghij"));
        assert_eq!(term(&long, 4), (json!("abcd…"), true));
        let quoted = Term::from(Triple::new(
            NamedNode::new_unchecked("http://e/a"),
            NamedNode::new_unchecked("http://e/p"),
            Literal::from(1),
        ));
        assert_eq!(
            term(&quoted, 10).0,
            json!({"triple": {"subject": {"iri": "http://e/a"}, "predicate": {"iri": "http://e/p"}, "object": 1}})
        );
    }

    #[test]
    fn values_json_cannot_hold_exactly_keep_their_datatype() {
        let big = "123456789012345678901234.5";
        assert_eq!(
            term(&typed(big, XSD_DECIMAL), 40).0,
            json!({"value": big, "datatype": XSD_DECIMAL})
        );
        let huge = "99999999999999999999999";
        assert_eq!(
            term(&typed(huge, XSD_INTEGER), 40).0,
            json!({"value": huge, "datatype": XSD_INTEGER})
        );
        assert_eq!(
            term(&typed("INF", XSD_DOUBLE), 40).0,
            json!({"value": "INF", "datatype": XSD_DOUBLE})
        );
        assert_eq!(canonical_decimal("+007.50"), "7.5");
        assert_eq!(canonical_decimal("3."), "3");
    }

    #[test]
    fn iri_fields_hold_bare_iris_and_the_rest_are_terms() {
        let mut r = Row::new();
        r.insert("type".into(), NamedNode::new_unchecked("http://e/T").into());
        r.insert(
            "example".into(),
            NamedNode::new_unchecked("http://e/x").into(),
        );
        r.insert("n".into(), Literal::from(3).into());
        assert_eq!(
            row(&r, &["type"], 10).0,
            json!({"type": "http://e/T", "example": {"iri": "http://e/x"}, "n": 3})
        );
        assert_eq!(iri(&r, "type"), Some("http://e/T"));
        assert_eq!(count(&r, "n"), 3);
    }
}
