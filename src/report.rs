//! SHACL reports as clients see them: JSON (MCP, HTTP, `strata validate --format json`),
//! compiler-style text and JUnit XML (`strata validate`).

use serde_json::{Value, json};

use crate::engine::{CommitValidation, Conformance};
use crate::model::Term;
use crate::shacl::{Report, ShaclResult};

/// Results listed inline in a commit's answer or error; the rest are counted.
pub const INLINE_RESULTS: usize = 50;

/// A term as a JSON string: an IRI bare, a blank node `_:id`, a literal its lexical form.
fn term_text(term: &Term) -> String {
    match term {
        Term::NamedNode(n) => n.as_str().to_owned(),
        Term::Literal(l) => l.value().to_owned(),
        other => other.to_string(),
    }
}

/// One result: focus node, path, value, constraint component, source shape, severity,
/// message.
pub fn result_json(result: &ShaclResult) -> Value {
    json!({
        "focus_node": term_text(&result.focus_node),
        "path": result.path,
        "value": result.value.as_ref().map(term_text),
        "constraint": result.constraint,
        "source_shape": result.source_shape.as_ref().map(term_text),
        "node_shape": result.node_shape.as_ref().map(term_text),
        "severity": result.severity.name(),
        "message": result.message,
    })
}

/// `{conforms, result_count, violation_count, results}` with results `offset..offset+limit`.
pub fn report_json(report: &Report, offset: usize, limit: usize) -> Value {
    let results: Vec<Value> = report
        .results
        .iter()
        .skip(offset)
        .take(limit)
        .map(result_json)
        .collect();
    json!({
        "conforms": report.conforms,
        "result_count": report.results.len(),
        "violation_count": report.violation_count(),
        "focus_node_count": report.focus_nodes().len(),
        "results_truncated": report.results.len() > offset + results.len(),
        "results": results,
    })
}

/// A commit's validation: the report plus how it was computed.
pub fn validation_json(validation: &CommitValidation) -> Value {
    let mut value = report_json(&validation.report, 0, INLINE_RESULTS);
    value["mode"] = validation.mode.name().into();
    value["shapes_seq"] = validation.shapes_seq.into();
    value["scope"] = if validation.whole_graph {
        "graph"
    } else {
        "affected_nodes"
    }
    .into();
    value["focus_nodes_checked"] = validation.focus_nodes_checked.into();
    value
}

/// The conformance report, one page of results.
pub fn conformance_json(conformance: &Conformance, offset: usize, limit: usize) -> Value {
    let mut value = report_json(&conformance.report, offset, limit);
    value["validated_at_seq"] = conformance.validated_at_seq.into();
    value["shapes_seq"] = conformance.shapes_seq.into();
    value["mode"] = conformance.mode.name().into();
    value["offset"] = offset.into();
    value
}

/// Shapes as Turtle with the usual prefixes (for `inspect schema` and `GET …/shapes`).
pub fn shapes_turtle(triples: &[crate::model::Triple]) -> String {
    let mut serializer = oxttl::TurtleSerializer::new();
    for (prefix, iri) in [
        ("sh", "http://www.w3.org/ns/shacl#"),
        ("rdf", "http://www.w3.org/1999/02/22-rdf-syntax-ns#"),
        ("rdfs", "http://www.w3.org/2000/01/rdf-schema#"),
        ("xsd", "http://www.w3.org/2001/XMLSchema#"),
        ("strata", "https://strata.dev/ns#"),
    ] {
        serializer = serializer
            .with_prefix(prefix, iri)
            .unwrap_or_else(|_| oxttl::TurtleSerializer::new());
    }
    let mut writer = serializer.for_writer(Vec::new());
    for triple in triples {
        if writer.serialize_triple(triple).is_err() {
            break;
        }
    }
    writer
        .finish()
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
        .unwrap_or_default()
}

