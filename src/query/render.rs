//! How RDF terms appear in tool answers: compact values a model reads easily, or typed
//! SPARQL JSON objects at higher detail. Long strings are cut to the budget.

use serde_json::{Value, json};

use crate::model::Term;
use crate::query::envelope::cut;

/// Renders a term. `typed`: SPARQL 1.1 JSON result objects; otherwise compact: IRIs in
/// angle brackets, plain strings as strings, numbers and booleans as JSON values, other
/// literals as `"value"^^<datatype>` or `"text"@lang`. Returns whether a string was cut.
pub fn term(term: &Term, typed: bool, max_chars: usize) -> (Value, bool) {
    let mut was_cut = false;
    let mut text = |value: &str| {
        let (value, c) = cut(value, max_chars);
        was_cut |= c;
        value
    };
    let value = match term {
        Term::NamedNode(node) => {
            if typed {
                json!({"type": "uri", "value": node.as_str()})
            } else {
                Value::String(format!("<{}>", node.as_str()))
            }
        }
        Term::BlankNode(node) => {
            if typed {
                json!({"type": "bnode", "value": node.as_str()})
            } else {
                Value::String(format!("_:{}", node.as_str()))
            }
        }
        Term::Literal(literal) => {
            let datatype = literal.datatype().as_str();
            if typed {
                let mut object = json!({"type": "literal", "value": text(literal.value())});
                if let Some(language) = literal.language() {
                    object["xml:lang"] = language.into();
                } else if datatype != XSD_STRING {
                    object["datatype"] = datatype.into();
                }
                object
            } else if let Some(language) = literal.language() {
                Value::String(format!("{}@{language}", text(literal.value())))
            } else {
                match datatype {
                    XSD_STRING => Value::String(text(literal.value())),
                    XSD_INTEGER => literal
                        .value()
                        .parse::<i64>()
                        .map(Value::from)
                        .unwrap_or_else(|_| Value::String(literal.value().to_owned())),
                    XSD_DECIMAL | XSD_DOUBLE => literal
                        .value()
                        .parse::<f64>()
                        .ok()
                        .filter(|f| f.is_finite())
                        .map(Value::from)
                        .unwrap_or_else(|| Value::String(literal.value().to_owned())),
                    XSD_BOOLEAN => match literal.value() {
                        "true" | "1" => Value::Bool(true),
                        "false" | "0" => Value::Bool(false),
                        other => Value::String(other.to_owned()),
                    },
                    _ => Value::String(format!("\"{}\"^^<{datatype}>", text(literal.value()))),
                }
            }
        }
        Term::Triple(triple) => Value::String(format!("<<( {triple} )>>")),
    };
    (value, was_cut)
}

const XSD_STRING: &str = "http://www.w3.org/2001/XMLSchema#string";
const XSD_INTEGER: &str = "http://www.w3.org/2001/XMLSchema#integer";
const XSD_DECIMAL: &str = "http://www.w3.org/2001/XMLSchema#decimal";
const XSD_DOUBLE: &str = "http://www.w3.org/2001/XMLSchema#double";
const XSD_BOOLEAN: &str = "http://www.w3.org/2001/XMLSchema#boolean";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Literal, NamedNode};

    #[test]
    fn compact_and_typed_forms() {
        let iri = Term::from(NamedNode::new_unchecked("http://e/a"));
        assert_eq!(term(&iri, false, 10).0, json!("<http://e/a>"));
        assert_eq!(
            term(&iri, true, 10).0,
            json!({"type": "uri", "value": "http://e/a"})
        );
        let number = Term::from(Literal::from(42));
        assert_eq!(term(&number, false, 10).0, json!(42));
        let long = Term::from(Literal::new_simple_literal("abcdefghij"));
        assert_eq!(term(&long, false, 4), (json!("abcd…"), true));
        let tagged = Term::from(Literal::new_language_tagged_literal_unchecked("hi", "en"));
        assert_eq!(term(&tagged, false, 10).0, json!("hi@en"));
    }
}
