//! Small durable commits per second, with 1 and 8 concurrent writers (group commit), next
//! to the disk's raw append+fdatasync rate and Oxigraph's in-memory (non-durable) store.
//!
//! Run with `cargo bench --bench commit`. Knobs: `STRATA_BENCH_SECONDS` (per configuration,
//! default 3), `STRATA_BENCH_TRIPLES` (triples per commit, default 1), `STRATA_BENCH_WRITERS`
//! (comma-separated writer counts, default `1,8`), `STRATA_BENCH_TMP` (where data dirs go).

#[path = "data.rs"]
mod data;

use std::io::Write;
use std::time::{Duration, Instant};

use data::{print_table, thousands};
use oxigraph::store::Store;
use strata::engine::CommitRequest;
use strata::{Engine, EngineConfig};

struct Run {
    commits: u64,
    elapsed: Duration,
    /// Per-commit latencies, sorted.
    latencies: Vec<Duration>,
}

impl Run {
    fn rate(&self) -> f64 {
        self.commits as f64 / self.elapsed.as_secs_f64()
    }

    fn percentile(&self, p: f64) -> Duration {
        if self.latencies.is_empty() {
            return Duration::ZERO;
        }
        let i = ((self.latencies.len() as f64 - 1.0) * p).round() as usize;
        self.latencies[i]
    }
}

fn insert_text(writer: usize, i: u64, triples: usize) -> String {
    let mut text = String::from("INSERT DATA {\n");
    for k in 0..triples {
        text.push_str(&format!(
            "<http://example.org/s/{writer}/{i}> <http://example.org/p{k}> \"v\" .\n"
        ));
    }
    text.push('}');
    text
}

/// Runs `writers` threads calling `commit(writer, i)` until `duration` passed.
fn drive(writers: usize, duration: Duration, commit: impl Fn(usize, u64) + Sync) -> Run {
    let started = Instant::now();
    let deadline = started + duration;
    let mut latencies = Vec::new();
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..writers)
            .map(|w| {
                let commit = &commit;
                scope.spawn(move || {
                    let mut mine = Vec::new();
                    let mut i = 0u64;
                    while Instant::now() < deadline {
                        let t = Instant::now();
                        commit(w, i);
                        mine.push(t.elapsed());
                        i += 1;
                    }
                    mine
                })
            })
            .collect();
        for h in handles {
            latencies.extend(h.join().expect("writer thread"));
        }
    });
    let elapsed = started.elapsed();
    latencies.sort();
    Run {
        commits: latencies.len() as u64,
        elapsed,
        latencies,
    }
}

fn strata_run(writers: usize, duration: Duration, triples: usize) -> (Run, u64) {
    let dir = data::temp_dir();
    let engine = Engine::open(dir.path(), EngineConfig::default()).expect("open engine");
    let graph = engine.graph_or_create("main").expect("graph");
    let request = CommitRequest::default();
    let run = drive(writers, duration, |w, i| {
        let outcome = graph
            .update(
                &insert_text(w, i, triples),
                None,
                &Default::default(),
                &request,
            )
            .expect("commit");
        assert!(outcome.commit_seq.is_some());
    });
    assert_eq!(graph.head_seq(), run.commits, "one commit per call");
    let log_bytes = data::file_size(&dir.path().join("graphs/main/commits.log"));
    drop(graph);
    drop(engine);
    (run, log_bytes)
}

fn oxigraph_run(writers: usize, duration: Duration, triples: usize) -> Run {
    let store = Store::new().expect("store");
    drive(writers, duration, |w, i| {
        store
            .update(insert_text(w, i, triples).as_str())
            .expect("update");
    })
}

/// The disk's ceiling for one writer: append ~200 bytes, `fdatasync`, repeat.
fn raw_fsync_run(duration: Duration) -> Run {
    let dir = data::temp_dir();
    let mut file = std::fs::File::create(dir.path().join("raw.log")).expect("create");
    let record = [b'x'; 200];
    let started = Instant::now();
    let deadline = started + duration;
    let mut latencies = Vec::new();
    while Instant::now() < deadline {
        let t = Instant::now();
        file.write_all(&record).expect("write");
        file.sync_data().expect("fdatasync");
        latencies.push(t.elapsed());
    }
    let elapsed = started.elapsed();
    latencies.sort();
    Run {
        commits: latencies.len() as u64,
        elapsed,
        latencies,
    }
}

fn main() {
    let seconds = data::env_f64("STRATA_BENCH_SECONDS", 3.0);
    let duration = Duration::from_secs_f64(seconds);
    let triples = data::env_usize("STRATA_BENCH_TRIPLES", 1).max(1);
    let writer_counts: Vec<usize> = std::env::var("STRATA_BENCH_WRITERS")
        .ok()
        .map(|s| s.split(',').filter_map(|w| w.trim().parse().ok()).collect())
        .filter(|v: &Vec<usize>| !v.is_empty())
        .unwrap_or_else(|| vec![1, 8]);
    println!(
        "# Small commits: INSERT DATA of {triples} triple(s) per commit, {seconds} s per row, {} CPUs; load average at start: {}\n",
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        data::load_average()
    );

    let raw = raw_fsync_run(duration.min(Duration::from_secs(2)));
    let mut rows = vec![vec![
        "raw append + fdatasync (disk ceiling, 1 writer)".into(),
        "1".into(),
        thousands(raw.commits),
        format!("{:.0}", raw.rate()),
        format!("{:.2}", data::ms(raw.percentile(0.5))),
        format!("{:.2}", data::ms(raw.percentile(0.99))),
        "".into(),
        "".into(),
    ]];
    let mut strata_rates = Vec::new();
    for &writers in &writer_counts {
        let (run, log_bytes) = strata_run(writers, duration, triples);
        strata_rates.push((writers, run.rate()));
        rows.push(vec![
            "strata, durable (fsynced group commit)".into(),
            writers.to_string(),
            thousands(run.commits),
            format!("{:.0}", run.rate()),
            format!("{:.2}", data::ms(run.percentile(0.5))),
            format!("{:.2}", data::ms(run.percentile(0.99))),
            format!("{:.2}", run.rate() / raw.rate()),
            format!("{:.0}", log_bytes as f64 / run.commits.max(1) as f64),
        ]);
    }
    let mut ox_rates = Vec::new();
    for &writers in &writer_counts {
        let run = oxigraph_run(writers, duration, triples);
        ox_rates.push((writers, run.rate()));
        rows.push(vec![
            "oxigraph in memory (not durable)".into(),
            writers.to_string(),
            thousands(run.commits),
            format!("{:.0}", run.rate()),
            format!("{:.3}", data::ms(run.percentile(0.5))),
            format!("{:.3}", data::ms(run.percentile(0.99))),
            format!("{:.2}", run.rate() / raw.rate()),
            "".into(),
        ]);
    }
    print_table(
        &[
            "engine",
            "writers",
            "commits",
            "commits/s",
            "p50 ms",
            "p99 ms",
            "× raw fsync rate",
            "log bytes/commit",
        ],
        &rows,
    );
    if let (Some(&(w1, r1)), true) = (strata_rates.first(), strata_rates.len() > 1) {
        for &(w, r) in &strata_rates[1..] {
            println!(
                "strata: {w} writers / {w1} writer(s) = {:.2}× commits/s",
                r / r1
            );
        }
    }
    for (&(w, s), &(_, o)) in strata_rates.iter().zip(&ox_rates) {
        println!(
            "ratio strata/oxigraph-in-memory commits/s at {w} writer(s): {:.3}",
            s / o
        );
    }
    println!("\nLoad average at end: {}", data::load_average());
}
