//! SHACL end to end: `strata validate` for CI (exit codes, text, JSON, JUnit read by a
//! real JUnit parser), and shapes enforced on writes over HTTP and MCP.

use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::mcp_mrtr::start;
use crate::util::{Strata, agent};

const SHAPES: &str = r#"@prefix ex: <http://example.org/support/> .
@prefix sh: <http://www.w3.org/ns/shacl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
ex:TicketShape a sh:NodeShape ; sh:targetClass ex:Ticket ;
  sh:property [ sh:path rdfs:label ; sh:minCount 1 ] ;
  sh:property [ sh:path ex:status ; sh:minCount 1 ; sh:in ( "open" "closed" ) ] .
"#;

const GOOD: &str = r#"@prefix ex: <http://example.org/support/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
ex:t1 a ex:Ticket ; rdfs:label "Login broken" ; ex:status "open" .
"#;

const BAD: &str = r#"@prefix ex: <http://example.org/support/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
ex:t2 a ex:Ticket ; ex:status "lost" .
"#;

#[test]
fn validate_files_exit_codes_and_reports() {
    let strata = Strata::new();
    let shapes = strata.file("shapes.ttl", SHAPES);
    let good = strata.file("good.ttl", GOOD);
    let bad = strata.file("bad.ttl", BAD);
    let (shapes, good, bad) = (
        shapes.to_str().unwrap(),
        good.to_str().unwrap(),
        bad.to_str().unwrap(),
    );

    let out = strata.run(&["validate", "--shapes", shapes, "--data", good]);
    assert!(out.ok().contains("conforms"), "{}", out.stdout);

    // Reject (the default) fails with 1 and a compiler-style line per result.
    let out = strata.run(&["validate", "--shapes", shapes, "--data", good, bad]);
    out.fails_with(1);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{}", out.stdout);
    for line in &lines[..2] {
        assert!(
            line.starts_with(&format!(
                "{bad}: violation: <http://example.org/support/t2>"
            )),
            "{line}"
        );
    }
    assert!(out.stdout.contains("<http://example.org/support/status>"));
    assert!(out.stdout.contains("[MinCount]") && out.stdout.contains("[In]"));
    assert!(
        !strata.data_dir().exists(),
        "validating files needs no data directory"
    );

    // Warn mode reports the same and exits 0.
    let out = strata.run(&[
        "validate", "--shapes", shapes, "--data", bad, "--mode", "warn", "--format", "json",
    ]);
    let report: Value = serde_json::from_str(out.ok()).expect("one JSON object");
    assert_eq!(report["conforms"], false);
    assert_eq!(report["result_count"], 2);
    let results = report["results"].as_array().unwrap();
    let constraints: Vec<&str> = results
        .iter()
        .map(|r| r["constraint"].as_str().unwrap())
        .collect();
    assert!(constraints.contains(&"http://www.w3.org/ns/shacl#InConstraintComponent"));
    let in_result = results
        .iter()
        .find(|r| {
            r["constraint"]
                .as_str()
                .unwrap()
                .ends_with("InConstraintComponent")
        })
        .unwrap();
    assert_eq!(in_result["focus_node"], "http://example.org/support/t2");
    assert_eq!(in_result["path"], "http://example.org/support/status");
    assert_eq!(in_result["value"], "lost");
    assert_eq!(in_result["severity"], "Violation");
    assert_eq!(
        in_result["node_shape"],
        "http://example.org/support/TicketShape"
    );
    assert!(in_result["message"].as_str().is_some_and(|m| !m.is_empty()));

    // Unusable input: exit 2, naming the argument.
    strata
        .run(&["validate", "--shapes", "missing.ttl", "--data", good])
        .fails_with(2);
    let broken = strata.file("broken.ttl", "<a> <b> .");
    let err = strata
        .run(&[
            "validate",
            "--shapes",
            shapes,
            "--data",
            broken.to_str().unwrap(),
        ])
        .fails_with(2)
        .to_owned();
    assert!(
        err.contains("--data") && err.contains("broken.ttl"),
        "{err}"
    );
    let bad_shapes = strata.file(
        "bad-shapes.ttl",
        "@prefix sh: <http://www.w3.org/ns/shacl#> . <http://e/S> a sh:NodeShape ; sh:targetClass <http://e/T> ; sh:minCount \"many\" .",
    );
    let err = strata
        .run(&[
            "validate",
            "--shapes",
            bad_shapes.to_str().unwrap(),
            "--data",
            good,
        ])
        .fails_with(2)
        .to_owned();
    assert!(err.contains("invalid_shapes"), "{err}");
}

