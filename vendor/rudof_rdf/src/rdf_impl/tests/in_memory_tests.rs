use crate::rdf_core::{
    Any, BuildRDF, FocusRDF, NeighsRDF, RDFError, RDFFormat, Rdf,
    parser::rdf_node_parser::{
        ParserExt, RDFNodeParse,
        constructors::{
            IntegersPropertyParser, IriParser, ListParser, SatisfyParser, SetFocusParser, SingleBoolPropertyParser,
            SingleIntegerPropertyParser, SingleStringPropertyParser, SingleValuePropertyParser,
        },
    },
    term::Triple,
    term::{
        Object,
        literal::{BaseDirection as RdfBaseDirection, ConcreteLiteral, Lang},
    },
};
use crate::rdf_impl::{OxigraphInMemory, ReaderMode};
use crate::rdf_parser;
use oxrdf::BaseDirection;
use oxrdf::Literal as OxLiteral;
use oxrdf::NamedNode as OxNamedNode;
use oxrdf::NamedOrBlankNode as OxSubject;
use oxrdf::Term as OxTerm;
use oxrdf::Triple as OxTriple;
use rudof_iri::IriS;
use std::collections::HashSet;

const DUMMY_GRAPH: &str = r#"
        prefix : <http://example.org/>
        :x :p 1 .
        :y :p "String" .
        :y :q 2 .
        :z :r 3 .
        :x :s 4 .
    "#;

const DUMMY_GRAPH_1: &str = r#"
        prefix : <http://example.org/>
        prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
        :x :p [ :p 1 ] .
    "#;

const DUMMY_GRAPH_2: &str = r#"
        prefix : <http://example.org/>
        :x :p (1 2) .
    "#;

const DUMMY_GRAPH_3: &str = r#"
        prefix : <http://example.org/>
        :x :p 1, 2, 3, 2 .
    "#;

const DUMMY_GRAPH_5: &str = r#"
        prefix : <http://example.org/>
        :x :p 1, 2 ;
        :q true .
    "#;

const DUMMY_GRAPH_6: &str = r#"
        prefix : <http://example.org/>
        :x :p 1 .
    "#;

const DUMMY_GRAPH_7: &str = r#"
        prefix : <http://example.org/>
        :x :p true .
    "#;

const DUMMY_GRAPH_8: &str = r#"
        prefix : <http://example.org/>
        :x :p true ;
        :q 1    .
    "#;

const DUMMY_GRAPH_9: &str = r#"
        prefix : <http://example.org/>
        :x :p 1 .
    "#;

const DUMMY_GRAPH_10: &str = r#"
        prefix : <http://example.org/>
        :x :p "1" .
    "#;

#[derive(Debug, PartialEq)]
enum A {
    Int(isize),
    Bool(bool),
}

fn graph_from_str(s: &str) -> OxigraphInMemory {
    OxigraphInMemory::from_str(s, &RDFFormat::Turtle, None, &ReaderMode::Strict).unwrap()
}

#[test]
fn test_triples_matching_subject_predicate_and_object() {
    let graph = graph_from_str(DUMMY_GRAPH);
    let x: OxSubject = OxNamedNode::new_unchecked("http://example.org/x").into();
    let p = OxNamedNode::new_unchecked("http://example.org/p");
    let one: OxTerm = OxLiteral::from(1).into();
    let triples = graph.triples_matching(&x, &p, &one).unwrap();
    assert_eq!(triples.count(), 1)
}

#[test]
fn test_triples_matching_subject_and_predicate() {
    let graph = graph_from_str(DUMMY_GRAPH);
    let x: OxSubject = OxNamedNode::new_unchecked("http://example.org/x").into();
    let p = OxNamedNode::new_unchecked("http://example.org/p");
    let triples = graph.triples_matching(&x, &p, &Any).unwrap();
    assert_eq!(triples.count(), 1)
}

#[test]
fn test_triples_matching_subject_and_object() {
    let graph = graph_from_str(DUMMY_GRAPH);
    let x: OxSubject = OxNamedNode::new_unchecked("http://example.org/x").into();
    let one: OxTerm = OxLiteral::from(1).into();
    let triples = graph.triples_matching(&x, &Any, &one).unwrap();
    assert_eq!(triples.count(), 1)
}

