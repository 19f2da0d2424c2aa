//! How complex a query or update may be.
//!
//! The parser (spargebra), the algebra's own walks (variable scoping, `Display`, `Drop`),
//! Strata's rewrites, the optimizer (sparopt), spareval's plan building and its nested
//! result iterators all recurse once per level of nesting, so a 2 KB query of 900 nested
//! braces used to overflow a thread's stack and abort the whole process. Two checks keep
//! every input within what the evaluating thread's stack (`QUERY_STACK_BYTES`) holds with
//! a wide margin, and answer anything bigger with `query_too_complex`:
//!
//! 1. Before parsing, a lexical scan of the text (strings, IRIs and comments skipped):
//!    brackets `{ } ( ) [ ] << >>` nest at most `MAX_NESTING` deep, and the text has at
//!    most `MAX_OPERATORS` operators that the parser folds into chains (`UNION`,
//!    `OPTIONAL`, `MINUS`, `FILTER`, `BIND`, `SERVICE`, `||`, `&&`, `!`, property-path `/`
//!    and `|`, arithmetic `+ - * /`), not counting `VALUES` and `INSERT DATA` /
//!    `DELETE DATA` blocks. This bounds the parser's recursion.
//! 2. After parsing, a walk of the algebra: at most `MAX_DEPTH` levels, where a group
//!    of n triple patterns counts n levels (they are evaluated as a chain of joins); at
//!    most `MAX_GROUP_PARTS` parts in one group (the triple patterns, property-path
//!    steps, sub-groups, `OPTIONAL`, `MINUS` and `BIND` that the optimizer orders
//!    together) and `MAX_QUERY_PARTS` in the whole query. The optimizer runs before
//!    evaluation and cannot be cancelled; its time grows with the cube of a group's
//!    parts (with the patched sparopt, see `vendor/sparopt/STRATA_PATCH.md`), so these
//!    two bound it: a 64-part group plans in about 60 ms, a query at both limits in about
//!    2 s.
//!
//! Measured on the debug build, the deepest recursion costs about 25 KB of stack per
//! level (spareval's plan builder), so `MAX_DEPTH` levels need about 25 MiB of the 64 MiB.

use spargebra::algebra::{Expression, GraphPattern, PropertyPathExpression};
use spargebra::term::{TermPattern, TriplePattern};
use spargebra::{GraphUpdateOperation, Query, Update};

use super::QueryError;

/// Deepest nesting of brackets `{ } ( ) [ ] << >>` in a query or update text.
pub const MAX_NESTING: usize = 128;
/// Most operators the parser folds into chains, in one query or update text.
pub const MAX_OPERATORS: usize = 1_000;
/// Most levels of the parsed algebra (a group of n triple patterns counts n).
pub const MAX_DEPTH: usize = 1_000;
/// Most parts of one group that the optimizer orders together.
pub const MAX_GROUP_PARTS: usize = 64;
/// Most group parts in a whole query or update.
pub const MAX_QUERY_PARTS: usize = 1_024;
/// Stack of every thread that parses or evaluates SPARQL: the HTTP/MCP runtime's
/// threads and the CLI's main thread.
pub const QUERY_STACK_BYTES: usize = 64 << 20;

fn too_complex(message: String) -> QueryError {
    QueryError::TooComplex(message)
}

/// The lexical check of a query or update text (before parsing).
pub fn check_text(text: &str) -> Result<(), QueryError> {
    let scan = scan(text);
    if scan.max_nesting > MAX_NESTING {
        return Err(too_complex(format!(
            "brackets nest {} deep; at most {MAX_NESTING} levels of {{ }} ( ) [ ] << >> are allowed",
            scan.max_nesting
        )));
    }
    if scan.operators > MAX_OPERATORS {
        return Err(too_complex(format!(
            "the text has {} operators (UNION, OPTIONAL, MINUS, FILTER, BIND, SERVICE, ||, &&, !, property paths / and |, arithmetic); at most {MAX_OPERATORS} are allowed",
            scan.operators
        )));
    }
    Ok(())
}

