//! The corruption matrix of the README's "Durability" table, row by row. Each case
//! damages a graph's files as a crash, a bad disk or a careless operator would, then runs
//! `strata verify`, `strata repair` (the plan, which changes nothing) and an open (a query,
//! then a write), and checks that each prints every phrase its column of the row quotes.
//! So the table, `verify`, `repair` and the open say the same thing, and a change to any of
//! them fails here until the others (and the README) follow. Then `repair --yes` must leave
//! a graph that verifies and opens.
//!
//! In the README's quotes, `…` stands for any text and a lone capital letter (`N`, `K`,
//! `M`, `C`, also `N+1`, `K-1`) for a number.

use std::path::{Path, PathBuf};

use crate::crash::record_offsets;
use crate::util::Strata;

/// Commits in the graph every case starts from.
const COMMITS: u64 = 5;

struct Case {
    /// What this variant does, for failure messages.
    name: &'static str,
    /// The start of the row's first cell in the README's table.
    row: &'static str,
    damage: fn(&Path),
    /// Exit codes of `verify`, `repair` (the plan) and the query.
    exits: [i32; 3],
    /// Whether `repair --yes` leaves a graph that verifies and opens.
    repairable: bool,
}

const INTACT: &str = "intact";
const TORN: &str = "torn tail";
const FLIPPED: &str = "a byte flipped in any record";
const LAST_GARBLED: &str = "the last record garbled";
const DUPLICATED: &str = "the last record duplicated";
const BEHIND: &str = "the log cut at a record boundary";
const BEHIND_INSIDE: &str = "the log cut inside its last record";
const REWRITTEN: &str = "the log replaced by another history";
const DELETED: &str = "the log deleted";
const STORE_UNREADABLE: &str = "a store file torn";
const STORE_BODY: &str = "a byte flipped inside a store file";
const STORE_DELETED: &str = "store files deleted";

fn cases() -> Vec<Case> {
    let case = |name, row, damage: fn(&Path), exits, repairable| Case {
        name,
        row,
        damage,
        exits,
        repairable,
    };
    vec![
        case("intact", INTACT, |_| {}, [0, 0, 0], true),
        case(
            "last record half-written",
            TORN,
            |graph| {
                let log = read(&log_of(graph));
                let last = *record_offsets(&log).last().unwrap();
                write(&log_of(graph), &log[..last + (log.len() - last) / 2]);
                // Store files holding the last commit would prove it acknowledged; a crash
                // in the middle of its append never gets that far.
                remove_store(graph);
            },
            [1, 1, 0],
            true,
        ),
        case(
            "garbage after the last record",
            TORN,
            |graph| {
                let mut log = read(&log_of(graph));
                log.extend_from_slice(b"STRC\xff\xff\xff\xffgarbage that is not a record");
                write(&log_of(graph), &log);
            },
            [1, 1, 0],
            true,
        ),
        case(
            "a byte flipped in commit 3 of 5",
            FLIPPED,
            |graph| flip_in_record(graph, 2),
            [1, 1, 1],
            true,
        ),
        case(
            "a byte flipped in commit 1 of 5",
            FLIPPED,
            |graph| flip_in_record(graph, 0),
            [1, 1, 1],
            true,
        ),
        case(
            "the last record garbled, no store files",
            LAST_GARBLED,
            |graph| {
                flip_in_record(graph, COMMITS as usize - 1);
                remove_store(graph);
            },
            [1, 1, 0],
            true,
        ),
        case(
            "the last record written twice",
            DUPLICATED,
            |graph| {
                let mut log = read(&log_of(graph));
                let last = *record_offsets(&log).last().unwrap();
                let copy = log[last..].to_vec();
                log.extend_from_slice(&copy);
                write(&log_of(graph), &log);
            },
            [1, 1, 1],
            true,
        ),
        case(
            "the log cut at the last record's start",
            BEHIND,
            |graph| {
                let log = read(&log_of(graph));
                let last = *record_offsets(&log).last().unwrap();
                write(&log_of(graph), &log[..last]);
            },
            [1, 1, 1],
            true,
        ),
        case(
            "the log's last 3 bytes cut",
            BEHIND_INSIDE,
            |graph| {
                let log = read(&log_of(graph));
                write(&log_of(graph), &log[..log.len() - 3]);
            },
            [1, 1, 1],
            true,
        ),
        case(
            "the log emptied",
            BEHIND,
            |graph| write(&log_of(graph), b""),
            [1, 1, 1],
            true,
        ),
        case(
            "the last record garbled, the store files hold it",
            BEHIND_INSIDE,
            |graph| flip_in_record(graph, COMMITS as usize - 1),
            [1, 1, 1],
            true,
        ),
        case(
            "another graph's log",
            REWRITTEN,
            |graph| {
                let other = graph.with_file_name("other").join("commits.log");
                std::fs::copy(other, log_of(graph)).unwrap();
            },
            [1, 1, 1],
            true,
        ),
        case(
            "the log deleted",
            DELETED,
            |graph| std::fs::remove_file(log_of(graph)).unwrap(),
            [1, 1, 1],
            false,
        ),
        case(
            "a segment file cut in half",
            STORE_UNREADABLE,
            |graph| {
                let file = largest_store_file(graph);
                let bytes = read(&file);
                write(&file, &bytes[..bytes.len() / 2]);
            },
            [0, 1, 0],
            true,
        ),
        case(
            "a byte flipped in the manifest",
            STORE_UNREADABLE,
            |graph| flip_middle(&graph.join("store/MANIFEST")),
            [0, 1, 0],
            true,
        ),
        case(
            "the store marked damaged by an earlier read",
            STORE_UNREADABLE,
            |graph| write(&graph.join("store/DAMAGED"), b"section 1 checksum mismatch"),
            [0, 1, 0],
            true,
        ),
        case(
            "a byte flipped in a segment file's body",
            STORE_BODY,
            |graph| {
                // Inside the first section (the entries in SPOG order, which the query's
                // scan reads), past the 184-byte header: a section nobody reads would
                // be found only by the background check, after the answer.
                let file = largest_store_file(graph);
                let mut bytes = read(&file);
                bytes[184 + 16] ^= 0x20;
                write(&file, &bytes);
            },
            [1, 1, 1],
            true,
        ),
        case(
            "the store files deleted",
            STORE_DELETED,
            remove_store,
            [0, 0, 0],
            true,
        ),
    ]
}

