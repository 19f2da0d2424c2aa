//! The `inspect` tool: what is in a graph and how it got there.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::render::{self, Row};
use super::{Context, graph_name};
use crate::error::{ApiError, ErrorCode};
use crate::log::format_time;
use crate::query::envelope::{CursorState, Detail, Envelope, args_digest};

/// Arguments of the `inspect` tool.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InspectArgs {
    pub action: InspectAction,
    #[serde(default)]
    pub graph: Option<String>,
    /// `entity`, `history`, `why`: the record's IRI (or `type` and `name`).
    #[serde(default)]
    pub iri: Option<String>,
    #[serde(default, rename = "type")]
    pub type_name: Option<String>,
    #[serde(default)]
    pub name: Option<String>,
    /// `why`: the link's relation, from the record.
    #[serde(default)]
    pub relation: Option<String>,
    /// `why`: where the link ends.
    #[serde(default)]
    pub target: Option<super::modes::Node>,
    #[serde(default)]
    pub commit_seq: Option<u64>,
    /// Read at this commit, not the head.
    #[serde(default)]
    pub as_of_commit_seq: Option<u64>,
    #[serde(default)]
    pub min_commit_seq: Option<u64>,
    /// From the previous answer's `next`.
    #[serde(default)]
    pub cursor: Option<String>,
    /// `compact` (default), `standard` or `full`.
    #[serde(default)]
    pub detail: Option<Detail>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum InspectAction {
    /// Counts, main types and links, and suggested next calls.
    Guide,
    /// The graphs that exist, with their head commits.
    Graphs,
    /// `head_seq`, `published_seq` and derived indexes' lag.
    Publication,
    /// Commits, newest first.
    Log,
    /// One commit with its inserted and deleted quads.
    Commit,
    /// One record (by `iri`, or `type` and `name`): its properties and links.
    Entity,
    /// The types, relations and fields that `commit` writes against.
    Ontology,
    /// One record's changes over commits (needs `iri`, or `type` and `name`).
    History,
    /// The commits, evidence and confidence behind one link (`iri` or `type`+`name`,
    /// `relation`, `target`).
    Why,
    /// The published SHACL shapes (Turtle), their mode and the classes they target.
    Schema,
    /// The SHACL conformance report of the whole graph: `conforms`, `result_count`,
    /// results (paged), `validated_at_seq`.
    Conformance,
}

/// Runs an action; `sees` says which graphs the caller may see (for `graphs`).
pub fn run(
    ctx: &Context,
    args: InspectArgs,
    sees: &dyn Fn(&str) -> bool,
) -> Result<Envelope, ApiError> {
    if args.action != InspectAction::Graphs {
        super::run::wait_for_commit(ctx, &args.graph, args.min_commit_seq)?;
    }
    match args.action {
        InspectAction::Graphs => graphs(ctx, sees),
        InspectAction::Guide => guide(ctx, &args),
        InspectAction::Publication => publication(ctx, &args),
        InspectAction::Log => log(ctx, &args),
        InspectAction::Commit => commit(ctx, &args),
        InspectAction::Entity => entity(ctx, &args),
        InspectAction::Ontology => ontology(ctx, &args),
        InspectAction::History => history(ctx, &args),
        InspectAction::Why => why(ctx, &args),
        InspectAction::Schema => schema(ctx, &args),
        InspectAction::Conformance => conformance(ctx, &args),
    }
}

/// The graphs the caller may see (a graph-limited key: only its own), like `GET /graphs`.
fn graphs(ctx: &Context, sees: &dyn Fn(&str) -> bool) -> Result<Envelope, ApiError> {
    let names: Vec<String> = ctx
        .engine
        .graph_names()
        .iter()
        .map(|n| n.as_str().to_owned())
        .filter(|n| sees(n))
        .collect();
    let mut list = Vec::new();
    for name in &names {
        // A graph that cannot be opened (a damaged log) is listed with its error.
        list.push(match ctx.engine.graph(name) {
            Ok(graph) => json!({ "graph": name, "head_seq": graph.head_seq() }),
            Err(error) => {
                let error = ApiError::from(error);
                json!({ "graph": name, "head_seq": null,
                    "error": { "code": error.code.as_str(), "message": error.message } })
            }
        });
    }
    let summary = format!("{} graph(s): {}", list.len(), names.join(", "));
    Ok(Envelope::new(summary, json!({ "graphs": list }), 0))
}