/// What the lexical scan found.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Scan {
    pub max_nesting: usize,
    pub operators: usize,
}

/// Scans SPARQL text token by token, skipping strings, IRIs and comments. It never fails:
/// text that is not SPARQL is the parser's business.
pub fn scan(text: &str) -> Scan {
    let bytes = text.as_bytes();
    let mut result = Scan::default();
    // One entry per open bracket: whether it is inside a VALUES or DATA block, whose
    // contents (possibly large, with signed numbers) are data, not operators.
    let mut open: Vec<bool> = Vec::new();
    // A `VALUES` or `DATA` keyword was seen: its block is the next `{`.
    let mut data_pending = false;
    let mut i = 0;
    let in_data = |open: &Vec<bool>| open.last().copied().unwrap_or(false);
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b' ' | b'\t' | b'\r' | b'\n' => i += 1,
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'"' | b'\'' => i = skip_string(bytes, i),
            b'<' => {
                if let Some(end) = iri_end(bytes, i) {
                    i = end;
                } else if bytes.get(i + 1) == Some(&b'<') {
                    open.push(in_data(&open));
                    result.max_nesting = result.max_nesting.max(open.len());
                    i += 2;
                } else {
                    i += 1;
                }
            }
            b'>' => {
                if bytes.get(i + 1) == Some(&b'>') {
                    open.pop();
                    i += 2;
                } else {
                    i += 1;
                }
            }
            b'{' | b'(' | b'[' => {
                let data = in_data(&open) || (c == b'{' && data_pending);
                if c == b'{' {
                    data_pending = false;
                }
                open.push(data);
                result.max_nesting = result.max_nesting.max(open.len());
                i += 1;
            }
            b'}' | b')' | b']' => {
                open.pop();
                i += 1;
            }
            b'?' | b'$' => {
                i += 1;
                while i < bytes.len()
                    && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_' || bytes[i] >= 0x80)
                {
                    i += 1;
                }
            }
            b'@' => {
                i += 1;
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'-') {
                    i += 1;
                }
            }
            b'^' => {
                // `^^` (a datatype) or `^` (an inverse path): neither makes a chain.
                i += if bytes.get(i + 1) == Some(&b'^') {
                    2
                } else {
                    1
                };
            }
            b'|' | b'&' => {
                // `||`, `&&`, or a path alternative `|`.
                i += if bytes.get(i + 1) == Some(&c) { 2 } else { 1 };
                if !in_data(&open) {
                    result.operators += 1;
                }
            }
            b'/' | b'+' | b'-' | b'*' | b'!' => {
                i += if c == b'!' && bytes.get(i + 1) == Some(&b'=') {
                    2
                } else {
                    1
                };
                let not_equal = c == b'!' && bytes[i - 1] == b'=';
                if !in_data(&open) && !not_equal {
                    result.operators += 1;
                }
            }
            b'0'..=b'9' | b'.' if c != b'.' || bytes.get(i + 1).is_some_and(u8::is_ascii_digit) => {
                i = skip_number(bytes, i);
            }
            _ if is_name_byte(c) => {
                let start = i;
                while i < bytes.len() {
                    if bytes[i] == b'\\' {
                        i += 2;
                    } else if is_name_byte(bytes[i]) {
                        i += 1;
                    } else {
                        break;
                    }
                }
                i = i.min(bytes.len());
                // A name does not end with a dot: that one ends the triple.
                while i > start + 1 && bytes[i - 1] == b'.' {
                    i -= 1;
                }
                let word = &bytes[start..i];
                if word.eq_ignore_ascii_case(b"VALUES") || word.eq_ignore_ascii_case(b"DATA") {
                    data_pending = true;
                } else if !in_data(&open)
                    && [
                        "UNION", "OPTIONAL", "MINUS", "FILTER", "BIND", "SERVICE", "LATERAL",
                    ]
                    .iter()
                    .any(|k| word.eq_ignore_ascii_case(k.as_bytes()))
                {
                    result.operators += 1;
                }
            }
            _ => i += 1,
        }
    }
    result
}

