//! The `query` tool, mode `sparql`: SELECT, ASK, CONSTRUCT and DESCRIBE at the head or a
//! pinned commit, paged with cursors that pin the commit of page 1.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{Context, graph_name, render};
use crate::engine::ReadOptions;
use crate::error::ApiError;
use crate::query::envelope::{CursorState, Detail, Envelope, args_digest};
use crate::sparql::{CancellationToken, Query, QueryResults};

/// Arguments of the `query` tool.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QueryArgs {
    /// What to do (see the tool's description).
    pub mode: QueryMode,
    #[serde(default)]
    pub graph: Option<String>,
    /// `sparql`, `compare`: the query.
    #[serde(default)]
    pub sparql: Option<String>,
    /// Read at this commit instead of the head.
    #[serde(default)]
    pub as_of_commit_seq: Option<u64>,
    /// Rows per page (at most the `detail`'s).
    #[serde(default)]
    pub row_limit: Option<usize>,
    /// From the previous answer's `next`.
    #[serde(default)]
    pub cursor: Option<String>,
    /// Rows per page and string length: compact (default: 20, 300) | standard (100, 1000) |
    /// full (1000, 5000; shows compiled SPARQL).
    #[serde(default)]
    pub detail: Option<Detail>,
    /// `structured`, `analyze`: the JSON query.
    #[serde(default)]
    pub structured: Option<super::structured::Structured>,
    /// `traverse`: {steps, fields}.
    #[serde(default)]
    pub traverse: Option<super::traverse::Traversal>,
    /// `structured`, `traverse`: a date or moment: only links valid in the world then.
    /// Old name: `as_of`.
    #[serde(default, alias = "as_of")]
    pub valid_at: Option<String>,
    /// `sparql`, `structured`: none (default) | subclass | rdfs (type inference at query
    /// time).
    #[serde(default)]
    pub entailment: Option<String>,
    #[serde(default)]
    pub by: Option<String>,
    /// `analyze`: bar (default) | pie.
    #[serde(default)]
    pub chart: Option<String>,
    /// `describe`: the class; `search`: only hits of this searchable class (name or IRI).
    #[serde(default)]
    pub class: Option<String>,
    #[serde(default)]
    pub property: Option<String>,
    #[serde(default)]
    pub name: Option<String>,
    /// `commit_at`: a date (its end, UTC) or an RFC 3339 moment.
    #[serde(default)]
    pub at: Option<String>,
    #[serde(default)]
    pub from: Option<super::modes::Point>,
    #[serde(default)]
    pub to: Option<super::modes::Point>,
    #[serde(default)]
    pub key: Option<String>,
    #[serde(default)]
    pub source: Option<super::modes::Node>,
    #[serde(default)]
    pub target: Option<super::modes::Node>,
    /// `paths`, `neighborhood`: only these relations (default all).
    #[serde(default)]
    pub relations: Vec<String>,
    /// `paths`, `neighborhood`: out | in | both (default).
    #[serde(default)]
    pub direction: Option<super::modes::Direction>,
    /// Hops: `paths` ≤ 8 (default 4), `neighborhood` ≤ 4 (default 2).
    #[serde(default)]
    pub max_depth: Option<usize>,
    /// `paths`: ≤ 20 (default 5).
    #[serde(default)]
    pub max_paths: Option<usize>,
    /// `neighborhood`: ≤ 500 (default 50).
    #[serde(default)]
    pub max_nodes: Option<usize>,
    #[serde(default)]
    pub text: Option<String>,
    /// `search`: a vector instead of `text`.
    #[serde(default)]
    pub embedding: Option<Vec<f32>>,
    /// `search`: dense (meaning) | sparse (BM25) | hybrid (default: both, rank-fused).
    #[serde(default)]
    pub lane: Option<String>,
    /// `search`: all must pass: links {via, to?, direction?} and fields {field, op:
    /// eq|ne|lt|le|gt|ge|between|any_of, value}.
    #[serde(default)]
    pub filters: Option<Vec<super::search::SearchFilter>>,
    /// `search`: how many hits (default 10, ≤ 200).
    #[serde(default)]
    pub top_k: Option<usize>,
    /// `search`: drop hits scoring lower.
    #[serde(default)]
    pub min_score: Option<f32>,
    /// `search`: the plan (nearest | filter_first | filtered_nearest) without running it.
    #[serde(default)]
    pub explain: Option<bool>,
    /// `search`: eventual (default) | strong (wait for the index).
    #[serde(default)]
    pub consistency: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum QueryMode {
    /// A SPARQL 1.1 query.
    Sparql,
    /// A JSON query compiled to SPARQL (same pinning and pages).
    Structured,
    /// A pipeline of steps (start, follow links, filter, order, limit, collect/count/group).
    Traverse,
    /// Counts by type, by relation, or by a structured aggregate, with a Vega-Lite chart.
    Analyze,
    /// A name → candidate records (exact, then case-insensitive, then prefix, then contains).
    Names,
    /// Which fields and links sampled instances of a class hold, or what a property links.
    Describe,
    /// A date or moment → the commit that was the head then.
    CommitAt,
    /// A SELECT run at two points → rows added, removed and changed.
    Compare,
    /// Bounded paths between two records, shortest first.
    Paths,
    /// The bounded subgraph around a record.
    Neighborhood,
    /// Records nearest to some words (meaning, keywords or both), with filters.
    Search,
}

