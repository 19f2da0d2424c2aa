//! The agent tools' JSON contract on the command line: `strata commit FILE.json`,
//! `strata configure FILE.json`, `strata query --structured/--traverse/--json FILE.json`
//! and `strata search "text"`. The files hold the same arguments as the MCP tools and
//! `POST /graphs/{g}/records|ontology|query`; the answer is the same envelope, printed as
//! JSON (its commit also on stderr). The person at the terminal approves the removals
//! they ask for, as with `strata update`.

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::args::{Cli, JsonFileArgs, QueryArgs, ReadArgs, SearchArgs};
use crate::engine::Engine;
use crate::error::{ApiError, parse_args};
use crate::query::Context;
use crate::query::envelope::Envelope;
use crate::records::WriteArgs;

/// `strata commit FILE.json` (`A`: `CommitArgs`) and `strata configure FILE.json`
/// (`ConfigureArgs`): the person at the terminal approves what they ask for.
pub(super) fn run_write<A: WriteArgs>(
    engine: &Arc<Engine>,
    cli: &Cli,
    args: &JsonFileArgs,
) -> Result<ExitCode, ApiError> {
    let object = json_file(&args.file, &cli.graph)?;
    let tool_args: A = parse_args(object)?;
    let prepared = tool_args.prepare(engine, true)?;
    let author = args.author.clone();
    print_envelope(&crate::records::commit_as_requested(prepared, author)?)
}

/// `strata query --structured|--traverse|--json FILE.json`; `None` when the query is
/// SPARQL text (the caller runs it).
pub(super) fn run_json_query(
    engine: &Arc<Engine>,
    cli: &Cli,
    args: &QueryArgs,
) -> Option<Result<ExitCode, ApiError>> {
    let (path, mode) = match (&args.structured, &args.traverse, &args.json) {
        (Some(path), _, _) => (path, Some("structured")),
        (_, Some(path), _) => (path, Some("traverse")),
        (_, _, Some(path)) => (path, None),
        _ => return None,
    };
    Some((|| {
        let object = match mode {
            // The file is the `structured` or `traverse` value itself.
            Some(mode) => {
                let body = read_json(path)?;
                let mut object = Map::new();
                object.insert("mode".into(), mode.into());
                object.insert(mode.into(), body);
                object.insert("graph".into(), cli.graph.clone().into());
                object
            }
            None => json_file(path, &cli.graph)?,
        };
        query(engine, object, &args.read)
    })())
}

/// `strata search "text"`.
pub(super) fn run_search(
    engine: &Arc<Engine>,
    cli: &Cli,
    args: &SearchArgs,
) -> Result<ExitCode, ApiError> {
    let mut object = Map::new();
    object.insert("mode".into(), "search".into());
    object.insert("graph".into(), cli.graph.clone().into());
    object.insert("text".into(), args.text.clone().into());
    if let Some(class) = &args.class {
        object.insert("class".into(), class.clone().into());
    }
    if let Some(lane) = &args.lane {
        object.insert("lane".into(), lane.clone().into());
    }
    if let Some(top_k) = args.top_k {
        object.insert("top_k".into(), top_k.into());
    }
    if let Some(filters) = &args.filters {
        let filters: Value = serde_json::from_str(filters)
            .map_err(|e| ApiError::invalid_argument("--filters", format!("not JSON: {e}")))?;
        object.insert("filters".into(), filters);
    }
    if args.strong {
        object.insert("consistency".into(), "strong".into());
    }
    if args.explain {
        object.insert("explain".into(), true.into());
    }
    query(engine, object, &args.read)
}

/// Runs the `query` tool's arguments at `--as-of`/`--as-of-time` (when given).
fn query(
    engine: &Arc<Engine>,
    mut object: Map<String, Value>,
    read: &ReadArgs,
) -> Result<ExitCode, ApiError> {
    if read.as_of.is_some() || read.as_of_time.is_some() {
        let graph_name = object
            .get("graph")
            .and_then(Value::as_str)
            .unwrap_or(crate::model::GraphName::DEFAULT)
            .to_owned();
        let seq = engine
            .graph(&graph_name)?
            .resolve_seq(read.as_of, read.as_of_time)?;
        object.insert("as_of_commit_seq".into(), json!(seq));
    }
    let tool_args = parse_args(object)?;
    let context = context(engine);
    let envelope = crate::query::run(&context, tool_args, crate::sparql::CancellationToken::new())?;
    print_envelope(&envelope)
}

/// The tools' context: the engine's query time limit (`--timeout`), the data
/// directory's cursor key (a cursor from the server pages here too).
fn context(engine: &Arc<Engine>) -> Context {
    let limit = engine
        .config()
        .query_timeout
        .unwrap_or(std::time::Duration::from_secs(u32::MAX.into()));
    Context::new(engine.clone(), limit)
}

/// The arguments in a JSON file, for graph `graph` (`--graph`): a `graph` in the file
/// must agree with it.
fn json_file(path: &Path, graph: &str) -> Result<Map<String, Value>, ApiError> {
    let Value::Object(mut object) = read_json(path)? else {
        return Err(ApiError::invalid_argument(
            "FILE",
            format!("{} holds no JSON object", path.display()),
        ));
    };
    match object.get("graph") {
        None | Some(Value::Null) => {}
        Some(Value::String(named)) if named == graph => {}
        Some(other) => {
            return Err(ApiError::invalid_argument(
                "graph",
                format!("the file names graph {other} but --graph is {graph:?}"),
            ));
        }
    }
    object.insert("graph".into(), graph.into());
    Ok(object)
}

fn read_json(path: &Path) -> Result<Value, ApiError> {
    let text = if path == Path::new("-") {
        std::io::read_to_string(std::io::stdin())
            .map_err(|e| ApiError::invalid_argument("FILE", format!("cannot read stdin: {e}")))?
    } else {
        std::fs::read_to_string(path).map_err(|e| {
            ApiError::invalid_argument("FILE", format!("cannot read {}: {e}", path.display()))
        })?
    };
    serde_json::from_str(&text).map_err(|e| {
        ApiError::invalid_argument("FILE", format!("{} is not JSON: {e}", path.display()))
    })
}

fn print_envelope(envelope: &Envelope) -> Result<ExitCode, ApiError> {
    eprintln!("served at commit {}", envelope.served_at_seq);
    let text = serde_json::to_string_pretty(envelope).unwrap_or_default();
    println!("{text}");
    Ok(ExitCode::SUCCESS)
}
