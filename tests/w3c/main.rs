//! W3C SPARQL 1.1 conformance: the query and update suites of `w3c/rdf-tests`, run against
//! Strata's engine from their manifests.
//!
//! Every evaluation test runs twice on a fresh data directory:
//! * **head**: load the test data as one commit `k`, run the query (or the update) and
//!   compare with the expected answer;
//! * **pinned**: then commit changes that delete everything and add unrelated quads, and
//!   run the same query `as_of` commit `k` (for updates: export the dataset as of the
//!   update's commit); the answer must not change.
//!
//! Syntax tests check that the parser accepts (positive) or rejects (negative) the file.
//!
//! The suites are vendored in `tests/data/w3c` (see its README); a missing suite fails.
//! Tests that fail today are listed by test IRI, each with its reason, in
//! `QUERY_KNOWN_FAILURES` / `UPDATE_KNOWN_FAILURES`: any other failure fails the suite,
//! and so does a listed test that passes (remove it from the list) or that the suite no
//! longer has. Nothing is skipped unless `QUERY_SKIPPED` / `UPDATE_SKIPPED` names it.
//!
//! Environment knobs for debugging: `W3C_FILTER=<substring of test IRI>` runs only
//! matching tests (test IRIs as printed),
//! `W3C_VERBOSE=1` prints full diffs of failures.

mod manifest;
mod results;
mod runner;
mod shacl;

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::Instant;

use manifest::{Test, TestKind, load_manifests, path_to_iri, short_name};
use runner::{Outcome, TestOutcome, run_query_test, run_syntax_test, run_update_test};

/// Tests are listed and reported by the IRIs their manifests give them
/// (`http://www.w3.org/2009/sparql/docs/tests/data-sparql11/…`); a test named relative to
/// its manifest would get the local `file://` path of the vendored copy, so such IRIs are
/// reported under the suite's published location instead.
const PUBLIC_BASE: &str = "https://w3c.github.io/rdf-tests/";

/// Tests that cannot apply to Strata, by test IRI, with the reason (query and update
/// suites).
///
/// The SPARQL 1.1 query and update manifests hold no SERVICE, entailment or network test
/// (those live in `manifest-sparql11-fed.ttl`, `entailment/`, `protocol/`), so the lists
/// are empty today. A test that needs SERVICE or an entailment regime, or is not approved,
/// fails until it is listed here.
const QUERY_SKIPPED: &[(&str, &str)] = &[];
const UPDATE_SKIPPED: &[(&str, &str)] = &[];

/// Update tests that fail today (see `QUERY_KNOWN_FAILURES`): none.
const UPDATE_KNOWN_FAILURES: &[(&str, &str)] = &[];

/// Query tests that fail today, by test IRI, with the reason. Each must fail at the head
/// and, for evaluation tests, pinned as well; a listed test that passes fails the suite,
/// so the list stays true.
///
/// All ten come from the SPARQL evaluator Strata uses (spareval 0.2.9); Oxigraph 0.5.13
/// gives the same answers. Nine are Oxigraph's own reference failures; `bnode01` passes
/// Oxigraph's runner only because it matches blank nodes one solution at a time, where
/// the suite wants one bijection over the result.
const QUERY_KNOWN_FAILURES: &[(&str, &str)] = &[
    (
        "http://www.w3.org/2009/sparql/docs/tests/data-sparql11/aggregates/manifest#agg-groupconcat-04",
        "GROUP_CONCAT of \"1\"@en \"2\"@en returns \"1 2\"@en, the test wants the simple literal \"1 2\"",
    ),
    (
        "http://www.w3.org/2009/sparql/docs/tests/data-sparql11/aggregates/manifest#agg-groupconcat-06",
        "GROUP_CONCAT of one \"1\"@en keeps the language tag, the test wants \"1\"",
    ),
    (
        "http://www.w3.org/2009/sparql/docs/tests/data-sparql11/aggregates/manifest#agg-empty-group-count-graph",
        "GRAPH ?g { SELECT (COUNT(*) AS ?c) … } gives one row without ?g instead of one row per named graph",
    ),
    (
        "http://www.w3.org/2009/sparql/docs/tests/data-sparql11/bindings/manifest#graph",
        "VALUES with UNDEF for ?g inside GRAPH ?g leaves ?g unbound instead of joining with the graph names",
    ),
    (
        "http://www.w3.org/2009/sparql/docs/tests/data-sparql11/functions/manifest#bnode01",
        "BNODE(\"x\") returns _:x, the same blank node in every solution (and a data blank node's label)",
    ),
    (
        "http://www.w3.org/2009/sparql/docs/tests/data-sparql11/negation/manifest#graph-minus",
        "MINUS inside GRAPH ?g treats ?g as shared, so the disjoint MINUS removes the row",
    ),
    (
        "http://www.w3.org/2009/sparql/docs/tests/data-sparql11/property-path/manifest#zero_or_more_set_start",
        "?s :p* :o on an empty dataset returns nothing, the zero-length path should bind ?s to :o",
    ),
    (
        "http://www.w3.org/2009/sparql/docs/tests/data-sparql11/property-path/manifest#zero_or_more_set_end",
        ":s :p* ?o on an empty dataset returns nothing, the zero-length path should bind ?o to :s",
    ),
    (
        "http://www.w3.org/2009/sparql/docs/tests/data-sparql11/property-path/manifest#zero_or_one_set_start",
        "?s :p? :o on an empty dataset returns nothing, the zero-length path should bind ?s to :o",
    ),
    (
        "http://www.w3.org/2009/sparql/docs/tests/data-sparql11/property-path/manifest#zero_or_one_set_end",
        ":s :p? ?o on an empty dataset returns nothing, the zero-length path should bind ?o to :s",
    ),
];

