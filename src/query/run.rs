//! The `query` tool, mode `sparql`: SELECT, ASK, CONSTRUCT and DESCRIBE at the head or a
//! pinned commit, paged with cursors that pin the commit of page 1.

use serde_json::{Value, json};

use super::args::{
    AnalyzeQuery, Common, ModeQuery, QueryArgs, SparqlQuery, StructuredQuery, TraverseQuery,
};
use super::{Context, graph_name, render};
use crate::engine::ReadOptions;
use crate::error::ApiError;
use crate::query::envelope::{CursorState, Detail, Envelope, args_digest};
use crate::sparql::{CancellationToken, Query, QueryResults};

/// How long a read waits for the commit `min_commit_seq` names.
const MIN_COMMIT_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// Waits (at most `MIN_COMMIT_WAIT`) until this node has applied commit `min_commit_seq`
/// of `graph`, e.g. one written through another node of a cluster.
pub(crate) fn wait_for_commit(
    ctx: &Context,
    graph: &Option<String>,
    min_commit_seq: Option<u64>,
) -> Result<(), ApiError> {
    if let Some(seq) = min_commit_seq {
        ctx.engine
            .graph(&graph_name(graph))?
            .wait_for_commit(seq, MIN_COMMIT_WAIT)
            .map_err(|e| ApiError::from(e).with_param("min_commit_seq"))?;
    }
    Ok(())
}

pub fn run(
    ctx: &Context,
    args: QueryArgs,
    cancellation: CancellationToken,
) -> Result<Envelope, ApiError> {
    let (common, query) = args.parse()?;
    wait_for_commit(ctx, &common.graph, common.min_commit_seq)?;
    // The engine names the HTTP/CLI parameter of a pinned read; these arguments call it
    // `as_of_commit_seq` (the same on MCP and `POST /graphs/{g}/query`).
    let named = |mut error: ApiError| {
        if error.param.as_deref() == Some("as_of")
            && error.code == crate::error::ErrorCode::CommitNotFound
        {
            error.param = Some("as_of_commit_seq".into());
        }
        error
    };
    let answer = match query {
        ModeQuery::Sparql(query) => sparql(ctx, &common, query, cancellation, Shape::Rows),
        ModeQuery::Structured(query) => structured(ctx, &common, query, cancellation),
        ModeQuery::Traverse(query) => traverse(ctx, &common, query, cancellation),
        ModeQuery::Analyze(query) => analyze(ctx, &common, query, cancellation),
        ModeQuery::Names(query) => super::modes::names(ctx, &common, &query),
        ModeQuery::CommitAt(query) => super::modes::commit_at(ctx, &common, &query),
        ModeQuery::Describe(query) => super::modes::describe(ctx, &common, &query),
        ModeQuery::Compare(query) => super::modes::compare(ctx, &common, &query, cancellation),
        ModeQuery::Paths(query) => super::modes::paths(ctx, &common, &query),
        ModeQuery::Neighborhood(query) => super::modes::neighborhood(ctx, &common, &query),
        ModeQuery::Search(query) => super::search::search(ctx, &common, &query),
    };
    answer.map_err(named)
}

/// What a JSON query compiles against: the commit read, the graph's ontology there, and
/// the valid-time moment (`valid_at`) when given.
struct Compiling {
    graph_name: String,
    seq: u64,
    iris: crate::ontology::RecordIris,
    ontology: crate::ontology::Ontology,
    valid_at: Option<crate::model::Literal>,
}

impl Compiling {
    fn new(ctx: &Context, common: &Common, valid_at: Option<&str>) -> Result<Self, ApiError> {
        let graph_name = graph_name(&common.graph);
        let graph = ctx.engine.graph(&graph_name)?;
        let seq = graph.resolve_seq(common.as_of_commit_seq, None)?;
        let iris = crate::ontology::RecordIris::for_graph(&graph_name);
        let ontology = crate::ontology::read(&graph.snapshot(seq), &iris);
        let valid_at = valid_at
            .map(|t| super::structured::moment(t, "valid_at"))
            .transpose()?;
        Ok(Self {
            graph_name,
            seq,
            iris,
            ontology,
            valid_at,
        })
    }
}

