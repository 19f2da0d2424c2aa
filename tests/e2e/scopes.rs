//! Who may do what: every cell of README's "Who may do what" table is checked here by
//! real requests (HTTP, and MCP over streamable HTTP at `/mcp`) to a server with API keys
//! of each scope, and to one without keys. A refused request answers `forbidden`, names
//! the missing scope or graph, and changes nothing. The named tests below are the
//! regressions of issue 11 ("Write keys have admin powers").

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::util::{Mcp, Server, Strata, agent, percent_encode};

const SHAPES: &str = "https://strata.dev/ns#shapes";
const EMBEDDINGS: &str = "https://strata.dev/ns#embeddings";
const SH: &str = "http://www.w3.org/ns/shacl#";

fn sha256_hex(key: &str) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(key.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A key as the configuration lists it.
fn key(name: &str, scopes: &[&str], graphs: Option<&[&str]>) -> Value {
    let mut key =
        json!({"name": name, "sha256": sha256_hex(&format!("{name}-key")), "scopes": scopes});
    if let Some(graphs) = graphs {
        key["graphs"] = json!(graphs);
    }
    key
}

/// A data directory whose graphs hold a little data (each its own commits), served with
/// `keys` (none: no configuration, loopback only). Removals need no approval.
fn serve(graphs: &[&str], keys: Option<Vec<Value>>) -> (Strata, Server) {
    let strata = Strata::new();
    let file = strata.file(
        "people.ttl",
        "@prefix ex: <http://example.org/> . ex:ada a ex:Person ; ex:name \"Ada\" ; ex:knows ex:alan . ex:alan a ex:Person ; ex:name \"Alan\" .",
    );
    for graph in graphs {
        strata
            .run(&["--graph", graph, "import", file.to_str().unwrap()])
            .ok();
    }
    let mut args = vec!["serve", "--http", "127.0.0.1:0", "--no-demo"];
    let config;
    if let Some(keys) = keys {
        config = strata.file("config.json", json!({ "api_keys": keys }).to_string());
        args.extend(["--config", config.to_str().unwrap()]);
    }
    let server = strata.serve_with_env(
        &args,
        &[
            ("STRATA_DESTRUCTIVE", "allow"),
            ("STRATA_EMBEDDER", "hashed"),
        ],
    );
    (strata, server)
}

/// One HTTP request: `(status, body)`. `key` `None` sends no Authorization header.
fn http(
    server: &Server,
    key: Option<&str>,
    method: &str,
    path: &str,
    body: Option<(&str, &str)>,
) -> (u16, String) {
    let url = server.url(path);
    let auth = key.map(|k| format!("Bearer {k}"));
    let mut response = match (method, body) {
        ("GET" | "DELETE", _) => {
            let mut request = if method == "GET" {
                agent().get(&url)
            } else {
                agent().delete(&url)
            };
            if let Some(auth) = &auth {
                request = request.header("authorization", auth);
            }
            request.call()
        }
        (_, body) => {
            let (content_type, text) = body.unwrap_or(("text/plain", ""));
            let mut request = if method == "PUT" {
                agent().put(&url)
            } else {
                agent().post(&url)
            };
            if let Some(auth) = &auth {
                request = request.header("authorization", auth);
            }
            request
                .header("content-type", content_type)
                .send(text.to_owned())
        }
    }
    .unwrap_or_else(|e| panic!("{method} {path}: {e}"));
    let status = response.status().as_u16();
    let text = response.body_mut().read_to_string().unwrap_or_default();
    (status, text)
}

/// What a request came to.
#[derive(Debug)]
enum Outcome {
    Allowed,
    /// 403 / `isError` with code `forbidden`, and its message.
    Refused(String),
    /// The graphs a listing named.
    Listed(Vec<String>),
    Other(String),
}

fn http_outcome((status, body): (u16, String)) -> Outcome {
    let error: Value = serde_json::from_str(&body).unwrap_or_default();
    match status {
        200..=299 => Outcome::Allowed,
        403 if error["error"]["code"] == "forbidden" => Outcome::Refused(
            error["error"]["message"]
                .as_str()
                .unwrap_or_default()
                .to_owned(),
        ),
        _ => Outcome::Other(format!("HTTP {status}: {body}")),
    }
}

fn mcp_outcome(result: Value) -> Outcome {
    let error = &result["structuredContent"]["error"];
    if result["isError"] == false {
        Outcome::Allowed
    } else if error["code"] == "forbidden" {
        Outcome::Refused(error["message"].as_str().unwrap_or_default().to_owned())
    } else {
        Outcome::Other(format!("MCP error: {result}"))
    }
}

/// The columns of the README table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Column {
    Read,
    Write,
    Admin,
    Limited,
    NoKeys,
}

impl Column {
    /// The column's heading in the README.
    fn heading(self) -> &'static str {
        match self {
            Column::Read => "read",
            Column::Write => "write",
            Column::Admin => "admin",
            Column::Limited => "graph-limited",
            Column::NoKeys => "no keys",
        }
    }

    /// A short name for the graphs, records and indexes a column creates.
    fn tag(self) -> &'static str {
        match self {
            Column::Read => "read",
            Column::Write => "write",
            Column::Admin => "admin",
            Column::Limited => "limited",
            Column::NoKeys => "open",
        }
    }

    /// The bearer key (`None`: the server has no keys).
    fn key(self) -> Option<&'static str> {
        match self {
            Column::Read => Some("reader-key"),
            Column::Write => Some("writer-key"),
            Column::Admin => Some("admin-key"),
            Column::Limited => Some("limited-key"),
            Column::NoKeys => None,
        }
    }
}