/// What each mode takes besides the arguments every mode takes (`graph`,
/// `as_of_commit_seq`, `row_limit`, `cursor`, `detail`).
fn mode_arguments(mode: QueryMode) -> &'static [&'static str] {
    match mode {
        QueryMode::Sparql => &["sparql", "entailment"],
        QueryMode::Structured => &["structured", "valid_at", "entailment"],
        QueryMode::Traverse => &["traverse", "valid_at"],
        QueryMode::Analyze => &["by", "chart", "structured"],
        QueryMode::Names => &["name"],
        QueryMode::Describe => &["class", "property"],
        QueryMode::CommitAt => &["at"],
        QueryMode::Compare => &["sparql", "from", "to", "key"],
        QueryMode::Paths => &[
            "source",
            "target",
            "relations",
            "direction",
            "max_depth",
            "max_paths",
        ],
        QueryMode::Neighborhood => &["source", "relations", "direction", "max_depth", "max_nodes"],
        QueryMode::Search => &[
            "text",
            "embedding",
            "class",
            "lane",
            "filters",
            "top_k",
            "min_score",
            "explain",
            "consistency",
        ],
    }
}

const MODES: [QueryMode; 11] = [
    QueryMode::Sparql,
    QueryMode::Structured,
    QueryMode::Traverse,
    QueryMode::Analyze,
    QueryMode::Names,
    QueryMode::Describe,
    QueryMode::CommitAt,
    QueryMode::Compare,
    QueryMode::Paths,
    QueryMode::Neighborhood,
    QueryMode::Search,
];

