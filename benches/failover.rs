//! Failover under load, two scenarios, each with three `strata serve` processes and 8 HTTP
//! writers spread over the live nodes (each write with an idempotency key, retried
//! through another node when it fails):
//!
//! - `leader`: one NATS JetStream server; each round the node leading the graph's writes
//!   is killed with SIGKILL, then started again on its data. Reported: how long until a
//!   survivor leads (from `/healthz`) and until every writer has a write acknowledged
//!   again (its first acknowledgement after the kill).
//! - `nats`: three clustered NATS servers, streams with three replicas; each round one
//!   NATS server (in turn) is killed with SIGKILL, then started again on its store once
//!   the writes went on. Reported: how long until every writer has a write acknowledged
//!   again, and the longest pause between two acknowledgements after the kill.
//!
//! Then, for each scenario, the checks: every acknowledged write is in the graph on
//! every node, no commit number acknowledged for two writes, the nodes' logs byte for
//! byte the same and `strata verify` passing on each.
//!
//! Run with `cargo bench --bench failover`. Knobs: `STRATA_BENCH_FAILOVER` (`leader`,
//! `nats` or both, comma-separated; default both), `STRATA_BENCH_ROUNDS` (leader kills,
//! default 20), `STRATA_BENCH_NATS_ROUNDS` (NATS server kills, default 6),
//! `STRATA_BENCH_WRITERS` (default 8), `STRATA_CLUSTER_LEASE_MS` (the lease, default
//! 3000), `STRATA_BENCH_TMP`, `STRATA_BENCH_NODE_LOGS` (a directory for the nodes'
//! logs). Needs `nats-server` (Debian's `nats-server`).

#[path = "data.rs"]
mod data;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::BufRead;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, RwLock};
use std::time::{Duration, Instant};

use data::print_table;
use serde_json::Value;

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(30)))
        .build()
        .into()
}

/// One `strata serve` process on its own data directory.
struct Node {
    data: PathBuf,
    child: Option<Child>,
    base: String,
}

impl Node {
    fn start(data: &Path, nats: &str, replicas: usize) -> Node {
        let replicas = replicas.to_string();
        let mut child = Command::new(env!("CARGO_BIN_EXE_strata"))
            .args(["serve", "--http", "127.0.0.1:0", "--no-demo", "--log", nats])
            .args(["--replicas", &replicas])
            .env("STRATA_DATA", data)
            .env_remove("STRATA_LOG")
            .stdout(Stdio::piped())
            .stderr(node_log(data))
            .spawn()
            .expect("start strata serve");
        let mut lines = std::io::BufReader::new(child.stdout.take().expect("stdout")).lines();
        let base = loop {
            let line = lines
                .next()
                .expect("strata serve exited before listening")
                .expect("read stdout");
            if let Some(rest) = line.strip_prefix("Strata is listening on ") {
                break rest.split_whitespace().next().expect("address").to_owned();
            }
        };
        std::thread::spawn(move || for _ in lines.map_while(Result::ok) {});
        Node {
            data: data.to_owned(),
            child: Some(child),
            base,
        }
    }

    fn health(&self) -> Option<Value> {
        let mut response = agent().get(format!("{}/healthz", self.base)).call().ok()?;
        serde_json::from_str(&response.body_mut().read_to_string().ok()?).ok()
    }

    fn leads(&self) -> bool {
        self.health()
            .is_some_and(|h| h["cluster"]["graphs_led"].as_u64() == Some(1))
    }

    fn head(&self) -> Option<u64> {
        let response = agent()
            .get(format!("{}/graphs/main/sparql?query=ASK%7B%7D", self.base))
            .header("accept", "application/sparql-results+json")
            .call()
            .ok()?;
        response
            .headers()
            .get("strata-commit")?
            .to_str()
            .ok()?
            .parse()
            .ok()
    }

    fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = Command::new("kill")
                .args(["-TERM", &child.id().to_string()])
                .status();
            let _ = child.wait();
        }
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Where a node's log goes: appended to `<STRATA_BENCH_NODE_LOGS>/<data dir>.log` when
/// that is set (every request with its time, at the default level), else nowhere.
fn node_log(data: &Path) -> Stdio {
    let Ok(dir) = std::env::var("STRATA_BENCH_NODE_LOGS") else {
        return Stdio::null();
    };
    let name = data
        .file_name()
        .map_or("node".into(), |n| n.to_string_lossy().into_owned());
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(Path::new(&dir).join(format!("{name}.log")))
        .map_or(Stdio::null(), Stdio::from)
}

