//! Response latency over one ordinary keep-alive HTTP connection, against the real
//! `strata serve` binary on the BSBM data: p50/p90/p99/max of 1,000 small queries and of
//! the BSBM explore mix, from a Rust client (ureq) and, when `python3` is installed, from
//! Python's `http.client`. Each request leaves in one write, as ordinary clients send a
//! GET.
//!
//! What it watches for: responses that wait ~40 ms for the client's delayed ACK because
//! their last bytes left in a write of their own while Nagle's algorithm was on. A
//! response is counted as stalled when it took 30 ms or more longer than the same query
//! evaluated in process (the engine-only floor, best of the passes). The same queries on
//! Strata and on Oxigraph's in-memory store in this process are printed for reference.
//!
//! Run with `cargo bench --bench latency`. Knobs: `STRATA_BENCH_SCALE=1m`,
//! `STRATA_BENCH_PASSES` (timed passes over the BSBM mix, default 2),
//! `STRATA_BENCH_SMALL` (small queries, default 1000), `STRATA_BENCH_BIN` (another
//! `strata` binary to measure, e.g. an older build), `STRATA_BENCH_DATA`,
//! `STRATA_BENCH_TMP`.

#[path = "data.rs"]
mod data;

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use data::{count_results, ms, print_table, thousands};
use oxigraph::io::RdfFormat;
use oxigraph::sparql::SparqlEvaluator;
use oxigraph::store::Store;
use strata::engine::{CommitRequest, ImportFormat, ImportOptions, ReadOptions};
use strata::{Engine, EngineConfig};

/// What the clients ask for: JSON results, Turtle for CONSTRUCT/DESCRIBE.
const ACCEPT: &str = "application/sparql-results+json, text/turtle;q=0.9";

/// A response this much slower than the engine alone is a stall.
const STALL: Duration = Duration::from_millis(30);

/// One timed response.
#[derive(Clone, Copy)]
struct Sample {
    query: usize,
    time: Duration,
    chunked: bool,
}