fn mode_name(mode: QueryMode) -> String {
    serde_json::to_value(mode)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

impl QueryArgs {
    /// The mode-specific arguments this call gives.
    fn given(&self) -> Vec<&'static str> {
        let set = [
            ("sparql", self.sparql.is_some()),
            ("structured", self.structured.is_some()),
            ("traverse", self.traverse.is_some()),
            ("valid_at", self.valid_at.is_some()),
            ("entailment", self.entailment.is_some()),
            ("by", self.by.is_some()),
            ("chart", self.chart.is_some()),
            ("class", self.class.is_some()),
            ("property", self.property.is_some()),
            ("name", self.name.is_some()),
            ("at", self.at.is_some()),
            ("from", self.from.is_some()),
            ("to", self.to.is_some()),
            ("key", self.key.is_some()),
            ("source", self.source.is_some()),
            ("target", self.target.is_some()),
            ("relations", !self.relations.is_empty()),
            ("direction", self.direction.is_some()),
            ("max_depth", self.max_depth.is_some()),
            ("max_paths", self.max_paths.is_some()),
            ("max_nodes", self.max_nodes.is_some()),
            ("text", self.text.is_some()),
            ("embedding", self.embedding.is_some()),
            ("lane", self.lane.is_some()),
            ("filters", self.filters.is_some()),
            ("top_k", self.top_k.is_some()),
            ("min_score", self.min_score.is_some()),
            ("explain", self.explain.is_some()),
            ("consistency", self.consistency.is_some()),
        ];
        set.into_iter()
            .filter_map(|(name, given)| given.then_some(name))
            .collect()
    }

    /// Refuses an argument the mode does not take, naming the modes that do: an agent
    /// that sends `valid_at` with `sparql`, say, learns it is ignored there instead of
    /// trusting an answer that did not use it.
    fn check_mode(&self) -> Result<(), ApiError> {
        let takes = mode_arguments(self.mode);
        if let Some(stray) = self.given().into_iter().find(|a| !takes.contains(a)) {
            let owners: Vec<String> = MODES
                .into_iter()
                .filter(|m| mode_arguments(*m).contains(&stray))
                .map(|m| format!("`{}`", mode_name(m)))
                .collect();
            return Err(ApiError::invalid_argument(
                stray,
                format!(
                    "mode `{}` does not take `{stray}` (mode {} does)",
                    mode_name(self.mode),
                    owners.join(", ")
                ),
            ));
        }
        Ok(())
    }
}

pub fn run(
    ctx: &Context,
    args: QueryArgs,
    cancellation: CancellationToken,
) -> Result<Envelope, ApiError> {
    args.check_mode()?;
    match args.mode {
        QueryMode::Sparql => sparql(ctx, args, cancellation),
        QueryMode::Structured => structured(ctx, args, cancellation),
        QueryMode::Traverse => traverse(ctx, args, cancellation),
        QueryMode::Analyze => analyze(ctx, args, cancellation),
        QueryMode::Names => super::modes::names(ctx, &args),
        QueryMode::CommitAt => super::modes::commit_at(ctx, &args),
        QueryMode::Describe => super::modes::describe(ctx, &args),
        QueryMode::Compare => super::modes::compare(ctx, &args, cancellation),
        QueryMode::Paths => super::modes::paths(ctx, &args),
        QueryMode::Neighborhood => super::modes::neighborhood(ctx, &args),
        QueryMode::Search => super::search::search(ctx, &args),
    }
}

fn structured(
    ctx: &Context,
    mut args: QueryArgs,
    cancellation: CancellationToken,
) -> Result<Envelope, ApiError> {
    let body = args.structured.take().ok_or_else(|| {
        ApiError::invalid_argument("structured", "give the JSON query in `structured`")
    })?;
    let graph_name = graph_name(&args.graph);
    let graph = ctx.engine.graph(&graph_name)?;
    let seq = graph.resolve_seq(args.as_of_commit_seq, None)?;
    let iris = crate::ontology::RecordIris::for_graph(&graph_name);
    let ontology = crate::ontology::read(&graph.snapshot(seq), &iris);
    let valid_at = args
        .valid_at
        .as_deref()
        .map(|t| super::structured::moment(t, "valid_at"))
        .transpose()?;
    // Printed from the algebra: the text runs through the same pinned, paged path as
    // any SPARQL query.
    let compiled = super::structured::compile(&body, &iris, &ontology, valid_at.as_ref())?.text;
    run_compiled(ctx, args, seq, compiled, cancellation)
}

