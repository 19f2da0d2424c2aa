//! `SELECT *` lists its variables in the order they first appear in the query.
//!
//! spargebra sorts the variables of `SELECT *` by name, so `SELECT * { ?person :name ?name }`
//! answers the columns `name, person`. The spec leaves the order open, but Jena, RDF4J and
//! Virtuoso all use the order of first appearance, and users (and agents reading a CSV
//! header) expect the columns in the order they wrote them. The algebra no longer says
//! whether the projection was `*`, so the text is read for that: only the prologue
//! (`BASE`, `PREFIX`, `VERSION`), comments and `SELECT DISTINCT|REDUCED` come before it.

use spargebra::Query;
use spargebra::algebra::GraphPattern;
use spargebra::term::{NamedNodePattern, TermPattern, TriplePattern, Variable};

/// Reorders the columns of a top-level `SELECT *` to the order of first appearance.
pub fn order_by_appearance(text: &str, query: &mut Query) {
    let Query::Select { pattern, .. } = query else {
        return;
    };
    if !is_select_star(text) {
        return;
    }
    let Some((inner, variables)) = top_projection(pattern) else {
        return;
    };
    let mut seen: Vec<Variable> = Vec::with_capacity(variables.len());
    appearance(inner, &mut |v| {
        if variables.contains(v) && !seen.contains(v) {
            seen.push(v.clone());
        }
    });
    // Anything the walk missed keeps its place after the rest, so no column is lost.
    for v in variables.iter() {
        if !seen.contains(v) {
            seen.push(v.clone());
        }
    }
    *variables = seen;
}

/// The projection of a `SELECT` (under any `LIMIT`, `DISTINCT` or `REDUCED`).
fn top_projection(pattern: &mut GraphPattern) -> Option<(&GraphPattern, &mut Vec<Variable>)> {
    match pattern {
        GraphPattern::Slice { inner, .. }
        | GraphPattern::Distinct { inner }
        | GraphPattern::Reduced { inner } => top_projection(inner),
        GraphPattern::Project { inner, variables } => Some((inner, variables)),
        _ => None,
    }
}

/// Calls `found` for each variable in the order the text wrote them.
fn appearance<'a>(pattern: &'a GraphPattern, found: &mut impl FnMut(&'a Variable)) {
    match pattern {
        GraphPattern::Bgp { patterns } => {
            for triple in patterns {
                triple_appearance(triple, found);
            }
        }
        GraphPattern::Path {
            subject, object, ..
        } => {
            term_appearance(subject, found);
            term_appearance(object, found);
        }
        GraphPattern::Join { left, right }
        | GraphPattern::LeftJoin { left, right, .. }
        | GraphPattern::Union { left, right } => {
            appearance(left, found);
            appearance(right, found);
        }
        GraphPattern::Graph { name, inner } => {
            if let NamedNodePattern::Variable(v) = name {
                found(v);
            }
            appearance(inner, found);
        }
        // `BIND(… AS ?v)` is written after the patterns it extends.
        GraphPattern::Extend {
            inner, variable, ..
        } => {
            appearance(inner, found);
            found(variable);
        }
        GraphPattern::Minus { left, .. } => appearance(left, found),
        GraphPattern::Filter { inner, .. }
        | GraphPattern::OrderBy { inner, .. }
        | GraphPattern::Distinct { inner }
        | GraphPattern::Reduced { inner }
        | GraphPattern::Slice { inner, .. } => appearance(inner, found),
        GraphPattern::Service { name, inner, .. } => {
            if let NamedNodePattern::Variable(v) = name {
                found(v);
            }
            appearance(inner, found);
        }
        // Values, subqueries, groups: their own order.
        other => other.on_in_scope_variable(found),
    }
}

fn triple_appearance<'a>(triple: &'a TriplePattern, found: &mut impl FnMut(&'a Variable)) {
    term_appearance(&triple.subject, found);
    if let NamedNodePattern::Variable(v) = &triple.predicate {
        found(v);
    }
    term_appearance(&triple.object, found);
}

fn term_appearance<'a>(term: &'a TermPattern, found: &mut impl FnMut(&'a Variable)) {
    match term {
        TermPattern::Variable(v) => found(v),
        TermPattern::Triple(triple) => triple_appearance(triple, found),
        _ => {}
    }
}