fn main() {
    let Some(bsbm) = data::load_bsbm() else {
        return;
    };
    let passes = data::env_usize("STRATA_BENCH_PASSES", 2).max(1);
    let n_small = data::env_usize("STRATA_BENCH_SMALL", 1000).max(1);
    let binary = std::env::var_os("STRATA_BENCH_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_strata")));
    let small: Vec<String> = (0..n_small)
        .map(|i| format!("SELECT ?s ?p ?o WHERE {{ ?s ?p ?o }} OFFSET {i} LIMIT 1"))
        .collect();
    let mix: Vec<String> = bsbm.queries.iter().map(|q| q.text.clone()).collect();
    println!(
        "# HTTP latency — BSBM {}, {} small queries, {} BSBM explore queries × {passes} passes, one keep-alive connection per client; binary {}; load average at start: {}\n",
        bsbm.scale,
        thousands(small.len() as u64),
        mix.len(),
        binary.display(),
        data::load_average()
    );

    // The server, on its own data directory (loaded with `strata import`).
    let dir = data::temp_dir();
    let document = dir.path().join("bsbm.nt");
    std::fs::write(&document, &bsbm.ntriples).expect("write data");
    let data_dir = dir.path().join("data");
    let started = Instant::now();
    let status = Command::new(&binary)
        .arg("--data")
        .arg(&data_dir)
        .arg("import")
        .arg(&document)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("run strata import");
    assert!(status.success(), "strata import failed");
    std::fs::remove_file(&document).ok();
    println!("`strata import`: {:.1} s", started.elapsed().as_secs_f64());
    let server = Server::start(&binary, &data_dir);

    // Engine-only floors, in this process.
    let engine_dir = data::temp_dir();
    let engine = Engine::open(engine_dir.path(), EngineConfig::default()).expect("open engine");
    let graph = engine.graph_or_create("main").expect("graph");
    let parsed = graph
        .parse_document(
            &bsbm.ntriples[..],
            &ImportOptions {
                format: ImportFormat(RdfFormat::NTriples),
                base_iri: None,
                into_graph: None,
                one_graph: false,
                source_name: "bsbm".into(),
            },
            |_| {},
        )
        .expect("parse");
    graph
        .commit_documents(vec![parsed], &CommitRequest::default())
        .expect("commit");
    let store = Store::new().expect("store");
    let mut loader = store.bulk_loader();
    loader
        .load_from_slice(RdfFormat::NTriples, &bsbm.ntriples)
        .expect("load");
    loader.commit().expect("commit");
    let read = ReadOptions::default();
    let strata_floor = |queries: &[String], passes: usize| -> Vec<Duration> {
        queries
            .iter()
            .map(|q| {
                (0..=passes)
                    .map(|_| {
                        let started = Instant::now();
                        let answer = graph.read().query(q, &read).expect("strata query");
                        count_results(answer.results).expect("strata results");
                        started.elapsed()
                    })
                    .skip(1)
                    .min()
                    .unwrap_or_default()
            })
            .collect()
    };
    let oxigraph_times = |queries: &[String], passes: usize| -> Vec<Duration> {
        queries
            .iter()
            .map(|q| {
                (0..=passes)
                    .map(|_| {
                        let started = Instant::now();
                        let results = SparqlEvaluator::new()
                            .parse_query(q)
                            .expect("oxigraph parse")
                            .on_store(&store)
                            .execute()
                            .expect("oxigraph query");
                        count_results(results).expect("oxigraph results");
                        started.elapsed()
                    })
                    .skip(1)
                    .min()
                    .unwrap_or_default()
            })
            .collect()
    };
    let floors_small = strata_floor(&small, 1);
    let floors_mix = strata_floor(&mix, passes);
    let oxigraph_small = oxigraph_times(&small, 1);
    let oxigraph_mix = oxigraph_times(&mix, passes);

    let mut rows = Vec::new();
    let mut row = |client: &str, set: &str, samples: &[Sample], floors: &[Duration]| {
        let mut times: Vec<Duration> = samples.iter().map(|s| s.time).collect();
        times.sort();
        let stalled = samples
            .iter()
            .filter(|s| s.time >= floors[s.query] + STALL)
            .count();
        let chunked = samples.iter().filter(|s| s.chunked).count();
        rows.push(vec![
            client.to_owned(),
            set.to_owned(),
            thousands(samples.len() as u64),
            format!("{:.2}", ms(percentile(&times, 0.50))),
            format!("{:.2}", ms(percentile(&times, 0.90))),
            format!("{:.2}", ms(percentile(&times, 0.99))),
            format!("{:.1}", ms(times[times.len() - 1])),
            format!(
                "{stalled} ({:.1} %)",
                stalled as f64 * 100.0 / samples.len() as f64
            ),
            format!("{chunked}"),
        ]);
    };

    // ureq: an ordinary Rust client with a connection pool (one connection, reused).
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_idle_connections_per_host(1)
        .build()
        .into();
    let ureq_run = |queries: &[String], passes: usize| -> Vec<Sample> {
        let mut samples = Vec::new();
        for pass in 0..=passes {
            for (i, query) in queries.iter().enumerate() {
                let started = Instant::now();
                let mut response = agent
                    .get(server.url("/sparql"))
                    .query("query", query)
                    .header("accept", ACCEPT)
                    .call()
                    .expect("request");
                let mut body = Vec::new();
                response
                    .body_mut()
                    .as_reader()
                    .read_to_end(&mut body)
                    .expect("body");
                let time = started.elapsed();
                assert_eq!(response.status(), 200, "{}", String::from_utf8_lossy(&body));
                let chunked = response
                    .headers()
                    .get("transfer-encoding")
                    .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"chunked"));
                // Pass 0 warms up.
                if pass > 0 {
                    samples.push(Sample {
                        query: i,
                        time,
                        chunked,
                    });
                }
            }
        }
        samples
    };
    let samples = ureq_run(&small, 1);
    row("ureq", "small", &samples, &floors_small);
    let samples = ureq_run(&mix, passes);
    row("ureq", "BSBM mix", &samples, &floors_mix);

    // Python's http.client, when there is a python3.
    let targets = |queries: &[String]| -> Vec<String> {
        queries
            .iter()
            .map(|q| format!("/sparql?query={}", percent_encode(q)))
            .collect()
    };
    match python_run(&server, &targets(&small), 1) {
        Some(samples) => {
            row("python http.client", "small", &samples, &floors_small);
            if let Some(samples) = python_run(&server, &targets(&mix), passes) {
                row("python http.client", "BSBM mix", &samples, &floors_mix);
            }
        }
        None => println!("(python3 not found: the http.client rows are skipped)"),
    }

    for (engine_name, set, times) in [
        ("strata in process", "small", &floors_small),
        ("strata in process", "BSBM mix", &floors_mix),
        ("oxigraph in process", "small", &oxigraph_small),
        ("oxigraph in process", "BSBM mix", &oxigraph_mix),
    ] {
        let mut sorted = times.clone();
        sorted.sort();
        rows.push(vec![
            engine_name.to_owned(),
            set.to_owned(),
            thousands(sorted.len() as u64),
            format!("{:.2}", ms(percentile(&sorted, 0.50))),
            format!("{:.2}", ms(percentile(&sorted, 0.90))),
            format!("{:.2}", ms(percentile(&sorted, 0.99))),
            format!("{:.1}", ms(sorted[sorted.len() - 1])),
            "(no HTTP)".into(),
            String::new(),
        ]);
    }
    print_table(
        &[
            "client",
            "queries",
            "responses",
            "p50 ms",
            "p90 ms",
            "p99 ms",
            "max ms",
            "≥ 30 ms over the engine",
            "chunked",
        ],
        &rows,
    );
    println!(
        "In-process rows are the best of the passes per query (parse, evaluate, iterate every result); HTTP adds serialization, the loopback round trip and the client."
    );
    server.stop();
}

