//! The W3C SHACL Core test suite (`data-shapes/tests/core`), run against Strata's
//! validator (`strata::shacl`, rudof's native engine underneath).
//!
//! A test passes when `sh:conforms` matches and the results match as a multiset of
//! `(focus node, path, value, constraint component, severity, source shape)`, with every
//! blank node compared as "some blank node" (labels differ between the expected report
//! and ours). Nested `sh:detail` results are not compared, as in the suite's own runners.
//!
//! The suite is vendored in `tests/data/w3c/shacl/tests/core` (SHACL-SPARQL, which is not
//! SHACL Core, is not); a missing suite fails. Tests that fail today are listed by test
//! IRI with their reason in `KNOWN_FAILURES` (none today): any other failure fails the
//! test, and so does a listed test that passes or that the suite does not have.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use oxrdf::{Graph, NamedNode, NamedOrBlankNode, Term, TermRef, Triple};
use oxttl::TurtleParser;
use strata::shacl::{Report, Shapes, validate};

const SH: &str = "http://www.w3.org/ns/shacl#";
const MF: &str = "http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#";
const SHT: &str = "http://www.w3.org/ns/shacl-test#";
const RDF: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#";

/// Where the suite's test IRIs are published (the files name their tests relative to
/// themselves, so the runner sees `file://…/tests/core/…`).
const PUBLIC_BASE: &str = "http://datashapes.org/sh/tests/";

/// SHACL Core tests that fail today, by test IRI, with the reason: none.
const KNOWN_FAILURES: &[(&str, &str)] = &[];

/// Tests in the Core manifests (all `sht:Validate`): a runner that loses tests fails.
const CORE_TESTS: usize = 98;

/// The vendored suite (`tests/`, holding `core/`). Missing data fails the test.
fn suite_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/w3c/shacl/tests");
    assert!(
        dir.join("core/manifest.ttl").is_file(),
        "the W3C SHACL test suite is missing: {} has no core/manifest.ttl (it is vendored in \
         tests/data/w3c; see its README)",
        dir.display()
    );
    dir
}

fn file_iri(path: &Path) -> String {
    format!("file://{}", path.display())
}

fn load(path: &Path) -> Result<Graph, String> {
    let text = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let parser = TurtleParser::new()
        .with_base_iri(file_iri(path))
        .map_err(|e| e.to_string())?;
    let mut graph = Graph::new();
    for triple in parser.for_slice(&text) {
        graph.insert(&triple.map_err(|e| format!("{}: {e}", path.display()))?);
    }
    Ok(graph)
}

fn iri(s: &str) -> NamedNode {
    NamedNode::new_unchecked(s)
}

fn object(graph: &Graph, subject: &Term, predicate: &str) -> Option<Term> {
    let subject: NamedOrBlankNode = match subject {
        Term::NamedNode(n) => n.clone().into(),
        Term::BlankNode(b) => b.clone().into(),
        _ => return None,
    };
    graph
        .object_for_subject_predicate(&subject, &iri(predicate))
        .map(TermRef::into_owned)
}

fn objects(graph: &Graph, subject: &Term, predicate: &str) -> Vec<Term> {
    let subject: NamedOrBlankNode = match subject {
        Term::NamedNode(n) => n.clone().into(),
        Term::BlankNode(b) => b.clone().into(),
        _ => return Vec::new(),
    };
    graph
        .objects_for_subject_predicate(&subject, &iri(predicate))
        .map(TermRef::into_owned)
        .collect()
}

fn list(graph: &Graph, mut head: Term) -> Vec<Term> {
    let mut items = Vec::new();
    while head != Term::from(iri(&format!("{RDF}nil"))) && items.len() < 10_000 {
        let Some(first) = object(graph, &head, &format!("{RDF}first")) else {
            break;
        };
        items.push(first);
        let Some(rest) = object(graph, &head, &format!("{RDF}rest")) else {
            break;
        };
        head = rest;
    }
    items
}

/// Manifest files reachable from `manifest` through `mf:include`.
fn manifests(manifest: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    out.push(manifest.to_path_buf());
    let graph = load(manifest)?;
    let me = Term::from(iri(&file_iri(manifest)));
    for included in objects(&graph, &me, &format!("{MF}include")) {
        if let Term::NamedNode(n) = included {
            let path = PathBuf::from(n.as_str().trim_start_matches("file://"));
            manifests(&path, out)?;
        }
    }
    Ok(())
}

