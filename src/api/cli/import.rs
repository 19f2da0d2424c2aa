//! `strata import`: stream files into one commit (or one per file), with a progress bar
//! on a terminal.

use std::fs::File;
use std::io::{BufReader, IsTerminal, Read};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};

use super::args::{Cli, ImportArgs};
use super::{commit_request, print_outcome};
use crate::engine::{Compression, Engine, ImportFormat, ImportOptions};
use crate::error::ApiError;
use crate::model::NamedNode;

pub(super) fn run(engine: &Engine, cli: &Cli, args: &ImportArgs) -> Result<ExitCode, ApiError> {
    let request = commit_request(&args.commit)?;
    let forced_format = args
        .format
        .as_deref()
        .map(|name| {
            ImportFormat::from_name(name).ok_or_else(|| {
                ApiError::invalid_argument(
                    "--format",
                    format!("unknown format {name:?}; use turtle, trig, ntriples, nquads, rdfxml or jsonld"),
                )
            })
        })
        .transpose()?;
    let into_graph = args
        .into
        .as_deref()
        .map(|iri| {
            NamedNode::new(iri).map_err(|e| {
                ApiError::invalid_argument("--into", format!("invalid IRI {iri:?}: {e}"))
            })
        })
        .transpose()?;
    // Check every file before the first byte is written: bad input changes nothing.
    let mut plans = Vec::new();
    for path in &args.files {
        let is_stdin = path.as_os_str() == "-";
        let (format, compression) = match (forced_format, ImportFormat::from_path(path)) {
            (Some(format), detected) => {
                if let Some((by_extension, _)) = detected
                    && by_extension != format
                {
                    eprintln!(
                        "warning: reading {} as {} (--format), although its extension says {}",
                        path.display(),
                        format.name(),
                        by_extension.name()
                    );
                }
                (
                    format,
                    detected.map_or(Compression::None, |(_, compression)| compression),
                )
            }
            (None, Some(detected)) => detected,
            (None, None) => {
                return Err(ApiError::invalid_argument(
                    "--format",
                    format!(
                        "cannot tell the format of {} from its extension; pass --format",
                        path.display()
                    ),
                ));
            }
        };
        if !is_stdin && !path.is_file() {
            return Err(ApiError::invalid_argument(
                "FILE",
                format!("{} is not a readable file", path.display()),
            ));
        }
        plans.push((path.clone(), format, compression, is_stdin));
    }
    let existed = engine.graph_names().iter().any(|g| g.as_str() == cli.graph);
    let interrupt = engine.config().interrupt.clone();
    stop_on_signal(interrupt.clone());
    let imported = import_all(engine, cli, args, plans, &request, &into_graph, &interrupt);
    if imported.is_err() && !existed {
        // An import that created its graph and then failed (or was interrupted) leaves
        // no empty graph behind.
        engine.discard_if_unused_and_empty(&cli.graph);
    }
    match imported {
        Err(_) if interrupt.load(Ordering::Acquire) => {
            Err(crate::engine::EngineError::Interrupted.into())
        }
        other => other,
    }
}

/// The files to import: path, format, compression, whether it is standard input.
type Plans = Vec<(std::path::PathBuf, ImportFormat, Compression, bool)>;

fn import_all(
    engine: &Engine,
    cli: &Cli,
    args: &ImportArgs,
    plans: Plans,
    request: &crate::engine::CommitRequest,
    into_graph: &Option<NamedNode>,
    interrupt: &Arc<AtomicBool>,
) -> Result<ExitCode, ApiError> {
    let request = request.clone();
    let into_graph = into_graph.clone();
    let graph = engine.graph_or_create(&cli.graph)?;
    let started = Instant::now();
    let mut documents = Vec::new();
    let mut n_parsed = 0u64;
    let mut parsing = std::time::Duration::ZERO;
    for (path, format, compression, is_stdin) in plans {
        let source_name = path.display().to_string();
        let options = ImportOptions {
            format,
            base_iri: args.base.clone(),
            into_graph: into_graph.clone(),
            one_graph: false,
            source_name: source_name.clone(),
        };
        let raw: Box<dyn Read + Send> = if is_stdin {
            Box::new(std::io::stdin())
        } else {
            Box::new(File::open(&path).map_err(|e| {
                ApiError::invalid_argument("FILE", format!("cannot open {source_name}: {e}"))
            })?)
        };
        // gzip and zstd are decoded on a thread of their own, beside the parser.
        let reader = Interruptible {
            inner: compression.reader(raw),
            interrupt: interrupt.clone(),
        };
        let bar = progress_bar(&source_name);
        let parse_started = Instant::now();
        let document =
            graph.parse_document(BufReader::with_capacity(1 << 16, reader), &options, |n| {
                if let Some(bar) = &bar {
                    bar.set_position(n);
                }
            });
        if let Some(bar) = &bar {
            bar.finish_and_clear();
        }
        let document = document?;
        parsing += parse_started.elapsed();
        n_parsed += document.len() as u64;
        if args.commit_per_file {
            let outcome = graph.commit_documents(vec![document], &request)?;
            print_outcome(&outcome);
        } else {
            documents.push(document);
        }
    }
    if !args.commit_per_file {
        let outcome = graph.commit_documents(documents, &request)?;
        print_outcome(&outcome);
    }
    let seconds = started.elapsed().as_secs_f64();
    let parse_seconds = parsing.as_secs_f64();
    eprintln!(
        "parsed {n_parsed} quads in {seconds:.2}s ({:.0} quads/s; parsing {parse_seconds:.2}s, \
         committing {:.2}s)",
        n_parsed as f64 / seconds.max(1e-9),
        (seconds - parse_seconds).max(0.0)
    );
    Ok(ExitCode::SUCCESS)
}

/// On Ctrl-C or SIGTERM, asks the import to stop: its reads fail and a big commit gives
/// up at its next step (before its log append), so nothing is committed and nothing is
/// left behind. A second signal ends the process at once.
fn stop_on_signal(interrupt: Arc<AtomicBool>) {
    use tokio::signal::unix::{SignalKind, signal};
    std::thread::spawn(move || {
        let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .build()
        else {
            return;
        };
        runtime.block_on(async move {
            let (Ok(mut int), Ok(mut term)) = (
                signal(SignalKind::interrupt()),
                signal(SignalKind::terminate()),
            ) else {
                return;
            };
            tokio::select! {
                _ = int.recv() => {}
                _ = term.recv() => {}
            }
            interrupt.store(true, Ordering::Release);
            eprintln!("stopping the import; nothing will be committed (again to quit at once)");
            tokio::select! {
                _ = int.recv() => {}
                _ = term.recv() => {}
            }
            std::process::exit(130);
        });
    });
}

/// A document's bytes until the import is interrupted.
struct Interruptible<R> {
    inner: R,
    interrupt: Arc<AtomicBool>,
}

impl<R: Read> Read for Interruptible<R> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if self.interrupt.load(Ordering::Acquire) {
            return Err(std::io::Error::other("the import was interrupted"));
        }
        self.inner.read(out)
    }
}

fn progress_bar(name: &str) -> Option<ProgressBar> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = ProgressBar::new_spinner();
    bar.set_style(
        ProgressStyle::with_template("{spinner} {msg} {human_pos} quads ({per_sec}) {elapsed}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    bar.set_message(name.to_owned());
    bar.enable_steady_tick(std::time::Duration::from_millis(200));
    Some(bar)
}
