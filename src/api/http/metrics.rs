//! Prometheus metrics, kept by hand: request counts and latencies per route and status,
//! commits, query timeouts, heavy queries and memory stops, and each open graph's head.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use parking_lot::Mutex;

use crate::engine::{Engine, LeaderStatus, PipelineStatus};
use crate::log::LeaseHolder;

/// Upper bounds (seconds) of the latency histogram buckets.
const BUCKETS: [f64; 10] = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1.0, 5.0, 30.0, 120.0];

/// Bucket counts, sum of seconds, count.
type Histogram = ([u64; BUCKETS.len()], f64, u64);

#[derive(Default)]
pub struct Metrics {
    /// (method, route, status) → count.
    requests: Mutex<BTreeMap<(String, String, u16), u64>>,
    /// route → latency histogram.
    latencies: Mutex<BTreeMap<String, Histogram>>,
    pub commits: AtomicU64,
    pub query_timeouts: AtomicU64,
    /// Quads parsed by Graph Store writes, counted as they are parsed.
    pub import_quads: AtomicU64,
}

impl Metrics {
    pub fn record_request(&self, method: &str, route: &str, status: u16, elapsed: Duration) {
        *self
            .requests
            .lock()
            .entry((method.to_owned(), route.to_owned(), status))
            .or_default() += 1;
        let seconds = elapsed.as_secs_f64();
        let mut latencies = self.latencies.lock();
        let entry = latencies.entry(route.to_owned()).or_default();
        for (bucket, bound) in entry.0.iter_mut().zip(BUCKETS) {
            if seconds <= bound {
                *bucket += 1;
            }
        }
        entry.1 += seconds;
        entry.2 += 1;
    }