/// Bytes of names: prefixed names, keywords, blank node labels (and any non-ASCII byte,
/// which SPARQL only allows in names and strings).
fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b':' | b'-' | b'.' | b'%') || b >= 0x80
}

/// The index after the string starting at `i` (short or long form, with escapes).
fn skip_string(bytes: &[u8], i: usize) -> usize {
    let quote = bytes[i];
    let long = bytes.get(i + 1) == Some(&quote) && bytes.get(i + 2) == Some(&quote);
    let mut j = if long { i + 3 } else { i + 1 };
    while j < bytes.len() {
        match bytes[j] {
            b'\\' => j += 2,
            b if b == quote => {
                if !long {
                    return j + 1;
                }
                if bytes.get(j + 1) == Some(&quote) && bytes.get(j + 2) == Some(&quote) {
                    return j + 3;
                }
                j += 1;
            }
            b'\n' if !long => return j,
            _ => j += 1,
        }
    }
    bytes.len()
}

/// The index after an IRI `<…>` starting at `i`, if one starts there.
fn iri_end(bytes: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    while j < bytes.len() {
        match bytes[j] {
            b'>' => return Some(j + 1),
            b'<' | b'"' | b'{' | b'}' | b'|' | b'^' | b'`' | b'\\' | 0..=b' ' => return None,
            _ => j += 1,
        }
    }
    None
}

/// The index after the number starting at `i` (`12`, `1.5`, `.5`, `1e-3`).
fn skip_number(bytes: &[u8], i: usize) -> usize {
    let mut j = i;
    while j < bytes.len() && bytes[j].is_ascii_digit() {
        j += 1;
    }
    if bytes.get(j) == Some(&b'.') && bytes.get(j + 1).is_some_and(u8::is_ascii_digit) {
        j += 1;
        while j < bytes.len() && bytes[j].is_ascii_digit() {
            j += 1;
        }
    }
    if matches!(bytes.get(j), Some(b'e' | b'E')) {
        let mut k = j + 1;
        if matches!(bytes.get(k), Some(b'+' | b'-')) {
            k += 1;
        }
        if bytes.get(k).is_some_and(u8::is_ascii_digit) {
            j = k;
            while j < bytes.len() && bytes[j].is_ascii_digit() {
                j += 1;
            }
        }
    }
    j.max(i + 1)
}

/// The algebra check of a parsed query. `group_parts` is false for queries Strata
/// rewrote itself (entailment, search), whose added parts are not the caller's doing.
pub fn check_query(query: &Query, group_parts: bool) -> Result<(), QueryError> {
    let pattern = match query {
        Query::Select { pattern, .. }
        | Query::Construct { pattern, .. }
        | Query::Describe { pattern, .. }
        | Query::Ask { pattern, .. } => pattern,
    };
    check_pattern(pattern, group_parts)
}

/// The algebra check of every WHERE clause of a parsed update.
pub fn check_update(update: &Update) -> Result<(), QueryError> {
    for operation in &update.operations {
        if let GraphUpdateOperation::DeleteInsert { pattern, .. } = operation {
            check_pattern(pattern, true)?;
        }
    }
    Ok(())
}

fn check_pattern(pattern: &GraphPattern, group_parts: bool) -> Result<(), QueryError> {
    let mut walk = Walk {
        widest: 0,
        total: 0,
    };
    let depth = walk.pattern(pattern);
    if group_parts && walk.total > MAX_QUERY_PARTS {
        return Err(too_complex(format!(
            "the query has {} group parts (triple patterns, property-path steps, sub-groups, OPTIONAL, MINUS, BIND); at most {MAX_QUERY_PARTS} are allowed",
            walk.total
        )));
    }
    if group_parts && walk.widest > MAX_GROUP_PARTS {
        return Err(too_complex(format!(
            "a group has {} parts (triple patterns, property-path steps, sub-groups, OPTIONAL, MINUS, BIND); at most {MAX_GROUP_PARTS} are allowed in one group",
            walk.widest
        )));
    }
    if depth > MAX_DEPTH {
        return Err(too_complex(format!(
            "the query is {depth} levels deep (a group of n triple patterns counts n); at most {MAX_DEPTH} are allowed"
        )));
    }
    Ok(())
}

