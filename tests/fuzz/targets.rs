//! What the fuzz harness feeds and what it checks, shared by `cargo test --test fuzz` and
//! `examples/fuzz.rs` (included with `#[path]`).
//!
//! A `Harness` is a real engine in a temporary directory with the real HTTP router (driven
//! in-process with `tower::ServiceExt::oneshot`) and the real MCP server (rmcp over an
//! in-memory pipe, spoken to in JSON-RPC). For every input the properties are:
//! * no panic, on any thread of the harness (a panic hook records them all);
//! * every error is coded: an `ApiError` code other than `internal`, an HTTP error body
//!   `{"error": {"code"}}` (also on 5xx answers such as a query timeout), an MCP
//!   `structuredContent.error.code`, a JSON-RPC error code;
//! * nothing is committed on error: the graphs and their heads are unchanged;
//! * an answer arrives (a hang is reported after `ANSWER_LIMIT`).
//!
//! At the end (`Harness::reopen`), the data directory is reopened: every graph must come
//! back at the same head with the same quads, and its log must verify.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::io::Write;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use axum::body::Body;
use axum::http::{HeaderName, HeaderValue, Method, Request};
use proptest::prelude::*;
use proptest::strategy::BoxedStrategy;
use serde_json::{Value, json};
use strata::api::http::{AppState, HttpConfig};
use strata::engine::{CommitRequest, Graph, ImportFormat, ImportOptions, ReadOptions};
use strata::error::{ApiError, ErrorCode};
use strata::query::envelope::{CursorCodec, CursorState};
use strata::sparql::{CancellationToken, Deadline, ResultsFormat, UpdateOptions};
use strata::{Engine, EngineConfig, EngineError};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tower::ServiceExt;

use crate::differential;
use crate::generators::{self, CursorInput, HttpInput, RdfSyntax};

/// How long a request may take before it counts as a hang.
pub const ANSWER_LIMIT: Duration = Duration::from_secs(60);
/// The query time limit inside the harness.
const QUERY_TIMEOUT: Duration = Duration::from_secs(2);
/// Graphs grow with every successful write; past this many quads the harness starts over
/// (writes without a time limit, such as updates, stay fast on small data).
const MAX_QUADS: u64 = 400;

// ---------------------------------------------------------------------------------------
// Inputs
// ---------------------------------------------------------------------------------------

/// The kinds of input a stranger controls.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    Query,
    Update,
    Rdf,
    Mcp,
    Cursor,
    Http,
    /// JSON queries against oxigraph over a reference graph (`differential.rs`).
    Differential,
}

