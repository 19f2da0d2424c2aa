//! The store on disk, side by side with oxigraph on RocksDB (`pyoxigraph` from PyPI, driven
//! by `benches/peers/pyoxigraph_bsbm.py` in a venv under `target/`) in the same run:
//! import, open time of a fresh process, anonymous memory of an idle server, BSBM explore
//! queries at the head and pinned, and the write amplification of small commits.
//!
//! `cargo bench --bench disk` (BSBM 375k); `STRATA_BENCH_SCALE=1m` for 1M triples, plus
//! `STRATA_BENCH_COPIES=5` for 5M (copies of the 1M set with renamed instances, as
//! `scripts/bsbm-scale.py` makes them). `STRATA_BENCH_PASSES` (default 3) timed runs per
//! query, best kept; `STRATA_BENCH_SMALL_COMMITS` (default 100,000) for the amplification.
//! Ratios are strata / peer: below 1 means Strata is faster or smaller.

#[path = "data.rs"]
mod data;

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use data::{BsbmQuery, count_results, print_table, thousands};
use strata::engine::{CommitRequest, ImportFormat, ImportOptions, ReadAt, ReadOptions};
use strata::sparql::UpdateOptions;
use strata::{Engine, EngineConfig};

const MARK: &[u8] = b"/bizer/bsbm/v01/instances/dataFrom";