/// The value at quantile `q` of sorted durations.
fn percentile(sorted: &[Duration], q: f64) -> Duration {
    let index = ((sorted.len() as f64 * q).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[index]
}

/// Percent-encodes everything but unreserved characters (a query string value).
fn percent_encode(text: &str) -> String {
    text.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// The HTTP client of Python's standard library, one keep-alive connection: prints one
/// line per response, `milliseconds chunked`.
const PYTHON_CLIENT: &str = r#"
import http.client, sys, time
host, port, accept, passes, path = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5]
targets = [line.rstrip("\n") for line in open(path)]
connection = http.client.HTTPConnection(host, port)
out = []
for p in range(passes + 1):
    for i, target in enumerate(targets):
        started = time.perf_counter()
        connection.request("GET", target, headers={"Accept": accept})
        response = connection.getresponse()
        response.read()
        elapsed = time.perf_counter() - started
        if response.status != 200:
            sys.exit(f"status {response.status} for {target}")
        if p > 0:
            chunked = (response.getheader("transfer-encoding") or "").lower() == "chunked"
            out.append(f"{i} {elapsed * 1000:.4f} {int(chunked)}")
print("\n".join(out))
"#;

fn python_run(server: &Server, targets: &[String], passes: usize) -> Option<Vec<Sample>> {
    let dir = data::temp_dir();
    let script = dir.path().join("client.py");
    let list = dir.path().join("targets.txt");
    std::fs::write(&script, PYTHON_CLIENT).ok()?;
    std::fs::write(&list, targets.join("\n") + "\n").ok()?;
    let (host, port) = server.address.rsplit_once(':')?;
    let output = Command::new("python3")
        .arg(&script)
        .args([host, port, ACCEPT, &passes.to_string()])
        .arg(&list)
        .stderr(Stdio::inherit())
        .output()
        .ok()?;
    assert!(output.status.success(), "the Python client failed");
    Some(
        String::from_utf8_lossy(&output.stdout)
            .lines()
            .filter_map(|line| {
                let mut fields = line.split_whitespace();
                Some(Sample {
                    query: fields.next()?.parse().ok()?,
                    time: Duration::from_secs_f64(fields.next()?.parse::<f64>().ok()? / 1e3),
                    chunked: fields.next()? == "1",
                })
            })
            .collect(),
    )
}

/// `strata serve` on a loopback port.
struct Server {
    child: Child,
    /// `127.0.0.1:port`
    address: String,
}

impl Server {
    fn start(binary: &Path, data_dir: &Path) -> Self {
        let mut child = Command::new(binary)
            .arg("--data")
            .arg(data_dir)
            .args(["serve", "--http", "127.0.0.1:0", "--no-demo"])
            .stdout(Stdio::piped())
            // One log line per request: not what is measured.
            .stderr(Stdio::null())
            .spawn()
            .expect("start strata serve");
        let stdout = child.stdout.take().expect("stdout");
        let mut lines = BufReader::new(stdout).lines();
        let address = loop {
            let line = lines
                .next()
                .expect("strata serve exited before listening")
                .expect("read stdout");
            if let Some(rest) = line.strip_prefix("Strata is listening on ") {
                let url = rest.split_whitespace().next().expect("address");
                break url
                    .trim_start_matches("http://")
                    .trim_end_matches('/')
                    .to_owned();
            }
        };
        std::thread::spawn(move || for _ in lines.map_while(Result::ok) {});
        Self { child, address }
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.address)
    }

    fn stop(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