#[test]
fn verify_repair_and_the_open_say_what_the_durability_table_says() {
    let table = durability_table();
    let template = Strata::new();
    for i in 1..=COMMITS {
        for (graph, subject) in [("main", "s"), ("other", "x")] {
            template
                .run(&[
                    "--graph",
                    graph,
                    "update",
                    &format!("INSERT DATA {{ <http://e/{subject}{i}> <http://e/p> {i} }}"),
                ])
                .ok();
        }
    }
    let mut rows_seen = std::collections::BTreeSet::new();
    for case in cases() {
        let row = table
            .iter()
            .find(|row| row[0].starts_with(case.row))
            .unwrap_or_else(|| panic!("no README row starts with {:?}", case.row));
        rows_seen.insert(case.row);
        let strata = Strata::new();
        copy_dir(&template.data_dir(), &strata.data_dir());
        let graph = strata.data_dir().join("graphs/main");
        (case.damage)(&graph);
        let before = snapshot(&graph);

        let verify = strata.run(&["verify"]);
        let repair = strata.run(&["repair"]);
        assert_eq!(
            snapshot(&graph),
            before,
            "{}: verify and the repair plan change nothing",
            case.name
        );
        // The open, on a copy (it may cut a tail or set files aside).
        let opened = Strata::new();
        copy_dir(&strata.data_dir(), &opened.data_dir());
        let query = opened.run_logged(&["query", "SELECT * WHERE { ?s ?p ?o }"]);
        let write = opened.run_logged(&["update", "INSERT DATA { <http://e/new> <http://e/p> 0 }"]);
        for (what, run, exit, column) in [
            ("verify", &verify, case.exits[0], &row[1]),
            ("repair", &repair, case.exits[1], &row[2]),
            ("the query", &query, case.exits[2], &row[3]),
        ] {
            assert_eq!(
                run.code, exit,
                "{}: {what} exit code\nstdout: {}\nstderr: {}",
                case.name, run.stdout, run.stderr
            );
            let mut printed = format!("{}{}", run.stdout, run.stderr);
            if what == "the query" {
                printed.push_str(&write.stdout);
                printed.push_str(&write.stderr);
            }
            for quote in quotes(column) {
                assert!(
                    matches_somewhere(&quote, &printed),
                    "{}: the README says {what} prints `{quote}`, but it printed:\n{printed}",
                    case.name
                );
            }
        }

        if case.repairable {
            let repaired = strata.run(&["repair", "--yes"]);
            assert_eq!(repaired.code, 0, "{}: {}", case.name, repaired.stdout);
            let verified = strata.run(&["verify"]);
            assert!(
                verified.code == 0 && verified.stdout.starts_with("ok:"),
                "{}: after repair --yes: {}{}",
                case.name,
                verified.stdout,
                verified.stderr
            );
            strata.run(&["query", "ASK { ?s ?p ?o }"]).ok();
            strata
                .run(&["update", "INSERT DATA { <http://e/new> <http://e/p> 0 }"])
                .ok();
        }
    }
    assert_eq!(
        rows_seen.len(),
        table.len(),
        "every row of the README's table has a case here"
    );
}