/// An acknowledged write: its key, commit, and when it was answered.
struct Ack {
    key: String,
    commit_seq: u64,
    at: Instant,
}

/// Writers committing keyed one-triple inserts through the live nodes until `stop`.
fn writer(w: usize, live: &RwLock<Vec<String>>, stop: &AtomicBool, acks: &Mutex<Vec<Ack>>) {
    let agent = agent();
    let mut n = 0usize;
    while !stop.load(Ordering::Relaxed) {
        let key = format!("w{w}-{n}");
        let text = format!("INSERT DATA {{ <http://e/fo/{key}> <http://e/p> {n} }}");
        let mut attempt = 0usize;
        loop {
            let base = {
                let live = live.read().expect("live");
                live[(w + n + attempt) % live.len()].clone()
            };
            let answer = agent
                .post(format!("{base}/graphs/main/update"))
                .header("content-type", "application/sparql-update")
                .header("idempotency-key", &key)
                .send(&text);
            if let Ok(mut response) = answer
                && response.status() == 200
                && let Ok(body) = response.body_mut().read_to_string()
                && let Ok(body) = serde_json::from_str::<Value>(&body)
                && let Some(commit_seq) = body["commit_seq"].as_u64()
            {
                acks.lock().expect("acks").push(Ack {
                    key: key.clone(),
                    commit_seq,
                    at: Instant::now(),
                });
                break;
            }
            attempt += 1;
            std::thread::sleep(Duration::from_millis(50));
        }
        n += 1;
    }
}

