//! What the user typed, as clap types. Validation into engine types happens in the
//! subcommand functions, once; commit numbers, moments and durations are parsed here, so
//! a malformed one is a usage error (exit 2) like any other.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// Strata: a SPARQL-first temporal knowledge graph with commit history.
#[derive(Parser, Debug)]
#[command(name = "strata", version, about, long_about = None)]
pub struct Cli {
    /// Data directory (created on the first write; default ./strata-data). Also accepted
    /// after the subcommand (`strata import --data DIR …`), except for `validate`, whose
    /// `--data` names data files (use `--data-dir` there).
    #[arg(long, env = "STRATA_DATA", value_name = "DIR")]
    pub data: Option<PathBuf>,
    /// Graph to work on: [a-z0-9][a-z0-9_-]{0,62}.
    #[arg(long, global = true, default_value = "main")]
    pub graph: String,
    /// Query time limit in seconds.
    #[arg(long = "timeout", global = true, value_name = "SECONDS", value_parser = seconds)]
    pub timeout_secs: Option<f64>,
    /// Memory one query may hold, in MiB (0: no limit; default 1024).
    #[arg(
        long = "query-memory-mb",
        global = true,
        env = "STRATA_QUERY_MEMORY_MB",
        value_name = "MIB"
    )]
    pub query_memory_mb: Option<u64>,
    /// Queries running longer than this (milliseconds) are heavy (default 200).
    #[arg(
        long = "heavy-after-ms",
        global = true,
        env = "STRATA_HEAVY_AFTER_MS",
        value_name = "MS"
    )]
    pub heavy_after_ms: Option<u64>,
    /// Heavy queries that may run at once; others wait (default: cores - 1, at least 1).
    #[arg(
        long = "heavy-queries",
        global = true,
        env = "STRATA_HEAVY_QUERIES",
        value_name = "N"
    )]
    pub heavy_queries: Option<usize>,
    /// Threads one query's large scans, joins and aggregates may use (default: every
    /// core; 1 keeps each query on one thread).
    #[arg(
        long = "query-threads",
        global = true,
        env = "STRATA_QUERY_THREADS",
        value_name = "N",
        value_parser = clap::value_parser!(u64).range(1..=1024)
    )]
    pub query_threads: Option<u64>,
    /// Write recent commits to store files once this many quads changed (default 50000;
    /// lower keeps less in memory, higher writes fewer, larger files).
    #[arg(
        long = "flush-every-quads",
        global = true,
        env = "STRATA_FLUSH_EVERY_QUADS",
        value_name = "N",
        value_parser = clap::value_parser!(u64).range(1..)
    )]
    pub flush_every_quads: Option<u64>,
    /// Imports past this many quads keep them in sorted runs on disk and commit them as a
    /// store file of their own, so memory stays bounded at any size (default 8388608;
    /// memory holds one run, 16 bytes a quad).
    #[arg(
        long = "import-run-quads",
        global = true,
        env = "STRATA_IMPORT_RUN_QUADS",
        value_name = "N",
        value_parser = clap::value_parser!(u64).range(1..=(1 << 30))
    )]
    pub import_run_quads: Option<u64>,
    /// Threads each search index may use to insert vectors (default: every core).
    #[arg(
        long = "index-threads",
        global = true,
        env = "STRATA_INDEX_THREADS",
        value_name = "N",
        value_parser = clap::value_parser!(u64).range(1..=1024)
    )]
    pub index_threads: Option<u64>,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Import RDF files (Turtle, TriG, N-Triples, N-Quads, RDF/XML; .gz accepted) as one commit.
    Import(ImportArgs),
    /// Run a SPARQL query at the head or at an earlier commit.
    Query(QueryArgs),
    /// Run a SPARQL update; each update is one commit.
    Update(UpdateArgs),
    /// Write records against the ontology from a JSON file: the arguments of the MCP
    /// `commit` tool (and of `POST /graphs/{g}/records`). One commit; prints the answer.
    Commit(JsonFileArgs),
    /// Define or evolve the ontology from a JSON file: the arguments of the MCP
    /// `configure` tool (and of `POST /graphs/{g}/ontology`).
    Configure(JsonFileArgs),
    /// Find records near some words in a searchable class (meaning, keywords or both).
    Search(SearchArgs),
    /// List commits, newest first.
    Log(LogArgs),
    /// Show quads added and removed between two commits.
    Diff(DiffArgs),
    /// Re-hash the whole commit chain, check the store files' checksums and the commit they
    /// hold against it.
    Verify(DirArgs),
    /// Repair a graph whose log is damaged: show what would be removed, and with --yes cut
    /// the log after its last verified commit (a copy of everything removed is kept).
    Repair(RepairArgs),
    /// Copy the graph at a commit into another data directory while a server may run
    /// (`strata serve --data DIR` then serves the copy).
    Backup(BackupArgs),
    /// Write the graph's quads at a commit.
    Export(ExportArgs),
    /// List the graphs of the data directory.
    Graphs(DirArgs),
    /// Validate data files or a graph against SHACL shapes (for CI). Exit 0 when the data
    /// conforms or in warn mode, 1 on violations in reject mode, 2 on unusable input.
    Validate(ValidateArgs),
    /// Start the HTTP server (SPARQL Protocol, Graph Store Protocol, the log). An empty
    /// data directory gets the demo graph.
    Serve(ServeArgs),
    /// Print the SHA-256 of an API key for the server configuration (a new random key
    /// when none is given).
    HashKey(HashKeyArgs),
    /// Test support: commit forever, printing `ack <i> <commit_seq>` after each durable
    /// commit (used by the crash tests, which kill this process at random moments).
    #[command(name = "__commit-loop", hide = true)]
    CommitLoop(CommitLoopArgs),
}

