//! The corruption matrix: each way a graph's files can be damaged, with what `verify`
//! reports and what opening the graph does. Only a torn tail (nothing intact after it, no
//! checkpoint proving it was acknowledged) is cut automatically; everything else stops the
//! open, leaves the files untouched, and is repaired only by `repair_graph`.

use std::path::{Path, PathBuf};

use super::{CheckpointCheck, CommitRequest, Engine, EngineConfig, EngineError};
use crate::sparql::UpdateOptions;

type TestResult = Result<(), Box<dyn std::error::Error>>;

const N_COMMITS: u64 = 31;

/// A data directory holding graph `main` with 31 commits (one triple each), optionally
/// with a checkpoint at the head. Returns the byte range `(offset, len)` of each record.
fn graph_with_31_commits(checkpoint: bool) -> (tempfile::TempDir, Vec<(u64, u64)>) {
    let dir = tempfile::tempdir().expect("temporary directory");
    let engine = Engine::open(dir.path(), config()).expect("open");
    let graph = engine.graph_or_create("main").expect("create");
    for i in 1..=N_COMMITS {
        let update = format!("INSERT DATA {{ <http://e/s{i}> <http://e/p> \"value {i}\" }}");
        graph
            .update(
                &update,
                None,
                &UpdateOptions::default(),
                &CommitRequest::default(),
            )
            .expect("commit");
    }
    if checkpoint {
        graph.flush_when_idle(1).expect("flush");
    }
    let mut records: Vec<(u64, u64)> = graph
        .commits_newest_first(0, usize::MAX)
        .iter()
        .map(|c| (c.offset, c.len))
        .collect();
    records.reverse();
    (dir, records)
}

/// No automatic flushes, so each case decides whether there are store files.
fn config() -> EngineConfig {
    EngineConfig {
        flush_every_quads: u64::MAX,
        ..EngineConfig::default()
    }
}

fn log_path(dir: &Path) -> PathBuf {
    dir.join("graphs/main/commits.log")
}

/// The manifest of the graph's store files (what replaced `checkpoint.bin`).
fn checkpoint_path(dir: &Path) -> PathBuf {
    dir.join("graphs/main/store/MANIFEST")
}

/// Flips one byte in the body (header text) of record `seq`.
fn flip_byte_in_commit(dir: &Path, records: &[(u64, u64)], seq: u64) {
    let (offset, _) = records[seq as usize - 1];
    let mut bytes = std::fs::read(log_path(dir)).expect("read log");
    bytes[offset as usize + 24 + 32 + 20] ^= 0x20;
    std::fs::write(log_path(dir), bytes).expect("write log");
}

/// The graph's (one) segment file.
fn segment_file(store: &Path) -> std::io::Result<PathBuf> {
    Ok(std::fs::read_dir(store)?
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "seg"))
        .expect("a segment file"))
}

/// Whether an open set the graph's store files aside (`store.unreadable-<time>`).
fn store_files_set_aside(dir: &Path) -> std::io::Result<bool> {
    Ok(std::fs::read_dir(dir.join("graphs/main"))?
        .flatten()
        .any(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("store.unreadable-")
        }))
}

fn open_head(dir: &Path) -> Result<u64, EngineError> {
    let engine = Engine::open(dir, config())?;
    Ok(engine.graph("main")?.head_seq())
}

fn next_commit(dir: &Path) -> Result<Option<u64>, EngineError> {
    let engine = Engine::open(dir, config())?;
    let graph = engine.graph("main")?;
    let outcome = graph.update(
        "INSERT DATA { <http://e/new> <http://e/p> \"after\" }",
        None,
        &UpdateOptions::default(),
        &CommitRequest::default(),
    )?;
    Ok(outcome.commit_seq)
}

#[test]
fn an_intact_log_verifies_and_opens_at_its_head() -> TestResult {
    let (dir, _) = graph_with_31_commits(true);
    let check = Engine::open(dir.path(), config())?.verify_graph("main")?;
    assert!(check.is_healthy(), "{check:?}");
    assert_eq!(check.log.n_commits, N_COMMITS);
    assert!(matches!(
        check.checkpoint,
        CheckpointCheck::Matches(N_COMMITS)
    ));
    assert_eq!(open_head(dir.path())?, N_COMMITS);
    Ok(())
}

