//! Analytic SPARQL (joins, GROUP BY and aggregates over large ranges, BSBM Business
//! Intelligence-shaped) on BSBM data: Strata (its store on disk, files memory-mapped)
//! side by side with Oxigraph's in-memory store, in one process, each query checked for
//! the same rows in both.
//!
//! Strata runs each query on every core (`--query-threads`' default) and on one thread.
//!
//! Run with `cargo bench --bench analytic` (375k triples) or
//! `STRATA_BENCH_SCALE=1m cargo bench --bench analytic`; `STRATA_BENCH_PASSES` (timed
//! runs per query, best kept, default 3), `STRATA_BENCH_ONLY=a06,a07` (some queries),
//! `STRATA_BENCH_PROFILE=a06[,seconds]` (loop one query on Strata for `perf record`).
//! Over HTTP, beside Virtuoso and the oxigraph server: `benches/peers/analytic_http.py`.

#[path = "data.rs"]
mod data;

use std::time::{Duration, Instant};

use data::{ms, print_table};
use oxigraph::io::RdfFormat;
use oxigraph::sparql::{QueryResults, SparqlEvaluator};
use oxigraph::store::Store;
use strata::engine::{CommitRequest, Graph, ImportFormat, ImportOptions, ReadOptions};
use strata::{Engine, EngineConfig};

const PREFIXES: &str = "PREFIX bsbm: <http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/vocabulary/>
PREFIX inst: <http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/instances/>
PREFIX rev: <http://purl.org/stuff/rev#>
PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
PREFIX country: <http://downlode.org/rdf/iso-3166/countries#>
";

/// (name, what it exercises, query body)
const QUERIES: &[(&str, &str, &str)] = &[
    (
        "a01",
        "count per predicate (full scan, GROUP BY)",
        "SELECT ?p (COUNT(*) AS ?n) WHERE { ?s ?p ?o } GROUP BY ?p",
    ),
    (
        "a02",
        "instances per class",
        "SELECT ?c (COUNT(?s) AS ?n) WHERE { ?s a ?c } GROUP BY ?c",
    ),
    (
        "a03",
        "distinct subjects",
        "SELECT (COUNT(DISTINCT ?s) AS ?n) WHERE { ?s ?p ?o }",
    ),
    (
        "a04",
        "BI 1: reviews per product type, US producers, GB reviewers (6-pattern join)",
        "SELECT ?type (COUNT(?review) AS ?reviews) WHERE {
           ?product a ?type ; bsbm:producer ?producer . ?producer bsbm:country country:US .
           ?review bsbm:reviewFor ?product ; rev:reviewer ?reviewer . ?reviewer bsbm:country country:GB }
         GROUP BY ?type ORDER BY DESC(?reviews) ?type LIMIT 10",
    ),
    (
        "a05",
        "BI 2: products sharing features with one product (self-join)",
        "SELECT ?other (COUNT(?f) AS ?same) WHERE {
           inst:dataFromProducer1\\/Product1 bsbm:productFeature ?f . ?other bsbm:productFeature ?f
           FILTER(?other != inst:dataFromProducer1\\/Product1) }
         GROUP BY ?other ORDER BY DESC(?same) ?other LIMIT 10",
    ),
    (
        "a06",
        "average offer price per product type (typed values, join)",
        "SELECT ?type (AVG(xsd:double(STR(?price))) AS ?avg) (COUNT(?offer) AS ?n) WHERE {
           ?offer bsbm:product ?product ; bsbm:price ?price . ?product a ?type }
         GROUP BY ?type ORDER BY DESC(?avg) ?type LIMIT 10",
    ),
    (
        "a07",
        "offers filtered on dates and days, MIN/MAX price per vendor",
        "SELECT ?vendor (MIN(xsd:double(STR(?price))) AS ?min) (MAX(xsd:double(STR(?price))) AS ?max) (COUNT(?offer) AS ?n) WHERE {
           ?offer bsbm:vendor ?vendor ; bsbm:price ?price ; bsbm:validTo ?to ; bsbm:deliveryDays ?days
           FILTER(?to > \"2008-06-20T00:00:00\"^^xsd:dateTime && ?days <= 3) }
         GROUP BY ?vendor ORDER BY ?vendor",
    ),
    (
        "a08",
        "offers per producer and vendor (two-key group)",
        "SELECT ?producer ?vendor (COUNT(*) AS ?n) WHERE {
           ?offer bsbm:product ?product ; bsbm:vendor ?vendor . ?product bsbm:producer ?producer }
         GROUP BY ?producer ?vendor ORDER BY DESC(?n) ?producer ?vendor LIMIT 20",
    ),
    (
        "a09",
        "average rating per producer, HAVING",
        "SELECT ?producer (AVG(?r) AS ?avg) (COUNT(?review) AS ?n) WHERE {
           ?review bsbm:reviewFor ?product ; bsbm:rating1 ?r . ?product bsbm:producer ?producer }
         GROUP BY ?producer HAVING (COUNT(?review) > 10) ORDER BY DESC(?avg) ?producer",
    ),
    (
        "a10",
        "reviews per month (computed group key)",
        "SELECT ?month (COUNT(*) AS ?n) WHERE { ?review bsbm:reviewDate ?d }
         GROUP BY (SUBSTR(STR(?d), 1, 7) AS ?month) ORDER BY ?month",
    ),
    (
        "a11",
        "products without reviews per producer (NOT EXISTS)",
        "SELECT ?producer (COUNT(?product) AS ?n) WHERE {
           ?product bsbm:producer ?producer FILTER NOT EXISTS { ?review bsbm:reviewFor ?product } }
         GROUP BY ?producer ORDER BY DESC(?n) ?producer",
    ),
];

