// Temporary measurement tool (not committed).
use std::time::{Duration, Instant};
use strata::engine::ReadOptions;
use strata::sparql::{ResultsFormat, UpdateOptions, write_results};
use strata::{Engine, EngineConfig};

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let n: usize = a[1].parse().unwrap();
    let limit_ms: u64 = a[2].parse().unwrap();
    let query = a.get(3).cloned().unwrap_or(
        "SELECT * WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i } ORDER BY ?c ?f ?i LIMIT 1".into(),
    );
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::open(dir.path(), EngineConfig::default()).unwrap();
    let graph = engine.graph_or_create("main").unwrap();
    let data: String = (0..n)
        .map(|i| format!("<http://e/s{i}> <http://e/p> \"{i}\" .\n"))
        .collect();
    graph
        .update(
            &format!("INSERT DATA {{ {data} }}"),
            None,
            &UpdateOptions::default(),
            &Default::default(),
        )
        .unwrap();
    let h = std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(move || {
            let options = ReadOptions {
                timeout: Some(Duration::from_millis(limit_ms)),
                ..Default::default()
            };
            let t = Instant::now();
            let r = graph.read().query(&query, &options).and_then(|ans| {
                let mut out = Vec::new();
                let r = write_results(ans.results, ResultsFormat::Json, &mut out)
                    .map_err(|e| ans.control.explain(e));
                let peak = ans.control.peak_memory_bytes();
                println!("peak query memory {} MiB", peak >> 20);
                r.map_err(Into::into).map(|_| out.len())
            });
            let e = t.elapsed();
            println!(
                "result {:?} after {:?} = limit + {:?}",
                r.map_err(|e| e.to_string()),
                e,
                e.saturating_sub(Duration::from_millis(limit_ms))
            );
        })
        .unwrap();
    h.join().unwrap();
}