#[test]
fn test_triples_matching_predicate_and_object() {
    let graph = graph_from_str(DUMMY_GRAPH);
    let p = OxNamedNode::new_unchecked("http://example.org/p");
    let one: OxTerm = OxLiteral::from(1).into();
    let triples = graph.triples_matching(&Any, &p, &one).unwrap();
    assert_eq!(triples.count(), 1)
}

#[test]
fn test_triples_matching_subject() {
    let graph = graph_from_str(DUMMY_GRAPH);
    let x: OxSubject = OxNamedNode::new_unchecked("http://example.org/x").into();
    let triples = graph.triples_matching(&x, &Any, &Any).unwrap();
    assert_eq!(triples.count(), 2)
}

#[test]
fn test_triples_matching_predicate() {
    let graph = graph_from_str(DUMMY_GRAPH);
    let p = OxNamedNode::new_unchecked("http://example.org/p");
    let triples = graph.triples_matching(&Any, &p, &Any).unwrap();
    assert_eq!(triples.count(), 2)
}

#[test]
fn test_triples_matching_object() {
    let graph = graph_from_str(DUMMY_GRAPH);
    let one: OxTerm = OxLiteral::from(1).into();
    let triples = graph.triples_matching(&Any, &Any, &one).unwrap();
    assert_eq!(triples.count(), 1)
}

#[test]
fn test_incoming_arcs() {
    let graph = graph_from_str(DUMMY_GRAPH);
    let x = OxSubject::NamedNode(OxNamedNode::new_unchecked("http://example.org/x"));
    let p = OxNamedNode::new_unchecked("http://example.org/p");
    let one: OxTerm = OxLiteral::from(1).into();
    let actual = graph.incoming_arcs(&one).unwrap();
    let expected = HashSet::from([x]);
    assert_eq!(actual.get(&p), Some(&expected))
}

#[test]
fn test_outgoing_arcs() {
    let graph = graph_from_str(DUMMY_GRAPH_1);

    let x = OxSubject::NamedNode(OxNamedNode::new_unchecked("http://example.org/x"));
    let p = OxNamedNode::new_unchecked("http://example.org/p");
    let one: OxTerm = OxLiteral::from(1).into();

    let subject: OxSubject = graph
        .triples_matching(&x, &p, &Any)
        .unwrap()
        .map(Triple::into_object)
        .next()
        .unwrap()
        .try_into()
        .unwrap();

    let actual = graph.outgoing_arcs(&subject).unwrap();
    let expected = HashSet::from([one]);

    assert_eq!(actual.get(&p), Some(&expected))
}

#[test]
fn test_add_triple() {
    let mut graph = OxigraphInMemory::default();

    let alice = OxSubject::NamedNode(OxNamedNode::new_unchecked("http://example.org/alice"));
    let knows = OxNamedNode::new_unchecked("http://example.org/knows");
    let bob = OxTerm::NamedNode(OxNamedNode::new_unchecked("http://example.org/bob"));

    graph.add_triple(alice, knows, bob).unwrap();

    assert_eq!(graph.len(), 1);
}

#[test]
fn test_rdf_list() {
    let mut graph = graph_from_str(DUMMY_GRAPH_2);

    let x = OxNamedNode::new_unchecked("http://example.org/x").into();
    let p = OxNamedNode::new_unchecked("http://example.org/p").into();

    let parser = SingleValuePropertyParser::new(p).then(move |obj| SetFocusParser::new(obj).with(ListParser::new()));
    let result: Vec<OxTerm> = parser.parse(&x, &mut graph).unwrap();

    assert_eq!(
        result,
        vec![OxTerm::from(OxLiteral::from(1)), OxTerm::from(OxLiteral::from(2))]
    )
}

#[test]
fn test_rdf_list_long() {
    let mut graph = OxigraphInMemory::default();
    let items: Vec<OxTerm> = (0..100_000).map(|i| OxLiteral::from(i).into()).collect();
    let head = graph.add_rdf_list(items.clone()).unwrap();
    graph.set_focus(&head);
    assert_eq!(ListParser::new().parse_focused(&mut graph).unwrap(), items);
}