/// How `search:` patterns were answered, for the `Strata-Search` response header:
/// `?t plan=search_first asked=40 bound=20 complete=true dropped=0 exact=true`,
/// comma-separated.
pub fn search_header(reports: &[crate::search::sparql_patterns::SearchReport]) -> String {
    reports
        .iter()
        .map(|r| {
            format!(
                "?{} plan={} asked={} bound={} complete={} dropped={} exact={}",
                r.variable,
                r.plan,
                r.asked,
                r.bound,
                r.complete,
                r.dropped_not_at_seq,
                r.exact_at_seq
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The same as JSON (MCP answers).
pub fn search_json(reports: &[crate::search::sparql_patterns::SearchReport]) -> Value {
    Value::Array(
        reports
            .iter()
            .map(|r| {
                json!({
                    "variable": r.variable,
                    "plan": r.plan.name(),
                    "hits_asked": r.asked,
                    "hits_bound": r.bound,
                    "complete": r.complete,
                    "dropped_not_at_seq": r.dropped_not_at_seq,
                    "exact_at_seq": r.exact_at_seq,
                })
            })
            .collect(),
    )
}

/// Compiler-style lines: `source: severity: focus <node> path <p>: message [constraint]
/// (shape S, value V)`, then a summary line.
pub fn report_text(report: &Report, source_of: &dyn Fn(&Term) -> String) -> String {
    let mut out = String::new();
    for r in &report.results {
        out.push_str(&format!(
            "{}: {}: {}",
            source_of(&r.focus_node),
            r.severity.name().to_lowercase(),
            r.focus_node
        ));
        if let Some(path) = &r.path {
            out.push_str(&format!(" {}", display_path(path)));
        }
        out.push_str(&format!(": {} [{}]", r.message, r.constraint_name()));
        let mut notes = Vec::new();
        if let Some(shape) = r.shape_label() {
            notes.push(format!("shape {shape}"));
        }
        if let Some(value) = &r.value {
            notes.push(format!("value {value}"));
        }
        if !notes.is_empty() {
            out.push_str(&format!(" ({})", notes.join(", ")));
        }
        out.push('\n');
    }
    out.push_str(&summary_line(report));
    out.push('\n');
    out
}

pub fn summary_line(report: &Report) -> String {
    if report.conforms {
        "conforms: 0 results".to_owned()
    } else {
        let violations = report.violation_count();
        format!(
            "does not conform: {} result(s) ({violations} violation(s), {} other) on {} focus node(s)",
            report.results.len(),
            report.results.len() - violations,
            report.focus_nodes().len()
        )
    }
}

fn display_path(path: &str) -> String {
    if path.starts_with('(') || path.starts_with('^') || path.starts_with('<') {
        path.to_owned()
    } else {
        format!("<{path}>")
    }
}

/// JUnit XML: one test suite; one test case per shape, failed by each focus node that
/// violates it (one `<failure>` per result), so CI systems list violations as failed tests.
pub fn report_junit(report: &Report, suite: &str, shapes: &[String]) -> String {
    use std::collections::BTreeMap;
    let mut by_shape: BTreeMap<String, Vec<&ShaclResult>> = BTreeMap::new();
    for shape in shapes {
        by_shape.entry(shape.clone()).or_default();
    }
    for r in &report.results {
        let shape = r
            .shape_label()
            .map(ToString::to_string)
            .unwrap_or_else(|| "(no shape)".to_owned());
        by_shape.entry(shape).or_default().push(r);
    }
    let cases: usize = by_shape.values().map(|rs| rs.len().max(1)).sum();
    let failures = report.violation_count();
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    xml.push_str(&format!(
        "<testsuites name=\"shacl\" tests=\"{cases}\" failures=\"{failures}\">\n  <testsuite name=\"{}\" tests=\"{cases}\" failures=\"{failures}\" errors=\"0\">\n",
        escape(suite)
    ));
    for (shape, results) in &by_shape {
        if results.is_empty() {
            xml.push_str(&format!(
                "    <testcase classname=\"{}\" name=\"{}\"/>\n",
                escape(suite),
                escape(shape)
            ));
            continue;
        }
        // A name per result, unique within the suite (JUnit readers merge test cases of
        // one name): the focus node, then the path and constraint when a focus node fails
        // the shape more than once, then a number if that is not enough.
        let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
        let repeated = |r: &ShaclResult| {
            results
                .iter()
                .filter(|o| o.focus_node == r.focus_node)
                .count()
                > 1
        };
        for r in results {
            let path = r.path.as_deref().map(display_path).unwrap_or_default();
            let mut name = format!("{shape} {}", r.focus_node);
            if repeated(r) {
                name = format!("{name} {path} {}", r.constraint_name());
            }
            let n = seen.entry(name.clone()).or_default();
            *n += 1;
            if *n > 1 {
                name = format!("{name} #{n}");
            }
            let detail = format!(
                "focus node {}\npath {}\nvalue {}\nconstraint {}\nseverity {}",
                r.focus_node,
                path,
                r.value
                    .as_ref()
                    .map(ToString::to_string)
                    .unwrap_or_default(),
                r.constraint,
                r.severity.name()
            );
            let element = if r.severity == crate::shacl::Severity::Violation {
                "failure"
            } else {
                "system-out"
            };
            if element == "failure" {
                xml.push_str(&format!(
                    "    <testcase classname=\"{}\" name=\"{}\">\n      <failure type=\"{}\" message=\"{}\">{}</failure>\n    </testcase>\n",
                    escape(suite),
                    escape(&name),
                    escape(r.constraint_name()),
                    escape(&r.message),
                    escape(&detail)
                ));
            } else {
                xml.push_str(&format!(
                    "    <testcase classname=\"{}\" name=\"{}\">\n      <system-out>{}: {}\n{}</system-out>\n    </testcase>\n",
                    escape(suite),
                    escape(&name),
                    r.severity.name(),
                    escape(&r.message),
                    escape(&detail)
                ));
            }
        }
    }
    xml.push_str("  </testsuite>\n</testsuites>\n");
    xml
}

fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // XML 1.0 forbids most control characters, even escaped.
            c if (c as u32) < 0x20 && c != '\n' && c != '\t' && c != '\r' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Literal, NamedNode};
    use crate::shacl::Severity;

    fn sample() -> Report {
        Report::from_results(vec![ShaclResult {
            focus_node: NamedNode::new_unchecked("http://e/t<1>").into(),
            path: Some("http://e/status".into()),
            value: Some(Literal::new_simple_literal("a & b").into()),
            constraint: "http://www.w3.org/ns/shacl#InConstraintComponent".into(),
            source_shape: Some(NamedNode::new_unchecked("http://e/S").into()),
            node_shape: None,
            severity: Severity::Violation,
            message: "value \"a & b\" is not one of the allowed values".into(),
        }])
    }

    #[test]
    fn junit_escapes_and_counts_failures() {
        let xml = report_junit(&sample(), "data.ttl", &["<http://e/Other>".into()]);
        assert!(xml.contains("tests=\"2\" failures=\"1\""), "{xml}");
        assert!(xml.contains("&quot;a &amp; b&quot;"), "{xml}");
        assert!(!xml.contains("a & b"), "unescaped text in {xml}");
    }

    #[test]
    fn text_reads_like_a_compiler() {
        let text = report_text(&sample(), &|_| "data.ttl".to_owned());
        assert!(
            text.starts_with("data.ttl: violation: <http://e/t<1>> <http://e/status>: value"),
            "{text}"
        );
        assert!(text.contains("[In]"), "{text}");
        assert!(text.ends_with("on 1 focus node(s)\n"), "{text}");
    }
}
