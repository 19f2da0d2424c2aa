//! The cost of SHACL on the write path: a 10-triple commit on a graph of ~1M triples with
//! 5 shapes in reject mode, next to the same commit on the same graph without shapes; and
//! the one-off whole-graph validation that publishing the shapes runs.
//!
//! Run with `cargo bench --bench shacl`. Knobs: `STRATA_BENCH_TRIPLES` (graph size,
//! default 1,000,000), `STRATA_BENCH_COMMITS` (commits measured per side, default 200),
//! `STRATA_BENCH_TMP` (where data dirs go).

#[path = "data.rs"]
mod data;

use std::time::{Duration, Instant};

use data::{print_table, thousands};
use strata::engine::{CommitRequest, Graph, ImportFormat, ImportOptions};
use strata::shacl::ValidationMode;
use strata::sparql::UpdateOptions;
use strata::{Engine, EngineConfig};

const EX: &str = "http://example.org/support/";

const SHAPES: &str = r#"@prefix ex: <http://example.org/support/> .
@prefix sh: <http://www.w3.org/ns/shacl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:TicketShape a sh:NodeShape ; sh:targetClass ex:Ticket ;
  sh:property [ sh:path rdfs:label ; sh:minCount 1 ; sh:maxCount 1 ; sh:datatype xsd:string ] ;
  sh:property [ sh:path ex:status ; sh:minCount 1 ; sh:maxCount 1 ; sh:in ( "open" "closed" ) ] ;
  sh:property [ sh:path ex:openedAt ; sh:maxCount 1 ; sh:datatype xsd:dateTime ] .
ex:BugShape a sh:NodeShape ; sh:targetClass ex:Bug ;
  sh:property [ sh:path rdfs:label ; sh:minCount 1 ; sh:datatype xsd:string ] ;
  sh:property [ sh:path ex:severity ; sh:maxCount 1 ; sh:datatype xsd:integer ; sh:minInclusive 1 ; sh:maxInclusive 4 ] .
ex:AboutShape a sh:NodeShape ; sh:targetSubjectsOf ex:about ;
  sh:property [ sh:path ex:about ; sh:class ex:Bug ; sh:maxCount 3 ] .
ex:ReportedShape a sh:NodeShape ; sh:targetObjectsOf ex:about ;
  sh:property [ sh:path [ sh:inversePath ex:about ] ; sh:class ex:Ticket ] .
ex:LabelShape a sh:NodeShape ; sh:targetSubjectsOf rdfs:label ;
  sh:property [ sh:path rdfs:label ; sh:minLength 1 ; sh:maxLength 200 ] .
"#;

/// N-Triples of a support desk: tickets (5 triples) about bugs (3 triples).
fn desk(triples: usize) -> String {
    let tickets = triples / 8;
    let mut out = String::with_capacity(triples * 90);
    let label = "<http://www.w3.org/2000/01/rdf-schema#label>";
    let a = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>";
    for i in 0..tickets {
        out.push_str(&format!(
            "<{EX}bug{i}> {a} <{EX}Bug> .\n<{EX}bug{i}> {label} \"bug {i}\" .\n<{EX}bug{i}> <{EX}severity> \"{}\"^^<http://www.w3.org/2001/XMLSchema#integer> .\n",
            1 + i % 4
        ));
        out.push_str(&format!(
            "<{EX}t{i}> {a} <{EX}Ticket> .\n<{EX}t{i}> {label} \"ticket {i}\" .\n<{EX}t{i}> <{EX}status> \"open\" .\n<{EX}t{i}> <{EX}about> <{EX}bug{i}> .\n<{EX}t{i}> <{EX}openedAt> \"2026-01-01T00:00:00Z\"^^<http://www.w3.org/2001/XMLSchema#dateTime> .\n"
        ));
    }
    out
}

/// A 10-triple commit: a new ticket (5 triples) about an existing bug, and a relabelled,
/// re-rated existing bug with a new ticket pointing at it (5 triples changed).
fn commit_text(i: usize, bugs: usize) -> String {
    let bug = (i * 7919) % bugs;
    format!(
        "PREFIX ex: <{EX}> PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
INSERT DATA {{
  ex:new{i} a ex:Ticket ; rdfs:label \"new {i}\" ; ex:status \"open\" ; ex:about ex:bug{bug} ;
    ex:openedAt \"2026-06-01T00:00:00Z\"^^<http://www.w3.org/2001/XMLSchema#dateTime> .
  ex:extra{i} a ex:Ticket ; rdfs:label \"extra {i}\" ; ex:status \"closed\" ; ex:about ex:bug{bug} .
  ex:bug{bug} ex:note \"seen {i}\" .
}}"
    )
}