fn publication(ctx: &Context, args: &InspectArgs) -> Result<Envelope, ApiError> {
    if args.as_of_commit_seq.is_some() {
        return Err(ApiError::invalid_argument(
            "as_of_commit_seq",
            "publication is how far the search indexes are now, at the head; leave out as_of_commit_seq",
        ));
    }
    let name = graph_name(&args.graph);
    let graph = ctx.engine.graph(&name)?;
    let head = graph.head_seq();
    graph.sync_indexes()?;
    let indexes: Vec<Value> = graph
        .index_status()
        .iter()
        .map(|s| {
            json!({
                "name": s.declaration.name,
                "kind": "search",
                "class": s.declaration.class.as_str(),
                "published_seq": s.published_seq,
                "lag": head.saturating_sub(s.published_seq),
                "state": s.progress.state,
                "records": s.records,
            })
        })
        .collect();
    let lag = indexes
        .iter()
        .filter_map(|i| i["lag"].as_u64())
        .max()
        .unwrap_or(0);
    let published = head - lag;
    Ok(Envelope::new(
        if lag == 0 {
            format!(
                "graph {name} is at commit {head}; the store and {} search index(es) are up to date",
                indexes.len()
            )
        } else {
            format!(
                "graph {name} is at commit {head}; the slowest search index is {lag} commit(s) behind"
            )
        },
        json!({
            "head_seq": head,
            "published_seq": published,
            "lag": lag,
            "indexes": indexes,
        }),
        head,
    ))
}

/// Runs a SELECT and returns its rows as (variable → term) maps.
fn select(
    ctx: &Context,
    graph: &crate::engine::Graph,
    seq: u64,
    query: &str,
) -> Result<Vec<Row>, ApiError> {
    super::modes::select_rows(ctx, graph, seq, query, None)
}

/// How many types, properties and named graphs the guide lists (the most used).
const GUIDE_TYPES: usize = 20;
const GUIDE_PROPERTIES: usize = 25;
const GUIDE_GRAPHS: usize = 10;

/// The first `shown` rows of a grouped count, and how many groups there are.
fn most_used(
    ctx: &Context,
    graph: &crate::engine::Graph,
    seq: u64,
    query: &str,
    shown: usize,
) -> Result<(Vec<Row>, usize), ApiError> {
    let mut rows = select(ctx, graph, seq, query)?;
    let total = rows.len();
    rows.truncate(shown);
    Ok((rows, total))
}

