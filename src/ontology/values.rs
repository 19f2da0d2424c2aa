//! Field value types and the conversion of JSON values to typed literals.

use serde_json::Value;

use crate::model::Literal;

/// The value type of a field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueType {
    Bool,
    I64,
    F64,
    DateTime,
    Keyword,
    Text,
}

impl ValueType {
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "bool" => Self::Bool,
            "i64" => Self::I64,
            "f64" => Self::F64,
            "date_time" => Self::DateTime,
            "keyword" => Self::Keyword,
            "text" => Self::Text,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Bool => "bool",
            Self::I64 => "i64",
            Self::F64 => "f64",
            Self::DateTime => "date_time",
            Self::Keyword => "keyword",
            Self::Text => "text",
        }
    }

    /// The XSD datatype of the field's literals.
    pub fn datatype(self) -> &'static str {
        match self {
            Self::Bool => "http://www.w3.org/2001/XMLSchema#boolean",
            Self::I64 => "http://www.w3.org/2001/XMLSchema#integer",
            Self::F64 => "http://www.w3.org/2001/XMLSchema#double",
            Self::DateTime => "http://www.w3.org/2001/XMLSchema#dateTime",
            Self::Keyword | Self::Text => "http://www.w3.org/2001/XMLSchema#string",
        }
    }
}

/// A value that does not fit its field.
#[derive(Debug, thiserror::Error)]
#[error("{value} is not a valid {expected}")]
pub struct FieldValueError {
    pub value: String,
    pub expected: &'static str,
}

/// Converts a JSON value to the field's literal: `"52"` or `52` for `i64`, `"2026-06-26"`
/// (midnight UTC) or an RFC 3339 moment for `date_time`, `"true"`/`true` for `bool`.
pub fn convert_value(value: &Value, value_type: ValueType) -> Result<Literal, FieldValueError> {
    let text = match value {
        Value::String(s) => s.trim().to_owned(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        other => other.to_string(),
    };
    let error = || FieldValueError {
        value: value.to_string(),
        expected: value_type.name(),
    };
    Ok(match value_type {
        ValueType::Bool => match text.as_str() {
            "true" | "1" => Literal::from(true),
            "false" | "0" => Literal::from(false),
            _ => return Err(error()),
        },
        ValueType::I64 => Literal::from(text.parse::<i64>().map_err(|_| error())?),
        ValueType::F64 => {
            let number = text.parse::<f64>().map_err(|_| error())?;
            if !number.is_finite() {
                return Err(error());
            }
            Literal::from(number)
        }
        ValueType::DateTime => {
            let moment = crate::model::parse_date_or_moment(&text, crate::model::DayEdge::Start)
                .ok_or_else(error)?;
            Literal::new_typed_literal(
                crate::log::format_time(moment),
                crate::model::NamedNode::new_unchecked(ValueType::DateTime.datatype()),
            )
        }
        ValueType::Keyword | ValueType::Text => {
            if !matches!(value, Value::String(_) | Value::Number(_) | Value::Bool(_)) {
                return Err(error());
            }
            Literal::new_simple_literal(text)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_convert_to_their_field_types() {
        assert_eq!(
            convert_value(&json!("52"), ValueType::I64).unwrap(),
            Literal::from(52)
        );
        assert_eq!(
            convert_value(&json!(52), ValueType::I64).unwrap(),
            Literal::from(52)
        );
        assert!(convert_value(&json!("fifty"), ValueType::I64).is_err());
        assert_eq!(
            convert_value(&json!("2026-06-26"), ValueType::DateTime)
                .unwrap()
                .value(),
            "2026-06-26T00:00:00Z"
        );
        assert!(convert_value(&json!("yesterday"), ValueType::DateTime).is_err());
        assert_eq!(
            convert_value(&json!("true"), ValueType::Bool).unwrap(),
            Literal::from(true)
        );
        assert!(convert_value(&json!({"a": 1}), ValueType::Text).is_err());
    }
}