/// A server and one MCP session per column it serves.
struct Fixture<'a> {
    server: &'a Server,
    mcp: BTreeMap<&'static str, Mcp<'a>>,
    /// What each column sends as its bearer (an API key, or an OAuth access token).
    bearers: BTreeMap<&'static str, String>,
    /// The bearer that sees everything (admin; any key without keys configured).
    admin_key: Option<String>,
}

impl Fixture<'_> {
    fn bearer(&self, column: Column) -> Option<&str> {
        self.bearers.get(column.tag()).map(String::as_str)
    }

    fn http(
        &self,
        column: Column,
        method: &str,
        path: &str,
        body: Option<(&str, &str)>,
    ) -> Outcome {
        http_outcome(http(self.server, self.bearer(column), method, path, body))
    }

    fn mcp(&self, column: Column, tool: &str, arguments: Value) -> Outcome {
        mcp_outcome(self.mcp[column.tag()].call(tool, arguments))
    }

    /// Every graph with its head, as the admin sees them.
    fn heads(&self) -> BTreeMap<String, u64> {
        let (status, body) = http(
            self.server,
            self.admin_key.as_deref(),
            "GET",
            "/graphs",
            None,
        );
        assert_eq!(status, 200, "{body}");
        let body: Value = serde_json::from_str(&body).expect("JSON");
        body["graphs"]
            .as_array()
            .expect("graphs")
            .iter()
            .map(|g| {
                (
                    g["name"].as_str().expect("name").to_owned(),
                    g["head_seq"].as_u64().expect("head_seq"),
                )
            })
            .collect()
    }
}

fn listed(names: impl IntoIterator<Item = String>) -> Outcome {
    let mut names: Vec<String> = names.into_iter().collect();
    names.sort();
    Outcome::Listed(names)
}

/// One way to do one README action.
struct Case {
    /// The README row (its `action` cell).
    action: &'static str,
    /// What the case sends, for failure messages.
    how: &'static str,
    run: fn(&Fixture, Column) -> Outcome,
}

const PERSON: &str = "http://example.org/Person";

