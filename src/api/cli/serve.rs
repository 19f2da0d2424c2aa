//! `strata serve`: the HTTP server on an embedded data directory (with the demo graph
//! when the directory is empty), and `strata hash-key` for its API keys.

use std::io::Read;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;

use super::args::{Cli, CommitLoopArgs, HashKeyArgs, ServeArgs};
use crate::api::http::{self, AppState, HttpConfig};
use crate::engine::{CommitRequest, Engine, ImportFormat, ImportOptions};
use crate::error::ApiError;
use crate::sparql::UpdateOptions;

const DEMO: &str = include_str!("../../../demo/demo.trig");

pub(super) fn run(
    engine: &Arc<Engine>,
    cli: &Cli,
    args: &ServeArgs,
    mut config: HttpConfig,
) -> Result<ExitCode, ApiError> {
    // As a graph's write leader in a cluster, this node commits records other nodes
    // forward (a forward that arrives earlier is run where it arrived).
    crate::records::serve_forwarded_writes();
    // `--timeout` on the command line wins over the configuration file.
    if let Some(secs) = cli.timeout_secs {
        config.query_timeout_secs = secs;
    }
    let addr: SocketAddr = args.http.parse().map_err(|e| {
        ApiError::invalid_argument(
            "--http",
            format!(
                "expected an address such as 127.0.0.1:7878, got {:?}: {e}",
                args.http
            ),
        )
    })?;
    let tls = match (&args.tls_cert, &args.tls_key) {
        (Some(cert), Some(key)) => Some(
            http::tls::Certificates::load(cert, key)
                .map_err(|e| ApiError::invalid_argument("--tls-cert", e))?,
        ),
        _ => None,
    };
    config
        .check_listen_address(&addr, tls.is_some())
        .map_err(|e| ApiError::invalid_argument("--http", e))?;
    if !args.no_demo && engine.graph_names().is_empty() {
        load_demo(engine, &cli.graph, args.stdio)?;
    }
    // `/sparql`, `/update` and `/store` serve graph `main`: it exists from the start, so
    // a SPARQL Protocol client on a new server sees an empty dataset, not an error.
    engine.graph_or_create(crate::model::GraphName::DEFAULT)?;
    // Queries are parsed on the runtime's workers and evaluated on its blocking threads:
    // give them the stack the query limits are sized for (virtual memory; only what a
    // query uses is touched).
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_stack_size(crate::sparql::limits::QUERY_STACK_BYTES)
        .build()
        .map_err(|e| {
            ApiError::invalid_argument("serve", format!("cannot start the runtime: {e}"))
        })?;
    if args.stdio {
        let context = Arc::new(crate::query::Context::new(
            engine.clone(),
            config.query_timeout(),
        ));
        eprintln!(
            "Strata MCP server on stdio (data {})",
            engine.data_dir().display()
        );
        runtime
            .block_on(crate::api::mcp::serve_stdio(context))
            .map_err(|e| {
                ApiError::invalid_argument("--stdio", format!("MCP over stdio failed: {e}"))
            })?;
        return Ok(ExitCode::SUCCESS);
    }
    let served: std::io::Result<()> = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        let local = listener.local_addr()?;
        let state = AppState::new(engine.clone(), config, local).with_tls(tls.is_some());
        let scheme = if tls.is_some() { "https" } else { "http" };
        println!("Strata is listening on {scheme}://{local} (data {})", engine.data_dir().display());
        for name in engine.graph_names() {
            if let Ok(graph) = engine.graph(name.as_str()) {
                println!("  graph {name}: head commit {}", graph.head_seq());
            }
        }
        println!(
            "Try:\n  curl -s {scheme}://{local}/sparql --data-urlencode 'query=SELECT ?s ?p ?o WHERE {{ ?s ?p ?o }} LIMIT 5'"
        );
        tracing::info!(%local, "listening");
        http::serve(listener, state, tls, shutdown_signal()).await
    });
    served.map_err(|e| {
        ApiError::invalid_argument("--http", format!("cannot serve on {addr}: {e}"))
    })?;
    println!("Strata stopped; every acknowledged commit is in the log.");
    Ok(ExitCode::SUCCESS)
}

/// Resolves on Ctrl-C or SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
    tracing::info!("shutting down: finishing requests in flight");
}

/// Loads `demo/demo.trig` as commit 1 and resolves an incident in commit 2, so pinned
/// reads have something to show.
fn load_demo(engine: &Engine, graph_name: &str, quiet_stdout: bool) -> Result<(), ApiError> {
    let graph = engine.graph_or_create(graph_name)?;
    if graph.head_seq() > 0 {
        return Ok(());
    }
    let options = ImportOptions {
        format: ImportFormat(oxrdfio::RdfFormat::TriG),
        base_iri: None,
        into_graph: None,
        one_graph: false,
        source_name: "demo/demo.trig".into(),
    };
    let request = CommitRequest {
        author: Some("strata".into()),
        message: Some("load the demo graph".into()),
        admin: true,
        ..CommitRequest::default()
    };
    graph.import(DEMO.as_bytes(), &options, &request)?;
    // Commit 2: BUG-117 is fixed in 2.4.1 and its tickets are closed, so a read pinned
    // to commit 1 shows the desk before the fix.
    let resolve = "PREFIX ex: <http://example.org/support/>
DELETE { ?ticket ex:status \"open\" } INSERT { ex:bug-117 ex:fixedIn ex:r2-4-1 . ?ticket ex:status \"closed\" }
WHERE { ?ticket ex:reportedAs ex:bug-117 ; ex:status \"open\" }";
    let request = CommitRequest {
        author: Some("strata".into()),
        message: Some("BUG-117 fixed in 2.4.1".into()),
        admin: true,
        ..CommitRequest::default()
    };
    graph.update(resolve, None, &UpdateOptions::default(), &request)?;
    // Over stdio, standard output belongs to the protocol.
    if quiet_stdout {
        eprintln!("loaded the demo graph into {graph_name:?} (commits 1 and 2)");
    } else {
        println!("loaded the demo graph into {graph_name:?} (commits 1 and 2)");
    }
    Ok(())
}

/// Prints a key's SHA-256 (and a new random key when none is given).
pub(super) fn run_hash_key(args: &HashKeyArgs) -> Result<ExitCode, ApiError> {
    let key = match &args.key {
        Some(key) => key.clone(),
        None => {
            let mut bytes = [0u8; 24];
            std::fs::File::open("/dev/urandom")
                .and_then(|mut f| f.read_exact(&mut bytes))
                .map_err(|e| {
                    ApiError::invalid_argument("KEY", format!("cannot read /dev/urandom: {e}"))
                })?;
            let key: String = std::iter::once("strata_".to_owned())
                .chain(bytes.iter().map(|b| format!("{b:02x}")))
                .collect();
            println!("key:    {key}");
            key
        }
    };
    println!("sha256: {}", http::hash_key(&key));
    println!(
        "config: {{\"api_keys\": [{{\"name\": \"me\", \"sha256\": \"{}\", \"scopes\": [\"read\", \"write\"]}}]}}",
        http::hash_key(&key)
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