    /// The Prometheus text exposition; per-graph series only for the graphs `sees` lets
    /// through (a graph-limited key never learns the others' names).
    pub fn render(&self, engine: &Engine, sees: impl Fn(&str) -> bool) -> String {
        let mut out = String::new();
        out.push_str(
            "# HELP strata_http_requests_total HTTP requests by method, route and status.\n",
        );
        out.push_str("# TYPE strata_http_requests_total counter\n");
        for ((method, route, status), count) in self.requests.lock().iter() {
            let _ = writeln!(
                out,
                "strata_http_requests_total{{method=\"{method}\",route=\"{}\",status=\"{status}\"}} {count}",
                escape(route)
            );
        }
        out.push_str(
            "# HELP strata_http_request_duration_seconds Time to produce a response head.\n",
        );
        out.push_str("# TYPE strata_http_request_duration_seconds histogram\n");
        for (route, (buckets, sum, count)) in self.latencies.lock().iter() {
            let route = escape(route);
            for (bucket, bound) in buckets.iter().zip(BUCKETS) {
                let _ = writeln!(
                    out,
                    "strata_http_request_duration_seconds_bucket{{route=\"{route}\",le=\"{bound}\"}} {bucket}"
                );
            }
            let _ = writeln!(
                out,
                "strata_http_request_duration_seconds_bucket{{route=\"{route}\",le=\"+Inf\"}} {count}"
            );
            let _ = writeln!(
                out,
                "strata_http_request_duration_seconds_sum{{route=\"{route}\"}} {sum}"
            );
            let _ = writeln!(
                out,
                "strata_http_request_duration_seconds_count{{route=\"{route}\"}} {count}"
            );
        }
        out.push_str("# HELP strata_commits_total Commits made through the HTTP API.\n");
        out.push_str("# TYPE strata_commits_total counter\n");
        let _ = writeln!(
            out,
            "strata_commits_total {}",
            self.commits.load(Ordering::Relaxed)
        );
        out.push_str(
            "# HELP strata_import_quads_parsed_total Quads parsed by Graph Store writes, \
             counted every 10,000 as they are parsed (its rate is an import's speed).\n",
        );
        out.push_str("# TYPE strata_import_quads_parsed_total counter\n");
        let _ = writeln!(
            out,
            "strata_import_quads_parsed_total {}",
            self.import_quads.load(Ordering::Relaxed)
        );
        out.push_str("# HELP strata_query_timeouts_total Queries cancelled at their time limit.\n");
        out.push_str("# TYPE strata_query_timeouts_total counter\n");
        let _ = writeln!(
            out,
            "strata_query_timeouts_total {}",
            self.query_timeouts.load(Ordering::Relaxed)
        );
        let governor = engine.governor().stats();
        for (name, kind, help, value) in [
            (
                "strata_heavy_queries_running",
                "gauge",
                "Heavy queries (running past heavy_query_after_ms) holding a slot.",
                governor.heavy_running as u64,
            ),
            (
                "strata_heavy_queries_waiting",
                "gauge",
                "Heavy queries waiting for a slot.",
                governor.heavy_waiting as u64,
            ),
            (
                "strata_heavy_queries_total",
                "counter",
                "Queries that became heavy.",
                governor.heavy_total,
            ),
            (
                "strata_query_memory_stops_total",
                "counter",
                "Queries stopped at their memory limit.",
                governor.memory_stops,
            ),
        ] {
            let _ = writeln!(
                out,
                "# HELP {name} {help}\n# TYPE {name} {kind}\n{name} {value}"
            );
        }
        let graphs: Vec<_> = engine
            .open_graphs()
            .into_iter()
            .filter(|g| sees(g.name().as_str()))
            .collect();
        for (name, help, value) in [
            (
                "strata_head_seq",
                "The newest commit of each open graph.",
                (|g: &crate::engine::Graph| g.head_seq() as usize) as fn(&_) -> usize,
            ),
            (
                "strata_store_files_seq",
                "The commit the graph's store files hold (commits after it are replayed at open).",
                |g| g.store_layout().0 as usize,
            ),
            (
                "strata_store_segment_files",
                "Segment files the graph's store reads.",
                |g| g.store_layout().1,
            ),
            (
                "strata_store_memory_versions",
                "Quad versions held in memory until the next flush.",
                |g| g.store_layout().2,
            ),
        ] {
            let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} gauge");
            for graph in &graphs {
                let _ = writeln!(out, "{name}{{graph=\"{}\"}} {}", graph.name(), value(graph));
            }
        }
        if let Some(cluster) = engine.cluster() {
            let _ = writeln!(
                out,
                "# HELP strata_shared_log_reachable Whether each open graph's shared log answered this node's last request.\n# TYPE strata_shared_log_reachable gauge"
            );
            for graph in &graphs {
                if let Some(reachable) = graph.cluster_reachable() {
                    let _ = writeln!(
                        out,
                        "strata_shared_log_reachable{{graph=\"{}\"}} {}",
                        graph.name(),
                        u8::from(reachable)
                    );
                }
            }
            let _ = writeln!(
                out,
                "# HELP strata_cluster_connected Whether this node reaches the cluster's shared log (JetStream).\n# TYPE strata_cluster_connected gauge\nstrata_cluster_connected {}",
                u8::from(cluster.is_connected())
            );
            for (name, help, pick) in [
                (
                    "strata_shared_log_seq",
                    "The shared log's last commit of each open graph, as this node last saw it.",
                    (|l: (u64, u64)| l.0) as fn((u64, u64)) -> u64,
                ),
                (
                    "strata_shared_log_lag",
                    "Commits of the shared log this node has not applied yet.",
                    |l| l.1,
                ),
            ] {
                let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} gauge");
                for graph in &graphs {
                    if let Some(lag) = graph.cluster_lag() {
                        let _ = writeln!(out, "{name}{{graph=\"{}\"}} {}", graph.name(), pick(lag));
                    }
                }
            }
            for (name, kind, help, pick) in [
                (
                    "strata_cluster_pipeline_depth",
                    "gauge",
                    "This node's commits of each open graph sent to the shared log and not yet answered.",
                    (|p: PipelineStatus| p.depth) as fn(PipelineStatus) -> u64,
                ),
                (
                    "strata_cluster_pipelined_commits_total",
                    "counter",
                    "This node's commits stored that were sent before the commit they follow was answered.",
                    |p| p.pipelined,
                ),
                (
                    "strata_cluster_pipeline_refused_total",
                    "counter",
                    "This node's commits refused because a commit they followed in the pipeline was (built again on the new head).",
                    |p| p.refused,
                ),
                (
                    "strata_cluster_log_messages_total",
                    "counter",
                    "Shared-log messages this node's commits of each open graph were stored in (several commits sent while a message is unanswered go together in the next).",
                    |p| p.messages,
                ),
                (
                    "strata_cluster_log_message_commits_total",
                    "counter",
                    "Commits held by the shared-log messages this node stored.",
                    |p| p.messages_commits,
                ),
            ] {
                let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
                for graph in &graphs {
                    if let Some(status) = graph.pipeline_status() {
                        let _ =
                            writeln!(out, "{name}{{graph=\"{}\"}} {}", graph.name(), pick(status));
                    }
                }
            }
            let _ = writeln!(
                out,
                "# HELP strata_cluster_write_leader Each open graph's write leader by node name (`node`): 1 when it is this node.\n# TYPE strata_cluster_write_leader gauge"
            );
            for graph in &graphs {
                let Some(status) = graph.leader_status() else {
                    continue;
                };
                let (node, mine) = match status.holder {
                    LeaseHolder::Me => (graph.node_name(), 1),
                    LeaseHolder::Other(node) => (node, 0),
                    LeaseHolder::Nobody => continue,
                };
                let _ = writeln!(
                    out,
                    "strata_cluster_write_leader{{graph=\"{}\",node=\"{}\"}} {mine}",
                    graph.name(),
                    escape(&node)
                );
            }
            for (name, help, pick) in [
                (
                    "strata_cluster_forwarded_writes_total",
                    "Updates this node forwarded to the graph's write leader, which committed them.",
                    (|s: &LeaderStatus| s.forwarded) as fn(&LeaderStatus) -> u64,
                ),
                (
                    "strata_cluster_served_writes_total",
                    "Updates other nodes forwarded that this node ran as the graph's write leader.",
                    |s| s.served,
                ),
                (
                    "strata_cluster_forwarded_answered_from_stream_total",
                    "Of the forwarded writes, those answered once their commit came through the commit stream, before the leader's reply.",
                    |s| s.answered_from_stream,
                ),
            ] {
                let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} counter");
                for graph in &graphs {
                    if let Some(status) = graph.leader_status() {
                        let _ = writeln!(
                            out,
                            "{name}{{graph=\"{}\"}} {}",
                            graph.name(),
                            pick(&status)
                        );
                    }
                }
            }
            let _ = writeln!(
                out,
                "# HELP strata_store_files_published_seq The commit of the store files this node last published for new nodes.\n# TYPE strata_store_files_published_seq gauge"
            );
            for graph in &graphs {
                if let Some(seq) = graph.files_published() {
                    let _ = writeln!(
                        out,
                        "strata_store_files_published_seq{{graph=\"{}\"}} {seq}",
                        graph.name()
                    );
                }
            }
        }
        out
    }
}

fn escape(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"")
}