fn load(engine: &Engine, name: &str, text: &str) -> std::sync::Arc<Graph> {
    let graph = engine.graph_or_create(name).unwrap();
    let options = ImportOptions {
        format: ImportFormat::from_name("nt").unwrap(),
        base_iri: None,
        into_graph: None,
        one_graph: false,
        source_name: "desk.nt".into(),
    };
    graph
        .import(text.as_bytes(), &options, &CommitRequest::default())
        .unwrap();
    graph
}

fn measure(graph: &Graph, commits: usize, bugs: usize, offset: usize) -> Vec<Duration> {
    let mut times = Vec::with_capacity(commits);
    for i in 0..commits {
        let text = commit_text(offset + i, bugs);
        let started = Instant::now();
        let outcome = graph
            .update(
                &text,
                None,
                &UpdateOptions::default(),
                &CommitRequest::default(),
            )
            .unwrap();
        times.push(started.elapsed());
        assert!(outcome.commit_seq.is_some());
    }
    times.sort();
    times
}

fn ms(d: Duration) -> String {
    format!("{:.2}", d.as_secs_f64() * 1000.0)
}

fn main() {
    let triples: usize = std::env::var("STRATA_BENCH_TRIPLES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    let commits: usize = std::env::var("STRATA_BENCH_COMMITS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let tmp = std::env::var("STRATA_BENCH_TMP")
        .unwrap_or_else(|_| std::env::temp_dir().display().to_string());
    let dir = tempfile::tempdir_in(tmp).unwrap();
    let engine = Engine::open(dir.path(), EngineConfig::default()).unwrap();
    let text = desk(triples);
    let bugs = triples / 8;
    println!(
        "graph: {} triples, {commits} commits of 10 triples per side",
        thousands(bugs as u64 * 8)
    );

    let plain = load(&engine, "plain", &text);
    let checked = load(&engine, "checked", &text);
    let shapes: Vec<oxrdf::Triple> = oxttl::TurtleParser::new()
        .for_slice(SHAPES.as_bytes())
        .map(Result::unwrap)
        .collect();
    let started = Instant::now();
    let published = checked
        .publish_shapes(shapes, ValidationMode::Reject, &CommitRequest::by_admin())
        .unwrap();
    let publish_time = started.elapsed();
    let report = &published.validation.as_ref().unwrap().report;
    assert!(
        report.conforms,
        "the generated desk conforms: {:?}",
        report.results.first()
    );

    // Warm up both sides, then alternate so machine noise hits both alike.
    measure(&plain, 5, bugs, 1_000_000);
    measure(&checked, 5, bugs, 1_000_000);
    let mut plain_times = Vec::new();
    let mut checked_times = Vec::new();
    for round in 0..4 {
        plain_times.extend(measure(&plain, commits / 4, bugs, round * commits));
        checked_times.extend(measure(&checked, commits / 4, bugs, round * commits));
    }
    plain_times.sort();
    checked_times.sort();
    let mean = |t: &[Duration]| t.iter().sum::<Duration>() / t.len() as u32;
    let p = |t: &[Duration], q: f64| t[((t.len() - 1) as f64 * q) as usize];
    let rows = vec![
        vec![
            "commit, no shapes".to_owned(),
            ms(mean(&plain_times)),
            ms(p(&plain_times, 0.5)),
            ms(p(&plain_times, 0.99)),
        ],
        vec![
            "commit, 5 shapes (reject)".to_owned(),
            ms(mean(&checked_times)),
            ms(p(&checked_times, 0.5)),
            ms(p(&checked_times, 0.99)),
        ],
    ];
    print_table(&["", "mean ms", "p50 ms", "p99 ms"], &rows);
    println!(
        "validated / unvalidated commit time: mean {:.2}×, p50 {:.2}×",
        mean(&checked_times).as_secs_f64() / mean(&plain_times).as_secs_f64(),
        p(&checked_times, 0.5).as_secs_f64() / p(&plain_times, 0.5).as_secs_f64()
    );
    println!(
        "publishing the shapes (whole-graph validation of {} triples): {:.2} s",
        thousands(bugs as u64 * 8),
        publish_time.as_secs_f64()
    );
}