/// One suite: its manifest, test count and lists.
struct Suite {
    label: &'static str,
    manifest: &'static str,
    /// Tests the manifests list (the data is pinned to one rdf-tests commit, see the data
    /// README): a runner that silently loses tests fails.
    tests: usize,
    known_failures: &'static [(&'static str, &'static str)],
    skipped: &'static [(&'static str, &'static str)],
}

const QUERY_SUITE: Suite = Suite {
    label: "SPARQL 1.1 query",
    manifest: "manifest-sparql11-query.ttl",
    tests: 328,
    known_failures: QUERY_KNOWN_FAILURES,
    skipped: QUERY_SKIPPED,
};

const UPDATE_SUITE: Suite = Suite {
    label: "SPARQL 1.1 update",
    manifest: "manifest-sparql11-update.ttl",
    tests: 157,
    known_failures: UPDATE_KNOWN_FAILURES,
    skipped: UPDATE_SKIPPED,
};

/// The vendored suites.
fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/w3c")
}

/// A manifest of the SPARQL 1.1 suites. Missing data fails the test: it never skips.
fn suite_manifest(file: &str) -> PathBuf {
    let path = data_dir().join("rdf-tests/sparql/sparql11").join(file);
    assert!(
        path.is_file(),
        "the W3C SPARQL test suite is missing: {} does not exist (it is vendored in \
         tests/data/w3c; see its README)",
        path.display()
    );
    path
}

/// A test's IRI as listed: its own, or for a `file://…/rdf-tests/…` IRI the same path
/// under `PUBLIC_BASE`.
fn public_iri(id: &str) -> String {
    match id.find("/rdf-tests/") {
        Some(at) if id.starts_with("file:") => {
            format!("{PUBLIC_BASE}{}", &id[at + "/rdf-tests/".len()..])
        }
        _ => id.to_owned(),
    }
}

fn listed<'a>(list: &'a [(&str, &str)], id: &str) -> Option<&'a str> {
    let public = public_iri(id);
    list.iter()
        .find(|(iri, _)| *iri == public)
        .map(|(_, why)| *why)
}

/// Why a test cannot run here, if it cannot, and whether the suite's skip list names it
/// (a skip it does not name fails the suite).
fn skip_reason(test: &Test, skipped: &[(&str, &str)]) -> Option<(String, bool)> {
    if let Some(reason) = listed(skipped, &test.id) {
        return Some((reason.to_owned(), true));
    }
    let unlisted = |reason: String| Some((reason, false));
    if test.has_service_data {
        return unlisted("SERVICE test (needs remote endpoints)".into());
    }
    if test
        .type_iris
        .iter()
        .any(|t| t.contains("Entailment") || t.contains("entailment"))
    {
        return unlisted("entailment regimes are out of scope".into());
    }
    if let Some(approval) = &test.approval
        && (approval.ends_with("Withdrawn") || approval.ends_with("Rejected"))
    {
        return unlisted(format!("test not approved ({approval})"));
    }
    if test.kind == TestKind::QueryEvaluation
        && let Some(query) = &test.query
        && let Ok(text) = manifest::read_iri_to_string(query)
        && query_uses_service(&text)
    {
        return unlisted("query uses SERVICE (needs network)".into());
    }
    None
}

