//! The CLI contract: import, query at any commit, update, log, diff, verify, export, and
//! clear errors that change nothing.

use crate::util::{Strata, served_at};

const PEOPLE: &str = "@prefix ex: <http://example.org/> .
ex:ada ex:name \"Ada\" ; ex:knows ex:alan .
ex:alan ex:name \"Alan\" .
";

fn strata_with_people() -> Strata {
    let strata = Strata::new();
    let file = strata.file("people.ttl", PEOPLE);
    let out = strata
        .run(&["import", file.to_str().unwrap()])
        .ok()
        .to_owned();
    assert!(out.contains("commit 1: +3 -0"), "{out}");
    strata
}

#[test]
fn import_then_query_at_head_and_at_an_earlier_commit() {
    let strata = strata_with_people();
    let update = "PREFIX ex: <http://example.org/> DELETE DATA { ex:alan ex:name \"Alan\" } ; INSERT DATA { ex:alan ex:name \"Alan Turing\" }";
    let out = strata.run(&["update", update]).ok().to_owned();
    assert!(out.contains("commit 2: +1 -1"), "{out}");

    let query = "SELECT ?n WHERE { <http://example.org/alan> <http://example.org/name> ?n }";
    let head = strata.run(&["query", query, "--format", "tsv"]);
    assert_eq!(head.ok(), "?n\n\"Alan Turing\"\n");
    assert_eq!(served_at(&head.stderr), 2);

    let pinned = strata.run(&["query", query, "--format", "tsv", "--as-of", "1"]);
    assert_eq!(pinned.ok(), "?n\n\"Alan\"\n");
    assert_eq!(served_at(&pinned.stderr), 1);
}

#[test]
fn as_of_time_maps_to_the_latest_commit_at_or_before_it() {
    let strata = strata_with_people();
    std::thread::sleep(std::time::Duration::from_millis(20));
    let between = time::OffsetDateTime::now_utc();
    std::thread::sleep(std::time::Duration::from_millis(20));
    strata
        .run(&[
            "update",
            "INSERT DATA { <http://example.org/x> <http://example.org/p> 1 }",
        ])
        .ok();
    let moment = between
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap();
    let run = strata.run(&[
        "query",
        "ASK { <http://example.org/x> ?p ?o }",
        "--as-of-time",
        &moment,
    ]);
    assert_eq!(served_at(&run.stderr), 1);
    assert!(run.ok().contains("false"));
    let early = strata.run(&["query", "ASK {}", "--as-of-time", "2000-01-01T00:00:00Z"]);
    assert!(early.fails_with(1).contains("commit_not_found"));
}

#[test]
fn result_formats_follow_the_w3c_formats() {
    let strata = strata_with_people();
    let query = "SELECT ?s ?n WHERE { ?s <http://example.org/name> ?n } ORDER BY ?n";
    let json = strata.run(&["query", query, "--format", "json"]);
    let value: serde_json::Value = serde_json::from_str(json.ok()).unwrap();
    assert_eq!(value["head"]["vars"], serde_json::json!(["s", "n"]));
    assert_eq!(value["results"]["bindings"][0]["n"]["value"], "Ada");
    let csv = strata.run(&["query", query, "--format", "csv"]);
    assert_eq!(
        csv.ok(),
        "s,n\r\nhttp://example.org/ada,Ada\r\nhttp://example.org/alan,Alan\r\n"
    );
    let tsv = strata.run(&["query", query, "--format", "tsv"]);
    assert!(
        tsv.ok()
            .starts_with("?s\t?n\n<http://example.org/ada>\t\"Ada\"\n")
    );
    let table = strata.run(&["query", query]);
    assert!(table.ok().lines().next().unwrap().contains("s"));
    assert_eq!(table.ok().lines().count(), 4);
    let construct = strata.run(&[
        "query",
        "CONSTRUCT { ?s <http://example.org/label> ?n } WHERE { ?s <http://example.org/name> ?n }",
        "--format",
        "ntriples",
    ]);
    assert_eq!(construct.ok().lines().count(), 2);
    assert!(
        construct
            .ok()
            .contains("<http://example.org/ada> <http://example.org/label> \"Ada\" .")
    );
    let ask = strata.run(&["query", "ASK { ?s ?p ?o }", "--format", "json"]);
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(ask.ok()).unwrap()["boolean"],
        true
    );
}

