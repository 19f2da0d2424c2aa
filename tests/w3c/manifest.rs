//! Reading W3C test manifests (`mf:Manifest`) into a flat list of tests.
//!
//! Manifests are Turtle files; relative IRIs resolve against the manifest's own `file://`
//! IRI, so every file a test names is a `file://` IRI that `iri_to_path` turns back into a
//! path. `mf:include` lists are followed depth-first, in order, and `mf:entries` lists give
//! the tests of each manifest.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use oxrdf::vocab::{rdf, rdfs};
use oxrdf::{Graph, NamedNode, NamedNodeRef, NamedOrBlankNodeRef, Term, TermRef};
use oxrdfio::{RdfFormat, RdfParser};

const MF: &str = "http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#";
const QT: &str = "http://www.w3.org/2001/sw/DataAccess/tests/test-query#";
const UT: &str = "http://www.w3.org/2009/sparql/tests/test-update#";
const DAWGT: &str = "http://www.w3.org/2001/sw/DataAccess/tests/test-dawg#";
const RDFT: &str = "http://www.w3.org/ns/rdftest#";

/// What a test checks, from its `rdf:type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TestKind {
    QueryEvaluation,
    PositiveQuerySyntax,
    NegativeQuerySyntax,
    UpdateEvaluation,
    PositiveUpdateSyntax,
    NegativeUpdateSyntax,
    /// A type this runner does not know (reported as a failure, never silently passed).
    Other,
}

impl TestKind {
    fn from_type(iri: &str) -> Option<Self> {
        let local = iri.strip_prefix(MF)?;
        Some(match local {
            "QueryEvaluationTest" => Self::QueryEvaluation,
            "PositiveSyntaxTest" | "PositiveSyntaxTest11" => Self::PositiveQuerySyntax,
            "NegativeSyntaxTest" | "NegativeSyntaxTest11" => Self::NegativeQuerySyntax,
            "UpdateEvaluationTest" => Self::UpdateEvaluation,
            "PositiveUpdateSyntaxTest" | "PositiveUpdateSyntaxTest11" => Self::PositiveUpdateSyntax,
            "NegativeUpdateSyntaxTest" | "NegativeUpdateSyntaxTest11" => Self::NegativeUpdateSyntax,
            _ => return None,
        })
    }

    pub fn is_evaluation(self) -> bool {
        matches!(self, Self::QueryEvaluation | Self::UpdateEvaluation)
    }
}

/// One test of a manifest, with every file as a `file://` IRI.
#[derive(Clone, Debug)]
pub struct Test {
    pub id: String,
    pub kind: TestKind,
    pub type_iris: Vec<String>,
    pub name: Option<String>,
    /// For syntax tests: the query or update file.
    pub action: Option<String>,
    /// `qt:query` or `ut:request`.
    pub query: Option<String>,
    /// `qt:data` / `ut:data`: loaded into the default graph.
    pub data: Option<String>,
    /// `(graph name, file)`: `qt:graphData` (named by its own IRI) or `ut:graphData`
    /// (named by its `rdfs:label`).
    pub graph_data: Vec<(NamedNode, String)>,
    /// `mf:result` when it is a file (query tests).
    pub result: Option<String>,
    /// `mf:result [ ut:data … ]` (update tests): the expected default graph.
    pub result_data: Option<String>,
    /// `mf:result [ ut:graphData … ]` (update tests): the expected named graphs.
    pub result_graph_data: Vec<(NamedNode, String)>,
    /// `qt:serviceData` entries exist (federation tests).
    pub has_service_data: bool,
    /// `dawgt:approval` / `rdft:approval` value, if any.
    pub approval: Option<String>,
}

/// Everything a manifest tree lists.
pub struct Manifests {
    pub tests: Vec<Test>,
    /// Manifest files read, in order.
    pub files: Vec<String>,
}