/// `(test IRI, test name, reason)`.
type Entry = (String, String, String);

/// SERVICE as a keyword: parsed, so a `:service` IRI or a string does not count.
fn query_uses_service(text: &str) -> bool {
    let upper = text.to_ascii_uppercase();
    (upper.contains("SERVICE ") || upper.contains("SERVICE<") || upper.contains("SERVICE?"))
        && strata::sparql::parse_query(text, Some("http://example/"))
            .is_ok_and(|q| format!("{q}").to_ascii_uppercase().contains("SERVICE "))
}

#[derive(Default)]
struct Tally {
    passed: Vec<String>,
    failed: Vec<Entry>,
    skipped: Vec<Entry>,
}

impl Tally {
    fn add(&mut self, test: &Test, outcome: &Outcome) {
        let entry = |reason: &String| {
            (
                test.id.clone(),
                test.name.clone().unwrap_or_default(),
                reason.clone(),
            )
        };
        match outcome {
            Outcome::Pass => self.passed.push(test.id.clone()),
            Outcome::Fail(reason) => self.failed.push(entry(reason)),
            Outcome::Skip(reason) => self.skipped.push(entry(reason)),
        }
    }

    fn line(&self) -> String {
        format!(
            "{} passed, {} failed, {} skipped",
            self.passed.len(),
            self.failed.len(),
            self.skipped.len()
        )
    }
}

struct Report {
    head: Tally,
    pinned: Tally,
    by_kind: std::collections::BTreeMap<String, usize>,
    /// Every test the manifests list, by its local IRI.
    tests: BTreeSet<String>,
    /// Skips that the suite's skip list does not name.
    unlisted_skips: Vec<Entry>,
    filtered: bool,
}

fn run_suite(suite: &Suite) -> Report {
    let label = suite.label;
    let manifest_path = suite_manifest(suite.manifest);
    let started = Instant::now();
    let manifests = load_manifests(&path_to_iri(&manifest_path))
        .unwrap_or_else(|e| panic!("cannot read the {label} manifests: {e}"));
    let filter = std::env::var("W3C_FILTER").ok().filter(|f| !f.is_empty());
    let verbose = std::env::var("W3C_VERBOSE").is_ok_and(|v| !v.is_empty() && v != "0");

    let mut report = Report {
        head: Tally::default(),
        pinned: Tally::default(),
        by_kind: Default::default(),
        tests: manifests.tests.iter().map(|t| t.id.clone()).collect(),
        unlisted_skips: Vec::new(),
        filtered: filter.is_some(),
    };
    for test in &manifests.tests {
        if filter
            .as_ref()
            .is_some_and(|f| !public_iri(&test.id).contains(f.as_str()))
        {
            continue;
        }
        *report
            .by_kind
            .entry(format!("{:?}", test.kind))
            .or_default() += 1;
        let outcome = if let Some((reason, is_listed)) = skip_reason(test, suite.skipped) {
            if !is_listed {
                report.unlisted_skips.push((
                    test.id.clone(),
                    test.name.clone().unwrap_or_default(),
                    reason.clone(),
                ));
            }
            TestOutcome {
                head: Outcome::Skip(reason.clone()),
                pinned: test.kind.is_evaluation().then_some(Outcome::Skip(reason)),
            }
        } else {
            match test.kind {
                TestKind::QueryEvaluation => run_query_test(test),
                TestKind::UpdateEvaluation => run_update_test(test),
                TestKind::PositiveQuerySyntax
                | TestKind::NegativeQuerySyntax
                | TestKind::PositiveUpdateSyntax
                | TestKind::NegativeUpdateSyntax => run_syntax_test(test),
                TestKind::Other => TestOutcome {
                    head: Outcome::Fail(format!("unknown test type {:?}", test.type_iris)),
                    pinned: None,
                },
            }
        };
        report.head.add(test, &outcome.head);
        if let Some(pinned) = &outcome.pinned {
            report.pinned.add(test, pinned);
        }
    }

    let kinds: Vec<String> = report
        .by_kind
        .iter()
        .map(|(k, n)| format!("{k} {n}"))
        .collect();
    println!(
        "\n{label}: {} tests from {} manifests ({}) in {:.1?}",
        report.by_kind.values().sum::<usize>(),
        manifests.files.len(),
        kinds.join(", "),
        started.elapsed()
    );
    println!(
        "{label}: {} (head) / {} (pinned, evaluation tests only)",
        report.head.line(),
        report.pinned.line()
    );
    for (variant, tally) in [("head", &report.head), ("pinned", &report.pinned)] {
        for (id, name, reason) in &tally.failed {
            let mut lines = reason.lines();
            let first = lines.next().unwrap_or("");
            let known = listed(suite.known_failures, id)
                .map(|why| format!(" [known: {why}]"))
                .unwrap_or_default();
            println!(
                "  FAIL ({variant}) {} {name:?} <{}>: {first}{known}",
                short_name(id),
                public_iri(id)
            );
            if verbose {
                for line in lines {
                    println!("      {line}");
                }
            }
        }
        for (id, _, reason) in &tally.skipped {
            println!("  skip ({variant}) {}: {reason}", short_name(id));
        }
    }
    report
}