fn guide(ctx: &Context, args: &InspectArgs) -> Result<Envelope, ApiError> {
    let name = graph_name(&args.graph);
    let graph = ctx.engine.graph(&name).map_err(|e| {
        let mut error = ApiError::from(e);
        if error.code == ErrorCode::GraphNotFound {
            error.message.push_str("; create one by importing data with the `rdf` tool (action `import`) or a SPARQL update into it");
        }
        error
    })?;
    let seq = graph.resolve_seq(args.as_of_commit_seq, None)?;
    let n_quads = graph.read_at(seq).count_quads();
    // Every group is counted (the most used are shown): the totals are what the graph
    // holds, and ties at the cut are broken by IRI, so the same call shows the same ones.
    let (types, n_types) = most_used(
        ctx,
        &graph,
        seq,
        "SELECT ?type (COUNT(?s) AS ?count) WHERE { ?s a ?type } GROUP BY ?type ORDER BY DESC(?count) ?type",
        GUIDE_TYPES,
    )?;
    let (links, n_links) = most_used(
        ctx,
        &graph,
        seq,
        "SELECT ?property (COUNT(*) AS ?count) WHERE { ?s ?property ?o } GROUP BY ?property ORDER BY DESC(?count) ?property",
        GUIDE_PROPERTIES,
    )?;
    let (named, n_named) = most_used(
        ctx,
        &graph,
        seq,
        "SELECT ?graph (COUNT(*) AS ?count) WHERE { GRAPH ?graph { ?s ?p ?o } } GROUP BY ?graph ORDER BY DESC(?count) ?graph",
        GUIDE_GRAPHS,
    )?;
    let example_type = types
        .first()
        .and_then(|row| render::iri(row, "type"))
        .map(str::to_owned);
    let mut suggestions = vec![json!({
        "tool": "query",
        "arguments": {
            "mode": "sparql",
            "graph": name,
            "sparql": match &example_type {
                Some(t) => format!("SELECT ?s ?label WHERE {{ ?s a <{t}> . OPTIONAL {{ ?s <http://www.w3.org/2000/01/rdf-schema#label> ?label }} }} LIMIT 20"),
                None => "SELECT ?s ?p ?o WHERE { ?s ?p ?o } LIMIT 20".to_owned(),
            }
        }
    })];
    // Searchable classes: suggest a search over the first, by meaning.
    if let Some(declaration) = graph.read_at(seq).declarations().first() {
        suggestions.push(json!({
            "tool": "query",
            "arguments": {
                "mode": "search",
                "graph": name,
                "class": declaration.class.as_str(),
                "text": "<describe what you are looking for>",
                "top_k": 10
            }
        }));
    } else if let Some(t) = &example_type {
        suggestions.push(json!({
            "tool": "embeddings",
            "arguments": { "action": "declare", "graph": name, "class": t }
        }));
    }
    suggestions.push(json!({ "tool": "inspect", "arguments": { "action": "log", "graph": name } }));
    let shown = |total: usize, listed: usize, what: &str| {
        if listed < total {
            format!("{total} {what} (the {listed} most used listed)")
        } else {
            format!("{total} {what}")
        }
    };
    let summary = format!(
        "graph {name} at commit {seq}: {n_quads} quads, {}, {}",
        shown(n_types, types.len(), "types"),
        shown(n_links, links.len(), "properties")
    );
    let mut envelope = Envelope::new(
        summary,
        json!({
            "graph": name,
            "quads": n_quads,
            "type_count": n_types,
            "property_count": n_links,
            "named_graph_count": n_named,
            "types": render::rows(&types, &["type"], 200),
            "properties": render::rows(&links, &["property"], 200),
            "named_graphs": render::rows(&named, &["graph"], 200),
            "suggested_next_calls": suggestions,
        }),
        seq,
    );
    if types.len() < n_types || links.len() < n_links || named.len() < n_named {
        envelope.truncated = Some(true);
        envelope = envelope.note(
            "only the most used types, properties and named graphs are listed (counts are totals): query mode `analyze` (by type or relation) or a SPARQL GROUP BY lists them all",
        );
    }
    if n_quads == 0 {
        envelope = envelope
            .note("the graph is empty: add data with the `rdf` tool (action `import` or `update`)");
    }
    Ok(envelope)
}

fn log(ctx: &Context, args: &InspectArgs) -> Result<Envelope, ApiError> {
    let name = graph_name(&args.graph);
    let graph = ctx.engine.graph(&name)?;
    let budget = args.detail.unwrap_or_default().budget();
    let digest = args_digest(&["log"]);
    let (head, offset) = match &args.cursor {
        Some(cursor) => {
            let state = ctx.cursors.open(cursor, "inspect.log", &name, &digest)?;
            (state.seq, state.position)
        }
        None => (graph.resolve_seq(args.as_of_commit_seq, None)?, 0),
    };
    let skip = (graph.head_seq() - head) as usize + offset as usize;
    let commits = graph.commits_newest_first(skip, budget.rows);
    let n = commits.len() as u64;
    let more = offset + n < head;
    let mut envelope = Envelope::new(
        format!(
            "commits {}–{} of graph {name} (head {head}), newest first",
            head.saturating_sub(offset),
            head.saturating_sub(offset + n) + 1
        ),
        json!({ "commits": commits.iter().map(crate::query::commit_json).collect::<Vec<_>>() }),
        head,
    );
    if more {
        let cursor = ctx.cursors.seal(&CursorState {
            kind: "inspect.log".into(),
            graph: name.clone(),
            args: digest,
            seq: head,
            position: offset + n,
        });
        envelope.next = Some(json!({ "action": "log", "graph": name, "cursor": cursor }));
        envelope.truncated = Some(true);
    }
    Ok(envelope)
}

