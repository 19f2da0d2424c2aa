//! Imports past the bulk threshold (`EngineConfig::bulk_run_quads`): committed as a
//! store file of their own, with the same answers, records and guarantees as the
//! in-memory path. The thresholds are tiny here so a few thousand quads take that path.

use std::path::Path;

use super::{CommitRequest, Engine, EngineConfig, EngineError, ImportFormat, ImportOptions};
use crate::sparql::{QueryResults, UpdateOptions};

type TestResult = Result<(), Box<dyn std::error::Error>>;

fn bulk_config() -> EngineConfig {
    EngineConfig {
        bulk_run_quads: 100,
        bulk_dict_terms: 50,
        ..EngineConfig::default()
    }
}

fn options(format: &str) -> ImportOptions {
    ImportOptions {
        format: ImportFormat::from_name(format).expect("format"),
        base_iri: None,
        into_graph: None,
        one_graph: false,
        source_name: "test".into(),
    }
}

/// 2,000 statements, 1,900 distinct (every 20th repeats an earlier one), with blank
/// nodes and literals.
fn document() -> String {
    let mut doc = String::new();
    for i in 0..2000u32 {
        let n = if i % 20 == 19 { i - 7 } else { i };
        match n % 4 {
            0 => doc += &format!("<http://e/s{}> <http://e/p{}> \"v{n}\" .\n", n / 3, n % 5),
            1 => {
                doc += &format!(
                    "<http://e/s{}> <http://e/q> <http://e/o{}> .\n",
                    n / 3,
                    n % 97
                )
            }
            2 => {
                doc += &format!(
                    "_:b{} <http://e/r> \"{n}\"^^<http://www.w3.org/2001/XMLSchema#integer> .\n",
                    n % 50
                )
            }
            _ => {
                doc += &format!(
                    "<http://e/s{}> <http://e/label> \"label {n}\"@en .\n",
                    n / 2
                )
            }
        }
    }
    doc
}

/// Every triple of the head, as sorted N-Triples-like lines (blank nodes as `_`).
fn triples(engine: &Engine) -> Result<Vec<String>, EngineError> {
    let graph = engine.graph("main")?;
    let answer = graph
        .read()
        .query("SELECT ?s ?p ?o { ?s ?p ?o }", &Default::default())?;
    let QueryResults::Solutions(solutions) = answer.results else {
        panic!("solutions expected");
    };
    let mut lines: Vec<String> = solutions
        .map(|s| {
            let s = s.expect("solution");
            let show = |v: &str| match s.get(v) {
                Some(oxrdf::Term::BlankNode(_)) => "_".to_owned(),
                Some(term) => term.to_string(),
                None => String::new(),
            };
            format!("{} {} {}", show("s"), show("p"), show("o"))
        })
        .collect();
    lines.sort();
    Ok(lines)
}

fn leftovers(graph_dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for dir in [graph_dir.to_owned(), graph_dir.join("store")] {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.ends_with(".tmp") {
                found.push(name);
            }
        }
    }
    found
}