impl Kind {
    pub const ALL: [Kind; 7] = [
        Kind::Query,
        Kind::Update,
        Kind::Rdf,
        Kind::Mcp,
        Kind::Cursor,
        Kind::Http,
        Kind::Differential,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Query => "sparql_query",
            Kind::Update => "sparql_update",
            Kind::Rdf => "turtle_trig",
            Kind::Mcp => "mcp_arguments",
            Kind::Cursor => "cursor",
            Kind::Http => "http_request",
            Kind::Differential => "json_differential",
        }
    }

    pub fn from_name(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// One generated input.
#[derive(Clone, Debug)]
pub enum Input {
    Query(String),
    Update(String),
    Rdf(RdfSyntax, String),
    Mcp(String, Value),
    Cursor(CursorInput),
    Http(HttpInput),
    Differential(Box<differential::Case>),
}

impl Input {
    /// The input as a person reproduces it: the raw text where there is one.
    pub fn render(&self) -> String {
        match self {
            Input::Query(text) => format!("SPARQL query:\n{text}"),
            Input::Update(text) => format!("SPARQL update:\n{text}"),
            Input::Rdf(syntax, text) => format!("{syntax:?} document:\n{text}"),
            Input::Mcp(tool, args) => format!(
                "MCP tools/call {tool}:\n{}",
                serde_json::to_string_pretty(args).unwrap_or_default()
            ),
            Input::Cursor(cursor) => format!("cursor: {cursor:?}"),
            Input::Differential(case) => case.render(),
            Input::Http(request) => {
                let mut out = format!("{} {}\n", request.method, request.path);
                for (name, value) in &request.headers {
                    out.push_str(&format!("{name}: {}\n", String::from_utf8_lossy(value)));
                }
                out.push('\n');
                out.push_str(&String::from_utf8_lossy(&request.body));
                out
            }
        }
    }
}

/// The generator of one kind. `max_depth` bounds the deliberately deep nestings.
pub fn strategy(kind: Kind, max_depth: usize) -> BoxedStrategy<Input> {
    match kind {
        Kind::Query => generators::sparql_query(max_depth)
            .prop_map(Input::Query)
            .boxed(),
        Kind::Update => generators::sparql_update(max_depth)
            .prop_map(Input::Update)
            .boxed(),
        Kind::Rdf => generators::rdf_document(max_depth)
            .prop_map(|(s, d)| Input::Rdf(s, d))
            .boxed(),
        Kind::Mcp => generators::mcp_call()
            .prop_map(|(t, a)| Input::Mcp(t, a))
            .boxed(),
        Kind::Cursor => generators::cursor_input().prop_map(Input::Cursor).boxed(),
        Kind::Http => generators::http_input(max_depth)
            .prop_map(Input::Http)
            .boxed(),
        Kind::Differential => any::<u64>()
            .prop_map(|seed| Input::Differential(Box::new(differential::Case::new(seed))))
            .boxed(),
    }
}

// ---------------------------------------------------------------------------------------
// Panics on any thread
// ---------------------------------------------------------------------------------------

/// A panic seen by the hook.
#[derive(Clone, Debug)]
pub struct PanicRecord {
    pub thread: String,
    pub message: String,
    pub location: String,
}

fn panics() -> &'static Mutex<Vec<PanicRecord>> {
    static PANICS: OnceLock<Mutex<Vec<PanicRecord>>> = OnceLock::new();
    PANICS.get_or_init(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let message = info
                .payload()
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| {
                    info.payload()
                        .downcast_ref::<&str>()
                        .map(|s| (*s).to_owned())
                })
                .unwrap_or_else(|| "(no message)".to_owned());
            let record = PanicRecord {
                thread: std::thread::current()
                    .name()
                    .unwrap_or("(unnamed)")
                    .to_owned(),
                message,
                location: info
                    .location()
                    .map(|l| format!("{}:{}", l.file(), l.line()))
                    .unwrap_or_default(),
            };
            if let Some(list) = PANICS.get()
                && let Ok(mut list) = list.lock()
            {
                list.push(record);
            }
            if std::env::var_os("STRATA_FUZZ_QUIET").is_none() {
                previous(info);
            }
        }));
        Mutex::new(Vec::new())
    })
}

/// Removes and returns the recorded panics of threads named `prefix…` or `exact`.
fn take_panics(prefix: &str, exact: &str) -> Vec<PanicRecord> {
    let mut list = panics().lock().unwrap_or_else(|e| e.into_inner());
    let (mine, rest): (Vec<_>, Vec<_>) = list
        .drain(..)
        .partition(|p| p.thread.starts_with(prefix) || p.thread == exact);
    *list = rest;
    mine
}

fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
        .unwrap_or_else(|| "(no message)".to_owned())
}

// ---------------------------------------------------------------------------------------
// The harness
// ---------------------------------------------------------------------------------------

/// The MCP server's other end: newline-delimited JSON-RPC.
struct McpClient {
    writer: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    reader: tokio::io::Lines<BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>,
    next_id: u64,
}

impl McpClient {
    async fn send(&mut self, message: &Value) -> Result<(), String> {
        let mut line = message.to_string();
        line.push('\n');
        self.writer
            .write_all(line.as_bytes())
            .await
            .map_err(|e| format!("MCP pipe closed: {e}"))
    }

    /// Sends a request and waits for its response (notifications in between are skipped).
    async fn request(&mut self, method: &str, params: Value) -> Result<Value, String> {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await?;
        loop {
            let line = self
                .reader
                .next_line()
                .await
                .map_err(|e| format!("MCP pipe: {e}"))?
                .ok_or("the MCP server closed the connection")?;
            let message: Value = serde_json::from_str(&line).map_err(|e| {
                format!("the MCP server sent a line that is not JSON ({e}): {line}")
            })?;
            if message.get("id") == Some(&json!(id)) {
                return Ok(message);
            }
            if message.get("method").is_some() && message.get("id").is_some() {
                // A request to the client (none is expected: no capability was declared).
                let reply = json!({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "not supported"}});
                self.send(&reply).await?;
            }
        }
    }
}