/// Every case, in the order they run (reads first, so writes cannot spoil them).
fn cases() -> Vec<Case> {
    vec![
        Case {
            action: "run a query",
            how: "GET /graphs/main/sparql",
            run: |f, c| {
                f.http(
                    c,
                    "GET",
                    "/graphs/main/sparql?query=ASK%7B%3Fs%20%3Fp%20%3Fo%7D",
                    None,
                )
            },
        },
        Case {
            action: "run a query",
            how: "MCP query mode sparql",
            run: |f, c| {
                f.mcp(
                    c,
                    "query",
                    json!({"mode": "sparql", "sparql": "ASK { ?s ?p ?o }"}),
                )
            },
        },
        Case {
            action: "read the log, a commit, a diff",
            how: "GET /graphs/main/commits",
            run: |f, c| f.http(c, "GET", "/graphs/main/commits", None),
        },
        Case {
            action: "read the log, a commit, a diff",
            how: "GET /graphs/main/commits/1",
            run: |f, c| f.http(c, "GET", "/graphs/main/commits/1", None),
        },
        Case {
            action: "read the log, a commit, a diff",
            how: "GET /graphs/main/diff?from=1&to=2",
            run: |f, c| f.http(c, "GET", "/graphs/main/diff?from=1&to=2", None),
        },
        Case {
            action: "read the log, a commit, a diff",
            how: "MCP inspect log",
            run: |f, c| f.mcp(c, "inspect", json!({"action": "log"})),
        },
        Case {
            action: "export a graph",
            how: "GET /graphs/main/store?default",
            run: |f, c| f.http(c, "GET", "/graphs/main/store?default", None),
        },
        Case {
            action: "read shapes and conformance",
            how: "GET /graphs/main/shapes",
            run: |f, c| f.http(c, "GET", "/graphs/main/shapes", None),
        },
        Case {
            action: "read shapes and conformance",
            how: "GET /graphs/main/conformance",
            run: |f, c| f.http(c, "GET", "/graphs/main/conformance", None),
        },
        Case {
            action: "read shapes and conformance",
            how: "MCP inspect schema",
            run: |f, c| f.mcp(c, "inspect", json!({"action": "schema"})),
        },
        Case {
            action: "list search indexes",
            how: "MCP embeddings list",
            run: |f, c| f.mcp(c, "embeddings", json!({"action": "list"})),
        },
        Case {
            action: "list search indexes",
            how: "MCP embeddings get",
            run: |f, c| f.mcp(c, "embeddings", json!({"action": "get", "name": "setup"})),
        },
        Case {
            action: "list graphs",
            how: "GET /graphs",
            run: |f, c| {
                let (status, body) = http(f.server, f.bearer(c), "GET", "/graphs", None);
                if status != 200 {
                    return http_outcome((status, body));
                }
                let body: Value = serde_json::from_str(&body).unwrap_or_default();
                listed(
                    body["graphs"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|g| g["name"].as_str().map(str::to_owned)),
                )
            },
        },
        Case {
            action: "list graphs",
            how: "MCP inspect graphs",
            run: |f, c| {
                let result = f.mcp[c.tag()].call("inspect", json!({"action": "graphs"}));
                if result["isError"] != false {
                    return mcp_outcome(result);
                }
                listed(
                    result["structuredContent"]["data"]["graphs"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|g| g["graph"].as_str().map(str::to_owned)),
                )
            },
        },
        Case {
            action: "list graphs",
            how: "strata_head_seq in GET /metrics",
            run: |f, c| {
                // Listing them as the admin first opens every graph, so each has a line.
                f.heads();
                let (status, body) = http(f.server, f.bearer(c), "GET", "/metrics", None);
                if status != 200 {
                    return http_outcome((status, body));
                }
                listed(body.lines().filter_map(|line| {
                    let rest = line.strip_prefix("strata_head_seq{graph=\"")?;
                    Some(rest.split('"').next()?.to_owned())
                }))
            },
        },
        Case {
            action: "change data",
            how: "POST /graphs/main/update",
            run: |f, c| {
                let update = format!(
                    "INSERT DATA {{ <http://e/{}> <http://e/p> \"update\" }}",
                    c.tag()
                );
                f.http(
                    c,
                    "POST",
                    "/graphs/main/update",
                    Some(("application/sparql-update", &update)),
                )
            },
        },
        Case {
            action: "change data",
            how: "POST /update (the alias of main)",
            run: |f, c| {
                let update = format!(
                    "INSERT DATA {{ <http://e/{}> <http://e/p> \"alias\" }}",
                    c.tag()
                );
                f.http(
                    c,
                    "POST",
                    "/update",
                    Some(("application/sparql-update", &update)),
                )
            },
        },
        Case {
            action: "change data",
            how: "MCP rdf update",
            run: |f, c| {
                let update = format!(
                    "INSERT DATA {{ <http://e/{}> <http://e/p> \"mcp\" }}",
                    c.tag()
                );
                f.mcp(c, "rdf", json!({"action": "update", "sparql": update}))
            },
        },
        Case {
            action: "change data",
            how: "MCP commit triplets",
            run: |f, c| {
                f.mcp(
                    c,
                    "commit",
                    json!({"triplets": [{"source": {"type": "Person", "name": format!("p-{}", c.tag())}, "relation": "KNOWS", "target": {"type": "Person", "name": "ada"}}]}),
                )
            },
        },
        Case {
            action: "import into an existing graph",
            how: "Graph Store POST /graphs/main/store?default",
            run: |f, c| {
                let body = format!("<http://e/{}> <http://e/p> \"gsp\" .", c.tag());
                f.http(
                    c,
                    "POST",
                    "/graphs/main/store?default",
                    Some(("text/turtle", &body)),
                )
            },
        },
        Case {
            action: "import into an existing graph",
            how: "Graph Store PUT /graphs/main/store?graph=http://e/g-<column>",
            run: |f, c| {
                let path = format!("/graphs/main/store?graph=http://e/g-{}", c.tag());
                f.http(
                    c,
                    "PUT",
                    &path,
                    Some(("text/turtle", "<http://e/a> <http://e/p> \"put\" .")),
                )
            },
        },
        Case {
            action: "import into an existing graph",
            how: "MCP rdf import",
            run: |f, c| {
                let content = format!("<http://e/{}> <http://e/p> \"import\" .", c.tag());
                f.mcp(
                    c,
                    "rdf",
                    json!({"action": "import", "format": "turtle", "content": content}),
                )
            },
        },
        Case {
            action: "define the ontology",
            how: "MCP configure define_ontology",
            run: |f, c| {
                f.mcp(
                    c,
                    "configure",
                    json!({"action": "define_ontology", "types": [{"name": format!("Kind{}", c.tag())}]}),
                )
            },
        },
        Case {
            action: "create a graph",
            how: "POST /graphs",
            run: |f, c| {
                let body = format!("{{\"name\": \"new-{}\"}}", c.tag());
                f.http(c, "POST", "/graphs", Some(("application/json", &body)))
            },
        },
        Case {
            action: "create a graph",
            how: "MCP rdf import into a new graph",
            run: |f, c| {
                f.mcp(
                    c,
                    "rdf",
                    json!({"action": "import", "graph": format!("import-{}", c.tag()), "format": "turtle", "content": "<http://e/a> <http://e/p> 1 ."}),
                )
            },
        },
        Case {
            action: "create a graph",
            how: "MCP rdf update into a new graph",
            run: |f, c| {
                f.mcp(
                    c,
                    "rdf",
                    json!({"action": "update", "graph": format!("update-{}", c.tag()), "sparql": "INSERT DATA { <http://e/a> <http://e/p> 1 }"}),
                )
            },
        },
        Case {
            action: "create a graph",
            how: "MCP configure define_ontology in a new graph",
            run: |f, c| {
                f.mcp(
                    c,
                    "configure",
                    json!({"action": "define_ontology", "graph": format!("onto-{}", c.tag()), "types": [{"name": "Thing"}]}),
                )
            },
        },
        Case {
            action: "delete a graph",
            how: "DELETE /graphs/doomed-<column>",
            run: |f, c| f.http(c, "DELETE", &format!("/graphs/doomed-{}", c.tag()), None),
        },
        Case {
            action: "write a control graph",
            how: "POST /graphs/main/update into strata:shapes",
            run: |f, c| {
                let update = format!(
                    "INSERT DATA {{ GRAPH <{SHAPES}> {{ <http://e/S-{}> a <{SH}NodeShape> }} }}",
                    c.tag()
                );
                f.http(
                    c,
                    "POST",
                    "/graphs/main/update",
                    Some(("application/sparql-update", &update)),
                )
            },
        },
        Case {
            action: "write a control graph",
            how: "POST /update (form) into strata:embeddings",
            run: |f, c| {
                let update = format!(
                    "INSERT DATA {{ GRAPH <{EMBEDDINGS}> {{ <http://e/D-{}> <http://e/p> 1 }} }}",
                    c.tag()
                );
                let form = format!("update={}", percent_encode(&update));
                f.http(
                    c,
                    "POST",
                    "/update",
                    Some(("application/x-www-form-urlencoded", &form)),
                )
            },
        },
        Case {
            action: "write a control graph",
            how: "Graph Store POST ?graph=strata:shapes",
            run: |f, c| {
                let body = format!("<http://e/S2-{}> a <{SH}NodeShape> .", c.tag());
                let path = format!("/graphs/main/store?graph={SHAPES}").replace('#', "%23");
                f.http(c, "POST", &path, Some(("text/turtle", &body)))
            },
        },
        Case {
            action: "write a control graph",
            how: "Graph Store PUT ?graph=strata:shapes",
            run: |f, c| {
                let body = format!("<http://e/S3-{}> a <{SH}NodeShape> .", c.tag());
                let path = format!("/graphs/main/store?graph={SHAPES}").replace('#', "%23");
                f.http(c, "PUT", &path, Some(("text/turtle", &body)))
            },
        },
        Case {
            action: "write a control graph",
            how: "MCP rdf update into strata:shapes",
            run: |f, c| {
                let update = format!(
                    "INSERT DATA {{ GRAPH <{SHAPES}> {{ <http://e/S4-{}> a <{SH}NodeShape> }} }}",
                    c.tag()
                );
                f.mcp(c, "rdf", json!({"action": "update", "sparql": update}))
            },
        },
        Case {
            action: "write a control graph",
            how: "MCP rdf import of TriG with a strata:shapes graph",
            run: |f, c| {
                let content = format!(
                    "<{SHAPES}> {{ <http://e/S5-{}> a <{SH}NodeShape> . }}",
                    c.tag()
                );
                f.mcp(
                    c,
                    "rdf",
                    json!({"action": "import", "format": "trig", "content": content}),
                )
            },
        },
        Case {
            action: "write a control graph",
            how: "MCP rdf import with into_graph strata:embeddings",
            run: |f, c| {
                let content = format!("<http://e/D2-{}> <http://e/p> 1 .", c.tag());
                f.mcp(
                    c,
                    "rdf",
                    json!({"action": "import", "format": "turtle", "content": content, "into_graph": EMBEDDINGS}),
                )
            },
        },
        Case {
            action: "write a control graph",
            how: "Graph Store DELETE ?graph=strata:shapes",
            run: |f, c| {
                let path = format!("/graphs/main/store?graph={SHAPES}").replace('#', "%23");
                f.http(c, "DELETE", &path, None)
            },
        },
        Case {
            action: "publish or remove shapes",
            how: "PUT /graphs/main/shapes?mode=warn",
            run: |f, c| {
                let shapes = harmless_shapes(c.tag());
                f.http(
                    c,
                    "PUT",
                    "/graphs/main/shapes?mode=warn",
                    Some(("text/turtle", &shapes)),
                )
            },
        },
        Case {
            action: "publish or remove shapes",
            how: "MCP configure publish_schema",
            run: |f, c| {
                f.mcp(
                    c,
                    "configure",
                    json!({"action": "publish_schema", "shapes": harmless_shapes(c.tag()), "desired_mode": "warn"}),
                )
            },
        },
        Case {
            action: "publish or remove shapes",
            how: "MCP configure publish_schema dry_run",
            run: |f, c| {
                f.mcp(
                    c,
                    "configure",
                    json!({"action": "publish_schema", "shapes": harmless_shapes(c.tag()), "desired_mode": "reject", "dry_run": true}),
                )
            },
        },
        Case {
            action: "publish or remove shapes",
            how: "DELETE /graphs/main/shapes",
            run: |f, c| f.http(c, "DELETE", "/graphs/main/shapes", None),
        },
        Case {
            action: "declare, refresh or delete a search index",
            how: "MCP embeddings declare",
            run: |f, c| {
                f.mcp(
                    c,
                    "embeddings",
                    json!({"action": "declare", "name": format!("idx-{}", c.tag()), "class": PERSON, "from": ["http://example.org/name"]}),
                )
            },
        },
        Case {
            action: "declare, refresh or delete a search index",
            how: "MCP embeddings refresh",
            run: |f, c| {
                f.mcp(
                    c,
                    "embeddings",
                    json!({"action": "refresh", "name": "setup"}),
                )
            },
        },
        Case {
            action: "declare, refresh or delete a search index",
            how: "MCP embeddings delete",
            run: |f, c| {
                f.mcp(
                    c,
                    "embeddings",
                    json!({"action": "delete", "name": format!("idx-{}", c.tag())}),
                )
            },
        },
        Case {
            action: "query a graph outside the key's `graphs`",
            how: "GET /graphs/other/sparql",
            run: |f, c| f.http(c, "GET", "/graphs/other/sparql?query=ASK%7B%7D", None),
        },
        Case {
            action: "query a graph outside the key's `graphs`",
            how: "MCP query graph other",
            run: |f, c| {
                f.mcp(
                    c,
                    "query",
                    json!({"mode": "sparql", "graph": "other", "sparql": "ASK {}"}),
                )
            },
        },
        Case {
            action: "write a graph outside the key's `graphs`",
            how: "POST /graphs/other/update",
            run: |f, c| {
                let update = format!(
                    "INSERT DATA {{ <http://e/{}> <http://e/p> \"other\" }}",
                    c.tag()
                );
                f.http(
                    c,
                    "POST",
                    "/graphs/other/update",
                    Some(("application/sparql-update", &update)),
                )
            },
        },
        Case {
            action: "write a graph outside the key's `graphs`",
            how: "MCP rdf update graph other",
            run: |f, c| {
                let update = format!(
                    "INSERT DATA {{ <http://e/{}> <http://e/p> \"mcp-other\" }}",
                    c.tag()
                );
                f.mcp(
                    c,
                    "rdf",
                    json!({"action": "update", "graph": "other", "sparql": update}),
                )
            },
        },
    ]
}

