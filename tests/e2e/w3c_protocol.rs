//! The W3C SPARQL 1.1 Protocol and Graph Store HTTP Protocol test manifests, run over
//! HTTP against the real `strata serve` binary.
//!
//! Every test gets a fresh data directory and server. Its `ut:graphData` / `qt:data` files
//! are loaded through Graph Store PUTs, then its `ht:requests` are sent in order over a
//! plain `TcpStream` (so that methods, headers and body bytes are exactly the manifest's,
//! with the real server address as `Host` instead of the manifest's `www.example`).
//!
//! Paths: protocol requests (`/sparql/…`) go to `/sparql` (queries) or `/update` (updates:
//! `application/sparql-update` bodies or form bodies with `update=`; requests with no
//! recognisable operation go by the test's name). Graph Store requests (`/gsp?…`) go to
//! `/store?…`, and direct identification (`/gsp/person/1.ttl`) to `/store/person/1.ttl`.
//!
//! The manifests are vendored in `tests/data/w3c` (see its README); a missing suite fails.
//! Tests that fail today are listed by test IRI with their reason (`KNOWN_*_FAILURES`,
//! empty today): any other failure fails, and so does a listed test that passes.

use std::collections::HashSet;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::time::Duration;

use oxrdf::vocab::{rdf, rdfs};
use oxrdf::{Graph, NamedNode, NamedOrBlankNodeRef, TermRef, dataset::CanonicalizationAlgorithm};
use oxrdfio::{RdfFormat, RdfParser};
use sparesults::{QueryResultsFormat, QueryResultsParser, SliceQueryResultsParserOutput};

use super::util::{Server, Strata, percent_encode};

const MF: &str = "http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#";
const QT: &str = "http://www.w3.org/2001/sw/DataAccess/tests/test-query#";
const UT: &str = "http://www.w3.org/2009/sparql/tests/test-update#";
const HT: &str = "http://www.w3.org/2011/http#";
const HTS: &str = "http://www.w3.org/2011/http-statusCodes#";
const CNT: &str = "http://www.w3.org/2011/content#";

/// Protocol tests that fail today, by test IRI, with the reason: none. A failure outside
/// the list fails the test; so does a listed test that passes, so the list stays true.
const KNOWN_PROTOCOL_FAILURES: &[(&str, &str)] = &[];

/// Graph Store Protocol tests that fail today (see `KNOWN_PROTOCOL_FAILURES`): none.
const KNOWN_GSP_FAILURES: &[(&str, &str)] = &[];

#[test]
fn sparql_protocol_manifest_w3c() {
    let dir = suite_dir();
    let summary = run_manifest(&dir.join("protocol/manifest.ttl"), Suite::Protocol);
    summary.print("SPARQL 1.1 Protocol");
    // Oxigraph's server passes 21 of 34.
    summary.check("SPARQL 1.1 Protocol", 34, KNOWN_PROTOCOL_FAILURES);
}

#[test]
fn graph_store_protocol_manifest_w3c() {
    let dir = suite_dir();
    let summary = run_manifest(
        &dir.join("graph-store-protocol/manifest.ttl"),
        Suite::GraphStore,
    );
    summary.print("SPARQL 1.1 Graph Store HTTP Protocol");
    // Oxigraph's server passes 9 of 13.
    summary.check(
        "SPARQL 1.1 Graph Store HTTP Protocol",
        13,
        KNOWN_GSP_FAILURES,
    );
}

/// The vendored `tests/data/w3c/rdf-tests/sparql/sparql11`. Missing data fails the test.
fn suite_dir() -> PathBuf {
    let dir =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/w3c/rdf-tests/sparql/sparql11");
    assert!(
        dir.join("protocol/manifest.ttl").is_file()
            && dir.join("graph-store-protocol/manifest.ttl").is_file(),
        "the W3C protocol test suites are missing under {} (they are vendored in \
         tests/data/w3c; see its README)",
        dir.display()
    );
    dir
}

// ---------------------------------------------------------------------------------------
// Results
// ---------------------------------------------------------------------------------------

#[derive(Default)]
struct Summary {
    passed: Vec<String>,
    failed: Vec<(String, String)>,
    skipped: Vec<(String, String)>,
}

impl Summary {
    fn total(&self) -> usize {
        self.passed.len() + self.failed.len() + self.skipped.len()
    }