#[test]
fn a_no_op_update_makes_no_commit() {
    let strata = strata_with_people();
    let out = strata
        .run(&[
            "update",
            "INSERT DATA { <http://example.org/ada> <http://example.org/name> \"Ada\" }",
        ])
        .ok()
        .to_owned();
    assert!(out.contains("nothing changed"), "{out}");
    let out = strata
        .run(&[
            "update",
            "DELETE WHERE { <http://example.org/nobody> ?p ?o }",
        ])
        .ok()
        .to_owned();
    assert!(out.contains("nothing changed"), "{out}");
    assert_eq!(strata.n_commits("main"), 1);
}

#[test]
fn log_json_lists_commits_newest_first_with_their_chain() {
    let strata = strata_with_people();
    strata
        .run(&[
            "update",
            "--author",
            "ana",
            "--message",
            "add x",
            "INSERT DATA { <http://e/x> <http://e/p> 1 }",
        ])
        .ok();
    let run = strata.run(&["log", "--format", "json"]);
    let commits: serde_json::Value = serde_json::from_str(run.ok()).unwrap();
    let commits = commits.as_array().unwrap();
    assert_eq!(commits.len(), 2);
    assert_eq!(commits[0]["commit_seq"], 2);
    assert_eq!(commits[0]["author"], "ana");
    assert_eq!(commits[0]["message"], "add x");
    assert_eq!(commits[0]["inserted"], 1);
    assert_eq!(commits[0]["deleted"], 0);
    assert_eq!(commits[0]["parent_hash"], commits[1]["hash"]);
    assert_eq!(commits[1]["parent_hash"], "0".repeat(64));
    assert_eq!(commits[0]["hash"].as_str().unwrap().len(), 64);
    assert!(commits[0]["committed_at"].as_str().unwrap().ends_with('Z'));
}

#[test]
fn diff_lists_added_and_removed_quads() {
    let strata = strata_with_people();
    strata
        .run(&["update", "DELETE DATA { <http://example.org/alan> <http://example.org/name> \"Alan\" } ; INSERT DATA { GRAPH <http://example.org/g> { <http://e/a> <http://e/b> <http://e/c> } }"])
        .ok();
    let text = strata.run(&["diff", "1", "2"]);
    assert_eq!(
        text.ok(),
        "+ <http://e/a> <http://e/b> <http://e/c> <http://example.org/g> .\n- <http://example.org/alan> <http://example.org/name> \"Alan\" .\n"
    );
    let json = strata.run(&["diff", "2", "1", "--format", "json"]);
    let value: serde_json::Value = serde_json::from_str(json.ok()).unwrap();
    assert_eq!(value["added"].as_array().unwrap().len(), 1);
    assert_eq!(value["removed"].as_array().unwrap().len(), 1);
    let from_empty = strata.run(&["diff", "0", "1", "--format", "json"]);
    let value: serde_json::Value = serde_json::from_str(from_empty.ok()).unwrap();
    assert_eq!(value["added"].as_array().unwrap().len(), 3);
    assert!(
        strata
            .run(&["diff", "1", "9"])
            .fails_with(1)
            .contains("commit_not_found")
    );
}

#[test]
fn verify_passes_then_names_the_first_tampered_commit() {
    let strata = strata_with_people();
    strata
        .run(&[
            "update",
            "INSERT DATA { <http://e/x> <http://e/p> \"second\" }",
        ])
        .ok();
    strata
        .run(&[
            "update",
            "INSERT DATA { <http://e/x> <http://e/p> \"third\" }",
        ])
        .ok();
    assert!(strata.run(&["verify"]).ok().contains("3 commits verified"));
    // Flip one byte inside the second record's quads ("second" -> "sEcond").
    let path = strata.log_path("main");
    let mut bytes = std::fs::read(&path).unwrap();
    let position = bytes
        .windows(6)
        .position(|w| w == b"second")
        .expect("raw quads in log");
    bytes[position + 1] = b'E';
    std::fs::write(&path, bytes).unwrap();
    let run = strata.run(&["verify"]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("commit 2"), "{}", run.stdout);
}

