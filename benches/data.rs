//! Shared helpers of the benchmarks: the BSBM data set and queries, RSS and directory
//! sizes, timing and table formatting. Included with `#[path = "data.rs"] mod data;`.
#![allow(dead_code)]

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

use strata::sparql::QueryResults;

/// Where the BSBM files live (relative to the crate root, which is cargo's working
/// directory for benches), overridable with `STRATA_BENCH_DATA`.
pub fn bsbm_dir() -> PathBuf {
    if let Ok(dir) = std::env::var("STRATA_BENCH_DATA") {
        return PathBuf::from(dir);
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/bsbm")
}

/// `375k` (default) or `1m`, from `STRATA_BENCH_SCALE`.
pub fn scale() -> String {
    match std::env::var("STRATA_BENCH_SCALE") {
        Ok(s) if s.eq_ignore_ascii_case("1m") => "1m".into(),
        _ => "375k".into(),
    }
}

/// A directory for data dirs (default: the system temp dir), from `STRATA_BENCH_TMP`.
pub fn temp_dir() -> tempfile::TempDir {
    match std::env::var("STRATA_BENCH_TMP") {
        Ok(base) => tempfile::tempdir_in(base).expect("temp dir"),
        Err(_) => tempfile::tempdir().expect("temp dir"),
    }
}

pub fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

pub fn env_f64(name: &str, default: f64) -> f64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// One instantiated BSBM query.
pub struct BsbmQuery {
    /// e.g. `q05-012`
    pub name: String,
    /// e.g. `q05`
    pub template: String,
    pub text: String,
    /// Rows (or triples) in the expected result, from the manifest.
    pub expected_count: Option<usize>,
}

pub struct BsbmData {
    pub scale: String,
    /// The uncompressed N-Triples document.
    pub ntriples: Vec<u8>,
    pub queries: Vec<BsbmQuery>,
}

/// Loads the data set and queries of the scale, or `None` (with a message) when missing.
pub fn load_bsbm() -> Option<BsbmData> {
    let scale = scale();
    let dir = bsbm_dir();
    let data_path = dir.join(format!("bsbm-{scale}.nt.gz"));
    let query_dir = dir.join(format!("queries-{scale}"));
    if !data_path.exists() || !query_dir.is_dir() {
        println!(
            "BSBM data not found ({} or {}): skipping the benchmark. \
             Set STRATA_BENCH_DATA to the directory holding bsbm-{scale}.nt.gz and queries-{scale}/.",
            data_path.display(),
            query_dir.display()
        );
        return None;
    }
    let file = std::fs::File::open(&data_path).expect("open data");
    let mut ntriples = Vec::new();
    flate2::read::MultiGzDecoder::new(std::io::BufReader::new(file))
        .read_to_end(&mut ntriples)
        .expect("decompress data");

    let mut expected = std::collections::HashMap::new();
    if let Ok(manifest) = std::fs::read_to_string(query_dir.join("manifest.tsv")) {
        let mut lines = manifest.lines();
        let header: Vec<&str> = lines.next().unwrap_or("").split('\t').collect();
        let col = |name: &str| header.iter().position(|h| *h == name);
        if let (Some(q), Some(c)) = (col("query"), col("result_count")) {
            for line in lines {
                let fields: Vec<&str> = line.split('\t').collect();
                if let (Some(name), Some(count)) = (fields.get(q), fields.get(c))
                    && let Ok(count) = count.parse::<usize>()
                {
                    expected.insert(name.trim_end_matches(".rq").to_owned(), count);
                }
            }
        }
    }

    let mut paths: Vec<PathBuf> = std::fs::read_dir(&query_dir)
        .expect("read query dir")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "rq"))
        .collect();
    paths.sort();
    let queries = paths
        .into_iter()
        .map(|path| {
            let name = path.file_stem().unwrap().to_str().unwrap().to_owned();
            let template = name.split('-').next().unwrap().to_owned();
            let text = std::fs::read_to_string(&path).expect("read query");
            let expected_count = expected.get(&name).copied();
            BsbmQuery {
                name,
                template,
                text,
                expected_count,
            }
        })
        .collect();
    Some(BsbmData {
        scale,
        ntriples,
        queries,
    })
}

