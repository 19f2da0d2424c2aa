//! Search end to end with the default model (all-MiniLM-L6-v2, fetched by
//! `scripts/fetch-model.sh`): declare over MCP, search by meaning over MCP, and `search:`
//! patterns over the SPARQL Protocol.

use serde_json::{Value, json};

use crate::mcp_mrtr::start;
use crate::util::{Strata, agent};

fn model_present() -> bool {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models/all-MiniLM-L6-v2");
    let present = dir.join("model.safetensors").is_file();
    if !present {
        assert!(
            std::env::var("STRATA_REQUIRE_MODEL").as_deref() != Ok("1"),
            "the embedding model must be fetched (scripts/fetch-model.sh)"
        );
        println!(
            "SKIP: no embedding model in {} (run scripts/fetch-model.sh)",
            dir.display()
        );
    }
    present
}

const DATA: &str = r#"@prefix ex: <http://example.org/support/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
ex:t1 a ex:Ticket ; rdfs:label "authentication is broken for everyone" ; ex:status "open" ; ex:priority 3 .
ex:t2 a ex:Ticket ; rdfs:label "invoice PDF is blank" ; ex:status "open" ; ex:priority 1 .
ex:t3 a ex:Ticket ; rdfs:label "forgot password recovery steps" ; ex:status "closed" ; ex:priority 2 .
ex:t4 a ex:Ticket ; rdfs:label "the app crashes when I upload a photo" ; ex:status "open" ; ex:priority 2 .
ex:n1 a ex:Note ; rdfs:label "login fails after 3.1" .
"#;