fn main() {
    let Some(bsbm) = data::load_bsbm() else {
        return;
    };
    let copies = data::env_usize("STRATA_BENCH_COPIES", 1).max(1);
    let passes = data::env_usize("STRATA_BENCH_PASSES", 3).max(1);
    let ntriples = replicate(&bsbm.ntriples, copies);
    let work = data::temp_dir();
    let nt_path = work.path().join("data.nt");
    std::fs::write(&nt_path, &ntriples).expect("write data");
    let n_lines = ntriples.iter().filter(|&&b| b == b'\n').count();
    println!(
        "# Store on disk — BSBM {} × {copies} ({} triples), {} queries, best of {passes}; load average: {}\n",
        bsbm.scale,
        thousands(n_lines as u64),
        bsbm.queries.len(),
        data::load_average()
    );
    let python = data::peer_python(&["pyoxigraph"]);

    // Import: Strata parses, commits durably and flushes to files (`close`); the peer
    // bulk-loads into RocksDB.
    let strata_dir = work.path().join("strata");
    let started = Instant::now();
    let strata_committed;
    {
        let engine = Engine::open(&strata_dir, EngineConfig::default()).expect("open");
        let graph = engine.graph_or_create("main").expect("graph");
        let options = ImportOptions {
            format: ImportFormat(oxrdfio::RdfFormat::NTriples),
            base_iri: None,
            into_graph: None,
            one_graph: false,
            source_name: "bsbm".into(),
        };
        graph
            .import(&ntriples[..], &options, &CommitRequest::default())
            .expect("import");
        strata_committed = started.elapsed();
        // A second commit, so reads pinned at commit 1 differ from head reads.
        graph
            .update(
                "INSERT DATA { <http://example.org/bench> <http://example.org/p> 1 }",
                None,
                &UpdateOptions::default(),
                &CommitRequest::default(),
            )
            .expect("update");
        engine.close().expect("close");
    }
    let strata_import = started.elapsed();
    // Oxigraph's bulk loader into its in-memory store, the same bytes in this process.
    let memory_import = {
        let store = oxigraph::store::Store::new().expect("store");
        let started = Instant::now();
        let mut loader = store.bulk_loader();
        loader
            .load_from_slice(oxrdfio::RdfFormat::NTriples, &ntriples)
            .expect("bulk load");
        loader.commit().expect("bulk commit");
        started.elapsed()
    };
    drop(ntriples);
    let rocks_dir = work.path().join("rocksdb");
    let load = peer(
        &python,
        &[
            "load",
            "--data",
            nt_path.to_str().unwrap(),
            "--store",
            rocks_dir.to_str().unwrap(),
        ],
    );
    let peer_import = Duration::from_secs_f64(load["seconds"].as_f64().unwrap());
    let _ = std::fs::remove_file(&nt_path);

    // Open: a fresh process answering `ASK {}`, whole-process wall time, median of 5.
    let strata_open = median(5, || {
        let started = Instant::now();
        let status = Command::new(env!("CARGO_BIN_EXE_strata"))
            .args(["--data", strata_dir.to_str().unwrap(), "query", "ASK {}"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .expect("run strata");
        assert!(status.success());
        started.elapsed()
    });
    let peer_open = median(5, || {
        let started = Instant::now();
        peer(&python, &["open", "--store", rocks_dir.to_str().unwrap()]);
        started.elapsed()
    });
    let python_start = median(5, || {
        let started = Instant::now();
        let status = Command::new(&python)
            .args(["-c", "import pyoxigraph"])
            .status()
            .expect("python");
        assert!(status.success());
        started.elapsed()
    });

    let idle_anon = idle_server_anon_bytes(&strata_dir);

    // Queries: Strata in this process on the mapped files; the peer in its own, read-only.
    let engine = Engine::open(&strata_dir, EngineConfig::default()).expect("reopen");
    let graph = engine.graph("main").expect("graph");
    let head = ReadAt::head();
    let pinned = ReadAt::commit(1);
    let time = |q: &BsbmQuery, at: &ReadAt| -> (Duration, usize) {
        let started = Instant::now();
        let answer = graph
            .reader(*at)
            .and_then(|reader| reader.query(&q.text, &ReadOptions::default()))
            .expect("query");
        let n = count_results(answer.results).expect("results");
        (started.elapsed(), n)
    };
    let mut strata_head = Duration::ZERO;
    let mut strata_pinned = Duration::ZERO;
    let mut strata_rows = Vec::new();
    for q in &bsbm.queries {
        let (_, n) = time(q, &head);
        strata_rows.push(n);
        strata_head += (0..passes).map(|_| time(q, &head).0).min().unwrap();
        strata_pinned += (0..passes).map(|_| time(q, &pinned).0).min().unwrap();
    }
    drop(graph);
    drop(engine);
    let query_dir = data::bsbm_dir().join(format!("queries-{}", bsbm.scale));
    let answers = peer(
        &python,
        &[
            "queries",
            "--store",
            rocks_dir.to_str().unwrap(),
            "--queries",
            query_dir.to_str().unwrap(),
            "--passes",
            &passes.to_string(),
        ],
    );
    let peer_queries = Duration::from_secs_f64(answers["total_best_seconds"].as_f64().unwrap());
    let peer_rows: Vec<usize> = answers["queries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| q["rows"].as_u64().unwrap() as usize)
        .collect();
    let same_rows = strata_rows
        .iter()
        .zip(&peer_rows)
        .filter(|(a, b)| a == b)
        .count();

    let (commits_per_s, amplification, log_bytes) = small_commits(work.path());

    let size = |p: &Path| data::dir_size(p);
    let triples = n_lines as f64;
    let ratio = |a: Duration, b: Duration| format!("{:.2}", a.as_secs_f64() / b.as_secs_f64());
    let secs = |d: Duration| format!("{:.3}", d.as_secs_f64());
    print_table(
        &["measure", "strata", "oxigraph on RocksDB", "strata / peer"],
        &[
            vec![
                "import (parse + durable commit + files), s".into(),
                secs(strata_import),
                secs(peer_import),
                ratio(strata_import, peer_import),
            ],
            vec![
                "import (parse + durable commit) vs oxigraph in memory (bulk loader), s".into(),
                secs(strata_committed),
                secs(memory_import),
                ratio(strata_committed, memory_import),
            ],
            vec![
                "import (parse + durable commit + files) vs oxigraph in memory, s".into(),
                secs(strata_import),
                secs(memory_import),
                ratio(strata_import, memory_import),
            ],
            vec![
                "open: fresh process, `ASK {}`, s (peer: minus Python start-up)".into(),
                secs(strata_open),
                secs(peer_open.saturating_sub(python_start)),
                ratio(strata_open, peer_open.saturating_sub(python_start)),
            ],
            vec![
                format!(
                    "BSBM explore at the head, {} queries, s",
                    bsbm.queries.len()
                ),
                secs(strata_head),
                secs(peer_queries),
                ratio(strata_head, peer_queries),
            ],
            vec![
                "BSBM explore pinned at commit 1, s".into(),
                secs(strata_pinned),
                secs(peer_queries),
                ratio(strata_pinned, peer_queries),
            ],
            vec![
                "queries with the same row count".into(),
                format!("{same_rows} of {}", strata_rows.len()),
                String::new(),
                String::new(),
            ],
            vec![
                "disk, bytes/triple".into(),
                format!("{:.1}", size(&strata_dir) as f64 / triples),
                format!("{:.1}", size(&rocks_dir) as f64 / triples),
                format!(
                    "{:.2}",
                    size(&strata_dir) as f64 / size(&rocks_dir).max(1) as f64
                ),
            ],
            vec![
                "idle server anonymous memory (RssAnon), bytes/triple".into(),
                format!("{:.2}", idle_anon as f64 / triples),
                String::new(),
                String::new(),
            ],
        ],
    );
    println!(
        "Small durable commits, 8 writers, one triple each: {} commits/s; write amplification \
         (bytes written to disk / bytes of log): {amplification:.2} ({} log bytes)",
        thousands(commits_per_s as u64),
        thousands(log_bytes)
    );
}

/// The 1M set's lines, then `copies - 1` copies of the lines about data-source instances
/// with those renamed (`scripts/bsbm-scale.py` does the same on files).
fn replicate(ntriples: &[u8], copies: usize) -> Vec<u8> {
    if copies == 1 {
        return ntriples.to_vec();
    }
    let owned: Vec<&[u8]> = ntriples
        .split_inclusive(|&b| b == b'\n')
        .filter(|line| line.windows(MARK.len()).any(|w| w == MARK))
        .collect();
    let mut out = ntriples.to_vec();
    for copy in 1..copies {
        let renamed = format!("/bizer/bsbm/v01/instances/r{copy}/dataFrom");
        for line in &owned {
            let text = std::str::from_utf8(line).expect("UTF-8");
            out.extend_from_slice(
                text.replace(std::str::from_utf8(MARK).unwrap(), &renamed)
                    .as_bytes(),
            );
        }
    }
    out
}

/// Runs the peer script and returns its JSON answer.
fn peer(python: &Path, args: &[&str]) -> serde_json::Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/peers/pyoxigraph_bsbm.py");
    let output = Command::new(python)
        .arg(script)
        .args(args)
        .stderr(Stdio::inherit())
        .output()
        .expect("run the peer");
    assert!(output.status.success(), "peer {args:?} failed");
    serde_json::from_slice(&output.stdout).expect("peer JSON")
}

fn median(n: usize, mut f: impl FnMut() -> Duration) -> Duration {
    let mut runs: Vec<Duration> = (0..n).map(|_| f()).collect();
    runs.sort();
    runs[n / 2]
}

/// `RssAnon` of `strata serve` on the data after it answered one query and went idle.
fn idle_server_anon_bytes(data_dir: &Path) -> u64 {
    let mut child = Command::new(env!("CARGO_BIN_EXE_strata"))
        .args(["--data", data_dir.to_str().unwrap()])
        .args(["serve", "--http", "127.0.0.1:0", "--no-demo"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("serve");
    let stdout = child.stdout.take().unwrap();
    let mut lines = BufReader::new(stdout).lines();
    let base = loop {
        let line = lines.next().expect("server output").expect("line");
        if let Some(rest) = line.strip_prefix("Strata is listening on ") {
            break rest.split_whitespace().next().unwrap().to_owned();
        }
    };
    let address = base.trim_start_matches("http://");
    let mut stream = std::net::TcpStream::connect(address).expect("connect");
    let query = "SELECT%20(COUNT(*)%20AS%20%3Fn)%20%7B%3Fs%20%3Fp%20%3Fo%7D";
    write!(
        stream,
        "GET /sparql?query={query} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    std::thread::sleep(Duration::from_secs(1));
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap();
    let anon_kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("RssAnon:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("RssAnon");
    let _ = child.kill();
    let _ = child.wait();
    anon_kb * 1024
}

/// Small durable commits from 8 writers into a fresh graph with the default flush
/// threshold: commits/s, and bytes written to storage (`/proc/self/io`) per byte of log.
fn small_commits(work: &Path) -> (f64, f64, u64) {
    let n = data::env_usize("STRATA_BENCH_SMALL_COMMITS", 100_000);
    let dir = work.join("small");
    let engine = Arc::new(Engine::open(&dir, EngineConfig::default()).expect("open"));
    engine.graph_or_create("main").expect("graph");
    let written_before = io_write_bytes();
    let started = Instant::now();
    let threads: Vec<_> = (0..8)
        .map(|w| {
            let engine = engine.clone();
            std::thread::spawn(move || {
                let graph = engine.graph("main").unwrap();
                for i in (w..n).step_by(8) {
                    let update = format!("INSERT DATA {{ <http://e/s{i}> <http://e/p> \"{i}\" }}");
                    graph
                        .update(
                            &update,
                            None,
                            &UpdateOptions::default(),
                            &CommitRequest::default(),
                        )
                        .expect("commit");
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    let elapsed = started.elapsed();
    engine.close().expect("close");
    let written = io_write_bytes() - written_before;
    let log = data::file_size(&dir.join("graphs/main/commits.log"));
    (
        n as f64 / elapsed.as_secs_f64(),
        written as f64 / log.max(1) as f64,
        log,
    )
}

fn io_write_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/io")
        .ok()
        .and_then(|text| {
            text.lines()
                .find_map(|l| l.strip_prefix("write_bytes:"))
                .and_then(|v| v.trim().parse().ok())
        })
        .unwrap_or(0)
}
