//! A SHACL validation report in Strata's own terms (oxrdf terms, plain strings), so the
//! layers above never see rudof's types.

use std::collections::BTreeSet;

use crate::model::Term;

/// How serious a validation result is (`sh:resultSeverity`).
/// Custom severities (any IRI a shape names) rank with `Info`: they never reject.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Other(String),
    Info,
    Warning,
    Violation,
}

impl Severity {
    /// The local name of the severity IRI (`Violation`, `Warning`, `Info` or a custom one).
    pub fn name(&self) -> &str {
        match self {
            Severity::Info => "Info",
            Severity::Warning => "Warning",
            Severity::Violation => "Violation",
            Severity::Other(iri) => iri.rsplit(['#', '/']).next().unwrap_or(iri),
        }
    }

    pub fn iri(&self) -> String {
        match self {
            Severity::Other(iri) => iri.clone(),
            _ => format!("http://www.w3.org/ns/shacl#{}", self.name()),
        }
    }
}

/// One validation result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShaclResult {
    pub focus_node: Term,
    /// The path in SPARQL property-path syntax; a plain IRI (no brackets) for a predicate.
    pub path: Option<String>,
    pub value: Option<Term>,
    /// The IRI of the constraint component, e.g. `sh:MinCountConstraintComponent`.
    pub constraint: String,
    pub source_shape: Option<Term>,
    /// The shape declaring `source_shape` when that is a property shape (`sh:property`):
    /// usually the named node shape a person recognizes.
    pub node_shape: Option<Term>,
    pub severity: Severity,
    /// `sh:resultMessage` from the shape, or a message describing the constraint.
    pub message: String,
}

impl ShaclResult {
    /// The shape to show a person: the declaring node shape, else the source shape.
    pub fn shape_label(&self) -> Option<&Term> {
        self.node_shape.as_ref().or(self.source_shape.as_ref())
    }

    /// The constraint component's local name without the suffix, e.g. `MinCount`.
    pub fn constraint_name(&self) -> &str {
        let local = self
            .constraint
            .rsplit(['#', '/'])
            .next()
            .unwrap_or(&self.constraint);
        local.strip_suffix("ConstraintComponent").unwrap_or(local)
    }
}

/// The outcome of validating data against a set of shapes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// `sh:conforms`: true when there is no result of any severity.
    pub conforms: bool,
    pub results: Vec<ShaclResult>,
}

impl Report {
    pub fn conforming() -> Self {
        Self {
            conforms: true,
            results: Vec::new(),
        }
    }

    pub fn from_results(mut results: Vec<ShaclResult>) -> Self {
        sort_results(&mut results);
        Self {
            conforms: results.is_empty(),
            results,
        }
    }

    /// Results of severity `sh:Violation` (what `reject` mode refuses).
    pub fn violation_count(&self) -> usize {
        self.results
            .iter()
            .filter(|r| r.severity == Severity::Violation)
            .count()
    }

    pub fn has_violations(&self) -> bool {
        self.violation_count() > 0
    }

    /// The distinct focus nodes with at least one result.
    pub fn focus_nodes(&self) -> BTreeSet<String> {
        self.results
            .iter()
            .map(|r| r.focus_node.to_string())
            .collect()
    }

    /// This report with the results about `focus_nodes` replaced by `fresh`'s (which must
    /// have validated exactly those nodes).
    pub fn replace_focus_nodes(&self, focus_nodes: &BTreeSet<String>, fresh: &Report) -> Report {
        let mut results: Vec<ShaclResult> = self
            .results
            .iter()
            .filter(|r| !focus_nodes.contains(&r.focus_node.to_string()))
            .cloned()
            .collect();
        results.extend(
            fresh
                .results
                .iter()
                .filter(|r| focus_nodes.contains(&r.focus_node.to_string()))
                .cloned(),
        );
        Report::from_results(results)
    }
}

/// A stable order (severity first, then focus node, path, constraint, value) so reports
/// page the same way every time.
fn sort_results(results: &mut [ShaclResult]) {
    results.sort_by_cached_key(|r| {
        (
            std::cmp::Reverse(r.severity.clone()),
            r.focus_node.to_string(),
            r.path.clone().unwrap_or_default(),
            r.constraint.clone(),
            r.value
                .as_ref()
                .map(ToString::to_string)
                .unwrap_or_default(),
            r.source_shape
                .as_ref()
                .map(ToString::to_string)
                .unwrap_or_default(),
        )
    });
}
