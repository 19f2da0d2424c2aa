//! The `strata` command line: argument types (clap) and one function per subcommand.
//!
//! Output contract: results go to stdout, everything else (the commit served, progress,
//! errors) to stderr. Exit codes: 0 success, 1 the operation failed, 2 usage error.

mod args;
mod history;
mod import;
mod query;
mod records;
mod serve;
mod validate;

pub use args::{Cli, Command};

use std::process::ExitCode;

use crate::engine::{Engine, EngineConfig, EngineError};
use crate::error::ApiError;

/// Runs a parsed command line and returns the process exit code. The command runs on a
/// thread whose stack holds the deepest query the limits allow
/// (`sparql::limits::QUERY_STACK_BYTES`); the server's runtime threads get the same.
pub fn run(cli: Cli) -> ExitCode {
    let spawned = std::thread::Builder::new()
        .name("strata-main".into())
        .stack_size(crate::sparql::limits::QUERY_STACK_BYTES)
        .spawn(move || run_here(&cli));
    match spawned.map(std::thread::JoinHandle::join) {
        Ok(Ok(code)) => code,
        Ok(Err(_)) => {
            eprintln!("error[internal]: the command failed unexpectedly");
            ExitCode::from(1)
        }
        Err(error) => {
            eprintln!("error[internal]: cannot start the command's thread: {error}");
            ExitCode::from(1)
        }
    }
}

