//! Strata through NATS JetStream: commits per second with 8 writers on one and on three
//! nodes, with stream replicas 1 (one NATS server) and 3 (a three-server cluster), next
//! to the embedded file log in the same run; how far followers lag (p50/p99: from a
//! commit's acknowledgement to its visibility on the other nodes); and how long a new
//! node takes to start from published store files versus replaying the stream; and the
//! BSBM explore mix read from 3 threads on one node versus one thread per node.
//!
//! Nodes are engines in this process (each its own data directory and NATS connection);
//! the NATS servers are real `nats-server` processes (Debian's 2.9). On a 2-core machine
//! every server and node shares the same two cores: read the ratios, not the absolute
//! rates. Run with `cargo bench --bench cluster`. Knobs: `STRATA_BENCH_SECONDS` (per
//! row, default 3), `STRATA_BENCH_WRITERS` (default 8), `STRATA_BENCH_BOOTSTRAP_TRIPLES`
//! (default 1,000,000; a list such as `1000000,5000000` for several sizes),
//! `STRATA_BENCH_SMALL_COMMITS` (default 5,000), `STRATA_BENCH_TMP`, `STRATA_BENCH_ROWS`
//! (`1x3,3x3`: only those replicas × nodes rows).

#[path = "data.rs"]
mod data;

use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use data::{print_table, thousands};
use strata::engine::{CommitRequest, Graph};
use strata::log::jetstream::JetStream;
use strata::log::{ClusterHandle, LeaseHolder};
use strata::{Engine, EngineConfig};

struct NatsServers {
    children: Vec<Child>,
    urls: String,
    /// Each server's monitoring port (`/varz`).
    monitors: Vec<u16>,
}

impl NatsServers {
    /// Messages the servers received and sent so far, summed over all of them (clients and
    /// routes both count, so a message routed between servers counts on each).
    fn messages(&self) -> (u64, u64) {
        self.monitors
            .iter()
            .fold((0, 0), |(sent_in, sent_out), port| {
                let varz = varz(*port);
                let count = |key: &str| varz.get(key).and_then(|v| v.as_u64()).unwrap_or(0);
                (sent_in + count("in_msgs"), sent_out + count("out_msgs"))
            })
    }
}

/// A server's `/varz` (its counters), or null when it does not answer.
fn varz(port: u16) -> serde_json::Value {
    use std::io::{Read, Write};
    let fetch = || -> std::io::Result<String> {
        let mut stream = std::net::TcpStream::connect(("127.0.0.1", port))?;
        stream.set_read_timeout(Some(Duration::from_secs(5)))?;
        stream.write_all(b"GET /varz HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")?;
        let mut answer = String::new();
        stream.read_to_string(&mut answer)?;
        Ok(answer)
    };
    fetch()
        .ok()
        .and_then(|answer| {
            let body = answer.split_once("\r\n\r\n")?.1.to_owned();
            serde_json::from_str(&body).ok()
        })
        .unwrap_or(serde_json::Value::Null)
}

