//! One failure, one code, on every surface (issue 25): the same bad request through the
//! `query` tool's arguments over MCP, `POST /graphs/{g}/query`, `strata query --json`,
//! and, for SPARQL, the SPARQL protocol and `strata query`, fails with the same error
//! code (and the same argument named where the surfaces share the argument's name).

use serde_json::{Value, json};

use crate::util::{Mcp, Strata, agent};

/// The code of a JSON error body.
fn code_of(body: &Value) -> String {
    body["error"]["code"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// The code `strata` printed (`error[code] …`) on its first error line.
fn cli_code(stderr: &str) -> String {
    stderr
        .lines()
        .find_map(|l| l.strip_prefix("error[")?.split(']').next())
        .unwrap_or_default()
        .to_owned()
}

/// The `query` tool's arguments; the SPARQL text and `as_of` for the SPARQL surfaces;
/// the code every surface must give.
type Case = (
    Value,
    Option<(&'static str, Option<&'static str>)>,
    &'static str,
);

#[test]
fn one_failure_has_one_code_on_every_surface() {
    let strata = Strata::new();
    strata
        .run(&[
            "update",
            "INSERT DATA { <http://e/t1> a <http://e/Ticket> ; <http://e/about> <http://e/x> }",
        ])
        .ok();
    let service = "SELECT * WHERE { SERVICE <http://unlisted.example/sparql> { ?s ?p ?o } }";
    let cases: Vec<Case> = vec![
        (
            json!({"mode": "sparql", "sparql": service}),
            Some((service, None)),
            "service_not_allowed",
        ),
        (
            json!({"mode": "sparql", "sparql": "SELEC * WHERE { ?s ?p ?o }"}),
            Some(("SELEC * WHERE { ?s ?p ?o }", None)),
            "invalid_sparql",
        ),
        (
            json!({"mode": "sparql", "sparql": "ASK {}", "as_of_commit_seq": 999999}),
            Some(("ASK {}", Some("999999"))),
            "commit_not_found",
        ),
        (
            json!({"mode": "traverse", "traverse": {"steps": [
                {"from_type": "http://e/Ticket"}, {"out": "reported as"}]}}),
            None,
            "unknown_relation",
        ),
        (
            json!({"mode": "sparql", "sparql": "ASK {}", "graph": "no-such-graph"}),
            None,
            "graph_not_found",
        ),
    ];
    // The CLI first (the server then holds the data directory).
    let mut cli = Vec::new();
    for (i, (arguments, sparql, _)) in cases.iter().enumerate() {
        let file = strata.file(&format!("args{i}.json"), arguments.to_string());
        // A graph in the file must agree with `--graph` (default `main`).
        let graph = arguments["graph"].as_str().unwrap_or("main");
        let by_json = strata.run(&["query", "--graph", graph, "--json", file.to_str().unwrap()]);
        let by_text = sparql.map(|(text, as_of)| {
            let mut args = vec!["query", text];
            if let Some(seq) = as_of {
                args.extend(["--as-of", seq]);
            }
            strata.run(&args)
        });
        cli.push((by_json, by_text));
    }
    let server = strata.serve(&[]);
    let mcp = Mcp::open(&server, "");
    for ((arguments, sparql, code), (by_json, by_text)) in cases.iter().zip(&cli) {
        let tool = mcp.call("query", arguments.clone());
        assert_eq!(tool["isError"], true, "{arguments}: {tool}");
        let tool_error = &tool["structuredContent"];
        assert_eq!(code_of(tool_error), *code, "MCP {arguments}: {tool}");

        let graph = arguments["graph"].as_str().unwrap_or("main");
        let mut body = arguments.clone();
        if let Some(object) = body.as_object_mut() {
            object.remove("graph");
        }
        let mut response = agent()
            .post(server.url(&format!("/graphs/{graph}/query")))
            .header("content-type", "application/json")
            .send(body.to_string())
            .unwrap();
        let status = response.status().as_u16();
        let http: Value = serde_json::from_str(&response.body_mut().read_to_string().unwrap())
            .unwrap_or_default();
        assert!(status >= 400, "HTTP {arguments}: {status}");
        assert_eq!(code_of(&http), *code, "HTTP {arguments}: {http}");
        assert_eq!(
            http["error"]["param"], tool_error["error"]["param"],
            "the same argument named: {arguments}"
        );

        assert_eq!(
            by_json.code, 1,
            "CLI --json {arguments}: {}",
            by_json.stderr
        );
        assert_eq!(
            cli_code(&by_json.stderr),
            *code,
            "CLI --json: {}",
            by_json.stderr
        );

        if let (Some((text, as_of)), Some(by_text)) = (sparql, by_text) {
            let mut request = agent().get(server.url("/sparql")).query("query", *text);
            if let Some(seq) = as_of {
                request = request.query("as_of", *seq);
            }
            let mut response = request.call().unwrap();
            assert!(response.status().as_u16() >= 400, "SPARQL protocol {text}");
            let protocol: Value =
                serde_json::from_str(&response.body_mut().read_to_string().unwrap())
                    .unwrap_or_default();
            assert_eq!(
                code_of(&protocol),
                *code,
                "SPARQL protocol {text}: {protocol}"
            );
            assert_eq!(
                cli_code(&by_text.stderr),
                *code,
                "CLI {text}: {}",
                by_text.stderr
            );
        }
    }
}