fn analyze(
    ctx: &Context,
    mut args: QueryArgs,
    cancellation: CancellationToken,
) -> Result<Envelope, ApiError> {
    let by = args.by.clone().unwrap_or_else(|| "type".to_owned());
    let chart = args.chart.clone().unwrap_or_else(|| "bar".to_owned());
    if chart != "bar" && chart != "pie" {
        return Err(ApiError::invalid_argument("chart", "use bar or pie"));
    }
    let graph_name = graph_name(&args.graph);
    let graph = ctx.engine.graph(&graph_name)?;
    let seq = graph.resolve_seq(args.as_of_commit_seq, None)?;
    let (compiled, category, measure) = match by.as_str() {
        "type" => (
            "SELECT ?category (COUNT(DISTINCT ?s) AS ?count) WHERE { ?s a ?category } GROUP BY ?category ORDER BY DESC(?count) ?category LIMIT 50".to_owned(),
            "category".to_owned(),
            "count".to_owned(),
        ),
        "relation" => (
            "SELECT ?category (COUNT(*) AS ?count) WHERE { ?s ?category ?o . FILTER(isIRI(?o) && ?category != <http://www.w3.org/1999/02/22-rdf-syntax-ns#type>) } GROUP BY ?category ORDER BY DESC(?count) ?category LIMIT 50".to_owned(),
            "category".to_owned(),
            "count".to_owned(),
        ),
        "structured" => {
            let body = args.structured.take().ok_or_else(|| {
                ApiError::invalid_argument("structured", "analyze by structured needs the query in `structured`")
            })?;
            let category = body.group_by.first().cloned().or_else(|| body.group_keys.first().map(|k| k.alias.clone())).ok_or_else(|| {
                ApiError::invalid_argument("structured.group_by", "group the structured query to chart it")
            })?;
            let measure = body.aggregates.first().map(|a| a.alias.clone()).ok_or_else(|| {
                ApiError::invalid_argument("structured.aggregates", "give an aggregate to chart")
            })?;
            let iris = crate::ontology::RecordIris::for_graph(&graph_name);
            let ontology = crate::ontology::read(&graph.snapshot(seq), &iris);
            (
                super::structured::compile(&body, &iris, &ontology, None)?.text,
                category,
                measure,
            )
        }
        other => return Err(ApiError::invalid_argument("by", format!("unknown {other:?}; use type, relation or structured"))),
    };
    args.mode = QueryMode::Sparql;
    args.sparql = Some(compiled);
    args.as_of_commit_seq = Some(seq);
    args.detail = Some(Detail::Full);
    args.cursor = None;
    let mut envelope = sparql(ctx, args, cancellation)?;
    let values: Vec<serde_json::Value> = envelope.data["rows"]
        .as_array()
        .map(|rows| {
            rows.iter()
                .map(|row| {
                    // Terms in the one form (render.rs): an IRI, a JSON value or a literal.
                    let text = |key: &str| match &row[key] {
                        serde_json::Value::String(s) => s.clone(),
                        serde_json::Value::Object(term) => term
                            .get("iri")
                            .or_else(|| term.get("value"))
                            .or_else(|| term.get("bnode"))
                            .and_then(serde_json::Value::as_str)
                            .unwrap_or_default()
                            .to_owned(),
                        serde_json::Value::Null => String::new(),
                        other => other.to_string(),
                    };
                    let number = text(&measure).parse::<f64>().unwrap_or(0.0);
                    json!({ "category": text(&category), "value": number })
                })
                .collect()
        })
        .unwrap_or_default();
    let spec = if chart == "pie" {
        json!({
            "$schema": "https://vega.github.io/schema/vega-lite/v5.json",
            "data": { "values": values },
            "mark": { "type": "arc", "tooltip": true },
            "encoding": {
                "theta": { "field": "value", "type": "quantitative" },
                "color": { "field": "category", "type": "nominal" }
            }
        })
    } else {
        json!({
            "$schema": "https://vega.github.io/schema/vega-lite/v5.json",
            "data": { "values": values },
            "mark": { "type": "bar", "tooltip": true },
            "encoding": {
                "x": { "field": "category", "type": "nominal", "sort": "-y" },
                "y": { "field": "value", "type": "quantitative", "title": measure }
            }
        })
    };
    envelope.summary = format!(
        "{} {by} group(s) at commit {seq} of graph {graph_name}, with a Vega-Lite {chart} chart",
        values.len()
    );
    envelope.data = json!({ "values": values, "vega_lite": spec });
    envelope.next = None;
    Ok(envelope)
}