/// Reads a JUnit file with a JUnit parser (junitparser when installed, as in CI; else the
/// standard library's XML parser) and returns `(tests, failures, failure names)`.
/// What a CI gate must not get wrong: blank node labels are each file's own (two files
/// that both say `_:x` hold two nodes, as when imported); doubles compare as numbers at
/// any magnitude; ill-formed `xsd:int`/`xsd:double`/`xsd:date` values are no match;
/// shapes files that define no shapes, a negative count or an `sh:sparql` constraint
/// are unusable input, not a pass.
#[test]
fn validate_reads_files_apart_and_compares_numbers_as_xpath_does() {
    let strata = Strata::new();
    let path = |name: &str, text: &str| strata.file(name, text).to_str().unwrap().to_owned();
    let person = path(
        "person.ttl",
        "@prefix sh: <http://www.w3.org/ns/shacl#> . @prefix ex: <http://example.org/> .\n\
         ex:S a sh:NodeShape ; sh:targetClass ex:Person ; sh:property [ sh:path ex:name ; sh:minCount 1 ] .",
    );
    let typed = path(
        "typed.ttl",
        "@prefix ex: <http://example.org/> . _:x a ex:Person .",
    );
    let named = path(
        "named.ttl",
        "@prefix ex: <http://example.org/> . _:x ex:name \"n\" .",
    );
    let out = strata.run(&["validate", "--shapes", &person, "--data", &typed, &named]);
    out.fails_with(1);
    assert!(out.stdout.contains("[MinCount]"), "{}", out.stdout);

    let ranges = path(
        "ranges.ttl",
        "@prefix sh: <http://www.w3.org/ns/shacl#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> . @prefix ex: <http://example.org/> .\n\
         ex:N a sh:NodeShape ; sh:targetClass ex:Body ; sh:property [ sh:path ex:mass ; sh:minExclusive 0 ] .\n\
         ex:M a sh:NodeShape ; sh:targetNode ex:t ; sh:property [ sh:path ex:d ; sh:minInclusive \"10\"^^xsd:double ] ;\n\
           sh:property [ sh:path ex:i ; sh:datatype xsd:int ] ; sh:property [ sh:path ex:f ; sh:datatype xsd:double ] ;\n\
           sh:property [ sh:path ex:day ; sh:datatype xsd:date ] .",
    );
    let values = path(
        "values.ttl",
        "@prefix ex: <http://example.org/> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n\
         ex:sun a ex:Body ; ex:mass 1.989e30 . ex:electron a ex:Body ; ex:mass 9.109e-31 . ex:hole a ex:Body ; ex:mass -1e-300 .\n\
         ex:t ex:d 1e30, \"INF\"^^xsd:double ; ex:i \"42\"^^xsd:int, \"3000000000\"^^xsd:int ;\n\
           ex:f \"+INF\"^^xsd:double, \"inf\"^^xsd:double ; ex:day \"2021-12-01\"^^xsd:date, \"2021-13-01\"^^xsd:date .",
    );
    let out = strata.run(&[
        "validate", "--shapes", &ranges, "--data", &values, "--format", "json", "--mode", "warn",
    ]);
    let report: Value = serde_json::from_str(out.ok()).expect("one JSON object");
    let mut found: Vec<(String, String)> = report["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["focus_node"].as_str().unwrap_or_default().to_owned(),
                r["value"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    found.sort();
    let expected: Vec<(String, String)> = [
        ("http://example.org/hole", "-1e-300"),
        ("http://example.org/t", "2021-13-01"),
        ("http://example.org/t", "3000000000"),
        ("http://example.org/t", "inf"),
    ]
    .iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    assert_eq!(found, expected, "{report}");

    for (name, shapes, says) in [
        (
            "none.ttl",
            "<http://e/a> <http://e/b> <http://e/c> .",
            "no shapes",
        ),
        (
            "negative.ttl",
            "@prefix sh: <http://www.w3.org/ns/shacl#> . <http://e/S> sh:targetClass <http://e/T> ; sh:property [ sh:path <http://e/p> ; sh:minCount -1 ] .",
            "sh:minCount",
        ),
        (
            "sparql.ttl",
            "@prefix sh: <http://www.w3.org/ns/shacl#> . <http://e/S> sh:targetClass <http://e/T> ; sh:sparql [ sh:select \"SELECT $this WHERE {}\" ] .",
            "SHACL-SPARQL",
        ),
    ] {
        let shapes = path(name, shapes);
        let err = strata
            .run(&["validate", "--shapes", &shapes, "--data", &typed])
            .fails_with(2)
            .to_owned();
        assert!(
            err.contains("--shapes") && err.contains(says),
            "{name}: {err}"
        );
    }
}

fn parse_junit(path: &std::path::Path) -> Option<(u64, u64, Vec<String>)> {
    let script = r#"
import json, sys
path = sys.argv[1]
try:
    from junitparser import JUnitXml, Failure
    xml = JUnitXml.fromfile(path)
    tests = failures = 0
    names = []
    for suite in xml:
        for case in suite:
            tests += 1
            if any(isinstance(r, Failure) for r in case.result):
                failures += 1
                names.append(case.name)
    parser = "junitparser"
except ImportError:
    import xml.etree.ElementTree as ET
    root = ET.parse(path).getroot()
    cases = root.iter("testcase")
    tests = failures = 0
    names = []
    for case in cases:
        tests += 1
        if case.find("failure") is not None:
            failures += 1
            names.append(case.get("name"))
    parser = "xml.etree"
print(json.dumps({"tests": tests, "failures": failures, "names": names, "parser": parser}))
"#;
    let output = Command::new("python3")
        .args(["-c", script, path.to_str().unwrap()])
        .stderr(Stdio::inherit())
        .output()
        .ok()?;
    if !output.status.success() {
        return None;
    }
    let value: Value = serde_json::from_slice(&output.stdout).ok()?;
    if std::env::var("STRATA_REQUIRE_JUNITPARSER").is_ok_and(|v| v == "1") {
        assert_eq!(
            value["parser"], "junitparser",
            "junitparser must be installed"
        );
    }
    Some((
        value["tests"].as_u64()?,
        value["failures"].as_u64()?,
        value["names"]
            .as_array()?
            .iter()
            .filter_map(|n| n.as_str().map(str::to_owned))
            .collect(),
    ))
}

#[test]
fn validate_writes_junit_that_a_junit_parser_reads() {
    let strata = Strata::new();
    let shapes = strata.file("shapes.ttl", SHAPES);
    let good = strata.file("good.ttl", GOOD);
    let bad = strata.file("bad.ttl", BAD);
    let junit = strata.dir.path().join("report.xml");
    let out = strata.run(&[
        "validate",
        "--shapes",
        shapes.to_str().unwrap(),
        "--data",
        good.to_str().unwrap(),
        bad.to_str().unwrap(),
        "--format",
        "junit",
        "--output",
        junit.to_str().unwrap(),
    ]);
    out.fails_with(1);
    assert!(out.stderr.contains("does not conform"), "{}", out.stderr);
    let Some((tests, failures, names)) = parse_junit(&junit) else {
        println!("SKIP: python3 is not available to parse the JUnit report");
        return;
    };
    assert_eq!((tests, failures), (2, 2), "{names:?}");
    assert!(
        names
            .iter()
            .all(|n| n.contains("TicketShape") && n.contains("/t2")),
        "{names:?}"
    );
    // JUnit readers merge test cases of one name: each failure has its own.
    let distinct: std::collections::BTreeSet<&String> = names.iter().collect();
    assert_eq!(distinct.len(), names.len(), "{names:?}");
}

#[test]
fn validate_a_graph_at_a_commit() {
    let strata = Strata::new();
    let shapes = strata.file("shapes.ttl", SHAPES);
    let good = strata.file("good.ttl", GOOD);
    let bad = strata.file("bad.ttl", BAD);
    strata.run(&["import", good.to_str().unwrap()]).ok();
    strata.run(&["import", bad.to_str().unwrap()]).ok();
    let shapes = shapes.to_str().unwrap();
    strata
        .run(&["validate", "--shapes", shapes, "--graph", "main"])
        .fails_with(1);
    let out = strata.run(&[
        "validate", "--shapes", shapes, "--graph", "main", "--as-of", "1",
    ]);
    assert!(out.ok().contains("conforms"));
    assert!(
        strata
            .run(&["validate", "--shapes", shapes, "--as-of", "9"])
            .fails_with(2)
            .contains("commit_not_found")
    );
    // Without --shapes, the graph's published shapes are used: it has none yet.
    assert!(
        strata
            .run(&["validate", "--graph", "main"])
            .fails_with(2)
            .contains("no published shapes")
    );
}

fn put_shapes(base: &str, graph: &str, mode: &str, extra: &str) -> (u16, Value) {
    let mut response = agent()
        .put(format!("{base}/graphs/{graph}/shapes?mode={mode}{extra}"))
        .header("content-type", "text/turtle")
        .send(SHAPES)
        .expect("PUT shapes");
    let status = response.status().as_u16();
    let body = response.body_mut().read_to_string().unwrap();
    (status, serde_json::from_str(&body).unwrap_or(Value::Null))
}

fn update(base: &str, text: &str) -> (u16, Value) {
    let mut response = agent()
        .post(format!("{base}/graphs/main/update"))
        .header("content-type", "application/sparql-update")
        .send(format!(
            "PREFIX ex: <http://example.org/support/> PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#> {text}"
        ))
        .expect("POST update");
    let status = response.status().as_u16();
    let body = response.body_mut().read_to_string().unwrap();
    (status, serde_json::from_str(&body).unwrap_or(Value::Null))
}

fn get_json(url: &str) -> (u16, Value) {
    let mut response = agent().get(url).call().expect("GET");
    let status = response.status().as_u16();
    let body = response.body_mut().read_to_string().unwrap();
    (status, serde_json::from_str(&body).unwrap_or(Value::Null))
}

#[test]
fn http_writes_are_checked_against_published_shapes() {
    let strata = Strata::new();
    let server = strata.serve(&[]);
    let base = server.url("");
    let (status, _) = update(
        &base,
        "INSERT DATA { ex:t1 a ex:Ticket ; rdfs:label \"a\" ; ex:status \"open\" . ex:t0 a ex:Ticket }",
    );
    assert_eq!(status, 200);
    let (status, _) = get_json(&server.url("/graphs/main/conformance"));
    assert_eq!(status, 404, "no shapes yet");

    // A dry run reports what the data would violate and writes nothing.
    let (status, preview) = put_shapes(&base, "main", "reject", "&dry_run=true");
    assert_eq!(status, 200, "{preview}");
    assert_eq!(preview["report"]["result_count"], 2, "{preview}");
    assert_eq!(
        preview["target_classes"],
        json!(["http://example.org/support/Ticket"])
    );
    assert!(preview["commit_seq"].is_null());

    let (status, published) = put_shapes(&base, "main", "reject", "");
    assert_eq!(status, 200, "{published}");
    assert_eq!(published["commit_seq"], 2);
    assert_eq!(published["validation"]["scope"], "graph");
    let mut shapes = agent()
        .get(server.url("/graphs/main/shapes"))
        .call()
        .unwrap();
    assert_eq!(shapes.headers()["strata-validation-mode"], "reject");
    assert!(
        shapes
            .body_mut()
            .read_to_string()
            .unwrap()
            .contains("TicketShape")
    );

    // Reject: 422 with the report, and the head does not move.
    let (status, error) = update(
        &base,
        "INSERT DATA { ex:t2 a ex:Ticket ; rdfs:label \"b\" ; ex:status \"lost\" }",
    );
    assert_eq!(status, 422, "{error}");
    assert_eq!(error["error"]["code"], "shacl_violation");
    let result = &error["error"]["report"]["results"][0];
    assert_eq!(result["focus_node"], "http://example.org/support/t2");
    assert_eq!(result["path"], "http://example.org/support/status");
    assert_eq!(result["value"], "lost");
    let (_, log) = get_json(&server.url("/graphs/main/commits"));
    assert_eq!(log["head_seq"], 2);

    // Graph Store writes are checked too.
    let mut response = agent()
        .post(server.url("/graphs/main/store?default"))
        .header("content-type", "text/turtle")
        .send("<http://example.org/support/t3> a <http://example.org/support/Ticket> .")
        .unwrap();
    assert_eq!(response.status().as_u16(), 422);
    assert!(
        response
            .body_mut()
            .read_to_string()
            .unwrap()
            .contains("shacl_violation")
    );

    // Fixing a record lands; the conformance report follows the commits.
    let (status, fixed) = update(
        &base,
        "INSERT DATA { ex:t0 rdfs:label \"c\" ; ex:status \"closed\" }",
    );
    assert_eq!(status, 200, "{fixed}");
    assert_eq!(fixed["validation"]["conforms"], true);
    let (status, report) = get_json(&server.url("/graphs/main/conformance"));
    assert_eq!(status, 200);
    assert_eq!(report["conforms"], true, "{report}");
    assert_eq!(report["validated_at_seq"], 3);

    // Warn mode: bad writes land and carry their report.
    let (status, _) = put_shapes(&base, "main", "warn", "");
    assert_eq!(status, 200);
    let (status, landed) = update(&base, "INSERT DATA { ex:t4 a ex:Ticket }");
    assert_eq!(status, 200, "{landed}");
    assert_eq!(landed["validation"]["violation_count"], 2);
    let (_, report) = get_json(&server.url("/graphs/main/conformance?limit=1"));
    assert_eq!(report["result_count"], 2);
    assert_eq!(report["results"].as_array().unwrap().len(), 1);
}

#[test]
fn mcp_publish_schema_asks_before_reject_rules_and_commits_get_reports() {
    let strata = Strata::new();
    let (mut child, mut session) = start(&strata, &["serve", "--stdio", "--no-demo"]);
    let insert = json!({"action": "update", "sparql": "INSERT DATA { <http://example.org/support/t0> a <http://example.org/support/Ticket> }"});
    assert!(
        session.tool("rdf", insert, None)["structuredContent"]["data"]["commit_seq"].is_number()
    );

    let dry = session.tool(
        "configure",
        json!({"action": "publish_schema", "shapes": SHAPES, "desired_mode": "reject", "dry_run": true}),
        None,
    );
    let data = &dry["structuredContent"]["data"];
    assert_eq!(data["records_violating"], 1, "{dry}");
    assert_eq!(
        data["target_classes"],
        json!(["http://example.org/support/Ticket"])
    );

    // Unknown names are reported, not refused.
    let odd = SHAPES.replace("ex:status", "ex:stat");
    let dry = session.tool(
        "configure",
        json!({"action": "publish_schema", "shapes": odd, "dry_run": true}),
        None,
    );
    assert_eq!(
        dry["structuredContent"]["data"]["unknown_properties"],
        json!(["http://example.org/support/stat"]),
        "{dry}"
    );

    let publish = json!({"action": "publish_schema", "shapes": SHAPES, "desired_mode": "reject"});
    let question = session.tool("configure", publish.clone(), None);
    assert_eq!(question["resultType"], "input_required", "{question}");
    let message = question["inputRequests"]["approval"]["params"]["message"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        message.contains("http://example.org/support/Ticket"),
        "{message}"
    );
    let approve = json!({"approval": {"action": "accept", "content": {"approve": true}}});
    let done = session.tool(
        "configure",
        publish,
        Some((question["requestState"].clone(), approve)),
    );
    assert_eq!(
        done["structuredContent"]["data"]["mode"], "reject",
        "{done}"
    );

    let schema = session.tool("inspect", json!({"action": "schema"}), None);
    assert_eq!(
        schema["structuredContent"]["data"]["mode"], "reject",
        "{schema}"
    );

    let bad = json!({"action": "update", "sparql": "INSERT DATA { <http://example.org/support/t9> a <http://example.org/support/Ticket> }"});
    let refused = session.tool("rdf", bad, None);
    assert_eq!(refused["isError"], true);
    let error = &refused["structuredContent"]["error"];
    assert_eq!(error["code"], "shacl_violation", "{refused}");
    assert_eq!(
        error["report"]["results"][0]["focus_node"],
        "http://example.org/support/t9"
    );

    let conformance = session.tool(
        "inspect",
        json!({"action": "conformance", "detail": "compact"}),
        None,
    );
    let data = &conformance["structuredContent"]["data"];
    assert_eq!(data["conforms"], false, "{conformance}");
    assert_eq!(data["focus_node_count"], 1);
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn shapes_are_data_and_the_cli_shows_reports() {
    let strata = Strata::new();
    // Publishing shapes is a write to the shapes graph, here with SPARQL Update.
    let publish = r#"PREFIX sh: <http://www.w3.org/ns/shacl#> PREFIX ex: <http://example.org/support/>
INSERT DATA { GRAPH <https://strata.dev/ns#shapes> {
  ex:TicketShape a sh:NodeShape ; sh:targetClass ex:Ticket ; sh:property [ sh:path ex:status ; sh:minCount 1 ] .
  <https://strata.dev/ns#shapes> <https://strata.dev/ns#validationMode> "reject" } }"#;
    strata.run(&["update", publish]).ok();
    let bad = strata.run(&[
        "update",
        "INSERT DATA { <http://example.org/support/t1> a <http://example.org/support/Ticket> }",
    ]);
    let err = bad.fails_with(1).to_owned();
    assert!(err.contains("error[shacl_violation]"), "{err}");
    assert!(
        err.contains("shacl (reject): violation: <http://example.org/support/t1> <http://example.org/support/status>"),
        "{err}"
    );
    assert_eq!(
        strata.n_commits("main"),
        1,
        "the rejected update wrote nothing"
    );
    // A bad mode value is refused as invalid shapes.
    let odd = strata.run(&[
        "update",
        "INSERT DATA { GRAPH <https://strata.dev/ns#shapes> { <https://strata.dev/ns#shapes> <https://strata.dev/ns#validationMode> \"strict\" } }",
    ]);
    assert!(
        odd.fails_with(1).contains("invalid_shapes"),
        "{}",
        odd.stderr
    );
    strata
        .run(&[
            "update",
            "INSERT DATA { <http://example.org/support/t1> a <http://example.org/support/Ticket> ; <http://example.org/support/status> \"open\" }",
        ])
        .ok();
    assert_eq!(strata.n_commits("main"), 2);
}

/// Issue 27: a dry run listed 50 results of more with no `results_truncated` flag (the
/// real publish set it).
#[test]
fn a_publish_dry_run_says_when_its_results_are_cut() {
    let strata = Strata::new();
    let (mut child, mut session) = start(&strata, &["serve", "--stdio", "--no-demo"]);
    let tickets: String = (0..30)
        .map(|i| {
            format!("<http://example.org/support/t{i}> a <http://example.org/support/Ticket> . ")
        })
        .collect();
    let insert = json!({"action": "update", "sparql": format!("INSERT DATA {{ {tickets} }}")});
    assert!(
        session.tool("rdf", insert, None)["structuredContent"]["data"]["commit_seq"].is_number()
    );
    let mut dry = |shapes: &str| -> Value {
        session.tool(
            "configure",
            json!({"action": "publish_schema", "shapes": shapes, "dry_run": true}),
            None,
        )["structuredContent"]["data"]["report"]
            .clone()
    };
    // 30 tickets, each without a label and a status: 60 results, 50 shown.
    let cut = dry(SHAPES);
    assert_eq!(cut["result_count"], 60, "{cut}");
    assert_eq!(cut["results"].as_array().unwrap().len(), 50);
    assert_eq!(cut["results_truncated"], true, "{cut}");
    // Only the label: 30 results, all shown.
    let label_only = SHAPES
        .replace(
            "sh:property [ sh:path ex:status ; sh:minCount 1 ; sh:in ( \"open\" \"closed\" ) ] .",
            ".",
        )
        .replace("sh:minCount 1 ] ;\n  .", "sh:minCount 1 ] .");
    let whole = dry(&label_only);
    assert_eq!(whole["result_count"], 30, "{whole} {label_only}");
    assert_eq!(whole["results_truncated"], false, "{whole}");
    drop(session);
    let _ = child.wait();
}
