//! The `query` modes beyond SPARQL, on the demo graph, each checked against what a
//! hand-written SPARQL query (or the log) says at the same commit.

use serde_json::{Value, json};

use crate::mcp_mrtr::{Session, start};
use crate::util::Strata;

const EX: &str = "http://example.org/support/";

/// Imports Turtle into a fresh graph as its first commit.
fn import_first_commit(session: &mut Session, turtle: &str) {
    let imported = session.tool(
        "rdf",
        json!({"action": "import", "format": "turtle", "content": turtle}),
        None,
    );
    assert_eq!(
        imported["structuredContent"]["data"]["commit_seq"], 1,
        "{imported}"
    );
}

#[test]
fn names_commit_at_compare_paths_and_neighborhood_on_the_demo_graph() {
    let strata = Strata::new();
    let (mut child, mut session) = start(&strata, &["serve", "--stdio"]);
    let mut query = |arguments: Value| -> Value {
        session.tool("query", arguments, None)["structuredContent"].clone()
    };

    // names: case-insensitive match first, with the record's type.
    let names = query(json!({"mode": "names", "name": "t-1002"}));
    let best = &names["data"]["candidates"][0];
    assert_eq!(best["name"], "T-1002", "{names}");
    assert_eq!(best["match"], "case_insensitive");
    assert_eq!(best["records"][0]["iri"], format!("{EX}t-1002"));
    assert_eq!(best["records"][0]["types"][0], format!("{EX}Ticket"));
    let exact = query(json!({"mode": "names", "name": "BUG-117"}));
    assert_eq!(exact["data"]["candidates"][0]["match"], "exact");

    // commit_at: the head at a moment; before the first commit there is none.
    let now = query(json!({"mode": "commit_at", "at": "2999-01-01"}));
    assert_eq!(now["data"]["commit_seq"], 2, "{now}");
    let before = query(json!({"mode": "commit_at", "at": "2000-01-01"}));
    assert_eq!(before["error"]["code"], "commit_not_found");
    assert_eq!(before["error"]["param"], "at");

    // compare: commit 2 closed the two tickets of BUG-117.
    let statuses = format!(
        "SELECT ?ticket ?status WHERE {{ ?t a <{EX}Ticket> ; <http://www.w3.org/2000/01/rdf-schema#label> ?ticket ; <{EX}status> ?status }}"
    );
    let compared = query(
        json!({"mode": "compare", "sparql": statuses, "from": {"as_of_commit_seq": 1}, "key": "ticket"}),
    );
    assert_eq!(compared["counts"]["changed"], 2, "{compared}");
    assert_eq!(compared["counts"]["added"], 0);
    let changed: Vec<&str> = compared["data"]["changed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["key"].as_str().unwrap())
        .collect();
    assert_eq!(changed, ["T-1002", "T-1003"]);
    assert_eq!(compared["data"]["changed"][0]["before"]["status"], "open");
    // row_limit pages the changes; `next` keeps it.
    let first = query(
        json!({"mode": "compare", "sparql": statuses, "from": {"as_of_commit_seq": 1}, "key": "ticket", "row_limit": 1}),
    );
    assert_eq!(
        first["data"]["changed"].as_array().map(Vec::len),
        Some(1),
        "{first}"
    );
    assert_eq!(first["next"]["row_limit"], 1, "{first}");
    let second = query(first["next"].clone());
    assert_eq!(second["data"]["changed"][0]["key"], "T-1003", "{second}");
    assert!(second.get("next").is_none_or(Value::is_null), "{second}");
    let unkeyed =
        query(json!({"mode": "compare", "sparql": statuses, "from": {"as_of_commit_seq": 1}}));
    assert_eq!(
        (
            unkeyed["counts"]["added"].clone(),
            unkeyed["counts"]["removed"].clone()
        ),
        (json!(2), json!(2))
    );

    // paths: T-1002 → BUG-117 → 2.4.1 exists only after commit 2.
    let path = json!({"mode": "paths", "source": {"iri": format!("{EX}t-1002")}, "target": {"iri": format!("{EX}r2-4-1")}});
    let found = query(path.clone());
    assert_eq!(found["data"]["paths"][0]["length"], 2, "{found}");
    let relations: Vec<&str> = found["data"]["paths"][0]["links"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["relation"].as_str().unwrap())
        .collect();
    assert_eq!(
        relations,
        [format!("{EX}reportedAs"), format!("{EX}fixedIn")]
    );
    let mut pinned = path.clone();
    pinned["as_of_commit_seq"] = json!(1);
    assert_eq!(query(pinned)["data"]["paths"], json!([]));
    let mut too_deep = path;
    too_deep["max_depth"] = json!(9);
    assert_eq!(query(too_deep)["error"]["param"], "max_depth");

    // neighborhood: BUG-117's tickets and release, one hop out and in.
    let around = query(
        json!({"mode": "neighborhood", "source": {"iri": format!("{EX}bug-117")}, "max_depth": 1}),
    );
    let mut nodes: Vec<&str> = around["data"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["iri"].as_str().unwrap())
        .collect();
    nodes.sort_unstable();
    assert_eq!(
        nodes,
        [
            format!("{EX}bug-117"),
            format!("{EX}r2-4-1"),
            format!("{EX}t-1002"),
            format!("{EX}t-1003")
        ],
        "{around}"
    );
    assert_eq!(around["data"]["links"].as_array().unwrap().len(), 3);
    let bounded = query(
        json!({"mode": "neighborhood", "source": {"iri": format!("{EX}bug-117")}, "max_depth": 2, "max_nodes": 2}),
    );
    assert_eq!(
        bounded["data"]["nodes"].as_array().unwrap().len(),
        2,
        "{bounded}"
    );
    assert_eq!(bounded["truncated"], true);

    // `inspect` of a commit that does not exist names its own argument (issue 25: it
    // named `as_of_commit_seq`, which the call did not give).
    let missing = session.tool(
        "inspect",
        json!({"action": "commit", "commit_seq": 999_999}),
        None,
    )["structuredContent"]
        .clone();
    assert_eq!(missing["error"]["code"], "commit_not_found", "{missing}");
    assert_eq!(missing["error"]["param"], "commit_seq", "{missing}");
    drop(session);
    let _ = child.wait();
}

#[test]
fn structured_queries_give_the_rows_of_the_sparql_they_compile_to() {
    let strata = Strata::new();
    let (mut child, mut session) = start(&strata, &["serve", "--stdio"]);
    let mut query = |arguments: Value| -> Value {
        session.tool("query", arguments, None)["structuredContent"].clone()
    };
    let body = json!({
        "patterns": [
            {"subject": {"var": "t"}, "predicate": "type", "object": {"iri": format!("{EX}Ticket")}},
            {"subject": {"var": "t"}, "predicate": {"iri": format!("{EX}reportedAs")}, "object": {"var": "b"}},
            {"subject": {"var": "b"}, "predicate": {"iri": format!("{EX}severity")}, "object": {"var": "sev"}}
        ],
        "filters": [{"or": [
            {"op": "eq", "left": {"var": "sev"}, "right": {"value": 1}},
            {"op": "ge", "left": {"var": "sev"}, "right": {"value": 2}}
        ]}],
        "group_by": ["b"],
        "aggregates": [{"func": "count", "as": "n"}],
        "order_by": [{"var": "n", "descending": true}, {"var": "b"}]
    });
    let structured = query(json!({"mode": "structured", "structured": body, "detail": "full"}));
    let sparql = format!(
        "SELECT ?b (COUNT(*) AS ?n) WHERE {{ ?t a <{EX}Ticket> ; <{EX}reportedAs> ?b . ?b <{EX}severity> ?sev . FILTER(?sev = 1 || ?sev >= 2) }} GROUP BY ?b ORDER BY DESC(?n) ?b"
    );
    let direct = query(json!({"mode": "sparql", "sparql": sparql, "detail": "full"}));
    assert_eq!(
        structured["data"]["rows"], direct["data"]["rows"],
        "{structured}"
    );
    assert_eq!(
        structured["data"]["rows"][0]["b"]["iri"],
        format!("{EX}bug-117")
    );
    // A count is a bare number at every detail level.
    assert_eq!(structured["data"]["rows"][0]["n"], 2);
    assert!(
        structured["data"]["sparql"]
            .as_str()
            .unwrap()
            .starts_with("SELECT ?b (COUNT(*) AS ?n)")
    );
    assert_eq!(structured["served_at_seq"], 2);

    let unknown = query(
        json!({"mode": "structured", "structured": {"patterns": [{"subject": {"var": "t"}, "predicate": "nope", "object": {"var": "x"}}]}}),
    );
    assert_eq!(unknown["error"]["code"], "unknown_relation");
    assert_eq!(
        unknown["error"]["param"],
        "structured.patterns[0].predicate"
    );
    let operator = query(json!({"mode": "structured", "structured": {
        "patterns": [{"subject": {"var": "t"}, "predicate": "type", "object": {"var": "x"}}],
        "filters": [{"and": [{"op": "like", "left": {"var": "x"}, "right": {"value": 1}}]}]}}));
    assert_eq!(
        operator["error"]["param"],
        "structured.filters[0].and[0].op"
    );
    drop(session);
    let _ = child.wait();
}

#[test]
fn describe_history_and_why_on_the_demo_graph() {
    let strata = Strata::new();
    let (mut child, mut session) = start(&strata, &["serve", "--stdio"]);
    let tickets = session.tool(
        "query",
        json!({"mode": "describe", "class": format!("{EX}Ticket")}),
        None,
    )["structuredContent"]
        .clone();
    assert_eq!(tickets["data"]["instances"], 4, "{tickets}");
    let properties = tickets["data"]["properties"].as_array().unwrap();
    let status = properties
        .iter()
        .find(|p| p["property"] == format!("{EX}status"))
        .expect("status is described");
    assert_eq!(status["holders"], 4);
    let mut values: Vec<&str> = status["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    values.sort_unstable();
    assert_eq!(values, ["closed"], "every ticket is closed at the head");
    let reported = session.tool(
        "query",
        json!({"mode": "describe", "property": format!("{EX}reportedAs")}),
        None,
    )["structuredContent"]
        .clone();
    assert_eq!(reported["data"]["totals"]["uses"], 4, "{reported}");
    assert_eq!(reported["data"]["objects"][0]["kind"], format!("{EX}Bug"));

    let history = session.tool(
        "inspect",
        json!({"action": "history", "iri": format!("{EX}t-1002")}),
        None,
    )["structuredContent"]
        .clone();
    let changes = history["data"]["changes"].as_array().unwrap();
    assert_eq!(changes.len(), 2, "{history}");
    assert_eq!(changes[0]["commit_seq"], 2);
    assert_eq!(
        changes[0]["removed"][0],
        format!("<{EX}t-1002> <{EX}status> \"open\" .")
    );
    assert_eq!(changes[0]["message"], "BUG-117 fixed in 2.4.1");

    let why = json!({"action": "why", "iri": format!("{EX}bug-117"), "relation": format!("{EX}fixedIn"), "target": {"iri": format!("{EX}r2-4-1")}});
    let answer = session.tool("inspect", why.clone(), None)["structuredContent"].clone();
    assert_eq!(answer["data"]["holds"], true, "{answer}");
    assert_eq!(answer["data"]["versions"][0]["added"]["commit_seq"], 2);
    let mut before = why;
    before["as_of_commit_seq"] = json!(1);
    let earlier = session.tool("inspect", before, None)["structuredContent"].clone();
    assert_eq!(
        earlier["error"]["param"], "relation",
        "the link did not exist at commit 1: {earlier}"
    );
    drop(session);
    let _ = child.wait();
}

#[test]
fn traversals_match_hand_written_sparql() {
    let strata = Strata::new();
    let (mut child, mut session) = start(&strata, &["serve", "--stdio"]);
    let mut query = |arguments: Value| -> Value {
        session.tool("query", arguments, None)["structuredContent"].clone()
    };
    let values = |answer: &Value, var: &str| -> Vec<String> {
        answer["data"]["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r[var].as_str().unwrap_or_default().to_owned())
            .collect()
    };
    // Closed tickets → their bugs → the releases that fixed them.
    let releases = query(json!({"mode": "traverse", "traverse": {
    "steps": [
        {"from_type": format!("{EX}Ticket")},
        {"filter": {"properties": [[{"field": format!("{EX}status"), "op": "==", "value": "closed"}]]}},
        {"out": format!("{EX}reportedAs")},
        {"out": format!("{EX}fixedIn")}
    ]}}));
    let expected = query(json!({"mode": "sparql", "sparql": format!(
        "SELECT DISTINCT ?item WHERE {{ ?t a <{EX}Ticket> ; <{EX}status> \"closed\" ; <{EX}reportedAs>/<{EX}fixedIn> ?item }} ORDER BY ?item")}));
    assert_eq!(
        values(&releases, "iri"),
        values(&expected, "item"),
        "{releases}"
    );
    assert_eq!(values(&releases, "iri").len(), 3);

    // Bugs with a ticket filed by Acme (an exists sub-traversal), counted.
    let counted = query(json!({"mode": "traverse", "traverse": {"steps": [
        {"from_type": format!("{EX}Bug")},
        {"filter": {"exists": [{"steps": [{"in": format!("{EX}reportedAs")}],
            "filter": {"properties": [[{"field": format!("{EX}filedBy"), "op": "==", "value": [format!("{EX}acme")]}]]}}]}},
        {"count": true}
    ]}}));
    assert_eq!(counted["data"]["rows"][0]["count"], 2, "{counted}");

    // Group by status at commit 1 (two open, two closed), pinned.
    let grouped = query(
        json!({"mode": "traverse", "as_of_commit_seq": 1, "traverse": {"steps": [
        {"from_type": format!("{EX}Ticket")}, {"group_by": [format!("{EX}status")]}]}}),
    );
    assert_eq!(grouped["served_at_seq"], 1);
    let mut groups: Vec<(String, u64)> = grouped["data"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["status"].as_str().unwrap().to_owned(),
                r["count"].as_u64().unwrap(),
            )
        })
        .collect();
    groups.sort();
    assert_eq!(groups, [("closed".to_owned(), 2), ("open".to_owned(), 2)]);

    // Newest two tickets, in order.
    let newest = query(json!({"mode": "traverse", "traverse": {"steps": [
        {"from_type": format!("{EX}Ticket")},
        {"order_by": {"field": format!("{EX}openedAt"), "order": "desc"}},
        {"limit": 2}
    ]}}));
    assert_eq!(values(&newest, "label"), ["T-1003", "T-1002"], "{newest}");

    let bad = query(
        json!({"mode": "traverse", "traverse": {"steps": [{"from_type": format!("{EX}Ticket")}, {"jump": 1}]}}),
    );
    assert_eq!(bad["error"]["param"], "traverse.steps[1]");
    // A relation that resolves to nothing is `unknown_relation` as in `commit`, also when
    // it looks like an IRI that is not one (issue 25: it was `invalid_argument` here).
    for relation in ["reported as", "http://example.org/reported as"] {
        let unknown = query(json!({"mode": "traverse", "traverse": {"steps": [
            {"from_type": format!("{EX}Ticket")}, {"out": relation}]}}));
        assert_eq!(unknown["error"]["code"], "unknown_relation", "{unknown}");
        assert_eq!(
            unknown["error"]["param"], "traverse.steps[1].out",
            "{unknown}"
        );
    }
    drop(session);
    let _ = child.wait();
}

#[test]
fn analyze_counts_with_a_vega_lite_chart() {
    let strata = Strata::new();
    let (mut child, mut session) = start(&strata, &["serve", "--stdio"]);
    let by_type =
        session.tool("query", json!({"mode": "analyze", "by": "type"}), None)["structuredContent"]
            .clone();
    let values = by_type["data"]["values"].as_array().unwrap();
    let tickets = values
        .iter()
        .find(|v| v["category"] == format!("{EX}Ticket"))
        .expect("tickets counted");
    assert_eq!(tickets["value"], 4.0, "{by_type}");
    assert_eq!(by_type["data"]["vega_lite"]["mark"]["type"], "bar");
    assert_eq!(
        by_type["data"]["vega_lite"]["data"]["values"],
        by_type["data"]["values"]
    );
    let pie = session.tool(
        "query",
        json!({"mode": "analyze", "by": "relation", "chart": "pie"}),
        None,
    )["structuredContent"]
        .clone();
    assert_eq!(pie["data"]["vega_lite"]["mark"]["type"], "arc", "{pie}");
    let reported = pie["data"]["values"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["category"] == format!("{EX}reportedAs"))
        .expect("links counted");
    assert_eq!(reported["value"], 4.0);
    let structured = session.tool("query", json!({"mode": "analyze", "by": "structured", "structured": {
        "patterns": [{"subject": {"var": "t"}, "predicate": {"iri": format!("{EX}status")}, "object": {"var": "status"}}],
        "group_by": ["status"], "aggregates": [{"func": "count", "as": "n"}]}, "as_of_commit_seq": 1}), None)["structuredContent"].clone();
    let mut counts: Vec<(String, f64)> = structured["data"]["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            (
                v["category"].as_str().unwrap().to_owned(),
                v["value"].as_f64().unwrap(),
            )
        })
        .collect();
    counts.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        counts,
        [("closed".to_owned(), 2.0), ("open".to_owned(), 2.0)],
        "{structured}"
    );
    assert_eq!(structured["served_at_seq"], 1);
    let bad = session.tool("query", json!({"mode": "analyze", "by": "colour"}), None)["structuredContent"].clone();
    assert_eq!(bad["error"]["param"], "by");
    drop(session);
    let _ = child.wait();
}

