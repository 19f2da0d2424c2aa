//! `strata serve`. Until the HTTP server lands (issue #3) this loads the demo graph into
//! an empty graph and runs sample queries, so the README's run command shows a working
//! store: import, query at the head, update, and a pinned read of the earlier commit.

use std::process::ExitCode;

use super::args::{Cli, CommitLoopArgs, ServeArgs};
use crate::api::error::ApiError;
use crate::engine::{CommitRequest, Engine, ImportFormat, ImportOptions, ReadOptions};
use crate::sparql::{ResultsFormat, UpdateOptions, write_results};

const DEMO: &str = include_str!("../../../demo/demo.trig");

const SAMPLE_QUERY: &str = "PREFIX ex: <http://example.org/strata/demo/>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
SELECT ?incident ?severity ?service ?assignee WHERE {
  ?i a ex:Incident ; rdfs:label ?incident ; ex:severity ?severity ;
     ex:affects/rdfs:label ?service ; ex:assignedTo/rdfs:label ?assignee .
} ORDER BY ?severity";

pub(super) fn run(engine: &Engine, cli: &Cli, args: &ServeArgs) -> Result<ExitCode, ApiError> {
    let graph = engine.graph_or_create(&cli.graph)?;
    if graph.head_seq() == 0 {
        let options = ImportOptions {
            format: ImportFormat(oxrdfio::RdfFormat::TriG),
            base_iri: None,
            into_graph: None,
            source_name: "demo/demo.trig".into(),
        };
        let request = CommitRequest {
            author: Some("strata".into()),
            message: Some("load the demo graph".into()),
            ..CommitRequest::default()
        };
        let outcome = graph.import(DEMO.as_bytes(), &options, &request)?;
        println!(
            "loaded the demo graph into {:?}: {} quads at commit {}",
            cli.graph, outcome.inserted, outcome.head_seq
        );
        let close = "PREFIX ex: <http://example.org/strata/demo/>
DELETE { ?i ex:severity ?s } INSERT { ?i ex:severity 4 ; ex:status \"resolved\" }
WHERE { ?i ex:severity ?s . FILTER(?i = ex:inc1) }";
        let request = CommitRequest {
            author: Some("strata".into()),
            message: Some("resolve inc1".into()),
            ..CommitRequest::default()
        };
        let outcome = graph.update(close, None, &UpdateOptions::default(), &request)?;
        println!("resolved inc1 at commit {}", outcome.head_seq);
    }
    let head = graph.head_seq();
    for (title, as_of) in [("at the head", None), ("pinned to commit 1", Some(1))] {
        let options = ReadOptions {
            as_of: as_of.filter(|&seq| seq <= head),
            timeout: engine.config().query_timeout,
            ..ReadOptions::default()
        };
        let answer = graph.query(SAMPLE_QUERY, &options)?;
        println!(
            "\nopen incidents {title} (served at commit {}):",
            answer.served_at_seq
        );
        let mut out = Vec::new();
        write_results(answer.results, ResultsFormat::Tsv, &mut out)
            .map_err(crate::engine::EngineError::from)?;
        print!("{}", String::from_utf8_lossy(&out));
    }
    println!(
        "\nThe HTTP server (SPARQL Protocol on {}) arrives with issue #3. Meanwhile try:\n  strata query 'SELECT * WHERE {{ ?s ?p ?o }} LIMIT 5'\n  strata log\n  strata diff 1 2",
        args.http
    );
    Ok(ExitCode::SUCCESS)
}

/// Commits batches `start, start+1, …` forever; batch `i` inserts `batch` triples whose
/// subject is `<urn:strata:crash:i>`. Writers take batches round-robin.
pub(super) fn run_commit_loop(
    engine: &Engine,
    cli: &Cli,
    args: &CommitLoopArgs,
) -> Result<ExitCode, ApiError> {
    let graph = engine.graph_or_create(&cli.graph)?;
    let writers = args.writers.max(1);
    let result: Result<(), ApiError> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..writers)
            .map(|writer| {
                let graph = graph.clone();
                scope.spawn(move || -> Result<(), ApiError> {
                    let mut i = args.start + writer;
                    loop {
                        let mut update = String::from("INSERT DATA {\n");
                        for j in 0..args.batch {
                            update.push_str(&format!(
                                "<urn:strata:crash:{i}> <urn:strata:p{j}> \"{i}-{j}\" .\n"
                            ));
                        }
                        update.push('}');
                        let outcome = graph.update(
                            &update,
                            None,
                            &UpdateOptions::default(),
                            &CommitRequest::default(),
                        )?;
                        let seq = outcome.commit_seq.unwrap_or(outcome.head_seq);
                        // The line is written only after the commit is durable.
                        println!("ack {i} {seq}");
                        i += writers;
                    }
                })
            })
            .collect();
        for handle in handles {
            handle
                .join()
                .map_err(|_| ApiError::invalid_argument("writers", "a writer thread panicked"))??;
        }
        Ok(())
    });
    result?;
    Ok(ExitCode::SUCCESS)
}
