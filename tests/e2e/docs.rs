//! The docs do not drift: every source path ARCHITECTURE.md names exists.

#[test]
fn architecture_paths_exist() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let mut checked = 0;
    for piece in text.split('`') {
        if piece.starts_with("src/") || piece.starts_with("tests/") || piece.starts_with("benches/")
        {
            assert!(
                root.join(piece).exists(),
                "ARCHITECTURE.md names {piece}, which does not exist"
            );
            checked += 1;
        }
    }
    assert!(
        checked >= 10,
        "expected ARCHITECTURE.md to name source paths, found {checked}"
    );
}

/// Every file shipped in `ontologies/`, `shapes/` and `demo/` parses.
#[test]
fn shipped_rdf_files_parse() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut n_files = 0;
    for dir in ["ontologies", "shapes", "demo"] {
        for entry in std::fs::read_dir(root.join(dir)).expect("directory") {
            let path = entry.expect("entry").path();
            let format = match path.extension().and_then(|e| e.to_str()) {
                Some("ttl") => oxrdfio::RdfFormat::Turtle,
                Some("trig") => oxrdfio::RdfFormat::TriG,
                _ => continue,
            };
            let file = std::fs::File::open(&path).expect("open");
            let mut n_quads = 0;
            for quad in oxrdfio::RdfParser::from_format(format).for_reader(file) {
                quad.unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                n_quads += 1;
            }
            assert!(n_quads > 0, "{} is empty", path.display());
            n_files += 1;
        }
    }
    assert!(n_files >= 3);
}

/// Every shapes file compiles as SHACL, and the demo graph conforms to its shapes.
#[test]
fn shipped_shapes_compile_and_the_demo_conforms() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let read = |path: &std::path::Path| -> Vec<oxrdf::Triple> {
        let text = std::fs::read(path).expect("read");
        oxrdfio::RdfParser::from_format(
            oxrdfio::RdfFormat::from_extension(path.extension().unwrap().to_str().unwrap())
                .expect("known extension"),
        )
        .for_slice(&text)
        .map(|q| oxrdf::Triple::from(q.expect("parses")))
        .collect()
    };
    for entry in std::fs::read_dir(root.join("shapes")).expect("shapes/") {
        let path = entry.unwrap().path();
        let shapes = strata::shacl::Shapes::from_triples(read(&path))
            .unwrap_or_else(|e| panic!("{} does not compile: {e}", path.display()));
        assert!(!shapes.is_empty(), "{} holds no shape", path.display());
    }
    let shapes = strata::shacl::Shapes::from_triples(read(&root.join("shapes/demo.ttl"))).unwrap();
    let data = read(&root.join("demo/demo.trig"));
    let report = strata::shacl::validate(&shapes, data.iter().map(oxrdf::Triple::as_ref)).unwrap();
    assert!(report.conforms, "{report:?}");
}
