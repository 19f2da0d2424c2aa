//! Approval under protocol 2026-07-28, where servers may not send requests: a removal
//! answers `input_required` with the question, and the client's retry carries the answer
//! (multi round-trip requests). Spoken as raw JSON-RPC lines over stdio.

use std::io::{BufRead, BufReader, Write};
use std::process::{ChildStdin, ChildStdout, Stdio};

use serde_json::{Value, json};

use crate::util::Strata;

/// A raw JSON-RPC session with `strata serve --stdio`, speaking protocol 2026-07-28.
pub struct Session {
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

/// Starts `strata <args>` (a `serve --stdio` command line) and opens a session on it.
pub fn start(strata: &Strata, args: &[&str]) -> (std::process::Child, Session) {
    let mut child = strata
        .command()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn strata serve --stdio");
    let session = Session {
        stdin: child.stdin.take().expect("stdin"),
        stdout: BufReader::new(child.stdout.take().expect("stdout")),
        next_id: 0,
    };
    (child, session)
}

impl Session {
    pub fn call(&mut self, method: &str, mut params: Value) -> Value {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
            "io.modelcontextprotocol/clientInfo": {"name": "raw-test", "version": "1"},
        });
        self.next_id += 1;
        let id = self.next_id;
        let request = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(self.stdin, "{request}").expect("write request");
        self.stdin.flush().expect("flush");
        loop {
            let mut line = String::new();
            assert!(
                self.stdout.read_line(&mut line).expect("read") > 0,
                "server closed stdout"
            );
            let message: Value = serde_json::from_str(&line).expect("a JSON-RPC line");
            if message["id"] == id {
                return message;
            }
        }
    }

    pub fn tool(&mut self, name: &str, arguments: Value, retry: Option<(Value, Value)>) -> Value {
        let mut params = json!({"name": name, "arguments": arguments});
        if let Some((state, responses)) = retry {
            params["requestState"] = state;
            params["inputResponses"] = responses;
        }
        self.call("tools/call", params)["result"].clone()
    }
}

