//! The control graphs (shapes, search index declarations) change only through an admin
//! request, whichever way a write names them; a refused write changes nothing. Writes
//! create a graph only when allowed to.

use super::{CONTROL_GRAPHS, CommitRequest, Engine, EngineConfig, EngineError, Graph};
use super::{GraphWrite, ImportFormat, ImportOptions};
use crate::model::{NamedNode, Triple};
use crate::search::Declaration;
use crate::shacl::ValidationMode;
use crate::sparql::UpdateOptions;

const SHAPES: &str = "https://strata.dev/ns#shapes";
const EMBEDDINGS: &str = "https://strata.dev/ns#embeddings";
const SHAPE_TRIPLE: &str = "<http://e/S> a <http://www.w3.org/ns/shacl#NodeShape> ; <http://www.w3.org/ns/shacl#targetClass> <http://e/T>";

fn open(dir: &std::path::Path) -> Engine {
    let config = EngineConfig {
        model_dir: dir.join("no-model"),
        ..EngineConfig::default()
    };
    Engine::open(dir.join("data"), config).unwrap()
}

fn update(graph: &Graph, text: &str, request: &CommitRequest) -> Result<u64, EngineError> {
    graph
        .update(text, None, &UpdateOptions::default(), request)
        .map(|o| o.head_seq)
}

fn import(
    graph: &Graph,
    document: &str,
    format: &str,
    into_graph: Option<&str>,
    request: &CommitRequest,
) -> Result<u64, EngineError> {
    let options = ImportOptions {
        format: ImportFormat::from_name(format).unwrap(),
        base_iri: None,
        into_graph: into_graph.map(NamedNode::new_unchecked),
        one_graph: false,
        source_name: "test".into(),
    };
    graph
        .import(document.as_bytes(), &options, request)
        .map(|o| o.head_seq)
}

fn shape_triples() -> Vec<Triple> {
    oxttl::TurtleParser::new()
        .for_slice(format!("{SHAPE_TRIPLE} .").as_bytes())
        .map(Result::unwrap)
        .collect()
}

/// Asserts a write was refused as a control-graph change naming `graph`.
#[track_caller]
fn assert_refused<T: std::fmt::Debug>(result: Result<T, EngineError>, graph: &str, how: &str) {
    match result {
        Err(EngineError::ControlGraphRefused { graph: named }) => {
            assert_eq!(named, graph, "{how}: the error names the control graph");
        }
        other => panic!("{how}: expected ControlGraphRefused for {graph}, got {other:?}"),
    }
}

#[test]
fn the_control_graphs_are_the_shapes_and_the_embedding_declarations() {
    assert_eq!(CONTROL_GRAPHS, [SHAPES, EMBEDDINGS]);
    assert_eq!(crate::shacl::SHAPES_GRAPH, SHAPES);
    assert_eq!(crate::search::EMBEDDINGS_GRAPH, EMBEDDINGS);
}

