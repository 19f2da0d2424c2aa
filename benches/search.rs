//! Search quality and speed (a report, not a test):
//!
//! * `ann`: the HNSW lane on the seeded clustered set of `../shared/data/ann` (100k × 128,
//!   cosine; `STRATA_BENCH_ANN_N=1000000` for 1M): build time and, at several `ef`,
//!   recall@10 (distance threshold, ε = 1e-3, and id overlap) and single-thread queries/s,
//!   side by side with hnswlib (PyPI, `benches/peers/hnswlib_ann.py`, same M and
//!   ef_construction, same build threads); then filtered recall@10 at 50 %, 10 % and 1 %
//!   selectivity (filter inside the HNSW search), against exact filtered neighbours. The set
//!   is generated with the folder's script into `target/ann/` when missing, by the peers'
//!   venv (`target/peers-venv`, numpy and hnswlib installed on first use).
//! * `cranfield`: nDCG@10 of the sparse, dense and hybrid lanes over Cranfield queries
//!   1–112 with the default embedder (all-MiniLM-L6-v2 when fetched), next to the BM25
//!   baseline of the folder's REFERENCE.md (0.3221).
//! * `sparql`: p50/p95 latency of a SPARQL query with a `search:` pattern, two joins and a
//!   FILTER on a 100k-record graph (hashed embedder, so the build stays quick).
//!
//! * `embedding`: records/s embedding the 1,400 Cranfield abstracts with the in-process
//!   all-MiniLM-L6-v2, side by side with ONNX Runtime (PyPI) running the same weights
//!   (`benches/peers/minilm_onnxruntime.py`) on the same texts and threads, the achieved
//!   GFLOP/s of the forward pass, and the lowest cosine between the two engines' vectors.
//!
//! Run with `cargo bench --bench search` (all parts) or
//! `STRATA_BENCH_PART=ann|cranfield|sparql|embedding`
//! (`STRATA_BENCH_INDEX_THREADS=N` caps the Cranfield indexing threads, default every core);
//! `STRATA_BENCH_ANN_FILTERED=0` skips the (slow, brute-force-checked) filtered runs;
//! `STRATA_BENCH_PEER=0` skips the ONNX Runtime run of `embedding`.

#[path = "data.rs"]
mod data;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use data::print_table;
use strata::Engine;
use strata::engine::{
    CommitRequest, EngineConfig, ImportFormat, ImportOptions, ReadOptions, SearchRequest,
};
use strata::model::NamedNode;
use strata::search::dense::{DenseIndex, HnswParams, dot};
use strata::search::embed::minilm::{DIM, MAX_TOKENS};
use strata::search::embed::{MiniLmEmbedder, embed_parallel};
use strata::search::{Declaration, Lane};

fn shared() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data")
}

/// Reads a little-endian `.npy` of f32 or i32 as (rows, cols, values as f32 / i32 bits).
fn npy(path: &Path) -> (usize, usize, Vec<u8>, bool) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(&bytes[..6], b"\x93NUMPY");
    let (header_len, start) = if bytes[6] == 1 {
        (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10)
    } else {
        (
            u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
            12,
        )
    };
    let header = std::str::from_utf8(&bytes[start..start + header_len]).unwrap();
    let is_float = header.contains("<f4");
    let shape = header
        .split("'shape': (")
        .nth(1)
        .unwrap()
        .split(')')
        .next()
        .unwrap();
    let dims: Vec<usize> = shape
        .split(',')
        .filter_map(|d| d.trim().parse().ok())
        .collect();
    (
        dims[0],
        dims[1],
        bytes[start + header_len..].to_vec(),
        is_float,
    )
}

