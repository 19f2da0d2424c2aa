//! `strata validate`: SHACL for CI. Data files (no data directory needed) or a graph, at
//! any commit, against shapes files or the graph's published shapes.
//!
//! Exit codes: 0 when the data conforms or in warn mode; 1 when a `sh:Violation` is found
//! in reject mode; 2 when the input cannot be used (unreadable or invalid files, bad
//! shapes, unknown graph or commit).

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufReader, Read, Write};
use std::path::Path;
use std::process::ExitCode;

use super::args::{Cli, ValidateArgs};
use crate::engine::{Engine, EngineConfig, ImportFormat, ImportOptions, parse_triples};
use crate::error::ApiError;
use crate::model::{Term, Triple};
use crate::report::{report_json, report_junit, report_text, summary_line};
use crate::shacl::{Report, Shapes, validate};

const USAGE_ERROR: u8 = 2;

pub fn run(cli: &Cli, args: &ValidateArgs) -> ExitCode {
    match validate_and_report(cli, args) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("{error}");
            ExitCode::from(USAGE_ERROR)
        }
    }
}

/// What was validated, for the report.
struct Validated {
    report: Report,
    /// The file (or graph) each focus node is described in.
    sources: HashMap<Term, String>,
    default_source: String,
    shape_names: Vec<String>,
}

