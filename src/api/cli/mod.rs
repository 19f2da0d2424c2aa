//! The `strata` command line: argument types (clap) and one function per subcommand.
//!
//! Output contract: results go to stdout, everything else (the commit served, progress,
//! errors) to stderr. Exit codes: 0 success, 1 the operation failed, 2 usage error.

mod args;
mod history;
mod import;
mod query;
mod serve;
mod validate;

pub use args::{Cli, Command};

use std::process::ExitCode;

use crate::api::error::ApiError;
use crate::engine::{Engine, EngineConfig};

/// Runs a parsed command line and returns the process exit code.
pub fn run(cli: Cli) -> ExitCode {
    match dispatch(&cli) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("{error}");
            if let Some(validation) = &error.validation {
                eprint!("{}", shacl_lines(validation));
            }
            ExitCode::from(1)
        }
    }
}

fn dispatch(cli: &Cli) -> Result<ExitCode, ApiError> {
    // clap checked it: positive and finite.
    let query_timeout = match cli.timeout_secs {
        None => EngineConfig::default().query_timeout,
        Some(secs) => Some(std::time::Duration::from_secs_f64(secs)),
    };
    if let Command::HashKey(args) = &cli.command {
        return serve::run_hash_key(args);
    }
    if let Command::Validate(args) = &cli.command {
        // Its own exit codes: 2 for unusable input (the caller's error, not a violation).
        return Ok(validate::run(cli, args));
    }
    let config = EngineConfig {
        query_timeout,
        ..EngineConfig::default()
    };
    let engine = std::sync::Arc::new(Engine::open(cli.data_dir(), config)?);
    let result = match &cli.command {
        Command::Import(args) => import::run(&engine, cli, args),
        Command::Query(args) => query::run_query(&engine, cli, args),
        Command::Update(args) => query::run_update(&engine, cli, args),
        Command::Log(args) => history::run_log(&engine, cli, args),
        Command::Diff(args) => history::run_diff(&engine, cli, args),
        Command::Verify(_) => history::run_verify(&engine, cli),
        Command::Repair(args) => history::run_repair(&engine, cli, args),
        Command::Export(args) => history::run_export(&engine, cli, args),
        Command::Graphs(_) => history::run_graphs(&engine),
        Command::Serve(args) => serve::run(&engine, cli, args),
        Command::HashKey(_) | Command::Validate(_) => Ok(ExitCode::SUCCESS),
        Command::CommitLoop(args) => serve::run_commit_loop(&engine, cli, args),
    };
    // Checkpointing on the way out makes the next start fast; it is derived data, so a
    // failure here is reported but does not change the command's outcome.
    if let Err(error) = engine.close() {
        eprintln!("warning: {}", ApiError::from(error));
    }
    result
}

/// `--as-of` / `--as-of-time` (parsed by clap) as engine read options.
fn read_options(
    read: &args::ReadArgs,
    timeout: Option<std::time::Duration>,
) -> Result<crate::engine::ReadOptions, ApiError> {
    Ok(crate::engine::ReadOptions {
        as_of: read.as_of,
        as_of_time: read.as_of_time,
        timeout,
        ..Default::default()
    })
}

/// The CLI works on a data directory its user owns (no server, no keys), so its writes
/// may change the control graphs, as an admin's may.
fn commit_request(commit: &args::CommitArgs) -> Result<crate::engine::CommitRequest, ApiError> {
    Ok(crate::engine::CommitRequest {
        admin: true,
        author: commit.author.clone(),
        message: commit.message.clone(),
        observed_at: commit.observed_at,
        idempotency_key: commit.idempotency_key.clone(),
    })
}

fn read_text_arg(
    inline: Option<&String>,
    file: Option<&std::path::PathBuf>,
    param: &str,
) -> Result<String, ApiError> {
    match (inline, file) {
        (Some(text), _) => Ok(text.clone()),
        (None, Some(path)) => std::fs::read_to_string(path).map_err(|e| {
            ApiError::invalid_argument(param, format!("cannot read {}: {e}", path.display()))
        }),
        (None, None) => Err(ApiError::invalid_argument(param, "missing")),
    }
}

fn print_outcome(outcome: &crate::engine::CommitOutcome) {
    match outcome.commit_seq {
        Some(seq) if outcome.idempotent_replay => println!(
            "commit {seq} (idempotent replay): +{} -{} quads",
            outcome.inserted, outcome.deleted
        ),
        Some(seq) => println!(
            "commit {seq}: +{} -{} quads",
            outcome.inserted, outcome.deleted
        ),
        None => println!("nothing changed (head is commit {})", outcome.head_seq),
    }
    if let Some(validation) = &outcome.validation
        && !validation.report.results.is_empty()
    {
        eprint!("{}", shacl_lines(validation));
    }
}

/// A commit's SHACL results as compiler-style lines for standard error.
fn shacl_lines(validation: &crate::engine::CommitValidation) -> String {
    let graph = format!("shacl ({})", validation.mode.name());
    crate::api::report::report_text(&validation.report, &|_| graph.clone())
}