fn commit(ctx: &Context, args: &InspectArgs) -> Result<Envelope, ApiError> {
    let name = graph_name(&args.graph);
    let graph = ctx.engine.graph(&name)?;
    let seq = args.commit_seq.ok_or_else(|| {
        ApiError::invalid_argument("commit_seq", "give the commit number in `commit_seq`")
    })?;
    // A commit that does not exist is this call's `commit_seq` (the engine's error names
    // the HTTP parameter).
    let named = |e: crate::engine::EngineError| {
        let error = ApiError::from(e);
        if error.code == crate::error::ErrorCode::CommitNotFound {
            error.with_param("commit_seq")
        } else {
            error
        }
    };
    let info = graph.commit_info(seq).map_err(named)?;
    let changes = graph.commit_changes(seq).map_err(named)?;
    let budget = args.detail.unwrap_or_default().budget();
    let digest = args_digest(&["commit", &seq.to_string()]);
    let offset = match &args.cursor {
        Some(cursor) => {
            ctx.cursors
                .open(cursor, "inspect.commit", &name, &digest)?
                .position as usize
        }
        None => 0,
    };
    let all: Vec<(bool, String)> = changes
        .added
        .iter()
        .map(|q| (true, format!("{q} .")))
        .chain(changes.removed.iter().map(|q| (false, format!("{q} ."))))
        .collect();
    let page: Vec<&(bool, String)> = all.iter().skip(offset).take(budget.rows).collect();
    let inserted: Vec<&str> = page
        .iter()
        .filter(|(added, _)| *added)
        .map(|(_, q)| q.as_str())
        .collect();
    let deleted: Vec<&str> = page
        .iter()
        .filter(|(added, _)| !*added)
        .map(|(_, q)| q.as_str())
        .collect();
    let more = offset + page.len() < all.len();
    let mut envelope = Envelope::new(
        format!(
            "commit {seq} of graph {name}: +{} -{} quads",
            changes.added.len(),
            changes.removed.len()
        ),
        json!({ "commit": crate::query::commit_json(&info), "inserted": inserted, "deleted": deleted }),
        graph.head_seq(),
    );
    if more {
        let cursor = ctx.cursors.seal(&CursorState {
            kind: "inspect.commit".into(),
            graph: name.clone(),
            args: digest,
            seq,
            position: (offset + page.len()) as u64,
        });
        envelope.next =
            Some(json!({ "action": "commit", "graph": name, "commit_seq": seq, "cursor": cursor }));
        envelope.truncated = Some(true);
    }
    Ok(envelope)
}

fn entity(ctx: &Context, args: &InspectArgs) -> Result<Envelope, ApiError> {
    let name = graph_name(&args.graph);
    let graph = ctx.engine.graph(&name)?;
    let node = record_iri(args, &name)?;
    let seq = graph.resolve_seq(args.as_of_commit_seq, None)?;
    let budget = args.detail.unwrap_or_default().budget();
    let iri = node.as_str();
    let counts = select(
        ctx,
        &graph,
        seq,
        &format!(
            "SELECT (COUNT(*) AS ?values) (COUNT(DISTINCT ?p) AS ?properties) WHERE {{ <{iri}> ?p ?v }}"
        ),
    )?;
    let (n_values, n_properties) = counts.first().map_or((0, 0), |row| {
        (
            render::count(row, "values") as usize,
            render::count(row, "properties") as usize,
        )
    });
    let n_incoming = select(
        ctx,
        &graph,
        seq,
        &format!("SELECT (COUNT(*) AS ?n) WHERE {{ ?s ?p <{iri}> }}"),
    )?
    .first()
    .map_or(0, |row| render::count(row, "n") as usize);
    // Ordered, so that what a cut leaves out is the same on every call.
    let out = select(
        ctx,
        &graph,
        seq,
        &format!(
            "SELECT ?property ?value WHERE {{ <{iri}> ?property ?value }} ORDER BY ?property ?value LIMIT {}",
            budget.rows * 5
        ),
    )?;
    let incoming = select(
        ctx,
        &graph,
        seq,
        &format!(
            "SELECT ?source ?property WHERE {{ ?source ?property <{iri}> }} ORDER BY ?property ?source LIMIT {}",
            budget.rows
        ),
    )?;
    if out.is_empty() && incoming.is_empty() {
        return Err(ApiError {
            code: ErrorCode::InvalidArgument,
            message: format!("no record <{iri}> in graph {name} at commit {seq}"),
            param: Some("iri".into()),
            validation: None,
        });
    }
    let mut properties = serde_json::Map::new();
    for row in &out {
        let (Some(property), Some(value)) = (render::iri(row, "property"), row.get("value")) else {
            continue;
        };
        let entry = properties
            .entry(property.to_owned())
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(values) = entry {
            values.push(render::term(value, budget.string_chars).0);
        }
    }
    let mut envelope = Envelope::new(
        format!(
            "<{iri}> at commit {seq} of graph {name}: {n_properties} properties ({n_values} values), {n_incoming} incoming links"
        ),
        json!({
            "iri": iri,
            "properties": properties,
            "incoming": render::rows(&incoming, &["source", "property"], budget.string_chars),
            "property_count": n_properties,
            "value_count": n_values,
            "incoming_count": n_incoming,
        }),
        seq,
    );
    if out.len() < n_values || incoming.len() < n_incoming {
        envelope.truncated = Some(true);
        envelope = envelope.note(format!(
            "{} of {n_values} values and {} of {n_incoming} incoming links are shown (by property, then value): detail \"full\" shows more; query mode sparql reads them all, e.g. SELECT ?property ?value WHERE {{ <{iri}> ?property ?value }}",
            out.len(),
            incoming.len()
        ));
    }
    Ok(envelope)
}