#[test]
fn a_write_without_admin_never_changes_a_control_graph() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let graph = engine.graph_or_create("main").unwrap();
    let writer = CommitRequest::default();
    let admin = CommitRequest::by_admin();
    update(
        &graph,
        "INSERT DATA { <http://e/a> <http://e/b> 1 }",
        &writer,
    )
    .unwrap();
    let head = graph.head_seq();
    let shapes_insert = format!("INSERT DATA {{ GRAPH <{SHAPES}> {{ {SHAPE_TRIPLE} }} }}");
    let mode_insert = format!(
        "INSERT DATA {{ GRAPH <{SHAPES}> {{ <{SHAPES}> <https://strata.dev/ns#validationMode> \"reject\" }} }}"
    );
    let declaration_insert = format!(
        "INSERT DATA {{ GRAPH <{EMBEDDINGS}> {{ <https://strata.dev/ns#embedding/t> a <https://strata.dev/ns#EmbeddingDeclaration> }} }}"
    );
    assert_refused(
        update(&graph, &shapes_insert, &writer),
        SHAPES,
        "INSERT DATA",
    );
    assert_refused(update(&graph, &mode_insert, &writer), SHAPES, "mode triple");
    assert_refused(
        update(&graph, &declaration_insert, &writer),
        EMBEDDINGS,
        "declaration triple",
    );
    assert_refused(
        update(
            &graph,
            &format!("INSERT {{ GRAPH <{SHAPES}> {{ ?s ?p ?o }} }} WHERE {{ ?s ?p ?o }}"),
            &writer,
        ),
        SHAPES,
        "INSERT WHERE copying data in",
    );
    assert_refused(
        update(&graph, &format!("ADD DEFAULT TO <{SHAPES}>"), &writer),
        SHAPES,
        "ADD",
    );
    assert_refused(
        import(
            &graph,
            &format!("<{SHAPES}> {{ {SHAPE_TRIPLE} }}"),
            "trig",
            None,
            &writer,
        ),
        SHAPES,
        "TriG import",
    );
    assert_refused(
        import(
            &graph,
            &format!("{SHAPE_TRIPLE} ."),
            "turtle",
            Some(SHAPES),
            &writer,
        ),
        SHAPES,
        "import into the shapes graph",
    );
    assert_refused(
        import(
            &graph,
            "<http://e/x> <http://e/y> <http://e/z> <https://strata.dev/ns#embeddings> .",
            "nquads",
            None,
            &writer,
        ),
        EMBEDDINGS,
        "N-Quads import",
    );
    let document = graph
        .parse_document(
            format!("{SHAPE_TRIPLE} .").as_bytes(),
            &ImportOptions {
                format: ImportFormat::from_name("turtle").unwrap(),
                base_iri: None,
                into_graph: Some(NamedNode::new_unchecked(SHAPES)),
                one_graph: false,
                source_name: "test".into(),
            },
            |_| {},
        )
        .unwrap();
    assert_refused(
        graph.write_graph(
            Some(&NamedNode::new_unchecked(SHAPES)),
            GraphWrite::Replace,
            Some(document),
            &writer,
        ),
        SHAPES,
        "Graph Store PUT",
    );
    assert_refused(
        graph.write_graph(
            Some(&NamedNode::new_unchecked(EMBEDDINGS)),
            GraphWrite::Delete,
            None,
            &writer,
        ),
        EMBEDDINGS,
        "Graph Store DELETE of an empty control graph",
    );
    assert_refused(
        graph.publish_shapes(shape_triples(), ValidationMode::Reject, &writer),
        SHAPES,
        "publish_shapes",
    );
    let declaration = Declaration {
        name: "tickets".into(),
        class: NamedNode::new_unchecked("http://e/T"),
        from: vec![],
        exclude: vec![],
        hnsw: Default::default(),
    };
    assert_refused(
        graph.declare_embedding(&declaration, &writer),
        EMBEDDINGS,
        "declare_embedding",
    );
    assert_eq!(graph.head_seq(), head, "no refused write made a commit");
    assert!(graph.active_shapes().is_none(), "no shapes were published");
    assert!(graph.read_at(head).declarations().is_empty());

    // An admin request may do each of them; then removals are guarded the same way.
    graph
        .publish_shapes(shape_triples(), ValidationMode::Warn, &admin)
        .unwrap();
    graph.declare_embedding(&declaration, &admin).unwrap();
    let head = graph.head_seq();
    assert_refused(
        update(&graph, &format!("CLEAR GRAPH <{SHAPES}>"), &writer),
        SHAPES,
        "CLEAR",
    );
    assert_refused(
        update(&graph, &format!("DROP GRAPH <{EMBEDDINGS}>"), &writer),
        EMBEDDINGS,
        "DROP",
    );
    assert_refused(
        update(&graph, "DELETE WHERE { GRAPH ?g { ?s ?p ?o } }", &writer),
        SHAPES,
        "DELETE WHERE over every graph",
    );
    assert_refused(
        graph.write_graph(
            Some(&NamedNode::new_unchecked(SHAPES)),
            GraphWrite::Delete,
            None,
            &writer,
        ),
        SHAPES,
        "Graph Store DELETE",
    );
    assert_refused(
        graph.delete_embedding("tickets", &writer),
        EMBEDDINGS,
        "delete_embedding",
    );
    assert_eq!(graph.head_seq(), head);
    assert_eq!(
        graph.active_shapes().map(|a| a.mode),
        Some(ValidationMode::Warn)
    );
    assert_eq!(graph.read_at(head).declarations().len(), 1);
    update(&graph, &format!("CLEAR GRAPH <{SHAPES}>"), &admin).unwrap();
    assert!(graph.active_shapes().is_none());
}

