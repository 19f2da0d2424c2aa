//! SHACL on the write path: reject and warn modes, dry runs, the incremental check's
//! affected nodes on a graph too big to validate whole, and the conformance report.

use super::{CommitRequest, Engine, EngineConfig, EngineError, Graph};
use crate::model::Triple;
use crate::shacl::ValidationMode;
use crate::sparql::UpdateOptions;

const SHAPES: &str = r#"
@prefix ex: <http://e/> . @prefix sh: <http://www.w3.org/ns/shacl#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:TicketShape a sh:NodeShape ; sh:targetClass ex:Ticket ;
  sh:property [ sh:path ex:status ; sh:minCount 1 ; sh:in ("open" "closed") ] ;
  sh:property [ sh:path ex:about ; sh:class ex:Bug ] .
"#;

fn triples(turtle: &str) -> Vec<Triple> {
    oxttl::TurtleParser::new()
        .for_slice(turtle.as_bytes())
        .map(Result::unwrap)
        .collect()
}

fn update(graph: &Graph, text: &str) -> Result<super::CommitOutcome, EngineError> {
    graph.update(
        &format!("PREFIX ex: <http://e/> {text}"),
        None,
        &UpdateOptions::default(),
        &CommitRequest::default(),
    )
}

fn open() -> (tempfile::TempDir, Engine) {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::open(dir.path(), EngineConfig::default()).unwrap();
    (dir, engine)
}

#[test]
fn reject_mode_refuses_bad_commits_and_writes_nothing() {
    let (_dir, engine) = open();
    let graph = engine.graph_or_create("main").unwrap();
    update(
        &graph,
        "INSERT DATA { ex:b1 a ex:Bug . ex:t1 a ex:Ticket ; ex:status \"open\" ; ex:about ex:b1 }",
    )
    .unwrap();
    let published = graph
        .publish_shapes(
            triples(SHAPES),
            ValidationMode::Reject,
            &CommitRequest::by_admin(),
        )
        .unwrap();
    let v = published
        .validation
        .expect("publishing validates the whole graph");
    assert!(v.whole_graph && v.report.conforms, "{v:?}");
    assert_eq!(graph.active_shapes().unwrap().mode, ValidationMode::Reject);
    let head = graph.head_seq();

    let error = update(
        &graph,
        "INSERT DATA { ex:t2 a ex:Ticket ; ex:status \"lost\" }",
    )
    .unwrap_err();
    let EngineError::ShaclViolation { validation } = error else {
        panic!("expected a violation, got {error:?}")
    };
    let result = &validation.report.results[0];
    assert_eq!(result.focus_node.to_string(), "<http://e/t2>");
    assert_eq!(result.path.as_deref(), Some("http://e/status"));
    assert_eq!(result.constraint_name(), "In");
    assert_eq!(graph.head_seq(), head, "a rejected commit writes nothing");

    // A good commit lands and carries its (clean) report.
    let ok = update(
        &graph,
        "INSERT DATA { ex:t2 a ex:Ticket ; ex:status \"closed\" }",
    )
    .unwrap();
    assert!(ok.validation.unwrap().report.conforms);

    // Removing a bug's type breaks the ticket pointing at it, which the commit never
    // touches: the affected-node search must find it.
    let error = update(&graph, "DELETE DATA { ex:b1 a ex:Bug }").unwrap_err();
    let EngineError::ShaclViolation { validation } = error else {
        panic!("expected a violation, got {error:?}")
    };
    assert_eq!(
        validation.report.results[0].focus_node.to_string(),
        "<http://e/t1>"
    );

    // A dry run reports the same without writing.
    let preview = graph
        .check_quads(
            &[],
            &[triples("<http://e/b1> a <http://e/Bug> .")[0]
                .clone()
                .in_graph(crate::model::RdfGraphName::DefaultGraph)],
        )
        .unwrap()
        .unwrap();
    assert!(preview.report.has_violations());
    assert_eq!(graph.head_seq(), head + 1);
}