fn traverse(
    ctx: &Context,
    mut args: QueryArgs,
    cancellation: CancellationToken,
) -> Result<Envelope, ApiError> {
    let body = args.traverse.take().ok_or_else(|| {
        ApiError::invalid_argument(
            "traverse",
            "give the pipeline in `traverse`: {\"steps\": [...]}",
        )
    })?;
    let graph_name = graph_name(&args.graph);
    let graph = ctx.engine.graph(&graph_name)?;
    let seq = graph.resolve_seq(args.as_of_commit_seq, None)?;
    let iris = crate::ontology::RecordIris::for_graph(&graph_name);
    let ontology = crate::ontology::read(&graph.snapshot(seq), &iris);
    let valid_at = args
        .valid_at
        .as_deref()
        .map(|t| super::structured::moment(t, "valid_at"))
        .transpose()?;
    // Printed from the algebra by spargebra, then run like any SPARQL query.
    let compiled = super::traverse::compile(&body, &graph_name, &ontology, valid_at.as_ref())?
        .0
        .to_string();
    run_compiled(ctx, args, seq, compiled, cancellation)
}

/// Runs a compiled JSON query as SPARQL at `seq` (same pages and cursors); `detail: full`
/// also shows its text.
fn run_compiled(
    ctx: &Context,
    mut args: QueryArgs,
    seq: u64,
    compiled: String,
    cancellation: CancellationToken,
) -> Result<Envelope, ApiError> {
    let full = args.detail == Some(Detail::Full);
    args.mode = QueryMode::Sparql;
    args.sparql = Some(compiled.clone());
    args.as_of_commit_seq = Some(seq);
    let mut envelope = sparql(ctx, args, cancellation)?;
    if full {
        envelope.data["sparql"] = compiled.into();
    }
    Ok(envelope)
}

