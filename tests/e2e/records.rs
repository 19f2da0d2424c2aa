//! The agent tools' JSON contract on the other two surfaces: `POST /graphs/{g}/ontology`,
//! `/records` and `/query` over HTTP, and `strata configure|commit FILE.json`,
//! `strata query --structured|--traverse|--json` and `strata search` on the command line.
//! The same arguments give the same envelopes, pinned pages and coded errors as MCP.

use serde_json::{Value, json};

use crate::util::{Server, Strata, agent, served_at};

const ONTOLOGY: &str = r#"{"action": "define_ontology",
  "types": [{"name": "Ticket"}, {"name": "Bug"}],
  "relations": [{"name": "REPORTED_AS", "domain": "Ticket", "range": "Bug"}],
  "fields": [{"name": "severity", "type": "Bug", "value_type": "i64"}]}"#;

const RECORDS: &str = r#"{"triplets": [
    {"source": {"type": "Ticket", "name": "T-1"}, "relation": "REPORTED_AS", "target": {"type": "Bug", "name": "B-1"}},
    {"source": {"type": "Ticket", "name": "T-2"}, "relation": "REPORTED_AS", "target": {"type": "Bug", "name": "B-1"}},
    {"source": {"type": "Ticket", "name": "T-3"}, "relation": "REPORTED_AS", "target": {"type": "Bug", "name": "B-2"}}],
  "entity_properties": [{"entity": {"type": "Bug", "name": "B-1"}, "properties": {"severity": "3"}}],
  "message": "three tickets"}"#;

const STRUCTURED: &str = r#"{"patterns": [{"subject": {"var": "t"}, "predicate": "REPORTED_AS", "object": {"var": "b"}}],
  "group_by": ["b"], "aggregates": [{"func": "count", "as": "n"}], "order_by": [{"var": "n", "descending": true}]}"#;

const TRAVERSE: &str =
    r#"{"steps": [{"from_type": "Ticket"}, {"out": "REPORTED_AS"}], "fields": ["severity"]}"#;

/// `POST path` with a body: (status, Strata-Commit, JSON).
fn post(server: &Server, path: &str, content_type: &str, body: &str) -> (u16, Option<u64>, Value) {
    let mut response = agent()
        .post(server.url(path))
        .header("content-type", content_type)
        .send(body.to_owned())
        .unwrap_or_else(|e| panic!("POST {path}: {e}"));
    let status = response.status().as_u16();
    let commit = response
        .headers()
        .get("strata-commit")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok());
    let text = response.body_mut().read_to_string().unwrap_or_default();
    let json =
        serde_json::from_str(&text).unwrap_or_else(|_| panic!("POST {path}: not JSON: {text}"));
    (status, commit, json)
}

fn json_post(server: &Server, path: &str, body: &str) -> (u16, Option<u64>, Value) {
    post(server, path, "application/json", body)
}

