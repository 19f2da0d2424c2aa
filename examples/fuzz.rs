//! The long-running fuzzer: the generators and checks of `tests/fuzz` for a given time.
//!
//! ```sh
//! cargo run --release --example fuzz -- --minutes 60
//! cargo run --release --example fuzz -- --minutes 5 --kinds sparql_query,http_request --max-depth 2000
//! ```
//!
//! Kinds: sparql_query, sparql_update, turtle_trig, mcp_arguments, cursor, http_request,
//! json_differential
//! (all by default, in turns). The fuzzer runs its cases in a child process, so an abort
//! (a stack overflow on a deep nesting, say) is reported with its input and the run goes
//! on in a fresh child. Every finding is written to `target/fuzz-findings/`; the summary
//! prints cases per kind and per second; the exit status is 1 when anything was found.
//!
//! Options: `--minutes M` (default 10), `--kinds a,b`, `--max-depth N` (deep nestings, 300
//! by default; the bounded test stays at 50), `--seed S`.

#[path = "../tests/fuzz/differential.rs"]
mod differential;
#[path = "../tests/fuzz/generators.rs"]
mod generators;
#[path = "../tests/fuzz/targets.rs"]
mod targets;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, ExitCode, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngSeed, TestRunner};
use targets::{Harness, Input, Kind, strategy};

/// A child that prints nothing for this long is stuck: it is killed and its input kept.
const SILENCE_LIMIT: Duration = Duration::from_secs(180);
/// How long one kind runs before the next kind's turn (fast kinds run more cases).
const TURN: Duration = Duration::from_millis(1500);

struct Options {
    minutes: f64,
    kinds: Vec<Kind>,
    max_depth: usize,
    seed: u64,
    worker_seconds: Option<f64>,
}

fn parse_options() -> Result<Options, String> {
    let mut options = Options {
        minutes: 10.0,
        kinds: Kind::ALL.to_vec(),
        max_depth: 300,
        seed: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(1),
        worker_seconds: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--minutes" => {
                options.minutes = value()?.parse().map_err(|e| format!("--minutes: {e}"))?;
            }
            "--kinds" => {
                options.kinds = value()?
                    .split(',')
                    .map(|k| Kind::from_name(k.trim()).ok_or(format!("unknown kind {k:?}")))
                    .collect::<Result<_, _>>()?;
            }
            "--max-depth" => {
                options.max_depth = value()?.parse().map_err(|e| format!("--max-depth: {e}"))?;
            }
            "--seed" => options.seed = value()?.parse().map_err(|e| format!("--seed: {e}"))?,
            "--worker" => {
                options.worker_seconds =
                    Some(value()?.parse().map_err(|e| format!("--worker: {e}"))?);
            }
            "--help" | "-h" => {
                return Err(
                    "usage: fuzz [--minutes M] [--kinds a,b] [--max-depth N] [--seed S]".into(),
                );
            }
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    if options.kinds.is_empty() {
        return Err("no kinds".into());
    }
    Ok(options)
}

fn findings_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/fuzz-findings")
}