fn f32s(raw: &[u8]) -> Vec<f32> {
    raw.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn i32s(raw: &[u8]) -> Vec<i32> {
    raw.chunks_exact(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn ann() {
    let n_base = data::env_usize("STRATA_BENCH_ANN_N", 100_000);
    let python = data::peer_python(&["numpy", "hnswlib"]);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(format!("target/ann/clustered-{}k-128-cos", n_base / 1000));
    if !dir.join("gt_ids.npy").is_file() {
        std::fs::create_dir_all(&dir).unwrap();
        let status = std::process::Command::new(&python)
            .arg(shared().join("ann/make_ann_dataset.py"))
            .args([
                dir.to_str().unwrap(),
                &n_base.to_string(),
                "1000",
                "128",
                "10",
                "cosine",
            ])
            .stdout(std::process::Stdio::null())
            .status();
        assert!(
            status.is_ok_and(|s| s.success()),
            "could not generate the ANN set"
        );
    }
    let (n, dim, base, _) = npy(&dir.join("base.npy"));
    let (nq, _, query, _) = npy(&dir.join("query.npy"));
    let (_, gt_k, gt_ids, _) = npy(&dir.join("gt_ids.npy"));
    let (_, _, gt_dist, _) = npy(&dir.join("gt_dist.npy"));
    let base = f32s(&base);
    let query = f32s(&query);
    let gt_ids = i32s(&gt_ids);
    let gt_dist = f32s(&gt_dist);
    let k = 10;
    let efs = [10usize, 20, 50, 100, 200];
    let threads = 2;
    let params = HnswParams {
        max_connections: 16,
        ef_construction: 200,
        ef_search: 64,
    };
    let started = Instant::now();
    let mut index = DenseIndex::new(dim, params, n);
    index.set_threads(threads);
    let items: Vec<(Arc<str>, Vec<f32>)> = (0..n)
        .map(|i| {
            (
                Arc::from(i.to_string()),
                base[i * dim..(i + 1) * dim].to_vec(),
            )
        })
        .collect();
    index.upsert(items);
    let build = started.elapsed();

    // hnswlib in its own process, after Strata's build (so they never share the cores).
    let ids_path = dir.join("hnswlib-ids.bin");
    let efs_text = efs.map(|e| e.to_string()).join(",");
    let output = std::process::Command::new(&python)
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/peers/hnswlib_ann.py"))
        .args([
            "--set",
            dir.to_str().unwrap(),
            "--m",
            "16",
            "--ef-construction",
            "200",
        ])
        .args([
            "--build-threads",
            &threads.to_string(),
            "--k",
            &k.to_string(),
        ])
        .args(["--ef", &efs_text, "--out", ids_path.to_str().unwrap()])
        .stderr(std::process::Stdio::inherit())
        .output()
        .expect("run hnswlib");
    assert!(output.status.success(), "the hnswlib peer failed");
    let peer: serde_json::Value = serde_json::from_slice(&output.stdout).expect("peer JSON");
    let peer_ids: Vec<usize> = std::fs::read(&ids_path)
        .expect("peer ids")
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as usize)
        .collect();
    println!(
        "ANN: {n} × {dim} cosine, {nq} queries, M 16, ef_construction 200, {threads} build threads; \
         build: strata {:.1} s, hnswlib {:.1} s (ratio {:.2})",
        build.as_secs_f64(),
        peer["build_seconds"].as_f64().unwrap(),
        build.as_secs_f64() / peer["build_seconds"].as_f64().unwrap()
    );
    let vector = |i: usize| &base[i * dim..(i + 1) * dim];
    let distance = |q: &[f32], i: usize| 1.0 - dot(q, vector(i));
    // Recall@10 by distance threshold (ε = 1e-3) and by id overlap, as the set's README says.
    let score = |results: &[Vec<usize>]| -> (f64, f64) {
        let (mut threshold_hits, mut overlap_hits) = (0usize, 0usize);
        for (q, found) in results.iter().enumerate() {
            let qv = &query[q * dim..(q + 1) * dim];
            let limit = gt_dist[q * gt_k + k - 1] + 1e-3;
            let truth: HashSet<i32> = gt_ids[q * gt_k..q * gt_k + k].iter().copied().collect();
            threshold_hits += found.iter().filter(|&&i| distance(qv, i) <= limit).count();
            overlap_hits += found
                .iter()
                .filter(|&&i| truth.contains(&(i as i32)))
                .count();
        }
        let total = (nq * k) as f64;
        (threshold_hits as f64 / total, overlap_hits as f64 / total)
    };
    let mut rows = Vec::new();
    for (e, ef) in efs.into_iter().enumerate() {
        // Best of three passes over the queries.
        let mut best = Duration::MAX;
        let mut results: Vec<Vec<usize>> = Vec::new();
        for _ in 0..3 {
            let started = Instant::now();
            results = (0..nq)
                .map(|q| {
                    index
                        .search(&query[q * dim..(q + 1) * dim], k, Some(ef), None)
                        .into_iter()
                        .map(|h| h.record.parse::<usize>().unwrap())
                        .collect()
                })
                .collect();
            best = best.min(started.elapsed());
        }
        let (recall, overlap) = score(&results);
        let peer_results: Vec<Vec<usize>> = (0..nq)
            .map(|q| peer_ids[(e * nq + q) * k..(e * nq + q + 1) * k].to_vec())
            .collect();
        let (peer_recall, peer_overlap) = score(&peer_results);
        let qps = nq as f64 / best.as_secs_f64();
        let run = &peer["runs"][e];
        let peer_batch = run["batch_qps"].as_f64().unwrap();
        let peer_call = run["call_qps"].as_f64().unwrap();
        rows.push(vec![
            ef.to_string(),
            format!("{recall:.4} / {overlap:.4}"),
            format!("{qps:.0}"),
            format!("{peer_recall:.4} / {peer_overlap:.4}"),
            format!("{peer_batch:.0}"),
            format!("{peer_call:.0}"),
            format!("**{:.2}**", qps / peer_batch),
        ]);
    }
    print_table(
        &[
            "ef",
            "strata recall@10 (threshold / id overlap)",
            "strata q/s",
            "hnswlib recall@10",
            "hnswlib q/s (one batched call)",
            "hnswlib q/s (a call per query)",
            "q/s strata / hnswlib batched",
        ],
        &rows,
    );

    if std::env::var("STRATA_BENCH_ANN_FILTERED").as_deref() == Ok("0") {
        return;
    }
    // Filtered: ids with id % 100 < p pass; exact filtered neighbours by brute force.
    let mut rows = Vec::new();
    for percent in [50usize, 10, 1] {
        let allow = |record: &str| record.parse::<usize>().is_ok_and(|i| i % 100 < percent);
        for ef in [64, 200] {
            let started = Instant::now();
            let mut hits_total = 0usize;
            for q in 0..nq {
                let qv = &query[q * dim..(q + 1) * dim];
                let found: Vec<usize> = index
                    .search(qv, k, Some(ef), Some(&allow))
                    .into_iter()
                    .map(|h| h.record.parse().unwrap())
                    .collect();
                let mut exact: Vec<(f32, usize)> = (0..n)
                    .filter(|i| i % 100 < percent)
                    .map(|i| (distance(qv, i), i))
                    .collect();
                exact.select_nth_unstable_by(k - 1, |a, b| a.0.total_cmp(&b.0));
                let limit = exact[..k].iter().map(|e| e.0).fold(f32::MIN, f32::max) + 1e-3;
                hits_total += found.iter().filter(|&&i| distance(qv, i) <= limit).count();
            }
            let elapsed = started.elapsed();
            rows.push(vec![
                format!("{percent} %"),
                ef.to_string(),
                format!("{:.4}", hits_total as f64 / (nq * k) as f64),
                format!("{:.1}", elapsed.as_secs_f64()),
            ]);
        }
    }
    print_table(
        &[
            "selectivity",
            "ef",
            "filtered recall@10 (threshold)",
            "s (incl. brute force)",
        ],
        &rows,
    );
}

fn ndcg_at_10(ranked: &[String], judged: &HashMap<String, f64>) -> f64 {
    let dcg: f64 = ranked
        .iter()
        .take(10)
        .enumerate()
        .map(|(i, d)| judged.get(d).copied().unwrap_or(0.0) / ((i + 2) as f64).log2())
        .sum();
    let mut ideal: Vec<f64> = judged.values().copied().collect();
    ideal.sort_by(|a, b| b.total_cmp(a));
    let idcg: f64 = ideal
        .iter()
        .take(10)
        .enumerate()
        .map(|(i, g)| g / ((i + 2) as f64).log2())
        .sum();
    if idcg == 0.0 { 0.0 } else { dcg / idcg }
}

fn cranfield() {
    let folder = shared().join("cranfield");
    let Ok(nt) = std::fs::read(folder.join("cranfield.nt")) else {
        println!("SKIP cranfield: {} is missing", folder.display());
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let config = EngineConfig {
        model_dir: Path::new(env!("CARGO_MANIFEST_DIR")).join("models/all-MiniLM-L6-v2"),
        index_threads: data::env_usize(
            "STRATA_BENCH_INDEX_THREADS",
            EngineConfig::default().index_threads,
        ),
        ..EngineConfig::default()
    };
    let config_threads = config.index_threads;
    let engine = Engine::open(tmp.path(), config).unwrap();
    let graph = engine.graph_or_create("cranfield").unwrap();
    let options = ImportOptions {
        format: ImportFormat::from_name("nt").unwrap(),
        base_iri: None,
        into_graph: None,
        one_graph: false,
        source_name: "cranfield.nt".into(),
    };
    graph
        .import(&nt[..], &options, &CommitRequest::default())
        .unwrap();
    let declaration = Declaration {
        name: "docs".into(),
        class: NamedNode::new_unchecked("http://purl.org/dc/terms/BibliographicResource"),
        from: vec![NamedNode::new_unchecked(
            "http://purl.org/dc/terms/abstract",
        )],
        exclude: vec![],
        hnsw: Default::default(),
    };
    let started = Instant::now();
    graph
        .declare_embedding(&declaration, &CommitRequest::by_admin())
        .unwrap();
    assert!(graph.read().wait_for_indexes(Duration::from_secs(3600)));
    let status = &graph.index_status()[0];
    println!(
        "Cranfield: {} documents indexed in {:.1} s with {} (semantic: {}), {} threads",
        status.records,
        started.elapsed().as_secs_f64(),
        status.embedder,
        status.semantic,
        config_threads
    );
    let mut qrels: HashMap<String, HashMap<String, f64>> = HashMap::new();
    for line in std::fs::read_to_string(folder.join("qrels.tsv"))
        .unwrap()
        .lines()
        .skip(1)
    {
        let parts: Vec<&str> = line.split('\t').collect();
        qrels.entry(parts[0].to_owned()).or_default().insert(
            format!("http://strata.example/cranfield/doc/{}", parts[1]),
            parts[2].parse().unwrap(),
        );
    }
    let queries: Vec<(String, String)> = std::fs::read_to_string(folder.join("queries.jsonl"))
        .unwrap()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (
                v["_id"].as_str().unwrap().to_owned(),
                v["text"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let mut rows = Vec::new();
    for lane in [Lane::Sparse, Lane::Dense, Lane::Hybrid] {
        let started = Instant::now();
        let mut total = 0.0;
        for (id, text) in &queries {
            let outcome = graph
                .read()
                .search(&SearchRequest {
                    index: None,
                    text: text.clone(),
                    vector: None,
                    lane,
                    k: 10,
                    min_score: None,
                    candidates: None,
                    strong: false,
                })
                .unwrap();
            let ranked: Vec<String> = outcome
                .hits
                .iter()
                .map(|h| h.hit.record.to_string())
                .collect();
            total += ndcg_at_10(&ranked, qrels.get(id).unwrap_or(&HashMap::new()));
        }
        rows.push(vec![
            lane.name().to_owned(),
            format!("{:.4}", total / queries.len() as f64),
            format!(
                "{:.1}",
                started.elapsed().as_secs_f64() * 1000.0 / queries.len() as f64
            ),
        ]);
    }
    rows.push(vec![
        "BM25 baseline (REFERENCE.md)".into(),
        "0.3221".into(),
        "-".into(),
    ]);
    print_table(&["lane", "nDCG@10 (112 queries)", "ms/query"], &rows);
    // End to end with the real model: each query's text is embedded inside the SPARQL
    // evaluation of a `search:` pattern joined with the documents' titles.
    let mut times = Vec::new();
    for (_, text) in &queries {
        let escaped = text.replace('\\', "\\\\").replace('"', "\\\"");
        let sparql = format!(
            "PREFIX search: <https://strata.dev/ns/search#> PREFIX dc: <http://purl.org/dc/terms/>
             SELECT ?doc ?title ?score WHERE {{
               ?doc search:nearest \"{escaped}\" ; search:k 10 ; search:score ?score .
               OPTIONAL {{ ?doc dc:title ?title }}
             }} ORDER BY DESC(?score)"
        );
        let started = Instant::now();
        let answer = graph
            .read()
            .query(&sparql, &ReadOptions::default())
            .unwrap();
        let rows = data::count_results(answer.results).expect("results");
        times.push(started.elapsed());
        assert!(rows > 0, "a search: query found nothing for {text:?}");
    }
    times.sort();
    println!(
        "SPARQL search: (hybrid, k 10, real model, query text embedded in the query) + OPTIONAL title over {} queries: p50 {:.1} ms, p95 {:.1} ms",
        times.len(),
        times[times.len() / 2].as_secs_f64() * 1000.0,
        times[times.len() * 95 / 100].as_secs_f64() * 1000.0
    );
    engine.close().unwrap();
}

fn sparql_latency() {
    let tmp = tempfile::tempdir().unwrap();
    let config = EngineConfig {
        model_dir: tmp.path().join("no-model"),
        ..EngineConfig::default()
    };
    let engine = Engine::open(tmp.path().join("data"), config).unwrap();
    let graph = engine.graph_or_create("desk").unwrap();
    let words = [
        "login", "invoice", "crash", "upload", "password", "slow", "report", "export", "sync",
        "billing",
    ];
    let mut nt = String::new();
    let ex = "http://example.org/support/";
    for i in 0..100_000usize {
        let a = words[i % words.len()];
        let b = words[(i / 10) % words.len()];
        nt.push_str(&format!(
            "<{ex}t{i}> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <{ex}Ticket> .\n<{ex}t{i}> <http://www.w3.org/2000/01/rdf-schema#label> \"{a} problem with {b} number {i}\" .\n<{ex}t{i}> <{ex}customer> <{ex}c{}> .\n<{ex}c{}> <{ex}plan> \"{}\" .\n<{ex}t{i}> <{ex}priority> \"{}\"^^<http://www.w3.org/2001/XMLSchema#integer> .\n",
            i % 5_000,
            i % 5_000,
            if i % 3 == 0 { "enterprise" } else { "basic" },
            i % 5
        ));
    }
    let options = ImportOptions {
        format: ImportFormat::from_name("nt").unwrap(),
        base_iri: None,
        into_graph: None,
        one_graph: false,
        source_name: "desk.nt".into(),
    };
    graph
        .import(nt.as_bytes(), &options, &CommitRequest::default())
        .unwrap();
    let declaration = Declaration {
        name: "tickets".into(),
        class: NamedNode::new_unchecked(format!("{ex}Ticket")),
        from: vec![],
        exclude: vec![],
        hnsw: Default::default(),
    };
    let started = Instant::now();
    graph
        .declare_embedding(&declaration, &CommitRequest::by_admin())
        .unwrap();
    assert!(graph.read().wait_for_indexes(Duration::from_secs(3600)));
    println!(
        "SPARQL search: 100,000 tickets indexed in {:.1} s (hashed embedder)",
        started.elapsed().as_secs_f64()
    );
    let query = format!(
        "PREFIX search: <https://strata.dev/ns/search#> PREFIX ex: <{ex}>
         SELECT ?t ?s ?plan WHERE {{
           ?t search:nearest \"password problem with login\" ; search:k 20 ; search:score ?s .
           ?t ex:customer ?c . ?c ex:plan ?plan . ?t ex:priority ?p FILTER(?p >= 2)
         }} ORDER BY DESC(?s)"
    );
    let mut times = Vec::new();
    let mut plan = String::new();
    for _ in 0..50 {
        let started = Instant::now();
        let answer = graph.read().query(&query, &ReadOptions::default()).unwrap();
        let rows = data::count_results(answer.results).expect("results");
        times.push(started.elapsed());
        plan = format!(
            "{} ({} rows, asked {})",
            answer.search[0].plan, rows, answer.search[0].asked
        );
    }
    times.sort();
    println!(
        "search: + 2 joins + FILTER on 100k records: p50 {:.1} ms, p95 {:.1} ms; plan {plan}",
        times[times.len() / 2].as_secs_f64() * 1000.0,
        times[times.len() * 95 / 100].as_secs_f64() * 1000.0
    );
}

/// Embedding throughput on the 1,400 Cranfield abstracts: Strata's in-process MiniLM
/// (`embed_parallel`, as indexing runs it) against ONNX Runtime running the same weights
/// (`benches/peers/minilm_onnxruntime.py`), same texts, same threads, one after the other.
fn embedding() {
    let model_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/all-MiniLM-L6-v2");
    let Ok(corpus) = std::fs::read_to_string(shared().join("cranfield/corpus.jsonl")) else {
        println!("SKIP embedding: the Cranfield corpus is missing");
        return;
    };
    let model = match MiniLmEmbedder::load(&model_dir) {
        Ok(model) => model,
        Err(e) => {
            println!("SKIP embedding: {e} (run scripts/fetch-model.sh)");
            return;
        }
    };
    let texts: Vec<String> = corpus
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["text"].as_str().unwrap().to_owned()
        })
        .collect();
    let text_refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let threads = data::env_usize(
        "STRATA_BENCH_INDEX_THREADS",
        EngineConfig::default().index_threads,
    );
    let tokens: usize = text_refs
        .iter()
        .map(|t| model.tokenizer().encode(t, MAX_TOKENS).len())
        .sum();
    // Multiply-adds of the forward pass, twice for FLOPs: per token and layer, the four
    // projections (Q, K and V, attention output, two feed-forward) and attention against
    // every token of its own text.
    let (hidden, ffn, layers) = (384.0, 1536.0, 6.0);
    let gflop: f64 = text_refs
        .iter()
        .map(|t| {
            let n = model.tokenizer().encode(t, MAX_TOKENS).len() as f64;
            2.0 * layers * n * (4.0 * hidden * hidden + 2.0 * hidden * ffn + 2.0 * n * hidden)
        })
        .sum::<f64>()
        / 1e9;
    embed_parallel(&model, &text_refs[..32], threads).unwrap(); // warm-up
    let mut best = f64::INFINITY;
    let mut ours = Vec::new();
    for _ in 0..2 {
        let started = Instant::now();
        ours = embed_parallel(&model, &text_refs, threads).unwrap();
        best = best.min(started.elapsed().as_secs_f64());
    }

    if std::env::var("STRATA_BENCH_PEER").as_deref() == Ok("0") {
        println!(
            "Embedding {} Cranfield abstracts, {threads} threads: strata {best:.1} s ({:.1} records/s, {:.0} GFLOP/s)",
            texts.len(),
            texts.len() as f64 / best,
            gflop / best
        );
        return;
    }
    let python = data::peer_python(&["numpy", "onnx", "onnxruntime", "tokenizers"]);
    let tmp = tempfile::tempdir().unwrap();
    let texts_path = tmp.path().join("texts.jsonl");
    let lines: String = texts
        .iter()
        .map(|t| serde_json::to_string(t).unwrap() + "\n")
        .collect();
    std::fs::write(&texts_path, lines).unwrap();
    let vectors_path = tmp.path().join("vectors.bin");
    let output = std::process::Command::new(&python)
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/peers/minilm_onnxruntime.py"))
        .args(["--model", model_dir.to_str().unwrap()])
        .args(["--texts", texts_path.to_str().unwrap()])
        .args(["--threads", &threads.to_string(), "--runs", "2"])
        .args(["--out", vectors_path.to_str().unwrap()])
        .stderr(std::process::Stdio::inherit())
        .output()
        .expect("run the onnxruntime peer");
    assert!(output.status.success(), "the onnxruntime peer failed");
    let peer: serde_json::Value = serde_json::from_slice(&output.stdout).expect("peer JSON");
    let peer_seconds = peer["seconds"].as_f64().unwrap();
    let theirs = f32s(&std::fs::read(&vectors_path).unwrap());
    let agreement = ours
        .iter()
        .zip(theirs.chunks_exact(DIM))
        .map(|(a, b)| dot(a, b))
        .fold(f32::INFINITY, f32::min);
    println!(
        "Embedding {} Cranfield abstracts ({tokens} tokens, {gflop:.0} GFLOP), {threads} threads: \
         strata {best:.1} s ({:.1} records/s, {:.0} GFLOP/s), onnxruntime {} {peer_seconds:.1} s \
         ({:.1} records/s, padded to {} tokens); throughput ratio strata/onnxruntime {:.2}; \
         lowest cosine between the two engines' vectors {agreement:.6}",
        texts.len(),
        texts.len() as f64 / best,
        gflop / best,
        peer["onnxruntime"].as_str().unwrap_or("?"),
        texts.len() as f64 / peer_seconds,
        peer["padded_tokens"],
        peer_seconds / best,
    );
}

fn main() {
    let part = std::env::var("STRATA_BENCH_PART").unwrap_or_else(|_| "all".into());
    if part == "all" || part == "embedding" {
        embedding();
    }
    if part == "all" || part == "ann" {
        ann();
    }
    if part == "all" || part == "cranfield" {
        cranfield();
    }
    if part == "all" || part == "sparql" {
        sparql_latency();
    }
}