/// A walk of the algebra. Its recursion is bounded by the lexical check (nesting and
/// operators), except for triple patterns, which it counts without recursing.
struct Walk {
    /// The most parts seen in one group.
    widest: usize,
    /// Parts of all groups.
    total: usize,
}

impl Walk {
    /// The depth of `pattern`, counting a group's parts as a chain.
    fn pattern(&mut self, pattern: &GraphPattern) -> usize {
        match pattern {
            GraphPattern::Bgp { .. }
            | GraphPattern::Path { .. }
            | GraphPattern::Join { .. }
            | GraphPattern::LeftJoin { .. }
            | GraphPattern::Minus { .. }
            | GraphPattern::Extend { .. } => self.group(pattern),
            GraphPattern::Filter { expr, inner } => {
                1 + self.pattern(inner).max(self.expression(expr))
            }
            GraphPattern::Union { left, right } => 1 + self.pattern(left).max(self.pattern(right)),
            GraphPattern::Graph { inner, .. }
            | GraphPattern::Service { inner, .. }
            | GraphPattern::Distinct { inner }
            | GraphPattern::Reduced { inner }
            | GraphPattern::Slice { inner, .. }
            | GraphPattern::Project { inner, .. } => 1 + self.pattern(inner),
            GraphPattern::OrderBy { inner, expression } => {
                let by = expression
                    .iter()
                    .map(|e| match e {
                        spargebra::algebra::OrderExpression::Asc(e)
                        | spargebra::algebra::OrderExpression::Desc(e) => self.expression(e),
                    })
                    .max()
                    .unwrap_or(0);
                1 + self.pattern(inner).max(by)
            }
            GraphPattern::Group {
                inner, aggregates, ..
            } => {
                let aggregates = aggregates
                    .iter()
                    .map(|(_, a)| match a {
                        spargebra::algebra::AggregateExpression::FunctionCall { expr, .. } => {
                            self.expression(expr)
                        }
                        spargebra::algebra::AggregateExpression::CountSolutions { .. } => 0,
                    })
                    .max()
                    .unwrap_or(0);
                1 + self.pattern(inner).max(aggregates)
            }
            GraphPattern::Values { .. } => 1,
            GraphPattern::Lateral { .. } => self.group(pattern),
        }
    }

    /// A group: the chain of joins, OPTIONALs, MINUSes and BINDs along its left side,
    /// whose parts the optimizer orders together. Depth: the number of parts plus the
    /// deepest part.
    fn group(&mut self, pattern: &GraphPattern) -> usize {
        let mut parts = 0usize;
        let mut deepest = 0usize;
        let mut todo = vec![pattern];
        while let Some(pattern) = todo.pop() {
            match pattern {
                GraphPattern::Bgp { patterns } => {
                    parts += patterns.len();
                    for triple in patterns {
                        deepest = deepest.max(triple_depth(triple));
                    }
                }
                GraphPattern::Path { path, .. } => {
                    let (steps, depth) = path_size(path);
                    parts += steps;
                    deepest = deepest.max(depth);
                }
                GraphPattern::Join { left, right } => {
                    todo.push(left);
                    todo.push(right);
                }
                GraphPattern::LeftJoin {
                    left,
                    right,
                    expression,
                } => {
                    parts += 1;
                    let mut depth = self.pattern(right);
                    if let Some(expression) = expression {
                        depth = depth.max(self.expression(expression));
                    }
                    deepest = deepest.max(depth);
                    todo.push(left);
                }
                GraphPattern::Minus { left, right } | GraphPattern::Lateral { left, right } => {
                    parts += 1;
                    deepest = deepest.max(self.pattern(right));
                    todo.push(left);
                }
                GraphPattern::Extend {
                    inner, expression, ..
                } => {
                    parts += 1;
                    deepest = deepest.max(self.expression(expression));
                    todo.push(inner);
                }
                other => {
                    parts += 1;
                    deepest = deepest.max(self.pattern(other));
                }
            }
        }
        self.widest = self.widest.max(parts);
        self.total = self.total.saturating_add(parts);
        parts.saturating_add(deepest)
    }