fn main() -> ExitCode {
    let options = match parse_options() {
        Ok(options) => options,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    match options.worker_seconds {
        Some(seconds) => worker(&options, seconds),
        None => supervise(&options),
    }
}

// ---------------------------------------------------------------------------------------
// The child: runs cases, prints progress lines
// ---------------------------------------------------------------------------------------

/// A signature for grouping findings: the problem's first line without numbers.
fn signature(kind: Kind, problem: &str) -> String {
    let first = problem.lines().next().unwrap_or_default();
    let letters: String = first
        .chars()
        .filter(|c| !c.is_ascii_digit())
        .take(120)
        .collect();
    format!("{}: {letters}", kind.name())
}

fn worker(options: &Options, seconds: f64) -> ExitCode {
    // Panics are reported by the harness (the parent sets STRATA_FUZZ_QUIET, so the
    // default hook does not print each one as well).
    let findings = findings_dir();
    let _ = std::fs::create_dir_all(&findings);
    let inflight = findings.join(format!(".inflight-{}", std::process::id()));
    let deadline = Instant::now() + Duration::from_secs_f64(seconds);
    let mut runner = TestRunner::new(Config {
        rng_seed: RngSeed::Fixed(options.seed),
        failure_persistence: None,
        ..Config::default()
    });
    let strategies: Vec<(Kind, _)> = options
        .kinds
        .iter()
        .map(|&k| (k, strategy(k, options.max_depth)))
        .collect();
    let mut harnesses: BTreeMap<Kind, Harness> = BTreeMap::new();
    let mut counts: BTreeMap<Kind, (u64, f64)> = BTreeMap::new();
    let mut seen: BTreeMap<String, u32> = BTreeMap::new();
    let mut last_report = Instant::now();
    let stdout = std::io::stdout();
    'outer: while Instant::now() < deadline {
        for (kind, strategy) in &strategies {
            let turn_ends = Instant::now() + TURN;
            while Instant::now() < turn_ends {
                if Instant::now() >= deadline {
                    break 'outer;
                }
                let harness = match harnesses.entry(*kind) {
                    std::collections::btree_map::Entry::Occupied(e) => e.into_mut(),
                    std::collections::btree_map::Entry::Vacant(e) => {
                        match Harness::new(&format!("fuzz-{}", kind.name())) {
                            Ok(h) => e.insert(h),
                            Err(problem) => {
                                println!("error harness {}: {problem}", kind.name());
                                return ExitCode::from(3);
                            }
                        }
                    }
                };
                let Ok(mut tree) = strategy.new_tree(&mut runner) else {
                    continue;
                };
                let input = tree.current();
                let _ = std::fs::write(&inflight, format!("{}\n{}", kind.name(), input.render()));
                let started = Instant::now();
                let result = harness.check(&input);
                let entry = counts.entry(*kind).or_default();
                entry.0 += 1;
                entry.1 += started.elapsed().as_secs_f64();
                if let Err(problem) = result {
                    let sig = signature(*kind, &problem);
                    let n = seen.entry(sig.clone()).or_default();
                    *n += 1;
                    if *n <= 3 {
                        // Only the first input of a kind of problem is shrunk (it takes time).
                        let (problem, input) = if *n == 1 {
                            shrink(harness, &mut tree, problem, input)
                        } else {
                            (problem, input)
                        };
                        let file = findings.join(format!(
                            "{}-{}-{}.txt",
                            kind.name(),
                            options.seed,
                            entry.0
                        ));
                        let _ = std::fs::write(
                            &file,
                            format!("{problem}\n\n--- input ---\n{}\n", input.render()),
                        );
                        println!("finding {} {}", file.display(), sig.replace('\n', " "));
                    } else {
                        println!("finding-again {}", sig.replace('\n', " "));
                    }
                }
                if last_report.elapsed() > Duration::from_secs(5) {
                    report(&stdout, &counts, "progress");
                    last_report = Instant::now();
                }
            }
        }
    }
    let _ = std::fs::remove_file(&inflight);
    report(&stdout, &counts, "done");
    ExitCode::SUCCESS
}

/// Proptest's shrinking, by hand: simpler inputs that still fail, within a budget.
fn shrink(
    harness: &mut Harness,
    tree: &mut impl ValueTree<Value = Input>,
    mut problem: String,
    mut input: Input,
) -> (String, Input) {
    let started = Instant::now();
    for _ in 0..150 {
        if started.elapsed() > Duration::from_secs(60) || !tree.simplify() {
            break;
        }
        let candidate = tree.current();
        match harness.check(&candidate) {
            Err(p) => {
                problem = p;
                input = candidate;
            }
            Ok(()) => {
                if !tree.complicate() {
                    break;
                }
            }
        }
    }
    (problem, input)
}

fn report(stdout: &std::io::Stdout, counts: &BTreeMap<Kind, (u64, f64)>, what: &str) {
    let parts: Vec<String> = counts
        .iter()
        .map(|(k, (n, s))| format!("{}={n}:{s:.3}", k.name()))
        .collect();
    let mut out = stdout.lock();
    let _ = writeln!(out, "{what} {}", parts.join(" "));
    let _ = out.flush();
}

// ---------------------------------------------------------------------------------------
// The parent: restarts children, keeps the inputs of those that die
// ---------------------------------------------------------------------------------------

fn parse_counts(line: &str) -> BTreeMap<String, (u64, f64)> {
    line.split_whitespace()
        .skip(1)
        .filter_map(|part| {
            let (name, rest) = part.split_once('=')?;
            let (n, s) = rest.split_once(':')?;
            Some((name.to_owned(), (n.parse().ok()?, s.parse().ok()?)))
        })
        .collect()
}