#[test]
fn warn_mode_lands_and_keeps_the_conformance_report_current() {
    let (dir, engine) = open();
    let graph = engine.graph_or_create("main").unwrap();
    graph
        .publish_shapes(
            triples(SHAPES),
            ValidationMode::Warn,
            &CommitRequest::by_admin(),
        )
        .unwrap();
    let outcome = update(&graph, "INSERT DATA { ex:t1 a ex:Ticket }").unwrap();
    assert!(outcome.commit_seq.is_some(), "warn mode lets it land");
    assert_eq!(outcome.validation.unwrap().report.violation_count(), 1);
    let conformance = graph.conformance().unwrap().unwrap();
    assert_eq!(conformance.validated_at_seq, graph.head_seq());
    assert_eq!(conformance.report.results.len(), 1);

    // Fixing the record clears it from the report, incrementally.
    update(&graph, "INSERT DATA { ex:t1 ex:status \"open\" }").unwrap();
    let conformance = graph.conformance().unwrap().unwrap();
    assert!(conformance.report.conforms, "{:?}", conformance.report);

    // Bad shapes fail with a clear error and change nothing.
    let head = graph.head_seq();
    let bad = triples(
        "@prefix sh: <http://www.w3.org/ns/shacl#> . <http://e/S> a sh:NodeShape ; sh:targetClass <http://e/T> ; sh:minCount \"many\" .",
    );
    assert!(matches!(
        graph.publish_shapes(bad, ValidationMode::Warn, &CommitRequest::by_admin()),
        Err(EngineError::InvalidShapes { .. })
    ));
    assert_eq!(graph.head_seq(), head);
    update(&graph, "INSERT DATA { ex:t9 a ex:Ticket }").unwrap();

    // After a restart the shapes are still in force and the report is recomputed.
    drop(graph);
    engine.close().unwrap();
    drop(engine);
    let engine = Engine::open(dir.path(), EngineConfig::default()).unwrap();
    let graph = engine.graph("main").unwrap();
    assert_eq!(graph.active_shapes().unwrap().mode, ValidationMode::Warn);
    let conformance = graph.conformance().unwrap().unwrap();
    assert_eq!(
        conformance.report.focus_nodes().len(),
        1,
        "{:?}",
        conformance.report
    );
}

#[test]
fn big_graphs_validate_only_what_a_commit_affects() {
    let (_dir, engine) = open();
    let graph = engine.graph_or_create("main").unwrap();
    // 30,000 quads: more than is validated whole on every commit.
    let mut data = String::from("PREFIX ex: <http://e/> INSERT DATA {");
    for i in 0..10_000 {
        data.push_str(&format!(
            " ex:t{i} a ex:Ticket ; ex:status \"open\" ; ex:about ex:b{i} ."
        ));
    }
    data.push('}');
    graph
        .update(
            &data,
            None,
            &UpdateOptions::default(),
            &CommitRequest::default(),
        )
        .unwrap();
    let mut bugs = String::from("PREFIX ex: <http://e/> INSERT DATA {");
    for i in 0..10_000 {
        bugs.push_str(&format!(" ex:b{i} a ex:Bug ."));
    }
    bugs.push('}');
    graph
        .update(
            &bugs,
            None,
            &UpdateOptions::default(),
            &CommitRequest::default(),
        )
        .unwrap();
    let published = graph
        .publish_shapes(
            triples(SHAPES),
            ValidationMode::Reject,
            &CommitRequest::by_admin(),
        )
        .unwrap();
    assert!(published.validation.unwrap().report.conforms);

    let ok = update(&graph, "INSERT DATA { ex:t5 ex:note \"checked\" }").unwrap();
    let v = ok.validation.unwrap();
    assert!(
        !v.whole_graph,
        "a small commit on a big graph is checked locally"
    );
    assert!(
        v.focus_nodes_checked < 10,
        "checked {} nodes",
        v.focus_nodes_checked
    );

    let error = update(&graph, "DELETE DATA { ex:b7 a ex:Bug }").unwrap_err();
    let EngineError::ShaclViolation { validation } = error else {
        panic!("expected a violation, got {error:?}")
    };
    assert!(!validation.whole_graph);
    assert_eq!(
        validation.report.results[0].focus_node.to_string(),
        "<http://e/t7>"
    );
}

#[test]
fn violations_a_commit_does_not_touch_never_block_it() {
    let (_dir, engine) = open();
    let graph = engine.graph_or_create("main").unwrap();
    update(&graph, "INSERT DATA { ex:old a ex:Ticket }").unwrap();
    graph
        .publish_shapes(
            triples(SHAPES),
            ValidationMode::Reject,
            &CommitRequest::by_admin(),
        )
        .unwrap();
    assert_eq!(
        graph
            .conformance()
            .unwrap()
            .unwrap()
            .report
            .violation_count(),
        1
    );
    let ok = update(
        &graph,
        "INSERT DATA { ex:new a ex:Ticket ; ex:status \"open\" }",
    )
    .unwrap();
    let v = ok.validation.unwrap();
    assert!(
        v.report.conforms,
        "only the touched record counts: {:?}",
        v.report
    );
    // Touching the bad record without fixing it is refused.
    assert!(matches!(
        update(&graph, "INSERT DATA { ex:old ex:note \"x\" }"),
        Err(EngineError::ShaclViolation { .. })
    ));
}
