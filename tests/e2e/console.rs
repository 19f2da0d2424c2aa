//! The browser console at `/`, driven by a real headless Chromium against a real server with
//! the demo graph. Each page state is a URL (graph, pinned commit, view, query), so the
//! browser loads it, lets the page's requests finish (`--virtual-time-budget`) and hands
//! back the DOM it built; a screenshot of each view goes to `target/console-screenshots/`.
//!
//! Chromium comes from Debian (`.ci/run` installs it and sets `STRATA_REQUIRE_CHROMIUM=1`,
//! so there a missing browser fails the test instead of skipping it).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::util::{Server, Strata, agent, percent_encode};

fn chromium() -> Option<&'static str> {
    let found = ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|name| {
            Command::new(name)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        });
    if found.is_none() {
        assert!(
            std::env::var("STRATA_REQUIRE_CHROMIUM").as_deref() != Ok("1"),
            "Chromium must be installed (apt-get install chromium)"
        );
        println!("SKIP: no Chromium (apt-get install chromium)");
    }
    found
}

fn browser_args(browser: &str) -> Command {
    let mut command = Command::new(browser);
    command.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--hide-scrollbars",
        "--no-first-run",
        "--window-size=1200,760",
        "--virtual-time-budget=15000",
    ]);
    command
}

/// Loads `url` in the browser and returns the DOM after its scripts and requests finished.
fn dom(browser: &str, profile: &Path, url: &str) -> String {
    let output = browser_args(browser)
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("--dump-dom")
        .arg(url)
        .output()
        .expect("run chromium");
    assert!(output.status.success(), "chromium failed on {url}");
    let dom = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        dom.contains("data-ready=\"true\""),
        "the console did not finish loading {url}:\n{dom}"
    );
    dom
}

fn screenshot(browser: &str, profile: &Path, url: &str, name: &str) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/console-screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("{name}.png"));
    let status = browser_args(browser)
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--screenshot={}", file.display()))
        .arg(url)
        .output()
        .expect("run chromium")
        .status;
    assert!(status.success(), "chromium screenshot of {url}");
    let size = std::fs::metadata(&file).map(|m| m.len()).unwrap_or(0);
    assert!(size > 5_000, "{} is {size} bytes", file.display());
}

fn page(server: &Server, params: &[(&str, &str)]) -> String {
    let query: String = params
        .iter()
        .map(|(k, v)| format!("{k}={}", percent_encode(v)))
        .collect::<Vec<_>>()
        .join("&");
    server.url(&format!("/?{query}"))
}

/// The text of the element with `id` (its first tag's content up to the next tag).
fn text_of(dom: &str, id: &str) -> String {
    let start = dom
        .find(&format!("id=\"{id}\""))
        .unwrap_or_else(|| panic!("no #{id} in the DOM"));
    let open_end = start + dom[start..].find('>').unwrap() + 1;
    let close = open_end + dom[open_end..].find('<').unwrap_or(0);
    dom[open_end..close].to_owned()
}

const QUESTION: &str = "PREFIX ex: <http://example.org/support/> PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
SELECT ?ticket ?release WHERE { ?t rdfs:label ?ticket ; ex:reportedAs/ex:fixedIn/rdfs:label ?release }";

