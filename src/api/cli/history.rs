//! `strata log`, `diff`, `verify`, `export` and `graphs`: reading the history.

use std::io::Write;
use std::process::ExitCode;

use oxrdfio::RdfFormat;

use super::args::{Cli, DiffArgs, ExportArgs, LogArgs, RepairArgs};
use super::read_at;
use crate::engine::{CheckpointCheck, Engine};
use crate::error::ApiError;
use crate::log::format_time;

pub(super) fn run_log(engine: &Engine, cli: &Cli, args: &LogArgs) -> Result<ExitCode, ApiError> {
    let json = match args.format.as_str() {
        "text" => false,
        "json" => true,
        other => {
            return Err(ApiError::invalid_argument(
                "--format",
                format!("unknown format {other:?}; use text or json"),
            ));
        }
    };
    let graph = engine.graph(&cli.graph)?;
    let commits = graph.commits_newest_first(0, args.limit.unwrap_or(usize::MAX));
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    if json {
        let list: Vec<serde_json::Value> = commits.iter().map(crate::query::commit_json).collect();
        let _ = writeln!(out, "{}", serde_json::Value::Array(list));
    } else {
        for commit in &commits {
            let h = &commit.header;
            let _ = writeln!(
                out,
                "commit {} {}\n  at {}  +{} -{}{}{}",
                h.commit_seq,
                commit.hash,
                format_time(h.committed_at),
                h.n_inserted,
                h.n_deleted,
                h.author
                    .as_ref()
                    .map(|a| format!("  by {a}"))
                    .unwrap_or_default(),
                h.message
                    .as_ref()
                    .map(|m| format!("\n  {m}"))
                    .unwrap_or_default(),
            );
        }
    }
    let _ = out.flush();
    Ok(ExitCode::SUCCESS)
}

pub(super) fn run_diff(engine: &Engine, cli: &Cli, args: &DiffArgs) -> Result<ExitCode, ApiError> {
    let (from, to) = (args.from, args.to);
    if !matches!(
        args.format.as_str(),
        "text" | "ntriples" | "nquads" | "json"
    ) {
        return Err(ApiError::invalid_argument(
            "--format",
            format!(
                "unknown format {:?}; use text, ntriples or json",
                args.format
            ),
        ));
    }
    let graph = engine.graph(&cli.graph)?;
    let changes = graph
        .reader(crate::engine::ReadAt::commit(to))?
        .changes_since(from)?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    match args.format.as_str() {
        "json" => {
            let added: Vec<String> = changes.added.iter().map(|q| format!("{q} .")).collect();
            let removed: Vec<String> = changes.removed.iter().map(|q| format!("{q} .")).collect();
            let _ = writeln!(
                out,
                "{}",
                serde_json::json!({"from": from, "to": to, "added": added, "removed": removed})
            );
        }
        "text" => {
            for quad in &changes.added {
                let _ = writeln!(out, "+ {quad} .");
            }
            for quad in &changes.removed {
                let _ = writeln!(out, "- {quad} .");
            }
            eprintln!(
                "{} added, {} removed",
                changes.added.len(),
                changes.removed.len()
            );
        }
        _ => {
            for quad in &changes.added {
                let _ = writeln!(out, "+ {quad} .");
            }
            for quad in &changes.removed {
                let _ = writeln!(out, "- {quad} .");
            }
        }
    }
    let _ = out.flush();
    Ok(ExitCode::SUCCESS)
}

