//! CLI reads beside a running server: `query`, `log`, `diff`, `export`, `verify`,
//! `validate --graph` and `graphs` open the data directory read-only while `strata serve` owns it, see every
//! commit the server acknowledged before they started, and never write.

use crate::util::{Strata, agent, served_at};

fn update(server: &crate::util::Server, text: &str) -> u64 {
    let mut response = agent()
        .post(server.url("/update"))
        .header("content-type", "application/sparql-update")
        .send(text)
        .unwrap();
    assert_eq!(
        response.status(),
        200,
        "{}",
        response.body_mut().read_to_string().unwrap()
    );
    response.headers()["strata-commit"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap()
}

#[test]
fn cli_reads_work_while_the_server_runs_and_see_its_commits() {
    let strata = Strata::new();
    // A small flush threshold, so the server writes store files (and compacts them) while
    // the CLI reads beside it.
    let server = strata.serve_with_env(
        &["serve", "--http", "127.0.0.1:0", "--no-demo"],
        &[("STRATA_FLUSH_EVERY_QUADS", "50")],
    );
    let mut last = 0;
    for round in 0..8 {
        let mut data = String::new();
        for i in 0..40 {
            data.push_str(&format!("<http://e/s{round}-{i}> <http://e/p> {i} . "));
        }
        let inserted = update(&server, &format!("INSERT DATA {{ {data} }}"));
        assert_eq!(inserted, last + 1);
        let removal = format!("DELETE DATA {{ <http://e/s{round}-0> <http://e/p> 0 }}");
        last = update(&server, &removal);

        let run = strata.run(&[
            "query",
            "SELECT (COUNT(*) AS ?n) { ?s ?p ?o }",
            "--format",
            "tsv",
        ]);
        assert_eq!(served_at(&run.stderr), last, "{}", run.stderr);
        let expected = (round + 1) * 39;
        assert!(
            run.ok().contains(&expected.to_string()),
            "round {round}: {}",
            run.stdout
        );
    }
    // Pinned reads, the log, a diff, an export and verify, all beside the server.
    let pinned = strata.run(&["query", "ASK { <http://e/s0-0> ?p ?o }", "--as-of", "1"]);
    assert!(pinned.ok().contains("true"), "{}", pinned.stdout);
    assert_eq!(strata.n_commits("main"), last as usize);
    let diff = strata.run(&["diff", "1", "2"]);
    assert!(diff.ok().contains("http://e/s0-0"), "{}", diff.stdout);
    let export = strata.run(&["export", "--as-of", "2"]);
    assert_eq!(export.ok().lines().count(), 39);
    assert!(
        strata
            .run(&["verify"])
            .ok()
            .contains(&format!("{last} commits verified"))
    );
    assert!(strata.run(&["graphs"]).ok().contains("main"));
    // Validation of the stored graph reads it beside the server too.
    let shapes = strata.file(
        "shapes.ttl",
        "@prefix sh: <http://www.w3.org/ns/shacl#> .
         <http://e/S> a sh:NodeShape ; sh:targetSubjectsOf <http://e/p> ;
           sh:property [ sh:path <http://e/p> ; sh:maxCount 1 ] .",
    );
    let validated = strata.run(&[
        "validate",
        "--graph",
        "main",
        "--shapes",
        shapes.to_str().unwrap(),
    ]);
    assert!(validated.ok().contains("conforms"), "{}", validated.stderr);
    let store = strata.log_path("main").with_file_name("store");
    assert!(
        store.join("MANIFEST").exists(),
        "the server flushed store files"
    );

    // Writes stay the server's: the CLI is refused, and nothing changed.
    let write = strata.run(&["update", "INSERT DATA { <http://e/x> <http://e/p> 1 }"]);
    assert!(
        write.fails_with(1).contains("data_dir_locked"),
        "{}",
        write.stderr
    );
    let after = strata.run(&["query", "ASK { <http://e/x> ?p ?o }"]);
    assert!(after.ok().contains("false"));
    let next = update(&server, "INSERT DATA { <http://e/y> <http://e/p> 1 }");
    assert_eq!(next, last + 1);
    let run = strata.run(&["query", "ASK { <http://e/y> ?p ?o }"]);
    assert_eq!(served_at(&run.stderr), next);
    assert!(run.ok().contains("true"));

    // Online backups: the newest commit (with the store files) and an older one (its log
    // only), each a data directory that verifies and serves.
    let copies = tempfile::tempdir().unwrap();
    let newest = copies.path().join("newest");
    let older = copies.path().join("older");
    let backup = strata.run(&["backup", "--to", newest.to_str().unwrap()]);
    assert!(
        backup.ok().contains(&format!("at commit {next}")),
        "{}",
        backup.stdout
    );
    let backup = strata.run(&["backup", "--to", older.to_str().unwrap(), "--as-of", "2"]);
    assert!(backup.ok().contains("at commit 2"), "{}", backup.stdout);
    let again = strata.run(&["backup", "--to", older.to_str().unwrap()]);
    assert!(
        again.fails_with(1).contains("already holds a graph"),
        "{}",
        again.stderr
    );
    server.stop();

    for (dir, commits, quads) in [(&newest, next, 8 * 39 + 1), (&older, 2, 39)] {
        let data = dir.to_str().unwrap();
        let verify = strata.run(&["--data", data, "verify"]);
        assert!(
            verify
                .ok()
                .contains(&format!("ok: {commits} commits verified"))
        );
        let copy = strata.serve(&["--data", data]);
        let mut response = agent()
            .get(copy.url("/sparql"))
            .query("query", "SELECT (COUNT(*) AS ?n) { ?s ?p ?o }")
            .header("accept", "text/csv")
            .call()
            .unwrap();
        assert_eq!(
            response.headers()["strata-commit"],
            commits.to_string().as_str()
        );
        let body = response.body_mut().read_to_string().unwrap();
        assert!(body.contains(&quads.to_string()), "{body}");
        copy.stop();
    }
}