/// The data directory, given after the subcommand.
#[derive(Args, Debug, Clone, Default)]
pub struct DataDir {
    /// Data directory (overrides the one given before the subcommand).
    #[arg(long = "data", value_name = "DIR")]
    pub data: Option<PathBuf>,
}

/// A subcommand with no options but the data directory.
#[derive(Args, Debug)]
pub struct DirArgs {
    #[command(flatten)]
    pub dir: DataDir,
}

impl Cli {
    /// The data directory: after the subcommand, else before it (or `$STRATA_DATA`), else
    /// `./strata-data`.
    pub fn data_dir(&self) -> PathBuf {
        let after = match &self.command {
            Command::Import(a) => a.dir.data.clone(),
            Command::Query(a) => a.dir.data.clone(),
            Command::Update(a) => a.dir.data.clone(),
            Command::Commit(a) | Command::Configure(a) => a.dir.data.clone(),
            Command::Search(a) => a.dir.data.clone(),
            Command::Log(a) => a.dir.data.clone(),
            Command::Backup(a) => a.dir.data.clone(),
            Command::Diff(a) => a.dir.data.clone(),
            Command::Verify(a) | Command::Graphs(a) => a.dir.data.clone(),
            Command::Repair(a) => a.dir.data.clone(),
            Command::Export(a) => a.dir.data.clone(),
            Command::Serve(a) => a.dir.data.clone(),
            Command::CommitLoop(a) => a.dir.data.clone(),
            Command::Validate(a) => a.data_dir.clone(),
            Command::HashKey(_) => None,
        };
        after
            .or_else(|| self.data.clone())
            .unwrap_or_else(|| PathBuf::from("./strata-data"))
    }
}

#[derive(Args, Debug)]
pub struct RepairArgs {
    #[command(flatten)]
    pub dir: DataDir,
    /// Carry out the repair (without it, only show what it would remove).
    #[arg(long)]
    pub yes: bool,
}

