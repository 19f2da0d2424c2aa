//! Running the real binary in a temporary data directory.

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// A fresh data directory and helpers to run `strata` against it.
pub struct Strata {
    pub dir: tempfile::TempDir,
}

/// What one run printed and how it exited.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// Asserts success and returns stdout.
    #[track_caller]
    pub fn ok(&self) -> &str {
        assert_eq!(
            self.code, 0,
            "expected success\nstdout: {}\nstderr: {}",
            self.stdout, self.stderr
        );
        &self.stdout
    }

    /// Asserts the exit code and returns stderr.
    #[track_caller]
    pub fn fails_with(&self, code: i32) -> &str {
        assert_eq!(
            self.code, code,
            "unexpected exit code\nstdout: {}\nstderr: {}",
            self.stdout, self.stderr
        );
        &self.stderr
    }
}

impl Strata {
    pub fn new() -> Self {
        Self {
            dir: tempfile::tempdir().expect("temporary directory"),
        }
    }

    pub fn data_dir(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    pub fn log_path(&self, graph: &str) -> PathBuf {
        self.data_dir()
            .join("graphs")
            .join(graph)
            .join("commits.log")
    }

    /// Writes a file in the temporary directory and returns its path.
    pub fn file(&self, name: &str, content: impl AsRef<[u8]>) -> PathBuf {
        let path = self.dir.path().join(name);
        std::fs::write(&path, content).expect("write test file");
        path
    }

    pub fn command(&self) -> Command {
        let mut command = Command::new(binary());
        command
            .env("STRATA_DATA", self.data_dir())
            // The default embedding model, when fetched (scripts/fetch-model.sh).
            .env(
                "STRATA_MODEL_DIR",
                Path::new(env!("CARGO_MANIFEST_DIR")).join("models/all-MiniLM-L6-v2"),
            )
            .env_remove("STRATA_LOG")
            .env_remove("STRATA_NATS")
            .current_dir(self.dir.path());
        command
    }

    pub fn run(&self, args: &[&str]) -> Run {
        self.run_with_stdin(args, "")
    }

    pub fn run_with_stdin(&self, args: &[&str], stdin: &str) -> Run {
        use std::io::Write;
        let mut child = self
            .command()
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn strata");
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(stdin.as_bytes())
            .expect("write stdin");
        let output: Output = child.wait_with_output().expect("wait for strata");
        Run {
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }

    /// Runs a SELECT query and returns its TSV rows without the header, sorted.
    pub fn select(&self, query: &str, extra: &[&str]) -> Vec<String> {
        let mut args = vec!["query", query, "--format", "tsv"];
        args.extend_from_slice(extra);
        let run = self.run(&args);
        let mut rows: Vec<String> = run.ok().lines().skip(1).map(str::to_owned).collect();
        rows.sort();
        rows
    }

    /// Number of commits in a graph's log.
    pub fn n_commits(&self, graph: &str) -> usize {
        let run = self.run(&["--graph", graph, "log", "--format", "json"]);
        let commits: serde_json::Value = serde_json::from_str(run.ok()).expect("log json");
        commits.as_array().expect("array").len()
    }
}

pub fn binary() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_strata"))
}

/// The `served at commit N` line of stderr.
pub fn served_at(stderr: &str) -> u64 {
    stderr
        .lines()
        .find_map(|l| l.strip_prefix("served at commit "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no 'served at commit' line in {stderr:?}"))
}

/// A running `strata serve` on a free loopback port; killed when dropped.
pub struct Server {
    pub child: std::process::Child,
    pub base: String,
    /// Lines the server printed before its address line.
    pub banner: Vec<String>,
    /// Lines printed after it, collected as they come.
    pub output: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl Strata {
    /// Starts `strata serve --http 127.0.0.1:0 --no-demo` (plus `extra` arguments) and
    /// waits until it listens.
    pub fn serve(&self, extra: &[&str]) -> Server {
        let mut args = vec!["serve", "--http", "127.0.0.1:0", "--no-demo"];
        args.extend_from_slice(extra);
        self.serve_with(&args)
    }

    /// Starts `strata` with exactly these arguments and waits for its address line.
    pub fn serve_with(&self, args: &[&str]) -> Server {
        self.serve_with_env(args, &[])
    }

    /// Like `serve_with`, with these environment variables set for the server.
    pub fn serve_with_env(&self, args: &[&str], env: &[(&str, &str)]) -> Server {
        use std::io::BufRead;
        let mut child = self
            .command()
            .args(args)
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn strata serve");
        let stdout = child.stdout.take().expect("stdout");
        let mut lines = std::io::BufReader::new(stdout).lines();
        let mut banner = Vec::new();
        let base = loop {
            let line = lines
                .next()
                .expect("strata serve exited before listening")
                .expect("read stdout");
            if let Some(rest) = line.strip_prefix("Strata is listening on ") {
                break rest.split_whitespace().next().expect("address").to_owned();
            }
            banner.push(line);
        };
        // Keep draining stdout so the server never blocks on a full pipe.
        let output = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let sink = output.clone();
        std::thread::spawn(move || {
            for line in lines.map_while(Result::ok) {
                sink.lock().expect("output lock").push(line);
            }
        });
        Server {
            child,
            base,
            banner,
            output,
        }
    }
}

impl Server {
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// Sends SIGTERM and waits for a clean exit.
    pub fn stop(mut self) -> std::process::ExitStatus {
        let pid = self.child.id().to_string();
        let _ = Command::new("kill").args(["-TERM", &pid]).status();
        self.child.wait().expect("wait for server")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An HTTP agent that returns 4xx/5xx responses instead of errors.
pub fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(std::time::Duration::from_secs(60)))
        .build()
        .into()
}

pub use strata::model::percent_encode;

/// An MCP session over streamable HTTP, for one API key (`""`: none).
pub struct Mcp<'a> {
    server: &'a Server,
    key: String,
    session: String,
    next_id: std::cell::Cell<u64>,
}

impl<'a> Mcp<'a> {
    pub fn open(server: &'a Server, key: &str) -> Self {
        let (status, message, session) = Self::post(
            server,
            key,
            None,
            json!({
                "jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "scopes", "version": "1"}}
            }),
        );
        assert_eq!(status, 200, "initialize with {key}: {message:?}");
        let session = session.expect("a session id");
        let (status, _, _) = Self::post(
            server,
            key,
            Some(&session),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        );
        assert!(status == 200 || status == 202, "initialized: {status}");
        Self {
            server,
            key: key.to_owned(),
            session,
            next_id: std::cell::Cell::new(2),
        }
    }

    /// One JSON-RPC exchange over streamable HTTP; returns the status, the response
    /// message (from JSON or from the SSE stream) and the session id.
    pub fn post(
        server: &Server,
        key: &str,
        session: Option<&str>,
        body: Value,
    ) -> (u16, Option<Value>, Option<String>) {
        let mut request = agent()
            .post(server.url("/mcp"))
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-06-18");
        if !key.is_empty() {
            request = request.header("authorization", &format!("Bearer {key}"));
        }
        if let Some(session) = session {
            request = request.header("mcp-session-id", session);
        }
        let mut response = request.send(body.to_string()).expect("MCP request");
        let status = response.status().as_u16();
        let session = response
            .headers()
            .get("mcp-session-id")
            .map(|v| v.to_str().expect("ASCII session id").to_owned());
        let text = response.body_mut().read_to_string().unwrap_or_default();
        let message = text
            .lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .chain(std::iter::once(text.as_str()))
            .find_map(|l| {
                serde_json::from_str::<Value>(l.trim())
                    .ok()
                    .filter(|v| v.get("jsonrpc").is_some())
            });
        (status, message, session)
    }

    /// Ends the session (`DELETE /mcp`); the status.
    pub fn close(&self) -> u16 {
        let mut request = agent()
            .delete(self.server.url("/mcp"))
            .header("mcp-session-id", &self.session)
            .header("mcp-protocol-version", "2025-06-18");
        if !self.key.is_empty() {
            request = request.header("authorization", &format!("Bearer {}", self.key));
        }
        request.call().expect("DELETE /mcp").status().as_u16()
    }

    /// A request of this session after `close`: its status.
    pub fn status_of(&self, method: &str) -> u16 {
        self.request(method, Value::Null).0
    }

    /// The `query` tool's description, as `tools/list` gives it to this key.
    pub fn query_description(&self) -> String {
        let (status, message) = self.request("tools/list", Value::Null);
        assert_eq!(status, 200, "tools/list: {message:?}");
        let message = message.expect("a tools/list result");
        message["result"]["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .find(|t| t["name"] == "query")
            .and_then(|t| t["description"].as_str())
            .expect("the query tool")
            .to_owned()
    }

    /// Calls a tool; returns its result (`isError`, `structuredContent`).
    pub fn call(&self, tool: &str, arguments: Value) -> Value {
        let params = json!({"name": tool, "arguments": arguments});
        let (status, message) = self.request("tools/call", params);
        assert_eq!(status, 200, "{tool} {arguments}: {message:?}");
        message.expect("a tool result")["result"].clone()
    }

    /// One request of this session (`params` null: none); the status and the answer.
    fn request(&self, method: &str, params: Value) -> (u16, Option<Value>) {
        let id = self.next_id.get();
        self.next_id.set(id + 1);
        let mut body = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if !params.is_null() {
            body["params"] = params;
        }
        let (status, message, _) = Self::post(self.server, &self.key, Some(&self.session), body);
        (status, message)
    }
}

/// A counter or gauge of the server's `/metrics`.
pub fn metric(server: &Server, name: &str) -> u64 {
    let text = agent()
        .get(server.url("/metrics"))
        .call()
        .unwrap()
        .body_mut()
        .read_to_string()
        .unwrap();
    text.lines()
        .find_map(|l| l.strip_prefix(&format!("{name} ")))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no metric {name} in\n{text}"))
}