#[test]
fn a_big_import_becomes_a_store_file_and_reads_like_a_small_one() -> TestResult {
    let doc = document();
    let small = tempfile::tempdir()?;
    let big = tempfile::tempdir()?;
    let mut answers = Vec::new();
    for (dir, config) in [(&small, EngineConfig::default()), (&big, bulk_config())] {
        let engine = Engine::open(dir.path(), config)?;
        let graph = engine.graph_or_create("main")?;
        // One quad of the document is there already: it is not inserted again.
        graph.update(
            "INSERT DATA { <http://e/s0> <http://e/p0> \"v0\" }",
            None,
            &UpdateOptions::default(),
            &CommitRequest::default(),
        )?;
        let outcome = graph.import(
            doc.as_bytes(),
            &options("ntriples"),
            &CommitRequest::default(),
        )?;
        assert_eq!(outcome.commit_seq, Some(2));
        // The bulk path leaves nothing in memory segments; the other keeps the commit
        // there until a flush.
        let (files_seq, _, in_memory) = graph.store_layout();
        if engine.config().bulk_run_quads == 100 {
            assert_eq!((files_seq, in_memory), (2, 0));
        } else {
            assert!(files_seq < 2 && in_memory > 0, "{files_seq} {in_memory}");
        }
        // 1,900 distinct statements; the blank nodes' 500 statements use 50 labels, each
        // renamed once per document, so they stay distinct; minus the one present.
        answers.push((outcome.inserted, triples(&engine)?));
        let at_one = graph
            .read_at(1)
            .query("SELECT (COUNT(*) AS ?n) { ?s ?p ?o }", &Default::default())?;
        let QueryResults::Solutions(mut rows) = at_one.results else {
            panic!("solutions expected");
        };
        let n = rows.next().expect("a row")?;
        assert_eq!(
            n.get("n").map(|t| t.to_string()),
            Some("\"1\"^^<http://www.w3.org/2001/XMLSchema#integer>".into())
        );
    }
    assert_eq!(answers[0], answers[1]);
    assert_eq!(answers[1].0, 1899);

    // The big import is a file of its own, named by the manifest at its commit.
    let engine = Engine::open(big.path(), bulk_config())?;
    let graph = engine.graph("main")?;
    let (files_seq, _, in_memory) = graph.store_layout();
    assert_eq!((files_seq, in_memory), (2, 0));
    assert_eq!(graph.open_stats().replayed_commits, 0);
    assert_eq!(triples(&engine)?, answers[0].1);
    // The log record holds the commit's changes, as the in-memory path writes them.
    let changes = graph.read().changes_since(1)?;
    assert_eq!((changes.added.len(), changes.removed.len()), (1899, 0));
    assert!(leftovers(&big.path().join("graphs/main")).is_empty());
    drop(graph);
    drop(engine);
    let check = Engine::open(big.path(), bulk_config())?.verify_graph("main")?;
    assert!(check.is_healthy(), "{check:?}");
    Ok(())
}

#[test]
fn a_bad_statement_past_the_first_runs_commits_nothing_and_leaves_no_file() -> TestResult {
    let dir = tempfile::tempdir()?;
    let engine = Engine::open(dir.path(), bulk_config())?;
    let graph = engine.graph_or_create("main")?;
    let mut doc = document();
    doc += "<http://e/broken> <http://e/p> .\n";
    let error = graph
        .import(
            doc.as_bytes(),
            &options("ntriples"),
            &CommitRequest::default(),
        )
        .expect_err("a syntax error");
    assert!(
        matches!(
            error,
            EngineError::RdfSyntax {
                position: Some((2001, _)),
                ..
            }
        ),
        "{error:?}"
    );
    assert_eq!(graph.head_seq(), 0);
    assert!(leftovers(&dir.path().join("graphs/main")).is_empty());
    Ok(())
}

#[test]
fn a_retried_big_import_with_its_idempotency_key_is_a_replay() -> TestResult {
    let dir = tempfile::tempdir()?;
    let engine = Engine::open(dir.path(), bulk_config())?;
    let graph = engine.graph_or_create("main")?;
    let request = CommitRequest {
        idempotency_key: Some("load-1".into()),
        ..CommitRequest::default()
    };
    let doc = document();
    let first = graph.import(doc.as_bytes(), &options("ntriples"), &request)?;
    let again = graph.import(doc.as_bytes(), &options("ntriples"), &request)?;
    assert_eq!(first.commit_seq, Some(1));
    assert!(again.idempotent_replay && again.commit_seq == Some(1));
    assert_eq!(graph.head_seq(), 1);
    // Another document under the same key is a conflict, whichever path it takes.
    let other = graph.import(
        "<http://e/x> <http://e/y> <http://e/z> .\n".as_bytes(),
        &options("ntriples"),
        &request,
    );
    assert!(
        matches!(other, Err(EngineError::IdempotencyConflict { .. })),
        "{other:?}"
    );
    Ok(())
}

#[test]
fn a_big_import_into_a_control_graph_is_refused_like_a_small_one() -> TestResult {
    let dir = tempfile::tempdir()?;
    let engine = Engine::open(dir.path(), bulk_config())?;
    let graph = engine.graph_or_create("main")?;
    let mut options = options("ntriples");
    options.into_graph = Some(crate::model::NamedNode::new_unchecked(
        crate::shacl::SHAPES_GRAPH,
    ));
    let refused = graph.import(document().as_bytes(), &options, &CommitRequest::default());
    assert!(
        matches!(refused, Err(EngineError::ControlGraphRefused { .. })),
        "{refused:?}"
    );
    assert_eq!(graph.head_seq(), 0);
    Ok(())
}

