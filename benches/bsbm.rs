//! BSBM explore queries, pinned reads, import throughput and footprint: Strata side by side
//! with Oxigraph's in-memory store, in one process so both see the same machine load.
//!
//! Run with `cargo bench --bench bsbm` (375k triples) or
//! `STRATA_BENCH_SCALE=1m cargo bench --bench bsbm`. Other knobs: `STRATA_BENCH_PASSES`
//! (back-to-back timed runs per query, default 5), `STRATA_BENCH_IMPORT_RUNS` (import runs
//! per engine, default 3), `STRATA_BENCH_DATA` (data directory), `STRATA_BENCH_TMP` (where
//! data dirs go), `STRATA_BENCH_PROFILE=q11[,seconds[,oxigraph]]` (loop one template for
//! `perf record`, see `profile_mode`).

#[path = "data.rs"]
mod data;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use data::{BsbmQuery, count_results, ms, print_table, thousands};
use oxigraph::io::RdfFormat;
use oxigraph::sparql::SparqlEvaluator;
use oxigraph::store::Store;
use strata::engine::{CommitRequest, Graph, ImportFormat, ImportOptions, ReadAt, ReadOptions};
use strata::{Engine, EngineConfig};

fn import_options(name: &str) -> ImportOptions {
    ImportOptions {
        format: ImportFormat(RdfFormat::NTriples),
        base_iri: None,
        into_graph: None,
        one_graph: false,
        source_name: name.into(),
    }
}

/// An engine whose commits never trigger a flush: `close()` writes the store files, so
/// import and flush can be timed apart (queries then read the files, memory-mapped).
fn no_auto_flush() -> EngineConfig {
    EngineConfig {
        flush_every_quads: u64::MAX,
        ..EngineConfig::default()
    }
}

