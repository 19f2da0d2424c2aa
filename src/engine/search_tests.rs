//! Search indexes following commits, with the hashed embedder (fast, deterministic).

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use super::{CommitRequest, Engine, EngineConfig, Graph, SearchRequest};
use crate::model::NamedNode;
use crate::search::{Declaration, Lane};
use crate::sparql::UpdateOptions;

fn open(dir: &std::path::Path) -> Engine {
    let config = EngineConfig {
        // No model there: the hashed fallback embedder.
        model_dir: dir.join("no-model"),
        ..EngineConfig::default()
    };
    Engine::open(dir.join("data"), config).unwrap()
}

fn update(graph: &Graph, text: &str) {
    graph
        .update(
            &format!(
                "PREFIX ex: <http://e/> PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#> {text}"
            ),
            None,
            &UpdateOptions::default(),
            &CommitRequest::default(),
        )
        .unwrap();
}

fn request(text: &str, lane: Lane) -> SearchRequest {
    SearchRequest {
        index: None,
        text: text.into(),
        vector: None,
        lane,
        k: 3,
        min_score: None,
        candidates: None,
        strong: true,
    }
}

fn top(graph: &Graph, request: &SearchRequest) -> Vec<String> {
    graph
        .read()
        .search(request)
        .unwrap()
        .hits
        .iter()
        .map(|h| h.hit.record.to_string())
        .collect()
}

#[test]
fn indexes_follow_commits_and_survive_restarts() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let graph = engine.graph_or_create("main").unwrap();
    update(
        &graph,
        "INSERT DATA { ex:t1 a ex:Ticket ; rdfs:label \"users cannot sign in\" . ex:t2 a ex:Ticket ; rdfs:label \"invoice PDF is blank\" . ex:n a ex:Note ; rdfs:label \"sign in note\" }",
    );
    let first = graph.head_seq();
    let declaration = Declaration {
        name: "tickets".into(),
        class: NamedNode::new_unchecked("http://e/Ticket"),
        from: vec![],
        exclude: vec![],
        hnsw: Default::default(),
    };
    graph
        .declare_embedding(&declaration, &CommitRequest::by_admin())
        .unwrap();
    for lane in [Lane::Dense, Lane::Sparse, Lane::Hybrid] {
        let hits = top(&graph, &request("sign in", lane));
        assert_eq!(
            hits.first().map(String::as_str),
            Some("http://e/t1"),
            "{lane:?}"
        );
        assert!(
            !hits.contains(&"http://e/n".to_owned()),
            "other classes are not indexed"
        );
    }
    let status = &graph.index_status()[0];
    assert_eq!(
        (status.records, status.published_seq),
        (2, graph.head_seq())
    );

    // A new record, a changed text and a deletion are followed.
    update(
        &graph,
        "INSERT DATA { ex:t3 a ex:Ticket ; rdfs:label \"password reset mail never arrives\" }",
    );
    update(
        &graph,
        "DELETE DATA { ex:t2 rdfs:label \"invoice PDF is blank\" } ; INSERT DATA { ex:t2 rdfs:label \"cannot sign in with SSO\" }",
    );
    update(&graph, "DELETE WHERE { ex:t1 ?p ?o }");
    let hits = top(&graph, &request("password reset", Lane::Sparse));
    assert_eq!(hits[0], "http://e/t3");
    let hits = top(&graph, &request("sign in", Lane::Sparse));
    assert_eq!(hits, vec!["http://e/t2"], "t1 is gone, t2 changed");

    // Candidates: only they can be hits, scored exactly.
    let mut only = request("sign in", Lane::Hybrid);
    only.candidates = Some(Arc::new(HashSet::from([Arc::<str>::from("http://e/t3")])));
    let outcome = graph.read().search(&only).unwrap();
    assert_eq!(outcome.plan.name(), "filter_first");
    assert!(outcome.hits.iter().all(|h| &*h.hit.record == "http://e/t3"));

    // A read pinned before t3 existed, t2 changed and t1 was deleted reads the texts of
    // then: t3 is no hit, t2 is the invoice, t1 is found by its words.
    let pinned = request("password reset", Lane::Sparse);
    let outcome = graph.read_at(first).search(&pinned).unwrap();
    assert!(outcome.hits.iter().all(|h| &*h.hit.record != "http://e/t3"));
    assert!(outcome.exact_at_seq);
    assert_eq!(outcome.rescored, 2, "t1 and t2 as they were");
    for lane in [Lane::Dense, Lane::Sparse, Lane::Hybrid] {
        let at = |text: &str| -> Vec<String> {
            graph
                .read_at(first)
                .search(&request(text, lane))
                .unwrap()
                .hits
                .iter()
                .map(|h| h.hit.record.to_string())
                .collect()
        };
        assert_eq!(at("sign in")[0], "http://e/t1", "{lane:?}");
        assert_eq!(at("invoice PDF blank")[0], "http://e/t2", "{lane:?}");
        if lane == Lane::Sparse {
            assert_eq!(at("sign in"), vec!["http://e/t1"], "t2 did not say it then");
            assert!(at("SSO").is_empty(), "t2's words of today are not read");
        }
    }
    // Only the candidates given, as they were.
    let mut only = request("sign in", Lane::Hybrid);
    only.candidates = Some(Arc::new(HashSet::from([
        Arc::<str>::from("http://e/t1"),
        Arc::<str>::from("http://e/t3"),
    ])));
    let outcome = graph.read_at(first).search(&only).unwrap();
    let hits: Vec<&str> = outcome.hits.iter().map(|h| &*h.hit.record).collect();
    assert_eq!(hits, vec!["http://e/t1"]);

    let head = graph.head_seq();
    drop(graph);
    engine.close().unwrap();
    drop(engine);
    let engine = open(dir.path());
    let graph = engine.graph("main").unwrap();
    assert!(
        graph
            .read_at(head)
            .wait_for_indexes(Duration::from_secs(30))
    );
    let status = &graph.index_status()[0];
    assert_eq!(status.records, 2);
    assert_eq!(
        top(&graph, &request("password reset", Lane::Hybrid))[0],
        "http://e/t3"
    );

    // Deleting the declaration drops the index.
    graph
        .delete_embedding("tickets", &CommitRequest::by_admin())
        .unwrap();
    graph.sync_indexes().unwrap();
    assert!(graph.index_status().is_empty());
    assert!(!dir.path().join("data/graphs/main/search/tickets").exists());
}