#[test]
fn test_rdf_list_cyclic() {
    let mut graph = graph_from_str(
        r#"prefix : <http://example.org/>
        prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
        :x :p _:a .
        _:a rdf:first 1 ; rdf:rest _:b .
        _:b rdf:first 2 ; rdf:rest _:a .
    "#,
    );
    let x = OxNamedNode::new_unchecked("http://example.org/x").into();
    let p = OxNamedNode::new_unchecked("http://example.org/p").into();
    let parser = SingleValuePropertyParser::new(p).then(move |obj| SetFocusParser::new(obj).with(ListParser::new()));
    assert!(matches!(
        parser.parse(&x, &mut graph),
        Err(RDFError::RecursiveRDFListError { .. })
    ));
}

#[test]
fn test_parser_property_integers() {
    let mut graph = graph_from_str(DUMMY_GRAPH_3);
    let x = OxNamedNode::new_unchecked("http://example.org/x").into();
    let p = OxNamedNode::new_unchecked("http://example.org/p").into();
    let parser = IntegersPropertyParser::new(p);
    let mut result = parser.parse(&x, &mut graph).unwrap();
    result.sort();

    assert_eq!(result, vec![1, 2, 3]);
}

#[test]
fn test_parser_or() {
    let mut graph = graph_from_str(DUMMY_GRAPH_5);
    let x = OxNamedNode::new_unchecked("http://example.org/x").into();
    let p = OxNamedNode::new_unchecked("http://example.org/p").into();
    let q = OxNamedNode::new_unchecked("http://example.org/q").into();
    let parser = SingleBoolPropertyParser::new(p).or(SingleBoolPropertyParser::new(q));
    assert!(parser.parse(&x, &mut graph).unwrap())
}

#[test]
fn test_parser_or_enum_1() {
    let mut graph = graph_from_str(DUMMY_GRAPH_6);
    let x = OxNamedNode::new_unchecked("http://example.org/x").into();
    let p: IriS = OxNamedNode::new_unchecked("http://example.org/p").into();
    let parser_a_bool = SingleBoolPropertyParser::new(p.clone()).map(A::Bool);
    let parser_a_int = SingleIntegerPropertyParser::new(p).map(A::Int);
    let parser = parser_a_int.or(parser_a_bool);
    assert_eq!(parser.parse(&x, &mut graph).unwrap(), A::Int(1))
}

#[test]
fn test_parser_or_enum_2() {
    let mut graph = graph_from_str(DUMMY_GRAPH_7);
    let x = OxNamedNode::new_unchecked("http://example.org/x").into();
    let p: IriS = OxNamedNode::new_unchecked("http://example.org/p").into();
    let parser_a_bool = SingleBoolPropertyParser::new(p.clone()).map(A::Bool);
    let parser_a_int = SingleIntegerPropertyParser::new(p).map(A::Int);
    let parser = parser_a_int.or(parser_a_bool);
    assert_eq!(parser.parse(&x, &mut graph).unwrap(), A::Bool(true))
}

#[test]
fn test_parser_and() {
    let mut graph = graph_from_str(DUMMY_GRAPH_8);
    let x = OxNamedNode::new_unchecked("http://example.org/x").into();
    let p = OxNamedNode::new_unchecked("http://example.org/p").into();
    let q = OxNamedNode::new_unchecked("http://example.org/q").into();
    let parser = SingleBoolPropertyParser::new(p).and(SingleIntegerPropertyParser::new(q));
    assert_eq!(parser.parse(&x, &mut graph).unwrap(), (true, 1))
}

#[test]
fn test_parser_map() {
    let mut graph = graph_from_str(DUMMY_GRAPH_9);
    let x = OxNamedNode::new_unchecked("http://example.org/x").into();
    let p = OxNamedNode::new_unchecked("http://example.org/p").into();
    let parser = SingleIntegerPropertyParser::new(p).map(|n| n + 1);
    assert_eq!(parser.parse(&x, &mut graph).unwrap(), 2)
}