#[test]
fn console_pages_in_a_real_browser() {
    let Some(browser) = chromium() else { return };
    let strata = Strata::new();
    // The demo graph: commit 1 loads it, commit 2 fixes BUG-117 in 2.4.1.
    let server = strata.serve_with(&["serve", "--http", "127.0.0.1:0"]);
    let profile = tempfile::tempdir().unwrap();
    let profile = profile.path();

    // The page itself: embedded assets, no request leaves this server.
    let response = agent().get(&server.url("/")).call().unwrap();
    assert_eq!(response.status(), 200);
    let csp = response.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(csp.starts_with("default-src 'self'"), "{csp}");
    let html = response.into_body().read_to_string().unwrap();
    assert!(
        !html.contains("http://") && !html.contains("https://cdn"),
        "{html}"
    );

    // A query at the head: the table holds the four tickets, BUG-117's two at 2.4.1.
    let head = page(
        &server,
        &[("graph", "main"), ("view", "query"), ("query", QUESTION)],
    );
    let answer = dom(browser, profile, &head);
    assert!(
        text_of(&answer, "status").starts_with("4 rows at commit 2 in "),
        "{answer}"
    );
    assert_eq!(answer.matches("<td>2.4.1</td>").count(), 2, "{answer}");
    screenshot(browser, profile, &head, "query");

    // Pinned at commit 1 (before the fix): the older answer, and the page says so.
    let pinned = page(
        &server,
        &[
            ("graph", "main"),
            ("as_of", "1"),
            ("view", "query"),
            ("query", QUESTION),
        ],
    );
    let older = dom(browser, profile, &pinned);
    assert!(
        text_of(&older, "status").starts_with("2 rows at commit 1"),
        "{older}"
    );
    assert!(!older.contains("<td>2.4.1</td>"), "{older}");
    assert!(older.contains("pinned at commit 1 of 2"), "{older}");
    screenshot(browser, profile, &pinned, "pinned");

    // The diff of commit 2: BUG-117 fixed, two tickets closed.
    let diff_url = page(
        &server,
        &[
            ("graph", "main"),
            ("view", "history"),
            ("from", "1"),
            ("to", "2"),
        ],
    );
    let diff = dom(browser, profile, &diff_url);
    assert!(diff.contains("commit 1 → 2: +3 −2"), "{diff}");
    assert!(
        diff.contains(
            "+ &lt;http://example.org/support/bug-117&gt; &lt;http://example.org/support/fixedIn&gt;"
        ),
        "{diff}"
    );
    assert!(
        diff.contains("BUG-117 fixed in 2.4.1"),
        "the timeline: {diff}"
    );
    screenshot(browser, profile, &diff_url, "history");

    // A record: its properties and incoming links, pinned like everything else.
    let record_url = page(
        &server,
        &[
            ("graph", "main"),
            ("as_of", "1"),
            ("view", "record"),
            ("iri", "http://example.org/support/t-1002"),
        ],
    );
    let record = dom(browser, profile, &record_url);
    assert!(record.contains("<td>T-1002</td>"), "{record}");
    assert!(
        record.contains("<td>open</td>"),
        "status at commit 1: {record}"
    );
    assert!(record.contains("Incoming links"), "{record}");
    assert!(
        record.contains("changed in 1 commit up to commit 1"),
        "the record's history, pinned: {record}"
    );
    screenshot(browser, profile, &record_url, "record-pinned");

    // At the head, its history has both commits, newest first: the status it lost and got.
    let record_head = page(
        &server,
        &[
            ("graph", "main"),
            ("view", "record"),
            ("iri", "http://example.org/support/t-1002"),
        ],
    );
    let history = dom(browser, profile, &record_head);
    assert!(
        history.contains("changed in 2 commits up to commit 2"),
        "{history}"
    );
    let closed = history
        .find("status&gt; \"closed\"")
        .expect("the commit 2 change");
    let loaded = history
        .find("commit 1</button>")
        .expect("commit 1 in the history");
    assert!(closed < loaded, "newest first: {history}");
    screenshot(browser, profile, &record_head, "record");

    // An aggregate as a chart (the Vega-Lite bar spec of MCP `analyze`, drawn as SVG).
    let chart_url = page(
        &server,
        &[
            ("graph", "main"),
            ("view", "query"),
            ("chart", "bar"),
            (
                "query",
                "PREFIX ex: <http://example.org/support/> PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
                 SELECT ?release (COUNT(*) AS ?tickets) WHERE { ?t ex:reportedAs/ex:fixedIn/rdfs:label ?release } GROUP BY ?release",
            ),
        ],
    );
    let chart = dom(browser, profile, &chart_url);
    assert!(
        chart.contains("aria-label=\"bar chart of tickets\""),
        "{chart}"
    );
    assert_eq!(
        chart.matches("<rect ").count(),
        3,
        "one bar per release: {chart}"
    );
    assert!(chart.contains("<title>2.4.1: 2</title>"), "{chart}");
    screenshot(browser, profile, &chart_url, "chart");

    // A failing query shows the server's error and where it is.
    let broken = page(
        &server,
        &[
            ("graph", "main"),
            ("view", "query"),
            ("query", "SELECT * WHERE {\n  ?s ?p\n}"),
        ],
    );
    let failed = dom(browser, profile, &broken);
    assert!(failed.contains("invalid_sparql"), "{failed}");
    assert!(failed.contains("line 3, column 2"), "{failed}");

    // Validation: the conformance report after publishing the demo shapes.
    let shapes =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("shapes/demo.ttl"))
            .unwrap();
    let published = agent()
        .put(&server.url("/graphs/main/shapes?mode=warn"))
        .header("Content-Type", "text/turtle")
        .send(shapes.as_str())
        .unwrap();
    assert!(published.status().is_success(), "{}", published.status());
    let validation_url = page(&server, &[("graph", "main"), ("view", "validation")]);
    let validation = dom(browser, profile, &validation_url);
    assert!(
        validation.contains("The graph conforms to its shapes") || validation.contains("violation"),
        "{validation}"
    );
    assert!(validation.contains("validated at commit"), "{validation}");
    screenshot(browser, profile, &validation_url, "validation");

    // Search: declare an index (an admin write to the declarations graph), wait for it,
    // then search by meaning; the page shows the index's lag and links the hits.
    let declared = agent()
        .post(&server.url("/graphs/main/update"))
        .header("Content-Type", "application/sparql-update")
        .send(
            "PREFIX s: <https://strata.dev/ns#> INSERT DATA { GRAPH <https://strata.dev/ns#embeddings> {
               <https://strata.dev/ns#embedding/tickets> a s:EmbeddingDeclaration ; s:name \"tickets\" ;
                 s:targetClass <http://example.org/support/Ticket> ;
                 s:recipe \"<http://www.w3.org/2000/01/rdf-schema#label> <http://example.org/support/description>\" ;
                 s:exclude \"\" ; s:hnswM 16 ; s:hnswEfConstruction 200 ; s:hnswEfSearch 64 } }",
        )
        .unwrap();
    assert_eq!(declared.status(), 200);
    let mut ready = false;
    for _ in 0..300 {
        let body = agent()
            .get(&server.url("/graphs/main/indexes"))
            .call()
            .unwrap()
            .into_body()
            .read_to_string()
            .unwrap();
        let status: serde_json::Value = serde_json::from_str(&body).unwrap();
        let index = &status["indexes"][0];
        if index["state"] == "ready" && index["lag"] == 0 {
            assert_eq!(index["records"], 4, "{status}");
            ready = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert!(ready, "the index never caught up");
    let search_url = page(
        &server,
        &[
            ("graph", "main"),
            ("view", "search"),
            ("text", "a customer was billed twice"),
        ],
    );
    let search = dom(browser, profile, &search_url);
    assert!(search.contains("(lag 0)"), "{search}");
    assert!(
        text_of(&search, "search-status").starts_with("4 hits at commit"),
        "{search}"
    );
    assert!(
        search.contains("view=record&amp;iri=http%3A%2F%2Fexample.org%2Fsupport%2Ft-"),
        "{search}"
    );
    screenshot(browser, profile, &search_url, "search");
}

/// Keys, typing and sorting, through the DevTools protocol (`console_cdp.mjs`, Node's own
/// WebSocket): a read key sees no update controls, a write key does, Ctrl-Enter runs what
/// was typed, a column sorts both ways.
#[test]
fn console_keys_keyboard_and_sorting() {
    let Some(browser) = chromium() else { return };
    let strata = Strata::new();
    let config = strata.file(
        "keys.json",
        serde_json::json!({"api_keys": [
            {"name": "reader", "sha256": strata::api::http::hash_key("reader-secret"), "scopes": ["read"]},
            {"name": "writer", "sha256": strata::api::http::hash_key("writer-secret"), "scopes": ["read", "write"]},
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
    run_cdp(
        &[browser, &server.base, "reader-secret", "writer-secret"],
        10,
    );
}

#[test]
fn console_asks_for_a_key_when_the_server_needs_one() {
    let Some(browser) = chromium() else { return };
    let strata = Strata::new();
    let config = strata.file(
        "keys.json",
        r#"{"api_keys": [{"name": "reader", "sha256": "8d969eef6ecad3c29a3a629280e686cf0c3f5d5a86aff3ca12020c923adc6c92", "scopes": ["read"]}]}"#,
    );
    let server = strata.serve(&["--config", config.to_str().unwrap()]);
    let profile = tempfile::tempdir().unwrap();
    let page = dom(browser, profile.path(), &server.url("/"));
    assert!(page.contains("This server needs an API key"), "{page}");
}

/// Signing in from the console when the server takes OAuth tokens (`console_cdp.mjs …
/// oauth`): the page finds the authorization server in the protected resource metadata,
/// registers itself, goes there with PKCE, comes back with a code, exchanges it for a token
/// kept in the tab's session storage, and then lists graphs and may write. The page's
/// Content-Security-Policy lets its scripts reach that server and nothing else.
#[test]
fn console_signs_in_through_the_authorization_server() {
    let Some(browser) = chromium() else { return };
    let auth = crate::oauth::AuthServer::start();
    let (_strata, server, _resource) = crate::oauth::serve_with_oauth(&auth, serde_json::json!({}));
    let page = agent()
        .get(&server.url("/"))
        .call()
        .expect("the console page");
    let policy = page
        .headers()
        .get("content-security-policy")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    assert!(
        policy.contains(&format!("connect-src 'self' {}", auth.issuer)),
        "{policy}"
    );
    run_cdp(&[browser, &server.base, "oauth"], 8);
}

/// Runs `console_cdp.mjs` with `args` (browser, base URL, scenario) and checks it passed at
/// least `checks` checks and failed none.
fn run_cdp(args: &[&str], checks: usize) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e2e/console_cdp.mjs");
    let output = Command::new("node")
        .arg("--experimental-websocket")
        .arg(&script)
        .args(args)
        .output()
        .expect("run node");
    let report = String::from_utf8_lossy(&output.stdout);
    println!("{report}{}", String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success(), "{report}");
    assert!(
        report.lines().filter(|l| l.starts_with("ok ")).count() >= checks,
        "{report}"
    );
}