#[test]
fn search_patterns_in_sparql_pick_a_plan_and_join() {
    use crate::sparql::QueryResults;
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let graph = engine.graph_or_create("main").unwrap();
    let mut data = String::from("INSERT DATA {");
    for i in 0..2_500 {
        let (status, label) = match i % 500 {
            0 => ("closed", format!("cannot sign in to account {i}")),
            1 => ("open", format!("sign in page times out {i}")),
            _ => ("open", format!("invoice number {i} is wrong")),
        };
        data.push_str(&format!(
            " ex:t{i} a ex:Ticket ; rdfs:label \"{label}\" ; ex:status \"{status}\" ."
        ));
    }
    data.push('}');
    update(&graph, &data);
    graph
        .declare_embedding(
            &Declaration {
                name: "tickets".into(),
                class: NamedNode::new_unchecked("http://e/Ticket"),
                from: vec![],
                exclude: vec![],
                hnsw: Default::default(),
            },
            &CommitRequest::by_admin(),
        )
        .unwrap();
    assert!(graph.read().wait_for_indexes(Duration::from_secs(60)));
    let run = |query: &str| {
        let answer = graph
            .read()
            .query(
                &format!(
                    "PREFIX search: <https://strata.dev/ns/search#> PREFIX ex: <http://e/> {query}"
                ),
                &super::ReadOptions::default(),
            )
            .unwrap();
        let QueryResults::Solutions(solutions) = answer.results else {
            panic!("solutions")
        };
        let rows: Vec<_> = solutions.map(Result::unwrap).collect();
        (rows, answer.search)
    };
    let (rows, reports) = run(
        "SELECT ?t ?s WHERE { ?t search:nearest \"sign in\" ; search:k 3 ; search:lane \"sparse\" ; search:score ?s } ORDER BY DESC(?s)",
    );
    assert_eq!(rows.len(), 3);
    assert!(rows.iter().all(|r| r.get("s").is_some()));
    assert_eq!(reports[0].plan.name(), "nearest");

    // Few closed tickets: scored exactly, and only they can be hits.
    let (rows, reports) = run(
        "SELECT ?t WHERE { ?t search:nearest \"sign in\" ; search:k 3 ; search:lane \"sparse\" . ?t ex:status \"closed\" }",
    );
    assert_eq!(reports[0].plan.name(), "filter_first");
    assert_eq!(rows.len(), 3, "5 closed tickets mention sign in");

    // Many open tickets: widen k until enough hits are open.
    let (rows, reports) = run(
        "SELECT ?t WHERE { ?t search:nearest \"sign in\" ; search:k 4 ; search:lane \"sparse\" . ?t ex:status \"open\" }",
    );
    assert_eq!(reports[0].plan.name(), "search_first");
    assert_eq!(rows.len(), 4);
    assert!(reports[0].complete);
    assert!(reports[0].asked >= 4);

    // Mistakes are errors naming the query.
    let error = graph
        .read()
        .query(
            "PREFIX search: <https://strata.dev/ns/search#> SELECT * WHERE { ?t search:nearest \"x\" ; search:lane \"fuzzy\" }",
            &super::ReadOptions::default(),
        )
        .err()
        .unwrap();
    assert!(error.to_string().contains("search:lane"), "{error}");
}