/// Splits an N-Triples document into `n` chunks of whole lines (about equal sizes).
pub fn split_lines(doc: &[u8], n: usize) -> Vec<&[u8]> {
    let lines: Vec<&[u8]> = doc
        .split_inclusive(|&b| b == b'\n')
        .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
        .collect();
    let per = lines.len().div_ceil(n);
    let mut chunks = Vec::with_capacity(n);
    let mut start = 0usize; // byte offset
    let mut offset = 0usize;
    for (i, line) in lines.iter().enumerate() {
        offset += line.len();
        if (i + 1) % per == 0 || i + 1 == lines.len() {
            chunks.push(&doc[start..offset]);
            start = offset;
        }
    }
    chunks
}

/// Fully consumes query results and returns the number of rows (solutions or triples; 1
/// for a boolean).
pub fn count_results(results: QueryResults<'_>) -> Result<usize, String> {
    match results {
        QueryResults::Solutions(solutions) => {
            let mut n = 0;
            for solution in solutions {
                let solution = solution.map_err(|e| e.to_string())?;
                std::hint::black_box(&solution);
                n += 1;
            }
            Ok(n)
        }
        QueryResults::Graph(triples) => {
            let mut n = 0;
            for triple in triples {
                let triple = triple.map_err(|e| e.to_string())?;
                std::hint::black_box(&triple);
                n += 1;
            }
            Ok(n)
        }
        QueryResults::Boolean(b) => {
            std::hint::black_box(b);
            Ok(1)
        }
    }
}

/// Resident set size of this process, in bytes (Linux; 0 elsewhere).
pub fn rss_bytes() -> u64 {
    proc_status_kb("VmRSS:") * 1024
}

/// Peak resident set size of this process, in bytes (Linux; 0 elsewhere).
pub fn peak_rss_bytes() -> u64 {
    proc_status_kb("VmHWM:") * 1024
}

fn proc_status_kb(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(field))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

/// Total size of the regular files under `path`.
pub fn dir_size(path: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(path) else {
        return std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    };
    entries
        .flatten()
        .map(|e| {
            let p = e.path();
            match e.file_type() {
                Ok(t) if t.is_dir() => dir_size(&p),
                _ => e.metadata().map(|m| m.len()).unwrap_or(0),
            }
        })
        .sum()
}

pub fn file_size(path: &Path) -> u64 {
    std::fs::metadata(path).map(|m| m.len()).unwrap_or(0)
}

pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

pub fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

/// Formats a count with thousands separators.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Prints a markdown table.
pub fn print_table(headers: &[&str], rows: &[Vec<String>]) {
    let widths: Vec<usize> = (0..headers.len())
        .map(|i| {
            rows.iter()
                .map(|r| r.get(i).map_or(0, String::len))
                .chain([headers[i].len()])
                .max()
                .unwrap_or(3)
                .max(3)
        })
        .collect();
    let line = |cells: Vec<String>| {
        let cells: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(i, c)| format!("{c:<w$}", w = widths[i]))
            .collect();
        println!("| {} |", cells.join(" | "));
    };
    line(headers.iter().map(|h| (*h).to_owned()).collect());
    println!(
        "|{}|",
        widths
            .iter()
            .map(|w| "-".repeat(w + 2))
            .collect::<Vec<_>>()
            .join("|")
    );
    for row in rows {
        line(row.clone());
    }
    println!();
}

/// A short description of the machine load, printed with the results.
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

/// The Python of the peers' venv (`target/peers-venv`), made on first use, with these
/// PyPI packages installed when missing.
pub fn peer_python(packages: &[&str]) -> PathBuf {
    use std::process::Command;
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/peers-venv");
    let python = venv.join("bin/python");
    if !python.exists() {
        let made = Command::new("python3")
            .args(["-m", "venv", venv.to_str().unwrap()])
            .status()
            .expect("python3 -m venv");
        assert!(made.success(), "cannot make {}", venv.display());
    }
    for package in packages {
        let has = Command::new(&python)
            .args(["-c", &format!("import {package}")])
            .status()
            .expect("python");
        if !has.success() {
            let installed = Command::new(&python)
                .args(["-m", "pip", "install", "--quiet", package])
                .status()
                .expect("pip");
            assert!(installed.success(), "pip install {package} failed");
        }
    }
    python
}
