//! Fuzz tests: a bounded number of generated inputs of every kind a stranger controls
//! (SPARQL query and update text, Turtle/TriG, MCP tool arguments, cursors, HTTP
//! requests), run against the real engine, HTTP router and MCP server in-process.
//!
//! Properties (see `targets.rs`): no panic on any thread, every error coded, nothing
//! committed on error, an answer within a minute; at the end the data directory reopens
//! with every graph at the same head. Failures are shrunk by proptest, printed, and
//! written to `target/fuzz-findings/`. A stack overflow aborts the process (it cannot be
//! caught): the long-running fuzzer runs its cases in a child process for that reason.
//!
//! The runs are deterministic (a fixed seed per kind). `PROPTEST_RNG_SEED=<n>` picks
//! another seed, `STRATA_FUZZ_SCALE=<x>` multiplies the number of cases;
//! `STRATA_FUZZ_VERBOSE=1` (with `--nocapture`) prints how the cases ended (accepted, or
//! which code refused them: what the generators reach), `STRATA_FUZZ_TRACE=1` every
//! refused MCP and HTTP call with its message. Nested
//! constructs stay at most `MAX_DEPTH` deep here; the long-running fuzzer
//! (`cargo run --release --example fuzz -- --minutes 60`) goes deeper.

mod differential;
mod generators;
mod targets;

use std::cell::RefCell;
use std::time::{Duration, Instant};

use proptest::test_runner::{Config, RngSeed, TestCaseError, TestError, TestRunner};
use targets::{Harness, Kind, strategy};

/// Depth of the deliberately deep nestings in this bounded run. Text deeper than the
/// nesting limit is refused before parsing (`query_too_complex`), and everything that
/// parses or evaluates SPARQL runs on a thread with `QUERY_STACK_BYTES`, so depth costs
/// only time here; the long-running fuzzer goes deeper (300 by default).
const MAX_DEPTH: usize = 50;
/// A run stops taking new cases after this long (slow machines): it says so.
const TIME_CAP: Duration = Duration::from_secs(90);

fn findings_dir() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/fuzz-findings")
}

/// Runs a kind's cases on a thread with the stack every SPARQL thread of the product has
/// (the CLI's main work thread, the server's runtime and blocking threads).
fn fuzz(kind: Kind, cases: u32) {
    let outcome = std::thread::Builder::new()
        .name(format!("fuzz_{}", kind.name()))
        .stack_size(strata::sparql::limits::QUERY_STACK_BYTES)
        .spawn(move || fuzz_here(kind, cases))
        .expect("spawn the fuzz thread")
        .join();
    if let Err(panic) = outcome {
        std::panic::resume_unwind(panic);
    }
}

