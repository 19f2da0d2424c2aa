//! The MCP server driven by the official SDKs over stdio and streamable HTTP: Python
//! (`mcp_client.py`, with the installed SDK, 2.x in CI, and a 1.x SDK in a cached virtual
//! environment) and TypeScript (`mcp_ts/client.mjs`, the same scenario; that SDK also
//! validates error results against the output schema): tool listing, the guide, a
//! support-desk question answered with SPARQL, paging pinned to one commit while others
//! land, pinned reads, approval of removals by elicitation (declined, accepted,
//! impossible) and bad input.
//!
//! Skipped (with a message) when `python3` cannot import `mcp`, the 1.x environment or the
//! npm install cannot be built, unless `STRATA_REQUIRE_MCP` is set.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use crate::util::{Strata, agent, binary};

/// The script that drives the server through the Python SDK.
fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e2e/mcp_client.py")
}

fn required() -> bool {
    std::env::var_os("STRATA_REQUIRE_MCP").is_some_and(|v| !v.is_empty())
}

/// Fails when `STRATA_REQUIRE_MCP` is set, otherwise prints why `test` is skipped.
fn skip(test: &str, why: &str) {
    assert!(
        !required(),
        "STRATA_REQUIRE_MCP is set but {test} cannot run: {why}"
    );
    eprintln!("SKIP {test}: {why}; set STRATA_REQUIRE_MCP=1 to make this a failure");
}

/// The version of `mcp` that `python` imports.
fn mcp_version(python: &Path) -> Result<String, String> {
    match Command::new(python)
        .args([
            "-c",
            "import mcp, importlib.metadata as m; print(m.version('mcp'))",
        ])
        .stdin(Stdio::null())
        .output()
    {
        Ok(output) if output.status.success() => {
            Ok(String::from_utf8_lossy(&output.stdout).trim().to_owned())
        }
        Ok(output) => Err(String::from_utf8_lossy(&output.stderr).trim().to_owned()),
        Err(error) => Err(format!("cannot run {}: {error}", python.display())),
    }
}

/// `python3` when it imports `mcp`.
fn system_python() -> Result<PathBuf, String> {
    let python = PathBuf::from("python3");
    mcp_version(&python).map(|_| python).map_err(|why| {
        format!("`python3 -c 'import mcp'` failed ({why}); `python3 -m pip install mcp` to run it")
    })
}

/// A virtual environment with `mcp<2`, built once under Cargo's test tmpdir and reused.
fn sdk1_python() -> Result<PathBuf, String> {
    static PYTHON: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    PYTHON
        .get_or_init(|| {
            let venv = Path::new(env!("CARGO_TARGET_TMPDIR")).join("mcp1-venv");
            let python = venv.join("bin/python");
            if mcp_version(&python).is_ok_and(|v| v.starts_with("1.")) {
                return Ok(python);
            }
            let started = Instant::now();
            let run = |command: &mut Command| -> Result<(), String> {
                let (code, stdout, stderr) = run_with_timeout(command, Duration::from_secs(300));
                if code == 0 {
                    Ok(())
                } else {
                    Err(format!("{command:?} exited with {code}\n{stdout}{stderr}"))
                }
            };
            run(Command::new("python3")
                .args(["-m", "venv", "--clear"])
                .arg(&venv))?;
            run(Command::new(venv.join("bin/pip")).args([
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "mcp<2",
            ]))?;
            let version = mcp_version(&python)?;
            eprintln!(
                "built {} with mcp {version} in {:?}",
                venv.display(),
                started.elapsed()
            );
            if !version.starts_with("1.") {
                return Err(format!("`pip install 'mcp<2'` installed mcp {version}"));
            }
            Ok(python)
        })
        .clone()
        .map_err(|why| format!("no Python environment with mcp 1.x: {why}"))
}

