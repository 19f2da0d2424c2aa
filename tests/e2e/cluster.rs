//! Strata nodes agreeing on commits through a real NATS JetStream cluster (three
//! `nats-server` processes, streams with three replicas), started here. `.ci/run`
//! installs `nats-server` from Debian; without it these tests fail, they never skip.

use std::collections::BTreeSet;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::util::{Server, Strata, agent};

/// One `nats-server` of the cluster.
struct Nats {
    child: Option<Child>,
    config: PathBuf,
    client_port: u16,
    monitor_port: u16,
}

impl Nats {
    fn start(&mut self) {
        let log = std::fs::File::create(self.config.with_extension("log")).expect("nats log");
        self.child = Some(
            Command::new(nats_server())
                .arg("-c")
                .arg(&self.config)
                .stdout(Stdio::null())
                .stderr(log)
                .spawn()
                .expect("start nats-server"),
        );
    }

    fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.client_port)
    }

    /// JetStream on this server is current (its meta group has a leader).
    fn healthy(&self) -> bool {
        agent()
            .get(format!("http://127.0.0.1:{}/healthz", self.monitor_port))
            .call()
            .ok()
            .is_some_and(|r| r.status() == 200)
    }
}

impl Drop for Nats {
    fn drop(&mut self) {
        self.stop();
    }
}

fn nats_server() -> PathBuf {
    for dir in ["/usr/sbin", "/usr/bin", "/usr/local/bin"] {
        let path = Path::new(dir).join("nats-server");
        if path.exists() {
            return path;
        }
    }
    panic!("nats-server is not installed: `apt-get install nats-server` (.ci/run does)");
}

/// A loopback port nobody listens on, below the kernel's ephemeral range: a port the
/// kernel handed out for `bind(0)` can be handed out again as the source port of any of
/// the many client connections the other tests open before `nats-server` binds it.
fn free_port() -> u16 {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let lowest_ephemeral = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|r| r.split_whitespace().next()?.parse::<u64>().ok())
        .unwrap_or(32768);
    let (low, high) = (10_000u64, lowest_ephemeral.max(12_000));
    let seed = u64::from(std::process::id()).wrapping_mul(2_654_435_761)
        ^ std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos().into());
    loop {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let port = low + (seed.wrapping_add(n.wrapping_mul(7_919))) % (high - low);
        let port = u16::try_from(port).expect("a port number");
        if TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
    }
}