#[derive(Args, Debug)]
pub struct BackupArgs {
    #[command(flatten)]
    pub dir: DataDir,
    /// The data directory to copy into (the graph must not exist there yet).
    #[arg(long = "to", value_name = "DIR")]
    pub to: PathBuf,
    /// The commit to copy (default: the newest).
    #[arg(long = "as-of", value_name = "COMMIT", value_parser = clap::value_parser!(u64).range(1..))]
    pub as_of: Option<u64>,
}

#[derive(Args, Debug)]
pub struct CommitLoopArgs {
    #[command(flatten)]
    pub dir: DataDir,
    /// First batch number.
    #[arg(long, default_value_t = 0)]
    pub start: u64,
    /// Triples per commit.
    #[arg(long, default_value_t = 20)]
    pub batch: u64,
    /// Concurrent writer threads.
    #[arg(long, default_value_t = 1)]
    pub writers: u64,
}

#[derive(Args, Debug)]
pub struct CommitArgs {
    /// Commit author.
    #[arg(long)]
    pub author: Option<String>,
    /// Commit message.
    #[arg(long)]
    pub message: Option<String>,
    /// When the facts were observed (RFC 3339).
    #[arg(long, value_name = "T", value_parser = moment)]
    pub observed_at: Option<time::OffsetDateTime>,
    /// Retrying with the same key and content returns the first commit.
    #[arg(long)]
    pub idempotency_key: Option<String>,
}

#[derive(Args, Debug)]
pub struct ImportArgs {
    #[command(flatten)]
    pub dir: DataDir,
    /// Files to import ("-" reads standard input; then --format is required).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Format, when the extension does not say: turtle, trig, ntriples, nquads, rdfxml.
    #[arg(long)]
    pub format: Option<String>,
    /// Base IRI for relative IRIs.
    #[arg(long)]
    pub base: Option<String>,
    /// Put triples into this named graph instead of the default graph.
    #[arg(long, value_name = "IRI")]
    pub into: Option<String>,
    /// One commit per file instead of one for all files.
    #[arg(long)]
    pub commit_per_file: bool,
    #[command(flatten)]
    pub commit: CommitArgs,
}

#[derive(Args, Debug)]
pub struct ReadArgs {
    /// Read at this commit instead of the head.
    #[arg(long, value_name = "N", conflicts_with = "as_of_time", value_parser = commit_number)]
    pub as_of: Option<u64>,
    /// Read at the latest commit at or before this moment (RFC 3339).
    #[arg(long, value_name = "T", value_parser = moment)]
    pub as_of_time: Option<time::OffsetDateTime>,
}

#[derive(Args, Debug)]
pub struct QueryArgs {
    #[command(flatten)]
    pub dir: DataDir,
    /// The SPARQL query.
    #[arg(
        required_unless_present_any = ["file", "structured", "traverse", "json"],
        conflicts_with_all = ["file", "structured", "traverse", "json"]
    )]
    pub query: Option<String>,
    /// Read the query from a file.
    #[arg(long, short, conflicts_with_all = ["structured", "traverse", "json"])]
    pub file: Option<PathBuf>,
    /// A structured JSON query from a file (`{"patterns": …}`, as the MCP `query` tool's
    /// `structured`); prints the answer as JSON.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["traverse", "json"])]
    pub structured: Option<PathBuf>,
    /// A traversal from a file (`{"steps": …, "fields": …}`, as the `query` tool's
    /// `traverse`); prints the answer as JSON.
    #[arg(long, value_name = "FILE", conflicts_with = "json")]
    pub traverse: Option<PathBuf>,
    /// The whole arguments of the MCP `query` tool from a file (any mode, with `cursor`
    /// for the next page); prints the answer as JSON.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    #[command(flatten)]
    pub read: ReadArgs,
    /// Output: table, json, xml, csv, tsv (solutions); turtle, ntriples, rdfxml, jsonld (graphs).
    #[arg(long)]
    pub format: Option<String>,
    /// Base IRI for relative IRIs in the query.
    #[arg(long)]
    pub base: Option<String>,
}