#[test]
fn imports_trig_nquads_gzip_and_named_graph_targets() {
    let strata = Strata::new();
    let trig = strata.file(
        "data.trig",
        "@prefix ex: <http://e/> . ex:a ex:p 1 . ex:g { ex:b ex:p 2 . _:x ex:p 3 }",
    );
    let nq = strata.file(
        "data.nq",
        "<http://e/c> <http://e/p> \"4\" <http://e/g2> .\n",
    );
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut gz, b"<http://e/d> <http://e/p> \"5\" .\n").unwrap();
    let gz_path = strata.file("data.nt.gz", gz.finish().unwrap());
    let zst = zstd::encode_all(&b"<http://e/e> <http://e/p> \"5z\" .\n"[..], 3).unwrap();
    let zst_path = strata.file("more.ttl.zst", zst);
    let out = strata
        .run(&[
            "import",
            trig.to_str().unwrap(),
            nq.to_str().unwrap(),
            gz_path.to_str().unwrap(),
            zst_path.to_str().unwrap(),
        ])
        .ok()
        .to_owned();
    assert!(out.contains("commit 1: +6 -0"), "{out}");
    let graphs = strata.select("SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }", &[]);
    assert_eq!(graphs, vec!["<http://e/g2>", "<http://e/g>"]);
    let ttl = strata.file("more.ttl", "<http://e/z> <http://e/p> 6 .");
    strata
        .run(&["import", ttl.to_str().unwrap(), "--into", "http://e/g3"])
        .ok();
    assert_eq!(
        strata.select("SELECT ?s WHERE { GRAPH <http://e/g3> { ?s ?p ?o } }", &[]),
        vec!["<http://e/z>"]
    );
    let stdin = strata.run_with_stdin(
        &["import", "-", "--format", "ntriples"],
        "<http://e/w> <http://e/p> \"7\" .\n",
    );
    assert!(stdin.ok().contains("commit 3: +1 -0"));
    assert!(!stdin.stderr.contains("warning"), "{}", stdin.stderr);
    // --format wins over the extension, and says so.
    let named = strata.file("named.ttl", "<http://e/v> <http://e/p> \"8\" .\n");
    let forced = strata.run(&["import", named.to_str().unwrap(), "--format", "ntriples"]);
    assert!(forced.ok().contains("commit 4: +1 -0"));
    assert!(
        forced
            .stderr
            .contains("as N-Triples (--format), although its extension says Turtle"),
        "{}",
        forced.stderr
    );
}

#[test]
fn each_import_gets_its_own_blank_nodes() {
    let strata = Strata::new();
    let file = strata.file("b.nt", "_:b1 <http://e/p> \"x\" .\n");
    strata.run(&["import", file.to_str().unwrap()]).ok();
    strata.run(&["import", file.to_str().unwrap()]).ok();
    let rows = strata.select("SELECT ?s WHERE { ?s <http://e/p> \"x\" }", &[]);
    assert_eq!(rows.len(), 2, "two imports of one blank node are two nodes");
}

#[test]
fn export_at_a_commit_round_trips_into_another_graph() {
    let strata = strata_with_people();
    strata
        .run(&[
            "update",
            "DELETE WHERE { ?s <http://example.org/knows> ?o }",
        ])
        .ok();
    let out_path = strata.dir.path().join("export.nq");
    strata
        .run(&[
            "export",
            "--as-of",
            "1",
            "--output",
            out_path.to_str().unwrap(),
        ])
        .ok();
    strata
        .run(&["--graph", "copy", "import", out_path.to_str().unwrap()])
        .ok();
    let query = "SELECT ?s ?p ?o WHERE { ?s ?p ?o }";
    let original = strata.select(query, &["--as-of", "1"]);
    let copy = strata.select(query, &["--graph", "copy"]);
    assert_eq!(original.len(), 3);
    assert_eq!(original, copy);
    let graphs = strata.run(&["graphs"]);
    assert_eq!(graphs.ok(), "copy\thead 1\nmain\thead 2\n");
}