fn ontology(ctx: &Context, args: &InspectArgs) -> Result<Envelope, ApiError> {
    let name = graph_name(&args.graph);
    let graph = ctx.engine.graph(&name)?;
    let digest = args_digest(&["ontology"]);
    // A cursor pins the commit of the first page, like every other paged answer.
    let (seq, offset) = match &args.cursor {
        Some(cursor) => {
            let state = ctx
                .cursors
                .open(cursor, "inspect.ontology", &name, &digest)?;
            (state.seq, state.position as usize)
        }
        None => (graph.resolve_seq(args.as_of_commit_seq, None)?, 0),
    };
    let budget = args.detail.unwrap_or_default().budget();
    let iris = crate::ontology::RecordIris::for_graph(&name);
    let ontology = crate::ontology::read(&graph.snapshot(seq), &iris);
    let types: Vec<Value> = ontology
        .types
        .values()
        .map(|t| json!({ "name": t.name, "iri": iris.class(&t.name).as_str(), "super_types": t.super_types, "description": t.description }))
        .collect();
    let relations: Vec<Value> = ontology
        .relations
        .values()
        .map(|r| json!({
            "name": r.name, "iri": iris.relation(&r.name).as_str(), "domain": r.domain, "range": r.range,
            "cardinality": if r.functional { "one" } else { "many" }, "inverse": r.inverse,
            "symmetric": r.symmetric, "transitive": r.transitive, "description": r.description,
        }))
        .collect();
    let fields: Vec<Value> = ontology
        .fields
        .values()
        .map(|f| json!({
            "name": f.name, "iri": iris.field(&f.name).as_str(), "type": f.type_name, "value_type": f.value_type.name(),
            "unit": f.unit, "allowed_values": f.allowed_values, "required": f.required, "description": f.description,
        }))
        .collect();
    // Whole entries, in pages of the detail's row budget: types, then relations, then fields.
    let total = types.len() + relations.len() + fields.len();
    let page = |list: &[Value], start: usize| -> Vec<Value> {
        let skip = offset.saturating_sub(start);
        let room = (offset + budget.rows).saturating_sub(start.max(offset));
        list.iter()
            .skip(skip)
            .take(room.min(budget.rows))
            .cloned()
            .collect()
    };
    let page_types = page(&types, 0);
    let page_relations = page(&relations, types.len());
    let page_fields = page(&fields, types.len() + relations.len());
    let shown = page_types.len() + page_relations.len() + page_fields.len();
    let mut envelope = Envelope::new(
        format!(
            "ontology of graph {name} at commit {seq}: {} types, {} relations, {} fields",
            types.len(),
            relations.len(),
            fields.len()
        ),
        json!({ "types": page_types, "relations": page_relations, "fields": page_fields, "record_iri_pattern": format!("{}entity/<type>/<name>", iris.class_prefix().trim_end_matches("class/")) }),
        seq,
    );
    envelope.counts = Some(json!({ "entries": total, "offset": offset, "returned": shown }));
    if offset + shown < total {
        let cursor = ctx.cursors.seal(&CursorState {
            kind: "inspect.ontology".into(),
            graph: name.clone(),
            args: digest,
            seq,
            position: (offset + shown) as u64,
        });
        envelope.next = Some(json!({ "action": "ontology", "graph": name, "cursor": cursor }));
        envelope.truncated = Some(true);
    }
    if types.is_empty() {
        envelope = envelope
            .note("no ontology yet: define one with `configure` (action `define_ontology`)");
    }
    Ok(envelope)
}