/// An engine, its HTTP router and MCP server, in a temporary directory.
pub struct Harness {
    /// Name prefix of the threads of this harness's runtime (panics on them are ours).
    pub label: String,
    /// Dropped last.
    dir: tempfile::TempDir,
    engine: Option<Arc<Engine>>,
    runtime: Option<tokio::runtime::Runtime>,
    router: Option<axum::Router>,
    mcp: Option<McpClient>,
    cursors: CursorCodec,
    /// Inputs run since the harness (re)started.
    pub cases: u64,
    /// Cases whose generated request could not even be built (an invalid URI, say).
    pub unsendable: u64,
    /// Cases refused with a coded error (the rest were accepted).
    pub refused: u64,
    /// How cases ended, by code (`ok` when accepted): shows what the generators reach.
    pub outcomes: std::cell::RefCell<BTreeMap<String, u64>>,
    differential: differential::Runner,
}

const SEED: &str = r#"
@prefix ex: <http://example/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
ex:s ex:p ex:o , "text" , "texte"@fr , 1 , 2.5 , 1e3 , true , "2026-06-01T12:00:00Z"^^xsd:dateTime .
ex:o ex:p ex:s ; ex:q [ ex:p "nested" ] ; rdfs:label "O" .
ex:list ex:items ( 1 2 3 ) .
<< ex:s ex:p ex:o >> ex:certainty 0.9 .
GRAPH ex:g { ex:s ex:p "in g" . ex:a ex:b ex:c . }
GRAPH ex:g2 { ex:a ex:b ex:d . }
"#;

fn temp_root() -> Option<std::path::PathBuf> {
    let shm = std::path::PathBuf::from("/dev/shm");
    (shm.is_dir() && tempfile::tempdir_in(&shm).is_ok()).then_some(shm)
}

fn engine_config() -> EngineConfig {
    EngineConfig {
        query_timeout: Some(QUERY_TIMEOUT),
        // No model files: the hashed embedder, so `embeddings` calls stay fast.
        model_dir: std::path::PathBuf::from("/nonexistent/strata-fuzz-model"),
        ..EngineConfig::default()
    }
}

impl Harness {
    pub fn new(label: &str) -> Result<Self, String> {
        panics();
        let dir = match temp_root() {
            Some(root) => tempfile::tempdir_in(root),
            None => tempfile::tempdir(),
        }
        .map_err(|e| format!("temp dir: {e}"))?;
        let mut harness = Self {
            label: label.to_owned(),
            dir,
            engine: None,
            runtime: None,
            router: None,
            mcp: None,
            cursors: CursorCodec::new([7; 32]),
            cases: 0,
            unsendable: 0,
            refused: 0,
            outcomes: Default::default(),
            differential: differential::Runner::default(),
        };
        harness.start()?;
        let graph = harness.graph()?;
        let options = ImportOptions {
            format: ImportFormat(oxrdfio::RdfFormat::TriG),
            base_iri: Some("http://example/".into()),
            into_graph: None,
            one_graph: false,
            source_name: "seed".into(),
        };
        let document = graph
            .parse_document(SEED.as_bytes(), &options, |_| {})
            .map_err(|e| format!("seed data: {e}"))?;
        graph
            .commit_documents(vec![document], &CommitRequest::default())
            .map_err(|e| format!("seed commit: {e}"))?;
        // An ontology, so `commit` calls can succeed.
        let define = json!({
            "action": "define_ontology",
            "types": [{"name": "Ticket"}, {"name": "Bug"}, {"name": "Release"}],
            "relations": [
                {"name": "REPORTED_AS", "domain": "Ticket", "range": "Bug"},
                {"name": "FIXED_IN", "domain": "Bug", "range": "Release", "cardinality": "one"}
            ],
            "fields": [
                {"name": "severity", "type": "Bug", "value_type": "i64"},
                {"name": "status", "type": "Ticket", "value_type": "keyword", "allowed_values": ["open", "closed"]}
            ]
        });
        let answer = harness.mcp_call("configure", &define)?;
        if answer["result"]["isError"] == json!(true) {
            return Err(format!("defining the ontology failed: {answer}"));
        }
        Ok(harness)
    }