    fn expression(&mut self, expression: &Expression) -> usize {
        match expression {
            Expression::NamedNode(_)
            | Expression::Literal(_)
            | Expression::Variable(_)
            | Expression::Bound(_) => 1,
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
            | Expression::Divide(a, b) => 1 + self.expression(a).max(self.expression(b)),
            Expression::In(a, list) => {
                1 + list
                    .iter()
                    .map(|e| self.expression(e))
                    .max()
                    .unwrap_or(0)
                    .max(self.expression(a))
            }
            Expression::UnaryPlus(a) | Expression::UnaryMinus(a) | Expression::Not(a) => {
                1 + self.expression(a)
            }
            Expression::Exists(pattern) => 1 + self.pattern(pattern),
            Expression::If(a, b, c) => {
                1 + self
                    .expression(a)
                    .max(self.expression(b))
                    .max(self.expression(c))
            }
            Expression::Coalesce(list) | Expression::FunctionCall(_, list) => {
                1 + list.iter().map(|e| self.expression(e)).max().unwrap_or(0)
            }
        }
    }
}

/// Levels of a triple pattern: quoted triples (`<< … >>`) nest.
fn triple_depth(triple: &TriplePattern) -> usize {
    1 + term_depth(&triple.subject).max(term_depth(&triple.object))
}

fn term_depth(term: &TermPattern) -> usize {
    match term {
        TermPattern::Triple(triple) => triple_depth(triple),
        _ => 0,
    }
}