/// Shapes that target a class nobody uses: publishing them changes no later answer.
fn harmless_shapes(tag: &str) -> String {
    format!(
        "@prefix sh: <{SH}> . <http://e/Shape-{tag}> a sh:NodeShape ; sh:targetClass <http://e/Nobody> ; sh:property [ sh:path <http://e/p> ; sh:minCount 1 ] ."
    )
}

/// What a README cell promises.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Expect {
    Allowed,
    Refused,
    /// A listing that names only the key's graphs.
    OnlyItsGraphs,
}

/// The "Who may do what" table: action → column heading → cell.
fn readme_table() -> BTreeMap<String, BTreeMap<String, Expect>> {
    let readme =
        std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
            .expect("README.md");
    let section = readme
        .split("#### Who may do what")
        .nth(1)
        .expect("README has a 'Who may do what' section");
    let rows: Vec<Vec<String>> = section
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            l.trim_matches('|')
                .split(" | ")
                .map(|c| c.trim().to_owned())
                .collect()
        })
        .collect();
    let headings = &rows[0];
    let mut table = BTreeMap::new();
    for row in &rows[2..] {
        assert_eq!(row.len(), headings.len(), "README row {row:?}");
        let mut cells = BTreeMap::new();
        for (heading, cell) in headings.iter().zip(row).skip(2) {
            let expect = match cell.as_str() {
                "✓" => Expect::Allowed,
                "✗" => Expect::Refused,
                "its graphs only" => Expect::OnlyItsGraphs,
                other => panic!("README cell {other:?} in row {:?}", row[0]),
            };
            cells.insert(heading.clone(), expect);
        }
        table.insert(row[0].clone(), cells);
    }
    table
}