    /// Opens the engine in the harness directory and starts the router and MCP server.
    fn start(&mut self) -> Result<(), String> {
        // A request still running on a blocking thread when the runtime shut down keeps the
        // old engine (and its data directory lock) until its time limit cancels it.
        let started = std::time::Instant::now();
        let engine = loop {
            match Engine::open(self.dir.path().join("data"), engine_config()) {
                Err(EngineError::DataDirLocked { .. })
                    if started.elapsed() < QUERY_TIMEOUT * 15 =>
                {
                    std::thread::sleep(Duration::from_millis(50));
                }
                opened => break Arc::new(opened.map_err(|e| format!("Engine::open: {e}"))?),
            }
        };
        engine
            .graph_or_create("main")
            .map_err(|e| format!("graph main: {e}"))?;
        // The server's runtime threads get the SPARQL stack too (`serve.rs`).
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_stack_size(strata::sparql::limits::QUERY_STACK_BYTES)
            .thread_name(format!("{}-rt", self.label))
            .enable_all()
            .build()
            .map_err(|e| format!("runtime: {e}"))?;
        let config = HttpConfig {
            query_timeout_secs: QUERY_TIMEOUT.as_secs_f64(),
            request_timeout_secs: 30.0,
            body_limit_bytes: 1 << 20,
            ..HttpConfig::default()
        };
        let state = AppState::new(engine.clone(), config, "127.0.0.1:7878".parse().unwrap());
        let router = strata::api::http::router(state);
        let context = Arc::new(strata::api::mcp::Context::new(
            engine.clone(),
            QUERY_TIMEOUT,
        ));
        let (client_end, server_end) = tokio::io::duplex(1 << 20);
        runtime.spawn(async move {
            use rmcp::ServiceExt as _;
            if let Ok(service) = strata::api::mcp::StrataMcp::new(context)
                .serve(server_end)
                .await
            {
                let _ = service.waiting().await;
            }
        });
        let (read, write) = tokio::io::split(client_end);
        let mut client = McpClient {
            writer: write,
            reader: BufReader::new(read).lines(),
            next_id: 0,
        };
        runtime.block_on(async {
            tokio::time::timeout(ANSWER_LIMIT, async {
                let init = client
                    .request(
                        "initialize",
                        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "strata-fuzz", "version": "0"}}),
                    )
                    .await?;
                if init.get("result").is_none() {
                    return Err(format!("MCP initialize failed: {init}"));
                }
                client
                    .send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
                    .await
            })
            .await
            .map_err(|_| "MCP initialize: no answer".to_owned())?
        })?;
        self.engine = Some(engine);
        self.runtime = Some(runtime);
        self.router = Some(router);
        self.mcp = Some(client);
        Ok(())
    }

    /// Stops everything but the directory.
    fn stop(&mut self) {
        self.mcp = None;
        self.router = None;
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_timeout(Duration::from_secs(5));
        }
        if let Some(engine) = self.engine.take() {
            let _ = engine.close();
        }
    }

    fn engine(&self) -> Result<&Arc<Engine>, String> {
        self.engine
            .as_ref()
            .ok_or_else(|| "the harness is stopped".to_owned())
    }

    /// Graph `main` (created again when an HTTP or MCP call deleted it).
    fn graph(&self) -> Result<Arc<Graph>, String> {
        self.engine()?
            .graph_or_create("main")
            .map_err(|e| format!("graph main: {e}"))
    }

    /// Every graph with its head: what "nothing committed" compares.
    fn fingerprint(&self) -> Result<BTreeMap<String, u64>, String> {
        let engine = self.engine()?;
        engine
            .graph_names()
            .into_iter()
            .map(|name| {
                let graph = engine
                    .graph(name.as_str())
                    .map_err(|e| format!("graph {name}: {e}"))?;
                Ok((name.to_string(), graph.head_seq()))
            })
            .collect()
    }

    fn quads(&self) -> Result<u64, String> {
        let graph = self.graph()?;
        Ok(graph.read_at(graph.head_seq()).count_quads())
    }

    /// Closes the engine, reopens the directory, and checks every graph came back at the
    /// same head with the same quads and a log that verifies. The harness goes on with the
    /// reopened engine.
    pub fn reopen(&mut self) -> Result<(), String> {
        let engine = self.engine()?.clone();
        let before: BTreeMap<String, (u64, u64)> = engine
            .graph_names()
            .into_iter()
            .map(|name| {
                let graph = engine
                    .graph(name.as_str())
                    .map_err(|e| format!("graph {name}: {e}"))?;
                let head = graph.head_seq();
                Ok((name.to_string(), (head, graph.read_at(head).count_quads())))
            })
            .collect::<Result<_, String>>()?;
        drop(engine);
        self.stop();
        self.start()?;
        let engine = self.engine()?.clone();
        for (name, (head, quads)) in &before {
            let graph = engine
                .graph(name)
                .map_err(|e| format!("after reopening, graph {name}: {e}"))?;
            let now = graph.head_seq();
            if now != *head || graph.read_at(now).count_quads() != *quads {
                return Err(format!(
                    "after reopening, graph {name} is at commit {now} with {} quads; it was at {head} with {quads}",
                    graph.read_at(now).count_quads()
                ));
            }
            engine
                .verify_graph(name)
                .map_err(|e| format!("the log of graph {name} does not verify: {e}"))?;
        }
        let names: Vec<String> = engine.graph_names().iter().map(|n| n.to_string()).collect();
        let expected: Vec<String> = before.keys().cloned().collect();
        if names != expected {
            return Err(format!(
                "after reopening the graphs are {names:?}, not {expected:?}"
            ));
        }
        Ok(())
    }

    /// Runs one input and checks the properties. `Err` describes what went wrong.
    pub fn check(&mut self, input: &Input) -> Result<(), String> {
        if self.engine.is_none() {
            self.start()?;
        }
        self.cases += 1;
        let me = std::thread::current().name().unwrap_or("").to_owned();
        take_panics(&format!("{}-rt", self.label), &me);
        let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| self.run(input)));
        let panicked = take_panics(&format!("{}-rt", self.label), &me);
        let mut result = match outcome {
            Ok(result) => result,
            Err(payload) => Err(format!("panic: {}", panic_text(&*payload))),
        };
        if let Some(first) = panicked.first() {
            let detail = format!(
                "panic on thread {} at {}: {}",
                first.thread, first.location, first.message
            );
            result = Err(match result {
                Ok(()) => detail,
                Err(e) => format!("{detail}; then: {e}"),
            });
        }
        if result.is_err() {
            // A panic may leave locks poisoned or the MCP session gone: start over.
            self.stop();
            return result;
        }
        if self.cases.is_multiple_of(50) && self.quads()? > MAX_QUADS {
            self.reset()?;
        }
        result
    }

    /// Starts over on a fresh directory (after checking the old one reopens intact).
    pub fn reset(&mut self) -> Result<(), String> {
        self.reopen()?;
        self.stop();
        let fresh = Harness::new(&self.label)?;
        let (cases, unsendable, refused) = (self.cases, self.unsendable, self.refused);
        let outcomes = self.outcomes.take();
        *self = fresh;
        self.outcomes.replace(outcomes);
        self.cases = cases;
        self.unsendable = unsendable;
        self.refused = refused;
        Ok(())
    }

    /// Counts how a case ended; `true` unless it was accepted (`ok…`).
    fn note(&self, outcome: &str) -> bool {
        *self
            .outcomes
            .borrow_mut()
            .entry(outcome.to_owned())
            .or_default() += 1;
        !outcome.starts_with("ok")
    }

    fn run(&mut self, input: &Input) -> Result<(), String> {
        let before = self.fingerprint()?;
        let failed = match input {
            Input::Query(text) => self.query(text)?,
            Input::Update(text) => self.update(text)?,
            Input::Rdf(syntax, text) => self.rdf(*syntax, text)?,
            Input::Mcp(tool, args) => {
                let answer = self.mcp_call(tool, args)?;
                let code = check_mcp_answer(&answer)?;
                if std::env::var_os("STRATA_FUZZ_TRACE").is_some() {
                    let message = answer["result"]["structuredContent"]["error"]["message"]
                        .as_str()
                        .unwrap_or_default();
                    println!(
                        "trace {tool} {code:?}: {}",
                        message.chars().take(160).collect::<String>()
                    );
                    if answer.get("error").is_some() {
                        println!(
                            "trace-rpc {tool} {} -> {}",
                            args.to_string().chars().take(200).collect::<String>(),
                            answer["error"]
                        );
                    }
                }
                match code {
                    Some(code) => self.note(&format!("{tool}: {code}")),
                    None => self.note(&format!("ok {tool}")),
                }
            }
            Input::Cursor(cursor) => self.cursor(cursor)?,
            Input::Http(request) => self.http(request)?,
            Input::Differential(case) => {
                let engine = self.engine.clone().ok_or("the engine is not open")?;
                self.differential.check(&engine, case)?;
                self.note("ok differential")
            }
        };
        if failed {
            self.refused += 1;
            let mut after = self.fingerprint()?;
            // A failed write to a graph that did not exist may leave it behind, empty (no
            // commit): counted, not a failure.
            let before_names: Vec<&String> = before.keys().collect();
            let created_empty: Vec<String> = after
                .iter()
                .filter(|(name, head)| **head == 0 && !before_names.contains(name))
                .map(|(name, _)| name.clone())
                .collect();
            for name in created_empty {
                after.remove(&name);
                self.note("(a failed call left an empty new graph)");
            }
            if after != before {
                return Err(format!(
                    "the call failed but committed: graphs before {before:?}, after {after:?}"
                ));
            }
        }
        Ok(())
    }

    /// `Ok(true)`: the input was refused (with a coded error).
    fn query(&self, text: &str) -> Result<bool, String> {
        let graph = self.graph()?;
        let options = ReadOptions {
            base_iri: Some("http://example/base/".into()),
            timeout: Some(QUERY_TIMEOUT),
            ..ReadOptions::default()
        };
        let answer = match graph.read().query(text, &options) {
            Ok(answer) => answer,
            Err(error) => return coded(error).map(|code| self.note(code)),
        };
        // Every format, chosen by the text, so odd terms meet every serializer.
        let formats = [
            ResultsFormat::Json,
            ResultsFormat::Xml,
            ResultsFormat::Csv,
            ResultsFormat::Tsv,
            ResultsFormat::NTriples,
            ResultsFormat::Turtle,
            ResultsFormat::RdfXml,
            ResultsFormat::JsonLd,
        ];
        let format = formats[text.len() % formats.len()];
        let mut sink = CappedSink::default();
        match strata::sparql::write_results(answer.results, format, &mut sink) {
            Ok(_) => Ok(self.note("ok")),
            Err(_) if sink.full => Ok(self.note("ok (4 MiB of results)")),
            Err(error) => coded(EngineError::Query(error))
                .map(|code| self.note(code))
                .map_err(|e| format!("writing results as {format:?}: {e}")),
        }
    }

    fn update(&self, text: &str) -> Result<bool, String> {
        let graph = self.graph()?;
        let token = CancellationToken::new();
        // Updates have no time limit of their own (see the report); this one keeps the
        // harness moving.
        let _deadline = Deadline::start(token.clone(), Duration::from_secs(5));
        let options = UpdateOptions {
            cancellation: token,
            ..UpdateOptions::default()
        };
        match graph.update(
            text,
            Some("http://example/base/"),
            &options,
            &CommitRequest::default(),
        ) {
            Ok(_) => Ok(self.note("ok")),
            Err(error) => coded(error).map(|code| self.note(code)),
        }
    }

    fn rdf(&self, syntax: RdfSyntax, text: &str) -> Result<bool, String> {
        let graph = self.graph()?;
        let format = match syntax {
            RdfSyntax::Turtle => oxrdfio::RdfFormat::Turtle,
            RdfSyntax::TriG => oxrdfio::RdfFormat::TriG,
            RdfSyntax::NTriples => oxrdfio::RdfFormat::NTriples,
            RdfSyntax::NQuads => oxrdfio::RdfFormat::NQuads,
        };
        let options = ImportOptions {
            format: ImportFormat(format),
            base_iri: Some("http://example/base/".into()),
            into_graph: None,
            one_graph: false,
            source_name: "fuzz".into(),
        };
        let document = match graph.parse_document(text.as_bytes(), &options, |_| {}) {
            Ok(document) => document,
            Err(error) => return coded(error).map(|code| self.note(code)),
        };
        match graph.commit_documents(vec![document], &CommitRequest::default()) {
            Ok(_) => Ok(self.note("ok")),
            Err(error) => coded(error).map(|code| self.note(code)),
        }
    }

    fn mcp_call(&mut self, tool: &str, args: &Value) -> Result<Value, String> {
        let runtime = self.runtime.as_ref().ok_or("the harness is stopped")?;
        let client = self.mcp.as_mut().ok_or("no MCP session")?;
        runtime.block_on(async {
            tokio::time::timeout(
                ANSWER_LIMIT,
                client.request("tools/call", json!({"name": tool, "arguments": args})),
            )
            .await
            .map_err(|_| format!("no MCP answer within {ANSWER_LIMIT:?}"))?
        })
    }

    fn cursor(&self, input: &CursorInput) -> Result<bool, String> {
        let expect_refused = |result: Result<CursorState, ApiError>, what: &str| match result {
            Ok(state) => Err(format!("{what} was accepted as {state:?}")),
            Err(e) if e.code == ErrorCode::CursorMismatch => Ok(self.note("cursor_mismatch")),
            Err(e) => Err(format!("{what} was refused with code {}", e.code.as_str())),
        };
        match input {
            CursorInput::Text(text) => expect_refused(
                self.cursors.open(text, "query.sparql", "main", "0123"),
                "a made-up cursor",
            ),
            CursorInput::Forged { body, tag } => {
                let hex: String = body.bytes().map(|b| format!("{b:02x}")).collect();
                expect_refused(
                    self.cursors
                        .open(&format!("{hex}.{tag}"), "query.sparql", "main", "0123"),
                    "a forged cursor",
                )
            }
            CursorInput::Sealed {
                kind,
                graph,
                args,
                seq,
                position,
                edits,
                open_as,
            } => {
                let state = CursorState {
                    kind: kind.clone(),
                    graph: graph.clone(),
                    args: args.clone(),
                    seq: *seq,
                    position: *position,
                };
                let sealed = self.cursors.seal(&state);
                let edited = generators::apply_mutations(&sealed, edits);
                let (k, g, a) = match open_as {
                    0 => (kind.clone(), graph.clone(), args.clone()),
                    1 => (format!("{kind}x"), graph.clone(), args.clone()),
                    2 => (kind.clone(), format!("{graph}x"), args.clone()),
                    _ => (kind.clone(), graph.clone(), format!("{args}x")),
                };
                let result = self.cursors.open(&edited, &k, &g, &a);
                // Hex digits are read in either case, so only a change of case keeps it.
                let same = edited.to_ascii_lowercase() == sealed && *open_as == 0;
                if same {
                    match result {
                        Ok(opened) if opened == state => Ok(self.note("ok")),
                        other => Err(format!("the server's own cursor did not open: {other:?}")),
                    }
                } else {
                    expect_refused(result, "an edited or misused cursor")
                }
            }
        }
    }

    fn http(&mut self, input: &HttpInput) -> Result<bool, String> {
        let Ok(method) = Method::from_bytes(input.method.as_bytes()) else {
            self.unsendable += 1;
            return Ok(self.note("ok (not buildable)"));
        };
        let mut builder = Request::builder().method(method.clone()).uri(&input.path);
        let mut has_host = false;
        for (name, value) in &input.headers {
            if let (Ok(name), Ok(value)) = (
                HeaderName::from_bytes(name.as_bytes()),
                HeaderValue::from_bytes(value),
            ) {
                has_host |= name == axum::http::header::HOST;
                builder = builder.header(name, value);
            }
        }
        if !has_host {
            builder = builder.header("host", "127.0.0.1:7878");
        }
        let Ok(request) = builder.body(Body::from(input.body.clone())) else {
            self.unsendable += 1;
            return Ok(self.note("ok (not buildable)"));
        };
        let router = self.router.clone().ok_or("the harness is stopped")?;
        let runtime = self.runtime.as_ref().ok_or("the harness is stopped")?;
        let (status, headers, body) = runtime.block_on(async {
            tokio::time::timeout(ANSWER_LIMIT, async {
                let response = router
                    .oneshot(request)
                    .await
                    .map_err(|e| format!("the router failed: {e}"))?;
                let (parts, body) = response.into_parts();
                // A streamed body may end early on a late error (documented): keep what came.
                let bytes = axum::body::to_bytes(body, 16 << 20).await.ok();
                Ok::<_, String>((parts.status, parts.headers, bytes))
            })
            .await
            .map_err(|_| format!("no HTTP answer within {ANSWER_LIMIT:?}"))?
        })?;
        let body = body.unwrap_or_default();
        let text = String::from_utf8_lossy(&body);
        let excerpt: String = text.chars().take(400).collect();
        let is_mcp = input.path.starts_with("/mcp");
        let route = input
            .path
            .split(['?', '/'])
            .filter(|s| !s.is_empty())
            .map(|s| {
                if s == "graphs" || s.len() < 12 && s.bytes().all(|b| b.is_ascii_lowercase()) {
                    s
                } else {
                    "…"
                }
            })
            .collect::<Vec<_>>()
            .join("/");
        if !status.is_client_error() && !status.is_server_error() {
            return Ok(self.note(&format!("ok {} /{route}", method.as_str())));
        }
        if is_mcp || method == Method::HEAD {
            // The MCP transport's own errors (JSON-RPC, SSE), and bodiless answers (whose
            // code the same GET shows): only a 500 is suspect there.
            if status == axum::http::StatusCode::INTERNAL_SERVER_ERROR
                || is_mcp && status.is_server_error()
            {
                return Err(format!("answered {status}: {excerpt}"));
            }
            return Ok(self.note(&format!("{} {}", method.as_str(), status.as_u16())));
        }
        let json_body = headers
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|c| c.starts_with("application/json"));
        let parsed: Option<Value> = serde_json::from_slice(&body).ok();
        let code = parsed
            .as_ref()
            .and_then(|v| v["error"]["code"].as_str().map(str::to_owned));
        match code {
            Some(code) if json_body && known_code(&code) && code != "internal" => {
                if std::env::var_os("STRATA_FUZZ_TRACE").is_some() {
                    println!(
                        "trace-http {} {} {code}: {excerpt}",
                        method.as_str(),
                        input.path.chars().take(60).collect::<String>()
                    );
                }
                Ok(self.note(&format!("{} {code}", status.as_u16())))
            }
            Some(code) => Err(format!("answered {status} with code {code:?}: {excerpt}")),
            None => Err(format!(
                "answered {status} without an error code: {excerpt}"
            )),
        }
    }
}