/// A subcommand whose input is one JSON file of tool arguments.
#[derive(Args, Debug)]
pub struct JsonFileArgs {
    #[command(flatten)]
    pub dir: DataDir,
    /// The JSON file ("-" reads standard input).
    pub file: PathBuf,
    /// Commit author.
    #[arg(long)]
    pub author: Option<String>,
}

#[derive(Args, Debug)]
pub struct SearchArgs {
    #[command(flatten)]
    pub dir: DataDir,
    /// The words to search for.
    pub text: String,
    /// Only hits of this searchable class (name or IRI).
    #[arg(long)]
    pub class: Option<String>,
    /// dense (meaning), sparse (BM25 keywords) or hybrid (default).
    #[arg(long)]
    pub lane: Option<String>,
    /// How many hits (default 10, at most 200).
    #[arg(long)]
    pub top_k: Option<usize>,
    /// Filters as JSON: `[{"field": "severity", "op": "ge", "value": 2}, {"via": …}]`.
    #[arg(long, value_name = "JSON")]
    pub filters: Option<String>,
    /// Wait until the index reflects the commit read.
    #[arg(long)]
    pub strong: bool,
    /// Show the plan without running the search.
    #[arg(long)]
    pub explain: bool,
    #[command(flatten)]
    pub read: ReadArgs,
}

#[derive(Args, Debug)]
pub struct UpdateArgs {
    #[command(flatten)]
    pub dir: DataDir,
    /// The SPARQL update.
    #[arg(required_unless_present = "file", conflicts_with = "file")]
    pub update: Option<String>,
    /// Read the update from a file.
    #[arg(long, short)]
    pub file: Option<PathBuf>,
    /// Base IRI for relative IRIs in the update.
    #[arg(long)]
    pub base: Option<String>,
    #[command(flatten)]
    pub commit: CommitArgs,
}

#[derive(Args, Debug)]
pub struct LogArgs {
    #[command(flatten)]
    pub dir: DataDir,
    /// text or json.
    #[arg(long, default_value = "text")]
    pub format: String,
    /// At most this many commits.
    #[arg(long)]
    pub limit: Option<usize>,
}

#[derive(Args, Debug)]
pub struct DiffArgs {
    #[command(flatten)]
    pub dir: DataDir,
    /// From this commit (0 is the empty graph).
    #[arg(value_parser = commit_number)]
    pub from: u64,
    /// To this commit.
    #[arg(value_parser = commit_number)]
    pub to: u64,
    /// text, ntriples (N-Quads lines prefixed by + or -), or json.
    #[arg(long, default_value = "text")]
    pub format: String,
}