pub(super) fn run_verify(engine: &Engine, cli: &Cli) -> Result<ExitCode, ApiError> {
    let check = engine.verify_graph(&cli.graph)?;
    let log = &check.log;
    let mut healthy = true;
    // A torn tail is cut at the next open, unless the store files hold a commit past the
    // log's end: then the open refuses (`log_truncated`), as for a log cut short.
    let store_ahead = matches!(check.checkpoint, CheckpointCheck::Ahead { .. });
    match &log.first_bad {
        None if log.trailing_bytes == 0 => println!(
            "ok: {} commits verified, head {}",
            log.n_commits, log.head_hash
        ),
        None if !store_ahead => {
            healthy = false;
            println!(
                "bad: {} commits verified, then {} trailing bytes that do not form a commit \
                 (a torn tail, never acknowledged: the next open cuts it)",
                log.n_commits, log.trailing_bytes
            );
        }
        None => {
            healthy = false;
            println!(
                "bad: {} commits verified, then {} trailing bytes that do not form a commit; \
                 the store files hold a later commit, so the next open refuses \
                 (log_truncated) instead of cutting them",
                log.n_commits, log.trailing_bytes
            );
        }
        Some((seq, reason)) => {
            healthy = false;
            println!(
                "bad: commit {seq}: {reason} ({} commits before it verified; {} intact \
                 record(s) after it)",
                log.n_commits, log.intact_after
            );
        }
    }
    match &check.checkpoint {
        CheckpointCheck::Ahead { checkpoint_seq } => {
            healthy = false;
            println!(
                "bad: the store files hold commit {checkpoint_seq} but the log's last verified \
                 commit is {}: acknowledged commits are missing from the log",
                log.n_commits
            );
        }
        CheckpointCheck::Differs { commit_seq } => {
            healthy = false;
            println!(
                "bad: the store files recorded another hash for commit {commit_seq}: the log's \
                 history was rewritten"
            );
        }
        CheckpointCheck::BodyDamaged(error) => {
            healthy = false;
            println!(
                "bad: the store files are damaged ({error}); a server checks each part of \
                 them when it first reads it (and all of them in the background after it \
                 starts): reads of the damaged part then fail with `corruption` and the \
                 server's next start sets the files aside and replays the whole log; \
                 `strata repair --yes` sets them aside now"
            );
        }
        CheckpointCheck::Unreadable(error) => eprintln!(
            "warning: the store files are unreadable ({error}); the next open sets them aside \
             and replays the whole log"
        ),
        CheckpointCheck::Absent | CheckpointCheck::Matches(_) => {}
    }
    if !check.is_healthy() {
        eprintln!(
            "to recover: restore the graph's files from a backup, or run `strata repair --graph \
             {}` to see what a repair would remove (it keeps a copy of everything)",
            cli.graph
        );
    }
    Ok(if healthy {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `strata repair [--yes]`: shows what a repair of a damaged graph removes, and with
/// `--yes` does it (keeping a copy of everything removed).
pub(super) fn run_backup(
    engine: &Engine,
    cli: &Cli,
    args: &super::args::BackupArgs,
) -> Result<ExitCode, ApiError> {
    let report = engine.backup_graph(&cli.graph, &args.to, args.as_of)?;
    println!(
        "copied graph {:?} at commit {} to {}: {} bytes of log, {} store file(s) ({} bytes){}",
        cli.graph,
        report.commit_seq,
        args.to.display(),
        report.log_bytes,
        report.store_files,
        report.store_bytes,
        if report.store_files == 0 {
            "; the copy replays its log when it opens"
        } else {
            ""
        }
    );
    Ok(ExitCode::SUCCESS)
}

pub(super) fn run_repair(
    engine: &Engine,
    cli: &Cli,
    args: &RepairArgs,
) -> Result<ExitCode, ApiError> {
    let plan = engine.repair_graph(&cli.graph, args.yes)?;
    if plan.is_empty() {
        println!(
            "ok: nothing to repair ({} commits verified)",
            plan.keep_commits
        );
        return Ok(ExitCode::SUCCESS);
    }
    let verb = |done: &str, todo: &str| {
        if args.yes {
            done.to_owned()
        } else {
            todo.to_owned()
        }
    };
    if let Some((seq, reason)) = &plan.check.log.first_bad {
        println!("damage: commit {seq}: {reason}");
    }
    if plan.cut_bytes > 0 {
        println!(
            "{} the log after commit {} ({} bytes, {} intact record(s) among them)",
            verb("cut", "would cut"),
            plan.keep_commits,
            plan.cut_bytes,
            plan.check.log.intact_after
        );
    }
    if plan.move_checkpoint {
        println!(
            "{} the store files aside (rebuilt from the log)",
            verb("moved", "would move")
        );
    }
    if plan.move_search {
        println!(
            "{} the search indexes aside (rebuilt from the log)",
            verb("moved", "would move")
        );
    }
    if plan.reserved_through > plan.keep_commits {
        println!(
            "{} commits {}..={} as empty placeholders (those numbers were handed out; a later \
             commit never reuses one)",
            verb("wrote", "would write"),
            plan.keep_commits + 1,
            plan.reserved_through
        );
    }
    match &plan.saved_to {
        Some(dir) => {
            println!(
                "repaired: the graph keeps commits 1..={} and now ends at commit {}; everything \
                 removed is in {}",
                plan.keep_commits,
                plan.reserved_through,
                dir.display()
            );
            Ok(ExitCode::SUCCESS)
        }
        None => {
            println!(
                "nothing changed; run `strata repair --graph {} --yes` to repair (the next commit \
                 will be numbered {})",
                cli.graph,
                plan.reserved_through + 1
            );
            Ok(ExitCode::from(1))
        }
    }
}

pub(super) fn run_export(
    engine: &Engine,
    cli: &Cli,
    args: &ExportArgs,
) -> Result<ExitCode, ApiError> {
    let format = match args.format.as_str() {
        "nquads" | "nq" => RdfFormat::NQuads,
        "trig" => RdfFormat::TriG,
        "ntriples" | "nt" => RdfFormat::NTriples,
        "turtle" | "ttl" => RdfFormat::Turtle,
        other => {
            return Err(ApiError::invalid_argument(
                "--format",
                format!("unknown format {other:?}; use nquads, trig, ntriples or turtle"),
            ));
        }
    };
    let graph = engine.graph(&cli.graph)?;
    let reader = graph.reader(read_at(&args.read))?;
    let seq = reader.seq();
    let n_quads = match &args.output {
        Some(path) => {
            let file = std::fs::File::create(path).map_err(|e| {
                ApiError::invalid_argument(
                    "--output",
                    format!("cannot create {}: {e}", path.display()),
                )
            })?;
            reader.export(format, std::io::BufWriter::new(file))?
        }
        None => {
            let stdout = std::io::stdout();
            reader.export(format, std::io::BufWriter::new(stdout.lock()))?
        }
    };
    eprintln!("exported {n_quads} quads at commit {seq}");
    if !format.supports_datasets() {
        let left_out = reader.named_graph_quads();
        if left_out > 0 {
            eprintln!(
                "warning: {left_out} quads in named graphs were not written: {} holds the default graph only; export with --format trig or nquads for all of them",
                args.format
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub(super) fn run_graphs(engine: &Engine) -> Result<ExitCode, ApiError> {
    // Every graph is listed; one that cannot be opened (a damaged log) with its error,
    // and then the exit status says so.
    let mut damaged = false;
    for name in engine.graph_names() {
        match engine.graph(name.as_str()) {
            Ok(graph) => println!("{name}\thead {}", graph.head_seq()),
            Err(error) => {
                let error = ApiError::from(error);
                println!("{name}\terror[{}] {}", error.code.as_str(), error.message);
                damaged = true;
            }
        }
    }
    Ok(if damaged {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
