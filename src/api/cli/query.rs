//! `strata query` and `strata update`.

use std::io::Write;
use std::process::ExitCode;

use super::args::{Cli, QueryArgs, UpdateArgs};
use super::{commit_request, print_outcome, read_at, read_text_arg};
use crate::engine::Engine;
use crate::error::ApiError;
use crate::sparql::{QueryResults, ResultsFormat, UpdateOptions, write_results};

pub(super) fn run_query(
    engine: &Engine,
    cli: &Cli,
    args: &QueryArgs,
) -> Result<ExitCode, ApiError> {
    let text = read_text_arg(args.query.as_ref(), args.file.as_ref(), "query")?;
    let format = match args.format.as_deref() {
        None | Some("table") => None,
        Some(name) => Some(ResultsFormat::from_name(name).ok_or_else(|| {
            ApiError::invalid_argument(
                "--format",
                format!("unknown format {name:?}; use table, json, xml, csv, tsv, turtle, ntriples, rdfxml or jsonld"),
            )
        })?),
    };
    let options = crate::engine::ReadOptions {
        timeout: engine.config().query_timeout,
        base_iri: args.base.clone(),
        ..Default::default()
    };
    let graph = engine.graph(&cli.graph)?;
    let answer = match graph
        .reader(read_at(&args.read))
        .and_then(|reader| reader.query(&text, &options))
    {
        Err(crate::engine::EngineError::Query(
            crate::sparql::QueryError::Cancelled | crate::sparql::QueryError::Timeout(_),
        )) => {
            let limit = engine.config().query_timeout.unwrap_or_default();
            return Err(
                crate::engine::EngineError::from(crate::sparql::QueryError::Timeout(limit)).into(),
            );
        }
        other => other?,
    };
    eprintln!("served at commit {}", answer.served_at_seq);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let result = match (format, answer.results) {
        (Some(format), results) => write_results(results, format, &mut out).map(|_| ()),
        (None, QueryResults::Graph(triples)) => write_results(
            QueryResults::Graph(triples),
            ResultsFormat::Turtle,
            &mut out,
        )
        .map(|_| ()),
        (None, results) => write_table(results, &mut out),
    };
    // Whatever error the evaluator reports once a limit stopped the query, the cause is
    // the limit.
    match result.map_err(|error| answer.control.explain(error)) {
        Err(crate::sparql::QueryError::Io(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => {
            Ok(ExitCode::SUCCESS)
        }
        Err(error) => Err(crate::engine::EngineError::from(error).into()),
        Ok(()) => {
            let _ = out.flush();
            Ok(ExitCode::SUCCESS)
        }
    }
}

pub(super) fn run_update(
    engine: &Engine,
    cli: &Cli,
    args: &UpdateArgs,
) -> Result<ExitCode, ApiError> {
    let text = read_text_arg(args.update.as_ref(), args.file.as_ref(), "update")?;
    let request = commit_request(&args.commit)?;
    // Validate the text before creating anything on disk.
    crate::sparql::parse_update(&text, args.base.as_deref())
        .map_err(crate::engine::EngineError::from)?;
    let graph = engine.graph_or_create(&cli.graph)?;
    let outcome = graph.update(
        &text,
        args.base.as_deref(),
        &UpdateOptions::default(),
        &request,
    )?;
    print_outcome(&outcome);
    Ok(ExitCode::SUCCESS)
}

/// A plain text table: one header line, then one line per solution.
fn write_table(
    results: QueryResults<'static>,
    out: &mut impl Write,
) -> Result<(), crate::sparql::QueryError> {
    match results {
        QueryResults::Boolean(value) => {
            writeln!(out, "{value}")?;
        }
        QueryResults::Solutions(solutions) => {
            let variables: Vec<String> = solutions
                .variables()
                .iter()
                .map(|v| v.to_string())
                .collect();
            let mut rows: Vec<Vec<String>> = Vec::new();
            let mut widths: Vec<usize> = variables.iter().map(String::len).collect();
            for solution in solutions {
                let solution = solution.map_err(crate::sparql::evaluation_error)?;
                let row: Vec<String> = solution
                    .values()
                    .iter()
                    .map(|v| v.as_ref().map(ToString::to_string).unwrap_or_default())
                    .collect();
                for (width, cell) in widths.iter_mut().zip(&row) {
                    *width = (*width).max(cell.chars().count());
                }
                rows.push(row);
            }
            let line = |cells: &[String]| -> String {
                cells
                    .iter()
                    .zip(&widths)
                    .map(|(c, w)| format!("{c:<w$}"))
                    .collect::<Vec<_>>()
                    .join(" | ")
                    .trim_end()
                    .to_owned()
            };
            writeln!(out, "{}", line(&variables))?;
            writeln!(
                out,
                "{}",
                widths
                    .iter()
                    .map(|w| "-".repeat(*w))
                    .collect::<Vec<_>>()
                    .join("-+-")
            )?;
            for row in &rows {
                writeln!(out, "{}", line(row))?;
            }
            eprintln!(
                "{} row{}",
                rows.len(),
                if rows.len() == 1 { "" } else { "s" }
            );
        }
        QueryResults::Graph(_) => {}
    }
    Ok(())
}