/// Runs a command to completion, killing it after `limit`.
fn run_with_timeout(command: &mut Command, limit: Duration) -> (i32, String, String) {
    let child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let pid = child.id();
    let (done_tx, done_rx) = std::sync::mpsc::channel();
    let waiter = std::thread::spawn(move || {
        let output = child.wait_with_output().expect("wait");
        let _ = done_tx.send(());
        output
    });
    if done_rx.recv_timeout(limit).is_err() {
        let _ = Command::new("kill")
            .args(["-KILL", &pid.to_string()])
            .status();
    }
    let output = waiter.join().expect("waiter thread");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// Checks every transport runs (see `mcp_client.py` for the full list).
const CHECKS: &[&str] = &[
    "tools-listed",
    "commit-destructive-idempotent",
    "configure-annotations",
    "configure-defines",
    "configure-idempotent",
    "inspect-ontology",
    "import-progress",
    "commit-records",
    "commit-replay",
    "entity-by-type-and-name",
    "records-answer",
    "field-values-typed",
    "edge-annotations",
    "why-annotations",
    "commit-error-unknown_type",
    "commit-error-unknown_relation",
    "commit-error-unknown_field",
    "commit-error-value_type_mismatch",
    "commit-error-cardinality_violation",
    "commit-errors-change-nothing",
    "retract-dry-run",
    "evolve-dry-run-conflicts",
    "evolve-rename",
    "evolve-rename-moves-data",
    "evolve-rename-old-iri-gone",
    "evolve-remove-needs-approval",
    "tool-inspect-output-schema",
    "tool-query-output-schema",
    "tool-rdf-output-schema",
    "inspect-read-only",
    "query-read-only",
    "rdf-destructive",
    "import-commits",
    "guide-counts",
    "guide-types",
    "t42-fixed-in-2.1",
    "t42-served-at-import",
    "head-sees-later-fix",
    "as-of-gives-earlier-answer",
    "entity-as-of",
    "graph-not-found-lists-graphs",
    "paging-limit50-page-count",
    "paging-limit50-exact-rows",
    "paging-limit50-pinned",
    "paging-limit50-cursor-other-query",
    "paging-limit50-cursor-tampered",
    "paging-default-page-count",
    "paging-default-exact-rows",
    "paging-default-pinned",
    "paging-default-cursor-other-query",
    "paging-default-cursor-tampered",
    "paging-head-has-new-rows",
    "approval-declined-error",
    "approval-declined-data-kept",
    "approval-approve-false-data-kept",
    "approval-cancelled-data-kept",
    "approval-question-lists-quads",
    "approval-accepted-commits",
    "approval-accepted-data-gone",
    "approval-earlier-commit-readable",
    "retract-declined-kept",
    "retract-approved-commits",
    "approval-required-error",
    "approval-required-nothing-written",
    "idempotent-retry",
    "invalid-sparql",
    "missing-query-sparql",
    "missing-rdf-content",
    "missing-rdf-format",
    "missing-inspect-commit_seq",
    "unknown-argument",
    "missing-action",
];

/// An official MCP SDK with the client script that runs the shared scenario.
enum Client {
    /// `python` runs `mcp_client.py`.
    Python(PathBuf),
    /// `node` runs `client.mjs` beside its installed `node_modules`.
    TypeScript(PathBuf),
}

impl Client {
    fn command(&self) -> Command {
        match self {
            Client::Python(python) => {
                let mut command = Command::new(python);
                command.arg(script()).env("PYTHONDONTWRITEBYTECODE", "1");
                command
            }
            Client::TypeScript(script) => {
                let mut command = Command::new("node");
                command.arg(script);
                command
            }
        }
    }

    fn name(&self) -> &'static str {
        match self {
            Client::Python(_) => "mcp_client.py",
            Client::TypeScript(_) => "mcp_ts/client.mjs",
        }
    }
}

/// Checks only the TypeScript client makes (its SDK validates every result, errors
/// included, against the declared output schema, and warns about unknown formats).
const TS_CHECKS: &[&str] = &[
    "tools-list-under-budget",
    "no-unknown-formats",
    "error-result-validated",
    "valid-at-alias",
];