#[test]
fn corruption_in_the_middle_of_the_log_stops_the_open_and_cuts_nothing() -> TestResult {
    for (bad, checkpoint) in [(1, false), (10, false), (10, true), (30, false)] {
        let (dir, records) = graph_with_31_commits(checkpoint);
        flip_byte_in_commit(dir.path(), &records, bad);
        let before = std::fs::read(log_path(dir.path()))?;

        let check = Engine::open(dir.path(), config())?.verify_graph("main")?;
        assert!(!check.is_healthy());
        assert_eq!(check.log.n_commits, bad - 1);
        assert_eq!(check.log.first_bad.as_ref().map(|b| b.0), Some(bad));
        assert_eq!(check.log.intact_after, N_COMMITS - bad, "commit {bad}");

        match open_head(dir.path()) {
            Err(EngineError::LogCorrupt {
                commit_seq,
                intact_after,
                ..
            }) => {
                assert_eq!(commit_seq, bad);
                assert_eq!(intact_after, N_COMMITS - bad);
            }
            other => panic!("commit {bad}: expected log_corrupt, got {other:?}"),
        }
        // A write cannot reuse the bad commit's number either.
        assert!(matches!(
            next_commit(dir.path()),
            Err(EngineError::LogCorrupt { .. })
        ));
        assert_eq!(std::fs::read(log_path(dir.path()))?, before, "commit {bad}");
        assert_eq!(
            std::fs::read_dir(dir.path().join("graphs/main"))?
                .flatten()
                .filter(|e| e.file_name().to_string_lossy().contains(".cut-"))
                .count(),
            0,
            "nothing may be cut"
        );
    }
    Ok(())
}

#[test]
fn a_torn_tail_is_cut_at_open() -> TestResult {
    let (dir, records) = graph_with_31_commits(false);
    let (offset, len) = records[N_COMMITS as usize - 1];
    let file = std::fs::File::options()
        .write(true)
        .open(log_path(dir.path()))?;
    file.set_len(offset + len / 2)?;
    drop(file);
    let check = Engine::open(dir.path(), config())?.verify_graph("main")?;
    assert!(check.is_healthy(), "a torn tail is not damage: {check:?}");
    assert_eq!(check.log.trailing_bytes, len / 2);
    assert_eq!(open_head(dir.path())?, N_COMMITS - 1);
    assert_eq!(std::fs::metadata(log_path(dir.path()))?.len(), offset);
    assert_eq!(next_commit(dir.path())?, Some(N_COMMITS));
    Ok(())
}

#[test]
fn a_garbled_last_record_is_a_torn_tail_unless_the_checkpoint_proves_it_acknowledged() -> TestResult
{
    let (dir, records) = graph_with_31_commits(false);
    flip_byte_in_commit(dir.path(), &records, N_COMMITS);
    let check = Engine::open(dir.path(), config())?.verify_graph("main")?;
    assert_eq!(check.log.n_commits, N_COMMITS - 1);
    assert!(check.log.trailing_bytes > 0);
    assert_eq!(open_head(dir.path())?, N_COMMITS - 1);

    let (dir, records) = graph_with_31_commits(true);
    flip_byte_in_commit(dir.path(), &records, N_COMMITS);
    let before = std::fs::read(log_path(dir.path()))?;
    let check = Engine::open(dir.path(), config())?.verify_graph("main")?;
    assert!(!check.is_healthy());
    assert!(matches!(
        check.checkpoint,
        CheckpointCheck::Ahead {
            checkpoint_seq: N_COMMITS
        }
    ));
    assert!(matches!(
        open_head(dir.path()),
        Err(EngineError::LogBehindCheckpoint {
            log_head: 30,
            checkpoint_seq: N_COMMITS,
            ..
        })
    ));
    assert_eq!(std::fs::read(log_path(dir.path()))?, before);
    Ok(())
}