fn query_body(mode: &str, key: &str, value: &str) -> String {
    format!(r#"{{"mode": "{mode}", "{key}": {value}}}"#)
}

#[test]
fn records_ontology_and_json_queries_over_http() {
    let strata = Strata::new();
    let server = strata.serve(&[]);

    let (status, commit, defined) = json_post(&server, "/graphs/desk/ontology", ONTOLOGY);
    assert_eq!((status, commit), (200, Some(1)), "{defined}");
    assert_eq!(defined["data"]["changed"], true);
    let (_, _, again) = json_post(&server, "/graphs/desk/ontology", ONTOLOGY);
    assert_eq!(
        (
            again["data"]["changed"].clone(),
            again["served_at_seq"].clone()
        ),
        (json!(false), json!(1))
    );

    let (status, commit, written) = json_post(&server, "/graphs/desk/records", RECORDS);
    assert_eq!((status, commit), (200, Some(2)), "{written}");
    assert_eq!(written["data"]["commit_seq"], 2);
    // The same content again is the same commit (idempotent, as over MCP).
    let (_, _, replay) = json_post(&server, "/graphs/desk/records", RECORDS);
    assert_eq!(
        (
            replay["data"]["commit_seq"].clone(),
            replay["data"]["idempotent_replay"].clone()
        ),
        (json!(2), json!(true))
    );

    // A structured query and a traversal: the rows MCP gives for the same arguments.
    let (status, commit, grouped) = json_post(
        &server,
        "/graphs/desk/query",
        &query_body("structured", "structured", STRUCTURED),
    );
    assert_eq!((status, commit), (200, Some(2)), "{grouped}");
    let rows = grouped["data"]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2, "{grouped}");
    assert_eq!(rows[0]["n"], 2);
    assert!(
        rows[0]["b"]["iri"]
            .as_str()
            .unwrap()
            .ends_with("/entity/bug/B-1"),
        "{grouped}"
    );
    let (_, _, walked) = json_post(
        &server,
        "/graphs/desk/query",
        &query_body("traverse", "traverse", TRAVERSE),
    );
    let severities: Vec<Value> = walked["data"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["severity"].clone())
        .collect();
    assert!(severities.contains(&json!(3)), "{walked}");

    // Pages are pinned: the second page is read at the first page's commit although a
    // commit landed in between; the answer's `next` is the next request's body.
    let sparql = r#"{"mode": "sparql", "sparql": "SELECT ?t WHERE { ?t a <http://strata.local/graphs/desk/class/ticket> } ORDER BY ?t", "row_limit": 2, "detail": "standard"}"#;
    let (_, _, first) = json_post(&server, "/graphs/desk/query", sparql);
    assert_eq!(
        first["data"]["rows"].as_array().unwrap().len(),
        2,
        "{first}"
    );
    let next = first["next"].to_string();
    let more = r#"{"triplets": [{"source": {"type": "Ticket", "name": "T-0"}, "relation": "REPORTED_AS", "target": {"type": "Bug", "name": "B-2"}}]}"#;
    assert_eq!(json_post(&server, "/graphs/desk/records", more).1, Some(3));
    let (status, commit, second) = json_post(&server, "/graphs/desk/query", &next);
    assert_eq!((status, commit), (200, Some(2)), "{second}");
    let rows = second["data"]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{second}");
    assert!(
        rows[0]["t"]["iri"].as_str().unwrap().ends_with("/T-3"),
        "{second}"
    );
    assert!(second.get("next").is_none(), "{second}");

    // Errors: coded, naming the argument, and nothing written.
    let (status, _, error) = post(&server, "/graphs/desk/records", "text/plain", RECORDS);
    assert_eq!(
        (status, error["error"]["code"].as_str()),
        (415, Some("unsupported_media_type"))
    );
    let (status, _, error) = json_post(&server, "/graphs/desk/records", "{not json");
    assert_eq!(
        (status, error["error"]["param"].as_str()),
        (400, Some("body")),
        "{error}"
    );
    let (status, _, error) = json_post(
        &server,
        "/graphs/desk/records",
        r#"{"graph": "main", "triplets": []}"#,
    );
    assert_eq!(
        (status, error["error"]["param"].as_str()),
        (400, Some("graph")),
        "{error}"
    );
    let bad_type = r#"{"triplets": [{"source": {"type": "Nope", "name": "x"}, "relation": "REPORTED_AS", "target": {"type": "Bug", "name": "y"}}]}"#;
    let (status, _, error) = json_post(&server, "/graphs/desk/records", bad_type);
    assert_eq!(status, 400, "{error}");
    assert_eq!(error["error"]["code"], "unknown_type");
    assert_eq!(error["error"]["param"], "triplets[0].source.type");
    let (status, _, error) = json_post(&server, "/graphs/desk/query", r#"{"mode": "structured"}"#);
    assert_eq!(
        (status, error["error"]["param"].as_str()),
        (400, Some("structured")),
        "{error}"
    );
    let (status, _, error) = json_post(
        &server,
        "/graphs/nosuch/query",
        &query_body("traverse", "traverse", TRAVERSE),
    );
    assert_eq!(
        (status, error["error"]["code"].as_str()),
        (404, Some("graph_not_found")),
        "{error}"
    );

    // The write headers every HTTP write takes fill in what the body leaves out.
    let keyed = |body: &str| {
        let mut response = agent()
            .post(server.url("/graphs/desk/records"))
            .header("content-type", "application/json")
            .header("idempotency-key", "import-7")
            .header("strata-message", "from the headers")
            .send(body.to_owned())
            .expect("POST");
        let status = response.status().as_u16();
        let json: Value =
            serde_json::from_str(&response.body_mut().read_to_string().unwrap()).unwrap();
        (status, json)
    };
    let one = r#"{"triplets": [{"source": {"type": "Ticket", "name": "T-8"}, "relation": "REPORTED_AS", "target": {"type": "Bug", "name": "B-2"}}]}"#;
    let other = r#"{"triplets": [{"source": {"type": "Ticket", "name": "T-9"}, "relation": "REPORTED_AS", "target": {"type": "Bug", "name": "B-2"}}]}"#;
    let (status, first_keyed) = keyed(one);
    assert_eq!(
        (status, first_keyed["data"]["commit_seq"].clone()),
        (200, json!(4)),
        "{first_keyed}"
    );
    let (status, conflict) = keyed(other);
    assert_eq!(
        (status, conflict["error"]["code"].as_str()),
        (409, Some("idempotency_conflict")),
        "{conflict}"
    );
    let mut log = agent()
        .get(server.url("/graphs/desk/commits?limit=1"))
        .call()
        .expect("GET commits");
    let log: Value = serde_json::from_str(&log.body_mut().read_to_string().unwrap()).unwrap();
    assert_eq!(log["commits"][0]["message"], "from the headers", "{log}");
    assert_eq!(log["commits"][0]["idempotency_key"], "import-7", "{log}");

    // Removals: a dry run shows them; the request itself approves them.
    let retract = r#"{"retract_entities": [{"type": "Ticket", "name": "T-1"}]}"#;
    let dry_run = r#"{"retract_entities": [{"type": "Ticket", "name": "T-1"}], "dry_run": true}"#;
    let dry = json_post(&server, "/graphs/desk/records", dry_run).2;
    assert_eq!(dry["data"]["would_delete"], 3, "{dry}");
    assert_eq!(dry["served_at_seq"], 4);
    let (status, commit, retracted) = json_post(&server, "/graphs/desk/records", retract);
    assert_eq!((status, commit), (200, Some(5)), "{retracted}");
    assert_eq!(retracted["data"]["deleted"], 3);
    assert!(server.stop().success());
}

#[test]
fn a_read_key_queries_but_cannot_write_records() {
    use sha2::Digest;
    let strata = Strata::new();
    let hash = |key: &str| -> String {
        sha2::Sha256::digest(key.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    };
    let config = strata.file(
        "config.json",
        json!({"api_keys": [
            {"name": "reader", "sha256": hash("r-key"), "scopes": ["read"]},
            {"name": "admin", "sha256": hash("a-key"), "scopes": ["read", "write", "admin"]}
        ]})
        .to_string(),
    );
    let server = strata.serve_with(&[
        "serve",
        "--http",
        "127.0.0.1:0",
        "--config",
        config.to_str().unwrap(),
    ]);
    let call = |key: &str, path: &str, body: &str| -> (u16, Value) {
        let mut response = agent()
            .post(server.url(path))
            .header("content-type", "application/json")
            .header("authorization", &format!("Bearer {key}"))
            .send(body.to_owned())
            .expect("POST");
        let status = response.status().as_u16();
        (
            status,
            serde_json::from_str(&response.body_mut().read_to_string().unwrap()).unwrap(),
        )
    };
    assert_eq!(call("a-key", "/graphs/main/ontology", ONTOLOGY).0, 200);
    let (status, error) = call("r-key", "/graphs/main/records", RECORDS);
    assert_eq!(
        (status, error["error"]["code"].as_str()),
        (403, Some("forbidden")),
        "{error}"
    );
    let (status, error) = call("r-key", "/graphs/main/ontology", ONTOLOGY);
    assert_eq!(status, 403, "{error}");
    let (status, answer) = call(
        "r-key",
        "/graphs/main/query",
        &query_body("traverse", "traverse", TRAVERSE),
    );
    assert_eq!(status, 200, "{answer}");
    assert!(server.stop().success());
}

#[test]
fn records_and_json_queries_from_the_cli() {
    let strata = Strata::new();
    let ontology = strata.file("ontology.json", ONTOLOGY);
    let records = strata.file("records.json", RECORDS);
    let structured = strata.file("structured.json", STRUCTURED);
    let envelope = |run: &crate::util::Run| -> Value {
        serde_json::from_str(run.ok()).unwrap_or_else(|_| panic!("not JSON: {}", run.stdout))
    };

    let defined = strata.run(&["configure", ontology.to_str().unwrap()]);
    assert_eq!(envelope(&defined)["data"]["commit_seq"], 1);
    let written = strata.run(&["commit", records.to_str().unwrap(), "--author", "ci"]);
    assert_eq!(served_at(&written.stderr), 2);
    assert!(envelope(&written)["data"]["inserted"].as_u64() > Some(0));
    let log: Value = serde_json::from_str(strata.run(&["log", "--format", "json"]).ok()).unwrap();
    assert_eq!(log[0]["author"], "ci", "{log}");
    assert_eq!(log[0]["message"], "three tickets", "{log}");

    let grouped = envelope(&strata.run(&["query", "--structured", structured.to_str().unwrap()]));
    assert_eq!(grouped["data"]["rows"][0]["n"], 2, "{grouped}");
    assert_eq!(grouped["served_at_seq"], 2);
    // Pinned to the ontology's commit: no tickets yet.
    let before = envelope(&strata.run(&[
        "query",
        "--structured",
        structured.to_str().unwrap(),
        "--as-of",
        "1",
    ]));
    assert_eq!(before["data"]["rows"], json!([]), "{before}");
    let walked = envelope(&strata.run_with_stdin(&["query", "--traverse", "-"], TRAVERSE));
    // The bugs the tickets report, each once.
    assert_eq!(
        walked["data"]["rows"].as_array().unwrap().len(),
        2,
        "{walked}"
    );

    // `--json`: any mode of the query tool, and `next` from one answer is the next file.
    let sparql = strata.file(
        "page.json",
        r#"{"mode": "sparql", "sparql": "SELECT ?t WHERE { ?t a <http://strata.local/graphs/main/class/ticket> } ORDER BY ?t", "row_limit": 2, "detail": "standard"}"#,
    );
    let first = envelope(&strata.run(&["query", "--json", sparql.to_str().unwrap()]));
    let next = strata.file("next.json", first["next"].to_string());
    let second = envelope(&strata.run(&["query", "--json", next.to_str().unwrap()]));
    assert_eq!(
        second["data"]["rows"].as_array().unwrap().len(),
        1,
        "{second}"
    );
    assert_eq!(second["served_at_seq"], 2);

    // Search a declared class (BM25 lane; `--strong` waits for the index).
    strata
        .run(&["update", r#"PREFIX strata: <https://strata.dev/ns#>
            INSERT DATA { GRAPH strata:embeddings { <https://strata.dev/ns#embedding/tickets> a strata:EmbeddingDeclaration ;
              strata:name "tickets" ; strata:targetClass <http://strata.local/graphs/main/class/ticket> ; strata:exclude "" ; strata:recipe "" } }"#])
        .ok();
    let mut command = strata.command();
    let output = command
        .env("STRATA_EMBEDDER", "hashed")
        .args([
            "search", "T-3", "--lane", "sparse", "--strong", "--top-k", "1",
        ])
        .output()
        .expect("strata search");
    let found: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&output.stderr)));
    assert_eq!(found["data"]["hits"][0]["label"], "T-3", "{found}");

    // Errors: one coded line naming the argument, exit 1, nothing written.
    let bad = strata.file(
        "bad.json",
        r#"{"entity_properties": [{"entity": {"type": "Bug", "name": "B-1"}, "properties": {"severity": "high"}}]}"#,
    );
    let stderr = strata
        .run(&["commit", bad.to_str().unwrap()])
        .fails_with(1)
        .to_owned();
    assert!(
        stderr.contains("error[value_type_mismatch] entity_properties[0].properties.severity"),
        "{stderr}"
    );
    let other = strata.file("other.json", r#"{"graph": "elsewhere", "triplets": []}"#);
    let stderr = strata
        .run(&["commit", other.to_str().unwrap()])
        .fails_with(1)
        .to_owned();
    assert!(stderr.contains("error[invalid_argument] graph"), "{stderr}");
    let stderr = strata
        .run(&["search", "x", "--filters", "[oops"])
        .fails_with(1)
        .to_owned();
    assert!(
        stderr.contains("error[invalid_argument] --filters"),
        "{stderr}"
    );
    assert_eq!(strata.n_commits("main"), 3);
}

/// The error of a refused JSON write: (status, code, param).
fn refusal(answer: (u16, Option<u64>, Value)) -> (u16, String, String) {
    let (status, _, json) = answer;
    let error = &json["error"];
    (
        status,
        error["code"]
            .as_str()
            .unwrap_or_else(|| panic!("{json}"))
            .to_owned(),
        error["param"].as_str().unwrap_or_default().to_owned(),
    )
}

/// What an agent's writes against an evolving ontology must get right: a value set back
/// or a link added again after its retraction lands (a content-derived key is a retry
/// only right after its commit); definitions that contradict the ontology are refused,
/// naming the argument; renames never merge two terms; records written under a type's
/// old name are found under the new; required fields are required of new records.
#[test]
fn writes_and_definitions_against_an_evolving_ontology() {
    let strata = Strata::new();
    let server = strata.serve(&[]);
    let ontology = |body: Value| json_post(&server, "/graphs/g/ontology", &body.to_string());
    let records = |body: Value| json_post(&server, "/graphs/g/records", &body.to_string());
    let (status, _, defined) = ontology(json!({"action": "define_ontology",
        "types": [{"name": "Bug"}, {"name": "Release"}, {"name": "Team"}],
        "relations": [{"name": "FIXED_IN", "domain": "Bug", "range": "Release"},
                      {"name": "OWNED_BY", "domain": "Bug", "range": "Team"}],
        "fields": [{"name": "status", "type": "Bug", "value_type": "keyword"},
                   {"name": "sev", "type": "Bug", "value_type": "i64"}]}));
    assert_eq!(status, 200, "{defined}");

    // open → closed → open: the third lands; the same again right after is a retry.
    let status_of = |value: &str| json!({"entity_properties": [{"entity": {"type": "Bug", "name": "B1"}, "properties": {"status": value}}]});
    let mut commits = Vec::new();
    for value in ["open", "closed", "open", "open"] {
        let (status, commit, answer) = records(status_of(value));
        assert_eq!(status, 200, "{answer}");
        commits.push((commit, answer["data"]["idempotent_replay"].clone()));
    }
    assert_eq!(
        commits,
        vec![
            (Some(2), json!(false)),
            (Some(3), json!(false)),
            (Some(4), json!(false)),
            (Some(4), json!(true)),
        ]
    );
    let link = json!([{"source": {"type": "Bug", "name": "B1"}, "relation": "FIXED_IN",
                       "target": {"type": "Release", "name": "1.0"}}]);
    assert_eq!(records(json!({"triplets": link})).1, Some(5));
    assert_eq!(records(json!({"retract_edges": link})).1, Some(6));
    let (_, commit, relinked) = records(json!({"triplets": link}));
    assert_eq!(
        (commit, relinked["data"]["idempotent_replay"].clone()),
        (Some(7), json!(false)),
        "{relinked}"
    );

    // Definitions that contradict the ontology, each refused at its argument.
    for (body, code, param) in [
        (
            json!({"action": "define_ontology", "fields": [{"name": "sev", "type": "Bug", "value_type": "text"}]}),
            "ontology_conflict",
            "fields[0].value_type",
        ),
        (
            json!({"action": "define_ontology", "relations": [{"name": "R", "domain": "Bug", "range": "Team", "inverse": "NOPE"}]}),
            "unknown_relation",
            "relations[0].inverse",
        ),
        (
            json!({"action": "define_ontology", "relations": [{"name": "R", "domain": "Nope", "range": "Team"}]}),
            "unknown_type",
            "relations[0].domain",
        ),
        (
            json!({"action": "define_ontology", "fields": [{"name": "n", "type": "Bug", "value_type": "i64", "allowed_values": ["x"]}]}),
            "invalid_argument",
            "fields[0].allowed_values[0]",
        ),
        (
            json!({"action": "define_ontology", "fields": [{"name": "FIXED_IN", "type": "Bug", "value_type": "text"}]}),
            "invalid_argument",
            "fields[0].name",
        ),
        (
            json!({"action": "define_ontology", "types": [{"name": "P", "super_types": ["Q"]}, {"name": "Q", "super_types": ["P"]}]}),
            "invalid_argument",
            "types[0].super_types",
        ),
        (
            json!({"action": "evolve_ontology", "changes": [{"op": "rename", "kind": "type", "from": "Bug", "to": "Team"}]}),
            "invalid_argument",
            "changes[0].to",
        ),
        (
            json!({"action": "evolve_ontology", "changes": [{"op": "rename", "kind": "field", "from": "sev", "to": "status"}]}),
            "invalid_argument",
            "changes[0].to",
        ),
        (
            json!({"action": "evolve_ontology", "changes": [{"op": "remove", "kind": "type", "name": "Team"}]}),
            "ontology_conflict",
            "changes",
        ),
    ] {
        assert_eq!(
            refusal(ontology(body.clone())),
            (400, code.to_owned(), param.to_owned()),
            "{body}"
        );
    }
    // Nothing of those was written; the same definitions again change nothing.
    let (_, commit, again) = ontology(json!({"action": "define_ontology",
        "types": [{"name": "Bug"}], "fields": [{"name": "sev", "type": "Bug", "value_type": "i64"}]}));
    assert_eq!(
        (commit, again["data"]["changed"].clone()),
        (Some(7), json!(false)),
        "{again}"
    );
    // A dry run of a removal others depend on names them.
    let (_, _, planned) = ontology(json!({"action": "evolve_ontology", "dry_run": true,
        "changes": [{"op": "remove", "kind": "type", "name": "Team"}]}));
    let conflicts = planned["data"]["conflicts"].to_string();
    assert!(conflicts.contains("OWNED_BY"), "{planned}");

    // A renamed type: its records are found under the new name, not made again.
    let (status, _, renamed) = ontology(json!({"action": "evolve_ontology",
        "changes": [{"op": "rename", "kind": "type", "from": "Release", "to": "Version"}]}));
    assert_eq!(status, 200, "{renamed}");
    let (status, _, linked) = records(
        json!({"triplets": [{"source": {"type": "Bug", "name": "B3"},
        "relation": "FIXED_IN", "target": {"type": "Version", "name": "1.0"}}]}),
    );
    assert_eq!(status, 200, "{linked}");
    let (_, _, named) = json_post(
        &server,
        "/graphs/g/query",
        r#"{"mode": "names", "name": "1.0"}"#,
    );
    let iris: Vec<&str> = named["data"]["candidates"][0]["records"]
        .as_array()
        .unwrap_or_else(|| panic!("{named}"))
        .iter()
        .filter_map(|r| r["iri"].as_str())
        .collect();
    assert_eq!(
        iris,
        vec!["http://strata.local/graphs/g/entity/release/1.0"],
        "{named}"
    );

    // Required fields: asked of new records, and a dry run of set_required names those
    // that lack it.
    let (_, _, planned) = ontology(json!({"action": "evolve_ontology", "dry_run": true,
        "changes": [{"op": "set_required", "field": "sev", "required": true}]}));
    assert!(
        planned["data"]["conflicts"]
            .to_string()
            .contains("entity/bug/B1"),
        "{planned}"
    );
    let (status, _, _) = ontology(json!({"action": "define_ontology",
        "fields": [{"name": "prio", "type": "Team", "value_type": "i64", "required": true}]}));
    assert_eq!(status, 200);
    let owned = json!([{"source": {"type": "Bug", "name": "B1"}, "relation": "OWNED_BY",
                        "target": {"type": "Team", "name": "Core"}}]);
    assert_eq!(
        refusal(records(json!({"triplets": owned}))),
        (
            400,
            "invalid_argument".to_owned(),
            "entity_properties".to_owned()
        )
    );
    let (status, _, written) = records(json!({"triplets": owned, "entity_properties":
        [{"entity": {"type": "Team", "name": "Core"}, "properties": {"prio": 1}}]}));
    assert_eq!(status, 200, "{written}");
    let (status, _, written) = records(
        json!({"triplets": [{"source": {"type": "Bug", "name": "B3"},
        "relation": "OWNED_BY", "target": {"type": "Team", "name": "Core"}}]}),
    );
    assert_eq!(
        status, 200,
        "an existing record is not asked again: {written}"
    );
}