/// Fails on any failure not in the suite's known failures, on a listed test that passes
/// or that the suite does not have, on a skip its skip list does not name, and on a wrong
/// test count.
fn assert_as_listed(suite: &Suite, report: &Report) {
    let label = suite.label;
    let mut problems = Vec::new();
    for (variant, tally) in [("head", &report.head), ("pinned", &report.pinned)] {
        for (id, name, reason) in &tally.failed {
            if listed(suite.known_failures, id).is_none() {
                let first = reason.lines().next().unwrap_or("");
                problems.push(format!(
                    "new failure ({variant}) <{}> {name:?}: {first}",
                    public_iri(id)
                ));
            }
        }
        for id in &tally.passed {
            if listed(suite.known_failures, id).is_some() {
                problems.push(format!(
                    "listed as a known failure but passes ({variant}): <{}>; remove it from the list",
                    public_iri(id)
                ));
            }
        }
    }
    for (id, name, reason) in &report.unlisted_skips {
        problems.push(format!(
            "skipped without being listed: <{}> {name:?}: {reason}",
            public_iri(id)
        ));
    }
    if !report.filtered {
        let in_suite: BTreeSet<String> = report.tests.iter().map(|id| public_iri(id)).collect();
        for (iri, _) in suite.known_failures.iter().chain(suite.skipped) {
            if !in_suite.contains(*iri) {
                problems.push(format!("listed test <{iri}> is not in the suite"));
            }
        }
        let total = report.by_kind.values().sum::<usize>();
        if total != suite.tests {
            problems.push(format!(
                "the manifests list {total} tests, {} expected",
                suite.tests
            ));
        }
        let head = &report.head;
        if head.passed.len() + head.failed.len() + head.skipped.len() != total {
            problems.push("some tests were not counted".to_owned());
        }
    }
    assert!(
        problems.is_empty(),
        "{label}: {} problem(s):\n  {}",
        problems.len(),
        problems.join("\n  ")
    );
}

#[test]
fn sparql11_query_w3c() {
    assert_as_listed(&QUERY_SUITE, &run_suite(&QUERY_SUITE));
}

#[test]
fn sparql11_update_w3c() {
    assert_as_listed(&UPDATE_SUITE, &run_suite(&UPDATE_SUITE));
}

/// Checks of the runner itself, without the suites: the comparison must accept what
/// the suite allows and reject the rest, and the pinned variant must be able to fail.
mod self_check {
    use oxrdf::vocab::xsd;
    use oxrdf::{BlankNode, Literal, NamedNode, Term};

    use crate::results::{Answer, Order, compare_answers};
    use crate::runner::TestStore;

    fn iri(s: &str) -> Term {
        NamedNode::new_unchecked(format!("http://example/{s}")).into()
    }

    fn bnode(s: &str) -> Term {
        BlankNode::new_unchecked(s).into()
    }

    fn typed(value: &str, datatype: oxrdf::NamedNodeRef<'_>) -> Term {
        Literal::new_typed_literal(value, datatype).into()
    }

    fn rows(rows: Vec<Vec<(&str, Term)>>) -> Answer {
        let variables: Vec<String> = rows
            .iter()
            .flatten()
            .map(|(v, _)| (*v).to_owned())
            .collect();
        Answer::from_rows(
            variables,
            rows.into_iter()
                .map(|row| row.into_iter().map(|(v, t)| (v.to_owned(), t)).collect())
                .collect::<Vec<_>>(),
        )
    }