fn main() {
    let Some(bsbm) = data::load_bsbm() else {
        return;
    };
    if let Ok(spec) = std::env::var("STRATA_BENCH_PROFILE") {
        profile_mode(&bsbm, &spec);
        return;
    }
    let passes = data::env_usize("STRATA_BENCH_PASSES", 5).max(1);
    let import_runs = data::env_usize("STRATA_BENCH_IMPORT_RUNS", 3).max(1);
    let n_lines = bsbm
        .ntriples
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .count() as u64;
    println!(
        "# BSBM {} — {} triples, {} queries, {} back-to-back timed runs per query (best kept) after 1 warm-up pass; load average at start: {}\n",
        bsbm.scale,
        thousands(n_lines),
        bsbm.queries.len(),
        passes,
        data::load_average()
    );

    // ---------------------------------------------------------------------------------
    // (c) + (e): the first import of each engine, measured from a fresh process state.
    // ---------------------------------------------------------------------------------
    let strata_dir = data::temp_dir();
    let rss_before_strata = data::rss_bytes();
    let hwm_before_strata = data::peak_rss_bytes();
    let engine = Engine::open(strata_dir.path(), no_auto_flush()).expect("open engine");
    let graph = engine.graph_or_create("main").expect("graph");
    let first = strata_import(&graph, &bsbm.ntriples);
    let rss_after_strata = data::rss_bytes();
    let hwm_after_strata = data::peak_rss_bytes();
    let graph_dir = strata_dir.path().join("graphs/main");
    let log_path = graph_dir.join("commits.log");
    let store_path = graph_dir.join("store");
    let disk_after_import = (
        data::file_size(&log_path),
        data::dir_size(&store_path),
        data::dir_size(&graph_dir),
    );
    let started = Instant::now();
    engine.close().expect("close (flush)");
    let flush_time = started.elapsed();
    let disk_after_close = (
        data::file_size(&log_path),
        data::dir_size(&store_path),
        data::dir_size(&graph_dir),
    );
    let n_triples = first.triples;
    assert_eq!(
        graph.read_at(graph.head_seq()).count_quads(),
        n_triples,
        "strata holds every triple"
    );

    let rss_before_ox = data::rss_bytes();
    let (store, first_ox) = oxigraph_import(&bsbm.ntriples);
    let rss_after_ox = data::rss_bytes();
    assert_eq!(
        store.len().unwrap() as u64,
        n_triples,
        "oxigraph holds every triple"
    );

    // More import runs, alternating engines, each into a fresh directory / store.
    let mut strata_runs = vec![first.total()];
    let mut strata_parse = vec![first.parse];
    let mut strata_commit = vec![first.commit];
    let mut ox_runs = vec![first_ox];
    for _ in 1..import_runs {
        let dir = data::temp_dir();
        let engine = Engine::open(dir.path(), no_auto_flush()).expect("open engine");
        let g = engine.graph_or_create("main").expect("graph");
        let run = strata_import(&g, &bsbm.ntriples);
        strata_runs.push(run.total());
        strata_parse.push(run.parse);
        strata_commit.push(run.commit);
        drop(g);
        drop(engine);
        drop(dir);
        let (s, t) = oxigraph_import(&bsbm.ntriples);
        ox_runs.push(t);
        drop(s);
    }

    // ---------------------------------------------------------------------------------
    // (a) Head queries.
    // ---------------------------------------------------------------------------------
    // A warm-up pass over every query on each engine gives the row counts; then, per
    // query, each engine runs `passes` times back to back (best time kept), engines in
    // alternating order, so both are measured with equally warm caches.
    let strata_read = ReadAt::head();
    let strata_counts: Vec<Result<usize, String>> = bsbm
        .queries
        .iter()
        .map(|q| time_strata(&graph, q, &strata_read).1)
        .collect();
    let ox_counts: Vec<Result<usize, String>> = bsbm
        .queries
        .iter()
        .map(|q| time_oxigraph(&store, q).1)
        .collect();
    // The same data in an engine without a query timeout: `Graph::query` then starts no
    // deadline thread, which shows what that thread costs per query.
    let untimed_dir = data::temp_dir();
    let untimed_engine = Engine::open(
        untimed_dir.path(),
        EngineConfig {
            query_timeout: None,
            ..no_auto_flush()
        },
    )
    .expect("open engine");
    let untimed = untimed_engine.graph_or_create("main").expect("graph");
    strata_import(&untimed, &bsbm.ntriples);
    for q in &bsbm.queries {
        let _ = time_strata(&untimed, q, &strata_read);
    }
    let mut strata_best = Vec::with_capacity(bsbm.queries.len());
    let mut ox_best = Vec::with_capacity(bsbm.queries.len());
    let mut untimed_best = Vec::with_capacity(bsbm.queries.len());
    for (i, q) in bsbm.queries.iter().enumerate() {
        let mut runs: [Box<dyn FnMut() -> Duration>; 3] = [
            Box::new(|| time_strata(&graph, q, &strata_read).0),
            Box::new(|| time_oxigraph(&store, q).0),
            Box::new(|| time_strata(&untimed, q, &strata_read).0),
        ];
        let best = best_rotating(&mut runs, i, passes);
        strata_best.push(best[0]);
        ox_best.push(best[1]);
        untimed_best.push(best[2]);
    }
    drop(untimed);
    drop(untimed_engine);
    drop(untimed_dir);

    // ---------------------------------------------------------------------------------
    // Print (c), (e), (a) now; (b) takes a while longer.
    // ---------------------------------------------------------------------------------
    println!(
        "## (c) Import throughput (best of {import_runs} runs per engine, fresh store each)\n"
    );
    let best = |v: &[Duration]| v.iter().copied().min().unwrap();
    let rate = |d: Duration| n_triples as f64 / d.as_secs_f64();
    let strata_best_import = best(&strata_runs);
    let ox_best_import = best(&ox_runs);
    let fmt_runs = |v: &[Duration]| {
        v.iter()
            .map(|d| format!("{:.2}", d.as_secs_f64()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    print_table(
        &[
            "engine",
            "what is timed",
            "runs (s)",
            "best (s)",
            "triples/s",
            "ratio vs oxigraph",
        ],
        &[
            vec![
                "strata".into(),
                "parse + intern + 1 durable commit (fsync)".into(),
                fmt_runs(&strata_runs),
                format!("{:.2}", strata_best_import.as_secs_f64()),
                thousands(rate(strata_best_import) as u64),
                format!(
                    "{:.2}× time",
                    strata_best_import.as_secs_f64() / ox_best_import.as_secs_f64()
                ),
            ],
            vec![
                "strata".into(),
                "… of which parse + intern".into(),
                fmt_runs(&strata_parse),
                format!("{:.2}", best(&strata_parse).as_secs_f64()),
                "".into(),
                "".into(),
            ],
            vec![
                "strata".into(),
                "… of which commit (index + log + fsync)".into(),
                fmt_runs(&strata_commit),
                format!("{:.2}", best(&strata_commit).as_secs_f64()),
                "".into(),
                "".into(),
            ],
            vec![
                "strata".into(),
                "+ flush to store files (engine.close(), first run)".into(),
                format!("{:.2}", flush_time.as_secs_f64()),
                format!("{:.2}", (strata_best_import + flush_time).as_secs_f64()),
                thousands(rate(strata_best_import + flush_time) as u64),
                format!(
                    "{:.2}× time",
                    (strata_best_import + flush_time).as_secs_f64() / ox_best_import.as_secs_f64()
                ),
            ],
            vec![
                "oxigraph (in memory)".into(),
                "bulk_loader().load_from_slice + commit".into(),
                fmt_runs(&ox_runs),
                format!("{:.2}", ox_best_import.as_secs_f64()),
                thousands(rate(ox_best_import) as u64),
                "1.00× time".into(),
            ],
        ],
    );

    println!("## (e) Footprint ({} triples)\n", thousands(n_triples));
    let per = |b: u64| format!("{:.1}", b as f64 / n_triples as f64);
    let row = |what: &str, b: u64| {
        vec![
            what.to_owned(),
            thousands(b),
            format!("{:.1}", data::mib(b)),
            per(b),
        ]
    };
    let rss_strata = rss_after_strata.saturating_sub(rss_before_strata);
    let hwm_strata = hwm_after_strata.saturating_sub(hwm_before_strata.max(rss_before_strata));
    let rss_ox = rss_after_ox.saturating_sub(rss_before_ox);
    print_table(
        &["measure", "bytes", "MiB", "bytes/triple"],
        &[
            row("strata disk after import: commits.log", disk_after_import.0),
            row("strata disk after import: store files", disk_after_import.1),
            row(
                "strata disk after import: graph dir total",
                disk_after_import.2,
            ),
            row("strata disk after close: commits.log", disk_after_close.0),
            row("strata disk after close: store files", disk_after_close.1),
            row(
                "strata disk after close: graph dir total",
                disk_after_close.2,
            ),
            row("strata RSS increase across import", rss_strata),
            row("strata peak RSS increase during import", hwm_strata),
            row("oxigraph (in memory) RSS increase across bulk load", rss_ox),
            row(
                "(for scale) N-Triples input, uncompressed",
                bsbm.ntriples.len() as u64,
            ),
        ],
    );
    println!(
        "RSS ratio strata/oxigraph: {:.2}\n",
        rss_strata as f64 / rss_ox.max(1) as f64
    );

    println!(
        "## (a) Head queries: sum over the 20 instances of each template of the best of {passes} back-to-back runs per query (ms)\n"
    );
    let templates = by_template(&bsbm.queries);
    let mut rows = Vec::new();
    let (mut total_s, mut total_o, mut total_u) = (Duration::ZERO, Duration::ZERO, Duration::ZERO);
    for (template, indices) in &templates {
        let s: Duration = indices.iter().map(|&i| strata_best[i]).sum();
        let o: Duration = indices.iter().map(|&i| ox_best[i]).sum();
        let u: Duration = indices.iter().map(|&i| untimed_best[i]).sum();
        total_s += s;
        total_o += o;
        total_u += u;
        rows.push(vec![
            template.clone(),
            indices.len().to_string(),
            format!("{:.2}", ms(s)),
            format!("{:.2}", ms(o)),
            format!("{:.2}", ms(s) / ms(o)),
            format!("{:.2}", ms(u)),
            format!("{:.2}", ms(u) / ms(o)),
        ]);
    }
    rows.push(vec![
        "**total**".into(),
        bsbm.queries.len().to_string(),
        format!("{:.2}", ms(total_s)),
        format!("{:.2}", ms(total_o)),
        format!("**{:.2}**", ms(total_s) / ms(total_o)),
        format!("{:.2}", ms(total_u)),
        format!("**{:.2}**", ms(total_u) / ms(total_o)),
    ]);
    print_table(
        &[
            "template",
            "queries",
            "strata ms",
            "oxigraph ms",
            "ratio strata/oxigraph",
            "strata, no query timeout, ms",
            "ratio (no timeout)/oxigraph",
        ],
        &rows,
    );
    // Geometric mean of per-query ratios: less dominated by the slowest template.
    let geo = |times: &[Duration]| {
        (times
            .iter()
            .zip(&ox_best)
            .map(|(s, o)| (ms(*s) / ms(*o)).ln())
            .sum::<f64>()
            / times.len() as f64)
            .exp()
    };
    println!(
        "Geometric mean of per-query ratios strata/oxigraph: {:.2} (default config, 60 s query timeout), {:.2} (no query timeout)\n",
        geo(&strata_best),
        geo(&untimed_best)
    );
    report_counts(&bsbm.queries, &strata_counts, &ox_counts);

    // The 1-commit store of (a) stays open: its head is timed next to the 102-commit
    // store's, in the same loop.
    drop(store);
    let flat_graph = graph;

    // ---------------------------------------------------------------------------------
    // (b) Pinned reads over a history of 102 commits.
    // ---------------------------------------------------------------------------------
    let history_dir = data::temp_dir();
    let history_engine =
        Engine::open(history_dir.path(), EngineConfig::default()).expect("open engine");
    let graph = history_engine.graph_or_create("main").expect("graph");
    let chunks = data::split_lines(&bsbm.ntriples, 100);
    let started = Instant::now();
    let mut chunk_times = Vec::with_capacity(chunks.len());
    for (i, chunk) in chunks.iter().enumerate() {
        let chunk_started = Instant::now();
        let outcome = graph
            .import(
                *chunk,
                &import_options(&format!("chunk {i}")),
                &CommitRequest::default(),
            )
            .expect("import chunk");
        assert_eq!(outcome.commit_seq, Some(i as u64 + 1));
        chunk_times.push(chunk_started.elapsed());
    }
    let load_100 = started.elapsed();
    assert_eq!(graph.head_seq(), 100);
    // Every 10th triple: deleted in commit 101, re-added in commit 102.
    let tenth: Vec<&[u8]> = bsbm
        .ntriples
        .split_inclusive(|&b| b == b'\n')
        .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
        .step_by(10)
        .collect();
    let mut delete = String::with_capacity(tenth.iter().map(|l| l.len()).sum::<usize>() + 32);
    delete.push_str("DELETE DATA {\n");
    for line in &tenth {
        delete.push_str(std::str::from_utf8(line).expect("utf-8"));
    }
    delete.push('}');
    let started = Instant::now();
    let deleted = graph
        .update(
            &delete,
            None,
            &Default::default(),
            &CommitRequest::default(),
        )
        .expect("delete 10%");
    let delete_time = started.elapsed();
    assert_eq!(deleted.commit_seq, Some(101));
    assert_eq!(deleted.deleted, tenth.len() as u64);
    let readd: Vec<u8> = tenth.concat();
    let started = Instant::now();
    let readded = graph
        .import(
            &readd[..],
            &import_options("re-add"),
            &CommitRequest::default(),
        )
        .expect("re-add 10%");
    let readd_time = started.elapsed();
    assert_eq!(readded.commit_seq, Some(102));
    assert_eq!(readded.inserted, tenth.len() as u64);
    assert_eq!(graph.read_at(100).count_quads(), n_triples);
    assert_eq!(
        graph.read_at(101).count_quads(),
        n_triples - tenth.len() as u64
    );
    assert_eq!(graph.read_at(102).count_quads(), n_triples);

    let pinned_read = ReadAt::commit(100);
    let head_read = ReadAt::head();
    let pinned_counts: Vec<_> = bsbm
        .queries
        .iter()
        .map(|q| time_strata(&graph, q, &pinned_read).1)
        .collect();
    let head_counts: Vec<_> = bsbm
        .queries
        .iter()
        .map(|q| time_strata(&graph, q, &head_read).1)
        .collect();
    for q in &bsbm.queries {
        let _ = time_strata(&flat_graph, q, &head_read);
    }
    let mut pinned_best = Vec::with_capacity(bsbm.queries.len());
    let mut head_best = Vec::with_capacity(bsbm.queries.len());
    let mut flat_best = Vec::with_capacity(bsbm.queries.len());
    for (i, q) in bsbm.queries.iter().enumerate() {
        let mut runs: [Box<dyn FnMut() -> Duration>; 3] = [
            Box::new(|| time_strata(&graph, q, &pinned_read).0),
            Box::new(|| time_strata(&graph, q, &head_read).0),
            Box::new(|| time_strata(&flat_graph, q, &head_read).0),
        ];
        let best = best_rotating(&mut runs, i, passes);
        pinned_best.push(best[0]);
        head_best.push(best[1]);
        flat_best.push(best[2]);
    }

    println!(
        "## (b) Pinned reads: {} triples loaded in 100 commits ({:.1} s), 10% ({}) deleted in commit 101 ({:.2} s, one DELETE DATA) and re-added in commit 102 ({:.2} s); best of {passes} back-to-back runs per query (ms)\n",
        thousands(n_triples),
        load_100.as_secs_f64(),
        thousands(tenth.len() as u64),
        delete_time.as_secs_f64(),
        readd_time.as_secs_f64(),
    );
    // Commits that cross `flush_every_quads` (default 50,000 changed quads) wake the
    // background flush; slow ones show what it still costs a writer.
    let mut sorted = chunk_times.clone();
    sorted.sort();
    let slow: Vec<String> = chunk_times
        .iter()
        .enumerate()
        .filter(|(_, t)| **t > sorted[sorted.len() / 2] * 3)
        .map(|(i, t)| format!("#{} {:.0} ms", i + 1, ms(*t)))
        .collect();
    println!(
        "Per-commit time of the 100 chunk imports: median {:.0} ms, max {:.0} ms; commits over 3× the median ({}): {}\n",
        ms(sorted[sorted.len() / 2]),
        ms(sorted[sorted.len() - 1]),
        slow.len(),
        slow.join(", ")
    );
    let mut rows = Vec::new();
    let (mut total_p, mut total_h) = (Duration::ZERO, Duration::ZERO);
    let mut total_a = Duration::ZERO;
    for (template, indices) in &templates {
        let p: Duration = indices.iter().map(|&i| pinned_best[i]).sum();
        let h: Duration = indices.iter().map(|&i| head_best[i]).sum();
        let a: Duration = indices.iter().map(|&i| flat_best[i]).sum();
        total_p += p;
        total_h += h;
        total_a += a;
        rows.push(vec![
            template.clone(),
            format!("{:.2}", ms(p)),
            format!("{:.2}", ms(h)),
            format!("{:.2}", ms(p) / ms(h)),
            format!("{:.2}", ms(a)),
            format!("{:.2}", ms(h) / ms(a)),
        ]);
    }
    rows.push(vec![
        "**total**".into(),
        format!("{:.2}", ms(total_p)),
        format!("{:.2}", ms(total_h)),
        format!("**{:.2}**", ms(total_p) / ms(total_h)),
        format!("{:.2}", ms(total_a)),
        format!("{:.2}", ms(total_h) / ms(total_a)),
    ]);
    print_table(
        &[
            "template",
            "pinned @100 ms",
            "head @102 ms",
            "ratio pinned/head",
            "1-commit store head ms",
            "ratio 102-commit head / 1-commit head",
        ],
        &rows,
    );
    let mut mismatches = Vec::new();
    for (i, q) in bsbm.queries.iter().enumerate() {
        let (p, h, a) = (&pinned_counts[i], &head_counts[i], &strata_counts[i]);
        if p != h || h != a {
            mismatches.push(format!(
                "{}: pinned {:?}, head {:?}, 1-commit store {:?}",
                q.name, p, h, a
            ));
        }
    }
    if mismatches.is_empty() {
        println!(
            "Row counts: pinned @100, head @102 and the 1-commit store agree on all {} queries.\n",
            bsbm.queries.len()
        );
    } else {
        println!("Row count MISMATCHES between pinned, head and the 1-commit store:");
        for m in &mismatches {
            println!("- {m}");
        }
        println!();
    }
    println!("Load average at end: {}", data::load_average());
    drop(graph);
    drop(history_engine);
    drop(flat_graph);
    drop(engine);
}

/// `STRATA_BENCH_PROFILE=q11[,seconds[,oxigraph]]`: loads one engine, then runs the
/// template's queries in a loop (default 10 s), for `perf record`. Prints the mean time.
fn profile_mode(bsbm: &data::BsbmData, spec: &str) {
    let mut parts = spec.split(',');
    let template = parts.next().unwrap_or("q11").to_owned();
    if template == "import" {
        let runs: usize = parts.next().and_then(|s| s.parse().ok()).unwrap_or(3);
        let with_oxigraph = parts.next() != Some("strata");
        for _ in 0..runs {
            let dir = data::temp_dir();
            let engine = Engine::open(dir.path(), no_auto_flush()).expect("open engine");
            let graph = engine.graph_or_create("main").expect("graph");
            let run = strata_import(&graph, &bsbm.ntriples);
            let started = Instant::now();
            engine.close().expect("close (flush)");
            let flush = started.elapsed();
            let ox = if with_oxigraph {
                format!("{:.0}", ms(oxigraph_import(&bsbm.ntriples).1))
            } else {
                "-".into()
            };
            println!(
                "strata parse {:.0} commit {:.0} flush {:.0} ms | oxigraph {ox} ms",
                ms(run.parse),
                ms(run.commit),
                ms(flush),
            );
        }
        return;
    }
    let seconds: f64 = parts.next().and_then(|s| s.parse().ok()).unwrap_or(10.0);
    let oxigraph = parts.next() == Some("oxigraph");
    let queries: Vec<&BsbmQuery> = bsbm
        .queries
        .iter()
        .filter(|q| q.template == template || template == "all")
        .collect();
    assert!(!queries.is_empty(), "no queries of template {template}");
    let dir = data::temp_dir();
    let engine = Engine::open(dir.path(), no_auto_flush()).expect("open engine");
    let graph = engine.graph_or_create("main").expect("graph");
    let store = Store::new().expect("store");
    if oxigraph {
        let mut loader = store.bulk_loader();
        loader
            .load_from_slice(RdfFormat::NTriples, &bsbm.ntriples)
            .expect("load");
        loader.commit().expect("commit");
    } else {
        strata_import(&graph, &bsbm.ntriples);
    }
    eprintln!("loaded; profiling {template} for {seconds} s");
    let read = ReadAt::head();
    let started = Instant::now();
    let mut n = 0u64;
    while started.elapsed().as_secs_f64() < seconds {
        for q in &queries {
            if oxigraph {
                time_oxigraph(&store, q).1.expect("query");
            } else {
                time_strata(&graph, q, &read).1.expect("query");
            }
            n += 1;
        }
    }
    println!(
        "{template} on {}: {n} queries, mean {:.1} µs",
        if oxigraph { "oxigraph" } else { "strata" },
        started.elapsed().as_secs_f64() * 1e6 / n as f64
    );
}

/// Runs each closure `passes` times back to back and keeps its best time; the closures
/// take turns going first (rotated by `turn`).
fn best_rotating<const N: usize>(
    runs: &mut [Box<dyn FnMut() -> Duration + '_>; N],
    turn: usize,
    passes: usize,
) -> [Duration; N] {
    let mut best = [Duration::MAX; N];
    for k in 0..N {
        let j = (turn + k) % N;
        for _ in 0..passes {
            best[j] = best[j].min(runs[j]());
        }
    }
    best
}

struct StrataImport {
    triples: u64,
    parse: Duration,
    commit: Duration,
}

impl StrataImport {
    fn total(&self) -> Duration {
        self.parse + self.commit
    }
}

fn strata_import(graph: &Graph, ntriples: &[u8]) -> StrataImport {
    let started = Instant::now();
    let document = graph
        .parse_document(ntriples, &import_options("bsbm"), |_| {})
        .expect("parse");
    let parse = started.elapsed();
    let started = Instant::now();
    let outcome = graph
        .commit_documents(vec![document], &CommitRequest::default())
        .expect("commit");
    let commit = started.elapsed();
    assert_eq!(outcome.commit_seq, Some(1));
    StrataImport {
        triples: outcome.inserted,
        parse,
        commit,
    }
}

fn oxigraph_import(ntriples: &[u8]) -> (Store, Duration) {
    let store = Store::new().expect("store");
    let started = Instant::now();
    let mut loader = store.bulk_loader();
    loader
        .load_from_slice(RdfFormat::NTriples, ntriples)
        .expect("bulk load");
    loader.commit().expect("bulk commit");
    let elapsed = started.elapsed();
    (store, elapsed)
}

/// Parse + evaluate + iterate every result.
fn time_strata(
    graph: &Arc<Graph>,
    q: &BsbmQuery,
    at: &ReadAt,
) -> (Duration, Result<usize, String>) {
    let started = Instant::now();
    let answer = graph
        .reader(*at)
        .and_then(|reader| reader.query(&q.text, &ReadOptions::default()));
    let n = match answer {
        Ok(answer) => count_results(answer.results),
        Err(e) => Err(e.to_string()),
    };
    (started.elapsed(), n)
}

/// Parse + evaluate + iterate every result.
fn time_oxigraph(store: &Store, q: &BsbmQuery) -> (Duration, Result<usize, String>) {
    let started = Instant::now();
    let n = match SparqlEvaluator::new().parse_query(&q.text) {
        Ok(prepared) => match prepared.on_store(store).execute() {
            Ok(results) => count_results(results),
            Err(e) => Err(e.to_string()),
        },
        Err(e) => Err(e.to_string()),
    };
    (started.elapsed(), n)
}

fn by_template(queries: &[BsbmQuery]) -> BTreeMap<String, Vec<usize>> {
    let mut map: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, q) in queries.iter().enumerate() {
        map.entry(q.template.clone()).or_default().push(i);
    }
    map
}

fn report_counts(
    queries: &[BsbmQuery],
    strata: &[Result<usize, String>],
    oxigraph: &[Result<usize, String>],
) {
    let mut vs_oxigraph = Vec::new();
    let mut vs_manifest = Vec::new();
    for (i, q) in queries.iter().enumerate() {
        if strata[i] != oxigraph[i] {
            vs_oxigraph.push(format!(
                "{}: strata {:?}, oxigraph {:?}",
                q.name, strata[i], oxigraph[i]
            ));
        }
        if let Some(expected) = q.expected_count {
            for (engine, n) in [("strata", &strata[i]), ("oxigraph", &oxigraph[i])] {
                if n.as_ref().ok() != Some(&expected) {
                    vs_manifest.push(format!(
                        "{} ({engine}): {:?}, manifest {expected}",
                        q.name, n
                    ));
                }
            }
        }
    }
    if vs_oxigraph.is_empty() {
        println!(
            "Row counts: strata = oxigraph on all {} queries.",
            queries.len()
        );
    } else {
        println!(
            "Row count MISMATCHES strata vs oxigraph ({} of {}):",
            vs_oxigraph.len(),
            queries.len()
        );
        for m in &vs_oxigraph {
            println!("- {m}");
        }
    }
    if vs_manifest.is_empty() {
        println!("Row counts: both engines match manifest.tsv's result_count on every query.\n");
    } else {
        println!("Row counts differing from manifest.tsv's result_count:");
        for m in &vs_manifest {
            println!("- {m}");
        }
        println!();
    }
}