fn run_here(cli: &Cli) -> ExitCode {
    match dispatch(cli) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("{error}");
            if let Some(validation) = &error.validation {
                eprint!("{}", shacl_lines(validation));
            }
            ExitCode::from(error.code.exit_code())
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
    // The server's configuration file is read first: it may set query limits, which the
    // engine needs when it opens.
    let http_config = match &cli.command {
        Command::Serve(args) => Some(match &args.config {
            Some(path) => crate::api::http::HttpConfig::from_file(path)
                .map_err(|e| ApiError::invalid_argument("--config", e))?,
            None => crate::api::http::HttpConfig::default(),
        }),
        _ => None,
    };
    let cluster = match &cli.command {
        Command::Serve(args) => match &args.log {
            Some(urls) => Some(connect_cluster(urls, args.replicas)?),
            None => None,
        },
        _ => None,
    };
    let config = EngineConfig {
        query_timeout,
        cluster,
        query_limits: query_limits(cli, http_config.as_ref())?,
        flush_every_quads: cli
            .flush_every_quads
            .unwrap_or(EngineConfig::default().flush_every_quads),
        index_threads: cli
            .index_threads
            .map_or(EngineConfig::default().index_threads, |n| n as usize),
        bulk_run_quads: cli
            .import_run_quads
            .map_or(EngineConfig::default().bulk_run_quads, |n| n as usize),
        ..EngineConfig::default()
    };
    // Reads work beside a running server: when another process holds the data directory,
    // they open it read-only (see `EngineConfig::read_only`).
    let reads_only = matches!(
        cli.command,
        Command::Query(_)
            | Command::Search(_)
            | Command::Log(_)
            | Command::Diff(_)
            | Command::Export(_)
            | Command::Verify(_)
            | Command::Graphs(_)
            | Command::Backup(_)
    );
    let engine = match Engine::open(cli.data_dir(), config.clone()) {
        Err(EngineError::DataDirLocked { .. }) if reads_only => {
            tracing::debug!("the data directory is in use; reading it read-only");
            Engine::open(
                cli.data_dir(),
                EngineConfig {
                    read_only: true,
                    ..config
                },
            )?
        }
        opened => opened?,
    };
    let engine = std::sync::Arc::new(engine);
    let result = match &cli.command {
        Command::Import(args) => import::run(&engine, cli, args),
        Command::Query(args) => match records::run_json_query(&engine, cli, args) {
            Some(result) => result,
            None => query::run_query(&engine, cli, args),
        },
        Command::Commit(args) => {
            records::run_write::<crate::records::CommitArgs>(&engine, cli, args)
        }
        Command::Configure(args) => {
            records::run_write::<crate::records::ConfigureArgs>(&engine, cli, args)
        }
        Command::Search(args) => records::run_search(&engine, cli, args),
        Command::Update(args) => query::run_update(&engine, cli, args),
        Command::Log(args) => history::run_log(&engine, cli, args),
        Command::Diff(args) => history::run_diff(&engine, cli, args),
        Command::Verify(_) => history::run_verify(&engine, cli),
        Command::Repair(args) => history::run_repair(&engine, cli, args),
        Command::Export(args) => history::run_export(&engine, cli, args),
        Command::Backup(args) => history::run_backup(&engine, cli, args),
        Command::Graphs(_) => history::run_graphs(&engine),
        Command::Serve(args) => serve::run(&engine, cli, args, http_config.unwrap_or_default()),
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

/// Connects to the JetStream cluster `--log` names.
fn connect_cluster(urls: &str, replicas: u8) -> Result<crate::log::ClusterHandle, ApiError> {
    if !urls
        .split(',')
        .all(|u| u.trim().starts_with("nats://") || u.trim().starts_with("tls://"))
    {
        return Err(ApiError::invalid_argument(
            "--log",
            format!("expected nats://host:port[,nats://…], got {urls:?}"),
        ));
    }
    let cluster = crate::log::jetstream::JetStream::connect(urls, usize::from(replicas))
        .map_err(|e| ApiError::from(EngineError::from(e)).with_param("--log"))?;
    eprintln!(
        "commits are agreed through {}",
        crate::log::Cluster::describe(&*cluster)
    );
    Ok(crate::log::ClusterHandle(cluster))
}

/// Query limits: the command line (or its environment variables) wins over the server's
/// configuration file, which wins over the defaults.
fn query_limits(
    cli: &Cli,
    http: Option<&crate::api::http::HttpConfig>,
) -> Result<crate::sparql::QueryLimits, ApiError> {
    let mut limits = crate::sparql::QueryLimits::default();
    let memory_mb = cli
        .query_memory_mb
        .or_else(|| http.and_then(|h| h.query_memory_limit_mb));
    if let Some(mb) = memory_mb {
        limits.memory_bytes = (mb > 0).then(|| mb.saturating_mul(1 << 20));
    }
    if let Some(ms) = cli
        .heavy_after_ms
        .or_else(|| http.and_then(|h| h.heavy_query_after_ms))
    {
        limits.heavy_after = std::time::Duration::from_millis(ms);
    }
    if let Some(n) = cli.heavy_queries {
        if n == 0 {
            return Err(ApiError::invalid_argument(
                "--heavy-queries",
                "expected at least 1",
            ));
        }
        limits.heavy_slots = n;
    } else if let Some(n) = http.and_then(|h| h.heavy_queries) {
        limits.heavy_slots = n;
    }
    if let Some(n) = cli
        .query_threads
        .and_then(|n| usize::try_from(n).ok())
        .or_else(|| http.and_then(|h| h.query_threads))
    {
        limits.threads = n.max(1);
    }
    Ok(limits)
}

/// `--as-of` / `--as-of-time` (parsed by clap): the commit a read is at.
fn read_at(read: &args::ReadArgs) -> crate::engine::ReadAt {
    crate::engine::ReadAt {
        commit: read.as_of,
        moment: read.as_of_time,
    }
}

/// The CLI works on a data directory its user owns (no server, no keys), so its writes
/// may change the control graphs, as an admin's may.
fn commit_request(commit: &args::CommitArgs) -> Result<crate::engine::CommitRequest, ApiError> {
    Ok(crate::engine::CommitRequest {
        admin: true,
        forward_id: None,
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
    crate::report::report_text(&validation.report, &|_| graph.clone())
}