    fn print(&self, label: &str) {
        println!(
            "{label}: {} passed, {} failed, {} skipped",
            self.passed.len(),
            self.failed.len(),
            self.skipped.len()
        );
        for (id, reason) in &self.failed {
            println!("  FAIL {id}: {reason}");
        }
        for (id, reason) in &self.skipped {
            println!("  SKIP {id}: {reason}");
        }
    }

    /// Fails on a failure that `known` does not list, on a listed test that passes or
    /// that the suite does not have, on any skip, and on a wrong test count.
    fn check(&self, label: &str, expected_tests: usize, known: &[(&str, &str)]) {
        let is_known = |id: &str| known.iter().any(|(iri, _)| *iri == id);
        let mut problems = Vec::new();
        for (id, reason) in &self.failed {
            if !is_known(id) {
                problems.push(format!("new failure <{id}>: {reason}"));
            }
        }
        for id in &self.passed {
            if is_known(id) {
                problems.push(format!(
                    "listed as a known failure but passes: <{id}>; remove it from the list"
                ));
            }
        }
        for (iri, _) in known {
            if !self
                .passed
                .iter()
                .chain(self.failed.iter().map(|(id, _)| id))
                .any(|id| id == iri)
            {
                problems.push(format!("listed test <{iri}> is not in the suite"));
            }
        }
        for (id, reason) in &self.skipped {
            problems.push(format!("skipped <{id}>: {reason}"));
        }
        if self.total() != expected_tests {
            problems.push(format!(
                "the manifests list {} tests, {expected_tests} expected",
                self.total()
            ));
        }
        assert!(
            problems.is_empty(),
            "{label}: {} problem(s):\n  {}",
            problems.len(),
            problems.join("\n  ")
        );
    }
}

// ---------------------------------------------------------------------------------------
// Manifests
// ---------------------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq, Eq)]
enum Suite {
    Protocol,
    GraphStore,
}

struct TestCase {
    /// Local name of the test IRI (`query_post_form`).
    id: String,
    /// The test IRI, as reported and listed.
    iri: String,
    /// `qt:data`: the default graph.
    data: Option<PathBuf>,
    /// `ut:graphData`: (graph IRI from `rdfs:label`, file).
    graph_data: Vec<(String, PathBuf)>,
    requests: Vec<Request>,
}

#[derive(Clone)]
struct Request {
    method: String,
    path: String,
    headers: Vec<(String, String)>,
    body: Option<Vec<u8>>,
    response: Expected,
}

#[derive(Clone, Default)]
struct Expected {
    /// Local names of `hts:` terms (`StatusCode2xx`, `Created`, …); any one may match.
    statuses: Vec<String>,
    boolean: Option<bool>,
    format: Option<String>,
    /// `mf:expectedLocation`: the template variable the Location header fills.
    location_var: Option<String>,
    headers: Vec<(String, String)>,
    body: Option<String>,
}

fn mf(local: &str) -> NamedNode {
    NamedNode::new_unchecked(format!("{MF}{local}"))
}

fn ht(local: &str) -> NamedNode {
    NamedNode::new_unchecked(format!("{HT}{local}"))
}

fn file_iri(path: &Path) -> String {
    let path = path.canonicalize().expect("canonical manifest path");
    format!("file://{}", path.display())
}

fn iri_to_path(iri: &str) -> PathBuf {
    PathBuf::from(iri.strip_prefix("file://").expect("a file:// IRI"))
}

fn load_graph(path: &Path) -> Graph {
    let text = std::fs::read(path).expect("read manifest");
    let mut graph = Graph::new();
    for quad in RdfParser::from_format(RdfFormat::Turtle)
        .with_base_iri(file_iri(path))
        .expect("base IRI")
        .for_slice(&text)
    {
        graph.insert(&quad.expect("manifest parses").into());
    }
    graph
}

fn object<'a, 'b>(
    graph: &'a Graph,
    subject: impl Into<NamedOrBlankNodeRef<'b>>,
    predicate: &'b NamedNode,
) -> Option<TermRef<'a>> {
    graph.object_for_subject_predicate(subject, predicate)
}

fn objects<'a, 'b>(
    graph: &'a Graph,
    subject: impl Into<NamedOrBlankNodeRef<'b>>,
    predicate: &'b NamedNode,
) -> Vec<TermRef<'a>> {
    graph
        .objects_for_subject_predicate(subject, predicate)
        .collect()
}

