//! Real clients against `strata serve`: rdflib as an analyst would use it, and many
//! concurrent readers and writers over loopback checking that every read is a whole
//! commit.

use std::collections::BTreeSet;
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::util::{Server, Strata, agent};

/// The script that drives the server through rdflib.
fn rdflib_script() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e2e/rdflib_client.py")
}

/// Whether `python3` can import rdflib.
fn rdflib_available() -> Result<(), String> {
    match Command::new("python3")
        .args(["-c", "import rdflib"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
    {
        Ok(output) if output.status.success() => Ok(()),
        Ok(output) => Err(String::from_utf8_lossy(&output.stderr).trim().to_owned()),
        Err(error) => Err(format!("cannot run python3: {error}")),
    }
}

/// Runs a command to completion, killing it after `limit`.
fn run_with_timeout(command: &mut Command, limit: Duration) -> (i32, String, String) {
    let child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let pid = child.id();
    let (done_tx, done_rx) = std::sync::mpsc::channel();
    let waiter = std::thread::spawn(move || {
        let output = child.wait_with_output().expect("wait");
        let _ = done_tx.send(());
        output
    });
    if done_rx.recv_timeout(limit).is_err() {
        let _ = Command::new("kill")
            .args(["-KILL", &pid.to_string()])
            .status();
    }
    let output = waiter.join().expect("waiter thread");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// A GET of `/sparql` (with `params`); returns status, `Strata-Commit` and body.
fn sparql_get(server: &Server, params: &[(&str, &str)]) -> (u16, Option<u64>, String) {
    let mut request = agent()
        .get(server.url("/sparql"))
        .header("accept", "application/sparql-results+json");
    for (key, value) in params {
        request = request.query(*key, *value);
    }
    let mut response = request.call().expect("GET /sparql");
    let seq = commit_header(&response);
    let body = response.body_mut().read_to_string().expect("body");
    (response.status().as_u16(), seq, body)
}

fn commit_header(response: &ureq::http::Response<ureq::Body>) -> Option<u64> {
    response
        .headers()
        .get("strata-commit")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok())
}

/// rdflib's SPARQLUpdateStore and SPARQLStore (see `rdflib_client.py`): an update, SELECT,
/// ASK and CONSTRUCT, a delete through the store API, then the earlier commit with
/// `as_of` over GET, POST and POST_FORM. Skipped (with a message) when rdflib is not
/// installed, unless `STRATA_REQUIRE_RDFLIB` is set.
#[test]
fn rdflib_client_queries_updates_and_reads_an_earlier_commit() {
    if let Err(why) = rdflib_available() {
        let required = std::env::var_os("STRATA_REQUIRE_RDFLIB").is_some_and(|v| !v.is_empty());
        assert!(
            !required,
            "STRATA_REQUIRE_RDFLIB is set but `python3 -c 'import rdflib'` failed: {why}\n\
             install it with `python3 -m pip install rdflib`"
        );
        eprintln!(
            "SKIP rdflib_client_queries_updates_and_reads_an_earlier_commit: rdflib is not \
             importable ({why}); `python3 -m pip install rdflib` to run it, or set \
             STRATA_REQUIRE_RDFLIB=1 to make this a failure"
        );
        return;
    }
    let strata = Strata::new();
    let server = strata.serve(&[]);
    let started = Instant::now();
    let (code, stdout, stderr) = run_with_timeout(
        Command::new("python3")
            .arg(rdflib_script())
            .arg(&server.base)
            .env("PYTHONDONTWRITEBYTECODE", "1"),
        Duration::from_secs(120),
    );
    eprintln!(
        "rdflib client took {:?}:\n{stdout}{stderr}",
        started.elapsed()
    );
    assert_eq!(
        code, 0,
        "rdflib client failed\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    let mut expected = vec![
        "insert-created-commit",
        "select-names",
        "ask-knows-carol",
        "construct-knows",
        "store-triples",
        "store-contains",
        "delete-created-commit",
        "head-lacks-deleted",
        "head-triples",
    ]
    .into_iter()
    .map(str::to_owned)
    .collect::<Vec<_>>();
    for method in ["GET", "POST", "POST_FORM"] {
        for what in ["has-deleted", "count", "construct"] {
            expected.push(format!("as_of-{method}-{what}"));
        }
    }
    expected.push("as_of-header".into());
    expected.push("head-header".into());
    let lines: Vec<&str> = stdout.lines().collect();
    for check in &expected {
        let line = format!("CHECK {check} ok");
        assert!(
            lines.contains(&line.as_str()),
            "missing {line:?} in\n{stdout}"
        );
    }
    assert!(
        lines.contains(&format!("ALL CHECKS PASSED {}", expected.len()).as_str()),
        "no 'ALL CHECKS PASSED {}' line in\n{stdout}",
        expected.len()
    );

    // What rdflib did is what the server holds: two commits, the deleted triple only in
    // the first.
    let carol = "ASK { <http://example.org/people/alice> \
                 <http://xmlns.com/foaf/0.1/knows> <http://example.org/people/carol> }";
    let (status, seq, body) = sparql_get(&server, &[("query", carol)]);
    assert_eq!((status, seq), (200, Some(2)), "{body}");
    assert!(body.contains("false"), "{body}");
    let (status, seq, body) = sparql_get(&server, &[("query", carol), ("as_of", "1")]);
    assert_eq!((status, seq), (200, Some(1)), "{body}");
    assert!(body.contains("true"), "{body}");
}

/// Triples per writer commit.
const K: u64 = 10;
const READERS: usize = 32;
const WRITERS: usize = 4;
const RUN_FOR: Duration = Duration::from_secs(3);
const COUNT: &str = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }";

/// xorshift64*, seeded per thread so a failure names its seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Failures seen by any thread (kept short), and how many there were in all.
#[derive(Default)]
struct Failures {
    first: Vec<String>,
    total: u64,
}

impl Failures {
    fn push(failures: &Mutex<Failures>, message: String) {
        let mut failures = failures.lock().expect("failures lock");
        failures.total += 1;
        if failures.first.len() < 20 {
            failures.first.push(message);
        }
    }
}

/// The `?n` of a JSON COUNT result.
fn count_of(body: &str) -> Option<u64> {
    let json: serde_json::Value = serde_json::from_str(body).ok()?;
    json["results"]["bindings"][0]["n"]["value"]
        .as_str()?
        .parse()
        .ok()
}

/// What one reader did.
#[derive(Default)]
struct ReaderStats {
    head_reads: u64,
    pinned_reads: u64,
    highest_seq: u64,
}

fn reader(
    base: &str,
    id: usize,
    seed: u64,
    deadline: Instant,
    acked: &AtomicU64,
    failures: &Mutex<Failures>,
) -> ReaderStats {
    let agent = agent();
    let mut rng = Rng(seed | 1);
    let mut stats = ReaderStats::default();
    let mut last_head = 0;
    let url = format!("{base}/sparql");
    while Instant::now() < deadline {
        // Every commit acknowledged before this request must be visible to it.
        let floor = acked.load(Ordering::SeqCst);
        let pinned = (floor > 0 && rng.below(3) == 0).then(|| 1 + rng.below(floor));
        let use_post = rng.below(2) == 0;
        let as_of = pinned.map(|n| n.to_string());
        let accept = "application/sparql-results+json";
        let sent = if use_post {
            let mut request = agent
                .post(&url)
                .header("content-type", "application/sparql-query")
                .header("accept", accept);
            if let Some(n) = &as_of {
                request = request.query("as_of", n);
            }
            request.send(COUNT)
        } else {
            let mut request = agent
                .get(&url)
                .query("query", COUNT)
                .header("accept", accept);
            if let Some(n) = &as_of {
                request = request.query("as_of", n);
            }
            request.call()
        };
        let what = format!(
            "reader {id} (seed {seed:#x}) {} {}",
            if use_post { "POST" } else { "GET" },
            pinned.map_or("head".to_owned(), |n| format!("as_of={n}")),
        );
        let mut response = match sent {
            Ok(response) => response,
            Err(error) => {
                Failures::push(failures, format!("{what}: transport error {error}"));
                continue;
            }
        };
        let status = response.status().as_u16();
        let seq = commit_header(&response);
        let body = response.body_mut().read_to_string().unwrap_or_default();
        if status != 200 {
            Failures::push(failures, format!("{what}: status {status}: {body}"));
            continue;
        }
        let Some(seq) = seq else {
            Failures::push(failures, format!("{what}: no Strata-Commit header"));
            continue;
        };
        let Some(count) = count_of(&body) else {
            Failures::push(
                failures,
                format!("{what}: unreadable COUNT result {body:?}"),
            );
            continue;
        };
        if count != seq * K {
            Failures::push(
                failures,
                format!(
                    "{what}: served at commit {seq} but counted {count} triples, not {} (partial commit?)",
                    seq * K
                ),
            );
        }
        match pinned {
            Some(n) => {
                stats.pinned_reads += 1;
                if seq != n {
                    Failures::push(failures, format!("{what}: Strata-Commit {seq}, not {n}"));
                }
            }
            None => {
                stats.head_reads += 1;
                if seq < floor {
                    Failures::push(
                        failures,
                        format!(
                            "{what}: served at commit {seq} after commit {floor} was acknowledged"
                        ),
                    );
                }
                if seq < last_head {
                    Failures::push(
                        failures,
                        format!("{what}: head went back from {last_head} to {seq}"),
                    );
                }
                last_head = seq;
                stats.highest_seq = stats.highest_seq.max(seq);
            }
        }
    }
    stats
}

/// Returns the commit numbers this writer was given, each with the head the response
/// reported (`head_seq`, also the `Strata-Commit` header).
fn writer(
    base: &str,
    id: usize,
    deadline: Instant,
    acked: &AtomicU64,
    failures: &Mutex<Failures>,
) -> Vec<(u64, u64)> {
    let agent = agent();
    let url = format!("{base}/update");
    let mut seqs = Vec::new();
    let mut batch = 0u64;
    while Instant::now() < deadline {
        let mut update = String::from("INSERT DATA {\n");
        for j in 0..K {
            update.push_str(&format!(
                "<urn:strata:e2e:w{id}:b{batch}> <urn:strata:e2e:p{j}> \"{id}-{batch}-{j}\" .\n"
            ));
        }
        update.push('}');
        let what = format!("writer {id} batch {batch}");
        batch += 1;
        let mut response = match agent
            .post(&url)
            .header("content-type", "application/sparql-update")
            .send(&update)
        {
            Ok(response) => response,
            Err(error) => {
                Failures::push(failures, format!("{what}: transport error {error}"));
                continue;
            }
        };
        let status = response.status().as_u16();
        let header = commit_header(&response);
        let body = response.body_mut().read_to_string().unwrap_or_default();
        if status != 200 {
            Failures::push(failures, format!("{what}: status {status}: {body}"));
            continue;
        }
        let json: serde_json::Value = match serde_json::from_str(&body) {
            Ok(json) => json,
            Err(error) => {
                Failures::push(failures, format!("{what}: bad JSON {error}: {body:?}"));
                continue;
            }
        };
        let (Some(seq), Some(head)) = (json["commit_seq"].as_u64(), json["head_seq"].as_u64())
        else {
            Failures::push(
                failures,
                format!("{what}: no commit_seq/head_seq in {body}"),
            );
            continue;
        };
        if json["inserted"].as_u64() != Some(K)
            || json["deleted"].as_u64() != Some(0)
            || json["idempotent_replay"].as_bool() != Some(false)
        {
            Failures::push(failures, format!("{what}: unexpected outcome {body}"));
        }
        if seq > head {
            Failures::push(
                failures,
                format!("{what}: commit_seq {seq} > head_seq {head}"),
            );
        }
        if header != Some(head) {
            Failures::push(
                failures,
                format!("{what}: Strata-Commit {header:?} but head_seq {head}"),
            );
        }
        seqs.push((seq, head));
        acked.fetch_max(seq, Ordering::SeqCst);
    }
    seqs
}

/// 32 readers and 4 writers for ~3 s over loopback. Each commit inserts K triples into
/// an initially empty graph, so a read served at commit N must count exactly N × K
/// triples, at the head and pinned with `as_of`; writers' commit numbers are unique and
/// cover 1..=head; a head read never shows less than what was already acknowledged.
#[test]
fn thirty_two_readers_and_four_writers_see_consistent_commits() {
    let strata = Strata::new();
    let server = strata.serve(&[]);
    let base = server.base.clone();

    // The server creates graph `main` at start: an empty dataset at commit 0.
    let (status, seq, body) = sparql_get(&server, &[("query", COUNT)]);
    assert_eq!(
        (status, seq, count_of(&body)),
        (200, Some(0), Some(0)),
        "{body}"
    );

    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0x5eed, |d| d.as_nanos() as u64);
    eprintln!("concurrency seed {seed:#x}");
    let acked = AtomicU64::new(0);
    let failures = Mutex::new(Failures::default());
    let started = Instant::now();
    let deadline = started + RUN_FOR;
    let (reader_stats, writer_seqs) = std::thread::scope(|scope| {
        let readers: Vec<_> = (0..READERS)
            .map(|id| {
                let (base, acked, failures) = (&base, &acked, &failures);
                let seed = seed ^ (id as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
                scope.spawn(move || reader(base, id, seed, deadline, acked, failures))
            })
            .collect();
        let writers: Vec<_> = (0..WRITERS)
            .map(|id| {
                let (base, acked, failures) = (&base, &acked, &failures);
                scope.spawn(move || writer(base, id, deadline, acked, failures))
            })
            .collect();
        (
            readers
                .into_iter()
                .map(|h| h.join().expect("reader panicked"))
                .collect::<Vec<_>>(),
            writers
                .into_iter()
                .map(|h| h.join().expect("writer panicked"))
                .collect::<Vec<_>>(),
        )
    });
    let elapsed = started.elapsed();

    let head_reads: u64 = reader_stats.iter().map(|s| s.head_reads).sum();
    let pinned_reads: u64 = reader_stats.iter().map(|s| s.pinned_reads).sum();
    let commits: usize = writer_seqs.iter().map(Vec::len).sum();
    eprintln!(
        "{elapsed:?}: {commits} commits by {WRITERS} writers ({:?} each), {head_reads} head reads \
         and {pinned_reads} pinned reads by {READERS} readers",
        writer_seqs.iter().map(Vec::len).collect::<Vec<_>>()
    );
    let failures = failures.into_inner().expect("failures lock");
    assert!(
        failures.total == 0,
        "{} failed requests or checks; the first ones:\n{}",
        failures.total,
        failures.first.join("\n")
    );
    assert!(
        commits > 0 && head_reads > 0 && pinned_reads > 0,
        "too little ran"
    );

    // Commit numbers: unique, and together exactly 1..=head.
    let all: Vec<u64> = writer_seqs.iter().flatten().map(|&(seq, _)| seq).collect();
    // The header of a write names the head after it, which another writer may already
    // have moved past the commit this request created.
    let head_ahead = writer_seqs
        .iter()
        .flatten()
        .filter(|(seq, head)| head > seq)
        .count();
    eprintln!(
        "{head_ahead} of {} update responses named a head past their own commit",
        all.len()
    );
    let unique: BTreeSet<u64> = all.iter().copied().collect();
    assert_eq!(unique.len(), all.len(), "a commit number was given twice");
    let (status, head, body) = sparql_get(&server, &[("query", COUNT)]);
    assert_eq!(status, 200, "{body}");
    let head = head.expect("Strata-Commit on the final read");
    assert_eq!(
        unique,
        (1..=head).collect::<BTreeSet<u64>>(),
        "writers' commits do not cover 1..={head} without gaps"
    );
    assert_eq!(count_of(&body), Some(head * K), "{body}");
    let highest_read = reader_stats
        .iter()
        .map(|s| s.highest_seq)
        .max()
        .unwrap_or(0);
    assert!(highest_read <= head);
    // Each writer's own commits come back in increasing order.
    for seqs in &writer_seqs {
        assert!(seqs.windows(2).all(|w| w[0].0 < w[1].0), "{seqs:?}");
    }
}