/// The record an inspect call names: `iri`, or `type` and `name`.
fn record_iri(args: &InspectArgs, graph_name: &str) -> Result<crate::model::NamedNode, ApiError> {
    match (&args.iri, &args.type_name, &args.name) {
        (Some(iri), _, _) => {
            let iri = iri.trim().trim_start_matches('<').trim_end_matches('>');
            crate::model::NamedNode::new(iri)
                .map_err(|e| ApiError::invalid_argument("iri", format!("not an IRI: {e}")))
        }
        (None, Some(type_name), Some(record_name)) => {
            Ok(crate::ontology::RecordIris::for_graph(graph_name).entity(type_name, record_name))
        }
        _ => Err(ApiError::invalid_argument(
            "iri",
            "give the record's `iri`, or its `type` and `name`",
        )),
    }
}

fn commit_meta(graph: &crate::engine::Graph, seq: u64) -> Value {
    match graph.commit_info(seq) {
        Ok(info) => json!({
            "commit_seq": seq,
            "committed_at": format_time(info.header.committed_at),
            "observed_at": info.header.observed_at.map(format_time),
            "author": info.header.author,
            "message": info.header.message,
        }),
        Err(_) => json!({ "commit_seq": seq }),
    }
}

fn history(ctx: &Context, args: &InspectArgs) -> Result<Envelope, ApiError> {
    let name = graph_name(&args.graph);
    let graph = ctx.engine.graph(&name)?;
    let node = record_iri(args, &name)?;
    let seq = graph.resolve_seq(args.as_of_commit_seq, None)?;
    let versions = graph.read_at(seq).history_of(&node.clone().into());
    if versions.is_empty() {
        return Err(ApiError {
            code: ErrorCode::InvalidArgument,
            message: format!(
                "no record <{}> in graph {name} up to commit {seq}",
                node.as_str()
            ),
            param: Some("iri".into()),
            validation: None,
        });
    }
    // Group the changes by the commit that made them.
    let mut by_commit: std::collections::BTreeMap<u64, (Vec<String>, Vec<String>)> =
        std::collections::BTreeMap::new();
    for (quad, added, removed) in &versions {
        by_commit
            .entry(*added)
            .or_default()
            .0
            .push(format!("{quad} ."));
        if let Some(removed) = removed {
            by_commit
                .entry(*removed)
                .or_default()
                .1
                .push(format!("{quad} ."));
        }
    }
    let budget = args.detail.unwrap_or_default().budget();
    let n_commits = by_commit.len();
    let changes: Vec<Value> = by_commit
        .iter()
        .rev()
        .take(budget.rows)
        .map(|(commit, (added, removed))| {
            let mut entry = commit_meta(&graph, *commit);
            entry["added"] = json!(added);
            entry["removed"] = json!(removed);
            entry
        })
        .collect();
    let mut envelope = Envelope::new(
        format!(
            "<{}> changed in {n_commits} commit(s) of graph {name} up to commit {seq} (newest first)",
            node.as_str()
        ),
        json!({ "iri": node.as_str(), "changes": changes }),
        seq,
    );
    if n_commits > budget.rows {
        envelope.truncated = Some(true);
        envelope = envelope.note(format!(
            "{} older commits not shown; ask with a larger detail",
            n_commits - budget.rows
        ));
    }
    Ok(envelope)
}