fn as_subject(term: TermRef<'_>) -> NamedOrBlankNodeRef<'_> {
    match term {
        TermRef::NamedNode(n) => n.into(),
        TermRef::BlankNode(b) => b.into(),
        other => panic!("expected a node, got {other}"),
    }
}

fn literal(term: Option<TermRef<'_>>) -> Option<String> {
    match term? {
        TermRef::Literal(l) => Some(l.value().to_owned()),
        _ => None,
    }
}

/// The members of an RDF list.
fn list<'a>(graph: &'a Graph, head: TermRef<'a>) -> Vec<TermRef<'a>> {
    let first = NamedNode::from(rdf::FIRST);
    let rest = NamedNode::from(rdf::REST);
    let mut items = Vec::new();
    let mut node = head;
    while node != TermRef::NamedNode(rdf::NIL) {
        let subject = as_subject(node);
        items.push(object(graph, subject, &first).expect("rdf:first"));
        node = object(graph, subject, &rest).expect("rdf:rest");
    }
    items
}

/// Every test of a manifest and of the manifests it includes, in order.
fn read_manifest(path: &Path, tests: &mut Vec<TestCase>, seen: &mut HashSet<PathBuf>) {
    if !seen.insert(path.to_owned()) {
        return;
    }
    let graph = load_graph(path);
    let me = NamedNode::new_unchecked(file_iri(path));
    if let Some(includes) = object(&graph, &me, &mf("include")) {
        for include in list(&graph, includes) {
            if let TermRef::NamedNode(iri) = include {
                read_manifest(&iri_to_path(iri.as_str()), tests, seen);
            }
        }
    }
    let Some(entries) = object(&graph, &me, &mf("entries")) else {
        return;
    };
    for entry in list(&graph, entries) {
        tests.push(read_test(&graph, as_subject(entry)));
    }
}

fn read_test(graph: &Graph, test: NamedOrBlankNodeRef<'_>) -> TestCase {
    let id = match test {
        NamedOrBlankNodeRef::NamedNode(n) => n
            .as_str()
            .rsplit(['#', '/'])
            .next()
            .unwrap_or(n.as_str())
            .to_owned(),
        other => other.to_string(),
    };
    let iri = match test {
        NamedOrBlankNodeRef::NamedNode(n) => n.as_str().to_owned(),
        other => other.to_string(),
    };
    let data =
        object(graph, test, &NamedNode::new_unchecked(format!("{QT}data"))).map(|t| match t {
            TermRef::NamedNode(n) => iri_to_path(n.as_str()),
            other => panic!("qt:data {other}"),
        });
    let label = NamedNode::from(rdfs::LABEL);
    let ut_graph = NamedNode::new_unchecked(format!("{UT}graph"));
    let graph_data = objects(
        graph,
        test,
        &NamedNode::new_unchecked(format!("{UT}graphData")),
    )
    .into_iter()
    .map(|node| {
        let node = as_subject(node);
        let name = literal(object(graph, node, &label)).expect("ut:graphData rdfs:label");
        let file = match object(graph, node, &ut_graph).expect("ut:graph") {
            TermRef::NamedNode(n) => iri_to_path(n.as_str()),
            other => panic!("ut:graph {other}"),
        };
        (name, file)
    })
    .collect();
    let action = as_subject(object(graph, test, &mf("action")).expect("mf:action"));
    let requests = list(
        graph,
        object(graph, action, &ht("requests")).expect("ht:requests"),
    )
    .into_iter()
    .map(|r| read_request(graph, as_subject(r)))
    .collect();
    TestCase {
        id,
        iri,
        data,
        graph_data,
        requests,
    }
}

fn read_headers(graph: &Graph, node: NamedOrBlankNodeRef<'_>) -> Vec<(String, String)> {
    let Some(headers) = object(graph, node, &ht("headers")) else {
        return Vec::new();
    };
    list(graph, headers)
        .into_iter()
        .map(|h| {
            let h = as_subject(h);
            (
                literal(object(graph, h, &ht("fieldName"))).expect("ht:fieldName"),
                literal(object(graph, h, &ht("fieldValue"))).expect("ht:fieldValue"),
            )
        })
        .collect()
}

/// `ht:body [ cnt:chars …; cnt:characterEncoding … ]` as (text, encoding).
fn read_body(graph: &Graph, node: NamedOrBlankNodeRef<'_>) -> Option<(String, String)> {
    let body = as_subject(object(graph, node, &ht("body"))?);
    let chars = literal(object(
        graph,
        body,
        &NamedNode::new_unchecked(format!("{CNT}chars")),
    ))
    .expect("cnt:chars");
    let encoding = literal(object(
        graph,
        body,
        &NamedNode::new_unchecked(format!("{CNT}characterEncoding")),
    ))
    .unwrap_or_else(|| "UTF-8".to_owned());
    Some((chars, encoding))
}

fn encode_text(text: &str, encoding: &str) -> Vec<u8> {
    match encoding.to_ascii_uppercase().as_str() {
        "UTF-8" => text.as_bytes().to_vec(),
        // As Java's "UTF-16": a byte order mark, then big-endian code units.
        "UTF-16" => {
            let mut bytes = vec![0xFE, 0xFF];
            for unit in text.encode_utf16() {
                bytes.extend_from_slice(&unit.to_be_bytes());
            }
            bytes
        }
        other => panic!("unknown cnt:characterEncoding {other}"),
    }
}

fn read_request(graph: &Graph, node: NamedOrBlankNodeRef<'_>) -> Request {
    let method = literal(object(graph, node, &ht("methodName"))).expect("ht:methodName");
    let path = literal(object(graph, node, &ht("absolutePath"))).expect("ht:absolutePath");
    let headers = read_headers(graph, node);
    let body = read_body(graph, node).map(|(text, encoding)| encode_text(&text, &encoding));
    let resp = as_subject(object(graph, node, &ht("resp")).expect("ht:resp"));
    let statuses = objects(graph, resp, &mf("expectedStatus"))
        .into_iter()
        .map(|t| match t {
            TermRef::NamedNode(n) => n.as_str().trim_start_matches(HTS).to_owned(),
            other => other.to_string(),
        })
        .collect();
    let boolean = literal(object(graph, resp, &mf("expectedBoolean"))).map(|b| b == "true");
    let response = Expected {
        statuses,
        boolean,
        format: literal(object(graph, resp, &mf("expectedFormat"))),
        location_var: literal(object(graph, resp, &mf("expectedLocation"))),
        headers: read_headers(graph, resp),
        body: read_body(graph, resp).map(|(text, _)| text),
    };
    Request {
        method,
        path,
        headers,
        body,
        response,
    }
}

// ---------------------------------------------------------------------------------------
// Running
// ---------------------------------------------------------------------------------------

fn run_manifest(path: &Path, suite: Suite) -> Summary {
    let mut tests = Vec::new();
    read_manifest(path, &mut tests, &mut HashSet::new());
    let mut summary = Summary::default();
    for test in &tests {
        if let Some(reason) = skip_reason(test, suite) {
            summary.skipped.push((test.iri.clone(), reason));
            continue;
        }
        match run_test(test, suite) {
            Ok(()) => summary.passed.push(test.iri.clone()),
            Err(reason) => summary.failed.push((test.iri.clone(), reason)),
        }
    }
    summary
}

fn skip_reason(_test: &TestCase, _suite: Suite) -> Option<String> {
    // Nothing is skipped: direct and indirect identification, graph creation by POST and
    // multipart POSTs are all supported.
    None
}

fn run_test(test: &TestCase, suite: Suite) -> Result<(), String> {
    let strata = Strata::new();
    let server = strata.serve(&[]);
    let host = server
        .base
        .strip_prefix("http://")
        .expect("http base")
        .to_owned();
    // Test data, through Graph Store PUTs.
    let mut loads: Vec<(String, &Path)> = Vec::new();
    if let Some(file) = &test.data {
        loads.push(("/store?default".to_owned(), file));
    }
    for (name, file) in &test.graph_data {
        loads.push((format!("/store?graph={}", percent_encode(name)), file));
    }
    for (target, file) in loads {
        let media = match file.extension().and_then(|e| e.to_str()) {
            Some("nt") => "application/n-triples",
            Some("ttl") => "text/turtle",
            Some("rdf") => "application/rdf+xml",
            other => return Err(format!("setup: unknown data file type {other:?}")),
        };
        let content = std::fs::read(file).map_err(|e| format!("setup: {e}"))?;
        let response = send(
            &host,
            "PUT",
            &target,
            &[("content-type".to_owned(), media.to_owned())],
            Some(&content),
        )
        .map_err(|e| format!("setup: PUT {target}: {e}"))?;
        if !(200..300).contains(&response.status) {
            return Err(format!(
                "setup: PUT {target} answered {} {}",
                response.status,
                response.text_excerpt()
            ));
        }
    }
    let mut variables: Vec<(String, String)> = Vec::new();
    for (index, original) in test.requests.iter().enumerate() {
        let request = substitute(original, &variables);
        let path = map_path(test, &request, suite)?;
        let response = send(
            &host,
            &request.method,
            &path,
            &request.headers,
            request.body.as_deref(),
        )
        .map_err(|e| format!("request {}: {} {path}: {e}", index + 1, request.method))?;
        if verbose() {
            println!(
                "    {} #{}: {} {path} -> {} [{}] {}",
                test.id,
                index + 1,
                request.method,
                response.status,
                response.header("content-type").unwrap_or(""),
                response.text_excerpt()
            );
        }
        let describe = || format!("request {} ({} {path})", index + 1, request.method);
        check_response(&request, &response, &server, &path)
            .map_err(|reason| format!("{}: {reason}", describe()))?;
        if let Some(var) = &request.response.location_var {
            let location = response
                .header("location")
                .ok_or_else(|| format!("{}: no Location header", describe()))?;
            variables.push((var.clone(), resolve(&server.base, &path, location)));
        }
    }
    Ok(())
}

/// `STRATA_W3C_VERBOSE=1` prints every request and response.
fn verbose() -> bool {
    std::env::var_os("STRATA_W3C_VERBOSE").is_some()
}

/// Replaces template variables: percent-encoded in the request target's query, verbatim
/// elsewhere.
fn substitute(request: &Request, variables: &[(String, String)]) -> Request {
    let mut request = request.clone();
    for (var, value) in variables {
        request.path = match request.path.split_once('?') {
            Some((path, query)) => format!(
                "{}?{}",
                path.replace(var, value),
                query.replace(var, &percent_encode(value))
            ),
            None => request.path.replace(var, value),
        };
        if let Some(body) = &request.body
            && let Ok(text) = std::str::from_utf8(body)
        {
            request.body = Some(text.replace(var, value).into_bytes());
        }
        for (_, header) in &mut request.headers {
            *header = header.replace(var, value);
        }
    }
    request
}

/// An absolute URL for a Location header value.
fn resolve(base: &str, request_path: &str, location: &str) -> String {
    if location.contains("://") {
        location.to_owned()
    } else if location.starts_with('/') {
        format!("{base}{location}")
    } else {
        let path = request_path.split('?').next().unwrap_or("/");
        let dir = &path[..path.rfind('/').map_or(0, |i| i + 1)];
        format!("{base}{dir}{location}")
    }
}

/// The server path for a manifest path.
fn map_path(test: &TestCase, request: &Request, suite: Suite) -> Result<String, String> {
    match suite {
        Suite::Protocol => {
            let query = request
                .path
                .strip_prefix("/sparql/")
                .or_else(|| request.path.strip_prefix("/sparql"))
                .ok_or_else(|| format!("unexpected protocol path {}", request.path))?;
            let endpoint = if is_update(test, request) {
                "/update"
            } else {
                "/sparql"
            };
            Ok(format!("{endpoint}{query}"))
        }
        Suite::GraphStore => {
            let rest = request
                .path
                .strip_prefix("/gsp")
                .ok_or_else(|| format!("unexpected graph store path {}", request.path))?;
            // `/gsp?graph=…` is indirect identification, `/gsp/person/1.ttl` direct (the
            // request URL is the graph IRI); both map onto the `/store` routes.
            Ok(format!("/store{rest}"))
        }
    }
}

/// Whether a protocol request is an update operation (sent to `/update`).
fn is_update(test: &TestCase, request: &Request) -> bool {
    if request.method == "GET" {
        // GET with `update=` is a (bad) request to the query endpoint.
        return false;
    }
    let content_type = request
        .headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-type"))
        .map(|(_, v)| {
            v.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        });
    let form_keys = |bytes: &[u8]| -> Vec<String> {
        String::from_utf8_lossy(bytes)
            .split('&')
            .filter_map(|pair| pair.split('=').next().map(str::to_owned))
            .collect()
    };
    match content_type.as_deref() {
        Some("application/sparql-update") => return true,
        Some("application/sparql-query") => return false,
        _ => {}
    }
    if let Some(body) = &request.body {
        let keys = form_keys(body);
        if keys.iter().any(|k| k == "update") {
            return true;
        }
        if keys.iter().any(|k| k == "query") {
            return false;
        }
    }
    // No recognisable operation (e.g. a text/plain body): go by the test's name.
    test.id.contains("update")
}

fn check_response(
    request: &Request,
    response: &HttpResponse,
    server: &Server,
    path: &str,
) -> Result<(), String> {
    let expected = &request.response;
    if !expected.statuses.is_empty()
        && !expected
            .statuses
            .iter()
            .any(|s| status_matches(s, response.status))
    {
        return Err(format!(
            "expected status {}, got {} {}",
            expected.statuses.join(" or "),
            response.status,
            response.text_excerpt()
        ));
    }
    let content_type = response.header("content-type").unwrap_or("").to_owned();
    if let Some(format) = &expected.format {
        match format.as_str() {
            "boolean" => {
                let value = parse_boolean(&content_type, &response.body)?;
                if let Some(want) = expected.boolean
                    && value != want
                {
                    return Err(format!("expected boolean {want}, got {value}"));
                }
            }
            "tabular" => check_tabular(&content_type, &response.body)?,
            "RDF" => {
                parse_rdf(&content_type, &response.body, &server.url(path))?;
            }
            other => return Err(format!("unknown mf:expectedFormat {other:?}")),
        }
    } else if let Some(want) = expected.boolean {
        let value = parse_boolean(&content_type, &response.body)?;
        if value != want {
            return Err(format!("expected boolean {want}, got {value}"));
        }
    }
    for (name, value) in &expected.headers {
        let got = response
            .header(name)
            .ok_or_else(|| format!("missing response header {name}: {value}"))?;
        let same = if name.eq_ignore_ascii_case("content-type") {
            same_content_type(value, got)
        } else {
            got == value
        };
        if !same {
            return Err(format!("expected header {name}: {value}, got {got:?}"));
        }
    }
    if let Some(body) = &expected.body {
        let media = expected
            .headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("content-type"))
            .map(|(_, v)| v.as_str())
            .unwrap_or("text/turtle");
        let url = server.url(path);
        let want =
            parse_rdf(media, body.as_bytes(), &url).map_err(|e| format!("expected body: {e}"))?;
        let got = parse_rdf(&content_type, &response.body, &url)?;
        if !isomorphic(&want, &got) {
            return Err(format!(
                "response graph is not isomorphic to the expected one; got {} triples, want {}: {}",
                got.len(),
                want.len(),
                response.text_excerpt()
            ));
        }
    }
    Ok(())
}