fn wait_for(limit: Duration, mut done: impl FnMut() -> bool) -> Option<Duration> {
    let started = Instant::now();
    while started.elapsed() < limit {
        if done() {
            return Some(started.elapsed());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    None
}

fn distribution(mut values: Vec<Duration>) -> Vec<String> {
    values.sort();
    let at = |p: f64| values[((values.len() as f64 - 1.0) * p).round() as usize];
    [at(0.0), at(0.5), at(0.9), at(1.0)]
        .iter()
        .map(|d| format!("{:.2}", d.as_secs_f64()))
        .collect()
}

/// One `nats-server` process of the bench, restartable on its configuration.
struct NatsServer {
    config: PathBuf,
    monitor: u16,
    child: Option<Child>,
}

impl NatsServer {
    fn start(&mut self) {
        self.child = Some(
            Command::new("nats-server")
                .arg("-c")
                .arg(&self.config)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("nats-server (apt-get install nats-server)"),
        );
    }

    /// `/healthz` of its monitoring port answers 200: JetStream is up and current.
    fn healthy(&self) -> bool {
        agent()
            .get(format!("http://127.0.0.1:{}/healthz", self.monitor))
            .call()
            .is_ok_and(|r| r.status() == 200)
    }

    fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for NatsServer {
    fn drop(&mut self) {
        self.kill();
    }
}

/// `n` NATS servers (clustered when more than one), started and healthy, and the URL
/// list the nodes connect with.
fn nats_servers(dir: &Path, n: usize) -> (Vec<NatsServer>, String) {
    let ports: Vec<(u16, u16, u16)> = (0..n)
        .map(|_| (free_port(), free_port(), free_port()))
        .collect();
    let routes: Vec<String> = ports
        .iter()
        .map(|p| format!("nats-route://127.0.0.1:{}", p.1))
        .collect();
    let mut servers: Vec<NatsServer> = ports
        .iter()
        .enumerate()
        .map(|(i, &(client, route, monitor))| {
            let mut config = format!(
                "server_name: n{i}\nlisten: 127.0.0.1:{client}\nhttp_port: {monitor}\n\
                 jetstream {{ store_dir: \"{}\", max_memory_store: 64MB, max_file_store: 8GB }}\n",
                dir.join(format!("js{i}")).display()
            );
            if n > 1 {
                config.push_str(&format!(
                    "cluster {{ name: failover, listen: 127.0.0.1:{route}, routes: [{}] }}\n",
                    routes.join(", ")
                ));
            }
            let path = dir.join(format!("nats{i}.conf"));
            std::fs::write(&path, config).expect("nats config");
            NatsServer {
                config: path,
                monitor,
                child: None,
            }
        })
        .collect();
    for server in &mut servers {
        server.start();
    }
    wait_for(Duration::from_secs(60), || {
        servers.iter().all(NatsServer::healthy)
    })
    .expect("NATS servers healthy within 60 s");
    let url = ports
        .iter()
        .map(|p| format!("nats://127.0.0.1:{}", p.0))
        .collect::<Vec<_>>()
        .join(",");
    (servers, url)
}

/// Three nodes on data directories in `dir`, streams with `replicas`, once one of them
/// leads the graph's writes.
fn start_nodes(dir: &Path, url: &str, replicas: usize) -> Vec<Node> {
    let nodes: Vec<Node> = (0..3)
        .map(|i| Node::start(&dir.join(format!("node{i}")), url, replicas))
        .collect();
    wait_for(Duration::from_secs(30), || leader_of(&nodes).is_some())
        .expect("a write leader within 30 s");
    nodes
}

/// The node that leads the graph's writes, when exactly one running node says it does.
fn leader_of(nodes: &[Node]) -> Option<usize> {
    let leading: Vec<usize> = (0..nodes.len())
        .filter(|&i| nodes[i].child.is_some() && nodes[i].leads())
        .collect();
    (leading.len() == 1).then(|| leading[0])
}

/// Each writer's first acknowledgement after `since` (acknowledgements from `from` on).
fn first_acks(acks: &[Ack], from: usize, since: Instant) -> HashMap<String, Instant> {
    let mut first: HashMap<String, Instant> = HashMap::new();
    for ack in acks[from..].iter().filter(|a| a.at > since) {
        first
            .entry(ack.key.split('-').next().unwrap_or("").to_owned())
            .or_insert(ack.at);
    }
    first
}

/// Waits until every writer has an acknowledgement after `since`; returns how long after
/// `since` the last of them came.
fn every_writer_back(
    acks: &Mutex<Vec<Ack>>,
    from: usize,
    since: Instant,
    writers: usize,
) -> Duration {
    wait_for(Duration::from_secs(60), || {
        first_acks(&acks.lock().expect("acks"), from, since).len() == writers
    })
    .expect("every writer writes again within 60 s");
    first_acks(&acks.lock().expect("acks"), from, since)
        .values()
        .map(|at| *at - since)
        .max()
        .unwrap_or_default()
}

fn main() {
    let scenarios = std::env::var("STRATA_BENCH_FAILOVER").unwrap_or("leader,nats".into());
    let writers = data::env_usize("STRATA_BENCH_WRITERS", 8).max(1);
    if scenarios.split(',').any(|s| s.trim() == "leader") {
        leader_failover(writers);
    }
    if scenarios.split(',').any(|s| s.trim() == "nats") {
        nats_server_loss(writers);
    }
}

/// SIGKILL of the graph's write leader, round after round.
fn leader_failover(writers: usize) {
    let rounds = data::env_usize("STRATA_BENCH_ROUNDS", 20).max(1);
    let lease_ms = data::env_usize("STRATA_CLUSTER_LEASE_MS", 3000);
    println!(
        "# Failover: SIGKILL the write leader of 3 nodes under {writers} writers, {rounds} rounds, lease {lease_ms} ms, {} CPUs; load average at start: {}\n",
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        data::load_average()
    );
    let dir = data::temp_dir();
    let (nats, url) = nats_servers(dir.path(), 1);
    let mut nodes = start_nodes(dir.path(), &url, 1);

    let live = RwLock::new(nodes.iter().map(|n| n.base.clone()).collect::<Vec<_>>());
    let stop = AtomicBool::new(false);
    let acks = Mutex::new(Vec::new());
    let mut takeovers = Vec::new();
    let mut resumes = Vec::new();
    std::thread::scope(|scope| {
        for w in 0..writers {
            let (live, stop, acks) = (&live, &stop, &acks);
            scope.spawn(move || writer(w, live, stop, acks));
        }
        for round in 0..rounds {
            std::thread::sleep(Duration::from_secs(1));
            let leader = wait_for(Duration::from_secs(30), || leader_of(&nodes).is_some())
                .and_then(|_| leader_of(&nodes))
                .expect("a write leader");
            let before = acks.lock().expect("acks").len();
            nodes[leader].kill();
            let killed_at = Instant::now();
            *live.write().expect("live") = (0..nodes.len())
                .filter(|&i| i != leader)
                .map(|i| nodes[i].base.clone())
                .collect();
            let took = wait_for(Duration::from_secs(30), || {
                leader_of(&nodes).is_some_and(|l| l != leader)
            })
            .expect("a survivor leads within 30 s");
            // Every writer acknowledged again (its first answer after the kill).
            let resumed = every_writer_back(&acks, before, killed_at, writers);
            println!(
                "round {:>2}: node {leader} killed; a survivor leads after {:.2} s, every writer acknowledged again after {:.2} s",
                round + 1,
                took.as_secs_f64(),
                resumed.as_secs_f64()
            );
            takeovers.push(took);
            resumes.push(resumed);
            // The killed node comes back on its data and catches up.
            let data = nodes[leader].data.clone();
            nodes[leader] = Node::start(&data, &url, 1);
            live.write().expect("live").push(nodes[leader].base.clone());
        }
        stop.store(true, Ordering::Relaxed);
    });

    println!();
    let mut header = vec!["SIGKILL of the write leader".to_owned()];
    header.extend(["min s", "p50 s", "p90 s", "max s"].map(str::to_owned));
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut takeover_row = vec![format!("a survivor leads ({rounds} rounds)")];
    takeover_row.extend(distribution(takeovers));
    let mut resume_row = vec!["every writer acknowledged again".to_owned()];
    resume_row.extend(distribution(resumes));
    print_table(&header, &[takeover_row, resume_row]);
    println!();
    check_nodes(&mut nodes, acks.into_inner().expect("acks"));
    drop(nats);
    println!("\nLoad average at end: {}", data::load_average());
}

/// SIGKILL of one NATS server of three (in turn), round after round.
fn nats_server_loss(writers: usize) {
    let rounds = data::env_usize("STRATA_BENCH_NATS_ROUNDS", 6).max(1);
    println!(
        "\n# Failover: SIGKILL one NATS server of 3 (streams with 3 replicas) under {writers} writers over 3 nodes, {rounds} rounds, {} CPUs; load average at start: {}\n",
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        data::load_average()
    );
    let dir = data::temp_dir();
    let (mut nats, url) = nats_servers(dir.path(), 3);
    let mut nodes = start_nodes(dir.path(), &url, 3);

    let live = RwLock::new(nodes.iter().map(|n| n.base.clone()).collect::<Vec<_>>());
    let stop = AtomicBool::new(false);
    let acks = Mutex::new(Vec::new());
    let mut resumes = Vec::new();
    let mut pauses = Vec::new();
    let mut rejoins = Vec::new();
    std::thread::scope(|scope| {
        for w in 0..writers {
            let (live, stop, acks) = (&live, &stop, &acks);
            scope.spawn(move || writer(w, live, stop, acks));
        }
        for round in 0..rounds {
            std::thread::sleep(Duration::from_secs(1));
            let victim = round % nats.len();
            let before = acks.lock().expect("acks").len();
            nats[victim].kill();
            let killed_at = Instant::now();
            let resumed = every_writer_back(&acks, before, killed_at, writers);
            // Let the writes run on two servers, then measure the longest pause.
            std::thread::sleep(Duration::from_secs(2));
            let pause = {
                let acks = acks.lock().expect("acks");
                let mut times: Vec<Instant> = acks[before..].iter().map(|a| a.at).collect();
                times.sort();
                let mut last = killed_at;
                let mut longest = Duration::ZERO;
                for at in times.into_iter().filter(|at| *at > killed_at) {
                    longest = longest.max(at - last);
                    last = at;
                }
                longest
            };
            nats[victim].start();
            let rejoined = wait_for(Duration::from_secs(60), || nats[victim].healthy())
                .expect("the NATS server healthy again within 60 s");
            println!(
                "round {:>2}: NATS server {victim} killed; every writer acknowledged again after {:.2} s, longest pause {:.2} s; back and current {:.2} s after its restart",
                round + 1,
                resumed.as_secs_f64(),
                pause.as_secs_f64(),
                rejoined.as_secs_f64()
            );
            resumes.push(resumed);
            pauses.push(pause);
            rejoins.push(rejoined);
        }
        stop.store(true, Ordering::Relaxed);
    });

    println!();
    let mut header = vec!["SIGKILL of one NATS server of 3".to_owned()];
    header.extend(["min s", "p50 s", "p90 s", "max s"].map(str::to_owned));
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut resume_row = vec![format!("every writer acknowledged again ({rounds} rounds)")];
    resume_row.extend(distribution(resumes));
    let mut pause_row = vec!["longest pause between acknowledgements".to_owned()];
    pause_row.extend(distribution(pauses));
    let mut rejoin_row = vec!["the server current again after its restart".to_owned()];
    rejoin_row.extend(distribution(rejoins));
    print_table(&header, &[resume_row, pause_row, rejoin_row]);
    println!();
    check_nodes(&mut nodes, acks.into_inner().expect("acks"));
    drop(nats);
    println!("\nLoad average at end: {}", data::load_average());
}

/// Every node at the last acknowledged commit, then the checks: nothing acknowledged
/// lost on any node, no commit number acknowledged twice, heads equal, logs identical,
/// `strata verify` passing (the nodes are stopped).
fn check_nodes(nodes: &mut [Node], acks: Vec<Ack>) {
    let last = acks.iter().map(|a| a.commit_seq).max().unwrap_or(0);
    wait_for(Duration::from_secs(60), || {
        nodes.iter().all(|n| n.head().is_some_and(|h| h >= last))
    })
    .expect("every node at the last acknowledged commit");
    let mut by_seq: BTreeMap<u64, &str> = BTreeMap::new();
    let mut reused = 0usize;
    for ack in &acks {
        if let Some(other) = by_seq.insert(ack.commit_seq, &ack.key)
            && other != ack.key
        {
            reused += 1;
        }
    }
    let query = strata::model::percent_encode("SELECT ?s WHERE { ?s <http://e/p> ?o }");
    let mut lost = Vec::new();
    for node in nodes.iter() {
        let mut response = agent()
            .get(format!("{}/graphs/main/sparql?query={query}", node.base))
            .header("accept", "application/sparql-results+json")
            .call()
            .expect("subjects");
        let body: Value =
            // Every acknowledged subject: past ureq's default 10 MiB at ~100k writes.
            serde_json::from_str(
                &response
                    .body_mut()
                    .with_config()
                    .limit(1 << 32)
                    .read_to_string()
                    .expect("body"),
            )
                .expect("json");
        let subjects: HashSet<&str> = body["results"]["bindings"]
            .as_array()
            .expect("bindings")
            .iter()
            .filter_map(|b| b["s"]["value"].as_str())
            .collect();
        lost.push(
            acks.iter()
                .filter(|a| !subjects.contains(format!("http://e/fo/{}", a.key).as_str()))
                .count(),
        );
    }
    let heads: Vec<u64> = nodes.iter().filter_map(Node::head).collect();
    for node in nodes.iter_mut() {
        node.stop();
    }
    let logs: Vec<Vec<u8>> = nodes
        .iter()
        .map(|n| std::fs::read(n.data.join("graphs/main/commits.log")).expect("log"))
        .collect();
    let logs_identical = logs.windows(2).all(|w| w[0] == w[1]);
    let verified: Vec<bool> = nodes
        .iter()
        .map(|n| {
            Command::new(env!("CARGO_BIN_EXE_strata"))
                .arg("verify")
                .env("STRATA_DATA", &n.data)
                .env_remove("STRATA_LOG")
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .collect();
    print_table(
        &[
            "acknowledged writes",
            "lost (per node)",
            "commit numbers reused",
            "heads",
            "logs identical",
            "strata verify",
        ],
        &[vec![
            data::thousands(acks.len() as u64),
            format!("{lost:?}"),
            reused.to_string(),
            format!("{heads:?}"),
            logs_identical.to_string(),
            if verified.iter().all(|v| *v) {
                "passed on every node".into()
            } else {
                format!("{verified:?}")
            },
        ]],
    );
}