/// A term for comparison: blank nodes are all alike.
fn key(term: Option<&Term>) -> String {
    match term {
        None => "-".into(),
        Some(Term::BlankNode(_)) => "_:b".into(),
        Some(t) => t.to_string(),
    }
}

/// A path as Strata prints it: a predicate's bare IRI, else SPARQL path syntax.
fn path_text(graph: &Graph, path: &Term) -> String {
    match path {
        Term::NamedNode(n) => n.as_str().to_owned(),
        other => path_expr(graph, other),
    }
}

fn path_expr(graph: &Graph, path: &Term) -> String {
    if let Term::NamedNode(n) = path {
        return format!("<{}>", n.as_str());
    }
    let join = |items: Vec<Term>, sep: &str| {
        let parts: Vec<String> = items.iter().map(|i| path_expr(graph, i)).collect();
        format!("({})", parts.join(sep))
    };
    if let Some(inner) = object(graph, path, &format!("{SH}inversePath")) {
        return format!("^{}", path_expr(graph, &inner));
    }
    if let Some(l) = object(graph, path, &format!("{SH}alternativePath")) {
        return join(list(graph, l), " | ");
    }
    for (word, suffix) in [
        ("zeroOrMorePath", "*"),
        ("oneOrMorePath", "+"),
        ("zeroOrOnePath", "?"),
    ] {
        if let Some(inner) = object(graph, path, &format!("{SH}{word}")) {
            return format!("{}{suffix}", path_expr(graph, &inner));
        }
    }
    join(list(graph, path.clone()), " / ")
}

type ResultKey = (String, String, String, String, String, String);

fn expected_results(graph: &Graph, report: &Term) -> Vec<ResultKey> {
    let mut out: Vec<ResultKey> = objects(graph, report, &format!("{SH}result"))
        .iter()
        .map(|r| {
            let get = |p: &str| object(graph, r, &format!("{SH}{p}"));
            (
                key(get("focusNode").as_ref()),
                get("resultPath")
                    .map(|p| path_text(graph, &p))
                    .unwrap_or_else(|| "-".into()),
                key(get("value").as_ref()),
                key(get("sourceConstraintComponent").as_ref()),
                key(get("resultSeverity").as_ref()),
                key(get("sourceShape").as_ref()),
            )
        })
        .collect();
    out.sort();
    out
}

fn actual_results(report: &Report) -> Vec<ResultKey> {
    let mut out: Vec<ResultKey> = report
        .results
        .iter()
        .map(|r| {
            (
                key(Some(&r.focus_node)),
                r.path.clone().unwrap_or_else(|| "-".into()),
                key(r.value.as_ref()),
                format!("<{}>", r.constraint),
                format!("<{}>", r.severity.iri()),
                key(r.source_shape.as_ref()),
            )
        })
        .collect();
    out.sort();
    out
}

fn triples(graph: &Graph) -> Vec<Triple> {
    graph.iter().map(|t| t.into_owned()).collect()
}

fn graph_of(iri_term: &Term, manifest_graph: &Graph, manifest_iri: &str) -> Result<Graph, String> {
    match iri_term {
        Term::NamedNode(n) if n.as_str() == manifest_iri => Ok(manifest_graph.clone()),
        Term::NamedNode(n) => load(Path::new(n.as_str().trim_start_matches("file://"))),
        other => Err(format!("unexpected graph reference {other}")),
    }
}