fn validate_and_report(cli: &Cli, args: &ValidateArgs) -> Result<ExitCode, ApiError> {
    let validated = if args.data.is_empty() {
        validate_graph(cli, args)?
    } else {
        validate_files(args)?
    };
    let report = &validated.report;
    let output = match args.format.as_str() {
        "json" => {
            let mut value = report_json(report, 0, usize::MAX);
            value["mode"] = args.mode.clone().into();
            value["source"] = validated.default_source.clone().into();
            format!(
                "{}\n",
                serde_json::to_string_pretty(&value).unwrap_or_default()
            )
        }
        "junit" => report_junit(report, &validated.default_source, &validated.shape_names),
        _ => report_text(report, &|focus| {
            validated
                .sources
                .get(focus)
                .cloned()
                .unwrap_or_else(|| validated.default_source.clone())
        }),
    };
    match &args.output {
        Some(path) => {
            std::fs::write(path, output).map_err(|e| {
                ApiError::invalid_argument("--output", format!("{}: {e}", path.display()))
            })?;
            // The file holds the report; the terminal still gets the verdict.
            eprintln!("{}", summary_line(report));
        }
        None => {
            let mut stdout = std::io::stdout().lock();
            // A closed pipe (`| head`) is not an error of the validation.
            let _ = stdout.write_all(output.as_bytes());
        }
    }
    let fails = args.mode == "reject" && report.has_violations();
    Ok(if fails {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The triples of one file. Blank node labels belong to their document: from the second
/// file on (`own_blank_nodes`), each file's are renamed apart, so `_:b0` of two files is
/// two nodes, as when the files are imported.
fn read_file(
    path: &Path,
    param: &str,
    own_blank_nodes: bool,
) -> Result<(Vec<Triple>, String), ApiError> {
    let name = path.display().to_string();
    let (format, compression) = ImportFormat::from_path(path).ok_or_else(|| {
        ApiError::invalid_argument(
            param,
            format!(
                "{name}: unknown extension; use .ttl, .nt, .nq, .trig, .rdf (optionally .gz or .zst)"
            ),
        )
    })?;
    let file =
        File::open(path).map_err(|e| ApiError::invalid_argument(param, format!("{name}: {e}")))?;
    let reader: Box<dyn Read> = Box::new(BufReader::new(compression.reader(file)));
    let options = ImportOptions {
        format,
        base_iri: Some(format!(
            "file://{}",
            std::fs::canonicalize(path)
                .unwrap_or(path.to_path_buf())
                .display()
        )),
        into_graph: None,
        one_graph: false,
        source_name: name.clone(),
    };
    let mut fresh = HashMap::new();
    let triples = parse_triples(reader, &options, own_blank_nodes.then_some(&mut fresh))
        .map_err(|e| ApiError::from(e).with_param(param))?;
    Ok((triples, name))
}

fn load_shapes(args: &ValidateArgs) -> Result<Option<Shapes>, ApiError> {
    if args.shapes.is_empty() {
        return Ok(None);
    }
    let mut triples = Vec::new();
    for (idx, path) in args.shapes.iter().enumerate() {
        triples.extend(read_file(path, "--shapes", idx > 0)?.0);
    }
    let shapes = Shapes::from_triples(triples)
        .map_err(|e| ApiError::from(crate::engine::EngineError::from(e)).with_param("--shapes"))?;
    // No shapes checks nothing: a CI gate would pass anything (e.g. with --shapes and
    // --data swapped).
    if shapes.shape_count == 0 {
        return Err(ApiError::invalid_argument(
            "--shapes",
            "the --shapes files define no shapes (no sh:NodeShape or sh:PropertyShape, no targets): nothing would be checked",
        ));
    }
    Ok(Some(shapes))
}

fn shape_names(shapes: &Shapes) -> Vec<String> {
    let sh = "http://www.w3.org/ns/shacl#";
    let mut names: Vec<String> = shapes
        .triples
        .iter()
        .filter(|t| {
            t.predicate.as_str() == format!("{sh}targetClass")
                || t.predicate.as_str() == format!("{sh}targetNode")
                || t.predicate.as_str() == format!("{sh}targetSubjectsOf")
                || t.predicate.as_str() == format!("{sh}targetObjectsOf")
        })
        .map(|t| t.subject.to_string())
        .collect();
    names.sort();
    names.dedup();
    names
}

fn validate_files(args: &ValidateArgs) -> Result<Validated, ApiError> {
    let shapes = load_shapes(args)?.ok_or_else(|| {
        ApiError::invalid_argument(
            "--shapes",
            "give the shapes file(s) to validate --data against",
        )
    })?;
    let mut data = Vec::new();
    let mut sources = HashMap::new();
    for (idx, path) in args.data.iter().enumerate() {
        let (triples, name) = read_file(path, "--data", idx > 0)?;
        for t in &triples {
            sources
                .entry(Term::from(t.subject.clone()))
                .or_insert_with(|| name.clone());
        }
        data.extend(triples);
    }
    let report = validate(&shapes, data.iter().map(Triple::as_ref))
        .map_err(|e| ApiError::from(crate::engine::EngineError::from(e)))?;
    let default_source = args
        .data
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ");
    Ok(Validated {
        report,
        sources,
        default_source,
        shape_names: shape_names(&shapes),
    })
}

fn validate_graph(cli: &Cli, args: &ValidateArgs) -> Result<Validated, ApiError> {
    // Validation only reads: beside a running server it opens the data directory
    // read-only, as `query` does.
    let engine = match Engine::open(cli.data_dir(), EngineConfig::default()) {
        Err(crate::engine::EngineError::DataDirLocked { .. }) => Engine::open(
            cli.data_dir(),
            EngineConfig {
                read_only: true,
                ..EngineConfig::default()
            },
        )?,
        opened => opened?,
    };
    let graph = engine.graph(&cli.graph)?;
    let reader = graph
        .reader(crate::engine::ReadAt {
            commit: args.as_of,
            moment: None,
        })
        .map_err(|e| ApiError::from(e).with_param("--as-of"))?;
    let seq = reader.seq();
    let shapes = match load_shapes(args)? {
        Some(shapes) => shapes,
        None => {
            let active = reader.shapes()?;
            let active = active.ok_or_else(|| {
                ApiError::invalid_argument(
                    "--shapes",
                    format!(
                        "graph {:?} has no published shapes at commit {seq}; give --shapes",
                        cli.graph
                    ),
                )
            })?;
            Shapes::from_triples(active.shapes.triples.clone())
                .map_err(|e| ApiError::from(crate::engine::EngineError::from(e)))?
        }
    };
    let report = reader.validate(&shapes)?;
    Ok(Validated {
        report,
        sources: HashMap::new(),
        default_source: format!("graph {}@{seq}", cli.graph),
        shape_names: shape_names(&shapes),
    })
}