fn fuzz_here(kind: Kind, cases: u32) {
    let scale: f64 = std::env::var("STRATA_FUZZ_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1.0);
    let cases = ((f64::from(cases) * scale).round() as u32).max(1);
    let seed = std::env::var("PROPTEST_RNG_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5715_a7a0 + kind as u64);
    let harness = RefCell::new(Harness::new(kind.name()).expect("the fuzz harness starts"));
    let config = Config {
        cases,
        failure_persistence: None,
        max_shrink_iters: 400,
        max_shrink_time: 60_000,
        rng_seed: RngSeed::Fixed(seed),
        ..Config::default()
    };
    let mut runner = TestRunner::new(config);
    let strategy = strategy(kind, MAX_DEPTH);
    let started = Instant::now();
    let skipped = std::cell::Cell::new(0u32);
    let result = runner.run(&strategy, |input| {
        if started.elapsed() > TIME_CAP {
            skipped.set(skipped.get() + 1);
            return Ok(());
        }
        harness.borrow_mut().check(&input).map_err(|problem| {
            TestCaseError::fail(format!("{problem}\n--- input ---\n{}", input.render()))
        })
    });
    let elapsed = started.elapsed();
    let mut harness = harness.into_inner();
    let ran = harness.cases;
    println!(
        "fuzz {}: {ran} cases in {elapsed:.1?} ({:.0} cases/s), {} refused with a coded error, seed {seed}, {} requests not buildable, {} not run (time cap)",
        kind.name(),
        ran as f64 / elapsed.as_secs_f64(),
        harness.refused,
        harness.unsendable,
        skipped.get()
    );
    if std::env::var_os("STRATA_FUZZ_VERBOSE").is_some() {
        let mut outcomes: Vec<(String, u64)> = harness.outcomes.take().into_iter().collect();
        outcomes.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
        for (outcome, n) in outcomes.iter().take(40) {
            println!("  {n:6} {outcome}");
        }
    }
    match result {
        Ok(()) => {}
        Err(TestError::Fail(reason, input)) => {
            let dir = findings_dir();
            let _ = std::fs::create_dir_all(&dir);
            let file = dir.join(format!("test-{}-seed{seed}.txt", kind.name()));
            let _ = std::fs::write(&file, format!("{reason}\n\n{}\n", input.render()));
            panic!(
                "fuzz {}: a property failed (seed {seed}; written to {}):\n{reason}",
                kind.name(),
                file.display()
            );
        }
        Err(TestError::Abort(reason)) => panic!("fuzz {}: aborted: {reason}", kind.name()),
    }
    harness
        .reopen()
        .unwrap_or_else(|e| panic!("fuzz {}: {e}", kind.name()));
}

#[test]
fn fuzz_sparql_query() {
    fuzz(Kind::Query, 6000);
}

#[test]
fn fuzz_sparql_update() {
    fuzz(Kind::Update, 5000);
}

#[test]
fn fuzz_turtle_trig() {
    fuzz(Kind::Rdf, 5000);
}

#[test]
fn fuzz_mcp_arguments() {
    fuzz(Kind::Mcp, 4000);
}

#[test]
fn fuzz_cursor() {
    fuzz(Kind::Cursor, 10000);
}

#[test]
fn fuzz_http_request() {
    fuzz(Kind::Http, 5000);
}

/// Structured queries and traversals answered by Strata and, for an independently
/// written SPARQL query over a reference graph, by oxigraph (`differential.rs`).
#[test]
fn fuzz_json_differential() {
    fuzz(Kind::Differential, 1000);
}

/// The generators' own checks: corpus present, mutations keep UTF-8, depth respected.
mod self_check {
    use proptest::strategy::{Strategy, ValueTree};
    use proptest::test_runner::TestRunner;

    use crate::generators;

    #[test]
    fn fuzz_corpus_is_vendored_and_large_enough() {
        let corpus = generators::corpus();
        assert!(
            corpus.queries.len() > 200,
            "{} queries",
            corpus.queries.len()
        );
        assert!(
            corpus.updates.len() > 100,
            "{} updates",
            corpus.updates.len()
        );
        assert!(
            corpus.turtle.len() > 200,
            "{} Turtle files",
            corpus.turtle.len()
        );
    }

    #[test]
    fn fuzz_deep_queries_stay_within_the_depth() {
        let mut runner = TestRunner::deterministic();
        let strategy = generators::deep_query(7);
        for _ in 0..200 {
            let query = strategy.new_tree(&mut runner).unwrap().current();
            let opening = query.matches("((").count() + query.matches("{ {").count();
            assert!(opening <= 8, "{query}");
        }
    }

    #[test]
    fn fuzz_grammar_queries_mostly_parse() {
        // A generator that only makes syntax errors would test the parser's error path
        // alone: most grammar-built queries must parse.
        let mut runner = TestRunner::deterministic();
        let strategy = generators::grammar_query(3);
        let total = 300;
        let parsed = (0..total)
            .filter(|_| {
                let query = strategy.new_tree(&mut runner).unwrap().current();
                strata::sparql::parse_query(&query, Some("http://example/")).is_ok()
            })
            .count();
        assert!(
            parsed * 3 >= total,
            "only {parsed} of {total} generated queries parse"
        );
    }
}

/// Findings of the fuzzer, kept as plain tests.
mod regressions {
    use crate::targets::{Harness, Input};

    /// Declaring an index again under the same name with another recipe made the next
    /// `list` fail with `internal` (tantivy's writer lock still held by the old index).
    #[test]
    fn fuzz_found_redeclaring_an_index_under_its_name() {
        let mut harness = Harness::new("regression-redeclare").unwrap();
        let label = "http://www.w3.org/2000/01/rdf-schema#label";
        for args in [
            serde_json::json!({"action": "declare", "class": "http://example/A", "from": [label], "name": "t"}),
            serde_json::json!({"action": "list"}),
            serde_json::json!({"action": "declare", "class": "http://example/B", "from": [label], "name": "t"}),
            serde_json::json!({"action": "list"}),
            serde_json::json!({"action": "get", "name": "t"}),
        ] {
            let input = Input::Mcp("embeddings".into(), args);
            harness
                .check(&input)
                .unwrap_or_else(|e| panic!("{e}\n{}", input.render()));
        }
    }

    use std::sync::Arc;

    use axum::body::Body;
    use axum::http::{Request, StatusCode};
    use strata::api::http::{AppState, HttpConfig};
    use strata::engine::{CommitRequest, ReadOptions};
    use strata::sparql::{QueryError, ResultsFormat, UpdateOptions, write_results};
    use strata::{Engine, EngineConfig};
    use tower::ServiceExt;

    fn engine_with_a_triple_term() -> (tempfile::TempDir, Arc<Engine>) {
        let dir = tempfile::tempdir().unwrap();
        let engine = Arc::new(Engine::open(dir.path(), EngineConfig::default()).unwrap());
        engine
            .graph_or_create("main")
            .unwrap()
            .update(
                "INSERT DATA { <http://e/s> <http://e/p> <<( <http://e/a> <http://e/b> <http://e/c> )>> }",
                None,
                &UpdateOptions::default(),
                &CommitRequest::default(),
            )
            .unwrap();
        (dir, engine)
    }

    /// A CONSTRUCT whose triples a format cannot hold (a triple term in JSON-LD) is
    /// `unsupported`, not an uncoded write failure.
    #[test]
    fn fuzz_found_triple_terms_in_json_ld_are_unsupported() {
        let (_dir, engine) = engine_with_a_triple_term();
        let answer = engine
            .graph("main")
            .unwrap()
            .read()
            .query("CONSTRUCT WHERE { ?s ?p ?o }", &ReadOptions::default())
            .unwrap();
        let error =
            write_results(answer.results, ResultsFormat::JsonLd, std::io::sink()).unwrap_err();
        assert!(matches!(error, QueryError::Unsupported(_)), "{error:?}");
    }

    async fn call(engine: Arc<Engine>, uri: &str, accept: &str) -> (StatusCode, serde_json::Value) {
        let state = AppState::new(
            engine,
            HttpConfig::default(),
            "127.0.0.1:7878".parse().unwrap(),
        );
        let response = strata::api::http::router(state)
            .oneshot(
                Request::get(uri)
                    .header("host", "127.0.0.1:7878")
                    .header("accept", accept)
                    .body(Body::empty())
                    .unwrap(),
            )
            .await
            .unwrap();
        let status = response.status();
        let body = axum::body::to_bytes(response.into_body(), 1 << 20)
            .await
            .unwrap();
        (status, serde_json::from_slice(&body).unwrap_or_default())
    }

    /// axum's own answer to a path segment that is not UTF-8 was plain text; every error
    /// has the JSON body with a code.
    #[tokio::test]
    async fn fuzz_found_non_utf8_path_segments_get_a_coded_error() {
        let (_dir, engine) = engine_with_a_triple_term();
        let (status, body) = call(
            engine.clone(),
            "/graphs/%FF%FE/sparql?query=ASK%7B%7D",
            "*/*",
        )
        .await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(body["error"]["code"], "invalid_argument", "{body}");
        let (status, body) = call(
            engine,
            "/sparql?query=CONSTRUCT%20WHERE%20%7B%3Fs%20%3Fp%20%3Fo%7D",
            "application/ld+json",
        )
        .await;
        assert_eq!(body["error"]["code"], "unsupported", "{status} {body}");
    }
}