fn sparql(
    ctx: &Context,
    args: QueryArgs,
    cancellation: CancellationToken,
) -> Result<Envelope, ApiError> {
    let graph_name = graph_name(&args.graph);
    let text = args
        .sparql
        .clone()
        .filter(|t| !t.trim().is_empty())
        .ok_or_else(|| {
            ApiError::invalid_argument("sparql", "give the SPARQL query text in `sparql`")
        })?;
    let (text, normalised) = normalise_local_names(&text, &graph_name);
    let detail = args.detail.unwrap_or_default();
    let budget = detail.budget();
    let row_limit = args.row_limit.unwrap_or(budget.rows).clamp(1, budget.rows);
    let graph = ctx.engine.graph(&graph_name)?;
    let mut query =
        crate::sparql::parse_query(&text, None).map_err(crate::engine::EngineError::from)?;
    let entailment_name = args.entailment.clone().unwrap_or_else(|| "none".to_owned());
    let entailment = crate::sparql::Entailment::from_name(&entailment_name).ok_or_else(|| {
        ApiError::invalid_argument(
            "entailment",
            format!("unknown entailment {entailment_name:?}; use none, subclass or rdfs"),
        )
    })?;
    crate::sparql::apply_entailment(&mut query, entailment);
    let digest = args_digest(&[&text, &entailment_name]);
    let (seq, position) = match &args.cursor {
        Some(cursor) => {
            let state = ctx
                .cursors
                .open(cursor, "query.sparql", &graph_name, &digest)?;
            if args.as_of_commit_seq.is_some_and(|s| s != state.seq) {
                return Err(ApiError {
                    code: crate::error::ErrorCode::CursorMismatch,
                    message: format!(
                        "the cursor is pinned to commit {}; drop as_of_commit_seq or pass {}",
                        state.seq, state.seq
                    ),
                    param: Some("as_of_commit_seq".into()),
                    validation: None,
                });
            }
            (state.seq, state.position)
        }
        None => (graph.resolve_seq(args.as_of_commit_seq, None)?, 0),
    };
    let options = ReadOptions {
        as_of: Some(seq),
        timeout: Some(ctx.query_timeout),
        cancellation: Some(cancellation),
        ..ReadOptions::default()
    };
    let answer = graph.query_parsed(&query, &options)?;
    let search_reports = answer.search.clone();
    let control = answer.control;
    // Once a limit (time, memory) stopped the query, whatever the evaluator reports is
    // that limit.
    let eval_error = |error: spareval::QueryEvaluationError| -> ApiError {
        crate::engine::EngineError::from(control.stop_error(error)).into()
    };
    let mut truncated = false;
    let mut bytes = 0usize;
    let mut rows: Vec<Value> = Vec::new();
    let mut more = false;
    let mut skipped = 0u64;
    let kind = match &query {
        Query::Select { .. } => "rows",
        Query::Ask { .. } => "boolean",
        _ => "triples",
    };
    let data = match answer.results {
        QueryResults::Boolean(value) => json!({ "boolean": value }),
        QueryResults::Solutions(solutions) => {
            let variables: Vec<String> = solutions
                .variables()
                .iter()
                .map(|v| v.as_str().to_owned())
                .collect();
            for solution in solutions {
                let solution = solution.map_err(eval_error)?;
                if skipped < position {
                    skipped += 1;
                    continue;
                }
                if rows.len() == row_limit {
                    more = true;
                    break;
                }
                let mut row = serde_json::Map::new();
                for (variable, value) in solution.iter() {
                    let (value, was_cut) = render::term(value, budget.string_chars);
                    truncated |= was_cut;
                    row.insert(variable.as_str().to_owned(), value);
                }
                let row = Value::Object(row);
                let size = row.to_string().len();
                if bytes + size > budget.bytes && !rows.is_empty() {
                    more = true;
                    break;
                }
                bytes += size;
                rows.push(row);
            }
            json!({ "variables": variables, "rows": rows })
        }
        QueryResults::Graph(triples) => {
            for triple in triples {
                let triple = triple.map_err(eval_error)?;
                if skipped < position {
                    skipped += 1;
                    continue;
                }
                if rows.len() == row_limit {
                    more = true;
                    break;
                }
                let (line, was_cut) = crate::query::envelope::cut(
                    &format!("{triple} ."),
                    budget.string_chars.max(200),
                );
                truncated |= was_cut;
                if bytes + line.len() > budget.bytes && !rows.is_empty() {
                    more = true;
                    break;
                }
                bytes += line.len();
                rows.push(Value::String(line));
            }
            json!({ "triples": rows })
        }
    };
    let n_rows = rows.len();
    let first = position + 1;
    let summary = match kind {
        "boolean" => format!(
            "ASK is {} at commit {seq} of graph {graph_name}",
            data["boolean"]
        ),
        "rows" if n_rows == 0 && position == 0 => {
            format!("no rows at commit {seq} of graph {graph_name}")
        }
        _ => format!(
            "{kind} {first}–{} at commit {seq} of graph {graph_name}{}",
            position + n_rows as u64,
            if more {
                " (more: call again with `next`)"
            } else {
                ""
            }
        ),
    };
    let mut envelope = Envelope::new(summary, data, seq);
    envelope.counts = Some(json!({ "returned": n_rows, "offset": position }));
    if !search_reports.is_empty() {
        if let Value::Object(fields) = &mut envelope.data {
            fields.insert("search".into(), crate::report::search_json(&search_reports));
        }
        if search_reports.iter().any(|r| !r.complete) {
            envelope = envelope.note("a search: pattern hit its cap before k hits passed the other patterns (complete: false); raise search:k or loosen the patterns");
        }
    }
    if normalised {
        envelope = envelope.note("local names of Strata classes, relations and fields are lowercase; the query's were lowercased");
    }
    if args.row_limit.is_some_and(|limit| limit > budget.rows) {
        envelope = envelope.note(format!(
            "row_limit is capped at {} rows by detail `{}`; ask with a larger detail for bigger pages",
            budget.rows,
            serde_json::to_value(detail).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default()
        ));
    }
    if truncated {
        envelope.truncated = Some(true);
        envelope = envelope.note(
            "some strings were cut (marked …); ask with detail `standard` or `full` for more",
        );
    }
    if more {
        envelope.truncated = Some(true);
        let cursor = ctx.cursors.seal(&CursorState {
            kind: "query.sparql".into(),
            graph: graph_name.clone(),
            args: digest,
            seq,
            position: position + n_rows as u64,
        });
        let mut next = json!({
            "mode": "sparql",
            "graph": graph_name,
            "sparql": text,
            "cursor": cursor,
        });
        if let Some(detail) = args.detail {
            next["detail"] = serde_json::to_value(detail).unwrap_or(Value::Null);
        }
        if let Some(limit) = args.row_limit {
            next["row_limit"] = limit.into();
        }
        if let Some(entailment) = &args.entailment {
            next["entailment"] = entailment.clone().into();
        }
        envelope.next = Some(next);
    }
    Ok(envelope)
}