fn structured(
    ctx: &Context,
    common: &Common,
    query: StructuredQuery,
    cancellation: CancellationToken,
) -> Result<Envelope, ApiError> {
    let at = Compiling::new(ctx, common, query.valid_at.as_deref())?;
    // Printed from the algebra: the text runs through the same pinned, paged path as
    // any SPARQL query.
    let compiled =
        super::structured::compile(&query.body, &at.iris, &at.ontology, at.valid_at.as_ref())?.text;
    run_compiled(
        ctx,
        common,
        at.seq,
        compiled,
        query.entailment,
        cancellation,
        Shape::Rows,
    )
}

/// The most groups `analyze` by type or relation charts.
const CHART_GROUPS: usize = 50;

fn analyze(
    ctx: &Context,
    common: &Common,
    query: AnalyzeQuery,
    cancellation: CancellationToken,
) -> Result<Envelope, ApiError> {
    let by = query.by.clone().unwrap_or_else(|| "type".to_owned());
    let chart = query.chart.clone().unwrap_or_else(|| "bar".to_owned());
    if chart != "bar" && chart != "pie" {
        return Err(ApiError::invalid_argument("chart", "use bar or pie"));
    }
    let graph_name = graph_name(&common.graph);
    let graph = ctx.engine.graph(&graph_name)?;
    let seq = graph.resolve_seq(common.as_of_commit_seq, None)?;
    let (compiled, category, measure) = match by.as_str() {
        "type" => (
            format!(
                "SELECT ?category (COUNT(DISTINCT ?s) AS ?count) WHERE {{ ?s a ?category }} GROUP BY ?category ORDER BY DESC(?count) ?category LIMIT {}",
                CHART_GROUPS + 1
            ),
            "category".to_owned(),
            "count".to_owned(),
        ),
        "relation" => (
            format!(
                "SELECT ?category (COUNT(*) AS ?count) WHERE {{ ?s ?category ?o . FILTER(!isLiteral(?o) && ?category != <http://www.w3.org/1999/02/22-rdf-syntax-ns#type>) }} GROUP BY ?category ORDER BY DESC(?count) ?category LIMIT {}",
                CHART_GROUPS + 1
            ),
            "category".to_owned(),
            "count".to_owned(),
        ),
        "structured" => {
            let body = query.structured.as_ref().ok_or_else(|| {
                ApiError::invalid_argument(
                    "structured",
                    "analyze by structured needs the query in `structured`",
                )
            })?;
            let category = body
                .group_by
                .first()
                .cloned()
                .or_else(|| body.group_keys.first().map(|k| k.alias.clone()))
                .ok_or_else(|| {
                    ApiError::invalid_argument(
                        "structured.group_by",
                        "group the structured query to chart it",
                    )
                })?;
            let measure = body
                .aggregates
                .first()
                .map(|a| a.alias.clone())
                .ok_or_else(|| {
                    ApiError::invalid_argument(
                        "structured.aggregates",
                        "give an aggregate to chart",
                    )
                })?;
            let iris = crate::ontology::RecordIris::for_graph(&graph_name);
            let ontology = crate::ontology::read(&graph.snapshot(seq), &iris);
            (
                super::structured::compile(body, &iris, &ontology, None)?.text,
                category,
                measure,
            )
        }
        other => {
            return Err(ApiError::invalid_argument(
                "by",
                format!("unknown {other:?}; use type, relation or structured"),
            ));
        }
    };
    let pinned = Common {
        graph: common.graph.clone(),
        as_of_commit_seq: Some(seq),
        detail: Some(Detail::Full),
        ..Common::default()
    };
    let compiled = SparqlQuery {
        text: compiled,
        entailment: None,
    };
    let mut envelope = sparql(ctx, &pinned, compiled, cancellation, Shape::Rows)?;
    // The type and relation queries ask for one group more than they chart, to know that
    // there are more; a structured query's groups past one page leave a cursor.
    let mut complete = envelope.next.is_none();
    if let Some(rows) = envelope.data["rows"].as_array_mut()
        && by != "structured"
        && rows.len() > CHART_GROUPS
    {
        rows.truncate(CHART_GROUPS);
        complete = false;
    }
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
                    // An absent measure (the aggregate of a group with an unbound or
                    // non-numeric value) stays null: Vega-Lite leaves it out, a 0 would be
                    // a made-up figure.
                    let number = text(&measure).parse::<f64>().ok().filter(|n| n.is_finite());
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
    let shown = values.len();
    let absent = values.iter().filter(|v| v["value"].is_null()).count();
    envelope.summary = format!(
        "{}{shown} {by} group(s) at commit {seq} of graph {graph_name}, with a Vega-Lite {chart} chart",
        if complete { "" } else { "the first " },
    );
    envelope.data = json!({ "values": values, "vega_lite": spec, "complete": complete });
    envelope.next = None;
    if !complete {
        envelope.truncated = Some(true);
        envelope = envelope.note(if by == "structured" {
            format!("only the first {shown} groups are charted; run the structured query in mode `structured` to page through all of them")
        } else {
            format!("only the {shown} largest groups are charted; count the rest with a structured or SPARQL query")
        });
    }
    if absent > 0 {
        envelope = envelope.note(format!("{absent} group(s) have no value for {measure} (null): the aggregate of a group in which some record lacks the field is absent"));
    }
    Ok(envelope)
}