/// The `file://` IRI of a path (made absolute first).
pub fn path_to_iri(path: &Path) -> String {
    let path = path.canonicalize().unwrap_or_else(|_| path.to_owned());
    let mut iri = String::from("file://");
    for c in path.to_string_lossy().chars() {
        match c {
            ' ' => iri.push_str("%20"),
            '%' => iri.push_str("%25"),
            '#' => iri.push_str("%23"),
            '?' => iri.push_str("%3F"),
            c => iri.push(c),
        }
    }
    iri
}

/// The path of a `file://` IRI.
pub fn iri_to_path(iri: &str) -> Result<PathBuf, String> {
    let rest = iri
        .strip_prefix("file://")
        .ok_or_else(|| format!("not a file:// IRI: {iri}"))?;
    let bytes = rest.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let Ok(byte) = u8::from_str_radix(&rest[i + 1..i + 3], 16)
        {
            out.push(byte);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    Ok(PathBuf::from(
        String::from_utf8(out).map_err(|e| e.to_string())?,
    ))
}

/// Reads a file named by a `file://` IRI.
pub fn read_iri(iri: &str) -> Result<Vec<u8>, String> {
    let path = iri_to_path(iri)?;
    std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

/// Reads a file named by a `file://` IRI as UTF-8 text.
pub fn read_iri_to_string(iri: &str) -> Result<String, String> {
    String::from_utf8(read_iri(iri)?).map_err(|e| format!("{iri} is not UTF-8: {e}"))
}

/// The RDF format of a file, from its extension.
pub fn rdf_format_of(iri: &str) -> Result<RdfFormat, String> {
    let extension = iri.rsplit_once('.').map(|(_, e)| e).unwrap_or("");
    Ok(match extension {
        "ttl" => RdfFormat::Turtle,
        "nt" => RdfFormat::NTriples,
        "nq" => RdfFormat::NQuads,
        "trig" => RdfFormat::TriG,
        "rdf" | "owl" | "xml" => RdfFormat::RdfXml,
        "jsonld" => RdfFormat::JsonLd {
            profile: oxrdfio::JsonLdProfileSet::empty(),
        },
        _ => return Err(format!("unknown RDF format for {iri}")),
    })
}

/// Parses an RDF file (triples) into a graph, relative IRIs resolved against the file.
pub fn load_graph(iri: &str) -> Result<Graph, String> {
    let data = read_iri(iri)?;
    let parser = RdfParser::from_format(rdf_format_of(iri)?)
        .with_base_iri(iri)
        .map_err(|e| e.to_string())?;
    let mut graph = Graph::new();
    for quad in parser.for_slice(&data) {
        let quad = quad.map_err(|e| format!("cannot parse {iri}: {e}"))?;
        graph.insert(&oxrdf::Triple::from(quad));
    }
    Ok(graph)
}

/// Reads a manifest and every manifest it includes.
pub fn load_manifests(root_iri: &str) -> Result<Manifests, String> {
    let mut out = Manifests {
        tests: Vec::new(),
        files: Vec::new(),
    };
    let mut seen = HashSet::new();
    load_one(root_iri, &mut out, &mut seen)?;
    Ok(out)
}

fn load_one(iri: &str, out: &mut Manifests, seen: &mut HashSet<String>) -> Result<(), String> {
    if !seen.insert(iri.to_owned()) {
        return Ok(());
    }
    out.files.push(iri.to_owned());
    let graph = load_graph(iri)?;
    let manifest_type = NamedNode::new_unchecked(format!("{MF}Manifest"));
    let manifests: Vec<NamedOrBlankNodeRef<'_>> = graph
        .subjects_for_predicate_object(rdf::TYPE, &manifest_type)
        .collect();
    if manifests.is_empty() {
        return Err(format!("{iri} holds no mf:Manifest"));
    }
    let include = mf("include");
    let entries = mf("entries");
    for manifest in manifests {
        // Includes first, then the manifest's own entries.
        for list in graph.objects_for_subject_predicate(manifest, &include) {
            for item in rdf_list(&graph, list)? {
                match item {
                    Term::NamedNode(node) => load_one(node.as_str(), out, seen)?,
                    other => return Err(format!("{iri}: mf:include item {other} is not an IRI")),
                }
            }
        }
        for list in graph.objects_for_subject_predicate(manifest, &entries) {
            for item in rdf_list(&graph, list)? {
                out.tests.push(read_test(&graph, item.as_ref(), iri)?);
            }
        }
    }
    Ok(())
}

fn mf(local: &str) -> NamedNode {
    NamedNode::new_unchecked(format!("{MF}{local}"))
}

fn qt(local: &str) -> NamedNode {
    NamedNode::new_unchecked(format!("{QT}{local}"))
}

fn ut(local: &str) -> NamedNode {
    NamedNode::new_unchecked(format!("{UT}{local}"))
}

fn rdf_list(graph: &Graph, head: TermRef<'_>) -> Result<Vec<Term>, String> {
    let mut items = Vec::new();
    let mut node = head;
    let mut guard = 0;
    loop {
        let subject: NamedOrBlankNodeRef<'_> = match node {
            TermRef::NamedNode(n) if n == rdf::NIL => return Ok(items),
            TermRef::NamedNode(n) => n.into(),
            TermRef::BlankNode(b) => b.into(),
            other => return Err(format!("invalid RDF list node {other}")),
        };
        let first = graph
            .object_for_subject_predicate(subject, rdf::FIRST)
            .ok_or_else(|| format!("RDF list node {subject} has no rdf:first"))?;
        items.push(first.into_owned());
        node = graph
            .object_for_subject_predicate(subject, rdf::REST)
            .ok_or_else(|| format!("RDF list node {subject} has no rdf:rest"))?;
        guard += 1;
        if guard > 100_000 {
            return Err("RDF list too long or cyclic".into());
        }
    }
}

fn iri_object(
    graph: &Graph,
    subject: NamedOrBlankNodeRef<'_>,
    predicate: &NamedNode,
) -> Option<String> {
    match graph.object_for_subject_predicate(subject, predicate)? {
        TermRef::NamedNode(n) => Some(n.as_str().to_owned()),
        _ => None,
    }
}

fn as_subject(term: TermRef<'_>) -> Option<NamedOrBlankNodeRef<'_>> {
    match term {
        TermRef::NamedNode(n) => Some(n.into()),
        TermRef::BlankNode(b) => Some(b.into()),
        _ => None,
    }
}

/// `ut:graphData` / `qt:graphData` values: an IRI (named by itself) or a node with
/// `ut:graph <file>` and `rdfs:label "graph name"`.
fn graph_data(
    graph: &Graph,
    subject: NamedOrBlankNodeRef<'_>,
    predicate: &NamedNode,
) -> Result<Vec<(NamedNode, String)>, String> {
    let ut_graph = ut("graph");
    let mut out = Vec::new();
    for value in graph.objects_for_subject_predicate(subject, predicate) {
        match value {
            TermRef::NamedNode(n) => out.push((n.into_owned(), n.as_str().to_owned())),
            TermRef::BlankNode(b) => {
                let file = iri_object(graph, b.into(), &ut_graph)
                    .ok_or_else(|| format!("graphData node {b} has no ut:graph"))?;
                let name = match graph.object_for_subject_predicate(b, rdfs::LABEL) {
                    Some(TermRef::Literal(label)) => NamedNode::new(label.value())
                        .map_err(|e| format!("invalid graph name {label}: {e}"))?,
                    _ => NamedNode::new_unchecked(file.clone()),
                };
                out.push((name, file));
            }
            other => return Err(format!("invalid graphData value {other}")),
        }
    }
    // Manifests list graphs as unordered triples; sort for stable commits and messages.
    out.sort_by(|a, b| a.0.as_str().cmp(b.0.as_str()).then(a.1.cmp(&b.1)));
    Ok(out)
}

fn read_test(graph: &Graph, item: TermRef<'_>, manifest: &str) -> Result<Test, String> {
    let TermRef::NamedNode(id) = item else {
        return Err(format!("{manifest}: test {item} is not an IRI"));
    };
    let subject: NamedOrBlankNodeRef<'_> = id.into();
    let type_iris: Vec<String> = graph
        .objects_for_subject_predicate(subject, rdf::TYPE)
        .filter_map(|t| match t {
            TermRef::NamedNode(n) => Some(n.as_str().to_owned()),
            _ => None,
        })
        .collect();
    let kind = type_iris
        .iter()
        .find_map(|t| TestKind::from_type(t))
        .unwrap_or(TestKind::Other);
    let name = match graph.object_for_subject_predicate(subject, &mf("name")) {
        Some(TermRef::Literal(l)) => Some(l.value().to_owned()),
        _ => None,
    };
    let approval = [
        NamedNode::new_unchecked(format!("{DAWGT}approval")),
        NamedNode::new_unchecked(format!("{RDFT}approval")),
    ]
    .iter()
    .find_map(|p| iri_object(graph, subject, p));

    let mut test = Test {
        id: id.as_str().to_owned(),
        kind,
        type_iris,
        name,
        action: None,
        query: None,
        data: None,
        graph_data: Vec::new(),
        result: None,
        result_data: None,
        result_graph_data: Vec::new(),
        has_service_data: false,
        approval,
    };

    match graph.object_for_subject_predicate(subject, &mf("action")) {
        Some(TermRef::NamedNode(n)) => test.action = Some(n.as_str().to_owned()),
        Some(action) => {
            let action = as_subject(action).ok_or("mf:action is a literal")?;
            test.query = iri_object(graph, action, &qt("query"))
                .or_else(|| iri_object(graph, action, &ut("request")));
            test.data = iri_object(graph, action, &qt("data"))
                .or_else(|| iri_object(graph, action, &ut("data")));
            test.graph_data = graph_data(graph, action, &qt("graphData"))?;
            test.graph_data
                .extend(graph_data(graph, action, &ut("graphData"))?);
            test.has_service_data = graph
                .object_for_subject_predicate(action, &qt("serviceData"))
                .is_some();
        }
        None => {}
    }
    // Some update manifests type update files (`.ru`) as query syntax tests
    // (delete-insert#dawg-delete-insert-03 …): the file's grammar decides.
    if test.action.as_deref().is_some_and(|a| a.ends_with(".ru")) {
        test.kind = match test.kind {
            TestKind::PositiveQuerySyntax => TestKind::PositiveUpdateSyntax,
            TestKind::NegativeQuerySyntax => TestKind::NegativeUpdateSyntax,
            other => other,
        };
    }
    match graph.object_for_subject_predicate(subject, &mf("result")) {
        Some(TermRef::NamedNode(n)) => test.result = Some(n.as_str().to_owned()),
        Some(TermRef::BlankNode(b)) => {
            test.result_data = iri_object(graph, b.into(), &ut("data"));
            test.result_graph_data = graph_data(graph, b.into(), &ut("graphData"))?;
        }
        Some(other) => return Err(format!("{}: unexpected mf:result {other}", id)),
        None => {}
    }
    Ok(test)
}

/// A short display name: the manifest's directory and the test's fragment.
pub fn short_name(id: &str) -> String {
    let named: NamedNodeRef<'_> = NamedNodeRef::new_unchecked(id);
    let iri = named.as_str();
    match iri.rsplit_once('#') {
        Some((before, fragment)) => {
            let dir = before
                .trim_end_matches("/manifest")
                .trim_end_matches("/manifest.ttl")
                .rsplit('/')
                .next()
                .unwrap_or("");
            format!("{dir}#{fragment}")
        }
        None => iri.to_owned(),
    }
}