impl Drop for Harness {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Result writes stop at 4 MiB: enough to meet every term, and bounded.
#[derive(Default)]
struct CappedSink {
    written: usize,
    full: bool,
}

impl Write for CappedSink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.written += buf.len();
        if self.written > 4 << 20 {
            self.full = true;
            return Err(std::io::Error::other("fuzz sink full"));
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A code clients can match on: snake_case, never empty.
fn known_code(code: &str) -> bool {
    !code.is_empty() && code.bytes().all(|b| b.is_ascii_lowercase() || b == b'_')
}

/// An engine error must map to a code other than `internal`; returns the code.
fn coded(error: EngineError) -> Result<&'static str, String> {
    let message = error.to_string();
    let api = ApiError::from(error);
    if api.code == ErrorCode::Internal {
        Err(format!("an error without a code (internal): {message}"))
    } else {
        Ok(api.code.as_str())
    }
}

/// The code of an MCP answer that is a coded error, `None` when it succeeded.
fn check_mcp_answer(answer: &Value) -> Result<Option<String>, String> {
    if let Some(error) = answer.get("error") {
        return match error.get("code").and_then(Value::as_i64) {
            Some(code) => Ok(Some(format!("JSON-RPC {code}"))),
            None => Err(format!("a JSON-RPC error without a code: {answer}")),
        };
    }
    let result = answer
        .get("result")
        .ok_or_else(|| format!("neither result nor error: {answer}"))?;
    if result.get("isError") != Some(&json!(true)) {
        return Ok(None);
    }
    let code = result["structuredContent"]["error"]["code"].as_str();
    match code {
        Some("internal") => Err(format!("the tool failed with code internal: {result}")),
        Some(code) if known_code(code) => Ok(Some(code.to_owned())),
        _ => Err(format!("a tool error without a code: {result}")),
    }
}