/// Runs every case for every column of a fixture; returns the cells that broke their
/// promise, each named by action, column and request.
fn check_cells(
    fixture: &Fixture,
    columns: &[Column],
    table: &BTreeMap<String, BTreeMap<String, Expect>>,
) -> Vec<String> {
    let mut failures = Vec::new();
    for case in cases() {
        let cells = table
            .get(case.action)
            .unwrap_or_else(|| panic!("README has no row {:?}", case.action));
        for &column in columns {
            let cell = format!("[{} × {}] ({})", case.action, column.heading(), case.how);
            let expect = cells[column.heading()];
            let before = fixture.heads();
            let outcome = (case.run)(fixture, column);
            match (expect, outcome) {
                (Expect::Allowed, Outcome::Allowed) => {}
                (Expect::Allowed, Outcome::Listed(names)) => {
                    let all: Vec<String> = fixture.heads().into_keys().collect();
                    if names != all {
                        failures.push(format!("{cell}: listed {names:?}, expected all {all:?}"));
                    }
                }
                (Expect::OnlyItsGraphs, Outcome::Listed(names)) => {
                    if names != ["main"] {
                        failures.push(format!(
                            "{cell}: listed {names:?}, expected only [\"main\"]"
                        ));
                    }
                }
                (Expect::Refused, Outcome::Refused(message)) => {
                    let after = fixture.heads();
                    if after != before {
                        failures.push(format!(
                            "{cell}: refused but changed the graphs: {before:?} → {after:?}"
                        ));
                    }
                    let names_reason = match column {
                        Column::Read => message.contains("scope"),
                        Column::Write => message.contains("admin scope"),
                        _ => {
                            message.contains("admin scope")
                                || message.contains("may not access graph")
                        }
                    };
                    if !names_reason {
                        failures.push(format!(
                            "{cell}: the refusal does not name the scope or graph: {message}"
                        ));
                    }
                }
                (expect, Outcome::Other(answer)) => {
                    failures.push(format!("{cell}: expected {expect:?}, got {answer}"));
                }
                (expect, outcome) => {
                    failures.push(format!("{cell}: expected {expect:?}, got {outcome:?}"));
                }
            }
        }
    }
    failures
}

/// Setup as the admin: an ontology (for MCP `commit`), harmless shapes (so there is
/// something to read), a search index `setup`.
fn prepare(fixture: &Fixture, admin: Column) {
    let ok = |outcome: Outcome, what: &str| {
        assert!(matches!(outcome, Outcome::Allowed), "{what}: {outcome:?}");
    };
    ok(
        fixture.mcp(
            admin,
            "configure",
            json!({"action": "define_ontology", "types": [{"name": "Person"}], "relations": [{"name": "KNOWS", "domain": "Person", "range": "Person"}]}),
        ),
        "define_ontology",
    );
    ok(
        fixture.mcp(
            admin,
            "configure",
            json!({"action": "publish_schema", "shapes": harmless_shapes("setup"), "desired_mode": "warn"}),
        ),
        "publish_schema",
    );
    ok(
        fixture.mcp(
            admin,
            "embeddings",
            json!({"action": "declare", "name": "setup", "class": PERSON, "from": ["http://example.org/name"]}),
        ),
        "declare",
    );
}