fn status_matches(term: &str, status: u16) -> bool {
    if let Some(class) = term
        .strip_prefix("StatusCode")
        .and_then(|c| c.strip_suffix("xx"))
        .and_then(|c| c.parse::<u16>().ok())
    {
        return status / 100 == class;
    }
    let code = match term {
        "OK" => 200,
        "Created" => 201,
        "Accepted" => 202,
        "NoContent" => 204,
        "BadRequest" => 400,
        "NotFound" => 404,
        "MethodNotAllowed" => 405,
        "NotAcceptable" => 406,
        "UnsupportedMediaType" => 415,
        _ => return false,
    };
    status == code
}

fn media_type(content_type: &str) -> String {
    content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

/// Same media type, and any charset is UTF-8 (Turtle and N-Triples are UTF-8 by definition,
/// so a missing charset equals `charset=utf-8`).
fn same_content_type(expected: &str, got: &str) -> bool {
    let charset = |value: &str| {
        value.split(';').skip(1).find_map(|p| {
            let (k, v) = p.split_once('=')?;
            k.trim()
                .eq_ignore_ascii_case("charset")
                .then(|| v.trim().trim_matches('"').to_ascii_lowercase())
        })
    };
    let utf8 = |c: Option<String>| c.is_none_or(|c| c == "utf-8");
    media_type(expected) == media_type(got)
        && (charset(expected) == charset(got) || (utf8(charset(expected)) && utf8(charset(got))))
}

fn results_format(content_type: &str) -> Result<QueryResultsFormat, String> {
    match media_type(content_type).as_str() {
        "application/sparql-results+json" | "application/json" => Ok(QueryResultsFormat::Json),
        "application/sparql-results+xml" | "application/xml" => Ok(QueryResultsFormat::Xml),
        "text/csv" => Ok(QueryResultsFormat::Csv),
        "text/tab-separated-values" => Ok(QueryResultsFormat::Tsv),
        _ => Err(format!(
            "Content-Type {content_type:?} is not a SPARQL results format"
        )),
    }
}

fn parse_boolean(content_type: &str, body: &[u8]) -> Result<bool, String> {
    let format = results_format(content_type)?;
    if !matches!(format, QueryResultsFormat::Json | QueryResultsFormat::Xml) {
        return Err(format!(
            "Content-Type {content_type:?}: boolean results must be XML or JSON"
        ));
    }
    match QueryResultsParser::from_format(format).for_slice(body) {
        Ok(SliceQueryResultsParserOutput::Boolean(value)) => Ok(value),
        Ok(SliceQueryResultsParserOutput::Solutions(_)) => {
            Err("expected a boolean result, got solutions".to_owned())
        }
        Err(e) => Err(format!("invalid {content_type} results: {e}")),
    }
}

fn check_tabular(content_type: &str, body: &[u8]) -> Result<(), String> {
    let format = results_format(content_type)?;
    if format == QueryResultsFormat::Csv {
        // sparesults has no CSV parser: require a header line of variable names.
        let text = std::str::from_utf8(body).map_err(|_| "CSV results are not UTF-8")?;
        return match text.lines().next() {
            Some(header) if !header.trim().is_empty() => Ok(()),
            _ => Err("CSV results without a header line".to_owned()),
        };
    }
    match QueryResultsParser::from_format(format).for_slice(body) {
        Ok(SliceQueryResultsParserOutput::Solutions(solutions)) => {
            for solution in solutions {
                solution.map_err(|e| format!("invalid {content_type} solution: {e}"))?;
            }
            Ok(())
        }
        Ok(SliceQueryResultsParserOutput::Boolean(_)) => {
            Err("expected solutions, got a boolean".to_owned())
        }
        Err(e) => Err(format!("invalid {content_type} results: {e}")),
    }
}

/// Parses an RDF body; only graph formats (RDF/XML, Turtle, N-Triples, …) are accepted.
fn parse_rdf(content_type: &str, body: &[u8], base: &str) -> Result<Graph, String> {
    let format = RdfFormat::from_media_type(content_type)
        .filter(|f| !f.supports_datasets() || *f == RdfFormat::TriG)
        .ok_or_else(|| format!("Content-Type {content_type:?} is not an RDF graph format"))?;
    let mut graph = Graph::new();
    let parser = RdfParser::from_format(format)
        .with_base_iri(base)
        .map_err(|e| format!("base IRI {base}: {e}"))?;
    for quad in parser.for_slice(body) {
        let quad = quad.map_err(|e| format!("invalid {content_type} body: {e}"))?;
        if !quad.graph_name.is_default_graph() {
            return Err(format!("{content_type} body has a named graph"));
        }
        graph.insert(&oxrdf::Triple::from(quad));
    }
    Ok(graph)
}

fn isomorphic(a: &Graph, b: &Graph) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut a = a.clone();
    let mut b = b.clone();
    a.canonicalize(CanonicalizationAlgorithm::Unstable);
    b.canonicalize(CanonicalizationAlgorithm::Unstable);
    a == b
}