/// Rows as sorted text lines (the columns in the query's order), to compare engines.
fn rows(results: QueryResults<'_>) -> Result<Vec<String>, String> {
    let QueryResults::Solutions(solutions) = results else {
        return Err("not a SELECT".into());
    };
    let variables: Vec<_> = solutions.variables().to_vec();
    let mut out = Vec::new();
    for solution in solutions {
        let solution = solution.map_err(|e| e.to_string())?;
        let line: Vec<String> = variables
            .iter()
            .map(|v| solution.get(v).map(normalized).unwrap_or_default())
            .collect();
        out.push(line.join("\t"));
    }
    out.sort();
    Ok(out)
}

/// A term as text, doubles rounded (averages may differ in the last bits by evaluation
/// order).
fn normalized(term: &oxrdf::Term) -> String {
    if let oxrdf::Term::Literal(literal) = term
        && matches!(
            literal.datatype().as_str(),
            "http://www.w3.org/2001/XMLSchema#double" | "http://www.w3.org/2001/XMLSchema#decimal"
        )
        && let Ok(value) = literal.value().parse::<f64>()
    {
        return format!("{value:.6}");
    }
    term.to_string()
}

/// `threads`: the query's threads (`None`: the engine's, every core).
fn strata_rows(
    graph: &Graph,
    text: &str,
    threads: Option<usize>,
) -> (Duration, Result<Vec<String>, String>) {
    let started = Instant::now();
    let options = ReadOptions {
        timeout: Some(Duration::from_secs(600)),
        threads,
        ..ReadOptions::default()
    };
    let out = graph
        .read()
        .query(text, &options)
        .map_err(|e| e.to_string())
        .and_then(|answer| rows(answer.results));
    (started.elapsed(), out)
}

fn oxigraph_rows(store: &Store, text: &str) -> (Duration, Result<Vec<String>, String>) {
    let started = Instant::now();
    let out = SparqlEvaluator::new()
        .parse_query(text)
        .map_err(|e| e.to_string())
        .and_then(|q| q.on_store(store).execute().map_err(|e| e.to_string()))
        .and_then(rows);
    (started.elapsed(), out)
}