#[derive(Args, Debug)]
pub struct ExportArgs {
    #[command(flatten)]
    pub dir: DataDir,
    #[command(flatten)]
    pub read: ReadArgs,
    /// nquads, trig, ntriples or turtle (the last two export the default graph only).
    #[arg(long, default_value = "nquads")]
    pub format: String,
    /// Write to this file instead of standard output.
    #[arg(long, short)]
    pub output: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct ValidateArgs {
    /// SHACL shapes files (Turtle, N-Triples, N-Quads, TriG; .gz accepted). Without it, a
    /// graph is validated against its published shapes.
    #[arg(long, num_args = 1.., value_name = "FILE")]
    pub shapes: Vec<PathBuf>,
    /// Data files to validate (merged into one data graph). Without it, the graph named
    /// by --graph is validated (at --as-of, default the head).
    #[arg(long, num_args = 1.., value_name = "FILE")]
    pub data: Vec<PathBuf>,
    /// Read the graph at this commit (graph mode only).
    #[arg(long, value_name = "N", conflicts_with = "data", value_parser = commit_number)]
    pub as_of: Option<u64>,
    /// reject: exit 1 when a sh:Violation is found; warn: report and exit 0.
    #[arg(long, default_value = "reject", value_parser = ["warn", "reject"])]
    pub mode: String,
    /// text (compiler-style lines), json (one object) or junit (XML for CI systems).
    #[arg(long, default_value = "text", value_parser = ["text", "json", "junit"])]
    pub format: String,
    /// Write the report to this file instead of standard output.
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// Data directory holding the graph (graph mode).
    #[arg(long, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct ServeArgs {
    #[command(flatten)]
    pub dir: DataDir,
    /// Address to listen on. Anything but loopback requires sign-in (API keys or OAuth)
    /// and TLS (or `"tls_terminated_by_proxy": true` in the configuration).
    #[arg(long, default_value = "127.0.0.1:7878")]
    pub http: String,
    /// Serve HTTPS with this certificate chain (PEM); read again when the file changes
    /// or on SIGHUP.
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// The private key of `--tls-cert` (PEM: PKCS#8, PKCS#1 or SEC1).
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// Server configuration (JSON: api_keys, allowed_hosts, limits; see the README).
    #[arg(long, env = "STRATA_CONFIG")]
    pub config: Option<PathBuf>,
    /// Do not load the demo graph into an empty data directory.
    #[arg(long)]
    pub no_demo: bool,
    /// Speak MCP over standard input and output instead of serving HTTP (for MCP clients
    /// that start Strata themselves; logs go to standard error).
    #[arg(long)]
    pub stdio: bool,
    /// Run as a node of a cluster: every graph's commits are agreed through NATS
    /// JetStream at these servers (`nats://host:4222[,nats://…]`); the data directory
    /// holds this node's copy. Without it the local log file is the log.
    #[arg(long, value_name = "nats://HOST:PORT[,…]", env = "STRATA_NATS")]
    pub log: Option<String>,
    /// Replicas of each graph's JetStream stream (new graphs; at most the cluster's size).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=5))]
    pub replicas: u8,
}

#[derive(Args, Debug)]
pub struct HashKeyArgs {
    /// The key to hash; omit to generate a new one.
    pub key: Option<String>,
}

/// A commit number (0 is the empty graph before commit 1).
fn commit_number(text: &str) -> Result<u64, String> {
    crate::model::parse_commit_seq(text)
        .ok_or_else(|| "expected a commit number (1, 2, 3…)".to_owned())
}

/// An RFC 3339 moment.
fn moment(text: &str) -> Result<time::OffsetDateTime, String> {
    crate::model::parse_moment(text)
        .ok_or_else(|| "expected an RFC 3339 moment such as 2026-01-31T12:00:00Z".to_owned())
}

/// A positive number of seconds.
fn seconds(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(secs) if secs > 0.0 && secs.is_finite() && secs < 1e9 => Ok(secs),
        _ => Err("expected a positive number of seconds".to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::Cli;

    #[test]
    fn malformed_commits_moments_and_durations_are_usage_errors() {
        for args in [
            &["strata", "query", "ASK {}", "--as-of", "abc"][..],
            &["strata", "query", "ASK {}", "--as-of-time", "yesterday"],
            &["strata", "export", "--as-of", "-1"],
            &["strata", "diff", "1", "two"],
            &[
                "strata",
                "update",
                "INSERT DATA {}",
                "--observed-at",
                "noon",
            ],
            &["strata", "validate", "--as-of", "x"],
            &["strata", "--timeout", "0", "query", "ASK {}"],
        ] {
            let error = Cli::try_parse_from(args).expect_err(&args.join(" "));
            assert_eq!(error.exit_code(), 2, "{}", args.join(" "));
        }
        let ok = Cli::try_parse_from(["strata", "query", "ASK {}", "--as-of", " 3 "]).unwrap();
        assert!(matches!(ok.command, super::Command::Query(q) if q.read.as_of == Some(3)));
    }
}