// ---------------------------------------------------------------------------------------
// A minimal HTTP/1.1 client (one request per connection)
// ---------------------------------------------------------------------------------------

struct HttpResponse {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl HttpResponse {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The start of the body, on one line.
    fn text_excerpt(&self) -> String {
        let text = String::from_utf8_lossy(&self.body);
        let line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
        if line.chars().count() > 200 {
            format!("{}…", line.chars().take(200).collect::<String>())
        } else {
            line
        }
    }
}

/// Sends one request with `Host: host` and `Connection: close`, and reads the response.
fn send(
    host: &str,
    method: &str,
    target: &str,
    headers: &[(String, String)],
    body: Option<&[u8]>,
) -> std::io::Result<HttpResponse> {
    let mut stream = TcpStream::connect(host)?;
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    let mut head = format!("{method} {target} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n");
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    match body {
        Some(body) => head.push_str(&format!("Content-Length: {}\r\n", body.len())),
        None if matches!(method, "POST" | "PUT") => head.push_str("Content-Length: 0\r\n"),
        None => {}
    }
    head.push_str("\r\n");
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(body.unwrap_or_default());
    stream.write_all(&bytes)?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw)?;
    parse_response(&raw, method == "HEAD")
}

fn parse_response(raw: &[u8], head_only: bool) -> std::io::Result<HttpResponse> {
    let invalid = |m: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, m.to_owned());
    let end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| invalid("no end of response head"))?;
    let head = std::str::from_utf8(&raw[..end]).map_err(|_| invalid("non-UTF-8 head"))?;
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or("");
    let status = status_line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| invalid("bad status line"))?;
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
        .collect();
    let rest = &raw[end + 4..];
    let chunked = headers.iter().any(|(k, v)| {
        k.eq_ignore_ascii_case("transfer-encoding") && v.to_ascii_lowercase().contains("chunked")
    });
    let body = if head_only {
        Vec::new()
    } else if chunked {
        dechunk(rest).ok_or_else(|| invalid("bad chunked body"))?
    } else {
        rest.to_vec()
    };
    Ok(HttpResponse {
        status,
        headers,
        body,
    })
}