fn why(ctx: &Context, args: &InspectArgs) -> Result<Envelope, ApiError> {
    let name = graph_name(&args.graph);
    let graph = ctx.engine.graph(&name)?;
    let source = record_iri(args, &name)?;
    let relation = args.relation.as_deref().ok_or_else(|| {
        ApiError::invalid_argument("relation", "give the link's relation in `relation`")
    })?;
    let target = args.target.as_ref().ok_or_else(|| {
        ApiError::invalid_argument("target", "give where the link ends in `target`")
    })?;
    let iris = crate::ontology::RecordIris::for_graph(&name);
    let predicate = if relation.contains("://") {
        crate::model::NamedNode::new(relation.trim_start_matches('<').trim_end_matches('>'))
            .map_err(|e| ApiError::invalid_argument("relation", format!("not an IRI: {e}")))?
    } else {
        iris.relation(relation)
    };
    let target = match (&target.iri, &target.type_name, &target.name, &target.key) {
        (Some(iri), ..) => {
            crate::model::NamedNode::new(iri.trim_start_matches('<').trim_end_matches('>'))
                .map_err(|e| ApiError::invalid_argument("target.iri", format!("not an IRI: {e}")))?
        }
        (None, Some(type_name), Some(record), None) => iris.entity(type_name, record),
        (None, None, None, Some(key)) => iris.keyed(key),
        _ => {
            return Err(ApiError::invalid_argument(
                "target",
                "name the target as {\"iri\"}, {\"type\", \"name\"} or {\"key\"}",
            ));
        }
    };
    let seq = graph.resolve_seq(args.as_of_commit_seq, None)?;
    let versions: Vec<(u64, Option<u64>)> = graph
        .read_at(seq)
        .history_of(&source.clone().into())
        .into_iter()
        .filter(|(quad, _, _)| quad.predicate == predicate && quad.object == target.clone().into())
        .map(|(_, added, removed)| (added, removed))
        .collect();
    if versions.is_empty() {
        return Err(ApiError {
            code: ErrorCode::InvalidArgument,
            message: format!(
                "no link <{}> <{}> <{}> in graph {name} up to commit {seq}",
                source.as_str(),
                predicate.as_str(),
                target.as_str()
            ),
            param: Some("relation".into()),
            validation: None,
        });
    }
    let holds = versions.iter().any(|(_, removed)| removed.is_none());
    let timeline: Vec<Value> = versions
        .iter()
        .map(|(added, removed)| json!({ "added": commit_meta(&graph, *added), "removed": removed.map(|r| commit_meta(&graph, r)) }))
        .collect();
    let annotations = select(
        ctx,
        &graph,
        seq,
        &format!(
            "SELECT ?property ?value WHERE {{ ?reifier <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> <<( <{}> <{}> <{}> )>> ; ?property ?value . FILTER(?property != <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies>) }}",
            source.as_str(),
            predicate.as_str(),
            target.as_str()
        ),
    )?;
    Ok(Envelope::new(
        format!(
            "the link {} at commit {seq} of graph {name}; {} version(s), {} annotation(s)",
            if holds { "holds" } else { "does not hold" },
            versions.len(),
            annotations.len()
        ),
        json!({ "source": source.as_str(), "relation": predicate.as_str(), "target": target.as_str(), "holds": holds, "versions": timeline, "annotations": render::rows(&annotations, &["property"], 1000) }),
        seq,
    ))
}

fn schema(ctx: &Context, args: &InspectArgs) -> Result<Envelope, ApiError> {
    let name = graph_name(&args.graph);
    let graph = ctx.engine.graph(&name)?;
    let reader = graph
        .reader(crate::engine::ReadAt {
            commit: args.as_of_commit_seq,
            moment: None,
        })
        .map_err(|e| ApiError::from(e).with_param("as_of_commit_seq"))?;
    let seq = reader.seq();
    let active = reader.shapes()?;
    let Some(active) = active else {
        return Ok(Envelope::new(
            format!(
                "graph {name} has no SHACL shapes at commit {seq}; publish some with configure publish_schema"
            ),
            json!({ "published": false, "mode": null }),
            seq,
        ));
    };
    let names = |set: &std::collections::BTreeSet<crate::model::NamedNode>| {
        set.iter()
            .map(|n| n.as_str().to_owned())
            .collect::<Vec<_>>()
    };
    let shapes = &active.shapes;
    Ok(Envelope::new(
        format!(
            "graph {name} enforces {} shape(s) in {} mode (published in commit {}), targeting {}",
            shapes.shape_count,
            active.mode.name(),
            active.published_seq,
            if shapes.target_classes.is_empty() {
                "no class".to_owned()
            } else {
                names(&shapes.target_classes).join(", ")
            }
        ),
        json!({
            "published": true,
            "mode": active.mode.name(),
            "published_seq": active.published_seq,
            "shape_count": shapes.shape_count,
            "target_classes": names(&shapes.target_classes),
            "classes": names(&shapes.classes),
            "properties": names(&shapes.properties),
            "shapes_turtle": crate::report::shapes_turtle(&shapes.triples),
        }),
        seq,
    ))
}