#[test]
fn a_log_cut_at_a_record_boundary_behind_its_checkpoint_stops_the_open() -> TestResult {
    for keep in [20u64, 0] {
        let (dir, records) = graph_with_31_commits(true);
        let len = if keep == 0 {
            0
        } else {
            let (offset, len) = records[keep as usize - 1];
            offset + len
        };
        std::fs::File::options()
            .write(true)
            .open(log_path(dir.path()))?
            .set_len(len)?;
        let check = Engine::open(dir.path(), config())?.verify_graph("main")?;
        assert!(check.log.first_bad.is_none() && check.log.trailing_bytes == 0);
        assert!(!check.is_healthy(), "keep {keep}: {check:?}");
        match open_head(dir.path()) {
            Err(EngineError::LogBehindCheckpoint {
                log_head,
                checkpoint_seq,
                ..
            }) => assert_eq!((log_head, checkpoint_seq), (keep, N_COMMITS)),
            other => panic!("keep {keep}: expected log_truncated, got {other:?}"),
        }
        assert!(matches!(
            next_commit(dir.path()),
            Err(EngineError::LogBehindCheckpoint { .. })
        ));
        assert_eq!(std::fs::metadata(log_path(dir.path()))?.len(), len);
    }
    Ok(())
}

#[test]
fn a_deleted_log_beside_a_checkpoint_is_never_recreated_empty() -> TestResult {
    let (dir, _) = graph_with_31_commits(true);
    std::fs::remove_file(log_path(dir.path()))?;
    let engine = Engine::open(dir.path(), config())?;
    assert!(matches!(
        engine.graph("main"),
        Err(EngineError::GraphNotFound { .. })
    ));
    assert!(matches!(
        engine.graph_or_create("main"),
        Err(EngineError::LogBehindCheckpoint { log_head: 0, .. })
    ));
    Ok(())
}

#[test]
fn a_corrupt_or_missing_checkpoint_is_rebuilt_from_the_log() -> TestResult {
    let (dir, _) = graph_with_31_commits(true);
    let mut bytes = std::fs::read(checkpoint_path(dir.path()))?;
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0xff;
    std::fs::write(checkpoint_path(dir.path()), bytes)?;
    let check = Engine::open(dir.path(), config())?.verify_graph("main")?;
    assert!(check.is_healthy(), "{check:?}");
    assert!(matches!(check.checkpoint, CheckpointCheck::Unreadable(_)));
    {
        let engine = Engine::open(dir.path(), config())?;
        let graph = engine.graph("main")?;
        assert_eq!(graph.head_seq(), N_COMMITS);
        assert_eq!(graph.open_stats().replayed_commits, N_COMMITS);
    }

    // The open set the unreadable files aside: there are none now.
    assert!(!checkpoint_path(dir.path()).exists());
    let check = Engine::open(dir.path(), config())?.verify_graph("main")?;
    assert!(matches!(check.checkpoint, CheckpointCheck::Absent));
    assert_eq!(open_head(dir.path())?, N_COMMITS);
    Ok(())
}

#[test]
fn a_torn_or_damaged_store_file_is_set_aside_and_rebuilt_from_the_log() -> TestResult {
    let (dir, _) = graph_with_31_commits(true);
    let store = dir.path().join("graphs/main/store");
    let segment = segment_file(&store)?;
    let bytes = std::fs::read(&segment)?;
    // A flipped byte in the body: `verify` finds it (the open does not read bodies).
    let mut flipped = bytes.clone();
    flipped[bytes.len() / 2] ^= 0xff;
    std::fs::write(&segment, &flipped)?;
    let check = Engine::open(dir.path(), config())?.verify_graph("main")?;
    assert!(
        matches!(check.checkpoint, CheckpointCheck::BodyDamaged(_)),
        "{check:?}"
    );
    // The open would serve it (it checks headers only): not healthy, and `repair` sets
    // the store files aside, keeping every commit (issue 25: `verify` said the next open
    // would, which it did not).
    assert!(!check.is_healthy(), "{check:?}");
    let plan = Engine::open(dir.path(), config())?.repair_graph("main", false)?;
    assert!(plan.move_checkpoint && plan.cut_bytes == 0, "{plan:?}");
    assert_eq!(plan.keep_commits, N_COMMITS);
    // A torn file: the open sets the files aside and replays the whole log.
    std::fs::write(&segment, &bytes[..bytes.len() - 100])?;
    {
        let engine = Engine::open(dir.path(), config())?;
        let graph = engine.graph("main")?;
        assert_eq!(graph.head_seq(), N_COMMITS);
        assert_eq!(graph.open_stats().replayed_commits, N_COMMITS);
        let answer = graph.read().query(
            "ASK { <http://e/s31> <http://e/p> \"value 31\" . <http://e/s1> ?p ?o }",
            &Default::default(),
        )?;
        assert!(matches!(
            answer.results,
            crate::sparql::QueryResults::Boolean(true)
        ));
    }
    let aside = store_files_set_aside(dir.path())?;
    assert!(aside, "the unreadable files are kept aside");
    Ok(())
}