#[test]
fn test_parser_and_then() {
    let mut graph = graph_from_str(DUMMY_GRAPH_10);
    let x = OxNamedNode::new_unchecked("http://example.org/x").into();
    let p = OxNamedNode::new_unchecked("http://example.org/p").into();

    fn cnv_int(s: String) -> Result<isize, RDFError> {
        s.parse().map_err(|_| RDFError::DefaultError {
            msg: format!("Error converting {s}"),
        })
    }

    let parser = SingleStringPropertyParser::new(p).and_then(cnv_int);
    assert_eq!(parser.parse(&x, &mut graph).unwrap(), 1)
}

#[test]
fn test_parser_flat_map() {
    let mut graph = graph_from_str(DUMMY_GRAPH_10);
    let x = OxNamedNode::new_unchecked("http://example.org/x").into();
    let p = OxNamedNode::new_unchecked("http://example.org/p").into();

    fn cnv_int(s: String) -> Result<isize, RDFError> {
        s.parse().map_err(|_| RDFError::DefaultError {
            msg: format!("Error converting {s}"),
        })
    }

    let parser = SingleStringPropertyParser::new(p).flat_map(cnv_int);
    assert_eq!(parser.parse(&x, &mut graph).unwrap(), 1)
}

#[test]
fn test_rdf_parser_macro() {
    rdf_parser! {
          fn is_term['a, RDF](term: &'a RDF::Term)(RDF) -> ()
          where [
          ] {
            let name = format!("is_{term}");
            SatisfyParser::new(|t| { t == *term }, name.as_str())
          }
    }

    let mut graph = graph_from_str(DUMMY_GRAPH_9);
    let x = OxNamedNode::new_unchecked("http://example.org/x");
    let iri_s = x.clone().into();
    let term = x.clone().into();
    let parser = is_term(&term);
    let result = parser.parse(&iri_s, &mut graph);
    assert!(result.is_ok())
}

#[test]
fn test_not() {
    let mut graph = graph_from_str(DUMMY_GRAPH_9);
    let x = OxNamedNode::new_unchecked("http://example.org/x").into();
    let q = OxNamedNode::new_unchecked("http://example.org/q").into();
    assert!(SingleValuePropertyParser::new(q).not().parse(&x, &mut graph).is_ok())
}

#[test]
fn test_iri() {
    let mut graph = OxigraphInMemory::default();
    let x = OxNamedNode::new_unchecked("http://example.org/x");
    let x_iri = x.clone().into();
    assert_eq!(IriParser::new().parse(&x_iri, &mut graph).unwrap(), x)
}

#[test]
fn test_add_triple_ref() {
    let mut graph = OxigraphInMemory::default();
    let s = OxNamedNode::new_unchecked("http://example.org/x");
    let p = OxNamedNode::new_unchecked("http://example.org/p");
    let o = OxNamedNode::new_unchecked("http://example.org/y");
    graph.add_triple_ref(&s, &p, &o).unwrap();
    assert_eq!(graph.len(), 1);
}

// TriG and N3

#[test]
fn test_parse_trig() {
    let trig = r#"
prefix : <http://example.org/>
:x :p 1 .
:g { :y :p 2 . :z :p <rel> }
"#;
    let graph =
        OxigraphInMemory::from_str(trig, &RDFFormat::TriG, Some("http://base.org/"), &ReaderMode::Strict).unwrap();
    // The triples of the named graph are merged into the graph, as with N-Quads
    assert_eq!(graph.len(), 3);
    let z: OxSubject = OxNamedNode::new_unchecked("http://example.org/z").into();
    let p = OxNamedNode::new_unchecked("http://example.org/p");
    let rel: OxTerm = OxNamedNode::new_unchecked("http://base.org/rel").into();
    assert_eq!(graph.triples_matching(&z, &p, &rel).unwrap().count(), 1);
    assert!(graph.prefixmap().find("").is_some(), "the prefixes are kept");

    let err = OxigraphInMemory::from_str(":x :p", &RDFFormat::TriG, None, &ReaderMode::Strict).unwrap_err();
    assert!(err.to_string().contains("TriG"), "{err}");
}

#[test]
fn test_parse_n3() {
    let n3 = r#"
@prefix : <http://example.org/> .
:x :p 1 ; :q [ :r "a" ] .
"#;
    let graph = OxigraphInMemory::from_str(n3, &RDFFormat::N3, None, &ReaderMode::Strict).unwrap();
    assert_eq!(graph.len(), 3);
    assert!(graph.prefixmap().find("").is_some(), "the prefixes are kept");
}