#[test]
fn removals_ask_with_input_required_under_protocol_2026_07_28() {
    let strata = Strata::new();
    let mut child = strata
        .command()
        .args(["serve", "--stdio", "--no-demo"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn strata serve --stdio");
    let mut session = Session {
        stdin: child.stdin.take().expect("stdin"),
        stdout: BufReader::new(child.stdout.take().expect("stdout")),
        next_id: 0,
    };
    let discover = session.call("server/discover", json!({}));
    assert!(
        discover["result"]["supportedVersions"]
            .as_array()
            .unwrap()
            .contains(&json!("2026-07-28")),
        "{discover}"
    );
    let insert =
        json!({"action": "update", "sparql": "INSERT DATA { <http://e/a> <http://e/b> 1 }"});
    assert_eq!(
        session.tool("rdf", insert, None)["structuredContent"]["data"]["commit_seq"],
        1
    );

    let delete = json!({"action": "update", "sparql": "DELETE WHERE { <http://e/a> ?p ?o }"});
    let question = session.tool("rdf", delete.clone(), None);
    assert_eq!(question["resultType"], "input_required", "{question}");
    let ask = &question["inputRequests"]["approval"];
    assert_eq!(ask["method"], "elicitation/create");
    assert!(
        ask["params"]["message"]
            .as_str()
            .unwrap()
            .contains("<http://e/a>")
    );
    let state = question["requestState"].clone();
    assert!(state.is_string());

    let decline = json!({"approval": {"action": "decline"}});
    let declined = session.tool("rdf", delete.clone(), Some((state.clone(), decline)));
    assert_eq!(
        declined["structuredContent"]["error"]["code"],
        "approval_declined"
    );

    let accept = json!({"approval": {"action": "accept", "content": {"approve": true}}});
    let tampered = session.tool(
        "rdf",
        delete.clone(),
        Some((json!("00.00"), accept.clone())),
    );
    assert_eq!(
        tampered["structuredContent"]["error"]["code"],
        "approval_required"
    );

    let approved = session.tool("rdf", delete.clone(), Some((state.clone(), accept.clone())));
    assert_eq!(
        approved["structuredContent"]["data"]["commit_seq"], 2,
        "{approved}"
    );
    assert_eq!(approved["structuredContent"]["data"]["deleted"], 1);

    // The same answer cannot approve a removal of other data.
    let reinsert =
        json!({"action": "update", "sparql": "INSERT DATA { <http://e/a> <http://e/b> 2 }"});
    assert_eq!(
        session.tool("rdf", reinsert, None)["structuredContent"]["data"]["commit_seq"],
        3
    );
    let replayed = session.tool("rdf", delete, Some((state, accept)));
    assert_eq!(
        replayed["structuredContent"]["error"]["code"], "approval_required",
        "{replayed}"
    );
    let log = session.tool("inspect", json!({"action": "publication"}), None);
    assert_eq!(
        log["structuredContent"]["data"]["head_seq"], 3,
        "nothing was written"
    );
    drop(session);
    let _ = child.wait();
}

#[test]
fn raw_protocol_errors_for_timeouts_and_reused_idempotency_keys() {
    let strata = Strata::new();
    let mut child = strata
        .command()
        .args(["--timeout", "0.3", "serve", "--stdio", "--no-demo"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn strata serve --stdio");
    let mut session = Session {
        stdin: child.stdin.take().expect("stdin"),
        stdout: BufReader::new(child.stdout.take().expect("stdout")),
        next_id: 0,
    };
    let content: String = (0..400)
        .map(|i| format!("<http://e/s{i}> <http://e/p> \"{i}\" .\n"))
        .collect();
    let import = json!({"action": "import", "format": "ntriples", "content": content, "idempotency_key": "load-1"});
    let imported = session.tool("rdf", import, None);
    assert_eq!(
        imported["structuredContent"]["data"]["inserted"], 400,
        "{imported}"
    );
    let other = json!({"action": "import", "format": "ntriples", "content": "<http://e/x> <http://e/p> \"x\" .\n", "idempotency_key": "load-1"});
    let conflict = session.tool("rdf", other, None);
    assert_eq!(
        conflict["structuredContent"]["error"]["code"], "idempotency_conflict",
        "{conflict}"
    );
    // The ontology is listed in pages of whole entries, pinned like every paged answer.
    let types: Vec<Value> = (0..25)
        .map(|i| json!({"name": format!("Type{i:02}")}))
        .collect();
    let defined = session.tool(
        "configure",
        json!({"action": "define_ontology", "types": types}),
        None,
    );
    assert_eq!(
        defined["structuredContent"]["data"]["changed"], true,
        "{defined}"
    );
    let first =
        session.tool("inspect", json!({"action": "ontology"}), None)["structuredContent"].clone();
    assert_eq!(
        first["data"]["types"].as_array().unwrap().len(),
        20,
        "{first}"
    );
    let next = first["next"].clone();
    assert!(next.is_object(), "{first}");
    let second = session.tool("inspect", next, None)["structuredContent"].clone();
    assert_eq!(
        second["data"]["types"].as_array().unwrap().len(),
        5,
        "{second}"
    );
    assert_eq!(second["data"]["types"][0]["name"], "Type20");
    assert!(second.get("next").is_none());
    let heavy = json!({"mode": "sparql", "sparql": "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }"});
    let started = std::time::Instant::now();
    let timed_out = session.tool("query", heavy, None);
    assert_eq!(
        timed_out["structuredContent"]["error"]["code"], "query_timeout",
        "{timed_out}"
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    drop(session);
    let _ = child.wait();
}

/// An argument a tool's action does not take is refused, naming it, never ignored (an
/// update given `into_graph` would land in the default graph); `inspect` reads `log` and
/// `conformance` at `as_of_commit_seq`, and refuses it for `publication` (head only).
#[test]
fn arguments_of_another_action_are_refused_and_inspect_reads_at_the_pin() {
    let strata = Strata::new();
    let (mut child, mut session) = start(&strata, &["serve", "--stdio", "--no-demo"]);
    let error_of = |result: &Value| {
        (
            result["isError"].clone(),
            result["structuredContent"]["error"]["code"].clone(),
            result["structuredContent"]["error"]["param"].clone(),
        )
    };
    let import = |content: &str| json!({"action": "import", "graph": "g", "format": "turtle", "content": content});
    let first = session.tool(
        "rdf",
        import("<http://ex.org/a> a <http://ex.org/T> ."),
        None,
    );
    assert_eq!(
        first["structuredContent"]["data"]["commit_seq"], 1,
        "{first}"
    );
    let shapes = "@prefix sh: <http://www.w3.org/ns/shacl#> . @prefix ex: <http://ex.org/> . \
                  ex:S a sh:NodeShape ; sh:targetClass ex:T ; sh:property [ sh:path ex:name ; sh:minCount 1 ] .";
    let published = session.tool(
        "configure",
        json!({"action": "publish_schema", "graph": "g", "shapes": shapes, "desired_mode": "warn"}),
        None,
    );
    assert_eq!(published["isError"], json!(false), "{published}");
    session.tool(
        "rdf",
        import("<http://ex.org/b> a <http://ex.org/T> ."),
        None,
    );

    for (arguments, param) in [
        (
            json!({"action": "update", "graph": "g", "into_graph": "http://ex.org/named",
                   "sparql": "INSERT DATA { <http://ex.org/u> <http://ex.org/p> 1 }"}),
            "into_graph",
        ),
        (
            json!({"action": "update", "graph": "g", "format": "turtle",
                   "sparql": "INSERT DATA { <http://ex.org/u> <http://ex.org/p> 1 }"}),
            "format",
        ),
        (
            json!({"action": "import", "graph": "g", "format": "turtle", "content": "",
                   "sparql": "INSERT DATA { <http://ex.org/u> <http://ex.org/p> 1 }"}),
            "sparql",
        ),
        (
            json!({"action": "import", "graph": "g", "format": "turtle", "content": "<a> <b"}),
            "content",
        ),
    ] {
        let refused = session.tool("rdf", arguments.clone(), None);
        assert_eq!(
            error_of(&refused),
            (
                json!(true),
                json!(if param == "content" {
                    "invalid_rdf"
                } else {
                    "invalid_argument"
                }),
                json!(param)
            ),
            "{arguments}: {refused}"
        );
    }

    let inspect = |session: &mut Session, action: &str| {
        session.tool(
            "inspect",
            json!({"action": action, "graph": "g", "as_of_commit_seq": 1}),
            None,
        )["structuredContent"]
            .clone()
    };
    let log = inspect(&mut session, "log");
    assert_eq!(log["served_at_seq"], 1, "{log}");
    assert_eq!(
        log["data"]["commits"].as_array().map(Vec::len),
        Some(1),
        "{log}"
    );
    let conformance = inspect(&mut session, "conformance");
    assert_eq!(
        (
            conformance["served_at_seq"].clone(),
            conformance["data"]["published"].clone()
        ),
        (json!(1), json!(false)),
        "no shapes at commit 1: {conformance}"
    );
    let at_three = session.tool(
        "inspect",
        json!({"action": "conformance", "graph": "g", "as_of_commit_seq": 3}),
        None,
    )["structuredContent"]
        .clone();
    assert_eq!(
        (
            at_three["served_at_seq"].clone(),
            at_three["data"]["result_count"].clone()
        ),
        (json!(3), json!(2)),
        "{at_three}"
    );
    let publication = session.tool(
        "inspect",
        json!({"action": "publication", "graph": "g", "as_of_commit_seq": 1}),
        None,
    );
    assert_eq!(
        error_of(&publication),
        (
            json!(true),
            json!("invalid_argument"),
            json!("as_of_commit_seq")
        ),
        "{publication}"
    );
    drop(session);
    let _ = child.wait();
}
