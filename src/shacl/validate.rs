//! One validation run: data triples into an in-memory graph, rudof's native engine over
//! it, and its results converted to ours.

use rudof_rdf::rdf_core::SHACLPath;
use rudof_rdf::rdf_impl::OxigraphInMemory;
use shacl::types::Severity as RudofSeverity;
use shacl::validator::processor::{GraphValidation, ShaclProcessor};
use shacl::validator::report::ValidationResult;
use shacl::validator::store::Graph;
use shacl::validator::{ShaclConfig, ShaclValidationMode};

use super::report::{Report, Severity, ShaclResult};
use super::{ShaclError, Shapes, guard};
use crate::model::{Term, TripleRef};

/// Validates the data graph made of `triples` against `shapes`.
pub fn validate<'a>(
    shapes: &Shapes,
    triples: impl IntoIterator<Item = TripleRef<'a>>,
) -> Result<Report, ShaclError> {
    let mut graph = OxigraphInMemory::new();
    for t in triples {
        graph
            .add_triple_ref(t.subject, t.predicate, t.object)
            .map_err(|e| ShaclError::Validation(e.to_string()))?;
    }
    validate_graph(shapes, graph)
}

/// Validates an in-memory graph already built.
pub(crate) fn validate_graph(
    shapes: &Shapes,
    graph: OxigraphInMemory,
) -> Result<Report, ShaclError> {
    if shapes.is_empty() {
        return Ok(Report::conforming());
    }
    let report = guard(|| {
        let mut processor = GraphValidation::new(Graph::from(graph));
        processor.validate(
            shapes.schema(),
            &ShaclValidationMode::Native,
            &ShaclConfig::default(),
        )
    })?
    .map_err(|e| ShaclError::Validation(e.to_string()))?;
    let results = report
        .results()
        .iter()
        .map(|r| {
            let mut result = convert(r);
            result.node_shape = result
                .source_shape
                .as_ref()
                .and_then(|s| shapes.owner_of(s))
                .cloned();
            result
        })
        .collect();
    Ok(Report::from_results(results))
}

fn convert(result: &ValidationResult) -> ShaclResult {
    let constraint = result.constraint_component().to_string();
    let severity = match result.severity() {
        RudofSeverity::Violation => Severity::Violation,
        RudofSeverity::Warning => Severity::Warning,
        RudofSeverity::Generic(iri) => Severity::Other(iri.as_str().to_owned()),
        // Trace and Debug are rudof's own levels below Info.
        _ => Severity::Info,
    };
    let value = result.value().cloned().map(Term::from);
    let path = result.path().map(path_text);
    let message = result
        .message()
        .get(None)
        .or_else(|| result.message().iter().map(|(_, m)| m).next())
        .cloned()
        .unwrap_or_else(|| default_message(&constraint, value.as_ref(), path.as_deref()));
    ShaclResult {
        focus_node: Term::from(result.focus_node().clone()),
        path,
        value,
        constraint,
        source_shape: result.source().cloned().map(Term::from),
        node_shape: None,
        severity,
        message,
    }
}

/// A path in SPARQL property-path syntax; a plain predicate is its bare IRI.
fn path_text(path: &SHACLPath) -> String {
    match path {
        SHACLPath::Predicate { pred } => pred.as_str().to_owned(),
        other => path_expression(other),
    }
}

fn path_expression(path: &SHACLPath) -> String {
    let join = |paths: &[SHACLPath], sep: &str| {
        let parts: Vec<String> = paths.iter().map(path_expression).collect();
        format!("({})", parts.join(sep))
    };
    match path {
        SHACLPath::Predicate { pred } => format!("<{}>", pred.as_str()),
        SHACLPath::Alternative { paths } => join(paths, " | "),
        SHACLPath::Sequence { paths } => join(paths, " / "),
        SHACLPath::Inverse { path } => format!("^{}", path_expression(path)),
        SHACLPath::ZeroOrMore { path } => format!("{}*", path_expression(path)),
        SHACLPath::OneOrMore { path } => format!("{}+", path_expression(path)),
        SHACLPath::ZeroOrOne { path } => format!("{}?", path_expression(path)),
    }
}

/// What a constraint component means, for results whose shape gives no `sh:message`.
fn default_message(constraint: &str, value: Option<&Term>, path: Option<&str>) -> String {
    let local = constraint.rsplit(['#', '/']).next().unwrap_or(constraint);
    let name = local.strip_suffix("ConstraintComponent").unwrap_or(local);
    let on = path.map(|p| format!(" on {p}")).unwrap_or_default();
    let value = value.map(|v| format!("{v} ")).unwrap_or_default();
    let what = match name {
        "MinCount" => return format!("fewer values{on} than sh:minCount allows"),
        "MaxCount" => return format!("more values{on} than sh:maxCount allows"),
        "Class" => "is not an instance of the required class",
        "Datatype" => "does not have the required datatype",
        "NodeKind" => "is not of the required node kind",
        "In" => "is not one of the allowed values (sh:in)",
        "HasValue" => return format!("the required value is missing{on} (sh:hasValue)"),
        "Pattern" => "does not match the required pattern",
        "MinLength" => "is shorter than sh:minLength",
        "MaxLength" => "is longer than sh:maxLength",
        "MinInclusive" | "MinExclusive" => "is below the allowed minimum",
        "MaxInclusive" | "MaxExclusive" => "is above the allowed maximum",
        "LanguageIn" => "does not have an allowed language tag",
        "UniqueLang" => return format!("more than one value{on} with the same language tag"),
        "Closed" => "uses a property the closed shape does not allow",
        "Node" => "does not conform to the required node shape",
        "Not" => "conforms to a shape it must not conform to (sh:not)",
        "And" => "does not conform to every shape of sh:and",
        "Or" => "conforms to none of the shapes of sh:or",
        "Xone" => "does not conform to exactly one shape of sh:xone",
        "QualifiedMinCount" => return format!("too few values{on} conform to the qualified shape"),
        "QualifiedMaxCount" => {
            return format!("too many values{on} conform to the qualified shape");
        }
        "Equals" => "differs from the values of the sh:equals property",
        "Disjoint" => "is shared with the sh:disjoint property",
        "LessThan" => "is not less than the sh:lessThan property's values",
        "LessThanOrEquals" => "is greater than the sh:lessThanOrEquals property's values",
        _ => return format!("violates {name}{on}"),
    };
    format!("value {value}{what}{on}").replace("  ", " ")
}