fn dechunk(mut data: &[u8]) -> Option<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let line_end = data.windows(2).position(|w| w == b"\r\n")?;
        let size_text = std::str::from_utf8(&data[..line_end]).ok()?;
        let size = usize::from_str_radix(size_text.split(';').next()?.trim(), 16).ok()?;
        data = &data[line_end + 2..];
        if size == 0 {
            return Some(body);
        }
        body.extend_from_slice(data.get(..size)?);
        data = data.get(size + 2..)?;
    }
}

/// The runner's own checks, without a server.
#[test]
fn w3c_protocol_runner_helpers() {
    assert!(status_matches("StatusCode2xx", 204));
    assert!(!status_matches("StatusCode2xx", 302));
    assert!(status_matches("Created", 201));
    assert!(!status_matches("Created", 200));
    assert!(!status_matches("SomethingElse", 200));
    assert!(same_content_type(
        "text/turtle; charset=utf-8",
        "text/turtle"
    ));
    assert!(same_content_type(
        "text/turtle; charset=utf-8",
        "Text/Turtle;charset=UTF-8"
    ));
    assert!(!same_content_type(
        "text/turtle; charset=utf-8",
        "text/turtle; charset=latin1"
    ));
    assert!(!same_content_type("text/turtle", "application/n-triples"));
    assert_eq!(
        dechunk(b"3\r\nabc\r\n2;x=y\r\nde\r\n0\r\n\r\n").as_deref(),
        Some(&b"abcde"[..])
    );
    assert_eq!(encode_text("A", "UTF-16"), vec![0xFE, 0xFF, 0x00, 0x41]);
    let base = "http://example.org/";
    let a = parse_rdf("text/turtle", b"[] <p> [ <q> 1 ] .", base).unwrap();
    let b = parse_rdf("text/turtle", b"_:x <p> _:y . _:y <q> 1 .", base).unwrap();
    let c = parse_rdf("text/turtle", b"_:x <p> _:y . _:y <q> 2 .", base).unwrap();
    assert!(isomorphic(&a, &b));
    assert!(!isomorphic(&a, &c));
    assert!(
        parse_boolean(
            "application/sparql-results+json",
            br#"{"head":{},"boolean":false}"#
        ) == Ok(false)
    );
    assert!(parse_boolean("text/csv", b"x\n1\n").is_err());
    assert!(
        check_tabular(
            "application/sparql-results+json",
            br#"{"head":{"vars":["v"]},"results":{"bindings":[]}}"#
        )
        .is_ok()
    );
    assert!(parse_rdf("application/sparql-results+json", b"{}", base).is_err());
    assert_eq!(
        resolve("http://h:1", "/store", "/graphs/main/store?graph=x"),
        "http://h:1/graphs/main/store?graph=x"
    );
}