#[test]
fn graphs_have_separate_logs_and_commit_numbers() {
    let strata = strata_with_people();
    let out = strata
        .run(&[
            "--graph",
            "other",
            "update",
            "INSERT DATA { <http://e/a> <http://e/b> 1 }",
        ])
        .ok()
        .to_owned();
    assert!(out.contains("commit 1:"), "{out}");
    assert_eq!(strata.n_commits("main"), 1);
    assert_eq!(
        strata
            .select("SELECT ?s WHERE { ?s <http://e/b> 1 }", &[])
            .len(),
        0
    );
    assert!(
        strata
            .run(&["--graph", "Bad Name", "query", "ASK {}"])
            .fails_with(1)
            .contains("invalid graph name")
    );
}

#[test]
fn idempotency_keys_replay_or_conflict() {
    let strata = strata_with_people();
    let update = "INSERT DATA { <http://e/x> <http://e/p> 1 }";
    let first = strata.run(&["update", "--idempotency-key", "k1", update]);
    assert!(first.ok().contains("commit 2: +1 -0"));
    let again = strata.run(&["update", "--idempotency-key", "k1", update]);
    assert!(
        again.ok().contains("commit 2 (idempotent replay)"),
        "{}",
        again.stdout
    );
    let other = strata.run(&[
        "update",
        "--idempotency-key",
        "k1",
        "INSERT DATA { <http://e/y> <http://e/p> 1 }",
    ]);
    assert!(other.fails_with(1).contains("idempotency_conflict"));
    assert_eq!(strata.n_commits("main"), 2);
}

#[test]
fn malformed_turtle_names_the_line_and_changes_nothing() {
    let strata = strata_with_people();
    let bad = strata.file(
        "bad.ttl",
        "<http://e/a> <http://e/b> <http://e/c> .\n<http://e/a> <http://e/b> \"unterminated .\n",
    );
    let stderr = strata
        .run(&["import", bad.to_str().unwrap()])
        .fails_with(1)
        .to_owned();
    assert!(stderr.contains("line 2"), "{stderr}");
    assert!(stderr.contains("invalid_rdf"), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "one error line: {stderr}");
    assert_eq!(strata.n_commits("main"), 1);
    // A good file listed before the bad one is not imported either.
    let good = strata.file("good.ttl", "<http://e/new> <http://e/b> 1 .");
    strata
        .run(&["import", good.to_str().unwrap(), bad.to_str().unwrap()])
        .fails_with(1);
    assert_eq!(
        strata
            .select("SELECT ?o WHERE { <http://e/new> ?p ?o }", &[])
            .len(),
        0
    );
}

#[test]
fn bad_arguments_get_one_clear_error_and_change_nothing() {
    let strata = strata_with_people();
    let invalid = strata.run(&["update", "INSERT DATA { <http://e/a> <http://e/b> }"]);
    let stderr = invalid.fails_with(1);
    assert!(
        stderr.contains("invalid_sparql") && stderr.contains("1:"),
        "{stderr}"
    );
    let query = strata.run(&["query", "SELECT WHERE {"]);
    assert!(query.fails_with(1).contains("invalid_sparql"));
    let unknown = strata.run(&["--graph", "nope", "query", "ASK {}"]);
    let stderr = unknown.fails_with(1);
    assert!(
        stderr.contains("graph_not_found") && stderr.contains("main"),
        "{stderr}"
    );
    let as_of = strata.run(&["query", "ASK {}", "--as-of", "abc"]);
    assert!(as_of.fails_with(2).contains("--as-of"));
    let too_far = strata.run(&["query", "ASK {}", "--as-of", "7"]);
    assert!(too_far.fails_with(1).contains("commits are 1..=1"));
    let format = strata.run(&["query", "ASK {}", "--format", "yaml"]);
    assert!(format.fails_with(1).contains("--format"));
    let unknown_ext = strata.file("data.xyz", "x");
    assert!(
        strata
            .run(&["import", unknown_ext.to_str().unwrap()])
            .fails_with(1)
            .contains("--format")
    );
    let usage = strata.run(&["query", "ASK {}", "--no-such-flag"]);
    usage.fails_with(2);
    assert_eq!(strata.n_commits("main"), 1);
    assert!(!strata.data_dir().join("graphs").join("nope").exists());
}

#[test]
fn a_read_on_a_missing_data_directory_creates_nothing() {
    let strata = Strata::new();
    let run = strata.run(&["query", "ASK {}"]);
    assert!(run.fails_with(1).contains("existing graphs: none"));
    assert!(!strata.data_dir().exists());
}

