//! Running the real binary in a temporary data directory.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// A fresh data directory and helpers to run `strata` against it.
pub struct Strata {
    pub dir: tempfile::TempDir,
}

/// What one run printed and how it exited.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// Asserts success and returns stdout.
    #[track_caller]
    pub fn ok(&self) -> &str {
        assert_eq!(
            self.code, 0,
            "expected success\nstdout: {}\nstderr: {}",
            self.stdout, self.stderr
        );
        &self.stdout
    }

    /// Asserts the exit code and returns stderr.
    #[track_caller]
    pub fn fails_with(&self, code: i32) -> &str {
        assert_eq!(
            self.code, code,
            "unexpected exit code\nstdout: {}\nstderr: {}",
            self.stdout, self.stderr
        );
        &self.stderr
    }
}

impl Strata {
    pub fn new() -> Self {
        Self {
            dir: tempfile::tempdir().expect("temporary directory"),
        }
    }

    pub fn data_dir(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    pub fn log_path(&self, graph: &str) -> PathBuf {
        self.data_dir()
            .join("graphs")
            .join(graph)
            .join("commits.log")
    }

    /// Writes a file in the temporary directory and returns its path.
    pub fn file(&self, name: &str, content: impl AsRef<[u8]>) -> PathBuf {
        let path = self.dir.path().join(name);
        std::fs::write(&path, content).expect("write test file");
        path
    }

    pub fn command(&self) -> Command {
        let mut command = Command::new(binary());
        command
            .env("STRATA_DATA", self.data_dir())
            .env_remove("STRATA_LOG")
            .current_dir(self.dir.path());
        command
    }

    pub fn run(&self, args: &[&str]) -> Run {
        self.run_with_stdin(args, "")
    }

    pub fn run_with_stdin(&self, args: &[&str], stdin: &str) -> Run {
        use std::io::Write;
        let mut child = self
            .command()
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn strata");
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(stdin.as_bytes())
            .expect("write stdin");
        let output: Output = child.wait_with_output().expect("wait for strata");
        Run {
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }

    /// Runs a SELECT query and returns its TSV rows without the header, sorted.
    pub fn select(&self, query: &str, extra: &[&str]) -> Vec<String> {
        let mut args = vec!["query", query, "--format", "tsv"];
        args.extend_from_slice(extra);
        let run = self.run(&args);
        let mut rows: Vec<String> = run.ok().lines().skip(1).map(str::to_owned).collect();
        rows.sort();
        rows
    }

    /// Number of commits in a graph's log.
    pub fn n_commits(&self, graph: &str) -> usize {
        let run = self.run(&["--graph", graph, "log", "--format", "json"]);
        let commits: serde_json::Value = serde_json::from_str(run.ok()).expect("log json");
        commits.as_array().expect("array").len()
    }
}

pub fn binary() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_strata"))
}

/// The `served at commit N` line of stderr.
pub fn served_at(stderr: &str) -> u64 {
    stderr
        .lines()
        .find_map(|l| l.strip_prefix("served at commit "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no 'served at commit' line in {stderr:?}"))
}