#[test]
fn a_big_import_after_commits_in_memory_flushes_them_first() -> TestResult {
    let dir = tempfile::tempdir()?;
    {
        let engine = Engine::open(dir.path(), bulk_config())?;
        let graph = engine.graph_or_create("main")?;
        for i in 0..3 {
            graph.update(
                &format!("INSERT DATA {{ <http://e/k{i}> <http://e/p> {i} }}"),
                None,
                &UpdateOptions::default(),
                &CommitRequest::default(),
            )?;
        }
        graph.import(
            document().as_bytes(),
            &options("ntriples"),
            &CommitRequest::default(),
        )?;
        graph.update(
            "DELETE DATA { <http://e/k1> <http://e/p> 1 }",
            None,
            &UpdateOptions::default(),
            &CommitRequest::default(),
        )?;
        assert_eq!(graph.head_seq(), 5);
    }
    let engine = Engine::open(dir.path(), bulk_config())?;
    let graph = engine.graph("main")?;
    assert_eq!(graph.head_seq(), 5);
    let ask = |seq, query: &str| -> Result<bool, EngineError> {
        let answer = graph.read_at(seq).query(query, &Default::default())?;
        Ok(matches!(answer.results, QueryResults::Boolean(true)))
    };
    assert!(ask(
        4,
        "ASK { <http://e/k1> <http://e/p> 1 . <http://e/s0> <http://e/p0> \"v0\" }"
    )?);
    assert!(!ask(5, "ASK { <http://e/k1> <http://e/p> 1 }")?);
    assert!(!ask(3, "ASK { <http://e/s0> <http://e/p0> \"v0\" }")?);
    assert!(ask(
        5,
        "ASK { <http://e/k2> <http://e/p> 2 . <http://e/s0> <http://e/p0> \"v0\" }"
    )?);
    Ok(())
}

#[test]
fn a_big_commit_is_replayed_through_a_file_when_the_store_files_are_gone() -> TestResult {
    let dir = tempfile::tempdir()?;
    let expected = {
        let engine = Engine::open(dir.path(), bulk_config())?;
        let graph = engine.graph_or_create("main")?;
        for (i, doc) in ["<http://e/a> <http://e/p> 1 .\n".to_owned(), document()]
            .iter()
            .enumerate()
        {
            let format = if i == 0 { "turtle" } else { "ntriples" };
            graph.import(doc.as_bytes(), &options(format), &CommitRequest::default())?;
        }
        graph.update(
            "INSERT DATA { <http://e/z> <http://e/p> 3 }",
            None,
            &UpdateOptions::default(),
            &CommitRequest::default(),
        )?;
        triples(&engine)?
    };
    std::fs::remove_dir_all(dir.path().join("graphs/main/store"))?;

    // Commit 1 replays in memory and goes to a file first, commit 2 (2,000 statements,
    // past the 100-quad runs) streams from its record into a file of its own, commit 3
    // replays in memory.
    let engine = Engine::open(dir.path(), bulk_config())?;
    let graph = engine.graph("main")?;
    assert_eq!(graph.open_stats().replayed_commits, 3);
    let (files_seq, _, in_memory) = graph.store_layout();
    assert!(files_seq == 2 && in_memory > 0, "{files_seq} {in_memory}");
    assert_eq!(triples(&engine)?, expected);
    assert!(leftovers(&dir.path().join("graphs/main")).is_empty());
    let at_two = graph
        .read_at(2)
        .query("ASK { <http://e/z> ?p ?o }", &Default::default())?;
    assert!(matches!(at_two.results, QueryResults::Boolean(false)));
    drop(graph);
    drop(engine);
    // The same log replayed in memory (the default thresholds) reads the same.
    let engine = Engine::open(dir.path(), EngineConfig::default())?;
    assert_eq!(triples(&engine)?, expected);
    assert!(engine.verify_graph("main")?.is_healthy());
    Ok(())
}