fn traverse(
    ctx: &Context,
    common: &Common,
    query: TraverseQuery,
    cancellation: CancellationToken,
) -> Result<Envelope, ApiError> {
    let at = Compiling::new(ctx, common, query.valid_at.as_deref())?;
    // Printed from the algebra by spargebra, then run like any SPARQL query.
    let (compiled, output) = super::traverse::compile(
        &query.body,
        &at.graph_name,
        &at.ontology,
        at.valid_at.as_ref(),
    )?;
    let shape = match output {
        super::traverse::Output::Items => Shape::Items,
        _ => Shape::Rows,
    };
    let entailed = query.entailment.as_deref().is_some_and(|e| e != "none");
    let unentailed_subtypes = if entailed {
        Vec::new()
    } else {
        subtypes_left_out(ctx, &at, &query.body)?
    };
    let mut envelope = run_compiled(
        ctx,
        common,
        at.seq,
        compiled.to_string(),
        query.entailment,
        cancellation,
        shape,
    )?;
    for (class, subtypes) in unentailed_subtypes {
        envelope = envelope.note(format!(
            "<{class}> has subtypes ({}): only records typed <{class}> itself were read; pass entailment \"subclass\" to include their instances",
            subtypes.join(", ")
        ));
    }
    Ok(envelope)
}

