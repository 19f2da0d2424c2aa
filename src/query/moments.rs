//! Comparisons with a day. A date alone (`2021-01-01`) compared with moments means that
//! whole day: `>= D` from its first instant, `<= D` to its last, `< D` before it, `> D`
//! after it, `= D` within it (UTC, as dates are read everywhere else). A value stored as
//! an `xsd:date` is compared with the date itself. Comparing with one instant of the day
//! instead (its start or its end) made `<= D` or `>= D` miss most of that day.

use spargebra::algebra::Expression;

use crate::model::{DayEdge, Literal, NamedNode, parse_date_or_moment};

const XSD: &str = "http://www.w3.org/2001/XMLSchema#";

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Op {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Op {
    /// The operator named `eq`/`==`, `ne`/`!=`, `lt`/`<`, `le`/`<=`, `gt`/`>`, `ge`/`>=`.
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "eq" | "==" => Self::Eq,
            "ne" | "!=" => Self::Ne,
            "lt" | "<" => Self::Lt,
            "le" | "<=" => Self::Le,
            "gt" | ">" => Self::Gt,
            "ge" | ">=" => Self::Ge,
            _ => return None,
        })
    }

    /// `left op right`, as SPARQL compares.
    pub fn apply(self, left: Expression, right: Expression) -> Expression {
        let (l, r) = (Box::new(left), Box::new(right));
        match self {
            Self::Eq => Expression::Equal(l, r),
            Self::Ne => Expression::Not(Box::new(Expression::Equal(l, r))),
            Self::Lt => Expression::Less(l, r),
            Self::Le => Expression::LessOrEqual(l, r),
            Self::Gt => Expression::Greater(l, r),
            Self::Ge => Expression::GreaterOrEqual(l, r),
        }
    }
}

/// Whether `text` is a date alone (no time of day).
pub fn is_day(text: &str) -> bool {
    let text = text.trim();
    text.len() == 10
        && parse_date_or_moment(text, DayEdge::Start).is_some()
        && parse_date_or_moment(text, DayEdge::Start) != parse_date_or_moment(text, DayEdge::End)
}

/// `value op day` when `text` is a date alone (see the module), never an error: a value
/// that is not a moment or a date is false for every operator but `Ne`. `None` when
/// `text` is not a date alone.
pub fn compare_with_day(value: &Expression, op: Op, text: &str) -> Option<Expression> {
    let text = text.trim();
    if !is_day(text) {
        return None;
    }
    let instant = |edge| {
        let moment = parse_date_or_moment(text, edge)?;
        Some(Expression::Literal(Literal::new_typed_literal(
            crate::log::format_time(moment),
            NamedNode::new_unchecked(format!("{XSD}dateTime")),
        )))
    };
    let (start, end) = (instant(DayEdge::Start)?, instant(DayEdge::End)?);
    let date = Expression::Literal(Literal::new_typed_literal(
        text,
        NamedNode::new_unchecked(format!("{XSD}date")),
    ));
    let or_false =
        |e: Expression| Expression::Coalesce(vec![e, Expression::Literal(Literal::from(false))]);
    let test = |op: Op, moment: Expression| {
        Expression::Or(
            Box::new(or_false(op.apply(value.clone(), moment))),
            Box::new(or_false(op.apply(value.clone(), date.clone()))),
        )
    };
    let within = || {
        Expression::Or(
            Box::new(or_false(Expression::And(
                Box::new(Op::Ge.apply(value.clone(), start.clone())),
                Box::new(Op::Le.apply(value.clone(), end.clone())),
            ))),
            Box::new(or_false(Op::Eq.apply(value.clone(), date.clone()))),
        )
    };
    Some(match op {
        Op::Eq => within(),
        Op::Ne => Expression::Not(Box::new(within())),
        Op::Lt => test(Op::Lt, start.clone()),
        Op::Ge => test(Op::Ge, start.clone()),
        Op::Le => test(Op::Le, end.clone()),
        Op::Gt => test(Op::Gt, end.clone()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_date_alone_is_a_day() {
        assert!(is_day("2021-01-01"));
        assert!(is_day(" 2021-01-01 "));
        assert!(!is_day("2021-01-01T00:00:00Z"));
        assert!(!is_day("2021-13-01"));
        assert!(!is_day("open"));
        let it = Expression::Variable(spargebra::term::Variable::new_unchecked("v"));
        assert!(compare_with_day(&it, Op::Ge, "2021-01-01T10:00:00Z").is_none());
        let ge = compare_with_day(&it, Op::Ge, "2021-01-01").map(|e| e.to_string());
        assert!(
            ge.as_deref()
                .is_some_and(|e| e.contains("2021-01-01T00:00:00")
                    && e.contains("\"2021-01-01\"^^<http://www.w3.org/2001/XMLSchema#date>")),
            "{ge:?}"
        );
    }
}