impl Drop for NatsServers {
    fn drop(&mut self) {
        for child in &mut self.children {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// `n` JetStream servers (one cluster when n > 1), ready.
fn start_nats(dir: &Path, n: usize) -> NatsServers {
    let ports: Vec<(u16, u16, u16)> = (0..n)
        .map(|_| (free_port(), free_port(), free_port()))
        .collect();
    let mut children = Vec::new();
    for (i, &(client, route, monitor)) in ports.iter().enumerate() {
        let mut config = format!(
            "server_name: b{i}\nlisten: 127.0.0.1:{client}\nhttp_port: {monitor}\n\
             jetstream {{ store_dir: \"{}\", max_memory_store: 64MB, max_file_store: 8GB }}\n",
            dir.join(format!("js{n}-{i}")).display()
        );
        if n > 1 {
            let routes: Vec<String> = ports
                .iter()
                .map(|p| format!("nats-route://127.0.0.1:{}", p.1))
                .collect();
            config.push_str(&format!(
                "cluster {{ name: bench, listen: 127.0.0.1:{route}, routes: [{}] }}\n",
                routes.join(", ")
            ));
        }
        let path = dir.join(format!("nats{n}-{i}.conf"));
        std::fs::write(&path, config).expect("nats config");
        children.push(
            Command::new("nats-server")
                .arg("-c")
                .arg(&path)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("nats-server (apt-get install nats-server)"),
        );
    }
    let urls = ports
        .iter()
        .map(|p| format!("nats://127.0.0.1:{}", p.0))
        .collect::<Vec<_>>()
        .join(",");
    NatsServers {
        children,
        urls,
        monitors: ports.iter().map(|p| p.2).collect(),
    }
}

/// An engine (a node) on its own data directory, clustered through `urls`.
fn node(dir: &Path, urls: Option<&str>, replicas: usize) -> Engine {
    let cluster = urls.map(|urls| {
        // A fresh cluster elects its JetStream leader first: retry until it answers.
        let started = Instant::now();
        loop {
            match JetStream::connect(urls, replicas) {
                Ok(js) => break ClusterHandle(js),
                Err(e) if started.elapsed() < Duration::from_secs(60) => {
                    let _ = e;
                    std::thread::sleep(Duration::from_millis(500));
                }
                Err(e) => panic!("cannot connect to {urls}: {e}"),
            }
        }
    });
    Engine::open(
        dir,
        EngineConfig {
            cluster,
            ..EngineConfig::default()
        },
    )
    .expect("open engine")
}

/// Opens `graph` on every node, retrying while the cluster elects its leaders.
fn open_everywhere(nodes: &[Engine], graph: &str) -> Vec<Arc<Graph>> {
    nodes
        .iter()
        .map(|engine| {
            let started = Instant::now();
            loop {
                match engine.graph_or_create(graph) {
                    Ok(g) => break g,
                    Err(e) if started.elapsed() < Duration::from_secs(60) => {
                        let _ = e;
                        std::thread::sleep(Duration::from_millis(500));
                    }
                    Err(e) => panic!("cannot open {graph}: {e}"),
                }
            }
        })
        .collect()
}

/// Writers (round robin over the nodes) committing small updates for `duration`.
/// Returns (commits, commits/s, `write_conflict` answers retried).
/// What `commit_rate` measured.
struct Rate {
    commits: u64,
    per_second: f64,
    /// Writes refused with `write_conflict` (the client retried them).
    conflicts: u64,
    /// Commits made through each node.
    per_node: Vec<u64>,
}

impl Rate {
    /// Fewest and most commits through one node, e.g. `310–352`.
    fn spread(&self) -> String {
        let fewest = self.per_node.iter().min().copied().unwrap_or(0);
        let most = self.per_node.iter().max().copied().unwrap_or(0);
        format!("{}–{}", thousands(fewest), thousands(most))
    }
}

/// Waits (at most 10 s) until one node holds the graph's write lease and the others know it.
fn wait_for_leader(graphs: &[Arc<Graph>]) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        let holders: Vec<LeaseHolder> = graphs
            .iter()
            .filter_map(|g| g.leader_status())
            .map(|s| s.holder)
            .collect();
        let leaders = holders.iter().filter(|h| **h == LeaseHolder::Me).count();
        let others = holders
            .iter()
            .filter(|h| matches!(h, LeaseHolder::Other(_)))
            .count();
        if leaders == 1 && leaders + others == graphs.len() {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    println!("(no write leader agreed within 10 s: writes stay optimistic)");
}

fn commit_rate(graphs: &[Arc<Graph>], writers: usize, duration: Duration) -> Rate {
    let started = Instant::now();
    let deadline = started + duration;
    let request = CommitRequest::default();
    let mut rate = Rate {
        commits: 0,
        per_second: 0.0,
        conflicts: 0,
        per_node: vec![0; graphs.len()],
    };
    let outcomes: Vec<(usize, u64, u64)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..writers)
            .map(|w| {
                let graph = &graphs[w % graphs.len()];
                let request = &request;
                scope.spawn(move || {
                    let (mut n, mut conflicts) = (0u64, 0u64);
                    while Instant::now() < deadline {
                        let text =
                            format!("INSERT DATA {{ <http://e/w{w}/{n}> <http://e/p> \"v\" }}");
                        // A client retries a write that lost every race (`write_conflict`).
                        match graph.update(&text, None, &Default::default(), request) {
                            Ok(_) => n += 1,
                            Err(strata::engine::EngineError::WriteConflict { .. }) => {
                                conflicts += 1
                            }
                            Err(e) => panic!("commit: {e}"),
                        }
                    }
                    (w % graphs.len(), n, conflicts)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("writer"))
            .collect()
    });
    for (node, n, conflicts) in outcomes {
        rate.per_node[node] += n;
        rate.commits += n;
        rate.conflicts += conflicts;
    }
    rate.per_second = rate.commits as f64 / started.elapsed().as_secs_f64();
    rate
}

/// Time from a commit's acknowledgement on node 0 to its visibility on every other node.
fn follower_lag(graphs: &[Arc<Graph>], commits: usize) -> Vec<Duration> {
    let request = CommitRequest::default();
    let mut lags = Vec::with_capacity(commits);
    for n in 0..commits {
        let text = format!("INSERT DATA {{ <http://e/lag{n}> <http://e/p> 1 }}");
        let outcome = graphs[0]
            .update(&text, None, &Default::default(), &request)
            .expect("commit");
        let seq = outcome.commit_seq.expect("a commit");
        let acknowledged = Instant::now();
        for other in &graphs[1..] {
            while other.head_seq() < seq {
                std::thread::sleep(Duration::from_micros(200));
            }
        }
        lags.push(acknowledged.elapsed());
    }
    lags.sort();
    lags
}

/// How long one commit takes with nothing else writing: `commits` one after another
/// through `graph` (each a new triple named with `tag`), sorted.
fn lone_commit_latency(graph: &Graph, tag: &str, commits: usize) -> Vec<Duration> {
    let request = CommitRequest::default();
    let mut took: Vec<Duration> = (0..commits)
        .map(|n| {
            let text = format!("INSERT DATA {{ <http://e/lone-{tag}{n}> <http://e/p> 1 }}");
            let started = Instant::now();
            graph
                .update(&text, None, &Default::default(), &request)
                .expect("commit");
            started.elapsed()
        })
        .collect();
    took.sort();
    took
}

/// `p50 / p99` of sorted durations, in milliseconds.
fn p50_p99(sorted: &[Duration]) -> String {
    format!(
        "{:.1} / {:.1}",
        data::ms(percentile(sorted, 0.5)),
        data::ms(percentile(sorted, 0.99))
    )
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn main() {
    let seconds = data::env_f64("STRATA_BENCH_SECONDS", 3.0);
    let duration = Duration::from_secs_f64(seconds);
    let writers = data::env_usize("STRATA_BENCH_WRITERS", 8).max(1);
    let sizes: Vec<usize> = std::env::var("STRATA_BENCH_BOOTSTRAP_TRIPLES")
        .unwrap_or_else(|_| "1000000".into())
        .split(',')
        .filter_map(|n| n.trim().replace('_', "").parse().ok())
        .collect();
    let small_commits = data::env_usize("STRATA_BENCH_SMALL_COMMITS", 5_000);
    println!(
        "# Commits through NATS JetStream: {writers} writers, {seconds} s per row, {} CPUs; load average at start: {}\n",
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        data::load_average()
    );
    let dir = data::temp_dir();

    // The embedded file log, in the same run: the baseline.
    let embedded = node(&dir.path().join("embedded"), None, 1);
    let graph = embedded.graph_or_create("main").expect("graph");
    let base = commit_rate(std::slice::from_ref(&graph), writers, duration);
    let base_rate = base.per_second;
    let base_lone = lone_commit_latency(&graph, "embedded", 300);
    let mut rows = vec![vec![
        "embedded file log".into(),
        "—".into(),
        "1".into(),
        thousands(base.commits),
        format!("{base_rate:.0}"),
        "1.00".into(),
        thousands(base.conflicts),
        base.spread(),
        "—".into(),
        "—".into(),
        "—".into(),
        "—".into(),
    ]];
    drop(graph);
    drop(embedded);

    // `STRATA_BENCH_ROWS=1x3,3x3` runs only those rows (replicas × nodes).
    let only: Option<Vec<String>> = std::env::var("STRATA_BENCH_ROWS")
        .ok()
        .map(|rows| rows.split(',').map(|r| r.trim().to_owned()).collect());
    let wanted = |replicas: usize, n_nodes: usize| {
        only.as_ref()
            .is_none_or(|rows| rows.contains(&format!("{replicas}x{n_nodes}")))
    };
    let mut lag_rows = vec![vec![
        "embedded file log".to_owned(),
        "—".into(),
        "1".into(),
        p50_p99(&base_lone),
        "—".into(),
        "—".into(),
    ]];
    for (servers, replicas) in [(1usize, 1usize), (3, 3)] {
        if !wanted(replicas, 1) && !wanted(replicas, 3) {
            continue;
        }
        let nats = start_nats(dir.path(), servers);
        for n_nodes in [1usize, 3] {
            if !wanted(replicas, n_nodes) {
                continue;
            }
            let nodes: Vec<Engine> = (0..n_nodes)
                .map(|i| {
                    node(
                        &dir.path().join(format!("r{replicas}-n{n_nodes}-{i}")),
                        Some(&nats.urls),
                        replicas,
                    )
                })
                .collect();
            let name = format!("r{replicas}-n{n_nodes}");
            let graphs = open_everywhere(&nodes, &name);
            wait_for_leader(&graphs);
            let (in_before, out_before) = nats.messages();
            let rate = commit_rate(&graphs, writers, duration);
            let (in_after, out_after) = nats.messages();
            let per_commit = |before: u64, after: u64| {
                after.saturating_sub(before) as f64 / rate.commits.max(1) as f64
            };
            let (forwarded, from_stream) = graphs
                .iter()
                .filter_map(|g| g.leader_status())
                .fold((0, 0), |(f, s), l| {
                    (f + l.forwarded, s + l.answered_from_stream)
                });
            let (pipelined, refused, messages, held) = graphs
                .iter()
                .filter_map(|g| g.pipeline_status())
                .fold((0, 0, 0, 0), |(p, r, m, h), s| {
                    (
                        p + s.pipelined,
                        r + s.refused,
                        m + s.messages,
                        h + s.messages_commits,
                    )
                });
            rows.push(vec![
                "JetStream".into(),
                replicas.to_string(),
                n_nodes.to_string(),
                thousands(rate.commits),
                format!("{:.0}", rate.per_second),
                format!("{:.2}", rate.per_second / base_rate),
                thousands(rate.conflicts),
                rate.spread(),
                format!("{} / {}", thousands(pipelined), thousands(refused)),
                format!("{:.1}", held as f64 / messages.max(1) as f64),
                format!("{} / {}", thousands(forwarded), thousands(from_stream)),
                format!(
                    "{:.1} / {:.1}",
                    per_commit(in_before, in_after),
                    per_commit(out_before, out_after)
                ),
            ]);
            let leads = |g: &&Arc<Graph>| {
                g.leader_status()
                    .is_some_and(|s| s.holder == strata::log::LeaseHolder::Me)
            };
            let leader = graphs.iter().find(leads).unwrap_or(&graphs[0]);
            let other = graphs.iter().find(|g| !leads(g));
            let through_other = other.map_or("—".into(), |g| {
                p50_p99(&lone_commit_latency(g, "other", 300))
            });
            lag_rows.push(vec![
                "JetStream".to_owned(),
                replicas.to_string(),
                n_nodes.to_string(),
                p50_p99(&lone_commit_latency(leader, "leader", 300)),
                through_other,
                if n_nodes > 1 {
                    p50_p99(&follower_lag(&graphs, 200))
                } else {
                    "—".into()
                },
            ]);
        }
        drop(nats);
    }
    print_table(
        &[
            "log",
            "replicas",
            "nodes",
            "commits",
            "commits/s",
            "× embedded",
            "write_conflict retried",
            "commits per node (fewest–most)",
            "sent behind another / refused mid-pipeline",
            "commits per message",
            "forwarded / answered from the stream",
            "NATS messages in / out per commit",
        ],
        &rows,
    );
    println!();
    print_table(
        &[
            "log (one writer)",
            "replicas",
            "nodes",
            "a lone commit through the leader, p50 / p99 ms",
            "through another node (forwarded)",
            "follower lag p50 / p99 ms",
        ],
        &lag_rows,
    );

    // Reads: the BSBM explore mix from 3 threads, all on one node or one per node.
    if let Some(bsbm) = data::load_bsbm() {
        let nats = start_nats(dir.path(), 1);
        let nodes: Vec<Engine> = (0..3)
            .map(|i| node(&dir.path().join(format!("bsbm-{i}")), Some(&nats.urls), 1))
            .collect();
        let loader = open_everywhere(&nodes[..1], "bsbm").remove(0);
        let options = strata::engine::ImportOptions {
            format: strata::engine::ImportFormat::from_name("ntriples").expect("format"),
            base_iri: None,
            into_graph: None,
            one_graph: false,
            source_name: "bsbm.nt".into(),
        };
        loader
            .import(
                bsbm.ntriples.as_slice(),
                &options,
                &CommitRequest::default(),
            )
            .expect("import BSBM");
        let graphs = open_everywhere(&nodes, "bsbm");
        let queries_per_second = |spread: bool| -> f64 {
            let deadline = Instant::now() + duration;
            let started = Instant::now();
            let total: u64 = std::thread::scope(|scope| {
                let handles: Vec<_> = (0..3)
                    .map(|t| {
                        let graph = &graphs[if spread { t } else { 0 }];
                        let queries = &bsbm.queries;
                        scope.spawn(move || {
                            let mut n = 0u64;
                            let mut i = t;
                            while Instant::now() < deadline {
                                let q = &queries[i % queries.len()];
                                let answer = graph
                                    .read()
                                    .query(&q.text, &Default::default())
                                    .expect("query");
                                data::count_results(answer.results).expect("results");
                                n += 1;
                                i += 1;
                            }
                            n
                        })
                    })
                    .collect();
                handles.into_iter().map(|h| h.join().expect("reader")).sum()
            });
            total as f64 / started.elapsed().as_secs_f64()
        };
        let one = queries_per_second(false);
        let three = queries_per_second(true);
        println!();
        print_table(
            &[
                "BSBM explore mix, 3 reader threads",
                "queries/s",
                "× 1 node",
            ],
            &[
                vec!["all on 1 node".into(), format!("{one:.0}"), "1.00".into()],
                vec![
                    "one per node, 3 nodes".into(),
                    format!("{three:.0}"),
                    format!("{:.2}", three / one),
                ],
            ],
        );
        drop(graphs);
        drop(loader);
        drop(nodes);
        drop(nats);
    }

    // Bootstrap: a node imports `triples` triples and publishes its store files; a new
    // node starts from them, another (files never published) replays the stream. Then a
    // graph of many small commits, which a new node replays record by record.
    println!();
    let nats = start_nats(dir.path(), 1);
    let writer = node(&dir.path().join("boot-writer"), Some(&nats.urls), 1);
    let mut boot_rows = Vec::new();
    let mut start_fresh = |graph: &str, how: &str, size: String, quads: u64| {
        let fresh = node(
            &dir.path().join(format!("fresh-{graph}")),
            Some(&nats.urls),
            1,
        );
        let started = Instant::now();
        let opened = fresh.graph(graph).expect("open on the new node");
        let elapsed = started.elapsed();
        assert_eq!(opened.read().count_quads(), quads);
        boot_rows.push(vec![
            size,
            how.into(),
            format!("{:.2}", elapsed.as_secs_f64()),
        ]);
    };
    for &triples in &sizes {
        let mut document = String::with_capacity(triples * 60);
        for i in 0..triples {
            document.push_str(&format!(
                "<http://e/s{}> <http://e/p{}> \"value {i}\" .\n",
                i / 8,
                i % 8
            ));
        }
        let import = |graph: &Graph| {
            let options = strata::engine::ImportOptions {
                format: strata::engine::ImportFormat::from_name("ntriples").expect("format"),
                base_iri: None,
                into_graph: None,
                one_graph: false,
                source_name: "bench.nt".into(),
            };
            graph
                .import(document.as_bytes(), &options, &CommitRequest::default())
                .expect("import");
        };
        let files = format!("boot-files-{triples}");
        let replay = format!("boot-replay-{triples}");
        let with_files = open_everywhere(std::slice::from_ref(&writer), &files).remove(0);
        import(&with_files);
        with_files.flush_when_idle(1).expect("flush and publish");
        let replay_only = open_everywhere(std::slice::from_ref(&writer), &replay).remove(0);
        import(&replay_only);
        drop(document);
        let size = format!("{} triples", thousands(triples as u64));
        start_fresh(
            &files,
            "from published store files",
            size.clone(),
            triples as u64,
        );
        start_fresh(&replay, "replaying the stream", size, triples as u64);
    }
    let small = open_everywhere(std::slice::from_ref(&writer), "boot-small").remove(0);
    for n in 0..small_commits {
        let text = format!("INSERT DATA {{ <http://e/small{n}> <http://e/p> {n} }}");
        small
            .update(&text, None, &Default::default(), &CommitRequest::default())
            .expect("commit");
    }
    start_fresh(
        "boot-small",
        "replaying the stream",
        format!("{} one-triple commits", thousands(small_commits as u64)),
        small_commits as u64,
    );
    print_table(&["graph", "a new node starts", "seconds"], &boot_rows);
    println!("\nLoad average at end: {}", data::load_average());
}