#[test]
fn test_parse_n3_that_is_not_rdf() {
    // Variables and formulas can't be represented in an RDF graph
    for n3 in [
        "@prefix : <http://example.org/> . ?x :p 1 .",
        "@prefix : <http://example.org/> . :x :says { :y :p 1 } .",
    ] {
        let err = OxigraphInMemory::from_str(n3, &RDFFormat::N3, None, &ReaderMode::Strict).unwrap_err();
        assert!(err.to_string().contains("N3"), "{n3}: {err}");
        // In lax mode they are skipped
        let graph = OxigraphInMemory::from_str(n3, &RDFFormat::N3, None, &ReaderMode::Lax).unwrap();
        assert!(graph.len() <= 1, "{n3}: {}", graph.len());
    }
}

#[test]
fn test_strict_mode_validates_the_terms_it_reads() {
    const RDF: &str = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#>";
    for (format, data) in [
        // rdf:langString as the datatype of a literal with no language tag
        (
            RDFFormat::Turtle,
            format!("prefix : <http://example.org/> prefix rdf: {RDF} :x :p \"a\"^^rdf:langString ."),
        ),
        // A language tag that is not well-formed BCP 47: a subtag of more than eight characters
        (
            RDFFormat::Turtle,
            "prefix : <http://example.org/> :x :p \"a\"@abcdefghijkl .".to_string(),
        ),
        (
            RDFFormat::TriG,
            format!("prefix : <http://example.org/> prefix rdf: {RDF} :g {{ :x :p \"a\"^^rdf:langString }}"),
        ),
        (
            RDFFormat::N3,
            "@prefix : <http://example.org/> . :x :p \"a\"@abcdefghijkl .".to_string(),
        ),
    ] {
        let err = OxigraphInMemory::from_str(&data, &format, None, &ReaderMode::Strict).unwrap_err();
        assert!(err.to_string().contains(&format.to_string()), "{data}: {err}");
        // Lax mode stays lenient, so the term is read as it is: it is best effort
        let graph = OxigraphInMemory::from_str(&data, &format, None, &ReaderMode::Lax).unwrap();
        assert_eq!(graph.len(), 1, "{data}");
    }
}

#[test]
fn test_strict_mode_reads_rdf_12_terms() {
    let turtle = r#"
@base <http://example.org/> .
prefix : <http://example.org/>
<x> :p "Shalom"@he--rtl .
<y> :q <<( <x> :p "a" )>> .
"#;
    let graph = OxigraphInMemory::from_str(turtle, &RDFFormat::Turtle, None, &ReaderMode::Strict).unwrap();
    assert_eq!(graph.len(), 2);

    let x: OxSubject = OxNamedNode::new_unchecked("http://example.org/x").into();
    let p = OxNamedNode::new_unchecked("http://example.org/p");
    let shalom = graph
        .triples_matching(&x, &p, &Any)
        .unwrap()
        .next()
        .unwrap()
        .obj()
        .clone();
    assert_eq!(
        OxigraphInMemory::term_as_object(&shalom).unwrap(),
        Object::Literal(ConcreteLiteral::dir_lang_str(
            "Shalom",
            Lang::new("he").unwrap(),
            RdfBaseDirection::Rtl
        ))
    );
}
// RDF/XML