fn conformance(ctx: &Context, args: &InspectArgs) -> Result<Envelope, ApiError> {
    let name = graph_name(&args.graph);
    let graph = ctx.engine.graph(&name)?;
    let budget = args.detail.unwrap_or_default().budget();
    let digest = args_digest(&["conformance"]);
    let pinned = match &args.cursor {
        Some(cursor) => {
            let state = ctx
                .cursors
                .open(cursor, "inspect.conformance", &name, &digest)?;
            Some((state.seq, state.position as usize))
        }
        None => match args.as_of_commit_seq {
            Some(seq) => Some((graph.resolve_seq(Some(seq), None)?, 0)),
            None => None,
        },
    };
    let current = graph.conformance()?;
    // A later page reads the report of page 1's commit, recomputed if commits moved on.
    let conformance = match (pinned, current) {
        (None, None) => {
            let head = graph.head_seq();
            return Ok(Envelope::new(
                format!(
                    "graph {name} has no SHACL shapes; publish some with configure publish_schema"
                ),
                json!({ "published": false, "conforms": true, "result_count": 0, "results": [] }),
                head,
            ));
        }
        (None, Some(c)) => c,
        (Some((seq, _)), Some(c)) if c.validated_at_seq == seq => c,
        (Some((seq, _)), _) => {
            let reader = graph.reader(crate::engine::ReadAt::commit(seq))?;
            let Some(active) = reader.shapes()? else {
                if args.cursor.is_some() {
                    return Err(ApiError {
                        code: ErrorCode::CursorMismatch,
                        message: format!("graph {name} had no shapes at commit {seq}"),
                        param: Some("cursor".into()),
                        validation: None,
                    });
                }
                return Ok(Envelope::new(
                    format!("graph {name} had no SHACL shapes at commit {seq}"),
                    json!({ "published": false, "conforms": true, "result_count": 0, "results": [] }),
                    seq,
                ));
            };
            std::sync::Arc::new(crate::engine::Conformance {
                report: reader.validate(&active.shapes)?,
                validated_at_seq: seq,
                shapes_seq: active.published_seq,
                mode: active.mode,
            })
        }
    };
    let offset = pinned.map_or(0, |(_, position)| position);
    let limit = budget.rows;
    let total = conformance.report.results.len();
    let data = crate::report::conformance_json(&conformance, offset, limit);
    let shown = total.saturating_sub(offset).min(limit);
    let summary = if conformance.report.conforms {
        format!(
            "graph {name} conforms to its shapes at commit {}",
            conformance.validated_at_seq
        )
    } else {
        format!(
            "graph {name} does not conform at commit {}: {total} result(s) ({} violation(s)) on {} focus node(s); results {}–{}",
            conformance.validated_at_seq,
            conformance.report.violation_count(),
            conformance.report.focus_nodes().len(),
            offset + 1,
            offset + shown
        )
    };
    let mut envelope = Envelope::new(summary, data, conformance.validated_at_seq);
    if offset + shown < total {
        let cursor = ctx.cursors.seal(&CursorState {
            kind: "inspect.conformance".into(),
            graph: name.clone(),
            args: digest,
            seq: conformance.validated_at_seq,
            position: (offset + shown) as u64,
        });
        envelope.next = Some(json!({ "action": "conformance", "graph": name, "cursor": cursor }));
        envelope.truncated = Some(true);
    }
    Ok(envelope)
}