/// Lowercases the local names in full IRIs of this graph's classes, relations and fields
/// (`…/class/Bug` → `…/class/bug`), which models often capitalise. Returns whether it
/// changed anything.
fn normalise_local_names(text: &str, graph: &str) -> (String, bool) {
    let base = format!("<http://strata.local/graphs/{graph}/");
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut changed = false;
    while let Some(start) = rest.find(&base) {
        out.push_str(&rest[..start + base.len()]);
        rest = &rest[start + base.len()..];
        let end = rest.find('>').unwrap_or(rest.len());
        let iri_tail = &rest[..end];
        let kind = ["class/", "rel/", "prop/"]
            .into_iter()
            .find(|k| iri_tail.starts_with(k));
        match kind {
            Some(kind) if iri_tail[kind.len()..].chars().any(char::is_uppercase) => {
                out.push_str(kind);
                out.push_str(&iri_tail[kind.len()..].to_lowercase());
                changed = true;
            }
            _ => out.push_str(iri_tail),
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    (out, changed)
}

#[cfg(test)]
mod tests {
    use super::normalise_local_names;

    #[test]
    fn capitalised_local_names_are_lowercased() {
        let (text, changed) = normalise_local_names(
            "SELECT * { ?b a <http://strata.local/graphs/main/class/Bug> ; <http://strata.local/graphs/main/rel/FIXED_IN> ?r . ?r <http://strata.local/graphs/main/entity/release/R-1> ?x }",
            "main",
        );
        assert!(changed);
        assert!(text.contains("/class/bug>") && text.contains("/rel/fixed_in>"));
        assert!(
            text.contains("/entity/release/R-1>"),
            "record names keep their case"
        );
        assert!(!normalise_local_names("SELECT * { ?s ?p ?o }", "main").1);
    }

    #[test]
    fn a_mode_refuses_the_arguments_of_other_modes() {
        let args = |value: serde_json::Value| -> super::QueryArgs {
            serde_json::from_value(value).unwrap()
        };
        let stray = args(
            serde_json::json!({"mode": "sparql", "sparql": "ASK {}", "valid_at": "2026-01-01"}),
        )
        .check_mode()
        .unwrap_err();
        assert_eq!(stray.param.as_deref(), Some("valid_at"));
        assert!(
            stray.message.contains("`structured`, `traverse`"),
            "{}",
            stray.message
        );
        let top_k = args(serde_json::json!({"mode": "names", "name": "x", "top_k": 3}))
            .check_mode()
            .unwrap_err();
        assert_eq!(top_k.param.as_deref(), Some("top_k"));
        for fine in [
            serde_json::json!({"mode": "sparql", "sparql": "ASK {}", "detail": "full", "row_limit": 5, "as_of_commit_seq": 1}),
            serde_json::json!({"mode": "search", "text": "x", "class": "Ticket", "top_k": 3, "filters": []}),
            serde_json::json!({"mode": "paths", "source": {"iri": "http://e/a"}, "target": {"iri": "http://e/b"}, "relations": ["r"]}),
        ] {
            args(fine.clone())
                .check_mode()
                .unwrap_or_else(|e| panic!("{fine}: {e}"));
        }
    }
}