#[test]
fn entailment_sees_subclasses_domains_and_subproperties() {
    let strata = Strata::new();
    let (mut child, mut session) = start(&strata, &["serve", "--stdio", "--no-demo"]);
    let data = "@prefix e: <http://e/> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
        e:Bug rdfs:subClassOf e:Issue . e:Incident rdfs:subClassOf e:Issue .
        e:b1 a e:Bug . e:i1 a e:Incident . e:x1 a e:Issue .
        e:affects rdfs:domain e:Incident . e:i2 e:affects e:svc .
        e:fixedInPatch rdfs:subPropertyOf e:fixedIn . e:b1 e:fixedInPatch e:r1 .";
    import_first_commit(&mut session, data);
    let mut issues = |entailment: &str| -> Vec<String> {
        let answer = session.tool(
            "query",
            json!({"mode": "sparql", "entailment": entailment,
            "sparql": "SELECT ?x WHERE { ?x a <http://e/Issue> } ORDER BY ?x"}),
            None,
        )["structuredContent"]
            .clone();
        answer["data"]["rows"]
            .as_array()
            .unwrap_or_else(|| panic!("{answer}"))
            .iter()
            .map(|r| r["x"]["iri"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(issues("none"), ["http://e/x1"]);
    assert_eq!(
        issues("subclass"),
        ["http://e/b1", "http://e/i1", "http://e/x1"]
    );
    assert_eq!(
        issues("rdfs"),
        ["http://e/b1", "http://e/i1", "http://e/i2", "http://e/x1"]
    );
    let fixed = session.tool(
        "query",
        json!({"mode": "sparql", "entailment": "rdfs",
        "sparql": "SELECT ?b ?r WHERE { ?b <http://e/fixedIn> ?r }"}),
        None,
    )["structuredContent"]
        .clone();
    assert_eq!(
        fixed["data"]["rows"],
        json!([{"b": {"iri": "http://e/b1"}, "r": {"iri": "http://e/r1"}}]),
        "{fixed}"
    );
    let bad = session.tool(
        "query",
        json!({"mode": "sparql", "entailment": "owl", "sparql": "ASK {}"}),
        None,
    )["structuredContent"]
        .clone();
    assert_eq!(bad["error"]["param"], "entailment");
    drop(session);
    let _ = child.wait();
}

#[test]
fn valid_time_filters_links_independently_of_commit_time() {
    let strata = Strata::new();
    let (mut child, mut session) = start(&strata, &["serve", "--stdio", "--no-demo"]);
    let defined = session.tool(
        "configure",
        json!({"action": "define_ontology",
        "types": [{"name": "Person"}, {"name": "Team"}],
        "relations": [{"name": "MEMBER_OF", "domain": "Person", "range": "Team"}]}),
        None,
    );
    assert_eq!(
        defined["structuredContent"]["data"]["changed"], true,
        "{defined}"
    );
    let committed = session.tool("commit", json!({"triplets": [
        {"source": {"type": "Person", "name": "Ada"}, "relation": "MEMBER_OF", "target": {"type": "Team", "name": "Search"},
         "valid_time": {"start": "2026-01-01", "end": "2026-06-30"}},
        {"source": {"type": "Person", "name": "Ada"}, "relation": "MEMBER_OF", "target": {"type": "Team", "name": "Billing"},
         "valid_time": {"start": "2026-07-01"}},
        {"source": {"type": "Person", "name": "Alan"}, "relation": "MEMBER_OF", "target": {"type": "Team", "name": "Search"}}
    ]}), None);
    assert_eq!(
        committed["structuredContent"]["data"]["commit_seq"], 2,
        "{committed}"
    );
    let mut teams_of_ada = |as_of: Option<&str>| -> Vec<String> {
        let mut arguments = json!({"mode": "structured", "structured": {
            "patterns": [
                {"subject": {"type": "Person", "name": "Ada"}, "predicate": "MEMBER_OF", "object": {"var": "team"}},
                {"subject": {"var": "team"}, "predicate": {"iri": "http://www.w3.org/2000/01/rdf-schema#label"}, "object": {"var": "name"}}
            ],
            "select": ["name"], "order_by": [{"var": "name"}]}});
        if let Some(as_of) = as_of {
            arguments["as_of"] = json!(as_of);
        }
        let answer = session.tool("query", arguments, None)["structuredContent"].clone();
        answer["data"]["rows"]
            .as_array()
            .unwrap_or_else(|| panic!("{answer}"))
            .iter()
            .map(|r| r["name"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(teams_of_ada(None), ["Billing", "Search"]);
    assert_eq!(teams_of_ada(Some("2026-03-15")), ["Search"]);
    assert_eq!(teams_of_ada(Some("2026-08-01")), ["Billing"]);
    let members = session.tool(
        "query",
        json!({"mode": "traverse", "as_of": "2026-08-01", "traverse": {"steps": [
        {"from_records": [{"type": "Team", "name": "Search"}]}, {"in": "MEMBER_OF"}]}}),
        None,
    )["structuredContent"]
        .clone();
    let names: Vec<&str> = members["data"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["label"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Alan"], "Ada left Search before August: {members}");
    drop(session);
    let _ = child.wait();
}

#[test]
fn compare_refuses_a_key_that_is_not_a_variable_of_the_select() {
    let strata = Strata::new();
    let (mut child, mut session) = start(&strata, &["serve", "--stdio"]);
    let statuses = format!(
        "SELECT ?ticket ?status WHERE {{ ?t a <{EX}Ticket> ; <http://www.w3.org/2000/01/rdf-schema#label> ?ticket ; <{EX}status> ?status }}"
    );
    let mut compare = |key: &str| -> Value {
        session.tool(
            "query",
            json!({"mode": "compare", "sparql": statuses, "from": {"as_of_commit_seq": 1}, "key": key}),
            None,
        )["structuredContent"]
            .clone()
    };
    for key in ["ticekt", "t", "?ticket"] {
        let answer = compare(key);
        assert_eq!(answer["error"]["code"], "invalid_argument", "{answer}");
        assert_eq!(answer["error"]["param"], "key", "{answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("ticket, status"),
            "the message lists the SELECT's variables: {message}"
        );
    }
    assert_eq!(compare("ticket")["counts"]["changed"], 2);
    drop(session);
    let _ = child.wait();
}

#[test]
fn describe_and_embeddings_declare_refuse_unknown_type_names_and_commit_nothing() {
    let strata = Strata::new();
    let (mut child, mut session) = start(&strata, &["serve", "--stdio"]);
    let head = |session: &mut crate::mcp_mrtr::Session| -> Value {
        session.tool("inspect", json!({"action": "log"}), None)["structuredContent"]["served_at_seq"]
            .clone()
    };
    // The demo graph has no ontology: the error suggests the classes its data uses.
    let described = session.tool(
        "query",
        json!({"mode": "describe", "class": "Tikcet"}),
        None,
    )["structuredContent"]
        .clone();
    assert_eq!(described["error"]["code"], "unknown_type", "{described}");
    assert_eq!(described["error"]["param"], "class");
    assert!(
        described["error"]["message"]
            .as_str()
            .unwrap()
            .contains(&format!("<{EX}Ticket>")),
        "{described}"
    );
    let declared = session.tool(
        "embeddings",
        json!({"action": "declare", "class": "Tikcet", "from": ["label"]}),
        None,
    )["structuredContent"]
        .clone();
    assert_eq!(declared["error"]["code"], "unknown_type", "{declared}");
    assert_eq!(
        head(&mut session),
        2,
        "the refused declaration committed nothing"
    );
    let listed =
        session.tool("embeddings", json!({"action": "list"}), None)["structuredContent"].clone();
    assert!(!listed.to_string().contains("tikcet"), "{listed}");

    // With an ontology, the error lists its types; a known name works.
    session.tool(
        "configure",
        json!({"action": "define_ontology", "types": [{"name": "Person"}, {"name": "Team"}]}),
        None,
    );
    let head_after_ontology = head(&mut session);
    for (tool, arguments) in [
        ("query", json!({"mode": "describe", "class": "Persn"})),
        (
            "embeddings",
            json!({"action": "declare", "class": "Persn", "from": ["label"]}),
        ),
    ] {
        let answer = session.tool(tool, arguments, None)["structuredContent"].clone();
        assert_eq!(answer["error"]["code"], "unknown_type", "{answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.contains("Person, Team"), "{message}");
    }
    assert_eq!(head(&mut session), head_after_ontology);
    let person = session.tool(
        "query",
        json!({"mode": "describe", "class": "Person"}),
        None,
    )["structuredContent"]
        .clone();
    assert_eq!(person["data"]["instances"], 0, "{person}");
    // A graph that does not exist yet is not created by a refused declaration.
    let elsewhere = session.tool(
        "embeddings",
        json!({"action": "declare", "graph": "fresh", "class": "Thing", "from": ["label"]}),
        None,
    )["structuredContent"]
        .clone();
    assert_eq!(elsewhere["error"]["code"], "unknown_type", "{elsewhere}");
    // Nor by a `configure` that creates it and then fails (issue 25: it left an empty
    // graph behind), while one that succeeds keeps it.
    let configured = session.tool(
        "configure",
        json!({"action": "define_ontology", "graph": "fresh",
            "relations": [{"name": "OWNS", "domain": "Nobody", "range": "Nothing"}]}),
        None,
    )["structuredContent"]
        .clone();
    assert_eq!(configured["error"]["code"], "unknown_type", "{configured}");
    let graphs =
        session.tool("inspect", json!({"action": "graphs"}), None)["structuredContent"].clone();
    assert!(!graphs.to_string().contains("fresh"), "{graphs}");
    let defined = session.tool(
        "configure",
        json!({"action": "define_ontology", "graph": "fresh", "types": [{"name": "Thing"}]}),
        None,
    )["structuredContent"]
        .clone();
    assert_eq!(defined["data"]["commit_seq"], 1, "{defined}");
    let graphs =
        session.tool("inspect", json!({"action": "graphs"}), None)["structuredContent"].clone();
    assert!(graphs.to_string().contains("fresh"), "{graphs}");
    drop(session);
    let _ = child.wait();
}

/// Issue 27: HAVING on an aggregate alias kept no group (the alias is unbound when SPARQL
/// evaluates HAVING); the condition now names the aggregate, and the text shown is the
/// query that ran.
#[test]
fn having_on_an_aggregate_keeps_the_groups_that_pass() {
    let strata = Strata::new();
    let (mut child, mut session) = start(&strata, &["serve", "--stdio", "--no-demo"]);
    let data = "@prefix e: <http://e/> .
        e:o1 e:product e:p1 . e:o2 e:product e:p2 . e:o3 e:product e:p3 . e:o4 e:product e:p4 .
        e:o5 e:product e:p5 . e:o6 e:product e:p6 .
        e:p1 e:producer e:A . e:p2 e:producer e:B . e:p3 e:producer e:B .
        e:p4 e:producer e:C . e:p5 e:producer e:C . e:p6 e:producer e:C .
        e:p1 e:price 5 . e:p4 e:price 7 .";
    import_first_commit(&mut session, data);
    let mut query = |arguments: Value| -> Value {
        session.tool("query", arguments, None)["structuredContent"].clone()
    };
    let body = json!({
        "patterns": [
            {"subject": {"var": "o"}, "predicate": {"iri": "http://e/product"}, "object": {"var": "p"}},
            {"subject": {"var": "p"}, "predicate": {"iri": "http://e/producer"}, "object": {"var": "pr"}}
        ],
        "group_by": ["pr"],
        "aggregates": [{"func": "count", "as": "n"}],
        "having": [{"op": "ge", "left": {"var": "n"}, "right": {"value": 2}}],
        "order_by": [{"var": "pr"}]
    });
    let answer = query(json!({"mode": "structured", "structured": body, "detail": "full"}));
    assert_eq!(
        answer["data"]["rows"],
        json!([{"pr": {"iri": "http://e/B"}, "n": 2}, {"pr": {"iri": "http://e/C"}, "n": 3}]),
        "{answer}"
    );
    let text = answer["data"]["sparql"].as_str().unwrap().to_owned();
    assert!(text.contains("HAVING ((COUNT(*) >= "), "{text}");
    // The text shown is the query that ran: as plain SPARQL it answers the same rows.
    let direct = query(json!({"mode": "sparql", "sparql": text, "detail": "full"}));
    assert_eq!(direct["data"]["rows"], answer["data"]["rows"], "{direct}");

    // A record without the field an aggregate reads still counts (the field is optional);
    // the aggregate of a group where a record lacks the field is empty (SPARQL: the
    // aggregate of an error is an error), never a number computed from part of it.
    let priced = query(
        json!({"mode": "structured", "detail": "full", "structured": {
        "patterns": [{"subject": {"var": "p"}, "predicate": {"iri": "http://e/producer"}, "object": {"var": "pr"}}],
        "group_by": ["pr"],
        "aggregates": [{"func": "count", "as": "n"}, {"func": "max", "as": "top", "operand": {"field": {"var": "p", "name": "http://e/price"}}}],
        "order_by": [{"var": "pr"}]}}),
    );
    assert_eq!(
        priced["data"]["rows"],
        json!([{"pr": {"iri": "http://e/A"}, "n": 1, "top": 5}, {"pr": {"iri": "http://e/B"}, "n": 2},
               {"pr": {"iri": "http://e/C"}, "n": 3}]),
        "{priced}"
    );

    // HAVING reads only what a group has.
    let mut stray = body.clone();
    stray["having"] = json!([{"op": "ge", "left": {"var": "p"}, "right": {"value": 2}}]);
    let refused = query(json!({"mode": "structured", "structured": stray}));
    assert_eq!(refused["error"]["code"], "invalid_argument", "{refused}");
    assert_eq!(refused["error"]["param"], "structured.having[0]");
    let mut field = body;
    field["having"] = json!([{"op": "ge", "left": {"field": {"var": "p", "name": "http://e/price"}}, "right": {"value": 2}}]);
    let refused = query(json!({"mode": "structured", "structured": field}));
    assert_eq!(
        refused["error"]["param"], "structured.having[0]",
        "{refused}"
    );
    drop(session);
    let _ = child.wait();
}

/// Aggregates over fields with several values each answer as if alone: a record with two
/// weights and three scores counts its weights once each, not once per score (the join of
/// two optional fields multiplied every sum), and a record without a key's field is grouped
/// under no key without losing its values.
#[test]
fn aggregates_over_several_multi_valued_fields_never_multiply() {
    let strata = Strata::new();
    let (mut child, mut session) = start(&strata, &["serve", "--stdio", "--no-demo"]);
    let data = "@prefix e: <http://e/> .
        e:i1 a e:Item ; e:group e:g1 ; e:weight 10 , 20 ; e:score 1 , 2 , 3 ; e:made \"2024-03-05\"^^<http://www.w3.org/2001/XMLSchema#date> .
        e:i2 a e:Item ; e:group e:g1 ; e:weight 5 ; e:score 4 ; e:made \"2024-07-01\"^^<http://www.w3.org/2001/XMLSchema#date> .
        e:i3 a e:Item ; e:group e:g2 ; e:weight 1 ; e:score 6 .
        e:i4 a e:Item ; e:group e:g2 ; e:weight 2 ; e:score 7 , 8 .";
    import_first_commit(&mut session, data);
    let mut query = |arguments: Value| -> Value {
        session.tool("query", arguments, None)["structuredContent"].clone()
    };
    let weight = json!({"field": {"var": "i", "name": "http://e/weight"}});
    let score = json!({"field": {"var": "i", "name": "http://e/score"}});
    let answer = query(
        json!({"mode": "structured", "detail": "full", "structured": {
        "patterns": [{"subject": {"var": "i"}, "predicate": {"iri": "http://e/group"}, "object": {"var": "g"}}],
        "group_by": ["g"],
        "aggregates": [
            {"func": "count", "as": "n"},
            {"func": "sum", "as": "w", "operand": weight},
            {"func": "max", "as": "top_w", "operand": weight},
            {"func": "sum", "as": "s", "operand": score},
            {"func": "count", "as": "scores", "operand": score}
        ],
        "order_by": [{"var": "g"}]}}),
    );
    assert_eq!(
        answer["data"]["rows"],
        json!([
            {"g": {"iri": "http://e/g1"}, "n": 2, "w": 35, "top_w": 20, "s": 10, "scores": 4},
            {"g": {"iri": "http://e/g2"}, "n": 2, "w": 3, "top_w": 2, "s": 21, "scores": 3}
        ]),
        "{answer}"
    );
    // The text shown is the query that ran.
    let text = answer["data"]["sparql"].as_str().unwrap().to_owned();
    let direct = query(json!({"mode": "sparql", "sparql": text, "detail": "full"}));
    assert_eq!(direct["data"]["rows"], answer["data"]["rows"], "{direct}");

    // A group key read from a field: records without it form the no-key group, and their
    // weights are summed there once each.
    let by_month = query(json!({"mode": "structured", "structured": {
        "patterns": [{"subject": {"var": "i"}, "predicate": {"iri": "http://e/group"}, "object": {"var": "g"}}],
        "group_keys": [{"field": {"var": "i", "name": "http://e/made"}, "bucket": "year", "as": "year"}],
        "aggregates": [
            {"func": "count", "as": "n"},
            {"func": "sum", "as": "w", "operand": weight},
            {"func": "sum", "as": "s", "operand": score}
        ],
        "order_by": [{"var": "n"}]}}));
    let rows = by_month["data"]["rows"].as_array().expect("rows").clone();
    assert_eq!(rows.len(), 2, "{by_month}");
    let keyed = rows
        .iter()
        .find(|row| row.get("year").is_some())
        .expect("a 2024 group");
    let unkeyed = rows
        .iter()
        .find(|row| row.get("year").is_none())
        .expect("a no-key group");
    assert_eq!(
        (&keyed["n"], &keyed["w"], &keyed["s"]),
        (&json!(2), &json!(35), &json!(10)),
        "{by_month}"
    );
    assert_eq!(
        (&unkeyed["n"], &unkeyed["w"], &unkeyed["s"]),
        (&json!(2), &json!(3), &json!(21)),
        "{by_month}"
    );
    drop(session);
    let _ = child.wait();
}

/// `analyze` charts no made-up figures and says when it charts only some groups; `compare`
/// sees a change past the cut-off of a long string.
#[test]
fn analyze_and_compare_neither_invent_nor_hide_figures() {
    let strata = Strata::new();
    let (mut child, mut session) = start(&strata, &["serve", "--stdio", "--no-demo"]);
    let mut data = String::from(
        "@prefix e: <http://e/> .
        e:i1 e:group e:g1 ; e:weight 4 . e:i2 e:group e:g2 .\n",
    );
    for i in 0..60 {
        data.push_str(&format!("e:x{i} a e:T{i} .\n"));
    }
    let long = "A".repeat(400);
    data.push_str(&format!("e:d e:text \"{long}x\" .\n"));
    import_first_commit(&mut session, &data);
    let update = json!({"action": "update", "sparql": format!(
        "DELETE DATA {{ <http://e/d> <http://e/text> \"{long}x\" }} ; INSERT DATA {{ <http://e/d> <http://e/text> \"{long}y\" }}")});
    let question = session.tool("rdf", update.clone(), None);
    let state = question["requestState"].clone();
    let accept = json!({"approval": {"action": "accept", "content": {"approve": true}}});
    let updated = session.tool("rdf", update, Some((state, accept)));
    assert_eq!(
        updated["structuredContent"]["data"]["commit_seq"], 2,
        "{updated}"
    );
    let mut query = |arguments: Value| -> Value {
        session.tool("query", arguments, None)["structuredContent"].clone()
    };

    let types = query(json!({"mode": "analyze", "by": "type"}));
    assert_eq!(
        types["data"]["values"].as_array().unwrap().len(),
        50,
        "{types}"
    );
    assert_eq!(types["data"]["complete"], false, "{types}");
    assert_eq!(types["truncated"], true, "{types}");
    assert!(
        types["summary"]
            .as_str()
            .unwrap()
            .starts_with("the first 50"),
        "{types}"
    );

    // g2 has no weight: its sum is absent, not 0.
    let weights = query(
        json!({"mode": "analyze", "by": "structured", "structured": {
        "patterns": [{"subject": {"var": "i"}, "predicate": {"iri": "http://e/group"}, "object": {"var": "g"}}],
        "group_by": ["g"],
        "aggregates": [{"func": "sum", "as": "w", "operand": {"field": {"var": "i", "name": "http://e/weight"}}}],
        "order_by": [{"var": "g"}]}}),
    );
    assert_eq!(
        weights["data"]["values"],
        json!([{"category": "http://e/g1", "value": 4.0}, {"category": "http://e/g2", "value": null}]),
        "{weights}"
    );
    assert_eq!(weights["data"]["complete"], true, "{weights}");

    // The two texts differ only past the 300 characters a compact page shows.
    let texts = "SELECT ?d ?t WHERE { ?d <http://e/text> ?t }";
    let keyed = query(
        json!({"mode": "compare", "sparql": texts, "from": {"as_of_commit_seq": 1}, "key": "d"}),
    );
    assert_eq!(keyed["counts"]["changed"], 1, "{keyed}");
    assert_eq!(
        (&keyed["counts"]["added"], &keyed["counts"]["removed"]),
        (&json!(0), &json!(0)),
        "{keyed}"
    );
    let unkeyed =
        query(json!({"mode": "compare", "sparql": texts, "from": {"as_of_commit_seq": 1}}));
    assert_eq!(
        (&unkeyed["counts"]["added"], &unkeyed["counts"]["removed"]),
        (&json!(1), &json!(1)),
        "{unkeyed}"
    );
    let same = query(json!({"mode": "compare", "sparql": texts, "from": {"as_of_commit_seq": 2}}));
    assert_eq!(
        (
            &same["counts"]["added"],
            &same["counts"]["removed"],
            &same["counts"]["changed"]
        ),
        (&json!(0), &json!(0), &json!(0)),
        "{same}"
    );
    drop(session);
    let _ = child.wait();
}

/// A traversal's condition value that reads as an IRI also matches the same text kept as
/// a string (a homepage field holds text); `{"iri": …}` asks for the IRI alone.
#[test]
fn traversal_conditions_match_text_that_looks_like_an_iri() {
    let strata = Strata::new();
    let (mut child, mut session) = start(&strata, &["serve", "--stdio", "--no-demo"]);
    let data = "@prefix e: <http://e/> .
        e:a a e:Site ; e:homepage \"https://a.example/\" .
        e:b a e:Site ; e:homepage <https://b.example/> .";
    import_first_commit(&mut session, data);
    let mut sites = |op: &str, value: Value| -> Vec<String> {
        let answer = session.tool("query", json!({"mode": "traverse", "traverse": {"steps": [
            {"from_type": "http://e/Site"},
            {"filter": {"properties": [[{"field": "http://e/homepage", "op": op, "value": value}]]}}
        ]}}), None)["structuredContent"].clone();
        answer["data"]["rows"]
            .as_array()
            .unwrap_or_else(|| panic!("{answer}"))
            .iter()
            .map(|row| {
                row["iri"]["iri"]
                    .as_str()
                    .unwrap_or_else(|| panic!("{row}"))
                    .to_owned()
            })
            .collect()
    };
    assert_eq!(sites("==", json!("https://a.example/")), ["http://e/a"]);
    assert_eq!(sites("==", json!("https://b.example/")), ["http://e/b"]);
    assert_eq!(
        sites("==", json!(["https://a.example/", "https://b.example/"])),
        ["http://e/a", "http://e/b"]
    );
    assert_eq!(sites("!=", json!("https://a.example/")), ["http://e/b"]);
    assert!(sites("==", json!({"iri": "https://a.example/"})).is_empty());
    assert_eq!(
        sites("==", json!({"iri": "https://b.example/"})),
        ["http://e/b"]
    );
    drop(session);
    let _ = child.wait();
}

/// `order_by` on a field with several values sorts each item once (by its least value
/// ascending, its greatest descending), so `limit` counts items, not values.
#[test]
fn traversal_order_by_a_multi_valued_field_then_limit_keeps_that_many_items() {
    let strata = Strata::new();
    let (mut child, mut session) = start(&strata, &["serve", "--stdio", "--no-demo"]);
    let data = "@prefix e: <http://e/> .
        e:a a e:Site ; e:rank 5 , 1 . e:b a e:Site ; e:rank 3 . e:c a e:Site ; e:rank 2 , 4 .
        e:d a e:Site . e:a e:to e:hub . e:c e:to e:hub .";
    import_first_commit(&mut session, data);
    // Sorted, then walked on: an item reached from two sorted items is one row.
    let walked = session.tool(
        "query",
        json!({"mode": "traverse", "traverse": {"steps": [
            {"from_type": "http://e/Site"},
            {"order_by": {"field": "http://e/rank", "order": "desc"}},
            {"out": "http://e/to"}
        ]}}),
        None,
    )["structuredContent"]
        .clone();
    assert_eq!(
        walked["data"]["rows"],
        json!([{"iri": {"iri": "http://e/hub"}}]),
        "{walked}"
    );
    let mut first = |order: &str, limit: u64| -> Vec<String> {
        let answer = session.tool(
            "query",
            json!({"mode": "traverse", "traverse": {"steps": [
                {"from_type": "http://e/Site"},
                {"order_by": {"field": "http://e/rank", "order": order}},
                {"limit": limit}
            ]}}),
            None,
        )["structuredContent"]
            .clone();
        answer["data"]["rows"]
            .as_array()
            .unwrap_or_else(|| panic!("{answer}"))
            .iter()
            .map(|row| {
                row["iri"]["iri"]
                    .as_str()
                    .unwrap_or_else(|| panic!("{row}"))
                    .to_owned()
            })
            .collect()
    };
    // An item without the field still counts; it sorts first ascending (SPARQL: unbound is
    // least) and last descending.
    assert_eq!(first("asc", 3), ["http://e/d", "http://e/a", "http://e/c"]);
    assert_eq!(first("desc", 2), ["http://e/a", "http://e/c"]);
    assert_eq!(
        first("desc", 4),
        ["http://e/a", "http://e/c", "http://e/b", "http://e/d"]
    );
    drop(session);
    let _ = child.wait();
}

/// A traversal's items are one row each: an item with two types or two values of a field
/// was one row per combination (an agent counting rows counted it four times). A page
/// never splits an item, and the next page, asked in `sparql` mode with the cursor, is
/// merged the same way.
#[test]
fn traversal_items_are_one_row_each_with_lists_for_several_values() {
    let strata = Strata::new();
    let (mut child, mut session) = start(&strata, &["serve", "--stdio", "--no-demo"]);
    let data = "@prefix e: <http://e/> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
        e:a a e:Site , e:Shop ; rdfs:label \"A\" ; e:tag \"x\" , \"y\" ; e:rank 1 .
        e:b a e:Site ; e:tag \"z\" . e:c a e:Site ; e:tag \"x\" , \"y\" , \"z\" ; e:rank 2 , 3 .";
    import_first_commit(&mut session, data);
    let walk = json!({"steps": [{"from_type": "http://e/Site"}],
        "fields": ["http://e/tag", "http://e/rank"]});
    let whole = session.tool("query", json!({"mode": "traverse", "traverse": walk}), None)
        ["structuredContent"]
        .clone();
    let rows = whole["data"]["rows"]
        .as_array()
        .unwrap_or_else(|| panic!("{whole}"));
    assert_eq!(rows.len(), 3, "{whole}");
    let sorted = |value: &Value| -> Vec<String> {
        let mut texts: Vec<String> = match value {
            Value::Array(values) => values.iter().map(Value::to_string).collect(),
            other => vec![other.to_string()],
        };
        texts.sort();
        texts
    };
    assert_eq!(rows[0]["iri"], json!({"iri": "http://e/a"}));
    assert_eq!(
        sorted(&rows[0]["type"]),
        [r#"{"iri":"http://e/Shop"}"#, r#"{"iri":"http://e/Site"}"#]
    );
    assert_eq!(rows[0]["label"], "A");
    assert_eq!(sorted(&rows[0]["tag"]), [r#""x""#, r#""y""#]);
    assert_eq!(rows[0]["rank"], 1);
    assert_eq!(rows[1]["tag"], "z");
    assert!(rows[1].get("rank").is_none(), "{whole}");
    assert_eq!(sorted(&rows[2]["rank"]), ["2", "3"]);
    assert!(
        whole["summary"].as_str().unwrap().starts_with("items 1–3"),
        "{whole}"
    );

    // One item a page: three pages, each one whole item, all at the first page's commit.
    let mut call = json!({"mode": "traverse", "traverse": walk, "row_limit": 1});
    let mut pages = Vec::new();
    loop {
        let page = session.tool("query", call.clone(), None)["structuredContent"].clone();
        let rows = page["data"]["rows"]
            .as_array()
            .unwrap_or_else(|| panic!("{page}"));
        assert_eq!(rows.len(), 1, "{page}");
        pages.push(rows[0].clone());
        match page.get("next") {
            Some(next) if !next.is_null() => call = next.clone(),
            _ => break,
        }
        assert!(pages.len() < 5, "{page}");
    }
    assert_eq!(pages, *rows);
    drop(session);
    let _ = child.wait();
}

/// Blank nodes are records too: `analyze` by relation counts links to them, a
/// traversal's groups list them (`_:blank`; the list was lost whole), and `neighborhood`
/// walks through them. `compare` tells a value from another that JSON shows alike.
#[test]
fn blank_nodes_and_look_alike_values_are_counted_in_json_modes() {
    let strata = Strata::new();
    let (mut child, mut session) = start(&strata, &["serve", "--stdio", "--no-demo"]);
    let data = "@prefix e: <http://e/> .
        e:carol e:owns e:felix , _:pet . e:felix a e:Cat . _:pet a e:Cat ; e:near e:felix .
        e:x e:amount 10.0 .";
    import_first_commit(&mut session, data);
    let mut query = |arguments: Value| -> Value {
        session.tool("query", arguments, None)["structuredContent"].clone()
    };
    let relations = query(json!({"mode": "analyze", "by": "relation"}));
    let owns = relations["data"]["values"]
        .as_array()
        .unwrap_or_else(|| panic!("{relations}"))
        .iter()
        .find(|row| row["category"] == "http://e/owns")
        .cloned()
        .unwrap_or_else(|| panic!("{relations}"));
    assert_eq!(owns["value"], 2.0, "{relations}");
    let groups = query(json!({"mode": "traverse", "traverse": {"steps": [
        {"from_type": "http://e/Cat"}, {"group_by": ["http://e/color"]}]}}));
    let group = &groups["data"]["rows"][0];
    assert_eq!(group["count"], 2, "{groups}");
    let mut items: Vec<&str> = group["items"]
        .as_str()
        .unwrap_or_else(|| panic!("{groups}"))
        .split(' ')
        .collect();
    items.sort_unstable();
    assert_eq!(items, ["_:blank", "http://e/felix"], "{groups}");
    let around =
        query(json!({"mode": "neighborhood", "source": {"iri": "http://e/carol"}, "max_depth": 2}));
    let nodes = around["data"]["nodes"]
        .as_array()
        .unwrap_or_else(|| panic!("{around}"));
    assert_eq!(nodes.len(), 3, "{around}");
    assert!(nodes.iter().any(|n| n["bnode"].is_string()), "{around}");
    // The blank node's link to felix is shown (from `_:label`).
    let links = around["data"]["links"].as_array().unwrap();
    assert!(
        links.iter().any(|l| l["relation"] == "http://e/near"
            && l["from"].as_str().is_some_and(|f| f.starts_with("_:"))
            && l["to"] == "http://e/felix"),
        "{around}"
    );
    // At commit 2 the same row's ?a is the double 1.0e1 instead of the decimal 10.0.
    let imported = session.tool(
        "rdf",
        json!({"action": "import", "format": "turtle", "content": "<http://e/x> <http://e/new> true ."}),
        None,
    );
    assert!(
        imported["structuredContent"]["data"]["commit_seq"].is_number(),
        "{imported}"
    );
    let compared = session.tool(
        "query",
        json!({"mode": "compare", "sparql": "SELECT ?x ?a WHERE { ?x <http://e/amount> ?v OPTIONAL { ?x <http://e/new> ?n } BIND(IF(BOUND(?n), 1.0e1, ?v) AS ?a) }",
            "from": {"as_of_commit_seq": 1}, "key": "x"}),
        None,
    )["structuredContent"]
        .clone();
    assert_eq!(
        compared["data"]["changed"].as_array().map(Vec::len),
        Some(1),
        "{compared}"
    );
    drop(session);
    let _ = child.wait();
}

/// Issue 27: `subclass` entailment repeated an instance once per path to its class (a
/// product typed with a class and its parent reached the grandparent twice).
#[test]
fn subclass_entailment_counts_each_instance_once() {
    let strata = Strata::new();
    let (mut child, mut session) = start(&strata, &["serve", "--stdio", "--no-demo"]);
    let data = "@prefix e: <http://e/> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
        e:T3 rdfs:subClassOf e:T2 . e:T2 rdfs:subClassOf e:T1 .
        e:p1 a e:T3 , e:T2 , e:T1 . e:p2 a e:T2 . _:x a e:T3 ; e:near e:p1 .";
    import_first_commit(&mut session, data);
    let mut rows = |arguments: Value| -> Value {
        let answer = session.tool("query", arguments, None)["structuredContent"].clone();
        answer["data"]["rows"].clone()
    };
    for entailment in ["subclass", "rdfs"] {
        let count = rows(json!({"mode": "sparql", "entailment": entailment,
            "sparql": "SELECT (COUNT(?p) AS ?n) WHERE { ?p a <http://e/T1> }"}));
        assert_eq!(count, json!([{"n": 3}]), "{entailment}");
        let types = rows(json!({"mode": "sparql", "entailment": entailment,
            "sparql": "SELECT ?t WHERE { <http://e/p1> a ?t } ORDER BY ?t"}));
        assert_eq!(
            types,
            json!([{"t": {"iri": "http://e/T1"}}, {"t": {"iri": "http://e/T2"}}, {"t": {"iri": "http://e/T3"}}]),
            "{entailment}"
        );
        // A blank node of the query still joins its patterns.
        let near = rows(json!({"mode": "sparql", "entailment": entailment,
            "sparql": "SELECT ?o WHERE { _:b a <http://e/T1> ; <http://e/near> ?o }"}));
        assert_eq!(near, json!([{"o": {"iri": "http://e/p1"}}]), "{entailment}");
        let structured = rows(
            json!({"mode": "structured", "entailment": entailment, "structured": {
            "patterns": [{"subject": {"var": "p"}, "predicate": "type", "object": {"iri": "http://e/T1"}}],
            "aggregates": [{"func": "count", "as": "n"}]}}),
        );
        assert_eq!(structured, json!([{"n": 3}]), "{entailment}");
    }
    drop(session);
    let _ = child.wait();
}

/// Issue 27: a valid time held neither on its end date nor after it. Periods are
/// half-open at the instant level, each bound rounded to its unit: two periods placed
/// back to back at any granularity meet at one instant, without gap or overlap.
#[test]
fn back_to_back_valid_periods_meet_at_every_granularity() {
    let strata = Strata::new();
    let (mut child, mut session) = start(&strata, &["serve", "--stdio", "--no-demo"]);
    let defined = session.tool(
        "configure",
        json!({"action": "define_ontology",
        "types": [{"name": "Company"}, {"name": "Brand"}],
        "relations": [{"name": "OWNS", "domain": "Company", "range": "Brand"}]}),
        None,
    );
    assert_eq!(
        defined["structuredContent"]["data"]["changed"], true,
        "{defined}"
    );
    // (granularity, end of the first owner, start of the second owner)
    let cases = [
        ("year", "2019", "2020"),
        ("month", "2019-12", "2020-01"),
        ("day", "2019-12-31", "2020-01-01"),
        ("hour", "2019-12-31T23:00:00Z", "2020-01-01T00:00:00Z"),
        ("minute", "2019-12-31T23:59:00Z", "2020-01-01T00:00:00Z"),
        ("second", "2019-12-31T23:59:59Z", "2020-01-01T00:00:00Z"),
        ("instant", "2020-01-01T00:00:00Z", "2020-01-01T00:00:00Z"),
    ];
    let mut triplets = Vec::new();
    for (granularity, end, start) in cases {
        let brand = json!({"type": "Brand", "name": granularity});
        triplets.push(json!({"source": {"type": "Company", "name": "Old"}, "relation": "OWNS", "target": brand,
            "valid_time": {"start": "2015-01-01", "end": end, "granularity": granularity}}));
        triplets.push(json!({"source": {"type": "Company", "name": "New"}, "relation": "OWNS", "target": brand,
            "valid_time": {"start": start, "granularity": granularity}}));
    }
    let committed = session.tool("commit", json!({"triplets": triplets}), None);
    assert_eq!(
        committed["structuredContent"]["data"]["commit_seq"], 2,
        "{committed}"
    );
    let owners = |session: &mut crate::mcp_mrtr::Session,
                  brand: &str,
                  valid_at: &str,
                  mode: &str|
     -> Vec<String> {
        let arguments = if mode == "structured" {
            json!({"mode": "structured", "valid_at": valid_at, "structured": {
                "patterns": [
                    {"subject": {"var": "c"}, "predicate": "OWNS", "object": {"type": "Brand", "name": brand}},
                    {"subject": {"var": "c"}, "predicate": {"iri": "http://www.w3.org/2000/01/rdf-schema#label"}, "object": {"var": "name"}}],
                "select": ["name"], "order_by": [{"var": "name"}]}})
        } else {
            json!({"mode": "traverse", "valid_at": valid_at, "traverse": {"steps": [
                {"from_records": [{"type": "Brand", "name": brand}]}, {"in": "OWNS"}]}})
        };
        let answer = session.tool("query", arguments, None)["structuredContent"].clone();
        let key = if mode == "structured" {
            "name"
        } else {
            "label"
        };
        answer["data"]["rows"]
            .as_array()
            .unwrap_or_else(|| panic!("{answer}"))
            .iter()
            .map(|r| r[key].as_str().unwrap().to_owned())
            .collect()
    };
    for (granularity, _, _) in cases {
        for mode in ["structured", "traverse"] {
            let before = owners(&mut session, granularity, "2019-12-31T23:59:59.999Z", mode);
            assert_eq!(
                before,
                ["Old"],
                "{granularity} {mode}: the last instant of the first period"
            );
            let after = owners(&mut session, granularity, "2020-01-01T00:00:00Z", mode);
            assert_eq!(
                after,
                ["New"],
                "{granularity} {mode}: the first instant of the second period"
            );
        }
        if granularity != "instant" {
            // A date means its end: the first owner held the brand all of its last day.
            assert_eq!(
                owners(&mut session, granularity, "2019-12-31", "structured"),
                ["Old"],
                "{granularity}"
            );
            assert_eq!(
                owners(
                    &mut session,
                    granularity,
                    "2019-12-31T12:00:00Z",
                    "structured"
                ),
                ["Old"],
                "{granularity}"
            );
        }
    }
    // What is stored: the exclusive end, the first instant after the last day.
    let stored = session.tool("query", json!({"mode": "sparql", "sparql":
        "SELECT ?u WHERE { ?r <https://strata.dev/ns#granularity> \"day\" ; <https://strata.dev/ns#validUntil> ?u }"}), None)
        ["structuredContent"]["data"]["rows"].clone();
    assert_eq!(stored[0]["u"]["value"], "2020-01-01T00:00:00Z", "{stored}");
    // Bad periods are refused, naming the argument, and commit nothing.
    for (valid_time, param) in [
        (
            json!({"start": "2020-01-01", "granularity": "fortnight"}),
            "triplets[0].valid_time.granularity",
        ),
        (
            json!({"start": "2020-02-01", "end": "2020-01-31"}),
            "triplets[0].valid_time.end",
        ),
        (json!({"start": "2020-13"}), "triplets[0].valid_time.start"),
    ] {
        let refused = session.tool("commit", json!({"triplets": [
            {"source": {"type": "Company", "name": "Old"}, "relation": "OWNS", "target": {"type": "Brand", "name": "x"},
             "valid_time": valid_time}]}), None)["structuredContent"].clone();
        assert_eq!(refused["error"]["param"], param, "{refused}");
    }
    // A link held in two periods: each period is its own, and the gap between them holds
    // neither.
    let twice = |start: &str, end: &str| {
        json!({"source": {"type": "Company", "name": "Old"}, "relation": "OWNS",
        "target": {"type": "Brand", "name": "twice"}, "valid_time": {"start": start, "end": end}})
    };
    let committed = session.tool(
        "commit",
        json!({"triplets": [twice("2010", "2012"), twice("2015", "2019")]}),
        None,
    );
    assert_eq!(
        committed["structuredContent"]["data"]["commit_seq"], 3,
        "{committed}"
    );
    for (at, expected) in [
        ("2011-06-01", vec!["Old"]),
        ("2014-06-01", vec![]),
        ("2016-06-01", vec!["Old"]),
        ("2020-06-01", vec![]),
    ] {
        assert_eq!(
            owners(&mut session, "twice", at, "structured"),
            expected,
            "twice at {at}"
        );
        assert_eq!(
            owners(&mut session, "twice", at, "traverse"),
            expected,
            "twice at {at} (traverse)"
        );
    }
    let both = session.tool(
        "query",
        json!({"mode": "traverse", "as_of": "2020-01-01", "valid_at": "2020-01-01",
        "traverse": {"steps": [{"from_type": "Brand"}]}}),
        None,
    )["structuredContent"]
        .clone();
    assert_eq!(both["error"]["param"], "as_of", "{both}");
    let head = session.tool("inspect", json!({"action": "log"}), None)["structuredContent"].clone();
    assert_eq!(head["served_at_seq"], 3, "{head}");
    drop(session);
    let _ = child.wait();
}

/// Structured terms are written as answers write them, and numbers match by value: a JSON
/// `1.5` was an xsd:double that never met Turtle's `1.5` (an xsd:decimal), `lang` was
/// ignored, full datatype IRIs were refused, and variables no pattern binds were accepted
/// (silently empty answers).
#[test]
fn structured_terms_match_by_value_and_unknown_variables_are_named() {
    let strata = Strata::new();
    let (mut child, mut session) = start(&strata, &["serve", "--stdio", "--no-demo"]);
    let data = r#"@prefix e: <http://e/> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
        e:x e:price 1.5 ; e:age "30"^^xsd:int ; e:name "Paris"@fr , "Pariisi"@fi ;
            e:cost "7"^^e:USD ; e:flag true .
        e:y e:price 2.5e0 ; e:age 31 ; e:name "Paris" ."#;
    import_first_commit(&mut session, data);
    let matching = |session: &mut Session, object: Value| -> Value {
        session.tool(
            "query",
            json!({"mode": "structured", "structured": {"patterns": [
                {"subject": {"var": "s"}, "predicate": {"iri": "http://e/price"}, "object": {"var": "p"}},
                {"subject": {"var": "s"}, "predicate": object[0].clone(), "object": object[1].clone()}
            ], "select": ["s"], "order_by": [{"var": "s"}]}}),
            None,
        )["structuredContent"]
            .clone()
    };
    let subjects = |answer: &Value| -> Vec<String> {
        answer["data"]["rows"]
            .as_array()
            .unwrap_or_else(|| panic!("{answer}"))
            .iter()
            .map(|row| row["s"]["iri"].as_str().unwrap_or_default().to_owned())
            .collect()
    };
    let price = json!({"iri": "http://e/price"});
    let age = json!({"iri": "http://e/age"});
    let name = json!({"iri": "http://e/name"});
    for (object, expected) in [
        (json!([price, {"value": 1.5}]), vec!["http://e/x"]),
        (json!([price, {"value": 2.5}]), vec!["http://e/y"]),
        (
            json!([price, {"value": "2.5", "datatype": "f64"}]),
            vec!["http://e/y"],
        ),
        (json!([age, {"value": 30}]), vec!["http://e/x"]),
        (json!([age, {"value": 31.0}]), vec!["http://e/y"]),
        (
            json!([name, {"value": "Paris", "lang": "fr"}]),
            vec!["http://e/x"],
        ),
        (json!([name, {"value": "Paris", "lang": "de"}]), vec![]),
        (json!([name, {"value": "Paris"}]), vec!["http://e/y"]),
        (
            json!([{"iri": "http://e/cost"}, {"value": "7", "datatype": "http://e/USD"}]),
            vec!["http://e/x"],
        ),
        (
            json!([{"iri": "http://e/flag"}, {"value": true}]),
            vec!["http://e/x"],
        ),
    ] {
        let answer = matching(&mut session, object.clone());
        assert_eq!(subjects(&answer), expected, "{object}: {answer}");
    }
    // A value read from an answer goes back in as it came.
    let first = session.tool(
        "query",
        json!({"mode": "structured", "structured": {"patterns": [
            {"subject": {"iri": "http://e/x"}, "predicate": {"iri": "http://e/name"}, "object": {"var": "n"}}
        ], "order_by": [{"var": "n", "descending": true}]}}),
        None,
    )["structuredContent"]["data"]["rows"][0]["n"]
        .clone();
    assert_eq!(first, json!({"value": "Paris", "lang": "fr"}));
    let again = matching(&mut session, json!([name, first]));
    assert_eq!(subjects(&again), ["http://e/x"], "{again}");

    // Variables no pattern binds, and names that collide, are refused by JSON path.
    let pattern = json!({"subject": {"var": "s"}, "predicate": {"iri": "http://e/age"}, "object": {"var": "a"}});
    for (body, param) in [
        (
            json!({"patterns": [pattern], "filters": [{"op": "gt", "left": {"var": "age"}, "right": {"value": 3}}]}),
            "structured.filters[0].left.var",
        ),
        (
            json!({"patterns": [pattern], "filters": [{"op": "gt", "left": {"field": {"var": "t", "name": "http://e/age"}}, "right": {"value": 3}}]}),
            "structured.filters[0].left.field.var",
        ),
        (
            json!({"patterns": [pattern], "group_by": ["x"], "aggregates": [{"func": "count", "as": "n"}]}),
            "structured.group_by[0]",
        ),
        (
            json!({"patterns": [pattern], "order_by": [{"var": "b"}]}),
            "structured.order_by[0].var",
        ),
        (
            json!({"patterns": [pattern], "group_by": ["a"], "aggregates": [{"func": "count", "as": "n"}], "order_by": [{"var": "s"}]}),
            "structured.order_by[0].var",
        ),
        (
            json!({"patterns": [pattern], "select": ["q"]}),
            "structured.select[0]",
        ),
        (
            json!({"patterns": [pattern], "aggregates": [{"func": "count", "as": "s"}]}),
            "structured.aggregates[0].as",
        ),
        (
            json!({"patterns": [{"subject": {"var": "_f0"}, "predicate": {"iri": "http://e/age"}, "object": {"var": "a"}}]}),
            "structured.patterns[0].subject.var",
        ),
        (
            json!({"patterns": [{"subject": {"var": "s"}, "predicate": {"iri": "http://e/name"}, "object": {"value": "x", "lang": "not a tag!"}}]}),
            "structured.patterns[0].object.lang",
        ),
    ] {
        let answer = session.tool(
            "query",
            json!({"mode": "structured", "structured": body}),
            None,
        )["structuredContent"]
            .clone();
        assert_eq!(
            answer["error"]["code"], "invalid_argument",
            "{body}: {answer}"
        );
        assert_eq!(answer["error"]["param"], param, "{body}: {answer}");
    }
    drop(session);
    let _ = child.wait();
}

/// `names` read 2,000 candidates before ranking them, so an exact name among many that
/// merely contain it could be missed; the best are now read first.
#[test]
fn names_finds_the_exact_name_among_thousands_that_contain_it() {
    let strata = Strata::new();
    let (mut child, mut session) = start(&strata, &["serve", "--stdio", "--no-demo"]);
    let mut data = String::from(
        "@prefix e: <http://e/> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n",
    );
    for i in 0..2100 {
        data.push_str(&format!(
            "e:fan{i} rdfs:label \"a fan of Ada number {i}\" .\n"
        ));
    }
    data.push_str("e:zz-ada rdfs:label \"Ada\" . e:zz-lovelace rdfs:label \"Ada Lovelace\" .\n");
    import_first_commit(&mut session, &data);
    let answer =
        session.tool("query", json!({"mode": "names", "name": "Ada"}), None)["structuredContent"]
            .clone();
    let candidates = answer["data"]["candidates"]
        .as_array()
        .unwrap_or_else(|| panic!("{answer}"));
    assert_eq!(candidates[0]["name"], "Ada", "{answer}");
    assert_eq!(candidates[0]["match"], "exact");
    assert_eq!(candidates[0]["records"][0]["iri"], "http://e/zz-ada");
    assert_eq!(candidates[1]["name"], "Ada Lovelace");
    assert_eq!(candidates[1]["match"], "prefix");
    assert_eq!(answer["truncated"], true);
    // More rows than are read: the count is a lower bound, and says so.
    assert!(
        answer["summary"]
            .as_str()
            .unwrap_or_default()
            .contains("+ name(s)"),
        "{answer}"
    );
    drop(session);
    let _ = child.wait();
}

/// Walks read the default graph as the other modes do, show the links among the outer ring
/// of a neighborhood, and say when a type's subtypes were left out; `describe` lists every
/// kind of value a property holds; the `sparql` mode leaves string literals as written.
#[test]
fn walks_and_descriptions_show_what_is_there_and_say_what_is_left_out() {
    let strata = Strata::new();
    let (mut child, mut session) = start(&strata, &["serve", "--stdio", "--no-demo"]);
    let trig = "@prefix e: <http://e/> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
        e:Bug rdfs:subClassOf e:Ticket .
        e:t1 a e:Ticket ; e:link e:a ; e:see \"text\" . e:t2 a e:Ticket ; e:see e:t1 .
        e:b1 a e:Bug ; e:see e:t1 .
        e:a e:link e:b . e:a e:link e:c . e:b e:link e:c .
        e:elsewhere { e:t1 e:link e:hidden . }";
    let imported = session.tool(
        "rdf",
        json!({"action": "import", "format": "trig", "content": trig}),
        None,
    );
    assert_eq!(
        imported["structuredContent"]["data"]["commit_seq"], 1,
        "{imported}"
    );
    let mut query = |arguments: Value| -> Value {
        session.tool("query", arguments, None)["structuredContent"].clone()
    };
    // Neighborhood of t1 within 2 hops: a (1), b and c (2); b → c joins the outer ring.
    let around = query(
        json!({"mode": "neighborhood", "source": {"iri": "http://e/t1"},
        "direction": "out", "max_depth": 2}),
    );
    let links: Vec<(String, String)> = around["data"]["links"]
        .as_array()
        .unwrap_or_else(|| panic!("{around}"))
        .iter()
        .map(|l| {
            (
                l["from"].as_str().unwrap().to_owned(),
                l["to"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert!(
        links.contains(&("http://e/b".into(), "http://e/c".into())),
        "{around}"
    );
    assert!(
        !around.to_string().contains("http://e/hidden"),
        "a named graph's link is not the default graph's: {around}"
    );
    let paths = query(json!({"mode": "paths", "source": {"iri": "http://e/t1"},
        "target": {"iri": "http://e/hidden"}}));
    assert_eq!(paths["data"]["paths"], json!([]), "{paths}");

    // Traversal from a type with subtypes: told, and entailment includes them.
    // Items (a row per item and type: count the items).
    let count = |answer: &Value| {
        let mut items: Vec<String> = answer["data"]["rows"]
            .as_array()
            .map(|rows| rows.iter().map(|r| r["iri"].to_string()).collect())
            .unwrap_or_default();
        items.dedup();
        items.len()
    };
    let plain = query(
        json!({"mode": "traverse", "traverse": {"steps": [{"from_type": "http://e/Ticket"}]}}),
    );
    assert_eq!(count(&plain), 2, "{plain}");
    assert!(
        plain["notes"].to_string().contains("http://e/Bug"),
        "{plain}"
    );
    let entailed = query(json!({"mode": "traverse", "entailment": "subclass",
        "traverse": {"steps": [{"from_type": "http://e/Ticket"}]}}));
    assert_eq!(count(&entailed), 3, "{entailed}");
    assert!(entailed["notes"].is_null(), "{entailed}");
    // A record the graph does not hold is no item.
    let counted = query(json!({"mode": "traverse", "traverse": {"steps": [
        {"from_records": [{"iri": "http://e/t1"}, {"iri": "http://e/nowhere"}]}, {"count": true}]}}));
    assert!(counted.to_string().contains("\"count\":1"), "{counted}");

    // describe: a property holding IRIs and strings is mixed, both kinds listed.
    let described = query(json!({"mode": "describe", "class": "http://e/Ticket"}));
    let see = described["data"]["properties"]
        .as_array()
        .unwrap_or_else(|| panic!("{described}"))
        .iter()
        .find(|p| p["property"] == "http://e/see")
        .cloned()
        .unwrap_or_else(|| panic!("{described}"));
    assert_eq!(see["kind"], "mixed", "{see}");
    assert_eq!(
        see["kinds"],
        json!(["http://www.w3.org/2001/XMLSchema#string", "iri"]),
        "{see}"
    );
    assert!(
        described["notes"].to_string().contains("http://e/Bug"),
        "{described}"
    );

    let zero = query(json!({"mode": "sparql", "sparql": "ASK {}", "row_limit": 0}));
    assert_eq!(zero["error"]["param"], "row_limit", "{zero}");

    // Local names are lowercased in the query's IRIs, never in its strings.
    let text = "<http://strata.local/graphs/main/class/Bug>";
    let kept = query(json!({"mode": "sparql",
        "sparql": format!("SELECT ?x WHERE {{ BIND(\"{text}\" AS ?x) }}")}));
    assert_eq!(kept["data"]["rows"][0]["x"], text, "{kept}");
    drop(session);
    let _ = child.wait();
}

/// `inspect entity`, `inspect guide` and `paths` state totals, and say when they list
/// only part of them.
#[test]
fn cut_answers_state_their_totals_and_say_they_were_cut() {
    let strata = Strata::new();
    let (mut child, mut session) = start(&strata, &["serve", "--stdio", "--no-demo"]);
    // 31 sources link to the hub; it has 120 skills; 30 types and 30 properties; a
    // diamond of 6 middle nodes makes 6 paths of 2 links from a to z.
    let mut data = String::from("@prefix e: <http://e/> .\n");
    for i in 0..31 {
        data.push_str(&format!("e:s{i} e:worksFor e:hub .\n"));
    }
    for i in 0..120 {
        data.push_str(&format!("e:hub e:skill \"skill {i:03}\" .\n"));
    }
    for i in 0..30 {
        data.push_str(&format!("e:t{i} a e:Type{i} ; e:p{i} 1 .\n"));
    }
    for i in 0..6 {
        data.push_str(&format!("e:a e:to e:m{i} . e:m{i} e:to e:z .\n"));
    }
    import_first_commit(&mut session, &data);
    let mut inspect = |arguments: Value| -> Value {
        session.tool("inspect", arguments, None)["structuredContent"].clone()
    };
    let hub = inspect(json!({"action": "entity", "iri": "http://e/hub"}));
    assert_eq!(hub["data"]["incoming_count"], 31, "{hub}");
    assert_eq!(hub["data"]["value_count"], 120, "{hub}");
    assert_eq!(hub["truncated"], true, "{hub}");
    assert!(
        hub["summary"]
            .as_str()
            .unwrap()
            .contains("31 incoming links"),
        "{hub}"
    );
    let shown = hub["data"]["incoming"].as_array().unwrap().len();
    assert!(shown < 31, "{hub}");
    assert!(
        hub["notes"].to_string().contains(&format!("{shown} of 31")),
        "{hub}"
    );
    let small = inspect(json!({"action": "entity", "iri": "http://e/m0"}));
    assert!(small["truncated"].is_null(), "{small}");
    assert_eq!(small["data"]["incoming_count"], 1, "{small}");

    let guide = inspect(json!({"action": "guide", "detail": "full"}));
    assert_eq!(guide["data"]["type_count"], 30, "{guide}");
    assert_eq!(
        guide["data"]["types"].as_array().unwrap().len(),
        20,
        "{guide}"
    );
    // e:worksFor, e:skill, rdf:type, e:to and e:p0..e:p29.
    assert_eq!(guide["data"]["property_count"], 34, "{guide}");
    assert_eq!(guide["truncated"], true, "{guide}");

    let mut query = |arguments: Value| -> Value {
        session.tool("query", arguments, None)["structuredContent"].clone()
    };
    let all = query(json!({"mode": "paths", "source": {"iri": "http://e/a"},
        "target": {"iri": "http://e/z"}, "max_paths": 6}));
    assert_eq!(all["data"]["paths"].as_array().unwrap().len(), 6, "{all}");
    assert!(all["truncated"].is_null(), "{all}");
    let cut = query(json!({"mode": "paths", "source": {"iri": "http://e/a"},
        "target": {"iri": "http://e/z"}, "max_paths": 5}));
    assert_eq!(cut["data"]["paths"].as_array().unwrap().len(), 5, "{cut}");
    assert_eq!(cut["truncated"], true, "{cut}");
    let _ = child.kill();
    let _ = child.wait();
}