const GRAPHS: [&str; 7] = [
    "main",
    "other",
    "doomed-read",
    "doomed-write",
    "doomed-admin",
    "doomed-limited",
    "doomed-open",
];

/// README's table, cell by cell: each scope (and a server without keys) may do exactly
/// what the table says, over HTTP and MCP alike; refusals change nothing.
#[test]
fn every_action_is_allowed_to_exactly_the_scopes_the_readme_lists() {
    let table = readme_table();
    let used: std::collections::BTreeSet<&str> = cases().iter().map(|c| c.action).collect();
    for action in table.keys() {
        assert!(
            used.contains(action.as_str()),
            "README row {action:?} has no case"
        );
    }
    let keys = vec![
        key("reader", &["read"], None),
        key("writer", &["read", "write"], None),
        key("admin", &["read", "write", "admin"], None),
        key("limited", &["read", "write"], Some(&["main"])),
    ];
    let mut failures = Vec::new();
    {
        let (_strata, server) = serve(&GRAPHS, Some(keys));
        let columns = [Column::Read, Column::Write, Column::Admin, Column::Limited];
        let bearers: BTreeMap<_, _> = columns
            .iter()
            .map(|c| (c.tag(), c.key().expect("a key").to_owned()))
            .collect();
        let fixture = Fixture {
            server: &server,
            mcp: columns
                .iter()
                .map(|c| (c.tag(), Mcp::open(&server, &bearers[c.tag()])))
                .collect(),
            bearers,
            admin_key: Some("admin-key".to_owned()),
        };
        prepare(&fixture, Column::Admin);
        failures.extend(check_cells(&fixture, &columns, &table));
    }
    {
        let (_strata, server) = serve(&GRAPHS, None);
        let fixture = Fixture {
            server: &server,
            mcp: [(Column::NoKeys.tag(), Mcp::open(&server, "no-key"))]
                .into_iter()
                .collect(),
            bearers: BTreeMap::new(),
            admin_key: None,
        };
        prepare(&fixture, Column::NoKeys);
        failures.extend(check_cells(&fixture, &[Column::NoKeys], &table));
    }
    assert!(
        failures.is_empty(),
        "{} cell(s) broke README's table:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The same table for OAuth callers: each column's access token carries the scopes that
/// match the key of that column (`strata:read`; `strata:read strata:write`;
/// `strata:admin`; `strata:read:main strata:write:main`), from a real authorization
/// server, over HTTP and MCP alike.
#[test]
fn oauth_tokens_may_do_exactly_what_the_same_scopes_allow_a_key() {
    let table = readme_table();
    let auth = crate::oauth::AuthServer::start();
    let strata = Strata::new();
    let file = strata.file(
        "people.ttl",
        "@prefix ex: <http://example.org/> . ex:ada a ex:Person ; ex:name \"Ada\" ; ex:knows ex:alan . ex:alan a ex:Person ; ex:name \"Alan\" .",
    );
    for graph in GRAPHS {
        strata
            .run(&["--graph", graph, "import", file.to_str().unwrap()])
            .ok();
    }
    let (server, resource) =
        crate::oauth::serve_oauth_on(&strata, &auth, json!({}), &[("STRATA_EMBEDDER", "hashed")]);
    let columns = [Column::Read, Column::Write, Column::Admin, Column::Limited];
    let scopes = |c: Column| match c {
        Column::Read => "strata:read",
        Column::Write => "strata:read strata:write",
        Column::Admin => "strata:admin",
        _ => "strata:read:main strata:write:main",
    };
    let bearers: BTreeMap<_, _> = columns
        .iter()
        .map(|&c| {
            (
                c.tag(),
                auth.token("jwt-client", "jwt-secret", scopes(c), Some(&resource)),
            )
        })
        .collect();
    let fixture = Fixture {
        server: &server,
        mcp: columns
            .iter()
            .map(|c| (c.tag(), Mcp::open(&server, &bearers[c.tag()])))
            .collect(),
        admin_key: Some(bearers[Column::Admin.tag()].clone()),
        bearers,
    };
    prepare(&fixture, Column::Admin);
    let failures = check_cells(&fixture, &columns, &table);
    assert!(
        failures.is_empty(),
        "{} cell(s) broke README's table for OAuth tokens:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

fn writer_and_admin() -> (Strata, Server) {
    serve(
        &["main"],
        Some(vec![
            key("writer", &["read", "write"], None),
            key("admin", &["read", "write", "admin"], None),
        ]),
    )
}

fn json_of(body: &str) -> Value {
    serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}"))
}

/// The tester's report: a write key published reject rules by inserting into the shapes
/// graph, and every later write got 422.
#[test]
fn write_key_cannot_publish_shapes_through_sparql_update() {
    let (_strata, server) = writer_and_admin();
    let reject_rules = format!(
        "PREFIX sh: <{SH}> INSERT DATA {{ GRAPH <{SHAPES}> {{
           <http://e/TicketShape> a sh:NodeShape ; sh:targetClass <http://e/Ticket> ;
             sh:property [ sh:path <http://e/status> ; sh:minCount 1 ] .
           <{SHAPES}> <https://strata.dev/ns#validationMode> \"reject\" }} }}"
    );
    let update = |key: &str, text: &str| {
        http(
            &server,
            Some(key),
            "POST",
            "/graphs/main/update",
            Some(("application/sparql-update", text)),
        )
    };
    let (status, body) = update("writer-key", &reject_rules);
    assert_eq!(status, 403, "{body}");
    let error = json_of(&body);
    assert_eq!(error["error"]["code"], "forbidden");
    let message = error["error"]["message"].as_str().unwrap();
    assert!(
        message.contains(SHAPES) && message.contains("admin scope"),
        "{message}"
    );
    let (status, _) = http(
        &server,
        Some("writer-key"),
        "GET",
        "/graphs/main/shapes",
        None,
    );
    assert_eq!(status, 404, "no shapes were published");
    // Later writes are judged as before: a ticket without a status lands.
    let ticket = "INSERT DATA { <http://e/t1> a <http://e/Ticket> }";
    assert_eq!(update("writer-key", ticket).0, 200);
    // The admin may publish them; then the same kind of write is refused with 422.
    let (status, body) = update("admin-key", &reject_rules);
    assert_eq!(status, 200, "{body}");
    let (status, body) = update(
        "writer-key",
        "INSERT DATA { <http://e/t2> a <http://e/Ticket> }",
    );
    assert_eq!(status, 422, "{body}");
}

/// MCP `configure publish_schema` and `embeddings declare` worked with a write key.
#[test]
fn write_key_cannot_publish_schema_or_declare_indexes_through_mcp() {
    let (_strata, server) = writer_and_admin();
    let writer = Mcp::open(&server, "writer-key");
    let head = |server: &Server| {
        let (_, body) = http(server, Some("admin-key"), "GET", "/graphs", None);
        json_of(&body)["graphs"][0]["head_seq"].as_u64().unwrap()
    };
    let before = head(&server);
    let published = writer.call(
        "configure",
        json!({"action": "publish_schema", "shapes": harmless_shapes("w"), "desired_mode": "reject"}),
    );
    assert_eq!(published["isError"], true, "{published}");
    let error = &published["structuredContent"]["error"];
    assert_eq!(error["code"], "forbidden", "{published}");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("admin scope, which configure action publish_schema needs"),
        "{published}"
    );
    let declared = writer.call(
        "embeddings",
        json!({"action": "declare", "class": PERSON, "from": ["http://example.org/name"]}),
    );
    assert_eq!(
        declared["structuredContent"]["error"]["code"], "forbidden",
        "{declared}"
    );
    let imported = writer.call(
        "rdf",
        json!({"action": "import", "format": "nquads", "content": format!("<http://e/a> <http://e/p> \"1\" <{EMBEDDINGS}> .")}),
    );
    let error = &imported["structuredContent"]["error"];
    assert_eq!(error["code"], "forbidden", "{imported}");
    assert!(
        error["message"].as_str().unwrap().contains(EMBEDDINGS),
        "{imported}"
    );
    assert_eq!(head(&server), before, "nothing was written");
    let admin = Mcp::open(&server, "admin-key");
    let published = admin.call(
        "configure",
        json!({"action": "publish_schema", "shapes": harmless_shapes("a"), "desired_mode": "warn"}),
    );
    assert_eq!(published["isError"], false, "{published}");
}

/// MCP `rdf import` into a new graph name created it for a write key, although
/// `POST /graphs` is the admin's.
#[test]
fn write_key_cannot_create_a_graph_through_mcp_rdf_import() {
    let (_strata, server) = writer_and_admin();
    let writer = Mcp::open(&server, "writer-key");
    let graphs = || {
        let (_, body) = http(&server, Some("admin-key"), "GET", "/graphs", None);
        json_of(&body)["graphs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["name"].as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    let imported = writer.call(
        "rdf",
        json!({"action": "import", "graph": "fresh", "format": "turtle", "content": "<http://e/a> <http://e/p> 1 ."}),
    );
    let error = &imported["structuredContent"]["error"];
    assert_eq!(error["code"], "forbidden", "{imported}");
    assert_eq!(error["param"], "graph", "{imported}");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("creating a graph needs the admin scope"),
        "{imported}"
    );
    assert_eq!(graphs(), ["main"], "no graph was created");
    let admin = Mcp::open(&server, "admin-key");
    let imported = admin.call(
        "rdf",
        json!({"action": "import", "graph": "fresh", "format": "turtle", "content": "<http://e/a> <http://e/p> 1 ."}),
    );
    assert_eq!(imported["isError"], false, "{imported}");
    assert_eq!(graphs(), ["fresh", "main"]);
    // Once it exists, the write key may write to it.
    let imported = writer.call(
        "rdf",
        json!({"action": "import", "graph": "fresh", "format": "turtle", "content": "<http://e/b> <http://e/p> 2 ."}),
    );
    assert_eq!(imported["isError"], false, "{imported}");
}

/// `GET /graphs` listed every graph to a key limited to one, while MCP `inspect graphs`
/// refused it; both now list only the key's graphs, and so do `/metrics`, the
/// `graph_not_found` message and the searchable classes in MCP `tools/list`.
#[test]
fn graph_limited_key_sees_only_its_graphs_on_http_and_mcp() {
    let (_strata, server) = serve(
        &["main", "notes", "secret"],
        Some(vec![
            key("admin", &["read", "write", "admin"], None),
            key("notes", &["read"], Some(&["notes", "ghost"])),
            key("noteswriter", &["read", "write"], Some(&["notes", "ghost"])),
            key("notesadmin", &["read", "write", "admin"], Some(&["notes"])),
        ]),
    );
    let (status, body) = http(&server, Some("notes-key"), "GET", "/graphs", None);
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        json_of(&body)["graphs"],
        json!([{"name": "notes", "head_seq": 1}])
    );
    let mcp = Mcp::open(&server, "notes-key");
    let listed = mcp.call("inspect", json!({"action": "graphs"}));
    assert_eq!(listed["isError"], false, "{listed}");
    assert_eq!(
        listed["structuredContent"]["data"]["graphs"],
        json!([{"graph": "notes", "head_seq": 1}])
    );
    // Every graph is open once the admin listed them; the key sees only its own.
    http(&server, Some("admin-key"), "GET", "/graphs", None);
    let (_, metrics) = http(&server, Some("notes-key"), "GET", "/metrics", None);
    assert!(
        metrics.contains("strata_head_seq{graph=\"notes\"} 1"),
        "{metrics}"
    );
    assert!(
        !metrics.contains("graph=\"main\"") && !metrics.contains("secret"),
        "{metrics}"
    );
    // A graph of its list that does not exist: the answer names only the key's graphs.
    let (status, body) = http(
        &server,
        Some("notes-key"),
        "GET",
        "/graphs/ghost/commits",
        None,
    );
    assert_eq!(status, 404, "{body}");
    let message = json_of(&body)["error"]["message"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(message.ends_with("existing graphs: notes"), "{message}");
    let missing = mcp.call(
        "query",
        json!({"mode": "sparql", "graph": "ghost", "sparql": "ASK {}"}),
    );
    let message = missing["structuredContent"]["error"]["message"]
        .as_str()
        .unwrap_or_default();
    assert!(message.ends_with("existing graphs: notes"), "{missing}");
    // So do the JSON query and records routes, and the MCP commit tool.
    for (key, path, body) in [
        (
            "notes-key",
            "/graphs/ghost/query",
            r#"{"mode": "names", "name": "x"}"#,
        ),
        (
            "noteswriter-key",
            "/graphs/ghost/records",
            r#"{"triplets": [{"source": {"key": "a"}, "relation": "R", "target": {"key": "b"}}]}"#,
        ),
    ] {
        let (status, body) = http(
            &server,
            Some(key),
            "POST",
            path,
            Some(("application/json", body)),
        );
        assert_eq!(status, 404, "{path}: {body}");
        assert!(body.contains("existing graphs: notes\""), "{path}: {body}");
    }
    let writer = Mcp::open(&server, "noteswriter-key");
    let missing = writer.call(
        "commit",
        json!({"graph": "ghost", "triplets": [{"source": {"key": "a"}, "relation": "R", "target": {"key": "b"}}]}),
    );
    let message = missing["structuredContent"]["error"]["message"]
        .as_str()
        .unwrap_or_default();
    assert!(message.ends_with("existing graphs: notes"), "{missing}");
    // An admin key limited to some graphs creates only those (and hears nothing of
    // whether another exists); a caller without a key is refused before its body is read.
    for name in ["outside", "secret"] {
        let (status, body) = http(
            &server,
            Some("notesadmin-key"),
            "POST",
            "/graphs",
            Some(("application/json", &json!({ "name": name }).to_string())),
        );
        assert_eq!(status, 403, "{name}: {body}");
    }
    let (status, body) = http(
        &server,
        None,
        "POST",
        "/sparql",
        Some(("application/pdf", "%PDF")),
    );
    assert_eq!(status, 401, "{body}");
    // The admin still hears of every graph.
    let (_, body) = http(
        &server,
        Some("admin-key"),
        "GET",
        "/graphs/ghost/commits",
        None,
    );
    assert!(body.contains("main, notes, secret"), "{body}");
    // The `query` description lists searchable classes per graph, with example values.
    let admin = Mcp::open(&server, "admin-key");
    let declared = admin.call(
        "embeddings",
        json!({"action": "declare", "graph": "secret", "class": PERSON, "from": ["http://example.org/name"]}),
    );
    assert_eq!(declared["isError"], false, "{declared}");
    assert!(
        admin.query_description().contains("graph secret"),
        "the admin sees the index of graph secret"
    );
    let description = mcp.query_description();
    assert!(
        !description.contains("secret") && !description.contains("Searchable now"),
        "{description}"
    );
}

/// `/update` and `/store` create `main` when it does not exist (after an admin deleted
/// it); like any new graph, only for a key that may create graphs.
#[test]
fn write_key_cannot_recreate_main_through_the_default_endpoints() {
    let (_strata, server) = writer_and_admin();
    let (status, body) = http(&server, Some("admin-key"), "DELETE", "/graphs/main", None);
    assert_eq!(status, 204, "{body}");
    let insert = |key: &str, path: &str, content_type: &str, body: &str| {
        http(&server, Some(key), "POST", path, Some((content_type, body)))
    };
    let update = "INSERT DATA { <http://e/a> <http://e/p> 1 }";
    for (path, content_type, body) in [
        ("/update", "application/sparql-update", update),
        (
            "/store?default",
            "text/turtle",
            "<http://e/a> <http://e/p> 1 .",
        ),
    ] {
        let (status, body) = insert("writer-key", path, content_type, body);
        assert_eq!(status, 403, "{path}: {body}");
        let message = json_of(&body)["error"]["message"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(
            message.contains("creating a graph needs the admin scope"),
            "{path}: {message}"
        );
    }
    let (_, body) = http(&server, Some("admin-key"), "GET", "/graphs", None);
    assert_eq!(json_of(&body)["graphs"], json!([]), "no graph was created");
    let (status, body) = insert("admin-key", "/update", "application/sparql-update", update);
    assert_eq!(status, 200, "{body}");
    let (status, body) = insert("writer-key", "/update", "application/sparql-update", update);
    assert_eq!(status, 200, "{body}");
}