#[test]
fn data_graphs_including_supplied_vectors_need_no_admin() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let graph = engine.graph_or_create("main").unwrap();
    let writer = CommitRequest::default();
    let before = graph.head_seq();
    update(
        &graph,
        "INSERT DATA { GRAPH <http://e/g> { <http://e/a> <http://e/b> 1 } }",
        &writer,
    )
    .unwrap();
    let vector = super::vector_quad(&NamedNode::new_unchecked("http://e/a"), "t", &[0.5, 0.5]);
    graph
        .commit_quads(vec![vector], &[], &writer, [7; 32])
        .unwrap();
    assert_eq!(graph.head_seq(), before + 2);
    // A write that changes nothing is no change to a control graph either.
    update(
        &graph,
        &format!("DELETE DATA {{ GRAPH <{SHAPES}> {{ {SHAPE_TRIPLE} }} }}"),
        &writer,
    )
    .unwrap();
}

#[test]
fn update_previews_name_the_control_graphs_they_change() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let graph = engine.graph_or_create("main").unwrap();
    let preview = |text: &str| {
        graph
            .preview_update(text, None, &UpdateOptions::default())
            .unwrap()
            .control_graphs
    };
    assert!(preview("INSERT DATA { <http://e/a> <http://e/b> 1 }").is_empty());
    assert_eq!(
        preview(&format!(
            "INSERT DATA {{ GRAPH <{EMBEDDINGS}> {{ <http://e/a> <http://e/b> 1 }} GRAPH <{SHAPES}> {{ {SHAPE_TRIPLE} }} }}"
        )),
        vec![SHAPES, EMBEDDINGS]
    );
}

#[test]
fn a_write_creates_a_graph_only_when_it_may() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    match engine.graph_to_write("notes", false) {
        Err(EngineError::GraphCreationRefused { name }) => assert_eq!(name, "notes"),
        other => panic!("expected GraphCreationRefused, got {:?}", other.map(|_| ())),
    }
    assert!(engine.graph_names().is_empty(), "nothing was created");
    engine.graph_to_write("notes", true).unwrap();
    assert_eq!(engine.graph_names().len(), 1);
    // An existing graph is found without the right to create one.
    engine.graph_to_write("notes", false).unwrap();
    assert!(matches!(
        engine.graph_to_write("Bad Name", false),
        Err(EngineError::InvalidGraphName(_))
    ));
}

/// Blank nodes are renamed apart per imported document, those inside RDF 1.2 triple
/// terms too (N-Triples is parsed in blocks on several threads, Turtle in one pass).
#[test]
fn blank_nodes_inside_triple_terms_are_renamed_apart_on_import() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let graph = engine.graph_or_create("main").unwrap();
    let request = CommitRequest::default();
    let nt = "<http://e/s> <http://e/p> <<( _:b <http://e/q> <<( _:c <http://e/r> _:b )>> )>> .\n\
              _:b <http://e/p> <http://e/o> .\n";
    let ttl = "<http://e/t> <http://e/p> <<( _:b <http://e/q> <http://e/o> )>> . _:b <http://e/p> <http://e/o> .";
    for _ in 0..2 {
        import(&graph, nt, "ntriples", None, &request).unwrap();
        import(&graph, ttl, "turtle", None, &request).unwrap();
    }
    let count = |query: &str| -> usize {
        let answer = graph
            .read_at(graph.head_seq())
            .query(query, &super::ReadOptions::default())
            .unwrap();
        match answer.results {
            crate::sparql::QueryResults::Solutions(s) => s.count(),
            _ => panic!("a SELECT"),
        }
    };
    // Each import made its own triple terms: two per subject, not one.
    assert_eq!(count("SELECT ?t WHERE { <http://e/s> <http://e/p> ?t }"), 2);
    assert_eq!(count("SELECT ?t WHERE { <http://e/t> <http://e/p> ?t }"), 2);
    // Inside one document, one label is one node, in and out of triple terms, at any
    // depth: each import's outer and inner `_:b` are the subject of its own `_:b` triple.
    assert_eq!(
        count(
            "SELECT ?b WHERE { <http://e/s> <http://e/p> <<( ?b <http://e/q> <<( ?c <http://e/r> ?b )>> )>> . \
             ?b <http://e/p> <http://e/o> FILTER(isBlank(?b) && isBlank(?c) && ?b != ?c) }"
        ),
        2
    );
    assert_eq!(
        count(
            "SELECT ?b WHERE { <http://e/t> <http://e/p> <<( ?b <http://e/q> <http://e/o> )>> . ?b <http://e/p> <http://e/o> }"
        ),
        2
    );
    // Four `_:b` nodes in all, one per document.
    assert_eq!(
        count("SELECT DISTINCT ?b WHERE { ?b <http://e/p> <http://e/o> FILTER(isBlank(?b)) }"),
        4
    );
}