#[test]
fn a_query_past_its_time_limit_is_stopped() {
    let strata = strata_with_people();
    let started = std::time::Instant::now();
    let run = strata.run(&[
        "--timeout",
        "0.3",
        "query",
        "SELECT * WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l . ?m ?n ?o . ?p ?q ?r . ?s ?t ?u . ?v ?w ?x . ?y ?z ?aa . ?ab ?ac ?ad . ?ae ?af ?ag . ?ah ?ai ?aj . ?ak ?al ?am . ?an ?ao ?ap . ?aq ?ar ?as . ?at ?au ?av . ?aw ?ax ?ay . ?az ?ba ?bb . ?bc ?bd ?be . ?bf ?bg ?bh}",
        "--format",
        "csv",
    ]);
    assert!(
        run.fails_with(1).contains("query_timeout"),
        "{}",
        run.stderr
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
}

#[test]
fn serve_loads_the_demo_graph_once_and_prints_a_working_curl_line() {
    let strata = Strata::new();
    let server = strata.serve_with(&["serve", "--http", "127.0.0.1:0"]);
    assert!(
        server
            .banner
            .iter()
            .any(|l| l.contains("loaded the demo graph")),
        "{:?}",
        server.banner
    );
    // The curl line the server prints works as printed.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let curl = loop {
        let found = server
            .output
            .lock()
            .unwrap()
            .iter()
            .find(|l| l.trim_start().starts_with("curl "))
            .cloned();
        if let Some(line) = found {
            break line;
        }
        assert!(std::time::Instant::now() < deadline, "no curl line printed");
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let out = std::process::Command::new("sh")
        .args(["-c", &curl])
        .output()
        .unwrap();
    let json: serde_json::Value =
        serde_json::from_slice(&out.stdout).expect("curl printed SPARQL JSON");
    assert_eq!(json["results"]["bindings"].as_array().unwrap().len(), 5);
    let status = server.stop();
    assert!(status.success(), "{status:?}");
    assert_eq!(strata.n_commits("main"), 2);
    let again = strata.serve_with(&["serve", "--http", "127.0.0.1:0"]);
    assert!(
        !again
            .banner
            .iter()
            .any(|l| l.contains("loaded the demo graph"))
    );
    drop(again);
    assert_eq!(strata.n_commits("main"), 2);
}

#[test]
fn malformed_commit_numbers_and_moments_are_usage_errors_exiting_2() {
    let strata = Strata::new();
    let file = strata.file("a.nt", "<http://e/a> <http://e/b> \"c\" .\n");
    strata.run(&["import", file.to_str().unwrap()]).ok();
    for args in [
        &["query", "ASK {}", "--as-of", "abc"][..],
        &["query", "ASK {}", "--as-of-time", "yesterday"],
        &["export", "--as-of", "3rd"],
        &["diff", "1", "latest"],
        &["update", "INSERT DATA {}", "--observed-at", "noon"],
        &["validate", "--as-of", "first"],
        &["--timeout=-1", "query", "ASK {}"],
    ] {
        let run = strata.run(args);
        let stderr = run.fails_with(2);
        assert!(stderr.contains("invalid value"), "{args:?}: {stderr}");
        // Coded like every other CLI error, naming the option or argument (issue 25:
        // clap's text was uncoded).
        assert!(
            stderr.starts_with("error[invalid_argument] "),
            "{args:?}: {stderr}"
        );
    }
    let as_of = strata.run(&["query", "ASK {}", "--as-of", "abc"]);
    assert!(
        as_of
            .fails_with(2)
            .starts_with("error[invalid_argument] --as-of: invalid value 'abc'"),
        "{}",
        as_of.stderr
    );
    let unknown = strata.run(&["query", "ASK {}", "--as-off", "1"]);
    assert!(
        unknown
            .fails_with(2)
            .starts_with("error[invalid_argument] --as-off: "),
        "{}",
        unknown.stderr
    );
    // Help is still help.
    let help = strata.run(&["query", "--help"]);
    assert_eq!(help.code, 0);
    assert!(help.stdout.contains("--as-of"), "{}", help.stdout);
    // A well-formed commit number that does not exist is not a usage error.
    assert!(
        strata
            .run(&["query", "ASK {}", "--as-of", "9"])
            .fails_with(1)
            .contains("commit_not_found")
    );
}

#[test]
fn a_corrupt_gzip_or_zstd_file_is_invalid_rdf_naming_the_file() {
    let strata = Strata::new();
    let garbage = strata.file("broken.ttl.gz", "this is not gzip at all");
    let mut compressed = Vec::new();
    {
        use std::io::Write;
        let mut encoder =
            flate2::write::GzEncoder::new(&mut compressed, flate2::Compression::default());
        encoder
            .write_all("<http://e/a> <http://e/b> \"c\" .\n".repeat(50).as_bytes())
            .unwrap();
        encoder.finish().unwrap();
    }
    let truncated = strata.file("cut.nt.gz", &compressed[..compressed.len() / 2]);
    let zst = zstd::encode_all(
        "<http://e/a> <http://e/b> \"c\" .\n".repeat(50).as_bytes(),
        3,
    )
    .unwrap();
    let garbage_zst = strata.file("broken.ttl.zst", "this is not zstd at all");
    let truncated_zst = strata.file("cut.nt.zst", &zst[..zst.len() / 2]);
    for file in [&garbage, &truncated, &garbage_zst, &truncated_zst] {
        let name = file.file_name().unwrap().to_str().unwrap();
        let run = strata.run(&["import", file.to_str().unwrap()]);
        let stderr = run.fails_with(1);
        assert!(
            stderr.starts_with("error[invalid_rdf]") && stderr.contains(name),
            "{stderr}"
        );
        let compression = if name.ends_with(".gz") {
            "gzip"
        } else {
            "zstd"
        };
        assert!(stderr.contains(compression), "{stderr}");
        let validate = strata.run(&[
            "validate",
            "--shapes",
            file.to_str().unwrap(),
            "--data",
            file.to_str().unwrap(),
        ]);
        let stderr = validate.fails_with(2);
        assert!(
            stderr.contains("error[invalid_rdf]") && stderr.contains(name),
            "{stderr}"
        );
    }
    // Nothing was written: not even the graph the failed imports would have created.
    assert!(!strata.data_dir().join("graphs/main").exists());
}

#[test]
fn rdf_xml_syntax_errors_name_their_line_and_column() {
    let strata = Strata::new();
    let file = strata.file(
        "bad.rdf",
        "<?xml version=\"1.0\"?>\n<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\" xmlns:ex=\"http://e/\">\n  <rdf:Description rdf:about=\"http://e/a\">\n    <ex:p>one</ex:p>\n    <ex:q>two</ex:r>\n  </rdf:Description>\n</rdf:RDF>\n",
    );
    let run = strata.run(&["import", file.to_str().unwrap()]);
    let stderr = run.fails_with(1);
    assert!(
        stderr.contains("error[invalid_rdf]") && stderr.contains("bad.rdf at line 5, column 20"),
        "{stderr}"
    );
}

/// Issue 25: one failure, one code on every surface. A `SERVICE` to an endpoint not in
/// `--allow-service` was `service_not_allowed` over HTTP but `query_failed` in the CLI.
#[test]
fn a_service_not_allowed_has_the_same_code_in_the_cli_and_over_http() {
    let strata = Strata::new();
    strata
        .run(&["update", "INSERT DATA { <http://e/s> <http://e/p> 1 }"])
        .ok();
    let query =
        "SELECT * WHERE { <http://e/s> ?p ?o SERVICE <http://127.0.0.1:9/sparql> { ?o ?q ?r } }";
    let cli = strata.run(&["query", query]);
    let stderr = cli.fails_with(1);
    assert!(stderr.contains("error[service_not_allowed]"), "{stderr}");
    let server = strata.serve(&[]);
    let mut answer = crate::util::agent()
        .get(server.url("/sparql"))
        .query("query", query)
        .call()
        .unwrap();
    assert_eq!(answer.status(), 403);
    let body: serde_json::Value =
        serde_json::from_str(&answer.body_mut().read_to_string().unwrap()).unwrap();
    assert_eq!(body["error"]["code"], "service_not_allowed", "{body}");
    server.stop();
}