/// The servers' own logs, for a failure message.
fn logs(servers: &[Nats]) -> String {
    servers
        .iter()
        .map(|s| {
            let log = std::fs::read_to_string(s.config.with_extension("log")).unwrap_or_default();
            let tail: Vec<&str> = log.lines().rev().take(15).collect();
            let tail: Vec<&str> = tail.into_iter().rev().collect();
            format!("--- {}:\n{}", s.config.display(), tail.join("\n"))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Starts `servers` and waits until each answers healthy; false (servers stopped) if one
/// exits or they are not ready within `limit`.
fn start_all(servers: &mut [Nats], limit: Duration) -> bool {
    for server in servers.iter_mut() {
        server.start();
    }
    let started = Instant::now();
    loop {
        let exited = servers.iter_mut().any(|s| {
            s.child
                .as_mut()
                .is_none_or(|c| c.try_wait().ok().flatten().is_some())
        });
        if exited || started.elapsed() > limit {
            servers.iter_mut().for_each(Nats::stop);
            return false;
        }
        if servers.iter().all(Nats::healthy) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Three JetStream servers in one cluster, running, with JetStream ready. A server that
/// cannot start (a port taken meanwhile) means a new try on other ports.
fn nats_cluster(dir: &Path) -> Vec<Nats> {
    let mut failures = String::new();
    for attempt in 0..3 {
        let mut servers = cluster_servers(&dir.join(format!("try{attempt}")));
        if start_all(&mut servers, Duration::from_secs(60)) {
            return servers;
        }
        failures.push_str(&logs(&servers));
    }
    panic!("the JetStream cluster did not become ready in 3 tries:\n{failures}");
}

/// Configurations of three servers routed to each other, on fresh ports.
fn cluster_servers(dir: &Path) -> Vec<Nats> {
    std::fs::create_dir_all(dir).expect("nats dir");
    let ports: Vec<(u16, u16, u16)> = (0..3)
        .map(|_| (free_port(), free_port(), free_port()))
        .collect();
    ports
        .iter()
        .enumerate()
        .map(|(i, &(client, route, monitor))| {
            let routes: Vec<String> = ports
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .map(|(_, p)| format!("nats-route://127.0.0.1:{}", p.1))
                .collect();
            let store = dir.join(format!("js{i}"));
            let config = dir.join(format!("nats{i}.conf"));
            std::fs::write(
                &config,
                format!(
                    "server_name: n{i}\nlisten: 127.0.0.1:{client}\nhttp: 127.0.0.1:{monitor}\n\
                     jetstream {{ store_dir: \"{}\", max_memory_store: 64MB, max_file_store: 2GB }}\n\
                     cluster {{ name: strata, listen: 127.0.0.1:{route}, routes: [{}] }}\n",
                    store.display(),
                    routes.join(", ")
                ),
            )
            .expect("nats config");
            Nats {
                child: None,
                config,
                client_port: client,
                monitor_port: monitor,
            }
        })
        .collect()
}

/// One JetStream server on its own (streams with one replica).
fn nats_single(dir: &Path) -> Nats {
    let mut failures = String::new();
    for attempt in 0..3 {
        let (client, monitor) = (free_port(), free_port());
        let config = dir.join(format!("nats{attempt}.conf"));
        std::fs::write(
            &config,
            format!(
                "server_name: solo\nlisten: 127.0.0.1:{client}\nhttp: 127.0.0.1:{monitor}\n\
                 jetstream {{ store_dir: \"{}\", max_memory_store: 64MB, max_file_store: 2GB }}\n",
                dir.join(format!("js{attempt}")).display()
            ),
        )
        .expect("nats config");
        let mut server = [Nats {
            child: None,
            config,
            client_port: client,
            monitor_port: monitor,
        }];
        if start_all(&mut server, Duration::from_secs(30)) {
            let [server] = server;
            return server;
        }
        failures.push_str(&logs(&server));
    }
    panic!("JetStream did not become ready in 3 tries:\n{failures}");
}

/// A gauge of a node's `/metrics` for graph `main`.
fn gauge(node: &Server, name: &str) -> u64 {
    let prefix = format!("{name}{{graph=\"main\"}} ");
    metrics(node)
        .lines()
        .find_map(|line| line.strip_prefix(&prefix).map(str::to_owned))
        .unwrap_or_else(|| panic!("no {name} in /metrics"))
        .parse()
        .unwrap()
}

fn urls(servers: &[Nats]) -> String {
    servers.iter().map(Nats::url).collect::<Vec<_>>().join(",")
}

#[track_caller]
/// Whether `done` came true within `limit` (asked every 100 ms).
fn wait_for(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let started = Instant::now();
    while !done() {
        if started.elapsed() >= limit {
            return false;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    true
}

/// Prints a node's health, cluster metrics and threads' stacks (with gdb, when there).
fn describe_stuck(node: &Server) {
    // A stuck node may not answer at all: each read has a short limit, and a failure is
    // reported, not unwrapped, so the stacks below are still printed.
    let read = |path: &str| -> Result<String, String> {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(5)))
            .build()
            .into();
        let mut response = agent
            .get(node.url(path))
            .call()
            .map_err(|e| e.to_string())?;
        response
            .body_mut()
            .read_to_string()
            .map_err(|e| e.to_string())
    };
    match read("/healthz") {
        Ok(body) => eprintln!("healthz: {body}"),
        Err(error) => eprintln!("healthz did not answer: {error}"),
    }
    match read("/metrics") {
        Ok(text) => {
            for line in text.lines() {
                if line.starts_with("strata_cluster") || line.starts_with("strata_store") {
                    eprintln!("{line}");
                }
            }
        }
        Err(error) => eprintln!("metrics did not answer: {error}"),
    }
    let stacks = std::process::Command::new("gdb")
        .args(["-p", &node.child.id().to_string(), "-batch", "-ex"])
        .arg("thread apply all bt 30")
        .output();
    match stacks {
        Ok(out) => eprintln!("{}", String::from_utf8_lossy(&out.stdout)),
        Err(error) => eprintln!("no stacks (gdb: {error})"),
    }
}

fn wait_until(limit: Duration, what: &str, mut done: impl FnMut() -> bool) {
    let started = Instant::now();
    while !done() {
        assert!(started.elapsed() < limit, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A Strata node of the cluster, on its own data directory.
fn node(strata: &Strata, nats: &str) -> Server {
    strata.serve(&["--log", nats, "--replicas", "3"])
}

/// An update through a node: (status, body).
fn update(node: &Server, text: &str, key: Option<&str>) -> (u16, Value) {
    update_at(&node.base, text, key)
}

/// An update through the node at `base`; status 0 when it does not answer.
fn update_at(base: &str, text: &str, key: Option<&str>) -> (u16, Value) {
    let mut request = agent()
        .post(format!("{base}/graphs/main/update"))
        .header("content-type", "application/sparql-update");
    if let Some(key) = key {
        request = request.header("idempotency-key", key);
    }
    match request.send(text) {
        Ok(mut response) => {
            let status = response.status().as_u16();
            let body = response.body_mut().read_to_string().unwrap_or_default();
            (status, serde_json::from_str(&body).unwrap_or(Value::Null))
        }
        Err(_) => (0, Value::Null),
    }
}

/// A JSON query through `POST /graphs/main/query` (the MCP `query` contract).
fn json_query(node: &Server, body: &Value) -> Value {
    let mut response = agent()
        .post(node.url("/graphs/main/query"))
        .header("content-type", "application/json")
        .send(body.to_string())
        .unwrap();
    let text = response.body_mut().read_to_string().unwrap();
    serde_json::from_str(&text).unwrap_or_else(|_| panic!("{text}"))
}

/// A node's `/healthz` answer.
fn health(node: &Server) -> Value {
    let mut response = agent().get(node.url("/healthz")).call().unwrap();
    serde_json::from_str(&response.body_mut().read_to_string().unwrap()).unwrap()
}

/// A node's `/metrics` text.
fn metrics(node: &Server) -> String {
    agent()
        .get(node.url("/metrics"))
        .call()
        .unwrap()
        .body_mut()
        .read_to_string()
        .unwrap()
}

/// A node's head commit (from a head read).
fn head(node: &Server) -> u64 {
    let response = agent()
        .get(node.url("/graphs/main/sparql?query=ASK%7B%7D"))
        .header("accept", "application/sparql-results+json")
        .call()
        .expect("head read");
    response.headers()["strata-commit"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap()
}

/// Every subject of the graph at commit `seq`, as a node answers.
fn subjects_at(node: &Server, seq: u64) -> Vec<String> {
    let query = crate::util::percent_encode("SELECT ?s WHERE { ?s ?p ?o } ORDER BY ?s");
    let mut response = agent()
        .get(node.url(&format!("/graphs/main/sparql?query={query}&as_of={seq}")))
        .header("accept", "text/csv")
        .call()
        .expect("pinned read");
    assert_eq!(response.status(), 200);
    response
        .body_mut()
        .read_to_string()
        .unwrap()
        .lines()
        .skip(1)
        .map(str::to_owned)
        .collect()
}

/// Writes `count` inserts with idempotency keys through `nodes` (round robin), retrying
/// each until a node acknowledges it, as a client of a cluster does. Returns the commit
/// numbers acknowledged.
fn write_all(nodes: &[&str], prefix: &str, count: usize, retries: usize) -> Vec<u64> {
    let mut acknowledged = Vec::new();
    for i in 0..count {
        let text = format!("INSERT DATA {{ <http://e/{prefix}{i}> <http://e/p> {i} }}");
        let key = format!("{prefix}-{i}");
        let mut tries = 0;
        loop {
            let target = nodes[(i + tries) % nodes.len()];
            let (status, body) = update_at(target, &text, Some(&key));
            if status == 200 {
                acknowledged.push(body["commit_seq"].as_u64().expect("commit_seq"));
                break;
            }
            tries += 1;
            assert!(
                tries <= retries,
                "write {key} refused {tries} times; last: {status} {body}"
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }
    acknowledged
}

#[test]
fn nodes_agree_on_one_history_and_idempotent_retries_cross_nodes() {
    let dir = tempfile::tempdir().unwrap();
    let nats = nats_cluster(dir.path());
    let urls = urls(&nats);
    let stratas: Vec<Strata> = (0..3).map(|_| Strata::new()).collect();
    let nodes: Vec<Server> = stratas.iter().map(|s| node(s, &urls)).collect();

    // Concurrent writers spread over every node: each commit lands once, numbered once.
    let next = AtomicU64::new(0);
    let acknowledged: Vec<u64> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..6)
            .map(|w| {
                let nodes = &nodes;
                let next = &next;
                scope.spawn(move || {
                    let mut mine = Vec::new();
                    for i in 0..8 {
                        let n = next.fetch_add(1, Ordering::Relaxed);
                        let text =
                            format!("INSERT DATA {{ <http://e/w{w}-{i}> <http://e/p> {n} }}");
                        let (status, body) = update(&nodes[(w + i) % 3], &text, None);
                        assert_eq!(status, 200, "{body}");
                        mine.push(body["commit_seq"].as_u64().unwrap());
                    }
                    mine
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect()
    });
    let distinct: BTreeSet<u64> = acknowledged.iter().copied().collect();
    assert_eq!(
        distinct.len(),
        48,
        "no commit number is reused: {acknowledged:?}"
    );
    assert_eq!(distinct, (1..=48).collect(), "commits are numbered 1..48");

    // Every node reaches the same head and answers pinned reads the same.
    for node in &nodes {
        wait_until(
            Duration::from_secs(20),
            "every node to apply 48 commits",
            || head(node) == 48,
        );
    }
    let answers: Vec<Vec<String>> = nodes.iter().map(|n| subjects_at(n, 30)).collect();
    assert_eq!(answers[0].len(), 30);
    assert!(
        answers.iter().all(|a| *a == answers[0]),
        "pinned reads differ"
    );

    // Read-your-writes: a read through another node waits for the commit it names.
    let (status, written) = update(
        &nodes[0],
        "INSERT DATA { <http://e/mine> <http://e/p> 1 }",
        None,
    );
    assert_eq!(status, 200, "{written}");
    let seq = written["commit_seq"].as_u64().unwrap();
    let query = crate::util::percent_encode("ASK { <http://e/mine> ?p ?o }");
    let response = agent()
        .get(nodes[1].url(&format!("/graphs/main/sparql?query={query}")))
        .header("accept", "application/sparql-results+json")
        .header("strata-min-commit", &seq.to_string())
        .call()
        .unwrap();
    let served: u64 = response.headers()["strata-commit"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(served >= seq, "served at {served}, asked for {seq}");
    let mut response = agent()
        .get(nodes[1].url(&format!("/graphs/main/sparql?query={query}")))
        .header("strata-min-commit", "100000")
        .call()
        .unwrap();
    assert_eq!(response.status(), 503);
    let body: Value = serde_json::from_str(&response.body_mut().read_to_string().unwrap()).unwrap();
    assert_eq!(body["error"]["code"], "not_caught_up", "{body}");
    assert_eq!(body["error"]["param"], "Strata-Min-Commit", "{body}");

    // The same over MCP: `query` and `inspect` take `min_commit_seq`.
    let (status, written) = update(
        &nodes[0],
        "INSERT DATA { <http://e/mine2> <http://e/p> 2 }",
        None,
    );
    assert_eq!(status, 200, "{written}");
    let seq = written["commit_seq"].as_u64().unwrap();
    let mcp = crate::util::Mcp::open(&nodes[2], "");
    let asked = mcp.call(
        "query",
        serde_json::json!({"mode": "sparql", "sparql": "ASK { <http://e/mine2> ?p ?o }", "min_commit_seq": seq}),
    );
    assert_eq!(asked["isError"], false, "{asked}");
    assert!(
        asked["structuredContent"]["served_at_seq"]
            .as_u64()
            .unwrap()
            >= seq,
        "{asked}"
    );
    let log = mcp.call(
        "inspect",
        serde_json::json!({"action": "log", "min_commit_seq": seq}),
    );
    assert_eq!(log["isError"], false, "{log}");
    assert!(
        log["structuredContent"]["served_at_seq"].as_u64().unwrap() >= seq,
        "{log}"
    );
    let ahead = mcp.call(
        "inspect",
        serde_json::json!({"action": "entity", "iri": "http://e/mine2", "min_commit_seq": 100_000}),
    );
    assert_eq!(ahead["isError"], true, "{ahead}");
    let error = &ahead["structuredContent"]["error"];
    assert_eq!(error["code"], "not_caught_up", "{ahead}");
    assert_eq!(error["param"], "min_commit_seq", "{ahead}");

    // A cursor made on one node pages on another (one cursor key for the cluster).
    let first_page = json_query(
        &nodes[0],
        &serde_json::json!({"mode": "sparql", "sparql": "SELECT ?s WHERE { ?s ?p ?o } ORDER BY ?s", "row_limit": 10, "as_of_commit_seq": 30}),
    );
    let next = first_page["next"].clone();
    assert!(next.is_object(), "{first_page}");
    let second_page = json_query(&nodes[2], &next);
    assert_eq!(second_page["served_at_seq"], 30, "{second_page}");
    assert_eq!(second_page["data"]["rows"].as_array().unwrap().len(), 10);
    assert_ne!(second_page["data"]["rows"], first_page["data"]["rows"]);

    // An idempotent retry through another node returns the first commit.
    let text = "INSERT DATA { <http://e/once> <http://e/p> 1 }";
    let (status, first) = update(&nodes[0], text, Some("retry-1"));
    assert_eq!(status, 200, "{first}");
    let (status, again) = update(&nodes[2], text, Some("retry-1"));
    assert_eq!(status, 200, "{again}");
    assert_eq!(again["commit_seq"], first["commit_seq"], "{again}");
    assert_eq!(again["idempotent_replay"], true, "{again}");
    let (status, other) = update(
        &nodes[1],
        "INSERT DATA { <http://e/other> <http://e/p> 1 }",
        Some("retry-1"),
    );
    assert_eq!(status, 409, "the key names another request: {other}");

    // Stopped, every node's log verifies as the same chain, byte for byte.
    for node in nodes {
        assert!(node.stop().success());
    }
    let logs: Vec<Vec<u8>> = stratas
        .iter()
        .map(|s| std::fs::read(s.log_path("main")).unwrap())
        .collect();
    assert!(logs.iter().all(|l| *l == logs[0]), "the nodes' logs differ");
    for strata in &stratas {
        let verified = strata.run(&["verify"]);
        assert!(
            verified.ok().contains("51 commits verified"),
            "{}",
            verified.stdout
        );
    }
}

#[test]
fn a_killed_node_catches_up_and_writes_survive_losing_one_nats_server_of_three() {
    let dir = tempfile::tempdir().unwrap();
    let mut nats = nats_cluster(dir.path());
    let urls = urls(&nats);
    let stratas: Vec<Strata> = (0..3).map(|_| Strata::new()).collect();
    let survivors: Vec<Server> = stratas[..2].iter().map(|s| node(s, &urls)).collect();
    let mut victim = Some(node(&stratas[2], &urls));

    // SIGKILL a node in the middle of writes through every node (itself included): the
    // client retries what the dead node did not answer on the next one, with the same
    // idempotency key; nothing acknowledged is lost, and the node rejoins and catches up.
    let bases: Vec<String> = survivors
        .iter()
        .chain(victim.iter())
        .map(|n| n.base.clone())
        .collect();
    let mut acknowledged = std::thread::scope(|scope| {
        let through: Vec<&str> = bases.iter().map(String::as_str).collect();
        let writes = scope.spawn(move || write_all(&through, "a", 30, 20));
        std::thread::sleep(Duration::from_millis(300));
        victim.take(); // dropped: SIGKILL
        writes.join().unwrap()
    });
    let rejoined = node(&stratas[2], &urls);
    let total = acknowledged.len() as u64;
    let live: Vec<&Server> = survivors.iter().chain([&rejoined]).collect();
    for node in &live {
        wait_until(
            Duration::from_secs(20),
            "the nodes to apply every write",
            || head(node) == total,
        );
    }
    assert_eq!(subjects_at(&rejoined, total), subjects_at(live[0], total));

    // One NATS server of three stops during writes: writes go on (a client retries the
    // few refused while the stream elects a new leader).
    std::thread::scope(|scope| {
        let through: Vec<&str> = live.iter().map(|n| n.base.as_str()).collect();
        let writes = scope.spawn(move || write_all(&through, "b", 20, 60));
        std::thread::sleep(Duration::from_millis(300));
        nats[0].stop();
        acknowledged.extend(writes.join().unwrap());
    });
    let distinct: BTreeSet<u64> = acknowledged.iter().copied().collect();
    assert_eq!(
        distinct.len(),
        acknowledged.len(),
        "a commit number was reused"
    );

    // Two of three stopped: no quorum. Writes are refused with a coded error, reads of
    // what each node applied are still served.
    let newest = *acknowledged.iter().max().unwrap();
    for node in &live {
        wait_until(
            Duration::from_secs(20),
            "the nodes to apply every write",
            || head(node) == newest,
        );
    }
    nats[1].stop();
    let head_before = head(live[0]);
    assert_eq!(head_before, newest);
    let started = Instant::now();
    let (status, body) = update(
        live[0],
        "INSERT DATA { <http://e/lost> <http://e/p> 1 }",
        None,
    );
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["error"]["code"], "log_unavailable", "{body}");
    assert!(
        started.elapsed() < Duration::from_secs(40),
        "refused in bounded time"
    );
    assert_eq!(
        head(live[0]),
        head_before,
        "reads still answer at the applied head"
    );
    assert_eq!(subjects_at(live[0], head_before).len() as u64, head_before);
    // A node learns it lost the stream from its requests timing out (a refused write, its
    // follower's polls).
    wait_until(Duration::from_secs(40), "/healthz to say degraded", || {
        health(live[0])["status"] == "degraded"
    });
    assert!(metrics(live[0]).contains("strata_shared_log_reachable{graph=\"main\"} 0"));

    // The servers return: writes work again, on every node.
    nats[0].start();
    nats[1].start();
    let through: Vec<&str> = live.iter().map(|n| n.base.as_str()).collect();
    let after = write_all(&through, "c", 3, 150);
    assert!(after.iter().all(|&seq| seq > head_before), "{after:?}");
    let newest = *after.iter().max().unwrap();
    for node in &live {
        wait_until(Duration::from_secs(40), "every node to recover", || {
            head(node) == newest && health(node)["status"] == "ok"
        });
    }
    let text = metrics(live[2]);
    assert!(
        text.contains("strata_shared_log_lag{graph=\"main\"} 0"),
        "{text}"
    );
    assert!(text.contains("strata_cluster_connected 1"), "{text}");
}

#[test]
fn a_new_node_starts_from_published_store_files_or_from_the_log_alone() {
    let dir = tempfile::tempdir().unwrap();
    let nats = nats_single(dir.path());
    let url = nats.url();

    // A node with no store files published yet: a new node replays the stream.
    let first = Strata::new();
    let writer = first.serve_with_env(
        &["serve", "--http", "127.0.0.1:0", "--no-demo", "--log", &url],
        &[("STRATA_FLUSH_EVERY_QUADS", "5000")],
    );
    let (status, body) = update(
        &writer,
        "INSERT DATA { <http://e/early> <http://e/p> 1 }",
        None,
    );
    assert_eq!(status, 200, "{body}");
    let from_log = Strata::new();
    let replayed = node_with(&from_log, &url);
    wait_until(
        Duration::from_secs(20),
        "the new node to replay the stream",
        || head(&replayed) == 1,
    );
    assert_eq!(
        gauge(&replayed, "strata_store_files_seq"),
        0,
        "nothing to start from"
    );
    drop(replayed);

    // A large commit makes the writer flush its store and publish the files.
    let mut data = String::from("INSERT DATA {\n");
    for i in 0..20_000 {
        data.push_str(&format!("<http://e/s{i}> <http://e/p> \"value {i}\" .\n"));
    }
    data.push('}');
    let (status, body) = update(&writer, &data, None);
    assert_eq!(status, 200, "{body}");
    wait_until(
        Duration::from_secs(60),
        "the writer to publish its store files",
        || gauge(&writer, "strata_store_files_published_seq") == 2,
    );
    let (status, body) = update(
        &writer,
        "INSERT DATA { <http://e/late> <http://e/p> 1 }",
        None,
    );
    assert_eq!(status, 200, "{body}");

    // A new node starts from those files (commit 2) and replays only commit 3.
    let fresh = Strata::new();
    let started = node_with(&fresh, &url);
    wait_until(Duration::from_secs(20), "the new node to catch up", || {
        head(&started) == 3
    });
    assert_eq!(
        gauge(&started, "strata_store_files_seq"),
        2,
        "started from the files"
    );
    assert_eq!(subjects_at(&started, 3), subjects_at(&writer, 3));
    assert_eq!(subjects_at(&started, 3).len(), 20_002);
    drop(started);
    let verified = fresh.run(&["verify"]);
    assert!(
        verified.ok().contains("3 commits verified"),
        "{}",
        verified.stdout
    );

    // More flushes compact the writer's files: what it published before and no manifest
    // names any more is removed from the object store (files stay one publication
    // longer, for a node still downloading them).
    let node_id = std::fs::read_to_string(first.data_dir().join("node.id")).unwrap();
    let store_dir = first.data_dir().join("graphs/main/store");
    let mut published = vec![manifest_files(&store_dir)];
    for round in 0..3 {
        let mut data = String::from("INSERT DATA {\n");
        for i in 0..20_000 {
            data.push_str(&format!("<http://e/r{round}-{i}> <http://e/p> {i} .\n"));
        }
        data.push('}');
        let (status, body) = update(&writer, &data, None);
        assert_eq!(status, 200, "{body}");
        let seq = body["commit_seq"].as_u64().unwrap();
        wait_until(
            Duration::from_secs(60),
            "the writer to publish again",
            || gauge(&writer, "strata_store_files_published_seq") == seq,
        );
        published.push(manifest_files(&store_dir));
    }
    let objects = published_objects(&url, "main");
    let newest: BTreeSet<String> = published[published.len() - 2..]
        .iter()
        .flatten()
        .map(|name| format!("{node_id}/{name}"))
        .chain([format!("{node_id}/MANIFEST"), "latest".to_owned()])
        .collect();
    let replaced: Vec<String> = published[0]
        .iter()
        .map(|name| format!("{node_id}/{name}"))
        .filter(|name| !newest.contains(name))
        .collect();
    assert!(
        !replaced.is_empty(),
        "compaction replaced the first files: {published:?}"
    );
    assert_eq!(
        objects, newest,
        "only the last two publications' files are kept"
    );
    // A node starting now still gets a whole, consistent graph.
    let later = Strata::new();
    let joined = node_with(&later, &url);
    let head_now = head(&writer);
    wait_until(
        Duration::from_secs(30),
        "the newest node to catch up",
        || head(&joined) == head_now,
    );
    assert_eq!(
        subjects_at(&joined, head_now),
        subjects_at(&writer, head_now)
    );

    // While that node is down: a commit too large for one NATS message (its body goes to
    // the object store) and a few small ones; back up, it reads them as one range.
    assert!(joined.stop().success());
    let mut big = String::from("INSERT DATA {\n");
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    for i in 0..100_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let noise = format!("{x:016x}{:016x}", x.rotate_left(29));
        big.push_str(&format!("<http://e/big{i}> <http://e/p> \"{noise}\" .\n"));
    }
    big.push('}');
    let (status, body) = update(&writer, &big, None);
    assert_eq!(status, 200, "{body}");
    for i in 0..4 {
        let text = format!("INSERT DATA {{ <http://e/after-big{i}> <http://e/p> {i} }}");
        let (status, body) = update(&writer, &text, None);
        assert_eq!(status, 200, "{body}");
    }
    let objects = published_objects_in(&url, "STRATA_BODIES_main");
    assert_eq!(objects.len(), 1, "the large body is an object: {objects:?}");
    let joined = node_with(&later, &url);
    let head_now = head(&writer);
    wait_until(Duration::from_secs(60), "the node to catch up", || {
        head(&joined) == head_now
    });
    assert_eq!(
        subjects_at(&joined, head_now),
        subjects_at(&writer, head_now)
    );
    drop(joined);
    assert!(
        later
            .run(&["verify"])
            .ok()
            .contains(&format!("{head_now} commits verified")),
        "the caught-up log verifies"
    );

    // With the cluster gone, a node asked to stop stops at once: publishing its files
    // (derived data) waits for the next flush instead of for the cluster's timeouts.
    let (status, body) = update(
        &writer,
        "INSERT DATA { <http://e/last> <http://e/p> 1 }",
        None,
    );
    assert_eq!(status, 200, "{body}");
    drop(nats);
    wait_until(
        Duration::from_secs(10),
        "the writer to see NATS gone",
        || metrics(&writer).contains("strata_cluster_connected 0"),
    );
    let stopping = Instant::now();
    assert!(writer.stop().success());
    assert!(
        stopping.elapsed() < Duration::from_secs(6),
        "stopping took {:?}",
        stopping.elapsed()
    );
}

/// The store files a node's manifest names.
fn manifest_files(store_dir: &Path) -> BTreeSet<String> {
    std::fs::read_to_string(store_dir.join("MANIFEST"))
        .expect("the writer's manifest")
        .lines()
        .filter_map(
            |line| match line.split_whitespace().collect::<Vec<_>>()[..] {
                ["dict" | "segment", name, ..] => Some(name.to_owned()),
                _ => None,
            },
        )
        .collect()
}

/// The objects in a graph's published-files bucket, read with a NATS client of our own.
fn published_objects(url: &str, graph: &str) -> BTreeSet<String> {
    published_objects_in(url, &format!("STRATA_FILES_{graph}"))
}

/// The objects in an object store bucket.
fn published_objects_in(url: &str, bucket: &str) -> BTreeSet<String> {
    use tokio_stream::StreamExt;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let client = async_nats::connect(url).await.expect("connect to NATS");
        let store = async_nats::jetstream::new(client)
            .get_object_store(bucket)
            .await
            .expect("the bucket");
        let mut listing = store.list().await.expect("list objects");
        let mut names = BTreeSet::new();
        while let Some(info) = listing.next().await {
            let info = info.expect("an object");
            if !info.deleted {
                names.insert(info.name);
            }
        }
        names
    })
}

/// A node with default settings on its own data directory.
fn node_with(strata: &Strata, url: &str) -> Server {
    strata.serve(&["--log", url])
}

/// Issue 24 in a cluster: a big import through one node (a Graph Store `POST` whose quads
/// pass the import's run size, here 5,000) is one commit whose record goes through the
/// object store; every other node applies it as a store file of its own (its store files
/// hold the commit at once, without a flush), and a new node starts from the files the
/// writer publishes right after it, not by replaying the import.
#[test]
fn a_big_import_through_one_node_becomes_a_store_file_on_every_node() {
    let dir = tempfile::tempdir().unwrap();
    let nats = nats_single(dir.path());
    let url = nats.url();
    let env = [("STRATA_IMPORT_RUN_QUADS", "5000")];
    let args = ["serve", "--http", "127.0.0.1:0", "--no-demo", "--log", &url];
    let (first, second) = (Strata::new(), Strata::new());
    let mut nodes = vec![
        Some(first.serve_with_env(&args, &env)),
        Some(second.serve_with_env(&args, &env)),
    ];
    // The import goes through the node that does not lead: too big to forward, it is
    // appended there, and the leader, whose watcher is paused while it leads, still
    // applies it (its follower's poll finds it).
    let leads = wait_for_leader(&nodes, Duration::from_secs(30));
    let follower = nodes[leads].take().unwrap();
    let writer = nodes[1 - leads].take().unwrap();
    let (status, body) = update(
        &writer,
        "INSERT DATA { <http://e/early> <http://e/p> 1 }",
        None,
    );
    assert_eq!(status, 200, "{body}");
    wait_until(
        Duration::from_secs(20),
        "the follower to apply commit 1",
        || head(&follower) == 1,
    );

    // 60,000 triples whose values hardly compress: the record is larger than a message.
    let mut data = String::new();
    let mut x: u64 = 24;
    for i in 0..60_000 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        data.push_str(&format!(
            "<http://e/s{i}> <http://e/p> \"{x:016x}{:016x}\" .\n",
            x.rotate_left(29)
        ));
    }
    let mut response = agent()
        .post(writer.url("/graphs/main/store?default"))
        .header("content-type", "application/n-triples")
        .send(data.as_str())
        .unwrap();
    let status = response.status().as_u16();
    let body = response.body_mut().read_to_string().unwrap();
    assert!(status == 200 || status == 204, "{status} {body}");
    assert_eq!(head(&writer), 2);
    assert_eq!(
        gauge(&writer, "strata_store_files_seq"),
        2,
        "the writer installed the import as a store file"
    );
    let bodies = published_objects_in(&url, "STRATA_BODIES_main");
    assert!(
        bodies.iter().any(|name| name.starts_with("commit-2-")),
        "the record went through the object store: {bodies:?}"
    );

    let asked = Instant::now();
    let applied = wait_for(Duration::from_secs(60), || head(&follower) == 2);
    if !applied {
        // Seen once under a full parallel suite and not since: say what the follower was
        // doing (its cluster state and every thread's stack) before failing.
        describe_stuck(&follower);
        panic!("timed out waiting for the follower to apply commit 2");
    }
    assert_eq!(write_leader(&follower).map(|l| l.1), Some(true));
    assert!(
        asked.elapsed() < Duration::from_secs(20),
        "the leader found another node's append within its polls: {:?}",
        asked.elapsed()
    );
    assert_eq!(
        gauge(&follower, "strata_store_files_seq"),
        2,
        "the follower applied the import as a store file, not in memory"
    );
    assert_eq!(subjects_at(&follower, 2), subjects_at(&writer, 2));
    assert_eq!(subjects_at(&follower, 2).len(), 60_001);

    // The writer publishes its files right after the import; a new node starts there.
    wait_until(
        Duration::from_secs(60),
        "the writer to publish its store files",
        || gauge(&writer, "strata_store_files_published_seq") == 2,
    );
    let third = Strata::new();
    let started = third.serve_with_env(&args, &env);
    wait_until(Duration::from_secs(30), "the new node to start", || {
        head(&started) == 2
    });
    assert_eq!(
        gauge(&started, "strata_store_files_seq"),
        2,
        "started from the published files"
    );
    assert_eq!(subjects_at(&started, 2).len(), 60_001);

    // Every node's log and files verify, and a restart finds the same graph.
    drop((writer, follower, started));
    for strata in [&first, &second, &third] {
        let verified = strata.run(&["verify"]);
        assert!(
            verified.ok().contains("2 commits verified"),
            "{}",
            verified.stdout
        );
    }
    let again = second.serve_with_env(&args, &env);
    assert_eq!(head(&again), 2);
    assert_eq!(subjects_at(&again, 2).len(), 60_001);
}

/// The value of the counter `<http://e/c> <http://e/v>` as a node answers.
/// Whether `subject` has a triple on `node`.
fn subject_visible(node: &Server, subject: &str) -> bool {
    ask(node, &format!("ASK {{ <{subject}> ?p ?o }}"))
}

/// A SPARQL `ASK`'s answer on `node`.
fn ask(node: &Server, query: &str) -> bool {
    let query = crate::util::percent_encode(query);
    let mut response = agent()
        .get(node.url(&format!("/graphs/main/sparql?query={query}")))
        .header("accept", "application/sparql-results+json")
        .call()
        .expect("ask");
    let body: serde_json::Value =
        serde_json::from_str(&response.body_mut().read_to_string().unwrap()).unwrap();
    body["boolean"].as_bool().expect("an ASK answer")
}

fn counter(node: &Server) -> u64 {
    let query = crate::util::percent_encode("SELECT ?n WHERE { <http://e/c> <http://e/v> ?n }");
    let mut response = agent()
        .get(node.url(&format!("/graphs/main/sparql?query={query}")))
        .header("accept", "text/csv")
        .call()
        .expect("counter read");
    let text = response.body_mut().read_to_string().unwrap();
    let values: Vec<&str> = text.lines().skip(1).collect();
    assert_eq!(values.len(), 1, "one counter value: {text}");
    values[0].trim().parse().unwrap()
}

/// `writers` threads, each `per_writer` times, increment the counter through the nodes
/// (writer `w` through node `w % nodes`), each increment also naming itself; a refused
/// write (`write_conflict`) is sent again, as a client would. Returns the acknowledged
/// commit numbers.
fn increment(nodes: &[&Server], writers: usize, per_writer: usize, round: usize) -> Vec<u64> {
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..writers)
            .map(|w| {
                let node = nodes[w % nodes.len()];
                scope.spawn(move || {
                    let mut mine = Vec::new();
                    for i in 0..per_writer {
                        let text = format!(
                            "DELETE {{ <http://e/c> <http://e/v> ?o }} \
                             INSERT {{ <http://e/c> <http://e/v> ?n . <http://e/r{round}w{w}i{i}> <http://e/p> ?n }} \
                             WHERE {{ <http://e/c> <http://e/v> ?o BIND(?o + 1 AS ?n) }}"
                        );
                        let mut tries = 0;
                        loop {
                            let (status, body) = update(node, &text, None);
                            if status == 200 {
                                let seq = body["commit_seq"].as_u64().expect("commit_seq");
                                // Read-your-writes on the node asked, whether it learned
                                // the outcome from the leader's reply or from the stream.
                                let marker = format!("http://e/r{round}w{w}i{i}");
                                assert!(
                                    subject_visible(node, &marker),
                                    "commit {seq} acknowledged before it was visible"
                                );
                                mine.push(seq);
                                break;
                            }
                            tries += 1;
                            assert!(
                                status == 409 && body["error"]["code"] == "write_conflict" && tries < 20,
                                "{status} {body}"
                            );
                        }
                    }
                    mine
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect()
    })
}

/// Issue 28, pipelining: a node sends each commit without waiting for the answer about
/// the one before it, and a commit built on one still in flight sees it (the counter each
/// write increments never loses an increment). With two nodes writing, a commit is
/// refused mid-pipeline (the other node's commit took its number): it and the commits
/// built on it are built again on the new head; nothing acknowledged is lost or numbered
/// twice, and the nodes' logs are the same chain.
#[test]
fn pipelined_commits_build_on_each_other_and_a_refused_pipeline_builds_again() {
    let dir = tempfile::tempdir().unwrap();
    let nats = nats_single(dir.path());
    let (a, b) = (Strata::new(), Strata::new());
    // Leases off: both nodes append, so their pipelines race.
    let optimistic = |strata: &Strata| {
        strata.serve_with_env(
            &[
                "serve",
                "--http",
                "127.0.0.1:0",
                "--no-demo",
                "--log",
                &nats.url(),
            ],
            &[("STRATA_CLUSTER_LEASE_MS", "0")],
        )
    };
    let node_a = optimistic(&a);
    let node_b = optimistic(&b);
    let (status, body) = update(&node_a, "INSERT DATA { <http://e/c> <http://e/v> 0 }", None);
    assert_eq!(status, 200, "{body}");

    // One node, eight writers: every increment lands, in one chain of numbers. Meanwhile
    // four copies of one request with one idempotency key land once.
    let (mut acknowledged, copies) = std::thread::scope(|scope| {
        let writers = scope.spawn(|| increment(&[&node_a], 8, 25, 0));
        let copies: Vec<_> = (0..4)
            .map(|_| {
                scope.spawn(|| {
                    let text = "INSERT DATA { <http://e/once> <http://e/p> 1 }";
                    let (status, body) = update(&node_a, text, Some("once"));
                    assert_eq!(status, 200, "{body}");
                    body
                })
            })
            .collect();
        let copies: Vec<Value> = copies.into_iter().map(|c| c.join().unwrap()).collect();
        (writers.join().unwrap(), copies)
    });
    let once = copies[0]["commit_seq"].as_u64().unwrap();
    assert!(copies.iter().all(|c| c["commit_seq"] == once), "{copies:?}");
    assert_eq!(
        copies
            .iter()
            .filter(|c| c["idempotent_replay"] == false)
            .count(),
        1,
        "{copies:?}"
    );
    acknowledged.push(once);
    let distinct: BTreeSet<u64> = acknowledged.iter().copied().collect();
    assert_eq!(distinct, (2..=202).collect(), "{acknowledged:?}");
    assert_eq!(counter(&node_a), 200);
    assert!(
        gauge(&node_a, "strata_cluster_pipelined_commits_total") > 0,
        "commits were sent before the one before them was answered"
    );
    assert_eq!(gauge(&node_a, "strata_cluster_pipeline_depth"), 0);
    assert_eq!(health(&node_a)["cluster"]["commits_in_flight"], 0);
    // Commits sent while a message was unanswered went together in the next one.
    let (messages, held) = (
        gauge(&node_a, "strata_cluster_log_messages_total"),
        gauge(&node_a, "strata_cluster_log_message_commits_total"),
    );
    assert_eq!(held, 202, "every commit node A made is in some message");
    assert!(
        messages < held,
        "{messages} messages for {held} commits: none held two"
    );

    // Two nodes racing: some pipeline breaks; every acknowledged increment counts once.
    let mut rounds = 0;
    while gauge(&node_a, "strata_cluster_pipeline_refused_total")
        + gauge(&node_b, "strata_cluster_pipeline_refused_total")
        == 0
    {
        rounds += 1;
        assert!(
            rounds <= 5,
            "no pipeline was refused in 5 rounds of racing writes"
        );
        acknowledged.extend(increment(&[&node_a, &node_b], 8, 20, rounds));
    }
    println!(
        "{rounds} round(s) of racing; pipelined {} + {}, refused {} + {}",
        gauge(&node_a, "strata_cluster_pipelined_commits_total"),
        gauge(&node_b, "strata_cluster_pipelined_commits_total"),
        gauge(&node_a, "strata_cluster_pipeline_refused_total"),
        gauge(&node_b, "strata_cluster_pipeline_refused_total"),
    );
    let distinct: BTreeSet<u64> = acknowledged.iter().copied().collect();
    let last = acknowledged.len() as u64 + 1;
    assert_eq!(
        distinct,
        (2..=last).collect(),
        "no number reused or skipped"
    );
    for node in [&node_a, &node_b] {
        wait_until(
            Duration::from_secs(20),
            "both nodes at the last commit",
            || head(node) == last,
        );
        // Every commit but the first and the idempotent one is an increment.
        assert_eq!(counter(node), last - 2, "no increment lost");
    }
    assert!(node_b.stop().success());

    // Node B, stopped at `last`, misses more batched messages; on restart it finds where
    // its next commit sits in the stream (its sequence is no longer the commit's number)
    // and reads on from the middle of the stream. A new node reads it all from the start.
    let more = increment(&[&node_a], 8, 10, 99);
    let last = last + more.len() as u64;
    assert_eq!(
        more.iter().copied().collect::<BTreeSet<u64>>().len(),
        more.len()
    );
    assert!(
        gauge(&node_a, "strata_cluster_log_messages_total")
            < gauge(&node_a, "strata_cluster_log_message_commits_total")
    );
    let node_b = optimistic(&b);
    let c = Strata::new();
    let node_c = optimistic(&c);
    for node in [&node_a, &node_b, &node_c] {
        wait_until(
            Duration::from_secs(20),
            "every node at the last commit",
            || head(node) == last,
        );
        assert_eq!(counter(node), last - 2, "no increment lost");
    }
    for node in [node_a, node_b, node_c] {
        assert!(node.stop().success());
    }
    let logs = [a.log_path("main"), b.log_path("main"), c.log_path("main")]
        .map(|p| std::fs::read(p).unwrap());
    assert!(
        logs[0] == logs[1] && logs[1] == logs[2],
        "the nodes' logs differ"
    );
    for strata in [&a, &b, &c] {
        let verified = strata.run(&["verify"]);
        assert!(
            verified.ok().contains(&format!("{last} commits verified")),
            "{}",
            verified.stdout
        );
    }
}

/// A node's view of graph `main`'s write leader: (leader's node name, whether it is this
/// node), from `/metrics`.
fn write_leader(node: &Server) -> Option<(String, bool)> {
    let text = metrics(node);
    let line = text
        .lines()
        .find(|l| l.starts_with("strata_cluster_write_leader{graph=\"main\""))?;
    let name = line.split("node=\"").nth(1)?.split('"').next()?.to_owned();
    Some((name, line.ends_with(" 1")))
}

/// Waits until every running node (`Some`) names the same write leader of `main`, one of
/// them, and returns its index.
fn wait_for_leader(nodes: &[Option<Server>], limit: Duration) -> usize {
    let agreed = || -> Option<usize> {
        let views: Vec<(usize, Option<(String, bool)>)> = (0..nodes.len())
            .filter_map(|i| nodes[i].as_ref().map(|node| (i, node)))
            .map(|(i, node)| {
                head(node); // opens the graph there
                (i, write_leader(node))
            })
            .collect();
        let first = views[0].1.as_ref()?.0.clone();
        if views
            .iter()
            .any(|(_, v)| v.as_ref().map(|v| &v.0) != Some(&first))
        {
            return None;
        }
        let leaders: Vec<usize> = views
            .iter()
            .filter(|(_, v)| v.as_ref().is_some_and(|v| v.1))
            .map(|(i, _)| *i)
            .collect();
        (leaders.len() == 1).then(|| leaders[0])
    };
    let mut leader = None;
    wait_until(limit, "the nodes to agree on one write leader", || {
        leader = agreed();
        leader.is_some()
    });
    leader.unwrap()
}

/// Issue 28, the write leader: the nodes agree on one holder of the graph's write lease;
/// updates sent to the others are forwarded to it and answered with its commit (visible
/// at once on the node asked). When the leader is killed, the others go on writing (an
/// update meant for it runs where it arrives) and one of them takes the lease once it
/// lapses; nothing acknowledged is lost and the survivors' logs are the same chain.
#[test]
fn one_node_leads_writes_others_forward_to_it_and_a_survivor_takes_over() {
    let dir = tempfile::tempdir().unwrap();
    let nats = nats_single(dir.path());
    let stratas: Vec<Strata> = (0..3).map(|_| Strata::new()).collect();
    let mut nodes: Vec<Option<Server>> = stratas
        .iter()
        .map(|s| Some(node_with(s, &nats.url())))
        .collect();
    let (status, body) = update(
        nodes[0].as_ref().unwrap(),
        "INSERT DATA { <http://e/c> <http://e/v> 0 }",
        None,
    );
    assert_eq!(status, 200, "{body}");
    let leader = wait_for_leader(&nodes, Duration::from_secs(15));

    // Increments through every node: the two others forward them to the leader.
    let servers: Vec<&Server> = nodes.iter().flatten().collect();
    let acknowledged = increment(&servers, 6, 15, 0);
    assert_eq!(
        acknowledged.iter().copied().collect::<BTreeSet<u64>>(),
        (2..=91).collect()
    );
    for (i, node) in servers.iter().enumerate() {
        let forwarded = gauge(node, "strata_cluster_forwarded_writes_total");
        let served = gauge(node, "strata_cluster_served_writes_total");
        if i == leader {
            assert!(
                served > 0 && forwarded == 0,
                "leader: served {served}, forwarded {forwarded}"
            );
            assert_eq!(health(node)["cluster"]["graphs_led"], 1);
        } else {
            assert!(
                forwarded > 0 && served == 0,
                "node {i}: forwarded {forwarded}, served {served}"
            );
            assert_eq!(health(node)["cluster"]["graphs_led"], 0);
        }
        // Answered only once visible on the node asked.
        assert_eq!(counter(node), 90);
    }
    // The forwarding nodes heard of some of their commits from the stream before the
    // leader's reply came (they answer at whichever comes first).
    let from_stream: u64 = (0..servers.len())
        .filter(|&i| i != leader)
        .map(|i| {
            gauge(
                servers[i],
                "strata_cluster_forwarded_answered_from_stream_total",
            )
        })
        .sum();
    assert!(
        from_stream > 0,
        "no forwarded write was answered from the stream"
    );

    // SIGKILL the leader in the middle of writes through the others.
    let survivors: Vec<usize> = (0..nodes.len())
        .filter(|&i| i != leader && nodes[i].is_some())
        .collect();
    let bases: Vec<String> = survivors
        .iter()
        .map(|&i| nodes[i].as_ref().unwrap().base.clone())
        .collect();
    let (after, took, new_leader) = std::thread::scope(|scope| {
        let through: Vec<&str> = bases.iter().map(String::as_str).collect();
        let writes = scope.spawn(move || write_all(&through, "after", 40, 20));
        std::thread::sleep(Duration::from_millis(100));
        nodes[leader].take(); // dropped: SIGKILL
        let killed_at = Instant::now();
        let new_leader = wait_for_leader(&nodes, Duration::from_secs(10));
        let took = killed_at.elapsed();
        let written = writes.join().unwrap();
        // A write the dead leader held is given up once its lease lapses (not after
        // the 15 s a forward may wait for a live leader) and re-run with its key.
        let all_answered = killed_at.elapsed();
        println!("the 40 writes around the kill answered {all_answered:?} after it");
        assert!(
            all_answered < Duration::from_secs(9),
            "the writes around the kill took {all_answered:?}"
        );
        (written, took, new_leader)
    });
    println!("a survivor leads {took:?} after the leader was killed");
    assert!(survivors.contains(&new_leader));
    assert!(
        took < Duration::from_secs(3 + 1 + 1),
        "taken over after {took:?} (lease 3 s)"
    );
    // Writes through each survivor are answered at once.
    let mut after = after;
    for &i in &survivors {
        let started = Instant::now();
        let (status, body) = update(
            nodes[i].as_ref().unwrap(),
            &format!("INSERT DATA {{ <http://e/now{i}> <http://e/p> 1 }}"),
            None,
        );
        assert_eq!(status, 200, "{body}");
        assert!(started.elapsed() < Duration::from_secs(2));
        after.push(body["commit_seq"].as_u64().unwrap());
    }
    let last = *after.iter().max().unwrap();
    assert_eq!(after.len(), 42);
    for &i in &survivors {
        let node = nodes[i].as_ref().unwrap();
        wait_until(
            Duration::from_secs(20),
            "survivors at the last commit",
            || head(node) >= last,
        );
        assert_eq!(counter(node), 90, "the increments are all still there");
        assert_eq!(
            subjects_at(node, last)
                .iter()
                .filter(|s| s.contains("after"))
                .count(),
            40
        );
    }
    let heads: Vec<u64> = survivors
        .iter()
        .map(|&i| head(nodes[i].as_ref().unwrap()))
        .collect();
    for i in survivors.clone() {
        assert!(nodes[i].take().unwrap().stop().success());
    }
    assert_eq!(heads[0], heads[1]);
    let logs: Vec<Vec<u8>> = survivors
        .iter()
        .map(|&i| std::fs::read(stratas[i].log_path("main")).unwrap())
        .collect();
    assert!(logs[0] == logs[1], "the survivors' logs differ");
    let verified = stratas[survivors[0]].run(&["verify"]);
    assert!(
        verified
            .ok()
            .contains(&format!("{} commits verified", heads[0])),
        "{}",
        verified.stdout
    );
}

/// An HTTP request to a node: (status, `Strata-Commit` header, body as JSON or text).
fn send(
    node: &Server,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&str>,
) -> (u16, Option<u64>, Value) {
    let mut request = ureq::http::Request::builder()
        .method(method)
        .uri(node.url(path));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let request = request.body(body.unwrap_or_default().to_owned()).unwrap();
    let mut response = agent().run(request).unwrap();
    let status = response.status().as_u16();
    let commit = response
        .headers()
        .get("strata-commit")
        .and_then(|v| v.to_str().ok()?.parse().ok());
    let text = response.body_mut().read_to_string().unwrap_or_default();
    let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
    (status, commit, body)
}

/// Issue 28, forwarding beyond SPARQL updates: Graph Store writes (`PUT`, `POST`,
/// `DELETE`, blank nodes kept as one node), updates on a graph with shapes in force (the
/// leader's validation report comes back whole; a rejection changes nothing), and an
/// idempotent retry through the leader of a write first sent to a follower all go
/// through the write leader, and read back at once on the node asked.
#[test]
fn graph_store_writes_and_writes_under_shapes_are_forwarded_to_the_leader() {
    let dir = tempfile::tempdir().unwrap();
    let nats = nats_single(dir.path());
    let stratas: Vec<Strata> = (0..2).map(|_| Strata::new()).collect();
    let nodes: Vec<Option<Server>> = stratas
        .iter()
        .map(|s| Some(node_with(s, &nats.url())))
        .collect();
    let (status, body) = update(
        nodes[0].as_ref().unwrap(),
        "INSERT DATA { <http://e/c> <http://e/v> 0 }",
        None,
    );
    assert_eq!(status, 200, "{body}");
    let leader = wait_for_leader(&nodes, Duration::from_secs(15));
    let (lead, follower) = (
        nodes[leader].as_ref().unwrap(),
        nodes[1 - leader].as_ref().unwrap(),
    );
    let forwarded = || gauge(follower, "strata_cluster_forwarded_writes_total");
    let served = || gauge(lead, "strata_cluster_served_writes_total");
    let (forwarded_before, served_before) = (forwarded(), served());

    // PUT a named graph through the follower: made by the leader, visible at once here.
    let store = "/graphs/main/store?graph=http%3A%2F%2Fe%2Fg";
    let turtle = "<http://e/a> <http://e/knows> _:x . _:x <http://e/name> \"X\" .";
    let (status, commit, body) = send(
        follower,
        "PUT",
        store,
        &[
            ("content-type", "text/turtle"),
            ("idempotency-key", "put-1"),
        ],
        Some(turtle),
    );
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["inserted"], 2, "{body}");
    let put_seq = commit.unwrap();
    assert_eq!(body["commit_seq"], put_seq);
    assert_eq!(forwarded(), forwarded_before + 1);
    assert_eq!(served(), served_before + 1);
    let (status, _, text) = send(
        follower,
        "GET",
        store,
        &[("accept", "application/n-triples")],
        None,
    );
    assert_eq!(status, 200);
    let text = text.as_str().unwrap().to_owned();
    assert_eq!(text.lines().count(), 2, "{text}");
    let blank: Vec<&str> = text
        .split_whitespace()
        .filter(|t| t.starts_with("_:"))
        .collect();
    assert!(
        blank.len() == 2 && blank[0] == blank[1],
        "one blank node: {text}"
    );
    // The same write retried through the leader finds the first commit.
    let (status, _, again) = send(
        lead,
        "PUT",
        store,
        &[
            ("content-type", "text/turtle"),
            ("idempotency-key", "put-1"),
        ],
        Some(turtle),
    );
    assert_eq!(status, 201, "answered as the first time: {again}");
    assert_eq!(again["idempotent_replay"], true, "{again}");
    assert_eq!(again["commit_seq"], put_seq);

    // POST adds; DELETE removes; a second DELETE finds no graph (the leader said so).
    let (status, _, body) = send(
        follower,
        "POST",
        store,
        &[("content-type", "application/n-triples")],
        Some("<http://e/b> <http://e/knows> <http://e/a> .\n"),
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["inserted"], 1);
    let (status, _, body) = send(follower, "DELETE", store, &[], None);
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["deleted"], 3, "{body}");
    let (status, _, body) = send(follower, "DELETE", store, &[], None);
    assert_eq!(status, 404, "{body}");
    assert_eq!(
        forwarded(),
        forwarded_before + 4,
        "PUT, POST, DELETE, DELETE"
    );

    // The `configure` tool's ontology definition and the `commit` tool's records (over
    // HTTP here), through the follower: the leader commits them.
    let ontology = r#"{"action": "define_ontology", "types": [{"name": "Ticket"}, {"name": "Bug"}],
        "relations": [{"name": "REPORTED_AS", "domain": "Ticket", "range": "Bug"}]}"#;
    let json = [("content-type", "application/json")];
    let (status, _, body) = send(
        follower,
        "POST",
        "/graphs/main/ontology",
        &json,
        Some(ontology),
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(forwarded(), forwarded_before + 5, "definition forwarded");
    let records = r#"{"triplets": [{"source": {"type": "Ticket", "name": "T-1"},
        "relation": "REPORTED_AS", "target": {"type": "Bug", "name": "B-1"}}], "message": "one"}"#;
    let (status, commit, body) = send(
        follower,
        "POST",
        "/graphs/main/records",
        &json,
        Some(records),
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["data"]["inserted"].as_u64().map(|n| n > 0),
        Some(true),
        "{body}"
    );
    assert_eq!(body["data"]["commit_seq"], commit.unwrap());
    assert_eq!(
        forwarded(),
        forwarded_before + 6,
        "the records were forwarded"
    );
    let linked = json_query(
        follower,
        &serde_json::json!({"mode": "structured", "structured": {"patterns": [
            {"subject": {"var": "t"}, "predicate": "REPORTED_AS", "object": {"var": "b"}}]}}),
    );
    assert_eq!(
        linked["data"]["rows"].as_array().map(Vec::len),
        Some(1),
        "{linked}"
    );
    // An evolution of the ontology, planned by the leader against its head.
    let evolve = r#"{"action": "evolve_ontology", "types": [{"name": "Feature"}],
        "changes": [{"op": "rename", "kind": "type", "from": "Bug", "to": "Defect"}]}"#;
    let (status, _, body) = send(
        follower,
        "POST",
        "/graphs/main/ontology",
        &json,
        Some(evolve),
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        forwarded(),
        forwarded_before + 7,
        "evolution forwarded: {body}"
    );
    assert_eq!(
        body["data"]["commit_seq"].as_u64(),
        Some(head(follower)),
        "{body}"
    );
    assert!(
        ask(
            follower,
            "ASK { ?s ?p ?o FILTER(CONTAINS(STR(?s), \"Defect\") || CONTAINS(STR(?o), \"Defect\")) }"
        ),
        "the rename is applied on the follower: {body}"
    );

    // Shapes in warn mode: a bad update through the follower lands with the leader's
    // report, every result in it.
    let shapes = "@prefix sh: <http://www.w3.org/ns/shacl#> .\n\
        <http://e/S> a sh:NodeShape ; sh:targetClass <http://e/T> ;\n\
        sh:property [ sh:path <http://e/name> ; sh:minCount 1 ; sh:message \"needs a name\" ] .";
    let (status, _, body) = send(
        lead,
        "PUT",
        "/graphs/main/shapes?mode=warn",
        &[("content-type", "text/turtle")],
        Some(shapes),
    );
    assert_eq!(status, 200, "{body}");
    let shapes_seq = body["commit_seq"].as_u64().unwrap();
    let (status, landed) = update(
        follower,
        "INSERT DATA { <http://e/t1> a <http://e/T> }",
        None,
    );
    assert_eq!(status, 200, "{landed}");
    assert_eq!(forwarded(), forwarded_before + 8, "forwarded under shapes");
    let validation = &landed["validation"];
    assert_eq!(validation["conforms"], false, "{landed}");
    assert_eq!(validation["violation_count"], 1, "{landed}");
    assert_eq!(validation["mode"], "warn");
    assert_eq!(validation["shapes_seq"], shapes_seq);
    assert_eq!(validation["results"][0]["focus_node"], "http://e/t1");
    assert_eq!(validation["results"][0]["message"], "needs a name");

    // Reject mode, published through the follower: the leader publishes it and answers
    // with the whole graph's report (t1 has no name). Then a bad update is refused with
    // the report, and the head does not move anywhere.
    let (status, _, body) = send(
        follower,
        "PUT",
        "/graphs/main/shapes?mode=reject",
        &[("content-type", "text/turtle")],
        Some(shapes),
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        forwarded(),
        forwarded_before + 9,
        "shapes forwarded: {body}"
    );
    let before = head(lead);
    assert_eq!(body["commit_seq"].as_u64(), Some(before), "{body}");
    assert_eq!(head(follower), before, "applied where it was asked");
    wait_until(Duration::from_secs(5), "the follower at the head", || {
        head(follower) >= before
    });
    let (status, refused) = update(
        follower,
        "INSERT DATA { <http://e/t2> a <http://e/T> }",
        None,
    );
    assert_eq!(status, 422, "{refused}");
    assert_eq!(refused["error"]["code"], "shacl_violation");
    assert_eq!(
        refused["error"]["report"]["results"][0]["focus_node"],
        "http://e/t2"
    );
    let (status, fixed) = update(
        follower,
        "INSERT DATA { <http://e/t1> <http://e/name> \"one\" }",
        None,
    );
    assert_eq!(status, 200, "{fixed}");
    assert_eq!(fixed["validation"]["conforms"], true, "{fixed}");
    assert_eq!(
        fixed["commit_seq"],
        before + 1,
        "the refused write made no commit"
    );
    assert_eq!(
        forwarded(),
        forwarded_before + 10,
        "a refusal is not counted"
    );
    wait_until(Duration::from_secs(5), "the leader at the head", || {
        head(lead) == before + 1
    });
}

/// A clustered node fsyncs its own copy of the log lazily: every commit it applies is
/// already stored by the shared log. When a crash costs the copy its tail (torn in the
/// middle of a record, as after a power loss), the node cuts the torn record and reads
/// what it lacks back from the stream: same head, same answers, a byte-identical log.
#[test]
fn a_node_whose_log_copy_lost_its_tail_reads_it_back_from_the_stream() {
    let dir = tempfile::tempdir().unwrap();
    let nats = nats_single(dir.path());
    let url = nats.url();
    let (a, b) = (Strata::new(), Strata::new());
    let first = node_with(&a, &url);
    let second = node_with(&b, &url);
    let acknowledged = write_all(&[&first.base, &second.base], "t", 40, 10);
    let newest = *acknowledged.iter().max().unwrap();
    wait_until(
        Duration::from_secs(20),
        "both nodes to apply every write",
        || head(&first) == newest && head(&second) == newest,
    );
    drop(second); // SIGKILL
    let log = b.log_path("main");
    let whole = std::fs::read(&log).unwrap();
    assert_eq!(whole, std::fs::read(a.log_path("main")).unwrap());
    // Keep a prefix that ends inside a record, a few small commits short of the end.
    let kept = whole.len() - 1_600;
    std::fs::OpenOptions::new()
        .write(true)
        .open(&log)
        .unwrap()
        .set_len(kept as u64)
        .unwrap();

    let second = node_with(&b, &url);
    wait_until(
        Duration::from_secs(20),
        "the node to read its lost commits back",
        || head(&second) == newest,
    );
    assert_eq!(subjects_at(&second, newest), subjects_at(&first, newest));
    let written = subjects_at(&second, newest)
        .iter()
        .filter(|s| s.starts_with("http://e/t"))
        .count();
    assert_eq!(written, 40);
    // It writes on from there, and its copy is the stream's again, byte for byte.
    let more = write_all(&[&second.base], "u", 3, 10);
    let newest = *more.iter().max().unwrap();
    assert_eq!(newest, *acknowledged.iter().max().unwrap() + 3);
    wait_until(
        Duration::from_secs(20),
        "both nodes to apply the new writes",
        || head(&first) == newest && head(&second) == newest,
    );
    second.stop();
    assert_eq!(
        std::fs::read(&log).unwrap(),
        std::fs::read(a.log_path("main")).unwrap(),
        "the copy is byte-identical to the other node's"
    );
    b.run(&["verify"]).ok();
}