/// Steps of a property path (a sequence is evaluated as a chain of joins) and its depth.
fn path_size(path: &PropertyPathExpression) -> (usize, usize) {
    match path {
        PropertyPathExpression::NamedNode(_) | PropertyPathExpression::NegatedPropertySet(_) => {
            (1, 1)
        }
        PropertyPathExpression::Reverse(p)
        | PropertyPathExpression::ZeroOrMore(p)
        | PropertyPathExpression::OneOrMore(p)
        | PropertyPathExpression::ZeroOrOne(p) => {
            let (steps, depth) = path_size(p);
            (steps, depth + 1)
        }
        PropertyPathExpression::Sequence(a, b) => {
            let (a_steps, a_depth) = path_size(a);
            let (b_steps, b_depth) = path_size(b);
            (a_steps + b_steps, 1 + a_depth.max(b_depth))
        }
        // Alternatives are evaluated as a union, not joined.
        PropertyPathExpression::Alternative(a, b) => {
            let (a_steps, a_depth) = path_size(a);
            let (b_steps, b_depth) = path_size(b);
            (a_steps.max(b_steps), 1 + a_depth.max(b_depth))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(text: &str) -> Result<(), String> {
        check_text(text)
            .and_then(|()| {
                let query = super::super::parse_query(text, None)?;
                check_query(&query, true)
            })
            .map_err(|e| e.to_string())
    }

    #[test]
    fn the_scan_skips_strings_iris_comments_and_data_blocks() {
        let text = r#"PREFIX ex: <http://e/a/b/c?d=1&e> # a comment with { ( [ || / +
            SELECT * WHERE { ?s ex:p "{ ( [ || \" / +" ; ex:q '''{{{ ||| ''' ; ex:r 1.5e-3 .
            VALUES ?x { -1 -2 -3 } FILTER(?x != 2) }"#;
        assert_eq!(
            scan(text),
            // `*` and FILTER.
            Scan {
                max_nesting: 2,
                operators: 2
            }
        );
        let update = "INSERT DATA { <http://e/a> <http://e/p> -1, -2, -3 , [ <http://e/p> -4 ] }";
        assert_eq!(
            scan(update),
            Scan {
                max_nesting: 2,
                operators: 0
            }
        );
        // `<` that does not start an IRI is a comparison; `<<` opens a quoted triple.
        assert_eq!(scan("FILTER(?a < ?b || ?c<<?d)").operators, 2);
        assert_eq!(scan("<< << ?s ?p ?o >> ?p ?o >>").max_nesting, 2);
    }

    #[test]
    fn deep_nesting_and_long_chains_are_too_complex() {
        let braces = |n| format!("SELECT * WHERE {}?s ?p ?o{}", "{".repeat(n), "}".repeat(n));
        assert!(code(&braces(MAX_NESTING - 1)).is_ok());
        let error = code(&braces(898)).unwrap_err();
        assert!(error.contains("brackets nest 898 deep"), "{error}");
        let unions = format!(
            "SELECT * WHERE {{ {{?s ?p ?o}} {} }}",
            "UNION {?s ?p ?o} ".repeat(1_015)
        );
        assert!(code(&unions).unwrap_err().contains("operators"));
        let ors = format!("ASK {{ FILTER(?o{}) }}", " || ?o".repeat(2_031));
        assert!(code(&ors).unwrap_err().contains("operators"));
        let parens = format!("ASK {{ FILTER({}1{}) }}", "(".repeat(859), ")".repeat(859));
        assert!(code(&parens).unwrap_err().contains("brackets"));
        let path = format!(
            "ASK {{ ?s <http://e/p>{} ?o }}",
            "/<http://e/p>".repeat(1_523)
        );
        assert!(code(&path).unwrap_err().contains("operators"));
        let nots = format!("ASK {{ FILTER({}true) }}", "!".repeat(5_000));
        assert!(code(&nots).unwrap_err().contains("operators"));
    }

    #[test]
    fn big_groups_are_too_complex_but_big_data_is_not() {
        let star = |n: usize| {
            let triples: String = (0..n)
                .map(|i| format!("?x <http://e/p{i}> ?y{i} . "))
                .collect();
            format!("SELECT * WHERE {{ {triples} }}")
        };
        assert!(code(&star(MAX_GROUP_PARTS)).is_ok());
        let error = code(&star(MAX_GROUP_PARTS + 1)).unwrap_err();
        assert!(error.contains("a group has 65 parts"), "{error}");
        let optionals = format!(
            "SELECT * WHERE {{ ?s ?p ?o {} }}",
            "OPTIONAL { ?s ?p ?o } ".repeat(100)
        );
        assert!(code(&optionals).unwrap_err().contains("group"));
        // 60-part groups nested 15 deep, around a long `||` chain: each group and the
        // number of parts are fine, the depth is not.
        let mut nested = format!("?s ?p ?o FILTER(?o{})", " || ?o".repeat(100));
        for _ in 0..15 {
            let triples: String = (0..60)
                .map(|i| format!("?a <http://e/p{i}> ?b{i} . "))
                .collect();
            nested = format!("{triples} OPTIONAL {{ {nested} }}");
        }
        let error = code(&format!("SELECT * WHERE {{ {nested} }}")).unwrap_err();
        assert!(error.contains("levels deep"), "{error}");
        // Many groups of 60 parts: each is fine, the total is not.
        let group: String = (0..60)
            .map(|i| format!("?a <http://e/p{i}> ?b{i} . "))
            .collect();
        let unions = vec![format!("{{ {group} }}"); 20].join(" UNION ");
        let error = code(&format!("SELECT * WHERE {{ {unions} }}")).unwrap_err();
        assert!(error.contains("the query has 1200 group parts"), "{error}");
        // Data is not complexity: 100,000 triples and a big VALUES block pass.
        let data: String = (0..100_000)
            .map(|i| format!("<http://e/s{i}> <http://e/p> -{i} .\n"))
            .collect();
        let update = format!("INSERT DATA {{ {data} }}");
        assert!(check_text(&update).is_ok());
        let values: String = (0..10_000).map(|i| format!("(-{i} {i}) ")).collect();
        assert!(
            code(&format!(
                "SELECT * WHERE {{ VALUES (?a ?b) {{ {values} }} }}"
            ))
            .is_ok()
        );
    }
}