/// Runs the client's script with `args`; asserts it passed every check.
fn run_script(client: &Client, args: &[&str], extra_checks: &[&str]) {
    let started = Instant::now();
    let name = client.name();
    let (code, stdout, stderr) = run_with_timeout(
        client
            .command()
            .args(args)
            .env_remove("STRATA_DESTRUCTIVE")
            .env_remove("STRATA_LOG"),
        Duration::from_secs(180),
    );
    let elapsed = started.elapsed();
    assert_eq!(
        code, 0,
        "{name} {args:?} failed after {elapsed:?}\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    let lines: Vec<&str> = stdout.lines().collect();
    let typescript = matches!(client, Client::TypeScript(_));
    let own: &[&str] = if typescript { TS_CHECKS } else { &[] };
    // Over HTTP, a second session can write while the first one's question is open.
    let stale: &[&str] = if typescript && args[0] == "http" {
        &[
            "approval-stale-refused",
            "approval-stale-nothing-removed",
            "approval-stale-retry-removes-all",
        ]
    } else {
        &[]
    };
    for check in CHECKS.iter().chain(extra_checks).chain(own).chain(stale) {
        let line = format!("CHECK {check} ok");
        assert!(
            lines.contains(&line.as_str()),
            "missing {line:?} in\n{stdout}"
        );
    }
    let summary = lines
        .iter()
        .find(|l| l.starts_with("ALL CHECKS PASSED "))
        .unwrap_or_else(|| panic!("no 'ALL CHECKS PASSED' line in\n{stdout}"));
    // What is worth a look on success: the SDK, the observations and the total.
    eprintln!("{name} {} took {elapsed:?}", args[0]);
    for line in &lines {
        if line.starts_with("mcp SDK") || line.starts_with("NOTE") || line == summary {
            eprintln!("  {line}");
        }
    }
}

/// ASK at the head (or `as_of`) of graph `desk` over the SPARQL endpoint: (commit, answer).
fn ask_desk(base: &str, ask: &str, as_of: Option<&str>) -> (u64, bool) {
    let mut request = agent()
        .get(format!("{base}/graphs/desk/sparql"))
        .header("accept", "application/sparql-results+json")
        .query("query", ask);
    if let Some(seq) = as_of {
        request = request.query("as_of", seq);
    }
    let mut response = request.call().expect("GET /graphs/desk/sparql");
    let body = response.body_mut().read_to_string().expect("body");
    assert_eq!(response.status().as_u16(), 200, "{body}");
    let seq = response
        .headers()
        .get("strata-commit")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no Strata-Commit header: {body}"));
    let json: serde_json::Value = serde_json::from_str(&body).expect("SPARQL JSON");
    (seq, json["boolean"].as_bool().expect("boolean"))
}

const T42: &str = "ASK { <http://example.org/desk/T-42> ?p ?o }";
const T41: &str = "ASK { <http://example.org/desk/T-41> ?p ?o }";

/// Over stdio (each session starts `strata serve --stdio` on one data directory). The
/// script's writes are the graph's history afterwards: import, insert, approved delete,
/// insert, delete allowed by the operator, idempotent insert.
fn over_stdio(test: &str, client: Result<Client, String>) {
    let client = match client {
        Ok(client) => client,
        Err(why) => return skip(test, &why),
    };
    let strata = Strata::new();
    let data = strata.data_dir();
    run_script(
        &client,
        &[
            "stdio",
            binary().to_str().expect("binary path"),
            data.to_str().expect("data path"),
        ],
        &["destructive-allow-skips-question"],
    );
    assert_eq!(strata.n_commits("desk"), 6);
    let ask = |extra: &[&str]| {
        let mut args = vec!["--graph", "desk", "query", T42, "--format", "tsv"];
        args.extend_from_slice(extra);
        strata.run(&args).ok().trim().to_owned()
    };
    assert_eq!(ask(&[]), "false");
    assert_eq!(ask(&["--as-of", "2"]), "true");
}

/// Over streamable HTTP at `/mcp` of `strata serve`; then the SPARQL endpoint sees what
/// the tools did: five commits, T-42 gone at the head and present at commit 2.
fn over_http(test: &str, client: Result<Client, String>) {
    let client = match client {
        Ok(client) => client,
        Err(why) => return skip(test, &why),
    };
    let strata = Strata::new();
    let server = strata.serve(&[]);
    run_script(&client, &["http", &server.base], &[]);
    assert_eq!(ask_desk(&server.base, T42, None), (5, false));
    assert_eq!(ask_desk(&server.base, T42, Some("2")), (2, true));
    assert_eq!(ask_desk(&server.base, T41, None), (5, true));
    assert!(server.stop().success());
}

#[test]
fn mcp_python_sdk_over_stdio() {
    over_stdio(
        "mcp_python_sdk_over_stdio",
        system_python().map(Client::Python),
    );
}

#[test]
fn mcp_python_sdk_over_http() {
    over_http(
        "mcp_python_sdk_over_http",
        system_python().map(Client::Python),
    );
}

#[test]
fn mcp_python_sdk1_over_stdio() {
    over_stdio(
        "mcp_python_sdk1_over_stdio",
        sdk1_python().map(Client::Python),
    );
}

#[test]
fn mcp_python_sdk1_over_http() {
    over_http(
        "mcp_python_sdk1_over_http",
        sdk1_python().map(Client::Python),
    );
}

#[test]
fn mcp_typescript_sdk_over_stdio() {
    over_stdio("mcp_typescript_sdk_over_stdio", typescript_client());
}

#[test]
fn mcp_typescript_sdk_over_http() {
    over_http("mcp_typescript_sdk_over_http", typescript_client());
}

/// The official TypeScript SDK (the client library most MCP hosts are built on), installed
/// once with `npm ci` from the pinned `tests/e2e/mcp_ts/package-lock.json` under Cargo's
/// test tmpdir; `client.mjs` is copied beside its `node_modules` on every run.
fn typescript_client() -> Result<Client, String> {
    typescript_script("client.mjs").map(Client::TypeScript)
}

/// `tests/e2e/mcp_ts/<name>` copied beside the installed TypeScript SDK, ready for `node`.
pub fn typescript_script(name: &str) -> Result<PathBuf, String> {
    static INSTALLED: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e2e/mcp_ts");
    let dir = INSTALLED
        .get_or_init(|| {
            let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("mcp-ts");
            std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            let lock = std::fs::read(source.join("package-lock.json"))
                .map_err(|e| format!("tests/e2e/mcp_ts/package-lock.json: {e}"))?;
            let installed = dir.join("node_modules/.package-lock.json");
            // npm writes its own copy of the lock into node_modules: same input, same tree.
            let current = std::fs::read(dir.join("package-lock.json")).ok() == Some(lock.clone())
                && installed.exists();
            if !current {
                for file in ["package.json", "package-lock.json"] {
                    std::fs::copy(source.join(file), dir.join(file))
                        .map_err(|e| format!("copy {file}: {e}"))?;
                }
                let started = Instant::now();
                let (code, stdout, stderr) = run_with_timeout(
                    Command::new("npm")
                        .args(["ci", "--no-audit", "--no-fund", "--silent"])
                        .current_dir(&dir),
                    Duration::from_secs(300),
                );
                if code != 0 {
                    return Err(format!(
                        "`npm ci` in {} exited with {code}\n{stdout}{stderr}",
                        dir.display()
                    ));
                }
                eprintln!(
                    "installed the MCP TypeScript SDK in {:?}",
                    started.elapsed()
                );
            }
            Ok(dir)
        })
        .clone()
        .map_err(|why| format!("no MCP TypeScript SDK: {why} (needs node and npm)"))?;
    let script = dir.join(name);
    std::fs::copy(source.join(name), &script).map_err(|e| format!("copy {name}: {e}"))?;
    Ok(script)
}

/// The agent query modes on ~50,000 records with history over 200 commits, each checked
/// against hand-written SPARQL at the same commit (`mcp_scale.py`).
#[test]
fn mcp_query_modes_at_scale_match_sparql() {
    let test = "mcp_query_modes_at_scale_match_sparql";
    let python = match system_python() {
        Ok(python) => python,
        Err(why) => return skip(test, &why),
    };
    let strata = Strata::new();
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/e2e/mcp_scale.py");
    let (code, stdout, stderr) = run_with_timeout(
        Command::new(python)
            .arg(&script)
            .arg(crate::util::binary())
            .arg(strata.data_dir())
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .env_remove("STRATA_LOG"),
        Duration::from_secs(600),
    );
    assert_eq!(
        code,
        0,
        "mcp_scale.py failed\nstdout:\n{stdout}\nstderr:\n{}",
        stderr
            .chars()
            .rev()
            .take(3000)
            .collect::<String>()
            .chars()
            .rev()
            .collect::<String>()
    );
    for check in [
        "scale-history",
        "scale-records",
        "structured-equals-sparql",
        "traverse-equals-sparql",
        "names-exact-first",
        "compare-equals-difference",
        "compare-pages",
        "pages-cover-all-rows",
        "paths-bounded",
        "neighborhood-bounded",
    ] {
        assert!(
            stdout.contains(&format!("CHECK {check} ok")),
            "missing {check}\n{stdout}"
        );
    }
    eprintln!("{}", stdout.lines().last().unwrap_or_default());
}

/// `DELETE /mcp` ends a session with 200, as the MCP SDKs expect (rmcp's own answer,
/// 202, made the Python SDK log "Session termination failed: 202" on every close), and
/// the session is gone afterwards.
#[test]
fn ending_a_session_answers_200_and_the_session_is_gone() {
    let strata = Strata::new();
    let server = strata.serve(&[]);
    let mcp = crate::util::Mcp::open(&server, "");
    assert_eq!(mcp.status_of("tools/list"), 200);
    assert_eq!(mcp.close(), 200);
    assert_eq!(
        mcp.status_of("tools/list"),
        404,
        "a closed session is unknown"
    );
}

/// Issue 25: `tools/call` with `arguments` that are not an object got rmcp's -32601
/// (method not found); it is the tool's coded `invalid_argument` error naming
/// `arguments`, like any other bad argument, and the session goes on.
#[test]
fn a_tool_call_with_arguments_that_are_not_an_object_is_a_coded_error() {
    let strata = Strata::new();
    let server = strata.serve(&[]);
    let mcp = crate::util::Mcp::open(&server, "");
    for arguments in [
        serde_json::json!([1, 2]),
        serde_json::json!("graph main"),
        serde_json::json!(7),
    ] {
        let result = mcp.call("inspect", arguments.clone());
        assert_eq!(result["isError"], true, "{arguments}: {result}");
        let error = &result["structuredContent"]["error"];
        assert_eq!(error["code"], "invalid_argument", "{arguments}: {result}");
        assert_eq!(error["param"], "arguments", "{arguments}: {result}");
    }
    let guide = mcp.call("inspect", serde_json::json!({"action": "guide"}));
    assert_ne!(guide["isError"], true, "{guide}");
}