/// How deep an input nests: brackets, or a long chain of one operator (`1 + 1 + …`,
/// `{…} UNION {…} UNION …`), which parsers also turn into deep trees.
fn nesting(text: &str) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    for c in text.chars() {
        match c {
            '(' | '{' | '[' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            ')' | '}' | ']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    let chains = [" + ", " UNION ", " && ", " || ", " / "]
        .iter()
        .map(|op| text.matches(op).count())
        .max()
        .unwrap_or(0);
    deepest.max(chains)
}

fn supervise(options: &Options) -> ExitCode {
    let started = Instant::now();
    let total = Duration::from_secs_f64(options.minutes * 60.0);
    let findings = findings_dir();
    let _ = std::fs::create_dir_all(&findings);
    let exe = std::env::current_exe().expect("own path");
    let kinds: Vec<&str> = options.kinds.iter().map(|k| k.name()).collect();
    let mut totals: BTreeMap<String, (u64, f64)> = BTreeMap::new();
    let mut found: Vec<String> = Vec::new();
    let mut repeats: BTreeMap<String, u64> = BTreeMap::new();
    let mut crashes: BTreeMap<String, u64> = BTreeMap::new();
    let mut child_number = 0u64;
    println!(
        "fuzzing {} for {:.1} min, max depth {}, seed {}; findings go to {}",
        kinds.join(","),
        options.minutes,
        options.max_depth,
        options.seed,
        findings.display()
    );
    while started.elapsed() + Duration::from_secs(2) < total {
        let remaining = (total - started.elapsed()).as_secs_f64();
        let seed = options
            .seed
            .wrapping_add(child_number.wrapping_mul(0x9e37_79b9));
        child_number += 1;
        let mut child = match Command::new(&exe)
            .args(["--worker", &format!("{remaining:.1}")])
            .args(["--kinds", &kinds.join(",")])
            .args(["--max-depth", &options.max_depth.to_string()])
            .args(["--seed", &seed.to_string()])
            .env("STRATA_FUZZ_QUIET", "1")
            .env("STRATA_LOG", "off")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
        {
            Ok(child) => child,
            Err(e) => {
                eprintln!("cannot start a worker: {e}");
                return ExitCode::from(2);
            }
        };
        let pid = child.id();
        let stdout = child.stdout.take().expect("piped stdout");
        let (sender, receiver) = mpsc::channel::<String>();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        let mut last_counts: BTreeMap<String, (u64, f64)> = BTreeMap::new();
        let mut hung = false;
        loop {
            match receiver.recv_timeout(SILENCE_LIMIT) {
                Ok(line) => {
                    if line.starts_with("progress ") || line.starts_with("done ") {
                        last_counts = parse_counts(&line);
                    } else if let Some(rest) = line.strip_prefix("finding ") {
                        println!("FINDING {rest}");
                        found.push(rest.to_owned());
                    } else if let Some(rest) = line.strip_prefix("finding-again ") {
                        *repeats.entry(rest.to_owned()).or_default() += 1;
                    } else {
                        println!("worker: {line}");
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    hung = true;
                    let _ = child.kill();
                    break;
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
        }
        let status = child.wait().expect("wait for the worker");
        for (name, (n, s)) in last_counts {
            let entry = totals.entry(name).or_default();
            entry.0 += n;
            entry.1 += s;
        }
        let inflight = findings.join(format!(".inflight-{pid}"));
        if hung || !status.success() {
            let what = if hung {
                format!("no progress for {SILENCE_LIMIT:?} (killed)")
            } else {
                use std::os::unix::process::ExitStatusExt;
                match status.signal() {
                    Some(6) => "the process aborted (SIGABRT: a stack overflow prints \"has overflowed its stack\")".to_owned(),
                    Some(11) => "the process crashed (SIGSEGV)".to_owned(),
                    Some(n) => format!("the process died of signal {n}"),
                    None => format!("the process exited with {status}"),
                }
            };
            let input = std::fs::read_to_string(&inflight).unwrap_or_default();
            let kind = input.lines().next().unwrap_or("?").to_owned();
            let depth = nesting(&input);
            let deep = depth >= 16;
            let sig = format!(
                "{kind}: {what}{}",
                if deep {
                    " [deep nesting: known, until the nesting limit lands]"
                } else {
                    ""
                }
            );
            let what = format!("{what}; the input nests {depth} levels deep");
            let n = crashes.entry(sig.clone()).or_default();
            *n += 1;
            if *n <= 3 {
                let file = findings.join(format!("crash-{kind}-{seed}.txt"));
                let _ = std::fs::write(&file, format!("{what}\n\n--- input ---\n{input}\n"));
                println!("FINDING {} {sig}", file.display());
                found.push(format!("{} {sig}", file.display()));
            }
        }
        let _ = std::fs::remove_file(&inflight);
    }
    let elapsed = started.elapsed().as_secs_f64();
    println!(
        "\nfuzz summary after {:.1} min ({child_number} worker processes):",
        elapsed / 60.0
    );
    println!(
        "{:<16} {:>10} {:>14} {:>16} {:>10}",
        "kind", "cases", "cases/s (run)", "cases/s (own)", "ms/case"
    );
    for (name, (n, s)) in &totals {
        println!(
            "{name:<16} {n:>10} {:>14.1} {:>16.1} {:>10.2}",
            *n as f64 / elapsed,
            if *s > 0.0 { *n as f64 / s } else { 0.0 },
            if *n > 0 { s * 1000.0 / *n as f64 } else { 0.0 }
        );
    }
    let all: u64 = totals.values().map(|(n, _)| n).sum();
    println!("{:<16} {all:>10} {:>14.1}", "all", all as f64 / elapsed);
    println!(
        "(run: over the whole run, the kinds taking turns; own: over the time spent on that kind)"
    );
    if found.is_empty() {
        println!("no findings");
        ExitCode::SUCCESS
    } else {
        println!(
            "{} findings (first inputs of each kind of problem):",
            found.len()
        );
        for f in &found {
            println!("  {f}");
        }
        for (sig, n) in &repeats {
            println!("  seen {n} more times: {sig}");
        }
        for (sig, n) in &crashes {
            println!("  process deaths {n}×: {sig}");
        }
        ExitCode::FAILURE
    }
}