fn main() {
    let Some(bsbm) = data::load_bsbm() else {
        return;
    };
    let passes = data::env_usize("STRATA_BENCH_PASSES", 3).max(1);
    let only: Option<Vec<String>> = std::env::var("STRATA_BENCH_ONLY")
        .ok()
        .map(|s| s.split(',').map(|q| q.trim().to_owned()).collect());
    let queries: Vec<(&str, &str, String)> = QUERIES
        .iter()
        .filter(|(name, _, _)| only.as_ref().is_none_or(|o| o.iter().any(|q| q == name)))
        .map(|(name, what, body)| (*name, *what, format!("{PREFIXES}{body}")))
        .collect();

    let dir = data::temp_dir();
    let engine = Engine::open(dir.path(), EngineConfig::default()).expect("open engine");
    let graph = engine.graph_or_create("main").expect("graph");
    let options = ImportOptions {
        format: ImportFormat(RdfFormat::NTriples),
        base_iri: None,
        into_graph: None,
        one_graph: false,
        source_name: "bsbm".into(),
    };
    let document = graph
        .parse_document(&bsbm.ntriples[..], &options, |_| {})
        .expect("parse");
    graph
        .commit_documents(vec![document], &CommitRequest::default())
        .expect("import");
    // Queries read the store files (memory-mapped), as a server does after a restart.
    engine.close().expect("close");
    drop(graph);
    drop(engine);
    let engine = Engine::open(dir.path(), EngineConfig::default()).expect("reopen");
    let graph = engine.graph("main").expect("graph");

    if let Ok(spec) = std::env::var("STRATA_BENCH_PROFILE") {
        let mut parts = spec.split(',');
        let name = parts.next().unwrap_or("a01");
        let seconds: f64 = parts.next().and_then(|s| s.parse().ok()).unwrap_or(20.0);
        let text = queries
            .iter()
            .find(|(n, _, _)| *n == name)
            .map(|(_, _, t)| t.clone())
            .expect("a query of this bench");
        let started = Instant::now();
        let mut runs = 0;
        while started.elapsed().as_secs_f64() < seconds {
            let (_, out) = strata_rows(&graph, &text, None);
            out.expect("the query answers");
            runs += 1;
        }
        println!("{name}: {runs} runs in {:.1?}", started.elapsed());
        return;
    }

    let store = Store::new().expect("store");
    let mut loader = store.bulk_loader();
    loader
        .load_from_slice(RdfFormat::NTriples, &bsbm.ntriples)
        .expect("bulk load");
    loader.commit().expect("bulk commit");

    println!(
        "# Analytic queries on BSBM {} ({} triples), best of {passes} runs after a warm-up; load average at start: {}\n",
        bsbm.scale,
        data::thousands(store.len().unwrap_or(0) as u64),
        data::load_average()
    );
    let threads = strata::sparql::QueryLimits::default_threads();
    let mut table = Vec::new();
    let (mut strata_total, mut ox_total, mut one_total) =
        (Duration::ZERO, Duration::ZERO, Duration::ZERO);
    let mut log_ratio_sum = 0.0;
    for (name, what, text) in &queries {
        let (_, strata_first) = strata_rows(&graph, text, None);
        let (_, ox_first) = oxigraph_rows(&store, text);
        let strata_first = strata_first.unwrap_or_else(|e| panic!("{name}: Strata: {e}"));
        let ox_first = ox_first.unwrap_or_else(|e| panic!("{name}: oxigraph: {e}"));
        assert_eq!(
            strata_first, ox_first,
            "{name}: Strata and oxigraph answer different rows"
        );
        let best =
            |run: &dyn Fn() -> Duration| (0..passes).map(|_| run()).min().unwrap_or_default();
        let strata_time = best(&|| strata_rows(&graph, text, None).0);
        let one_time = best(&|| strata_rows(&graph, text, Some(1)).0);
        let ox_time = best(&|| oxigraph_rows(&store, text).0);
        strata_total += strata_time;
        one_total += one_time;
        ox_total += ox_time;
        let ratio = strata_time.as_secs_f64() / ox_time.as_secs_f64().max(1e-9);
        log_ratio_sum += ratio.ln();
        table.push(vec![
            (*name).to_owned(),
            (*what).to_owned(),
            strata_first.len().to_string(),
            format!("{:.1}", ms(strata_time)),
            format!("{:.1}", ms(one_time)),
            format!("{:.1}", ms(ox_time)),
            format!("{ratio:.2}×"),
            format!(
                "{:.2}×",
                one_time.as_secs_f64() / strata_time.as_secs_f64().max(1e-9)
            ),
        ]);
    }
    table.push(vec![
        "all".into(),
        format!(
            "total; geometric mean of the ratios {:.2}×",
            (log_ratio_sum / queries.len().max(1) as f64).exp()
        ),
        String::new(),
        format!("{:.1}", ms(strata_total)),
        format!("{:.1}", ms(one_total)),
        format!("{:.1}", ms(ox_total)),
        format!(
            "{:.2}×",
            strata_total.as_secs_f64() / ox_total.as_secs_f64().max(1e-9)
        ),
        format!(
            "{:.2}×",
            one_total.as_secs_f64() / strata_total.as_secs_f64().max(1e-9)
        ),
    ]);
    let all_cores = format!("Strata ms ({threads} threads)");
    print_table(
        &[
            "query",
            "what",
            "rows",
            &all_cores,
            "Strata ms (1 thread)",
            "oxigraph ms",
            "Strata / oxigraph",
            "speed-up 1 → all threads",
        ],
        &table,
    );
}