#[test]
fn search_by_meaning_over_mcp_and_sparql() {
    if !model_present() {
        return;
    }
    let strata = Strata::new();
    // The operator's cap on indexing threads is taken (one thread: the same answers);
    // a cap of 0 is refused, naming the option.
    let refused = strata.run(&["--index-threads", "0", "graphs"]);
    assert!(refused.fails_with(2).contains("--index-threads"));
    let (mut child, mut session) = start(
        &strata,
        &["serve", "--stdio", "--no-demo", "--index-threads", "1"],
    );
    let import = session.tool(
        "rdf",
        json!({"action": "import", "format": "turtle", "content": DATA}),
        None,
    );
    assert!(
        import["structuredContent"]["data"]["commit_seq"].is_number(),
        "{import}"
    );

    let declared = session.tool(
        "embeddings",
        json!({"action": "declare", "class": "http://example.org/support/Ticket", "from": ["http://www.w3.org/2000/01/rdf-schema#label"]}),
        None,
    );
    assert_eq!(
        declared["structuredContent"]["data"]["records"], 4,
        "{declared}"
    );
    let preview = session.tool(
        "embeddings",
        json!({"action": "preview", "name": "ticket"}),
        None,
    );
    let texts: Vec<&str> = preview["structuredContent"]["data"]["records"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["text"].as_str())
        .collect();
    assert!(texts.contains(&"invoice PDF is blank"), "{preview}");

    let search = |session: &mut crate::mcp_mrtr::Session, args: Value| -> Value {
        let mut args = args;
        args["mode"] = "search".into();
        args["consistency"] = "strong".into();
        session.tool("query", args, None)["structuredContent"].clone()
    };
    // Meaning, not words: no word of the query appears in the best ticket.
    let found = search(
        &mut session,
        json!({"text": "users cannot sign in", "lane": "dense", "top_k": 2}),
    );
    let hits = found["data"]["hits"]
        .as_array()
        .unwrap_or_else(|| panic!("{found}"));
    assert_eq!(hits[0]["iri"], "http://example.org/support/t1", "{found}");
    assert!(hits[0]["score"].as_f64().unwrap() > 0.4);
    assert_eq!(hits[0]["label"], "authentication is broken for everyone");
    assert!(
        !found["data"]["hits"].to_string().contains("/n1"),
        "notes are not indexed"
    );

    // Filters: typed field and keyword; plan reported.
    let found = search(
        &mut session,
        json!({"text": "account access problem", "filters": [{"field": "http://example.org/support/status", "op": "eq", "value": "closed"}]}),
    );
    assert_eq!(found["data"]["plan"], "filter_first", "{found}");
    let hits = found["data"]["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0]["iri"], "http://example.org/support/t3");
    let explain = search(
        &mut session,
        json!({"text": "x", "explain": true, "filters": [{"field": "http://example.org/support/priority", "op": "ge", "value": 2}]}),
    );
    assert_eq!(explain["data"]["candidates"], 3, "{explain}");

    // The query tool's description names what is searchable, with real example values.
    let tools = session.call("tools/list", json!({}));
    let query_tool = tools["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "query")
        .unwrap()
        .clone();
    let description = query_tool["description"].as_str().unwrap();
    assert!(
        description.contains("Searchable now")
            && description.contains("http://example.org/support/Ticket")
            && description.contains("http://example.org/support/status (keyword, e.g. \"open\")"),
        "{description}"
    );

    // A vector supplied by the caller replaces the model's for that record.
    let vector: Vec<f64> = (0..384)
        .map(|i| if i % 7 == 0 { 1.0 } else { 0.0 })
        .collect();
    let supplied = session.tool(
        "commit",
        json!({"entity_embeddings": [{"iri": "http://example.org/support/t4", "vector": vector}]}),
        None,
    );
    assert!(
        supplied["structuredContent"]["data"]["commit_seq"].is_number(),
        "{supplied}"
    );
    let bad = session.tool(
        "commit",
        json!({"entity_embeddings": [{"iri": "http://example.org/support/t4", "vector": [1.0, 2.0]}]}),
        None,
    );
    assert_eq!(
        bad["structuredContent"]["error"]["param"], "entity_embeddings[0].vector",
        "{bad}"
    );
    let found = search(
        &mut session,
        json!({"embedding": vector, "lane": "dense", "top_k": 1}),
    );
    let hit = &found["data"]["hits"][0];
    assert_eq!(hit["iri"], "http://example.org/support/t4", "{found}");
    assert!(hit["score"].as_f64().unwrap() > 0.99, "{found}");

    let publication = session.tool("inspect", json!({"action": "publication"}), None);
    let index = &publication["structuredContent"]["data"]["indexes"][0];
    assert_eq!(index["lag"], 0, "{publication}");
    let _ = child.kill();
    let _ = child.wait();

    // The same data directory over HTTP: `search:` inside the SPARQL Protocol.
    let server = strata.serve(&[]);
    let query = "PREFIX search: <https://strata.dev/ns/search#> PREFIX ex: <http://example.org/support/>
        SELECT ?t ?s WHERE { ?t search:nearest \"login does not work\" ; search:lane \"dense\" ; search:k 2 ; search:score ?s . ?t ex:status \"open\" } ORDER BY DESC(?s)";
    let mut response = agent()
        .get(server.url("/graphs/main/sparql"))
        .query("query", query)
        .header("accept", "application/sparql-results+json")
        .call()
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let header = response.headers()["strata-search"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(header.contains("plan=filter_first"), "{header}");
    let body: Value = serde_json::from_str(&response.body_mut().read_to_string().unwrap()).unwrap();
    let rows = body["results"]["bindings"].as_array().unwrap();
    assert_eq!(rows.len(), 2, "{body}");
    assert_eq!(
        rows[0]["t"]["value"], "http://example.org/support/t1",
        "{body}"
    );
    assert!(
        rows.iter()
            .all(|r| r["t"]["value"] != "http://example.org/support/t3"),
        "closed tickets are filtered"
    );

    // t1 says something else from now on: a read pinned before reads what it said then.
    let before: u64 = response.headers()["strata-commit"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    let changed = agent()
        .post(server.url("/graphs/main/update"))
        .header("content-type", "application/sparql-update")
        .send("PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#> DELETE { <http://example.org/support/t1> rdfs:label ?l } INSERT { <http://example.org/support/t1> rdfs:label \"the office plants need water\" } WHERE { <http://example.org/support/t1> rdfs:label ?l }")
        .unwrap();
    assert!(changed.status().is_success());
    let nearest = "PREFIX search: <https://strata.dev/ns/search#>
        SELECT ?t WHERE { ?t search:nearest \"login does not work\" ; search:lane \"dense\" ; search:k 1 }";
    let first_hit = |as_of: Option<u64>| -> (String, String) {
        let mut request = agent()
            .get(server.url("/graphs/main/sparql"))
            .query("query", nearest)
            .header("accept", "application/sparql-results+json");
        if let Some(seq) = as_of {
            request = request.query("as_of", seq.to_string());
        }
        let mut response = request.call().unwrap();
        let header = response.headers()["strata-search"]
            .to_str()
            .unwrap()
            .to_owned();
        let body: Value =
            serde_json::from_str(&response.body_mut().read_to_string().unwrap()).unwrap();
        let hit = body["results"]["bindings"][0]["t"]["value"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        (hit, header)
    };
    let (then, header) = first_hit(Some(before));
    assert_eq!(then, "http://example.org/support/t1", "{header}");
    assert!(header.contains("exact=true"), "{header}");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let (now, header) = first_hit(None);
        if now != "http://example.org/support/t1" {
            assert!(header.contains("exact=true"), "{header}");
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "t1 still first: {header}"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// A date alone compared with moments is that whole day (UTC), in search filters,
/// traversal filters and structured filters alike: `>=` and `<=` both hold for any moment
/// of the day (search used its last instant for every operator, structured its first,
/// traverse compared it as text and matched no moment at all).
#[test]
fn a_date_alone_is_the_whole_day_in_every_filter() {
    if !model_present() {
        return;
    }
    let strata = Strata::new();
    let (mut child, mut session) = start(&strata, &["serve", "--stdio", "--no-demo"]);
    let data = r#"@prefix ex: <http://example.org/support/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:e1 a ex:Event ; rdfs:label "e1" ; ex:at "2020-12-31T23:30:00-05:00"^^xsd:dateTime .
ex:e2 a ex:Event ; rdfs:label "e2" ; ex:at "2021-01-01T01:00:00Z"^^xsd:dateTime .
ex:e3 a ex:Event ; rdfs:label "e3" ; ex:at "2021-01-02T00:00:00Z"^^xsd:dateTime .
ex:e4 a ex:Event ; rdfs:label "e4" ; ex:at "2020-12-31T12:00:00Z"^^xsd:dateTime .
ex:e5 a ex:Event ; rdfs:label "e5" ; ex:at "2021-01-01"^^xsd:date .
ex:e6 a ex:Event ; rdfs:label "e6" ; ex:at "2021-01-01" .
"#;
    let import = session.tool(
        "rdf",
        json!({"action": "import", "format": "turtle", "content": data}),
        None,
    );
    assert!(
        import["structuredContent"]["data"]["commit_seq"].is_number(),
        "{import}"
    );
    let declared = session.tool(
        "embeddings",
        json!({"action": "declare", "class": "http://example.org/support/Event", "from": ["http://www.w3.org/2000/01/rdf-schema#label"]}),
        None,
    );
    assert_eq!(
        declared["structuredContent"]["data"]["records"], 6,
        "{declared}"
    );
    let at = "http://example.org/support/at";
    let day = "2021-01-01";
    // e1 and e2 fall on the day (e1 in UTC), e5 is the date, e6 the text; e3 after, e4 before.
    for (op, symbol, expected, without_text) in [
        ("ge", ">=", 5, 4),
        ("le", "<=", 5, 4),
        ("lt", "<", 1, 1),
        ("gt", ">", 1, 1),
        ("eq", "==", 4, 3),
        // Structured compares with a moment (`date_time`): the text is not one, so it is
        // "not that day" there, where search and traverse also compare the text.
        ("ne", "!=", 2, 3),
    ] {
        let searched = session.tool(
            "query",
            json!({"mode": "search", "text": "e", "explain": true, "consistency": "strong",
                "filters": [{"field": at, "op": op, "value": day}]}),
            None,
        )["structuredContent"]
            .clone();
        assert_eq!(
            searched["data"]["candidates"], expected,
            "search {op}: {searched}"
        );
        let walked = session.tool(
            "query",
            json!({"mode": "traverse", "traverse": {"steps": [
                {"from_type": "http://example.org/support/Event"},
                {"filter": {"properties": [[{"field": at, "op": symbol, "value": day}]]}},
                {"count": true}]}}),
            None,
        )["structuredContent"]
            .clone();
        assert_eq!(
            walked["data"]["rows"][0]["count"], expected,
            "traverse {symbol}: {walked}"
        );
        let structured = session.tool(
            "query",
            json!({"mode": "structured", "structured": {
                "patterns": [{"subject": {"var": "e"}, "predicate": "type", "object": {"iri": "http://example.org/support/Event"}}],
                "filters": [{"op": op, "left": {"field": {"var": "e", "name": at}}, "right": {"value": day, "datatype": "date_time"}}],
                "aggregates": [{"func": "count", "as": "n"}]}}),
            None,
        )["structuredContent"]
            .clone();
        assert_eq!(
            structured["data"]["rows"][0]["n"], without_text,
            "structured {op}: {structured}"
        );
    }
    let between = session.tool(
        "query",
        json!({"mode": "search", "text": "e", "explain": true, "consistency": "strong",
            "filters": [{"field": at, "op": "between", "value": [day, day]}]}),
        None,
    )["structuredContent"]
        .clone();
    assert_eq!(between["data"]["candidates"], 4, "{between}");
    drop(session);
    let _ = child.wait();
}