    #[test]
    fn w3c_runner_blank_nodes_need_one_bijection_over_all_rows() {
        let expected = rows(vec![
            vec![("x", bnode("a")), ("y", bnode("a"))],
            vec![("x", bnode("b")), ("y", bnode("c"))],
        ]);
        let renamed = rows(vec![
            vec![("x", bnode("q")), ("y", bnode("r"))],
            vec![("x", bnode("s")), ("y", bnode("s"))],
        ]);
        assert!(compare_answers(&expected, &renamed, &Order::Unordered).is_ok());
        // Each row alone matches, but _:q cannot stand for both _:a and _:b.
        let shared = rows(vec![
            vec![("x", bnode("q")), ("y", bnode("q"))],
            vec![("x", bnode("q")), ("y", bnode("r"))],
        ]);
        assert!(compare_answers(&expected, &shared, &Order::Unordered).is_err());
    }

    #[test]
    fn w3c_runner_compares_numbers_by_value_within_a_datatype() {
        let expected = rows(vec![
            vec![("n", typed("1.0", xsd::DECIMAL))],
            vec![("n", typed("01", xsd::INTEGER))],
            vec![("n", typed("1.0E0", xsd::DOUBLE))],
        ]);
        let actual = rows(vec![
            vec![("n", typed("1", xsd::INTEGER))],
            vec![("n", typed("1.00", xsd::DECIMAL))],
            vec![("n", typed("1e0", xsd::DOUBLE))],
        ]);
        assert!(compare_answers(&expected, &actual, &Order::Unordered).is_ok());
        let wrong_type = rows(vec![
            vec![("n", typed("1", xsd::INTEGER))],
            vec![("n", typed("1", xsd::INTEGER))],
            vec![("n", typed("1e0", xsd::DOUBLE))],
        ]);
        assert!(compare_answers(&expected, &wrong_type, &Order::Unordered).is_err());
    }

    #[test]
    fn w3c_runner_checks_order_only_on_order_keys() {
        let one = || typed("1", xsd::INTEGER);
        let expected = rows(vec![
            vec![("k", one()), ("v", iri("a"))],
            vec![("k", one()), ("v", iri("b"))],
            vec![("k", typed("2", xsd::INTEGER)), ("v", iri("c"))],
        ]);
        let ties_swapped = rows(vec![
            vec![("k", one()), ("v", iri("b"))],
            vec![("k", one()), ("v", iri("a"))],
            vec![("k", typed("2", xsd::INTEGER)), ("v", iri("c"))],
        ]);
        let keys = Order::Keys(vec!["k".into()]);
        assert!(compare_answers(&expected, &ties_swapped, &keys).is_ok());
        assert!(compare_answers(&expected, &ties_swapped, &Order::Rows).is_err());
        let misordered = rows(vec![
            vec![("k", typed("2", xsd::INTEGER)), ("v", iri("c"))],
            vec![("k", one()), ("v", iri("a"))],
            vec![("k", one()), ("v", iri("b"))],
        ]);
        assert!(compare_answers(&expected, &misordered, &Order::Unordered).is_ok());
        assert!(compare_answers(&expected, &misordered, &keys).is_err());
    }

    #[test]
    fn w3c_runner_pinned_reads_see_the_data_commit_only() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("data.ttl");
        std::fs::write(&file, "<http://example/s> <http://example/p> 1 .\n").unwrap();
        let file_iri = crate::manifest::path_to_iri(&file);
        let graph = NamedNode::new_unchecked(file_iri.clone());
        let store = TestStore::new().unwrap();
        let k = store
            .load(&[(None, file_iri.clone()), (Some(graph.clone()), file_iri)])
            .unwrap();
        let query = "SELECT ?g ?o { { ?s <http://example/p> ?o } UNION { GRAPH ?g { ?s <http://example/p> ?o } } }";
        let before = store.query(query, "http://example/", None).unwrap();
        store.disturb(&[graph], k).unwrap();
        let pinned = store.query(query, "http://example/", Some(k)).unwrap();
        let head = store.query(query, "http://example/", None).unwrap();
        assert!(compare_answers(&before, &pinned, &Order::Unordered).is_ok());
        assert!(compare_answers(&before, &head, &Order::Unordered).is_err());
        assert_eq!(store.export(k).unwrap().len(), 2);
    }
}