/// A scan that meets a damaged section and finds nothing must not answer "nothing":
/// the results are checked once more at their end, not only per row.
#[test]
fn an_empty_answer_read_from_a_damaged_section_is_withheld() -> TestResult {
    let (dir, _) = graph_with_31_commits(true);
    let segment = segment_file(&dir.path().join("graphs/main/store"))?;
    // Section 2 holds the OSPG ordering, which a scan by object alone searches.
    let at = crate::store::segment_section_offset(&segment, 2)? + 4;
    let mut bytes = std::fs::read(&segment)?;
    bytes[at] ^= 0xff;
    std::fs::write(&segment, &bytes)?;
    let engine = Engine::open(
        dir.path(),
        EngineConfig {
            read_only: true,
            ..config()
        },
    )?;
    let graph = engine.graph("main")?;
    // The `EXISTS` searches OSPG once per row, as the rows are read: every row is
    // filtered out, so no row is there to carry the error.
    let answer = graph.read().query(
        "SELECT ?s { ?s <http://e/p> ?o FILTER EXISTS { ?x ?y ?s } }",
        &Default::default(),
    )?;
    let crate::sparql::QueryResults::Solutions(rows) = answer.results else {
        panic!("a SELECT")
    };
    let rows: Vec<_> = rows.collect();
    assert!(
        matches!(rows.last(), Some(Err(e)) if e.to_string().contains("checksum")),
        "{rows:?}"
    );
    Ok(())
}

