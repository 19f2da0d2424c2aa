//! The docs do not drift: every source path ARCHITECTURE.md names exists.

#[test]
fn architecture_paths_exist() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let mut checked = 0;
    for piece in text.split('`') {
        if piece.starts_with("src/") || piece.starts_with("tests/") || piece.starts_with("benches/") {
            assert!(root.join(piece).exists(), "ARCHITECTURE.md names {piece}, which does not exist");
            checked += 1;
        }
    }
    assert!(checked >= 10, "expected ARCHITECTURE.md to name source paths, found {checked}");
}