// RDF/XML is parsed with oxrdfxml directly, not through oxrdfio, so the RDF 1.2
// constructs are read only while that crate has its `rdf-12` feature on.
#[test]
fn test_parse_rdfxml_rdf12_terms() {
    // Without rdf:version="1.2" both constructs are silently ignored, as RDF/XML 1.2 asks
    let rdfxml = r#"<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"
         xmlns:its="http://www.w3.org/2005/11/its"
         xmlns="http://example.org/"
         rdf:version="1.2">
  <rdf:Description rdf:about="http://example.org/x">
    <p xml:lang="he" its:dir="rtl">Shalom</p>
    <q rdf:parseType="Triple">
      <rdf:Description rdf:about="http://example.org/s">
        <r rdf:resource="http://example.org/o"/>
      </rdf:Description>
    </q>
  </rdf:Description>
</rdf:RDF>
"#;
    let graph = OxigraphInMemory::from_str(rdfxml, &RDFFormat::Rdfxml, None, &ReaderMode::Strict).unwrap();
    assert_eq!(graph.len(), 2, "the triple term is one term, not a reification");

    let x: OxSubject = OxNamedNode::new_unchecked("http://example.org/x").into();
    let p = OxNamedNode::new_unchecked("http://example.org/p");
    let shalom: OxTerm = OxLiteral::new_directional_language_tagged_literal("Shalom", "he", BaseDirection::Rtl)
        .unwrap()
        .into();
    assert_eq!(graph.triples_matching(&x, &p, &shalom).unwrap().count(), 1, "its:dir");

    let q = OxNamedNode::new_unchecked("http://example.org/q");
    let triple_term: OxTerm = OxTriple::new(
        OxNamedNode::new_unchecked("http://example.org/s"),
        OxNamedNode::new_unchecked("http://example.org/r"),
        OxNamedNode::new_unchecked("http://example.org/o"),
    )
    .into();
    assert_eq!(
        graph.triples_matching(&x, &q, &triple_term).unwrap().count(),
        1,
        "rdf:parseType=\"Triple\""
    );
}

// The store that answers SPARQL queries is built from the graph on demand, so a
// mutation after it has been built has to drop it; otherwise every later query is
// answered from the triples the graph held back then.
#[cfg(feature = "sparql")]
#[test]
fn test_adding_a_triple_invalidates_the_sparql_store() {
    use crate::rdf_core::query::QueryRDF;

    let mut graph = graph_from_str(DUMMY_GRAPH);
    let matches = |graph: &mut OxigraphInMemory| {
        graph.ensure_store().unwrap();
        graph
            .query_select("SELECT ?o WHERE { <http://example.org/x> <http://example.org/new> ?o }")
            .unwrap()
            .iter()
            .count()
    };

    assert_eq!(matches(&mut graph), 0);

    let x: OxSubject = OxNamedNode::new_unchecked("http://example.org/x").into();
    let new = OxNamedNode::new_unchecked("http://example.org/new");
    let five: OxTerm = OxLiteral::from(5).into();
    graph.add_triple(x.clone(), new.clone(), five.clone()).unwrap();
    assert_eq!(matches(&mut graph), 1, "the query must see the added triple");

    graph.remove_triple(x, new, five).unwrap();
    assert_eq!(matches(&mut graph), 0, "the query must not see the removed triple");
}

#[test]
fn test_triples_matching_with_any_or() {
    use crate::rdf_core::AnyOr;

    let graph = graph_from_str(DUMMY_GRAPH);
    let x: AnyOr<OxSubject> = AnyOr::new(Some(OxNamedNode::new_unchecked("http://example.org/x").into()));
    let p = AnyOr::new(Some(OxNamedNode::new_unchecked("http://example.org/p")));
    let one: AnyOr<OxTerm> = AnyOr::new(Some(OxLiteral::from(1).into()));

    // A value in every position matches exactly the one triple, and a wildcard in a
    // position widens the pattern there, just as `Any` does.
    assert_eq!(graph.triples_matching(&x, &p, &one).unwrap().count(), 1);
    assert_eq!(graph.triples_matching(&x, &p, &AnyOr::any()).unwrap().count(), 1);
    assert_eq!(
        graph
            .triples_matching(&x, &AnyOr::any(), &AnyOr::any())
            .unwrap()
            .count(),
        2
    );
    assert_eq!(
        graph
            .triples_matching(&AnyOr::any(), &p, &AnyOr::any())
            .unwrap()
            .count(),
        2
    );
    assert_eq!(
        graph
            .triples_matching(&AnyOr::<OxSubject>::any(), &AnyOr::any(), &AnyOr::<OxTerm>::any())
            .unwrap()
            .count(),
        graph.len(),
        "every position a wildcard walks the whole graph"
    );

    // And a value that is not in the graph matches nothing.
    let absent = AnyOr::new(Some(OxNamedNode::new_unchecked("http://example.org/absent")));
    assert_eq!(graph.triples_matching(&x, &absent, &AnyOr::any()).unwrap().count(), 0);
}