/// The types a traversal names (`from_type`, `to_type`, at any depth) that have subtypes
/// in the graph, each with (up to 5 of) those subtypes: without entailment the traversal
/// reads only what is typed with the type itself, which an agent should be told.
fn subtypes_left_out(
    ctx: &Context,
    at: &Compiling,
    body: &super::traverse::Traversal,
) -> Result<Vec<(String, Vec<String>)>, ApiError> {
    fn type_names(value: &Value, out: &mut Vec<String>) {
        match value {
            Value::Object(object) => {
                for (key, inner) in object {
                    match (key.as_str(), inner) {
                        ("from_type" | "to_type", Value::String(name)) => {
                            if !out.contains(name) {
                                out.push(name.clone());
                            }
                        }
                        _ => type_names(inner, out),
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|item| type_names(item, out)),
            _ => {}
        }
    }
    let mut names = Vec::new();
    for step in &body.steps {
        type_names(step, &mut names);
    }
    let graph = ctx.engine.graph(&at.graph_name)?;
    let mut left_out = Vec::new();
    for name in names {
        let class = if name.contains("://") || name.starts_with("urn:") {
            match crate::model::NamedNode::new(name.trim_start_matches('<').trim_end_matches('>')) {
                Ok(iri) => iri,
                Err(_) => continue,
            }
        } else {
            at.iris.class(&name)
        };
        let subtypes = super::modes::subtypes_of(ctx, &graph, at.seq, &class)?;
        if !subtypes.is_empty() {
            left_out.push((class.as_str().to_owned(), subtypes));
        }
    }
    Ok(left_out)
}

/// Runs a compiled JSON query as SPARQL at `seq` (same pages and cursors); `detail: full`
/// also shows its text.
fn run_compiled(
    ctx: &Context,
    common: &Common,
    seq: u64,
    compiled: String,
    entailment: Option<String>,
    cancellation: CancellationToken,
    shape: Shape,
) -> Result<Envelope, ApiError> {
    let pinned = Common {
        as_of_commit_seq: Some(seq),
        ..common.clone()
    };
    let query = SparqlQuery {
        text: compiled.clone(),
        entailment,
    };
    let mut envelope = sparql(ctx, &pinned, query, cancellation, shape)?;
    if common.detail == Some(Detail::Full) {
        envelope.data["sparql"] = compiled.into();
    }
    Ok(envelope)
}

/// How the solutions of a query become the rows of an answer.
#[derive(Clone, Copy, PartialEq)]
enum Shape {
    /// One row per solution.
    Rows,
    /// One row per `?iri` (a traversal's items): its solutions, which the query orders
    /// next to each other, are merged, a column with several values becoming a list; a
    /// page never splits an item. The cursor remembers it, so a page asked for in
    /// `sparql` mode with it is merged too.
    Items,
}

impl Shape {
    fn cursor_kind(self) -> &'static str {
        match self {
            Shape::Rows => "query.sparql",
            Shape::Items => "query.items",
        }
    }
}

fn sparql(
    ctx: &Context,
    common: &Common,
    query: SparqlQuery,
    cancellation: CancellationToken,
    shape: Shape,
) -> Result<Envelope, ApiError> {
    let graph_name = graph_name(&common.graph);
    let SparqlQuery {
        text,
        entailment: entailment_arg,
    } = query;
    let (text, normalised) = normalise_local_names(&text, &graph_name);
    let detail = common.detail.unwrap_or_default();
    let budget = detail.budget();
    let row_limit = common
        .row_limit
        .unwrap_or(budget.rows)
        .clamp(1, budget.rows);
    let graph = ctx.engine.graph(&graph_name)?;
    let mut query =
        crate::sparql::parse_query(&text, None).map_err(crate::engine::EngineError::from)?;
    let entailment_name = entailment_arg.clone().unwrap_or_else(|| "none".to_owned());
    let entailment = crate::sparql::Entailment::from_name(&entailment_name).ok_or_else(|| {
        ApiError::invalid_argument(
            "entailment",
            format!("unknown entailment {entailment_name:?}; use none, subclass or rdfs"),
        )
    })?;
    crate::sparql::apply_entailment(&mut query, entailment);
    let digest = args_digest(&[&text, &entailment_name]);
    let mut shape = shape;
    let (seq, position) = match &common.cursor {
        Some(cursor) => {
            let state = ctx
                .cursors
                .open(cursor, Shape::Rows.cursor_kind(), &graph_name, &digest)
                .or_else(|error| {
                    ctx.cursors
                        .open(cursor, Shape::Items.cursor_kind(), &graph_name, &digest)
                        .map_err(|_| error)
                })?;
            if state.kind == Shape::Items.cursor_kind() {
                shape = Shape::Items;
            }
            if common.as_of_commit_seq.is_some_and(|s| s != state.seq) {
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
        None => (graph.resolve_seq(common.as_of_commit_seq, None)?, 0),
    };
    let options = ReadOptions {
        timeout: Some(ctx.query_timeout),
        cancellation: Some(cancellation),
        ..ReadOptions::default()
    };
    let answer = graph.read_at(seq).query_parsed(&query, &options)?;
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
    // Where the next page starts, in solutions.
    let mut next_position = position;
    let kind = match &query {
        Query::Select { .. } if shape == Shape::Items => "items",
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
            let mut item: Option<Item> = None;
            let mut index = position;
            let mut page = Page {
                rows: Vec::new(),
                bytes: 0,
                budget: budget.bytes,
            };
            for solution in solutions {
                let solution = solution.map_err(eval_error)?;
                if skipped < position {
                    skipped += 1;
                    continue;
                }
                if shape == Shape::Items {
                    let key = solution.get("iri").map(ToString::to_string);
                    if let Some(open) = &mut item
                        && open.key == key
                    {
                        open.add(&solution, budget.string_chars, &mut truncated);
                        index += 1;
                        continue;
                    }
                    if let Some(done) = item.take() {
                        let start = done.start;
                        if !page.take(done.row()) {
                            more = true;
                            next_position = start;
                            break;
                        }
                    }
                    if page.rows.len() == row_limit {
                        more = true;
                        next_position = index;
                        break;
                    }
                    let mut open = Item::new(key, index);
                    open.add(&solution, budget.string_chars, &mut truncated);
                    item = Some(open);
                    index += 1;
                    continue;
                }
                if page.rows.len() == row_limit {
                    more = true;
                    break;
                }
                let mut row = serde_json::Map::new();
                for (variable, value) in solution.iter() {
                    let (value, was_cut) = render::term(value, budget.string_chars);
                    truncated |= was_cut;
                    row.insert(variable.as_str().to_owned(), value);
                }
                if !page.take(Value::Object(row)) {
                    more = true;
                    break;
                }
            }
            if let Some(done) = item.take() {
                let start = done.start;
                if !page.take(done.row()) {
                    more = true;
                    next_position = start;
                }
            }
            rows = page.rows;
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
    if kind != "items" {
        next_position = position + n_rows as u64;
    }
    let first = position + 1;
    let more_note = if more {
        " (more: call again with `next`)"
    } else {
        ""
    };
    let summary = match kind {
        "boolean" => format!(
            "ASK is {} at commit {seq} of graph {graph_name}",
            data["boolean"]
        ),
        "rows" | "items" if n_rows == 0 && position == 0 => {
            format!("no {kind} at commit {seq} of graph {graph_name}")
        }
        // An item's number is not known past the first page (the cursor counts solutions).
        "items" if position > 0 => {
            format!("{n_rows} more item(s) at commit {seq} of graph {graph_name}{more_note}")
        }
        _ => format!(
            "{kind} {first}–{} at commit {seq} of graph {graph_name}{more_note}",
            position + n_rows as u64,
        ),
    };
    let mut envelope = Envelope::new(summary, data, seq);
    envelope.counts = Some(if kind == "items" {
        json!({ "returned": n_rows, "solutions_offset": position })
    } else {
        json!({ "returned": n_rows, "offset": position })
    });
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
    if common.row_limit.is_some_and(|limit| limit > budget.rows) {
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
            kind: shape.cursor_kind().into(),
            graph: graph_name.clone(),
            args: digest,
            seq,
            position: next_position,
        });
        let mut next = json!({
            "mode": "sparql",
            "graph": graph_name,
            "sparql": text,
            "cursor": cursor,
        });
        if let Some(detail) = common.detail {
            next["detail"] = serde_json::to_value(detail).unwrap_or(Value::Null);
        }
        if let Some(limit) = common.row_limit {
            next["row_limit"] = limit.into();
        }
        if let Some(entailment) = &entailment_arg {
            next["entailment"] = entailment.clone().into();
        }
        envelope.next = Some(next);
    }
    Ok(envelope)
}

/// The rows of a page and the bytes they take.
struct Page {
    rows: Vec<Value>,
    bytes: usize,
    budget: usize,
}

impl Page {
    /// Adds `row` if the page's byte budget holds it (a page takes at least one row);
    /// false when it does not fit.
    fn take(&mut self, row: Value) -> bool {
        let size = row.to_string().len();
        if self.bytes + size > self.budget && !self.rows.is_empty() {
            return false;
        }
        self.bytes += size;
        self.rows.push(row);
        true
    }
}

/// A traversal item being read: the values of each column over its solutions.
struct Item {
    /// The `?iri` term (as N-Triples), `None` for a solution without one.
    key: Option<String>,
    /// The solution the item starts at (a page that cannot hold it starts there).
    start: u64,
    columns: Vec<(String, Vec<Value>)>,
}

impl Item {
    fn new(key: Option<String>, start: u64) -> Self {
        Self {
            key,
            start,
            columns: Vec::new(),
        }
    }

    fn add(&mut self, solution: &crate::sparql::QuerySolution, max_chars: usize, cut: &mut bool) {
        for (variable, term) in solution.iter() {
            let (value, was_cut) = render::term(term, max_chars);
            *cut |= was_cut;
            let name = variable.as_str();
            match self.columns.iter_mut().find(|(n, _)| n == name) {
                Some((_, values)) if !values.contains(&value) => values.push(value),
                Some(_) => {}
                None => self.columns.push((name.to_owned(), vec![value])),
            }
        }
    }

    /// The row: a column with one value holds it, one with several the list of them.
    fn row(self) -> Value {
        Value::Object(
            self.columns
                .into_iter()
                .map(|(name, mut values)| {
                    let value = if values.len() == 1 {
                        values.remove(0)
                    } else {
                        Value::Array(values)
                    };
                    (name, value)
                })
                .collect(),
        )
    }
}

/// Lowercases the local names in full IRIs of this graph's classes, relations and fields
/// (`…/class/Bug` → `…/class/bug`), which models often capitalise. Only IRIs of the
/// query are touched: string literals and comments are copied as they are. Returns
/// whether it changed anything.
fn normalise_local_names(text: &str, graph: &str) -> (String, bool) {
    let base = format!("<http://strata.local/graphs/{graph}/");
    let mut out = String::with_capacity(text.len());
    let mut changed = false;
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if rest.starts_with(&base) {
            let tail = &rest[base.len()..];
            let end = tail.find('>').unwrap_or(tail.len());
            let iri_tail = &tail[..end];
            out.push_str(&base);
            match ["class/", "rel/", "prop/"]
                .into_iter()
                .find(|k| iri_tail.starts_with(k))
            {
                Some(kind) if iri_tail[kind.len()..].chars().any(char::is_uppercase) => {
                    out.push_str(kind);
                    out.push_str(&iri_tail[kind.len()..].to_lowercase());
                    changed = true;
                }
                _ => out.push_str(iri_tail),
            }
            rest = &tail[end..];
            continue;
        }
        // Strings, comments and other IRIs are copied whole.
        let skip = crate::sparql::opaque_len(rest).unwrap_or(c.len_utf8());
        out.push_str(&rest[..skip]);
        rest = &rest[skip..];
    }
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
        // Strings and comments are the user's data: never rewritten.
        let quoted = "SELECT * { ?s ?p \"<http://strata.local/graphs/main/class/Bug>\" . \
             ?s ?q '''a ' <http://strata.local/graphs/main/rel/X> ''' } \
             # <http://strata.local/graphs/main/prop/Y>\n\
             FILTER(?o < 3 && ?o > <http://e/#x>) ?s <http://strata.local/graphs/main/prop/Size> ?z";
        let (text, changed) = normalise_local_names(quoted, "main");
        assert!(changed);
        assert!(
            text.contains("\"<http://strata.local/graphs/main/class/Bug>\""),
            "{text}"
        );
        assert!(text.contains("rel/X>"), "{text}");
        assert!(text.contains("prop/Y>"), "{text}");
        assert!(text.contains("prop/size>"), "{text}");
        assert!(text.contains("?o < 3 && ?o > <http://e/#x>"), "{text}");
        let escaped = "SELECT * { ?s ?p 'it\\'s <http://strata.local/graphs/main/class/A>' }";
        assert!(!normalise_local_names(escaped, "main").1);
    }
}