impl Strata {
    /// Runs with warnings logged, as an operator sees them on the terminal.
    fn run_logged(&self, args: &[&str]) -> crate::util::Run {
        let output = self
            .command()
            .env("STRATA_LOG", "warn")
            .args(args)
            .output()
            .expect("run strata");
        crate::util::Run {
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }
}

/// The rows of the README's table of damaged files, as cells (the header and the rule
/// left out).
fn durability_table() -> Vec<Vec<String>> {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README.md");
    let section = readme
        .split("\n## Durability")
        .nth(1)
        .expect("a Durability section")
        .split("\n## ")
        .next()
        .unwrap_or_default();
    let rows: Vec<Vec<String>> = section
        .lines()
        .filter(|line| line.starts_with('|'))
        .skip(2)
        .map(|line| {
            line.trim_matches('|')
                .split(" | ")
                .map(|cell| cell.trim().to_owned())
                .collect()
        })
        .collect();
    assert!(rows.len() >= 10, "the table of damaged files: {rows:?}");
    for row in &rows {
        assert_eq!(row.len(), 4, "four columns: {row:?}");
    }
    rows
}

/// The backticked quotes of a cell.
fn quotes(cell: &str) -> Vec<String> {
    cell.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

enum Piece {
    Text(String),
    Number,
    Anything,
}

/// `…` is any text; a lone capital letter, or one with `+1`/`-1`, is a number.
fn pieces(quote: &str) -> Vec<Piece> {
    let chars: Vec<char> = quote.chars().collect();
    let mut pieces = Vec::new();
    let mut text = String::new();
    let mut i = 0;
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    while i < chars.len() {
        let c = chars[i];
        let lone_capital = c.is_ascii_uppercase()
            && (i == 0 || !is_word(chars[i - 1]))
            && chars.get(i + 1).is_none_or(|&n| !is_word(n));
        if c == '…' || lone_capital {
            if !text.is_empty() {
                pieces.push(Piece::Text(std::mem::take(&mut text)));
            }
            if c == '…' {
                pieces.push(Piece::Anything);
            } else {
                pieces.push(Piece::Number);
                if matches!(chars.get(i + 1), Some('+' | '-')) && chars.get(i + 2) == Some(&'1') {
                    i += 2;
                }
            }
        } else {
            text.push(c);
        }
        i += 1;
    }
    if !text.is_empty() {
        pieces.push(Piece::Text(text));
    }
    pieces
}

fn matches_somewhere(quote: &str, printed: &str) -> bool {
    let pieces = pieces(quote);
    printed
        .char_indices()
        .any(|(at, _)| matches_at(&pieces, &printed[at..]))
}

fn matches_at(pieces: &[Piece], text: &str) -> bool {
    match pieces.split_first() {
        None => true,
        Some((Piece::Text(expected), rest)) => text
            .strip_prefix(expected.as_str())
            .is_some_and(|after| matches_at(rest, after)),
        Some((Piece::Number, rest)) => {
            let digits = text.len() - text.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            digits > 0 && matches_at(rest, &text[digits..])
        }
        Some((Piece::Anything, rest)) => text
            .char_indices()
            .map(|(at, _)| at)
            .chain([text.len()])
            .any(|at| matches_at(rest, &text[at..])),
    }
}

fn log_of(graph: &Path) -> PathBuf {
    graph.join("commits.log")
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn write(path: &Path, bytes: &[u8]) {
    std::fs::write(path, bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

/// Flips a byte inside the header text of the record at `index`.
fn flip_in_record(graph: &Path, index: usize) {
    let mut log = read(&log_of(graph));
    let offsets = record_offsets(&log);
    assert_eq!(offsets.len(), COMMITS as usize);
    log[offsets[index] + 24 + 32 + 20] ^= 0x20;
    write(&log_of(graph), &log);
}

fn flip_middle(path: &Path) {
    let mut bytes = read(path);
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x20;
    write(path, &bytes);
}

fn remove_store(graph: &Path) {
    std::fs::remove_dir_all(graph.join("store")).unwrap();
}

fn largest_store_file(graph: &Path) -> PathBuf {
    std::fs::read_dir(graph.join("store"))
        .unwrap()
        .flatten()
        .filter(|entry| entry.file_name() != "MANIFEST")
        .max_by_key(|entry| entry.metadata().map(|m| m.len()).unwrap_or(0))
        .map(|entry| entry.path())
        .expect("a store file")
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else if entry.file_name() != "LOCK" {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Every file under `dir` with its bytes.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(next) = stack.pop() {
        for entry in std::fs::read_dir(&next).unwrap().flatten() {
            if entry.file_type().unwrap().is_dir() {
                stack.push(entry.path());
            } else {
                files.push((entry.path(), read(&entry.path())));
            }
        }
    }
    files.sort();
    files
}