#[test]
fn a_flipped_byte_in_a_store_file_fails_the_reads_that_meet_it_and_the_next_open_rebuilds()
-> TestResult {
    let (dir, _) = graph_with_31_commits(true);
    let store = dir.path().join("graphs/main/store");
    let segment = segment_file(&store)?;
    let mut bytes = std::fs::read(&segment)?;
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0xff;
    std::fs::write(&segment, &bytes)?;
    {
        // The open reads headers only; the server's background check finds the damage
        // (a query reading the section first would too).
        let engine = Engine::open(dir.path(), config())?;
        let graph = engine.graph("main")?;
        let started = std::time::Instant::now();
        while graph.store.damage().is_none() {
            assert!(
                started.elapsed() < std::time::Duration::from_secs(30),
                "the background check did not find the damage"
            );
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert!(store.join("DAMAGED").exists(), "the store is marked");
        let read = graph
            .read()
            .query("SELECT ?s ?o { ?s <http://e/p> ?o }", &Default::default());
        let Err(error) = read else {
            panic!("a query over the damaged file answered")
        };
        assert!(
            matches!(
                error,
                EngineError::Query(crate::sparql::QueryError::StoreDamaged(_))
            ),
            "{error}"
        );
        // Coded `corruption` on every surface (`error.rs`).
        assert!(error.to_string().contains("checksum"), "{error}");
        let write = graph.update(
            "INSERT DATA { <http://e/s99> <http://e/p> \"value 99\" }",
            None,
            &UpdateOptions::default(),
            &CommitRequest::default(),
        );
        assert!(
            matches!(
                write,
                Err(EngineError::Query(crate::sparql::QueryError::StoreDamaged(
                    _
                )))
            ),
            "{:?}",
            write.map(|o| o.commit_seq)
        );
        assert_eq!(graph.head_seq(), N_COMMITS, "the write changed nothing");
    }
    // The next open sets the marked files aside and replays the whole log.
    let engine = Engine::open(dir.path(), config())?;
    let graph = engine.graph("main")?;
    assert_eq!(graph.open_stats().replayed_commits, N_COMMITS);
    assert!(graph.store.damage().is_none());
    let answer = graph.read().query(
        "SELECT (COUNT(*) AS ?n) { ?s <http://e/p> ?o }",
        &Default::default(),
    )?;
    let crate::sparql::QueryResults::Solutions(mut rows) = answer.results else {
        panic!("a SELECT")
    };
    let row = rows.next().expect("one row")?;
    assert_eq!(
        row.get("n").map(ToString::to_string).as_deref(),
        Some("\"31\"^^<http://www.w3.org/2001/XMLSchema#integer>")
    );
    let aside = store_files_set_aside(dir.path())?;
    assert!(aside, "the damaged files are kept aside");
    Ok(())
}

#[test]
fn a_log_with_another_history_than_its_checkpoint_stops_the_open() -> TestResult {
    let (dir, _) = graph_with_31_commits(true);
    // Another log of the same length: same commit numbers, different content.
    let other = tempfile::tempdir()?;
    {
        let engine = Engine::open(other.path(), config())?;
        let graph = engine.graph_or_create("main")?;
        for i in 1..=N_COMMITS {
            graph.update(
                &format!("INSERT DATA {{ <http://e/other{i}> <http://e/p> {i} }}"),
                None,
                &UpdateOptions::default(),
                &CommitRequest::default(),
            )?;
        }
    }
    let bytes = std::fs::read(log_path(other.path()))?;
    std::fs::write(log_path(dir.path()), bytes)?;
    let check = Engine::open(dir.path(), config())?.verify_graph("main")?;
    assert!(matches!(
        check.checkpoint,
        CheckpointCheck::Differs {
            commit_seq: N_COMMITS
        }
    ));
    assert!(matches!(
        open_head(dir.path()),
        Err(EngineError::CheckpointMismatch { .. })
    ));
    Ok(())
}

#[test]
fn repair_keeps_a_copy_of_everything_it_removes() -> TestResult {
    let (dir, records) = graph_with_31_commits(true);
    flip_byte_in_commit(dir.path(), &records, 10);
    let before = std::fs::read(log_path(dir.path()))?;

    let plan = Engine::open(dir.path(), config())?.repair_graph("main", false)?;
    assert_eq!(plan.keep_commits, 9);
    assert!(plan.move_checkpoint && plan.saved_to.is_none());
    assert_eq!(
        std::fs::read(log_path(dir.path()))?,
        before,
        "a plan changes nothing"
    );

    let plan = Engine::open(dir.path(), config())?.repair_graph("main", true)?;
    let saved = plan.saved_to.expect("applied");
    let (cut_at, _) = records[9];
    assert_eq!(
        std::fs::read(saved.join("commits.log.from-commit-10"))?,
        before[cut_at as usize..],
        "the removed bytes are kept"
    );
    assert!(saved.join("store/MANIFEST").exists());
    assert!(std::fs::read_to_string(saved.join("REPAIR.txt"))?.contains("first bad commit: 10"));

    assert_eq!(plan.reserved_through, N_COMMITS);
    // The log keeps commits 1..=9, then placeholders 10..=31: commit 10 to 31 were
    // acknowledged once, and a later commit must never carry one of their numbers.
    assert_eq!(
        std::fs::read(log_path(dir.path()))?[..cut_at as usize],
        before[..cut_at as usize]
    );
    let check = Engine::open(dir.path(), config())?.verify_graph("main")?;
    assert!(
        check.is_healthy() && check.log.n_commits == N_COMMITS,
        "{check:?}"
    );
    assert_eq!(open_head(dir.path())?, N_COMMITS);
    {
        let engine = Engine::open(dir.path(), config())?;
        let graph = engine.graph("main")?;
        let commits = graph.commits_newest_first(0, usize::MAX);
        let placeholder = &commits[0];
        assert_eq!(placeholder.header.commit_seq, N_COMMITS);
        assert_eq!(
            placeholder.header.n_inserted + placeholder.header.n_deleted,
            0
        );
        assert!(
            placeholder
                .header
                .message
                .as_deref()
                .is_some_and(|m| m.starts_with("placeholder: the commit numbered 31 was removed")),
            "{:?}",
            placeholder.header.message
        );
        // Reading at a placeholder sees the last kept commit's graph.
        let count = |seq| -> Result<String, Box<dyn std::error::Error>> {
            let answer = graph.read_at(seq).query(
                "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }",
                &super::ReadOptions::default(),
            )?;
            match answer.results {
                crate::sparql::QueryResults::Solutions(mut rows) => Ok(rows
                    .next()
                    .ok_or("no row")??
                    .get("n")
                    .ok_or("no n")?
                    .to_string()),
                _ => Err("not solutions".into()),
            }
        };
        assert_eq!(count(20)?, count(9)?);
    }
    assert_eq!(next_commit(dir.path())?, Some(N_COMMITS + 1));
    let plan = Engine::open(dir.path(), config())?.repair_graph("main", true)?;
    assert!(plan.is_empty(), "a healthy graph needs no repair");
    Ok(())
}

#[test]
fn idempotent_replays_are_acknowledged_only_once_durable_and_visible() -> TestResult {
    let dir = tempfile::tempdir()?;
    let engine = Engine::open(dir.path(), config())?;
    let graph = engine.graph_or_create("main")?;
    for round in 0..40 {
        let request = CommitRequest {
            idempotency_key: Some(format!("key-{round}")),
            ..CommitRequest::default()
        };
        let update = format!("INSERT DATA {{ <http://e/r{round}> <http://e/p> 1 }}");
        let ask = format!("ASK {{ <http://e/r{round}> <http://e/p> 1 }}");
        std::thread::scope(|scope| {
            for _ in 0..8 {
                scope.spawn(|| {
                    let outcome = graph
                        .update(&update, None, &UpdateOptions::default(), &request)
                        .expect("update");
                    let seq = outcome.commit_seq.expect("a commit");
                    assert!(
                        outcome.head_seq >= seq,
                        "acknowledged commit {seq} with head {} (replay: {})",
                        outcome.head_seq,
                        outcome.idempotent_replay
                    );
                    let answer = graph
                        .read()
                        .query(&ask, &super::ReadOptions::default())
                        .expect("query");
                    assert!(
                        matches!(answer.results, crate::sparql::QueryResults::Boolean(true)),
                        "a read after the acknowledgement missed commit {seq}"
                    );
                });
            }
        });
    }
    assert_eq!(graph.head_seq(), 40);
    Ok(())
}

/// Issue 25: a duplicated last record (an intact record that is not the next commit) is
/// reported with the same count by `verify` and by the open: nothing after it, and it is
/// not cut (it is intact, so not a torn write).
#[test]
fn a_duplicated_last_record_is_the_same_damage_to_verify_and_to_the_open() -> TestResult {
    let (dir, records) = graph_with_31_commits(false);
    let (offset, len) = records[N_COMMITS as usize - 1];
    let mut bytes = std::fs::read(log_path(dir.path()))?;
    let last = bytes[offset as usize..(offset + len) as usize].to_vec();
    bytes.extend_from_slice(&last);
    std::fs::write(log_path(dir.path()), &bytes)?;

    let check = Engine::open(dir.path(), config())?.verify_graph("main")?;
    assert!(!check.is_healthy());
    assert_eq!(check.log.n_commits, N_COMMITS);
    let reason =
        format!("an intact record for commit {N_COMMITS} does not link to commit {N_COMMITS}");
    assert_eq!(check.log.first_bad, Some((N_COMMITS + 1, reason)));
    assert_eq!(check.log.intact_after, 0);
    let Err(error) = open_head(dir.path()) else {
        panic!("the open must refuse");
    };
    let text = error.to_string();
    let EngineError::LogCorrupt {
        commit_seq,
        intact_after,
        ..
    } = error
    else {
        panic!("expected log_corrupt, got {text}");
    };
    assert_eq!((commit_seq, intact_after), (N_COMMITS + 1, 0));
    assert!(
        text.contains(&format!(
            "the commit log is corrupt at commit {}",
            N_COMMITS + 1
        )) && text.contains(&format!(
            "an intact record for commit {N_COMMITS} does not link to commit {N_COMMITS}; \
             0 intact record(s) after it; not a torn tail, so nothing was cut"
        )),
        "{text}"
    );
    assert_eq!(
        std::fs::read(log_path(dir.path()))?,
        bytes,
        "nothing is cut"
    );
    Ok(())
}