/// Runs one `sht:Validate` entry: `Ok(None)` passed, `Ok(Some(why))` failed.
fn run_entry(graph: &Graph, manifest_iri: &str, entry: &Term) -> Result<Option<String>, String> {
    let action = object(graph, entry, &format!("{MF}action")).ok_or("no mf:action")?;
    let data_ref = object(graph, &action, &format!("{SHT}dataGraph")).ok_or("no data graph")?;
    let shapes_ref =
        object(graph, &action, &format!("{SHT}shapesGraph")).ok_or("no shapes graph")?;
    let data = graph_of(&data_ref, graph, manifest_iri)?;
    let shapes_graph = graph_of(&shapes_ref, graph, manifest_iri)?;
    let expected = object(graph, entry, &format!("{MF}result")).ok_or("no mf:result")?;
    let expected_conforms = object(graph, &expected, &format!("{SH}conforms"))
        .is_some_and(|c| matches!(&c, Term::Literal(l) if l.value() == "true"));

    let shapes = match Shapes::from_triples(triples(&shapes_graph)) {
        Ok(shapes) => shapes,
        Err(e) => return Ok(Some(format!("shapes rejected: {e}"))),
    };
    let report = match validate(&shapes, data.iter()) {
        Ok(report) => report,
        Err(e) => return Ok(Some(format!("validation error: {e}"))),
    };
    if report.conforms != expected_conforms {
        return Ok(Some(format!(
            "conforms {} (expected {expected_conforms}), {} results",
            report.conforms,
            report.results.len()
        )));
    }
    let want = expected_results(graph, &expected);
    let got = actual_results(&report);
    if want != got {
        let missing: Vec<_> = want.iter().filter(|w| !got.contains(w)).collect();
        let extra: Vec<_> = got.iter().filter(|g| !want.contains(g)).collect();
        return Ok(Some(format!(
            "results differ: {} expected, {} reported; missing {missing:?}; unexpected {extra:?}",
            want.len(),
            got.len()
        )));
    }
    Ok(None)
}

#[test]
fn w3c_shacl_core() {
    let dir = suite_dir();
    let mut files = Vec::new();
    manifests(&dir.join("core/manifest.ttl"), &mut files).expect("the suite's manifests parse");
    let (mut passed, mut failed) = (Vec::new(), Vec::new());
    let mut seen = BTreeSet::new();
    let only = std::env::var("W3C_FILTER").ok().filter(|f| !f.is_empty());
    for file in &files {
        let graph = load(file).expect("test file parses");
        let manifest_iri = file_iri(file);
        let me = Term::from(iri(&manifest_iri));
        let entries: Vec<Term> = objects(&graph, &me, &format!("{MF}entries"))
            .into_iter()
            .flat_map(|l| list(&graph, l))
            .collect();
        for entry in entries {
            let name = match &entry {
                Term::NamedNode(n) => format!(
                    "{PUBLIC_BASE}{}",
                    n.as_str()
                        .trim_start_matches(&format!("file://{}/", dir.display()))
                ),
                other => other.to_string(),
            };
            if !seen.insert(name.clone()) || only.as_ref().is_some_and(|f| !name.contains(f)) {
                continue;
            }
            let types = objects(&graph, &entry, &format!("{RDF}type"));
            if !types.contains(&Term::from(iri(&format!("{SHT}Validate")))) {
                failed.push((name, format!("not a sht:Validate test: {types:?}")));
                continue;
            }
            match run_entry(&graph, &manifest_iri, &entry) {
                Ok(None) => passed.push(name),
                Ok(Some(why)) => failed.push((name, why)),
                Err(e) => failed.push((name, format!("unreadable test: {e}"))),
            }
        }
    }
    println!(
        "W3C SHACL Core: {} passed, {} failed",
        passed.len(),
        failed.len()
    );
    let known = |name: &str| KNOWN_FAILURES.iter().find(|(iri, _)| *iri == name);
    let mut problems = Vec::new();
    for (name, why) in &failed {
        match known(name) {
            Some((_, reason)) => println!("  FAIL {name}: {why} [known: {reason}]"),
            None => {
                println!("  FAIL {name}: {why}");
                problems.push(format!("new failure <{name}>: {why}"));
            }
        }
    }
    for name in &passed {
        if known(name).is_some() {
            problems.push(format!(
                "listed as a known failure but passes: <{name}>; remove it from KNOWN_FAILURES"
            ));
        }
    }
    if only.is_none() {
        for (iri, _) in KNOWN_FAILURES {
            if !seen.contains(*iri) {
                problems.push(format!("listed test <{iri}> is not in the suite"));
            }
        }
        if seen.len() != CORE_TESTS {
            problems.push(format!(
                "the manifests list {} tests, {CORE_TESTS} expected",
                seen.len()
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "W3C SHACL Core: {} problem(s):\n  {}",
        problems.len(),
        problems.join("\n  ")
    );
}
