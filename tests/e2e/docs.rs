//! The docs do not drift: every path, module and item ARCHITECTURE.md names exists, and
//! the layer order it draws holds in the code (a lower layer never names a higher one).

use std::path::{Path, PathBuf};

/// The layers, lowest first, as ARCHITECTURE.md's "Layers" table lists them: a module
/// may use modules of lower layers only (`model`, `mapped` and `memory` are used by all).
const LAYERS: &[&[&str]] = &[
    &["model", "mapped", "memory", "scratch"],
    &["log", "store"],
    &["sparql", "shacl", "ontology"],
    &["search"],
    &["engine"],
    &["error", "report", "query", "records"],
    &["api"],
];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every file of the repository (not build output, dependencies or git).
fn repo_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            let name = entry.file_name();
            if matches!(
                name.to_str(),
                Some("target" | "node_modules" | ".git" | "models")
            ) {
                continue;
            }
            if path.is_dir() {
                out.push(path.clone());
                walk(&path, out);
            } else {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(root(), &mut out);
    out
}

/// The text of every Rust file under `src/`.
fn sources() -> Vec<(PathBuf, String)> {
    repo_files()
        .into_iter()
        .filter(|p| p.starts_with(root().join("src")) && p.extension().is_some_and(|e| e == "rs"))
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            (p, text)
        })
        .collect()
}

fn is_word_in(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + word.len()..].chars().next();
        let ident = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        !ident(before) && !ident(after)
    })
}

#[test]
fn architecture_names_only_what_exists() {
    let text = std::fs::read_to_string(root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let files = repo_files();
    let sources = sources();
    let relative: Vec<String> = files
        .iter()
        .map(|p| {
            p.strip_prefix(root())
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    let (mut paths, mut items) = (0, 0);
    // The directory of the `### \`src/…/\`` section being read: relative paths are
    // under it.
    let mut section = String::new();
    // The last directory named (`console/src/`): the file names after it may be in it.
    let mut last_dir = String::new();
    for line in text.lines() {
        if let Some(heading) = line.strip_prefix("### `").and_then(|h| h.strip_suffix('`')) {
            section = heading.trim_end_matches('/').to_owned();
            // A file's section (`src/memory.rs`): its neighbours are named relative to
            // its directory.
            if section.ends_with(".rs") {
                section = section
                    .rsplit_once('/')
                    .map_or("", |(dir, _)| dir)
                    .to_owned();
            }
        } else if line.starts_with("## ") {
            section.clear();
        }
        for (i, token) in line.split('`').enumerate() {
            // Skipped: prose, routes, placeholders (`<data>/…`, `repair-<time>/`), options.
            if i % 2 == 0
                || token.contains([' ', '<', '*', '{'])
                || token.starts_with(['/', '$', '-', '.'])
            {
                continue;
            }
            // A path: a file name, a directory (`cli/`), or under a top-level directory
            // (`console/src/`); `tools/list` is a protocol method, not a path.
            let top = token.split('/').next().unwrap_or_default();
            let looks_like_path = token.ends_with('/')
                || (token.contains('/') && root().join(top).is_dir())
                || [
                    ".rs", ".md", ".json", ".mjs", ".js", ".py", ".toml", ".ttl", ".txt",
                ]
                .iter()
                .any(|ext| token.ends_with(ext));
            if looks_like_path && !token.contains("::") {
                let wanted = token.trim_end_matches('/');
                let found = root().join(wanted).exists()
                    || (!section.is_empty() && root().join(&section).join(wanted).exists())
                    || (!last_dir.is_empty() && root().join(&last_dir).join(wanted).exists())
                    || relative.iter().any(|p| {
                        p.ends_with(&format!("/{wanted}"))
                            && (section.is_empty() || p.starts_with(&format!("{section}/")))
                    });
                assert!(
                    found,
                    "ARCHITECTURE.md names `{token}` (section `{section}`), which does not exist"
                );
                if token.ends_with('/') && root().join(wanted).is_dir() {
                    last_dir = wanted.to_owned();
                }
                paths += 1;
            } else if let Some((owner, member)) = token.rsplit_once("::") {
                let member = member.trim_end_matches("()");
                let owner_name = owner.rsplit("::").next().unwrap();
                if owner_name.starts_with(char::is_uppercase) {
                    // `Type::member`: the type is defined and the member is in its file
                    // or an `impl` elsewhere.
                    let defined = sources.iter().any(|(_, s)| {
                        ["struct", "enum", "trait", "type"]
                            .iter()
                            .any(|kind| is_word_in(s, &format!("{kind} {owner_name}")))
                    });
                    assert!(
                        defined,
                        "ARCHITECTURE.md names `{token}`: no type {owner_name}"
                    );
                } else {
                    // `module::item`: a module file under src/ with the item in it.
                    let segments: Vec<&str> = owner
                        .split("::")
                        .filter(|s| *s != "crate" && *s != "strata")
                        .collect();
                    let tail = segments.join("/");
                    let module = sources.iter().any(|(p, s)| {
                        let p = p
                            .strip_prefix(root())
                            .unwrap()
                            .to_string_lossy()
                            .into_owned();
                        (p.ends_with(&format!("{tail}.rs"))
                            || p.ends_with(&format!("{tail}/mod.rs")))
                            && is_word_in(s, member)
                    }) || relative.iter().any(|p| {
                        p.ends_with(&format!("{tail}/{member}.rs"))
                            || p.ends_with(&format!("{tail}/{member}"))
                    });
                    assert!(
                        module,
                        "ARCHITECTURE.md names `{token}`, which does not exist"
                    );
                }
                assert!(
                    sources.iter().any(|(_, s)| is_word_in(s, member)),
                    "ARCHITECTURE.md names `{token}`: nothing called {member} in src/"
                );
                items += 1;
            }
        }
    }
    assert!(
        paths >= 80 && items >= 20,
        "checked {paths} paths and {items} items"
    );
}

#[test]
fn lower_layers_never_use_higher_ones() {
    let layer_of = |module: &str| LAYERS.iter().position(|layer| layer.contains(&module));
    let mut violations = Vec::new();
    for (path, text) in sources() {
        let relative = path.strip_prefix(root().join("src")).unwrap();
        let first = relative
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        let module = first.trim_end_matches(".rs");
        let Some(own) = layer_of(module) else {
            continue; // main.rs, lib.rs: the crate's roots
        };
        for (i, _) in text.match_indices("crate::") {
            let used: String = text[i + 7..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if let Some(layer) = layer_of(&used)
                && layer > own
            {
                let line = text[..i].lines().count() + 1;
                violations.push(format!("{}:{line} uses crate::{used}", relative.display()));
            }
        }
    }
    assert!(
        violations.is_empty(),
        "a lower layer uses a higher one (see ARCHITECTURE.md, Layers):\n{}",
        violations.join("\n")
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