/// Whether the query form is `SELECT [DISTINCT|REDUCED] *`, reading past the prologue.
fn is_select_star(text: &str) -> bool {
    let mut rest = text;
    let mut after_select = false;
    loop {
        rest = skip_blank(rest);
        if after_select && rest.starts_with('*') {
            return true;
        }
        if let Some(tail) = rest.strip_prefix('<') {
            // An IRI of the prologue: `#` inside it is not a comment.
            let Some(end) = tail.find('>') else {
                return false;
            };
            rest = &tail[end + 1..];
            continue;
        }
        if let Some(quote) = rest.chars().next().filter(|c| *c == '"' || *c == '\'') {
            // `VERSION "1.2"`
            let tail = &rest[1..];
            let Some(end) = tail.find(quote) else {
                return false;
            };
            rest = &tail[end + 1..];
            continue;
        }
        let end = rest
            .find(|c: char| {
                c.is_whitespace()
                    || matches!(c, '<' | '#' | '*' | '{' | '(' | '?' | '$' | '"' | '\'')
            })
            .unwrap_or(rest.len());
        if end == 0 {
            return false;
        }
        let word = &rest[..end];
        rest = &rest[end..];
        if after_select {
            if word.eq_ignore_ascii_case("DISTINCT") || word.eq_ignore_ascii_case("REDUCED") {
                continue;
            }
            return false;
        }
        if word.eq_ignore_ascii_case("SELECT") {
            after_select = true;
        } else if !(word.eq_ignore_ascii_case("BASE")
            || word.eq_ignore_ascii_case("PREFIX")
            || word.eq_ignore_ascii_case("VERSION")
            || word.ends_with(':'))
        {
            return false;
        }
    }
}

/// Past white space and `#` comments.
fn skip_blank(mut text: &str) -> &str {
    loop {
        text = text.trim_start();
        match text.strip_prefix('#') {
            Some(comment) => text = comment.find('\n').map_or("", |end| &comment[end..]),
            None => return text,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn columns(text: &str) -> Vec<String> {
        let mut query = spargebra::SparqlParser::new().parse_query(text).unwrap();
        order_by_appearance(text, &mut query);
        let Query::Select { pattern, .. } = &mut query else {
            panic!("not a SELECT")
        };
        top_projection(pattern)
            .unwrap()
            .1
            .iter()
            .map(|v| v.as_str().to_owned())
            .collect()
    }

    #[test]
    fn star_lists_variables_as_written() {
        assert_eq!(
            columns("SELECT * WHERE { ?person <http://e/name> ?name }"),
            ["person", "name"]
        );
        assert_eq!(
            columns(
                "# a comment with SELECT ?a\nBASE <http://e/#x> PREFIX e:<http://e/> \
                 select distinct * { ?z e:p ?y OPTIONAL { ?y e:q ?x } BIND(1 AS ?a) } LIMIT 3"
            ),
            ["z", "y", "x", "a"]
        );
        assert_eq!(
            columns("SELECT REDUCED * { GRAPH ?g { ?s ?p ?o } } ORDER BY ?o"),
            ["g", "s", "p", "o"]
        );
        assert_eq!(
            columns("SELECT * { ?b <http://e/p> ?a } VALUES ?c { 1 }"),
            ["b", "a", "c"]
        );
    }

    #[test]
    fn explicit_projections_keep_their_order() {
        assert_eq!(columns("SELECT ?a ?b { ?b <http://e/p> ?a }"), ["a", "b"]);
        assert_eq!(
            columns("PREFIX e: <http://e/> SELECT ?b ?a { ?a e:p ?b }"),
            ["b", "a"]
        );
        // A subquery's `*` is not the answer's.
        assert_eq!(
            columns("SELECT ?a ?b { { SELECT * { ?b <http://e/p> ?a } } }"),
            ["a", "b"]
        );
    }

    #[test]
    fn only_select_star_is_recognised() {
        assert!(is_select_star("SELECT*{?s ?p ?o}"));
        assert!(is_select_star("prefix : <http://e/> SELECT\n#x\n * {}"));
        assert!(!is_select_star("SELECT ?s {?s ?p ?o}"));
        assert!(!is_select_star("ASK {}"));
        assert!(!is_select_star("PREFIX e: <http://e/"));
        assert!(!is_select_star(""));
    }
}
